//! Design-space sweeps: a grid file ([`grid`]) expands into cells, every cell's design is
//! validated before the first runs ([`plan`]), each cell is keyed by a hash of what its
//! result depends on ([`key`]), finished cells are kept in a resumable store
//! ([`store`]), missing cells run in parallel ([`runner`]) through the library's one
//! run path ([`crate::run::run_design`]; a hybrid grid's cells through
//! [`crate::hybrid::run::run`]), and the results become one table ([`table`]):
//! CSV, Parquet and JSON lines, plus an HTML page ([`page`]).
//!
//! ```text
//! grid.toml ──Grid::load──▶ Grid ──Plan::new──▶ Plan (cells, validated, keyed)
//!                                                 │
//!        Store (DIR/store.jsonl) ◀── records ── run_local (rayon) / a Ray backend
//!                                                 │
//!                       Table::build ──▶ results.csv, results.parquet, reports.jsonl
//! ```
//!
//! docs/sweep.md describes the grid file and the outputs.

pub mod error;
pub mod grid;
pub mod key;
pub mod page;
pub mod plan;
pub mod runner;
pub mod store;
pub mod table;

pub use error::{CellError, GridError, HybridCellError, PlanError, StoreError, SweepError};
pub use grid::{Axis, AxisKind, Grid, Rule};
pub use plan::{Cell, CellDesign, CellKind, CellSpec, Plan, RuleCount};
pub use runner::{Control, run_cell, run_spec};
pub use store::{Record, Status, Store};
pub use table::{Table, Val};

use crate::report::fio::JsonFormat;
use crate::report::output::Content;
use std::path::{Path, PathBuf};

/// The result files a sweep writes into its directory (beside `store.jsonl`).
pub const OUTPUT_FILES: &[&str] = &["results.csv", "results.parquet", "reports.jsonl"];

/// A plan with its store: what is done, what is missing, and the outputs.
#[derive(Debug)]
pub struct Sweep {
    /// The validated grid.
    pub plan: Plan,
    /// The results so far.
    pub store: Store,
    /// The sweep's directory.
    pub dir: PathBuf,
}

/// What a sweep's run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Cells in the grid.
    pub cells: usize,
    /// Distinct designs (cells with the same key run once).
    pub distinct: usize,
    /// Distinct cells already in the store before this run.
    pub done_before: usize,
    /// Cells this run ran.
    pub ran: usize,
    /// Cells failed (of all, after this run).
    pub failed: usize,
}

impl Sweep {
    /// Opens `dir`'s store for `plan` (creating the directory).
    pub fn open(plan: Plan, dir: &Path) -> Result<Sweep, StoreError> {
        let store = Store::open(dir)?;
        Ok(Sweep {
            plan,
            store,
            dir: dir.to_path_buf(),
        })
    }

    /// The cells still to run, one per missing key, in grid order.
    pub fn pending(&self, retry_failed: bool) -> Vec<&Cell> {
        runner::pending(&self.plan, &self.store, retry_failed)
    }

    /// Runs the missing cells here on `jobs` threads.
    pub fn run_local(
        &mut self,
        jobs: Option<usize>,
        progress: bool,
        retry_failed: bool,
    ) -> Result<Summary, SweepError> {
        self.run_local_with(jobs, progress, retry_failed, &Control::default())
    }

    /// [`Sweep::run_local`], watched and cancellable from another thread through
    /// `control`; `ran` counts the cells recorded (fewer than pending when cancelled).
    pub fn run_local_with(
        &mut self,
        jobs: Option<usize>,
        progress: bool,
        retry_failed: bool,
        control: &Control,
    ) -> Result<Summary, SweepError> {
        let distinct = self.plan.keys().len();
        let pending: Vec<Cell> = self.pending(retry_failed).into_iter().cloned().collect();
        let done_before = distinct - pending.len();
        let refs: Vec<&Cell> = pending.iter().collect();
        runner::run_local(&refs, &mut self.store, jobs, progress, control)?;
        Ok(Summary {
            ran: control.done.load(std::sync::atomic::Ordering::Relaxed),
            done_before,
            ..self.summary()
        })
    }

    /// Records a cell a remote worker ran; refuses a key that is not in the grid.
    pub fn record(&mut self, r: Record) -> Result<(), SweepError> {
        if !self.plan.cells.iter().any(|c| c.spec.key == r.key) {
            return Err(SweepError::UnknownKey { key: r.key });
        }
        Ok(self.store.append(r)?)
    }

    /// Counts of the grid's cells.
    pub fn summary(&self) -> Summary {
        let keys = self.plan.keys();
        let failed = self
            .plan
            .cells
            .iter()
            .filter(|c| {
                self.store
                    .get(&c.spec.key)
                    .is_some_and(|r| r.status == Status::Failed)
            })
            .count();
        Summary {
            cells: self.plan.cells.len(),
            distinct: keys.len(),
            done_before: keys.iter().filter(|k| self.store.get(k).is_some()).count(),
            ran: 0,
            failed,
        }
    }

    /// The results table.
    pub fn table(&self) -> Table {
        Table::build(&self.plan, &self.store)
    }

    /// The result files ([`OUTPUT_FILES`]), to commit together into the directory;
    /// `format` is the shape of the reports in `reports.jsonl`.
    pub fn output_files(
        &self,
        table: &Table,
        format: JsonFormat,
    ) -> Result<Vec<(String, Content<'static>)>, SweepError> {
        Ok(vec![
            (OUTPUT_FILES[0].into(), table.to_csv().into()),
            (OUTPUT_FILES[1].into(), table.to_parquet()?.into()),
            (
                OUTPUT_FILES[2].into(),
                table::reports_jsonl(&self.plan, &self.store, format)?.into(),
            ),
        ])
    }
}
