//! Where the pages of a superblock's virtual geometry physically live: the layout the
//! timing model places operations with. Which superblock an FTL asks for (and whether it
//! fits) is the FTL's business, `ftl::superblock` (`Superblock::from_config`); the layout
//! itself names only the geometry, so the timing model below the FTLs can use it.
//!
//! ```text
//! virtual plane v, virtual block b, page p of the superblock
//!   member  j = p mod k          consecutive pages rotate over the k members
//!   plane     = order[v·k + j]   (the member order the FTL chose)
//!   physical page = page p / k of block b of that plane
//! ```

use super::{Geometry, Ppn};

/// Where the pages of a superblock geometry physically live.
#[derive(Clone, Debug)]
pub struct Superblock {
    /// Physical blocks per superblock.
    blocks: u32,
    physical: Geometry,
    /// Virtual pages per virtual plane.
    pages_per_vplane: u64,
    /// `order[v·k + j]` = physical plane of member `j` of virtual plane `v`.
    order: Vec<u32>,
}

impl Superblock {
    /// The superblock of `blocks` physical blocks on `physical`, whose virtual plane `v`
    /// has member `j` on physical plane `order[v·blocks + j]`.
    pub fn new(blocks: u32, physical: Geometry, order: Vec<u32>) -> Superblock {
        Superblock {
            blocks,
            physical,
            pages_per_vplane: physical.blocks_per_plane as u64
                * physical.pages_per_block as u64
                * blocks as u64,
            order,
        }
    }

    /// Physical blocks per superblock.
    pub fn blocks(&self) -> u32 {
        self.blocks
    }

    /// The geometry the FTL and the NAND state run on: `k` times fewer planes (taken off
    /// the outermost levels first: channels, then chips, dies, planes), blocks `k` times
    /// larger. Its channel/chip/die fields only number the virtual planes; the timing
    /// model places pages with [`Superblock::plane_of`].
    pub fn ftl_geometry(&self) -> Geometry {
        let mut g = self.physical;
        let mut rest = self.blocks;
        for level in [
            &mut g.channels,
            &mut g.chips_per_channel,
            &mut g.dies_per_chip,
            &mut g.planes_per_die,
        ] {
            let d = gcd(*level, rest);
            *level /= d;
            rest /= d;
        }
        debug_assert_eq!(rest, 1, "k divides the plane count");
        g.pages_per_block *= self.blocks;
        g
    }

    /// Physical plane of virtual page `vppn`.
    #[inline]
    pub fn plane_of(&self, vppn: Ppn) -> u32 {
        let v = vppn.0 as u64 / self.pages_per_vplane;
        let j = vppn.0 % self.blocks;
        self.order[(v * self.blocks as u64) as usize + j as usize]
    }

    /// Physical planes of the superblock that holds `vppn` (member order).
    pub fn member_planes(&self, vppn: Ppn) -> &[u32] {
        let v = (vppn.0 as u64 / self.pages_per_vplane) as usize;
        let k = self.blocks as usize;
        &self.order[v * k..(v + 1) * k]
    }
}

fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
