//! Runs an experiment's simulator points as a sweep: the points become one zipped grid
//! (every axis advances together, so cell i is point i), validated whole before the
//! first runs, keyed, run in parallel and kept in a resumable store
//! (`OUT/cells/EXP-…/store.jsonl` under `reproduce --all --out OUT`): a killed
//! `reproduce --all` resumes where it stopped, and a point shared by two experiments
//! with the same design runs once per store.
//!
//! ```text
//! points [(params, keys)] ──▶ grid { mode = "zip", base, axis per key } ──▶ Plan
//!        ──▶ Sweep::open(OUT/cells/EXP) ──▶ run_local ──▶ report JSON per point
//! ```

use super::eval::Env;
use crate::experiments::ExpError;
use crate::sweep::{Grid, Plan, Status, Sweep};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One simulator run of an experiment.
#[derive(Clone, Debug)]
pub struct RunPoint {
    /// Config keys (as `--set` takes them) and their values; `preset`, `workload` and
    /// `seed` are the sweep's special keys.
    pub keys: Vec<(String, toml::Value)>,
}

impl RunPoint {
    /// A point from `(key, value)` pairs.
    pub fn new(keys: Vec<(&str, toml::Value)>) -> RunPoint {
        RunPoint {
            keys: keys.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        }
    }
}

/// Where an experiment's store lives: under `--out`, or a temporary directory removed
/// afterwards (library callers without an output directory).
enum StoreDir {
    Kept(PathBuf),
    /// Removed when dropped.
    Temp(PathBuf),
}

impl StoreDir {
    fn temp(exp: &str) -> StoreDir {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        StoreDir::Temp(
            std::env::temp_dir().join(format!("ssdlab-{exp}-{}-{n}", std::process::id())),
        )
    }

    fn path(&self) -> PathBuf {
        match self {
            StoreDir::Kept(p) | StoreDir::Temp(p) => p.clone(),
        }
    }
}

impl Drop for StoreDir {
    fn drop(&mut self) {
        if let StoreDir::Temp(p) = self {
            let _ = std::fs::remove_dir_all(p);
        }
    }
}

/// A cell the simulator stopped with an error (a drive left without free blocks, say),
/// as [`run_keeping_failures`] returns it: the point's outcome, not the experiment's
/// failure. The sweep store records a failed cell as the simulator's message (a store
/// a previous `reproduce` left holds that text alone), so the message is what it carries.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct CellFailed {
    /// The cell's index in the grid, from 0 (the point's index in `points`).
    pub cell: usize,
    /// The simulator's message, as the store recorded it.
    pub message: String,
}

/// Serialized as its message: an experiment keeps a failed run as `{"failed": "…"}`
/// beside the reports of the others and names it in the row's cause.
impl serde::Serialize for CellFailed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.message)
    }
}

/// Runs `points` of experiment `exp` over the `base` keys and returns each point's JSON
/// report, in order. Every point must have the same keys.
pub fn run(
    env: &Env,
    exp: &str,
    base: Vec<(&str, toml::Value)>,
    points: &[RunPoint],
) -> Result<Vec<serde_json::Value>, ExpError> {
    run_cells(env, exp, base, points, true)?
        .into_iter()
        .map(|r| r.map_err(|e| ExpError::Other(format!("{exp}: cell {} failed: {e}", e.cell + 1))))
        .collect()
}

/// [`run`], keeping a cell that fails (a drive that runs out of free blocks, say) as
/// that point's error instead of failing the experiment: for experiments whose
/// registry grid may hold configurations the simulated drive cannot sustain, where the
/// failure is itself the point's outcome. A failed cell in the store is not retried
/// (the runs are deterministic).
pub fn run_keeping_failures(
    env: &Env,
    exp: &str,
    base: Vec<(&str, toml::Value)>,
    points: &[RunPoint],
) -> Result<Vec<Result<serde_json::Value, CellFailed>>, ExpError> {
    run_cells(env, exp, base, points, false)
}

