//! The placement workloads of issue 33 (`cachelib`, `lsm`, tenant mixes) through the
//! whole simulator, from their example files: on the page FTL, with FDP and on a zoned
//! drive, every run completes with no refused command (every `zns.errors.*` counter, the
//! invalid-placement-identifier event and every namespace's out-of-range count zero),
//! so no write went off a zone's write pointer. The generators' own streams are checked
//! against small models in their files (`synth/cachelib.rs`, `synth/lsm.rs`).

mod common;

use serde_json::Value;

/// Runs an example with `extra` flags and returns its JSON report.
fn run(example: &str, extra: &[&str]) -> Value {
    let path = format!("{}/examples/{example}", env!("CARGO_MANIFEST_DIR"));
    let mut args = vec!["run", "--config", &path, "--json", "-"];
    args.extend_from_slice(extra);
    let o = common::ssdlab(&args);
    assert!(
        o.status.success(),
        "{example} {extra:?}: {}",
        common::stderr(&o)
    );
    serde_json::from_slice(&o.stdout).expect("JSON report")
}

/// No command was refused: zone statuses, invalid placement identifiers, namespaces'
/// out-of-range requests.
fn nothing_refused(r: &Value, what: &str) {
    let counters = r["counters"].as_object().expect("counters");
    for (k, v) in counters {
        if k.starts_with("zns.errors.") || k == "fdp.events.invalid_placement_identifier" {
            assert_eq!(v.as_u64(), Some(0), "{what}: {k}");
        }
    }
    for ns in r["namespaces"].as_array().into_iter().flatten() {
        assert_eq!(
            ns["errors_lba_out_of_range"].as_u64(),
            Some(0),
            "{what}: {ns}"
        );
    }
    assert!(
        r["host_write_bytes"].as_u64().unwrap_or(0) > 0,
        "{what}: wrote nothing"
    );
}

