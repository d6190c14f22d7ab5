//! ssdlab-fs: file systems run on the simulated flash — YAFFS2 on raw NAND, ext2 and FAT
//! on a block device over the FTL — with their workloads (Andrew, IOzone, PostMark) and
//! the run that drives them, reporting in the core's report model.
//!
//! It must not know the hybrid store, the NBD server, sweeps, the reproductions or the
//! command line.

// The lower crates' modules at this crate's root, so `crate::units::…` and the like
// resolve here as they did in the single crate.
pub use ssdlab_core::{
    buffer, config, ftl, host, host_log, mqsim, nand, report, sim, spec, timing, units, util,
    workload,
};

pub mod fs;
