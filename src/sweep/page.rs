//! The HTML page of a sweep ([`crate::report::html`] renders it): write amplification
//! and GC share against each axis, latency CDFs, throughput over time and erase
//! histograms of the cells, the sortable table of every cell, and failed cells' errors.

use super::plan::value_text;
use super::store::Status;
use super::{Sweep, Table, Val};
use crate::report::html::{Block, Page, Section, fmt_plain};
use crate::report::svg;

/// Cells drawn in one overlaid figure: more lines cannot be told apart.
const MAX_LINES: usize = 12;
/// Erase histograms drawn (one figure each).
const MAX_HISTOGRAMS: usize = 6;

/// The page of `sweep` with its `table`, produced by `command`.
pub fn sweep_page(sweep: &Sweep, table: &Table, command: &str) -> Page {
    let plan = &sweep.plan;
    let s = sweep.summary();
    let ok = plan
        .cells
        .iter()
        .filter(|c| {
            sweep
                .store
                .get(&c.spec.key)
                .is_some_and(|r| r.status == Status::Ok)
        })
        .count();
    let mut sections = vec![Section {
        title: "Summary".into(),
        blocks: vec![Block::Para(format!(
            "{} cells ({} distinct designs) over {} axes{}: {ok} ok, {} failed, {} missing.",
            s.cells,
            s.distinct,
            plan.grid.axes.len(),
            if plan.grid.repeat > 1 {
                format!(", {} repetitions each", plan.grid.repeat)
            } else {
                String::new()
            },
            s.failed,
            s.cells - ok - s.failed
        ))],
    }];
    let changed = plan.actual_warnings();
    if !changed.is_empty() {
        sections.push(Section {
            title: "Values the device changed".into(),
            blocks: changed.into_iter().map(Block::Para).collect(),
        });
    }
    let col = |name: &str| table.columns.iter().position(|c| c == name);
    let num = |row: &[Val], i: Option<usize>| match i.map(|i| &row[i]) {
        Some(Val::Int(v)) => Some(*v as f64),
        Some(Val::Float(v)) if v.is_finite() => Some(*v),
        _ => None,
    };
    // Means per axis value of the cells that report the metric.
    let mut axis_figs = Vec::new();
    for (ai, a) in plan.grid.axes.iter().enumerate() {
        let mut cats: Vec<String> = Vec::new();
        for v in &a.values {
            let t = value_text(v);
            if !cats.contains(&t) {
                cats.push(t);
            }
        }
        let mean = |metric: &str| -> Vec<f64> {
            let mi = col(metric);
            cats.iter()
                .map(|cat| {
                    let vals: Vec<f64> = plan
                        .cells
                        .iter()
                        .zip(&table.rows)
                        .filter(|(c, _)| value_text(&c.values[ai]) == *cat)
                        .filter_map(|(_, r)| num(r, mi))
                        .collect();
                    if vals.is_empty() {
                        f64::NAN
                    } else {
                        vals.iter().sum::<f64>() / vals.len() as f64
                    }
                })
                .collect()
        };
        // An axis the device rounds is labelled with what the cells got, so that two
        // requests that became one device do not read as two (docs/config.md,
        // "Requested and actual values").
        let actual_col = match a.name.as_str() {
            "device.op_percent" => col("op_percent_actual"),
            "device.slc_cache_percent" => col("slc_cache_percent_actual"),
            _ => None,
        };
        let labels: Vec<String> = cats
            .iter()
            .map(|cat| {
                let Some(ci) = actual_col else {
                    return cat.clone();
                };
                let mut got: Vec<String> = plan
                    .cells
                    .iter()
                    .zip(&table.rows)
                    .filter(|(c, _)| value_text(&c.values[ai]) == *cat)
                    .filter_map(|(_, r)| num(r, Some(ci)))
                    .map(crate::config::actual::fmt_pct)
                    .collect();
                got.dedup();
                match got.as_slice() {
                    [one] if one == cat => cat.clone(),
                    [] => cat.clone(),
                    g => format!("{cat} (actual {})", g.join("/")),
                }
            })
            .collect();
        axis_figs.push(Block::Figure(svg::bar_chart_svg(
            &format!("Write amplification by {}", a.name),
            "write amplification (mean over cells)",
            &labels,
            &[
                ("device".into(), mean("write_amplification")),
                ("GC part".into(), mean("write_amplification_gc")),
            ],
            false,
        )));
        axis_figs.push(Block::Figure(svg::bar_chart_svg(
            &format!("GC share by {}", a.name),
            "share (mean over cells)",
            &labels,
            &[
                ("GC share of formula time".into(), mean("gc_time_share")),
                ("GC share of die busy time".into(), mean("gc_busy_share")),
            ],
            false,
        )));
    }
    if !axis_figs.is_empty() {
        sections.push(Section {
            title: "Write amplification and GC share against each axis".into(),
            blocks: axis_figs,
        });
    }
    // The cells with figure data, labelled by their axis values.
    let drawn: Vec<(String, &super::store::FigureData)> = plan
        .cells
        .iter()
        .filter_map(|c| {
            let f = sweep.store.get(&c.spec.key)?.figures.as_ref()?;
            let mut label: Vec<String> = plan
                .grid
                .axes
                .iter()
                .zip(&c.values)
                .map(|(a, v)| format!("{}={}", a.name, value_text(v)))
                .collect();
            if plan.grid.repeat > 1 {
                label.push(format!("rep={}", c.rep));
            }
            let label = if label.is_empty() {
                format!("cell {}", c.index + 1)
            } else {
                label.join(" ")
            };
            Some((label, f))
        })
        .collect();
    let limited = |what: &str, n: usize| {
        (drawn.len() > n).then(|| {
            Block::Para(format!(
                "{what}: the first {n} of {} cells (the table has them all).",
                drawn.len()
            ))
        })
    };
    let mut lat = Vec::new();
    lat.extend(limited("Latency", MAX_LINES));
    let cdfs: Vec<(String, Vec<(f64, f64)>)> = drawn
        .iter()
        .take(MAX_LINES)
        .filter_map(|(l, f)| {
            // The whole run when the report has it, else its first phase.
            let (_, pts) = f
                .latency_cdf
                .iter()
                .find(|(p, _)| p == "all")
                .or(f.latency_cdf.first())?;
            Some((l.clone(), pts.clone()))
        })
        .collect();
    lat.push(Block::Figure(svg::latency_cdf_svg(&cdfs, "Latency CDF")));
    let tput: Vec<(String, Vec<(f64, f64)>)> = drawn
        .iter()
        .take(MAX_LINES)
        .map(|(l, f)| (l.clone(), f.throughput.clone()))
        .collect();
    lat.push(Block::Figure(svg::line_chart_svg(
        "Throughput over time",
        "simulated time (s)",
        "throughput (MiB/s)",
        &tput,
        false,
    )));
    sections.push(Section {
        title: "Latency and throughput".into(),
        blocks: lat,
    });
    let mut wear: Vec<Block> = limited("Erase histograms", MAX_HISTOGRAMS)
        .into_iter()
        .collect();
    wear.extend(drawn.iter().take(MAX_HISTOGRAMS).map(|(l, f)| {
        Block::Figure(svg::erase_histogram_svg(
            &f.erase_count_list(),
            &format!("Erase counts — {l}"),
        ))
    }));
    sections.push(Section {
        title: "Wear".into(),
        blocks: wear,
    });
    let rows = table
        .rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|v| match v {
                    Val::Float(f) => fmt_plain(*f),
                    v => v.csv(),
                })
                .collect()
        })
        .collect();
    sections.push(Section {
        title: "Cells".into(),
        blocks: vec![
            Block::Para("Click a column header to sort.".into()),
            Block::Table {
                columns: table.columns.clone(),
                rows,
            },
        ],
    });
    let errors: Vec<String> = plan
        .cells
        .iter()
        .filter_map(|c| {
            let r = sweep.store.get(&c.spec.key)?;
            r.error
                .as_ref()
                .map(|e| format!("cell {}: {e}", c.index + 1))
        })
        .collect();
    if !errors.is_empty() {
        sections.push(Section {
            title: "Failed cells".into(),
            blocks: vec![Block::Pre(errors.join("\n"))],
        });
    }
    Page {
        title: format!("ssdlab sweep — {}", plan.grid.origin),
        command: command.to_string(),
        sections,
    }
}
