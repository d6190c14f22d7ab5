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
//! NAND side, allocation and reclaim victim: see [`super::twolevel`]; the write path,
//! reclaim loop and mount this file plugs its fine map into: [`super::twolevel_ftl`].
//!
//! Mapping memory (bytes), from the structures below, with 4-byte keys, links and block
//! / page numbers:
//! `coarse = buckets_c·4 + BL·(key 4 + next 4 + P 4 + R 4)`,
//! `fine = buckets_f·4 + fine_slots·(key 4 + next 4 + ppn 4 + LRU prev 4 + LRU next 4)`,
//! one bucket per node (BL and fine_slots buckets). 20 B per fine node is the AFTL figure
//! the CFTL paper's Table 3 implies (244.1 KB for 12,500 slots); the buckets add 4 B.

use super::feasible;
use super::hash::{ChainedHash, LruList, NIL, WORD_BYTES};
use super::spec::{Caps, FtlSpec, Section};
use super::twolevel::{Mounted, Role};
use super::twolevel_ftl::{Core, FineMap, TwoLevelFtl};
use super::{Ftl, FtlConfig, FtlError};
use crate::nand::{BlockId, Cause, Geometry, Lpn, Nand, Ppn};
use crate::spec::{ConfigError, Counter, Counters};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Reported as `ftl.aftl.fine_hits`.
pub const FINE_HITS: Counter = Counter::total(
    "ftl.aftl.fine_hits",
    "lookups",
    "lookups answered by the fine (page-level) hash table",
);
/// Reported as `ftl.aftl.fine_inserts`.
pub const FINE_INSERTS: Counter = Counter::total(
    "ftl.aftl.fine_inserts",
    "entries",
    "entries inserted into the fine table",
);
/// Reported as `ftl.aftl.demotions`.
pub const DEMOTIONS: Counter = Counter::total(
    "ftl.aftl.demotions",
    "entries",
    "fine entries demoted to the coarse side",
);
/// Reported as `ftl.aftl.demotion_copies`.
pub const DEMOTION_COPIES: Counter = Counter::total(
    "ftl.aftl.demotion_copies",
    "pages",
    "pages copied by demotions",
);
/// Reported as `ftl.aftl.detached_blocks`.
pub const DETACHED_BLOCKS: Counter = Counter::total(
    "ftl.aftl.detached_blocks",
    "blocks",
    "replacement blocks detached instead of folded (deferred GC)",
);
/// Reported as `ftl.aftl.detached_reclaims`.
pub const DETACHED_RECLAIMS: Counter = Counter::total(
    "ftl.aftl.detached_reclaims",
    "blocks",
    "detached blocks reclaimed",
);
/// Reported as `ftl.aftl.forced_folds`.
pub const FORCED_FOLDS: Counter = Counter::total(
    "ftl.aftl.forced_folds",
    "folds",
    "folds forced to free blocks",
);
/// Reported as `ftl.aftl.fold_copies`.
pub const FOLD_COPIES: Counter =
    Counter::total("ftl.aftl.fold_copies", "pages", "pages copied by folds");
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[
    FINE_HITS,
    FINE_INSERTS,
    DEMOTIONS,
    DEMOTION_COPIES,
    DETACHED_BLOCKS,
    DETACHED_RECLAIMS,
    FORCED_FOLDS,
    FOLD_COPIES,
];

/// AFTL in the registry.
pub const SPEC: FtlSpec = FtlSpec {
    name: "aftl",
    description: "AFTL (Wu & Kuo 2006): coarse block hash + bounded fine page hash, LRU demotion, deferred GC",
    caps: Caps {
        free_block_watermarks: true,
        ..Caps::BLOCK_MAPPED
    },
    sections: &[Section {
        key: "aftl",
        what: "AFTL's fine hash",
    }],
    validate: |cfg| cfg.aftl.validate(),
    need: feasible::two_level_need,
    memory_bytes: |cfg, geo, logical_pages| {
        feasible::logical_blocks(geo, logical_pages) * 8 + cfg.aftl.fine_slots as u64 * 16
    },
    counters: &[COUNTERS, super::twolevel::COUNTERS],
    build: |cfg, geo, logical_pages, _| build(cfg, geo, logical_pages),
};

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
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.fine_slots == 0 {
            return Err(ConfigError::value("ftl.aftl.fine_slots", 0, "at least 1"));
        }
        Ok(())
    }
}

