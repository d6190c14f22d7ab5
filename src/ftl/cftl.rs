//! CFTL — clustered FTL (K. Park, D.-H. Kim, "A Clustered Flash Translation Layer for
//! Mobile Storage Systems", IEEK 2008; system.md §3, algorithms.md §2.11).
//!
//! ```text
//! clustered hash table: one node per cluster of `subblock_factor` (SBF) consecutive keys,
//!     node = tag (key / SBF) + next + SBF slots        (Talluri et al.'s clustered page table)
//! coarse table: key = lbn, slot = (primary P, replacement R, hit count)
//! long / short fine tables: key = lpn, slot = (ppn, R bit, M bit[, hit count in long])
//! lookup(lpn):  short → long → coarse (P[off], else scan R), in that order
//!     hit in long:   R = 1; hits += 1; hits = threshold → move to short
//!     hit in coarse: hits(lbn) += 1; hits = threshold → lpn's translation into long
//!                    (counts reset on promotion)
//! write(lpn):   lookup; invalidate the old copy; P[off] erased → in place, else append to
//!               R (fold when full); a fine entry takes the new address and sets M = 1
//! every `nur_period_lookups` lookups (NUR, Table 1 of the paper):
//!     entries with (R, M) = (0, 0) go back to coarse (their fine slot is freed);
//!     then R and M are cleared everywhere
//! ```
//! The fine tables are a two-level software TLB over NFTL-style blocks (NAND side:
//! [`super::twolevel`]), so demoting an entry only frees its slot — the coarse table can
//! always find the page — and a fold updates the fine entries of the pages it moves.
//!
//! Choices the paper leaves open, fixed here as parameters (defaults in brackets):
//! promotion threshold [`promote_hits` = 4 hits, the same for both steps as the paper
//! says]; NUR period [8,192 host lookups]; the coarse hit count is kept per logical block
//! (a per-page count would cost as much RAM as a page table); both R and M are cleared each
//! period (a write sets M, a read or write hit sets R, so an entry survives a period if it
//! was used in it); a promotion into a table whose node pool is full waits
//! [`full = "wait"`: demotion only happens by the NUR rule, the only one the paper gives] or
//! evicts the node of the lowest NUR class (`full = "evict"`: a clock scan from a rotating
//! hand, first node of class (R,M) = (0,0) else the lowest seen in one revolution; a node's
//! class is its highest slot's); entries enter a fine table with R = 1 (the promoting
//! access is a use).
//!
//! Mapping memory (bytes), from the structures below, with 4-byte tags, links and block /
//! page numbers, 2 NUR bits per fine slot and 4-bit hit counters, per table
//! `buckets·4 + nodes·(tag 4 + next 4 + SBF·slot)`:
//! coarse slot = P 4 + R 4 + ½ (hit count), nodes = ⌈BL / SBF⌉;
//! long slot = ppn 4 + ¼ (R, M) + ½ (hit count), nodes = ⌈long_slots / SBF⌉;
//! short slot = ppn 4 + ¼ (R, M), nodes = ⌈short_slots / SBF⌉;
//! bit fields rounded up to whole bytes per node. With SBF = 8 a fine node is 40 B + bits
//! for 8 slots, about 5.75–6.25 B per slot with its bucket, against AFTL's 24: the
//! quarter of Table 3 (whose figures, 5 B vs 20 B per slot, leave out buckets and bits).

use super::hash::{ChainedHash, NIL, WORD_BYTES};
use super::twolevel::{self, Blocks, Placement, check_mapping};
use super::{Ftl, FtlConfig, FtlError};
use crate::nand::{Cause, Geometry, Lpn, Nand, Ppn};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a promotion does when the target table has no free node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FullPolicy {
    /// The promotion waits for the periodic NUR demotion to free a slot.
    #[default]
    Wait,
    /// The node of the lowest NUR class is demoted to make room.
    Evict,
}

