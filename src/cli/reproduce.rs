//! `ssdlab reproduce`: judge the claims registry (or one paper's or experiment's rows)
//! into a directory.

use super::CliError;
use super::output;
use super::registry;
use clap::Args;
use ssdlab::experiments;
use ssdlab::experiments::registry::{eval, paper_prefix};
use ssdlab::names;
use ssdlab::report::html;
use ssdlab::report::output::{Batch, OutputPath};
use std::path::PathBuf;

/// Examples shown by `ssdlab reproduce --help`.
pub const AFTER_HELP: &str = "\
Examples:
  ssdlab reproduce --all --out /tmp/claims      judge all 143 registry claims (claims.csv,
                                                points.csv, summary.md, experiments.md)
  ssdlab reproduce --paper F,Z --out /tmp/pl    the placement registry's FDP and ZNS rows
  ssdlab reproduce cftl --out /tmp/cftl         one paper's rows (= --paper C)
  ssdlab reproduce --paper C,H --out /tmp/ch    the rows of papers C and H
  ssdlab reproduce --experiment EXP-M10 --out /tmp/m10   one experiment's rows (resumable)
  ssdlab reproduce --all --quick --out /tmp/quick   ends of every range only (CI); labels marked
  ssdlab reproduce cftl --out /tmp/cftl --html /tmp/cftl   plus index.html (offline page)
  ssdlab reproduce --list                       papers, their names and the 30 experiments

The judge is the claims registry carried in the binary (registry/claims.toml: 130 claims
of the five papers, each with a mechanical criterion and a grid of the parameters the
paper leaves open, fixed before anything ran; docs/reproductions.md), joined with the
placement registry (registry/placement.toml: 13 claims of published FDP and ZNS results,
pre-stated the same way; docs/placement-reproductions.md). Each experiment
runs its whole grid with seeds 1-3 (fixed by the registry) as one resumable sweep under
DIR/cells/, and every selected registry row gets one row in claims.csv with its label
(robust, conditional, fails, unresolved, not evaluable), the points holding / evaluated /
registered, the measured values and the paper's; points.csv has every grid point;
isolation.csv the experiments that isolate a miss's cause; summary.md is generated
from those tables; experiments.md records each experiment's
setup, grid and every default with its source. A killed run resumes where it stopped
when given the same --out. Trace samples are looked for in ../shared/traces beside the
checkout the executable was built in, or --traces DIR.

--out is checked before any work. Nothing but the resumable cells/ store is written
unless the whole evaluation succeeds: the result files appear together at the end.";

/// `ssdlab reproduce` flags.
#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// A paper by name: its registry rows (mgmt-block = M, ncq-buffer = N, cftl = C,
    /// android-ftl = A, hdd-cache = H, fdp = F, zns = Z; see --list).
    #[arg(value_name = "PAPER", conflicts_with_all = ["all", "paper"],
          value_parser = registry::one_of(names::papers()))]
    pub name: Option<String>,
    /// Every row of the registry (with --paper or --experiment: only theirs).
    #[arg(long)]
    pub all: bool,
    /// Only the rows of these papers (claim-id prefixes M, N, C, A, H, F, Z; comma-separated).
    #[arg(long, value_name = "PREFIXES", value_delimiter = ',',
          value_parser = ["M", "N", "C", "A", "H", "F", "Z"])]
    pub paper: Vec<String>,
    /// Only the rows of these registry experiments (EXP-M1 … EXP-H4, EXP-F1 … EXP-F3, EXP-Z1; comma-separated),
    /// e.g. to run or resume one long experiment on its own.
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    pub experiment: Vec<String>,
    /// Directory for claims.csv, points.csv, summary.md, experiments.md and the
    /// resumable cells/ store (created if missing).
    #[arg(long, value_name = "DIR", required_unless_present = "list")]
    pub out: Option<PathBuf>,
    /// Only the two ends of each free parameter's range, on scaled-down drives (CI's
    /// check that every experiment runs; the summary says the labels are then not the
    /// verdict).
    #[arg(long)]
    pub quick: bool,
    /// Directory of trace samples (msr/, spc-ascii/, …) for the trace experiments
    /// [default: ../shared/traces beside the checkout of the executable]; a row whose
    /// traces are missing is "not evaluable" and says where it looked.
    #[arg(long, value_name = "DIR")]
    pub traces: Option<PathBuf>,
    /// List the papers (with their names) and the registry's experiments.
    #[arg(long, conflicts_with_all = ["all", "paper", "experiment", "name"])]
    pub list: bool,
    /// Also write an HTML report (DIR/index.html: the summary and every table, in one
    /// self-contained page) into this directory.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
}

/// `--list`: the papers and the experiments.
fn list() -> String {
    let reg = experiments::registry::registry();
    let mut s = format!(
        "Papers (ssdlab reproduce PAPER --out DIR, or --paper PREFIX):\n{}\n\
         Experiments (ssdlab reproduce --experiment ID --out DIR):\n",
        names::lines(&names::papers(), 12)
    );
    let exps: Vec<(&str, String)> = reg
        .experiments
        .iter()
        .map(|x| {
            (
                x.id.as_str(),
                format!("{} [{}]", x.title, x.claims.join(" ")),
            )
        })
        .collect();
    for (id, about) in exps {
        s.push_str(&format!("  {id:<8} {about}\n"));
    }
    s
}

/// Runs `ssdlab reproduce`.
pub fn cmd(args: &ReproduceArgs) -> Result<(), CliError> {
    if args.list {
        return output::print(&list());
    }
    if args.name.is_none() && !args.all && args.paper.is_empty() && args.experiment.is_empty() {
        return Err(CliError::Input(
            "reproduce: say which rows to judge: a paper name (see --list), --all, \
             --paper PREFIXES or --experiment IDS"
                .into(),
        ));
    }
    let out = args
        .out
        .as_ref()
        .ok_or_else(|| CliError::Input("reproduce needs --out DIR".into()))?;
    if let Some(t) = args.traces.as_ref().filter(|t| !t.is_dir()) {
        return Err(CliError::Input(format!(
            "--traces {}: not a directory; expected a directory of trace samples (msr/, spc-ascii/, …)",
            t.display()
        )));
    }
    let dir = output::dir("--out", out)?;
    let html_dir = html_dir(args, &dir)?;
    let papers: Vec<String> = match &args.name {
        Some(n) => vec![paper_prefix(n).expect("clap checked the name").to_string()],
        None => args.paper.clone(),
    };
    let env = eval::Env {
        quick: args.quick,
        work: Some(out.clone()),
        traces: experiments::find_traces(args.traces.as_deref()),
    };
    let ev = eval::evaluate_only(&env, &papers, &args.experiment)
        .map_err(|e| CliError::Input(format!("reproduce: {e}")))?;
    let mut ctx = experiments::Ctx::new();
    eval::write(&ev, &mut ctx);
    let title = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    commit(
        &ctx,
        &format!("ssdlab {title}"),
        out,
        &dir,
        html_dir.as_ref().map(|h| (h, args.html.as_deref())),
    )?;
    for (paper, counts) in eval::label_counts(&ev) {
        let line: Vec<String> = counts.iter().map(|(l, n)| format!("{l} {n}")).collect();
        eprintln!("{paper}: {}", line.join(", "));
    }
    Ok(())
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

/// Writes `ctx`'s files (and the page) together. `html` is the page's directory and,
/// for the registry's page, the `--html` path as given, from which the page
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
        output::print(&format!("wrote {}\n", out.join(&f.file_name).display()))?;
    }
    Ok(())
}
