//! Namespaces (`[[namespace]]`) and host arbitration: a drive's namespaces share its
//! flash, their per-namespace figures add up to the device totals, a trace's device
//! column maps onto them, a request past its namespace is an error counted for it, and
//! bad tables are refused naming their key (docs/placement.md).

use ssdlab::config::Config;
use ssdlab::report::Report;
use ssdlab::sim::{RunOptions, run};

fn config(text: &str) -> Config {
    let t: toml::Table = toml::from_str(text).unwrap();
    Config::load_with(None, None, t).unwrap()
}

const TWO: &str = r#"
[device]
capacity = "1GiB"
[host]
qd = 8
arbitration = "wrr"
[workload]
kind = "mixed"
requests = 3000
[[namespace]]
name = "db"
share = 0.5
priority = "high"
[[namespace]]
name = "logs"
share = 0.25
priority = "low"
[namespace.workload]
kind = "seq-write"
requests = 1000
"#;

#[test]
fn two_namespaces_add_up_to_the_device_totals() {
    let r = run(&config(TWO), RunOptions::default()).unwrap().report;
    assert_eq!(r.namespaces.len(), 2);
    let (db, logs) = (&r.namespaces[0], &r.namespaces[1]);
    assert_eq!((db.name.as_str(), logs.name.as_str()), ("db", "logs"));
    assert_eq!(db.requests, 3000);
    assert_eq!(logs.requests, 1000);
    assert_eq!(db.requests + logs.requests, r.latency_ns.count);
    assert_eq!(db.read_bytes + logs.read_bytes, r.host_read_bytes);
    assert_eq!(db.write_bytes + logs.write_bytes, r.host_write_bytes);
    assert_eq!(logs.read_bytes, 0);
    assert!(db.read_bytes > 0);
    assert_eq!(
        db.read_latency_ns.count + db.write_latency_ns.count + logs.write_latency_ns.count,
        r.latency_ns.count
    );
    adds_up(&r, "db + logs");
    assert_eq!(db.errors_lba_out_of_range + logs.errors_lba_out_of_range, 0);
    // The same run without the tables has no namespace section.
    let one =
        config("[device]\ncapacity = \"1GiB\"\n[workload]\nkind = \"mixed\"\nrequests = 300\n");
    assert!(
        run(&one, RunOptions::default())
            .unwrap()
            .report
            .namespaces
            .is_empty()
    );
}

/// The write-amplification oracle of a run with namespaces: every flash program is
/// counted once, for a namespace or as the overhead (the media bytes sum to the
/// programs'), the contributions plus the overhead's sum to the device's WA, and each
/// namespace's own WA is its media bytes over its host bytes (page-aligned writes).
fn adds_up(r: &Report, what: &str) {
    let page = r.config["resolved"]["geometry"]["page_size_bytes"]
        .as_u64()
        .expect("page size");
    let o = r
        .namespace_overhead
        .as_ref()
        .unwrap_or_else(|| panic!("{what}: no namespace_overhead"));
    let media: u64 = r.namespaces.iter().map(|n| n.media_write_bytes).sum();
    assert_eq!(
        media + o.media_write_bytes,
        r.nand_program_pages * page,
        "{what}"
    );
    let wa: f64 = r
        .namespaces
        .iter()
        .map(|n| n.write_amplification_contribution)
        .sum::<f64>()
        + o.write_amplification_contribution;
    assert!(
        (wa - r.write_amplification).abs() < 1e-9,
        "{what}: {wa} vs {}",
        r.write_amplification
    );
    for n in &r.namespaces {
        let own = n.media_write_bytes as f64 / n.write_bytes as f64;
        assert!(
            (n.write_amplification - own).abs() < 1e-9,
            "{what}: {}: {} vs {own}",
            n.name,
            n.write_amplification
        );
    }
}

/// Two tenants writing equal bytes in 4 KiB requests on a 256 MiB drive without a write
/// buffer, preconditioned with `precondition` (the noisy neighbour of
/// examples/tenants.toml, smaller): `seq` rewrites its half sequentially, `rand` writes
/// uniformly at random over its half.
fn tenants(ftl: &str, precondition: &str, requests: u64) -> Config {
    config(&format!(
        "seed = 1\nprecondition = \"{precondition}\"\n[device]\ncapacity = \"256MiB\"\n\
         [buffer]\nname = \"none\"\n{ftl}\n\
         [[namespace]]\nname = \"seq\"\nshare = 0.5\n[namespace.workload]\n\
         kind = \"seq-write\"\nsize = \"4KiB\"\nrequests = {requests}\n\
         [[namespace]]\nname = \"rand\"\nshare = 0.5\n[namespace.workload]\n\
         kind = \"random-write\"\nsize = \"4KiB\"\nrequests = {requests}\n"
    ))
}

