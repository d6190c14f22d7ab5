//! Wiring: workload → host queue → FTL → NAND → timing, and the [`Report`] of a run.
//!
//! Requests are split into pages (partial pages of a write are read-modify-written when
//! they hold data). The host keeps at most `qd` requests outstanding: closed-loop phases
//! issue the next request as soon as a slot frees (like fio); open-loop phases (traces)
//! issue at the trace's arrival time, or later if the queue is full. Latency runs from
//! arrival to completion, so it includes queueing.
//!
//! In the full timing model every flash operation a request causes (including GC it
//! triggers) is placed on its die and bus no earlier than the request's issue time; the
//! request completes when its last operation does. In counting mode the device is one
//! serial server whose service time for a request is the elapsed-time formula of the
//! operations it caused.
//!
//! With a write buffer (docs/buffer.md) commands wait in the device queue ([`Ncq`]) and
//! the buffer's front end takes them one at a time, in the configured dispatch order:
//! a write completes once its data is in DRAM, which needs free slots, so a miss on a
//! full buffer waits until its victims' data has left DRAM for a die (program transfer
//! done); a read hit costs the DRAM copy, a read miss goes to flash while the front end
//! moves on. Victims are written through the FTL, so their programs, and any GC they
//! trigger, occupy dies exactly as host writes do without a buffer.

use crate::buffer::core::KeyMap;
use crate::buffer::{Evictions, WriteBuffer, build_buffer};
use crate::config::{Config, ConfigError, Design, Precondition, ResolvedDevice, TimingMode};
use crate::ftl::layout::Placement;
use crate::ftl::{Ftl, FtlError, PREFETCH_AHEAD, build_ftl};
use crate::host::{Ncq, QueuedCommand};
use crate::nand::{Cause, Lpn, Nand, NandCounters, OpKind as FlashOpKind};
use crate::report::BufferReport;
use crate::report::latency::{cdf_points, new_latency_histogram, summarize};
use crate::report::progress::Progress;
use crate::report::{EraseSummary, Figures, PhaseReport, ProbeReport, Report};
use crate::timing::{Calendar, FormulaCosts, Timing};
use crate::workload::synth::{SynthKind, probe};
use crate::workload::trace::{OpenedTrace, TraceOptions, Warnings, open_trace};
use crate::workload::{IoRequest, OpKind, Phase, RequestStream, TraceError, synth};
use hdrhistogram::Histogram;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// Why a run could not complete.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// Bad configuration (exit code 2).
    #[error("{0}")]
    Config(String),
    /// Configuration refused by [`Config::validate`] (exit code 2; boxed: it is large
    /// and rare).
    #[error(transparent)]
    Design(Box<ConfigError>),
    /// Bad trace (exit code 2).
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// The FTL ran out of space.
    #[error(transparent)]
    Ftl(#[from] FtlError),
}

impl From<ConfigError> for SimError {
    fn from(e: ConfigError) -> SimError {
        SimError::Design(Box::new(e))
    }
}

/// A built device: NAND array, FTL and time models.
pub struct Device {
    /// Resolved parameters.
    pub resolved: ResolvedDevice,
    /// The flash array.
    pub nand: Nand,
    /// The FTL.
    pub ftl: Box<dyn Ftl>,
    /// Full timing model, when enabled.
    pub timing: Option<Timing>,
    /// Page size in bytes, as a divider (a shift for power-of-two pages).
    page: crate::util::SizeDiv,
    /// Counting mode: time at which the serial device is next free.
    serial_free_ns: u64,
    link: Calendar,
    /// Pages per management block when by-address placement rewrites whole blocks (their
    /// rewrites are serialised in time), else 1.
    serial_units: u32,
    op_scratch: Vec<crate::nand::FlashOp>,
    /// Host-link time of one whole page.
    link_page_ns: u64,
    /// A read's pages as (data ready, bytes for the host), for the link transfer.
    read_pages_scratch: Vec<(u64, u64)>,
    /// Which of them were read from flash, in order: the i-th host read the timing
    /// model places is the i-th of these (an FTL reads each mapped page once, in order).
    read_flash_scratch: Vec<u32>,
    /// Host-side page counters.
    pub host: HostCounters,
    /// Commands waiting for dispatch.
    ncq: Ncq,
    /// The write buffer, when configured.
    buffer: Option<Box<BufferFront>>,
}

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
    /// Host FLUSH commands.
    pub host_flushes: u64,
}

/// The write buffer as the device runs it: the policy, the host write each buffered page
/// holds, the front end's clock and the counters.
struct BufferFront {
    policy: Box<dyn WriteBuffer>,
    /// Page → sequence number of the host write it holds (when the NAND tracks write
    /// sequence numbers), written into the OOB tag when the page is written back.
    versions: Option<KeyMap>,
    out: Evictions,
    flush_on_host_flush: bool,
    flush_at_end: bool,
    size_bytes: u64,
    dram_ns_per_page: u64,
    /// When the front end can take the next command.
    free_ns: u64,
    stats: BufferStats,
}

/// A dispatched command and its times.
#[derive(Clone, Copy, Debug)]
pub struct Dispatched {
    /// The command.
    pub cmd: QueuedCommand,
    /// When the device took it.
    pub dispatch_ns: u64,
    /// When it completed.
    pub done_ns: u64,
}

/// Writes back the pages `b.out` lists, through the FTL, and empties the list. Runs of
/// consecutive dirty pages go to the FTL as one range (an FTL that rewrites whole units
/// then rewrites each unit once); padding pages are read from flash and written back one
/// by one.
fn write_back(b: &mut BufferFront, ftl: &mut dyn Ftl, nand: &mut Nand) -> Result<(), FtlError> {
    let pages = &b.out.pages;
    let mut i = 0;
    while i < pages.len() {
        let e = pages[i];
        if e.pad {
            i += 1;
            // Padding rewrites the data flash already holds; pages without data stay empty.
            let Some(old) = ftl.lookup(Lpn(e.lpn), nand) else {
                continue;
            };
            let tag = nand.read(old, Cause::Rmw);
            if b.versions.is_some() {
                nand.stamp_next_host_program(tag.seq);
            }
            ftl.write_range(Lpn(e.lpn), 1, nand)?;
            b.stats.padding_pages += 1;
        } else {
            let mut j = i + 1;
            while j < pages.len() && !pages[j].pad && pages[j].lpn == pages[j - 1].lpn + 1 {
                j += 1;
            }
            if let Some(m) = b.versions.as_mut() {
                for e in &pages[i..j] {
                    let v = m.remove(e.lpn).expect("every buffered page has a version");
                    nand.stamp_next_host_program(v);
                }
            }
            ftl.write_range(Lpn(e.lpn), (j - i) as u32, nand)?;
            b.stats.flushed_pages += (j - i) as u64;
            i = j;
        }
        debug_assert!(
            !nand.stamp_pending(),
            "FTL {} did not program every written-back page as host data",
            ftl.name()
        );
    }
    b.out.clear();
    Ok(())
}

/// Page counters kept by the host side of the simulator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostCounters {
    /// Pages read.
    pub read_pages: u64,
    /// Pages written.
    pub write_pages: u64,
    /// Pages trimmed.
    pub trim_pages: u64,
    /// Reads of unmapped pages.
    pub unmapped_read_pages: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
}

impl HostCounters {
    fn since(&self, e: &HostCounters) -> HostCounters {
        HostCounters {
            read_pages: self.read_pages - e.read_pages,
            write_pages: self.write_pages - e.write_pages,
            trim_pages: self.trim_pages - e.trim_pages,
            unmapped_read_pages: self.unmapped_read_pages - e.unmapped_read_pages,
            read_bytes: self.read_bytes - e.read_bytes,
            write_bytes: self.write_bytes - e.write_bytes,
        }
    }
}

impl Device {
    /// Builds the device `cfg` describes.
    pub fn new(cfg: &Config) -> Result<Device, SimError> {
        Device::build(&cfg.validate_device()?)
    }

