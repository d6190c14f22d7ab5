//! The DRAM write buffer between the host queue and the FTL: one file per replacement
//! policy behind [`WriteBuffer`], registered in [`BufferKind`].
//!
//! A policy decides only *which* pages stay in DRAM and which leave; it never touches
//! flash. The simulator (`sim::Device`) asks it about every host page, writes the
//! victims it names through the FTL, and does all counting and timing, so hit ratios,
//! pages flushed and padding are counted once, the same way for every policy.
//!
//! Semantics shared by all policies (docs/buffer.md):
//! - the buffer holds dirty data only (it is a write buffer, not a read cache): a write
//!   hit overwrites the page in DRAM, a write miss inserts it, evicting first when full;
//! - a read hit is served from DRAM and counts as a reference; a read miss goes to flash
//!   and does not insert;
//! - an evicted page is written back through the FTL, and leaves the buffer;
//! - TRIM drops a buffered page without writing it; a host FLUSH (and the end of a run,
//!   when configured) writes every buffered page back and empties the buffer;
//! - the NCQ tells the policy when a command enters the queue ([`WriteBuffer::queued`])
//!   and when it is dispatched ([`WriteBuffer::dispatched`]); only QLRU listens.

mod block;
pub mod core;

mod bpac;
mod bplru;
mod clc;
mod exlru;
mod fab;
mod lfu;
mod lru;
mod qlru;

pub use block::{BlockBuffer, BlockEviction};
pub use bpac::Bpac;
pub use bplru::Bplru;
pub use clc::Clc;
pub use exlru::ExLru;
pub use fab::Fab;
pub use lfu::Lfu;
pub use lru::Lru;
pub use qlru::QLru;

use crate::nand::Lpn;
use crate::registry::{Named, Registry};
use crate::spec::{ConfigError, Counter, Counters, check_range};
use crate::units::Size;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::RwLock;

/// Reported as `buffer.host_flushes`.
pub const HOST_FLUSHES: Counter = Counter::total(
    "buffer.host_flushes",
    "commands",
    "host FLUSH commands that emptied the write buffer",
);
/// The counters a write buffer may report: the stage's, then each policy's own (from
/// its spec).
pub fn counters() -> Vec<&'static [Counter]> {
    let mut all: Vec<&'static [Counter]> = vec![&[HOST_FLUSHES]];
    all.extend(buffer_policies().iter().map(|s| s.counters));
    all
}

/// One page leaving the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evicted {
    /// Logical page.
    pub lpn: u32,
    /// Not buffered: a padding page the policy wants read from flash and written back
    /// with its block (BPLRU). The simulator skips pages that hold no data.
    pub pad: bool,
}

/// Pages a policy evicts in one call, in the order they must be written to flash. The
/// caller clears it; its capacity is reused, so evicting allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct Evictions {
    /// Pages in write order.
    pub pages: Vec<Evicted>,
}

impl Evictions {
    /// Appends one page.
    #[inline]
    pub fn push(&mut self, e: Evicted) {
        self.pages.push(e);
    }
    /// Forgets every page (keeps the capacity).
    #[inline]
    pub fn clear(&mut self) {
        self.pages.clear();
    }
    /// Whether no page is listed.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }
}

/// Copies a boxed write buffer: implemented for every `WriteBuffer + Clone`, so a policy
/// only derives `Clone` (a preconditioned drive is copied with its buffer contents).
pub trait WriteBufferClone {
    /// An exact copy of this buffer's state.
    fn clone_box(&self) -> Box<dyn WriteBuffer>;
}

impl<T: WriteBuffer + Clone + 'static> WriteBufferClone for T {
    fn clone_box(&self) -> Box<dyn WriteBuffer> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn WriteBuffer> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// A write-buffer replacement policy over logical pages. The caller guarantees every
