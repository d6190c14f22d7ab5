//! SVG figures drawn with plotters: latency CDF, throughput over time, erase-count
//! histogram, and the generic line and bar charts later experiments reuse.
//!
//! Text is emitted as SVG `<text>` elements (plotters' SVG backend) and laid out with
//! plotters' built-in font-free size estimate, so rendering needs no font files and no C
//! library. Every function returns a complete SVG document and never panics: data that
//! cannot be charted (no points, only non-finite values, non-positive values on a log
//! axis) yields a chart-sized SVG with the title and a "no data" note. Output depends
//! only on the input, so the same data give byte-identical files.

use super::Figures;
use super::numfmt::fmt_si;
use super::output::write_string_atomically;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{
    AsRangedCoord, DefaultFormatting, KeyPointHint, Ranged, ValueFormatter,
};
use plotters::prelude::*;
use plotters::style::FontTransform;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Figure size in pixels.
const SIZE: (u32, u32) = (800, 500);
/// Series with at most this many points also get a dot per point, so sparse data
/// (a single point, a handful of configurations) stay visible.
const MARKER_MAX_POINTS: usize = 40;
/// The note drawn in place of a chart without data.
pub const NO_DATA: &str = "no data";

/// Tableau-10: distinguishable, colour-blind-friendlier than plotters' default palette.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

const FONT: &str = "sans-serif";

type DrawResult = Result<(), Box<dyn std::error::Error>>;
type Root<'a> = DrawingArea<SVGBackend<'a>, Shift>;

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Minimal XML text escaping for the hand-written fallback document.
fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Last resort when plotters itself fails: a plain SVG with the title and the message.
fn fallback_svg(title: &str, message: &str) -> String {
    let (w, h) = SIZE;
    format!(
        concat!(
            "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" ",
            "xmlns=\"http://www.w3.org/2000/svg\">\n",
            "<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#FFFFFF\"/>\n",
            "<text x=\"{cx}\" y=\"30\" text-anchor=\"middle\" font-family=\"sans-serif\" ",
            "font-size=\"18\">{title}</text>\n",
            "<text x=\"{cx}\" y=\"{cy}\" text-anchor=\"middle\" font-family=\"sans-serif\" ",
            "font-size=\"16\">{message}</text>\n",
            "</svg>\n"
        ),
        w = w,
        h = h,
        cx = w / 2,
        cy = h / 2,
        title = xml_escape(title),
        message = xml_escape(message)
    )
}

/// Runs `draw` on a fresh SVG canvas of `size`; on a drawing error, falls back to a
/// message SVG so callers always get a document.
fn render(title: &str, size: (u32, u32), draw: impl FnOnce(&Root) -> DrawResult) -> String {
    let mut buf = String::new();
    let result = {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        let r = root
            .fill(&WHITE)
            .map_err(Into::into)
            .and_then(|_| draw(&root));
        r.and_then(|_| root.present().map_err(Into::into))
    };
    match result {
        Ok(()) => buf,
        Err(e) => message_svg(title, &format!("chart could not be drawn: {e}")),
    }
}

/// Nominal size of titles (plotters writes `font-size` as size / 1.24).
const TITLE_FONT: f64 = 22.0;
/// Nominal size of legend entries and category labels.
const LABEL_FONT: f64 = 15.0;
/// Height of one legend row in pixels.
const LEGEND_ROW: u32 = 20;
/// Pixels left and right of a title line.
const TITLE_MARGIN: f64 = 16.0;

/// The rendered width in pixels of `s` at nominal size `size`, estimated without font
/// files: 0.62 em per character is above the mean advance of common sans-serif faces
/// (about 0.5 em for mixed text), so text laid out with it fits once a browser draws it.
fn text_px(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size / 1.24 * 0.62
}

