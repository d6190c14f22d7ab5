//! One self-contained HTML page for `run`, `sweep` and `reproduce` (`--html DIR` writes
//! `DIR/index.html`): the figures inline as SVG (drawn by [`super::svg`]), sortable
//! tables, Markdown rendered as HTML, notes, and the exact command that produced it. No
//! external file, font, script or network: it opens offline, from a mail attachment or a
//! CI artefact.
//!
//! The page is an askama template (`templates/page.html`), compiled into the binary and
//! checked when ssdlab builds: a field the template names but the view lacks is a build
//! error, not a broken page, and every value is HTML-escaped unless marked `safe` (only
//! our own SVG and the Markdown renderer's output are). Markdown (an experiment's
//! `summary.md`) is rendered by pulldown-cmark with tables; raw HTML inside it is shown
//! as text, never passed through.
//!
//! The only script sorts a table when its header is clicked (numbers as numbers, empty
//! cells last); the page reads fine without it.

use super::output::{Batch, Content, Dest, OutputPath};
use super::{Figures, Report};
use askama::Template;

/// File name of the page inside the `--html` directory.
pub const PAGE_FILE: &str = "index.html";

/// A block of a section.
#[derive(Clone, Debug)]
pub enum Block {
    /// An SVG figure (markup from [`super::svg`]).
    Figure(String),
    /// A table. A column named `label` (the claims registry's verdicts) has its cells
    /// coloured by label.
    Table {
        /// Column names.
        columns: Vec<String>,
        /// Rows of cell text.
        rows: Vec<Vec<String>>,
    },
    /// Preformatted text (a list of warnings).
    Pre(String),
    /// A paragraph of plain text.
    Para(String),
    /// Markdown (a `summary.md`), rendered as HTML; tables become sortable tables.
    Markdown(String),
    /// Links as (relative address, text): the result files beside the page.
    Links(Vec<(String, String)>),
}

/// A titled part of the page.
#[derive(Clone, Debug)]
pub struct Section {
    /// Heading.
    pub title: String,
    /// Content in order.
    pub blocks: Vec<Block>,
}

/// A whole page.
#[derive(Clone, Debug)]
pub struct Page {
    /// Title (also the `<h1>`).
    pub title: String,
    /// The command that produced the results, as typed.
    pub command: String,
    /// Sections in order.
    pub sections: Vec<Section>,
}