/// `lpn` is below the device's logical page count.
///
/// After `write(lpn)` returns, `lpn` is buffered; `len_pages() <= capacity_pages()`
/// always holds.
pub trait WriteBuffer: Send + WriteBufferClone {
    /// Registered name.
    fn name(&self) -> &'static str;
    /// Pages the buffer holds at most.
    fn capacity_pages(&self) -> u32;
    /// Pages held now.
    fn len_pages(&self) -> u32;
    /// Whether `lpn` is buffered.
    fn contains(&self, lpn: Lpn) -> bool;
    /// A host write of one page: `true` on a hit (absorbed in DRAM). On a miss the page is
    /// inserted, after evicting into `out` if the buffer is full.
    fn write(&mut self, lpn: Lpn, out: &mut Evictions) -> bool;
    /// A host read of one page: `true` if served from DRAM (a reference to the page).
    fn read(&mut self, lpn: Lpn) -> bool;
    /// Drops `lpn` without writing it back (TRIM); returns whether it was buffered.
    fn remove(&mut self, lpn: Lpn) -> bool;
    /// Evicts one victim (a page or a whole block, as the policy decides) into `out`;
    /// `false` when the buffer is empty.
    fn evict(&mut self, out: &mut Evictions) -> bool;
    /// Whether every `write` evicts at most one page and never pads. The simulator then
    /// hands a command's pages to [`WriteBuffer::write_run`] in one call and the victims
    /// to the FTL in one call, instead of a round of calls per page.
    fn single_victim(&self) -> bool {
        false
    }
    /// Host writes of the pages `first .. first + n`: `write` of each in turn, the
    /// victims landing in `out` in order; returns the number of hits.
    fn write_run(&mut self, first: Lpn, n: u32, out: &mut Evictions) -> u32 {
        (first.0..first.0 + n)
            .map(|l| self.write(Lpn(l), out) as u32)
            .sum()
    }
    /// Writes every buffered page back, emptying the buffer.
    fn flush_all(&mut self, out: &mut Evictions) {
        while self.evict(out) {}
    }
    /// Hints that `lpn` will be referenced soon (the simulator passes the next waiting
    /// command's first page), so the lookup's cache miss overlaps current work.
    fn prefetch(&self, _lpn: Lpn) {}
    /// Hints that `lpn` will be referenced after the next command (the simulator passes
    /// the command after it): a policy whose lookup has two levels fetches the first, so
    /// that [`WriteBuffer::prefetch`] can fetch the second one command later.
    fn prefetch_early(&self, _lpn: Lpn) {}
    /// The pages the policy will evict next and the one after, when it knows them (an
    /// LRU's tail): the simulator has the FTL fetch their map entries early, so writing
    /// them back does not wait on cache misses.
    fn upcoming_victims(&self) -> [Option<Lpn>; 2] {
        [None, None]
    }
    /// Pages the policy expects to evict after the next two, up to `n` ahead, in order,
    /// into `out`, leaving out those an earlier call named (a hint, for fetching their
    /// FTL map entries a command ahead: it may name pages that will be referenced again
    /// before then). None by default.
    fn later_victims(&mut self, _n: u32, _out: &mut Vec<Lpn>) {}
    /// NCQ hook: a command covering pages `first .. first + pages` entered the queue.
    fn queued(&mut self, _first: Lpn, _pages: u32) {}
    /// NCQ hook: that command left the queue for execution (it is about to reference
    /// its pages through `write`/`read`).
    fn dispatched(&mut self, _first: Lpn, _pages: u32) {}
    /// Policy-specific counters, keys `buffer.<policy>.*`.
    fn counters(&self, _out: &mut Counters) {}
    /// Panics if the policy's structures are inconsistent (tests call this often).
    fn check_invariants(&self);
}

/// The built-in write-buffer policies, one line each, in `ssdlab list` order (after
/// `none`). A policy is one file exporting `pub const SPEC` plus its line here; the
/// CLI's `--buffer` choices, `ssdlab list`, the `name` key's parsing, validation, the
/// memory estimate, the counter table and the contract tests all read this list (and
/// the policies [`register_buffer_policy`] added after it).
pub const BUFFER_POLICIES: &[&BufferPolicySpec] = &[
    &lru::SPEC,
    &lfu::SPEC,
    &fab::SPEC,
    &bplru::SPEC,
    &clc::SPEC,
    &bpac::SPEC,
    &exlru::SPEC,
    &qlru::SPEC,
];

