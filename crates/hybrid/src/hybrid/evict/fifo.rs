//! First in, first out over cached extents: the oldest extent leaves first however
//! often it is read — a baseline that shows what recency buys.
//!
//! ```text
//! inserted(s): append s      touched(s): nothing      victim(): the front
//! ```

use super::{Eviction, SlotList};

/// Insertion order of extents.
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    list: SlotList,
}

impl Eviction for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }
    fn inserted(&mut self, s: u32) {
        self.list.push_back(s);
    }
    fn inserted_after(&mut self, s: u32, neighbour: u32) {
        self.list.insert_after(s, neighbour);
    }
    fn touched(&mut self, _s: u32) {}
    fn removed(&mut self, s: u32) {
        self.list.unlink(s);
    }
    fn victim(&self) -> Option<u32> {
        self.list.front()
    }
}