/// `text` broken at spaces into lines no wider than `max_px` at `size`; a word wider
/// than a line is cut into pieces that fit (nothing is dropped).
fn wrap(text: &str, max_px: f64, size: f64) -> Vec<String> {
    let per_line = ((max_px / text_px("x", size)).floor() as usize).max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        let cand = if cur.is_empty() {
            word.to_string()
        } else {
            format!("{cur} {word}")
        };
        if cur.is_empty() || text_px(&cand, size) <= max_px {
            cur = cand;
        } else {
            lines.push(std::mem::replace(&mut cur, word.to_string()));
        }
    }
    lines.push(cur);
    lines
        .into_iter()
        .flat_map(|l| {
            let chars: Vec<char> = l.chars().collect();
            chars
                .chunks(per_line)
                .map(|c| c.iter().collect::<String>())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The title's lines and font size for a figure `width` wide: one line at 22 when it
/// fits, else wrapped at 22, or at 18 when 22 would take more than two lines.
fn title_lines(title: &str, width: u32) -> (Vec<String>, f64) {
    let max_px = f64::from(width) - 2.0 * TITLE_MARGIN;
    let lines = wrap(title, max_px, TITLE_FONT);
    if lines.len() <= 2 {
        return (lines, TITLE_FONT);
    }
    (wrap(title, max_px, 18.0), 18.0)
}

/// Draws `title` centred at the top of `area`, wrapped to its width (never clipped),
/// and returns the area below it.
fn titled<'a>(
    area: &DrawingArea<SVGBackend<'a>, Shift>,
    title: &str,
) -> Result<DrawingArea<SVGBackend<'a>, Shift>, Box<dyn std::error::Error>> {
    let (w, _) = area.dim_in_pixel();
    let (lines, size) = title_lines(title, w);
    let line_h = (size * 1.15).ceil() as i32;
    let height = 10 + line_h * lines.len() as i32 + 6;
    let (top, rest) = area.split_vertically(height);
    let style = TextStyle::from((FONT, size)).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, line) in lines.iter().enumerate() {
        top.draw(&Text::new(
            line.clone(),
            (w as i32 / 2, 10 + line_h * i as i32),
            style.clone(),
        ))?;
    }
    Ok(rest)
}

/// One legend entry: name, colour, and whether its swatch is a bar (else a line).
type LegendEntry = (String, RGBColor, bool);

/// Where legend entries go in a band under the chart: columns, column width, height.
struct LegendLayout {
    cols: usize,
    col_w: f64,
    height: u32,
}

fn legend_layout(entries: &[LegendEntry], width: u32) -> LegendLayout {
    if entries.is_empty() {
        return LegendLayout {
            cols: 1,
            col_w: 0.0,
            height: 0,
        };
    }
    let avail = f64::from(width) - 30.0;
    let widest = entries
        .iter()
        .map(|(n, _, _)| text_px(n, LABEL_FONT))
        .fold(0.0, f64::max);
    let entry_w = 30.0 + widest + 16.0;
    let cols = ((avail / entry_w).floor() as usize).clamp(1, entries.len());
    let rows = entries.len().div_ceil(cols) as u32;
    LegendLayout {
        cols,
        col_w: avail / cols as f64,
        height: rows * LEGEND_ROW + 12,
    }
}

/// A legend entry's name cut to fit `max_px` (only for names wider than the figure).
fn fit(name: &str, max_px: f64) -> String {
    if text_px(name, LABEL_FONT) <= max_px {
        return name.to_string();
    }
    let keep = ((max_px / text_px("x", LABEL_FONT)) as usize).saturating_sub(1);
    let mut s: String = name.chars().take(keep).collect();
    s.push('…');
    s
}

/// Draws the legend in its own band below the plot, so it never covers data.
fn draw_legend(area: &Root, entries: &[LegendEntry], layout: &LegendLayout) -> DrawResult {
    let style = TextStyle::from((FONT, LABEL_FONT)).pos(Pos::new(HPos::Left, VPos::Center));
    for (k, (name, c, bar)) in entries.iter().enumerate() {
        let (col, row) = (k % layout.cols, k / layout.cols);
        let x = 15 + (col as f64 * layout.col_w) as i32;
        let y = 6 + (row as u32 * LEGEND_ROW + LEGEND_ROW / 2) as i32;
        if *bar {
            area.draw(&Rectangle::new([(x, y - 6), (x + 14, y + 6)], c.filled()))?;
        } else {
            area.draw(&PathElement::new(
                vec![(x, y), (x + 22, y)],
                c.stroke_width(2),
            ))?;
        }
        area.draw(&Text::new(
            fit(name, layout.col_w - 46.0),
            (x + 28, y),
            style.clone(),
        ))?;
    }
    Ok(())
}

