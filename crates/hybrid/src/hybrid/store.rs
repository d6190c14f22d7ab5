//! The hybrid store: a hard disk behind a flash cache managed the way Kim et al. (2011)
//! describe their filter driver (docs/papers.md §5), with the flash itself a simulated SSD
//! ([`Device`]: any preset and FTL, so flash-side GC, write amplification and wear count).
//!
//! ```text
//! read(range):  look the range up in the cache control table (last-read hint first)
//!               all cached  -> read the flash copies                      (hit)
//!               otherwise   -> read the HDD (one command over the missing part), the
//!                              cached parts outside it (or dirty) from flash, then copy
//!                              the missing units into flash at the HDD's completion
//!                              time, evicting extents while space is short     (miss)
//! write(range): write-through (default): HDD and flash copy (cached or newly allocated)
//!               write-back:   flash only, extents marked dirty; written to the HDD
//!                             when evicted
//!               write-around: HDD only; cached copies of the range are invalidated
//! trim(range):  cached copies invalidated (an HDD has nothing to discard)
//! ```
//!
//! Choices the paper leaves open, documented here:
//! - The cache works in `unit`s (4 KiB, the paper's "4KB table"); requests are rounded
//!   out to whole units, as a filter driver below a 4 KiB-cluster file system sees them.
//! - A read that is partly cached goes to the HDD as one command spanning the missing
//!   units (one seek instead of several); cached units outside that span, and dirty
//!   ones inside it, come from flash.
//! - Copying a miss into flash happens in the background: the host gets its data at the
//!   HDD's completion; the flash write starts then and only delays later flash work.
//! - A fill or write allocation takes flash space next-fit ([`FlashSpace`]) and merges
//!   with the record that ends where it starts when the flash addresses continue too
//!   (up to `extent_max`), so sequential data needs few records. Evicted and invalidated
//!   flash space is trimmed on the SSD, so its GC never copies dead cache data.
//! - Write-through and write-back allocate on write (written data are often read back
//!   soon); write-around does not. Write-back marks a whole extent dirty when any of it
//!   is written; an evicted dirty extent is read from flash and written to the HDD
//!   before its space is reused.
//! - With `bypass_sequential` set, a read or write stream that has run sequentially for
//!   that many bytes is not copied into flash (the HDD streams well on its own).
//! - Table search costs simulated CPU time: `ns_per_comparison` per key comparison,
//!   charged before the I/O starts. The real (wall-clock) time of each lookup is
//!   measured too and reported apart.

use super::evict::{Eviction, EvictionKind};
use super::hdd::{Hdd, HddParams, SECTOR_BYTES};
use super::space::FlashSpace;
use super::table::{CacheTable, Cursor, Record, TableKind, find_hinted};
use crate::config::Config;
use crate::host::SimError;
use crate::nand::Lpn;
use crate::sim::Device;
use crate::units::Size;
use crate::workload::{IoRequest, OpKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;

/// What a write does with the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum WritePolicy {
    /// HDD and flash both written; the cache never holds the only copy.
    #[default]
    WriteThrough,
    /// Flash only; the HDD gets the data when the extent is evicted.
    WriteBack,
    /// HDD only; cached copies of the range are dropped.
    WriteAround,
}

impl WritePolicy {
    /// Every policy with its name and a one-line description.
    pub fn all() -> &'static [(WritePolicy, &'static str, &'static str)] {
        &[
            (
                WritePolicy::WriteThrough,
                "write-through",
                "write the HDD and the flash copy (the default)",
            ),
            (
                WritePolicy::WriteBack,
                "write-back",
                "write flash only; dirty extents go to the HDD when evicted",
            ),
            (
                WritePolicy::WriteAround,
                "write-around",
                "write the HDD only and drop cached copies",
            ),
        ]
    }

    /// The registered name.
    pub fn name(self) -> &'static str {
        WritePolicy::all()
            .iter()
            .find(|(k, _, _)| *k == self)
            .map(|(_, n, _)| *n)
            .expect("every policy is registered")
    }
}

/// `[cache]`: the flash cache in front of the disk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CacheConfig {
    /// Flash cache size; 0 = the HDD alone.
    pub size: Size,
    /// What writes do.
    pub write_policy: WritePolicy,
    /// Cache control table implementation.
    pub table: TableKind,
    /// Check the last-read record (and its successor) before searching.
    pub hint: bool,
    /// Which extent leaves when space is needed.
    pub eviction: EvictionKind,
    /// Caching granularity (a multiple of 512 B and of the flash page size).
    pub unit: Size,
    /// Largest extent a merge may build.
    pub extent_max: Size,
    /// Do not cache a sequential stream once it has run this far; 0 = always cache.
    pub bypass_sequential: Size,
    /// Simulated CPU time per table comparison, ns.
    pub ns_per_comparison: f64,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            size: Size(16 << 30),
            write_policy: WritePolicy::WriteThrough,
            table: TableKind::Btree,
            hint: true,
            eviction: EvictionKind::Lru,
            unit: Size(4096),
            extent_max: Size(1 << 20),
            bypass_sequential: Size(0),
            ns_per_comparison: 10.0,
        }
    }
}

