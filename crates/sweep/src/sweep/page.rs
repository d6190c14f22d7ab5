//! The HTML page of a sweep ([`crate::report::html`] renders it). Every cell is
//! summarised, grouped by the axis being studied:
//!
//! - per factor axis (every axis but `seed`: seeds and repetitions are replicates, never
//!   a factor), write amplification, GC share, IOPS and p99 latency (a hybrid grid: cold
//!   and warm elapsed times, warm hit ratio) per value of that
//!   axis — one bar per combination of the other axes when there are few, else the mean
//!   over them — with error bars of ±1 standard deviation over the replicates;
//! - a table of every design (cells that differ only by seed or repetition) with the
//!   mean and standard deviation of those metrics over its replicates;
//! - per factor axis, the latency CDF, throughput over time and erase-count
//!   distribution of each value with all its cells pooled (each cell weighted equally),
//!   so a figure compares the axis's values instead of overlaying the first cells;
//! - the sortable table of every cell, and failed cells' errors.
//!
//! Everything is computed from the plan and the store in cell order, so the same sweep
//! gives the same page byte for byte.

use super::grid::AxisKind;
use super::plan::value_text;
use super::store::{FigureData, Status};
use super::{Sweep, Table, Val};
use crate::report::html::{Block, Page, Section, fmt_plain};
use crate::report::svg;

/// Most series in one grouped bar chart: with more combinations of the other axes the
/// chart shows the mean over all of them instead (bars of more colours cannot be told
/// apart).
const MAX_SERIES: usize = 8;
/// Points of an averaged curve (CDF or throughput).
const CURVE_POINTS: usize = 120;
/// At most this many bins in a pooled erase-count distribution.
const ERASE_BINS: u64 = 40;

/// Metrics charted against each factor axis: (column, title, y-axis label).
/// A hybrid grid's cells chart their cold and warm elapsed times and warm hit ratio
/// instead (a metric no cell reports is left out).
const METRICS: [(&str, &str, &str); 7] = [
    (
        "write_amplification",
        "Write amplification",
        "write amplification",
    ),
    (
        "gc_time_share",
        "GC share of time",
        "GC share of formula time",
    ),
    ("iops", "IOPS", "IOPS"),
    ("latency_ns_p99", "p99 latency", "p99 latency (ns)"),
    ("cold_elapsed_s", "Cold run", "elapsed (s)"),
    ("warm_elapsed_s", "Warm run", "elapsed (s)"),
    (
        "warm_hit_ratio",
        "Warm hit ratio",
        "share of read units from flash",
    ),
];

