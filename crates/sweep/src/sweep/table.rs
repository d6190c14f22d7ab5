//! The results table: one row per cell — its position, key, status and error, every
//! axis as a column, then the report's keys (nested ones flattened with `_`, e.g.
//! `latency_ns_p99`; FTL counters as `counters.NAME`) — written as CSV, Parquet and,
//! with the full reports, JSON lines.
//!
//! A hybrid cell's report lists its runs (`cold`, `warm`, …): each run's keys become
//! columns prefixed with its name (`cold_elapsed_s`, `warm_hit_ratio`,
//! `warm_cache_miss_units`).
//!
//! The table is a function of the grid and the store alone: the wall-clock keys of a
//! report are left out of it (they stay in `reports.jsonl`), so a resumed sweep, an
//! uninterrupted one and a Ray one write the same bytes.

use super::error::SweepError;
use super::plan::Plan;
use super::store::{Record, Status, Store};
use crate::report::fio::{self, JsonFormat};
use std::collections::HashMap;
use std::sync::Arc;

/// One table value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// Missing (a failed cell's report keys; a key another FTL does not report).
    Null,
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// Text.
    Str(String),
}

impl Val {
    fn from_toml(v: &toml::Value) -> Val {
        match v {
            toml::Value::Integer(i) => Val::Int(*i),
            toml::Value::Float(f) => Val::Float(*f),
            toml::Value::String(s) => Val::Str(s.clone()),
            v => Val::Str(v.to_string()),
        }
    }

    fn from_json(v: &serde_json::Value) -> Option<Val> {
        use serde_json::Value;
        Some(match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Str(b.to_string()),
            Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => Val::Int(i),
                (None, Some(f)) => Val::Float(f),
                (None, None) => Val::Null,
            },
            Value::String(s) => Val::Str(s.clone()),
            Value::Array(_) | Value::Object(_) => return None,
        })
    }

    /// The CSV cell: empty for missing and non-finite values, floats in their shortest
    /// round-trip form.
    pub fn csv(&self) -> String {
        match self {
            Val::Null => String::new(),
            Val::Int(i) => i.to_string(),
            Val::Float(f) if f.is_finite() => f.to_string(),
            Val::Float(_) => String::new(),
            Val::Str(s) => s.clone(),
        }
    }

    /// As a JSON value.
    pub fn json(&self) -> serde_json::Value {
        match self {
            Val::Null => serde_json::Value::Null,
            Val::Int(i) => (*i).into(),
            Val::Float(f) => {
                serde_json::Number::from_f64(*f).map_or(serde_json::Value::Null, Into::into)
            }
            Val::Str(s) => s.clone().into(),
        }
    }
}

/// Report keys left out of the table: the configuration (the axes show what varies),
/// free text, per-phase lists, and the wall clock, which is not a result.
const SKIPPED: &[&str] = &[
    "config",
    "notes",
    "phases",
    "wall_clock_s",
    "wall_clock_measured_s",
];

/// Keys of a hybrid run left out of the table: its name (the columns' prefix) and the
/// wall clock of its table lookups, which is not a result.
const SKIPPED_IN_RUN: &[&str] = &["name", "lookup_wall_ns_mean", "cache_lookup_wall_ns"];

/// Report columns shown first, in this order (the rest follow alphabetically): what a
/// design comparison reads first.
const LEADING: &[&str] = &[
    // Beside the axes: what the device made of the values it rounds (docs/config.md,
    // "Requested and actual values").
    "op_percent_requested",
    "op_percent_actual",
    "slc_cache_percent_requested",
    "slc_cache_percent_actual",
    "iops",
    "throughput_mib_s",
    // A hybrid cell's: what its cold and warm runs took.
    "cold_elapsed_s",
    "warm_elapsed_s",
    "warm_hit_ratio",
    "latency_ns_mean",
    "latency_ns_p50",
    "latency_ns_p99",
    "latency_ns_p999",
    "latency_ns_max",
    "read_latency_ns_mean",
    "read_latency_ns_p99",
    "write_latency_ns_mean",
    "write_latency_ns_p99",
    "write_amplification",
    "write_amplification_host",
    "write_amplification_gc",
    "write_amplification_wl",
    "write_amplification_map",
    "write_amplification_rmw",
    "write_amplification_ftl",
    "gc_time_share",
    "gc_busy_share",
    "erases",
    "erase_count_min",
    "erase_count_mean",
    "erase_count_max",
    "erase_count_stddev",
    "mapping_bytes",
    "simulated_ns",
];

