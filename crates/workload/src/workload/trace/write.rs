//! Writers: render requests in each trace format, so traces can be converted
//! (`ssdlab gen-trace --out-format`) and every reader can be checked by round trips
//! (property tests and fuzz targets).
//!
//! Each format's writer sits in its reader's file (`msr.rs`, `fio.rs`, …), next to the
//! layout it writes, and is listed in the registry [`super::FORMATS`]. This file holds
//! what they share: the per-file state, the number renderings, and the refusal of a
//! request a format cannot carry.
//!
//! Resolution: a written request reads back as the same request to the format's
//! resolution ([`super::FormatSpec::resolution`]): times are rounded down to the
//! format's unit (MSR 100 ns ticks, fio microseconds; the others keep nanoseconds),
//! a format counting 512 B sectors widens a request to the sectors it touches, and fio
//! renumbers devices in order of first appearance (its lines name files, not numbers).
//! What a format cannot hold at all — a trim in a reads-and-writes format, a device
//! number past its field — is an [`io::ErrorKind::InvalidInput`] error naming the
//! format and the field.

use super::TraceFormat;
use crate::workload::{IoRequest, OpKind};
use std::io::{self, Write};

/// What a writer keeps between the requests of one file.
#[derive(Clone, Debug, Default)]
pub(crate) struct WriteState {
    /// Requests written so far (blktrace numbers its events from 1).
    pub(crate) written: u64,
    /// Devices met so far, in order (fio adds and opens a file at its first use).
    pub(crate) devices: Vec<u32>,
    /// Arrival of the latest request written, ns.
    pub(crate) last_ns: u64,
}

impl WriteState {
    /// Whether `device` is met for the first time (and remembers it).
    pub(crate) fn first_use(&mut self, device: u32) -> bool {
        if self.devices.contains(&device) {
            false
        } else {
            self.devices.push(device);
            true
        }
    }
}

/// Writes one request of a format.
pub(crate) type WriteFn = fn(&IoRequest, &mut WriteState, &mut dyn Write) -> io::Result<()>;
/// Writes what a format needs after its last request.
pub(crate) type EndFn = fn(&WriteState, &mut dyn Write) -> io::Result<()>;

/// The writer of `format`; a format that is only read (one added with
/// [`super::register`] and no writer) is an [`io::ErrorKind::Unsupported`] error.
fn writer(format: TraceFormat) -> io::Result<WriteFn> {
    format.spec().write.ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::Unsupported,
            format!("the {format} format has no writer (it is only read)"),
        )
    })
}

/// The refusal of something `format` cannot carry.
pub(crate) fn unsupported(format: TraceFormat, what: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("the {format} format cannot carry {what}"),
    )
}

/// The operation as `read` or `write`, for the formats that have only these two.
pub(crate) fn read_or_write<'a>(
    format: TraceFormat,
    op: OpKind,
    read: &'a str,
    write: &'a str,
) -> io::Result<&'a str> {
    match op {
        OpKind::Read => Ok(read),
        OpKind::Write => Ok(write),
        OpKind::Trim => Err(unsupported(
            format,
            "trim requests (its operation field holds a read or a write)".into(),
        )),
        OpKind::Flush => Err(unsupported(
            format,
            "flush requests (its operation field holds a read or a write)".into(),
        )),
        op => Err(zone_unsupported(format, op)),
    }
}

/// The refusal of a zone operation by a format without codes for them (only `ascii`
/// and `csv` carry them).
pub(crate) fn zone_unsupported(format: TraceFormat, op: OpKind) -> io::Error {
    unsupported(
        format,
        format!(
            "{} requests (zone operations are carried by the ascii and csv formats)",
            op.name()
        ),
    )
}

/// The 512 B sectors `req` touches: (first sector, count), the count at least 1 for a
/// request with bytes. A request not on whole sectors is widened to them.
pub(crate) fn sector_span(req: &IoRequest) -> (u64, u64) {
    let first = req.offset_bytes / 512;
    let end = req
        .offset_bytes
        .saturating_add(req.size_bytes)
        .div_ceil(512);
    (first, end - first)
}

/// `ns` as milliseconds with 6 decimals: exact, so the readers get the same nanoseconds.
pub(crate) fn ms(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000, ns % 1_000_000)
}

/// `ns` as seconds with 9 decimals.
pub(crate) fn secs(ns: u64) -> String {
    format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
}

/// Writes a trace file in one format: the format's header, its requests, its closing
/// lines. One writer per output file (some formats number their events or manage the
/// files a log names).
pub struct TraceWriter<W: Write> {
    spec: &'static super::FormatSpec,
    write: WriteFn,
    state: WriteState,
    out: W,
}

impl<W: Write> TraceWriter<W> {
    /// A writer of `format` into `out`; writes the format's header.
    pub fn new(format: TraceFormat, mut out: W) -> io::Result<Self> {
        let spec = format.spec();
        let write = writer(format)?;
        out.write_all(spec.header.as_bytes())?;
        Ok(TraceWriter {
            spec,
            write,
            state: WriteState::default(),
            out,
        })
    }

