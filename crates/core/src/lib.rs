//! ssdlab-core: the simulated device and everything on its hot path — the NAND array
//! (the one owner of physical state and payloads), the time model, the FTLs and GC
//! policies, the write buffer, the host queue and host-side log, the zones of a zoned
//! namespace, flexible data placement's bookkeeping and the arbitration between
//! submission queues, the configuration that
//! aggregates their sections (presets, MQSim import, the memory estimate), the report
//! model and its renderers, and the pipeline that runs a validated design (`sim`).
//!
//! It must not know what runs on or around the device: file systems, the hybrid HDD
//! store, the NBD server, sweeps, the paper reproductions or the command line. They sit
//! in the crates above and call in; nothing here calls out (`sim::run` refuses a
//! file-system design; `ssdlab-sweep`'s `run::run_design` dispatches it).

// The lower crates' modules at this crate's root, so `crate::units::…` and the like
// resolve here as they did in the single crate.
pub use ssdlab_base::{registry, spec, units, util};
pub use ssdlab_workload::workload;

pub mod arbitration;
pub mod buffer;
pub mod config;
pub mod fdp;
pub mod ftl;
pub mod host;
pub mod host_log;
pub mod mqsim;
pub mod nand;
pub mod report;
pub mod sim;
pub mod timing;
pub mod zns;

/// The names most users of the core need, in one import (`use ssdlab_core::prelude::*`):
/// a configuration and its validated design, the run entry points and their output, the
/// report, the FTL trait and handle, the NAND array and the size unit. Everything else
/// stays at its module path, so a wider API is a deliberate choice, not a leak.
pub mod prelude {
    pub use crate::config::{Config, ConfigError, Design};
    pub use crate::ftl::{Ftl, FtlKind};
    pub use crate::host::SimError;
    pub use crate::nand::Nand;
    pub use crate::report::Report;
    pub use crate::sim::{RunOptions, RunOutput, run, run_design};
    pub use crate::units::Size;
}
