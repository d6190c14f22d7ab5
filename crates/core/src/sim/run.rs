//! A run: build the device and the workload, precondition, drive every phase through the
//! host queue, and hand the measurements to [`super::report`].

use super::SimError;
use super::cancel::{Cancel, Watched, check as check_cancel};
use super::device::Device;
use super::report::{
    Baseline, Measured, NamespaceAcc, PhaseAcc, WallClock, assemble, namespace_sections,
};
use super::workload::build_workload;
use crate::config::{Config, Design, Precondition};
use crate::ftl::{FtlError, PREFETCH_AHEAD};
use crate::host::{Arrivals, Dispatched, HostQueue, NamespaceQueues, Target};
use crate::host_log::{HostLog, HostLogStats, LogTarget};
use crate::nand::Lpn;
use crate::report::progress::Progress;
use crate::report::{Figures, Report};
use crate::workload::synth::aging::{AgingPattern, AgingWrites};
use crate::workload::synth::{SynthKind, probe};
use crate::workload::trace::Warnings;
use crate::workload::{IoRequest, OpKind, Phase};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

/// A finished run.
pub struct RunOutput {
    /// The report (JSON keys are an interface).
    pub report: Report,
    /// Data behind the figures.
    pub figures: Figures,
}

/// Options that affect how a run is shown or stopped, not what it computes.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Show a progress bar on long runs (only on a terminal).
    pub progress: bool,
    /// Check the device against a reference model at the end (tests and swarms): FTL,
    /// NAND and buffer invariants, and that exactly the pages the host wrote and did not
    /// trim hold data. Costs one byte per logical page.
    pub check: bool,
    /// Stop between requests once this flag is set ([`SimError::Cancelled`]).
    pub cancel: Option<Cancel>,
}

/// The host's view of which logical pages hold data, kept from the commands as the
/// device performs them (an independent model of what the FTL must map).
struct PresenceModel {
    page_bytes: u64,
    present: Vec<bool>,
}

impl PresenceModel {
    fn apply(&mut self, req: &IoRequest) {
        let ps = self.page_bytes;
        let end = req.offset_bytes + req.size_bytes;
        match req.op {
            OpKind::Write => {
                for l in req.offset_bytes / ps..end.div_ceil(ps) {
                    self.present[l as usize] = true;
                }
            }
            // Only whole pages are discarded.
            OpKind::Trim => {
                for l in
                    req.offset_bytes.div_ceil(ps)..(end / ps).max(req.offset_bytes.div_ceil(ps))
                {
                    self.present[l as usize] = false;
                }
            }
            // A zoned drive's writes may be refused and its appends land where the
            // drive says: the model does not follow them (the check skips zoned drives;
            // tests/zoned.rs checks them against a model of the zones).
            OpKind::Read
            | OpKind::Flush
            | OpKind::ZoneAppend
            | OpKind::ZoneReset
            | OpKind::ZoneFinish
            | OpKind::ZoneOpen
            | OpKind::ZoneClose
            | OpKind::ZoneReport(_) => {}
        }
    }

    /// Panics at the first page where the device disagrees with the model.
    fn check(&self, dev: &Device) {
        dev.ftl.check_invariants(&dev.nand);
        dev.nand.check_invariants();
        if let Some(b) = dev.buffer_policy() {
            b.check_invariants();
        }
        for (l, &want) in self.present.iter().enumerate() {
            let lpn = crate::nand::Lpn(l as u32);
            let buffered = dev.buffer_policy().is_some_and(|b| b.contains(lpn));
            let mapped = dev.ftl.lookup(lpn, &dev.nand).is_some();
            assert_eq!(
                buffered || mapped,
                want,
                "page {l}: the host {} it, but the device {} ({} FTL)",
                if want {
                    "wrote and did not trim"
                } else {
                    "never wrote or trimmed"
                },
                if buffered || mapped {
                    "holds data"
                } else {
                    "holds none"
                },
                dev.ftl.name()
            );
        }
    }
}

impl Target for Device {
    #[inline]
    fn queue(&mut self, req: &IoRequest, arrival_ns: u64, issue_ns: u64) -> Result<(), SimError> {
        Device::queue(self, req, arrival_ns, issue_ns)
    }

    #[inline(always)]
    fn dispatch(&mut self) -> Result<Option<Dispatched>, SimError> {
        Device::dispatch(self)
    }

    #[inline]
    fn queued(&self) -> usize {
        self.queued_commands()
    }

    #[inline]
    fn oldest_issue_ns(&self) -> Option<u64> {
        self.oldest_queued().map(|c| c.issue_ns)
    }

    #[inline]
    fn free_ns(&self) -> u64 {
        self.front_free_ns()
    }

    #[inline(always)]
    fn prefetch(&self, next: Option<&IoRequest>, far: Option<&IoRequest>) {
        if let Some(f) = far {
            self.prefetch_early(f);
        }
        if let Some(n) = next {
            self.prefetch_next(n);
        }
    }
}

/// What preconditioning writes: the device's logical pages, or the host log's blocks
/// when a host log sits in front of the device (then every write goes through it).
///
/// Every write takes the host path's flash operations, untimed: a range of pages is one
/// host write command ([`Device::write_untimed_bytes`]: read-modify-write of management
/// blocks included), a range of log blocks is appended block by block to the log, which
/// writes whole segments to the device. So the aged state is one the measured path could
/// have reached (docs/ftls.md, "Aging").
struct Units<'a> {
    dev: &'a mut Device,
    log: Option<&'a mut HostLog>,
    /// Units one fill command writes: a management block of a by-address design, so that
    /// the fill rewrites nothing (a whole aligned block replaces the old one); 1 when
    /// the size changes no flash operation.
    fill_units: u64,
    /// Pages a one-unit write programs at least: the management block when a by-address
    /// design rewrites it whole, else 1.
    min_programs: u64,
    /// Every write as (first unit, units), kept when a test replays them.
    record: Option<Vec<(u64, u64)>>,
    /// Checked before each write: aging a large drive takes as long as a run.
    cancel: Option<&'a Cancel>,
}

