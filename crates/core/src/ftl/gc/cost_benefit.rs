//! Cost-benefit victim selection for flash (Kawaguchi, Nishioka, Motoda, "A flash-memory
//! based file system", USENIX Winter 1995), after LFS (Rosenblum & Ousterhout, 1992).
//!
//! ```text
//! u   = valid / pages_per_block
//! age = now − last modification of the block (pages programmed as the clock)
//! select: a block with u = 0 at once; else max age·(1−u) / (2u)   (fully valid: never)
//!         ties: fewest valid pages, then lowest block number
//! ```
//! Reading only the live pages costs u and writing them back u, hence 2u.
//!
//! The paper's age is wall-clock time. The FTL has no clock of its own, so time here is
//! the number of pages programmed — host writes, GC copies, wear leveling and mapping
//! writes alike — since internal work occupies the device just as host writes do.
//! Counting host writes alone made time stand still through a burst of internal
//! writes: a DFTL collection that rewrites dozens of translation pages touched every
//! block of a plane at one instant, every such block scored 0, and the policy kept
//! moving old, nearly full blocks until the collection ran out of room. A block
//! touched at the current instant still scores 0; the tie-break then prefers the
//! emptiest block, as greedy would, and a fully valid block (which frees nothing) is
//! never a victim.
//!
//! A plain implementation scores every candidate of the plane for each victim, which made
//! cost-benefit the slowest part of large-device runs. Here the candidates of a plane are
//! kept in one queue per valid count, each ordered by last modification:
//!
//! ```text
//! close(b, v) / invalidate(b → v): unlink b; append b to queue[plane][v]
//! select(plane): score the head (oldest) of every non-empty queue; best = max
//!                winner = of the entries scoring best, fewest valid, then lowest number
//! ```
//! A block is appended with the current clock, which never decreases, so each queue is
//! ordered by age and, for a fixed valid count, the score only grows with age: the head
//! holds its queue's best score. Selection costs O(pages per block) instead of
//! O(blocks per plane). Ties are resolved over the entries of the emptiest queue that
//! reach the best score (a prefix of it), so the victim is the one a full scan picks.

use super::{GcPolicySpec, PolicyParams, VictimPolicy};
use crate::nand::{BlockId, Geometry, Nand};

/// The `cost-benefit` policy: its registry entry.
pub const SPEC: GcPolicySpec = GcPolicySpec::new::<CostBenefit>(
    "cost-benefit",
    "max age*(1-u)/2u (Kawaguchi et al., USENIX 1995)",
    &[],
);

const NONE: u32 = u32::MAX;

/// Cost-benefit policy state.
#[derive(Clone, Debug)]
pub struct CostBenefit {
    pages_per_block: u32,
    blocks_per_plane: u32,
    queues_per_plane: usize,
    /// (head, tail) of each (plane, valid count) queue, `NONE` when empty.
    ends: Vec<(u32, u32)>,
    /// (previous, next) neighbours of each queued block.
    links: Vec<(u32, u32)>,
    /// Valid count (queue) of each candidate, `NONE` when not a candidate.
    queue_of: Vec<u32>,
    last_modified: Vec<u64>,
}

impl CostBenefit {
    #[inline]
    fn unlink(&mut self, b: u32) {
        let v = self.queue_of[b as usize];
        if v == NONE {
            return;
        }
        let q = self.queue(b, v);
        let (prev, next) = self.links[b as usize];
        if prev == NONE {
            self.ends[q].0 = next;
        } else {
            self.links[prev as usize].1 = next;
        }
        if next == NONE {
            self.ends[q].1 = prev;
        } else {
            self.links[next as usize].0 = prev;
        }
        self.queue_of[b as usize] = NONE;
    }

    #[inline]
    fn append(&mut self, b: u32, v: u32, now: u64) {
        let q = self.queue(b, v);
        let tail = self.ends[q].1;
        debug_assert!(tail == NONE || self.last_modified[tail as usize] <= now);
        self.links[b as usize] = (tail, NONE);
        if tail == NONE {
            self.ends[q].0 = b;
        } else {
            self.links[tail as usize].1 = b;
        }
        self.ends[q].1 = b;
        self.queue_of[b as usize] = v;
    }

