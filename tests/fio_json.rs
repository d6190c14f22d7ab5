//! `run --json-format fio` writes fio 3.x's `--output-format=json` shape: checked against
//! a hand-written list of fio's field names, in fio's order (from fio's stat.c JSON
//! writer, axboe/fio f5344384: `__show_run_stats`, `show_thread_status_json`,
//! `add_ddir_status_json`, `add_ddir_lat_json`), and the keys fio-plot reads, for a comma
//! list of designs (one job each). `sweep --json-format fio` gives each cell the job
//! `run --json-format fio` gives its design. The run CSV follows the one naming scheme
//! (`latency_ns_p99`, docs/outputs.md).

use std::collections::BTreeSet;
use std::process::Command;

/// The document's keys (`__show_run_stats`).
const TOP_FIELDS: &[&str] = &[
    "fio version",
    "timestamp",
    "timestamp_ms",
    "time",
    "global options",
    "jobs",
    "disk_util",
];

/// A job's keys (`show_thread_status_json`).
const JOB_FIELDS: &[&str] = &[
    "jobname",
    "groupid",
    "job_start",
    "error",
    "eta",
    "elapsed",
    "job options",
    "read",
    "write",
    "trim",
    "sync",
    "job_runtime",
    "usr_cpu",
    "sys_cpu",
    "ctx",
    "majf",
    "minf",
    "iodepth_level",
    "iodepth_submit",
    "iodepth_complete",
    "latency_ns",
    "latency_us",
    "latency_ms",
    "latency_depth",
    "latency_target",
    "latency_target_ns",
    "latency_percentile",
    "latency_window",
    "latency_window_us",
];

/// A direction's keys (`add_ddir_status_json`).
const DIR_FIELDS: &[&str] = &[
    "io_bytes",
    "io_kbytes",
    "bw_bytes",
    "bw",
    "iops",
    "runtime",
    "total_ios",
    "short_ios",
    "drop_ios",
    "slat_ns",
    "clat_ns",
    "lat_ns",
    "bw_min",
    "bw_max",
    "bw_agg",
    "bw_mean",
    "bw_dev",
    "bw_samples",
    "iops_min",
    "iops_max",
    "iops_mean",
    "iops_stddev",
    "iops_samples",
];

/// fio's default percentile list, keyed `%f`, ascending (`add_ddir_lat_json`).
const PERCENTILE_KEYS: &[&str] = &[
    "1.000000",
    "5.000000",
    "10.000000",
    "20.000000",
    "30.000000",
    "40.000000",
    "50.000000",
    "60.000000",
    "70.000000",
    "80.000000",
    "90.000000",
    "95.000000",
    "99.000000",
    "99.500000",
    "99.900000",
    "99.950000",
    "99.990000",
];

fn keys(v: &serde_json::Value) -> BTreeSet<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// `ssdlab run` of the small design the tests here use (64 MiB, 2,000 random 4 KiB
/// writes) in fio's shape, with `extra` flags.
fn fio_run(extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ssdlab"));
    c.args([
        "run",
        "--capacity",
        "64MiB",
        "--workload",
        "random-write",
        "--requests",
        "2000",
        "--json-format",
        "fio",
    ])
    .args(extra);
    c
}

