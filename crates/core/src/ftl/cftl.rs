//! CFTL — clustered FTL (K. Park, D.-H. Kim, "A Clustered Flash Translation Layer for
//! Mobile Storage Systems", IEEK 2008; docs/papers.md §3, docs/algorithms.md §2.11).
//!
//! ```text
//! clustered hash table: one node per cluster of `subblock_factor` (SBF) consecutive keys,
//!     node = tag (key / SBF) + next + SBF slots        (Talluri et al.'s clustered page table)
//! coarse table:            key = lbn, slot = (primary P, replacement R, hit count per
//!                          cluster of the block)
//! long / short fine table: key = lpn, slot = ppn; per node R bit, M bit (+ hit count in long)
//! lookup(lpn):  short → long → coarse (P[off], else scan R), in that order
//!     node in short:  slot answers (R = 1)
//!     node in long:   slot answers; R = 1; hits += 1; hits = threshold → node moves to short
//!     coarse found:   hits(cluster) += 1; = threshold → lpn's whole cluster is loaded
//!                     into long (each page through the coarse path); count reset
//!     (consecutive lookups in one cluster count as one hit: a sequential pass is one
//!      access, so only clusters used again are promoted)
//! write(lpn):   lookup; invalidate the old copy; P[off] erased → in place, else append to
//!               R (fold when full); a cached cluster's slot takes the new address, M = 1
//! every `nur_period_lookups` lookups (NUR, Table 1 of the paper):
//!     nodes with (R, M) = (0, 0) go back to coarse (their fine node is freed);
//!     then R and M are cleared everywhere
//! mount (power-up): blocks' roles and the coarse table from the OOB tags alone
//!     (`twolevel` mount); the short and long tables, hit counts and NUR bits only
//!     cache what the coarse table finds, in RAM: they start cold and fill again by
//!     promotion
//! ```
//! The fine tables are a two-level software TLB over NFTL-style blocks (NAND side:
//! [`super::twolevel`]; the FTL body shared with AFTL: [`super::twolevel_ftl`]). A fine node mirrors its whole cluster — writes, trims and folds
//! update the slots of cached clusters — so a node answers a lookup by itself (an empty
//! slot means unmapped), and demoting a node only frees it: the coarse table can always
//! find the pages. Loading whole clusters is what the paper's clustered table is for:
//! consecutive addresses used together share one node, so one promotion serves a run of
//! SBF pages (the ETRI version calls this prefetching).
//!
//! Choices the paper leaves open, fixed here as parameters (defaults in brackets):
//! promotion threshold [`promote_hits` = 2: promoted when used again, the same for both
//! steps as the paper says]; NUR period [8,192 host lookups]; the paper counts hits "per address": here per
//! cluster, the unit that moves (a 4-bit count per cluster of each logical block in the
//! coarse table, per node in the long table — a per-page count would cost as much RAM as
//! a page table), and a run of lookups inside one cluster counts once (otherwise every
//! sequential pass would promote everything it reads); the R and M bits are per node
//! too (a cluster moves as a whole); both bits are cleared each
//! period (a write sets M, any use sets R, so a node survives a period if it was used in
//! it); a promotion into a table whose node pool is full waits [`full = "wait"`: demotion
//! only happens by the NUR rule, the only one the paper gives] or evicts the node of the
//! lowest NUR class (`full = "evict"`: a clock scan from a rotating hand, first node of
//! class (R,M) = (0,0), else the lowest seen in one revolution); nodes enter a table with
//! R = 1 (the promoting access is a use). Two variants the paper argues against, for
//! comparisons only: `demotion = "lru"` drops the NUR sweep and lets a promotion into a
//! full table demote that table's least recently used node (the bookkeeping NUR is
//! said to avoid: two links per node instead of two bits); `levels = 1` keeps one fine
//! table of short + long slots (promotion coarse → fine only), the single level the
//! short/long split is meant to beat. Hit counts take 4 bits, or as many as a
//! threshold above 15 needs. The coarse-path lookups that load a cluster are
//! counted as probes of the lookup that triggered them (the firmware does them then).
//!
//! Mapping memory (bytes), from the structures below, with 4-byte tags, links and block /
//! page numbers, per table `buckets·4 + nodes·(tag 4 + next 4 + SBF·slot + bits)`:
//! coarse: slot = P 4 + R 4 + a 4-bit hit count per cluster of the block, nodes =
//! ⌈BL / SBF⌉;
//! long: slot = ppn 4, bits = R, M, 4-bit hit count, nodes = ⌈long_slots / SBF⌉;
//! short: slot = ppn 4, bits = R, M, nodes = ⌈short_slots / SBF⌉;
//! bit fields rounded up to whole bytes per node, one bucket per node. With SBF = 8 a fine
//! node is 41 B for 8 slots, 45 B with its bucket (5.6 B per slot), against AFTL's 24 B
//! per slot: the quarter of Table 3 (whose figures, 5 B vs 20 B per slot, leave out
//! buckets and bits).

