//! AFTL — adaptive two-level FTL (C.-H. Wu, T.-W. Kuo, "An adaptive two-level management
//! for the flash translation layer in embedded systems", ICCAD 2006), as the CFTL paper
//! describes it (docs/papers.md §3, docs/algorithms.md §2.10).
//!
//! ```text
//! coarse hash:  lbn → (primary P, replacement R)        one node per logical block
//! fine hash:    lpn → ppn, at most `fine_slots` nodes, linked in LRU order
//! lookup(lpn):  fine hit → ppn (move to MRU); else coarse: P[off], else scan R
//! write(lpn):   invalidate the old copy (and its fine entry)
//!               P[off] erased → program in place            (coarse-mapped)
//!               else append to R (fold first if R is full)  → fine entry (hot data)
//!               fine table full → demote the LRU entry to coarse:
//!                   page in R(lbn): drop the entry (the R scan finds it)
//!                   page in a detached block: copy it to P(lbn)[off], drop the entry
//! fold(lbn):    (R full) copy coarse-mapped pages to a new primary; pages of R still
//!               fine-mapped stay: R is detached, its GC deferred until they die or are
//!               demoted
//! reclaim:      below `gc_low_free_blocks` free blocks: take the cheaper of the detached
//!               block with fewest valid pages (demote them all) and a forced fold of the
//!               oldest replacement block (everything copied), until `gc_high_free_blocks`
//! mount:        (power-up) blocks' roles and the coarse table from the OOB tags alone
//!               (`twolevel` mount); the fine table rebuilt by that scan: an entry for
//!               every live page of a replacement or detached block, inserted oldest
//!               sequence number first so the newest are most recently used; past
//!               `fine_slots`, the oldest are demoted as above (a detached page copied
//!               to its primary) — the RAM table cannot start cold, since a detached
//!               page is reachable only through it
//! ```
//! Choices the sources leave open, fixed here and documented: fine entries are created for
//! pages written to a replacement block (the CFTL paper: "valid data in replacement blocks,
//! assumed hot"); reads touch the LRU order but create no entry; a page demoted from a
//! detached block goes back to its offset in the primary block, which is always erased
//! there (a fold leaves the offsets of kept pages empty, and any later write of that
//! offset would have gone in place and dropped the fine entry); `defer_gc = false` turns
//! the deferral off (a fold then copies fine-mapped pages too, as plain NFTL).
//! NAND side, allocation and reclaim victim: see [`super::twolevel`].
//!
//! Mapping memory (bytes), from the structures below, with 4-byte keys, links and block
//! / page numbers:
//! `coarse = buckets_c·4 + BL·(key 4 + next 4 + P 4 + R 4)`,
//! `fine = buckets_f·4 + fine_slots·(key 4 + next 4 + ppn 4 + LRU prev 4 + LRU next 4)`,
//! one bucket per node (BL and fine_slots buckets). 20 B per fine node is the AFTL figure
//! the CFTL paper's Table 3 implies (244.1 KB for 12,500 slots); the buckets add 4 B.

use super::hash::{ChainedHash, LruList, NIL, WORD_BYTES};
use super::twolevel::{self, Blocks, Placement, Role, check_mapping};
use super::{Ftl, FtlConfig, FtlError};
use crate::nand::{BlockId, Cause, Geometry, Lpn, Nand, Ppn};
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};

/// `[ftl.aftl]`: AFTL settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AftlConfig {
    /// Fine-grained (page-mapped) slots, the CFTL paper's MFS (default: its first row,
    /// 2,500 + 10,000).
    pub fine_slots: u32,
    /// Defer GC of replacement blocks that still hold fine-mapped pages (AFTL's rule).
    pub defer_gc: bool,
}

impl Default for AftlConfig {
    fn default() -> Self {
        AftlConfig {
            fine_slots: 12_500,
            defer_gc: true,
        }
    }
}

impl AftlConfig {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), String> {
        if self.fine_slots == 0 {
            return Err("ftl.aftl.fine_slots must be at least 1".into());
        }
        Ok(())
    }
}

