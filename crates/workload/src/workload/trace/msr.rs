//! MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
//! Timestamp is a Windows FILETIME (100 ns ticks since 1601), Type is `Read` or `Write`
//! (any letter case), Offset and Size are bytes, DiskNumber is the device. Hostname and
//! ResponseTime are not used. A non-numeric first line is taken as a header and skipped.
//!
//! ```text
//! 128166385295514663,hm,0,Write,9056014336,2048,2833
//! 128166385295514878,hm,0,Read,11855351808,512,2617
//! ```

use super::lex::{mul, parse_u32, parse_u64, split_delim};
use super::reader::{
    Expected, LineParser, Parsed, RawRequest, count_error, field_error, header_once,
};
use super::write::{WriteState, read_or_write};
use super::{FormatSpec, RW, Reader, TraceFormat};
use crate::workload::IoRequest;
use crate::workload::OpKind;
use std::io::{self, Write};

/// The format's entry in the registry ([`super::FORMATS`]).
pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "msr",
    summary: "MSR Cambridge CSV: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
    ops: RW,
    resolution: "time in 100 ns ticks (rounded down); offset and size in bytes",
    header: "",
    read: Reader::Own(|ctx, _| ctx.lines(Msr::default())),
    write: Some(write),
    end: None,
};

/// The line layout, quoted in errors.
pub(crate) const LAYOUT: &str = "7 comma-separated fields: \
     Timestamp(100 ns ticks),Hostname,DiskNumber,Type(Read|Write),Offset,Size,ResponseTime";

/// Parser for [`super::TraceFormat::Msr`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Msr {
    seen_data: bool,
}

impl LineParser for Msr {
    #[inline]
    fn parse(&mut self, line: &[u8]) -> Result<Parsed, Expected> {
        if let Some(header) = header_once(&mut self.seen_data, line) {
            return Ok(header);
        }
        let [t, _host, d, ty, off, n, _resp] =
            split_delim::<7>(line, b',').map_err(|n| count_error(LAYOUT, n))?;
        let ticks = parse_u64(t).ok_or_else(|| {
            field_error(LAYOUT, 1, "Timestamp", "an integer count of 100 ns ticks")
        })?;
        // FILETIMEs up to the year ~2185 fit a u64 in nanoseconds; beyond that is an error.
        let time_ns =
            mul(ticks, 100).ok_or_else(|| field_error(LAYOUT, 1, "Timestamp", "below 2^64 ns"))?;
        let device = parse_u32(d)
            .ok_or_else(|| field_error(LAYOUT, 3, "DiskNumber", "an integer below 2^32"))?;
        let op = if ty.eq_ignore_ascii_case(b"read") {
            OpKind::Read
        } else if ty.eq_ignore_ascii_case(b"write") {
            OpKind::Write
        } else {
            return Err(field_error(LAYOUT, 4, "Type", "Read or Write"));
        };
        let offset =
            parse_u64(off).ok_or_else(|| field_error(LAYOUT, 5, "Offset", "a byte offset"))?;
        let size = parse_u64(n).ok_or_else(|| field_error(LAYOUT, 6, "Size", "a byte count"))?;
        let r = RawRequest::new(time_ns, device, offset, size, op)
            .map_err(|m| format!("{LAYOUT} ({m})"))?;
        Ok(Parsed::Request(r))
    }

    /// Only the first data line may be a header.
    fn fork(&self) -> Option<Self> {
        Some(Msr { seen_data: true })
    }

    fn time_unit(&self) -> &'static str {
        "100 ns ticks"
    }
}

/// Writes `req` as an MSR line: time in 100 ns ticks (rounded down), host `ssdlab`,
/// bytes, response time 0.
pub(crate) fn write(req: &IoRequest, _: &mut WriteState, out: &mut dyn Write) -> io::Result<()> {
    let op = read_or_write(TraceFormat::Msr, req.op, "Read", "Write")?;
    writeln!(
        out,
        "{},ssdlab,{},{op},{},{},0",
        req.arrival_ns / 100,
        req.device,
        req.offset_bytes,
        req.size_bytes
    )
}
