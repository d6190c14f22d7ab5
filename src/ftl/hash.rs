//! A chained hash index with a fixed node pool: the table the hash-based FTLs (AFTL, CFTL,
//! DFTL's cached mapping table) keep in controller RAM.
//!
//! ```text
//! buckets[h(key)] → node → node → … → NIL      (each node: key, next)
//! find(key):   walk the chain from its bucket, comparing keys
//! insert(key): take a node from the free list, push it at the chain's head
//! remove(key): unlink it, return the node to the free list
//! ```
//! Each FTL keeps its payload (physical addresses, LRU links, NUR bits…) in arrays indexed
//! by node, so a node is exactly the fields a firmware would hold and
//! [`ChainedHash::bytes`] plus the payload widths give the table's real RAM size. The
//! hash is Fibonacci (multiplicative) hashing into a power-of-two bucket array, which
//! spreads runs of consecutive keys (sequential block numbers) over distinct buckets.
//!
//! Probes: `find` reports the table entries it visited — the bucket head when the bucket
//! is empty, else every node compared — so a lookup costs at least one probe per table.

/// "No node": empty bucket, end of chain, or a free node's key.
pub const NIL: u32 = u32::MAX;

/// Bytes of one key, one `next` link and one bucket head (32-bit node indices and keys,
/// as in the papers' tables).
pub const WORD_BYTES: u64 = 4;

/// A chained hash index over `u32` keys with a fixed pool of nodes.
#[derive(Clone, Debug)]
pub struct ChainedHash {
    buckets: Vec<u32>,
    keys: Vec<u32>,
    next: Vec<u32>,
    free: u32,
    len: u32,
    shift: u32,
}

impl ChainedHash {
    /// A table of `nodes` nodes and at least `buckets` buckets (rounded up to a power of
    /// two, at least 2).
    pub fn new(nodes: u32, buckets: u32) -> ChainedHash {
        assert!(nodes < NIL, "too many nodes");
        let b = buckets.max(2).next_power_of_two();
        let mut t = ChainedHash {
            buckets: vec![NIL; b as usize],
            keys: vec![NIL; nodes as usize],
            next: vec![NIL; nodes as usize],
            free: NIL,
            len: 0,
            shift: 32 - b.trailing_zeros(),
        };
        // Free list in ascending node order, so allocation order is deterministic and the
        // first nodes used are adjacent in memory.
        for n in (0..nodes).rev() {
            t.next[n as usize] = t.free;
            t.free = n;
        }
        t
    }

    #[inline(always)]
    fn bucket(&self, key: u32) -> usize {
        (key.wrapping_mul(0x9E37_79B9) >> self.shift) as usize
    }

    /// Node holding `key` (or [`NIL`]) and the probes the search took.
    #[inline]
    pub fn find(&self, key: u32) -> (u32, u32) {
        let mut n = self.buckets[self.bucket(key)];
        let mut probes = 0;
        while n != NIL {
            probes += 1;
            if self.keys[n as usize] == key {
                return (n, probes);
            }
            n = self.next[n as usize];
        }
        (NIL, probes.max(1))
    }

    /// Adds `key` (which must be absent); returns its node, or [`NIL`] if the pool is full.
    #[inline]
    pub fn insert(&mut self, key: u32) -> u32 {
        debug_assert!(key != NIL);
        debug_assert_eq!(self.find(key).0, NIL, "key {key} already present");
        let n = self.free;
        if n == NIL {
            return NIL;
        }
        self.free = self.next[n as usize];
        let b = self.bucket(key);
        self.keys[n as usize] = key;
        self.next[n as usize] = self.buckets[b];
        self.buckets[b] = n;
        self.len += 1;
        n
    }

    /// Removes `key`; returns the node it occupied, or [`NIL`] if absent.
    #[inline]
    pub fn remove(&mut self, key: u32) -> u32 {
        let b = self.bucket(key);
        let mut prev = NIL;
        let mut n = self.buckets[b];
        while n != NIL {
            if self.keys[n as usize] == key {
                let after = self.next[n as usize];
                if prev == NIL {
                    self.buckets[b] = after;
                } else {
                    self.next[prev as usize] = after;
                }
                self.keys[n as usize] = NIL;
                self.next[n as usize] = self.free;
                self.free = n;
                self.len -= 1;
                return n;
            }
            prev = n;
            n = self.next[n as usize];
        }
        NIL
    }

    /// Key stored in `node` ([`NIL`] for a free node).
    #[inline]
    pub fn key(&self, node: u32) -> u32 {
        self.keys[node as usize]
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
        self.keys.len() as u32
    }

    /// Bucket heads.
    pub fn bucket_count(&self) -> u32 {
        self.buckets.len() as u32
    }

    /// RAM of the index itself: bucket heads + (key + next) per pool node. Payload fields
    /// are added by the owner.
    pub fn bytes(&self) -> u64 {
        self.buckets.len() as u64 * WORD_BYTES + self.keys.len() as u64 * 2 * WORD_BYTES
    }

    /// Panics if a chain is broken: every used node reachable from its own bucket exactly
    /// once, and the free list holds the rest.
    pub fn check(&self) {
        let mut seen = vec![false; self.keys.len()];
        let mut used = 0;
        for (b, &head) in self.buckets.iter().enumerate() {
            let mut n = head;
            while n != NIL {
                assert!(!seen[n as usize], "node {n} reachable twice");
                seen[n as usize] = true;
                assert_eq!(
                    self.bucket(self.keys[n as usize]),
                    b,
                    "node {n} in wrong bucket"
                );
                used += 1;
                n = self.next[n as usize];
            }
        }
        assert_eq!(used, self.len, "used nodes");
        let mut n = self.free;
        let mut free = 0;
        while n != NIL {
            assert!(!seen[n as usize], "free node {n} also in a chain");
            seen[n as usize] = true;
            assert_eq!(self.keys[n as usize], NIL);
            free += 1;
            n = self.next[n as usize];
        }
        assert_eq!(used + free, self.capacity(), "nodes lost");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_find_remove_and_reuse() {
        let mut h = ChainedHash::new(3, 2);
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
        // Two buckets (the minimum): a chain of n keys costs 1 + 2 + … + n probes to find
        // them all, the newest (head) first.
        let mut h = ChainedHash::new(4, 1);
        let keys = [10u32, 20, 30, 40];
        for k in keys {
            h.insert(k);
        }
        h.check();
        let mut per_bucket = [0u32; 2];
        for k in keys {
            per_bucket[h.bucket(k)] += 1;
        }
        let want: u32 = per_bucket.iter().map(|&n| n * (n + 1) / 2).sum();
        let total: u32 = keys.iter().map(|&k| h.find(k).1).sum();
        assert_eq!(total, want);
        // The newest key of a chain is found with one probe.
        assert_eq!(h.find(40).1, 1);
    }
}