/// A chart-sized SVG with `title` and `message` centred (used for "no data").
fn message_svg(title: &str, message: &str) -> String {
    let mut buf = String::new();
    let result: DrawResult = (|| {
        let root = SVGBackend::with_string(&mut buf, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let area = titled(&root, title)?;
        let (w, h) = area.dim_in_pixel();
        let lines = wrap(message, f64::from(w) - 40.0, 20.0);
        let style = TextStyle::from((FONT, 20))
            .color(&RGBColor(110, 110, 110))
            .pos(Pos::new(HPos::Center, VPos::Center));
        let top = h as i32 / 2 - 12 * (lines.len() as i32 - 1);
        for (i, l) in lines.iter().enumerate() {
            area.draw(&Text::new(
                l.clone(),
                (w as i32 / 2, top + 24 * i as i32),
                style.clone(),
            ))?;
        }
        root.present()?;
        Ok(())
    })();
    match result {
        Ok(()) => buf,
        Err(_) => fallback_svg(title, message),
    }
}

/// A figure-sized SVG holding only `title` and a centred note (e.g. "no erases").
pub fn note_svg(title: &str, message: &str) -> String {
    message_svg(title, message)
}

/// Options of the shared line-chart renderer.
struct LineSpec<'a> {
    title: &'a str,
    x_label: &'a str,
    y_label: &'a str,
    log_x: bool,
    /// Fixed y range (a CDF's 0–1); otherwise from the data, including 0.
    y_fixed: Option<Range<f64>>,
    x_fmt: &'a dyn Fn(f64) -> String,
}

/// Drops points a chart cannot place: non-finite coordinates, and x ≤ 0 on a log axis.
fn clean_series(
    series: &[(String, Vec<(f64, f64)>)],
    log_x: bool,
) -> Vec<(String, Vec<(f64, f64)>)> {
    series
        .iter()
        .map(|(name, pts)| {
            let kept = pts
                .iter()
                .copied()
                .filter(|(x, y)| x.is_finite() && y.is_finite() && (!log_x || *x > 0.0))
                .collect();
            (name.clone(), kept)
        })
        .collect()
}

