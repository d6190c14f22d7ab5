//! SSD management blocks and page placement (docs/papers.md §1, "Firmware design factors";
//! Ryu & Park 2009).
//!
//! A *management block* (superblock) is the unit the firmware maps. Two independent
//! choices decide where a logical page physically lands:
//!
//! ```text
//! placement inside a management block
//!   write-order : pages are appended in the order they are written (log structured);
//!                 small writes are cheap whatever the management-block size
//!   by-address  : a page's position is a fixed function of its address, so a write
//!                 smaller than the management block rewrites the whole block
//!                 (read-modify-write of the rest; twice when it straddles two)
//! placement of a management block's pages on channels
//!   striped     : consecutive pages rotate over channels (then chips, dies, planes)
//!   one-channel : all pages of one management block sit on one channel, rotating over
//!                 that channel's chips, dies and planes; the next block uses the next
//!                 channel
//! ```
//!
//! [`Layout`] turns these choices into the plane each host page is programmed on. For
//! `by-address` the plane is a pure function of the logical page, which is what keeps a
//! sequential read's parallelism after random overwrites; for `write-order` it depends
//! on the order of writes only. (Inside a plane the page takes the next free slot of the
//! plane's open block: the slot within a plane changes no timing, so the model does not
//! pin it.)
//!
//! Write-order striping is dynamic allocation, and a controller that allocates
//! dynamically does not keep writing to a die that is short of reclaimable space: it
//! sends the page to the next die. A fixed rotation alone would: two streams that
//! alternate page by page (two tenants under round-robin arbitration) would land on
//! disjoint halves of the planes for ever, one half filling with the random tenant's
//! live data while the other holds mostly stale pages, and since GC reclaims each plane
//! (GC unit) on its own, the full half would copy almost whole blocks on every
//! collection — a state no drive reaches. So the rotation passes over a GC unit whose
//! reclaimable space fell to under half of the average unit's ([`Balance`]):
//!
//! ```text
//! next plane (write-order, striped):
//!     mean  = valid pages / units
//!     spare = pages per unit − reserve (GC reserve + open frontiers) − mean
//!     limit = mean + max(pages_per_block, spare / 2)
//!     repeat over the stripe from the cursor:
//!         p = stripe[cursor]; cursor += 1
//!         if valid(unit of p) ≤ limit: return p
//! ```
//!
//! The tolerance is chosen so that the guard never acts on uniform traffic and always
//! acts on traffic in step with the rotation. Under uniform traffic a unit's valid count
//! drifts around the mean by about √(mean / 2) pages (each rotation adds one page to every
//! unit and takes pages from units in proportion to what they hold), a few hundred pages
//! on a unit of 10⁵; in step, one unit gains a fixed share of the data, a distance that
//! grows with the mean itself. Half of the spare space lies between: at 7 % spare a unit
//! of 10⁵ valid pages may drift 3,500 pages, and a unit that far over has half the
//! reclaimable space of its peers, so its victims hold about twice the valid pages.
//! At least one erase block, the unit a collection frees. One-channel runs keep their
//! fixed order (a management block's pages belong to its channel).

use crate::nand::{Geometry, Nand};
use serde::{Deserialize, Serialize};

/// Where pages go inside a management block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// Log structured: in write order.
    #[default]
    WriteOrder,
    /// Fixed position by logical address; partial writes rewrite the management block.
    ByAddress,
}

/// How a management block's pages spread over channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ChannelPlacement {
    /// Consecutive pages on consecutive channels.
    #[default]
    Striped,
    /// All pages of a management block on one channel.
    OneChannel,
}

impl Placement {
    /// Names and descriptions for `ssdlab list` and errors.
    pub fn all() -> &'static [(Placement, &'static str)] {
        &[
            (Placement::WriteOrder, "write-order"),
            (Placement::ByAddress, "by-address"),
        ]
    }
}

