//! EXP-H2 — Fig. 11's workloads on the HDD alone and behind the flash read cache
//! (Kim et al. 2011, §V, Fig. 11).
//!
//! ```text
//! workloads boot, multitask (11 applications), game — no recorded traces exist in
//!           ssdlab, so the registry's synthetic generator (hybrid::workload::read_mix):
//!           read volume, share of requests ≤ 64 KiB, from the workload's disk region
//!           (boot 4–40 GiB, apps 10–80 GiB, game 150–160 GiB: the desktop models')
//! HDD alone one run on a fresh drive (a reboot empties the drive's cache), requests
//!           back to back at queue depth 1: t_HDD = cpu + Σ HDD service
//! cached    hybrid::store with the cache SSD: AVL table + last-read hint, 2 GiB (more
//!           than the largest volume, 1600 MB: nothing is evicted), write-around (writes
//!           bypass; the mix has none), 4 KiB units, 10 ns a table comparison (the
//!           store's default). Cold run, an hour idle (a reboot; the SSD finishes its
//!           fills), then the warm run: t_cached = cpu + warm elapsed
//! HDD       desktop-7200 with average seek s (full stroke 2 s, the preset's 8 / 16 ms
//!           proportion; track-to-track 0.8 ms) and raw outer media rate r, inner 0.55 r
//! SSD       the cache SSD (sata-mlc-2011) with host link = the sequential-read figure
//!           and a fixed controller latency that makes its 4 KiB queue-depth-1 read take
//!           the grid's figure (measured on the drive, then added)
//! grid      hdd_mean_seek_ms {7.5, 8.5, 9.5} × hdd_outer_media_rate_mb_s {100, 125, 150}
//!           × ssd_4k_qd1_read_us {100, 160, 250} × ssd_seq_read_mb_s {220, 285, 355}
//!           × read volume (boot {200, 400, 800}, apps {300, 600, 1200}, game {400, 800,
//!           1600} MB) × small_request_fraction {0.3, 0.6, 0.9} × cpu time (boot {5, 10,
//!           20}, apps {2, 5, 10}, game {10, 20, 30} s) = 2,187 points a workload;
//!           seeds 1–3 of the generator at every point (rule 0.5)
//! H2        every workload: t_cached ≤ 0.95 × t_HDD        (three workloads at one level
//! H4        s_apps ≥ s_game + 5 points and                 index, 2,187 points)
//!           s_game ≥ s_boot + 5 points
//! H3 H9 H10 saving 1 − t_cached / t_HDD ∈ boot [9.83, 16.38] %, apps [49.14, 81.90] %,
//!           game [26.77, 44.62] %                          (2,187 points each)
//! H11–H13   t_HDD ∈ boot [27.19, 45.31] s, apps [29.60, 49.34] s, game [47.05, 78.41] s
//!           (HDD × workload: 243 points each)
//! ```
//!
//! Every simulator point is a grid cell in the experiment's resumable store
//! (`OUT/cells/EXP-H2/store.jsonl`), through the sweep engine:
//!
//! ```text
//! calibration  run cells (grid_run::run), one a link rate: the cache SSD
//!              (sata-mlc-2011's run keys, 2 GiB, controller latency 0), the page written
//!              (precondition footprint), then read with one 4 KiB request at queue
//!              depth 1: its simulated_ns is the SSD's own read time,
//!              and device.controller_latency_ns = grid figure − own (closed form)
//! HDD alone    hybrid cells (grid_run::run_hybrid): workload.kind = "read-mix"
//!              ([read_mix]: volume, small_share, the workload's region), cache.size = 0,
//!              one run; the HDD as hdd.* keys (average and full-stroke seek, sectors per
//!              track outer/inner from the raw media rates); t = runs[0].elapsed_s
//! cached       hybrid cells: the same read mix, the cache above, the reference disk
//!              (8.5 ms, 125 MB/s: the warm run never touches it), two runs with
//!              workload.idle_ns = 1 h between them; t = runs[1].elapsed_s, checked to
//!              be all flash hits (no miss, fill, eviction or HDD command)
//! ```
//!
//! Computed, not re-simulated, where that is exact:
//! - the cpu time is not overlapped with I/O in either system (one block per run: the
//!   registry gives a total, not its distribution), so it adds to both times and the 27
//!   workload points need only the 9 (volume × share) request streams a seed;
//! - the warm run is all hits (checked on every cell), so it does not depend on the HDD:
//!   each stream runs cached once per SSD point (9), and on the HDD alone once per HDD
//!   point (9), not 81 times: 729 + 729 hybrid cells and 3 calibration cells (--quick:
//!   144 + 144 + 2).
//!
//! MB = 10⁶ B for the volumes (rule 0.7's convention). Defaults fixed before the first
//! run: those above and the generator's in `read_mix`.

