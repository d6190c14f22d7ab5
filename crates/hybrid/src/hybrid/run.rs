//! Runs a workload against a hybrid store (or the HDD alone) and reports each run —
//! cold, warm, … — on its own.
//!
//! Desktop workloads run at queue depth 1 with host think time: each request is issued
//! its think time after the previous one completes, so a run's elapsed time is what a
//! user waits for (the paper's boot, launch and load times); the read mix runs the same
//! way with no think time (requests back to back). Traces run open-loop at
//! their arrival times and generators closed-loop, both with up to `host.qd` requests
//! outstanding; the HDD serves its commands in order, the flash SSD overlaps as its
//! timing model allows. With `workload.idle_ns` the host idles that long before each
//! run after the first (the devices finish their pending work meanwhile).

use super::config::{HybridConfig, WorkloadKind};
use super::hdd::HddStats;
use super::store::{HybridStore, StoreStats};
use super::workload::{self, Step};
use crate::config::Config;
use crate::ftl::FtlKind;
use crate::host::SimError;
use crate::host::{Arrivals, Dispatched, HostQueue, QueuedCommand, Target};
use crate::report::latency::{new_latency_histogram, summarize};
use crate::report::{EraseSummary, LatencySummary};
use crate::sim::{build_workload, erase_summary};
use crate::workload::{IoRequest, OpKind, RequestStream};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Flash-side counters of one run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlashPhase {
    /// Pages read from NAND (all causes).
    pub read_pages: u64,
    /// Pages programmed (all causes).
    pub program_pages: u64,
    /// Pages copied by GC.
    pub gc_copy_pages: u64,
    /// Blocks erased.
    pub erases: u64,
    /// Programs per page the cache wrote (fills and host writes).
    pub write_amplification: f64,
}

/// Results of one run of a workload.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// `cold`, `warm`, … (with the generator's phase name for multi-phase generators).
    pub name: String,
    /// Requests completed.
    pub requests: u64,
    /// Read requests.
    pub read_requests: u64,
    /// Write requests.
    pub write_requests: u64,
    /// Bytes read by the host.
    pub read_bytes: u64,
    /// Bytes written by the host.
    pub write_bytes: u64,
    /// Simulated time from the run's start to its last completion, seconds.
    pub elapsed_s: f64,
    /// Host think time inside it, seconds (desktop workloads).
    pub think_s: f64,
    /// Request latency (arrival to completion, queueing included), ns.
    pub latency_ns: LatencySummary,
    /// Share of read units served by flash.
    pub hit_ratio: f64,
    /// Cache counters of the run.
    pub cache: StoreStats,
    /// Mean comparisons per table lookup.
    pub comparisons_per_lookup: f64,
    /// Mean wall-clock time of a table lookup, ns.
    pub lookup_wall_ns_mean: f64,
    /// Disk counters of the run.
    pub hdd: HddStats,
    /// Flash counters of the run (with a cache).
    pub flash: Option<FlashPhase>,
}

/// A finished hybrid run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HybridReport {
    /// Version of the simulator.
    pub ssdlab_version: String,
    /// The configuration, echoed.
    pub config: serde_json::Value,
    /// Workload name.
    pub workload: String,
    /// Whether a flash cache was in front of the disk.
    pub cached: bool,
    /// One entry per run.
    pub runs: Vec<RunReport>,
    /// Records in the cache control table at the end.
    pub records: u64,
    /// Memory of the table at the end, bytes.
    pub table_bytes: u64,
    /// Cached data at the end, bytes.
    pub cached_bytes: u64,
    /// Erase counts of the cache SSD's blocks.
    pub flash_erase_count: Option<EraseSummary>,
    /// Notes on how the run was set up.
    pub notes: Vec<String>,
    /// Warnings (e.g. from the trace reader).
    pub warnings: Vec<String>,
    /// Wall-clock time of the whole run, seconds.
    pub wall_clock_s: f64,
}

