//! BPAC, Block-Page Adaptive Cache: G. Wu, B. Eckart, X. He, "BPAC: an adaptive write
//! buffer management scheme for flash-based solid state drives", IEEE MSST 2010; journal
//! version "An adaptive write buffer management scheme for flash-based SSDs", ACM TOS
//! (docs/algorithms.md §5.6).
//!
//! The buffer is split adaptively into a **page list** (pages with high temporal
//! locality, managed page by page in LRU order) and a **block list** (clusters of pages
//! with low temporal but high spatial locality, evicted a whole cluster at a time). The
//! papers' exact thresholds could not be retrieved ([R]); this file implements the
//! partition with ARC's feedback rule (Megiddo & Modha, FAST 2003), which is what
//! "adaptively partitioning" with a recency/frequency split amounts to:
//!
//! ```text
//! write(p) / read hit(p):
//!   p in page list:  move p to its MRU end                          (hit)
//!   p in block list: move p from its cluster to the page list's MRU end (hit: p shows
//!                    temporal locality)
//!   write miss:      if p was evicted recently from the block list: target += δ
//!                    if p was evicted recently from the page list:  target -= δ
//!                    if full: evict
//!                    p goes to the page list if it was a recent victim (it came back),
//!                    else to its cluster in the block list
//! evict: if the block list holds more than `target` pages (or the page list is empty):
//!            the largest cluster (ties: LRU) leaves whole; its pages become ghosts
//!        else the page list's LRU page leaves; it becomes a ghost
//! δ = max(1, |other ghost list| / |this ghost list|), as in ARC; target ∈ [0, capacity]
//! ```
//! Choices: each ghost list remembers up to `capacity` pages; the target starts at half
//! the buffer; the block list orders clusters like FAB (size, then recency). The
//! journal version's detection of low-spatial-locality clusters is not modelled.

use super::core::{Clusters, Ghosts, List, PageMap, PageSlots};
use super::{BufferConfig, BufferPolicySpec, BufferShape, Level, block_level_bytes, no_keys};
use super::{Evicted, Evictions, WriteBuffer};
use crate::nand::Lpn;
use crate::spec::{Counter, Counters};

/// The `bpac` policy: its registry entry.
pub const SPEC: BufferPolicySpec = BufferPolicySpec {
    name: "bpac",
    description: "BPAC (Wu et al. 2010): adaptive page list + block list with ghost feedback",
    level: Level::Block,
    counters: COUNTERS,
    memory_bytes: block_level_bytes,
    validate: no_keys,
    build,
};

fn build(_: &BufferConfig, shape: BufferShape) -> Box<dyn WriteBuffer> {
    Box::new(Bpac::new(
        shape.capacity_pages,
        shape.block_pages,
        shape.logical_pages,
    ))
}

