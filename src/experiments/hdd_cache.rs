//! `ssdlab reproduce hdd-cache` — Kim et al. 2011 (docs/papers.md §5): flash as a cache for
//! a hard disk through a filter driver, and the cost of its cache control table.
//!
//! ```text
//! 1 setup     the HDD and the cache SSD measured the way CrystalDiskMark does (1 MiB
//!             sequential and 4 KiB random reads at queue depth 1)
//! 2 workloads boot, app-launch ("multitasking loading"), game-load on the HDD alone and
//!             behind a 16 GiB write-through flash cache, cold then warm
//! 3 tables    the app-launch warm run with the list, AVL and B+-tree tables, with and
//!             without the last-read hint (simulated table time included)
//! 4 lookups   comparisons and wall-clock time per lookup against the record count
//!             (1 K, 100 K, 1 M; quick: 1 K, 10 K, 100 K) for list, tree and tree + hint,
//!             random and sequential; the paper's Fig. 10 (re-reading the cached records
//!             in order through the list) and its 1023-record example
//! ```
//! The paper's numbers appear only in the summary text, beside ours.

use super::claims::{self, Claim, Claims, Sensitivity};
use super::mgmt_block::{Parameter, parameters_section};
use super::{Ctx, ExpError, Experiment, fmt_f, md_table};
use crate::hybrid::config::{HybridConfig, WorkloadKind};
use crate::hybrid::hdd::{Hdd, SECTOR_BYTES};
use crate::hybrid::run::{HybridReport, run};
use crate::hybrid::table::{CacheTable, Record, TableKind, find_hinted};
use crate::report::svg::{bar_chart_svg, line_chart_svg};
use crate::units::Size;
use crate::workload::synth::SynthKind;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::time::Instant;

/// The experiment.
pub struct HddCache;

const WORKLOADS: [(WorkloadKind, &str); 3] = [
    (WorkloadKind::Boot, "boot"),
    (WorkloadKind::AppLaunch, "app-launch"),
    (WorkloadKind::GameLoad, "game-load"),
];

/// Cache size of the workload runs: larger than every workload, as the paper's SSD was.
const CACHE: Size = Size(16 << 30);

/// This reproduction's [`Parameter`]s.
fn parameters() -> Vec<Parameter> {
    let c = HybridConfig::default();
    vec![
        Parameter::new(
            "HDD",
            format!(
                "desktop-7200: {} rpm, average seek {} ms",
                c.hdd.rpm, c.hdd.average_seek_ms
            ),
            "7200 rpm desktop datasheets of 2010–11 (presets/hdd/desktop-7200.toml)",
        ),
        Parameter::new(
            "HDD sequential figure",
            format!("mean of {POSITIONS} test-file positions, outer to inner"),
            "CrystalDiskMark's file lands wherever the file system puts it; the paper does \
             not say where",
        ),
        Parameter::new(
            "cache SSD",
            "sata-mlc-2011 (SSD C's MLC array, 200 MB/s ONFI channels)",
            "the preset of a 2011 MLC SATA SSD; the paper names none",
        ),
        Parameter::new(
            "cache_ssd_link_mb_s",
            fmt_f(cache_ssd_link_mb_s(), 0),
            "the preset's 3 Gb/s SATA link; was 355 MB/s, chosen because it gave H1's 3×",
        ),
        Parameter::new(
            "CACHE",
            CACHE,
            "larger than every workload, as the paper's SSD was (no eviction)",
        ),
        Parameter::new(
            "cache policy",
            "write-through, LRU, 4 KiB units",
            "the paper's filter driver: read misses copied in, writes to the HDD",
        ),
    ]
}

impl Experiment for HddCache {
    fn name(&self) -> &'static str {
        "hdd-cache"
    }

    fn about(&self) -> &'static str {
        "Kim et al. 2011: HDD alone vs HDD + flash cache (boot, app launch, game load); cache-table lookup cost for list, tree, tree + hint"
    }

    fn run(&self, ctx: &mut Ctx) -> Result<(), ExpError> {
        let mut intro = String::new();
        intro.push_str(
            "Reproduction of Kim et al. (2011), docs/papers.md §5: an I/O filter driver serves read \
             hits from an SSD and copies read misses from the HDD into it; a cache control \
             table maps HDD ranges to SSD ranges. Simulated with `ssdlab hybrid` \
             (docs/hybrid.md): the `desktop-7200` HDD model, a 16 GiB flash cache on the \
             `sata-mlc-2011` SSD model (page FTL, greedy GC), write-through, LRU, 4 KiB units, \
             B+-tree table with the hint unless said otherwise.\n\n",
        );
        intro.push_str(&format!(
            "The cache SSD keeps the `sata-mlc-2011` preset's own 3 Gb/s SATA link ({} MB/s): \
             the paper names neither its SSD nor its link. Until this version the link was \
             set to 355 MB/s, a SATA 6 Gb/s drive's rating chosen because it gave the paper's \
             3× SSD / HDD ratio (claim H1), and claim H4 was then checked at that speed; the \
             link sensitivity experiment still shows 355 and 600 MB/s.\n\n",
            fmt_f(cache_ssd_link_mb_s(), 0)
        ));
        if ctx.quick {
            intro.push_str(
                "**Quick mode:** smaller SSD test devices and table sizes of 1 K–100 K records \
                 instead of 1 K–1 M; the workload runs are the full ones.\n\n",
            );
        }
        let mut md = String::new();
        let mut cl = Claims::default();
        let (ssd_seq, hf) = setup_section(ctx, &mut md)?;
        let seq_ratio = ssd_seq / hf.average();
        cl.push(Claim::new(
            "H1",
            "§5 (CrystalDiskMark)",
            "SSD sequential read about 3× the HDD's",
            format!(
                "{}× against the disk average ({}× outer zone, {}× inner)",
                fmt_f(seq_ratio, 2),
                fmt_f(ssd_seq / hf.outer(), 2),
                fmt_f(ssd_seq / hf.inner(), 2)
            ),
            "2.5 <= SSD / HDD (disk average) <= 3.5",
            (2.5..=3.5).contains(&seq_ratio),
        ));
        position_sensitivity(ctx, &mut cl, ssd_seq, &hf);
        let reports = workload_section(ctx, &mut md)?;
        let savings = savings_of(&reports);
        workload_claims(&mut cl, &savings);
        table_section(ctx, &mut md)?;
        lookup_section(ctx, &mut md, &mut cl)?;
        gaps_section(&reports, &mut md);
        link_sensitivity(ctx, &mut cl, seq_ratio, &savings)?;
        intro.push_str(&parameters_section(ctx, &parameters()));
        claims::finish(
            ctx,
            &cl,
            "Flash as an HDD cache: filter driver and cache control table",
            &intro,
            &md,
        );
        Ok(())
    }
}