/// `[ftl.cftl]`: CFTL settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CftlConfig {
    /// Slots of the short fine-grained table (L1 of the paper's MFS).
    pub short_slots: u32,
    /// Slots of the long fine-grained table (L2; the paper uses 4 × L1).
    pub long_slots: u32,
    /// Consecutive keys per clustered-hash node (the paper's subblock factor).
    pub subblock_factor: u32,
    /// Hits that promote coarse → long and long → short (1–15).
    pub promote_hits: u32,
    /// Host lookups between NUR sweeps.
    pub nur_period_lookups: u32,
    /// Promotion into a full table: wait or evict.
    pub full: FullPolicy,
}

impl Default for CftlConfig {
    fn default() -> Self {
        CftlConfig {
            short_slots: 2_500,
            long_slots: 10_000,
            subblock_factor: 8,
            promote_hits: 4,
            nur_period_lookups: 8_192,
            full: FullPolicy::Wait,
        }
    }
}

impl CftlConfig {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), String> {
        if self.short_slots == 0 || self.long_slots == 0 {
            return Err("ftl.cftl.short_slots and long_slots must be at least 1".into());
        }
        if !(1..=64).contains(&self.subblock_factor) {
            return Err(format!(
                "ftl.cftl.subblock_factor = {}: expected 1 to 64",
                self.subblock_factor
            ));
        }
        if !(1..=15).contains(&self.promote_hits) {
            return Err(format!(
                "ftl.cftl.promote_hits = {}: expected 1 to 15 (4-bit counters)",
                self.promote_hits
            ));
        }
        if self.nur_period_lookups == 0 {
            return Err("ftl.cftl.nur_period_lookups must be at least 1".into());
        }
        Ok(())
    }
}

const R_BIT: u8 = 1;
const M_BIT: u8 = 2;
/// Bits of a hit counter.
const HIT_BITS: u64 = 4;
/// Bits of the NUR (R, M) pair.
const NUR_BITS: u64 = 2;

fn bits_to_bytes(bits: u64) -> u64 {
    bits.div_ceil(8)
}

/// A clustered fine-grained table: lpn → ppn with NUR bits (and hit counts).
#[derive(Clone, Debug)]
struct FineTable {
    index: ChainedHash,
    sbf: u32,
    /// Per slot (`node · SBF + lpn % SBF`): ppn or `NIL`.
    ppn: Vec<u32>,
    /// Per slot: R and M bits.
    nur: Vec<u8>,
    /// Per slot hit counts (long table only; empty otherwise).
    hits: Vec<u8>,
    /// Live slots per node (derivable from `ppn`, so not counted as RAM).
    used: Vec<u8>,
    hand: u32,
}

impl FineTable {
    fn new(slots: u32, sbf: u32, with_hits: bool) -> FineTable {
        let nodes = slots.div_ceil(sbf);
        let n = (nodes * sbf) as usize;
        FineTable {
            index: ChainedHash::new(nodes, nodes),
            sbf,
            ppn: vec![NIL; n],
            nur: vec![0; n],
            hits: if with_hits { vec![0; n] } else { Vec::new() },
            used: vec![0; nodes as usize],
            hand: 0,
        }
    }

    fn bytes(&self) -> u64 {
        let nodes = self.index.capacity() as u64;
        let sbf = self.sbf as u64;
        let hit_bits = if self.hits.is_empty() { 0 } else { HIT_BITS };
        self.index.bytes()
            + nodes * sbf * WORD_BYTES
            + nodes * bits_to_bytes(sbf * NUR_BITS)
            + nodes * bits_to_bytes(sbf * hit_bits)
    }

    /// Slot of `lpn` (or `NIL`) and probes.
    #[inline]
    fn find(&self, lpn: u32) -> (u32, u32) {
        let (n, probes) = self.index.find(lpn / self.sbf);
        if n == NIL {
            return (NIL, probes);
        }
        let s = n * self.sbf + lpn % self.sbf;
        (if self.ppn[s as usize] != NIL { s } else { NIL }, probes)
    }

