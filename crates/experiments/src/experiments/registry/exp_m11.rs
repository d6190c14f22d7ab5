//! EXP-M11 — Managed Flash Technology (MFT) in front of SSD B (Ryu & Park 2009, §3.2,
//! Fig. 16 and the text after it).
//!
//! ```text
//! drive    SSD B as in EXP-M6: preset ssd-b (SLC, 2 KB page, 4 ch × 4 chips), 32 GiB,
//!          7.37 % spare, by address with a log area = FAST on 1 MiB superblocks,
//!          ftl.log.log_blocks = L % of the capacity in superblocks; no DRAM data
//!          buffer (buffer.name = none)
//! MFT      host_log.name = mft (src/host_log.rs, docs/host-log.md) with segment G,
//!          confined to an MFT space S = ⌈span / (U·G)⌉ · G at the start of the SSD
//!          (host_log.space) and free_percent = 100 − U: the host sees U of S, which the
//!          span fills (U·S exceeds the span by less than one segment)
//! span     4 GiB at offset 0, written once sequentially first (precondition = fill,
//!          through the layer when there is one)
//! window   burst   nothing more before the phases; their writes (RW + SW = 320 MiB)
//!                  fit in the free space before MFT's first cleaning at every point
//!                  (tightest: G = 16 MiB, U = 90 %: 285 segments, 256 live, the open
//!                  one, cleaning at 2 free: 26 × 16 MiB = 416 MiB); a burst run whose
//!                  phases cleaned is an error of this design, not a result
//!          steady  precondition = age: after the fill, 2 × S (+ one block) of uniform
//!                  4 KiB random writes over the span, untimed, through the layer; then
//!                  the phases
//! phases   one run, queue depth 1, in this order: RW 160 MiB of 4 KiB random writes
//!          over the span → SR the whole span in 128 KiB sequential reads → RR 160 MiB
//!          of 4 KiB random reads over it → SW 160 MiB of 128 KiB sequential writes
//!          from offset 0; MB/s = requests × size / phase time (the host's bytes)
//! cells    each run is one grid cell (`ssdlab run`: precondition fill or age, the four
//!          phases as [[workload.phase]] entries, phase i drawing from seed + i), kept
//!          in the resumable store OUT/cells/EXP-M11; the rates are each phase's
//!          iops × size from the report, the layer's figures from its report note
//! without  the same drive, windows and phases without the layer. It depends on
//!          neither G nor U, so it runs once per (window, L, seed); its steady aging is
//!          2 × 8 GiB (+ one block), twice the largest S (U = 50 %), so at least 2 × S
//!          of every point's writes precede its phases
//! grid     G ∈ {1, 4, 16} MiB × U ∈ {50, 70, 90} % × window ∈ {burst, steady}
//!          × L ∈ {1, 2.6, 7} % = 54 points; seeds 1–3 (aging, RW and RR offsets), with
//!          and without MFT paired by seed
//! M15      RW(MFT) / RW(without) ≥ 10
//! M16      SR(MFT) / SR(without) ≤ 0.95
//! M55      RW(MFT) / SW(MFT) ≥ 0.5
//! M56      RR(MFT) / RR(without) ≤ 0.95
//! counts   (M56, `isolation.csv`; judges nothing) at G = 1 MiB, U = 50 %, burst, L = 1 %,
//!          seeds 1–3, with and without MFT: the same cells run again stopped after SR
//!          and after RR (nothing else changed), so the differences give RR's flash page
//!          reads and MFT's SSD reads and host-RAM reads per host read; beside them RR's
//!          mean and maximum latency from the registered cells, and MFT's map lookups on
//!          RR's path (one per 4 KiB block) with the time ssdlab charges for them (none)
//! ```
//!
//! Decided before the first run, with reasons:
//! - **Utilisation.** The live data is the 4 GiB span; MFT space utilisation U = span /
//!   S. `host_log.free_percent` is the share of the log's SSD space hidden from the
//!   host, and without `host_log.space` the log spans the whole 32 GiB drive, where a
//!   4 GiB span would sit at 12.5 % whatever U. So the layer is confined to S at the
//!   drive's start (MFT runs on the block device or partition it is given; the new key
//!   `host_log.space`, default the whole drive) and hides 100 − U % of it: MFT's own
//!   free-space setting is then the free space of this reading, and the host's whole
//!   visible space is the span. S rounds up to whole segments, so the realised U is at
//!   most 0.25 % below the level (89.8 % at G = 16 MiB, U = 90 %).
//! - **Windows.** The measured phases lie wholly inside the window: burst's writes fit
//!   before the first cleaning (checked on every run from the layer's counters), and
//!   steady's begin after 2 × S has been written (S + 4 KiB of margin for rounding), so
//!   the cleaner runs throughout them.
//! - **Order.** The registry's: RW, then SR and RR of the span RW randomly wrote. SW
//!   runs last so that its sequential rewrite of the span's first 160 MiB does not lay
//!   out data the reads measure; the reads write nothing, so SW starts in the state RW
//!   left (in steady, the cleaner's steady state; in burst, still before cleaning).
//! - **Phase lengths** (fixed, the same in both windows): 160 MiB per write phase and
//!   for RR (40,960 requests of 4 KiB, 1,280 of 128 KiB), SR the whole span (32,768
//!   requests). Long enough that the layer's host RAM (2 segments, ≤ 32 MiB), which
//!   absorbs writes at memory speed, is at most a fifth of a write phase; short enough
//!   that burst's two write phases fit the tightest burst window with 6 segments spare.
//! - "GB" / "MB" are GiB / MiB, as in the other evaluators; the span starts at offset 0.
//! - MFT's other keys keep their documented defaults (docs/host-log.md): 4 KiB blocks,
//!   2 segments of host RAM, cleaning at 2 free segments, 2,500 MB/s host copies.
//!
//! Time, measured before the first full run on single full-size points (CLI runs of
//! the same configurations, user + sys): a burst point with MFT 0.08 s; the costliest,
//! steady without MFT (16 GiB of 4 KiB writes through FAST's merges) 4.0 s, steady with
//! MFT at U = 50 % 2.2 s; about 4 CPU-minutes estimated for the 180 runs, inside the
//! 30-minute budget, so nothing is shortened. The full run (session 18, load ≈ 20):
//! 436.6 s user + sys, about 3.6 minutes on two idle cores (BENCHMARKS.md). `--quick`
//! (CI's check that the experiment runs; its labels are not the registry's verdict)
//! runs the ends of each range at 1/16 scale: a 2 GiB drive, a 256 MiB span, G ∈ {64
//! KiB, 1 MiB}, 10 MiB phases, seed 1.

