//! EXP-F1 — a CacheLib-like flash cache with and without FDP (placement registry v1,
//! registry/placement.toml; Allison et al., "Towards efficient flash caches with
//! emerging NVMe FDP SSDs", EuroSys 2025, arXiv 2503.11665).
//!
//! ```text
//! drive    default preset, 1 GiB logical, page FTL, no write buffer, no SLC cache,
//!          no preconditioning (placement_drive)
//! load     cachelib (synth/cachelib.rs) at its documented defaults: SOC 4 % of the
//!          span, 4 KiB buckets, 16 MiB regions, 256 KiB LOC requests, no gets,
//!          400,000 requests (examples/cachelib.toml: about three turns of the cache)
//! configs  no FDP (ftl.fdp off, no identifiers) | FDP, placement by-lifetime
//!          (SOC → identifier 0, LOC → identifier 1; 8 initially isolated handles)
//! grid     soc_write_percent {25, 50, 75} × op_percent {7, 28} = 6 points, seeds 1–3
//! F1       mean device WAF without FDP ∈ [1.2, 2.375]
//! F2       mean device WAF with FDP ∈ [0.75, 1.375]
//! F3       WAF(no FDP) ≥ 1.05 × WAF(FDP); unresolved when a configuration's seeds
//!          spread by more than 5 % of its mean
//! quick    ends of each range, seed 1, an eighth of the requests (CI's check that the
//!          experiment runs; the labels are then not the registry's verdict)
//! ```
//!
//! Device WAF is the report's `write_amplification` (NAND programs over host pages),
//! the same quantity in both configurations (with FDP it equals the FDP log's
//! media / host bytes: no preconditioning, so the log covers the run).

use super::eval::{Env, Evaluator};
use super::grid_run::{self, RunPoint, float, int, text};
use super::judge::{Point, RowResult, Seeds, Verdict, within};
use crate::experiments::ExpError;
use std::collections::BTreeMap;

/// The registry's EXP-F1.
pub struct ExpF1;

/// The free parameter soc_write_percent's levels (registry).
const SOC_WRITE_PERCENT: [f64; 3] = [25.0, 50.0, 75.0];
/// The free parameter op_percent's levels (registry, EXP-F1 and EXP-F2).
pub(super) const OP_PERCENT: [f64; 2] = [7.0, 28.0];
/// Rule 0.5's seeds.
const SEEDS: [i64; 3] = [1, 2, 3];
/// Requests of a full run (examples/cachelib.toml).
const REQUESTS: i64 = 400_000;

/// Seeds 1–3, or seed 1 under `--quick`.
pub(super) fn seeds(quick: bool) -> &'static [i64] {
    if quick { &SEEDS[..1] } else { &SEEDS }
}

/// A full run's request count, or an eighth of it under `--quick`.
pub(super) fn requests(full: i64, quick: bool) -> i64 {
    if quick { full / 8 } else { full }
}

/// The keys every placement experiment's drive shares: the default preset at
/// `capacity`, no write buffer (the registry's setup; FDP refused a buffer when it was
/// written, and without one the device WAF shows placement alone) and no SLC cache (its
/// migrations would add media writes whatever the placement).
pub(super) fn placement_drive(capacity: &str) -> Vec<(&'static str, toml::Value)> {
    vec![
        ("device.capacity", text(capacity)),
        ("buffer.name", text("none")),
        ("device.slc_cache_percent", float(0.0)),
    ]
}

/// Runs `runs` (each tagged) as one grid of experiment `exp` and returns each tag's
/// report. A run the simulator stopped with an error (a drive left without free blocks)
/// is kept as `{"failed": error}`: every number read from it is NaN, so each criterion
/// that uses it is false (the point does not hold), and [`failures`] names it.
pub(super) fn run_tagged(
    env: &Env,
    exp: &str,
    base: Vec<(&str, toml::Value)>,
    runs: Vec<(String, RunPoint)>,
) -> Result<BTreeMap<String, serde_json::Value>, ExpError> {
    let (tags, points): (Vec<String>, Vec<RunPoint>) = runs.into_iter().unzip();
    let reports = grid_run::run_keeping_failures(env, exp, base, &points)?;
    Ok(tags
        .into_iter()
        .zip(reports)
        .map(|(t, r)| (t, r.unwrap_or_else(|e| serde_json::json!({ "failed": e }))))
        .collect())
}

/// The cause to add to a row when some of the experiment's runs failed: how many,
/// and the first one's tag and error.
pub(super) fn failures(reports: &BTreeMap<String, serde_json::Value>) -> Option<String> {
    let failed: Vec<(&String, &str)> = reports
        .iter()
        .filter_map(|(t, r)| r["failed"].as_str().map(|e| (t, e)))
        .collect();
    let (tag, error) = failed.first()?;
    Some(format!(
        "{} of the experiment's {} runs stopped with an error and their points do not \
         hold (first: {tag}: {error}; a failed run's quantities show as nan in points.csv)",
        failed.len(),
        reports.len()
    ))
}

