//! Flash translation layers, one file each behind [`Ftl`], each exporting its [`FtlSpec`] (name, capabilities, own sections, validation, feasibility, memory estimate, counters, constructor), registered in [`FTLS`] (`spec.rs`).
//!
//! An FTL is plain synchronous code: it decides which pages move and asks the
//! [`Nand`](crate::nand::Nand) to do it. The NAND counts every operation by cause, so
//! write amplification, copies and erases are never counted by an FTL itself.
//!
//! Counter keys every FTL uses when it has the concept (others are FTL-specific):
//! `ftl.merge.switch`, `ftl.merge.partial`, `ftl.merge.full` (log-block merges by kind),
//! `ftl.lookup.count` and `ftl.lookup.probes` (map lookups and table entries visited by
//! them, so probes / count = translation cost per lookup), `ftl.lookup.slot_probes` (of
//! those probes, the block page slots a block-mapped lookup examined — a primary page
//! checked, replacement pages scanned — each a spare-area read on a real device, where
//! the rest are table probes in RAM), `ftl.cmt.hits` and
//! `ftl.cmt.misses` (cached-map FTLs; their extra flash reads and writes show up as NAND
//! operations of cause `Map`).

pub mod aftl;
pub mod bast;
mod blocks;
pub mod cftl;
pub mod dftl;
pub mod fast;
pub mod faster;
pub mod feasible;
pub mod gc;
pub mod hash;
pub mod layout;
pub mod logblock;
pub mod nftl;
pub mod nftl_log;
pub mod page;
mod page_fdp;
mod recovery;
#[doc(hidden)]
pub use recovery::check_read_back;
pub mod spec;
pub mod superblock;
mod twolevel;
mod twolevel_ftl;
pub mod zoned;
pub use spec::{FTLS, FtlSpec, Section, register};

use crate::nand::{Geometry, Lpn, Nand, Ppn};
use crate::spec::{ConfigError, Counter, Counters, check_range};
use crate::units::Size;
use gc::{GcPolicyKind, GcSchedule, PolicyParams, SuspendConfig};
use layout::{ChannelPlacement, Placement};
use serde::{Deserialize, Serialize};

/// Reported as `ftl.retired_blocks`.
pub const RETIRED_BLOCKS: Counter = Counter::total(
    "ftl.retired_blocks",
    "blocks",
    "blocks the FTL retired as bad (erased up to the rated endurance)",
);
/// Reported as `ftl.lookup.count`.
pub const LOOKUP_COUNT: Counter = Counter::total(
    "ftl.lookup.count",
    "lookups",
    "map lookups by host reads, writes and trims",
);
/// Reported as `ftl.lookup.probes`.
pub const LOOKUP_PROBES: Counter = Counter::total(
    "ftl.lookup.probes",
    "probes",
    "map entries, hash nodes, buckets or page slots the lookups examined (probes / count = translation cost per lookup)",
);
/// Reported as `ftl.lookup.slot_probes`.
pub const LOOKUP_SLOT_PROBES: Counter = Counter::total(
    "ftl.lookup.slot_probes",
    "probes",
    "of the probes, page slots read from a block's spare area (primary page checked, replacement pages scanned, cluster pages loaded)",
);
/// Reported as `ftl.mapping.coarse_bytes`.
pub const MAPPING_COARSE_BYTES: Counter = Counter::gauge(
    "ftl.mapping.coarse_bytes",
    "bytes",
    "RAM of the coarse (block-level) map",
);
/// Reported as `ftl.mapping.fine_bytes`.
pub const MAPPING_FINE_BYTES: Counter = Counter::gauge(
    "ftl.mapping.fine_bytes",
    "bytes",
    "RAM of the fine (page-level) tables",
);
/// Reported as `ftl.recovery_merges`.
pub const RECOVERY_MERGES: Counter = Counter::total(
    "ftl.recovery_merges",
    "merges",
    "logical blocks rebuilt by recovery merges (or folds) at power-up",
);
/// The counters every FTL reports when it has the concept (the keys above).
pub const SHARED_COUNTERS: &[Counter] = &[
    RETIRED_BLOCKS,
    LOOKUP_COUNT,
    LOOKUP_PROBES,
    LOOKUP_SLOT_PROBES,
    MAPPING_COARSE_BYTES,
    MAPPING_FINE_BYTES,
    RECOVERY_MERGES,
];

/// The counters every registered FTL may report: the shared keys, then each spec's
/// declarations (a list shared by several FTLs appears once).
pub fn counter_groups() -> Vec<&'static [Counter]> {
    let mut out: Vec<&'static [Counter]> = vec![SHARED_COUNTERS];
    for group in spec::specs().iter().flat_map(|s| s.counters.iter()) {
        if !out.iter().any(|g| {
            std::ptr::eq(*g, *group) || g.first().map(|c| c.key) == group.first().map(|c| c.key)
        }) {
            out.push(group);
        }
    }
    out
}

