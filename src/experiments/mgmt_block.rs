//! `ssdlab reproduce mgmt-block` — Ryu & Park 2009 (docs/papers.md §1): SSD management
//! blocks, page placement and chip organisation, on models of the paper's SSDs A, B, C.
//!
//! ```text
//! 1 probe        management-block probe on ssd-a, ssd-b, ssd-c → inferred size
//! 2 iops         random read / write IOPS at 4–64 KiB, QD 1, filled device, relative to A
//! 3 aging        sequential vs random read / write MiB/s, fresh (filled once) and aged
//!                (filled, then random overwrites until WA settles), write-order vs
//!                by-address placement
//! 3b fig17      placement × channel placement after aging (SSD A hardware)
//! 3c fig16       SSD A, B, C with and without an MFT-style host log (src/host_log.rs):
//!                aged, sequential and 4 KiB random writes, sequential reads, QD 1
//! 4 organisation shared-bus / shared-control / channels, 1–16 SLC chips, sequential and
//!                random read / write MiB/s at QD 32
//! ```
//! The paper's numbers appear only in the summary text, beside ours.

use super::claims::{self, Claim, Claims, Sensitivity};
use super::{Ctx, ExpError, Experiment, fmt_f, md_table};
use crate::buffer::BufferKind;
use crate::config::Config;
use crate::ftl::layout::Placement;
use crate::report::svg::{bar_chart_svg, line_chart_svg};
use crate::sim::RunOutput;
use crate::units::Size;
use crate::workload::synth::SynthKind;

/// The experiment.
pub struct MgmtBlock;

const MODELS: [(&str, &str); 3] = [("A", "ssd-a"), ("B", "ssd-b"), ("C", "ssd-c")];
const SIZES_KIB: [u64; 5] = [4, 8, 16, 32, 64];
/// Outstanding requests in the IOPS runs. The paper measured Fig. 14 with IOzone (its
/// reference [4]), whose random test issues one synchronous request at a time.
const IOPS_QD: u32 = 1;
/// IOzone's random tests run over a file written just before (`-i 0` precedes `-i 2`);
/// the paper gives no file size, so the largest file of IOzone's automatic mode (`-a`:
/// 64 KiB to 512 MiB) is used, on a drive that is otherwise full.
const IOZONE_FILE: &str = "512MiB";
/// Whether the drives acknowledge writes from their DRAM in Fig. 14: no, on all three
/// alike. The paper lists each drive's DRAM (32 / 16 / 16 MB) but never says that it
/// caches user data, so the presets stay as they are (no data buffer, the simulator's
/// default), the same for every drive and in every section, the probe's included.
/// Until this version C alone had a write-back buffer, inferred from C's 4 KiB
/// random-write latency in Fig. 14, which is the very number claims M2, M3 and M8 test
/// (rule 0.6 of the claims registry forbids choosing a setting from the paper's number
/// for a claim). The sensitivity runs turn every drive's buffer on and off.
const DATA_BUFFER: BufferKind = BufferKind::None;
/// The paper's Figure 14, quoted for the summary only.
const PAPER_READ_RATIO: [(&str, [f64; 5]); 2] = [
    ("B", [1.20, 1.03, 1.01, 0.88, 0.77]),
    ("C", [1.03, 1.03, 1.24, 1.45, 1.45]),
];
/// The paper's A, 4 KiB random writes (KB/s), for the summary's explanation only.
const PAPER_A_WRITE_4K_KB_S: f64 = 1699.0;
const PAPER_WRITE_RATIO: [(&str, [f64; 5]); 2] = [
    ("B", [0.36, 0.41, 0.52, 0.67, 0.82]),
    ("C", [22.8, 18.6, 14.0, 10.3, 6.9]),
];

/// Preset `preset` with the TOML `overrides` on top, seed `seed` (shared with the
/// registry's EXP-M6).
pub(crate) fn cfg(preset: &str, overrides: &str, seed: u64) -> Result<Config, ExpError> {
    let table: toml::Table = toml::from_str(overrides)
        .map_err(|e| ExpError::Other(format!("internal override `{overrides}`: {e}")))?;
    let mut c = Config::load_with(Some(preset), None, table)
        .map_err(|e| ExpError::Other(format!("{preset}: {e}")))?;
    c.seed = seed;
    Ok(c)
}

/// One setting of a reproduction that no claim varies: its value and where the value
/// comes from. Rule 0.6 of the claims registry: every such default is fixed from the
/// paper or a datasheet of its era before any run, never from a claim's result or the
/// paper's number for it, and every report records it.
pub(super) struct Parameter {
    /// The setting: the experiment's constant or config key.
    pub name: &'static str,
    /// Its value in this run (quick mode scales some sizes down).
    pub value: String,
    /// Where the value comes from.
    pub source: &'static str,
}

impl Parameter {
    pub(super) fn new(name: &'static str, value: impl ToString, source: &'static str) -> Self {
        Parameter {
            name,
            value: value.to_string(),
            source,
        }
    }
}

/// The "Parameters" section of `summary.md`, a table built from `params`, and the same
/// rows as `parameters.csv`. Shared by the five reproductions (it lives here because the
/// experiments' common module is being reworked).
pub(super) fn parameters_section(ctx: &mut Ctx, params: &[Parameter]) -> String {
    let header = ["parameter", "value", "source"];
    let rows: Vec<Vec<String>> = params
        .iter()
        .map(|p| vec![p.name.to_string(), p.value.clone(), p.source.to_string()])
        .collect();
    ctx.csv("parameters", &header, rows.clone());
    format!(
        "## Parameters\n\nSettings this reproduction fixes that no claim varies, each with \
         the source of its value, fixed before any run (`parameters.csv`). Sweeps in the \
         sensitivity section vary some of them; what they find never changes these \
         defaults.\n\n{}\n",
        md_table(&header, &rows)
    )
}

/// This reproduction's [`Parameter`]s.
fn parameters(ctx: &Ctx) -> Vec<Parameter> {
    vec![
        Parameter::new(
            "presets",
            "ssd-a, ssd-b, ssd-c",
            "the paper's table of SSDs A, B, C (cell, page, channels, chips, DRAM) and the \
             management block and placement it infers for each",
        ),
        Parameter::new(
            "device capacity",
            capacity(ctx),
            "not in the paper; 32 GB from its worked example (quick: 2 GiB)",
        ),
        Parameter::new(
            "IOPS_QD",
            IOPS_QD,
            "IOzone (the paper's reference [4]) issues one synchronous request at a time",
        ),
        Parameter::new(
            "IOZONE_FILE",
            IOZONE_FILE,
            "not in the paper; the largest file of IOzone's automatic mode (-a: 64 KiB to \
             512 MiB)",
        ),
        Parameter::new(
            "DATA_BUFFER (Fig. 14)",
            DATA_BUFFER.name(),
            "the paper never says the DRAM caches user data: the simulator's default, the \
             same for A, B and C (was: C alone write-back, read off Fig. 14's own latency)",
        ),
        Parameter::new(
            "aging (Figs. 8-9, 16, 17)",
            "fill, then random 4 KiB overwrites until WA settles (precondition = steady)",
            "the paper's \"three months of use\" as a steady state; set in the first version \
             of this reproduction, before any claim was checked",
        ),
        Parameter::new(
            "Fig. 17 management block",
            "16 KiB",
            "the size the paper infers for SSD A (the ssd-a preset)",
        ),
        Parameter::new(
            "MFT host log (Fig. 16)",
            "1 MiB segments, 10% of the SSD kept free",
            "host-log defaults (docs/host-log.md); 1 MiB = B's management block",
        ),
    ]
}

