//! `ssdlab hybrid`: runs workloads on an HDD alone and behind a flash cache, side by
//! side. Flags and an optional TOML file resolve into [`HybridConfig`]s (one per
//! combination of the comma lists); every bad input is a [`CliError::Input`] (exit 2).

use super::config::{FLASH_PRESETS, HybridConfig};
use super::evict::EvictionKind;
use super::hdd::HDD_PRESETS;
use super::run::{HybridReport, design_label, run};
use super::store::WritePolicy;
use super::table::TableKind;
use super::workload::DesktopWorkload;
use crate::cli::{CliError, TraceArgs, s, set};
use crate::report::output;
use crate::units::{Size, parse_count};
use crate::workload::synth;
use clap::Args;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Examples shown by `ssdlab hybrid --help`.
pub const AFTER_HELP: &str = "\
Examples:
  ssdlab hybrid                                  boot, app-launch, game-load: HDD alone vs 16 GiB cache, cold then warm
  ssdlab hybrid --workload boot --runs 4 --cache none,4GiB,16GiB
  ssdlab hybrid --workload app-launch --table list,avl,btree --cache 16GiB
  ssdlab hybrid --workload game-load --write-policy write-back --bypass-seq 8MiB
  ssdlab hybrid --trace trace.csv --format msr --trace-fit wrap --qd 8 --json out.json
  ssdlab hybrid --workload random-read --span 8GiB --requests 20k --hdd laptop-5400
  ssdlab hybrid --list                           presets, workloads, policies, tables

A cache size of `none` (or 0) runs the HDD alone. The first run of every design starts
with an empty cache (cold); later runs reuse it (warm). See docs/hybrid.md.";

/// `ssdlab hybrid` flags.
#[derive(Args, Debug, Default)]
pub struct HybridArgs {
    /// Workload: boot, app-launch, game-load, or a generator (seq-read, random-read, …);
    /// a comma list runs each [default: boot,app-launch,game-load].
    #[arg(long, value_name = "NAME[,NAME…]")]
    pub workload: Option<String>,
    /// Block trace to replay instead of a workload (formats as for `ssdlab run`).
    #[command(flatten)]
    pub trace: TraceArgs,
    /// Runs on one store: the first cold, the others warm [default: 2].
    #[arg(long, value_name = "N")]
    pub runs: Option<u32>,
    /// HDD preset: desktop-7200 (default), laptop-5400.
    #[arg(long, value_name = "NAME")]
    pub hdd: Option<String>,
    /// Flash cache size, `none` = HDD alone; a comma list compares [default: none,16GiB].
    #[arg(long, value_name = "SIZE[,SIZE…]")]
    pub cache: Option<String>,
    /// Write policy: write-through (default), write-back, write-around; a comma list compares.
    #[arg(long, value_name = "NAME[,NAME…]")]
    pub write_policy: Option<String>,
    /// Cache control table: btree (default), avl, list; a comma list compares.
    #[arg(long, value_name = "NAME[,NAME…]")]
    pub table: Option<String>,
    /// Do not check the last-read record first.
    #[arg(long)]
    pub no_hint: bool,
    /// Eviction policy: lru (default), fifo.
    #[arg(long, value_name = "NAME")]
    pub eviction: Option<String>,
    /// Do not cache a sequential stream once it has run this far (e.g. 8MiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub bypass_seq: Option<Size>,
    /// SSD of the cache: sata-mlc-2011 (default) or any `ssdlab run` preset.
    #[arg(long, value_name = "NAME")]
    pub flash_preset: Option<String>,
    /// FTL of the cache SSD.
    #[arg(long, value_name = "NAME")]
    pub ftl: Option<String>,
    /// GC victim policy of the cache SSD.
    #[arg(long, value_name = "NAME")]
    pub gc: Option<String>,
    /// Generator: address range used.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub span: Option<Size>,
    /// Generator: request size.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub size: Option<Size>,
    /// Generator: requests per run, e.g. 20k.
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub requests: Option<u64>,
    /// Generator: share of reads for mixed, zipf, hot-cold, percent.
    #[arg(long, value_name = "PERCENT")]
    pub read_percent: Option<f64>,
    /// Requests outstanding for traces and generators (1–512) [default: 1].
    #[arg(long, value_name = "N")]
    pub qd: Option<u32>,
    /// Random seed.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// TOML configuration file (see docs/hybrid.md); flags override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Any config key, e.g. --set hdd.rpm=10000 or --set flash.ftl.gc=fifo (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Write the JSON report here (`-` = stdout instead of the table).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write one CSV row per design and run here.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// No table on stdout.
    #[arg(long, short)]
    pub quiet: bool,
    /// List HDD and flash presets, workloads, write policies, tables and evictions.
    #[arg(long)]
    pub list: bool,
}