use super::eval::{Env, Evaluator};
use super::exp_h1::era_hdd;
use super::grid_run::{self, RunPoint, float, int, num, text};
use super::judge::{Label, Point, RowResult, Seeds, Verdict, at_most, within};
use crate::experiments::ExpError;
use crate::hybrid::config::{DEFAULT_FLASH_PRESET, flash_preset_run_keys};
use crate::hybrid::hdd::HddParams;
use crate::hybrid::workload::DesktopWorkload;
use crate::units::Size;
use std::collections::HashMap;

/// The registry's EXP-H2.
pub struct ExpH2;

const SEEK_MS: [f64; 3] = [7.5, 8.5, 9.5];
const OUTER_MB_S: [f64; 3] = [100.0, 125.0, 150.0];
const SSD_4K_US: [f64; 3] = [100.0, 160.0, 250.0];
const SSD_SEQ_MB_S: [f64; 3] = [220.0, 285.0, 355.0];
const SMALL_SHARE: [f64; 3] = [0.3, 0.6, 0.9];
const SEEDS: [u64; 3] = [1, 2, 3];
/// The cache: more than the largest read volume (1600 MB).
const CACHE: Size = Size(2 << 30);
/// Idle time between the cold and the warm run (a reboot).
const REBOOT_NS: u64 = 3_600_000_000_000;

/// One of Fig. 11's workloads and its registry ranges.
struct Workload {
    name: &'static str,
    desktop: DesktopWorkload,
    volume_mb: [f64; 3],
    cpu_s: [f64; 3],
    volume_param: &'static str,
    cpu_param: &'static str,
}

const WORKLOADS: [Workload; 3] = [
    Workload {
        name: "boot",
        desktop: DesktopWorkload::Boot,
        volume_mb: [200.0, 400.0, 800.0],
        cpu_s: [5.0, 10.0, 20.0],
        volume_param: "read_volume_boot_mb",
        cpu_param: "cpu_time_boot_s",
    },
    Workload {
        name: "apps",
        desktop: DesktopWorkload::AppLaunch,
        volume_mb: [300.0, 600.0, 1200.0],
        cpu_s: [2.0, 5.0, 10.0],
        volume_param: "read_volume_apps_mb",
        cpu_param: "cpu_time_apps_s",
    },
    Workload {
        name: "game",
        desktop: DesktopWorkload::GameLoad,
        volume_mb: [400.0, 800.0, 1600.0],
        cpu_s: [10.0, 20.0, 30.0],
        volume_param: "read_volume_game_mb",
        cpu_param: "cpu_time_game_s",
    },
];

const BOOT: usize = 0;
const APPS: usize = 1;
const GAME: usize = 2;

/// The era's desktop disk with average seek `seek_ms` (full stroke in the preset's
/// proportion) and raw outer media rate `outer_mb_s`.
fn hdd(seek_ms: f64, outer_mb_s: f64) -> HddParams {
    let mut p = era_hdd(outer_mb_s);
    let stroke_per_average = p.full_stroke_seek_ms / p.average_seek_ms;
    p.average_seek_ms = seek_ms;
    p.full_stroke_seek_ms = seek_ms * stroke_per_average;
    p
}

/// The cache SSD's 4 KiB queue-depth-1 read time at each (link rate, controller
/// latency) of `points`, ns: one run cell each; the page it reads is written first
/// (precondition "footprint", which bypasses the DRAM buffer), so the read goes to the
/// flash.
fn ssd_4k_read_ns(env: &Env, points: &[(f64, u64)]) -> Result<Vec<u64>, ExpError> {
    let (preset, overlay) = flash_preset_run_keys(DEFAULT_FLASH_PRESET)
        .ok_or_else(|| ExpError::Other("EXP-H2: no flash preset".into()))?;
    let mut base: Vec<(String, toml::Value)> = vec![
        ("preset".into(), text(&preset)),
        ("seed".into(), int(1)),
        ("workload".into(), text("random-read")),
        ("precondition".into(), text("footprint")),
        ("device.capacity".into(), text(&CACHE.to_string())),
        ("workload.size".into(), text("4KiB")),
        ("workload.span".into(), text("4KiB")),
        ("workload.requests".into(), int(1)),
        ("host.qd".into(), int(1)),
    ];
    base.extend(overlay);
    let base: Vec<(&str, toml::Value)> =
        base.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let points: Vec<RunPoint> = points
        .iter()
        .map(|&(l, c)| {
            RunPoint::new(vec![
                ("device.host_link_mb_s", float(l)),
                ("device.controller_latency_ns", int(c as i64)),
            ])
        })
        .collect();
    let reports = grid_run::run(env, "EXP-H2", base, &points)?;
    Ok(reports
        .iter()
        .map(|r| num(r, "simulated_ns") as u64)
        .collect())
}

