//! `ssdlab reproduce android-ftl` — Kim et al. (SKKU), "FTLs and a flash file system
//! compared" on Android (docs/papers.md §4): IOZone-like tests replayed on FTLs in counting
//! mode, elapsed time by the paper's formula `Cr·Tr + Cw·Tw + Gc·Tw + Ce·Te`
//! (Tr = 20 µs, Tw = 250 µs, Te = 1.5 ms; the `android-emmc` preset), split into I/O
//! and GC.
//!
//! ```text
//! fresh run, per FTL:  fresh device; IOZone suite over one file: sequential write
//!                      (creates it, 128 KiB records), sequential read, random write
//!                      (4 KiB records), random read — the read and random tests
//! aged run, per FTL:   the device aged from empty with random page writes over the
//!                      whole space, once its size (`precondition = "random"`,
//!                      `fill_percent = 100`; see [`AGING`]), then the file written
//!                      sequentially — the sequential-write test
//! sweep:               the aged run over over-provisioning × aging (steady, random
//!                      100/50/25%, sequential fill)
//! FTLs:                page, BAST, FAST, FASTer; NFTL and DFTL as extra rows when
//!                      registered
//! YAFFS2 row:          the same tests at file level on the raw NAND (`--fs yaffs2
//!                      --workload iozone-file`, fs/): fresh run = IOZone-like file test
//!                      (write, rewrite, read, reread, random write, random read of the
//!                      file); aged run = the file system aged with a file filling the
//!                      rest of the space and random overwrites until write
//!                      amplification settles, then the file test's sequential write
//! ```
//! The file is 100 MiB on the preset's 1 GiB device (the paper's 100 MB; its device size
//! is not given); `--quick` scales both down eightfold (12.5 MiB on 128 MiB), keeping
//! the ratio of file to log area. The paper's numbers appear only in the summary text.

use super::claims::{self, Claim, Claims, Sensitivity, pct};
use super::mgmt_block::{Parameter, parameters_section};
use super::{Ctx, ExpError, Experiment, fmt_f, md_table};
use crate::config::Config;
use crate::ftl::FtlKind;
use crate::report::PhaseReport;
use crate::report::svg::{bar_chart_svg, line_chart_svg};
use std::collections::BTreeMap;

/// The experiment.
pub struct AndroidFtl;

/// The paper's FTLs.
const CORE: [&str; 4] = ["page", "bast", "fast", "faster"];
/// Extra rows (the paper names DFTL as future work; NFTL is the block-mapped ancestor).
const EXTRA: [&str; 2] = ["nftl", "dftl"];
/// The flash file system's row (no FTL: YAFFS2 on the raw NAND).
const YAFFS2: &str = "yaffs2";

/// One test of the paper: which run and which of its phases.
struct Test {
    stem: &'static str,
    title: &'static str,
    aged: bool,
    phase: &'static str,
    /// What the paper reports, quoted from docs/papers.md §4 (text only).
    paper: &'static str,
}

const TESTS: [Test; 4] = [
    Test {
        stem: "seq_read",
        title: "Sequential read",
        aged: false,
        phase: "seq-read",
        paper: "all FTLs equal (YAFFS2 slightly faster)",
    },
    Test {
        stem: "seq_write_aged",
        title: "Sequential write after aging",
        aged: true,
        phase: "seq-write",
        paper: "page mapping fastest, FAST within 10%, BAST slowest; FAST/FASTer GC cost \
                about half of BAST's; GC 23% of the time on average",
    },
    Test {
        stem: "random_write",
        title: "Random write",
        aged: false,
        phase: "random-write",
        paper: "BAST GC share 86%; FAST and FASTer total time 17% of BAST's; FASTer 3× \
                slower than page mapping; GC 56% of the time on average",
    },
    Test {
        stem: "random_read",
        title: "Random read",
        aged: false,
        phase: "random-read",
        paper: "not reported separately (reads cause no GC)",
    },
];

/// Result of one FTL in one test.
struct Cell {
    ftl: &'static str,
    phase: Result<PhaseReport, String>,
}

impl Cell {
    fn total_s(&self) -> f64 {
        self.phase
            .as_ref()
            .map_or(f64::NAN, |p| p.elapsed_formula_us / 1e6)
    }
    fn gc_share(&self) -> f64 {
        self.phase.as_ref().map_or(f64::NAN, |p| p.gc_time_share)
    }
    fn gc_s(&self) -> f64 {
        self.total_s() * self.gc_share()
    }
    fn io_s(&self) -> f64 {
        self.total_s() - self.gc_s()
    }
}

fn ftls() -> Vec<&'static str> {
    let registered: Vec<&str> = FtlKind::all().iter().map(|k| k.1).collect();
    CORE.iter()
        .chain(EXTRA.iter())
        .copied()
        .filter(|f| registered.contains(f))
        .collect()
}

fn sizes(ctx: &Ctx) -> (&'static str, &'static str) {
    if ctx.quick {
        ("128MiB", "12800KiB")
    } else {
        ("1GiB", "100MiB")
    }
}

/// How the aged run ages the device before its sequential write: the paper's own
/// method, random writes over the whole flash area, from empty. The paper does not say
/// how much it wrote; the default takes its words literally, the whole area once: random
/// page writes of 1× the logical capacity (`precondition = "random"`,
/// `fill_percent = 100`). The claims registry's EXP-A1 grid varies the volume (1×, 2×,
/// 4×). Until this version the run aged with 25% of the capacity, the only setting of the
/// sensitivity sweep under which A3, A4 and A6 held; rule 0.6 of the registry forbids
/// choosing a setting that way, so the sweep below still shows every aging but its
/// findings never set this default. YAFFS2 ages at file level (`steady`), as block-level
/// random aging has no meaning below a file system.
const AGING: &str = "random100";

fn config(ctx: &Ctx, ftl: &str, aged: bool) -> Result<Config, ExpError> {
    config_with(
        ctx,
        ftl,
        aged,
        None,
        if ftl == YAFFS2 { "steady" } else { AGING },
    )
}

