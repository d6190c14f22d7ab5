//! DiskSim's ASCII input: `time_ms dev blkno count flags`, blank-separated. Time is in
//! milliseconds with a fraction (kept to the nanosecond), `blkno` and `count` are 512 B
//! sectors, and bit 0 of `flags` set means read (DiskSim's `B_READ`); other flag bits are
//! ignored.
//!
//! ```text
//! 7961.833 0 20228336 8 0
//! 8346.206 0 6397360 496 1
//! ```

use super::TraceFormat;
use super::lex::{WsCursor, parse_scaled};
use super::reader::{LineParser, Parsed, RawRequest, ws_field_error, ws_finish};
use super::write::{WriteState, ms, read_or_write, sector_span};
use crate::workload::IoRequest;
use crate::workload::OpKind;
use std::io::{self, Write};

/// The line layout, quoted in errors.
pub(crate) const LAYOUT: &str =
    "5 space-separated fields: time_ms dev blkno_sectors count_sectors flags(bit 0 = read)";

/// Parser for [`super::TraceFormat::Disksim`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Disksim;

impl LineParser for Disksim {
    #[inline]
    fn parse(&mut self, line: &[u8]) -> Result<Parsed, String> {
        let fail = |index, name, must| ws_field_error(line, LAYOUT, 5, index, name, must);
        let mut c = WsCursor::new(line);
        let time_ns = parse_scaled(c.field(), 6)
            .ok_or_else(|| fail(1, "time_ms", "a non-negative decimal number"))?;
        let device = c
            .device()
            .ok_or_else(|| fail(2, "dev", "an integer below 2^32"))?;
        let offset = c
            .sectors()
            .ok_or_else(|| fail(3, "blkno_sectors", "a sector number"))?;
        let size = c
            .sectors()
            .ok_or_else(|| fail(4, "count_sectors", "a sector count"))?;
        let flags = c
            .int()
            .map_err(|_| fail(5, "flags", "a non-negative integer"))?;
        let op = if flags & 1 == 1 {
            OpKind::Read
        } else {
            OpKind::Write
        };
        ws_finish(
            line,
            &c,
            LAYOUT,
            RawRequest::new(time_ns, device, offset, size, op),
        )
    }

    fn fork(&self) -> Option<Self> {
        Some(*self)
    }

    fn time_unit(&self) -> &'static str {
        "ms"
    }
}

/// Writes `req` as a DiskSim line: milliseconds with 6 decimals (exact nanoseconds), the
/// sectors it touches, flags 1 (read) or 0.
pub(crate) fn write(req: &IoRequest, _: &mut WriteState, out: &mut dyn Write) -> io::Result<()> {
    let op = read_or_write(TraceFormat::Disksim, req.op, "1", "0")?;
    let (blk, n) = sector_span(req);
    writeln!(out, "{} {} {blk} {n} {op}", ms(req.arrival_ns), req.device)
}