/// `row` with [`failures`]' cause when it is not robust and a run it may use failed.
pub(super) fn with_failures(
    row: RowResult,
    reports: &BTreeMap<String, serde_json::Value>,
) -> RowResult {
    match failures(reports) {
        Some(f) if row.label() != super::judge::Label::Robust => match row.cause.clone() {
            Some(c) => row.with_cause(format!("{f}; {c}")),
            None => row.with_cause(f),
        },
        _ => row,
    }
}

/// A number of the report tagged `tag` over `seeds` (tag + "/s{seed}").
pub(super) fn over_seeds(
    reports: &BTreeMap<String, serde_json::Value>,
    tag: &str,
    seeds: &[i64],
    f: impl Fn(&serde_json::Value) -> f64,
) -> Seeds {
    Seeds(
        seeds
            .iter()
            .map(|s| f(&reports[&format!("{tag}/s{s}")]))
            .collect(),
    )
}

/// Rule 0.2 as the placement registry states its direction rows: `x ≥ factor × y` on
/// the means, unresolved when either quantity's seeds spread by more than 5 % of its
/// mean.
pub(super) fn beats(x: &Seeds, y: &Seeds, holds: impl Fn(f64) -> bool) -> Verdict {
    if x.relative_spread() > 0.05 || y.relative_spread() > 0.05 {
        return Verdict::Unresolved;
    }
    Verdict::of(holds(x.mean() / y.mean()))
}

/// `mean (min–max)` of a quantity over seeds.
pub(super) fn show(x: &Seeds) -> String {
    if x.0.iter().any(|v| v.is_nan()) {
        return "nan (a run failed)".to_string();
    }
    if x.0.len() == 1 {
        return format!("{:.3}", x.mean());
    }
    let lo = x.0.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = x.0.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    format!("{:.3} ({lo:.3}–{hi:.3})", x.mean())
}

impl Evaluator for ExpF1 {
    fn experiment(&self) -> &'static str {
        "EXP-F1"
    }

    fn evaluate(&self, env: &Env) -> Result<Vec<RowResult>, ExpError> {
        let seeds = seeds(env.quick);
        let socs = grid_run::ends(&SOC_WRITE_PERCENT, env.quick);
        let mut base = placement_drive("1GiB");
        base.extend([
            ("ftl.name", text("page")),
            ("workload", text("cachelib")),
            ("workload.size", text("256KiB")),
            ("workload.requests", int(requests(REQUESTS, env.quick))),
        ]);
        let mut runs = Vec::new();
        for &soc in &socs {
            for op in OP_PERCENT {
                for fdp in [false, true] {
                    for &seed in seeds {
                        let placement = if fdp { "by-lifetime" } else { "none" };
                        runs.push((
                            format!("{soc}/{op}/{fdp}/s{seed}"),
                            RunPoint::new(vec![
                                ("workload.cachelib.soc_write_percent", float(soc)),
                                ("device.op_percent", float(op)),
                                ("ftl.fdp.enabled", toml::Value::Boolean(fdp)),
                                ("workload.cachelib.placement", text(placement)),
                                ("seed", int(seed)),
                            ]),
                        ));
                    }
                }
            }
        }
        let reports = run_tagged(env, "EXP-F1", base, runs)?;
        let waf = |r: &serde_json::Value| grid_run::num(r, "write_amplification");
        let (mut f1, mut f2, mut f3) = (Vec::new(), Vec::new(), Vec::new());
        for &soc in &socs {
            for op in OP_PERCENT {
                let off = over_seeds(&reports, &format!("{soc}/{op}/false"), seeds, waf);
                let on = over_seeds(&reports, &format!("{soc}/{op}/true"), seeds, waf);
                let actual = grid_run::num(
                    &reports[&format!("{soc}/{op}/false/s{}", seeds[0])],
                    "op_percent_actual",
                );
                let params = vec![
                    ("soc_write_percent".to_string(), format!("{soc}")),
                    ("op_percent".to_string(), format!("{op} (actual {actual})")),
                ];
                f1.push(Point::new(
                    params.clone(),
                    format!("WAF without FDP {}", show(&off)),
                    within(&off, 1.2, 2.375),
                ));
                f2.push(Point::new(
                    params.clone(),
                    format!("WAF with FDP {}", show(&on)),
                    within(&on, 0.75, 1.375),
                ));
                f3.push(Point::new(
                    params,
                    format!(
                        "without / with FDP = {:.3} ({} / {})",
                        off.mean() / on.mean(),
                        show(&off),
                        show(&on)
                    ),
                    beats(&off, &on, |r| r >= 1.05),
                ));
            }
        }
        Ok([
            RowResult::evaluated("F1", f1),
            RowResult::evaluated("F2", f2),
            RowResult::evaluated("F3", f3),
        ]
        .into_iter()
        .map(|r| with_failures(r, &reports))
        .collect())
    }
}