/// What a policy keeps and evicts: single pages, or whole logical blocks
/// (`buffer.block_pages` pages; every eviction is the buffered pages of one block).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Pages are ordered and evicted one by one.
    Page,
    /// Pages are grouped by logical block; a victim block leaves whole.
    Block,
}

/// Everything the simulator knows about a write-buffer policy.
pub struct BufferPolicySpec {
    /// Registered name, the value of `[buffer] name` / `--buffer`.
    pub name: &'static str,
    /// One line for `ssdlab list` and `--help`.
    pub description: &'static str,
    /// Page- or block-level.
    pub level: Level,
    /// The counters it reports (keys `buffer.<policy>.*`).
    pub counters: &'static [Counter],
    /// Bytes of DRAM the simulator's structures take for a buffer of `shape` (index,
    /// per-page slots and links, per-block nodes): the memory estimate's buffer part.
    pub memory_bytes: fn(&BufferShape) -> u64,
    /// Checks the `[buffer]` keys that belong to this policy. Every registered policy's
    /// check runs whichever policy is chosen, so a bad value is refused even while unused.
    pub validate: fn(&BufferConfig) -> Result<(), ConfigError>,
    /// Builds the policy for a validated config and its resolved shape.
    pub build: fn(&BufferConfig, BufferShape) -> Box<dyn WriteBuffer>,
}

/// [`BufferPolicySpec::validate`] of a policy without keys of its own.
pub fn no_keys(_: &BufferConfig) -> Result<(), ConfigError> {
    Ok(())
}

/// Slots of a buffer hash map holding `n` entries: a power of two at least twice `n`
/// (`KeyMap::with_capacity`), 8 bytes each.
pub fn key_map_bytes(n: u64) -> u64 {
    (n.max(8) * 2).next_power_of_two() * 8
}

/// A page index (`PageIndex`) over `logical` pages holding up to `n`: its group table
/// (4 B per 16 pages) and at most one 64-byte line per present page, or per group when
/// groups are fewer, plus the empty line.
pub fn page_index_bytes(n: u64, logical: u64) -> u64 {
    let groups = logical.div_ceil(16).max(1);
    groups * 4 + (n.min(groups) + 1) * 64
}

/// Page slots besides the index: links (prev, next, key, tag), free list; policies add
/// a few `u32`s per slot (counts, stamps, flags).
pub fn slot_bytes(shape: &BufferShape) -> u64 {
    shape.capacity_pages as u64 * (16 + 4 + 8)
}

/// A page-level policy's [`BufferPolicySpec::memory_bytes`]: page index and slots.
pub fn page_level_bytes(shape: &BufferShape) -> u64 {
    page_index_bytes(shape.capacity_pages as u64, shape.logical_pages) + slot_bytes(shape)
}

/// A block-level policy's [`BufferPolicySpec::memory_bytes`]: a page-level buffer's, plus
/// one cluster node per buffered page at most (map, count, links, page bitmap).
pub fn block_level_bytes(shape: &BufferShape) -> u64 {
    let n = shape.capacity_pages as u64;
    let words = (shape.block_pages as u64).div_ceil(64);
    page_level_bytes(shape) + key_map_bytes(n) + n * (4 + 16 + 4 + 8 * words)
}

/// The policies: [`BUFFER_POLICIES`], then those registered at run time (test code adds
/// a dummy one); and the leaked `(kind, name, description)` table of all choices,
/// rebuilt on each registration so [`BufferKind::all`] can hand out a `'static` slice.
static REGISTRY: Registry<BufferPolicySpec> = Registry::new(BUFFER_POLICIES);
type Described = &'static [(BufferKind, &'static str, &'static str)];
static ALL: RwLock<Option<Described>> = RwLock::new(None);

impl Named for BufferPolicySpec {
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        self.description
    }
}

