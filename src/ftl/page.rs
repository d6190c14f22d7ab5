//! Page-level mapping FTL (the "ideal page FTL" of the DFTL and hybrid-FTL papers; Intel
//! AP-684 is its ancestor), with pluggable GC victim selection and wear leveling.
//!
//! ```text
//! write(lpn):  invalidate L2P[lpn]; plane = next in channel-first stripe order;
//!              program at the plane's host frontier; L2P[lpn] = new page
//!              if plane.free < gc_low: gc(plane)
//! gc(plane):   while free < gc_high: victim = policy.select(plane)
//!              copy its valid pages to the GC frontier (hot/cold split) or the host
//!              frontier; erase; return it to the free pool
//!              every `static_wl_check_erases` erases: if max−min erase count ≥ threshold,
//!              move the least-worn closed block's data into the most-worn free block
//! allocate:    least-worn free block (dynamic wear leveling) or FIFO order
//! ```
//! Everything is per plane (free pool, frontiers, GC), as in real controllers and MQSim,
//! so a plane's GC can use copy-back and the timing model sees plane-local traffic.
//!
//! Mapping memory: `logical_pages × 4 B` (the L2P array). The reverse map lives in the
//! pages' OOB area on flash, as in a real device, and costs no RAM there.

use super::gc::{CostBenefit, DChoices, Fifo, GcPolicyKind, Greedy, PolicyParams, VictimPolicy};
use super::layout::Layout;
use super::{Ftl, FtlConfig, FtlError};
use crate::nand::{BlockId, Cause, Geometry, Lpn, Nand, Ppn};
use std::collections::{BTreeMap, BTreeSet};

/// Write streams, each with its own frontier per plane (shared with DFTL's data side).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stream {
    Host = 0,
    Gc = 1,
    Wl = 2,
}

/// What a block is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    Free,
    Open,
    Closed,
    Collecting,
}

/// An open block and its next page.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frontier {
    pub(super) block: u32,
    pub(super) next_page: u32,
}

/// A plane's free pool and open frontiers.
#[derive(Clone, Debug, Default)]
pub(super) struct PlaneState {
    /// Free blocks keyed by (erase count or arrival order, block).
    pub(super) free: BTreeSet<(u32, u32)>,
    pub(super) frontier: [Option<Frontier>; 3],
    pub(super) erases_since_wl_check: u32,
}

/// Panics unless block `id` in `role` agrees with the NAND and the victim policy: free
/// blocks erased and not candidates, closed blocks full and candidates, open ones not
/// candidates, none left mid-collection.
pub(super) fn check_block<V: VictimPolicy>(role: Role, id: BlockId, nand: &Nand, policy: &V) {
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
    }
}

/// Builds a page FTL with the configured victim policy (monomorphised per policy so the
/// per-write path has no dynamic dispatch).
pub fn build(
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
    params: PolicyParams,
) -> Result<Box<dyn Ftl>, String> {
    Ok(match cfg.gc {
        GcPolicyKind::Greedy => Box::new(PageFtl::<Greedy>::new(cfg, geo, logical_pages, params)?),
        GcPolicyKind::Fifo => Box::new(PageFtl::<Fifo>::new(cfg, geo, logical_pages, params)?),
        GcPolicyKind::CostBenefit => Box::new(PageFtl::<CostBenefit>::new(
            cfg,
            geo,
            logical_pages,
            params,
        )?),
        GcPolicyKind::DChoices => {
            Box::new(PageFtl::<DChoices>::new(cfg, geo, logical_pages, params)?)
        }
    })
}

/// Page-mapping FTL state.
pub struct PageFtl<V: VictimPolicy> {
    geo: Geometry,
    cfg: FtlConfig,
    logical_pages: u32,
    /// `ppn + 1` of each logical page; 0 = unmapped (so a fresh table is all zeros and the
    /// OS hands it over lazily).
    l2p: Vec<u32>,
    planes: Vec<PlaneState>,
    role: Vec<Role>,
    /// Which plane each host page goes to (management block and channel placement).
    layout: Layout,
    policy: V,
    /// Host page writes so far: the clock for block ages.
    clock: u64,
    free_key_seq: u32,
    scratch: Vec<Ppn>,
    gc_invocations: u64,
    gc_victims: u64,
    gc_victim_valid_pages: u64,
    wl_relocations: u64,
    rmw_pages: u64,
}