/// AFTL: the shared two-level body over AFTL's fine map.
pub type Aftl = TwoLevelFtl<AftlFine>;

/// Builds an AFTL.
pub fn build(
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
) -> Result<Box<dyn Ftl>, ConfigError> {
    Ok(Box::new(Aftl::new(cfg, geo, logical_pages)?))
}

/// AFTL's own state: the fine hash table in LRU order and the detached blocks.
#[derive(Clone)]
pub struct AftlFine {
    cfg: AftlConfig,
    fine: ChainedHash,
    fine_ppn: Vec<u32>,
    /// Recency of the fine nodes (the least recently used is the demotion victim).
    order: LruList,
    /// Detached blocks by (valid pages, block).
    detached: BTreeSet<(u32, u32)>,
    scratch: Vec<Ppn>,
    dropped: Vec<u32>,
    fine_hits: u64,
    fine_inserts: u64,
    demotions: u64,
    demotion_copies: u64,
    detaches: u64,
    detached_reclaims: u64,
}

impl AftlFine {
    /// Removes fine node `n` (the page stays where it is).
    fn fine_drop(&mut self, n: u32) {
        self.order.unlink(n);
        let key = self.fine.key(n);
        self.fine.remove(key);
        self.fine_ppn[n as usize] = NIL;
    }

    /// Demotes fine node `n` to the coarse table (see the header).
    fn demote(&mut self, core: &mut Core, n: u32, nand: &mut Nand) {
        let lpn = self.fine.key(n);
        let ppn = Ppn(self.fine_ppn[n as usize]);
        self.fine_drop(n);
        self.demote_page(core, lpn, ppn, nand);
    }

    /// Makes `lpn`, live at `ppn` and no longer fine-mapped, reachable through the coarse
    /// table: a page of a detached block is copied to its offset in the primary.
    fn demote_page(&mut self, core: &mut Core, lpn: u32, ppn: Ppn, nand: &mut Nand) {
        self.demotions += 1;
        let b = core.geo.block_of(ppn).0;
        if core.blocks.role(b) == Role::Detached {
            let lbn = lpn / core.np;
            let c = core.coarse.find(lbn).0;
            let p = core.coarse_p[c as usize];
            let dst = core.blocks.page(p, lpn % core.np);
            nand.copy(ppn, dst, Cause::Gc);
            self.demotion_copies += 1;
            self.invalidate(core, ppn, nand);
        } else {
            debug_assert_eq!(core.blocks.role(b), Role::Replacement);
        }
    }

    fn fine_insert(&mut self, core: &mut Core, lpn: Lpn, ppn: Ppn, nand: &mut Nand) {
        if self.fine.is_full() {
            self.demote(core, self.order.lru(), nand);
        }
        let n = self.fine.insert(lpn.0);
        self.fine_ppn[n as usize] = ppn.0;
        self.order.push_mru(n);
        self.fine_inserts += 1;
    }
}

impl FineMap for AftlFine {
    const NAME: &'static str = "aftl";
    const FORCED_FOLDS: Counter = FORCED_FOLDS;
    const FOLD_COPIES: Counter = FOLD_COPIES;
    const DETACHES: bool = true;
    /// The fine node of the page (`NIL`: found through the coarse table, or not at all).
    type Hit = u32;

    fn validate(cfg: &FtlConfig) -> Result<(), ConfigError> {
        cfg.aftl.validate()
    }