    /// Builds the device of a validated design.
    pub fn build(design: &Design) -> Result<Device, SimError> {
        let cfg = &design.config;
        let resolved = design.device.clone();
        let geo = resolved.geometry;
        // Block-mapped FTLs with a management block of k erase blocks run on a virtual
        // geometry of superblocks; the timing model places their pages physically.
        let superblock = design.superblock.clone();
        let ftl_geo = design.ftl_geometry;
        let ftl = build_ftl(&cfg.ftl, &ftl_geo, resolved.logical_pages, cfg.seed)?;
        let mut nand = Nand::new(
            ftl_geo,
            resolved.endurance_cycles,
            resolved.track_write_seq,
            ftl.programs_in_order(),
        );
        if let Some(sb) = &superblock {
            nand.set_blocks_per_erase(sb.blocks());
        }
        let serial_units = if cfg.ftl.placement == Placement::ByAddress
            && cfg.ftl.name == crate::ftl::FtlKind::Page
        {
            design.mgmt_block_pages
        } else {
            1
        };
        let timing = match cfg.timing.mode {
            TimingMode::Full => {
                Some(Timing::new(&geo, resolved.timing).with_superblock(superblock))
            }
            TimingMode::Count => None,
        };
        let buffer = resolved.buffer.map(|shape| {
            let policy = build_buffer(&cfg.buffer, shape).expect("a shape means a policy");
            Box::new(BufferFront {
                policy,
                versions: nand
                    .tracks_seq()
                    .then(|| KeyMap::with_capacity(shape.capacity_pages as usize)),
                out: Evictions {
                    pages: Vec::with_capacity(shape.block_pages as usize + 1),
                },
                flush_on_host_flush: cfg.buffer.flush_on_host_flush,
                flush_at_end: cfg.buffer.flush_at_end,
                size_bytes: shape.capacity_pages as u64 * geo.page_size_bytes as u64,
                dram_ns_per_page: (geo.page_size_bytes as f64 / cfg.buffer.dram_mb_s * 1e3).round()
                    as u64,
                free_ns: 0,
                stats: BufferStats::default(),
            })
        });
        let link_page_ns = (geo.page_size_bytes as f64 * resolved.link_ns_per_byte) as u64;
        let mut dev = Device {
            page: crate::util::SizeDiv::new(geo.page_size_bytes as u64),
            resolved,
            nand,
            ftl,
            timing,
            serial_free_ns: 0,
            link: Calendar::default(),
            link_page_ns,
            serial_units,
            op_scratch: Vec::new(),
            read_pages_scratch: Vec::new(),
            read_flash_scratch: Vec::new(),
            host: HostCounters::default(),
            ncq: Ncq::new(cfg.host.qd as usize, cfg.host.dispatch),
            buffer,
        };
        dev.nand.set_logging(dev.timing.is_some());
        Ok(dev)
    }