/// Words for an aging setting of the sweep.
fn aging_label(aging: &str) -> String {
    match aging.strip_prefix("random") {
        Some(n) => format!("random page writes of {n}% of the capacity, from empty"),
        None if aging == "steady" => "fill, then random overwrites until WA settles".into(),
        None => "one sequential fill".into(),
    }
}

/// [`config`] with the over-provisioning (`None`: the preset's) and the aging
/// precondition of the aged run (`steady`: random overwrites until WA settles; `fill`:
/// one sequential pass only) overridden — the sensitivity sweep's knobs.
fn config_with(
    ctx: &Ctx,
    ftl: &str,
    aged: bool,
    op_percent: Option<f64>,
    aging: &str,
) -> Result<Config, ExpError> {
    let (capacity, file) = sizes(ctx);
    let workload = if ftl == YAFFS2 {
        format!("span = \"{file}\"")
    } else if aged {
        format!("kind = \"seq-write\"\nsize = \"128KiB\"\nspan = \"{file}\"")
    } else {
        format!("kind = \"iozone\"\nspan = \"{file}\"")
    };
    let layer = if ftl == YAFFS2 {
        "[fs]\nname = \"yaffs2\"\nworkload = \"iozone-file\"\nremount = false\n".to_string()
    } else {
        format!("[ftl]\nname = \"{ftl}\"\n")
    };
    let op = op_percent.map_or(String::new(), |op| format!("op_percent = {op}\n"));
    // `randomNN`: random aging of NN% of the logical space's size.
    let (aging, amount) = match aging.strip_prefix("random") {
        Some(n) if !n.is_empty() => ("random", format!("fill_percent = {n}\n")),
        _ => (aging, String::new()),
    };
    let text = format!(
        "precondition = \"{}\"\n{}[device]\ncapacity = \"{capacity}\"\n{op}{layer}\
         [timing]\nmode = \"count\"\n[workload]\n{workload}\n",
        if aged { aging } else { "none" },
        if aged { amount.as_str() } else { "" }
    );
    let table: toml::Table = toml::from_str(&text)
        .map_err(|e| ExpError::Other(format!("internal config for {ftl}: {e}")))?;
    let mut c = Config::load_with(Some("android-emmc"), None, table)
        .map_err(|e| ExpError::Other(format!("android-emmc with {ftl}: {e}")))?;
    c.seed = ctx.seed;
    Ok(c)
}

/// This reproduction's [`Parameter`]s.
fn parameters(ctx: &Ctx) -> Vec<Parameter> {
    let (capacity, file) = sizes(ctx);
    vec![
        Parameter::new(
            "preset",
            "android-emmc (SLC, 2 KiB pages, 64 pages per block)",
            "the Android emulator's NAND default page and block (registry EXP-A1)",
        ),
        Parameter::new(
            "timings (formula)",
            "Tr 20 µs, Tw 250 µs, Te 1.5 ms",
            "the paper's elapsed-time formula (§4)",
        ),
        Parameter::new(
            "device capacity",
            capacity,
            "not in the paper; the preset's size (quick: an eighth, file scaled alike)",
        ),
        Parameter::new(
            "file",
            file,
            "the paper's 100 MB IOzone file (quick: an eighth)",
        ),
        Parameter::new(
            "over-provisioning (log area)",
            "7%",
            "not in the paper; the preset's (the hybrids' log area is the spare space)",
        ),
        Parameter::new(
            "records",
            "sequential 128 KiB, random 4 KiB",
            "IOzone's default 4 KiB record for the random tests; 128 KiB, the iozone \
             workload's large record, for the sequential ones (the paper gives no -r)",
        ),
        Parameter::new(
            "AGING",
            aging_label(AGING),
            "the paper: random writes over the whole flash area beforehand, volume not \
             given; taken literally as the whole area once (registry EXP-A1: 1×, 2×, 4×). \
             Was 25% of the capacity, chosen because A3, A4 and A6 held only there",
        ),
        Parameter::new(
            "YAFFS2 aging",
            aging_label("steady"),
            "file-level aging: block-level random writes have no meaning below a file system",
        ),
    ]
}

impl Experiment for AndroidFtl {
    fn name(&self) -> &'static str {
        "android-ftl"
    }

    fn about(&self) -> &'static str {
        "Kim et al. (Android): IOZone-like tests on page, BAST, FAST, FASTer (+NFTL, DFTL) and YAFFS2 on raw NAND; formula time split into I/O and GC"
    }

    fn run(&self, ctx: &mut Ctx) -> Result<(), ExpError> {
        let mut ftls = ftls();
        ftls.push(YAFFS2);
        let mut runs = Vec::new();
        for &f in &ftls {
            runs.push((format!("{f} fresh"), config(ctx, f, false)?));
            runs.push((format!("{f} aged"), config(ctx, f, true)?));
        }
        // A failed extra row (an FTL that cannot cope with the aged device) is reported,
        // not fatal; a failed core FTL is.
        let outs = ctx.run_many(&runs);
        let mut results: Vec<Vec<Cell>> = TESTS.iter().map(|_| Vec::new()).collect();
        // FTL counters of the fresh runs: only their random-write phase merges (the file
        // is created by first writes, in place), so they describe that test.
        let counters: Vec<(&str, BTreeMap<String, u64>)> = ftls
            .iter()
            .filter(|&&f| f != YAFFS2)
            .zip(outs.iter().step_by(2))
            .filter_map(|(&f, o)| o.as_ref().ok().map(|o| (f, o.report.counters.clone())))
            .collect();
        // DFTL's cache size, for the check of its aged write amplification.
        let dftl_cmt = ftls.iter().position(|&f| f == "dftl").and_then(|i| {
            outs[2 * i + 1]
                .as_ref()
                .ok()
                .and_then(|o| o.report.counters.get("ftl.dftl.cmt_entries").copied())
        });
        let geometry = config(ctx, "page", true)?
            .resolve_device()
            .map(|d| {
                (
                    d.logical_pages,
                    d.geometry.page_size_bytes,
                    d.geometry.pages_per_block,
                )
            })
            .map_err(|e| ExpError::Other(e.to_string()))?;
        for (i, &f) in ftls.iter().enumerate() {
            for (t, test) in TESTS.iter().enumerate() {
                let out = &outs[2 * i + test.aged as usize];
                let phase = match out {
                    Ok(o) => o
                        .report
                        .phases
                        .iter()
                        .find(|p| p.name == test.phase)
                        .cloned()
                        .ok_or_else(|| format!("no {} phase", test.phase)),
                    Err(e) if CORE.contains(&f) => return Err(ExpError::Other(e.to_string())),
                    Err(e) => Err(e.to_string()),
                };
                results[t].push(Cell { ftl: f, phase });
            }
        }
        let sweep = aged_sweep(ctx)?;
        write_outputs(ctx, &results, &counters, &sweep, (dftl_cmt, geometry));
        Ok(())
    }
}