/// The oracle on FTLs whose copies take each path of the flash array (page-mapped GC
/// copy runs, DFTL's translation pages, block merges of the hybrid FTLs).
#[test]
fn namespaces_write_amplification_adds_up_on_every_kind_of_ftl() {
    for ftl in [
        "[ftl]\nname = \"page\"",
        "[ftl]\nname = \"dftl\"\n[ftl.dftl]\ncmt_entries = 1024",
        "[ftl]\nname = \"nftl\"",
        "[ftl]\nname = \"bast\"",
        "[ftl]\nname = \"fast\"",
    ] {
        let r = run(&tenants(ftl, "fill", 16384), RunOptions::default())
            .unwrap()
            .report;
        adds_up(&r, ftl);
        let o = r.namespace_overhead.as_ref().unwrap();
        let page = r.config["resolved"]["geometry"]["page_size_bytes"]
            .as_u64()
            .unwrap();
        if ftl.contains("dftl") {
            // Translation pages hold no namespace's page: at least every one written.
            assert!(r.map_program_pages > 0, "{ftl}");
            assert!(o.media_write_bytes >= r.map_program_pages * page, "{ftl}");
        } else {
            // Every page these FTLs program holds a logical page.
            assert_eq!(o.media_write_bytes, 0, "{ftl}");
        }
    }
}

/// The measured WA tells the tenants apart: both write the same bytes, but the random
/// writer's pages are what the garbage collector copies. Apportioned by host-write
/// share, as before, both got the device's WA.
#[test]
fn a_sequential_tenant_beside_a_random_one_has_the_lower_write_amplification() {
    let r = run(&tenants("", "fill", 65536), RunOptions::default())
        .unwrap()
        .report;
    adds_up(&r, "seq + rand");
    let (seq, rand) = (&r.namespaces[0], &r.namespaces[1]);
    assert_eq!(seq.write_bytes, rand.write_bytes);
    assert!(
        r.write_amplification > 1.0,
        "no GC: {}",
        r.write_amplification
    );
    assert!(
        seq.write_amplification < rand.write_amplification,
        "seq {} vs rand {}",
        seq.write_amplification,
        rand.write_amplification
    );
    assert!(seq.write_amplification_contribution < rand.write_amplification_contribution);
}

/// An independent oracle: with FDP on, the FTL keeps the drive's FDP statistics per
/// namespace, charging the data GC moves to the namespace that wrote it (`fdp.rs`), in
/// its own books apart from the flash array's tags. Over a run from an empty drive
/// (FDP counts the drive's whole life) each namespace's measured WA is its FDP WAF.
#[test]
fn a_namespaces_measured_wa_is_its_fdp_waf() {
    let ftl = "[ftl]\nname = \"page\"\n[ftl.fdp]\nenabled = true";
    let r = run(&tenants(ftl, "none", 65536), RunOptions::default())
        .unwrap()
        .report;
    adds_up(&r, "FDP");
    assert!(
        r.write_amplification > 1.0,
        "no GC: {}",
        r.write_amplification
    );
    let fdp = r.fdp.as_ref().expect("FDP statistics");
    assert_eq!(fdp.namespaces.len(), 2, "{:?}", fdp.namespaces);
    for (n, f) in r.namespaces.iter().zip(&fdp.namespaces) {
        assert_eq!(n.media_write_bytes, f.media_bytes_written, "{}", n.name);
        assert!(
            (n.write_amplification - f.waf).abs() < 1e-9,
            "{}: {} vs FDP {}",
            n.name,
            n.write_amplification,
            f.waf
        );
    }
}