    /// Logical capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.resolved.logical_pages * self.page.get()
    }

    /// Formula costs in use.
    pub fn formula(&self) -> &FormulaCosts {
        &self.resolved.formula
    }

    /// Writes page `lpn` outside any timing (preconditioning).
    pub fn write_untimed(&mut self, lpn: u64) -> Result<(), FtlError> {
        self.ftl.write(Lpn(lpn as u32), &mut self.nand)?;
        if self.timing.is_some() {
            self.nand.drain_log();
        }
        Ok(())
    }

    #[inline]
    fn link_ns(&self, bytes: u64) -> u64 {
        (bytes as f64 * self.resolved.link_ns_per_byte) as u64
    }

    /// Performs `req`, issued at `issue_ns`; returns its completion time. With a write
    /// buffer the request goes through the device queue (queued and dispatched at once).
    pub fn submit(&mut self, req: &IoRequest, issue_ns: u64) -> Result<u64, SimError> {
        if self.buffer.is_some() {
            self.queue(req, issue_ns, issue_ns)?;
            let d = self.dispatch()?.expect("a command was just queued");
            return Ok(d.done_ns);
        }
        self.submit_direct(req, issue_ns)
    }

    #[inline]
    fn check_range(&self, req: &IoRequest) -> Result<u64, SimError> {
        let end_bytes = req.offset_bytes.saturating_add(req.size_bytes);
        let capacity = self.capacity_bytes();
        if end_bytes > capacity {
            return Err(SimError::Config(format!(
                "request at byte {} of {} bytes ends past the device's {capacity} bytes",
                req.offset_bytes, req.size_bytes
            )));
        }
        Ok(end_bytes)
    }

    /// Whether a write buffer is configured.
    pub fn has_buffer(&self) -> bool {
        self.buffer.is_some()
    }

    /// The write buffer's counters.
    pub fn buffer_stats(&self) -> Option<BufferStats> {
        self.buffer.as_ref().map(|b| b.stats)
    }

    /// The write buffer's policy.
    pub fn buffer_policy(&self) -> Option<&dyn WriteBuffer> {
        self.buffer.as_deref().map(|b| &*b.policy)
    }

    /// When the buffer's front end can take the next command (0 without a buffer).
    pub fn front_free_ns(&self) -> u64 {
        self.buffer.as_ref().map_or(0, |b| b.free_ns)
    }

    /// Commands waiting in the device queue.
    pub fn queued_commands(&self) -> usize {
        self.ncq.len()
    }

    /// The oldest waiting command.
    pub fn oldest_queued(&self) -> Option<&QueuedCommand> {
        self.ncq.front()
    }

    /// The newest waiting command.
    pub fn newest_queued(&self) -> Option<&QueuedCommand> {
        self.ncq.back()
    }

    /// Commands the device took ahead of an older one ([`crate::host::DispatchOrder`]).
    pub fn reordered_commands(&self) -> u64 {
        self.ncq.reordered()
    }

    /// Sequence number of the host write that a read of `lpn` returns now (from the
    /// buffer or from flash); `None` when it holds no data. Needs write-sequence tracking.
    pub fn peek_version(&self, lpn: u32) -> Option<u32> {
        if let Some(v) = self
            .buffer
            .as_ref()
            .and_then(|b| b.versions.as_ref())
            .and_then(|m| m.get(lpn))
        {
            return Some(v);
        }
        self.ftl
            .lookup(Lpn(lpn), &self.nand)
            .map(|p| self.nand.oob(p).seq)
    }

    /// Puts `req` in the device queue: it arrived at the host at `arrival_ns` and entered
    /// the device at `issue_ns`. The buffer learns of the pages it will reference.
    pub fn queue(
        &mut self,
        req: &IoRequest,
        arrival_ns: u64,
        issue_ns: u64,
    ) -> Result<(), SimError> {
        let end_bytes = self.check_range(req)?;
        let (first_lpn, pages) = if req.op == OpKind::Flush {
            (0, 0)
        } else {
            let first = self.page.div(req.offset_bytes);
            (first as u32, (self.page.div_ceil(end_bytes) - first) as u32)
        };
        if let Some(b) = &mut self.buffer
            && matches!(req.op, OpKind::Read | OpKind::Write)
        {
            b.policy.queued(Lpn(first_lpn), pages);
        }
        self.ncq.push(QueuedCommand {
            req: *req,
            arrival_ns,
            issue_ns,
            first_lpn,
            pages,
        });
        Ok(())
    }

    /// Takes the next command from the device queue and performs it: at its issue time
    /// without a buffer, else when the buffer's front end is free. `None` when the queue
    /// is empty.
    pub fn dispatch(&mut self) -> Result<Option<Dispatched>, SimError> {
        let Some(b) = &mut self.buffer else {
            let Some(cmd) = self.ncq.pop(|_| false) else {
                return Ok(None);
            };
            let done_ns = self.submit_direct(&cmd.req, cmd.issue_ns)?;
            return Ok(Some(Dispatched {
                cmd,
                dispatch_ns: cmd.issue_ns,
                done_ns,
            }));
        };
        let policy = &b.policy;
        let Some(cmd) = self.ncq.pop(|l| policy.contains(Lpn(l))) else {
            return Ok(None);
        };
        if matches!(cmd.req.op, OpKind::Read | OpKind::Write) {
            b.policy.dispatched(Lpn(cmd.first_lpn), cmd.pages);
        }
        if let Some(next) = self.ncq.front() {
            b.policy.prefetch(Lpn(next.first_lpn));
        }
        let t = b.free_ns.max(cmd.issue_ns);
        let done_ns = self.exec_buffered(&cmd, t)?;
        Ok(Some(Dispatched {
            cmd,
            dispatch_ns: t,
            done_ns,
        }))
    }

    /// Writes every buffered page back (the end-of-run flush), starting at `now_ns`;
    /// returns when the last program completes.
    pub fn flush_buffer(&mut self, now_ns: u64) -> Result<u64, SimError> {
        let Some(b) = &mut self.buffer else {
            return Ok(now_ns);
        };
        b.policy.flush_all(&mut b.out);
        let n = b.out.pages.iter().filter(|e| !e.pad).count() as u64;
        b.stats.end_flush_pages += n;
        let before = self.timing.is_none().then(|| *self.nand.counters());
        write_back(b, &mut *self.ftl, &mut self.nand)?;
        let mut done = now_ns;
        if let Some(t) = &mut self.timing {
            t.advance(now_ns);
            for op in self.nand.drain_log() {
                done = done.max(t.apply(&op, now_ns));
            }
        } else if let Some(before) = before {
            let cost = self
                .resolved
                .formula
                .time(&self.nand.counters().since(&before));
            self.serial_free_ns = now_ns.max(self.serial_free_ns) + cost.total_ns();
            done = self.serial_free_ns;
        }
        Ok(done)
    }

    /// Performs a dispatched command through the buffer at `t`; returns its completion
    /// and advances the front end's clock.
    fn exec_buffered(&mut self, cmd: &QueuedCommand, t: u64) -> Result<u64, SimError> {
        let ps = self.page;
        let req = &cmd.req;
        let end_bytes = req.offset_bytes + req.size_bytes;
        let first = cmd.first_lpn as u64;
        let last = first + cmd.pages as u64;
        let before = self.timing.is_none().then(|| *self.nand.counters());
        let b = self.buffer.as_deref_mut().expect("buffered path");
        let ftl = &mut *self.ftl;
        let nand = &mut self.nand;
        let mut ready_ns = t;
        let mut dram_pages = 0u64;
        match req.op {
            OpKind::Write => {
                let link = (req.size_bytes as f64 * self.resolved.link_ns_per_byte) as u64;
                if link > 0 {
                    self.link.prune(t);
                    ready_ns = self.link.reserve(t, link) + link;
                }
                for lpn in first..last {
                    let version = b.versions.is_some().then(|| nand.take_seq());
                    if b.policy.write(Lpn(lpn as u32), &mut b.out) {
                        b.stats.write_hit_pages += 1;
                    } else {
                        let partial = (lpn == first && !ps.divides(req.offset_bytes))
                            || (lpn + 1 == last && !ps.divides(end_bytes));
                        if partial && let Some(old) = ftl.lookup(Lpn(lpn as u32), nand) {
                            // The untouched sectors come from flash into the DRAM slot.
                            nand.read(old, Cause::Rmw);
                        }
                    }
                    write_back(b, ftl, nand)?;
                    if let (Some(v), Some(m)) = (version, b.versions.as_mut()) {
                        m.insert(lpn as u32, v);
                    }
                }
                dram_pages = last - first;
                self.host.write_pages += last - first;
                self.host.write_bytes += req.size_bytes;
            }
            OpKind::Read => {
                // Per page: when its data can cross the link (hits: `HIT` until the DRAM
                // copy's end is known) and how many bytes the host asked of it.
                self.read_pages_scratch.clear();
                self.read_flash_scratch.clear();
                for lpn in first..last {
                    let bytes =
                        end_bytes.min((lpn + 1) * ps.get()) - req.offset_bytes.max(lpn * ps.get());
                    let hit = b.policy.read(Lpn(lpn as u32));
                    self.read_pages_scratch
                        .push((if hit { HIT } else { t }, bytes));
                    if hit {
                        b.stats.read_hit_pages += 1;
                        dram_pages += 1;
                    } else if ftl.read(Lpn(lpn as u32), nand)?.is_none() {
                        self.host.unmapped_read_pages += 1;
                    } else {
                        self.read_flash_scratch.push((lpn - first) as u32);
                    }
                }
                self.host.read_pages += last - first;
                self.host.read_bytes += req.size_bytes;
            }
            OpKind::Trim => {
                let whole_first = ps.div_ceil(req.offset_bytes);
                let whole_last = ps.div(end_bytes);
                for lpn in whole_first..whole_last.max(whole_first) {
                    if b.policy.remove(Lpn(lpn as u32))
                        && let Some(m) = b.versions.as_mut()
                    {
                        m.remove(lpn as u32);
                    }
                    ftl.trim(Lpn(lpn as u32), nand)?;
                }
                self.host.trim_pages += whole_last.saturating_sub(whole_first);
            }
            OpKind::Flush => {
                b.stats.host_flushes += 1;
                if b.flush_on_host_flush {
                    b.policy.flush_all(&mut b.out);
                    write_back(b, ftl, nand)?;
                }
            }
        }
        // Time: victims' data leaves DRAM when its program's bus transfer ends; reads
        // that missed complete when their flash read does.
        let mut slot_free = t;
        let mut flash_done = t;
        let mut read_done = t;
        if let Some(tm) = &mut self.timing {
            let program_ns = tm.params().program_ns;
            tm.advance(t);
            // A padded page is programmed once its old contents have been read.
            let mut merged = t;
            let mut host_reads = 0;
            let mut ops = std::mem::take(&mut self.op_scratch);
            self.nand.swap_log(&mut ops);
            for op in &ops {
                let rmw_read = op.cause == Cause::Rmw && op.kind == FlashOpKind::Read;
                let own = !rmw_read && matches!(op.cause, Cause::Host | Cause::Rmw);
                let end = tm.apply(op, if own { merged } else { t });
                if rmw_read {
                    merged = merged.max(end);
                }
                flash_done = flash_done.max(end);
                match (op.kind, op.cause) {
                    (FlashOpKind::Program, Cause::Host) => {
                        slot_free = slot_free.max(end - program_ns)
                    }
                    (FlashOpKind::Read, Cause::Host) => {
                        read_done = read_done.max(end);
                        if req.op == OpKind::Read
                            && let Some(&k) = self.read_flash_scratch.get(host_reads)
                        {
                            let p = &mut self.read_pages_scratch[k as usize];
                            p.0 = p.0.max(end);
                        }
                        host_reads += 1;
                    }
                    _ => {}
                }
            }
            self.op_scratch = ops;
        } else if let Some(before) = before {
            let cost = self
                .resolved
                .formula
                .time(&self.nand.counters().since(&before));
            if cost.total_ns() > 0 {
                let start = t.max(self.serial_free_ns);
                self.serial_free_ns = start + cost.total_ns();
                (slot_free, flash_done, read_done) = (
                    self.serial_free_ns,
                    self.serial_free_ns,
                    self.serial_free_ns,
                );
            }
        }
        let dram_ns = dram_pages
            * self
                .buffer
                .as_deref()
                .expect("buffered path")
                .dram_ns_per_page;
        let (done, free) = match req.op {
            OpKind::Write => {
                let d = ready_ns.max(slot_free + dram_ns);
                (d, d)
            }
            OpKind::Read => {
                let hits_done = t + dram_ns;
                let mut d = hits_done.max(read_done);
                if self.timing.is_some() {
                    // Hits are ready after the DRAM copy, misses when their flash read ends.
                    for p in self.read_pages_scratch.iter_mut() {
                        if p.0 == HIT {
                            p.0 = hits_done;
                        }
                    }
                    d = d.max(self.send_read_pages(t));
                } else {
                    let link = (req.size_bytes as f64 * self.resolved.link_ns_per_byte) as u64;
                    if link > 0 {
                        self.link.prune(t);
                        d = self.link.reserve(d, link) + link;
                    }
                }
                (d, hits_done)
            }
            OpKind::Trim => (t, t),
            OpKind::Flush => (flash_done, slot_free),
        };
        self.buffer.as_deref_mut().expect("buffered path").free_ns = free;
        Ok(done)
    }

    /// Bytes of `req` (ending at `end_bytes`) that fall in page `lpn`.
    #[inline]
    fn page_share(&self, req: &IoRequest, end_bytes: u64, lpn: u64) -> u64 {
        let ps = self.page.get();
        end_bytes.min((lpn + 1) * ps) - req.offset_bytes.max(lpn * ps)
    }

    /// Sends a read's pages (`read_pages_scratch`: data ready, bytes) to the host, each
    /// as soon as its data is ready, in order of readiness, so the transfer overlaps the
    /// flash reads as in an NVMe or SATA controller; returns when the last one has
    /// crossed (0 without a link).
    fn send_read_pages(&mut self, now_ns: u64) -> u64 {
        if self.resolved.link_ns_per_byte <= 0.0 {
            return 0;
        }
        let pages = &mut self.read_pages_scratch;
        if !pages.is_sorted_by_key(|&(ready, _)| ready) {
            pages.sort_by_key(|&(ready, _)| ready);
        }
        self.link.prune(now_ns);
        let mut done_ns = 0;
        for &(ready, bytes) in pages.iter() {
            let link = if bytes == self.page.get() {
                self.link_page_ns
            } else {
                (bytes as f64 * self.resolved.link_ns_per_byte) as u64
            };
            if link > 0 {
                done_ns = done_ns.max(self.link.reserve(ready, link) + link);
            }
        }
        done_ns
    }

    /// Performs `req` without a buffer, issued at `issue_ns`; returns its completion time.
    fn submit_direct(&mut self, req: &IoRequest, issue_ns: u64) -> Result<u64, SimError> {
        let ps = self.page;
        let end_bytes = self.check_range(req)?;
        let first = ps.div(req.offset_bytes);
        let last = ps.div_ceil(end_bytes);
        let before = if self.timing.is_none() {
            Some(*self.nand.counters())
        } else {
            None
        };
        let mut ready_ns = issue_ns;
        match req.op {
            OpKind::Read => {
                // Full timing sends each page over the link as it is read: note the pages
                // and which of them flash supplies.
                let timed = self.timing.is_some();
                if timed {
                    self.read_pages_scratch.clear();
                    self.read_flash_scratch.clear();
                }
                for lpn in first..last {
                    if timed {
                        let bytes = self.page_share(req, end_bytes, lpn);
                        self.read_pages_scratch.push((ready_ns, bytes));
                    }
                    if self.ftl.read(Lpn(lpn as u32), &mut self.nand)?.is_none() {
                        self.host.unmapped_read_pages += 1;
                    } else if timed {
                        self.read_flash_scratch.push((lpn - first) as u32);
                    }
                }
                self.host.read_pages += last - first;
                self.host.read_bytes += req.size_bytes;
            }
            OpKind::Write => {
                // The data crosses the host link before the device can program it.
                let link = self.link_ns(req.size_bytes);
                if link > 0 {
                    self.link.prune(issue_ns);
                    ready_ns = self.link.reserve(issue_ns, link) + link;
                }
                // Read-modify-write: the untouched sectors of a partly written first or
                // last page come from the old page.
                let head = (!ps.divides(req.offset_bytes)).then_some(first);
                let tail = (!ps.divides(end_bytes) && head != Some(last - 1)).then_some(last - 1);
                for lpn in [head, tail].into_iter().flatten() {
                    if let Some(old) = self.ftl.lookup(Lpn(lpn as u32), &self.nand) {
                        self.nand.read(old, Cause::Rmw);
                    }
                }
                self.ftl
                    .write_range(Lpn(first as u32), (last - first) as u32, &mut self.nand)?;
                self.host.write_pages += last - first;
                self.host.write_bytes += req.size_bytes;
            }
            OpKind::Trim => {
                // Only whole pages can be discarded.
                let whole_first = ps.div_ceil(req.offset_bytes);
                let whole_last = ps.div(end_bytes);
                for lpn in whole_first..whole_last.max(whole_first) {
                    self.ftl.trim(Lpn(lpn as u32), &mut self.nand)?;
                }
                self.host.trim_pages += whole_last.saturating_sub(whole_first);
            }
            OpKind::Flush => {}
        }
        let mut done_ns = ready_ns;
        if let Some(t) = &mut self.timing {
            t.advance(issue_ns);
            // A partly written page is programmed only once its old contents have been
            // read and merged: read-modify-write reads gate the command's own programs.
            // With by-address management blocks the firmware rewrites one block at a
            // time, so a write straddling two blocks pays for both in sequence.
            let mut ops = std::mem::take(&mut self.op_scratch);
            self.nand.swap_log(&mut ops);
            let mut host_reads = 0;
            let mut merged_ns = ready_ns;
            let (mut unit, mut unit_start_ns, mut unit_done_ns) = (u32::MAX, ready_ns, ready_ns);
            for op in &ops {
                let rmw_read = op.cause == Cause::Rmw && op.kind == FlashOpKind::Read;
                let own = !rmw_read && matches!(op.cause, Cause::Host | Cause::Rmw);
                let mut start = if own { merged_ns } else { ready_ns };
                if own && self.serial_units > 1 {
                    let u = self.nand.oob_lpn_raw(op.addr) / self.serial_units;
                    if u != unit {
                        if unit != u32::MAX {
                            unit_start_ns = unit_done_ns;
                        }
                        unit = u;
                    }
                    start = start.max(unit_start_ns);
                }
                let end = t.apply(op, start);
                if rmw_read {
                    merged_ns = merged_ns.max(end);
                }
                if own {
                    unit_done_ns = unit_done_ns.max(end);
                }
                if op.cause == Cause::Host && op.kind == FlashOpKind::Read {
                    // A read's page is ready for the host when its flash read ends
                    // (an unmapped page's zeros at once).
                    if req.op == OpKind::Read
                        && let Some(&k) = self.read_flash_scratch.get(host_reads)
                    {
                        let p = &mut self.read_pages_scratch[k as usize];
                        p.0 = p.0.max(end);
                    }
                    host_reads += 1;
                }
                done_ns = done_ns.max(end);
            }
            self.op_scratch = ops;
            if req.op == OpKind::Read {
                done_ns = done_ns.max(self.send_read_pages(issue_ns));
            }
        } else if let Some(before) = before {
            let cost = self
                .resolved
                .formula
                .time(&self.nand.counters().since(&before));
            let start = ready_ns.max(self.serial_free_ns);
            self.serial_free_ns = start + cost.total_ns();
            done_ns = self.serial_free_ns;
        }
        if req.op == OpKind::Read && self.timing.is_none() {
            // Counting mode is one serial server: the data follow the whole request.
            let link = self.link_ns(req.size_bytes);
            if link > 0 {
                self.link.prune(issue_ns);
                done_ns = self.link.reserve(done_ns, link) + link;
            }
        }
        Ok(done_ns)
    }

    /// Idles every resource at `now_ns` and forgets busy-time accounting.
    fn reset_time(&mut self, now_ns: u64) {
        if let Some(t) = &mut self.timing {
            t.reset(now_ns);
        }
        self.serial_free_ns = now_ns;
        self.link.clear();
    }
}

