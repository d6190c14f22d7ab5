//! Which cached extent leaves the flash cache when space is needed: one policy per
//! file behind [`Eviction`], registered in [`EvictionKind`].
//!
//! Policies see extents by slot number (the hybrid store's handle for a record of the
//! cache control table) and keep their order in an intrusive doubly linked list over
//! slots ([`SlotList`]), so every event is O(1) and nothing is allocated per operation.

pub mod fifo;
pub mod lru;

use serde::{Deserialize, Serialize};

/// An eviction policy over extents.
pub trait Eviction: Send {
    /// Registered name.
    fn name(&self) -> &'static str;
    /// A new extent entered the cache in slot `s`.
    fn inserted(&mut self, s: u32);
    /// Slot `s` was split off extent `neighbour` and shares its history.
    fn inserted_after(&mut self, s: u32, neighbour: u32);
    /// Extent `s` was read or written.
    fn touched(&mut self, s: u32);
    /// Extent `s` left the cache.
    fn removed(&mut self, s: u32);
    /// The extent to evict next, if any.
    fn victim(&self) -> Option<u32>;
}

/// Registered policies (`cache.eviction` / `--eviction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum EvictionKind {
    /// Least recently used extent first.
    #[default]
    Lru,
    /// Oldest extent first, whatever its use.
    Fifo,
}

impl EvictionKind {
    /// Every policy with its name and a one-line description.
    pub fn all() -> &'static [(EvictionKind, &'static str, &'static str)] {
        &[
            (
                EvictionKind::Lru,
                "lru",
                "least recently read or written extent first",
            ),
            (
                EvictionKind::Fifo,
                "fifo",
                "oldest cached extent first, regardless of use",
            ),
        ]
    }

    /// The registered name.
    pub fn name(self) -> &'static str {
        EvictionKind::all()
            .iter()
            .find(|(k, _, _)| *k == self)
            .map(|(_, n, _)| *n)
            .expect("every kind is registered")
    }

    /// A fresh policy.
    pub fn build(self) -> Box<dyn Eviction> {
        match self {
            EvictionKind::Lru => Box::new(lru::Lru::default()),
            EvictionKind::Fifo => Box::new(fifo::Fifo::default()),
        }
    }
}

const NIL: u32 = u32::MAX;

/// A doubly linked list over slot numbers, oldest at the front. Slot arrays grow on
/// demand (slots are dense: the store reuses freed ones).
#[derive(Clone, Debug, Default)]
pub struct SlotList {
    prev: Vec<u32>,
    next: Vec<u32>,
    linked: Vec<bool>,
    head: Option<u32>,
    tail: Option<u32>,
}

impl SlotList {
    fn ensure(&mut self, s: u32) {
        let need = s as usize + 1;
        if self.prev.len() < need {
            self.prev.resize(need, NIL);
            self.next.resize(need, NIL);
            self.linked.resize(need, false);
        }
    }

    /// Appends `s` at the back (newest).
    pub fn push_back(&mut self, s: u32) {
        self.ensure(s);
        debug_assert!(!self.linked[s as usize]);
        let i = s as usize;
        self.prev[i] = self.tail.unwrap_or(NIL);
        self.next[i] = NIL;
        match self.tail {
            Some(t) => self.next[t as usize] = s,
            None => self.head = Some(s),
        }
        self.tail = Some(s);
        self.linked[i] = true;
    }

    /// Inserts `s` right after `after` (which must be linked).
    pub fn insert_after(&mut self, s: u32, after: u32) {
        self.ensure(s);
        debug_assert!(self.linked[after as usize] && !self.linked[s as usize]);
        let n = self.next[after as usize];
        self.prev[s as usize] = after;
        self.next[s as usize] = n;
        self.next[after as usize] = s;
        if n == NIL {
            self.tail = Some(s);
        } else {
            self.prev[n as usize] = s;
        }
        self.linked[s as usize] = true;
    }

    /// Takes `s` out of the list (no-op if it is not in it).
    pub fn unlink(&mut self, s: u32) {
        let i = s as usize;
        if i >= self.linked.len() || !self.linked[i] {
            return;
        }
        let (p, n) = (self.prev[i], self.next[i]);
        if p == NIL {
            self.head = (n != NIL).then_some(n);
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.tail = (p != NIL).then_some(p);
        } else {
            self.prev[n as usize] = p;
        }
        self.linked[i] = false;
    }

    /// The oldest slot.
    pub fn front(&self) -> Option<u32> {
        self.head
    }

    /// Slots from oldest to newest (tests).
    pub fn to_vec(&self) -> Vec<u32> {
        let mut out = Vec::new();
        let mut c = self.head;
        while let Some(s) = c {
            out.push(s);
            let n = self.next[s as usize];
            c = (n != NIL).then_some(n);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_the_least_recently_touched_and_fifo_the_oldest() {
        for (kind, expected) in [
            // Insert 0, 1, 2; touch 0; split 3 off 1; remove 2.
            // LRU order: 1, 3, 0 (0 was touched last). FIFO order: 0, 1, 3.
            (EvictionKind::Lru, vec![1, 3, 0]),
            (EvictionKind::Fifo, vec![0, 1, 3]),
        ] {
            let mut p = kind.build();
            for s in 0..3 {
                p.inserted(s);
            }
            p.touched(0);
            p.inserted_after(3, 1);
            p.removed(2);
            let mut order = Vec::new();
            while let Some(v) = p.victim() {
                order.push(v);
                p.removed(v);
            }
            assert_eq!(order, expected, "{kind:?}");
        }
    }

    #[test]
    fn slot_list_links_stay_consistent() {
        let mut l = SlotList::default();
        for s in [5, 2, 9] {
            l.push_back(s);
        }
        l.insert_after(7, 9);
        l.unlink(2);
        l.unlink(2);
        assert_eq!(l.to_vec(), vec![5, 9, 7]);
        l.unlink(5);
        l.unlink(7);
        assert_eq!(l.to_vec(), vec![9]);
        l.unlink(9);
        assert_eq!(l.front(), None);
    }
}
