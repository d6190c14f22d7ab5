//! DFTL — demand-based page mapping (A. Gupta, Y. Kim, B. Urgaonkar, "DFTL: a flash
//! translation layer employing demand-based selective caching of page-level address
//! mappings", ASPLOS 2009; docs/algorithms.md §2.9).
//!
//! ```text
//! flash:  data blocks + translation blocks; translation page m holds the map entries of
//!         lpns m·E … m·E+E−1 (E = page size / 4 B)
//! GTD:    m → physical translation page (RAM);  CMT: lpn → ppn, bounded, LRU or SLRU
//! resolve(lpn): CMT hit → ppn; miss → read translation page GTD[lpn / E] (Map read;
//!             with coalesce_misses, not if the same host command has already read it)
//! read(lpn):  resolve; miss → cache the entry (clean); read the data page
//! write(lpn): resolve; invalidate the old page; program at the plane's frontier;
//!             CMT entry = new ppn, dirty (inserted on a miss)
//! CMT full:   evict the policy's victim; if dirty, write back its translation page:
//!             read it, fold in every dirty cached entry of that page (batch update,
//!             all become clean), program it elsewhere, GTD → new page (Map read + write)
//! GC(unit):   below gc_low + e free blocks, until gc_high + e, e = 1 (2 on a one-unit
//!             device, where translation blocks always come from the unit collected;
//!             feasible::dftl_extra_free): an operation may take a host and a
//!             translation block before its GC check: victim = policy (data and
//!             translation blocks compete, as in the paper)
//!   translation victim: copy its valid translation pages, GTD follows (RAM only)
//!   data victim: copy valid pages; a cached lpn's CMT entry takes the new address
//!             (dirty, reaches flash on eviction); the others are grouped by translation
//!             page and each page is rewritten once (batch update: 1 read + 1 write)
//! translation write with no room: a unit at its GC threshold first erases its closed
//!             blocks without a valid page (no copies, so safe at any depth); when the
//!             unit with the most free blocks is still at its GC threshold, collect
//!             that unit first (foreground GC; never the unit whose collection is
//!             under way, never more than one level deep)
//! ```
//! Translation reads and writes are NAND operations of cause `Map`; GC copies and erases
//! of both block kinds are cause `Gc`. A read of an lpn whose translation page exists
//! costs the translation read even if the entry turns out unmapped (the device cannot
//! know otherwise); a never-written translation page (GTD empty) costs nothing, and
//! unmapped entries are not cached.
//!
//! Choices the paper leaves open, fixed here as parameters (defaults in brackets): CMT
//! policy [segmented LRU, the paper's; `lru` as in MQSim and FlashSim]; SLRU protected
//! segment [half the CMT; Karedla et al.'s split is a free parameter]; CMT size
//! [3% of all entries — the paper sizes the CMT to the SRAM FAST needs for its log-block
//! map, about 2–3% of the page entries at the usual 3% log area; `cmt_entries` or
//! `cmt_fraction` override]; translation pages stripe over the GC units in the data
//! pages' channel-first order, each unit with its own translation frontier (MQSim's
//! placement; a unit down to its last free block passes the write to the unit with the
//! most free blocks); data GC is per unit (a plane, or a group of
//! planes on small devices: blocks.rs, feasible.rs) with the configured
//! victim policy (greedy by default, the paper's), and data writes stripe over planes as
//! in the page FTL. No static wear leveling.
//!
//! Mapping memory (bytes), from the structures below with 4-byte lpns, ppns and links:
//! `CMT = slots·8 + Ncmt·(key 4 + ppn 4 + LRU prev/next 8 + dirty-list link 4 + flags 1)`
//! (an open-addressing index of (key, entry) slots, slots = the power of two ≥ 2·Ncmt, so
//! a miss — most lookups — is answered from the slot array; the dirty list per
//! translation page makes the batch update visit only dirty entries); `GTD = T·4 + T·4` (translation page address and dirty-list
//! head per translation page, T = ⌈L / E⌉). The paper's own estimate counts 8 B per CMT
//! entry; ours is larger because it counts the links a real implementation needs.

use super::blocks::{self, Blocks, Owner, Stream};
use super::feasible;
use super::gc::GcSchedule;
use super::gc::{PolicyParams, VictimPolicy};
use super::hash::{NIL, OpenHash, WORD_BYTES};
use super::layout::{Balance, ChannelPlacement, Layout, Placement};
use super::spec::{self, Caps, FtlSpec, Section};
use super::{Ftl, FtlConfig, FtlError};
use crate::nand::{BlockId, Cause, Geometry, Lpn, Nand, Ppn};
use crate::spec::{ConfigError, Counter, Counters};
use serde::{Deserialize, Serialize};

