//! `ssdlab reproduce cftl` — Park & Kim, "A Clustered Flash Translation Layer for Mobile
//! Storage Systems", IEEK 2008 (docs/papers.md §3): NFTL, AFTL and CFTL compared on mapping
//! memory and address-translation cost.
//!
//! ```text
//! device   the paper's kind of CompactFlash card: 512 B pages, 16 KiB blocks (32 pages),
//!          SLC, one plane, 256 MiB, 7% spare, counting mode
//! 1 memory NFTL, AFTL, CFTL built at each MFS (L1 + L2) setting of Table 3: mapping bytes
//!          of the fine tables and in total, from the FTLs' real structures
//! 2 cost   the Andrew-like small-file workload (`--workload andrew`) and every trace
//!          sample found in ../shared/traces (if present; skipped otherwise), replayed on
//!          each FTL: lookups, table probes (RAM) and page slots (spare-area reads) per
//!          lookup, the modelled translation time from them (the claims' measure), share
//!          served by the fine tables, flash reads spent on translation, write
//!          amplification; a sweep over promotion threshold × MFS × RAM probe cost
//! 3 time   the Andrew-like workload replayed in process on each FTL, then the pages it
//!          read looked up again (`Ftl::read`) several times: real ns per lookup, the
//!          fastest pass (machine-dependent: the only output that varies between runs)
//! ```
//! The paper's numbers appear only in the summary text, beside ours.

use super::claims::{self, Claim, Claims, Sensitivity};
use super::mgmt_block::{Parameter, parameters_section};
use super::{Ctx, ExpError, Experiment, fmt_f, md_table};
use crate::config::Config;
use crate::ftl::{Ftl, build_ftl};
use crate::nand::{Lpn, Nand};
use crate::report::svg::{bar_chart_svg, line_chart_svg};
use crate::sim::RunOutput;
use crate::workload::OpKind;
use crate::workload::synth::{self, SynthKind};
use crate::workload::trace::{FitPolicy, TraceFormat};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

/// The experiment.
pub struct CftlRepro;

/// The FTLs the paper compares (memory section: NFTL's table is the same in both
/// variants).
const FTLS: [&str; 3] = ["nftl", "aftl", "cftl"];
/// The FTLs of the translation-cost section: both NFTL variants — `nftl` the Linux
/// fixed-offset one, `nftl-log` the replacement-block-scanning one the paper describes.
const COST_FTLS: [&str; 4] = ["nftl", "nftl-log", "aftl", "cftl"];

/// Table 3's MFS settings (short L1 + long L2 fine-grained slots), as printed.
const MFS: [(u32, u32); 6] = [
    (2_500, 10_000),
    (5_000, 20_000),
    (7_500, 30_000),
    (10_000, 40_000),
    (12_500, 60_000),
    (15_000, 70_000),
];

/// Trace samples by directory: (directory, format).
const TRACE_DIRS: [(&str, TraceFormat); 6] = [
    ("msr", TraceFormat::Msr),
    ("heimdall-msr", TraceFormat::Heimdall),
    ("spc-ascii", TraceFormat::Ascii),
    ("disksim", TraceFormat::Disksim),
    ("blkparse", TraceFormat::Blkparse),
    ("snia-tencent", TraceFormat::Tencent),
];

/// Quick mode replays only trace samples up to this size.
const QUICK_TRACE_BYTES: u64 = 400 << 10;

/// The card, with `ftl` and optional MFS.
fn card(ftl: &str, seed: u64) -> Result<Config, ExpError> {
    let (ftl, variant) = match ftl {
        "nftl-log" => ("nftl", "[ftl.nftl]\nvariant = \"log\"\n"),
        f => (f, ""),
    };
    let text = format!(
        r#"
        seed = {seed}
        [device]
        cell = "slc"
        # The paper's SLC (docs/papers.md §1 Figure 2), not the default preset's TLC.
        read_ns = 25000
        program_ns = 250000
        erase_ns = 1500000
        # t_RC = 25 ns per byte on the flash bus (40 MB/s), as Figure 2 gives.
        channel_mb_s = 40.0
        capacity = "256MiB"
        op_percent = 7.0
        channels = 1
        chips_per_channel = 1
        dies_per_chip = 1
        planes_per_die = 1
        page_size = "512B"
        oob_size = "16B"
        pages_per_block = 32
        host_link_mb_s = 0.0
        dram_buffer = "0B"
        # The card has none of the default preset's NVMe controller, SLC cache or
        # multi-plane programs, and no write buffer.
        pages_per_program = 1
        slc_cache_percent = 0.0
        controller_latency_ns = 0
        controller_command_ns = 0
        [buffer]
        name = "none"
        [ftl]
        name = "{ftl}"
        [timing]
        mode = "count"
        {variant}"#
    );
    Config::load(None, Some(("cftl experiment", &text)))
        .map_err(|e| ExpError::Other(format!("internal config: {e}")))
}

/// CFTL's promotion threshold in this reproduction: the FTL's own default
/// (`ftl.cftl.promote_hits`, docs/config.md), 2, "promoted when used again", so that a
/// cluster read once, as a sequential pass reads it, is not promoted. It was set with the
/// FTL's per-cluster hit counting (2026-11-22), before this reproduction checked any
/// claim; the paper gives no threshold. Until this version the reproduction overrode it
/// with 1, the only threshold of the sensitivity sweep under which C3 and C4 held (rule
/// 0.6 of the claims registry forbids that). The sweep still shows 1, 2, 4 and 8.
fn promote_hits() -> u32 {
    crate::ftl::cftl::CftlConfig::default().promote_hits
}

/// Files in the Andrew-like source tree, full and quick runs alike: the Andrew
/// benchmark's input is "a read-only source subtree of about 70 files" (Howard et al.,
/// ACM TOCS 1988; the modified Andrew benchmark keeps it), and the paper names the
/// benchmark without resizing it; the claims registry's EXP-C2 takes the same tree as one
/// copy (its grid: 1, 3, 10 copies). The value comes from that source, not from a
/// result, although it replaced 1,000 files in the same change that reported C3 and C4
/// holding at 70 files; the tree sweep ([`tree_sensitivity`]) shows the larger trees.
/// Our file sizes are the generator's (1–64 KiB, log-uniform), so the tree is about
/// 1 MiB where the original's is 200 KB.
const ANDREW_FILES: u32 = 70;