impl Experiment for MgmtBlock {
    fn name(&self) -> &'static str {
        "mgmt-block"
    }

    fn about(&self) -> &'static str {
        "Ryu & Park 2009: management-block probe, IOPS of SSDs A/B/C, aging by placement, chip organisations"
    }

    fn run(&self, ctx: &mut Ctx) -> Result<(), ExpError> {
        let mut intro = String::new();
        intro.push_str(
            "Reproduction of Ryu & Park (2009), docs/papers.md §1, on the `ssd-a`, `ssd-b` and `ssd-c` \
             presets (the paper's table: cell type, page size, channels, chips, and the \
             management block and placement the paper infers). Full timing model.\n\n",
        );
        if ctx.quick {
            intro.push_str(
                "**Quick mode:** 2 GiB devices and short runs; numbers are noisier than a full run.\n\n",
            );
        }
        let mut md = String::new();
        let mut cl = Claims::default();
        probe_section(ctx, &mut md, &mut cl)?;
        let grid = iops_section(ctx, &mut md, &mut cl)?;
        log_area_section(ctx, &mut md)?;
        aging_section(ctx, &mut md, &mut cl)?;
        fig17_section(ctx, &mut md, &mut cl)?;
        fig16_section(ctx, &mut md, &mut cl)?;
        organisation_section(ctx, &mut md, &mut cl)?;
        iops_sensitivity(ctx, &mut cl, &grid)?;
        b_log_sensitivity(ctx, &mut cl)?;
        intro.push_str(&parameters_section(ctx, &parameters(ctx)));
        claims::finish(
            ctx,
            &cl,
            "Management blocks, placement and chip organisation",
            &intro,
            &md,
        );
        Ok(())
    }
}

fn capacity(ctx: &Ctx) -> &'static str {
    if ctx.quick { "2GiB" } else { "32GiB" }
}

fn probe_section(ctx: &mut Ctx, md: &mut String, cl: &mut Claims) -> Result<(), ExpError> {
    let runs: Vec<(String, Config)> = MODELS
        .iter()
        .map(|&(m, preset)| {
            let mut c = cfg(preset, "", ctx.seed)?;
            c.workload.kind = SynthKind::Probe;
            Ok((format!("probe {m}"), c))
        })
        .collect::<Result<_, ExpError>>()?;
    let outs = ctx.run_all(&runs)?;
    let paper = ["16 KB", "1 MB", "4 KB"];
    let mut rows = Vec::new();
    let mut series = Vec::new();
    for (((m, preset), out), paper) in MODELS.iter().zip(&outs).zip(paper) {
        let p = out
            .report
            .probe
            .as_ref()
            .expect("probe run has a probe section");
        let c = runs
            .iter()
            .find(|r| r.0 == format!("probe {m}"))
            .expect("run");
        rows.push(vec![
            m.to_string(),
            preset.to_string(),
            c.1.ftl.mgmt_block.to_string(),
            Placement::all()
                .iter()
                .find(|p| p.0 == c.1.ftl.placement)
                .map(|p| p.1)
                .unwrap_or("?")
                .to_string(),
            p.mgmt_block.clone(),
            paper.to_string(),
            fmt_f(p.latency_ns_min as f64 / 1e3, 1),
            fmt_f(p.latency_ns_max as f64 / 1e3, 1),
        ]);
        // First partition, first 64 KiB, so the jumps of the small blocks are visible.
        let pts = probe_points(out, 64.0);
        series.push((format!("SSD {m}"), pts));
    }
    let header = [
        "model",
        "preset",
        "configured",
        "placement",
        "inferred",
        "paper",
        "latency_us_min",
        "latency_us_max",
    ];
    ctx.csv("probe", &header, rows.clone());
    ctx.svg(
        "probe",
        line_chart_svg(
            "Management-block probe: 4 KiB writes every 512 B (first 64 KiB)",
            "offset (KiB)",
            "write latency (µs)",
            &series,
            false,
        ),
    );
    let b_series = vec![("SSD B".to_string(), probe_points(&outs[1], 4096.0))];
    ctx.svg(
        "probe_b",
        line_chart_svg(
            "Management-block probe on SSD B (first 4 MiB)",
            "offset (KiB)",
            "write latency (µs)",
            &b_series,
            false,
        ),
    );
    md.push_str("## 1. Management-block probe\n\n");
    md.push_str(
        "4 KiB writes at offsets rising by 512 B, after the probed region was written once, \
         three partitions, queue depth 1 (`--workload probe`). A write that straddles two \
         by-address management blocks rewrites both, one after the other, so its latency \
         doubles; with write-order placement only the page's own read-modify-write shows. \
         Figures: `probe.svg`, `probe_b.svg`.\n\n",
    );
    md.push_str(&md_table(&header, &rows));
    // Inferred against the paper's sizes (16 KB, 1 MB, 4 KB as KiB multiples).
    let expect = ["16KiB", "1MiB", "4KiB"];
    let inferred: Vec<String> = rows.iter().map(|r| r[4].replace(' ', "")).collect();
    cl.push(Claim::new(
        "M1",
        "§1 probe (Fig. 12)",
        "management blocks A 16 KB, B 1 MB (spike every 1 MB), C 4 KB",
        inferred.join(" / "),
        "the probe infers each paper size from the latency jumps",
        inferred.iter().zip(expect).all(|(i, e)| i == e),
    ));
    md.push_str(
        "\nThe model has no noise beyond the straddle itself, so one partition would do. \
         With write-order placement (C) only the flash page is visible, as the paper \
         notes.\n\n",
    );
    Ok(())
}

fn probe_points(out: &RunOutput, upto_kib: f64) -> Vec<(f64, f64)> {
    out.figures
        .probe_latency
        .first()
        .map(|(_, pts)| pts.iter().copied().filter(|p| p.0 < upto_kib).collect())
        .unwrap_or_default()
}

fn random_cfg(ctx: &Ctx, preset: &str, kind: SynthKind, size_kib: u64) -> Result<Config, ExpError> {
    random_cfg_with(ctx, preset, "", kind, size_kib)
}

/// [`random_cfg`] with `extra` TOML tables (e.g. an `[ftl]` table) on top: IOzone's
/// method (one request at a time, records at offsets that are multiples of the record
/// size, within a file of [`IOZONE_FILE`]), the device filled first, user data
/// buffered as [`DATA_BUFFER`] says.
fn random_cfg_with(
    ctx: &Ctx,
    preset: &str,
    extra: &str,
    kind: SynthKind,
    size_kib: u64,
) -> Result<Config, ExpError> {
    // Each run moves twice SSD A's 32 MiB of DRAM (four times in a full run), so a
    // write-back buffer (the sensitivity runs) must evict and a log area must merge
    // during the measurement.
    let run_bytes: u64 = if ctx.quick { 64 << 20 } else { 128 << 20 };
    let requests = run_bytes / (size_kib << 10);
    let mut c = cfg(
        preset,
        &format!(
            "precondition = \"fill\"\n[device]\ncapacity = \"{}\"\n[host]\nqd = {IOPS_QD}\n\
             [workload]\nkind = \"{}\"\nsize = \"{size_kib}KiB\"\nspan = \"{IOZONE_FILE}\"\n\
             requests = {requests}\n{extra}",
            capacity(ctx),
            kind.name()
        ),
        ctx.seed,
    )?;
    c.workload.align = Size(size_kib << 10);
    c.buffer.name = DATA_BUFFER;
    Ok(c)
}

