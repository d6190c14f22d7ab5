//! Flash as a cache for a hard disk (docs/papers.md §5; Kim et al., 2011): an HDD timing
//! model, a flash read cache that is itself a simulated SSD, the cache control table
//! (linear list, AVL tree, B+-tree) with the last-read sequential hint, workloads that
//! look like booting, launching applications and loading a game, and the run loop.

pub mod config;
pub mod evict;
pub mod hdd;
pub mod run;
pub mod space;
pub mod store;
pub mod table;
pub mod workload;