/// How many requests ahead the simulator announces a request's first page through
/// [`Ftl::prefetch_early`]. A random map entry of a multi-GiB table costs a DRAM access
/// and often a page walk (~100-200 ns here); a request without GC takes ~50 ns, so one
/// request ahead is too late and a few are needed.
pub const PREFETCH_AHEAD: usize = 4;

/// A command a zoned FTL takes ([`Ftl::zone_command`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ZoneCommand {
    /// Write at the zone's write pointer.
    Write,
    /// Zone Append: write at the write pointer of the zone starting at the address.
    Append,
    /// Reset Zone.
    Reset,
    /// Finish Zone.
    Finish,
    /// Open Zone.
    Open,
    /// Close Zone.
    Close,
}

/// How a zoned command completed ([`Ftl::zone_command`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneReply {
    /// Performed.
    Done,
    /// An append performed: the first logical page it wrote (the completion's LBA).
    Appended(u64),
    /// Refused with the specification's status; nothing changed.
    Refused(crate::zns::ZnsStatus),
    /// The FTL has no zones (a conventional drive: Invalid Command Opcode).
    NotZoned,
}

/// Errors an FTL can report (everything else is a bug and panics).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FtlError {
    /// No free block left and nothing to reclaim.
    #[error(
        "out of free blocks in plane {plane}: the device is full of valid data (more over-provisioning needed)"
    )]
    OutOfSpace {
        /// Plane that ran dry.
        plane: u32,
    },
    /// Worn-out blocks have been retired until a unit has no spare block left: the drive
    /// is at the end of its life.
    #[error(
        "end of life: {retired} blocks were retired after reaching their endurance of \
         {endurance} P/E cycles, and plane {plane} has no spare block left for new data"
    )]
    EndOfLife {
        /// Plane (first of its GC unit) that ran out of spare blocks.
        plane: u32,
        /// Blocks retired over the whole device.
        retired: u64,
        /// The endurance they reached.
        endurance: u32,
    },
    /// A block-mapped FTL found no free block although its block budget should keep one.
    #[error("{ftl}: no free block left (a bug: its block budget should prevent this)")]
    NoFreeBlock {
        /// Which FTL.
        ftl: &'static str,
    },
}

/// Why an FTL could not rebuild its RAM state from flash at power-up ([`Ftl::recover`]).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum RecoverError {
    /// The FTL has no recovery from flash.
    #[error(
        "the {ftl} FTL has no recovery from flash yet (its log-block / hash-table state \
         cannot be rebuilt from OOB tags by this version)"
    )]
    Unsupported {
        /// Which FTL.
        ftl: &'static str,
    },
    /// The FTL was mounted without the flash contents it rebuilds from.
    #[error("{ftl} recovery needs the flash contents")]
    NoData {
        /// Which FTL.
        ftl: &'static str,
    },
    /// The flash holds pages this FTL never writes that way (another FTL's or device's
    /// data, or a state it cannot reach).
    #[error("{ftl} recovery: {what}")]
    Foreign {
        /// Which FTL.
        ftl: &'static str,
        /// What was found, naming the block or page.
        what: String,
    },
    /// A merge, fold or collection the remount needs failed.
    #[error("{ftl} recovery: {step}{source}")]
    Flash {
        /// Which FTL.
        ftl: &'static str,
        /// What it was doing ("folding logical block 3: "), or empty.
        step: String,
        /// The failure.
        source: FtlError,
    },
}

impl RecoverError {
    /// [`RecoverError::Flash`] without a step.
    pub fn flash(ftl: &'static str) -> impl Fn(FtlError) -> RecoverError + Copy {
        move |source| RecoverError::Flash {
            ftl,
            step: String::new(),
            source,
        }
    }
}

/// Copies a boxed FTL: implemented for every `Ftl + Clone`, so an FTL only derives
/// `Clone` (the `dyn-clone` pattern without the crate).
pub trait FtlClone {
    /// An exact copy of this FTL's state.
    fn clone_box(&self) -> Box<dyn Ftl>;
}

impl<T: Ftl + Clone + 'static> FtlClone for T {
    fn clone_box(&self) -> Box<dyn Ftl> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn Ftl> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// A flash translation layer. The caller guarantees `lpn < logical_pages()`.
