//! Page LFU with aging (docs/algorithms.md §5.2; the workload-only baseline of the NCQ paper,
//! docs/papers.md §2).
//!
//! ```text
//! write(p) / read hit(p): count[p] += 1 (saturating); p becomes the MRU page of its count
//! write miss(p):          if full: evict; insert p with count 1
//! evict:                  the LRU page among those with the smallest count
//! every A references:     count[q] = max(1, count[q] / 2) for every buffered q
//! ```
//! O(1) per operation: one LRU list per count value ("frequency buckets", as in the O(1)
//! LFU of Shah, Mitra and Matani, 2010) and the smallest non-empty count tracked.
//!
//! Choices left open by the description ("needs aging to avoid stale counts"):
//! - aging halves every count after `A` references (reads and writes), `A` = the
//!   capacity in pages by default (`buffer.lfu_aging_refs`): a page must keep being
//!   referenced about once per buffer-full of references to hold a high count;
//! - halving keeps the recency order among pages that end up with the same count (the
//!   buckets are merged by last-reference time), so ties still break LRU;
//! - counts saturate at 1023.

use super::core::{List, NIL, PageMap, PageSlots};
use super::{BufferConfig, BufferPolicySpec, BufferShape, Level, page_level_bytes};
use super::{Evicted, Evictions, WriteBuffer};
use crate::nand::Lpn;
use crate::spec::{ConfigError, check_range};
use crate::spec::{Counter, Counters};

/// The `lfu` policy: its registry entry.
pub const SPEC: BufferPolicySpec = BufferPolicySpec {
    name: "lfu",
    description: "page LFU: evict the least-referenced page (ties: LRU), counts halved periodically",
    level: Level::Page,
    counters: COUNTERS,
    memory_bytes: page_level_bytes,
    validate,
    build,
};

/// `buffer.lfu_aging_refs`, when set, is at least one reference.
fn validate(cfg: &BufferConfig) -> Result<(), ConfigError> {
    if let Some(r) = cfg.lfu_aging_refs {
        check_range(
            "buffer.lfu_aging_refs",
            r,
            1,
            u64::MAX,
            "references between halvings",
        )?;
    }
    Ok(())
}

fn build(cfg: &BufferConfig, shape: BufferShape) -> Box<dyn WriteBuffer> {
    let c = shape.capacity_pages;
    Box::new(Lfu::new(
        c,
        shape.logical_pages,
        cfg.lfu_aging_refs.unwrap_or(c as u64),
    ))
}

