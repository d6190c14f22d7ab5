//! The request pipeline: workload → host queue → device queue → (write buffer) → page
//! operations → FTL → NAND → time model → report. Each stage and its file:
//!
//! | stage | what it does | file |
//! |---|---|---|
//! | workload | phases of requests from a generator or a trace (read ahead on a second thread by the host queue) | `sim/workload.rs`, `workload/` |
//! | host queue | admits requests, open loop (trace arrivals), closed loop (fio-like) or with think time, at most `qd` outstanding | `host.rs` ([`crate::host::HostQueue`]) |
//! | device queue | commands wait for dispatch (NCQ order: FIFO or hits first) | `host.rs` ([`crate::host::Ncq`]) |
//! | write buffer (optional) | DRAM buffer policy; victims are written back through the FTL | `sim/stage.rs`, `buffer/` |
//! | page operations | requests split into pages; read-modify-write of partial pages; trims of whole pages | `sim/device.rs` ([`Device::exec`](device::Device)) |
//! | FTL | mapping, GC, wear leveling | `ftl/` |
//! | NAND | pages, blocks, OOB tags, counters by cause, the operation log | `nand.rs` |
//! | time model | full (dies, buses, calendars) or count (the papers' serial formula), one interface | `timing.rs` ([`crate::timing::TimeModel`]) |
//! | report | counters, latencies and figures of the measured phase | `sim/report.rs`, `report/` |
//!
//! There is one path for every command, with or without a buffer. **Latency runs from a
//! request's arrival to its completion** (queueing included) everywhere: see
//! [`crate::host`].
//!
//! In the full timing model every flash operation a command causes (including GC it
//! triggers) is placed on its die and bus no earlier than the command's start; the
//! command completes when its last operation does. In counting mode the device is one
//! serial server whose service time for a command is the elapsed-time formula of the
//! operations it caused.
//!
//! With a write buffer (docs/buffer.md) commands wait in the device queue and the
//! buffer's front end takes them one at a time, in the configured dispatch order: a
//! write completes once its data is in DRAM, which needs free slots, so a miss on a full
//! buffer waits until its victims' data has left DRAM for a die (program transfer done);
//! a read hit costs the DRAM copy, a read miss goes to flash while the front end moves
//! on. Victims are written through the FTL, so their programs, and any GC they trigger,
//! occupy dies exactly as host writes do without a buffer.

mod cancel;
mod device;
pub mod report;
mod run;
mod stage;
mod workload;

pub use crate::host::Dispatched;
pub use cancel::Cancel;
pub use device::{Device, HostCounters, HostTag, Recovery, time_model};
pub use report::{LiveStats, Measure, erase_summary};
pub use run::{
    RunOptions, RunOutput, SeriesKey, run, run_design, run_design_phases, run_series, series_key,
};
pub use stage::BufferStats;
pub use workload::build_workload;

use crate::host::SimError;
