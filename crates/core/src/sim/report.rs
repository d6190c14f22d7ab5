//! The last stage: what a run measured, turned into a [`Report`]. The run loop only
//! records completions ([`PhaseAcc`]) and snapshots counters; this file derives every
//! report field from them.

use super::device::{Device, HostCounters};
use crate::config::{Config, Precondition, ResolvedDevice};
use crate::nand::{CAUSES, Cause, Nand, NandCounters};
use crate::report::latency::{new_latency_histogram, summarize};
use crate::report::{BufferReport, EraseSummary, PhaseReport, ProbeReport, Report};
use crate::spec::Counters;
use crate::timing::TimeModel;
use crate::workload::OpKind;
use crate::workload::synth::probe;
use hdrhistogram::Histogram;

/// What the report reads from a simulated device: the flash array, host-side counters,
/// the time model's busy time, and the translation layer's (FTL's or file system's)
/// counters and RAM. [`Device`] is one; a file system on raw flash (`fs/yaffs2/`) is
/// another, so both report with the same keys.
pub trait Measure {
    /// The flash array.
    fn nand(&self) -> &Nand;
    /// Host-side page counters.
    fn host(&self) -> HostCounters;
    /// The device's parameters.
    fn resolved(&self) -> &ResolvedDevice;
    /// Die busy time by cause (full timing model only).
    fn busy_ns(&self) -> Option<[u64; CAUSES]>;
    /// Counters of the layer above the flash (running totals except gauges).
    fn layer_counters(&self, out: &mut Counters);
    /// RAM of the layer's maps.
    fn mapping_bytes(&self) -> u64;
    /// The write buffer's figures (none by default).
    fn buffer_report(&self, host_writes: u64, _host_reads: u64, programs: u64) -> BufferReport {
        no_buffer(host_writes, programs)
    }
    /// Counters of the stages between host and layer (buffer, device queue).
    fn stage_counters(&self, _out: &mut Counters) {}
    /// The FDP section (FTLs with FDP enabled only).
    fn fdp_report(&self) -> Option<crate::fdp::FdpReport> {
        None
    }
    /// Report Zones (zoned FTLs only).
    fn zone_report(&self) -> Vec<crate::report::ZoneReport> {
        Vec::new()
    }
    /// The Report Zones commands performed, with their results (zoned FTLs only).
    fn zone_report_commands(&self) -> Vec<crate::report::ZoneReportCommand> {
        Vec::new()
    }
    /// Host pages written by each namespace (empty below two namespaces).
    fn namespace_write_pages(&self) -> &[u64] {
        &[]
    }
}

impl Measure for Device {
    fn nand(&self) -> &Nand {
        &self.nand
    }
    fn host(&self) -> HostCounters {
        self.host
    }
    fn resolved(&self) -> &ResolvedDevice {
        &self.resolved
    }
    fn busy_ns(&self) -> Option<[u64; CAUSES]> {
        self.time.busy_ns()
    }
    fn layer_counters(&self, out: &mut Counters) {
        self.ftl.counters(out);
        // Only a drive that was sent zone commands reports their refusal.
        if self.invalid_zone_commands() > 0 {
            out.set(&crate::zns::INVALID_OPCODE, self.invalid_zone_commands());
        }
    }
    fn mapping_bytes(&self) -> u64 {
        self.ftl.mapping_bytes()
    }
    fn fdp_report(&self) -> Option<crate::fdp::FdpReport> {
        self.ftl.fdp_report()
    }
    fn zone_report(&self) -> Vec<crate::report::ZoneReport> {
        let Some(z) = self.ftl.zones() else {
            return Vec::new();
        };
        z.report(0, crate::zns::ReportFilter::All)
            .iter()
            .map(crate::report::ZoneReport::from)
            .collect()
    }
    fn zone_report_commands(&self) -> Vec<crate::report::ZoneReportCommand> {
        self.zone_reports().to_vec()
    }
    fn namespace_write_pages(&self) -> &[u64] {
        self.namespace_write_pages()
    }
    fn buffer_report(&self, host_writes: u64, host_reads: u64, programs: u64) -> BufferReport {
        buffer_report(self, host_writes, host_reads, programs)
    }
    fn stage_counters(&self, out: &mut Counters) {
        if let Some(b) = &self.buffer {
            b.policy.counters(out);
            out.set(&crate::buffer::HOST_FLUSHES, b.stats.host_flushes);
            out.set(&crate::host::REORDERED_COMMANDS, self.ncq.reordered());
        }
    }
}

