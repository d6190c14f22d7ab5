//! Run results: the [`Report`] data (JSON keys are part of the interface), and its
//! renderings — text table, CSV, SVG figures — plus the progress bar.

pub mod csv_out;
pub mod fio;
pub mod html;
pub mod json;
pub mod latency;
pub mod numfmt;
pub mod output;
pub mod progress;
pub mod render;
pub mod svg;
pub mod table;
pub mod text;

use serde::{Deserialize, Serialize};

/// Latency distribution summary, nanoseconds. The fields are what fio reports for a
/// latency (min, max, mean, stddev) plus the percentiles a tail study reads; every output
/// flattens them as `latency_ns_FIELD` (docs/outputs.md).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    /// Requests measured.
    pub count: u64,
    /// Minimum.
    #[serde(default)]
    pub min: u64,
    /// Mean.
    pub mean: f64,
    /// Population standard deviation.
    #[serde(default)]
    pub stddev: f64,
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    #[serde(default)]
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// 99.99th percentile.
    #[serde(default)]
    pub p9999: u64,
    /// Maximum.
    pub max: u64,
    /// fio's default percentile list ([`fio::PERCENTILES`]), for `--json-format fio`;
    /// not part of the ssdlab JSON (empty after reading one back).
    #[serde(skip)]
    pub fio_percentiles: Vec<u64>,
    /// Share of requests (percent) in each of fio's latency ranges
    /// ([`fio::LATENCY_RANGES_NS`]), for `--json-format fio`; not serialized.
    #[serde(skip)]
    pub fio_ranges: Vec<f64>,
}

/// Per-block erase-count spread.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EraseSummary {
    /// Least-erased block.
    pub min: u64,
    /// Mean over all blocks.
    pub mean: f64,
    /// Most-erased block.
    pub max: u64,
    /// Population standard deviation.
    pub stddev: f64,
}

/// Results of one phase (e.g. IOZone's random-write) or of the whole measured run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseReport {
    /// Phase name (`all` for the whole measured run).
    pub name: String,
    /// Host requests completed.
    pub requests: u64,
    /// Read requests completed.
    pub read_requests: u64,
    /// Write requests completed.
    pub write_requests: u64,
    /// Simulated time from the phase's first arrival to its last completion.
    pub simulated_ns: u64,
    /// Requests per simulated second.
    pub iops: f64,
    /// Read requests per simulated second.
    pub read_iops: f64,
    /// Write requests per simulated second.
    pub write_iops: f64,
    /// Host bytes moved per simulated second, MiB/s.
    pub throughput_mib_s: f64,
    /// Host read MiB/s.
    pub read_throughput_mib_s: f64,
    /// Host write MiB/s.
    pub write_throughput_mib_s: f64,
    /// All requests.
    pub latency_ns: LatencySummary,
    /// Reads only.
    pub read_latency_ns: LatencySummary,
    /// Writes only.
    pub write_latency_ns: LatencySummary,
    /// Host page reads / writes in this phase.
    pub host_read_pages: u64,
    /// Host page writes.
    pub host_write_pages: u64,
    /// Flash programs in this phase (all causes).
    pub nand_program_pages: u64,
    /// GC copies in this phase.
    pub gc_copy_pages: u64,
    /// Erases in this phase.
    pub erases: u64,
    /// Flash programs / host page writes in this phase.
    pub write_amplification: f64,
    /// The papers' serial elapsed-time formula for this phase, µs.
    pub elapsed_formula_us: f64,
    /// GC share of `elapsed_formula_us`.
    pub gc_time_share: f64,
    /// The phase's own counters, for phases of a trace split by `trace.phases` (empty,
    /// and absent from the JSON, otherwise): the report's `counters` over this phase
    /// alone (gauges as at its end), plus `nand.read_pages` (flash page reads, all
    /// causes) and `nand.map_read_pages` (of those, reads of mapping data).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub counters: std::collections::BTreeMap<String, u64>,
}

/// Share of page reads hitting never-written pages above which a run warns (1%).
pub const UNMAPPED_READ_WARN_SHARE: f64 = 0.01;

