//! A chained hash index with a fixed node pool: the table the hash-based FTLs (AFTL, CFTL,
//! DFTL's cached mapping table) keep in controller RAM.
//!
//! ```text
//! buckets[h(key)] → node → node → … → NIL      (each node: key, next)
//! find(key):   walk the chain from its bucket, comparing keys
//! insert(key): take a node from the free list, push it at the chain's head
//! remove(key): unlink it, return the node to the free list
//! ```
//! A node carries its key, its chain link and the owner's payload `P` (physical address,
//! LRU links…) together, so a lookup touches one cache line per node; owners whose payload
//! depends on run-time settings (CFTL's clustered slots) keep it in arrays indexed by
//! node instead. [`ChainedHash::bytes`] plus the payload fields' widths give the table's
//! real RAM size (declared field widths, not the simulator's padding). The
//! hash is Fibonacci (multiplicative) hashing, which spreads runs of consecutive keys
//! (sequential block numbers) over distinct buckets, reduced to any bucket count with a
//! multiply-shift (Lemire's fast range), so a table has exactly as many buckets as asked.
//!
//! Probes: `find` reports the table entries it visited — the bucket head when the bucket
//! is empty, else every node compared — so a lookup costs at least one probe per table.

/// "No node": empty bucket, end of chain, or a free node's key.
pub const NIL: u32 = u32::MAX;

/// Bytes of one key, one `next` link and one bucket head (32-bit node indices and keys,
/// as in the papers' tables).
pub const WORD_BYTES: u64 = 4;

/// Recency order of a table's nodes: a doubly linked list threaded through two arrays
/// indexed by node (AFTL's fine table, CFTL's fine tables with LRU demotion). RAM: two
/// links of [`WORD_BYTES`] per node.
#[derive(Clone, Debug)]
pub struct LruList {
    prev: Vec<u32>,
    next: Vec<u32>,
    mru: u32,
    lru: u32,
}

impl LruList {
    /// An empty list over `nodes` nodes.
    pub fn new(nodes: u32) -> LruList {
        LruList {
            prev: vec![NIL; nodes as usize],
            next: vec![NIL; nodes as usize],
            mru: NIL,
            lru: NIL,
        }
    }

    /// The least recently used node (`NIL` when empty).
    pub fn lru(&self) -> u32 {
        self.lru
    }

    /// Takes node `n` out of the list.
    pub fn unlink(&mut self, n: u32) {
        let (p, x) = (self.prev[n as usize], self.next[n as usize]);
        if p == NIL {
            self.mru = x;
        } else {
            self.next[p as usize] = x;
        }
        if x == NIL {
            self.lru = p;
        } else {
            self.prev[x as usize] = p;
        }
        self.prev[n as usize] = NIL;
        self.next[n as usize] = NIL;
    }

    /// Puts node `n` (not in the list) at the most recently used end.
    pub fn push_mru(&mut self, n: u32) {
        self.prev[n as usize] = NIL;
        self.next[n as usize] = self.mru;
        if self.mru != NIL {
            self.prev[self.mru as usize] = n;
        } else {
            self.lru = n;
        }
        self.mru = n;
    }

    /// A use of node `n` (in the list): it becomes the most recently used.
    #[inline]
    pub fn touch(&mut self, n: u32) {
        if self.mru != n {
            self.unlink(n);
            self.push_mru(n);
        }
    }

