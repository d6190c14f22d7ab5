//! DiskSim's ASCII input: `time_ms dev blkno count flags`, blank-separated. Time is in
//! milliseconds with a fraction (kept to the nanosecond), `blkno` and `count` are 512 B
//! sectors, and bit 0 of `flags` set means read (DiskSim's `B_READ`); other flag bits are
//! ignored.
//!
//! ```text
//! 7961.833 0 20228336 8 0
//! 8346.206 0 6397360 496 1
//! ```

use super::lex::{SECTOR, mul, parse_scaled, parse_u32, parse_u64, split_ws};
use super::reader::{LineParser, Parsed, RawRequest, count_error, field_error};
use crate::workload::OpKind;

/// The line layout, quoted in errors.
pub(crate) const LAYOUT: &str =
    "5 space-separated fields: time_ms dev blkno_sectors count_sectors flags(bit 0 = read)";

/// Parser for [`super::TraceFormat::Disksim`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Disksim;

impl LineParser for Disksim {
    #[inline]
    fn parse(&mut self, line: &[u8]) -> Result<Parsed, String> {
        let [t, d, blk, n, flags] = split_ws::<5>(line).map_err(|n| count_error(LAYOUT, n))?;
        let time_ns = parse_scaled(t, 6)
            .ok_or_else(|| field_error(LAYOUT, 1, "time_ms", "a non-negative decimal number"))?;
        let device =
            parse_u32(d).ok_or_else(|| field_error(LAYOUT, 2, "dev", "an integer below 2^32"))?;
        let offset = parse_u64(blk)
            .and_then(|v| mul(v, SECTOR))
            .ok_or_else(|| field_error(LAYOUT, 3, "blkno_sectors", "a sector number"))?;
        let size = parse_u64(n)
            .and_then(|v| mul(v, SECTOR))
            .ok_or_else(|| field_error(LAYOUT, 4, "count_sectors", "a sector count"))?;
        let flags = parse_u64(flags)
            .ok_or_else(|| field_error(LAYOUT, 5, "flags", "a non-negative integer"))?;
        let op = if flags & 1 == 1 {
            OpKind::Read
        } else {
            OpKind::Write
        };
        let r = RawRequest::new(time_ns, device, offset, size, op)
            .map_err(|m| format!("{LAYOUT} ({m})"))?;
        Ok(Parsed::Request(r))
    }

    fn time_unit(&self) -> &'static str {
        "ms"
    }
}