/// After any call returns, every written, untrimmed `lpn` reads back its latest write.
/// Every FTL is `Clone` (through [`FtlClone`]) so that a preconditioned drive can be
/// copied exactly and several measurements start from one aged state.
pub trait Ftl: Send + FtlClone {
    /// Registered name.
    fn name(&self) -> &'static str;
    /// Logical pages exported to the host.
    fn logical_pages(&self) -> u64;
    /// Reads `lpn` (one host flash read when mapped); `None` = never written or trimmed.
    fn read(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<Option<Ppn>, FtlError>;
    /// Where `lpn` lives now, without any counted flash operation. FTLs that locate pages
    /// by their OOB tags (NFTL-style replacement-block scans) read them from `nand`.
    fn lookup(&self, lpn: Lpn, nand: &Nand) -> Option<Ppn>;
    /// Writes new data for `lpn`.
    fn write(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError>;
    /// Discards `lpn`.
    fn trim(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError>;
    /// Bytes of RAM the mapping structures need (formula in each FTL's docs).
    fn mapping_bytes(&self) -> u64;
    /// FTL-specific counters, e.g. `ftl.gc.victims`: running totals since the FTL was
    /// built (the report subtracts the preconditioning's share), except the state
    /// values declared gauges ([`Counter`]).
    fn counters(&self, out: &mut Counters);
    /// Blocks held back from user data (GC reserve and open frontiers), for analytic
    /// comparisons of write amplification.
    fn reserved_blocks(&self) -> u64;
    /// Called before each host command's FTL work (its pages' reads or writes, and the
    /// write-back of the buffer victims it evicts): the operations until the next call
    /// are issued together. DFTL with `coalesce_misses` lets the misses of one command on
    /// a translation page share one read.
    fn begin_command(&mut self) {}
    /// Sets the FDP placement identifier (and namespace) of the writes that follow;
    /// FTLs without FDP ignore it.
    fn set_placement(&mut self, _namespace: u32, _pid: Option<u16>) {}
    /// Hints that `lpn` will be accessed soon (the simulator passes the next request's
    /// first page), so a large mapping table's cache miss can overlap current work.
    fn prefetch(&self, _lpn: Lpn) {}
    /// Hints that `lpn` will be accessed a few requests from now (the simulator passes
    /// the first page of the request [`PREFETCH_AHEAD`] positions ahead): far enough
    /// that the map entry is in cache by the time [`Ftl::prefetch_next`] reads it.
    fn prefetch_early(&self, _lpn: Lpn) {}
    /// Hints that `lpn` is the next request's first page. The map entry was asked for
    /// by [`Ftl::prefetch_early`], so an FTL may read it and prefetch the flash state
    /// the write will touch (the old page's validity word and block). By default this is
    /// [`Ftl::prefetch`].
    fn prefetch_next(&self, lpn: Lpn, _nand: &Nand) {
        self.prefetch(lpn);
    }
    /// Whether the FTL programs the pages of a block strictly in order, as modern NAND
    /// requires. Old FTLs that write a page at its fixed offset (NFTL, BAST's data
    /// blocks) return `false`; the simulator then builds the [`Nand`] in relaxed mode,
    /// which still refuses to program a page twice without an erase.
    fn programs_in_order(&self) -> bool {
        true
    }
    /// Panics if the FTL's structures disagree with the NAND (tests call this often).
    fn check_invariants(&self, nand: &Nand);
    /// Rebuilds the FTL's RAM state at power-up from what is on flash alone: `nand` was
    /// just mounted ([`Nand::mount`]: pages programmed, none valid) and `tags` are the OOB
    /// tags its scan read. The FTL (freshly built) marks the pages its mapping keeps valid
    /// and rebuilds its structures. `Err` names why this FTL cannot recover.
    fn recover(
        &mut self,
        _nand: &mut Nand,
        _tags: &[Option<crate::nand::StoredTag>],
    ) -> Result<(), RecoverError> {
        Err(RecoverError::Unsupported { ftl: self.name() })
    }
    /// One step of background GC in device idle time (`ftl.gc_schedule =
    /// "background"`): reclaims at most one victim; `false` when there is nothing worth
    /// collecting now. The simulator calls it while the device is idle, timing each
    /// step's operations from the start of the idle period. Other FTLs and schedules do
    /// nothing.
    fn collect_idle(&mut self, _nand: &mut Nand) -> Result<bool, FtlError> {
        Ok(false)
    }
    /// Called once when preconditioning ends, before the measured phase begins; its
    /// flash operations count as preconditioning. DFTL with `cmt_start = "cold"` writes
    /// back its dirty cached map entries and empties its CMT here; other FTLs keep their
    /// state.
    fn end_preconditioning(&mut self, _nand: &mut Nand) -> Result<(), FtlError> {
        Ok(())
    }
    /// Writes the `count` pages from `first` as one host command. FTLs that map units
    /// larger than a page (management blocks) override this so one command rewrites a
    /// unit once, not once per page.
    fn write_range(&mut self, first: Lpn, count: u32, nand: &mut Nand) -> Result<(), FtlError> {
        for lpn in first.0..first.0 + count {
            self.write(Lpn(lpn), nand)?;
        }
        Ok(())
    }
    /// The zones of a zoned FTL (NVMe ZNS, `ftl/zoned.rs`); `None` for a conventional
    /// FTL, which refuses every zone command.
    fn zones(&self) -> Option<&crate::zns::Zones> {
        None
    }
    /// The zones, to perform a Report Zones command on (it counts itself); `None` for a
    /// conventional FTL.
    fn zones_mut(&mut self) -> Option<&mut crate::zns::Zones> {
        None
    }
    /// A command of a zoned drive on the `pages` logical pages from `first` (one logical
    /// block is one flash page): a write at the write pointer, an append, or a zone
    /// management action on the zone starting at `first` (`pages` 0). A refusal is the
    /// specification's status, counted by the FTL, with nothing changed; a conventional
    /// FTL answers [`ZoneReply::NotZoned`] (the device counts it as Invalid Command
    /// Opcode) and takes writes through [`Ftl::write_range`] instead.
    fn zone_command(
        &mut self,
        _cmd: ZoneCommand,
        _first: Lpn,
        _pages: u32,
        _nand: &mut Nand,
    ) -> Result<ZoneReply, FtlError> {
        Ok(ZoneReply::NotZoned)
    }
    /// The pages of the aligned unit a host write rewrites whole, when a write smaller
    /// than that unit costs a read-modify-write of the rest (by-address placement in
    /// management blocks, docs/papers.md §1); `None` for an FTL that writes pages where
    /// it likes. A write buffer in front of such an FTL takes every dirty page it holds
    /// of an evicted page's unit into the one rewrite ([`Ftl::write_set`]): otherwise
    /// the rewrite would copy stale data from flash while the newer copy waits in DRAM,
    /// and rewrite the unit again for each of them.
    fn rewrite_unit_pages(&self) -> Option<u32> {
        None
    }
    /// Writes the pages `lpns` (ascending, not necessarily consecutive) as one command
    /// from the write buffer: an FTL with [`Ftl::rewrite_unit_pages`] rewrites each unit
    /// they touch once, with these pages' new data and the rest of the unit copied. The
    /// default writes each run of consecutive pages with [`Ftl::write_range`].
    fn write_set(&mut self, lpns: &[Lpn], nand: &mut Nand) -> Result<(), FtlError> {
        let mut i = 0;
        while i < lpns.len() {
            let mut j = i + 1;
            while j < lpns.len() && lpns[j].0 == lpns[j - 1].0 + 1 {
                j += 1;
            }
            self.write_range(lpns[i], (j - i) as u32, nand)?;
            i = j;
        }
        Ok(())
    }
    /// Writes each page of `lpns` as its own one-page command ([`Ftl::write_range`] with
    /// a count of 1), in order: a write buffer's victims, which need not be consecutive.
    /// FTLs override this only to fetch the coming pages' map entries ahead.
    fn write_each(&mut self, lpns: &[Lpn], nand: &mut Nand) -> Result<(), FtlError> {
        for &lpn in lpns {
            self.write_range(lpn, 1, nand)?;
        }
        Ok(())
    }
    /// The FDP statistics and event counts (the report's `fdp` section): `None` unless
    /// the FTL has FDP enabled (`ftl.fdp.enabled`).
    fn fdp_report(&self) -> Option<crate::fdp::FdpReport> {
        None
    }
}

/// A registered FTL (the `name` key of `[ftl]` / `--ftl`): a handle on its [`FtlSpec`],
/// compared, printed and (de)serialised by name. The associated constants name the
/// built-ins for code that means one of them; the registry ([`spec::FTLS`] and
/// [`spec::register`]) is the list.
#[derive(Clone, Copy)]
pub struct FtlKind(&'static FtlSpec);

#[allow(non_upper_case_globals)]
impl FtlKind {
    /// Page-level mapping (ideal page FTL).
    pub const Page: FtlKind = FtlKind(&page::SPEC);
    /// NFTL: primary + replacement-unit chains, folding.
    pub const Nftl: FtlKind = FtlKind(&nftl::SPEC);
    /// BAST: one log block per data block.
    pub const Bast: FtlKind = FtlKind(&bast::SPEC);
    /// FAST: fully associative random log + one sequential log block.
    pub const Fast: FtlKind = FtlKind(&fast::SPEC);
    /// FASTer: FAST with second chance and isolation.
    pub const Faster: FtlKind = FtlKind(&faster::SPEC);
    /// Adaptive two-level FTL (coarse + fine hash tables).
    pub const Aftl: FtlKind = FtlKind(&aftl::SPEC);
    /// Clustered FTL (clustered hash tables, two-level fine tables).
    pub const Cftl: FtlKind = FtlKind(&cftl::SPEC);
    /// Demand-based page mapping (cached mapping table).
    pub const Dftl: FtlKind = FtlKind(&dftl::SPEC);
    /// Zoned namespace drive (zones, no page map, no GC).
    pub const Zoned: FtlKind = FtlKind(&zoned::SPEC);
}

impl Default for FtlKind {
    fn default() -> Self {
        FtlKind::Page
    }
}

impl PartialEq for FtlKind {
    fn eq(&self, other: &FtlKind) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for FtlKind {}

impl std::hash::Hash for FtlKind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.name.hash(state);
    }
}

/// As the enum it replaced printed it (`Page`, `Dftl`): `{:?}` of configs appears in
/// test messages.
impl std::fmt::Debug for FtlKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut chars = self.0.name.chars();
        if let Some(c) = chars.next() {
            write!(f, "{}{}", c.to_ascii_uppercase(), chars.as_str())?;
        }
        Ok(())
    }
}

impl Serialize for FtlKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name)
    }
}

