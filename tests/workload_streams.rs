//! `workload.streams` / `workload.stream_loop` from the command line: docs/config.md's
//! example runs as written, four per-stream readers beat one shared loop at the same
//! depth, and bad keys are refused by name (exit 2).

mod common;

/// The TOML block of docs/config.md's concurrent-streams example.
fn doc_example() -> String {
    common::config_doc_example("Example (runs as written: `ssdlab run --config streams.toml`)")
}

/// Runs `config` and returns the report's phases as (name, requests, simulated ns).
fn phases(config: &str) -> Vec<(String, u64, u64)> {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("streams.toml");
    std::fs::write(&cfg, config).unwrap();
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
    r["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["requests"].as_u64().unwrap(),
                p["simulated_ns"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_documented_example_writes_in_turn_and_reads_with_four_streams() {
    let example = doc_example();
    let got = phases(&example);
    let names: Vec<(&str, u64)> = got.iter().map(|p| (p.0.as_str(), p.1)).collect();
    assert_eq!(names, vec![("write-in-turn", 512), ("read-4-streams", 512)]);
    // The same reads from one loop at QD 1 (one reader reading the files in turn) take
    // longer: the four readers keep up to four reads in flight on SSD B's four channels.
    let shared = example.replace("stream_loop = \"per-stream\"", "stream_loop = \"shared\"");
    assert_ne!(shared, example);
    let one_loop = phases(&shared);
    assert!(
        one_loop[1].2 > got[1].2,
        "per-stream {} ns, shared {} ns",
        got[1].2,
        one_loop[1].2
    );
}

#[test]
fn bad_stream_keys_are_refused_by_name() {
    for (args, key) in [
        (
            &[
                "--set",
                "workload.kind=random-write",
                "--set",
                "workload.streams=2",
            ][..],
            "workload.streams",
        ),
        (
            &[
                "--set",
                "workload.kind=seq-read",
                "--set",
                "workload.streams=2",
                "--set",
                "workload.stream_loop=per-stream",
                "--set",
                "workload.mean_gap_ns=1000",
            ][..],
            "workload.stream_loop",
        ),
    ] {
        let mut all = vec!["run", "--capacity", "256MiB"];
        all.extend_from_slice(args);
        let o = common::ssdlab(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", common::stderr(&o));
        assert!(common::stderr(&o).contains(key), "{}", common::stderr(&o));
    }
}
