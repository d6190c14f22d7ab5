//! QLRU, the NCQ-aware LRU: S. Kim, T. Kim, "QLRU: NCQ-aware write buffer management
//! algorithm for SSDs", Electronics Letters 2013; as presented by Heo (KIISE slides,
//! docs/papers.md §2) and specified in docs/algorithms.md §5.8.
//!
//! Commands waiting in the NCQ are future references. A buffered page that a waiting
//! command references is moved to a protected ("virtual MRU") position and cannot be
//! evicted until that command is dispatched; the protection costs no space, only
//! pointer moves.
//!
//! ```text
//! queued(cmd):     for p in cmd: refs[p] += 1            (p is protected while refs[p] > 0)
//! dispatched(cmd): for p in cmd: refs[p] -= 1; a page no longer referenced that had
//!                  been set aside returns to the LRU list's MRU end (the command is
//!                  about to reference it)
//! write(p):        hit: move p to MRU; miss: if full: evict; insert p at MRU
//! evict:           take the LRU page; while it is protected, set it aside on the
//!                  protected list (its "virtual MRU" position) and take the next
//!                  one; if every page is protected, evict the LRU protected page
//! ```
//! Protected pages are set aside lazily, when an eviction reaches them, rather than
//! moved when their command arrives: the victims are the same (a page taken out of the
//! LRU order does not change the order of the others, and a protected page is never
//! evicted either way), each page moves at most once per protection, and a command
//! dispatched before any eviction reached its pages leaves the LRU order untouched, so
//! with queue depth 1 (each command dispatched as soon as it arrives) QLRU makes exactly
//! LRU's choices, as the paper requires of a zero-length queue. It also keeps the queue
//! hooks cheap: they touch only the small reference-count map, never the page map, so
//! QLRU costs little more than LRU per page (BENCHMARKS.md).
//!
//! Choices the papers leave open (documented in docs/buffer.md):
//! - protection is by reference count per page, so a page stays protected while *any*
//!   waiting command references it, including a page that enters the buffer after the
//!   command was queued (docs/algorithms.md §5.8: "a buffered page referenced by any command
//!   still waiting in the NCQ is protected");
//! - when every buffered page is protected the buffer evicts the LRU protected page
//!   rather than stall the queue (counted as `buffer.qlru.fallback_evictions`);
//! - reads are references like writes (a queued read of a buffered page protects it, so
//!   the read is served from DRAM).

use super::core::{KeyMap, List, NIL, PageMap, PageSlots, Probe};
use super::{BufferConfig, BufferPolicySpec, BufferShape, Level, no_keys, page_level_bytes};
use super::{Evicted, Evictions, WriteBuffer};
use crate::nand::Lpn;
use crate::spec::{Counter, Counters};

/// The `qlru` policy: its registry entry.
pub const SPEC: BufferPolicySpec = BufferPolicySpec {
    name: "qlru",
    description: "QLRU (Kim & Kim 2013): LRU that protects pages referenced by commands waiting in the NCQ",
    level: Level::Page,
    counters: COUNTERS,
    memory_bytes: page_level_bytes,
    validate: no_keys,
    build,
};

fn build(_: &BufferConfig, shape: BufferShape) -> Box<dyn WriteBuffer> {
    Box::new(QLru::new(shape.capacity_pages, shape.logical_pages))
}

