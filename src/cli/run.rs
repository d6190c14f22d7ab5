//! `ssdlab run`: one or more SSD designs on a workload, side by side.

use super::CliError;
use super::args::ReportArgs;
use super::design::{Check, Design, DesignArgs};
use super::output::{self, Reports};
use clap::Args;
use rayon::prelude::*;
use ssdlab::report::output::{Batch, Content};
use ssdlab::report::{Report, html, render, svg, text};
use ssdlab::run::run_design;
use ssdlab::sim::{RunOptions, RunOutput};
use std::path::PathBuf;

/// Examples shown by `ssdlab run --help`.
pub const AFTER_HELP: &str = "\
Examples:
  ssdlab run                                    built-in TLC NVMe device, IOZone-like suite
  ssdlab run --preset ssd-a --workload random-write --span 8GiB --requests 1M --qd 32
  ssdlab run --gc greedy,fifo,cost-benefit --fill --workload random-write --capacity 4GiB
  ssdlab run --ftl page,bast,dftl --workload mixed --capacity 4GiB --csv ftls.csv
  ssdlab run --buffer lru,qlru --buffer-size 64MiB --qd 256 --workload zipf --read-percent 0
  ssdlab run --trace trace.csv --format msr --trace-fit wrap --json out.json --svg figs/
  ssdlab run --workload oltp --json - | jq .write_amplification
  ssdlab run --preset ssd-a --access-spec file-server --qd 16 --span 4GiB --fill
  ssdlab run --access-spec '4KiB weight=70 read=100 random=100; 64KiB weight=30 read=0 random=0'
  ssdlab run --preset ssd-b --host-log none,mft --workload random-write --fill --requests 20000
  ssdlab run --preset android-emmc --fs yaffs2,ext2,fat --ftl page,bast --workload iozone-file --span 100MiB
  ssdlab run --preset android-emmc --fs yaffs2 --file-trace ops.ftrace --set fs.yaffs2.checkpoint=true

Every design of the comma lists is checked, and every output path too, before the
first simulation starts. Outputs are written together when all designs succeed, or
not at all; `-` is standard output (then no table).";

/// `ssdlab run` flags.
#[derive(Args, Debug, Default)]
pub struct RunArgs {
    /// Design and workload.
    #[command(flatten)]
    pub design: DesignArgs,
    /// JSON, CSV, quiet.
    #[command(flatten)]
    pub report: ReportArgs,
    /// Write SVG figures (latency CDF, throughput, erase histogram) into this directory
    /// (created if missing; files of the same names in it are replaced).
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub svg: Option<PathBuf>,
    /// Write an HTML report (DIR/index.html: one self-contained page with the figures,
    /// a sortable table of the designs and this command) into this directory.
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub html: Option<PathBuf>,
}

/// The figure files each design writes into `--svg`, known before the run (the probe
/// figure only for the probe workload).
fn figure_names(designs: &[Design]) -> Vec<String> {
    let probe = ssdlab::report::Figures {
        probe_latency: vec![(String::new(), Vec::new())],
        ..Default::default()
    };
    designs
        .iter()
        .flat_map(|d| {
            let prefix = if designs.len() == 1 { "" } else { d.name() };
            svg::figure_files(prefix, &probe)
                .into_iter()
                .map(|(n, _)| n)
        })
        .collect()
}

