//! The blktrace binary reader: events built by hand byte by byte (both byte orders,
//! several per-CPU files merged by time), equivalence with the blkparse text reader on
//! the same events, and arbitrary bytes never panic.

use proptest::prelude::*;
use ssdlab::workload::trace::{BlkparseEvent, TraceFormat, TraceOptions, open_reader, open_trace};
use ssdlab::workload::{IoRequest, OpKind, TraceError};
use std::io::Cursor;
use std::path::Path;

// Action codes and category flags of blk_io_trace, written out here independently of the
// reader's own constants.
const QUEUE: u32 = 1;
const GETRQ: u32 = 4;
const ISSUE: u32 = 7;
const COMPLETE: u32 = 8;
const C_READ: u32 = 1 << 16;
const C_WRITE: u32 = 2 << 16;
const C_FLUSH: u32 = 4 << 16;
const C_SYNC: u32 = 8 << 16;
const C_NOTIFY: u32 = 1024 << 16;
const C_DISCARD: u32 = 8192 << 16;
const C_FUA: u32 = 32768 << 16;

/// One event: (time ns, sector, bytes, action, major, minor, payload).
#[derive(Debug, Clone)]
struct Ev {
    time: u64,
    sector: u64,
    bytes: u32,
    action: u32,
    maj: u32,
    min: u32,
    pdu: Vec<u8>,
}

fn ev(time: u64, sector: u64, bytes: u32, action: u32) -> Ev {
    Ev {
        time,
        sector,
        bytes,
        action,
        maj: 8,
        min: 16,
        pdu: Vec::new(),
    }
}

/// The 48-byte header and payload, little- or big-endian.
fn encode(e: &Ev, seq: u32, cpu: u32, big: bool) -> Vec<u8> {
    let mut v = Vec::new();
    let w32 = |v: &mut Vec<u8>, x: u32| {
        v.extend(if big {
            x.to_be_bytes()
        } else {
            x.to_le_bytes()
        })
    };
    w32(&mut v, 0x6561_7407);
    w32(&mut v, seq);
    let t = if big {
        e.time.to_be_bytes()
    } else {
        e.time.to_le_bytes()
    };
    v.extend(t);
    let s = if big {
        e.sector.to_be_bytes()
    } else {
        e.sector.to_le_bytes()
    };
    v.extend(s);
    w32(&mut v, e.bytes);
    w32(&mut v, e.action);
    w32(&mut v, 4242); // pid
    w32(&mut v, (e.maj << 20) | e.min);
    w32(&mut v, cpu);
    let len = e.pdu.len() as u16;
    let tail = if big {
        [0u16.to_be_bytes(), len.to_be_bytes()]
    } else {
        [0u16.to_le_bytes(), len.to_le_bytes()]
    };
    v.extend(tail.concat());
    assert_eq!(v.len(), 48);
    v.extend(&e.pdu);
    v
}

fn file(events: &[Ev], cpu: u32, big: bool) -> Vec<u8> {
    events
        .iter()
        .enumerate()
        .flat_map(|(i, e)| encode(e, i as u32 + 1, cpu, big))
        .collect()
}

fn req(arrival_ns: u64, offset_bytes: u64, size_bytes: u64, op: OpKind) -> IoRequest {
    IoRequest::new(op, offset_bytes, size_bytes)
        .at(arrival_ns)
        .on_device(8 * 256 + 16)
}

/// CPU 0 and CPU 1 of a small trace, and what the reader must make of them.
fn two_cpus(big: bool) -> (Vec<u8>, Vec<u8>, Vec<IoRequest>) {
    let mut notify = ev(900, 0, 0, C_NOTIFY);
    notify.pdu = b"java\0".to_vec();
    let cpu0 = file(
        &[
            notify,
            ev(1000, 2048, 4096, QUEUE | C_WRITE | C_SYNC),
            ev(1100, 2048, 4096, GETRQ | C_WRITE | C_SYNC),
            ev(1200, 2048, 4096, ISSUE | C_WRITE | C_SYNC),
            ev(2500, 0, 0, QUEUE | C_WRITE | C_FLUSH),
        ],
        0,
        big,
    );
    let cpu1 = file(
        &[
            ev(1500, 8, 8192, QUEUE | C_READ),
            ev(3000, 16, 65536, QUEUE | C_WRITE | C_DISCARD),
            ev(3100, 16, 65536, COMPLETE | C_WRITE | C_DISCARD),
        ],
        1,
        big,
    );
    let want = vec![
        req(0, 1_048_576, 4096, OpKind::Write),
        req(500, 4096, 8192, OpKind::Read),
        req(1500, 0, 0, OpKind::Flush),
        req(2000, 8192, 65536, OpKind::Trim),
    ];
    (cpu0, cpu1, want)
}