/// Tree sizes of [`tree_sensitivity`], in files: 1, 3 and 10 copies of the Andrew tree
/// (the claims registry's EXP-C2 grid), and 1,000 files, this reproduction's tree before
/// it took the benchmark's own.
const TREE_FILES: [u32; 4] = [ANDREW_FILES, 3 * ANDREW_FILES, 10 * ANDREW_FILES, 1000];

fn andrew_files(_ctx: &Ctx) -> u32 {
    ANDREW_FILES
}

/// This reproduction's [`Parameter`]s (the card's cost model gives the spare-area read).
fn parameters(model: &CostModel) -> Vec<Parameter> {
    let cftl = crate::ftl::cftl::CftlConfig::default();
    vec![
        Parameter::new(
            "card",
            "256 MiB, 512 B pages, 32 pages per block, 7% spare, one plane",
            "the paper's CompactFlash-class card (registry EXP-C1: 16,384 units of 16 KiB)",
        ),
        Parameter::new(
            "flash timings",
            "t_R 25 µs, t_PROG 250 µs, t_BERS 1.5 ms, 25 ns per byte",
            "SLC datasheet values of the era (docs/papers.md §1, Figure 2)",
        ),
        Parameter::new(
            "MFS (cost runs)",
            format!("{} + {}", cftl.short_slots, cftl.long_slots),
            "Table 3's first row, the FTL's default",
        ),
        Parameter::new(
            "subblock factor",
            cftl.subblock_factor,
            "the paper's evaluation setting",
        ),
        Parameter::new(
            "promote_hits",
            promote_hits(),
            "the FTL's default (docs/config.md), set before any claim was checked; the \
             paper gives none. Was 1, the only value under which C3 and C4 held",
        ),
        Parameter::new(
            "nur_period_lookups",
            cftl.nur_period_lookups,
            "the FTL's default (docs/config.md); the paper gives none",
        ),
        Parameter::new(
            "ANDREW_FILES",
            ANDREW_FILES,
            "the Andrew benchmark's source tree, about 70 files (Howard et al. 1988); one \
             copy in the registry's EXP-C2",
        ),
        Parameter::new(
            "RAM_PROBE_NS",
            fmt_f(model.ram_ns, 0),
            "one uncached SDRAM access on a 2008 ARM9/ARM11-class platform",
        ),
        Parameter::new(
            "spare-area read (ns)",
            fmt_f(model.spare_ns, 0),
            "the card's t_R plus its 16 OOB bytes at 25 ns each",
        ),
    ]
}

impl Experiment for CftlRepro {
    fn name(&self) -> &'static str {
        "cftl"
    }

    fn about(&self) -> &'static str {
        "Park & Kim 2008: NFTL / AFTL / CFTL mapping memory at Table 3's MFS settings, translation cost on Andrew-like files and traces"
    }

    fn run(&self, ctx: &mut Ctx) -> Result<(), ExpError> {
        let mut intro = String::new();
        intro.push_str(
            "Reproduction of Park & Kim (IEEK 2008), docs/papers.md §3. Device: a CompactFlash-like \
             card as in the paper — 512 B pages, 16 KiB blocks (32 pages), SLC, one plane, \
             256 MiB with 7% spare — in counting mode. FTLs at their defaults (docs/ftls.md, \
             docs/ftls-hash.md): NFTL with one replacement unit per block (Linux-style fixed \
             offsets), AFTL with 12,500 fine slots, CFTL with 2,500 + 10,000 slots, subblock \
             factor 8, short:long 1:4, the paper's evaluation settings.\n\n",
        );
        intro.push_str(&format!(
            "CFTL promotes a cluster after {} hits at each level, the FTL's default: the \
             paper gives no threshold (section Parameters; the sensitivity section shows \
             the other thresholds).\n\n",
            promote_hits()
        ));
        intro.push_str(&format!(
            "The Andrew-like tree has {ANDREW_FILES} files, the size of the Andrew \
             benchmark's source tree (Howard et al. 1988: about 70 files, 200 KB; our \
             generator's 1–64 KiB files make it about 1 MiB); the paper names the \
             well-known benchmark and says nothing of enlarging it. Until this version the reproduction used 1,000 \
             files (200 in quick mode); the tree-size sensitivity experiment shows what \
             larger trees do.\n\n"
        ));
        if ctx.quick {
            intro.push_str(
                "**Quick mode:** only the trace samples up to 400 KiB; the memory section \
                 and the Andrew-like runs are the same as a full run.\n\n",
            );
        }
        let mut md = String::new();
        let mut cl = Claims::default();
        memory_section(ctx, &mut md, &mut cl)?;
        cost_section(ctx, &mut md, &mut cl)?;
        tree_sensitivity(ctx, &mut cl)?;
        cftl_sensitivity(ctx, &mut cl)?;
        time_section(ctx, &mut md)?;
        let model = CostModel::for_card(RAM_PROBE_NS)?;
        intro.push_str(&parameters_section(ctx, &parameters(&model)));
        claims::finish(
            ctx,
            &cl,
            "Clustered FTL: mapping memory and translation cost",
            &intro,
            &md,
        );
        Ok(())
    }
}

fn counters(ftl: &dyn Ftl) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    ftl.counters(&mut m);
    m
}

fn kib(bytes: u64) -> String {
    fmt_f(bytes as f64 / 1024.0, 1)
}

