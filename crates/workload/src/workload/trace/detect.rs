//! Format auto-detection from the head of the (decompressed) stream: its first bytes for
//! binary formats, else its first data lines (comments and blanks skipped). It never seeks:
//! the head is read once and replayed (`input.rs`).
//!
//! Rules, in order:
//! 0. The blk_io_trace magic (`65 61 74` then a version byte, either byte order) in the
//!    first 4 bytes → blktrace (binary); a first line `fio version 2 iolog` or
//!    `fio version 3 iolog` → fio.
//! 1. First field `maj,min` and at least 7 blank-separated fields → blkparse.
//! 2. Comma-separated (after an optional header line): 7 fields with `Read`/`Write` in the
//!    4th → MSR Cambridge; 5 numeric fields → Tencent CBS.
//! 3. 5 blank-separated numbers: ascii, disksim and heimdall look alike, so
//!    - extension `.trace` → heimdall, `.disksim` → disksim;
//!    - times with a decimal point rule out ascii (integer nanoseconds): `.ascii` →
//!      disksim (DiskSim calls its format "ascii"); otherwise sizes that are all multiples
//!      of 512 look like bytes → heimdall, none a multiple of 512 look like sectors →
//!      disksim;
//!    - integer times and extension `.ascii` → ascii;
//!    - anything else is an error asking for `--format`.

use super::TraceFormat;
use super::delimited::COLUMNS_EXAMPLE;
use super::lex::{WsFields, found_text, is_header, parse_scaled, parse_u64, split_ws, trim};
use super::reader::{LineError, Lines};
use crate::workload::TraceError;
use std::io::BufRead;
use std::path::Path;

/// How many data lines detection looks at.
const SAMPLE_LINES: usize = 32;

/// Detects the format from a stream's `head` (`eof`: the head is the whole stream).
pub(crate) fn detect_head(head: &[u8], eof: bool, name: &Path) -> Result<TraceFormat, TraceError> {
    if super::blktrace::has_magic(head) {
        return Ok(TraceFormat::Blktrace);
    }
    // A line cut by the end of the head would be judged on half its fields.
    let text = if eof {
        head
    } else {
        match memchr::memrchr2(b'\n', b'\r', head) {
            Some(i) => &head[..=i],
            None => head,
        }
    };
    detect(text, name)
}

/// Whether `text` holds at least one data line (not blank, not a comment).
pub(crate) fn has_data_line(text: &[u8]) -> bool {
    !matches!(Lines::new(text, 0).next_line(), Ok(None))
}

/// Guesses the format of the trace `reader` (named `name`, whose extension is used) from
/// its first data lines. Consumes part of the reader.
pub(crate) fn detect<R: BufRead>(reader: R, name: &Path) -> Result<TraceFormat, TraceError> {
    let mut lines = Lines::new(reader, 0);
    let mut sample: Vec<(u64, Vec<u8>)> = Vec::new();
    while sample.len() < SAMPLE_LINES {
        match lines.next_line() {
            Ok(Some((n, l))) => sample.push((n, l.to_vec())),
            Ok(None) => break,
            Err(LineError::Io(e, _)) => {
                return Err(TraceError::Io {
                    path: name.to_path_buf(),
                    message: e.to_string(),
                });
            }
            Err(LineError::TooLong(n, found)) => {
                return Err(TraceError::Malformed {
                    path: name.to_path_buf(),
                    line: n,
                    expected: "a trace line of at most 64 KiB".into(),
                    found,
                });
            }
        }
    }
    detect_lines(&sample, name)
}

/// The extension that says what the trace is, looking past a compression suffix
/// (`x.ascii.gz` → `ascii`).
fn trace_extension(name: &Path) -> String {
    let ext = |p: &Path| {
        p.extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default()
    };
    let outer = ext(name);
    match outer.as_str() {
        "gz" | "bz2" | "xz" | "zst" | "zstd" => {
            ext(Path::new(name.file_stem().unwrap_or_default()))
        }
        _ => outer,
    }
}

fn option_error(name: &Path, text: String) -> TraceError {
    TraceError::Option(format!("{}: {text}", name.display()))
}

