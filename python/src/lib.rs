//! `ssdlab._native`: the Python bindings (PyO3). Thin by design: every function here is
//! a call into the ssdlab library — `Config::load_with` → `Config::validate` →
//! `run::run_design` for a run, `ssdlab::sweep` for a sweep — with the GIL released
//! while it simulates, and errors raised as exceptions carrying the library's (and so
//! the CLI's) messages. The Python side (`python/ssdlab/__init__.py`) shapes results
//! for pandas.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use ssdlab::config::{Config, ConfigError as LibConfigError, set_key};
use ssdlab::report::fio::JsonFormat;
use ssdlab::report::html;
use ssdlab::report::output::{self, Batch, Expect};
use ssdlab::run::run_design;
use ssdlab::host::SimError;
use ssdlab::sim::{Cancel, RunOptions};
use ssdlab::sweep::{Control, Grid, Plan, Record, Sweep, runner};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

/// The library's name lists, one source for `ssdlab list` and `ssdlab.list()`.
use ssdlab::names as registry;

create_exception!(
    ssdlab,
    SsdlabError,
    PyException,
    "Base class of every ssdlab error."
);
create_exception!(
    ssdlab,
    ConfigError,
    SsdlabError,
    "A design, workload, trace or grid the simulator refuses before any work (the CLI's exit code 2)."
);
create_exception!(
    ssdlab,
    SimulationError,
    SsdlabError,
    "A run that could not complete (the FTL ran out of space)."
);
create_exception!(
    ssdlab,
    OutputError,
    SsdlabError,
    "An output that could not be written (the CLI's exit code 1)."
);

fn config_err(e: impl ToString) -> PyErr {
    ConfigError::new_err(e.to_string())
}

/// A refused design in the library's words. Python's settings are not a command line:
/// a parse error of that layer is its message alone (it names the key), as a sweep
/// reports it.
fn load_err(e: LibConfigError) -> PyErr {
    match e {
        LibConfigError::Parse {
            origin, message, ..
        } if origin == "command line" => ConfigError::new_err(message),
        e => config_err(e),
    }
}

fn sim_err(e: SimError) -> PyErr {
    match e {
        SimError::Ftl(_) => SimulationError::new_err(e.to_string()),
        SimError::Design(e) => load_err(*e),
        e => ConfigError::new_err(e.to_string()),
    }
}