    /// Panics unless the list's links agree both ways and it holds exactly `len` nodes,
    /// each of them `used`; `what` names the table.
    pub fn check(&self, len: u32, used: impl Fn(u32) -> bool, what: &str) {
        let mut n = self.mru;
        let mut prev = NIL;
        let mut listed = 0;
        while n != NIL {
            assert_eq!(self.prev[n as usize], prev, "{what}: LRU back link of {n}");
            assert!(used(n), "{what}: free node {n} in the LRU list");
            listed += 1;
            prev = n;
            n = self.next[n as usize];
        }
        assert_eq!(prev, self.lru, "{what}: LRU tail");
        assert_eq!(listed, len, "{what}: LRU length");
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Node<P> {
    key: u32,
    next: u32,
    val: P,
}

/// The fixed node pool both tables use: nodes carry key, link and payload; free nodes are
/// threaded through `next`, in ascending order at first so allocation is deterministic
/// and the first nodes used are adjacent in memory. The tables give read access to it
/// (`key`, `val`, …) through `Deref`.
#[derive(Clone, Debug)]
pub struct Pool<P> {
    nodes: Vec<Node<P>>,
    free: u32,
    len: u32,
}

impl<P: Copy + Default> Pool<P> {
    fn new(nodes: u32) -> Pool<P> {
        assert!(nodes < NIL / 2, "too many nodes");
        let mut nodes_v = crate::util::filled_vec(
            nodes as usize,
            Node {
                key: NIL,
                next: NIL,
                val: P::default(),
            },
        );
        for (n, node) in nodes_v.iter_mut().enumerate() {
            node.next = if n + 1 < nodes as usize {
                n as u32 + 1
            } else {
                NIL
            };
        }
        Pool {
            nodes: nodes_v,
            free: if nodes > 0 { 0 } else { NIL },
            len: 0,
        }
    }

    /// Takes a free node for `key` (payload reset), or `NIL` when none is left.
    #[inline]
    fn alloc(&mut self, key: u32, next: u32) -> u32 {
        let n = self.free;
        if n != NIL {
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = Node {
                key,
                next,
                val: P::default(),
            };
            self.len += 1;
        }
        n
    }

    /// Returns node `n` to the free list.
    #[inline]
    fn release(&mut self, n: u32) {
        self.nodes[n as usize].key = NIL;
        self.nodes[n as usize].next = self.free;
        self.free = n;
        self.len -= 1;
    }

    /// Panics unless the free list holds exactly the nodes not marked in `seen` (the
    /// used ones), each once.
    fn check_free(&self, seen: &mut [bool]) {
        let mut n = self.free;
        while n != NIL {
            assert!(!seen[n as usize], "free node {n} also in use");
            seen[n as usize] = true;
            assert_eq!(self.key(n), NIL, "free node {n} has a key");
            n = self.nodes[n as usize].next;
        }
        assert!(seen.iter().all(|&s| s), "nodes lost");
    }

    /// Hints the CPU to fetch node `n`.
    #[inline(always)]
    pub fn prefetch_node(&self, n: u32) {
        crate::util::prefetch(&self.nodes, n as usize);
    }

    /// Key stored in node `n` ([`NIL`] for a free node).
    #[inline(always)]
    pub fn key(&self, n: u32) -> u32 {
        self.nodes[n as usize].key
    }

    /// Payload of node `n`.
    #[inline(always)]
    pub fn val(&self, n: u32) -> &P {
        &self.nodes[n as usize].val
    }

    /// Mutable payload of node `n`.
    #[inline(always)]
    pub fn val_mut(&mut self, n: u32) -> &mut P {
        &mut self.nodes[n as usize].val
    }

    /// Nodes in use.
    #[inline]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether no node is in use.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether every node is in use.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.free == NIL
    }

    /// Nodes in the pool.
    #[inline]
    pub fn capacity(&self) -> u32 {
        self.nodes.len() as u32
    }
}

/// A chained hash index over `u32` keys with a fixed pool of nodes carrying payload `P`.
#[derive(Clone, Debug)]
pub struct ChainedHash<P: Copy + Default = ()> {
    buckets: Vec<u32>,
    pool: Pool<P>,
}

impl<P: Copy + Default> std::ops::Deref for ChainedHash<P> {
    type Target = Pool<P>;
    fn deref(&self) -> &Pool<P> {
        &self.pool
    }
}

impl<P: Copy + Default> std::ops::DerefMut for ChainedHash<P> {
    fn deref_mut(&mut self) -> &mut Pool<P> {
        &mut self.pool
    }
}

impl<P: Copy + Default> ChainedHash<P> {
    /// A table of `nodes` nodes and `buckets` buckets (at least 1).
    pub fn new(nodes: u32, buckets: u32) -> ChainedHash<P> {
        ChainedHash {
            buckets: crate::util::filled_vec(buckets.max(1) as usize, NIL),
            pool: Pool::new(nodes),
        }
    }

