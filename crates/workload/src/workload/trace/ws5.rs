//! The one parser of the five-blank-separated-field layouts (`ascii.rs`, `disksim.rs`,
//! `heimdall.rs`): `time dev offset size op`. The three differ only in the units of the
//! time, offset and size columns and in how the operation is coded, so each states those
//! in a [`Ws5Layout`] and this file reads the line. The layout's constants are known at
//! compile time, so each format still gets its own straight-line parser (no per-line
//! dispatch on the layout).

use super::lex::{WsCursor, parse_scaled};
use super::reader::{
    Expected, LineParser, Parsed, RawRequest, field_error, ws_field_error, ws_finish,
};
use crate::workload::OpKind;

/// The time column.
#[derive(Clone, Copy)]
pub(crate) enum Time {
    /// Integer nanoseconds; a fraction (some converters print one) is truncated.
    Ns,
    /// A decimal number times 10^`decimals` gives nanoseconds (`Scaled(6)`: milliseconds,
    /// kept to the nanosecond).
    Scaled(u32),
}

/// The offset or size column.
#[derive(Clone, Copy)]
pub(crate) struct Field {
    /// Its name in the layout, quoted in errors.
    pub(crate) name: &'static str,
    /// What it must be, quoted in errors.
    pub(crate) must: &'static str,
    /// Counted in 512 B sectors (else in bytes).
    pub(crate) sectors: bool,
}

/// The operation column.
#[derive(Clone, Copy)]
pub(crate) enum Op {
    /// `op`: 1 = read, 0 = write, nothing else.
    ZeroOne,
    /// `flags`: bit 0 set = read (DiskSim's `B_READ`); other bits ignored.
    Flags,
}

/// What distinguishes one five-field layout from another.
pub(crate) trait Ws5Layout: Copy + Send + 'static {
    /// The line layout, quoted in errors.
    const LAYOUT: &'static str;
    /// The time column's name, unit and what it must be.
    const TIME: (&'static str, Time, &'static str);
    /// The unit of the time column, for warnings.
    const TIME_UNIT: &'static str;
    /// The offset column.
    const OFFSET: Field;
    /// The size column.
    const SIZE: Field;
    /// The operation column.
    const OP: Op;
    /// Whether an optional sixth column may carry an FDP placement identifier.
    const PLACEMENT: bool = false;
    /// Whether the op column also takes the zone operations' letter codes
    /// ([`OpKind::zone_code`]).
    const ZONE_CODES: bool = false;
}

impl<L: Ws5Layout> LineParser for L {
    #[inline]
    fn parse(&mut self, line: &[u8]) -> Result<Parsed, Expected> {
        let fail = |index, name, must| {
            // A layout with the optional placement column has 5 or 6 fields.
            let n = super::lex::WsFields::new(line).count();
            let fields = if L::PLACEMENT && n == 6 { 6 } else { 5 };
            ws_field_error(line, L::LAYOUT, fields, index, name, must)
        };
        let mut c = WsCursor::new(line);
        let (time_name, time, time_must) = L::TIME;
        let time_ns = match time {
            Time::Ns => match c.int() {
                Ok(v) => v,
                Err(f) => parse_scaled(f, 0).ok_or_else(|| fail(1, time_name, time_must))?,
            },
            Time::Scaled(decimals) => {
                parse_scaled(c.field(), decimals).ok_or_else(|| fail(1, time_name, time_must))?
            }
        };
        let device = c
            .device()
            .ok_or_else(|| fail(2, "dev", "an integer below 2^32"))?;
        let mut amount = |f: Field, index| {
            let v = if f.sectors { c.sectors() } else { c.int().ok() };
            v.ok_or_else(|| fail(index, f.name, f.must))
        };
        let offset = amount(L::OFFSET, 3)?;
        let size = amount(L::SIZE, 4)?;
        let op = match L::OP {
            Op::ZeroOne => match c.int() {
                Ok(1) => OpKind::Read,
                Ok(0) => OpKind::Write,
                // The zone operations' letter codes (ssdlab's addition to the layout).
                Err(f) if L::ZONE_CODES => OpKind::from_zone_code(f).ok_or_else(|| {
                    fail(
                        5,
                        "op",
                        "1 (read), 0 (write) or a zone operation ZA, ZR, ZF, ZO, ZC, ZQ0-ZQ7",
                    )
                })?,
                _ => return Err(fail(5, "op", "1 (read) or 0 (write)")),
            },
            Op::Flags => {
                let flags = c
                    .int()
                    .map_err(|_| fail(5, "flags", "a non-negative integer"))?;
                if flags & 1 == 1 {
                    OpKind::Read
                } else {
                    OpKind::Write
                }
            }
        };
        let mut raw = RawRequest::new(time_ns, device, offset, size, op);
        if L::PLACEMENT && !c.at_end() {
            let pid = c
                .int()
                .ok()
                .and_then(|v| u16::try_from(v).ok())
                .ok_or_else(|| {
                    field_error(
                        L::LAYOUT,
                        6,
                        "placement",
                        "a placement identifier, 0 to 65535",
                    )
                })?;
            if let Ok(r) = &mut raw {
                r.placement = Some(pid);
            }
        }
        ws_finish(line, &c, L::LAYOUT, raw)
    }

    fn fork(&self) -> Option<Self> {
        Some(*self)
    }

    fn time_unit(&self) -> &'static str {
        L::TIME_UNIT
    }
}
