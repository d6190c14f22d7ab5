//! The write-buffer stage of the request pipeline (docs/buffer.md): an optional stage
//! between the device queue and the FTL. A write's pages go into DRAM; pages the policy
//! evicts are written back through the FTL; reads that hit are served from DRAM. Without
//! a buffer the stage is absent and the pipeline hands a write's page range to the FTL
//! at once.

use crate::buffer::core::KeyMap;
use crate::buffer::{BufferConfig, BufferShape, Evictions, WriteBuffer, build_buffer};
use crate::ftl::{Ftl, FtlError};
use crate::nand::{Cause, Lpn, Nand};

/// Victims whose FTL map entries a run of buffered writes asks for ahead: those of the
/// next command or two (a command is a few pages on average; a longer one fetches the
/// rest as it goes, in [`Ftl::write_each`]).
const LATER_VICTIMS: u32 = 8;

/// Counters of the write buffer, kept by the simulator (the same way for every policy).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferStats {
    /// Host page writes that hit.
    pub write_hit_pages: u64,
    /// Host page reads served from DRAM.
    pub read_hit_pages: u64,
    /// Buffered pages written back.
    pub flushed_pages: u64,
    /// Of those, by the end-of-run flush.
    pub end_flush_pages: u64,
    /// Padding pages read from flash and written back (BPLRU).
    pub padding_pages: u64,
    /// Of the flushed pages, those that left the buffer with an evicted page of their
    /// unit (in front of an FTL that rewrites whole units).
    pub unit_gathered_pages: u64,
    /// Host FLUSH commands.
    pub host_flushes: u64,
}

/// The write buffer as the device runs it: the policy, the host write each buffered page
/// holds, the front end's clock and the counters.
#[derive(Clone)]
pub(super) struct BufferStage {
    pub(super) policy: Box<dyn WriteBuffer>,
    /// Page → sequence number of the host write it holds (when the NAND tracks write
    /// sequence numbers), written into the OOB tag when the page is written back.
    pub(super) versions: Option<KeyMap>,
    out: Evictions,
    /// Whether the policy is [`WriteBuffer::single_victim`] (runs of pages go in one call).
    batch: bool,
    /// The victims of one [`WriteBuffer::write_run`], for the FTL.
    victims: Vec<Lpn>,
    flush_on_host_flush: bool,
    pub(super) flush_at_end: bool,
    pub(super) size_bytes: u64,
    pub(super) dram_ns_per_page: u64,
    /// When the front end can take the next command.
    pub(super) free_ns: u64,
    /// [`Ftl::rewrite_unit_pages`] of the FTL behind the buffer (0 when it writes pages
    /// where it likes): a write-back takes every dirty page of its units along.
    unit_pages: u32,
    /// The pages of one unit-wise write-back, ascending.
    set: Vec<Lpn>,
    /// With FDP: page → the namespace and placement identifier of the host write it
    /// holds ([`pack_placement`]), so that its write-back goes to that write's reclaim
    /// unit handle, not to the handle of whichever request happens to evict it.
    placements: Option<KeyMap>,
    /// The namespace and placement identifier of the write being buffered.
    placement: u32,
    /// `buffer.flush_ahead_pages`.
    flush_ahead: usize,
    /// When the victims of the last `flush_ahead` writes left DRAM, oldest first.
    ahead_ns: std::collections::VecDeque<u64>,
    pub(super) stats: BufferStats,
}

