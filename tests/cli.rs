//! End-to-end tests of the `ssdlab` binary: defaults, outputs, determinism, errors.

use std::path::Path;

mod common;
use common::{ssdlab, stderr};

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

const SMALL: &[&str] = &[
    "--capacity",
    "2GiB",
    "--set",
    "device.channels=2",
    "--set",
    "device.chips_per_channel=2",
];

#[test]
fn default_run_prints_a_table_with_every_iozone_phase() {
    let o = ssdlab(&["run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    for phase in ["seq-write", "seq-read", "random-write", "random-read"] {
        assert!(out.contains(phase), "missing {phase} in\n{out}");
    }
    assert!(out.contains("Write amplification"));
}

#[test]
fn json_report_has_the_interface_keys_and_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    let args = |p: &Path| {
        let mut v: Vec<String> = [
            "run",
            "--workload",
            "mixed",
            "--requests",
            "20k",
            "--steady",
            "--seed",
            "7",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(SMALL.iter().map(|s| s.to_string()));
        v.extend([
            "--json".to_string(),
            p.display().to_string(),
            "-q".to_string(),
        ]);
        v
    };
    for p in [&a, &b] {
        let v = args(p);
        let o = ssdlab(&v.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let (mut ja, mut jb) = (json(&a), json(&b));
    for key in [
        "config",
        "host_read_pages",
        "host_write_pages",
        "nand_read_pages",
        "nand_program_pages",
        "gc_copy_pages",
        "erases",
        "write_amplification",
        "iops",
        "throughput_mib_s",
        "latency_ns",
        "elapsed_formula_us",
        "gc_time_share",
        "erase_count",
        "mapping_bytes",
        "simulated_ns",
    ] {
        assert!(ja.get(key).is_some(), "missing key {key}");
    }
    for k in ["mean", "p50", "p99", "p999", "max"] {
        assert!(ja["latency_ns"].get(k).is_some(), "latency_ns.{k}");
    }
    for k in ["min", "mean", "max", "stddev"] {
        assert!(ja["erase_count"].get(k).is_some(), "erase_count.{k}");
    }
    assert_eq!(ja["config"]["seed"], 7);
    assert_eq!(ja["measured_phase"], "after preconditioning");
    assert!(
        ja["gc_copy_pages"].as_u64().unwrap() > 0,
        "steady state must run GC"
    );
    for j in [&mut ja, &mut jb] {
        let o = j.as_object_mut().unwrap();
        o.remove("wall_clock_s");
        o.remove("wall_clock_measured_s");
    }
    assert_eq!(
        serde_json::to_string(&ja).unwrap(),
        serde_json::to_string(&jb).unwrap()
    );
}

#[test]
fn several_designs_run_side_by_side_with_csv_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    let svg = dir.path().join("figs");
    let mut args = vec![
        "run",
        "--gc",
        "greedy,fifo",
        "--workload",
        "random-write",
        "--requests",
        "20k",
        "--fill",
    ];
    args.extend(SMALL);
    let (c, s) = (csv.display().to_string(), svg.display().to_string());
    args.extend(["--csv", &c, "--svg", &s]);
    let o = ssdlab(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.contains("greedy") && text.contains("fifo"), "{text}");
    for f in [
        "greedy_latency_cdf.svg",
        "fifo_throughput.svg",
        "fifo_erase_histogram.svg",
    ] {
        let body = std::fs::read_to_string(svg.join(f)).unwrap_or_else(|_| panic!("missing {f}"));
        assert!(body.starts_with("<svg") || body.starts_with("<?xml"), "{f}");
    }
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("greedy") && out.contains("fifo"), "{out}");
}

#[test]
fn bad_input_exits_2_with_a_message_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never.json");
    let o_ = out.display().to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["run", "--preset", "nope"], "'nope'"),
        (vec!["run", "--ftl", "zftl"], "zftl"),
        (vec!["run", "--gc", "random"], "random"),
        (vec!["run", "--capacity", "12XB"], "invalid size"),
        (vec!["run", "--qd", "0"], "host.qd"),
        (vec!["run", "--set", "device.channels=0"], "channels"),
        (
            vec![
                "run",
                "--capacity",
                "64MiB",
                "--set",
                "ftl.gc_high_free_blocks=64",
                "--set",
                "ftl.gc_low_free_blocks=63",
            ],
            "impossible geometry",
        ),
        (
            vec!["run", "--workload", "random-write", "--span", "1TiB"],
            "span",
        ),
        (
            vec!["run", "--ftl", "bast", "--mgmt-block", "16KiB"],
            "maps whole erase blocks",
        ),
        (
            vec!["run", "--ftl", "fast", "--mgmt-block", "3MiB"],
            "must divide",
        ),
        (
            vec!["run", "--trace", "/no/such/trace.csv", "--format", "msr"],
            "/no/such/trace.csv",
        ),
    ];
    for (mut args, want) in cases {
        args.extend(["--json", &o_]);
        let o = ssdlab(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(want),
            "{args:?}: expected '{want}' in: {}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("panicked"), "{args:?}");
        assert!(!out.exists(), "{args:?} wrote output");
    }
    let cfg = dir.path().join("bad.toml");
    std::fs::write(&cfg, "[device]\nchanels = 4\n").unwrap();
    let o = ssdlab(&["run", "--config", cfg.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("bad.toml") && stderr(&o).contains("chanels"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn list_names_every_plugin() {
    let o = ssdlab(&["list"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    for name in [
        "ssd-a",
        "ssd-b",
        "ssd-c",
        "android-emmc",
        "tlc-nvme",
        "page",
        "greedy",
        "cost-benefit",
        "fifo",
        "d-choices",
        "iozone",
        "random-write",
        "msr",
        "blkparse",
        "tencent",
        "disksim",
    ] {
        assert!(out.contains(name), "list lacks {name}");
    }
}

#[test]
fn config_prints_toml_that_loads_back() {
    let o = ssdlab(&["config", "--preset", "ssd-c", "--gc", "fifo"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("c.toml");
    std::fs::write(&p, &o.stdout).unwrap();
    let o2 = ssdlab(&["config", "--config", p.to_str().unwrap()]);
    assert!(o2.status.success(), "{}", stderr(&o2));
    assert_eq!(o.stdout, o2.stdout);
}

fn traces_dir() -> std::path::PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces");
    assert!(
        d.is_dir(),
        "missing {} (the trace samples must sit beside the checkout)",
        d.display()
    );
    d
}

const TRACE_SAMPLES: [(&str, &str); 8] = [
    ("msr/hm_0-head1k.csv", "msr"),
    (
        "heimdall-msr/msr.cut.per_10k.rw_20_80.105.trace",
        "heimdall",
    ),
    ("spc-ascii/financial1-head10k.ascii", "ascii"),
    ("spc-ascii/tpcc-small.ascii", "ascii"),
    ("spc-ascii/wsrch-small.ascii", "ascii"),
    ("disksim/postmark.ascii", "disksim"),
    ("blkparse/java-job.blkparse.txt", "blkparse"),
    ("snia-tencent/cbs-1s-sample.csv", "tencent"),
];

/// Replays every trace sample with `--ftl ftl` and checks each run did something.
fn replay_every_sample(ftl: &str) {
    let d = traces_dir();
    // The list above must name every sample in the directory.
    let mut on_disk = Vec::new();
    for sub in std::fs::read_dir(&d).unwrap() {
        let sub = sub.unwrap().path();
        if sub.is_dir() {
            for f in std::fs::read_dir(&sub).unwrap() {
                let f = f.unwrap().path();
                on_disk.push(f.strip_prefix(&d).unwrap().to_str().unwrap().to_string());
            }
        }
    }
    on_disk.sort();
    let mut listed: Vec<String> = TRACE_SAMPLES.iter().map(|(f, _)| f.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "trace samples on disk vs the test's list");
    let dir = tempfile::tempdir().unwrap();
    for (file, format) in TRACE_SAMPLES {
        let path = d.join(file);
        let out = dir.path().join("r.json");
        let o = ssdlab(&[
            "run",
            "--ftl",
            ftl,
            "--trace",
            path.to_str().unwrap(),
            "--format",
            format,
            "--trace-fit",
            "wrap",
            "--capacity",
            "16GiB",
            "--json",
            out.to_str().unwrap(),
            "-q",
        ]);
        assert!(o.status.success(), "{ftl}, {file}: {}", stderr(&o));
        let r = json(&out);
        let requests = r["counters"]["host.requests"].as_u64().unwrap();
        assert!(requests > 0, "{ftl}, {file}: no requests");
        assert!(
            r["latency_ns"]["max"].as_u64().unwrap() > 0,
            "{ftl}, {file}"
        );
        assert!(
            r["host_read_pages"].as_u64().unwrap() + r["host_write_pages"].as_u64().unwrap() > 0
        );
        assert!(r["mapping_bytes"].as_u64().unwrap() > 0, "{ftl}, {file}");
        // The formula's time and its GC share are reported for every FTL.
        assert!(
            r["elapsed_formula_us"].as_f64().unwrap() > 0.0,
            "{ftl}, {file}"
        );
        let gc = r["gc_time_share"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&gc), "{ftl}, {file}: {gc}");
    }
}

#[test]
fn every_trace_sample_replays_through_the_simulator() {
    replay_every_sample("page");
}

#[test]
fn every_ftl_replays_every_trace_sample() {
    for (kind, name, _) in ssdlab::ftl::FtlKind::all() {
        // A zoned drive refuses a block trace's writes off its pointers (tests/zoned.rs).
        if *kind != ssdlab::ftl::FtlKind::Page && !kind.is_zoned() {
            replay_every_sample(name);
        }
    }
}

#[test]
fn a_corrupted_trace_line_names_file_and_line_and_exits_2() {
    let d = traces_dir();
    let text = std::fs::read_to_string(d.join("spc-ascii/financial1-head10k.ascii")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[41] = "0 1 55590 six 0"; // line 42
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.ascii");
    std::fs::write(&bad, lines.join("\n")).unwrap();
    let out = dir.path().join("r.json");
    let o = ssdlab(&[
        "run",
        "--trace",
        bad.to_str().unwrap(),
        "--format",
        "ascii",
        "--json",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let msg = stderr(&o);
    assert!(
        msg.contains(&format!("{}:42: expected", bad.display())),
        "{msg}"
    );
    assert!(!out.exists());
    // A trace larger than the device is rejected by default, with the line named.
    let o = ssdlab(&[
        "run",
        "--trace",
        d.join("msr/hm_0-head1k.csv").to_str().unwrap(),
        "--capacity",
        "2GiB",
        "--set",
        "device.channels=1",
        "--set",
        "device.chips_per_channel=1",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("hm_0-head1k.csv:") && stderr(&o).contains("past"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn log_block_ftls_replay_a_trace_that_forces_merges() {
    // The samples are too small to fill a 16 GiB device; on an 8 MiB one the Financial1
    // sample's writes wrap around and force merges in every log-block FTL.
    let d = traces_dir();
    let path = d.join("spc-ascii/financial1-head10k.ascii");
    let dir = tempfile::tempdir().unwrap();
    for ftl in ["nftl", "bast", "fast", "faster"] {
        let out = dir.path().join("r.json");
        let o = ssdlab(&[
            "run",
            "--trace",
            path.to_str().unwrap(),
            "--format",
            "ascii",
            "--trace-fit",
            "wrap",
            "--preset",
            "android-emmc",
            "--capacity",
            "8MiB",
            "--ftl",
            ftl,
            "--json",
            out.to_str().unwrap(),
            "-q",
        ]);
        assert!(o.status.success(), "{ftl}: {}", stderr(&o));
        let r = json(&out);
        let c = &r["counters"];
        let merges: u64 = ["ftl.merge.switch", "ftl.merge.partial", "ftl.merge.full"]
            .iter()
            .map(|k| c[k].as_u64().unwrap())
            .sum();
        assert!(merges > 0, "{ftl}: no merge");
        assert!(r["gc_time_share"].as_f64().unwrap() > 0.0, "{ftl}");
    }
}

#[test]
fn reproduce_rejects_an_unknown_experiment_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let o = ssdlab(&["reproduce", "no-such-paper", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no-such-paper"), "{}", stderr(&o));
    assert!(!out.exists());
    let o = ssdlab(&["reproduce", "--list"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn write_buffer_flags_report_hit_ratios_and_bad_settings_exit_2() {
    let o = ssdlab(&["list"]);
    let out = String::from_utf8_lossy(&o.stdout);
    for name in [
        "none",
        "lru",
        "lfu",
        "fab",
        "bplru",
        "clc",
        "bpac",
        "exlru",
        "qlru",
        "hits-first",
    ] {
        assert!(out.contains(&format!("  {name} ")), "list lacks {name}");
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("b.json");
    let mut args = vec![
        "run",
        "--buffer",
        "none,lru,qlru",
        "--buffer-size",
        "4MiB",
        "--qd",
        "64",
        "--workload",
        "zipf",
        "--read-percent",
        "20",
        "--span",
        "64MiB",
        "--requests",
        "20k",
        "-q",
        "--json",
        p.to_str().unwrap(),
    ];
    args.extend(SMALL);
    let o = ssdlab(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&p);
    let designs = v["designs"].as_array().unwrap();
    let names: Vec<&str> = designs
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["none", "lru", "qlru"]);
    for d in &designs[1..] {
        let r = &d["report"];
        let w = r["buffer_write_hit_ratio"].as_f64().unwrap();
        let rd = r["buffer_read_hit_ratio"].as_f64().unwrap();
        assert!(w > 0.1 && w < 1.0, "{w}");
        assert!(rd > 0.1 && rd < 1.0, "{rd}");
        // Hits absorb overwrites: the device writes fewer pages than the host; the FTL's
        // own WA (empty device, no GC) stays 1.
        assert!(r["write_amplification"].as_f64().unwrap() < 1.0);
        assert_eq!(r["write_amplification_ftl"].as_f64().unwrap(), 1.0);
    }
    let none = &designs[0]["report"];
    assert_eq!(none["buffer_policy"], "none");
    assert_eq!(none["buffer_write_hit_ratio"].as_f64().unwrap(), 0.0);
    // Bad settings name the key and exit 2.
    let o = ssdlab(&["run", "--buffer", "zlru"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("zlru") && stderr(&o).contains("qlru"),
        "{}",
        stderr(&o)
    );
    let o = ssdlab(&["run", "--preset", "android-emmc", "--buffer", "lru"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--buffer-size"), "{}", stderr(&o));
    let o = ssdlab(&["run", "--buffer", "lru", "--dispatch", "random"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("random"), "{}", stderr(&o));
}

#[test]
fn ftl_counters_after_a_fill_cover_the_measured_phase_only() {
    // `--steady` fills the device and overwrites it at random until write amplification
    // settles: BAST full-merges tens of thousands of times (and looks up ~100 k pages)
    // there. The measured phase only reads, so it reports no merges and one lookup per
    // read.
    let o = ssdlab(&[
        "run",
        "--ftl",
        "bast",
        "--capacity",
        "256MiB",
        "--steady",
        "--workload",
        "seq-read",
        "--size",
        "4KiB",
        "--requests",
        "1000",
        "-q",
        "--json",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["measured_phase"], "after preconditioning");
    let c = &r["counters"];
    assert_eq!(c["ftl.merge.full"], 0, "{c}");
    assert_eq!(c["ftl.bast.victim_merges"], 0, "{c}");
    assert_eq!(c["ftl.lookup.count"], 1000, "{c}");
    // State values stay whole: the mapping tables are not zero.
    let o = ssdlab(&[
        "run",
        "--ftl",
        "cftl",
        "--capacity",
        "256MiB",
        "--fill",
        "--workload",
        "seq-read",
        "--requests",
        "100",
        "-q",
        "--json",
        "-",
    ]);
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(r["counters"]["ftl.mapping.coarse_bytes"].as_u64().unwrap() > 0);
}

#[test]
fn allow_memory_flag_sets_the_config_key_and_the_refusal_names_it() {
    let o = ssdlab(&["config", "--allow-memory"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("allow_memory = true"), "{text}");
    // A run far past any machine's memory is refused before it starts, naming the flag.
    let o = ssdlab(&[
        "run",
        "--capacity",
        "8TiB",
        "--buffer",
        "lru",
        "--buffer-size",
        "1TiB",
        "--set",
        "device.page_size=4KiB",
        "--requests",
        "10",
    ]);
    let err = stderr(&o);
    if err.contains("needs about") {
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("--allow-memory"), "{err}");
    }
}

#[test]
fn blkparse_event_is_a_config_key() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.blkparse");
    // One queued write and, later, the same write issued after merging with a neighbour.
    std::fs::write(
        &trace,
        "8,0 0 1 0.000000000 1 Q W 0 + 8 [a]\n\
         8,0 0 2 0.000001000 1 Q W 8 + 8 [a]\n\
         8,0 0 3 0.000002000 1 D W 0 + 16 [a]\n",
    )
    .unwrap();
    let requests = |event: &str| {
        let out = dir.path().join(format!("{event}.json"));
        let o = ssdlab(&[
            "run",
            "--trace",
            trace.to_str().unwrap(),
            "--format",
            "blkparse",
            "--set",
            &format!("trace.blkparse_event={event}"),
            "--json",
            out.to_str().unwrap(),
            "-q",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        json(&out)["counters"]["host.requests"].clone()
    };
    assert_eq!(requests("Q"), 2);
    assert_eq!(requests("D"), 1);
    let o = ssdlab(&[
        "run",
        "--trace",
        trace.to_str().unwrap(),
        "--set",
        "trace.blkparse_event=X",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("trace.blkparse_event"),
        "{}",
        stderr(&o)
    );
}
