//! Round trips: random requests are written in each format (with comments, blank lines
//! and CRLF endings sprinkled in and an arbitrary time origin), parsed back, and must come
//! out identical. The delimited reader is checked with random column specs too. Every
//! writer of the registry (`gen-trace --out-format`) writes arbitrary requests that read
//! back as the same requests to the format's resolution.

use proptest::prelude::*;
use ssdlab::workload::trace::{
    CSV_CANONICAL_COLUMNS, FORMATS, TraceFormat, TraceOptions, TraceWriter, parse_bytes,
    write_request,
};
use ssdlab::workload::{IoRequest, OpKind};

/// Fixed-seed proptest settings: `cargo test` runs the same cases every time.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x55D1_AB00_7ACE),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Whether offsets and sizes are whole sectors in `format`.
fn in_sectors(format: TraceFormat) -> bool {
    matches!(
        format,
        TraceFormat::Ascii | TraceFormat::Disksim | TraceFormat::Tencent | TraceFormat::Blkparse
    )
}

/// Time resolution of `format` in ns.
fn tick(format: TraceFormat) -> u64 {
    match format {
        TraceFormat::Msr => 100,
        TraceFormat::Fio => 1000,
        _ => 1,
    }
}

/// Random requests `format` represents exactly, arrivals relative (first at 0): random
/// requests taken to the format's resolution.
fn requests(format: TraceFormat) -> impl Strategy<Value = Vec<IoRequest>> {
    any_requests(format).prop_map(move |reqs| at_resolution(format, &reqs))
}

/// Renders `reqs` in `format`, times shifted by `base`, with noise lines and endings.
fn render(format: TraceFormat, reqs: &[IoRequest], base: u64, noise: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, r) in reqs.iter().enumerate() {
        let n = noise[i % noise.len()];
        if n.is_multiple_of(5) {
            out.extend_from_slice(b"# a comment, 1 2 3 4 5\n");
        }
        if n.is_multiple_of(7) {
            out.extend_from_slice(b"   \t\n\n");
        }
        let shifted = IoRequest {
            arrival_ns: r.arrival_ns + base,
            ..*r
        };
        let mut line = Vec::new();
        write_request(format, &shifted, &mut line).expect("representable request");
        if n.is_multiple_of(3) {
            line.pop();
            line.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(&line);
    }
    if noise[0].is_multiple_of(2) {
        // The last line without its newline must still count.
        while out.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
            out.pop();
        }
    }
    out
}

fn opts(format: TraceFormat) -> TraceOptions {
    TraceOptions {
        columns: (format == TraceFormat::Csv).then(|| CSV_CANONICAL_COLUMNS.to_string()),
        ..TraceOptions::default()
    }
}

fn round_trip(format: TraceFormat, reqs: &[IoRequest], base: u64, noise: &[u8]) {
    let text = render(format, reqs, base, noise);
    let parsed: Vec<IoRequest> = parse_bytes(format, &text, &opts(format))
        .into_iter()
        .map(|r| r.unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(&text))))
        .collect();
    assert_eq!(parsed, reqs, "\n{}", String::from_utf8_lossy(&text));
}

/// A time origin the format can hold: MSR FILETIMEs are ~1.3e17 ticks today.
fn base_for(format: TraceFormat) -> impl Strategy<Value = u64> {
    let max = match format {
        TraceFormat::Msr => 130_000_000_000_000_000u64 / 100,
        _ => 1 << 60,
    };
    (0..max).prop_map(move |b| b * tick(format))
}

macro_rules! round_trip_test {
    ($name:ident, $format:expr) => {
        proptest! {
            #![proptest_config(config(128))]
            #[test]
            fn $name(
                reqs in requests($format),
                base in base_for($format),
                noise in prop::collection::vec(any::<u8>(), 1..8),
            ) {
                round_trip($format, &reqs, base, &noise);
            }
        }
    };
}

