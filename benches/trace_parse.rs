//! Trace-reader throughput: 1 M generated lines per format, parsed end to end through
//! `open_trace` (file I/O, line splitting, parsing, time rebasing, checks). The target is
//! at least 5 M lines/s per core for the ascii format in release mode.
//!
//! The `trace_parse_compressed` group parses the same ascii trace gzip- and
//! zstd-compressed (decompression runs on its own thread), next to the decompressor alone
//! reading the file to the end, so the two rates can be compared back to back.
//!
//! Run with `cargo bench --bench trace_parse`; criterion reports the rate as
//! "thrpt … Melem/s" (one element = one line).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ssdlab::workload::trace::{
    CSV_CANONICAL_COLUMNS, TraceFormat, TraceOptions, open_trace, write_header, write_request,
};
use ssdlab::workload::{IoRequest, OpKind};
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

const LINES: u64 = 1_000_000;

/// A deterministic stream of plausible requests: increasing times, 4 KiB-aligned
/// offsets in a 1 TiB space, 4–128 KiB sizes, 30% reads, 4 devices.
fn requests() -> impl Iterator<Item = IoRequest> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut t: u64 = 1_000_000_000;
    (0..LINES).map(move |_| {
        // xorshift64: cheap and reproducible, no dependency needed.
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        t += x % 200_000;
        IoRequest {
            arrival_ns: t,
            device: (x >> 60) as u32 & 3,
            offset_bytes: (x >> 20) % (1 << 28) * 4096,
            size_bytes: 4096 * (1 + (x >> 8) % 32),
            op: if x % 10 < 3 {
                OpKind::Read
            } else {
                OpKind::Write
            },
        }
    })
}

fn generate(dir: &Path, format: TraceFormat) -> PathBuf {
    let path = dir.join(format!("bench.{format}"));
    let mut out = BufWriter::new(std::fs::File::create(&path).expect("create bench trace"));
    write_header(format, &mut out).expect("write bench trace");
    for r in requests() {
        // MSR's resolution is 100 ns ticks; the others are exact.
        write_request(format, &r, &mut out).expect("write bench trace");
    }
    out.flush().expect("flush bench trace");
    path
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut group = c.benchmark_group("trace_parse");
    group.throughput(Throughput::Elements(LINES));
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(4));
    for format in TraceFormat::ALL {
        let path = generate(dir.path(), format);
        let opts = TraceOptions {
            format: Some(format),
            columns: (format == TraceFormat::Csv).then(|| CSV_CANONICAL_COLUMNS.to_string()),
            ..TraceOptions::default()
        };
        group.bench_function(format.name(), |b| {
            b.iter(|| {
                let t = open_trace(&path, &opts).expect("open bench trace");
                let mut n = 0u64;
                for r in t.requests {
                    black_box(r.expect("bench trace parses"));
                    n += 1;
                }
                assert_eq!(n, LINES);
            })
        });
    }
    group.finish();
}

/// Parses `path` with `opts` to the end; the number of requests.
fn parse_all(path: &Path, opts: &TraceOptions) -> u64 {
    let t = open_trace(path, opts).expect("open bench trace");
    let mut n = 0u64;
    for r in t.requests {
        black_box(r.expect("bench trace parses"));
        n += 1;
    }
    n
}

fn bench_compressed(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let plain = generate(dir.path(), TraceFormat::Ascii);
    let text = std::fs::read(&plain).expect("read bench trace");
    let gz = dir.path().join("bench.ascii.gz");
    {
        let f = std::fs::File::create(&gz).expect("create gz");
        let mut e = flate2::write::GzEncoder::new(f, flate2::Compression::default());
        e.write_all(&text).expect("gzip");
        e.finish().expect("gzip");
    }
    let zst = dir.path().join("bench.ascii.zst");
    std::fs::write(&zst, zstd::stream::encode_all(&text[..], 3).expect("zstd")).expect("zst");
    let opts = TraceOptions {
        format: Some(TraceFormat::Ascii),
        ..TraceOptions::default()
    };
    let mut group = c.benchmark_group("trace_parse_compressed");
    group.throughput(Throughput::Elements(LINES));
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("ascii plain", |b| {
        b.iter(|| assert_eq!(parse_all(&plain, &opts), LINES))
    });
    group.bench_function("ascii gzip parse", |b| {
        b.iter(|| assert_eq!(parse_all(&gz, &opts), LINES))
    });
    group.bench_function("ascii gzip decompress only", |b| {
        b.iter(|| {
            let f = std::fs::File::open(&gz).expect("open");
            let mut d = flate2::read::MultiGzDecoder::new(std::io::BufReader::new(f));
            std::io::copy(&mut d, &mut std::io::sink()).expect("gunzip")
        })
    });
    group.bench_function("ascii zstd parse", |b| {
        b.iter(|| assert_eq!(parse_all(&zst, &opts), LINES))
    });
    // Any trace file (compressed or not, format detected) to compare with an outside
    // decompressor, e.g. `SSDLAB_PARSE_FILE=x.ascii.zst cargo bench --bench trace_parse --
    // given` next to `time zstd -dc x.ascii.zst > /dev/null`.
    if let Some(given) = std::env::var_os("SSDLAB_PARSE_FILE") {
        let given = PathBuf::from(given);
        let n = parse_all(&given, &TraceOptions::default());
        group.throughput(Throughput::Elements(n));
        group.bench_function("given", |b| {
            b.iter(|| parse_all(&given, &TraceOptions::default()))
        });
        group.throughput(Throughput::Elements(LINES));
    }
    group.bench_function("ascii zstd decompress only", |b| {
        b.iter(|| {
            let f = std::fs::File::open(&zst).expect("open");
            let mut d = zstd::stream::read::Decoder::new(f).expect("zstd");
            std::io::copy(&mut d, &mut std::io::sink()).expect("unzstd")
        })
    });
    group.finish();
}

criterion_group!(benches, bench, bench_compressed);
criterion_main!(benches);