    fn new(cfg: &FtlConfig, geo: &Geometry, _lbns: u32) -> AftlFine {
        let slots = cfg.aftl.fine_slots;
        AftlFine {
            cfg: cfg.aftl.clone(),
            fine: ChainedHash::new(slots, slots),
            fine_ppn: vec![NIL; slots as usize],
            order: LruList::new(slots),
            detached: BTreeSet::new(),
            scratch: Vec::with_capacity(geo.pages_per_block as usize),
            dropped: Vec::with_capacity(geo.pages_per_block as usize),
            fine_hits: 0,
            fine_inserts: 0,
            demotions: 0,
            demotion_copies: 0,
            detaches: 0,
            detached_reclaims: 0,
        }
    }

    /// One coarse node per logical block.
    #[inline(always)]
    fn coarse_cluster(&self) -> u32 {
        1
    }

    #[inline]
    fn find(&self, core: &Core, lpn: Lpn, nand: &Nand) -> (Option<Ppn>, u32, u32, u32) {
        let (n, probes) = self.fine.find(lpn.0);
        if n != NIL {
            return (Some(Ppn(self.fine_ppn[n as usize])), n, probes, 0);
        }
        let (loc, _, p2, slots) = core.find_coarse(lpn.0, 1, nand);
        (loc, NIL, probes + p2, slots)
    }

    /// A fine hit refreshes the LRU order.
    #[inline]
    fn lookup(&mut self, core: &mut Core, lpn: Lpn, nand: &Nand) -> (Option<Ppn>, u32, u32, u32) {
        let found = self.find(core, lpn, nand);
        let n = found.1;
        if n != NIL {
            self.fine_hits += 1;
            self.order.touch(n);
        }
        found
    }

    /// The fine entry goes (a write appended to R creates a new one); the old copy is
    /// invalidated after the new one is programmed.
    #[inline]
    fn release(&mut self, _: &mut Core, n: u32, old: Option<Ppn>, _: &mut Nand) -> Option<Ppn> {
        if n != NIL {
            self.fine_drop(n);
        }
        old
    }

    /// Invalidates `ppn`; a detached block left empty is erased at once.
    fn invalidate(&mut self, core: &mut Core, ppn: Ppn, nand: &mut Nand) {
        nand.invalidate(ppn);
        let b = core.geo.block_of(ppn).0;
        if core.blocks.role(b) == Role::Detached {
            let v = nand.valid_count(BlockId(b));
            self.detached.remove(&(v + 1, b));
            if v == 0 {
                core.blocks.erase(b, nand);
            } else {
                self.detached.insert((v, b));
            }
        }
    }

