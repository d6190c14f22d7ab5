//! Writers: render requests in each trace format, so traces can be converted and so every
//! reader can be checked by round trips (property tests and fuzz targets).

use super::TraceFormat;
use crate::workload::{IoRequest, OpKind};
use std::io::{self, Write};

fn unsupported(format: TraceFormat, what: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("the {format} format cannot express {what}"),
    )
}

/// `bytes / 512`, or an error if `bytes` is not whole sectors.
fn sectors(format: TraceFormat, bytes: u64, what: &str) -> io::Result<u64> {
    if bytes.is_multiple_of(512) {
        Ok(bytes / 512)
    } else {
        Err(unsupported(
            format,
            format!("a {what} of {bytes} B (not whole 512 B sectors)"),
        ))
    }
}

/// `ns` as milliseconds with 6 decimals: exact, so the readers get the same nanoseconds.
fn ms(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000, ns % 1_000_000)
}

/// `ns` as seconds with 9 decimals.
fn secs(ns: u64) -> String {
    format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
}

/// Writes `req` as one line (with `\n`) of `format`, taking `arrival_ns` as the timestamp.
///
/// Times are written at the format's resolution, rounded down (MSR: 100 ns ticks, fio:
/// microseconds; the others exactly). Blktrace gets one binary queue event; fio a
/// version 3 line for file `devN` (start the file with [`write_header`]). Blkparse lines are `Q` events with `maj = device / 256`,
/// `min = device % 256` and process `[ssdlab]`. CSV uses [`super::CSV_CANONICAL_COLUMNS`].
/// Operations or sizes a format cannot express (a trim in MSR, 100 B in a sector format,
/// …) give an [`io::ErrorKind::InvalidInput`] error.
pub fn write_request<W: Write>(
    format: TraceFormat,
    req: &IoRequest,
    out: &mut W,
) -> io::Result<()> {
    let t = req.arrival_ns;
    let dev = req.device;
    let rw = |read: &str, write: &str| -> io::Result<String> {
        match req.op {
            OpKind::Read => Ok(read.to_string()),
            OpKind::Write => Ok(write.to_string()),
            op => Err(unsupported(format, format!("{op:?} requests"))),
        }
    };
    match format {
        TraceFormat::Ascii => {
            let op = rw("1", "0")?;
            let lba = sectors(format, req.offset_bytes, "offset")?;
            let n = sectors(format, req.size_bytes, "size")?;
            writeln!(out, "{t} {dev} {lba} {n} {op}")
        }
        TraceFormat::Disksim => {
            let op = rw("1", "0")?;
            let blk = sectors(format, req.offset_bytes, "offset")?;
            let n = sectors(format, req.size_bytes, "size")?;
            writeln!(out, "{} {dev} {blk} {n} {op}", ms(t))
        }
        TraceFormat::Heimdall => {
            let op = rw("1", "0")?;
            writeln!(
                out,
                "{} {dev} {} {} {op}",
                ms(t),
                req.offset_bytes,
                req.size_bytes
            )
        }
        TraceFormat::Msr => {
            let op = rw("Read", "Write")?;
            writeln!(
                out,
                "{},ssdlab,{dev},{op},{},{},0",
                t / 100,
                req.offset_bytes,
                req.size_bytes
            )
        }
        TraceFormat::Tencent => {
            let op = rw("0", "1")?;
            let off = sectors(format, req.offset_bytes, "offset")?;
            let n = sectors(format, req.size_bytes, "size")?;
            let time = if t.is_multiple_of(1_000_000_000) {
                (t / 1_000_000_000).to_string()
            } else {
                secs(t)
            };
            writeln!(out, "{time},{off},{n},{op},{dev}")
        }
        TraceFormat::Blkparse => {
            let (maj, min) = (dev / 256, dev % 256);
            let head = format!("{maj:>3},{min:<3} 0 1 {:>16} 1  Q", secs(t));
            let rwbs = match req.op {
                OpKind::Read => "R",
                OpKind::Write => "W",
                OpKind::Trim => "D",
                OpKind::Flush => return writeln!(out, "{head} FWS [ssdlab]"),
            };
            let sector = sectors(format, req.offset_bytes, "offset")?;
            let n = sectors(format, req.size_bytes, "size")?;
            writeln!(out, "{head} {rwbs} {sector} + {n} [ssdlab]")
        }
        TraceFormat::Blktrace => {
            // A queue event, little-endian, CPU 0; the device splits as blkparse's does.
            use super::blktrace::{TA_QUEUE, TC_DISCARD, TC_FLUSH, TC_READ, TC_WRITE, encode};
            let (maj, min) = (dev / 256, dev % 256);
            let category = match req.op {
                OpKind::Read => TC_READ,
                OpKind::Write => TC_WRITE,
                OpKind::Trim => TC_WRITE | TC_DISCARD,
                OpKind::Flush => TC_FLUSH,
            };
            let sector = sectors(format, req.offset_bytes, "offset")?;
            let bytes = u32::try_from(req.size_bytes)
                .map_err(|_| unsupported(format, format!("a size of {} B", req.size_bytes)))?;
            let h = encode(
                false,
                0,
                t,
                sector,
                bytes,
                TA_QUEUE | category,
                (maj << 20) | min,
                0,
                0,
            );
            out.write_all(&h)
        }
        TraceFormat::Fio => {
            // Version 3; the file name carries the device, but on reading devices are
            // numbered by first appearance (see fio.rs).
            let op = match req.op {
                OpKind::Read => "read",
                OpKind::Write => "write",
                OpKind::Trim => "trim",
                OpKind::Flush => "sync",
            };
            writeln!(
                out,
                "{} dev{dev} {op} {} {}",
                t / 1000,
                req.offset_bytes,
                req.size_bytes
            )
        }
        TraceFormat::Csv => {
            let op = match req.op {
                OpKind::Read => "Read",
                OpKind::Write => "Write",
                OpKind::Trim => "Trim",
                OpKind::Flush => "Flush",
            };
            writeln!(
                out,
                "{t},{dev},{},{},{op}",
                req.offset_bytes, req.size_bytes
            )
        }
    }
}