/// Over-provisioning of the aged-write sensitivity sweep (the preset's 7% first).
const SWEEP_OP: [f64; 4] = [7.0, 15.0, 25.0, 50.0];
/// Aging patterns of the sweep: the paper's random aging, and one sequential pass.
const SWEEP_AGING: [&str; 5] = ["steady", "random100", "random50", "random25", "fill"];

/// One point of the aged sequential-write sweep.
struct SweepPoint {
    aging: &'static str,
    op: f64,
    ftl: &'static str,
    total_s: f64,
    gc_s: f64,
    gc_share: f64,
    wa: f64,
}

/// The aged sequential write over what the paper leaves unsaid: the over-provisioning
/// (log area) of its device and how it aged it.
fn aged_sweep(ctx: &Ctx) -> Result<Vec<SweepPoint>, ExpError> {
    let mut keys = Vec::new();
    let mut runs = Vec::new();
    for aging in SWEEP_AGING {
        for op in SWEEP_OP {
            for ftl in CORE {
                keys.push((aging, op, ftl));
                runs.push((
                    format!("sweep {aging} op {op} {ftl}"),
                    config_with(ctx, ftl, true, Some(op), aging)?,
                ));
            }
        }
    }
    let outs = ctx.run_all(&runs)?;
    let mut pts = Vec::new();
    for ((aging, op, ftl), out) in keys.into_iter().zip(outs) {
        let p = out
            .report
            .phases
            .iter()
            .find(|p| p.name == "seq-write")
            .ok_or_else(|| ExpError::Other("sweep run without a seq-write phase".into()))?;
        let total_s = p.elapsed_formula_us / 1e6;
        pts.push(SweepPoint {
            aging,
            op,
            ftl,
            total_s,
            gc_s: total_s * p.gc_time_share,
            gc_share: p.gc_time_share,
            wa: p.write_amplification,
        });
    }
    Ok(pts)
}

/// Write amplification of FIFO cleaning under uniform random page writes with `alpha`
/// = physical / logical pages (Hu et al. 2009, Desnoyers 2012: WA = 1 / (1 − x) with
/// x = −W0(−α·e^−α) / α); greedy cleaning does at least as well. An analytic reference
/// for the page FTL after random aging.
pub fn fifo_wa(alpha: f64) -> f64 {
    let y = -alpha * (-alpha).exp();
    // W0 by Halley's iteration from a branch-point start.
    let mut w = if y < -0.3 {
        -1.0 + (2.0 * (1.0 + std::f64::consts::E * y)).sqrt()
    } else {
        y
    };
    for _ in 0..100 {
        let ew = w.exp();
        let f = w * ew - y;
        let next = w - f / (ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0));
        if (next - w).abs() < 1e-15 {
            w = next;
            break;
        }
        w = next;
    }
    let x = -w / alpha;
    1.0 / (1.0 - x)
}

fn find<'a>(cells: &'a [Cell], ftl: &str) -> Option<&'a Cell> {
    cells.iter().find(|c| c.ftl == ftl && c.phase.is_ok())
}

fn ratio(cells: &[Cell], a: &str, b: &str) -> f64 {
    match (find(cells, a), find(cells, b)) {
        (Some(x), Some(y)) => x.total_s() / y.total_s(),
        _ => f64::NAN,
    }
}

fn check(ok: bool) -> &'static str {
    if ok { "yes" } else { "**no**" }
}

