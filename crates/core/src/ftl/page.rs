//! Page-level mapping FTL (the "ideal page FTL" of the DFTL and hybrid-FTL papers; Intel
//! AP-684 is its ancestor), with pluggable GC victim selection and wear leveling.
//!
//! ```text
//! write(lpn):  invalidate L2P[lpn]; plane = next in channel-first stripe order;
//!              program at the plane's host frontier; L2P[lpn] = new page
//!              if plane.free < gc_low: gc(plane)   (up to gc_low only with background GC)
//! idle:        background GC only: one victim of a plane below gc_high per step
//!              (gc/schedule.rs: when GC runs)
//! gc(plane):   while free < gc_high: victim = policy.select(plane)
//!              copy its valid pages to the GC frontier (hot/cold split) or the host
//!              frontier; erase; return it to the free pool
//!              every `static_wl_check_erases` erases: if max−min erase count ≥ threshold,
//!              move the least-worn closed block's data into the most-worn free block
//! allocate:    least-worn free block (dynamic wear leveling) or FIFO order
//! ```
//! Everything is per plane (free pool, frontiers, GC), as in real controllers and MQSim,
//! so a plane's GC can use copy-back and the timing model sees plane-local traffic.
//! On a device too small for per-plane reserves, planes are pooled (feasible.rs); a
//! pool spanning several dies keeps a host frontier on each of them when its reserve
//! allows, so pooling costs no write parallelism (docs/ftls.md, "GC units").
//!
//! Mapping memory: `logical_pages × 4 B` (the L2P array). The reverse map lives in the
//! pages' OOB area on flash, as in a real device, and costs no RAM there.
//!
//! With `[ftl.fdp] enabled` the host's placement identifier (set once per command with
//! [`Ftl::set_placement`]) picks the handle whose frontier a write goes to, and GC moves
//! a victim's data as its handle's isolation allows: page_fdp.rs.

use super::blocks::{self, Blocks, Owner, Stream};
use super::feasible;
use super::gc::{GcSchedule, PolicyParams, VictimPolicy};
use super::layout::{Balance, ChannelPlacement, Layout, Placement};
use super::page_fdp::PageFdp;
use super::spec::{self, Caps, FtlSpec, Section};
use super::{Ftl, FtlConfig, FtlError};
use crate::nand::{BlockId, Cause, Geometry, Lpn, Nand, Ppn};
use crate::spec::{ConfigError, Counter, Counters};

/// Reported as `ftl.wl.relocations`.
pub const WL_RELOCATIONS: Counter = Counter::total(
    "ftl.wl.relocations",
    "blocks",
    "cold blocks whose data static wear leveling moved",
);
/// Reported as `ftl.mgmt.rmw_pages`.
pub const MGMT_RMW_PAGES: Counter = Counter::total(
    "ftl.mgmt.rmw_pages",
    "pages",
    "pages read and rewritten to fill a management block partly covered by a write",
);
/// Management blocks up to this many pages have every page's old location prefetched
/// before a write rewrites them ([`Ftl::prefetch_next`]); a larger one is written back
/// run by run, its pages mostly contiguous, so its first page's state is asked for only.
const UNIT_PREFETCH_PAGES: u32 = 16;
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[WL_RELOCATIONS, MGMT_RMW_PAGES];

/// The page FTL in the registry.
pub const SPEC: FtlSpec = FtlSpec {
    name: "page",
    description: "page-level mapping, per-plane frontiers, pluggable GC, hot/cold split, wear leveling",
    caps: Caps {
        gc_policy: true,
        free_block_watermarks: true,
        gc_schedules: &[
            GcSchedule::Foreground,
            GcSchedule::Preemptive,
            GcSchedule::Background,
        ],
        hot_cold: true,
        static_wl: true,
        page_layout: true,
        maps_blocks: false,
        writes_at_offsets: false,
        tags_beyond_logical_only: false,
    },
    sections: &[Section {
        key: "fdp",
        what: "Flexible Data Placement",
    }],
    validate: validate_fdp,
    need: |cfg, geo, logical_pages| feasible::page_best(cfg, geo, logical_pages).0,
    // The L2P array.
    memory_bytes: |_, _, logical_pages| logical_pages * spec::ENTRY_BYTES,
    counters: &[
        COUNTERS,
        blocks::COUNTERS,
        &[
            crate::fdp::HOST_BYTES,
            crate::fdp::MEDIA_BYTES,
            crate::fdp::ERASED_BYTES,
        ],
        &crate::fdp::EVENT_COUNTERS,
    ],
    build: |cfg, geo, logical_pages, params| build(cfg, geo, logical_pages, params),
};

