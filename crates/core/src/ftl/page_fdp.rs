//! Flexible Data Placement in the page FTL (NVMe TP4146; the bookkeeping is
//! [`crate::fdp`]): where each handle's writes and GC copies go physically.
//!
//! ```text
//! reclaim group g      dies g·D/R … (g+1)·D/R − 1 (their planes, channel-first order)
//! reclaim unit         one erase block on every plane of its group (a superblock of
//!                      the group; ftl.fdp.ru_size = m such superblocks): the handle's
//!                      pages rotate over the group's planes, so its unit fills exactly
//!                      when its blocks do
//! set_placement(ns, pid)   once per command: (handle, group) = fdp.resolve(ns, pid)
//! write(lpn):          plane = next of the group's planes for (group, handle);
//!                      program at the handle's frontier in that plane's GC unit;
//!                      the block opened for it holds only that handle's data
//! GC of victim v:      tag(v) = handle h whose data v holds, or "mixed"
//!                      h initially isolated, or mixed → the unit's shared GC frontier
//!                                                      (tagged mixed)
//!                      h persistently isolated     → h's own GC frontier (tagged h)
//!                      each moved page charged to the handle and namespace that wrote it
//! ```
//! Frontiers per GC unit: one host frontier per handle, one shared GC frontier, one GC
//! frontier per persistently isolated handle, each opened only when first written, so
//! a drive whose host gives no placement identifier opens exactly the host and GC
//! frontiers of the plain page FTL with the hot/cold split, in the same order.
//! After a power cut the pools' resumed frontiers become handle 0's (`adopt_frontiers`).
//! Static wear leveling's moves follow the GC routing (a persistently isolated handle's
//! cold data stays apart), taking the least-worn free block as GC does.

use super::blocks::{Blocks, Frontier, Stream};
use super::gc::VictimPolicy;
use super::layout::{Balance, channel_first_order};
use super::{FtlConfig, FtlError};
use crate::fdp::{Fdp, GcStream, MIXED_HANDLES};
use crate::nand::{BlockId, Geometry, Lpn, Nand, Ppn};
use crate::spec::ConfigError;

/// The page FTL's FDP state.
#[derive(Clone)]
pub(super) struct PageFdp {
    pub(super) fdp: Fdp,
    handles: usize,
    /// Frontier slots per GC unit: host frontiers `0..H`, the shared GC frontier `H`,
    /// persistently isolated handle h's GC frontier `H + 1 + h`.
    slots: usize,
    fronts: Vec<Option<Frontier>>,
    /// Per block: the handle whose data it holds, or [`MIXED_HANDLES`].
    block_tag: Vec<u16>,
    /// Per logical page: `namespace << 16 | handle` of its last host write.
    lpn_tag: Vec<u32>,
    /// Per reclaim group: its planes, channel-first.
    group_planes: Vec<Vec<u32>>,
    /// Per (handle, group): the next position in the group's planes.
    cursor: Vec<u32>,
    /// The current command's namespace, handle and reclaim group.
    ns: u32,
    handle: u16,
    rg: u16,
    /// Where the victim being moved goes: its slot and the tag of blocks opened there.
    gc_slot: usize,
    gc_tag: u16,
    /// The rotation's guard against GC units short of reclaimable space.
    balance: Balance,
    page_bytes: u64,
    block_bytes: u64,
}

