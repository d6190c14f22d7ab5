//! Running cells: one cell is one [`run_design`] of its validated design (the library's
//! single run path); the local backend runs the missing cells on a rayon pool and
//! appends each record to the store as it finishes, so a kill loses at most the cells
//! still running. A remote backend (Ray) runs [`run_spec`] on its workers and hands the
//! records back through [`Store::append`] the same way.

//!
//! Cells whose preconditioned drive is the same up to the aging volume
//! ([`crate::sim::series_key`]: the design without its workload) run as one group: the
//! drive is preconditioned once and each cell's measured phase starts from an exact copy
//! of the state it needs ([`crate::sim::run_series`]), so every record is the one the
//! cell's own run gives, at a fraction of the cost when many cells share an aged drive.

use super::error::SweepError;
use super::key::{cell_key, hybrid_cell_key};
use super::plan::{Cell, CellDesign, CellKind, CellSpec, Plan};
use super::store::{Record, Status, Store};
use crate::config::Design;
use crate::host::SimError;
use crate::run::run_design;
use crate::sim::{Cancel, RunOptions, RunOutput, run_series, series_key};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::HashSet;
use std::io::IsTerminal;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs one cell. Never panics: a panic inside the simulator becomes a failed record, so
/// the other cells go on.
pub fn run_cell(design: &Design, key: &str) -> Record {
    run_cell_until(design, key, None).expect("a run without a cancel flag is never cancelled")
}

/// Runs one cell unless `cancel` is set before it ends: `None` then, as a cancelled
/// run has no result to record (the cell stays pending and runs on resume).
pub fn run_cell_until(design: &Design, key: &str, cancel: Option<&Cancel>) -> Option<Record> {
    let opts = RunOptions {
        cancel: cancel.cloned(),
        ..RunOptions::default()
    };
    let r = std::panic::catch_unwind(AssertUnwindSafe(|| run_design(design, opts)));
    match r {
        Ok(out) => record(key, out),
        Err(p) => Some(panicked(key, p)),
    }
}

/// Runs one cell of either kind unless `cancel` is set before it ends (`None` then).
/// A hybrid run cannot be stopped midway: the flag is checked before it starts.
pub fn run_cell_design(design: &CellDesign, key: &str, cancel: Option<&Cancel>) -> Option<Record> {
    match design {
        CellDesign::Run(d) => run_cell_until(d, key, cancel),
        CellDesign::Hybrid(cfg) => {
            if cancel.is_some_and(Cancel::is_cancelled) {
                return None;
            }
            let r = std::panic::catch_unwind(AssertUnwindSafe(|| crate::hybrid::run::run(cfg)));
            Some(match r {
                Ok(Ok(report)) => Record::hybrid(key, &report),
                Ok(Err(e)) => Record::failed(key, e.to_string()),
                Err(p) => panicked(key, p),
            })
        }
    }
}

/// A failed record for a panic inside the simulator.
fn panicked(key: &str, p: Box<dyn std::any::Any + Send>) -> Record {
    let msg = p
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into());
    Record::failed(key, format!("the simulator panicked: {msg}"))
}

/// The record of a run, or `None` for a cancelled one (it has no result to record).
fn record(key: &str, out: Result<RunOutput, SimError>) -> Option<Record> {
    match out {
        Ok(out) => Some(Record::ok(key, &out.report, &out.figures)),
        Err(SimError::Cancelled) => None,
        Err(e) => Some(Record::failed(key, e.to_string())),
    }
}