/// Reported as `buffer.lfu.agings`.
pub const AGINGS: Counter = Counter::total(
    "buffer.lfu.agings",
    "agings",
    "reference-count agings (every count halved)",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[AGINGS];

const MAX_COUNT: usize = 1023;

/// Page-granular LFU with aging.
#[derive(Clone)]
pub struct Lfu {
    slots: PageSlots,
    count: Vec<u16>,
    /// Reference clock value of each slot's last reference (for merges when aging).
    stamp: Vec<u64>,
    /// `buckets[c]`: pages with count `c`, most recently referenced first.
    buckets: Vec<List>,
    /// Empty bucket array swapped in when aging.
    spare: Vec<List>,
    /// Smallest `c` with a non-empty bucket (meaningless when empty).
    min: usize,
    cap: u32,
    len: u32,
    clock: u64,
    aging_refs: u64,
    since_aging: u64,
    agings: u64,
}

impl Lfu {
    /// An empty buffer of `capacity` pages that ages every `aging_refs` references.
    pub fn new(capacity: u32, logical_pages: u64, aging_refs: u64) -> Lfu {
        Lfu {
            slots: PageSlots::new(capacity, logical_pages),
            count: vec![0; capacity as usize],
            stamp: vec![0; capacity as usize],
            buckets: vec![List::default(); MAX_COUNT + 1],
            spare: vec![List::default(); MAX_COUNT + 1],
            min: 1,
            cap: capacity,
            len: 0,
            clock: 0,
            aging_refs: aging_refs.max(1),
            since_aging: 0,
            agings: 0,
        }
    }

    /// Reference count of `lpn`, if buffered (tests).
    pub fn count_of(&self, lpn: Lpn) -> Option<u16> {
        self.slots.find(lpn.0).map(|s| self.count[s as usize])
    }

    #[inline]
    fn tick(&mut self) {
        self.clock += 1;
        self.since_aging += 1;
        if self.since_aging >= self.aging_refs {
            self.since_aging = 0;
            self.age();
        }
    }

    /// A reference to buffered slot `s`.
    #[inline]
    fn hit(&mut self, s: u32) {
        let c = self.count[s as usize] as usize;
        let links = &mut self.slots.links;
        if c < MAX_COUNT {
            links.unlink(&mut self.buckets[c], s);
            links.push_front(&mut self.buckets[c + 1], s);
            self.count[s as usize] += 1;
            if c == self.min && self.buckets[c].is_empty() {
                self.min = c + 1;
            }
        } else {
            links.move_to_front(&mut self.buckets[c], s);
        }
        self.stamp[s as usize] = self.clock;
        self.tick();
    }

    fn fix_min(&mut self) {
        self.min = (1..=MAX_COUNT)
            .find(|&c| !self.buckets[c].is_empty())
            .unwrap_or(1);
    }

    /// Halves every count, merging buckets by last-reference time so each new bucket is
    /// again ordered most recent first.
    fn age(&mut self) {
        self.agings += 1;
        // The spare bucket array is empty; swap it in and merge the old buckets into it
        // (no allocation).
        std::mem::swap(&mut self.buckets, &mut self.spare);
        let (old, new, links) = (&mut self.spare, &mut self.buckets, &mut self.slots.links);
        // New count k receives old counts {1, 2, 3} (k = 1) or {2k, 2k + 1}.
        for (k, target) in new.iter_mut().enumerate().take(MAX_COUNT / 2 + 1).skip(1) {
            let sources: &[usize] = if k == 1 {
                &[1, 2, 3]
            } else {
                &[2 * k, 2 * k + 1]
            };
            loop {
                // Move the least recent tail among the sources to the new bucket's head,
                // so the result is again most recent first.
                let mut best = NIL;
                let mut best_src = 0;
                for &src in sources {
                    let t = old[src].tail;
                    if t != NIL
                        && (best == NIL || self.stamp[t as usize] < self.stamp[best as usize])
                    {
                        best = t;
                        best_src = src;
                    }
                }
                if best == NIL {
                    break;
                }
                links.unlink(&mut old[best_src], best);
                links.push_front(target, best);
                self.count[best as usize] = k as u16;
            }
        }
        debug_assert!(old.iter().all(List::is_empty));
        self.fix_min();
    }
}

impl WriteBuffer for Lfu {
    fn name(&self) -> &'static str {
        "lfu"
    }

    fn capacity_pages(&self) -> u32 {
        self.cap
    }

    fn len_pages(&self) -> u32 {
        self.len
    }

    #[inline]
    fn prefetch(&self, lpn: Lpn) {
        self.slots.map.prefetch(lpn.0);
    }

    fn contains(&self, lpn: Lpn) -> bool {
        self.slots.find(lpn.0).is_some()
    }

    fn write(&mut self, lpn: Lpn, out: &mut Evictions) -> bool {
        if let Some(s) = self.slots.find(lpn.0) {
            self.hit(s);
            return true;
        }
        if self.len == self.cap {
            self.evict(out);
        }
        let s = self.slots.alloc(lpn.0);
        self.slots.links.push_front(&mut self.buckets[1], s);
        self.count[s as usize] = 1;
        self.stamp[s as usize] = self.clock;
        self.min = 1;
        self.len += 1;
        self.tick();
        false
    }

    fn read(&mut self, lpn: Lpn) -> bool {
        match self.slots.find(lpn.0) {
            Some(s) => {
                self.hit(s);
                true
            }
            None => false,
        }
    }

    fn remove(&mut self, lpn: Lpn) -> bool {
        match self.slots.find(lpn.0) {
            Some(s) => {
                let c = self.count[s as usize] as usize;
                self.slots.links.unlink(&mut self.buckets[c], s);
                self.slots.release(s);
                self.len -= 1;
                if c == self.min && self.buckets[c].is_empty() {
                    self.fix_min();
                }
                true
            }
            None => false,
        }
    }

    fn evict(&mut self, out: &mut Evictions) -> bool {
        if self.len == 0 {
            return false;
        }
        let c = self.min;
        let s = self
            .slots
            .links
            .pop_back(&mut self.buckets[c])
            .expect("min bucket is non-empty");
        let lpn = self.slots.release(s);
        self.len -= 1;
        if self.buckets[c].is_empty() {
            self.fix_min();
        }
        out.push(Evicted { lpn, pad: false });
        true
    }

    fn counters(&self, out: &mut Counters) {
        out.set(&AGINGS, self.agings);
    }

    fn check_invariants(&self) {
        let mut n = 0;
        for (c, l) in self.buckets.iter().enumerate() {
            self.slots.links.check(l);
            let members = self.slots.links.collect(l);
            for w in members.windows(2) {
                assert!(
                    self.stamp[w[0] as usize] >= self.stamp[w[1] as usize],
                    "bucket {c} not most recent first"
                );
            }
            for s in members {
                assert_eq!(self.count[s as usize] as usize, c);
                n += 1;
            }
            if !l.is_empty() {
                assert!(self.min <= c, "min {} above non-empty bucket {c}", self.min);
            }
        }
        assert_eq!(n, self.len);
        assert_eq!(self.len, self.slots.len());
        if self.len > 0 {
            assert!(!self.buckets[self.min].is_empty(), "min bucket empty");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::testutil::{drain, victims};

    #[test]
    fn evicts_the_least_frequent_page_ties_lru() {
        let mut b = Lfu::new(3, 1 << 16, 1_000);
        // 1 2 3 enter with count 1; 1 is written twice more (count 3), 2 once (count 2).
        // 4 misses: the only count-1 page is 3, evicted.
        assert_eq!(victims(&mut b, &[1, 2, 3, 1, 1, 2, 4]), vec![3]);
        // Counts: 1→3, 2→2, 4→1. 5 evicts 4 (count 1); 6 evicts 5 (count 1, LRU tie
        // with nothing else at count 1).
        assert_eq!(victims(&mut b, &[5, 6]), vec![4, 5]);
        // Read 6 twice: count 3, more recent than 1's count 3. 2 (count 2) goes first,
        // then among the count-3 pages the least recently referenced, 1, then 6.
        assert!(b.read(Lpn(6)));
        assert!(b.read(Lpn(6)));
        assert_eq!(drain(&mut b), vec![2, 1, 6]);
    }

    #[test]
    fn aging_halves_counts_and_keeps_recency_among_ties() {
        // Age after every 8 references.
        let mut b = Lfu::new(4, 1 << 16, 8);
        // References 1..=7: 1 ×4 (count 4), 2 ×2 (count 2), 3 once (count 1).
        victims(&mut b, &[1, 1, 1, 1, 2, 2, 3]);
        assert_eq!(b.count_of(Lpn(1)), Some(4));
        // The 8th reference (3 again, count 2) triggers aging: 1 → 2, 2 → 1, 3 → 1.
        victims(&mut b, &[3]);
        assert_eq!(
            (b.count_of(Lpn(1)), b.count_of(Lpn(2)), b.count_of(Lpn(3))),
            (Some(2), Some(1), Some(1))
        );
        // 2 and 3 now share count 1; 3 was referenced last, so 2 is the LRU victim.
        victims(&mut b, &[4]); // fills the fourth slot
        assert_eq!(victims(&mut b, &[5]), vec![2]);
    }
}
