//! Block manager shared by the page-mapped FTLs (the page FTL and DFTL): free pools,
//! write frontiers, victim relocation, the GC loop and the static-wear-leveling pick.
//! The policies are the classic log-structured ones (Rosenblum & Ousterhout's LFS
//! cleaner; Kawaguchi et al. 1995 for flash; Agrawal et al., USENIX ATC 2008, for the
//! per-plane organisation with copy-back).
//!
//! ```text
//! unit:        k consecutive planes (a plane, a die, a chip …) sharing a free pool and
//!              frontiers; k = 1 whenever the reserve fits in one plane (feasible.rs)
//! lanes:       a unit spanning several dies may keep a host frontier per die (lane);
//!              a lane opens the least-worn free block on its own die (any die of the
//!              unit if its die has none), so a unit's host writes use all its dies
//! next_run(u, stream, want):
//!              no open block for stream → pop a free block (least worn; the most worn
//!              for wear leveling); hand out up to `want` consecutive pages; a block
//!              leaves the frontier the moment its last page is handed out
//! close(b):    fully programmed → GC candidate with its valid count
//! relocate(victim, stream): valid pages → stream's frontier in runs (one NAND call per
//!              run), the owner's map follows each page
//! collect(u):  while free(u) < gc_high: victim = policy.select(u); owner.reclaim(victim)
//!              (relocate + erase + release); then the owner's after-GC hook (static WL)
//! release(b):  erased block → free pool, keyed by erase count (dynamic WL) or arrival
//! ```
//!
//! The owner (the FTL) implements [`Owner`]: how a moved page's mapping follows and how a
//! victim is reclaimed (DFTL's translation blocks move differently from data blocks). The
//! functions here are generic over it, so both FTLs get monomorphised code: no dynamic
//! dispatch, the page FTL's hot path (`next_page`, `invalidate`, `needs_gc`) compiles to
//! what it was when the page FTL kept these fields itself.

use super::gc::{PolicyParams, VictimPolicy};
use super::{FtlConfig, FtlError};
use crate::nand::{BlockId, Cause, Geometry, Nand, Ppn};
use crate::spec::Counter;
use std::collections::BTreeSet;

/// Reported as `ftl.gc.invocations`.
pub const GC_INVOCATIONS: Counter = Counter::total(
    "ftl.gc.invocations",
    "collections",
    "garbage collections run (one or more victims each)",
);
/// Reported as `ftl.gc.victims`.
pub const GC_VICTIMS: Counter = Counter::total(
    "ftl.gc.victims",
    "blocks",
    "blocks reclaimed by garbage collection",
);
/// Reported as `ftl.gc.victim_valid_pages`.
pub const GC_VICTIM_VALID_PAGES: Counter = Counter::total(
    "ftl.gc.victim_valid_pages",
    "pages",
    "valid pages in the victims when chosen (the pages GC had to move)",
);
/// Reported as `ftl.gc.background_victims`.
pub const GC_BACKGROUND_VICTIMS: Counter = Counter::total(
    "ftl.gc.background_victims",
    "blocks",
    "victims reclaimed while the device was idle (background GC schedule only)",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[
    GC_INVOCATIONS,
    GC_VICTIMS,
    GC_VICTIM_VALID_PAGES,
    GC_BACKGROUND_VICTIMS,
];

/// Write streams, each with its own frontier per unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stream {
    /// Host writes (and GC copies when the hot/cold split is off).
    Host = 0,
    /// GC copies (colder data) with the hot/cold split.
    Gc = 1,
    /// Static wear leveling's copies of the coldest data.
    Wl = 2,
    /// DFTL's translation pages.
    Map = 3,
}

const STREAMS: usize = 4;

/// What a block is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Free,
    Open,
    Closed,
    Collecting,
    /// Reached its endurance: never allocated again.
    Retired,
}

/// Where a block found partly programmed at a mount goes on being written.
#[derive(Clone, Copy, Debug)]
enum Slot {
    /// A stream's frontier (lane 0's for the host stream).
    Stream(Stream),
    /// The host frontier of lane `1 + n`.
    Lane(u32),
}

/// An open block and its next page.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frontier {
    pub(super) block: u32,
    pub(super) next_page: u32,
}

/// Up to `want` consecutive pages of the open frontier in `slot` (advancing the
/// allocation `clock`): the first page, how many, and the block if they fill it, in
/// which case the frontier is emptied. Shared by the streams' frontiers and the ones a
/// caller keeps (FDP's).
#[inline]
fn take_run(
    clock: &mut u64,
    slot: &mut Option<Frontier>,
    np: u32,
    want: u32,
) -> (Ppn, u32, Option<BlockId>) {
    let f = slot.as_mut().expect("an open frontier");
    let first = Ppn(f.block * np + f.next_page);
    let n = want.min(np - f.next_page);
    *clock += n as u64;
    f.next_page += n;
    let mut filled = None;
    if f.next_page == np {
        filled = Some(BlockId(f.block));
        *slot = None;
    }
    (first, n, filled)
}