fn memory_section(ctx: &mut Ctx, md: &mut String, cl: &mut Claims) -> Result<(), ExpError> {
    let mut rows = Vec::new();
    let mut md_rows = Vec::new();
    let mut series: Vec<(String, Vec<f64>)> = vec![
        ("NFTL (whole map)".into(), Vec::new()),
        ("AFTL fine table".into(), Vec::new()),
        ("CFTL fine tables".into(), Vec::new()),
    ];
    let mut categories = Vec::new();
    let mut ratios = Vec::new();
    for (l1, l2) in MFS {
        let mut bytes = BTreeMap::new();
        for ftl in FTLS {
            let mut cfg = card(ftl, ctx.seed)?;
            cfg.ftl.aftl.fine_slots = l1 + l2;
            cfg.ftl.cftl.short_slots = l1;
            cfg.ftl.cftl.long_slots = l2;
            let dev = cfg
                .resolve_device()
                .map_err(|e| ExpError::Other(e.to_string()))?;
            let f = build_ftl(&cfg.ftl, &dev.geometry, dev.logical_pages, cfg.seed)
                .map_err(|e| ExpError::Other(e.to_string()))?;
            let m = counters(&*f);
            let fine = m.get("ftl.mapping.fine_bytes").copied().unwrap_or(0);
            let total = f.mapping_bytes();
            rows.push(vec![
                l1.to_string(),
                l2.to_string(),
                ftl.to_string(),
                fine.to_string(),
                (total - fine).to_string(),
                total.to_string(),
            ]);
            bytes.insert(ftl, (fine, total));
        }
        let (nftl, aftl, cftl) = (bytes["nftl"], bytes["aftl"], bytes["cftl"]);
        let ratio = cftl.0 as f64 / aftl.0 as f64;
        ratios.push(ratio);
        categories.push(format!("{l1}+{l2}"));
        series[0].1.push(nftl.1 as f64 / 1024.0);
        series[1].1.push(aftl.0 as f64 / 1024.0);
        series[2].1.push(cftl.0 as f64 / 1024.0);
        md_rows.push(vec![
            format!("{l1} + {l2}"),
            kib(nftl.1),
            kib(aftl.0),
            kib(cftl.0),
            fmt_f(ratio, 3),
            kib(aftl.1),
            kib(cftl.1),
        ]);
    }
    ctx.csv(
        "memory",
        &[
            "mfs_short",
            "mfs_long",
            "ftl",
            "fine_bytes",
            "coarse_bytes",
            "total_bytes",
        ],
        rows.clone(),
    );
    ctx.svg(
        "memory",
        bar_chart_svg(
            "Mapping memory by MFS (L1 + L2 fine slots)",
            "KiB",
            &categories,
            &series,
            false,
        ),
    );
    let (lo, hi) = ratios
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &r| (a.min(r), b.max(r)));
    let range = if fmt_f(lo, 3) == fmt_f(hi, 3) {
        fmt_f(lo, 3)
    } else {
        format!("{} to {}", fmt_f(lo, 3), fmt_f(hi, 3))
    };
    // Coarse tables do not depend on the MFS: the first row's.
    let coarse = |ftl: &str| -> f64 {
        let r = rows.iter().find(|r| r[2] == ftl).expect("row");
        r[4].parse::<f64>().unwrap_or(f64::NAN)
    };
    let coarse_ratio = coarse("cftl") / coarse("aftl");
    cl.push(Claim::new(
        "C1",
        "Table 3",
        "CFTL's fine tables a quarter of AFTL's (≥ 75% less) at every MFS",
        format!("CFTL / AFTL = {range}"),
        "0.2 <= CFTL / AFTL <= 0.3 at every MFS",
        lo >= 0.2 && hi <= 0.3,
    ));
    let nftl: Vec<&String> = rows
        .iter()
        .filter(|r| r[2] == "nftl")
        .map(|r| &r[5])
        .collect();
    cl.push(Claim::new(
        "C2",
        "Table 3",
        "NFTL's map the same at every MFS (64.0 KB)",
        format!("{} KiB", kib(nftl[0].parse().unwrap_or(0))),
        "the same bytes at every MFS",
        nftl.iter().all(|b| *b == nftl[0]),
    ));
    md.push_str("## 1. Mapping memory (Table 3)\n\n");
    md.push_str(
        "Paper, KB (NFTL / AFTL / CFTL): 2,500 + 10,000: 64.0 / 244.1 / 61.0; \
         5,000 + 20,000: 64.0 / 488.3 / 122.1; 7,500 + 30,000: 64.0 / 732.4 / 183.1; \
         10,000 + 40,000: 64.0 / 976.6 / 244.1; 12,500 + 60,000: 64.0 / 1220.7 / 305.2; \
         15,000 + 70,000: 64.0 / 1464.8 / 366.2 — CFTL a quarter of AFTL in every row, \
         NFTL constant.\n\n",
    );
    md.push_str(&md_table(
        &[
            "MFS (L1 + L2)",
            "NFTL KiB (whole map)",
            "AFTL fine KiB",
            "CFTL fine KiB",
            "CFTL / AFTL",
            "AFTL total KiB",
            "CFTL total KiB",
        ],
        &md_rows,
    ));
    md.push_str(&format!(
        "\nOurs: CFTL's fine tables take {range} of AFTL's at every setting, NFTL is \
         constant — the paper's trend. The paper's figures are exactly 20 B per AFTL slot \
         (tag, page number, three links: 244.1 KB = 12,500 × 20 B) and 5 B per CFTL slot \
         (a 40 B node — tag, link, 8 page numbers — per 8 slots): fine tables only, \
         without bucket arrays. Ours count the same nodes plus one 4 B bucket per node and \
         CFTL's per-node NUR bits and hit count (24 B vs 5.6 B per slot), hence a ratio \
         slightly below 0.25. The last two rows print 60,000 and 70,000 long slots, but \
         their memory (1220.7 = 62,500 × 20 B, 1464.8 = 75,000 × 20 B) is that of 50,000 \
         and 60,000, the 1:4 ratio of the other rows; we use the printed settings, the \
         ratio does not depend on it. NFTL: the paper's 64 KB is a 2-byte primary and \
         replacement entry per logical block of a 256 MB card (16,384 × 4 B); our NFTL \
         keeps 4-byte unit numbers for every logical block and every physical unit, \
         hence about twice that. The coarse tables (\"total\" columns) are not in the \
         paper's table: AFTL's plain hash costs 20 B per logical block, CFTL's clustered \
         one {} of that (one tag and link per 8 blocks, plus its per-cluster hit counts).\n\n",
        fmt_f(coarse_ratio, 2)
    ));
    Ok(())
}

/// A trace sample found on disk.
struct Sample {
    name: String,
    path: PathBuf,
    format: TraceFormat,
}

fn samples(ctx: &Ctx) -> Vec<Sample> {
    let mut out = Vec::new();
    for (dir, format) in TRACE_DIRS {
        let Some(sub) = ctx.traces.join(dir) else {
            return out;
        };
        let Ok(entries) = std::fs::read_dir(&sub) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for path in files {
            let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            if ctx.quick && size > QUICK_TRACE_BYTES {
                continue;
            }
            let file = path.file_name().unwrap_or_default().to_string_lossy();
            out.push(Sample {
                name: format!("{dir}/{file}"),
                path,
                format,
            });
        }
    }
    out
}

/// Per-run translation figures.
struct Cost {
    lookups: u64,
    probes: u64,
    /// Table probes in RAM: hash nodes compared or empty buckets read (AFTL, CFTL), the
    /// one array entry an NFTL lookup indexes.
    table_probes: u64,
    /// Block page slots examined (primary page checked, replacement pages scanned,
    /// CFTL's cluster loads): each a spare-area read in flash.
    slot_probes: u64,
    fine_hits: Option<u64>,
    map_reads: u64,
    wa: f64,
    elapsed_s: f64,
}