/// The controller latency that makes the 4 KiB read take `target_us`, given the SSD's
/// own read time `own_ns`.
fn calibrate(target_us: f64, own_ns: u64) -> Result<u64, ExpError> {
    let target = (target_us * 1e3).round() as u64;
    target.checked_sub(own_ns).ok_or_else(|| {
        ExpError::Other(format!(
            "EXP-H2: the cache SSD's own 4 KiB read takes {own_ns} ns, more than the grid's \
             {target_us} µs"
        ))
    })
}

/// The disk `hdd(seek_ms, outer_mb_s)` as hybrid config keys (the rest is the preset's).
fn hdd_keys(seek_ms: f64, outer_mb_s: f64) -> Vec<(&'static str, toml::Value)> {
    let p = hdd(seek_ms, outer_mb_s);
    vec![
        ("hdd.average_seek_ms", float(p.average_seek_ms)),
        ("hdd.full_stroke_seek_ms", float(p.full_stroke_seek_ms)),
        (
            "hdd.sectors_per_track_outer",
            int(i64::from(p.sectors_per_track_outer)),
        ),
        (
            "hdd.sectors_per_track_inner",
            int(i64::from(p.sectors_per_track_inner)),
        ),
    ]
}

/// The read mix of one stream as hybrid config keys.
fn stream_keys(st: Stream) -> Vec<(&'static str, toml::Value)> {
    let (w, v, sh, seed) = st;
    let wl = &WORKLOADS[w];
    let region = wl.desktop.region();
    vec![
        ("seed", int(seed as i64)),
        ("read_mix.volume", int((wl.volume_mb[v] * 1e6) as i64)),
        ("read_mix.small_share", float(SMALL_SHARE[sh])),
        ("read_mix.region_start", int(region.start as i64)),
        (
            "read_mix.region_size",
            int((region.end - region.start) as i64),
        ),
    ]
}

/// Run `i` (0: cold, 1: warm) of a hybrid report.
fn run_of(report: &serde_json::Value, i: usize) -> &serde_json::Value {
    &report["runs"][i]
}

/// The warm run's seconds of a cached cell's report; an error if the warm run is not
/// served by flash alone (then it would depend on the HDD).
fn warm_s(report: &serde_json::Value) -> Result<f64, ExpError> {
    let (cold, warm) = (run_of(report, 0), run_of(report, 1));
    let n = |r: &serde_json::Value, path: &str| num(r, path) as u64;
    let (missed, filled, hdd) = (
        n(warm, "cache.miss_units"),
        n(warm, "cache.fill_units"),
        n(warm, "hdd.requests"),
    );
    let evictions = n(cold, "cache.evictions") + n(warm, "cache.evictions");
    if missed > 0 || filled > 0 || evictions > 0 || hdd > 0 {
        return Err(ExpError::Other(format!(
            "EXP-H2: the warm run is not all flash hits ({missed} units missed, {filled} \
             filled, {evictions} evictions, {hdd} HDD commands)"
        )));
    }
    Ok(num(warm, "elapsed_s"))
}

/// One request stream: workload, volume level, share level, seed.
type Stream = (usize, usize, usize, u64);
/// (hdd seek level, outer rate level) or (SSD 4 KiB level, sequential level).
type Pair = (usize, usize);

/// I/O seconds of every stream on every HDD point and, warm, every SSD point.
struct Measured {
    hdd: HashMap<(Stream, Pair), f64>,
    warm: HashMap<(Stream, Pair), f64>,
}