/// A unit's free pool and open frontiers.
#[derive(Clone, Debug, Default)]
pub(super) struct Unit {
    /// Free blocks keyed by (erase count or arrival order, block).
    pub(super) free: BTreeSet<(u32, u32)>,
    pub(super) frontier: [Option<Frontier>; STREAMS],
    pub(super) erases_since_wl_check: u32,
    /// Blocks of the unit retired after reaching their endurance.
    pub(super) retired: u32,
    /// A closed block of the unit may hold no valid page: set when one is closed empty
    /// or loses its last valid page, cleared by [`Blocks::erase_empty`], so that scan
    /// runs only when it can find something (DFTL calls it on every translation write
    /// while a unit sits at its GC threshold: 13 % of a 128 GiB run's time).
    pub(super) maybe_empty: bool,
    /// Host frontiers of lanes 1.. (lane 0's is `frontier[Host]`); empty with one lane.
    pub(super) lanes: Vec<Option<Frontier>>,
}

/// Free pools, frontiers, block roles and the victim policy of a page-mapped FTL.
#[derive(Clone)]
pub(super) struct Blocks<V: VictimPolicy> {
    /// The real geometry (pages, blocks, planes of the NAND).
    pub(super) geo: Geometry,
    /// The unit geometry: the same blocks with `planes()` = units, so
    /// `unit_geo.plane_of(b)` is `b`'s unit and the victim policy indexes units.
    pub(super) unit_geo: Geometry,
    /// Planes per unit (a divisor of the plane count); `plane / unit_planes` is the
    /// plane's unit.
    pub(super) unit_planes: u32,
    /// Host frontiers per unit (1, or one per die of a unit spanning several).
    pub(super) lanes: u32,
    /// Planes per lane (`unit_planes / lanes`).
    lane_planes: u32,
    pub(super) units: Vec<Unit>,
    pub(super) role: Vec<Role>,
    /// The stream each block was last opened for (DFTL tells translation blocks by it).
    pub(super) opened_for: Vec<Stream>,
    pub(super) policy: V,
    /// Pages handed out so far, to every stream (host, GC, wear leveling, mapping): the
    /// clock for block ages. Internal writes take device time as host writes do, so
    /// they age blocks too; a clock of host writes alone stands still through a burst of
    /// collection or mapping writes, and every block touched in it looks equally new.
    pub(super) clock: u64,
    /// GC starts below `gc_low` free blocks in a unit and stops at `gc_high`.
    pub(super) gc_low: u32,
    pub(super) gc_high: u32,
    dynamic_wl: bool,
    free_key_seq: u32,
    scratch: Vec<Ppn>,
    pub(super) gc_invocations: u64,
    pub(super) gc_victims: u64,
    pub(super) gc_victim_valid_pages: u64,
    /// Victims taken by background GC in idle time (also counted in `gc_victims`).
    pub(super) gc_background_victims: u64,
    /// The NAND's endurance (learnt at the first erase), for the end-of-life error.
    pub(super) endurance: u32,
}

/// What the FTL that owns a [`Blocks`] supplies: its map, and how it reclaims a victim.
pub(super) trait Owner<V: VictimPolicy> {
    /// Below this many free blocks a GC pass takes the unit's closed block with the
    /// fewest valid pages whatever the policy says (emergency greedy): for FTLs whose
    /// victims can cost more blocks than they free (DFTL's batch updates), so a policy
    /// that ignores valid counts (FIFO, cost-benefit's age term) cannot drain the unit.
    const EMERGENCY_FREE: usize = 0;
    fn blocks(&mut self) -> &mut Blocks<V>;
    /// Prefetches the map state that moving the data page at `src` will update.
    fn prefetch_move(&self, nand: &Nand, src: Ppn);
    /// The data page now at `to` (its OOB names its logical page) was moved there.
    fn moved(&mut self, nand: &Nand, to: Ppn);
    /// Moves `victim`'s valid pages and erases it (GC chose it).
    fn reclaim(&mut self, victim: BlockId, nand: &mut Nand) -> Result<(), FtlError>;
    /// Runs after a GC pass over `unit` has refilled its pool (static wear leveling).
    fn after_gc(&mut self, _unit: u32, _nand: &mut Nand) -> Result<(), FtlError> {
        Ok(())
    }
    /// Up to `want` pages for data [`relocate`] moves to `stream` in `unit`: the
    /// stream's frontier ([`Blocks::next_run`]). An FTL with more frontiers than the
    /// streams (the page FTL's FDP handles) routes the moves here.
    #[inline]
    fn next_run(
        &mut self,
        unit: u32,
        stream: Stream,
        want: u32,
    ) -> Result<(Ppn, u32, Option<BlockId>), FtlError> {
        self.blocks().next_run(unit, stream, want)
    }
}

