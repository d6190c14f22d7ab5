//! A grid expanded into cells, every cell's design validated and keyed, before the first
//! one runs. A bad axis key or value is refused naming the axis.
//!
//! A cell is one of two kinds, as the grid's `base.kind` says: an `ssdlab run` design
//! (the default) or an `ssdlab hybrid` configuration (an HDD, optionally behind a flash
//! cache), whose keys are those `ssdlab hybrid --set` takes.

use super::error::{CellError, HybridCellError, PlanError};
use super::grid::{AxisKind, Grid, trace_path};
use super::key::{cell_key, hybrid_cell_key};
use crate::config::{Config, ConfigError, Design, check_memory_together, set_key};
use crate::hybrid::config::{HybridConfig, HybridConfigError, HybridKeyError};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What a cell runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellKind {
    /// One `ssdlab run` design ([`crate::run::run_design`]).
    #[default]
    Run,
    /// One `ssdlab hybrid` configuration ([`crate::hybrid::run::run`]).
    Hybrid,
}

impl CellKind {
    /// The kind named `name` in a grid's `base.kind`.
    pub fn parse(name: &str) -> Option<CellKind> {
        match name {
            "run" => Some(CellKind::Run),
            "hybrid" => Some(CellKind::Hybrid),
            _ => None,
        }
    }

    /// Whether this is a run cell (the kind a spec leaves out, so run specs are what
    /// they were before hybrid cells existed).
    pub fn is_run(&self) -> bool {
        *self == CellKind::Run
    }
}

/// A cell's validated design, of either kind.
#[derive(Clone, Debug)]
pub enum CellDesign {
    /// A run design.
    Run(Box<Design>),
    /// A hybrid configuration.
    Hybrid(Box<HybridConfig>),
}

impl CellDesign {
    /// The run design, for a run cell.
    pub fn run(&self) -> Option<&Design> {
        match self {
            CellDesign::Run(d) => Some(d),
            CellDesign::Hybrid(_) => None,
        }
    }

    /// The trace the cell replays, if any.
    pub fn trace_path(&self) -> Option<&Path> {
        match self {
            CellDesign::Run(d) => d.config.trace.path.as_deref(),
            CellDesign::Hybrid(h) => h.trace.path.as_deref(),
        }
    }
}

/// Everything a worker needs to rebuild a cell's design: the layers
/// [`Config::load_with`] (or [`HybridConfig::load`]) merges. Plain data, sent as JSON to
/// Ray workers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellSpec {
    /// The cell's key (hash of its resolved design, workload, seed and version).
    pub key: String,
    /// Run or hybrid (absent: run).
    #[serde(default, skip_serializing_if = "CellKind::is_run")]
    pub kind: CellKind,
    /// Preset name (run cells only).
    pub preset: Option<String>,
    /// Config file: (name for messages, TOML text).
    pub config: Option<(String, String)>,
    /// Every other key, as TOML text.
    pub overlay: String,
}

impl CellSpec {
    /// The configuration a run cell's spec describes.
    pub fn config(&self) -> Result<Config, ConfigError> {
        let overlay: toml::Table =
            toml::from_str(&self.overlay).map_err(|e| ConfigError::Parse {
                origin: "sweep cell".into(),
                key: None,
                message: e.to_string(),
            })?;
        Config::load_with(
            self.preset.as_deref(),
            self.config.as_ref().map(|(n, t)| (n.as_str(), t.as_str())),
            overlay,
        )
    }

    /// The configuration a hybrid cell's spec describes.
    pub fn hybrid_config(&self) -> Result<HybridConfig, HybridCellError> {
        let overlay: toml::Table = toml::from_str(&self.overlay).map_err(|e| {
            HybridCellError(HybridConfigError {
                origin: "sweep cell".into(),
                error: HybridKeyError::Syntax(e.to_string()),
            })
        })?;
        load_hybrid(self.config.as_ref(), overlay)
    }
}

