//! Greedy victim selection: the closed block with the fewest valid pages
//! (eNVy, Wu & Zwaenepoel, ASPLOS 1994).
//!
//! ```text
//! buckets[plane][v] = intrusive doubly linked list of candidates with v valid pages
//! invalidate(b): move b from bucket v+1 to v; min_hint = min(min_hint, v)
//! select(plane): scan buckets upward from min_hint; pop the head
//! ```
//! O(1) per invalidation and amortised O(1) per selection, no allocation.

use super::{PolicyParams, VictimPolicy};
use crate::nand::{BlockId, Geometry, Nand};

const NONE: u32 = u32::MAX;

/// Greedy policy state.
#[derive(Clone, Debug)]
pub struct Greedy {
    blocks_per_plane: u32,
    buckets_per_plane: usize,
    head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Bucket of each candidate, `NONE` when not a candidate.
    bucket: Vec<u32>,
    min_hint: Vec<u32>,
}

impl Greedy {
    #[inline]
    fn unlink(&mut self, b: u32) {
        let plane = (b / self.blocks_per_plane) as usize;
        let v = self.bucket[b as usize] as usize;
        let (p, n) = (self.prev[b as usize], self.next[b as usize]);
        if p == NONE {
            self.head[plane * self.buckets_per_plane + v] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
        self.bucket[b as usize] = NONE;
    }

    #[inline]
    fn link(&mut self, b: u32, v: u32) {
        let plane = (b / self.blocks_per_plane) as usize;
        let h = plane * self.buckets_per_plane + v as usize;
        let old = self.head[h];
        self.next[b as usize] = old;
        self.prev[b as usize] = NONE;
        if old != NONE {
            self.prev[old as usize] = b;
        }
        self.head[h] = b;
        self.bucket[b as usize] = v;
        if v < self.min_hint[plane] {
            self.min_hint[plane] = v;
        }
    }
}

impl VictimPolicy for Greedy {
    fn build(geo: &Geometry, _params: PolicyParams) -> Self {
        let buckets_per_plane = geo.pages_per_block as usize + 1;
        let blocks = geo.blocks() as usize;
        Greedy {
            blocks_per_plane: geo.blocks_per_plane,
            buckets_per_plane,
            head: vec![NONE; buckets_per_plane * geo.planes() as usize],
            next: vec![NONE; blocks],
            prev: vec![NONE; blocks],
            bucket: vec![NONE; blocks],
            min_hint: vec![0; geo.planes() as usize],
        }
    }

    fn on_close(&mut self, block: BlockId, valid: u32, _now: u64) {
        self.link(block.0, valid);
    }

    #[inline]
    fn on_invalidate(&mut self, block: BlockId, valid_after: u32, _now: u64) {
        if self.bucket[block.0 as usize] != NONE {
            self.unlink(block.0);
            self.link(block.0, valid_after);
        }
    }

    fn remove(&mut self, block: BlockId) {
        if self.bucket[block.0 as usize] != NONE {
            self.unlink(block.0);
        }
    }

    fn select(&mut self, plane: u32, _nand: &Nand, _now: u64) -> Option<BlockId> {
        let base = plane as usize * self.buckets_per_plane;
        let mut v = self.min_hint[plane as usize] as usize;
        while v < self.buckets_per_plane {
            let b = self.head[base + v];
            if b != NONE {
                self.min_hint[plane as usize] = v as u32;
                self.unlink(b);
                return Some(BlockId(b));
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