impl<'a> Units<'a> {
    fn new(dev: &'a mut Device, log: Option<&'a mut HostLog>, design: &Design) -> Self {
        let ftl = &design.config.ftl;
        let rewrites = log.is_none()
            && ftl.name == crate::ftl::FtlKind::Page
            && ftl.placement == crate::ftl::layout::Placement::ByAddress;
        let unit = if rewrites {
            design.mgmt_block_pages.max(1) as u64
        } else {
            1
        };
        Units {
            dev,
            log,
            fill_units: unit,
            min_programs: unit,
            record: None,
            cancel: None,
        }
    }

    fn count(&self) -> u64 {
        self.log
            .as_ref()
            .map_or(self.dev.resolved.logical_pages, |l| l.blocks())
    }

    fn bytes(&self) -> u64 {
        self.log
            .as_ref()
            .map_or(self.dev.page.get(), |l| l.shape().block_bytes)
    }

    /// One host write of units `first..first + n`.
    fn write(&mut self, first: u64, n: u64) -> Result<(), SimError> {
        check_cancel(self.cancel)?;
        if let Some(r) = &mut self.record {
            r.push((first, n));
        }
        match &mut self.log {
            Some(l) => {
                for unit in first..first + n {
                    l.write_untimed(self.dev, unit)?;
                }
                Ok(())
            }
            None => {
                let ps = self.dev.page.get();
                Ok(self.dev.write_untimed_bytes(first * ps, n * ps)?)
            }
        }
    }

    /// Hints that unit `first` starts a write [`PREFETCH_AHEAD`] writes from now: its
    /// map entry can be fetched meanwhile (pages only; a host log's blocks are not
    /// hinted).
    #[inline]
    fn prefetch_early(&self, first: u64) {
        if self.log.is_none() {
            self.dev.ftl.prefetch_early(Lpn(first as u32));
        }
    }

    /// Hints that unit `first` starts the next write: the FTL may read its (fetched) map
    /// entry and ask for the old page's flash state.
    #[inline]
    fn prefetch_next(&self, first: u64) {
        if self.log.is_none() {
            self.dev
                .ftl
                .prefetch_next(Lpn(first as u32), &self.dev.nand);
        }
    }

    fn name(&self) -> &'static str {
        if self.log.is_some() {
            "host-log blocks"
        } else {
            "logical pages"
        }
    }
}

/// Preconditions the device before the measured run (one path for every kind, each
/// write a host write with its flash operations, see [`Units`]):
/// - `fill`: writes the first `fill_percent` of the logical space (default all) once,
///   sequentially, one management block per command on a by-address design;
/// - `steady`: fills, then overwrites random pages in rounds until a round's write
///   amplification is within 1% of the previous round's (at most 20 rounds). A round
///   moves about half the logical space through flash: half the logical space in page
///   writes, divided by the pages each write programs at least (a by-address design
///   rewrites its management block for every page);
/// - `footprint`: fills `fill_percent` (default none), then streams through the workload
///   once and writes every page it reads before writing it (in the order of those first
///   reads, the fresh pages of one read request as one write per run of adjacent
///   pages), so the replay reads data a real drive would hold;
/// - `random`: from empty, `fill_percent` (default 100) of the logical space's size in
///   random single-page writes over the whole space (pages never hit stay unwritten, so
///   a page-mapped FTL keeps them as free space and a block-mapped one does not).
///
/// With a host log the units are its blocks and every write goes through it.
/// Returns notes for the report.
///
/// `stops` (ascending, each below `aging.volume_drive_writes`; only with `age`) are
/// smaller aging volumes passed on the way: the aging stream does not depend on its
/// volume, only where it ends, so after the writes a run aged to a stop's volume would
/// have made, the state is that run's. `at_stop` then gets it with that run's notes.
fn precondition(
    u: &mut Units,
    cfg: &Config,
    stops: &[f64],
    at_stop: &mut AtStop,
) -> Result<Vec<String>, SimError> {
    assert!(
        stops.is_empty() || cfg.precondition == Precondition::Age,
        "aging stops only with precondition = \"age\""
    );
    let mut notes = Vec::new();
    if cfg.precondition == Precondition::None {
        return Ok(notes);
    }
    let logical = u.count();
    let what = u.name();
    let unit = if what == "logical pages" {
        "page"
    } else {
        "block"
    };
    let fill = ((logical as f64 * cfg.fill_share_percent() / 100.0).round() as u64).min(logical);
    let mut at = 0;
    while at < fill {
        let n = u.fill_units.min(fill - at);
        u.write(at, n)?;
        at += n;
    }
    if fill == logical {
        notes.push(format!(
            "preconditioned: wrote all {logical} {what} sequentially"
        ));
    } else if fill > 0 {
        notes.push(format!(
            "preconditioned: wrote the first {fill} of {logical} {what} ({:.1}%) sequentially",
            cfg.fill_share_percent()
        ));
    }
    if cfg.precondition == Precondition::Footprint {
        let (written, reads) = write_footprint(u, cfg, fill)?;
        notes.push(format!(
            "preconditioned: footprint pass wrote {written} {unit}s that the workload reads \
             before writing them ({reads} {unit} reads in the workload)"
        ));
    }
    if cfg.precondition == Precondition::Random {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed ^ 0x5eed_f111);
        // Units per aging write: a record of `precondition_record` (validated a multiple
        // of the page; refused with a host log), aligned to its size.
        let per = cfg
            .precondition_record
            .map_or(1, |r| r.bytes() / u.bytes())
            .clamp(1, logical);
        let slots = logical / per;
        let volume = logical as f64 * cfg.fill_percent.unwrap_or(100.0) / 100.0;
        let writes = (volume / per as f64).round() as u64;
        for _ in 0..writes {
            u.write(rng.gen_range(0..slots) * per, per)?;
        }
        notes.push(if per == 1 {
            format!("preconditioned: {writes} random {unit} writes over all {logical} {what}, from empty")
        } else {
            format!(
                "preconditioned: {writes} random writes of {per} {what} (aligned) over all \
                 {logical} {what}, from empty"
            )
        });
    }
    if cfg.precondition == Precondition::Age {
        let note = |writes: u64, bytes: u64, volume: f64| {
            format!(
                "preconditioned: aged with {writes} {} writes ({bytes} bytes, {volume} drive \
                 writes) inside the first {fill} {what}",
                match cfg.aging.pattern {
                    AgingPattern::Uniform => "uniform",
                    AgingPattern::Desktop => "desktop-mix",
                },
            )
        };
        let mut stop = |u: &Units, writes: u64, bytes: u64, volume: f64| {
            let mut n = notes.clone();
            n.push(note(writes, bytes, volume));
            n.push(MEASURED_ONLY.into());
            at_stop(u, n)
        };
        let (writes, bytes) = write_aging(u, cfg, fill, stops, &mut stop)?;
        notes.push(note(writes, bytes, cfg.aging.volume_drive_writes));
    }
    if cfg.precondition == Precondition::Steady {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed ^ 0x5eed_f111);
        let round = (logical / 2 / u.min_programs).max(1);
        let mut prev = f64::NAN;
        for r in 1..=20 {
            let before = u.dev.nand.counters().total_programs();
            for _ in 0..round {
                u.write(rng.gen_range(0..logical), 1)?;
            }
            let wa = (u.dev.nand.counters().total_programs() - before) as f64 / round as f64;
            let settled = (wa - prev).abs() <= 0.01 * prev;
            prev = wa;
            if settled || r == 20 {
                notes.push(format!(
                    "preconditioned: {r} rounds of {round} random {unit} overwrites; last round's write amplification {wa:.3}{}",
                    if settled { " (settled)" } else { " (not settled after 20 rounds)" }
                ));
                break;
            }
        }
    }
    notes.push(MEASURED_ONLY.into());
    Ok(notes)
}