use super::eval::{Env, Evaluator};
use super::exp_m6::{AB_CAPACITY, OP_PERCENT};
use super::exp_m7::config;
use super::grid_run::{self, RunPoint, ends, float, int, text};
use super::judge::{Label, Point, RowResult, Seeds, at_least, at_most};
use crate::experiments::ExpError;
use std::collections::BTreeMap;

/// The registry's EXP-M11.
pub struct ExpM11;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const GIB: u64 = 1024 * MIB;
const SEGMENT_MIB: [u64; 3] = [1, 4, 16];
const UTIL_PERCENT: [u64; 3] = [50, 70, 90];
const WINDOWS: [&str; 2] = ["burst", "steady"];
/// B's log area, tenths of a percent of the capacity (1, 2.6, 7 %; EXP-M6).
const B_LOG_PERMILLE: [u64; 3] = [10, 26, 70];
const SEEDS: [u64; 3] = [1, 2, 3];
/// B's management block = FAST's superblock (EXP-M6).
const SUPERBLOCK: u64 = MIB;
const SMALL: u64 = 4 * KIB;
const LARGE: u64 = 128 * KIB;

/// The four measured phases, in run order.
const PHASES: [&str; 4] = ["random-write", "seq-read", "random-read", "seq-write"];
const RW: usize = 0;
const SR: usize = 1;
const RR: usize = 2;
const SW: usize = 3;

/// Sizes of one scale (the registry's, or `--quick`'s 1/16).
#[derive(Clone, Copy, Debug)]
struct Scale {
    capacity: u64,
    span: u64,
    /// Bytes of each write phase and of RR.
    phase: u64,
    /// G is SEGMENT_MIB × MiB / this.
    divide: u64,
}

fn scale(quick: bool) -> Scale {
    if quick {
        Scale {
            capacity: 2 * GIB,
            span: 256 * MIB,
            phase: 10 * MIB,
            divide: 16,
        }
    } else {
        Scale {
            capacity: AB_CAPACITY,
            span: 4 * GIB,
            phase: 160 * MIB,
            divide: 1,
        }
    }
}

/// With or without the layer; MFT's (G, U) as indices into their levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Arm {
    Without,
    Mft(usize, usize),
}

/// One run: arm, window, log area and seed (indices, the seed as is).
type Run = (Arm, usize, usize, u64);

/// MB/s of the four phases, per seed.
type Rates = [Seeds; 4];

