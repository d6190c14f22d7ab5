//! `ssdlab crashtest`: 1,200 power cuts with recovery on the FTLs that recover from
//! flash (page, DFTL), each with no buffer, LRU and BPLRU; a drive that ignores FLUSH is caught
//! losing acknowledged data (the check can fail); FTLs without a recovery say so and
//! fail rather than pass.

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

#[test]
fn a_thousand_cuts_lose_nothing_acknowledged_and_tear_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("c.json");
    let (ok, v, err) = crashtest(
        &[
            "--ftl",
            "page,dftl",
            "--buffer",
            "none,lru,bplru",
            "--buffer-size",
            "1MiB",
            "--gc",
            "greedy",
            "--cuts",
            "200",
            "--ops-per-cut",
            "120",
            "--capacity",
            "16MiB",
            "--op",
            "40",
            "--seed",
            "11",
        ],
        &json,
    );
    assert!(ok, "{err}");
    let designs = v["designs"].as_array().unwrap();
    assert_eq!(designs.len(), 6);
    let mut cuts = 0;
    for d in designs {
        for k in [
            "cuts",
            "acked_writes_lost",
            "torn_or_foreign_reads",
            "recovery_ns_mean",
            "scanned_pages_mean",
        ] {
            assert!(d.get(k).is_some(), "{k} missing: {d}");
        }
        assert_eq!(d["acked_writes_lost"], 0, "{d}");
        assert_eq!(d["torn_or_foreign_reads"], 0, "{d}");
        assert_eq!(d["invariant_failures"], 0, "{d}");
        assert!(d["scanned_pages_mean"].as_f64().unwrap() > 0.0);
        // GC, merges and the buffer's write-backs moved data between the cuts.
        assert!(d["erases"].as_u64().unwrap() > 100, "{d}");
        cuts += d["cuts"].as_u64().unwrap();
    }
    assert!(cuts >= 1000, "{cuts}");
    assert_eq!(v["passed"], true);
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
    let (ok, v, _) = crashtest(&["--ftl", "bast", "--cuts", "3", "--seed", "1"], &json);
    assert!(!ok);
    let e = v["designs"][0]["error"].as_str().unwrap();
    assert!(e.contains("no recovery"), "{e}");
}
