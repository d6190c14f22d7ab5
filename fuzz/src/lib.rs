//! The check every fuzz target runs: feed bytes through a trace reader, require a
//! well-formed stream, and round-trip whatever parsed. `tests/trace_errors.rs` runs the
//! same properties under `cargo test` on proptest-generated input.

use ssdlab::workload::trace::{
    CSV_CANONICAL_COLUMNS, TraceFormat, TraceOptions, open_reader, parse_bytes, write_request,
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
    let lines = data.split(|&b| b == b'\n').count() as u64;
    let ok = out.iter().take_while(|r| r.is_ok()).count();
    assert!(ok + 1 >= out.len(), "items after an error");
    if let Some(Err(e)) = out.last() {
        match e {
            TraceError::Malformed { line, .. } => assert!(*line >= 1 && *line <= lines),
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

/// Parses `data` as `format`, checks the stream, writes the requests back in `format` and
/// requires the same requests from parsing that.
pub fn check(format: TraceFormat, data: &[u8]) {
    let opts = options(format);
    let reqs = check_stream(data, &parse_bytes(format, data, &opts));
    let mut text = Vec::new();
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