/// Mean and sample standard deviation (NaN below two values) of `v`; NaN mean when empty.
fn mean_sd(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    if v.len() < 2 {
        return (mean, f64::NAN);
    }
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// Distinct items in order of first appearance.
fn distinct<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for x in items {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// At most `n` of the sorted, distinct `xs`, evenly spread, always with the last.
fn thin(xs: Vec<f64>, n: usize) -> Vec<f64> {
    if xs.len() <= n {
        return xs;
    }
    let step = xs.len().div_ceil(n);
    let mut out: Vec<f64> = xs.iter().step_by(step).copied().collect();
    if out.last() != xs.last() {
        out.push(*xs.last().expect("non-empty"));
    }
    out
}

/// The value at `x` of a CDF given as ascending (x, fraction) steps: the fraction of
/// the last step at or below `x`, 0 before the first.
fn cdf_at(pts: &[(f64, f64)], x: f64) -> f64 {
    let i = pts.partition_point(|p| p.0 <= x);
    if i == 0 { 0.0 } else { pts[i - 1].1 }
}

/// The mixture of `cdfs` (each weighted equally) on the union of their x values.
fn pooled_cdf(cdfs: &[&[(f64, f64)]]) -> Vec<(f64, f64)> {
    let mut xs: Vec<f64> = cdfs
        .iter()
        .flat_map(|c| c.iter().map(|p| p.0))
        .filter(|x| x.is_finite())
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let n = cdfs.len() as f64;
    thin(xs, CURVE_POINTS)
        .into_iter()
        .map(|x| (x, cdfs.iter().map(|c| cdf_at(c, x)).sum::<f64>() / n))
        .collect()
}

/// `pts` (ascending x) linearly interpolated at `x`.
fn lerp_at(pts: &[(f64, f64)], x: f64) -> f64 {
    let i = pts.partition_point(|p| p.0 <= x);
    match (i.checked_sub(1).map(|j| pts[j]), pts.get(i)) {
        (Some(a), Some(b)) if b.0 > a.0 => a.1 + (b.1 - a.1) * (x - a.0) / (b.0 - a.0),
        (Some(a), _) => a.1,
        (None, Some(b)) => b.1,
        (None, None) => f64::NAN,
    }
}

/// The mean of `curves` over the time all of them cover.
fn mean_curve(curves: &[&[(f64, f64)]]) -> Vec<(f64, f64)> {
    let curves: Vec<&[(f64, f64)]> = curves.iter().copied().filter(|c| !c.is_empty()).collect();
    if curves.is_empty() {
        return Vec::new();
    }
    let start = curves.iter().map(|c| c[0].0).fold(f64::INFINITY, f64::min);
    let end = curves
        .iter()
        .map(|c| c[c.len() - 1].0)
        .fold(f64::INFINITY, f64::min);
    if end.is_nan() || end <= start {
        return vec![(
            end,
            curves.iter().map(|c| c[c.len() - 1].1).sum::<f64>() / curves.len() as f64,
        )];
    }
    (0..CURVE_POINTS)
        .map(|k| {
            let x = start + (end - start) * k as f64 / (CURVE_POINTS - 1) as f64;
            let y = curves.iter().map(|c| lerp_at(c, x)).sum::<f64>() / curves.len() as f64;
            (x, y)
        })
        .collect()
}

/// One cell as the page sees it.
struct CellView<'a> {
    /// Value text of each factor axis, in factor order.
    factors: Vec<String>,
    row: &'a [Val],
    figures: Option<&'a FigureData>,
}

/// The cells of each value of one axis: (value, cells).
type Groups<'a> = Vec<(String, Vec<&'a CellView<'a>>)>;

/// A cell's figure data (for `filter_map` over `&&CellView`).
fn figs<'a>(c: &&CellView<'a>) -> Option<&'a FigureData> {
    c.figures
}

/// The cells as the page reads them: their factor values, table rows and figures.
struct View<'a> {
    table: &'a Table,
    cells: Vec<CellView<'a>>,
    /// Axes other than the seed, whose values are replicates.
    factor_names: Vec<&'a str>,
    /// Cells per design (seeds and repetitions).
    replicates: usize,
}

/// A number of a table cell (finite floats and integers).
fn num(row: &[Val], i: Option<usize>) -> Option<f64> {
    match i.map(|i| &row[i]) {
        Some(Val::Int(v)) => Some(*v as f64),
        Some(Val::Float(v)) if v.is_finite() => Some(*v),
        _ => None,
    }
}

impl<'a> View<'a> {
    fn new(sweep: &'a Sweep, table: &'a Table) -> View<'a> {
        let plan = &sweep.plan;
        // Factor axes: every axis but the seed, whose values are replicates.
        let factor_axes: Vec<usize> = (0..plan.grid.axes.len())
            .filter(|&i| plan.grid.axes[i].kind != AxisKind::Seed)
            .collect();
        let factor_names: Vec<&str> = factor_axes
            .iter()
            .map(|&i| plan.grid.axes[i].name.as_str())
            .collect();
        let cells: Vec<CellView> = plan
            .cells
            .iter()
            .zip(&table.rows)
            .map(|(c, row)| CellView {
                factors: factor_axes
                    .iter()
                    .map(|&i| value_text(&c.values[i]))
                    .collect(),
                row,
                figures: sweep
                    .store
                    .get(&c.spec.key)
                    .and_then(|r| r.figures.as_ref()),
            })
            .collect();
        let designs = distinct(cells.iter().map(|c| c.factors.clone())).len();
        let replicates = cells.len().checked_div(designs).unwrap_or(0);
        View {
            table,
            cells,
            factor_names,
            replicates,
        }
    }

    /// The designs: distinct factor values, in grid order.
    fn designs(&self) -> Vec<Vec<String>> {
        distinct(self.cells.iter().map(|c| c.factors.clone()))
    }

    /// The table column `name`.
    fn col(&self, name: &str) -> Option<usize> {
        self.table.columns.iter().position(|c| c == name)
    }

    /// `metric` of the cells `pick` chooses that have it.
    fn metric_values(&self, metric: &str, pick: &dyn Fn(&CellView) -> bool) -> Vec<f64> {
        let mi = self.col(metric);
        self.cells
            .iter()
            .filter(|c| pick(c))
            .filter_map(|c| num(c.row, mi))
            .collect()
    }
}

