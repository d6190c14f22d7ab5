//! Writing generated requests as a block trace, so other simulators (and `ssdlab` itself)
//! can replay exactly the same workload.

use crate::workload::{IoRequest, OpKind};
use std::io::{self, BufWriter, Write};

/// Sector size of the ASCII layout.
const SECTOR: u64 = 512;

/// Writes `requests` in the SSD-simulator ASCII layout, one per line:
/// `time_ns dev lba_sectors size_sectors op` with 512-byte sectors and op 1 = read,
/// 0 = write. A request that does not start or end on a sector boundary is widened to
/// the sectors it touches, so the trace never under-states the bytes moved.
///
/// Returns the number of lines written. Fails with `InvalidInput` on a trim or flush,
/// which the layout cannot express, after flushing the lines before it.
pub fn write_ascii<W: Write>(requests: impl Iterator<Item = IoRequest>, w: W) -> io::Result<u64> {
    let mut out = BufWriter::with_capacity(1 << 16, w);
    let mut lines = 0u64;
    // Five u64 fields of at most 20 digits, four spaces and a newline fit in 105 bytes.
    let mut line = [0u8; 112];
    for r in requests {
        let op: &[u8] = match r.op {
            OpKind::Read => b"1",
            OpKind::Write => b"0",
            op if op.is_zone_op() => op.zone_code().unwrap_or("?").as_bytes(),
            OpKind::Trim
            | OpKind::Flush
            | OpKind::ZoneAppend
            | OpKind::ZoneReset
            | OpKind::ZoneFinish
            | OpKind::ZoneOpen
            | OpKind::ZoneClose
            | OpKind::ZoneReport(_) => {
                out.flush()?;
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "request {lines}: the ASCII trace layout has no {:?} operation",
                        r.op
                    ),
                ));
            }
        };
        let lba = r.offset_bytes / SECTOR;
        let end = (r.offset_bytes + r.size_bytes).div_ceil(SECTOR);
        let mut n = 0;
        for value in [r.arrival_ns, u64::from(r.device), lba, end - lba] {
            n += put_u64(&mut line[n..], value);
            line[n] = b' ';
            n += 1;
        }
        line[n..n + op.len()].copy_from_slice(op);
        n += op.len();
        line[n] = b'\n';
        out.write_all(&line[..n + 1])?;
        lines += 1;
    }
    out.flush()?;
    Ok(lines)
}

/// Writes `v` in decimal at the start of `buf` and returns the digit count.
///
/// Digits are produced two at a time from a lookup table, which roughly halves the
/// divisions of the naive loop; this runs five times per trace line.
#[inline]
fn put_u64(buf: &mut [u8], mut v: u64) -> usize {
    const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
                                2021222324252627282930313233343536373839\
                                4041424344454647484950515253545556575859\
                                6061626364656667686970717273747576777879\
                                8081828384858687888990919293949596979899";
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    while v >= 100 {
        let pair = (v % 100) as usize * 2;
        v /= 100;
        i -= 2;
        tmp[i..i + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if v >= 10 {
        let pair = v as usize * 2;
        i -= 2;
        tmp[i..i + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        i -= 1;
        tmp[i] = b'0' + v as u8;
    }
    let len = tmp.len() - i;
    buf[..len].copy_from_slice(&tmp[i..]);
    len
}
