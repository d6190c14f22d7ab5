//! Bad input: corrupted lines are reported as `path:N:` with what was expected, arbitrary
//! bytes and token soup never panic, the stream stops at the first error, and the fit
//! policies and warnings behave as documented.

mod common;

use proptest::prelude::*;
use ssdlab::workload::trace::{
    BlkparseEvent, CSV_CANONICAL_COLUMNS, FitPolicy, TraceFormat, TraceOptions, open_trace,
    parse_bytes, write_header, write_request,
};
use ssdlab::workload::{IoRequest, OpKind, TraceError};
use std::io::Write;

/// Fixed-seed proptest settings: `cargo test` runs the same cases every time.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x55D1_AB00_7ACE),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// The line-based formats (blktrace is binary: `tests/trace_blktrace.rs`).
const LINE_FORMATS: [TraceFormat; 8] = [
    TraceFormat::Msr,
    TraceFormat::Ascii,
    TraceFormat::Disksim,
    TraceFormat::Blkparse,
    TraceFormat::Tencent,
    TraceFormat::Heimdall,
    TraceFormat::Csv,
    TraceFormat::Fio,
];

/// Options that read `format` (with the canonical spec for csv).
fn opts(format: TraceFormat) -> TraceOptions {
    TraceOptions {
        format: Some(format),
        columns: (format == TraceFormat::Csv).then(|| CSV_CANONICAL_COLUMNS.to_string()),
        ..TraceOptions::default()
    }
}

/// A line that is malformed in `format` whatever comes before it.
fn bad_line(format: TraceFormat) -> &'static str {
    match format {
        // Starts like an event line, so it is not skipped as a summary line.
        TraceFormat::Blkparse => "  8,16  0 1 0.5x 1 Q R 8 + 8 [p]",
        // Numeric first field, so it is not taken for a header.
        TraceFormat::Msr | TraceFormat::Tencent | TraceFormat::Csv => "12,34",
        _ => "12 34 56",
    }
}