/// The page of `sweep` with its `table`, produced by `command`.
pub fn sweep_page(sweep: &Sweep, table: &Table, command: &str) -> Page {
    let plan = &sweep.plan;
    let view = View::new(sweep, table);
    let mut sections = vec![summary_section(sweep, &view)];
    let changed = plan.actual_warnings();
    if !changed.is_empty() {
        sections.push(Section {
            title: "Values the device changed".into(),
            blocks: changed.into_iter().map(Block::Para).collect(),
        });
    }
    if let Some(s) = axes_section(&view) {
        sections.push(s);
    }
    sections.push(designs_section(&view));
    let (lat, wear) = distribution_sections(&view);
    sections.push(lat);
    sections.push(wear);
    sections.push(cells_section(table));
    if let Some(s) = failed_section(sweep) {
        sections.push(s);
    }
    Page {
        title: format!("ssdlab sweep — {}", plan.grid.origin),
        command: command.to_string(),
        sections,
    }
}

/// Counts of cells, designs and replicates, and the factors.
fn summary_section(sweep: &Sweep, view: &View) -> Section {
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
    let replicates = view.replicates;
    Section {
        title: "Summary".into(),
        blocks: vec![Block::Para(format!(
            "{} cells ({} distinct designs) over {} axes{}: {ok} ok, {} failed, {} missing. \
             Factors: {}; each design has {} replicate{} (seeds and repetitions), which \
             the figures average.",
            s.cells,
            s.distinct,
            plan.grid.axes.len(),
            if plan.grid.repeat > 1 {
                format!(", {} repetitions each", plan.grid.repeat)
            } else {
                String::new()
            },
            s.failed,
            s.cells - ok - s.failed,
            if view.factor_names.is_empty() {
                "none".to_string()
            } else {
                view.factor_names.join(", ")
            },
            replicates,
            if replicates == 1 { "" } else { "s" },
        ))],
    }
}

/// One bar chart per factor axis and metric; `None` without factor axes.
fn axes_section(view: &View) -> Option<Section> {
    let mut axis_figs = Vec::new();
    for (k, name) in view.factor_names.iter().enumerate() {
        axis_figs.extend(axis_figures(view, k, name));
    }
    if axis_figs.is_empty() {
        return None;
    }
    let mut blocks = vec![Block::Para(format!(
        "One chart per factor axis and metric. Each bar is the mean of the cells with \
         that axis value (and, with few enough combinations, those values of the other \
         axes: one colour each){}. With more than {MAX_SERIES} combinations of the other \
         axes the bar is the mean over all of them and its error bar their spread.",
        if view.replicates > 1 {
            "; error bars are ±1 standard deviation over seeds and repetitions"
        } else {
            ""
        }
    ))];
    blocks.extend(axis_figs);
    Some(Section {
        title: "Metrics against each axis".into(),
        blocks,
    })
}

