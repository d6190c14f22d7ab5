//! `ssdlab hybrid`: runs workloads on an HDD alone and behind a flash cache, side by
//! side. Flags and an optional TOML file resolve into [`HybridConfig`]s (one per
//! combination of the comma lists); every bad input is a [`CliError::Input`] (exit 2).

use super::CliError;
use super::args::{
    GeneratorArgs, HostArgs, List, ReportArgs, SettingsArgs, TraceArgs, choices, set,
};
use super::design::{check_input, input_files};
use super::output::{self, Reports};
use super::registry;
use clap::Args;
use rayon::prelude::*;
use ssdlab::hybrid::config::HybridConfig;
use ssdlab::hybrid::hdd::DEFAULT_HDD_PRESET;
use ssdlab::hybrid::run::{HybridReport, design_label, run, workload_label};
use ssdlab::hybrid::workload::DesktopWorkload;
use ssdlab::names;
use ssdlab::report::output::Batch;
use ssdlab::units::Size;

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
with an empty cache (cold); later runs reuse it (warm). Outputs are checked before the
first run and written together when every design succeeds. See docs/hybrid.md.";

/// `ssdlab hybrid` flags.
#[derive(Args, Debug, Default)]
pub struct HybridArgs {
    /// Workload: a desktop workload or a generator; a comma list runs each [default:
    /// the desktop workloads].
    #[arg(long, value_name = "NAME[,NAME…]", help_heading = "Workload",
          value_parser = registry::list_of(names::hybrid_workloads()))]
    pub workload: Option<List>,
    /// Generator settings (for a generator workload).
    #[command(flatten)]
    pub generator: GeneratorArgs,
    /// Block trace to replay instead of a workload (formats as for `ssdlab run`).
    #[command(flatten)]
    pub trace: TraceArgs,
    /// Runs on one store: the first cold, the others warm [default: 2].
    #[arg(long, value_name = "N", help_heading = "Workload",
          value_parser = super::args::whole::<u32>(0, u32::MAX.into()))]
    pub runs: Option<u32>,
    /// HDD preset [default: desktop-7200].
    #[arg(long, value_name = "NAME", help_heading = "Design",
          value_parser = registry::one_of(names::hdd_presets()))]
    pub hdd: Option<String>,
    /// Flash cache size, `none` = HDD alone; a comma list compares [default: none,16GiB].
    #[arg(long, value_name = "SIZE[,SIZE…]", help_heading = "Design", value_parser = parse_cache_list)]
    pub cache: Option<List>,
    /// Write policy; a comma list compares [default: write-through].
    #[arg(long, value_name = "NAME[,NAME…]", help_heading = "Design",
          value_parser = registry::list_of(names::write_policies()))]
    pub write_policy: Option<List>,
    /// Cache control table; a comma list compares [default: btree].
    #[arg(long, value_name = "NAME[,NAME…]", help_heading = "Design",
          value_parser = registry::list_of(names::tables()))]
    pub table: Option<List>,
    /// Do not check the last-read record first.
    #[arg(long, help_heading = "Design")]
    pub no_hint: bool,
    /// Eviction policy [default: lru].
    #[arg(long, value_name = "NAME", help_heading = "Design",
          value_parser = registry::one_of(names::evictions()))]
    pub eviction: Option<String>,
    /// Do not cache a sequential stream once it has run this far (e.g. 8MiB).
    #[arg(long, value_name = "SIZE", help_heading = "Design", value_parser = super::args::parse_size)]
    pub bypass_seq: Option<Size>,
    /// SSD of the cache [default: sata-mlc-2011].
    #[arg(long, value_name = "NAME", help_heading = "Design",
          value_parser = registry::one_of(names::flash_presets()))]
    pub flash_preset: Option<String>,
    /// FTL of the cache SSD.
    #[arg(long, value_name = "NAME", help_heading = "Design",
          value_parser = registry::one_of(names::ftls()))]
    pub ftl: Option<String>,
    /// GC victim policy of the cache SSD.
    #[arg(long, value_name = "NAME", help_heading = "Design",
          value_parser = registry::one_of(names::gc_policies()))]
    pub gc: Option<String>,
    /// Host queue depth (traces and generators; desktop workloads run at 1) and seed.
    #[command(flatten)]
    pub host: HostArgs,
    /// File and `--set`.
    #[command(flatten)]
    pub settings: SettingsArgs,
    /// JSON, CSV, quiet.
    #[command(flatten)]
    pub report: ReportArgs,
    /// List HDD and flash presets, workloads, write policies, tables and evictions.
    #[arg(long)]
    pub list: bool,
}

