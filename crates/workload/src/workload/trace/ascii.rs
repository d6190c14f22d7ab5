//! The ASCII layout several SSD simulators use (and the SPC/UMass conversions):
//! `time_ns dev lba_sectors size_sectors op`, blank-separated, 512 B sectors, op `1` = read
//! and `0` = write. ssdlab adds the zone operations of a zoned drive (NVMe ZNS): `ZA` zone
//! append (the offset is the zone's start, the size its data), `ZR` reset, `ZF` finish,
//! `ZO` open and `ZC` close (the offset is the zone's start, the size 0).
//!
//! ```text
//! 0 0 303567 7 0
//! 78643005 1 55596 6 1
//! ```

use super::write::{WriteState, read_or_write, sector_span};
use super::ws5::{Field, Op, Time, Ws5Layout};
use super::{FormatSpec, RW_ZONES, Reader, TraceFormat};
use crate::workload::IoRequest;
use std::io::{self, Write};

/// The format's entry in the registry ([`super::FORMATS`]).
pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "ascii",
    summary: "SSD-simulator ASCII: time_ns dev lba_sectors size_sectors op (1 = read)",
    ops: RW_ZONES,
    resolution: "time in ns; offset and size in 512 B sectors (a request is widened to \
                 the sectors it touches)",
    header: "",
    read: Reader::Own(|ctx, _| ctx.lines(Ascii)),
    write: Some(write),
    end: None,
};

/// The line layout, quoted in errors.
pub(crate) const LAYOUT: &str = "5 space-separated fields: time_ns dev lba_sectors size_sectors op(0|1|ZA|ZR|ZF|ZO|ZC|ZQ0-ZQ7), and an optional 6th: placement";

/// Parser for [`super::TraceFormat::Ascii`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ascii;

impl Ws5Layout for Ascii {
    const LAYOUT: &'static str = LAYOUT;
    const TIME: (&'static str, Time, &'static str) = ("time_ns", Time::Ns, "a non-negative number");
    const TIME_UNIT: &'static str = "ns";
    const OFFSET: Field = Field {
        name: "lba_sectors",
        must: "a sector number",
        sectors: true,
    };
    const SIZE: Field = Field {
        name: "size_sectors",
        must: "a sector count",
        sectors: true,
    };
    const OP: Op = Op::ZeroOne;
    /// ssdlab's own format carries an FDP placement identifier (NVMe TP4146) as an
    /// optional sixth column; lines without it have no placement directive.
    const PLACEMENT: bool = true;
    const ZONE_CODES: bool = true;
}

/// Writes `req` as an ASCII line: nanoseconds, the sectors it touches.
pub(crate) fn write(req: &IoRequest, _: &mut WriteState, out: &mut dyn Write) -> io::Result<()> {
    let op = match req.op.zone_code() {
        Some(code) => code,
        None => read_or_write(TraceFormat::Ascii, req.op, "1", "0")?,
    };
    let (lba, n) = sector_span(req);
    match req.placement {
        None => writeln!(out, "{} {} {lba} {n} {op}", req.arrival_ns, req.device),
        Some(p) => writeln!(out, "{} {} {lba} {n} {op} {p}", req.arrival_ns, req.device),
    }
}