/// Data-ready time of a read page served by the write buffer, until the DRAM copy's end
/// is known.
const HIT: u64 = u64::MAX;

/// Throughput over simulated time with a bounded number of buckets (the width doubles
/// whenever they would exceed `MAX_BUCKETS`).
struct ThroughputSeries {
    width_ns: u64,
    start_ns: u64,
    bytes: Vec<u64>,
    /// The last bucket used and its time range `[lo, hi)`: consecutive completions
    /// nearly always fall in it, which saves a 64-bit division per request.
    last: usize,
    last_lo_ns: u64,
    last_hi_ns: u64,
}

const MAX_BUCKETS: usize = 512;

impl ThroughputSeries {
    fn new(start_ns: u64) -> Self {
        ThroughputSeries {
            width_ns: 1_000_000,
            start_ns,
            bytes: Vec::new(),
            last: 0,
            last_lo_ns: 0,
            last_hi_ns: 0,
        }
    }
    #[inline]
    fn add(&mut self, at_ns: u64, bytes: u64) {
        if (self.last_lo_ns..self.last_hi_ns).contains(&at_ns) {
            self.bytes[self.last] += bytes;
            return;
        }
        self.add_slow(at_ns, bytes);
    }
    fn add_slow(&mut self, at_ns: u64, bytes: u64) {
        let mut i = (at_ns.saturating_sub(self.start_ns) / self.width_ns) as usize;
        while i >= MAX_BUCKETS {
            let merged: Vec<u64> = self.bytes.chunks(2).map(|c| c.iter().sum()).collect();
            self.bytes = merged;
            self.width_ns *= 2;
            i = (at_ns.saturating_sub(self.start_ns) / self.width_ns) as usize;
        }
        if i >= self.bytes.len() {
            self.bytes.resize(i + 1, 0);
        }
        self.bytes[i] += bytes;
        // Times before the start share bucket 0 (saturating above); cache only the
        // bucket's own range.
        self.last = i;
        self.last_lo_ns = self.start_ns + i as u64 * self.width_ns;
        self.last_hi_ns = self.last_lo_ns + self.width_ns;
    }
    fn points(&self) -> Vec<(f64, f64)> {
        let w_s = self.width_ns as f64 / 1e9;
        self.bytes
            .iter()
            .enumerate()
            .map(|(i, &b)| ((i as f64 + 0.5) * w_s, b as f64 / (1 << 20) as f64 / w_s))
            .collect()
    }
}

/// Accumulates one phase's results.
struct PhaseAcc {
    name: String,
    /// Latencies of requests that are neither reads nor writes (trims, flushes); the
    /// histogram of all requests is the sum of the three, formed once at the end rather
    /// than recorded twice per request.
    other: Histogram<u64>,
    reads: Histogram<u64>,
    writes: Histogram<u64>,
    read_requests: u64,
    write_requests: u64,
    requests: u64,
    start_ns: u64,
    end_ns: u64,
    nand_before: NandCounters,
    host_before: HostCounters,
}

impl PhaseAcc {
    fn new(name: String, start_ns: u64, dev: &Device) -> Self {
        PhaseAcc {
            name,
            other: new_latency_histogram(),
            reads: new_latency_histogram(),
            writes: new_latency_histogram(),
            read_requests: 0,
            write_requests: 0,
            requests: 0,
            start_ns,
            end_ns: start_ns,
            nand_before: *dev.nand.counters(),
            host_before: dev.host,
        }
    }

    #[inline]
    fn record(&mut self, op: OpKind, latency_ns: u64, done_ns: u64) {
        let v = latency_ns.max(1);
        match op {
            OpKind::Read => {
                self.reads.saturating_record(v);
                self.read_requests += 1;
            }
            OpKind::Write => {
                self.writes.saturating_record(v);
                self.write_requests += 1;
            }
            _ => self.other.saturating_record(v),
        }
        self.requests += 1;
        self.end_ns = self.end_ns.max(done_ns);
    }

    /// Latencies of every request of the phase.
    fn all(&self) -> Histogram<u64> {
        let mut h = self.reads.clone();
        // Same bounds and precision, so adding cannot fail.
        h.add(&self.writes).ok();
        h.add(&self.other).ok();
        h
    }

