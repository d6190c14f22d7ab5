//! When garbage collection runs: on the write path, in idle time, or on the write path
//! but suspendable by host reads (the `ftl.gc_schedule` key).
//!
//! ```text
//! foreground  write(lpn): … if free(unit) < gc_low: collect(unit) up to gc_high
//!             (blocking: the write's completion and every later operation on the
//!             unit's die wait for the whole collection)
//! background  device idle (no flash work for longer than FOLD_IDLE_NS, the idle notion
//!             the SLC cache's folding uses): one victim at a time, round robin over
//!             the units below gc_high, while the idle period lasts
//!             write(lpn): … if free(unit) < gc_low: collect(unit) up to gc_low only
//!             (the emergency: just enough to go on, so the stall is one victim)
//! preemptive  foreground triggering, and on each die a host read goes before every
//!             operation not yet started (read priority) and suspends a GC program or
//!             erase in progress: the read starts once that operation reaches its
//!             suspend point (suspend.program_ns / suspend.erase_ns, or when it ends
//!             if that is sooner) and the suspended operation and everything queued
//!             behind it move later by the read's die time; host work in progress is
//!             not suspended
//! ```
//!
//! Sources. Background collection in idle time is what drive firmware does and what
//! FEMU's ftl thread models; MQSim's `Preemptible_GC` (after Lee et al., "Preemptible
//! I/O Scheduling of Garbage Collection for Solid State Drives", TCAD 2013) lets user
//! transactions go before GC transactions unless the free pool is below a hard
//! threshold, and its TSU suspends an ongoing program or erase for a read (Wu & He,
//! "Reducing SSD Read Latency via NAND Flash Program and Erase Suspension", FAST 2012).
//! Our `preemptive` models both halves: the queue priority (MQSim's scheduler serves a
//! chip's reads before its writes and GC transactions, so a read never waits behind
//! the queue a GC burst built up) and the suspension of the GC operation in progress.
//!
//! Simplifications, each in the optimistic direction for the operation that moves:
//! the FTL's state changes at once (GC never falls behind in space, so MQSim's "urgent
//! mode" has nothing to protect and is not modelled), and a write whose completion
//! included a collection keeps the completion time it was given when a later read
//! pushes that collection back. Resume costs nothing (MQSim resumes with the remaining
//! time, no overhead). The default stays `foreground`: it is today's behaviour, the
//! papers reproduced here (2008–2010) describe blocking GC on the write path, and the
//! claims registry leaves the schedule a free parameter of the experiments that vary it.

use serde::{Deserialize, Serialize};

/// When GC runs (`ftl.gc_schedule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum GcSchedule {
    /// On the write path, blocking, up to `gc_high_free_blocks` (the classic model).
    #[default]
    Foreground,
    /// In device idle time up to `gc_high_free_blocks`; on the write path only below
    /// `gc_low_free_blocks`, and then only up to it.
    Background,
    /// Foreground, with GC programs and erases suspended for host reads.
    Preemptive,
}

impl GcSchedule {
    /// Every schedule with a one-line description.
    pub fn all() -> &'static [(GcSchedule, &'static str, &'static str)] {
        &[
            (
                GcSchedule::Foreground,
                "foreground",
                "GC on the write path below gc_low, blocking, up to gc_high",
            ),
            (
                GcSchedule::Background,
                "background",
                "GC in idle time up to gc_high; on the write path only as an emergency",
            ),
            (
                GcSchedule::Preemptive,
                "preemptive",
                "foreground GC whose programs and erases a host read suspends",
            ),
        ]
    }

    /// The schedule's name as the key takes it.
    pub fn name(self) -> &'static str {
        GcSchedule::all()
            .iter()
            .find(|e| e.0 == self)
            .map_or("?", |e| e.1)
    }
}

/// `[ftl.suspend]`: how long a NAND die takes to suspend an operation in progress for a
/// read (the time from the suspend command until the die accepts the read).
///
/// Defaults: erase 500 µs, the maximum erase-suspend latency Samsung gives for its
/// OneNAND parts (KFG2816 OneNAND128 and Flex-MuxOneNAND KFM4GH6Q4M datasheets: "the
/// device requires a maximum of 500us to suspend erase operation"); program 100 µs,
/// MQSim's default `Suspend_Program_Time` (no NAND datasheet giving a program-suspend
/// latency was at hand). Both are upper bounds: an operation that would end sooner is
/// simply waited for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SuspendConfig {
    /// Program suspend latency, ns.
    pub program_ns: u64,
    /// Erase suspend latency, ns.
    pub erase_ns: u64,
}

impl Default for SuspendConfig {
    fn default() -> Self {
        SuspendConfig {
            program_ns: 100_000,
            erase_ns: 500_000,
        }
    }
}

/// Largest accepted suspend latency: a suspend slower than a TLC erase (a few ms)
/// would gain nothing.
pub const MAX_SUSPEND_NS: u64 = 10_000_000;