/// Reported as `ftl.cmt.hits`.
pub const CMT_HITS: Counter = Counter::total(
    "ftl.cmt.hits",
    "lookups",
    "lookups answered by the cached mapping table",
);
/// Reported as `ftl.cmt.misses`.
pub const CMT_MISSES: Counter = Counter::total(
    "ftl.cmt.misses",
    "lookups",
    "lookups that missed the cached mapping table",
);
/// Reported as `ftl.mapping.cmt_bytes`.
pub const MAPPING_CMT_BYTES: Counter = Counter::gauge(
    "ftl.mapping.cmt_bytes",
    "bytes",
    "RAM of the cached mapping table",
);
/// Reported as `ftl.mapping.gtd_bytes`.
pub const MAPPING_GTD_BYTES: Counter = Counter::gauge(
    "ftl.mapping.gtd_bytes",
    "bytes",
    "RAM of the global translation directory",
);
/// Reported as `ftl.dftl.cmt_entries`.
pub const CMT_ENTRIES: Counter = Counter::gauge(
    "ftl.dftl.cmt_entries",
    "entries",
    "entries the cached mapping table holds at most",
);
/// Reported as `ftl.dftl.trans_reads`.
pub const TRANS_READS: Counter = Counter::total(
    "ftl.dftl.trans_reads",
    "pages",
    "translation pages read to serve misses",
);
/// Reported as `ftl.dftl.shared_trans_reads`.
pub const SHARED_TRANS_READS: Counter = Counter::total(
    "ftl.dftl.shared_trans_reads",
    "lookups",
    "misses served by a translation read their command had already issued (coalesce_misses only)",
);
/// Reported as `ftl.dftl.trans_writes`.
pub const TRANS_WRITES: Counter = Counter::total(
    "ftl.dftl.trans_writes",
    "pages",
    "translation pages written (dirty evictions and GC updates)",
);
/// Reported as `ftl.dftl.dirty_evictions`.
pub const DIRTY_EVICTIONS: Counter = Counter::total(
    "ftl.dftl.dirty_evictions",
    "entries",
    "dirty entries evicted from the cache (their translation page written back)",
);
/// Reported as `ftl.dftl.clean_evictions`.
pub const CLEAN_EVICTIONS: Counter = Counter::total(
    "ftl.dftl.clean_evictions",
    "entries",
    "clean entries evicted from the cache",
);
/// Reported as `ftl.dftl.batched_entries`.
pub const BATCHED_ENTRIES: Counter = Counter::total(
    "ftl.dftl.batched_entries",
    "entries",
    "dirty cached entries cleaned by translation-page write-backs (an evicted entry's page carries its dirty siblings)",
);
/// Reported as `ftl.dftl.gc_cmt_updates`.
pub const GC_CMT_UPDATES: Counter = Counter::total(
    "ftl.dftl.gc_cmt_updates",
    "entries",
    "moved data pages whose new address was updated in the cache",
);
/// Reported as `ftl.dftl.gc_trans_updates`.
pub const GC_TRANS_UPDATES: Counter = Counter::total(
    "ftl.dftl.gc_trans_updates",
    "pages",
    "translation pages rewritten to record pages GC moved",
);
/// Reported as `ftl.dftl.gc_batched_entries`.
pub const GC_BATCHED_ENTRIES: Counter = Counter::total(
    "ftl.dftl.gc_batched_entries",
    "entries",
    "moved pages recorded in a translation page another moved page already rewrote",
);
/// Reported as `ftl.gc.trans_victims`.
pub const GC_TRANS_VICTIMS: Counter = Counter::total(
    "ftl.gc.trans_victims",
    "blocks",
    "GC victims that were translation blocks",
);
/// Reported as `ftl.gc.foreground_collections`.
pub const GC_FOREGROUND_COLLECTIONS: Counter = Counter::total(
    "ftl.gc.foreground_collections",
    "collections",
    "collections a translation write started because no unit had room for it",
);
/// Reported as `ftl.gc.empty_erases`.
pub const GC_EMPTY_ERASES: Counter = Counter::total(
    "ftl.gc.empty_erases",
    "blocks",
    "blocks without a valid page erased on the spot because a translation write found its unit at the GC threshold",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[
    CMT_HITS,
    CMT_MISSES,
    MAPPING_CMT_BYTES,
    MAPPING_GTD_BYTES,
    CMT_ENTRIES,
    TRANS_READS,
    SHARED_TRANS_READS,
    TRANS_WRITES,
    DIRTY_EVICTIONS,
    CLEAN_EVICTIONS,
    BATCHED_ENTRIES,
    GC_CMT_UPDATES,
    GC_TRANS_UPDATES,
    GC_BATCHED_ENTRIES,
    GC_TRANS_VICTIMS,
    GC_FOREGROUND_COLLECTIONS,
    GC_EMPTY_ERASES,
];

/// Bytes of a cached mapping entry in the memory estimate: page, two list links, flags,
/// plus its hash slot.
pub const CMT_ENTRY_BYTES: u64 = 32;

/// DFTL in the registry.
pub const SPEC: FtlSpec = FtlSpec {
    name: "dftl",
    description: "DFTL (Gupta et al. 2009): cached mapping table + GTD, translation pages on flash, LRU or segmented LRU",
    caps: Caps {
        gc_policy: true,
        free_block_watermarks: true,
        gc_schedules: &[GcSchedule::Foreground, GcSchedule::Preemptive],
        hot_cold: true,
        static_wl: false,
        page_layout: false,
        maps_blocks: false,
        writes_at_offsets: false,
        tags_beyond_logical_only: false,
    },
    sections: &[Section {
        key: "dftl",
        what: "DFTL's cached mapping table",
    }],
    validate: |cfg| cfg.dftl.validate(),
    need: |cfg, geo, logical_pages| feasible::paged_best(cfg, geo, logical_pages, true),
    // The full map (as the page FTL's), the cached entries, and per translation page its
    // GTD entry and bookkeeping.
    memory_bytes: |cfg, geo, logical_pages| {
        let per_tpage = geo.page_size_bytes as u64 / spec::ENTRY_BYTES;
        logical_pages * spec::ENTRY_BYTES
            + cfg.dftl.cmt_size(logical_pages) * CMT_ENTRY_BYTES
            + logical_pages.div_ceil(per_tpage) * 32
    },
    counters: &[COUNTERS, blocks::COUNTERS],
    build: |cfg, geo, logical_pages, params| build(cfg, geo, logical_pages, params),
};

/// CMT replacement policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum CmtPolicy {
    /// Least recently used.
    Lru,
    /// Segmented LRU (probationary + protected segments), the DFTL paper's choice.
    #[default]
    SegmentedLru,
}

/// What the CMT holds when the measured phase begins (after preconditioning).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum CmtStart {
    /// The entries preconditioning cached stay cached: a drive that has been running.
    #[default]
    Warm,
    /// Dirty entries are written back (translation writes counted with preconditioning)
    /// and the CMT is emptied: a drive just powered on, as MQSim starts.
    Cold,
}

impl CmtStart {
    /// Whether this is the default warm start.
    pub fn is_warm(&self) -> bool {
        *self == CmtStart::Warm
    }
}

/// `[ftl.dftl]`: DFTL settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DftlConfig {
    /// CMT replacement policy.
    pub cmt_policy: CmtPolicy,
    /// CMT contents when the measured phase begins. Left out of a report's config when
    /// warm (the default), so reports from before the key existed stay comparable.
    #[serde(skip_serializing_if = "CmtStart::is_warm")]
    pub cmt_start: CmtStart,
    /// CMT size in entries (exclusive with `cmt_fraction`).
    pub cmt_entries: Option<u64>,
    /// CMT size as a fraction of all logical pages (default 0.03 when neither is set).
    pub cmt_fraction: Option<f64>,
    /// Share of the CMT in the protected segment (segmented LRU only).
    pub protected_fraction: f64,
    /// Misses of one host command on the same translation page share one translation
    /// read (the entries arrive together, as MQSim's `ArrivingMappingEntries` serves every
    /// miss waiting on a page being read). Off by default: the paper reads the translation
    /// page once per miss. Left out of a report's config when off.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub coalesce_misses: bool,
}

impl Default for DftlConfig {
    fn default() -> Self {
        DftlConfig {
            cmt_policy: CmtPolicy::SegmentedLru,
            cmt_start: CmtStart::Warm,
            cmt_entries: None,
            cmt_fraction: None,
            protected_fraction: 0.5,
            coalesce_misses: false,
        }
    }
}