use super::feasible;
use super::hash::{ChainedHash, LruList, NIL, WORD_BYTES};
use super::logblock::Bits;
use super::spec::{Caps, FtlSpec, Section};
use super::twolevel::Mounted;
use super::twolevel_ftl::{Core, FineMap, TwoLevelFtl};
use super::{Ftl, FtlConfig, FtlError};
use crate::nand::{Geometry, Lpn, Nand, Ppn};
use crate::spec::{ConfigError, Counter, Counters};
use serde::{Deserialize, Serialize};

/// Reported as `ftl.cftl.short_hits`.
pub const SHORT_HITS: Counter = Counter::total(
    "ftl.cftl.short_hits",
    "lookups",
    "lookups answered by the short (page-level) table",
);
/// Reported as `ftl.cftl.long_hits`.
pub const LONG_HITS: Counter = Counter::total(
    "ftl.cftl.long_hits",
    "lookups",
    "lookups answered by the long (cluster) table",
);
/// Reported as `ftl.cftl.coarse_lookups`.
pub const COARSE_LOOKUPS: Counter = Counter::total(
    "ftl.cftl.coarse_lookups",
    "lookups",
    "lookups that went to the coarse table",
);
/// Reported as `ftl.cftl.promotions_long`.
pub const PROMOTIONS_LONG: Counter = Counter::total(
    "ftl.cftl.promotions_long",
    "clusters",
    "clusters promoted into the long table",
);
/// Reported as `ftl.cftl.promotions_short`.
pub const PROMOTIONS_SHORT: Counter = Counter::total(
    "ftl.cftl.promotions_short",
    "entries",
    "entries promoted into the short table",
);
/// Reported as `ftl.cftl.promotions_waiting`.
pub const PROMOTIONS_WAITING: Counter = Counter::total(
    "ftl.cftl.promotions_waiting",
    "lookups",
    "promotions to the long table deferred: the cluster reached the threshold but the table had no room",
);
/// Reported as `ftl.cftl.demotions_nur`.
pub const DEMOTIONS_NUR: Counter = Counter::total(
    "ftl.cftl.demotions_nur",
    "entries",
    "entries demoted by the not-used-recently sweep",
);
/// Reported as `ftl.cftl.demotions_evict`.
pub const DEMOTIONS_EVICT: Counter = Counter::total(
    "ftl.cftl.demotions_evict",
    "entries",
    "entries demoted to make room",
);
/// Reported as `ftl.cftl.nur_sweeps`.
pub const NUR_SWEEPS: Counter = Counter::total(
    "ftl.cftl.nur_sweeps",
    "sweeps",
    "not-used-recently sweeps run",
);
/// Reported as `ftl.cftl.fold_fine_updates`.
pub const FOLD_FINE_UPDATES: Counter = Counter::total(
    "ftl.cftl.fold_fine_updates",
    "entries",
    "fine entries updated by folds",
);
/// Reported as `ftl.cftl.forced_folds`.
pub const FORCED_FOLDS: Counter = Counter::total(
    "ftl.cftl.forced_folds",
    "folds",
    "folds forced to free blocks",
);
/// Reported as `ftl.cftl.fold_copies`.
pub const FOLD_COPIES: Counter =
    Counter::total("ftl.cftl.fold_copies", "pages", "pages copied by folds");
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[
    SHORT_HITS,
    LONG_HITS,
    COARSE_LOOKUPS,
    PROMOTIONS_LONG,
    PROMOTIONS_SHORT,
    PROMOTIONS_WAITING,
    DEMOTIONS_NUR,
    DEMOTIONS_EVICT,
    NUR_SWEEPS,
    FOLD_FINE_UPDATES,
    FORCED_FOLDS,
    FOLD_COPIES,
];