/// The full report of a run. Top-level key names are an interface other tools rely on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// ssdlab version that produced it.
    pub ssdlab_version: String,
    /// The resolved configuration (with seed), as TOML-equivalent JSON.
    pub config: serde_json::Value,
    /// Which requests the counters cover: `whole run` or `after preconditioning`.
    pub measured_phase: String,
    /// Human notes about the run (e.g. "counters exclude the fill").
    pub notes: Vec<String>,
    /// Warnings from trace sanity checks and the simulator.
    pub warnings: Vec<String>,

    /// Host page reads (after splitting requests into pages).
    pub host_read_pages: u64,
    /// Host page writes.
    pub host_write_pages: u64,
    /// Host pages trimmed.
    pub host_trim_pages: u64,
    /// Host bytes read (requests as issued, before splitting into pages).
    #[serde(default)]
    pub host_read_bytes: u64,
    /// Host bytes written.
    #[serde(default)]
    pub host_write_bytes: u64,
    /// Host reads of never-written (or trimmed) pages, answered without flash access.
    pub unmapped_read_pages: u64,
    /// `unmapped_read_pages / host_read_pages` (0 without reads). Above
    /// [`UNMAPPED_READ_WARN_SHARE`] the run warns: its read latencies are those of a
    /// device that holds no data (docs/traces.md, "Preconditioning").
    pub unmapped_read_share: f64,
    /// Flash page reads, all causes.
    pub nand_read_pages: u64,
    /// Flash page reads caused by read-modify-write of partial pages.
    pub rmw_read_pages: u64,
    /// Flash page programs, all causes.
    pub nand_program_pages: u64,
    /// Programs of host data.
    pub host_program_pages: u64,
    /// Pages copied by garbage collection (or merges).
    pub gc_copy_pages: u64,
    /// Pages copied by static wear leveling.
    pub wl_copy_pages: u64,
    /// Programs of mapping / metadata pages (DFTL translation pages and the like).
    pub map_program_pages: u64,
    /// Pages programmed by read-modify-write (management-block rewrites, partial
    /// pages, buffer padding).
    pub rmw_program_pages: u64,
    /// Block erases, all causes.
    pub erases: u64,
    /// Device write amplification: flash programs / host page writes. With a write
    /// buffer it can drop below 1 (hits absorb overwrites); see `write_amplification_ftl`.
    pub write_amplification: f64,
    /// Host share of WA (host programs / host page writes; 1 without a buffer).
    pub write_amplification_host: f64,
    /// GC share of WA (GC copies / host page writes).
    pub write_amplification_gc: f64,
    /// Wear-leveling share of WA.
    pub write_amplification_wl: f64,
    /// Share of WA from mapping / metadata pages (e.g. DFTL translation pages).
    pub write_amplification_map: f64,
    /// Share of WA from read-modify-write: a by-address design's management-block
    /// rewrites, partial pages, buffer padding. host + GC + WL + map + RMW = total.
    pub write_amplification_rmw: f64,

    /// Requests per simulated second.
    pub iops: f64,
    /// Host MiB per simulated second.
    pub throughput_mib_s: f64,
    /// All requests' latency.
    pub latency_ns: LatencySummary,
    /// Reads' latency.
    pub read_latency_ns: LatencySummary,
    /// Writes' latency.
    pub write_latency_ns: LatencySummary,

    /// Cr·Tr + Cw·Tw + Gc·Tcopy + Ce·Te, µs.
    pub elapsed_formula_us: f64,
    /// The I/O part (Cr·Tr + Cw·Tw), µs.
    pub elapsed_formula_io_us: f64,
    /// The GC part (Gc·Tcopy + Ce·Te), µs.
    pub elapsed_formula_gc_us: f64,
    /// GC share of the formula's time.
    pub gc_time_share: f64,
    /// GC share of die busy time in the full timing model (equals `gc_time_share` in
    /// counting mode).
    pub gc_busy_share: f64,

    /// The write buffer and the FTL's own write amplification (keys at the top level).
    #[serde(flatten)]
    pub buffer: BufferReport,

    /// Per-block erase counts over the whole device.
    pub erase_count: EraseSummary,
    /// Bytes of RAM the FTL's mapping structures need.
    pub mapping_bytes: u64,
    /// `device.op_percent` as the design asked for it.
    #[serde(default)]
    pub op_percent_requested: f64,
    /// Over-provisioning the device has after rounding to whole blocks in every plane
    /// (docs/config.md, "Requested and actual values").
    #[serde(default)]
    pub op_percent_actual: f64,
    /// `device.slc_cache_percent` as the design asked for it.
    #[serde(default)]
    pub slc_cache_percent_requested: f64,
    /// SLC cache the device has after rounding to whole blocks on every die.
    #[serde(default)]
    pub slc_cache_percent_actual: f64,
    /// Simulated time of the measured run.
    pub simulated_ns: u64,
    /// FTL-specific counters, e.g. `ftl.gc.victims`.
    pub counters: std::collections::BTreeMap<String, u64>,
    /// Per-phase results (one per IOZone step, or one for a trace).
    pub phases: Vec<PhaseReport>,
    /// Per-namespace results, beside the device totals above (only with two or more
    /// `[[namespace]]` tables).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub namespaces: Vec<NamespaceReport>,
    /// With the `namespaces` list: the flash programs of pages no namespace holds, the
    /// device's own overhead (translation pages, padding).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_overhead: Option<NamespaceOverhead>,
    /// Set when the drive wore out during the measured run: the run stopped there and
    /// every figure covers the requests completed until then (docs/ftls.md, "Bad
    /// blocks").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_of_life: Option<EndOfLife>,
    /// Management-block probe result (`--workload probe` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeReport>,
    /// Flexible Data Placement statistics and events (`ftl.fdp.enabled` only; over the
    /// drive's life, preconditioning included, as the FDP log pages count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fdp: Option<crate::fdp::FdpReport>,
    /// Report Zones at the end of the run: one descriptor per zone (`ftl.name =
    /// "zoned"` only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zones: Vec<ZoneReport>,
    /// The Report Zones commands the workload issued, in the order performed, with what
    /// each returned (zoned drives only; preconditioning included).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zone_reports: Vec<ZoneReportCommand>,
    /// Wall-clock seconds the simulation took (not deterministic; ignore when comparing).
    pub wall_clock_s: f64,
    /// Wall-clock seconds of the measured phase alone, without building the device and
    /// preconditioning (not deterministic).
    pub wall_clock_measured_s: f64,
}

