//! The paper's improved cache control table (Kim et al. 2011, §4.1 and Fig. 9): an AVL
//! tree (Adelson-Velsky & Landis, 1962) keyed by the record's HDD start address.
//!
//! ```text
//! find(unit): n = root
//!             while n: if unit < n.start: n = n.left
//!                      elif unit >= n.end: n = n.right
//!                      else: return n            (one comparison per node visited)
//! insert(r):  BST insert by r.start, then walk up re-computing heights and rotating
//!             wherever |height(left) − height(right)| = 2 (LL, LR, RR, RL cases)
//! remove(s):  a node with two children takes its in-order successor's record and the
//!             successor node is unlinked instead; then rebalance upward
//! ```
//!
//! Height ≤ 1.44·log2(n + 2), so a lookup makes at most about that many comparisons
//! (the paper: 1023 records, at most 10 instead of 1023). Nodes live in one arena
//! indexed by `u32` with parent links (for the in-order successor the hint and range
//! scans need) and a free list, so no allocation happens per operation once warm.

use super::{CacheTable, Cursor, Record};

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    start: u64,
    len: u32,
    value: u32,
    left: u32,
    right: u32,
    parent: u32,
    /// Subtree height (a leaf is 1); 0 marks a free arena slot.
    height: u32,
}

/// An AVL tree of records.
#[derive(Clone, Debug)]
pub struct AvlTable {
    nodes: Vec<Node>,
    free: Vec<u32>,
    root: u32,
    len: usize,
}

impl Default for AvlTable {
    fn default() -> Self {
        AvlTable::new()
    }
}

impl AvlTable {
    /// An empty tree.
    pub fn new() -> Self {
        AvlTable {
            nodes: Vec::new(),
            free: Vec::new(),
            root: NIL,
            len: 0,
        }
    }

    /// Height of the tree (0 when empty).
    pub fn height(&self) -> u32 {
        self.h(self.root)
    }

    #[inline]
    fn h(&self, n: u32) -> u32 {
        if n == NIL {
            0
        } else {
            self.nodes[n as usize].height
        }
    }

    #[inline]
    fn n(&self, i: u32) -> &Node {
        &self.nodes[i as usize]
    }

    #[inline]
    fn nm(&mut self, i: u32) -> &mut Node {
        &mut self.nodes[i as usize]
    }

    fn record(&self, i: u32) -> Record {
        let n = self.n(i);
        Record {
            start: n.start,
            len: n.len,
            value: n.value,
        }
    }

    fn update_height(&mut self, i: u32) {
        let h = 1 + self.h(self.n(i).left).max(self.h(self.n(i).right));
        self.nm(i).height = h;
    }

    /// Points `parent`'s link that led to `old` at `new` (or the root).
    fn replace_child(&mut self, parent: u32, old: u32, new: u32) {
        if parent == NIL {
            self.root = new;
        } else if self.n(parent).left == old {
            self.nm(parent).left = new;
        } else {
            debug_assert_eq!(self.n(parent).right, old);
            self.nm(parent).right = new;
        }
        if new != NIL {
            self.nm(new).parent = parent;
        }
    }

    fn rotate_right(&mut self, y: u32) -> u32 {
        let x = self.n(y).left;
        let t2 = self.n(x).right;
        let p = self.n(y).parent;
        self.nm(y).left = t2;
        if t2 != NIL {
            self.nm(t2).parent = y;
        }
        self.nm(x).right = y;
        self.nm(y).parent = x;
        self.replace_child(p, y, x);
        self.update_height(y);
        self.update_height(x);
        x
    }

    fn rotate_left(&mut self, x: u32) -> u32 {
        let y = self.n(x).right;
        let t2 = self.n(y).left;
        let p = self.n(x).parent;
        self.nm(x).right = t2;
        if t2 != NIL {
            self.nm(t2).parent = x;
        }
        self.nm(y).left = x;
        self.nm(x).parent = y;
        self.replace_child(p, x, y);
        self.update_height(x);
        self.update_height(y);
        y
    }

    /// Restores heights and balance from `n` up to the root.
    fn rebalance_up(&mut self, mut n: u32) {
        while n != NIL {
            self.update_height(n);
            let (l, r) = (self.n(n).left, self.n(n).right);
            let bf = self.h(l) as i64 - self.h(r) as i64;
            if bf > 1 {
                if self.h(self.n(l).left) < self.h(self.n(l).right) {
                    self.rotate_left(l);
                }
                n = self.rotate_right(n);
            } else if bf < -1 {
                if self.h(self.n(r).right) < self.h(self.n(r).left) {
                    self.rotate_right(r);
                }
                n = self.rotate_left(n);
            }
            n = self.n(n).parent;
        }
    }

    fn leftmost(&self, mut n: u32) -> u32 {
        while n != NIL && self.n(n).left != NIL {
            n = self.n(n).left;
        }
        n
    }

    fn successor(&self, mut n: u32) -> u32 {
        if self.n(n).right != NIL {
            return self.leftmost(self.n(n).right);
        }
        let mut p = self.n(n).parent;
        while p != NIL && self.n(p).right == n {
            n = p;
            p = self.n(p).parent;
        }
        p
    }