/// CFTL in the registry.
pub const SPEC: FtlSpec = FtlSpec {
    name: "cftl",
    description: "CFTL (Park & Kim 2008): clustered hash tables, short/long fine tables, hit-count promotion, NUR demotion",
    caps: Caps {
        free_block_watermarks: true,
        ..Caps::BLOCK_MAPPED
    },
    sections: &[Section {
        key: "cftl",
        what: "CFTL's tables",
    }],
    validate: |cfg| cfg.cftl.validate(),
    need: feasible::two_level_need,
    memory_bytes: |cfg, geo, logical_pages| {
        feasible::logical_blocks(geo, logical_pages) * 16
            + (cfg.cftl.short_slots as u64 + cfg.cftl.long_slots as u64) * 16
    },
    counters: &[COUNTERS, super::twolevel::COUNTERS],
    build: |cfg, geo, logical_pages, _| build(cfg, geo, logical_pages),
};

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

/// How cached clusters leave the fine tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Demotion {
    /// The paper's not-used-recently rule: every `nur_period_lookups` lookups, nodes
    /// with (R, M) = (0, 0) go back to coarse (and `full` decides a promotion into a
    /// full table).
    #[default]
    Nur,
    /// The comparison the paper's NUR claim (LRU-like at low cost) is measured against:
    /// no periodic sweep; a promotion into a full table demotes that table's least
    /// recently used node (a doubly linked list per table, touched by every use).
    Lru,
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
    /// Demotion rule: NUR (the paper) or LRU.
    pub demotion: Demotion,
    /// Fine-grained levels: 2 (short and long, the paper) or 1 (one table of
    /// short_slots + long_slots, the variant the paper's two-level design is argued
    /// against).
    pub levels: u32,
}

impl Default for CftlConfig {
    fn default() -> Self {
        CftlConfig {
            short_slots: 2_500,
            long_slots: 10_000,
            subblock_factor: 8,
            promote_hits: 2,
            nur_period_lookups: 8_192,
            full: FullPolicy::Wait,
            demotion: Demotion::Nur,
            levels: 2,
        }
    }
}

impl CftlConfig {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (key, v) in [
            ("ftl.cftl.short_slots", self.short_slots),
            ("ftl.cftl.long_slots", self.long_slots),
        ] {
            if v == 0 {
                return Err(ConfigError::value(key, v, "at least 1"));
            }
        }
        if !(1..=64).contains(&self.subblock_factor) {
            // (64: the cluster loader tracks pending pages in a 64-bit mask.)
            return Err(ConfigError::value(
                "ftl.cftl.subblock_factor",
                self.subblock_factor,
                "1 to 64",
            ));
        }
        if !(1..=255).contains(&self.promote_hits) {
            return Err(ConfigError::value(
                "ftl.cftl.promote_hits",
                self.promote_hits,
                "1 to 255 (the counters take as many bits as the threshold needs, at least 4)",
            ));
        }
        if !(1..=2).contains(&self.levels) {
            return Err(ConfigError::value(
                "ftl.cftl.levels",
                self.levels,
                "1 or 2 fine-grained levels",
            ));
        }
        if self.nur_period_lookups == 0 {
            return Err(ConfigError::value(
                "ftl.cftl.nur_period_lookups",
                0,
                "at least 1",
            ));
        }
        Ok(())
    }
}

const R_BIT: u8 = 1;
const M_BIT: u8 = 2;
/// Bits of a hit counter at least (thresholds up to 15); a larger threshold takes as
/// many bits as it needs.
const HIT_BITS: u64 = 4;

/// Bits of a hit counter that counts up to `threshold`.
fn hit_bits(threshold: u32) -> u64 {
    HIT_BITS.max(u64::from(32 - threshold.leading_zeros()))
}
/// Bits of the NUR (R, M) pair.
const NUR_BITS: u64 = 2;

fn bits_to_bytes(bits: u64) -> u64 {
    bits.div_ceil(8)
}

/// A clustered fine-grained table: one node per cached cluster of SBF pages.
#[derive(Clone, Debug)]
struct FineTable {
    index: ChainedHash,
    sbf: u32,
    /// Per slot (`node · SBF + lpn % SBF`): ppn or `NIL` (unmapped).
    ppn: Vec<u32>,
    /// Per node: R and M bits.
    nur: Vec<u8>,
    /// Per node hit counts (long table only; empty otherwise).
    hits: Vec<u8>,
    hand: u32,
    /// Bits of each node's hit count (0: the table counts no hits).
    hit_bits: u64,
    /// LRU order of the nodes (`Demotion::Lru` only).
    order: Option<LruList>,
    /// Per cluster of the device: whether this table caches it. Simulator bookkeeping,
    /// not part of the firmware's table (not in `bytes`): it lets a fold skip the hash
    /// look-ups of the clusters no table caches, which is nearly all of them.
    cached: Bits,
}