impl<V: VictimPolicy> Blocks<V> {
    /// Every block of `geo` free, grouped into units of `unit_planes` planes, with the
    /// thresholds `gc_low`/`gc_high` per unit.
    pub(super) fn new(
        cfg: &FtlConfig,
        geo: &Geometry,
        unit_planes: u32,
        gc_low: u32,
        gc_high: u32,
        params: PolicyParams,
    ) -> Self {
        let unit_geo = unit_geometry(geo, unit_planes);
        let mut b = Blocks {
            geo: *geo,
            unit_geo,
            unit_planes,
            lanes: 1,
            lane_planes: unit_planes,
            // A mount may close blocks it finds with no valid page: scan once first.
            units: vec![
                Unit {
                    maybe_empty: true,
                    ..Unit::default()
                };
                unit_geo.planes() as usize
            ],
            role: vec![Role::Free; geo.blocks() as usize],
            opened_for: vec![Stream::Host; geo.blocks() as usize],
            policy: V::build(&unit_geo, params),
            clock: 0,
            gc_low,
            gc_high,
            dynamic_wl: cfg.dynamic_wl,
            free_key_seq: 0,
            scratch: Vec::with_capacity(geo.pages_per_block as usize),
            gc_invocations: 0,
            gc_victims: 0,
            gc_victim_valid_pages: 0,
            gc_background_victims: 0,
            endurance: u32::MAX,
        };
        // Every block free, as `release` would leave it block by block, but each pool
        // built in one pass from keys already in order: at 476 GiB a device has ~10^5
        // blocks, and one BTreeSet insert each cost most of the device's setup (twice per
        // run: validation builds the FTL once to check it).
        let mut pools: Vec<Vec<(u32, u32)>> = vec![Vec::new(); b.units.len()];
        for id in 0..geo.blocks() {
            let key = b.next_free_key(0);
            pools[b.unit_of(BlockId(id)) as usize].push((key, id));
        }
        for (unit, pool) in b.units.iter_mut().zip(pools) {
            // Keys rise with the block number (arrival order, or erase count 0 then
            // block), so each pool is sorted and `from_iter` builds it in bulk.
            debug_assert!(pool.is_sorted());
            unit.free = pool.into_iter().collect();
        }
        b
    }

    /// The same with `lanes` host frontiers per unit (a divisor of `unit_planes`; see
    /// [`super::feasible::Plan::lanes`]).
    pub(super) fn with_lanes(mut self, lanes: u32) -> Self {
        debug_assert!(lanes >= 1 && self.unit_planes.is_multiple_of(lanes));
        self.lanes = lanes;
        self.lane_planes = self.unit_planes / lanes;
        for u in &mut self.units {
            u.lanes = vec![None; lanes as usize - 1];
        }
        self
    }

    /// The host lane of `plane` in its unit (0 with one lane).
    #[inline]
    pub(super) fn lane_of_plane(&self, plane: u32) -> u32 {
        if self.lanes == 1 {
            0
        } else {
            (plane % self.unit_planes) / self.lane_planes
        }
    }

    /// The next host page of `unit`'s lane `lane` (lane 0: [`Self::next_page`] of the
    /// host stream).
    #[inline]
    pub(super) fn next_host_page(
        &mut self,
        unit: u32,
        lane: u32,
        nand: &Nand,
    ) -> Result<Ppn, FtlError> {
        if lane == 0 {
            return self.next_page(unit, Stream::Host, nand);
        }
        let mut slot = self.units[unit as usize].lanes[lane as usize - 1].take();
        if slot.is_none() {
            slot = Some(Frontier {
                block: self.take_free(unit, Stream::Host, lane)?,
                next_page: 0,
            });
        }
        let (ppn, _, filled) = take_run(&mut self.clock, &mut slot, self.geo.pages_per_block, 1);
        self.units[unit as usize].lanes[lane as usize - 1] = slot;
        if let Some(b) = filled {
            // As `next_page`: the page is programmed right after this returns.
            self.close(b, nand.valid_count(b) + 1);
        }
        Ok(ppn)
    }

    /// The unit `plane` belongs to.
    #[inline]
    pub(super) fn unit_of_plane(&self, plane: u32) -> u32 {
        // Per-plane units (every device with room for per-plane reserves) skip the
        // division; the branch always goes the same way.
        if self.unit_planes == 1 {
            plane
        } else {
            plane / self.unit_planes
        }
    }

    /// The unit block `b` belongs to.
    #[inline]
    pub(super) fn unit_of(&self, b: BlockId) -> u32 {
        self.unit_geo.plane_of(b)
    }

    /// Free blocks in `unit`.
    #[inline]
    pub(super) fn free(&self, unit: u32) -> usize {
        self.units[unit as usize].free.len()
    }