fn measure(env: &Env, levels: &Levels) -> Result<Measured, ExpError> {
    let seq_levels: Vec<usize> = {
        let mut v: Vec<usize> = levels.ssd.iter().map(|&(_, q)| q).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    // The SSD's own read time at each link rate (controller latency 0).
    let seqs: Vec<(f64, u64)> = seq_levels.iter().map(|&q| (SSD_SEQ_MB_S[q], 0)).collect();
    let own: HashMap<usize, u64> = seq_levels
        .iter()
        .copied()
        .zip(ssd_4k_read_ns(env, &seqs)?)
        .collect();
    let mut streams = Vec::new();
    for w in 0..WORKLOADS.len() {
        for &v in &levels.volume {
            for &sh in &levels.share {
                for seed in SEEDS {
                    streams.push((w, v, sh, seed));
                }
            }
        }
    }
    // The HDD alone: one run of every stream on every disk.
    let mut hdd_points = Vec::new();
    let mut hdd_index = Vec::new();
    for &st in &streams {
        for &(s, r) in &levels.hdd {
            let mut keys = stream_keys(st);
            keys.extend(hdd_keys(SEEK_MS[s], OUTER_MB_S[r]));
            hdd_points.push(RunPoint::new(keys));
            hdd_index.push((st, (s, r)));
        }
    }
    let base = vec![
        ("workload", text("read-mix")),
        ("workload.runs", int(1)),
        ("cache.size", int(0)),
    ];
    let reports = grid_run::run_hybrid(env, "EXP-H2", base, &hdd_points)?;
    let hdd: HashMap<(Stream, Pair), f64> = hdd_index
        .into_iter()
        .zip(&reports)
        .map(|(k, r)| (k, num(run_of(r, 0), "elapsed_s")))
        .collect();
    // Cached: a cold run, an hour idle, the warm run, on every SSD point; the reference
    // disk of the cold runs (the warm run never touches it).
    let mut cached_points = Vec::new();
    let mut cached_index = Vec::new();
    for &st in &streams {
        for &(l, q) in &levels.ssd {
            let mut keys = stream_keys(st);
            keys.push(("flash.device.host_link_mb_s", float(SSD_SEQ_MB_S[q])));
            keys.push((
                "flash.device.controller_latency_ns",
                int(calibrate(SSD_4K_US[l], own[&q])? as i64),
            ));
            cached_points.push(RunPoint::new(keys));
            cached_index.push((st, (l, q)));
        }
    }
    let mut base = vec![
        ("workload", text("read-mix")),
        ("workload.runs", int(2)),
        ("workload.idle_ns", int(REBOOT_NS as i64)),
        ("cache.size", text(&CACHE.to_string())),
        ("cache.write_policy", text("write-around")),
        ("cache.table", text("avl")),
        ("cache.hint", toml::Value::Boolean(true)),
    ];
    base.extend(hdd_keys(SEEK_MS[1], OUTER_MB_S[1]));
    let reports = grid_run::run_hybrid(env, "EXP-H2", base, &cached_points)?;
    let mut warm = HashMap::new();
    for (k, r) in cached_index.into_iter().zip(&reports) {
        warm.insert(k, warm_s(r)?);
    }
    Ok(Measured { hdd, warm })
}

/// The levels run (all, or the ends under --quick), as indices.
struct Levels {
    hdd: Vec<Pair>,
    ssd: Vec<Pair>,
    volume: Vec<usize>,
    share: Vec<usize>,
    cpu: Vec<usize>,
}

impl Levels {
    fn new(quick: bool) -> Levels {
        let idx = grid_run::ends(&[0usize, 1, 2], quick);
        let pairs = || {
            let mut v = Vec::new();
            for &a in &idx {
                for &b in &idx {
                    v.push((a, b));
                }
            }
            v
        };
        Levels {
            hdd: pairs(),
            ssd: pairs(),
            volume: idx.clone(),
            share: idx.clone(),
            cpu: idx,
        }
    }
}

/// Times of one workload at one point, per seed: (t_HDD, t_cached).
fn times(
    m: &Measured,
    w: usize,
    v: usize,
    sh: usize,
    c: usize,
    h: Pair,
    s: Pair,
) -> (Seeds, Seeds) {
    let cpu = WORKLOADS[w].cpu_s[c];
    let mut th = Vec::new();
    let mut tc = Vec::new();
    for seed in SEEDS {
        let st = (w, v, sh, seed);
        th.push(cpu + m.hdd[&(st, h)]);
        tc.push(cpu + m.warm[&(st, s)]);
    }
    (Seeds(th), Seeds(tc))
}

/// Saving per seed, 1 − t_cached / t_HDD.
fn saving(th: &Seeds, tc: &Seeds) -> Seeds {
    Seeds(th.0.iter().zip(&tc.0).map(|(h, c)| 1.0 - c / h).collect())
}

/// `d ≥ points` for a difference of savings (fractions); unresolved when the seeds'
/// differences spread by more than the margin tested (5 points).
fn at_least_points(d: &Seeds, points: f64) -> Verdict {
    if d.spread() > points {
        return Verdict::Unresolved;
    }
    Verdict::of(d.mean() >= points)
}

fn device_params(h: Pair, s: Pair) -> Vec<(String, String)> {
    vec![
        ("hdd_mean_seek_ms".into(), format!("{}", SEEK_MS[h.0])),
        (
            "hdd_outer_media_rate_mb_s".into(),
            format!("{}", OUTER_MB_S[h.1]),
        ),
        ("ssd_4k_qd1_read_us".into(), format!("{}", SSD_4K_US[s.0])),
        ("ssd_seq_read_mb_s".into(), format!("{}", SSD_SEQ_MB_S[s.1])),
    ]
}

fn hdd_params(h: Pair) -> Vec<(String, String)> {
    device_params(h, (0, 0)).into_iter().take(2).collect()
}

fn workload_params(w: usize, v: usize, sh: usize, c: usize) -> Vec<(String, String)> {
    let wl = &WORKLOADS[w];
    vec![
        (wl.volume_param.into(), format!("{}", wl.volume_mb[v])),
        (
            "small_request_fraction".into(),
            format!("{}", SMALL_SHARE[sh]),
        ),
        (wl.cpu_param.into(), format!("{}", wl.cpu_s[c])),
    ]
}

/// The three workloads at one level index.
fn joint_params(v: usize, sh: usize, c: usize) -> Vec<(String, String)> {
    let at = |f: fn(&Workload) -> f64| {
        WORKLOADS
            .iter()
            .map(|w| format!("{}", f(w)))
            .collect::<Vec<_>>()
            .join("/")
    };
    vec![
        (
            "read_volume_mb (boot/apps/game)".into(),
            match v {
                0 => at(|w| w.volume_mb[0]),
                1 => at(|w| w.volume_mb[1]),
                _ => at(|w| w.volume_mb[2]),
            },
        ),
        (
            "small_request_fraction".into(),
            format!("{}", SMALL_SHARE[sh]),
        ),
        (
            "cpu_time_s (boot/apps/game)".into(),
            match c {
                0 => at(|w| w.cpu_s[0]),
                1 => at(|w| w.cpu_s[1]),
                _ => at(|w| w.cpu_s[2]),
            },
        ),
    ]
}

/// A row's points with the mean of the quantity it judges, for its cause.
struct Judged {
    points: Vec<Point>,
    values: Vec<f64>,
}

impl Judged {
    fn new() -> Judged {
        Judged {
            points: Vec::new(),
            values: Vec::new(),
        }
    }
    fn push(&mut self, params: Vec<(String, String)>, measured: String, v: Verdict, value: f64) {
        self.points.push(Point::new(params, measured, v));
        self.values.push(value);
    }
}

/// The cause of a row that is not robust, from its points: the range of the judged
/// quantity, and the parameter whose levels move it most (level means over the rest).
fn cause(
    id: &str,
    j: &Judged,
    quantity: &str,
    unit: &str,
    scale: f64,
    kind: &str,
) -> Option<String> {
    let row = RowResult::evaluated(id, j.points.clone());
    if row.label() == Label::Robust {
        return None;
    }
    let (lo, hi) = j
        .values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    let mut effects: Vec<(f64, String)> = Vec::new();
    let names: Vec<String> = j.points[0].params.iter().map(|(k, _)| k.clone()).collect();
    for (i, name) in names.iter().enumerate() {
        let mut by: Vec<(String, f64, usize)> = Vec::new();
        for (p, &x) in j.points.iter().zip(&j.values) {
            let level = &p.params[i].1;
            match by.iter_mut().find(|(l, _, _)| l == level) {
                Some(e) => {
                    e.1 += x;
                    e.2 += 1;
                }
                None => by.push((level.clone(), x, 1)),
            }
        }
        let means: Vec<(String, f64)> = by.into_iter().map(|(l, s, n)| (l, s / n as f64)).collect();
        let (a, b) = means
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (_, x)| {
                (a.min(*x), b.max(*x))
            });
        let text = means
            .iter()
            .map(|(l, x)| format!("{l}: {:.1}", x * scale))
            .collect::<Vec<_>>()
            .join(", ");
        effects.push((b - a, format!("{name} ({text})")));
    }
    effects.sort_by(|a, b| b.0.total_cmp(&a.0));
    let top: Vec<String> = effects.into_iter().take(2).map(|(_, t)| t).collect();
    Some(format!(
        "{kind}; {quantity} spans {:.1}–{:.1} {unit} over the points; mean by level of the \
         parameters that move it most: {}",
        lo * scale,
        hi * scale,
        top.join("; ")
    ))
}