impl HybridReport {
    /// The run called `name`.
    pub fn run(&self, name: &str) -> Option<&RunReport> {
        self.runs.iter().find(|r| r.name == name)
    }
}

/// Accumulates one run.
struct Acc {
    name: String,
    start_ns: u64,
    end_ns: u64,
    think_ns: u64,
    lat: Histogram<u64>,
    requests: u64,
    reads: u64,
    writes: u64,
    read_bytes: u64,
    write_bytes: u64,
    store: StoreStats,
    hdd: HddStats,
    nand: Option<crate::nand::NandCounters>,
}

impl Acc {
    fn new(name: String, start_ns: u64, s: &mut HybridStore) -> Acc {
        s.reset_max();
        Acc {
            name,
            start_ns,
            end_ns: start_ns,
            think_ns: 0,
            lat: new_latency_histogram(),
            requests: 0,
            reads: 0,
            writes: 0,
            read_bytes: 0,
            write_bytes: 0,
            store: *s.stats(),
            hdd: *s.hdd().stats(),
            nand: s.flash().map(|d| *d.nand.counters()),
        }
    }

    fn record(&mut self, req: &IoRequest, arrival_ns: u64, done_ns: u64) {
        self.lat.saturating_record((done_ns - arrival_ns).max(1));
        self.requests += 1;
        match req.op {
            OpKind::Read => {
                self.reads += 1;
                self.read_bytes += req.size_bytes;
            }
            OpKind::Write => {
                self.writes += 1;
                self.write_bytes += req.size_bytes;
            }
            _ => {}
        }
        self.end_ns = self.end_ns.max(done_ns);
    }

    fn finish(self, s: &HybridStore) -> RunReport {
        let cache = s.stats().since(&self.store);
        let flash = match (self.nand, s.flash()) {
            (Some(before), Some(d)) => {
                let n = d.nand.counters().since(&before);
                let host_pages = (cache.fill_units + cache.write_flash_units) * s.unit_bytes()
                    / d.resolved.geometry.page_size_bytes as u64;
                Some(FlashPhase {
                    read_pages: n.total_reads(),
                    program_pages: n.total_programs(),
                    gc_copy_pages: n.copies.iter().sum(),
                    erases: n.total_erases(),
                    write_amplification: if host_pages == 0 {
                        0.0
                    } else {
                        n.total_programs() as f64 / host_pages as f64
                    },
                })
            }
            _ => None,
        };
        let per = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        RunReport {
            name: self.name,
            requests: self.requests,
            read_requests: self.reads,
            write_requests: self.writes,
            read_bytes: self.read_bytes,
            write_bytes: self.write_bytes,
            elapsed_s: (self.end_ns - self.start_ns) as f64 / 1e9,
            think_s: self.think_ns as f64 / 1e9,
            latency_ns: summarize(&self.lat),
            hit_ratio: per(cache.hit_units, cache.read_units),
            comparisons_per_lookup: per(cache.lookup_comparisons, cache.lookups),
            lookup_wall_ns_mean: per(cache.lookup_wall_ns, cache.lookups),
            cache,
            hdd: s.hdd().stats().since(&self.hdd),
            flash,
        }
    }
}

/// The store as a [`Target`] of the host queue: it performs each command as soon as it
/// is dispatched (the HDD serves its commands in order, the flash SSD overlaps as its
/// timing model allows).
struct StoreTarget<'a> {
    store: &'a mut HybridStore,
    waiting: Option<QueuedCommand>,
}

impl Target for StoreTarget<'_> {
    fn queue(&mut self, req: &IoRequest, arrival_ns: u64, issue_ns: u64) -> Result<(), SimError> {
        debug_assert!(
            self.waiting.is_none(),
            "dispatched before the next is queued"
        );
        self.waiting = Some(QueuedCommand {
            req: *req,
            arrival_ns,
            issue_ns,
            first_lpn: 0,
            pages: 0,
        });
        Ok(())
    }

    fn dispatch(&mut self) -> Result<Option<Dispatched>, SimError> {
        let Some(cmd) = self.waiting.take() else {
            return Ok(None);
        };
        let done_ns = self.store.submit(&cmd.req, cmd.issue_ns)?;
        Ok(Some(Dispatched {
            cmd,
            dispatch_ns: cmd.issue_ns,
            done_ns,
            append_lba: None,
        }))
    }

    fn queued(&self) -> usize {
        self.waiting.is_some() as usize
    }

    fn oldest_issue_ns(&self) -> Option<u64> {
        self.waiting.map(|c| c.issue_ns)
    }

    fn free_ns(&self) -> u64 {
        0
    }
}