/// A zone finish pads its zone to capacity with pages of no logical block: the padding
/// is the device's overhead, not the namespace's. Namespace a writes one page and
/// finishes its zone (6,143 pages of padding); b writes four pages.
#[test]
fn a_zone_finishs_padding_is_overhead() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zf.ascii");
    std::fs::write(&path, "0 0 0 8 0\n1000 1 0 32 0\n2000 0 0 0 ZF\n").unwrap();
    let cfg = config(&format!(
        "[device]\ncapacity = \"1GiB\"\n[ftl]\nname = \"zoned\"\n[ftl.zoned]\n\
         zone_size = \"32MiB\"\nzone_capacity = \"24MiB\"\n[buffer]\nname = \"none\"\n\
         [trace]\npath = {:?}\nformat = \"ascii\"\n\
         [[namespace]]\nname = \"a\"\nshare = 0.5\ndevice = 0\n\
         [[namespace]]\nname = \"b\"\nshare = 0.5\ndevice = 1\n",
        path.display().to_string()
    ));
    let r = run(&cfg, RunOptions::default()).unwrap().report;
    adds_up(&r, "zone finish");
    let (a, b) = (&r.namespaces[0], &r.namespaces[1]);
    assert_eq!((a.media_write_bytes, b.media_write_bytes), (4096, 4 * 4096));
    assert_eq!((a.write_amplification, b.write_amplification), (1.0, 1.0));
    let o = r.namespace_overhead.as_ref().unwrap();
    assert_eq!(o.media_write_bytes, 6143 * 4096);
    assert!((o.write_amplification_contribution - 6143.0 / 5.0).abs() < 1e-9);
}

#[test]
fn a_traces_devices_map_onto_namespaces_and_past_the_end_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two.ascii");
    // ASCII: time_ns dev lba_sectors size_sectors op. Device 0: five 4 KiB requests;
    // device 1: three, the last ending past its 1 MiB namespace (sector 2047 + 8);
    // device 2: one, not mapped (dropped).
    let mut text = String::new();
    for i in 0..5u64 {
        text += &format!("{} 0 {} 8 0\n", i * 1000, i * 8);
    }
    text += "5000 1 0 8 0\n6000 1 8 8 1\n7000 1 2047 8 0\n8000 2 0 8 0\n";
    std::fs::write(&path, text).unwrap();
    let cfg = config(&format!(
        "[device]\ncapacity = \"1GiB\"\n[trace]\npath = {:?}\nformat = \"ascii\"\n\
         [[namespace]]\nname = \"a\"\nsize = \"1MiB\"\ndevice = 1\n\
         [[namespace]]\nname = \"b\"\nsize = \"8MiB\"\ndevice = 0\n",
        path.display().to_string()
    ));
    let r = run(&cfg, RunOptions::default()).unwrap().report;
    let (a, b) = (&r.namespaces[0], &r.namespaces[1]);
    assert_eq!((a.requests, a.errors_lba_out_of_range), (2, 1));
    assert_eq!((b.requests, b.errors_lba_out_of_range), (5, 0));
    assert_eq!(r.latency_ns.count, 7);
    assert_eq!(a.read_bytes + a.write_bytes, 2 * 4096);
    assert_eq!(b.read_bytes + b.write_bytes, 5 * 4096);
}

#[test]
fn bad_namespace_settings_name_their_key() {
    let refused = |extra: &str, key: &str| {
        let text = format!(
            "[device]\ncapacity = \"1GiB\"\n[workload]\nkind = \"random-write\"\nrequests = 10\n{extra}"
        );
        let t: toml::Table = toml::from_str(&text).unwrap();
        let e = Config::load_with(None, None, t)
            .and_then(|c| c.validate().map(drop))
            .unwrap_err();
        assert_eq!(e.key(), Some(key), "{extra}: {e}");
    };
    refused("[[namespace]]\nname = \"a\"\n", "namespace[0].size");
    refused(
        "[[namespace]]\nname = \"a\"\nshare = 0.6\n[[namespace]]\nname = \"b\"\nshare = 0.6\n",
        "namespace[1].share",
    );
    refused(
        "[[namespace]]\nname = \"a\"\nshare = 0.5\ndevice = 3\n",
        "namespace[0].device",
    );
    refused(
        "[host]\narbitration = \"wrr\"\nweight_low = 0\n[[namespace]]\nname = \"a\"\nshare = 0.5\n",
        "host.weight_low",
    );
    refused("[host]\narbitration = \"wrr\"\n", "host.arbitration");
    refused(
        "[[namespace]]\nname = \"a\"\nshare = 0.5\n[namespace.workload]\nkind = \"random-write\"\nrequests = 0\n",
        "namespace[0].workload.requests",
    );
    // A zoned namespace beside a conventional one: the one FTL is the whole drive.
    refused(
        "[[namespace]]\nname = \"a\"\nshare = 0.5\n[[namespace]]\nname = \"z\"\nshare = 0.5\nzoned = true\n",
        "namespace[1].zoned",
    );
}

