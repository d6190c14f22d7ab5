//! FIFO (round-robin) victim selection: the oldest closed block, whatever it holds.
//! The analytic baseline of Hu et al. (SYSTOR 2009) and Desnoyers (SYSTOR 2012): under
//! uniform random writes its write amplification is 1/(1−X) with
//! X = −W0(−α·e^(−α))/α. Wears blocks evenly by construction.

use super::{GcPolicySpec, PolicyParams, VictimPolicy};
use crate::nand::{BlockId, Geometry, Nand};
use std::collections::VecDeque;

/// The `fifo` policy: its registry entry.
pub const SPEC: GcPolicySpec =
    GcPolicySpec::new::<Fifo>("fifo", "oldest closed block (round-robin cleaning)", &[]);

/// FIFO policy state: one queue of closed blocks per plane, in close order.
#[derive(Clone, Debug)]
pub struct Fifo {
    blocks_per_plane: u32,
    queues: Vec<VecDeque<u32>>,
    member: Vec<bool>,
}

impl VictimPolicy for Fifo {
    fn build(geo: &Geometry, _params: PolicyParams) -> Self {
        Fifo {
            blocks_per_plane: geo.blocks_per_plane,
            queues: vec![VecDeque::new(); geo.planes() as usize],
            member: vec![false; geo.blocks() as usize],
        }
    }

    fn on_close(&mut self, block: BlockId, _valid: u32, _now: u64) {
        self.queues[(block.0 / self.blocks_per_plane) as usize].push_back(block.0);
        self.member[block.0 as usize] = true;
    }

    fn on_invalidate(&mut self, _block: BlockId, _valid_after: u32, _now: u64) {}

    fn remove(&mut self, block: BlockId) {
        if self.member[block.0 as usize] {
            // Rare (wear leveling only), so a linear search is fine.
            let q = &mut self.queues[(block.0 / self.blocks_per_plane) as usize];
            if let Some(i) = q.iter().position(|&b| b == block.0) {
                q.remove(i);
            }
            self.member[block.0 as usize] = false;
        }
    }

    fn select(&mut self, plane: u32, _nand: &Nand, _now: u64) -> Option<BlockId> {
        let b = self.queues[plane as usize].pop_front()?;
        self.member[b as usize] = false;
        Some(BlockId(b))
    }

    fn contains(&self, block: BlockId) -> bool {
        self.member[block.0 as usize]
    }
}
