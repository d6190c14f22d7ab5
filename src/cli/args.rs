//! Argument groups shared by the commands, each defined once and flattened where used
//! (`#[command(flatten)]`): the SSD design, the generator, the trace, host settings,
//! `--config`/`--set`, and the report outputs. Each group turns the flags it was given
//! into a TOML overlay with [`set`], merged over preset and file by the library.

use super::CliError;
use super::registry;
use clap::Args;
use ssdlab::names;
use ssdlab::units::{Size, parse_count, wide_u64};
use std::path::PathBuf;

/// A comma list parsed into its elements. An alias, so clap's derive sees one value
/// (written `Vec<String>`, it would expect the flag repeated instead).
pub type List = Vec<String>;

/// Parses a size flag (`4KiB`, `1GiB`, …).
pub fn parse_size(s: &str) -> Result<Size, String> {
    s.parse::<Size>().map_err(|e| e.to_string())
}

/// A whole-number flag from `min` to `max` of type `T`. The error names the range:
/// clap's own parser says "invalid digit found in string" for `-1`, and without
/// [`super::command`]'s negative-number setting `-1` was not even read as a value.
/// No `_` digit separators: they are no documented syntax (`1_` was once read as 1).
pub fn whole<T>(min: u64, max: u64) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    move |s: &str| {
        s.trim()
            .parse::<u64>()
            .ok()
            .filter(|v| (min..=max).contains(v))
            .and_then(|v| T::try_from(v).ok())
            .ok_or_else(|| format!("expected a whole number from {min} to {max}"))
    }
}

/// A real-number flag from `min` to `max` (inclusive); `min_exclusive` excludes `min`
/// (a speed-up or a period must be positive).
pub fn real(
    min: f64,
    max: f64,
    min_exclusive: bool,
) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync {
    move |s: &str| {
        let ok =
            |v: f64| v.is_finite() && v <= max && if min_exclusive { v > min } else { v >= min };
        match s.trim().parse::<f64>() {
            Ok(v) if ok(v) => Ok(v),
            _ if min_exclusive && max == f64::MAX => Err(format!("expected a number above {min}")),
            _ if max == f64::MAX => Err(format!("expected a number from {min} up")),
            _ => Err(format!("expected a number from {min} to {max}")),
        }
    }
}

/// A comma list of sizes; an alias for the same reason as [`List`].
pub type Sizes = Vec<Size>;

/// Parses a comma list of sizes (`32MiB,64MiB`), each as [`parse_size`] does.
pub fn parse_sizes(s: &str) -> Result<Sizes, String> {
    s.split(',')
        .map(|x| parse_size(x.trim()).map_err(|e| format!("{:?}: {e}", x.trim())))
        .collect()
}

/// Sets the dotted key `path` of `t` to `v`, creating tables on the way.
pub fn set(t: &mut toml::Table, path: &str, v: impl Into<toml::Value>) {
    let mut cur = t;
    let mut parts: Vec<&str> = path.split('.').collect();
    let last = parts.pop().expect("non-empty key");
    for p in parts {
        let entry = cur
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if !entry.is_table() {
            *entry = toml::Value::Table(toml::Table::new());
        }
        cur = entry.as_table_mut().expect("table");
    }
    cur.insert(last.to_string(), v.into());
}

/// Sets `path` to `v` when the flag was given; sizes and names go in as strings,
/// numbers as numbers.
fn opt<V: Into<toml::Value>>(t: &mut toml::Table, path: &str, v: Option<V>) {
    if let Some(v) = v {
        set(t, path, v);
    }
}

fn size_str(v: Option<Size>) -> Option<String> {
    v.map(|s| s.to_string())
}

fn int<T: Into<i64>>(v: Option<T>) -> Option<i64> {
    v.map(Into::into)
}

