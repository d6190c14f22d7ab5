//! FAST, fully-associative sector translation: S.-W. Lee, D.-J. Park, T.-S. Chung, D.-H.
//! Lee, S. Park, H.-J. Song, "A log buffer-based flash translation layer using
//! fully-associative sector translation", ACM TECS 6(3), 2007.
//!
//! ```text
//! write(lpn):  (lbn, off) = lpn / Np, lpn % Np
//!              no data block / page off free → write in place (first write)
//!              otherwise invalidate the old copy (newest of: RW log, SW log, data), then
//!   off = 0:             close the SW log block (switch if full, else partial merge);
//!                        open a new SW block for lbn; write its page 0
//!   lbn = SW owner:      off = SW.next → append to the SW block
//!                        otherwise (sequence broken) → close the SW block, then as below
//!   otherwise:           append to the RW log's tail block; when all Nrw RW blocks are
//!                        full, reclaim the oldest (FIFO): full-merge every logical block
//!                        with a valid page in it (latest copies from the data block, the
//!                        SW block and all RW blocks), erase it, open a new tail
//! read(lpn):   RW page map (newest copy) → SW block → data block
//! ```
//! Choices the paper leaves open, resolved as docs/algorithms.md §2.6/§8 recommends
//! (Desnoyers' reading): a broken SW sequence merges the SW block (partial) and sends
//! the page to the RW log (FlashSim instead restarts the SW block with a non-zero
//! offset, corrupting its map); the SW close is a partial merge that also pulls the
//! owner's newer RW copies into the SW block. One SW block; the RW log is the rest of
//! `[ftl.log] log_blocks`. An overwritten or trimmed copy leaves the RW page map at
//! once, so a read never returns a stale log copy (FlashSim's FAST does), and merges
//! copy page 0 like every other page (FlashSim skips it).
//!
//! Recovery at power-up (from the OOB tags alone, [`Ftl::recover`]): an RW page never
//! holds offset 0 (those go to the SW block) and RW blocks fill from page 0, so a block
//! whose pages all sit at their own offsets of one logical block is a data or SW block,
//! any other programmed block an RW block.
//! ```text
//! newest copy of each page wins (highest seq; a copy beats its source), only it valid
//! per lbn, its in-place blocks:
//!   one → the data block;  two D, S with S's pages a prefix 0..k−1, each no older
//!   than D's page at its offset and that page not the newest copy → data block D and (once) the SW block S, next = k
//!   a newest RW copy of lbn over an unprogrammed page of D (first writes go in place:
//!   a trimmed page's log copy is the newest again, or a merge into D was cut) is
//!   copied to that page
//!   anything else (a merge or SW close cut short) → recovery merge: the newest copies
//!   into the destination if it holds only newest copies in place (finished), else a
//!   free block; its other blocks erased, its RW copies left stale
//! RW blocks with a valid page, by opening order (the lowest program counter), form
//!   the log again, the newest the tail; RW blocks without one are erased; past the
//!   log's capacity the oldest are reclaimed FAST-style
//! ```
//! FASTer's second-chance marks and which RW blocks formed its isolation log are not
//! on flash: after a restart the marks are clear, the oldest RW blocks beyond the main
//! log's capacity form the isolation log, and a reclaim cut short between opening the
//! new tail and erasing its victim is finished (the victim's live pages to the tail;
//! the victim found by the source of the tail's first copy, faster.rs).
//!
//! FASTer (faster.rs) reuses everything here and replaces only the RW reclaim
//! ([`RwReclaim`]).
//!
//! NAND rule: data blocks take first writes at fixed offsets, out of page order;
//! [`Ftl::programs_in_order`] is `false` (no page is ever programmed twice).
//!
//! Mapping memory: `BL·4` (data-block map) + the RW log's structures (see
//! [`RwLog`](super::logblock::RwLog): `Nrw·Np·12 + H·4 + BL·4 + Nrw·4` with
//! `H = next_pow2(2·Nrw·Np)` hash slots) + 12 B of SW state. The paper's minimal
//! `BL·e_b + Nrw·Np·e_lpn` keeps only the reverse map; the hash index and the
//! per-block lists are what make lookups O(1) and merges proportional to the pages they
//! move, and they are counted.
//!
//! Counters: `ftl.merge.{switch,partial}` (SW closes), `ftl.merge.full`,
//! `ftl.lookup.{count,probes}` (probes = hash slots + SW + data entries examined),
//! `ftl.log.reclaims` (RW victims), `ftl.log.reclaim_merges` (full merges caused by
//! reclaims: divided by reclaims it is FAST's victims' mean associativity), and with
//! FASTer's isolation `ftl.log.isolation_reclaims`.

use super::feasible;
use super::logblock::{Bits, Blocks, NIL, Role, RwLog, Scan, log_budget};
use super::spec::{self, Caps, FtlSpec};
use super::{Ftl, FtlConfig, FtlError};
use crate::nand::{Cause, Geometry, Lpn, Nand, Ppn};
use crate::spec::{ConfigError, Counter, Counters};

