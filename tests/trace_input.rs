//! Trace input from anywhere: standard input, FIFOs, compressed files and streams, odd
//! text (byte order mark, CR-only and CRLF endings, control bytes), and traces that would
//! simulate nothing, which are errors (exit code 2) naming the file and why.

use ssdlab::workload::trace::{
    Compression, TraceFormat, TraceOptions, open_reader, open_stream, open_trace, parse_bytes,
};
use ssdlab::workload::{IoRequest, OpKind, TraceError};
use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn sample(rel: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/traces")
        .join(rel);
    assert!(
        p.exists(),
        "missing sample trace {} (shared/ beside the checkout)",
        p.display()
    );
    p
}

fn with_format(format: TraceFormat) -> TraceOptions {
    TraceOptions {
        format: Some(format),
        ..TraceOptions::default()
    }
}

/// All requests, panicking on an error.
fn all(t: ssdlab::workload::trace::OpenedTrace) -> Vec<IoRequest> {
    t.requests
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

/// The error ending a stream (or opening it).
fn error_of(r: Result<ssdlab::workload::trace::OpenedTrace, TraceError>) -> String {
    match r {
        Err(e) => e.to_string(),
        Ok(mut t) => t
            .requests
            .find_map(Result::err)
            .expect("an error")
            .to_string(),
    }
}

/// Three ascii requests: 4 KiB write, 8 KiB read 1 ms later, 4 KiB write 2 ms later.
const ASCII: &str = "0 0 8 8 0\n1000000 0 16 16 1\n2000000 0 8 8 0\n";

fn ascii_expected() -> Vec<IoRequest> {
    let r = |t, o, s, op| IoRequest::new(op, o, s).at(t);
    vec![
        r(0, 4096, 4096, OpKind::Write),
        r(1_000_000, 8192, 8192, OpKind::Read),
        r(2_000_000, 4096, 4096, OpKind::Write),
    ]
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn every_compression(data: &[u8]) -> Vec<(Compression, Vec<u8>)> {
    let bz = {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    };
    let xz = {
        let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
        e.write_all(data).unwrap();
        e.finish().unwrap()
    };
    vec![
        (Compression::None, data.to_vec()),
        (Compression::Gzip, gzip(data)),
        (Compression::Bzip2, bz),
        (Compression::Xz, xz),
        (
            Compression::Zstd,
            zstd::stream::encode_all(data, 1).unwrap(),
        ),
    ]
}

#[test]
fn compressed_files_are_recognised_by_magic_not_name() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, bytes) in every_compression(ASCII.as_bytes()) {
        // A misleading name: detection must not trust the extension for compression.
        let path = dir.path().join(format!("{kind:?}.ascii"));
        std::fs::write(&path, &bytes).unwrap();
        let t = open_trace(&path, &TraceOptions::default()).unwrap();
        assert_eq!(t.compression, kind);
        assert_eq!(t.format, TraceFormat::Ascii, "{kind:?}");
        assert_eq!(all(t), ascii_expected(), "{kind:?}");
    }
}

#[test]
fn concatenated_gzip_and_zstd_are_read_whole() {
    let mut gz = gzip(b"0 0 8 8 0\n");
    gz.extend(gzip(b"1000000 0 16 16 1\n"));
    gz.extend(gzip(b"2000000 0 8 8 0\n"));
    let t = open_reader(
        Cursor::new(gz),
        Path::new("x.ascii"),
        &TraceOptions::default(),
    );
    assert_eq!(all(t.unwrap()), ascii_expected());
    let mut zst = zstd::stream::encode_all(&b"0 0 8 8 0\n1000000 0 16 16 1\n"[..], 3).unwrap();
    zst.extend(zstd::stream::encode_all(&b"2000000 0 8 8 0\n"[..], 3).unwrap());
    let t = open_stream(
        Cursor::new(zst),
        Path::new("x.ascii"),
        &TraceOptions::default(),
    );
    assert_eq!(all(t.unwrap()), ascii_expected());
}

#[test]
fn corrupt_compressed_data_names_the_file() {
    let mut gz = gzip(ASCII.repeat(2000).as_bytes());
    let n = gz.len();
    gz.truncate(n - 40);
    let e = error_of(open_reader(
        Cursor::new(gz),
        Path::new("cut.gz"),
        &with_format(TraceFormat::Ascii),
    ));
    // Found while reading the head (small file) or later (after some line).
    assert!(
        e.starts_with("cut.gz: ") && e.contains("gzip data is corrupt or cut short"),
        "{e}"
    );
}

