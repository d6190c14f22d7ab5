//! The report as JSON: pretty-printed, keys in struct declaration order, always valid.
//!
//! # Non-finite numbers
//! JSON has no NaN or infinity, and serde_json would print them as `null`, which then
//! fails to deserialize back into an `f64` field. The rule here: **every non-finite float
//! is written as `0`**, and one line per replaced value is appended to `warnings`
//! (e.g. `JSON: write_amplification was NaN, written as 0`). Non-finite values only arise
//! from ratios over empty denominators (0/0 WA of a read-only phase, IOPS of a
//! zero-length phase), where 0 is the natural reading; the warning keeps the substitution
//! visible. The JSON therefore always round-trips through serde into [`Report`].

use super::output::atomic_write;
use super::{EraseSummary, LatencySummary, PhaseReport, Report};
use std::io;
use std::path::Path;

/// Replaces one non-finite value by 0 and records where it was.
fn fix(path: &str, v: &mut f64, warnings: &mut Vec<String>) {
    if !v.is_finite() {
        warnings.push(format!("JSON: {path} was {v}, written as 0"));
        *v = 0.0;
    }
}

fn fix_latency(prefix: &str, l: &mut LatencySummary, w: &mut Vec<String>) {
    fix(&format!("{prefix}.mean"), &mut l.mean, w);
    fix(&format!("{prefix}.stddev"), &mut l.stddev, w);
}

fn fix_erase(prefix: &str, e: &mut EraseSummary, w: &mut Vec<String>) {
    fix(&format!("{prefix}.mean"), &mut e.mean, w);
    fix(&format!("{prefix}.stddev"), &mut e.stddev, w);
}

fn fix_phase(prefix: &str, p: &mut PhaseReport, w: &mut Vec<String>) {
    // Field list mirrors PhaseReport's f64 fields; a new f64 field must be added here.
    fix(&format!("{prefix}.iops"), &mut p.iops, w);
    fix(&format!("{prefix}.read_iops"), &mut p.read_iops, w);
    fix(&format!("{prefix}.write_iops"), &mut p.write_iops, w);
    fix(
        &format!("{prefix}.throughput_mib_s"),
        &mut p.throughput_mib_s,
        w,
    );
    let rt = &mut p.read_throughput_mib_s;
    fix(&format!("{prefix}.read_throughput_mib_s"), rt, w);
    let wt = &mut p.write_throughput_mib_s;
    fix(&format!("{prefix}.write_throughput_mib_s"), wt, w);
    fix_latency(&format!("{prefix}.latency_ns"), &mut p.latency_ns, w);
    fix_latency(
        &format!("{prefix}.read_latency_ns"),
        &mut p.read_latency_ns,
        w,
    );
    fix_latency(
        &format!("{prefix}.write_latency_ns"),
        &mut p.write_latency_ns,
        w,
    );
    let wa = &mut p.write_amplification;
    fix(&format!("{prefix}.write_amplification"), wa, w);
    let ef = &mut p.elapsed_formula_us;
    fix(&format!("{prefix}.elapsed_formula_us"), ef, w);
    fix(&format!("{prefix}.gc_time_share"), &mut p.gc_time_share, w);
}