#[test]
fn fio_json_has_fios_fields_one_job_per_design() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("fio.json");
    let csv = dir.path().join("r.csv");
    let o = fio_run(&["--ftl", "page,dftl", "-q", "--json"])
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(keys(&d), set(TOP_FIELDS));
    let jobs = d["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2, "one job per design");
    assert_eq!(jobs[0]["jobname"], "page");
    assert_eq!(jobs[1]["jobname"], "dftl");
    let job_fields = set(JOB_FIELDS);
    let dir_fields = set(DIR_FIELDS);
    let percentiles = set(PERCENTILE_KEYS);
    for j in jobs {
        assert_eq!(keys(j), job_fields);
        for dir in ["read", "write", "trim"] {
            assert_eq!(keys(&j[dir]), dir_fields, "{dir}");
        }
        let w = &j["write"];
        assert_eq!(w["total_ios"], 2000);
        // bw is KiB/s of bw_bytes; io_bytes the bytes written (4 KiB requests).
        assert_eq!(w["io_bytes"], 2000 * 4096);
        assert_eq!(
            w["bw"].as_u64().unwrap(),
            w["bw_bytes"].as_u64().unwrap() / 1024
        );
        for lat in ["clat_ns", "lat_ns"] {
            let l = &w[lat];
            assert_eq!(
                keys(l),
                set(&["min", "max", "mean", "stddev", "N", "percentile"])
            );
            assert_eq!(keys(&l["percentile"]), percentiles);
            let p = |k: &str| l["percentile"][k].as_u64().unwrap();
            assert!(l["min"].as_u64().unwrap() <= p("1.000000"));
            assert!(p("50.000000") <= p("99.990000"));
            assert!(p("99.990000") <= l["max"].as_u64().unwrap());
        }
        assert_eq!(j["read"]["total_ios"], 0);
        // What fio-plot reads: job options rw/iodepth/numjobs, iops, bw, lat_ns mean.
        for k in ["rw", "iodepth", "numjobs", "bs"] {
            assert!(j["job options"][k].is_string(), "job options.{k}");
        }
        assert_eq!(j["job options"]["rw"], "randwrite");
        assert!(w["iops"].as_f64().unwrap() > 0.0);
        assert!(w["lat_ns"]["mean"].as_f64().unwrap() > 0.0);
        assert!(w["lat_ns"]["stddev"].as_f64().unwrap() >= 0.0);
        let shares: f64 = ["latency_ns", "latency_us", "latency_ms"]
            .iter()
            .flat_map(|k| j[*k].as_object().unwrap().values())
            .map(|v| v.as_f64().unwrap())
            .sum();
        assert!((shares - 100.0).abs() < 1e-6, "{shares}");
    }
    // The CSV: one naming scheme, every latency statistic.
    let mut r = csv::Reader::from_path(&csv).unwrap();
    let h: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    for s in [
        "min", "mean", "stddev", "p50", "p90", "p99", "p999", "p9999", "max",
    ] {
        for prefix in ["latency_ns", "read_latency_ns", "write_latency_ns"] {
            let c = format!("{prefix}_{s}");
            assert!(h.contains(&c), "{c} missing from {h:?}");
        }
    }
    assert!(
        !h.iter()
            .any(|c| c.ends_with("_ns") && c.contains("latency")),
        "{h:?}"
    );
}

/// The keys of the pretty-printed JSON `text` at nesting `depth` (2 spaces a level, as
/// serde_json pretty-prints), in the order written, from the first line after the one
/// that starts with `from` (trimmed) until the object that holds them closes.
fn keys_in_order(text: &str, depth: usize, from: &str) -> Vec<String> {
    let indent = " ".repeat(2 * depth);
    let close = " ".repeat(2 * (depth - 1));
    let from = if from.is_empty() { "{" } else { from };
    let mut lines = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with(from))
        .skip(1)
        .peekable();
    // An array's first object opens on its own line ("jobs": [ then {).
    if lines.peek().is_some_and(|l| l.trim() == "{") {
        lines.next();
    }
    let mut keys = Vec::new();
    for l in lines {
        if l.starts_with(&close) && !l.starts_with(&indent) {
            break;
        }
        if let Some(rest) = l.strip_prefix(&indent)
            && let Some(k) = rest.strip_prefix('"')
        {
            keys.push(k[..k.find('"').unwrap()].to_string());
        }
    }
    keys
}