#[test]
fn a_stream_that_cannot_seek_is_read_and_detected() {
    // `open_stream` takes any `Read`; a `Chain` of two slices cannot seek.
    let head = &ASCII.as_bytes()[..7];
    let rest = &ASCII.as_bytes()[7..];
    let stream = std::io::Read::chain(head, rest);
    let t = open_stream(stream, Path::new("s.ascii"), &TraceOptions::default()).unwrap();
    assert_eq!(all(t), ascii_expected());
    // The scale policy needs two passes: refused with the reason.
    let o = TraceOptions {
        fit: ssdlab::workload::trace::FitPolicy::Scale,
        capacity_bytes: 1 << 20,
        ..TraceOptions::default()
    };
    let e = error_of(open_stream(Cursor::new(ASCII), Path::new("s.ascii"), &o));
    assert!(e.contains("can be read only once"), "{e}");
}

#[test]
fn byte_order_mark_is_dropped() {
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(ASCII.as_bytes());
    let t = open_reader(
        Cursor::new(bytes.clone()),
        Path::new("b.ascii"),
        &TraceOptions::default(),
    );
    assert_eq!(all(t.unwrap()), ascii_expected());
    let out: Vec<_> = parse_bytes(TraceFormat::Ascii, &gzip(&bytes), &TraceOptions::default());
    assert_eq!(
        out,
        ascii_expected().into_iter().map(Ok).collect::<Vec<_>>()
    );
}

#[test]
fn cr_only_and_crlf_endings_read_like_lf_in_every_line_format() {
    let blk = std::fs::read(sample("blkparse/java-job.blkparse.txt")).unwrap();
    let lf = all(open_reader(
        Cursor::new(blk.clone()),
        Path::new("j"),
        &TraceOptions::default(),
    )
    .unwrap());
    assert!(lf.len() > 1000, "the sample has many queue events");
    for sep in [&b"\r"[..], b"\r\n"] {
        let converted: Vec<u8> = blk.split(|&b| b == b'\n').collect::<Vec<_>>().join(sep);
        let got = all(open_reader(
            Cursor::new(converted),
            Path::new("j"),
            &TraceOptions::default(),
        )
        .unwrap());
        assert_eq!(got, lf, "line ends {sep:?}");
    }
    let cr = ASCII.replace('\n', "\r");
    let out = parse_bytes(TraceFormat::Ascii, cr.as_bytes(), &TraceOptions::default());
    assert_eq!(
        out,
        ascii_expected().into_iter().map(Ok).collect::<Vec<_>>()
    );
    // Line numbers count CR-ended lines too.
    let bad = "0 0 8 8 0\r# c\r\r0 0 x 8 0\r";
    let e = parse_bytes(TraceFormat::Ascii, bad.as_bytes(), &TraceOptions::default());
    assert!(
        e[1].as_ref()
            .unwrap_err()
            .to_string()
            .starts_with("<bytes>:4: "),
        "{e:?}"
    );
}

#[test]
fn control_bytes_in_quoted_lines_are_escaped() {
    let e = parse_bytes(
        TraceFormat::Ascii,
        b"0 0 8\x1b[2J 8 0\n",
        &TraceOptions::default(),
    );
    let text = e[0].as_ref().unwrap_err().to_string();
    assert!(text.ends_with("found '0 0 8\\u{1b}[2J 8 0'"), "{text}");
    assert!(!text.contains('\x1b'));
}

#[test]
fn traces_that_keep_no_request_are_errors() {
    let empty = |bytes: &[u8], o: &TraceOptions| {
        error_of(open_reader(
            Cursor::new(bytes.to_vec()),
            Path::new("t.txt"),
            o,
        ))
    };
    // Known early, at open.
    let e = empty(b"", &with_format(TraceFormat::Ascii));
    assert_eq!(e, "t.txt: no requests: the trace is empty");
    let e = empty(b"# c\n\n", &with_format(TraceFormat::Msr));
    assert_eq!(
        e,
        "t.txt: no requests: the trace has only comments and blank lines"
    );
    let e = empty(b"", &TraceOptions::default());
    assert!(
        e.starts_with("t.txt: no requests: the trace has no data lines"),
        "{e}"
    );
    // Known at the end of the stream.
    let e = empty(
        b"garbage one\ngarbage two\n",
        &with_format(TraceFormat::Blkparse),
    );
    assert_eq!(
        e,
        "t.txt: no requests: none of its 2 data lines is a request that was kept: 2 skipped \
         lines that are not blkparse event lines (first at line 1: 'garbage one')"
    );
    let d_only = b"  8,0 0 1 0.1 5 D W 8 + 8 [p]\n  8,0 0 2 0.2 5 C W 8 + 8 [p]\n";
    let e = empty(d_only, &with_format(TraceFormat::Blkparse));
    assert!(e.contains("2 were events other than Q (queued)"), "{e}");
    let e = empty(b"0 0 8 0 0\n5 0 8 0 1\n", &with_format(TraceFormat::Ascii));
    assert!(e.ends_with("2 had size 0 (dropped)"), "{e}");
    let o = TraceOptions {
        device: Some(7),
        ..with_format(TraceFormat::Ascii)
    };
    let e = empty(b"0 3 8 8 0\n1 0 8 8 0\n2 1 8 8 0\n3 3 8 8 0\n", &o);
    assert_eq!(
        e,
        "t.txt: no requests: device 7 not in trace; devices seen: 0, 1, 3"
    );
}

