//! The FTL body shared by the two-level hash FTLs, AFTL and CFTL (docs/algorithms.md
//! §2.10–2.11): a coarse hash table over NFTL-style primary / replacement blocks
//! ([`super::twolevel`]), with a fine-grained map in front of it. What the two papers
//! share lives here once; what each adds — its fine map, what a write, a fold and a
//! reclaim do to it — is a [`FineMap`] in its own file (`aftl.rs`, `cftl.rs`), with the
//! paper and its pseudocode.
//!
//! ```text
//! coarse table:  lbn → slot (P, R); nodes hold `k` consecutive logical blocks
//!                (k = 1 for AFTL, CFTL's subblock factor: a clustered table)
//! read(lpn):     fine.lookup (fine map first, then coarse: P[off], else scan R);
//!                read the page found
//! write(lpn):    below `gc_low_free_blocks` free blocks: reclaim
//!                fine.lookup; fine.release(old copy)       (drop or invalidate it)
//!                place in P[off] (erased) or append to R   → program;
//!                   invalidate the old copy after the new one is programmed
//!                R full → invalidate the old copy, fine.fold (the write programmed
//!                   in the new primary before the old blocks are erased)
//!                fine.written(where it went)
//! reclaim:       until `gc_high_free_blocks` are free: fine.reclaim_step (default:
//!                fold the oldest replacement block, everything copied); then fetch
//!                the next victim's blocks
//! trim(lpn):     fine.trimmed; invalidate the copy found
//! mount:         blocks' roles and the coarse table from the OOB tags
//!                ([`Blocks::mount`]); fine.mounted rebuilds what the fine map needs
//! ```
//! Every counter, probe count and flash operation is the one the two FTLs made before
//! they shared this body; the fine map is a type parameter, so each FTL is compiled on
//! its own and the shared body costs no indirect call.

use super::hash::{ChainedHash, NIL, WORD_BYTES};
use super::twolevel::{self, Blocks, Folded, Mounted, Placement, check_mapping};
use super::{Ftl, FtlConfig, FtlError};
use crate::nand::{Cause, Geometry, Lpn, Nand, Ppn};
use crate::spec::{ConfigError, Counter, Counters};
use std::cell::Cell;