impl FineTable {
    fn new(slots: u32, sbf: u32, hit_bits: u64, lru: bool, pages: u32) -> FineTable {
        let nodes = slots.div_ceil(sbf);
        let with_hits = hit_bits > 0;
        FineTable {
            index: ChainedHash::new(nodes, nodes),
            sbf,
            ppn: vec![NIL; (nodes * sbf) as usize],
            nur: vec![0; nodes as usize],
            hits: if with_hits {
                vec![0; nodes as usize]
            } else {
                Vec::new()
            },
            hand: 0,
            hit_bits,
            order: lru.then(|| LruList::new(nodes)),
            cached: Bits::new(pages.div_ceil(sbf) as usize),
        }
    }

    /// A use of node `n`: the R bit, and the front of the LRU list.
    fn touch(&mut self, n: u32) {
        self.nur[n as usize] |= R_BIT;
        if let Some(o) = &mut self.order {
            o.touch(n);
        }
    }

    fn bytes(&self) -> u64 {
        let nodes = self.index.capacity() as u64;
        // An LRU list costs two links per node; NUR its two bits.
        let order = if self.order.is_none() {
            bits_to_bytes(NUR_BITS + self.hit_bits)
        } else {
            2 * WORD_BYTES + bits_to_bytes(self.hit_bits)
        };
        self.index.bytes() + nodes * self.sbf as u64 * WORD_BYTES + nodes * order
    }

    /// Node caching `lpn`'s cluster (or `NIL`) and probes.
    #[inline]
    fn find(&self, lpn: u32) -> (u32, u32) {
        self.index.find(lpn / self.sbf)
    }

    /// Slot of `lpn` in node `n`.
    #[inline]
    fn slot(&self, n: u32, lpn: u32) -> usize {
        (n * self.sbf + lpn % self.sbf) as usize
    }

    /// Whether a new node fits without evicting.
    fn has_room(&self) -> bool {
        !self.index.is_full()
    }

    /// Caches `cluster` with the slots `ppns` and `nur` bits; the caller made room.
    fn insert(&mut self, cluster: u32, ppns: &[u32], nur: u8) -> u32 {
        let n = self.index.insert(cluster);
        debug_assert!(n != NIL, "no room");
        self.cached.set(cluster);
        let base = (n * self.sbf) as usize;
        self.ppn[base..base + self.sbf as usize].copy_from_slice(ppns);
        self.nur[n as usize] = nur;
        if !self.hits.is_empty() {
            self.hits[n as usize] = 0;
        }
        if let Some(o) = &mut self.order {
            o.push_mru(n);
        }
        n
    }

    /// Drops node `n`.
    fn remove(&mut self, n: u32) {
        if let Some(o) = &mut self.order {
            o.unlink(n);
        }
        let key = self.index.key(n);
        self.index.remove(key);
        self.cached.clear(key);
        let base = (n * self.sbf) as usize;
        self.ppn[base..base + self.sbf as usize].fill(NIL);
        self.nur[n as usize] = 0;
    }

    /// The periodic NUR pass: drops (0,0) nodes, clears R and M on the rest; returns the
    /// nodes demoted.
    fn sweep(&mut self) -> u64 {
        let mut demoted = 0;
        for n in 0..self.index.capacity() {
            if self.index.key(n) == NIL {
                continue;
            }
            if self.nur[n as usize] == 0 {
                self.remove(n);
                demoted += 1;
            } else {
                self.nur[n as usize] = 0;
            }
        }
        demoted
    }

    /// Drops the least recently used node (`Demotion::Lru`).
    fn evict_lru(&mut self) {
        let n = self.order.as_ref().map_or(NIL, LruList::lru);
        debug_assert!(n != NIL, "evict from an empty table");
        self.remove(n);
    }

    /// Drops the node of the lowest NUR class (clock order).
    fn evict(&mut self) {
        let cap = self.index.capacity();
        let mut best = NIL;
        let mut best_class = u8::MAX;
        for _ in 0..cap {
            let n = self.hand;
            self.hand = (self.hand + 1) % cap;
            if self.index.key(n) == NIL {
                continue;
            }
            let class = self.nur[n as usize];
            if class < best_class {
                best = n;
                best_class = class;
                if class == 0 {
                    break;
                }
            }
        }
        debug_assert!(best != NIL, "evict from an empty table");
        self.remove(best);
    }

