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

use super::core::{Clusters, List};
use super::{Evictions, WriteBuffer};
use crate::nand::Lpn;

/// Flash-Aware Buffer.
#[derive(Clone)]
pub struct Fab {
    cl: Clusters,
    /// `by_size[c]`: blocks with `c` buffered pages, most recently referenced first.
    by_size: Vec<List>,
    /// Largest `c` with a non-empty list (0 when empty).
    max: usize,
    cap: u32,
}

impl Fab {
    /// An empty buffer of `capacity` pages, blocks of `block_pages` pages.
    pub fn new(capacity: u32, block_pages: u32, logical_pages: u64) -> Fab {
        Fab {
            cl: Clusters::new(capacity, block_pages, logical_pages),
            by_size: vec![List::default(); block_pages as usize + 1],
            max: 0,
            cap: capacity,
        }
    }

    fn fix_max(&mut self) {
        while self.max > 0 && self.by_size[self.max].is_empty() {
            self.max -= 1;
        }
    }

    /// A reference to block node `n` (already holding the page).
    #[inline]
    fn touch(&mut self, n: u32) {
        let c = self.cl.count[n as usize] as usize;
        self.cl.links.move_to_front(&mut self.by_size[c], n);
    }
}

impl WriteBuffer for Fab {
    fn name(&self) -> &'static str {
        "fab"
    }

    fn capacity_pages(&self) -> u32 {
        self.cap
    }

    fn len_pages(&self) -> u32 {
        self.cl.pages()
    }

    #[inline]
    fn prefetch(&self, lpn: Lpn) {
        self.cl.prefetch(lpn.0);
    }

    fn contains(&self, lpn: Lpn) -> bool {
        self.cl.contains(lpn.0)
    }

    fn write(&mut self, lpn: Lpn, out: &mut Evictions) -> bool {
        if let Some((n, _)) = self.cl.locate_page(lpn.0) {
            self.touch(n);
            return true;
        }
        let (lbn, off) = self.cl.split(lpn.0);
        if self.cl.pages() == self.cap {
            self.evict(out);
        }
        // Looked up again: the eviction may have taken this very block.
        let n = match self.cl.find(lbn) {
            Some(n) => {
                let c = self.cl.count[n as usize] as usize;
                self.cl.links.unlink(&mut self.by_size[c], n);
                n
            }
            None => self.cl.alloc(lbn),
        };
        self.cl.set(n, off);
        let c = self.cl.count[n as usize] as usize;
        self.cl.links.push_front(&mut self.by_size[c], n);
        self.max = self.max.max(c);
        false
    }

    fn read(&mut self, lpn: Lpn) -> bool {
        match self.cl.locate_page(lpn.0) {
            Some((n, _)) => {
                self.touch(n);
                true
            }
            None => false,
        }
    }

    fn remove(&mut self, lpn: Lpn) -> bool {
        let Some((n, off)) = self.cl.locate_page(lpn.0) else {
            return false;
        };
        let c = self.cl.count[n as usize] as usize;
        self.cl.links.unlink(&mut self.by_size[c], n);
        if self.cl.clear(n, off) == 0 {
            self.cl.release(n);
        } else {
            self.cl.links.push_front(&mut self.by_size[c - 1], n);
        }
        self.fix_max();
        true
    }

    fn evict(&mut self, out: &mut Evictions) -> bool {
        let Some(n) = self.cl.links.pop_back(&mut self.by_size[self.max]) else {
            return false;
        };
        self.cl.drain(n, false, out);
        self.fix_max();
        true
    }

    fn check_invariants(&self) {
        self.cl.check();
        let mut nodes = 0;
        for (c, l) in self.by_size.iter().enumerate() {
            self.cl.links.check(l);
            for n in self.cl.links.collect(l) {
                assert_eq!(
                    self.cl.count[n as usize] as usize, c,
                    "node {n} in wrong size list"
                );
                nodes += 1;
            }
            if !l.is_empty() {
                assert!(c <= self.max, "max {} below non-empty size {c}", self.max);
            }
        }
        assert_eq!(nodes, self.cl.nodes());
        assert!(self.cl.pages() <= self.cap);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::testutil::{drain, evict_once, victims};

    #[test]
    fn evicts_the_largest_block_whole_ties_lru() {
        // Blocks of 4 pages, 6 pages of buffer.
        let mut b = Fab::new(6, 4, 64);
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