/// Reported as `ftl.log.reclaims`.
pub const LOG_RECLAIMS: Counter = Counter::total(
    "ftl.log.reclaims",
    "blocks",
    "random-write log blocks reclaimed as victims",
);
/// Reported as `ftl.log.reclaim_merges`.
pub const LOG_RECLAIM_MERGES: Counter = Counter::total(
    "ftl.log.reclaim_merges",
    "merges",
    "full merges the reclaims caused (/ reclaims = mean associativity)",
);
/// Reported as `ftl.log.isolation_reclaims`.
pub const LOG_ISOLATION_RECLAIMS: Counter = Counter::total(
    "ftl.log.isolation_reclaims",
    "blocks",
    "reclaims of the cold (isolation) log area (FASTer only)",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[LOG_RECLAIMS, LOG_RECLAIM_MERGES, LOG_ISOLATION_RECLAIMS];

/// FAST in the registry.
pub const SPEC: FtlSpec = FtlSpec {
    name: "fast",
    description: "FAST (Lee et al. 2007): one sequential + fully associative random log blocks",
    caps: Caps::BLOCK_MAPPED,
    sections: &[super::logblock::LOG_SECTION],
    validate: spec::no_section,
    need: |cfg, geo, logical_pages| feasible::log_area_need(cfg, geo, logical_pages, 2),
    memory_bytes: super::logblock::log_area_memory_bytes,
    counters: &[COUNTERS, super::logblock::COUNTERS],
    build: |cfg, geo, logical_pages, _| {
        build_fast(cfg, geo, logical_pages).map(|f| Box::new(f) as Box<dyn Ftl>)
    },
};

/// RW log stream of recently written pages.
pub(crate) const HOT: usize = 0;
/// FASTer's isolation stream.
pub(crate) const COLD: usize = 1;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Sw {
    pub block: u32,
    pub lbn: u32,
    pub next: u32,
}

/// How the oldest RW log block is reclaimed when the RW log is full.
pub trait RwReclaim: Send + Clone + 'static {
    /// Registered FTL name.
    const NAME: &'static str;
    /// Must leave stream [`HOT`] with fewer blocks than its capacity or with room in
    /// its tail.
    fn reclaim(&mut self, f: &mut FastCore, nand: &mut Nand) -> Result<(), FtlError>;
    /// Policy counters.
    fn counters(&self, out: &mut Counters);
    /// Policy invariants.
    fn check(&self, _f: &FastCore, _nand: &Nand) {}
}

/// FAST's own reclaim: full-merge every logical block with a page in the victim.
#[derive(Clone)]
pub struct MergeAll;

impl RwReclaim for MergeAll {
    const NAME: &'static str = "fast";
    fn reclaim(&mut self, f: &mut FastCore, nand: &mut Nand) -> Result<(), FtlError> {
        f.reclaim_merging(HOT, nand)
    }
    fn counters(&self, _out: &mut Counters) {}
}

/// State shared by FAST and FASTer.
#[derive(Clone)]
pub struct FastCore {
    pub(crate) b: Blocks,
    pub(crate) rw: RwLog,
    pub(crate) sw: Option<Sw>,
    /// Blocks each RW stream may hold.
    pub(crate) cap: [u32; 2],
    /// Written and not trimmed, per logical page (a device reads this from the flash;
    /// kept so `lookup` needs no flash access; not counted as mapping memory).
    pub(crate) mapped: Bits,
    /// FASTer's second-chance bit per RW log position.
    pub(crate) flags: Option<Bits>,
    pos_scratch: Vec<u32>,
    ppn_scratch: Vec<Ppn>,
    lbn_scratch: Vec<(u32, u32)>,
    reclaims: u64,
    reclaim_merges: u64,
    isolation_reclaims: u64,
    /// Logical blocks rebuilt by recovery merges at power-up.
    recovery_merges: u64,
}

/// Where a current copy lives.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Loc {
    Rw(u32),
    Other(Ppn),
}

