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
//!
//! How the order is kept: not as a linked list but as a log of references with lazy
//! deletion. Every reference appends the page to a ring, and the page index maps each
//! buffered page to the ring position of its latest reference (its stamp). An entry
//! whose page has a later stamp, or has left, is stale. The least recently used page is
//! the oldest live entry, so the victims are found by reading the ring in order:
//!
//! ```text
//! touch(p):  ring[head] = p; stamp[p] = head; head += 1     (compact the ring if full)
//! victim():  while stamp[ring[tail]] != tail: tail += 1     (skip stale entries)
//!            p = ring[tail]; tail += 1
//! ```
//! Why: with a list, finding the next victim means following the tail's `prev` link, a
//! cache miss that cannot start before the previous one ends, and a hit rewrites the
//! links of three nodes. In the ring the next victims are the next entries, so their
//! index lines are fetched many evictions ahead, and a victim costs no memory beyond the
//! index line its removal touches anyway. The victims and their order are exactly those
//! of the list. The ring holds at least twice the capacity; when it fills with stale
//! entries it is compacted in place (live entries keep their order), at most once per
//! `capacity` references.

use super::core::{PageIndex, PageMap, Probe};
use super::{BufferConfig, BufferPolicySpec, BufferShape, Level, no_keys};
use super::{Evicted, Evictions, WriteBuffer};
use crate::nand::Lpn;

/// The `lru` policy: its registry entry.
pub const SPEC: BufferPolicySpec = BufferPolicySpec {
    name: "lru",
    description: "page LRU: a hit moves the page to MRU, evict the LRU page",
    level: Level::Page,
    counters: &[],
    memory_bytes,
    validate: no_keys,
    build,
};

/// A flat index (a slot per logical page) on devices small enough, else the page index.
fn build(_: &BufferConfig, shape: BufferShape) -> Box<dyn WriteBuffer> {
    let (c, l) = (shape.capacity_pages, shape.logical_pages);
    if super::core::page_map_is_flat(l) {
        Box::new(Lru::<super::core::FlatIndex>::new(c, l))
    } else {
        Box::new(Lru::<PageIndex>::new(c, l))
    }
}

/// LRU keeps a reference ring of 8-16 B per page instead of slots and links, so the
/// page-level slot figure is an upper bound for it; its flat index takes 4 B per logical
/// page.
fn memory_bytes(shape: &BufferShape) -> u64 {
    if super::core::page_map_is_flat(shape.logical_pages) {
        shape.logical_pages * 4 + super::slot_bytes(shape)
    } else {
        super::page_level_bytes(shape)
    }
}

/// How far ahead of the oldest ring entry the index group and then the index line of a
/// coming victim are fetched (the line's address needs the group entry). A command's
/// pages are evicted back to back, so the distances span a few commands.
const AHEAD_GROUP: u32 = 12;
const AHEAD_LINE: u32 = 6;

/// Stamps are ring positions modulo 2^31: never the index's empty value (`u32::MAX`),
/// and distinct within any ring (at most 2^30 entries).
const STAMP_MASK: u32 = (1 << 31) - 1;

/// Page-granular LRU over a page index `M` (flat on devices small enough, grouped
/// above: [`super::core::page_map_is_flat`]).
#[derive(Clone)]
pub struct Lru<M: PageMap = PageIndex> {
    /// Buffered page → stamp of its latest reference.
    map: M,
    /// Pages in reference order, oldest at `tail`; positions are `u32` counters that
    /// wrap (`head - tail` entries are present), the index is the position masked.
    ring: Vec<u32>,
    mask: u32,
    head: u32,
    tail: u32,
    /// Ring position up to which [`WriteBuffer::later_victims`] has named pages.
    hinted: u32,
    cap: u32,
}

impl<M: PageMap> Lru<M> {
    /// An empty buffer of `capacity` of the pages `0 .. logical_pages`.
    pub fn new(capacity: u32, logical_pages: u64) -> Lru<M> {
        let ring = (2 * capacity as usize).next_power_of_two().max(16);
        assert!(ring <= 1 << 30, "buffer of {capacity} pages is too large");
        Lru {
            map: M::with_pages(capacity, logical_pages),
            ring: crate::util::filled_vec(ring, 0),
            mask: (ring - 1) as u32,
            head: 0,
            tail: 0,
            hinted: 0,
            cap: capacity,
        }
    }