/// The last note of every preconditioned run.
const MEASURED_ONLY: &str = "counters cover the measured phase only (after preconditioning)";

/// Called at each stop of [`write_aging`] with (writes, bytes, drive writes) so far.
type AgingStop<'f> = dyn FnMut(&Units, u64, u64, f64) -> Result<(), SimError> + 'f;

/// Called at each aging stop of [`precondition`] with the state and the notes a run aged
/// to that volume would report.
type AtStop<'f> = dyn FnMut(&Units, Vec<String>) -> Result<(), SimError> + 'f;

/// The aging pass of `precondition = "age"`: `aging.volume_drive_writes` × the logical
/// capacity in writes of `aging.pattern` ([`AgingWrites`]) over the `live` units the fill
/// wrote, each one host write command of the units it touches. Returns (writes, bytes).
/// At each of `stops` (smaller volumes, ascending) calls `at_stop` with (writes, bytes,
/// volume) after exactly the writes a run of that volume makes: the stream's first
/// writes until their bytes reach the stop's volume.
fn write_aging(
    u: &mut Units,
    cfg: &Config,
    live: u64,
    stops: &[f64],
    at_stop: &mut AgingStop,
) -> Result<(u64, u64), SimError> {
    let unit = u.bytes();
    let span = live * unit;
    let min = AgingWrites::min_span(cfg.aging.pattern);
    if span < min {
        return Err(SimError::Config(format!(
            "precondition = \"age\": the live data (fill_percent = {}% of the space, {span} \
             bytes) must hold at least {min} bytes for aging.pattern = {:?}",
            cfg.fill_share_percent(),
            cfg.aging.pattern
        )));
    }
    let count = u.count();
    let volume_bytes =
        |drive_writes: f64| (count as f64 * unit as f64 * drive_writes).round() as u64;
    let volume = volume_bytes(cfg.aging.volume_drive_writes);
    let mut stops = stops.iter().map(|&v| (volume_bytes(v), v)).peekable();
    let (mut writes, mut bytes) = (0u64, 0u64);
    // The stream depends on its seed alone, so the writes a few places ahead are known:
    // their map entries and old pages are asked for early (see `Units::prefetch`).
    let mut stream = AgingWrites::new(
        cfg.aging.pattern,
        span,
        volume,
        cfg.seed ^ 0xa9e1_0000_0000_5eed,
    );
    let mut ahead: std::collections::VecDeque<(u64, u64)> =
        stream.by_ref().take(PREFETCH_AHEAD).collect();
    while let Some((offset, size)) = ahead.pop_front() {
        if let Some(w) = stream.next() {
            u.prefetch_early(w.0 / unit);
            ahead.push_back(w);
        }
        if let Some(&(next, _)) = ahead.front() {
            u.prefetch_next(next / unit);
        }
        while let Some(&(stop_bytes, v)) = stops.peek()
            && bytes >= stop_bytes
        {
            at_stop(u, writes, bytes, v)?;
            stops.next();
        }
        let first = offset / unit;
        let last = (offset + size).div_ceil(unit).min(live);
        u.write(first, last - first)?;
        writes += 1;
        bytes += size;
    }
    for (_, v) in stops {
        at_stop(u, writes, bytes, v)?;
    }
    Ok((writes, bytes))
}