fn iops_section(ctx: &mut Ctx, md: &mut String, cl: &mut Claims) -> Result<IopsGrid, ExpError> {
    let mut runs = Vec::new();
    for (m, preset) in MODELS {
        for kind in [SynthKind::RandomRead, SynthKind::RandomWrite] {
            for s in SIZES_KIB {
                runs.push((
                    format!("{m} {} {s}KiB", kind.name()),
                    random_cfg(ctx, preset, kind, s)?,
                ));
            }
        }
    }
    let outs = ctx.run_all(&runs)?;
    // iops[model][op][size]
    let iops = |mi: usize, oi: usize, si: usize| outs[(mi * 2 + oi) * 5 + si].report.iops;
    let kbs = |mi: usize, oi: usize, si: usize| iops(mi, oi, si) * SIZES_KIB[si] as f64;
    let mut rows = Vec::new();
    for (mi, (m, _)) in MODELS.iter().enumerate() {
        for (oi, op) in ["random-read", "random-write"].iter().enumerate() {
            for (si, s) in SIZES_KIB.iter().enumerate() {
                rows.push(vec![
                    m.to_string(),
                    op.to_string(),
                    s.to_string(),
                    fmt_f(iops(mi, oi, si), 0),
                    fmt_f(kbs(mi, oi, si), 0),
                    fmt_f(iops(mi, oi, si) / iops(0, oi, si), 2),
                ]);
            }
        }
    }
    ctx.csv(
        "iops",
        &["model", "op", "size_kib", "iops", "kib_s", "relative_to_a"],
        rows,
    );
    let cats: Vec<String> = SIZES_KIB.iter().map(|s| format!("{s} KiB")).collect();
    for (oi, op) in ["read", "write"].iter().enumerate() {
        let series: Vec<(String, Vec<f64>)> = MODELS
            .iter()
            .enumerate()
            .map(|(mi, (m, _))| {
                (
                    format!("SSD {m}"),
                    (0..5)
                        .map(|si| iops(mi, oi, si) / iops(0, oi, si))
                        .collect(),
                )
            })
            .collect();
        ctx.svg(
            &format!("iops_random_{op}"),
            bar_chart_svg(
                &format!("Random {op} IOPS relative to SSD A (QD {IOPS_QD})"),
                "× SSD A",
                &cats,
                &series,
                false,
            ),
        );
    }
    let grid = IopsGrid(std::array::from_fn(|mi| {
        std::array::from_fn(|oi| [iops(mi, oi, 0), iops(mi, oi, SIZES_KIB.len() - 1)])
    }));
    for c in grid.claims() {
        cl.push(c);
    }
    md.push_str("## 2. Random read and write IOPS relative to SSD A (paper's Figure 14)\n\n");
    md.push_str(&format!(
        "IOzone's method, as the paper measured Fig. 14 (its reference [4]; Iometer is not \
         used in the paper): uniform random records of each size, one request at a time \
         (queue depth {IOPS_QD}), at offsets that are multiples of the record size, inside a \
         {IOZONE_FILE} file (the largest of IOzone's automatic mode; the paper gives no file \
         size) on a {} device written once first. No drive acknowledges writes from its \
         DRAM: the paper does not say that the DRAM caches user data (section Parameters). \
         The paper's A values grow with the request size, so they are throughput \
         (KB/s) rather than IOPS; ours are printed as KiB/s in that row and the ratios are \
         the same either way. The sensitivity runs vary the queue depth and the buffers. \
         Figures: `iops_random_read.svg`, `iops_random_write.svg`.\n\n",
        capacity(ctx)
    ));
    let mut t = Vec::new();
    for (oi, (op, paper)) in [("read", PAPER_READ_RATIO), ("write", PAPER_WRITE_RATIO)]
        .iter()
        .enumerate()
    {
        t.push(vec![
            format!("{op} A (KiB/s)"),
            SIZES_KIB
                .iter()
                .enumerate()
                .map(|(si, _)| fmt_f(kbs(0, oi, si), 0))
                .collect::<Vec<_>>()
                .join(" / "),
            if oi == 0 {
                "19045 / 34822 / 49910 / 70103 / 90915".into()
            } else {
                "1699 / 2962 / 4734 / 7108 / 10941".into()
            },
        ]);
        for (mi, (m, ratios)) in paper.iter().enumerate() {
            t.push(vec![
                format!("{op} {m} / A"),
                (0..5)
                    .map(|si| fmt_f(iops(mi + 1, oi, si) / iops(0, oi, si), 2))
                    .collect::<Vec<_>>()
                    .join(" / "),
                ratios
                    .iter()
                    .map(|r| fmt_f(*r, 2))
                    .collect::<Vec<_>>()
                    .join(" / "),
            ]);
        }
    }
    md.push_str(&md_table(
        &["4 / 8 / 16 / 32 / 64 KiB", "ours", "paper"],
        &t,
    ));
    md.push_str(&format!(
        "\nMechanisms: C maps pages (no copying) over 20 chips, A rewrites 16 KiB per \
         4 KiB write, B rewrites 1 MiB (section 2b runs B with a log area). Random reads \
         cost one page read per 4 KiB in A and C, two 2 KiB reads in B. Random-write \
         KiB/s of A at 4 KiB: {}; C / A {}, B / A {} (claims M2–M4).\n\n",
        fmt_f(kbs(0, 1, 0), 0),
        fmt_f(iops(2, 1, 0) / iops(0, 1, 0), 2),
        fmt_f(iops(1, 1, 0) / iops(0, 1, 0), 3),
    ));
    Ok(grid)
}

/// SSD B as the paper infers it, "by address, with a log area": FAST on superblocks of
/// 1 MiB (data superblocks at fixed offsets, a sequential log block and random log
/// blocks as the log area), beside the `ssd-b` preset that rewrites 1 MiB per write.
fn log_area_section(ctx: &mut Ctx, md: &mut String) -> Result<(), ExpError> {
    let log = "[ftl]\nname = \"fast\"\nsuperblock = \"1MiB\"\n";
    let mut runs: Vec<(String, Config)> = Vec::new();
    for (name, over) in [("B", ""), ("B + log area", log)] {
        let mut c = cfg("ssd-b", over, ctx.seed)?;
        c.workload.kind = SynthKind::Probe;
        runs.push((format!("probe {name}"), c));
        for (kind, size) in [
            (SynthKind::RandomWrite, 4),
            (SynthKind::RandomWrite, 64),
            (SynthKind::RandomRead, 4),
        ] {
            let c = random_cfg_with(ctx, "ssd-b", over, kind, size)?;
            runs.push((format!("{name} {} {size}KiB", kind.name()), c));
        }
    }
    let a = [
        random_cfg(ctx, "ssd-a", SynthKind::RandomWrite, 4)?,
        random_cfg(ctx, "ssd-a", SynthKind::RandomWrite, 64)?,
        random_cfg(ctx, "ssd-a", SynthKind::RandomRead, 4)?,
    ];
    for (i, c) in a.into_iter().enumerate() {
        runs.push((format!("A {i}"), c));
    }
    let outs = ctx.run_all(&runs)?;
    let a_iops = [
        outs[8].report.iops,
        outs[9].report.iops,
        outs[10].report.iops,
    ];
    let mut rows = Vec::new();
    for (bi, name) in ["B", "B + log area"].iter().enumerate() {
        let base = bi * 4;
        let probe = outs[base]
            .report
            .probe
            .as_ref()
            .map_or("none".to_string(), |p| p.mgmt_block.clone());
        let mut row = vec![name.to_string(), probe];
        for k in 0..3 {
            let r = &outs[base + 1 + k].report;
            row.push(fmt_f(r.iops, 0));
            row.push(fmt_f(r.iops / a_iops[k], 2));
            if k < 2 {
                row.push(fmt_f(r.write_amplification, 1));
            }
        }
        rows.push(row);
    }
    let header = [
        "model",
        "probe_inferred",
        "write_4k_iops",
        "write_4k_vs_a",
        "write_4k_wa",
        "write_64k_iops",
        "write_64k_vs_a",
        "write_64k_wa",
        "read_4k_iops",
        "read_4k_vs_a",
    ];
    ctx.csv("log_area", &header, rows.clone());
    md.push_str(
        "## 2b. SSD B with a log area

",
    );
    md.push_str(
        "The paper infers B's 1 MB management blocks are placed by address *with a log \
         area*. `B + log area` runs the same hardware with the FAST FTL on superblocks of \
         1 MiB (8 erase blocks of 128 KiB striped over the channels, `--ftl fast \
         --mgmt-block 1MiB`): data superblocks hold pages at their address offset, and a \
         sequential log superblock plus random log superblocks absorb small writes. Same \
         method as section 2 (IOzone's random records, one at a time; `vs_a` = ratio to \
         SSD A's run).\n\n",
    );
    md.push_str(&md_table(&header, &rows));
    md.push_str(
        "\nWith the log area the probe still sees 1 MiB: FAST's sequential log block is \
         merged when writes cross into the next superblock, which is where the paper's B \
         spiked. Small random writes no longer rewrite 1 MiB each but land in the log \
         area; they pay for it later, when a random log superblock is reclaimed and every \
         data superblock with pages in it is merged (1 MiB each). How far B + log area \
         sits from the paper's 0.36 × A at 4 KiB therefore depends on how much of the run \
         the log area absorbs before merges dominate: the paper does not give B's log \
         size, and the model uses FAST's default (every block beyond the data blocks and a \
         merge reserve).\n\n",
    );
    let wa_log = outs[5].report.write_amplification;
    md.push_str(&format!(
        "In these runs the log area's 4 KiB random writes had write amplification {}: {}\n\n",
        fmt_f(wa_log, 1),
        if wa_log < 3.0 {
            "the log area absorbed almost the whole run, so B + log area is measured before its \
             merges dominate and sits above A, where the paper's B (measured by iozone over \
             longer runs) was below it; the by-address B without a log area is the opposite \
             bound."
        } else {
            "reclaims of the random log area ran during the measurement, as in a long run."
        }
    ));
    Ok(())
}

