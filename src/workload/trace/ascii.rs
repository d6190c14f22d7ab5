//! The ASCII layout several SSD simulators use (and the SPC/UMass conversions):
//! `time_ns dev lba_sectors size_sectors op`, blank-separated, 512 B sectors, op `1` = read
//! and `0` = write.
//!
//! ```text
//! 0 0 303567 7 0
//! 78643005 1 55596 6 1
//! ```

use super::lex::{SECTOR, mul, parse_scaled, parse_u32, parse_u64, split_ws};
use super::reader::{LineParser, Parsed, RawRequest, count_error, field_error};
use crate::workload::OpKind;

/// The line layout, quoted in errors.
pub(crate) const LAYOUT: &str =
    "5 space-separated fields: time_ns dev lba_sectors size_sectors op(0|1)";

/// Parser for [`super::TraceFormat::Ascii`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ascii;

impl LineParser for Ascii {
    #[inline]
    fn parse(&mut self, line: &[u8]) -> Result<Parsed, String> {
        let [t, d, lba, n, op] = split_ws::<5>(line).map_err(|n| count_error(LAYOUT, n))?;
        // Nanoseconds are integers; a fraction (some converters print one) is truncated.
        let time_ns = parse_scaled(t, 0)
            .ok_or_else(|| field_error(LAYOUT, 1, "time_ns", "a non-negative number"))?;
        let device =
            parse_u32(d).ok_or_else(|| field_error(LAYOUT, 2, "dev", "an integer below 2^32"))?;
        let offset = parse_u64(lba)
            .and_then(|v| mul(v, SECTOR))
            .ok_or_else(|| field_error(LAYOUT, 3, "lba_sectors", "a sector number"))?;
        let size = parse_u64(n)
            .and_then(|v| mul(v, SECTOR))
            .ok_or_else(|| field_error(LAYOUT, 4, "size_sectors", "a sector count"))?;
        let op = match op {
            b"1" => OpKind::Read,
            b"0" => OpKind::Write,
            _ => return Err(field_error(LAYOUT, 5, "op", "1 (read) or 0 (write)")),
        };
        let r = RawRequest::new(time_ns, device, offset, size, op)
            .map_err(|m| format!("{LAYOUT} ({m})"))?;
        Ok(Parsed::Request(r))
    }

    fn time_unit(&self) -> &'static str {
        "ns"
    }
}
