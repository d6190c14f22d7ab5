//! A B+-tree (Bayer & McCreight 1972; Comer, "The ubiquitous B-tree", 1979) keyed by a
//! record's HDD start: the balanced tree the paper asks for, with wide nodes so a lookup
//! touches a few cache lines instead of one per level as in a binary tree.
//!
//! ```text
//! inner node: children c0..ck, keys k1..kk; child i holds starts in [k_i, k_(i+1))
//! leaf:       up to 32 records sorted by start, linked to its neighbours
//! find(unit): in each inner node binary-search the last key ≤ unit and descend; in the
//!             leaf binary-search the last start ≤ unit (or take the previous leaf's
//!             last record); hit if unit < start + len
//! insert(r):  put r into its leaf; a full leaf splits in half (or, when r goes past the
//!             end of the rightmost leaf, into a full leaf and a new one, so ascending
//!             inserts fill leaves completely); the split key goes up, splitting full
//!             inner nodes the same way, up to a new root
//! remove(s):  take s out of its leaf; an emptied leaf is unlinked and freed, and so is
//!             an emptied inner node; a root with one child gives way to that child
//! ```
//!
//! Choices the classic algorithm leaves open: nodes are not merged or rebalanced when
//! they become sparse (only empty nodes are freed), as many production B-trees do; the
//! height therefore stays logarithmic in the largest record count the tree has held.
//! Separator keys are not tightened after removals: a stale separator is still a lower
//! bound of its child, so routing stays correct, and a lookup below a leaf's first
//! record falls back to the previous leaf's last record through the leaf links.
//! Nodes live in two arenas indexed by `u32` with free lists: no allocation per
//! operation once warm.

use super::{CacheTable, Cursor, Record};

const NIL: u32 = u32::MAX;
/// Deeper than any tree that fits in memory (a node splits only when full, so reaching
/// height h takes about (fan-out / 2)^h inserts).
const MAX_HEIGHT: usize = 16;

/// Number of `keys[..n]` that are ≤ `key` (the keys ascend), by a binary search whose
/// probe sequence depends only on `n` and whose steps are arithmetic, not branches (a
/// random key would mispredict half of them): `⌈log2 n⌉ + 1` comparisons.
#[inline(always)]
fn rank(keys: &[u64], n: usize, key: u64, cmp: &mut u64) -> usize {
    if n == 0 {
        return 0;
    }
    let (mut base, mut size) = (0usize, n);
    while size > 1 {
        let half = size / 2;
        let mid = base + half;
        base = std::hint::select_unpredictable(keys[mid] <= key, mid, base);
        size -= half;
    }
    // The loop ran ⌈log2 n⌉ times whatever the key.
    *cmp += u64::from(usize::BITS - (n - 1).leading_zeros()) + 1;
    base + (keys[base] <= key) as usize
}

/// Asks for the cache lines of `keys[..n]` at once, so the binary search that follows
/// waits for one memory access rather than one per probe.
#[inline(always)]
fn prefetch_keys(keys: &[u64], n: usize) {
    for i in (0..n).step_by(8) {
        crate::util::prefetch(keys, i);
    }
}

/// A leaf: records sorted by start; `meta[i]` packs `len << 32 | value`.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
struct Leaf<const LEAF_CAP: usize> {
    starts: [u64; LEAF_CAP],
    meta: [u64; LEAF_CAP],
    len: u32,
    prev: u32,
    next: u32,
}

impl<const LEAF_CAP: usize> Leaf<LEAF_CAP> {
    fn empty() -> Self {
        Leaf {
            starts: [0; LEAF_CAP],
            meta: [0; LEAF_CAP],
            len: 0,
            prev: NIL,
            next: NIL,
        }
    }

    #[inline]
    fn record(&self, i: usize) -> Record {
        let m = self.meta[i];
        Record {
            start: self.starts[i],
            len: (m >> 32) as u32,
            value: m as u32,
        }
    }

    /// Number of records with start ≤ `key`.
    #[inline]
    fn rank(&self, key: u64, cmp: &mut u64) -> usize {
        rank(&self.starts, self.len as usize, key, cmp)
    }

    fn insert_at(&mut self, i: usize, r: Record) {
        let n = self.len as usize;
        debug_assert!(n < LEAF_CAP && i <= n);
        self.starts.copy_within(i..n, i + 1);
        self.meta.copy_within(i..n, i + 1);
        self.starts[i] = r.start;
        self.meta[i] = ((r.len as u64) << 32) | r.value as u64;
        self.len += 1;
    }

