//! `run --json-format fio` writes fio 3.x's `--output-format=json` shape: checked against
//! a hand-written list of fio's field names (from fio's stat.c JSON writer), and the
//! keys fio-plot reads, for a comma list of designs (one job each). The run CSV follows
//! the one naming scheme (`latency_ns_p99`, docs/outputs.md).

use std::collections::BTreeSet;
use std::process::Command;

fn keys(v: &serde_json::Value) -> BTreeSet<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn fio_json_has_fios_fields_one_job_per_design() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("fio.json");
    let csv = dir.path().join("r.csv");
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args([
            "run",
            "--capacity",
            "64MiB",
            "--ftl",
            "page,dftl",
            "--workload",
            "random-write",
            "--requests",
            "2000",
            "--json-format",
            "fio",
            "-q",
            "--json",
        ])
        .arg(&json)
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        keys(&d),
        set(&[
            "fio version",
            "timestamp",
            "timestamp_ms",
            "time",
            "global options",
            "jobs",
            "disk_util"
        ])
    );
    let jobs = d["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2, "one job per design");
    assert_eq!(jobs[0]["jobname"], "page");
    assert_eq!(jobs[1]["jobname"], "dftl");
    let job_fields = set(&[
        "jobname",
        "groupid",
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
        "latency_ns",
        "latency_us",
        "latency_ms",
        "latency_depth",
    ]);
    let dir_fields = set(&[
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
    ]);
    let percentiles = set(&[
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
    ]);
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

#[test]
fn hybrid_refuses_the_fio_shape() {
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["hybrid", "--json-format", "fio", "--json", "-"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--json-format fio"));
}