    /// Hints the CPU to fetch `key`'s bucket head.
    #[inline(always)]
    pub fn prefetch(&self, key: u32) {
        crate::util::prefetch(&self.buckets, self.bucket(key));
    }

    /// First node of `key`'s chain (`NIL` when the bucket is empty), for prefetching.
    #[inline(always)]
    pub fn head(&self, key: u32) -> u32 {
        self.buckets[self.bucket(key)]
    }

    #[inline(always)]
    fn bucket(&self, key: u32) -> usize {
        ((key.wrapping_mul(0x9E37_79B9) as u64 * self.buckets.len() as u64) >> 32) as usize
    }

    /// Node holding `key` (or [`NIL`]) and the probes the search took.
    #[inline]
    pub fn find(&self, key: u32) -> (u32, u32) {
        let mut n = self.buckets[self.bucket(key)];
        let mut probes = 0;
        while n != NIL {
            probes += 1;
            let node = &self.pool.nodes[n as usize];
            if node.key == key {
                return (n, probes);
            }
            n = node.next;
        }
        (NIL, probes.max(1))
    }

    /// Adds `key` (which must be absent); returns its node, or [`NIL`] if the pool is full.
    #[inline]
    pub fn insert(&mut self, key: u32) -> u32 {
        debug_assert!(key != NIL);
        debug_assert_eq!(self.find(key).0, NIL, "key {key} already present");
        let b = self.bucket(key);
        let n = self.pool.alloc(key, self.buckets[b]);
        if n != NIL {
            self.buckets[b] = n;
        }
        n
    }

    /// Removes `key`; returns the node it occupied, or [`NIL`] if absent.
    #[inline]
    pub fn remove(&mut self, key: u32) -> u32 {
        let b = self.bucket(key);
        let mut prev = NIL;
        let mut n = self.buckets[b];
        while n != NIL {
            let node = self.pool.nodes[n as usize];
            if node.key == key {
                if prev == NIL {
                    self.buckets[b] = node.next;
                } else {
                    self.pool.nodes[prev as usize].next = node.next;
                }
                self.pool.release(n);
                return n;
            }
            prev = n;
            n = node.next;
        }
        NIL
    }

    /// Bucket heads.
    pub fn bucket_count(&self) -> u32 {
        self.buckets.len() as u32
    }

    /// RAM of the index itself: bucket heads + (key + next) per pool node. Payload fields
    /// are added by the owner.
    pub fn bytes(&self) -> u64 {
        self.buckets.len() as u64 * WORD_BYTES + self.capacity() as u64 * 2 * WORD_BYTES
    }