/// Escapes text for HTML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The command line of this process, quoted for a POSIX shell where needed.
pub fn command_line() -> String {
    std::env::args()
        .map(|a| shell_quote(&a))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `a` as a shell word: bare when it is made of safe characters, else single-quoted.
pub fn shell_quote(a: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c);
    if !a.is_empty() && a.chars().all(safe) {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

/// Drops an XML prolog, so the SVG can sit inside HTML.
fn inline_svg(svg: &str) -> &str {
    let s = svg.trim_start();
    if s.starts_with("<?xml") {
        s.find("?>").map_or(s, |i| s[i + 2..].trim_start())
    } else {
        s
    }
}

/// Whether a table cell is text (left-aligned) rather than a number.
fn is_text(s: &str) -> bool {
    !s.is_empty() && s.parse::<f64>().is_err()
}

/// The CSS class of a claims-registry label (`not evaluable` → `lbl-not-evaluable`), for
/// the words of the labels `experiments::registry` gives; `None` for any other text.
pub fn label_class(word: &str) -> Option<String> {
    const LABELS: [&str; 5] = [
        "robust",
        "conditional",
        "fails",
        "unresolved",
        "not evaluable",
    ];
    let w = word.trim();
    LABELS
        .contains(&w)
        .then(|| format!("lbl lbl-{}", w.replace(' ', "-")))
}

/// Markdown as an HTML fragment: CommonMark plus tables and strikethrough. Tables get
/// the page's sortable style inside a scrolling box, a column headed `label` has its
/// cells coloured by [`label_class`], and raw HTML in the text is escaped.
pub fn markdown_html(md: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let events: Vec<Event> = Parser::new_ext(md, opts).collect();
    let mut out_events: Vec<Event> = Vec::with_capacity(events.len() + 8);
    let mut in_head = false;
    let mut headers: Vec<String> = Vec::new();
    let mut col = 0usize;
    let mut i = 0;
    while i < events.len() {
        let e = events[i].clone();
        i += 1;
        match e {
            // Text the author wrote as HTML is shown, not interpreted.
            Event::Html(h) | Event::InlineHtml(h) => out_events.push(Event::Text(h)),
            Event::Start(Tag::Table(a)) => {
                headers.clear();
                out_events.push(Event::Html("<div class=\"tablewrap\">".into()));
                out_events.push(Event::Start(Tag::Table(a)));
            }
            Event::End(TagEnd::Table) => {
                out_events.push(Event::End(TagEnd::Table));
                out_events.push(Event::Html("</div>\n".into()));
            }
            Event::Start(Tag::TableHead) => {
                in_head = true;
                out_events.push(e);
            }
            Event::End(TagEnd::TableHead) => {
                in_head = false;
                out_events.push(e);
            }
            Event::Start(Tag::TableRow) => {
                col = 0;
                out_events.push(e);
            }
            Event::End(TagEnd::TableCell) => {
                col += 1;
                out_events.push(e);
            }
            Event::Start(Tag::TableCell) if in_head => {
                // The header's text, for recognising the label column.
                let mut text = String::new();
                let mut j = i;
                while let Some(ev) = events.get(j) {
                    match ev {
                        Event::Text(t) | Event::Code(t) => text.push_str(t),
                        Event::End(TagEnd::TableCell) => break,
                        _ => {}
                    }
                    j += 1;
                }
                headers.push(text.trim().to_string());
                out_events.push(e);
            }
            Event::Start(Tag::TableCell) => {
                let in_label_column = headers.get(col).map(String::as_str) == Some("label");
                let class = match events.get(i) {
                    Some(Event::Text(t)) if in_label_column => label_class(t),
                    _ => None,
                };
                match class {
                    Some(c) => out_events.push(Event::Html(format!("<td class=\"{c}\">").into())),
                    None => out_events.push(e),
                }
            }
            e => out_events.push(e),
        }
    }
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, out_events.into_iter());
    // Only the renderer writes `<table>`: the author's own HTML was escaped above.
    html.replace("<table>", "<table class=\"sortable\">")
}

/// One table cell of the template.
struct CellView {
    text: String,
    class: String,
}

/// One block of the template; `kind` says which fields it uses.
struct BlockView<'a> {
    kind: &'static str,
    svgs: Vec<&'a str>,
    columns: &'a [String],
    rows: Vec<Vec<CellView>>,
    text: &'a str,
    html: String,
    links: &'a [(String, String)],
}

impl<'a> BlockView<'a> {
    fn new(kind: &'static str) -> Self {
        BlockView {
            kind,
            svgs: Vec::new(),
            columns: &[],
            rows: Vec::new(),
            text: "",
            html: String::new(),
            links: &[],
        }
    }
}

struct SectionView<'a> {
    title: &'a str,
    blocks: Vec<BlockView<'a>>,
}

#[derive(Template)]
#[template(path = "page.html")]
struct PageView<'a> {
    title: &'a str,
    version: &'a str,
    command: &'a str,
    sections: Vec<SectionView<'a>>,
}