    /// Whether `unit` dropped below the GC threshold.
    #[inline]
    pub(super) fn needs_gc(&self, unit: u32) -> bool {
        self.free(unit) < self.gc_low as usize
    }

    /// The error for a unit that ran dry (named by its first plane): the end of the
    /// drive's life when retired blocks took its spares, else a device too full.
    pub(super) fn out_of_space(&self, unit: u32) -> FtlError {
        if self.units[unit as usize].retired > 0 {
            return FtlError::EndOfLife {
                plane: unit * self.unit_planes,
                retired: self.retired_blocks(),
                endurance: self.endurance,
            };
        }
        FtlError::OutOfSpace {
            plane: unit * self.unit_planes,
        }
    }

    /// Blocks retired so far over the whole device.
    pub(super) fn retired_blocks(&self) -> u64 {
        self.units.iter().map(|u| u.retired as u64).sum()
    }

    /// Returns an erased block to its unit's free pool.
    pub(super) fn release(&mut self, b: BlockId, erases: u32) {
        let key = self.next_free_key(erases);
        self.role[b.0 as usize] = Role::Free;
        let unit = self.unit_of(b) as usize;
        self.units[unit].free.insert((key, b.0));
    }

    /// The free-pool key of a block released now after `erases` erases: its erase
    /// count (dynamic wear leveling: least worn first) or its arrival order.
    #[inline]
    fn next_free_key(&mut self, erases: u32) -> u32 {
        if self.dynamic_wl {
            erases
        } else {
            self.free_key_seq = self.free_key_seq.wrapping_add(1);
            self.free_key_seq
        }
    }

    /// Erases `b` (its valid pages moved) and returns it to the pool, or retires it
    /// when that erase brought it to its endurance: a worn-out block is a bad block, so
    /// the spare capacity shrinks by one block (docs/ftls.md, "Bad blocks").
    pub(super) fn erase_release(&mut self, b: BlockId, cause: Cause, nand: &mut Nand) {
        nand.erase(b, cause);
        self.endurance = nand.endurance_cycles();
        if nand.erase_count(b) >= self.endurance {
            self.role[b.0 as usize] = Role::Retired;
            let unit = self.unit_of(b) as usize;
            self.units[unit].retired += 1;
            return;
        }
        self.release(b, nand.erase_count(b));
    }

    /// Opens a block for `stream` in `unit`. Wear-leveling relocations hold cold data:
    /// they get the most-worn free block, every other stream the least-worn one.
    #[cold]
    pub(super) fn open_block(&mut self, unit: u32, stream: Stream) -> Result<BlockId, FtlError> {
        let block = self.take_free(unit, stream, 0)?;
        self.units[unit as usize].frontier[stream as usize] = Some(Frontier {
            block,
            next_page: 0,
        });
        Ok(BlockId(block))
    }

    /// A free block of `unit` opened for `stream` (the most worn for wear leveling,
    /// else the least worn), not yet any frontier's. With several host lanes a host
    /// block comes from lane `lane`'s planes when they have one.
    #[cold]
    fn take_free(&mut self, unit: u32, stream: Stream, lane: u32) -> Result<u32, FtlError> {
        let first = unit * self.unit_planes + lane * self.lane_planes;
        let planes = first..first + self.lane_planes;
        let geo = self.geo;
        let ps = &mut self.units[unit as usize];
        let in_lane = (stream == Stream::Host && self.lanes > 1)
            .then(|| {
                ps.free
                    .iter()
                    .find(|&&(_, b)| planes.contains(&geo.plane_of(BlockId(b))))
                    .copied()
            })
            .flatten();
        let entry = if let Some(e) = in_lane {
            ps.free.remove(&e);
            Some(e)
        } else if stream == Stream::Wl {
            ps.free.pop_last()
        } else {
            ps.free.pop_first()
        };
        let Some((_, block)) = entry else {
            return Err(self.out_of_space(unit));
        };
        self.role[block as usize] = Role::Open;
        self.opened_for[block as usize] = stream;
        Ok(block)
    }

    /// [`Self::next_run`] on a frontier the caller keeps (`slot`: the page FTL's FDP
    /// frontiers), opening a block of `unit` for `stream` when it is empty. A run that
    /// starts a block's first page opened it.
    pub(super) fn next_run_on(
        &mut self,
        slot: &mut Option<Frontier>,
        unit: u32,
        stream: Stream,
        want: u32,
    ) -> Result<(Ppn, u32, Option<BlockId>), FtlError> {
        if slot.is_none() {
            *slot = Some(Frontier {
                block: self.take_free(unit, stream, 0)?,
                next_page: 0,
            });
        }
        Ok(take_run(
            &mut self.clock,
            slot,
            self.geo.pages_per_block,
            want,
        ))
    }

