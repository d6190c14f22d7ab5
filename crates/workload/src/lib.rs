//! ssdlab-workload: what the simulated host asks for — the request type (`IoRequest`),
//! the trace readers (one file per format, a shared line reader, decompression,
//! format detection) and the synthetic generators (uniform, sequential, hot-cold, Zipf,
//! OLTP, IOzone, Andrew phases, the IOmeter profiles), each validating its own section.
//!
//! It must not know the device: no NAND geometry, FTL, buffer, timing or report. A
//! generator sees a logical span in sectors or pages, never a physical layout.

// The lower crates' modules at this crate's root, so `crate::units::…` and the like
// resolve here as they did in the single crate.
pub use ssdlab_base::{registry, spec, units, util};

pub mod workload;