impl BufferStage {
    /// The stage for `cfg` with the resolved `shape`, over a NAND with `page_bytes` pages,
    /// in front of an FTL whose [`Ftl::rewrite_unit_pages`] is `unit_pages`; with
    /// `placement_tags` (FDP) each buffered page keeps its write's placement identifier.
    pub(super) fn new(
        cfg: &BufferConfig,
        shape: BufferShape,
        page_bytes: u64,
        nand: &Nand,
        unit_pages: Option<u32>,
        placement_tags: bool,
    ) -> Self {
        let policy = build_buffer(cfg, shape).expect("a shape means a policy");
        let batch = policy.single_victim();
        BufferStage {
            policy,
            versions: nand
                .tracks_seq()
                .then(|| KeyMap::with_capacity(shape.capacity_pages as usize)),
            out: Evictions {
                pages: Vec::with_capacity(shape.block_pages as usize + 1),
            },
            batch,
            victims: Vec::new(),
            flush_on_host_flush: cfg.flush_on_host_flush,
            flush_at_end: cfg.flush_at_end,
            size_bytes: shape.capacity_pages as u64 * page_bytes,
            dram_ns_per_page: (page_bytes as f64 / cfg.dram_mb_s * 1e3).round() as u64,
            free_ns: 0,
            unit_pages: unit_pages.filter(|&m| m > 1).unwrap_or(0),
            set: Vec::new(),
            placements: placement_tags
                .then(|| KeyMap::with_capacity(shape.capacity_pages as usize)),
            placement: pack_placement(0, None),
            flush_ahead: cfg.flush_ahead_pages as usize,
            ahead_ns: std::collections::VecDeque::with_capacity(cfg.flush_ahead_pages as usize + 1),
            stats: BufferStats::default(),
        }
    }

    /// When the DRAM slot of a write whose victims' data leaves at `victims_out_ns` is
    /// free: that moment itself, or, with `flush_ahead` pages written back ahead of
    /// need, when the victims of the write that many writes earlier had left.
    pub(super) fn slot_free_ns(&mut self, victims_out_ns: u64) -> u64 {
        if self.flush_ahead == 0 {
            return victims_out_ns;
        }
        self.ahead_ns.push_back(victims_out_ns);
        if self.ahead_ns.len() > self.flush_ahead {
            self.ahead_ns.pop_front().unwrap_or(0)
        } else {
            0
        }
    }

    /// The namespace and FDP placement identifier of the host write that follows.
    pub(super) fn set_placement(&mut self, namespace: u32, pid: Option<u16>) {
        self.placement = pack_placement(namespace, pid);
    }

    /// Takes the pages `first..last` of a host write. A page that misses and is only
    /// partly written (`partial`) first gets its untouched sectors from flash.
    pub(super) fn write(
        &mut self,
        first: u64,
        last: u64,
        partial: impl Fn(u64) -> bool,
        ftl: &mut dyn Ftl,
        nand: &mut Nand,
    ) -> Result<(), FtlError> {
        // The common case (no write-sequence tracking, no page payloads) gets its own
        // copy of the loop without the per-page checks for either, or, for a policy that
        // evicts one page at a time, runs of pages in one call each.
        if self.versions.is_none() && nand.data_mut().is_none() && self.placements.is_none() {
            // Unit-wise write-backs go page by page: a victim's unit may hold pages of
            // this very write, and only those already taken may go along.
            if !self.batch || self.unit_pages != 0 {
                return self.write_pages::<false>(first, last, partial, ftl, nand);
            }
            // A partly written first or last page reads its old sectors before its victim
            // is written back, so it is a run of its own.
            let (mut lo, mut hi) = (first, last);
            if lo < hi && partial(lo) {
                self.write_run(lo, lo + 1, true, ftl, nand)?;
                lo += 1;
            }
            let tail = hi > lo && partial(hi - 1);
            hi -= tail as u64;
            if lo < hi {
                self.write_run(lo, hi, false, ftl, nand)?;
            }
            if tail {
                self.write_run(hi, hi + 1, true, ftl, nand)?;
            }
            self.prefetch_victims(ftl, nand);
            Ok(())
        } else {
            self.write_pages::<true>(first, last, partial, ftl, nand)
        }
    }