fn parse_size(v: &str) -> Result<Size, String> {
    v.parse::<Size>().map_err(|e| e.to_string())
}

fn list(v: &Option<String>) -> Vec<Option<String>> {
    match v {
        None => vec![None],
        Some(l) => l.split(',').map(|x| Some(x.trim().to_string())).collect(),
    }
}

fn check_name(flag: &str, v: &str, names: &[&str]) -> Result<(), CliError> {
    if names.contains(&v) {
        Ok(())
    } else {
        Err(CliError::Input(format!(
            "--{flag} {v}: expected one of {}",
            names.join(", ")
        )))
    }
}

/// One design to run: its labels and config.
pub struct Design {
    /// Workload name.
    pub workload: String,
    /// Design label (`hdd` or the cache settings).
    pub design: String,
    /// Configuration.
    pub config: HybridConfig,
}

impl HybridArgs {
    fn overrides(&self) -> Result<toml::Table, CliError> {
        let mut t = toml::Table::new();
        let opt = |t: &mut toml::Table, k: &str, v: &Option<String>| {
            if let Some(v) = v {
                set(t, k, s(v));
            }
        };
        opt(&mut t, "hdd.preset", &self.hdd);
        opt(&mut t, "flash.device.preset", &self.flash_preset);
        opt(&mut t, "flash.ftl.name", &self.ftl);
        opt(&mut t, "flash.ftl.gc", &self.gc);
        self.trace.apply(&mut t);
        if let Some(v) = &self.eviction {
            let names: Vec<&str> = EvictionKind::all().iter().map(|x| x.1).collect();
            check_name("eviction", v, &names)?;
            set(&mut t, "cache.eviction", s(v));
        }
        if let Some(v) = self.qd {
            set(&mut t, "host.qd", toml::Value::Integer(v as i64));
        }
        if let Some(v) = self.runs {
            set(&mut t, "workload.runs", toml::Value::Integer(v as i64));
        }
        if let Some(v) = self.seed {
            set(&mut t, "seed", toml::Value::Integer(v as i64));
        }
        if self.no_hint {
            set(&mut t, "cache.hint", toml::Value::Boolean(false));
        }
        if let Some(v) = self.bypass_seq {
            set(&mut t, "cache.bypass_sequential", s(v));
        }
        for (k, v) in [("generator.span", self.span), ("generator.size", self.size)] {
            if let Some(v) = v {
                set(&mut t, k, s(v));
            }
        }
        if let Some(v) = self.requests {
            set(&mut t, "generator.requests", toml::Value::Integer(v as i64));
        }
        if let Some(v) = self.read_percent {
            set(&mut t, "generator.read_percent", toml::Value::Float(v));
        }
        for kv in &self.set {
            let (k, v) = kv.split_once('=').ok_or_else(|| {
                CliError::Input(format!(
                    "--set {kv}: expected KEY=VALUE, e.g. --set hdd.rpm=10000"
                ))
            })?;
            let value = toml::from_str::<toml::Table>(&format!("v = {v}"))
                .ok()
                .and_then(|mut t| t.remove("v"))
                .unwrap_or_else(|| s(v));
            set(&mut t, k.trim(), value);
        }
        Ok(t)
    }

