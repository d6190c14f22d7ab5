//! `ssdlab reproduce ncq-buffer` — the NCQ-aware write buffer (Heo, KIISE slides on
//! S. Kim and T. Kim's QLRU; docs/papers.md §2): LRU vs QLRU hit ratios, every other policy
//! beside them.
//!
//! ```text
//! setup   page-mapping FTL, empty flash and buffer, write commands only, SATA-speed host
//!         link (NCQ is SATA's), default TLC device otherwise, full timing
//! 1 grid      Iometer-like random writes (4–64 KiB over a 1 GiB test region, closed loop:
//!             the queue always holds `qd` commands): buffer 32–512 MiB × queue length
//!             32–512, LRU and QLRU; the other policies once per buffer size
//! 2 arrivals  the same writes arriving open loop (Poisson) with a mean gap from "faster
//!             than the device" to "slower than the device": the queue holds less and less
//! 3 workloads OLTP-like and compile-like stand-ins, every policy and no buffer (latency
//!             with and without the buffer, device vs FTL write amplification)
//! 4 traces    the OLTP traces in ../shared/traces/spc-ascii/ when present (writes only)
//! ```
//! The paper's numbers appear only in the summary text, beside ours.

use super::claims::{self, Claim, Claims, Sensitivity};
use super::mgmt_block::{Parameter, parameters_section};
use super::{Ctx, ExpError, Experiment, fmt_f, md_table};
use crate::buffer::BufferKind;
use crate::config::{Config, Precondition, TimingMode};
use crate::ftl::FtlKind;
use crate::report::Report;
use crate::report::svg::{bar_chart_svg, line_chart_svg};
use crate::units::Size;
use crate::workload::synth::SynthKind;
use crate::workload::trace::{FitPolicy, TraceFormat};
use std::path::PathBuf;

/// The experiment.
pub struct NcqBuffer;

const MIB: u64 = 1 << 20;

/// Where the real OLTP traces live inside the trace-sample directory (never required).
pub(crate) const TRACE_DIR: &str = "spc-ascii";
pub(crate) const TRACES: [&str; 2] = ["financial1-head10k.ascii", "tpcc-small.ascii"];

/// Sizes of one run of the experiment (full or quick).
struct Plan {
    capacity: u64,
    grid_buffers_mib: &'static [u64],
    grid_qds: &'static [u32],
    grid_span: u64,
    grid_requests: u64,
    gaps_us: &'static [u64],
    gap_requests: u64,
    work_span: u64,
    work_requests: u64,
    work_buffer_mib: u64,
    work_qds: &'static [u32],
}

const FULL: Plan = Plan {
    capacity: 16 << 30,
    grid_buffers_mib: &[32, 64, 128, 256, 512],
    grid_qds: &[32, 64, 128, 256, 512],
    grid_span: 1 << 30,
    grid_requests: 150_000,
    gaps_us: &[25, 50, 75, 100, 150, 200, 400, 800],
    gap_requests: 60_000,
    work_span: 8 << 30,
    work_requests: 300_000,
    // [`WORK_BUFFER_RULE`].
    work_buffer_mib: 32,
    work_qds: &[32, 512],
};

const QUICK: Plan = Plan {
    capacity: 16 << 30,
    grid_buffers_mib: &[8, 16, 32],
    grid_qds: &[32, 128, 512],
    grid_span: 256 << 20,
    grid_requests: 20_000,
    gaps_us: &[25, 100, 400],
    gap_requests: 10_000,
    work_span: 1 << 30,
    work_requests: 30_000,
    // The same rule on the quick grid (8–32 MiB): its smallest buffer, a quarter of the
    // full run's, as the grid's 8 MiB is of 32 MiB.
    work_buffer_mib: 8,
    work_qds: &[32, 512],
};

/// How the OLTP and compile runs' buffer is sized. The slides give no size for them
/// (slide 15); their grid's buffers span 32–512 MB (slide 12), and the claims registry's
/// EXP-N3 varies 32, 128 and 512 MB. The default is the smallest size of the paper's
/// own grid, which is also the DRAM of a mainstream SATA SSD of the slides' time (Intel
/// X25-M G2: 32 MB). Until this version the runs used 128 MiB, the size the buffer
/// sweep showed N6 holding at after it failed at 32 MiB; rule 0.6 of the registry
/// forbids that, so the sweep ([`compile_sensitivity`]) still runs but never sets this.
const WORK_BUFFER_RULE: &str = "the smallest buffer of the paper's grid (slide 12: 32–512 MB; \
     quick: of the quick grid, 8–32 MiB), also the 32 MB DRAM of an Intel X25-M G2";

fn plan(ctx: &Ctx) -> &'static Plan {
    if ctx.quick { &QUICK } else { &FULL }
}

/// The common device: the default preset's TLC drive, empty, page FTL, SATA link.
fn base(ctx: &Ctx, p: &Plan) -> Result<Config, ExpError> {
    let mut c = Config::load(Some("default"), None).map_err(|e| ExpError::Other(e.to_string()))?;
    c.seed = ctx.seed;
    c.precondition = Precondition::None;
    c.device.capacity = Size(p.capacity);
    // NCQ is SATA's: a 600 MB/s link (SATA 3) instead of the preset's NVMe link.
    c.device.host_link_mb_s = 600.0;
    c.ftl.name = FtlKind::Page;
    c.timing.mode = TimingMode::Full;
    // Padding changes no hit ratio; on a page-mapping FTL it only adds programs (up to a
    // whole 256-page block per victim), which would dominate the run time.
    c.buffer.bplru_padding = false;
    Ok(c)
}

fn with_buffer(mut c: Config, policy: BufferKind, mib: u64, qd: u32) -> Config {
    c.buffer.name = policy;
    c.buffer.size = Some(Size(mib * MIB));
    c.host.qd = qd;
    c
}

/// Iometer-like access specification: 100% writes, 100% random, 4–64 KiB transfers.
fn iometer(mut c: Config, span: u64, requests: u64) -> Config {
    c.workload.kind = SynthKind::RandomWrite;
    c.workload.size = Size(4096);
    c.workload.size_max = Some(Size(64 << 10));
    c.workload.align = Size(4096);
    c.workload.span = Some(Size(span));
    c.workload.requests = Some(requests);
    c
}

