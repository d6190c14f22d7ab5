//! Command-line interface: flags and TOML resolved into one [`Config`], runs, outputs.
//!
//! Every bad input ends in [`CliError::Input`] (exit code 2) with a message that names
//! the file, line or flag and what was expected; nothing is written before a run succeeds.

use crate::buffer::BufferKind;
use crate::config::{Config, PRESETS};
use crate::experiments;
use crate::ftl::FtlKind;
use crate::ftl::gc::GcPolicyKind;
use crate::host::DispatchOrder;
use crate::report::{Report, csv_out, json, output, svg, text};
use crate::sim::{RunOptions, SimError, run_design};
use crate::units::{Size, parse_count};
use crate::workload::synth;
use clap::{Args, Parser, Subcommand};
use rayon::prelude::*;
use std::io::Write;
use std::path::PathBuf;

/// Errors the binary maps to exit codes.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad input (exit 2).
    #[error("{0}")]
    Input(String),
    /// Could not write an output (exit 1).
    #[error("{0}")]
    Output(String),
}

impl CliError {
    /// Process exit code.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Input(_) => 2,
            CliError::Output(_) => 1,
        }
    }
}

impl From<SimError> for CliError {
    fn from(e: SimError) -> Self {
        CliError::Input(e.to_string())
    }
}

const ABOUT: &str =
    "ssdlab — a fast simulator of SSD firmware designs (NAND, FTLs, GC, wear leveling, timing)";

const AFTER_HELP: &str = "\
Examples:
  ssdlab run                                    built-in TLC NVMe device, IOZone-like suite
  ssdlab run --preset ssd-a --workload random-write --span 8GiB --requests 1M --qd 32
  ssdlab run --gc greedy,fifo,cost-benefit --fill --workload random-write --capacity 4GiB
  ssdlab run --buffer lru,qlru --buffer-size 64MiB --qd 256 --workload zipf --read-percent 0
  ssdlab run --trace trace.csv --format msr --trace-fit wrap --json out.json --svg figs/
  ssdlab list                                   presets, FTLs, GC policies, workloads, formats
  ssdlab config --preset ssd-c                  print a preset as a TOML file to edit
  ssdlab reproduce --list                       paper reproductions (CSV, SVG, Markdown)";

/// Top-level command line.
#[derive(Parser, Debug)]
#[command(name = "ssdlab", version, about = ABOUT, after_help = AFTER_HELP)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Simulate a workload (generator or trace) on one or more designs.
    Run(RunArgs),
    /// List presets, FTLs, GC policies, workloads and trace formats.
    List,
    /// Print the resolved configuration as TOML (a starting point for --config).
    Config(ConfigArgs),
    /// Write a synthetic workload as an ASCII trace (`time_ns dev lba size op`).
    GenTrace(GenTraceArgs),
    /// Run a workload on an HDD alone and behind a flash cache (Kim et al. 2011).
    #[command(after_help = crate::hybrid::cli::AFTER_HELP)]
    Hybrid(crate::hybrid::cli::HybridArgs),
    /// Rebuild a source paper's experiment: CSV tables, SVG figures and a Markdown
    /// summary with the paper's numbers beside ours.
    #[command(after_help = REPRODUCE_HELP)]
    Reproduce(ReproduceArgs),
}

const REPRODUCE_HELP: &str = "\
Examples:
  ssdlab reproduce --list                       experiments and what each rebuilds
  ssdlab reproduce android-ftl --out results/android
  ssdlab reproduce cftl --out results/cftl --quick   smaller sizes, seconds instead of minutes

Nothing is written unless the whole experiment succeeds.";

/// `ssdlab reproduce` flags.
#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Experiment name (see --list).
    #[arg(value_name = "NAME", required_unless_present = "list")]
    pub name: Option<String>,
    /// Directory for the CSV, SVG and Markdown outputs (created if missing).
    #[arg(long, value_name = "DIR", required_unless_present = "list")]
    pub out: Option<PathBuf>,
    /// Smaller devices and shorter workloads (the summary says so).
    #[arg(long)]
    pub quick: bool,
    /// Base seed of every run.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// List the experiments.
    #[arg(long)]
    pub list: bool,
}