impl ChannelPlacement {
    /// Names for errors and docs.
    pub fn all() -> &'static [(ChannelPlacement, &'static str)] {
        &[
            (ChannelPlacement::Striped, "striped"),
            (ChannelPlacement::OneChannel, "one-channel"),
        ]
    }

    /// The name as configs write it.
    pub fn name(self) -> &'static str {
        ChannelPlacement::all()
            .iter()
            .find(|e| e.0 == self)
            .map_or("?", |e| e.1)
    }
}

/// Plane choice for host pages under a placement.
#[derive(Clone, Debug)]
pub struct Layout {
    placement: Placement,
    channel_placement: ChannelPlacement,
    /// Pages per management block.
    unit_pages: u32,
    channels: u32,
    /// Channel-first order over all planes (channels vary fastest).
    stripe: Vec<u32>,
    /// Planes grouped by channel: `by_channel[ch * per_channel + k]`, chips fastest.
    by_channel: Vec<u32>,
    per_channel: u32,
    /// Write-order state: position in the stripe, or channel and pages left in the run.
    cursor: u32,
    channel: u32,
    run_pages: u32,
    /// The guard of write-order striping against units short of reclaimable space.
    balance: Balance,
}

/// Dynamic allocation's guard (see the module notes): whether a GC unit of
/// `unit_planes` planes holds more valid pages than the mean of the units it is compared
/// with plus half their mean spare space (at least one erase block).
#[derive(Clone, Copy, Debug)]
pub struct Balance {
    unit_planes: u32,
    /// Blocks of a unit that hold no reclaimable space: its GC reserve and open frontiers.
    reserve_blocks: u32,
}

impl Balance {
    /// The guard for GC units of `unit_planes` consecutive planes, each keeping
    /// `reserve_blocks` blocks free or open (the GC reserve and the frontiers, as
    /// `Ftl::reserved_blocks` counts them).
    pub fn new(unit_planes: u32, reserve_blocks: u32) -> Balance {
        Balance {
            unit_planes: unit_planes.max(1),
            reserve_blocks,
        }
    }

    /// Valid pages in the unit holding `plane`.
    #[inline]
    fn unit_valid(&self, plane: u32, nand: &Nand) -> u64 {
        let k = self.unit_planes;
        if k == 1 {
            return nand.plane_valid(plane) as u64;
        }
        let first = plane / k * k;
        (first..first + k).map(|p| nand.plane_valid(p) as u64).sum()
    }

    /// The most valid pages a unit may hold and still take host pages, against `units`
    /// units that together hold `valid` valid pages.
    #[inline]
    pub fn limit(&self, geo: &Geometry, valid: u64, units: u64) -> u64 {
        let block = geo.pages_per_block as u64;
        let unit_pages = (geo.blocks_per_plane as u64 * self.unit_planes as u64)
            .saturating_sub(self.reserve_blocks as u64)
            * block;
        let mean = valid / units;
        mean + block.max(unit_pages.saturating_sub(mean) / 2)
    }

    /// The first plane of `order` from `*cursor` on (round robin, advancing the cursor
    /// past every plane passed over) whose unit is not over the limit against the units
    /// of `order`, which hold `valid` valid pages; the cursor's plane when every unit is.
    #[inline]
    pub fn next(&self, order: &[u32], cursor: &mut u32, nand: &Nand, valid: u64) -> u32 {
        let units = (order.len() as u32 / self.unit_planes).max(1) as u64;
        let limit = self.limit(nand.geometry(), valid, units);
        let first = order[*cursor as usize];
        for _ in 0..order.len() {
            let p = order[*cursor as usize];
            *cursor += 1;
            if *cursor as usize == order.len() {
                *cursor = 0;
            }
            if self.unit_valid(p, nand) <= limit {
                return p;
            }
        }
        first
    }

    /// Valid pages on the planes of `order`.
    pub fn valid_on(order: &[u32], nand: &Nand) -> u64 {
        order.iter().map(|&p| nand.plane_valid(p) as u64).sum()
    }
}