/// Adds `spec` after the built-in policies, for the rest of the process. Refused (`Err`
/// with the name) when a choice of that name exists (`none` included).
pub fn register_buffer_policy(spec: &'static BufferPolicySpec) -> Result<(), &'static str> {
    if spec.name == "none" {
        return Err(spec.name);
    }
    REGISTRY.register(spec).map_err(|t| t.0)?;
    *ALL.write().unwrap_or_else(|e| e.into_inner()) = None;
    Ok(())
}

/// Every policy: the built-in ones, then the registered ones.
pub fn buffer_policies() -> Vec<&'static BufferPolicySpec> {
    REGISTRY.all()
}

/// The `name` of `[buffer]` / `--buffer`: no buffer, or a policy by its spec. Compared,
/// printed and (de)serialized by name, so the config echo reads as it did when this was
/// an enum.
#[derive(Clone, Copy, Default)]
pub struct BufferKind(Option<&'static BufferPolicySpec>);

// Named like the enum variants they replace, so every call site reads as before.
#[allow(non_upper_case_globals)]
impl BufferKind {
    /// No buffer: every host page goes straight to the FTL.
    pub const None: BufferKind = BufferKind(None);
    /// Page LRU.
    pub const Lru: BufferKind = BufferKind(Some(&lru::SPEC));
    /// Page LFU with aging.
    pub const Lfu: BufferKind = BufferKind(Some(&lfu::SPEC));
    /// Flash-Aware Buffer: evict the block with most buffered pages.
    pub const Fab: BufferKind = BufferKind(Some(&fab::SPEC));
    /// Block-Padding LRU.
    pub const Bplru: BufferKind = BufferKind(Some(&bplru::SPEC));
    /// Cold and Largest Cluster.
    pub const Clc: BufferKind = BufferKind(Some(&clc::SPEC));
    /// Block-Page Adaptive Cache.
    pub const Bpac: BufferKind = BufferKind(Some(&bpac::SPEC));
    /// Expectation-based LRU.
    pub const Exlru: BufferKind = BufferKind(Some(&exlru::SPEC));
    /// NCQ-aware LRU.
    pub const Qlru: BufferKind = BufferKind(Some(&qlru::SPEC));
}

/// The `none` choice's line in `ssdlab list`.
const NONE_DESCRIPTION: &str =
    "no write buffer (the default unless the preset sets one; `ssdlab config` shows it)";

impl BufferKind {
    /// The policy of `spec`.
    pub fn of(spec: &'static BufferPolicySpec) -> Self {
        BufferKind(Some(spec))
    }

    /// Its spec; `None` for no buffer.
    pub fn spec(self) -> Option<&'static BufferPolicySpec> {
        self.0
    }

    /// Every choice with its name and a one-line description, for `ssdlab list`
    /// (`none` first, then every policy; contract tests use [`BufferKind::policies`]).
    pub fn all() -> &'static [(BufferKind, &'static str, &'static str)] {
        if let Some(all) = *ALL.read().expect("registry lock") {
            return all;
        }
        let table: Vec<_> = std::iter::once((BufferKind::None, "none", NONE_DESCRIPTION))
            .chain(
                buffer_policies()
                    .into_iter()
                    .map(|s| (BufferKind(Some(s)), s.name, s.description)),
            )
            .collect();
        // Leaked once per registration (a handful per process).
        let all: Described = Box::leak(table.into_boxed_slice());
        *ALL.write().expect("registry lock") = Some(all);
        all
    }

    /// Every real policy (all but `none`).
    pub fn policies() -> impl Iterator<Item = BufferKind> {
        Self::all()
            .iter()
            .map(|&(k, _, _)| k)
            .filter(|&k| k != BufferKind::None)
    }

    /// The registered name.
    pub fn name(self) -> &'static str {
        self.0.map_or("none", |s| s.name)
    }

    /// The choice called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::all().iter().find(|e| e.1 == name).map(|e| e.0)
    }
}

