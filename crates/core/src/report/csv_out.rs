//! Reports as flat CSV, one row per (design, phase), for spreadsheets and plotting
//! scripts that compare designs and workloads. Column names follow the one scheme of
//! every output (docs/outputs.md): nested keys joined with `_`, units last
//! (`latency_ns_p99`).
//!
//! Floats are written in Rust's shortest round-trip form (`1.25`, `0.1`); a non-finite
//! float is written as an empty cell, which spreadsheet and dataframe readers take as
//! missing.

use super::output::atomic_write;
use super::{PhaseReport, Report};
use std::io::{self, Write};
use std::path::Path;

/// The CSV header, in column order.
pub const CSV_COLUMNS: &[&str] = &[
    "design",
    "phase",
    "requests",
    "read_requests",
    "write_requests",
    "simulated_ns",
    "iops",
    "read_iops",
    "write_iops",
    "throughput_mib_s",
    "read_throughput_mib_s",
    "write_throughput_mib_s",
    "latency_ns_min",
    "latency_ns_mean",
    "latency_ns_stddev",
    "latency_ns_p50",
    "latency_ns_p90",
    "latency_ns_p99",
    "latency_ns_p999",
    "latency_ns_p9999",
    "latency_ns_max",
    "read_latency_ns_min",
    "read_latency_ns_mean",
    "read_latency_ns_stddev",
    "read_latency_ns_p50",
    "read_latency_ns_p90",
    "read_latency_ns_p99",
    "read_latency_ns_p999",
    "read_latency_ns_p9999",
    "read_latency_ns_max",
    "write_latency_ns_min",
    "write_latency_ns_mean",
    "write_latency_ns_stddev",
    "write_latency_ns_p50",
    "write_latency_ns_p90",
    "write_latency_ns_p99",
    "write_latency_ns_p999",
    "write_latency_ns_p9999",
    "write_latency_ns_max",
    "host_read_pages",
    "host_write_pages",
    "nand_program_pages",
    "gc_copy_pages",
    "erases",
    "write_amplification",
    "gc_time_share",
    "elapsed_formula_us",
    "mapping_bytes",
    "op_percent_requested",
    "op_percent_actual",
    "slc_cache_percent_requested",
    "slc_cache_percent_actual",
];

/// The whole measured run as a phase named `all`.
///
/// If the report already carries a phase named `all`, that one is returned. Otherwise it
/// is built from the top-level fields; request counts come from the latency summaries'
/// counts, and the read/write throughput split, which the top level does not carry, is
/// NaN (an empty CSV cell, `n/a` in text).
pub fn overall_phase(report: &Report) -> PhaseReport {
    if let Some(p) = report.phases.iter().find(|p| p.name == "all") {
        return p.clone();
    }
    let secs = report.simulated_ns as f64 / 1e9;
    let per_sec = |n: u64| {
        if secs > 0.0 {
            n as f64 / secs
        } else {
            f64::NAN
        }
    };
    PhaseReport {
        name: "all".to_string(),
        requests: report.latency_ns.count,
        read_requests: report.read_latency_ns.count,
        write_requests: report.write_latency_ns.count,
        simulated_ns: report.simulated_ns,
        iops: report.iops,
        read_iops: per_sec(report.read_latency_ns.count),
        write_iops: per_sec(report.write_latency_ns.count),
        throughput_mib_s: report.throughput_mib_s,
        read_throughput_mib_s: f64::NAN,
        write_throughput_mib_s: f64::NAN,
        latency_ns: report.latency_ns.clone(),
        read_latency_ns: report.read_latency_ns.clone(),
        write_latency_ns: report.write_latency_ns.clone(),
        host_read_pages: report.host_read_pages,
        host_write_pages: report.host_write_pages,
        nand_program_pages: report.nand_program_pages,
        gc_copy_pages: report.gc_copy_pages,
        erases: report.erases,
        write_amplification: report.write_amplification,
        elapsed_formula_us: report.elapsed_formula_us,
        gc_time_share: report.gc_time_share,
        counters: Default::default(),
    }
}

/// The `all` phase first, then every other phase in report order.
pub fn phases_with_overall(report: &Report) -> Vec<PhaseReport> {
    let mut out = vec![overall_phase(report)];
    out.extend(report.phases.iter().filter(|p| p.name != "all").cloned());
    out
}

fn float_cell(v: f64) -> String {
    if v.is_finite() {
        v.to_string()
    } else {
        String::new()
    }
}

