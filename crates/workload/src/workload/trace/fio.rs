//! fio's I/O logs, as `write_iolog=FILE` writes them and `read_iolog=FILE` replays them.
//!
//! The first line names the version; every other line is either a file action or an I/O:
//!
//! ```text
//! fio version 2 iolog
//! /dev/sdb add
//! /dev/sdb open
//! /dev/sdb write 1048576 4096
//! /dev/sdb wait 250 0
//! /dev/sdb read 0 8192
//! /dev/sdb close
//! ```
//!
//! ```text
//! fio version 3 iolog
//! 0 /dev/sdb add
//! 12 /dev/sdb open
//! 1530 /dev/sdb write 1048576 4096
//! 1712 /dev/sdb trim 0 65536
//! 2001 /dev/sdb close
//! ```
//!
//! - Version 3 puts in front of each line the time since the log started, in
//!   microseconds: that is the request's time. Version 2 has no times: requests arrive
//!   together until a `wait` line, whose third field is a moment in milliseconds since the
//!   replay began (fio sleeps until then); later requests arrive at that moment. Version 3
//!   does not allow `wait` (fio ignores it), and neither do we: such a line carries no
//!   request.
//! - Offsets and lengths are bytes. `read`, `write` and `trim` are requests; `sync`,
//!   `datasync` and `sync_file_range` are flushes (no range).
//! - `add`, `open` and `close` lines only manage files and carry no request.
//! - Devices: a log can drive several files; each file name gets a device number in the
//!   order the names first appear (the first file is device 0), so `--trace-device`
//!   picks one file.

use super::lex::{WsFields, parse_u64};
use super::reader::{Expected, LineParser, Parsed, RawRequest, count_error};
use super::write::WriteState;
use super::{ALL_OPS, FormatSpec, Reader};
use crate::workload::IoRequest;
use crate::workload::OpKind;
use std::collections::HashMap;
use std::io::{self, Write};

/// The format's entry in the registry ([`super::FORMATS`]).
pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "fio",
    summary: "fio iolog v2/v3 as written by write_iolog",
    ops: ALL_OPS,
    resolution: "time in whole µs (rounded down); offset and size in bytes; devices \
                 become files devN, numbered on reading in order of first appearance",
    header: WRITE_HEADER,
    read: Reader::Own(|ctx, _| ctx.lines(Fio::default())),
    write: Some(write),
    end: Some(write_end),
};

const HEADER_V2: &[u8] = b"fio version 2 iolog";
const HEADER_V3: &[u8] = b"fio version 3 iolog";

const LAYOUT_V2: &str = "a fio version 2 iolog line: FILE read|write|trim|sync|datasync \
                         OFFSET LENGTH, FILE wait MS 0, or FILE add|open|close";
const LAYOUT_V3: &str = "a fio version 3 iolog line: TIME_US FILE read|write|trim|sync|datasync \
                         OFFSET LENGTH, or TIME_US FILE add|open|close";
const LAYOUT_HEADER: &str = "the fio iolog header 'fio version 2 iolog' or 'fio version 3 iolog' \
                             as the first line";

/// Whether `line` is an iolog header of a version we read.
pub(crate) fn is_header(line: &[u8]) -> bool {
    let t = super::lex::trim(line);
    t == HEADER_V2 || t == HEADER_V3
}

/// Parser for [`super::TraceFormat::Fio`]. It keeps the log's state: the version from the
/// header, the file names seen (→ device numbers) and the version 2 clock.
#[derive(Clone, Debug, Default)]
pub(crate) struct Fio {
    /// 0 until the header is read, then 2 or 3.
    version: u8,
    /// Device number of each file name.
    files: HashMap<Vec<u8>, u32>,
    /// The last file looked up: logs usually drive one file, so this saves hashing.
    last: Option<(Vec<u8>, u32)>,
    /// Version 2: the time set by the latest `wait`, ns.
    clock_ns: u64,
}

