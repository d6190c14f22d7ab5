//! Why a sweep stops, before or while it runs: the grid file ([`GridError`]), the
//! expansion and validation of its cells ([`PlanError`], each refused cell a
//! [`CellError`]), the store ([`StoreError`]) and the outputs ([`SweepError`]). Each names
//! the file, the axis, rule or cell, the value and what was expected; the messages are
//! the ones the CLI prints (exit code 2).

use crate::hybrid::config::HybridConfigError;
use std::path::PathBuf;

/// A grid file, or a grid table from Python, that is refused before anything expands.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GridError {
    /// The grid file cannot be read.
    #[error("{}: cannot read: {message}", .path.display())]
    Read {
        /// The grid file.
        path: PathBuf,
        /// The system's message.
        message: String,
    },
    /// The TOML does not parse, or a key is unknown or of the wrong type.
    #[error("{origin}: {message}")]
    Syntax {
        /// The grid file, or "grid".
        origin: String,
        /// The parser's message (it names the key).
        message: String,
    },
    /// A top-level or base key's value outside what it accepts.
    #[error("{origin}: {key} = {value}: expected {expected}")]
    Value {
        /// The grid file, or "grid".
        origin: String,
        /// The key (`mode`, `repeat`, `base.kind`).
        key: &'static str,
        /// The value given.
        value: String,
        /// What is accepted.
        expected: &'static str,
    },
    /// A part of the grid (a key, an axis, a rule) that is refused, and why.
    #[error("{origin}: {at}: {problem}")]
    Refused {
        /// The grid file, or "grid".
        origin: String,
        /// The part: `base.preset`, ``axis 2 (`ftl.gc`)``, `exclude rule 1 { … }`.
        at: String,
        /// What is wrong, and what was expected.
        problem: String,
    },
    /// Zipped axes of different lengths.
    #[error(
        "{origin}: axes `{a}` ({a_len} values) and `{b}` ({b_len} values) are zipped together and must have as many values"
    )]
    Zipped {
        /// The grid file, or "grid".
        origin: String,
        /// One axis.
        a: String,
        /// Its values.
        a_len: usize,
        /// An axis of the same group with another length.
        b: String,
        /// Its values.
        b_len: usize,
    },
}

/// Why one cell of the grid is refused (listed in [`PlanError::Refused`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CellError {
    /// An exclude / where rule that matches no combination (a typo would otherwise
    /// silently drop nothing).
    #[error("{rule}: matches no cell (no combination of the axes has all these values)")]
    RuleMatchesNothing {
        /// The rule as written.
        rule: String,
    },
    /// One value of an axis alone over the base does not make a valid configuration.
    #[error("axis `{axis}` value {value:?}: {reason}")]
    AxisValue {
        /// The axis.
        axis: String,
        /// The value.
        value: String,
        /// Why, in the configuration's words.
        reason: String,
    },
    /// The base alone does not make a valid configuration.
    #[error("base design: {reason}")]
    Base {
        /// Why, in the configuration's words.
        reason: String,
    },
    /// A cell's configuration is refused (naming the axis whose key it is about).
    #[error("{cell}: {}{reason}", .axis.as_ref().map(|a| format!("axis `{a}`: ")).unwrap_or_default())]
    Config {
        /// `cell N (axis=value, …)`.
        cell: String,
        /// The axis whose key the refusal names, when there is one.
        axis: Option<String>,
        /// Why, in the configuration's words.
        reason: String,
    },
    /// The seed plus the repetition does not fit 64 bits.
    #[error("{cell}: seed {seed} + repetition {rep} overflows")]
    SeedOverflow {
        /// `cell N (…)`.
        cell: String,
        /// The cell's seed.
        seed: u64,
        /// The repetition.
        rep: u32,
    },
    /// The cell's trace is not a readable regular file.
    #[error("{cell}: trace {}: {problem}", .path.display())]
    Trace {
        /// `cell N (…)`.
        cell: String,
        /// The trace.
        path: PathBuf,
        /// "not a regular file" or "cannot read: …".
        problem: String,
    },
}