    /// Page at ring position `pos` (present or not).
    #[inline(always)]
    fn at(&self, pos: u32) -> u32 {
        self.ring[(pos & self.mask) as usize]
    }

    /// Whether the entry at present position `pos` is its page's latest reference.
    #[inline(always)]
    fn live(&self, pos: u32) -> bool {
        self.map.get(self.at(pos)) == Some(pos & STAMP_MASK)
    }

    /// Appends a reference to `lpn` (buffered, or being inserted); returns its stamp.
    #[inline(always)]
    fn append(&mut self, lpn: u32) -> u32 {
        if self.head.wrapping_sub(self.tail) == self.ring.len() as u32 {
            self.compact();
        }
        let h = self.head;
        self.ring[(h & self.mask) as usize] = lpn;
        self.head = h.wrapping_add(1);
        h & STAMP_MASK
    }

    /// Rewrites the live entries densely from `tail`, in order, restamping them.
    #[cold]
    fn compact(&mut self) {
        let mut w = self.tail;
        let mut r = self.tail;
        while r != self.head {
            if self.live(r) {
                let lpn = self.at(r);
                self.ring[(w & self.mask) as usize] = lpn;
                self.map.insert(lpn, w & STAMP_MASK);
                w = w.wrapping_add(1);
            }
            r = r.wrapping_add(1);
        }
        self.head = w;
    }

    /// Takes the least recently used page off the ring (it stays in the index).
    #[inline(always)]
    fn pop_oldest(&mut self) -> Option<u32> {
        while self.tail != self.head {
            let t = self.tail;
            self.tail = t.wrapping_add(1);
            if self.live(t) {
                return Some(self.at(t));
            }
        }
        None
    }

    /// The first live ring position at or after `pos`, looking at most `limit` entries.
    #[inline]
    fn next_live(&self, mut pos: u32, limit: u32) -> Option<u32> {
        for _ in 0..limit {
            if pos == self.head {
                return None;
            }
            if self.live(pos) {
                return Some(pos);
            }
            pos = pos.wrapping_add(1);
        }
        None
    }

    /// Fetches the index group and line of the victims to come. Entries may be stale
    /// or beyond `head` (old pages): a wasted fetch at worst.
    #[inline(always)]
    fn prefetch_victims(&self) {
        self.map
            .prefetch(self.at(self.tail.wrapping_add(AHEAD_GROUP)));
        self.map
            .prefetch_line(self.at(self.tail.wrapping_add(AHEAD_LINE)));
    }

    /// [`WriteBuffer::write`], inlined into the run loop too.
    #[inline(always)]
    fn write_page(&mut self, lpn: Lpn, out: &mut Evictions) -> bool {
        match self.map.probe(lpn.0) {
            Probe::Found(_) => {
                let stamp = self.append(lpn.0);
                self.map.insert(lpn.0, stamp);
                true
            }
            Probe::Vacant(at) => {
                let stamp = self.append(lpn.0);
                if self.map.len() as u32 == self.cap {
                    // The append above may have compacted the ring, but never past a live
                    // entry, so `at` (an index position) still holds.
                    let old = self.pop_oldest().expect("a full buffer has a live entry");
                    // Insert before removing: removing the old page may free its group's
                    // line, which may be `at`, the new page's line.
                    self.map.insert_vacant(at, lpn.0, stamp);
                    self.map.remove(old);
                    out.push(Evicted {
                        lpn: old,
                        pad: false,
                    });
                } else {
                    self.map.insert_vacant(at, lpn.0, stamp);
                }
                false
            }
        }
    }

    /// Pages in eviction order (least recently used first).
    fn order(&self) -> Vec<u32> {
        let mut v = Vec::new();
        let mut p = self.tail;
        while p != self.head {
            if self.live(p) {
                v.push(self.at(p));
            }
            p = p.wrapping_add(1);
        }
        v
    }
}