    /// Whether `lpn` could be inserted without evicting (its node exists or one is free).
    fn has_room(&self, lpn: u32) -> bool {
        !self.index.is_full() || self.index.find(lpn / self.sbf).0 != NIL
    }

    /// Inserts `lpn` (absent) with `nur` bits; the caller made room. Returns the slot.
    fn insert(&mut self, lpn: u32, ppn: u32, nur: u8) -> u32 {
        let key = lpn / self.sbf;
        let mut n = self.index.find(key).0;
        if n == NIL {
            n = self.index.insert(key);
            debug_assert!(n != NIL, "no room");
        }
        let s = n * self.sbf + lpn % self.sbf;
        debug_assert_eq!(self.ppn[s as usize], NIL);
        self.ppn[s as usize] = ppn;
        self.nur[s as usize] = nur;
        if !self.hits.is_empty() {
            self.hits[s as usize] = 0;
        }
        self.used[n as usize] += 1;
        s
    }

    /// Frees slot `s`, and its node when it was the last.
    fn clear(&mut self, s: u32) {
        debug_assert!(self.ppn[s as usize] != NIL);
        self.ppn[s as usize] = NIL;
        self.nur[s as usize] = 0;
        let n = s / self.sbf;
        self.used[n as usize] -= 1;
        if self.used[n as usize] == 0 {
            let key = self.index.key(n);
            self.index.remove(key);
        }
    }

    /// Logical page of slot `s`.
    fn lpn_of(&self, s: u32) -> u32 {
        self.index.key(s / self.sbf) * self.sbf + s % self.sbf
    }

    /// The periodic NUR pass: frees (0,0) slots, clears R and M on the rest; returns the
    /// slots demoted.
    fn sweep(&mut self) -> u64 {
        let mut demoted = 0;
        for n in 0..self.index.capacity() {
            if self.index.key(n) == NIL {
                continue;
            }
            for s in n * self.sbf..(n + 1) * self.sbf {
                if self.ppn[s as usize] == NIL {
                    continue;
                }
                if self.nur[s as usize] == 0 {
                    self.clear(s);
                    demoted += 1;
                } else {
                    self.nur[s as usize] = 0;
                }
            }
        }
        demoted
    }

    /// Evicts the node of the lowest NUR class (clock order); returns the slots freed.
    fn evict(&mut self) -> u64 {
        let cap = self.index.capacity();
        let mut best = NIL;
        let mut best_class = u8::MAX;
        for _ in 0..cap {
            let n = self.hand;
            self.hand = (self.hand + 1) % cap;
            if self.index.key(n) == NIL {
                continue;
            }
            let base = (n * self.sbf) as usize;
            let class = (0..self.sbf as usize)
                .filter(|&i| self.ppn[base + i] != NIL)
                .map(|i| self.nur[base + i])
                .max()
                .unwrap_or(0);
            if class < best_class {
                best = n;
                best_class = class;
                if class == 0 {
                    break;
                }
            }
        }
        debug_assert!(best != NIL, "evict from an empty table");
        let mut freed = 0;
        for s in best * self.sbf..(best + 1) * self.sbf {
            if self.ppn[s as usize] != NIL {
                self.clear(s);
                freed += 1;
            }
        }
        freed
    }

    fn check(&self, what: &str) {
        self.index.check();
        for n in 0..self.index.capacity() {
            let live = (n * self.sbf..(n + 1) * self.sbf)
                .filter(|&s| self.ppn[s as usize] != NIL)
                .count() as u8;
            if self.index.key(n) == NIL {
                assert_eq!(live, 0, "{what}: free node {n} holds entries");
            } else {
                assert!(live > 0, "{what}: empty node {n} kept");
            }
            assert_eq!(live, self.used[n as usize], "{what}: node {n} count");
        }
    }
}