/// One zone's descriptor as the NVMe Report Zones command returns it (ZNS 1.0, Zone
/// Descriptor: ZSLBA, ZCAP, WP, ZS), in logical blocks (one flash page each).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ZoneReport {
    /// First logical block of the zone (ZSLBA).
    pub start_lba: u64,
    /// Writable logical blocks from the start (ZCAP).
    pub capacity_blocks: u64,
    /// Write pointer (WP): the next logical block a write must start at.
    pub write_pointer_lba: u64,
    /// Zone state (ZS), by the specification's abbreviation: `ZSE` (empty), `ZSIO`
    /// and `ZSEO` (implicitly and explicitly opened), `ZSC` (closed), `ZSF` (full),
    /// `ZSRO` (read only), `ZSO` (offline).
    pub state: String,
}

/// One Report Zones command performed during the run (a trace's `ZQ0`–`ZQ7`, a Python
/// request `zone-report`): what the drive answered when it performed it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ZoneReportCommand {
    /// When the drive performed it (simulated ns, from the start of the run).
    pub at_ns: u64,
    /// The starting LBA it named.
    pub start_lba: u64,
    /// Its filter (`all`, `empty`, `implicitly-opened`, `explicitly-opened`, `closed`,
    /// `full`, `read-only`, `offline`).
    pub filter: String,
    /// Zones from the starting one that match the filter (the header's Number of Zones).
    pub zones_matching: u64,
    /// Their descriptors, in zone order.
    pub zones: Vec<ZoneReport>,
}