fn ssdlab(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ssdlab"));
    c.args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("run ssdlab");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        let bytes = bytes.to_vec();
        // Written from a thread: the child may exit before reading it all.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    child.wait_with_output().unwrap()
}

const RUN: &[&str] = &["run", "--capacity", "16GiB", "--trace-fit", "wrap"];

#[test]
fn cli_reads_standard_input_compressed_or_not() {
    let trace = std::fs::read(sample("spc-ascii/financial1-head10k.ascii")).unwrap();
    for (kind, bytes) in every_compression(&trace) {
        let mut args = RUN.to_vec();
        args.extend(["--trace", "-", "--format", "ascii"]);
        let o = ssdlab(&args, Some(&bytes));
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{kind:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            out.contains("10,000"),
            "{kind:?}: 10,000 requests in\n{out}"
        );
    }
}

#[cfg(unix)]
#[test]
fn cli_reads_a_fifo_and_detects_the_format_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("trace.fifo");
    let ok = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo");
    let msr = std::fs::read(sample("msr/hm_0-head1k.csv")).unwrap();
    let gz = gzip(&msr);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, gz).unwrap())
    };
    let mut args = RUN.to_vec();
    let f = fifo.to_str().unwrap().to_string();
    args.extend(["--trace", &f]);
    let o = ssdlab(&args, None);
    // Should ssdlab have failed before opening the FIFO, the writer would wait forever for
    // a reader: open it (without blocking) so the test reports the failure instead.
    {
        use std::os::unix::fs::OpenOptionsExt;
        let _unblock = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo);
        writer.join().unwrap();
    }
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("1,000"));
}

#[test]
fn cli_exits_2_for_a_trace_without_requests() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.ascii");
    std::fs::write(&empty, b"").unwrap();
    let mut args = RUN.to_vec();
    let p = empty.to_str().unwrap().to_string();
    args.extend(["--trace", &p]);
    let o = ssdlab(&args, None);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("{p}: no requests: the trace ")),
        "{err}"
    );
    let f = sample("spc-ascii/financial1-head10k.ascii");
    let f = f.to_str().unwrap().to_string();
    let mut args = RUN.to_vec();
    args.extend(["--trace", &f, "--trace-device", "99"]);
    let o = ssdlab(&args, None);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no requests: device 99 not in trace; devices seen: 0, 1"),
        "{err}"
    );
}

/// `--requests N` replays the trace's first N requests; generator flags next to a trace
/// are refused, not ignored.
#[test]
fn requests_caps_a_replay_and_generator_flags_are_refused() {
    let trace = std::fs::read(sample("spc-ascii/financial1-head10k.ascii")).unwrap();
    for n in [1u64, 1234, 9999, 10_000, 50_000] {
        let mut args = RUN.to_vec();
        let cap = n.to_string();
        args.extend([
            "--trace",
            "-",
            "--format",
            "ascii",
            "--requests",
            &cap,
            "--json",
            "-",
            "-q",
        ]);
        let o = ssdlab(&args, Some(&trace));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(
            report["counters"]["host.requests"].as_u64(),
            Some(n.min(10_000)),
            "--requests {n}"
        );
    }
    for (flag, value) in [
        ("--workload", "random-write"),
        ("--span", "1GiB"),
        ("--size", "8KiB"),
        ("--read-percent", "30"),
        ("--mean-gap-ns", "1000"),
        ("--requests", "0"),
    ] {
        let mut args = RUN.to_vec();
        args.extend(["--trace", "-", "--format", "ascii", flag, value]);
        let o = ssdlab(&args, Some(&trace));
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {e}");
        assert!(e.contains("workload."), "{flag} {value}: {e}");
        assert!(o.stdout.is_empty(), "{flag} {value}");
    }
}