/// A tag that means "the flash copy does not hold what the cache table says".
pub const CORRUPT_TAG: u64 = u64::MAX;

/// Counters of a hybrid store (units are cache units).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StoreStats {
    /// Read requests.
    pub read_requests: u64,
    /// Write requests.
    pub write_requests: u64,
    /// Trim requests.
    pub trim_requests: u64,
    /// Units read by the host.
    pub read_units: u64,
    /// Units read served by flash.
    pub hit_units: u64,
    /// Units read served by the HDD.
    pub miss_units: u64,
    /// Reads served entirely by flash.
    pub hit_requests: u64,
    /// Reads served partly by flash.
    pub partial_requests: u64,
    /// Reads served entirely by the HDD.
    pub miss_requests: u64,
    /// Units copied into flash after misses.
    pub fill_units: u64,
    /// Units not copied because of the sequential bypass (or larger than the cache).
    pub bypass_units: u64,
    /// Units written to flash by host writes.
    pub write_flash_units: u64,
    /// Units written to the HDD by host writes.
    pub write_hdd_units: u64,
    /// Extents evicted.
    pub evictions: u64,
    /// Units evicted.
    pub evicted_units: u64,
    /// Dirty units written back to the HDD on eviction or flush.
    pub destaged_units: u64,
    /// Cached units dropped by write-around writes and trims.
    pub invalidated_units: u64,
    /// Table lookups (one per host request that consults the table).
    pub lookups: u64,
    /// Comparisons made by those lookups.
    pub lookup_comparisons: u64,
    /// Lookups answered by the last-read hint.
    pub hinted_lookups: u64,
    /// Most comparisons one lookup made (since the last reset).
    pub lookup_comparisons_max: u64,
    /// Comparisons of table maintenance (merge checks).
    pub other_comparisons: u64,
    /// Wall-clock time of the lookups, ns.
    pub lookup_wall_ns: u64,
}

impl StoreStats {
    /// Component-wise `self − earlier` (the maximum is kept as is).
    pub fn since(&self, e: &StoreStats) -> StoreStats {
        StoreStats {
            read_requests: self.read_requests - e.read_requests,
            write_requests: self.write_requests - e.write_requests,
            trim_requests: self.trim_requests - e.trim_requests,
            read_units: self.read_units - e.read_units,
            hit_units: self.hit_units - e.hit_units,
            miss_units: self.miss_units - e.miss_units,
            hit_requests: self.hit_requests - e.hit_requests,
            partial_requests: self.partial_requests - e.partial_requests,
            miss_requests: self.miss_requests - e.miss_requests,
            fill_units: self.fill_units - e.fill_units,
            bypass_units: self.bypass_units - e.bypass_units,
            write_flash_units: self.write_flash_units - e.write_flash_units,
            write_hdd_units: self.write_hdd_units - e.write_hdd_units,
            evictions: self.evictions - e.evictions,
            evicted_units: self.evicted_units - e.evicted_units,
            destaged_units: self.destaged_units - e.destaged_units,
            invalidated_units: self.invalidated_units - e.invalidated_units,
            lookups: self.lookups - e.lookups,
            lookup_comparisons: self.lookup_comparisons - e.lookup_comparisons,
            hinted_lookups: self.hinted_lookups - e.hinted_lookups,
            lookup_comparisons_max: self.lookup_comparisons_max,
            other_comparisons: self.other_comparisons - e.other_comparisons,
            lookup_wall_ns: self.lookup_wall_ns - e.lookup_wall_ns,
        }
    }
}

/// Data tags for correctness tests: the tag last written to each HDD unit, and the tag
/// behind each flash page's write sequence number (so a flash read checks the SSD's
/// mapping and OOB through its GC).
#[derive(Clone, Debug, Default)]
struct Tags {
    hdd: BTreeMap<u64, u64>,
    flash: BTreeMap<u32, u64>,
}

/// Where the data of a flash write come from (for tags).
#[derive(Clone, Copy)]
enum Source {
    /// Every unit carries this tag.
    Tag(u64),
    /// Unit `i` carries the HDD's tag of unit `start + i`.
    Hdd(u64),
}

/// The disk side: HDD, tags, counters.
struct Backend {
    hdd: Hdd,
    sectors_per_unit: u64,
    tags: Option<Tags>,
    stats: StoreStats,
}