    /// Every design the flags name: workloads × cache sizes × write policies × tables
    /// (the HDD alone once per workload).
    pub fn designs(&self) -> Result<Vec<Design>, CliError> {
        let file = match &self.config {
            Some(p) => Some((
                p.display().to_string(),
                std::fs::read_to_string(p)
                    .map_err(|e| CliError::Input(format!("{}: cannot read: {e}", p.display())))?,
            )),
            None => None,
        };
        if self.trace.trace.is_some() && self.workload.is_some() {
            return Err(CliError::Input(
                "--trace and --workload exclude each other: the trace is the workload".into(),
            ));
        }
        let workloads: Vec<Option<String>> = match (&self.workload, &self.trace.trace, &file) {
            (None, None, None) => DesktopWorkload::all()
                .iter()
                .map(|w| Some(w.1.to_string()))
                .collect(),
            _ => list(&self.workload),
        };
        let caches = match &self.cache {
            None => vec![Some("none".to_string()), Some("16GiB".to_string())],
            Some(_) => list(&self.cache),
        };
        let policies = list(&self.write_policy);
        let tables = list(&self.table);
        let policy_names: Vec<&str> = WritePolicy::all().iter().map(|x| x.1).collect();
        let table_names: Vec<&str> = TableKind::all().iter().map(|x| x.1).collect();
        let mut out = Vec::new();
        for w in &workloads {
            for c in &caches {
                let alone = matches!(c.as_deref(), Some("none" | "0" | "0B"));
                let (ps, ts) = if alone {
                    (vec![None], vec![None])
                } else {
                    (policies.clone(), tables.clone())
                };
                for p in &ps {
                    for tk in &ts {
                        let mut o = self.overrides()?;
                        if let Some(w) = w {
                            if DesktopWorkload::from_name(w).is_some() {
                                set(&mut o, "workload.kind", s(w));
                            } else if synth::names().iter().any(|(n, _)| n == w) {
                                set(&mut o, "workload.kind", s("generator"));
                                set(&mut o, "generator.kind", s(w));
                            } else {
                                let mut names: Vec<&str> =
                                    DesktopWorkload::all().iter().map(|x| x.1).collect();
                                names.extend(synth::names().iter().map(|x| x.0));
                                return Err(CliError::Input(format!(
                                    "--workload {w}: expected one of {}",
                                    names.join(", ")
                                )));
                            }
                        }
                        match c.as_deref() {
                            Some(_) if alone => set(&mut o, "cache.size", toml::Value::Integer(0)),
                            Some(c) => {
                                let size = c.parse::<Size>().map_err(|e| {
                                    CliError::Input(format!("--cache {c}: {e}, or none"))
                                })?;
                                set(&mut o, "cache.size", s(size));
                            }
                            None => {}
                        }
                        if let Some(p) = p {
                            check_name("write-policy", p, &policy_names)?;
                            set(&mut o, "cache.write_policy", s(p));
                        }
                        if let Some(tk) = tk {
                            check_name("table", tk, &table_names)?;
                            set(&mut o, "cache.table", s(tk));
                        }
                        let cfg = HybridConfig::load(
                            file.as_ref().map(|(n, t)| (n.as_str(), t.as_str())),
                            o,
                        )
                        .map_err(CliError::Input)?;
                        out.push(Design {
                            workload: super::run::workload_label(&cfg),
                            design: design_label(&cfg),
                            config: cfg,
                        });
                    }
                }
            }
        }
        Ok(out)
    }
}