impl<'de> Deserialize<'de> for FtlKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(d)?;
        FtlKind::from_name(&name)
            .ok_or_else(|| serde::de::Error::unknown_variant(&name, spec::tables().names))
    }
}

impl FtlKind {
    /// The handle of `spec` (registered or not: [`spec::register`] makes it known by
    /// name).
    pub const fn of(spec: &'static FtlSpec) -> FtlKind {
        FtlKind(spec)
    }

    /// Its spec.
    pub fn spec(self) -> &'static FtlSpec {
        self.0
    }

    /// The registered FTL called `name`.
    pub fn from_name(name: &str) -> Option<FtlKind> {
        spec::tables().all.iter().find(|e| e.1 == name).map(|e| e.0)
    }

    /// Every FTL with a one-line description, for `ssdlab list`: the registry.
    pub fn all() -> &'static [(FtlKind, &'static str, &'static str)] {
        spec::tables().all
    }

    /// The FTL's name as `--ftl` takes it.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// Whether the FTL is a zoned drive (`ftl/zoned.rs`): written only at its zones'
    /// write pointers, so the random-write tests and workloads of a conventional drive
    /// do not apply to it (tests/zoned.rs checks it against a model of its zones).
    pub fn is_zoned(self) -> bool {
        self.0.name == zoned::SPEC.name
    }

    /// Whether the FTL uses the `gc` victim policy (the block-mapped ones fold instead).
    pub fn uses_gc_policy(self) -> bool {
        self.0.caps.gc_policy
    }

    /// Whether the FTL collects when free blocks fall below `gc_low_free_blocks` (per
    /// plane for page and DFTL, device-wide for the hash FTLs; the log-block FTLs merge
    /// on demand instead).
    pub fn uses_free_block_watermarks(self) -> bool {
        self.0.caps.free_block_watermarks
    }

    /// Whether `ftl.gc_schedule` can be set away from `foreground` (and `[ftl.suspend]`
    /// read): the FTLs whose GC is a per-plane collection in `blocks.rs`. Which
    /// schedules each supports: [`FtlKind::supports_gc_schedule`].
    pub fn uses_gc_schedule(self) -> bool {
        self.0.caps.gc_schedules.len() > 1
    }

    /// Whether the FTL runs GC on `schedule`. Every FTL runs `foreground` (the
    /// block-mapped ones merge on the write path, the hash FTLs fold there); `preemptive`
    /// needs GC operations on the physical pages of one plane (page FTL, DFTL);
    /// `background` needs an idle-time hook, which only the page FTL has (DFTL's
    /// collections interleave with its translation-page writes and are not split yet).
    pub fn supports_gc_schedule(self, schedule: GcSchedule) -> bool {
        self.0.caps.gc_schedules.contains(&schedule)
    }

    /// Whether GC copies get their own (colder) frontier.
    pub fn uses_hot_cold(self) -> bool {
        self.0.caps.hot_cold
    }

    /// Whether the FTL does static wear leveling (DFTL has none).
    pub fn uses_static_wl(self) -> bool {
        self.0.caps.static_wl
    }

    /// Whether the FTL has a page-level management block and in-block placement
    /// (`ftl.mgmt_block`, `ftl.placement`).
    pub fn uses_page_layout(self) -> bool {
        self.0.caps.page_layout
    }

    /// Whether the FTL maps whole erase blocks (and so takes a superblock as its
    /// management block).
    pub fn maps_blocks(self) -> bool {
        self.0.caps.maps_blocks
    }

    /// Whether `ftl.channel_placement` chooses something: the page FTL's management
    /// blocks, or the member planes of a block-mapped FTL's superblock.
    pub fn uses_channel_placement(self) -> bool {
        self.uses_page_layout() || self.maps_blocks()
    }

    /// Whether the FTL has the `[ftl.log]` log area (BAST, FAST, FASTer).
    pub fn uses_log_area(self) -> bool {
        self.0.reads_section("log")
    }

    /// The key `--mgmt-block` sets for this FTL: the page FTL's management block, the
    /// block-mapped FTLs' superblock; `None` for DFTL, which has neither.
    pub fn mgmt_block_key(self) -> Option<&'static str> {
        if self.uses_page_layout() {
            Some("ftl.mgmt_block")
        } else if self.maps_blocks() {
            Some("ftl.superblock")
        } else {
            None
        }
    }

    /// Names of the FTLs for which `pred` holds, comma separated (for messages).
    pub fn names_where(pred: impl Fn(FtlKind) -> bool) -> String {
        let names: Vec<&str> = FtlKind::all()
            .iter()
            .filter(|e| pred(e.0))
            .map(|e| e.1)
            .collect();
        names.join(", ")
    }
}