impl PageFdp {
    /// FDP over `geo` with GC units of `unit_planes` planes, or why `cfg` does not fit.
    pub(super) fn new(
        cfg: &FtlConfig,
        geo: &Geometry,
        unit_planes: u32,
        logical_pages: u64,
        balance: Balance,
    ) -> Result<PageFdp, ConfigError> {
        let f = &cfg.fdp;
        f.validate("ftl.fdp")?;
        let dies = geo.channels * geo.chips_per_channel * geo.dies_per_chip;
        let groups = f.reclaim_groups as u32;
        if !dies.is_multiple_of(groups) {
            return Err(super::spec::unfit(
                "page",
                format!("ftl.fdp.reclaim_groups = {groups}: expected a divisor of the {dies} dies"),
            ));
        }
        let planes_per_group = geo.planes() / groups;
        if !planes_per_group.is_multiple_of(unit_planes) {
            return Err(super::spec::unfit(
                "page",
                format!(
                    "ftl.fdp.reclaim_groups = {groups}: each group's {planes_per_group} planes \
                 must hold whole GC pools of {unit_planes} planes (a device this small \
                 pools planes; fewer reclaim groups)"
                ),
            ));
        }
        let page_bytes = geo.page_size_bytes as u64;
        let block_bytes = geo.pages_per_block as u64 * page_bytes;
        let superblock = block_bytes * planes_per_group as u64;
        let ru_bytes = match f.ru_size.bytes() {
            0 => superblock,
            b if b.is_multiple_of(superblock) => b,
            b => {
                return Err(super::spec::unfit(
                    "page",
                    format!(
                        "ftl.fdp.ru_size = {}: expected a multiple of {} (one erase block on \
                     each of a reclaim group's {planes_per_group} planes)",
                        crate::units::Size(b),
                        crate::units::Size(superblock)
                    ),
                ));
            }
        };
        let fdp = Fdp::new(f.layout(ru_bytes))?;
        let order = channel_first_order(geo);
        let group_planes = (0..groups)
            .map(|g| {
                let range = g * planes_per_group..(g + 1) * planes_per_group;
                order
                    .iter()
                    .copied()
                    .filter(|p| range.contains(p))
                    .collect()
            })
            .collect();
        let handles = f.handles.len();
        let slots = 2 * handles + 1;
        let units = (geo.planes() / unit_planes) as usize;
        Ok(PageFdp {
            fdp,
            handles,
            slots,
            fronts: vec![None; units * slots],
            block_tag: vec![0; geo.blocks() as usize],
            lpn_tag: vec![0; logical_pages as usize],
            group_planes,
            cursor: vec![0; handles * groups as usize],
            ns: 0,
            handle: 0,
            rg: 0,
            gc_slot: handles,
            gc_tag: MIXED_HANDLES,
            balance,
            page_bytes,
            block_bytes,
        })
    }

    /// The placement of the writes that follow (once per command).
    pub(super) fn set_placement(&mut self, ns: u32, pid: Option<u16>) {
        let (handle, rg) = self.fdp.resolve(ns as usize, pid);
        self.ns = ns;
        self.handle = handle;
        self.rg = rg;
    }

    /// The plane of the current handle's next host page: the handle's rotation over its
    /// reclaim group's planes, passing over a GC unit short of reclaimable space as the
    /// page FTL's striping does (layout.rs, [`Balance`]).
    #[inline]
    pub(super) fn next_plane(&mut self, nand: &Nand) -> u32 {
        let planes = &self.group_planes[self.rg as usize];
        let c = &mut self.cursor[self.handle as usize * self.group_planes.len() + self.rg as usize];
        // One group holds the whole array's data; several compare their own planes.
        let valid = if self.group_planes.len() == 1 {
            nand.valid_total()
        } else {
            Balance::valid_on(planes, nand)
        };
        self.balance.next(planes, c, nand, valid)
    }

    /// The page the current handle's host write of `lpn` goes to in `unit`; the
    /// statistics count it.
    pub(super) fn host_page<V: VictimPolicy>(
        &mut self,
        bm: &mut Blocks<V>,
        unit: u32,
        lpn: Lpn,
        nand: &Nand,
    ) -> Result<Ppn, FtlError> {
        let slot = &mut self.fronts[unit as usize * self.slots + self.handle as usize];
        let ppn = bm.next_page_on(slot, unit, Stream::Host, nand)?;
        if ppn.0.is_multiple_of(bm.geo.pages_per_block) {
            self.block_tag[bm.geo.block_of(ppn).0 as usize] = self.handle;
        }
        self.lpn_tag[lpn.0 as usize] = (self.ns << 16) | self.handle as u32;
        self.fdp
            .host_written(self.ns as usize, self.handle, self.rg, self.page_bytes);
        Ok(ppn)
    }