    fn finish(&self, dev: &Device) -> PhaseReport {
        let nand = dev.nand.counters().since(&self.nand_before);
        let host = dev.host.since(&self.host_before);
        let sim_ns = self.end_ns - self.start_ns;
        let secs = sim_ns as f64 / 1e9;
        let per_s = |n: f64| if secs > 0.0 { n / secs } else { 0.0 };
        let mib = (1u64 << 20) as f64;
        let f = dev.formula().time(&nand);
        PhaseReport {
            name: self.name.clone(),
            requests: self.requests,
            read_requests: self.read_requests,
            write_requests: self.write_requests,
            simulated_ns: sim_ns,
            iops: per_s(self.requests as f64),
            read_iops: per_s(self.read_requests as f64),
            write_iops: per_s(self.write_requests as f64),
            throughput_mib_s: per_s((host.read_bytes + host.write_bytes) as f64 / mib),
            read_throughput_mib_s: per_s(host.read_bytes as f64 / mib),
            write_throughput_mib_s: per_s(host.write_bytes as f64 / mib),
            latency_ns: summarize(&self.all()),
            read_latency_ns: summarize(&self.reads),
            write_latency_ns: summarize(&self.writes),
            host_read_pages: host.read_pages,
            host_write_pages: host.write_pages,
            nand_program_pages: nand.total_programs(),
            gc_copy_pages: nand.copies[Cause::Gc as usize],
            erases: nand.total_erases(),
            write_amplification: ratio(nand.total_programs(), host.write_pages),
            elapsed_formula_us: f.total_ns() as f64 / 1e3,
            gc_time_share: share(f.gc_ns, f.total_ns()),
        }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

fn share(part: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        part as f64 / total as f64
    }
}

/// A finished run.
pub struct RunOutput {
    /// The report (JSON keys are an interface).
    pub report: Report,
    /// Data behind the figures.
    pub figures: Figures,
}

/// Options that affect how a run is shown, not what it computes.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Show a progress bar on long runs (only on a terminal).
    pub progress: bool,
}

/// Builds the phases of the configured workload (trace or generator).
pub fn build_workload(
    cfg: &Config,
    capacity_bytes: u64,
) -> Result<(Vec<Phase>, Option<Warnings>), SimError> {
    if let Some(path) = &cfg.trace.path {
        let opts = TraceOptions {
            format: cfg.trace.format,
            device: cfg.trace.device,
            fit: cfg.trace.fit,
            capacity_bytes,
            columns: cfg.trace.columns.clone(),
            ..TraceOptions::default()
        };
        let OpenedTrace {
            requests, warnings, ..
        } = open_trace(path, &opts)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let requests: RequestStream = if cfg.trace.writes_only {
            Box::new(requests.filter(|r| r.as_ref().map_or(true, |r| r.op == OpKind::Write)))
        } else {
            requests
        };
        let requests = parse_ahead(requests);
        Ok((
            vec![Phase {
                name,
                requests,
                open_loop: true,
            }],
            Some(warnings),
        ))
    } else {
        let phases = synth::build_phases(&cfg.workload, capacity_bytes, cfg.seed)
            .map_err(|e| SimError::Config(format!("workload: {e}")))?;
        Ok((phases, None))
    }
}

/// The request stream with the next [`PREFETCH_AHEAD`] requests read ahead, so the
/// simulator can announce them to the FTL (reading ahead has no other effect: requests
/// and errors come out in order).
struct Lookahead {
    inner: std::iter::Fuse<RequestStream>,
    ahead: std::collections::VecDeque<Result<IoRequest, TraceError>>,
}

impl Lookahead {
    fn new(inner: RequestStream) -> Self {
        let mut l = Lookahead {
            inner: inner.fuse(),
            ahead: std::collections::VecDeque::with_capacity(PREFETCH_AHEAD + 1),
        };
        l.fill();
        l
    }

    fn fill(&mut self) {
        while self.ahead.len() < PREFETCH_AHEAD {
            match self.inner.next() {
                Some(r) => self.ahead.push_back(r),
                None => break,
            }
        }
    }

    /// The request `n` positions after the one `next` returned last, if it parsed.
    #[inline]
    fn peek(&self, n: usize) -> Option<&IoRequest> {
        self.ahead.get(n).and_then(|r| r.as_ref().ok())
    }
}

impl Iterator for Lookahead {
    type Item = Result<IoRequest, TraceError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let r = self.ahead.pop_front()?;
        if let Some(n) = self.inner.next() {
            self.ahead.push_back(n);
        }
        Some(r)
    }
}

/// Parses a trace on a second thread, in batches, while the simulator consumes it: on a
/// two-core machine parsing then costs almost nothing. Order and errors are preserved
/// (the reader stops after its first error, and so does this stream).
fn parse_ahead(mut requests: RequestStream) -> RequestStream {
    const BATCH: usize = 4096;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Result<IoRequest, TraceError>>>(8);
    std::thread::spawn(move || {
        loop {
            let batch: Vec<_> = requests.by_ref().take(BATCH).collect();
            let done = batch.len() < BATCH || batch.last().is_some_and(|r| r.is_err());
            if tx.send(batch).is_err() || done {
                return;
            }
        }
    });
    Box::new(rx.into_iter().flatten())
}

/// Fills the logical space once, sequentially; then, for `Steady`, overwrites random
/// pages in rounds of half the logical space until a round's write amplification is
/// within 1% of the previous round's (at most 20 rounds). Returns notes for the report.
fn precondition(dev: &mut Device, cfg: &Config) -> Result<Vec<String>, SimError> {
    let mut notes = Vec::new();
    if cfg.precondition == Precondition::None {
        return Ok(notes);
    }
    let logical = dev.resolved.logical_pages;
    for lpn in 0..logical {
        dev.write_untimed(lpn)?;
    }
    notes.push(format!(
        "preconditioned: wrote all {logical} logical pages sequentially"
    ));
    if cfg.precondition == Precondition::Steady {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed ^ 0x5eed_f111);
        let round = (logical / 2).max(1);
        let mut prev = f64::NAN;
        for r in 1..=20 {
            let before = dev.nand.counters().total_programs();
            for _ in 0..round {
                dev.write_untimed(rng.gen_range(0..logical))?;
            }
            let wa = (dev.nand.counters().total_programs() - before) as f64 / round as f64;
            let settled = (wa - prev).abs() <= 0.01 * prev;
            prev = wa;
            if settled || r == 20 {
                notes.push(format!(
                    "preconditioned: {r} rounds of {round} random page overwrites; last round's write amplification {wa:.3}{}",
                    if settled { " (settled)" } else { " (not settled after 20 rounds)" }
                ));
                break;
            }
        }
    }
    notes.push("counters cover the measured phase only (after preconditioning)".into());
    Ok(notes)
}

/// Runs the workload `cfg` describes and reports.
pub fn run(cfg: &Config, opts: RunOptions) -> Result<RunOutput, SimError> {
    run_design(&cfg.validate()?, opts)
}

