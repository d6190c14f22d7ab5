//! Greedy victim selection: the closed block with the fewest valid pages
//! (eNVy, Wu & Zwaenepoel, ASPLOS 1994).
//!
//! ```text
//! stacks[plane][v] = blocks last seen with v valid pages (may hold stale entries)
//! close(b, v) / invalidate(b → v): bucket[b] = v; push b on stacks[plane][v]
//! select(plane): from the lowest non-empty stack, pop until an entry is current
//!                (b is a candidate and bucket[b] = v); return it
//! ```
//! Lazy deletion keeps an invalidation to one random write (`bucket[b]`) plus an append
//! to a shared arena, instead of the four or five scattered pointer updates of a doubly
//! linked list — the difference matters because invalidations hit random blocks of a
//! large array. The stacks are singly linked lists threaded through that arena (one head
//! per plane and count), so a push writes the arena's hot tail and one head. Stale entries
//! are dropped when popped, and the arena is rebuilt from `bucket` whenever it holds more
//! than four entries per block, so memory stays O(blocks) and the cost O(1) amortised.
//! Ties go to the block that reached the count last (LIFO).

use super::{GcPolicySpec, PolicyParams, VictimPolicy};
use crate::nand::{BlockId, Geometry, Nand};

/// The `greedy` policy: its registry entry.
pub const SPEC: GcPolicySpec = GcPolicySpec::new::<Greedy>(
    "greedy",
    "fewest valid pages; O(1) via valid-count buckets",
    &[],
);

const NONE: u32 = u32::MAX;

/// Greedy policy state.
#[derive(Clone, Debug)]
pub struct Greedy {
    blocks_per_plane: u32,
    buckets_per_plane: usize,
    /// Head entry of each (plane, valid count) stack, `NONE` when empty.
    heads: Vec<u32>,
    /// (block, next entry) nodes of all stacks.
    arena: Vec<(u32, u32)>,
    /// Current valid count of each candidate, `NONE` when not a candidate.
    bucket: Vec<u32>,
    min_hint: Vec<u32>,
}

impl Greedy {
    #[inline]
    fn push(&mut self, b: u32, v: u32) {
        let plane = (b / self.blocks_per_plane) as usize;
        self.bucket[b as usize] = v;
        self.link(plane, b, v);
        if self.arena.len() > 4 * self.bucket.len() + 1024 {
            self.compact();
        }
    }

    #[inline]
    fn link(&mut self, plane: usize, b: u32, v: u32) {
        let h = plane * self.buckets_per_plane + v as usize;
        self.arena.push((b, self.heads[h]));
        self.heads[h] = (self.arena.len() - 1) as u32;
        if v < self.min_hint[plane] {
            self.min_hint[plane] = v;
        }
    }

    /// Rebuilds every stack from the current buckets, dropping stale entries (block order
    /// within a count afterwards, which is deterministic).
    #[cold]
    fn compact(&mut self) {
        self.arena.clear();
        self.heads.iter_mut().for_each(|h| *h = NONE);
        for b in 0..self.bucket.len() as u32 {
            let v = self.bucket[b as usize];
            if v != NONE {
                self.link((b / self.blocks_per_plane) as usize, b, v);
            }
        }
    }

    /// Entries in the arena (for tests of compaction).
    #[cfg(test)]
    pub(super) fn entries(&self) -> usize {
        self.arena.len()
    }
}

impl VictimPolicy for Greedy {
    fn build(geo: &Geometry, _params: PolicyParams) -> Self {
        let buckets_per_plane = geo.pages_per_block as usize + 1;
        Greedy {
            blocks_per_plane: geo.blocks_per_plane,
            buckets_per_plane,
            heads: vec![NONE; buckets_per_plane * geo.planes() as usize],
            arena: Vec::new(),
            bucket: vec![NONE; geo.blocks() as usize],
            min_hint: vec![0; geo.planes() as usize],
        }
    }

    fn on_close(&mut self, block: BlockId, valid: u32, _now: u64) {
        self.push(block.0, valid);
    }

    #[inline]
    fn on_invalidate(&mut self, block: BlockId, valid_after: u32, _now: u64) {
        if self.bucket[block.0 as usize] != NONE {
            self.push(block.0, valid_after);
        }
    }

    fn remove(&mut self, block: BlockId) {
        self.bucket[block.0 as usize] = NONE;
    }

    fn select(&mut self, plane: u32, _nand: &Nand, _now: u64) -> Option<BlockId> {
        let base = plane as usize * self.buckets_per_plane;
        let mut v = self.min_hint[plane as usize] as usize;
        while v < self.buckets_per_plane {
            let h = base + v;
            while self.heads[h] != NONE {
                let (b, next) = self.arena[self.heads[h] as usize];
                self.heads[h] = next;
                if self.bucket[b as usize] == v as u32 {
                    self.min_hint[plane as usize] = v as u32;
                    self.bucket[b as usize] = NONE;
                    return Some(BlockId(b));
                }
            }
            v += 1;
        }
        self.min_hint[plane as usize] = self.buckets_per_plane as u32;
        None
    }

    fn contains(&self, block: BlockId) -> bool {
        self.bucket[block.0 as usize] != NONE
    }

    fn peek(&self, plane: u32) -> Option<BlockId> {
        // `select` without popping: the first current entry from the lowest count up.
        // Stale entries are skipped, not dropped; give up after a few so a peek stays
        // cheap whatever the stacks hold.
        let base = plane as usize * self.buckets_per_plane;
        let mut budget = 64;
        for v in self.min_hint[plane as usize] as usize..self.buckets_per_plane {
            let mut e = self.heads[base + v];
            while e != NONE {
                let (b, next) = self.arena[e as usize];
                if self.bucket[b as usize] == v as u32 {
                    return Some(BlockId(b));
                }
                budget -= 1;
                if budget == 0 {
                    return None;
                }
                e = next;
            }
        }
        None
    }

    #[inline]
    fn prefetch(&self, block: BlockId) {
        crate::util::prefetch(&self.bucket, block.0 as usize);
    }
}
