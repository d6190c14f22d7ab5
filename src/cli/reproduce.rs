//! `ssdlab reproduce`: rebuild a paper's experiment into a directory.

use super::CliError;
use super::output;
use super::registry;
use clap::Args;
use ssdlab::experiments;
use ssdlab::experiments::registry::eval;
use ssdlab::report::html;
use ssdlab::report::output::{Batch, OutputPath};
use std::path::PathBuf;

/// Examples shown by `ssdlab reproduce --help`.
pub const AFTER_HELP: &str = "\
Examples:
  ssdlab reproduce --all --out results/claims   judge all 130 registry claims (claims.csv,
                                                points.csv, summary.md); resumable
  ssdlab reproduce --all --paper C,H --out r/ch only the rows of papers C and H
  ssdlab reproduce --all --experiment EXP-M10 --out r/m10   one experiment's rows (resumable)
  ssdlab reproduce --all --quick --out r/quick  ends of every range only (CI); labels marked
  ssdlab reproduce --list                       experiments and what each rebuilds
  ssdlab reproduce android-ftl --out results/android
  ssdlab reproduce cftl --out results/cftl --quick   smaller sizes, seconds instead of minutes
  ssdlab reproduce ncq-buffer --out r/ncq --traces /data/traces   trace samples from DIR
  ssdlab reproduce cftl --out results/cftl --html results/cftl   plus index.html (offline page)

--all evaluates the claims registry carried in the binary (registry/claims.toml: 130
claims of the five papers, each with a criterion and a grid of the parameters the paper
leaves open, fixed before anything ran; docs/reproductions.md). Every registry row gets
one row in claims.csv with its label (robust, conditional, fails, unresolved, not
evaluable), points holding / evaluated / registered, the measured values and the paper's.

A named experiment (android-ftl, cftl, ...) rebuilds that paper's figures and writes
checks.csv (one row per published result: the paper's value,
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
    #[arg(value_name = "NAME", required_unless_present_any = ["list", "all"],
          conflicts_with = "all",
          value_parser = registry::one_of(registry::experiments()))]
    pub name: Option<String>,
    /// Evaluate every row of the claims registry (or those of --paper) instead of one
    /// experiment: claims.csv, points.csv and summary.md in --out.
    #[arg(long)]
    pub all: bool,
    /// With --all: only the rows of these papers (claim-id prefixes M, N, C, A, H;
    /// comma-separated).
    #[arg(long, value_name = "PREFIXES", value_delimiter = ',', requires = "all",
          value_parser = ["M", "N", "C", "A", "H"])]
    pub paper: Vec<String>,
    /// With --all: only the rows of these registry experiments (EXP-M1 … EXP-H4;
    /// comma-separated), e.g. to run or resume one long experiment on its own.
    #[arg(long, value_name = "IDS", value_delimiter = ',', requires = "all")]
    pub experiment: Vec<String>,
    /// Directory for the CSV, SVG and Markdown outputs (created if missing).
    #[arg(long, value_name = "DIR", required_unless_present = "list")]
    pub out: Option<PathBuf>,
    /// Smaller devices and shorter workloads; with --all, only the two ends of each
    /// free parameter's range (the summary says the labels are then not the verdict).
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
    if args.all && !args.list {
        return all(args);
    }
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
    let html_dir = html_dir(args, &dir)?;
    let exp = experiments::find(name)
        .ok_or_else(|| CliError::Input(format!("unknown experiment `{name}`")))?;
    let mut ctx = experiments::Ctx::new(args.quick, args.seed)
        .with_traces(experiments::find_traces(args.traces.as_deref()));
    exp.run(&mut ctx)
        .map_err(|e| CliError::Input(format!("reproduce {name}: {e}")))?;
    commit(
        &ctx,
        &format!("ssdlab reproduce {name}"),
        out,
        &dir,
        html_dir.as_ref().map(|h| (h, None)),
    )
}

/// `--html DIR`, checked against `--out`.
fn html_dir(args: &ReproduceArgs, dir: &OutputPath) -> Result<Option<OutputPath>, CliError> {
    let html_dir = args
        .html
        .as_deref()
        .map(|p| output::dir("--html", p))
        .transpose()?;
    if let Some(h) = &html_dir {
        output::distinct(
            &[(dir, vec![]), (h, vec![html::PAGE_FILE.to_string()])],
            &[],
        )?;
    }
    Ok(html_dir)
}

/// `--all`: the claims registry, judged.
fn all(args: &ReproduceArgs) -> Result<(), CliError> {
    let out = args
        .out
        .as_ref()
        .ok_or_else(|| CliError::Input("--all needs --out DIR".into()))?;
    let dir = output::dir("--out", out)?;
    let html_dir = html_dir(args, &dir)?;
    let env = eval::Env {
        quick: args.quick,
        work: Some(out.clone()),
        traces: experiments::find_traces(args.traces.as_deref()),
    };
    let ev = eval::evaluate_only(&env, &args.paper, &args.experiment)
        .map_err(|e| CliError::Input(format!("reproduce --all: {e}")))?;
    let mut ctx = experiments::Ctx::new(args.quick, args.seed);
    eval::write(&ev, &mut ctx);
    let html = html_dir.as_ref().map(|h| (h, args.html.as_deref()));
    commit(&ctx, "ssdlab reproduce --all", out, &dir, html)?;
    for (paper, counts) in eval::label_counts(&ev) {
        let line: Vec<String> = counts.iter().map(|(l, n)| format!("{l} {n}")).collect();
        eprintln!("{paper}: {}", line.join(", "));
    }
    Ok(())
}

/// Writes `ctx`'s files (and the page) together. `html` is the page's directory and,
/// for the registry's page (`--all`), the `--html` path as given, from which the page
/// links the result files in `out`.
fn commit(
    ctx: &experiments::Ctx,
    title: &str,
    out: &std::path::Path,
    dir: &OutputPath,
    html: Option<(&OutputPath, Option<&std::path::Path>)>,
) -> Result<(), CliError> {
    let mut batch = Batch::new();
    let html_dir = html.map(|(h, _)| h);
    let page = html.map(|(_, registry)| {
        let files: Vec<(String, String)> = ctx
            .files()
            .iter()
            .map(|f| (f.file_name.clone(), f.contents.clone()))
            .collect();
        let page = match registry {
            Some(html_path) => {
                // Absolute on both sides, so `--out r --html r/page` links `../claims.csv`.
                let abs = |p: &std::path::Path| {
                    std::env::current_dir()
                        .map(|d| d.join(p))
                        .unwrap_or_else(|_| p.to_path_buf())
                };
                let (from, to) = (abs(html_path), abs(out));
                let links = files
                    .iter()
                    .map(|(n, _)| {
                        let href = if from == to {
                            n.clone()
                        } else {
                            html::relative_href(&from, &to.join(n))
                        };
                        (href, n.clone())
                    })
                    .collect();
                html::registry_page(title, &html::command_line(), &files, links)
            }
            None => html::files_page(title, &html::command_line(), &files),
        };
        html::render(&page)
    });
    html::add_to_batch(
        &mut batch,
        dir,
        experiments::output_files(ctx),
        html_dir,
        page,
    );
    output::commit(batch)?;
    for f in ctx.files() {
        println!("wrote {}", out.join(&f.file_name).display());
    }
    Ok(())
}
