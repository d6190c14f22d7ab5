//! SVG figures: well-formed documents with titles and series names, for real and
//! degenerate data alike, deterministic, and written atomically.

use ssdlab::report::Figures;
use ssdlab::report::svg::{
    NO_DATA, NO_ERASES, bar_chart_svg, bar_chart_with_errors_svg, erase_histogram_svg,
    latency_cdf_svg, line_chart_svg, throughput_svg, write_figures,
};

/// A tiny XML well-formedness check: one root `<svg>` element, balanced tags, no raw `<`
/// or `&` in text, quoted attributes. Enough to catch truncated or garbled output.
fn assert_well_formed(svg: &str) {
    assert!(
        svg.starts_with("<svg"),
        "does not start with <svg: {:?}",
        &svg[..svg.len().min(80)]
    );
    assert!(
        svg.trim_end().ends_with("</svg>"),
        "does not end with </svg>"
    );
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    let mut roots = 0;
    while let Some(open) = rest.find('<') {
        let text = &rest[..open];
        check_text(text);
        let close = rest[open..].find('>').expect("unterminated tag") + open;
        let tag = &rest[open + 1..close];
        assert_eq!(
            tag.matches('"').count() % 2,
            0,
            "unbalanced quotes in <{tag}>"
        );
        if let Some(name) = tag.strip_prefix('/') {
            let top = stack.pop().unwrap_or_else(|| panic!("stray </{name}>"));
            assert_eq!(top, name.trim(), "mismatched closing tag");
        } else {
            let name: String = tag
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '/')
                .collect();
            assert!(!name.is_empty(), "empty tag name");
            if stack.is_empty() {
                roots += 1;
            }
            if !tag.ends_with('/') {
                stack.push(name);
            }
        }
        rest = &rest[close + 1..];
    }
    check_text(rest);
    assert!(stack.is_empty(), "unclosed tags {stack:?}");
    assert_eq!(roots, 1, "exactly one root element");
}

fn check_text(text: &str) {
    let mut s = text;
    while let Some(i) = s.find('&') {
        let entity_end = s[i..].find(';').expect("bare &") + i;
        let entity = &s[i + 1..entity_end];
        assert!(
            ["lt", "gt", "amp", "quot", "apos"].contains(&entity) || entity.starts_with('#'),
            "bad entity &{entity};"
        );
        s = &s[entity_end + 1..];
    }
}

fn cdf(scale: f64) -> Vec<(f64, f64)> {
    (1..=100)
        .map(|i| (scale * f64::from(i).powf(1.5), f64::from(i) / 100.0))
        .collect()
}

#[test]
fn latency_cdf_has_title_legend_and_text_elements() {
    let series = vec![
        ("seq-write".to_string(), cdf(10_000.0)),
        ("rand & write".to_string(), cdf(40_000.0)),
    ];
    let svg = latency_cdf_svg(&series, "Latency <CDF>");
    assert_well_formed(&svg);
    assert!(svg.contains("Latency &lt;CDF&gt;"));
    assert!(svg.contains("seq-write") && svg.contains("rand &amp; write"));
    assert!(svg.contains("<text"), "labels must be SVG text elements");
    assert!(svg.contains("µs"));
    assert!(svg.contains("<polyline"));
    assert_eq!(
        svg,
        latency_cdf_svg(&series, "Latency <CDF>"),
        "deterministic"
    );
}