fn hit(r: &Report) -> f64 {
    r.buffer.buffer_write_hit_ratio * 100.0
}

/// Requests outstanding on average (arrived, not yet completed: waiting at the host for
/// a queue tag, waiting in the device queue, or executing), by Little's law.
fn mean_queue(r: &Report) -> f64 {
    r.iops * r.latency_ns.mean / 1e9
}

/// Policies other than LRU and QLRU, in registry order.
fn others() -> Vec<BufferKind> {
    BufferKind::policies()
        .filter(|k| !matches!(k, BufferKind::Lru | BufferKind::Qlru))
        .collect()
}

/// This reproduction's [`Parameter`]s.
fn parameters(p: &Plan) -> Vec<Parameter> {
    let list = |v: &[u32]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    vec![
        Parameter::new(
            "device",
            format!(
                "default preset (TLC, 8 channels × 4 chips × 2 dies × 2 planes), {}",
                Size(p.capacity)
            ),
            "not in the slides, which give no device; the simulator's default drive",
        ),
        Parameter::new(
            "host link",
            "600 MB/s",
            "SATA 6 Gb/s: NCQ is SATA's (registry EXP-N3)",
        ),
        Parameter::new(
            "FTL, state",
            "page mapping, flash and buffer empty",
            "the slides' setup",
        ),
        Parameter::new(
            "grid requests",
            "random writes, 4–64 KiB",
            "Iometer-like; the slides give no access specification",
        ),
        Parameter::new(
            "grid region",
            Size(p.grid_span),
            "the smallest region of the registry's EXP-N1 (1, 4, 16 GB; quick: a quarter)",
        ),
        Parameter::new(
            "workload span, requests",
            format!("{}, {}", Size(p.work_span), p.work_requests),
            "the OLTP and compile generators' run (docs/buffer.md)",
        ),
        Parameter::new(
            "workload queue lengths",
            list(p.work_qds),
            "both ends of the slides' 32–512",
        ),
        Parameter::new(
            "work_buffer_mib",
            format!("{} MiB", p.work_buffer_mib),
            "the smallest buffer of the paper's grid (slide 12; quick: of the quick grid); \
             was 128 MiB, where the sweep showed N6 holding",
        ),
        Parameter::new(
            "buffer.bplru_padding",
            "false",
            "padding changes no hit ratio and only adds programs on a page-mapping FTL",
        ),
    ]
}

impl Experiment for NcqBuffer {
    fn name(&self) -> &'static str {
        "ncq-buffer"
    }

    fn about(&self) -> &'static str {
        "Heo / Kim & Kim (QLRU): NCQ-aware write buffer, buffer size × queue length, inter-arrival time, OLTP and compile workloads"
    }

    fn run(&self, ctx: &mut Ctx) -> Result<(), ExpError> {
        let p = plan(ctx);
        let mut intro = String::new();
        intro.push_str(&format!(
            "Reproduction of the NCQ-aware write buffer study (docs/papers.md §2: Heo's slides on S. Kim \
             and T. Kim's QLRU). Setup as in the paper: page-mapping FTL, flash and buffer empty \
             at the start, write commands only. The device is the default preset's TLC drive \
             ({} logical, 8 channels × 4 chips × 2 dies × 2 planes, t_PROG 700 µs) behind a \
             600 MB/s SATA link, full timing model; the buffer copies 4 KiB pages at 3.2 GB/s. \
             QLRU keeps every buffered page that a command waiting in the queue will write \
             (docs/buffer.md). Hit ratio = host page writes that found the page buffered / host \
             page writes.\n\n",
            Size(p.capacity)
        ));
        if ctx.quick {
            intro.push_str(
                "**Quick mode:** buffers of 8–32 MiB over a 256 MiB region and short runs, a \
                 scaled-down version of the paper's 32–512 MiB grid; trends only.\n\n",
            );
        }
        let mut md = String::new();
        let mut cl = Claims::default();
        let mut verdicts = Vec::new();
        grid_section(ctx, p, &mut md, &mut verdicts)?;
        arrival_section(ctx, p, &mut md, &mut verdicts)?;
        let gains = workload_section(ctx, p, &mut md, &mut verdicts)?;
        // The checks in the order the sections pushed them, as the paper states them.
        let paper = [
            ("N1", "§2 results", "QLRU ≥ LRU in most settings"),
            (
                "N2",
                "§2 buffer × queue",
                "longer queues reveal more future references",
            ),
            (
                "N3",
                "§2 inter-arrival",
                "the gain shrinks when the queue holds little",
            ),
            (
                "N4",
                "§2 OLTP, compile",
                "QLRU ≥ LRU on OLTP and kernel compile",
            ),
            (
                "N5",
                "§2 motivation",
                "the buffer absorbs writes and cuts flash writes",
            ),
        ];
        for ((id, fig, text), (what, holds)) in paper.iter().zip(&verdicts) {
            cl.push(Claim::new(
                id,
                fig,
                *text,
                if *holds { "as tested" } else { "not as tested" },
                what.clone(),
                *holds,
            ));
        }
        workload_claims(&mut cl, &gains);
        ncq_on_off(ctx, p, &mut md, &mut cl)?;
        compile_sensitivity(ctx, p, &mut cl, &gains)?;
        trace_section(ctx, &mut md)?;
        md.push_str("## Checks\n\n");
        for (what, holds) in &verdicts {
            md.push_str(&format!(
                "- {what}: {}\n",
                if *holds { "holds" } else { "**does not hold**" }
            ));
        }
        intro.push_str(&parameters_section(ctx, &parameters(p)));
        claims::finish(ctx, &cl, "NCQ-aware write buffer (QLRU)", &intro, &md);
        Ok(())
    }
}