/// Runs a validated design and reports.
pub fn run_design(design: &Design, opts: RunOptions) -> Result<RunOutput, SimError> {
    let cfg = &design.config;
    let wall = std::time::Instant::now();
    let mut dev = Device::build(design)?;
    let (phases, trace_warnings) = build_workload(cfg, dev.capacity_bytes())?;
    let mut notes = precondition(&mut dev, cfg)?;
    dev.reset_time(0);
    let measured_wall = std::time::Instant::now();
    let nand_base = *dev.nand.counters();
    // FTL counters are running totals too: the measured phase reports its own share.
    let mut ftl_base = BTreeMap::new();
    dev.ftl.counters(&mut ftl_base);
    let host_base = dev.host;
    let busy_base = dev.timing.as_ref().map(|t| *t.busy_ns());
    let speedup = cfg.host.speedup;
    let mut now_ns = 0u64;
    let mut phase_reports = Vec::new();
    let mut cdfs = Vec::new();
    let mut all = new_latency_histogram();
    let mut reads = new_latency_histogram();
    let mut writes = new_latency_histogram();
    let mut series = ThroughputSeries::new(0);
    let mut requests_total = 0u64;
    let mut progress = opts.progress.then(|| Progress::new(None, "simulating"));
    let mut outstanding: BinaryHeap<Reverse<u64>> = BinaryHeap::with_capacity(513);
    let mut warnings = Vec::new();
    warnings.extend(design.notes.iter().cloned());
    // The management-block probe needs every probe write's latency by offset.
    let probe_starts = if cfg.trace.path.is_none() && cfg.workload.kind == SynthKind::Probe {
        probe::partition_starts(&cfg.workload, dev.capacity_bytes()).map_err(SimError::Config)?
    } else {
        Vec::new()
    };
    let mut probe_samples: Vec<(u32, u64, u64)> = Vec::new();
    // A probe write's latency must be its own service time, not time spent queued behind
    // earlier writes: the probe always runs at queue depth 1.
    let qd = if probe_starts.is_empty() {
        cfg.host.qd as usize
    } else {
        if cfg.host.qd != 1 {
            notes.push(format!(
                "the probe ran at queue depth 1 (host.qd = {} ignored)",
                cfg.host.qd
            ));
        }
        1
    };
    for phase in phases {
        let probing = !probe_starts.is_empty() && phase.name == "probe";
        let start = now_ns;
        let mut acc = PhaseAcc::new(phase.name.clone(), start, &dev);
        let mut issue_clock = start;
        let mut last_arrival = start;
        if dev.has_buffer() {
            requests_total += run_phase_buffered(
                &mut dev,
                phase,
                PhaseClock { start, qd, speedup },
                &mut acc,
                &mut series,
                &mut progress,
            )?;
            now_ns = acc.end_ns;
            let acc_all = acc.all();
            all.add(&acc_all).ok();
            reads.add(&acc.reads).ok();
            writes.add(&acc.writes).ok();
            cdfs.push((acc.name.clone(), cdf_points(&acc_all)));
            phase_reports.push(acc.finish(&dev));
            continue;
        }
        let mut requests = Lookahead::new(phase.requests);
        while let Some(req) = requests.next() {
            let req = req?;
            let first_page = |r: &IoRequest| Lpn(dev.page.div(r.offset_bytes) as u32);
            if let Some(far) = requests.peek(PREFETCH_AHEAD - 1) {
                dev.ftl.prefetch_early(first_page(far));
            }
            if let Some(next) = requests.peek(0) {
                dev.ftl.prefetch_next(first_page(next), &dev.nand);
            }
            let (arrival, issue) = if phase.open_loop {
                let a = (start + (req.arrival_ns as f64 / speedup) as u64).max(last_arrival);
                last_arrival = a;
                while outstanding.peek().is_some_and(|&Reverse(t)| t <= a) {
                    outstanding.pop();
                }
                let issue = if outstanding.len() >= qd {
                    let Reverse(t) = outstanding.pop().expect("queue is full");
                    a.max(t)
                } else {
                    a
                };
                (a, issue)
            } else {
                if outstanding.len() >= qd {
                    let Reverse(t) = outstanding.pop().expect("queue is full");
                    issue_clock = issue_clock.max(t);
                }
                (issue_clock, issue_clock)
            };
            let done = dev.submit(&req, issue)?;
            outstanding.push(Reverse(done));
            acc.record(req.op, done - arrival, done);
            if probing {
                let p = probe_starts.partition_point(|&s| s <= req.offset_bytes) - 1;
                probe_samples.push((p as u32, req.offset_bytes - probe_starts[p], done - arrival));
            }
            series.add(done, req.size_bytes);
            requests_total += 1;
            if let Some(p) = &mut progress {
                p.inc(1);
            }
        }
        outstanding.clear();
        now_ns = acc.end_ns;
        let acc_all = acc.all();
        all.add(&acc_all).ok();
        reads.add(&acc.reads).ok();
        writes.add(&acc.writes).ok();
        cdfs.push((acc.name.clone(), cdf_points(&acc_all)));
        phase_reports.push(acc.finish(&dev));
    }
    if let Some(p) = progress {
        p.finish();
    }
    if dev.buffer.as_ref().is_some_and(|b| b.flush_at_end) {
        // Its programs count; its time does not, as no request waits for it.
        dev.flush_buffer(now_ns)?;
    }
    if let Some(w) = trace_warnings {
        warnings.extend(w.snapshot());
    }
    let nand = dev.nand.counters().since(&nand_base);
    let host = dev.host.since(&host_base);
    let formula = dev.formula().time(&nand);
    let gc_busy_share = match (&dev.timing, busy_base) {
        (Some(t), Some(base)) => {
            let b = t.busy_ns();
            let d: Vec<u64> = b.iter().zip(base.iter()).map(|(x, y)| x - y).collect();
            share(
                d[Cause::Gc as usize] + d[Cause::Wl as usize],
                d.iter().sum(),
            )
        }
        _ => share(formula.gc_ns, formula.total_ns()),
    };
    let erase_counts = dev.nand.erase_counts();
    let mut counters = BTreeMap::new();
    dev.ftl.counters(&mut counters);
    for (k, v) in counters.iter_mut() {
        if !crate::ftl::is_gauge(k) {
            *v -= ftl_base.get(k).copied().unwrap_or(0).min(*v);
        }
    }
    counters.insert(
        "nand.worn_out_blocks".into(),
        dev.nand.worn_out_blocks() as u64,
    );
    counters.insert("host.requests".into(), requests_total);
    if let Some(b) = &dev.buffer {
        b.policy.counters(&mut counters);
        counters.insert("buffer.host_flushes".into(), b.stats.host_flushes);
        counters.insert("host.reordered_commands".into(), dev.ncq.reordered());
    }
    let buffer = buffer_report(
        &dev,
        host.write_pages,
        host.read_pages,
        nand.total_programs(),
    );
    if dev.nand.worn_out_blocks() > 0 {
        warnings.push(format!(
            "{} blocks reached their endurance of {} P/E cycles (they keep working in the model)",
            dev.nand.worn_out_blocks(),
            dev.resolved.endurance_cycles
        ));
    }
    if cfg.precondition != Precondition::None {
        notes.push(format!(
            "device over-provisioning after rounding to whole blocks: {:.2}%",
            dev.resolved.op_percent_actual
        ));
    }
    let sim_secs = now_ns as f64 / 1e9;
    let per_s = |n: f64| if sim_secs > 0.0 { n / sim_secs } else { 0.0 };
    let hw = host.write_pages;
    let mut config_json = serde_json::to_value(cfg).expect("config serializes");
    if let Some(obj) = config_json.as_object_mut() {
        obj.insert(
            "resolved".into(),
            serde_json::json!({
                "geometry": dev.resolved.geometry,
                "logical_pages": dev.resolved.logical_pages,
                "op_percent_actual": dev.resolved.op_percent_actual,
                "timing": dev.resolved.timing,
                "formula": dev.resolved.formula,
                "endurance_cycles": dev.resolved.endurance_cycles,
            }),
        );
    }
    let report = Report {
        ssdlab_version: env!("CARGO_PKG_VERSION").into(),
        config: config_json,
        measured_phase: if cfg.precondition == Precondition::None {
            "whole run".into()
        } else {
            "after preconditioning".into()
        },
        notes,
        warnings,
        host_read_pages: host.read_pages,
        host_write_pages: hw,
        host_trim_pages: host.trim_pages,
        unmapped_read_pages: host.unmapped_read_pages,
        nand_read_pages: nand.total_reads(),
        rmw_read_pages: nand.reads[Cause::Rmw as usize],
        nand_program_pages: nand.total_programs(),
        host_program_pages: nand.programs[Cause::Host as usize],
        gc_copy_pages: nand.copies[Cause::Gc as usize],
        wl_copy_pages: nand.copies[Cause::Wl as usize],
        map_program_pages: nand.programs[Cause::Map as usize],
        erases: nand.total_erases(),
        write_amplification: ratio(nand.total_programs(), hw),
        write_amplification_host: ratio(nand.programs[Cause::Host as usize], hw),
        write_amplification_gc: ratio(nand.copies[Cause::Gc as usize], hw),
        write_amplification_wl: ratio(nand.copies[Cause::Wl as usize], hw),
        iops: per_s(requests_total as f64),
        throughput_mib_s: per_s((host.read_bytes + host.write_bytes) as f64 / (1u64 << 20) as f64),
        latency_ns: summarize(&all),
        read_latency_ns: summarize(&reads),
        write_latency_ns: summarize(&writes),
        elapsed_formula_us: formula.total_ns() as f64 / 1e3,
        elapsed_formula_io_us: formula.io_ns as f64 / 1e3,
        elapsed_formula_gc_us: formula.gc_ns as f64 / 1e3,
        gc_time_share: share(formula.gc_ns, formula.total_ns()),
        gc_busy_share,
        buffer,
        erase_count: erase_summary(&erase_counts),
        mapping_bytes: dev.ftl.mapping_bytes(),
        simulated_ns: now_ns,
        counters,
        phases: phase_reports,
        probe: (!probe_starts.is_empty()).then(|| probe_report(cfg, &probe_samples)),
        wall_clock_s: wall.elapsed().as_secs_f64(),
        wall_clock_measured_s: measured_wall.elapsed().as_secs_f64(),
    };
    let figures = Figures {
        latency_cdf: cdfs,
        throughput_series: series.points(),
        erase_counts,
        probe_latency: probe_figure(&probe_samples),
    };
    Ok(RunOutput { report, figures })
}

/// The buffer's figures and the FTL's write amplification for the measured run.
fn buffer_report(dev: &Device, host_writes: u64, host_reads: u64, programs: u64) -> BufferReport {
    let Some(b) = &dev.buffer else {
        return BufferReport {
            buffer_policy: "none".into(),
            ftl_write_pages: host_writes,
            write_amplification_ftl: ratio(programs, host_writes),
            ..BufferReport::default()
        };
    };
    let st = b.stats;
    let ftl_writes = st.flushed_pages + st.padding_pages;
    BufferReport {
        buffer_policy: b.policy.name().into(),
        buffer_size_bytes: b.size_bytes,
        buffer_write_hit_ratio: ratio(st.write_hit_pages, host_writes),
        buffer_read_hit_ratio: ratio(st.read_hit_pages, host_reads),
        buffer_write_hit_pages: st.write_hit_pages,
        buffer_read_hit_pages: st.read_hit_pages,
        buffer_flushed_pages: st.flushed_pages,
        buffer_end_flush_pages: st.end_flush_pages,
        buffer_padding_pages: st.padding_pages,
        buffer_programs_saved: host_writes as i64 - ftl_writes as i64,
        buffer_resident_pages: b.policy.len_pages() as u64,
        ftl_write_pages: ftl_writes,
        write_amplification_ftl: ratio(programs, ftl_writes),
    }
}

