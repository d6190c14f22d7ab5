//! BAST, the log block scheme with 1:1 association: J. Kim, J. M. Kim, S. H. Noh, S. L.
//! Min, Y. Cho, "A space-efficient flash translation layer for CompactFlash systems",
//! IEEE Trans. Consumer Electronics 48(2), 2002 (the name "BAST" is the FAST authors').
//!
//! ```text
//! write(lpn):  (lbn, off) = lpn / Np, lpn % Np
//!              no data block    → allocate one; program page off in place
//!              page off free    → program it in place (first write)
//!              otherwise        → invalidate the old copy;
//!                 lbn's log block full → merge it (below), then retry from the top
//!                 lbn has no log block → take a free one; none free: merge the victim
//!                                        (least recently written) log block
//!                 append at the log block's next page; page map[off] = that page
//! merge(log):  pages 0..k−1 hold offsets 0..k−1 → switch (k = Np) or partial merge
//!              otherwise → full merge (new block ← data block + log), erase both
//! read(lpn):   log page map hit → that page, else the data block's page off
//! ```
//! Recovery at power-up (from the OOB tags alone, [`Ftl::recover`]; every block holds
//! pages of one logical block, so the tags say whose it is):
//! ```text
//! newest copy of each page wins (highest seq; a copy beats its source), only it valid
//! per lbn, its blocks on flash:
//!   one block, pages at their offsets        → the data block (a switch merge leaves
//!                                              its log block so)
//!   two blocks D, L: D in place, L's pages a prefix 0..k−1 of the block, each of L's
//!   offsets programmed in D with an older or equal seq (BPLRU's padding rewrites a
//!   page with its seq) → data block D, log block L (page map from its newest copies)
//!   anything else (a merge cut short: copies with equal seqs, three blocks, a log with
//!   no data block) → recovery merge: the newest copies into the merge destination if
//!                    it holds only newest copies at their offsets (finished), else a
//!                    free block; the other blocks erased
//! victim order: by the last program into each log block
//! ```
//!
//! Choices the paper leaves open: the victim is the least recently written log block
//! (`[ftl.log] victim = "fifo"`: oldest allocated; FlashSim picks at random); after a
//! merge the write is retried, so when a full merge left page `off` of the new data
//! block free (the overwritten copy is invalidated before merging and never copied) it
//! goes there in place; the number of log blocks is `[ftl.log] log_blocks` (default:
//! all over-provisioned blocks but the merge reserve). Trimmed pages are dropped by the
//! next merge.
//!
//! NAND rule: data blocks are written at fixed offsets, out of page order, as on the
//! small-block SLC parts BAST was designed for; [`Ftl::programs_in_order`] is `false`, so
//! the simulator's NAND still forbids programming a page twice but not out of order.
//!
//! Mapping memory: `BL·4 + Nlog·(24 + 2·Np)` bytes — the data-block map, each log
//! block's header (block, owner, next page, flags, LRU links) and its page map of
//! `Np` 2-byte entries (the paper's `⌈log2 Np⌉` bits, rounded up to 16).
//!
//! Counters: `ftl.merge.{switch,partial,full}`, `ftl.lookup.{count,probes}` (probes =
//! log page map and data block entries examined), `ftl.bast.victim_merges` (merges
//! forced by the lack of a free log block — log-block thrashing), and
//! `ftl.bast.merged_log_pages` (pages the merged log blocks had written: divided by
//! merges × Np it is the log-space utilisation the FAST paper measures).

use super::feasible;
use super::logblock::{Bits, Blocks, LogVictim, NIL, Role, log_budget};
use super::spec::{self, Caps, FtlSpec, Section};
use super::{Ftl, FtlConfig, FtlError};
use crate::nand::{BlockId, Cause, Geometry, Lpn, Nand, Ppn};
use crate::spec::{ConfigError, Counter, Counters};