fn block_views(blocks: &[Block]) -> Vec<BlockView<'_>> {
    let mut out: Vec<BlockView> = Vec::new();
    for b in blocks {
        match b {
            // Consecutive figures share one flowing row.
            Block::Figure(svg) => match out.last_mut() {
                Some(v) if v.kind == "figs" => v.svgs.push(inline_svg(svg)),
                _ => {
                    let mut v = BlockView::new("figs");
                    v.svgs.push(inline_svg(svg));
                    out.push(v);
                }
            },
            Block::Table { columns, rows } => {
                let label_col = columns.iter().position(|c| c == "label");
                let mut v = BlockView::new("table");
                v.columns = columns;
                v.rows = rows
                    .iter()
                    .map(|r| {
                        r.iter()
                            .enumerate()
                            .map(|(i, t)| {
                                let class = if Some(i) == label_col {
                                    label_class(t)
                                } else {
                                    None
                                };
                                let class = class.unwrap_or_else(|| {
                                    if is_text(t) { "t" } else { "" }.to_string()
                                });
                                CellView {
                                    text: t.clone(),
                                    class,
                                }
                            })
                            .collect()
                    })
                    .collect();
                out.push(v);
            }
            Block::Pre(t) => {
                let mut v = BlockView::new("pre");
                v.text = t;
                out.push(v);
            }
            Block::Para(t) => {
                let mut v = BlockView::new("para");
                v.text = t;
                out.push(v);
            }
            Block::Markdown(md) => {
                let mut v = BlockView::new("markdown");
                v.html = markdown_html(md);
                out.push(v);
            }
            Block::Links(l) => {
                let mut v = BlockView::new("links");
                v.links = l;
                out.push(v);
            }
        }
    }
    out
}

/// The page as HTML.
pub fn render(page: &Page) -> String {
    let view = PageView {
        title: &page.title,
        version: env!("CARGO_PKG_VERSION"),
        command: &page.command,
        sections: page
            .sections
            .iter()
            .map(|s| SectionView {
                title: &s.title,
                blocks: block_views(&s.blocks),
            })
            .collect(),
    };
    // Rendering only fails when a value's Display fails; ours are strings.
    view.render().unwrap_or_else(|e| {
        format!(
            "<!DOCTYPE html><p>page could not be rendered: {}</p>\n",
            escape(&e.to_string())
        )
    })
}

/// One design of a run page: its name, report and figures.
type RunDesign<'a> = (&'a str, &'a Report, &'a Figures);

