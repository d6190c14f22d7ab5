//! Cost-benefit victim selection for flash (Kawaguchi, Nishioka, Motoda, "A flash-memory
//! based file system", USENIX Winter 1995), after LFS (Rosenblum & Ousterhout, 1992).
//!
//! ```text
//! u   = valid / pages_per_block
//! age = now − last modification of the block (host page writes as the clock)
//! select: a block with u = 0 at once; else max age·(1−u) / (2u)   (fully valid: never)
//! ```
//! Reading only the live pages costs u and writing them back u, hence 2u. Selection scans
//! the plane's candidates (O(blocks per plane) once per victim).

use super::{CandidateList, PolicyParams, VictimPolicy};
use crate::nand::{BlockId, Geometry, Nand};

/// Cost-benefit policy state.
#[derive(Clone, Debug)]
pub struct CostBenefit {
    pages_per_block: u32,
    list: CandidateList,
    last_modified: Vec<u64>,
}

impl VictimPolicy for CostBenefit {
    fn build(geo: &Geometry, _params: PolicyParams) -> Self {
        CostBenefit {
            pages_per_block: geo.pages_per_block,
            list: CandidateList::new(geo),
            last_modified: vec![0; geo.blocks() as usize],
        }
    }

    fn on_close(&mut self, block: BlockId, _valid: u32, now: u64) {
        self.list.insert(block);
        self.last_modified[block.0 as usize] = now;
    }

    #[inline]
    fn on_invalidate(&mut self, block: BlockId, _valid_after: u32, now: u64) {
        self.last_modified[block.0 as usize] = now;
    }

    fn remove(&mut self, block: BlockId) {
        self.list.remove(block);
    }

    fn select(&mut self, plane: u32, nand: &Nand, now: u64) -> Option<BlockId> {
        let np = self.pages_per_block as f64;
        let mut best: Option<(f64, u32)> = None;
        for &b in self.list.plane(plane) {
            let v = nand.valid_count(BlockId(b));
            let score = if v == 0 {
                f64::INFINITY
            } else {
                let u = v as f64 / np;
                let age = now.saturating_sub(self.last_modified[b as usize]) as f64;
                age * (1.0 - u) / (2.0 * u)
            };
            // Ties go to the lower block number so the choice never depends on the
            // candidate vector's order.
            let better = match best {
                None => true,
                Some((s, bb)) => score > s || (score == s && b < bb),
            };
            if better {
                best = Some((score, b));
            }
        }
        let (_, b) = best?;
        self.list.remove(BlockId(b));
        Some(BlockId(b))
    }

    fn contains(&self, block: BlockId) -> bool {
        self.list.contains(block)
    }
}
