//! What the rest of the simulator knows about an FTL: its [`FtlSpec`], exported by the
//! FTL's own file next to its paper and pseudocode, and the one registry of them,
//! [`FTLS`]. The name `ssdlab list`, `--ftl`, the config's `[ftl] name` and the error
//! messages use, the `[ftl]` keys it reads (the knob check of `config::Design`), the
//! validation of its own section, what it needs of the device (`feasible.rs`), its memory
//! estimate (`config/memory.rs`), the counters it reports and its constructor all come
//! from the spec, so adding an FTL is one new file and one line in [`FTLS`] (plus a field
//! of [`FtlConfig`] when it has its own `[ftl.NAME]` section: serde parses the `[ftl]`
//! table into typed fields).
//!
//! The spec is read when a configuration is validated and an FTL built, never per
//! operation: the built FTL is a `Box<dyn Ftl>` as before.
//!
//! Tests (and tools) may add an FTL at run time with [`register`]; it is consulted after
//! the built-ins everywhere the registry is.

use super::feasible::Need;
use super::gc::{GcSchedule, PolicyParams};
use super::{Ftl, FtlConfig, FtlKind};
use crate::nand::Geometry;
use crate::registry::{Named, Registry};
use crate::spec::{ConfigError, Counter};
use std::sync::Mutex;

/// A `[ftl]` sub-table (or a dotted key inside one) an FTL reads, with what it sets for
/// the knob check's message ("the page FTL does not use {what}").
#[derive(Clone, Copy, Debug)]
pub struct Section {
    /// Key relative to `[ftl]`, e.g. `"aftl"` or `"log.victim"`.
    pub key: &'static str,
    /// What it sets.
    pub what: &'static str,
}

/// A `u32` map entry, for memory estimates.
pub const ENTRY_BYTES: u64 = 4;

/// The schedules of foreground-only FTLs (every FTL runs GC on the write path).
pub const FOREGROUND_ONLY: &[GcSchedule] = &[GcSchedule::Foreground];

/// What an FTL does that the shared `[ftl]` keys and the memory estimate depend on.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    /// Reads `ftl.gc` and `ftl.gc_d` (a GC victim policy; the block-mapped FTLs fold
    /// instead).
    pub gc_policy: bool,
    /// Collects when free blocks fall below `ftl.gc_low_free_blocks` (per plane or
    /// device-wide; the log-block FTLs merge on demand instead).
    pub free_block_watermarks: bool,
    /// The `ftl.gc_schedule` values it runs; more than one means it reads the key (and
    /// `[ftl.suspend]`): the FTLs whose GC is a per-plane collection in `blocks.rs`.
    pub gc_schedules: &'static [GcSchedule],
    /// Gives GC copies their own (colder) frontier (`ftl.hot_cold`).
    pub hot_cold: bool,
    /// Does static wear leveling (`ftl.static_wl_*`).
    pub static_wl: bool,
    /// Has a page-level management block and in-block placement (`ftl.mgmt_block`,
    /// `ftl.placement`).
    pub page_layout: bool,
    /// Maps whole erase blocks, so takes a superblock as its management block
    /// (`ftl.superblock`, and `ftl.channel_placement` for its member planes).
    pub maps_blocks: bool,
    /// Writes data pages at fixed offsets (out of order), so the NAND keeps a second
    /// bitmap of programmed pages.
    pub writes_at_offsets: bool,
    /// Keeps one tag base per block for its fixed-offset blocks, so only the pages beyond
    /// the logical space touch the per-page tag table (NFTL).
    pub tags_beyond_logical_only: bool,
}

impl Caps {
    /// A block-mapped FTL that merges or folds on the write path and reads none of the
    /// page-mapped FTLs' keys; FTLs override what differs.
    pub const BLOCK_MAPPED: Caps = Caps {
        gc_policy: false,
        free_block_watermarks: false,
        gc_schedules: FOREGROUND_ONLY,
        hot_cold: false,
        static_wl: false,
        page_layout: false,
        maps_blocks: true,
        writes_at_offsets: false,
        tags_beyond_logical_only: false,
    };
}

/// An FTL's constructor: over `geo`, exporting `logical_pages`, with the GC policy's
/// parameters.
pub type BuildFn =
    fn(&FtlConfig, &Geometry, u64, PolicyParams) -> Result<Box<dyn Ftl>, ConfigError>;

