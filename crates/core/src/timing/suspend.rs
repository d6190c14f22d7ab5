//! Program/erase suspension of GC work for host reads (`ftl.gc_schedule =
//! "preemptive"`; the schedule and its sources are described in `src/ftl/gc/schedule.rs`).
//!
//! ```text
//! every operation placed on a die: remember its die time as a segment
//!     (GC or wear-leveling programs, copies and erases are suspendable; the rest fixed)
//! a host or mapping read arriving at t:
//!     walk the die's segments from t: one not yet started → the read goes first (read
//!     priority: MQSim's scheduler serves a chip's read queue before its write and GC
//!     queues, so a read never waits behind a GC burst's backlog of queued writes);
//!     a fixed one running → wait for its end; a suspendable one running → the read
//!     starts at t + its suspend latency (program or erase), or at its end if sooner
//!     the read takes the die for t_R and its page register until the bus has carried
//!     the data out; the suspended operation's remainder and everything after it on
//!     the die move later by that time (resume costs nothing, as in MQSim)
//! ```
//! Limits: bus reservations of GC copies that cross the bus (copy-back off) stay where
//! they were placed, and completion times already reported (a write that triggered the
//! collection) are not revised; both err towards the GC side finishing sooner.

use super::Timing;
use crate::nand::{Cause, FlashOp, OpKind};
use std::collections::VecDeque;

/// Suspend latencies in use (from `[ftl.suspend]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SuspendParams {
    /// Time from a program-suspend command until the die takes a read, ns.
    pub program_ns: u64,
    /// The same for an erase, ns.
    pub erase_ns: u64,
}

/// What a segment of die time is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Not suspendable: host work, reads, mapping writes.
    Fixed,
    /// A GC program (or copy) a read may suspend.
    Program,
    /// A GC erase a read may suspend.
    Erase,
}

/// Die time `[start, end)` taken by one placed operation.
#[derive(Clone, Copy, Debug)]
struct Seg {
    start: u64,
    end: u64,
    kind: Kind,
}

/// Per-die segments of work not yet over, in time order.
#[derive(Clone, Debug)]
pub(super) struct State {
    p: SuspendParams,
    dies: Vec<VecDeque<Seg>>,
    /// Operations suspended for a read.
    pub(super) suspensions: u64,
    /// Reads placed ahead of GC work queued on their die (suspending or not).
    pub(super) reads_ahead: u64,
}

impl State {
    pub(super) fn new(p: SuspendParams, dies: usize) -> State {
        State {
            p,
            dies: vec![VecDeque::new(); dies],
            suspensions: 0,
            reads_ahead: 0,
        }
    }

    pub(super) fn clear(&mut self) {
        self.dies.iter_mut().for_each(VecDeque::clear);
    }

    /// Records that `die` is taken from `start` to `end` by an operation of `kind` that
    /// was ready at `ready` (no later read can be ready earlier: segments over by then
    /// go).
    fn record(&mut self, die: usize, ready: u64, start: u64, end: u64, kind: Kind) {
        let segs = &mut self.dies[die];
        while segs.front().is_some_and(|s| s.end <= ready) {
            segs.pop_front();
        }
        if end > start {
            segs.push_back(Seg { start, end, kind });
        }
    }
}

/// The kind of die time `op` takes.
fn kind_of(op: &FlashOp) -> Kind {
    if !matches!(op.cause, Cause::Gc | Cause::Wl) {
        return Kind::Fixed;
    }
    match op.kind {
        OpKind::Erase => Kind::Erase,
        OpKind::Program | OpKind::Copy { .. } | OpKind::CopyRun { .. } => Kind::Program,
        OpKind::Read => Kind::Fixed,
    }
}

impl Timing {
    /// [`Timing::apply`] with suspension: reads may go ahead of GC work on their die,
    /// every other operation is placed as usual and remembered.
    pub(super) fn apply_suspendable(&mut self, op: &FlashOp, ready_ns: u64) -> u64 {
        let die = self.die_of(op.addr);
        if op.kind == OpKind::Read
            && matches!(op.cause, Cause::Host | Cause::Map)
            && let Some(end) = self.read_ahead(op, die, ready_ns)
        {
            self.busy_until(end);
            return end;
        }
        let src_die = match op.kind {
            OpKind::Copy { src } | OpKind::CopyRun { src, .. } => Some(self.die_of(src)),
            _ => None,
        }
        .filter(|&d| d != die);
        let before = self.die_free_ns[die];
        let src_before = src_die.map(|d| self.die_free_ns[d]);
        let end = self.apply_op(op, ready_ns);
        self.busy_until(end);
        let kind = kind_of(op);
        let st = self.suspend.as_deref_mut().expect("suspension on");
        st.record(
            die,
            ready_ns,
            before.max(ready_ns),
            self.die_free_ns[die],
            kind,
        );
        if let (Some(d), Some(b)) = (src_die, src_before) {
            // A copy's source read on another die is not suspendable.
            st.record(
                d,
                ready_ns,
                b.max(ready_ns),
                self.die_free_ns[d],
                Kind::Fixed,
            );
        }
        end
    }

