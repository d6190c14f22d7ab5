//! File-level workloads: IOZone-like, Postmark-like and Andrew-like generators, and a
//! plain text file-operation trace (`time op path offset length`).
//!
//! Every generator is a deterministic function of its settings and the seed.

mod andrew;
mod iozone;
mod postmark;
pub mod trace;

use super::{FileOp, FileOpKind, FilePhase, FsConfig};
use crate::workload::synth::SynthConfig;
use std::sync::Arc;

use crate::config::fs::FileWorkloadKind;

/// Why a file workload cannot be built: each names the workload, the key and what it
/// needs.
#[derive(Debug, thiserror::Error)]
pub enum FileWorkloadError {
    /// Neither `fs.workload` nor `fs.trace` is set.
    #[error("no file workload: set fs.workload or fs.trace")]
    NoWorkload,
    /// A key's value outside what the generator accepts.
    #[error("{workload}: {key} {rule}")]
    Bound {
        /// The generator, e.g. `andrew-file`.
        workload: &'static str,
        /// The key (with its value where the message gives it).
        key: String,
        /// What it must be.
        rule: String,
    },
    /// The files would take more than half the file system.
    #[error("{workload}: {what}, more than half the {capacity_bytes} B file system")]
    TooLarge {
        /// The generator, e.g. `postmark-file`.
        workload: &'static str,
        /// The keys, their values and the bytes they need.
        what: String,
        /// The file system's capacity.
        capacity_bytes: u64,
    },
    /// The file trace cannot be opened.
    #[error("{}: {message}", .path.display())]
    Open {
        /// The trace file.
        path: std::path::PathBuf,
        /// The system's message.
        message: String,
    },
    /// A line of the file trace does not parse, or it has no operation.
    #[error(transparent)]
    Trace(#[from] crate::workload::TraceError),
}

/// Default IOZone file size: min(1 GiB, half the file system's capacity).
pub fn default_file_bytes(capacity_bytes: u64) -> u64 {
    (1u64 << 30).min(capacity_bytes / 2)
}

/// The phases of the configured file workload on a file system of `capacity_bytes`.
pub fn build_phases(
    fs: &FsConfig,
    synth: &SynthConfig,
    capacity_bytes: u64,
    seed: u64,
) -> Result<Vec<FilePhase>, FileWorkloadError> {
    if let Some(path) = &fs.trace {
        return Ok(vec![trace::open(path)?]);
    }
    match fs.workload {
        Some(FileWorkloadKind::IozoneFile) => iozone::phases(synth, capacity_bytes, seed),
        Some(FileWorkloadKind::PostmarkFile) => postmark::phases(fs, capacity_bytes, seed),
        Some(FileWorkloadKind::AndrewFile) => andrew::phases(synth, capacity_bytes, seed),
        None => Err(FileWorkloadError::NoWorkload),
    }
}

/// A phase of generated operations, closed loop.
fn phase(name: &str, ops: Vec<FileOp>) -> FilePhase {
    FilePhase {
        name: name.into(),
        ops: Box::new(ops.into_iter().map(Ok)),
        open_loop: false,
    }
}

fn op(kind: FileOpKind, path: &Arc<str>, offset: u64, len: u64) -> FileOp {
    FileOp::new(kind, path, offset, len)
}
