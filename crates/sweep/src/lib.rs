//! ssdlab-sweep: the run entry point for any validated design (`run::run_design`: the
//! core's pipeline, or a file system from ssdlab-fs) and parameter sweeps over it (grid,
//! plan, runner, the resumable store, tables and pages).
//!
//! It runs hybrid designs (ssdlab-hybrid) as cells too, through `hybrid::run`; it must not
//! know the NBD server, the reproductions or the command line.

// The lower crates' modules at this crate's root, so `crate::units::…` and the like
// resolve here as they did in the single crate.
pub use ssdlab_core::{
    buffer, config, ftl, host, host_log, mqsim, nand, report, sim, spec, timing, units, util,
    workload,
};
pub use ssdlab_fs::fs;
pub use ssdlab_hybrid::hybrid;

pub mod run;
pub mod sweep;