/// The labels of factor axis `k`'s values: an axis the device rounds is labelled with
/// what the cells got, so that two requests that became one device do not read as two
/// (docs/config.md, "Requested and actual values").
fn axis_labels(view: &View, k: usize, name: &str, cats: &[String]) -> Vec<String> {
    let actual_col = match name {
        "device.op_percent" => view.col("op_percent_actual"),
        "device.slc_cache_percent" => view.col("slc_cache_percent_actual"),
        _ => None,
    };
    cats.iter()
        .map(|cat| {
            let Some(ci) = actual_col else {
                return cat.clone();
            };
            let got: Vec<String> = distinct(
                view.cells
                    .iter()
                    .filter(|c| c.factors[k] == *cat)
                    .filter_map(|c| num(c.row, Some(ci)))
                    .map(crate::config::actual::fmt_pct),
            );
            match got.as_slice() {
                [one] if one == cat => cat.clone(),
                [] => cat.clone(),
                g => format!("{cat} (actual {})", g.join("/")),
            }
        })
        .collect()
}

/// The metrics against factor axis `k` (`name`): a series per combination of the other
/// axes when there are few enough, else one series of means over them.
fn axis_figures(view: &View, k: usize, name: &str) -> Vec<Block> {
    let spread_note = if view.replicates > 1 {
        "; bars ±1 s.d. over seeds"
    } else {
        ""
    };
    let cells = &view.cells;
    let cats: Vec<String> = distinct(cells.iter().map(|c| c.factors[k].clone()));
    let rest = |c: &CellView| -> Vec<String> {
        c.factors
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != k)
            .map(|(_, v)| v.clone())
            .collect()
    };
    let labels = axis_labels(view, k, name, &cats);
    let combos: Vec<Vec<String>> = distinct(cells.iter().map(rest));
    let others: Vec<&str> = view
        .factor_names
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != k)
        .map(|(_, n)| *n)
        .collect();
    let grouped = combos.len() <= MAX_SERIES;
    let mut figs = Vec::new();
    for (metric, what, y) in METRICS {
        if view.col(metric).is_none() {
            continue;
        }
        let mut series = Vec::new();
        let mut errors = Vec::new();
        if grouped {
            for combo in &combos {
                let (means, sds): (Vec<f64>, Vec<f64>) =
                    cats.iter()
                        .map(|cat| {
                            mean_sd(&view.metric_values(metric, &|c| {
                                c.factors[k] == *cat && rest(c) == *combo
                            }))
                        })
                        .unzip();
                let label = others
                    .iter()
                    .zip(combo)
                    .map(|(n, v)| format!("{n}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ");
                series.push((label, means));
                errors.push(sds);
            }
        } else {
            let (means, sds): (Vec<f64>, Vec<f64>) = cats
                .iter()
                .map(|cat| mean_sd(&view.metric_values(metric, &|c| c.factors[k] == *cat)))
                .unzip();
            series.push((String::new(), means));
            errors.push(sds);
        }
        let (title, y_label) = if grouped {
            (
                format!("{what} by {name}"),
                format!("{y} (mean{spread_note})"),
            )
        } else {
            (
                format!("{what} by {name} (mean over the other axes)"),
                format!("{y} (mean; bars ±1 s.d. over cells)"),
            )
        };
        figs.push(Block::Figure(svg::bar_chart_with_errors_svg(
            &title, &y_label, &labels, &series, &errors, false,
        )));
    }
    figs
}

/// Every design with its replicates' mean and spread.
fn designs_section(view: &View) -> Section {
    let mut columns: Vec<String> = view.factor_names.iter().map(|n| n.to_string()).collect();
    columns.push("cells".into());
    let metrics: Vec<&str> = METRICS
        .iter()
        .map(|m| m.0)
        .filter(|m| view.col(m).is_some())
        .collect();
    for m in &metrics {
        columns.push(format!("{m} mean"));
        columns.push(format!("{m} sd"));
    }
    let rows = view
        .designs()
        .iter()
        .map(|d| {
            let mut row = d.clone();
            row.push(
                view.cells
                    .iter()
                    .filter(|c| c.factors == *d)
                    .count()
                    .to_string(),
            );
            for m in &metrics {
                let (mean, sd) = mean_sd(&view.metric_values(m, &|c| c.factors == *d));
                row.push(fmt_plain(mean));
                row.push(fmt_plain(sd));
            }
            row
        })
        .collect();
    Section {
        title: "Designs".into(),
        blocks: vec![
            Block::Para(
                "Every design (cells that differ only by seed or repetition): mean and \
                 standard deviation over its cells that ran."
                    .into(),
            ),
            Block::Table { columns, rows },
        ],
    }
}