/// A hybrid configuration from a grid's config file and an overlay; the message of an
/// overlay error is its own (it names the key), not "command line: …".
fn load_hybrid(
    file: Option<&(String, String)>,
    overlay: toml::Table,
) -> Result<HybridConfig, HybridCellError> {
    HybridConfig::load(file.map(|(n, t)| (n.as_str(), t.as_str())), overlay)
        .map_err(HybridCellError)
}

/// One cell of the grid.
#[derive(Clone, Debug)]
pub struct Cell {
    /// Position in the grid (row order of the results).
    pub index: usize,
    /// The value of each axis, in axis order.
    pub values: Vec<toml::Value>,
    /// Repetition, from 0.
    pub rep: u32,
    /// The seed it runs with.
    pub seed: u64,
    /// How to rebuild it elsewhere.
    pub spec: CellSpec,
    /// Its validated design.
    pub design: CellDesign,
}

/// What one `exclude` or `where` rule did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleCount {
    /// The rule as messages show it (`exclude rule 1 { … }`).
    pub text: String,
    /// Cells (× repeat) it matched: excluded by an `exclude` rule, kept by a `where`.
    pub cells: u64,
}

/// A grid with every cell validated.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The grid.
    pub grid: Grid,
    /// Cells in grid order (after `exclude` / `where`).
    pub cells: Vec<Cell>,
    /// Each rule and the cells it matched, `exclude` rules first.
    pub rules: Vec<RuleCount>,
    /// Cells of the full product the rules dropped.
    pub excluded: u64,
}

/// What `v` reads as in a message: strings bare.
pub fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// A config error's own words (a parse error's origin is the overlay, not the user's).
fn reason(e: &ConfigError) -> String {
    match e {
        ConfigError::Parse {
            origin, message, ..
        } if origin == "command line" => message.clone(),
        e => e.to_string(),
    }
}

/// Most cells one sweep may hold (documented in docs/sweeps.md): a grid's cells are all
/// validated and kept in memory before the first runs.
pub const MAX_CELLS: u64 = 100_000;

/// Most combinations a grid with `exclude` / `where` rules may expand to before they
/// apply: the rules are checked against every combination, kept in memory.
pub const MAX_COMBINATIONS: u64 = 1_000_000;