/// The cache SSD's host link (MB/s), its sequential-read ceiling: the `sata-mlc-2011`
/// preset's own 3 Gb/s SATA link, since the paper names neither its SSD nor its link.
/// The rate is the preset's, fixed before this reproduction checked any claim.
fn cache_ssd_link_mb_s() -> f64 {
    HybridConfig::default().flash.device.host_link_mb_s
}

/// The rated sequential read of a 2011 SATA 6 Gb/s MLC SSD (Crucial C300, 355 MB/s), a
/// point of the link sweep only: it was this reproduction's default until it turned out
/// to have been picked because it gives the paper's 3× ratio (claim H1).
const C300_SEQ_MB_S: f64 = 355.0;

fn base(ctx: &Ctx, kind: WorkloadKind, cache: Size) -> HybridConfig {
    let mut c = HybridConfig {
        seed: ctx.seed,
        ..HybridConfig::default()
    };
    c.workload.kind = kind;
    c.cache.size = cache;
    c
}

fn run_hybrid(configs: &[(String, HybridConfig)]) -> Result<Vec<HybridReport>, ExpError> {
    configs
        .par_iter()
        .map(|(label, c)| {
            run(c).map_err(|source| ExpError::Run {
                label: label.clone(),
                source,
            })
        })
        .collect()
}

/// Where CrystalDiskMark's test file sits on the HDD: its sequential figure is the
/// MB/s of 1 MiB reads of that file, and a disk's rate falls from the outer to the
/// inner zone, so the position decides the figure.
const POSITIONS: usize = 9;

/// The HDD's figures: sequential MB/s of back-to-back 1 MiB reads of a 256 MiB file at
/// [`POSITIONS`] evenly spaced positions from the first to the last LBA, and the mean
/// latency of random 4 KiB reads at queue depth 1.
struct HddFigures {
    /// MB/s at each position, outer (LBA 0) first.
    seq_mb_s: Vec<f64>,
    /// Mean random 4 KiB read latency, ns.
    rand_ns: f64,
}

impl HddFigures {
    /// The outer zone's rate (a file at LBA 0).
    fn outer(&self) -> f64 {
        self.seq_mb_s[0]
    }

    /// The innermost position's rate.
    fn inner(&self) -> f64 {
        *self.seq_mb_s.last().expect("positions")
    }

    /// The mean over the positions: what a test file placed anywhere on the disk reads
    /// at on average.
    fn average(&self) -> f64 {
        self.seq_mb_s.iter().sum::<f64>() / self.seq_mb_s.len() as f64
    }
}

fn hdd_figures(c: &HybridConfig, seed: u64) -> Result<HddFigures, ExpError> {
    let mut d = Hdd::new(&c.hdd).map_err(ExpError::Other)?;
    let chunk = (1 << 20) / SECTOR_BYTES;
    let file_chunks = 256;
    let sectors = d.capacity_sectors();
    let last_start = (sectors - file_chunks * chunk) / chunk * chunk;
    let mut t = 0;
    let mut seq_mb_s = Vec::with_capacity(POSITIONS);
    for k in 0..POSITIONS as u64 {
        let start = last_start * k / (POSITIONS as u64 - 1) / chunk * chunk;
        let t0 = t;
        for i in 0..file_chunks {
            t = d.access(false, start + i * chunk, chunk, t);
        }
        seq_mb_s.push(file_chunks as f64 * (1 << 20) as f64 / ((t - t0) as f64 / 1e9) / 1e6);
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut total, n) = (0u64, 5000u64);
    for _ in 0..n {
        let lba = rng.gen_range(0..sectors / 8) * 8;
        let arrival = t + rng.gen_range(0..10_000_000);
        let done = d.access(false, lba, 8, arrival);
        total += done - arrival;
        t = done;
    }
    Ok(HddFigures {
        seq_mb_s,
        rand_ns: total as f64 / n as f64,
    })
}

/// SSD / HDD sequential read (1 MiB, QD 1) with the cache SSD's host link at
/// `link_mb_s` (`None`: the preset's).
fn seq_ratio(ctx: &Ctx, link_mb_s: Option<f64>) -> Result<f64, ExpError> {
    let c = base(ctx, WorkloadKind::Boot, CACHE);
    let hdd_seq = hdd_figures(&c, ctx.seed)?.average();
    let mut f = c.flash.to_config(ctx.seed);
    if let Some(l) = link_mb_s {
        f.device.host_link_mb_s = l;
    }
    f.device.capacity = Size(2 << 30);
    f.precondition = crate::config::Precondition::Fill;
    f.host.qd = 1;
    f.workload.kind = SynthKind::SeqRead;
    f.workload.size = Size(1 << 20);
    f.workload.span = Some(Size(1 << 30));
    f.workload.requests = Some(512);
    let out = ctx.run_all(&[("ssd seq".to_string(), f)])?;
    Ok(out[0].report.throughput_mib_s * (1 << 20) as f64 / 1e6 / hdd_seq)
}

