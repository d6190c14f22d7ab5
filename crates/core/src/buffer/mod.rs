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
use crate::spec::{ConfigError, Counter, Counters, check_f64, check_range};
use crate::units::Size;
use serde::{Deserialize, Serialize};

/// Reported as `buffer.host_flushes`.
pub const HOST_FLUSHES: Counter = Counter::total(
    "buffer.host_flushes",
    "commands",
    "host FLUSH commands that emptied the write buffer",
);
/// The counters a write buffer may report: the stage's, then each policy's own.
pub const COUNTERS: &[&[Counter]] = &[
    &[HOST_FLUSHES],
    qlru::COUNTERS,
    lfu::COUNTERS,
    bplru::COUNTERS,
    clc::COUNTERS,
    bpac::COUNTERS,
];

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

/// Registered write-buffer policies (the `name` key of `[buffer]` / `--buffer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum BufferKind {
    /// No buffer: every host page goes straight to the FTL.
    #[default]
    None,
    /// Page LRU.
    Lru,
    /// Page LFU with aging.
    Lfu,
    /// Flash-Aware Buffer: evict the block with most buffered pages.
    Fab,
    /// Block-Padding LRU.
    Bplru,
    /// Cold and Largest Cluster.
    Clc,
    /// Block-Page Adaptive Cache.
    Bpac,
    /// Expectation-based LRU.
    Exlru,
    /// NCQ-aware LRU.
    Qlru,
}

impl BufferKind {
    /// Every choice with its name and a one-line description, for `ssdlab list`
    /// (`none` first, then every policy; contract tests use [`BufferKind::policies`]).
    pub fn all() -> &'static [(BufferKind, &'static str, &'static str)] {
        &[
            (
                BufferKind::None,
                "none",
                "no write buffer (the default unless the preset sets one; `ssdlab config` shows it)",
            ),
            (
                BufferKind::Lru,
                "lru",
                "page LRU: a hit moves the page to MRU, evict the LRU page",
            ),
            (
                BufferKind::Lfu,
                "lfu",
                "page LFU: evict the least-referenced page (ties: LRU), counts halved periodically",
            ),
            (
                BufferKind::Fab,
                "fab",
                "FAB (Jo et al. 2006): evict all pages of the block with most buffered pages",
            ),
            (
                BufferKind::Bplru,
                "bplru",
                "BPLRU (Kim & Ahn, FAST 2008): block LRU, page padding, LRU compensation",
            ),
            (
                BufferKind::Clc,
                "clc",
                "CLC (Kang et al. 2009): LRU region of clusters, then evict the largest cold cluster",
            ),
            (
                BufferKind::Bpac,
                "bpac",
                "BPAC (Wu et al. 2010): adaptive page list + block list with ghost feedback",
            ),
            (
                BufferKind::Exlru,
                "exlru",
                "ExLRU (Shi et al. 2011): among the LRU-most blocks evict the least expected reuse per page",
            ),
            (
                BufferKind::Qlru,
                "qlru",
                "QLRU (Kim & Kim 2013): LRU that protects pages referenced by commands waiting in the NCQ",
            ),
        ]
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
        Self::all()
            .iter()
            .find(|(k, _, _)| *k == self)
            .map(|(_, n, _)| *n)
            .expect("every kind is registered")
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
        check_f64(
            "buffer.clc_lru_percent",
            self.clc_lru_percent,
            0.0,
            100.0,
            "percent of the buffer's pages",
        )?;
        check_range(
            "buffer.flush_ahead_pages",
            self.flush_ahead_pages,
            0,
            1 << 20,
            "pages kept free by write-back ahead of need",
        )?;
        check_range(
            "buffer.exlru_window",
            self.exlru_window,
            1,
            MAX_EXLRU_WINDOW,
            "LRU-end blocks examined per eviction",
        )?;
        if let Some(r) = self.lfu_aging_refs {
            check_range(
                "buffer.lfu_aging_refs",
                r,
                1,
                u64::MAX,
                "references between halvings",
            )?;
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
    let c = shape.capacity_pages;
    Some(match cfg.name {
        BufferKind::None => return None,
        BufferKind::Lru if core::page_map_is_flat(shape.logical_pages) => {
            Box::new(Lru::<core::FlatIndex>::new(c, shape.logical_pages))
        }
        BufferKind::Lru => Box::new(Lru::<core::PageIndex>::new(c, shape.logical_pages)),
        BufferKind::Qlru => Box::new(QLru::new(c, shape.logical_pages)),
        BufferKind::Lfu => Box::new(Lfu::new(
            c,
            shape.logical_pages,
            cfg.lfu_aging_refs.unwrap_or(c as u64),
        )),
        BufferKind::Fab => Box::new(Fab::buffer(c, shape.block_pages, shape.logical_pages)),
        BufferKind::Bplru => Box::new(Bplru::buffer(
            c,
            shape.block_pages,
            shape.logical_pages,
            cfg.bplru_padding,
            cfg.bplru_compensation,
        )),
        BufferKind::Clc => Box::new(Clc::buffer(
            c,
            shape.block_pages,
            shape.logical_pages,
            cfg.clc_lru_percent,
        )),
        BufferKind::Bpac => Box::new(Bpac::new(c, shape.block_pages, shape.logical_pages)),
        BufferKind::Exlru => Box::new(ExLru::buffer(
            c,
            shape.block_pages,
            shape.logical_pages,
            cfg.exlru_window,
        )),
    })
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
