//! File operations: what an application asks of a file system.

use crate::workload::TraceError;
use std::path::PathBuf;
use std::sync::Arc;

/// What a file operation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileOpKind {
    /// Create an empty file (fails if it exists).
    Create,
    /// Open an existing file (no flash work; checks it exists).
    Open,
    /// Close a file: metadata the file system keeps dirty is written.
    Close,
    /// Write `len_bytes` at `offset_bytes` (extends the file as needed).
    Write,
    /// Read `len_bytes` at `offset_bytes` (holes and bytes past the end read nothing).
    Read,
    /// Set the file's size to `offset_bytes`.
    Truncate,
    /// Remove a file.
    Unlink,
    /// Rename `path` to `to` (replacing a file there).
    Rename,
    /// Create a directory.
    Mkdir,
    /// Make the file's data and metadata durable.
    Fsync,
}

impl FileOpKind {
    /// Every operation with its trace name and what it takes, for docs and errors.
    pub fn all() -> &'static [(FileOpKind, &'static str, &'static str)] {
        &[
            (FileOpKind::Create, "create", "path"),
            (FileOpKind::Open, "open", "path"),
            (FileOpKind::Close, "close", "path"),
            (FileOpKind::Write, "write", "path offset length"),
            (FileOpKind::Read, "read", "path offset length"),
            (FileOpKind::Truncate, "truncate", "path size"),
            (FileOpKind::Unlink, "unlink", "path"),
            (FileOpKind::Rename, "rename", "path new_path"),
            (FileOpKind::Mkdir, "mkdir", "path"),
            (FileOpKind::Fsync, "fsync", "path"),
        ]
    }

    /// The trace name.
    pub fn name(self) -> &'static str {
        FileOpKind::all()
            .iter()
            .find(|e| e.0 == self)
            .map_or("?", |e| e.1)
    }

    /// The operation a trace name stands for (case-insensitive).
    pub fn parse(s: &str) -> Option<FileOpKind> {
        FileOpKind::all()
            .iter()
            .find(|e| e.1.eq_ignore_ascii_case(s))
            .map(|e| e.0)
    }
}

/// One file operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileOp {
    /// Arrival time relative to the start of the phase (open-loop phases), ns.
    pub arrival_ns: u64,
    /// The operation.
    pub kind: FileOpKind,
    /// The file or directory.
    pub path: Arc<str>,
    /// Write/read offset, or the new size of a truncate.
    pub offset_bytes: u64,
    /// Write/read length.
    pub len_bytes: u64,
    /// Rename target.
    pub to: Option<Arc<str>>,
    /// The trace the operation came from (`None` for generators), for error messages.
    pub source: Option<Arc<PathBuf>>,
    /// 1-based trace line (0 for generators).
    pub line: u64,
}

impl FileOp {
    /// A generated operation (no trace position).
    pub fn new(kind: FileOpKind, path: &Arc<str>, offset_bytes: u64, len_bytes: u64) -> FileOp {
        FileOp {
            arrival_ns: 0,
            kind,
            path: path.clone(),
            offset_bytes,
            len_bytes,
            to: None,
            source: None,
            line: 0,
        }
    }
}

/// A boxed stream of file operations.
pub type FileOpStream = Box<dyn Iterator<Item = Result<FileOp, TraceError>> + Send>;

/// One phase of a file workload, reported on its own.
pub struct FilePhase {
    /// Short name shown in reports.
    pub name: String,
    /// The operations.
    pub ops: FileOpStream,
    /// Open loop: operations arrive at `arrival_ns` (a trace). Closed loop: each is
    /// issued when the previous one completes.
    pub open_loop: bool,
}