fn run_cells(
    env: &Env,
    exp: &str,
    base: Vec<(&str, toml::Value)>,
    points: &[RunPoint],
    retry_failed: bool,
) -> Result<Vec<Result<serde_json::Value, CellFailed>>, ExpError> {
    let err = |m: String| ExpError::Other(format!("{exp}: {m}"));
    if points.is_empty() {
        return Ok(Vec::new());
    }
    let names: Vec<String> = points[0].keys.iter().map(|(k, _)| k.clone()).collect();
    let mut axes: BTreeMap<String, Vec<toml::Value>> = BTreeMap::new();
    for p in points {
        let ks: Vec<&String> = p.keys.iter().map(|(k, _)| k).collect();
        if ks.len() != names.len() || ks.iter().zip(&names).any(|(a, b)| *a != b) {
            return Err(err("every point must set the same keys".into()));
        }
        for (k, v) in &p.keys {
            axes.entry(k.clone()).or_default().push(v.clone());
        }
    }
    let mut table = toml::Table::new();
    table.insert("mode".into(), toml::Value::String("zip".into()));
    let mut set = toml::Table::new();
    let mut base_t = toml::Table::new();
    for (k, v) in base {
        match k {
            "preset" | "workload" | "seed" | "kind" => {
                base_t.insert(k.into(), v);
            }
            _ => {
                set.insert(k.into(), v);
            }
        }
    }
    base_t.insert("set".into(), toml::Value::Table(set));
    table.insert("base".into(), toml::Value::Table(base_t));
    let axis_list: Vec<toml::Value> = names
        .iter()
        .map(|k| {
            let mut a = toml::Table::new();
            a.insert("key".into(), toml::Value::String(k.clone()));
            a.insert("values".into(), toml::Value::Array(axes[k].clone()));
            toml::Value::Table(a)
        })
        .collect();
    table.insert("axis".into(), toml::Value::Array(axis_list));
    let grid =
        Grid::from_table(table, exp, std::path::Path::new(".")).map_err(|e| err(e.to_string()))?;
    let jobs = rayon::current_num_threads();
    let plan = Plan::new(grid, jobs).map_err(|e| err(e.to_string()))?;
    if plan.cells.len() != points.len() {
        return Err(err(format!(
            "{} cells for {} points",
            plan.cells.len(),
            points.len()
        )));
    }
    let dir = match &env.work {
        Some(out) => StoreDir::Kept(out.join("cells").join(exp)),
        None => StoreDir::temp(exp),
    };
    let mut sweep = Sweep::open(plan, &dir.path()).map_err(|e| err(e.to_string()))?;
    sweep
        .run_local(None, false, retry_failed)
        .map_err(|e| err(e.to_string()))?;
    let mut out = Vec::with_capacity(points.len());
    for (cell, c) in sweep.plan.cells.iter().enumerate() {
        let r = sweep
            .store
            .get(&c.spec.key)
            .ok_or_else(|| err(format!("cell {} did not run", c.index)))?;
        out.push(if r.status == Status::Ok {
            Ok(r.report.clone().expect("an ok record has a report"))
        } else {
            Err(CellFailed {
                cell,
                message: r.error.clone().unwrap_or_default(),
            })
        });
    }
    Ok(out)
}

/// A number from a report, by dotted path (`latency_ns.mean`).
pub fn num(report: &serde_json::Value, path: &str) -> f64 {
    let mut v = report;
    for part in path.split('.') {
        v = &v[part];
    }
    v.as_f64().unwrap_or(f64::NAN)
}

/// A TOML integer.
pub fn int(x: i64) -> toml::Value {
    toml::Value::Integer(x)
}

/// A TOML string.
pub fn text(s: &str) -> toml::Value {
    toml::Value::String(s.to_string())
}

/// A TOML float.
pub fn float(x: f64) -> toml::Value {
    toml::Value::Float(x)
}

/// A free parameter's levels: all of them, or under `--quick` only the two ends of the
/// range (the registry's quick pass for CI).
pub fn ends<T: Copy>(levels: &[T], quick: bool) -> Vec<T> {
    if quick && levels.len() > 2 {
        vec![levels[0], levels[levels.len() - 1]]
    } else {
        levels.to_vec()
    }
}

/// The SLC drive of Ryu & Park's Fig. 2 that several experiments share, in config keys:
/// 2 KB pages, 64 a block, t_R 25 µs, t_PROG 200 µs, t_BERS 1.5 ms, 40 MB/s buses, one
/// plane a die, one page a program, and nothing in front of the flash (no host-link
/// limit, SLC cache, fixed controller latency or DRAM buffer). Each experiment adds its
/// own geometry and load.
pub fn era_slc_drive() -> Vec<(&'static str, toml::Value)> {
    vec![
        ("device.cell", text("slc")),
        ("device.planes_per_die", int(1)),
        ("device.page_size", text("2KiB")),
        ("device.pages_per_block", int(64)),
        ("device.read_ns", int(25_000)),
        ("device.program_ns", int(200_000)),
        ("device.erase_ns", int(1_500_000)),
        ("device.channel_mb_s", float(40.0)),
        ("device.host_link_mb_s", float(0.0)),
        ("device.slc_cache_percent", float(0.0)),
        ("device.pages_per_program", int(1)),
        ("device.controller_latency_ns", int(0)),
        ("buffer.name", text("none")),
    ]
}

