//! `ssdlab serve`: the simulated SSD as a Network Block Device (docs/nbd.md).

pub mod proto;
pub mod server;

pub use server::{
    Clocks, Ending, ExportSpec, LATE_TOLERANCE_NS, Latency, Listen, ServeOptions, Server,
    TimelinessSummary,
};