/// What one run measured.
#[derive(Clone, Debug)]
struct Measured {
    /// MB/s (10^6 B/s) of each phase.
    mb_s: [f64; 4],
    /// The layer's write amplification over the phases (1 without it).
    log_wa: f64,
}

impl Scale {
    fn segment(&self, g: usize) -> u64 {
        SEGMENT_MIB[g] * MIB / self.divide
    }

    /// MFT space S: the span over U, rounded up to whole segments.
    fn space(&self, g: usize, u: usize) -> u64 {
        let seg = self.segment(g);
        let segs = (self.span * 100).div_ceil(UTIL_PERCENT[u] * seg);
        segs * seg
    }

    /// The largest S (U = 50 % is exact at every G).
    fn largest_space(&self) -> u64 {
        self.span * 100 / UTIL_PERCENT[0]
    }
}

/// The point's parameters, as points.csv shows them.
fn params(g: usize, u: usize, w: usize, l: usize, sc: &Scale) -> Vec<(String, String)> {
    let seg = sc.segment(g);
    vec![
        (
            "segment".into(),
            if seg >= MIB {
                format!("{}MiB", seg / MIB)
            } else {
                format!("{}KiB", seg / KIB)
            },
        ),
        (
            "mft_utilisation_percent".into(),
            UTIL_PERCENT[u].to_string(),
        ),
        ("window".into(), WINDOWS[w].into()),
        (
            "b_log_area_percent".into(),
            format!("{}", B_LOG_PERMILLE[l] as f64 / 10.0),
        ),
    ]
}

fn label_of(r: &Run) -> String {
    format!("EXP-M11 {r:?}")
}

/// One `[[workload.phase]]` table: `requests` of `size` over the span (from offset 0).
fn phase(kind: &str, size: u64, requests: u64) -> toml::Value {
    let mut t = toml::Table::new();
    for (k, v) in [
        ("kind", text(kind)),
        ("size", text(&format!("{size}B"))),
        ("align", text(&format!("{size}B"))),
        ("requests", int(requests as i64)),
    ] {
        t.insert(k.into(), v);
    }
    toml::Value::Table(t)
}

/// The four phases in run order; phase i draws its offsets from seed + i (RW and RR
/// from different streams, so RR does not replay RW's offsets).
fn phases(sc: &Scale) -> toml::Value {
    phases_upto(sc, 4)
}

/// The first `n` of the four phases (M56's counting runs stop after SR or RR).
fn phases_upto(sc: &Scale, n: usize) -> toml::Value {
    let mut v = vec![
        phase(PHASES[RW], SMALL, sc.phase / SMALL),
        phase(PHASES[SR], LARGE, sc.span / LARGE),
        phase(PHASES[RR], SMALL, sc.phase / SMALL),
        phase(PHASES[SW], LARGE, sc.phase / LARGE),
    ];
    v.truncate(n);
    toml::Value::Array(v)
}

/// The number after `key` in the layer's report note.
fn note_number(notes: &[String], key: &str) -> Option<f64> {
    let n = notes.iter().find(|n| n.starts_with("host log"))?;
    let rest = n.split(key).nth(1)?;
    let num: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    num.parse().ok()
}

/// The cell of run `r`: the drive, the layer (its documented defaults without MFT,
/// so every cell sets the same keys), the window's preconditioning and the phases.
fn point(r: &Run, sc: &Scale) -> Result<RunPoint, ExpError> {
    let (arm, w, l, seed) = *r;
    let label = label_of(r);
    let log_blocks =
        (sc.capacity as f64 * B_LOG_PERMILLE[l] as f64 / 1000.0 / SUPERBLOCK as f64).round() as i64;
    let mut keys = vec![
        ("seed", int(seed as i64)),
        ("ftl.log.log_blocks", int(log_blocks)),
    ];
    // The space whose double the steady window writes first.
    let space = match arm {
        Arm::Without => {
            let d = crate::host_log::HostLogConfig::default();
            keys.extend([
                ("host_log.name", text("none")),
                ("host_log.segment", text(&d.segment.to_string())),
                ("host_log.space", text(&d.space.to_string())),
                ("host_log.free_percent", float(d.free_percent)),
            ]);
            sc.largest_space()
        }
        Arm::Mft(g, u) => {
            keys.extend([
                ("host_log.name", text("mft")),
                ("host_log.segment", text(&format!("{}B", sc.segment(g)))),
                ("host_log.space", text(&format!("{}B", sc.space(g, u)))),
                (
                    "host_log.free_percent",
                    float(100.0 - UTIL_PERCENT[u] as f64),
                ),
            ]);
            sc.space(g, u)
        }
    };
    let mut all = base(sc);
    all.retain(|(k, _)| *k != "preset");
    all.extend(keys.iter().cloned());
    let host_capacity = config("ssd-b", &all)?
        .validate_device()
        .map_err(|e| ExpError::Other(format!("{label}: {e}")))?
        .host_log
        .map_or(sc.capacity, |h| h.host_capacity_bytes());
    let default_volume = crate::config::AgingConfig::default().volume_drive_writes;
    let (pre, volume) = if WINDOWS[w] == "burst" {
        ("fill", default_volume)
    } else {
        ("age", (2 * space + SMALL) as f64 / host_capacity as f64)
    };
    keys.extend([
        (
            "fill_percent",
            float(100.0 * sc.span as f64 / host_capacity as f64),
        ),
        ("precondition", text(pre)),
        ("aging.volume_drive_writes", float(volume)),
        ("workload.phase", phases(sc)),
    ]);
    Ok(RunPoint::new(keys))
}

