//! CLC, Cold and Largest Cluster: S. Kang, S. Park, H. Jung, H. Shim, J. Cha,
//! "Performance trade-offs in using NVRAM write buffer for flash memory-based storage
//! devices", IEEE Trans. Computers 58(6), 2009 (docs/algorithms.md §5.5). It combines FAB
//! (evict large clusters) with BPLRU (block recency).
//!
//! ```text
//! clusters = buffered pages of one logical block
//! write(p) / read hit(p): c = cluster(p) (new if needed; p added on a miss, after
//!           evicting if full); c moves to the MRU end of the size-independent LRU region
//!           while that region holds more than its share of pages (and more than one
//!           cluster): its LRU cluster moves to the size-dependent region
//! evict:    the largest cluster of the size-dependent region (ties: least recently
//!           demoted or referenced); if that region is empty, the LRU cluster
//! ```
//! Choices the description leaves open ([R] in docs/algorithms.md): the size-independent
//! region's share of the buffer, `buffer.clc_lru_percent`, defaults to 10% of the pages
//! (the paper tunes it; sweep it); a cluster referenced while in the size-dependent
//! region returns to the LRU region's MRU end; the most recent cluster always stays in the
//! LRU region, even when it alone exceeds the share.

use super::block::{BlockBuffer, BlockEviction};
use super::core::{Clusters, List};
use super::{BufferConfig, BufferPolicySpec, BufferShape, Level, WriteBuffer, block_level_bytes};
use crate::spec::{ConfigError, check_f64};
use crate::spec::{Counter, Counters};

/// The `clc` policy: its registry entry.
pub const SPEC: BufferPolicySpec = BufferPolicySpec {
    name: "clc",
    description: "CLC (Kang et al. 2009): LRU region of clusters, then evict the largest cold cluster",
    level: Level::Block,
    counters: COUNTERS,
    memory_bytes: block_level_bytes,
    validate,
    build,
};

/// `buffer.clc_lru_percent` is a share of the buffer.
fn validate(cfg: &BufferConfig) -> Result<(), ConfigError> {
    check_f64(
        "buffer.clc_lru_percent",
        cfg.clc_lru_percent,
        0.0,
        100.0,
        "percent of the buffer's pages",
    )
}

fn build(cfg: &BufferConfig, shape: BufferShape) -> Box<dyn WriteBuffer> {
    Box::new(Clc::buffer(
        shape.capacity_pages,
        shape.block_pages,
        shape.logical_pages,
        cfg.clc_lru_percent,
    ))
}