fn list_text() -> String {
    let mut o = String::from("HDD presets (--hdd):\n");
    for (name, _) in HDD_PRESETS {
        let p = super::hdd::HddParams::preset(name).expect("built-in preset");
        let _ = writeln!(o, "  {name:<16} {}", p.description);
    }
    o.push_str("\nFlash presets (--flash-preset; any `ssdlab run` preset works too):\n");
    for (name, _) in FLASH_PRESETS {
        let c = super::config::load_flash(name, toml::Table::new()).expect("built-in preset");
        let _ = writeln!(o, "  {name:<16} {}", c.device.description);
    }
    o.push_str("\nWorkloads (--workload; generators from `ssdlab list` work too):\n");
    for (_, n, d) in DesktopWorkload::all() {
        let _ = writeln!(o, "  {n:<16} {d}");
    }
    o.push_str("\nWrite policies (--write-policy):\n");
    for (_, n, d) in WritePolicy::all() {
        let _ = writeln!(o, "  {n:<16} {d}");
    }
    o.push_str("\nCache control tables (--table):\n");
    for (_, n, d) in TableKind::all() {
        let _ = writeln!(o, "  {n:<16} {d}");
    }
    o.push_str("\nEviction policies (--eviction):\n");
    for (_, n, d) in EvictionKind::all() {
        let _ = writeln!(o, "  {n:<16} {d}");
    }
    o
}

/// A text table: one row per design and run, with the change against the HDD alone.
pub fn render_table(results: &[(Design, HybridReport)]) -> String {
    let mut rows: Vec<Vec<String>> = vec![
        [
            "workload",
            "design",
            "run",
            "elapsed s",
            "vs HDD",
            "hit %",
            "HDD busy s",
            "flash GC pages",
            "cmp/lookup",
            "lookup ns",
        ]
        .iter()
        .map(|x| x.to_string())
        .collect(),
    ];
    for (d, r) in results {
        for run in &r.runs {
            let base = results
                .iter()
                .find(|(b, br)| b.workload == d.workload && !br.cached)
                .and_then(|(_, br)| br.run(&run.name));
            let vs = match base {
                Some(b) if r.cached && b.elapsed_s > 0.0 => {
                    format!("{:+.1}%", (run.elapsed_s / b.elapsed_s - 1.0) * 100.0)
                }
                _ => "—".into(),
            };
            let dash = |v: String| if r.cached { v } else { "—".into() };
            rows.push(vec![
                d.workload.clone(),
                d.design.clone(),
                run.name.clone(),
                format!("{:.2}", run.elapsed_s),
                vs,
                dash(format!("{:.1}", run.hit_ratio * 100.0)),
                format!("{:.2}", run.hdd.busy_ns / 1e9),
                dash(
                    run.flash
                        .as_ref()
                        .map_or("—".into(), |f| f.gc_copy_pages.to_string()),
                ),
                dash(format!("{:.1}", run.comparisons_per_lookup)),
                dash(format!("{:.0}", run.lookup_wall_ns_mean)),
            ]);
        }
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut o = String::new();
    for (i, r) in rows.iter().enumerate() {
        for (c, cell) in r.iter().enumerate() {
            let pad = widths[c] - cell.chars().count();
            if c < 3 {
                let _ = write!(o, "{cell}{}  ", " ".repeat(pad));
            } else {
                let _ = write!(o, "{}{cell}  ", " ".repeat(pad));
            }
        }
        o.truncate(o.trim_end().len());
        o.push('\n');
        if i == 0 {
            let total: usize = widths.iter().sum::<usize>() + 2 * (widths.len() - 1);
            o.push_str(&"-".repeat(total));
            o.push('\n');
        }
    }
    o
}

/// CSV: one row per design and run.
pub fn csv_text(results: &[(Design, HybridReport)]) -> Result<String, CliError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| CliError::Output(e.to_string());
    w.write_record([
        "workload",
        "design",
        "run",
        "requests",
        "read_bytes",
        "write_bytes",
        "elapsed_s",
        "think_s",
        "hit_ratio",
        "hit_requests",
        "partial_requests",
        "miss_requests",
        "fill_units",
        "evicted_units",
        "destaged_units",
        "hdd_busy_s",
        "hdd_requests",
        "flash_program_pages",
        "flash_gc_copy_pages",
        "flash_erases",
        "lookups",
        "comparisons_per_lookup",
        "lookup_comparisons_max",
        "hinted_lookups",
        "lookup_wall_ns_mean",
        "latency_ns_mean",
        "latency_ns_p99",
    ])
    .map_err(err)?;
    for (d, r) in results {
        for x in &r.runs {
            let f = x.flash.clone().unwrap_or_default();
            let c = &x.cache;
            w.write_record([
                d.workload.clone(),
                d.design.clone(),
                x.name.clone(),
                x.requests.to_string(),
                x.read_bytes.to_string(),
                x.write_bytes.to_string(),
                format!("{:.6}", x.elapsed_s),
                format!("{:.6}", x.think_s),
                format!("{:.6}", x.hit_ratio),
                c.hit_requests.to_string(),
                c.partial_requests.to_string(),
                c.miss_requests.to_string(),
                c.fill_units.to_string(),
                c.evicted_units.to_string(),
                c.destaged_units.to_string(),
                format!("{:.6}", x.hdd.busy_ns / 1e9),
                x.hdd.requests.to_string(),
                f.program_pages.to_string(),
                f.gc_copy_pages.to_string(),
                f.erases.to_string(),
                c.lookups.to_string(),
                format!("{:.3}", x.comparisons_per_lookup),
                c.lookup_comparisons_max.to_string(),
                c.hinted_lookups.to_string(),
                format!("{:.1}", x.lookup_wall_ns_mean),
                format!("{:.0}", x.latency_ns.mean),
                x.latency_ns.p99.to_string(),
            ])
            .map_err(err)?;
        }
    }
    String::from_utf8(
        w.into_inner()
            .map_err(|e| CliError::Output(e.to_string()))?,
    )
    .map_err(|e| CliError::Output(e.to_string()))
}

