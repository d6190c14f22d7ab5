//! blktrace's binary output, read directly (no blkparse needed).
//!
//! `blktrace -d /dev/sdb -o NAME` writes one file per CPU, `NAME.blktrace.0`,
//! `NAME.blktrace.1`, …; each is a sequence of events in the order that CPU logged them.
//! An event is a fixed 48-byte header followed by `pdu_len` bytes of payload:
//!
//! | bytes | field | |
//! |---|---|---|
//! | 0–3 | magic | `0x656174` then a version byte (7 today) |
//! | 4–7 | sequence | per-CPU event counter |
//! | 8–15 | time | nanoseconds since tracing started |
//! | 16–23 | sector | 512 B sectors |
//! | 24–27 | bytes | length of the I/O |
//! | 28–31 | action | low 16 bits: what happened; high 16 bits: category flags |
//! | 32–35 | pid | |
//! | 36–39 | device | kernel `dev_t`: major in the top 12 bits, minor in the low 20 |
//! | 40–43 | cpu | |
//! | 44–45 | error | |
//! | 46–47 | pdu_len | payload bytes that follow |
//!
//! Integers are in the byte order of the machine that traced; the magic tells which
//! (each file is checked on its own).
//!
//! Which events are requests matches the blkparse text reader ([`super::blkparse`]): the
//! chosen event (`Q` queue by default, `D` issue, or `C` complete; option
//! `blkparse_event`); notification events (process names, messages) are not I/O. The
//! operation follows the letters blkparse would print in its rwbs column: discard
//! category → trim; flush or FUA category with less than one sector → flush; write
//! category → write; otherwise a non-zero length → read; no length and no flag → skipped
//! and counted, like blkparse's `N`. Sizes are the exact byte counts; the device number is
//! `major * 256 + minor`, as for blkparse text.
//!
//! The per-CPU files are merged into one stream by time (ties: lower CPU file first), as
//! blkparse does. Errors name the file and the event's number in it (1-based).

use super::TraceFormat;
use super::reader::{Expected, Parsed, RawRequest, Record, Records};
use super::warn::Kind;
use super::write::{WriteState, unsupported};
use super::{ALL_OPS, BlkparseEvent, FormatSpec, Reader, input};
use crate::workload::IoRequest;
use crate::workload::{OpKind, TraceError};
use std::io::Write;
use std::io::{BufReader, Read};
use std::path::PathBuf;

/// The format's entry in the registry ([`super::FORMATS`]).
pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "blktrace",
    summary: "blktrace binary per-CPU files (NAME.blktrace.N), merged by time, Q events",
    ops: ALL_OPS,
    resolution: "time in ns; offset in 512 B sectors (rounded down, the size grows by \
                 as much), size in bytes below 4 GiB; devices below 2^20; one per-CPU \
                 file (CPU 0)",
    header: "",
    read: Reader::Own(|ctx, set| {
        let event = ctx.opts.blkparse_event;
        if set.len() > 1 {
            // Every per-CPU file, merged by time; the stream opened for detection is
            // one of them and is read again as part of the set.
            ctx.build(move |_first| {
                let mut files = Vec::with_capacity(set.len());
                for p in &set {
                    let (stream, _) = input::decompress(input::open_raw(p)?, p)?;
                    files.push((p.clone(), stream));
                }
                Ok(BlktraceRecords::new(files, event))
            })
        } else {
            let path = set.first().cloned().unwrap_or(ctx.name.to_path_buf());
            ctx.build(move |first| Ok(BlktraceRecords::new(vec![(path.clone(), first)], event)))
        }
    }),
    write: Some(write),
    end: None,
};

/// Size of the fixed event header.
pub(crate) const HEADER: usize = 48;
/// The magic without its version byte.
pub(crate) const MAGIC: u32 = 0x6561_7400;

/// Action codes (low bits of `action`).
pub(crate) const TA_QUEUE: u32 = 1;
pub(crate) const TA_ISSUE: u32 = 7;
pub(crate) const TA_COMPLETE: u32 = 8;

/// Category flags (high 16 bits of `action`, given here already shifted).
pub(crate) const TC_READ: u32 = 1 << 16;
pub(crate) const TC_WRITE: u32 = 1 << 17;
pub(crate) const TC_FLUSH: u32 = 1 << 18;
pub(crate) const TC_NOTIFY: u32 = 1 << 26;
pub(crate) const TC_DISCARD: u32 = 1 << 29;
pub(crate) const TC_FUA: u32 = 1 << 31;

/// Whether `head` starts with a blk_io_trace magic, in either byte order.
pub(crate) fn has_magic(head: &[u8]) -> bool {
    let Some(m) = head.get(..4) else {
        return false;
    };
    let m: [u8; 4] = m.try_into().expect("4 bytes");
    u32::from_le_bytes(m) & !0xff == MAGIC || u32::from_be_bytes(m) & !0xff == MAGIC
}

/// One decoded event header.
#[derive(Clone, Copy, Debug)]
struct Event {
    time: u64,
    sector: u64,
    bytes: u32,
    action: u32,
    device: u32,
}