fn write_outputs(
    ctx: &mut Ctx,
    results: &[Vec<Cell>],
    counters: &[(&str, BTreeMap<String, u64>)],
    sweep: &[SweepPoint],
    dftl: (Option<u64>, (u64, u32, u32)),
) {
    let (capacity, file) = sizes(ctx);
    let header = [
        "test",
        "ftl",
        "io_s",
        "gc_s",
        "total_s",
        "gc_share",
        "relative_to_bast",
        "relative_to_page",
        "host_write_pages",
        "host_read_pages",
        "gc_copy_pages",
        "erases",
        "write_amplification",
        "status",
    ];
    let mut csv_rows = Vec::new();
    for (test, cells) in TESTS.iter().zip(results) {
        for c in cells {
            let p = c.phase.as_ref().ok();
            let n = |f: fn(&PhaseReport) -> u64| p.map_or(String::new(), |p| f(p).to_string());
            csv_rows.push(vec![
                test.stem.to_string(),
                c.ftl.to_string(),
                fmt_f(c.io_s(), 4),
                fmt_f(c.gc_s(), 4),
                fmt_f(c.total_s(), 4),
                fmt_f(c.gc_share(), 4),
                fmt_f(ratio(cells, c.ftl, "bast"), 4),
                fmt_f(ratio(cells, c.ftl, "page"), 4),
                n(|p| p.host_write_pages),
                n(|p| p.host_read_pages),
                n(|p| p.gc_copy_pages),
                n(|p| p.erases),
                p.map_or(String::new(), |p| fmt_f(p.write_amplification, 3)),
                match &c.phase {
                    Ok(_) => "ok".into(),
                    Err(e) => format!("failed: {e}"),
                },
            ]);
        }
        let cats: Vec<String> = cells.iter().map(|c| c.ftl.to_string()).collect();
        let io: Vec<f64> = cells.iter().map(Cell::io_s).collect();
        let gc: Vec<f64> = cells.iter().map(Cell::gc_s).collect();
        ctx.svg(
            test.stem,
            bar_chart_svg(
                &format!("{}: elapsed time by the formula ({file} file)", test.title),
                "elapsed time (s)",
                &cats,
                &[("I/O".into(), io), ("GC".into(), gc)],
                true,
            ),
        );
    }
    ctx.csv("android_ftl", &header, csv_rows);
    let mut claims = claims(results);
    sweep_outputs(ctx, sweep, &mut claims);
    let (mut intro, mut md) = summary(ctx.quick, capacity, file, results);
    intro.push_str(&parameters_section(ctx, &parameters(ctx)));
    md.push_str(&merges(counters));
    md.push_str(&model_checks(results, sweep, dftl));
    md.push_str(&differences(results));
    claims::finish(
        ctx,
        &claims,
        "FTLs on Android: IOZone-like tests (Kim et al., SKKU)",
        &intro,
        &md,
    );
}