impl PartialEq for BufferKind {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for BufferKind {}

impl std::fmt::Debug for BufferKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for BufferKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for BufferKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        BufferKind::from_name(&name).ok_or_else(|| {
            let names: Vec<&str> = BufferKind::all().iter().map(|e| e.1).collect();
            serde::de::Error::custom(crate::registry::unknown_variant(&name, &names))
        })
    }
}

/// `[buffer]` table: which policy, how big, and its settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BufferConfig {
    /// Which policy (`none` = no buffer).
    pub name: BufferKind,
    /// DRAM given to the buffer; default: the device's `dram_buffer`.
    pub size: Option<Size>,
    /// Write everything back on a host FLUSH command.
    pub flush_on_host_flush: bool,
    /// Write everything back at the end of the run (its programs count in the report;
    /// its time does not, as no request waits for it).
    pub flush_at_end: bool,
    /// DRAM copy rate, MB/s: a buffered page costs page size / rate (hit latency).
    pub dram_mb_s: f64,
    /// Pages per logical block for the block-granular policies (FAB, BPLRU, CLC, BPAC,
    /// ExLRU); default: the device's pages per block.
    pub block_pages: Option<u32>,
    /// LFU halves every count after this many references; default: the capacity in pages.
    pub lfu_aging_refs: Option<u64>,
    /// BPLRU page padding: write the victim's whole block, reading missing pages first.
    pub bplru_padding: bool,
    /// BPLRU LRU compensation: a block written completely in order goes to the LRU end.
    pub bplru_compensation: bool,
    /// CLC: share of the buffer (pages, percent) for the size-independent LRU region.
    pub clc_lru_percent: f64,
    /// ExLRU: blocks at the LRU end examined per eviction.
    pub exlru_window: u32,
    /// Pages the buffer keeps free by writing victims back ahead of need (write-back
    /// in flight on many channels at once): a host write then waits for the victim data
    /// evicted this many writes earlier to have left DRAM, not its own victim's. 0 = a
    /// write waits for its own victims (default).
    pub flush_ahead_pages: u32,
}

impl Default for BufferConfig {
    fn default() -> Self {
        BufferConfig {
            name: BufferKind::None,
            size: None,
            flush_on_host_flush: true,
            flush_at_end: true,
            dram_mb_s: 3200.0,
            block_pages: None,
            lfu_aging_refs: None,
            bplru_padding: true,
            bplru_compensation: true,
            clc_lru_percent: 10.0,
            exlru_window: 16,
            flush_ahead_pages: 0,
        }
    }
}

/// Sizes a policy is built with, resolved against the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferShape {
    /// Pages the buffer holds.
    pub capacity_pages: u32,
    /// Pages per logical block (block-granular policies).
    pub block_pages: u32,
    /// Logical pages of the device (BPLRU pads only inside the logical space).
    pub logical_pages: u64,
}