    /// [`Self::next_page`] on a frontier the caller keeps (see [`Self::next_run_on`]).
    pub(super) fn next_page_on(
        &mut self,
        slot: &mut Option<Frontier>,
        unit: u32,
        stream: Stream,
        nand: &Nand,
    ) -> Result<Ppn, FtlError> {
        let (ppn, _, filled) = self.next_run_on(slot, unit, stream, 1)?;
        if let Some(b) = filled {
            // As `next_page`: the page is programmed right after this returns.
            self.close(b, nand.valid_count(b) + 1);
        }
        Ok(ppn)
    }

    /// Next page of `stream`'s frontier in `unit`, opening a new block when needed.
    #[inline]
    pub(super) fn next_page(
        &mut self,
        unit: u32,
        stream: Stream,
        nand: &Nand,
    ) -> Result<Ppn, FtlError> {
        let np = self.geo.pages_per_block;
        self.clock += 1;
        if self.units[unit as usize].frontier[stream as usize].is_none() {
            self.open_block(unit, stream)?;
        }
        let slot = &mut self.units[unit as usize].frontier[stream as usize];
        let f = slot.as_mut().expect("frontier just opened");
        let ppn = Ppn(f.block * np + f.next_page);
        f.next_page += 1;
        if f.next_page == np {
            // Close as soon as the last page is handed out, so a full block is a GC and
            // wear-leveling candidate at once rather than when the stream next writes.
            // The page is programmed right after this returns; the policy is told the
            // valid count it will have then.
            let b = BlockId(f.block);
            *slot = None;
            self.close(b, nand.valid_count(b) + 1);
        }
        Ok(ppn)
    }

    /// Up to `want` consecutive pages of `stream`'s frontier in `unit`, opening a block
    /// when needed: the first page, how many, and the block if they fill it. A filled
    /// block leaves the frontier at once; the caller closes it with [`Self::close`] once
    /// the pages are programmed (the policy needs its valid count then).
    #[inline]
    pub(super) fn next_run(
        &mut self,
        unit: u32,
        stream: Stream,
        want: u32,
    ) -> Result<(Ppn, u32, Option<BlockId>), FtlError> {
        let np = self.geo.pages_per_block;
        if self.units[unit as usize].frontier[stream as usize].is_none() {
            self.open_block(unit, stream)?;
        }
        let slot = &mut self.units[unit as usize].frontier[stream as usize];
        Ok(take_run(&mut self.clock, slot, np, want))
    }

    /// Makes fully programmed block `b`, holding `valid` valid pages, a GC candidate.
    #[inline]
    pub(super) fn close(&mut self, b: BlockId, valid: u32) {
        self.role[b.0 as usize] = Role::Closed;
        if valid == 0 {
            let u = self.unit_of(b) as usize;
            self.units[u].maybe_empty = true;
        }
        self.policy.on_close(b, valid, self.clock);
    }

    /// Invalidates `ppn` and tells the victim policy.
    #[inline]
    pub(super) fn invalidate(&mut self, ppn: Ppn, nand: &mut Nand) {
        nand.invalidate(ppn);
        let b = self.geo.block_of(ppn);
        let valid = nand.valid_count(b);
        if valid == 0 && self.role[b.0 as usize] == Role::Closed {
            let u = self.unit_of(b) as usize;
            self.units[u].maybe_empty = true;
        }
        self.policy.on_invalidate(b, valid, self.clock);
    }

    /// Static wear leveling (threshold cold-block swap, docs/algorithms.md §4.3): if `unit`
    /// has spare free blocks and the spread of its erase counts reached `threshold`, the
    /// least-worn closed block (its data is cold), removed from the GC candidates; the
    /// caller moves its data to the [`Stream::Wl`] frontier, which takes the most-worn
    /// free block, so the young block re-enters circulation.
    pub(super) fn wear_level_victim(
        &mut self,
        unit: u32,
        threshold: u32,
        nand: &Nand,
    ) -> Option<BlockId> {
        if self.free(unit) <= self.gc_low as usize {
            return None;
        }
        let bpu = self.unit_geo.blocks_per_plane;
        let first = unit * bpu;
        let mut max_erases = 0;
        let mut coldest: Option<(u32, u32)> = None;
        for b in first..first + bpu {
            let e = nand.erase_count(BlockId(b));
            max_erases = max_erases.max(e);
            if self.role[b as usize] == Role::Closed && coldest.is_none_or(|(ce, _)| e < ce) {
                coldest = Some((e, b));
            }
        }
        let (min_erases, cold) = coldest?;
        if max_erases - min_erases < threshold {
            return None;
        }
        self.policy.remove(BlockId(cold));
        Some(BlockId(cold))
    }