impl Fio {
    /// The device number of `name`, numbering new names in order of appearance.
    fn device(&mut self, name: &[u8]) -> Result<u32, Expected> {
        if let Some((n, d)) = &self.last
            && n == name
        {
            return Ok(*d);
        }
        let next = u32::try_from(self.files.len()).map_err(|_| "fewer than 2^32 files")?;
        let d = *self.files.entry(name.to_vec()).or_insert(next);
        self.last = Some((name.to_vec(), d));
        Ok(d)
    }
}

impl LineParser for Fio {
    fn parse(&mut self, line: &[u8]) -> Result<Parsed, Expected> {
        if self.version == 0 {
            self.version = match super::lex::trim(line) {
                HEADER_V2 => 2,
                HEADER_V3 => 3,
                _ => return Err(LAYOUT_HEADER.into()),
            };
            return Ok(Parsed::Ignore);
        }
        let v3 = self.version == 3;
        let layout = if v3 { LAYOUT_V3 } else { LAYOUT_V2 };
        let mut f = WsFields::new(line);
        let time_ns = if v3 {
            let t = f.next().unwrap_or_default();
            parse_u64(t)
                .and_then(|us| us.checked_mul(1000))
                .ok_or_else(|| format!("{layout} (field 1, TIME_US, must be whole microseconds)"))?
        } else {
            self.clock_ns
        };
        let (Some(file), Some(action)) = (f.next(), f.next()) else {
            return Err(count_error(layout, WsFields::new(line).count()));
        };
        let range = (f.next(), f.next(), f.next());
        let first = usize::from(v3);
        let (off_at, len_at) = (first + 3, first + 4);
        let io = match (action, range) {
            (b"add" | b"open" | b"close", (None, None, None)) => {
                // Numbers the file even before its first I/O, as fio adds files in order.
                self.device(file)?;
                return Ok(Parsed::Ignore);
            }
            (_, (Some(off), Some(len), None)) => (off, len),
            _ => return Err(count_error(layout, WsFields::new(line).count())),
        };
        let num = |text: &[u8], at: usize, what: &str| {
            parse_u64(text).ok_or_else(|| format!("{layout} (field {at}, {what}, must be bytes)"))
        };
        let op = match action {
            b"read" => OpKind::Read,
            b"write" => OpKind::Write,
            b"trim" => OpKind::Trim,
            b"sync" | b"datasync" | b"sync_file_range" => OpKind::Flush,
            b"wait" if v3 => return Ok(Parsed::Ignore),
            b"wait" => {
                let ms = parse_u64(io.0).ok_or_else(|| {
                    format!("{layout} (field 3 of a wait line, MS, must be whole milliseconds)")
                })?;
                let at = ms
                    .checked_mul(1_000_000)
                    .ok_or_else(|| format!("{layout} (the wait time must stay below 2^64 ns)"))?;
                self.clock_ns = self.clock_ns.max(at);
                return Ok(Parsed::Ignore);
            }
            _ => {
                return Err(format!(
                    "{layout} (field {}, the action, must be read, write, trim, sync, \
                     datasync, sync_file_range, wait, add, open or close)",
                    first + 2
                )
                .into());
            }
        };
        let device = self.device(file)?;
        let (offset, size) = if op == OpKind::Flush {
            (0, 0)
        } else {
            (num(io.0, off_at, "OFFSET")?, num(io.1, len_at, "LENGTH")?)
        };
        let r = RawRequest::new(time_ns, device, offset, size, op)
            .map_err(|m| format!("{layout} ({m})"))?;
        Ok(Parsed::Request(r))
    }

    fn time_unit(&self) -> &'static str {
        if self.version == 2 { "ms" } else { "us" }
    }

    fn ignore_reason(&self) -> &'static str {
        "were the header, file actions (add, open, close) or waits"
    }
}

/// The header [`write`] files start with.
pub(crate) const WRITE_HEADER: &str = "fio version 3 iolog\n";