#[test]
fn corrupted_line_is_named_with_path_and_line() {
    let dir = tempfile::tempdir().unwrap();
    for format in LINE_FORMATS {
        let mut lines = common::valid_lines(format, 20);
        lines.insert(0, "# a comment line counts as a line".into());
        lines.insert(5, String::new());
        // Line numbers are 1-based physical lines: the bad line becomes line 13.
        lines.insert(12, bad_line(format).into());
        let path = dir.path().join(format!("bad.{format}"));
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(lines.join("\r\n").as_bytes()).unwrap();
        drop(f);
        let t = open_trace(&path, &opts(format)).unwrap();
        let items: Vec<_> = t.requests.collect();
        // 10 good requests (lines 2-5, 7-12), then the error, then nothing; fio's header
        // line is one of those lines, so 9 requests.
        let good = if format == TraceFormat::Fio { 9 } else { 10 };
        assert_eq!(items.len(), good + 1, "{format}");
        assert!(items[..good].iter().all(Result::is_ok), "{format}");
        let err = items[good].as_ref().unwrap_err();
        let text = err.to_string();
        let prefix = format!("{}:13: expected ", path.display());
        assert!(text.starts_with(&prefix), "{format}: {text}");
        assert!(
            text.ends_with(&format!("found '{}'", bad_line(format))),
            "{text}"
        );
        match err {
            TraceError::Malformed { line, found, .. } => {
                assert_eq!(*line, 13);
                assert_eq!(found, bad_line(format));
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn error_messages_say_what_was_expected() {
    let cases: [(TraceFormat, &str, &str); 10] = [
        (
            TraceFormat::Ascii,
            "1 2 3 4",
            "5 space-separated fields: time_ns dev lba_sectors size_sectors \
             op(0|1|ZA|ZR|ZF|ZO|ZC|ZQ0-ZQ7), and an optional 6th: placement (the line has 4 fields)",
        ),
        (
            TraceFormat::Ascii,
            "1 2 3 4 ZX",
            "(field 5, op, must be 1 (read), 0 (write) or a zone operation ZA, ZR, ZF, ZO, ZC, ZQ0-ZQ7)",
        ),
        (
            TraceFormat::Ascii,
            "1 2 3 4 7",
            "(field 5, op, must be 1 (read) or 0 (write))",
        ),
        (
            TraceFormat::Ascii,
            "1 2 -3 4 1",
            "(field 3, lba_sectors, must be a sector number)",
        ),
        (
            TraceFormat::Ascii,
            "1 2 36028797018963968 4 1",
            "(field 3, lba_sectors, must be a sector number)",
        ),
        (
            TraceFormat::Disksim,
            "1,5 0 1 1 1",
            "(field 1, time_ms, must be",
        ),
        (
            TraceFormat::Heimdall,
            "1 0 18446744073709551615 1 1",
            "(offset + size to stay below 2^64 bytes)",
        ),
        (
            TraceFormat::Msr,
            "1,h,0,Append,0,512,0",
            "(field 4, Type, must be Read or Write)",
        ),
        (
            TraceFormat::Tencent,
            "1,0,8,2,3",
            "(field 4, type, must be 0 (read) or 1 (write))",
        ),
        (
            TraceFormat::Blkparse,
            "8,16 0 1 0.1 5 Q W 8 x 8 [p]",
            "sector + count",
        ),
    ];
    for (format, line, want) in cases {
        let out = parse_bytes(format, line.as_bytes(), &opts(format));
        let err = out.last().unwrap().as_ref().unwrap_err().to_string();
        assert!(err.starts_with("<bytes>:1: expected "), "{err}");
        assert!(err.contains(want), "{format} '{line}': {err}");
    }
}

#[test]
fn overflowing_values_are_malformed_not_panics() {
    let msr = "1844674407370955162,h,0,Read,0,512,0"; // ticks × 100 > 2^64 ns
    let e = parse_bytes(TraceFormat::Msr, msr.as_bytes(), &opts(TraceFormat::Msr));
    assert!(
        e[0].as_ref()
            .unwrap_err()
            .to_string()
            .contains("below 2^64 ns")
    );
    let blk = "4294967295,255 0 1 0.1 5 Q W 1 + 1 [p]"; // maj*256+min > 2^32
    let e = parse_bytes(
        TraceFormat::Blkparse,
        blk.as_bytes(),
        &opts(TraceFormat::Blkparse),
    );
    assert!(
        e[0].as_ref()
            .unwrap_err()
            .to_string()
            .contains("maj*256+min")
    );
    let tencent = "99999999999,0,8,0,1"; // seconds × 1e9 > 2^64
    let e = parse_bytes(
        TraceFormat::Tencent,
        tencent.as_bytes(),
        &opts(TraceFormat::Tencent),
    );
    assert!(e[0].is_err());
}

#[test]
fn blkparse_skips_non_event_lines_and_maps_rwbs() {
    let text = "\
  8,0    3        1     0.000000000   697  Q FWS [kworker/3:1H]
  8,0    3        2     0.000001000   697  Q  DS 2048 + 16 [fstrim]
  8,0    3        3     0.000002000   697  Q WFS 4096 + 8 [jbd2/sda1-8]
  8,0    3        4     0.000003000   697  G   R 4096 + 8 [cat]
  8,0    3        5     0.000004000   697  Q   N [cat]
  8,0    3        6     0.000005000   697  Q  RA 8 + 8 [cat]
CPU3 (8,0):
 Reads Queued:           1,        4KiB\t Writes Queued:           2,        4KiB
Total (8,0):
Throughput (R/W): 0KiB/s / 0KiB/s
Events (8,0): 6 entries
";
    let t = ssdlab::workload::trace::open_reader(
        std::io::Cursor::new(text.as_bytes().to_vec()),
        std::path::Path::new("x.txt"),
        &TraceOptions::default(),
    )
    .unwrap();
    assert_eq!(t.format, TraceFormat::Blkparse);
    let w = t.warnings.clone();
    let r: Vec<IoRequest> = t.requests.map(Result::unwrap).collect();
    let got: Vec<(u64, u64, u64, OpKind)> = r
        .iter()
        .map(|q| (q.arrival_ns, q.offset_bytes, q.size_bytes, q.op))
        .collect();
    assert_eq!(
        got,
        vec![
            (0, 0, 0, OpKind::Flush),
            (1_000, 2048 * 512, 16 * 512, OpKind::Trim),
            (2_000, 4096 * 512, 8 * 512, OpKind::Write),
            (5_000, 8 * 512, 8 * 512, OpKind::Read),
        ]
    );
    assert!(r.iter().all(|q| q.device == 8 * 256));
    let w = w.snapshot();
    assert!(
        w.iter()
            .any(|s| s.starts_with("skipped lines that are not blkparse event lines at 5 lines (first at line 7: 'CPU3 (8,0):'")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|s| s
                .starts_with("skipped events whose rwbs has no R, W, D or F at 1 line (at line 5")),
        "{w:?}"
    );
}

/// Issue 30, hostile suite (full mode): a blkparse line that starts like an event
/// (`maj,min` has a comma) but has dashes for digits, a minor past 2^32, or a bad
/// cpu/seq/time/pid on an action that is not kept was skipped (as a summary line, or
/// as another action) and the run exited 0. Each is now malformed, named by path and
/// line; summary lines (no comma first) are still skipped.
#[test]
fn blkparse_event_lines_with_bad_fields_are_refused_not_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let good = "  8,0    3        1     0.000000000   697  Q   W 8 + 8 [cat]";
    for bad in [
        "  -,1   - 1      -.--8------ 1  Q R 64 + 8 [ssdlab]",
        "  0,18446744073709551616   0 1 0.008 1  Q R 64 + 8 [ssdlab]",
        "  8,0    3        2     0.00x000000   697  G   R 4096 + 8 [cat]",
        "  8,0    x        2     0.000001000   697  G   R 4096 + 8 [cat]",
        "  8,0    3        -     0.000001000   697  m   N cfq message",
        "  8,0    3        2     0.000001000   6-7  C   R 4096 + 8 [0]",
    ] {
        let path = dir.path().join("t.blkparse");
        let text = format!("{good}\n{bad}\n{good}\nCPU3 (8,0):\n");
        std::fs::write(&path, text).unwrap();
        let t = open_trace(&path, &opts(TraceFormat::Blkparse)).unwrap();
        let items: Vec<_> = t.requests.collect();
        let err = items
            .iter()
            .find_map(|r| r.as_ref().err())
            .unwrap_or_else(|| panic!("`{bad}` accepted: {items:?}"));
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!(
                "{}:2: expected a blkparse event line",
                path.display()
            )),
            "`{bad}`: {msg}"
        );
    }
}

/// The events blkparse prints without `+ count` (blkparse_fmt.c: an event of zero
/// sectors): a completion prints a lone sector then `[error]`, as for the second
/// completion of a write sent with a preflush; a queue or issue prints only
/// `[process]`. They were refused as malformed (with `C` chosen, at the first such
/// completion of a real capture); they are well-formed and carry no request, so they are
/// skipped and counted, while the requests around them are kept. The lines are our own
/// values in blkparse's layout.
#[test]
fn blkparse_events_without_a_count_are_skipped_not_refused() {
    let text = "\
  8,16   5      322     3.825691592     0  D  WS 1950885322 + 8 [swapper]
  8,16   5      323     3.825791432     0  C  WS 1950885322 + 8 [0]
  8,16   5      324     3.832956675     0  C  WS 1950885322 [0]
  8,16   5      325     3.832957000     0  C  WS 77 (   12345) [0]
  8,16   5      326     3.999844139 18615  Q   W [java]
  8,16   5      327     3.999845000 18615  Q   W (   12345) [java]
  8,16   5      328     3.999846139 18615  C   R 1444653858 + 256 [0]
";
    for (event, want) in [
        (
            BlkparseEvent::Complete,
            vec![
                (
                    3_825_791_432 - 3_825_791_432,
                    1_950_885_322 * 512,
                    8 * 512,
                    OpKind::Write,
                ),
                (
                    3_999_846_139 - 3_825_791_432,
                    1_444_653_858 * 512,
                    256 * 512,
                    OpKind::Read,
                ),
            ],
        ),
        (
            BlkparseEvent::Issue,
            vec![(0, 1_950_885_322 * 512, 8 * 512, OpKind::Write)],
        ),
    ] {
        let o = TraceOptions {
            format: Some(TraceFormat::Blkparse),
            blkparse_event: event,
            ..TraceOptions::default()
        };
        let t = ssdlab::workload::trace::open_reader(
            std::io::Cursor::new(text.as_bytes().to_vec()),
            std::path::Path::new("x.txt"),
            &o,
        )
        .unwrap();
        let w = t.warnings.clone();
        let got: Vec<(u64, u64, u64, OpKind)> = t
            .requests
            .map(|r| r.unwrap_or_else(|e| panic!("{event:?}: {e}")))
            .map(|q| (q.arrival_ns, q.offset_bytes, q.size_bytes, q.op))
            .collect();
        assert_eq!(got, want, "{event:?}");
        if event == BlkparseEvent::Complete {
            let w = w.snapshot();
            assert!(
                w.iter().any(|s| s.starts_with(
                    "skipped events without data (no '+ count') at 2 lines (first at line 3"
                )),
                "{w:?}"
            );
        }
    }
    // A queued write without a count is skipped the same way.
    let o = TraceOptions {
        format: Some(TraceFormat::Blkparse),
        ..TraceOptions::default()
    };
    let r = parse_bytes(
        TraceFormat::Blkparse,
        b"  8,16 5 1 0.5 1 Q W [p]\n  8,16 5 2 0.6 1 Q W 8 + 8 [p]\n",
        &o,
    );
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].as_ref().unwrap().offset_bytes, 8 * 512);
}