/// `[ftl.fdp]`: its values, and with FDP on a write-order, striped layout (a handle's
/// pages rotate over its reclaim group's planes, so a placement by address or by
/// channel has nothing left to choose).
fn validate_fdp(cfg: &FtlConfig) -> Result<(), ConfigError> {
    cfg.fdp.validate("ftl.fdp")?;
    if !cfg.fdp.enabled {
        return Ok(());
    }
    if cfg.placement != Placement::WriteOrder {
        return Err(ConfigError::value(
            "ftl.placement",
            "by-address",
            "write-order with ftl.fdp.enabled (placement handles choose where data goes)",
        ));
    }
    if cfg.channel_placement != ChannelPlacement::Striped {
        return Err(ConfigError::value(
            "ftl.channel_placement",
            cfg.channel_placement.name(),
            "striped with ftl.fdp.enabled (a handle's pages rotate over its reclaim group)",
        ));
    }
    Ok(())
}

/// Builds a page FTL with the configured victim policy (monomorphised per policy so the
/// per-write path has no dynamic dispatch).
pub fn build(
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
    params: PolicyParams,
) -> Result<Box<dyn Ftl>, ConfigError> {
    (cfg.gc.spec().page_ftl)(cfg, geo, logical_pages, params)
}

/// Builds one over policy `V`: the [`GcPolicySpec`](super::gc::GcPolicySpec) of each
/// policy points here, instantiated for it.
pub(crate) fn build_over<V: VictimPolicy>(
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
    params: PolicyParams,
) -> Result<Box<dyn Ftl>, ConfigError> {
    Ok(Box::new(PageFtl::<V>::new(
        cfg,
        geo,
        logical_pages,
        params,
    )?))
}

/// Blocks of each GC unit that hold no reclaimable space: the GC reserve (`gc_low`) and
/// the open frontiers (a host frontier per lane, and GC with the hot/cold split; FDP's
/// own set).
fn unit_reserve(cfg: &FtlConfig, gc_low: u32, lanes: u32) -> u32 {
    let frontiers = if cfg.fdp.enabled {
        PageFdp::max_frontiers(cfg) as u32
    } else {
        lanes + cfg.hot_cold as u32
    };
    gc_low + frontiers
}

/// Page-mapping FTL state.
#[derive(Clone)]
pub struct PageFtl<V: VictimPolicy> {
    cfg: FtlConfig,
    logical_pages: u32,
    /// `ppn + 1` of each logical page; 0 = unmapped (so a fresh table is all zeros and the
    /// OS hands it over lazily).
    l2p: Vec<u32>,
    /// Free pools, frontiers and GC (shared with DFTL).
    bm: Blocks<V>,
    /// Which plane each host page goes to (management block and channel placement).
    layout: Layout,
    wl_relocations: u64,
    rmw_pages: u64,
    /// Background GC: the write path collects only up to `gc_low` (an emergency), idle
    /// time does the rest ([`Ftl::collect_idle`]).
    background: bool,
    /// Where the next background GC step starts looking for a unit (round robin).
    idle_cursor: u32,
    /// Flexible Data Placement (`ftl.fdp.enabled`), else `None`.
    fdp: Option<Box<PageFdp>>,
}