/// The paper's claims (docs/papers.md §4), tested on our numbers.
fn claims(results: &[Vec<Cell>]) -> Claims {
    let cells = |stem: &str| &results[TESTS.iter().position(|t| t.stem == stem).expect("test")];
    let core = |cells: &'_ [Cell]| -> Vec<(&'static str, f64)> {
        cells
            .iter()
            .filter(|c| CORE.contains(&c.ftl) && c.phase.is_ok())
            .map(|c| (c.ftl, c.total_s()))
            .collect()
    };
    let extreme = |cs: &[(&'static str, f64)], max: bool| {
        cs.iter()
            .copied()
            .reduce(|a, b| if (b.1 > a.1) == max { b } else { a })
            .map_or("?", |x| x.0)
    };
    let mean_share = |stem: &str| {
        let v: Vec<f64> = cells(stem)
            .iter()
            .filter(|c| CORE.contains(&c.ftl) && c.phase.is_ok())
            .map(Cell::gc_share)
            .collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    let gc = |stem: &str, f: &str| find(cells(stem), f).map_or(f64::NAN, |c| c.gc_s());
    let share = |stem: &str, f: &str| find(cells(stem), f).map_or(f64::NAN, |c| c.gc_share());
    let mut c = Claims::default();
    let reads = core(cells("seq_read"));
    let (lo, hi) = reads
        .iter()
        .fold((f64::MAX, 0.0f64), |(a, b), x| (a.min(x.1), b.max(x.1)));
    c.push(Claim::new(
        "A1",
        "§4 sequential read",
        "all FTLs equal",
        format!("spread {}", pct(hi / lo - 1.0)),
        "max/min of page, BAST, FAST, FASTer < 1.03",
        hi / lo < 1.03,
    ));
    let aged = core(cells("seq_write_aged"));
    let fastest = extreme(&aged, false);
    let slowest = extreme(&aged, true);
    c.push(Claim::new(
        "A2",
        "§4 sequential write (aged)",
        "page mapping fastest",
        format!("fastest: {fastest}"),
        "page has the least formula time",
        fastest == "page",
    ));
    let fp = ratio(cells("seq_write_aged"), "fast", "page");
    c.push(Claim::new(
        "A3",
        "§4 sequential write (aged)",
        "FAST within 10% of page",
        format!("FAST / page = {}", fmt_f(fp, 2)),
        "0.9 <= FAST / page <= 1.1",
        (0.9..=1.1).contains(&fp),
    ));
    c.push(Claim::new(
        "A4",
        "§4 sequential write (aged)",
        "BAST slowest",
        format!("slowest: {slowest}"),
        "BAST has the most formula time",
        slowest == "bast",
    ));
    let fb = gc("seq_write_aged", "fast") / gc("seq_write_aged", "bast");
    c.push(Claim::new(
        "A5",
        "§4 sequential write (aged)",
        "FAST/FASTer GC cost about half of BAST's",
        format!(
            "FAST GC / BAST GC = {}, FASTer {}",
            fmt_f(fb, 2),
            fmt_f(
                gc("seq_write_aged", "faster") / gc("seq_write_aged", "bast"),
                2
            )
        ),
        "0.3 <= FAST GC / BAST GC <= 0.7",
        (0.3..=0.7).contains(&fb),
    ));
    let sw = mean_share("seq_write_aged");
    c.push(Claim::new(
        "A6",
        "§4 GC share",
        "23% on average for sequential writes",
        pct(sw),
        "within 10 points of 23%",
        (sw - 0.23).abs() <= 0.10,
    ));
    let bs = share("random_write", "bast");
    c.push(Claim::new(
        "A7",
        "§4 random write",
        "BAST GC share 86%",
        pct(bs),
        "within 10 points of 86%",
        (bs - 0.86).abs() <= 0.10,
    ));
    let (f, fr) = (
        ratio(cells("random_write"), "fast", "bast"),
        ratio(cells("random_write"), "faster", "bast"),
    );
    c.push(Claim::new(
        "A8",
        "§4 random write",
        "FAST and FASTer total time 17% of BAST's",
        format!("FAST {}, FASTer {}", pct(f), pct(fr)),
        "both within a factor 2 of 17% (8.5%–34%)",
        [f, fr].iter().all(|x| (0.085..=0.34).contains(x)),
    ));
    let fpage = ratio(cells("random_write"), "faster", "page");
    c.push(Claim::new(
        "A9",
        "§4 random write",
        "FASTer 3× slower than page mapping",
        format!("FASTer / page = {}", fmt_f(fpage, 2)),
        "within a factor 2 of 3 (1.5–6)",
        (1.5..=6.0).contains(&fpage),
    ));
    let rw = mean_share("random_write");
    c.push(Claim::new(
        "A10",
        "§4 GC share",
        "56% on average for random writes",
        pct(rw),
        "within 10 points of 56%",
        (rw - 0.56).abs() <= 0.10,
    ));
    let rfast = extreme(&core(cells("random_write")), false);
    c.push(Claim::new(
        "A11",
        "§4 random write",
        "page mapping fastest (largest differences)",
        format!("fastest: {rfast}"),
        "page has the least formula time",
        rfast == "page",
    ));
    c
}

/// The sweep's figure and its claims' explanation.
fn sweep_outputs(ctx: &mut Ctx, sweep: &[SweepPoint], claims: &mut Claims) {
    let mut rows = Vec::new();
    for p in sweep {
        rows.push(vec![
            p.aging.to_string(),
            fmt_f(p.op, 0),
            p.ftl.to_string(),
            fmt_f(p.total_s, 4),
            fmt_f(p.gc_s, 4),
            fmt_f(p.gc_share, 4),
            fmt_f(p.wa, 3),
        ]);
    }
    ctx.csv(
        "sensitivity_aged_write",
        &[
            "aging",
            "op_percent",
            "ftl",
            "total_s",
            "gc_s",
            "gc_share",
            "write_amplification",
        ],
        rows,
    );
    let get = |aging: &str, op: f64, ftl: &str| {
        sweep
            .iter()
            .find(|p| p.aging == aging && p.op == op && p.ftl == ftl)
    };
    for aging in SWEEP_AGING {
        let series: Vec<(String, Vec<(f64, f64)>)> = CORE
            .iter()
            .map(|&f| {
                (
                    f.to_string(),
                    SWEEP_OP
                        .iter()
                        .filter_map(|&op| get(aging, op, f).map(|p| (op, p.total_s)))
                        .collect(),
                )
            })
            .collect();
        ctx.svg(
            &format!("sensitivity_aged_write_{aging}"),
            line_chart_svg(
                &format!(
                    "Aged sequential write vs over-provisioning ({})",
                    aging_label(aging)
                ),
                "over-provisioning (%)",
                "formula time (s)",
                &series,
                false,
            ),
        );
    }
    // Which settings give the paper's A2–A6?
    let mut order_found = Vec::new();
    let mut found = Vec::new();
    let mut at_preset = Vec::new();
    for aging in SWEEP_AGING {
        for op in SWEEP_OP {
            let t = |f: &str| get(aging, op, f).map_or(f64::NAN, |p| p.total_s);
            let g = |f: &str| get(aging, op, f).map_or(f64::NAN, |p| p.gc_s);
            let share = CORE
                .iter()
                .map(|&f| get(aging, op, f).map_or(f64::NAN, |p| p.gc_share))
                .sum::<f64>()
                / CORE.len() as f64;
            let page_fastest = CORE.iter().all(|&f| t("page") <= t(f) * 1.0001);
            let fast_within = (0.9..=1.1).contains(&(t("fast") / t("page")));
            let bast_slowest = CORE.iter().all(|&f| t("bast") >= t(f));
            let half = (0.3..=0.7).contains(&(g("fast") / g("bast")));
            let gc23 = (share - 0.23).abs() <= 0.10;
            let label = format!("{} at {op}% over-provisioning", aging_label(aging));
            if page_fastest && fast_within && bast_slowest && gc23 {
                order_found.push(label.clone());
            }
            if page_fastest && fast_within && bast_slowest && gc23 && half {
                found.push(label);
            }
            if op == SWEEP_OP[0] {
                let wa = |f: &str| get(aging, op, f).map_or("?".into(), |p| fmt_f(p.wa, 2));
                at_preset.push(format!(
                    "{}: page {} s (WA {}), FAST {} s (WA {}), BAST {} s (WA {}), FAST GC / \
                     BAST GC {}, mean GC share {}",
                    aging_label(aging),
                    fmt_f(t("page"), 2),
                    wa("page"),
                    fmt_f(t("fast"), 2),
                    wa("fast"),
                    fmt_f(t("bast"), 2),
                    wa("bast"),
                    fmt_f(g("fast") / g("bast"), 2),
                    pct(share),
                ));
            }
        }
    }
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join("; ")
        }
    };
    let explanation = format!(
        "At the preset's {}% over-provisioning, by aging: {}. Settings where page mapping \
         is fastest, FAST within 10% of it, BAST slowest and the mean GC share within 10 \
         points of 23% (A2, A3, A4, A6): {}. Settings where FAST's GC is also 0.3–0.7 of \
         BAST's (A5 too): {}. This run ages with: {}.",
        fmt_f(SWEEP_OP[0], 0),
        at_preset.join("; "),
        list(&order_found),
        list(&found),
        aging_label(AGING),
    );
    claims.sensitivity(Sensitivity {
        claims: ["A2", "A3", "A4", "A5", "A6"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        swept: format!(
            "aged sequential write over the over-provisioning ({}%) and the aging ({}); \
             the paper gives neither",
            SWEEP_OP
                .iter()
                .map(|o| fmt_f(*o, 0))
                .collect::<Vec<_>>()
                .join(", "),
            SWEEP_AGING
                .iter()
                .map(|a| aging_label(a))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        figures: SWEEP_AGING
            .iter()
            .map(|a| format!("sensitivity_aged_write_{a}.svg"))
            .collect(),
        setting_found: (!order_found.is_empty()).then(|| order_found.join("; ")),
        explanation,
    });
}

/// Are the aged write amplifications right? Independent references: the analytic WA of
/// uniform random writes for the page FTL, and the page FTL's WA squared for DFTL (each
/// GC copy of a random-aged page dirties its own translation page, and translation
/// blocks are collected at the same utilisation as data blocks).
fn model_checks(
    results: &[Vec<Cell>],
    sweep: &[SweepPoint],
    dftl: (Option<u64>, (u64, u32, u32)),
) -> String {
    let aged = &results[TESTS
        .iter()
        .position(|t| t.stem == "seq_write_aged")
        .expect("test")];
    let wa = |f: &str| {
        find(aged, f)
            .and_then(|c| c.phase.as_ref().ok())
            .map_or(f64::NAN, |p| p.write_amplification)
    };
    let mut md = String::from(
        "## Are the aged write amplifications right?

",
    );
    let alpha = 1.0 + SWEEP_OP[0] / 100.0;
    md.push_str(&format!(
        "- Page FTL: WA {} in the aged sequential write. Uniform random writes at {}% \
         over-provisioning give WA {} with FIFO cleaning (analytic, Hu et al. 2009; greedy \
         does at least as well): the sequential write still collects the randomly aged \
         blocks, so its WA is the aged device's, {} the analytic bound.
",
        fmt_f(wa("page"), 2),
        fmt_f(SWEEP_OP[0], 0),
        fmt_f(fifo_wa(alpha), 2),
        if wa("page") <= fifo_wa(alpha) * 1.02 {
            "within"
        } else {
            "**above**"
        }
    ));
    if let (true, (Some(cmt), (logical, page_bytes, np))) = (wa("dftl").is_finite(), dftl) {
        // c: the page FTL's GC copies per host page at this utilisation; a greedy victim
        // then holds v = Np·c/(1+c) valid pages. A copied page needs a translation-page
        // write unless its mapping is cached (probability cmt/logical), and the v pages
        // of one victim share translation pages (E entries each, T of them): the
        // expected distinct pages among v random mappings is T·(1 − (1 − 1/T)^v).
        // Translation pages are collected at the same utilisation, c copies each.
        let c = wa("page") - 1.0;
        let v = np as f64 * c / (1.0 + c);
        let e = page_bytes as f64 / 4.0;
        let t = (logical as f64 / e).ceil();
        let distinct = t * (1.0 - (1.0 - 1.0 / t).powf(v)) / v;
        let miss = 1.0 - (cmt as f64 / logical as f64).min(1.0);
        let u = c * miss * distinct;
        let pred = 1.0 + c + u * (1.0 + c);
        md.push_str(&format!(
            "- DFTL: WA {}. Estimate from the page FTL's copies c = {} per host page: a \
             victim holds v = {} valid pages, a copied page needs a translation-page write \
             unless its mapping is cached ({} of {} mappings fit the cache) and copies of one \
             victim share translation pages ({} entries each: {} distinct pages per copy), \
             so u = {} translation writes per host page; translation blocks are collected \
             at the same utilisation (c copies each): WA ≈ 1 + c + u·(1 + c) = {}, {} from \
             the measured value: {}.\n",
            fmt_f(wa("dftl"), 2),
            fmt_f(c, 2),
            fmt_f(v, 1),
            cmt,
            logical,
            fmt_f(e, 0),
            fmt_f(distinct, 2),
            fmt_f(u, 2),
            fmt_f(pred, 1),
            pct(wa("dftl") / pred - 1.0),
            if (wa("dftl") / pred - 1.0).abs() <= 0.25 {
                "the estimate accounts for DFTL's WA within 25%"
            } else {
                "**the estimate misses by more than 25%** (on small devices the translation \
                 pool is a few blocks, so its victims are not at the data blocks' \
                 utilisation; compare the full-size run)"
            }
        ));
    }
    let steady: Vec<String> = sweep
        .iter()
        .filter(|p| p.aging == "steady" && p.ftl == "page")
        .map(|p| {
            format!(
                "{}%: {} (FIFO {})",
                fmt_f(p.op, 0),
                fmt_f(p.wa, 2),
                fmt_f(fifo_wa(1.0 + p.op / 100.0), 2)
            )
        })
        .collect();
    md.push_str(&format!(
        "- Page FTL WA across the sweep's over-provisioning (ours vs the FIFO bound): {}.

",
        steady.join(", ")
    ));
    md
}

fn summary(quick: bool, capacity: &str, file: &str, results: &[Vec<Cell>]) -> (String, String) {
    let mut intro = String::new();
    intro.push_str(&format!(
        "Reproduction of docs/papers.md §4 on the `android-emmc` preset ({capacity} SLC, 2 KiB pages, \
         64 pages per block, 7% over-provisioning) in counting mode: elapsed time = \
         Cr·Tr + Cw·Tw + Gc·Tw + Ce·Te with Tr = 20 µs, Tw = 250 µs, Te = 1.5 ms (a GC copy \
         charged Tw, as in the paper). I/O = host reads and programs (plus NFTL's chain and \
         DFTL's translation reads); GC = merge/GC copies and all erases. The file is \
         {file}. Reads, random writes and the fresh sequential write come from one IOZone \
         run per FTL on a fresh device (sequential write, sequential read, random 4 KiB \
         writes, random reads over the file); the sequential-write test is a second run \
         after aging the device with {} (the paper: random writes over the whole area, \
         volume not given; the default is the whole area once, section Parameters; the \
         sensitivity section shows the other agings; YAFFS2 ages at file level until its \
         WA settles). FTLs use their defaults (docs/ftls.md): the hybrids' log area is the \
         over-provisioned space. The YAFFS2 row is the same tests at file level on the raw \
         NAND (docs/fs.md): no FTL, the whole array (over-provisioned part included) is the \
         file system's. CSV: `android_ftl.csv`; figures: `seq_read.svg`, \
         `seq_write_aged.svg`, `random_write.svg`, `random_read.svg` (stacked I/O and GC).\n\n",
        aging_label(AGING)
    ));
    if quick {
        intro.push_str(
            "**Quick mode:** device and file scaled down eightfold; trends, not final numbers.\n\n",
        );
    }
    let mut md = String::new();
    for (test, cells) in TESTS.iter().zip(results) {
        md.push_str(&format!("## {}\n\nPaper: {}.\n\n", test.title, test.paper));
        let rows: Vec<Vec<String>> = cells
            .iter()
            .map(|c| match &c.phase {
                Ok(_) => vec![
                    c.ftl.to_string(),
                    fmt_f(c.io_s(), 2),
                    fmt_f(c.gc_s(), 2),
                    fmt_f(c.total_s(), 2),
                    pct(c.gc_share()),
                    fmt_f(ratio(cells, c.ftl, "bast"), 3),
                    fmt_f(ratio(cells, c.ftl, "page"), 2),
                ],
                Err(e) => vec![
                    c.ftl.to_string(),
                    format!("failed: {e}"),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                ],
            })
            .collect();
        md.push_str(&md_table(
            &[
                "FTL",
                "I/O (s)",
                "GC (s)",
                "total (s)",
                "GC share",
                "÷ BAST",
                "÷ page",
            ],
            &rows,
        ));
        md.push('\n');
        md.push_str(&findings(test.stem, cells));
    }
    md.push_str(&averages(results));
    (intro, md)
}

/// Merge counters behind the random-write test.
fn merges(counters: &[(&str, BTreeMap<String, u64>)]) -> String {
    let get = |c: &BTreeMap<String, u64>, k: &str| c.get(k).copied();
    let show = |v: Option<u64>| v.map_or("–".to_string(), |v| v.to_string());
    let mut rows = Vec::new();
    for (f, c) in counters {
        if get(c, "ftl.merge.full").is_none() {
            continue;
        }
        let bast_util = match (
            get(c, "ftl.bast.merged_log_pages"),
            get(c, "ftl.merge.full"),
            get(c, "ftl.merge.partial"),
            get(c, "ftl.merge.switch"),
        ) {
            (Some(p), Some(a), Some(b), Some(d)) if a + b + d > 0 => {
                fmt_f(p as f64 / (a + b + d) as f64, 1)
            }
            _ => "–".into(),
        };
        let assoc = match (get(c, "ftl.log.reclaim_merges"), get(c, "ftl.log.reclaims")) {
            (Some(m), Some(r)) if r > 0 => fmt_f(m as f64 / r as f64, 1),
            _ => "–".into(),
        };
        rows.push(vec![
            f.to_string(),
            show(get(c, "ftl.merge.switch")),
            show(get(c, "ftl.merge.partial")),
            show(get(c, "ftl.merge.full")),
            bast_util,
            assoc,
        ]);
    }
    let mut md = String::from(
        "## Merges behind the random-write numbers\n\n\
         FTL counters of the fresh runs (their sequential write creates the file with \
         first writes in place, so the merges are the random-write test's). BAST's log \
         blocks hold few pages when merged: log-block thrashing, most writes find no log \
         block for their data block and evict another one nearly empty. FAST reclaims a \
         random log block by merging every data block with a page in it (its \
         associativity), and each merge gathers all of that block's log pages at once; \
         FAST's partial merges close its sequential log block, which every random write \
         to a block's first page opens. FASTer's second chances and isolation copies \
         replace most of FAST's merges.\n\n",
    );
    md.push_str(&md_table(
        &[
            "FTL",
            "switch",
            "partial",
            "full",
            "BAST log pages per merge",
            "RW reclaim associativity",
        ],
        &rows,
    ));
    md.push('\n');
    md
}

/// The paper's claims for one test, checked against ours.
fn findings(stem: &str, cells: &[Cell]) -> String {
    let core: Vec<&Cell> = cells
        .iter()
        .filter(|c| CORE.contains(&c.ftl) && c.phase.is_ok())
        .collect();
    let totals = |cs: &[&Cell]| {
        let min = cs.iter().map(|c| c.total_s()).fold(f64::MAX, f64::min);
        let max = cs.iter().map(|c| c.total_s()).fold(0.0, f64::max);
        (min, max)
    };
    let gc = |f: &str| find(cells, f).map_or(f64::NAN, |c| c.gc_s());
    let share = |f: &str| find(cells, f).map_or(f64::NAN, |c| c.gc_share());
    let fastest = core
        .iter()
        .min_by(|a, b| a.total_s().total_cmp(&b.total_s()))
        .map_or("?", |c| c.ftl);
    let slowest = core
        .iter()
        .max_by(|a, b| a.total_s().total_cmp(&b.total_s()))
        .map_or("?", |c| c.ftl);
    let mut s = String::new();
    match stem {
        "seq_read" | "random_read" => {
            let (min, max) = totals(&core);
            s.push_str(&format!(
                "- Page, BAST, FAST and FASTer within a few percent of each other: {} \
                 (spread {}).\n",
                check(max / min < 1.03),
                pct(max / min - 1.0)
            ));
        }
        "seq_write_aged" => {
            s.push_str(&format!(
                "- Fastest: {fastest} (paper: page). Slowest: {slowest} (paper: BAST).\n\
                 - FAST ÷ page: {} (paper: FAST within 10% of page, i.e. about 1.0–1.1).\n\
                 - FAST GC ÷ BAST GC: {}, FASTer GC ÷ BAST GC: {} (paper: about 0.5).\n",
                fmt_f(ratio(cells, "fast", "page"), 2),
                fmt_f(gc("fast") / gc("bast"), 2),
                fmt_f(gc("faster") / gc("bast"), 2),
            ));
        }
        "random_write" => {
            s.push_str(&format!(
                "- BAST's GC share far above FAST's: {} ({} vs {}; paper: BAST 86%).\n\
                 - FAST and FASTer a small fraction of BAST's time: {} (FAST {}, FASTer {} \
                 of BAST; paper: 17%).\n\
                 - Page mapping fastest: {} (fastest: {fastest}); FASTer ÷ page = {} \
                 (paper: 3).\n",
                check(share("bast") - share("fast") > 0.15),
                pct(share("bast")),
                pct(share("fast")),
                check(ratio(cells, "fast", "bast") < 0.35 && ratio(cells, "faster", "bast") < 0.35),
                pct(ratio(cells, "fast", "bast")),
                pct(ratio(cells, "faster", "bast")),
                check(fastest == "page"),
                fmt_f(ratio(cells, "faster", "page"), 2),
            ));
        }
        _ => {}
    }
    s.push_str(&yaffs2_finding(stem, cells, &core));
    s.push('\n');
    s
}

/// YAFFS2 against the paper's FTLs in one test, computed (the paper reports YAFFS2 for
/// the sequential read only: "slightly faster" than the FTLs, which are equal).
fn yaffs2_finding(stem: &str, cells: &[Cell], core: &[&Cell]) -> String {
    let Some(y) = find(cells, YAFFS2) else {
        return match cells.iter().find(|c| c.ftl == YAFFS2) {
            Some(Cell { phase: Err(e), .. }) => format!("- YAFFS2: failed ({e}).\n"),
            _ => String::new(),
        };
    };
    let fastest = core.iter().map(|c| c.total_s()).fold(f64::MAX, f64::min);
    let r = y.total_s() / fastest;
    match stem {
        "seq_read" => format!(
            "- YAFFS2 ÷ fastest of page/BAST/FAST/FASTer: {} (paper: YAFFS2 slightly faster, \
             i.e. a little below 1): {}. Ours reads each chunk once, as the FTLs read each \
             page once, so the formula gives the same time unless YAFFS2 reads fewer pages.\n",
            fmt_f(r, 3),
            check(r < 1.0 && r > 0.8)
        ),
        _ => format!(
            "- YAFFS2 (no FTL, raw NAND): {} s, ÷ fastest of the paper's FTLs {}, GC share {} \
             (the paper gives no YAFFS2 figure for this test).\n",
            fmt_f(y.total_s(), 2),
            fmt_f(r, 2),
            pct(y.gc_share())
        ),
    }
}

fn averages(results: &[Vec<Cell>]) -> String {
    let mean_share = |stem: &str| {
        let t = TESTS.iter().position(|t| t.stem == stem).expect("test");
        let v: Vec<f64> = results[t]
            .iter()
            .filter(|c| CORE.contains(&c.ftl) && c.phase.is_ok())
            .map(Cell::gc_share)
            .collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    format!(
        "## GC share of the time, averaged over page, BAST, FAST and FASTer\n\n\
         Sequential write (aged): {} (paper: 23%). Random write: {} (paper: 56%).\n\n",
        pct(mean_share("seq_write_aged")),
        pct(mean_share("random_write"))
    )
}

/// Mechanisms behind the numbers, each stated with the counters that show it.
fn differences(results: &[Vec<Cell>]) -> String {
    let cells = |stem: &str| &results[TESTS.iter().position(|t| t.stem == stem).expect("test")];
    let phase = |stem: &str, f: &str| find(cells(stem), f).and_then(|c| c.phase.as_ref().ok());
    let per_host = |stem: &str, f: &str, g: fn(&PhaseReport) -> u64| {
        phase(stem, f).map_or(f64::NAN, |p| g(p) as f64 / p.host_write_pages.max(1) as f64)
    };
    let mut md = String::from("## Mechanisms, from the counters\n\n");
    md.push_str(&format!(
        "- Aged sequential write, GC copies per host page: page {}, BAST {}, FAST {}, \
         FASTer {}; erases per 64 host pages: page {}, BAST {}, FAST {}. Copies are what \
         separates the FTLs here; a switch merge costs one erase and no copy.\n",
        fmt_f(per_host("seq_write_aged", "page", |p| p.gc_copy_pages), 2),
        fmt_f(per_host("seq_write_aged", "bast", |p| p.gc_copy_pages), 2),
        fmt_f(per_host("seq_write_aged", "fast", |p| p.gc_copy_pages), 2),
        fmt_f(per_host("seq_write_aged", "faster", |p| p.gc_copy_pages), 2),
        fmt_f(64.0 * per_host("seq_write_aged", "page", |p| p.erases), 2),
        fmt_f(64.0 * per_host("seq_write_aged", "bast", |p| p.erases), 2),
        fmt_f(64.0 * per_host("seq_write_aged", "fast", |p| p.erases), 2),
    ));
    md.push_str(&format!(
        "- Random write, GC copies per host page: page {}, BAST {}, FAST {}, FASTer {} \
         (the page FTL's GC share {} on the freshly written file).\n",
        fmt_f(per_host("random_write", "page", |p| p.gc_copy_pages), 2),
        fmt_f(per_host("random_write", "bast", |p| p.gc_copy_pages), 2),
        fmt_f(per_host("random_write", "fast", |p| p.gc_copy_pages), 2),
        fmt_f(per_host("random_write", "faster", |p| p.gc_copy_pages), 2),
        pct(find(cells("random_write"), "page").map_or(f64::NAN, |c| c.gc_share())),
    ));
    md.push_str(
        "- Reads: page, BAST, FAST and FASTer read a page with one flash read (their log \
         searches are RAM lookups); NFTL pays a spare-area read per replacement unit \
         examined (`ftl.nftl.charge_chain_reads`) and DFTL a translation-page read per \
         mapping not cached, which the extra rows show. YAFFS2 also reads each chunk with \
         one flash read (its Tnode tree is in RAM); its row runs IOZone at file level, so \
         its random-write test follows a rewrite of the whole file (IOZone's -i 0), and \
         its object headers are metadata writes (cause `map`).\n",
    );
    if let Some(c) = results.iter().flatten().find(|c| c.phase.is_err()) {
        md.push_str(&format!(
            "- **{} failed a test** and is shown as failed rather than hidden: {}.\n",
            c.ftl,
            c.phase.as_ref().err().map_or("", |e| e.as_str())
        ));
    }
    md
}