    fn remove_at(&mut self, i: usize) {
        let n = self.len as usize;
        self.starts.copy_within(i + 1..n, i);
        self.meta.copy_within(i + 1..n, i);
        self.len -= 1;
    }

    fn set_len(&mut self, i: usize, len: u32) {
        self.meta[i] = ((len as u64) << 32) | (self.meta[i] & 0xffff_ffff);
    }
}

#[derive(Clone, Debug)]
#[repr(C, align(64))]
struct Inner<const INNER_CAP: usize> {
    /// `keys[i]` is a lower bound of child `i`'s starts (`keys[0]` is not used to route).
    keys: [u64; INNER_CAP],
    children: [u32; INNER_CAP],
    len: u32,
}

impl<const INNER_CAP: usize> Inner<INNER_CAP> {
    fn empty() -> Self {
        Inner {
            keys: [0; INNER_CAP],
            children: [NIL; INNER_CAP],
            len: 0,
        }
    }

    /// The child whose range holds `key`: the number of separators `keys[1..]` ≤ `key`.
    #[inline]
    fn route(&self, key: u64, cmp: &mut u64) -> usize {
        let n = self.len as usize;
        rank(&self.keys[1..], n - 1, key, cmp)
    }

    fn insert_at(&mut self, i: usize, key: u64, child: u32) {
        let n = self.len as usize;
        debug_assert!(n < INNER_CAP && i <= n);
        self.keys.copy_within(i..n, i + 1);
        self.children.copy_within(i..n, i + 1);
        self.keys[i] = key;
        self.children[i] = child;
        self.len += 1;
    }

    fn remove_at(&mut self, i: usize) {
        let n = self.len as usize;
        self.keys.copy_within(i + 1..n, i);
        self.children.copy_within(i + 1..n, i);
        self.len -= 1;
    }
}

/// A B+-tree of records with up to `LEAF_CAP` records per leaf and `INNER_CAP`
/// children per inner node (at most 256 records per leaf: cursors keep the slot in a
/// byte). The registered `btree` uses 32 and 32; tests use tiny nodes to build deep trees.
#[derive(Clone, Debug)]
pub struct BTreeTable<const LEAF_CAP: usize = 32, const INNER_CAP: usize = 32> {
    leaves: Vec<Leaf<LEAF_CAP>>,
    inners: Vec<Inner<INNER_CAP>>,
    free_leaves: Vec<u32>,
    free_inners: Vec<u32>,
    /// A leaf when `height` is 0, else an inner node.
    root: u32,
    /// Inner levels above the leaves.
    height: usize,
    len: usize,
}

impl<const L: usize, const I: usize> Default for BTreeTable<L, I> {
    fn default() -> Self {
        Self::new()
    }
}

/// The inner nodes passed on the way down and the child taken in each.
struct Path {
    nodes: [(u32, u32); MAX_HEIGHT],
    depth: usize,
    leaf: u32,
}

impl<const LEAF_CAP: usize, const INNER_CAP: usize> BTreeTable<LEAF_CAP, INNER_CAP> {
    /// An empty tree (one empty root leaf).
    pub fn new() -> Self {
        assert!(
            (2..=256).contains(&LEAF_CAP) && (3..=1 << 16).contains(&INNER_CAP),
            "node capacities out of range"
        );
        BTreeTable {
            leaves: vec![Leaf::empty()],
            inners: Vec::new(),
            free_leaves: Vec::new(),
            free_inners: Vec::new(),
            root: 0,
            height: 0,
            len: 0,
        }
    }

    /// Inner levels above the leaves.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The leaf whose range holds `key`.
    #[inline]
    fn leaf_for(&self, key: u64, cmp: &mut u64) -> u32 {
        let mut n = self.root;
        for level in 0..self.height {
            let inner = &self.inners[n as usize];
            n = inner.children[inner.route(key, cmp)];
            if level + 1 < self.height {
                let next = &self.inners[n as usize];
                prefetch_keys(&next.keys, INNER_CAP);
            } else {
                let leaf = &self.leaves[n as usize];
                prefetch_keys(&leaf.starts, LEAF_CAP);
                prefetch_keys(&leaf.meta, LEAF_CAP);
            }
        }
        n
    }