/// Runs `ssdlab hybrid`.
pub fn cmd_hybrid(a: &HybridArgs) -> Result<(), CliError> {
    if a.list {
        print!("{}", list_text());
        return Ok(());
    }
    let designs = a.designs()?;
    let reports: Vec<Result<HybridReport, _>> =
        designs.par_iter().map(|d| run(&d.config)).collect();
    let mut results = Vec::new();
    for (d, r) in designs.into_iter().zip(reports) {
        let r = r.map_err(|e| CliError::Input(format!("{} / {}: {e}", d.workload, d.design)))?;
        results.push((d, r));
    }
    let json_stdout = a.json.as_deref() == Some(std::path::Path::new("-"));
    if let Some(path) = &a.json {
        let text = if results.len() == 1 {
            serde_json::to_string_pretty(&results[0].1).expect("JSON")
        } else {
            let v: Vec<serde_json::Value> = results
                .iter()
                .map(|(d, r)| serde_json::json!({"workload": d.workload, "design": d.design, "report": r}))
                .collect();
            serde_json::to_string_pretty(&serde_json::json!({ "designs": v })).expect("JSON")
        };
        if json_stdout {
            println!("{text}");
        } else {
            output::write_string_atomically(path, &text)
                .map_err(|e| CliError::Output(format!("{}: cannot write: {e}", path.display())))?;
        }
    }
    if let Some(path) = &a.csv {
        output::write_string_atomically(path, &csv_text(&results)?)
            .map_err(|e| CliError::Output(format!("{}: cannot write: {e}", path.display())))?;
    }
    if !a.quiet && !json_stdout {
        print!("{}", render_table(&results));
        let mut notes: Vec<&String> = results
            .iter()
            .flat_map(|(_, r)| r.warnings.iter())
            .collect();
        notes.dedup();
        for w in notes {
            println!("warning: {w}");
        }
    }
    Ok(())
}
