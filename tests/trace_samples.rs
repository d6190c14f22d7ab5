//! The real sample traces in `../shared/traces` (see its README) parse completely, with
//! their format named and auto-detected, and their first requests have the values worked
//! out by hand below. These tests fail — not skip — when the samples are missing.

use ssdlab::workload::trace::{
    BlkparseEvent, FitPolicy, OpenedTrace, TraceFormat, TraceOptions, open_trace,
};
use ssdlab::workload::{IoRequest, OpKind, TraceError};
use std::path::{Path, PathBuf};

const SAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/traces");

/// The path of a sample, failing loudly when the shared directory is absent.
fn sample(rel: &str) -> PathBuf {
    let dir = Path::new(SAMPLES);
    assert!(
        dir.is_dir(),
        "the sample traces are missing: {} does not exist (tests need shared/ beside the \
         checkout)",
        dir.display()
    );
    let path = dir.join(rel);
    assert!(path.is_file(), "sample trace missing: {}", path.display());
    path
}

/// Every request of `rel`, its warnings and its format; panics with the error text.
fn read(rel: &str, opts: &TraceOptions) -> (Vec<IoRequest>, Vec<String>, TraceFormat) {
    let path = sample(rel);
    let OpenedTrace {
        requests,
        warnings,
        format,
        ..
    } = open_trace(&path, opts).unwrap_or_else(|e| panic!("{e}"));
    let reqs: Vec<IoRequest> = requests
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect();
    (reqs, warnings.snapshot(), format)
}

fn with_format(format: TraceFormat) -> TraceOptions {
    TraceOptions {
        format: Some(format),
        ..TraceOptions::default()
    }
}

/// (file, format, request count). The counts are the README's; for blkparse the number of
/// `Q` lines (`awk '$6=="Q"' | wc -l`). wsrch-small.ascii is the exception: its last line
/// has no trailing newline, so `wc -l` (and the README) say 24,782 while the file holds
/// 24,783 requests (`awk 'END{print NR}'`); the last, `60066625000 1 34371424 64 1`, is
/// a valid request.
const CASES: [(&str, TraceFormat, usize); 8] = [
    ("msr/hm_0-head1k.csv", TraceFormat::Msr, 1_000),
    (
        "heimdall-msr/msr.cut.per_10k.rw_20_80.105.trace",
        TraceFormat::Heimdall,
        10_000,
    ),
    (
        "spc-ascii/financial1-head10k.ascii",
        TraceFormat::Ascii,
        10_000,
    ),
    ("spc-ascii/tpcc-small.ascii", TraceFormat::Ascii, 6_999),
    ("spc-ascii/wsrch-small.ascii", TraceFormat::Ascii, 24_783),
    ("disksim/postmark.ascii", TraceFormat::Disksim, 62_257),
    (
        "blkparse/java-job.blkparse.txt",
        TraceFormat::Blkparse,
        15_524,
    ),
    (
        "snia-tencent/cbs-1s-sample.csv",
        TraceFormat::Tencent,
        50_000,
    ),
];

#[test]
fn every_sample_parses_completely_with_its_format() {
    for (rel, format, count) in CASES {
        let (reqs, warnings, got) = read(rel, &with_format(format));
        assert_eq!(got, format);
        assert_eq!(reqs.len(), count, "{rel}: request count");
        assert!(
            reqs.windows(2).all(|w| w[0].arrival_ns <= w[1].arrival_ns),
            "{rel}: arrivals go backwards"
        );
        assert_eq!(
            reqs[0].arrival_ns, 0,
            "{rel}: times are relative to the first"
        );
        eprintln!("{rel}: {warnings:#?}");
    }
}

#[test]
fn every_sample_is_detected() {
    for (rel, format, count) in CASES {
        let (reqs, _, got) = read(rel, &TraceOptions::default());
        assert_eq!(got, format, "{rel}: detected format");
        assert_eq!(reqs.len(), count, "{rel}: request count when detected");
    }
}

