//! End-to-end tests of `ssdlab hybrid`: default run, outputs, determinism, traces, and
//! every kind of bad input ending in exit code 2 with a message naming it.

mod common;
use common::{ssdlab, stderr};

#[test]
fn default_run_compares_hdd_and_cache_for_the_three_workloads() {
    let o = ssdlab(&["hybrid"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    for w in ["boot", "app-launch", "game-load"] {
        assert!(out.contains(w), "{out}");
    }
    assert!(out.contains("cache 16GiB write-through btree+hint") && out.contains("hdd"));
    assert!(out.contains("cold") && out.contains("warm") && out.contains("vs HDD"));
}

#[test]
fn json_and_csv_outputs_are_complete_and_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str| {
        let j = dir.path().join(format!("{name}.json"));
        let c = dir.path().join(format!("{name}.csv"));
        let o = ssdlab(&[
            "hybrid",
            "--workload",
            "boot",
            "--cache",
            "none,2GiB",
            "--runs",
            "3",
            "--write-policy",
            "write-back",
            "--table",
            "avl",
            "--json",
            j.to_str().unwrap(),
            "--csv",
            c.to_str().unwrap(),
            "-q",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(o.stdout.is_empty());
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(j).unwrap()).unwrap();
        for d in v["designs"].as_array_mut().unwrap() {
            d["report"]["wall_clock_s"] = 0.into();
            for r in d["report"]["runs"].as_array_mut().unwrap() {
                r["lookup_wall_ns_mean"] = 0.into();
                r["cache"]["lookup_wall_ns"] = 0.into();
            }
        }
        (v, std::fs::read_to_string(c).unwrap())
    };
    let (a, csv) = run("a");
    let (b, _) = run("b");
    assert_eq!(a, b);
    let designs = a["designs"].as_array().unwrap();
    assert_eq!(designs.len(), 2);
    assert_eq!(designs[1]["design"], "cache 2GiB write-back avl+hint");
    let runs = designs[1]["report"]["runs"].as_array().unwrap();
    let names: Vec<&str> = runs.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["cold", "warm", "warm-2"]);
    assert_eq!(
        designs[1]["report"]["config"]["cache"]["write_policy"],
        "write-back"
    );
    // Header + 2 designs × 3 runs.
    assert_eq!(csv.lines().count(), 7, "{csv}");
    assert!(csv.starts_with("workload,design,run,requests"));
}

#[test]
fn any_trace_and_generator_runs_through_the_hybrid_command() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.ascii");
    let o = ssdlab(&[
        "gen-trace",
        "--workload",
        "zipf",
        "--capacity",
        "8GiB",
        "--requests",
        "3000",
        "--mean-gap-ns",
        "2000000",
        "--read-percent",
        "90",
        "-o",
        trace.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = dir.path().join("t.json");
    let o = ssdlab(&[
        "hybrid",
        "--trace",
        trace.to_str().unwrap(),
        "--cache",
        "1GiB",
        "--qd",
        "4",
        "--json",
        j.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs[0]["requests"], 3000);
    // Zipf re-reads its hot blocks: the warm replay hits more than the cold one.
    assert!(runs[1]["hit_ratio"].as_f64().unwrap() > runs[0]["hit_ratio"].as_f64().unwrap());
    let o = ssdlab(&[
        "hybrid",
        "--workload",
        "random-read",
        "--span",
        "1GiB",
        "--requests",
        "2000",
        "--cache",
        "none,2GiB",
        "--hdd",
        "laptop-5400",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn bad_input_exits_2_and_names_the_problem() {
    for (args, needle) in [
        (vec!["--cache", "12XB"], "12XB"),
        (vec!["--write-policy", "write-sideways"], "write-through"),
        (vec!["--table", "hash"], "btree"),
        (vec!["--eviction", "random"], "lru"),
        (vec!["--hdd", "floppy"], "desktop-7200"),
        (vec!["--flash-preset", "usb"], "sata-mlc-2011"),
        (vec!["--ftl", "zftl"], "zftl"),
        (vec!["--workload", "chess"], "app-launch"),
        (vec!["--runs", "0"], "workload.runs"),
        (vec!["--qd", "0"], "host.qd"),
        (vec!["--set", "hdd.rpm=-5"], "hdd.rpm"),
        (vec!["--set", "cache.colour=1"], "colour"),
        (vec!["--set", "hdd.average_seek_ms=30"], "average_seek_ms"),
        (vec!["--set", "cache.unit=1000"], "cache.unit"),
        (
            vec!["--set", "hdd.capacity=\"10GiB\"", "--workload", "game-load"],
            "game-load",
        ),
        (vec!["--trace", "/nonexistent/t.csv"], "/nonexistent/t.csv"),
        (vec!["--trace", "x", "--workload", "boot"], "exclude"),
        (vec!["--config", "/nonexistent.toml"], "/nonexistent.toml"),
    ] {
        let mut a = vec!["hybrid"];
        a.extend(args.iter().copied());
        let o = ssdlab(&a);
        assert_eq!(o.status.code(), Some(2), "{a:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(needle), "{a:?}: {e}");
        assert!(!e.contains("panicked"), "{a:?}: {e}");
    }
}

#[test]
fn list_names_every_choice() {
    let o = ssdlab(&["hybrid", "--list"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    for n in [
        "desktop-7200",
        "laptop-5400",
        "sata-mlc-2011",
        "boot",
        "app-launch",
        "game-load",
        "read-mix",
        "write-through",
        "write-back",
        "write-around",
        "list",
        "avl",
        "btree",
        "lru",
        "fifo",
    ] {
        assert!(out.contains(n), "{n}");
    }
}