/// The SSD design: device, FTL, GC, buffer, timing. `run`, `config`, `gen-trace` use
/// it, and so will any command that builds an SSD.
#[derive(Args, Debug, Default, Clone)]
#[command(next_help_heading = "Design")]
pub struct SsdArgs {
    /// Device preset (`ssdlab list` describes each).
    #[arg(long, value_name = "NAME", value_parser = registry::one_of(names::presets()))]
    pub preset: Option<String>,
    /// File system for a file workload (`yaffs2` on raw NAND, `ext2` or `fat` over the
    /// FTL); a comma list runs each side by side, e.g. --fs yaffs2,ext2,fat --ftl page,bast.
    #[arg(long, value_name = "NAME[,NAME…]", value_parser = registry::list_of(names::file_systems()))]
    pub fs: Option<List>,
    /// FTL; a comma list runs each side by side.
    #[arg(long, value_name = "NAME[,NAME…]", value_parser = registry::list_of(names::ftls()))]
    pub ftl: Option<List>,
    /// GC victim policy; a comma list compares.
    #[arg(long, value_name = "NAME[,NAME…]", value_parser = registry::list_of(names::gc_policies()))]
    pub gc: Option<List>,
    /// Write-buffer policy; a comma list compares.
    #[arg(long, value_name = "NAME[,NAME…]", value_parser = registry::list_of(names::buffers()))]
    pub buffer: Option<List>,
    /// Write-buffer size, e.g. 256MiB (default: the device's DRAM); a comma list
    /// compares, e.g. --buffer-size 32MiB,64MiB.
    #[arg(long, value_name = "SIZE[,SIZE…]", value_parser = parse_sizes)]
    pub buffer_size: Option<Sizes>,
    /// Device queue dispatch order with a buffer.
    #[arg(long, value_name = "ORDER", value_parser = registry::one_of(names::dispatch_orders()))]
    pub dispatch: Option<String>,
    /// Over-provisioning percent: (physical − logical) / logical.
    #[arg(long, value_name = "PERCENT", value_parser = real(0.0, f64::MAX, false))]
    pub op: Option<f64>,
    /// Logical capacity, e.g. 64GiB; a comma list compares.
    #[arg(long, value_name = "SIZE[,SIZE…]", value_parser = parse_sizes)]
    pub capacity: Option<Sizes>,
    /// Chip organisation.
    #[arg(long, value_name = "NAME", value_parser = registry::one_of(names::organisations()))]
    pub organisation: Option<String>,
    /// SSD management block size, e.g. 1MiB. Page FTL: the unit a by-address placement
    /// rewrites (default one page). Block-mapped FTLs: a superblock of k whole erase
    /// blocks on k planes (default one block). A comma list compares.
    #[arg(long, value_name = "SIZE[,SIZE…]", value_parser = parse_sizes)]
    pub mgmt_block: Option<Sizes>,
    /// Placement inside a management block: write-order (log structured) or by-address
    /// (fixed position; smaller writes rewrite the whole management block).
    #[arg(long, value_name = "NAME", value_parser = registry::one_of(names::placements()))]
    pub placement: Option<String>,
    /// Placement of a management block's pages (or a superblock's member blocks) over
    /// channels.
    #[arg(long, value_name = "NAME", value_parser = registry::one_of(names::channel_placements()))]
    pub channel_placement: Option<String>,
    /// Timing model.
    #[arg(long, value_name = "MODE", value_parser = registry::one_of(names::timing_modes()))]
    pub timing: Option<String>,
}

impl SsdArgs {
    /// Puts the single-valued flags into `t` (the comma lists, sizes included, make the
    /// designs).
    pub fn apply(&self, t: &mut toml::Table) {
        opt(t, "device.op_percent", self.op);
        opt(t, "device.organisation", self.organisation.clone());
        opt(t, "ftl.placement", self.placement.clone());
        opt(t, "ftl.channel_placement", self.channel_placement.clone());
        opt(t, "host.dispatch", self.dispatch.clone());
        opt(t, "timing.mode", self.timing.clone());
    }
}

/// Generator settings (`[workload]` of `run`, `[generator]` of `hybrid`).
#[derive(Args, Debug, Default, Clone)]
#[command(next_help_heading = "Workload")]
pub struct GeneratorArgs {
    /// Address range the generator uses (default: whole device; iozone: 1GiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub span: Option<Size>,
    /// Request size.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub size: Option<Size>,
    /// Largest request size: sizes are uniform in [--size, --size-max].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub size_max: Option<Size>,
    /// Requests per phase (per run for `hybrid`), e.g. 1M; with --trace, replay only the
    /// trace's first N requests.
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub requests: Option<u64>,
    /// Share of reads for mixed, zipf and hot-cold, percent.
    #[arg(long, value_name = "PERCENT", value_parser = real(0.0, 100.0, false))]
    pub read_percent: Option<f64>,
    /// Mean gap between generated arrivals (open loop), ns.
    #[arg(long, value_name = "NS", value_parser = whole::<u64>(0, u64::MAX))]
    pub mean_gap_ns: Option<u64>,
}

impl GeneratorArgs {
    /// Puts the flags that were given into table `table` of `t`.
    pub fn apply(&self, t: &mut toml::Table, table: &str) {
        let k = |key: &str| format!("{table}.{key}");
        opt(t, &k("span"), size_str(self.span));
        opt(t, &k("size"), size_str(self.size));
        opt(t, &k("size_max"), size_str(self.size_max));
        opt(t, &k("requests"), self.requests.map(wide_u64::value));
        opt(t, &k("read_percent"), self.read_percent);
        opt(t, &k("mean_gap_ns"), self.mean_gap_ns.map(wide_u64::value));
    }
}

/// A block trace and how to read it.
#[derive(Args, Debug, Default, Clone)]
#[command(next_help_heading = "Trace")]
pub struct TraceArgs {
    /// Block trace to replay instead of a generator.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Trace format (default: detect).
    #[arg(long, value_name = "NAME", ignore_case = true, value_parser = registry::one_of(names::trace_formats()))]
    pub format: Option<String>,
    /// Keep only this device / volume number of the trace.
    #[arg(long, value_name = "N", value_parser = whole::<u32>(0, u32::MAX.into()))]
    pub trace_device: Option<u32>,
    /// Trace requests past the end of the device (the disk, for `hybrid`).
    #[arg(long, value_name = "POLICY", value_parser = registry::one_of(names::trace_fits()))]
    pub trace_fit: Option<String>,
    /// Column spec of the generic csv format (see docs/traces.md).
    #[arg(long, value_name = "SPEC")]
    pub columns: Option<String>,
    /// File-operation trace (`time_ns op path [offset length]` lines, docs/fs.md) to
    /// replay on the file system of --fs.
    #[arg(long, value_name = "FILE")]
    pub file_trace: Option<PathBuf>,
    /// Trace replay speed-up (arrival gaps divided by this).
    #[arg(long, value_name = "X", value_parser = real(0.0, f64::MAX, true))]
    pub speedup: Option<f64>,
}

