//! Greedy victim selection: the closed block with the fewest valid pages
//! (eNVy, Wu & Zwaenepoel, ASPLOS 1994).
//!
//! ```text
//! stacks[plane][v] = blocks last seen with v valid pages (may hold stale entries)
//! close(b, v) / invalidate(b → v): bucket[b] = v; push b on stacks[plane][v]
//! select(plane): from the lowest non-empty stack, pop until an entry is current
//!                (b is a candidate and bucket[b] = v); return it
//! ```
//! Lazy deletion keeps an invalidation to one random write (`bucket[b]`) plus an append,
//! instead of the four or five scattered pointer updates of a doubly linked list — the
//! difference matters because invalidations hit random blocks of a large array. Stale
//! entries are dropped when popped, and all stacks are rebuilt from `bucket` whenever
//! they hold more than four entries per block, so memory stays O(blocks) and the cost
//! O(1) amortised. Ties go to the block that reached the count last (LIFO).

use super::{PolicyParams, VictimPolicy};
use crate::nand::{BlockId, Geometry, Nand};

const NONE: u32 = u32::MAX;

/// Greedy policy state.
#[derive(Clone, Debug)]
pub struct Greedy {
    blocks_per_plane: u32,
    buckets_per_plane: usize,
    stacks: Vec<Vec<u32>>,
    /// Current valid count of each candidate, `NONE` when not a candidate.
    bucket: Vec<u32>,
    min_hint: Vec<u32>,
    pub(super) entries: usize,
}

impl Greedy {
    #[inline]
    fn push(&mut self, b: u32, v: u32) {
        let plane = (b / self.blocks_per_plane) as usize;
        self.bucket[b as usize] = v;
        self.stacks[plane * self.buckets_per_plane + v as usize].push(b);
        if v < self.min_hint[plane] {
            self.min_hint[plane] = v;
        }
        self.entries += 1;
        if self.entries > 4 * self.bucket.len() + 1024 {
            self.compact();
        }
    }

    /// Rebuilds every stack from the current buckets, dropping stale entries. Keeps the
    /// relative order of current entries, so the choice among ties does not change.
    #[cold]
    fn compact(&mut self) {
        self.entries = 0;
        for (i, stack) in self.stacks.iter_mut().enumerate() {
            let v = (i % self.buckets_per_plane) as u32;
            let mut seen_last = std::collections::HashSet::new();
            // Keep only the newest entry of each current block (scan from the top).
            let mut kept: Vec<u32> = stack
                .iter()
                .rev()
                .copied()
                .filter(|&b| self.bucket[b as usize] == v && seen_last.insert(b))
                .collect();
            kept.reverse();
            self.entries += kept.len();
            *stack = kept;
        }
    }
}

impl VictimPolicy for Greedy {
    fn build(geo: &Geometry, _params: PolicyParams) -> Self {
        let buckets_per_plane = geo.pages_per_block as usize + 1;
        Greedy {
            blocks_per_plane: geo.blocks_per_plane,
            buckets_per_plane,
            stacks: vec![Vec::new(); buckets_per_plane * geo.planes() as usize],
            bucket: vec![NONE; geo.blocks() as usize],
            min_hint: vec![0; geo.planes() as usize],
            entries: 0,
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
            let stack = &mut self.stacks[base + v];
            while let Some(b) = stack.pop() {
                self.entries -= 1;
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
}