impl FastCore {
    pub(crate) fn new(
        cfg: &FtlConfig,
        geo: &Geometry,
        logical_pages: u64,
        cold_percent: u32,
        flags: bool,
        ftl: &'static str,
    ) -> Result<FastCore, ConfigError> {
        let kind = if flags {
            super::FtlKind::Faster
        } else {
            super::FtlKind::Fast
        };
        super::feasible::check_kind(kind, cfg, geo, logical_pages)?;
        let min = 2 + (cold_percent > 0) as u32;
        let logs = log_budget(geo, logical_pages, &cfg.log, min, ftl)?;
        let rw_blocks = logs - 1;
        let cold = if cold_percent > 0 {
            ((rw_blocks as u64 * cold_percent as u64 / 100) as u32).max(1)
        } else {
            0
        };
        let hot = rw_blocks - cold;
        if hot == 0 {
            return Err(super::spec::unfit(
                ftl,
                format!(
                    "{ftl}: {rw_blocks} random log blocks leave none outside the isolation area (raise ftl.log.log_blocks or lower ftl.faster.isolation_percent)"
                ),
            ));
        }
        let b = Blocks::new(ftl, geo, logical_pages, cfg.dynamic_wl);
        let np = geo.pages_per_block;
        // One extra slot: FASTer opens the new tail before the victim is erased.
        let slots = rw_blocks + 1;
        Ok(FastCore {
            rw: RwLog::new(np, slots, b.data.len(), 2),
            sw: None,
            cap: [hot, cold],
            mapped: Bits::new(logical_pages as usize),
            flags: flags.then(|| Bits::new(slots as usize * np as usize)),
            pos_scratch: Vec::new(),
            ppn_scratch: Vec::new(),
            lbn_scratch: Vec::new(),
            reclaims: 0,
            reclaim_merges: 0,
            isolation_reclaims: 0,
            recovery_merges: 0,
            b,
        })
    }

    /// Current copy of `lpn`, counting the entries examined.
    #[inline]
    fn locate(&self, lpn: Lpn, probes: &mut u64) -> Option<Loc> {
        if !self.mapped.get(lpn.0) {
            return None;
        }
        let (pos, n) = self.rw.lookup(lpn);
        *probes += n;
        if let Some(pos) = pos {
            return Some(Loc::Rw(pos));
        }
        let (lbn, off) = self.b.split(lpn);
        if let Some(sw) = self.sw
            && sw.lbn == lbn
        {
            *probes += 1;
            if off < sw.next {
                return Some(Loc::Other(self.b.page(sw.block, off)));
            }
        }
        *probes += 1;
        Some(Loc::Other(self.b.page(self.b.data[lbn as usize], off)))
    }

    #[inline]
    fn ppn_of(&self, l: Loc) -> Ppn {
        match l {
            Loc::Rw(pos) => self.rw.ppn(pos),
            Loc::Other(p) => p,
        }
    }

    #[inline]
    fn locate_counted(&mut self, lpn: Lpn, nand: &Nand) -> Option<Loc> {
        self.b.stats.lookups += 1;
        let mut probes = 0;
        let r = self.locate(lpn, &mut probes);
        self.b.stats.probes += probes;
        debug_assert!(r.is_none_or(|l| {
            let p = self.ppn_of(l);
            nand.is_valid(p) && nand.oob(p).lpn == lpn
        }));
        r
    }

    /// Invalidates the current copy of `lpn`, if any, and returns where it was.
    #[inline]
    fn drop_copy(&mut self, lpn: Lpn, nand: &mut Nand) -> Option<Ppn> {
        let l = self.locate_counted(lpn, nand)?;
        let old = self.ppn_of(l);
        nand.invalidate(old);
        if let Loc::Rw(pos) = l {
            self.rw.remove(pos, self.b.split(lpn).0);
        }
        self.mapped.clear(lpn.0);
        Some(old)
    }

    /// Full merge of `lbn`: its data block, its RW log pages and, if it owns the SW
    /// block, the SW pages go to a new data block.
    pub(crate) fn full_merge_lbn(&mut self, lbn: u32, nand: &mut Nand) -> Result<(), FtlError> {
        // Its destination first: running out must leave the RW map untouched.
        self.b.ensure_free()?;
        let mut pos = std::mem::take(&mut self.pos_scratch);
        let mut extras = std::mem::take(&mut self.ppn_scratch);
        pos.clear();
        extras.clear();
        self.rw.take_lbn(lbn, &mut pos);
        extras.extend(pos.iter().map(|&p| self.rw.ppn(p)));
        let sw = self.sw.filter(|s| s.lbn == lbn);
        if let Some(s) = sw {
            for off in 0..s.next {
                let p = self.b.page(s.block, off);
                if nand.is_valid(p) {
                    extras.push(p);
                }
            }
        }
        let r = self.b.full_merge(lbn, &extras, nand);
        self.pos_scratch = pos;
        self.ppn_scratch = extras;
        r?;
        if let Some(s) = sw {
            self.b.release(s.block, nand);
            self.sw = None;
        }
        Ok(())
    }

    /// Closes the SW block: switch merge if full, else partial merge (it always holds an
    /// in-order prefix), pulling its owner's RW pages in.
    fn close_sw(&mut self, nand: &mut Nand) {
        let Some(s) = self.sw.take() else {
            return;
        };
        let mut pos = std::mem::take(&mut self.pos_scratch);
        let mut extras = std::mem::take(&mut self.ppn_scratch);
        pos.clear();
        extras.clear();
        self.rw.take_lbn(s.lbn, &mut pos);
        extras.extend(pos.iter().map(|&p| self.rw.ppn(p)));
        self.b.partial_merge(s.lbn, s.block, s.next, &extras, nand);
        self.pos_scratch = pos;
        self.ppn_scratch = extras;
    }