/// The cells of each value of each factor axis (one group when there is none).
fn groupings<'v>(view: &'v View) -> Vec<(String, Groups<'v>)> {
    let cells = &view.cells;
    if view.factor_names.is_empty() {
        vec![(
            "all cells".into(),
            vec![("all".into(), cells.iter().collect())],
        )]
    } else {
        view.factor_names
            .iter()
            .enumerate()
            .map(|(k, name)| {
                let cats = distinct(cells.iter().map(|c| c.factors[k].clone()));
                let groups = cats
                    .into_iter()
                    .map(|cat| {
                        let members = cells.iter().filter(|c| c.factors[k] == cat).collect();
                        (cat, members)
                    })
                    .collect();
                (name.to_string(), groups)
            })
            .collect()
    }
}

/// Distributions pooled per value of each factor axis: latency and throughput, and wear.
fn distribution_sections(view: &View) -> (Section, Section) {
    let mut lat = vec![Block::Para(
        "Per factor axis, one line per value with all its cells pooled (each cell weighted \
         equally): the latency CDF is the mixture of the cells' CDFs, throughput the mean \
         over the time every cell covers."
            .into(),
    )];
    let mut wear = vec![Block::Para(
        "Per factor axis, the distribution of erase counts over the blocks of all cells \
         with each value (share of blocks per erase count)."
            .into(),
    )];
    let all_erases = || {
        view.cells
            .iter()
            .filter_map(|c| c.figures)
            .flat_map(|f| f.erase_counts.iter())
    };
    let lo = all_erases().map(|e| u64::from(e.0)).min();
    let hi = all_erases().map(|e| u64::from(e.0)).max();
    for (name, groups) in &groupings(view) {
        lat.extend(latency_figures(name, groups));
        wear.push(erase_figure(name, groups, lo, hi));
    }
    (
        Section {
            title: "Latency and throughput".into(),
            blocks: lat,
        },
        Section {
            title: "Wear".into(),
            blocks: wear,
        },
    )
}

/// The pooled latency CDF and the mean throughput over time of each group.
fn latency_figures(name: &str, groups: &Groups) -> [Block; 2] {
    let cdfs: Vec<(String, Vec<(f64, f64)>)> = groups
        .iter()
        .map(|(v, members)| {
            let curves: Vec<&[(f64, f64)]> = members
                .iter()
                .filter_map(figs)
                .filter_map(|f| {
                    // The whole run when the report has it, else its first phase.
                    f.latency_cdf
                        .iter()
                        .find(|(p, _)| p == "all")
                        .or(f.latency_cdf.first())
                        .map(|(_, pts)| pts.as_slice())
                })
                .collect();
            let label = format!("{v} ({} cells)", curves.len());
            let pts = if curves.is_empty() {
                Vec::new()
            } else {
                pooled_cdf(&curves)
            };
            (label, pts)
        })
        .collect();
    let tput: Vec<(String, Vec<(f64, f64)>)> = groups
        .iter()
        .map(|(v, members)| {
            let curves: Vec<&[(f64, f64)]> = members
                .iter()
                .filter_map(figs)
                .map(|f| f.throughput.as_slice())
                .collect();
            (v.clone(), mean_curve(&curves))
        })
        .collect();
    [
        Block::Figure(svg::latency_cdf_svg(
            &cdfs,
            &format!("Latency CDF by {name}"),
        )),
        Block::Figure(svg::line_chart_svg(
            &format!("Throughput over time by {name} (mean over cells)"),
            "simulated time (s)",
            "throughput (MiB/s)",
            &tput,
            false,
        )),
    ]
}