/// CMT fraction when neither size key is given.
pub const DEFAULT_CMT_FRACTION: f64 = 0.03;

impl DftlConfig {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let (Some(n), Some(f)) = (self.cmt_entries, self.cmt_fraction) {
            return Err(ConfigError::value(
                "ftl.dftl.cmt_fraction",
                f,
                format!(
                    "unset when ftl.dftl.cmt_entries = {n} is set: set cmt_entries or cmt_fraction, not both"
                ),
            ));
        }
        if let Some(f) = self.cmt_fraction
            && !(f > 0.0 && f <= 1.0)
        {
            return Err(ConfigError::value(
                "ftl.dftl.cmt_fraction",
                f,
                "more than 0 and at most 1",
            ));
        }
        if self.cmt_entries == Some(0) {
            return Err(ConfigError::value("ftl.dftl.cmt_entries", 0, "at least 1"));
        }
        if !(0.0..1.0).contains(&self.protected_fraction) {
            return Err(ConfigError::value(
                "ftl.dftl.protected_fraction",
                self.protected_fraction,
                "at least 0 and below 1",
            ));
        }
        Ok(())
    }

    /// CMT entries for a device of `logical_pages` pages (at least 1, at most all).
    pub fn cmt_size(&self, logical_pages: u64) -> u64 {
        let n = match (self.cmt_entries, self.cmt_fraction) {
            (Some(n), _) => n,
            (None, f) => (logical_pages as f64 * f.unwrap_or(DEFAULT_CMT_FRACTION)).round() as u64,
        };
        n.clamp(1, logical_pages.max(1))
    }
}

/// A CMT entry's payload: its data page, its place in the (S)LRU list and in its
/// translation page's dirty list, and flags.
#[derive(Clone, Copy, Debug)]
struct Entry {
    ppn: u32,
    prev: u32,
    next: u32,
    flags: u8,
}

impl Default for Entry {
    fn default() -> Self {
        Entry {
            ppn: NIL,
            prev: NIL,
            next: NIL,
            flags: 0,
        }
    }
}

const DIRTY: u8 = 1;
const PROTECTED: u8 = 2;

/// Bytes per CMT node beyond the index's key: ppn, LRU prev/next,
/// dirty-list link (4 B each) and one flags byte.
const CMT_PAYLOAD_BYTES: u64 = 4 * WORD_BYTES + 1;

/// Builds a DFTL with the configured data-GC victim policy.
pub fn build(
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
    params: PolicyParams,
) -> Result<Box<dyn Ftl>, ConfigError> {
    (cfg.gc.spec().dftl)(cfg, geo, logical_pages, params)
}

/// Builds one over policy `V`: the [`GcPolicySpec`](super::gc::GcPolicySpec) of each
/// policy points here, instantiated for it.
pub(crate) fn build_over<V: VictimPolicy>(
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
    params: PolicyParams,
) -> Result<Box<dyn Ftl>, ConfigError> {
    Ok(Box::new(Dftl::<V>::new(cfg, geo, logical_pages, params)?))
}

/// DFTL state.
#[derive(Clone)]
pub struct Dftl<V: VictimPolicy> {
    np: u32,
    cmt_start: CmtStart,
    coalesce_misses: bool,
    /// Command number of the current host command ([`Ftl::begin_command`]).
    command: u32,
    /// Per translation page, the command that last read it (`coalesce_misses` only;
    /// empty otherwise): a later miss of that command on the page needs no flash read.
    read_in_command: Vec<u32>,
    hot_cold: bool,
    logical_pages: u32,
    /// Map entries per translation page.
    epp: u32,
    /// Content of the translation pages on flash: `ppn + 1` per lpn, 0 = unmapped. Only
    /// translation-page writes change it (the device's flash, kept here as data).
    gmt: Vec<u32>,
    /// GTD: `ppn + 1` of each translation page, 0 = never written.
    gtd: Vec<u32>,
    cmt: OpenHash<Entry>,
    /// MRU and LRU ends of the probationary (0) and protected (1) segments.
    seg_mru: [u32; 2],
    seg_lru: [u32; 2],
    seg_len: [u32; 2],
    protected_cap: u32,
    /// Dirty cached entries (nodes) of each translation page. An entry only leaves this
    /// list when its page is written back (a dirty entry is never evicted without it), so
    /// the list needs no removal: in firmware a singly linked list (4 B link per entry,
    /// 4 B head per page); here a vector per page, whose independent loads the CPU can
    /// overlap during the batch update.
    dirty: Vec<Vec<u32>>,
    /// Free pools, frontiers and GC (shared with the page FTL); translation pages are
    /// the [`Stream::Map`] frontier of each unit.
    bm: Blocks<V>,
    /// Where the next translation page goes (striped like data pages).
    trans_layout: Layout,
    /// Units a translation block left below `gc_low`, collected when the operation ends.
    low_units: Vec<u32>,
    /// The unit whose collection is under way at the outer level (never collected again
    /// from inside: its victim's moved pages are pending in a batch update).
    collecting: Option<u32>,
    /// A foreground collection started by a translation write is running (one level
    /// deep at most).
    nested_gc: bool,
    tscratch: Vec<Ppn>,
    layout: Layout,
    moved: Vec<(u32, u32)>,
    lookups: u64,
    probes: u64,
    hits: u64,
    misses: u64,
    trans_reads: u64,
    /// Misses served by a translation read their command had already issued
    /// (`coalesce_misses`).
    shared_trans_reads: u64,
    trans_writes: u64,
    dirty_evictions: u64,
    clean_evictions: u64,
    batched_entries: u64,
    gc_trans_victims: u64,
    /// Collections a translation write started because no unit had room for it.
    foreground_collections: u64,
    /// Blocks without a valid page erased on the spot because a translation write
    /// found its unit at the GC threshold.
    empty_erases: u64,
    gc_cmt_updates: u64,
    gc_trans_updates: u64,
    gc_batched_entries: u64,
}