    /// Places host read `op` on `die` ahead of the work queued there, if any; returns
    /// its completion, or `None` when nothing is queued after the work in progress (the
    /// caller places it as usual, after that work).
    fn read_ahead(&mut self, op: &FlashOp, die: usize, ready_ns: u64) -> Option<u64> {
        let st = self.suspend.as_deref_mut().expect("suspension on");
        let p = st.p;
        let segs = &mut st.dies[die];
        while segs.front().is_some_and(|s| s.end <= ready_ns) {
            segs.pop_front();
        }
        // Where the read can start (`t`), before which segment (`at`), and whether it
        // splits that segment (suspends a running operation).
        let mut t = ready_ns;
        let mut at = segs.len();
        let mut split = false;
        for (i, s) in segs.iter().enumerate() {
            if s.end <= t {
                continue;
            }
            if s.start >= t {
                // Not started: the read goes first (read priority, as MQSim's
                // transaction scheduler serves a chip's read queue before its write
                // and GC queues).
                at = i;
                break;
            }
            let latency = match s.kind {
                // Host work in progress runs to its end.
                Kind::Fixed => {
                    t = s.end;
                    continue;
                }
                Kind::Erase => p.erase_ns,
                Kind::Program => p.program_ns,
            };
            if t + latency >= s.end {
                // It ends before it could be suspended: wait for it.
                t = s.end;
                continue;
            }
            t += latency;
            at = i;
            split = true;
            break;
        }
        if at == segs.len() {
            return None;
        }
        let read_ns = self.read_ns_at(op.addr);
        let end = self.bus_out(die, t + read_ns);
        self.busy_ns[op.cause as usize] += read_ns + self.p.transfer_ns;
        let st = self.suspend.as_deref_mut().expect("suspension on");
        st.reads_ahead += 1;
        let segs = &mut st.dies[die];
        let read = Seg {
            start: t,
            end,
            kind: Kind::Fixed,
        };
        let shift = if split {
            st.suspensions += 1;
            // The running operation stops at `t` and finishes its remainder after the
            // read.
            let s = segs[at];
            segs[at].end = t;
            segs.insert(
                at + 1,
                Seg {
                    start: end,
                    end: s.end + (end - t),
                    kind: s.kind,
                },
            );
            segs.insert(at + 1, read);
            for s in segs.iter_mut().skip(at + 3) {
                s.start += end - t;
                s.end += end - t;
            }
            end - t
        } else {
            let shift = end.saturating_sub(segs[at].start);
            for s in segs.iter_mut().skip(at) {
                s.start += shift;
                s.end += shift;
            }
            segs.insert(at, read);
            shift
        };
        let last = segs.back().map_or(end, |s| s.end);
        let free = &mut self.die_free_ns[die];
        *free = (*free + shift).max(last);
        Some(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nand::{Geometry, Ppn};
    use crate::timing::{Organisation, TimingParams};

    fn timing() -> Timing {
        let g = Geometry {
            channels: 1,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 8,
            pages_per_block: 4,
            page_size_bytes: 4096,
            oob_size_bytes: 128,
        };
        let p = TimingParams {
            read_ns: 50_000,
            program_ns: 500_000,
            erase_ns: 3_000_000,
            transfer_ns: 10_000,
            command_ns: 0,
            copyback: true,
            organisation: Organisation::Channels,
            pages_per_program: 1,
            slc: None,
        };
        Timing::new(&g, p).with_suspend(Some(SuspendParams {
            program_ns: 100_000,
            erase_ns: 400_000,
        }))
    }

    fn op(kind: OpKind, cause: Cause, addr: u32) -> FlashOp {
        FlashOp {
            kind,
            cause,
            addr: Ppn(addr),
        }
    }

    #[test]
    fn a_read_suspends_a_gc_erase_and_the_erase_finishes_later() {
        let mut t = timing();
        // GC: an erase of block 1 from 0 to 3 ms.
        assert_eq!(t.apply(&op(OpKind::Erase, Cause::Gc, 4), 0), 3_000_000);
        // A read at 1 ms waits for the suspend point (400 µs), then t_R and transfer.
        let end = t.apply(&op(OpKind::Read, Cause::Host, 0), 1_000_000);
        assert_eq!(end, 1_000_000 + 400_000 + 50_000 + 10_000);
        // The erase's remainder moved later by the read's 60 µs of die time.
        assert_eq!(t.die_free_ns[0], 3_000_000 + 60_000);
        assert_eq!(t.suspend.as_ref().unwrap().suspensions, 1);
    }

    #[test]
    fn a_read_goes_before_queued_gc_copies_and_waits_for_host_work() {
        let mut t = timing();
        // A host program (0..510 µs), then a GC copy chain of 4 pages (copy-back,
        // 550 µs each) from 510 µs on.
        let host_end = t.apply(&op(OpKind::Program, Cause::Host, 0), 0);
        assert_eq!(host_end, 510_000);
        let run = FlashOp {
            kind: OpKind::CopyRun {
                src: Ppn(4),
                pages: 4,
            },
            cause: Cause::Gc,
            addr: Ppn(8),
        };
        assert_eq!(t.apply(&run, 0), 510_000 + 4 * 550_000);
        // A read at 100 µs waits for the host program, then goes first: the chain has
        // not started, so nothing is suspended.
        let end = t.apply(&op(OpKind::Read, Cause::Host, 1), 100_000);
        assert_eq!(end, 510_000 + 60_000);
        assert_eq!(t.suspend.as_ref().unwrap().suspensions, 0);
        assert_eq!(t.die_free_ns[0], 510_000 + 60_000 + 4 * 550_000);
        // A second read goes right after the first, still ahead of the chain.
        let end = t.apply(&op(OpKind::Read, Cause::Host, 2), 100_000);
        assert!(end < t.die_free_ns[0]);
    }

    #[test]
    fn host_programs_are_never_suspended() {
        let mut t = timing();
        assert_eq!(t.apply(&op(OpKind::Program, Cause::Host, 0), 0), 510_000);
        let end = t.apply(&op(OpKind::Read, Cause::Host, 1), 100_000);
        assert_eq!(end, 510_000 + 60_000);
    }
}