impl Backend {
    fn hdd_io(&mut self, write: bool, unit: u64, units: u64, t: u64) -> u64 {
        let spu = self.sectors_per_unit;
        self.hdd.access(write, unit * spu, units * spu, t)
    }

    fn hdd_write(&mut self, unit: u64, units: u64, t: u64, tag: u64) -> u64 {
        if let Some(tags) = &mut self.tags {
            for u in unit..unit + units {
                tags.hdd.insert(u, tag);
            }
        }
        self.stats.write_hdd_units += units;
        self.hdd_io(true, unit, units, t)
    }

    fn hdd_read(&mut self, unit: u64, units: u64, t: u64, out: Option<&mut [u64]>) -> u64 {
        if let (Some(tags), Some(out)) = (&self.tags, out) {
            for (i, o) in out.iter_mut().enumerate() {
                *o = tags.hdd.get(&(unit + i as u64)).copied().unwrap_or(0);
            }
        }
        self.hdd_io(false, unit, units, t)
    }
}

/// One cached extent (slot of the table's `value`); `len == 0` marks a free slot.
#[derive(Clone, Copy, Debug, Default)]
struct Extent {
    start: u64,
    flash: u64,
    len: u32,
    dirty: bool,
}

/// Sequential-stream detector for the bypass.
#[derive(Clone, Copy, Debug, Default)]
struct Stream {
    end: u64,
    run: u64,
}

impl Stream {
    /// Records `[a, e)` and returns the run length including it.
    fn observe(&mut self, a: u64, e: u64) -> u64 {
        self.run = if a == self.end {
            self.run + (e - a)
        } else {
            e - a
        };
        self.end = e;
        self.run
    }
}

/// The flash side: the SSD, the cache control table and its bookkeeping.
struct FlashCache {
    dev: Device,
    table: Box<dyn CacheTable>,
    evict: Box<dyn Eviction>,
    space: FlashSpace,
    extents: Vec<Extent>,
    free_slots: Vec<u32>,
    hint: Option<Cursor>,
    cfg: CacheConfig,
    unit_bytes: u64,
    pages_per_unit: u64,
    extent_max_units: u64,
    bypass_units: u64,
    reads: Stream,
    writes: Stream,
    pieces: Vec<Record>,
    gaps: Vec<(u64, u64)>,
}

impl FlashCache {
    fn new(cfg: &CacheConfig, flash: &Config) -> Result<FlashCache, SimError> {
        let mut fcfg = flash.clone();
        fcfg.device.capacity = cfg.size;
        let dev = Device::new(&fcfg).map_err(|e| match e {
            SimError::Config(m) => SimError::Config(format!("flash cache: {m}")),
            SimError::Design(e) => SimError::Config(format!("flash cache: {e}")),
            other => other,
        })?;
        let page = dev.resolved.geometry.page_size_bytes as u64;
        let unit = cfg.unit.bytes();
        if !unit.is_multiple_of(page) {
            return Err(SimError::Config(format!(
                "cache.unit = {}: expected a multiple of the flash page size {}",
                cfg.unit,
                Size(page)
            )));
        }
        let units = cfg.size.bytes() / unit;
        let extent_max_units = (cfg.extent_max.bytes() / unit).clamp(1, u32::MAX as u64);
        Ok(FlashCache {
            dev,
            table: cfg.table.build(),
            evict: cfg.eviction.build(),
            space: FlashSpace::new(units),
            extents: Vec::new(),
            free_slots: Vec::new(),
            hint: None,
            cfg: cfg.clone(),
            unit_bytes: unit,
            pages_per_unit: unit / page,
            extent_max_units,
            bypass_units: cfg.bypass_sequential.bytes().div_ceil(unit),
            reads: Stream::default(),
            writes: Stream::default(),
            pieces: Vec::new(),
            gaps: Vec::new(),
        })
    }

    fn req(&self, op: OpKind, f: u64, k: u64) -> IoRequest {
        IoRequest::new(op, f * self.unit_bytes, k * self.unit_bytes)
    }

    /// The tag the flash holds for unit `f` (checked against the SSD's map and OOB).
    fn flash_tag(&self, tags: &Tags, f: u64) -> u64 {
        let mut tag = None;
        for p in f * self.pages_per_unit..(f + 1) * self.pages_per_unit {
            let Some(ppn) = self.dev.ftl.lookup(Lpn(p as u32), &self.dev.nand) else {
                return CORRUPT_TAG;
            };
            let oob = self.dev.nand.oob(ppn);
            if oob.lpn.0 as u64 != p || !self.dev.nand.is_valid(ppn) {
                return CORRUPT_TAG;
            }
            let t = tags.flash.get(&oob.seq).copied().unwrap_or(CORRUPT_TAG);
            if tag.is_some_and(|x| x != t) {
                return CORRUPT_TAG;
            }
            tag = Some(t);
        }
        tag.unwrap_or(CORRUPT_TAG)
    }

