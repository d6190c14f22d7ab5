//! File systems over the simulated flash, and the file-level workloads they run.
//!
//! A file workload is a stream of [`FileOp`]s (create, open, write, read, truncate,
//! unlink, rename, mkdir, fsync, close). A [`FileSystem`] turns each one into flash
//! work on one of two kinds of storage:
//!
//! | file system | storage | file |
//! |---|---|---|
//! | `yaffs2` | the raw NAND array ([`crate::nand::Nand`]), no FTL: chunks = pages, tags in the spare area, its own GC | `fs/yaffs2/` |
//! | `ext2` | the block device of [`crate::sim::Device`] (any FTL): block allocator, inode table, directory blocks | `fs/ext2.rs` |
//! | `fat` | the same block device: FAT16/FAT32 cluster chains, 32-byte directory entries with long names | `fs/fat.rs` |
//!
//! All are timed by the device's [`crate::timing::TimeModel`] and reported with the
//! same report keys as every FTL run (`docs/fs.md`); [`run::run_fs`] drives the file
//! operations, one at a time as an application thread issues system calls.

pub(crate) mod block;
pub mod ext2;
pub mod fat;
pub mod ops;
pub mod run;
pub mod workload;
pub mod yaffs2;

pub use ops::{FileOp, FileOpKind, FileOpStream, FilePhase};

use crate::sim::Measure;
use serde::Serialize;
use std::sync::Arc;

use crate::config::fs::{FsConfig, FsKind};
use crate::spec::{Counter, Counters};

/// The counters the file systems report, each file system's own.
pub const COUNTERS: &[&[Counter]] = &[ext2::COUNTERS, fat::COUNTERS, yaffs2::COUNTERS];

/// Why a file operation failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FsError {
    /// The operation names a path that does not exist.
    #[error("{at}{op} {path}: no such file or directory")]
    NoEntry {
        /// `file:line: ` of a traced operation, or empty.
        at: String,
        /// The operation.
        op: &'static str,
        /// The path.
        path: String,
    },
    /// The path exists already (create, mkdir, rename onto a directory).
    #[error("{at}{op} {path}: already exists")]
    Exists {
        /// `file:line: ` of a traced operation, or empty.
        at: String,
        /// The operation.
        op: &'static str,
        /// The path.
        path: String,
    },
    /// A directory where a file is needed, or the other way round.
    #[error("{at}{op} {path}: {what}")]
    WrongType {
        /// `file:line: ` of a traced operation, or empty.
        at: String,
        /// The operation.
        op: &'static str,
        /// The path.
        path: String,
        /// What was wrong, e.g. "is a directory".
        what: &'static str,
    },
    /// No free space left (ENOSPC).
    #[error("{fs}: no space left on the device ({detail})")]
    NoSpace {
        /// Which file system.
        fs: &'static str,
        /// Free space and reserve at the moment it ran out.
        detail: String,
    },
    /// The block device below failed (ext2 or FAT over an FTL).
    #[error("{0}")]
    Device(String),
    /// Power was cut (crash tests): the operation stopped part way.
    #[error("power cut")]
    PowerCut,
}

impl From<FsError> for crate::host::SimError {
    fn from(e: FsError) -> crate::host::SimError {
        crate::host::SimError::Fs(Box::new(e))
    }
}

impl FsError {
    /// Prefixes the trace position of `op` (when it came from a trace) to a path error.
    pub fn at(mut self, op: &FileOp) -> FsError {
        if let Some(src) = &op.source {
            let pos = format!("{}:{}: ", src.display(), op.line);
            match &mut self {
                FsError::NoEntry { at, .. }
                | FsError::Exists { at, .. }
                | FsError::WrongType { at, .. } => *at = pos,
                _ => {}
            }
        }
        self
    }
}

/// Mount statistics: what rebuilding the file system's RAM state cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MountStats {
    /// Flash pages read (tags and headers, or checkpoint chunks).
    pub pages_read: u64,
    /// Time the reads take by the elapsed-time formula, ns.
    pub time_ns: u64,
    /// Whether a checkpoint was used instead of a full scan.
    pub from_checkpoint: bool,
    /// Blocks whose tags were scanned.
    pub blocks_scanned: u64,
}