/// The buffer section of a run without a write buffer.
fn no_buffer(host_writes: u64, programs: u64) -> BufferReport {
    BufferReport {
        buffer_policy: "none".into(),
        ftl_write_pages: host_writes,
        write_amplification_ftl: ratio(programs, host_writes),
        ..BufferReport::default()
    }
}

/// Throughput over simulated time with a bounded number of buckets (the width doubles
/// whenever they would exceed `MAX_BUCKETS`).
#[derive(Clone)]
pub struct ThroughputSeries {
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
    pub fn add(&mut self, at_ns: u64, bytes: u64) {
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
#[derive(Clone)]
pub struct PhaseAcc {
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
    pub end_ns: u64,
    nand_before: NandCounters,
    host_before: HostCounters,
    /// The layer's counters at the phase's start, when the phase reports its own
    /// ([`PhaseAcc::with_counters`]).
    layers_before: Option<Counters>,
}

impl PhaseAcc {
    pub fn new(name: String, start_ns: u64, dev: &dyn Measure) -> Self {
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
            nand_before: *dev.nand().counters(),
            host_before: dev.host(),
            layers_before: None,
        }
    }

    /// The phase reports its own counters ([`PhaseReport::counters`]).
    pub fn with_counters(mut self, dev: &dyn Measure) -> Self {
        let mut m = Counters::new();
        dev.layer_counters(&mut m);
        self.layers_before = Some(m);
        self
    }

    #[inline]
    pub fn record(&mut self, op: OpKind, latency_ns: u64, done_ns: u64) {
        let v = latency_ns.max(1);
        match op {
            OpKind::Read => {
                self.reads.saturating_record(v);
                self.read_requests += 1;
            }
            // An append carries data like a write (its address chosen by the drive).
            OpKind::Write | OpKind::ZoneAppend => {
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

    fn finish(&self, dev: &dyn Measure) -> PhaseReport {
        let nand = dev.nand().counters().since(&self.nand_before);
        let host = dev.host().since(&self.host_before);
        let sim_ns = self.end_ns - self.start_ns;
        let secs = sim_ns as f64 / 1e9;
        let per_s = |n: f64| if secs > 0.0 { n / secs } else { 0.0 };
        let mib = (1u64 << 20) as f64;
        let f = dev.resolved().formula.time(&nand);
        let mut counters = Counters::new();
        if let Some(before) = &self.layers_before {
            dev.layer_counters(&mut counters);
            counters = counters.since(before);
            counters.set(&crate::nand::READ_PAGES, nand.total_reads());
            counters.set(
                &crate::nand::MAP_READ_PAGES,
                nand.reads[Cause::Map as usize],
            );
        }
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
            counters: counters.into_map(),
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

/// The buffer's figures and the FTL's write amplification for the measured run.
fn buffer_report(dev: &Device, host_writes: u64, host_reads: u64, programs: u64) -> BufferReport {
    let Some(b) = &dev.buffer else {
        return no_buffer(host_writes, programs);
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

/// The probe's inference as a report section.
fn probe_report(cfg: &Config, samples: &[(u32, u64, u64)]) -> ProbeReport {
    let size_bytes = cfg.workload.size.bytes();
    ProbeReport {
        block_test: cfg
            .workload
            .probe_block
            .map(|b| probe::test_block(samples, size_bytes, b.bytes())),
        ..ProbeReport::new(
            &probe::infer(samples, size_bytes),
            size_bytes,
            cfg.workload.probe_step.bytes(),
            cfg.workload.probe_partitions,
        )
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

/// Counter values at the start of the measured phase (after preconditioning): every
/// running total in the report is the difference from these.
pub struct Baseline {
    nand: NandCounters,
    host: HostCounters,
    ftl: Counters,
    busy_ns: Option<[u64; crate::nand::CAUSES]>,
    /// Per namespace (two or more): host pages written, and flash programs by owner.
    ns_write_pages: Vec<u64>,
    ns_programs: Vec<u64>,
}

impl Baseline {
    pub fn take(dev: &dyn Measure) -> Baseline {
        let mut ftl = Counters::new();
        dev.layer_counters(&mut ftl);
        Baseline {
            nand: *dev.nand().counters(),
            host: dev.host(),
            ftl,
            busy_ns: dev.busy_ns(),
            ns_write_pages: dev.namespace_write_pages().to_vec(),
            ns_programs: dev.nand().owner_programs().unwrap_or_default().to_vec(),
        }
    }

    /// The namespaces' host pages written and flash pages programmed since the baseline.
    pub fn namespace_flash(&self, dev: &dyn Measure) -> NamespaceFlash {
        let since = |now: &[u64], then: &[u64]| -> Vec<u64> {
            now.iter()
                .zip(then.iter().chain(std::iter::repeat(&0)))
                .map(|(a, b)| a - b)
                .collect()
        };
        NamespaceFlash {
            write_pages: since(dev.namespace_write_pages(), &self.ns_write_pages),
            programs: since(
                dev.nand().owner_programs().unwrap_or_default(),
                &self.ns_programs,
            ),
            page_bytes: dev.nand().geometry().page_size_bytes as u64,
        }
    }
}

/// What the namespaces wrote to flash over the measured run: the inputs of their write
/// amplification (empty vectors below two namespaces).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NamespaceFlash {
    /// Host pages each namespace wrote.
    pub write_pages: Vec<u64>,
    /// Flash pages programmed holding each namespace's logical pages (host programs, GC
    /// and merge copies, read-modify-writes), then those holding none (the overhead:
    /// translation pages, padding).
    pub programs: Vec<u64>,
    /// Bytes of one flash page.
    pub page_bytes: u64,
}

/// Accumulates one namespace's results over the run.
#[derive(Clone)]
pub struct NamespaceAcc {
    reads: Histogram<u64>,
    writes: Histogram<u64>,
    requests: u64,
    read_bytes: u64,
    write_bytes: u64,
}

impl Default for NamespaceAcc {
    fn default() -> Self {
        NamespaceAcc {
            reads: new_latency_histogram(),
            writes: new_latency_histogram(),
            requests: 0,
            read_bytes: 0,
            write_bytes: 0,
        }
    }
}

impl NamespaceAcc {
    /// A completed request of this namespace.
    pub fn record(&mut self, op: OpKind, size_bytes: u64, latency_ns: u64) {
        let v = latency_ns.max(1);
        match op {
            OpKind::Read => {
                self.reads.saturating_record(v);
                self.read_bytes += size_bytes;
            }
            OpKind::Write => {
                self.writes.saturating_record(v);
                self.write_bytes += size_bytes;
            }
            _ => {}
        }
        self.requests += 1;
    }

    /// The namespace's report section, given the run's totals and, as (host pages
    /// written, flash pages programmed), what it wrote to flash.
    pub fn finish(
        &self,
        slice: &crate::config::namespace::NamespaceSlice,
        errors: u64,
        report: &crate::report::Report,
        (write_pages, programs): (u64, u64),
        page_bytes: u64,
    ) -> crate::report::NamespaceReport {
        let secs = report.simulated_ns as f64 / 1e9;
        let share = ratio(self.write_bytes, report.host_write_bytes);
        crate::report::NamespaceReport {
            name: slice.name.clone(),
            size_bytes: slice.size_bytes,
            requests: self.requests,
            iops: if secs > 0.0 {
                self.requests as f64 / secs
            } else {
                0.0
            },
            read_bytes: self.read_bytes,
            write_bytes: self.write_bytes,
            read_latency_ns: summarize(&self.reads),
            write_latency_ns: summarize(&self.writes),
            errors_lba_out_of_range: errors,
            host_write_share: share,
            media_write_bytes: programs * page_bytes,
            write_amplification: ratio(programs, write_pages),
            // Over every host page, as the device's figure, so that the contributions
            // and the overhead's sum to it.
            write_amplification_contribution: ratio(programs, report.host_write_pages),
        }
    }
}

/// Sets the report's `namespaces` list and `namespace_overhead`: one section per
/// namespace, only with several (one namespace is the device). `errors[i]` counts
/// namespace i's refused requests; `flash` is what they wrote to flash.
pub fn namespace_sections(
    report: &mut Report,
    slices: &[crate::config::namespace::NamespaceSlice],
    accs: &[NamespaceAcc],
    errors: impl IntoIterator<Item = u64>,
    flash: &NamespaceFlash,
) {
    if slices.len() < 2 {
        return;
    }
    let at = |v: &[u64], i: usize| v.get(i).copied().unwrap_or(0);
    let sections = slices
        .iter()
        .zip(accs)
        .zip(errors)
        .enumerate()
        .map(|(i, ((slice, a), e))| {
            let written = (at(&flash.write_pages, i), at(&flash.programs, i));
            a.finish(slice, e, report, written, flash.page_bytes)
        })
        .collect();
    let overhead = at(&flash.programs, slices.len());
    report.namespace_overhead = Some(crate::report::NamespaceOverhead {
        media_write_bytes: overhead * flash.page_bytes,
        write_amplification_contribution: ratio(overhead, report.host_write_pages),
    });
    report.namespaces = sections;
}

/// What the run loop measured, phase by phase.
pub struct Measured {
    pub now_ns: u64,
    pub requests: u64,
    all: Histogram<u64>,
    reads: Histogram<u64>,
    writes: Histogram<u64>,
    pub series: ThroughputSeries,
    cdfs: Vec<(String, Vec<(f64, f64)>)>,
    phases: Vec<PhaseReport>,
    /// Probe writes as (partition, offset in it, latency).
    pub(super) probe_samples: Vec<(u32, u64, u64)>,
    /// Why and when the run stopped early because the drive wore out.
    pub end_of_life: Option<(u64, String)>,
}

impl Measured {
    // Public for ssdlab-fs's run loop, which builds its report with these parts.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Measured {
        Measured {
            now_ns: 0,
            requests: 0,
            all: new_latency_histogram(),
            reads: new_latency_histogram(),
            writes: new_latency_histogram(),
            series: ThroughputSeries::new(0),
            cdfs: Vec::new(),
            phases: Vec::new(),
            probe_samples: Vec::new(),
            end_of_life: None,
        }
    }

    /// Adds a finished phase.
    pub fn end_phase(&mut self, acc: PhaseAcc, dev: &dyn Measure) {
        self.now_ns = acc.end_ns;
        self.requests += acc.requests;
        let acc_all = acc.all();
        // Same bounds and precision, so adding cannot fail.
        self.all.add(&acc_all).ok();
        self.reads.add(&acc.reads).ok();
        self.writes.add(&acc.writes).ok();
        self.cdfs.push((
            acc.name.clone(),
            crate::report::latency::cdf_points(&acc_all),
        ));
        self.phases.push(acc.finish(dev));
    }
}

/// Wall-clock times of a run.
pub struct WallClock {
    pub start: std::time::Instant,
    pub measured: std::time::Instant,
}

/// The report and figures of a finished run.
pub fn assemble(
    cfg: &Config,
    dev: &dyn Measure,
    base: &Baseline,
    m: Measured,
    mut notes: Vec<String>,
    mut warnings: Vec<String>,
    wall: WallClock,
) -> super::RunOutput {
    let nand = dev.nand().counters().since(&base.nand);
    let host = dev.host().since(&base.host);
    let formula = dev.resolved().formula.time(&nand);
    let gc_busy_share = match (dev.busy_ns(), base.busy_ns) {
        (Some(b), Some(before)) => {
            let d: Vec<u64> = b.iter().zip(before.iter()).map(|(x, y)| x - y).collect();
            share(
                d[Cause::Gc as usize] + d[Cause::Wl as usize],
                d.iter().sum(),
            )
        }
        _ => share(formula.gc_ns, formula.total_ns()),
    };
    let erase_counts = dev.nand().erase_counts();
    let mut counters = Counters::new();
    dev.layer_counters(&mut counters);
    let mut counters = counters.since(&base.ftl);
    counters.set(
        &crate::nand::WORN_OUT_BLOCKS,
        dev.nand().worn_out_blocks() as u64,
    );
    counters.set(&crate::host::REQUESTS, m.requests);
    dev.stage_counters(&mut counters);
    let buffer = dev.buffer_report(host.write_pages, host.read_pages, nand.total_programs());
    let resolved = dev.resolved();
    let unmapped_read_share = ratio(host.unmapped_read_pages, host.read_pages);
    if unmapped_read_share > crate::report::UNMAPPED_READ_WARN_SHARE {
        warnings.push(format!(
            "{:.1}% of page reads ({} of {}) hit never-written pages and were answered without \
             flash access, so read latencies are those of an empty device; precondition with \
             --precondition footprint or --fill PERCENT (docs/traces.md)",
            unmapped_read_share * 100.0,
            host.unmapped_read_pages,
            host.read_pages
        ));
    }
    // A value the device could not take as asked is carried in every output and warned
    // about (docs/config.md, "Requested and actual values").
    warnings.extend(crate::config::actual::warnings(cfg, resolved));
    if cfg.precondition != Precondition::None {
        notes.push(format!(
            "device over-provisioning after rounding to whole blocks: {:.2}%",
            resolved.op_percent_actual
        ));
    }
    let now_ns = m.now_ns;
    let sim_secs = now_ns as f64 / 1e9;
    let per_s = |n: f64| if sim_secs > 0.0 { n / sim_secs } else { 0.0 };
    let hw = host.write_pages;
    let mut config_json = serde_json::to_value(cfg).expect("config serializes");
    if let Some(obj) = config_json.as_object_mut() {
        obj.insert(
            "resolved".into(),
            serde_json::json!({
                "geometry": resolved.geometry,
                "logical_pages": resolved.logical_pages,
                "op_percent_actual": resolved.op_percent_actual,
                "slc_cache_percent_actual": resolved.slc_cache_percent_actual,
                "timing": resolved.timing,
                "formula": resolved.formula,
                "endurance_cycles": resolved.endurance_cycles,
            }),
        );
    }
    let probing = cfg.trace.path.is_none()
        && cfg.workload.phase.is_empty()
        && cfg.workload.kind == crate::workload::synth::SynthKind::Probe;
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
        host_read_bytes: host.read_bytes,
        host_write_bytes: host.write_bytes,
        unmapped_read_pages: host.unmapped_read_pages,
        unmapped_read_share,
        nand_read_pages: nand.total_reads(),
        rmw_read_pages: nand.reads[Cause::Rmw as usize],
        nand_program_pages: nand.total_programs(),
        host_program_pages: nand.programs[Cause::Host as usize],
        gc_copy_pages: nand.copies[Cause::Gc as usize],
        wl_copy_pages: nand.copies[Cause::Wl as usize],
        map_program_pages: nand.programs[Cause::Map as usize],
        rmw_program_pages: nand.programs[Cause::Rmw as usize],
        erases: nand.total_erases(),
        write_amplification: ratio(nand.total_programs(), hw),
        write_amplification_host: ratio(nand.programs[Cause::Host as usize], hw),
        // Every cause's programs, so that the parts add up to the total (a merge or
        // fold can program pages for GC that are not copies).
        write_amplification_gc: ratio(nand.programs[Cause::Gc as usize], hw),
        write_amplification_wl: ratio(nand.programs[Cause::Wl as usize], hw),
        write_amplification_map: ratio(nand.programs[Cause::Map as usize], hw),
        write_amplification_rmw: ratio(nand.programs[Cause::Rmw as usize], hw),
        iops: per_s(m.requests as f64),
        throughput_mib_s: per_s((host.read_bytes + host.write_bytes) as f64 / (1u64 << 20) as f64),
        latency_ns: summarize(&m.all),
        read_latency_ns: summarize(&m.reads),
        write_latency_ns: summarize(&m.writes),
        elapsed_formula_us: formula.total_ns() as f64 / 1e3,
        elapsed_formula_io_us: formula.io_ns as f64 / 1e3,
        elapsed_formula_gc_us: formula.gc_ns as f64 / 1e3,
        gc_time_share: share(formula.gc_ns, formula.total_ns()),
        gc_busy_share,
        buffer,
        erase_count: erase_summary(&erase_counts),
        mapping_bytes: dev.mapping_bytes(),
        op_percent_requested: cfg.device.op_percent,
        op_percent_actual: resolved.op_percent_actual,
        slc_cache_percent_requested: cfg.device.slc_cache_percent,
        slc_cache_percent_actual: resolved.slc_cache_percent_actual,
        simulated_ns: now_ns,
        counters: counters.into_map(),
        phases: m.phases,
        namespaces: Vec::new(),
        namespace_overhead: None,
        end_of_life: m
            .end_of_life
            .map(|(at_ns, reason)| crate::report::EndOfLife {
                after_requests: m.requests,
                host_write_bytes: host.write_bytes,
                at_ns,
                reason,
            }),
        probe: probing.then(|| probe_report(cfg, &m.probe_samples)),
        fdp: dev.fdp_report(),
        zones: dev.zone_report(),
        zone_reports: dev.zone_report_commands(),
        wall_clock_s: wall.start.elapsed().as_secs_f64(),
        wall_clock_measured_s: wall.measured.elapsed().as_secs_f64(),
    };
    let figures = crate::report::Figures {
        latency_cdf: m.cdfs,
        throughput_series: m.series.points(),
        erase_counts,
        probe_latency: probe_figure(&m.probe_samples),
    };
    super::RunOutput { report, figures }
}

/// Statistics of a device serving requests as they come (`ssdlab serve`): completions
/// are recorded one by one and a [`Report`] with `run`'s keys is assembled on demand,
/// as often as wanted, from copies of the accumulators.
pub struct LiveStats {
    base: Baseline,
    acc: PhaseAcc,
    series: ThroughputSeries,
    start: std::time::Instant,
    /// The namespaces' slices (`[[namespace]]`; empty without tables), their results and
    /// their requests refused as past their end.
    slices: Vec<crate::config::namespace::NamespaceSlice>,
    namespaces: Vec<NamespaceAcc>,
    ns_errors: Vec<u64>,
}

impl LiveStats {
    /// Starts counting from `dev`'s present state, for the namespaces `slices` (the
    /// layout of `[[namespace]]`; a report has their sections when there are two or
    /// more, as `ssdlab run`'s does).
    pub fn new(dev: &Device, slices: Vec<crate::config::namespace::NamespaceSlice>) -> LiveStats {
        LiveStats {
            base: Baseline::take(dev),
            acc: PhaseAcc::new("serve".into(), 0, dev),
            series: ThroughputSeries::new(0),
            start: std::time::Instant::now(),
            namespaces: vec![NamespaceAcc::default(); slices.len()],
            ns_errors: vec![0; slices.len()],
            slices,
        }
    }

    /// Records a request of namespace `namespace` (its index; ignored for a drive without
    /// namespaces) of `bytes` that completed at `done_ns` after `latency_ns`.
    pub fn record(
        &mut self,
        namespace: u32,
        op: OpKind,
        bytes: u64,
        latency_ns: u64,
        done_ns: u64,
    ) {
        self.acc.record(op, latency_ns, done_ns);
        self.series.add(done_ns, bytes);
        if let Some(a) = self.namespaces.get_mut(namespace as usize) {
            a.record(op, bytes, latency_ns);
        }
    }

    /// Counts a request of namespace `namespace` refused as reaching past its end.
    pub fn record_out_of_range(&mut self, namespace: u32) {
        if let Some(e) = self.ns_errors.get_mut(namespace as usize) {
            *e += 1;
        }
    }

    /// Requests recorded so far.
    pub fn requests(&self) -> u64 {
        self.acc.requests
    }

    /// The report so far.
    pub fn report(&self, cfg: &Config, dev: &Device) -> Report {
        let mut m = Measured::new();
        m.series = self.series.clone();
        m.end_phase(self.acc.clone(), dev);
        let wall = WallClock {
            start: self.start,
            measured: self.start,
        };
        let mut r = assemble(cfg, dev, &self.base, m, Vec::new(), Vec::new(), wall).report;
        namespace_sections(
            &mut r,
            &self.slices,
            &self.namespaces,
            self.ns_errors.iter().copied(),
            &self.base.namespace_flash(dev),
        );
        r
    }
}