fn min_max(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// A y range that includes 0 (bars and rates read against zero), with 5 % headroom,
/// and is never empty (all-zero data get 0–1).
fn value_range(lo: f64, hi: f64) -> Range<f64> {
    let (lo, hi) = (lo.min(0.0), hi.max(0.0));
    if hi - lo <= 0.0 {
        return 0.0..1.0;
    }
    let pad = (hi - lo) * 0.05;
    let lo = if lo < 0.0 { lo - pad } else { lo };
    let hi = if hi > 0.0 { hi + pad } else { hi };
    lo..hi
}

/// A linear x range over the data, widened around a single value.
fn linear_range(lo: f64, hi: f64) -> Range<f64> {
    if hi > lo {
        return lo..hi;
    }
    let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
    lo - pad..hi + pad
}

/// A log x range widened to whole decades, so the axis always has labelled powers of
/// ten (plotters labels only those) and a single value still gets a visible span.
fn decade_range(lo: f64, hi: f64) -> Range<f64> {
    // hdrhistogram reports a bucket's upper edge, slightly above the true value; the
    // tolerance keeps a maximum of "10 ms" from opening a whole extra decade (the
    // point then sits a sub-pixel past the axis end).
    const TOLERANCE: f64 = 0.001; // in log10 units: 0.23 %
    let lo = 10f64.powf(lo.log10().floor());
    let mut hi = 10f64.powf((hi.log10() - TOLERANCE).ceil());
    if hi <= lo {
        hi = lo * 10.0;
    }
    lo..hi
}

fn line_chart(spec: &LineSpec, series: &[(String, Vec<(f64, f64)>)]) -> String {
    let series = clean_series(series, spec.log_x);
    let all = || series.iter().flat_map(|(_, p)| p.iter().copied());
    let (Some((x_lo, x_hi)), Some((y_lo, y_hi))) =
        (min_max(all().map(|p| p.0)), min_max(all().map(|p| p.1)))
    else {
        return message_svg(spec.title, NO_DATA);
    };
    let y_range = spec
        .y_fixed
        .clone()
        .unwrap_or_else(|| value_range(y_lo, y_hi));
    let entries: Vec<LegendEntry> = series
        .iter()
        .enumerate()
        .filter(|(_, (n, _))| !n.is_empty())
        .map(|(i, (n, pts))| {
            let label = if pts.is_empty() {
                format!("{n} ({NO_DATA})")
            } else {
                n.clone()
            };
            (label, color(i), false)
        })
        .collect();
    let layout = legend_layout(&entries, SIZE.0);
    render(spec.title, (SIZE.0, SIZE.1 + layout.height), |root| {
        let (main, legend) = root.split_vertically(SIZE.1);
        draw_legend(&legend, &entries, &layout)?;
        let plot = titled(&main, spec.title)?;
        if spec.log_x {
            let x = decade_range(x_lo, x_hi).log_scale();
            draw_lines(&plot, spec, &series, x, y_range)
        } else {
            let x = linear_range(x_lo, x_hi);
            // fmt_si keeps three decimals: ticks closer than that (a run of a
            // millisecond) would all read "0.001"; give them the digits they need.
            let step = (x.end - x.start) / 8.0;
            let decimals = (-step.log10()).ceil() as usize;
            let fine = |v: f64| {
                let mut t = format!("{v:.decimals$}");
                while t.contains('.') && (t.ends_with('0') || t.ends_with('.')) {
                    t.pop();
                }
                t
            };
            let fine_spec = LineSpec {
                x_fmt: &fine,
                y_fixed: spec.y_fixed.clone(),
                ..*spec
            };
            let small = step < 0.001 && x.start.abs().max(x.end.abs()) < 1000.0;
            draw_lines(
                &plot,
                if small { &fine_spec } else { spec },
                &series,
                x,
                y_range,
            )
        }
    })
}

fn draw_lines<X>(
    root: &Root,
    spec: &LineSpec,
    series: &[(String, Vec<(f64, f64)>)],
    x_range: X,
    y_range: Range<f64>,
) -> DrawResult
where
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(root)
        .margin(15)
        .margin_top(4)
        // Room for the last x tick label, which is centred on the axis end.
        .margin_right(30)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x_range, y_range)?;
    chart
        .configure_mesh()
        .x_desc(spec.x_label)
        .y_desc(spec.y_label)
        // Compact SI ticks are at most ~6 characters: 8 of them never touch.
        .x_labels(8)
        .x_label_formatter(&|v| (spec.x_fmt)(*v))
        .y_label_formatter(&|v| fmt_si(*v))
        .light_line_style(RGBColor(238, 238, 238))
        .max_light_lines(4)
        .draw()?;
    for (i, (_, pts)) in series.iter().enumerate() {
        let c = color(i);
        chart.draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))?;
        if pts.len() <= MARKER_MAX_POINTS {
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
        }
    }
    Ok(())
}

/// A line chart with one line per `(name, points)` series and a legend of the non-empty
/// names; `log_x` puts x on a log scale (points with x ≤ 0 are then dropped). Axis ticks
/// use compact SI numbers (`1.5k`, `2M`).
pub fn line_chart_svg(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
    log_x: bool,
) -> String {
    let spec = LineSpec {
        title,
        x_label,
        y_label,
        log_x,
        y_fixed: None,
        x_fmt: &fmt_si,
    };
    line_chart(&spec, series)
}

/// An axis tick for a duration in µs, in a fitting unit: `500 ns`, `20 µs`, `1.5 ms`, `2 s`.
fn fmt_tick_us(us: f64) -> String {
    let a = us.abs();
    let (v, unit) = if a >= 1e6 {
        (us / 1e6, "s")
    } else if a >= 1e3 {
        (us / 1e3, "ms")
    } else if a >= 1.0 || a == 0.0 {
        (us, "µs")
    } else {
        (us * 1e3, "ns")
    };
    format!("{} {unit}", fmt_si(v))
}