fn finish(id: &str, j: Judged, cause_text: Option<String>) -> RowResult {
    let r = RowResult::evaluated(id, j.points);
    match cause_text {
        Some(c) => r.with_cause(c),
        None => r,
    }
}

/// Per seed, saving `a` minus saving `b` (points).
fn gap(a: &Seeds, b: &Seeds) -> Seeds {
    Seeds(a.0.iter().zip(&b.0).map(|(a, b)| a - b).collect())
}

/// H11–H13: each workload's time on the HDD alone (`setup` is the cause of a miss).
fn hdd_time_rows(m: &Measured, lv: &Levels, setup: &str) -> Vec<RowResult> {
    let mut rows = Vec::new();
    for (id, w, lo, hi) in [
        ("H11", BOOT, 27.19, 45.31),
        ("H12", APPS, 29.60, 49.34),
        ("H13", GAME, 47.05, 78.41),
    ] {
        let mut j = Judged::new();
        for &h in &lv.hdd {
            for &v in &lv.volume {
                for &sh in &lv.share {
                    for &c in &lv.cpu {
                        let (th, _) = times(m, w, v, sh, c, h, lv.ssd[0]);
                        let mut p = hdd_params(h);
                        p.extend(workload_params(w, v, sh, c));
                        let cpu = WORKLOADS[w].cpu_s[c];
                        j.push(
                            p,
                            format!(
                                "{:.1} s (cpu {cpu} + I/O {:.1})",
                                th.mean(),
                                th.mean() - cpu
                            ),
                            within(&th, lo, hi),
                            th.mean(),
                        );
                    }
                }
            }
        }
        let c = cause(id, &j, "t_HDD", "s", 1.0, setup);
        rows.push(finish(id, j, c));
    }
    rows
}