fn grid_section(
    ctx: &mut Ctx,
    p: &Plan,
    md: &mut String,
    verdicts: &mut Vec<(String, bool)>,
) -> Result<(), ExpError> {
    let base = iometer(base(ctx, p)?, p.grid_span, p.grid_requests);
    let mut runs = Vec::new();
    let mut keys = Vec::new();
    for &mib in p.grid_buffers_mib {
        for &qd in p.grid_qds {
            for policy in [BufferKind::Lru, BufferKind::Qlru] {
                keys.push((mib, qd, policy));
                runs.push((
                    format!("grid {mib} MiB qd {qd} {}", policy.name()),
                    with_buffer(base.clone(), policy, mib, qd),
                ));
            }
        }
        // The other policies ignore the queue and FIFO dispatch keeps the command order,
        // so their hit ratio does not depend on queue length: one run per buffer size.
        for policy in others() {
            let qd = p.grid_qds[0];
            keys.push((mib, qd, policy));
            runs.push((
                format!("grid {mib} MiB qd {qd} {}", policy.name()),
                with_buffer(base.clone(), policy, mib, qd),
            ));
        }
    }
    let outs = ctx.run_all(&runs)?;
    let find = |mib: u64, qd: u32, policy: BufferKind| -> &Report {
        let i = keys
            .iter()
            .position(|&k| k == (mib, qd, policy))
            .expect("run exists");
        &outs[i].report
    };
    let mut rows = Vec::new();
    for (&(mib, qd, policy), out) in keys.iter().zip(&outs) {
        let r = &out.report;
        rows.push(vec![
            mib.to_string(),
            qd.to_string(),
            policy.name().to_string(),
            fmt_f(hit(r), 3),
            fmt_f(r.write_amplification, 3),
            fmt_f(r.iops, 0),
            fmt_f(r.latency_ns.p50 as f64 / 1e3, 1),
            fmt_f(r.latency_ns.p99 as f64 / 1e3, 1),
            r.buffer.buffer_programs_saved.to_string(),
        ]);
    }
    let header = [
        "buffer_mib",
        "qd",
        "policy",
        "write_hit_ratio_percent",
        "device_wa",
        "iops",
        "latency_p50_us",
        "latency_p99_us",
        "programs_saved",
    ];
    ctx.csv("grid", &header, rows);

    // Gain table and figure.
    let mut table = Vec::new();
    let mut gain_series = Vec::new();
    let mut all_ge = true;
    let mut grows = true;
    let mut lru_flat = true;
    for &mib in p.grid_buffers_mib {
        let mut row = vec![format!("{mib} MiB")];
        let mut pts = Vec::new();
        let mut prev_gain = f64::NEG_INFINITY;
        let lru0 = hit(find(mib, p.grid_qds[0], BufferKind::Lru));
        for &qd in p.grid_qds {
            let l = hit(find(mib, qd, BufferKind::Lru));
            let q = hit(find(mib, qd, BufferKind::Qlru));
            let g = q - l;
            all_ge &= q >= l;
            // Tolerance of 0.01 points: the same requests, so differences below it are
            // single hits.
            grows &= g >= prev_gain - 0.01;
            lru_flat &= (l - lru0).abs() < 1e-9;
            prev_gain = g;
            row.push(format!(
                "{} → {} (+{})",
                fmt_f(l, 2),
                fmt_f(q, 2),
                fmt_f(g, 2)
            ));
            pts.push((qd as f64, g));
        }
        table.push(row);
        gain_series.push((format!("{mib} MiB buffer"), pts));
    }
    ctx.svg(
        "gain_vs_qd",
        line_chart_svg(
            "QLRU − LRU write hit ratio vs NCQ queue length (Iometer-like random writes)",
            "queue length (commands)",
            "hit-ratio gain (percentage points)",
            &gain_series,
            true,
        ),
    );
    let mut hr_series = Vec::new();
    for policy in [BufferKind::Lru, BufferKind::Qlru] {
        for &qd in [p.grid_qds[0], *p.grid_qds.last().expect("non-empty")].iter() {
            let pts = p
                .grid_buffers_mib
                .iter()
                .map(|&mib| (mib as f64, hit(find(mib, qd, policy))))
                .collect();
            hr_series.push((format!("{} qd {qd}", policy.name()), pts));
        }
    }
    ctx.svg(
        "hit_ratio_vs_buffer",
        line_chart_svg(
            "Write hit ratio vs buffer size",
            "buffer (MiB)",
            "write hit ratio (%)",
            &hr_series,
            true,
        ),
    );
    let cats: Vec<String> = p
        .grid_buffers_mib
        .iter()
        .map(|m| format!("{m} MiB"))
        .collect();
    let qd0 = p.grid_qds[0];
    let qd_max = *p.grid_qds.last().expect("non-empty");
    let mut pol_series: Vec<(String, Vec<f64>)> = BufferKind::policies()
        .map(|k| {
            let qd = if k == BufferKind::Qlru { qd_max } else { qd0 };
            (
                format!(
                    "{}{}",
                    k.name(),
                    if k == BufferKind::Qlru {
                        format!(" (qd {qd})")
                    } else {
                        String::new()
                    }
                ),
                p.grid_buffers_mib
                    .iter()
                    .map(|&mib| hit(find(mib, qd, k)))
                    .collect(),
            )
        })
        .collect();
    pol_series.sort_by(|a, b| a.0.cmp(&b.0));
    ctx.svg(
        "policies_grid",
        bar_chart_svg(
            "Write hit ratio of every policy (Iometer-like random writes)",
            "write hit ratio (%)",
            &cats,
            &pol_series,
            false,
        ),
    );

    md.push_str("## 1. Buffer size × queue length\n\n");
    md.push_str(&format!(
        "Iometer-like access specification: 100% writes, 100% random, transfer sizes uniform \
         in 4–64 KiB (4 KiB steps, mean 34 KiB), over a {} test region, {} requests per run, \
         closed loop with as many outstanding I/Os as the queue length (Iometer's setting), \
         so the queue is always full. Cells: LRU → QLRU write hit ratio (%), gain in \
         percentage points. Figures: `gain_vs_qd.svg` (the summary figure), \
         `hit_ratio_vs_buffer.svg`, `policies_grid.svg`; table: `grid.csv`.\n\n",
        Size(p.grid_span),
        p.grid_requests
    ));
    let mut h = vec!["buffer".to_string()];
    h.extend(p.grid_qds.iter().map(|q| format!("qd {q}")));
    let h: Vec<&str> = h.iter().map(String::as_str).collect();
    md.push_str(&md_table(&h, &table));
    md.push_str(&format!(
        "\nEvery other policy, at qd {qd0} (they ignore the queue, and FIFO dispatch gives \
         them the same command order at every queue length, as it gives LRU — whose row is \
         identical across queue lengths: {}):\n\n",
        if lru_flat { "it is" } else { "**it is not**" }
    ));
    let mut ph = vec!["policy".to_string()];
    ph.extend(cats.iter().cloned());
    let ph: Vec<&str> = ph.iter().map(String::as_str).collect();
    let prow: Vec<Vec<String>> = BufferKind::policies()
        .filter(|&k| k != BufferKind::Qlru)
        .map(|k| {
            let mut r = vec![k.name().to_string()];
            r.extend(
                p.grid_buffers_mib
                    .iter()
                    .map(|&mib| fmt_f(hit(find(mib, qd0, k)), 2)),
            );
            r
        })
        .collect();
    md.push_str(&md_table(&ph, &prow));
    md.push_str(
        "\n**Paper:** QLRU ≥ LRU \"in most settings\", the gain growing with the queue length \
         (longer queues reveal more future references); the slides' criticism page puts the \
         largest gain at 7.3 points. The grid's figures themselves are not in the text we \
         have, so only the trend can be compared.\n\n\
         **Ours:** the gain grows with queue length at every buffer size and shrinks as the \
         buffer grows. Under uniform random writes a page is rewritten on average once per \
         test-region's worth of writes; LRU keeps it only if that happens within a buffer's \
         worth. A waiting command that rewrites a buffered page near the LRU end turns a \
         sure miss into a hit under QLRU, so the gain scales with the pages the queue holds \
         (queue length × request size) relative to the test region, and it matters less as \
         the buffer grows because more of those pages would have stayed anyway (the IJFCC \
         paper's point that the benefit depends on the ratio of buffer size to queue length). \
         The other policies' differences come from granularity: block-granular policies \
         (FAB, CLC, BPLRU, ExLRU) evict whole logical blocks of 256 pages, which under \
         random writes hold few buffered pages each, so they mostly behave like LRU at \
         coarser grain; LFU and BPAC exploit no frequency here because uniform writes have \
         none.\n\n",
    );
    verdicts.push((
        "QLRU ≥ LRU in every cell of the buffer × queue-length grid".into(),
        all_ge,
    ));
    verdicts.push((
        "the QLRU gain grows (never shrinks by more than 0.01 points) with queue length at every buffer size".into(),
        grows,
    ));
    Ok(())
}