/// The page of `ssdlab run`: a summary table of the designs, the latency CDFs, the
/// throughput over time and the erase histograms of each, and their warnings.
pub fn run_page(command: &str, designs: &[RunDesign<'_>]) -> Page {
    use super::svg;
    let several = designs.len() > 1;
    let mut sections = vec![designs_section(designs), latency_section(designs)];
    let title = |what: &str, n: &str| {
        if several {
            format!("{what} — {n}")
        } else {
            what.to_string()
        }
    };
    sections.push(Section {
        title: "Throughput over time".into(),
        blocks: designs
            .iter()
            .map(|(n, _, f)| {
                Block::Figure(svg::throughput_svg(
                    &f.throughput_series,
                    &title("Throughput", n),
                ))
            })
            .collect(),
    });
    sections.push(Section {
        title: "Wear".into(),
        blocks: designs
            .iter()
            .map(|(n, _, f)| {
                Block::Figure(svg::erase_histogram_svg(
                    &f.erase_counts,
                    &title("Erase counts", n),
                ))
            })
            .collect(),
    });
    sections.extend(namespaces_section(designs));
    sections.extend(fdp_section(designs));
    let notes: Vec<String> = designs
        .iter()
        .flat_map(|(n, r, _)| {
            r.notes
                .iter()
                .map(move |x| format!("{n}: note: {x}"))
                .chain(r.warnings.iter().map(move |x| format!("{n}: warning: {x}")))
        })
        .collect();
    if !notes.is_empty() {
        sections.push(Section {
            title: "Notes and warnings".into(),
            blocks: vec![Block::Pre(notes.join("\n"))],
        });
    }
    Page {
        title: if several {
            format!("ssdlab run — {} designs", designs.len())
        } else {
            "ssdlab run".into()
        },
        command: command.to_string(),
        sections,
    }
}

/// The `name` of the row of the pages no namespace holds (the report's
/// `namespace_overhead`).
const OVERHEAD_ROW: &str = "(no namespace)";

/// The designs' per-namespace results (only those with two or more namespaces): one row
/// per design and namespace, and one for the pages no namespace holds, under the JSON
/// report's key names.
fn namespaces_section(designs: &[RunDesign<'_>]) -> Option<Section> {
    let columns = [
        "design",
        "name",
        "size_bytes",
        "requests",
        "iops",
        "read_bytes",
        "write_bytes",
        "read_latency_ns_p99",
        "write_latency_ns_p99",
        "errors_lba_out_of_range",
        "host_write_share",
        "media_write_bytes",
        "write_amplification",
        "write_amplification_contribution",
    ];
    let rows: Vec<Vec<String>> = designs
        .iter()
        .flat_map(|(d, r, _)| {
            r.namespaces
                .iter()
                .map(move |n| {
                    vec![
                        d.to_string(),
                        n.name.clone(),
                        n.size_bytes.to_string(),
                        n.requests.to_string(),
                        format!("{:.1}", n.iops),
                        n.read_bytes.to_string(),
                        n.write_bytes.to_string(),
                        n.read_latency_ns.p99.to_string(),
                        n.write_latency_ns.p99.to_string(),
                        n.errors_lba_out_of_range.to_string(),
                        format!("{:.4}", n.host_write_share),
                        n.media_write_bytes.to_string(),
                        format!("{:.4}", n.write_amplification),
                        format!("{:.4}", n.write_amplification_contribution),
                    ]
                })
                // The pages no namespace holds: a row of their own, under the same keys.
                .chain(r.namespace_overhead.iter().map(move |o| {
                    let mut row = vec![String::new(); columns.len()];
                    row[0] = d.to_string();
                    row[1] = OVERHEAD_ROW.into();
                    row[columns.len() - 3] = o.media_write_bytes.to_string();
                    row[columns.len() - 1] = format!("{:.4}", o.write_amplification_contribution);
                    row
                }))
        })
        .collect();
    (!rows.is_empty()).then(|| Section {
        title: "Namespaces".into(),
        blocks: vec![Block::Table {
            columns: columns.map(String::from).to_vec(),
            rows,
        }],
    })
}

/// The designs' FDP statistics (only those with `ftl.fdp` on): a row per design for the
/// drive, per handle and per namespace, then the event counts, under the JSON report's
/// key names.
fn fdp_section(designs: &[RunDesign<'_>]) -> Option<Section> {
    let mut usage = Vec::new();
    let mut events = Vec::new();
    for (d, r, _) in designs {
        let Some(f) = &r.fdp else { continue };
        usage.push(vec![
            d.to_string(),
            "drive".into(),
            String::new(),
            f.host_bytes_written.to_string(),
            f.media_bytes_written.to_string(),
            format!("{:.4}", f.waf),
        ]);
        let rows = f.usage_rows();
        for (what, u) in rows {
            usage.push(vec![
                d.to_string(),
                what,
                u.isolation
                    .map(|i| match i {
                        crate::fdp::Isolation::InitiallyIsolated => "initially-isolated",
                        crate::fdp::Isolation::PersistentlyIsolated => "persistently-isolated",
                    })
                    .unwrap_or_default()
                    .to_string(),
                u.host_bytes_written.to_string(),
                u.media_bytes_written.to_string(),
                format!("{:.4}", u.waf),
            ]);
        }
        for (k, v) in &f.events {
            events.push(vec![d.to_string(), k.clone(), v.to_string()]);
        }
    }
    if usage.is_empty() {
        return None;
    }
    let mut blocks = vec![Block::Table {
        columns: [
            "design",
            "of",
            "isolation",
            "host_bytes_written",
            "media_bytes_written",
            "waf",
        ]
        .map(String::from)
        .to_vec(),
        rows: usage,
    }];
    if !events.is_empty() {
        blocks.push(Block::Table {
            columns: ["design", "event", "count"].map(String::from).to_vec(),
            rows: events,
        });
    }
    Some(Section {
        title: "Flexible Data Placement".into(),
        blocks,
    })
}

/// The run page's summary table: one row per design, its configuration and headline
/// results under the report's JSON key names.
fn designs_section(designs: &[RunDesign<'_>]) -> Section {
    let columns: Vec<String> = [
        "design",
        "ftl",
        "gc",
        "buffer",
        "op_percent_requested",
        "op_percent_actual",
        "slc_cache_percent_requested",
        "slc_cache_percent_actual",
        "requests",
        "iops",
        "throughput_mib_s",
        "latency_ns_mean",
        "latency_ns_p99",
        "latency_ns_p999",
        "write_amplification",
        "gc_time_share",
        "erases",
        "erase_count_max",
        "mapping_bytes",
    ]
    .map(String::from)
    .to_vec();
    let cfg = |r: &Report, table: &str, key: &str| {
        r.config
            .get(table)
            .and_then(|t| t.get(key))
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string()
    };
    let rows = designs
        .iter()
        .map(|(name, r, _)| {
            vec![
                name.to_string(),
                cfg(r, "ftl", "name"),
                cfg(r, "ftl", "gc"),
                r.buffer.buffer_policy.clone(),
                fmt_plain(r.op_percent_requested),
                fmt_plain(r.op_percent_actual),
                fmt_plain(r.slc_cache_percent_requested),
                fmt_plain(r.slc_cache_percent_actual),
                r.latency_ns.count.to_string(),
                fmt_plain(r.iops),
                fmt_plain(r.throughput_mib_s),
                fmt_plain(r.latency_ns.mean),
                r.latency_ns.p99.to_string(),
                r.latency_ns.p999.to_string(),
                fmt_plain(r.write_amplification),
                fmt_plain(r.gc_time_share),
                r.erases.to_string(),
                r.erase_count.max.to_string(),
                r.mapping_bytes.to_string(),
            ]
        })
        .collect();
    Section {
        title: "Designs".into(),
        blocks: vec![Block::Table { columns, rows }],
    }
}

/// The run page's latency CDFs: one figure per phase, each design a line (or, with one
/// design, the line named for the phase).
fn latency_section(designs: &[RunDesign<'_>]) -> Section {
    let several = designs.len() > 1;
    let mut phases: Vec<&str> = Vec::new();
    for (_, _, f) in designs {
        for (p, _) in &f.latency_cdf {
            if !phases.contains(&p.as_str()) {
                phases.push(p);
            }
        }
    }
    let mut figs = Vec::new();
    for p in &phases {
        let series: Vec<(String, Vec<(f64, f64)>)> = designs
            .iter()
            .filter_map(|(n, _, f)| {
                f.latency_cdf.iter().find(|(q, _)| q == p).map(|(_, pts)| {
                    (
                        if several {
                            n.to_string()
                        } else {
                            p.to_string()
                        },
                        pts.clone(),
                    )
                })
            })
            .collect();
        figs.push(Block::Figure(super::svg::latency_cdf_svg(
            &series,
            &format!("Latency CDF — {p}"),
        )));
    }
    Section {
        title: "Latency".into(),
        blocks: figs,
    }
}

/// A number for a table cell: full precision for sorting, no exponent for readability.
pub fn fmt_plain(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{v:.0}");
    }
    // Six significant digits: enough to compare designs, short enough to read.
    let decimals = (5 - v.abs().log10().floor() as i32).clamp(0, 12) as usize;
    format!("{v:.decimals$}")
}

/// A page of an experiment's output files (`reproduce NAME --html`): SVG files as
/// figures, CSV files as sortable tables, Markdown rendered, other text preformatted, in
/// the order given.
pub fn files_page(title: &str, command: &str, files: &[(String, String)]) -> Page {
    let mut sections = Vec::new();
    // The summary first: it explains the rest.
    let mut ordered: Vec<&(String, String)> =
        files.iter().filter(|(n, _)| n.ends_with(".md")).collect();
    ordered.extend(files.iter().filter(|(n, _)| n.ends_with(".svg")));
    ordered.extend(
        files
            .iter()
            .filter(|(n, _)| !n.ends_with(".md") && !n.ends_with(".svg")),
    );
    let figures: Vec<Block> = files
        .iter()
        .filter(|(n, _)| n.ends_with(".svg"))
        .map(|(_, s)| Block::Figure(s.clone()))
        .collect();
    for (name, text) in ordered {
        if name.ends_with(".svg") {
            continue;
        }
        let block = if name.ends_with(".csv") {
            csv_block(text).unwrap_or_else(|| Block::Pre(text.clone()))
        } else if name.ends_with(".md") {
            Block::Markdown(text.clone())
        } else {
            Block::Pre(text.clone())
        };
        sections.push(Section {
            title: name.clone(),
            blocks: vec![block],
        });
        if name.ends_with(".md") && !figures.is_empty() {
            sections.push(Section {
                title: "Figures".into(),
                blocks: figures.clone(),
            });
        }
    }
    if !files.iter().any(|(n, _)| n.ends_with(".md")) && !figures.is_empty() {
        sections.insert(
            0,
            Section {
                title: "Figures".into(),
                blocks: figures,
            },
        );
    }
    Page {
        title: title.to_string(),
        command: command.to_string(),
        sections,
    }
}

/// The page of `reproduce --all` (the claims registry judged): links to the result files
/// (`links`: relative address and file name), then `summary.md` rendered — the label
/// counts per paper and every registry row with its label coloured, points holding,
/// measured values and cause. claims.csv and points.csv are linked rather than inlined:
/// the summary already shows their columns a reader needs, and points.csv has a row per
/// grid point.
pub fn registry_page(
    title: &str,
    command: &str,
    files: &[(String, String)],
    links: Vec<(String, String)>,
) -> Page {
    let mut sections = Vec::new();
    if !links.is_empty() {
        sections.push(Section {
            title: "Result files".into(),
            blocks: vec![
                Block::Para(
                    "claims.csv has one row per registry claim (its label, points, measured \
                     and paper values, criterion, cause); points.csv one row per grid point \
                     evaluated (parameters, measured value, verdict)."
                        .into(),
                ),
                Block::Links(links),
            ],
        });
    }
    for (name, text) in files.iter().filter(|(n, _)| n.ends_with(".md")) {
        sections.push(Section {
            title: name.clone(),
            blocks: vec![Block::Markdown(text.clone())],
        });
    }
    Page {
        title: title.to_string(),
        command: command.to_string(),
        sections,
    }
}

/// The address of `file` relative to the directory `from` (both absolute or both
/// relative to the same place), for a link on a page written into `from`.
pub fn relative_href(from: &std::path::Path, file: &std::path::Path) -> String {
    use std::path::Component;
    let a: Vec<Component> = from.components().collect();
    let b: Vec<Component> = file.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".into(); a.len() - common];
    parts.extend(
        b[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// A CSV text as a table block (`None` when it does not parse).
fn csv_block(text: &str) -> Option<Block> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(text.as_bytes());
    let columns = r.headers().ok()?.iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.map(|rec| rec.iter().map(String::from).collect()))
        .collect::<Result<Vec<Vec<String>>, _>>()
        .ok()?;
    Some(Block::Table { columns, rows })
}

/// Puts a directory's result files and the page into one batch (committed together);
/// the page joins the results' directory when `--html` names the same one.
pub fn add_to_batch<'a>(
    batch: &mut Batch<'a>,
    out: &OutputPath,
    mut files: Vec<(String, Content<'a>)>,
    html_out: Option<&OutputPath>,
    page: Option<String>,
) {
    let target = |o: &OutputPath| match &o.dest {
        Dest::Dir { target } => Some(target.clone()),
        _ => None,
    };
    match (html_out, page) {
        (Some(h), Some(p)) if target(h) == target(out) => {
            files.push((PAGE_FILE.into(), p.into()));
            batch.dir(out, files);
        }
        (Some(h), Some(p)) => {
            batch.dir(out, files);
            batch.dir(h, vec![(PAGE_FILE.into(), p.into())]);
        }
        _ => batch.dir(out, files),
    }
}