    #[inline]
    fn descend(&self, key: u64, cmp: &mut u64) -> Path {
        let mut path = Path {
            nodes: [(NIL, 0); MAX_HEIGHT],
            depth: 0,
            leaf: self.root,
        };
        let mut n = self.root;
        for level in 0..self.height {
            let inner = &self.inners[n as usize];
            let c = inner.route(key, cmp);
            path.nodes[level] = (n, c as u32);
            n = inner.children[c];
        }
        path.depth = self.height;
        path.leaf = n;
        path
    }

    /// Leaf and slot of the record with the largest start ≤ `key`.
    #[inline]
    fn floor(&self, key: u64, cmp: &mut u64) -> Option<(u32, usize)> {
        let l = self.leaf_for(key, cmp);
        let leaf = &self.leaves[l as usize];
        let r = leaf.rank(key, cmp);
        if r > 0 {
            Some((l, r - 1))
        } else if leaf.prev != NIL {
            let p = leaf.prev;
            Some((p, self.leaves[p as usize].len as usize - 1))
        } else {
            None
        }
    }

    fn first(&self) -> Option<(u32, usize)> {
        let mut n = self.root;
        for _ in 0..self.height {
            n = self.inners[n as usize].children[0];
        }
        (self.leaves[n as usize].len > 0).then_some((n, 0))
    }

    fn step(&self, leaf: u32, slot: usize) -> Option<(u32, usize)> {
        let l = &self.leaves[leaf as usize];
        if slot + 1 < l.len as usize {
            Some((leaf, slot + 1))
        } else if l.next != NIL {
            Some((l.next, 0))
        } else {
            None
        }
    }

    #[inline]
    fn cursor(leaf: u32, slot: usize) -> Cursor {
        Cursor(((leaf as u64) << 8) | slot as u64)
    }

    fn new_leaf(&mut self) -> u32 {
        match self.free_leaves.pop() {
            Some(i) => {
                self.leaves[i as usize] = Leaf::empty();
                i
            }
            None => {
                push_advised(&mut self.leaves, Leaf::empty());
                (self.leaves.len() - 1) as u32
            }
        }
    }

    fn new_inner(&mut self) -> u32 {
        match self.free_inners.pop() {
            Some(i) => {
                self.inners[i as usize] = Inner::empty();
                i
            }
            None => {
                push_advised(&mut self.inners, Inner::empty());
                (self.inners.len() - 1) as u32
            }
        }
    }

    /// Splits full leaf `l` for an insert at `pos`; returns the new right leaf.
    fn split_leaf(&mut self, l: u32, pos: usize) -> u32 {
        let nl = self.new_leaf();
        let (left, right) = two_mut(&mut self.leaves, l as usize, nl as usize);
        // Appending past the last record of the rightmost leaf: keep this leaf full.
        let mid = if pos == LEAF_CAP && left.next == NIL {
            LEAF_CAP
        } else {
            LEAF_CAP / 2
        };
        let moved = LEAF_CAP - mid;
        right.starts[..moved].copy_from_slice(&left.starts[mid..]);
        right.meta[..moved].copy_from_slice(&left.meta[mid..]);
        right.len = moved as u32;
        left.len = mid as u32;
        right.next = left.next;
        right.prev = l;
        left.next = nl;
        let after = right.next;
        if after != NIL {
            self.leaves[after as usize].prev = nl;
        }
        nl
    }

    /// Puts `(key, child)` into the inner node at `level` of `path` right after the
    /// child taken there, splitting upward as needed.
    fn insert_up(&mut self, path: &Path, mut level: usize, mut key: u64, mut child: u32) {
        loop {
            if level == 0 && path.depth == 0 || level == usize::MAX {
                // The root split: a new root over the old root and `child`.
                let old = self.root;
                let r = self.new_inner();
                let inner = &mut self.inners[r as usize];
                inner.keys[0] = 0;
                inner.children[0] = old;
                inner.keys[1] = key;
                inner.children[1] = child;
                inner.len = 2;
                self.root = r;
                self.height += 1;
                return;
            }
            let (n, c) = path.nodes[level];
            let pos = c as usize + 1;
            if (self.inners[n as usize].len as usize) < INNER_CAP {
                self.inners[n as usize].insert_at(pos, key, child);
                return;
            }
            let nn = self.new_inner();
            let (left, right) = two_mut(&mut self.inners, n as usize, nn as usize);
            let mid = INNER_CAP / 2;
            let moved = INNER_CAP - mid;
            right.keys[..moved].copy_from_slice(&left.keys[mid..]);
            right.children[..moved].copy_from_slice(&left.children[mid..]);
            right.len = moved as u32;
            left.len = mid as u32;
            if pos <= mid {
                left.insert_at(pos, key, child);
            } else {
                right.insert_at(pos - mid, key, child);
            }
            key = right.keys[0];
            child = nn;
            level = if level == 0 { usize::MAX } else { level - 1 };
        }
    }