/// A key of `[ftl]` (relative to it; `"log"` covers the whole `[ftl.log]` table) and the
/// FTLs that read it. A key set by a file or a flag away from its default on an FTL that
/// does not read it is refused (by `config::Design`, which aggregates the sections), so a comparison never shows
/// two identical runs labelled differently.
#[derive(Clone, Copy, Debug)]
pub struct Knob {
    /// Key under `[ftl]`, or a sub-table name for all its keys.
    pub key: &'static str,
    /// What it sets, for the message ("the bast FTL does not use {what}").
    pub what: &'static str,
    /// Which FTLs read it.
    pub users: Users,
}

/// Which FTLs read a [`Knob`]: a capability of their specs, or a section they list.
#[derive(Clone, Copy, Debug)]
pub enum Users {
    /// Those whose spec has the capability.
    Capability(fn(FtlKind) -> bool),
    /// Those whose spec lists this `[ftl]` section ([`FtlSpec::sections`]).
    Section(&'static str),
}

impl Knob {
    /// Whether FTL `kind` reads this knob.
    pub fn used_by(&self, kind: FtlKind) -> bool {
        match self.users {
            Users::Capability(f) => f(kind),
            Users::Section(key) => kind.spec().reads_section(key),
        }
    }

    /// The FTLs that read it, comma separated (for messages).
    pub fn users(&self) -> String {
        FtlKind::names_where(|k| self.used_by(k))
    }
}

fn every_ftl(_: FtlKind) -> bool {
    true
}

/// Every `[ftl]` key shared by several FTLs, and which capability of a spec reads it;
/// each FTL's own sections come from its spec ([`FtlSpec::sections`]). More specific
/// keys come first: [`knob`] takes the first entry that is the key or a table holding it.
pub const KNOBS: &[Knob] = &[
    Knob {
        key: "name",
        what: "",
        users: Users::Capability(every_ftl),
    },
    Knob {
        key: "gc",
        what: "a GC victim policy",
        users: Users::Capability(FtlKind::uses_gc_policy),
    },
    Knob {
        key: "gc_d",
        what: "d-choices sampling",
        users: Users::Capability(FtlKind::uses_gc_policy),
    },
    Knob {
        key: "gc_low_free_blocks",
        what: "free-block GC watermarks",
        users: Users::Capability(FtlKind::uses_free_block_watermarks),
    },
    Knob {
        key: "gc_high_free_blocks",
        what: "free-block GC watermarks",
        users: Users::Capability(FtlKind::uses_free_block_watermarks),
    },
    Knob {
        key: "gc_schedule",
        what: "a GC schedule (its merges or folds run on the write path)",
        users: Users::Capability(FtlKind::uses_gc_schedule),
    },
    Knob {
        key: "suspend",
        what: "program/erase suspension of GC",
        users: Users::Capability(FtlKind::uses_gc_schedule),
    },
    Knob {
        key: "hot_cold",
        what: "a hot/cold split of GC copies",
        users: Users::Capability(FtlKind::uses_hot_cold),
    },
    Knob {
        key: "dynamic_wl",
        what: "dynamic wear leveling",
        users: Users::Capability(every_ftl),
    },
    Knob {
        key: "static_wl_threshold",
        what: "static wear leveling",
        users: Users::Capability(FtlKind::uses_static_wl),
    },
    Knob {
        key: "static_wl_check_erases",
        what: "static wear leveling",
        users: Users::Capability(FtlKind::uses_static_wl),
    },
    Knob {
        key: "mgmt_block",
        what: "a page-level management block (block-mapped FTLs take ftl.superblock)",
        users: Users::Capability(FtlKind::uses_page_layout),
    },
    Knob {
        key: "placement",
        what: "in-block page placement",
        users: Users::Capability(FtlKind::uses_page_layout),
    },
    Knob {
        key: "superblock",
        what: "superblocks of erase blocks (the page FTL takes ftl.mgmt_block)",
        users: Users::Capability(FtlKind::maps_blocks),
    },
    Knob {
        key: "channel_placement",
        what: "channel placement of management blocks or superblocks",
        users: Users::Capability(FtlKind::uses_channel_placement),
    },
];

fn holds(table: &str, key: &str) -> bool {
    key == table
        || key
            .strip_prefix(table)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// The [`Knob`] for `key` (relative to `[ftl]`, dotted for sub-tables): a section some
/// registered FTL lists (the most specific first: `log.victim` before `log`), else a
/// shared key of [`KNOBS`].
pub fn knob(key: &str) -> Option<Knob> {
    let mut best: Option<Section> = None;
    for s in spec::specs().iter().flat_map(|s| s.sections.iter()) {
        if holds(s.key, key) && best.is_none_or(|b| s.key.len() > b.key.len()) {
            best = Some(*s);
        }
    }
    if let Some(s) = best {
        return Some(Knob {
            key: s.key,
            what: s.what,
            users: Users::Section(s.key),
        });
    }
    KNOBS.iter().find(|k| holds(k.key, key)).copied()
}

/// `[ftl]` table: which FTL, and the GC and wear-leveling settings it uses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FtlConfig {
    /// Which FTL.
    pub name: FtlKind,
    /// GC victim policy.
    pub gc: GcPolicyKind,
    /// GC starts when a plane has fewer free blocks than this (at least 2).
    pub gc_low_free_blocks: u32,
    /// GC stops once the plane has this many free blocks.
    pub gc_high_free_blocks: u32,
    /// When GC runs: on the write path (`foreground`), in idle time (`background`) or
    /// on the write path but suspendable by host reads (`preemptive`); see
    /// [`gc::GcSchedule`].
    pub gc_schedule: GcSchedule,
    /// `[ftl.suspend]`: suspend latencies of `gc_schedule = "preemptive"`.
    pub suspend: SuspendConfig,
    /// Separate write frontier for GC-relocated (colder) pages.
    pub hot_cold: bool,
    /// Dynamic wear leveling: allocate the least-worn free block.
    pub dynamic_wl: bool,
    /// Static wear leveling: relocate the coldest block's data when a plane's erase-count
    /// spread reaches this; 0 = off.
    pub static_wl_threshold: u32,
    /// Check the spread every this many erases per plane.
    pub static_wl_check_erases: u32,
    /// Samples per selection for `d-choices`.
    pub gc_d: u32,
    /// Page FTL's SSD management block: the unit a `by-address` layout rewrites and a
    /// `one-channel` layout keeps on one channel (0 = one flash page; a multiple of the
    /// page size).
    pub mgmt_block: Size,
    /// Block-mapped FTLs' management block: a superblock of whole erase blocks on as
    /// many planes (0 = one erase block; see [`superblock`]).
    pub superblock: Size,
    /// Placement of pages inside a management block.
    pub placement: Placement,
    /// Placement of a management block's pages on channels.
    pub channel_placement: ChannelPlacement,
    /// `[ftl.log]`: log area of BAST, FAST and FASTer.
    pub log: logblock::LogConfig,
    /// `[ftl.nftl]`: NFTL chains and folding.
    pub nftl: nftl::NftlConfig,
    /// `[ftl.faster]`: FASTer's second chance and isolation.
    pub faster: faster::FasterConfig,
    /// `[ftl.aftl]` settings.
    pub aftl: aftl::AftlConfig,
    /// `[ftl.cftl]` settings.
    pub cftl: cftl::CftlConfig,
    /// `[ftl.dftl]` settings.
    pub dftl: dftl::DftlConfig,
    /// `[ftl.fdp]`: Flexible Data Placement (page FTL only; docs/fdp.md). Left out of a
    /// report's config when untouched, so reports from before it existed stay equal.
    #[serde(skip_serializing_if = "crate::fdp::FdpConfig::is_default")]
    pub fdp: crate::fdp::FdpConfig,
    /// `[ftl.zoned]`: the zoned drive's zones (left out of the config echo while
    /// default, so reports of other designs stay as they were).
    #[serde(skip_serializing_if = "zoned::ZonedConfig::is_default")]
    pub zoned: zoned::ZonedConfig,
    /// The values defaults and preset gave (set by `config::Config::load`), to
    /// tell a preset's settings for its own FTL from a user's: not configuration itself.
    #[serde(skip)]
    pub preset: PresetFtl,
}

/// `[ftl]` as the built-in defaults and the preset leave it, before the user's file and
/// flags; `None` for a config built in code (then only the defaults count). Equal to any
/// other: two configs with the same settings are the same design whatever their history.
#[derive(Clone, Debug, Default)]
pub struct PresetFtl(pub Option<Box<FtlConfig>>);

impl PartialEq for PresetFtl {
    fn eq(&self, _: &PresetFtl) -> bool {
        true
    }
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            name: FtlKind::Page,
            gc: GcPolicyKind::Greedy,
            gc_low_free_blocks: 2,
            gc_high_free_blocks: 3,
            gc_schedule: GcSchedule::Foreground,
            suspend: SuspendConfig::default(),
            hot_cold: true,
            dynamic_wl: true,
            static_wl_threshold: 0,
            static_wl_check_erases: 64,
            gc_d: 10,
            mgmt_block: Size(0),
            superblock: Size(0),
            placement: Placement::WriteOrder,
            channel_placement: ChannelPlacement::Striped,
            log: Default::default(),
            nftl: Default::default(),
            faster: Default::default(),
            aftl: aftl::AftlConfig::default(),
            cftl: cftl::CftlConfig::default(),
            dftl: dftl::DftlConfig::default(),
            fdp: crate::fdp::FdpConfig::default(),
            zoned: zoned::ZonedConfig::default(),
            preset: PresetFtl::default(),
        }
    }
}

