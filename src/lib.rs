//! ssdlab — a fast simulator of SSD firmware designs.
//!
//! Data flows one way: workload → host queue → (write buffer) → FTL → NAND → timing.
//! See `docs/` and the README for the user's view; `docs/architecture.md` for the
//! architecture this workspace follows.
//!
//! This library is a facade: the code lives in the workspace's crates (`crates/`), and
//! every module is re-exported here at its path of the single crate (`ssdlab::nand`,
//! `ssdlab::ftl`, …), so the tests, benchmarks, fuzz targets and the command line
//! (`src/cli/`, the one part of the root package with code of its own) name them as
//! before. It must not hold code: a module belongs in the lowest crate that can hold it.

pub use ssdlab_base::{spec, units, util};
pub use ssdlab_core::{
    buffer, config, fdp, ftl, host, host_log, mqsim, nand, prelude, report, sim, timing, zns,
};
pub use ssdlab_emu::{data, nbd};
pub use ssdlab_experiments::{experiments, names};
pub use ssdlab_fs::fs;
pub use ssdlab_hybrid::hybrid;
pub use ssdlab_sweep::{run, sweep};
pub use ssdlab_workload::workload;