/// Latency CDFs, one line per `(name, points)` series with a legend. Points are
/// `(latency ns, cumulative fraction)` as produced by
/// [`super::latency::cdf_points`]; the x axis shows latency in µs on a log scale, y
/// runs from 0 to 1.
pub fn latency_cdf_svg(series: &[(String, Vec<(f64, f64)>)], title: &str) -> String {
    let us: Vec<(String, Vec<(f64, f64)>)> = series
        .iter()
        .map(|(n, pts)| (n.clone(), pts.iter().map(|&(x, y)| (x / 1e3, y)).collect()))
        .collect();
    let spec = LineSpec {
        title,
        x_label: "latency (µs, log scale)",
        y_label: "fraction of requests ≤ latency",
        log_x: true,
        y_fixed: Some(0.0..1.0),
        x_fmt: &fmt_tick_us,
    };
    line_chart(&spec, &us)
}

/// Throughput over simulated time: points are `(seconds, MiB/s)`.
pub fn throughput_svg(points: &[(f64, f64)], title: &str) -> String {
    let spec = LineSpec {
        title,
        x_label: "simulated time (s)",
        y_label: "throughput (MiB/s)",
        log_x: false,
        y_fixed: None,
        x_fmt: &fmt_si,
    };
    line_chart(&spec, &[(String::new(), points.to_vec())])
}

/// Histogram bins of erase counts: `(first value, bin width, blocks per bin)`.
///
/// One bin per distinct value while the values span at most 50; beyond that about
/// √n bins (between 10 and 50) of equal integer width, so bins stay readable and
/// every bin covers the same number of erase counts.
fn erase_bins(counts: &[u32]) -> Option<(u64, u64, Vec<u64>)> {
    let (lo, hi) = (
        u64::from(*counts.iter().min()?),
        u64::from(*counts.iter().max()?),
    );
    let span = hi - lo + 1;
    let width = if span <= 50 {
        1
    } else {
        let target = ((counts.len() as f64).sqrt().ceil() as u64).clamp(10, 50);
        span.div_ceil(target)
    };
    let mut bins = vec![0u64; span.div_ceil(width) as usize];
    for &c in counts {
        bins[((u64::from(c) - lo) / width) as usize] += 1;
    }
    Some((lo, width, bins))
}

/// What an erase histogram says when no block was ever erased (one bar of every block
/// at 0 would fill the chart and tell nothing).
pub fn no_erases_note(blocks: usize) -> String {
    format!("{NO_ERASES}: all {blocks} blocks have erase count 0")
}

/// The note of a chart of erase counts when nothing was erased.
pub const NO_ERASES: &str = "no erases";

/// Histogram of per-block erase counts (x: erase count, y: blocks) with automatic
/// binning: one bar per value for narrow spreads, ~√n equal-width bins otherwise. A run
/// that erased nothing gets the note "no erases" instead of a single full bar.
pub fn erase_histogram_svg(erase_counts: &[u32], title: &str) -> String {
    let Some((lo, width, bins)) = erase_bins(erase_counts) else {
        return message_svg(title, NO_DATA);
    };
    if erase_counts.iter().all(|&c| c == 0) {
        return message_svg(title, &no_erases_note(erase_counts.len()));
    }
    let x_desc = if width == 1 {
        "erase count".to_string()
    } else {
        format!("erase count (bins of {width})")
    };
    let peak = bins.iter().copied().max().unwrap_or(0) as f64;
    // Bars are centred on the values they count: bin [a, a+w-1] spans a-0.5 .. a+w-0.5.
    let x0 = lo as f64 - 0.5;
    let x1 = x0 + (bins.len() as u64 * width) as f64;
    render(title, SIZE, |root| {
        let plot = titled(root, title)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(15)
            .margin_top(4)
            .margin_right(30)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1, value_range(0.0, peak))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc(x_desc.as_str())
            .y_desc("blocks")
            // Only whole erase counts are meaningful ticks.
            .x_label_formatter(&|v| {
                if (v - v.round()).abs() < 1e-9 {
                    fmt_si(*v)
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|v| fmt_si(*v))
            .light_line_style(RGBColor(238, 238, 238))
            .max_light_lines(4)
            .draw()?;
        let c = color(0);
        chart.draw_series(
            bins.iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(|(i, &n)| {
                    let a = x0 + (i as u64 * width) as f64;
                    let mut r =
                        Rectangle::new([(a, 0.0), (a + width as f64, n as f64)], c.filled());
                    // A pixel of air between adjacent bars keeps them countable.
                    r.set_margin(0, 0, 0, 1);
                    r
                }),
        )?;
        Ok(())
    })
}

/// An x axis of `n` categories at 0, 1, …, n−1, each owning the unit slot around it, with
/// ticks only at the category centres (plotters' numeric axes would tick at "nice"
/// fractional values instead).
#[derive(Clone)]
struct CategoryAxis {
    n: usize,
}

impl Ranged for CategoryAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let r = self.range();
        let t = (value - r.start) / (r.end - r.start);
        limit.0 + (f64::from(limit.1 - limit.0) * t).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        let max = hint.max_num_points();
        if max == 0 || self.n == 0 {
            return Vec::new();
        }
        let stride = self.n.div_ceil(max);
        (0..self.n).step_by(stride).map(|i| i as f64).collect()
    }

    fn range(&self) -> Range<f64> {
        -0.5..self.n.max(1) as f64 - 0.5
    }
}