/// `--cache`: sizes or `none` (also `0`), each checked here.
fn parse_cache_list(v: &str) -> Result<Vec<String>, String> {
    v.split(',')
        .map(|c| {
            let c = c.trim();
            if matches!(c, "none" | "0" | "0B") {
                return Ok("none".to_string());
            }
            c.parse::<Size>()
                .map(|s| s.to_string())
                .map_err(|e| format!("{c}: {e}; expected a size such as 16GiB, or none"))
        })
        .collect()
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
        for (key, v) in [
            ("hdd.preset", &self.hdd),
            ("flash.device.preset", &self.flash_preset),
            ("flash.ftl.name", &self.ftl),
            ("flash.ftl.gc", &self.gc),
            ("cache.eviction", &self.eviction),
        ] {
            if let Some(v) = v {
                set(&mut t, key, v.as_str());
            }
        }
        self.trace.apply(&mut t);
        self.generator.apply(&mut t, "generator");
        self.host.apply(&mut t);
        if let Some(v) = self.runs {
            set(&mut t, "workload.runs", i64::from(v));
        }
        if self.no_hint {
            set(&mut t, "cache.hint", false);
        }
        if let Some(v) = self.bypass_seq {
            set(&mut t, "cache.bypass_sequential", v.to_string());
        }
        self.settings.apply(&mut t)?;
        Ok(t)
    }

    /// Every design the flags name: workloads × cache sizes × write policies × tables
    /// (the HDD alone once per workload), all checked before any run.
    pub fn designs(&self) -> Result<Vec<Design>, CliError> {
        if self.trace.trace.is_some() && self.workload.is_some() {
            return Err(CliError::Input(
                "--trace and --workload exclude each other: the trace is the workload".into(),
            ));
        }
        let file = self.settings.read_file()?;
        let workloads: Vec<Option<String>> =
            match (&self.workload, &self.trace.trace, &self.settings.config) {
                (None, None, None) => DesktopWorkload::all()
                    .iter()
                    .map(|w| Some(w.1.to_string()))
                    .collect(),
                _ => choices(&self.workload),
            };
        let caches = match &self.cache {
            None => vec![Some("none".to_string()), Some("16GiB".to_string())],
            Some(_) => choices(&self.cache),
        };
        let base = self.overrides()?;
        let mut out = Vec::new();
        let mut errors = Vec::new();
        for w in &workloads {
            for c in &caches {
                let alone = c.as_deref() == Some("none");
                let (ps, ts) = if alone {
                    (vec![None], vec![None])
                } else {
                    (choices(&self.write_policy), choices(&self.table))
                };
                for p in &ps {
                    for tk in &ts {
                        let mut o = base.clone();
                        if let Some(w) = w {
                            if DesktopWorkload::from_name(w).is_some() || w == "read-mix" {
                                set(&mut o, "workload.kind", w.as_str());
                            } else {
                                set(&mut o, "workload.kind", "generator");
                                set(&mut o, "generator.kind", w.as_str());
                            }
                        }
                        match c.as_deref() {
                            Some("none") => set(&mut o, "cache.size", 0),
                            Some(c) => set(&mut o, "cache.size", c),
                            None => {}
                        }
                        if let Some(p) = p {
                            set(&mut o, "cache.write_policy", p.as_str());
                        }
                        if let Some(tk) = tk {
                            set(&mut o, "cache.table", tk.as_str());
                        }
                        let cfg = HybridConfig::load(
                            file.as_ref().map(|(n, t)| (n.as_str(), t.as_str())),
                            o,
                        )
                        .map_err(|e| e.to_string())
                        .and_then(|cfg| {
                            if let Some(p) = &cfg.trace.path {
                                check_input("--trace", p)?;
                            }
                            Ok(cfg)
                        });
                        match cfg {
                            Ok(cfg) => out.push(Design {
                                workload: workload_label(&cfg),
                                design: design_label(&cfg),
                                config: cfg,
                            }),
                            Err(e) if !errors.contains(&e) => errors.push(e),
                            Err(_) => {}
                        }
                    }
                }
            }
        }
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(CliError::Input(errors.join("\n")))
        }
    }
}