fn arrival_section(
    ctx: &mut Ctx,
    p: &Plan,
    md: &mut String,
    verdicts: &mut Vec<(String, bool)>,
) -> Result<(), ExpError> {
    let mib = p.grid_buffers_mib[0];
    let qd = *p.grid_qds.last().expect("non-empty");
    let base = iometer(base(ctx, p)?, p.grid_span, p.gap_requests);
    let mut runs = Vec::new();
    let mut keys = Vec::new();
    // Gap 0 = closed loop (the grid's setting), then open loop with rising mean gaps.
    for gap in std::iter::once(0).chain(p.gaps_us.iter().copied()) {
        for policy in [BufferKind::Lru, BufferKind::Qlru] {
            let mut c = with_buffer(base.clone(), policy, mib, qd);
            c.workload.mean_gap_ns = (gap > 0).then_some(gap * 1000);
            keys.push((gap, policy));
            runs.push((format!("arrivals gap {gap} us {}", policy.name()), c));
        }
    }
    let outs = ctx.run_all(&runs)?;
    let get = |gap: u64, policy: BufferKind| -> &Report {
        let i = keys
            .iter()
            .position(|&k| k == (gap, policy))
            .expect("run exists");
        &outs[i].report
    };
    let mut rows = Vec::new();
    let mut table = Vec::new();
    let mut gain_pts = Vec::new();
    let mut queue_pts = Vec::new();
    let mut shrinks = true;
    let mut prev = f64::INFINITY;
    for gap in std::iter::once(0).chain(p.gaps_us.iter().copied()) {
        let l = get(gap, BufferKind::Lru);
        let q = get(gap, BufferKind::Qlru);
        let g = hit(q) - hit(l);
        shrinks &= g <= prev + 0.01;
        prev = g;
        for (policy, r) in [("lru", l), ("qlru", q)] {
            rows.push(vec![
                gap.to_string(),
                policy.to_string(),
                fmt_f(hit(r), 3),
                fmt_f(mean_queue(r), 1),
                fmt_f(r.latency_ns.mean / 1e3, 1),
                fmt_f(r.iops, 0),
            ]);
        }
        let label = if gap == 0 {
            "closed loop".to_string()
        } else {
            format!("{gap} µs")
        };
        table.push(vec![
            label,
            fmt_f(mean_queue(q), 1),
            fmt_f(hit(l), 2),
            fmt_f(hit(q), 2),
            fmt_f(g, 2),
        ]);
        if gap > 0 {
            gain_pts.push((gap as f64, g));
            queue_pts.push((gap as f64, mean_queue(q)));
        }
    }
    ctx.csv(
        "arrivals",
        &[
            "mean_gap_us",
            "policy",
            "write_hit_ratio_percent",
            "mean_requests_outstanding",
            "latency_mean_us",
            "iops",
        ],
        rows,
    );
    ctx.svg(
        "gain_vs_gap",
        line_chart_svg(
            &format!(
                "QLRU − LRU hit ratio vs mean request gap ({mib} MiB buffer, queue length {qd})"
            ),
            "mean gap between arrivals (µs)",
            "hit-ratio gain (percentage points)",
            &[("gain".into(), gain_pts)],
            true,
        ),
    );
    ctx.svg(
        "queue_vs_gap",
        line_chart_svg(
            "Requests outstanding vs mean request gap (QLRU)",
            "mean gap between arrivals (µs)",
            "requests arrived, not completed (mean)",
            &[("requests".into(), queue_pts)],
            true,
        ),
    );
    md.push_str("## 2. Request inter-arrival time\n\n");
    md.push_str(&format!(
        "The same writes, {} per run, arriving open loop (exponential gaps) instead of \
         closed loop, {mib} MiB buffer, queue length {qd}. The device takes about one \
         34 KiB command per 60–100 µs here (SATA transfer, then flash programs as victims \
         leave), so short gaps keep the queue full and long gaps leave it nearly empty. \
         \"Outstanding\" = mean requests arrived but not completed (Little's law: IOPS × \
         mean latency); above the queue length the rest wait at the host for a free tag, \
         and the queue is full. Figures: `gain_vs_gap.svg`, `queue_vs_gap.svg`; table: \
         `arrivals.csv`.\n\n",
        p.gap_requests
    ));
    md.push_str(&md_table(
        &["mean gap", "outstanding", "LRU %", "QLRU %", "gain"],
        &table,
    ));
    md.push_str(
        "\n**Paper:** the gain depends on the request inter-arrival time (two slides of \
         figures, numbers not in the text): when requests arrive slowly the queue holds \
         little future information and QLRU approaches LRU.\n\n\
         **Ours:** the same — as the mean gap grows past the device's service time, the \
         queue empties and the gain falls to zero (LRU and QLRU make identical choices with \
         nothing queued).\n\n",
    );
    verdicts.push((
        "the QLRU gain shrinks as requests arrive further apart".into(),
        shrinks,
    ));
    Ok(())
}