    /// The random log's block cap now: every retired block takes one off it, so the
    /// merge reserve survives retirements (logblock.rs, "Bad blocks").
    #[inline]
    pub(crate) fn hot_cap(&self) -> u32 {
        self.cap[HOT].saturating_sub(self.b.retired())
    }

    /// Opens a new tail block in RW stream `s`.
    pub(crate) fn open_rw(&mut self, s: usize) -> Result<(), FtlError> {
        let block = self.b.alloc(Role::Log)?;
        let slot = self.rw.push_block(s, block);
        if let Some(f) = &mut self.flags {
            let first = self.rw.pos(slot, 0);
            f.clear_range(first, first + self.b.np);
        }
        Ok(())
    }

    /// Writes new host data for `lpn` at the next page of stream `s`'s tail (which must
    /// have room).
    fn append(&mut self, s: usize, lpn: Lpn, nand: &mut Nand) {
        let pos = self.rw.next_pos(s);
        nand.program(self.rw.ppn(pos), lpn, Cause::Host);
        self.rw.insert(pos, lpn, self.b.split(lpn).0);
    }

    /// GC-copies the valid log page at `from` to the next page of stream `s`'s tail
    /// (which must have room), keeping its maps, and sets its flag to `flag`.
    pub(crate) fn move_page(&mut self, s: usize, from: u32, flag: bool, nand: &mut Nand) {
        let to = self.rw.next_pos(s);
        let lbn = self.b.split(Lpn(self.rw.lpn_at(from))).0;
        nand.relocate(self.rw.ppn(from), self.rw.ppn(to), Cause::Gc);
        self.rw.move_to(from, to, lbn);
        if let Some(f) = &mut self.flags {
            if flag {
                f.set(to);
            } else {
                f.clear(to);
            }
        }
    }

    /// Makes room in stream `s`'s tail, opening blocks up to its capacity and reclaiming
    /// its oldest block by merging beyond that.
    pub(crate) fn make_room_merging(&mut self, s: usize, nand: &mut Nand) -> Result<(), FtlError> {
        while !self.rw.has_room(s) {
            if (self.rw.len(s) as u32) < self.cap[s] {
                self.open_rw(s)?;
            } else {
                self.isolation_reclaims += 1;
                self.reclaim_merging(s, nand)?;
            }
        }
        Ok(())
    }

    /// FAST's reclaim of stream `s`'s oldest block: full-merge every logical block with a
    /// valid page in it, then erase it.
    pub(crate) fn reclaim_merging(&mut self, s: usize, nand: &mut Nand) -> Result<(), FtlError> {
        let slot = self.rw.oldest(s).expect("reclaim of an empty stream");
        // The victim's logical blocks, in page order; each merge below may drop later
        // pages of the victim, so a block is merged only if it still has one there.
        let mut lbns = std::mem::take(&mut self.lbn_scratch);
        lbns.clear();
        for page in 0..self.b.np {
            let lpn = self.rw.lpn_at(self.rw.pos(slot, page));
            if lpn != NIL {
                lbns.push((page, self.b.split(Lpn(lpn)).0));
            }
        }
        for i in 0..lbns.len() {
            if let Some(&(_, next)) = lbns.get(i + 1) {
                // Merges are memory-bound: fetch the next one's data block meanwhile.
                let d = self.b.data[next as usize];
                if d != NIL {
                    // A data block's tags are implicit (pages at their offsets).
                    nand.prefetch_block_status(crate::nand::BlockId(d));
                }
            }
            let (page, lbn) = lbns[i];
            if self.rw.lpn_at(self.rw.pos(slot, page)) != NIL {
                self.reclaim_merges += 1;
                if let Err(e) = self.full_merge_lbn(lbn, nand) {
                    self.lbn_scratch = lbns;
                    return Err(e);
                }
            }
        }
        self.lbn_scratch = lbns;
        if s == COLD
            && self.b.held() == self.rw.block(slot)
            && let Some(lpn) = self.b.pending()
        {
            // The isolation victim holds the old copy of the host write being placed,
            // and more allocations follow in this reclaim, so its erase cannot wait for
            // the write: merging the page's block programs the page first.
            self.full_merge_lbn(self.b.split(lpn).0, nand)?;
        }
        self.erase_oldest_log(s, nand);
        Ok(())
    }

    /// Erases stream `s`'s oldest log block, which must hold no valid page (its erase may
    /// retire it as a bad block: `logblock::Blocks::release`).
    pub(crate) fn erase_oldest_log(&mut self, s: usize, nand: &mut Nand) {
        let block = self.rw.pop_oldest(s);
        self.b.release(block, nand);
    }