/// One namespace's part of a run. Its requests, bytes and errors sum over the
/// namespaces to the device totals. Its write amplification is measured: every flash
/// program is counted for the namespace whose logical page it holds (host programs,
/// GC and merge copies, read-modify-writes alike), so a tenant whose pages the
/// garbage collector copies carries those copies.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NamespaceReport {
    /// The namespace's name.
    pub name: String,
    /// Its size, bytes.
    pub size_bytes: u64,
    /// Requests completed.
    pub requests: u64,
    /// Requests per simulated second (over the whole measured run).
    pub iops: f64,
    /// Bytes read by its completed requests.
    pub read_bytes: u64,
    /// Bytes written by its completed requests.
    pub write_bytes: u64,
    /// Its reads' latency.
    pub read_latency_ns: LatencySummary,
    /// Its writes' latency.
    pub write_latency_ns: LatencySummary,
    /// Requests refused because they end past the namespace (NVMe "LBA Out of Range");
    /// not performed, not in `requests`.
    pub errors_lba_out_of_range: u64,
    /// Its share of the host's written bytes.
    pub host_write_share: f64,
    /// Flash bytes programmed holding its logical pages (host data and its copies).
    #[serde(default)]
    pub media_write_bytes: u64,
    /// Its own write amplification: flash pages programmed holding its logical pages
    /// per host page it wrote.
    #[serde(default)]
    pub write_amplification: f64,
    /// Its contribution to the device's write amplification: flash pages programmed
    /// holding its logical pages per host page written by all namespaces. The
    /// contributions plus `namespace_overhead`'s sum to the device's
    /// `write_amplification`.
    pub write_amplification_contribution: f64,
}

/// The flash programs of a run with namespaces that hold no namespace's logical page:
/// translation (map) pages, a zone finish's padding, other metadata.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NamespaceOverhead {
    /// Flash bytes programmed.
    pub media_write_bytes: u64,
    /// Those pages per host page written: the device's write amplification less the
    /// namespaces' contributions.
    pub write_amplification_contribution: f64,
}

/// Where a run met the end of the drive's life: a result of an endurance experiment,
/// not an error (the design ran; its flash wore out).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EndOfLife {
    /// Requests completed before the drive could take no more writes.
    pub after_requests: u64,
    /// Host bytes written in the measured run until then.
    pub host_write_bytes: u64,
    /// Simulated time at that point.
    pub at_ns: u64,
    /// What the FTL reported (which plane ran out of spare blocks, how many were retired).
    pub reason: String,
}

/// Write-buffer figures, and write amplification split into the device's and the FTL's
/// (flattened into the report's top level, so the JSON keys are `buffer_write_hit_ratio`
/// and so on). Without a buffer the policy is `none`, the hit ratios 0, and the FTL
/// receives exactly the host's page writes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BufferReport {
    /// Write-buffer policy (`none` without a buffer).
    pub buffer_policy: String,
    /// DRAM the buffer holds, bytes.
    pub buffer_size_bytes: u64,
    /// Host page writes absorbed by the buffer (the page was already buffered) / host
    /// page writes.
    pub buffer_write_hit_ratio: f64,
    /// Host page reads served from the buffer / host page reads.
    pub buffer_read_hit_ratio: f64,
    /// Host page writes that hit.
    pub buffer_write_hit_pages: u64,
    /// Host page reads that hit.
    pub buffer_read_hit_pages: u64,
    /// Buffered pages written back to the FTL (evictions, host flushes, end-of-run flush).
    pub buffer_flushed_pages: u64,
    /// Of those, written back by the end-of-run flush.
    pub buffer_end_flush_pages: u64,
    /// Pages read from flash and written back to pad a victim block (BPLRU).
    pub buffer_padding_pages: u64,
    /// Host page writes that never reached flash, net of padding: host page writes −
    /// flushed − padding (negative when padding costs more programs than hits save).
    pub buffer_programs_saved: i64,
    /// Pages still buffered when the run ended (0 when the end-of-run flush is on).
    pub buffer_resident_pages: u64,
    /// Pages the FTL was asked to write (host page writes without a buffer; flushed +
    /// padding pages with one).
    pub ftl_write_pages: u64,
    /// FTL write amplification: flash programs / pages the FTL was asked to write.
    pub write_amplification_ftl: f64,
}