/// LRU hit ratio and QLRU gain (points) of the OLTP and compile stand-ins at the
/// longest queue.
struct Gains {
    oltp_level: f64,
    compile_level: f64,
    oltp_gain: f64,
    compile_gain: f64,
    qd: u32,
    buffer_mib: u64,
}

fn workload_section(
    ctx: &mut Ctx,
    p: &Plan,
    md: &mut String,
    verdicts: &mut Vec<(String, bool)>,
) -> Result<Gains, ExpError> {
    let workloads = [("oltp", SynthKind::Oltp), ("compile", SynthKind::Compile)];
    let mut runs = Vec::new();
    let mut keys = Vec::new();
    for (wname, kind) in workloads {
        let mut c = base(ctx, p)?;
        c.workload.kind = kind;
        c.workload.read_percent = 0.0;
        c.workload.span = Some(Size(p.work_span));
        c.workload.requests = Some(p.work_requests);
        for &qd in p.work_qds {
            for policy in BufferKind::all().iter().map(|&(k, _, _)| k) {
                keys.push((wname, qd, policy));
                runs.push((
                    format!("{wname} qd {qd} {}", policy.name()),
                    with_buffer(c.clone(), policy, p.work_buffer_mib, qd),
                ));
            }
        }
    }
    let outs = ctx.run_all(&runs)?;
    let get = |w: &str, qd: u32, policy: BufferKind| -> &Report {
        let i = keys
            .iter()
            .position(|&k| k == (w, qd, policy))
            .expect("run exists");
        &outs[i].report
    };
    let mut rows = Vec::new();
    for (&(w, qd, policy), out) in keys.iter().zip(&outs) {
        let r = &out.report;
        rows.push(vec![
            w.to_string(),
            qd.to_string(),
            policy.name().to_string(),
            fmt_f(hit(r), 3),
            fmt_f(r.write_amplification, 3),
            fmt_f(r.buffer.write_amplification_ftl, 3),
            r.buffer.buffer_programs_saved.to_string(),
            fmt_f(r.latency_ns.p50 as f64 / 1e3, 1),
            fmt_f(r.latency_ns.p99 as f64 / 1e3, 1),
            fmt_f(r.iops, 0),
        ]);
    }
    ctx.csv(
        "workloads",
        &[
            "workload",
            "qd",
            "policy",
            "write_hit_ratio_percent",
            "device_wa",
            "ftl_wa",
            "programs_saved",
            "latency_p50_us",
            "latency_p99_us",
            "iops",
        ],
        rows,
    );
    let qd_max = *p.work_qds.last().expect("non-empty");
    let cats: Vec<String> = BufferKind::policies()
        .map(|k| k.name().to_string())
        .collect();
    let series: Vec<(String, Vec<f64>)> = workloads
        .iter()
        .map(|&(w, _)| {
            (
                format!("{w} (qd {qd_max})"),
                BufferKind::policies()
                    .map(|k| hit(get(w, qd_max, k)))
                    .collect(),
            )
        })
        .collect();
    ctx.svg(
        "workloads",
        bar_chart_svg(
            &format!(
                "Write hit ratio on the workload stand-ins ({} MiB buffer)",
                p.work_buffer_mib
            ),
            "write hit ratio (%)",
            &cats,
            &series,
            false,
        ),
    );
    md.push_str("## 3. Real-workload stand-ins: OLTP and kernel compile\n\n");
    md.push_str(&format!(
        "The paper replays OLTP and kernel-compile traces we do not have; `oltp` and `compile` \
         are generators built to have the properties the paper names (docs/buffer.md): OLTP \
         = 4 KiB requests to Zipf-ranked pages of a {} database plus a sequential log (high \
         locality, small requests); compile = four jobs writing object files of 4–64 KiB \
         chunks into fresh space plus small hot metadata writes (low locality, larger \
         requests). {} requests each, {} MiB buffer, closed loop. The paper's buffers span \
         32–512 MB and it does not say which its OLTP and compile runs used; the buffer is \
         {} (section Parameters); `sensitivity_compile_gain.svg` shows the other sizes. Table: `workloads.csv` (every policy, and `none` for latency without \
         a buffer); figure: `workloads.svg`.\n\n",
        Size(p.work_span),
        p.work_requests,
        p.work_buffer_mib,
        WORK_BUFFER_RULE
    ));
    let mut table = Vec::new();
    let mut all_ge = true;
    let paper = [("oltp", "60.3 → 60.4"), ("compile", "7.5 → 8.6")];
    for (w, paper) in paper {
        let mut row = vec![w.to_string()];
        for &qd in p.work_qds {
            let l = hit(get(w, qd, BufferKind::Lru));
            let q = hit(get(w, qd, BufferKind::Qlru));
            all_ge &= q >= l;
            row.push(format!(
                "{} → {} (+{})",
                fmt_f(l, 2),
                fmt_f(q, 2),
                fmt_f(q - l, 2)
            ));
        }
        row.push(paper.to_string());
        table.push(row);
    }
    let mut h = vec!["workload".to_string()];
    h.extend(p.work_qds.iter().map(|q| format!("ours, qd {q}")));
    h.push("paper (LRU → QLRU)".into());
    let h: Vec<&str> = h.iter().map(String::as_str).collect();
    md.push_str(&md_table(&h, &table));
    let gain =
        |w: &str| hit(get(w, qd_max, BufferKind::Qlru)) - hit(get(w, qd_max, BufferKind::Lru));
    let level = |w: &str| hit(get(w, qd_max, BufferKind::Lru));
    md.push_str(&format!(
        "\n**Paper:** OLTP 60.3% → 60.4%, kernel compile 7.5% → 8.6%: OLTP has high locality \
         but small requests, so the queue holds little future information; compile has low \
         locality but larger requests, so the queue holds more.\n\n\
         **Ours:** LRU hit ratio OLTP {} %, compile {} % (claim N7). At queue length {qd_max} QLRU gains {} points on OLTP and \
         {} on compile. {}\n\n\
         The levels are not the paper's: the stand-ins' locality is a modelling choice, and \
         the paper does not state the buffer size and queue length of this test. Among the \
         other policies (`workloads.svg`), those that evict the largest cluster (FAB, and \
         BPAC's block list) do poorly on compile, whose largest clusters are the object \
         files being written — including the ones about to be written a second time — \
         while block LRU (BPLRU) and ExLRU keep a file's block together until it has gone \
         cold and catch those rewrites whole.\n\n",
        fmt_f(level("oltp"), 1),
        fmt_f(level("compile"), 1),
        fmt_f(gain("oltp"), 2),
        fmt_f(gain("compile"), 2),
        if gain("compile") > gain("oltp") {
            "Compile gains more, as in the paper: its commands cover about eight pages each, \
             an OLTP command one."
        } else {
            "Unlike the paper, compile gains less than OLTP here. A queued command only helps \
             when it rewrites a buffered page that LRU is about to evict, i.e. a page whose \
             reuse distance is just above the buffer size. The compile stand-in's larger \
             requests mostly write fresh space (no reuse) or rewrite a file right after \
             writing it (reuse far below the buffer size, a hit for LRU too), and its hot \
             metadata records are single pages; OLTP's Zipf-ranked pages, by contrast, are \
             re-referenced at every distance, including the ones QLRU rescues. The paper's \
             compile trace evidently re-referenced large extents at distances near the \
             buffer size (perhaps temporary files reusing freed space); the stand-in does \
             not model that, so the request-size mechanism the paper names shows in the grid \
             (where requests are 4–64 KiB) but not between these two stand-ins."
        }
    ));
    // Device vs FTL write amplification and latency with and without the buffer.
    let mut wa = Vec::new();
    for (w, _) in workloads {
        for policy in [BufferKind::None, BufferKind::Lru, BufferKind::Qlru] {
            let r = get(w, qd_max, policy);
            wa.push(vec![
                w.to_string(),
                policy.name().to_string(),
                fmt_f(r.write_amplification, 3),
                fmt_f(r.buffer.write_amplification_ftl, 3),
                fmt_f(r.latency_ns.p50 as f64 / 1e3, 1),
                fmt_f(r.latency_ns.p99 as f64 / 1e3, 1),
            ]);
        }
    }
    md.push_str(&format!(
        "Write amplification and latency with and without the buffer (queue length \
         {qd_max}; the end-of-run flush is counted in the programs):\n\n"
    ));
    md.push_str(&md_table(
        &[
            "workload",
            "buffer",
            "device WA",
            "FTL WA",
            "latency p50 (µs)",
            "latency p99 (µs)",
        ],
        &wa,
    ));
    md.push_str(
        "\nDevice WA (flash programs / host page writes) drops below 1 with a buffer because \
         hits absorb overwrites; FTL WA (flash programs / pages the buffer wrote back) stays \
         at 1 on this empty device, which never collects garbage. Latency here is mostly the \
         time a command waits behind the full queue; the buffer shortens it by completing \
         hits at DRAM speed and writes as soon as their victims have left DRAM.\n\n",
    );
    verdicts.push((
        "QLRU ≥ LRU on the OLTP-like and compile-like workloads at every queue length".into(),
        all_ge,
    ));
    verdicts.push((
        "with a buffer, device write amplification drops below 1 on both workloads".into(),
        workloads
            .iter()
            .all(|&(w, _)| get(w, qd_max, BufferKind::Lru).write_amplification < 1.0),
    ));
    Ok(Gains {
        oltp_level: level("oltp"),
        compile_level: level("compile"),
        oltp_gain: gain("oltp"),
        compile_gain: gain("compile"),
        qd: qd_max,
        buffer_mib: p.work_buffer_mib,
    })
}