impl Layout {
    /// A layout over `geo` with management blocks of `unit_pages` pages, whose
    /// write-order striping is guarded by `balance`.
    pub fn new(
        geo: &Geometry,
        unit_pages: u32,
        placement: Placement,
        channel_placement: ChannelPlacement,
        balance: Balance,
    ) -> Layout {
        let stripe = channel_first_order(geo);
        let by_channel = by_channel_order(geo);
        Layout {
            placement,
            channel_placement,
            unit_pages: unit_pages.max(1),
            channels: geo.channels,
            per_channel: geo.planes() / geo.channels,
            stripe,
            by_channel,
            cursor: 0,
            channel: 0,
            run_pages: 0,
            balance,
        }
    }

    /// Pages per management block.
    pub fn unit_pages(&self) -> u32 {
        self.unit_pages
    }

    /// Whether writes smaller than a management block rewrite all of it.
    pub fn rewrites_units(&self) -> bool {
        self.placement == Placement::ByAddress && self.unit_pages > 1
    }

    /// The plane the next host write of `lpn` goes to on `nand`.
    #[inline]
    pub fn plane_for(&mut self, lpn: u32, nand: &Nand) -> u32 {
        match (self.placement, self.channel_placement) {
            (Placement::WriteOrder, ChannelPlacement::Striped) => {
                self.balance
                    .next(&self.stripe, &mut self.cursor, nand, nand.valid_total())
            }
            (Placement::WriteOrder, ChannelPlacement::OneChannel) => {
                let k = self.run_pages % self.per_channel;
                let p = self.by_channel[(self.channel * self.per_channel + k) as usize];
                self.run_pages += 1;
                if self.run_pages == self.unit_pages {
                    self.run_pages = 0;
                    self.channel = (self.channel + 1) % self.channels;
                }
                p
            }
            (Placement::ByAddress, _) => self.address_plane(lpn),
        }
    }

    /// The plane of `lpn` under by-address placement (whatever this layout's placement):
    /// a pure function of the address.
    pub fn address_plane(&self, lpn: u32) -> u32 {
        match self.channel_placement {
            ChannelPlacement::Striped => {
                self.stripe[(lpn as u64 % self.stripe.len() as u64) as usize]
            }
            ChannelPlacement::OneChannel => {
                let unit = lpn / self.unit_pages;
                let offset = lpn % self.unit_pages;
                let ch = unit % self.channels;
                // Successive management blocks on one channel start on different chips,
                // so a channel's chips wear and work evenly.
                let k = ((unit / self.channels) as u64 * self.unit_pages as u64 + offset as u64)
                    % self.per_channel as u64;
                self.by_channel[(ch * self.per_channel + k as u32) as usize]
            }
        }
    }
}

/// Global plane number of (channel, chip, die, plane-in-die) under `geo`'s numbering.
fn plane_id(geo: &Geometry, ch: u32, chip: u32, die: u32, plane: u32) -> u32 {
    ((ch * geo.chips_per_channel + chip) * geo.dies_per_chip + die) * geo.planes_per_die + plane
}

/// Every plane, channels varying fastest, then chips, dies and planes: consecutive
/// entries sit on different buses first, which is what gives striped transfers their
/// parallelism.
pub fn channel_first_order(geo: &Geometry) -> Vec<u32> {
    let mut out = Vec::with_capacity(geo.planes() as usize);
    for plane in 0..geo.planes_per_die {
        for die in 0..geo.dies_per_chip {
            for chip in 0..geo.chips_per_channel {
                for ch in 0..geo.channels {
                    out.push(plane_id(geo, ch, chip, die, plane));
                }
            }
        }
    }
    out
}

/// Every plane grouped by channel (all of channel 0's planes first), chips varying
/// fastest inside a channel so a one-channel run still spreads over that channel's chips.
pub fn by_channel_order(geo: &Geometry) -> Vec<u32> {
    let mut out = Vec::with_capacity(geo.planes() as usize);
    for ch in 0..geo.channels {
        for plane in 0..geo.planes_per_die {
            for die in 0..geo.dies_per_chip {
                for chip in 0..geo.chips_per_channel {
                    out.push(plane_id(geo, ch, chip, die, plane));
                }
            }
        }
    }
    out
}