/// Malformed ranges on a kept event are still refused, naming the file and line: a
/// non-number sector, `+` with no count or a bad one, a sector followed by neither `+`
/// nor a trailer, a sector with nothing after it.
#[test]
fn blkparse_malformed_ranges_are_still_refused() {
    let dir = tempfile::tempdir().unwrap();
    let good = "  8,16   5      1     0.100000000   1  C  W 8 + 8 [0]";
    for (bad, what) in [
        (
            "  8,16   5      2     0.200000000   1  C  WS x [0]",
            "sector",
        ),
        (
            "  8,16   5      2     0.200000000   1  C  WS 8 + [0]",
            "count",
        ),
        (
            "  8,16   5      2     0.200000000   1  C  WS 8 + y [0]",
            "count",
        ),
        (
            "  8,16   5      2     0.200000000   1  C  WS 8 - 8 [0]",
            "sector + count",
        ),
        (
            "  8,16   5      2     0.200000000   1  C  WS 8",
            "sector + count",
        ),
        (
            "  8,16   5      2     0.200000000   1  C  WS 8 0",
            "sector + count",
        ),
    ] {
        let path = dir.path().join("c.blkparse");
        std::fs::write(&path, format!("{good}\n{bad}\n{good}\n")).unwrap();
        let o = TraceOptions {
            format: Some(TraceFormat::Blkparse),
            blkparse_event: BlkparseEvent::Complete,
            ..TraceOptions::default()
        };
        let items: Vec<_> = open_trace(&path, &o).unwrap().requests.collect();
        let msg = items
            .iter()
            .find_map(|r| r.as_ref().err())
            .unwrap_or_else(|| panic!("`{bad}` accepted: {items:?}"))
            .to_string();
        let at = format!("{}:2: expected a blkparse event line", path.display());
        assert!(msg.starts_with(&at), "`{bad}`: {msg}");
        assert!(msg.contains(what), "`{bad}`: {msg}");
    }
}