impl<V: VictimPolicy> Dftl<V> {
    /// A DFTL over an erased array of shape `geo`.
    pub fn new(
        cfg: &FtlConfig,
        geo: &Geometry,
        logical_pages: u64,
        params: PolicyParams,
    ) -> Result<Self, ConfigError> {
        let d = &cfg.dftl;
        d.validate()?;
        let epp = geo.page_size_bytes / WORD_BYTES as u32;
        let tpages = logical_pages.div_ceil(epp as u64);
        if logical_pages + tpages + 2 >= NIL as u64 {
            return Err(super::spec::unfit("dftl", "dftl: too many logical pages"));
        }
        let plan = feasible::dftl_plan(cfg, geo, logical_pages)?;
        let ncmt = d.cmt_size(logical_pages) as u32;
        let protected_cap = match d.cmt_policy {
            CmtPolicy::Lru => 0,
            CmtPolicy::SegmentedLru => (ncmt as f64 * d.protected_fraction).floor() as u32,
        };
        Ok(Dftl {
            np: geo.pages_per_block,
            cmt_start: d.cmt_start,
            coalesce_misses: d.coalesce_misses,
            command: 1,
            read_in_command: if d.coalesce_misses {
                vec![0; tpages as usize]
            } else {
                Vec::new()
            },
            hot_cold: cfg.hot_cold,
            logical_pages: logical_pages as u32,
            epp,
            gmt: crate::util::zeroed_vec(logical_pages as usize),
            gtd: vec![0; tpages as usize],
            cmt: OpenHash::new(ncmt),

            seg_mru: [NIL; 2],
            seg_lru: [NIL; 2],
            seg_len: [0; 2],
            protected_cap,
            dirty: vec![Vec::new(); tpages as usize],
            bm: Blocks::new(
                cfg,
                geo,
                plan.unit_planes,
                plan.gc_low,
                plan.gc_high,
                params,
            ),
            trans_layout: Layout::new(
                geo,
                1,
                Placement::WriteOrder,
                ChannelPlacement::Striped,
                Balance::new(plan.unit_planes, plan.gc_low + 1 + cfg.hot_cold as u32),
            ),
            low_units: Vec::new(),
            collecting: None,
            nested_gc: false,
            tscratch: Vec::with_capacity(geo.pages_per_block as usize),
            // Data pages stripe over planes in write order, the page FTL's default.
            layout: Layout::new(
                geo,
                1,
                Placement::WriteOrder,
                ChannelPlacement::Striped,
                Balance::new(plan.unit_planes, plan.gc_low + 1 + cfg.hot_cold as u32),
            ),
            moved: Vec::with_capacity(geo.pages_per_block as usize),
            lookups: 0,
            probes: 0,
            hits: 0,
            misses: 0,
            trans_reads: 0,
            shared_trans_reads: 0,
            trans_writes: 0,
            dirty_evictions: 0,
            clean_evictions: 0,
            batched_entries: 0,
            gc_trans_victims: 0,
            foreground_collections: 0,
            empty_erases: 0,
            gc_cmt_updates: 0,
            gc_trans_updates: 0,
            gc_batched_entries: 0,
        })
    }

    /// CMT capacity in entries.
    pub fn cmt_capacity(&self) -> u32 {
        self.cmt.capacity()
    }

    /// RAM of the CMT (bytes).
    pub fn cmt_bytes(&self) -> u64 {
        self.cmt.bytes() + self.cmt.capacity() as u64 * CMT_PAYLOAD_BYTES
    }

    /// RAM of the GTD and the per-translation-page dirty-list heads (bytes).
    pub fn gtd_bytes(&self) -> u64 {
        self.gtd.len() as u64 * 2 * WORD_BYTES
    }

    #[inline]
    fn trans_tag(&self, mvpn: u32) -> Lpn {
        Lpn(NIL - 1 - mvpn)
    }

    // ---- CMT lists -------------------------------------------------------------------

    #[inline]
    fn seg_of(&self, n: u32) -> usize {
        (self.cmt.val(n).flags & PROTECTED != 0) as usize
    }

    #[inline]
    fn seg_unlink(&mut self, n: u32) {
        let s = self.seg_of(n);
        let (p, x) = (self.cmt.val(n).prev, self.cmt.val(n).next);
        if p == NIL {
            self.seg_mru[s] = x;
        } else {
            self.cmt.val_mut(p).next = x;
        }
        if x == NIL {
            self.seg_lru[s] = p;
        } else {
            self.cmt.val_mut(x).prev = p;
        }
        self.seg_len[s] -= 1;
    }

    #[inline]
    fn seg_push_mru(&mut self, n: u32, s: usize) {
        if s == 1 {
            self.cmt.val_mut(n).flags |= PROTECTED;
        } else {
            self.cmt.val_mut(n).flags &= !PROTECTED;
        }
        self.cmt.val_mut(n).prev = NIL;
        self.cmt.val_mut(n).next = self.seg_mru[s];
        if self.seg_mru[s] != NIL {
            let m = self.seg_mru[s];
            self.cmt.val_mut(m).prev = n;
        } else {
            self.seg_lru[s] = n;
        }
        self.seg_mru[s] = n;
        self.seg_len[s] += 1;
    }

    /// A CMT hit: LRU moves the entry to the front; SLRU promotes it to (the front of) the
    /// protected segment, whose overflow drops back to the probationary front.
    #[inline]
    fn touch(&mut self, n: u32) {
        if self.protected_cap == 0 {
            if self.seg_mru[0] != n {
                self.seg_unlink(n);
                self.seg_push_mru(n, 0);
            }
            return;
        }
        self.seg_unlink(n);
        self.seg_push_mru(n, 1);
        if self.seg_len[1] > self.protected_cap {
            let old = self.seg_lru[1];
            self.seg_unlink(old);
            self.seg_push_mru(old, 0);
        }
    }

    #[inline]
    fn mark_dirty(&mut self, n: u32, lpn: u32) {
        if self.cmt.val(n).flags & DIRTY != 0 {
            return;
        }
        self.cmt.val_mut(n).flags |= DIRTY;
        self.dirty[(lpn / self.epp) as usize].push(n);
    }

    /// Caches `lpn → ppn` (`NIL` = unmapped), evicting first when full; returns the node.
    fn cmt_insert(
        &mut self,
        lpn: u32,
        mut ppn: u32,
        dirty: bool,
        nand: &mut Nand,
    ) -> Result<u32, FtlError> {
        if self.cmt.is_full() {
            let foreground = self.foreground_collections;
            self.evict(nand)?;
            if foreground != self.foreground_collections
                && ppn != NIL
                && !(nand.is_valid(Ppn(ppn)) && nand.oob_lpn_raw(Ppn(ppn)) == lpn)
            {
                // The eviction's translation write started a collection that moved this
                // page (its block may even hold other data by now); being uncached, its
                // new address went to the flash map.
                ppn = self.gmt[lpn as usize].wrapping_sub(1);
            }
        }
        let n = self.cmt.insert(lpn);
        self.cmt.val_mut(n).ppn = ppn;
        self.cmt.val_mut(n).flags = 0;
        self.seg_push_mru(n, 0);
        if dirty {
            self.mark_dirty(n, lpn);
        }
        Ok(n)
    }

