//! The ASCII layout several SSD simulators use (and the SPC/UMass conversions):
//! `time_ns dev lba_sectors size_sectors op`, blank-separated, 512 B sectors, op `1` = read
//! and `0` = write.
//!
//! ```text
//! 0 0 303567 7 0
//! 78643005 1 55596 6 1
//! ```

use super::TraceFormat;
use super::lex::{WsCursor, parse_scaled};
use super::reader::{LineParser, Parsed, RawRequest, ws_field_error, ws_finish};
use super::write::{WriteState, read_or_write, sector_span};
use crate::workload::IoRequest;
use crate::workload::OpKind;
use std::io::{self, Write};

/// The line layout, quoted in errors.
pub(crate) const LAYOUT: &str =
    "5 space-separated fields: time_ns dev lba_sectors size_sectors op(0|1)";

/// Parser for [`super::TraceFormat::Ascii`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ascii;

impl LineParser for Ascii {
    #[inline]
    fn parse(&mut self, line: &[u8]) -> Result<Parsed, String> {
        let fail = |index, name, must| ws_field_error(line, LAYOUT, 5, index, name, must);
        let mut c = WsCursor::new(line);
        let time_ns = match c.int() {
            Ok(v) => v,
            // Nanoseconds are integers; a fraction (some converters print one) is truncated.
            Err(f) => {
                parse_scaled(f, 0).ok_or_else(|| fail(1, "time_ns", "a non-negative number"))?
            }
        };
        let device = c
            .device()
            .ok_or_else(|| fail(2, "dev", "an integer below 2^32"))?;
        let offset = c
            .sectors()
            .ok_or_else(|| fail(3, "lba_sectors", "a sector number"))?;
        let size = c
            .sectors()
            .ok_or_else(|| fail(4, "size_sectors", "a sector count"))?;
        let op = match c.int() {
            Ok(1) => OpKind::Read,
            Ok(0) => OpKind::Write,
            _ => return Err(fail(5, "op", "1 (read) or 0 (write)")),
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
        "ns"
    }
}

/// Writes `req` as an ASCII line: nanoseconds, the sectors it touches.
pub(crate) fn write(req: &IoRequest, _: &mut WriteState, out: &mut dyn Write) -> io::Result<()> {
    let op = read_or_write(TraceFormat::Ascii, req.op, "1", "0")?;
    let (lba, n) = sector_span(req);
    writeln!(out, "{} {} {lba} {n} {op}", req.arrival_ns, req.device)
}
