//! The run entry point: runs any validated design, handing file-system designs
//! (`[fs] name`) to the file system that drives the device (`fs::run::run_fs`) and block
//! designs to the device pipeline (`sim::run_design`).
//!
//! It sits above both, so the simulator never names the file systems that run on it
//! (docs/architecture.md): the CLI, the Python module, sweeps and reproductions call
//! this, not `sim::run_design`, whenever a design may name a file system.

use crate::config::{Config, Design};
use crate::host::SimError;
use crate::sim::{RunOptions, RunOutput};

/// Runs the workload `cfg` describes and reports.
pub fn run(cfg: &Config, opts: RunOptions) -> Result<RunOutput, SimError> {
    run_design(&cfg.validate()?, opts)
}

/// Runs a validated design and reports: through its file system when `[fs]` names
/// one, else through the device pipeline.
pub fn run_design(design: &Design, opts: RunOptions) -> Result<RunOutput, SimError> {
    if design.config.fs.active() {
        crate::fs::run::run_fs(design, opts)
    } else {
        crate::sim::run_design(design, opts)
    }
}
