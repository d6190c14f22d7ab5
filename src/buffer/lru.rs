//! Page LRU, the baseline write-buffer policy (as in MQSim's `Data_Cache_Flash` and
//! SSDSim's `buffer_management`; docs/algorithms.md §5.2).
//!
//! ```text
//! write(p): if p buffered: move p to MRU            (hit)
//!           else: if full: evict LRU page; insert p at MRU
//! read(p):  if p buffered: move p to MRU            (a read hit is a reference)
//! evict:    write back the LRU page
//! ```
//! Choices the description leaves open: read hits refresh recency (they are references
//! to the page); read misses do not insert (a write buffer holds dirty data only).

use super::core::{List, NIL, PageSlots, Probe};
use super::{Evicted, Evictions, WriteBuffer};
use crate::nand::Lpn;

/// Page-granular LRU.
pub struct Lru {
    slots: PageSlots,
    list: List,
    cap: u32,
}

impl Lru {
    /// An empty buffer of `capacity` pages.
    pub fn new(capacity: u32) -> Lru {
        Lru {
            slots: PageSlots::new(capacity),
            list: List::default(),
            cap: capacity,
        }
    }
}

impl WriteBuffer for Lru {
    fn name(&self) -> &'static str {
        "lru"
    }

    fn capacity_pages(&self) -> u32 {
        self.cap
    }

    fn len_pages(&self) -> u32 {
        self.list.len
    }

    #[inline]
    fn prefetch(&self, lpn: Lpn) {
        self.slots.map.prefetch(lpn.0);
    }

    #[inline]
    fn upcoming_victims(&self) -> [Option<Lpn>; 2] {
        if self.list.len < self.cap {
            return [None, None];
        }
        // A pipeline two victims deep: the tail's and its predecessor's nodes were
        // fetched on earlier calls (or walked by the last writes); the node after them
        // in eviction order is fetched now.
        let links = &self.slots.links;
        let tail = self.list.tail;
        let before = links.prev(tail);
        if before != NIL {
            let after = links.prev(before);
            if after != NIL {
                links.prefetch(after);
            }
        }
        // The next miss removes the tail's page from the index: its group entry was
        // fetched on the previous call (the tail was then the page before it), so its
        // line can be fetched now; the page before it gets its group entry fetched.
        self.slots.map.prefetch_line(self.slots.lpn(tail));
        if before != NIL {
            self.slots.map.prefetch(self.slots.lpn(before));
        }
        [
            Some(Lpn(self.slots.lpn(tail))),
            (before != NIL).then(|| Lpn(self.slots.lpn(before))),
        ]
    }

    fn contains(&self, lpn: Lpn) -> bool {
        self.slots.find(lpn.0).is_some()
    }

    #[inline]
    fn write(&mut self, lpn: Lpn, out: &mut Evictions) -> bool {
        match self.slots.probe(lpn.0) {
            Probe::Found(s) => {
                self.slots.links.move_to_front(&mut self.list, s);
                true
            }
            Probe::Vacant(at) => {
                let s = if self.list.len == self.cap {
                    // The LRU page's slot takes the new page: one map probe, no free list.
                    let s = self.list.tail;
                    let old = self.slots.reuse_at(at, s, lpn.0);
                    out.push(Evicted {
                        lpn: old,
                        pad: false,
                    });
                    self.slots.links.move_to_front(&mut self.list, s);
                    s
                } else {
                    let s = self.slots.alloc_at(at, lpn.0);
                    self.slots.links.push_front(&mut self.list, s);
                    s
                };
                debug_assert_eq!(self.slots.lpn(s), lpn.0);
                false
            }
        }
    }

    #[inline]
    fn read(&mut self, lpn: Lpn) -> bool {
        match self.slots.find(lpn.0) {
            Some(s) => {
                self.slots.links.move_to_front(&mut self.list, s);
                true
            }
            None => false,
        }
    }

    fn remove(&mut self, lpn: Lpn) -> bool {
        match self.slots.find(lpn.0) {
            Some(s) => {
                self.slots.links.unlink(&mut self.list, s);
                self.slots.release(s);
                true
            }
            None => false,
        }
    }

    #[inline]
    fn evict(&mut self, out: &mut Evictions) -> bool {
        match self.slots.links.pop_back(&mut self.list) {
            Some(s) => {
                let lpn = self.slots.release(s);
                out.push(Evicted { lpn, pad: false });
                true
            }
            None => false,
        }
    }

    fn check_invariants(&self) {
        self.slots.links.check(&self.list);
        assert_eq!(self.list.len, self.slots.len(), "list vs map");
        for s in self.slots.links.collect(&self.list) {
            assert_eq!(self.slots.find(self.slots.lpn(s)), Some(s));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::testutil::{drain, victims};

    #[test]
    fn evicts_the_least_recently_used_page() {
        let mut b = Lru::new(3);
        // 1 2 3 fill (MRU first: 3 2 1). Writing 1 again is a hit: 1 3 2.
        // 4 misses and evicts the LRU page, 2: 4 1 3. 5 evicts 3: 5 4 1.
        assert_eq!(victims(&mut b, &[1, 2, 3, 1, 4, 5]), vec![2, 3]);
        // A read hit is a reference: read 1 gives 1 5 4; 6 evicts 4.
        assert!(b.read(Lpn(1)));
        assert!(!b.read(Lpn(2)));
        assert_eq!(victims(&mut b, &[6]), vec![4]);
        // Remaining, LRU first: 5, 1, 6.
        assert_eq!(drain(&mut b), vec![5, 1, 6]);
    }
}