/// The footprint pass: reads the workload once (a trace is reopened, a generator rebuilt
/// from the same seed, so the stream is the one the run replays) and writes each unit a
/// read touches unless the workload wrote or trimmed it earlier, or the fill (units
/// below `filled`) already holds it. Returns (units written, unit reads seen).
fn write_footprint(u: &mut Units, cfg: &Config, filled: u64) -> Result<(u64, u64), SimError> {
    // One bit per unit: already holds data, or will by the time it is read.
    let logical = u.count();
    let mut seen = vec![0u64; logical.div_ceil(64) as usize];
    let mut mark = |lpn: u64| -> bool {
        let (w, b) = ((lpn / 64) as usize, lpn % 64);
        let was = seen[w] >> b & 1 == 1;
        seen[w] |= 1 << b;
        !was
    };
    let page = u.bytes();
    let (phases, _) = build_workload(cfg, logical * page)?;
    // A namespace's requests address its slice of the drive.
    let bases: Vec<u64> = crate::config::namespace::slices(cfg, logical * page)?
        .iter()
        .map(|s| s.base_bytes)
        .collect();
    let (mut written, mut reads) = (0u64, 0u64);
    for phase in phases {
        for req in phase.requests {
            let mut req = req?;
            if req.op == OpKind::Flush || req.size_bytes == 0 {
                continue;
            }
            if let Some(b) = bases.get(req.namespace as usize) {
                req.offset_bytes += b;
            }
            let first = req.offset_bytes / page;
            let last = (req.offset_bytes + req.size_bytes)
                .div_ceil(page)
                .min(logical);
            // The fresh units of one read, as one write per run of adjacent units.
            let mut run: Option<(u64, u64)> = None;
            for lpn in first..last {
                let fresh = lpn >= filled && mark(lpn);
                if req.op != OpKind::Read {
                    continue;
                }
                reads += 1;
                if !fresh {
                    continue;
                }
                written += 1;
                match &mut run {
                    Some((s, n)) if *s + *n == lpn => *n += 1,
                    _ => {
                        if let Some((s, n)) = run.replace((lpn, 1)) {
                            u.write(s, n)?;
                        }
                    }
                }
            }
            if let Some((s, n)) = run {
                u.write(s, n)?;
            }
        }
    }
    Ok((written, reads))
}

/// Which logical pages hold data after preconditioning (the reference model's start):
/// preconditioning writes straight through the FTL, so its map says.
fn precondition_presence(dev: &Device, cfg: &Config) -> Vec<bool> {
    let logical = dev.resolved.logical_pages;
    match cfg.precondition {
        Precondition::None => vec![false; logical as usize],
        _ => (0..logical)
            .map(|l| {
                dev.ftl
                    .lookup(crate::nand::Lpn(l as u32), &dev.nand)
                    .is_some()
            })
            .collect(),
    }
}

/// Runs the block workload `cfg` describes and reports. Not for file-system designs:
/// the `run` module's `run` takes every design (it sits above the file systems).
pub fn run(cfg: &Config, opts: RunOptions) -> Result<RunOutput, SimError> {
    run_design(&cfg.validate()?, opts)
}

/// Runs a validated block design and reports. Not for file-system designs:
/// the `run` module's `run_design` takes every design (it sits above the file systems).
pub fn run_design(design: &Design, opts: RunOptions) -> Result<RunOutput, SimError> {
    run_with(design, opts, None)
}

/// Runs a validated design on `phases` instead of its configured workload: an
/// experiment's own sequence (e.g. random writes, then reads of the span they wrote).
/// Preconditioning, the host queue, a host log and the report are the run's own; the
/// phases must fit the capacity the host sees. Not for file-system designs.
pub fn run_design_phases(
    design: &Design,
    opts: RunOptions,
    phases: Vec<crate::workload::Phase>,
) -> Result<RunOutput, SimError> {
    if design.config.fs.active() {
        return Err(SimError::Config(
            "run_design_phases: block phases cannot run through a file system (fs.name)".into(),
        ));
    }
    run_with(design, opts, Some(phases))
}

fn run_with(
    design: &Design,
    opts: RunOptions,
    custom: Option<Vec<crate::workload::Phase>>,
) -> Result<RunOutput, SimError> {
    if design.config.fs.active() {
        // File workloads run through a file system (fs/run.rs), which sits above this
        // module: the entry point that dispatches to it is `run::run_design`.
        return Err(SimError::Config(format!(
            "fs.name = {}: a file-system design runs through ssdlab::run::run_design, not \
             sim::run_design (the block-device pipeline)",
            design.config.fs.name.name()
        )));
    }
    let start = std::time::Instant::now();
    let (mut dev, mut log) = build_drive(design)?;
    // The workload first: a bad trace is reported before a long preconditioning.
    let workload = match custom {
        Some(p) => (p, None),
        None => build_workload(&design.config, capacity_of(&dev, log.as_ref()))?,
    };
    let mut units = Units::new(&mut dev, log.as_mut(), design);
    units.cancel = opts.cancel.as_ref();
    let notes = precondition(&mut units, &design.config, &[], &mut |_, _| Ok(()))?;
    let prepared = Prepared::finish(dev, log, notes, start)?;
    measure(design, prepared, workload, &opts)
}

/// The device of `design` and the host log in front of it, when configured.
fn build_drive(design: &Design) -> Result<(Device, Option<HostLog>), SimError> {
    let cfg = &design.config;
    let dev = Device::build(design)?;
    let log = design
        .host_log
        .map(|shape| HostLog::new(&cfg.host_log, shape, cfg.host.qd as usize, dev.holds_data()));
    Ok((dev, log))
}

/// The capacity the workload addresses: the host log's when there is one.
fn capacity_of(dev: &Device, log: Option<&HostLog>) -> u64 {
    log.map_or(dev.capacity_bytes(), HostLog::capacity_bytes)
}

/// A preconditioned drive ready for its measured phase: the device (and host log) with
/// their clocks reset, and the preconditioning's notes. One is copied
/// ([`Prepared::try_clone`]) for every measurement that starts from the same state.
struct Prepared {
    dev: Device,
    log: Option<HostLog>,
    notes: Vec<String>,
    /// How long building and preconditioning took, for the report's `wall_clock_s`
    /// (a shared state's runs each report what a run of their own would have taken).
    prepare: std::time::Duration,
}