#[test]
fn csv_needs_a_spec_and_headers_are_skipped() {
    let e = parse_bytes(TraceFormat::Csv, b"1,2,3", &TraceOptions::default());
    let msg = e[0].as_ref().unwrap_err().to_string();
    assert!(
        msg.contains("needs a column spec") && msg.contains("time=0:ms"),
        "{msg}"
    );
    let msr = b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n1,h,0,Read,0,512,9\n";
    let r = parse_bytes(TraceFormat::Msr, msr, &TraceOptions::default());
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].as_ref().unwrap().size_bytes, 512);
}

#[test]
fn warnings_for_odd_input() {
    // Backwards time, a zero-size request, a size that is not whole sectors, a day-long gap.
    let text = "1000 0 0 4096 1\n500 0 8 4096 1\n2000 0 0 0 0\n3000 0 0 1000 0\n\
                90000000000000000 0 0 4096 0\n";
    let opts = TraceOptions {
        columns: Some(
            "time=0:ns,dev=1,offset=2:bytes,size=3:bytes,op=4,delim=space,read=1,write=0".into(),
        ),
        ..TraceOptions::default()
    };
    let t = ssdlab::workload::trace::open_reader(
        std::io::Cursor::new(text.as_bytes().to_vec()),
        std::path::Path::new("w.txt"),
        &opts,
    )
    .unwrap();
    let w = t.warnings.clone();
    let r: Vec<IoRequest> = t.requests.map(Result::unwrap).collect();
    assert_eq!(
        r.iter().map(|q| q.arrival_ns).collect::<Vec<_>>(),
        vec![0, 0, 2000, 89_999_999_999_999_000]
    );
    let w = w.snapshot();
    let has = |p: &str| w.iter().any(|s| s.starts_with(p));
    assert!(
        has("timestamps go backwards at 1 line (at line 2: 500 ns before the previous request)"),
        "{w:?}"
    );
    assert!(
        has("zero-size read/write/trim requests at 1 line (at line 3); dropped"),
        "{w:?}"
    );
    assert!(
        has("sizes that are not a multiple of 512 B at 1 line (at line 4: 1000 B)"),
        "{w:?}"
    );
    assert!(
        has("time jumps forward by more than a day at 1 line (at line 5: +1041.7 days)"),
        "{w:?}"
    );
}

