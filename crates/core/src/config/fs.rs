//! `[fs]`: which file system runs and its file workload, with each file system's own
//! section (`[fs.yaffs2]`, `[fs.ext2]`) and validation.
//!
//! The file systems themselves (the `fs` module) drive a whole simulated device, so they sit
//! above the simulator and above this module; their configuration sections live here,
//! below both, so that the configuration can aggregate them without naming the file
//! systems (docs/architecture.md). The `fs` module re-exports every type under its old path.

use crate::spec::{ConfigError, check_range};
use crate::units::Size;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Registered file systems (the `name` key of `[fs]` / `--fs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FsKind {
    /// No file system: the workload is block requests (the default).
    #[default]
    None,
    /// YAFFS2-style log-structured flash file system on raw NAND.
    Yaffs2,
    /// ext2-style block file system over an FTL.
    Ext2,
    /// FAT (vfat: FAT16/FAT32 with long names) over an FTL.
    Fat,
}

impl FsKind {
    /// Every file system with a one-line description, for `ssdlab list`.
    pub fn all() -> &'static [(FsKind, &'static str, &'static str)] {
        &[
            (
                FsKind::None,
                "none",
                "no file system: block workloads straight to the FTL (default)",
            ),
            (
                FsKind::Yaffs2,
                "yaffs2",
                "YAFFS2-style flash file system on raw NAND: tagged chunks, Tnode trees, passive/aggressive GC, mount scan, checkpoint",
            ),
            (
                FsKind::Ext2,
                "ext2",
                "ext2-style block file system over any FTL: block groups, bitmaps, inode table, directory blocks",
            ),
            (
                FsKind::Fat,
                "fat",
                "FAT file system (vfat) over any FTL: FAT16/FAT32 as mkfs.fat picks, cluster chains, two FATs, long-name directory entries",
            ),
        ]
    }

    /// The name as `--fs` takes it.
    pub fn name(self) -> &'static str {
        FsKind::all()
            .iter()
            .find(|e| e.0 == self)
            .map_or("?", |e| e.1)
    }
}

/// `[fs]`: the file system and the file workload it runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FsConfig {
    /// Which file system (`none` = block workload).
    pub name: FsKind,
    /// File-level generator (`--workload iozone-file`, …); `None` with a file trace.
    pub workload: Option<FileWorkloadKind>,
    /// File-operation trace (`time op path offset length` lines) instead of a generator.
    pub trace: Option<PathBuf>,
    /// Postmark: files in the initial pool.
    pub postmark_files: u32,
    /// Postmark: transactions (each a read or append plus a create or delete).
    pub postmark_transactions: u64,
    /// Postmark: smallest file.
    pub postmark_size_min: Size,
    /// Postmark: largest file.
    pub postmark_size_max: Size,
    /// Postmark: subdirectories the files are spread over.
    pub postmark_dirs: u32,
    /// YAFFS2 settings.
    pub yaffs2: Yaffs2Config,
    /// Unmount and mount again after the workload, reported as a `mount` phase (YAFFS2:
    /// the scan or checkpoint read; ext2: superblock and descriptors; FAT: boot sector).
    pub remount: bool,
    /// ext2 settings.
    pub ext2: Ext2Config,
    /// FAT settings (left out of reports while all default).
    #[serde(skip_serializing_if = "FatConfig::is_default")]
    pub fat: FatConfig,
}

impl Default for FsConfig {
    fn default() -> Self {
        FsConfig {
            name: FsKind::None,
            workload: None,
            trace: None,
            postmark_files: 500,
            postmark_transactions: 5000,
            postmark_size_min: Size(512),
            postmark_size_max: Size(16 << 10),
            postmark_dirs: 10,
            yaffs2: Yaffs2Config::default(),
            remount: true,
            ext2: Ext2Config::default(),
            fat: FatConfig::default(),
        }
    }
}

impl FsConfig {
    /// Whether a file system runs (a file workload instead of block requests).
    pub fn active(&self) -> bool {
        self.name != FsKind::None
    }

    /// Checks the `[fs]` keys against each other: a file workload needs a file system,
    /// and (`with_workload`: a run, not a device driven by other code) a file system
    /// needs a file workload.
    pub fn validate(&self, with_workload: bool) -> Result<(), ConfigError> {
        let has_workload = self.workload.is_some() || self.trace.is_some();
        if with_workload && self.active() && !has_workload {
            return Err(ConfigError::value(
                "fs.name",
                self.name.name(),
                "a file workload with it: fs.workload (--workload iozone-file, postmark-file, \
                 andrew-file) or fs.trace (--file-trace FILE)",
            ));
        }
        if !self.active() && has_workload {
            let what = match (&self.workload, &self.trace) {
                (Some(w), _) => format!("fs.workload = {}", w.name()),
                (_, Some(p)) => format!("fs.trace = {}", p.display()),
                _ => unreachable!("has_workload"),
            };
            return Err(ConfigError::value(
                "fs.name",
                "none",
                format!(
                    "a file system for {what}: --fs yaffs2, --fs ext2 or --fs fat (file workloads run on a file system)"
                ),
            ));
        }
        if self.workload.is_some() && self.trace.is_some() {
            return Err(ConfigError::value(
                "fs.trace",
                self.trace
                    .as_ref()
                    .map_or(String::new(), |p| p.display().to_string()),
                "either fs.trace or fs.workload, not both",
            ));
        }
        check_range(
            "fs.postmark_files",
            self.postmark_files,
            1,
            10_000_000,
            "files in the initial pool",
        )?;
        check_range(
            "fs.postmark_dirs",
            self.postmark_dirs,
            1,
            1_000_000,
            "subdirectories",
        )?;
        if self.postmark_size_min.bytes() == 0
            || self.postmark_size_min.bytes() > self.postmark_size_max.bytes()
        {
            return Err(ConfigError::value(
                "fs.postmark_size_min",
                self.postmark_size_min,
                format!(
                    "at least 1B and at most fs.postmark_size_max ({})",
                    self.postmark_size_max
                ),
            ));
        }
        self.yaffs2.validate()?;
        self.ext2.validate()?;
        self.fat.validate()?;
        Ok(())
    }
}

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

/// `[fs.yaffs2]` settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Yaffs2Config {
    /// Write a checkpoint at unmount so the next mount reads it instead of scanning.
    pub checkpoint: bool,
    /// Erased blocks kept for GC (YAFFS2's `n_reserved_blocks`, default 5).
    pub reserved_blocks: u32,
    /// Collect garbage in idle time between operations (YAFFS2's background GC thread).
    pub background_gc: bool,
}

impl Default for Yaffs2Config {
    fn default() -> Self {
        Yaffs2Config {
            checkpoint: false,
            reserved_blocks: 5,
            background_gc: true,
        }
    }
}

impl Yaffs2Config {
    /// Checks the bounds.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range(
            "fs.yaffs2.reserved_blocks",
            self.reserved_blocks,
            2,
            10_000,
            "erased blocks kept for GC",
        )
    }
}

/// `[fs.ext2]` settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Ext2Config {
    /// File-system block size (1 KiB to 64 KiB, a power of two).
    pub block_size: Size,
    /// Bytes of an on-disk inode.
    pub inode_size: u32,
    /// File-system bytes per inode (mkfs's inode ratio).
    pub bytes_per_inode: Size,
    /// Dirty metadata is written back every this many file operations.
    pub writeback_ops: u64,
    /// Trim freed blocks.
    pub discard: bool,
}

impl Default for Ext2Config {
    fn default() -> Self {
        Ext2Config {
            block_size: Size(4096),
            inode_size: 128,
            bytes_per_inode: Size(16 << 10),
            writeback_ops: 1000,
            discard: false,
        }
    }
}

impl Ext2Config {
    /// Checks the bounds.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let b = self.block_size.bytes();
        if !(1024..=65536).contains(&b) || !b.is_power_of_two() {
            return Err(ConfigError::value(
                "fs.ext2.block_size",
                self.block_size,
                "a power of two from 1KiB to 64KiB",
            ));
        }
        check_range("fs.ext2.inode_size", self.inode_size, 128, 1024, "bytes")?;
        if !self.inode_size.is_power_of_two() {
            return Err(ConfigError::value(
                "fs.ext2.inode_size",
                self.inode_size,
                "a power of two from 128 to 1024",
            ));
        }
        if self.bytes_per_inode.bytes() < b {
            return Err(ConfigError::value(
                "fs.ext2.bytes_per_inode",
                self.bytes_per_inode,
                format!("at least fs.ext2.block_size ({})", self.block_size),
            ));
        }
        check_range(
            "fs.ext2.writeback_ops",
            self.writeback_ops,
            1,
            u64::MAX,
            "file operations between metadata writebacks",
        )
    }
}

/// Which FAT (`fs.fat.fat_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FatTypeChoice {
    /// As mkfs.fat picks from the volume size (FAT32 from 512 MiB).
    #[default]
    Auto,
    /// FAT16 (mkfs.fat -F 16).
    Fat16,
    /// FAT32 (mkfs.fat -F 32).
    Fat32,
}

/// `[fs.fat]` settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FatConfig {
    /// FAT16, FAT32 or mkfs.fat's choice by volume size.
    pub fat_type: FatTypeChoice,
    /// Bytes per cluster (512 B to 64 KiB, a power of two); unset: mkfs.fat's default
    /// for the volume size.
    pub cluster_size: Option<Size>,
    /// Dirty metadata is written back every this many file operations (ext2's rule).
    pub writeback_ops: u64,
    /// Trim freed clusters (mount -o discard).
    pub discard: bool,
}

impl Default for FatConfig {
    fn default() -> Self {
        FatConfig {
            fat_type: FatTypeChoice::Auto,
            cluster_size: None,
            writeback_ops: 1000,
            discard: false,
        }
    }
}

impl FatConfig {
    /// Whether every key has its default (the section is then left out of reports).
    pub fn is_default(&self) -> bool {
        *self == FatConfig::default()
    }

    /// Checks the bounds.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let Some(c) = self.cluster_size {
            let b = c.bytes();
            if !(512..=65536).contains(&b) || !b.is_power_of_two() {
                return Err(ConfigError::value(
                    "fs.fat.cluster_size",
                    c,
                    "a power of two from 512B to 64KiB (1 to 128 sectors, as mkfs.fat -s)",
                ));
            }
        }
        check_range(
            "fs.fat.writeback_ops",
            self.writeback_ops,
            1,
            u64::MAX,
            "file operations between metadata writebacks",
        )
    }
}