/// What an FTL puts in front of the coarse table: its fine-grained map and what its
/// paper does with it. The shared body calls these at fixed points (see the module
/// header); each gets the [`Core`] to read or update the coarse side.
pub trait FineMap: Clone + Send + 'static {
    /// Registered name of the FTL.
    const NAME: &'static str;
    /// Its counter of folds forced to free blocks (`ftl.<name>.forced_folds`).
    const FORCED_FOLDS: Counter;
    /// Its counter of pages folds copied (`ftl.<name>.fold_copies`).
    const FOLD_COPIES: Counter;
    /// Whether replacement blocks may be detached (AFTL's deferred GC): the mount then
    /// keeps detached blocks.
    const DETACHES: bool;
    /// Where a lookup found a page (a fine node, a level), handed back to the write path.
    type Hit: Copy;

    /// Checks the FTL's own config section.
    fn validate(cfg: &FtlConfig) -> Result<(), crate::spec::ConfigError>;
    /// The fine side of a fresh FTL over `lbns` logical blocks.
    fn new(cfg: &FtlConfig, geo: &Geometry, lbns: u32) -> Self;
    /// Logical blocks per coarse node (1: one node per logical block).
    fn coarse_cluster(&self) -> u32;

    /// Where `lpn` lives, how it was found, probes taken and, of them, the block page
    /// slots examined. No side effects.
    fn find(&self, core: &Core, lpn: Lpn, nand: &Nand) -> (Option<Ppn>, Self::Hit, u32, u32);
    /// A host-path lookup: [`FineMap::find`] plus the fine map's bookkeeping (recency,
    /// hits, promotions); returns the same four, probes including any the bookkeeping
    /// took.
    fn lookup(
        &mut self,
        core: &mut Core,
        lpn: Lpn,
        nand: &Nand,
    ) -> (Option<Ppn>, Self::Hit, u32, u32);
    /// The coarse slot a lookup already found, if it went through the coarse table.
    #[inline]
    fn coarse_slot_found(_hit: Self::Hit) -> Option<u32> {
        None
    }
    /// A write of the page found at `old` (`hit`) begins: the fine map lets go of it.
    /// Returns the old copy when it is to be invalidated only after the new one is
    /// programmed, `None` when it was invalidated here.
    fn release(
        &mut self,
        core: &mut Core,
        hit: Self::Hit,
        old: Option<Ppn>,
        nand: &mut Nand,
    ) -> Option<Ppn>;
    /// Invalidates the old copy `ppn` of a rewritten or trimmed page.
    fn invalidate(&mut self, core: &mut Core, ppn: Ppn, nand: &mut Nand);
    /// Folds the logical block of coarse slot `c`; `host` is the write that needed it,
    /// `forced` a reclaim's fold.
    fn fold(
        &mut self,
        core: &mut Core,
        c: u32,
        host: Option<Lpn>,
        forced: bool,
        nand: &mut Nand,
    ) -> Result<(), FtlError>;
    /// The write of `lpn` (found as `hit`) went to `dst`; `appended`: to the
    /// replacement block.
    fn written(
        &mut self,
        core: &mut Core,
        lpn: Lpn,
        hit: Self::Hit,
        dst: Ppn,
        appended: bool,
        nand: &mut Nand,
    );
    /// `lpn`, found as `hit`, is trimmed (`mapped`: it had a copy, invalidated next).
    fn trimmed(&mut self, lpn: Lpn, hit: Self::Hit, mapped: bool);

    /// One reclaim step; `false` when there is nothing left to reclaim. The default
    /// folds the logical block with the oldest replacement block.
    fn reclaim_step(&mut self, core: &mut Core, nand: &mut Nand) -> Result<bool, FtlError> {
        let Some(c) = core.oldest_fold(self.coarse_cluster()) else {
            return Ok(false);
        };
        core.forced_folds += 1;
        self.fold(core, c, None, true, nand)?;
        Ok(true)
    }
    /// After a reclaim, the next one's victim is logical block `lbn`: fetch what the
    /// fine map will read of it (its blocks are fetched already).
    #[inline]
    fn prefetch_victim(&self, _lbn: u32) {}
    /// First stage of the next request's prefetch: the fine map's buckets.
    fn prefetch(&self, lpn: u32);
    /// Second stage: the fine map's nodes and entries.
    fn prefetch_next(&self, lpn: u32);
    /// Second stage, coarse side: what the fine side keeps per coarse slot `slot`.
    #[inline]
    fn prefetch_coarse(&self, _slot: usize, _lpn: u32) {}

    /// RAM the FTL keeps per coarse slot beyond P and R, over all nodes (bytes).
    fn coarse_extra_bytes(&self, _core: &Core) -> u64 {
        0
    }
    /// RAM of the fine map (bytes).
    fn fine_bytes(&self) -> u64;
    /// The FTL's own counters (keys `ftl.<name>.*`).
    fn counters(&self, out: &mut Counters);
    /// After a mount rebuilt the blocks and the coarse table: rebuild the fine side.
    fn mounted(&mut self, core: &mut Core, m: &Mounted, nand: &mut Nand);
    /// Whether the fine side is empty (a fresh FTL).
    fn is_empty(&self) -> bool;
    /// Panics if the fine side disagrees with the coarse side or the flash.
    fn check(&self, core: &Core, nand: &Nand);
}

/// The coarse side and everything the two FTLs count alike.
#[derive(Clone)]
pub struct Core {
    pub geo: Geometry,
    /// Pages per block.
    pub np: u32,
    pub logical_pages: u32,
    pub gc_low: u32,
    pub gc_high: u32,
    pub blocks: Blocks,
    /// Coarse nodes, keyed by `lbn / k`; slot `node · k + lbn % k` indexes P and R.
    pub coarse: ChainedHash,
    pub coarse_p: Vec<u32>,
    pub coarse_r: Vec<u32>,
    /// The simulator's hint: first page of the next request (`NIL`: none).
    pub hint: Cell<u32>,
    pub lookups: u64,
    pub probes: u64,
    /// Of `probes`, the block page slots examined (P[off], replacement pages scanned,
    /// a cluster load's pages): each reads a spare area in flash, unlike a hash probe
    /// in RAM.
    pub slot_probes: u64,
    pub folds: u64,
    pub forced_folds: u64,
    pub fold_copies: u64,
    /// What the mount did, when the FTL was built by one ([`Ftl::recover`]).
    pub mounted: Option<twolevel::MountStats>,
}