    /// Erases every closed block of `unit` that holds no valid page and returns how
    /// many it freed. Such a block needs no copies (so no map updates), which makes this
    /// the one reclaim that is safe inside any other operation, a collection included.
    /// A scan over the unit's blocks: called only when the unit is at its GC threshold.
    #[cold]
    pub(super) fn erase_empty(&mut self, unit: u32, nand: &mut Nand) -> usize {
        if !std::mem::take(&mut self.units[unit as usize].maybe_empty) {
            return 0;
        }
        let bpu = self.unit_geo.blocks_per_plane;
        let mut freed = 0;
        for b in unit * bpu..(unit + 1) * bpu {
            let id = BlockId(b);
            if self.role[b as usize] == Role::Closed && nand.valid_count(id) == 0 {
                self.policy.remove(id);
                self.gc_victims += 1;
                self.erase_release(id, Cause::Gc, nand);
                freed += 1;
            }
        }
        freed
    }

    /// The closed block of `unit` with the fewest valid pages, removed from the
    /// policy's candidates (a scan: emergencies only).
    #[cold]
    pub(super) fn emergency_victim(&mut self, unit: u32, nand: &Nand) -> Option<BlockId> {
        let bpu = self.unit_geo.blocks_per_plane;
        let first = unit * bpu;
        let best = (first..first + bpu)
            .filter(|&b| self.role[b as usize] == Role::Closed)
            .min_by_key(|&b| nand.valid_count(BlockId(b)))?;
        self.policy.remove(BlockId(best));
        Some(BlockId(best))
    }

    /// Rebuilds pools, roles and frontiers from a mounted array (recovery): erased blocks
    /// are free (keyed by their erase counts), full ones closed GC candidates, partly
    /// programmed ones open again as a frontier of their unit: with `roomiest`, the
    /// unit's partly programmed block with the most unprogrammed pages becomes that
    /// stream's frontier first; then each of the others, in block order, `stream_of`'s
    /// stream (a host block: its own die's lane), another slot of `streams` (the ones the
    /// FTL writes) when that one is taken, else a free host lane.
    /// Returns the partly programmed blocks left without a slot (open, in no frontier):
    /// the FTL moves their data and erases them, or they would never fill.
    ///
    /// `roomiest` names the stream recovery writes into (the page FTL's GC stream). A cut
    /// in the middle of a collection that had just taken the unit's last free block for
    /// that stream leaves no erased block at the mount; the victim's uncopied pages then
    /// fit in the block its copies went to, and so in the roomiest one, so recovery's
    /// first collection needs no free block. Kept in block order instead, that stream
    /// could get a block one page from full (the crash test's 16 MiB drive with host
    /// lanes ran out of free blocks at a mount: BENCHMARKS.md, Session 26).
    pub(super) fn remount(
        &mut self,
        nand: &Nand,
        stream_of: impl Fn(BlockId) -> Stream,
        streams: &[Stream],
        roomiest: Option<Stream>,
    ) -> Result<Vec<BlockId>, super::RecoverError> {
        for u in &mut self.units {
            u.free.clear();
            u.frontier = [None; STREAMS];
            u.lanes.iter_mut().for_each(|f| *f = None);
        }
        let np = self.geo.pages_per_block;
        let mut open = Vec::new();
        for b in 0..self.geo.blocks() {
            let id = BlockId(b);
            let wp = nand.write_ptr(id);
            if wp == 0 {
                self.release(id, nand.erase_count(id));
            } else if wp == np {
                self.opened_for[b as usize] = stream_of(id);
                self.close(id, nand.valid_count(id));
            } else {
                self.role[b as usize] = Role::Open;
                self.opened_for[b as usize] = stream_of(id);
                open.push(id);
            }
        }
        if let Some(s) = roomiest {
            for unit in 0..self.units.len() as u32 {
                let best = open
                    .iter()
                    .enumerate()
                    .filter(|(_, id)| {
                        self.unit_of(**id) == unit && self.opened_for[id.0 as usize] != Stream::Map
                    })
                    .min_by_key(|(_, id)| nand.write_ptr(**id))
                    .map(|(i, _)| i);
                if let Some(i) = best {
                    let id = open.remove(i);
                    self.adopt(id, Slot::Stream(s), nand);
                }
            }
        }
        let mut orphans = Vec::new();
        for id in open {
            match self.free_slot(id, streams) {
                Some(slot) => self.adopt(id, slot, nand),
                None => orphans.push(id),
            }
        }
        Ok(orphans)
    }