    fn check(&self, what: &str) {
        self.index.check();
        for n in 0..self.index.capacity() {
            if self.index.key(n) == NIL {
                let base = (n * self.sbf) as usize;
                assert!(
                    self.ppn[base..base + self.sbf as usize]
                        .iter()
                        .all(|&p| p == NIL),
                    "{what}: free node {n} holds entries"
                );
            } else {
                assert!(
                    self.cached.get(self.index.key(n)),
                    "{what}: node {n} not marked cached"
                );
            }
        }
        assert_eq!(
            self.cached.count_ones(),
            self.index.len() as u64,
            "{what}: cached-cluster bits"
        );
        if let Some(o) = &self.order {
            o.check(self.index.len(), |n| self.index.key(n) != NIL, what);
        }
    }
}

/// Where a lookup found a page: the node caching its cluster, or the coarse table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Short(u32),
    Long(u32),
    /// Through the coarse table: the logical block's coarse slot (`NIL`: none yet).
    Coarse(u32),
}

/// CFTL: the shared two-level body over CFTL's clustered fine tables.
pub type Cftl = TwoLevelFtl<CftlFine>;

/// Builds a CFTL.
pub fn build(
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
) -> Result<Box<dyn Ftl>, ConfigError> {
    Ok(Box::new(Cftl::new(cfg, geo, logical_pages)?))
}

/// CFTL's own state: the short and long fine tables, the hit counts and the NUR clock.
#[derive(Clone)]
pub struct CftlFine {
    cfg: CftlConfig,
    np: u32,
    sbf: u32,
    /// Hit counts per cluster of each logical block (`cpb` per coarse slot).
    coarse_hits: Vec<u8>,
    /// Clusters per logical block (at least 1).
    cpb: usize,
    /// Cluster of the previous host lookup.
    last_cluster: u32,
    short: FineTable,
    long: FineTable,
    /// A cluster's translations while it is being loaded.
    cluster: Vec<u32>,
    since_sweep: u32,
    short_hits: u64,
    long_hits: u64,
    coarse_lookups: u64,
    promotions_long: u64,
    promotions_short: u64,
    promotions_waiting: u64,
    demotions_nur: u64,
    demotions_evict: u64,
    sweeps: u64,
    fold_fine_updates: u64,
}

impl CftlFine {
    /// Makes room for a node in `short` (or `long`); false if the promotion must wait.
    fn room(&mut self, short: bool) -> bool {
        let full = self.cfg.full;
        let t = if short {
            &mut self.short
        } else {
            &mut self.long
        };
        if t.has_room() {
            return true;
        }
        if t.order.is_some() {
            // LRU demotion: the least recently used node makes room.
            t.evict_lru();
            self.demotions_evict += 1;
            return true;
        }
        match full {
            FullPolicy::Wait => false,
            FullPolicy::Evict => {
                t.evict();
                self.demotions_evict += 1;
                true
            }
        }
    }

    /// Loads the translations of `lpn`'s cluster into `self.cluster` through the coarse
    /// table (one coarse lookup and one replacement-block scan per logical block the
    /// cluster covers); returns the probes and, of them, the block page slots examined.
    fn load_cluster(&mut self, core: &Core, lpn: u32, nand: &Nand) -> (u32, u32) {
        let first = lpn / self.sbf * self.sbf;
        let end = (first + self.sbf).min(core.logical_pages);
        self.cluster.fill(NIL);
        let (mut probes, mut slots) = (0, 0);
        let mut l = first;
        while l < end {
            let lbn = l / self.np;
            let run_end = ((lbn + 1) * self.np).min(end);
            let (c, p) = core.coarse_slot(lbn, self.sbf);
            probes += p;
            if c != NIL {
                let (i, j) = ((l - first) as usize, (run_end - first) as usize);
                let s = core.blocks.locate_run(
                    nand,
                    core.coarse_p[c as usize],
                    core.coarse_r[c as usize],
                    l,
                    &mut self.cluster[i..j],
                );
                probes += s;
                slots += s;
            }
            l = run_end;
        }
        (probes, slots)
    }

    /// Sets `lpn`'s slot in the fine table that caches its cluster, if any (writes, trims
    /// and folds keep cached clusters exact).
    fn fine_update(&mut self, lpn: u32, ppn: u32) -> bool {
        for t in [&mut self.short, &mut self.long] {
            let (n, _) = t.find(lpn);
            if n != NIL {
                let s = t.slot(n, lpn);
                t.ppn[s] = ppn;
                return true;
            }
        }
        false
    }

