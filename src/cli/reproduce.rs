//! `ssdlab reproduce`: rebuild a paper's experiment into a directory.

use super::CliError;
use super::output;
use super::registry;
use clap::Args;
use ssdlab::experiments;
use ssdlab::report::html;
use ssdlab::report::output::Batch;
use std::path::PathBuf;

/// Examples shown by `ssdlab reproduce --help`.
pub const AFTER_HELP: &str = "\
Examples:
  ssdlab reproduce --list                       experiments and what each rebuilds
  ssdlab reproduce android-ftl --out results/android
  ssdlab reproduce cftl --out results/cftl --quick   smaller sizes, seconds instead of minutes
  ssdlab reproduce ncq-buffer --out r/ncq --traces /data/traces   trace samples from DIR
  ssdlab reproduce cftl --out results/cftl --html results/cftl   plus index.html (offline page)

Every experiment writes claims.csv (one row per published result: the paper's value,
ours, the test, holds yes/no, and for a \"no\" its sensitivity figure and explanation)
and summary.md built from it (docs/reproductions.md). Trace samples are looked for in
../shared/traces beside the checkout the executable was built in, or --traces DIR.

--out is checked before the experiment starts. Nothing is written unless the whole
experiment succeeds: a new DIR (and missing parents) appears whole at the end; in an
existing DIR the files of the same names are replaced at the end, other files are left.";

/// `ssdlab reproduce` flags.
#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Experiment name (see --list).
    #[arg(value_name = "NAME", required_unless_present = "list",
          value_parser = registry::one_of(registry::experiments()))]
    pub name: Option<String>,
    /// Directory for the CSV, SVG and Markdown outputs (created if missing).
    #[arg(long, value_name = "DIR", required_unless_present = "list")]
    pub out: Option<PathBuf>,
    /// Smaller devices and shorter workloads (the summary says so).
    #[arg(long)]
    pub quick: bool,
    /// Directory of trace samples (msr/, spc-ascii/, …) for the trace sections of
    /// cftl and ncq-buffer [default: ../shared/traces beside the checkout of the
    /// executable]; the summary says where they came from or why they were skipped.
    #[arg(long, value_name = "DIR")]
    pub traces: Option<PathBuf>,
    /// Base seed of every run.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// List the experiments.
    #[arg(long)]
    pub list: bool,
    /// Also write an HTML report (DIR/index.html: the summary, every figure inline and
    /// every table sortable, in one self-contained page) into this directory.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
}

/// Runs `ssdlab reproduce`.
pub fn cmd(args: &ReproduceArgs) -> Result<(), CliError> {
    let (Some(name), Some(out), false) = (&args.name, &args.out, args.list) else {
        print!(
            "Experiments (ssdlab reproduce NAME --out DIR):\n{}",
            registry::lines(&registry::experiments(), 14)
        );
        return Ok(());
    };
    if let Some(t) = args.traces.as_ref().filter(|t| !t.is_dir()) {
        return Err(CliError::Input(format!(
            "--traces {}: not a directory; expected a directory of trace samples (msr/, spc-ascii/, …)",
            t.display()
        )));
    }
    let dir = output::dir("--out", out)?;
    let html_dir = args
        .html
        .as_deref()
        .map(|p| output::dir("--html", p))
        .transpose()?;
    if let Some(h) = &html_dir {
        output::distinct(
            &[(&dir, vec![]), (h, vec![html::PAGE_FILE.to_string()])],
            &[],
        )?;
    }
    let exp = experiments::find(name)
        .ok_or_else(|| CliError::Input(format!("unknown experiment `{name}`")))?;
    let mut ctx = experiments::Ctx::new(args.quick, args.seed)
        .with_traces(experiments::find_traces(args.traces.as_deref()));
    exp.run(&mut ctx)
        .map_err(|e| CliError::Input(format!("reproduce {name}: {e}")))?;
    let mut batch = Batch::new();
    let page = html_dir.as_ref().map(|_| {
        let files: Vec<(String, String)> = ctx
            .files()
            .iter()
            .map(|f| (f.file_name.clone(), f.contents.clone()))
            .collect();
        html::render(&html::files_page(
            &format!("ssdlab reproduce {name}"),
            &html::command_line(),
            &files,
        ))
    });
    html::add_to_batch(
        &mut batch,
        &dir,
        experiments::output_files(&ctx),
        html_dir.as_ref(),
        page,
    );
    output::commit(batch)?;
    for f in ctx.files() {
        println!("wrote {}", out.join(&f.file_name).display());
    }
    Ok(())
}