    fn flash_read(
        &mut self,
        b: &Backend,
        f: u64,
        k: u64,
        t: u64,
        out: Option<&mut [u64]>,
    ) -> Result<u64, SimError> {
        let done = self.dev.submit(&self.req(OpKind::Read, f, k), t)?;
        if let (Some(tags), Some(out)) = (&b.tags, out) {
            for (i, o) in out.iter_mut().enumerate() {
                *o = self.flash_tag(tags, f + i as u64);
            }
        }
        Ok(done)
    }

    fn flash_write(
        &mut self,
        b: &mut Backend,
        f: u64,
        k: u64,
        t: u64,
        src: Source,
    ) -> Result<u64, SimError> {
        let done = self.dev.submit(&self.req(OpKind::Write, f, k), t)?;
        if let Some(tags) = &mut b.tags {
            for i in 0..k {
                let tag = match src {
                    Source::Tag(x) => x,
                    Source::Hdd(start) => tags.hdd.get(&(start + i)).copied().unwrap_or(0),
                };
                for p in (f + i) * self.pages_per_unit..(f + i + 1) * self.pages_per_unit {
                    let ppn = self
                        .dev
                        .ftl
                        .lookup(Lpn(p as u32), &self.dev.nand)
                        .expect("page just written");
                    tags.flash.insert(self.dev.nand.oob(ppn).seq, tag);
                }
            }
        }
        Ok(done)
    }

    fn new_slot(&mut self, x: Extent) -> u32 {
        match self.free_slots.pop() {
            Some(s) => {
                self.extents[s as usize] = x;
                s
            }
            None => {
                self.extents.push(x);
                (self.extents.len() - 1) as u32
            }
        }
    }

    fn free_slot(&mut self, s: u32) {
        self.extents[s as usize] = Extent::default();
        self.free_slots.push(s);
    }

    /// Returns flash units to the pool and trims them on the SSD.
    fn release(&mut self, f: u64, k: u64, t: u64) -> Result<(), SimError> {
        self.space.release(f, k);
        self.dev.submit(&self.req(OpKind::Trim, f, k), t)?;
        Ok(())
    }

    /// Evicts extent `s`, writing it back first when dirty; returns when its space is
    /// free.
    fn evict_extent(&mut self, b: &mut Backend, s: u32, t: u64) -> Result<u64, SimError> {
        let x = self.extents[s as usize];
        let k = x.len as u64;
        let mut ready = t;
        if x.dirty {
            let mut buf = vec![0u64; if b.tags.is_some() { k as usize } else { 0 }];
            let rd = self.flash_read(b, x.flash, k, t, b.tags.is_some().then_some(&mut buf[..]))?;
            if let Some(tags) = &mut b.tags {
                for (i, tag) in buf.iter().enumerate() {
                    tags.hdd.insert(x.start + i as u64, *tag);
                }
            }
            ready = b.hdd_io(true, x.start, k, rd);
            b.stats.destaged_units += k;
        }
        self.table
            .remove(x.start)
            .expect("evicted extent is in the table");
        self.evict.removed(s);
        self.release(x.flash, k, t)?;
        self.free_slot(s);
        b.stats.evictions += 1;
        b.stats.evicted_units += k;
        Ok(ready)
    }

    /// Evicts until `k` units are free; returns when they are.
    fn make_room(&mut self, b: &mut Backend, k: u64, t: u64) -> Result<u64, SimError> {
        let mut ready = t;
        while self.space.free_units() < k {
            let v = self
                .evict
                .victim()
                .expect("space is short only while extents are cached");
            ready = ready.max(self.evict_extent(b, v, t)?);
        }
        Ok(ready)
    }

    /// Records HDD units `[g, g + k)` at flash `[f, f + k)`, merged into the record that
    /// ends at `g` when possible.
    fn add_extent(&mut self, b: &mut Backend, g: u64, f: u64, k: u64, dirty: bool) {
        if g > 0 {
            let mut cmp = 0;
            let prev = self.table.find(g - 1, &mut cmp);
            b.stats.other_comparisons += cmp;
            if let Some((_, p)) = prev {
                let x = self.extents[p.value as usize];
                if p.end() == g
                    && x.flash + x.len as u64 == f
                    && x.dirty == dirty
                    && p.len as u64 + k <= self.extent_max_units
                {
                    let len = p.len + k as u32;
                    self.table.set_len(p.start, len);
                    self.extents[p.value as usize].len = len;
                    self.evict.touched(p.value);
                    return;
                }
            }
        }
        let s = self.new_slot(Extent {
            start: g,
            flash: f,
            len: k as u32,
            dirty,
        });
        self.table.insert(Record {
            start: g,
            len: k as u32,
            value: s,
        });
        self.evict.inserted(s);
    }

