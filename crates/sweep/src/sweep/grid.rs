//! The grid file: a base design, axes over config keys, workloads, traces, presets and
//! seeds, combined as a cartesian product and/or zipped, and repetitions. Parsed here
//! into a [`Grid`]; [`super::plan`] expands and validates it.
//!
//! ```toml
//! repeat = 2                       # each cell twice, seeds seed and seed + 1
//!
//! [base]                           # what `ssdlab run` would take
//! # kind = "hybrid"                # cells of `ssdlab hybrid` instead (keys as its --set)
//! preset = "ssd-a"
//! config = "my.toml"               # relative to the grid file
//! workload = "random-write"
//! set = { "workload.requests" = 20000, "device.capacity" = "1GiB" }
//!
//! [[axis]]
//! key = "ftl.name"                 # any config key, or workload / trace / preset / seed
//! values = ["page", "dftl"]
//!
//! [[axis]]
//! key = "trace"
//! values = ["traces/*.csv"]        # globs expand (sorted) relative to the grid file
//! group = "t"                      # axes of one group are zipped, groups multiplied
//!
//! exclude = [{ "ftl.name" = "dftl", "ftl.gc" = "fifo" }]   # drop these combinations
//! # where = [{ "ftl.name" = "page" }, { "ftl.gc" = "greedy" }]  # keep only these
//! ```

use super::error::GridError;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// What an axis sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AxisKind {
    /// `preset`: the device preset (the layer under the config file).
    Preset,
    /// `workload`: the generator (`workload.kind`).
    Workload,
    /// `trace`: a trace file (`trace.path`); values may be globs.
    Trace,
    /// `seed`: the random seed.
    Seed,
    /// Any dotted config key, e.g. `ftl.gc` (`--set` reaches the same keys).
    Key(String),
}

impl AxisKind {
    fn of(key: &str) -> AxisKind {
        match key {
            "preset" | "device.preset" => AxisKind::Preset,
            "workload" => AxisKind::Workload,
            "trace" => AxisKind::Trace,
            "seed" => AxisKind::Seed,
            k => AxisKind::Key(k.to_string()),
        }
    }

    /// The config key the axis sets in the overlay (`None` for the preset, which is a
    /// layer of its own).
    pub fn config_key(&self) -> Option<&str> {
        match self {
            AxisKind::Preset => None,
            AxisKind::Workload => Some("workload.kind"),
            AxisKind::Trace => Some("trace.path"),
            AxisKind::Seed => Some("seed"),
            AxisKind::Key(k) => Some(k),
        }
    }
}

/// One axis: a key and its values (traces already expanded from their globs).
#[derive(Clone, Debug)]
pub struct Axis {
    /// The key as the grid names it: the column name in the results.
    pub name: String,
    /// What it sets.
    pub kind: AxisKind,
    /// Values in order.
    pub values: Vec<toml::Value>,
    /// Zip group: axes of one group advance together.
    pub group: String,
}

/// The base design every cell starts from.
#[derive(Clone, Debug, Default)]
pub struct Base {
    /// Preset name.
    pub preset: Option<String>,
    /// A config file: (name for messages, TOML text).
    pub config: Option<(String, String)>,
    /// Keys set on top (`workload`, `trace`, `seed` and `set`), as a TOML overlay.
    pub overlay: toml::Table,
}

/// An `exclude` or `where` rule: a cell matches when, for every axis the rule names, the
/// cell's value is one of the rule's values for it.
#[derive(Clone, Debug)]
pub struct Rule {
    /// `exclude rule 2 { ftl.name = "dftl", ftl.gc = "fifo" }`, for messages.
    pub text: String,
    /// (axis position, the positions of the values that match) for each axis named.
    pub conds: Vec<(usize, Vec<usize>)>,
}

impl Rule {
    /// Whether the combination `combo` (a value position per axis) matches.
    pub fn matches(&self, combo: &[usize]) -> bool {
        self.conds.iter().all(|(a, vs)| vs.contains(&combo[*a]))
    }
}