fn aging_section(ctx: &mut Ctx, md: &mut String, cl: &mut Claims) -> Result<(), ExpError> {
    // Same device (SSD C's hardware), two placements: what placement alone does to aging.
    let placements = [
        (
            "write-order",
            "[ftl]\nplacement = \"write-order\"\nmgmt_block = \"4KiB\"\n",
        ),
        (
            "by-address",
            "[ftl]\nplacement = \"by-address\"\nmgmt_block = \"4KiB\"\n",
        ),
    ];
    let workloads = [
        ("seq-read", "seq-read", 128u64),
        ("random-read", "random-read", 4),
        ("seq-write", "seq-write", 128),
        ("random-write", "random-write", 4),
    ];
    let requests = if ctx.quick { 500 } else { 5000 };
    let mut runs = Vec::new();
    for (pname, ptoml) in placements {
        for (state, pre) in [("fresh", "fill"), ("aged", "steady")] {
            for (wname, kind, size) in workloads {
                let c = cfg(
                    "ssd-c",
                    &format!(
                        "precondition = \"{pre}\"\n{ptoml}[device]\ncapacity = \"{}\"\n[host]\nqd = 1\n\
                         [workload]\nkind = \"{kind}\"\nsize = \"{size}KiB\"\nrequests = {requests}\n",
                        capacity(ctx)
                    ),
                    ctx.seed,
                )?;
                runs.push((format!("{pname} {state} {wname}"), c));
            }
        }
    }
    let outs = ctx.run_all(&runs)?;
    let mibs = |i: usize| outs[i].report.throughput_mib_s;
    let mut rows = Vec::new();
    let mut loss = Vec::new();
    for (pi, (pname, _)) in placements.iter().enumerate() {
        for (wi, (wname, _, _)) in workloads.iter().enumerate() {
            let fresh = mibs((pi * 2) * 4 + wi);
            let aged = mibs((pi * 2 + 1) * 4 + wi);
            rows.push(vec![
                pname.to_string(),
                wname.to_string(),
                fmt_f(fresh, 1),
                fmt_f(aged, 1),
                fmt_f(100.0 * (1.0 - aged / fresh), 1),
            ]);
            if wi == 0 {
                loss.push(1.0 - aged / fresh);
            }
        }
    }
    let header = [
        "placement",
        "workload",
        "fresh_mib_s",
        "aged_mib_s",
        "loss_percent",
    ];
    ctx.csv("aging", &header, rows.clone());
    let cats: Vec<String> = rows.iter().map(|r| format!("{} {}", r[0], r[1])).collect();
    ctx.svg(
        "aging",
        bar_chart_svg(
            "Throughput fresh vs aged (SSD C hardware, QD 1)",
            "MiB/s",
            &cats,
            &[
                (
                    "fresh".into(),
                    rows.iter().map(|r| r[2].parse().unwrap_or(0.0)).collect(),
                ),
                (
                    "aged".into(),
                    rows.iter().map(|r| r[3].parse().unwrap_or(0.0)).collect(),
                ),
            ],
            false,
        ),
    );
    md.push_str("## 3. Sequential vs random, fresh vs aged (\"3 months of use\")\n\n");
    md.push_str(
        "SSD C's hardware with page-sized management blocks, once with write-order placement \
         (C's, log structured) and once by address. *Fresh*: written sequentially once. \
         *Aged*: then overwritten at random until write amplification settles. 128 KiB \
         sequential and 4 KiB random requests at queue depth 1. Figure: `aging.svg`.\n\n",
    );
    md.push_str(&md_table(&header, &rows));
    cl.push(Claim::new(
        "M10",
        "§1 aging (Fig. 15)",
        "write-order placement (C) loses much read speed with age, by-address (A) little",
        format!(
            "sequential-read loss write-order {}%, by-address {}%",
            fmt_f(100.0 * loss[0], 1),
            fmt_f(100.0 * loss[1], 1)
        ),
        "write-order loses more than by-address",
        loss[0] > loss[1],
    ));
    md.push_str(&format!(
        "\nSequential-read loss after aging: write-order {}%, by-address {}% — {}. \
         Written in order, consecutive pages land on consecutive channels, so a 128 KiB read \
         uses all of them; random overwrites scatter them, so the aged read queues on a few \
         chips while others idle. By-address placement pins each page's channel, so aging \
         cannot disturb the read's parallelism (paper: C's reads drop badly with age, A's \
         only a little). Random writes lose in both after aging because GC now runs.\n\n",
        fmt_f(100.0 * loss[0], 1),
        fmt_f(100.0 * loss[1], 1),
        if loss[0] > loss[1] {
            "write-order loses more, as the paper found"
        } else {
            "**write-order does not lose more than by-address here**"
        }
    ));
    Ok(())
}

fn organisation_section(ctx: &mut Ctx, md: &mut String, cl: &mut Claims) -> Result<(), ExpError> {
    let orgs = ["shared-bus", "shared-control", "channels"];
    let chips = [1u32, 2, 4, 8, 16];
    let workloads = [
        ("seq-read", "seq-read", 64u64, true),
        ("random-read", "random-read", 2, true),
        ("seq-write", "seq-write", 64, false),
        ("random-write", "random-write", 2, false),
    ];
    let requests = if ctx.quick { 1000 } else { 8000 };
    let mut runs = Vec::new();
    for org in orgs {
        for n in chips {
            // Channels give every chip its own bus; the gangs share one bus (shared-bus) or
            // one control bus (shared-control). The geometry is the same for all three.
            let (channels, per_channel) = if org == "channels" { (n, 1) } else { (1, n) };
            for (wname, kind, size, fill) in workloads {
                let c = cfg(
                    "ssd-b",
                    &format!(
                        "precondition = \"{}\"\n[device]\norganisation = \"{org}\"\n\
                         channels = {channels}\nchips_per_channel = {per_channel}\n\
                         dies_per_chip = 2\ncapacity = \"{}MiB\"\nhost_link_mb_s = 0.0\n\
                         [ftl]\nmgmt_block = \"2KiB\"\nplacement = \"write-order\"\n\
                         [host]\nqd = 32\n[workload]\nkind = \"{kind}\"\nsize = \"{size}KiB\"\n\
                         align = \"2KiB\"\nrequests = {requests}\n",
                        if fill { "fill" } else { "none" },
                        n * 128,
                    ),
                    ctx.seed,
                )?;
                runs.push((format!("{org} {n} chips {wname}"), c));
            }
        }
    }
    let outs = ctx.run_all(&runs)?;
    let mibs =
        |oi: usize, ni: usize, wi: usize| outs[(oi * 5 + ni) * 4 + wi].report.throughput_mib_s;
    let mut rows = Vec::new();
    for (oi, org) in orgs.iter().enumerate() {
        for (ni, n) in chips.iter().enumerate() {
            let mut r = vec![org.to_string(), n.to_string()];
            r.extend((0..4).map(|wi| fmt_f(mibs(oi, ni, wi), 3)));
            rows.push(r);
        }
    }
    let header = [
        "organisation",
        "chips",
        "seq_read_mib_s",
        "random_read_mib_s",
        "seq_write_mib_s",
        "random_write_mib_s",
    ];
    ctx.csv("organisation", &header, rows.clone());
    for (wi, (wname, _, _, _)) in workloads.iter().enumerate() {
        let series: Vec<(String, Vec<(f64, f64)>)> = orgs
            .iter()
            .enumerate()
            .map(|(oi, org)| {
                (
                    org.to_string(),
                    chips
                        .iter()
                        .enumerate()
                        .map(|(ni, &n)| (n as f64, mibs(oi, ni, wi)))
                        .collect(),
                )
            })
            .collect();
        ctx.svg(
            &format!("organisation_{wname}"),
            line_chart_svg(
                &format!("{wname} bandwidth by chip organisation (SLC, 2 dies/chip, QD 32)"),
                "chips",
                "MiB/s",
                &series,
                false,
            ),
        );
    }
    md.push_str("## 4. Chip organisation (after Agrawal et al., paper's Figure 4)\n\n");
    md.push_str(
        "SLC chips with 2 KiB pages and two dies each (SSD B's cell), 1–16 chips, queue depth \
         32, and no host-link limit, so the table shows what each organisation itself \
         delivers (with a SATA-2 link, 16 chips on channels or on a shared control bus both \
         saturate its 300 MB/s and differ only by noise). Shared-bus gang: one data and control bus for all chips; \
         shared-control gang: a data bus per chip, one control bus; channels: a bus per chip. \
         Reads run on a filled device, writes on an empty one. Figures: \
         `organisation_*.svg`.\n\n",
    );
    md.push_str(&md_table(&header, &rows));
    let rr = |oi: usize, ni: usize| mibs(oi, ni, 1);
    let holds = (3..5).all(|ni| rr(2, ni) > rr(1, ni) && rr(1, ni) > rr(0, ni));
    cl.push(Claim::new(
        "M11",
        "§1 organisations (Fig. 4)",
        "channels (c) parallelise best, then shared-control (b), then shared-bus (a)",
        format!(
            "random read at 8 / 16 chips: c {} / {}, b {} / {}, a {} / {} MiB/s",
            fmt_f(rr(2, 3), 1),
            fmt_f(rr(2, 4), 1),
            fmt_f(rr(1, 3), 1),
            fmt_f(rr(1, 4), 1),
            fmt_f(rr(0, 3), 1),
            fmt_f(rr(0, 4), 1)
        ),
        "c > b > a at 8 and 16 chips",
        holds,
    ));
    md.push_str(&format!(
        "\nRandom reads at 8 and 16 chips: channels {} / {} MiB/s, shared-control {} / {}, \
         shared-bus {} / {} — {}. \
         Paper's ceilings for comparison: one SLC chip reads ~26.7 MB/s (40 MB/s with two \
         interleaved dies, the bus limit of 2 KB × 25 ns/B) and writes ~10 MB/s (20 MB/s \
         interleaved); SATA 1/2/3 cap the device at 150/300/600 MB/s. A shared bus stays at \
         one chip's transfer rate however many chips it has; separate data buses scale until \
         the shared control bus saturates; channels scale with the chips. Behind a real \
         interface every figure above the SATA ceiling is capped at it.\n",
        fmt_f(rr(2, 3), 1),
        fmt_f(rr(2, 4), 1),
        fmt_f(rr(1, 3), 1),
        fmt_f(rr(1, 4), 1),
        fmt_f(rr(0, 3), 1),
        fmt_f(rr(0, 4), 1),
        if holds {
            "channels beat shared-control beat shared-bus, as the paper says; channels win \
             over shared-control only by the control-bus command cycles, since both give \
             every chip its own data bus here"
        } else {
            "**the paper's order does not hold at every size**"
        }
    ));
    Ok(())
}