/// Runs `cells` of one series (one [`series_key`]) from one preconditioning pass
/// ([`run_series`]), passing each record to `send` as it finishes. Should the shared
/// pass fail or panic, the cells it has not finished run on their own
/// ([`run_cell_until`]), so each gets exactly the record its own run gives. A set
/// `cancel` stops the group; its unfinished cells get no record.
pub fn run_group(cells: &[&Cell], cancel: Option<&Cancel>, send: &mut dyn FnMut(Record)) {
    if let [c] = cells {
        if let Some(r) = run_cell_design(&c.design, &c.spec.key, cancel) {
            send(r);
        }
        return;
    }
    let designs: Vec<&Design> = cells
        .iter()
        .map(|c| c.design.run().expect("only run cells share a series"))
        .collect();
    let mut done = vec![false; cells.len()];
    let opts = RunOptions {
        cancel: cancel.cloned(),
        ..RunOptions::default()
    };
    let shared = std::panic::catch_unwind(AssertUnwindSafe(|| {
        run_series(&designs, opts, &mut |i, out| {
            done[i] = true;
            if let Some(r) = record(&cells[i].spec.key, out) {
                send(r);
            }
        })
    }));
    if !matches!(shared, Ok(Ok(()))) {
        for (c, _) in cells.iter().zip(&done).filter(|(_, d)| !**d) {
            match run_cell_design(&c.design, &c.spec.key, cancel) {
                Some(r) => send(r),
                None => return,
            }
        }
    }
}

/// `cells` grouped by series ([`series_key`]; a cell without one, and every hybrid
/// cell, is a group of its own), groups in the order of their first cell.
pub fn series_groups<'a>(cells: &[&'a Cell]) -> Vec<Vec<&'a Cell>> {
    let mut groups: Vec<Vec<&Cell>> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for &c in cells {
        match c.design.run().and_then(series_key) {
            Some(k) => match index.get(&k.series) {
                Some(&g) => groups[g].push(c),
                None => {
                    index.insert(k.series, groups.len());
                    groups.push(vec![c]);
                }
            },
            None => groups.push(vec![c]),
        }
    }
    groups
}

/// Runs a cell from its spec (on a worker that has only the spec): rebuilds and
/// validates the design, checks that it hashes to the driver's key (same ssdlab
/// version, same trace file), then runs it.
pub fn run_spec(spec: &CellSpec) -> Record {
    if spec.kind == CellKind::Hybrid {
        return run_hybrid_spec(spec);
    }
    let cfg = match spec.config() {
        Ok(c) => c,
        Err(e) => return Record::failed(&spec.key, e.to_string()),
    };
    let key = cell_key(&cfg);
    if key != spec.key {
        return Record::failed(
            &spec.key,
            format!(
                "this worker resolves the cell to key {key}, the driver to {}: ssdlab {} or the trace file differs between them",
                spec.key,
                env!("CARGO_PKG_VERSION")
            ),
        );
    }
    match cfg.validate() {
        Ok(d) => run_cell(&d, &spec.key),
        Err(e) => Record::failed(&spec.key, e.to_string()),
    }
}

/// [`run_spec`] of a hybrid cell.
fn run_hybrid_spec(spec: &CellSpec) -> Record {
    let cfg = match spec.hybrid_config() {
        Ok(c) => c,
        Err(e) => return Record::failed(&spec.key, e.to_string()),
    };
    let key = hybrid_cell_key(&cfg);
    if key != spec.key {
        return Record::failed(
            &spec.key,
            format!(
                "this worker resolves the hybrid cell to key {key}, the driver to {}: ssdlab {} or the trace file differs between them",
                spec.key,
                env!("CARGO_PKG_VERSION")
            ),
        );
    }
    run_cell_design(&CellDesign::Hybrid(Box::new(cfg)), &spec.key, None)
        .expect("a run without a cancel flag is never cancelled")
}

/// The cells still to run: one per key not in the store (with `retry_failed`, failed
/// ones too), in grid order.
pub fn pending<'a>(plan: &'a Plan, store: &Store, retry_failed: bool) -> Vec<&'a Cell> {
    let mut seen = HashSet::new();
    plan.cells
        .iter()
        .filter(|c| seen.insert(c.spec.key.as_str()))
        .filter(|c| match store.get(&c.spec.key) {
            None => true,
            Some(r) => retry_failed && r.status == Status::Failed,
        })
        .collect()
}