/// Every row of EXP-H2 from the measured I/O times.
fn judge(m: &Measured, lv: &Levels) -> Vec<RowResult> {
    const SETUP: &str = "a setup difference: no recorded traces, so a synthetic mix whose \
                         volume, small-request share and cpu time are the registry's vague \
                         estimates";
    let windows = [
        ("H3", BOOT, 0.0983, 0.1638),
        ("H9", APPS, 0.4914, 0.8190),
        ("H10", GAME, 0.2677, 0.4462),
    ];
    let mut h2 = Judged::new();
    let mut h4 = Judged::new();
    // For the causes: H2's unresolved points where every seed is 5 % faster anyway, its
    // misses per workload; H4's misses per gap.
    let mut h2_seeds_all_faster = 0usize;
    let mut h2_slow = [0usize; 3];
    let mut h4_short = [0usize; 2];
    let mut savings: Vec<Judged> = (0..3).map(|_| Judged::new()).collect();
    for &h in &lv.hdd {
        for &s in &lv.ssd {
            for &v in &lv.volume {
                for &sh in &lv.share {
                    for &c in &lv.cpu {
                        let t: Vec<(Seeds, Seeds)> =
                            (0..3).map(|w| times(m, w, v, sh, c, h, s)).collect();
                        let sv: Vec<Seeds> = t.iter().map(|(a, b)| saving(a, b)).collect();
                        // H2: every workload 5 % faster.
                        let verdicts: Vec<Verdict> =
                            t.iter().map(|(a, b)| at_most(&b.ratio(a), 0.95)).collect();
                        let worst = t
                            .iter()
                            .map(|(a, b)| b.mean() / a.mean())
                            .fold(0.0f64, f64::max);
                        let all_faster = t
                            .iter()
                            .all(|(a, b)| b.ratio(a).0.iter().all(|&r| r <= 0.95));
                        if Verdict::all(verdicts.clone()) == Verdict::Unresolved && all_faster {
                            h2_seeds_all_faster += 1;
                        }
                        for (w, (a, b)) in t.iter().enumerate() {
                            if b.mean() > 0.95 * a.mean() {
                                h2_slow[w] += 1;
                            }
                        }
                        let mut params = device_params(h, s);
                        params.extend(joint_params(v, sh, c));
                        let text = |i: usize| {
                            format!(
                                "{} {:.1}→{:.1} s",
                                WORKLOADS[i].name,
                                t[i].0.mean(),
                                t[i].1.mean()
                            )
                        };
                        h2.push(
                            params.clone(),
                            format!("{}; {}; {}", text(0), text(1), text(2)),
                            Verdict::all(verdicts),
                            worst,
                        );
                        // H4: apps ≥ game + 5 points, game ≥ boot + 5 points.
                        let d1 = gap(&sv[APPS], &sv[GAME]);
                        let d2 = gap(&sv[GAME], &sv[BOOT]);
                        h4_short[0] += (d1.mean() < 0.05) as usize;
                        h4_short[1] += (d2.mean() < 0.05) as usize;
                        h4.push(
                            params,
                            format!(
                                "savings apps {:.1} %, game {:.1} %, boot {:.1} %",
                                sv[APPS].mean() * 100.0,
                                sv[GAME].mean() * 100.0,
                                sv[BOOT].mean() * 100.0
                            ),
                            at_least_points(&d1, 0.05).and(at_least_points(&d2, 0.05)),
                            d1.mean().min(d2.mean()),
                        );
                        for (k, &(_, w, lo, hi)) in windows.iter().enumerate() {
                            let mut p = device_params(h, s);
                            p.extend(workload_params(w, v, sh, c));
                            let (a, b) = &t[w];
                            savings[k].push(
                                p,
                                format!(
                                    "saving {:.1} % ({:.1} → {:.1} s)",
                                    sv[w].mean() * 100.0,
                                    a.mean(),
                                    b.mean()
                                ),
                                within(&sv[w], lo, hi),
                                sv[w].mean(),
                            );
                        }
                    }
                }
            }
        }
    }
    let mut rows = Vec::new();
    let c = cause(
        "H2",
        &h2,
        "the worst workload's t_cached / t_HDD",
        "% of t_HDD",
        100.0,
        SETUP,
    )
    .map(|c| {
        format!(
            "{c}; means above 0.95 × t_HDD: boot at {} points, apps at {}, game at {}; \
             {h2_seeds_all_faster} points are unresolved although every seed of every \
             workload is at most 0.95 × t_HDD (the seeds' ratios spread by more than 5 % \
             of their mean, judge::at_most's test)",
            h2_slow[BOOT], h2_slow[APPS], h2_slow[GAME]
        )
    });
    rows.push(finish("H2", h2, c));
    let mut savings = savings.into_iter();
    let boot = savings.next().expect("three");
    let c = cause("H3", &boot, "the boot saving", "%", 100.0, SETUP);
    rows.push(finish("H3", boot, c));
    let c = cause(
        "H4",
        &h4,
        "the smaller of the two gaps (apps − game, game − boot)",
        "points",
        100.0,
        SETUP,
    )
    .map(|c| {
        format!(
            "{c}; apps − game falls short of 5 points at {} points, game − boot at {}",
            h4_short[0], h4_short[1]
        )
    });
    rows.push(finish("H4", h4, c));
    for (id, j) in ["H9", "H10"].into_iter().zip(savings) {
        let c = cause(id, &j, "the saving", "%", 100.0, SETUP);
        rows.push(finish(id, j, c));
    }
    rows.extend(hdd_time_rows(m, lv, SETUP));
    rows
}

