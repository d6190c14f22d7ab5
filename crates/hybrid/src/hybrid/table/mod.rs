//! The cache control table of Kim et al. (2011): records "HDD units [start, start + len)
//! are cached at …" keyed by HDD address, behind [`CacheTable`], registered in
//! [`TableKind`]. Three implementations:
//!
//! - [`list::ListTable`] — the paper's first design: records in insertion order,
//!   searched from the front (cost grows linearly with the record count).
//! - [`avl::AvlTable`] — the paper's fix: an AVL tree keyed by HDD start address.
//! - [`btree::BTreeTable`] — a B+-tree with wide nodes: the same O(log n) comparisons
//!   as the AVL tree but a few cache lines per lookup, so it stays fast at millions of
//!   records (the default).
//!
//! The last-read sequential hint ([`find_hinted`]) is shared by all three: check the
//! record the previous lookup found, then its successor, before searching.
//!
//! Comparisons are counted the same way everywhere: one per record whose key (or range)
//! is compared with the looked-up address, i.e. one per list entry or tree node visited
//! and one per probe of a binary search inside a B+-tree node.

pub mod avl;
pub mod btree;
pub mod list;

use serde::{Deserialize, Serialize};

/// One record: HDD units `[start, start + len)` and the owner's handle for them (the
/// hybrid store keeps the flash address, dirty bit and eviction links under `value`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// First HDD unit.
    pub start: u64,
    /// Units covered (≥ 1).
    pub len: u32,
    /// The owner's handle.
    pub value: u32,
}

impl Record {
    /// One past the last unit.
    #[inline]
    pub fn end(&self) -> u64 {
        self.start + self.len as u64
    }
    /// Whether `unit` lies in the record.
    #[inline]
    pub fn contains(&self, unit: u64) -> bool {
        self.start <= unit && unit < self.end()
    }
}

/// A position in a table, valid until the table changes; [`CacheTable::get`] says
/// whether it still names a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor(pub u64);

/// A table of non-overlapping records keyed by HDD start unit.
pub trait CacheTable: Send {
    /// Registered name.
    fn name(&self) -> &'static str;
    /// Records held.
    fn len(&self) -> usize;
    /// Whether the table is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The record containing `unit`; adds the comparisons made to `cmp`.
    fn find(&self, unit: u64, cmp: &mut u64) -> Option<(Cursor, Record)>;
    /// The record at `c`, if `c` still names one.
    fn get(&self, c: Cursor) -> Option<Record>;
    /// The record after `c` in the table's order (by address for trees, by insertion
    /// for the list).
    fn next(&self, c: Cursor) -> Option<(Cursor, Record)>;
    /// Appends the records overlapping `[start, end)` to `out`, by increasing start.
    fn overlapping(&self, start: u64, end: u64, out: &mut Vec<Record>, cmp: &mut u64);
    /// Adds `r`; the caller guarantees it overlaps no record.
    fn insert(&mut self, r: Record);
    /// Removes and returns the record starting at `start`.
    fn remove(&mut self, start: u64) -> Option<Record>;
    /// Sets the length of the record starting at `start` (it must not come to overlap
    /// another); false if there is no such record.
    fn set_len(&mut self, start: u64, len: u32) -> bool;
    /// Bytes the structure occupies.
    fn memory_bytes(&self) -> u64;
    /// Panics if the structure is inconsistent (tests).
    fn check_invariants(&self);
}

/// Looks `unit` up, trying the hinted record and its successor first (the paper's
/// last-read hint, which makes a sequential scan O(1) per lookup), and leaves the hint
/// on the record found. Returns the record and whether the hint answered.
#[inline]
pub fn find_hinted(
    table: &dyn CacheTable,
    unit: u64,
    hint: &mut Option<Cursor>,
    cmp: &mut u64,
) -> (Option<Record>, bool) {
    if let Some(c) = *hint
        && let Some(r) = table.get(c)
    {
        *cmp += 1;
        if r.contains(unit) {
            return (Some(r), true);
        }
        if let Some((n, r)) = table.next(c) {
            *cmp += 1;
            if r.contains(unit) {
                *hint = Some(n);
                return (Some(r), true);
            }
        }
    }
    match table.find(unit, cmp) {
        Some((c, r)) => {
            *hint = Some(c);
            (Some(r), false)
        }
        None => (None, false),
    }
}

/// Registered table implementations (`cache.table` / `--table`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum TableKind {
    /// Linear list in insertion order (the paper's original).
    List,
    /// AVL tree keyed by HDD start (the paper's improvement).
    Avl,
    /// B+-tree keyed by HDD start.
    #[default]
    Btree,
}

impl TableKind {
    /// Every kind with its name and a one-line description.
    pub fn all() -> &'static [(TableKind, &'static str, &'static str)] {
        &[
            (
                TableKind::List,
                "list",
                "records in insertion order, linear search (the paper's first table)",
            ),
            (
                TableKind::Avl,
                "avl",
                "AVL tree keyed by HDD address (the paper's improved table)",
            ),
            (
                TableKind::Btree,
                "btree",
                "B+-tree keyed by HDD address, 32-way nodes (fastest at millions of records)",
            ),
        ]
    }

    /// The registered name.
    pub fn name(self) -> &'static str {
        TableKind::all()
            .iter()
            .find(|(k, _, _)| *k == self)
            .map(|(_, n, _)| *n)
            .expect("every kind is registered")
    }

    /// An empty table of this kind.
    pub fn build(self) -> Box<dyn CacheTable> {
        match self {
            TableKind::List => Box::new(list::ListTable::new()),
            TableKind::Avl => Box::new(avl::AvlTable::new()),
            TableKind::Btree => Box::new(btree::BTreeTable::<32, 32>::new()),
        }
    }
}

#[cfg(test)]
mod tests;