/// Runs `requests` against the store through the host queue; returns when the last
/// completes. Latency runs from arrival to completion, as in every ssdlab run.
fn run_requests(
    s: &mut HybridStore,
    requests: RequestStream,
    arrivals: Arrivals,
    qd: usize,
    acc: &mut Acc,
    start: u64,
) -> Result<u64, SimError> {
    let host = HostQueue::new(requests, arrivals, start, qd);
    let mut target = StoreTarget {
        store: s,
        waiting: None,
    };
    host.run(&mut target, |d| {
        acc.record(&d.cmd.req, d.cmd.arrival_ns, d.done_ns)
    })?;
    Ok(acc.end_ns)
}

/// Runs desktop steps at queue depth 1, each issued its think time after the previous
/// one completed.
fn run_steps(
    s: &mut HybridStore,
    steps: &[Step],
    acc: &mut Acc,
    now: u64,
) -> Result<u64, SimError> {
    acc.think_ns += steps.iter().map(|st| st.think_ns).sum::<u64>();
    // With think-time arrivals a request's `arrival_ns` is the think time before it.
    let requests: Vec<_> = steps
        .iter()
        .map(|st| {
            Ok(IoRequest {
                arrival_ns: st.think_ns,
                ..st.req
            })
        })
        .collect();
    run_requests(
        s,
        Box::new(requests.into_iter()),
        Arrivals::Think,
        1,
        acc,
        now,
    )
}

/// The label of a configuration: `hdd` alone or `cache SIZE POLICY TABLE[+hint]`.
pub fn design_label(cfg: &HybridConfig) -> String {
    if cfg.cache.size.bytes() == 0 {
        "hdd".into()
    } else {
        format!(
            "cache {} {} {}{}",
            cfg.cache.size,
            cfg.cache.write_policy.name(),
            cfg.cache.table.name(),
            if cfg.cache.hint { "+hint" } else { "" }
        )
    }
}

/// The workload's name in reports.
pub fn workload_label(cfg: &HybridConfig) -> String {
    if let Some(p) = &cfg.trace.path {
        format!("trace {}", p.display())
    } else {
        match cfg.workload.kind.desktop() {
            Some(w) => w.name().into(),
            None if cfg.workload.kind == WorkloadKind::ReadMix => "read-mix".into(),
            None => cfg.generator.kind.name().into(),
        }
    }
}