/// A bar chart over `categories`: for each category one bar per `(name, values)` series
/// side by side, or, with `stacked`, the series stacked into one bar (positive values
/// upward from 0, negative downward; e.g. I/O vs GC time per design). `values[i]`
/// belongs to `categories[i]`; missing and non-finite values draw no bar. A legend
/// under the chart names the series.
pub fn bar_chart_svg(
    title: &str,
    y_label: &str,
    categories: &[String],
    series: &[(String, Vec<f64>)],
    stacked: bool,
) -> String {
    bar_chart_with_errors_svg(title, y_label, categories, series, &[], stacked)
}

/// Widest category label drawn (longer ones end in "…"); the label band grows with the
/// labels up to this, and so does the figure's height.
const CATEGORY_LABEL_MAX_PX: f64 = 260.0;

/// [`bar_chart_svg`] with error bars: `errors[j][i]` is the half-length of the bar
/// drawn over series `j`'s bar of category `i` (e.g. one standard deviation over
/// seeds); missing, non-finite or zero entries draw none. Stacked bars get none.
///
/// Category labels are written level when they fit their slot, else turned upright
/// (reading upward, ending at the tick) in a band as deep as the longest label, so
/// neighbours never overlap.
pub fn bar_chart_with_errors_svg(
    title: &str,
    y_label: &str,
    categories: &[String],
    series: &[(String, Vec<f64>)],
    errors: &[Vec<f64>],
    stacked: bool,
) -> String {
    let n = categories.len();
    let bars = Bars {
        series,
        errors,
        stacked,
        n,
    };
    if bars.values().next().is_none() {
        return message_svg(title, NO_DATA);
    }
    let (lo, hi) = bars.y_extent();
    let labels = CategoryLabels::new(categories);
    let (upright, shown) = (labels.upright, &labels.shown);
    let main_h = SIZE.1 + labels.band.saturating_sub(45);
    let entries: Vec<LegendEntry> = series
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.0.is_empty())
        .map(|(j, s)| (s.0.clone(), color(j), true))
        .collect();
    let layout = legend_layout(&entries, SIZE.0);
    render(title, (SIZE.0, main_h + layout.height), |root| {
        let (main, legend) = root.split_vertically(main_h);
        draw_legend(&legend, &entries, &layout)?;
        let plot = titled(&main, title)?;
        let y_range = value_range(lo, hi);
        let y_base = y_range.start;
        let mut chart = ChartBuilder::on(&plot)
            .margin(15)
            .margin_top(4)
            .margin_right(30)
            .x_label_area_size(labels.band)
            .y_label_area_size(70)
            .build_cartesian_2d(CategoryAxis { n }, y_range)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .y_desc(y_label)
            .x_label_style((FONT, LABEL_FONT))
            .x_label_formatter(&|v| {
                let i = v.round();
                if !upright && i >= 0.0 && (i as usize) < n && (v - i).abs() < 1e-9 {
                    shown[i as usize].clone()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|v| fmt_si(*v))
            .light_line_style(RGBColor(238, 238, 238))
            .max_light_lines(4)
            .draw()?;
        if upright {
            // Upright labels ending just under their tick (plotters' own x labels are
            // always level and centred).
            let base = plot.get_base_pixel();
            let style = TextStyle::from((FONT, LABEL_FONT))
                .pos(Pos::new(HPos::Right, VPos::Center))
                .transform(FontTransform::Rotate270);
            for (i, label) in shown.iter().enumerate() {
                let (x, y) = chart.backend_coord(&(i as f64, y_base));
                plot.draw_text(label, &style, (x - base.0, y - base.1 + 8))?;
            }
        }
        for (rects, whiskers) in bars.shapes() {
            chart.draw_series(rects)?;
            chart.draw_series(whiskers)?;
        }
        Ok(())
    })
}

/// The data of a bar chart ([`bar_chart_with_errors_svg`]): `n` categories, the series'
/// values and their error bars.
struct Bars<'a> {
    series: &'a [(String, Vec<f64>)],
    errors: &'a [Vec<f64>],
    stacked: bool,
    n: usize,
}