    /// Evicts the policy's victim (probationary LRU end, else protected LRU end).
    fn evict(&mut self, nand: &mut Nand) -> Result<(), FtlError> {
        let victim = if self.seg_lru[0] != NIL {
            self.seg_lru[0]
        } else {
            self.seg_lru[1]
        };
        let lpn = self.cmt.key(victim);
        if self.cmt.val(victim).flags & DIRTY != 0 {
            self.dirty_evictions += 1;
            self.write_translation(lpn / self.epp, &[], nand)?;
            debug_assert!(self.cmt.val(victim).flags & DIRTY == 0);
        } else {
            self.clean_evictions += 1;
        }
        self.seg_unlink(victim);
        self.cmt.remove(lpn);
        Ok(())
    }

    // ---- translation pages -----------------------------------------------------------

    /// Rewrites translation page `mvpn`: read it (if it exists), apply `moved` (lpn, ppn)
    /// pairs and every dirty cached entry of the page (which become clean), program it at
    /// the translation frontier, and point the GTD at it.
    fn write_translation(
        &mut self,
        mvpn: u32,
        moved: &[(u32, u32)],
        nand: &mut Nand,
    ) -> Result<(), FtlError> {
        // Room first: a foreground collection it may start rewrites translation pages
        // (this one included), so the page is read only after it.
        let unit = self.trans_unit(nand)?;
        let old = self.gtd[mvpn as usize];
        if old != 0 {
            nand.read(Ppn(old - 1), Cause::Map);
            self.trans_reads += 1;
            self.note_read(mvpn);
        }
        for &(lpn, ppn) in moved {
            self.gmt[lpn as usize] = ppn + 1;
        }
        let list = std::mem::take(&mut self.dirty[mvpn as usize]);
        const AHEAD: usize = 8;
        for &n in list.iter().take(AHEAD) {
            self.cmt.prefetch_node(n);
        }
        for (i, &n) in list.iter().enumerate() {
            if let Some(&ahead) = list.get(i + AHEAD) {
                self.cmt.prefetch_node(ahead);
            }
            self.gmt[self.cmt.key(n) as usize] = self.cmt.val(n).ppn.wrapping_add(1);
            self.cmt.val_mut(n).flags &= !DIRTY;
        }
        self.batched_entries += list.len() as u64;
        // Keep the allocation: the list refills as entries of this page get dirty again.
        self.dirty[mvpn as usize] = list;
        self.dirty[mvpn as usize].clear();
        let dst = self.bm.next_page(unit, Stream::Map, nand)?;
        if let Some(d) = nand.data_mut() {
            // A device holding data stores the page's entries (ppn + 1, little endian),
            // what recovery reads back.
            let mut page = vec![0u8; d.page_bytes()].into_boxed_slice();
            let first = (mvpn * self.epp) as usize;
            let end = (first + self.epp as usize).min(self.gmt.len());
            for (c, e) in page.chunks_exact_mut(4).zip(&self.gmt[first..end]) {
                c.copy_from_slice(&e.to_le_bytes());
            }
            d.stage_meta(page);
        }
        nand.program(dst, self.trans_tag(mvpn), Cause::Map);
        self.trans_writes += 1;
        if old != 0 {
            self.bm.invalidate(Ppn(old - 1), nand);
        }
        self.gtd[mvpn as usize] = dst.0 + 1;
        Ok(())
    }

    /// Unit for the next translation-page write, with its translation frontier open.
    /// Translation writes stripe over the units in the data pages' channel-first order,
    /// each unit keeping its own [`Stream::Map`] frontier, as MQSim places translation
    /// pages with the data's plane allocation: a single device-wide frontier put every
    /// translation write (and later every read of the pages written together) on one
    /// die, which serialised a write-heavy replay behind one program at a time
    /// (docs/mqsim.md). A unit at or below its GC threshold hands the write to the unit
    /// with the most free blocks (ties: the lowest) instead.
    ///
    /// A collection's batch update spreads its translation writes over every unit, so
    /// one operation that collects several units can take blocks from all of them
    /// before any is collected again. When even the unit with the most free blocks is
    /// at its GC threshold (so the next openings would reach the last block, which its
    /// own GC needs for the next victim's copies), that unit is collected first, in the
    /// foreground, as firmware does when a metadata write finds no room. That collection is never the unit already being
    /// collected (its victim's moved pages are pending) and never nests further.
    fn trans_unit(&mut self, nand: &mut Nand) -> Result<u32, FtlError> {
        let mut unit = self.bm.unit_of_plane(self.trans_layout.plane_for(0, nand));
        if self.bm.units[unit as usize].frontier[Stream::Map as usize].is_some() {
            return Ok(unit);
        }
        if self.bm.free(unit) <= self.bm.gc_low as usize {
            self.empty_erases += self.bm.erase_empty(unit, nand) as u64;
        }
        if self.bm.free(unit) <= self.bm.gc_low as usize {
            unit = self.most_free_unit(None);
            self.empty_erases += self.bm.erase_empty(unit, nand) as u64;
        }
        if self.bm.free(unit) <= self.bm.gc_low as usize && !self.nested_gc {
            let target = self.most_free_unit(self.collecting);
            if Some(target) != self.collecting {
                self.nested_gc = true;
                self.foreground_collections += 1;
                let r = blocks::collect(self, target, nand);
                self.nested_gc = false;
                r?;
                unit = target;
            }
        }
        if self.bm.units[unit as usize].frontier[Stream::Map as usize].is_none() {
            self.bm.open_block(unit, Stream::Map)?;
            // That unit may see no host write now, so its GC check happens at the end
            // of the current operation.
            if self.bm.needs_gc(unit) && !self.low_units.contains(&unit) {
                self.low_units.push(unit);
            }
        }
        Ok(unit)
    }

    /// The unit with the most free blocks (ties: the lowest), other than `except`
    /// (unless it is the only one).
    fn most_free_unit(&self, except: Option<u32>) -> u32 {
        let mut best = None;
        for u in 0..self.bm.units.len() as u32 {
            if Some(u) == except {
                continue;
            }
            if best.is_none_or(|b| self.bm.free(u) > self.bm.free(b)) {
                best = Some(u);
            }
        }
        best.or(except).unwrap_or(0)
    }

    /// Collects `unit` at the outer level (see [`Self::trans_unit`]).
    fn collect_unit(&mut self, unit: u32, nand: &mut Nand) -> Result<(), FtlError> {
        let outer = self.collecting.replace(unit);
        let r = blocks::collect(self, unit, nand);
        self.collecting = outer;
        r
    }