/// One per-CPU file being read.
struct CpuFile {
    path: PathBuf,
    reader: BufReader<Box<dyn Read + Send>>,
    /// Byte order, fixed by the first event's magic.
    big_endian: Option<bool>,
    /// Events read so far (the number of `next` in messages).
    count: u64,
    /// The file's next event, not yet merged.
    next: Option<Event>,
}

impl CpuFile {
    /// Reads the next event header into `self.next` (None at a clean end).
    fn advance(&mut self) -> Result<(), TraceError> {
        self.next = None;
        let mut h = [0u8; HEADER];
        let got = read_full(&mut self.reader, &mut h).map_err(|e| self.io(e))?;
        if got == 0 {
            return Ok(());
        }
        self.count += 1;
        if got < HEADER {
            return Err(self.malformed(
                format!("a {HEADER}-byte blk_io_trace event (the file ends inside one)"),
                format!("{got} bytes"),
            ));
        }
        let m: [u8; 4] = h[..4].try_into().expect("4 bytes");
        let be = match self.big_endian {
            Some(be) => be,
            None if u32::from_le_bytes(m) & !0xff == MAGIC => false,
            None => true,
        };
        self.big_endian = Some(be);
        let u32_at = |i: usize| {
            let b: [u8; 4] = h[i..i + 4].try_into().expect("4 bytes");
            if be {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        };
        let u64_at = |i: usize| {
            let b: [u8; 8] = h[i..i + 8].try_into().expect("8 bytes");
            if be {
                u64::from_be_bytes(b)
            } else {
                u64::from_le_bytes(b)
            }
        };
        if u32_at(0) & !0xff != MAGIC {
            let hex: Vec<String> = h[..8].iter().map(|b| format!("{b:02x}")).collect();
            return Err(self.malformed(
                "a blk_io_trace event starting with the magic 65 61 74 (then a version \
                 byte), in the file's byte order"
                    .into(),
                hex.join(" "),
            ));
        }
        let pdu = if be {
            u16::from_be_bytes([h[46], h[47]])
        } else {
            u16::from_le_bytes([h[46], h[47]])
        };
        // The payload (a process name, a message, a SCSI command) is not needed.
        let mut skip = [0u8; 256];
        let mut left = usize::from(pdu);
        while left > 0 {
            let n = left.min(skip.len());
            let got = read_full(&mut self.reader, &mut skip[..n]).map_err(|e| self.io(e))?;
            if got < n {
                return Err(self.malformed(
                    format!("{pdu} payload bytes after the event header (pdu_len)"),
                    format!(
                        "{} bytes before the end of the file",
                        usize::from(pdu) - left + got
                    ),
                ));
            }
            left -= n;
        }
        self.next = Some(Event {
            time: u64_at(8),
            sector: u64_at(16),
            bytes: u32_at(24),
            action: u32_at(28),
            device: u32_at(36),
        });
        Ok(())
    }

    fn io(&self, e: std::io::Error) -> TraceError {
        TraceError::Io {
            path: self.path.clone(),
            message: format!("after event {}: {e}", self.count),
        }
    }

    fn malformed(&self, expected: String, found: String) -> TraceError {
        TraceError::Malformed {
            path: self.path.clone(),
            line: self.count,
            expected,
            found,
        }
    }
}

/// Reads until `buf` is full or the stream ends; the number of bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The events of one or more per-CPU files, merged by time.
pub(crate) struct BlktraceRecords {
    files: Vec<CpuFile>,
    started: bool,
    /// The action code kept.
    want: u32,
    /// Text of the last skipped event, for the warning.
    text: Vec<u8>,
}

impl BlktraceRecords {
    /// Events of `files` (path, decompressed bytes), keeping the `event` actions.
    pub(crate) fn new(files: Vec<(PathBuf, Box<dyn Read + Send>)>, event: BlkparseEvent) -> Self {
        let want = match event {
            BlkparseEvent::Queue => TA_QUEUE,
            BlkparseEvent::Issue => TA_ISSUE,
            BlkparseEvent::Complete => TA_COMPLETE,
        };
        BlktraceRecords {
            files: files
                .into_iter()
                .map(|(path, r)| CpuFile {
                    path,
                    reader: BufReader::with_capacity(256 * 1024, r),
                    big_endian: None,
                    count: 0,
                    next: None,
                })
                .collect(),
            started: false,
            want,
            text: Vec::new(),
        }
    }
}

/// What an event means, with blkparse's rules (see the module doc).
fn classify(e: &Event, want: u32) -> Result<Parsed, Expected> {
    let a = e.action;
    if a & TC_NOTIFY != 0 || a & 0xff != want {
        return Ok(Parsed::Ignore);
    }
    let maj = e.device >> 20;
    let min = e.device & 0xf_ffff;
    let device = maj
        .checked_mul(256)
        .and_then(|v| v.checked_add(min))
        .ok_or("a device whose major * 256 + minor is below 2^32")?;
    let bytes = u64::from(e.bytes);
    let op = if a & TC_DISCARD != 0 {
        OpKind::Trim
    } else if a & (TC_FLUSH | TC_FUA) != 0 && bytes < 512 {
        return Ok(Parsed::Request(RawRequest::new(
            e.time,
            device,
            0,
            0,
            OpKind::Flush,
        )?));
    } else if a & TC_WRITE != 0 {
        OpKind::Write
    } else if bytes != 0 {
        OpKind::Read
    } else {
        return Ok(Parsed::Skip(Kind::NoDirection));
    };
    let offset = e
        .sector
        .checked_mul(512)
        .ok_or("a sector below 2^64 bytes")?;
    Ok(Parsed::Request(RawRequest::new(
        e.time, device, offset, bytes, op,
    )?))
}

impl Records for BlktraceRecords {
    fn next_record(&mut self) -> Result<Option<Record<'_>>, TraceError> {
        if !self.started {
            self.started = true;
            for f in &mut self.files {
                f.advance()?;
            }
        }
        // The file whose next event is earliest (few files: a scan beats a heap).
        let mut best: Option<(usize, u64)> = None;
        for (i, f) in self.files.iter().enumerate() {
            if let Some(e) = &f.next
                && best.is_none_or(|(_, t)| e.time < t)
            {
                best = Some((i, e.time));
            }
        }
        let Some((i, _)) = best else {
            return Ok(None);
        };
        let f = &mut self.files[i];
        let event = f.next.expect("chosen file has an event");
        let line = f.count;
        let parsed = classify(&event, self.want)
            .map_err(|m| f.malformed(format!("a blk_io_trace event with {m}"), hex(&event)))?;
        f.advance()?;
        if let Parsed::Skip(_) = parsed {
            self.text = format!(
                "{}: action {:#010x}, {} bytes at sector {}",
                f.path.display(),
                event.action,
                event.bytes,
                event.sector
            )
            .into_bytes();
        }
        Ok(Some(Record {
            line,
            parsed,
            text: &self.text,
        }))
    }

