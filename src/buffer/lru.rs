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
        // The group entry was asked for one command ago (prefetch_early).
        self.slots.map.prefetch_line(lpn.0);
    }

    #[inline]
    fn prefetch_early(&self, lpn: Lpn) {
        self.slots.map.prefetch(lpn.0);
    }

    #[inline]
    fn upcoming_victims(&self) -> [Option<Lpn>; 2] {
        if self.list.len < self.cap {
            return [None, None];
        }
        // Victims in eviction order v0 (the tail), v1, v2, v3: a pipeline one level of
        // indirection deeper per victim, so that each call reads only what earlier
        // calls fetched. v0's index line was fetched on the last call, v1's line is
        // fetched now (its group entry was fetched on the last call), v2's group entry
        // now (its node was fetched on the last call), v3's node now.
        let links = &self.slots.links;
        let map = &self.slots.map;
        let v0 = self.list.tail;
        let v1 = links.prev(v0);
        if v1 != NIL {
            map.prefetch_line(links.key(v1));
            let v2 = links.prev(v1);
            if v2 != NIL {
                map.prefetch(links.key(v2));
                let v3 = links.prev(v2);
                if v3 != NIL {
                    links.prefetch(v3);
                }
            }
        }
        [
            Some(Lpn(links.key(v0))),
            (v1 != NIL).then(|| Lpn(links.key(v1))),
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