/// A bar with ETA on stderr, only when it is a terminal and `show` is set.
pub fn progress_bar(total: usize, show: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(total as u64),
        if show && std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    bar.set_style(
        ProgressStyle::with_template(
            "sweep {bar:30} {pos}/{len} cells, {elapsed} elapsed, ETA {eta} {msg}",
        )
        .expect("a valid template"),
    );
    bar
}

/// What another thread can watch and steer while [`run_local`] runs (the Python
/// binding polls it for Ctrl-C and its own progress display).
#[derive(Debug, Default)]
pub struct Control {
    /// Set to stop: no new cell starts, running cells stop between requests and are
    /// not recorded; the cells already recorded stay in the store.
    pub cancel: Cancel,
    /// Cells recorded so far.
    pub done: AtomicUsize,
    /// Of which failed.
    pub failed: AtomicUsize,
}

/// Runs `cells` on `jobs` threads (default: rayon's, i.e. `RAYON_NUM_THREADS` or every
/// core), appending each record to `store` as it finishes. Returns how many failed.
/// Stops early when `control.cancel` is set.
pub fn run_local(
    cells: &[&Cell],
    store: &mut Store,
    jobs: Option<usize>,
    progress: bool,
    control: &Control,
) -> Result<usize, SweepError> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(j) = jobs {
        builder = builder.num_threads(j);
    }
    let pool = builder.build().map_err(|e| SweepError::Threads {
        jobs,
        message: e.to_string(),
    })?;
    let bar = progress_bar(cells.len(), progress);
    let groups = series_groups(cells);
    let (tx, rx) = std::sync::mpsc::channel::<Record>();
    let mut failed = 0;
    let mut write_error = None;
    // Set when the store cannot be written: nothing more could be recorded, so the
    // cells not yet started are not worth running.
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let stop = &stop;
        s.spawn(move || {
            use rayon::prelude::*;
            pool.install(|| {
                groups.par_iter().for_each_with(tx, |tx, g| {
                    if !stop.load(Ordering::Relaxed) {
                        run_group(g, Some(&control.cancel), &mut |r| {
                            let _ = tx.send(r);
                        });
                    }
                });
            });
        });
        for r in rx {
            let is_failed = r.status == Status::Failed;
            if is_failed {
                failed += 1;
                bar.set_message(format!("({failed} failed)"));
            }
            if let Err(e) = store.append(r) {
                write_error = Some(e);
                stop.store(true, Ordering::Relaxed);
                break;
            }
            if is_failed {
                control.failed.fetch_add(1, Ordering::Relaxed);
            }
            control.done.fetch_add(1, Ordering::Relaxed);
            bar.inc(1);
        }
    });
    bar.finish_and_clear();
    match write_error {
        Some(e) => Err(SweepError::Store(e)),
        None => Ok(failed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::units::Size;
    use crate::workload::synth::SynthKind;

    fn small() -> Design {
        let mut c = Config::default();
        c.device.capacity = Size(64 << 20);
        c.workload.kind = SynthKind::RandomWrite;
        c.workload.requests = Some(2000);
        c.validate().expect("a valid design")
    }

    /// A cell cut short by its cancel flag has no record, so the store keeps it pending
    /// (a record of it as failed would stop a resumed sweep from running it).
    #[test]
    fn a_cancelled_cell_is_not_recorded() {
        let d = small();
        let cancel = Cancel::new();
        let r = run_cell_until(&d, "k", Some(&cancel)).expect("not cancelled yet");
        assert_eq!(r.status, Status::Ok);
        cancel.cancel();
        assert!(run_cell_until(&d, "k", Some(&cancel)).is_none());
        let opts = RunOptions {
            cancel: Some(cancel),
            ..RunOptions::default()
        };
        assert!(matches!(run_design(&d, opts), Err(SimError::Cancelled)));
    }
}
