//! `gen-trace --out-format`: a trace read in any format is written in any format, or
//! refused (issue 30, "gen-trace --trace converts a trace (any reader → any writer), or
//! is refused"). The writers' round trips on random requests are in
//! `tests/trace_roundtrip.rs`; here the command line: every format out and back, the
//! refusals with exit 2, and blktrace's per-CPU file name.

use std::fs;
use std::path::Path;

mod common;
use common::{refused, ssdlab, stderr};
use ssdlab::workload::trace::{CSV_CANONICAL_COLUMNS, FORMATS, TraceFormat};

/// Reads and writes only, device 0, whole sectors, times in whole microseconds: what
/// every format carries exactly.
const ASCII: &str = "\
0 0 0 8 0
1000 0 8 16 1
2500000 0 64 8 0
2501000 0 1048576 256 1
9000000000 0 12 1 0
";

fn convert(input: &Path, from: TraceFormat, to: TraceFormat, out: &Path) {
    let mut args = vec![
        "gen-trace",
        "--capacity",
        "1GiB",
        "--trace",
        input.to_str().unwrap(),
        "--format",
        from.name(),
        "--out-format",
        to.name(),
        "-o",
        out.to_str().unwrap(),
    ];
    if from == TraceFormat::Csv {
        args.extend(["--columns", CSV_CANONICAL_COLUMNS]);
    }
    let o = ssdlab(&args);
    assert_eq!(o.status.code(), Some(0), "{from} -> {to}: {}", stderr(&o));
    assert!(
        stderr(&o).contains("wrote 5 requests"),
        "{from} -> {to}: {}",
        stderr(&o)
    );
}

#[test]
fn every_format_is_written_and_reads_back_as_the_same_trace() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("t.ascii");
    fs::write(&src, ASCII).unwrap();
    for f in &FORMATS {
        let mid = if f.format() == TraceFormat::Blktrace {
            dir.path().join("t.blktrace.0")
        } else {
            dir.path().join(format!("mid.{}", f.name))
        };
        convert(&src, TraceFormat::Ascii, f.format(), &mid);
        let back = dir.path().join(format!("back-{}.ascii", f.name));
        convert(&mid, f.format(), TraceFormat::Ascii, &back);
        assert_eq!(fs::read_to_string(&back).unwrap(), ASCII, "{}", f.name);
    }
    // The blktrace file is found from its base name too, as blktrace's own are.
    let back = dir.path().join("back-base.ascii");
    convert(
        &dir.path().join("t"),
        TraceFormat::Blktrace,
        TraceFormat::Ascii,
        &back,
    );
    assert_eq!(fs::read_to_string(&back).unwrap(), ASCII);
}

/// A trim in a blkparse trace cannot be written as MSR (reads and writes only): exit 2
/// naming the flag, the format, the request and the field; no output file is left.
#[test]
fn a_request_the_output_format_cannot_carry_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("t.blkparse");
    fs::write(
        &src,
        "  8,0  1 1 0.000001000 7  Q   W 8 + 8 [p]\n  8,0  1 2 0.000002000 7  Q   D 64 + 8 [p]\n",
    )
    .unwrap();
    let out = dir.path().join("t.csv");
    for (to, field) in [("msr", "trim"), ("ascii", "trim"), ("tencent", "trim")] {
        refused(
            &[
                "gen-trace",
                "--trace",
                src.to_str().unwrap(),
                "--out-format",
                to,
                "-o",
                out.to_str().unwrap(),
            ],
            &[
                &format!("--out-format {to}"),
                "request 2",
                &format!("the {to} format cannot carry {field}"),
            ],
        );
        assert!(!out.exists(), "{to}: the output was left behind");
    }
}

/// One written blktrace file must be named as a per-CPU file, which is how blkparse and
/// `--trace NAME` find it; refused before any work otherwise.
#[test]
fn blktrace_output_is_named_as_a_per_cpu_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("capture.bin");
    refused(
        &[
            "gen-trace",
            "--requests",
            "10",
            "--out-format",
            "blktrace",
            "-o",
            out.to_str().unwrap(),
        ],
        &[
            "--out-format blktrace",
            "NAME.blktrace.CPU",
            "capture.bin.blktrace.0",
        ],
    );
    assert!(!out.exists());
    let ok = dir.path().join("capture.blktrace.0");
    let o = ssdlab(&[
        "gen-trace",
        "--requests",
        "10",
        "--out-format",
        "BLKTRACE",
        "-o",
        ok.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // One 48-byte event per request (the default suite has several phases).
    let e = stderr(&o);
    let n: u64 = e
        .split_whitespace()
        .nth(1)
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("{e}"));
    assert!(e.starts_with("wrote ") && n >= 10, "{e}");
    assert_eq!(fs::metadata(&ok).unwrap().len(), n * 48);
}

#[test]
fn an_unknown_out_format_is_refused_with_the_known_ones() {
    refused(
        &["gen-trace", "--out-format", "vcd", "-o", "-"],
        &["--out-format", "vcd", "fio"],
    );
}

/// docs/traces.md states each writer's resolution as the registry does.
#[test]
fn the_docs_state_each_writers_resolution() {
    let docs = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/traces.md")).unwrap();
    for f in &FORMATS {
        let row = format!("| `{}` | {} |", f.name, f.resolution);
        assert!(docs.contains(&row), "docs/traces.md lacks the row {row}");
    }
}