fn trace_section(ctx: &mut Ctx, md: &mut String) -> Result<(), ExpError> {
    md.push_str("## 4. The real OLTP traces\n\n");
    let present: Vec<PathBuf> = match ctx.traces.join(TRACE_DIR) {
        Some(dir) => TRACES
            .iter()
            .map(|t| dir.join(t))
            .filter(|p| p.exists())
            .collect(),
        None => Vec::new(),
    };
    if present.is_empty() {
        md.push_str(&format!(
            "**Skipped:** {} (looked for {} in its `{TRACE_DIR}/`). They are small excerpts \
             in any case.\n\n",
            ctx.traces.describe(),
            TRACES.join(" and ")
        ));
        return Ok(());
    }
    md.push_str(&format!("Replayed: {}.\n\n", ctx.traces.describe()));
    let buffers_mib: [u64; 2] = [1, 4];
    let qds: [u32; 2] = [32, 512];
    // Recorded arrival times, and 1000× faster so the queue fills.
    let speedups = [1.0, 1000.0];
    let mut runs = Vec::new();
    let mut keys = Vec::new();
    for path in &present {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut c =
            Config::load(Some("default"), None).map_err(|e| ExpError::Other(e.to_string()))?;
        c.seed = ctx.seed;
        c.device.capacity = Size(64 << 30);
        c.device.host_link_mb_s = 600.0;
        c.trace.path = Some(path.clone());
        c.trace.format = Some(TraceFormat::Ascii);
        c.trace.fit = FitPolicy::Wrap;
        c.trace.writes_only = true;
        for &mib in &buffers_mib {
            for &qd in &qds {
                for &speedup in &speedups {
                    for policy in BufferKind::policies() {
                        let mut c = with_buffer(c.clone(), policy, mib, qd);
                        c.host.speedup = speedup;
                        keys.push((name.clone(), mib, qd, speedup as u64, policy));
                        runs.push((
                            format!("{name} {mib} MiB qd {qd} ×{speedup} {}", policy.name()),
                            c,
                        ));
                    }
                }
            }
        }
    }
    let outs = ctx.run_all(&runs)?;
    let mut rows = Vec::new();
    for ((name, mib, qd, speedup, policy), out) in keys.iter().zip(&outs) {
        let r = &out.report;
        rows.push(vec![
            name.clone(),
            mib.to_string(),
            qd.to_string(),
            speedup.to_string(),
            policy.name().to_string(),
            fmt_f(hit(r), 3),
            fmt_f(mean_queue(r), 1),
            r.host_write_pages.to_string(),
        ]);
    }
    ctx.csv(
        "traces",
        &[
            "trace",
            "buffer_mib",
            "qd",
            "speedup",
            "policy",
            "write_hit_ratio_percent",
            "mean_requests_outstanding",
            "host_write_pages",
        ],
        rows.clone(),
    );
    let mut table = Vec::new();
    for (name, mib, qd, speedup, policy) in &keys {
        if *policy != BufferKind::Lru {
            continue;
        }
        let find = |p: BufferKind| {
            let i = keys
                .iter()
                .position(|k| (&k.0, k.1, k.2, k.3, k.4) == (name, *mib, *qd, *speedup, p))
                .expect("run exists");
            &outs[i].report
        };
        let (l, q) = (find(BufferKind::Lru), find(BufferKind::Qlru));
        table.push(vec![
            name.clone(),
            format!("{mib} MiB"),
            qd.to_string(),
            format!("×{speedup}"),
            fmt_f(mean_queue(q), 1),
            fmt_f(hit(l), 2),
            fmt_f(hit(q), 2),
        ]);
    }
    md.push_str(
        "Writes only (`trace.writes_only`), every volume of a trace on one device (their \
         addresses overlap, so some hits are across volumes), offsets wrapped into the \
         device, replayed at the recorded arrival times and 1000× faster. Every policy is in \
         `traces.csv`.\n\n",
    );
    md.push_str(&md_table(
        &[
            "trace",
            "buffer",
            "qd",
            "speed",
            "outstanding",
            "LRU %",
            "QLRU %",
        ],
        &table,
    ));
    md.push_str(
        "\nThese excerpts hold a few thousand writes (tens of MiB), far less than the \
         paper's buffers, so only 1–4 MiB buffers are under any pressure, and the hit ratios \
         mostly show each trace's own reuse (Financial1 rewrites a small set of pages again \
         and again; this TPC-C excerpt hardly rewrites anything). At the recorded speed the queue is nearly empty (OLTP requests arrive milliseconds \
         apart), so QLRU equals LRU, as the inter-arrival experiment predicts; replayed \
         1000× faster the queue fills and QLRU can use it.\n\n",
    );
    Ok(())
}