#[test]
fn degenerate_inputs_give_valid_svgs() {
    let cases: Vec<(String, &str)> = vec![
        (latency_cdf_svg(&[], "empty cdf"), "empty cdf"),
        (
            latency_cdf_svg(&[("s".into(), vec![])], "empty series"),
            "empty series",
        ),
        (
            latency_cdf_svg(
                &[("s".into(), vec![(0.0, 0.5), (-1.0, 1.0)])],
                "nonpositive",
            ),
            "nonpositive",
        ),
        (
            latency_cdf_svg(&[("one".into(), vec![(5000.0, 1.0)])], "one point"),
            "one point",
        ),
        (throughput_svg(&[], "no tput"), "no tput"),
        (throughput_svg(&[(1.0, 5.0)], "one tput"), "one tput"),
        (
            throughput_svg(&[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)], "zero tput"),
            "zero tput",
        ),
        (
            throughput_svg(&[(f64::NAN, 1.0), (1.0, f64::INFINITY)], "nan tput"),
            "nan tput",
        ),
        (erase_histogram_svg(&[], "no blocks"), "no blocks"),
        (erase_histogram_svg(&[0; 1024], "fresh"), "fresh"),
        (erase_histogram_svg(&[7], "single"), "single"),
        (erase_histogram_svg(&[0, u32::MAX], "extreme"), "extreme"),
        (
            line_chart_svg("no series", "x", "y", &[], false),
            "no series",
        ),
        (
            line_chart_svg("log one", "x", "y", &[("a".into(), vec![(1.0, 1.0)])], true),
            "log one",
        ),
        (bar_chart_svg("no bars", "y", &[], &[], false), "no bars"),
        (
            bar_chart_svg(
                "nan bars",
                "y",
                &["a".into()],
                &[("s".into(), vec![f64::NAN])],
                true,
            ),
            "nan bars",
        ),
        (
            bar_chart_svg(
                "zero bars",
                "y",
                &["a".into(), "b".into()],
                &[("s".into(), vec![0.0, 0.0])],
                false,
            ),
            "zero bars",
        ),
    ];
    for (svg, title) in &cases {
        assert_well_formed(svg);
        assert!(svg.contains(title), "title {title} missing");
    }
    let no_data = [0, 1, 2, 4, 7, 8, 12, 14, 15];
    for i in no_data {
        assert!(
            cases[i].0.contains(NO_DATA),
            "{} should say no data",
            cases[i].1
        );
    }
}

#[test]
fn line_and_bar_charts_name_their_series() {
    let series = vec![
        ("page".to_string(), vec![(1.0, 2.0), (2.0, 3.5), (4.0, 3.0)]),
        ("dftl".to_string(), vec![(1.0, 1.0), (2.0, 1.5), (4.0, 2.5)]),
    ];
    let svg = line_chart_svg("WA vs utilisation", "utilisation", "WA", &series, false);
    assert_well_formed(&svg);
    for s in ["WA vs utilisation", "utilisation", "page", "dftl"] {
        assert!(svg.contains(s), "missing {s}");
    }
    let cats = vec![
        "seq-write".to_string(),
        "rand-write".to_string(),
        "rand-read".to_string(),
    ];
    let bars = vec![
        ("I/O".to_string(), vec![3.0, 5.0, 1.0]),
        ("GC".to_string(), vec![0.0, 2.5, 0.0]),
    ];
    for stacked in [false, true] {
        let svg = bar_chart_svg("Time per phase", "seconds", &cats, &bars, stacked);
        assert_well_formed(&svg);
        for s in [
            "Time per phase",
            "seconds",
            "seq-write",
            "rand-read",
            "I/O",
            "GC",
        ] {
            assert!(svg.contains(s), "missing {s} (stacked={stacked})");
        }
        assert!(svg.matches("<rect").count() >= 5);
    }
}

#[test]
fn erase_histogram_bins_wide_spreads() {
    let counts: Vec<u32> = (0..10_000u32).map(|i| (i * 7919) % 3000).collect();
    let svg = erase_histogram_svg(&counts, "Wear");
    assert_well_formed(&svg);
    assert!(svg.contains("bins of"));
}