/// Reported as `buffer.bpac.promotions`.
pub const PROMOTIONS: Counter = Counter::total(
    "buffer.bpac.promotions",
    "pages",
    "pages taken from the block list into the page list on a hit",
);
/// Reported as `buffer.bpac.ghost_hits_page_list`.
pub const GHOST_HITS_PAGE_LIST: Counter = Counter::total(
    "buffer.bpac.ghost_hits_page_list",
    "hits",
    "hits in the page list's ghost list (it grows)",
);
/// Reported as `buffer.bpac.ghost_hits_block_list`.
pub const GHOST_HITS_BLOCK_LIST: Counter = Counter::total(
    "buffer.bpac.ghost_hits_block_list",
    "hits",
    "hits in the block list's ghost list (it grows)",
);
/// Reported as `buffer.bpac.target_block_list_pages`.
pub const TARGET_BLOCK_LIST_PAGES: Counter = Counter::gauge(
    "buffer.bpac.target_block_list_pages",
    "pages",
    "the block list's target size at the end",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[
    PROMOTIONS,
    GHOST_HITS_PAGE_LIST,
    GHOST_HITS_BLOCK_LIST,
    TARGET_BLOCK_LIST_PAGES,
];

/// Block-Page Adaptive Cache.
#[derive(Clone)]
pub struct Bpac {
    /// Page list: slots and their LRU order (MRU first).
    pl_slots: PageSlots,
    pl: List,
    /// Block list: clusters ordered by size, then recency.
    bl: Clusters,
    by_size: Vec<List>,
    max: usize,
    /// Recently evicted pages of each list.
    ghost_pl: Ghosts,
    ghost_bl: Ghosts,
    /// Pages the block list may hold before evictions come from it.
    target_bl: u32,
    cap: u32,
    promotions: u64,
    ghost_hits_pl: u64,
    ghost_hits_bl: u64,
}

impl Bpac {
    /// An empty buffer of `capacity` pages, blocks of `block_pages` pages.
    pub fn new(capacity: u32, block_pages: u32, logical_pages: u64) -> Bpac {
        Bpac {
            pl_slots: PageSlots::new(capacity, logical_pages),
            pl: List::default(),
            bl: Clusters::new(capacity, block_pages, logical_pages),
            by_size: vec![List::default(); block_pages as usize + 1],
            max: 0,
            ghost_pl: Ghosts::new(capacity),
            ghost_bl: Ghosts::new(capacity),
            target_bl: capacity / 2,
            cap: capacity,
            promotions: 0,
            ghost_hits_pl: 0,
            ghost_hits_bl: 0,
        }
    }

    /// Current target size of the block list, pages (tests).
    pub fn target_block_pages(&self) -> u32 {
        self.target_bl
    }

    fn fix_max(&mut self) {
        while self.max > 0 && self.by_size[self.max].is_empty() {
            self.max -= 1;
        }
    }

    /// Takes page `off` out of cluster `n` (keeping the size lists right).
    fn take_from_cluster(&mut self, n: u32, off: u32) {
        let c = self.bl.count[n as usize] as usize;
        self.bl.links.unlink(&mut self.by_size[c], n);
        if self.bl.clear(n, off) == 0 {
            self.bl.release(n);
        } else {
            self.bl.links.push_front(&mut self.by_size[c - 1], n);
        }
        self.fix_max();
    }

    fn insert_in_page_list(&mut self, lpn: u32) {
        let s = self.pl_slots.alloc(lpn);
        self.pl_slots.links.push_front(&mut self.pl, s);
    }

    /// A reference to a buffered page: `true` if it was buffered.
    fn reference(&mut self, lpn: u32) -> bool {
        if let Some(s) = self.pl_slots.find(lpn) {
            self.pl_slots.links.move_to_front(&mut self.pl, s);
            return true;
        }
        match self.bl.locate_page(lpn) {
            Some((n, off)) => {
                self.take_from_cluster(n, off);
                self.insert_in_page_list(lpn);
                self.promotions += 1;
                true
            }
            None => false,
        }
    }
}

impl WriteBuffer for Bpac {
    fn name(&self) -> &'static str {
        "bpac"
    }

    fn capacity_pages(&self) -> u32 {
        self.cap
    }

    fn len_pages(&self) -> u32 {
        self.pl.len + self.bl.pages()
    }

    #[inline]
    fn prefetch(&self, lpn: Lpn) {
        self.pl_slots.map.prefetch(lpn.0);
        self.bl.prefetch(lpn.0);
    }

    fn contains(&self, lpn: Lpn) -> bool {
        self.pl_slots.find(lpn.0).is_some() || self.bl.contains(lpn.0)
    }

    fn write(&mut self, lpn: Lpn, out: &mut Evictions) -> bool {
        if self.reference(lpn.0) {
            return true;
        }
        let was_bl = self.ghost_bl.take(lpn.0);
        let was_pl = self.ghost_pl.take(lpn.0);
        if was_bl {
            // The block list was evicting pages that came back: give it more room.
            self.ghost_hits_bl += 1;
            let d = (self.ghost_pl.len() / self.ghost_bl.len().max(1)).max(1) as u32;
            self.target_bl = (self.target_bl + d).min(self.cap);
        }
        if was_pl {
            self.ghost_hits_pl += 1;
            let d = (self.ghost_bl.len() / self.ghost_pl.len().max(1)).max(1) as u32;
            self.target_bl = self.target_bl.saturating_sub(d);
        }
        if self.len_pages() == self.cap {
            self.evict(out);
        }
        if was_bl || was_pl {
            self.insert_in_page_list(lpn.0);
        } else {
            let (lbn, off) = self.bl.split(lpn.0);
            let n = match self.bl.find(lbn) {
                Some(n) => {
                    let c = self.bl.count[n as usize] as usize;
                    self.bl.links.unlink(&mut self.by_size[c], n);
                    n
                }
                None => self.bl.alloc(lbn),
            };
            self.bl.set(n, off);
            let c = self.bl.count[n as usize] as usize;
            self.bl.links.push_front(&mut self.by_size[c], n);
            self.max = self.max.max(c);
        }
        false
    }

    fn read(&mut self, lpn: Lpn) -> bool {
        self.reference(lpn.0)
    }

    fn remove(&mut self, lpn: Lpn) -> bool {
        if let Some(s) = self.pl_slots.find(lpn.0) {
            self.pl_slots.links.unlink(&mut self.pl, s);
            self.pl_slots.release(s);
            return true;
        }
        match self.bl.locate_page(lpn.0) {
            Some((n, off)) => {
                self.take_from_cluster(n, off);
                true
            }
            None => false,
        }
    }

    fn evict(&mut self, out: &mut Evictions) -> bool {
        let from_bl =
            self.bl.pages() > 0 && (self.pl.is_empty() || self.bl.pages() > self.target_bl);
        if from_bl {
            let n = self
                .bl
                .links
                .pop_back(&mut self.by_size[self.max])
                .expect("max list is non-empty");
            let start = out.pages.len();
            self.bl.drain(n, false, out);
            for e in &out.pages[start..] {
                self.ghost_bl.push(e.lpn);
            }
            self.fix_max();
            true
        } else if let Some(s) = self.pl_slots.links.pop_back(&mut self.pl) {
            let lpn = self.pl_slots.release(s);
            self.ghost_pl.push(lpn);
            out.push(Evicted { lpn, pad: false });
            true
        } else {
            false
        }
    }

    fn counters(&self, out: &mut Counters) {
        out.set(&PROMOTIONS, self.promotions);
        out.set(&GHOST_HITS_PAGE_LIST, self.ghost_hits_pl);
        out.set(&GHOST_HITS_BLOCK_LIST, self.ghost_hits_bl);
        out.set(&TARGET_BLOCK_LIST_PAGES, self.target_bl as u64);
    }

    fn check_invariants(&self) {
        self.pl_slots.links.check(&self.pl);
        assert_eq!(self.pl.len, self.pl_slots.len());
        self.bl.check();
        let mut nodes = 0;
        for (c, l) in self.by_size.iter().enumerate() {
            self.bl.links.check(l);
            for n in self.bl.links.collect(l) {
                assert_eq!(self.bl.count[n as usize] as usize, c);
                nodes += 1;
            }
            if !l.is_empty() {
                assert!(c <= self.max);
            }
        }
        assert_eq!(nodes, self.bl.nodes());
        for s in self.pl_slots.links.collect(&self.pl) {
            let lpn = self.pl_slots.lpn(s);
            assert!(!self.bl.contains(lpn), "page {lpn} in both lists");
        }
        assert!(self.target_bl <= self.cap);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::testutil::{drain, evict_once, victims};

    #[test]
    fn rereferenced_pages_move_to_the_page_list_and_clusters_leave_whole() {
        // Blocks of 4 pages, 6 pages of buffer; the block-list target starts at 3.
        let mut b = Bpac::new(6, 4, 64);
        // 0 1 2 (block 0), 4 (block 1), 8 9 (block 2) enter the block list. Then 1 is
        // written again: it moves to the page list (block 0 keeps {0,2}).
        assert!(victims(&mut b, &[0, 1, 2, 4, 8, 9, 1]).is_empty());
        // 12 misses on a full buffer; the block list holds 5 pages > target 3, so its
        // largest cluster leaves. Blocks 0 {0,2} and 2 {8,9} tie at 2 pages; block 0
        // became the most recent of size 2 when page 1 left it, so block 2 is the LRU of
        // the two and leaves whole.
        assert_eq!(victims(&mut b, &[12]), vec![8, 9]);
        // 8 comes back: a block-list ghost hit. The target grows by
        // max(1, |page ghosts| / |block ghosts|) = max(1, 0/1) = 1, to 4, and 8 goes
        // straight to the page list. 5 pages were buffered, so nothing is evicted.
        assert!(victims(&mut b, &[8]).is_empty());
        assert_eq!(b.target_block_pages(), 4);
        // Page list (MRU first): 8 1. Block list: {0,2}, {12}, {4} = 4 pages, not above
        // the target, so the next eviction takes the page list's LRU page, 1; then 8.
        assert_eq!(evict_once(&mut b), vec![1]);
        // With the page list empty the clusters go, largest first, then the LRU of the
        // one-page clusters (block 1, older than block 3).
        assert_eq!(drain(&mut b), vec![8, 0, 2, 4, 12]);
    }
}