impl Prepared {
    /// Ends preconditioning on a drive that `precondition` left (`start`: when its build
    /// began).
    fn finish(
        mut dev: Device,
        mut log: Option<HostLog>,
        notes: Vec<String>,
        start: std::time::Instant,
    ) -> Result<Prepared, SimError> {
        dev.start_measured_phase()?;
        if let Some(l) = &mut log {
            l.reset_time(0);
        }
        Ok(Prepared {
            dev,
            log,
            notes,
            prepare: start.elapsed(),
        })
    }

    /// An exact copy ([`Device::try_clone`]).
    fn try_clone(&self) -> Option<Prepared> {
        Some(Prepared {
            dev: self.dev.try_clone()?,
            log: self.log.clone(),
            notes: self.notes.clone(),
            prepare: self.prepare,
        })
    }
}

/// What a preconditioned state depends on, for sharing it between runs
/// ([`run_series`]): designs with equal `series` precondition identically up to their
/// aging volume, and with equal `series` and `volume_drive_writes` identically.
#[derive(Clone, Debug, PartialEq)]
pub struct SeriesKey {
    /// The design without what only the measured phase reads (the `workload` and
    /// `trace` tables) and without the aging volume, as text.
    pub series: String,
    /// `aging.volume_drive_writes` (0 unless `precondition = "age"`).
    pub volume_drive_writes: f64,
}

/// The [`SeriesKey`] of `design`, or `None` when its preconditioned state cannot be
/// shared: no preconditioning (nothing to share), `footprint` (it writes what the
/// workload reads), or a file-system run (fs/run.rs prepares its own).
///
/// The device is built from the design (`Device::build`) and preconditioning reads the
/// keys `precondition`, `fill_percent`, `[aging]`, `precondition_record` and `seed`;
/// none of them reads `[workload]` or `[trace]`, which only the measured phase uses
/// (the workload generator has its own seed-derived stream). So the key is the whole
/// config without those two tables, plus the derived device, to be safe.
pub fn series_key(design: &Design) -> Option<SeriesKey> {
    let cfg = &design.config;
    if cfg.fs.active()
        || matches!(
            cfg.precondition,
            Precondition::None | Precondition::Footprint
        )
    {
        return None;
    }
    let mut c = cfg.clone();
    c.workload = Default::default();
    c.trace = Default::default();
    let volume_drive_writes = if c.precondition == Precondition::Age {
        std::mem::take(&mut c.aging.volume_drive_writes)
    } else {
        0.0
    };
    let config = serde_json::to_string(&c).ok()?;
    Some(SeriesKey {
        series: format!(
            "{config} {:?} {:?} {:?} {} {:?}",
            design.device,
            design.superblock,
            design.ftl_geometry,
            design.mgmt_block_pages,
            design.host_log
        ),
        volume_drive_writes,
    })
}

/// Runs `designs`, which share one [`SeriesKey::series`], from one preconditioning
/// pass: every design's report is exactly the one [`run_design`] gives it (except the
/// wall-clock fields). The drive is preconditioned once, to the largest aging volume;
/// at each smaller volume on the way, and at the end, the state is copied for each
/// design of that volume, which runs its measured phase from the copy (the last one
/// from the state itself). `each(i, result)` gets design `i`'s result as it finishes.
///
/// Returns an error when the shared preconditioning fails: the designs not yet passed
/// to `each` then need runs of their own (which report their own first error).
pub fn run_series(
    designs: &[&Design],
    opts: RunOptions,
    each: &mut dyn FnMut(usize, Result<RunOutput, SimError>),
) -> Result<(), SimError> {
    let Some(first) = designs.first() else {
        return Ok(());
    };
    let key = series_key(first);
    assert!(
        key.is_some()
            && designs
                .iter()
                .all(|d| series_key(d).map(|k| k.series) == key.as_ref().map(|k| k.series.clone())),
        "run_series: designs of one series only"
    );
    // Volumes ascending, each with its designs in the order given.
    let mut levels: Vec<(f64, Vec<usize>)> = Vec::new();
    let mut order: Vec<usize> = (0..designs.len()).collect();
    let volume = |i: usize| designs[i].config.aging.volume_drive_writes;
    order.sort_by(|&a, &b| volume(a).total_cmp(&volume(b)));
    for i in order {
        match levels.last_mut() {
            Some((v, is)) if *v == volume(i) => is.push(i),
            _ => levels.push((volume(i), vec![i])),
        }
    }
    let (top_volume, top) = levels.pop().expect("at least one design");
    let top_design = designs[top[0]];
    let start = std::time::Instant::now();
    let (mut dev, mut log) = build_drive(top_design)?;
    let stops: Vec<f64> = levels.iter().map(|l| l.0).collect();
    let mut next = levels.into_iter();
    let mut units = Units::new(&mut dev, log.as_mut(), top_design);
    units.cancel = opts.cancel.as_ref();
    let notes = precondition(&mut units, &top_design.config, &stops, &mut |u, notes| {
        let (v, is) = next.next().expect("one level per stop");
        let dev = u.dev.try_clone().ok_or_else(|| copy_refused(v))?;
        let log = u.log.as_deref().cloned();
        let prepared = Prepared::finish(dev, log, notes, start)?;
        measure_all(designs, &is, prepared, &opts, each)
    })?;
    debug_assert_eq!(top_design.config.aging.volume_drive_writes, top_volume);
    let prepared = Prepared::finish(dev, log, notes, start)?;
    measure_all(designs, &top, prepared, &opts, each)
}

fn copy_refused(volume: f64) -> SimError {
    SimError::Config(format!(
        "the preconditioned drive (aging volume {volume}) holds page data and cannot be copied"
    ))
}