/// AFTL state.
#[derive(Clone)]
pub struct Aftl {
    cfg: AftlConfig,
    geo: Geometry,
    np: u32,
    logical_pages: u32,
    gc_low: u32,
    gc_high: u32,
    blocks: Blocks,
    coarse: ChainedHash,
    coarse_p: Vec<u32>,
    coarse_r: Vec<u32>,
    fine: ChainedHash,
    fine_ppn: Vec<u32>,
    /// Recency of the fine nodes (the least recently used is the demotion victim).
    order: LruList,
    /// Detached blocks by (valid pages, block).
    detached: BTreeSet<(u32, u32)>,
    scratch: Vec<Ppn>,
    dropped: Vec<u32>,
    /// The simulator's hint: first page of the next request (`NIL`: none).
    hint: Cell<u32>,
    lookups: u64,
    probes: u64,
    /// Of `probes`, the block page slots examined (P[off] and replacement pages scanned):
    /// each reads a spare area in flash, unlike a hash probe in RAM.
    slot_probes: u64,
    fine_hits: u64,
    fine_inserts: u64,
    demotions: u64,
    demotion_copies: u64,
    folds: u64,
    forced_folds: u64,
    fold_copies: u64,
    detaches: u64,
    detached_reclaims: u64,
    /// What the mount did, when the FTL was built by one ([`Ftl::recover`]).
    mounted: Option<twolevel::MountStats>,
}