/// Reported as `buffer.clc.demotions`.
pub const DEMOTIONS: Counter = Counter::total(
    "buffer.clc.demotions",
    "clusters",
    "clusters demoted from the LRU part to the size-ordered part",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[DEMOTIONS];

/// Cold and Largest Cluster: the victim picker of a [`BlockBuffer`].
#[derive(Clone)]
pub struct Clc {
    /// Size-independent region, most recent first.
    lru: List,
    /// Pages of the clusters in `lru`.
    lru_pages: u32,
    /// Most pages `lru` keeps before demoting.
    lru_limit: u32,
    /// Size-dependent region: `by_size[c]` holds clusters of `c` pages, most recent first.
    by_size: Vec<List>,
    /// Largest non-empty size (0 when the region is empty).
    max: usize,
    in_lru: Vec<bool>,
    demotions: u64,
}

impl Clc {
    /// An empty CLC buffer of `capacity` pages, blocks of `block_pages` pages, with
    /// `lru_percent` % of the pages for the size-independent region.
    pub fn buffer(
        capacity: u32,
        block_pages: u32,
        logical_pages: u64,
        lru_percent: f64,
    ) -> BlockBuffer<Clc> {
        let clc = Clc {
            lru: List::default(),
            lru_pages: 0,
            lru_limit: (capacity as f64 * lru_percent / 100.0).ceil() as u32,
            by_size: vec![List::default(); block_pages as usize + 1],
            max: 0,
            in_lru: vec![false; capacity as usize],
            demotions: 0,
        };
        BlockBuffer::new(capacity, block_pages, logical_pages, clc)
    }

    fn fix_max(&mut self) {
        while self.max > 0 && self.by_size[self.max].is_empty() {
            self.max -= 1;
        }
    }

    /// Takes node `n`, holding `c` pages, off whichever region holds it.
    fn detach(&mut self, cl: &mut Clusters, n: u32, c: u32) {
        if self.in_lru[n as usize] {
            cl.links.unlink(&mut self.lru, n);
            self.lru_pages -= c;
        } else {
            cl.links.unlink(&mut self.by_size[c as usize], n);
            self.fix_max();
        }
    }

    /// Puts detached node `n` at the LRU region's MRU end, then demotes the excess.
    fn enter_lru_front(&mut self, cl: &mut Clusters, n: u32) {
        cl.links.push_front(&mut self.lru, n);
        self.lru_pages += cl.count[n as usize];
        self.in_lru[n as usize] = true;
        while self.lru_pages > self.lru_limit && self.lru.len > 1 {
            let t = cl.links.pop_back(&mut self.lru).expect("non-empty");
            let c = cl.count[t as usize];
            self.lru_pages -= c;
            cl.links.push_front(&mut self.by_size[c as usize], t);
            self.in_lru[t as usize] = false;
            self.max = self.max.max(c as usize);
            self.demotions += 1;
        }
    }
}

impl BlockEviction for Clc {
    const NAME: &'static str = "clc";

    /// A reference: the cluster goes to (or back to) the LRU region's MRU end.
    fn access(&mut self, cl: &mut Clusters, n: u32, _write: bool) {
        if self.in_lru[n as usize] {
            cl.links.move_to_front(&mut self.lru, n);
        } else {
            self.detach(cl, n, cl.count[n as usize]);
            self.enter_lru_front(cl, n);
        }
    }

    fn added(&mut self, cl: &mut Clusters, n: u32, _off: u32, fresh: bool) {
        if !fresh {
            self.detach(cl, n, cl.count[n as usize] - 1);
        }
        self.enter_lru_front(cl, n);
    }

    fn removed(&mut self, cl: &mut Clusters, n: u32, left: u32) {
        if self.in_lru[n as usize] {
            self.lru_pages -= 1;
            if left == 0 {
                cl.links.unlink(&mut self.lru, n);
            }
        } else {
            let c = left as usize;
            cl.links.unlink(&mut self.by_size[c + 1], n);
            if left > 0 {
                cl.links.push_front(&mut self.by_size[c], n);
            }
            self.fix_max();
        }
    }

    fn victim(&mut self, cl: &mut Clusters) -> Option<u32> {
        let n = if self.max > 0 {
            let n = cl
                .links
                .pop_back(&mut self.by_size[self.max])
                .expect("max list is non-empty");
            self.fix_max();
            n
        } else {
            let n = cl.links.pop_back(&mut self.lru)?;
            self.lru_pages -= cl.count[n as usize];
            n
        };
        self.in_lru[n as usize] = false;
        Some(n)
    }

    fn counters(&self, out: &mut Counters) {
        out.set(&DEMOTIONS, self.demotions);
    }

    fn check(&self, cl: &Clusters) {
        cl.links.check(&self.lru);
        let mut nodes = self.lru.len;
        let mut pages = 0;
        for n in cl.links.collect(&self.lru) {
            assert!(self.in_lru[n as usize]);
            pages += cl.count[n as usize];
        }
        assert_eq!(pages, self.lru_pages, "LRU region pages");
        assert!(self.lru_pages <= self.lru_limit || self.lru.len <= 1);
        for (c, l) in self.by_size.iter().enumerate() {
            cl.links.check(l);
            for n in cl.links.collect(l) {
                assert!(!self.in_lru[n as usize]);
                assert_eq!(cl.count[n as usize] as usize, c);
                nodes += 1;
            }
            if !l.is_empty() {
                assert!(c <= self.max);
            }
        }
        assert_eq!(nodes, cl.nodes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::testutil::{drain, victims};

    #[test]
    fn recent_clusters_are_protected_then_the_largest_cold_one_goes() {
        // Blocks of 4 pages, 8 pages of buffer, LRU region 25% = 2 pages.
        let mut b = Clc::buffer(8, 4, 64, 25.0);
        // Block 0 gets 0 1 2 (3 pages: over the 2-page share, but it is the only cluster
        // in the LRU region, so it stays). Block 1 gets 4: block 0 is demoted (size 3).
        // Block 2 gets 8 9: block 1 ({4}) is demoted (size 1); LRU region = {8,9}.
        // Block 3 gets 12: LRU region would be 3 pages, so block 2 is demoted (size 2).
        assert!(victims(&mut b, &[0, 1, 2, 4, 8, 9, 12]).is_empty());
        // Block 4 gets 16: 8 pages, full; the LRU region {12}, {16} holds 2 pages.
        assert!(victims(&mut b, &[16]).is_empty());
        // 17 misses on a full buffer: the largest cold cluster, block 0, leaves whole
        // (plain LRU would have evicted page 0 only). Block 4 grows to {16,17}, so block
        // 3 is demoted (size 1, ahead of block 1).
        assert_eq!(victims(&mut b, &[17]), vec![0, 1, 2]);
        // A hit on 4 brings block 1 back into the LRU region; that pushes block 4
        // ({16,17}) out to the cold region (size 2).
        assert!(victims(&mut b, &[4]).is_empty());
        // Cold region now: size 2 = block 4 then block 2 (most recently demoted first),
        // size 1 = block 3. Draining: blocks 2 and 4 (the older demotion first), then
        // block 3, then the LRU region's block 1.
        assert_eq!(drain(&mut b), vec![8, 9, 16, 17, 12, 4]);
    }
}