/// The devices; returns the SSD's sequential MB/s and the HDD's figures.
fn setup_section(ctx: &mut Ctx, md: &mut String) -> Result<(f64, HddFigures), ExpError> {
    let c = base(ctx, WorkloadKind::Boot, CACHE);
    let hf = hdd_figures(&c, ctx.seed)?;
    let (hdd_seq, hdd_rand_ns) = (hf.average(), hf.rand_ns);
    let capacity = if ctx.quick {
        Size(2 << 30)
    } else {
        Size(8 << 30)
    };
    let ssd = |kind: SynthKind, size: u64, requests: u64| {
        let mut f = c.flash.to_config(ctx.seed);
        f.device.capacity = capacity;
        f.precondition = crate::config::Precondition::Fill;
        f.host.qd = 1;
        f.workload.kind = kind;
        f.workload.size = Size(size);
        f.workload.span = Some(Size(1 << 30));
        f.workload.requests = Some(requests);
        f
    };
    let runs = vec![
        ("ssd seq".to_string(), ssd(SynthKind::SeqRead, 1 << 20, 512)),
        (
            "ssd rand".to_string(),
            ssd(SynthKind::RandomRead, 4096, 20_000),
        ),
    ];
    let outs = ctx.run_all(&runs)?;
    let ssd_seq = outs[0].report.throughput_mib_s * (1 << 20) as f64 / 1e6;
    let ssd_rand_ns = outs[1].report.latency_ns.mean;
    let hdd_row = |label: &str, seq: f64| {
        vec![
            label.to_string(),
            fmt_f(seq, 0),
            fmt_f(hdd_rand_ns / 1e6, 2),
            fmt_f(1e9 / hdd_rand_ns, 0),
        ]
    };
    let rows = vec![
        hdd_row("HDD desktop-7200 (disk average)", hdd_seq),
        hdd_row("HDD desktop-7200 (outer zone)", hf.outer()),
        hdd_row("HDD desktop-7200 (inner zone)", hf.inner()),
        vec![
            format!(
                "SSD sata-mlc-2011 ({} MB/s link)",
                fmt_f(cache_ssd_link_mb_s(), 0)
            ),
            fmt_f(ssd_seq, 0),
            fmt_f(ssd_rand_ns / 1e6, 3),
            fmt_f(1e9 / ssd_rand_ns, 0),
        ],
    ];
    let header = [
        "device",
        "seq_read_mb_s",
        "rand_4k_read_ms",
        "rand_4k_read_iops",
    ];
    ctx.csv("setup", &header, rows.clone());
    md.push_str("## 1. The devices\n\n");
    md.push_str(
        "Read the way CrystalDiskMark did in 2011: 1 MiB sequential reads and 4 KiB random \
         reads, one at a time, of a test file (the SSD is written once first). \
         CrystalDiskMark creates its test file in the file system of the drive under test, \
         here the paper's system disk with Windows and the applications on it, so where the \
         file lands on the platters is not known; a disk reads about twice as fast in its \
         outer zone as in its inner one. The HDD's sequential figure is therefore the mean \
         over 256 MiB files at nine evenly spaced positions from the first to the last LBA \
         (what a file anywhere on the disk gives on average), with the outer and inner \
         extremes beside it.\n\n",
    );
    md.push_str(&md_table(&header, &rows));
    md.push_str(&format!(
        "\nThe paper says only that its SSD read sequentially about 3× as fast as its HDD \
         (its Figures 1–2). Ours: {}× sequentially, {}× for random 4 KiB reads. The HDD \
         model gives {} random reads per second, {} the 80–120 of a 7200 rpm disk.\n\n",
        fmt_f(ssd_seq / hdd_seq, 1),
        fmt_f(hdd_rand_ns / ssd_rand_ns, 0),
        fmt_f(1e9 / hdd_rand_ns, 0),
        if (80.0..=120.0).contains(&(1e9 / hdd_rand_ns)) {
            "within"
        } else {
            "**outside**"
        },
    ));
    Ok((ssd_seq, hf))
}

/// H1 against the test file's position on the HDD: the SSD / HDD ratio at each of the
/// positions of [`hdd_figures`] (always run: the default, the disk average, is a choice
/// the paper leaves open).
fn position_sensitivity(ctx: &mut Ctx, cl: &mut Claims, ssd_seq: f64, hf: &HddFigures) {
    let n = hf.seq_mb_s.len();
    let mut rows = Vec::new();
    let mut pts = Vec::new();
    let mut found = Vec::new();
    for (k, &mb_s) in hf.seq_mb_s.iter().enumerate() {
        let at = k as f64 / (n - 1) as f64;
        let r = ssd_seq / mb_s;
        rows.push(vec![
            fmt_f(at, 3),
            fmt_f(mb_s, 1),
            fmt_f(ssd_seq, 1),
            fmt_f(r, 2),
        ]);
        pts.push((at * 100.0, r));
        if (2.5..=3.5).contains(&r) {
            found.push(format!("a file {}% of the way in", fmt_f(at * 100.0, 0)));
        }
    }
    ctx.csv(
        "sensitivity_hdd_position",
        &[
            "position_share_of_lbas",
            "hdd_seq_mb_s",
            "ssd_seq_mb_s",
            "ssd_over_hdd",
        ],
        rows,
    );
    let avg = ssd_seq / hf.average();
    ctx.svg(
        "sensitivity_hdd_position",
        line_chart_svg(
            "SSD / HDD sequential read vs the test file's position on the HDD",
            "position of the 256 MiB file (% of the LBAs)",
            "SSD / HDD (paper: about 3)",
            &[
                ("at this position".to_string(), pts),
                (
                    "disk average (default)".to_string(),
                    vec![(0.0, avg), (100.0, avg)],
                ),
            ],
            false,
        ),
    );
    cl.sensitivity(Sensitivity {
        claims: vec!["H1".into()],
        swept: format!(
            "the position of CrystalDiskMark's test file on the HDD ({n} positions from the \
             first to the last LBA)"
        ),
        figures: vec!["sensitivity_hdd_position.svg".into()],
        setting_found: (!found.is_empty()).then(|| found.join(", ")),
        explanation: format!(
            "The SSD reads {} MB/s at every position; the HDD {} MB/s in its outer zone \
             and {} MB/s in its inner one, so the ratio runs from {}× to {}×, {}× against \
             the disk average (the default: the file's position is not known). An \
             outer-zone file gives {}×.",
            fmt_f(ssd_seq, 0),
            fmt_f(hf.outer(), 0),
            fmt_f(hf.inner(), 0),
            fmt_f(ssd_seq / hf.outer(), 2),
            fmt_f(ssd_seq / hf.inner(), 2),
            fmt_f(avg, 2),
            fmt_f(ssd_seq / hf.outer(), 2),
        ),
    });
}

