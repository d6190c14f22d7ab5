//! Building blocks every write-buffer policy shares, all flat and allocation-free once
//! built: an open-addressing hash map from page (or block) numbers to arena indices, an
//! arena of doubly-linked list nodes that many lists can thread through, a FIFO of
//! recently evicted keys ("ghosts"), and the per-logical-block clusters of the
//! block-granular policies.
//!
//! Why not `std::collections::HashMap`: its SipHash costs more than the rest of an LRU
//! update, and its iteration order is random (nothing here iterates a map, but a flat
//! table makes that impossible by construction). Why not a flat array over the whole
//! logical space: at 4 B per logical page it would cost 64 MiB for a 64 GiB device, all
//! of it resident under random writes, while the buffer holds at most a few hundred
//! thousand pages. The page-granular policies' page → slot index ([`PageIndex`]) is
//! direct-indexed one level up instead: 4 B per aligned group of 16 pages (1/16 of a
//! flat array), each group with buffered pages owning one cache line of 16 slots. LRU,
//! the baseline policy and the one most runs use, takes the flat array ([`FlatIndex`])
//! where it costs no more than the page FTL's own map (see [`page_map_is_flat`]).

use super::{Evicted, Evictions};

/// "No entry" in links and maps.
pub const NIL: u32 = u32::MAX;

/// log2 of the keys that share a home cache line in [`KeyMap`] (8 slots of 8 B = 64 B).
const GROUP_BITS: u32 = 3;

/// A vector of `n` copies of `v` backed by transparent huge pages where possible: the
/// maps and node arenas are accessed at random, and with 4 KiB pages most accesses of a
/// large buffer would also miss the TLB.
fn huge_vec<T: Clone>(n: usize, v: T) -> Vec<T> {
    crate::util::filled_vec(n, v)
}

/// Hash map from `u32` keys (page or block numbers, never `u32::MAX`) to `u32` values:
/// linear probing, Fibonacci hashing of aligned groups of eight keys, deletion by backward shift (no tombstones, so a
/// long run never degrades). Grows by doubling when more than half full, so a map sized
/// for its largest population never allocates again.
#[derive(Clone, Debug)]
pub struct KeyMap {
    /// (key, value) pairs side by side: one cache line per probe.
    slots: Vec<(u32, u32)>,
    shift: u32,
    len: usize,
}

impl KeyMap {
    /// A map that holds `n` entries without growing.
    pub fn with_capacity(n: usize) -> KeyMap {
        let size = (n.max(8) * 2).next_power_of_two();
        KeyMap {
            slots: huge_vec(size, (NIL, 0)),
            shift: 64 - size.trailing_zeros(),
            len: 0,
        }
    }

