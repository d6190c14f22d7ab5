//! d-choices (randomized greedy) victim selection (B. Van Houdt, "A mean field model for a
//! class of garbage collection algorithms in flash-based SSDs", SIGMETRICS 2013).
//!
//! ```text
//! select(plane): sample d candidates uniformly (with replacement) from the plane's
//!                closed blocks; return the one with the fewest valid pages
//! ```
//! d = 1 is random selection; d ≈ 10 is already close to greedy. Only closed blocks are
//! sampled (flashsim-dchoices also samples open frontiers — docs/algorithms.md §3.6).

use super::{CandidateList, GcPolicySpec, PolicyParams, VictimPolicy};
use crate::nand::{BlockId, Geometry, Nand};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The `d-choices` policy: its registry entry. It reads `gc_d`.
pub const SPEC: GcPolicySpec = GcPolicySpec::new::<DChoices>(
    "d-choices",
    "fewest valid of d random candidates (Van Houdt, SIGMETRICS 2013)",
    &["gc_d"],
);

/// d-choices policy state.
#[derive(Clone, Debug)]
pub struct DChoices {
    d: u32,
    list: CandidateList,
    rng: Xoshiro256PlusPlus,
}

impl VictimPolicy for DChoices {
    fn build(geo: &Geometry, params: PolicyParams) -> Self {
        DChoices {
            d: params.d.max(1),
            list: CandidateList::new(geo),
            rng: Xoshiro256PlusPlus::seed_from_u64(params.seed ^ 0xdc40_1ce5),
        }
    }

    fn on_close(&mut self, block: BlockId, _valid: u32, _now: u64) {
        self.list.insert(block);
    }

    fn on_invalidate(&mut self, _block: BlockId, _valid_after: u32, _now: u64) {}

    fn remove(&mut self, block: BlockId) {
        self.list.remove(block);
    }

    fn select(&mut self, plane: u32, nand: &Nand, _now: u64) -> Option<BlockId> {
        let cands = self.list.plane(plane);
        if cands.is_empty() {
            return None;
        }
        let mut best = u32::MAX;
        let mut best_valid = u32::MAX;
        for _ in 0..self.d {
            let b = cands[self.rng.gen_range(0..cands.len())];
            let v = nand.valid_count(BlockId(b));
            if v < best_valid || (v == best_valid && b < best) {
                best = b;
                best_valid = v;
            }
        }
        self.list.remove(BlockId(best));
        Some(BlockId(best))
    }

    fn contains(&self, block: BlockId) -> bool {
        self.list.contains(block)
    }
}