/// Whether a rule's value names an axis value: equal TOML values, the same text
/// (`64MiB` and "64MiB"), or the same number written as integer or float.
fn same(rule: &toml::Value, axis: &toml::Value) -> bool {
    use toml::Value::{Float, Integer};
    match (rule, axis) {
        (Integer(a), Float(b)) | (Float(b), Integer(a)) => (*a as f64) == *b,
        (a, b) => a == b || super::plan::value_text(a) == super::plan::value_text(b),
    }
}

/// Parses one `exclude` / `where` table against the axes.
fn rule(
    origin: &str,
    kind: &str,
    i: usize,
    table: &toml::Table,
    axes: &[Axis],
) -> Result<Rule, GridError> {
    let body: Vec<String> = table.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    let text = format!("{kind} rule {} {{ {} }}", i + 1, body.join(", "));
    let refuse = |problem: String| GridError::Refused {
        origin: origin.to_string(),
        at: text.clone(),
        problem,
    };
    if table.is_empty() {
        return Err(refuse(
            "empty; expected axis keys and values, e.g. { \"ftl.name\" = \"dftl\", \"ftl.gc\" = \"fifo\" }".into(),
        ));
    }
    let mut conds = Vec::new();
    for (k, v) in table {
        let Some(a) = axes.iter().position(|a| a.name == *k) else {
            let names: Vec<&str> = axes.iter().map(|a| a.name.as_str()).collect();
            return Err(refuse(format!(
                "`{k}` is not an axis of the grid; expected one of: {}",
                if names.is_empty() {
                    "(no axes)".to_string()
                } else {
                    names.join(", ")
                }
            )));
        };
        let axis = &axes[a];
        // A list names several values of the axis, unless the list is itself one of
        // the axis's values.
        let wanted: Vec<&toml::Value> = match v {
            toml::Value::Array(l) if !axis.values.iter().any(|x| same(v, x)) => l.iter().collect(),
            v => vec![v],
        };
        let mut positions = Vec::new();
        for w in wanted {
            let Some(p) = axis.values.iter().position(|x| same(w, x)) else {
                let vals: Vec<String> = axis.values.iter().map(|x| x.to_string()).collect();
                return Err(refuse(format!(
                    "{w} is not a value of axis `{k}`; expected one of: {}",
                    vals.join(", ")
                )));
            };
            positions.push(p);
        }
        conds.push((a, positions));
    }
    Ok(Rule { text, conds })
}

