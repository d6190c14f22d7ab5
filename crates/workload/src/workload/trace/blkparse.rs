//! The default text output of `blkparse` (blktrace):
//!
//! ```text
//!   8,16   5        2     0.000001850 18615  Q   R 1444645666 + 256 [java]
//!   8,16   2     1819     4.327004795 16766 UT   N [flush-8:16] 30
//! ```
//!
//! Fields: `maj,min cpu seq time_s pid action rwbs [sector + count] [process]`. Only lines
//! whose action is the chosen event are requests ([`BlkparseEvent`]: `Q` queued, the
//! default — what the application asked for — or `D` issued to the driver, after merging,
//! or `C` completed); other actions are passed over silently.
//!
//! The rwbs field decides the operation: containing `D` (discard) → trim; containing `F`
//! (flush) with no range or a zero count → flush (offset and size 0); otherwise `W` →
//! write and `R` → read (a write with `F`/FUA stays a write). An event with none of these
//! (e.g. `N`) is skipped and counted in the warnings. Sectors are 512 B.
//!
//! What follows rwbs is blkparse's `process_default` (blkparse_fmt.c): `sector + count`
//! when the event has sectors, then an optional `(elapsed)` and `[process]` (`[error]`
//! on completions). An event with no sectors has no count: completions and requeues print
//! a lone sector (`C  WS 1950885322 [0]` — the second completion of a write sent with a
//! preflush), the other actions print nothing (`Q  FWS [kworker]`). Such an event that is
//! not a flush moves no data: it is skipped and counted, not a request. A range that is
//! neither form (`8 +`, `8 x 8`, a sector with nothing after it) is malformed.
//!
//! The device number is `maj * 256 + min` (Linux's classic `dev_t` for small numbers):
//! `8,16` (sdb) is device 2064. The minor alone would clash across majors (`8,16` and
//! `253,16`).
//!
//! Lines whose first field has no comma are not events — blkparse ends its output with a
//! per-CPU summary (`CPU0 (8,16):`, `Reads Queued: …`, `Throughput (R/W): …`) — and are
//! skipped and counted in the warnings. A line whose first field has a comma is an event
//! line: a bad `maj,min` (`-,1`, a number past 2^32), a cut-short line, or a bad cpu,
//! seq, time or pid (on any action) or range (on the kept action) is malformed.

use super::lex::{WsFields, parse_scaled, parse_u32, parse_u64};
use super::reader::{Expected, LineParser, Parsed, RawRequest, count_error, field_error};
use super::warn::Kind;
use super::write::{WriteState, secs, sector_span};
use super::{ALL_OPS, BlkparseEvent, FormatSpec, Reader};
use crate::workload::IoRequest;
use crate::workload::OpKind;
use std::io::{self, Write};

/// The format's entry in the registry ([`super::FORMATS`]).
pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "blkparse",
    summary: "blkparse default text output, Q (or D, C) events",
    ops: ALL_OPS,
    resolution: "time in ns (s with 9 decimals); offset and size in 512 B sectors (a \
                 request is widened to the sectors it touches); device as \
                 maj,min = device / 256, device % 256",
    header: "",
    read: Reader::Own(|ctx, _| ctx.lines(Blkparse::new(ctx.opts.blkparse_event))),
    write: Some(write),
    end: None,
};

/// The line layout, quoted in errors.
pub(crate) const LAYOUT: &str =
    "a blkparse event line: maj,min cpu seq time_s pid action rwbs sector + count [process]";

/// Parser for [`super::TraceFormat::Blkparse`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Blkparse {
    action: u8,
}

impl Blkparse {
    /// A parser keeping the `event` lines.
    pub(crate) fn new(event: BlkparseEvent) -> Self {
        let action = match event {
            BlkparseEvent::Queue => b'Q',
            BlkparseEvent::Issue => b'D',
            BlkparseEvent::Complete => b'C',
        };
        Blkparse { action }
    }
}

/// `maj,min` → `(maj, min)`; `None` if the field is not that.
#[inline]
fn dev_pair(field: &[u8]) -> Option<(u32, u32)> {
    let comma = field.iter().position(|&b| b == b',')?;
    Some((parse_u32(&field[..comma])?, parse_u32(&field[comma + 1..])?))
}

/// Whether a token opens blkparse's trailing parts: `[process]` / `[error]`, or
/// `(elapsed)` / `(SCSI command)`.
#[inline]
fn is_trailer(tok: &[u8]) -> bool {
    matches!(tok.first(), Some(b'[' | b'('))
}

/// The data range after rwbs, as blkparse's default output prints it (`process_default`
/// in blkparse_fmt.c): `sector + count` when the event has sectors; when it has none,
/// a lone `sector` on completions and requeues (`C WS 1950885322 [0]`) and nothing on
/// the other actions (`Q FWS [proc]`, `(elapsed) [proc]`); both forms end with a
/// bracketed or parenthesised trailer. `None` when the event has no data. Anything else (a non-number, `+` without a count, a sector with nothing after
/// it) is malformed.
fn data_range(fields: &mut WsFields<'_>) -> Result<Option<(u64, u64)>, Expected> {
    let Some(first) = fields.next() else {
        return Ok(None);
    };
    if is_trailer(first) {
        return Ok(None);
    }
    let sector =
        parse_u64(first).ok_or_else(|| field_error(LAYOUT, 8, "sector", "a sector number"))?;
    match fields.next() {
        Some(b"+") => {
            let count = fields
                .next()
                .and_then(parse_u64)
                .ok_or_else(|| field_error(LAYOUT, 10, "count", "a sector count"))?;
            Ok(Some((sector, count)))
        }
        Some(t) if is_trailer(t) => Ok(None),
        _ => Err(field_error(
            LAYOUT,
            9,
            "sector + count",
            "a range like '2048 + 8', or a lone sector then '[error]' on an event without \
             data",
        )),
    }
}