    /// Pages `first..last` (one page when `partial`) through
    /// [`WriteBuffer::write_run`], then their victims through [`Ftl::write_each`], each as
    /// its own one-page command: the flash operations and their order are those of the
    /// page loop.
    #[inline]
    fn write_run(
        &mut self,
        first: u64,
        last: u64,
        partial: bool,
        ftl: &mut dyn Ftl,
        nand: &mut Nand,
    ) -> Result<(), FtlError> {
        debug_assert!(self.out.pages.is_empty() && (!partial || last == first + 1));
        let hits = self
            .policy
            .write_run(Lpn(first as u32), (last - first) as u32, &mut self.out);
        self.stats.write_hit_pages += hits as u64;
        if partial && hits == 0 {
            read_untouched_sectors(Lpn(first as u32), ftl, nand);
        }
        if self.out.pages.is_empty() {
            return Ok(());
        }
        self.victims.clear();
        self.victims.extend(self.out.pages.iter().map(|e| {
            debug_assert!(!e.pad, "a single-victim policy never pads");
            Lpn(e.lpn)
        }));
        self.out.clear();
        ftl.write_each(&self.victims, nand)?;
        self.stats.flushed_pages += self.victims.len() as u64;
        Ok(())
    }

    /// After a command's runs: the flash state of the next two victims, as the page loop
    /// asks after every page (their map entries were asked for a command ago, below);
    /// then the map entries of the victims after them not yet asked for, up to those of
    /// the next command or two.
    fn prefetch_victims(&mut self, ftl: &dyn Ftl, nand: &Nand) {
        if let [Some(next), after] = self.policy.upcoming_victims() {
            ftl.prefetch_next(next, nand);
            if let Some(a) = after {
                ftl.prefetch_next(a, nand);
            }
            self.victims.clear();
            self.policy.later_victims(LATER_VICTIMS, &mut self.victims);
            for &l in &self.victims {
                ftl.prefetch_early(l);
            }
        }
    }

    /// [`BufferStage::write`]; `EXTRAS` false promises that the stage keeps no versions
    /// and the NAND holds no page payloads.
    #[inline(always)]
    fn write_pages<const EXTRAS: bool>(
        &mut self,
        first: u64,
        last: u64,
        partial: impl Fn(u64) -> bool,
        ftl: &mut dyn Ftl,
        nand: &mut Nand,
    ) -> Result<(), FtlError> {
        for lpn in first..last {
            let version = (EXTRAS && self.versions.is_some()).then(|| nand.take_seq());
            if self.policy.write(Lpn(lpn as u32), &mut self.out) {
                self.stats.write_hit_pages += 1;
            } else if partial(lpn) {
                read_untouched_sectors(Lpn(lpn as u32), ftl, nand);
            }
            self.write_back(ftl, nand, Some(lpn as u32))?;
            // The page's new bytes enter DRAM only now: the victims just written back
            // (an older version of a later page of this write, or this page as BPLRU
            // padding) went out with the bytes they held.
            if EXTRAS && let Some(d) = nand.data_mut() {
                d.admit(lpn as u32);
            }
            if EXTRAS && let (Some(v), Some(m)) = (version, self.versions.as_mut()) {
                m.insert(lpn as u32, v);
            }
            if EXTRAS && let Some(p) = self.placements.as_mut() {
                p.insert(lpn as u32, self.placement);
            }
            // The next victim's map entry was asked for one page ago; the one after it
            // is asked for now.
            if let [Some(next), after] = self.policy.upcoming_victims() {
                ftl.prefetch_next(next, nand);
                if let Some(a) = after {
                    ftl.prefetch_early(a);
                }
            }
        }
        Ok(())
    }

    /// Whether a host read of `lpn` is served from DRAM.
    #[inline]
    pub(super) fn read(&mut self, lpn: u64) -> bool {
        let hit = self.policy.read(Lpn(lpn as u32));
        self.stats.read_hit_pages += hit as u64;
        hit
    }

    /// Drops `lpn` (a trim).
    pub(super) fn trim(&mut self, lpn: u64) {
        if self.policy.remove(Lpn(lpn as u32)) {
            if let Some(m) = self.versions.as_mut() {
                m.remove(lpn as u32);
            }
            if let Some(p) = self.placements.as_mut() {
                p.remove(lpn as u32);
            }
        }
    }