/// Reported as `ftl.bast.victim_merges`.
pub const VICTIM_MERGES: Counter = Counter::total(
    "ftl.bast.victim_merges",
    "merges",
    "log blocks merged as victims to free a log block",
);
/// Reported as `ftl.bast.merged_log_pages`.
pub const MERGED_LOG_PAGES: Counter = Counter::total(
    "ftl.bast.merged_log_pages",
    "pages",
    "written pages of the victim log blocks when merged",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[VICTIM_MERGES, MERGED_LOG_PAGES];

/// BAST in the registry.
pub const SPEC: FtlSpec = FtlSpec {
    name: "bast",
    description: "BAST (Kim et al. 2002): one log block per data block; switch/partial/full merges",
    caps: Caps {
        writes_at_offsets: true,
        ..Caps::BLOCK_MAPPED
    },
    sections: &[
        Section {
            key: "log.victim",
            what: "a log-block victim choice",
        },
        super::logblock::LOG_SECTION,
    ],
    validate: spec::no_section,
    need: |cfg, geo, logical_pages| feasible::log_area_need(cfg, geo, logical_pages, 1),
    memory_bytes: super::logblock::log_area_memory_bytes,
    counters: &[COUNTERS, super::logblock::COUNTERS],
    build: |cfg, geo, logical_pages, _| {
        Bast::new(cfg, geo, logical_pages).map(|f| Box::new(f) as Box<dyn Ftl>)
    },
};

#[derive(Clone, Copy, Debug)]
struct LogSlot {
    block: u32,
    lbn: u32,
    /// Pages written so far.
    next: u32,
    /// Page i holds offset i for every written page (switch / partial merge possible).
    in_order: bool,
    /// Victim-order list links (least recent first).
    older: u32,
    newer: u32,
}

const EMPTY: LogSlot = LogSlot {
    block: NIL,
    lbn: NIL,
    next: 0,
    in_order: true,
    older: NIL,
    newer: NIL,
};

/// BAST state.
#[derive(Clone)]
pub struct Bast {
    b: Blocks,
    slots: Vec<LogSlot>,
    free_slots: Vec<u32>,
    /// Logical block → its log slot, or NIL.
    log_of: Vec<u32>,
    /// `slot·Np + off` → log page + 1 holding that offset, 0 = none.
    page_map: Vec<u16>,
    /// Written and not trimmed, per logical page. A device learns this from the flash
    /// (erased pages, trim marks); the simulator keeps it so `lookup` needs no flash
    /// access. Not counted as mapping memory.
    mapped: Bits,
    oldest: u32,
    newest: u32,
    victim: LogVictim,
    victim_merges: u64,
    merged_log_pages: u64,
    /// Logical blocks rebuilt by recovery merges at power-up.
    recovery_merges: u64,
    scratch: Vec<Ppn>,
}

impl Bast {
    /// A BAST FTL over an erased array.
    pub fn new(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> Result<Bast, ConfigError> {
        if geo.pages_per_block > u16::MAX as u32 {
            return Err(super::spec::unfit(
                "bast",
                format!(
                    "bast: pages_per_block = {} exceeds the 2-byte log page map",
                    geo.pages_per_block
                ),
            ));
        }
        super::feasible::check_kind(super::FtlKind::Bast, cfg, geo, logical_pages)?;
        let nlog = log_budget(geo, logical_pages, &cfg.log, 1, "bast")?;
        let b = Blocks::new("bast", geo, logical_pages, cfg.dynamic_wl);
        let bl = b.data.len();
        Ok(Bast {
            slots: vec![EMPTY; nlog as usize],
            free_slots: (0..nlog).rev().collect(),
            log_of: vec![NIL; bl],
            page_map: vec![0; nlog as usize * geo.pages_per_block as usize],
            mapped: Bits::new(logical_pages as usize),
            oldest: NIL,
            newest: NIL,
            victim: cfg.log.victim,
            victim_merges: 0,
            merged_log_pages: 0,
            recovery_merges: 0,
            scratch: Vec::with_capacity(geo.pages_per_block as usize),
            b,
        })
    }

    fn unlink(&mut self, s: u32) {
        let LogSlot { older, newer, .. } = self.slots[s as usize];
        if older == NIL {
            self.oldest = newer;
        } else {
            self.slots[older as usize].newer = newer;
        }
        if newer == NIL {
            self.newest = older;
        } else {
            self.slots[newer as usize].older = older;
        }
    }

    fn push_newest(&mut self, s: u32) {
        let sl = &mut self.slots[s as usize];
        sl.older = self.newest;
        sl.newer = NIL;
        if self.newest == NIL {
            self.oldest = s;
        } else {
            self.slots[self.newest as usize].newer = s;
        }
        self.newest = s;
    }

    /// Where `lpn`'s current copy is, counting the map entries examined: the newest log
    /// copy if the log page map has one, else the data block's page (a log copy always
    /// supersedes the data block's, and a merge empties the page map).
    #[inline]
    fn locate(&self, lpn: Lpn, probes: &mut u64) -> Option<Ppn> {
        if !self.mapped.get(lpn.0) {
            return None;
        }
        let (lbn, off) = self.b.split(lpn);
        let s = self.log_of[lbn as usize];
        if s != NIL {
            *probes += 1;
            let p = self.page_map[(s * self.b.np + off) as usize];
            if p != 0 {
                return Some(self.b.page(self.slots[s as usize].block, p as u32 - 1));
            }
        }
        *probes += 1;
        Some(self.b.page(self.b.data[lbn as usize], off))
    }

    /// [`Bast::locate`], counted as one lookup.
    #[inline]
    fn locate_counted(&mut self, lpn: Lpn, nand: &Nand) -> Option<Ppn> {
        self.b.stats.lookups += 1;
        let mut probes = 0;
        let r = self.locate(lpn, &mut probes);
        self.b.stats.probes += probes;
        debug_assert!(r.is_none_or(|p| nand.is_valid(p) && nand.oob(p).lpn == lpn));
        r
    }

    /// Merges log slot `s` into its data block and frees the slot.
    fn merge(&mut self, s: u32, nand: &mut Nand) -> Result<(), FtlError> {
        let sl = self.slots[s as usize];
        if !sl.in_order {
            // A full merge needs its destination: fail before the page map is touched.
            self.b.ensure_free()?;
        }
        self.merged_log_pages += sl.next as u64;
        // Clear the slot's page map while the log pages' tags still say which entries
        // are set (thrashing merges typically hold one or two pages of Np).
        let np = self.b.np as usize;
        let map = &mut self.page_map[s as usize * np..(s as usize + 1) * np];
        if (sl.next as usize) < np / 8 {
            for page in 0..sl.next {
                let off = self.b.split(nand.oob(self.b.page(sl.block, page)).lpn).1;
                map[off as usize] = 0;
            }
        } else {
            map.fill(0);
        }
        if sl.in_order {
            self.b.partial_merge(sl.lbn, sl.block, sl.next, &[], nand);
        } else {
            let mut pages = std::mem::take(&mut self.scratch);
            pages.clear();
            nand.valid_pages(BlockId(sl.block), &mut pages);
            let r = self.b.full_merge(sl.lbn, &pages, nand);
            self.scratch = pages;
            r?;
            self.b.release(sl.block, nand);
        }
        self.log_of[sl.lbn as usize] = NIL;
        self.unlink(s);
        self.slots[s as usize] = EMPTY;
        self.free_slots.push(s);
        Ok(())
    }

    /// [`Ftl::write`] of one page.
    fn write_page(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let (lbn, off) = self.b.split(lpn);
        let mut invalidated = false;
        loop {
            if invalidated && self.b.pending().is_none() {
                // The merge of lbn's full log programmed the page in place in the new
                // data block before erasing the old blocks (Blocks::begin_write).
                self.mapped.set(lpn.0);
                return Ok(());
            }
            let d = self.b.data[lbn as usize];
            if d == NIL {
                let d = self.b.alloc(Role::Data)?;
                self.b.data[lbn as usize] = d;
                nand.program(self.b.page(d, off), lpn, Cause::Host);
                self.mapped.set(lpn.0);
                return Ok(());
            }
            if !nand.is_programmed(self.b.page(d, off)) {
                // First write of this offset since the block was (re)built: in place. No
                // valid copy can exist elsewhere (a log copy implies this page was used).
                debug_assert!(invalidated || !self.mapped.get(lpn.0));
                nand.program(self.b.page(d, off), lpn, Cause::Host);
                self.b.finish_write(nand);
                self.mapped.set(lpn.0);
                return Ok(());
            }
            if !invalidated {
                // Invalidate first, so a merge below never copies the page being replaced.
                invalidated = true;
                let old = self.locate_counted(lpn, nand);
                if let Some(old) = old {
                    nand.invalidate(old);
                    self.mapped.clear(lpn.0);
                }
                // Until the page is programmed, no erase may take its old copy.
                self.b.begin_write(lpn, old);
            }
            let mut s = self.log_of[lbn as usize];
            if s != NIL && self.slots[s as usize].next == self.b.np {
                self.merge(s, nand)?;
                continue;
            }
            if s == NIL {
                s = self.open_log(lbn, nand)?;
            }
            let sl = &mut self.slots[s as usize];
            let page = sl.next;
            sl.next += 1;
            sl.in_order &= page == off;
            let block = sl.block;
            nand.program(self.b.page(block, page), lpn, Cause::Host);
            self.b.finish_write(nand);
            self.page_map[(s * self.b.np + off) as usize] = page as u16 + 1;
            self.mapped.set(lpn.0);
            if self.victim == LogVictim::Lru && self.newest != s {
                self.unlink(s);
                self.push_newest(s);
            }
            if self.free_slots.is_empty() {
                // Under random writes the next write most likely merges the victim: start
                // fetching its blocks and the merge's destination now.
                let v = self.slots[self.oldest as usize];
                nand.prefetch_pages(BlockId(v.block), v.next);
                let d = self.b.data[v.lbn as usize];
                if d != NIL {
                    // A data block's tags are implicit (pages at their offsets).
                    nand.prefetch_block_status(BlockId(d));
                }
                self.b.prefetch_next_free(nand);
            }
            return Ok(());
        }
    }

    /// A log slot with an erased block for `lbn`, merging a victim if none is free.
    /// Every retired block takes one block off the log area (the merge reserve stays).
    fn open_log(&mut self, lbn: u32, nand: &mut Nand) -> Result<u32, FtlError> {
        loop {
            // Merges below may retire blocks: the cap is read afresh each time.
            let cap = (self.slots.len() as u32).saturating_sub(self.b.retired());
            let used = (self.slots.len() - self.free_slots.len()) as u32;
            if used < cap {
                break;
            }
            if used == 0 {
                // Retirements took the whole log area.
                return Err(self.b.out_of_blocks());
            }
            self.victim_merges += 1;
            self.merge(self.oldest, nand)?;
        }
        let s = self.free_slots.pop().expect("a slot was just freed");
        let block = self.b.alloc(Role::Log)?;
        self.slots[s as usize] = LogSlot {
            block,
            lbn,
            ..EMPTY
        };
        self.log_of[lbn as usize] = s;
        self.push_newest(s);
        Ok(s)
    }
}

/// The last program counter of `block`'s pages (the log victim order after a restart).
fn tags_last(tags: &[Option<crate::nand::StoredTag>], block: u32, np: u32) -> u32 {
    let first = (block * np) as usize;
    tags[first..first + np as usize]
        .iter()
        .flatten()
        .map(|t| t.program_seq)
        .max()
        .unwrap_or(0)
}

impl Bast {
    /// The (data block, log block or [`NIL`]) a logical block's blocks on flash form,
    /// if they are a state BAST can be in (see the recovery notes at the top).
    fn normal_state(
        &self,
        blocks: &[u32],
        scan: &super::logblock::Scan,
        nand: &Nand,
    ) -> Option<(u32, u32)> {
        match *blocks {
            [d] => scan.in_place[d as usize].then_some((d, NIL)),
            [x, y] => [(x, y), (y, x)]
                .into_iter()
                .find(|&(d, l)| self.data_and_log(d, l, scan, nand)),
            _ => None,
        }
    }

    /// Whether `d` can be the data block and `l` its log block.
    fn data_and_log(&self, d: u32, l: u32, scan: &super::logblock::Scan, nand: &Nand) -> bool {
        if !scan.in_place[d as usize] {
            return false;
        }
        let k = nand.write_ptr(BlockId(l));
        (0..k).all(|page| {
            let p = self.b.page(l, page);
            if !nand.is_programmed(p) {
                return false;
            }
            let t = nand.oob(p);
            let dp = self.b.page(d, self.b.split(t.lpn).1);
            nand.is_programmed(dp) && nand.oob(dp).seq <= t.seq
        })
    }
}

impl Ftl for Bast {
    fn name(&self) -> &'static str {
        "bast"
    }

    fn logical_pages(&self) -> u64 {
        self.b.logical_pages as u64
    }

    fn read(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<Option<Ppn>, FtlError> {
        let r = self.locate_counted(lpn, nand);
        if let Some(p) = r {
            nand.read(p, Cause::Host);
        }
        self.b.prefetch_hinted_data_page(nand, &self.mapped);
        Ok(r)
    }

    fn lookup(&self, lpn: Lpn, _nand: &Nand) -> Option<Ppn> {
        self.locate(lpn, &mut 0)
    }

    fn write(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let r = self.write_page(lpn, nand);
        // Done or failed: nothing stays held back.
        self.b.finish_write(nand);
        self.b.prefetch_hinted_data_page(nand, &self.mapped);
        r
    }

    fn prefetch(&self, lpn: Lpn) {
        self.b.prefetch_lpn(lpn, &self.mapped);
        crate::util::prefetch(&self.log_of, self.b.split(lpn).0 as usize);
    }

    fn trim(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        if let Some(p) = self.locate_counted(lpn, nand) {
            nand.invalidate(p);
            self.mapped.clear(lpn.0);
        }
        Ok(())
    }

    fn mapping_bytes(&self) -> u64 {
        self.b.map_bytes()
            + (self.slots.len() * std::mem::size_of::<LogSlot>()
                + self.page_map.len() * std::mem::size_of::<u16>()) as u64
    }

    fn counters(&self, out: &mut Counters) {
        self.b.stats.report(out);
        out.set(&super::RETIRED_BLOCKS, self.b.retired_blocks());
        out.set(&VICTIM_MERGES, self.victim_merges);
        out.set(&MERGED_LOG_PAGES, self.merged_log_pages);
        out.set(&super::RECOVERY_MERGES, self.recovery_merges);
    }

    fn reserved_blocks(&self) -> u64 {
        self.b.reserved(self.slots.len() as u32)
    }

    fn programs_in_order(&self) -> bool {
        false
    }

    fn recover(
        &mut self,
        nand: &mut Nand,
        tags: &[Option<crate::nand::StoredTag>],
    ) -> Result<(), super::RecoverError> {
        let mut scan = self.b.scan(nand, tags);
        let np = self.b.np;
        let bl = self.b.data.len();
        let mut own: Vec<Vec<u32>> = vec![Vec::new(); bl];
        for b in 0..self.b.geo.blocks() {
            if nand.write_ptr(BlockId(b)) == 0 {
                continue;
            }
            let lbn = scan.owner[b as usize];
            if lbn == NIL {
                return Err(super::RecoverError::Foreign {
                    ftl: "bast",
                    what: format!(
                        "block {b} holds pages of several logical blocks, which BAST never writes"
                    ),
                });
            }
            own[lbn as usize].push(b);
            self.b.role[b as usize] = Role::Log;
        }
        self.b.remount_pool(nand);
        self.slots.fill(EMPTY);
        self.free_slots = (0..self.slots.len() as u32).rev().collect();
        self.log_of.fill(NIL);
        self.page_map.fill(0);
        (self.oldest, self.newest) = (NIL, NIL);
        let mut logs = Vec::new();
        let mut broken = Vec::new();
        for (lbn, blocks) in own.iter().enumerate() {
            let lbn = lbn as u32;
            match self.normal_state(blocks, &scan, nand) {
                Some((d, l)) if l == NIL || logs.len() < self.slots.len() => {
                    self.b.role[d as usize] = Role::Data;
                    self.b.data[lbn as usize] = d;
                    if l != NIL {
                        logs.push((tags_last(tags, l, np), lbn, l));
                    }
                }
                _ => broken.push(lbn),
            }
        }
        for lbn in broken {
            self.b
                .settle(lbn, &own[lbn as usize], &mut scan, nand)
                .map_err(super::RecoverError::flash("bast"))?;
        }
        logs.sort_unstable();
        for (_, lbn, block) in logs {
            let s = self.free_slots.pop().expect("counted above");
            let next = nand.write_ptr(BlockId(block));
            let in_order =
                (0..next).all(|p| self.b.offset_of_lpn(nand.oob(self.b.page(block, p)).lpn) == p);
            self.slots[s as usize] = LogSlot {
                block,
                lbn,
                next,
                in_order,
                ..EMPTY
            };
            self.log_of[lbn as usize] = s;
            self.push_newest(s);
            for page in 0..next {
                let p = self.b.page(block, page);
                if nand.is_valid(p) {
                    let off = self.b.split(nand.oob(p).lpn).1;
                    self.page_map[(s * np + off) as usize] = page as u16 + 1;
                }
            }
        }
        self.mapped = Bits::new(self.b.logical_pages as usize);
        for (l, &w) in scan.newest.iter().enumerate() {
            if w != 0 {
                self.mapped.set(l as u32);
            }
        }
        self.recovery_merges += scan.merges;
        Ok(())
    }

    fn check_invariants(&self, nand: &Nand) {
        let mut active = 0;
        for (s, sl) in self.slots.iter().enumerate() {
            if sl.block == NIL {
                assert!(self.free_slots.contains(&(s as u32)), "slot {s} lost");
                continue;
            }
            active += 1;
            assert_eq!(self.log_of[sl.lbn as usize], s as u32, "slot {s} owner");
            assert_eq!(self.b.role[sl.block as usize], Role::Log, "slot {s} block");
            assert_eq!(nand.write_ptr(BlockId(sl.block)), sl.next, "slot {s} fill");
            for page in 0..sl.next {
                let ppn = self.b.page(sl.block, page);
                let (lbn, off) = self.b.split(nand.oob(ppn).lpn);
                assert_eq!(lbn, sl.lbn, "log block {} holds another lbn", sl.block);
                if sl.in_order {
                    assert_eq!(off, page, "in-order log block {}", sl.block);
                }
                if nand.is_valid(ppn) {
                    assert_eq!(
                        self.page_map[s * self.b.np as usize + off as usize] as u32,
                        page + 1,
                        "page map of slot {s} misses its valid page {page}"
                    );
                }
            }
        }
        assert_eq!(active + self.free_slots.len(), self.slots.len());
        let mut n = 0;
        let mut s = self.oldest;
        while s != NIL {
            n += 1;
            s = self.slots[s as usize].newer;
        }
        assert_eq!(n, active, "victim list");
        let logs = self.b.role.iter().filter(|&&r| r == Role::Log).count();
        assert_eq!(logs, active, "log blocks vs active slots");
        self.b.check(nand, |l| self.locate(l, &mut 0));
    }
}