/// Runs the workload `cfg` describes.
pub fn run(cfg: &HybridConfig) -> Result<HybridReport, SimError> {
    cfg.validate()?;
    let wall = std::time::Instant::now();
    let flash = cfg.flash.to_config(cfg.seed);
    let cache = (cfg.cache.size.bytes() > 0).then_some((&cfg.cache, &flash));
    let mut store = HybridStore::new(&cfg.hdd, cache)?;
    let mut notes = Vec::new();
    let mut warnings = Vec::new();
    let mut reports = Vec::new();
    let mut now = 0u64;
    let runs = cfg.workload.runs;
    let desktop = if cfg.trace.path.is_some() {
        None
    } else {
        cfg.workload.kind.desktop()
    };
    // The host idles `workload.idle_ns` before every run after the first.
    let idle = |i: u32, now: u64| {
        if i == 0 {
            now
        } else {
            now + cfg.workload.idle_ns
        }
    };
    if let Some(w) = desktop {
        if w.end_bytes() > store.capacity_bytes() {
            return Err(SimError::Config(format!(
                "workload {} uses the first {} GiB of the disk; hdd.capacity is {} bytes",
                w.name(),
                w.end_bytes() >> 30,
                store.capacity_bytes()
            )));
        }
        for (i, r) in (0..).zip(workload::build(w, runs, cfg.seed)) {
            now = idle(i, now);
            let mut acc = Acc::new(r.name.clone(), now, &mut store);
            now = run_steps(&mut store, &r.steps, &mut acc, now)?;
            reports.push(acc.finish(&store));
        }
        notes.push("queue depth 1 with host think time between requests".into());
    } else if cfg.trace.path.is_none() && cfg.workload.kind == WorkloadKind::ReadMix {
        let m = cfg.read_mix.mix();
        if m.region.end > store.capacity_bytes() {
            return Err(SimError::Config(format!(
                "read_mix.region_start + read_mix.region_size = {} bytes: beyond the disk \
                 (hdd.capacity is {} bytes)",
                m.region.end,
                store.capacity_bytes()
            )));
        }
        // Every run reads the same stream, as a repeated boot or launch reads the same
        // data.
        let steps = workload::read_mix(&m, cfg.seed);
        for i in 0..runs {
            now = idle(i, now);
            let mut acc = Acc::new(workload::run_name(i), now, &mut store);
            now = run_steps(&mut store, &steps, &mut acc, now)?;
            reports.push(acc.finish(&store));
        }
        notes.push("queue depth 1, requests back to back".into());
    } else {
        debug_assert!(cfg.trace.path.is_some() || cfg.workload.kind == WorkloadKind::Generator);
        let sim_cfg = Config {
            seed: cfg.seed,
            workload: cfg.generator.clone(),
            trace: cfg.trace.clone(),
            ..Config::default()
        };
        for i in 0..runs {
            now = idle(i, now);
            let (phases, w) = build_workload(&sim_cfg, store.capacity_bytes())?;
            let many = phases.len() > 1;
            for phase in phases {
                if phase.streams.is_some() {
                    // The store serves one command at a time (StoreTarget).
                    return Err(SimError::Config(
                        "workload.stream_loop = per-stream: expected shared with a hybrid \
                         store, which serves one command at a time"
                            .into(),
                    ));
                }
                let name = if many {
                    format!("{}/{}", workload::run_name(i), phase.name)
                } else {
                    workload::run_name(i)
                };
                let mut acc = Acc::new(name, now, &mut store);
                let arrivals = if phase.open_loop {
                    Arrivals::Open {
                        speedup: cfg.host.speedup,
                    }
                } else {
                    Arrivals::Closed
                };
                now = run_requests(
                    &mut store,
                    phase.requests,
                    arrivals,
                    cfg.host.qd as usize,
                    &mut acc,
                    now,
                )?;
                reports.push(acc.finish(&store));
            }
            if let Some(w) = w
                && i == 0
            {
                warnings.extend(w.snapshot());
            }
        }
        notes.push(format!("queue depth {}", cfg.host.qd));
    }
    if store.flash().is_some() {
        notes.push(format!(
            "flash cache: {} on SSD preset {} with FTL {}",
            cfg.cache.size,
            cfg.flash.device.preset,
            FtlKind::all()
                .iter()
                .find(|(k, _, _)| *k == cfg.flash.ftl.name)
                .map_or("?", |(_, n, _)| *n)
        ));
    }
    let config = serde_json::to_value(cfg).expect("config serializes");
    Ok(HybridReport {
        ssdlab_version: env!("CARGO_PKG_VERSION").into(),
        config,
        workload: workload_label(cfg),
        cached: store.flash().is_some(),
        runs: reports,
        records: store.records() as u64,
        table_bytes: store.table_bytes(),
        cached_bytes: store.cached_units() * store.unit_bytes(),
        flash_erase_count: store.flash().map(|d| erase_summary(&d.nand.erase_counts())),
        notes,
        warnings,
        wall_clock_s: wall.elapsed().as_secs_f64(),
    })
}