fn req(arrival_ns: u64, device: u32, offset_bytes: u64, size_bytes: u64, op: OpKind) -> IoRequest {
    IoRequest::new(op, offset_bytes, size_bytes)
        .at(arrival_ns)
        .on_device(device)
}

#[test]
fn msr_first_requests() {
    // 128166385295514663,hm,0,Write,9056014336,2048,2833 → t0, bytes as given.
    // 128166385295514878,hm,0,Write,11855351808,512,2617 → 215 ticks later = 21 500 ns.
    // 128166385295515175,hm,0,Write,5548077056,4096,2320 → 512 ticks = 51 200 ns.
    let (r, _, _) = read("msr/hm_0-head1k.csv", &with_format(TraceFormat::Msr));
    assert_eq!(r[0], req(0, 0, 9_056_014_336, 2048, OpKind::Write));
    assert_eq!(r[1], req(21_500, 0, 11_855_351_808, 512, OpKind::Write));
    assert_eq!(r[2], req(51_200, 0, 5_548_077_056, 4096, OpKind::Write));
    assert_eq!(r[999].op, OpKind::Read); // ...,Read,11946549248,4096,3499
    assert_eq!(r[999].offset_bytes, 11_946_549_248);
}

#[test]
fn heimdall_first_requests() {
    // 0.000 0 200626176 4096 0     → t0, write (op 0), bytes as given.
    // 223.412 0 3159347200 36864 0 → 223.412 ms = 223 412 000 ns.
    let (r, _, _) = read(
        "heimdall-msr/msr.cut.per_10k.rw_20_80.105.trace",
        &with_format(TraceFormat::Heimdall),
    );
    assert_eq!(r[0], req(0, 0, 200_626_176, 4096, OpKind::Write));
    assert_eq!(
        r[1],
        req(223_412_000, 0, 3_159_347_200, 36_864, OpKind::Write)
    );
    let reads = r.iter().filter(|q| q.op == OpKind::Read).count();
    assert!(
        (1_500..2_500).contains(&reads),
        "the README says ~20% reads, got {reads}"
    );
}

#[test]
fn ascii_first_requests() {
    // financial1: "0 0 303567 7 0" → 303567 × 512 = 155 426 304, 7 × 512 = 3 584, write.
    // "0 1 55590 6 0" → device 1, 28 462 080, 3 072. Line 5 "78643005 1 55596 6 1" → read.
    let (r, _, _) = read(
        "spc-ascii/financial1-head10k.ascii",
        &with_format(TraceFormat::Ascii),
    );
    assert_eq!(r[0], req(0, 0, 155_426_304, 3_584, OpKind::Write));
    assert_eq!(r[1], req(0, 1, 28_462_080, 3_072, OpKind::Write));
    assert_eq!(r[4], req(78_643_005, 1, 28_465_152, 3_072, OpKind::Read));
    // tpcc: "938513000 4 264719034 16 0" is t0; the next line is 315 000 ns later.
    let (r, _, _) = read(
        "spc-ascii/tpcc-small.ascii",
        &with_format(TraceFormat::Ascii),
    );
    assert_eq!(r[0], req(0, 4, 135_536_145_408, 8_192, OpKind::Write));
    assert_eq!(r[1], req(315_000, 3, 101_156_131_840, 8_192, OpKind::Write));
    // wsrch: "11413000 0 657728 16 1", then "11565000 1 31244784 64 1" (152 000 ns later).
    let (r, _, _) = read(
        "spc-ascii/wsrch-small.ascii",
        &with_format(TraceFormat::Ascii),
    );
    assert_eq!(r[0], req(0, 0, 336_756_736, 8_192, OpKind::Read));
    assert_eq!(r[1], req(152_000, 1, 15_997_329_408, 32_768, OpKind::Read));
}