    fn child_index(&self, path: &Path, level: usize) -> (u32, usize) {
        let (n, c) = path.nodes[level];
        (n, c as usize)
    }
}

/// Pushes `item`; when the vector grows, asks for huge pages over its whole allocation:
/// random lookups in a large tree otherwise miss the TLB on nearly every leaf.
fn push_advised<T: Clone>(v: &mut Vec<T>, item: T) {
    if v.len() == v.capacity() {
        // Grow by hand so the advice comes before any page of the new block is touched
        // (a plain realloc would move the old pages over as small pages).
        let mut bigger = Vec::with_capacity((v.capacity() * 2).max(16));
        crate::util::advise_huge(bigger.spare_capacity_mut());
        bigger.extend_from_slice(v);
        *v = bigger;
    }
    v.push(item);
}

/// Two distinct elements of one vector, mutably.
fn two_mut<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    debug_assert_ne!(a, b);
    if a < b {
        let (x, y) = v.split_at_mut(b);
        (&mut x[a], &mut y[0])
    } else {
        let (x, y) = v.split_at_mut(a);
        (&mut y[0], &mut x[b])
    }
}

impl<const LEAF_CAP: usize, const INNER_CAP: usize> CacheTable for BTreeTable<LEAF_CAP, INNER_CAP> {
    fn name(&self) -> &'static str {
        "btree"
    }

    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn find(&self, unit: u64, cmp: &mut u64) -> Option<(Cursor, Record)> {
        let (leaf, slot) = self.floor(unit, cmp)?;
        let r = self.leaves[leaf as usize].record(slot);
        *cmp += 1;
        r.contains(unit).then(|| (Self::cursor(leaf, slot), r))
    }

    fn get(&self, c: Cursor) -> Option<Record> {
        let leaf = self.leaves.get((c.0 >> 8) as usize)?;
        let slot = (c.0 & 0xff) as usize;
        (slot < leaf.len as usize).then(|| leaf.record(slot))
    }

    fn next(&self, c: Cursor) -> Option<(Cursor, Record)> {
        self.get(c)?;
        let (leaf, slot) = self.step((c.0 >> 8) as u32, (c.0 & 0xff) as usize)?;
        Some((
            Self::cursor(leaf, slot),
            self.leaves[leaf as usize].record(slot),
        ))
    }

    fn overlapping(&self, start: u64, end: u64, out: &mut Vec<Record>, cmp: &mut u64) {
        let mut at = match self.floor(start, cmp) {
            Some((l, s)) if self.leaves[l as usize].record(s).end() > start => Some((l, s)),
            Some((l, s)) => self.step(l, s),
            None => self.first(),
        };
        while let Some((l, s)) = at {
            let r = self.leaves[l as usize].record(s);
            *cmp += 1;
            if r.start >= end {
                break;
            }
            out.push(r);
            at = self.step(l, s);
        }
    }

    fn insert(&mut self, r: Record) {
        debug_assert!(r.len > 0);
        let mut ignore = 0;
        let path = self.descend(r.start, &mut ignore);
        let l = path.leaf;
        let pos = self.leaves[l as usize].rank(r.start, &mut ignore);
        self.len += 1;
        if (self.leaves[l as usize].len as usize) < LEAF_CAP {
            self.leaves[l as usize].insert_at(pos, r);
            return;
        }
        let nl = self.split_leaf(l, pos);
        let left_len = self.leaves[l as usize].len as usize;
        if pos <= left_len && left_len < LEAF_CAP {
            self.leaves[l as usize].insert_at(pos, r);
        } else {
            self.leaves[nl as usize].insert_at(pos - left_len, r);
        }
        let key = self.leaves[nl as usize].starts[0];
        let level = if path.depth == 0 { 0 } else { path.depth - 1 };
        self.insert_up(&path, level, key, nl);
    }

    fn remove(&mut self, start: u64) -> Option<Record> {
        let mut ignore = 0;
        let path = self.descend(start, &mut ignore);
        let l = path.leaf;
        let leaf = &self.leaves[l as usize];
        let r = leaf.rank(start, &mut ignore);
        if r == 0 || leaf.starts[r - 1] != start {
            return None;
        }
        let removed = leaf.record(r - 1);
        self.leaves[l as usize].remove_at(r - 1);
        self.len -= 1;
        if self.leaves[l as usize].len > 0 || path.depth == 0 {
            return Some(removed);
        }
        // Unlink and free the empty leaf, then drop it from its parent (and any inner
        // node that empties in turn).
        let (prev, next) = (self.leaves[l as usize].prev, self.leaves[l as usize].next);
        if prev != NIL {
            self.leaves[prev as usize].next = next;
        }
        if next != NIL {
            self.leaves[next as usize].prev = prev;
        }
        self.free_leaves.push(l);
        let mut level = path.depth;
        while level > 0 {
            level -= 1;
            let (n, c) = self.child_index(&path, level);
            self.inners[n as usize].remove_at(c);
            if self.inners[n as usize].len > 0 {
                break;
            }
            self.free_inners.push(n);
        }
        // A root inner node with a single child gives way to it.
        while self.height > 0 && self.inners[self.root as usize].len == 1 {
            let old = self.root;
            self.root = self.inners[old as usize].children[0];
            self.free_inners.push(old);
            self.height -= 1;
        }
        Some(removed)
    }

    fn set_len(&mut self, start: u64, len: u32) -> bool {
        let mut ignore = 0;
        let path = self.descend(start, &mut ignore);
        let leaf = &mut self.leaves[path.leaf as usize];
        let r = leaf.rank(start, &mut ignore);
        if r == 0 || leaf.starts[r - 1] != start {
            return false;
        }
        leaf.set_len(r - 1, len);
        true
    }

    fn memory_bytes(&self) -> u64 {
        (self.leaves.capacity() * std::mem::size_of::<Leaf<LEAF_CAP>>()
            + self.inners.capacity() * std::mem::size_of::<Inner<INNER_CAP>>()
            + (self.free_leaves.capacity() + self.free_inners.capacity()) * 4) as u64
    }

    fn check_invariants(&self) {
        // Walk down every path checking key bounds and equal leaf depth; then walk the
        // leaf chain checking order and the count.
        fn walk<const L: usize, const I: usize>(
            t: &BTreeTable<L, I>,
            n: u32,
            level: usize,
            lo: u64,
            hi: u64,
            leaves: &mut Vec<u32>,
        ) {
            if level == t.height {
                let l = &t.leaves[n as usize];
                assert!(l.len > 0 || t.height == 0, "empty non-root leaf {n}");
                for i in 0..l.len as usize {
                    assert!(
                        l.starts[i] >= lo && l.starts[i] < hi,
                        "leaf {n} key out of range"
                    );
                }
                leaves.push(n);
                return;
            }
            let inner = &t.inners[n as usize];
            assert!(inner.len > 0, "empty inner node {n}");
            for i in 0..inner.len as usize {
                let clo = if i == 0 { lo } else { inner.keys[i] };
                let chi = if i + 1 < inner.len as usize {
                    inner.keys[i + 1]
                } else {
                    hi
                };
                assert!(
                    clo <= chi && clo >= lo && chi <= hi,
                    "inner {n} keys out of order"
                );
                walk(t, inner.children[i], level + 1, clo, chi, leaves);
            }
        }
        let mut leaves = Vec::new();
        walk::<LEAF_CAP, INNER_CAP>(self, self.root, 0, 0, u64::MAX, &mut leaves);
        let mut count = 0;
        let mut prev_end = 0u64;
        let mut prev_leaf = NIL;
        for &l in &leaves {
            let leaf = &self.leaves[l as usize];
            assert_eq!(leaf.prev, prev_leaf, "leaf links");
            if prev_leaf != NIL {
                assert_eq!(self.leaves[prev_leaf as usize].next, l, "leaf links");
            }
            for i in 0..leaf.len as usize {
                let r = leaf.record(i);
                assert!(
                    r.len > 0 && r.start >= prev_end,
                    "records overlap or out of order"
                );
                prev_end = r.end();
                count += 1;
            }
            prev_leaf = l;
        }
        assert_eq!(self.leaves[prev_leaf as usize].next, NIL);
        assert_eq!(count, self.len);
    }
}