fn lsm_note(r: &Value) -> String {
    r["notes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .find(|n| n.starts_with("lsm workload"))
        .unwrap_or_else(|| panic!("no lsm note in {}", r["notes"]))
        .to_string()
}

#[test]
fn cachelib_runs_with_fdp_and_without_and_fdp_keeps_the_lifetimes_apart() {
    let fdp = run("cachelib.toml", &[]);
    nothing_refused(&fdp, "cachelib with FDP");
    let plain = run("cachelib.toml", &["--set", "ftl.fdp.enabled=false"]);
    nothing_refused(&plain, "cachelib without FDP");
    // Both classes wrote through their own handle.
    let handles = fdp["fdp"]["handles"].as_array().expect("fdp handles");
    assert!(handles[0]["host_bytes_written"].as_u64() > Some(0));
    assert!(handles[1]["host_bytes_written"].as_u64() > Some(0));
    // The same host writes; separating the lifetimes leaves GC less to copy.
    assert_eq!(fdp["host_write_bytes"], plain["host_write_bytes"]);
    let (wa_fdp, wa_plain) = (
        fdp["write_amplification"].as_f64().unwrap(),
        plain["write_amplification"].as_f64().unwrap(),
    );
    assert!(wa_fdp < wa_plain, "FDP {wa_fdp}, without {wa_plain}");
}

/// Mounted as ZenFS mounts: one Report Zones of every zone, first of all, which found
/// the 32 zones of 32 MiB of the 1 GiB drive (examples/zoned-log.toml's and
/// lsm-zoned.toml's) empty.
fn mounted_on_empty_zones(r: &Value, what: &str) {
    assert_eq!(
        r["counters"]["zns.report_zones"].as_u64(),
        Some(1),
        "{what}"
    );
    let q = r["zone_reports"].as_array().expect("zone_reports");
    assert_eq!(q.len(), 1, "{what}: {q:?}");
    assert_eq!(
        (q[0]["filter"].as_str(), q[0]["start_lba"].as_u64()),
        (Some("all"), Some(0)),
        "{what}"
    );
    assert_eq!(q[0]["zones_matching"].as_u64(), Some(32), "{what}");
    let zones = q[0]["zones"].as_array().expect("descriptors");
    assert_eq!(zones.len(), 32, "{what}");
    assert!(
        zones.iter().all(|z| z["state"] == "ZSE"),
        "{what}: {zones:?}"
    );
}

/// `zoned-seq` and `cachelib` on a zoned drive mount as `lsm` does, and then write
/// their zones in a ring with resets and no refused command.
#[test]
fn zoned_seq_and_cachelib_on_zones_list_the_zones_first() {
    for extra in [&[][..], &["--workload", "cachelib"][..]] {
        let r = run("zoned-log.toml", extra);
        let what = format!("zoned-log.toml {extra:?}");
        nothing_refused(&r, &what);
        assert!(r["counters"]["zns.resets"].as_u64() > Some(0), "{what}");
        mounted_on_empty_zones(&r, &what);
    }
}

#[test]
fn lsm_runs_on_the_page_ftl_with_fdp_and_on_zones_without_a_refused_command() {
    for (example, extra) in [
        ("lsm.toml", &["--set", "ftl.fdp.enabled=false"][..]),
        ("lsm.toml", &[][..]),
        ("lsm-zoned.toml", &[][..]),
    ] {
        let r = run(example, extra);
        let what = format!("{example} {extra:?}");
        nothing_refused(&r, &what);
        let note = lsm_note(&r);
        assert!(
            note.contains("host-side write amplification"),
            "{what}: {note}"
        );
        assert!(!note.contains("ran out of space"), "{what}: {note}");
        if example == "lsm-zoned.toml" {
            // Zone resets, no trims; the device writes host data only.
            assert!(r["counters"]["zns.resets"].as_u64() > Some(0), "{what}");
            assert_eq!(r["host_trim_pages"].as_u64(), Some(0), "{what}");
            assert_eq!(r["write_amplification"].as_f64(), Some(1.0), "{what}");
            assert!(!note.contains("host GC wrote 0B"), "{what}: {note}");
            assert!(note.contains(", 1 zone reports;"), "{what}: {note}");
            mounted_on_empty_zones(&r, &what);
        } else {
            assert!(r["host_trim_pages"].as_u64() > Some(0), "{what}");
            assert!(r.get("zone_reports").is_none(), "{what}");
        }
    }
}

#[test]
fn tenants_run_beside_each_other_and_with_fdp_each_keeps_its_handle() {
    let r = run("tenants.toml", &[]);
    nothing_refused(&r, "tenants");
    assert_eq!(r["namespaces"].as_array().map(Vec::len), Some(2));
    let r = run("tenants-fdp.toml", &[]);
    nothing_refused(&r, "tenants with FDP");
    // Each namespace wrote through its own handle only.
    let h = r["fdp"]["handles"].as_array().expect("handles");
    let ns = r["fdp"]["namespaces"].as_array().expect("fdp namespaces");
    assert_eq!(ns.len(), 2);
    for (n, handle) in ns.iter().zip(h) {
        assert_eq!(
            n["host_bytes_written"], handle["host_bytes_written"],
            "{n} {handle}"
        );
    }
}

#[test]
fn the_generators_keys_are_refused_outside_their_generator_and_out_of_range() {
    let cfg = |body: &str| {
        let f = tempfile::Builder::new()
            .suffix(".toml")
            .tempfile()
            .expect("a temporary file");
        std::fs::write(f.path(), body).expect("written");
        f
    };
    let f = cfg("[workload]\nkind = \"zipf\"\n[workload.lsm]\nfanout = 4\n");
    common::refused(
        &[
            "run",
            "--config",
            &f.path().display().to_string(),
            "--capacity",
            "256MiB",
        ],
        &["workload.lsm", "zipf"],
    );
    let f = cfg("[workload]\nkind = \"cachelib\"\n[workload.cachelib]\nsoc_percent = 120\n");
    common::refused(
        &[
            "run",
            "--config",
            &f.path().display().to_string(),
            "--capacity",
            "256MiB",
        ],
        &["workload.cachelib.soc_percent", "between 0 and 100"],
    );
    let f = cfg("[workload]\nkind = \"lsm\"\n[workload.lsm]\nfanoot = 4\n");
    common::refused(
        &["run", "--config", &f.path().display().to_string()],
        &["fanoot"],
    );
    // Closed loops only; a default store too large for the drive names its key.
    common::refused(
        &[
            "run",
            "--workload",
            "lsm",
            "--capacity",
            "4GiB",
            "--mean-gap-ns",
            "1000",
        ],
        &["workload.mean_gap_ns", "lsm"],
    );
    common::refused(
        &["run", "--workload", "lsm", "--capacity", "256MiB"],
        &["workload.lsm.live_percent", "table_size"],
    );
    // The SOC cannot live on zones.
    let f = cfg(
        "[ftl]\nname = \"zoned\"\n[buffer]\nname = \"none\"\n[workload]\nkind = \"cachelib\"\n\
         [workload.cachelib]\nsoc_percent = 4\n",
    );
    common::refused(
        &[
            "run",
            "--config",
            &f.path().display().to_string(),
            "--capacity",
            "256MiB",
        ],
        &["workload.cachelib.soc_percent", "zoned"],
    );
}