    fn write(
        &mut self,
        lpn: Lpn,
        nand: &mut Nand,
        policy: &mut impl RwReclaim,
    ) -> Result<(), FtlError> {
        let (lbn, off) = self.b.split(lpn);
        let mut dropped = false;
        // Every merge below may rebuild lbn's data block without the page being replaced
        // (it is invalidated first, so no merge copies it); such a merge programs the
        // page in place in the new block before erasing the old ones (Blocks::begin_write:
        // a cut never finds the old copy erased and the new one unwritten). Logging it
        // instead would leave a log copy over a free data page, which the next write
        // would wrongly treat as a first write.
        loop {
            if dropped && self.b.pending().is_none() {
                // A merge of lbn programmed the page.
                self.mapped.set(lpn.0);
                return Ok(());
            }
            let d = self.b.data[lbn as usize];
            if d == NIL || !nand.is_programmed(self.b.page(d, off)) {
                // First write of this offset since the data block was (re)built.
                debug_assert!(!self.mapped.get(lpn.0));
                let d = if d == NIL {
                    let d = self.b.alloc(Role::Data)?;
                    self.b.data[lbn as usize] = d;
                    d
                } else {
                    d
                };
                nand.program(self.b.page(d, off), lpn, Cause::Host);
                self.b.finish_write(nand);
                self.mapped.set(lpn.0);
                return Ok(());
            }
            if !dropped {
                dropped = true;
                let old = self.drop_copy(lpn, nand);
                self.b.begin_write(lpn, old);
            }
            if off == 0 {
                self.close_sw(nand);
                let block = self.b.alloc(Role::Log)?;
                nand.program(self.b.page(block, 0), lpn, Cause::Host);
                self.b.finish_write(nand);
                self.mapped.set(lpn.0);
                self.sw = Some(Sw {
                    block,
                    lbn,
                    next: 1,
                });
                return Ok(());
            }
            if let Some(s) = &mut self.sw
                && s.lbn == lbn
            {
                if off == s.next {
                    s.next += 1;
                    let p = self.b.page(s.block, off);
                    nand.program(p, lpn, Cause::Host);
                    self.b.finish_write(nand);
                    self.mapped.set(lpn.0);
                    return Ok(());
                }
                // The sequence broke: merge the SW block, then log the page as random.
                self.close_sw(nand);
                continue;
            }
            if !self.rw.has_room(HOT) {
                if (self.rw.len(HOT) as u32) < self.hot_cap() {
                    self.open_rw(HOT)?;
                } else if self.rw.len(HOT) == 0 {
                    // Retirements took the whole random log area.
                    return Err(self.b.out_of_blocks());
                } else {
                    self.reclaims += 1;
                    policy.reclaim(self, nand)?;
                }
                continue;
            }
            self.append(HOT, lpn, nand);
            self.b.finish_write(nand);
            self.mapped.set(lpn.0);
            return Ok(());
        }
    }

    /// Rebuilds everything from the mount scan (the recovery notes at the top): the data
    /// and SW blocks ([`Self::recover_data_blocks`]), merges for the logical blocks no
    /// state fits, the RW log in opening order ([`Self::recover_rw_log`]), and the log's
    /// shape as FAST or FASTer keeps it ([`Self::recover_log_shape`]).
    fn recover(
        &mut self,
        nand: &mut Nand,
        tags: &[Option<crate::nand::StoredTag>],
    ) -> Result<(), super::RecoverError> {
        let name = self.b_name();
        let err = super::RecoverError::flash(name);
        let mut scan = self.b.scan(nand, tags);
        let bl = self.b.data.len();
        let mut own: Vec<Vec<u32>> = vec![Vec::new(); bl];
        let mut rw = Vec::new();
        for b in 0..self.b.geo.blocks() {
            if nand.write_ptr(crate::nand::BlockId(b)) == 0 {
                continue;
            }
            self.b.role[b as usize] = Role::Log;
            let lbn = scan.owner[b as usize];
            if lbn != NIL && scan.in_place[b as usize] {
                own[lbn as usize].push(b);
            } else {
                rw.push(b);
            }
        }
        self.b.remount_pool(nand);
        let broken = self.recover_data_blocks(nand, &mut scan, &own, &rw);
        // RW blocks without a newest copy first: erased, their blocks can take the
        // recovery merges below.
        rw.retain(|&b| {
            nand.valid_count(crate::nand::BlockId(b)) > 0 || {
                self.b.release(b, nand);
                false
            }
        });
        for lbn in broken {
            self.b
                .settle(lbn, &own[lbn as usize], &mut scan, nand)
                .map_err(err)?;
        }
        self.recover_rw_log(nand, tags, &scan, rw)?;
        self.mapped = Bits::new(self.b.logical_pages as usize);
        for (l, &w) in scan.newest.iter().enumerate() {
            if w != 0 {
                self.mapped.set(l as u32);
            }
        }
        self.recovery_merges += scan.merges;
        self.recover_log_shape(nand).map_err(err)
    }

