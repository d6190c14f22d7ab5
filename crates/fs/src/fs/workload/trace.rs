//! The file-operation trace format: one operation per line,
//!
//! ```text
//! # time_ns op path [offset length | size | new_path]
//! 0        mkdir    /data
//! 1000     create   /data/a
//! 2000     write    /data/a 0 8192
//! 3000     read     /data/a 4096 4096
//! 4000     truncate /data/a 100
//! 5000     rename   /data/a /data/b
//! 6000     fsync    /data/b
//! 7000     close    /data/b
//! 8000     unlink   /data/b
//! ```
//! Fields are separated by spaces or tabs; `#` starts a comment; blank lines are
//! skipped. Times are nanoseconds from the start of the trace (operations arrive then,
//! open loop). Paths have no spaces. A line that does not parse stops the run before
//! the simulation with `file:line: expected …, found '…'` (exit code 2), the same
//! discipline as block traces.

use super::FileWorkloadError;
use crate::fs::{FileOp, FileOpKind, FilePhase};
use crate::workload::TraceError;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Opens a file trace as one open-loop phase named after the file. The whole trace is
/// parsed here, so every malformed line is reported before any work starts.
pub fn open(path: &Path) -> Result<FilePhase, FileWorkloadError> {
    let file = std::fs::File::open(path).map_err(|e| FileWorkloadError::Open {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let ops = parse(std::io::BufReader::new(file), path)?;
    if ops.is_empty() {
        return Err(TraceError::Empty {
            path: path.to_path_buf(),
            reason: "no operation lines (only blank lines and comments)".into(),
        }
        .into());
    }
    Ok(FilePhase {
        name: path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        ops: Box::new(ops.into_iter().map(Ok)),
        open_loop: true,
    })
}

fn expected_all() -> String {
    FileOpKind::all()
        .iter()
        .map(|(_, n, args)| format!("'{n} {args}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses every line of `r` (`path` names it in errors).
pub fn parse(r: impl BufRead, path: &Path) -> Result<Vec<FileOp>, TraceError> {
    let source = Arc::new(PathBuf::from(path));
    let mut out = Vec::new();
    for (i, line) in r.lines().enumerate() {
        let lineno = i as u64 + 1;
        let line = line.map_err(|e| TraceError::Io {
            path: path.to_path_buf(),
            message: format!("line {lineno}: {e}"),
        })?;
        if let Some(op) = parse_line(&line, lineno, &source)? {
            out.push(op);
        }
    }
    Ok(out)
}

/// Parses one line (`None` for blank and comment lines).
pub fn parse_line(
    line: &str,
    lineno: u64,
    source: &Arc<PathBuf>,
) -> Result<Option<FileOp>, TraceError> {
    let text = line.split('#').next().unwrap_or("").trim();
    if text.is_empty() {
        return Ok(None);
    }
    let bad = |expected: String| TraceError::Malformed {
        path: source.as_ref().clone(),
        line: lineno,
        expected,
        found: text.chars().take(80).collect(),
    };
    let f: Vec<&str> = text.split_whitespace().collect();
    if f.len() < 3 {
        return Err(bad(format!(
            "at least 3 fields 'time_ns op path' (ops: {})",
            expected_all()
        )));
    }
    let time: u64 = f[0]
        .parse()
        .map_err(|_| bad("a time in nanoseconds (an unsigned integer) in field 1".into()))?;
    let kind = FileOpKind::parse(f[1]).ok_or_else(|| {
        bad(format!(
            "an operation in field 2, one of {}",
            expected_all()
        ))
    })?;
    if !f[2].starts_with('/') {
        return Err(bad("an absolute path (starting with '/') in field 3".into()));
    }
    let want = match kind {
        FileOpKind::Write | FileOpKind::Read => 5,
        FileOpKind::Truncate | FileOpKind::Rename => 4,
        _ => 3,
    };
    let args = FileOpKind::all()
        .iter()
        .find(|e| e.0 == kind)
        .map_or("", |e| e.2);
    if f.len() != want {
        return Err(bad(format!(
            "{want} fields for {}: 'time_ns {} {args}'",
            kind.name(),
            kind.name()
        )));
    }
    let num = |i: usize, what: &str| -> Result<u64, TraceError> {
        f[i].parse().map_err(|_| {
            bad(format!(
                "{what} in bytes (an unsigned integer) in field {}",
                i + 1
            ))
        })
    };
    let (offset, len, to) = match kind {
        FileOpKind::Write | FileOpKind::Read => {
            let (o, l) = (num(3, "an offset")?, num(4, "a length")?);
            if o.checked_add(l).is_none_or(|e| e > 1 << 50) {
                return Err(bad("offset + length at most 2^50 bytes".into()));
            }
            (o, l, None)
        }
        FileOpKind::Truncate => (num(3, "a size")?, 0, None),
        FileOpKind::Rename => {
            if !f[3].starts_with('/') {
                return Err(bad(
                    "an absolute new path (starting with '/') in field 4".into()
                ));
            }
            (0, 0, Some(Arc::from(f[3])))
        }
        _ => (0, 0, None),
    };
    Ok(Some(FileOp {
        arrival_ns: time,
        kind,
        path: Arc::from(f[2]),
        offset_bytes: offset,
        len_bytes: len,
        to,
        source: Some(source.clone()),
        line: lineno,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> Result<Option<FileOp>, TraceError> {
        parse_line(line, 7, &Arc::new(PathBuf::from("t.ftrace")))
    }

    #[test]
    fn lines_parse_and_errors_name_file_and_line() {
        let w = one("10 write /a 4096 100 # comment").unwrap().unwrap();
        assert_eq!(
            (w.kind, w.offset_bytes, w.len_bytes, w.arrival_ns),
            (FileOpKind::Write, 4096, 100, 10)
        );
        let r = one("0\trename /a /b").unwrap().unwrap();
        assert_eq!(r.to.as_deref(), Some("/b"));
        assert!(one("   # only a comment").unwrap().is_none());
        for bad in [
            "x write /a 0 1",
            "1 frobnicate /a",
            "1 write /a 0",
            "1 write a 0 1",
            "1 truncate /a -3",
            "1 rename /a b",
            "1 unlink /a extra",
        ] {
            let e = one(bad).unwrap_err().to_string();
            assert!(e.starts_with("t.ftrace:7: expected"), "{bad}: {e}");
        }
    }
}