    /// The frontier slot a partly programmed block found at a mount goes to (see
    /// [`Self::remount`]), if one is free.
    fn free_slot(&self, id: BlockId, streams: &[Stream]) -> Option<Slot> {
        let unit = &self.units[self.unit_of(id) as usize];
        let want = self.opened_for[id.0 as usize];
        let host_lane = want == Stream::Host && self.lanes > 1;
        if host_lane {
            // Its own die's lane keeps the unit's host writes on every die.
            let own = self.lane_of_plane(self.geo.plane_of(id));
            if own > 0 && unit.lanes[own as usize - 1].is_none() {
                return Some(Slot::Lane(own - 1));
            }
        }
        // Translation blocks only take the translation stream.
        let stream = std::iter::once(want)
            .chain(streams.iter().copied().filter(|_| want != Stream::Map))
            .filter(|s| *s == want || *s != Stream::Map)
            .find(|&s| streams.contains(&s) && unit.frontier[s as usize].is_none());
        if let Some(s) = stream {
            return Some(Slot::Stream(s));
        }
        // A pool with lanes keeps that many host blocks open: a host block no stream
        // takes goes on as another die's lane rather than being moved out.
        host_lane
            .then(|| unit.lanes.iter().position(Option::is_none))
            .flatten()
            .map(|l| Slot::Lane(l as u32))
    }

    /// Makes partly programmed block `id` the frontier in `slot` of its unit.
    fn adopt(&mut self, id: BlockId, slot: Slot, nand: &Nand) {
        let f = Some(Frontier {
            block: id.0,
            next_page: nand.write_ptr(id),
        });
        let unit = self.unit_of(id) as usize;
        let unit = &mut self.units[unit];
        match slot {
            Slot::Stream(s) => {
                unit.frontier[s as usize] = f;
                self.opened_for[id.0 as usize] = s;
            }
            Slot::Lane(l) => {
                unit.lanes[l as usize] = f;
                self.opened_for[id.0 as usize] = Stream::Host;
            }
        }
    }

    /// Panics unless every block's role agrees with the NAND and the victim policy (free
    /// blocks erased and not candidates, closed blocks full and candidates, open ones
    /// not candidates, none left mid-collection) and every frontier points at its
    /// block's write pointer.
    pub(super) fn check_invariants(&self, nand: &Nand) {
        for b in 0..self.geo.blocks() {
            check_block(self.role[b as usize], BlockId(b), nand, &self.policy);
        }
        let mut free = 0;
        for (u, ps) in self.units.iter().enumerate() {
            for &(_, b) in &ps.free {
                assert_eq!(self.role[b as usize], Role::Free, "unit {u} free list");
                assert_eq!(self.unit_of(BlockId(b)), u as u32, "unit {u} free list");
                free += 1;
            }
            for f in ps.frontier.iter().chain(&ps.lanes).flatten() {
                assert_eq!(self.role[f.block as usize], Role::Open, "unit {u} frontier");
                assert_eq!(
                    nand.write_ptr(BlockId(f.block)),
                    f.next_page,
                    "unit {u} frontier"
                );
            }
        }
        let roles_free = self.role.iter().filter(|&&r| r == Role::Free).count();
        assert_eq!(free, roles_free, "free blocks listed");
    }
}

/// Moves every valid page of `victim` to `stream`'s frontier in the victim's unit, in
/// runs that fill the frontier's block (or end the victim), each moved by the NAND in one
/// call; the owner's map follows each page. The victim is left for the caller to erase.
pub(super) fn relocate<V: VictimPolicy, O: Owner<V>>(
    o: &mut O,
    victim: BlockId,
    stream: Stream,
    cause: Cause,
    nand: &mut Nand,
) -> Result<(), FtlError> {
    let bm = o.blocks();
    let unit = bm.unit_of(victim);
    bm.role[victim.0 as usize] = Role::Collecting;
    let mut pages = std::mem::take(&mut bm.scratch);
    pages.clear();
    nand.valid_pages(victim, &mut pages);
    // The map updates below hit random entries of a table far larger than the cache;
    // prefetching a few pages ahead lets those misses overlap.
    const AHEAD: usize = 16;
    for &src in pages.iter().take(AHEAD) {
        o.prefetch_move(nand, src);
    }
    let mut i = 0;
    while i < pages.len() {
        let (dst, n, filled) = o.next_run(unit, stream, (pages.len() - i) as u32)?;
        nand.relocate_run(&pages[i..i + n as usize], dst, cause);
        for k in 0..n {
            if let Some(&next) = pages.get(i + k as usize + AHEAD) {
                o.prefetch_move(nand, next);
            }
            o.moved(nand, Ppn(dst.0 + k));
        }
        if let Some(b) = filled {
            o.blocks().close(b, nand.valid_count(b));
        }
        i += n as usize;
    }
    o.blocks().scratch = pages;
    Ok(())
}

/// GC of `unit`: reclaims victims until the unit has `gc_high` free blocks (bounded, so
/// a policy that keeps choosing full blocks cannot spin forever), then runs the owner's
/// after-GC hook. Fails if the unit is left without a free block.
#[cold]
pub(super) fn collect<V: VictimPolicy, O: Owner<V>>(
    o: &mut O,
    unit: u32,
    nand: &mut Nand,
) -> Result<(), FtlError> {
    let target = o.blocks().gc_high;
    collect_to(o, unit, target, nand)
}