/// Runs `ssdlab run`.
pub fn cmd(args: &RunArgs) -> Result<(), CliError> {
    let designs = args.design.designs(Check::Run)?;
    let reports = Reports::check(&args.report)?;
    let svg_dir = args
        .svg
        .as_deref()
        .map(|p| output::dir("--svg", p))
        .transpose()?;
    let html_dir = args
        .html
        .as_deref()
        .map(|p| output::dir("--html", p))
        .transpose()?;
    let mut outs = reports.paths();
    if let Some(d) = &svg_dir {
        outs.push((d, figure_names(&designs)));
    }
    if let Some(d) = &html_dir {
        outs.push((d, vec![html::PAGE_FILE.to_string()]));
    }
    output::distinct(&outs, &args.design.inputs(&designs))?;
    // Before any work: the values the device changes (docs/config.md, "Requested and
    // actual values"); every output carries both, and the report repeats the warning.
    for d in &designs {
        let valid = d.valid.as_ref().expect("run designs are validated");
        for w in ssdlab::config::actual::warnings(&valid.config, &valid.device) {
            let design = if designs.len() > 1 {
                format!("design {}: ", d.name())
            } else {
                String::new()
            };
            eprintln!("warning: {design}{w}");
        }
    }

    let show_progress = designs.len() == 1;
    let results: Vec<_> = designs
        .par_iter()
        .map(|d| {
            run_design(
                d.valid.as_ref().expect("run designs are validated"),
                RunOptions {
                    progress: show_progress,
                    ..RunOptions::default()
                },
            )
        })
        .collect();
    let mut outputs: Vec<(&str, RunOutput)> = Vec::new();
    for (d, r) in designs.iter().zip(results) {
        let r = r.map_err(|e| {
            if d.label.is_empty() {
                CliError::from(e)
            } else {
                CliError::Input(format!("design {}: {e}", d.label))
            }
        })?;
        outputs.push((d.name(), r));
    }
    let named: Vec<(&str, &Report)> = outputs.iter().map(|(n, o)| (*n, &o.report)).collect();
    for (name, r) in &named {
        if r.unmapped_read_share > ssdlab::report::UNMAPPED_READ_WARN_SHARE {
            let design = if named.len() > 1 {
                format!("design {name}: ")
            } else {
                String::new()
            };
            eprintln!(
                "warning: {design}{:.1}% of page reads hit never-written pages (answered without \
                 flash access); use --precondition footprint or --fill PERCENT (docs/traces.md)",
                r.unmapped_read_share * 100.0
            );
        }
    }

    let mut batch = Batch::new();
    // Each report flag names its output format in the registry (report::render).
    for (o, format) in reports.rendered() {
        let renderer = render::renderer(format).expect("report flags name registered formats");
        let named = &named;
        batch.file(
            o,
            Content::Writer(Box::new(move |w| renderer.render(named, w))),
        );
    }
    if let Some(o) = &svg_dir {
        let files = outputs
            .iter()
            .flat_map(|(name, o)| {
                let prefix = if outputs.len() == 1 { "" } else { *name };
                svg::figure_files(prefix, &o.figures)
            })
            .map(|(n, s)| (n, Content::from(s)))
            .collect();
        batch.dir(o, files);
    }
    if let Some(o) = &html_dir {
        let designs: Vec<_> = outputs
            .iter()
            .map(|(n, o)| (*n, &o.report, &o.figures))
            .collect();
        let page = html::render(&html::run_page(&html::command_line(), &designs));
        batch.dir(o, vec![(html::PAGE_FILE.to_string(), page.into())]);
    }
    output::commit(batch)?;
    if reports.show_table() {
        let comparison = if outputs.len() == 1 { &[][..] } else { &named };
        let report = text::render_text(&outputs[0].1.report, comparison);
        // The report names the design it is about: with a comma list, the full report
        // is the first design's, and the comparison below covers every one.
        let design = describe(&designs[0].cfg);
        let label = if outputs.len() == 1 {
            format!("Design: {design}")
        } else {
            format!(
                "Design: {} ({design}), the first of {}; every design side by side at the end",
                outputs[0].0,
                outputs.len()
            )
        };
        let (head, rest) = report.split_once("\n\n").unwrap_or((&report, ""));
        output::print(&format!("{head}\n{label}\n\n{rest}\n"))?;
    }
    Ok(())
}

/// A design in one phrase: preset, capacity, FTL, GC policy and buffer, as resolved.
fn describe(cfg: &ssdlab::config::Config) -> String {
    let v = serde_json::to_value(cfg).unwrap_or_default();
    let s = |path: &[&str]| {
        path.iter()
            .try_fold(&v, |v, k| v.get(k))
            .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
            .unwrap_or_else(|| "?".into())
    };
    format!(
        "preset {}, {}, ftl {}, gc {}, buffer {}",
        s(&["device", "preset"]),
        s(&["device", "capacity"]),
        s(&["ftl", "name"]),
        s(&["ftl", "gc"]),
        s(&["buffer", "name"])
    )
}