    /// Recovery: each logical block's data block and the SW block from the blocks
    /// holding its pages in place (`own`), given the offsets whose newest copy is in an
    /// RW block. Returns the logical blocks no such state fits (to merge).
    fn recover_data_blocks(
        &mut self,
        nand: &mut Nand,
        scan: &mut Scan,
        own: &[Vec<u32>],
        rw: &[u32],
    ) -> Vec<u32> {
        let bl = self.b.data.len();
        let np = self.b.np;
        // Offsets whose newest copy is in an RW block, per logical block.
        let mut in_rw: Vec<Vec<u32>> = vec![Vec::new(); bl];
        for &b in rw {
            for page in 0..np {
                let p = self.b.page(b, page);
                if nand.is_valid(p) {
                    let (lbn, off) = self.b.split(nand.oob(p).lpn);
                    in_rw[lbn as usize].push(off);
                }
            }
        }
        self.sw = None;
        let mut broken = Vec::new();
        for lbn in 0..bl {
            let (blocks, offs) = (&own[lbn], &in_rw[lbn]);
            let state = match blocks[..] {
                [] => offs.is_empty().then_some((NIL, NIL)),
                [d] => Some((d, NIL)),
                [x, y] if self.sw.is_none() => [(x, y), (y, x)]
                    .into_iter()
                    .find(|&(d, s)| self.data_and_sw(d, s, scan, nand)),
                _ => None,
            };
            let ok = state.is_some_and(|(d, _)| d != NIL || offs.is_empty());
            match state {
                Some((d, s)) if ok => {
                    // A newest RW copy over an unprogrammed page of the data block is no
                    // state the FTL can be in (the next write of that page would go in
                    // place): the host trimmed the page — a trim is not on flash, so its
                    // log copy is the newest again — and a merge then rebuilt the block
                    // without it, or a merge into this block was cut before copying it.
                    // The copy goes to its free offset, as that merge would have put it:
                    // no free block needed (there may be none left: a merge cut short
                    // holds the reserve).
                    for &off in offs {
                        let dst = self.b.page(d, off);
                        if !nand.is_programmed(dst) {
                            let l = lbn * np as usize + off as usize;
                            nand.relocate(Ppn(scan.newest[l] - 1), dst, Cause::Gc);
                            scan.newest[l] = dst.0 + 1;
                        }
                    }
                    if d != NIL {
                        self.b.role[d as usize] = Role::Data;
                        self.b.data[lbn] = d;
                    }
                    if s != NIL {
                        self.sw = Some(Sw {
                            block: s,
                            lbn: lbn as u32,
                            next: nand.write_ptr(crate::nand::BlockId(s)),
                        });
                    }
                }
                _ => broken.push(lbn as u32),
            }
        }
        broken
    }

    /// Recovery: the RW log from the RW blocks still holding valid pages, oldest block
    /// first (blocks left with no valid page are erased), with a cut FASTer reclaim's
    /// victim put first. `Err` when more blocks hold valid pages than the log has.
    fn recover_rw_log(
        &mut self,
        nand: &mut Nand,
        tags: &[Option<crate::nand::StoredTag>],
        scan: &Scan,
        mut rw: Vec<u32>,
    ) -> Result<(), super::RecoverError> {
        let np = self.b.np;
        let bl = self.b.data.len();
        rw.sort_unstable_by_key(|&b| scan.opened[b as usize]);
        rw.retain(|&b| {
            nand.valid_count(crate::nand::BlockId(b)) > 0 || {
                self.b.release(b, nand);
                false
            }
        });
        if rw.len() as u32 > self.rw.capacity() {
            return Err(super::RecoverError::Foreign {
                ftl: self.b_name(),
                what: format!(
                    "{} random log blocks hold valid pages, more than the {} the log has",
                    rw.len(),
                    self.rw.capacity()
                ),
            });
        }
        // A FASTer reclaim cut short after it opened the new tail and before it erased
        // its victim leaves one block more than the log holds. The victim is not
        // necessarily the oldest RW block: the isolation log's blocks outlive the main
        // log's, so one of them can be older. It is the block holding the source of the
        // tail's first page (a second-chance copy: same page, same seq), and it goes
        // first so that the reclaim is finished below.
        if rw.len() as u32 > self.cap[HOT] + self.cap[COLD]
            && let Some(i) = self.cut_reclaim_victim(&rw, nand, tags)
        {
            let victim = rw.remove(i);
            rw.insert(0, victim);
        }
        self.rw = RwLog::new(np, self.rw.capacity(), bl, 2);
        if let Some(f) = &mut self.flags {
            *f = Bits::new(self.rw.capacity() as usize * np as usize);
        }
        for &b in &rw {
            let slot = self.rw.push_block(HOT, b);
            for page in 0..np {
                let p = self.b.page(b, page);
                if nand.is_valid(p) {
                    let lpn = nand.oob(p).lpn;
                    self.rw
                        .insert(self.rw.pos(slot, page), lpn, self.b.split(lpn).0);
                }
            }
        }
        if let Some(&tail) = rw.last() {
            self.rw
                .restore_fill(HOT, nand.write_ptr(crate::nand::BlockId(tail)));
        }
        Ok(())
    }