/// Random IOPS by model (A, B, C), operation (read, write) and size (4 KiB, 64 KiB).
struct IopsGrid([[[f64; 2]; 2]; 3]);

impl IopsGrid {
    fn r(&self, m: usize, op: usize, s: usize) -> f64 {
        self.0[m][op][s] / self.0[0][op][s]
    }

    /// Claims M2–M9 (Fig. 14) on this grid.
    fn claims(&self) -> Vec<Claim> {
        let (w, rd) = (1, 0);
        let f2 = |x: f64, p: f64| x >= p / 2.0 && x <= p * 2.0;
        vec![
            Claim::new(
                "M2",
                "§1 Fig. 14 write",
                "4 KiB random writes: C > A > B",
                format!(
                    "C {} > A {} > B {} IOPS",
                    fmt_f(self.0[2][w][0], 0),
                    fmt_f(self.0[0][w][0], 0),
                    fmt_f(self.0[1][w][0], 0)
                ),
                "C > A > B",
                self.0[2][w][0] > self.0[0][w][0] && self.0[0][w][0] > self.0[1][w][0],
            ),
            Claim::new(
                "M3",
                "§1 Fig. 14 write",
                "C / A = 22.8 at 4 KiB",
                fmt_f(self.r(2, w, 0), 2),
                "within a factor 2 of 22.8",
                f2(self.r(2, w, 0), 22.8),
            ),
            Claim::new(
                "M4",
                "§1 Fig. 14 write",
                "B / A = 0.36 at 4 KiB",
                fmt_f(self.r(1, w, 0), 3),
                "within a factor 2 of 0.36",
                f2(self.r(1, w, 0), 0.36),
            ),
            Claim::new(
                "M5",
                "§1 Fig. 14 read",
                "B / A falls from 1.20 (4 KiB) to 0.77 (64 KiB)",
                format!(
                    "{} → {}",
                    fmt_f(self.r(1, rd, 0), 2),
                    fmt_f(self.r(1, rd, 1), 2)
                ),
                "B / A at 4 KiB > 1 > B / A at 64 KiB",
                self.r(1, rd, 0) > 1.0 && self.r(1, rd, 1) < 1.0,
            ),
            Claim::new(
                "M6",
                "§1 Fig. 14 read",
                "C / A rises from 1.03 (4 KiB) to 1.45 (64 KiB)",
                format!(
                    "{} → {}",
                    fmt_f(self.r(2, rd, 0), 2),
                    fmt_f(self.r(2, rd, 1), 2)
                ),
                "C / A at 64 KiB > at 4 KiB and > 1",
                self.r(2, rd, 1) > self.r(2, rd, 0) && self.r(2, rd, 1) > 1.0,
            ),
            Claim::new(
                "M7",
                "§1 Fig. 14 write",
                "B / A rises from 0.36 (4 KiB) to 0.82 (64 KiB)",
                format!(
                    "{} → {}",
                    fmt_f(self.r(1, w, 0), 3),
                    fmt_f(self.r(1, w, 1), 3)
                ),
                "B / A at 64 KiB > at 4 KiB",
                self.r(1, w, 1) > self.r(1, w, 0),
            ),
            Claim::new(
                "M8",
                "§1 Fig. 14 write",
                "C / A falls from 22.8 (4 KiB) to 6.9 (64 KiB)",
                format!(
                    "{} → {}",
                    fmt_f(self.r(2, w, 0), 2),
                    fmt_f(self.r(2, w, 1), 2)
                ),
                "C / A at 64 KiB < at 4 KiB",
                self.r(2, w, 1) < self.r(2, w, 0),
            ),
            Claim::new(
                "M9",
                "§1 Fig. 14 read",
                "A's random-read throughput 4.8× from 4 KiB to 64 KiB",
                format!("{}×", fmt_f(self.0[0][rd][1] * 16.0 / self.0[0][rd][0], 2)),
                "at least half the paper's growth (≥ 2.4×)",
                self.0[0][rd][1] * 16.0 / self.0[0][rd][0] >= 2.4,
            ),
        ]
    }
}

/// Settings of the Fig. 14 sweep: (label, queue depth, write buffer on).
const IOPS_SETTINGS: [(&str, u32, bool); 4] = [
    ("QD 1, no buffer", 1, false),
    ("QD 1, DRAM buffer", 1, true),
    ("QD 32, no buffer", 32, false),
    ("QD 32, DRAM buffer", 32, true),
];