/// Claims N6–N7: the two stand-ins against the paper's hit ratios.
fn workload_claims(cl: &mut Claims, g: &Gains) {
    cl.push(Claim::new(
        "N6",
        "§2 OLTP, compile",
        "compile gains more than OLTP (7.5 → 8.6% vs 60.3 → 60.4%)",
        format!(
            "compile +{} points, OLTP +{} (qd {}, {} MiB)",
            fmt_f(g.compile_gain, 2),
            fmt_f(g.oltp_gain, 2),
            g.qd,
            g.buffer_mib
        ),
        "compile's gain > OLTP's",
        g.compile_gain > g.oltp_gain,
    ));
    cl.push(Claim::new(
        "N7",
        "§2 OLTP, compile",
        "OLTP's hit ratio far above compile's (high vs low locality)",
        format!(
            "OLTP {}%, compile {}%",
            fmt_f(g.oltp_level, 1),
            fmt_f(g.compile_level, 1)
        ),
        "OLTP's LRU hit ratio > compile's",
        g.oltp_level > g.compile_level,
    ));
}

/// NCQ on/off (claim N8): the same Iometer-like writes with the queue off (one
/// command at a time) and on (32 tags, the SATA maximum), with and without the buffer.
fn ncq_on_off(ctx: &mut Ctx, p: &Plan, md: &mut String, cl: &mut Claims) -> Result<(), ExpError> {
    let base = iometer(base(ctx, p)?, p.grid_span, p.gap_requests);
    let mib = p.grid_buffers_mib[0];
    let mut runs = Vec::new();
    for (buffer, policy) in [("none", BufferKind::None), ("qlru", BufferKind::Qlru)] {
        for qd in [1u32, 32] {
            runs.push((
                format!("ncq {buffer} qd {qd}"),
                with_buffer(base.clone(), policy, mib, qd),
            ));
        }
    }
    let outs = ctx.run_all(&runs)?;
    let iops: Vec<f64> = outs.iter().map(|o| o.report.iops).collect();
    let rows = vec![
        vec![
            "none".to_string(),
            fmt_f(iops[0], 0),
            fmt_f(iops[1], 0),
            fmt_f(iops[1] / iops[0], 2),
        ],
        vec![
            format!("qlru {mib} MiB"),
            fmt_f(iops[2], 0),
            fmt_f(iops[3], 0),
            fmt_f(iops[3] / iops[2], 2),
        ],
    ];
    let header = ["buffer", "ncq_off_iops", "ncq_on_iops", "on_over_off"];
    ctx.csv("ncq_on_off", &header, rows.clone());
    ctx.svg(
        "ncq_on_off",
        bar_chart_svg(
            "NCQ off (one command) vs on (32 tags), Iometer-like random writes",
            "IOPS",
            &["no buffer".to_string(), format!("QLRU {mib} MiB")],
            &[
                ("NCQ off".into(), vec![iops[0], iops[2]]),
                ("NCQ on".into(), vec![iops[1], iops[3]]),
            ],
            false,
        ),
    );
    md.push_str("## NCQ on/off\n\n");
    md.push_str(&format!(
        "The grid's Iometer-like writes ({} requests), one command at a time (NCQ off) and \
         with 32 tags (on), without a buffer and with QLRU. Figure: `ncq_on_off.svg`; \
         table: `ncq_on_off.csv`.\n\n",
        p.gap_requests
    ));
    md.push_str(&md_table(&header, &rows));
    md.push_str(&format!(
        "\nWith the buffer, NCQ on/off = {}: a write completes once in DRAM and the \
         buffer drains to the dies in the background, so queued commands {} over one at \
         a time.\n\n",
        fmt_f(iops[3] / iops[2], 2),
        if iops[3] / iops[2] >= 1.3 {
            "still gain"
        } else {
            "gain little"
        }
    ));
    let gain = iops[1] / iops[0] - 1.0;
    cl.push(Claim::new(
        "N8",
        "§2 NCQ",
        "NCQ on/off makes a ≥ 30% performance difference",
        format!(
            "on/off IOPS {} without buffer ({} with QLRU)",
            fmt_f(iops[1] / iops[0], 2),
            fmt_f(iops[3] / iops[2], 2)
        ),
        "NCQ on ≥ 1.3 × off without a write buffer",
        gain >= 0.3,
    ));
    Ok(())
}