/// A copy of `report` with every non-finite float set to 0 and a warning per
/// replacement (see the module docs). A report without non-finite values is returned
/// unchanged.
pub fn sanitize(report: &Report) -> Report {
    let mut r = report.clone();
    let mut w = Vec::new();
    // Field list mirrors Report's f64 fields; a new f64 field must be added here.
    fix("write_amplification", &mut r.write_amplification, &mut w);
    let wah = &mut r.write_amplification_host;
    fix("write_amplification_host", wah, &mut w);
    fix(
        "write_amplification_gc",
        &mut r.write_amplification_gc,
        &mut w,
    );
    fix(
        "write_amplification_wl",
        &mut r.write_amplification_wl,
        &mut w,
    );
    fix(
        "write_amplification_map",
        &mut r.write_amplification_map,
        &mut w,
    );
    fix(
        "write_amplification_rmw",
        &mut r.write_amplification_rmw,
        &mut w,
    );
    fix("iops", &mut r.iops, &mut w);
    fix("throughput_mib_s", &mut r.throughput_mib_s, &mut w);
    fix_latency("latency_ns", &mut r.latency_ns, &mut w);
    fix_latency("read_latency_ns", &mut r.read_latency_ns, &mut w);
    fix_latency("write_latency_ns", &mut r.write_latency_ns, &mut w);
    fix("elapsed_formula_us", &mut r.elapsed_formula_us, &mut w);
    fix(
        "elapsed_formula_io_us",
        &mut r.elapsed_formula_io_us,
        &mut w,
    );
    fix(
        "elapsed_formula_gc_us",
        &mut r.elapsed_formula_gc_us,
        &mut w,
    );
    fix("gc_time_share", &mut r.gc_time_share, &mut w);
    fix("gc_busy_share", &mut r.gc_busy_share, &mut w);
    let b = &mut r.buffer;
    fix(
        "buffer_write_hit_ratio",
        &mut b.buffer_write_hit_ratio,
        &mut w,
    );
    fix(
        "buffer_read_hit_ratio",
        &mut b.buffer_read_hit_ratio,
        &mut w,
    );
    fix(
        "write_amplification_ftl",
        &mut b.write_amplification_ftl,
        &mut w,
    );
    fix_erase("erase_count", &mut r.erase_count, &mut w);
    for (i, p) in r.phases.iter_mut().enumerate() {
        fix_phase(&format!("phases[{i}]"), p, &mut w);
    }
    fix("wall_clock_s", &mut r.wall_clock_s, &mut w);
    fix(
        "wall_clock_measured_s",
        &mut r.wall_clock_measured_s,
        &mut w,
    );
    r.warnings.extend(w);
    r
}

/// The report as pretty JSON (two-space indent, keys in struct order, `config` keys
/// sorted), with non-finite floats written as 0 (see the module docs). No trailing
/// newline.
pub fn to_json_string(report: &Report) -> String {
    // Cannot fail: every map in a Report has string keys and every value is plain data.
    serde_json::to_string_pretty(&sanitize(report)).expect("a Report always serializes")
}

/// Writes [`to_json_string`] plus a final newline to `path`, all-or-nothing
/// (see [`atomic_write`]).
pub fn write_json_atomically(path: &Path, report: &Report) -> io::Result<()> {
    let text = to_json_string(report);
    atomic_write(path, |w| {
        w.write_all(text.as_bytes())?;
        w.write_all(b"\n")
    })
}

/// One report as [`to_json_string`]; several as `{"designs": [{"name", "report"}, …]}`
/// (pretty, each report as [`to_json_string`] writes it). No trailing newline.
pub fn designs_json_string(designs: &[(&str, &Report)]) -> String {
    if let [(_, r)] = designs {
        return to_json_string(r);
    }
    let designs: Vec<serde_json::Value> = designs
        .iter()
        .map(|(n, r)| {
            let report: serde_json::Value =
                serde_json::from_str(&to_json_string(r)).expect("a report's JSON parses back");
            serde_json::json!({ "name": n, "report": report })
        })
        .collect();
    serde_json::to_string_pretty(&serde_json::json!({ "designs": designs }))
        .expect("JSON values serialize")
}

/// The JSON report output ([`super::render::RENDERERS`]): [`designs_json_string`] and a
/// newline.
pub struct Json;

/// The JSON renderer.
pub static JSON: Json = Json;

impl super::render::Renderer for Json {
    fn name(&self) -> &'static str {
        "json"
    }
    fn summary(&self) -> &'static str {
        "the report as JSON (several designs: {\"designs\": [{name, report}, …]})"
    }
    fn extension(&self) -> &'static str {
        "json"
    }
    fn render(&self, designs: &[(&str, &Report)], w: &mut dyn io::Write) -> io::Result<()> {
        w.write_all(designs_json_string(designs).as_bytes())?;
        w.write_all(b"\n")
    }
}

/// Parses a report written by [`to_json_string`] (or any JSON with the same keys).
pub fn from_json_str(text: &str) -> serde_json::Result<Report> {
    serde_json::from_str(text)
}