fn workload_section(ctx: &mut Ctx, md: &mut String) -> Result<Vec<HybridReport>, ExpError> {
    let mut configs = Vec::new();
    for (kind, name) in WORKLOADS {
        configs.push((format!("{name} hdd"), base(ctx, kind, Size(0))));
        configs.push((format!("{name} cache"), base(ctx, kind, CACHE)));
    }
    let reports = run_hybrid(&configs)?;
    let mut rows = Vec::new();
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    let mut alone = Vec::new();
    let mut md_rows = Vec::new();
    for (i, (_, name)) in WORKLOADS.iter().enumerate() {
        let (h, c) = (&reports[2 * i], &reports[2 * i + 1]);
        for (design, r) in [("hdd", h), ("hdd+flash", c)] {
            for run in &r.runs {
                let hdd_same = h.run(&run.name).map_or(f64::NAN, |b| b.elapsed_s);
                rows.push(vec![
                    name.to_string(),
                    design.to_string(),
                    run.name.clone(),
                    fmt_f(run.elapsed_s, 3),
                    fmt_f(run.think_s, 3),
                    fmt_f(run.elapsed_s - run.think_s, 3),
                    fmt_f(run.hit_ratio, 4),
                    fmt_f(run.hdd.busy_ns / 1e9, 3),
                    fmt_f((run.elapsed_s / hdd_same - 1.0) * 100.0, 1),
                    run.requests.to_string(),
                    run.read_bytes.to_string(),
                ]);
            }
        }
        let hw = h.run("cold").expect("cold run").elapsed_s;
        let cc = c.run("cold").expect("cold run").elapsed_s;
        let cw = c.run("warm").expect("warm run").elapsed_s;
        alone.push(hw);
        cold.push(cc);
        warm.push(cw);
        let paper = match *name {
            "boot" => "36.25 → 31.5 s (−13%)",
            "app-launch" => "39.47 → 13.61 s (−65%)",
            _ => "62.73 → 40.34 s (−36%)",
        };
        md_rows.push(vec![
            name.to_string(),
            fmt_f(hw, 2),
            fmt_f(cc, 2),
            fmt_f(cw, 2),
            format!("{}%", fmt_f((cc / hw - 1.0) * 100.0, 0)),
            format!("{}%", fmt_f((cw / hw - 1.0) * 100.0, 0)),
            format!(
                "{}%",
                fmt_f((h.run("cold").expect("cold").think_s / hw) * 100.0, 0)
            ),
            paper.to_string(),
        ]);
    }
    let header = [
        "workload",
        "design",
        "run",
        "elapsed_s",
        "think_s",
        "io_s",
        "hit_ratio",
        "hdd_busy_s",
        "change_vs_hdd_percent",
        "requests",
        "read_bytes",
    ];
    ctx.csv("workloads", &header, rows);
    let cats: Vec<String> = WORKLOADS.iter().map(|w| w.1.to_string()).collect();
    ctx.svg(
        "workloads",
        bar_chart_svg(
            "Elapsed time: HDD alone vs HDD + 16 GiB flash cache",
            "seconds",
            &cats,
            &[
                ("HDD alone".into(), alone.clone()),
                ("HDD + flash, cold".into(), cold.clone()),
                ("HDD + flash, warm".into(), warm.clone()),
            ],
            false,
        ),
    );
    md.push_str("## 2. HDD alone vs HDD + flash cache (paper's Fig. 11)\n\n");
    md.push_str(
        "Each workload runs twice on one store: cold (empty cache) then warm. The paper \
         reports one time per workload and configuration, evidently with the cache already \
         filled by earlier runs, so its numbers compare with our warm column. `think` is \
         the host's CPU time between requests inside the HDD-alone time. Data: \
         `workloads.csv`, figure: `workloads.svg`.\n\n",
    );
    md.push_str(&md_table(
        &[
            "workload",
            "HDD s",
            "cache cold s",
            "cache warm s",
            "cold vs HDD",
            "warm vs HDD",
            "think share",
            "paper (HDD → HDD + SSD)",
        ],
        &md_rows,
    ));
    let holds = (0..3).all(|i| warm[i] < cold[i] && warm[i] < alone[i]);
    md.push_str(&format!(
        "\nWarm runs are faster than cold runs and than the HDD alone for all three \
         workloads: {}. The cold run pays for copying every miss into flash and is about \
         as slow as the HDD alone: faster where a workload re-reads its own data within the \
         run, slower where the fills compete with hits for the SSD.\n\n",
        if holds {
            "the paper's trend holds"
        } else {
            "**the paper's trend does not hold**"
        }
    ));
    Ok(reports)
}