impl FtlConfig {
    /// Applies `--mgmt-block SIZE` to the key this FTL reads ([`FtlKind::mgmt_block_key`]):
    /// the page FTL's `mgmt_block`, the block-mapped FTLs' `superblock`. DFTL has
    /// neither; it gets `mgmt_block`, which validation then refuses naming its users.
    pub fn set_mgmt_block_flag(&mut self, size: Size) {
        match self.name.mgmt_block_key() {
            Some("ftl.superblock") => self.superblock = size,
            _ => self.mgmt_block = size,
        }
    }

    /// The suspend latencies the time model uses: `Some` with `gc_schedule =
    /// "preemptive"` only.
    pub fn suspend_params(&self) -> Option<crate::timing::SuspendParams> {
        (self.gc_schedule == GcSchedule::Preemptive).then_some(crate::timing::SuspendParams {
            program_ns: self.suspend.program_ns,
            erase_ns: self.suspend.erase_ns,
        })
    }

    /// Checks settings that do not depend on the device.
    pub fn validate(&self) -> Result<(), ConfigError> {
        // Blocks, not a share: with thousands of blocks per plane a few suffice, and the
        // geometry check below names the per-plane budget.
        check_range(
            "ftl.gc_low_free_blocks",
            self.gc_low_free_blocks,
            2,
            MAX_FREE_BLOCKS,
            "free blocks; GC needs one to copy into",
        )?;
        if self.gc_high_free_blocks < self.gc_low_free_blocks {
            return Err(ConfigError::value(
                "ftl.gc_high_free_blocks",
                self.gc_high_free_blocks,
                format!(
                    "at least ftl.gc_low_free_blocks = {}",
                    self.gc_low_free_blocks
                ),
            ));
        }
        check_range(
            "ftl.gc_high_free_blocks",
            self.gc_high_free_blocks,
            2,
            MAX_FREE_BLOCKS,
            "free blocks",
        )?;
        check_range(
            "ftl.gc_d",
            self.gc_d,
            1,
            MAX_GC_D,
            "candidates sampled per victim choice",
        )?;
        check_range(
            "ftl.static_wl_check_erases",
            self.static_wl_check_erases,
            1,
            u32::MAX,
            "erases per plane between spread checks",
        )?;
        for (key, v) in [
            ("ftl.suspend.program_ns", self.suspend.program_ns),
            ("ftl.suspend.erase_ns", self.suspend.erase_ns),
        ] {
            check_range(key, v, 0, gc::MAX_SUSPEND_NS, "ns")?;
        }
        // FTLs that read neither key are refused by the knob check (config/design.rs),
        // which names the FTLs that do.
        if self.name.uses_gc_schedule() && !self.name.supports_gc_schedule(self.gc_schedule) {
            return Err(ConfigError::value(
                "ftl.gc_schedule",
                self.gc_schedule.name(),
                format!(
                    "foreground or preemptive with the {} FTL (background: page only)",
                    self.name.name()
                ),
            ));
        }
        if self.name.uses_gc_schedule()
            && self.gc_schedule != GcSchedule::Preemptive
            && self.suspend != SuspendConfig::default()
        {
            return Err(ConfigError::value(
                "ftl.suspend",
                format!(
                    "program_ns {} erase_ns {}",
                    self.suspend.program_ns, self.suspend.erase_ns
                ),
                format!(
                    "its default unless ftl.gc_schedule = \"preemptive\" (gc_schedule = {} \
                     suspends nothing)",
                    self.gc_schedule.name()
                ),
            ));
        }
        // Every registered FTL's own sections, whichever FTL is chosen: a section of
        // another FTL set away from its defaults is refused by the knob check, and its
        // values are checked here so the order of the messages does not depend on it.
        for spec in spec::specs() {
            (spec.validate)(self)?;
        }
        Ok(())
    }
}