/// One FTL as the registry describes it: name, description, which shared `[ftl]` keys it
/// reads (as capabilities), its own sections and their validation, feasibility, memory
/// estimate, counters and constructor.
#[derive(Clone, Copy)]
pub struct FtlSpec {
    /// Registered name (`[ftl] name`, `--ftl`), lower-case kebab.
    pub name: &'static str,
    /// One line for `ssdlab list` and the help.
    pub description: &'static str,
    /// Which shared `[ftl]` keys it reads and how it keeps its pages.
    pub caps: Caps,
    /// Its own `[ftl]` sub-tables (and tables shared with a family, like `log`), most
    /// specific first.
    pub sections: &'static [Section],
    /// Checks its own sections' values (device-independent).
    pub validate: fn(&FtlConfig) -> Result<(), ConfigError>,
    /// Blocks it needs and has on a device (`feasible.rs` decides and searches with it).
    pub need: fn(&FtlConfig, &Geometry, u64) -> Need,
    /// Bytes of its mapping tables for `logical_pages` on `geo` (beyond the per-block
    /// bookkeeping every FTL has), for `config/memory.rs`.
    pub memory_bytes: fn(&FtlConfig, &Geometry, u64) -> u64,
    /// The counter declarations it reports (its file's, and shared modules' it uses).
    pub counters: &'static [&'static [Counter]],
    /// Builds it over `geo` exporting `logical_pages` (`cfg` already validated).
    pub build: BuildFn,
}

impl std::fmt::Debug for FtlSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FtlSpec({})", self.name)
    }
}

impl FtlSpec {
    /// Whether it reads the `[ftl]` sub-table `key` (exactly, or one holding it).
    pub fn reads_section(&self, key: &str) -> bool {
        self.sections.iter().any(|s| s.key == key)
    }
}

/// A validation that accepts everything (FTLs without a section of their own).
pub fn no_section(_: &FtlConfig) -> Result<(), ConfigError> {
    Ok(())
}

/// The built-in FTLs, one line each, in the order `ssdlab list` prints them.
pub const FTLS: &[&FtlSpec] = &[
    &super::page::SPEC,
    &super::nftl::SPEC,
    &super::bast::SPEC,
    &super::fast::SPEC,
    &super::faster::SPEC,
    &super::aftl::SPEC,
    &super::cftl::SPEC,
    &super::dftl::SPEC,
    &super::zoned::SPEC,
];

/// The FTLs: [`FTLS`], then those added at run time by [`register`].
static REGISTRY: Registry<FtlSpec> = Registry::new(FTLS);

impl Named for FtlSpec {
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        self.description
    }
}

/// Adds `spec` to the registry of this process (after the built-ins) and returns its
/// handle. Registering the same spec again is a no-op; a different spec under a taken
/// name panics (a programming error).
pub fn register(spec: &'static FtlSpec) -> FtlKind {
    if REGISTRY.holds(spec) {
        return FtlKind::of(spec);
    }
    if let Err(t) = REGISTRY.register(spec) {
        panic!("FTL name {} is taken by another FTL", t.0);
    }
    *TABLES.lock().unwrap_or_else(|e| e.into_inner()) = None;
    FtlKind::of(spec)
}

/// Every registered FTL: the built-ins, then those added by [`register`].
pub fn specs() -> Vec<&'static FtlSpec> {
    REGISTRY.all()
}

/// The registry as the tables older callers take (`FtlKind::all()`, serde's list of
/// names), rebuilt after each [`register`] and kept for the process (a few hundred
/// bytes per registration).
pub(super) struct Tables {
    pub all: &'static [(FtlKind, &'static str, &'static str)],
    pub names: &'static [&'static str],
}

static TABLES: Mutex<Option<&'static Tables>> = Mutex::new(None);

pub(super) fn tables() -> &'static Tables {
    let mut t = TABLES.lock().expect("FTL tables");
    if let Some(t) = *t {
        return t;
    }
    let specs = specs();
    let all: Vec<_> = specs
        .iter()
        .map(|s| (FtlKind::of(s), s.name, s.description))
        .collect();
    let names: Vec<_> = specs.iter().map(|s| s.name).collect();
    let built: &'static Tables = Box::leak(Box::new(Tables {
        all: Box::leak(all.into_boxed_slice()),
        names: Box::leak(names.into_boxed_slice()),
    }));
    *t = Some(built);
    built
}

/// A constructor's refusal that no single key's range explains — the FTL does not fit
/// the device as configured (the message names the keys to change). Errors of one key
/// (`ConfigError::Value`) pass through constructors as they are, so a sweep can still
/// name the axis whose value the FTL refused.
pub fn unfit(ftl: &'static str, message: impl Into<String>) -> ConfigError {
    ConfigError::Ftl {
        ftl,
        message: message.into(),
    }
}