    #[inline]
    fn queue(&self, b: u32, v: u32) -> usize {
        (b / self.blocks_per_plane) as usize * self.queues_per_plane + v as usize
    }

    /// The policy's score of a block with `valid` valid pages, last modified at `t`.
    #[inline]
    fn score(&self, valid: u32, t: u64, now: u64) -> f64 {
        if valid == 0 {
            return f64::INFINITY;
        }
        let u = valid as f64 / self.pages_per_block as f64;
        let age = now.saturating_sub(t) as f64;
        age * (1.0 - u) / (2.0 * u)
    }
}

impl VictimPolicy for CostBenefit {
    fn build(geo: &Geometry, _params: PolicyParams) -> Self {
        let queues_per_plane = geo.pages_per_block as usize + 1;
        CostBenefit {
            pages_per_block: geo.pages_per_block,
            blocks_per_plane: geo.blocks_per_plane,
            queues_per_plane,
            ends: vec![(NONE, NONE); queues_per_plane * geo.planes() as usize],
            links: vec![(NONE, NONE); geo.blocks() as usize],
            queue_of: vec![NONE; geo.blocks() as usize],
            last_modified: vec![0; geo.blocks() as usize],
        }
    }

    fn on_close(&mut self, block: BlockId, valid: u32, now: u64) {
        self.unlink(block.0);
        self.last_modified[block.0 as usize] = now;
        self.append(block.0, valid, now);
    }

    #[inline]
    fn on_invalidate(&mut self, block: BlockId, valid_after: u32, now: u64) {
        self.last_modified[block.0 as usize] = now;
        if self.queue_of[block.0 as usize] != NONE {
            self.unlink(block.0);
            self.append(block.0, valid_after, now);
        }
    }

    fn remove(&mut self, block: BlockId) {
        self.unlink(block.0);
    }

    fn select(&mut self, plane: u32, nand: &Nand, now: u64) -> Option<BlockId> {
        let base = plane as usize * self.queues_per_plane;
        // A fully valid block frees nothing: never a victim (its queue is the last).
        let queues = base..base + self.queues_per_plane - 1;
        let mut best: Option<(f64, usize)> = None;
        for (v, q) in queues.enumerate() {
            let head = self.ends[q].0;
            if head != NONE {
                debug_assert_eq!(nand.valid_count(BlockId(head)), v as u32);
                let s = self.score(v as u32, self.last_modified[head as usize], now);
                if best.is_none_or(|(b, _)| s > b) {
                    best = Some((s, q));
                }
            }
        }
        let (best, q) = best?;
        // Ties go to the fewest valid pages (the first queue reaching `best`), then to
        // the lowest block number among that queue's entries scoring `best` (a prefix).
        let v = (q - base) as u32;
        let mut winner = NONE;
        let mut e = self.ends[q].0;
        while e != NONE && self.score(v, self.last_modified[e as usize], now) == best {
            winner = winner.min(e);
            e = self.links[e as usize].1;
        }
        self.unlink(winner);
        Some(BlockId(winner))
    }

    fn contains(&self, block: BlockId) -> bool {
        self.queue_of[block.0 as usize] != NONE
    }