/// Fig. 14 over what the paper leaves unsaid: the queue depth (iozone issues one
/// request at a time; devices overlap more with a queue) and whether the DRAM buffer
/// the paper lists (32 / 16 / 16 MiB) absorbs writes (BPLRU, block-granular as these
/// block-mapped devices need).
fn iops_sensitivity(ctx: &mut Ctx, cl: &mut Claims, main: &IopsGrid) -> Result<(), ExpError> {
    let ids = ["M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9"];
    // The same run lengths as section 2 ([`random_cfg_with`]).
    let run_bytes: u64 = if ctx.quick { 64 << 20 } else { 128 << 20 };
    let mut runs = Vec::new();
    for (label, qd, buffer) in IOPS_SETTINGS {
        for (_, preset) in MODELS {
            for kind in [SynthKind::RandomRead, SynthKind::RandomWrite] {
                for s in [SIZES_KIB[0], SIZES_KIB[SIZES_KIB.len() - 1]] {
                    let mut c = random_cfg(ctx, preset, kind, s)?;
                    c.host.qd = qd;
                    debug_assert_eq!(c.workload.requests, Some(run_bytes / (s << 10)));
                    c.buffer.name = if buffer {
                        // Padding would rewrite whole blocks per eviction.
                        c.buffer.bplru_padding = false;
                        BufferKind::Bplru
                    } else {
                        BufferKind::None
                    };
                    runs.push((format!("{label} {preset} {} {s}KiB", kind.name()), c));
                }
            }
        }
    }
    let outs = ctx.run_all(&runs)?;
    let mut grids = Vec::new();
    let mut rows = Vec::new();
    for (k, (label, _, _)) in IOPS_SETTINGS.iter().enumerate() {
        let at = |m: usize, op: usize, s: usize| outs[((k * 3 + m) * 2 + op) * 2 + s].report.iops;
        let g = IopsGrid(std::array::from_fn(|m| {
            std::array::from_fn(|op| [at(m, op, 0), at(m, op, 1)])
        }));
        for c in g.claims() {
            rows.push(vec![
                label.to_string(),
                c.id.clone(),
                c.ours.clone(),
                if c.holds { "yes" } else { "no" }.to_string(),
            ]);
        }
        grids.push(g);
    }
    ctx.csv(
        "sensitivity_iops",
        &["setting", "claim", "ours", "holds"],
        rows,
    );
    let cats: Vec<String> = IOPS_SETTINGS.iter().map(|s| s.0.to_string()).collect();
    let series = vec![
        (
            "write C/A 4 KiB".to_string(),
            grids.iter().map(|g| g.r(2, 1, 0)).collect(),
        ),
        (
            "write B/A 4 KiB".to_string(),
            grids.iter().map(|g| g.r(1, 1, 0)).collect(),
        ),
        (
            "read B/A 4 KiB".to_string(),
            grids.iter().map(|g| g.r(1, 0, 0)).collect(),
        ),
        (
            "read B/A 64 KiB".to_string(),
            grids.iter().map(|g| g.r(1, 0, 1)).collect(),
        ),
    ];
    ctx.svg(
        "sensitivity_iops",
        bar_chart_svg(
            "Fig. 14 ratios by queue depth and DRAM write buffer",
            "ratio to SSD A",
            &cats,
            &series,
            false,
        ),
    );
    let held: Vec<usize> = grids
        .iter()
        .map(|g| g.claims().iter().filter(|c| c.holds).count())
        .collect();
    let best = (0..IOPS_SETTINGS.len())
        .max_by_key(|&k| held[k])
        .unwrap_or(0);
    let all_hold = |k: usize| grids[k].claims().iter().all(|c| c.holds);
    let per: Vec<String> = IOPS_SETTINGS
        .iter()
        .zip(&grids)
        .zip(&held)
        .map(|(((label, _, _), g), h)| {
            format!(
                "{label}: {h} of {} hold (write C/A {}, B/A {}; read B/A {} → {})",
                ids.len(),
                fmt_f(g.r(2, 1, 0), 2),
                fmt_f(g.r(1, 1, 0), 3),
                fmt_f(g.r(1, 0, 0), 2),
                fmt_f(g.r(1, 0, 1), 2)
            )
        })
        .collect();
    let explanation = format!(
        "Claims M2–M9 under each setting ({} MiB per run): {}. Most claims hold with {}. \
         Writes, C / A (M3): with IOzone's method our A completes a 4 KiB random write in \
         {} µs where the paper's A took {} µs ({} KB/s), and our C in {} µs where the \
         paper's took {} µs{}. Reads, B / A (M5): a 64 KiB read moves the \
         same bytes over the same four channels in A and B (B's 2 KiB pages halve each \
         transfer and double the pages), so B / A at 64 KiB stays at or above {} in every \
         setting where the paper has 0.77: the drop needs a limit on B's side (controller or \
         firmware per page) the paper does not describe. Writes, B / A (M4): see the log-area \
         sweep; once a buffer must evict, each evicted block still costs what the FTL does \
         with it (a 1 MiB rewrite for B without a log area).",
        run_bytes >> 20,
        per.join("; "),
        IOPS_SETTINGS[best].0,
        fmt_f(1e6 / main.0[0][1][0], 0),
        fmt_f(1e6 / (PAPER_A_WRITE_4K_KB_S / 4.0), 0),
        fmt_f(PAPER_A_WRITE_4K_KB_S, 0),
        fmt_f(1e6 / main.0[2][1][0], 0),
        fmt_f(
            1e6 / (PAPER_A_WRITE_4K_KB_S * PAPER_WRITE_RATIO[1].1[0] / 4.0),
            0
        ),
        if 1e6 / main.0[0][1][0] < 1e6 / (PAPER_A_WRITE_4K_KB_S / 4.0) {
            ": our A rewrites its 16 KiB management block faster than the paper's A did \
             (the model overlaps the rewrite's programs and erase across A's dies), which \
             narrows C / A"
        } else {
            ""
        },
        fmt_f(
            grids
                .iter()
                .chain(std::iter::once(main))
                .map(|g| g.r(1, 0, 1))
                .fold(f64::INFINITY, f64::min),
            2
        ),
    );
    if !cl.any_fails(&ids) {
        return Ok(());
    }
    cl.sensitivity(Sensitivity {
        claims: ids
            .iter()
            .filter(|id| cl.holds(id) == Some(false))
            .map(|s| s.to_string())
            .collect(),
        swept: "Fig. 14 IOPS over queue depth (1, 32) and the presets' DRAM write buffer \
                (off, BPLRU)"
            .into(),
        figures: vec!["sensitivity_iops.svg".into()],
        setting_found: (0..IOPS_SETTINGS.len())
            .find(|&k| all_hold(k))
            .map(|k| IOPS_SETTINGS[k].0.to_string()),
        explanation,
    });
    Ok(())
}

/// Claims M4 and M7 (B / A for random writes) over the size of B's log area, which the
/// paper infers but does not size: B as the preset (no log area, every write rewrites
/// 1 MiB), and FAST on 1 MiB superblocks with log areas from a few superblocks to the
/// default (every block beyond the data blocks).
fn b_log_sensitivity(ctx: &mut Ctx, cl: &mut Claims) -> Result<(), ExpError> {
    if !cl.any_fails(&["M4", "M7"]) {
        return Ok(());
    }
    let variants: [(&str, String); 5] = [
        ("no log area", String::new()),
        ("log 4 MiB", fast_log(4)),
        ("log 16 MiB", fast_log(16)),
        ("log 64 MiB", fast_log(64)),
        (
            "log default",
            "[ftl]\nname = \"fast\"\nsuperblock = \"1MiB\"\n".into(),
        ),
    ];
    let sizes = [SIZES_KIB[0], SIZES_KIB[SIZES_KIB.len() - 1]];
    let mut runs = Vec::new();
    for s in sizes {
        runs.push((
            format!("log sens A {s}KiB"),
            random_cfg(ctx, "ssd-a", SynthKind::RandomWrite, s)?,
        ));
    }
    for (name, over) in &variants {
        for s in sizes {
            runs.push((
                format!("log sens B {name} {s}KiB"),
                random_cfg_with(ctx, "ssd-b", over, SynthKind::RandomWrite, s)?,
            ));
        }
    }
    let outs = ctx.run_all(&runs)?;
    let a = [outs[0].report.iops, outs[1].report.iops];
    let r = |v: usize, si: usize| outs[2 + v * 2 + si].report.iops / a[si];
    let mut rows = Vec::new();
    let mut found = Vec::new();
    for (v, (name, _)) in variants.iter().enumerate() {
        let (r4, r64) = (r(v, 0), r(v, 1));
        let m4 = (0.18..=0.72).contains(&r4);
        let m7 = r64 > r4;
        rows.push(vec![
            name.to_string(),
            fmt_f(r4, 3),
            fmt_f(r64, 3),
            if m4 { "yes" } else { "no" }.into(),
            if m7 { "yes" } else { "no" }.into(),
        ]);
        if m4 && m7 {
            found.push(name.to_string());
        }
    }
    ctx.csv(
        "sensitivity_b_log",
        &[
            "b_variant",
            "write_4k_b_over_a",
            "write_64k_b_over_a",
            "m4_holds",
            "m7_holds",
        ],
        rows.clone(),
    );
    let cats: Vec<String> = variants.iter().map(|v| v.0.to_string()).collect();
    ctx.svg(
        "sensitivity_b_log",
        bar_chart_svg(
            "Random-write B / A by the size of B's log area (IOzone method)",
            "B / A",
            &cats,
            &[
                (
                    "4 KiB".into(),
                    (0..variants.len()).map(|v| r(v, 0)).collect(),
                ),
                (
                    "64 KiB".into(),
                    (0..variants.len()).map(|v| r(v, 1)).collect(),
                ),
            ],
            false,
        ),
    );
    let per: Vec<String> = rows
        .iter()
        .map(|r| format!("{}: {} at 4 KiB, {} at 64 KiB", r[0], r[1], r[2]))
        .collect();
    cl.sensitivity(Sensitivity {
        claims: ["M4", "M7"]
            .iter()
            .filter(|id| cl.holds(id) == Some(false))
            .map(|s| s.to_string())
            .collect(),
        swept: "SSD B's log area (none, FAST on 1 MiB superblocks with 4, 16, 64 MiB or the \
                default log area), random writes against SSD A"
            .into(),
        figures: vec!["sensitivity_b_log.svg".into()],
        setting_found: (!found.is_empty()).then(|| found.join(", ")),
        explanation: format!(
            "B / A: {}. Without a log area each small write rewrites a 1 MiB block, far below \
             the paper's 0.36; a log area absorbs small writes until its merges (1 MiB each) \
             dominate, so B / A falls as the log area shrinks. The paper infers that B has a \
             log area but gives no size, so the default B stays the preset; the settings \
             where both claims hold are listed, not adopted.",
            per.join("; ")
        ),
    });
    Ok(())
}