/// The methods taking `k` are inlined always: `k` is a constant for AFTL (1), so its
/// divisions and remainders by `k` fold away, as in its own code before the split.
impl Core {
    fn new(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64, lbns: u32, k: u32) -> Core {
        let nodes = lbns.div_ceil(k);
        let slots = (nodes * k) as usize;
        Core {
            geo: *geo,
            np: geo.pages_per_block,
            logical_pages: logical_pages as u32,
            gc_low: cfg.gc_low_free_blocks,
            gc_high: cfg.gc_high_free_blocks,
            blocks: Blocks::new(geo, cfg.dynamic_wl),
            coarse: ChainedHash::new(nodes, nodes),
            coarse_p: vec![NIL; slots],
            coarse_r: vec![NIL; slots],
            hint: Cell::new(NIL),
            lookups: 0,
            probes: 0,
            slot_probes: 0,
            folds: 0,
            forced_folds: 0,
            fold_copies: 0,
            mounted: None,
        }
    }

    /// RAM of the coarse table's index and its P and R (bytes).
    pub fn coarse_bytes(&self, k: u32) -> u64 {
        self.coarse.bytes() + self.coarse.capacity() as u64 * k as u64 * 2 * WORD_BYTES
    }

    /// Coarse slot of `lbn` (or `NIL`) and probes; `k` logical blocks per node.
    #[inline(always)]
    pub fn coarse_slot(&self, lbn: u32, k: u32) -> (u32, u32) {
        let (n, probes) = self.coarse.find(lbn / k);
        if n == NIL {
            return (NIL, probes);
        }
        (n * k + lbn % k, probes)
    }

    /// Coarse slot of `lbn`, creating its node on first use. Nodes are never removed, so
    /// a new node's slots are still unmapped.
    #[inline(always)]
    pub fn coarse_slot_mut(&mut self, lbn: u32, k: u32) -> u32 {
        let (s, _) = self.coarse_slot(lbn, k);
        if s != NIL {
            return s;
        }
        let n = self.coarse.insert(lbn / k);
        debug_assert!(n != NIL, "coarse pool sized for every logical block");
        let s = n * k + lbn % k;
        debug_assert!(self.coarse_p[s as usize] == NIL && self.coarse_r[s as usize] == NIL);
        s
    }

    /// Logical block of coarse slot `c`.
    #[inline(always)]
    pub fn lbn_of(&self, c: u32, k: u32) -> u32 {
        self.coarse.key(c / k) * k + c % k
    }

    /// `lpn` through the coarse table: where it lives, its coarse slot (`NIL`: none
    /// yet), probes and, of them, the block page slots examined.
    #[inline(always)]
    pub fn find_coarse(&self, lpn: u32, k: u32, nand: &Nand) -> (Option<Ppn>, u32, u32, u32) {
        let (c, probes) = self.coarse_slot(lpn / self.np, k);
        if c == NIL {
            return (None, c, probes, 0);
        }
        let (loc, p2) = self.blocks.locate(
            nand,
            self.coarse_p[c as usize],
            self.coarse_r[c as usize],
            Lpn(lpn),
            lpn % self.np,
        );
        (loc, c, probes + p2, p2)
    }

    /// Coarse slot of the logical block whose replacement block is oldest (the default
    /// reclaim victim).
    #[inline(always)]
    pub fn oldest_fold(&mut self, k: u32) -> Option<u32> {
        let r = self.blocks.oldest_replacement()?;
        Some(self.coarse_slot(self.blocks.owner(r), k).0)
    }

    /// Folds the logical block of coarse slot `c` ([`Blocks::fold_for`], whose `keep`
    /// and `moved` it takes) and points the slot at the new primary.
    #[allow(clippy::too_many_arguments)]
    pub fn fold(
        &mut self,
        c: u32,
        k: u32,
        host: Option<Lpn>,
        nand: &mut Nand,
        keep: impl FnMut(Lpn) -> bool,
        moved: impl FnMut(Lpn, Ppn),
    ) -> Result<Folded, FtlError> {
        let lbn = self.lbn_of(c, k);
        let (p, r) = (self.coarse_p[c as usize], self.coarse_r[c as usize]);
        let f = self.blocks.fold_for(nand, lbn, p, r, host, keep, moved)?;
        self.folds += 1;
        self.fold_copies += f.copies as u64;
        self.coarse_p[c as usize] = f.primary;
        self.coarse_r[c as usize] = NIL;
        Ok(f)
    }
}

/// A two-level hash FTL: the shared body over the fine map `F`.
#[derive(Clone)]
pub struct TwoLevelFtl<F: FineMap> {
    core: Core,
    fine: F,
}