    /// Panics if a chain is broken: every used node reachable from its own bucket exactly
    /// once, and the free list holds the rest.
    pub fn check(&self) {
        let mut seen = vec![false; self.capacity() as usize];
        let mut used = 0;
        for (b, &head) in self.buckets.iter().enumerate() {
            let mut n = head;
            while n != NIL {
                assert!(!seen[n as usize], "node {n} reachable twice");
                seen[n as usize] = true;
                assert_eq!(self.bucket(self.key(n)), b, "node {n} in wrong bucket");
                used += 1;
                n = self.pool.nodes[n as usize].next;
            }
        }
        assert_eq!(used, self.len(), "used nodes");
        self.pool.check_free(&mut seen);
    }
}

/// An open-addressing (linear probing) index over `u32` keys: a power-of-two array of
/// `(key, node)` slots, kept at most half full, over a fixed pool of nodes carrying `key`
/// and payload `P`. A lookup compares keys in the slot array itself, so a miss usually
/// costs one cache line and no node access; deletion shifts later slots back (no
/// tombstones). Used where misses dominate (DFTL's cached mapping table).
///
/// Probes: slots examined by `find`, including the empty slot that ends a miss.
#[derive(Clone, Debug)]
pub struct OpenHash<P: Copy + Default> {
    slots: Vec<(u32, u32)>,
    mask: u32,
    shift: u32,
    pool: Pool<P>,
}

impl<P: Copy + Default> std::ops::Deref for OpenHash<P> {
    type Target = Pool<P>;
    fn deref(&self) -> &Pool<P> {
        &self.pool
    }
}

impl<P: Copy + Default> std::ops::DerefMut for OpenHash<P> {
    fn deref_mut(&mut self) -> &mut Pool<P> {
        &mut self.pool
    }
}

impl<P: Copy + Default> OpenHash<P> {
    /// A table of `nodes` nodes and at least twice as many slots.
    pub fn new(nodes: u32) -> OpenHash<P> {
        let s = (nodes.max(1) * 2).next_power_of_two().max(2);
        OpenHash {
            slots: crate::util::filled_vec(s as usize, (NIL, NIL)),
            mask: s - 1,
            shift: 32 - s.trailing_zeros(),
            pool: Pool::new(nodes),
        }
    }

    #[inline(always)]
    fn home(&self, key: u32) -> u32 {
        key.wrapping_mul(0x9E37_79B9) >> self.shift
    }

    /// Hints the CPU to fetch `key`'s home slot.
    #[inline(always)]
    pub fn prefetch(&self, key: u32) {
        crate::util::prefetch(&self.slots, self.home(key) as usize);
    }

    /// Slot index of `key`, or the empty slot where its search ended, and probes.
    #[inline]
    fn slot_of(&self, key: u32) -> (u32, bool, u32) {
        let mut i = self.home(key);
        let mut probes = 1;
        loop {
            let (k, _) = self.slots[i as usize];
            if k == key {
                return (i, true, probes);
            }
            if k == NIL {
                return (i, false, probes);
            }
            i = (i + 1) & self.mask;
            probes += 1;
        }
    }

    /// Node holding `key` (or [`NIL`]) and the probes the search took.
    #[inline]
    pub fn find(&self, key: u32) -> (u32, u32) {
        let (i, hit, probes) = self.slot_of(key);
        (if hit { self.slots[i as usize].1 } else { NIL }, probes)
    }

    /// Adds `key` (which must be absent); returns its node, or [`NIL`] if the pool is full.
    #[inline]
    pub fn insert(&mut self, key: u32) -> u32 {
        debug_assert!(key != NIL);
        let (i, hit, _) = self.slot_of(key);
        debug_assert!(!hit, "key {key} already present");
        let n = self.pool.alloc(key, NIL);
        if n != NIL {
            self.slots[i as usize] = (key, n);
        }
        n
    }

    /// Removes `key`; returns the node it occupied, or [`NIL`] if absent.
    #[inline]
    pub fn remove(&mut self, key: u32) -> u32 {
        let (mut i, hit, _) = self.slot_of(key);
        if !hit {
            return NIL;
        }
        let n = self.slots[i as usize].1;
        // Backward-shift deletion: move later entries of the cluster into the hole when
        // their home slot is not between the hole and their position.
        let mut j = i;
        loop {
            j = (j + 1) & self.mask;
            let (k, _) = self.slots[j as usize];
            if k == NIL {
                break;
            }
            let h = self.home(k);
            let dist_hole = i.wrapping_sub(h) & self.mask;
            let dist_here = j.wrapping_sub(h) & self.mask;
            if dist_hole < dist_here {
                self.slots[i as usize] = self.slots[j as usize];
                i = j;
            }
        }
        self.slots[i as usize] = (NIL, NIL);
        self.pool.release(n);
        n
    }

    /// RAM of the index: (key + node) per slot and the key per node. Payload fields are
    /// added by the owner.
    pub fn bytes(&self) -> u64 {
        self.slots.len() as u64 * 2 * WORD_BYTES + self.capacity() as u64 * WORD_BYTES
    }