fn list_text() -> String {
    let sections = [
        (
            format!("HDD presets (--hdd; default {DEFAULT_HDD_PRESET})"),
            names::hdd_presets(),
        ),
        (
            "Flash presets (--flash-preset; any `ssdlab run` preset works too)".into(),
            names::flash_presets(),
        ),
        (
            "Workloads (--workload; generators from `ssdlab list` work too)".into(),
            names::hybrid_own_workloads(),
        ),
        (
            "Write policies (--write-policy)".into(),
            names::write_policies(),
        ),
        ("Cache control tables (--table)".into(), names::tables()),
        ("Eviction policies (--eviction)".into(), names::evictions()),
    ];
    sections
        .iter()
        .map(|(title, named)| format!("{title}:\n{}", names::lines(named, 16)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A text table: one row per design and run, with the change against the HDD alone.
pub fn render_table(results: &[(Design, HybridReport)]) -> String {
    let header: Vec<String> = [
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
    .collect();
    let mut rows: Vec<Vec<String>> = Vec::new();
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
    // Workload, design and run read left to right; the figures line up on the right.
    ssdlab::report::table::aligned(header, rows, 3)
}

/// CSV: one row per design and run.
pub fn csv_text(results: &[(Design, HybridReport)]) -> String {
    let header = [
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
    ];
    let mut rows = Vec::new();
    for (d, r) in results {
        for x in &r.runs {
            let f = x.flash.clone().unwrap_or_default();
            let c = &x.cache;
            rows.push([
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
            ]);
        }
    }
    ssdlab::report::table::csv(header, rows)
}

/// Runs `ssdlab hybrid`.
pub fn cmd(a: &HybridArgs) -> Result<(), CliError> {
    if a.list {
        output::print(&list_text())?;
        return Ok(());
    }
    let designs = a.designs()?;
    let reports = Reports::check(&a.report)?;
    if reports.fio_json {
        // A hybrid report is an HDD and a flash cache, not one drive's I/O directions.
        return Err(CliError::Input(
            "--json-format fio: written by `ssdlab run` only; hybrid reports have no \
             fio equivalent (use --json-format ssdlab)"
                .into(),
        ));
    }
    let inputs = input_files(
        a.settings.config.as_deref(),
        designs
            .iter()
            .filter_map(|d| d.config.trace.path.as_deref()),
    );
    output::distinct(&reports.paths(), &inputs)?;
    let runs: Vec<Result<HybridReport, _>> = designs.par_iter().map(|d| run(&d.config)).collect();
    let mut results = Vec::new();
    for (d, r) in designs.into_iter().zip(runs) {
        let r = r.map_err(|e| CliError::Input(format!("{} / {}: {e}", d.workload, d.design)))?;
        results.push((d, r));
    }
    let mut batch = Batch::new();
    if let Some(o) = &reports.json {
        let text = if let [(_, r)] = results.as_slice() {
            serde_json::to_string_pretty(r).expect("JSON")
        } else {
            let v: Vec<serde_json::Value> = results
                .iter()
                .map(|(d, r)| serde_json::json!({"workload": d.workload, "design": d.design, "report": r}))
                .collect();
            serde_json::to_string_pretty(&serde_json::json!({ "designs": v })).expect("JSON")
        };
        batch.file(o, text + "\n");
    }
    if let Some(o) = &reports.csv {
        batch.file(o, csv_text(&results));
    }
    output::commit(batch)?;
    if reports.show_table() {
        output::print(&render_table(&results))?;
        let mut notes: Vec<&String> = results
            .iter()
            .flat_map(|(_, r)| r.warnings.iter())
            .collect();
        notes.dedup();
        for w in notes {
            output::print(&format!("warning: {w}\n"))?;
        }
    }
    Ok(())
}