/// Flags that pick and adjust the design and workload.
#[derive(Args, Debug, Default, Clone)]
pub struct DesignArgs {
    /// Device preset (see `ssdlab list`).
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
    /// TOML configuration file; flags override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// FTL; a comma list runs each side by side.
    #[arg(long, value_name = "NAME[,NAME…]")]
    pub ftl: Option<String>,
    /// GC victim policy: greedy, cost-benefit, fifo, d-choices; a comma list compares.
    #[arg(long, value_name = "NAME[,NAME…]")]
    pub gc: Option<String>,
    /// Write-buffer policy: none, lru, lfu, fab, bplru, clc, bpac, exlru, qlru; a comma
    /// list compares.
    #[arg(long, value_name = "NAME[,NAME…]")]
    pub buffer: Option<String>,
    /// Write-buffer size, e.g. 256MiB (default: the device's DRAM).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub buffer_size: Option<Size>,
    /// Device queue dispatch order with a buffer: fifo, hits-first.
    #[arg(long, value_name = "ORDER")]
    pub dispatch: Option<String>,
    /// Over-provisioning percent: (physical − logical) / logical.
    #[arg(long, value_name = "PERCENT")]
    pub op: Option<f64>,
    /// Logical capacity, e.g. 64GiB.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub capacity: Option<Size>,
    /// Chip organisation: shared-bus, shared-control, channels.
    #[arg(long, value_name = "NAME")]
    pub organisation: Option<String>,
    /// SSD management block size, e.g. 1MiB. Page FTL: the unit a by-address placement
    /// rewrites (default one page). nftl/bast/fast/faster/aftl/cftl: a superblock of k
    /// whole erase blocks on k planes (default one block).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub mgmt_block: Option<Size>,
    /// Placement inside a management block: write-order (log structured) or by-address
    /// (fixed position; smaller writes rewrite the whole management block).
    #[arg(long, value_name = "NAME")]
    pub placement: Option<String>,
    /// Placement of a management block's pages (or a superblock's member blocks):
    /// striped (over channels) or one-channel.
    #[arg(long, value_name = "NAME")]
    pub channel_placement: Option<String>,
    /// Generator: seq-write, seq-read, random-write, random-read, mixed, zipf, hot-cold, iozone.
    #[arg(long, value_name = "NAME")]
    pub workload: Option<String>,
    /// Address range the generator uses (default: whole device; iozone: 1GiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub span: Option<Size>,
    /// Request size.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub size: Option<Size>,
    /// Largest request size: sizes are uniform in [--size, --size-max].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub size_max: Option<Size>,
    /// Requests per phase, e.g. 1M.
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub requests: Option<u64>,
    /// Share of reads for mixed, zipf and hot-cold, percent.
    #[arg(long, value_name = "PERCENT")]
    pub read_percent: Option<f64>,
    /// Mean gap between generated arrivals (open loop), ns.
    #[arg(long, value_name = "NS")]
    pub mean_gap_ns: Option<u64>,
    /// Block trace and how to read it.
    #[command(flatten)]
    pub trace: TraceArgs,
    /// Precondition: write the whole logical space once first.
    #[arg(long)]
    pub fill: bool,
    /// Precondition: fill, then random overwrites until write amplification settles.
    #[arg(long)]
    pub steady: bool,
    /// Host queue depth (1–512).
    #[arg(long, value_name = "N")]
    pub qd: Option<u32>,
    /// Random seed (every result is a function of config + seed).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Timing model: full (channels/dies) or count (the papers' elapsed-time formula).
    #[arg(long, value_name = "MODE")]
    pub timing: Option<String>,
    /// Any config key, e.g. --set ftl.gc_low_free_blocks=4 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// Flags that pick a block trace and say how to read it (`ssdlab run` and `ssdlab
/// hybrid` share them).
#[derive(Args, Debug, Default, Clone)]
pub struct TraceArgs {
    /// Block trace to replay instead of a generator.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Trace format: msr, ascii, disksim, blkparse, tencent, heimdall, csv (default: detect).
    #[arg(long, value_name = "NAME")]
    pub format: Option<String>,
    /// Keep only this device / volume number of the trace.
    #[arg(long, value_name = "N")]
    pub trace_device: Option<u32>,
    /// Trace requests past the end of the device (the disk, for `hybrid`): reject, wrap,
    /// scale.
    #[arg(long, value_name = "POLICY")]
    pub trace_fit: Option<String>,
    /// Column spec of the generic csv format (see docs/traces.md).
    #[arg(long, value_name = "SPEC")]
    pub columns: Option<String>,
    /// Trace replay speed-up (arrival gaps divided by this).
    #[arg(long, value_name = "X")]
    pub speedup: Option<f64>,
}

impl TraceArgs {
    /// Puts the flags that were given into `t` (`trace.*` and `host.speedup`).
    pub fn apply(&self, t: &mut toml::Table) {
        if let Some(v) = &self.trace {
            set(t, "trace.path", s(v.display()));
        }
        if let Some(v) = &self.format {
            set(t, "trace.format", s(v));
        }
        if let Some(v) = self.trace_device {
            set(t, "trace.device", toml::Value::Integer(v as i64));
        }
        if let Some(v) = &self.trace_fit {
            set(t, "trace.fit", s(v));
        }
        if let Some(v) = &self.columns {
            set(t, "trace.columns", s(v));
        }
        if let Some(v) = self.speedup {
            set(t, "host.speedup", toml::Value::Float(v));
        }
    }
}

/// `ssdlab run` flags.
#[derive(Args, Debug, Default)]
pub struct RunArgs {
    /// Design and workload.
    #[command(flatten)]
    pub design: DesignArgs,
    /// Write the JSON report here (`-` = stdout instead of the table).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write one CSV row per design and phase here.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write SVG figures (latency CDF, throughput, erase histogram) into this directory.
    #[arg(long, value_name = "DIR")]
    pub svg: Option<PathBuf>,
    /// No table on stdout.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `ssdlab config` flags.
#[derive(Args, Debug)]
pub struct ConfigArgs {
    /// Design and workload.
    #[command(flatten)]
    pub design: DesignArgs,
}

/// `ssdlab gen-trace` flags.
#[derive(Args, Debug)]
pub struct GenTraceArgs {
    /// Design and workload (the device sets the capacity).
    #[command(flatten)]
    pub design: DesignArgs,
    /// Output file.
    #[arg(long, short, value_name = "FILE")]
    pub out: PathBuf,
}

fn parse_size(s: &str) -> Result<Size, String> {
    s.parse::<Size>().map_err(|e| e.to_string())
}

/// Sets the dotted key `path` of `t` to `v`, creating tables on the way.
pub(crate) fn set(t: &mut toml::Table, path: &str, v: toml::Value) {
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
    cur.insert(last.to_string(), v);
}

/// A TOML string value.
pub(crate) fn s(v: impl ToString) -> toml::Value {
    toml::Value::String(v.to_string())
}

impl DesignArgs {
    /// Flags as a TOML overlay (merged over preset and file).
    fn overrides(&self) -> Result<toml::Table, CliError> {
        let mut t = toml::Table::new();
        if let Some(v) = self.op {
            set(&mut t, "device.op_percent", toml::Value::Float(v));
        }
        if let Some(v) = self.capacity {
            set(&mut t, "device.capacity", s(v));
        }
        if let Some(v) = &self.organisation {
            set(&mut t, "device.organisation", s(v));
        }
        if let Some(v) = &self.placement {
            set(&mut t, "ftl.placement", s(v));
        }
        if let Some(v) = &self.channel_placement {
            set(&mut t, "ftl.channel_placement", s(v));
        }
        if let Some(v) = &self.workload {
            set(&mut t, "workload.kind", s(v));
        }
        if let Some(v) = self.span {
            set(&mut t, "workload.span", s(v));
        }
        if let Some(v) = self.size {
            set(&mut t, "workload.size", s(v));
        }
        if let Some(v) = self.size_max {
            set(&mut t, "workload.size_max", s(v));
        }
        if let Some(v) = self.requests {
            set(&mut t, "workload.requests", toml::Value::Integer(v as i64));
        }
        if let Some(v) = self.read_percent {
            set(&mut t, "workload.read_percent", toml::Value::Float(v));
        }
        if let Some(v) = self.mean_gap_ns {
            set(
                &mut t,
                "workload.mean_gap_ns",
                toml::Value::Integer(v as i64),
            );
        }
        self.trace.apply(&mut t);
        if let Some(v) = self.qd {
            set(&mut t, "host.qd", toml::Value::Integer(v as i64));
        }
        if let Some(v) = self.buffer_size {
            set(&mut t, "buffer.size", s(v));
        }
        if let Some(v) = &self.dispatch {
            set(&mut t, "host.dispatch", s(v));
        }
        if let Some(v) = self.seed {
            set(&mut t, "seed", toml::Value::Integer(v as i64));
        }
        if let Some(v) = &self.timing {
            set(&mut t, "timing.mode", s(v));
        }
        match (self.fill, self.steady) {
            (true, true) => {
                return Err(CliError::Input(
                    "--fill and --steady exclude each other (--steady fills first)".into(),
                ));
            }
            (true, false) => set(&mut t, "precondition", s("fill")),
            (false, true) => set(&mut t, "precondition", s("steady")),
            _ => {}
        }
        for kv in &self.set {
            let (k, v) = kv.split_once('=').ok_or_else(|| {
                CliError::Input(format!(
                    "--set {kv}: expected KEY=VALUE, e.g. --set ftl.gc_low_free_blocks=4"
                ))
            })?;
            // A TOML literal if it parses as one (numbers, booleans, quoted strings),
            // otherwise a bare string.
            let value = toml::from_str::<toml::Table>(&format!("v = {v}"))
                .ok()
                .and_then(|mut t| t.remove("v"))
                .unwrap_or_else(|| s(v));
            set(&mut t, k.trim(), value);
        }
        Ok(t)
    }