    /// The node with the largest start ≤ `key`.
    fn floor(&self, key: u64, cmp: &mut u64) -> u32 {
        let mut n = self.root;
        let mut best = NIL;
        while n != NIL {
            *cmp += 1;
            if self.n(n).start <= key {
                best = n;
                n = self.n(n).right;
            } else {
                n = self.n(n).left;
            }
        }
        best
    }

    fn exact(&self, start: u64) -> u32 {
        let mut n = self.root;
        while n != NIL {
            let s = self.n(n).start;
            if start < s {
                n = self.n(n).left;
            } else if start > s {
                n = self.n(n).right;
            } else {
                return n;
            }
        }
        NIL
    }

    fn alloc(&mut self, node: Node) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    fn check(&self, n: u32, parent: u32, lo: u64, hi: u64, count: &mut usize) -> u32 {
        if n == NIL {
            return 0;
        }
        let x = self.n(n);
        assert_eq!(x.parent, parent, "parent link of node {n}");
        assert!(
            x.start >= lo && x.start + x.len as u64 <= hi,
            "order at node {n}"
        );
        assert!(x.len > 0);
        *count += 1;
        let hl = self.check(x.left, n, lo, x.start, count);
        let hr = self.check(x.right, n, x.start + x.len as u64, hi, count);
        assert!(hl.abs_diff(hr) <= 1, "unbalanced at node {n}: {hl} vs {hr}");
        assert_eq!(x.height, 1 + hl.max(hr), "height of node {n}");
        x.height
    }
}

impl CacheTable for AvlTable {
    fn name(&self) -> &'static str {
        "avl"
    }

    fn len(&self) -> usize {
        self.len
    }

    fn find(&self, unit: u64, cmp: &mut u64) -> Option<(Cursor, Record)> {
        let mut n = self.root;
        while n != NIL {
            let x = self.n(n);
            *cmp += 1;
            if unit < x.start {
                n = x.left;
            } else if unit >= x.start + x.len as u64 {
                n = x.right;
            } else {
                return Some((Cursor(n as u64), self.record(n)));
            }
        }
        None
    }

    fn get(&self, c: Cursor) -> Option<Record> {
        let i = u32::try_from(c.0).ok()?;
        let n = self.nodes.get(i as usize)?;
        (n.height > 0).then(|| self.record(i))
    }

    fn next(&self, c: Cursor) -> Option<(Cursor, Record)> {
        self.get(c)?;
        let s = self.successor(c.0 as u32);
        (s != NIL).then(|| (Cursor(s as u64), self.record(s)))
    }

    fn overlapping(&self, start: u64, end: u64, out: &mut Vec<Record>, cmp: &mut u64) {
        let f = self.floor(start, cmp);
        let mut n = if f == NIL {
            self.leftmost(self.root)
        } else if self.n(f).start + self.n(f).len as u64 > start {
            f
        } else {
            self.successor(f)
        };
        while n != NIL {
            *cmp += 1;
            if self.n(n).start >= end {
                break;
            }
            out.push(self.record(n));
            n = self.successor(n);
        }
    }

    fn insert(&mut self, r: Record) {
        debug_assert!(r.len > 0);
        let node = Node {
            start: r.start,
            len: r.len,
            value: r.value,
            left: NIL,
            right: NIL,
            parent: NIL,
            height: 1,
        };
        let i = self.alloc(node);
        self.len += 1;
        if self.root == NIL {
            self.root = i;
            return;
        }
        let mut p = self.root;
        loop {
            let go_left = r.start < self.n(p).start;
            let child = if go_left {
                self.n(p).left
            } else {
                self.n(p).right
            };
            if child == NIL {
                if go_left {
                    self.nm(p).left = i;
                } else {
                    self.nm(p).right = i;
                }
                self.nm(i).parent = p;
                break;
            }
            p = child;
        }
        self.rebalance_up(p);
    }

    fn remove(&mut self, start: u64) -> Option<Record> {
        let n = self.exact(start);
        if n == NIL {
            return None;
        }
        let removed = self.record(n);
        // A node with two children takes its successor's record; the successor (which
        // has no left child) is unlinked instead.
        let d = if self.n(n).left != NIL && self.n(n).right != NIL {
            let s = self.leftmost(self.n(n).right);
            let (st, len, value) = (self.n(s).start, self.n(s).len, self.n(s).value);
            let x = self.nm(n);
            x.start = st;
            x.len = len;
            x.value = value;
            s
        } else {
            n
        };
        let child = if self.n(d).left != NIL {
            self.n(d).left
        } else {
            self.n(d).right
        };
        let parent = self.n(d).parent;
        self.replace_child(parent, d, child);
        self.nm(d).height = 0;
        self.free.push(d);
        self.len -= 1;
        self.rebalance_up(parent);
        Some(removed)
    }

    fn set_len(&mut self, start: u64, len: u32) -> bool {
        let n = self.exact(start);
        if n == NIL {
            return false;
        }
        self.nm(n).len = len;
        true
    }

    fn memory_bytes(&self) -> u64 {
        (self.nodes.capacity() * std::mem::size_of::<Node>() + self.free.capacity() * 4) as u64
    }

    fn check_invariants(&self) {
        let mut count = 0;
        self.check(self.root, NIL, 0, u64::MAX, &mut count);
        assert_eq!(count, self.len);
        assert_eq!(self.nodes.len() - self.free.len(), self.len);
    }
}
