//! The Heimdall project's cuts of the MSR Cambridge traces: `time_ms dev offset_bytes
//! size_bytes op`, blank-separated, time in milliseconds with a fraction, offsets and sizes
//! in bytes, op `1` = read and `0` = write.
//!
//! ```text
//! 0.000 0 200626176 4096 0
//! 223.412 0 3159347200 36864 1
//! ```

use super::lex::{parse_scaled, parse_u32, parse_u64, split_ws};
use super::reader::{LineParser, Parsed, RawRequest, count_error, field_error};
use crate::workload::OpKind;

/// The line layout, quoted in errors.
pub(crate) const LAYOUT: &str =
    "5 space-separated fields: time_ms dev offset_bytes size_bytes op(0|1)";

/// Parser for [`super::TraceFormat::Heimdall`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Heimdall;

impl LineParser for Heimdall {
    #[inline]
    fn parse(&mut self, line: &[u8]) -> Result<Parsed, String> {
        let [t, d, off, n, op] = split_ws::<5>(line).map_err(|n| count_error(LAYOUT, n))?;
        let time_ns = parse_scaled(t, 6)
            .ok_or_else(|| field_error(LAYOUT, 1, "time_ms", "a non-negative decimal number"))?;
        let device =
            parse_u32(d).ok_or_else(|| field_error(LAYOUT, 2, "dev", "an integer below 2^32"))?;
        let offset = parse_u64(off)
            .ok_or_else(|| field_error(LAYOUT, 3, "offset_bytes", "a byte offset"))?;
        let size =
            parse_u64(n).ok_or_else(|| field_error(LAYOUT, 4, "size_bytes", "a byte count"))?;
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
        "ms"
    }
}