impl BufferConfig {
    /// Checks the settings and resolves the shape for a device with `page_bytes` pages,
    /// `device_block_pages` pages per block, `logical_pages` pages and `dram_bytes` of DRAM.
    /// `None` when no buffer is configured.
    pub fn shape(
        &self,
        page_bytes: u64,
        device_block_pages: u32,
        logical_pages: u64,
        dram_bytes: u64,
    ) -> Result<Option<BufferShape>, ConfigError> {
        if !(self.dram_mb_s > 0.0 && self.dram_mb_s.is_finite()) {
            return Err(ConfigError::value(
                "buffer.dram_mb_s",
                self.dram_mb_s,
                "a positive rate, MB/s",
            ));
        }
        check_range(
            "buffer.flush_ahead_pages",
            self.flush_ahead_pages,
            0,
            1 << 20,
            "pages kept free by write-back ahead of need",
        )?;
        for spec in buffer_policies() {
            (spec.validate)(self)?;
        }
        let block_pages = self.block_pages.unwrap_or(device_block_pages);
        check_range(
            "buffer.block_pages",
            block_pages,
            1,
            MAX_BLOCK_PAGES,
            "pages per logical block",
        )?;
        if self.name == BufferKind::None {
            return Ok(None);
        }
        let logical_bytes = logical_pages.saturating_mul(page_bytes);
        let (bytes, key) = match self.size {
            Some(s) if s.bytes() > logical_bytes => {
                // A buffer that holds the whole device never evicts: the run would
                // measure nothing but allocate the excess.
                return Err(ConfigError::value(
                    "buffer.size",
                    s,
                    format!(
                        "at most the device's logical capacity {} (device.capacity)",
                        Size(logical_bytes)
                    ),
                ));
            }
            Some(s) => (s.bytes(), "buffer.size"),
            // The device's DRAM may exceed a small simulated capacity; the buffer then
            // holds the whole device.
            None => (
                dram_bytes.min(logical_bytes),
                "device.dram_buffer (buffer.size not set)",
            ),
        };
        let pages = bytes / page_bytes;
        if pages == 0 {
            return Err(ConfigError::value(
                key,
                Size(bytes),
                format!(
                    "room for at least one {} page for a '{}' buffer (set --buffer-size)",
                    Size(page_bytes),
                    self.name.name(),
                ),
            ));
        }
        if pages > MAX_BUFFER_PAGES {
            return Err(ConfigError::value(
                key,
                Size(bytes),
                format!(
                    "at most 2^28 pages ({})",
                    Size(page_bytes * MAX_BUFFER_PAGES)
                ),
            ));
        }
        Ok(Some(BufferShape {
            capacity_pages: pages as u32,
            block_pages,
            logical_pages,
        }))
    }
}

/// Largest buffer, pages: slot numbers are `u32` with room for list sentinels.
pub const MAX_BUFFER_PAGES: u64 = 1 << 28;

/// Largest `buffer.block_pages`: a block's page bitmap is kept per node.
pub const MAX_BLOCK_PAGES: u32 = 1 << 16;

/// Largest `buffer.exlru_window`: each eviction scans this many blocks, so the window
/// bounds the work per eviction (Jung et al. examine a few tens).
pub const MAX_EXLRU_WINDOW: u32 = 4096;