#[test]
fn whole_trace_unit_checks() {
    // 200 requests of 8 bytes each, 1 ns apart: sizes and times both look like wrong units.
    let mut text = String::new();
    for i in 0..2000 {
        text.push_str(&format!("{i} 0 {} 8 0\n", i * 8));
    }
    let opts = TraceOptions {
        format: Some(TraceFormat::Heimdall),
        ..TraceOptions::default()
    };
    let t = ssdlab::workload::trace::open_reader(
        std::io::Cursor::new(text.into_bytes()),
        std::path::Path::new("u.trace"),
        &opts,
    )
    .unwrap();
    let w = t.warnings.clone();
    assert_eq!(t.requests.count(), 2000);
    let w = w.snapshot();
    // Heimdall times are ms: 2000 requests over 1999 ms is plausible, no time warning.
    assert!(!w.iter().any(|s| s.contains("coarser unit")), "{w:?}");
    assert!(
        w.iter()
            .any(|s| s.starts_with("all 2000 request sizes are below 512 B")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|s| s.starts_with("sizes that are not a multiple of 512 B at 2000 lines")),
        "{w:?}"
    );
    // The same numbers as ascii ns: 2000 requests in 2 µs is a wrong-unit smell.
    let mut text = String::new();
    for i in 0..2000 {
        text.push_str(&format!("{i} 0 {i} 8 0\n"));
    }
    let out = parse_bytes(
        TraceFormat::Ascii,
        text.as_bytes(),
        &TraceOptions::default(),
    );
    assert_eq!(out.len(), 2000);
    let opened = ssdlab::workload::trace::open_reader(
        std::io::Cursor::new(text.into_bytes()),
        std::path::Path::new("u.ascii"),
        &TraceOptions::default(),
    )
    .unwrap();
    let w = opened.warnings.clone();
    opened.requests.for_each(drop);
    assert!(
        w.snapshot()
            .iter()
            .any(|s| s.contains("coarser unit than ns")),
        "{:?}",
        w.snapshot()
    );
}