    /// Folds the logical block of coarse slot `c`. A host write's fold is natural: with
    /// `defer_gc`, fine-mapped replacement pages stay in place; a reclaim's fold copies
    /// them too, and they lose their fine entry.
    fn fold(
        &mut self,
        core: &mut Core,
        c: u32,
        host: Option<Lpn>,
        forced: bool,
        nand: &mut Nand,
    ) -> Result<(), FtlError> {
        let defer = !forced && self.cfg.defer_gc;
        let r = core.coarse_r[c as usize];
        let fine = &self.fine;
        let mut dropped = std::mem::take(&mut self.dropped);
        dropped.clear();
        let f = core.fold(
            c,
            1,
            host,
            nand,
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
        if f.detached {
            self.detaches += 1;
            self.detached.insert((nand.valid_count(BlockId(r)), r));
        }
        Ok(())
    }

    /// A page appended to the replacement block is hot: it gets a fine entry.
    #[inline]
    fn written(
        &mut self,
        core: &mut Core,
        lpn: Lpn,
        _: u32,
        dst: Ppn,
        appended: bool,
        nand: &mut Nand,
    ) {
        if appended {
            self.fine_insert(core, lpn, dst, nand);
        }
    }

    fn trimmed(&mut self, _lpn: Lpn, n: u32, _mapped: bool) {
        if n != NIL {
            self.fine_drop(n);
        }
    }

    /// The cheaper of the detached block with fewest valid pages (demote them all) and
    /// a forced fold of the oldest replacement block.
    fn reclaim_step(&mut self, core: &mut Core, nand: &mut Nand) -> Result<bool, FtlError> {
        let fold_victim = core.blocks.oldest_replacement();
        let fold_cost = fold_victim.map(|r| {
            let c = core.coarse.find(core.blocks.owner(r)).0;
            let p = core.coarse_p[c as usize];
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
                self.demote(core, n, nand);
            }
            self.scratch = pages;
            debug_assert!(matches!(core.blocks.role(d), Role::Free | Role::Retired));
        } else if let Some(r) = fold_victim {
            let c = core.coarse.find(core.blocks.owner(r)).0;
            core.forced_folds += 1;
            self.fold(core, c, None, true, nand)?;
        } else {
            return Ok(false);
        }
        Ok(true)
    }

    #[inline]
    fn prefetch(&self, lpn: u32) {
        self.fine.prefetch(lpn);
    }

    #[inline]
    fn prefetch_next(&self, lpn: u32) {
        let n = self.fine.head(lpn);
        if n != NIL {
            self.fine.prefetch_node(n);
            crate::util::prefetch(&self.fine_ppn, n as usize);
        }
    }

    fn fine_bytes(&self) -> u64 {
        self.fine.bytes() + self.fine.capacity() as u64 * 3 * WORD_BYTES
    }

    fn counters(&self, out: &mut Counters) {
        out.set(&FINE_HITS, self.fine_hits);
        out.set(&FINE_INSERTS, self.fine_inserts);
        out.set(&DEMOTIONS, self.demotions);
        out.set(&DEMOTION_COPIES, self.demotion_copies);
        out.set(&DETACHED_BLOCKS, self.detaches);
        out.set(&DETACHED_RECLAIMS, self.detached_reclaims);
    }

    /// The fine table rebuilt from the live pages of replacement and detached blocks,
    /// newest most recently used, so it holds what it held at the cut minus the read
    /// order; detached pages that no longer fit are demoted.
    fn mounted(&mut self, core: &mut Core, m: &Mounted, nand: &mut Nand) {
        for &d in &m.detached {
            self.detached.insert((nand.valid_count(BlockId(d)), d));
        }
        let slots = self.fine.capacity() as usize;
        let keep = m.logged.len().saturating_sub(slots);
        for &(_, lpn, ppn) in &m.logged[..keep] {
            self.demote_page(core, lpn, Ppn(ppn), nand);
        }
        for &(_, lpn, ppn) in &m.logged[keep..] {
            let n = self.fine.insert(lpn);
            self.fine_ppn[n as usize] = ppn;
            self.order.push_mru(n);
        }
    }

    fn is_empty(&self) -> bool {
        self.fine.is_empty()
    }

    fn check(&self, core: &Core, nand: &Nand) {
        self.fine.check();
        // The LRU list holds exactly the fine nodes.
        self.order
            .check(self.fine.len(), |n| self.fine.key(n) != NIL, "fine");
        let mut detached = 0;
        for b in 0..core.geo.blocks() {
            match core.blocks.role(b) {
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
            let b = core.geo.block_of(ppn).0;
            let c = core.coarse.find(lpn / core.np).0;
            assert!(c != NIL, "fine lpn {lpn} without coarse node");
            match core.blocks.role(b) {
                Role::Replacement => assert_eq!(core.coarse_r[c as usize], b),
                Role::Detached => {
                    let p = core.coarse_p[c as usize];
                    assert!(p != NIL, "lpn {lpn} detached without a primary");
                    assert!(
                        !nand.is_programmed(core.blocks.page(p, lpn % core.np)),
                        "lpn {lpn}: primary slot taken while detached copy lives"
                    );
                }
                r => panic!("fine lpn {lpn} in a {r:?} block"),
            }
        }
    }
}