/// Reported as `buffer.qlru.set_aside`.
pub const SET_ASIDE: Counter = Counter::total(
    "buffer.qlru.set_aside",
    "pages",
    "pages set aside because a queued command will reference them",
);
/// Reported as `buffer.qlru.fallback_evictions`.
pub const FALLBACK_EVICTIONS: Counter = Counter::total(
    "buffer.qlru.fallback_evictions",
    "pages",
    "evictions of the page set aside longest ago, for want of another victim",
);
/// Reported as `buffer.qlru.aside_pages_max`.
pub const ASIDE_PAGES_MAX: Counter = Counter::gauge(
    "buffer.qlru.aside_pages_max",
    "pages",
    "most pages set aside at once",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[SET_ASIDE, FALLBACK_EVICTIONS, ASIDE_PAGES_MAX];

/// Node tag: the page is on the aside list.
const ASIDE: u32 = 1;
/// Reference-count map: the page is on the aside list (high bit beside the count).
const REF_ASIDE: u32 = 1 << 31;
const REF_COUNT: u32 = REF_ASIDE - 1;

/// NCQ-aware LRU.
#[derive(Clone)]
pub struct QLru {
    slots: PageSlots,
    /// Buffered pages in LRU order (MRU first), protected ones included until an
    /// eviction reaches them.
    lru: List,
    /// Protected pages an eviction has set aside, most recently set aside first.
    aside: List,
    /// Per page referenced by waiting commands (buffered or not): how many commands,
    /// plus [`REF_ASIDE`] when the page is set aside. Absent = not referenced. Grows to
    /// the largest queue's page count, then stays.
    refs: KeyMap,
    cap: u32,
    set_aside: u64,
    fallback_evictions: u64,
    aside_max: u32,
}

impl QLru {
    /// An empty buffer of `capacity` pages.
    pub fn new(capacity: u32, logical_pages: u64) -> QLru {
        QLru {
            slots: PageSlots::new(capacity, logical_pages),
            lru: List::default(),
            aside: List::default(),
            // 512 commands of 16 pages before the first growth.
            refs: KeyMap::with_capacity(8192),
            cap: capacity,
            set_aside: 0,
            fallback_evictions: 0,
            aside_max: 0,
        }
    }

    /// Whether `lpn` is referenced by a waiting command.
    pub fn is_referenced(&self, lpn: Lpn) -> bool {
        self.refs.get(lpn.0).is_some()
    }

    /// Pages set aside now (protected pages an eviction reached).
    pub fn aside_pages(&self) -> u32 {
        self.aside.len
    }

    #[inline]
    fn is_aside(&self, s: u32) -> bool {
        self.slots.links.tag(s) & ASIDE != 0
    }

    /// A reference to buffered slot `s`: MRU of the list it is on.
    #[inline]
    fn touch(&mut self, s: u32) {
        if self.is_aside(s) {
            self.slots.links.move_to_front(&mut self.aside, s);
        } else {
            self.slots.links.move_to_front(&mut self.lru, s);
        }
    }

    /// Marks `lpn`'s reference entry as set aside or not (the entry exists while the
    /// page is protected).
    #[inline]
    fn mark_ref(&mut self, lpn: u32, aside: bool) {
        if let Ok(i) = self.refs.locate(lpn) {
            let r = self.refs.value_at(i);
            self.refs
                .set_at(i, if aside { r | REF_ASIDE } else { r & REF_COUNT });
        }
    }

    /// The next victim, still on its list: protected pages at the LRU end are set aside
    /// first; `(slot, true)` is the fallback, the LRU page of the aside list.
    #[inline]
    fn victim(&mut self) -> Option<(u32, bool)> {
        loop {
            let s = self.lru.tail;
            if s == NIL {
                break;
            }
            let lpn = self.slots.lpn(s);
            if self.refs.is_empty() || self.refs.get(lpn).is_none() {
                return Some((s, false));
            }
            // A waiting command will reference this page: keep it (virtual MRU).
            self.slots.links.unlink(&mut self.lru, s);
            self.slots.links.push_front(&mut self.aside, s);
            self.slots.links.set_tag(s, ASIDE);
            self.mark_ref(lpn, true);
            self.set_aside += 1;
            self.aside_max = self.aside_max.max(self.aside.len);
        }
        let s = self.aside.tail;
        if s == NIL {
            return None;
        }
        self.fallback_evictions += 1;
        Some((s, true))
    }

    /// Takes slot `s` off its list (forgetting that it was set aside).
    #[inline]
    fn detach(&mut self, s: u32) {
        if self.is_aside(s) {
            self.slots.links.unlink(&mut self.aside, s);
            self.slots.links.set_tag(s, 0);
            self.mark_ref(self.slots.lpn(s), false);
        } else {
            self.slots.links.unlink(&mut self.lru, s);
        }
    }
}

impl WriteBuffer for QLru {
    fn name(&self) -> &'static str {
        "qlru"
    }

    fn capacity_pages(&self) -> u32 {
        self.cap
    }

    fn len_pages(&self) -> u32 {
        self.lru.len + self.aside.len
    }

    #[inline]
    fn prefetch(&self, lpn: Lpn) {
        self.slots.map.prefetch(lpn.0);
    }

    fn contains(&self, lpn: Lpn) -> bool {
        self.slots.find(lpn.0).is_some()
    }

    #[inline]
    fn write(&mut self, lpn: Lpn, out: &mut Evictions) -> bool {
        let at = match self.slots.probe(lpn.0) {
            Probe::Found(s) => {
                self.touch(s);
                return true;
            }
            Probe::Vacant(at) => at,
        };
        let s = if self.len_pages() == self.cap {
            // The victim's slot takes the new page (one map probe, no free list).
            let (s, _) = self.victim().expect("a full buffer has a victim");
            self.detach(s);
            let old = self.slots.reuse_at(at, s, lpn.0);
            out.push(Evicted {
                lpn: old,
                pad: false,
            });
            s
        } else {
            self.slots.alloc_at(at, lpn.0)
        };
        self.slots.links.push_front(&mut self.lru, s);
        false
    }

    #[inline]
    fn read(&mut self, lpn: Lpn) -> bool {
        match self.slots.find(lpn.0) {
            Some(s) => {
                self.touch(s);
                true
            }
            None => false,
        }
    }

    fn remove(&mut self, lpn: Lpn) -> bool {
        match self.slots.find(lpn.0) {
            Some(s) => {
                self.detach(s);
                self.slots.release(s);
                true
            }
            None => false,
        }
    }

    #[inline]
    fn evict(&mut self, out: &mut Evictions) -> bool {
        let Some((s, _)) = self.victim() else {
            return false;
        };
        self.detach(s);
        let lpn = self.slots.release(s);
        out.push(Evicted { lpn, pad: false });
        true
    }

    #[inline]
    fn queued(&mut self, first: Lpn, pages: u32) {
        for lpn in first.0..first.0 + pages {
            match self.refs.locate(lpn) {
                Ok(i) => self.refs.set_at(i, self.refs.value_at(i) + 1),
                Err(at) => self.refs.insert_vacant(at, lpn, 1),
            }
        }
    }

    #[inline]
    fn dispatched(&mut self, first: Lpn, pages: u32) {
        for lpn in first.0..first.0 + pages {
            let Ok(i) = self.refs.locate(lpn) else {
                debug_assert!(false, "dispatch of page {lpn} that was never queued");
                continue;
            };
            let r = self.refs.value_at(i);
            if r & REF_COUNT > 1 {
                self.refs.set_at(i, r - 1);
                continue;
            }
            self.refs.remove_at(i);
            if r & REF_ASIDE != 0 {
                // No longer protected: back to the LRU list, at MRU (its command is
                // about to reference it).
                let s = self.slots.find(lpn).expect("an aside page is buffered");
                self.slots.links.unlink(&mut self.aside, s);
                self.slots.links.set_tag(s, 0);
                self.slots.links.push_front(&mut self.lru, s);
            }
        }
    }

    fn counters(&self, out: &mut Counters) {
        out.set(&SET_ASIDE, self.set_aside);
        out.set(&FALLBACK_EVICTIONS, self.fallback_evictions);
        out.set(&ASIDE_PAGES_MAX, self.aside_max as u64);
    }

    fn check_invariants(&self) {
        let links = &self.slots.links;
        links.check(&self.lru);
        links.check(&self.aside);
        assert_eq!(self.len_pages(), self.slots.len(), "lists vs map");
        for (list, aside) in [(&self.lru, false), (&self.aside, true)] {
            for s in links.collect(list) {
                let lpn = self.slots.lpn(s);
                assert_eq!(self.slots.find(lpn), Some(s));
                assert_eq!(self.is_aside(s), aside, "slot {s} list flag");
                let r = self.refs.get(lpn);
                assert_eq!(
                    r.is_some_and(|r| r & REF_ASIDE != 0),
                    aside,
                    "page {lpn}: reference entry's aside mark"
                );
                if aside {
                    assert!(
                        r.unwrap() & REF_COUNT > 0,
                        "unprotected page {lpn} set aside"
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::testutil::{drain, victims};
    use crate::buffer::{Lru, WriteBuffer};
    use proptest::prelude::*;

    #[test]
    fn a_queued_reference_protects_a_page_until_dispatch() {
        let mut b = QLru::new(3, 1 << 16);
        // Fill: MRU first 3 2 1. A command for page 1 arrives in the queue: 1 is the
        // LRU page, but now protected.
        assert_eq!(victims(&mut b, &[1, 2, 3]), Vec::<u32>::new());
        b.queued(Lpn(1), 1);
        assert!(b.is_referenced(Lpn(1)));
        // Writes of 4 and 5 (commands ahead of the queued one) evict 2 then 3 (4's
        // eviction sets 1 aside first); plain LRU would have evicted 1 and then missed
        // on it.
        assert_eq!(victims(&mut b, &[4, 5]), vec![2, 3]);
        assert_eq!(b.aside_pages(), 1);
        // The command for page 1 is dispatched: 1, set aside, rejoins the LRU list at
        // MRU and its write hits. LRU order now: 1 5 4.
        b.dispatched(Lpn(1), 1);
        assert_eq!(b.aside_pages(), 0);
        assert!(!b.is_referenced(Lpn(1)));
        assert_eq!(victims(&mut b, &[1, 6]), vec![4]);
        assert_eq!(drain(&mut b), vec![5, 1, 6]);
    }

    #[test]
    fn pages_entering_the_buffer_while_referenced_are_protected_and_fallback_evicts() {
        let mut b = QLru::new(2, 1 << 16);
        // Two queued commands reference page 7; the first is dispatched and writes it
        // (a miss): 7 is still referenced by the second, so it is protected.
        b.queued(Lpn(7), 1);
        b.queued(Lpn(7), 1);
        b.dispatched(Lpn(7), 1);
        assert_eq!(victims(&mut b, &[7]), Vec::<u32>::new());
        assert!(b.is_referenced(Lpn(7)));
        // 8 then 9: 9's eviction sets 7 aside and evicts 8.
        assert_eq!(victims(&mut b, &[8, 9]), vec![8]);
        // Protect 9 too (a 2-page command over 9..=10): everything is protected, so the
        // next miss sets 9 aside and falls back to the least recently set aside, 7.
        b.queued(Lpn(9), 2);
        assert_eq!(victims(&mut b, &[11]), vec![7]);
        let mut c = Counters::new();
        b.counters(&mut c);
        assert_eq!(c.value(&FALLBACK_EVICTIONS), 1);
    }

    proptest! {
        /// With no queue information QLRU is LRU, victim for victim.
        #[test]
        fn without_hooks_qlru_is_lru(seq in prop::collection::vec((0u8..4, 0u32..40), 1..500), cap in 1u32..16) {
            let mut q = QLru::new(cap, 1 << 16);
            let mut l = Lru::<crate::buffer::core::PageIndex>::new(cap, 1 << 16);
            let (mut oq, mut ol) = (Evictions::default(), Evictions::default());
            for (op, lpn) in seq {
                match op {
                    0 | 1 => prop_assert_eq!(q.write(Lpn(lpn), &mut oq), l.write(Lpn(lpn), &mut ol)),
                    2 => prop_assert_eq!(q.read(Lpn(lpn)), l.read(Lpn(lpn))),
                    _ => {
                        // Queue depth 1: a two-page write command is dispatched as soon
                        // as it is queued, and then references its pages.
                        q.queued(Lpn(lpn), 2);
                        q.dispatched(Lpn(lpn), 2);
                        for p in lpn..lpn + 2 {
                            prop_assert_eq!(q.write(Lpn(p), &mut oq), l.write(Lpn(p), &mut ol));
                        }
                    }
                }
                prop_assert_eq!(&oq.pages, &ol.pages);
            }
        }
    }
}
