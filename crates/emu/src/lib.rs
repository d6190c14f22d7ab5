//! ssdlab-emu: the simulated device used as a real one — the NBD server (`nbd`), the
//! file-backed page store and the crash tests that cut power mid-run (`data`). The
//! in-memory page store stays with the NAND model in ssdlab-core.
//!
//! It must not know file systems, the hybrid store, sweeps, the reproductions or the
//! command line.

// The lower crates' modules at this crate's root, so `crate::units::…` and the like
// resolve here as they did in the single crate.
pub use ssdlab_core::{
    buffer, config, ftl, host, host_log, mqsim, nand, report, sim, spec, timing, units, util,
    workload, zns,
};

pub mod data;
pub mod nbd;