impl<F: FineMap> TwoLevelFtl<F> {
    /// An FTL over an erased array of shape `geo`.
    pub fn new(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> Result<Self, ConfigError> {
        F::validate(cfg)?;
        let lbns = twolevel::check_capacity(F::NAME, cfg, geo, logical_pages)?;
        let fine = F::new(cfg, geo, lbns);
        let core = Core::new(cfg, geo, logical_pages, lbns, fine.coarse_cluster());
        Ok(TwoLevelFtl { core, fine })
    }

    /// RAM of the coarse table (bytes).
    pub fn coarse_bytes(&self) -> u64 {
        self.core.coarse_bytes(self.fine.coarse_cluster())
            + self.fine.coarse_extra_bytes(&self.core)
    }

    /// RAM of the fine map (bytes).
    pub fn fine_bytes(&self) -> u64 {
        self.fine.fine_bytes()
    }

    /// A host-path lookup, counted.
    #[inline]
    fn lookup_counted(&mut self, lpn: Lpn, nand: &Nand) -> (Option<Ppn>, F::Hit) {
        let (loc, hit, probes, slots) = self.fine.lookup(&mut self.core, lpn, nand);
        self.core.lookups += 1;
        self.core.probes += probes as u64;
        self.core.slot_probes += slots as u64;
        (loc, hit)
    }

    /// [`Ftl::write`] of one page.
    fn write_page(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        if self.core.blocks.free_count() < self.core.gc_low {
            self.reclaim(nand)?;
        }
        let k = self.fine.coarse_cluster();
        let (old, hit) = self.lookup_counted(lpn, nand);
        let old = self.fine.release(&mut self.core, hit, old, nand);
        let core = &mut self.core;
        let lbn = lpn.0 / core.np;
        let off = lpn.0 % core.np;
        let c = match F::coarse_slot_found(hit) {
            Some(c) => c,
            None => core.coarse_slot_mut(lbn, k),
        };
        let (mut p, mut r) = (core.coarse_p[c as usize], core.coarse_r[c as usize]);
        let placed = core.blocks.place(nand, lbn, off, &mut p, &mut r)?;
        core.coarse_p[c as usize] = p;
        core.coarse_r[c as usize] = r;
        let (dst, appended) = match placed {
            Some(Placement::InPlace(ppn)) => (ppn, false),
            Some(Placement::Appended(ppn)) => (ppn, true),
            None => {
                // R is full: fold. The old copy is invalidated first so the fold leaves
                // the new primary's page `off` erased; the fold programs the data there
                // before it erases the old blocks.
                if let Some(old) = old {
                    self.fine.invalidate(&mut self.core, old, nand);
                }
                self.fine.fold(&mut self.core, c, Some(lpn), false, nand)?;
                let dst = self.core.blocks.page(self.core.coarse_p[c as usize], off);
                self.fine
                    .written(&mut self.core, lpn, hit, dst, false, nand);
                return Ok(());
            }
        };
        // The old copy is invalidated only once the new one is programmed (its block may
        // be erased then), so a power cut in between finds one or the other on flash.
        nand.program(dst, lpn, Cause::Host);
        if let Some(old) = old {
            self.fine.invalidate(&mut self.core, old, nand);
        }
        self.fine
            .written(&mut self.core, lpn, hit, dst, appended, nand);
        Ok(())
    }

    /// Second stage of the next request's prefetch, once its buckets (fetched during
    /// this request) have arrived: fetch the nodes at the chains' heads and the entries
    /// they index, so its lookup finds them in cache. Only the chain heads are followed
    /// (one node per bucket on average).
    #[inline]
    fn prefetch_next(&self) {
        let lpn = self.core.hint.replace(NIL);
        if lpn == NIL {
            return;
        }
        self.fine.prefetch_next(lpn);
        let k = self.fine.coarse_cluster();
        let lbn = lpn / self.core.np;
        let c = self.core.coarse.head(lbn / k);
        if c != NIL {
            self.core.coarse.prefetch_node(c);
            let slot = (c * k + lbn % k) as usize;
            crate::util::prefetch(&self.core.coarse_p, slot);
            crate::util::prefetch(&self.core.coarse_r, slot);
            self.fine.prefetch_coarse(slot, lpn);
        }
    }

    /// Frees blocks until `gc_high` are free.
    #[cold]
    fn reclaim(&mut self, nand: &mut Nand) -> Result<(), FtlError> {
        while self.core.blocks.free_count() < self.core.gc_high {
            if !self.fine.reclaim_step(&mut self.core, nand)? {
                break;
            }
        }
        if self.core.blocks.free_count() == 0 {
            return Err(self.core.blocks.out_of_space());
        }
        // The next reclaim weighs (and usually folds) the then-oldest replacement block:
        // fetch its blocks now.
        if let Some(r) = self.core.blocks.oldest_replacement() {
            let lbn = self.core.blocks.owner(r);
            let c = self.core.coarse_slot(lbn, self.fine.coarse_cluster()).0;
            self.core
                .blocks
                .prefetch_fold(nand, self.core.coarse_p[c as usize], r);
            self.fine.prefetch_victim(lbn);
        }
        Ok(())
    }
}

impl<F: FineMap> Ftl for TwoLevelFtl<F> {
    fn name(&self) -> &'static str {
        F::NAME
    }