/// Largest `gc_low_free_blocks` / `gc_high_free_blocks`: a reserve beyond this is a
/// share of the device, which `device.op_percent` sets.
pub const MAX_FREE_BLOCKS: u32 = 1 << 16;

/// Largest `gc_d`: d-choices samples `d` blocks per victim choice, and Van Houdt's
/// analysis shows little gain past a few tens; a million made runs take minutes.
pub const MAX_GC_D: u32 = 64;

/// Pages per management block for `cfg` on `geo`, or why the size does not fit.
pub fn unit_pages(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> Result<u32, ConfigError> {
    let page = geo.page_size_bytes as u64;
    let bytes = cfg.mgmt_block.bytes();
    if bytes == 0 {
        return Ok(1);
    }
    if !bytes.is_multiple_of(page) {
        return Err(ConfigError::value(
            "ftl.mgmt_block",
            cfg.mgmt_block,
            format!("a multiple of the {} page size", Size(page)),
        ));
    }
    let pages = bytes / page;
    if pages > logical_pages {
        return Err(ConfigError::value(
            "ftl.mgmt_block",
            cfg.mgmt_block,
            format!(
                "at most the logical capacity {}",
                Size(logical_pages * page)
            ),
        ));
    }
    Ok(pages as u32)
}

/// Builds the configured FTL over `geo`, exporting `logical_pages`.
pub fn build_ftl(
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
    seed: u64,
) -> Result<Box<dyn Ftl>, ConfigError> {
    cfg.validate()?;
    let params = PolicyParams { d: cfg.gc_d, seed };
    (cfg.name.spec().build)(cfg, geo, logical_pages, params)
}
