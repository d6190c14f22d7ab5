//! `ssdlab serve`: the simulated SSD as a Network Block Device (docs/nbd.md).

pub mod proto;