/// Cost of one table probe in RAM: one uncached DRAM access of the paper's kind of 2008
/// embedded platform (an ARM9/ARM11-class CPU with SDRAM, about 100 ns). Set with the
/// cost model itself and unchanged since; the claims registry's t_probe range for EXP-C2
/// (20, 45, 100 ns) ends at this value. The sweep in [`cftl_sensitivity`] varies it from
/// 10 ns to 10 µs.
const RAM_PROBE_NS: f64 = 100.0;

/// The load-independent translation cost model: table probes at `ram_ns` each, page
/// slots at `spare_ns` each (one spare-area read of the card: t_R plus the OOB bytes'
/// bus transfer). Wall-clock time per lookup varies with the machine's load; this does not.
#[derive(Clone, Copy, Debug)]
struct CostModel {
    ram_ns: f64,
    spare_ns: f64,
}

impl CostModel {
    /// The model for the card of [`card`], with `ram_ns` per table probe.
    fn for_card(ram_ns: f64) -> Result<CostModel, ExpError> {
        let dev = card("nftl", 0)?
            .resolve_device()
            .map_err(|e| ExpError::Other(e.to_string()))?;
        let per_byte = dev.timing.transfer_ns as f64 / dev.geometry.page_size_bytes as f64;
        Ok(CostModel {
            ram_ns,
            spare_ns: dev.timing.read_ns as f64 + dev.geometry.oob_size_bytes as f64 * per_byte,
        })
    }

    /// Modelled translation time per lookup, ns.
    fn per_lookup(&self, c: &Cost) -> f64 {
        (c.table_probes as f64 * self.ram_ns + c.slot_probes as f64 * self.spare_ns)
            / c.lookups.max(1) as f64
    }
}

fn cost_of(out: &RunOutput) -> Cost {
    let r = &out.report;
    let c = |k: &str| r.counters.get(k).copied();
    let fine_hits = match (c("ftl.aftl.fine_hits"), c("ftl.cftl.short_hits")) {
        (Some(a), _) => Some(a),
        (None, Some(s)) => Some(s + c("ftl.cftl.long_hits").unwrap_or(0)),
        _ => None,
    };
    let host_flash_reads = r.host_read_pages.saturating_sub(r.unmapped_read_pages);
    let lookups = c("ftl.lookup.count").unwrap_or(0);
    let probes = c("ftl.lookup.probes").unwrap_or(0);
    // The NFTLs' probes are all page slots (the fixed-offset one counts the chain units
    // it walks, each a spare-area read); their table is an array, one entry per lookup.
    let (table_probes, slot_probes) = match c("ftl.lookup.slot_probes") {
        Some(s) if fine_hits.is_some() => (probes - s, s),
        _ => (lookups, probes),
    };
    Cost {
        lookups,
        probes,
        table_probes,
        slot_probes,
        fine_hits,
        map_reads: r.nand_read_pages.saturating_sub(
            host_flash_reads + r.gc_copy_pages + r.wl_copy_pages + r.rmw_read_pages,
        ),
        wa: r.write_amplification,
        elapsed_s: r.elapsed_formula_us / 1e6,
    }
}