/// Writes what `format` needs before its first request: the `fio version 3 iolog` line
/// for fio, nothing for the others.
pub fn write_header<W: Write>(format: TraceFormat, out: &mut W) -> io::Result<()> {
    match format {
        TraceFormat::Fio => writeln!(out, "fio version 3 iolog"),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(format: TraceFormat, req: IoRequest) -> String {
        let mut v = Vec::new();
        write_request(format, &req, &mut v).unwrap();
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn renders_each_format() {
        let r = IoRequest {
            arrival_ns: 1_500_123_456,
            device: 2064,
            offset_bytes: 1024,
            size_bytes: 4096,
            op: OpKind::Read,
        };
        assert_eq!(line(TraceFormat::Ascii, r), "1500123456 2064 2 8 1\n");
        assert_eq!(line(TraceFormat::Disksim, r), "1500.123456 2064 2 8 1\n");
        assert_eq!(
            line(TraceFormat::Heimdall, r),
            "1500.123456 2064 1024 4096 1\n"
        );
        assert_eq!(
            line(TraceFormat::Msr, r),
            "15001234,ssdlab,2064,Read,1024,4096,0\n"
        );
        assert_eq!(line(TraceFormat::Tencent, r), "1.500123456,2,8,0,2064\n");
        assert_eq!(
            line(TraceFormat::Blkparse, r),
            "  8,16  0 1      1.500123456 1  Q R 2 + 8 [ssdlab]\n"
        );
        assert_eq!(
            line(TraceFormat::Csv, r),
            "1500123456,2064,1024,4096,Read\n"
        );
        let odd = IoRequest {
            size_bytes: 100,
            ..r
        };
        assert!(write_request(TraceFormat::Ascii, &odd, &mut Vec::new()).is_err());
        let trim = IoRequest {
            op: OpKind::Trim,
            ..r
        };
        assert!(write_request(TraceFormat::Msr, &trim, &mut Vec::new()).is_err());
    }
}
