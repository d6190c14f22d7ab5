//! SNIA's Tencent Cloud Block Storage traces: `timestamp_s,offset_sectors,size_sectors,
//! type,volume`, comma-separated, Unix time in whole seconds (a fraction is accepted and
//! kept to the nanosecond), 512 B sectors, type `1` = write and `0` = read (note: the
//! opposite of the ASCII formats), and the volume number as the device. Each volume is its
//! own address space, so filter one with the device option or expect overlaps.
//! A non-numeric first line is taken as a header and skipped.
//!
//! ```text
//! 1538323200,4247200,128,1,1058
//! 1538323199,13896880,128,0,1063
//! ```

use super::lex::{SECTOR, mul, parse_scaled, parse_u32, parse_u64, split_delim};
use super::reader::{
    Expected, LineParser, Parsed, RawRequest, count_error, field_error, header_once,
};
use super::write::{WriteState, read_or_write, secs, sector_span};
use super::{FormatSpec, RW, Reader, TraceFormat};
use crate::workload::IoRequest;
use crate::workload::OpKind;
use std::io::{self, Write};

/// The format's entry in the registry ([`super::FORMATS`]).
pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "tencent",
    summary: "SNIA Tencent CBS CSV: timestamp_s,offset_sectors,size_sectors,type,volume",
    ops: RW,
    resolution: "time in ns (s with 9 decimals); offset and size in 512 B sectors (a \
                 request is widened to the sectors it touches); device as the volume",
    header: "",
    read: Reader::Own(|ctx, _| ctx.lines(Tencent::default())),
    write: Some(write),
    end: None,
};

/// The line layout, quoted in errors.
pub(crate) const LAYOUT: &str =
    "5 comma-separated fields: timestamp_s,offset_sectors,size_sectors,type(0=read|1=write),volume";

/// Parser for [`super::TraceFormat::Tencent`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tencent {
    seen_data: bool,
}

impl LineParser for Tencent {
    #[inline]
    fn parse(&mut self, line: &[u8]) -> Result<Parsed, Expected> {
        if let Some(header) = header_once(&mut self.seen_data, line) {
            return Ok(header);
        }
        let [t, off, n, ty, vol] =
            split_delim::<5>(line, b',').map_err(|n| count_error(LAYOUT, n))?;
        let time_ns = parse_scaled(t, 9)
            .ok_or_else(|| field_error(LAYOUT, 1, "timestamp_s", "Unix seconds"))?;
        let offset = parse_u64(off)
            .and_then(|v| mul(v, SECTOR))
            .ok_or_else(|| field_error(LAYOUT, 2, "offset_sectors", "a sector number"))?;
        let size = parse_u64(n)
            .and_then(|v| mul(v, SECTOR))
            .ok_or_else(|| field_error(LAYOUT, 3, "size_sectors", "a sector count"))?;
        let op = match ty {
            b"0" => OpKind::Read,
            b"1" => OpKind::Write,
            _ => return Err(field_error(LAYOUT, 4, "type", "0 (read) or 1 (write)")),
        };
        let device = parse_u32(vol)
            .ok_or_else(|| field_error(LAYOUT, 5, "volume", "an integer below 2^32"))?;
        let r = RawRequest::new(time_ns, device, offset, size, op)
            .map_err(|m| format!("{LAYOUT} ({m})"))?;
        Ok(Parsed::Request(r))
    }

    /// Only the first data line may be a header.
    fn fork(&self) -> Option<Self> {
        Some(Tencent { seen_data: true })
    }

    fn time_unit(&self) -> &'static str {
        "s"
    }
}

/// Writes `req` as a Tencent line: whole seconds when the time is, else seconds with 9
/// decimals (exact nanoseconds); the sectors it touches; the device as the volume.
pub(crate) fn write(req: &IoRequest, _: &mut WriteState, out: &mut dyn Write) -> io::Result<()> {
    let op = read_or_write(TraceFormat::Tencent, req.op, "0", "1")?;
    let (off, n) = sector_span(req);
    let t = req.arrival_ns;
    let time = if t.is_multiple_of(1_000_000_000) {
        (t / 1_000_000_000).to_string()
    } else {
        secs(t)
    };
    writeln!(out, "{time},{off},{n},{op},{}", req.device)
}
