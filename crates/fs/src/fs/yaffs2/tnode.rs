//! YAFFS2's Tnode tree: per file, a radix tree from chunk index to flash page.
//!
//! As in YAFFS2 ("How YAFFS works", Aleph One): the leaves (level-0 Tnodes) hold 16
//! entries each, internal Tnodes 8 children; a file's tree is as deep as its largest
//! chunk index needs (level L covers 16·8^L chunks) and grows by adding a new root above
//! the old one. Entries hold `page + 1` (0 = hole). All Tnodes of a file system live in
//! two arenas with free lists, so the RAM figure is exact: [`Tnodes::count`] nodes.

/// Entries of a level-0 Tnode.
pub const LEVEL0: usize = 16;
/// Children of an internal Tnode.
pub const INTERNAL: usize = 8;
const NIL: u32 = u32::MAX;

/// One file's tree: its root node and height (0 = the root is a leaf).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tree {
    root: u32,
    height: u8,
}

impl Default for Tree {
    fn default() -> Tree {
        Tree {
            root: NIL,
            height: 0,
        }
    }
}

/// The arenas of every file's Tnodes.
#[derive(Debug, Default)]
pub struct Tnodes {
    leaves: Vec<[u32; LEVEL0]>,
    inner: Vec<[u32; INTERNAL]>,
    free_leaves: Vec<u32>,
    free_inner: Vec<u32>,
}

/// Chunks a tree of `height` covers.
fn span(height: u8) -> u64 {
    (LEVEL0 as u64) << (3 * height as u64)
}

impl Tnodes {
    /// Tnodes in use (leaves, internal).
    pub fn count(&self) -> (u64, u64) {
        (
            (self.leaves.len() - self.free_leaves.len()) as u64,
            (self.inner.len() - self.free_inner.len()) as u64,
        )
    }

    fn new_leaf(&mut self) -> u32 {
        match self.free_leaves.pop() {
            Some(i) => {
                self.leaves[i as usize] = [0; LEVEL0];
                i
            }
            None => {
                self.leaves.push([0; LEVEL0]);
                (self.leaves.len() - 1) as u32
            }
        }
    }

    fn new_inner(&mut self) -> u32 {
        match self.free_inner.pop() {
            Some(i) => {
                self.inner[i as usize] = [NIL; INTERNAL];
                i
            }
            None => {
                self.inner.push([NIL; INTERNAL]);
                (self.inner.len() - 1) as u32
            }
        }
    }

    /// The page holding chunk `chunk` of `t`, if any.
    #[inline]
    pub fn get(&self, t: &Tree, chunk: u64) -> Option<u32> {
        if t.root == NIL || chunk >= span(t.height) {
            return None;
        }
        let mut node = t.root;
        let mut h = t.height;
        while h > 0 {
            let shift = 4 + 3 * (h as u64 - 1);
            node = self.inner[node as usize][((chunk >> shift) & 7) as usize];
            if node == NIL {
                return None;
            }
            h -= 1;
        }
        match self.leaves[node as usize][(chunk & 15) as usize] {
            0 => None,
            e => Some(e - 1),
        }
    }

    /// Points chunk `chunk` of `t` at `page`; returns the page it held before.
    #[inline]
    pub fn set(&mut self, t: &mut Tree, chunk: u64, page: u32) -> Option<u32> {
        if t.root == NIL {
            t.root = self.new_leaf();
            t.height = 0;
        }
        while chunk >= span(t.height) {
            let up = self.new_inner();
            self.inner[up as usize][0] = t.root;
            t.root = up;
            t.height += 1;
        }
        let mut node = t.root;
        let mut h = t.height;
        while h > 0 {
            let shift = 4 + 3 * (h as u64 - 1);
            let slot = ((chunk >> shift) & 7) as usize;
            let mut child = self.inner[node as usize][slot];
            if child == NIL {
                child = if h == 1 {
                    self.new_leaf()
                } else {
                    self.new_inner()
                };
                self.inner[node as usize][slot] = child;
            }
            node = child;
            h -= 1;
        }
        let e = &mut self.leaves[node as usize][(chunk & 15) as usize];
        let old = *e;
        *e = page + 1;
        (old != 0).then(|| old - 1)
    }

    /// Removes every chunk at index `first` or above from `t`, calling `f(chunk, page)`
    /// for each in ascending order, and frees the Tnodes left empty.
    pub fn prune_from(&mut self, t: &mut Tree, first: u64, f: &mut impl FnMut(u64, u32)) {
        if t.root == NIL {
            return;
        }
        let empty = self.prune(t.root, t.height, 0, first, f);
        if empty {
            self.free(t.root, t.height);
            *t = Tree::default();
        }
    }