/// A parsed grid file.
#[derive(Clone, Debug)]
pub struct Grid {
    /// Where it came from, for messages.
    pub origin: String,
    /// What every cell runs (`base.kind`).
    pub kind: super::plan::CellKind,
    /// The base design.
    pub base: Base,
    /// Axes in file order.
    pub axes: Vec<Axis>,
    /// Repetitions of every cell (seed, seed + 1, …).
    pub repeat: u32,
    /// Directory relative trace paths start from (the grid file's).
    pub dir: PathBuf,
    /// Combinations dropped before cells are counted or validated.
    pub exclude: Vec<Rule>,
    /// When not empty, only combinations matching one of these are kept.
    pub keep: Vec<Rule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GridFile {
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    repeat: Option<i64>,
    #[serde(default)]
    base: BaseFile,
    #[serde(default)]
    axis: Vec<AxisFile>,
    #[serde(default)]
    exclude: Vec<toml::Table>,
    #[serde(default, rename = "where")]
    keep: Vec<toml::Table>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct BaseFile {
    kind: Option<String>,
    preset: Option<String>,
    config: Option<String>,
    workload: Option<String>,
    trace: Option<String>,
    seed: Option<i64>,
    #[serde(default)]
    set: toml::Table,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AxisFile {
    key: String,
    values: Vec<toml::Value>,
    group: Option<String>,
}

/// Resolves `p` against the grid file's directory.
fn relative(dir: &Path, p: &str) -> PathBuf {
    let path = Path::new(p);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        dir.join(path)
    }
}

/// The path a trace value names, absolute when the file exists, so that a cell's key
/// does not depend on the directory the sweep was started from.
pub fn trace_path(dir: &Path, value: &str) -> String {
    let p = relative(dir, value);
    std::fs::canonicalize(&p).unwrap_or(p).display().to_string()
}

/// Shows a path as the user would type it: relative to the grid's directory when it
/// was given that way.
fn show(dir: &Path, p: &Path) -> String {
    if dir.as_os_str().is_empty() {
        p.display().to_string()
    } else {
        p.strip_prefix(dir).unwrap_or(p).display().to_string()
    }
}

/// Expands one trace value: a glob (sorted matches; at least one) or a plain path.
fn expand_trace(
    origin: &str,
    dir: &Path,
    pattern: &str,
    axis: &str,
) -> Result<Vec<PathBuf>, GridError> {
    let full = relative(dir, pattern);
    let text = full.to_string_lossy().to_string();
    if !pattern.contains(['*', '?', '[']) {
        return Ok(vec![full]);
    }
    let refuse = |problem: String| GridError::Refused {
        origin: origin.to_string(),
        at: format!("axis `{axis}`"),
        problem,
    };
    let paths = glob::glob(&text)
        .map_err(|e| refuse(format!("pattern {pattern:?}: {e}")))?
        .filter_map(Result::ok)
        .filter(|p| p.is_file())
        .collect::<Vec<_>>();
    if paths.is_empty() {
        return Err(refuse(format!(
            "pattern {pattern:?} matches no file (looked in {})",
            full.parent().unwrap_or(dir).display()
        )));
    }
    let mut paths = paths;
    paths.sort();
    Ok(paths)
}

/// The base layer of every cell: preset, config file, `set` keys and shorthands.
fn base_layer(b: BaseFile, origin: &str, dir: &Path, hybrid: bool) -> Result<Base, GridError> {
    if hybrid && b.preset.is_some() {
        return Err(GridError::Refused {
            origin: origin.to_string(),
            at: "base.preset".into(),
            problem: "a hybrid grid has no device preset layer; set \"hdd.preset\" or \
                      \"flash.device.preset\" in base.set or on an axis"
                .into(),
        });
    }
    let mut base = Base {
        preset: b.preset,
        config: None,
        overlay: toml::Table::new(),
    };
    if let Some(c) = &b.config {
        let p = relative(dir, c);
        let text = std::fs::read_to_string(&p).map_err(|e| GridError::Refused {
            origin: origin.to_string(),
            at: format!("base.config {}", p.display()),
            problem: format!("cannot read: {e}"),
        })?;
        base.config = Some((p.display().to_string(), text));
    }
    // The `set` keys first, then the shorthands (which win, as flags do over --set).
    for (k, v) in b.set {
        if let toml::Value::Table(t) = v {
            // A nested table (`[base.set.ftl]`) is the same keys written another way.
            let mut sub = toml::Table::new();
            sub.insert(k, toml::Value::Table(t));
            for (kk, vv) in crate::config::leaves(&sub) {
                crate::config::set_key(&mut base.overlay, &kk, vv);
            }
        } else {
            crate::config::set_key(&mut base.overlay, &k, v);
        }
    }
    if let Some(w) = b.workload {
        crate::config::set_key(&mut base.overlay, "workload.kind", w.into());
    }
    if let Some(t) = b.trace {
        let p = trace_path(dir, &t);
        crate::config::set_key(&mut base.overlay, "trace.path", p.into());
    }
    if let Some(s) = b.seed {
        crate::config::set_key(&mut base.overlay, "seed", s.into());
    }
    Ok(base)
}

/// The axes in file order: keys checked, trace globs expanded, values checked against
/// the key's kind, each given its zip group.
fn read_axes(
    files: Vec<AxisFile>,
    origin: &str,
    dir: &Path,
    zip_all: bool,
    hybrid: bool,
) -> Result<Vec<Axis>, GridError> {
    let mut axes: Vec<Axis> = Vec::new();
    for (i, a) in files.into_iter().enumerate() {
        let name = a.key.trim().to_string();
        let refuse = |problem: String| GridError::Refused {
            origin: origin.to_string(),
            at: format!("axis {} (`{name}`)", i + 1),
            problem,
        };
        if name.is_empty() {
            return Err(refuse(
                "key is empty; expected a config key such as ftl.gc, or workload, trace, preset, seed".into(),
            ));
        }
        if axes.iter().any(|b| b.name == name) {
            return Err(refuse("the key appears on two axes".into()));
        }
        if a.values.is_empty() {
            return Err(refuse(
                "values is empty; expected at least one value".into(),
            ));
        }
        let kind = AxisKind::of(&name);
        if hybrid && kind == AxisKind::Preset {
            return Err(refuse(
                "a hybrid grid has no device preset layer; use the key hdd.preset or \
                 flash.device.preset"
                    .into(),
            ));
        }
        let mut values = Vec::new();
        for v in a.values {
            match (&kind, v) {
                (AxisKind::Trace, toml::Value::String(s)) => {
                    for p in expand_trace(origin, dir, &s, &name)? {
                        values.push(toml::Value::String(show(dir, &p)));
                    }
                }
                (AxisKind::Preset | AxisKind::Workload | AxisKind::Trace, v) if !v.is_str() => {
                    return Err(refuse(format!("value {v}: expected a name (a string)")));
                }
                (AxisKind::Seed, v) if v.as_integer().is_none_or(|s| s < 0) => {
                    return Err(refuse(format!(
                        "value {v}: expected a non-negative integer seed"
                    )));
                }
                (AxisKind::Key(_), toml::Value::Table(_)) => {
                    return Err(refuse(
                        "a value is a table; expected one value of the key (a string, number, boolean or array)".into(),
                    ));
                }
                (_, v) => values.push(v),
            }
        }
        let group = match (zip_all, a.group) {
            (true, _) => "all".to_string(),
            (false, Some(g)) => g,
            (false, None) => format!("axis {}", i + 1),
        };
        axes.push(Axis {
            name,
            kind,
            values,
            group,
        });
    }
    Ok(axes)
}

/// Zipped axes advance together: equal lengths.
fn check_zipped(axes: &[Axis], origin: &str) -> Result<(), GridError> {
    for a in axes {
        if let Some(b) = axes
            .iter()
            .find(|b| b.group == a.group && b.values.len() != a.values.len())
        {
            return Err(GridError::Zipped {
                origin: origin.to_string(),
                a: a.name.clone(),
                a_len: a.values.len(),
                b: b.name.clone(),
                b_len: b.values.len(),
            });
        }
    }
    Ok(())
}

impl Grid {
    /// Reads a grid file; paths in it are relative to its directory.
    pub fn load(path: &Path) -> Result<Grid, GridError> {
        let text = std::fs::read_to_string(path).map_err(|e| GridError::Read {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let table: toml::Table = toml::from_str(&text).map_err(|e| GridError::Syntax {
            origin: path.display().to_string(),
            message: e.to_string(),
        })?;
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        Grid::from_table(table, &path.display().to_string(), &dir)
    }

    /// Builds a grid from its TOML form (a file's, or a Python dict's); `origin` names it
    /// in messages and `dir` anchors relative paths.
    pub fn from_table(table: toml::Table, origin: &str, dir: &Path) -> Result<Grid, GridError> {
        let f =
            GridFile::deserialize(toml::Value::Table(table)).map_err(|e| GridError::Syntax {
                origin: origin.to_string(),
                message: e.to_string().trim_end().to_string(),
            })?;
        let value = |key: &'static str, value: String, expected: &'static str| GridError::Value {
            origin: origin.to_string(),
            key,
            value,
            expected,
        };
        let zip_all = match f.mode.as_deref() {
            None | Some("product") => false,
            Some("zip") => true,
            Some(m) => {
                return Err(value(
                    "mode",
                    format!("{m:?}"),
                    "\"product\" (every combination) or \"zip\" (the axes advance together)",
                ));
            }
        };
        let repeat = match f.repeat {
            None => 1,
            Some(r) if (1..=100_000).contains(&r) => r as u32,
            Some(r) => {
                return Err(value(
                    "repeat",
                    r.to_string(),
                    "1..=100000 repetitions of each cell",
                ));
            }
        };
        let kind = match f.base.kind.as_deref() {
            None => super::plan::CellKind::Run,
            Some(k) => super::plan::CellKind::parse(k).ok_or_else(|| {
                value(
                    "base.kind",
                    format!("{k:?}"),
                    "\"run\" (cells of `ssdlab run`, the default) or \"hybrid\" (cells of \
                     `ssdlab hybrid`)",
                )
            })?,
        };
        let hybrid = kind == super::plan::CellKind::Hybrid;
        let base = base_layer(f.base, origin, dir, hybrid)?;
        let axes = read_axes(f.axis, origin, dir, zip_all, hybrid)?;
        check_zipped(&axes, origin)?;
        let mut exclude = Vec::new();
        for (i, t) in f.exclude.iter().enumerate() {
            exclude.push(rule(origin, "exclude", i, t, &axes)?);
        }
        let mut keep = Vec::new();
        for (i, t) in f.keep.iter().enumerate() {
            keep.push(rule(origin, "where", i, t, &axes)?);
        }
        Ok(Grid {
            origin: origin.to_string(),
            kind,
            base,
            axes,
            repeat,
            dir: dir.to_path_buf(),
            exclude,
            keep,
        })
    }

    /// Cells the grid expands to (combinations × repeat) before `exclude` and `where`,
    /// counted without building them; `None` when the count does not fit 64 bits.
    pub fn cell_count(&self) -> Option<u64> {
        let mut groups: Vec<(&str, u64)> = Vec::new();
        for a in &self.axes {
            if !groups.iter().any(|(g, _)| *g == a.group) {
                groups.push((&a.group, a.values.len() as u64));
            }
        }
        groups
            .iter()
            .try_fold(1u64, |n, (_, len)| n.checked_mul(*len))?
            .checked_mul(u64::from(self.repeat))
    }

    /// Whether the combination survives the `exclude` and `where` rules.
    pub fn kept(&self, combo: &[usize]) -> bool {
        !self.exclude.iter().any(|r| r.matches(combo))
            && (self.keep.is_empty() || self.keep.iter().any(|r| r.matches(combo)))
    }

    /// The value of every axis for each combination, in order: groups multiply (first
    /// axis slowest), axes of a group advance together. Rules not applied.
    pub fn combinations(&self) -> Vec<Vec<usize>> {
        let mut groups: Vec<(&str, usize)> = Vec::new();
        for a in &self.axes {
            if !groups.iter().any(|(g, _)| *g == a.group) {
                groups.push((&a.group, a.values.len()));
            }
        }
        let mut out = vec![Vec::new()];
        for (_, len) in &groups {
            out = out
                .into_iter()
                .flat_map(|prefix: Vec<usize>| {
                    (0..*len).map(move |i| {
                        let mut p = prefix.clone();
                        p.push(i);
                        p
                    })
                })
                .collect();
        }
        out.into_iter()
            .map(|g| {
                self.axes
                    .iter()
                    .map(|a| {
                        let gi = groups
                            .iter()
                            .position(|(n, _)| *n == a.group)
                            .expect("group");
                        g[gi]
                    })
                    .collect()
            })
            .collect()
    }
}