    /// Sends the valid data of `victim` (in reclaim group `rg`) where its handle's
    /// isolation allows; the moves then take [`Self::gc_run`].
    pub(super) fn route_victim(&mut self, victim: BlockId, rg: u16, valid: u32) {
        let tag = self.block_tag[victim.0 as usize];
        let stream = if tag == MIXED_HANDLES {
            GcStream::SharedInitiallyIsolated
        } else {
            self.fdp.gc_stream(tag)
        };
        (self.gc_slot, self.gc_tag) = match stream {
            GcStream::SharedInitiallyIsolated => (self.handles, MIXED_HANDLES),
            GcStream::Handle(h) => (self.handles + 1 + h as usize, h),
        };
        if valid > 0 {
            self.fdp.reallocated(tag, rg);
        }
    }

    /// Up to `want` pages of the routed victim's GC frontier in `unit`.
    pub(super) fn gc_run<V: VictimPolicy>(
        &mut self,
        bm: &mut Blocks<V>,
        unit: u32,
        want: u32,
    ) -> Result<(Ppn, u32, Option<BlockId>), FtlError> {
        let slot = &mut self.fronts[unit as usize * self.slots + self.gc_slot];
        let run = bm.next_run_on(slot, unit, Stream::Gc, want)?;
        if run.0.0.is_multiple_of(bm.geo.pages_per_block) {
            self.block_tag[bm.geo.block_of(run.0).0 as usize] = self.gc_tag;
        }
        Ok(run)
    }

    /// The page now at `to` (logical page `lpn`) was moved: charged to its writer.
    #[inline]
    pub(super) fn moved(&mut self, lpn: u32) {
        let tag = self.lpn_tag[lpn as usize];
        self.fdp
            .moved((tag >> 16) as usize, tag as u16, self.page_bytes);
    }

    /// A block was erased.
    pub(super) fn erased(&mut self) {
        self.fdp.erased(self.block_bytes);
    }

    /// The reclaim group of GC unit `unit` of `unit_planes` planes.
    pub(super) fn group_of_unit(&self, unit: u32, unit_planes: u32) -> u16 {
        let per_group = self.group_planes[0].len() as u32;
        (unit * unit_planes / per_group) as u16
    }

    /// After a power cut ([`Blocks::remount`] made each pool's first two partly written
    /// blocks its host and GC frontiers): those become handle 0's host and GC frontiers
    /// (which handle wrote a page is not in its OOB tag, so recovered data counts as
    /// handle 0's), and every other handle that was filling a unit starts a fresh one
    /// (implicitly; its partly written blocks were left to the caller to move out).
    pub(super) fn adopt_frontiers<V: VictimPolicy>(&mut self, bm: &mut Blocks<V>) {
        self.fronts.iter_mut().for_each(|f| *f = None);
        for h in 1..self.handles as u16 {
            for g in 0..self.group_planes.len() as u16 {
                self.fdp.implicit_change(h, g);
            }
        }
        let (gc_slot, gc_tag) = match self.fdp.gc_stream(0) {
            GcStream::SharedInitiallyIsolated => (self.handles, MIXED_HANDLES),
            GcStream::Handle(_) => (self.handles + 1, 0),
        };
        for (u, unit) in bm.units.iter_mut().enumerate() {
            for (stream, slot, tag) in [(Stream::Host, 0, 0), (Stream::Gc, gc_slot, gc_tag)] {
                if let Some(f) = unit.frontier[stream as usize].take() {
                    self.block_tag[f.block as usize] = tag;
                    self.fronts[u * self.slots + slot] = Some(f);
                }
            }
        }
    }

    /// Panics unless every FDP frontier is an open block at its write pointer.
    pub(super) fn check_invariants<V: VictimPolicy>(&self, bm: &Blocks<V>, nand: &Nand) {
        for f in self.fronts.iter().flatten() {
            assert_eq!(
                bm.role[f.block as usize],
                super::blocks::Role::Open,
                "FDP frontier block {}",
                f.block
            );
            assert_eq!(
                nand.write_ptr(BlockId(f.block)),
                f.next_page,
                "FDP frontier"
            );
        }
    }

    /// Frontiers the FDP state can keep open per GC unit (every handle's host frontier,
    /// the shared GC frontier, the persistently isolated handles' GC frontiers).
    pub(super) fn max_frontiers(cfg: &FtlConfig) -> u64 {
        let persistent = cfg
            .fdp
            .handles
            .iter()
            .filter(|&&i| i == crate::fdp::Isolation::PersistentlyIsolated)
            .count();
        (cfg.fdp.handles.len() + 1 + persistent) as u64
    }
}
