//! ssdlab-base: the shared vocabulary of every other crate — sizes and times with their
//! units (`units`), small helpers (`util`: prefetch, huge-page vectors, fast division, file locks), and the
//! validation error each config section returns (`spec::ConfigError`, `check_range`), and
//! the one registry of named specs every pluggable family keeps (`registry::Registry`).
//!
//! It must not know any component: no NAND, FTL, workload or report type, and no
//! configuration beyond the one error type. Everything here is a leaf.

pub mod registry;
pub mod spec;
pub mod units;
pub mod util;