    /// After a fold of `lbn` into block `n`: points the cached slot of every moved page
    /// at its new address and returns how many slots changed. The moved pages are exactly
    /// the valid pages of `n` (a fold copies every live page of the block to its offset
    /// in a fresh block), so one look-up per cluster with a moved page replaces one per
    /// page; a cluster is cached in at most one table.
    fn follow_fold(&mut self, core: &Core, lbn: u32, n: u32, nand: &Nand) -> u64 {
        let first = lbn * self.np;
        let end = first + self.np;
        let mut updates = 0;
        let (c0, c1) = (first / self.sbf, (end - 1) / self.sbf);
        // The block's clusters 64 at a time: usually none is cached.
        for cs in (c0..=c1).step_by(64) {
            let len = (c1 + 1 - cs).min(64);
            let mut marks = self.short.cached.range(cs, len) | self.long.cached.range(cs, len);
            while marks != 0 {
                let cluster = cs + marks.trailing_zeros();
                marks &= marks - 1;
                let lo = (cluster * self.sbf).max(first);
                let hi = ((cluster + 1) * self.sbf).min(end);
                let t = if self.short.cached.get(cluster) {
                    &mut self.short
                } else {
                    &mut self.long
                };
                let base = core.blocks.page(n, lo - first);
                let mut bits = nand.valid_bits(base, hi - lo);
                let (node, _) = t.index.find(cluster);
                debug_assert!(node != NIL, "cluster {cluster} marked cached");
                updates += bits.count_ones() as u64;
                while bits != 0 {
                    let i = bits.trailing_zeros();
                    bits &= bits - 1;
                    let s = t.slot(node, lo + i);
                    t.ppn[s] = base.0 + i;
                }
            }
        }
        updates
    }
}

impl FineMap for CftlFine {
    const NAME: &'static str = "cftl";
    const FORCED_FOLDS: Counter = FORCED_FOLDS;
    const FOLD_COPIES: Counter = FOLD_COPIES;
    const DETACHES: bool = false;
    type Hit = Level;

    fn validate(cfg: &FtlConfig) -> Result<(), ConfigError> {
        cfg.cftl.validate()
    }

    fn new(cfg: &FtlConfig, geo: &Geometry, lbns: u32) -> CftlFine {
        let c = &cfg.cftl;
        let sbf = c.subblock_factor;
        let coarse_slots = (lbns.div_ceil(sbf) * sbf) as usize;
        let cpb = geo.pages_per_block.div_ceil(sbf) as usize;
        let lru = c.demotion == Demotion::Lru;
        CftlFine {
            cfg: c.clone(),
            np: geo.pages_per_block,
            sbf,
            coarse_hits: vec![0; coarse_slots * cpb],
            cpb,
            last_cluster: NIL,
            // Cached-cluster bits cover whole logical blocks (a fold checks all of one).
            // One level: a single table of every slot (the long one, which counts the
            // hits); the short table is left unused at one node.
            short: FineTable::new(
                if c.levels == 1 { sbf } else { c.short_slots },
                sbf,
                0,
                lru,
                lbns * geo.pages_per_block,
            ),
            long: FineTable::new(
                if c.levels == 1 {
                    c.short_slots + c.long_slots
                } else {
                    c.long_slots
                },
                sbf,
                hit_bits(c.promote_hits),
                lru,
                lbns * geo.pages_per_block,
            ),
            cluster: vec![NIL; sbf as usize],
            since_sweep: 0,
            short_hits: 0,
            long_hits: 0,
            coarse_lookups: 0,
            promotions_long: 0,
            promotions_short: 0,
            promotions_waiting: 0,
            demotions_nur: 0,
            demotions_evict: 0,
            sweeps: 0,
            fold_fine_updates: 0,
        }
    }

    /// The coarse table is clustered too: SBF logical blocks per node.
    #[inline(always)]
    fn coarse_cluster(&self) -> u32 {
        self.sbf
    }

    /// Short, then long, then coarse.
    #[inline]
    fn find(&self, core: &Core, lpn: Lpn, nand: &Nand) -> (Option<Ppn>, Level, u32, u32) {
        let slot_ppn = |t: &FineTable, n: u32| {
            let p = t.ppn[t.slot(n, lpn.0)];
            (p != NIL).then_some(Ppn(p))
        };
        // One level: the short table is not consulted (and costs no probe).
        let (n, mut probes) = if self.cfg.levels == 1 {
            (NIL, 0)
        } else {
            self.short.find(lpn.0)
        };
        if n != NIL {
            return (slot_ppn(&self.short, n), Level::Short(n), probes, 0);
        }
        let (n, p2) = self.long.find(lpn.0);
        probes += p2;
        if n != NIL {
            return (slot_ppn(&self.long, n), Level::Long(n), probes, 0);
        }
        let (loc, c, p3, slots) = core.find_coarse(lpn.0, self.sbf, nand);
        (loc, Level::Coarse(c), probes + p3, slots)
    }

