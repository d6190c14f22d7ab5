//! CSV and JSON renderings: shape, round trips, non-finite numbers, atomic files.

mod report_common;

use report_common::sample_report;
use ssdlab::report::Report;
use ssdlab::report::csv_out::{CSV_COLUMNS, flatten_json, write_csv, write_csv_atomically};
use ssdlab::report::json::{from_json_str, to_json_string, write_json_atomically};

#[test]
fn csv_parses_back_with_one_row_per_phase_plus_all() {
    let a = sample_report();
    let mut b = sample_report();
    b.phases.truncate(1);
    let mut buf = Vec::new();
    write_csv(&[("page", &a), ("dftl", &b)], &mut buf).unwrap();
    let mut rd = csv::Reader::from_reader(buf.as_slice());
    let header: Vec<String> = rd.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(header, CSV_COLUMNS);
    let rows: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
    // (1 all + 2 phases) + (1 all + 1 phase)
    assert_eq!(rows.len(), 5);
    assert!(rows.iter().all(|r| r.len() == CSV_COLUMNS.len()));
    let col = |name: &str| CSV_COLUMNS.iter().position(|c| *c == name).unwrap();
    assert_eq!(&rows[0][col("design")], "page");
    assert_eq!(&rows[0][col("phase")], "all");
    assert_eq!(&rows[0][col("requests")], "1250000");
    assert_eq!(&rows[0][col("iops")], "123456.7");
    assert_eq!(&rows[0][col("mapping_bytes")], "8388608");
    assert_eq!(&rows[2][col("phase")], "rand-write");
    assert_eq!(&rows[2][col("write_amplification")], "1.75");
    assert_eq!(&rows[3][col("design")], "dftl");
    // The synthesized `all` row does not know the read/write throughput split.
    assert_eq!(&rows[0][col("read_throughput_mib_s")], "");
}

#[test]
fn csv_reuses_an_existing_all_phase() {
    let mut r = sample_report();
    let mut all = r.phases[0].clone();
    all.name = "all".into();
    all.requests = 7;
    r.phases.insert(0, all);
    let mut buf = Vec::new();
    write_csv(&[("x", &r)], &mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    assert_eq!(text.lines().count(), 1 + 3);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("x,all,7,")).count(),
        1
    );
}

#[test]
fn json_round_trips_and_keeps_struct_order() {
    let r = sample_report();
    let text = to_json_string(&r);
    assert_eq!(from_json_str(&text).unwrap(), r);
    let back: Report = serde_json::from_str(&text).unwrap();
    assert_eq!(back, r);
    let pos = |k: &str| text.find(&format!("\"{k}\"")).unwrap();
    assert!(pos("ssdlab_version") < pos("config"));
    assert!(pos("config") < pos("host_read_pages"));
    assert!(pos("phases") < pos("wall_clock_s"));
    assert_eq!(text, to_json_string(&r.clone()), "deterministic");
}

#[test]
fn json_maps_non_finite_to_zero_with_warning() {
    let mut r = sample_report();
    r.write_amplification = f64::NAN;
    r.phases[1].iops = f64::INFINITY;
    r.erase_count.stddev = f64::NEG_INFINITY;
    let text = to_json_string(&r);
    assert!(!text.contains("null") && !text.contains(": NaN") && !text.contains(": inf"));
    let back = from_json_str(&text).unwrap();
    assert_eq!(back.write_amplification, 0.0);
    assert_eq!(back.phases[1].iops, 0.0);
    assert_eq!(back.erase_count.stddev, 0.0);
    let w = back.warnings.join("\n");
    assert!(w.contains("write_amplification was NaN"), "{w}");
    assert!(w.contains("phases[1].iops was inf"), "{w}");
    assert!(w.contains("erase_count.stddev was -inf"), "{w}");
}

#[test]
fn flatten_json_has_dotted_scalars() {
    let flat = flatten_json(&sample_report());
    let get = |k: &str| {
        flat.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(get("latency_ns.p99"), Some("1250000"));
    assert_eq!(get("phases.1.name"), Some("rand-write"));
    assert_eq!(get("config.ftl.kind"), Some("page"));
    assert_eq!(get("counters.ftl.gc.victims"), Some("4321"));
}

#[test]
fn atomic_files_are_written_whole() {
    let dir = tempfile::tempdir().unwrap();
    let r = sample_report();
    let json = dir.path().join("report.json");
    write_json_atomically(&json, &r).unwrap();
    let text = std::fs::read_to_string(&json).unwrap();
    assert!(text.ends_with("}\n"));
    assert_eq!(from_json_str(&text).unwrap(), r);
    let csv_path = dir.path().join("report.csv");
    write_csv_atomically(&csv_path, &[("page", &r)]).unwrap();
    assert_eq!(
        std::fs::read_to_string(&csv_path).unwrap().lines().count(),
        4
    );
    // Only the two results: no temp files left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn failed_atomic_write_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.csv");
    let res = ssdlab::report::output::atomic_write(&path, |w| {
        w.write_all(b"design,phase\n")?;
        Err(std::io::Error::other("simulated failure"))
    });
    assert!(res.is_err());
    assert!(!path.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn panicking_atomic_write_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.json");
    let p = path.clone();
    let res = std::panic::catch_unwind(move || {
        let _ = ssdlab::report::output::atomic_write(&p, |_| panic!("writer bug"));
    });
    assert!(res.is_err());
    assert!(!path.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