fn fast_log(mib: u32) -> String {
    format!("[ftl]\nname = \"fast\"\nsuperblock = \"1MiB\"\n[ftl.log]\nlog_blocks = {mib}\n")
}

/// The paper's Fig. 17: placement inside a management block (write-order, by-address)
/// × placement of its pages on channels (one-channel, striped), read and write after
/// aging, on SSD A's hardware with its 16 KiB management blocks (the size the paper
/// infers for A: 4 pages, so a 128 KiB read spans eight of them).
fn fig17_section(ctx: &mut Ctx, md: &mut String, cl: &mut Claims) -> Result<(), ExpError> {
    let combos = [
        ("write-order", "one-channel"),
        ("write-order", "striped"),
        ("by-address", "one-channel"),
        ("by-address", "striped"),
    ];
    let workloads = [
        ("seq-read", 128u64),
        ("random-read", 4),
        ("seq-write", 128),
        ("random-write", 4),
    ];
    let requests = if ctx.quick { 500 } else { 5000 };
    let mut runs = Vec::new();
    for (placement, channels) in combos {
        for (kind, size) in workloads {
            let c = cfg(
                "ssd-a",
                &format!(
                    "precondition = \"steady\"\n[ftl]\nplacement = \"{placement}\"\n\
                     channel_placement = \"{channels}\"\nmgmt_block = \"16KiB\"\n\
                     [device]\ncapacity = \"{}\"\n[host]\nqd = 1\n[workload]\n\
                     kind = \"{kind}\"\nsize = \"{size}KiB\"\nrequests = {requests}\n",
                    capacity(ctx)
                ),
                ctx.seed,
            )?;
            runs.push((format!("fig17 {placement} {channels} {kind}"), c));
        }
    }
    let outs = ctx.run_all(&runs)?;
    let mibs = |ci: usize, wi: usize| outs[ci * workloads.len() + wi].report.throughput_mib_s;
    let mut rows = Vec::new();
    for (ci, (placement, channels)) in combos.iter().enumerate() {
        let mut r = vec![placement.to_string(), channels.to_string()];
        r.extend((0..workloads.len()).map(|wi| fmt_f(mibs(ci, wi), 2)));
        rows.push(r);
    }
    let header = [
        "placement",
        "channels",
        "seq_read_mib_s",
        "random_read_mib_s",
        "seq_write_mib_s",
        "random_write_mib_s",
    ];
    ctx.csv("fig17", &header, rows.clone());
    let cats: Vec<String> = combos.iter().map(|(p, c)| format!("{p} + {c}")).collect();
    ctx.svg(
        "fig17",
        bar_chart_svg(
            "Fig. 17: placement × channel placement after aging (SSD A, 16 KiB blocks, QD 1)",
            "MiB/s",
            &cats,
            &workloads
                .iter()
                .enumerate()
                .map(|(wi, (k, _))| {
                    (
                        k.to_string(),
                        (0..combos.len()).map(|ci| mibs(ci, wi)).collect(),
                    )
                })
                .collect::<Vec<_>>(),
            false,
        ),
    );
    md.push_str("## 3b. Placement × channel placement after aging (paper's Fig. 17)\n\n");
    md.push_str(&format!(
        "SSD A's hardware with its 16 KiB management blocks (the paper's inference for A), aged (filled, then random \
         overwrites until write amplification settles), {requests} requests at queue depth \
         1: 128 KiB sequential and 4 KiB random reads and writes. Figure: `fig17.svg`; \
         table: `fig17.csv`.\n\n"
    ));
    md.push_str(&md_table(&header, &rows));
    md.push('\n');
    let seq = |ci: usize| mibs(ci, 0);
    let best = (0..combos.len())
        .max_by(|&a, &b| seq(a).total_cmp(&seq(b)))
        .unwrap_or(0);
    let worst = (0..combos.len())
        .min_by(|&a, &b| seq(a).total_cmp(&seq(b)))
        .unwrap_or(0);
    let name = |ci: usize| format!("{} + {}", combos[ci].0, combos[ci].1);
    cl.push(Claim::new(
        "M12",
        "§1 Fig. 17",
        "by-address + striped optimises reads",
        format!(
            "best aged sequential read: {} ({} MiB/s)",
            name(best),
            fmt_f(seq(best), 1)
        ),
        "by-address + striped has the highest aged sequential read",
        best == 3,
    ));
    cl.push(Claim::new(
        "M13",
        "§1 Fig. 17",
        "with striped pages, write-order can be the worst case for reads",
        format!(
            "aged sequential read striped: write-order {} vs by-address {} MiB/s (lowest of \
             all four: {})",
            fmt_f(seq(1), 1),
            fmt_f(seq(3), 1),
            name(worst)
        ),
        "write-order + striped < by-address + striped",
        seq(1) < seq(3),
    ));
    cl.push(Claim::new(
        "M14",
        "§1 Fig. 17",
        "write-order + one-channel helps later parallel reads (over write-order + striped)",
        format!(
            "aged sequential read {} vs {} MiB/s",
            fmt_f(seq(0), 1),
            fmt_f(seq(1), 1)
        ),
        "write-order + one-channel > write-order + striped",
        seq(0) > seq(1),
    ));
    if cl.holds("M14") == Some(false) {
        fig17_sensitivity(ctx, cl, requests)?;
    }
    Ok(())
}

