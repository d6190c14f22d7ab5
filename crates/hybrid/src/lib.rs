//! ssdlab-hybrid: the hybrid store — an HDD model with a flash cache in front (extent
//! table, eviction policies, the cache-table structures), run on the core's device.
//!
//! It must not know file systems, the NBD server, sweeps, the reproductions or the
//! command line.

// The lower crates' modules at this crate's root, so `crate::units::…` and the like
// resolve here as they did in the single crate.
pub use ssdlab_core::{
    buffer, config, ftl, host, host_log, mqsim, nand, report, sim, spec, timing, units, util,
    workload,
};

pub mod hybrid;