fn detect_lines(sample: &[(u64, Vec<u8>)], name: &Path) -> Result<TraceFormat, TraceError> {
    let Some((first_no, first)) = sample.first() else {
        return Err(TraceError::Empty {
            path: name.to_path_buf(),
            reason: "the trace has no data lines to detect its format from (it is empty, or \
                     only comments and blank lines)"
                .into(),
        });
    };
    if super::fio::is_header(first) {
        return Ok(TraceFormat::Fio);
    }
    let mut ws = WsFields::new(first);
    let dev_pair = ws.next().is_some_and(|f| {
        f.iter()
            .position(|&b| b == b',')
            .is_some_and(|c| parse_u64(&f[..c]).is_some() && parse_u64(&f[c + 1..]).is_some())
    });
    if dev_pair && ws.count() >= 6 {
        return Ok(TraceFormat::Blkparse);
    }
    let data: Vec<&(u64, Vec<u8>)> = if is_header(first) {
        sample.iter().skip(1).collect()
    } else {
        sample.iter().collect()
    };
    let Some((line_no, d0)) = data.first() else {
        return Err(option_error(
            name,
            format!(
                "only a header line ({first_no}: '{}'); no data to detect the format from",
                found_text(first)
            ),
        ));
    };
    let quote = |n: &u64, l: &[u8]| format!("line {n}: '{}'", found_text(l));
    if d0.contains(&b',') {
        let fields: Vec<&[u8]> = d0.split(|&b| b == b',').map(trim).collect();
        let is_rw = |f: &[u8]| f.eq_ignore_ascii_case(b"read") || f.eq_ignore_ascii_case(b"write");
        if fields.len() == 7 && is_rw(fields[3]) && parse_u64(fields[0]).is_some() {
            return Ok(TraceFormat::Msr);
        }
        if fields.len() == 5 && fields.iter().all(|f| parse_scaled(f, 0).is_some()) {
            return Ok(TraceFormat::Tencent);
        }
        return Err(option_error(
            name,
            format!(
                "the first data line ({}) has {} comma-separated fields: neither MSR \
                 Cambridge (7 fields, the 4th Read or Write) nor Tencent CBS (5 numbers). \
                 Pass --format, or --format csv with --columns (e.g. {COLUMNS_EXAMPLE})",
                quote(line_no, d0),
                fields.len()
            ),
        ));
    }
    let mut decimal_time = false;
    let mut sizes_512 = 0;
    for (n, l) in &data {
        let numeric = split_ws::<5>(l)
            .ok()
            .filter(|f| f.iter().all(|x| parse_scaled(x, 0).is_some()));
        let Some(f) = numeric else {
            return Err(option_error(
                name,
                format!(
                    "cannot tell the trace format from {}; pass --format ({})",
                    quote(n, l),
                    super::names_or()
                ),
            ));
        };
        decimal_time |= f[0].contains(&b'.');
        if parse_u64(f[3]).is_some_and(|s| s > 0 && s.is_multiple_of(512)) {
            sizes_512 += 1;
        }
    }
    let ext = trace_extension(name);
    match ext.as_str() {
        "trace" => return Ok(TraceFormat::Heimdall),
        "disksim" => return Ok(TraceFormat::Disksim),
        _ => {}
    }
    if decimal_time {
        if ext == "ascii" {
            return Ok(TraceFormat::Disksim);
        }
        if sizes_512 == data.len() {
            return Ok(TraceFormat::Heimdall);
        }
        if sizes_512 == 0 {
            return Ok(TraceFormat::Disksim);
        }
    } else if ext == "ascii" {
        return Ok(TraceFormat::Ascii);
    }
    Err(option_error(
        name,
        "5 space-separated numbers per line could be ascii (time_ns dev lba_sectors \
         size_sectors op), disksim (time_ms dev blkno count flags) or heimdall (time_ms dev \
         offset_bytes size_bytes op); pass --format ascii, disksim or heimdall (or name the \
         file *.ascii, *.disksim or *.trace)"
            .into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guess(text: &str, name: &str) -> Result<TraceFormat, TraceError> {
        detect(text.as_bytes(), Path::new(name))
    }

    #[test]
    #[allow(non_snake_case)]
    fn detects_each_layout() {
        let [
            Msr,
            Ascii,
            Disksim,
            Blkparse,
            Tencent,
            Heimdall,
            _,
            Blktrace,
            Fio,
        ] = TraceFormat::ALL;
        let blk = "  8,16   5        2     0.000001850 18615  Q   R 1444645666 + 256 [java]\n";
        assert_eq!(guess(blk, "x.txt").unwrap(), Blkparse);
        let msr = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n\
                   128166385295514663,hm,0,Write,9056014336,2048,2833\n";
        assert_eq!(guess(msr, "x").unwrap(), Msr);
        assert_eq!(
            guess("# c\n1538323200,4247200,128,1,1058\n", "x").unwrap(),
            Tencent
        );
        assert_eq!(guess("0 0 303567 7 0\n", "f.ascii").unwrap(), Ascii);
        assert_eq!(
            guess("7961.833 0 20228336 8 0\n", "p.ascii").unwrap(),
            Disksim
        );
        assert_eq!(
            guess("7961.833 0 20228336 8 0\n", "p.txt").unwrap(),
            Disksim
        );
        assert_eq!(guess("0 0 2 8 0\n", "p.disksim").unwrap(), Disksim);
        assert_eq!(guess("0 0 2 8 0\n", "p.ascii.zst").unwrap(), Ascii);
        assert_eq!(
            guess("fio version 3 iolog\n0 f add\n", "x.log").unwrap(),
            Fio
        );
        assert_eq!(
            detect_head(b"\x07\x74\x61\x65\0\0\0\0", true, Path::new("x")).unwrap(),
            Blktrace
        );
        assert_eq!(
            detect_head(b"\x65\x61\x74\x07\0\0\0\0", true, Path::new("x")).unwrap(),
            Blktrace
        );
        // A line cut by the end of the head is not judged.
        assert_eq!(
            detect_head(b"0 0 2 8 0\n1 0 2 8", false, Path::new("p.ascii")).unwrap(),
            Ascii
        );
        assert_eq!(
            guess("0.000 0 200626176 4096 0\n", "m.trace").unwrap(),
            Heimdall
        );
        assert_eq!(
            guess("0.000 0 200626176 4096 0\n", "m.txt").unwrap(),
            Heimdall
        );
    }

    #[test]
    fn the_names_in_messages_come_from_the_registry() {
        assert_eq!(
            super::super::names_or(),
            "msr, ascii, disksim, blkparse, tencent, heimdall, blktrace, fio or csv"
        );
    }

    #[test]
    fn ambiguity_asks_for_format() {
        let e = guess("0 0 303567 7 0\n", "f.txt").unwrap_err().to_string();
        assert!(
            e.contains("pass --format ascii, disksim or heimdall"),
            "{e}"
        );
        let e = guess("a;b;c\n1;2;3\n", "f.csv").unwrap_err().to_string();
        assert!(
            e.contains("cannot tell the trace format from line 2"),
            "{e}"
        );
        let e = guess("1,2,3\n", "f.csv").unwrap_err().to_string();
        assert!(e.contains("--format csv with --columns"), "{e}");
        let e = guess("# only a comment\n\n", "f").unwrap_err().to_string();
        assert!(e.contains("no data lines"), "{e}");
    }
}