/// A grid whose cells cannot all be built: nothing runs.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// The grid expands to more cells (or combinations) than one sweep holds.
    #[error(
        "{origin}: the grid expands to {} {what}; at most {max} are allowed in one sweep (split it into several grids, or use mode = \"zip\" or groups for axes that advance together)",
        .count.map_or("more than 2^64".to_string(), |n| n.to_string())
    )]
    TooMany {
        /// The grid file, or "grid".
        origin: String,
        /// The count; `None` above 2^64.
        count: Option<u64>,
        /// What is counted.
        what: &'static str,
        /// The limit.
        max: u64,
    },
    /// The exclude / where rules leave nothing.
    #[error("{origin}: the exclude/where rules leave no cell of the {cells} to run")]
    NothingLeft {
        /// The grid file, or "grid".
        origin: String,
        /// Cells before the rules.
        cells: u64,
    },
    /// Cells, values or rules refused, listed (the first twenty of them).
    #[error("{origin}: the grid was refused before any cell ran:\n  {}", listed(.errors))]
    Refused {
        /// The grid file, or "grid".
        origin: String,
        /// Every refusal, in grid order.
        errors: Vec<CellError>,
    },
    /// The largest cells that run at once do not fit in memory together.
    #[error("{origin}: {cells} cells at once: {reason}; or run fewer at once (--jobs)")]
    Memory {
        /// The grid file, or "grid".
        origin: String,
        /// Cells at once.
        cells: usize,
        /// The memory check's message.
        reason: String,
    },
}

/// Errors listed in one message: enough to fix a grid, not a wall of text.
const MAX_LISTED: usize = 20;

fn listed(errors: &[CellError]) -> String {
    let n = errors.len();
    let mut lines: Vec<String> = errors
        .iter()
        .take(MAX_LISTED)
        .map(ToString::to_string)
        .collect();
    if n > MAX_LISTED {
        lines.push(format!("… and {} more", n - MAX_LISTED));
    }
    lines.join("\n  ")
}

/// The store (`DIR/store.jsonl`) cannot be opened, read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file operation failed.
    #[error("{}: {action}: {message}", .path.display())]
    Io {
        /// The directory or the store file.
        path: PathBuf,
        /// What was attempted: "cannot create", "cannot read", ….
        action: &'static str,
        /// The system's message.
        message: String,
    },
    /// Positioning at the end of the store failed.
    #[error("{}: {message}", .path.display())]
    Seek {
        /// The store file.
        path: PathBuf,
        /// The system's message.
        message: String,
    },
    /// Another sweep holds the store's lock.
    #[error(
        "{}: another sweep is using this directory ({message}); wait for it or choose another --out",
        .path.display()
    )]
    Locked {
        /// The store file.
        path: PathBuf,
        /// The system's message.
        message: String,
    },
    /// A whole line of the store is not a record.
    #[error(
        "{}:{line}: not a sweep record ({message}); the store is damaged: remove the line or the file to run those cells again",
        .path.display()
    )]
    Damaged {
        /// The store file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// The parser's message.
        message: String,
    },
}

/// A hybrid cell's configuration refused, in its own words: an error of the overlay
/// (origin "command line") names its key without the origin.
#[derive(Clone, Debug, PartialEq)]
pub struct HybridCellError(pub HybridConfigError);

impl std::fmt::Display for HybridCellError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.origin == "command line" {
            write!(f, "{}", self.0.error)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

impl std::error::Error for HybridCellError {}

/// Why a sweep cannot open, run, record or write its outputs.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// The store.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A remote worker's record names a key no cell of the grid has.
    #[error("a result for key {key} which no cell of the grid has")]
    UnknownKey {
        /// The record's key.
        key: String,
    },
    /// The worker threads cannot start.
    #[error("cannot start {jobs:?} worker threads: {message}")]
    Threads {
        /// Threads asked for (`None`: rayon's default).
        jobs: Option<usize>,
        /// rayon's message.
        message: String,
    },
    /// The Parquet writer failed.
    #[error("Parquet: {0}")]
    Parquet(String),
    /// `--json-format fio` for a hybrid grid.
    #[error(
        "--json-format fio: the cells of a hybrid grid (base.kind = \"hybrid\") are not one device's job and have no fio shape; use --json-format ssdlab"
    )]
    FioOfHybrid,
    /// `--json-format fio` for a cell stored without fio's figures.
    #[error(
        "--json-format fio: cell {cell} (key {key}) was run by an earlier ssdlab, whose store keeps no fio percentiles; run the sweep into a new --out directory, or use --json-format ssdlab"
    )]
    NoFio {
        /// The cell, from 1.
        cell: usize,
        /// Its key.
        key: String,
    },
}
