//! ExLRU, Expectation-based LRU: L. Shi, J. Li, C. J. Xue, C. Yang, X. Zhou, "ExLRU: a
//! unified write buffer cache management for flash memory", EMSOFT 2011 (extended in IEEE
//! TVLSI 22(12), 2014); docs/algorithms.md §5.7. Block-granular like BPLRU, size-aware like FAB.
//!
//! The paper keeps per-block access history and evicts the data with the smallest
//! expected write cost. Its exact cost formula could not be retrieved ([R]); this file
//! implements the following reading, documented in docs/buffer.md:
//!
//! ```text
//! per buffered block b: refs(b) = references since b entered the buffer,
//!                       age(b)  = references (to any page) since b entered, + 1,
//!                       n(b)    = buffered pages of b
//! expected future references per buffered page:  E(b) = refs(b) / (age(b) · n(b))
//! write(p) / read hit(p): refs(block(p)) += 1; block(p) moves to the MRU end
//! evict:  among the W least recently used blocks, the one with the smallest E(b)
//!         (ties: the least recently used); all its pages leave together
//! ```
//! `refs/age` is the block's observed reference rate (frequency over its residence:
//! LFU-like history), dividing by `n` charges it for the space it occupies (big, cold
//! blocks go first, as in FAB), and the window `W` (`buffer.exlru_window`, 16 by default)
//! keeps the recency of LRU, as the name says. With W = 1 ExLRU is block LRU (BPLRU
//! without padding or compensation).

use super::block::{BlockBuffer, BlockEviction};
use super::core::{Clusters, List, NIL};
use super::{
    BufferConfig, BufferPolicySpec, BufferShape, Level, MAX_EXLRU_WINDOW, WriteBuffer,
    block_level_bytes,
};
use crate::spec::{ConfigError, check_range};

/// The `exlru` policy: its registry entry.
pub const SPEC: BufferPolicySpec = BufferPolicySpec {
    name: "exlru",
    description: "ExLRU (Shi et al. 2011): among the LRU-most blocks evict the least expected reuse per page",
    level: Level::Block,
    counters: &[],
    memory_bytes: block_level_bytes,
    validate,
    build,
};

/// `buffer.exlru_window` is at least one block and bounds the work per eviction.
fn validate(cfg: &BufferConfig) -> Result<(), ConfigError> {
    check_range(
        "buffer.exlru_window",
        cfg.exlru_window,
        1,
        MAX_EXLRU_WINDOW,
        "LRU-end blocks examined per eviction",
    )
}

fn build(cfg: &BufferConfig, shape: BufferShape) -> Box<dyn WriteBuffer> {
    Box::new(ExLru::buffer(
        shape.capacity_pages,
        shape.block_pages,
        shape.logical_pages,
        cfg.exlru_window,
    ))
}

/// Expectation-based LRU: the victim picker of a [`BlockBuffer`].
#[derive(Clone)]
pub struct ExLru {
    /// Blocks, most recently referenced first.
    list: List,
    refs: Vec<u32>,
    /// Reference clock when each node entered.
    born: Vec<u64>,
    clock: u64,
    window: u32,
}

impl ExLru {
    /// An empty ExLRU buffer of `capacity` pages, blocks of `block_pages` pages,
    /// examining `window` blocks per eviction.
    pub fn buffer(
        capacity: u32,
        block_pages: u32,
        logical_pages: u64,
        window: u32,
    ) -> BlockBuffer<ExLru> {
        let exlru = ExLru {
            list: List::default(),
            refs: vec![0; capacity as usize],
            born: vec![0; capacity as usize],
            clock: 0,
            window: window.max(1),
        };
        BlockBuffer::new(capacity, block_pages, logical_pages, exlru)
    }

    /// Whether node `a` is expected to be referenced less per page than node `b`:
    /// refs_a / (age_a · n_a) < refs_b / (age_b · n_b), compared exactly by
    /// cross-multiplying.
    fn colder(&self, cl: &Clusters, a: u32, b: u32) -> bool {
        let term = |n: u32| {
            let i = n as usize;
            let age = (self.clock - self.born[i] + 1) as u128;
            (self.refs[i] as u128, age * cl.count[i] as u128)
        };
        let (ra, da) = term(a);
        let (rb, db) = term(b);
        ra * db < rb * da
    }

    fn reference(&mut self, cl: &mut Clusters, n: u32) {
        self.refs[n as usize] += 1;
        self.clock += 1;
        cl.links.move_to_front(&mut self.list, n);
    }
}

impl BlockEviction for ExLru {
    const NAME: &'static str = "exlru";

    fn access(&mut self, cl: &mut Clusters, n: u32, _write: bool) {
        self.reference(cl, n);
    }

    fn added(&mut self, cl: &mut Clusters, n: u32, _off: u32, fresh: bool) {
        if fresh {
            self.refs[n as usize] = 0;
            self.born[n as usize] = self.clock;
            cl.links.push_front(&mut self.list, n);
        }
        self.reference(cl, n);
    }

    fn removed(&mut self, cl: &mut Clusters, n: u32, left: u32) {
        if left == 0 {
            cl.links.unlink(&mut self.list, n);
        }
    }

    fn victim(&mut self, cl: &mut Clusters) -> Option<u32> {
        let mut best = self.list.tail;
        if best == NIL {
            return None;
        }
        let mut i = cl.links.prev(best);
        let mut seen = 1;
        while i != NIL && seen < self.window {
            // Strictly colder only: ties stay with the less recently used block.
            if self.colder(cl, i, best) {
                best = i;
            }
            i = cl.links.prev(i);
            seen += 1;
        }
        cl.links.unlink(&mut self.list, best);
        Some(best)
    }

    fn check(&self, cl: &Clusters) {
        cl.links.check(&self.list);
        assert_eq!(self.list.len, cl.nodes());
        for n in cl.links.collect(&self.list) {
            assert!(self.refs[n as usize] >= cl.count[n as usize]);
            assert!(self.born[n as usize] <= self.clock);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::testutil::{drain, evict_once, victims};

    #[test]
    fn evicts_the_least_expected_reuse_per_page_within_the_window() {
        // Blocks of 4 pages, 6 pages of buffer, window of 3 blocks.
        let mut b = ExLru::buffer(6, 4, 64, 3);
        // References in order (clock before each): 0@0 0@1 0@2 → block 0: refs 3, born 0,
        // 1 page. 4@3 5@4 → block 1: refs 2, born 3, 2 pages. 8@5 → block 2: refs 1,
        // born 5, 1 page. 12@6 → block 3: refs 1, born 6. Clock is now 7.
        assert!(victims(&mut b, &[0, 0, 0, 4, 5, 8, 12]).is_empty());
        // Evict with the LRU-most three blocks 0, 1, 2 in the window:
        //   E(0) = 3 / ((7-0+1) · 1) = 3/8   = 0.375
        //   E(1) = 2 / ((7-3+1) · 2) = 2/10  = 0.2
        //   E(2) = 1 / ((7-5+1) · 1) = 1/3   ≈ 0.333
        // Block 1 (two pages, each referenced once) is the coldest per page; plain block
        // LRU would have taken block 0, which is hot.
        assert_eq!(evict_once(&mut b), vec![4, 5]);
        // Window of 1 = block LRU: the LRU block, 0, goes first regardless of history.
        let mut lru = ExLru::buffer(6, 4, 64, 1);
        victims(&mut lru, &[0, 0, 0, 4, 5, 8, 12]);
        assert_eq!(drain(&mut lru), vec![0, 4, 5, 8, 12]);
    }
}