/// The report's scalar keys, flattened.
fn report_columns(report: &serde_json::Value, out: &mut Vec<(String, Val)>) {
    fn walk(prefix: &str, sep: &str, v: &serde_json::Value, out: &mut Vec<(String, Val)>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, child) in m {
                    let (key, child_sep) = if prefix.is_empty() {
                        (k.clone(), if k == "counters" { "." } else { "_" })
                    } else {
                        (format!("{prefix}{sep}{k}"), sep)
                    };
                    if prefix.is_empty() && SKIPPED.contains(&k.as_str()) {
                        continue;
                    }
                    if prefix.is_empty() && k == "warnings" {
                        let n = child.as_array().map_or(0, Vec::len);
                        out.push(("warning_count".into(), Val::Int(n as i64)));
                        continue;
                    }
                    if prefix.is_empty()
                        && k == "runs"
                        && let Some(runs) = child.as_array()
                    {
                        // A hybrid report's runs, each under its name.
                        for run in runs {
                            let Some(name) = run["name"].as_str() else {
                                continue;
                            };
                            let mut cols = Vec::new();
                            walk("", "_", run, &mut cols);
                            out.extend(
                                cols.into_iter()
                                    .filter(|(c, _)| !SKIPPED_IN_RUN.contains(&c.as_str()))
                                    .map(|(c, v)| (format!("{name}_{c}"), v)),
                            );
                        }
                        continue;
                    }
                    walk(&key, child_sep, child, out);
                }
            }
            v => {
                if let Some(val) = Val::from_json(v) {
                    out.push((prefix.to_string(), val));
                }
            }
        }
    }
    walk("", "_", report, out);
}

/// Rows and columns.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Column names in order.
    pub columns: Vec<String>,
    /// One row per cell, a value per column.
    pub rows: Vec<Vec<Val>>,
}