#[test]
fn fit_needs_capacity_and_reject_names_the_line() {
    let line = "0 0 8 8 1\n0 0 16 8 1\n";
    let o = TraceOptions {
        capacity_bytes: 0,
        fit: FitPolicy::Wrap,
        ..TraceOptions::default()
    };
    let e = parse_bytes(TraceFormat::Ascii, line.as_bytes(), &o);
    assert!(
        e[0].as_ref()
            .unwrap_err()
            .to_string()
            .contains("capacity above 0")
    );
    let o = TraceOptions {
        capacity_bytes: 16 * 512,
        ..TraceOptions::default()
    };
    let r = parse_bytes(TraceFormat::Ascii, line.as_bytes(), &o);
    assert!(r[0].is_ok());
    assert_eq!(
        r[1].as_ref().unwrap_err().to_string(),
        "<bytes>:2: request ends at byte 12288, past the device's 8192 bytes (use \
         --trace-fit wrap or scale)"
    );
    assert_eq!(r.len(), 2);
}

#[test]
fn wrap_splits_a_request_crossing_the_end() {
    // Capacity 10 sectors; a 4-sector write at sector 18 wraps to 8 and crosses the end:
    // sectors 8-9, then 0-1, same arrival.
    let o = TraceOptions {
        capacity_bytes: 10 * 512,
        fit: FitPolicy::Wrap,
        ..TraceOptions::default()
    };
    let r: Vec<IoRequest> = parse_bytes(TraceFormat::Ascii, b"7 3 18 4 0\n", &o)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let parts: Vec<(u64, u64, u64)> = r
        .iter()
        .map(|q| (q.arrival_ns, q.offset_bytes, q.size_bytes))
        .collect();
    assert_eq!(parts, vec![(0, 8 * 512, 2 * 512), (0, 0, 2 * 512)]);
    // Larger than the device: shortened to it, then placed from the wrapped offset.
    let r: Vec<IoRequest> = parse_bytes(TraceFormat::Ascii, b"7 3 0 40 0\n", &o)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(r.iter().map(|q| q.size_bytes).sum::<u64>(), 10 * 512);
}

/// Tokens to build nasty lines from.
const TOKENS: &[&str] = &[
    "0",
    "1",
    "2",
    "7",
    "512",
    "4096",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "-1",
    "1.5",
    "0.000001850",
    ".",
    "1e9",
    ",",
    ",,",
    "Read",
    "Write",
    "read",
    "Q",
    "D",
    "C",
    "R",
    "W",
    "WS",
    "FWS",
    "N",
    "8,16",
    "0,0",
    "+",
    "[java]",
    "#",
    "\t",
    " ",
    "\r",
    "é",
    "\u{0}",
    "Timestamp",
    "m",
    "cfq1211A",
    "/",
];

/// A valid line of each format, to mix and mutate.
const VALID: &[&str] = &[
    "3 0 8 8 1",
    "0.5 2 8 16 0",
    "128166385295514663,hm,0,Write,9056014336,2048,2833",
    "1538323200,4247200,128,1,1058",
    "  8,16   5        2     0.000001850 18615  Q   R 1444645666 + 256 [java]",
    "  8,0    3        1     0.000000000   697  Q FWS [kworker/3:1H]",
    "12,1,4096,512,Read",
    "99,1,0,0,Flush",
];