/// Runs designs `is` from copies of `prepared` (the last from `prepared` itself).
fn measure_all(
    designs: &[&Design],
    is: &[usize],
    prepared: Prepared,
    opts: &RunOptions,
    each: &mut dyn FnMut(usize, Result<RunOutput, SimError>),
) -> Result<(), SimError> {
    let mut prepared = Some(prepared);
    for (k, &i) in is.iter().enumerate() {
        let p = if k + 1 == is.len() {
            prepared.take().expect("kept for the last design")
        } else {
            prepared
                .as_ref()
                .and_then(Prepared::try_clone)
                .ok_or_else(|| copy_refused(designs[i].config.aging.volume_drive_writes))?
        };
        let design = designs[i];
        let out = build_workload(&design.config, capacity_of(&p.dev, p.log.as_ref()))
            .and_then(|workload| measure(design, p, workload, opts));
        each(i, out);
    }
    Ok(())
}

/// The measured phase of `design` on the drive `prepared` holds.
fn measure(
    design: &Design,
    prepared: Prepared,
    (phases, trace_warnings): (Vec<Phase>, Option<Warnings>),
    opts: &RunOptions,
) -> Result<RunOutput, SimError> {
    let cfg = &design.config;
    let Prepared {
        mut dev,
        mut log,
        mut notes,
        prepare,
    } = prepared;
    let capacity = capacity_of(&dev, log.as_ref());
    let now = std::time::Instant::now();
    let log_base = log.as_ref().map(HostLog::stats);
    let wall = WallClock {
        start: now.checked_sub(prepare).unwrap_or(now),
        measured: now,
    };
    let base = Baseline::take(&dev);
    let mut warnings: Vec<String> = Vec::new();
    // A preset's knob that the chosen FTL ignores is information, not a problem with
    // the run: the preset describes its drive for every FTL.
    notes.extend(design.notes.iter().cloned());
    notes.extend(super::workload::lsm_note(cfg, capacity)?);
    let (probe_starts, qd) = probe_plan(cfg, capacity, &mut notes)?;
    // With a host log the device holds the log's layout, not the host's pages; the
    // layer checks its own maps instead.
    let mut model =
        (opts.check && log.is_none() && dev.ftl.zones().is_none()).then(|| PresenceModel {
            page_bytes: dev.page.get(),
            present: precondition_presence(&dev, cfg),
        });
    let mut m = Measured::new();
    let mut progress = opts.progress.then(|| Progress::new(None, "simulating"));
    // Namespaces (`[[namespace]]`): their slices, refused-request counts and results.
    let ns_slices = crate::config::namespace::slices(cfg, capacity)?;
    let ns_errors: Arc<[AtomicU64]> = ns_slices.iter().map(|_| AtomicU64::new(0)).collect();
    let mut ns_acc = vec![NamespaceAcc::default(); ns_slices.len()];
    for phase in phases {
        let probing = !probe_starts.is_empty() && phase.name == "probe";
        let start_ns = m.now_ns;
        let mut acc = PhaseAcc::new(phase.name.clone(), start_ns, &dev);
        if !cfg.trace.phases.is_empty() {
            acc = acc.with_counters(&dev);
        }
        let arrivals = if phase.open_loop {
            Arrivals::Open {
                speedup: cfg.host.speedup,
            }
        } else {
            Arrivals::Closed
        };
        let host = HostQueue::new(phase.requests, arrivals, start_ns, qd)
            .stop_at(cfg.host.stop_ns)
            .per_stream(phase.streams)
            .namespaces(namespace_queues(cfg, &ns_slices, &ns_errors)?);
        let ns_acc = &mut ns_acc;
        let (series, samples) = (&mut m.series, &mut m.probe_samples);
        let done = |d: &Dispatched| {
            let req = &d.cmd.req;
            let latency_ns = d.done_ns - d.cmd.arrival_ns;
            acc.record(req.op, latency_ns, d.done_ns);
            if let Some(a) = ns_acc.get_mut(req.namespace as usize) {
                a.record(req.op, req.size_bytes, latency_ns);
            }
            if probing {
                let p = probe_starts.partition_point(|&s| s <= req.offset_bytes) - 1;
                samples.push((p as u32, req.offset_bytes - probe_starts[p], latency_ns));
            }
            series.add(d.done_ns, req.size_bytes);
            if let Some(model) = &mut model {
                model.apply(req);
            }
            if let Some(p) = &mut progress {
                p.inc(1);
            }
        };
        let ran = match &mut log {
            Some(l) => host.run_until_stop(
                &mut Watched {
                    inner: &mut LogTarget {
                        log: l,
                        dev: &mut dev,
                    },
                    cancel: opts.cancel.as_ref(),
                },
                done,
            ),
            None => host.run_until_stop(
                &mut Watched {
                    inner: &mut dev,
                    cancel: opts.cancel.as_ref(),
                },
                done,
            ),
        };
        // A worn-out drive ends the run, not the program: how long the flash lasted is
        // what an endurance experiment measures, and the report covers the requests
        // completed until then.
        let (worn_out, stopped) = match ran {
            Ok((_, stopped)) => (None, stopped),
            Err(SimError::Ftl(e @ FtlError::EndOfLife { .. })) => (Some(e.to_string()), false),
            Err(e) => return Err(e),
        };
        m.end_phase(acc, &dev);
        if let Some(reason) = worn_out {
            m.end_of_life = Some((m.now_ns, reason));
            break;
        }
        if stopped {
            notes.push(format!(
                "the host stopped issuing requests at {} ns of simulated time (host.stop_ns) \
                 in phase {}; {} requests completed",
                cfg.host.stop_ns.unwrap_or_default(),
                phase.name,
                crate::report::numfmt::group_thousands(m.requests)
            ));
            break;
        }
    }
    if let Some(p) = progress {
        p.finish();
    }
    if let Some((_, reason)) = &m.end_of_life {
        warnings.push(end_of_life_warning(reason, m.requests)?);
    } else if dev.buffer.as_ref().is_some_and(|b| b.flush_at_end) {
        // Its programs count; its time does not, as no request waits for it.
        dev.flush_buffer(m.now_ns)?;
    }
    // After a wear-out the request in flight may be half applied: the presence model
    // cannot be compared.
    if let Some(model) = &model
        && m.end_of_life.is_none()
    {
        model.check(&dev);
    }
    if let Some(l) = &log {
        if opts.check {
            l.check_invariants();
            dev.ftl.check_invariants(&dev.nand);
            dev.nand.check_invariants();
        }
        notes.push(host_log_note(cfg, l, log_base.unwrap_or_default()));
    }
    if m.requests == 0 {
        return Err(no_requests(cfg));
    }
    if let Some(w) = trace_warnings {
        warnings.extend(w.snapshot());
    }
    let mut out = assemble(cfg, &dev, &base, m, notes, warnings, wall);
    namespace_sections(
        &mut out.report,
        &ns_slices,
        &ns_acc,
        ns_errors.iter().map(|e| e.load(SeqCst)),
        &base.namespace_flash(&dev),
    );
    Ok(out)
}