    /// Copies HDD units `[g0, g1)` into newly allocated flash, starting no earlier than
    /// `t`; returns when the flash writes complete.
    fn allocate_and_write(
        &mut self,
        b: &mut Backend,
        g0: u64,
        g1: u64,
        t: u64,
        src: Source,
        dirty: bool,
    ) -> Result<u64, SimError> {
        let ready = self.make_room(b, g1 - g0, t)?;
        let mut done = ready;
        let mut g = g0;
        while g < g1 {
            let (f, k) = self
                .space
                .alloc_run((g1 - g).min(self.extent_max_units))
                .expect("room was made");
            let src_here = match src {
                Source::Tag(x) => Source::Tag(x),
                Source::Hdd(s) => Source::Hdd(s + (g - g0)),
            };
            done = done.max(self.flash_write(b, f, k, ready, src_here)?);
            self.add_extent(b, g, f, k, dirty);
            g += k;
        }
        Ok(done)
    }

    /// Drops HDD units `[a, e)` of extent record `r` from the cache (splitting it).
    fn cut(&mut self, b: &mut Backend, r: Record, a: u64, e: u64, t: u64) -> Result<(), SimError> {
        let s = r.value;
        let x = self.extents[s as usize];
        let (c0, c1) = (a.max(r.start), e.min(r.end()));
        let left = c0 - r.start;
        let right = r.end() - c1;
        self.release(x.flash + left, c1 - c0, t)?;
        b.stats.invalidated_units += c1 - c0;
        match (left > 0, right > 0) {
            (false, false) => {
                self.table.remove(r.start);
                self.evict.removed(s);
                self.free_slot(s);
            }
            (true, keep_right) => {
                self.table.set_len(r.start, left as u32);
                self.extents[s as usize].len = left as u32;
                if keep_right {
                    let n = self.new_slot(Extent {
                        start: c1,
                        flash: x.flash + (c1 - r.start),
                        len: right as u32,
                        dirty: x.dirty,
                    });
                    self.table.insert(Record {
                        start: c1,
                        len: right as u32,
                        value: n,
                    });
                    self.evict.inserted_after(n, s);
                }
            }
            (false, true) => {
                self.table.remove(r.start);
                let y = &mut self.extents[s as usize];
                y.start = c1;
                y.flash = x.flash + (c1 - r.start);
                y.len = right as u32;
                self.table.insert(Record {
                    start: c1,
                    len: right as u32,
                    value: s,
                });
            }
        }
        Ok(())
    }

    /// Looks `[a, e)` up: fills `self.pieces` with the cached records overlapping it and
    /// `self.gaps` with the uncached runs; returns the comparisons made.
    fn lookup(&mut self, b: &mut Backend, a: u64, e: u64) -> u64 {
        let wall = Instant::now();
        let mut cmp = 0;
        self.pieces.clear();
        let (first, hinted) = if self.cfg.hint {
            find_hinted(self.table.as_ref(), a, &mut self.hint, &mut cmp)
        } else {
            (self.table.find(a, &mut cmp).map(|(_, r)| r), false)
        };
        match first {
            Some(r) if r.end() >= e => self.pieces.push(r),
            _ => self.table.overlapping(a, e, &mut self.pieces, &mut cmp),
        }
        b.stats.lookup_wall_ns += wall.elapsed().as_nanos() as u64;
        b.stats.lookups += 1;
        b.stats.lookup_comparisons += cmp;
        b.stats.hinted_lookups += hinted as u64;
        b.stats.lookup_comparisons_max = b.stats.lookup_comparisons_max.max(cmp);
        self.gaps.clear();
        let mut at = a;
        for r in &self.pieces {
            if r.start > at {
                self.gaps.push((at, r.start));
            }
            at = at.max(r.end());
        }
        if at < e {
            self.gaps.push((at, e));
        }
        cmp
    }