fn token_line() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..14).prop_map(|t| t.join(" "))
}

fn soup() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..600),
        prop::collection::vec(token_line(), 0..30).prop_map(|l| l.join("\n").into_bytes()),
        prop::collection::vec(
            prop_oneof![
                token_line(),
                "[0-9 ,.]{0,40}",
                prop::sample::select(VALID).prop_map(str::to_string),
                // A valid line with one byte changed.
                (
                    prop::sample::select(VALID),
                    any::<prop::sample::Index>(),
                    any::<u8>()
                )
                    .prop_map(|(l, i, b)| {
                        let mut v = l.as_bytes().to_vec();
                        v[i.index(l.len())] = b;
                        String::from_utf8_lossy(&v).into_owned()
                    }),
            ],
            0..30
        )
        .prop_map(|l| l.join("\r\n").into_bytes()),
    ]
}

/// The physical lines of `bytes`: ended by `\n`, `\r\n` or a lone `\r`.
fn physical_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                out.push(&bytes[start..i]);
                start = i + 1;
            }
            b'\r' => {
                out.push(&bytes[start..i]);
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < bytes.len() {
        out.push(&bytes[start..]);
    }
    out
}

/// How an error message shows a line: lossy UTF-8, control characters but tab escaped.
fn shown(line: &[u8]) -> String {
    String::from_utf8_lossy(line)
        .chars()
        .take(80)
        .flat_map(|c| {
            let escape = c.is_control() && c != '\t';
            let s: String = if escape {
                c.escape_default().collect()
            } else {
                c.to_string()
            };
            s.chars().collect::<Vec<_>>()
        })
        .collect()
}

/// Requires requests followed by at most one error naming a real line, arrivals that never
/// go backwards and sensible ranges; returns the requests.
fn check_stream(
    format: TraceFormat,
    bytes: &[u8],
    out: &[Result<IoRequest, TraceError>],
) -> Vec<IoRequest> {
    let physical = physical_lines(bytes);
    let lines = physical.len() as u64;
    // Requests, then at most one error, which is last.
    if let Some(pos) = out.iter().position(Result::is_err) {
        assert_eq!(pos, out.len() - 1, "{format}: items after an error");
        match &out[pos] {
            Err(TraceError::Malformed {
                line, found, path, ..
            }) => {
                assert_eq!(path.to_str(), Some("<bytes>"));
                assert!(
                    *line >= 1 && *line <= lines,
                    "{format}: line {line} of {lines}"
                );
                let want = shown(physical[*line as usize - 1]);
                assert!(
                    found.starts_with(&want),
                    "{format}: line {line} is '{want}', error shows '{found}'"
                );
            }
            // Nothing kept: the error names the file; then there was nothing before it.
            Err(TraceError::Empty { path, .. }) => {
                assert_eq!(path.to_str(), Some("<bytes>"));
                assert_eq!(pos, 0, "{format}: an empty-trace error after requests");
            }
            Err(TraceError::PastEnd { .. }) => panic!("no capacity limit was set"),
            Err(e) => panic!("{format}: unexpected {e}"),
            Ok(_) => unreachable!(),
        }
    }
    let mut prev = 0;
    for r in out.iter().filter_map(|r| r.as_ref().ok()) {
        assert!(r.arrival_ns >= prev, "{format}: arrival went backwards");
        prev = r.arrival_ns;
        if r.op == OpKind::Flush {
            assert_eq!((r.offset_bytes, r.size_bytes), (0, 0));
        } else {
            assert!(r.size_bytes > 0);
            assert!(r.offset_bytes.checked_add(r.size_bytes).is_some());
        }
    }
    out.iter()
        .filter_map(|r| r.as_ref().ok())
        .copied()
        .collect()
}