/// A file system: performs file operations on its storage, times them with the device's
/// time model and exposes what the report needs.
pub trait FileSystem: Send {
    /// Registered name.
    fn name(&self) -> &'static str;
    /// Performs `op`, issued at `now_ns`; returns when it completes.
    fn exec(&mut self, op: &FileOp, now_ns: u64) -> Result<u64, FsError>;
    /// The device is idle from `now_ns` to `until_ns`: background work (YAFFS2's
    /// background GC) may use the time. Returns when the last background work ends.
    fn idle(&mut self, now_ns: u64, _until_ns: u64) -> Result<u64, FsError> {
        Ok(now_ns)
    }
    /// Unmounts cleanly and mounts again at `now_ns` (RAM state rebuilt from flash).
    fn remount(&mut self, now_ns: u64) -> Result<MountStats, FsError>;
    /// File-system counters (`fs.*`): running totals, or state values where declared
    /// gauges ([`crate::spec::Counter`]).
    fn counters(&self, out: &mut Counters);
    /// Bytes of RAM the file system's maps need (YAFFS2: Tnode trees and object table;
    /// ext2, FAT: the FTL's map below).
    fn mapping_bytes(&self) -> u64;
    /// The device as the report sees it.
    fn device(&self) -> &dyn Measure;
    /// Resets the time model (after preconditioning).
    fn reset_time(&mut self, now_ns: u64);
    /// Panics if the file system's structures disagree with the flash (tests).
    fn check(&self);
}

/// A shared path string.
pub type Path = Arc<str>;

/// Splits `/a/b/c` into its components (empty components ignored).
pub(crate) fn components(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|c| !c.is_empty() && *c != ".")
}

/// The directory that will hold `path` and its last component, for `op`: the errors name
/// the root, a missing parent, or a parent that is not a directory. `lookup` resolves a
/// path to an object id, `is_dir` says whether an id is a directory (one rule for every
/// file system).
pub(crate) fn resolve_parent(
    op: &FileOp,
    path: &str,
    lookup: impl Fn(&str) -> Option<u32>,
    is_dir: impl Fn(u32) -> bool,
) -> Result<(u32, Arc<str>), FsError> {
    let (dir, name) = split_last(path).ok_or_else(|| FsError::WrongType {
        at: String::new(),
        op: op.kind.name(),
        path: path.into(),
        what: "is the root directory",
    })?;
    let parent = lookup(dir).ok_or_else(|| FsError::NoEntry {
        at: String::new(),
        op: op.kind.name(),
        path: dir.into(),
    })?;
    if !is_dir(parent) {
        return Err(FsError::WrongType {
            at: String::new(),
            op: op.kind.name(),
            path: dir.into(),
            what: "is not a directory",
        });
    }
    Ok((parent, Arc::from(name)))
}

/// The object (file or directory) `path` names, for `op`: the error names a missing path.
pub(crate) fn resolve_existing(
    op: &FileOp,
    path: &str,
    lookup: impl Fn(&str) -> Option<u32>,
) -> Result<u32, FsError> {
    lookup(path).ok_or_else(|| FsError::NoEntry {
        at: String::new(),
        op: op.kind.name(),
        path: path.to_string(),
    })
}

/// The regular file `op.path` names: the errors name a missing path or a directory.
pub(crate) fn resolve_file(
    op: &FileOp,
    lookup: impl Fn(&str) -> Option<u32>,
    is_dir: impl Fn(u32) -> bool,
) -> Result<u32, FsError> {
    let id = lookup(&op.path).ok_or_else(|| FsError::NoEntry {
        at: String::new(),
        op: op.kind.name(),
        path: op.path.to_string(),
    })?;
    if is_dir(id) {
        return Err(FsError::WrongType {
            at: String::new(),
            op: op.kind.name(),
            path: op.path.to_string(),
            what: "is a directory",
        });
    }
    Ok(id)
}

/// Parent directory and last component of `path` (`None` for the root).
pub(crate) fn split_last(path: &str) -> Option<(&str, &str)> {
    let t = path.trim_end_matches('/');
    let (dir, name) = t.rsplit_once('/').unwrap_or(("", t));
    (!name.is_empty()).then_some((dir, name))
}