    fn read(
        &mut self,
        b: &mut Backend,
        a: u64,
        e: u64,
        t: u64,
        mut out: Option<&mut [u64]>,
    ) -> Result<u64, SimError> {
        let cmp = self.lookup(b, a, e);
        let t = t + (cmp as f64 * self.cfg.ns_per_comparison) as u64;
        let run = self.reads.observe(a, e);
        b.stats.read_units += e - a;
        let pieces = std::mem::take(&mut self.pieces);
        let gaps = std::mem::take(&mut self.gaps);
        let (hull0, hull1) = match (gaps.first(), gaps.last()) {
            (Some(&(g0, _)), Some(&(_, g1))) => (g0, g1),
            _ => (e, e),
        };
        let mut done = t;
        let mut hdd_done = t;
        if hull0 < hull1 {
            let o = out
                .as_deref_mut()
                .map(|o| &mut o[(hull0 - a) as usize..(hull1 - a) as usize]);
            hdd_done = b.hdd_read(hull0, hull1 - hull0, t, o);
            done = hdd_done;
        }
        let mut flash_units = 0;
        for r in &pieces {
            let x = self.extents[r.value as usize];
            let (s0, s1) = (a.max(r.start), e.min(r.end()));
            // Clean data inside the HDD's span come with the HDD read; the rest from flash.
            let spans: [(u64, u64); 2] = if x.dirty || hull0 >= hull1 {
                [(s0, s1), (0, 0)]
            } else {
                [(s0, s1.min(hull0)), (s0.max(hull1), s1)]
            };
            for (u0, u1) in spans {
                if u0 < u1 {
                    let f = x.flash + (u0 - r.start);
                    let o = out
                        .as_deref_mut()
                        .map(|o| &mut o[(u0 - a) as usize..(u1 - a) as usize]);
                    done = done.max(self.flash_read(b, f, u1 - u0, t, o)?);
                    flash_units += u1 - u0;
                }
            }
            self.evict.touched(r.value);
        }
        b.stats.hit_units += flash_units;
        b.stats.miss_units += (e - a) - flash_units;
        match (gaps.is_empty(), pieces.is_empty()) {
            (true, _) => b.stats.hit_requests += 1,
            (false, false) => b.stats.partial_requests += 1,
            (false, true) => b.stats.miss_requests += 1,
        }
        let bypass = self.bypass_units > 0 && run >= self.bypass_units;
        for &(g0, g1) in &gaps {
            if bypass || g1 - g0 > self.space.units() {
                b.stats.bypass_units += g1 - g0;
            } else {
                self.allocate_and_write(b, g0, g1, hdd_done, Source::Hdd(g0), false)?;
                b.stats.fill_units += g1 - g0;
            }
        }
        self.pieces = pieces;
        self.gaps = gaps;
        Ok(done)
    }

    fn write(
        &mut self,
        b: &mut Backend,
        a: u64,
        e: u64,
        t: u64,
        tag: u64,
    ) -> Result<u64, SimError> {
        let cmp = self.lookup(b, a, e);
        let t = t + (cmp as f64 * self.cfg.ns_per_comparison) as u64;
        let run = self.writes.observe(a, e);
        let bypass = self.bypass_units > 0 && run >= self.bypass_units;
        let pieces = std::mem::take(&mut self.pieces);
        let gaps = std::mem::take(&mut self.gaps);
        let policy = self.cfg.write_policy;
        let mut done = t;
        if policy != WritePolicy::WriteBack {
            done = b.hdd_write(a, e - a, t, tag);
        }
        if policy == WritePolicy::WriteAround {
            for &r in &pieces {
                self.cut(b, r, a, e, t)?;
            }
        } else {
            let dirty = policy == WritePolicy::WriteBack;
            for r in &pieces {
                let x = self.extents[r.value as usize];
                let (s0, s1) = (a.max(r.start), e.min(r.end()));
                done = done.max(self.flash_write(
                    b,
                    x.flash + (s0 - r.start),
                    s1 - s0,
                    t,
                    Source::Tag(tag),
                )?);
                b.stats.write_flash_units += s1 - s0;
                self.extents[r.value as usize].dirty |= dirty;
                self.evict.touched(r.value);
            }
            for &(g0, g1) in &gaps {
                if bypass || g1 - g0 > self.space.units() {
                    if dirty {
                        done = done.max(b.hdd_write(g0, g1 - g0, t, tag));
                    }
                    b.stats.bypass_units += g1 - g0;
                } else {
                    done =
                        done.max(self.allocate_and_write(b, g0, g1, t, Source::Tag(tag), dirty)?);
                    b.stats.write_flash_units += g1 - g0;
                }
            }
        }
        self.pieces = pieces;
        self.gaps = gaps;
        Ok(done)
    }

    fn trim(&mut self, b: &mut Backend, a: u64, e: u64, t: u64) -> Result<u64, SimError> {
        self.lookup(b, a, e);
        let pieces = std::mem::take(&mut self.pieces);
        for &r in &pieces {
            self.cut(b, r, a, e, t)?;
        }
        self.pieces = pieces;
        Ok(t)
    }

    /// Writes every dirty extent back to the HDD (they stay cached, now clean).
    fn flush(&mut self, b: &mut Backend, t: u64) -> Result<u64, SimError> {
        let mut done = t;
        for s in 0..self.extents.len() {
            let x = self.extents[s];
            if x.len > 0 && x.dirty {
                let k = x.len as u64;
                let mut buf = vec![0u64; if b.tags.is_some() { k as usize } else { 0 }];
                let rd =
                    self.flash_read(b, x.flash, k, t, b.tags.is_some().then_some(&mut buf[..]))?;
                if let Some(tags) = &mut b.tags {
                    for (i, tag) in buf.iter().enumerate() {
                        tags.hdd.insert(x.start + i as u64, *tag);
                    }
                }
                done = done.max(b.hdd_io(true, x.start, k, rd));
                b.stats.destaged_units += k;
                self.extents[s].dirty = false;
            }
        }
        Ok(done)
    }