    /// Panics unless every used node is found from its key through the slots and the
    /// free list holds the rest.
    pub fn check(&self) {
        let mut seen = vec![false; self.capacity() as usize];
        let mut used = 0;
        for (i, &(k, n)) in self.slots.iter().enumerate() {
            if k == NIL {
                continue;
            }
            assert_eq!(self.key(n), k, "slot {i}: node {n} holds another key");
            assert_eq!(
                self.find(k).0,
                n,
                "slot {i}: key {k} not found from its home"
            );
            assert!(!seen[n as usize], "node {n} in two slots");
            seen[n as usize] = true;
            used += 1;
        }
        assert_eq!(used, self.len(), "used slots");
        self.pool.check_free(&mut seen);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_find_remove_and_reuse() {
        let mut h: ChainedHash = ChainedHash::new(3, 2);
        assert_eq!(h.bucket_count(), 2);
        assert_eq!(h.find(5), (NIL, 1)); // empty bucket: one probe
        let a = h.insert(5);
        let b = h.insert(7);
        let c = h.insert(9);
        assert_eq!((a, b, c), (0, 1, 2));
        assert!(h.is_full());
        assert_eq!(h.insert(11), NIL);
        assert_eq!(h.find(7).0, 1);
        h.check();
        assert_eq!(h.remove(7), 1);
        assert_eq!(h.remove(7), NIL);
        assert_eq!(h.find(7).0, NIL);
        assert_eq!(h.insert(11), 1); // the freed node
        assert_eq!(h.len(), 3);
        h.check();
        // 2 buckets × 4 B + 3 nodes × (key + next) 8 B.
        assert_eq!(h.bytes(), 8 + 24);
    }

    #[test]
    fn probes_count_nodes_compared_along_a_chain() {
        // Two buckets: a chain of n keys costs 1 + 2 + … + n probes to find them all, the
        // newest (head) first.
        let mut h: ChainedHash = ChainedHash::new(4, 2);
        let keys = [10u32, 20, 30, 40];
        for k in keys {
            h.insert(k);
        }
        h.check();
        let mut per_bucket = [0u32; 2];
        // (With one bucket every key shares the chain.)
        let mut one: ChainedHash = ChainedHash::new(4, 1);
        for k in keys {
            one.insert(k);
        }
        let all: u32 = keys.iter().map(|&k| one.find(k).1).sum();
        assert_eq!(all, 1 + 2 + 3 + 4);
        for k in keys {
            per_bucket[h.bucket(k)] += 1;
        }
        let want: u32 = per_bucket.iter().map(|&n| n * (n + 1) / 2).sum();
        let total: u32 = keys.iter().map(|&k| h.find(k).1).sum();
        assert_eq!(total, want);
        // The newest key of a chain is found with one probe.
        assert_eq!(h.find(40).1, 1);
    }

    #[test]
    fn open_hash_matches_a_model_through_inserts_and_backward_shift_deletes() {
        // Keys that collide heavily (multiples of a power of two hash to few homes in a
        // small table) exercise wrap-around clusters and the shift rule.
        let mut h: OpenHash<u32> = OpenHash::new(16);
        let mut model = std::collections::BTreeMap::new();
        let mut x = 7u32;
        for step in 0..20_000u32 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let key = (x >> 16) % 40 * 64;
            if let Some(v) = model.remove(&key) {
                let n = h.remove(key);
                assert_eq!(*h.val(n), v, "step {step}");
            } else if !h.is_full() {
                let n = h.insert(key);
                *h.val_mut(n) = step;
                model.insert(key, step);
            }
            if step % 97 == 0 {
                h.check();
                for (&k, &v) in &model {
                    let (n, probes) = h.find(k);
                    assert_eq!(*h.val(n), v);
                    assert!(probes >= 1);
                }
            }
        }
        assert_eq!(h.len() as usize, model.len());
        // 32 slots × 8 B + 16 nodes × 4 B.
        assert_eq!(h.bytes(), 256 + 64);
    }
}
