//! The paper's first cache control table (Kim et al. 2011, §4.1 and Fig. 8): records kept
//! as a list in the order they were cached, searched from the front.
//!
//! ```text
//! find(unit): for r in records (oldest first): if r.start <= unit < r.end: return r
//! insert(r):  append r
//! remove(s):  find the record starting at s (linear), unlink it
//! ```
//!
//! A lookup costs one comparison per record passed, so it grows linearly with the
//! number of records — the paper's Fig. 10, where reading 100,000 cached records
//! sequentially took 45 s of table search for the first half and 105 s for the second.
//! Kept as a contiguous vector (removal shifts the tail), which only makes the list
//! faster than a linked list in wall time; the comparison count is the same.

use super::{CacheTable, Cursor, Record};

/// Records in insertion order.
#[derive(Clone, Debug, Default)]
pub struct ListTable {
    records: Vec<Record>,
}

impl ListTable {
    /// An empty list.
    pub fn new() -> Self {
        ListTable::default()
    }

    fn position(&self, start: u64) -> Option<usize> {
        self.records.iter().position(|r| r.start == start)
    }
}

impl CacheTable for ListTable {
    fn name(&self) -> &'static str {
        "list"
    }

    fn len(&self) -> usize {
        self.records.len()
    }

    fn find(&self, unit: u64, cmp: &mut u64) -> Option<(Cursor, Record)> {
        for (i, r) in self.records.iter().enumerate() {
            *cmp += 1;
            if r.contains(unit) {
                return Some((Cursor(i as u64), *r));
            }
        }
        None
    }

    fn get(&self, c: Cursor) -> Option<Record> {
        self.records.get(c.0 as usize).copied()
    }

    fn next(&self, c: Cursor) -> Option<(Cursor, Record)> {
        let i = c.0 as usize + 1;
        self.records.get(i).map(|r| (Cursor(i as u64), *r))
    }

    fn overlapping(&self, start: u64, end: u64, out: &mut Vec<Record>, cmp: &mut u64) {
        let from = out.len();
        for r in &self.records {
            *cmp += 1;
            if r.start < end && start < r.end() {
                out.push(*r);
            }
        }
        out[from..].sort_unstable_by_key(|r| r.start);
    }

    fn insert(&mut self, r: Record) {
        debug_assert!(r.len > 0);
        self.records.push(r);
    }

    fn remove(&mut self, start: u64) -> Option<Record> {
        self.position(start).map(|i| self.records.remove(i))
    }

    fn set_len(&mut self, start: u64, len: u32) -> bool {
        match self.position(start) {
            Some(i) => {
                self.records[i].len = len;
                true
            }
            None => false,
        }
    }

    fn memory_bytes(&self) -> u64 {
        (self.records.capacity() * std::mem::size_of::<Record>()) as u64
    }

    fn check_invariants(&self) {
        let mut sorted: Vec<Record> = self.records.clone();
        sorted.sort_unstable_by_key(|r| r.start);
        for w in sorted.windows(2) {
            assert!(w[0].end() <= w[1].start, "overlapping records {w:?}");
        }
        assert!(self.records.iter().all(|r| r.len > 0));
    }
}