fn table_section(ctx: &mut Ctx, md: &mut String) -> Result<(), ExpError> {
    let mut configs = Vec::new();
    for &(kind, name, _) in TableKind::all() {
        for hint in [false, true] {
            let mut c = base(ctx, WorkloadKind::AppLaunch, CACHE);
            c.cache.table = kind;
            c.cache.hint = hint;
            configs.push((format!("{name}{}", if hint { "+hint" } else { "" }), c));
        }
    }
    let reports = run_hybrid(&configs)?;
    let mut rows = Vec::new();
    for ((label, c), r) in configs.iter().zip(&reports) {
        let w = r.run("warm").expect("warm run");
        let table_s = w.cache.lookup_comparisons as f64 * c.cache.ns_per_comparison / 1e9;
        rows.push(vec![
            label.clone(),
            r.records.to_string(),
            fmt_f(w.comparisons_per_lookup, 1),
            w.cache.lookup_comparisons_max.to_string(),
            fmt_f(
                w.cache.hinted_lookups as f64 / w.cache.lookups.max(1) as f64,
                3,
            ),
            fmt_f(table_s, 3),
            fmt_f(w.elapsed_s, 3),
            fmt_f(w.lookup_wall_ns_mean, 0),
        ]);
    }
    let header = [
        "table",
        "records",
        "comparisons_per_lookup",
        "max_comparisons",
        "hinted_share",
        "simulated_table_s",
        "warm_elapsed_s",
        "wall_ns_per_lookup",
    ];
    ctx.csv("tables", &header, rows.clone());
    md.push_str("## 3. The table inside the workload (app-launch, warm run)\n\n");
    md.push_str(&format!(
        "Every table comparison costs {} ns of simulated CPU time (a kernel driver walking \
         records in memory); wall-clock time per lookup is measured on this machine and \
         varies from run to run. Data: `tables.csv`.\n\n",
        fmt_f(
            base(ctx, WorkloadKind::AppLaunch, CACHE)
                .cache
                .ns_per_comparison,
            0
        )
    ));
    md.push_str(&md_table(&header, &rows));
    let share = |label: &str| {
        configs
            .iter()
            .zip(&reports)
            .find(|((l, _), _)| l == label)
            .and_then(|(_, r)| r.run("warm"))
            .map_or(f64::NAN, |w| {
                w.cache.hinted_lookups as f64 / w.cache.lookups.max(1) as f64
            })
    };
    md.push_str(&format!(
        "\nThe decisions (hits, fills) are identical for every table; only the search cost \
         differs. With tens of thousands of records the list adds seconds of simulated table \
         search to the launch, which the trees answer in milliseconds — the paper's reason \
         for the AVL tree. The hint answers {}% of the list's lookups but only {}% of the \
         B+-tree's: the list's successor is the next record *cached*, and a warm launch \
         repeats the cold launch's order, whereas a tree's successor is the next record by \
         *address*, which page faults in random order rarely want next.\n\n",
        fmt_f(share("list+hint") * 100.0, 0),
        fmt_f(share("btree+hint") * 100.0, 0),
    ));
    Ok(())
}

/// A table of `n` one-unit records at units 0, 2, 4, … inserted in ascending order (the
/// paper's pre-set test caches consecutive 4 KB reads).
fn ascending(kind: TableKind, n: u64) -> Box<dyn CacheTable> {
    let mut t = kind.build();
    for i in 0..n {
        t.insert(Record {
            start: 2 * i,
            len: 1,
            value: i as u32,
        });
    }
    t
}

struct Measure {
    lookups: u64,
    mean_cmp: f64,
    max_cmp: u64,
    ns: f64,
}

/// Looks up records `keys` (record indices) in order; with `hint`, through the hint.
fn measure(t: &dyn CacheTable, keys: &[u64], hint: bool) -> Measure {
    let mut h = None;
    let (mut total, mut max) = (0u64, 0u64);
    let start = Instant::now();
    for &k in keys {
        let mut cmp = 0;
        let found = if hint {
            find_hinted(t, 2 * k, &mut h, &mut cmp).0
        } else {
            t.find(2 * k, &mut cmp).map(|x| x.1)
        };
        debug_assert!(found.is_some());
        std::hint::black_box(found);
        total += cmp;
        max = max.max(cmp);
    }
    let ns = start.elapsed().as_nanos() as f64 / keys.len() as f64;
    Measure {
        lookups: keys.len() as u64,
        mean_cmp: total as f64 / keys.len() as f64,
        max_cmp: max,
        ns,
    }
}