#[test]
fn write_figures_writes_three_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("figs/nested");
    let figs = Figures {
        latency_cdf: vec![("all".into(), cdf(1000.0))],
        throughput_series: vec![(0.0, 100.0), (1.0, 120.0), (2.0, 80.0)],
        erase_counts: vec![1, 2, 2, 3, 3, 3],
        probe_latency: Vec::new(),
    };
    let paths = write_figures(&out, "dftl", &figs).unwrap();
    let names: Vec<String> = paths
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "dftl_latency_cdf.svg",
            "dftl_throughput.svg",
            "dftl_erase_histogram.svg"
        ]
    );
    for p in &paths {
        let svg = std::fs::read_to_string(p).unwrap();
        assert_well_formed(&svg);
        assert!(svg.contains("dftl"));
    }
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 3);
    let plain = write_figures(&out, "", &Figures::default()).unwrap();
    assert_eq!(plain[0].file_name().unwrap(), "latency_cdf.svg");
    for p in &plain {
        assert!(std::fs::read_to_string(p).unwrap().contains(NO_DATA));
    }
}

#[test]
fn write_figures_adds_the_probe_figure_when_there_is_one() {
    let dir = tempfile::tempdir().unwrap();
    let figs = Figures {
        latency_cdf: vec![("all".into(), cdf(1000.0))],
        throughput_series: vec![(0.0, 100.0)],
        erase_counts: vec![1],
        probe_latency: vec![("partition 0".into(), vec![(0.0, 10.0), (0.5, 20.0)])],
    };
    let paths = write_figures(dir.path(), "", &figs).unwrap();
    let probe = paths.last().unwrap();
    assert_eq!(probe.file_name().unwrap(), "probe.svg");
    let svg = std::fs::read_to_string(probe).unwrap();
    assert_well_formed(&svg);
    assert!(svg.contains("offset in partition"));
}

/// `(x, y, font-size, text-anchor, rotated, text)` of every level `<text>` element.
fn texts(svg: &str) -> Vec<(f64, f64, f64, String, bool, String)> {
    let attr = |tag: &str, name: &str| -> Option<String> {
        let i = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(tag[i..i + tag[i..].find('"')?].to_string())
    };
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find("<text") {
        let close = rest[i..].find('>').unwrap() + i;
        let tag = &rest[i..close];
        let end = rest[close..].find("</text>").unwrap() + close;
        let text = rest[close + 1..end].trim().to_string();
        out.push((
            attr(tag, "x").unwrap().parse().unwrap(),
            attr(tag, "y").unwrap().parse().unwrap(),
            attr(tag, "font-size").unwrap().parse().unwrap(),
            attr(tag, "text-anchor").unwrap_or_default(),
            tag.contains("transform="),
            text,
        ));
        rest = &rest[end..];
    }
    out
}

/// The `width` and `height` of the root element.
fn size(svg: &str) -> (f64, f64) {
    let head = &svg[..svg.find('>').unwrap()];
    let get = |n: &str| -> f64 {
        let i = head.find(&format!(" {n}=\"")).unwrap() + n.len() + 3;
        head[i..i + head[i..].find('"').unwrap()].parse().unwrap()
    };
    (get("width"), get("height"))
}

/// Issue 31: a long title was one centred line running off both sides ("odelled…").
/// Every level text must fit the figure's width, with a generous 0.5 em per character.
#[test]
fn long_titles_wrap_inside_the_figure() {
    let title = "Modelled against measured write amplification of every FTL and garbage \
                 collector at each over-provisioning the registry grid names";
    for svg in [
        line_chart_svg(
            title,
            "x",
            "y",
            &[("a".into(), vec![(1.0, 2.0), (2.0, 3.0)])],
            false,
        ),
        bar_chart_svg(title, "y", &["a".into()], &[("s".into(), vec![1.0])], false),
        erase_histogram_svg(&[1, 2, 3], title),
        latency_cdf_svg(&[], title),
    ] {
        assert_well_formed(&svg);
        let (w, _) = size(&svg);
        for (x, _, fs, anchor, rotated, text) in texts(&svg) {
            if rotated {
                continue;
            }
            let tw = text.chars().count() as f64 * fs * 0.5;
            let (l, r) = match anchor.as_str() {
                "middle" => (x - tw / 2.0, x + tw / 2.0),
                "end" => (x - tw, x),
                _ => (x, x + tw),
            };
            assert!(l >= 0.0 && r <= w, "{text:?} spans {l:.0}..{r:.0} of {w}");
        }
        for word in ["Modelled", "registry", "names"] {
            assert!(svg.contains(word), "{word} lost from the title");
        }
    }
}