#[test]
fn disksim_first_requests() {
    // "7961.833 0 20228336 8 0" → t0, 20228336 × 512 = 10 356 908 032, 4 KiB write.
    // "8346.206 0 6397360 496 0" → 384.373 ms later, 3 275 448 320, 496 × 512 = 253 952.
    // Last line "498398.596 0 0 8 1" → flags bit 0 set: a read at offset 0.
    let (r, _, _) = read("disksim/postmark.ascii", &with_format(TraceFormat::Disksim));
    assert_eq!(r[0], req(0, 0, 10_356_908_032, 4_096, OpKind::Write));
    assert_eq!(
        r[1],
        req(384_373_000, 0, 3_275_448_320, 253_952, OpKind::Write)
    );
    let last = r.last().unwrap();
    assert_eq!((last.offset_bytes, last.op), (0, OpKind::Read));
    assert_eq!(last.arrival_ns, (498_398_596 - 7_961_833) * 1_000);
}

#[test]
fn blkparse_first_requests() {
    // Line 2: "8,16 5 2 0.000001850 18615 Q R 1444645666 + 256 [java]" → device 8*256+16 =
    // 2064, 1444645666 × 512 = 739 658 580 992, 256 × 512 = 131 072, read, t0.
    // Line 9: Q at 0.000110160 s → 110 160 − 1 850 = 108 310 ns later, sector +256.
    let (r, _, _) = read(
        "blkparse/java-job.blkparse.txt",
        &with_format(TraceFormat::Blkparse),
    );
    assert_eq!(r[0], req(0, 2064, 739_658_580_992, 131_072, OpKind::Read));
    assert_eq!(
        r[1],
        req(
            108_310,
            2064,
            739_658_580_992 + 131_072,
            131_072,
            OpKind::Read
        )
    );
    // The Q lines' rwbs are R (80), W (15 174), WS (268) and WBS (2).
    let reads = r.iter().filter(|q| q.op == OpKind::Read).count();
    assert_eq!(reads, 80);
}

#[test]
fn blkparse_issue_events() {
    // 170 D lines: R 78, W 86, WS 6. The first, at 0.000031865 s, issues line 2's read.
    let opts = TraceOptions {
        blkparse_event: BlkparseEvent::Issue,
        ..with_format(TraceFormat::Blkparse)
    };
    let (r, _, _) = read("blkparse/java-job.blkparse.txt", &opts);
    assert_eq!(r.len(), 170);
    assert_eq!(r.iter().filter(|q| q.op == OpKind::Read).count(), 78);
    assert_eq!(r[0], req(0, 2064, 739_658_580_992, 131_072, OpKind::Read));
}

#[test]
fn tencent_first_requests_and_backwards_time() {
    // "1538323200,4247200,128,1,1058" → t0, 4247200 × 512 = 2 174 566 400, 64 KiB, type 1 =
    // write, volume 1058. "1538323199,13896880,128,0,1063" is a second earlier: clamped to
    // the previous arrival (0) and warned about; 13896880 × 512 = 7 115 202 560, a read.
    let (r, w, _) = read(
        "snia-tencent/cbs-1s-sample.csv",
        &with_format(TraceFormat::Tencent),
    );
    assert_eq!(r[0], req(0, 1058, 2_174_566_400, 65_536, OpKind::Write));
    assert_eq!(r[1], req(0, 1063, 7_115_202_560, 65_536, OpKind::Read));
    assert!(
        w.iter()
            .any(|s| s.starts_with("timestamps go backwards at ")
                && s.contains(
                    "first at line 2: 1.000 s before the previous request; then lines 3, 4, …)"
                )),
        "{w:?}"
    );
}