fn cost_section(ctx: &mut Ctx, md: &mut String, cl: &mut Claims) -> Result<(), ExpError> {
    let found = samples(ctx);
    let mut workloads: Vec<(String, Option<&Sample>)> = vec![("andrew".into(), None)];
    workloads.extend(found.iter().map(|s| (s.name.clone(), Some(s))));
    let mut runs = Vec::new();
    for (name, sample) in &workloads {
        for ftl in COST_FTLS {
            let mut cfg = card(ftl, ctx.seed)?;
            match sample {
                None => {
                    cfg.workload.kind = SynthKind::Andrew;
                    cfg.workload.andrew_files = andrew_files(ctx);
                }
                Some(s) => {
                    cfg.trace.path = Some(s.path.clone());
                    cfg.trace.format = Some(s.format);
                    cfg.trace.fit = FitPolicy::Wrap;
                }
            }
            runs.push((format!("{name} on {ftl}"), cfg));
        }
    }
    let outs = ctx.run_all(&runs)?;
    let model = CostModel::for_card(RAM_PROBE_NS)?;
    let mut rows = Vec::new();
    let mut md_rows = Vec::new();
    let mut probes: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut per: BTreeMap<(String, &str), Cost> = BTreeMap::new();
    for (i, (name, _)) in workloads.iter().enumerate() {
        for (j, ftl) in COST_FTLS.iter().enumerate() {
            let c = cost_of(&outs[i * COST_FTLS.len() + j]);
            let ppl = c.probes as f64 / c.lookups.max(1) as f64;
            let share = c.fine_hits.map(|h| h as f64 / c.lookups.max(1) as f64);
            let each = |x: u64| x as f64 / c.lookups.max(1) as f64;
            let ns = model.per_lookup(&c);
            probes.entry(ftl).or_default().push(ns);
            rows.push(vec![
                name.clone(),
                ftl.to_string(),
                c.lookups.to_string(),
                c.probes.to_string(),
                fmt_f(ppl, 3),
                fmt_f(each(c.table_probes), 3),
                fmt_f(each(c.slot_probes), 3),
                fmt_f(ns, 1),
                share.map_or("n/a".into(), |s| fmt_f(s, 3)),
                c.map_reads.to_string(),
                fmt_f(c.wa, 3),
                fmt_f(c.elapsed_s, 3),
            ]);
            md_rows.push(vec![
                name.clone(),
                ftl.to_string(),
                c.lookups.to_string(),
                fmt_f(each(c.table_probes), 2),
                fmt_f(each(c.slot_probes), 3),
                fmt_f(ns / 1e3, 2),
                share.map_or("—".into(), |s| format!("{}%", fmt_f(s * 100.0, 1))),
                c.map_reads.to_string(),
                fmt_f(c.wa, 2),
                fmt_f(c.elapsed_s, 2),
            ]);
            per.insert((name.clone(), ftl), c);
        }
    }
    ctx.csv(
        "cost",
        &[
            "workload",
            "ftl",
            "lookups",
            "probes",
            "probes_per_lookup",
            "table_probes_per_lookup",
            "slot_probes_per_lookup",
            "model_ns_per_lookup",
            "fine_hit_share",
            "map_reads",
            "write_amplification",
            "elapsed_formula_s",
        ],
        rows,
    );
    let categories: Vec<String> = workloads.iter().map(|w| w.0.clone()).collect();
    let series: Vec<(String, Vec<f64>)> = COST_FTLS
        .iter()
        .map(|f| (f.to_uppercase(), probes.remove(f).unwrap_or_default()))
        .collect();
    ctx.svg(
        "probes",
        bar_chart_svg(
            "Modelled translation time per lookup (table probes in RAM + spare-area reads)",
            "ns per lookup",
            &categories,
            &series,
            false,
        ),
    );
    md.push_str("## 2. Translation cost per lookup\n\n");
    md.push_str(
        "Paper (Table 2, Andrew benchmark, mean of 10 runs): system time NFTL 14.41 s, \
         AFTL 13.70 s, CFTL 12.68 s; excluding compilation 6.02 / 5.85 / 4.83 s — CFTL's \
         translation at least 13% faster than NFTL's and 8% faster than AFTL's.\n\n",
    );
    if found.is_empty() {
        md.push_str(&format!(
            "**Trace section skipped:** {}; only the Andrew-like workload ran.\n\n",
            ctx.traces.describe()
        ));
    } else {
        md.push_str(&format!(
            "Workloads: the Andrew-like small-file suite (`--workload andrew`, {} files: \
             setup, mkdir, copy, scandir, readall, make) and the {} trace sample(s) found \
             ({}), wrapped onto the card (`--trace-fit wrap`).\n\n",
            andrew_files(ctx),
            found.len(),
            ctx.traces.describe()
        ));
    }
    md.push_str(&md_table(
        &[
            "workload",
            "FTL",
            "lookups",
            "table probes / lookup",
            "page slots / lookup",
            "model µs / lookup",
            "fine-table hits",
            "translation flash reads",
            "WA",
            "formula time s",
        ],
        &md_rows,
    ));
    let a = &per[&("andrew".to_string(), "aftl")];
    let c = &per[&("andrew".to_string(), "cftl")];
    let n = &per[&("andrew".to_string(), "nftl")];
    let nl = &per[&("andrew".to_string(), "nftl-log")];
    let ppl = |x: &Cost| x.probes as f64 / x.lookups.max(1) as f64;
    let ns = |x: &Cost| model.per_lookup(x);
    let us = |x: &Cost| fmt_f(ns(x) / 1e3, 2);
    cl.push(Claim::new(
        "C3",
        "Table 2 (Andrew)",
        "CFTL's translation ≥ 13% faster than NFTL's (log-style NFTL, replacement scan)",
        format!(
            "model µs per lookup CFTL {} vs NFTL-log {} ({})",
            us(c),
            us(nl),
            claims::pct(ns(c) / ns(nl) - 1.0)
        ),
        "CFTL <= 0.87 × NFTL-log",
        ns(c) <= 0.87 * ns(nl),
    ));
    cl.push(Claim::new(
        "C4",
        "Table 2 (Andrew)",
        "CFTL's translation ≥ 8% faster than AFTL's",
        format!(
            "model µs per lookup CFTL {} vs AFTL {} ({})",
            us(c),
            us(a),
            claims::pct(ns(c) / ns(a) - 1.0)
        ),
        "CFTL <= 0.92 × AFTL",
        ns(c) <= 0.92 * ns(a),
    ));
    cl.push(Claim::new(
        "C5",
        "Table 2 (Andrew)",
        "AFTL faster than NFTL (13.70 vs 14.41 s system time)",
        format!("model µs per lookup AFTL {} vs NFTL-log {}", us(a), us(nl)),
        "AFTL < NFTL-log",
        ns(a) < ns(nl),
    ));
    let per = |x: &Cost, v: u64| fmt_f(v as f64 / x.lookups.max(1) as f64, 3);
    md.push_str(&format!(
        "\nThe translation cost model (load-independent; the claims use it): a table probe \
         — a hash node compared or an empty bucket read in AFTL's and CFTL's tables, the \
         array entry of an NFTL lookup — costs one RAM access, {} ns; a page slot — the \
         primary-block page checked, each replacement page scanned, each page of a cluster \
         CFTL loads on promotion — costs one spare-area read of the card, {} µs (t_R plus \
         the OOB bytes' transfer). On the Andrew-like workload: NFTL-log {} table probes \
         and {} page slots per lookup ({} µs), AFTL {} and {} ({} µs), CFTL {} and {} ({} \
         µs); all probes counted together, CFTL visits {} entries per lookup, AFTL {}, \
         NFTL-log {}. A lookup a fine table answers reads no spare area: CFTL's fine \
         tables answer {} of lookups, AFTL's {}.\n\n",
        fmt_f(model.ram_ns, 0),
        fmt_f(model.spare_ns / 1e3, 2),
        per(nl, nl.table_probes),
        per(nl, nl.slot_probes),
        us(nl),
        per(a, a.table_probes),
        per(a, a.slot_probes),
        us(a),
        per(c, c.table_probes),
        per(c, c.slot_probes),
        us(c),
        fmt_f(ppl(c), 2),
        fmt_f(ppl(a), 2),
        fmt_f(ppl(nl), 2),
        c.fine_hits.map_or("n/a".into(), |h| claims::pct(
            h as f64 / c.lookups.max(1) as f64
        )),
        a.fine_hits.map_or("n/a".into(), |h| claims::pct(
            h as f64 / a.lookups.max(1) as f64
        )),
    ));
    let t = |x: &Cost| x.elapsed_s;
    let mut by_time = [("NFTL", t(n)), ("AFTL", t(a)), ("CFTL", t(c))];
    by_time.sort_by(|x, y| x.1.total_cmp(&y.1));
    let wa_note = if a.wa < c.wa {
        format!(
            " AFTL's deferred GC leaves hot pages in place when a replacement block fills, \
             so it copies less than CFTL, which folds as plain log-style NFTL (write \
             amplification {} vs {}).",
            fmt_f(a.wa, 3),
            fmt_f(c.wa, 3)
        )
    } else {
        String::new()
    };
    md.push_str(&format!(
        "In device time (the elapsed-time formula of the flash operations, which includes \
         NFTL's spare-area reads and every FTL's fold copies) the order on the Andrew-like \
         workload is {} ({} s) < {} ({} s) < {} ({} s).{wa_note}\n\n",
        by_time[0].0,
        fmt_f(by_time[0].1, 2),
        by_time[1].0,
        fmt_f(by_time[1].1, 2),
        by_time[2].0,
        fmt_f(by_time[2].1, 2),
    ));
    md.push_str(&format!(
        "NFTL variants: the Linux-style NFTL (`nftl`, replacement units at the page's own \
         offset, no table search; its probes count units examined, each a spare-area read \
         in flash) visits {} entries per lookup; the log-style NFTL the paper describes \
         (`nftl-log`, `ftl.nftl.variant = \"log\"`: primary page, then a newest-first scan \
         of the replacement block — the same block side AFTL and CFTL use) visits {}.\n\n",
        fmt_f(ppl(n), 2),
        fmt_f(ppl(nl), 2),
    ));
    Ok(())
}