impl Plan {
    /// Expands and validates `grid`. `parallel` cells are expected to run at once: the
    /// largest that many designs must fit in memory together.
    pub fn new(grid: Grid, parallel: usize) -> Result<Plan, PlanError> {
        // Counted before anything is built: a grid of four 100-value axes would
        // otherwise exhaust memory while expanding, even for --dry-run.
        let ruled = !(grid.exclude.is_empty() && grid.keep.is_empty());
        let too_many = |count: Option<u64>, what: &'static str, max: u64| PlanError::TooMany {
            origin: grid.origin.clone(),
            count,
            what,
            max,
        };
        let raw = grid.cell_count();
        if ruled {
            let combos = raw.map(|n| n / u64::from(grid.repeat));
            if combos.is_none_or(|n| n > MAX_COMBINATIONS) {
                return Err(too_many(
                    combos,
                    "combinations before its exclude/where rules",
                    MAX_COMBINATIONS,
                ));
            }
        } else if raw.is_none_or(|n| n > MAX_CELLS) {
            return Err(too_many(raw, "cells", MAX_CELLS));
        }
        // The rules drop combinations before anything is validated: an excluded pair
        // is never built, so it cannot refuse the grid.
        let repeat = u64::from(grid.repeat);
        let all = grid.combinations();
        let kept: Vec<&Vec<usize>> = all.iter().filter(|c| grid.kept(c)).collect();
        let mut rules = Vec::new();
        let mut errors = Vec::new();
        for r in grid.exclude.iter().chain(&grid.keep) {
            let n = all.iter().filter(|c| r.matches(c)).count() as u64;
            if n == 0 {
                // A typo in a rule must not silently exclude (or keep) nothing.
                errors.push(CellError::RuleMatchesNothing {
                    rule: r.text.clone(),
                });
            }
            rules.push(RuleCount {
                text: r.text.clone(),
                cells: n * repeat,
            });
        }
        if !errors.is_empty() {
            return Err(list(&grid.origin, errors));
        }
        if kept.is_empty() {
            return Err(PlanError::NothingLeft {
                origin: grid.origin.clone(),
                cells: all.len() as u64 * repeat,
            });
        }
        let excluded = (all.len() - kept.len()) as u64 * repeat;
        let n = kept.len() as u64 * repeat;
        if n > MAX_CELLS {
            return Err(too_many(
                Some(n),
                "cells after its exclude/where rules",
                MAX_CELLS,
            ));
        }
        // Each value alone over the base: unknown keys, wrong types and unknown names are
        // refused naming the axis and the value, whatever the other axes hold.
        for a in &grid.axes {
            for (i, v) in a.values.iter().enumerate() {
                // A value repeated on the axis (a zipped grid's) is checked once.
                if a.values[..i].contains(v) {
                    continue;
                }
                if let Some(reason) = Plan::overlay_refusal(&grid, &[(a, v)]) {
                    errors.push(CellError::AxisValue {
                        axis: a.name.clone(),
                        value: value_text(v),
                        reason,
                    });
                }
            }
        }
        if errors.is_empty() {
            // The base alone (with no axis it is the whole grid).
            if let Some(reason) = Plan::overlay_refusal(&grid, &[]) {
                errors.push(CellError::Base { reason });
            }
        }
        if !errors.is_empty() {
            return Err(list(&grid.origin, errors));
        }
        let mut cells = Vec::new();
        let mut refused = 0;
        for combo in kept {
            let chosen: Vec<_> = grid
                .axes
                .iter()
                .zip(combo.iter())
                .map(|(a, &i)| (a, &a.values[i]))
                .collect();
            for rep in 0..grid.repeat {
                // The cell's place in the grid (its row in the results and in --dry-run),
                // counting refused cells too, so a refusal names the cell the user
                // would count to; excluded combinations are not cells.
                let index = cells.len() + refused;
                match Plan::cell(&grid, &chosen, rep, index) {
                    Ok(c) => cells.push(c),
                    Err(e) => {
                        refused += 1;
                        errors.push(e);
                    }
                }
            }
        }
        if !errors.is_empty() {
            return Err(list(&grid.origin, errors));
        }
        // Cells run `parallel` at a time: the largest that many must fit together.
        let mut designs: Vec<&Design> = cells.iter().filter_map(|c| c.design.run()).collect();
        designs.sort_by_key(|d| std::cmp::Reverse(d.memory.total_bytes()));
        designs.truncate(parallel.max(1));
        let largest: Vec<Design> = designs.into_iter().cloned().collect();
        check_memory_together(&largest).map_err(|e| PlanError::Memory {
            origin: grid.origin.clone(),
            cells: largest.len(),
            reason: e.to_string(),
        })?;
        Ok(Plan {
            grid,
            cells,
            rules,
            excluded,
        })
    }

    /// The values the device could not take as asked (docs/config.md, "Requested and
    /// actual values"), one line per distinct warning with the cells it concerns
    /// (numbered from 1, as in the results). Empty when every cell gets what it asks for.
    pub fn actual_warnings(&self) -> Vec<String> {
        let mut by_message: Vec<(String, Vec<usize>)> = Vec::new();
        for c in &self.cells {
            let Some(d) = c.design.run() else { continue };
            for w in crate::config::actual::warnings(&d.config, &d.device) {
                match by_message.iter_mut().find(|(m, _)| *m == w) {
                    Some((_, cells)) => cells.push(c.index + 1),
                    None => by_message.push((w, vec![c.index + 1])),
                }
            }
        }
        by_message
            .into_iter()
            .map(|(m, cells)| {
                let shown: Vec<String> = cells.iter().take(8).map(usize::to_string).collect();
                let more = if cells.len() > 8 { ", …" } else { "" };
                format!(
                    "{} of {} cells ({}{more}): {m}",
                    cells.len(),
                    self.cells.len(),
                    shown.join(", ")
                )
            })
            .collect()
    }

    /// The overlay of the base with `chosen` axis values applied, and the preset.
    fn overlay(
        grid: &Grid,
        chosen: &[(&super::grid::Axis, &toml::Value)],
    ) -> (Option<String>, toml::Table) {
        let mut preset = grid.base.preset.clone();
        let mut overlay = grid.base.overlay.clone();
        for (a, v) in chosen {
            match &a.kind {
                AxisKind::Preset => preset = v.as_str().map(str::to_string),
                AxisKind::Trace => {
                    let p = trace_path(&grid.dir, v.as_str().unwrap_or_default());
                    set_key(&mut overlay, "trace.path", p.into());
                }
                k => set_key(
                    &mut overlay,
                    k.config_key().expect("only presets lack a key"),
                    (*v).clone(),
                ),
            }
        }
        (preset, overlay)
    }

    /// Why the base with `chosen` axis values makes no valid configuration of the
    /// grid's kind, in the configuration's own words; `None` when it makes one.
    fn overlay_refusal(
        grid: &Grid,
        chosen: &[(&super::grid::Axis, &toml::Value)],
    ) -> Option<String> {
        match grid.kind {
            CellKind::Run => Plan::overlay_config(grid, chosen).err().map(|e| reason(&e)),
            CellKind::Hybrid => {
                let (_, overlay) = Plan::overlay(grid, chosen);
                load_hybrid(grid.base.config.as_ref(), overlay)
                    .err()
                    .map(|e| e.to_string())
            }
        }
    }

    fn overlay_config(
        grid: &Grid,
        chosen: &[(&super::grid::Axis, &toml::Value)],
    ) -> Result<Config, ConfigError> {
        let (preset, overlay) = Plan::overlay(grid, chosen);
        Config::load_with(
            preset.as_deref(),
            grid.base
                .config
                .as_ref()
                .map(|(n, t)| (n.as_str(), t.as_str())),
            overlay,
        )
    }

    fn cell(
        grid: &Grid,
        chosen: &[(&super::grid::Axis, &toml::Value)],
        rep: u32,
        index: usize,
    ) -> Result<Cell, CellError> {
        let what = || {
            let mut s = format!("cell {}", index + 1);
            if !chosen.is_empty() || grid.repeat > 1 {
                let mut parts: Vec<String> = chosen
                    .iter()
                    .map(|(a, v)| format!("{}={}", a.name, value_text(v)))
                    .collect();
                if grid.repeat > 1 {
                    parts.push(format!("rep={rep}"));
                }
                s += &format!(" ({})", parts.join(", "));
            }
            s
        };
        if grid.kind == CellKind::Hybrid {
            return Plan::hybrid_cell(grid, chosen, rep, index, &what());
        }
        let (preset, mut overlay) = Plan::overlay(grid, chosen);
        let file = grid.base.config.clone();
        let load = |overlay: toml::Table| {
            Config::load_with(
                preset.as_deref(),
                file.as_ref().map(|(n, t)| (n.as_str(), t.as_str())),
                overlay,
            )
        };
        let blame = |e: ConfigError| {
            // Name the axis whose key the error is about, when there is one.
            let axis = e.key().and_then(|k| {
                chosen
                    .iter()
                    .find(|(a, _)| a.kind.config_key() == Some(k))
                    .map(|(a, _)| a.name.clone())
            });
            CellError::Config {
                cell: what(),
                axis,
                reason: reason(&e),
            }
        };
        let mut cfg = load(overlay.clone()).map_err(blame)?;
        if rep > 0 {
            let seed =
                cfg.seed
                    .checked_add(u64::from(rep))
                    .ok_or_else(|| CellError::SeedOverflow {
                        cell: what(),
                        seed: cfg.seed,
                        rep,
                    })?;
            // Through the overlay, so a worker rebuilding the spec gets the same seed.
            set_key(&mut overlay, "seed", toml::Value::Integer(seed as i64));
            cfg = load(overlay.clone()).map_err(blame)?;
        }
        if let Some(p) = &cfg.trace.path {
            check_trace(&what(), p)?;
        }
        let design = cfg.validate().map_err(blame)?;
        let key = cell_key(&cfg);
        Ok(Cell {
            index,
            values: chosen.iter().map(|(_, v)| (*v).clone()).collect(),
            rep,
            seed: cfg.seed,
            spec: CellSpec {
                key,
                kind: CellKind::Run,
                preset,
                config: file,
                overlay: toml::to_string(&overlay).expect("a TOML table serializes"),
            },
            design: CellDesign::Run(Box::new(design)),
        })
    }

    /// A hybrid cell: the base's hybrid configuration with `chosen` axis values
    /// ([`Plan::cell`]'s counterpart; `what` names the cell in messages).
    fn hybrid_cell(
        grid: &Grid,
        chosen: &[(&super::grid::Axis, &toml::Value)],
        rep: u32,
        index: usize,
        what: &str,
    ) -> Result<Cell, CellError> {
        let (_, mut overlay) = Plan::overlay(grid, chosen);
        let file = grid.base.config.as_ref();
        let load = |overlay: &toml::Table| {
            load_hybrid(file, overlay.clone()).map_err(|e| CellError::Config {
                cell: what.to_string(),
                axis: None,
                reason: e.to_string(),
            })
        };
        let mut cfg = load(&overlay)?;
        if rep > 0 {
            let seed =
                cfg.seed
                    .checked_add(u64::from(rep))
                    .ok_or_else(|| CellError::SeedOverflow {
                        cell: what.to_string(),
                        seed: cfg.seed,
                        rep,
                    })?;
            set_key(&mut overlay, "seed", toml::Value::Integer(seed as i64));
            cfg = load(&overlay)?;
        }
        if let Some(p) = &cfg.trace.path {
            check_trace(what, p)?;
        }
        Ok(Cell {
            index,
            values: chosen.iter().map(|(_, v)| (*v).clone()).collect(),
            rep,
            seed: cfg.seed,
            spec: CellSpec {
                key: hybrid_cell_key(&cfg),
                kind: CellKind::Hybrid,
                preset: None,
                config: grid.base.config.clone(),
                overlay: toml::to_string(&overlay).expect("a TOML table serializes"),
            },
            design: CellDesign::Hybrid(Box::new(cfg)),
        })
    }

    /// Distinct cell keys in grid order (two cells with the same design run once).
    pub fn keys(&self) -> Vec<&str> {
        let mut seen = std::collections::HashSet::new();
        self.cells
            .iter()
            .map(|c| c.spec.key.as_str())
            .filter(|k| seen.insert(*k))
            .collect()
    }
}

/// Refuses a trace that is not a readable regular file, naming the cell (`what`).
fn check_trace(what: &str, p: &Path) -> Result<(), CellError> {
    let refuse = |problem: String| CellError::Trace {
        cell: what.to_string(),
        path: p.to_path_buf(),
        problem,
    };
    match std::fs::metadata(p) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(_) => Err(refuse("not a regular file".into())),
        Err(e) => Err(refuse(format!("cannot read: {e}"))),
    }
}

fn list(origin: &str, errors: Vec<CellError>) -> PlanError {
    PlanError::Refused {
        origin: origin.to_string(),
        errors,
    }
}
