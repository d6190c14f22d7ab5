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

use crate::config::{Config, Precondition, ResolvedDevice, TimingMode};
use crate::ftl::layout::Placement;
use crate::ftl::{Ftl, FtlError, build_ftl, unit_pages};
use crate::nand::{Cause, Lpn, Nand, NandCounters, OpKind as FlashOpKind};
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
    /// Bad trace (exit code 2).
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// The FTL ran out of space.
    #[error(transparent)]
    Ftl(#[from] FtlError),
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
    page_bytes: u64,
    /// Counting mode: time at which the serial device is next free.
    serial_free_ns: u64,
    link: Calendar,
    /// Pages per management block when by-address placement rewrites whole blocks (their
    /// rewrites are serialised in time), else 1.
    serial_units: u32,
    op_scratch: Vec<crate::nand::FlashOp>,
    /// Host-side page counters.
    pub host: HostCounters,
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
        let resolved = cfg.resolve_device().map_err(SimError::Config)?;
        let geo = resolved.geometry;
        let ftl = build_ftl(&cfg.ftl, &geo, resolved.logical_pages, cfg.seed)
            .map_err(SimError::Config)?;
        let nand = Nand::new(
            geo,
            resolved.endurance_cycles,
            resolved.track_write_seq,
            ftl.programs_in_order(),
        );
        let serial_units = if cfg.ftl.placement == Placement::ByAddress
            && cfg.ftl.name == crate::ftl::FtlKind::Page
        {
            unit_pages(&cfg.ftl, &geo, resolved.logical_pages).map_err(SimError::Config)?
        } else {
            1
        };
        let timing = match cfg.timing.mode {
            TimingMode::Full => Some(Timing::new(&geo, resolved.timing)),
            TimingMode::Count => None,
        };
        let mut dev = Device {
            page_bytes: geo.page_size_bytes as u64,
            resolved,
            nand,
            ftl,
            timing,
            serial_free_ns: 0,
            link: Calendar::default(),
            serial_units,
            op_scratch: Vec::new(),
            host: HostCounters::default(),
        };
        dev.nand.set_logging(dev.timing.is_some());
        Ok(dev)
    }

    /// Logical capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.resolved.logical_pages * self.page_bytes
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

    /// Performs `req`, issued at `issue_ns`; returns its completion time.
    pub fn submit(&mut self, req: &IoRequest, issue_ns: u64) -> Result<u64, SimError> {
        let ps = self.page_bytes;
        let end_bytes = req.offset_bytes.saturating_add(req.size_bytes);
        let capacity = self.capacity_bytes();
        if end_bytes > capacity {
            return Err(SimError::Config(format!(
                "request at byte {} of {} bytes ends past the device's {capacity} bytes",
                req.offset_bytes, req.size_bytes
            )));
        }
        let first = req.offset_bytes / ps;
        let last = end_bytes.div_ceil(ps);
        let before = if self.timing.is_none() {
            Some(*self.nand.counters())
        } else {
            None
        };
        let mut ready_ns = issue_ns;
        match req.op {
            OpKind::Read => {
                for lpn in first..last {
                    if self.ftl.read(Lpn(lpn as u32), &mut self.nand)?.is_none() {
                        self.host.unmapped_read_pages += 1;
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
                let head = (!req.offset_bytes.is_multiple_of(ps)).then_some(first);
                let tail =
                    (!end_bytes.is_multiple_of(ps) && head != Some(last - 1)).then_some(last - 1);
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
                let whole_first = req.offset_bytes.div_ceil(ps);
                let whole_last = end_bytes / ps;
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
                done_ns = done_ns.max(end);
            }
            self.op_scratch = ops;
        } else if let Some(before) = before {
            let cost = self
                .resolved
                .formula
                .time(&self.nand.counters().since(&before));
            let start = ready_ns.max(self.serial_free_ns);
            self.serial_free_ns = start + cost.total_ns();
            done_ns = self.serial_free_ns;
        }
        if req.op == OpKind::Read {
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

/// Throughput over simulated time with a bounded number of buckets (the width doubles
/// whenever they would exceed `MAX_BUCKETS`).
struct ThroughputSeries {
    width_ns: u64,
    start_ns: u64,
    bytes: Vec<u64>,
}

const MAX_BUCKETS: usize = 512;

impl ThroughputSeries {
    fn new(start_ns: u64) -> Self {
        ThroughputSeries {
            width_ns: 1_000_000,
            start_ns,
            bytes: Vec::new(),
        }
    }
    fn add(&mut self, at_ns: u64, bytes: u64) {
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
    all: Histogram<u64>,
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
            all: new_latency_histogram(),
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
        self.all.saturating_record(v);
        match op {
            OpKind::Read => {
                self.reads.saturating_record(v);
                self.read_requests += 1;
            }
            OpKind::Write => {
                self.writes.saturating_record(v);
                self.write_requests += 1;
            }
            _ => {}
        }
        self.requests += 1;
        self.end_ns = self.end_ns.max(done_ns);
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
            latency_ns: summarize(&self.all),
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
    let wall = std::time::Instant::now();
    let mut dev = Device::new(cfg)?;
    let (phases, trace_warnings) = build_workload(cfg, dev.capacity_bytes())?;
    let mut notes = precondition(&mut dev, cfg)?;
    dev.reset_time(0);
    let measured_wall = std::time::Instant::now();
    let nand_base = *dev.nand.counters();
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
    if cfg.ftl.name != crate::ftl::FtlKind::Page
        && (cfg.ftl.mgmt_block.bytes() != 0
            || cfg.ftl.placement != Placement::WriteOrder
            || cfg.ftl.channel_placement != crate::ftl::layout::ChannelPlacement::Striped)
    {
        warnings.push(format!(
            "ftl.mgmt_block, ftl.placement and ftl.channel_placement apply to the page FTL only; the {} FTL uses the physical block as its unit",
            dev.ftl.name()
        ));
    }
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
        let mut requests = phase.requests.peekable();
        while let Some(req) = requests.next() {
            let req = req?;
            if let Some(Ok(next)) = requests.peek() {
                dev.ftl
                    .prefetch(Lpn((next.offset_bytes / dev.page_bytes) as u32));
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
        all.add(&acc.all).ok();
        reads.add(&acc.reads).ok();
        writes.add(&acc.writes).ok();
        cdfs.push((acc.name.clone(), cdf_points(&acc.all)));
        phase_reports.push(acc.finish(&dev));
    }
    if let Some(p) = progress {
        p.finish();
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
    counters.insert(
        "nand.worn_out_blocks".into(),
        dev.nand.worn_out_blocks() as u64,
    );
    counters.insert("host.requests".into(), requests_total);
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
}