impl LineParser for Blkparse {
    #[inline]
    fn parse(&mut self, line: &[u8]) -> Result<Parsed, Expected> {
        let mut fields = WsFields::new(line);
        // A first field with a comma is an event line's `maj,min` (no summary line has
        // one there): a bad one (`-,1`, a minor past 2^32) is a malformed event, not a
        // line to skip.
        let first = fields.next().unwrap_or_default();
        if !first.contains(&b',') {
            return Ok(Parsed::Skip(Kind::NotEvent));
        }
        let (maj, min) = dev_pair(first)
            .ok_or_else(|| field_error(LAYOUT, 1, "maj,min", "two integers below 2^32"))?;
        let (Some(cpu), Some(seq), Some(time), Some(pid), Some(action), Some(rwbs)) = (
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
        ) else {
            return Err(count_error(LAYOUT, WsFields::new(line).count()));
        };
        // blkparse prints these as numbers on every event line, kept or not (message
        // lines `m` too), so a line of another action is checked as far as they go.
        parse_u32(cpu).ok_or_else(|| field_error(LAYOUT, 2, "cpu", "an integer"))?;
        parse_u64(seq).ok_or_else(|| field_error(LAYOUT, 3, "seq", "an integer"))?;
        let time_ns = parse_scaled(time, 9)
            .ok_or_else(|| field_error(LAYOUT, 4, "time_s", "seconds with a fraction"))?;
        parse_u64(pid).ok_or_else(|| field_error(LAYOUT, 5, "pid", "an integer"))?;
        if action != [self.action] {
            return Ok(Parsed::Ignore);
        }
        let device = maj
            .checked_mul(256)
            .and_then(|v| v.checked_add(min))
            .ok_or_else(|| {
                field_error(LAYOUT, 1, "maj,min", "small enough for maj*256+min < 2^32")
            })?;
        let range = data_range(&mut fields)?;
        let has = |c: u8| rwbs.contains(&c);
        if has(b'F') && !has(b'D') && range.is_none_or(|(_, n)| n == 0) {
            let r = RawRequest::new(time_ns, device, 0, 0, OpKind::Flush)?;
            return Ok(Parsed::Request(r));
        }
        let op = if has(b'D') {
            OpKind::Trim
        } else if has(b'W') {
            OpKind::Write
        } else if has(b'R') {
            OpKind::Read
        } else {
            return Ok(Parsed::Skip(Kind::NoDirection));
        };
        // An event without data is well-formed but moves no data: blkparse prints no
        // count when the event has zero sectors (`C WS 1950885322 [0]`, the second
        // completion of a write with a preflush; `Q W [proc]`).
        let Some((sector, count)) = range else {
            return Ok(Parsed::Skip(Kind::NoData));
        };
        let bytes = |v: u64, what: &'static str| {
            v.checked_mul(512)
                .ok_or_else(|| field_error(LAYOUT, 8, what, "below 2^64 bytes"))
        };
        let r = RawRequest::new(
            time_ns,
            device,
            bytes(sector, "sector")?,
            bytes(count, "count")?,
            op,
        )
        .map_err(|m| format!("{LAYOUT} ({m})"))?;
        Ok(Parsed::Request(r))
    }

    fn fork(&self) -> Option<Self> {
        Some(*self)
    }

    fn time_unit(&self) -> &'static str {
        "s"
    }

    fn ignore_reason(&self) -> &'static str {
        match self.action {
            b'Q' => "were events other than Q (queued); set blkparse_event = \"D\" to keep issues",
            b'D' => "were events other than D (issued)",
            _ => "were events other than C (completed)",
        }
    }
}

/// Writes `req` as a blkparse `Q` event of process `[ssdlab]`: `maj = device / 256`,
/// `min = device % 256`, seconds with 9 decimals (exact nanoseconds), the sectors it
/// touches; rwbs `R`, `W`, `D` (trim) or `FWS` (a flush, no range).
pub(crate) fn write(req: &IoRequest, _: &mut WriteState, out: &mut dyn Write) -> io::Result<()> {
    let (maj, min) = (req.device / 256, req.device % 256);
    let head = format!("{maj:>3},{min:<3} 0 1 {:>16} 1  Q", secs(req.arrival_ns));
    let rwbs = match req.op {
        OpKind::Read => "R",
        OpKind::Write => "W",
        OpKind::Trim => "D",
        OpKind::Flush => return writeln!(out, "{head} FWS [ssdlab]"),
        op => {
            return Err(super::write::zone_unsupported(
                super::TraceFormat::Blkparse,
                op,
            ));
        }
    };
    let (sector, n) = sector_span(req);
    writeln!(out, "{head} {rwbs} {sector} + {n} [ssdlab]")
}