/// What the management-block probe inferred.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProbeReport {
    /// Inferred management-block size in bytes; absent when latency never jumped
    /// periodically (write-order placement, or a block no larger than the step), or
    /// when the jumps' most common spacing agrees with the slow writes too little
    /// (`confidence` below the threshold).
    pub mgmt_block_bytes: Option<u64>,
    /// The same as text, e.g. `1MiB`, or `none found`.
    pub mgmt_block: String,
    /// Most common spacing of the latency jumps, whatever its confidence.
    pub candidate_bytes: Option<u64>,
    /// How much more often than chance the slow writes straddle the candidate's
    /// boundaries (0 = as writes at random, 1 = every slow write; the share's 95 %
    /// lower bound, so few writes count for less); a size is named from
    /// `confidence_threshold` up.
    pub confidence: f64,
    /// The threshold ([`crate::workload::synth::probe::MIN_CONFIDENCE`]).
    pub confidence_threshold: f64,
    /// Median latency of the slow writes minus that of the others, ns.
    pub jump_ns: u64,
    /// Smallest jump taken for a management block
    /// ([`crate::workload::synth::probe::MIN_JUMP_NS`]).
    pub jump_threshold_ns: u64,
    /// Write size of the probe.
    pub size_bytes: u64,
    /// Offset step between writes.
    pub step_bytes: u64,
    /// Partitions probed.
    pub partitions: u32,
    /// Latency jumps found (over all partitions).
    pub onsets: u64,
    /// Fastest probe write, ns.
    pub latency_ns_min: u64,
    /// Slowest probe write, ns.
    pub latency_ns_max: u64,
    /// The writes split by the management block `workload.probe_block` names (absent
    /// when it names none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_test: Option<crate::workload::synth::probe::BlockTest>,
}

impl ProbeReport {
    /// The verdict for a text report: the size and its confidence, or why none was
    /// named.
    pub fn verdict(&self) -> String {
        match (self.mgmt_block_bytes, self.candidate_bytes) {
            (Some(_), _) => format!("{} (confidence {:.2})", self.mgmt_block, self.confidence),
            (None, Some(c)) if self.confidence >= self.confidence_threshold => format!(
                "none found: no management-block structure (the slow writes fall every {} at \
                 confidence {:.2} but cost only {:.2} µs more, less than any flash \
                 read-modify-write, {:.1} µs at least: the structure of memory or a cache)",
                crate::units::Size(c),
                self.confidence,
                self.jump_ns as f64 / 1e3,
                self.jump_threshold_ns as f64 / 1e3
            ),
            (None, Some(c)) => format!(
                "none found: no management-block structure (the jumps' most common spacing, \
                 {}, agrees with the slow writes at confidence {:.2}, below {})",
                crate::units::Size(c),
                self.confidence,
                self.confidence_threshold
            ),
            (None, None) => "none found: no management-block structure (latency never \
                             jumped periodically)"
                .into(),
        }
    }

    /// The report section for what [`crate::workload::synth::probe::infer`] found with
    /// writes of `size_bytes` every `step_bytes` over `partitions` partitions (the
    /// simulated `--workload probe` and `ssdlab probe --device` both report this way).
    pub fn new(
        r: &crate::workload::synth::probe::ProbeResult,
        size_bytes: u64,
        step_bytes: u64,
        partitions: u32,
    ) -> ProbeReport {
        use crate::units::Size;
        use crate::workload::synth::probe::{MIN_CONFIDENCE, MIN_JUMP_NS};
        ProbeReport {
            mgmt_block_bytes: r.mgmt_block_bytes,
            mgmt_block: r
                .mgmt_block_bytes
                .map_or_else(|| "none found".into(), |b| Size(b).to_string()),
            candidate_bytes: r.candidate_bytes,
            confidence: r.confidence,
            confidence_threshold: MIN_CONFIDENCE,
            jump_ns: r.jump_ns,
            jump_threshold_ns: MIN_JUMP_NS,
            size_bytes,
            step_bytes,
            partitions,
            onsets: r.onsets as u64,
            latency_ns_min: r.latency_ns_min,
            latency_ns_max: r.latency_ns_max,
            block_test: None,
        }
    }
}

/// Data behind the figures: kept out of the JSON to keep it small.
#[derive(Clone, Debug, Default)]
pub struct Figures {
    /// Latency CDF points (latency ns, cumulative fraction), one series per phase name.
    pub latency_cdf: Vec<(String, Vec<(f64, f64)>)>,
    /// Throughput over simulated time (seconds, MiB/s).
    pub throughput_series: Vec<(f64, f64)>,
    /// Erase count of every block.
    pub erase_counts: Vec<u32>,
    /// Probe: (offset in KiB, latency µs) per partition.
    pub probe_latency: Vec<(String, Vec<(f64, f64)>)>,
}

impl From<&crate::zns::ZoneDescriptor> for ZoneReport {
    fn from(d: &crate::zns::ZoneDescriptor) -> ZoneReport {
        ZoneReport {
            start_lba: d.start,
            capacity_blocks: d.capacity,
            write_pointer_lba: d.write_pointer,
            state: d.state.name().into(),
        }
    }
}