    /// Entries held.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the map is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Home slot of `key`. The eight keys of an aligned group (`key >> 3`) share one
    /// hashed cache line, each at its own offset: the pages of one request (consecutive
    /// page numbers) then cost one or two cache misses instead of one each, while keys of
    /// different groups still spread uniformly over the table.
    #[inline(always)]
    fn home(&self, key: u32) -> usize {
        let line = ((key >> GROUP_BITS) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            >> (self.shift + GROUP_BITS);
        ((line as usize) << GROUP_BITS) | (key as usize & ((1 << GROUP_BITS) - 1))
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// Value stored for `key`.
    #[inline]
    pub fn get(&self, key: u32) -> Option<u32> {
        debug_assert!(key != NIL);
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let (k, v) = self.slots[i];
            if k == key {
                return Some(v);
            }
            if k == NIL {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Hints that `key` will be looked up soon: fetches its home slot into the cache.
    #[inline]
    pub fn prefetch(&self, key: u32) {
        crate::util::prefetch(&self.slots, self.home(key));
    }

    /// Looks `key` up once: its value, or where it would be inserted (valid until the
    /// map next changes).
    #[inline]
    pub fn probe(&self, key: u32) -> Probe {
        debug_assert!(key != NIL);
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let (k, v) = self.slots[i];
            if k == key {
                return Probe::Found(v);
            }
            if k == NIL {
                return Probe::Vacant(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// Inserts absent `key` at `at`, the position [`KeyMap::probe`] just returned for it
    /// (one probe sequence per lookup-then-insert instead of two).
    #[inline]
    pub fn insert_vacant(&mut self, at: usize, key: u32, value: u32) {
        if (self.len + 1) * 2 > self.slots.len() {
            // Growing moves everything; insert the ordinary way.
            self.insert(key, value);
            return;
        }
        debug_assert_eq!(self.slots[at].0, NIL);
        self.slots[at] = (key, value);
        self.len += 1;
    }

    /// Sets `key` to `value` (inserting or overwriting).
    #[inline]
    pub fn insert(&mut self, key: u32, value: u32) {
        debug_assert!(key != NIL);
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let k = self.slots[i].0;
            if k == key {
                self.slots[i].1 = value;
                return;
            }
            if k == NIL {
                self.slots[i] = (key, value);
                self.len += 1;
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// Removes `key`; returns its value.
    #[inline]
    pub fn remove(&mut self, key: u32) -> Option<u32> {
        match self.locate(key) {
            Ok(i) => {
                let v = self.slots[i].1;
                self.remove_at(i);
                Some(v)
            }
            Err(_) => None,
        }
    }

    /// Table position of `key` (`Ok`), or of the vacancy where it would be inserted
    /// (`Err`); valid until the map next changes. With [`KeyMap::value_at`],
    /// [`KeyMap::set_at`] and [`KeyMap::remove_at`] a read-modify-write costs one probe.
    #[inline]
    pub fn locate(&self, key: u32) -> Result<usize, usize> {
        debug_assert!(key != NIL);
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let k = self.slots[i].0;
            if k == key {
                return Ok(i);
            }
            if k == NIL {
                return Err(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// Value at position `i` from [`KeyMap::locate`].
    #[inline]
    pub fn value_at(&self, i: usize) -> u32 {
        self.slots[i].1
    }

    /// Sets the value at position `i` from [`KeyMap::locate`].
    #[inline]
    pub fn set_at(&mut self, i: usize, value: u32) {
        self.slots[i].1 = value;
    }

    /// Removes the entry at position `i` from [`KeyMap::locate`].
    #[inline]
    pub fn remove_at(&mut self, i: usize) {
        debug_assert!(self.slots[i].0 != NIL);
        let mask = self.mask();
        self.len -= 1;
        // Backward shift: pull later entries of the probe run into the hole when the
        // hole lies on their probe path, so lookups never need tombstones.
        let mut hole = i;
        let mut j = (i + 1) & mask;
        loop {
            let kj = self.slots[j].0;
            if kj == NIL {
                break;
            }
            let h = self.home(kj);
            // Entry j may move to `hole` iff `hole` lies cyclically in [h, j).
            if (j.wrapping_sub(h) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.slots[hole] = self.slots[j];
                hole = j;
            }
            j = (j + 1) & mask;
        }
        self.slots[hole] = (NIL, 0);
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        let size = old.len() * 2;
        self.slots = huge_vec(size, (NIL, 0));
        self.shift = 64 - size.trailing_zeros();
        self.len = 0;
        for (k, v) in old {
            if k != NIL {
                self.insert(k, v);
            }
        }
    }
}

/// Result of [`KeyMap::probe`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// The key's value.
    Found(u32),
    /// Absent; the table position to insert it at.
    Vacant(usize),
}

/// Ends and length of one list threaded through a [`Links`] arena. `head` is the most
/// recently inserted end (MRU), `tail` the other (LRU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct List {
    /// First node (MRU end), or [`NIL`].
    pub head: u32,
    /// Last node (LRU end), or [`NIL`].
    pub tail: u32,
    /// Nodes in the list.
    pub len: u32,
}

impl Default for List {
    fn default() -> Self {
        List {
            head: NIL,
            tail: NIL,
            len: 0,
        }
    }
}

impl List {
    /// Whether the list is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// One arena node: list links, the key it stands for (a page or block number) and a
/// word of policy state, 16 bytes side by side so one cache line serves a list step, the
/// key and the policy's flags.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
struct Node {
    prev: u32,
    next: u32,
    key: u32,
    tag: u32,
}

/// Prev/next links (and a key) of an arena of nodes; each node is on at most one list
/// at a time.
#[derive(Clone, Debug)]
pub struct Links {
    node: Vec<Node>,
}

impl Links {
    /// Links for `n` nodes, none on a list, all keys [`NIL`].
    pub fn new(n: usize) -> Links {
        Links {
            node: huge_vec(
                n,
                Node {
                    prev: NIL,
                    next: NIL,
                    key: NIL,
                    tag: 0,
                },
            ),
        }
    }

    /// Node after `i` (towards the tail).
    #[inline]
    pub fn next(&self, i: u32) -> u32 {
        self.node[i as usize].next
    }

    /// Node before `i` (towards the head).
    #[inline]
    pub fn prev(&self, i: u32) -> u32 {
        self.node[i as usize].prev
    }

    /// Hints that node `i` will be read soon.
    #[inline]
    pub fn prefetch(&self, i: u32) {
        crate::util::prefetch(&self.node, i as usize);
    }

    /// Key of node `i`.
    #[inline]
    pub fn key(&self, i: u32) -> u32 {
        self.node[i as usize].key
    }

    /// Sets the key of node `i`.
    #[inline]
    pub fn set_key(&mut self, i: u32, key: u32) {
        self.node[i as usize].key = key;
    }

    /// Policy state of node `i` (0 for a fresh arena).
    #[inline]
    pub fn tag(&self, i: u32) -> u32 {
        self.node[i as usize].tag
    }

    /// Sets the policy state of node `i`.
    #[inline]
    pub fn set_tag(&mut self, i: u32, tag: u32) {
        self.node[i as usize].tag = tag;
    }

    /// Puts `i` at the head (MRU end) of `l`.
    #[inline]
    pub fn push_front(&mut self, l: &mut List, i: u32) {
        let n = &mut self.node[i as usize];
        n.prev = NIL;
        n.next = l.head;
        if l.head != NIL {
            self.node[l.head as usize].prev = i;
        } else {
            l.tail = i;
        }
        l.head = i;
        l.len += 1;
    }

    /// Puts `i` at the tail (LRU end) of `l`.
    #[inline]
    pub fn push_back(&mut self, l: &mut List, i: u32) {
        let n = &mut self.node[i as usize];
        n.prev = l.tail;
        n.next = NIL;
        if l.tail != NIL {
            self.node[l.tail as usize].next = i;
        } else {
            l.head = i;
        }
        l.tail = i;
        l.len += 1;
    }

    /// Takes `i` off `l` (it must be on it).
    #[inline]
    pub fn unlink(&mut self, l: &mut List, i: u32) {
        let Node {
            prev: p, next: n, ..
        } = self.node[i as usize];
        if p != NIL {
            self.node[p as usize].next = n;
        } else {
            debug_assert_eq!(l.head, i);
            l.head = n;
        }
        if n != NIL {
            self.node[n as usize].prev = p;
        } else {
            debug_assert_eq!(l.tail, i);
            l.tail = p;
        }
        l.len -= 1;
    }

    /// Moves `i`, already on `l`, to its head.
    #[inline]
    pub fn move_to_front(&mut self, l: &mut List, i: u32) {
        if l.head != i {
            self.unlink(l, i);
            self.push_front(l, i);
        }
    }

    /// Takes the tail node off `l`.
    #[inline]
    pub fn pop_back(&mut self, l: &mut List) -> Option<u32> {
        let t = l.tail;
        if t == NIL {
            return None;
        }
        self.unlink(l, t);
        Some(t)
    }

    /// Nodes of `l` from head to tail (tests and invariant checks).
    pub fn collect(&self, l: &List) -> Vec<u32> {
        let mut out = Vec::with_capacity(l.len as usize);
        let mut i = l.head;
        while i != NIL {
            out.push(i);
            i = self.next(i);
        }
        out
    }

    /// Panics unless `l` is a well-formed chain of `l.len` nodes.
    pub fn check(&self, l: &List) {
        let mut n = 0;
        let mut prev = NIL;
        let mut i = l.head;
        while i != NIL {
            assert_eq!(self.prev(i), prev, "list link broken at node {i}");
            prev = i;
            i = self.next(i);
            n += 1;
            assert!(n <= l.len, "list longer than its length {}", l.len);
        }
        assert_eq!(prev, l.tail, "list tail");
        assert_eq!(n, l.len, "list length");
    }
}

/// A fixed pool of arena indices handed out and returned (LIFO, so recently freed
/// nodes, still in cache, are reused first).
#[derive(Clone, Debug)]
pub struct FreeList {
    free: Vec<u32>,
}

impl FreeList {
    /// Indices `0..n`, all free.
    pub fn new(n: u32) -> FreeList {
        FreeList {
            free: (0..n).rev().collect(),
        }
    }

    /// A free index.
    #[inline]
    pub fn take(&mut self) -> u32 {
        self.free
            .pop()
            .expect("buffer arena exhausted: a policy broke its capacity")
    }

    /// Returns `i` to the pool.
    #[inline]
    pub fn give(&mut self, i: u32) {
        self.free.push(i);
    }

    /// Indices free.
    pub fn len(&self) -> usize {
        self.free.len()
    }

    /// Whether none is free.
    pub fn is_empty(&self) -> bool {
        self.free.is_empty()
    }
}

/// log2 of the pages of one [`PageIndex`] group (16 values of 4 B: one cache line).
const LINE_BITS: u32 = 4;

/// Values of one [`PageIndex`] group, [`NIL`] where the page is absent.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Line([u32; 1 << LINE_BITS]);

/// Map from page numbers to `u32` values (never [`NIL`]) for the page-granular policies,
/// direct-indexed by aligned groups of 16 consecutive pages: a group table holds, per
/// group, the cache line of its 16 values. A lookup reads one group entry and one line;
/// there is no hashing, no probe run and no branch on whether the group has a line:
/// every group without buffered pages points at line 0, which is never handed out and
/// holds only `NIL`, so a lookup there simply finds nothing.
///
/// Memory: the group table is 4 B per 16 logical pages, allocated for the whole logical
/// space up front as zeroed memory (resident only where the workload writes, and no
/// growth check on the hot path); lines are reused through a free list and never exceed
/// one per present page. A flat table (one word per logical page) would save the group
/// lookup, but under random writes over a large device it becomes resident in full:
/// 1 GiB more for a 1 TiB device at 4 KiB pages (measured, BENCHMARKS.md session 12).
#[derive(Clone, Debug)]
pub struct PageIndex {
    /// Group → its line (0: the empty line).
    top: Vec<u32>,
    lines: Vec<Line>,
    free: Vec<u32>,
    len: usize,
}

impl PageIndex {
    /// Line of `key`'s group (0 when it has none).
    #[inline(always)]
    fn line(&self, key: u32) -> usize {
        self.top[(key >> LINE_BITS) as usize] as usize
    }

    /// Gives `key`'s group (which has none) an empty line.
    #[cold]
    fn new_line(&mut self, key: u32) -> usize {
        let l = match self.free.pop() {
            Some(l) => l as usize,
            None => {
                self.lines.push(Line([NIL; 1 << LINE_BITS]));
                self.lines.len() - 1
            }
        };
        self.top[(key >> LINE_BITS) as usize] = l as u32;
        l
    }
}

impl PageMap for PageIndex {
    /// An empty index for up to `capacity` of the pages `0 .. logical_pages`: line room
    /// reserved (address space only, up to a million lines) so that the lines, at most
    /// one per present page and the empty one, do not move.
    fn with_pages(capacity: u32, logical_pages: u64) -> PageIndex {
        let groups =
            usize::try_from(logical_pages.div_ceil(1 << LINE_BITS)).expect("page numbers are u32");
        let lines_max = groups.min(capacity as usize).min(1 << 20);
        let mut lines = Vec::with_capacity(lines_max + 1);
        lines.push(Line([NIL; 1 << LINE_BITS]));
        PageIndex {
            top: crate::util::zeroed_vec(groups),
            lines,
            free: Vec::with_capacity(lines_max),
            len: 0,
        }
    }

    /// Entries held.
    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    /// Value stored for `key`.
    #[inline(always)]
    fn get(&self, key: u32) -> Option<u32> {
        let v = self.lines[self.line(key)].0[(key & ((1 << LINE_BITS) - 1)) as usize];
        (v != NIL).then_some(v)
    }

    /// Hints that `key` will be looked up soon: fetches its group entry.
    #[inline]
    fn prefetch(&self, key: u32) {
        crate::util::prefetch(&self.top, (key >> LINE_BITS) as usize);
    }

    /// Hints that `key` will be looked up soon, its group entry being in cache already
    /// (an earlier [`PageIndex::prefetch`]): fetches its line.
    #[inline]
    fn prefetch_line(&self, key: u32) {
        crate::util::prefetch(&self.lines, self.line(key));
    }

    /// Looks `key` up once: its value, or where it would be inserted (its group's line,
    /// 0 when the group has none; valid until the index next changes).
    #[inline(always)]
    fn probe(&self, key: u32) -> Probe {
        let l = self.line(key);
        let v = self.lines[l].0[(key & ((1 << LINE_BITS) - 1)) as usize];
        if v != NIL {
            Probe::Found(v)
        } else {
            Probe::Vacant(l)
        }
    }

    /// Inserts absent `key` at `at`, the position [`PageIndex::probe`] just returned.
    #[inline(always)]
    fn insert_vacant(&mut self, at: usize, key: u32, value: u32) {
        let l = if at == 0 { self.new_line(key) } else { at };
        let slot = &mut self.lines[l].0[(key & ((1 << LINE_BITS) - 1)) as usize];
        debug_assert_eq!(*slot, NIL);
        *slot = value;
        self.len += 1;
    }

    /// Sets `key` to `value` (inserting or overwriting).
    #[inline(always)]
    fn insert(&mut self, key: u32, value: u32) {
        debug_assert!(value != NIL);
        let l = match self.line(key) {
            0 => self.new_line(key),
            l => l,
        };
        let slot = &mut self.lines[l].0[(key & ((1 << LINE_BITS) - 1)) as usize];
        self.len += (*slot == NIL) as usize;
        *slot = value;
    }

    /// Removes `key`; returns its value.
    #[inline(always)]
    fn remove(&mut self, key: u32) -> Option<u32> {
        let l = self.line(key);
        let line = &mut self.lines[l].0;
        let slot = &mut line[(key & ((1 << LINE_BITS) - 1)) as usize];
        let v = *slot;
        if v == NIL {
            // Absent (the empty line, when the group has none, stays all NIL).
            return None;
        }
        *slot = NIL;
        self.len -= 1;
        // The line is empty iff the AND of its values is NIL (all ones): branch-free
        // over the 16 values, unlike a short-circuiting scan.
        if line.iter().fold(NIL, |a, &x| a & x) == NIL {
            self.top[(key >> LINE_BITS) as usize] = 0;
            self.free.push(l as u32);
        }
        Some(v)
    }
}

/// A map from page numbers to `u32` values (never [`NIL`]) with the operations the
/// page-granular LRU needs, in two layouts: [`PageIndex`] (grouped, memory bounded by
/// the buffer) and [`FlatIndex`] (one word per logical page, one access per lookup).
/// [`page_map_is_flat`] chooses.
pub trait PageMap: Send + Clone + 'static {
    /// An empty map for up to `capacity` of the pages `0 .. logical_pages`.
    fn with_pages(capacity: u32, logical_pages: u64) -> Self;
    /// Entries held.
    fn len(&self) -> usize;
    /// Whether the map is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Value stored for `key`.
    fn get(&self, key: u32) -> Option<u32>;
    /// Hints that `key` will be looked up soon (first step).
    fn prefetch(&self, key: u32);
    /// Hints that `key` will be looked up soon (second step, a little later).
    fn prefetch_line(&self, key: u32);
    /// `key`'s value, or where it would be inserted (valid until the map next changes).
    fn probe(&self, key: u32) -> Probe;
    /// Inserts absent `key` at `at`, the position [`PageMap::probe`] just returned.
    fn insert_vacant(&mut self, at: usize, key: u32, value: u32);
    /// Sets `key` to `value` (inserting or overwriting).
    fn insert(&mut self, key: u32, value: u32);
    /// Removes `key`; returns its value.
    fn remove(&mut self, key: u32) -> Option<u32>;
}

/// Largest flat index, in logical pages (4 B each: 256 MiB, what the page FTL's own map
/// costs at that size).
pub const FLAT_INDEX_MAX_PAGES: u64 = 1 << 26;

/// Whether the page-granular LRU indexes `logical_pages` pages with a [`FlatIndex`]:
/// when its table is at most [`FLAT_INDEX_MAX_PAGES`] words. Above, the table would be
/// resident in full under random writes over the device (1 GiB at 1 TiB of 4 KiB pages)
/// for a buffer of a few hundred MiB, so the grouped [`PageIndex`] is used.
pub fn page_map_is_flat(logical_pages: u64) -> bool {
    logical_pages <= FLAT_INDEX_MAX_PAGES
}

/// [`PageMap`] as one word per logical page: a lookup is one access, an insertion or a
/// removal one store, with nothing to allocate or free. It stores `value + 1` so that
/// the table can start as zeroed memory, resident only where the workload writes (a
/// 16 GiB span of 8 KiB pages touches 8 MiB), though under random writes over the whole
/// device all of it becomes resident: hence [`FLAT_INDEX_MAX_PAGES`].
#[derive(Clone, Debug)]
pub struct FlatIndex {
    vals: Vec<u32>,
    len: usize,
}

impl PageMap for FlatIndex {
    fn with_pages(_capacity: u32, logical_pages: u64) -> FlatIndex {
        FlatIndex {
            vals: crate::util::zeroed_vec(
                usize::try_from(logical_pages).expect("page numbers are u32"),
            ),
            len: 0,
        }
    }

    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn get(&self, key: u32) -> Option<u32> {
        self.vals[key as usize].checked_sub(1)
    }

    #[inline(always)]
    fn prefetch(&self, key: u32) {
        crate::util::prefetch(&self.vals, key as usize);
    }

    #[inline(always)]
    fn prefetch_line(&self, _key: u32) {
        // One access: the first hint fetched it.
    }

    #[inline(always)]
    fn probe(&self, key: u32) -> Probe {
        match self.vals[key as usize] {
            0 => Probe::Vacant(key as usize),
            v => Probe::Found(v - 1),
        }
    }

    #[inline(always)]
    fn insert_vacant(&mut self, at: usize, key: u32, value: u32) {
        debug_assert!(at == key as usize && self.vals[at] == 0 && value != NIL);
        self.vals[at] = value + 1;
        self.len += 1;
    }

    #[inline(always)]
    fn insert(&mut self, key: u32, value: u32) {
        debug_assert!(value != NIL);
        let slot = &mut self.vals[key as usize];
        self.len += (*slot == 0) as usize;
        *slot = value + 1;
    }

    #[inline(always)]
    fn remove(&mut self, key: u32) -> Option<u32> {
        let slot = &mut self.vals[key as usize];
        let v = slot.checked_sub(1)?;
        *slot = 0;
        self.len -= 1;
        Some(v)
    }
}

/// One buffered page per slot for page-granular policies: a key map from page to slot,
/// and the slots' links for the policy's lists (each node's key is its page).
#[derive(Clone, Debug)]
pub struct PageSlots {
    /// Page → slot.
    pub map: PageIndex,
    /// List links of each slot; `links.key(s)` is the page slot `s` holds.
    pub links: Links,
    /// Unused slots.
    pub free: FreeList,
}

impl PageSlots {
    /// Room for `capacity` of the pages `0 .. logical_pages`.
    pub fn new(capacity: u32, logical_pages: u64) -> PageSlots {
        PageSlots {
            map: PageIndex::with_pages(capacity, logical_pages),
            links: Links::new(capacity as usize),
            free: FreeList::new(capacity),
        }
    }

    /// Slot holding `lpn`.
    #[inline]
    pub fn find(&self, lpn: u32) -> Option<u32> {
        self.map.get(lpn)
    }

    /// Slot holding `lpn`, or where to insert it ([`PageIndex::probe`]).
    #[inline]
    pub fn probe(&self, lpn: u32) -> Probe {
        self.map.probe(lpn)
    }

    /// Page held by slot `s`.
    #[inline]
    pub fn lpn(&self, s: u32) -> u32 {
        self.links.key(s)
    }

    /// A fresh slot for `lpn` (not yet on any list).
    #[inline]
    pub fn alloc(&mut self, lpn: u32) -> u32 {
        match self.map.probe(lpn) {
            Probe::Vacant(at) => self.alloc_at(at, lpn),
            Probe::Found(_) => panic!("page {lpn} is already buffered"),
        }
    }

    /// A fresh slot for absent `lpn`, inserted at `at` from [`PageSlots::probe`].
    #[inline]
    pub fn alloc_at(&mut self, at: usize, lpn: u32) -> u32 {
        let s = self.free.take();
        self.links.set_key(s, lpn);
        self.links.set_tag(s, 0);
        self.map.insert_vacant(at, lpn, s);
        s
    }

    /// Gives slot `s` (evicted, still on its list) to absent `lpn`, inserted at `at` from
    /// [`PageSlots::probe`]; returns the page `s` held. Cheaper than release + alloc.
    #[inline]
    pub fn reuse_at(&mut self, at: usize, s: u32, lpn: u32) -> u32 {
        let old = self.links.key(s);
        // Insert before removing: removing the old page may free its group's line,
        // which may be `at`, the new page's line.
        self.map.insert_vacant(at, lpn, s);
        self.map.remove(old);
        self.links.set_key(s, lpn);
        self.links.set_tag(s, 0);
        old
    }

    /// Frees slot `s` (already off its list); returns the page it held.
    #[inline]
    pub fn release(&mut self, s: u32) -> u32 {
        let lpn = self.links.key(s);
        self.map.remove(lpn);
        self.links.set_key(s, NIL);
        self.free.give(s);
        lpn
    }

    /// Pages held.
    #[inline]
    pub fn len(&self) -> u32 {
        self.map.len() as u32
    }

    /// Whether no page is held.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// The buffered pages of each logical block ("cluster"), for block-granular policies:
/// a block → node map, a page bitmap and page count per node, and node links for the
/// policy's lists. `block_pages` pages form a logical block; a node exists while its
/// block has at least one buffered page.
#[derive(Clone, Debug)]
pub struct Clusters {
    /// Logical block → node.
    pub map: KeyMap,
    /// Buffered pages of each node.
    pub count: Vec<u32>,
    /// List links of each node; `links.key(n)` is its logical block.
    pub links: Links,
    bits: Vec<u64>,
    words: usize,
    free: FreeList,
    block_pages: u32,
    logical_pages: u64,
    pages: u32,
}

impl Clusters {
    /// Room for `capacity` buffered pages in blocks of `block_pages` pages, on a device
    /// exporting `logical_pages` pages.
    pub fn new(capacity: u32, block_pages: u32, logical_pages: u64) -> Clusters {
        assert!(block_pages >= 1);
        let words = (block_pages as usize).div_ceil(64);
        // At most one node per buffered page.
        let nodes = capacity as usize;
        Clusters {
            map: KeyMap::with_capacity(nodes),
            count: vec![0; nodes],
            links: Links::new(nodes),
            bits: vec![0; nodes * words],
            words,
            free: FreeList::new(capacity),
            block_pages,
            logical_pages,
            pages: 0,
        }
    }

    /// Pages per logical block.
    #[inline]
    pub fn block_pages(&self) -> u32 {
        self.block_pages
    }

    /// Buffered pages over all nodes.
    #[inline]
    pub fn pages(&self) -> u32 {
        self.pages
    }

    /// Nodes (blocks with buffered pages).
    #[inline]
    pub fn nodes(&self) -> u32 {
        self.map.len() as u32
    }

    /// (logical block, offset) of `lpn`.
    #[inline]
    pub fn split(&self, lpn: u32) -> (u32, u32) {
        (lpn / self.block_pages, lpn % self.block_pages)
    }

    /// Node of logical block `lbn`.
    #[inline]
    pub fn find(&self, lbn: u32) -> Option<u32> {
        self.map.get(lbn)
    }

    /// Whether page `off` of node `n` is buffered.
    #[inline]
    pub fn has(&self, n: u32, off: u32) -> bool {
        let w = n as usize * self.words + (off as usize >> 6);
        self.bits[w] & (1u64 << (off & 63)) != 0
    }

    /// Node and page offset of `lpn` when it is buffered.
    #[inline]
    pub fn locate_page(&self, lpn: u32) -> Option<(u32, u32)> {
        let (lbn, off) = self.split(lpn);
        self.find(lbn)
            .filter(|&n| self.has(n, off))
            .map(|n| (n, off))
    }

    /// Whether `lpn` is buffered.
    #[inline]
    pub fn contains(&self, lpn: u32) -> bool {
        self.locate_page(lpn).is_some()
    }

    /// Hints that `lpn`'s block will be looked up soon.
    #[inline]
    pub fn prefetch(&self, lpn: u32) {
        self.map.prefetch(lpn / self.block_pages);
    }

    /// Adds page `off` to node `n` (it must be absent).
    #[inline]
    pub fn set(&mut self, n: u32, off: u32) {
        let w = n as usize * self.words + (off as usize >> 6);
        debug_assert!(self.bits[w] & (1u64 << (off & 63)) == 0);
        self.bits[w] |= 1u64 << (off & 63);
        self.count[n as usize] += 1;
        self.pages += 1;
    }

    /// Removes page `off` from node `n` (it must be present); returns the node's new
    /// page count (the caller frees a node that drops to 0).
    #[inline]
    pub fn clear(&mut self, n: u32, off: u32) -> u32 {
        let w = n as usize * self.words + (off as usize >> 6);
        debug_assert!(self.bits[w] & (1u64 << (off & 63)) != 0);
        self.bits[w] &= !(1u64 << (off & 63));
        self.count[n as usize] -= 1;
        self.pages -= 1;
        self.count[n as usize]
    }

    /// A fresh, empty node for `lbn` (not on any list).
    #[inline]
    pub fn alloc(&mut self, lbn: u32) -> u32 {
        let n = self.free.take();
        self.links.set_key(n, lbn);
        self.count[n as usize] = 0;
        self.map.insert(lbn, n);
        n
    }

    /// Frees empty node `n` (already off its list).
    #[inline]
    pub fn release(&mut self, n: u32) {
        debug_assert_eq!(self.count[n as usize], 0);
        self.map.remove(self.links.key(n));
        self.links.set_key(n, NIL);
        self.free.give(n);
    }

    /// Empties node `n` (already off its list) into `out`, in page order, and frees it.
    /// With `pad`, the block's other pages (within the logical space) are listed too, as
    /// padding: BPLRU writes the whole block so a log-block FTL can switch-merge.
    pub fn drain(&mut self, n: u32, pad: bool, out: &mut Evictions) {
        let base = self.links.key(n) as u64 * self.block_pages as u64;
        let first_word = n as usize * self.words;
        for wi in 0..self.words {
            let mut w = self.bits[first_word + wi];
            if pad {
                let lo = wi as u32 * 64;
                let hi = (lo + 64).min(self.block_pages);
                for off in lo..hi {
                    let lpn = base + off as u64;
                    if lpn >= self.logical_pages {
                        break;
                    }
                    let buffered = w & (1u64 << (off - lo)) != 0;
                    out.push(Evicted {
                        lpn: lpn as u32,
                        pad: !buffered,
                    });
                }
            } else {
                while w != 0 {
                    let t = w.trailing_zeros();
                    out.push(Evicted {
                        lpn: (base + wi as u64 * 64 + t as u64) as u32,
                        pad: false,
                    });
                    w &= w - 1;
                }
            }
            self.bits[first_word + wi] = 0;
        }
        self.pages -= self.count[n as usize];
        self.count[n as usize] = 0;
        self.release(n);
    }

    /// Panics if counts disagree with bitmaps or the map.
    pub fn check(&self) {
        let mut total = 0;
        for n in 0..self.count.len() {
            let lbn = self.links.key(n as u32);
            let bits: u32 = self.bits[n * self.words..(n + 1) * self.words]
                .iter()
                .map(|w| w.count_ones())
                .sum();
            if lbn == NIL {
                assert_eq!(bits, 0, "free node {n} has pages");
                continue;
            }
            assert_eq!(self.map.get(lbn), Some(n as u32), "node {n} not mapped");
            assert_eq!(bits, self.count[n], "node {n} count");
            assert!(bits > 0, "empty node {n} kept");
            total += bits;
        }
        assert_eq!(total, self.pages, "cluster page total");
    }
}

/// Keys evicted recently, oldest dropped first (the ghost lists of adaptive policies).
/// Membership is exact: a key is a ghost iff it is among the last `capacity` keys pushed
/// and not taken out since.
#[derive(Clone, Debug)]
pub struct Ghosts {
    ring: Vec<u32>,
    next: usize,
    live: usize,
    /// Key → ring position of its entry.
    map: KeyMap,
}

impl Ghosts {
    /// Remembers up to `capacity` keys.
    pub fn new(capacity: u32) -> Ghosts {
        let capacity = capacity.max(1) as usize;
        Ghosts {
            ring: vec![NIL; capacity],
            next: 0,
            live: 0,
            map: KeyMap::with_capacity(capacity),
        }
    }

    /// Keys remembered.
    #[inline]
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether no key is remembered.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Remembers `key`, forgetting the oldest key when full.
    #[inline]
    pub fn push(&mut self, key: u32) {
        let old = self.ring[self.next];
        if old != NIL {
            self.map.remove(old);
            self.live -= 1;
        }
        if let Some(pos) = self.map.get(key) {
            // Already a ghost: its older entry goes, the new one counts.
            self.ring[pos as usize] = NIL;
            self.live -= 1;
        }
        self.ring[self.next] = key;
        self.map.insert(key, self.next as u32);
        self.live += 1;
        self.next = (self.next + 1) % self.ring.len();
    }

    /// Forgets `key`; returns whether it was remembered.
    #[inline]
    pub fn take(&mut self, key: u32) -> bool {
        match self.map.remove(key) {
            Some(pos) => {
                self.ring[pos as usize] = NIL;
                self.live -= 1;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    proptest! {
        #[test]
        fn key_map_matches_a_btreemap(ops in prop::collection::vec((0u8..3, 0u32..200, any::<u32>()), 1..2000)) {
            // Small key range: long probe runs, many backward shifts across the wrap.
            let mut m = KeyMap::with_capacity(4);
            let mut r = BTreeMap::new();
            for (op, k, v) in ops {
                match op {
                    0 => { m.insert(k, v); r.insert(k, v); }
                    1 => { prop_assert_eq!(m.remove(k), r.remove(&k)); }
                    _ => { prop_assert_eq!(m.get(k), r.get(&k).copied()); }
                }
                prop_assert_eq!(m.len(), r.len());
            }
            for k in 0..200 {
                prop_assert_eq!(m.get(k), r.get(&k).copied());
            }
        }

        #[test]
        fn page_index_matches_a_btreemap(ops in prop::collection::vec((0u8..4, prop_oneof![0u32..100, 0u32..5000], 0u32..1000), 1..2000)) {
            // Keys in few groups (lines filled and emptied, reused through the free
            // list) and spread ones.
            let mut m = PageIndex::with_pages(4, 5000);
            let mut r = BTreeMap::new();
            for (op, k, v) in ops {
                match op {
                    0 => { m.insert(k, v); r.insert(k, v); }
                    1 => { prop_assert_eq!(m.remove(k), r.remove(&k)); }
                    2 => match m.probe(k) {
                        Probe::Found(x) => prop_assert_eq!(Some(&x), r.get(&k)),
                        Probe::Vacant(at) => {
                            prop_assert!(!r.contains_key(&k));
                            m.insert_vacant(at, k, v);
                            r.insert(k, v);
                        }
                    },
                    _ => { prop_assert_eq!(m.get(k), r.get(&k).copied()); }
                }
                prop_assert_eq!(m.len(), r.len());
            }
            for k in 0..5000 {
                prop_assert_eq!(m.get(k), r.get(&k).copied());
            }
            // Every line but the empty one is either free or holds a present page, and
            // the empty one stays empty.
            prop_assert!(m.lines.len() - 1 - m.free.len() <= m.len());
            prop_assert!(m.lines[0].0.iter().all(|&v| v == NIL));
        }

        #[test]
        fn ghosts_remember_the_last_pushes(keys in prop::collection::vec(0u32..30, 1..300), cap in 1u32..12) {
            let mut g = Ghosts::new(cap);
            let mut log: Vec<u32> = Vec::new();
            for &k in &keys {
                g.push(k);
                log.push(k);
            }
            // Remembered = distinct keys among the last `cap` pushes.
            let tail = &log[log.len().saturating_sub(cap as usize)..];
            let mut want: Vec<u32> = tail.to_vec();
            want.sort_unstable();
            want.dedup();
            prop_assert_eq!(g.len(), want.len());
            for k in 0..30 {
                prop_assert_eq!(g.take(k), want.contains(&k));
            }
            prop_assert!(g.is_empty());
        }
    }

    #[test]
    fn lists_keep_order_through_moves() {
        let mut links = Links::new(5);
        let mut l = List::default();
        for i in 0..5 {
            links.push_front(&mut l, i); // head: 4 3 2 1 0
        }
        links.move_to_front(&mut l, 1); // 1 4 3 2 0
        links.move_to_front(&mut l, 1); // unchanged
        assert_eq!(links.pop_back(&mut l), Some(0)); // 1 4 3 2
        links.unlink(&mut l, 3); // 1 4 2
        links.push_back(&mut l, 3); // 1 4 2 3
        assert_eq!(links.collect(&l), vec![1, 4, 2, 3]);
        links.check(&l);
    }

    #[test]
    fn clusters_drain_in_page_order_with_and_without_padding() {
        // Blocks of 4 pages; a 10-page device, so block 2 holds pages 8 and 9 only.
        let mut c = Clusters::new(8, 4, 10);
        let n = c.alloc(0);
        c.set(n, 3);
        c.set(n, 1);
        let mut out = Evictions::default();
        c.drain(n, false, &mut out);
        let got: Vec<(u32, bool)> = out.pages.iter().map(|e| (e.lpn, e.pad)).collect();
        assert_eq!(got, vec![(1, false), (3, false)]);
        // Padding lists every page of the block, buffered ones unpadded, and stops at
        // the end of the logical space (page 10 does not exist).
        let n = c.alloc(2);
        c.set(n, 1); // page 9
        out.clear();
        c.drain(n, true, &mut out);
        let got: Vec<(u32, bool)> = out.pages.iter().map(|e| (e.lpn, e.pad)).collect();
        assert_eq!(got, vec![(8, true), (9, false)]);
        assert_eq!(c.pages(), 0);
        assert_eq!(c.nodes(), 0);
        c.check();
    }
}
