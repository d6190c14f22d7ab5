//! The device's command queue (SATA NCQ / NVMe submission queue): commands wait here
//! between their arrival and their dispatch to the write buffer, in the order the
//! configured [`DispatchOrder`] picks.
//!
//! The queue only matters with a write buffer: without one the simulator dispatches
//! every command at once and the flash dies act as the queue (see [`crate::sim`]). With
//! one, the buffer's front end admits one command at a time; the commands still waiting
//! are the future references that QLRU exploits.

use crate::workload::{IoRequest, OpKind};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Which waiting command the device takes next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DispatchOrder {
    /// Oldest first.
    #[default]
    Fifo,
    /// The oldest command served entirely from DRAM (a read or write whose pages are all
    /// buffered), if it overlaps no older waiting command that writes, trims or flushes
    /// (so data never changes order); otherwise the oldest. Finding it costs a buffer
    /// lookup per page of each waiting command examined.
    HitsFirst,
}

impl DispatchOrder {
    /// Names and descriptions, for `ssdlab list`.
    pub fn all() -> &'static [(DispatchOrder, &'static str, &'static str)] {
        &[
            (DispatchOrder::Fifo, "fifo", "oldest command first"),
            (
                DispatchOrder::HitsFirst,
                "hits-first",
                "commands served entirely from the write buffer first, keeping data order",
            ),
        ]
    }
}

/// A command waiting in the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueuedCommand {
    /// The request.
    pub req: IoRequest,
    /// When it arrived at the host (latency is measured from here).
    pub arrival_ns: u64,
    /// When it entered the device queue (the earliest it can be dispatched).
    pub issue_ns: u64,
    /// First logical page it touches.
    pub first_lpn: u32,
    /// Pages it touches (0 for FLUSH).
    pub pages: u32,
}

impl QueuedCommand {
    fn overlaps(&self, o: &QueuedCommand) -> bool {
        self.first_lpn < o.first_lpn + o.pages && o.first_lpn < self.first_lpn + self.pages
    }

    /// Whether it changes data (writes, trims) or orders everything (flush).
    fn mutates(&self) -> bool {
        self.req.op != OpKind::Read
    }
}

/// Commands waiting for dispatch, oldest first.
#[derive(Clone, Debug, Default)]
pub struct Ncq {
    waiting: VecDeque<QueuedCommand>,
    order: DispatchOrder,
    reordered: u64,
}

impl Ncq {
    /// An empty queue for up to `depth` commands.
    pub fn new(depth: usize, order: DispatchOrder) -> Ncq {
        Ncq {
            waiting: VecDeque::with_capacity(depth),
            order,
            reordered: 0,
        }
    }

    /// Commands waiting.
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    /// Whether none waits.
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// The oldest waiting command.
    pub fn front(&self) -> Option<&QueuedCommand> {
        self.waiting.front()
    }

    /// The newest waiting command.
    pub fn back(&self) -> Option<&QueuedCommand> {
        self.waiting.back()
    }

    /// Commands dispatched ahead of an older one.
    pub fn reordered(&self) -> u64 {
        self.reordered
    }

    /// Appends an arriving command.
    pub fn push(&mut self, c: QueuedCommand) {
        self.waiting.push_back(c);
    }

    /// Takes the next command to dispatch; `buffered(lpn)` says whether a page is in the
    /// write buffer (used by [`DispatchOrder::HitsFirst`]).
    pub fn pop(&mut self, buffered: impl Fn(u32) -> bool) -> Option<QueuedCommand> {
        if self.order == DispatchOrder::HitsFirst {
            for i in 0..self.waiting.len() {
                let c = &self.waiting[i];
                let from_dram = matches!(c.req.op, OpKind::Read | OpKind::Write)
                    && (c.first_lpn..c.first_lpn + c.pages).all(&buffered);
                if !from_dram {
                    continue;
                }
                let blocked = self.waiting.range(..i).any(|o| {
                    o.req.op == OpKind::Flush || ((o.mutates() || c.mutates()) && o.overlaps(c))
                });
                if !blocked {
                    self.reordered += (i > 0) as u64;
                    return self.waiting.remove(i);
                }
            }
        }
        self.waiting.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(op: OpKind, first_lpn: u32, pages: u32) -> QueuedCommand {
        QueuedCommand {
            req: IoRequest {
                arrival_ns: 0,
                device: 0,
                offset_bytes: first_lpn as u64 * 4096,
                size_bytes: pages as u64 * 4096,
                op,
            },
            arrival_ns: 0,
            issue_ns: 0,
            first_lpn,
            pages,
        }
    }

    #[test]
    fn hits_first_jumps_only_over_non_conflicting_commands() {
        let buffered = |l: u32| (10..20).contains(&l);
        let mut q = Ncq::new(8, DispatchOrder::HitsFirst);
        q.push(cmd(OpKind::Write, 0, 2)); // pages 0 and 1: not buffered
        q.push(cmd(OpKind::Read, 1, 1)); // page 1: not buffered
        q.push(cmd(OpKind::Write, 12, 2)); // all buffered, overlaps nothing older
        q.push(cmd(OpKind::Read, 12, 1)); // buffered; must not pass the write of 12
        // The write of 12..14 jumps ahead; then the read of 12, whose only overlapping
        // older command (that write) has gone.
        assert_eq!(q.pop(buffered).unwrap().first_lpn, 12);
        assert_eq!(q.pop(buffered).unwrap().req.op, OpKind::Read);
        assert_eq!(q.len(), 2);
        assert_eq!(q.reordered(), 2);
        // Write 0..2 and read 1 are both misses: FIFO.
        assert_eq!(q.pop(buffered).unwrap().first_lpn, 0);
        assert_eq!(q.pop(buffered).unwrap().first_lpn, 1);
        // A flush is a barrier: nothing passes it.
        q.push(cmd(OpKind::Write, 0, 1));
        q.push(cmd(OpKind::Flush, 0, 0));
        q.push(cmd(OpKind::Write, 15, 1));
        assert_eq!(q.pop(buffered).unwrap().first_lpn, 0);
        assert_eq!(q.pop(buffered).unwrap().req.op, OpKind::Flush);
        assert_eq!(q.pop(buffered).unwrap().first_lpn, 15);
        // A read of buffered page 10 cannot pass an older write of 9..11 (partly a miss).
        q.push(cmd(OpKind::Write, 9, 2));
        q.push(cmd(OpKind::Read, 10, 1));
        assert_eq!(q.pop(buffered).unwrap().first_lpn, 9);
        assert_eq!(q.pop(buffered).unwrap().first_lpn, 10);
        assert_eq!(q.reordered(), 2);
        // FIFO never reorders.
        let mut f = Ncq::new(4, DispatchOrder::Fifo);
        f.push(cmd(OpKind::Write, 0, 1));
        f.push(cmd(OpKind::Write, 12, 1));
        assert_eq!(f.pop(buffered).unwrap().first_lpn, 0);
    }
}
