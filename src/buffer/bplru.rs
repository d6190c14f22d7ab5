//! BPLRU, Block Padding LRU: H. Kim, S. Ahn, "BPLRU: a buffer management scheme for
//! improving random writes in flash storage", USENIX FAST 2008 (docs/algorithms.md §5.4).
//!
//! ```text
//! write(p):  b = block(p); if p buffered: hit; else: if full: evict; add p to b
//!            if b has now been written completely, page 0 to the last page in order:
//!                move b to the LRU end               (LRU compensation)
//!            else: move b to the MRU end             (block-level LRU)
//! evict:     b = LRU block; for every page of b in order: write it back if buffered,
//!            else read it from flash and write it back ("page padding"), so a log-block
//!            FTL receives a whole block in order and can switch-merge
//! ```
//! Choices the paper leaves open or that a simulator must make:
//! - padding only covers pages that hold data on flash (the simulator skips never-written
//!   and trimmed pages) and stops at the end of the logical space; `bplru_padding =
//!   false` turns it off (the padding reads and programs are counted as such);
//! - "written sequentially" means the block's first write was page 0 and each later
//!   write the next page, with no rewrite in between; the block then goes to the LRU end
//!   once its last page arrives;
//! - read hits are references (the block moves to MRU); TRIM of a buffered page breaks
//!   the block's sequential run.

use super::core::{Clusters, List, NIL};
use super::{Evictions, WriteBuffer};
use crate::nand::Lpn;
use std::collections::BTreeMap;

/// Block Padding LRU.
#[derive(Clone)]
pub struct Bplru {
    cl: Clusters,
    /// Blocks, most recently written first.
    list: List,
    /// Per node: the page offset the block's in-order run expects next, or NIL once the
    /// run is broken.
    seq_next: Vec<u32>,
    padding: bool,
    compensation: bool,
    cap: u32,
    compensations: u64,
}

impl Bplru {
    /// An empty buffer of `capacity` pages, blocks of `block_pages` pages on a device of
    /// `logical_pages` pages.
    pub fn new(
        capacity: u32,
        block_pages: u32,
        logical_pages: u64,
        padding: bool,
        compensation: bool,
    ) -> Bplru {
        Bplru {
            cl: Clusters::new(capacity, block_pages, logical_pages),
            list: List::default(),
            seq_next: vec![NIL; capacity as usize],
            padding,
            compensation,
            cap: capacity,
            compensations: 0,
        }
    }
}

impl WriteBuffer for Bplru {
    fn name(&self) -> &'static str {
        "bplru"
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
            // A rewrite: not a sequential stream.
            self.seq_next[n as usize] = NIL;
            self.cl.links.move_to_front(&mut self.list, n);
            return true;
        }
        let (lbn, off) = self.cl.split(lpn.0);
        if self.cl.pages() == self.cap {
            self.evict(out);
        }
        let n = match self.cl.find(lbn) {
            Some(n) => {
                self.cl.links.unlink(&mut self.list, n);
                n
            }
            None => {
                let n = self.cl.alloc(lbn);
                self.seq_next[n as usize] = 0;
                n
            }
        };
        let s = &mut self.seq_next[n as usize];
        *s = if *s == off { off + 1 } else { NIL };
        self.cl.set(n, off);
        if self.compensation && *s == self.cl.block_pages() {
            self.cl.links.push_back(&mut self.list, n);
            self.compensations += 1;
        } else {
            self.cl.links.push_front(&mut self.list, n);
        }
        false
    }

    fn read(&mut self, lpn: Lpn) -> bool {
        match self.cl.locate_page(lpn.0) {
            Some((n, _)) => {
                self.cl.links.move_to_front(&mut self.list, n);
                true
            }
            None => false,
        }
    }

    fn remove(&mut self, lpn: Lpn) -> bool {
        let Some((n, off)) = self.cl.locate_page(lpn.0) else {
            return false;
        };
        self.seq_next[n as usize] = NIL;
        if self.cl.clear(n, off) == 0 {
            self.cl.links.unlink(&mut self.list, n);
            self.cl.release(n);
        }
        true
    }

    fn evict(&mut self, out: &mut Evictions) -> bool {
        let Some(n) = self.cl.links.pop_back(&mut self.list) else {
            return false;
        };
        self.seq_next[n as usize] = NIL;
        self.cl.drain(n, self.padding, out);
        true
    }

    fn counters(&self, out: &mut BTreeMap<String, u64>) {
        out.insert("buffer.bplru.compensations".into(), self.compensations);
    }

    fn check_invariants(&self) {
        self.cl.check();
        self.cl.links.check(&self.list);
        assert_eq!(self.list.len, self.cl.nodes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::Evicted;
    use crate::buffer::testutil::{drain, victims};

    #[test]
    fn block_lru_with_padding_and_compensation() {
        // Blocks of 4 pages, 6 pages of buffer, a 64-page device.
        let mut b = Bplru::new(6, 4, 64, true, true);
        // Block 1 gets 5, block 0 gets 0 and 2, block 2 gets 9, block 1 gets 6 (block 1
        // becomes MRU again). Block LRU order, MRU first: 1 2 0.
        assert!(victims(&mut b, &[5, 0, 2, 9, 6]).is_empty());
        // Page 13 fills the sixth slot; page 14 then misses on a full buffer: the LRU
        // block, 0, leaves whole: pages 0 and 2 dirty, 1 and 3 as padding.
        assert!(victims(&mut b, &[13]).is_empty());
        let mut out = Evictions::default();
        assert!(!b.write(Lpn(14), &mut out));
        let got: Vec<Evicted> = out.pages.clone();
        let want =
            [(0, false), (1, true), (2, false), (3, true)].map(|(lpn, pad)| Evicted { lpn, pad });
        assert_eq!(got, want);
        // Five pages are left (5 6 9 13 14). Block 4 is written 16 17 18 19, in order:
        // 16 fills the sixth slot; 17 and 18 miss on a full buffer and evict the LRU
        // blocks, 2 ({9}) then 1 ({5,6}); 19 fits. The buffer holds block 3 {13,14} and
        // block 4 {16..19}, which is complete and sequential, so it went to the LRU end.
        assert_eq!(victims(&mut b, &[16, 17, 18, 19]), vec![9, 5, 6]);
        // Compensation: block 4, though written last, leaves before block 3.
        assert_eq!(drain(&mut b), vec![16, 17, 18, 19, 13, 14]);
    }

    #[test]
    fn a_rewrite_breaks_the_sequential_run_and_padding_can_be_off() {
        let mut b = Bplru::new(8, 4, 64, false, true);
        // Block 0: 0 1 1 2 3 — the rewrite of 1 breaks the run, so no compensation:
        // block 0 stays MRU after 3, block 1 (page 4, written first) is the LRU.
        victims(&mut b, &[4, 0, 1, 1, 2, 3]);
        // Without padding only buffered pages leave.
        assert_eq!(drain(&mut b), vec![4, 0, 1, 2, 3]);
    }
}
