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
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Which file-level generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileWorkloadKind {
    /// IOZone-like: write, rewrite, read, reread, random write, random read of one file.
    IozoneFile,
    /// Postmark-like: a pool of small files created, read, appended, deleted.
    PostmarkFile,
    /// Andrew-like: the phases of the block-level Andrew workload as file operations.
    AndrewFile,
}

impl FileWorkloadKind {
    /// Every file workload with a one-line description, for `ssdlab list`.
    pub fn all() -> &'static [(FileWorkloadKind, &'static str, &'static str)] {
        &[
            (
                FileWorkloadKind::IozoneFile,
                "iozone-file",
                "file level (needs --fs): IOZone-like write, rewrite, read, reread, random write, random read of one file of span bytes",
            ),
            (
                FileWorkloadKind::PostmarkFile,
                "postmark-file",
                "file level (needs --fs): Postmark-like pool of small files: create, transactions (read/append + create/delete), delete",
            ),
            (
                FileWorkloadKind::AndrewFile,
                "andrew-file",
                "file level (needs --fs): Andrew-like setup, mkdir, copy, scandir, readall, make over andrew_files files",
            ),
        ]
    }

    /// The name as `--workload` takes it.
    pub fn name(self) -> &'static str {
        FileWorkloadKind::all()
            .iter()
            .find(|e| e.0 == self)
            .map_or("?", |e| e.1)
    }

    /// The workload a name stands for.
    pub fn parse(s: &str) -> Option<FileWorkloadKind> {
        FileWorkloadKind::all()
            .iter()
            .find(|e| e.1 == s)
            .map(|e| e.0)
    }
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