impl<V: VictimPolicy> PageFtl<V> {
    /// A page FTL over an erased array of shape `geo`.
    pub fn new(
        cfg: &FtlConfig,
        geo: &Geometry,
        logical_pages: u64,
        params: PolicyParams,
    ) -> Result<Self, ConfigError> {
        let plan = feasible::page_plan(cfg, geo, logical_pages)?;
        let fdp = if cfg.fdp.enabled {
            Some(Box::new(PageFdp::new(
                cfg,
                geo,
                plan.unit_planes,
                logical_pages,
                Balance::new(plan.unit_planes, unit_reserve(cfg, plan.gc_low, plan.lanes)),
            )?))
        } else {
            None
        };
        Ok(PageFtl {
            cfg: cfg.clone(),
            logical_pages: logical_pages as u32,
            l2p: crate::util::zeroed_vec(logical_pages as usize),
            bm: Blocks::new(
                cfg,
                geo,
                plan.unit_planes,
                plan.gc_low,
                plan.gc_high,
                params,
            )
            .with_lanes(plan.lanes),
            layout: Layout::new(
                geo,
                super::unit_pages(cfg, geo, logical_pages)?,
                cfg.placement,
                cfg.channel_placement,
                Balance::new(plan.unit_planes, unit_reserve(cfg, plan.gc_low, plan.lanes)),
            ),
            wl_relocations: 0,
            rmw_pages: 0,
            background: cfg.gc_schedule == GcSchedule::Background,
            idle_cursor: 0,
            fdp,
        })
    }

    /// [`Ftl::write`] without FDP: the layout's plane, the host frontier.
    #[inline]
    fn write_plain(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let old = self.l2p[lpn.0 as usize];
        if old != 0 {
            // Invalidate first so GC below never copies data that is being replaced.
            self.bm.invalidate(Ppn(old - 1), nand);
        }
        let plane = self.layout.plane_for(lpn.0, nand);
        let unit = self.bm.unit_of_plane(plane);
        let lane = self.bm.lane_of_plane(plane);
        let ppn = self.bm.next_host_page(unit, lane, nand)?;
        nand.program(ppn, lpn, Cause::Host);
        self.l2p[lpn.0 as usize] = ppn.0 + 1;
        if self.bm.needs_gc(unit) {
            self.collect_on_write(unit, nand)?;
        }
        Ok(())
    }

    /// [`Ftl::write`] with FDP: the current handle's plane and frontier.
    #[inline]
    fn write_placed(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let old = self.l2p[lpn.0 as usize];
        if old != 0 {
            self.bm.invalidate(Ppn(old - 1), nand);
        }
        let f = self.fdp.as_deref_mut().expect("FDP is on");
        let unit = self.bm.unit_of_plane(f.next_plane(nand));
        let ppn = f.host_page(&mut self.bm, unit, lpn, nand)?;
        nand.program(ppn, lpn, Cause::Host);
        self.l2p[lpn.0 as usize] = ppn.0 + 1;
        if self.bm.needs_gc(unit) {
            self.collect_on_write(unit, nand)?;
        }
        Ok(())
    }

    /// Moves `victim`'s valid data out and erases it: to `stream`'s frontier, or with
    /// FDP to the frontier its handle's isolation allows.
    fn move_out(
        &mut self,
        victim: BlockId,
        stream: Stream,
        cause: Cause,
        nand: &mut Nand,
    ) -> Result<(), FtlError> {
        let Some(f) = self.fdp.as_deref_mut() else {
            return self.evacuate(victim, stream, cause, nand);
        };
        let rg = f.group_of_unit(self.bm.unit_of(victim), self.bm.unit_planes);
        f.route_victim(victim, rg, nand.valid_count(victim));
        // The stream only has to be an internal one: `next_run` routes every move.
        self.evacuate(victim, Stream::Gc, cause, nand)?;
        if let Some(f) = self.fdp.as_deref_mut() {
            f.erased();
        }
        Ok(())
    }

    /// The GC stream: a separate frontier for (colder) GC copies with the hot/cold split.
    #[inline]
    fn gc_stream(&self) -> Stream {
        if self.cfg.hot_cold {
            Stream::Gc
        } else {
            Stream::Host
        }
    }

    /// Asks for the flash state of the page `lpn` maps to (its validity word and block,
    /// and the victim policy's entry for that block), if mapped.
    #[inline]
    fn prefetch_old(&self, lpn: Lpn, nand: &Nand) {
        let Some(&raw) = self.l2p.get(lpn.0 as usize) else {
            return;
        };
        if raw != 0 {
            let ppn = Ppn(raw - 1);
            nand.prefetch_page_status(ppn);
            self.bm.policy.prefetch(self.bm.geo.block_of(ppn));
        }
    }