    fn time_unit(&self) -> &'static str {
        "ns"
    }

    fn noun(&self) -> &'static str {
        "events"
    }

    fn unit(&self) -> &'static str {
        "event"
    }

    fn ignore_reason(&self) -> &'static str {
        "were other actions than the chosen one (Q by default, see blkparse_event) or \
         notifications"
    }
}

fn hex(e: &Event) -> String {
    format!(
        "time {} sector {} bytes {} action {:#010x} device {:#010x}",
        e.time, e.sector, e.bytes, e.action, e.device
    )
}

/// Encodes one event header (for tests, benches and [`super::write_request`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn encode(
    big_endian: bool,
    seq: u32,
    time: u64,
    sector: u64,
    bytes: u32,
    action: u32,
    device: u32,
    cpu: u32,
    pdu_len: u16,
) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    let mut put = |at: usize, v: &[u8]| h[at..at + v.len()].copy_from_slice(v);
    macro_rules! e {
        ($v:expr) => {
            if big_endian {
                $v.to_be_bytes()
            } else {
                $v.to_le_bytes()
            }
        };
    }
    put(0, &e!(MAGIC | 7));
    put(4, &e!(seq));
    put(8, &e!(time));
    put(16, &e!(sector));
    put(24, &e!(bytes));
    put(28, &e!(action));
    put(32, &e!(1u32));
    put(36, &e!(device));
    put(40, &e!(cpu));
    put(46, &e!(pdu_len));
    h
}

/// Writes `req` as one little-endian queue event of CPU 0, numbered from 1 in the file
/// (blkparse checks each CPU's sequence). The device becomes a kernel `dev_t` with
/// major `device / 256` and minor `device % 256`, so devices up to 2^20 - 1 fit (the
/// major has 12 bits). The offset is rounded down to its sector and the length grows
/// by as much, so the request still ends where it did; it must stay below 4 GiB (a
/// 32-bit field).
pub(crate) fn write(
    req: &IoRequest,
    st: &mut WriteState,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let format = TraceFormat::Blktrace;
    let (maj, min) = (req.device / 256, req.device % 256);
    if maj >= 1 << 12 {
        return Err(unsupported(
            format,
            format!(
                "device {} (its dev_t holds a major below 4096: devices up to 1048575)",
                req.device
            ),
        ));
    }
    let category = match req.op {
        OpKind::Read => TC_READ,
        OpKind::Write => TC_WRITE,
        OpKind::Trim => TC_WRITE | TC_DISCARD,
        OpKind::Flush => TC_FLUSH,
        op => return Err(super::write::zone_unsupported(format, op)),
    };
    let sector = req.offset_bytes / 512;
    let bytes =
        u32::try_from(req.size_bytes.saturating_add(req.offset_bytes % 512)).map_err(|_| {
            unsupported(
                format,
                format!(
                    "a size of {} B (its bytes field holds below 4 GiB)",
                    req.size_bytes
                ),
            )
        })?;
    // Sequence numbers wrap as the kernel's 32-bit counter does.
    let seq = (st.written + 1) as u32;
    let h = encode(
        false,
        seq,
        req.arrival_ns,
        sector,
        bytes,
        TA_QUEUE | category,
        (maj << 20) | min,
        0,
        0,
    );
    out.write_all(&h)
}