/// In-process replay of the Andrew-like workload on `ftl`; returns (lookups timed, ns per
/// lookup of the fastest pass).
fn time_lookups(ctx: &Ctx, ftl: &str, passes: usize) -> Result<(usize, f64), ExpError> {
    let mut cfg = card(ftl, ctx.seed)?;
    cfg.workload.kind = SynthKind::Andrew;
    cfg.workload.andrew_files = andrew_files(ctx);
    let dev = cfg
        .resolve_device()
        .map_err(|e| ExpError::Other(e.to_string()))?;
    let mut f = build_ftl(&cfg.ftl, &dev.geometry, dev.logical_pages, cfg.seed)
        .map_err(|e| ExpError::Other(e.to_string()))?;
    let mut nand = Nand::new(
        dev.geometry,
        dev.endurance_cycles,
        false,
        f.programs_in_order(),
    );
    let page = dev.geometry.page_size_bytes as u64;
    let capacity = dev.logical_pages * page;
    let phases = synth::generate(&cfg.workload, capacity, cfg.seed)
        .map_err(|e| ExpError::Other(e.to_string()))?;
    let mut reads: Vec<u32> = Vec::new();
    let fail = |e: crate::ftl::FtlError| ExpError::Other(format!("{ftl}: {e}"));
    for phase in phases {
        for r in phase.requests {
            let (first, last) = (
                r.offset_bytes / page,
                (r.offset_bytes + r.size_bytes).div_ceil(page),
            );
            for lpn in first..last {
                let lpn = Lpn(lpn as u32);
                match r.op {
                    OpKind::Read => {
                        f.read(lpn, &mut nand).map_err(fail)?;
                        reads.push(lpn.0);
                    }
                    OpKind::Write => f.write(lpn, &mut nand).map_err(fail)?,
                    _ => {}
                }
            }
        }
    }
    let mut best = f64::MAX;
    for _ in 0..passes {
        let t = Instant::now();
        for &l in &reads {
            std::hint::black_box(f.read(Lpn(l), &mut nand).map_err(fail)?);
        }
        best = best.min(t.elapsed().as_nanos() as f64 / reads.len().max(1) as f64);
    }
    Ok((reads.len(), best))
}

fn time_section(ctx: &mut Ctx, md: &mut String) -> Result<(), ExpError> {
    let passes = if ctx.quick { 2 } else { 5 };
    let mut rows = Vec::new();
    let mut md_rows = Vec::new();
    let mut values = Vec::new();
    for ftl in FTLS {
        let (n, ns) = time_lookups(ctx, ftl, passes)?;
        rows.push(vec![ftl.to_string(), n.to_string(), fmt_f(ns, 1)]);
        md_rows.push(vec![ftl.to_uppercase(), n.to_string(), fmt_f(ns, 1)]);
        values.push(ns);
    }
    ctx.csv(
        "lookup_time",
        &["ftl", "lookups_timed", "ns_per_lookup"],
        rows,
    );
    ctx.svg(
        "lookup_time",
        bar_chart_svg(
            "Real time per lookup, Andrew-like workload (this machine)",
            "ns per lookup",
            &["Andrew-like reads".to_string()],
            &FTLS
                .iter()
                .zip(&values)
                .map(|(f, &v)| (f.to_uppercase(), vec![v]))
                .collect::<Vec<_>>(),
            false,
        ),
    );
    md.push_str("## 3. Real time per lookup\n\n");
    md.push_str(&format!(
        "The Andrew-like workload replayed in process on each FTL, then every page it read \
         looked up again with `Ftl::read` ({passes} passes, fastest kept): the lookup path \
         with its cache upkeep (LRU, NUR, hit counts, promotions) plus the NAND model's \
         read bookkeeping, which is the same for all three. Wall-clock on the machine that \
         ran this reproduction, so it varies between runs (the only output that does); \
         `cargo bench --bench ftl_lookup` measures the same paths with criterion's \
         statistics (BENCHMARKS.md).\n\n"
    ));
    md.push_str(&md_table(
        &["FTL", "lookups timed", "ns per lookup"],
        &md_rows,
    ));
    md.push_str(
        "\nThe paper's 8% and 13% are differences in system time of a whole benchmark on a \
         2008 embedded platform; ours are the translation paths alone on a modern CPU, \
         where a table probe that stays in cache costs a few nanoseconds: compare with the \
         probe counts of section 2, which do not depend on the machine.\n",
    );
    Ok(())
}

