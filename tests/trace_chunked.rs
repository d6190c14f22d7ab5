//! Traces large enough to be parsed in pieces on worker threads (several MiB of text,
//! beyond what format detection reads): every text format, plain and compressed, from a
//! file and from a pipe, gives back exactly the requests written, in order; an error deep
//! in the trace names its line in the whole file. (The unit tests in `chunked.rs` compare
//! the piecewise parse with the line-by-line one for random traces and piece sizes.)

use ssdlab::workload::trace::{
    CSV_CANONICAL_COLUMNS, TraceFormat, TraceOptions, open_stream, open_trace, write_header,
    write_request,
};
use ssdlab::workload::{IoRequest, OpKind};
use std::io::{Cursor, Write};
use std::path::Path;

const N: u64 = 80_000;

/// Requests every text format can write exactly: whole microseconds, 4 KiB-aligned,
/// device 0, reads and writes.
fn requests() -> Vec<IoRequest> {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    (0..N)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            IoRequest::new(
                if x.is_multiple_of(3) {
                    OpKind::Read
                } else {
                    OpKind::Write
                },
                x % (1 << 24) * 4096,
                4096 * (1 + x % 16),
            )
            .at(5_000_000 + i * 7_000 + x % 5 * 1_000)
        })
        .collect()
}

fn opts(format: TraceFormat) -> TraceOptions {
    TraceOptions {
        format: Some(format),
        columns: (format == TraceFormat::Csv).then(|| CSV_CANONICAL_COLUMNS.to_string()),
        ..TraceOptions::default()
    }
}

fn render(format: TraceFormat, reqs: &[IoRequest]) -> Vec<u8> {
    let mut out = Vec::new();
    write_header(format, &mut out).unwrap();
    for r in reqs {
        write_request(format, r, &mut out).unwrap();
    }
    out
}

fn compressed(text: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text).unwrap();
    vec![
        ("plain", text.to_vec()),
        ("gzip", gz.finish().unwrap()),
        ("zstd", zstd::stream::encode_all(text, 1).unwrap()),
    ]
}

/// The requests as a reader yields them: arrivals relative to the first.
fn rebased(reqs: &[IoRequest]) -> Vec<IoRequest> {
    let t0 = reqs[0].arrival_ns;
    reqs.iter()
        .map(|r| IoRequest {
            arrival_ns: r.arrival_ns - t0,
            ..*r
        })
        .collect()
}

#[test]
fn large_traces_in_every_text_format_read_back_exactly_from_files_and_pipes() {
    let reqs = requests();
    let want = rebased(&reqs);
    let dir = tempfile::tempdir().unwrap();
    for format in TraceFormat::ALL {
        if format == TraceFormat::Blktrace {
            continue; // binary: not line-based
        }
        let text = render(format, &reqs);
        assert!(
            text.len() > 3 << 19,
            "{format}: the trace must span pieces of 1 MiB"
        );
        for (codec, bytes) in compressed(&text) {
            let path = dir.path().join(format!("t.{format}.{codec}"));
            std::fs::write(&path, &bytes).unwrap();
            let got: Vec<IoRequest> = open_trace(&path, &opts(format))
                .unwrap()
                .requests
                .map(|r| r.unwrap_or_else(|e| panic!("{format} {codec}: {e}")))
                .collect();
            assert!(got == want, "{format} {codec} from a file differs");
            let got: Vec<IoRequest> =
                open_stream(Cursor::new(bytes), Path::new("pipe"), &opts(format))
                    .unwrap()
                    .requests
                    .map(|r| r.unwrap_or_else(|e| panic!("{format} {codec}: {e}")))
                    .collect();
            assert!(got == want, "{format} {codec} from a pipe differs");
        }
    }
}

#[test]
fn an_error_deep_in_a_large_trace_names_its_line_after_every_request_before_it() {
    let reqs = requests();
    let mut text = render(TraceFormat::Ascii, &reqs[..60_001]);
    // Comments and blank lines count as lines; CRLF and CR-only endings end lines too.
    text.extend_from_slice(b"# a comment\r\n\r");
    text.extend_from_slice(b"60002 0 not-a-number 8 1\n");
    text.extend(render(TraceFormat::Ascii, &reqs[60_001..]));
    for (codec, bytes) in compressed(&text) {
        let t = open_stream(
            Cursor::new(bytes),
            Path::new("big.ascii"),
            &opts(TraceFormat::Ascii),
        )
        .unwrap();
        let items: Vec<_> = t.requests.collect();
        assert_eq!(items.len(), 60_002, "{codec}");
        assert!(items[..60_001].iter().all(Result::is_ok), "{codec}");
        let e = items[60_001].as_ref().unwrap_err().to_string();
        assert!(e.starts_with("big.ascii:60004: expected"), "{codec}: {e}");
        assert!(e.contains("field 3, lba_sectors"), "{codec}: {e}");
    }
}
