//! FAB, the Flash-Aware Buffer: H. Jo, J.-U. Kang, S.-Y. Park, J.-S. Kim, J. Lee, "FAB:
//! flash-aware buffer management policy for portable media players", IEEE Trans. Consumer
//! Electronics 52(2), 2006 (docs/algorithms.md §5.3).
//!
//! Pages are grouped by logical block; the victim is the block with the most buffered
//! pages, and all of its pages leave together, so a log-block FTL can switch-merge full
//! blocks.
//!
//! ```text
//! write(p):  b = block(p); if p buffered: hit, b becomes the MRU block of its size
//!            else: if full: evict; add p to b (b moves to the MRU end of size |b|+1)
//! evict:     b = the LRU block among those with the most pages; write back all of b
//! ```
//! O(1): one LRU list of blocks per page count, and the largest non-empty count tracked.
//! Choices left open: ties between equally large blocks go to the least recently
//! referenced one; read hits are references (the block becomes MRU of its size); a
//! block left smaller by a TRIM becomes MRU of its new size.

use super::block::{BlockBuffer, BlockEviction};
use super::core::{Clusters, List};
use super::{
    BufferConfig, BufferPolicySpec, BufferShape, Level, WriteBuffer, block_level_bytes, no_keys,
};

/// The `fab` policy: its registry entry.
pub const SPEC: BufferPolicySpec = BufferPolicySpec {
    name: "fab",
    description: "FAB (Jo et al. 2006): evict all pages of the block with most buffered pages",
    level: Level::Block,
    counters: &[],
    memory_bytes: block_level_bytes,
    validate: no_keys,
    build,
};

fn build(_: &BufferConfig, shape: BufferShape) -> Box<dyn WriteBuffer> {
    Box::new(Fab::buffer(
        shape.capacity_pages,
        shape.block_pages,
        shape.logical_pages,
    ))
}

/// Flash-Aware Buffer: the victim picker of a [`BlockBuffer`].
#[derive(Clone)]
pub struct Fab {
    /// `by_size[c]`: blocks with `c` buffered pages, most recently referenced first.
    by_size: Vec<List>,
    /// Largest `c` with a non-empty list (0 when empty).
    max: usize,
}

impl Fab {
    /// An empty FAB buffer of `capacity` pages, blocks of `block_pages` pages.
    pub fn buffer(capacity: u32, block_pages: u32, logical_pages: u64) -> BlockBuffer<Fab> {
        let fab = Fab {
            by_size: vec![List::default(); block_pages as usize + 1],
            max: 0,
        };
        BlockBuffer::new(capacity, block_pages, logical_pages, fab)
    }

    fn fix_max(&mut self) {
        while self.max > 0 && self.by_size[self.max].is_empty() {
            self.max -= 1;
        }
    }
}

impl BlockEviction for Fab {
    const NAME: &'static str = "fab";

    /// A reference: the block becomes the MRU of its size.
    #[inline]
    fn access(&mut self, cl: &mut Clusters, n: u32, _write: bool) {
        let c = cl.count[n as usize] as usize;
        cl.links.move_to_front(&mut self.by_size[c], n);
    }

    fn added(&mut self, cl: &mut Clusters, n: u32, _off: u32, fresh: bool) {
        let c = cl.count[n as usize] as usize;
        if !fresh {
            cl.links.unlink(&mut self.by_size[c - 1], n);
        }
        cl.links.push_front(&mut self.by_size[c], n);
        self.max = self.max.max(c);
    }

    fn removed(&mut self, cl: &mut Clusters, n: u32, left: u32) {
        let c = left as usize;
        cl.links.unlink(&mut self.by_size[c + 1], n);
        if left > 0 {
            cl.links.push_front(&mut self.by_size[c], n);
        }
        self.fix_max();
    }

    fn victim(&mut self, cl: &mut Clusters) -> Option<u32> {
        let n = cl.links.pop_back(&mut self.by_size[self.max])?;
        self.fix_max();
        Some(n)
    }

    fn check(&self, cl: &Clusters) {
        let mut nodes = 0;
        for (c, l) in self.by_size.iter().enumerate() {
            cl.links.check(l);
            for n in cl.links.collect(l) {
                assert_eq!(
                    cl.count[n as usize] as usize, c,
                    "node {n} in wrong size list"
                );
                nodes += 1;
            }
            if !l.is_empty() {
                assert!(c <= self.max, "max {} below non-empty size {c}", self.max);
            }
        }
        assert_eq!(nodes, cl.nodes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::testutil::{drain, evict_once, victims};

    #[test]
    fn evicts_the_largest_block_whole_ties_lru() {
        // Blocks of 4 pages, 6 pages of buffer.
        let mut b = Fab::buffer(6, 4, 64);
        // Block 0 gets pages 0 1 2, block 1 pages 4 5, block 2 page 8: six pages.
        assert!(victims(&mut b, &[0, 4, 8, 1, 5, 2]).is_empty());
        // Page 9 (block 2) misses with the buffer full: the largest block, 0 (3 pages),
        // leaves whole, in page order.
        assert_eq!(victims(&mut b, &[9]), vec![0, 1, 2]);
        // Now block 1 = {4,5}, block 2 = {8,9}: a tie at 2 pages. Block 2 was referenced
        // last (page 9), so block 1 is the LRU of the two and goes first.
        assert_eq!(evict_once(&mut b), vec![4, 5]);
        // Block 3 gets page 12 and a hit on it, so it is the most recently referenced;
        // size still comes first: block 2 (2 pages) leaves before block 3 (1 page).
        assert!(victims(&mut b, &[12, 12]).is_empty());
        assert_eq!(drain(&mut b), vec![8, 9, 12]);
    }
}