/// CFTL against AFTL and NFTL-log over what the paper leaves unsaid about Table 2's runs:
/// the promotion threshold and the fine-table size (the paper fixes 1:4 and subblock
/// factor 8, not the MFS of the Andrew runs), under the cost model; and the cost model's
/// one free constant, the RAM cost of a table probe.
fn cftl_sensitivity(ctx: &mut Ctx, cl: &mut Claims) -> Result<(), ExpError> {
    let ids = ["C3", "C4", "C5"];
    let promote = [1u32, 2, 4, 8];
    let slots = [(2_500u32, 10_000u32), (10_000, 40_000)];
    let ram_ns = [10.0, 100.0, 1_000.0, 10_000.0];
    let andrew = |ftl: &str| -> Result<Config, ExpError> {
        let mut c = card(ftl, ctx.seed)?;
        c.workload.kind = SynthKind::Andrew;
        c.workload.andrew_files = andrew_files(ctx);
        Ok(c)
    };
    let mut runs = Vec::new();
    let mut keys = Vec::new();
    for &(l1, l2) in &slots {
        for &h in &promote {
            let mut c = andrew("cftl")?;
            c.ftl.cftl.short_slots = l1;
            c.ftl.cftl.long_slots = l2;
            c.ftl.cftl.promote_hits = h;
            keys.push(((l1, l2), Some(h)));
            runs.push((format!("cftl {l1}+{l2} promote {h}"), c));
        }
        let mut a = andrew("aftl")?;
        a.ftl.aftl.fine_slots = l1 + l2;
        keys.push(((l1, l2), None));
        runs.push((format!("aftl {}", l1 + l2), a));
    }
    runs.push(("nftl-log".into(), andrew("nftl-log")?));
    let outs = ctx.run_all(&runs)?;
    let costs: Vec<Cost> = outs.iter().map(cost_of).collect();
    let nftl_log = costs.last().expect("nftl-log run");
    let model = CostModel::for_card(RAM_PROBE_NS)?;
    let at = |k: ((u32, u32), Option<u32>)| -> &Cost {
        &costs[keys.iter().position(|x| *x == k).expect("run")]
    };
    let mut rows = Vec::new();
    let mut series = Vec::new();
    let mut found = Vec::new();
    let mut best: Option<(f64, String)> = None;
    for &(l1, l2) in &slots {
        let aftl = at(((l1, l2), None));
        let mut pts = Vec::new();
        for &h in &promote {
            let c = at(((l1, l2), Some(h)));
            for &ram in &ram_ns {
                let m = CostModel {
                    ram_ns: ram,
                    ..model
                };
                let (cn, an, nn) = (m.per_lookup(c), m.per_lookup(aftl), m.per_lookup(nftl_log));
                let holds = cn <= 0.87 * nn && cn <= 0.92 * an && an < nn;
                rows.push(vec![
                    format!("{l1}+{l2}"),
                    h.to_string(),
                    fmt_f(ram, 0),
                    fmt_f(cn, 1),
                    fmt_f(an, 1),
                    fmt_f(nn, 1),
                    fmt_f(cn / an, 3),
                    fmt_f(cn / nn, 3),
                    holds.to_string(),
                ]);
                let label = format!(
                    "{l1} + {l2} slots, promotion after {h} hits, {} ns per RAM probe",
                    fmt_f(ram, 0)
                );
                if ram == RAM_PROBE_NS {
                    pts.push((h as f64, cn / an));
                    if best.as_ref().is_none_or(|b| cn / an < b.0) {
                        best = Some((cn / an, label.clone()));
                    }
                }
                if holds {
                    found.push(label);
                }
            }
        }
        series.push((format!("MFS {l1}+{l2}: CFTL / AFTL"), pts));
        let mut pts = Vec::new();
        for &h in &promote {
            pts.push((
                h as f64,
                model.per_lookup(at(((l1, l2), Some(h)))) / model.per_lookup(nftl_log),
            ));
        }
        series.push((format!("MFS {l1}+{l2}: CFTL / NFTL-log"), pts));
    }
    ctx.csv(
        "sensitivity_cftl",
        &[
            "mfs",
            "promote_hits",
            "ram_probe_ns",
            "cftl_ns_per_lookup",
            "aftl_ns_per_lookup",
            "nftl_log_ns_per_lookup",
            "cftl_over_aftl",
            "cftl_over_nftl_log",
            "c3_c4_c5_hold",
        ],
        rows,
    );
    ctx.svg(
        "sensitivity_cftl",
        line_chart_svg(
            &format!(
                "Modelled translation cost ratios vs promotion threshold (Andrew-like, {} ns per RAM probe)",
                fmt_f(RAM_PROBE_NS, 0)
            ),
            "hits before promotion",
            "cost ratio (paper: CFTL/AFTL ≤ 0.92, CFTL/NFTL ≤ 0.87)",
            &series,
            false,
        ),
    );
    let (r, label) = best.unwrap_or((f64::NAN, String::new()));
    let hits = promote_hits();
    let d = at((slots[0], Some(hits)));
    let slot_share = |c: &Cost| c.slot_probes as f64 / c.lookups.max(1) as f64;
    cl.sensitivity(Sensitivity {
        claims: ids.iter().map(|s| s.to_string()).collect(),
        swept: format!(
            "CFTL's promotion threshold (1, 2, 4, 8 hits), the fine-table size (MFS 2,500 + \
             10,000 and 10,000 + 40,000, AFTL with as many slots) and the RAM cost of a \
             table probe ({} ns; a spare-area read is {} µs), Andrew-like",
            ram_ns
                .iter()
                .map(|x| fmt_f(*x, 0))
                .collect::<Vec<_>>()
                .join(", "),
            fmt_f(model.spare_ns / 1e3, 2)
        ),
        figures: vec!["sensitivity_cftl.svg".into()],
        setting_found: (!found.is_empty()).then(|| found.join("; ")),
        explanation: format!(
            "Spare-area reads dominate the cost: at the paper's settings (2,500 + 10,000 \
             slots, promotion after {hits} hit(s)) CFTL examines {} page slots per \
             lookup, AFTL {}, NFTL-log {}. CFTL saves the slots of the lookups its fine \
             tables answer but spends a cluster's slots on every promotion ({} promotions \
             into the long table for {} lookups). The lowest CFTL / AFTL cost ratio at {} ns \
             per RAM probe is {} ({label}); the settings where C3, C4 and C5 all hold are \
             listed above (every combination: `sensitivity_cftl.csv`).",
            fmt_f(slot_share(d), 3),
            fmt_f(slot_share(at((slots[0], None))), 3),
            fmt_f(slot_share(nftl_log), 3),
            outs[keys
                .iter()
                .position(|x| *x == (slots[0], Some(hits)))
                .expect("run")]
            .report
            .counters
            .get("ftl.cftl.promotions_long")
            .copied()
            .unwrap_or(0),
            d.lookups,
            fmt_f(RAM_PROBE_NS, 0),
            fmt_f(r, 3),
        ),
    });
    Ok(())
}

/// Which of the two measured drivers of CFTL's cost moved between the smallest and the
/// largest tree: the share of lookups its fine tables answer (`share_*`) and promotions per
/// 1,000 lookups (`promo_*`). A change under 5 % counts as none, so the sentence names
/// only what the data shows.
fn trend(share_small: f64, share_large: f64, promo_small: f64, promo_large: f64) -> String {
    let moved = |a: f64, b: f64| {
        if b > a * 1.05 {
            1
        } else if b < a * 0.95 {
            -1
        } else {
            0
        }
    };
    let hits = match moved(share_small, share_large) {
        -1 => "fewer fine-table hits raise CFTL's cost",
        1 => "more fine-table hits lower CFTL's cost",
        _ => "the fine-table hit share stays within 5 %",
    };
    let promos = match moved(promo_small, promo_large) {
        1 => "more promotions raise it",
        -1 => "fewer promotions lower it",
        _ => "promotions stay within 5 %",
    };
    format!("{hits}; {promos}")
}

