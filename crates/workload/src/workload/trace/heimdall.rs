//! The Heimdall project's cuts of the MSR Cambridge traces: `time_ms dev offset_bytes
//! size_bytes op`, blank-separated, time in milliseconds with a fraction, offsets and sizes
//! in bytes, op `1` = read and `0` = write.
//!
//! ```text
//! 0.000 0 200626176 4096 0
//! 223.412 0 3159347200 36864 1
//! ```

use super::write::{WriteState, ms, read_or_write};
use super::ws5::{Field, Op, Time, Ws5Layout};
use super::{FormatSpec, RW, Reader, TraceFormat};
use crate::workload::IoRequest;
use std::io::{self, Write};

/// The format's entry in the registry ([`super::FORMATS`]).
pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "heimdall",
    summary: "time_ms dev offset_bytes size_bytes op (1 = read)",
    ops: RW,
    resolution: "time in ns (ms with 6 decimals); offset and size in bytes",
    header: "",
    read: Reader::Own(|ctx, _| ctx.lines(Heimdall)),
    write: Some(write),
    end: None,
};

/// The line layout, quoted in errors.
pub(crate) const LAYOUT: &str =
    "5 space-separated fields: time_ms dev offset_bytes size_bytes op(0|1)";

/// Parser for [`super::TraceFormat::Heimdall`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Heimdall;

impl Ws5Layout for Heimdall {
    const LAYOUT: &'static str = LAYOUT;
    const TIME: (&'static str, Time, &'static str) =
        ("time_ms", Time::Scaled(6), "a non-negative decimal number");
    const TIME_UNIT: &'static str = "ms";
    const OFFSET: Field = Field {
        name: "offset_bytes",
        must: "a byte offset",
        sectors: false,
    };
    const SIZE: Field = Field {
        name: "size_bytes",
        must: "a byte count",
        sectors: false,
    };
    const OP: Op = Op::ZeroOne;
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