#[test]
fn an_ascii_traces_sixth_column_is_the_placement_identifier() {
    use ssdlab::workload::trace::{TraceFormat, TraceOptions, open_trace};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.ascii");
    std::fs::write(&path, "0 0 0 8 0 3\n1000 0 8 8 0\n2000 0 16 8 1 65535\n").unwrap();
    let opts = TraceOptions {
        format: Some(TraceFormat::Ascii),
        capacity_bytes: 1 << 30,
        ..TraceOptions::default()
    };
    let got: Vec<Option<u16>> = open_trace(&path, &opts)
        .unwrap()
        .requests
        .map(|r| r.unwrap().placement)
        .collect();
    assert_eq!(got, [Some(3), None, Some(65535)]);
    std::fs::write(&path, "0 0 0 8 0 65536\n").unwrap();
    let e = open_trace(&path, &opts)
        .unwrap()
        .requests
        .next()
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(e.contains("placement"), "{e}");
}

mod common;
use common::{ssdlab, stderr};

/// Two namespaces, neither with its own generator: `--workload NS=GEN` must name both.
const TWO_BARE: &str = r#"
[device]
capacity = "1GiB"
[workload]
requests = 500
[[namespace]]
name = "db"
share = 0.5
[[namespace]]
name = "logs"
share = 0.25
"#;