    /// Writes `req`, taking `arrival_ns` as its time. A request the format cannot carry
    /// is an [`io::ErrorKind::InvalidInput`] error naming the format and the field;
    /// nothing of it is written.
    pub fn write(&mut self, req: &IoRequest) -> io::Result<()> {
        let mut line = Vec::with_capacity(128);
        (self.write)(req, &mut self.state, &mut line)?;
        self.out.write_all(&line)?;
        self.state.written += 1;
        self.state.last_ns = req.arrival_ns;
        Ok(())
    }

    /// Requests written so far.
    pub fn written(&self) -> u64 {
        self.state.written
    }

    /// Writes the format's closing lines and flushes; gives the output back.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(end) = self.spec.end {
            end(&self.state, &mut self.out)?;
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Writes `req` alone as one line (with `\n`) of `format`, taking `arrival_ns` as the
/// timestamp (blktrace: one binary queue event, sequence 1; fio: the request's line
/// only, as in a log where its file is already open). Start a file with
/// [`write_header`]; a whole file is better written by a [`TraceWriter`], which numbers
/// blktrace events and adds, opens and closes each fio file. Blkparse lines are `Q` events with `maj = device / 256`,
/// `min = device % 256` and process `[ssdlab]`; CSV uses
/// [`super::CSV_CANONICAL_COLUMNS`]. What a format cannot carry (a trim in MSR, …) is an
/// [`io::ErrorKind::InvalidInput`] error.
pub fn write_request<W: Write>(
    format: TraceFormat,
    req: &IoRequest,
    out: &mut W,
) -> io::Result<()> {
    let mut alone = WriteState::default();
    alone.first_use(req.device);
    let mut line = Vec::with_capacity(128);
    writer(format)?(req, &mut alone, &mut line)?;
    out.write_all(&line)
}

/// Writes what `format` needs before its first request: the `fio version 3 iolog` line
/// for fio, nothing for the others.
pub fn write_header<W: Write>(format: TraceFormat, out: &mut W) -> io::Result<()> {
    out.write_all(format.spec().header.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(format: TraceFormat, req: IoRequest) -> String {
        let mut v = Vec::new();
        write_request(format, &req, &mut v).unwrap();
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn renders_each_format() {
        let r = IoRequest::new(OpKind::Read, 1024, 4096)
            .at(1_500_123_456)
            .on_device(2064);
        assert_eq!(line(TraceFormat::Ascii, r), "1500123456 2064 2 8 1\n");
        assert_eq!(line(TraceFormat::Disksim, r), "1500.123456 2064 2 8 1\n");
        assert_eq!(
            line(TraceFormat::Heimdall, r),
            "1500.123456 2064 1024 4096 1\n"
        );
        assert_eq!(
            line(TraceFormat::Msr, r),
            "15001234,ssdlab,2064,Read,1024,4096,0\n"
        );
        assert_eq!(line(TraceFormat::Tencent, r), "1.500123456,2,8,0,2064\n");
        assert_eq!(
            line(TraceFormat::Blkparse, r),
            "  8,16  0 1      1.500123456 1  Q R 2 + 8 [ssdlab]\n"
        );
        assert_eq!(
            line(TraceFormat::Csv, r),
            "1500123456,2064,1024,4096,Read\n"
        );
        assert_eq!(
            line(TraceFormat::Fio, r),
            "1500123 dev2064 read 1024 4096\n"
        );
        // 100 B at byte 1000 touches sectors 1 and 2.
        let odd = IoRequest {
            offset_bytes: 1000,
            size_bytes: 100,
            ..r
        };
        assert_eq!(line(TraceFormat::Ascii, odd), "1500123456 2064 1 2 1\n");
        let trim = IoRequest {
            op: OpKind::Trim,
            ..r
        };
        let e = write_request(TraceFormat::Msr, &trim, &mut Vec::new()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(
            e.to_string().contains("msr format cannot carry trim"),
            "{e}"
        );
    }

    #[test]
    fn a_file_numbers_blktrace_events_and_adds_each_fio_file_once() {
        let r = |t, device| {
            IoRequest::new(OpKind::Write, 0, 512)
                .at(t)
                .on_device(device)
        };
        let mut w = TraceWriter::new(TraceFormat::Fio, Vec::new()).unwrap();
        for (t, d) in [(1000, 3), (2000, 3), (3000, 1)] {
            w.write(&r(t, d)).unwrap();
        }
        assert_eq!(w.written(), 3);
        let text = String::from_utf8(w.finish().unwrap()).unwrap();
        assert_eq!(
            text,
            "fio version 3 iolog\n1 dev3 add\n1 dev3 open\n1 dev3 write 0 512\n\
             2 dev3 write 0 512\n3 dev1 add\n3 dev1 open\n3 dev1 write 0 512\n\
             3 dev3 close\n3 dev1 close\n"
        );
        let mut w = TraceWriter::new(TraceFormat::Blktrace, Vec::new()).unwrap();
        w.write(&r(1, 0)).unwrap();
        w.write(&r(2, 0)).unwrap();
        let b = w.finish().unwrap();
        assert_eq!(b.len(), 96);
        // The sequence field (bytes 4..8, little-endian) counts from 1.
        assert_eq!(b[4..8], 1u32.to_le_bytes());
        assert_eq!(b[52..56], 2u32.to_le_bytes());
    }
}
