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

// moved: remove after the workspace split
pub use crate::config::fs::FileWorkloadKind;

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
) -> Result<Vec<FilePhase>, String> {
    if let Some(path) = &fs.trace {
        return Ok(vec![trace::open(path)?]);
    }
    match fs.workload {
        Some(FileWorkloadKind::IozoneFile) => iozone::phases(synth, capacity_bytes, seed),
        Some(FileWorkloadKind::PostmarkFile) => postmark::phases(fs, capacity_bytes, seed),
        Some(FileWorkloadKind::AndrewFile) => andrew::phases(synth, capacity_bytes, seed),
        None => Err("no file workload: set fs.workload or fs.trace".into()),
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