/// Keys every cell shares.
fn base(sc: &Scale) -> Vec<(&'static str, toml::Value)> {
    vec![
        ("preset", text("ssd-b")),
        ("device.capacity", text(&format!("{}B", sc.capacity))),
        ("device.op_percent", float(OP_PERCENT)),
        ("buffer.name", text("none")),
        ("host.qd", int(1)),
        ("ftl.name", text("fast")),
        ("ftl.superblock", text(&format!("{SUPERBLOCK}B"))),
        ("workload.span", text(&format!("{}B", sc.span))),
    ]
}

/// What run `r`'s report says: MB/s of each phase (the host's bytes) and the layer's
/// write amplification; an error when a burst run's phases cleaned.
fn measured(r: &Run, rep: &serde_json::Value) -> Result<Measured, ExpError> {
    let (arm, w, _, _) = *r;
    let label = label_of(r);
    let mut mb_s = [f64::NAN; 4];
    for p in rep["phases"].as_array().into_iter().flatten() {
        if let Some(i) = PHASES.iter().position(|n| p["name"] == *n) {
            let size = if i == RW || i == RR { SMALL } else { LARGE };
            mb_s[i] = grid_run::num(p, "iops") * size as f64 / 1e6;
        }
    }
    if mb_s.iter().any(|x| !x.is_finite()) {
        return Err(ExpError::Other(format!(
            "{label}: a report lacks one of the phases {PHASES:?}"
        )));
    }
    let notes: Vec<String> = rep["notes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n.as_str().map(String::from))
        .collect();
    let log_wa = match arm {
        Arm::Without => 1.0,
        Arm::Mft(..) => {
            let cleaned = note_number(&notes, "moved by the cleaner (").ok_or_else(|| {
                ExpError::Other(format!("{label}: no host-log note in the report"))
            })?;
            if WINDOWS[w] == "burst" && cleaned > 0.0 {
                return Err(ExpError::Other(format!(
                    "{label}: {cleaned} segments cleaned during the burst window's \
                     phases: the window's design is wrong"
                )));
            }
            note_number(&notes, "log write amplification").unwrap_or(f64::NAN)
        }
    };
    Ok(Measured { mb_s, log_wa })
}

fn runs(quick: bool) -> Vec<Run> {
    let seeds: &[u64] = if quick { &SEEDS[..1] } else { &SEEDS };
    let mut out = Vec::new();
    for w in 0..WINDOWS.len() {
        for l in ends(&[0, 1, 2], quick) {
            for &seed in seeds {
                out.push((Arm::Without, w, l, seed));
                for g in ends(&[0, 1, 2], quick) {
                    for u in ends(&[0, 1, 2], quick) {
                        out.push((Arm::Mft(g, u), w, l, seed));
                    }
                }
            }
        }
    }
    out
}

/// Per-seed rates and the mean log write amplification of every (arm, window, log).
type Table = BTreeMap<(Arm, usize, usize), (Rates, f64)>;

fn tabulate(runs: &[Run], measured: Vec<Measured>) -> Table {
    let mut t: Table = BTreeMap::new();
    for (r, m) in runs.iter().zip(measured) {
        let e = t
            .entry((r.0, r.1, r.2))
            .or_insert_with(|| (std::array::from_fn(|_| Seeds(Vec::new())), 0.0));
        for i in 0..4 {
            e.0[i].0.push(m.mb_s[i]);
        }
        e.1 += m.log_wa;
    }
    for e in t.values_mut() {
        e.1 /= e.0[0].0.len().max(1) as f64;
    }
    t
}

/// The rows' analysis on measured rates, separate from the runs so the tests can feed
/// it hand-computed numbers.
struct Analysis {
    table: Table,
    sc: Scale,
}

/// One grid point: (G, U, window, L) as indices.
type Cell = (usize, usize, usize, usize);

impl Analysis {
    fn cells(&self) -> Vec<Cell> {
        let mut v: Vec<Cell> = self
            .table
            .keys()
            .filter_map(|&(a, w, l)| match a {
                Arm::Mft(g, u) => Some((g, u, w, l)),
                Arm::Without => None,
            })
            .collect();
        v.sort();
        v
    }

    fn mft(&self, c: &Cell) -> &(Rates, f64) {
        &self.table[&(Arm::Mft(c.0, c.1), c.2, c.3)]
    }

    fn without(&self, c: &Cell) -> &Rates {
        &self.table[&(Arm::Without, c.2, c.3)].0
    }

    /// The compared ratio of a row at a cell, seed by seed.
    fn ratio(&self, id: &str, c: &Cell) -> Seeds {
        let (m, wo) = (&self.mft(c).0, self.without(c));
        match id {
            "M15" => m[RW].ratio(&wo[RW]),
            "M16" => m[SR].ratio(&wo[SR]),
            "M55" => m[RW].ratio(&m[SW]),
            _ => m[RR].ratio(&wo[RR]),
        }
    }

    fn row(&self, id: &str) -> RowResult {
        let cells = self.cells();
        let points = cells
            .iter()
            .map(|c| {
                let (m, wa) = self.mft(c);
                let wo = self.without(c);
                let r = self.ratio(id, c);
                let (what, verdict) = match id {
                    "M15" => (
                        format!(
                            "RW MFT {:.2} / without {:.3} MB/s = {:.1}",
                            m[RW].mean(),
                            wo[RW].mean(),
                            r.mean()
                        ),
                        at_least(&r, 10.0),
                    ),
                    "M16" => (
                        format!(
                            "SR MFT {:.1} / without {:.1} MB/s = {:.3}",
                            m[SR].mean(),
                            wo[SR].mean(),
                            r.mean()
                        ),
                        at_most(&r, 0.95),
                    ),
                    "M55" => (
                        format!(
                            "MFT RW {:.2} / SW {:.2} MB/s = {:.3}",
                            m[RW].mean(),
                            m[SW].mean(),
                            r.mean()
                        ),
                        at_least(&r, 0.5),
                    ),
                    _ => (
                        format!(
                            "RR MFT {:.3} / without {:.3} MB/s = {:.3}",
                            m[RR].mean(),
                            wo[RR].mean(),
                            r.mean()
                        ),
                        at_most(&r, 0.95),
                    ),
                };
                Point::new(
                    params(c.0, c.1, c.2, c.3, &self.sc),
                    format!("{what}; MFT log write amplification {wa:.2}"),
                    verdict,
                )
            })
            .collect();
        self.with_cause(RowResult::evaluated(id, points), id, &cells)
    }

    /// A cause for a row that is not robust: the ratio's range and its mean at each
    /// level of every parameter, so the deciding one shows, and the kind.
    fn with_cause(&self, row: RowResult, id: &str, cells: &[Cell]) -> RowResult {
        if row.label() == Label::Robust || cells.is_empty() {
            return row;
        }
        let xs: Vec<f64> = cells.iter().map(|c| self.ratio(id, c).mean()).collect();
        let (lo, hi) = xs
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                (a.min(x), b.max(x))
            });
        let names = params(0, 0, 0, 0, &self.sc);
        let mut by = Vec::new();
        for (k, (name, _)) in names.iter().enumerate() {
            let mut groups: BTreeMap<usize, (String, f64, usize)> = BTreeMap::new();
            for (c, x) in cells.iter().zip(&xs) {
                let level = [c.0, c.1, c.2, c.3][k];
                let v = params(c.0, c.1, c.2, c.3, &self.sc)[k].1.clone();
                let g = groups.entry(level).or_insert((v, 0.0, 0));
                g.1 += x;
                g.2 += 1;
            }
            if groups.len() < 2 {
                continue;
            }
            let means: Vec<String> = groups
                .values()
                .map(|(v, s, n)| format!("{v}: {:.3}", s / *n as f64))
                .collect();
            by.push(format!("{name} {}", means.join(", ")));
        }
        let (what, want) = match id {
            "M15" => (
                "RW(MFT)/RW(without)",
                "≥ 10, the registry's reading of \"fast\"",
            ),
            "M16" => ("SR(MFT)/SR(without)", "≤ 0.95"),
            "M55" => (
                "RW(MFT)/SW(MFT)",
                "≥ 0.5, the registry's reading of \"close\"",
            ),
            _ => ("RR(MFT)/RR(without)", "≤ 0.95"),
        };
        let kind = if row.holding() > 0 {
            "kind: setup the paper leaves open — the row holds at some levels of the \
             registry's free parameters and not at others"
        } else {
            "kind: hardware/mechanism — no level of any free parameter meets the \
             criterion, so the difference lies in ssdlab's model (drive or MFT layer), \
             not in the setup the paper leaves open"
        };
        row.with_cause(format!(
            "{what} (criterion {want}) ranges {lo:.3}–{hi:.3} over the points; mean by \
             level: {}; {kind}",
            by.join("; ")
        ))
    }
}