/// Claim N6 over the buffer size: QLRU rescues a page whose reuse distance is just above
/// the buffer, so which stand-in gains more depends on where their reuse distances fall
/// relative to the buffer, which the paper does not state for this test.
fn compile_sensitivity(
    ctx: &mut Ctx,
    p: &Plan,
    cl: &mut Claims,
    g: &Gains,
) -> Result<(), ExpError> {
    // Always run: the default buffer size is a choice the paper leaves open, and the
    // summary shows what the others give.
    let buffers: [u64; 4] = if ctx.quick {
        [2, 8, 32, 128]
    } else {
        [8, 32, 128, 512]
    };
    let requests = p.work_requests / if ctx.quick { 1 } else { 2 };
    let mut runs = Vec::new();
    for (w, kind) in [("oltp", SynthKind::Oltp), ("compile", SynthKind::Compile)] {
        let mut c = base(ctx, p)?;
        c.workload.kind = kind;
        c.workload.read_percent = 0.0;
        c.workload.span = Some(Size(p.work_span));
        c.workload.requests = Some(requests);
        for &mib in &buffers {
            for policy in [BufferKind::Lru, BufferKind::Qlru] {
                runs.push((
                    format!("sens {w} {mib} MiB {}", policy.name()),
                    with_buffer(c.clone(), policy, mib, g.qd),
                ));
            }
        }
    }
    let outs = ctx.run_all(&runs)?;
    let gain = |wi: usize, bi: usize| {
        let k = (wi * buffers.len() + bi) * 2;
        hit(&outs[k + 1].report) - hit(&outs[k].report)
    };
    let mut rows = Vec::new();
    let mut series = vec![
        ("oltp".to_string(), Vec::new()),
        ("compile".to_string(), Vec::new()),
    ];
    let mut found = Vec::new();
    for (bi, &mib) in buffers.iter().enumerate() {
        for (wi, w) in ["oltp", "compile"].iter().enumerate() {
            rows.push(vec![
                w.to_string(),
                mib.to_string(),
                fmt_f(hit(&outs[(wi * buffers.len() + bi) * 2].report), 3),
                fmt_f(gain(wi, bi), 3),
            ]);
            series[wi].1.push((mib as f64, gain(wi, bi)));
        }
        if gain(1, bi) > gain(0, bi) {
            found.push(format!("{mib} MiB buffer"));
        }
    }
    ctx.csv(
        "sensitivity_compile_gain",
        &[
            "workload",
            "buffer_mib",
            "lru_hit_percent",
            "qlru_gain_points",
        ],
        rows,
    );
    ctx.svg(
        "sensitivity_compile_gain",
        line_chart_svg(
            &format!("QLRU gain vs buffer size (queue length {})", g.qd),
            "buffer (MiB)",
            "QLRU − LRU hit ratio (points)",
            &series,
            true,
        ),
    );
    let pts: Vec<String> = buffers
        .iter()
        .enumerate()
        .map(|(bi, mib)| {
            format!(
                "{mib} MiB: compile +{}, OLTP +{}",
                fmt_f(gain(1, bi), 2),
                fmt_f(gain(0, bi), 2)
            )
        })
        .collect();
    cl.sensitivity(Sensitivity {
        claims: vec!["N6".into()],
        swept: format!(
            "the buffer size of the OLTP and compile runs ({} MiB), queue length {}, {} \
             requests",
            buffers
                .iter()
                .map(|b| b.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            g.qd,
            requests
        ),
        figures: vec!["sensitivity_compile_gain.svg".into()],
        setting_found: (!found.is_empty()).then(|| found.join(", ")),
        explanation: format!(
            "QLRU gains by keeping a page whose next write is already queued and whose \
             reuse distance is just above the buffer: {}. {}",
            pts.join("; "),
            if found.is_empty() {
                "At no buffer size does the compile stand-in gain more than OLTP: its larger \
                 requests mostly write fresh space (no reuse) or rewrite a file soon after \
                 writing it (reuse below any of these buffers), so the request-size effect \
                 the paper names shows in the grid's 4–64 KiB writes but not in this \
                 stand-in."
            } else {
                "Compile gains more at the sizes listed, so the paper's order depends on the \
                 buffer size it did not state."
            },
        ) + &format!(
            " The workload section runs {} MiB, {}; what this sweep finds does not change it.",
            p.work_buffer_mib, WORK_BUFFER_RULE
        ),
    });
    Ok(())
}