/// Where a byte offset lands: management block number and page inside it (the worked
/// example of docs/papers.md §1).
pub fn locate(offset_bytes: u64, unit_bytes: u64, page_bytes: u64) -> (u64, u64) {
    (
        offset_bytes / unit_bytes,
        (offset_bytes % unit_bytes) / page_bytes,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo() -> Geometry {
        Geometry {
            channels: 4,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 8,
            pages_per_block: 16,
            page_size_bytes: 4096,
            oob_size_bytes: 64,
        }
    }

    #[test]
    fn paper_worked_example_block_4_page_236() {
        // 32 GB SSD, 1 MB management blocks, 4 KB pages: 32 × 1024 management blocks of
        // 256 pages each.
        assert_eq!((32u64 << 30) / (1 << 20), 32 * 1024);
        assert_eq!((1u64 << 20) / 4096, 256);
        // The paper's offset, 5040 KB + 512 B = 4 MB + 944 KB + 512 B, lies in management
        // block 4 (4 MB / 1 MB) at page 236 (944 KB / 4 KB).
        assert_eq!(locate((5040 << 10) + 512, 1 << 20, 4096), (4, 236));
        // The paper reaches that offset as "sector 10201 × 1/2 KB", an arithmetic slip:
        // 10201 × 512 B = 5100.5 KB = 4 MB + 1004.5 KB, still block 4 but page 251. The
        // offset it then uses, 5040 KB + 512 B, is sector 10081.
        assert_eq!(locate(10201 * 512, 1 << 20, 4096), (4, 251));
        assert_eq!(((5040u64 << 10) + 512) / 512, 10081);
    }

    #[test]
    fn by_address_placement_is_a_function_of_the_address() {
        let g = geo();
        let nand = Nand::new(g, 1000, false, true);
        let mut a = Layout::new(
            &g,
            4,
            Placement::ByAddress,
            ChannelPlacement::Striped,
            Balance::new(1, 0),
        );
        let first: Vec<u32> = (0..16).map(|l| a.plane_for(l, &nand)).collect();
        let again: Vec<u32> = (0..16).rev().map(|l| a.plane_for(l, &nand)).collect();
        assert_eq!(first, again.into_iter().rev().collect::<Vec<_>>());
        // Striped: pages 0..3 on channels 0..3 (plane = (ch*2+chip)), chip 0.
        assert_eq!(&first[..4], &[0, 2, 4, 6]);
        // One channel: all four pages of block 0 on channel 0 (planes 0, 1), block 1 on
        // channel 1 (planes 2, 3).
        let mut o = Layout::new(
            &g,
            4,
            Placement::ByAddress,
            ChannelPlacement::OneChannel,
            Balance::new(1, 0),
        );
        let planes: Vec<u32> = (0..8).map(|l| o.plane_for(l, &nand)).collect();
        assert_eq!(planes, vec![0, 1, 0, 1, 2, 3, 2, 3]);
    }

    #[test]
    fn write_order_one_channel_fills_a_block_per_channel() {
        let g = geo();
        let nand = Nand::new(g, 1000, false, true);
        let mut w = Layout::new(
            &g,
            3,
            Placement::WriteOrder,
            ChannelPlacement::OneChannel,
            Balance::new(1, 0),
        );
        // Addresses do not matter, only the order: 3 pages on channel 0, 3 on channel 1 …
        let planes: Vec<u32> = [9, 1, 5, 7, 7, 7, 2]
            .iter()
            .map(|&l| w.plane_for(l, &nand))
            .collect();
        assert_eq!(planes, vec![0, 1, 0, 2, 3, 2, 4]);
        let mut s = Layout::new(
            &g,
            3,
            Placement::WriteOrder,
            ChannelPlacement::Striped,
            Balance::new(1, 0),
        );
        let planes: Vec<u32> = (0..5).map(|_| s.plane_for(0, &nand)).collect();
        assert_eq!(planes, vec![0, 2, 4, 6, 1]);
    }
}