/// The MLC drive of the QLRU slides' experiments (EXP-N1, N2, N4), in config keys: 4 KB
/// pages, one die a chip and one plane a die, t_R 50 µs, t_PROG 750 µs, t_BERS 3 ms
/// (large-block MLC of 2008–09), 40 MB/s buses, one page a program, no SLC cache and no
/// controller latency, page-mapping FTL. Each experiment adds its capacity, channels,
/// host link, preconditioning and load.
pub fn era_mlc_drive() -> Vec<(&'static str, toml::Value)> {
    vec![
        ("device.cell", text("mlc")),
        ("device.dies_per_chip", int(1)),
        ("device.planes_per_die", int(1)),
        ("device.page_size", text("4KiB")),
        ("device.read_ns", int(ERA_MLC_READ_NS)),
        ("device.program_ns", int(ERA_MLC_PROGRAM_NS)),
        ("device.erase_ns", int(3_000_000)),
        ("device.channel_mb_s", float(ERA_MLC_CHANNEL_MB_S)),
        ("device.slc_cache_percent", float(0.0)),
        ("device.pages_per_program", int(1)),
        ("device.controller_latency_ns", int(0)),
        ("device.controller_command_ns", int(0)),
        ("ftl.name", text("page")),
    ]
}

/// [`era_mlc_drive`]'s page read time (ns).
pub const ERA_MLC_READ_NS: i64 = 50_000;
/// [`era_mlc_drive`]'s page program time (ns).
pub const ERA_MLC_PROGRAM_NS: i64 = 750_000;
/// [`era_mlc_drive`]'s bus rate (MB/s).
pub const ERA_MLC_CHANNEL_MB_S: f64 = 40.0;

/// Where an experiment keeps the recorded inputs its cells replay (a block trace it
/// captured once, read by the cells through `trace.path`): its store directory
/// `OUT/cells/EXP-…` under `--out`, so a resumed run finds the same paths and the cells'
/// keys match; without `--out` a temporary directory, removed when this is dropped (keep
/// it alive until [`run`] has returned).
pub struct InputDir(StoreDir);

impl InputDir {
    /// The directory of experiment `exp`'s inputs, created.
    pub fn open(env: &Env, exp: &str) -> Result<InputDir, ExpError> {
        let dir = match &env.work {
            Some(out) => StoreDir::Kept(out.join("cells").join(exp)),
            None => StoreDir::temp(&format!("{exp}-inputs")),
        };
        let p = dir.path();
        std::fs::create_dir_all(&p)
            .map_err(|e| ExpError::Other(format!("{exp}: {}: cannot create: {e}", p.display())))?;
        Ok(InputDir(dir))
    }

    /// The path of the input named `name` in it (absolute, so a cell's key does not
    /// depend on the working directory).
    pub fn path(&self, name: &str) -> PathBuf {
        let p = self.0.path().join(name);
        std::path::absolute(&p).unwrap_or(p)
    }
}

/// [`run`] for hybrid points: each point is an `ssdlab hybrid` configuration (keys as
/// `ssdlab hybrid --set` takes them; `workload` and `seed` special as in [`run`]), run
/// as a cell of a hybrid grid (`base.kind = "hybrid"`) in the experiment's store.
/// Returns each point's hybrid report, in order.
pub fn run_hybrid(
    env: &Env,
    exp: &str,
    mut base: Vec<(&str, toml::Value)>,
    points: &[RunPoint],
) -> Result<Vec<serde_json::Value>, ExpError> {
    base.push(("kind", text("hybrid")));
    run(env, exp, base, points)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cell that fails at run time (an empty trace passes validation and has nothing
    /// to simulate) comes back as that point's [`CellFailed`], beside the other point's
    /// report; it is kept as its message in an experiment's `{"failed": …}`, and [`run`]
    /// fails the experiment naming the cell.
    #[test]
    fn a_failed_cell_is_its_points_typed_error() {
        let dir = tempfile::tempdir().unwrap();
        let (empty, good) = (dir.path().join("empty.csv"), dir.path().join("good.csv"));
        std::fs::write(&empty, "").unwrap();
        let lines: String = (0..8u64)
            .map(|i| {
                format!(
                    "{},h,0,Write,{},4096,10\n",
                    128_166_372_000_000_000 + i,
                    i * 4096
                )
            })
            .collect();
        std::fs::write(&good, lines).unwrap();
        let env = Env {
            quick: true,
            work: None,
            traces: crate::experiments::TraceDir::Missing("test".into()),
        };
        let base = || {
            vec![
                ("device.capacity", text("64MiB")),
                ("trace.format", text("msr")),
            ]
        };
        let points: Vec<RunPoint> = [&empty, &good]
            .iter()
            .map(|p| RunPoint::new(vec![("trace.path", text(&p.display().to_string()))]))
            .collect();
        let out = run_keeping_failures(&env, "EXP-T", base(), &points).unwrap();
        let e = out[0].clone().unwrap_err();
        assert_eq!(e.cell, 0);
        assert!(e.message.contains("no request"), "{e}");
        assert_eq!(e.to_string(), e.message);
        assert_eq!(
            serde_json::json!({ "failed": e }),
            serde_json::json!({ "failed": e.message })
        );
        assert!(
            out[1]
                .as_ref()
                .is_ok_and(|r| r["host_write_bytes"] == 8 * 4096)
        );
        let e = run(&env, "EXP-T", base(), &points).unwrap_err().to_string();
        assert!(e.starts_with("EXP-T: cell 1 failed: "), "{e}");
    }
}