impl TraceArgs {
    /// Puts the flags that were given into `t` (`trace.*` and `host.speedup`).
    pub fn apply(&self, t: &mut toml::Table) {
        opt(
            t,
            "trace.path",
            self.trace.as_ref().map(|p| p.display().to_string()),
        );
        opt(
            t,
            "trace.format",
            self.format.as_ref().map(|f| f.to_lowercase()),
        );
        opt(t, "trace.device", int(self.trace_device));
        opt(t, "trace.fit", self.trace_fit.clone());
        opt(t, "trace.columns", self.columns.clone());
        opt(
            t,
            "fs.trace",
            self.file_trace.as_ref().map(|p| p.display().to_string()),
        );
        opt(t, "host.speedup", self.speedup);
    }
}

/// Host queue and seed.
#[derive(Args, Debug, Default, Clone)]
#[command(next_help_heading = "Host")]
pub struct HostArgs {
    /// Host queue depth: requests outstanding (1–512).
    #[arg(long, value_name = "N", value_parser = whole::<u32>(0, u32::MAX.into()))]
    pub qd: Option<u32>,
    /// Random seed (every result is a function of config + seed).
    #[arg(long, value_name = "N", value_parser = whole::<u64>(0, u64::MAX))]
    pub seed: Option<u64>,
}

impl HostArgs {
    /// Puts the flags that were given into `t`.
    pub fn apply(&self, t: &mut toml::Table) {
        opt(t, "host.qd", int(self.qd));
        opt(t, "seed", self.seed.map(wide_u64::value));
    }
}

/// A TOML file and `--set` overrides.
#[derive(Args, Debug, Default, Clone)]
#[command(next_help_heading = "Configuration")]
pub struct SettingsArgs {
    /// TOML configuration file; flags override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Any config key, e.g. --set ftl.gc_low_free_blocks=4 or (hybrid) --set
    /// hdd.rpm=10000 (repeatable; docs/config.md lists the keys).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Run even when the memory estimate exceeds the memory available (the same as --set
    /// run.allow_memory=true); without it such a run is refused before it starts.
    #[arg(long)]
    pub allow_memory: bool,
}

impl SettingsArgs {
    /// The `--config` file as (name for messages, text).
    pub fn read_file(&self) -> Result<Option<(String, String)>, CliError> {
        let Some(p) = &self.config else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(p)
            .map_err(|e| CliError::Input(format!("--config {}: cannot read: {e}", p.display())))?;
        Ok(Some((p.display().to_string(), text)))
    }

    /// Puts every `--set KEY=VALUE` into `t`: a TOML literal if VALUE parses as one
    /// (numbers, booleans, quoted strings, arrays), otherwise a bare string.
    pub fn apply(&self, t: &mut toml::Table) -> Result<(), CliError> {
        for kv in &self.set {
            let (k, v) = kv.split_once('=').ok_or_else(|| {
                CliError::Input(format!(
                    "--set {kv}: expected KEY=VALUE, e.g. --set ftl.gc_low_free_blocks=4"
                ))
            })?;
            let value = toml::from_str::<toml::Table>(&format!("v = {v}"))
                .ok()
                .and_then(|mut t| t.remove("v"))
                .unwrap_or_else(|| toml::Value::String(v.to_string()));
            set(t, k.trim(), value);
        }
        if self.allow_memory {
            set(t, "run.allow_memory", toml::Value::Boolean(true));
        }
        Ok(())
    }
}

/// The report outputs of a run (`run`, `hybrid`).
#[derive(Args, Debug, Default, Clone)]
#[command(next_help_heading = "Output")]
pub struct ReportArgs {
    /// Write the JSON report here (`-` = standard output instead of the table).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Shape of the --json report: `ssdlab` (the full report, docs/outputs.md) or
    /// `fio` (fio 3.x `--output-format=json`: one job per design, for fio tooling).
    #[arg(long, value_name = "FORMAT", default_value = "ssdlab", value_parser = ["ssdlab", "fio"])]
    pub json_format: String,
    /// Write the CSV table (one row per design and phase or run) here (`-` = standard
    /// output instead of the table).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// No table on standard output.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The comma lists of a flag, or one "not given" entry, for building the product of
/// the lists.
pub fn choices<T: Clone>(v: &Option<Vec<T>>) -> Vec<Option<T>> {
    match v {
        None => vec![None],
        Some(l) => l.iter().cloned().map(Some).collect(),
    }
}
