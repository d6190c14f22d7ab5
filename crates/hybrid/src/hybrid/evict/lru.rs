//! Least recently used over cached extents (the default; the paper does not say how its
//! filter driver frees flash space, and LRU is what block caches such as Linux
//! dm-cache's and bcache's default to).
//!
//! ```text
//! inserted(s) / touched(s): move s to the back of the list
//! victim():                 the front of the list
//! ```
//!
//! An extent split by a write keeps its place: the new piece goes right after it.

use super::{Eviction, SlotList};

/// LRU order of extents.
#[derive(Clone, Debug, Default)]
pub struct Lru {
    list: SlotList,
}

impl Eviction for Lru {
    fn name(&self) -> &'static str {
        "lru"
    }
    fn inserted(&mut self, s: u32) {
        self.list.push_back(s);
    }
    fn inserted_after(&mut self, s: u32, neighbour: u32) {
        self.list.insert_after(s, neighbour);
    }
    fn touched(&mut self, s: u32) {
        self.list.unlink(s);
        self.list.push_back(s);
    }
    fn removed(&mut self, s: u32) {
        self.list.unlink(s);
    }
    fn victim(&self) -> Option<u32> {
        self.list.front()
    }
}
