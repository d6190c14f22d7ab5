//! The report as an aligned plain-text table for the terminal.
//!
//! Layout: a header line, the device summary (one metric per line, grouped into
//! performance / flash / time), FTL counters, a per-phase table, notes and warnings, and,
//! when other reports are given, a side-by-side comparison. Output is a pure function of
//! the input (no clock, no locale), and no line has trailing spaces.

use super::csv_out::phases_with_overall;
use super::numfmt::{
    NOT_AVAILABLE, fmt_bytes, fmt_duration_ns, fmt_duration_us, fmt_number, fmt_percent, fmt_ratio,
    group_thousands,
};
use super::table::{Align, Line, Table};
use super::{LatencySummary, PhaseReport, Report};

/// Values shown together in one cell, `a / b / …`.
fn slash<const N: usize>(parts: [String; N]) -> String {
    parts.join(" / ")
}

/// One line of the device summary: a label and how to read it off a report.
enum Metric {
    Section(&'static str),
    Value(&'static str, fn(&Report) -> String),
}

use crate::config::actual::fmt_pct;

fn lat(ns: u64) -> String {
    fmt_duration_ns(ns as f64)
}

/// A latency statistic, or `n/a` when the summary measured nothing (e.g. reads in a
/// write-only run), so an all-zero summary does not read as "0 ns".
fn lat_if(l: &LatencySummary, f: impl Fn(&LatencySummary) -> String) -> String {
    if l.count == 0 {
        NOT_AVAILABLE.to_string()
    } else {
        f(l)
    }
}

fn erase_spread(r: &Report) -> String {
    let e = &r.erase_count;
    format!(
        "{} / {} / {} / {}",
        group_thousands(e.min),
        fmt_number(e.mean),
        group_thousands(e.max),
        fmt_number(e.stddev)
    )
}

/// The summary rows, shared by the single-report summary and the comparison table so the
/// two always show the same figures the same way.
fn summary_metrics() -> Vec<Metric> {
    use Metric::{Section, Value};
    vec![
        Section("Performance"),
        Value("Requests", |r| group_thousands(r.latency_ns.count)),
        Value("  reads / writes", |r| {
            slash([
                group_thousands(r.read_latency_ns.count),
                group_thousands(r.write_latency_ns.count),
            ])
        }),
        Value("IOPS", |r| fmt_number(r.iops)),
        Value("Throughput", |r| {
            format!("{} MiB/s", fmt_number(r.throughput_mib_s))
        }),
        Value("Latency mean", |r| {
            lat_if(&r.latency_ns, |l| fmt_duration_ns(l.mean))
        }),
        Value("Latency stddev", |r| {
            lat_if(&r.latency_ns, |l| fmt_duration_ns(l.stddev))
        }),
        Value("Latency min", |r| lat_if(&r.latency_ns, |l| lat(l.min))),
        Value("Latency p50", |r| lat_if(&r.latency_ns, |l| lat(l.p50))),
        Value("Latency p90", |r| lat_if(&r.latency_ns, |l| lat(l.p90))),
        Value("Latency p99", |r| lat_if(&r.latency_ns, |l| lat(l.p99))),
        Value("Latency p99.9", |r| lat_if(&r.latency_ns, |l| lat(l.p999))),
        Value("Latency p99.99", |r| {
            lat_if(&r.latency_ns, |l| lat(l.p9999))
        }),
        Value("Latency max", |r| lat_if(&r.latency_ns, |l| lat(l.max))),
        Value("Read latency mean / p99", |r| {
            lat_if(&r.read_latency_ns, |l| {
                slash([fmt_duration_ns(l.mean), lat(l.p99)])
            })
        }),
        Value("Write latency mean / p99", |r| {
            lat_if(&r.write_latency_ns, |l| {
                slash([fmt_duration_ns(l.mean), lat(l.p99)])
            })
        }),
        Section("Flash"),
        // Requested and actual side by side: the array rounds them to whole blocks
        // (docs/config.md, "Requested and actual values").
        Value("Over-provisioning asked / actual", |r| {
            format!(
                "{}% / {}%",
                fmt_pct(r.op_percent_requested),
                fmt_pct(r.op_percent_actual)
            )
        }),
        Value("SLC cache asked / actual", |r| {
            format!(
                "{}% / {}%",
                fmt_pct(r.slc_cache_percent_requested),
                fmt_pct(r.slc_cache_percent_actual)
            )
        }),
        Value("Host pages read / written", |r| {
            slash([
                group_thousands(r.host_read_pages),
                group_thousands(r.host_write_pages),
            ])
        }),
        Value("Host pages trimmed", |r| group_thousands(r.host_trim_pages)),
        Value("Unmapped page reads", |r| {
            group_thousands(r.unmapped_read_pages)
        }),
        Value("NAND page reads (RMW)", |r| {
            format!(
                "{} ({})",
                group_thousands(r.nand_read_pages),
                group_thousands(r.rmw_read_pages)
            )
        }),
        Value("NAND page programs", |r| {
            group_thousands(r.nand_program_pages)
        }),
        Value("  host / GC / WL / map / RMW", |r| {
            slash([
                group_thousands(r.host_program_pages),
                group_thousands(r.gc_copy_pages),
                group_thousands(r.wl_copy_pages),
                group_thousands(r.map_program_pages),
                group_thousands(r.rmw_program_pages),
            ])
        }),
        Value("Write amplification", |r| fmt_ratio(r.write_amplification)),
        Value("  host / GC / WL / map / RMW", |r| {
            slash([
                fmt_ratio(r.write_amplification_host),
                fmt_ratio(r.write_amplification_gc),
                fmt_ratio(r.write_amplification_wl),
                fmt_ratio(r.write_amplification_map),
                fmt_ratio(r.write_amplification_rmw),
            ])
        }),
        Value("Erases", |r| group_thousands(r.erases)),
        Value("Erase count min/mean/max/sd", erase_spread),
        Value("Mapping memory", |r| fmt_bytes(r.mapping_bytes)),
        Value("End of life", |r| match &r.end_of_life {
            Some(e) => format!(
                "after {} requests ({} written)",
                group_thousands(e.after_requests),
                fmt_bytes(e.host_write_bytes)
            ),
            None => "not reached".into(),
        }),
        Section("Time"),
        Value("Elapsed (formula)", |r| {
            fmt_duration_us(r.elapsed_formula_us)
        }),
        Value("  I/O / GC", |r| {
            slash([
                fmt_duration_us(r.elapsed_formula_io_us),
                fmt_duration_us(r.elapsed_formula_gc_us),
            ])
        }),
        Value("GC share of formula time", |r| fmt_percent(r.gc_time_share)),
        Value("GC share of die busy time", |r| {
            fmt_percent(r.gc_busy_share)
        }),
        Value("Simulated time", |r| fmt_duration_ns(r.simulated_ns as f64)),
    ]
}

/// Rows shown when a write buffer is configured: hit ratios, write-back, and the device
/// vs FTL write amplification.
fn buffer_metrics() -> Vec<Metric> {
    use Metric::{Section, Value};
    vec![
        Section("Write buffer"),
        Value("Policy / size", |r| {
            slash([
                r.buffer.buffer_policy.clone(),
                fmt_bytes(r.buffer.buffer_size_bytes),
            ])
        }),
        Value("Write / read hit ratio", |r| {
            slash([
                fmt_percent(r.buffer.buffer_write_hit_ratio),
                fmt_percent(r.buffer.buffer_read_hit_ratio),
            ])
        }),
        Value("Pages flushed (at end)", |r| {
            format!(
                "{} ({})",
                group_thousands(r.buffer.buffer_flushed_pages),
                group_thousands(r.buffer.buffer_end_flush_pages)
            )
        }),
        Value("Padding pages", |r| {
            group_thousands(r.buffer.buffer_padding_pages)
        }),
        Value("Flash programs saved", |r| {
            let v = r.buffer.buffer_programs_saved;
            let s = group_thousands(v.unsigned_abs());
            if v < 0 { format!("-{s}") } else { s }
        }),
        Value("WA device / FTL", |r| {
            slash([
                fmt_ratio(r.write_amplification),
                fmt_ratio(r.buffer.write_amplification_ftl),
            ])
        }),
    ]
}

/// Fills `t` (label column + one column per report) with the summary metrics.
fn push_metrics(t: &mut Table, reports: &[&Report]) {
    let mut metrics = summary_metrics();
    let buffered = |r: &&Report| !matches!(r.buffer.buffer_policy.as_str(), "" | "none");
    if reports.iter().any(buffered) {
        metrics.extend(buffer_metrics());
    }
    for m in metrics {
        match m {
            Metric::Section(s) => t.lines.push(Line::Section(s.to_string())),
            Metric::Value(label, f) => {
                let mut cells = vec![format!("  {label}")];
                cells.extend(reports.iter().map(|r| f(r)));
                t.lines.push(Line::Cells(cells));
            }
        }
    }
}

fn phase_cells(p: &PhaseReport) -> Vec<String> {
    vec![
        p.name.clone(),
        group_thousands(p.requests),
        fmt_number(p.iops),
        fmt_number(p.throughput_mib_s),
        lat_if(&p.latency_ns, |l| fmt_duration_ns(l.mean)),
        lat_if(&p.latency_ns, |l| lat(l.p99)),
        fmt_ratio(p.write_amplification),
        fmt_percent(p.gc_time_share),
    ]
}

fn render_phases(report: &Report, out: &mut String) {
    let mut t = Table::headed(
        std::iter::once(Align::Left)
            .chain([Align::Right; 7])
            .collect(),
        &[
            "Phase", "Requests", "IOPS", "MiB/s", "Lat mean", "Lat p99", "WA", "GC share",
        ],
    );
    for p in &report.phases {
        t.lines.push(Line::Cells(phase_cells(p)));
    }
    out.push_str("Phases\n");
    t.render(out);
    // The phases cover the requests; the write buffer's end-of-run flush comes after the
    // last one, so its programs count in the totals above (WA) but in no phase.
    let end_flush = report.buffer.buffer_end_flush_pages;
    if end_flush > 0 {
        out.push_str(&format!(
            "  (the end-of-run buffer flush, {} pages, is in the totals above, not in a phase)\n",
            group_thousands(end_flush)
        ));
    }
}

/// The per-namespace table (only with two or more namespaces, as in the JSON report).
fn render_namespaces(report: &Report, out: &mut String) {
    if report.namespaces.is_empty() {
        return;
    }
    let mut t = Table::headed(
        std::iter::once(Align::Left)
            .chain([Align::Right; 11])
            .collect(),
        &[
            "Namespace",
            "Size",
            "Requests",
            "IOPS",
            "Read",
            "Written",
            "Media written",
            "Read p99",
            "Write p99",
            "WA",
            "WA share",
            "Out of range",
        ],
    );
    for n in &report.namespaces {
        t.lines.push(Line::Cells(vec![
            n.name.clone(),
            fmt_bytes(n.size_bytes),
            group_thousands(n.requests),
            fmt_number(n.iops),
            fmt_bytes(n.read_bytes),
            fmt_bytes(n.write_bytes),
            fmt_bytes(n.media_write_bytes),
            lat_if(&n.read_latency_ns, |l| lat(l.p99)),
            lat_if(&n.write_latency_ns, |l| lat(l.p99)),
            fmt_ratio(n.write_amplification),
            fmt_ratio(n.write_amplification_contribution),
            group_thousands(n.errors_lba_out_of_range),
        ]));
    }
    out.push_str("\nNamespaces\n");
    t.render(out);
    if let Some(o) = &report.namespace_overhead {
        out.push_str(&format!(
            "Pages of no namespace (translation pages, padding): media written {}, WA share {}\n",
            fmt_bytes(o.media_write_bytes),
            fmt_ratio(o.write_amplification_contribution)
        ));
    }
}

/// The FDP statistics, per handle and per namespace, and the event counts (`ftl.fdp`
/// only, as in the JSON report).
fn render_fdp(report: &Report, out: &mut String) {
    let Some(f) = &report.fdp else {
        return;
    };
    out.push_str(&format!(
        "\nFDP: host bytes written {}, media bytes written {}, media bytes erased {}, WAF {}\n",
        fmt_bytes(f.host_bytes_written),
        fmt_bytes(f.media_bytes_written),
        fmt_bytes(f.media_bytes_erased),
        fmt_ratio(f.waf)
    ));
    let mut t = Table::headed(
        vec![
            Align::Left,
            Align::Left,
            Align::Right,
            Align::Right,
            Align::Right,
        ],
        &["", "Isolation", "Host written", "Media written", "WAF"],
    );
    let rows = f.usage_rows();
    for (what, u) in rows {
        t.lines.push(Line::Cells(vec![
            what,
            match u.isolation {
                Some(crate::fdp::Isolation::InitiallyIsolated) => "initially".into(),
                Some(crate::fdp::Isolation::PersistentlyIsolated) => "persistently".into(),
                None => String::new(),
            },
            fmt_bytes(u.host_bytes_written),
            fmt_bytes(u.media_bytes_written),
            fmt_ratio(u.waf),
        ]));
    }
    t.render(out);
    if !f.events.is_empty() {
        render_counts("FDP events", &f.events, out);
    }
}

/// A titled two-column table of named counts (the counters, the FDP events).
fn render_counts<'a, K: std::fmt::Display + 'a>(
    title: &str,
    counts: impl IntoIterator<Item = (&'a K, &'a u64)>,
    out: &mut String,
) {
    let mut t = Table::new(vec![Align::Left, Align::Right]);
    for (k, v) in counts {
        t.lines
            .push(Line::Cells(vec![format!("  {k}"), group_thousands(*v)]));
    }
    out.push_str(title);
    out.push('\n');
    t.render(out);
}

fn render_list(title: &str, items: &[String], out: &mut String) {
    if items.is_empty() {
        return;
    }
    out.push('\n');
    out.push_str(title);
    out.push('\n');
    for item in items {
        // Continuation lines of a multi-line note line up under its first line.
        let mut lines = item.lines();
        out.push_str("  - ");
        out.push_str(lines.next().unwrap_or(""));
        out.push('\n');
        for l in lines {
            out.push_str("    ");
            out.push_str(l);
            out.push('\n');
        }
    }
}

fn render_comparison(comparison: &[(&str, &Report)], out: &mut String) {
    let mut align = vec![Align::Left];
    align.extend(comparison.iter().map(|_| Align::Right));
    let mut t = Table::new(align);
    let mut header = vec!["Metric".to_string()];
    header.extend(comparison.iter().map(|(name, _)| name.to_string()));
    t.header = Some(header);
    let reports: Vec<&Report> = comparison.iter().map(|(_, r)| *r).collect();
    push_metrics(&mut t, &reports);

    // Per-phase rows, for phases in order of first appearance across the reports (the
    // designs usually ran the same workload, hence the same phases).
    let mut names: Vec<String> = Vec::new();
    for r in &reports {
        for p in phases_with_overall(r) {
            if !names.contains(&p.name) {
                names.push(p.name);
            }
        }
    }
    let per_report: Vec<Vec<PhaseReport>> =
        reports.iter().map(|r| phases_with_overall(r)).collect();
    type PhaseMetric = (&'static str, fn(&PhaseReport) -> String);
    let phase_metrics: [PhaseMetric; 4] = [
        ("IOPS", |p| fmt_number(p.iops)),
        ("latency p99", |p| lat_if(&p.latency_ns, |l| lat(l.p99))),
        ("WA", |p| fmt_ratio(p.write_amplification)),
        ("GC share", |p| fmt_percent(p.gc_time_share)),
    ];
    t.lines.push(Line::Section("Phases".to_string()));
    for name in &names {
        for (label, f) in &phase_metrics {
            let mut cells = vec![format!("  {name}: {label}")];
            for phases in &per_report {
                cells.push(match phases.iter().find(|p| &p.name == name) {
                    Some(p) => f(p),
                    None => "-".to_string(),
                });
            }
            t.lines.push(Line::Cells(cells));
        }
    }
    out.push_str("\nComparison\n");
    t.render(out);
}

/// The text table ([`super::render::RENDERERS`]): [`render_text`] of the first design,
/// with every design side by side when there are several.
pub struct Text;

/// The text renderer.
pub static TEXT: Text = Text;

impl super::render::Renderer for Text {
    fn name(&self) -> &'static str {
        "text"
    }
    fn summary(&self) -> &'static str {
        "the aligned text table the terminal shows"
    }
    fn extension(&self) -> &'static str {
        "txt"
    }
    fn render(
        &self,
        designs: &[(&str, &Report)],
        w: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let Some((_, first)) = designs.first() else {
            return Ok(());
        };
        let comparison = if designs.len() == 1 { &[][..] } else { designs };
        w.write_all(render_text(first, comparison).as_bytes())
    }
}