/// The namespaces' submission queues for one phase, or `None` without `[[namespace]]`
/// tables (the host keeps its one queue).
fn namespace_queues(
    cfg: &Config,
    slices: &[crate::config::namespace::NamespaceSlice],
    errors: &Arc<[AtomicU64]>,
) -> Result<Option<NamespaceQueues>, SimError> {
    if slices.is_empty() {
        return Ok(None);
    }
    let priorities: Vec<_> = slices.iter().map(|s| s.priority).collect();
    let arbiter = crate::arbitration::Arbiter::new(
        crate::config::namespace::mechanism(&cfg.host),
        cfg.host.arbitration_burst,
        &priorities,
        "host",
    )?;
    Ok(Some(NamespaceQueues::new(
        slices
            .iter()
            .map(|s| (s.base_bytes, s.size_bytes))
            .collect(),
        arbiter,
        Arc::clone(errors),
    )))
}

/// Where the management-block probe's partitions start (it needs every probe write's
/// latency by offset; empty for other workloads), and the queue depth: a probe write's
/// latency must be its own service time, not time spent queued behind earlier writes,
/// so the probe always runs at queue depth 1.
fn probe_plan(
    cfg: &Config,
    capacity: u64,
    notes: &mut Vec<String>,
) -> Result<(Vec<u64>, usize), SimError> {
    let probe_starts = if cfg.trace.path.is_none()
        && cfg.workload.phase.is_empty()
        && cfg.workload.kind == SynthKind::Probe
    {
        probe::partition_starts(&cfg.workload, capacity)
            .map_err(|e| SimError::Config(e.to_string()))?
    } else {
        Vec::new()
    };
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
    Ok((probe_starts, qd))
}

/// The host log's account of the measured phase (its counts since `b`).
fn host_log_note(cfg: &Config, l: &HostLog, b: HostLogStats) -> String {
    let s = l.stats();
    let (host, cleaned) = (
        s.host_blocks - b.host_blocks,
        s.cleaned_blocks - b.cleaned_blocks,
    );
    format!(
        "host log ({}): {} blocks of {} over {} segments of {} ({} visible to the host); \
             measured phase: {host} blocks written by the host, {cleaned} moved by the cleaner \
             ({} segments cleaned; log write amplification {:.3}), {} segment writes ({} to \
             the SSD), {} SSD reads, {} block reads from host RAM, {} waits for host RAM, {} \
             host memory copies of {} at {} MB/s",
        cfg.host_log.name.name(),
        l.blocks(),
        crate::units::Size(l.shape().block_bytes),
        l.shape().segments,
        cfg.host_log.segment,
        crate::units::Size(l.capacity_bytes()),
        s.cleaned_segments - b.cleaned_segments,
        (host + cleaned) as f64 / host.max(1) as f64,
        s.segment_writes - b.segment_writes,
        crate::units::Size(s.device_write_bytes - b.device_write_bytes),
        s.device_reads - b.device_reads,
        s.ram_reads - b.ram_reads,
        s.ram_waits - b.ram_waits,
        s.ram_copies - b.ram_copies,
        crate::units::Size(l.shape().block_bytes),
        cfg.host_log.memcpy_mb_s,
    )
}

/// The warning of a drive that wore out after `requests` requests of the measured run
/// (`reason` says how); none completed is an error.
fn end_of_life_warning(reason: &str, requests: u64) -> Result<String, SimError> {
    if requests == 0 {
        return Err(SimError::Config(format!(
            "{reason}, before the first request of the measured run completed (a \
             higher device.endurance_cycles, more over-provisioning or less \
             preconditioning)"
        )));
    }
    Ok(format!(
        "the drive reached its end of life after {} requests; the run stopped there \
         ({reason})",
        crate::report::numfmt::group_thousands(requests)
    ))
}

