//! The check every fuzz target runs: feed bytes through a trace reader, require a
//! well-formed stream, and round-trip whatever parsed. `tests/trace_errors.rs` runs the
//! same properties under `cargo test` on proptest-generated input.

use ssdlab::workload::trace::{
    CSV_CANONICAL_COLUMNS, ColumnSpec, TraceFormat, TraceOptions, open_reader, open_stream,
    parse_bytes, write_header, write_request,
};
use ssdlab::workload::{IoRequest, OpKind, TraceError};
use std::io::Cursor;
use std::path::Path;

/// Options that read `format` (the canonical column spec for csv).
pub fn options(format: TraceFormat) -> TraceOptions {
    TraceOptions {
        format: Some(format),
        columns: (format == TraceFormat::Csv).then(|| CSV_CANONICAL_COLUMNS.to_string()),
        ..TraceOptions::default()
    }
}

/// Panics unless `out` is requests followed by at most one error, with arrivals that never
/// go backwards and ranges that make sense; returns the requests.
pub fn check_stream(data: &[u8], out: &[Result<IoRequest, TraceError>]) -> Vec<IoRequest> {
    // Lines end at \n, \r\n or a lone \r; binary formats count events (48 bytes or more).
    let lines = data.split(|&b| b == b'\n' || b == b'\r').count() as u64 + data.len() as u64;
    let ok = out.iter().take_while(|r| r.is_ok()).count();
    assert!(ok + 1 >= out.len(), "items after an error");
    if let Some(Err(e)) = out.last() {
        match e {
            TraceError::Malformed { line, .. } => assert!(*line >= 1 && *line <= lines),
            TraceError::Empty { path, .. } => {
                assert_eq!(ok, 0, "an empty-trace error after requests");
                assert!(!path.as_os_str().is_empty());
            }
            // Corrupt compressed data is an I/O error naming the stream.
            TraceError::Io { path, message } if compressed(data) => {
                assert!(!path.as_os_str().is_empty() && !message.is_empty())
            }
            TraceError::Io { .. } | TraceError::Option(_) | TraceError::PastEnd { .. } => {
                panic!("unexpected error for in-memory bytes without limits: {e}")
            }
        }
    }
    let reqs: Vec<IoRequest> = out[..ok].iter().map(|r| *r.as_ref().unwrap()).collect();
    let mut prev = 0;
    for r in &reqs {
        assert!(r.arrival_ns >= prev, "arrival went backwards");
        prev = r.arrival_ns;
        if r.op == OpKind::Flush {
            assert_eq!((r.offset_bytes, r.size_bytes), (0, 0));
        } else {
            assert!(r.size_bytes > 0, "zero-size request yielded");
            assert!(r.offset_bytes.checked_add(r.size_bytes).is_some());
        }
    }
    reqs
}

/// Whether `data` starts like a compressed stream (gzip, bzip2, xz, zstd).
pub fn compressed(data: &[u8]) -> bool {
    ssdlab::workload::trace::Compression::sniff(data) != ssdlab::workload::trace::Compression::None
}

/// Parses `data` as `format`, checks the stream, writes the requests back in `format` and
/// requires the same requests from parsing that.
pub fn check(format: TraceFormat, data: &[u8]) {
    let opts = options(format);
    let reqs = check_stream(data, &parse_bytes(format, data, &opts));
    if reqs.is_empty() {
        return;
    }
    let mut text = Vec::new();
    write_header(format, &mut text).expect("header");
    for r in &reqs {
        write_request(format, r, &mut text).expect("a parsed request is writable in its format");
    }
    let again: Vec<IoRequest> = parse_bytes(format, &text, &opts)
        .into_iter()
        .map(|r| r.expect("written requests parse back"))
        .collect();
    assert_eq!(again, reqs, "round trip changed the requests");
}

/// Auto-detection on `data`: either an error at open, or a well-formed stream.
pub fn check_detect(data: &[u8]) {
    let opened = open_reader(
        Cursor::new(data.to_vec()),
        Path::new("fuzz"),
        &TraceOptions::default(),
    );
    if let Ok(t) = opened {
        let out: Vec<_> = t.requests.collect();
        check_stream(data, &out);
    }
}

/// The decompression and detection path on a stream that cannot seek: `data` as given
/// (maybe starting with a compression magic), and `data` gzip-compressed.
pub fn check_decompress(data: &[u8]) {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(data).expect("in-memory gzip");
    let wrapped = gz.finish().expect("in-memory gzip");
    for bytes in [data.to_vec(), wrapped] {
        let opened = open_stream(Cursor::new(bytes), Path::new("fuzz"), &TraceOptions::default());
        if let Ok(t) = opened {
            let out: Vec<_> = t.requests.collect();
            // Line numbers refer to the decompressed text, which is `data` unless `data`
            // is itself compressed (then only the absence of panics is checked).
            if !compressed(data) {
                check_stream(data, &out);
            }
        }
    }
}

/// The column spec parser: any text either parses or is refused with a message that
/// shows the syntax; a spec that parses can read its own canonical example line.
pub fn check_column_spec(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match text.parse::<ColumnSpec>() {
        Ok(_) => {
            let opts = TraceOptions {
                format: Some(TraceFormat::Csv),
                columns: Some(text.into_owned()),
                ..TraceOptions::default()
            };
            // Any line through a valid spec: a well-formed stream.
            let out = parse_bytes(TraceFormat::Csv, b"1,2,3,4,5,6,7,8\n", &opts);
            check_stream(b"1,2,3,4,5,6,7,8\n", &out);
        }
        Err(e) => assert!(!e.is_empty(), "a refused spec says why"),
    }
}
