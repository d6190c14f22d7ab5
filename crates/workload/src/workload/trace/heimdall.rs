//! The Heimdall project's cuts of the MSR Cambridge traces: `time_ms dev offset_bytes
//! size_bytes op`, blank-separated, time in milliseconds with a fraction, offsets and sizes
//! in bytes, op `1` = read and `0` = write.
//!
//! ```text
//! 0.000 0 200626176 4096 0
//! 223.412 0 3159347200 36864 1
//! ```

use super::TraceFormat;
use super::lex::{WsCursor, parse_scaled};
use super::reader::{LineParser, Parsed, RawRequest, ws_field_error, ws_finish};
use super::write::{WriteState, ms, read_or_write};
use crate::workload::IoRequest;
use crate::workload::OpKind;
use std::io::{self, Write};

/// The line layout, quoted in errors.
pub(crate) const LAYOUT: &str =
    "5 space-separated fields: time_ms dev offset_bytes size_bytes op(0|1)";

/// Parser for [`super::TraceFormat::Heimdall`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Heimdall;

impl LineParser for Heimdall {
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
            .int()
            .map_err(|_| fail(3, "offset_bytes", "a byte offset"))?;
        let size = c.int().map_err(|_| fail(4, "size_bytes", "a byte count"))?;
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
        "ms"
    }
}

/// Writes `req` as a Heimdall line: milliseconds with 6 decimals (exact nanoseconds),
/// bytes.
pub(crate) fn write(req: &IoRequest, _: &mut WriteState, out: &mut dyn Write) -> io::Result<()> {
    let op = read_or_write(TraceFormat::Heimdall, req.op, "1", "0")?;
    writeln!(
        out,
        "{} {} {} {} {op}",
        ms(req.arrival_ns),
        req.device,
        req.offset_bytes,
        req.size_bytes
    )
}