    /// Recovery, last step: the RW log (all in the main stream so far) back to the shape
    /// the FTL keeps — a cut FASTer reclaim finished, the isolation log formed again,
    /// and no more blocks in the main log than it holds.
    fn recover_log_shape(&mut self, nand: &mut Nand) -> Result<(), FtlError> {
        let np = self.b.np;
        // A FASTer reclaim cut short after it opened the new tail and before it erased
        // the victim leaves one block more than the log holds: finish it as it was
        // going, the victim's remaining pages to the tail when they fit (no free block
        // needed), else merge.
        while self.rw.len(HOT) as u32 > self.cap[HOT] + self.cap[COLD] {
            let slot = self.rw.oldest(HOT).expect("stream not empty");
            let live: Vec<u32> = (0..np)
                .map(|p| self.rw.pos(slot, p))
                .filter(|&pos| self.rw.lpn_at(pos) != NIL)
                .collect();
            if self.rw.len(HOT) > 1 && live.len() as u32 <= np - self.rw.fill(HOT) {
                for pos in live {
                    self.move_page(HOT, pos, true, nand);
                }
                self.erase_oldest_log(HOT, nand);
            } else {
                self.reclaim_merging(HOT, nand)?;
            }
        }
        // Which blocks formed FASTer's isolation log is not on flash: the oldest ones
        // beyond the main log's capacity form it again.
        while self.rw.len(HOT) as u32 > self.cap[HOT] && (self.rw.len(COLD) as u32) < self.cap[COLD]
        {
            let b = self
                .rw
                .block(self.rw.oldest(HOT).expect("stream not empty"));
            self.rw
                .move_oldest(HOT, COLD, nand.write_ptr(crate::nand::BlockId(b)));
        }
        while self.rw.len(HOT) as u32 > self.cap[HOT] {
            self.reclaim_merging(HOT, nand)?;
        }
        Ok(())
    }

    /// Index in `rw` (RW blocks by opening order) of the victim of a second-chance
    /// reclaim whose new tail (the last block) was opened: the block holding the latest
    /// earlier copy of the tail's page 0 (same logical page and seq). Older copies of it
    /// can survive in other blocks: an earlier reclaim of their block cut short and
    /// finished by no mount (the log then had room for both blocks).
    fn cut_reclaim_victim(
        &self,
        rw: &[u32],
        nand: &Nand,
        tags: &[Option<crate::nand::StoredTag>],
    ) -> Option<usize> {
        let (&tail, others) = rw.split_last()?;
        let first = tags[self.b.page(tail, 0).0 as usize].as_ref()?;
        let mut best: Option<(u32, usize)> = None;
        for (i, &b) in others.iter().enumerate() {
            for off in 0..nand.write_ptr(crate::nand::BlockId(b)) {
                let Some(t) = &tags[self.b.page(b, off).0 as usize] else {
                    continue;
                };
                if t.lpn == first.lpn
                    && t.seq == first.seq
                    && t.program_seq < first.program_seq
                    && best.is_none_or(|(ps, _)| t.program_seq > ps)
                {
                    best = Some((t.program_seq, i));
                }
            }
        }
        best.map(|(_, i)| i)
    }

