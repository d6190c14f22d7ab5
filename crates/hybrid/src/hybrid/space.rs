//! Free space of the flash cache, in cache units: a bitmap searched next-fit from a
//! rotating cursor.
//!
//! Next-fit hands out flash addresses roughly in the order data is cached, so
//! consecutive fills land at consecutive flash addresses (their extents can merge) and,
//! with LRU eviction, the space freed next tends to lie just ahead of the cursor, like a
//! log. One bit per unit; a search skips whole 64-unit words.

/// Used/free state of `units` cache units.
#[derive(Clone, Debug)]
pub struct FlashSpace {
    used: Vec<u64>,
    units: u64,
    free: u64,
    cursor: u64,
}

impl FlashSpace {
    /// All `units` free.
    pub fn new(units: u64) -> FlashSpace {
        FlashSpace {
            used: vec![0; units.div_ceil(64) as usize],
            units,
            free: units,
            cursor: 0,
        }
    }

    /// Units in total.
    pub fn units(&self) -> u64 {
        self.units
    }

    /// Free units.
    pub fn free_units(&self) -> u64 {
        self.free
    }

    #[inline]
    fn is_used(&self, u: u64) -> bool {
        self.used[(u / 64) as usize] >> (u % 64) & 1 == 1
    }

    /// First free unit at or after `from` (below `units`), if any.
    fn next_free(&self, from: u64) -> Option<u64> {
        let mut w = (from / 64) as usize;
        if w >= self.used.len() {
            return None;
        }
        // Ignore bits below `from` in its word.
        let mut bits = !self.used[w] & (!0u64 << (from % 64));
        loop {
            if bits != 0 {
                let u = w as u64 * 64 + bits.trailing_zeros() as u64;
                return (u < self.units).then_some(u);
            }
            w += 1;
            if w >= self.used.len() {
                return None;
            }
            bits = !self.used[w];
        }
    }

    /// Takes the next free run of at most `max` units at or after the cursor (wrapping
    /// once); returns (first unit, length).
    pub fn alloc_run(&mut self, max: u64) -> Option<(u64, u64)> {
        if self.free == 0 || max == 0 {
            return None;
        }
        let start = self.next_free(self.cursor).or_else(|| self.next_free(0))?;
        let mut end = start;
        while end < self.units && end - start < max && !self.is_used(end) {
            end += 1;
        }
        self.mark(start, end - start, true);
        self.free -= end - start;
        self.cursor = if end >= self.units { 0 } else { end };
        Some((start, end - start))
    }

    /// Returns `len` units from `start` to the free pool.
    pub fn release(&mut self, start: u64, len: u64) {
        debug_assert!((start..start + len).all(|u| self.is_used(u)), "double free");
        self.mark(start, len, false);
        self.free += len;
    }

    fn mark(&mut self, start: u64, len: u64, used: bool) {
        for u in start..start + len {
            let (w, b) = ((u / 64) as usize, u % 64);
            if used {
                self.used[w] |= 1 << b;
            } else {
                self.used[w] &= !(1 << b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_fit_hands_out_runs_in_order_and_wraps() {
        let mut s = FlashSpace::new(200);
        assert_eq!(s.alloc_run(70), Some((0, 70)));
        assert_eq!(s.alloc_run(100), Some((70, 100)));
        // Only 30 left at the end: a short run, then the cursor wraps.
        assert_eq!(s.alloc_run(50), Some((170, 30)));
        assert_eq!(s.free_units(), 0);
        assert_eq!(s.alloc_run(1), None);
        s.release(10, 20);
        s.release(100, 5);
        assert_eq!(s.alloc_run(50), Some((10, 20)));
        assert_eq!(s.alloc_run(50), Some((100, 5)));
        assert_eq!(s.free_units(), 0);
    }
}