/// One series' bars and error-bar strokes, in plot coordinates.
type SeriesShapes = (Vec<Rectangle<(f64, f64)>>, Vec<PathElement<(f64, f64)>>);

impl Bars<'_> {
    /// Series `j`'s value for category `i`, when finite.
    fn value(&self, j: usize, i: usize) -> Option<f64> {
        self.series[j].1.get(i).copied().filter(|v| v.is_finite())
    }

    /// The half-length of the error bar over series `j`'s bar of category `i`, if one
    /// is drawn (stacked bars get none).
    fn error(&self, j: usize, i: usize) -> Option<f64> {
        self.errors
            .get(j)
            .and_then(|e| e.get(i))
            .copied()
            .filter(|e| e.is_finite() && *e > 0.0 && !self.stacked)
    }

    /// Every finite value.
    fn values(&self) -> impl Iterator<Item = f64> + '_ {
        (0..self.series.len()).flat_map(move |j| (0..self.n).filter_map(move |i| self.value(j, i)))
    }

    /// The y range must cover the stacks' totals and the error bars, not just values.
    fn y_extent(&self) -> (f64, f64) {
        let (n, m) = (self.n, self.series.len());
        if self.stacked {
            (0..n).fold((0.0f64, 0.0f64), |(lo, hi), i| {
                let (neg, pos) =
                    (0..m)
                        .filter_map(|j| self.value(j, i))
                        .fold(
                            (0.0, 0.0),
                            |(n, p), v| {
                                if v < 0.0 { (n + v, p) } else { (n, p + v) }
                            },
                        );
                (lo.min(neg), hi.max(pos))
            })
        } else {
            let ends = (0..m).flat_map(|j| {
                (0..n).flat_map(move |i| {
                    self.value(j, i).map_or(vec![], |v| {
                        let e = self.error(j, i).unwrap_or(0.0);
                        vec![v - e, v + e]
                    })
                })
            });
            min_max(ends).unwrap_or((0.0, 0.0))
        }
    }

    /// Each series' bars and error bars, series by series: side by side in 80 % of a
    /// category's slot, or stacked (negative values below 0, positive above).
    fn shapes(&self) -> Vec<SeriesShapes> {
        let n = self.n;
        let m = self.series.len().max(1);
        let mut neg_base = vec![0.0f64; n];
        let mut pos_base = vec![0.0f64; n];
        let ink = RGBColor(40, 40, 40);
        let mut out = Vec::with_capacity(self.series.len());
        for j in 0..self.series.len() {
            let c = color(j);
            let mut bars = Vec::new();
            let mut whiskers = Vec::new();
            for i in 0..n {
                let Some(v) = self.value(j, i) else { continue };
                let centre = i as f64;
                let (x0, x1, y0, y1) = if self.stacked {
                    let base = if v < 0.0 {
                        &mut neg_base[i]
                    } else {
                        &mut pos_base[i]
                    };
                    let y0 = *base;
                    *base += v;
                    (centre - 0.3, centre + 0.3, y0, *base)
                } else {
                    // The group fills 80 % of the slot, leaving a gap between categories.
                    let w = 0.8 / m as f64;
                    let x0 = centre - 0.4 + j as f64 * w;
                    (x0, x0 + w, 0.0, v)
                };
                let mut r = Rectangle::new([(x0, y0), (x1, y1)], c.filled());
                r.set_margin(0, 0, 0, 1);
                bars.push(r);
                if let Some(e) = self.error(j, i) {
                    let (mid, cap) = ((x0 + x1) / 2.0, (x1 - x0) / 4.0);
                    whiskers.push(PathElement::new(
                        vec![(mid, v - e), (mid, v + e)],
                        ink.stroke_width(1),
                    ));
                    for end in [v - e, v + e] {
                        whiskers.push(PathElement::new(
                            vec![(mid - cap, end), (mid + cap, end)],
                            ink.stroke_width(1),
                        ));
                    }
                }
            }
            out.push((bars, whiskers));
        }
        out
    }
}