/// The paper's Fig. 16: Managed Flash Technology (host-side log structuring, docs/host-log.md)
/// in front of SSD B made its random writes fast and its reads slow; here on A, B and C,
/// each aged through the layer (or without it), at queue depth 1 as IOzone issues.
fn fig16_section(ctx: &mut Ctx, md: &mut String, cl: &mut Claims) -> Result<(), ExpError> {
    // Smaller devices than the other sections: aging runs random overwrites until the
    // write amplification settles, and B without the log rewrites 1 MiB per write.
    let capacity = if ctx.quick { "1GiB" } else { "4GiB" };
    let (n_rand, n_seq) = if ctx.quick { (2000, 400) } else { (8000, 1600) };
    let workloads = [
        ("seq-write", 128u64, n_seq),
        ("random-write", 4, n_rand),
        ("seq-read", 128, n_seq),
    ];
    let logs = [("without", "none"), ("with MFT", "mft")];
    let mut runs = Vec::new();
    for (m, preset) in MODELS {
        for (lname, log) in logs {
            for (kind, size, requests) in workloads {
                // 1 MiB segments: SSD B's management block, a multiple of A's and C's.
                let host_log = if log == "none" {
                    String::new()
                } else {
                    "[host_log]\nname = \"mft\"\nsegment = \"1MiB\"\n".into()
                };
                let mut c = cfg(
                    preset,
                    &format!(
                        "precondition = \"steady\"\n[device]\ncapacity = \"{capacity}\"\n\
                         [host]\nqd = 1\n[workload]\nkind = \"{kind}\"\nsize = \"{size}KiB\"\n\
                         requests = {requests}\n{host_log}"
                    ),
                    ctx.seed,
                )?;
                c.workload.align = Size(size << 10);
                runs.push((format!("fig16 {m} {lname} {kind}"), c));
            }
        }
    }
    let outs = ctx.run_all(&runs)?;
    // MiB/s as the host sees it (with a log the report's byte counts are the SSD's).
    let mibs = |mi: usize, li: usize, wi: usize| {
        let (_, size, _) = workloads[wi];
        outs[(mi * 2 + li) * workloads.len() + wi].report.iops * size as f64 / 1024.0
    };
    let log_wa = |mi: usize, wi: usize| {
        outs[(mi * 2 + 1) * workloads.len() + wi]
            .report
            .notes
            .iter()
            .find_map(|n| {
                n.split("log write amplification ")
                    .nth(1)
                    .and_then(|r| r.split(')').next())
                    .map(str::to_string)
            })
            .unwrap_or_else(|| "?".into())
    };
    let mut rows = Vec::new();
    for (mi, (m, _)) in MODELS.iter().enumerate() {
        for (li, (lname, _)) in logs.iter().enumerate() {
            let mut r = vec![m.to_string(), lname.to_string()];
            r.extend((0..workloads.len()).map(|wi| fmt_f(mibs(mi, li, wi), 2)));
            r.push(if li == 1 { log_wa(mi, 1) } else { "-".into() });
            rows.push(r);
        }
    }
    let header = [
        "model",
        "host_log",
        "seq_write_mib_s",
        "random_write_4k_mib_s",
        "seq_read_mib_s",
        "log_write_amplification",
    ];
    ctx.csv("fig16", &header, rows.clone());
    let cats: Vec<String> = MODELS
        .iter()
        .flat_map(|(m, _)| logs.iter().map(move |(l, _)| format!("{m} {l}")))
        .collect();
    ctx.svg(
        "fig16",
        bar_chart_svg(
            "Fig. 16: SSD A, B, C without and with an MFT host log (aged, QD 1)",
            "MiB/s",
            &cats,
            &workloads
                .iter()
                .enumerate()
                .map(|(wi, (k, s, _))| {
                    (
                        format!("{k} {s} KiB"),
                        (0..MODELS.len())
                            .flat_map(|mi| (0..2).map(move |li| (mi, li)))
                            .map(|(mi, li)| mibs(mi, li, wi))
                            .collect(),
                    )
                })
                .collect::<Vec<_>>(),
            false,
        ),
    );
    md.push_str("## 3c. Managed Flash Technology in front of the SSDs (paper's Fig. 16)\n\n");
    md.push_str(&format!(
        "Each SSD ({capacity} devices), without and with an MFT-style host log \
         (`--host-log mft`, 1 MiB segments, 10% of the SSD kept free for the log; \
         docs/host-log.md): aged (filled, then random 4 KiB overwrites until write \
         amplification settles, through the log when there is one), then 128 KiB \
         sequential writes, 4 KiB random writes and 128 KiB sequential reads at queue \
         depth 1, record-aligned as IOzone places them. MiB/s as the host sees it; \
         `log_write_amplification` is the blocks the log wrote to the SSD per block the \
         host wrote, in the random-write run (the cleaner's copies). Figure: `fig16.svg`; \
         table: `fig16.csv`.\n\n"
    ));
    md.push_str(&md_table(&header, &rows));
    md.push('\n');
    let (sw, rw, sr) = (0, 1, 2);
    let b = 1;
    cl.push(Claim::new(
        "M15",
        "§1 Fig. 16",
        "MFT makes SSD B's random writes fast: close to its sequential writes",
        format!(
            "B 4 KiB random writes {} → {} MiB/s with MFT (sequential with MFT {})",
            fmt_f(mibs(b, 0, rw), 3),
            fmt_f(mibs(b, 1, rw), 2),
            fmt_f(mibs(b, 1, sw), 2)
        ),
        "with MFT, B's random writes ≥ 10× without and ≥ ½ of its sequential writes",
        mibs(b, 1, rw) >= 10.0 * mibs(b, 0, rw) && mibs(b, 1, rw) >= 0.5 * mibs(b, 1, sw),
    ));
    cl.push(Claim::new(
        "M16",
        "§1 Fig. 16 text",
        "… but MFT makes B's reads slow (as write-order placement does, Fig. 9)",
        format!(
            "B aged 128 KiB sequential reads {} MiB/s without, {} with MFT",
            fmt_f(mibs(b, 0, sr), 1),
            fmt_f(mibs(b, 1, sr), 1)
        ),
        "with MFT, B's aged sequential reads are slower than without",
        mibs(b, 1, sr) < mibs(b, 0, sr),
    ));
    md.push_str(&format!(
        "\nMechanism: without the log, every 4 KiB write rewrites a management block in \
         place (16 KiB in A, 1 MiB in B; C places pages in write order itself). With the \
         log the SSDs see only whole, aligned 1 MiB writes, and the log pays for its own \
         cleaning instead (its write amplification in B's random-write run: {}). Reads pay \
         the other way: after aging, the 32 blocks of a 128 KiB host read lie scattered \
         over the log, so the read becomes several small SSD reads. Random writes with / \
         without MFT: A {} / {}, B {} / {}, C {} / {} MiB/s; sequential reads: A {} / {}, \
         B {} / {}, C {} / {} MiB/s.\n\n",
        log_wa(b, rw),
        fmt_f(mibs(0, 1, rw), 2),
        fmt_f(mibs(0, 0, rw), 2),
        fmt_f(mibs(1, 1, rw), 2),
        fmt_f(mibs(1, 0, rw), 3),
        fmt_f(mibs(2, 1, rw), 2),
        fmt_f(mibs(2, 0, rw), 2),
        fmt_f(mibs(0, 1, sr), 1),
        fmt_f(mibs(0, 0, sr), 1),
        fmt_f(mibs(1, 1, sr), 1),
        fmt_f(mibs(1, 0, sr), 1),
        fmt_f(mibs(2, 1, sr), 1),
        fmt_f(mibs(2, 0, sr), 1),
    ));
    Ok(())
}

/// Claim M14 over the management-block size: how many pages of a block a 128 KiB read
/// covers decides whether one block's pages on one channel serialise it.
fn fig17_sensitivity(ctx: &mut Ctx, cl: &mut Claims, requests: u64) -> Result<(), ExpError> {
    let sizes_kib = [16u64, 64, 256, 1024];
    let mut runs = Vec::new();
    for mb in sizes_kib {
        for channels in ["one-channel", "striped"] {
            let c = cfg(
                "ssd-a",
                &format!(
                    "precondition = \"steady\"\n[ftl]\nplacement = \"write-order\"\n\
                     channel_placement = \"{channels}\"\nmgmt_block = \"{mb}KiB\"\n\
                     [device]\ncapacity = \"{}\"\n[host]\nqd = 1\n[workload]\n\
                     kind = \"seq-read\"\nsize = \"128KiB\"\nrequests = {requests}\n",
                    capacity(ctx)
                ),
                ctx.seed,
            )?;
            runs.push((format!("fig17 sens {mb} {channels}"), c));
        }
    }
    let outs = ctx.run_all(&runs)?;
    let v = |i: usize, j: usize| outs[i * 2 + j].report.throughput_mib_s;
    let mut rows = Vec::new();
    let mut found = Vec::new();
    for (i, mb) in sizes_kib.iter().enumerate() {
        rows.push(vec![mb.to_string(), fmt_f(v(i, 0), 2), fmt_f(v(i, 1), 2)]);
        if v(i, 0) > v(i, 1) {
            found.push(format!("{mb} KiB management blocks"));
        }
    }
    ctx.csv(
        "sensitivity_fig17",
        &["mgmt_block_kib", "one_channel_mib_s", "striped_mib_s"],
        rows,
    );
    ctx.svg(
        "sensitivity_fig17",
        line_chart_svg(
            "Aged 128 KiB sequential read, write-order placement, by management-block size",
            "management block (KiB)",
            "MiB/s",
            &[
                (
                    "one-channel".into(),
                    sizes_kib
                        .iter()
                        .enumerate()
                        .map(|(i, &m)| (m as f64, v(i, 0)))
                        .collect(),
                ),
                (
                    "striped".into(),
                    sizes_kib
                        .iter()
                        .enumerate()
                        .map(|(i, &m)| (m as f64, v(i, 1)))
                        .collect(),
                ),
            ],
            true,
        ),
    );
    let per: Vec<String> = sizes_kib
        .iter()
        .enumerate()
        .map(|(i, mb)| {
            format!(
                "{mb} KiB: one-channel {} vs striped {}",
                fmt_f(v(i, 0), 1),
                fmt_f(v(i, 1), 1)
            )
        })
        .collect();
    cl.sensitivity(Sensitivity {
        claims: vec!["M14".into()],
        swept: "the management-block size (16 KiB – 1 MiB) under write-order placement, aged \
                128 KiB sequential reads"
            .into(),
        figures: vec!["sensitivity_fig17.svg".into()],
        setting_found: (!found.is_empty()).then(|| found.join(", ")),
        explanation: format!(
            "MiB/s: {}. Written in order after aging, the pages a sequential read wants were \
             written at scattered times; one-channel placement puts each management block's \
             pages on one channel, striping spreads them, and which wins depends on how many \
             management blocks one read touches.",
            per.join("; ")
        ),
    });
    Ok(())
}