/// C3 and C4 against the size of the Andrew-like tree (always run): the paper's fine
/// tables (2,500 + 10,000 slots of 512 B pages) cover a small tree's hot pages but not a
/// large tree's, and a cluster that falls out is promoted again at the cost of its spare
/// areas. The default is the benchmark's own tree ([`ANDREW_FILES`]).
fn tree_sensitivity(ctx: &mut Ctx, cl: &mut Claims) -> Result<(), ExpError> {
    const FTLS3: [&str; 3] = ["nftl-log", "aftl", "cftl"];
    let mut runs = Vec::new();
    for &files in &TREE_FILES {
        for ftl in FTLS3 {
            let mut c = card(ftl, ctx.seed)?;
            c.workload.kind = SynthKind::Andrew;
            c.workload.andrew_files = files;
            runs.push((format!("tree {files} files on {ftl}"), c));
        }
    }
    let outs = ctx.run_all(&runs)?;
    let model = CostModel::for_card(RAM_PROBE_NS)?;
    let fine_bytes = {
        let c = card("cftl", ctx.seed)?;
        let dev = c
            .resolve_device()
            .map_err(|e| ExpError::Other(e.to_string()))?;
        (c.ftl.cftl.short_slots as u64 + c.ftl.cftl.long_slots as u64)
            * dev.geometry.page_size_bytes as u64
    };
    let mut rows = Vec::new();
    let mut to_nftl = Vec::new();
    let mut to_aftl = Vec::new();
    let mut found = Vec::new();
    let mut per = Vec::new();
    let (mut shares, mut promos) = (Vec::new(), Vec::new());
    for (i, &files) in TREE_FILES.iter().enumerate() {
        let cost = |j: usize| cost_of(&outs[i * FTLS3.len() + j]);
        let (nl, a, c) = (cost(0), cost(1), cost(2));
        let (nn, an, cn) = (
            model.per_lookup(&nl),
            model.per_lookup(&a),
            model.per_lookup(&c),
        );
        let footprint = synth::andrew::footprint_bytes(files as u64, ctx.seed);
        let fine_share = c.fine_hits.unwrap_or(0) as f64 / c.lookups.max(1) as f64;
        let promotions = outs[i * FTLS3.len() + 2]
            .report
            .counters
            .get("ftl.cftl.promotions_long")
            .copied()
            .unwrap_or(0);
        let promo_per_k = promotions as f64 * 1e3 / c.lookups.max(1) as f64;
        let holds = cn <= 0.87 * nn && cn <= 0.92 * an;
        shares.push(fine_share);
        promos.push(promo_per_k);
        rows.push(vec![
            files.to_string(),
            footprint.to_string(),
            fmt_f(nn, 1),
            fmt_f(an, 1),
            fmt_f(cn, 1),
            fmt_f(cn / nn, 3),
            fmt_f(cn / an, 3),
            fmt_f(fine_share, 3),
            fmt_f(promo_per_k, 1),
            holds.to_string(),
        ]);
        to_nftl.push((files as f64, cn / nn));
        to_aftl.push((files as f64, cn / an));
        if holds {
            found.push(format!("{files} files"));
        }
        per.push(format!(
            "{files} files ({} MiB on the card): CFTL / NFTL-log {}, CFTL / AFTL {}, fine \
             tables answer {}, {} promotions into the long table per 1,000 lookups",
            fmt_f(footprint as f64 / (1 << 20) as f64, 1),
            fmt_f(cn / nn, 3),
            fmt_f(cn / an, 3),
            claims::pct(fine_share),
            fmt_f(promo_per_k, 1)
        ));
    }
    let to_aftl_first = to_aftl.first().map_or(f64::NAN, |p| p.1);
    let to_aftl_last = to_aftl.last().map_or(f64::NAN, |p| p.1);
    ctx.csv(
        "sensitivity_tree",
        &[
            "andrew_files",
            "footprint_bytes",
            "nftl_log_ns_per_lookup",
            "aftl_ns_per_lookup",
            "cftl_ns_per_lookup",
            "cftl_over_nftl_log",
            "cftl_over_aftl",
            "cftl_fine_hit_share",
            "cftl_promotions_per_1000_lookups",
            "c3_c4_hold",
        ],
        rows,
    );
    ctx.svg(
        "sensitivity_tree",
        line_chart_svg(
            "Modelled translation cost ratios vs Andrew-like tree size (paper: CFTL/NFTL ≤ 0.87, CFTL/AFTL ≤ 0.92)",
            "files in the tree",
            "cost ratio",
            &[
                ("CFTL / NFTL-log".to_string(), to_nftl),
                ("CFTL / AFTL".to_string(), to_aftl),
            ],
            true,
        ),
    );
    cl.sensitivity(Sensitivity {
        claims: vec!["C3".into(), "C4".into()],
        swept: format!(
            "the size of the Andrew-like tree ({} files), paper's MFS 2,500 + 10,000, \
             promotion after {} hit(s), {} ns per RAM probe",
            TREE_FILES
                .iter()
                .map(|f| f.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            promote_hits(),
            fmt_f(RAM_PROBE_NS, 0)
        ),
        figures: vec!["sensitivity_tree.svg".into()],
        setting_found: (!found.is_empty()).then(|| found.join(", ")),
        explanation: format!(
            "{}. The fine tables hold {} MiB of 512 B pages. From the smallest to the \
             largest tree the share of lookups a fine table answers (no spare-area read) \
             goes from {} to {}, and promotions, each reading its cluster's spare areas, \
             go from {} to {} per 1,000 lookups ({}); CFTL's lead over AFTL goes from {} \
             to {}. The default is the benchmark's own tree of about 70 files; the paper \
             does not say it enlarged it.",
            per.join("; "),
            fmt_f(fine_bytes as f64 / (1 << 20) as f64, 1),
            claims::pct(shares[0]),
            claims::pct(*shares.last().expect("sizes")),
            fmt_f(promos[0], 1),
            fmt_f(*promos.last().expect("sizes"), 1),
            trend(
                shares[0],
                *shares.last().expect("sizes"),
                promos[0],
                *promos.last().expect("sizes")
            ),
            claims::pct(1.0 - to_aftl_first),
            claims::pct(1.0 - to_aftl_last),
        ),
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::trend;

    #[test]
    fn the_trend_sentence_names_only_what_moved() {
        assert_eq!(
            trend(0.5, 0.2, 10.0, 10.2),
            "fewer fine-table hits raise CFTL's cost; promotions stay within 5 %"
        );
        assert_eq!(
            trend(0.5, 0.49, 10.0, 20.0),
            "the fine-table hit share stays within 5 %; more promotions raise it"
        );
        assert_eq!(
            trend(0.2, 0.5, 10.0, 5.0),
            "more fine-table hits lower CFTL's cost; fewer promotions lower it"
        );
    }
}