    fn prefetch(&self, block: BlockId) {
        crate::util::prefetch(&self.queue_of, block.0 as usize);
        crate::util::prefetch(&self.links, block.0 as usize);
        crate::util::prefetch(&self.last_modified, block.0 as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nand::{Cause, Lpn, Ppn};
    use proptest::prelude::*;

    /// The plain scan: every candidate but the fully valid ones scored, ties to the
    /// fewest valid pages, then to the lowest block number.
    fn scan(cand: &[u32], nand: &Nand, last: &[u64], np: u32, now: u64) -> Option<u32> {
        let mut best: Option<(f64, (u32, u32))> = None;
        for &b in cand {
            let v = nand.valid_count(BlockId(b));
            if v == np {
                continue;
            }
            let s = if v == 0 {
                f64::INFINITY
            } else {
                let u = v as f64 / np as f64;
                now.saturating_sub(last[b as usize]) as f64 * (1.0 - u) / (2.0 * u)
            };
            let key = (v, b);
            if best.is_none_or(|(bs, bk)| s > bs || (s == bs && key < bk)) {
                best = Some((s, key));
            }
        }
        best.map(|(_, (_, b))| b)
    }

    #[derive(Clone, Debug)]
    enum Op {
        /// Program the next free block full and close it.
        Close,
        /// Invalidate the n-th valid page (mod the number of valid pages).
        Invalidate(usize),
        /// Advance the clock.
        Tick(u8),
        /// Select a victim in plane p and erase it.
        Select(u8),
        /// Remove the n-th candidate (as wear leveling does).
        Remove(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => Just(Op::Close),
            8 => any::<usize>().prop_map(Op::Invalidate),
            2 => (0u8..4).prop_map(Op::Tick),
            3 => (0u8..2).prop_map(Op::Select),
            1 => any::<usize>().prop_map(Op::Remove),
        ]
    }

    proptest! {
        /// The queues pick exactly what a full scan of the candidates picks, ties
        /// included (the clock often stands still, so many blocks share an age).
        #[test]
        fn queues_choose_what_a_full_scan_chooses(ops in prop::collection::vec(op(), 1..400)) {
            let geo = Geometry {
                channels: 1,
                chips_per_channel: 1,
                dies_per_chip: 1,
                planes_per_die: 2,
                blocks_per_plane: 12,
                pages_per_block: 4,
                page_size_bytes: 4096,
                oob_size_bytes: 128,
            };
            let np = geo.pages_per_block;
            let mut nand = Nand::new(geo, 1_000_000, false, true);
            let mut p = CostBenefit::build(&geo, PolicyParams { d: 2, seed: 1 });
            let mut cand: Vec<u32> = Vec::new();
            let mut last = vec![0u64; geo.blocks() as usize];
            let mut free: Vec<u32> = (0..geo.blocks()).rev().collect();
            let mut valid: Vec<Ppn> = Vec::new();
            let mut now = 0u64;
            for o in ops {
                match o {
                    Op::Close => {
                        let Some(b) = free.pop() else { continue };
                        for i in 0..np {
                            nand.program(Ppn(b * np + i), Lpn(b * np + i), Cause::Host);
                            valid.push(Ppn(b * np + i));
                        }
                        p.on_close(BlockId(b), np, now);
                        last[b as usize] = now;
                        cand.push(b);
                    }
                    Op::Invalidate(n) => {
                        if valid.is_empty() { continue; }
                        let ppn = valid.swap_remove(n % valid.len());
                        nand.invalidate(ppn);
                        let b = geo.block_of(ppn);
                        p.on_invalidate(b, nand.valid_count(b), now);
                        last[b.0 as usize] = now;
                    }
                    Op::Tick(t) => now += t as u64,
                    Op::Select(plane) => {
                        let pc: Vec<u32> = cand.iter().copied()
                            .filter(|&b| b / geo.blocks_per_plane == plane as u32).collect();
                        let want = scan(&pc, &nand, &last, np, now);
                        let got = p.select(plane as u32, &nand, now).map(|b| b.0);
                        prop_assert_eq!(got, want);
                        if let Some(b) = got {
                            prop_assert!(!p.contains(BlockId(b)));
                            cand.retain(|&c| c != b);
                            // Collection moves the live pages away: each old copy is
                            // invalidated (and the policy told) before the erase.
                            for q in valid.iter().filter(|q| geo.block_of(**q).0 == b) {
                                nand.invalidate(*q);
                                p.on_invalidate(BlockId(b), nand.valid_count(BlockId(b)), now);
                                last[b as usize] = now;
                            }
                            valid.retain(|q| geo.block_of(*q).0 != b);
                            nand.erase(BlockId(b), Cause::Gc);
                            free.insert(0, b);
                        }
                    }
                    Op::Remove(n) => {
                        if cand.is_empty() { continue; }
                        let b = cand.swap_remove(n % cand.len());
                        p.remove(BlockId(b));
                        prop_assert!(!p.contains(BlockId(b)));
                    }
                }
            }
        }
    }
}