impl<V: VictimPolicy> PageFtl<V> {
    /// A page FTL over an erased array of shape `geo`.
    pub fn new(
        cfg: &FtlConfig,
        geo: &Geometry,
        logical_pages: u64,
        params: PolicyParams,
    ) -> Result<Self, String> {
        let planes = geo.planes();
        let per_plane_logical = logical_pages.div_ceil(planes as u64);
        let data_blocks = per_plane_logical.div_ceil(geo.pages_per_block as u64);
        // Host, GC and WL frontiers may each hold a partly written block.
        let frontiers = if cfg.hot_cold { 3 } else { 2 };
        let need = data_blocks + cfg.gc_high_free_blocks as u64 + frontiers;
        if (geo.blocks_per_plane as u64) < need {
            return Err(format!(
                "impossible geometry for the page FTL: each plane needs {data_blocks} blocks of data + {} free for GC + {frontiers} open frontiers = {need} blocks, but has {} (raise over-provisioning or lower ftl.gc_high_free_blocks)",
                cfg.gc_high_free_blocks, geo.blocks_per_plane
            ));
        }
        let mut ftl = PageFtl {
            geo: *geo,
            cfg: cfg.clone(),
            logical_pages: logical_pages as u32,
            l2p: crate::util::zeroed_vec(logical_pages as usize),
            planes: vec![PlaneState::default(); planes as usize],
            role: vec![Role::Free; geo.blocks() as usize],
            layout: Layout::new(
                geo,
                super::unit_pages(cfg, geo, logical_pages)?,
                cfg.placement,
                cfg.channel_placement,
            ),
            policy: V::build(geo, params),
            clock: 0,
            free_key_seq: 0,
            scratch: Vec::with_capacity(geo.pages_per_block as usize),
            gc_invocations: 0,
            gc_victims: 0,
            gc_victim_valid_pages: 0,
            wl_relocations: 0,
            rmw_pages: 0,
        };
        for b in 0..geo.blocks() {
            ftl.release(BlockId(b), 0);
        }
        Ok(ftl)
    }

    /// Returns an erased block to its plane's free pool.
    fn release(&mut self, b: BlockId, erases: u32) {
        let key = if self.cfg.dynamic_wl {
            erases
        } else {
            self.free_key_seq = self.free_key_seq.wrapping_add(1);
            self.free_key_seq
        };
        self.role[b.0 as usize] = Role::Free;
        let plane = self.geo.plane_of(b) as usize;
        self.planes[plane].free.insert((key, b.0));
    }