fn lookup_section(ctx: &mut Ctx, md: &mut String, cl: &mut Claims) -> Result<(), ExpError> {
    let sizes: [u64; 3] = if ctx.quick {
        [1_000, 10_000, 100_000]
    } else {
        [1_000, 100_000, 1_000_000]
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(ctx.seed ^ 0x7ab1e);
    let mut rows = Vec::new();
    // (label, points) for the figures.
    let mut cmp_series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    let mut ns_series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    let mut list_series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    let mut at: Vec<(String, u64, f64)> = Vec::new();
    for &(kind, name, _) in TableKind::all() {
        for (pattern, hint) in [
            ("random", false),
            ("random", true),
            ("sequential", false),
            ("sequential", true),
        ] {
            let label = format!(
                "{}{} {pattern}",
                if kind == TableKind::List {
                    "list".to_string()
                } else {
                    format!("tree ({name})")
                },
                if hint { " + hint" } else { "" }
            );
            let mut pts_cmp = Vec::new();
            let mut pts_ns = Vec::new();
            for &n in &sizes {
                let t = ascending(kind, n);
                // The list costs ~n/2 comparisons per lookup: keep each measurement to
                // about 2·10^8 comparisons (a second or so).
                let budget = if kind == TableKind::List && !(pattern == "sequential" && hint) {
                    (400_000_000 / n).clamp(64, 100_000)
                } else {
                    100_000
                };
                let keys: Vec<u64> = if pattern == "random" {
                    (0..budget).map(|_| rng.gen_range(0..n)).collect()
                } else if hint {
                    // A scan from the first record: after the first lookup the hint
                    // answers every one, wherever the scan starts.
                    (0..n.min(100_000)).collect()
                } else if budget >= n {
                    (0..n).collect()
                } else {
                    // Evenly spaced samples of the ordered scan (a full scan of a long
                    // list would take hours); each costs what it would in the scan.
                    let step = n / budget;
                    (0..budget).map(|i| i * step).collect()
                };
                let m = measure(t.as_ref(), &keys, hint);
                rows.push(vec![
                    name.to_string(),
                    hint.to_string(),
                    pattern.to_string(),
                    n.to_string(),
                    m.lookups.to_string(),
                    fmt_f(m.mean_cmp, 2),
                    m.max_cmp.to_string(),
                    fmt_f(m.ns, 1),
                ]);
                pts_cmp.push((n as f64, m.mean_cmp));
                pts_ns.push((n as f64, m.ns));
                at.push((label.clone(), n, m.mean_cmp));
            }
            // Hinted sequential scans of a sampled list are not a scan: leave them out.
            if kind == TableKind::List {
                if !hint || pattern == "sequential" {
                    list_series.push((label.clone(), pts_cmp));
                }
            } else {
                cmp_series.push((label.clone(), pts_cmp));
                ns_series.push((label, pts_ns));
            }
        }
    }
    let header = [
        "table",
        "hint",
        "pattern",
        "records",
        "lookups",
        "mean_comparisons",
        "max_comparisons",
        "wall_ns_per_lookup",
    ];
    ctx.csv("lookup", &header, rows);
    ctx.svg(
        "lookup_comparisons",
        line_chart_svg(
            "Tree lookups: comparisons per lookup vs records (log x)",
            "records in the table",
            "comparisons per lookup",
            &cmp_series,
            true,
        ),
    );
    ctx.svg(
        "lookup_list",
        line_chart_svg(
            "List lookups: comparisons per lookup vs records",
            "records in the table",
            "comparisons per lookup",
            &list_series,
            false,
        ),
    );
    ctx.svg(
        "lookup_time",
        line_chart_svg(
            "Tree lookups: wall-clock time per lookup vs records (log x)",
            "records in the table",
            "ns per lookup (this machine)",
            &ns_series,
            true,
        ),
    );
    let get = |label: &str, n: u64| {
        at.iter()
            .find(|(l, m, _)| l == label && *m == n)
            .map_or(f64::NAN, |x| x.2)
    };
    let (lo, hi) = (sizes[0], sizes[2]);
    let mut t = Vec::new();
    for label in [
        "list random",
        "list sequential",
        "list + hint sequential",
        "tree (avl) random",
        "tree (btree) random",
        "tree (avl) sequential",
        "tree (avl) + hint sequential",
        "tree (btree) + hint sequential",
    ] {
        t.push(vec![
            label.to_string(),
            fmt_f(get(label, sizes[0]), 1),
            fmt_f(get(label, sizes[1]), 1),
            fmt_f(get(label, sizes[2]), 1),
            fmt_f(get(label, hi) / get(label, lo), 1),
        ]);
    }
    md.push_str("## 4. Lookup cost against the number of records\n\n");
    md.push_str(
        "One 4 KiB record per cached read, inserted in address order (the paper's pre-set \
         test). Random: hits at uniformly random records. Sequential: the records in address \
         order (for the list without hint, evenly spaced samples of that scan; with the \
         hint, a scan from the first record). Data: `lookup.csv`; figures: \
         `lookup_comparisons.svg`, `lookup_list.svg`, `lookup_time.svg`. Mean comparisons \
         per lookup:\n\n",
    );
    md.push_str(&md_table(
        &[
            "table / pattern",
            &format!("{lo} records"),
            &format!("{} records", sizes[1]),
            &format!("{hi} records"),
            &format!("× from {lo} to {hi}"),
        ],
        &t,
    ));
    let linear = get("list random", hi) / get("list random", lo);
    let tree_growth = get("tree (avl) random", hi) - get("tree (avl) random", lo);
    let hint_max = [
        "tree (avl) + hint sequential",
        "tree (btree) + hint sequential",
        "list + hint sequential",
    ]
    .iter()
    .flat_map(|l| sizes.iter().map(move |&n| get(l, n)))
    .fold(0.0f64, f64::max);
    md.push_str(&format!(
        "\nThe list grows linearly ({}× the comparisons for {}× the records; the paper: \
         \"lookup time grows linearly\"). The trees grow logarithmically (AVL: +{} \
         comparisons for {}× the records, about log2 of the ratio, {}). With the hint a \
         sequential scan costs at most {} comparisons per lookup at every size: O(1).\n\n",
        fmt_f(linear, 0),
        hi / lo,
        fmt_f(tree_growth, 1),
        hi / lo,
        fmt_f(((hi / lo) as f64).log2(), 1),
        fmt_f(hint_max, 1),
    ));
    let hinted = |n: u64| {
        [
            "tree (avl) + hint sequential",
            "tree (btree) + hint sequential",
            "list + hint sequential",
        ]
        .iter()
        .map(|l| get(l, n))
        .fold(0.0f64, f64::max)
    };
    let (hint_lo, hint_hi) = (hinted(lo), hinted(hi));
    cl.push(Claim::new(
        "H5",
        "§5 Fig. 10",
        "list lookup time grows linearly with the records",
        format!(
            "{}× the comparisons for {}× the records",
            fmt_f(linear, 0),
            hi / lo
        ),
        "growth within a factor 2 of linear",
        linear >= (hi / lo) as f64 / 2.0 && linear <= (hi / lo) as f64 * 2.0,
    ));
    cl.push(Claim::new(
        "H6",
        "§5 sequential hint",
        "checking the last read's successor first serves sequential reads at once",
        format!(
            "≤ {} comparisons per hinted sequential lookup",
            fmt_f(hint_max, 1)
        ),
        "constant: no more comparisons at the largest size than at the smallest",
        hint_hi <= hint_lo,
    ));
    fig10(ctx, md, cl);
    Ok(())
}

/// The paper's Fig. 10: re-reading every cached record in order through the list, first
/// half, second half and whole; and its 1023-record example.
fn fig10(ctx: &mut Ctx, md: &mut String, cl: &mut Claims) {
    let n: u64 = if ctx.quick { 10_000 } else { 100_000 };
    let ns_per_cmp = HybridConfig::default().cache.ns_per_comparison;
    let list = ascending(TableKind::List, n);
    let half: Vec<u64> = (0..n / 2).collect();
    let second: Vec<u64> = (n / 2..n).collect();
    let a = measure(list.as_ref(), &half, false);
    let b = measure(list.as_ref(), &second, false);
    let cmp_a = a.mean_cmp * a.lookups as f64;
    let cmp_b = b.mean_cmp * b.lookups as f64;
    let wall = |m: &Measure| m.ns * m.lookups as f64 / 1e9;
    let rows = vec![
        vec![
            "first half".into(),
            fmt_f(cmp_a, 0),
            fmt_f(cmp_a * ns_per_cmp / 1e9, 2),
            fmt_f(wall(&a), 2),
            "45 s".into(),
        ],
        vec![
            "second half".into(),
            fmt_f(cmp_b, 0),
            fmt_f(cmp_b * ns_per_cmp / 1e9, 2),
            fmt_f(wall(&b), 2),
            "105 s".into(),
        ],
        vec![
            "whole".into(),
            fmt_f(cmp_a + cmp_b, 0),
            fmt_f((cmp_a + cmp_b) * ns_per_cmp / 1e9, 2),
            fmt_f(wall(&a) + wall(&b), 2),
            "150 s".into(),
        ],
    ];
    let header = ["part", "comparisons", "simulated_s", "wall_s", "paper"];
    ctx.csv("fig10", &header, rows.clone());
    let avl = ascending(TableKind::Avl, 1023);
    let list_1023 = ascending(TableKind::List, 1023);
    let all: Vec<u64> = (0..1023).collect();
    let (ma, ml) = (
        measure(avl.as_ref(), &all, false),
        measure(list_1023.as_ref(), &all, false),
    );
    cl.push(Claim::new(
        "H7",
        "§5 Fig. 10",
        "second half of an in-order re-read 105 s vs first half 45 s (2.3×)",
        format!("{}×", fmt_f(cmp_b / cmp_a, 2)),
        "second / first half between 1.5 and 3.5",
        (1.5..=3.5).contains(&(cmp_b / cmp_a)),
    ));
    cl.push(Claim::new(
        "H8",
        "§5 §4.1 example",
        "AVL tree: at most 10 comparisons for 1023 records (list: up to 1023)",
        format!("AVL ≤ {}, list ≤ {}", ma.max_cmp, ml.max_cmp),
        "AVL max ≤ 10 and list max ≥ 1000",
        ma.max_cmp <= 10 && ml.max_cmp >= 1000,
    ));
    md.push_str(&format!(
        "### The paper's Fig. 10: re-reading {n} cached records in order through the list\n\n"
    ));
    md.push_str(&md_table(&header, &rows));
    md.push_str(&format!(
        "\nLookup k passes k records, so the second half costs {}× the first (3× in theory: \
         3n²/8 against n²/8). The paper measured 105 s against 45 s (2.3×) for 100,000 \
         records; its times include the rest of each read (the SSD access, the driver's \
         own work), which is the same for both halves and pulls the ratio below 3. At \
         {} ns per comparison the whole scan costs {} simulated seconds; the paper's 150 s \
         correspond to about 30 ns per record visited in 2011 kernel code.{}\n\n\
         The paper's §4.1 example: 1023 records, at most 10 comparisons in the tree instead \
         of 1023 in the list. Ours (ascending inserts, every record looked up): AVL at most \
         {}, list at most {}.\n\n",
        fmt_f(cmp_b / cmp_a, 2),
        fmt_f(ns_per_cmp, 0),
        fmt_f((cmp_a + cmp_b) * ns_per_cmp / 1e9, 1),
        if ctx.quick {
            " (Quick mode uses 10,000 records: the comparisons scale by 100.)"
        } else {
            ""
        },
        ma.max_cmp,
        ml.max_cmp,
    ));
}

fn gaps_section(reports: &[HybridReport], md: &mut String) {
    let share = |i: usize| {
        let h = reports[2 * i].run("cold").expect("cold");
        h.think_s / h.elapsed_s
    };
    let saved = savings_of(reports);
    md.push_str("## 5. Why our percentages differ from the paper's\n\n");
    md.push_str(&format!(
        "- **The workloads are models.** The paper gives only elapsed times; our boot, \
         launch and game-load request streams are documented models (src/hybrid/workload.rs), \
         not traces of Windows 7, the eleven applications or Turok. What a cache can save is \
         the I/O share of the elapsed time, and that share is set by the model's think time: \
         {}% CPU for our boot, {}% for the launch, {}% for the game (HDD alone).\n\
         - **Boot (ours −{}% against the paper's −13%).** A filter driver starts partway through boot: the \
         boot loader, kernel and boot-start drivers are read before it can redirect anything, \
         and Windows 7's own boot prefetcher already turns much of boot I/O into large \
         sequential reads. Neither is in our model, so more of our boot I/O is cacheable \
         random reads; a −13% boot means the cache could remove at most about an eighth of \
         the paper's boot time.\n\
         - **Launching applications (ours −{}% against −65%).** Our launch is almost all \
         random page faults on the HDD; the paper's 13.61 s with the cache shows that about \
         a third of its HDD time was CPU work and I/O the cache could not remove.\n\
         - **Game loading.** Large sequential reads gain only the ratio of sequential read \
         rates, and the game's archives lie at 150–160 GiB, near the disk's outer zone, \
         where that ratio is lowest (section 1); with the CPU share fixed, a faster SSD \
         raises the saving (the link sensitivity experiment).\n\
         - **Cold runs** are not in the paper: the first run after enabling the cache is \
         about as slow as the HDD alone.\n\
         - The paper's PCMark score (+4700 over a 7200 rpm HDD) has no counterpart here.\n",
        fmt_f(share(0) * 100.0, 0),
        fmt_f(share(1) * 100.0, 0),
        fmt_f(share(2) * 100.0, 0),
        fmt_f(saved[0] * 100.0, 0),
        fmt_f(saved[1] * 100.0, 0),
    ));
}

/// Paper's savings (HDD → HDD + SSD) per workload, in [`WORKLOADS`] order.
const PAPER_SAVING: [f64; 3] = [0.13, 0.65, 0.36];

/// Warm-cache saving against the HDD alone, per workload in [`WORKLOADS`] order.
fn savings_of(reports: &[HybridReport]) -> [f64; 3] {
    std::array::from_fn(|i| {
        let h = reports[2 * i].run("cold").map_or(f64::NAN, |r| r.elapsed_s);
        let w = reports[2 * i + 1]
            .run("warm")
            .map_or(f64::NAN, |r| r.elapsed_s);
        1.0 - w / h
    })
}

/// Ranking of the workloads by saving, largest first, as names.
fn ranking(s: &[f64; 3]) -> String {
    let mut idx = [0usize, 1, 2];
    idx.sort_by(|&a, &b| s[b].total_cmp(&s[a]));
    idx.iter()
        .map(|&i| WORKLOADS[i].1)
        .collect::<Vec<_>>()
        .join(" > ")
}

/// Claims H2–H5: the savings and their ranking.
fn workload_claims(cl: &mut Claims, s: &[f64; 3]) {
    let fmt = |x: f64| claims::pct(x);
    cl.push(Claim::new(
        "H2",
        "§5 Fig. 11",
        "the cache speeds up all three workloads",
        format!("{} / {} / {}", fmt(s[0]), fmt(s[1]), fmt(s[2])),
        "warm saving > 0 for boot, app-launch, game-load",
        s.iter().all(|&x| x > 0.0),
    ));
    cl.push(Claim::new(
        "H3",
        "§5 Fig. 11",
        "savings boot 13%, apps 65%, game 36%",
        format!("{} / {} / {}", fmt(s[0]), fmt(s[1]), fmt(s[2])),
        "each within 15 points of the paper's",
        s.iter()
            .zip(PAPER_SAVING)
            .all(|(&x, p)| (x - p).abs() <= 0.15),
    ));
    let r = ranking(s);
    cl.push(Claim::new(
        "H4",
        "§5 Fig. 11",
        "ranking app-launch > game-load > boot",
        r.clone(),
        "the same order",
        r == "app-launch > game-load > boot",
    ));
}

/// H1, H3, H4 over the cache SSD's host link: CrystalDiskMark's sequential figure of a
/// 2011 SSD is its SATA link's (3 Gb/s: ~280 MB/s; 6 Gb/s SSDs such as the C300 read
/// ~355 MB/s, later ~500), and the game load's saving follows that ratio. The paper
/// names neither its SSD nor its link. Always run; the default is the preset's link
/// ([`cache_ssd_link_mb_s`]) whatever this sweep finds.
fn link_sensitivity(
    ctx: &mut Ctx,
    cl: &mut Claims,
    ratio_now: f64,
    savings_now: &[f64; 3],
) -> Result<(), ExpError> {
    let ids = ["H1", "H3", "H4"];
    let default = cache_ssd_link_mb_s();
    let links = [default, C300_SEQ_MB_S, 600.0];
    let mut ratios = Vec::new();
    for l in links {
        if l == default {
            ratios.push((
                format!("{l:.0} MB/s (default: the preset's 3 Gb/s)"),
                ratio_now,
                *savings_now,
            ));
            continue;
        }
        let r = seq_ratio(ctx, Some(l))?;
        let mut configs = Vec::new();
        for (kind, name) in WORKLOADS {
            let mut h = base(ctx, kind, Size(0));
            h.flash.device.host_link_mb_s = l;
            configs.push((format!("{name} hdd link {l}"), h));
            let mut c = base(ctx, kind, CACHE);
            c.flash.device.host_link_mb_s = l;
            configs.push((format!("{name} cache link {l}"), c));
        }
        let reports = run_hybrid(&configs)?;
        let label = if l == C300_SEQ_MB_S {
            format!("{l:.0} MB/s (C300 rating)")
        } else {
            format!("{l:.0} MB/s")
        };
        ratios.push((label, r, savings_of(&reports)));
    }
    let mut rows = Vec::new();
    for (label, r, s) in &ratios {
        rows.push(vec![
            label.clone(),
            fmt_f(*r, 2),
            fmt_f(s[0], 3),
            fmt_f(s[1], 3),
            fmt_f(s[2], 3),
            ranking(s),
        ]);
    }
    ctx.csv(
        "sensitivity_link",
        &[
            "ssd_link_mb_s",
            "ssd_over_hdd_seq",
            "boot_saving",
            "app_launch_saving",
            "game_load_saving",
            "ranking",
        ],
        rows,
    );
    let cats: Vec<String> = ratios.iter().map(|r| r.0.clone()).collect();
    ctx.svg(
        "sensitivity_link",
        bar_chart_svg(
            "Cache SSD host link: SSD/HDD sequential ratio and warm savings",
            "ratio / saving",
            &cats,
            &[
                ("SSD / HDD seq".into(), ratios.iter().map(|r| r.1).collect()),
                (
                    "boot saving".into(),
                    ratios.iter().map(|r| r.2[0]).collect(),
                ),
                (
                    "app-launch saving".into(),
                    ratios.iter().map(|r| r.2[1]).collect(),
                ),
                (
                    "game-load saving".into(),
                    ratios.iter().map(|r| r.2[2]).collect(),
                ),
            ],
            false,
        ),
    );
    let found: Vec<String> = ratios
        .iter()
        .filter(|(_, r, s)| {
            (2.5..=3.5).contains(r) && ranking(s) == "app-launch > game-load > boot"
        })
        .map(|x| x.0.clone())
        .collect();
    let per: Vec<String> = ratios
        .iter()
        .map(|(l, r, s)| {
            format!(
                "{l}: {}×, savings {} / {} / {}, {}",
                fmt_f(*r, 2),
                claims::pct(s[0]),
                claims::pct(s[1]),
                claims::pct(s[2]),
                ranking(s)
            )
        })
        .collect();
    cl.sensitivity(Sensitivity {
        claims: ids.iter().map(|s| s.to_string()).collect(),
        swept: format!(
            "the cache SSD's host link (the preset's 3 Gb/s SATA, {} MB/s, the default; {} \
             MB/s, a SATA 6 Gb/s drive's rating; 600 MB/s)",
            fmt_f(default, 0),
            fmt_f(C300_SEQ_MB_S, 0)
        ),
        figures: vec!["sensitivity_link.svg".into()],
        setting_found: (!found.is_empty()).then(|| found.join(", ")),
        explanation: format!(
            "{}. A faster link raises the sequential ratio and the large-read savings; each \
             workload's saving is bounded by its model think-time share (section 5), which \
             no SSD setting changes.",
            per.join("; ")
        ),
    });
    Ok(())
}