/// Builds an AFTL.
pub fn build(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> Result<Box<dyn Ftl>, String> {
    Ok(Box::new(Aftl::new(cfg, geo, logical_pages)?))
}

impl Aftl {
    /// An AFTL over an erased array of shape `geo`.
    pub fn new(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> Result<Aftl, String> {
        cfg.aftl.validate()?;
        let lbns = twolevel::check_capacity("aftl", cfg, geo, logical_pages)?;
        let slots = cfg.aftl.fine_slots;
        Ok(Aftl {
            cfg: cfg.aftl.clone(),
            geo: *geo,
            np: geo.pages_per_block,
            logical_pages: logical_pages as u32,
            gc_low: cfg.gc_low_free_blocks,
            gc_high: cfg.gc_high_free_blocks,
            blocks: Blocks::new(geo, cfg.dynamic_wl),
            coarse: ChainedHash::new(lbns, lbns),
            coarse_p: vec![NIL; lbns as usize],
            coarse_r: vec![NIL; lbns as usize],
            fine: ChainedHash::new(slots, slots),
            fine_ppn: vec![NIL; slots as usize],
            order: LruList::new(slots),
            detached: BTreeSet::new(),
            scratch: Vec::with_capacity(geo.pages_per_block as usize),
            dropped: Vec::with_capacity(geo.pages_per_block as usize),
            hint: Cell::new(NIL),
            lookups: 0,
            probes: 0,
            slot_probes: 0,
            fine_hits: 0,
            fine_inserts: 0,
            demotions: 0,
            demotion_copies: 0,
            folds: 0,
            forced_folds: 0,
            fold_copies: 0,
            detaches: 0,
            detached_reclaims: 0,
            mounted: None,
        })
    }

    /// RAM of the coarse table (bytes).
    pub fn coarse_bytes(&self) -> u64 {
        self.coarse.bytes() + self.coarse.capacity() as u64 * 2 * WORD_BYTES
    }

    /// RAM of the fine table (bytes).
    pub fn fine_bytes(&self) -> u64 {
        self.fine.bytes() + self.fine.capacity() as u64 * 3 * WORD_BYTES
    }

    #[inline]
    fn touch(&mut self, n: u32) {
        self.order.touch(n);
    }

    /// Removes fine node `n` (the page stays where it is).
    fn fine_drop(&mut self, n: u32) {
        self.order.unlink(n);
        let key = self.fine.key(n);
        self.fine.remove(key);
        self.fine_ppn[n as usize] = NIL;
    }

    /// Where `lpn` lives; its fine node if fine-mapped; probes taken, and of them the
    /// block page slots examined. No side effects.
    #[inline]
    fn find(&self, lpn: Lpn, nand: &Nand) -> (Option<Ppn>, u32, u32, u32) {
        let (n, mut probes) = self.fine.find(lpn.0);
        if n != NIL {
            return (Some(Ppn(self.fine_ppn[n as usize])), n, probes, 0);
        }
        let lbn = lpn.0 / self.np;
        let (c, p2) = self.coarse.find(lbn);
        probes += p2;
        if c == NIL {
            return (None, NIL, probes, 0);
        }
        let (loc, p3) = self.blocks.locate(
            nand,
            self.coarse_p[c as usize],
            self.coarse_r[c as usize],
            lpn,
            lpn.0 % self.np,
        );
        (loc, NIL, probes + p3, p3)
    }

    /// A host-path lookup: counted, and a fine hit refreshes the LRU order.
    #[inline]
    fn lookup_counted(&mut self, lpn: Lpn, nand: &Nand) -> (Option<Ppn>, u32) {
        let (loc, n, probes, slots) = self.find(lpn, nand);
        self.lookups += 1;
        self.probes += probes as u64;
        self.slot_probes += slots as u64;
        if n != NIL {
            self.fine_hits += 1;
            self.touch(n);
        }
        (loc, n)
    }

    /// Invalidates `ppn`; a detached block left empty is erased at once.
    fn invalidate(&mut self, ppn: Ppn, nand: &mut Nand) {
        nand.invalidate(ppn);
        let b = self.geo.block_of(ppn).0;
        if self.blocks.role(b) == Role::Detached {
            let v = nand.valid_count(BlockId(b));
            self.detached.remove(&(v + 1, b));
            if v == 0 {
                self.blocks.erase(b, nand);
            } else {
                self.detached.insert((v, b));
            }
        }
    }

    /// Coarse node of `lbn`, created on first use.
    fn coarse_node(&mut self, lbn: u32) -> u32 {
        let (c, _) = self.coarse.find(lbn);
        if c != NIL {
            return c;
        }
        let c = self.coarse.insert(lbn);
        debug_assert!(c != NIL, "coarse pool sized for every logical block");
        self.coarse_p[c as usize] = NIL;
        self.coarse_r[c as usize] = NIL;
        c
    }

    /// Demotes fine node `n` to the coarse table (see the header).
    fn demote(&mut self, n: u32, nand: &mut Nand) {
        let lpn = self.fine.key(n);
        let ppn = Ppn(self.fine_ppn[n as usize]);
        self.fine_drop(n);
        self.demote_page(lpn, ppn, nand);
    }

    /// Makes `lpn`, live at `ppn` and no longer fine-mapped, reachable through the coarse
    /// table: a page of a detached block is copied to its offset in the primary.
    fn demote_page(&mut self, lpn: u32, ppn: Ppn, nand: &mut Nand) {
        self.demotions += 1;
        let b = self.geo.block_of(ppn).0;
        if self.blocks.role(b) == Role::Detached {
            let lbn = lpn / self.np;
            let c = self.coarse.find(lbn).0;
            let p = self.coarse_p[c as usize];
            let dst = self.blocks.page(p, lpn % self.np);
            nand.copy(ppn, dst, Cause::Gc);
            self.demotion_copies += 1;
            self.invalidate(ppn, nand);
        } else {
            debug_assert_eq!(self.blocks.role(b), Role::Replacement);
        }
    }

    fn fine_insert(&mut self, lpn: Lpn, ppn: Ppn, nand: &mut Nand) {
        if self.fine.is_full() {
            self.demote(self.order.lru(), nand);
        }
        let n = self.fine.insert(lpn.0);
        self.fine_ppn[n as usize] = ppn.0;
        self.order.push_mru(n);
        self.fine_inserts += 1;
    }

    /// Folds logical block `lbn` (coarse node `c`). `defer` keeps fine-mapped replacement
    /// pages in place (natural fold); otherwise they are copied and lose their fine entry.
    /// `host`: the write that needed the fold, programmed in the new primary before the
    /// old blocks are erased.
    fn fold(
        &mut self,
        c: u32,
        defer: bool,
        host: Option<Lpn>,
        nand: &mut Nand,
    ) -> Result<(), FtlError> {
        let lbn = self.coarse.key(c);
        let (p, r) = (self.coarse_p[c as usize], self.coarse_r[c as usize]);
        let fine = &self.fine;
        let mut dropped = std::mem::take(&mut self.dropped);
        dropped.clear();
        let f = self.blocks.fold_for(
            nand,
            lbn,
            p,
            r,
            host,
            |lpn| defer && fine.find(lpn.0).0 != NIL,
            |lpn, _| {
                // Only replacement pages can be fine-mapped (and only they are reported).
                let n = fine.find(lpn.0).0;
                if n != NIL {
                    dropped.push(n);
                }
            },
        )?;
        for &n in &dropped {
            self.fine_drop(n);
        }
        self.dropped = dropped;
        self.folds += 1;
        self.fold_copies += f.copies as u64;
        if f.detached {
            self.detaches += 1;
            self.detached.insert((nand.valid_count(BlockId(r)), r));
        }
        self.coarse_p[c as usize] = f.primary;
        self.coarse_r[c as usize] = NIL;
        Ok(())
    }

    /// [`Ftl::write`] of one page. The old copy is invalidated only once the new one is
    /// programmed (its block may be erased then: a detached block left empty, a fold's
    /// old blocks), so a power cut in between finds one or the other on flash.
    fn write_page(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        if self.blocks.free_count() < self.gc_low {
            self.reclaim(nand)?;
        }
        let (old, n) = self.lookup_counted(lpn, nand);
        if n != NIL {
            self.fine_drop(n);
        }
        let lbn = lpn.0 / self.np;
        let off = lpn.0 % self.np;
        let c = self.coarse_node(lbn);
        let (mut p, mut r) = (self.coarse_p[c as usize], self.coarse_r[c as usize]);
        let placed = self.blocks.place(nand, lbn, off, &mut p, &mut r)?;
        self.coarse_p[c as usize] = p;
        self.coarse_r[c as usize] = r;
        match placed {
            Some(Placement::InPlace(ppn)) => {
                nand.program(ppn, lpn, Cause::Host);
                if let Some(old) = old {
                    self.invalidate(old, nand);
                }
            }
            Some(Placement::Appended(ppn)) => {
                nand.program(ppn, lpn, Cause::Host);
                if let Some(old) = old {
                    self.invalidate(old, nand);
                }
                self.fine_insert(lpn, ppn, nand);
            }
            None => {
                // R is full: fold. The old copy (in P or R) is invalidated first so the
                // fold leaves the new primary's page `off` erased; the fold programs the
                // data there before it erases P and R.
                if let Some(old) = old {
                    self.invalidate(old, nand);
                }
                self.fold(c, self.cfg.defer_gc, Some(lpn), nand)?;
            }
        }
        Ok(())
    }

    /// Second stage of the next request's prefetch, once its buckets (fetched during
    /// this request) have arrived: fetch the nodes they lead to and the coarse entry's
    /// block numbers, so its lookup finds them in cache. Only the chain heads are
    /// followed (one node per bucket on average).
    #[inline]
    fn prefetch_next(&self) {
        let lpn = self.hint.replace(NIL);
        if lpn == NIL {
            return;
        }
        let n = self.fine.head(lpn);
        if n != NIL {
            self.fine.prefetch_node(n);
            crate::util::prefetch(&self.fine_ppn, n as usize);
        }
        let c = self.coarse.head(lpn / self.np);
        if c != NIL {
            self.coarse.prefetch_node(c);
            crate::util::prefetch(&self.coarse_p, c as usize);
            crate::util::prefetch(&self.coarse_r, c as usize);
        }
    }

    /// Frees blocks until `gc_high` are free (see the header).
    #[cold]
    fn reclaim(&mut self, nand: &mut Nand) -> Result<(), FtlError> {
        while self.blocks.free_count() < self.gc_high {
            let fold_victim = self.blocks.oldest_replacement();
            let fold_cost = fold_victim.map(|r| {
                let c = self.coarse.find(self.blocks.owner(r)).0;
                let p = self.coarse_p[c as usize];
                nand.valid_count(BlockId(r)) + nand.valid_count(BlockId(p))
            });
            let cheapest_detached = self.detached.first().copied();
            // Deferral: a detached block is reclaimed only when that is strictly cheaper
            // than folding (its fine-mapped pages are hot and may soon die for free).
            let take_detached = match (cheapest_detached, fold_cost) {
                (Some((v, _)), Some(c)) => v < c,
                (Some(_), None) => true,
                (None, _) => false,
            };
            if let (true, Some((_, d))) = (take_detached, cheapest_detached) {
                self.detached_reclaims += 1;
                let mut pages = std::mem::take(&mut self.scratch);
                pages.clear();
                nand.valid_pages(BlockId(d), &mut pages);
                for &src in &pages {
                    let n = self.fine.find(nand.oob_lpn_raw(src)).0;
                    debug_assert!(n != NIL, "detached page without fine entry");
                    self.demote(n, nand);
                }
                self.scratch = pages;
                debug_assert!(matches!(self.blocks.role(d), Role::Free | Role::Retired));
            } else if let Some(r) = fold_victim {
                let c = self.coarse.find(self.blocks.owner(r)).0;
                self.forced_folds += 1;
                self.fold(c, false, None, nand)?;
            } else {
                break;
            }
        }
        if self.blocks.free_count() == 0 {
            return Err(self.blocks.out_of_space());
        }
        // The next reclaim weighs (and usually folds) the then-oldest replacement block:
        // fetch its blocks now.
        if let Some(r) = self.blocks.oldest_replacement() {
            let c = self.coarse.find(self.blocks.owner(r)).0;
            self.blocks
                .prefetch_fold(nand, self.coarse_p[c as usize], r);
        }
        Ok(())
    }
}

impl Ftl for Aftl {
    fn name(&self) -> &'static str {
        "aftl"
    }

    fn logical_pages(&self) -> u64 {
        self.logical_pages as u64
    }

    fn read(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<Option<Ppn>, FtlError> {
        let (loc, _) = self.lookup_counted(lpn, nand);
        if let Some(ppn) = loc {
            nand.read(ppn, Cause::Host);
        }
        self.prefetch_next();
        Ok(loc)
    }

    fn lookup(&self, lpn: Lpn, nand: &Nand) -> Option<Ppn> {
        self.find(lpn, nand).0
    }

    fn write(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let r = self.write_page(lpn, nand);
        self.prefetch_next();
        r
    }

    fn prefetch(&self, lpn: Lpn) {
        // First stage: the buckets the next request's lookup starts from (the second
        // stage, after this request, follows them: see `prefetch_next`).
        self.hint.set(lpn.0);
        self.fine.prefetch(lpn.0);
        self.coarse.prefetch(lpn.0 / self.np);
    }

    fn trim(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let (old, n, _, _) = self.find(lpn, nand);
        if n != NIL {
            self.fine_drop(n);
        }
        if let Some(old) = old {
            self.invalidate(old, nand);
        }
        Ok(())
    }

    fn mapping_bytes(&self) -> u64 {
        self.coarse_bytes() + self.fine_bytes()
    }

    fn counters(&self, out: &mut BTreeMap<String, u64>) {
        out.insert("ftl.lookup.count".into(), self.lookups);
        out.insert("ftl.lookup.probes".into(), self.probes);
        out.insert("ftl.lookup.slot_probes".into(), self.slot_probes);
        out.insert("ftl.merge.full".into(), self.folds);
        out.insert("ftl.mapping.coarse_bytes".into(), self.coarse_bytes());
        out.insert("ftl.mapping.fine_bytes".into(), self.fine_bytes());
        out.insert("ftl.aftl.fine_hits".into(), self.fine_hits);
        out.insert("ftl.aftl.fine_inserts".into(), self.fine_inserts);
        out.insert("ftl.aftl.demotions".into(), self.demotions);
        out.insert("ftl.aftl.demotion_copies".into(), self.demotion_copies);
        out.insert("ftl.aftl.forced_folds".into(), self.forced_folds);
        out.insert("ftl.aftl.fold_copies".into(), self.fold_copies);
        out.insert("ftl.aftl.detached_blocks".into(), self.detaches);
        out.insert("ftl.aftl.detached_reclaims".into(), self.detached_reclaims);
        out.insert("ftl.retired_blocks".into(), self.blocks.retired_blocks());
        // What the mount did (only after one: a fresh device has nothing to say).
        if let Some(m) = &self.mounted {
            m.counters(out);
        }
    }

    fn reserved_blocks(&self) -> u64 {
        self.gc_low as u64
    }

    fn programs_in_order(&self) -> bool {
        false
    }

    /// Mount (see the header and [`twolevel`]): the blocks' roles and the coarse table
    /// from the OOB tags; the fine table rebuilt from the live pages of replacement and
    /// detached blocks, newest most recently used, so it holds what it held at the cut
    /// minus the read order; detached pages that no longer fit are demoted.
    fn recover(
        &mut self,
        nand: &mut Nand,
        tags: &[Option<crate::nand::StoredTag>],
    ) -> Result<(), String> {
        debug_assert!(self.coarse.is_empty() && self.fine.is_empty(), "fresh AFTL");
        let m = self
            .blocks
            .mount(nand, tags, self.logical_pages, true, "aftl")?;
        self.mounted = Some(m.stats);
        for &(lbn, p, r) in &m.lbns {
            let c = self.coarse_node(lbn);
            self.coarse_p[c as usize] = p;
            self.coarse_r[c as usize] = r;
        }
        for &d in &m.detached {
            self.detached.insert((nand.valid_count(BlockId(d)), d));
        }
        let slots = self.fine.capacity() as usize;
        let keep = m.logged.len().saturating_sub(slots);
        for &(_, lpn, ppn) in &m.logged[..keep] {
            self.demote_page(lpn, Ppn(ppn), nand);
        }
        for &(_, lpn, ppn) in &m.logged[keep..] {
            let n = self.fine.insert(lpn);
            self.fine_ppn[n as usize] = ppn;
            self.order.push_mru(n);
        }
        Ok(())
    }

    fn check_invariants(&self, nand: &Nand) {
        nand.check_invariants();
        self.blocks.check(nand);
        self.coarse.check();
        self.fine.check();
        // The LRU list holds exactly the fine nodes.
        self.order
            .check(self.fine.len(), |n| self.fine.key(n) != NIL, "fine");
        self.blocks
            .check_owners((0..self.coarse.capacity()).filter_map(|c| {
                let lbn = self.coarse.key(c);
                (lbn != NIL).then(|| (lbn, self.coarse_p[c as usize], self.coarse_r[c as usize]))
            }));
        let mut detached = 0;
        for b in 0..self.geo.blocks() {
            match self.blocks.role(b) {
                Role::Detached => {
                    detached += 1;
                    let v = nand.valid_count(BlockId(b));
                    assert!(v > 0, "empty detached block {b} not erased");
                    assert!(self.detached.contains(&(v, b)), "detached block {b}");
                    let mut pages = Vec::new();
                    nand.valid_pages(BlockId(b), &mut pages);
                    for p in pages {
                        let n = self.fine.find(nand.oob_lpn_raw(p)).0;
                        assert!(
                            n != NIL && self.fine_ppn[n as usize] == p.0,
                            "detached page {p:?} not fine-mapped"
                        );
                    }
                }
                Role::Free | Role::Primary | Role::Replacement | Role::Retired => {}
            }
        }
        assert_eq!(detached, self.detached.len(), "detached set");
        // Fine entries point at their page in R(lbn) or a detached block; for the latter
        // the primary's slot is erased (where a demotion will put it).
        for n in 0..self.fine.capacity() {
            let lpn = self.fine.key(n);
            if lpn == NIL {
                continue;
            }
            let ppn = Ppn(self.fine_ppn[n as usize]);
            assert!(nand.is_valid(ppn), "fine entry of lpn {lpn}: invalid page");
            assert_eq!(nand.oob(ppn).lpn, Lpn(lpn), "fine entry of lpn {lpn}");
            let b = self.geo.block_of(ppn).0;
            let c = self.coarse.find(lpn / self.np).0;
            assert!(c != NIL, "fine lpn {lpn} without coarse node");
            match self.blocks.role(b) {
                Role::Replacement => assert_eq!(self.coarse_r[c as usize], b),
                Role::Detached => {
                    let p = self.coarse_p[c as usize];
                    assert!(p != NIL, "lpn {lpn} detached without a primary");
                    assert!(
                        !nand.is_programmed(self.blocks.page(p, lpn % self.np)),
                        "lpn {lpn}: primary slot taken while detached copy lives"
                    );
                }
                r => panic!("fine lpn {lpn} in a {r:?} block"),
            }
        }
        check_mapping(nand, self.logical_pages, |l| self.find(l, nand).0);
    }
}