/// Writes `req` as a version 3 line on file `devN` (N = the device), adding and opening
/// the file at its first use as fio's replay needs. Time in whole microseconds (rounded
/// down); a flush is a `sync` with offset and length 0. Reading numbers the files in
/// order of first appearance, so device numbers come back renumbered that way.
pub(crate) fn write(req: &IoRequest, st: &mut WriteState, out: &mut dyn Write) -> io::Result<()> {
    let (t, dev) = (req.arrival_ns / 1000, req.device);
    if st.first_use(dev) {
        writeln!(out, "{t} dev{dev} add\n{t} dev{dev} open")?;
    }
    let op = match req.op {
        OpKind::Read => "read",
        OpKind::Write => "write",
        OpKind::Trim => "trim",
        OpKind::Flush => "sync",
        op => return Err(super::write::zone_unsupported(super::TraceFormat::Fio, op)),
    };
    writeln!(
        out,
        "{t} dev{dev} {op} {} {}",
        req.offset_bytes, req.size_bytes
    )
}

/// Closes every file [`write`] opened, at the last request's time.
pub(crate) fn write_end(st: &WriteState, out: &mut dyn Write) -> io::Result<()> {
    let t = st.last_ns / 1000;
    for dev in &st.devices {
        writeln!(out, "{t} dev{dev} close")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Vec<Result<Option<RawRequest>, String>> {
        let mut p = Fio::default();
        text.lines()
            .map(|l| match p.parse(l.as_bytes()) {
                Ok(Parsed::Request(r)) => Ok(Some(r)),
                Ok(_) => Ok(None),
                Err(e) => Err(e.to_string()),
            })
            .collect()
    }

    #[test]
    fn version_3_times_and_devices() {
        let got = run("fio version 3 iolog\n\
                       0 /dev/sdb add\n\
                       5 /dev/sdc add\n\
                       1530 /dev/sdc write 1048576 4096\n\
                       1712 /dev/sdb trim 0 65536\n\
                       1800 /dev/sdb sync 0 0\n\
                       1900 /dev/sdb wait 10 0\n\
                       2001 /dev/sdb close");
        let r = |t, d, o, s, op| Ok(Some(RawRequest::new(t, d, o, s, op).unwrap()));
        assert_eq!(
            got,
            vec![
                Ok(None),
                Ok(None),
                Ok(None),
                r(1_530_000, 1, 1_048_576, 4096, OpKind::Write),
                r(1_712_000, 0, 0, 65536, OpKind::Trim),
                r(1_800_000, 0, 0, 0, OpKind::Flush),
                Ok(None),
                Ok(None),
            ]
        );
    }

    #[test]
    fn version_2_waits_set_the_clock() {
        let got = run("fio version 2 iolog\n\
                       f add\n\
                       f write 4096 4096\n\
                       f wait 250 0\n\
                       f read 0 8192\n\
                       f wait 100 0\n\
                       f datasync 0 0");
        let r = |t, o, s, op| Ok(Some(RawRequest::new(t, 0, o, s, op).unwrap()));
        assert_eq!(
            got,
            vec![
                Ok(None),
                Ok(None),
                r(0, 4096, 4096, OpKind::Write),
                Ok(None),
                r(250_000_000, 0, 8192, OpKind::Read),
                // A wait for a moment already past does not move the clock back.
                Ok(None),
                r(250_000_000, 0, 0, OpKind::Flush),
            ]
        );
    }

    #[test]
    fn errors_say_what_was_expected() {
        let e = run("0 0 1 8 0").remove(0).unwrap_err();
        assert!(e.contains("fio version 2 iolog"), "{e}");
        let e = run("fio version 2 iolog\nf erase 0 1")
            .remove(1)
            .unwrap_err();
        assert!(e.contains("field 2, the action"), "{e}");
        let e = run("fio version 3 iolog\nx f read 0 1")
            .remove(1)
            .unwrap_err();
        assert!(e.contains("field 1, TIME_US"), "{e}");
        let e = run("fio version 3 iolog\n1 f read 0")
            .remove(1)
            .unwrap_err();
        assert!(e.contains("the line has 4 fields"), "{e}");
        let e = run("fio version 2 iolog\nf read 0 -1")
            .remove(1)
            .unwrap_err();
        assert!(e.contains("field 4, LENGTH"), "{e}");
    }
}
