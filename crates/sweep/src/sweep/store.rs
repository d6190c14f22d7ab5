//! The resumable result store: `DIR/store.jsonl`, one JSON line per finished cell
//! (its key, status, error, full report and figure data), appended as each cell ends.
//!
//! A sweep killed at any instant leaves every finished cell's line whole; at most the
//! last line is cut short, and opening the store drops that partial line. A restarted
//! sweep looks every cell's key up here and runs only the missing ones. The file is
//! locked while a sweep holds it, so two sweeps cannot write one store.

use super::error::StoreError;
use crate::report::fio::FioSource;
use crate::report::{Figures, Report};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// File name of the store inside the sweep's directory.
pub const STORE_FILE: &str = "store.jsonl";

/// Points kept per curve in the store: enough for a figure, small for 10 000 cells.
const CURVE_POINTS: usize = 200;

/// How a cell ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// It ran to the end.
    Ok,
    /// It stopped with an error (kept, so a resumed sweep does not run it again).
    Failed,
}

/// The figures' data of one cell, thinned for the store.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FigureData {
    /// (phase, [(latency ns, cumulative fraction)]).
    pub latency_cdf: Vec<(String, Vec<(f64, f64)>)>,
    /// (simulated s, MiB/s).
    pub throughput: Vec<(f64, f64)>,
    /// (erase count, blocks with it), ascending.
    pub erase_counts: Vec<(u32, u64)>,
}

/// Every `len / max`-th point (and the last), so a curve keeps its shape and ends.
fn thin(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    if points.len() <= CURVE_POINTS {
        return points.to_vec();
    }
    let step = points.len().div_ceil(CURVE_POINTS);
    let mut out: Vec<(f64, f64)> = points.iter().step_by(step).copied().collect();
    if let Some(&last) = points.last()
        && out.last() != Some(&last)
    {
        out.push(last);
    }
    out
}

impl FigureData {
    /// The store's form of a run's figures.
    pub fn from_figures(f: &Figures) -> FigureData {
        let mut counts: std::collections::BTreeMap<u32, u64> = Default::default();
        for &c in &f.erase_counts {
            *counts.entry(c).or_default() += 1;
        }
        FigureData {
            latency_cdf: f
                .latency_cdf
                .iter()
                .map(|(n, p)| (n.clone(), thin(p)))
                .collect(),
            throughput: thin(&f.throughput_series),
            erase_counts: counts.into_iter().collect(),
        }
    }

    /// Every block's erase count again (for the histogram).
    pub fn erase_count_list(&self) -> Vec<u32> {
        self.erase_counts
            .iter()
            .flat_map(|&(c, n)| std::iter::repeat_n(c, n as usize))
            .collect()
    }
}

/// One finished cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The cell's key.
    pub key: String,
    /// Ok or failed.
    pub status: Status,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The full report (JSON form, as `ssdlab run --json` writes it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<serde_json::Value>,
    /// Figure data for the HTML report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figures: Option<FigureData>,
    /// What the cell's fio job is built from (`sweep --json-format fio`): the ssdlab
    /// JSON leaves out fio's percentile list. Absent in records of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fio: Option<FioSource>,
}

impl Record {
    /// A finished run's record.
    pub fn ok(key: &str, report: &Report, figures: &Figures) -> Record {
        let fio = FioSource::from_report(report);
        let report = serde_json::to_value(crate::report::json::sanitize(report))
            .expect("a Report converts to JSON");
        Record {
            key: key.to_string(),
            status: Status::Ok,
            error: None,
            report: Some(report),
            figures: Some(FigureData::from_figures(figures)),
            fio: Some(fio),
        }
    }

    /// A finished hybrid run's record: its report (as `ssdlab hybrid --json` writes one
    /// design's), no figures and no fio shape (a hybrid run is not one device's job).
    pub fn hybrid(key: &str, report: &crate::hybrid::run::HybridReport) -> Record {
        Record {
            key: key.to_string(),
            status: Status::Ok,
            error: None,
            report: Some(serde_json::to_value(report).expect("a HybridReport converts to JSON")),
            figures: None,
            fio: None,
        }
    }

    /// A failed cell's record.
    pub fn failed(key: &str, error: impl Into<String>) -> Record {
        Record {
            key: key.to_string(),
            status: Status::Failed,
            error: Some(error.into()),
            report: None,
            figures: None,
            fio: None,
        }
    }
}

/// The store of one sweep directory, locked while open.
pub struct Store {
    path: PathBuf,
    file: File,
    records: HashMap<String, Record>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("records", &self.records.len())
            .finish()
    }
}

impl Store {
    /// Opens (creating) `dir/store.jsonl`, reads what earlier sweeps finished and drops a
    /// line a kill cut short. Fails if another sweep holds it.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        let io = |path: &Path, action: &'static str| {
            let path = path.to_path_buf();
            move |e: std::io::Error| StoreError::Io {
                path,
                action,
                message: e.to_string(),
            }
        };
        std::fs::create_dir_all(dir).map_err(io(dir, "cannot create"))?;
        let path = dir.join(STORE_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io(&path, "cannot open"))?;
        crate::util::lock_exclusive(&file).map_err(|e| StoreError::Locked {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let mut text = String::new();
        file.read_to_string(&mut text)
            .map_err(io(&path, "cannot read"))?;
        let mut records = HashMap::new();
        // Only newline-terminated lines were written whole.
        let whole = text.rfind('\n').map_or(0, |i| i + 1);
        for (n, line) in text[..whole].lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let r: Record = serde_json::from_str(line).map_err(|e| StoreError::Damaged {
                path: path.clone(),
                line: n + 1,
                message: e.to_string(),
            })?;
            // A later line (a re-run failed cell) replaces an earlier one.
            records.insert(r.key.clone(), r);
        }
        if whole < text.len() {
            file.set_len(whole as u64)
                .map_err(io(&path, "cannot drop a partial line"))?;
        }
        file.seek(SeekFrom::End(0)).map_err(|e| StoreError::Seek {
            path: path.clone(),
            message: e.to_string(),
        })?;
        Ok(Store {
            path,
            file,
            records,
        })
    }

    /// The record of `key`, if that cell finished.
    pub fn get(&self, key: &str) -> Option<&Record> {
        self.records.get(key)
    }

    /// Cells finished.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether no cell has finished.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The store's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends a finished cell: one line, written whole with one call.
    pub fn append(&mut self, r: Record) -> Result<(), StoreError> {
        let mut line = serde_json::to_string(&r).expect("a Record serializes");
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|e| StoreError::Io {
                path: self.path.clone(),
                action: "cannot write",
                message: e.to_string(),
            })?;
        self.records.insert(r.key.clone(), r);
        Ok(())
    }
}