/// Why a run that completed no request is refused.
fn no_requests(cfg: &Config) -> SimError {
    SimError::Config(match &cfg.trace.path {
        Some(p) => format!(
            "{}: no request to simulate (the trace is empty, or every request was filtered out)",
            p.display()
        ),
        None => {
            "the workload produced no requests (check workload.requests and workload.span)".into()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TimingMode;
    use crate::ftl::layout::Placement;
    use crate::nand::Lpn;
    use crate::units::Size;

    /// A small by-address drive: 4 KiB pages, management blocks of 8 pages, 2 planes.
    fn by_address(precondition: Precondition) -> Config {
        let mut c = Config::default();
        c.device.capacity = Size(16 << 20);
        c.device.channels = 2;
        c.device.chips_per_channel = 1;
        c.device.dies_per_chip = 1;
        c.device.planes_per_die = 1;
        c.device.pages_per_block = Some(64);
        c.device.op_percent = 15.0;
        c.device.host_link_mb_s = 0.0;
        c.timing.mode = TimingMode::Full;
        c.ftl.placement = Placement::ByAddress;
        c.ftl.mgmt_block = Size(32 << 10);
        c.precondition = precondition;
        c.seed = 3;
        c
    }

    /// Preconditions a fresh device of `c`; returns it with the writes it was sent.
    fn aged(c: &Config) -> (Device, Vec<(u64, u64)>, Vec<String>) {
        let design = c.validate().unwrap();
        let mut dev = Device::build(&design).unwrap();
        let mut u = Units::new(&mut dev, None, &design);
        u.record = Some(Vec::new());
        let notes = precondition(&mut u, c, &[], &mut |_, _| Ok(())).unwrap();
        let writes = u.record.take().unwrap();
        (dev, writes, notes)
    }

    /// The steady rounds' write amplification, from the note.
    fn steady_wa(notes: &[String]) -> f64 {
        let n = notes
            .iter()
            .find(|n| n.contains("last round's write amplification"))
            .expect("a steady note");
        let tail = n.split("write amplification ").nth(1).unwrap();
        tail.split_whitespace().next().unwrap().parse().unwrap()
    }

    #[test]
    fn age_writes_its_volume_inside_the_live_data_only() {
        use crate::workload::synth::aging::AgingPattern;
        for pattern in [AgingPattern::Uniform, AgingPattern::Desktop] {
            let mut c = by_address(Precondition::Age);
            c.fill_percent = Some(75.0);
            c.aging.volume_drive_writes = 2.0;
            c.aging.pattern = pattern;
            let (dev, writes, notes) = aged(&c);
            let logical = dev.resolved.logical_pages;
            let live = logical * 3 / 4;
            // The fill: whole 8-page management blocks up to the live data's end.
            let fill = live.div_ceil(8) as usize;
            assert_eq!(writes[..fill].iter().map(|w| w.1).sum::<u64>(), live);
            let aging = &writes[fill..];
            let pages: u64 = aging.iter().map(|w| w.1).sum();
            // Two drive writes, the last write (≤ 256 KiB = 64 pages) may overshoot.
            assert!(
                pages >= 2 * logical && pages < 2 * logical + 64,
                "{pattern:?}: {pages} pages for {logical} logical"
            );
            assert!(aging.iter().all(|&(f, n)| f + n <= live), "{pattern:?}");
            for l in live..logical {
                assert!(dev.ftl.lookup(Lpn(l as u32), &dev.nand).is_none());
            }
            assert!(notes.iter().any(|n| n.contains("aged with")), "{notes:?}");
        }
        // [aging] keys without aging are refused, naming the table.
        let mut c = by_address(Precondition::Fill);
        c.aging.volume_drive_writes = 2.0;
        let e = c.validate().unwrap_err().to_string();
        assert!(e.contains("aging"), "{e}");
    }

    #[test]
    fn by_address_steady_aging_pays_the_read_modify_write() {
        // Every one-page overwrite rewrites its 8-page management block: a round costs
        // at least 8 programs per host page (the rest is GC).
        let c = by_address(Precondition::Steady);
        let (dev, writes, notes) = aged(&c);
        let wa = steady_wa(&notes);
        assert!(
            wa >= 8.0,
            "last steady round's WA {wa} below the RMW bound 8: {notes:?}"
        );
        // Over all rounds (the fill programs each page once, in whole blocks).
        let logical = dev.resolved.logical_pages;
        let overwrites = writes.iter().filter(|w| w.1 == 1).count() as f64;
        let all = (dev.nand.counters().total_programs() - logical) as f64 / overwrites;
        assert!(all >= 8.0, "steady rounds' WA {all} below the RMW bound 8");
        let mut counters = crate::spec::Counters::new();
        dev.ftl.counters(&mut counters);
        assert!(
            counters.value(&crate::ftl::page::MGMT_RMW_PAGES) > 0,
            "{counters:?}"
        );
    }

    /// Replays `writes` through the timed host path on a fresh device of `c`.
    fn replayed(c: &Config, writes: &[(u64, u64)]) -> Device {
        let mut dev = Device::build(&c.validate().unwrap()).unwrap();
        let ps = dev.page_bytes();
        let mut t = 0;
        for &(first, n) in writes {
            let req = IoRequest::new(OpKind::Write, first * ps, n * ps);
            t = dev.submit(&req, t).unwrap();
        }
        dev
    }

    #[test]
    fn by_address_aged_state_equals_the_timed_replay() {
        // Every kind of aging leaves the flash exactly as the same writes sent through
        // the measured path: same map, same operation counts, same wear per block.
        for kind in [
            Precondition::Fill,
            Precondition::Steady,
            Precondition::Random,
            Precondition::Age,
        ] {
            let c = by_address(kind);
            let (aged, writes, _) = aged(&c);
            let timed = replayed(&c, &writes);
            assert_eq!(
                aged.nand.counters(),
                timed.nand.counters(),
                "{kind:?}: flash operations differ"
            );
            assert_eq!(
                aged.nand.erase_counts(),
                timed.nand.erase_counts(),
                "{kind:?}"
            );
            for l in 0..aged.resolved.logical_pages {
                let lpn = Lpn(l as u32);
                assert_eq!(
                    aged.ftl.lookup(lpn, &aged.nand),
                    timed.ftl.lookup(lpn, &timed.nand),
                    "{kind:?}: page {l} sits elsewhere"
                );
            }
        }
    }

    #[test]
    fn fill_writes_whole_management_blocks_without_rewriting() {
        // A sequential fill in management-block commands replaces blocks whole: one
        // program per page, no read-modify-write (page-by-page it would be quadratic).
        let c = by_address(Precondition::Fill);
        let (dev, writes, _) = aged(&c);
        assert!(writes.iter().all(|&(first, n)| first % 8 == 0 && n == 8));
        assert_eq!(
            dev.nand.counters().total_programs(),
            dev.resolved.logical_pages
        );
    }
}