/// Issue 31: a run without erases drew every block in one bar at 0, a solid block.
#[test]
fn a_run_without_erases_says_so() {
    let svg = erase_histogram_svg(&[0; 256], "Erase counts");
    assert_well_formed(&svg);
    assert!(svg.contains(NO_ERASES), "{svg}");
    // The background only: no bar.
    assert_eq!(svg.matches("<rect").count(), 1, "{svg}");
}

/// Issue 31: long category labels overlapped; they are turned upright instead, and
/// short ones stay level.
#[test]
fn crowded_category_labels_are_turned_upright() {
    let cats: Vec<String> = (0..12).map(|i| format!("dftl cost-benefit {i}")).collect();
    let svg = bar_chart_svg("t", "y", &cats, &[("s".into(), vec![1.0; 12])], false);
    assert_well_formed(&svg);
    let upright = texts(&svg)
        .into_iter()
        .filter(|t| t.4 && t.5.starts_with("dftl"))
        .count();
    assert_eq!(upright, 12, "{svg}");
    let (_, h) = size(&svg);
    assert!(h > 500.0, "the label band grows the figure: {h}");
    let few = bar_chart_svg(
        "t",
        "y",
        &["a".into(), "b".into()],
        &[("s".into(), vec![1.0, 2.0])],
        false,
    );
    assert!(texts(&few).iter().any(|t| !t.4 && t.5 == "a"));
}

/// Issue 31: legends covered data; they now sit in a band under the plot.
#[test]
fn legends_sit_below_the_plot() {
    let series: Vec<(String, Vec<(f64, f64)>)> = (0..5)
        .map(|i| {
            (
                format!("series {i}"),
                vec![(0.0, 1.0), (1.0, 2.0 + i as f64)],
            )
        })
        .collect();
    let svg = line_chart_svg("t", "x", "y", &series, false);
    assert_well_formed(&svg);
    let (_, h) = size(&svg);
    assert!(h > 500.0);
    for (_, y, _, _, _, text) in texts(&svg) {
        if text.starts_with("series ") {
            assert!(y >= 500.0, "{text} at y {y}, inside the plot");
        }
    }
}

#[test]
fn error_bars_are_drawn_and_extend_the_axis() {
    let cats = vec!["a".to_string(), "b".to_string()];
    let plain = bar_chart_svg("t", "y", &cats, &[("s".into(), vec![1.0, 2.0])], false);
    let with = bar_chart_with_errors_svg(
        "t",
        "y",
        &cats,
        &[("s".into(), vec![1.0, 2.0])],
        &[vec![0.5, 1.5]],
        false,
    );
    assert_well_formed(&with);
    // Two whiskers with two caps each, in the error bars' dark grey (#282828).
    let whiskers = |s: &str| s.matches("stroke=\"#282828\"").count();
    assert_eq!(whiskers(&plain), 0);
    assert_eq!(whiskers(&with), 6, "{with}");
}

/// A run of a millisecond had x ticks "0, 0, 0.001, 0.001, 0.001": ticks finer than
/// fmt_si's three decimals get the digits they need.
#[test]
fn fine_x_ticks_are_distinct() {
    let svg = throughput_svg(&[(0.0009, 100.0), (0.00095, 150.0), (0.001, 200.0)], "t");
    assert_well_formed(&svg);
    let ticks: Vec<String> = texts(&svg)
        .into_iter()
        .filter(|t| !t.4 && t.3 == "middle" && t.5.parse::<f64>().is_ok())
        .map(|t| t.5)
        .collect();
    assert!(ticks.len() >= 3, "{ticks:?}");
    let mut d = ticks.clone();
    d.dedup();
    assert_eq!(d, ticks, "repeated tick labels");
}