    /// Collects the units translation blocks left low (see `trans_page`).
    #[inline]
    fn collect_low_units(&mut self, nand: &mut Nand) -> Result<(), FtlError> {
        // One pass over the units low now: collecting one unit can write translation
        // pages into another and leave that one low in turn; those wait for the next
        // operation instead of being chased here, which could go on without end.
        let mut pending = std::mem::take(&mut self.low_units);
        for &u in &pending {
            if self.bm.needs_gc(u) {
                self.collect_unit(u, nand)?;
            }
        }
        pending.clear();
        for &u in &self.low_units {
            if !pending.contains(&u) {
                pending.push(u);
            }
        }
        self.low_units = pending;
        Ok(())
    }

    /// Whether block `b` was opened for translation pages.
    #[inline]
    fn is_trans(&self, b: BlockId) -> bool {
        self.bm.opened_for[b.0 as usize] == Stream::Map
    }

    /// Counted translation: CMT hit, or a miss that reads the translation page.
    #[inline]
    fn resolve(&mut self, lpn: u32, nand: &mut Nand) -> (u32, u32) {
        let (n, probes) = self.cmt.find(lpn);
        self.lookups += 1;
        self.probes += probes as u64;
        if n != NIL {
            self.hits += 1;
            self.touch(n);
            return (n, self.cmt.val(n).ppn);
        }
        self.misses += 1;
        let mvpn = lpn / self.epp;
        let t = self.gtd[mvpn as usize];
        if t != 0 {
            if self.coalesce_misses && self.read_in_command[mvpn as usize] == self.command {
                // This command already read (or is reading) the page: the entry arrives
                // with that read.
                self.shared_trans_reads += 1;
            } else {
                nand.read(Ppn(t - 1), Cause::Map);
                self.trans_reads += 1;
                self.note_read(mvpn);
            }
        }
        (NIL, self.gmt[lpn as usize].wrapping_sub(1))
    }

    /// Records that the current command has translation page `mvpn`'s content.
    #[inline]
    fn note_read(&mut self, mvpn: u32) {
        if self.coalesce_misses {
            self.read_in_command[mvpn as usize] = self.command;
        }
    }

    /// Batch update after a data victim moved: one rewrite per translation page whose
    /// uncached entries moved.
    fn batch_update(&mut self, nand: &mut Nand) -> Result<(), FtlError> {
        let mut moved = std::mem::take(&mut self.moved);
        self.gc_batched_entries += moved.len() as u64;
        moved.sort_unstable();
        let mut i = 0;
        while i < moved.len() {
            let mvpn = moved[i].0 / self.epp;
            let mut j = i + 1;
            while j < moved.len() && moved[j].0 / self.epp == mvpn {
                j += 1;
            }
            self.write_translation(mvpn, &moved[i..j], nand)?;
            self.gc_trans_updates += 1;
            i = j;
        }
        moved.clear();
        self.moved = moved;
        Ok(())
    }
}

impl<V: VictimPolicy> Owner<V> for Dftl<V> {
    /// A data victim's batch update writes up to one translation page per page moved,
    /// so a victim chosen by age alone can take more blocks than it frees. Two was too
    /// few: cost-benefit on ssd-b drained several units to zero at once (docs/ftls.md).
    const EMERGENCY_FREE: usize = 3;

    #[inline]
    fn blocks(&mut self) -> &mut Blocks<V> {
        &mut self.bm
    }

    /// A moved data page looks up a random CMT slot and, if uncached, later writes a
    /// random flash-map entry: fetch both ahead so the misses overlap.
    #[inline]
    fn prefetch_move(&self, nand: &Nand, src: Ppn) {
        let lpn = nand.oob_lpn_raw(src);
        if lpn < self.logical_pages {
            self.cmt.prefetch(lpn);
            crate::util::prefetch(&self.gmt, lpn as usize);
        }
    }

    #[inline]
    fn moved(&mut self, nand: &Nand, to: Ppn) {
        let lpn = nand.oob_lpn_raw(to);
        if lpn >= self.logical_pages {
            // A translation page: the GTD follows (RAM only).
            self.gtd[(NIL - 1 - lpn) as usize] = to.0 + 1;
            return;
        }
        let (c, _) = self.cmt.find(lpn);
        if c != NIL {
            // Lazy copying: the cached entry carries the new address to flash when it
            // is evicted.
            self.cmt.val_mut(c).ppn = to.0;
            self.mark_dirty(c, lpn);
            self.gc_cmt_updates += 1;
        } else {
            self.moved.push((lpn, to.0));
        }
    }

    /// Translation victims move to the unit's translation frontier; data victims to its
    /// GC (or host) frontier, then the batch update; then the erase.
    fn reclaim(&mut self, victim: BlockId, nand: &mut Nand) -> Result<(), FtlError> {
        if self.is_trans(victim) {
            // Valid translation pages go to the translation frontier; the GTD follows.
            self.gc_trans_victims += 1;
            self.bm.role[victim.0 as usize] = blocks::Role::Collecting;
            let mut pages = std::mem::take(&mut self.tscratch);
            pages.clear();
            nand.valid_pages(victim, &mut pages);
            for &src in &pages {
                let unit = self.trans_unit(nand)?;
                // A foreground collection just run may have rewritten this page.
                if !nand.is_valid(src) {
                    continue;
                }
                let dst = self.bm.next_page(unit, Stream::Map, nand)?;
                nand.relocate(src, dst, Cause::Gc);
                self.moved(nand, dst);
            }
            self.tscratch = pages;
        } else {
            let stream = if self.hot_cold {
                Stream::Gc
            } else {
                Stream::Host
            };
            self.moved.clear();
            blocks::relocate(self, victim, stream, Cause::Gc, nand)?;
            self.batch_update(nand)?;
        }
        self.bm.erase_release(victim, Cause::Gc, nand);
        Ok(())
    }
}

