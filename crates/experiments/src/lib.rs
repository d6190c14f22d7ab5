//! ssdlab-experiments: the reproductions of the papers' figures, judged by the claims
//! registry compiled in (`experiments`), and the name lists of every registry (`names`)
//! that the CLI and the Python module show.
//!
//! It must not know the command line (clap) or the emulation crate.

// The lower crates' modules at this crate's root, so `crate::units::…` and the like
// resolve here as they did in the single crate.
pub use ssdlab_core::{
    buffer, config, ftl, host, host_log, mqsim, nand, report, sim, spec, timing, units, util,
    workload,
};
pub use ssdlab_fs::fs;
pub use ssdlab_hybrid::hybrid;
pub use ssdlab_sweep::{run, sweep};

pub mod experiments;
pub mod names;
