//! DiskSim's ASCII input: `time_ms dev blkno count flags`, blank-separated. Time is in
//! milliseconds with a fraction (kept to the nanosecond), `blkno` and `count` are 512 B
//! sectors, and bit 0 of `flags` set means read (DiskSim's `B_READ`); other flag bits are
//! ignored.
//!
//! ```text
//! 7961.833 0 20228336 8 0
//! 8346.206 0 6397360 496 1
//! ```

use super::write::{WriteState, ms, read_or_write, sector_span};
use super::ws5::{Field, Op, Time, Ws5Layout};
use super::{FormatSpec, RW, Reader, TraceFormat};
use crate::workload::IoRequest;
use std::io::{self, Write};

/// The format's entry in the registry ([`super::FORMATS`]).
pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "disksim",
    summary: "DiskSim ASCII: time_ms dev blkno count flags (bit 0 = read)",
    ops: RW,
    resolution: "time in ns (ms with 6 decimals); offset and size in 512 B sectors (a \
                 request is widened to the sectors it touches)",
    header: "",
    read: Reader::Own(|ctx, _| ctx.lines(Disksim)),
    write: Some(write),
    end: None,
};

/// The line layout, quoted in errors.
pub(crate) const LAYOUT: &str =
    "5 space-separated fields: time_ms dev blkno_sectors count_sectors flags(bit 0 = read)";

/// Parser for [`super::TraceFormat::Disksim`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Disksim;

impl Ws5Layout for Disksim {
    const LAYOUT: &'static str = LAYOUT;
    const TIME: (&'static str, Time, &'static str) =
        ("time_ms", Time::Scaled(6), "a non-negative decimal number");
    const TIME_UNIT: &'static str = "ms";
    const OFFSET: Field = Field {
        name: "blkno_sectors",
        must: "a sector number",
        sectors: true,
    };
    const SIZE: Field = Field {
        name: "count_sectors",
        must: "a sector count",
        sectors: true,
    };
    const OP: Op = Op::Flags;
}

/// Writes `req` as a DiskSim line: milliseconds with 6 decimals (exact nanoseconds), the
/// sectors it touches, flags 1 (read) or 0.
pub(crate) fn write(req: &IoRequest, _: &mut WriteState, out: &mut dyn Write) -> io::Result<()> {
    let op = read_or_write(TraceFormat::Disksim, req.op, "1", "0")?;
    let (blk, n) = sector_span(req);
    writeln!(out, "{} {} {blk} {n} {op}", ms(req.arrival_ns), req.device)
}