#[test]
fn workload_flag_gives_each_namespace_its_generator() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("two.toml");
    std::fs::write(&cfg, TWO_BARE).unwrap();
    let out = dir.path().join("r.json");
    let o = ssdlab(&[
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--workload",
        "db=random-write,logs=seq-write",
        "--json",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let ns = &r["config"]["namespace"];
    assert_eq!(ns[0]["workload"]["kind"], "random-write", "{ns}");
    assert_eq!(ns[1]["workload"]["kind"], "seq-write", "{ns}");
    // Each keeps the [workload] keys it did not get from the flag.
    assert_eq!(ns[1]["workload"]["requests"], 500, "{ns}");
    // Phase k of the run is every namespace's phase k, their names joined by `+`.
    assert_eq!(r["phases"][0]["name"], "random-write+seq-write");
    assert_eq!(r["namespaces"][0]["read_bytes"], 0);
    assert_eq!(r["namespaces"][1]["requests"], 500);
}

#[test]
fn workload_flag_per_namespace_refuses_what_it_cannot_place() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("two.toml");
    std::fs::write(&cfg, TWO_BARE).unwrap();
    let c = cfg.to_str().unwrap();
    for (args, want) in [
        (
            vec![
                "run",
                "--config",
                c,
                "--workload",
                "db=random-write,nope=seq-write",
            ],
            "no namespace named 'nope'; expected one of db, logs",
        ),
        (
            vec!["run", "--config", c, "--workload", "db=random-write"],
            "namespace 'logs' has no generator",
        ),
        (
            vec!["run", "--workload", "db=random-write"],
            "the design has none",
        ),
        (
            vec![
                "run",
                "--config",
                c,
                "--workload",
                "db=random-write,db=zipf,logs=zipf",
            ],
            "named twice",
        ),
        (
            vec!["run", "--config", c, "--workload", "db=nosuch,logs=zipf"],
            "nosuch",
        ),
        (
            vec!["run", "--config", c, "--workload", "=zipf"],
            "is not NS=GEN",
        ),
    ] {
        let o = ssdlab(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(
            e.contains("--workload") && e.contains(want),
            "{args:?}: {e}"
        );
    }
}

/// A zoned drive of 1 GiB in 32 MiB zones (examples/zoned-log.toml's zones), each
/// namespace writing sequentially from the start of its slice with `zoned-seq`.
fn zoned_two(a: &str, b: &str) -> String {
    format!(
        "[device]\ncapacity = \"1GiB\"\n[ftl]\nname = \"zoned\"\n[ftl.zoned]\n\
         zone_size = \"32MiB\"\nzone_capacity = \"24MiB\"\n[buffer]\nname = \"none\"\n\
         [workload]\nkind = \"zoned-seq\"\nrequests = 600\nzone_size = \"32MiB\"\n\
         zone_capacity = \"24MiB\"\n[[namespace]]\nname = \"a\"\n{a}\n\
         [[namespace]]\nname = \"b\"\n{b}\n"
    )
}

/// On a zoned drive each namespace is a whole number of zones: shares are rounded
/// down to zones, so the second namespace starts on a zone's write pointer and its
/// sequential writes are accepted (with slices rounded to pages, b started 9.6 MiB into
/// a zone and every one of its writes was an invalid write).
#[test]
fn a_zoned_drives_namespaces_are_whole_zones() {
    let cfg = config(&zoned_two("share = 0.3", "share = 0.5"));
    let r = run(&cfg, RunOptions::default()).unwrap().report;
    let zone = 32u64 << 20;
    // 0.3 and 0.5 of the 32 zones: 9.6 -> 9 zones and 16 zones.
    let sizes: Vec<u64> = r.namespaces.iter().map(|n| n.size_bytes).collect();
    assert_eq!(sizes, vec![9 * zone, 16 * zone]);
    assert_eq!(r.namespaces[1].requests, 600);
    assert_eq!(r.counters.get("zns.errors.invalid_write"), Some(&0));
    // Each namespace's 600 requests: its mount's Report Zones, then 599 writes.
    assert!(r.host_write_bytes >= 1198 * 4096, "{}", r.host_write_bytes);
}

/// A `size` off the zone grid is refused before any work: exit 2, naming the table,
/// its size and the zone size, and no report written.
#[test]
fn a_zoned_namespace_size_off_the_zone_grid_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("z.toml");
    std::fs::write(&path, zoned_two("size = \"96MiB\"", "size = \"100MiB\"")).unwrap();
    let out = dir.path().join("r.json");
    let o = ssdlab(&[
        "run",
        "--config",
        path.to_str().unwrap(),
        "--json",
        out.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    for part in [
        "namespace[1].size = 100MiB",
        "namespace \"b\"",
        "zone size 32MiB",
        "e.g. 96MiB or 128MiB",
    ] {
        assert!(e.contains(part), "{part} not in {e}");
    }
    assert!(!out.exists());
    // Whole zones run.
    std::fs::write(&path, zoned_two("size = \"96MiB\"", "size = \"128MiB\"")).unwrap();
    let o = ssdlab(&["run", "--config", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// On a zoned drive a namespace's own generator gets the drive's zone size and capacity,
/// as `[workload]` does (a namespace is whole zones): `zoned-seq` and `cachelib` with no
/// zone keys of their own write their namespaces' zones at the write pointers, reset
/// them when the ring comes round, and each mounts with one Report Zones from its
/// namespace's first zone. (Before, `zoned-seq` took 64 KiB "zones" and wrote past each
/// zone's capacity, and `cachelib` laid out a small-object cache of in-place rewrites.)
#[test]
fn a_namespaces_generator_on_a_zoned_drive_takes_the_drives_zones() {
    let cfg = config(
        "[device]\ncapacity = \"1GiB\"\n[ftl]\nname = \"zoned\"\n[ftl.zoned]\n\
         zone_size = \"32MiB\"\nzone_capacity = \"24MiB\"\n[buffer]\nname = \"none\"\n\
         [[namespace]]\nname = \"log\"\nsize = \"256MiB\"\n[namespace.workload]\n\
         kind = \"zoned-seq\"\nsize = \"64KiB\"\nrequests = 5000\n\
         [[namespace]]\nname = \"cache\"\nsize = \"256MiB\"\n[namespace.workload]\n\
         kind = \"cachelib\"\nsize = \"64KiB\"\nrequests = 5000\n",
    );
    let r = run(&cfg, RunOptions::default()).unwrap().report;
    for (k, v) in &r.counters {
        if k.starts_with("zns.errors.") {
            assert_eq!(*v, 0, "{k}");
        }
    }
    // 8 zones of 24 MiB writable per namespace: 3,072 writes of 64 KiB a pass.
    assert!(r.counters.get("zns.resets") > Some(&0), "{:?}", r.counters);
    for n in &r.namespaces {
        assert_eq!(n.errors_lba_out_of_range, 0, "{}", n.name);
        assert!(n.write_bytes > 192 << 20, "{}: {}", n.name, n.write_bytes);
    }
    let starts: Vec<(u64, &str)> = r
        .zone_reports
        .iter()
        .map(|q| (q.start_lba, q.filter.as_str()))
        .collect();
    // Namespace cache starts 256 MiB in: logical block 65,536 of 4 KiB.
    assert_eq!(starts, vec![(0, "all"), (65536, "all")]);
    // Each lists its own namespace's 8 zones only, as a namespace's controller answers
    // (before, every zone from its first to the drive's end: 32 and 24 of them). A zone
    // is 32 MiB: 8,192 blocks.
    let listed: Vec<(u64, usize, u64)> = r
        .zone_reports
        .iter()
        .map(|q| {
            (
                q.zones_matching,
                q.zones.len(),
                q.zones.last().unwrap().start_lba,
            )
        })
        .collect();
    assert_eq!(listed, vec![(8, 8, 7 * 8192), (8, 8, 65536 + 7 * 8192)]);
}