    /// Every design the flags name (the product of the --ftl, --gc and --buffer lists),
    /// each with a label; a single design has an empty label.
    pub fn configs(&self) -> Result<Vec<(String, Config)>, CliError> {
        let file = match &self.config {
            Some(p) => Some((
                p.display().to_string(),
                std::fs::read_to_string(p)
                    .map_err(|e| CliError::Input(format!("{}: cannot read: {e}", p.display())))?,
            )),
            None => None,
        };
        let split = |v: &Option<String>| -> Vec<Option<String>> {
            match v {
                None => vec![None],
                Some(list) => list
                    .split(',')
                    .map(|x| Some(x.trim().to_string()))
                    .collect(),
            }
        };
        let ftls = split(&self.ftl);
        let gcs = split(&self.gc);
        let buffers = split(&self.buffer);
        let mut out = Vec::new();
        let mut designs = Vec::new();
        for f in &ftls {
            for g in &gcs {
                for b in &buffers {
                    designs.push((f, g, b));
                }
            }
        }
        for (f, g, b) in designs {
            {
                let mut o = self.overrides()?;
                let mut label = Vec::new();
                if let Some(f) = f {
                    set(&mut o, "ftl.name", s(f));
                    label.push(f.clone());
                }
                if let Some(g) = g {
                    set(&mut o, "ftl.gc", s(g));
                    label.push(g.clone());
                }
                if let Some(b) = b {
                    set(&mut o, "buffer.name", s(b));
                    label.push(b.clone());
                }
                let mut cfg = Config::load_with(
                    self.preset.as_deref(),
                    file.as_ref().map(|(n, t)| (n.as_str(), t.as_str())),
                    o,
                )
                .map_err(|e| CliError::Input(e.to_string()))?;
                if let Some(v) = self.mgmt_block {
                    cfg.ftl.set_mgmt_block_flag(v);
                }
                cfg.resolve_device()
                    .map_err(|e| CliError::Input(e.to_string()))?;
                out.push((label.join("+"), cfg));
            }
        }
        Ok(out)
    }
}

fn out_err(path: &std::path::Path, e: std::io::Error) -> CliError {
    CliError::Output(format!("{}: cannot write: {e}", path.display()))
}

fn cmd_run(args: &RunArgs) -> Result<(), CliError> {
    let designs = args.design.configs()?;
    // Every design is validated (FTL fit, knobs, memory) before the first one runs.
    let mut checked = Vec::new();
    for (label, cfg) in &designs {
        checked.push(cfg.validate().map_err(|e| {
            if label.is_empty() {
                CliError::Input(e.to_string())
            } else {
                CliError::Input(format!("design {label}: {e}"))
            }
        })?);
    }
    crate::config::check_memory_together(&checked).map_err(|e| CliError::Input(e.to_string()))?;
    let show_progress = designs.len() == 1;
    let results: Vec<Result<_, SimError>> = checked
        .par_iter()
        .map(|design| {
            run_design(
                design,
                RunOptions {
                    progress: show_progress,
                },
            )
        })
        .collect();
    let mut outputs = Vec::new();
    for ((label, _), r) in designs.iter().zip(results) {
        let r = r.map_err(|e| {
            if label.is_empty() {
                CliError::from(e)
            } else {
                CliError::Input(format!("design {label}: {e}"))
            }
        })?;
        let name = if label.is_empty() {
            "design".to_string()
        } else {
            label.clone()
        };
        outputs.push((name, r));
    }
    let named: Vec<(&str, &Report)> = outputs
        .iter()
        .map(|(n, o)| (n.as_str(), &o.report))
        .collect();
    let json_stdout = args.json.as_deref() == Some(std::path::Path::new("-"));
    if let Some(path) = &args.json {
        let text = if outputs.len() == 1 {
            json::to_json_string(&outputs[0].1.report)
        } else {
            let designs: Vec<serde_json::Value> = outputs
                .iter()
                .map(|(n, o)| {
                    serde_json::json!({"name": n, "report": serde_json::from_str::<serde_json::Value>(&json::to_json_string(&o.report)).expect("valid JSON")})
                })
                .collect();
            serde_json::to_string_pretty(&serde_json::json!({ "designs": designs })).expect("JSON")
        };
        if json_stdout {
            println!("{text}");
        } else {
            output::write_string_atomically(path, &text).map_err(|e| out_err(path, e))?;
        }
    }
    if let Some(path) = &args.csv {
        csv_out::write_csv_atomically(path, &named).map_err(|e| out_err(path, e))?;
    }
    if let Some(dir) = &args.svg {
        for (name, o) in &outputs {
            let prefix = if outputs.len() == 1 {
                ""
            } else {
                name.as_str()
            };
            svg::write_figures(dir, prefix, &o.figures).map_err(|e| out_err(dir, e))?;
        }
    }
    if !args.quiet && !json_stdout {
        let mut stdout = std::io::stdout().lock();
        let body = if outputs.len() == 1 {
            text::render_text(&outputs[0].1.report, &[])
        } else {
            text::render_text(&outputs[0].1.report, &named)
        };
        let _ = writeln!(stdout, "{body}");
    }
    Ok(())
}

fn cmd_list() {
    let mut o = String::new();
    o.push_str("Presets (--preset):\n");
    for (name, text) in PRESETS {
        let desc = Config::load(Some(name), None)
            .map(|c| c.device.description)
            .unwrap_or_default();
        let _ = text;
        o.push_str(&format!("  {name:<14} {desc}\n"));
    }
    o.push_str("\nFTLs (--ftl):\n");
    for (_, name, desc) in FtlKind::all() {
        o.push_str(&format!("  {name:<14} {desc}\n"));
    }
    o.push_str("\nGC victim policies (--gc):\n");
    for (_, name, desc) in GcPolicyKind::all() {
        o.push_str(&format!("  {name:<14} {desc}\n"));
    }
    o.push_str("\nWrite-buffer policies (--buffer):\n");
    for (_, name, desc) in BufferKind::all() {
        o.push_str(&format!("  {name:<14} {desc}\n"));
    }
    o.push_str("\nDispatch orders (--dispatch):\n");
    for (_, name, desc) in DispatchOrder::all() {
        o.push_str(&format!("  {name:<14} {desc}\n"));
    }
    o.push_str("\nWorkloads (--workload):\n");
    for (name, desc) in synth::names() {
        o.push_str(&format!("  {name:<14} {desc}\n"));
    }
    o.push_str("\nTrace formats (--format):\n");
    for (name, desc) in TRACE_FORMATS {
        o.push_str(&format!("  {name:<14} {desc}\n"));
    }
    o.push_str("\nExperiments (ssdlab reproduce NAME --out DIR):\n");
    o.push_str(&experiment_list());
    o.push_str("\nTiming models (--timing):\n  full           busy-until reservations per die, bus and control bus\n  count          serial elapsed-time formula Cr*Tr + Cw*Tw + Gc*Tcopy + Ce*Te\n");
    print!("{o}");
}

/// Trace formats with a one-line description, for `ssdlab list`.
pub const TRACE_FORMATS: &[(&str, &str)] = &[
    (
        "msr",
        "MSR Cambridge CSV: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
    ),
    (
        "ascii",
        "SSD-simulator ASCII: time_ns dev lba_sectors size_sectors op (1 = read)",
    ),
    (
        "disksim",
        "DiskSim ASCII: time_ms dev blkno count flags (bit 0 = read)",
    ),
    ("blkparse", "blkparse default text output, Q (or D) events"),
    (
        "tencent",
        "SNIA Tencent CBS CSV: timestamp_s,offset_sectors,size_sectors,type,volume",
    ),
    (
        "heimdall",
        "time_ms dev offset_bytes size_bytes op (1 = read)",
    ),
    ("csv", "any delimited text; name the columns with --columns"),
];

fn cmd_config(args: &ConfigArgs) -> Result<(), CliError> {
    let mut designs = args.design.configs()?;
    let (_, cfg) = designs.remove(0);
    let text = toml::to_string_pretty(&cfg).map_err(|e| CliError::Output(e.to_string()))?;
    print!("{text}");
    Ok(())
}

fn cmd_gen_trace(args: &GenTraceArgs) -> Result<(), CliError> {
    let mut designs = args.design.configs()?;
    let (_, cfg) = designs.remove(0);
    let dev = cfg
        .resolve_device()
        .map_err(|e| CliError::Input(e.to_string()))?;
    let capacity = dev.logical_pages * dev.geometry.page_size_bytes as u64;
    let phases = synth::generate(&cfg.workload, capacity, cfg.seed)
        .map_err(|e| CliError::Input(format!("workload: {e}")))?;
    let path = &args.out;
    let mut lines = 0u64;
    output::atomic_write(path, |w| {
        // Phases follow one another in time: each starts where the previous one ended.
        let mut offset_ns = 0u64;
        for p in phases {
            let mut last = 0u64;
            let reqs = p.requests.map(|mut r| {
                r.arrival_ns += offset_ns;
                last = r.arrival_ns;
                r
            });
            lines += synth::write_ascii(reqs, &mut *w)?;
            offset_ns = last + 1;
        }
        Ok(())
    })
    .map_err(|e| out_err(path, e))?;
    eprintln!("wrote {lines} requests to {}", path.display());
    Ok(())
}

fn experiment_list() -> String {
    let mut o = String::new();
    for e in experiments::all() {
        o.push_str(&format!("  {:<14} {}\n", e.name(), e.about()));
    }
    if o.is_empty() {
        o.push_str("  (none registered)\n");
    }
    o
}

fn cmd_reproduce(args: &ReproduceArgs) -> Result<(), CliError> {
    if args.list {
        print!(
            "Experiments (ssdlab reproduce NAME --out DIR):\n{}",
            experiment_list()
        );
        return Ok(());
    }
    let name = args
        .name
        .as_deref()
        .expect("clap requires NAME without --list");
    let out = args
        .out
        .as_deref()
        .expect("clap requires --out without --list");
    let exp = experiments::find(name).ok_or_else(|| {
        CliError::Input(format!(
            "unknown experiment `{name}`; expected one of:\n{}",
            experiment_list()
        ))
    })?;
    let mut ctx = experiments::Ctx::new(args.quick, args.seed);
    exp.run(&mut ctx)
        .map_err(|e| CliError::Input(format!("reproduce {name}: {e}")))?;
    let written = experiments::write_outputs(&ctx, out).map_err(|e| out_err(out, e))?;
    for p in written {
        println!("wrote {}", p.display());
    }
    Ok(())
}

/// Runs the parsed command line.
pub fn main_with(cli: Cli) -> Result<(), CliError> {
    match &cli.command {
        Command::Run(a) => cmd_run(a),
        Command::List => {
            cmd_list();
            Ok(())
        }
        Command::Config(a) => cmd_config(a),
        Command::GenTrace(a) => cmd_gen_trace(a),
        Command::Hybrid(a) => crate::hybrid::cli::cmd_hybrid(a),
        Command::Reproduce(a) => cmd_reproduce(a),
    }
}