    /// Asks at once for the old locations of management block `first..end` about to be
    /// rewritten (a small one; see [`UNIT_PREFETCH_PAGES`]), so their cache misses
    /// overlap instead of following one another page by page.
    #[inline]
    fn prefetch_unit(&self, first: u32, end: u32, nand: &Nand) {
        if end - first <= UNIT_PREFETCH_PAGES {
            for l in first..end {
                self.prefetch_old(Lpn(l), nand);
            }
        }
    }

    /// Moves mapped `lpn` to a new page of its plane, data unchanged (the copy half of a
    /// management block's read-modify-write).
    fn rewrite(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let old = Ppn(self.l2p[lpn.0 as usize] - 1);
        let unit = self.bm.unit_of_plane(self.layout.plane_for(lpn.0, nand));
        let dst = self.bm.next_page(unit, Stream::Host, nand)?;
        // The map says `old` holds `lpn`: no need to load its tag.
        nand.copy_known(old, dst, lpn, Cause::Rmw);
        self.bm.invalidate(old, nand);
        self.l2p[lpn.0 as usize] = dst.0 + 1;
        self.rmw_pages += 1;
        if self.bm.needs_gc(unit) {
            self.collect_on_write(unit, nand)?;
        }
        Ok(())
    }

    /// The write path's GC of `unit` (which fell below `gc_low`): up to `gc_high`, or with
    /// background GC only back to `gc_low`, so the stall is as short as it can be.
    #[cold]
    fn collect_on_write(&mut self, unit: u32, nand: &mut Nand) -> Result<(), FtlError> {
        if self.background {
            let low = self.bm.gc_low;
            blocks::collect_to(self, unit, low, nand)
        } else {
            blocks::collect(self, unit, nand)
        }
    }

    /// Moves every valid page of `victim` to `stream`'s frontier and erases it.
    fn evacuate(
        &mut self,
        victim: BlockId,
        stream: Stream,
        cause: Cause,
        nand: &mut Nand,
    ) -> Result<(), FtlError> {
        blocks::relocate(self, victim, stream, cause, nand)?;
        self.bm.erase_release(victim, cause, nand);
        Ok(())
    }
}

impl<V: VictimPolicy> Owner<V> for PageFtl<V> {
    #[inline]
    fn blocks(&mut self) -> &mut Blocks<V> {
        &mut self.bm
    }

    #[inline]
    fn prefetch_move(&self, nand: &Nand, src: Ppn) {
        crate::util::prefetch(&self.l2p, nand.oob_lpn_raw(src) as usize);
    }

    #[inline]
    fn moved(&mut self, nand: &Nand, to: Ppn) {
        let lpn = nand.oob_lpn_raw(to);
        self.l2p[lpn as usize] = to.0 + 1;
        if let Some(f) = self.fdp.as_deref_mut() {
            f.moved(lpn);
        }
    }

    fn reclaim(&mut self, victim: BlockId, nand: &mut Nand) -> Result<(), FtlError> {
        self.move_out(victim, self.gc_stream(), Cause::Gc, nand)
    }

    #[inline]
    fn next_run(
        &mut self,
        unit: u32,
        stream: Stream,
        want: u32,
    ) -> Result<(Ppn, u32, Option<BlockId>), FtlError> {
        match self.fdp.as_deref_mut() {
            Some(f) => f.gc_run(&mut self.bm, unit, want),
            None => self.bm.next_run(unit, stream, want),
        }
    }

    /// Static wear leveling every `static_wl_check_erases` erases of the unit.
    fn after_gc(&mut self, unit: u32, nand: &mut Nand) -> Result<(), FtlError> {
        let ps = &mut self.bm.units[unit as usize];
        if self.cfg.static_wl_threshold > 0
            && ps.erases_since_wl_check >= self.cfg.static_wl_check_erases
        {
            ps.erases_since_wl_check = 0;
            if let Some(cold) = self
                .bm
                .wear_level_victim(unit, self.cfg.static_wl_threshold, nand)
            {
                self.wl_relocations += 1;
                self.move_out(cold, Stream::Wl, Cause::Wl, nand)?;
            }
        }
        Ok(())
    }
}