/// How a bar chart's category labels are written: level when each fits its slot of the
/// plot's width, else upright (cut to [`CATEGORY_LABEL_MAX_PX`]) in a band as deep as
/// the longest.
struct CategoryLabels {
    upright: bool,
    /// The labels as drawn.
    shown: Vec<String>,
    /// Height of the x label area, px.
    band: u32,
}

impl CategoryLabels {
    fn new(categories: &[String]) -> CategoryLabels {
        let n = categories.len();
        let plot_w = f64::from(SIZE.0) - 15.0 - 30.0 - 70.0;
        let widest = categories
            .iter()
            .map(|c| text_px(c, LABEL_FONT))
            .fold(0.0, f64::max);
        let upright = n > 0 && widest + 10.0 > plot_w / n as f64;
        let shown: Vec<String> = categories
            .iter()
            .map(|c| {
                if upright {
                    fit(c, CATEGORY_LABEL_MAX_PX)
                } else {
                    c.clone()
                }
            })
            .collect();
        let band = if upright {
            (widest.min(CATEGORY_LABEL_MAX_PX) + 16.0).ceil() as u32
        } else {
            45
        };
        CategoryLabels {
            upright,
            shown,
            band,
        }
    }
}

/// The figures of one design as (file name, SVG): `latency_cdf.svg`, `throughput.svg`,
/// `erase_histogram.svg` and, after a probe, `probe.svg`. A non-empty `name_prefix` is
/// prepended with an underscore (`dftl_latency_cdf.svg`) and shown in the titles, so
/// several designs can share one directory.
pub fn figure_files(name_prefix: &str, figures: &Figures) -> Vec<(String, String)> {
    let (file_prefix, title_suffix) = if name_prefix.is_empty() {
        (String::new(), String::new())
    } else {
        (format!("{name_prefix}_"), format!(" — {name_prefix}"))
    };
    let mut docs = vec![
        (
            "latency_cdf.svg",
            latency_cdf_svg(&figures.latency_cdf, &format!("Latency CDF{title_suffix}")),
        ),
        (
            "throughput.svg",
            throughput_svg(
                &figures.throughput_series,
                &format!("Throughput{title_suffix}"),
            ),
        ),
        (
            "erase_histogram.svg",
            erase_histogram_svg(
                &figures.erase_counts,
                &format!("Erase counts per block{title_suffix}"),
            ),
        ),
    ];
    if !figures.probe_latency.is_empty() {
        docs.push((
            "probe.svg",
            line_chart_svg(
                &format!("Management-block probe: write latency vs offset{title_suffix}"),
                "offset in partition (KiB)",
                "latency (µs)",
                &figures.probe_latency,
                false,
            ),
        ));
    }
    docs.into_iter()
        .map(|(name, svg)| (format!("{file_prefix}{name}"), svg))
        .collect()
}

/// Writes [`figure_files`] into `dir` (created if missing), each atomically, and returns
/// their paths in that order.
pub fn write_figures(dir: &Path, name_prefix: &str, figures: &Figures) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let docs = figure_files(name_prefix, figures);
    let mut paths = Vec::with_capacity(docs.len());
    for (name, svg) in docs {
        let path = dir.join(name);
        write_string_atomically(&path, &svg)?;
        paths.push(path);
    }
    Ok(paths)
}