impl Evaluator for ExpM11 {
    fn experiment(&self) -> &'static str {
        "EXP-M11"
    }

    fn evaluate(&self, env: &Env) -> Result<Vec<RowResult>, ExpError> {
        let sc = scale(env.quick);
        let runs = runs(env.quick);
        let points = runs
            .iter()
            .map(|r| point(r, &sc))
            .collect::<Result<Vec<_>, _>>()?;
        let reports = grid_run::run(env, "EXP-M11", base(&sc), &points)?;
        let measured = runs
            .iter()
            .zip(&reports)
            .map(|(r, rep)| measured(r, rep))
            .collect::<Result<Vec<_>, _>>()?;
        let an = Analysis {
            table: tabulate(&runs, measured),
            sc,
        };
        let mut rows: Vec<RowResult> = ["M15", "M16", "M55", "M56"]
            .iter()
            .map(|id| an.row(id))
            .collect();
        if let Some(m56) = rows.iter_mut().find(|r| r.id == "M56")
            && m56.label() != Label::Robust
        {
            let (iso, text) = m56_counts(env, &an.sc)?;
            m56.isolation = iso;
            m56.cause = Some(match m56.cause.take() {
                Some(c) => format!("{c}; {text}"),
                None => text,
            });
        }
        Ok(rows)
    }
}