fn list(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Researchers diff the file against real fio output: every object's keys come in fio's
/// order (fio's stat.c, axboe/fio f5344384), not sorted (failed before: serde_json maps
/// sort, so "disk_util" came first and "N" before "max").
#[test]
fn fio_json_keys_come_in_fios_order() {
    let o = fio_run(&["--json", "-"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    // __show_run_stats (fio's `disk_util` after the jobs).
    assert_eq!(keys_in_order(&text, 1, ""), list(TOP_FIELDS));
    // show_thread_status_json: the job (inside "jobs": [ { … } ]).
    assert_eq!(keys_in_order(&text, 3, "\"jobs\""), list(JOB_FIELDS));
    // add_ddir_status_json.
    let dir = list(DIR_FIELDS);
    for d in ["\"read\"", "\"write\"", "\"trim\""] {
        assert_eq!(keys_in_order(&text, 4, d), dir, "{d}");
    }
    assert_eq!(
        keys_in_order(&text, 4, "\"sync\""),
        list(&["total_ios", "lat_ns"])
    );
    // add_ddir_lat_json, the write direction's clat_ns (the first clat_ns with requests).
    let write = &text[text.find("\"write\"").unwrap()..];
    assert_eq!(
        keys_in_order(write, 5, "\"clat_ns\""),
        list(&["min", "max", "mean", "stddev", "N", "percentile"])
    );
    // Percentiles ascending, keyed "%f"; latency and depth maps in fio's order.
    assert_eq!(
        keys_in_order(write, 6, "\"percentile\""),
        list(PERCENTILE_KEYS)
    );
    assert_eq!(
        keys_in_order(&text, 4, "\"latency_ms\""),
        list(&[
            "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"
        ])
    );
    assert_eq!(
        keys_in_order(&text, 4, "\"iodepth_level\""),
        list(&["1", "2", "4", "8", "16", "32", ">=64"])
    );
    assert_eq!(
        keys_in_order(&text, 4, "\"iodepth_submit\""),
        list(&["0", "4", "8", "16", "32", "64", ">=64"])
    );
}

/// The fio document of `text` without what differs between two runs of one design (the
/// wall-clock stamps) and with the job's name cleared.
fn comparable(mut d: serde_json::Value) -> serde_json::Value {
    for k in ["timestamp", "timestamp_ms", "time"] {
        d.as_object_mut().unwrap().remove(k);
    }
    for j in d["jobs"].as_array_mut().unwrap() {
        j["jobname"] = "".into();
        j["job options"]["name"] = "".into();
    }
    d
}

/// A sweep cell's report in fio's shape (reports.jsonl under `--json-format fio`) is what
/// `run --json-format fio` writes for the same design, keys in fio's order, named by the
/// cell's axis values; the ssdlab shape stays the default (failed before: sweep had no
/// --json-format).
#[test]
fn sweep_cells_in_fio_shape_equal_run() {
    let dir = tempfile::tempdir().unwrap();
    let grid = dir.path().join("grid.toml");
    std::fs::write(
        &grid,
        "[base]\nworkload = \"random-write\"\nseed = 7\n\
         set = { \"device.capacity\" = \"64MiB\", \"workload.requests\" = 2000 }\n\
         [[axis]]\nkey = \"ftl.name\"\nvalues = [\"page\", \"dftl\"]\n",
    )
    .unwrap();
    let out = dir.path().join("s");
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .arg("sweep")
        .arg(&grid)
        .arg("--out")
        .arg(&out)
        .args(["--json-format", "fio", "-q", "--jobs", "1"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("reports.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    for (line, ftl) in lines.iter().zip(["page", "dftl"]) {
        // fio's order inside the line too.
        let at = |k: &str| line.find(&format!("\"{k}\"")).unwrap();
        assert!(
            at("fio version") < at("jobs") && at("jobs") < at("disk_util"),
            "{line}"
        );
        assert!(
            at("jobname") < at("read") && at("read") < at("write"),
            "{line}"
        );
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["status"], "ok");
        assert_eq!(v["report"]["jobs"][0]["jobname"], format!("ftl.name={ftl}"));
        let f = dir.path().join(format!("{ftl}.json"));
        let o = fio_run(&["--seed", "7", "--ftl", ftl, "-q", "--json"])
            .arg(&f)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let run: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        assert_eq!(
            comparable(v["report"].clone()),
            comparable(run),
            "cell ftl.name={ftl}"
        );
    }

    // The same store again in ssdlab's shape (nothing runs): the full reports.
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .arg("sweep")
        .arg(&grid)
        .arg("--out")
        .arg(&out)
        .arg("-q")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("reports.jsonl")).unwrap();
    let v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert!(v["report"]["write_amplification"].is_number(), "{v}");

    // A store from an ssdlab that kept no fio figures: refused before any cell runs,
    // naming the cell.
    let store = out.join("store.jsonl");
    let old: String = std::fs::read_to_string(&store)
        .unwrap()
        .lines()
        .map(|l| {
            let mut r: serde_json::Value = serde_json::from_str(l).unwrap();
            r.as_object_mut().unwrap().remove("fio");
            format!("{r}\n")
        })
        .collect();
    std::fs::write(&store, old).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .arg("sweep")
        .arg(&grid)
        .arg("--out")
        .arg(&out)
        .args(["--json-format", "fio", "-q"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--json-format fio: cell 1 ") && err.contains("earlier ssdlab"),
        "{err}"
    );
}

#[test]
fn hybrid_refuses_the_fio_shape() {
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["hybrid", "--json-format", "fio", "--json", "-"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--json-format fio"));
}