    fn check_invariants(&self) {
        self.table.check_invariants();
        let live: Vec<(u32, Extent)> = self
            .extents
            .iter()
            .enumerate()
            .filter(|(_, x)| x.len > 0)
            .map(|(i, x)| (i as u32, *x))
            .collect();
        assert_eq!(live.len(), self.table.len(), "extents vs table records");
        let mut used = 0;
        for (s, x) in &live {
            let mut cmp = 0;
            let (_, r) = self.table.find(x.start, &mut cmp).expect("extent in table");
            assert_eq!((r.start, r.len, r.value), (x.start, x.len, *s));
            used += x.len as u64;
        }
        assert_eq!(
            used,
            self.space.units() - self.space.free_units(),
            "flash space"
        );
        if self.cfg.write_policy != WritePolicy::WriteBack {
            assert!(live.iter().all(|(_, x)| !x.dirty));
        }
    }
}

/// An HDD, optionally behind a flash cache.
pub struct HybridStore {
    back: Backend,
    cache: Option<FlashCache>,
    unit_bytes: u64,
    hdd_units: u64,
}

impl HybridStore {
    /// A store over the disk `hdd`; with `cache`, a flash cache of `cache.size` built
    /// from the SSD configuration `flash` (its capacity is replaced by the cache size).
    pub fn new(
        hdd: &HddParams,
        cache: Option<(&CacheConfig, &Config)>,
    ) -> Result<HybridStore, SimError> {
        let hdd = Hdd::new(hdd).map_err(|e| SimError::Config(e.to_string()))?;
        let unit = cache.map_or(4096, |(c, _)| c.unit.bytes());
        if unit == 0 || !unit.is_multiple_of(SECTOR_BYTES) {
            return Err(SimError::Config(format!(
                "cache.unit = {}: expected a positive multiple of 512 B, e.g. 4KiB",
                Size(unit)
            )));
        }
        let cache = match cache {
            Some((c, flash)) if c.size.bytes() > 0 => {
                if !c.size.bytes().is_multiple_of(unit) {
                    return Err(SimError::Config(format!(
                        "cache.size = {}: expected a whole number of {} units",
                        c.size,
                        Size(unit)
                    )));
                }
                if !(c.ns_per_comparison >= 0.0 && c.ns_per_comparison.is_finite()) {
                    return Err(SimError::Config(format!(
                        "cache.ns_per_comparison = {}: expected a number ≥ 0",
                        c.ns_per_comparison
                    )));
                }
                Some(FlashCache::new(c, flash)?)
            }
            _ => None,
        };
        Ok(HybridStore {
            hdd_units: hdd.capacity_bytes() / unit,
            back: Backend {
                sectors_per_unit: unit / SECTOR_BYTES,
                hdd,
                tags: None,
                stats: StoreStats::default(),
            },
            cache,
            unit_bytes: unit,
        })
    }

    /// Keeps data tags from now on (for correctness tests). The flash cache's device must
    /// track write sequence numbers (`device.track_write_seq = true`): a flash page's
    /// data is identified by its sequence number.
    pub fn track_tags(&mut self) {
        assert!(
            self.cache.as_ref().is_none_or(|c| c.dev.nand.tracks_seq()),
            "data tags need device.track_write_seq = true"
        );
        self.back.tags = Some(Tags::default());
    }

    /// Caching unit in bytes.
    pub fn unit_bytes(&self) -> u64 {
        self.unit_bytes
    }

    /// HDD capacity in bytes (whole units).
    pub fn capacity_bytes(&self) -> u64 {
        self.hdd_units * self.unit_bytes
    }

    /// The disk.
    pub fn hdd(&self) -> &Hdd {
        &self.back.hdd
    }

    /// The flash cache's SSD, if there is a cache.
    pub fn flash(&self) -> Option<&Device> {
        self.cache.as_ref().map(|c| &c.dev)
    }

    /// Counters so far.
    pub fn stats(&self) -> &StoreStats {
        &self.back.stats
    }

    /// Starts a new window for the per-lookup maximum.
    pub fn reset_max(&mut self) {
        self.back.stats.lookup_comparisons_max = 0;
    }

    /// Records in the cache control table.
    pub fn records(&self) -> usize {
        self.cache.as_ref().map_or(0, |c| c.table.len())
    }