    /// Prunes the subtree at `node` (height `h`, first chunk `base`); returns whether it
    /// is now empty.
    fn prune(
        &mut self,
        node: u32,
        h: u8,
        base: u64,
        first: u64,
        f: &mut impl FnMut(u64, u32),
    ) -> bool {
        if h == 0 {
            let leaf = &mut self.leaves[node as usize];
            for (i, e) in leaf.iter_mut().enumerate() {
                let c = base + i as u64;
                if c >= first && *e != 0 {
                    f(c, *e - 1);
                    *e = 0;
                }
            }
            return leaf.iter().all(|&e| e == 0);
        }
        let child_span = span(h - 1);
        let mut all_empty = true;
        for slot in 0..INTERNAL {
            let child = self.inner[node as usize][slot];
            if child == NIL {
                continue;
            }
            let cbase = base + slot as u64 * child_span;
            if cbase + child_span > first && self.prune(child, h - 1, cbase, first, f) {
                self.free(child, h - 1);
                self.inner[node as usize][slot] = NIL;
                continue;
            }
            all_empty = false;
        }
        all_empty
    }

    fn free(&mut self, node: u32, h: u8) {
        if h == 0 {
            self.free_leaves.push(node);
        } else {
            for slot in 0..INTERNAL {
                let c = self.inner[node as usize][slot];
                if c != NIL {
                    self.free(c, h - 1);
                }
            }
            self.free_inner.push(node);
        }
    }

    /// Calls `f(chunk, page)` for every chunk of `t` in ascending order.
    pub fn for_each(&self, t: &Tree, f: &mut impl FnMut(u64, u32)) {
        if t.root != NIL {
            self.walk(t.root, t.height, 0, f);
        }
    }

    /// Calls `f(first chunk, entries)` for every level-0 Tnode of `t` in order (entries
    /// hold `page + 1`, 0 = hole): the checkpoint's image of the tree.
    pub fn for_each_leaf(&self, t: &Tree, f: &mut impl FnMut(u64, &[u32; LEVEL0])) {
        if t.root != NIL {
            self.walk_leaves(t.root, t.height, 0, f);
        }
    }

    fn walk_leaves(&self, node: u32, h: u8, base: u64, f: &mut impl FnMut(u64, &[u32; LEVEL0])) {
        if h == 0 {
            f(base, &self.leaves[node as usize]);
            return;
        }
        let child_span = span(h - 1);
        for slot in 0..INTERNAL {
            let c = self.inner[node as usize][slot];
            if c != NIL {
                self.walk_leaves(c, h - 1, base + slot as u64 * child_span, f);
            }
        }
    }

    fn walk(&self, node: u32, h: u8, base: u64, f: &mut impl FnMut(u64, u32)) {
        if h == 0 {
            for (i, &e) in self.leaves[node as usize].iter().enumerate() {
                if e != 0 {
                    f(base + i as u64, e - 1);
                }
            }
            return;
        }
        let child_span = span(h - 1);
        for slot in 0..INTERNAL {
            let c = self.inner[node as usize][slot];
            if c != NIL {
                self.walk(c, h - 1, base + slot as u64 * child_span, f);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::collections::BTreeMap;

    #[test]
    fn matches_a_map_under_random_sets_and_prunes() {
        let seed = 7;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut arena = Tnodes::default();
        let mut t = Tree::default();
        let mut model = BTreeMap::new();
        for step in 0..20_000 {
            if rng.gen_range(0..50) == 0 {
                let first = rng.gen_range(0..5000u64);
                let mut seen = Vec::new();
                arena.prune_from(&mut t, first, &mut |c, p| seen.push((c, p)));
                let want: Vec<(u64, u32)> = model.range(first..).map(|(&c, &p)| (c, p)).collect();
                assert_eq!(seen, want, "seed {seed} step {step}");
                model.retain(|&c, _| c < first);
            } else {
                let c = rng.gen_range(0..5000u64);
                let p = rng.r#gen::<u32>() >> 1;
                assert_eq!(arena.set(&mut t, c, p), model.insert(c, p), "seed {seed}");
            }
        }
        for c in 0..5100 {
            assert_eq!(arena.get(&t, c), model.get(&c).copied());
        }
        arena.prune_from(&mut t, 0, &mut |_, _| {});
        assert_eq!(arena.count(), (0, 0), "every Tnode freed");
    }
}