impl<M: PageMap> WriteBuffer for Lru<M> {
    fn name(&self) -> &'static str {
        "lru"
    }

    fn capacity_pages(&self) -> u32 {
        self.cap
    }

    fn len_pages(&self) -> u32 {
        self.map.len() as u32
    }

    #[inline]
    fn prefetch(&self, lpn: Lpn) {
        // The group entry was asked for one command ago (prefetch_early).
        self.map.prefetch_line(lpn.0);
    }

    #[inline]
    fn prefetch_early(&self, lpn: Lpn) {
        self.map.prefetch(lpn.0);
    }

    #[inline]
    fn upcoming_victims(&self) -> [Option<Lpn>; 2] {
        if (self.map.len() as u32) < self.cap {
            return [None, None];
        }
        self.prefetch_victims();
        // A few entries suffice: stale ones are as rare as hits.
        let Some(p0) = self.next_live(self.tail, 8) else {
            return [None, None];
        };
        let v1 = self.next_live(p0.wrapping_add(1), 8);
        [Some(Lpn(self.at(p0))), v1.map(|p| Lpn(self.at(p)))]
    }

    #[inline]
    fn later_victims(&mut self, n: u32, out: &mut Vec<Lpn>) {
        // The ring entries after the next two (stale ones included: a hint), from where
        // the last call stopped.
        let present = self.head.wrapping_sub(self.tail);
        // Signed: the tail may have passed the last hint.
        let from = (self.hinted.wrapping_sub(self.tail) as i32).clamp(2, n as i32 + 2) as u32;
        let to = (n + 2).min(present);
        for k in from..to {
            out.push(Lpn(self.at(self.tail.wrapping_add(k))));
        }
        self.hinted = self.tail.wrapping_add(to.max(from));
    }

    fn single_victim(&self) -> bool {
        true
    }

    #[inline]
    fn write_run(&mut self, first: Lpn, n: u32, out: &mut Evictions) -> u32 {
        let mut hits = 0;
        for lpn in first.0..first.0 + n {
            if self.map.len() as u32 == self.cap {
                self.prefetch_victims();
            }
            hits += self.write_page(Lpn(lpn), out) as u32;
        }
        hits
    }

    fn contains(&self, lpn: Lpn) -> bool {
        self.map.get(lpn.0).is_some()
    }

    #[inline]
    fn write(&mut self, lpn: Lpn, out: &mut Evictions) -> bool {
        self.write_page(lpn, out)
    }

    #[inline]
    fn read(&mut self, lpn: Lpn) -> bool {
        if self.map.get(lpn.0).is_none() {
            return false;
        }
        let stamp = self.append(lpn.0);
        self.map.insert(lpn.0, stamp);
        true
    }

    fn remove(&mut self, lpn: Lpn) -> bool {
        // Its ring entries become stale: the page is no longer in the index.
        self.map.remove(lpn.0).is_some()
    }

    #[inline]
    fn evict(&mut self, out: &mut Evictions) -> bool {
        match self.pop_oldest() {
            Some(lpn) => {
                self.map.remove(lpn);
                out.push(Evicted { lpn, pad: false });
                true
            }
            None => false,
        }
    }

    fn check_invariants(&self) {
        let n = self.head.wrapping_sub(self.tail);
        assert!(n <= self.ring.len() as u32, "ring overfull: {n}");
        assert!(self.map.len() as u32 <= self.cap, "over capacity");
        let order = self.order();
        assert_eq!(order.len(), self.map.len(), "live ring entries vs index");
        for &lpn in &order {
            // Exactly one live entry per page: its stamp names a present position.
            let stamp = self.map.get(lpn).expect("a live entry's page is indexed");
            let back = self.head.wrapping_sub(1).wrapping_sub(stamp) & STAMP_MASK;
            assert!(back < n, "page {lpn}: stamp outside the ring");
            assert_eq!(self.at(self.head.wrapping_sub(1).wrapping_sub(back)), lpn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::core::FlatIndex;
    use crate::buffer::testutil::{drain, victims};

    /// Each test below, on both page indexes.
    macro_rules! on_both_indexes {
        ($($name:ident),*) => {$(
            mod $name {
                #[test]
                fn flat() {
                    super::$name::<super::FlatIndex>();
                }
                #[test]
                fn grouped() {
                    super::$name::<super::PageIndex>();
                }
            }
        )*};
    }
    on_both_indexes!(
        evicts_the_least_recently_used_page,
        hits_fill_the_ring_with_stale_entries_and_compaction_keeps_the_order,
        later_victims_names_the_coming_victims_once,
        positions_wrap_around_u32
    );

    fn evicts_the_least_recently_used_page<M: PageMap>() {
        let mut b = Lru::<M>::new(3, 1 << 16);
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

    fn hits_fill_the_ring_with_stale_entries_and_compaction_keeps_the_order<M: PageMap>() {
        // Capacity 4, ring of 16: repeated hits on two pages leave stale entries until
        // the ring compacts, many times over; the order must stay that of a list.
        let mut b = Lru::<M>::new(4, 1 << 16);
        let mut out = Evictions::default();
        for l in [10, 11, 12, 13] {
            b.write(Lpn(l), &mut out);
        }
        for i in 0..100 {
            b.write(Lpn(10 + (i % 2)), &mut out);
            if i % 7 == 0 {
                b.read(Lpn(12));
            }
            b.check_invariants();
        }
        assert!(out.pages.is_empty());
        // i = 98 read 12 last, then 11 (i = 99): LRU first 13, 10, 12, 11.
        assert_eq!(b.order(), vec![13, 10, 12, 11]);
        b.remove(Lpn(10));
        b.check_invariants();
        assert_eq!(victims(&mut b, &[20, 21]), vec![13]);
        assert_eq!(drain(&mut b), vec![12, 11, 20, 21]);
    }

    fn later_victims_names_the_coming_victims_once<M: PageMap>() {
        let mut b = Lru::<M>::new(8, 1 << 16);
        let mut out = Evictions::default();
        for l in 0..8 {
            b.write(Lpn(l), &mut out);
        }
        let mut hint = Vec::new();
        b.later_victims(4, &mut hint);
        // After the next two (0, 1): 2, 3, 4, 5; asking again names nothing new.
        assert_eq!(hint, [2, 3, 4, 5].map(Lpn));
        hint.clear();
        b.later_victims(4, &mut hint);
        assert!(hint.is_empty());
        // Three evictions later the next two are 3 and 4 and the window is 5-8; 5 was
        // named before, so 6, 7, 8.
        for l in 8..11 {
            b.write(Lpn(l), &mut out);
        }
        assert_eq!(
            out.pages.iter().map(|e| e.lpn).collect::<Vec<_>>(),
            [0, 1, 2]
        );
        b.later_victims(4, &mut hint);
        assert_eq!(hint, [6, 7, 8].map(Lpn));
    }

    fn positions_wrap_around_u32<M: PageMap>() {
        let mut b = Lru::<M>::new(3, 1 << 16);
        b.head = u32::MAX - 20;
        b.tail = b.head;
        let mut out = Evictions::default();
        let mut model: Vec<u32> = Vec::new(); // LRU first
        for i in 0..200u32 {
            let l = (i * 7) % 5;
            out.clear();
            let hit = b.write(Lpn(l), &mut out);
            assert_eq!(hit, model.contains(&l));
            model.retain(|&x| x != l);
            if !hit && model.len() == 3 {
                assert_eq!(out.pages[0].lpn, model.remove(0));
            }
            model.push(l);
            b.check_invariants();
            assert_eq!(b.order(), model);
        }
    }

    proptest::proptest! {
        /// The two page indexes are the same map: an LRU on each gives the same hits,
        /// victims and order for any sequence of writes, runs, reads, removals and
        /// evictions, over pages spread across many groups and packed into a few.
        #[test]
        fn flat_and_grouped_indexes_agree(
            ops in proptest::collection::vec((0u8..6, 0u32..4096, 1u32..40), 1..400),
            cap in 1u32..64,
        ) {
            let mut f = Lru::<FlatIndex>::new(cap, 1 << 12);
            let mut g = Lru::<PageIndex>::new(cap, 1 << 12);
            let (mut of, mut og) = (Evictions::default(), Evictions::default());
            for (op, lpn, n) in ops {
                let n = n.min(4096 - lpn);
                match op {
                    0 | 1 => proptest::prop_assert_eq!(
                        f.write(Lpn(lpn), &mut of),
                        g.write(Lpn(lpn), &mut og)
                    ),
                    2 => proptest::prop_assert_eq!(
                        f.write_run(Lpn(lpn), n, &mut of),
                        g.write_run(Lpn(lpn), n, &mut og)
                    ),
                    3 => proptest::prop_assert_eq!(f.read(Lpn(lpn)), g.read(Lpn(lpn))),
                    4 => proptest::prop_assert_eq!(f.remove(Lpn(lpn)), g.remove(Lpn(lpn))),
                    _ => proptest::prop_assert_eq!(f.evict(&mut of), g.evict(&mut og)),
                }
                proptest::prop_assert_eq!(&of.pages, &og.pages);
                proptest::prop_assert_eq!(f.order(), g.order());
            }
            f.check_invariants();
            g.check_invariants();
        }
    }
}