fn requests(path: &Path, o: &TraceOptions) -> Vec<IoRequest> {
    let t = open_trace(path, o).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.format, TraceFormat::Blktrace);
    t.requests
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

#[test]
fn per_cpu_files_are_merged_by_time_from_a_base_name_or_any_file() {
    for big in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (cpu0, cpu1, want) = two_cpus(big);
        std::fs::write(dir.path().join("sdb.blktrace.0"), cpu0).unwrap();
        std::fs::write(dir.path().join("sdb.blktrace.1"), cpu1).unwrap();
        let auto = TraceOptions::default();
        assert_eq!(requests(&dir.path().join("sdb"), &auto), want, "base name");
        assert_eq!(
            requests(&dir.path().join("sdb.blktrace.1"), &auto),
            want,
            "one file"
        );
        let given = TraceOptions {
            format: Some(TraceFormat::Blktrace),
            ..TraceOptions::default()
        };
        assert_eq!(requests(&dir.path().join("sdb"), &given), want);
        // Issue events instead: only the write was issued.
        let issue = TraceOptions {
            blkparse_event: BlkparseEvent::Issue,
            ..TraceOptions::default()
        };
        assert_eq!(
            requests(&dir.path().join("sdb"), &issue),
            vec![req(0, 1_048_576, 4096, OpKind::Write)]
        );
    }
}

#[test]
fn a_single_stream_is_read_and_detected() {
    let (cpu0, _, _) = two_cpus(false);
    let t = open_reader(Cursor::new(cpu0), Path::new("-"), &TraceOptions::default()).unwrap();
    assert_eq!(t.format, TraceFormat::Blktrace);
    let got: Vec<IoRequest> = t.requests.map(Result::unwrap).collect();
    assert_eq!(
        got,
        vec![
            req(0, 1_048_576, 4096, OpKind::Write),
            req(1500, 0, 0, OpKind::Flush)
        ]
    );
}

#[test]
fn bad_records_name_the_file_and_event() {
    let (mut cpu0, _, _) = two_cpus(false);
    // The third event's magic (events are 48 bytes, the first has a 5-byte payload).
    cpu0[48 + 5 + 48] = 0;
    cpu0[48 + 5 + 48 + 1] = 0;
    let mut t = open_reader(
        Cursor::new(cpu0.clone()),
        Path::new("x.blktrace.0"),
        &TraceOptions::default(),
    )
    .unwrap();
    let e = t.requests.find_map(Result::err).unwrap().to_string();
    assert!(
        e.starts_with("x.blktrace.0:3: expected a blk_io_trace event starting with the magic"),
        "{e}"
    );
    // Cut inside the second event.
    let (cpu0, _, _) = two_cpus(false);
    let mut t = open_reader(
        Cursor::new(cpu0[..48 + 5 + 20].to_vec()),
        Path::new("y"),
        &TraceOptions::default(),
    )
    .unwrap();
    let e = t.requests.find_map(Result::err).unwrap().to_string();
    assert_eq!(
        e,
        "y:2: expected a 48-byte blk_io_trace event (the file ends inside one), found '20 bytes'"
    );
}

/// The blkparse text line for an event, with the rwbs letters blkparse prints.
fn text_line(e: &Ev, cpu: u32, seq: u32) -> String {
    let act = match e.action & 0xffff {
        QUEUE => "Q",
        GETRQ => "G",
        ISSUE => "D",
        COMPLETE => "C",
        _ => unreachable!(),
    };
    let mut rwbs = String::new();
    if e.action & C_FLUSH != 0 {
        rwbs.push('F');
    }
    if e.action & C_DISCARD != 0 {
        rwbs.push('D');
    } else if e.action & C_WRITE != 0 {
        rwbs.push('W');
    } else if e.bytes != 0 {
        rwbs.push('R');
    } else {
        rwbs.push('N');
    }
    if e.action & C_FUA != 0 {
        rwbs.push('F');
    }
    if e.action & C_SYNC != 0 {
        rwbs.push('S');
    }
    // blkparse prints no count for an event of zero sectors: a lone sector on a
    // completion, nothing on the other actions (blkparse_fmt.c, process_default).
    let data = match (e.bytes / 512, act) {
        (0, "C") => format!("{} [0]", e.sector),
        (0, _) => "[p]".to_string(),
        (n, _) => format!("{} + {n} [p]", e.sector),
    };
    format!(
        "{:>3},{:<3} {cpu} {seq} {}.{:09} 4242 {act} {rwbs} {data}\n",
        e.maj,
        e.min,
        e.time / 1_000_000_000,
        e.time % 1_000_000_000,
    )
}