/// Where a phase starts and how its host issues requests.
#[derive(Clone, Copy)]
struct PhaseClock {
    start: u64,
    qd: usize,
    speedup: f64,
}

/// Host-side state while a phase feeds the device queue.
struct Feeder {
    requests: std::iter::Peekable<RequestStream>,
    open_loop: bool,
    clock: PhaseClock,
    /// Closed loop: when the previous request was issued.
    issue_clock: u64,
    /// Open loop: the previous arrival (arrivals never go back in time).
    last_arrival: u64,
    /// Completion times of dispatched commands still holding a queue tag.
    completions: BinaryHeap<Reverse<u64>>,
}

impl Feeder {
    /// Issues the next request into the device queue if it can be issued by `bound`
    /// (any time when `None`): it must have arrived and a queue tag must be free (tags
    /// are held from issue to completion, so `qd` bounds waiting + executing commands).
    fn admit(&mut self, dev: &mut Device, bound: Option<u64>) -> Result<bool, SimError> {
        let req = match self.requests.peek() {
            None => return Ok(false),
            Some(Ok(r)) => *r,
            Some(Err(_)) => {
                let e = self
                    .requests
                    .next()
                    .expect("peeked")
                    .expect_err("peeked an error");
                return Err(e.into());
            }
        };
        let c = self.clock;
        let arrival = if self.open_loop {
            (c.start + (req.arrival_ns as f64 / c.speedup) as u64).max(self.last_arrival)
        } else {
            self.issue_clock
        };
        if bound.is_some_and(|b| arrival > b) {
            return Ok(false);
        }
        while self
            .completions
            .peek()
            .is_some_and(|&Reverse(t)| t <= arrival)
        {
            self.completions.pop();
        }
        let issue = if dev.queued_commands() + self.completions.len() >= c.qd {
            // Every tag is held; a waiting command frees none before it is dispatched.
            match self.completions.peek() {
                Some(&Reverse(t)) if bound.is_none_or(|b| t <= b) => {
                    self.completions.pop();
                    arrival.max(t)
                }
                _ => return Ok(false),
            }
        } else {
            arrival
        };
        self.requests.next();
        let arrival = if self.open_loop {
            self.last_arrival = arrival;
            arrival
        } else {
            // A closed-loop host issues the request the moment a tag frees.
            self.issue_clock = issue;
            issue
        };
        dev.queue(&req, arrival, issue)?;
        Ok(true)
    }
}

/// Runs one phase through the device queue and the write buffer; returns the requests
/// completed. Each dispatch happens when the front end is free and the oldest waiting
/// command has been issued; every request issued by then is queued first, so the
/// buffer sees exactly the commands that wait at that moment.
fn run_phase_buffered(
    dev: &mut Device,
    phase: Phase,
    clock: PhaseClock,
    acc: &mut PhaseAcc,
    series: &mut ThroughputSeries,
    progress: &mut Option<Progress>,
) -> Result<u64, SimError> {
    let mut f = Feeder {
        requests: phase.requests.peekable(),
        open_loop: phase.open_loop,
        clock,
        issue_clock: clock.start,
        last_arrival: clock.start,
        completions: BinaryHeap::with_capacity(clock.qd + 1),
    };
    let mut n = 0u64;
    loop {
        if dev.queued_commands() == 0 && !f.admit(dev, None)? {
            break;
        }
        let oldest = dev.oldest_queued().expect("non-empty").issue_ns;
        let t = dev.front_free_ns().max(oldest);
        while f.admit(dev, Some(t))? {}
        let d = dev.dispatch()?.expect("non-empty");
        debug_assert_eq!(d.dispatch_ns, t);
        f.completions.push(Reverse(d.done_ns));
        acc.record(d.cmd.req.op, d.done_ns - d.cmd.arrival_ns, d.done_ns);
        series.add(d.done_ns, d.cmd.req.size_bytes);
        n += 1;
        if let Some(p) = progress {
            p.inc(1);
        }
    }
    Ok(n)
}

/// The probe's inference as a report section.
fn probe_report(cfg: &Config, samples: &[(u32, u64, u64)]) -> ProbeReport {
    let r = probe::infer(samples, cfg.workload.size.bytes());
    ProbeReport {
        mgmt_block_bytes: r.mgmt_block_bytes,
        mgmt_block: r
            .mgmt_block_bytes
            .map(|b| crate::units::Size(b).to_string())
            .unwrap_or_else(|| "none seen".into()),
        size_bytes: cfg.workload.size.bytes(),
        step_bytes: cfg.workload.probe_step.bytes(),
        partitions: cfg.workload.probe_partitions,
        onsets: r.onsets as u64,
        latency_ns_min: r.latency_ns_min,
        latency_ns_max: r.latency_ns_max,
    }
}

/// Probe latency by offset, one series per partition (KiB, µs).
fn probe_figure(samples: &[(u32, u64, u64)]) -> Vec<(String, Vec<(f64, f64)>)> {
    let mut out: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for &(p, off, lat) in samples {
        if out.len() <= p as usize {
            out.push((format!("partition {p}"), Vec::new()));
        }
        out[p as usize]
            .1
            .push((off as f64 / 1024.0, lat as f64 / 1e3));
    }
    out
}