/// A report's notes.
fn notes_of(rep: &serde_json::Value) -> Vec<String> {
    rep["notes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n.as_str().map(String::from))
        .collect()
}

/// RR's reads by difference of a cell stopped after SR (`upto_sr`) and after RR
/// (`upto_rr`): (flash page reads, MFT's SSD reads, MFT's block reads from host RAM)
/// per host read of RR (`requests`).
fn rr_reads(upto_sr: &serde_json::Value, upto_rr: &serde_json::Value, requests: f64) -> [f64; 3] {
    let pages = |r: &serde_json::Value| grid_run::num(r, "nand_read_pages");
    let note = |r: &serde_json::Value, k: &str| note_number(&notes_of(r), k).unwrap_or(0.0);
    let n = requests.max(1.0);
    [
        (pages(upto_rr) - pages(upto_sr)) / n,
        (ssd_reads(upto_rr) - ssd_reads(upto_sr)) / n,
        (note(upto_rr, "SSD reads, ") - note(upto_sr, "SSD reads, ")) / n,
    ]
}

/// MFT's "N SSD reads" from a report's host-log note (0 without the layer).
fn ssd_reads(rep: &serde_json::Value) -> f64 {
    notes_of(rep)
        .iter()
        .find(|n| n.starts_with("host log"))
        .and_then(|n| {
            let i = n.find(" SSD reads")?;
            let head = &n[..i];
            let start = head
                .rfind(|c: char| !c.is_ascii_digit())
                .map_or(0, |j| j + 1);
            head[start..].parse().ok()
        })
        .unwrap_or(0.0)
}

/// M56's counts (judges nothing): RR's device reads per host read with and without MFT
/// (cells stopped after SR and after RR), RR's latency, MFT's map lookups on RR's path
/// and their modelled cost. Rows of `isolation.csv` and a sentence for the cause.
fn m56_counts(env: &Env, sc: &Scale) -> Result<(Vec<(String, String)>, String), ExpError> {
    let seeds: &[u64] = if env.quick { &SEEDS[..1] } else { &SEEDS };
    let arms = [Arm::Without, Arm::Mft(0, 0)];
    let (w, l) = (0, 0);
    let mut keys = Vec::new();
    for arm in arms {
        for &seed in seeds {
            keys.push((arm, w, l, seed));
        }
    }
    let with_phases = |n: usize| -> Result<Vec<RunPoint>, ExpError> {
        keys.iter()
            .map(|r| {
                let mut p = point(r, sc)?;
                for (k, v) in &mut p.keys {
                    if k == "workload.phase" {
                        *v = phases_upto(sc, n);
                    }
                }
                Ok(p)
            })
            .collect()
    };
    let upto_sr = grid_run::run(env, "EXP-M11", base(sc), &with_phases(2)?)?;
    let upto_rr = grid_run::run(env, "EXP-M11", base(sc), &with_phases(3)?)?;
    let full = grid_run::run(env, "EXP-M11", base(sc), &with_phases(4)?)?;
    let rr_requests = (sc.phase / SMALL) as f64;
    let mut rows = Vec::new();
    let (mut lat, mut pages) = (Vec::new(), Vec::new());
    let page_bytes = full.first().map_or(0.0, |r| {
        grid_run::num(&r["config"]["resolved"]["geometry"], "page_size_bytes")
    });
    for (a, arm) in arms.iter().enumerate() {
        let idx = a * seeds.len()..(a + 1) * seeds.len();
        let n = seeds.len() as f64;
        let mut per = [0.0; 3];
        let (mut mean, mut max) = (0.0, 0.0f64);
        for i in idx {
            let r = rr_reads(&upto_sr[i], &upto_rr[i], rr_requests);
            for j in 0..3 {
                per[j] += r[j] / n;
            }
            let p = full[i]["phases"]
                .as_array()
                .and_then(|v| v.iter().find(|p| p["name"] == PHASES[RR]))
                .cloned()
                .unwrap_or_default();
            mean += grid_run::num(&p, "latency_ns.mean") / n;
            max = max.max(grid_run::num(&p, "latency_ns.max"));
        }
        lat.push(mean);
        pages.push(per[0]);
        let name = match arm {
            Arm::Without => "without MFT".to_string(),
            Arm::Mft(g, u) => format!(
                "MFT, segment {} MiB, U {} %",
                SEGMENT_MIB[*g] / sc.divide.max(1),
                UTIL_PERCENT[*u]
            ),
        };
        let mft = matches!(arm, Arm::Mft(..));
        rows.push((
            format!(
                "{name}, window {}, b_log_area_percent {}, seeds 1-{} (mean); RR = {} reads \
                 of 4 KiB at QD 1",
                WINDOWS[w],
                B_LOG_PERMILLE[l] as f64 / 10.0,
                seeds.len(),
                rr_requests
            ),
            format!(
                "flash page reads per host read {:.3} ({page_bytes} B pages); {}RR latency mean \
                 {:.1} µs, max {:.1} µs (counts by difference of the cell stopped after SR and \
                 after RR)",
                per[0],
                if mft {
                    format!(
                        "MFT's SSD reads per host read {:.3}, host-RAM block reads per host \
                         read {:.3}, map lookups per host read 1 (one 4 KiB block), time \
                         charged for them 0 ns; ",
                        per[1], per[2]
                    )
                } else {
                    String::new()
                },
                mean / 1e3,
                max / 1e3
            ),
        ));
    }
    let need_ns = lat[0] / 0.95 - lat[0];
    let text = format!(
        "counted (isolation.csv): a 4 KiB random read at QD 1 reads {:.2} flash pages \
         without MFT and {:.2} with it, and takes {:.1} µs without, {:.1} µs with MFT on \
         average; MFT's read path charges nothing for its map lookup, and RR(MFT) ≤ 0.95 × \
         RR(without) would need {:.1} µs more per read",
        pages[0],
        pages[1],
        lat[0] / 1e3,
        lat[1] / 1e3,
        need_ns / 1e3
    );
    Ok((rows, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rr_reads_are_differences_of_the_stopped_cells_and_read_the_layer_note() {
        let rep = |pages: f64, ssd: u64, ram: u64| {
            serde_json::json!({"nand_read_pages": pages, "notes": [
                "preconditioned: …",
                format!("host log (mft): 1048576 blocks of 4KiB over 8192 segments of 1MiB \
                         (4GiB visible to the host); measured phase: 81920 blocks written by \
                         the host, 0 moved by the cleaner (0 segments cleaned; log write \
                         amplification 1.000), 320 segment writes (320MiB to the SSD), {ssd} \
                         SSD reads, {ram} block reads from host RAM, 318 waits for host RAM")
            ]})
        };
        assert_eq!(ssd_reads(&rep(0.0, 150148, 0)), 150148.0);
        let r = rr_reads(&rep(1000.0, 500, 3), &rep(1200.0, 600, 5), 100.0);
        assert_eq!(r, [2.0, 1.0, 0.02]);
        // Without the layer: no note, no SSD reads of its own.
        let plain = |p: f64| serde_json::json!({"nand_read_pages": p, "notes": []});
        assert_eq!(rr_reads(&plain(10.0), &plain(30.0), 10.0), [2.0, 0.0, 0.0]);
        // The stopped cells keep the phases before the stop and nothing else.
        let sc = scale(true);
        let all = phases(&sc);
        let two = phases_upto(&sc, 2);
        assert_eq!(two.as_array().map(Vec::len), Some(2));
        assert_eq!(two.as_array().unwrap()[..], all.as_array().unwrap()[..2]);
    }

    /// A table where every MFT cell has `mft` and the drive without `without` (RW, SR,
    /// RR, SW MB/s, the same at every seed), except that `steady_mft` replaces the
    /// MFT rates in the steady window.
    fn analysis(without: [f64; 4], mft: [f64; 4], steady_mft: [f64; 4]) -> Analysis {
        let sc = scale(true);
        let rs = runs(true);
        let measured = rs
            .iter()
            .map(|r| Measured {
                mb_s: match r.0 {
                    Arm::Without => without,
                    Arm::Mft(..) if WINDOWS[r.1] == "steady" => steady_mft,
                    Arm::Mft(..) => mft,
                },
                log_wa: 1.0,
            })
            .collect();
        Analysis {
            table: tabulate(&rs, measured),
            sc,
        }
    }

    #[test]
    fn the_rows_compare_the_right_phases() {
        // Without: RW 0.5, SR 100, RR 20, SW 80. MFT: RW 40 (80×), SR 90 (0.90),
        // RR 19.5 (0.975, a tie), SW 60 (RW/SW = 0.67).
        let an = analysis(
            [0.5, 100.0, 20.0, 80.0],
            [40.0, 90.0, 19.5, 60.0],
            [40.0, 90.0, 19.5, 60.0],
        );
        assert_eq!(an.row("M15").label(), Label::Robust);
        assert_eq!(an.row("M16").label(), Label::Robust);
        assert_eq!(an.row("M55").label(), Label::Robust);
        let m56 = an.row("M56");
        assert_eq!(m56.label(), Label::Fails);
        assert!(m56.cause.as_deref().unwrap().contains("0.975"));
        // 16 quick points (G, U, window, L at their ends).
        assert_eq!(an.row("M15").points.len(), 16);
    }

    #[test]
    fn a_row_holding_in_one_window_is_conditional_and_names_it() {
        // Burst: RW only 8× (M15 fails), SW 100 so RW/SW = 0.04; steady: 12×, 0.6.
        let an = analysis(
            [1.0, 100.0, 20.0, 100.0],
            [8.0, 100.0, 20.0, 200.0],
            [12.0, 50.0, 20.0, 20.0],
        );
        let m15 = an.row("M15");
        assert_eq!(m15.label(), Label::Conditional);
        let cause = m15.cause.unwrap();
        assert!(
            cause.contains("window burst: 8.000, steady: 12.000"),
            "{cause}"
        );
        assert_eq!(an.row("M55").label(), Label::Conditional);
        // SR 0.5 in steady holds, 1.0 in burst does not.
        assert_eq!(an.row("M16").label(), Label::Conditional);
    }

    #[test]
    fn mft_space_is_the_span_over_u_in_whole_segments() {
        let sc = scale(false);
        // U = 50 %: exactly 8 GiB; U = 90 %, G = 16 MiB: ⌈284.4⌉ = 285 segments.
        assert_eq!(sc.space(0, 0), 8 * GIB);
        assert_eq!(sc.space(2, 2), 285 * 16 * MIB);
        assert_eq!(sc.largest_space(), 8 * GIB);
        // The host's share of S (100 − U % hidden) holds the span at every point.
        for g in 0..3 {
            for (u, pct) in UTIL_PERCENT.iter().enumerate() {
                let segs = sc.space(g, u) / sc.segment(g);
                let host = (segs as f64 * *pct as f64 / 100.0).floor() as u64;
                assert!(host * sc.segment(g) >= sc.span, "G {g} U {u}");
            }
        }
    }

    #[test]
    fn the_layers_note_numbers_are_read() {
        let notes = vec![
            "host log (mft): 10 blocks; measured phase: 20000 blocks written by the host, \
             512 moved by the cleaner (3 segments cleaned; log write amplification 1.026), \
             5 segment writes"
                .to_string(),
        ];
        assert_eq!(note_number(&notes, "moved by the cleaner ("), Some(3.0));
        assert_eq!(note_number(&notes, "log write amplification"), Some(1.026));
    }
}