/// Builds the configured policy for `shape`.
pub fn build_buffer(cfg: &BufferConfig, shape: BufferShape) -> Option<Box<dyn WriteBuffer>> {
    cfg.name.spec().map(|s| (s.build)(cfg, shape))
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Helpers for the policies' hand-worked eviction tests.
    use super::*;

    /// Writes `lpns` in order; returns, per write, the evicted pages (padding marked
    /// with a trailing `p` in the debug string is not needed: pads are returned apart).
    pub fn victims(b: &mut dyn WriteBuffer, lpns: &[u32]) -> Vec<u32> {
        let mut out = Evictions::default();
        let mut v = Vec::new();
        for &l in lpns {
            out.clear();
            b.write(Lpn(l), &mut out);
            b.check_invariants();
            v.extend(out.pages.iter().filter(|e| !e.pad).map(|e| e.lpn));
            assert!(b.len_pages() <= b.capacity_pages());
            assert!(b.contains(Lpn(l)));
        }
        v
    }

    /// Evicts once; returns the dirty pages written.
    pub fn evict_once(b: &mut dyn WriteBuffer) -> Vec<u32> {
        let mut out = Evictions::default();
        b.evict(&mut out);
        b.check_invariants();
        out.pages.iter().filter(|e| !e.pad).map(|e| e.lpn).collect()
    }

    /// Drains the buffer; returns the order in which pages left.
    pub fn drain(b: &mut dyn WriteBuffer) -> Vec<u32> {
        let mut v = Vec::new();
        while b.len_pages() > 0 {
            v.extend(evict_once(b));
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn shape(capacity_pages: u32) -> BufferShape {
        BufferShape {
            capacity_pages,
            block_pages: 4,
            // The tests' pages are below 72 (a run of 8 from page 63 at most).
            logical_pages: 72,
        }
    }

    fn build(kind: BufferKind, capacity_pages: u32) -> Box<dyn WriteBuffer> {
        let cfg = BufferConfig {
            name: kind,
            ..BufferConfig::default()
        };
        build_buffer(&cfg, shape(capacity_pages)).unwrap()
    }

    #[derive(Clone, Debug)]
    enum Op {
        Write(u32),
        Read(u32),
        Remove(u32),
        Evict,
        Queue(u32, u32),
    }

    fn ops() -> impl Strategy<Value = Vec<Op>> {
        let lpn = prop_oneof![3 => 0u32..64, 2 => 0u32..8];
        prop::collection::vec(
            prop_oneof![
                8 => lpn.clone().prop_map(Op::Write),
                2 => lpn.clone().prop_map(Op::Read),
                1 => lpn.clone().prop_map(Op::Remove),
                1 => Just(Op::Evict),
                2 => (lpn, 1u32..5).prop_map(|(l, n)| Op::Queue(l.min(60), n)),
            ],
            1..400,
        )
    }

    proptest! {
        /// `write_run` is `write` of each page in turn: the same hits, the same victims in
        /// the same order (and, for a policy that says so, one victim per page at most,
        /// never padding); the two buffers stay in step through reads and removals.
        #[test]
        fn write_run_is_write_page_by_page(
            seq in prop::collection::vec((0u32..64, 1u32..9, 0u8..4), 1..200),
            cap in 1u32..20,
        ) {
            for kind in BufferKind::policies() {
                let (mut run, mut each) = (build(kind, cap), build(kind, cap));
                let (mut out_run, mut out_each) = (Evictions::default(), Evictions::default());
                for &(first, n, other) in &seq {
                    out_run.clear();
                    out_each.clear();
                    let hits = run.write_run(Lpn(first), n, &mut out_run);
                    let mut want = 0;
                    for l in first..first + n {
                        let before = out_each.pages.len();
                        want += each.write(Lpn(l), &mut out_each) as u32;
                        if each.single_victim() {
                            prop_assert!(out_each.pages.len() <= before + 1);
                            prop_assert!(out_each.pages.iter().all(|e| !e.pad));
                        }
                    }
                    prop_assert_eq!(hits, want, "{}", kind.name());
                    prop_assert_eq!(&out_run.pages, &out_each.pages, "{}", kind.name());
                    match other {
                        0 => prop_assert_eq!(run.read(Lpn(first / 2)), each.read(Lpn(first / 2))),
                        1 => prop_assert_eq!(run.remove(Lpn(first + 1)), each.remove(Lpn(first + 1))),
                        _ => {}
                    }
                    run.check_invariants();
                }
            }
        }

        /// The contract every policy keeps, checked against a set model: a write leaves
        /// the page buffered; a page leaves only through an eviction or a removal, and
        /// every eviction names buffered pages exactly once; capacity is never exceeded.
        #[test]
        fn every_policy_keeps_the_buffer_contract(seq in ops(), cap in 1u32..20) {
            for kind in BufferKind::policies() {
                let mut b = build(kind, cap);
                let mut model = std::collections::BTreeSet::new();
                let mut queued: Vec<(u32, u32)> = Vec::new();
                let mut out = Evictions::default();
                for op in &seq {
                    out.clear();
                    match *op {
                        Op::Write(l) => {
                            let hit = b.write(Lpn(l), &mut out);
                            prop_assert_eq!(hit, model.contains(&l), "{} write {}", kind.name(), l);
                        }
                        Op::Read(l) => {
                            prop_assert_eq!(b.read(Lpn(l)), model.contains(&l));
                        }
                        Op::Remove(l) => {
                            prop_assert_eq!(b.remove(Lpn(l)), model.remove(&l));
                        }
                        Op::Evict => {
                            prop_assert_eq!(b.evict(&mut out), !model.is_empty());
                        }
                        Op::Queue(l, n) => {
                            // Queue a command, and dispatch the oldest when 4 are waiting.
                            b.queued(Lpn(l), n);
                            queued.push((l, n));
                            if queued.len() > 4 {
                                let (l, n) = queued.remove(0);
                                b.dispatched(Lpn(l), n);
                            }
                        }
                    }
                    // A block-level policy's victims are one logical block's pages.
                    if kind.spec().is_some_and(|s| s.level == Level::Block)
                        && let Some(first) = out.pages.first()
                    {
                        let block = first.lpn / shape(cap).block_pages;
                        prop_assert!(
                            out.pages.iter().all(|e| e.lpn / shape(cap).block_pages == block),
                            "{} evicted pages of several blocks at once", kind.name()
                        );
                    }
                    for e in &out.pages {
                        if e.pad {
                            prop_assert!(!model.contains(&e.lpn), "{} padded a buffered page", kind.name());
                        } else {
                            prop_assert!(model.remove(&e.lpn), "{} evicted {} twice or unbuffered", kind.name(), e.lpn);
                        }
                    }
                    if let Op::Write(l) = *op {
                        model.insert(l);
                    }
                    prop_assert_eq!(b.len_pages() as usize, model.len(), "{}", kind.name());
                    prop_assert!(b.len_pages() <= cap);
                    b.check_invariants();
                }
                for l in 0..64 {
                    prop_assert_eq!(b.contains(Lpn(l)), model.contains(&l));
                }
                out.clear();
                b.flush_all(&mut out);
                let flushed: std::collections::BTreeSet<u32> =
                    out.pages.iter().filter(|e| !e.pad).map(|e| e.lpn).collect();
                prop_assert_eq!(flushed.len(), out.pages.iter().filter(|e| !e.pad).count());
                prop_assert_eq!(&flushed, &model);
                prop_assert_eq!(b.len_pages(), 0);
            }
        }
    }

    #[test]
    fn registry_names_round_trip_and_list_every_policy() {
        assert_eq!(BufferKind::policies().count(), 8);
        assert_eq!(BufferKind::all().len(), BUFFER_POLICIES.len() + 1);
        for (spec, kind) in BUFFER_POLICIES.iter().zip(BufferKind::policies()) {
            assert_eq!(spec.name, kind.name());
            assert_eq!(kind.spec().map(|s| s.name), Some(spec.name));
            // The policy built from the spec answers to its name.
            let b = build(kind, 4);
            assert_eq!(b.name(), spec.name);
            // Its counters are the table's.
            assert!(counters().contains(&spec.counters));
        }
        assert_eq!(BufferKind::None.spec().map(|s| s.name), None);
        assert_eq!(serde_json::to_string(&BufferKind::Clc).unwrap(), "\"clc\"");
        let e = serde_json::from_str::<BufferKind>("\"lr\"")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("unknown variant `lr`, expected one of `none`, `lru`"),
            "{e}"
        );
        for &(k, name, _) in BufferKind::all() {
            assert_eq!(k.name(), name);
            let parsed: BufferKind =
                serde_json::from_value(serde_json::Value::String(name.into())).unwrap();
            assert_eq!(parsed, k);
        }
    }

    #[test]
    fn shape_errors_name_the_key() {
        let cfg = BufferConfig {
            name: BufferKind::Lru,
            ..BufferConfig::default()
        };
        let e = cfg.shape(4096, 64, 1000, 0).unwrap_err().to_string();
        assert!(
            e.contains("device.dram_buffer") && e.contains("--buffer-size"),
            "{e}"
        );
        let cfg = BufferConfig {
            name: BufferKind::Lru,
            size: Some(Size(1 << 20)),
            dram_mb_s: 0.0,
            ..BufferConfig::default()
        };
        assert!(
            cfg.shape(4096, 64, 1000, 0)
                .unwrap_err()
                .to_string()
                .contains("dram_mb_s")
        );
        let cfg = BufferConfig {
            name: BufferKind::Fab,
            size: Some(Size(1 << 20)),
            ..BufferConfig::default()
        };
        let s = cfg.shape(4096, 64, 1000, 0).unwrap().unwrap();
        assert_eq!((s.capacity_pages, s.block_pages), (256, 64));
        assert_eq!(BufferConfig::default().shape(4096, 64, 1000, 0), Ok(None));
    }
}