    /// A host FLUSH: writes every buffered page back when configured to.
    pub(super) fn host_flush(
        &mut self,
        ftl: &mut dyn Ftl,
        nand: &mut Nand,
    ) -> Result<(), FtlError> {
        self.stats.host_flushes += 1;
        if self.flush_on_host_flush {
            self.policy.flush_all(&mut self.out);
            self.write_back(ftl, nand, None)?;
        }
        Ok(())
    }

    /// Writes every buffered page back (the end-of-run flush).
    pub(super) fn flush_all(&mut self, ftl: &mut dyn Ftl, nand: &mut Nand) -> Result<(), FtlError> {
        self.policy.flush_all(&mut self.out);
        self.stats.end_flush_pages += self.out.pages.iter().filter(|e| !e.pad).count() as u64;
        self.write_back(ftl, nand, None)
    }

    /// Writes back the pages the policy evicted, through the FTL, and empties the list.
    /// Runs of consecutive dirty pages go to the FTL as one range (an FTL that rewrites
    /// whole units then rewrites each unit once); padding pages are read from flash and
    /// written back one by one. In front of an FTL that rewrites whole units, the
    /// write-back goes unit by unit instead ([`BufferStage::write_back_units`]); `taking`
    /// is the page of a host write being buffered right now, whose bytes are not in DRAM
    /// yet.
    #[inline]
    fn write_back(
        &mut self,
        ftl: &mut dyn Ftl,
        nand: &mut Nand,
        taking: Option<u32>,
    ) -> Result<(), FtlError> {
        if self.unit_pages != 0 {
            return self.write_back_units(ftl, nand, taking);
        }
        // The common case of a page policy: one dirty victim per host page and no
        // version to stamp. The same FTL call as the general path, without its loop.
        if let [e] = self.out.pages[..]
            && !e.pad
            && self.versions.is_none()
            && self.placements.is_none()
        {
            ftl.write_range(Lpn(e.lpn), 1, nand)?;
            self.stats.flushed_pages += 1;
            self.out.clear();
            return Ok(());
        }
        if self.out.pages.is_empty() {
            return Ok(());
        }
        self.write_back_runs(ftl, nand)
    }

    /// [`BufferStage::write_back`] in front of an FTL that rewrites a unit whole whenever
    /// any of its pages is written (by-address placement): every unit holding an evicted
    /// page is rewritten once, with all the dirty pages the buffer holds of it (the
    /// evicted ones and the others, which leave the buffer with them, except `taking`),
    /// and the rest of the unit copied on flash. Padding pages are left out: the unit's
    /// rewrite copies what flash holds of them anyway.
    #[inline(never)]
    fn write_back_units(
        &mut self,
        ftl: &mut dyn Ftl,
        nand: &mut Nand,
        taking: Option<u32>,
    ) -> Result<(), FtlError> {
        if self.out.pages.is_empty() {
            return Ok(());
        }
        debug_assert!(
            self.placements.is_none(),
            "FDP takes write-order placement only"
        );
        let m = self.unit_pages;
        self.set.clear();
        self.set
            .extend(self.out.pages.iter().filter(|e| !e.pad).map(|e| Lpn(e.lpn)));
        self.out.clear();
        self.set.sort_unstable_by_key(|l| l.0);
        self.set.dedup();
        let evicted = self.set.len();
        let mut last_unit = u32::MAX;
        for i in 0..evicted {
            let unit = self.set[i].0 / m;
            if unit == last_unit {
                continue;
            }
            last_unit = unit;
            for lpn in unit * m..unit.saturating_mul(m).saturating_add(m) {
                if Some(lpn) != taking && self.policy.remove(Lpn(lpn)) {
                    self.set.push(Lpn(lpn));
                }
            }
        }
        if self.set.len() > evicted {
            self.set.sort_unstable_by_key(|l| l.0);
        }
        if let Some(v) = self.versions.as_mut() {
            for l in &self.set {
                let seq = v.remove(l.0).expect("every buffered page has a version");
                nand.stamp_next_host_program(seq);
            }
        }
        ftl.write_set(&self.set, nand)?;
        debug_assert!(
            !nand.stamp_pending(),
            "FTL {} did not program every written-back page as host data",
            ftl.name()
        );
        self.stats.flushed_pages += self.set.len() as u64;
        self.stats.unit_gathered_pages += (self.set.len() - evicted) as u64;
        Ok(())
    }

