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

use super::block::{BlockBuffer, BlockEviction};
use super::core::{Clusters, List, NIL};
use super::{
    BufferConfig, BufferPolicySpec, BufferShape, Level, WriteBuffer, block_level_bytes, no_keys,
};
use crate::spec::{Counter, Counters};

/// The `bplru` policy: its registry entry.
pub const SPEC: BufferPolicySpec = BufferPolicySpec {
    name: "bplru",
    description: "BPLRU (Kim & Ahn, FAST 2008): block LRU, page padding, LRU compensation",
    level: Level::Block,
    counters: COUNTERS,
    memory_bytes: block_level_bytes,
    validate: no_keys,
    build,
};

fn build(cfg: &BufferConfig, shape: BufferShape) -> Box<dyn WriteBuffer> {
    Box::new(Bplru::buffer(
        shape.capacity_pages,
        shape.block_pages,
        shape.logical_pages,
        cfg.bplru_padding,
        cfg.bplru_compensation,
    ))
}

/// Reported as `buffer.bplru.compensations`.
pub const COMPENSATIONS: Counter = Counter::total(
    "buffer.bplru.compensations",
    "blocks",
    "blocks written sequentially in full, moved to the eviction end (LRU compensation)",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[COMPENSATIONS];

/// Block Padding LRU: the victim picker of a [`BlockBuffer`].
#[derive(Clone)]
pub struct Bplru {
    /// Blocks, most recently written first.
    list: List,
    /// Per node: the page offset the block's in-order run expects next, or NIL once the
    /// run is broken.
    seq_next: Vec<u32>,
    block_pages: u32,
    padding: bool,
    compensation: bool,
    compensations: u64,
}

impl Bplru {
    /// An empty BPLRU buffer of `capacity` pages, blocks of `block_pages` pages on a
    /// device of `logical_pages` pages.
    pub fn buffer(
        capacity: u32,
        block_pages: u32,
        logical_pages: u64,
        padding: bool,
        compensation: bool,
    ) -> BlockBuffer<Bplru> {
        let bplru = Bplru {
            list: List::default(),
            seq_next: vec![NIL; capacity as usize],
            block_pages,
            padding,
            compensation,
            compensations: 0,
        };
        BlockBuffer::new(capacity, block_pages, logical_pages, bplru)
    }
}

impl BlockEviction for Bplru {
    const NAME: &'static str = "bplru";

    #[inline]
    fn pads(&self) -> bool {
        self.padding
    }

    fn access(&mut self, cl: &mut Clusters, n: u32, write: bool) {
        if write {
            // A rewrite: not a sequential stream.
            self.seq_next[n as usize] = NIL;
        }
        cl.links.move_to_front(&mut self.list, n);
    }

    fn added(&mut self, cl: &mut Clusters, n: u32, off: u32, fresh: bool) {
        if fresh {
            self.seq_next[n as usize] = 0;
        } else {
            cl.links.unlink(&mut self.list, n);
        }
        let s = &mut self.seq_next[n as usize];
        *s = if *s == off { off + 1 } else { NIL };
        if self.compensation && *s == self.block_pages {
            cl.links.push_back(&mut self.list, n);
            self.compensations += 1;
        } else {
            cl.links.push_front(&mut self.list, n);
        }
    }

    fn removed(&mut self, cl: &mut Clusters, n: u32, left: u32) {
        self.seq_next[n as usize] = NIL;
        if left == 0 {
            cl.links.unlink(&mut self.list, n);
        }
    }

    fn victim(&mut self, cl: &mut Clusters) -> Option<u32> {
        let n = cl.links.pop_back(&mut self.list)?;
        self.seq_next[n as usize] = NIL;
        Some(n)
    }

    fn counters(&self, out: &mut Counters) {
        out.set(&COMPENSATIONS, self.compensations);
    }

    fn check(&self, cl: &Clusters) {
        cl.links.check(&self.list);
        assert_eq!(self.list.len, cl.nodes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::testutil::{drain, victims};
    use crate::buffer::{Evicted, Evictions, WriteBuffer};
    use crate::nand::Lpn;

    #[test]
    fn block_lru_with_padding_and_compensation() {
        // Blocks of 4 pages, 6 pages of buffer, a 64-page device.
        let mut b = Bplru::buffer(6, 4, 64, true, true);
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
        let mut b = Bplru::buffer(8, 4, 64, false, true);
        // Block 0: 0 1 1 2 3 — the rewrite of 1 breaks the run, so no compensation:
        // block 0 stays MRU after 3, block 1 (page 4, written first) is the LRU.
        victims(&mut b, &[4, 0, 1, 1, 2, 3]);
        // Without padding only buffered pages leave.
        assert_eq!(drain(&mut b), vec![4, 0, 1, 2, 3]);
    }
}