/// The share of blocks per erase count of each group, binned over every cell's range
/// `lo..=hi`.
fn erase_figure(name: &str, groups: &Groups, lo: Option<u64>, hi: Option<u64>) -> Block {
    let title = format!("Erase counts per block by {name}");
    match (lo, hi) {
        (Some(lo), Some(hi)) if hi > 0 => {
            let span = hi - lo + 1;
            let width = span.div_ceil(ERASE_BINS).max(1);
            let nbins = span.div_ceil(width) as usize;
            let series: Vec<(String, Vec<(f64, f64)>)> = groups
                .iter()
                .map(|(v, members)| {
                    let mut bins = vec![0u64; nbins];
                    let mut max = 0u32;
                    for f in members.iter().filter_map(figs) {
                        for &(count, blocks) in &f.erase_counts {
                            bins[((u64::from(count) - lo) / width) as usize] += blocks;
                            max = max.max(count);
                        }
                    }
                    let total: u64 = bins.iter().sum();
                    let label = if total > 0 && max == 0 {
                        format!("{v} ({})", svg::NO_ERASES)
                    } else {
                        v.clone()
                    };
                    let pts = if total == 0 {
                        Vec::new()
                    } else {
                        bins.iter()
                            .enumerate()
                            .map(|(b, &n)| {
                                ((lo + b as u64 * width) as f64, n as f64 / total as f64)
                            })
                            .collect()
                    };
                    (label, pts)
                })
                .collect();
            let x_label = if width == 1 {
                "erase count".to_string()
            } else {
                format!("erase count (bins of {width}, by first value)")
            };
            Block::Figure(svg::line_chart_svg(
                &title,
                &x_label,
                "share of blocks",
                &series,
                false,
            ))
        }
        (Some(_), Some(_)) => Block::Figure(svg::note_svg(
            &title,
            &format!("{}: no block of any cell was erased", svg::NO_ERASES),
        )),
        _ => Block::Figure(svg::note_svg(&title, svg::NO_DATA)),
    }
}

/// Every cell's row of the table.
fn cells_section(table: &Table) -> Section {
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
    Section {
        title: "Cells".into(),
        blocks: vec![
            Block::Para("Click a column header to sort.".into()),
            Block::Table {
                columns: table.columns.clone(),
                rows,
            },
        ],
    }
}

/// The failed cells' errors; `None` when none failed.
fn failed_section(sweep: &Sweep) -> Option<Section> {
    let errors: Vec<String> = sweep
        .plan
        .cells
        .iter()
        .filter_map(|c| {
            let r = sweep.store.get(&c.spec.key)?;
            r.error
                .as_ref()
                .map(|e| format!("cell {}: {e}", c.index + 1))
        })
        .collect();
    if errors.is_empty() {
        return None;
    }
    Some(Section {
        title: "Failed cells".into(),
        blocks: vec![Block::Pre(errors.join("\n"))],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooled_cdf_is_the_mean_of_the_cells_cdfs() {
        let a = [(1.0, 0.5), (2.0, 1.0)];
        let b = [(3.0, 1.0)];
        let p = pooled_cdf(&[&a, &b]);
        assert_eq!(p, vec![(1.0, 0.25), (2.0, 0.5), (3.0, 1.0)]);
    }

    #[test]
    fn mean_curve_covers_the_common_time_only() {
        let a = [(0.0, 10.0), (2.0, 10.0)];
        let b = [(0.0, 20.0), (1.0, 20.0)];
        let m = mean_curve(&[&a, &b]);
        assert_eq!(m.first(), Some(&(0.0, 15.0)));
        assert_eq!(m.last(), Some(&(1.0, 15.0)));
    }

    #[test]
    fn mean_sd_uses_the_sample_deviation() {
        let (m, s) = mean_sd(&[1.0, 3.0]);
        assert_eq!(m, 2.0);
        assert!((s - 2f64.sqrt()).abs() < 1e-12);
        assert!(mean_sd(&[5.0]).1.is_nan());
    }
}
