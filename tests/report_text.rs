//! Text rendering of a hand-made report: key figures present, aligned, deterministic.

mod report_common;

use report_common::sample_report;
use ssdlab::report::text::render_text;

#[test]
fn contains_key_figures() {
    let r = sample_report();
    let t = render_text(&r, &[]);
    for needle in [
        "ssdlab 0.1.0 report (measured: after preconditioning)",
        "123,457",               // IOPS
        "482 MiB/s",             // throughput
        "84.5 µs",               // mean latency
        "61.0 µs",               // p50
        "1.25 ms",               // p99
        "4.80 ms",               // p99.9
        "9.10 ms",               // max
        "1.450",                 // WA
        "1.000 / 0.430 / 0.020", // WA split
        "5,664",                 // erases
        "3 / 5.53 / 11 / 1.25",  // erase-count spread
        "8.00 MiB",              // mapping memory
        "3.50 s",                // formula time
        "2.80 s / 700 ms",       // I/O vs GC
        "20.0 %",                // GC share
        "10.1 s",                // simulated time
        "ftl.gc.victims",
        "4,321",
        "seq-write",
        "rand-write",
        "98,765",
        "18.8 %",
        "counters exclude the fill",
        "beyond device end",
    ] {
        assert!(t.contains(needle), "missing {needle:?} in\n{t}");
    }
}

#[test]
fn deterministic_and_tidy() {
    let r = sample_report();
    let a = render_text(&r, &[("page", &r), ("dftl", &r)]);
    let b = render_text(&r.clone(), &[("page", &r), ("dftl", &r)]);
    assert_eq!(a, b);
    assert!(a.ends_with('\n'));
    for line in a.lines() {
        assert_eq!(line, line.trim_end(), "trailing blanks in {line:?}");
    }
}

#[test]
fn values_are_right_aligned_in_one_column() {
    let t = render_text(&sample_report(), &[]);
    let ends: Vec<usize> = t
        .lines()
        .filter(|l| {
            l.starts_with("  IOPS")
                || l.starts_with("  Erases")
                || l.starts_with("  Mapping memory")
        })
        .map(|l| l.chars().count())
        .collect();
    assert_eq!(ends.len(), 3);
    assert!(ends.iter().all(|&e| e == ends[0]), "{ends:?}\n{t}");
}

#[test]
fn comparison_has_one_column_per_report() {
    let a = sample_report();
    let mut b = sample_report();
    b.iops = 2_000.0;
    b.phases.pop();
    let t = render_text(&a, &[("page-ftl", &a), ("dftl", &b)]);
    let cmp = &t[t.find("Comparison").expect("comparison section")..];
    let header = cmp.lines().nth(1).unwrap();
    assert!(
        header.starts_with("Metric") && header.contains("page-ftl") && header.ends_with("dftl")
    );
    let iops = cmp
        .lines()
        .find(|l| l.trim_start().starts_with("IOPS"))
        .unwrap();
    assert!(
        iops.contains("123,457") && iops.ends_with("2,000"),
        "{iops}"
    );
    // A phase only the first design ran shows a dash for the second.
    let rw = cmp
        .lines()
        .find(|l| l.contains("rand-write: IOPS"))
        .unwrap();
    assert!(rw.ends_with(" -"), "{rw}");
}

#[test]
fn empty_report_renders_without_nan() {
    let r = ssdlab::report::Report {
        write_amplification: f64::NAN,
        ..Default::default()
    };
    let t = render_text(&r, &[]);
    assert!(t.contains("n/a"));
    assert!(!t.contains("NaN"));
}

#[test]
fn the_end_of_run_flush_is_said_to_be_outside_the_phases() {
    let mut r = sample_report();
    r.buffer.buffer_end_flush_pages = 0;
    let note = "end-of-run buffer flush";
    assert!(!render_text(&r, &[]).contains(note));
    r.buffer.buffer_end_flush_pages = 16_384;
    let t = render_text(&r, &[]);
    assert!(
        t.contains(
            "(the end-of-run buffer flush, 16,384 pages, is in the totals above, not in a phase)"
        ),
        "{t}"
    );
}

/// The `namespaces` and `fdp` sections, JSON-only before, are in the text report and on
/// the HTML run page (through the page template) when the report has them, and absent
/// when it does not.
#[test]
fn namespaces_and_fdp_sections_are_rendered_when_present() {
    use ssdlab::fdp::{FdpReport, FdpUsage, Isolation};
    use ssdlab::report::{Figures, NamespaceReport, html};
    let plain = sample_report();
    let t = render_text(&plain, &[]);
    assert!(!t.contains("Namespaces") && !t.contains("FDP"), "{t}");
    let mut r = plain.clone();
    let mut ns = NamespaceReport {
        name: "db".into(),
        size_bytes: 1 << 30,
        requests: 4242,
        iops: 1234.5,
        write_bytes: 3 << 20,
        media_write_bytes: 5 << 20,
        write_amplification: 1.875,
        write_amplification_contribution: 0.725,
        ..Default::default()
    };
    ns.write_latency_ns.count = 10;
    ns.write_latency_ns.p99 = 77_000;
    r.namespaces = vec![
        ns.clone(),
        NamespaceReport {
            name: "logs".into(),
            ..ns
        },
    ];
    r.namespace_overhead = Some(ssdlab::report::NamespaceOverhead {
        media_write_bytes: 7 << 20,
        write_amplification_contribution: 0.125,
    });
    r.fdp = Some(FdpReport {
        host_bytes_written: 8 << 20,
        media_bytes_written: 12 << 20,
        media_bytes_erased: 4 << 20,
        waf: 1.5,
        handles: vec![FdpUsage {
            index: 1,
            isolation: Some(Isolation::PersistentlyIsolated),
            host_bytes_written: 8 << 20,
            media_bytes_written: 12 << 20,
            waf: 1.5,
        }],
        namespaces: vec![],
        events: [("media_reallocated".to_string(), 17u64)]
            .into_iter()
            .collect(),
    });
    let t = render_text(&r, &[]);
    for needle in [
        "Namespaces",
        "db",
        "logs",
        "1.00 GiB",
        "4,242",
        "77.0 µs",
        "0.725",
        "Media written",
        "5.00 MiB",
        "1.875",
        "Pages of no namespace (translation pages, padding): media written 7.00 MiB, WA share 0.125",
        "FDP: host bytes written 8.00 MiB, media bytes written 12.0 MiB",
        "handle 1",
        "persistently",
        "1.500",
        "media_reallocated",
        "17",
    ] {
        assert!(t.contains(needle), "missing {needle:?} in\n{t}");
    }
    for line in t.lines() {
        assert_eq!(line, line.trim_end(), "trailing blanks in {line:?}");
    }
    let f = Figures::default();
    let page = html::render(&html::run_page("ssdlab run", &[("page", &r, &f)]));
    for needle in [
        "<h2>Namespaces</h2>",
        "<td class=\"t\">logs</td>",
        "<td class=\"t\">(no namespace)</td>",
        "<h2>Flexible Data Placement</h2>",
        "persistently-isolated",
        "media_reallocated",
    ] {
        assert!(page.contains(needle), "missing {needle:?} in the page");
    }
    let page = html::render(&html::run_page("ssdlab run", &[("page", &plain, &f)]));
    assert!(!page.contains("<h2>Namespaces</h2>") && !page.contains("Flexible Data"));
}