#[test]
fn device_filter_partitions_a_multi_volume_trace() {
    let path = "spc-ascii/tpcc-small.ascii";
    let (all, _, _) = read(path, &with_format(TraceFormat::Ascii));
    let mut total = 0;
    for dev in 0..16 {
        let opts = TraceOptions {
            device: Some(dev),
            ..with_format(TraceFormat::Ascii)
        };
        let (some, _, _) = read(path, &opts);
        assert!(some.iter().all(|r| r.device == dev));
        assert_eq!(some.len(), all.iter().filter(|r| r.device == dev).count());
        if let Some(first) = some.first() {
            assert_eq!(
                first.arrival_ns, 0,
                "times are relative to the first kept request"
            );
        }
        total += some.len();
    }
    assert_eq!(total, all.len());
    let opts = TraceOptions {
        device: Some(99),
        ..with_format(TraceFormat::Ascii)
    };
    // No request for the device is an error (exit 2), not an empty simulation, and it
    // says which devices the trace has.
    let err = open_trace(&sample(path), &opts)
        .unwrap_or_else(|e| panic!("{e}"))
        .requests
        .find_map(Result::err)
        .expect("an error for a device not in the trace")
        .to_string();
    assert!(
        err.contains("no requests: device 99 not in trace; devices seen: 0, 1, 2,"),
        "{err}"
    );
}

#[test]
fn fit_policies_on_a_real_trace() {
    let path = "msr/hm_0-head1k.csv";
    let (orig, _, _) = read(path, &with_format(TraceFormat::Msr));
    let cap = 1u64 << 30;
    // Reject: the first request already ends past 1 GiB.
    let opened = open_trace(
        &sample(path),
        &TraceOptions {
            capacity_bytes: cap,
            ..with_format(TraceFormat::Msr)
        },
    )
    .unwrap();
    let mut requests = opened.requests;
    let first = requests.next().unwrap();
    match first {
        Err(TraceError::PastEnd {
            line, end_bytes, ..
        }) => {
            assert_eq!((line, end_bytes), (1, 9_056_014_336 + 2048));
        }
        other => panic!("expected PastEnd, got {other:?}"),
    }
    // Wrap: every request inside, bytes preserved (splits keep the total).
    let (wrapped, w, _) = read(
        path,
        &TraceOptions {
            capacity_bytes: cap,
            fit: FitPolicy::Wrap,
            ..with_format(TraceFormat::Msr)
        },
    );
    assert!(wrapped.iter().all(|r| r.offset_bytes + r.size_bytes <= cap));
    let bytes = |v: &[IoRequest]| v.iter().map(|r| r.size_bytes).sum::<u64>();
    assert_eq!(bytes(&wrapped), bytes(&orig));
    assert_eq!(wrapped[0].offset_bytes, 9_056_014_336 % cap);
    assert!(
        w.iter()
            .any(|s| s.starts_with("requests past the end of the device at "))
    );
    // Scale: same count, inside, in-page position kept.
    let (scaled, w, _) = read(
        path,
        &TraceOptions {
            capacity_bytes: cap,
            fit: FitPolicy::Scale,
            ..with_format(TraceFormat::Msr)
        },
    );
    assert_eq!(scaled.len(), orig.len());
    assert!(scaled.iter().all(|r| r.offset_bytes + r.size_bytes <= cap));
    assert!(scaled.iter().zip(&orig).all(
        |(s, o)| s.offset_bytes % 4096 == o.offset_bytes % 4096 && s.size_bytes == o.size_bytes
    ));
    assert!(
        w.iter()
            .any(|s| s.starts_with("scale: offsets multiplied by")),
        "{w:?}"
    );
    // Order is kept: a higher original offset never maps below a lower one by more than
    // the page rounding.
    let max_end = orig
        .iter()
        .map(|r| r.offset_bytes + r.size_bytes)
        .max()
        .unwrap();
    let s0 = orig[0].offset_bytes as u128 * cap as u128 / max_end as u128;
    assert_eq!(
        scaled[0].offset_bytes,
        (s0 as u64 & !4095) + orig[0].offset_bytes % 4096
    );
}