round_trip_test!(msr_round_trips, TraceFormat::Msr);
round_trip_test!(ascii_round_trips, TraceFormat::Ascii);
round_trip_test!(disksim_round_trips, TraceFormat::Disksim);
round_trip_test!(blkparse_round_trips, TraceFormat::Blkparse);
round_trip_test!(tencent_round_trips, TraceFormat::Tencent);
round_trip_test!(heimdall_round_trips, TraceFormat::Heimdall);
round_trip_test!(csv_round_trips, TraceFormat::Csv);

/// A random delimited layout: where each column is, in which unit, how ops are spelled.
#[derive(Debug, Clone)]
struct Layout {
    /// Column of time, offset, size, op, dev (a permutation prefix of 0..width).
    cols: [usize; 5],
    width: usize,
    delim: (&'static str, &'static str),
    time_unit: (&'static str, u64),
    offset_unit: (&'static str, u64),
    size_unit: (&'static str, u64),
    op_names: [&'static str; 4],
    header: bool,
}

fn layout() -> impl Strategy<Value = Layout> {
    let units = [
        ("bytes", 1),
        ("sectors", 512),
        ("kib", 1024),
        ("4k", 4096),
        ("8192", 8192),
    ];
    (
        Just((0..7usize).collect::<Vec<_>>()).prop_shuffle(),
        5usize..8,
        prop::sample::select(vec![
            ("','", ","),
            ("';'", ";"),
            ("tab", "\t"),
            ("pipe", "|"),
            ("space", "  "),
        ]),
        prop::sample::select(vec![
            ("s", 1_000_000_000u64),
            ("ms", 1_000_000),
            ("us", 1_000),
            ("ns", 1),
            ("100ns", 100),
        ]),
        prop::sample::select(units.to_vec()),
        prop::sample::select(units.to_vec()),
        prop::sample::select(vec![
            ["R", "W", "D", "F"],
            ["read", "write", "trim", "flush"],
            ["1", "0", "2", "3"],
            ["Read", "Write", "Discard", "Sync"],
        ]),
        any::<bool>(),
    )
        .prop_map(
            |(perm, width, delim, time_unit, offset_unit, size_unit, op_names, header)| {
                // Keep the five named columns inside the row width.
                let cols: Vec<usize> = perm.into_iter().filter(|&c| c < width).take(5).collect();
                Layout {
                    cols: [cols[0], cols[1], cols[2], cols[3], cols[4]],
                    width,
                    delim,
                    time_unit,
                    offset_unit,
                    size_unit,
                    op_names,
                    header,
                }
            },
        )
}

impl Layout {
    fn spec(&self) -> String {
        let [t, o, s, op, d] = self.cols;
        let [r, w, tr, f] = self.op_names;
        format!(
            "time={t}:{},offset={o}:{},size={s}:{},op={op},dev={d},delim={},skip={},\
             read={r},write={w},trim={tr},flush={f}",
            self.time_unit.0,
            self.offset_unit.0,
            self.size_unit.0,
            self.delim.0,
            u8::from(self.header)
        )
    }

    /// Makes `r` representable: offset and size whole units, time whole 100 ns if needed.
    fn fit(&self, r: &IoRequest) -> IoRequest {
        let ou = self.offset_unit.1;
        let su = self.size_unit.1;
        let (offset_bytes, size_bytes) = if r.op == OpKind::Flush {
            (0, 0)
        } else {
            (r.offset_bytes / 512 * ou, (r.size_bytes / 512).max(1) * su)
        };
        let tick = if self.time_unit.0 == "100ns" { 100 } else { 1 };
        IoRequest {
            arrival_ns: r.arrival_ns / tick * tick,
            offset_bytes,
            size_bytes,
            ..*r
        }
    }

    fn render(&self, reqs: &[IoRequest]) -> String {
        let mut out = String::new();
        if self.header {
            out.push_str("time offset size op dev, a header\n");
        }
        for r in reqs {
            let mut fields = vec!["x".to_string(); self.width];
            let (name, per) = self.time_unit;
            fields[self.cols[0]] = match name {
                "100ns" => (r.arrival_ns / 100).to_string(),
                _ => {
                    let digits = per.ilog10() as usize;
                    if digits == 0 {
                        r.arrival_ns.to_string()
                    } else {
                        format!("{}.{:0digits$}", r.arrival_ns / per, r.arrival_ns % per)
                    }
                }
            };
            fields[self.cols[1]] = (r.offset_bytes / self.offset_unit.1).to_string();
            fields[self.cols[2]] = (r.size_bytes / self.size_unit.1).to_string();
            let op = match r.op {
                OpKind::Read => 0,
                OpKind::Write => 1,
                OpKind::Trim => 2,
                OpKind::Flush => 3,
                // The generated requests hold no zone operations (this layout has none).
                op => unreachable!("no {op:?} in this test's requests"),
            };
            fields[self.cols[3]] = format!("\"{}\"", self.op_names[op]);
            fields[self.cols[4]] = r.device.to_string();
            out.push_str(&fields.join(self.delim.1));
            out.push('\n');
        }
        out
    }
}

proptest! {
    #![proptest_config(config(128))]
    #[test]
    fn delimited_round_trips_with_random_specs(
        layout in layout(),
        reqs in requests(TraceFormat::Csv),
    ) {
        let reqs: Vec<IoRequest> = reqs.iter().map(|r| layout.fit(r)).collect();
        let text = layout.render(&reqs);
        let opts = TraceOptions { columns: Some(layout.spec()), ..TraceOptions::default() };
        let parsed: Vec<IoRequest> = parse_bytes(TraceFormat::Csv, text.as_bytes(), &opts)
            .into_iter()
            .map(|r| r.unwrap_or_else(|e| panic!("{e}\nspec {}\n{text}", layout.spec())))
            .collect();
        prop_assert_eq!(parsed, reqs, "spec {}\n{}", layout.spec(), text);
    }
}

/// Random requests as a converter meets them — any time, any byte offset and size, any
/// device the format can number — written with [`TraceWriter`] (a whole file: header,
/// requests, closing lines) and read back with the format's reader give the same
/// requests to the format's resolution (docs/traces.md, "Writing traces"):
///
/// - time: MSR keeps 100 ns ticks, fio whole microseconds (both rounded down), the
///   others nanoseconds; the reader then counts from the first request;
/// - offset and size: ascii, disksim, tencent and blkparse count 512 B sectors, and a
///   request is widened to the sectors it touches; blktrace keeps the offset's sector
///   and the exact end (its length is in bytes); the others keep bytes;
/// - device: fio names files, which reading numbers in order of first appearance;
///   blktrace holds devices below 2^20; the others any u32.
fn at_resolution(format: TraceFormat, reqs: &[IoRequest]) -> Vec<IoRequest> {
    let tick = tick(format);
    let t0 = reqs[0].arrival_ns / tick * tick;
    let mut files: Vec<u32> = Vec::new();
    reqs.iter()
        .map(|r| {
            let (offset_bytes, size_bytes) = if r.op == OpKind::Flush {
                (0, 0)
            } else if in_sectors(format) {
                let first = r.offset_bytes / 512;
                let end = (r.offset_bytes + r.size_bytes).div_ceil(512);
                (first * 512, (end - first) * 512)
            } else if format == TraceFormat::Blktrace {
                let start = r.offset_bytes / 512 * 512;
                (start, r.offset_bytes + r.size_bytes - start)
            } else {
                (r.offset_bytes, r.size_bytes)
            };
            let device = if format == TraceFormat::Fio {
                if !files.contains(&r.device) {
                    files.push(r.device);
                }
                files.iter().position(|d| *d == r.device).unwrap() as u32
            } else {
                r.device
            };
            IoRequest::new(r.op, offset_bytes, size_bytes)
                .at(r.arrival_ns / tick * tick - t0)
                .on_device(device)
        })
        .collect()
}

/// Requests with arbitrary times, bytes and devices that `format` can carry.
fn any_requests(format: TraceFormat) -> impl Strategy<Value = Vec<IoRequest>> {
    let ops = format.spec().ops.to_vec();
    let max_device = if format == TraceFormat::Blktrace {
        (1 << 20) - 1
    } else {
        u32::MAX
    };
    let max_size: u64 = if format == TraceFormat::Blktrace {
        (1 << 32) - 512
    } else {
        1 << 40
    };
    let one = (
        0u64..5_000_000_000,
        prop_oneof![0..=3u32, 0..=max_device],
        0u64..(1 << 50),
        1u64..=max_size,
        prop::sample::select(ops),
    );
    (0u64..(1 << 56), prop::collection::vec(one, 1..40)).prop_map(|(start, items)| {
        let mut t = start;
        items
            .into_iter()
            .map(|(gap, device, offset_bytes, size, op)| {
                t += gap;
                let (offset_bytes, size_bytes) = if op == OpKind::Flush {
                    (0, 0)
                } else {
                    (offset_bytes, size)
                };
                IoRequest::new(op, offset_bytes, size_bytes)
                    .at(t)
                    .on_device(device)
            })
            .collect()
    })
}

fn write_file(format: TraceFormat, reqs: &[IoRequest]) -> Vec<u8> {
    let mut w = TraceWriter::new(format, Vec::new()).unwrap();
    for r in reqs {
        w.write(r)
            .unwrap_or_else(|e| panic!("{format}: {r:?}: {e}"));
    }
    w.finish().unwrap()
}

fn read_file(format: TraceFormat, bytes: &[u8]) -> Vec<IoRequest> {
    parse_bytes(format, bytes, &opts(format))
        .into_iter()
        .map(|r| r.unwrap_or_else(|e| panic!("{format}: {e}\n{}", String::from_utf8_lossy(bytes))))
        .collect()
}

proptest! {
    #![proptest_config(config(9 * 64))]
    /// Every writer of the registry, a new one included: a format drawn from
    /// [`FORMATS`], random requests it can carry, written as a file and read back.
    #[test]
    fn every_writer_round_trips_to_its_resolution(
        (format, reqs) in prop::sample::select(TraceFormat::ALL.to_vec())
            .prop_flat_map(|f| (Just(f), any_requests(f)))
    ) {
        let bytes = write_file(format, &reqs);
        let back = read_file(format, &bytes);
        prop_assert_eq!(back, at_resolution(format, &reqs), "{}", format);
    }
}

/// What a format cannot carry is refused with InvalidInput, naming the format and the
/// field, and nothing of the request is written.
#[test]
fn a_request_a_format_cannot_carry_is_refused_naming_format_and_field() {
    let base = IoRequest::new(OpKind::Read, 0, 4096).at(5);
    for f in &FORMATS {
        for op in [OpKind::Read, OpKind::Write, OpKind::Trim, OpKind::Flush] {
            let (offset_bytes, size_bytes) = if op == OpKind::Flush {
                (0, 0)
            } else {
                (0, 4096)
            };
            let r = IoRequest {
                op,
                offset_bytes,
                size_bytes,
                ..base
            };
            let mut w = TraceWriter::new(f.format(), Vec::new()).unwrap();
            let got = w.write(&r);
            if f.ops.contains(&op) {
                got.unwrap();
                continue;
            }
            let e = got.expect_err(&format!("{}: {op:?} accepted", f.name));
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
            let what = if op == OpKind::Trim { "trim" } else { "flush" };
            let msg = e.to_string();
            assert!(
                msg.contains(&format!("the {} format cannot carry {what}", f.name)),
                "{msg}"
            );
            assert_eq!(w.written(), 0);
            let empty = TraceWriter::new(f.format(), Vec::new())
                .unwrap()
                .finish()
                .unwrap();
            assert_eq!(
                w.finish().unwrap(),
                empty,
                "{}: nothing of the request",
                f.name
            );
        }
    }
    let far = IoRequest {
        device: 1 << 20,
        ..base
    };
    let e = TraceWriter::new(TraceFormat::Blktrace, Vec::new())
        .unwrap()
        .write(&far)
        .unwrap_err();
    assert!(e.to_string().contains("device 1048576"), "{e}");
    let huge = IoRequest {
        size_bytes: 1 << 32,
        ..base
    };
    let e = TraceWriter::new(TraceFormat::Blktrace, Vec::new())
        .unwrap()
        .write(&huge)
        .unwrap_err();
    assert!(e.to_string().contains("size of 4294967296 B"), "{e}");
}