/// [`collect`] up to `target` free blocks instead of `gc_high` (background GC's
/// emergency collection stops at `gc_low`).
#[cold]
pub(super) fn collect_to<V: VictimPolicy, O: Owner<V>>(
    o: &mut O,
    unit: u32,
    target: u32,
    nand: &mut Nand,
) -> Result<(), FtlError> {
    let bm = o.blocks();
    bm.gc_invocations += 1;
    let mut budget = bm.unit_geo.blocks_per_plane;
    while o.blocks().free(unit) < target as usize && budget > 0 {
        budget -= 1;
        if take_victim(o, unit, nand)?.is_none() {
            break;
        }
    }
    // Wear leveling runs after GC has refilled the pool, so its copies never compete
    // with GC for the last free block.
    o.after_gc(unit, nand)?;
    let bm = o.blocks();
    if bm.free(unit) == 0 {
        return Err(bm.out_of_space(unit));
    }
    Ok(())
}

/// Reclaims one victim of `unit` (the policy's choice, or the emergency greedy one) and
/// returns how many valid pages it held; `None` when the unit has no candidate.
fn take_victim<V: VictimPolicy, O: Owner<V>>(
    o: &mut O,
    unit: u32,
    nand: &mut Nand,
) -> Result<Option<u32>, FtlError> {
    let bm = o.blocks();
    let pick = if bm.free(unit) < O::EMERGENCY_FREE {
        bm.emergency_victim(unit, nand)
    } else {
        bm.policy.select(unit, nand, bm.clock)
    };
    let Some(victim) = pick else {
        return Ok(None);
    };
    // A collection usually takes several victims: start fetching the next one's
    // tags and validity words while this one is moved.
    if let Some(next) = bm.policy.peek(unit) {
        nand.prefetch_block(next);
    }
    let valid = nand.valid_count(victim);
    bm.gc_victims += 1;
    bm.gc_victim_valid_pages += valid as u64;
    o.reclaim(victim, nand)?;
    o.blocks().units[unit as usize].erases_since_wl_check += 1;
    Ok(Some(valid))
}

/// One step of background GC (`gc_schedule = "background"`): the first unit from
/// `*cursor` on (round robin) with fewer than `gc_high` free blocks gives up one victim;
/// the after-GC hook runs once the unit is refilled. `false` when no unit needs a
/// victim, or the victim was fully valid (nothing to gain: every candidate is, as the
/// policy chose it), so an idle period never spins on a device full of valid data.
pub(super) fn collect_idle_step<V: VictimPolicy, O: Owner<V>>(
    o: &mut O,
    cursor: &mut u32,
    nand: &mut Nand,
) -> Result<bool, FtlError> {
    let bm = o.blocks();
    let units = bm.units.len() as u32;
    let high = bm.gc_high as usize;
    let Some(unit) = (0..units)
        .map(|i| (*cursor + i) % units)
        .find(|&u| bm.free(u) < high)
    else {
        return Ok(false);
    };
    *cursor = (unit + 1) % units;
    let pages_per_block = bm.geo.pages_per_block;
    let Some(valid) = take_victim(o, unit, nand)? else {
        return Ok(false);
    };
    let bm = o.blocks();
    bm.gc_background_victims += 1;
    if bm.free(unit) >= high {
        o.after_gc(unit, nand)?;
    }
    Ok(valid < pages_per_block)
}

/// The geometry whose planes are `geo`'s units of `k` consecutive planes (consecutive
/// plane numbers share a die, then a chip, then a channel).
pub(super) fn unit_geometry(geo: &Geometry, k: u32) -> Geometry {
    Geometry {
        channels: geo.planes() / k,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: geo.blocks_per_plane * k,
        ..*geo
    }
}

/// Panics unless block `id` in `role` agrees with the NAND and the victim policy.
fn check_block<V: VictimPolicy>(role: Role, id: BlockId, nand: &Nand, policy: &V) {
    let b = id.0;
    match role {
        Role::Free => {
            assert_eq!(nand.valid_count(id), 0, "free block {b} holds valid data");
            assert_eq!(nand.write_ptr(id), 0, "free block {b} is not erased");
            assert!(!policy.contains(id), "free block {b} is a GC candidate");
        }
        Role::Closed => {
            assert_eq!(
                nand.write_ptr(id),
                nand.geometry().pages_per_block,
                "closed block {b}"
            );
            assert!(
                policy.contains(id),
                "closed block {b} is not a GC candidate"
            );
        }
        Role::Open => assert!(!policy.contains(id), "open block {b} is a GC candidate"),
        Role::Collecting => panic!("block {b} left in the middle of collection"),
        Role::Retired => assert!(!policy.contains(id), "retired block {b} is a GC candidate"),
    }
}
