//! ssdlab — a fast simulator of SSD firmware designs.
//!
//! Data flows one way: workload → host queue → (write buffer) → FTL → NAND → timing.
//! See `docs/` and the README for the user's view; `docs/architecture.md` for the
//! architecture this crate follows.

pub mod buffer;
pub mod config;
pub mod data;
pub mod experiments;
pub mod fs;
pub mod ftl;
pub mod host;
pub mod host_log;
pub mod hybrid;
pub mod mqsim;
pub mod names;
pub mod nand;
pub mod nbd;
pub mod report;
pub mod run;
pub mod sim;
pub mod spec;
pub mod sweep;
pub mod timing;
pub mod units;
pub mod util;
pub mod workload;