/// Where a lookup found a page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Short(u32),
    Long(u32),
    Coarse,
}

/// CFTL state.
pub struct Cftl {
    cfg: CftlConfig,
    np: u32,
    sbf: u32,
    logical_pages: u32,
    gc_low: u32,
    gc_high: u32,
    blocks: Blocks,
    coarse: ChainedHash,
    coarse_p: Vec<u32>,
    coarse_r: Vec<u32>,
    coarse_hits: Vec<u8>,
    short: FineTable,
    long: FineTable,
    since_sweep: u32,
    lookups: u64,
    probes: u64,
    short_hits: u64,
    long_hits: u64,
    coarse_lookups: u64,
    promotions_long: u64,
    promotions_short: u64,
    promotions_waiting: u64,
    demotions_nur: u64,
    demotions_evict: u64,
    sweeps: u64,
    folds: u64,
    forced_folds: u64,
    fold_copies: u64,
    fold_fine_updates: u64,
}

/// Builds a CFTL.
pub fn build(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> Result<Box<dyn Ftl>, String> {
    Ok(Box::new(Cftl::new(cfg, geo, logical_pages)?))
}

impl Cftl {
    /// A CFTL over an erased array of shape `geo`.
    pub fn new(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> Result<Cftl, String> {
        let c = &cfg.cftl;
        c.validate()?;
        let lbns = twolevel::check_capacity("cftl", cfg, geo, logical_pages)?;
        let sbf = c.subblock_factor;
        let coarse_nodes = lbns.div_ceil(sbf);
        let coarse_slots = (coarse_nodes * sbf) as usize;
        Ok(Cftl {
            cfg: c.clone(),
            np: geo.pages_per_block,
            sbf,
            logical_pages: logical_pages as u32,
            gc_low: cfg.gc_low_free_blocks,
            gc_high: cfg.gc_high_free_blocks,
            blocks: Blocks::new(geo, cfg.dynamic_wl),
            coarse: ChainedHash::new(coarse_nodes, coarse_nodes),
            coarse_p: vec![NIL; coarse_slots],
            coarse_r: vec![NIL; coarse_slots],
            coarse_hits: vec![0; coarse_slots],
            short: FineTable::new(c.short_slots, sbf, false),
            long: FineTable::new(c.long_slots, sbf, true),
            since_sweep: 0,
            lookups: 0,
            probes: 0,
            short_hits: 0,
            long_hits: 0,
            coarse_lookups: 0,
            promotions_long: 0,
            promotions_short: 0,
            promotions_waiting: 0,
            demotions_nur: 0,
            demotions_evict: 0,
            sweeps: 0,
            folds: 0,
            forced_folds: 0,
            fold_copies: 0,
            fold_fine_updates: 0,
        })
    }

    /// RAM of the coarse clustered table (bytes).
    pub fn coarse_bytes(&self) -> u64 {
        let nodes = self.coarse.capacity() as u64;
        let sbf = self.sbf as u64;
        self.coarse.bytes() + nodes * sbf * 2 * WORD_BYTES + nodes * bits_to_bytes(sbf * HIT_BITS)
    }

    /// RAM of the two fine clustered tables (bytes).
    pub fn fine_bytes(&self) -> u64 {
        self.short.bytes() + self.long.bytes()
    }

    /// Coarse slot of `lbn` (or `NIL`) and probes.
    #[inline]
    fn coarse_slot(&self, lbn: u32) -> (u32, u32) {
        let (n, probes) = self.coarse.find(lbn / self.sbf);
        if n == NIL {
            return (NIL, probes);
        }
        (n * self.sbf + lbn % self.sbf, probes)
    }

    /// Coarse slot of `lbn`, creating its cluster node on first use.
    fn coarse_slot_mut(&mut self, lbn: u32) -> u32 {
        let (s, _) = self.coarse_slot(lbn);
        if s != NIL {
            return s;
        }
        let n = self.coarse.insert(lbn / self.sbf);
        debug_assert!(n != NIL, "coarse pool sized for every cluster");
        n * self.sbf + lbn % self.sbf
    }

    /// Where `lpn` lives, at which level, probes taken. No side effects.
    #[inline]
    fn find(&self, lpn: Lpn, nand: &Nand) -> (Option<Ppn>, Level, u32) {
        let (s, mut probes) = self.short.find(lpn.0);
        if s != NIL {
            return (
                Some(Ppn(self.short.ppn[s as usize])),
                Level::Short(s),
                probes,
            );
        }
        let (s, p2) = self.long.find(lpn.0);
        probes += p2;
        if s != NIL {
            return (Some(Ppn(self.long.ppn[s as usize])), Level::Long(s), probes);
        }
        let (c, p3) = self.coarse_slot(lpn.0 / self.np);
        probes += p3;
        if c == NIL {
            return (None, Level::Coarse, probes);
        }
        let (loc, p4) = self.blocks.locate(
            nand,
            self.coarse_p[c as usize],
            self.coarse_r[c as usize],
            lpn,
            lpn.0 % self.np,
        );
        (loc, Level::Coarse, probes + p4)
    }

    /// Makes room in `long` (or `short`) for `lpn`; false if it must wait.
    fn room(&mut self, short: bool, lpn: u32) -> bool {
        let full = self.cfg.full;
        let t = if short {
            &mut self.short
        } else {
            &mut self.long
        };
        if t.has_room(lpn) {
            return true;
        }
        match full {
            FullPolicy::Wait => false,
            FullPolicy::Evict => {
                self.demotions_evict += t.evict();
                true
            }
        }
    }

    /// A host-path lookup: counted, with hit counting, promotion and the NUR clock.
    fn lookup_counted(&mut self, lpn: Lpn, nand: &Nand) -> (Option<Ppn>, Level) {
        self.since_sweep += 1;
        if self.since_sweep >= self.cfg.nur_period_lookups {
            self.since_sweep = 0;
            self.sweeps += 1;
            self.demotions_nur += self.short.sweep() + self.long.sweep();
        }
        let (loc, level, probes) = self.find(lpn, nand);
        self.lookups += 1;
        self.probes += probes as u64;
        let threshold = self.cfg.promote_hits as u8;
        let level = match level {
            Level::Short(s) => {
                self.short_hits += 1;
                self.short.nur[s as usize] |= R_BIT;
                level
            }
            Level::Long(s) => {
                self.long_hits += 1;
                let i = s as usize;
                self.long.nur[i] |= R_BIT;
                self.long.hits[i] = (self.long.hits[i] + 1).min(threshold);
                if self.long.hits[i] >= threshold {
                    if self.room(true, lpn.0) {
                        let (ppn, nur) = (self.long.ppn[i], self.long.nur[i]);
                        self.long.clear(s);
                        self.promotions_short += 1;
                        Level::Short(self.short.insert(lpn.0, ppn, nur | R_BIT))
                    } else {
                        self.promotions_waiting += 1;
                        level
                    }
                } else {
                    level
                }
            }
            Level::Coarse => {
                self.coarse_lookups += 1;
                match loc {
                    None => level,
                    Some(ppn) => {
                        let c = self.coarse_slot(lpn.0 / self.np).0 as usize;
                        self.coarse_hits[c] = (self.coarse_hits[c] + 1).min(threshold);
                        if self.coarse_hits[c] >= threshold {
                            if self.room(false, lpn.0) {
                                self.coarse_hits[c] = 0;
                                self.promotions_long += 1;
                                Level::Long(self.long.insert(lpn.0, ppn.0, R_BIT))
                            } else {
                                self.promotions_waiting += 1;
                                level
                            }
                        } else {
                            level
                        }
                    }
                }
            }
        };
        (loc, level)
    }

    /// Folds the logical block of coarse slot `c`; fine entries of moved pages follow.
    fn fold(&mut self, c: u32, nand: &mut Nand) -> Result<(), FtlError> {
        let lbn = self.coarse.key(c / self.sbf) * self.sbf + c % self.sbf;
        let (p, r) = (self.coarse_p[c as usize], self.coarse_r[c as usize]);
        let (short, long) = (&mut self.short, &mut self.long);
        let mut updates = 0;
        let f = self.blocks.fold(
            nand,
            lbn,
            p,
            r,
            |_| false,
            |lpn, dst, _| {
                for t in [&mut *short, &mut *long] {
                    let (s, _) = t.find(lpn.0);
                    if s != NIL {
                        t.ppn[s as usize] = dst.0;
                        updates += 1;
                        break;
                    }
                }
            },
        )?;
        debug_assert!(!f.detached);
        self.fold_fine_updates += updates;
        self.folds += 1;
        self.fold_copies += f.copies as u64;
        self.coarse_p[c as usize] = f.primary;
        self.coarse_r[c as usize] = NIL;
        Ok(())
    }

    /// Folds the oldest replacement blocks until `gc_high` blocks are free.
    #[cold]
    fn reclaim(&mut self, nand: &mut Nand) -> Result<(), FtlError> {
        while self.blocks.free_count() < self.gc_high {
            let Some(r) = self.blocks.oldest_replacement() else {
                break;
            };
            let c = self.coarse_slot(self.blocks.owner(r)).0;
            self.forced_folds += 1;
            self.fold(c, nand)?;
        }
        if self.blocks.free_count() == 0 {
            return Err(FtlError::OutOfSpace { plane: 0 });
        }
        Ok(())
    }

    fn fine_clear(&mut self, level: Level) {
        match level {
            Level::Short(s) => self.short.clear(s),
            Level::Long(s) => self.long.clear(s),
            Level::Coarse => {}
        }
    }
}

impl Ftl for Cftl {
    fn name(&self) -> &'static str {
        "cftl"
    }

    fn logical_pages(&self) -> u64 {
        self.logical_pages as u64
    }

    fn read(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<Option<Ppn>, FtlError> {
        let (loc, _) = self.lookup_counted(lpn, nand);
        if let Some(ppn) = loc {
            nand.read(ppn, Cause::Host);
        }
        Ok(loc)
    }

    fn lookup(&self, lpn: Lpn, nand: &Nand) -> Option<Ppn> {
        self.find(lpn, nand).0
    }

    fn write(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        if self.blocks.free_count() < self.gc_low {
            self.reclaim(nand)?;
        }
        let (old, level) = self.lookup_counted(lpn, nand);
        if let Some(old) = old {
            nand.invalidate(old);
        }
        let lbn = lpn.0 / self.np;
        let off = lpn.0 % self.np;
        let c = self.coarse_slot_mut(lbn);
        let (mut p, mut r) = (self.coarse_p[c as usize], self.coarse_r[c as usize]);
        let placed = self.blocks.place(nand, lbn, off, &mut p, &mut r)?;
        self.coarse_p[c as usize] = p;
        self.coarse_r[c as usize] = r;
        let dst = match placed {
            Some(Placement::InPlace(ppn) | Placement::Appended(ppn)) => ppn,
            None => {
                // R is full: fold; the old copy is invalid, so the new primary's page
                // `off` is erased and the data goes there.
                self.fold(c, nand)?;
                self.blocks.page(self.coarse_p[c as usize], off)
            }
        };
        nand.program(dst, lpn, Cause::Host);
        match level {
            Level::Short(s) => {
                self.short.ppn[s as usize] = dst.0;
                self.short.nur[s as usize] |= M_BIT;
            }
            Level::Long(s) => {
                self.long.ppn[s as usize] = dst.0;
                self.long.nur[s as usize] |= M_BIT;
            }
            Level::Coarse => {}
        }
        Ok(())
    }

    fn trim(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let (old, level, _) = self.find(lpn, nand);
        self.fine_clear(level);
        if let Some(old) = old {
            nand.invalidate(old);
        }
        Ok(())
    }

    fn mapping_bytes(&self) -> u64 {
        self.coarse_bytes() + self.fine_bytes()
    }

    fn counters(&self, out: &mut BTreeMap<String, u64>) {
        out.insert("ftl.lookup.count".into(), self.lookups);
        out.insert("ftl.lookup.probes".into(), self.probes);
        out.insert("ftl.merge.full".into(), self.folds);
        out.insert("ftl.mapping.coarse_bytes".into(), self.coarse_bytes());
        out.insert("ftl.mapping.fine_bytes".into(), self.fine_bytes());
        out.insert("ftl.cftl.short_hits".into(), self.short_hits);
        out.insert("ftl.cftl.long_hits".into(), self.long_hits);
        out.insert("ftl.cftl.coarse_lookups".into(), self.coarse_lookups);
        out.insert("ftl.cftl.promotions_long".into(), self.promotions_long);
        out.insert("ftl.cftl.promotions_short".into(), self.promotions_short);
        out.insert(
            "ftl.cftl.promotions_waiting".into(),
            self.promotions_waiting,
        );
        out.insert("ftl.cftl.demotions_nur".into(), self.demotions_nur);
        out.insert("ftl.cftl.demotions_evict".into(), self.demotions_evict);
        out.insert("ftl.cftl.nur_sweeps".into(), self.sweeps);
        out.insert("ftl.cftl.forced_folds".into(), self.forced_folds);
        out.insert("ftl.cftl.fold_copies".into(), self.fold_copies);
        out.insert("ftl.cftl.fold_fine_updates".into(), self.fold_fine_updates);
    }

    fn reserved_blocks(&self) -> u64 {
        self.gc_low as u64
    }

    fn programs_in_order(&self) -> bool {
        false
    }

    fn check_invariants(&self, nand: &Nand) {
        nand.check_invariants();
        self.blocks.check(nand);
        self.coarse.check();
        self.short.check("short");
        self.long.check("long");
        self.blocks
            .check_owners((0..self.coarse.capacity()).flat_map(|n| {
                let key = self.coarse.key(n);
                (0..self.sbf).filter_map(move |i| {
                    let s = (n * self.sbf + i) as usize;
                    (key != NIL && (self.coarse_p[s] != NIL || self.coarse_r[s] != NIL))
                        .then(|| (key * self.sbf + i, self.coarse_p[s], self.coarse_r[s]))
                })
            }));
        // A fine entry caches exactly what the coarse table finds; an lpn is in at most
        // one fine table.
        for (t, name) in [(&self.short, "short"), (&self.long, "long")] {
            for s in 0..t.ppn.len() as u32 {
                if t.ppn[s as usize] == NIL {
                    continue;
                }
                let lpn = t.lpn_of(s);
                let c = self.coarse_slot(lpn / self.np).0;
                assert!(c != NIL, "{name} entry of lpn {lpn} without coarse slot");
                let (loc, _) = self.blocks.locate(
                    nand,
                    self.coarse_p[c as usize],
                    self.coarse_r[c as usize],
                    Lpn(lpn),
                    lpn % self.np,
                );
                assert_eq!(
                    loc,
                    Some(Ppn(t.ppn[s as usize])),
                    "{name} entry of lpn {lpn}"
                );
            }
        }
        for s in 0..self.short.ppn.len() as u32 {
            if self.short.ppn[s as usize] != NIL {
                let lpn = self.short.lpn_of(s);
                assert_eq!(self.long.find(lpn).0, NIL, "lpn {lpn} in both fine tables");
            }
        }
        check_mapping(nand, self.logical_pages, |l| self.find(l, nand).0);
    }
}
