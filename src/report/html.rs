//! One self-contained HTML page for `run`, `sweep` and `reproduce` (`--html DIR` writes
//! `DIR/index.html`): the figures inline as SVG (drawn by [`super::svg`]), sortable
//! tables, notes, and the exact command that produced it. No external file, font, script
//! or network: it opens offline, from a mail attachment or a CI artefact.
//!
//! The only script sorts a table when its header is clicked (numbers as numbers, empty
//! cells last); the page reads fine without it.

use super::output::{Batch, Content, Dest, OutputPath};
use super::{Figures, Report};

/// File name of the page inside the `--html` directory.
pub const PAGE_FILE: &str = "index.html";

/// A block of a section.
#[derive(Clone, Debug)]
pub enum Block {
    /// An SVG figure (markup from [`super::svg`]).
    Figure(String),
    /// A table.
    Table {
        /// Column names.
        columns: Vec<String>,
        /// Rows of cell text.
        rows: Vec<Vec<String>>,
    },
    /// Preformatted text (a Markdown summary, a list of warnings).
    Pre(String),
    /// A paragraph of plain text.
    Para(String),
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

const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1400px;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ddd}
pre{background:#f6f6f6;padding:.8em;overflow-x:auto;white-space:pre-wrap}
.figs{display:flex;flex-wrap:wrap;gap:12px}
.fig{flex:0 1 640px;max-width:100%}.fig svg{width:100%;height:auto;border:1px solid #eee}
.tablewrap{overflow-x:auto;max-height:70vh}
table{border-collapse:collapse;font-size:.85em}
th,td{border:1px solid #ddd;padding:3px 6px;text-align:right;white-space:nowrap}
th{background:#f0f0f0;cursor:pointer;position:sticky;top:0;user-select:none}
th.asc::after{content:' \\25B2'}th.desc::after{content:' \\25BC'}
td.t{text-align:left}
";

/// Sorts a table by the clicked column: numbers numerically, text alphabetically, empty
/// cells last; a second click reverses.
const SCRIPT: &str = r#"
(function () {
  function key(td) {
    var s = td ? td.textContent.trim() : "";
    if (s === "") return { empty: true, n: 0, s: "" };
    var n = Number(s);
    return { empty: false, n: isNaN(n) ? null : n, s: s };
  }
  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var asc = !th.classList.contains("asc");
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) {
      c.classList.remove("asc", "desc");
    });
    th.classList.add(asc ? "asc" : "desc");
    rows.sort(function (a, b) {
      var x = key(a.cells[col]), y = key(b.cells[col]);
      if (x.empty || y.empty) return x.empty === y.empty ? 0 : (x.empty ? 1 : -1);
      var r = (x.n !== null && y.n !== null) ? x.n - y.n : x.s.localeCompare(y.s);
      return asc ? r : -r;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.addEventListener("click", function () { sortBy(table, i, th); });
    });
  });
})();
"#;

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

/// The page as HTML.
pub fn render(page: &Page) -> String {
    let mut h = String::new();
    h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    h += &format!("<title>{}</title>\n", escape(&page.title));
    h += &format!("<style>\n{STYLE}</style>\n</head>\n<body>\n");
    h += &format!("<h1>{}</h1>\n", escape(&page.title));
    h += &format!(
        "<p>Produced by ssdlab {} with:</p>\n<pre id=\"command\">{}</pre>\n",
        env!("CARGO_PKG_VERSION"),
        escape(&page.command)
    );
    for s in &page.sections {
        h += &format!("<section>\n<h2>{}</h2>\n", escape(&s.title));
        let mut in_figs = false;
        for b in &s.blocks {
            let fig = matches!(b, Block::Figure(_));
            if fig && !in_figs {
                h += "<div class=\"figs\">\n";
            } else if !fig && in_figs {
                h += "</div>\n";
            }
            in_figs = fig;
            match b {
                Block::Figure(svg) => {
                    h += &format!("<div class=\"fig\">{}</div>\n", inline_svg(svg));
                }
                Block::Table { columns, rows } => {
                    h += "<div class=\"tablewrap\"><table class=\"sortable\">\n<thead><tr>";
                    for c in columns {
                        h += &format!("<th title=\"click to sort\">{}</th>", escape(c));
                    }
                    h += "</tr></thead>\n<tbody>\n";
                    for r in rows {
                        h += "<tr>";
                        for v in r {
                            if is_text(v) {
                                h += &format!("<td class=\"t\">{}</td>", escape(v));
                            } else {
                                h += &format!("<td>{}</td>", escape(v));
                            }
                        }
                        h += "</tr>\n";
                    }
                    h += "</tbody></table></div>\n";
                }
                Block::Pre(t) => h += &format!("<pre>{}</pre>\n", escape(t)),
                Block::Para(t) => h += &format!("<p>{}</p>\n", escape(t)),
            }
        }
        if in_figs {
            h += "</div>\n";
        }
        h += "</section>\n";
    }
    h += &format!("<script>{SCRIPT}</script>\n</body>\n</html>\n");
    h
}

/// The page of `ssdlab run`: a summary table of the designs, the latency CDFs, the
/// throughput over time and the erase histograms of each, and their warnings.
pub fn run_page(command: &str, designs: &[(&str, &Report, &Figures)]) -> Page {
    use super::svg;
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
    let mut sections = vec![Section {
        title: "Designs".into(),
        blocks: vec![Block::Table { columns, rows }],
    }];
    let several = designs.len() > 1;
    // One CDF per phase, each design a line.
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
        figs.push(Block::Figure(svg::latency_cdf_svg(
            &series,
            &format!("Latency CDF — {p}"),
        )));
    }
    sections.push(Section {
        title: "Latency".into(),
        blocks: figs,
    });
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

/// A page of an experiment's output files (`reproduce --html`): SVG files as figures,
/// CSV files as sortable tables, Markdown and other text as preformatted text, in the
/// order given.
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