impl Evaluator for ExpH2 {
    fn experiment(&self) -> &'static str {
        "EXP-H2"
    }

    fn evaluate(&self, env: &Env) -> Result<Vec<RowResult>, ExpError> {
        let lv = Levels::new(env.quick);
        let m = measure(env, &lv)?;
        Ok(judge(&m, &lv))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env {
        Env {
            quick: true,
            work: None,
            traces: crate::experiments::TraceDir::Missing("test".into()),
        }
    }

    #[test]
    fn the_calibrated_ssd_reads_4k_in_the_grids_time() {
        let e = env();
        let own = ssd_4k_read_ns(&e, &[(220.0, 0), (355.0, 0)]).unwrap();
        let points = [
            (220.0, calibrate(100.0, own[0]).unwrap()),
            (355.0, calibrate(250.0, own[1]).unwrap()),
        ];
        assert_eq!(ssd_4k_read_ns(&e, &points).unwrap(), vec![100_000, 250_000]);
    }

    /// One small stream's HDD-alone time on two disks and warm time behind the cache
    /// with two reference disks, through the cells.
    fn small_stream(e: &Env) -> (Vec<f64>, Vec<f64>) {
        let stream = |hdd: Vec<(&'static str, toml::Value)>| {
            let mut keys = vec![
                ("seed", int(1)),
                ("read_mix.volume", int(20_000_000)),
                ("read_mix.small_share", float(0.6)),
            ];
            keys.extend(hdd);
            RunPoint::new(keys)
        };
        let alone: Vec<RunPoint> = [(7.5, 100.0), (9.5, 150.0)]
            .iter()
            .map(|&(s, r)| stream(hdd_keys(s, r)))
            .collect();
        let reports = grid_run::run_hybrid(
            e,
            "EXP-H2-test",
            vec![
                ("workload", text("read-mix")),
                ("workload.runs", int(1)),
                ("cache.size", int(0)),
            ],
            &alone,
        )
        .unwrap();
        let h = reports
            .iter()
            .map(|r| num(run_of(r, 0), "elapsed_s"))
            .collect();
        let own = ssd_4k_read_ns(e, &[(285.0, 0)]).unwrap()[0];
        let cached: Vec<RunPoint> = [(7.5, 100.0), (9.5, 150.0)]
            .iter()
            .map(|&(s, r)| stream(hdd_keys(s, r)))
            .collect();
        let reports = grid_run::run_hybrid(
            e,
            "EXP-H2-test",
            vec![
                ("workload", text("read-mix")),
                ("workload.runs", int(2)),
                ("workload.idle_ns", int(REBOOT_NS as i64)),
                ("cache.size", text("2GiB")),
                ("cache.write_policy", text("write-around")),
                ("cache.table", text("avl")),
                ("flash.device.host_link_mb_s", float(285.0)),
                (
                    "flash.device.controller_latency_ns",
                    int(calibrate(160.0, own).unwrap() as i64),
                ),
            ],
            &cached,
        )
        .unwrap();
        let c = reports.iter().map(|r| warm_s(r).unwrap()).collect();
        (h, c)
    }

    #[test]
    fn the_warm_run_is_all_hits_and_does_not_depend_on_the_disk() {
        let (alone, warm) = small_stream(&env());
        assert_eq!(warm[0], warm[1]);
        assert!(alone[0] != alone[1]);
        assert!(
            warm[0] < alone[0] && warm[0] < alone[1],
            "{warm:?} vs {alone:?}"
        );
    }

    #[test]
    fn a_second_evaluation_into_the_same_store_runs_no_cell() {
        let dir = tempfile::tempdir().unwrap();
        let e = Env {
            work: Some(dir.path().to_path_buf()),
            ..env()
        };
        let stores = [
            dir.path().join("cells/EXP-H2/store.jsonl"),
            dir.path().join("cells/EXP-H2-test/store.jsonl"),
        ];
        let first = small_stream(&e);
        let texts: Vec<String> = stores
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        // One calibration run; 2 HDD-alone and 2 cached cells.
        assert_eq!(texts[0].lines().count(), 1, "{}", texts[0]);
        assert_eq!(texts[1].lines().count(), 4, "{}", texts[1]);
        assert_eq!(small_stream(&e), first);
        for (p, t) in stores.iter().zip(&texts) {
            assert_eq!(&std::fs::read_to_string(p).unwrap(), t);
        }
    }

    fn judged_one(h: f64, c: f64) -> (Seeds, Seeds) {
        (Seeds(vec![h; 3]), Seeds(vec![c; 3]))
    }

    #[test]
    fn savings_and_ranking_follow_the_registry_windows() {
        // Fig. 11's own times: 36.25 → 31.5, 39.47 → 13.61, 62.73 → 40.34 s.
        let (bh, bc) = judged_one(36.25, 31.5);
        let (ah, ac) = judged_one(39.47, 13.61);
        let (gh, gc) = judged_one(62.73, 40.34);
        let (sb, sa, sg) = (saving(&bh, &bc), saving(&ah, &ac), saving(&gh, &gc));
        assert_eq!(within(&sb, 0.0983, 0.1638), Verdict::Holds);
        assert_eq!(within(&sa, 0.4914, 0.8190), Verdict::Holds);
        assert_eq!(within(&sg, 0.2677, 0.4462), Verdict::Holds);
        let d = |x: &Seeds, y: &Seeds| Seeds(x.0.iter().zip(&y.0).map(|(a, b)| a - b).collect());
        assert_eq!(at_least_points(&d(&sa, &sg), 0.05), Verdict::Holds);
        assert_eq!(at_least_points(&d(&sg, &sb), 0.05), Verdict::Holds);
        // Boot 13.1 % vs game 16 %: the game must lead by 5 points; it leads by 2.9.
        let (gh2, gc2) = judged_one(50.0, 42.0);
        assert_eq!(
            at_least_points(&d(&saving(&gh2, &gc2), &sb), 0.05),
            Verdict::Fails
        );
        // Seeds 0.02 apart on a 5-point test decide; 0.08 apart do not.
        assert_eq!(
            at_least_points(&Seeds(vec![0.06, 0.07, 0.08]), 0.05),
            Verdict::Holds
        );
        assert_eq!(
            at_least_points(&Seeds(vec![0.02, 0.06, 0.10]), 0.05),
            Verdict::Unresolved
        );
        // H2's 5 % margin on a ratio: 31.5 / 36.25 = 0.869 holds, 0.96 does not.
        assert_eq!(at_most(&bc.ratio(&bh), 0.95), Verdict::Holds);
        assert_eq!(at_most(&Seeds::one(0.96), 0.95), Verdict::Fails);
    }

    #[test]
    fn the_cause_names_the_parameter_that_moves_the_quantity() {
        let mut j = Judged::new();
        for (v, x) in [("200", 20.0), ("800", 60.0)] {
            for (c, y) in [("5", 0.0), ("20", 1.0)] {
                j.push(
                    vec![("vol".into(), v.into()), ("cpu".into(), c.into())],
                    String::new(),
                    Verdict::of(x + y > 50.0),
                    x + y,
                );
            }
        }
        let c = cause("H11", &j, "t_HDD", "s", 1.0, "setup").unwrap();
        assert!(c.contains("spans 20.0–61.0 s"), "{c}");
        assert!(
            c.contains("parameters that move it most: vol (200: 20.5, 800: 60.5); cpu"),
            "{c}"
        );
    }
}
