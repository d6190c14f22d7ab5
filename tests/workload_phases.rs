//! `[[workload.phase]]` from the command line: docs/config.md's example runs as written
//! and reports its phases in order, and a phase's bad key is refused by name (exit 2).

mod common;

/// The TOML block of docs/config.md's multi-phase example.
fn doc_example() -> String {
    common::config_doc_example("Example (runs as written: `ssdlab run --config phases.toml`)")
}

#[test]
fn the_documented_example_runs_its_phases_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("phases.toml");
    std::fs::write(&cfg, doc_example()).unwrap();
    let json = tmp.path().join("r.json");
    let o = common::ssdlab(&[
        "run",
        "--config",
        cfg.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let phases: Vec<(String, u64, u64)> = r["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["requests"].as_u64().unwrap(),
                p["write_requests"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        phases,
        vec![
            ("burst".to_string(), 1000, 1000),
            ("random-read".to_string(), 1000, 0),
            ("seq-write".to_string(), 256, 256),
        ]
    );
    // 256 sequential 64 KiB writes are 16 MiB: 4,096 host pages of 4 KiB.
    assert_eq!(r["phases"][2]["host_write_pages"].as_u64(), Some(4096));
}

#[test]
fn a_bad_phase_key_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("bad.toml");
    let text = doc_example().replace("size = \"64KiB\"", "size = \"0B\"");
    std::fs::write(&cfg, text).unwrap();
    let o = common::ssdlab(&["run", "--config", cfg.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("workload.phase[2]"),
        "{}",
        common::stderr(&o)
    );
}