    fn b_name(&self) -> &'static str {
        if self.flags.is_some() {
            "faster"
        } else {
            "fast"
        }
    }

    /// Whether `d` can be `s`'s data block and `s` the SW block: its pages a prefix in
    /// place, each no older than `d`'s page at its offset, which is not the newest copy
    /// (a read of an offset the SW block covers never looks at the data block; a merge
    /// destination holding copies of the SW pages wins their ties and fails this).
    fn data_and_sw(&self, d: u32, s: u32, scan: &super::logblock::Scan, nand: &Nand) -> bool {
        let k = nand.write_ptr(crate::nand::BlockId(s));
        (0..k).all(|off| {
            let p = self.b.page(s, off);
            let dp = self.b.page(d, off);
            nand.is_programmed(p)
                && nand.is_programmed(dp)
                && nand.oob(dp).seq <= nand.oob(p).seq
                && !scan.is_newest(dp, nand)
        })
    }

    fn log_blocks(&self) -> u32 {
        1 + self.cap[HOT] + self.cap[COLD]
    }

    fn check(&self, nand: &Nand) {
        self.rw.check(nand, |l| self.b.split(l));
        let mut logs = 0;
        for s in [HOT, COLD] {
            assert!(
                self.rw.len(s) as u32 <= self.cap[s],
                "stream {s} over capacity"
            );
            for slot in self.rw.slots(s) {
                logs += 1;
                let b = self.rw.block(slot);
                assert_eq!(self.b.role[b as usize], Role::Log, "RW block {b}");
                for page in 0..self.b.np {
                    let p = self.b.page(b, page);
                    let pos = self.rw.pos(slot, page);
                    if nand.is_valid(p) {
                        assert_eq!(self.rw.lpn_at(pos), nand.oob(p).lpn.0, "RW page {p:?}");
                    } else {
                        assert_eq!(self.rw.lpn_at(pos), NIL, "invalid RW page {p:?} mapped");
                    }
                }
            }
        }
        if let Some(s) = self.sw {
            logs += 1;
            assert_eq!(self.b.role[s.block as usize], Role::Log, "SW block");
            assert_eq!(nand.write_ptr(crate::nand::BlockId(s.block)), s.next);
            assert!(
                self.b.data[s.lbn as usize] != NIL,
                "SW owner has no data block"
            );
            for off in 0..s.next {
                let p = self.b.page(s.block, off);
                assert_eq!(self.b.split(nand.oob(p).lpn), (s.lbn, off), "SW page {off}");
            }
        }
        let roles = self.b.role.iter().filter(|&&r| r == Role::Log).count();
        assert_eq!(roles, logs, "log blocks vs streams + SW");
        self.b
            .check(nand, |l| self.locate(l, &mut 0).map(|x| self.ppn_of(x)));
    }
}

/// FAST (with [`MergeAll`]) or FASTer (with its second-chance reclaim).
#[derive(Clone)]
pub struct Fast<P: RwReclaim> {
    pub(crate) core: FastCore,
    pub(crate) policy: P,
}

/// Builds FAST.
pub fn build_fast(
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
) -> Result<Fast<MergeAll>, ConfigError> {
    Ok(Fast {
        core: FastCore::new(cfg, geo, logical_pages, 0, false, "fast")?,
        policy: MergeAll,
    })
}

impl<P: RwReclaim> Ftl for Fast<P> {
    fn name(&self) -> &'static str {
        P::NAME
    }

    fn logical_pages(&self) -> u64 {
        self.core.b.logical_pages as u64
    }

    fn read(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<Option<Ppn>, FtlError> {
        let r = self
            .core
            .locate_counted(lpn, nand)
            .map(|l| self.core.ppn_of(l));
        if let Some(p) = r {
            nand.read(p, Cause::Host);
        }
        self.core
            .b
            .prefetch_hinted_data_page(nand, &self.core.mapped);
        Ok(r)
    }

    fn lookup(&self, lpn: Lpn, _nand: &Nand) -> Option<Ppn> {
        self.core.locate(lpn, &mut 0).map(|l| self.core.ppn_of(l))
    }

    fn write(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let r = self.core.write(lpn, nand, &mut self.policy);
        // Done or failed: nothing stays held back.
        self.core.b.finish_write(nand);
        self.core
            .b
            .prefetch_hinted_data_page(nand, &self.core.mapped);
        r
    }

    fn prefetch(&self, lpn: Lpn) {
        let c = &self.core;
        c.b.prefetch_lpn(lpn, &c.mapped);
        c.rw.prefetch(lpn, c.b.split(lpn).0);
    }

    fn trim(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let _ = self.core.drop_copy(lpn, nand);
        Ok(())
    }

    fn mapping_bytes(&self) -> u64 {
        let flags = self.core.flags.as_ref().map_or(0, |f| f.bytes());
        self.core.b.map_bytes()
            + self.core.rw.mapping_bytes()
            + std::mem::size_of::<Sw>() as u64
            + flags
    }

    fn counters(&self, out: &mut Counters) {
        self.core.b.stats.report(out);
        out.set(&super::RETIRED_BLOCKS, self.core.b.retired_blocks());
        out.set(&LOG_RECLAIMS, self.core.reclaims);
        out.set(&LOG_RECLAIM_MERGES, self.core.reclaim_merges);
        out.set(&super::RECOVERY_MERGES, self.core.recovery_merges);
        if self.core.cap[COLD] > 0 {
            out.set(&LOG_ISOLATION_RECLAIMS, self.core.isolation_reclaims);
        }
        self.policy.counters(out);
    }

    fn reserved_blocks(&self) -> u64 {
        self.core.b.reserved(self.core.log_blocks())
    }

    fn programs_in_order(&self) -> bool {
        false
    }

    fn recover(
        &mut self,
        nand: &mut Nand,
        tags: &[Option<crate::nand::StoredTag>],
    ) -> Result<(), super::RecoverError> {
        self.core.recover(nand, tags)
    }

    fn check_invariants(&self, nand: &Nand) {
        self.core.check(nand);
        self.policy.check(&self.core, nand);
    }
}