/// Renders `report` as an aligned text table; when `comparison` is non-empty, a
/// side-by-side table follows with one column per `(name, report)` (e.g. several
/// designs on one workload; include the main report there if it should be a column).
pub fn render_text(report: &Report, comparison: &[(&str, &Report)]) -> String {
    let mut out = String::new();
    let mut header = String::from("ssdlab");
    if !report.ssdlab_version.is_empty() {
        header.push(' ');
        header.push_str(&report.ssdlab_version);
    }
    header.push_str(" report");
    if !report.measured_phase.is_empty() {
        header.push_str(&format!(" (measured: {})", report.measured_phase));
    }
    out.push_str(&header);
    out.push_str("\n\n");

    let mut t = Table::new(vec![Align::Left, Align::Right]);
    push_metrics(&mut t, &[report]);
    // Only in the single-report view: wall-clock time varies between identical runs, so
    // it would be noise in a comparison of designs.
    t.lines.push(Line::Cells(vec![
        "  Wall clock (host)".to_string(),
        fmt_duration_ns(report.wall_clock_s * 1e9),
    ]));
    t.render(&mut out);

    if let Some(p) = &report.probe {
        out.push_str(&format!(
            "\nManagement-block probe ({} writes every {} B, {} partitions): inferred management block: {}\n",
            crate::units::Size(p.size_bytes),
            p.step_bytes,
            p.partitions,
            p.verdict()
        ));
        if let Some(b) = &p.block_test {
            out.push_str(&format!(
                "  tested against {} blocks: {} writes cross a boundary, mean {:.1} µs, {:.0} % at \
                 {}× the others' median ({:.1} µs) or more; {} do not, mean {:.1} µs, {:.0} % above that\n",
                crate::units::Size(b.block_bytes),
                b.crossing_writes,
                b.crossing_latency_ns_mean / 1e3,
                100.0 * b.crossing_slow_share,
                crate::workload::synth::probe::SLOW_FACTOR,
                b.inside_latency_ns_median / 1e3,
                b.inside_writes,
                b.inside_latency_ns_mean / 1e3,
                100.0 * b.inside_slow_share,
            ));
        }
    }

    if !report.counters.is_empty() {
        out.push('\n');
        render_counts("Counters", &report.counters, &mut out);
    }

    if !report.phases.is_empty() {
        out.push('\n');
        render_phases(report, &mut out);
    }
    render_namespaces(report, &mut out);
    render_fdp(report, &mut out);
    render_list("Notes", &report.notes, &mut out);
    render_list("Warnings", &report.warnings, &mut out);
    if !comparison.is_empty() {
        render_comparison(comparison, &mut out);
    }
    // Notes and names come from users and may carry trailing blanks; strip them so the
    // promise "no trailing spaces" holds for every line.
    let mut clean: String = out.lines().map(|l| format!("{}\n", l.trim_end())).collect();
    if clean.is_empty() {
        clean.push('\n');
    }
    clean
}