/// How often a native call waiting for the simulator looks for Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// Runs `work` on a helper thread, the GIL released, while this thread wakes every
/// [`SIGNAL_POLL`] to run Python's signal handlers (`check_signals`) and `tick`. When a
/// handler raises (Ctrl-C: KeyboardInterrupt) `cancel` is set, `work` is waited for —
/// it stops at its next check of the flag — and the exception is returned.
///
/// The simulation cannot run on this thread: Python runs signal handlers only on the
/// main thread, between bytecodes, so a thread inside a long native call never sees
/// Ctrl-C until the call returns.
fn interruptible<T: Send>(
    py: Python<'_>,
    cancel: &Cancel,
    mut tick: impl FnMut(Python<'_>) -> PyResult<()>,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    std::thread::scope(|s| {
        let (tx, rx) = channel();
        let worker = s.spawn(move || {
            let _ = tx.send(work());
        });
        let mut interrupted: Option<PyErr> = None;
        let mut rx = rx;
        loop {
            // The receiver is not Sync: it goes into the GIL-free closure and back.
            let (got, back) = py.detach(move || (rx.recv_timeout(SIGNAL_POLL), rx));
            rx = back;
            match got {
                Ok(v) => return interrupted.map_or(Ok(v), Err),
                Err(RecvTimeoutError::Disconnected) => match worker.join() {
                    Err(panic) => std::panic::resume_unwind(panic),
                    Ok(()) => unreachable!("the worker sends before it ends"),
                },
                Err(RecvTimeoutError::Timeout) if interrupted.is_none() => {
                    if let Err(e) = py.check_signals().and_then(|()| tick(py)) {
                        cancel.cancel();
                        interrupted = Some(e);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    })
}

/// Dotted keys with JSON values (from a Python dict) as a TOML overlay.
fn overlay(settings_json: &str) -> PyResult<toml::Table> {
    let map: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(settings_json).map_err(|e| config_err(format!("settings: {e}")))?;
    let mut t = toml::Table::new();
    for (k, v) in map {
        let value = toml::Value::try_from(&v).map_err(|e| {
            config_err(format!(
                "{k} = {v}: {e}; expected a string, number, boolean or list"
            ))
        })?;
        set_key(&mut t, k.trim(), value);
    }
    Ok(t)
}

/// Runs one design and returns its report as JSON text (the `ssdlab run --json` form),
/// its phases, the whole run first as `all` (the rows of `ssdlab run --csv`), as JSON
/// text, and the report in fio's shape (the `ssdlab run --json-format fio` form, one job
/// named `design`) as JSON text in fio's key order.
///
/// `preset`, `config` (a TOML file) and `settings_json` (dotted keys, as `--set`) layer
/// as on the command line; the design is validated before anything runs.
#[pyfunction]
#[pyo3(signature = (preset=None, config=None, settings_json="{}", check=false))]
fn run(
    py: Python<'_>,
    preset: Option<String>,
    config: Option<String>,
    settings_json: &str,
    check: bool,
) -> PyResult<(String, String, String)> {
    let file = match &config {
        Some(p) => Some((
            p.clone(),
            std::fs::read_to_string(p)
                .map_err(|e| config_err(format!("config {p}: cannot read: {e}")))?,
        )),
        None => None,
    };
    let cfg = Config::load_with(
        preset.as_deref(),
        file.as_ref().map(|(n, t)| (n.as_str(), t.as_str())),
        overlay(settings_json)?,
    )
    .map_err(load_err)?;
    if let Some(p) = &cfg.trace.path
        && let Err(e) = std::fs::File::open(p)
    {
        return Err(config_err(format!(
            "trace {}: cannot read: {e}",
            p.display()
        )));
    }
    let design = cfg.validate().map_err(load_err)?;
    let cancel = Cancel::new();
    let opts = RunOptions {
        progress: false,
        check,
        cancel: Some(cancel.clone()),
    };
    let out =
        interruptible(py, &cancel, |_| Ok(()), || run_design(&design, opts))?.map_err(sim_err)?;
    let fio = ssdlab::report::fio::to_fio_string(&[("design", &out.report)]);
    let report = ssdlab::report::json::sanitize(&out.report);
    let phases = ssdlab::report::csv_out::phases_with_overall(&report);
    Ok((
        ssdlab::report::json::to_json_string(&report),
        serde_json::to_string(&phases).expect("phases serialize"),
        fio,
    ))
}

/// Runs one sweep cell from its spec (JSON) and returns its record (JSON): what a Ray
/// worker does.
#[pyfunction]
fn run_spec(py: Python<'_>, spec_json: &str) -> PyResult<String> {
    let spec: ssdlab::sweep::CellSpec =
        serde_json::from_str(spec_json).map_err(|e| config_err(format!("cell spec: {e}")))?;
    let rec = py.detach(|| runner::run_spec(&spec));
    Ok(serde_json::to_string(&rec).expect("a record serializes"))
}

/// The registries: `{section: [(name, description), …]}`, as `ssdlab list` prints them.
#[pyfunction]
fn list(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    let sections: [(&str, Vec<registry::Named>); 11] = [
        ("presets", registry::presets()),
        ("ftls", registry::ftls()),
        ("gc_policies", registry::gc_policies()),
        ("buffers", registry::buffers()),
        ("dispatch_orders", registry::dispatch_orders()),
        ("workloads", registry::generators()),
        ("trace_formats", registry::trace_formats()),
        ("trace_fits", registry::trace_fits()),
        ("papers", registry::papers()),
        ("timing_models", registry::timing_modes()),
        ("organisations", registry::organisations()),
    ];
    for (name, named) in sections {
        let v: Vec<(String, String)> = named.into_iter().map(|(n, d)| (n.to_string(), d)).collect();
        d.set_item(name, v)?;
    }
    Ok(d)
}

/// A sweep: grid validated, store opened. The Python `ssdlab.sweep` drives it.
#[pyclass(name = "Sweep", module = "ssdlab._native")]
struct PySweep {
    sweep: Sweep,
}

#[pymethods]
impl PySweep {
    /// Loads the grid (a TOML file path, or `grid_json`: the grid as JSON with `origin`
    /// naming it and `base_dir` anchoring its paths), validates every cell for `jobs`
    /// cells at once, and opens the store in `out`.
    #[new]
    #[pyo3(signature = (out, path=None, grid_json=None, base_dir=".", jobs=None))]
    fn new(
        out: &str,
        path: Option<&str>,
        grid_json: Option<&str>,
        base_dir: &str,
        jobs: Option<usize>,
    ) -> PyResult<PySweep> {
        let grid = match (path, grid_json) {
            (Some(p), None) => Grid::load(Path::new(p)),
            (None, Some(j)) => {
                let v: serde_json::Value =
                    serde_json::from_str(j).map_err(|e| config_err(format!("grid: {e}")))?;
                let t = toml::Table::try_from(&v).map_err(|e| config_err(format!("grid: {e}")))?;
                Grid::from_table(t, "grid", Path::new(base_dir))
            }
            _ => return Err(config_err("give the grid as a path or as a dict, not both")),
        }
        .map_err(config_err)?;
        if jobs == Some(0) {
            return Err(config_err("jobs = 0: expected at least 1 cell at a time"));
        }
        let parallel = jobs.unwrap_or_else(rayon_threads);
        let plan = Plan::new(grid, parallel).map_err(config_err)?;
        output::check("out", Path::new(out), Expect::Dir).map_err(config_err)?;
        let sweep = Sweep::open(plan, Path::new(out)).map_err(config_err)?;
        Ok(PySweep { sweep })
    }

    /// Refuses `json_format` (`ssdlab` or `fio`) before any cell runs when the store
    /// holds cells of an earlier ssdlab that cannot be written in it.
    fn check_format(&self, json_format: &str) -> PyResult<()> {
        let format = json_format_arg(json_format)?;
        ssdlab::sweep::table::check_format(&self.sweep.plan, &self.sweep.store, format)
            .map_err(config_err)
    }

    /// Specs (JSON) of the cells still to run, one per missing key.
    #[pyo3(signature = (retry_failed=false))]
    fn pending(&self, retry_failed: bool) -> Vec<String> {
        self.sweep
            .pending(retry_failed)
            .iter()
            .map(|c| serde_json::to_string(&c.spec).expect("a spec serializes"))
            .collect()
    }

    /// Stores a record (JSON) a remote worker produced.
    fn record(&mut self, record_json: &str) -> PyResult<()> {
        let r: Record = serde_json::from_str(record_json)
            .map_err(|e| OutputError::new_err(format!("record: {e}")))?;
        self.sweep
            .record(r)
            .map_err(|e| OutputError::new_err(e.to_string()))
    }

    /// Runs the missing cells here on `jobs` threads, the GIL released. `progress`, when
    /// given, is called as `progress(done, failed)` whenever cells have been recorded
    /// since its last call. Ctrl-C stops the sweep within a fraction of a second: the
    /// cells already recorded stay in the store, the running ones are dropped (they run
    /// on resume), and KeyboardInterrupt is raised. Returns (cells run, cells failed in
    /// the grid).
    #[pyo3(signature = (jobs=None, progress=None, retry_failed=false))]
    fn run_local(
        &mut self,
        py: Python<'_>,
        jobs: Option<usize>,
        progress: Option<Py<PyAny>>,
        retry_failed: bool,
    ) -> PyResult<(usize, usize)> {
        let control = Control::default();
        let sweep = &mut self.sweep;
        let mut shown = (0, 0);
        let mut tick = |py: Python<'_>| -> PyResult<()> {
            let now = (
                control.done.load(Ordering::Relaxed),
                control.failed.load(Ordering::Relaxed),
            );
            if let Some(p) = &progress
                && now != shown
            {
                shown = now;
                p.call1(py, now)?;
            }
            Ok(())
        };
        let s = interruptible(py, &control.cancel, &mut tick, || {
            sweep.run_local_with(jobs, false, retry_failed, &control)
        })?
        .map_err(|e| OutputError::new_err(e.to_string()))?;
        tick(py)?;
        Ok((s.ran, s.failed))
    }

    /// Writes results.csv, results.parquet, reports.jsonl (its reports in the shape
    /// `json_format` names: `ssdlab` or `fio`) and `html`/index.html, and returns the
    /// columns (the Python side reads the rows from the Parquet file).
    #[pyo3(signature = (html_dir=None, command="", json_format="ssdlab"))]
    fn finish(
        &self,
        html_dir: Option<&str>,
        command: &str,
        json_format: &str,
    ) -> PyResult<Vec<String>> {
        let format = json_format_arg(json_format)?;
        let table = self.sweep.table();
        let files = self
            .sweep
            .output_files(&table, format)
            .map_err(|e| OutputError::new_err(e.to_string()))?;
        let out = output::check("out", &self.sweep.dir, Expect::Dir).map_err(config_err)?;
        let html_out = html_dir
            .map(|h| output::check("html", Path::new(h), Expect::Dir))
            .transpose()
            .map_err(config_err)?;
        let mut batch = Batch::new();
        let page = html_out.as_ref().map(|_| {
            html::render(&ssdlab::sweep::page::sweep_page(
                &self.sweep,
                &table,
                command,
            ))
        });
        html::add_to_batch(&mut batch, &out, files, html_out.as_ref(), page);
        batch
            .commit()
            .map_err(|e| OutputError::new_err(e.to_string()))?;
        Ok(table.columns)
    }

    /// Counts: cells, distinct, done, failed.
    fn summary(&self) -> (usize, usize, usize, usize) {
        let s = self.sweep.summary();
        (s.cells, s.distinct, s.done_before, s.failed)
    }
}

/// `json_format`: `ssdlab` or `fio`, as `--json-format` takes it.
fn json_format_arg(s: &str) -> PyResult<JsonFormat> {
    JsonFormat::parse(s).ok_or_else(|| {
        config_err(format!(
            "json_format = {s:?}: expected \"ssdlab\" or \"fio\""
        ))
    })
}

fn rayon_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_spec, m)?)?;
    m.add_function(wrap_pyfunction!(list, m)?)?;
    m.add_class::<PySweep>()?;
    let py = m.py();
    m.add("SsdlabError", py.get_type::<SsdlabError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add("OutputError", py.get_type::<OutputError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