fn row(design: &str, p: &PhaseReport, report: &Report) -> Vec<String> {
    let mut r = vec![
        design.to_string(),
        p.name.clone(),
        p.requests.to_string(),
        p.read_requests.to_string(),
        p.write_requests.to_string(),
        p.simulated_ns.to_string(),
    ];
    r.extend(
        [
            p.iops,
            p.read_iops,
            p.write_iops,
            p.throughput_mib_s,
            p.read_throughput_mib_s,
            p.write_throughput_mib_s,
        ]
        .map(float_cell),
    );
    for l in [&p.latency_ns, &p.read_latency_ns, &p.write_latency_ns] {
        r.push(l.min.to_string());
        r.push(float_cell(l.mean));
        r.push(float_cell(l.stddev));
        r.extend([l.p50, l.p90, l.p99, l.p999, l.p9999, l.max].map(|v| v.to_string()));
    }
    r.extend(
        [
            p.host_read_pages,
            p.host_write_pages,
            p.nand_program_pages,
            p.gc_copy_pages,
            p.erases,
        ]
        .map(|v| v.to_string()),
    );
    r.extend([p.write_amplification, p.gc_time_share, p.elapsed_formula_us].map(float_cell));
    r.push(report.mapping_bytes.to_string());
    r.extend(
        [
            report.op_percent_requested,
            report.op_percent_actual,
            report.slc_cache_percent_requested,
            report.slc_cache_percent_actual,
        ]
        .map(float_cell),
    );
    debug_assert_eq!(r.len(), CSV_COLUMNS.len());
    r
}

/// Writes a header and, for each `(design name, report)`, one row for the whole run
/// (`phase` = `all`) followed by one row per phase. Columns are [`CSV_COLUMNS`];
/// `mapping_bytes` and the requested / actual device values are per report and repeat
/// on its phase rows.
pub fn write_csv<W: Write>(reports: &[(&str, &Report)], w: W) -> csv::Result<()> {
    let mut out = csv::Writer::from_writer(w);
    out.write_record(CSV_COLUMNS)?;
    for (design, report) in reports {
        for p in phases_with_overall(report) {
            out.write_record(row(design, &p, report))?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The CSV report output ([`super::render::RENDERERS`]): [`write_csv`], an I/O error
/// kept as one (a closed standard output is seen as such, not as a CSV error wrapping
/// "Broken pipe").
pub struct Csv;

/// The CSV renderer.
pub static CSV: Csv = Csv;

impl super::render::Renderer for Csv {
    fn name(&self) -> &'static str {
        "csv"
    }
    fn summary(&self) -> &'static str {
        "one row for the whole run and one per phase, per design"
    }
    fn extension(&self) -> &'static str {
        "csv"
    }
    fn render(&self, designs: &[(&str, &Report)], w: &mut dyn Write) -> io::Result<()> {
        write_csv(designs, w).map_err(|e| match e.kind() {
            csv::ErrorKind::Io(_) => match e.into_kind() {
                csv::ErrorKind::Io(io) => io,
                _ => unreachable!("checked"),
            },
            _ => io::Error::other(e),
        })
    }
}

/// [`write_csv`] into `path`, all-or-nothing (see [`atomic_write`]).
pub fn write_csv_atomically(path: &Path, reports: &[(&str, &Report)]) -> io::Result<()> {
    atomic_write(path, |w| write_csv(reports, w).map_err(io::Error::from))
}

/// Every scalar of the report's JSON form as `(dotted.key, value)`, e.g.
/// `("latency_ns.p99", "1200")`, `("phases.0.name", "seq-write")`,
/// `("counters.ftl.gc.victims", "12")`. Keys are sorted (serde_json's map order), strings
/// are unquoted, `null` is empty, and non-finite floats follow the JSON rule (written as
/// 0, see [`super::json`]). Useful for a wide CSV of everything, or for diffing runs.
pub fn flatten_json(report: &Report) -> Vec<(String, String)> {
    let value = serde_json::to_value(super::json::sanitize(report))
        // Same reasoning as to_json_string: a Report is plain data with string keys.
        .expect("a Report always converts to JSON");
    let mut out = Vec::new();
    flatten_value("", &value, &mut out);
    out
}

fn flatten_value(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    use serde_json::Value;
    let key = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                flatten_value(&key(k), child, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                flatten_value(&key(&i.to_string()), child, out);
            }
        }
        Value::Null => out.push((prefix.to_string(), String::new())),
        Value::Bool(b) => out.push((prefix.to_string(), b.to_string())),
        Value::Number(n) => out.push((prefix.to_string(), n.to_string())),
        Value::String(s) => out.push((prefix.to_string(), s.clone())),
    }
}