    /// With hit counting, promotion and the NUR clock.
    fn lookup(&mut self, core: &mut Core, lpn: Lpn, nand: &Nand) -> (Option<Ppn>, Level, u32, u32) {
        self.since_sweep += 1;
        if self.cfg.demotion == Demotion::Nur && self.since_sweep >= self.cfg.nur_period_lookups {
            self.since_sweep = 0;
            self.sweeps += 1;
            self.demotions_nur += self.short.sweep() + self.long.sweep();
        }
        let (loc, level, mut probes, mut slots) = self.find(core, lpn, nand);
        let threshold = self.cfg.promote_hits as u8;
        // Consecutive lookups inside one cluster are one access to it: a sequential
        // pass counts once, so only clusters used again get promoted.
        let cluster = lpn.0 / self.sbf;
        let counts = cluster != self.last_cluster;
        self.last_cluster = cluster;
        let level = match level {
            Level::Short(n) => {
                self.short_hits += 1;
                self.short.touch(n);
                level
            }
            Level::Long(n) => {
                self.long_hits += 1;
                let i = n as usize;
                self.long.touch(n);
                if counts {
                    self.long.hits[i] = (self.long.hits[i] + 1).min(threshold);
                }
                // One level: there is no short table to promote into.
                if self.cfg.levels == 1 || self.long.hits[i] < threshold {
                    level
                } else if self.room(true) {
                    let base = (n * self.sbf) as usize;
                    let sbf = self.sbf as usize;
                    self.cluster
                        .copy_from_slice(&self.long.ppn[base..base + sbf]);
                    let nur = self.long.nur[i];
                    let key = self.long.index.key(n);
                    self.long.remove(n);
                    self.promotions_short += 1;
                    Level::Short(self.short.insert(key, &self.cluster, nur | R_BIT))
                } else {
                    self.promotions_waiting += 1;
                    level
                }
            }
            Level::Coarse(c) => {
                self.coarse_lookups += 1;
                if loc.is_some() {
                    let h = c as usize * self.cpb + ((lpn.0 % self.np) / self.sbf) as usize;
                    if counts {
                        self.coarse_hits[h] = (self.coarse_hits[h] + 1).min(threshold);
                    }
                    if self.coarse_hits[h] < threshold {
                        level
                    } else if self.room(false) {
                        self.coarse_hits[h] = 0;
                        let (p, s) = self.load_cluster(core, lpn.0, nand);
                        probes += p;
                        slots += s;
                        self.promotions_long += 1;
                        let n = self.long.insert(lpn.0 / self.sbf, &self.cluster, R_BIT);
                        Level::Long(n)
                    } else {
                        self.promotions_waiting += 1;
                        level
                    }
                } else {
                    level
                }
            }
        };
        (loc, level, probes, slots)
    }

    /// A coarse-level lookup found the slot already (slots never move).
    #[inline]
    fn coarse_slot_found(level: Level) -> Option<u32> {
        match level {
            Level::Coarse(c) if c != NIL => Some(c),
            _ => None,
        }
    }

    /// The old copy is invalidated at once (a fold then finds the new primary's page
    /// `off` erased and programs the data there).
    #[inline]
    fn release(
        &mut self,
        _: &mut Core,
        _: Level,
        old: Option<Ppn>,
        nand: &mut Nand,
    ) -> Option<Ppn> {
        if let Some(old) = old {
            nand.invalidate(old);
        }
        None
    }

    #[inline]
    fn invalidate(&mut self, _: &mut Core, ppn: Ppn, nand: &mut Nand) {
        nand.invalidate(ppn);
    }

    /// Folds the logical block of coarse slot `c` (every live page copied: CFTL defers
    /// nothing); cached slots of moved pages follow.
    fn fold(
        &mut self,
        core: &mut Core,
        c: u32,
        host: Option<Lpn>,
        _forced: bool,
        nand: &mut Nand,
    ) -> Result<(), FtlError> {
        let lbn = core.lbn_of(c, self.sbf);
        let f = core.fold(c, self.sbf, host, nand, |_| false, |_, _| {})?;
        debug_assert!(!f.detached);
        self.fold_fine_updates += self.follow_fold(core, lbn, f.primary, nand);
        Ok(())
    }

    /// A cached cluster's slot takes the new address; the write sets its node's M bit.
    #[inline]
    fn written(&mut self, _: &mut Core, lpn: Lpn, level: Level, dst: Ppn, _: bool, _: &mut Nand) {
        match level {
            Level::Short(n) => {
                let s = self.short.slot(n, lpn.0);
                self.short.ppn[s] = dst.0;
                self.short.nur[n as usize] |= M_BIT;
            }
            Level::Long(n) => {
                let s = self.long.slot(n, lpn.0);
                self.long.ppn[s] = dst.0;
                self.long.nur[n as usize] |= M_BIT;
            }
            Level::Coarse(_) => {}
        }
    }