fn event() -> impl Strategy<Value = Ev> {
    (
        0u64..2_000_000,
        0u64..1 << 40,
        prop_oneof![Just(0u32), (1u32..256).prop_map(|s| s * 512)],
        prop::sample::select(vec![QUEUE, GETRQ, ISSUE, COMPLETE]),
        prop::sample::select(vec![
            0,
            C_READ,
            C_WRITE,
            C_WRITE | C_SYNC,
            C_WRITE | C_FUA,
            C_WRITE | C_FLUSH,
            C_FLUSH,
            C_WRITE | C_DISCARD,
            C_READ | C_SYNC,
        ]),
        0u32..4,
    )
        .prop_map(|(gap, sector, bytes, code, cat, min)| Ev {
            time: gap,
            sector,
            bytes,
            action: code | cat,
            maj: 8,
            min: min * 16,
            pdu: Vec::new(),
        })
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0xB17_7ACE),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn parse(bytes: Vec<u8>, o: &TraceOptions) -> Vec<Result<IoRequest, TraceError>> {
    match open_reader(Cursor::new(bytes), Path::new("<bytes>"), o) {
        Ok(t) => t.requests.collect(),
        Err(e) => vec![Err(e)],
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// The same events as binary and as blkparse text give the same requests, for each
    /// event choice.
    #[test]
    fn binary_and_blkparse_text_agree(mut evs in prop::collection::vec(event(), 1..40)) {
        // Times increase (one CPU's file); gaps were drawn, make them cumulative.
        let mut t = 1_000_000_000;
        for e in &mut evs {
            t += e.time;
            e.time = t;
        }
        let bin = file(&evs, 0, false);
        let text: String = evs.iter().enumerate().map(|(i, e)| text_line(e, 0, i as u32 + 1)).collect();
        for event in [BlkparseEvent::Queue, BlkparseEvent::Issue, BlkparseEvent::Complete] {
            let o = |f| TraceOptions { format: Some(f), blkparse_event: event, ..TraceOptions::default() };
            let a = parse(bin.clone(), &o(TraceFormat::Blktrace));
            let b = parse(text.clone().into_bytes(), &o(TraceFormat::Blkparse));
            match (a.last(), b.last()) {
                (Some(Err(TraceError::Empty { .. })), Some(Err(TraceError::Empty { .. }))) => {}
                _ => prop_assert_eq!(a, b, "{:?}\n{}", event, text),
            }
        }
    }

    /// Arbitrary bytes (raw, after a valid magic, or gzip-wrapped) never panic; errors
    /// name the stream and an event number within it.
    #[test]
    fn arbitrary_bytes_never_panic(mut bytes in prop::collection::vec(any::<u8>(), 0..400), magic in any::<bool>(), gz in any::<bool>()) {
        if magic && bytes.len() >= 4 {
            bytes[..4].copy_from_slice(&0x6561_7407u32.to_le_bytes());
        }
        if gz {
            use std::io::Write;
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&bytes).unwrap();
            bytes = e.finish().unwrap();
        }
        let o = TraceOptions { format: Some(TraceFormat::Blktrace), ..TraceOptions::default() };
        let out = parse(bytes.clone(), &o);
        if let Some(pos) = out.iter().position(Result::is_err) {
            prop_assert_eq!(pos, out.len() - 1);
            match &out[pos] {
                Err(TraceError::Malformed { path, line, .. }) => {
                    prop_assert_eq!(path.to_str(), Some("<bytes>"));
                    prop_assert!(*line >= 1 && *line as usize <= bytes.len() / 48 + 1);
                }
                Err(TraceError::Empty { path, .. }) => prop_assert_eq!(path.to_str(), Some("<bytes>")),
                Err(e) => prop_assert!(false, "unexpected {}", e),
                Ok(_) => unreachable!(),
            }
        }
    }
}

/// Issue 30: `run --trace bt --format blktrace` with `bt.blktrace.0` present failed "No
/// such file or directory": the CLI's input check ran before the reader resolved the
/// per-CPU files of the base name docs/traces.md shows.
#[test]
fn the_cli_takes_a_blktrace_base_name() {
    let dir = tempfile::tempdir().unwrap();
    let (cpu0, cpu1, _) = two_cpus(false);
    std::fs::write(dir.path().join("bt.blktrace.0"), cpu0).unwrap();
    std::fs::write(dir.path().join("bt.blktrace.1"), cpu1).unwrap();
    let base = dir.path().join("bt");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args([
            "run",
            "--capacity",
            "4GiB",
            "--format",
            "blktrace",
            "--trace",
        ])
        .arg(&base)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args([
            "run",
            "--capacity",
            "4GiB",
            "--format",
            "blktrace",
            "--trace",
        ])
        .arg(dir.path().join("nope"))
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "a base name with no files is refused"
    );
}