impl<V: VictimPolicy> Ftl for Dftl<V> {
    fn name(&self) -> &'static str {
        "dftl"
    }

    fn logical_pages(&self) -> u64 {
        self.logical_pages as u64
    }

    fn read(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<Option<Ppn>, FtlError> {
        let (n, mut ppn) = self.resolve(lpn.0, nand);
        if ppn == NIL {
            return Ok(None);
        }
        if n == NIL {
            // The insert's eviction may start a collection that moves this page.
            let node = self.cmt_insert(lpn.0, ppn, false, nand)?;
            ppn = self.cmt.val(node).ppn;
            if !self.low_units.is_empty() {
                // The eviction's translation write took a unit's block; its GC may move
                // this very page (the cached entry follows it).
                self.collect_low_units(nand)?;
                ppn = self.cmt.val(self.cmt.find(lpn.0).0).ppn;
            }
        }
        nand.read(Ppn(ppn), Cause::Host);
        Ok(Some(Ppn(ppn)))
    }

    #[inline]
    fn prefetch(&self, lpn: Lpn) {
        // The next request's bucket, its flash map entry (read on a miss) and the entry
        // a miss would evict are all random accesses into large tables.
        self.cmt.prefetch(lpn.0);
        crate::util::prefetch(&self.gmt, lpn.0 as usize);
        crate::util::prefetch(&self.dirty, (lpn.0 / self.epp) as usize);
        // The eviction victim was prefetched one request ago as the tail's predecessor, so
        // reading it here is cheap; its bucket (unlinking) and its own predecessor (the
        // next victim) are fetched for later.
        let v = self.seg_lru[0];
        if v != NIL {
            let e = self.cmt.val(v);
            self.cmt.prefetch(self.cmt.key(v));
            if e.prev != NIL {
                self.cmt.prefetch_node(e.prev);
            }
        }
    }

    fn begin_command(&mut self) {
        // Wrapping is harmless: a stale stamp equal to a new number after 2^32 commands
        // can only spare one translation read.
        self.command = self.command.wrapping_add(1);
    }

    fn lookup(&self, lpn: Lpn, _nand: &Nand) -> Option<Ppn> {
        let (n, _) = self.cmt.find(lpn.0);
        let ppn = if n != NIL {
            self.cmt.val(n).ppn
        } else {
            self.gmt[lpn.0 as usize].wrapping_sub(1)
        };
        (ppn != NIL).then_some(Ppn(ppn))
    }

    fn write(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let (n, old) = self.resolve(lpn.0, nand);
        if old != NIL {
            self.bm.invalidate(Ppn(old), nand);
        }
        let unit = self.bm.unit_of_plane(self.layout.plane_for(lpn.0, nand));
        let ppn = self.bm.next_page(unit, Stream::Host, nand)?;
        nand.program(ppn, lpn, Cause::Host);
        if n != NIL {
            self.cmt.val_mut(n).ppn = ppn.0;
            self.mark_dirty(n, lpn.0);
        } else {
            self.cmt_insert(lpn.0, ppn.0, true, nand)?;
        }
        if self.bm.needs_gc(unit) {
            self.collect_unit(unit, nand)?;
        }
        self.collect_low_units(nand)
    }

    fn trim(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let (n, old) = self.resolve(lpn.0, nand);
        if old == NIL {
            return Ok(());
        }
        self.bm.invalidate(Ppn(old), nand);
        // The unmapping must reach flash like any update: keep it as a dirty cached entry
        // whose address is "unmapped", so the next write-back of its page records it.
        let n = if n == NIL {
            self.cmt_insert(lpn.0, NIL, true, nand)?
        } else {
            n
        };
        self.cmt.val_mut(n).ppn = NIL;
        self.mark_dirty(n, lpn.0);
        self.collect_low_units(nand)
    }

    /// A cold start (`cmt_start = "cold"`) evicts every cached entry through the normal
    /// eviction path, so each dirty translation page is written back once (batch update)
    /// and the CMT ends empty, as after a power cycle; the GTD stays (firmware reloads it
    /// at power-up). The caller counts these operations with preconditioning.
    fn end_preconditioning(&mut self, nand: &mut Nand) -> Result<(), FtlError> {
        if self.cmt_start == CmtStart::Warm {
            return Ok(());
        }
        while !self.cmt.is_empty() {
            self.evict(nand)?;
            // As at the end of any operation: units a translation block left low are
            // collected (their moved cached entries turn dirty and are evicted later).
            self.collect_low_units(nand)?;
        }
        Ok(())
    }

    fn mapping_bytes(&self) -> u64 {
        self.cmt_bytes() + self.gtd_bytes()
    }

    fn counters(&self, out: &mut Counters) {
        out.set(&super::LOOKUP_COUNT, self.lookups);
        out.set(&super::LOOKUP_PROBES, self.probes);
        out.set(&CMT_HITS, self.hits);
        out.set(&CMT_MISSES, self.misses);
        out.set(&MAPPING_CMT_BYTES, self.cmt_bytes());
        out.set(&MAPPING_GTD_BYTES, self.gtd_bytes());
        out.set(&CMT_ENTRIES, self.cmt.capacity() as u64);
        out.set(&TRANS_READS, self.trans_reads);
        if self.coalesce_misses {
            out.set(&SHARED_TRANS_READS, self.shared_trans_reads);
        }
        out.set(&TRANS_WRITES, self.trans_writes);
        out.set(&DIRTY_EVICTIONS, self.dirty_evictions);
        out.set(&CLEAN_EVICTIONS, self.clean_evictions);
        out.set(&BATCHED_ENTRIES, self.batched_entries);
        out.set(&GC_CMT_UPDATES, self.gc_cmt_updates);
        out.set(&GC_TRANS_UPDATES, self.gc_trans_updates);
        out.set(&GC_BATCHED_ENTRIES, self.gc_batched_entries);
        out.set(&super::blocks::GC_INVOCATIONS, self.bm.gc_invocations);
        out.set(&super::blocks::GC_VICTIMS, self.bm.gc_victims);
        out.set(&super::RETIRED_BLOCKS, self.bm.retired_blocks());
        out.set(&GC_TRANS_VICTIMS, self.gc_trans_victims);
        out.set(&GC_FOREGROUND_COLLECTIONS, self.foreground_collections);
        out.set(&GC_EMPTY_ERASES, self.empty_erases);
        out.set(
            &super::blocks::GC_VICTIM_VALID_PAGES,
            self.bm.gc_victim_valid_pages,
        );
    }

    fn reserved_blocks(&self) -> u64 {
        let frontiers = if self.hot_cold { 2 } else { 1 };
        self.bm.units.len() as u64 * (self.bm.gc_low as u64 + frontiers)
            + (self.gtd.len() as u64).div_ceil(self.np as u64)
            + 1
            + (self.gtd.len() as u64).div_ceil(self.np as u64)
            + 1
    }

    /// Mount: the GTD from the translation pages' tags (highest sequence number per
    /// translation page), the flash map from their contents; then the data pages' tags
    /// (highest sequence number per logical page) find what the translation pages miss
    /// (entries dirty in the CMT or moved by GC when the power went), and every
    /// translation page that disagrees is written again, so flash and map agree. The CMT
    /// starts empty.
    fn recover(
        &mut self,
        nand: &mut Nand,
        tags: &[Option<crate::nand::StoredTag>],
    ) -> Result<(), super::RecoverError> {
        let lp = self.logical_pages;
        // Per logical page and per translation page the newest copy wins; a GC copy keeps
        // its source's sequence number and wins the tie by its later program (a cut in
        // the middle of a collection then finds the copies, not the half-emptied victim).
        let data = super::recovery::newest(tags, lp as u64);
        self.gtd.fill(0);
        let mut trans_block = vec![false; self.bm.geo.blocks() as usize];
        for (i, t) in tags.iter().enumerate() {
            let Some(t) = t else { continue };
            if t.meta {
                let m = (NIL - 1).wrapping_sub(t.lpn) as usize;
                if m >= self.gtd.len() {
                    continue;
                }
                trans_block[i / self.np as usize] = true;
                let cur = self.gtd[m];
                if cur == 0
                    || super::recovery::newer(
                        t,
                        tags[(cur - 1) as usize].as_ref().expect("programmed"),
                    )
                {
                    self.gtd[m] = i as u32 + 1;
                }
            }
        }
        // The flash map as the translation pages have it.
        self.gmt.fill(0);
        let store = nand
            .data()
            .ok_or(super::RecoverError::NoData { ftl: "dftl" })?;
        let mut page = vec![0u8; store.page_bytes()];
        for (m, &t) in self.gtd.iter().enumerate() {
            if t == 0 {
                continue;
            }
            store.read(t - 1, &mut page);
            let first = m * self.epp as usize;
            let end = (first + self.epp as usize).min(self.gmt.len());
            for (e, c) in self.gmt[first..end].iter_mut().zip(page.chunks_exact(4)) {
                *e = u32::from_le_bytes(c.try_into().expect("4 bytes"));
            }
        }
        for &t in self.gtd.iter().chain(&data) {
            if t != 0 {
                nand.revalidate(Ppn(t - 1));
            }
        }
        let streams: &[Stream] = if self.hot_cold {
            &[Stream::Host, Stream::Gc, Stream::Map]
        } else {
            &[Stream::Host, Stream::Map]
        };
        let orphans = self.bm.remount(
            nand,
            |b| {
                if trans_block[b.0 as usize] {
                    Stream::Map
                } else {
                    Stream::Host
                }
            },
            streams,
            None,
        )?;
        // Each unit may hold an open translation block (translation pages stripe over the
        // units): the remount keeps every one as that unit's translation frontier.
        for b in orphans {
            self.reclaim(b, nand)
                .map_err(super::RecoverError::flash("dftl"))?;
            self.collect_low_units(nand)
                .map_err(super::RecoverError::flash("dftl"))?;
        }
        // Translation pages that miss newer data are written again.
        let mut stale = Vec::new();
        for (l, (g, &d)) in self.gmt.iter_mut().zip(&data).enumerate() {
            if *g != d {
                *g = d;
                let m = l as u32 / self.epp;
                if stale.last() != Some(&m) {
                    stale.push(m);
                }
            }
        }
        for m in stale {
            self.write_translation(m, &[], nand)
                .map_err(super::RecoverError::flash("dftl"))?;
            self.collect_low_units(nand)
                .map_err(super::RecoverError::flash("dftl"))?;
        }
        Ok(())
    }

    fn check_invariants(&self, nand: &Nand) {
        nand.check_invariants();
        self.cmt.check();
        // Segments: consistent doubly linked lists covering every cached entry.
        let mut listed = 0;
        for s in 0..2 {
            let mut n = self.seg_mru[s];
            let mut prev = NIL;
            let mut len = 0;
            while n != NIL {
                assert_eq!(self.cmt.val(n).prev, prev, "segment {s} back link");
                assert_eq!(self.seg_of(n), s, "node {n} segment flag");
                assert!(self.cmt.key(n) != NIL, "free node {n} listed");
                len += 1;
                prev = n;
                n = self.cmt.val(n).next;
            }
            assert_eq!(prev, self.seg_lru[s], "segment {s} tail");
            assert_eq!(len, self.seg_len[s], "segment {s} length");
            listed += len;
        }
        assert_eq!(listed, self.cmt.len(), "cached entries listed");
        assert!(self.seg_len[1] <= self.protected_cap, "protected overflow");
        // Dirty lists hold exactly the dirty entries of their page; clean entries agree
        // with flash.
        let mut dirty_listed = 0;
        for (m, list) in self.dirty.iter().enumerate() {
            for &n in list {
                assert!(self.cmt.val(n).flags & DIRTY != 0, "clean node {n} listed");
                assert_eq!(self.cmt.key(n) / self.epp, m as u32, "node {n} in page {m}");
                dirty_listed += 1;
            }
        }
        let mut dirty = 0;
        for n in 0..self.cmt.capacity() {
            let lpn = self.cmt.key(n);
            if lpn == NIL {
                continue;
            }
            if self.cmt.val(n).flags & DIRTY != 0 {
                dirty += 1;
            } else {
                assert_eq!(
                    self.gmt[lpn as usize],
                    self.cmt.val(n).ppn.wrapping_add(1),
                    "clean entry of lpn {lpn} differs from its translation page"
                );
            }
        }
        assert_eq!(dirty, dirty_listed, "dirty entries listed");
        // Translation pages: the GTD names valid pages tagged with their number.
        let mut tvalid = 0u64;
        for (m, &t) in self.gtd.iter().enumerate() {
            if t != 0 {
                let p = Ppn(t - 1);
                assert!(nand.is_valid(p), "GTD {m} names an invalid page");
                assert_eq!(nand.oob(p).lpn, self.trans_tag(m as u32), "GTD {m} tag");
                assert!(self.is_trans(self.bm.geo.block_of(p)), "GTD {m} block kind");
                tvalid += 1;
            }
        }
        // Data: every lpn resolves to a valid data page tagged with it.
        let mut mapped = 0u64;
        for l in 0..self.logical_pages {
            if let Some(p) = self.lookup(Lpn(l), nand) {
                assert!(nand.is_valid(p), "lpn {l} maps to invalid {p:?}");
                assert_eq!(nand.oob(p).lpn, Lpn(l), "OOB of {p:?}");
                assert!(
                    !self.is_trans(self.bm.geo.block_of(p)),
                    "lpn {l} in a translation block"
                );
                mapped += 1;
            }
        }
        let mut valid_data = 0u64;
        let mut valid_trans = 0u64;
        for b in 0..self.bm.geo.blocks() {
            let id = BlockId(b);
            let v = nand.valid_count(id) as u64;
            if self.is_trans(id) {
                valid_trans += v;
            } else {
                valid_data += v;
            }
        }
        assert_eq!(mapped, valid_data, "mapped pages != valid data pages");
        assert_eq!(
            tvalid, valid_trans,
            "GTD entries != valid translation pages"
        );
        self.bm.check_invariants(nand);
    }
}