    fn trimmed(&mut self, lpn: Lpn, _: Level, mapped: bool) {
        if mapped {
            self.fine_update(lpn.0, NIL);
        }
    }

    /// The fold then checks which of the block's clusters the fine tables cache.
    #[inline]
    fn prefetch_victim(&self, lbn: u32) {
        let cluster = lbn * self.np / self.sbf;
        self.short.cached.prefetch(cluster);
        self.long.cached.prefetch(cluster);
    }

    #[inline]
    fn prefetch(&self, lpn: u32) {
        let cluster = lpn / self.sbf;
        self.short.index.prefetch(cluster);
        self.long.index.prefetch(cluster);
    }

    /// The nodes at the chains' heads and the entries they index (slots, NUR bits and
    /// hit counts).
    #[inline]
    fn prefetch_next(&self, lpn: u32) {
        use crate::util::prefetch;
        let cluster = lpn / self.sbf;
        for t in [&self.short, &self.long] {
            let n = t.index.head(cluster);
            if n != NIL {
                t.index.prefetch_node(n);
                prefetch(&t.ppn, t.slot(n, lpn));
                prefetch(&t.nur, n as usize);
                prefetch(&t.hits, n as usize);
            }
        }
    }

    /// The coarse entry's hit count.
    #[inline]
    fn prefetch_coarse(&self, slot: usize, lpn: u32) {
        crate::util::prefetch(
            &self.coarse_hits,
            slot * self.cpb + ((lpn % self.np) / self.sbf) as usize,
        );
    }

    /// The hit counts: a 4-bit count per cluster of each logical block.
    fn coarse_extra_bytes(&self, core: &Core) -> u64 {
        let nodes = core.coarse.capacity() as u64;
        let sbf = self.sbf as u64;
        nodes * bits_to_bytes(sbf * self.cpb as u64 * hit_bits(self.cfg.promote_hits))
    }

    fn fine_bytes(&self) -> u64 {
        if self.cfg.levels == 1 {
            return self.long.bytes();
        }
        self.short.bytes() + self.long.bytes()
    }

    fn counters(&self, out: &mut Counters) {
        out.set(&SHORT_HITS, self.short_hits);
        out.set(&LONG_HITS, self.long_hits);
        out.set(&COARSE_LOOKUPS, self.coarse_lookups);
        out.set(&PROMOTIONS_LONG, self.promotions_long);
        out.set(&PROMOTIONS_SHORT, self.promotions_short);
        out.set(&PROMOTIONS_WAITING, self.promotions_waiting);
        out.set(&DEMOTIONS_NUR, self.demotions_nur);
        out.set(&DEMOTIONS_EVICT, self.demotions_evict);
        out.set(&NUR_SWEEPS, self.sweeps);
        out.set(&FOLD_FINE_UPDATES, self.fold_fine_updates);
    }

    /// The short and long tables and the hit counts are a cache of the coarse table
    /// kept in RAM only: they start cold and fill again by promotion.
    fn mounted(&mut self, _: &mut Core, _: &Mounted, _: &mut Nand) {}

    fn is_empty(&self) -> bool {
        self.short.index.is_empty() && self.long.index.is_empty()
    }

    /// A cached cluster mirrors exactly what the coarse table finds for each of its
    /// pages, and a cluster is cached in at most one fine table.
    fn check(&self, core: &Core, nand: &Nand) {
        self.short.check("short");
        self.long.check("long");
        for (t, name) in [(&self.short, "short"), (&self.long, "long")] {
            for n in 0..t.index.capacity() {
                let cluster = t.index.key(n);
                if cluster == NIL {
                    continue;
                }
                for i in 0..self.sbf {
                    let lpn = cluster * self.sbf + i;
                    let want = if lpn < core.logical_pages {
                        core.find_coarse(lpn, self.sbf, nand).0
                    } else {
                        None
                    };
                    let got = t.ppn[t.slot(n, lpn)];
                    assert_eq!(
                        (got != NIL).then_some(Ppn(got)),
                        want,
                        "{name} slot of lpn {lpn}"
                    );
                }
                if name == "short" {
                    assert_eq!(
                        self.long.find(cluster * self.sbf).0,
                        NIL,
                        "cluster {cluster} in both fine tables"
                    );
                }
            }
        }
    }
}