impl<V: VictimPolicy> Ftl for PageFtl<V> {
    fn name(&self) -> &'static str {
        "page"
    }

    fn logical_pages(&self) -> u64 {
        self.logical_pages as u64
    }

    #[inline]
    fn read(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<Option<Ppn>, FtlError> {
        let raw = self.l2p[lpn.0 as usize];
        if raw == 0 {
            return Ok(None);
        }
        let ppn = Ppn(raw - 1);
        nand.read(ppn, Cause::Host);
        Ok(Some(ppn))
    }

    #[inline]
    fn lookup(&self, lpn: Lpn, _nand: &Nand) -> Option<Ppn> {
        let raw = self.l2p[lpn.0 as usize];
        (raw != 0).then(|| Ppn(raw - 1))
    }

    #[inline]
    fn write(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        if self.fdp.is_some() {
            return self.write_placed(lpn, nand);
        }
        self.write_plain(lpn, nand)
    }

    fn write_range(&mut self, first: Lpn, count: u32, nand: &mut Nand) -> Result<(), FtlError> {
        let end = first.0 + count;
        if self.fdp.is_some() {
            // Checked once per command, so the plain loop below adds nothing per page.
            for lpn in first.0..end {
                self.write_placed(Lpn(lpn), nand)?;
            }
            return Ok(());
        }
        if !self.layout.rewrites_units() {
            // The simulator prefetched the first page's old location; the others' map
            // entries share its cache lines, but their old pages lie anywhere.
            const AHEAD: u32 = 2;
            for lpn in first.0..end {
                if lpn + AHEAD < end {
                    self.prefetch_next(Lpn(lpn + AHEAD), nand);
                }
                self.write_plain(Lpn(lpn), nand)?;
            }
            return Ok(());
        }
        // By-address placement: every management block the command touches is rewritten
        // whole; its pages outside the command are read and programmed again (the
        // read-modify-write of docs/papers.md §1), so a write straddling two blocks costs two.
        let m = self.layout.unit_pages();
        let mut unit_first = first.0 / m * m;
        while unit_first < end {
            let unit_end = (unit_first + m).min(self.logical_pages);
            self.prefetch_unit(unit_first, unit_end, nand);
            for lpn in unit_first..unit_end {
                if (first.0..end).contains(&lpn) {
                    self.write_plain(Lpn(lpn), nand)?;
                } else if self.l2p[lpn as usize] != 0 {
                    self.rewrite(Lpn(lpn), nand)?;
                }
            }
            unit_first += m;
        }
        Ok(())
    }

    fn rewrite_unit_pages(&self) -> Option<u32> {
        (self.fdp.is_none() && self.layout.rewrites_units()).then(|| self.layout.unit_pages())
    }

    fn write_set(&mut self, lpns: &[Lpn], nand: &mut Nand) -> Result<(), FtlError> {
        let Some(m) = self.rewrite_unit_pages() else {
            for &lpn in lpns {
                self.write_range(lpn, 1, nand)?;
            }
            return Ok(());
        };
        // As `write_range`'s by-address path, for a set: each unit the set touches is
        // rewritten once, the set's pages from the buffer (host data, in address order,
        // so written-back versions are stamped in that order) and the unit's other
        // mapped pages copied.
        debug_assert!(lpns.windows(2).all(|w| w[0].0 < w[1].0), "ascending");
        let mut i = 0;
        while i < lpns.len() {
            let unit_first = lpns[i].0 / m * m;
            let unit_end = (unit_first + m).min(self.logical_pages);
            self.prefetch_unit(unit_first, unit_end, nand);
            for lpn in unit_first..unit_end {
                if i < lpns.len() && lpns[i].0 == lpn {
                    self.write_plain(Lpn(lpn), nand)?;
                    i += 1;
                } else if self.l2p[lpn as usize] != 0 {
                    self.rewrite(Lpn(lpn), nand)?;
                }
            }
        }
        Ok(())
    }

    fn write_each(&mut self, lpns: &[Lpn], nand: &mut Nand) -> Result<(), FtlError> {
        if self.fdp.is_some() {
            for &lpn in lpns {
                self.write_placed(lpn, nand)?;
            }
            return Ok(());
        }
        if self.layout.rewrites_units() {
            for &lpn in lpns {
                self.write_range(lpn, 1, nand)?;
            }
            return Ok(());
        }
        // A one-page `write_range` is `write`. The victims' map entries lie anywhere: each
        // is asked for four pages ahead, and its old page's flash state two ahead (the
        // caller prefetched the first two).
        for (i, &lpn) in lpns.iter().enumerate() {
            if let Some(&l) = lpns.get(i + 4) {
                self.prefetch_early(l);
            }
            if let Some(&l) = lpns.get(i + 2) {
                self.prefetch_next(l, nand);
            }
            self.write_plain(lpn, nand)?;
        }
        Ok(())
    }

    #[inline]
    fn prefetch(&self, lpn: Lpn) {
        crate::util::prefetch(&self.l2p, lpn.0 as usize);
    }

    #[inline]
    fn prefetch_early(&self, lpn: Lpn) {
        crate::util::prefetch(&self.l2p, lpn.0 as usize);
    }

    /// The map entry should be cached by now (see `prefetch_early`); an overwrite will
    /// invalidate the old page, a random validity word and block of a large array, and
    /// update the victim policy's entry for that block: fetch those too.
    #[inline]
    fn prefetch_next(&self, lpn: Lpn, nand: &Nand) {
        if self
            .rewrite_unit_pages()
            .is_some_and(|m| m <= UNIT_PREFETCH_PAGES)
        {
            // By address, a write rewrites its whole management block: every mapped page
            // of it is invalidated (their map entries share the line just fetched), and
            // they need not lie in one block (the copies and the host page take
            // different frontiers with host lanes).
            let m = self.layout.unit_pages();
            let first = lpn.0 / m * m;
            self.prefetch_unit(first, (first + m).min(self.logical_pages), nand);
            return;
        }
        self.prefetch_old(lpn, nand);
    }

    fn trim(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let old = self.l2p[lpn.0 as usize];
        if old != 0 {
            self.bm.invalidate(Ppn(old - 1), nand);
            self.l2p[lpn.0 as usize] = 0;
        }
        Ok(())
    }

    fn mapping_bytes(&self) -> u64 {
        self.logical_pages as u64 * 4
    }

    fn counters(&self, out: &mut Counters) {
        out.set(&super::blocks::GC_INVOCATIONS, self.bm.gc_invocations);
        out.set(&super::blocks::GC_VICTIMS, self.bm.gc_victims);
        out.set(&super::RETIRED_BLOCKS, self.bm.retired_blocks());
        out.set(
            &super::blocks::GC_VICTIM_VALID_PAGES,
            self.bm.gc_victim_valid_pages,
        );
        out.set(&WL_RELOCATIONS, self.wl_relocations);
        if self.background {
            // Only with background GC, so other schedules' reports keep their keys.
            out.set(
                &super::blocks::GC_BACKGROUND_VICTIMS,
                self.bm.gc_background_victims,
            );
        }
        out.set(&MGMT_RMW_PAGES, self.rmw_pages);
        if let Some(f) = &self.fdp {
            // Only with FDP on, so other reports keep their keys.
            f.fdp.counters(out);
        }
    }

    fn set_placement(&mut self, namespace: u32, pid: Option<u16>) {
        if let Some(f) = self.fdp.as_deref_mut() {
            f.set_placement(namespace, pid);
        }
    }

    fn fdp_report(&self) -> Option<crate::fdp::FdpReport> {
        self.fdp.as_ref().map(|f| f.fdp.report())
    }

    fn collect_idle(&mut self, nand: &mut Nand) -> Result<bool, FtlError> {
        if !self.background {
            return Ok(false);
        }
        let mut cursor = self.idle_cursor;
        let r = blocks::collect_idle_step(self, &mut cursor, nand);
        self.idle_cursor = cursor;
        r
    }

    fn reserved_blocks(&self) -> u64 {
        self.bm.units.len() as u64 * unit_reserve(&self.cfg, self.bm.gc_low, self.bm.lanes) as u64
    }

    /// Mount scan (recovery.rs): for each logical page the newest host copy wins —
    /// highest sequence number, and between a page and its GC copy (same number) the
    /// later program, so a GC cut short resumes where it stopped; the winners are the
    /// map and the only valid pages. Empty blocks are free, full ones GC candidates,
    /// partly programmed ones become the frontiers again (the roomiest one the GC
    /// stream's, host blocks their die's lane: `Blocks::remount`). A unit below its GC
    /// reserve then collects (fewest valid pages first: the policy's history is gone),
    /// so the reserve a cut caught half spent is whole again before the host writes,
    /// and only then are partly programmed blocks no frontier took moved out. Before
    /// copies won their ties, every cut in the middle of a GC left the victim full and
    /// its copies stale, and after a few hundred cuts a unit had no free block left for
    /// GC to copy into.
    fn recover(
        &mut self,
        nand: &mut Nand,
        tags: &[Option<crate::nand::StoredTag>],
    ) -> Result<(), super::RecoverError> {
        let newest = super::recovery::newest(tags, self.logical_pages as u64);
        for (l, &raw) in newest.iter().enumerate() {
            self.l2p[l] = raw;
            if raw != 0 {
                nand.revalidate(Ppn(raw - 1));
            }
        }
        // With FDP the pools' host and GC frontiers found here go on as handle 0's, the
        // other partly written blocks are moved out (page_fdp.rs, `adopt_frontiers`).
        let streams: &[Stream] = if self.cfg.hot_cold || self.fdp.is_some() {
            &[Stream::Host, Stream::Gc]
        } else {
            &[Stream::Host]
        };
        let err = super::RecoverError::flash("page");
        // Recovery's collections write to the GC stream (FDP's GC frontier comes from it).
        let recovery_stream = if self.fdp.is_some() {
            Stream::Gc
        } else {
            self.gc_stream()
        };
        let orphans = self
            .bm
            .remount(nand, |_| Stream::Host, streams, Some(recovery_stream))?;
        if let Some(f) = self.fdp.as_deref_mut() {
            f.adopt_frontiers(&mut self.bm);
        }
        // The victim policy's history (FIFO order, ages) did not survive the cut, so it
        // could pick a block too full for the space left: refill by fewest valid pages.
        // A cut may have left no free block, so this comes before moving orphans out: the
        // first victim fits in the recovery stream's frontier (`Blocks::remount`), and
        // from then on every victim or orphan takes at most one block and frees one.
        for unit in 0..self.bm.units.len() as u32 {
            while self.bm.free(unit) < self.bm.gc_high as usize {
                let Some(v) = self.bm.emergency_victim(unit, nand) else {
                    break;
                };
                if nand.valid_count(v) == self.bm.geo.pages_per_block {
                    self.bm.close(v, self.bm.geo.pages_per_block);
                    break;
                }
                self.reclaim(v, nand).map_err(err)?;
            }
        }
        for b in orphans {
            self.reclaim(b, nand).map_err(err)?;
        }
        Ok(())
    }

    fn check_invariants(&self, nand: &Nand) {
        let mut mapped = 0u64;
        for (lpn, &raw) in self.l2p.iter().enumerate() {
            if raw != 0 {
                let ppn = Ppn(raw - 1);
                assert!(nand.is_valid(ppn), "lpn {lpn} maps to invalid page {ppn:?}");
                assert_eq!(nand.oob(ppn).lpn, Lpn(lpn as u32), "OOB of {ppn:?}");
                mapped += 1;
            }
        }
        let valid: u64 = (0..self.bm.geo.blocks())
            .map(|b| nand.valid_count(BlockId(b)) as u64)
            .sum();
        assert_eq!(mapped, valid, "mapped pages != valid pages");
        self.bm.check_invariants(nand);
        if let Some(f) = &self.fdp {
            f.check_invariants(&self.bm, nand);
        }
        nand.check_invariants();
    }
}