impl Table {
    /// The table of `plan`'s cells from `store`'s records (a cell not in the store has
    /// status `missing`).
    pub fn build(plan: &Plan, store: &Store) -> Table {
        let mut columns: Vec<String> = ["cell", "key", "status", "error"]
            .map(String::from)
            .to_vec();
        columns.extend(plan.grid.axes.iter().map(|a| a.name.clone()));
        let has_seed_axis = plan.grid.axes.iter().any(|a| a.name == "seed");
        if plan.grid.repeat > 1 {
            columns.push("rep".into());
        }
        if !has_seed_axis {
            columns.push("seed".into());
        }
        let fixed = columns.len();
        let mut index: HashMap<String, usize> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| (c.clone(), i))
            .collect();
        let mut sparse: Vec<Vec<(usize, Val)>> = Vec::new();
        for c in &plan.cells {
            let rec = store.get(&c.spec.key);
            let mut row = vec![
                Val::Int(c.index as i64 + 1),
                Val::Str(c.spec.key.clone()),
                Val::Str(
                    match rec.map(|r| r.status) {
                        Some(Status::Ok) => "ok",
                        Some(Status::Failed) => "failed",
                        None => "missing",
                    }
                    .into(),
                ),
                rec.and_then(|r| r.error.clone())
                    .map_or(Val::Null, Val::Str),
            ];
            row.extend(c.values.iter().map(Val::from_toml));
            if plan.grid.repeat > 1 {
                row.push(Val::Int(i64::from(c.rep)));
            }
            if !has_seed_axis {
                row.push(Val::Int(c.seed as i64));
            }
            let mut cells: Vec<(usize, Val)> = row.into_iter().enumerate().collect();
            let mut rest = Vec::new();
            if let Some(report) = rec.and_then(|r: &Record| r.report.as_ref()) {
                report_columns(report, &mut rest);
            }
            for (name, v) in rest {
                let n = index.len();
                let i = *index.entry(name.clone()).or_insert_with(|| {
                    columns.push(name);
                    n
                });
                cells.push((i, v));
            }
            sparse.push(cells);
        }
        // Leading report columns first, then the others in name order.
        let mut order: Vec<usize> = (fixed..columns.len()).collect();
        order.sort_by_key(|&i| {
            let c = &columns[i];
            (
                LEADING.iter().position(|l| l == c).unwrap_or(LEADING.len()),
                c.clone(),
            )
        });
        let order: Vec<usize> = (0..fixed).chain(order).collect();
        let columns: Vec<String> = order.iter().map(|&i| columns[i].clone()).collect();
        let mut place = vec![0; order.len()];
        for (new, &old) in order.iter().enumerate() {
            place[old] = new;
        }
        let rows = sparse
            .into_iter()
            .map(|cells| {
                let mut row = vec![Val::Null; columns.len()];
                for (i, v) in cells {
                    row[place[i]] = v;
                }
                row
            })
            .collect();
        Table { columns, rows }
    }

    /// The table as CSV text.
    pub fn to_csv(&self) -> String {
        crate::report::table::csv(
            &self.columns,
            self.rows.iter().map(|r| r.iter().map(Val::csv)),
        )
    }

    /// The Parquet type of a column: INT64 when every value is an integer, DOUBLE when
    /// every value is a number, else UTF-8 text.
    fn column_type(&self, i: usize) -> ColumnType {
        let mut t = ColumnType::Int;
        for r in &self.rows {
            match (&r[i], t) {
                (Val::Null, _) => {}
                (Val::Int(_), _) => {}
                (Val::Float(_), ColumnType::Int) => t = ColumnType::Float,
                (Val::Float(_), _) => {}
                (Val::Str(_), _) => return ColumnType::Text,
            }
        }
        if self.rows.iter().all(|r| r[i] == Val::Null) {
            return ColumnType::Text;
        }
        t
    }

    /// The table as a Parquet file (one row group, Snappy pages, every column optional).
    pub fn to_parquet(&self) -> Result<Vec<u8>, SweepError> {
        use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
        use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
        use parquet::file::properties::WriterProperties;
        use parquet::file::writer::SerializedFileWriter;
        use parquet::schema::types::Type;
        let err = |e: parquet::errors::ParquetError| SweepError::Parquet(e.to_string());
        let types: Vec<ColumnType> = (0..self.columns.len())
            .map(|i| self.column_type(i))
            .collect();
        let fields = self
            .columns
            .iter()
            .zip(&types)
            .map(|(name, t)| {
                let b = match t {
                    ColumnType::Int => Type::primitive_type_builder(name, Physical::INT64),
                    ColumnType::Float => Type::primitive_type_builder(name, Physical::DOUBLE),
                    ColumnType::Text => Type::primitive_type_builder(name, Physical::BYTE_ARRAY)
                        .with_logical_type(Some(LogicalType::String)),
                };
                b.with_repetition(Repetition::OPTIONAL)
                    .build()
                    .map(Arc::new)
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        let schema = Arc::new(
            Type::group_type_builder("sweep")
                .with_fields(fields)
                .build()
                .map_err(err)?,
        );
        let props = Arc::new(
            WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .set_created_by(format!("ssdlab {}", env!("CARGO_PKG_VERSION")))
                .build(),
        );
        let mut out = Vec::new();
        let mut w = SerializedFileWriter::new(&mut out, schema, props).map_err(err)?;
        let mut rg = w.next_row_group().map_err(err)?;
        let mut i = 0;
        while let Some(mut col) = rg.next_column().map_err(err)? {
            let def: Vec<i16> = self
                .rows
                .iter()
                .map(|r| {
                    i16::from(r[i] != Val::Null && !matches!(r[i], Val::Float(f) if !f.is_finite()))
                })
                .collect();
            let present = || {
                self.rows
                    .iter()
                    .map(|r| &r[i])
                    .zip(&def)
                    .filter(|(_, d)| **d == 1)
                    .map(|(v, _)| v)
            };
            match types[i] {
                ColumnType::Int => {
                    let v: Vec<i64> = present()
                        .map(|v| match v {
                            Val::Int(x) => *x,
                            _ => unreachable!("an INT64 column holds integers"),
                        })
                        .collect();
                    col.typed::<Int64Type>()
                        .write_batch(&v, Some(&def), None)
                        .map_err(err)?;
                }
                ColumnType::Float => {
                    let v: Vec<f64> = present()
                        .map(|v| match v {
                            Val::Int(x) => *x as f64,
                            Val::Float(x) => *x,
                            _ => unreachable!("a DOUBLE column holds numbers"),
                        })
                        .collect();
                    col.typed::<DoubleType>()
                        .write_batch(&v, Some(&def), None)
                        .map_err(err)?;
                }
                ColumnType::Text => {
                    let v: Vec<ByteArray> = present()
                        .map(|v| ByteArray::from(v.csv().as_str()))
                        .collect();
                    col.typed::<ByteArrayType>()
                        .write_batch(&v, Some(&def), None)
                        .map_err(err)?;
                }
            }
            col.close().map_err(err)?;
            i += 1;
        }
        rg.close().map_err(err)?;
        w.close().map_err(err)?;
        Ok(out)
    }

    /// Rows as JSON objects (column → value), for Python.
    pub fn to_json_rows(&self) -> Vec<serde_json::Value> {
        self.rows
            .iter()
            .map(|r| {
                serde_json::Value::Object(
                    self.columns
                        .iter()
                        .zip(r)
                        .map(|(c, v)| (c.clone(), v.json()))
                        .collect(),
                )
            })
            .collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum ColumnType {
    Int,
    Float,
    Text,
}

/// One line of `reports.jsonl`. Its fields are declared in sorted order, the order the
/// lines have always had (they were once `serde_json::Value` maps), so that the ssdlab
/// form stays byte for byte what it was; `report` is either shape.
#[derive(serde::Serialize)]
struct ReportLine<'a> {
    axes: serde_json::Map<String, serde_json::Value>,
    cell: usize,
    error: Option<&'a str>,
    key: &'a str,
    rep: u32,
    report: Option<LineReport<'a>>,
    seed: u64,
    status: &'static str,
}

/// A report of either shape, written as itself.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum LineReport<'a> {
    Ssdlab(&'a serde_json::Value),
    Fio(Box<fio::FioOutput>),
}

/// The fio job name of a cell: its axis values (`ftl.name=page op=7`), its repetition
/// when the grid repeats, or `cell N` for a grid without axes.
pub fn cell_name(plan: &Plan, c: &super::plan::Cell) -> String {
    let mut parts: Vec<String> = plan
        .grid
        .axes
        .iter()
        .zip(&c.values)
        .map(|(a, v)| format!("{}={}", a.name, super::plan::value_text(v)))
        .collect();
    if plan.grid.repeat > 1 {
        parts.push(format!("rep={}", c.rep));
    }
    if parts.is_empty() {
        format!("cell {}", c.index + 1)
    } else {
        parts.join(" ")
    }
}

/// Why a finished cell cannot be given in fio's shape.
fn no_fio(c: &super::plan::Cell) -> SweepError {
    SweepError::NoFio {
        cell: c.index + 1,
        key: c.spec.key.clone(),
    }
}

/// Refuses `format` when a finished cell's record cannot give it (see [`no_fio`]):
/// checked before any cell runs.
pub fn check_format(plan: &Plan, store: &Store, format: JsonFormat) -> Result<(), SweepError> {
    if format == JsonFormat::Ssdlab {
        return Ok(());
    }
    if plan.grid.kind == super::plan::CellKind::Hybrid {
        return Err(SweepError::FioOfHybrid);
    }
    match plan.cells.iter().find(|c| {
        store
            .get(&c.spec.key)
            .is_some_and(|r| r.report.is_some() && r.fio.is_none())
    }) {
        Some(c) => Err(no_fio(c)),
        None => Ok(()),
    }
}

/// The full reports as JSON lines, one per cell in grid order: position, key, status,
/// error, axis values and the report as `ssdlab run --json` writes it, or with
/// [`JsonFormat::Fio`] as `ssdlab run --json-format fio` does (one job, named by
/// [`cell_name`]). A finished cell whose record lacks fio's figures (stored by an
/// earlier ssdlab) is an error naming it.
pub fn reports_jsonl(plan: &Plan, store: &Store, format: JsonFormat) -> Result<String, SweepError> {
    let mut out = String::new();
    for c in &plan.cells {
        let rec = store.get(&c.spec.key);
        let axes: serde_json::Map<String, serde_json::Value> = plan
            .grid
            .axes
            .iter()
            .zip(&c.values)
            .map(|(a, v)| (a.name.clone(), Val::from_toml(v).json()))
            .collect();
        let status = rec.map_or("missing", |r| {
            if r.status == Status::Ok {
                "ok"
            } else {
                "failed"
            }
        });
        let report = match (format, rec.and_then(|r| r.report.as_ref().map(|v| (r, v)))) {
            (_, None) => None,
            (JsonFormat::Ssdlab, Some((_, v))) => Some(LineReport::Ssdlab(v)),
            (JsonFormat::Fio, Some((r, _))) => {
                let src = r.fio.as_ref().ok_or_else(|| no_fio(c))?;
                let doc = fio::document(&[(&cell_name(plan, c), src)]);
                Some(LineReport::Fio(Box::new(doc)))
            }
        };
        let text = serde_json::to_string(&ReportLine {
            axes,
            cell: c.index + 1,
            error: rec.and_then(|r| r.error.as_deref()),
            key: &c.spec.key,
            rep: c.rep,
            report,
            seed: c.seed,
            status,
        });
        out += &text.expect("JSON values serialize");
        out.push('\n');
    }
    Ok(out)
}