    /// Next page of `stream`'s frontier in `plane`, opening a new block when needed.
    #[inline]
    fn next_page(&mut self, plane: u32, stream: Stream, nand: &Nand) -> Result<Ppn, FtlError> {
        let np = self.geo.pages_per_block;
        if self.planes[plane as usize].frontier[stream as usize].is_none() {
            self.open_block(plane, stream)?;
        }
        let slot = &mut self.planes[plane as usize].frontier[stream as usize];
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
            self.role[b.0 as usize] = Role::Closed;
            self.policy.on_close(b, nand.valid_count(b) + 1, self.clock);
        }
        Ok(ppn)
    }

    /// Up to `want` consecutive pages of `stream`'s frontier in `plane`, opening a block
    /// when needed: the first page, how many, and the block if they fill it. A filled
    /// block leaves the frontier at once; the caller closes it with [`Self::close`] once
    /// the pages are programmed (the policy needs its valid count then).
    #[inline]
    fn next_run(
        &mut self,
        plane: u32,
        stream: Stream,
        want: u32,
    ) -> Result<(Ppn, u32, Option<BlockId>), FtlError> {
        let np = self.geo.pages_per_block;
        if self.planes[plane as usize].frontier[stream as usize].is_none() {
            self.open_block(plane, stream)?;
        }
        let slot = &mut self.planes[plane as usize].frontier[stream as usize];
        let f = slot.as_mut().expect("frontier just opened");
        let first = Ppn(f.block * np + f.next_page);
        let n = want.min(np - f.next_page);
        f.next_page += n;
        let mut filled = None;
        if f.next_page == np {
            filled = Some(BlockId(f.block));
            *slot = None;
        }
        Ok((first, n, filled))
    }

    /// Makes fully programmed block `b` a closed GC candidate.
    #[inline]
    fn close(&mut self, b: BlockId, nand: &Nand) {
        self.role[b.0 as usize] = Role::Closed;
        self.policy.on_close(b, nand.valid_count(b), self.clock);
    }

    #[cold]
    fn open_block(&mut self, plane: u32, stream: Stream) -> Result<(), FtlError> {
        let ps = &mut self.planes[plane as usize];
        // Wear-leveling relocations hold cold data: give them the most-worn free block.
        let entry = if stream == Stream::Wl {
            ps.free.pop_last()
        } else {
            ps.free.pop_first()
        };
        let (_, block) = entry.ok_or(FtlError::OutOfSpace { plane })?;
        self.role[block as usize] = Role::Open;
        ps.frontier[stream as usize] = Some(Frontier {
            block,
            next_page: 0,
        });
        Ok(())
    }

    /// Moves mapped `lpn` to a new page of its plane, data unchanged (the copy half of a
    /// management block's read-modify-write).
    fn rewrite(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let old = Ppn(self.l2p[lpn.0 as usize] - 1);
        let plane = self.layout.plane_for(lpn.0);
        let dst = self.next_page(plane, Stream::Host, nand)?;
        nand.copy(old, dst, Cause::Rmw);
        self.invalidate(old, nand);
        self.l2p[lpn.0 as usize] = dst.0 + 1;
        self.rmw_pages += 1;
        if self.planes[plane as usize].free.len() < self.cfg.gc_low_free_blocks as usize {
            self.collect(plane, nand)?;
        }
        Ok(())
    }

    #[inline]
    fn invalidate(&mut self, ppn: Ppn, nand: &mut Nand) {
        nand.invalidate(ppn);
        let b = self.geo.block_of(ppn);
        self.policy
            .on_invalidate(b, nand.valid_count(b), self.clock);
    }

    /// Moves every valid page of `victim` to `stream`'s frontier and erases it.
    fn evacuate(
        &mut self,
        victim: BlockId,
        stream: Stream,
        cause: Cause,
        nand: &mut Nand,
    ) -> Result<(), FtlError> {
        let plane = self.geo.plane_of(victim);
        self.role[victim.0 as usize] = Role::Collecting;
        let mut pages = std::mem::take(&mut self.scratch);
        pages.clear();
        nand.valid_pages(victim, &mut pages);
        // The map updates below hit random entries of a table far larger than the cache;
        // prefetching a few pages ahead lets those misses overlap.
        const AHEAD: usize = 16;
        for &src in pages.iter().take(AHEAD) {
            crate::util::prefetch(&self.l2p, nand.oob_lpn_raw(src) as usize);
        }
        // The pages go to the frontier in runs that fill its block (or end the victim),
        // each moved by the NAND in one call: the same page-by-page moves, with the
        // block and counter bookkeeping done once per run.
        let mut i = 0;
        while i < pages.len() {
            let (dst, n, filled) = self.next_run(plane, stream, (pages.len() - i) as u32)?;
            let run = &pages[i..i + n as usize];
            nand.relocate_run(run, dst, cause);
            for k in 0..n {
                if let Some(&next) = pages.get(i + k as usize + AHEAD) {
                    crate::util::prefetch(&self.l2p, nand.oob_lpn_raw(next) as usize);
                }
                let to = dst.0 + k;
                self.l2p[nand.oob_lpn_raw(Ppn(to)) as usize] = to + 1;
            }
            if let Some(b) = filled {
                self.close(b, nand);
            }
            i += n as usize;
        }
        self.scratch = pages;
        nand.erase(victim, cause);
        self.release(victim, nand.erase_count(victim));
        Ok(())
    }

    #[cold]
    fn collect(&mut self, plane: u32, nand: &mut Nand) -> Result<(), FtlError> {
        self.gc_invocations += 1;
        let stream = if self.cfg.hot_cold {
            Stream::Gc
        } else {
            Stream::Host
        };
        // Bounded so a policy that keeps choosing full blocks cannot spin forever.
        let mut budget = self.geo.blocks_per_plane;
        while self.planes[plane as usize].free.len() < self.cfg.gc_high_free_blocks as usize
            && budget > 0
        {
            budget -= 1;
            let Some(victim) = self.policy.select(plane, nand, self.clock) else {
                break;
            };
            // A collection usually takes several victims: start fetching the next one's
            // tags and validity words while this one is moved.
            if let Some(next) = self.policy.peek(plane) {
                nand.prefetch_block(next);
            }
            self.gc_victims += 1;
            self.gc_victim_valid_pages += nand.valid_count(victim) as u64;
            self.evacuate(victim, stream, Cause::Gc, nand)?;
            self.planes[plane as usize].erases_since_wl_check += 1;
        }
        // Wear leveling runs after GC has refilled the pool, so its copies never compete
        // with GC for the last free block.
        let ps = &mut self.planes[plane as usize];
        if self.cfg.static_wl_threshold > 0
            && ps.erases_since_wl_check >= self.cfg.static_wl_check_erases
        {
            ps.erases_since_wl_check = 0;
            self.static_wear_level(plane, nand)?;
        }
        if self.planes[plane as usize].free.is_empty() {
            return Err(FtlError::OutOfSpace { plane });
        }
        Ok(())
    }

    /// Static wear leveling (threshold cold-block swap, algorithms.md §4.3): if the spread
    /// of erase counts in `plane` reached the threshold, move the least-worn closed block's
    /// (cold) data into the most-worn free block so the young block re-enters circulation.
    fn static_wear_level(&mut self, plane: u32, nand: &mut Nand) -> Result<(), FtlError> {
        if self.planes[plane as usize].free.len() <= self.cfg.gc_low_free_blocks as usize {
            return Ok(());
        }
        let first = plane * self.geo.blocks_per_plane;
        let mut max_erases = 0;
        let mut coldest: Option<(u32, u32)> = None;
        for b in first..first + self.geo.blocks_per_plane {
            let e = nand.erase_count(BlockId(b));
            max_erases = max_erases.max(e);
            if self.role[b as usize] == Role::Closed && coldest.is_none_or(|(ce, _)| e < ce) {
                coldest = Some((e, b));
            }
        }
        let Some((min_erases, cold)) = coldest else {
            return Ok(());
        };
        if max_erases - min_erases < self.cfg.static_wl_threshold {
            return Ok(());
        }
        self.policy.remove(BlockId(cold));
        self.wl_relocations += 1;
        self.evacuate(BlockId(cold), Stream::Wl, Cause::Wl, nand)
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
        self.clock += 1;
        let old = self.l2p[lpn.0 as usize];
        if old != 0 {
            // Invalidate first so GC below never copies data that is being replaced.
            self.invalidate(Ppn(old - 1), nand);
        }
        let plane = self.layout.plane_for(lpn.0);
        let ppn = self.next_page(plane, Stream::Host, nand)?;
        nand.program(ppn, lpn, Cause::Host);
        self.l2p[lpn.0 as usize] = ppn.0 + 1;
        if self.planes[plane as usize].free.len() < self.cfg.gc_low_free_blocks as usize {
            self.collect(plane, nand)?;
        }
        Ok(())
    }

    fn write_range(&mut self, first: Lpn, count: u32, nand: &mut Nand) -> Result<(), FtlError> {
        let end = first.0 + count;
        if !self.layout.rewrites_units() {
            // The simulator prefetched the first page's old location; the others' map
            // entries share its cache lines, but their old pages lie anywhere.
            const AHEAD: u32 = 2;
            for lpn in first.0..end {
                if lpn + AHEAD < end {
                    self.prefetch_next(Lpn(lpn + AHEAD), nand);
                }
                self.write(Lpn(lpn), nand)?;
            }
            return Ok(());
        }
        // By-address placement: every management block the command touches is rewritten
        // whole; its pages outside the command are read and programmed again (the
        // read-modify-write of system.md §1), so a write straddling two blocks costs two.
        let m = self.layout.unit_pages();
        let mut unit_first = first.0 / m * m;
        while unit_first < end {
            let unit_end = (unit_first + m).min(self.logical_pages);
            for lpn in unit_first..unit_end {
                if (first.0..end).contains(&lpn) {
                    self.write(Lpn(lpn), nand)?;
                } else if self.l2p[lpn as usize] != 0 {
                    self.rewrite(Lpn(lpn), nand)?;
                }
            }
            unit_first += m;
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
        let Some(&raw) = self.l2p.get(lpn.0 as usize) else {
            return;
        };
        if raw != 0 {
            let ppn = Ppn(raw - 1);
            nand.prefetch_page_status(ppn);
            self.policy.prefetch(self.geo.block_of(ppn));
        }
    }

    fn trim(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let old = self.l2p[lpn.0 as usize];
        if old != 0 {
            self.invalidate(Ppn(old - 1), nand);
            self.l2p[lpn.0 as usize] = 0;
        }
        Ok(())
    }

    fn mapping_bytes(&self) -> u64 {
        self.logical_pages as u64 * 4
    }

    fn counters(&self, out: &mut BTreeMap<String, u64>) {
        out.insert("ftl.gc.invocations".into(), self.gc_invocations);
        out.insert("ftl.gc.victims".into(), self.gc_victims);
        out.insert(
            "ftl.gc.victim_valid_pages".into(),
            self.gc_victim_valid_pages,
        );
        out.insert("ftl.wl.relocations".into(), self.wl_relocations);
        out.insert("ftl.mgmt.rmw_pages".into(), self.rmw_pages);
    }

    fn reserved_blocks(&self) -> u64 {
        let frontiers = if self.cfg.hot_cold { 2 } else { 1 };
        self.geo.planes() as u64 * (self.cfg.gc_low_free_blocks as u64 + frontiers)
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
        let mut valid = 0u64;
        for b in 0..self.geo.blocks() {
            let id = BlockId(b);
            let v = nand.valid_count(id) as u64;
            valid += v;
            check_block(self.role[b as usize], id, nand, &self.policy);
        }
        assert_eq!(mapped, valid, "mapped pages != valid pages");
        for (p, ps) in self.planes.iter().enumerate() {
            for f in ps.frontier.iter().flatten() {
                assert_eq!(
                    self.role[f.block as usize],
                    Role::Open,
                    "plane {p} frontier"
                );
                assert_eq!(
                    nand.write_ptr(BlockId(f.block)),
                    f.next_page,
                    "plane {p} frontier"
                );
            }
        }
        nand.check_invariants();
    }
}
