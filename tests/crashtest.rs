//! `ssdlab crashtest`: over 1,000 power cuts with recovery on the FTLs that recover from
//! flash, each with no buffer, LRU and BPLRU ([`RECOVERING`]: add an FTL there when its
//! recovery passes); the page FTL on a small, default-provisioned device through 350
//! cuts (it ran out of free blocks at cut ~200 before a GC cut short resumed where it
//! stopped); a drive that ignores FLUSH is caught losing acknowledged data (the check
//! can fail); an FTL without a recovery says so and fails rather than passes.
//!
//! Long mode (opt-in): `SSDLAB_CRASH_LONG=1` runs 2,000 cuts per design of the same
//! table, seeded by `SSDLAB_CRASH_SEED` (default 11); the seed is in every failure.

use std::process::Command;

fn crashtest(args: &[&str], json: &std::path::Path) -> (bool, serde_json::Value, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .arg("crashtest")
        .args(args)
        .arg("--json")
        .arg(json)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    let v = serde_json::from_str(&std::fs::read_to_string(json).unwrap_or_else(|_| "null".into()))
        .unwrap();
    (o.status.success(), v, err)
}

/// FTLs whose recovery passes, with the flags their device needs (DFTL's translation
/// blocks need more over-provisioning than 16 MiB leaves by default).
const RECOVERING: &[(&str, &[&str])] = &[
    ("page", &[]),
    ("nftl", &[]),
    ("bast", &[]),
    ("dftl", &["--op", "16"]),
];

fn check_designs(v: &serde_json::Value, seed: u64) -> u64 {
    let mut cuts = 0;
    for d in v["designs"].as_array().unwrap() {
        for k in [
            "cuts",
            "acked_writes_lost",
            "torn_or_foreign_reads",
            "recovery_ns_mean",
            "scanned_pages_mean",
        ] {
            assert!(d.get(k).is_some(), "{k} missing (seed {seed}): {d}");
        }
        assert_eq!(d["acked_writes_lost"], 0, "seed {seed}: {d}");
        assert_eq!(d["torn_or_foreign_reads"], 0, "seed {seed}: {d}");
        assert_eq!(d["invariant_failures"], 0, "seed {seed}: {d}");
        assert!(d["error"].is_null(), "seed {seed}: {d}");
        assert!(d["scanned_pages_mean"].as_f64().unwrap() > 0.0);
        // GC, merges and the buffer's write-backs moved data between the cuts.
        assert!(d["erases"].as_u64().unwrap() > 100, "seed {seed}: {d}");
        cuts += d["cuts"].as_u64().unwrap();
    }
    cuts
}

#[test]
fn a_thousand_cuts_lose_nothing_acknowledged_and_tear_nothing() {
    let long = std::env::var_os("SSDLAB_CRASH_LONG").is_some();
    let seed: u64 = std::env::var("SSDLAB_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(11);
    let cuts_each = if long { "2000" } else { "90" };
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("c.json");
    let seed_s = seed.to_string();
    let mut cuts = 0;
    for (ftl, extra) in RECOVERING {
        let mut args = vec![
            "--ftl",
            ftl,
            "--buffer",
            "none,lru,bplru",
            "--buffer-size",
            "1MiB",
            "--cuts",
            cuts_each,
            "--ops-per-cut",
            "120",
            "--capacity",
            "16MiB",
            "--seed",
            &seed_s,
        ];
        args.extend_from_slice(extra);
        let (ok, v, err) = crashtest(&args, &json);
        assert!(ok, "{ftl}, seed {seed}: {err}");
        assert_eq!(v["designs"].as_array().unwrap().len(), 3);
        cuts += check_designs(&v, seed);
        assert_eq!(v["passed"], true);
    }
    assert!(cuts >= 1000, "{cuts}");
}

#[test]
fn many_cuts_on_a_small_device_keep_the_page_ftl_writable() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("c.json");
    let (ok, v, err) = crashtest(
        &[
            "--ftl",
            "page",
            "--buffer",
            "none",
            "--gc",
            "greedy",
            "--cuts",
            "350",
            "--ops-per-cut",
            "120",
            "--capacity",
            "16MiB",
            "--seed",
            "11",
        ],
        &json,
    );
    assert!(ok, "{err} {v}");
    assert_eq!(check_designs(&v, 11), 350);
}

/// The hash FTLs (AFTL, CFTL) rebuild their block roles, coarse tables and (AFTL) fine
/// table from the OOB tags: 720 cuts, many inside folds (a fold is a large share of their
/// flash operations), none lose or tear anything.
#[test]
fn hash_ftls_recover_from_every_cut() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("c.json");
    let (ok, v, err) = crashtest(
        &[
            "--ftl",
            "aftl,cftl",
            "--buffer",
            "none,lru,bplru",
            "--buffer-size",
            "1MiB",
            "--cuts",
            "120",
            "--ops-per-cut",
            "120",
            "--capacity",
            "16MiB",
            "--seed",
            "13",
        ],
        &json,
    );
    assert!(ok, "{err}");
    let designs = v["designs"].as_array().unwrap();
    assert_eq!(designs.len(), 6);
    for d in designs {
        assert!(d["error"].is_null(), "{d}");
        assert_eq!(d["cuts"], 120, "{d}");
        assert_eq!(d["acked_writes_lost"], 0, "{d}");
        assert_eq!(d["torn_or_foreign_reads"], 0, "{d}");
        assert_eq!(d["live_read_mismatches"], 0, "{d}");
        assert_eq!(d["invariant_failures"], 0, "{d}");
        assert!(d["scanned_pages_mean"].as_f64().unwrap() > 0.0);
        // Folds (and the buffer's write-backs) moved data between the cuts.
        assert!(d["erases"].as_u64().unwrap() > 100, "{d}");
    }
    assert_eq!(v["passed"], true);
}

#[test]
fn a_drive_that_ignores_flush_is_caught_losing_data() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("c.json");
    let (ok, v, _) = crashtest(
        &[
            "--ftl",
            "page",
            "--buffer",
            "lru",
            "--cuts",
            "30",
            "--seed",
            "2",
            "--set",
            "buffer.flush_on_host_flush=false",
        ],
        &json,
    );
    assert!(!ok);
    assert!(
        v["designs"][0]["acked_writes_lost"].as_u64().unwrap() > 0,
        "{v}"
    );
    // With power-loss protection the same drive keeps everything.
    let (ok, v, err) = crashtest(
        &[
            "--ftl",
            "page",
            "--buffer",
            "lru",
            "--cuts",
            "30",
            "--seed",
            "2",
            "--plp",
            "--set",
            "buffer.flush_on_host_flush=false",
        ],
        &json,
    );
    assert!(ok, "{err} {v}");
}

#[test]
fn ftls_without_recovery_fail_and_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("c.json");
    let (ok, v, _) = crashtest(
        &[
            "--ftl",
            "nftl",
            "--set",
            "ftl.nftl.variant=\"log\"",
            "--cuts",
            "3",
            "--seed",
            "1",
        ],
        &json,
    );
    assert!(!ok);
    let e = v["designs"][0]["error"].as_str().unwrap();
    assert!(e.contains("no recovery"), "{e}");
}