    /// Bytes the cache control table occupies.
    pub fn table_bytes(&self) -> u64 {
        self.cache.as_ref().map_or(0, |c| c.table.memory_bytes())
    }

    /// Units cached now.
    pub fn cached_units(&self) -> u64 {
        self.cache
            .as_ref()
            .map_or(0, |c| c.space.units() - c.space.free_units())
    }

    fn units(&self, req: &IoRequest) -> Result<(u64, u64), SimError> {
        let end = req.offset_bytes.saturating_add(req.size_bytes);
        let a = req.offset_bytes / self.unit_bytes;
        let e = end.div_ceil(self.unit_bytes);
        if e > self.hdd_units {
            return Err(SimError::Config(format!(
                "request at byte {} of {} bytes ends past the HDD's {} bytes",
                req.offset_bytes,
                req.size_bytes,
                self.capacity_bytes()
            )));
        }
        Ok((a, e))
    }

    fn op(
        &mut self,
        req: &IoRequest,
        t: u64,
        tag: u64,
        out: Option<&mut Vec<u64>>,
    ) -> Result<u64, SimError> {
        if req.op.is_zone_op() {
            return Err(zone_op_refused(req.op));
        }
        let (a, e) = self.units(req)?;
        if a == e {
            return Ok(t);
        }
        let b = &mut self.back;
        let out = out.map(|o| {
            o.clear();
            o.resize((e - a) as usize, 0);
            &mut o[..]
        });
        match (req.op, &mut self.cache) {
            (OpKind::Read, Some(c)) => {
                b.stats.read_requests += 1;
                c.read(b, a, e, t, out)
            }
            (OpKind::Read, None) => {
                b.stats.read_requests += 1;
                b.stats.read_units += e - a;
                b.stats.miss_units += e - a;
                b.stats.miss_requests += 1;
                Ok(b.hdd_read(a, e - a, t, out))
            }
            (OpKind::Write, Some(c)) => {
                b.stats.write_requests += 1;
                c.write(b, a, e, t, tag)
            }
            (OpKind::Write, None) => {
                b.stats.write_requests += 1;
                Ok(b.hdd_write(a, e - a, t, tag))
            }
            (OpKind::Trim, Some(c)) => {
                b.stats.trim_requests += 1;
                c.trim(b, a, e, t)
            }
            (OpKind::Trim, None) => {
                b.stats.trim_requests += 1;
                Ok(t)
            }
            (OpKind::Flush, _) => Ok(t),
            // The store is a conventional block device: the run stops with the reason.
            (
                OpKind::ZoneAppend
                | OpKind::ZoneReset
                | OpKind::ZoneFinish
                | OpKind::ZoneOpen
                | OpKind::ZoneClose
                | OpKind::ZoneReport(_),
                _,
            ) => Err(zone_op_refused(req.op)),
        }
    }

    /// Performs `req` issued at `t`; returns its completion time.
    pub fn submit(&mut self, req: &IoRequest, t: u64) -> Result<u64, SimError> {
        self.op(req, t, 0, None)
    }

    /// Writes data tagged `tag` (every unit of the request) at `t` (tests).
    pub fn write_tagged(
        &mut self,
        offset_bytes: u64,
        size_bytes: u64,
        t: u64,
        tag: u64,
    ) -> Result<u64, SimError> {
        let req = IoRequest::new(OpKind::Write, offset_bytes, size_bytes);
        self.op(&req, t, tag, None)
    }

    /// Reads at `t` and puts the tag of every unit read into `out` (0 = never written).
    /// Requires [`HybridStore::track_tags`].
    pub fn read_tagged(
        &mut self,
        offset_bytes: u64,
        size_bytes: u64,
        t: u64,
        out: &mut Vec<u64>,
    ) -> Result<u64, SimError> {
        assert!(self.back.tags.is_some(), "read_tagged needs track_tags");
        let req = IoRequest::new(OpKind::Read, offset_bytes, size_bytes);
        self.op(&req, t, 0, Some(out))
    }

    /// Writes every dirty extent back to the HDD at `t`; returns when done.
    pub fn flush(&mut self, t: u64) -> Result<u64, SimError> {
        match &mut self.cache {
            Some(c) => c.flush(&mut self.back, t),
            None => Ok(t),
        }
    }

    /// Panics if the table, extents and flash space disagree (tests).
    pub fn check_invariants(&self) {
        if let Some(c) = &self.cache {
            c.check_invariants();
            c.dev.ftl.check_invariants(&c.dev.nand);
        }
    }
}

/// The error for a zone operation sent to the hybrid store (a conventional device).
#[cold]
fn zone_op_refused(op: OpKind) -> SimError {
    SimError::Config(format!(
        "the hybrid store is a conventional block device: {} is a zone operation, which \
         only ftl.name = \"zoned\" takes",
        op.name()
    ))
}