    fn logical_pages(&self) -> u64 {
        self.core.logical_pages as u64
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
        self.fine.find(&self.core, lpn, nand).0
    }

    fn write(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let r = self.write_page(lpn, nand);
        self.prefetch_next();
        r
    }

    fn prefetch(&self, lpn: Lpn) {
        // First stage: the buckets the next request's lookup starts from (the second
        // stage, after this request, follows them: see `prefetch_next`).
        self.core.hint.set(lpn.0);
        self.fine.prefetch(lpn.0);
        self.core
            .coarse
            .prefetch(lpn.0 / self.core.np / self.fine.coarse_cluster());
    }

    fn trim(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let (old, hit, _, _) = self.fine.find(&self.core, lpn, nand);
        self.fine.trimmed(lpn, hit, old.is_some());
        if let Some(old) = old {
            self.fine.invalidate(&mut self.core, old, nand);
        }
        Ok(())
    }

    fn mapping_bytes(&self) -> u64 {
        self.coarse_bytes() + self.fine_bytes()
    }

    fn counters(&self, out: &mut Counters) {
        let c = &self.core;
        out.set(&super::LOOKUP_COUNT, c.lookups);
        out.set(&super::LOOKUP_PROBES, c.probes);
        out.set(&super::LOOKUP_SLOT_PROBES, c.slot_probes);
        out.set(&super::logblock::MERGE_FULL, c.folds);
        out.set(&super::MAPPING_COARSE_BYTES, self.coarse_bytes());
        out.set(&super::MAPPING_FINE_BYTES, self.fine_bytes());
        out.set(&F::FORCED_FOLDS, c.forced_folds);
        out.set(&F::FOLD_COPIES, c.fold_copies);
        self.fine.counters(out);
        out.set(&super::RETIRED_BLOCKS, c.blocks.retired_blocks());
        // What the mount did (only after one: a fresh device has nothing to say).
        if let Some(m) = &c.mounted {
            m.counters(out);
        }
    }

    fn reserved_blocks(&self) -> u64 {
        self.core.gc_low as u64
    }

    fn programs_in_order(&self) -> bool {
        false
    }

    /// Mount (see the header and [`twolevel`]): the blocks' roles and the coarse table
    /// from the OOB tags, then whatever the fine map rebuilds.
    fn recover(
        &mut self,
        nand: &mut Nand,
        tags: &[Option<crate::nand::StoredTag>],
    ) -> Result<(), super::RecoverError> {
        debug_assert!(
            self.core.coarse.is_empty() && self.fine.is_empty(),
            "fresh FTL"
        );
        let k = self.fine.coarse_cluster();
        let core = &mut self.core;
        let m = core
            .blocks
            .mount(nand, tags, core.logical_pages, F::DETACHES, F::NAME)?;
        core.mounted = Some(m.stats);
        for &(lbn, p, r) in &m.lbns {
            let c = core.coarse_slot_mut(lbn, k);
            core.coarse_p[c as usize] = p;
            core.coarse_r[c as usize] = r;
        }
        self.fine.mounted(&mut self.core, &m, nand);
        Ok(())
    }

    fn check_invariants(&self, nand: &Nand) {
        let core = &self.core;
        let k = self.fine.coarse_cluster();
        nand.check_invariants();
        core.blocks.check(nand);
        core.coarse.check();
        core.blocks
            .check_owners((0..core.coarse.capacity()).flat_map(|n| {
                let key = core.coarse.key(n);
                (0..k).filter_map(move |i| {
                    let s = (n * k + i) as usize;
                    (key != NIL && (core.coarse_p[s] != NIL || core.coarse_r[s] != NIL))
                        .then(|| (key * k + i, core.coarse_p[s], core.coarse_r[s]))
                })
            }));
        self.fine.check(core, nand);
        check_mapping(nand, core.logical_pages, |l| {
            self.fine.find(core, l, nand).0
        });
    }
}