    /// [`BufferStage::write_back`] of several pages, padding or versions.
    #[inline(never)]
    fn write_back_runs(&mut self, ftl: &mut dyn Ftl, nand: &mut Nand) -> Result<(), FtlError> {
        let pages = &self.out.pages;
        // With FDP, a padding page rewrites what flash holds under the handle of the
        // dirty pages of its block (the first of them until one has been written).
        let mut tag = self
            .placements
            .as_ref()
            .and_then(|p| pages.iter().find(|e| !e.pad).and_then(|e| p.get(e.lpn)));
        let mut i = 0;
        while i < pages.len() {
            let e = pages[i];
            if e.pad {
                i += 1;
                if let Some(t) = tag {
                    let (ns, pid) = unpack_placement(t);
                    ftl.set_placement(ns, pid);
                }
                // Padding rewrites the data flash already holds; pages without data stay
                // empty.
                let Some(old) = ftl.lookup(Lpn(e.lpn), nand) else {
                    continue;
                };
                let tag = nand.read(old, Cause::Rmw);
                if let Some(d) = nand.data_mut() {
                    d.stage_from_flash(e.lpn, old.0);
                }
                if self.versions.is_some() {
                    nand.stamp_next_host_program(tag.seq);
                }
                ftl.write_range(Lpn(e.lpn), 1, nand)?;
                self.stats.padding_pages += 1;
            } else {
                let mut j = i + 1;
                while j < pages.len() && !pages[j].pad && pages[j].lpn == pages[j - 1].lpn + 1 {
                    j += 1;
                }
                if let Some(p) = self.placements.as_mut() {
                    // The run ends where the next page came from another write's handle.
                    let t = p
                        .remove(e.lpn)
                        .expect("every buffered page has a placement");
                    let mut k = i + 1;
                    while k < j && p.get(pages[k].lpn) == Some(t) {
                        p.remove(pages[k].lpn);
                        k += 1;
                    }
                    j = k;
                    tag = Some(t);
                    let (ns, pid) = unpack_placement(t);
                    ftl.set_placement(ns, pid);
                }
                if let Some(m) = self.versions.as_mut() {
                    for e in &pages[i..j] {
                        let v = m.remove(e.lpn).expect("every buffered page has a version");
                        nand.stamp_next_host_program(v);
                    }
                }
                ftl.write_range(Lpn(e.lpn), (j - i) as u32, nand)?;
                self.stats.flushed_pages += (j - i) as u64;
                i = j;
            }
            debug_assert!(
                !nand.stamp_pending(),
                "FTL {} did not program every written-back page as host data",
                ftl.name()
            );
        }
        self.out.clear();
        if self.placements.is_some() {
            // Back to the write being buffered, for whatever the FTL writes next.
            let (ns, pid) = unpack_placement(self.placement);
            ftl.set_placement(ns, pid);
        }
        Ok(())
    }
}

/// A namespace and an optional placement identifier in one map value: the namespace
/// in the high 15 bits, the identifier + 1 (0 = none) in the low 17.
fn pack_placement(namespace: u32, pid: Option<u16>) -> u32 {
    debug_assert!(namespace < 1 << 15);
    namespace << 17 | pid.map_or(0, |p| p as u32 + 1)
}

/// [`pack_placement`] undone.
fn unpack_placement(v: u32) -> (u32, Option<u16>) {
    let low = v & ((1 << 17) - 1);
    (v >> 17, low.checked_sub(1).map(|p| p as u16))
}

/// A partly written page that missed the buffer: its untouched sectors come from flash
/// into the DRAM slot (read-modify-write), when flash holds the page.
#[inline]
fn read_untouched_sectors(lpn: Lpn, ftl: &dyn Ftl, nand: &mut Nand) {
    if let Some(old) = ftl.lookup(lpn, nand) {
        nand.read(old, Cause::Rmw);
    }
}