/// Min / mean / max / population standard deviation of erase counts.
pub fn erase_summary(counts: &[u32]) -> EraseSummary {
    if counts.is_empty() {
        return EraseSummary::default();
    }
    let n = counts.len() as f64;
    let mean = counts.iter().map(|&c| c as f64).sum::<f64>() / n;
    let var = counts
        .iter()
        .map(|&c| (c as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    EraseSummary {
        min: *counts.iter().min().expect("non-empty") as u64,
        mean,
        max: *counts.iter().max().expect("non-empty") as u64,
        stddev: var.sqrt(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Size;

    fn tiny() -> Config {
        let mut c = Config::default();
        c.device.capacity = Size(64 << 20);
        c.device.channels = 1;
        c.device.chips_per_channel = 1;
        c.device.dies_per_chip = 1;
        c.device.planes_per_die = 1;
        c.device.host_link_mb_s = 0.0;
        c.device.op_percent = 15.0;
        c.timing.mode = TimingMode::Count;
        c
    }

    fn req(op: OpKind, offset_bytes: u64, size_bytes: u64) -> IoRequest {
        IoRequest {
            arrival_ns: 0,
            device: 0,
            offset_bytes,
            size_bytes,
            op,
        }
    }

    #[test]
    fn partial_page_writes_read_modify_write_only_when_data_exists() {
        let mut dev = Device::new(&tiny()).unwrap();
        // 512 B into an empty page: nothing to merge with.
        dev.submit(&req(OpKind::Write, 512, 512), 0).unwrap();
        assert_eq!(dev.nand.counters().reads[Cause::Rmw as usize], 0);
        // Again: now the page holds data, so the other sectors are read first.
        dev.submit(&req(OpKind::Write, 1024, 512), 0).unwrap();
        assert_eq!(dev.nand.counters().reads[Cause::Rmw as usize], 1);
        // 8 KiB starting mid-page over pages 0..=2: first and last are partial, page 1
        // whole; only page 0 holds data.
        dev.submit(&req(OpKind::Write, 2048, 8192), 0).unwrap();
        assert_eq!(dev.nand.counters().reads[Cause::Rmw as usize], 2);
        assert_eq!(dev.host.write_pages, 1 + 1 + 3);
    }

    #[test]
    fn counting_mode_charges_the_formula_serially() {
        let c = tiny();
        let mut dev = Device::new(&c).unwrap();
        let f = *dev.formula();
        // Two 4 KiB writes issued at 0: the second waits for the first (serial device).
        let a = dev.submit(&req(OpKind::Write, 0, 4096), 0).unwrap();
        let b = dev.submit(&req(OpKind::Write, 4096, 4096), 0).unwrap();
        assert_eq!(a, f.program_ns);
        assert_eq!(b, 2 * f.program_ns);
        // A read of a written page costs Tr; of an unwritten one nothing.
        let r = dev.submit(&req(OpKind::Read, 0, 4096), b).unwrap();
        assert_eq!(r, b + f.read_ns);
        let u = dev.submit(&req(OpKind::Read, 1 << 20, 4096), r).unwrap();
        assert_eq!(u, r);
        assert_eq!(dev.host.unmapped_read_pages, 1);
    }

    #[test]
    fn trims_discard_whole_pages_only_and_requests_past_the_end_fail() {
        let mut dev = Device::new(&tiny()).unwrap();
        dev.submit(&req(OpKind::Write, 0, 3 * 4096), 0).unwrap();
        dev.submit(&req(OpKind::Trim, 100, 2 * 4096), 0).unwrap(); // covers page 1 only
        assert_eq!(dev.host.trim_pages, 1);
        assert!(dev.ftl.lookup(Lpn(0), &dev.nand).is_some());
        assert!(dev.ftl.lookup(Lpn(1), &dev.nand).is_none());
        assert!(dev.ftl.lookup(Lpn(2), &dev.nand).is_some());
        let end = dev.capacity_bytes();
        assert!(matches!(
            dev.submit(&req(OpKind::Read, end - 512, 1024), 0),
            Err(SimError::Config(_))
        ));
    }

    #[test]
    fn a_reads_pages_cross_the_host_link_as_each_flash_read_ends() {
        // One die: the two pages of an 8 KiB read come off flash one after the other, a
        // page read (tens of µs) apart. Over a 3.5 GB/s link a page takes ~1.2 µs, so the
        // first page's transfer is hidden behind the second's read and the request ends
        // one page transfer after its last flash read (not two).
        let read_at = |link_mb_s: f64| {
            let mut c = tiny();
            c.timing.mode = TimingMode::Full;
            c.device.host_link_mb_s = link_mb_s;
            let mut dev = Device::new(&c).unwrap();
            dev.submit(&req(OpKind::Write, 0, 8192), 0).unwrap();
            let t = 1_000_000_000;
            (dev.submit(&req(OpKind::Read, 0, 8192), t).unwrap() - t, dev)
        };
        let (flash_ns, _) = read_at(0.0);
        let (with_link_ns, dev) = read_at(3500.0);
        let page_link_ns = dev.link_ns(4096);
        assert!(page_link_ns > 0 && page_link_ns < dev.resolved.timing.read_ns);
        assert_eq!(with_link_ns, flash_ns + page_link_ns);
    }

    #[test]
    fn closed_loop_queue_depth_bounds_outstanding_requests() {
        // qd 1 on one die: each 4 KiB read waits for the previous one, so IOPS = 1/Tr.
        let mut c = tiny();
        c.timing.mode = TimingMode::Full;
        c.precondition = Precondition::Fill;
        c.workload.kind = crate::workload::synth::SynthKind::RandomRead;
        c.workload.requests = Some(1000);
        c.host.qd = 1;
        let r = run(&c, RunOptions::default()).unwrap().report;
        let d = c.resolve_device().unwrap();
        let per_read = d.timing.read_ns + d.timing.transfer_ns;
        assert!(r.latency_ns.max as f64 / per_read as f64 >= 0.99);
        assert!(
            (r.iops - 1e9 / per_read as f64).abs() / r.iops < 0.01,
            "{}",
            r.iops
        );
        assert_eq!(r.measured_phase, "after preconditioning");
        assert_eq!(r.host_write_pages, 0);
    }

    fn buffered(mut c: Config, kind: crate::buffer::BufferKind, pages: u64) -> Config {
        c.buffer.name = kind;
        c.buffer.size = Some(Size(pages * 4096));
        // 4096 B at 4096 MB/s: one page costs exactly 1 µs of DRAM copy.
        c.buffer.dram_mb_s = 4096.0;
        c
    }

    #[test]
    fn buffered_writes_finish_in_dram_and_misses_wait_for_their_victims() {
        use crate::buffer::BufferKind;
        // Counting mode (one serial flash server), no host link, a 2-page LRU buffer.
        let c = buffered(tiny(), BufferKind::Lru, 2);
        let mut dev = Device::new(&c).unwrap();
        let f = *dev.formula();
        let w = |l: u64| req(OpKind::Write, l * 4096, 4096);
        // Page 0 into a free slot: 1 µs of DRAM copy. Page 1, issued at 0 too, waits for
        // the front end (free at 1 µs).
        assert_eq!(dev.submit(&w(0), 0).unwrap(), 1_000);
        assert_eq!(dev.submit(&w(1), 0).unwrap(), 2_000);
        // A hit on page 0: DRAM only, nothing reaches flash.
        assert_eq!(dev.submit(&w(0), 0).unwrap(), 3_000);
        assert_eq!(dev.nand.counters().total_programs(), 0);
        // Page 2 misses on a full buffer: the LRU page, 1, is programmed first (serial
        // flash: Tw from 3 µs) and the new data is copied into its slot afterwards.
        assert_eq!(dev.submit(&w(2), 0).unwrap(), 3_000 + f.program_ns + 1_000);
        assert_eq!(dev.nand.counters().total_programs(), 1);
        // A read hit costs the DRAM copy; a read of page 1 goes to flash (Tr).
        let t = dev.front_free_ns();
        assert_eq!(
            dev.submit(&req(OpKind::Read, 0, 4096), t).unwrap(),
            t + 1_000
        );
        let t = dev.front_free_ns();
        assert_eq!(
            dev.submit(&req(OpKind::Read, 4096, 4096), t).unwrap(),
            t.max(3_000 + f.program_ns) + f.read_ns
        );
        let st = dev.buffer_stats().unwrap();
        assert_eq!(
            (st.write_hit_pages, st.read_hit_pages, st.flushed_pages),
            (1, 1, 1)
        );
        // 4 host page writes, 1 flash program so far: device WA 0.25.
        assert_eq!(dev.host.write_pages, 4);
    }

    #[test]
    fn a_victim_frees_its_slot_when_its_data_has_crossed_the_bus() {
        use crate::buffer::BufferKind;
        // Full timing, one die: the miss waits for the victim's transfer to the die, not
        // for the program itself.
        let mut c = buffered(tiny(), BufferKind::Lru, 1);
        c.timing.mode = TimingMode::Full;
        let mut dev = Device::new(&c).unwrap();
        let d = c.resolve_device().unwrap().timing;
        let w = |l: u64| req(OpKind::Write, l * 4096, 4096);
        assert_eq!(dev.submit(&w(0), 0).unwrap(), 1_000);
        let t = dev.front_free_ns();
        assert_eq!(dev.submit(&w(1), t).unwrap(), t + d.transfer_ns + 1_000);
        // The next miss must wait for the die: its victim's transfer starts when the
        // first program ends.
        let t2 = dev.front_free_ns();
        assert_eq!(
            dev.submit(&w(2), t2).unwrap(),
            t + d.transfer_ns + d.program_ns + d.transfer_ns + 1_000
        );
    }

    #[test]
    fn with_a_buffer_commands_wait_in_the_queue_closed_loop_keeps_it_full() {
        use crate::buffer::BufferKind;
        // Sequential 4 KiB writes that all fit the buffer: every command costs 1 µs of
        // front-end time. Closed loop at queue depth 4: in steady state each request
        // waits for the 3 ahead of it, so its latency is 4 µs.
        let mut c = buffered(tiny(), BufferKind::Lru, 4096);
        c.workload.kind = crate::workload::synth::SynthKind::SeqWrite;
        c.workload.requests = Some(2_000);
        c.buffer.flush_at_end = false;
        c.host.qd = 4;
        let r = run(&c, RunOptions::default()).unwrap().report;
        assert!(
            (r.latency_ns.p50 as f64 - 4_000.0).abs() < 50.0,
            "{:?}",
            r.latency_ns
        );
        assert_eq!(r.buffer.buffer_resident_pages, 2_000);
        assert_eq!(r.nand_program_pages, 0);
        assert_eq!(r.write_amplification, 0.0);
        // Open loop with arrivals far apart: nobody waits, latency is the service time.
        c.workload.mean_gap_ns = Some(100_000);
        let r = run(&c, RunOptions::default()).unwrap().report;
        assert!(
            (r.latency_ns.p50 as f64 - 1_000.0).abs() < 20.0,
            "{:?}",
            r.latency_ns
        );
    }

    #[test]
    fn device_write_amplification_drops_below_one_and_ftl_wa_is_kept_apart() {
        use crate::buffer::BufferKind;
        // Overwrites of a 256-page hot set through a 512-page buffer: almost every write
        // hits; the end-of-run flush writes each hot page once.
        let mut c = buffered(tiny(), BufferKind::Qlru, 512);
        c.workload.kind = crate::workload::synth::SynthKind::RandomWrite;
        c.workload.span = Some(Size(256 * 4096));
        c.workload.requests = Some(20_000);
        let r = run(&c, RunOptions::default()).unwrap().report;
        assert_eq!(r.buffer.buffer_flushed_pages, 256);
        assert_eq!(r.buffer.buffer_end_flush_pages, 256);
        assert_eq!(r.buffer.ftl_write_pages, 256);
        assert!(r.write_amplification < 0.02, "{}", r.write_amplification);
        assert_eq!(r.buffer.write_amplification_ftl, 1.0);
        assert_eq!(r.buffer.buffer_write_hit_pages, 20_000 - 256);
        assert_eq!(r.buffer.buffer_programs_saved, 20_000 - 256);
        // Without the buffer the two WAs coincide.
        c.buffer.name = BufferKind::None;
        let r = run(&c, RunOptions::default()).unwrap().report;
        assert_eq!(r.buffer.buffer_policy, "none");
        assert_eq!(r.write_amplification, r.buffer.write_amplification_ftl);
        assert!(r.write_amplification >= 1.0);
    }
}