/// What parsed is written back in the same format and must parse to the same requests
/// (the fuzz targets' round trip).
fn check_round_trip(format: TraceFormat, reqs: &[IoRequest]) {
    if reqs.is_empty() {
        // Nothing to write back (and an empty trace is an error by design).
        return;
    }
    let mut text = Vec::new();
    write_header(format, &mut text).unwrap();
    for r in reqs {
        write_request(format, r, &mut text).expect("a parsed request is writable");
    }
    let again: Vec<IoRequest> = parse_bytes(format, &text, &opts(format))
        .into_iter()
        .map(|r| r.unwrap_or_else(|e| panic!("{format}: {e}")))
        .collect();
    assert_eq!(again, reqs, "{format}: round trip");
}

proptest! {
    #![proptest_config(config(512))]
    #[test]
    fn garbage_never_panics_errors_name_the_right_line_and_what_parsed_round_trips(bytes in soup()) {
        // Wrapped in gzip or zstd, the same bytes give the same items (unless they already
        // start like a compressed stream, which the raw reading would decompress).
        let plain = ssdlab::workload::trace::Compression::sniff(&bytes)
            == ssdlab::workload::trace::Compression::None;
        let gz = {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&bytes).unwrap();
            e.finish().unwrap()
        };
        let zst = zstd::stream::encode_all(&bytes[..], 1).unwrap();
        for format in LINE_FORMATS {
            let out = parse_bytes(format, &bytes, &opts(format));
            let reqs = check_stream(format, &bytes, &out);
            check_round_trip(format, &reqs);
            if plain {
                for wrapped in [&gz, &zst] {
                    prop_assert_eq!(&parse_bytes(format, wrapped, &opts(format)), &out);
                }
            }
        }
        // Detection either picks a format whose stream behaves, or says why it cannot.
        let t = ssdlab::workload::trace::open_reader(
            std::io::Cursor::new(bytes.clone()),
            std::path::Path::new("<bytes>"),
            &TraceOptions::default(),
        );
        if let Ok(t) = t {
            let format = t.format;
            let out: Vec<_> = t.requests.collect();
            check_stream(format, &bytes, &out);
        }
    }

    #[test]
    fn fit_policies_keep_requests_inside(
        reqs in prop::collection::vec((0u64..1 << 30, 1u64..1 << 12, any::<bool>()), 1..50),
        cap_sectors in 1u64..1 << 20,
    ) {
        let mut text = Vec::new();
        for (i, (lba, n, read)) in reqs.iter().enumerate() {
            writeln!(text, "{i} 0 {lba} {n} {}", u8::from(*read)).unwrap();
        }
        let cap = cap_sectors * 512;
        let total: u64 = reqs.iter().map(|(_, n, _)| (n * 512).min(cap)).sum();
        for fit in [FitPolicy::Wrap, FitPolicy::Scale] {
            let o = TraceOptions { capacity_bytes: cap, fit, ..TraceOptions::default() };
            let out: Vec<IoRequest> = parse_bytes(TraceFormat::Ascii, &text, &o)
                .into_iter()
                .map(Result::unwrap)
                .collect();
            prop_assert!(out.iter().all(|r| r.size_bytes > 0 && r.offset_bytes + r.size_bytes <= cap));
            if fit == FitPolicy::Scale {
                prop_assert_eq!(out.len(), reqs.len());
            }
            prop_assert_eq!(out.iter().map(|r| r.size_bytes).sum::<u64>(), total);
        }
        // Reject: either everything fits, or the first request past the end is named.
        let o = TraceOptions { capacity_bytes: cap, ..TraceOptions::default() };
        let out = parse_bytes(TraceFormat::Ascii, &text, &o);
        match reqs.iter().position(|(lba, n, _)| (lba + n) * 512 > cap) {
            None => prop_assert!(out.iter().all(Result::is_ok)),
            Some(i) => {
                prop_assert_eq!(out.len(), i + 1);
                let is_past_end = matches!(
                    &out[i],
                    Err(TraceError::PastEnd { line, .. }) if *line == i as u64 + 1
                );
                prop_assert!(is_past_end);
            }
        }
    }
}
