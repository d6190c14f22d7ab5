//! `ssdlab sweep GRID.toml --out DIR`: every cell of a grid of designs, in parallel and
//! resumable (the library's [`ssdlab::sweep`]); `--ray ADDRESS` sends the cells to a
//! Ray cluster through the Python package's backend instead.

use super::CliError;
use super::output;
use clap::Args;
use ssdlab::report::fio::JsonFormat;
use ssdlab::report::html;
use ssdlab::report::output::Batch;
use ssdlab::sweep::{Grid, Plan, Record, Sweep, store::STORE_FILE};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// Examples shown by `ssdlab sweep --help`.
pub const AFTER_HELP: &str = "\
Examples:
  ssdlab sweep grid.toml --out results/ftl-gc           run every cell on every core
  ssdlab sweep grid.toml --out results/ftl-gc           again: runs only missing cells
  ssdlab sweep grid.toml --out results/ftl-gc --dry-run list the cells, done or not
  ssdlab sweep grid.toml --out r --html r/html --jobs 2
  ssdlab sweep grid.toml --out r --ray 127.0.0.1:6379   cells as Ray tasks (pip install . and ray)

A grid file (docs/sweep.md):

  repeat = 1
  exclude = [{ \"ftl.name\" = \"dftl\", \"device.op_percent\" = 7 }]   # optional (also where)
  [base]
  preset = \"default\"
  workload = \"random-write\"
  set = { \"device.capacity\" = \"1GiB\", \"workload.requests\" = 20000 }
  [[axis]]
  key = \"ftl.name\"
  values = [\"page\", \"dftl\"]
  [[axis]]
  key = \"device.op_percent\"
  values = [7, 15, 28]

With `kind = \"hybrid\"` under [base] every cell is an `ssdlab hybrid` configuration
(an HDD alone or behind a flash cache; keys as `ssdlab hybrid --set` takes them, e.g.
\"cache.size\", \"hdd.average_seek_ms\", \"workload.kind\"); see docs/sweep.md.

Every cell's design is validated before the first one runs; a bad key or value is
refused naming its axis. DIR/store.jsonl keeps every finished cell (keyed by a hash of
its resolved design, workload, seed and the ssdlab version): an interrupted sweep run
again runs only the missing cells. At the end DIR holds results.csv, results.parquet
(one row per cell) and reports.jsonl (the full reports; --json-format fio: in fio's
JSON shape). A failed cell is recorded with
its error and the others go on; the exit code is then 1.";

/// `ssdlab sweep` flags.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The grid file (TOML; docs/sweep.md).
    #[arg(value_name = "GRID.toml")]
    pub grid: PathBuf,
    /// Directory for the store and the results (created if missing; an existing one
    /// resumes the sweep it holds).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Cells run at once (default: RAYON_NUM_THREADS, else every core).
    #[arg(long, short = 'j', value_name = "N",
          value_parser = super::args::whole::<usize>(0, u64::MAX))]
    pub jobs: Option<usize>,
    /// Run the cells as tasks on the Ray cluster at ADDRESS (e.g. 127.0.0.1:6379 or
    /// auto); needs the ssdlab Python package and ray (pip install . ray).
    #[arg(long, value_name = "ADDRESS")]
    pub ray: Option<String>,
    /// Python interpreter for --ray (default: $SSDLAB_PYTHON, else python3).
    #[arg(long, value_name = "PATH", requires = "ray")]
    pub python: Option<PathBuf>,
    /// Run the cells that failed in an earlier sweep again.
    #[arg(long)]
    pub retry_failed: bool,
    /// Validate the grid and list its cells (done or to run); run nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Write an HTML report (DIR/index.html, self-contained) into this directory.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// Shape of each cell's report in DIR/reports.jsonl: `ssdlab` (the full report, as
    /// `ssdlab run --json`) or `fio` (fio 3.x `--output-format=json`, one job, as
    /// `ssdlab run --json-format fio`).
    #[arg(long, value_name = "FORMAT", default_value = "ssdlab", value_parser = ["ssdlab", "fio"])]
    pub json_format: String,
    /// No summary on standard error.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Most cells run at once by `--jobs` (documented in docs/sweeps.md).
const MAX_JOBS: usize = 256;

/// Runs `ssdlab sweep`.
pub fn cmd(args: &SweepArgs) -> Result<(), CliError> {
    let grid = Grid::load(&args.grid).map_err(|e| CliError::Input(e.to_string()))?;
    let jobs = match args.jobs {
        Some(0) => {
            return Err(CliError::Input(
                "--jobs 0: expected at least 1 cell at a time".into(),
            ));
        }
        // Each job is a thread with its own simulated drive: beyond a few per core they
        // only add memory and switching (10,000 took 75 s to start).
        Some(j) if j > MAX_JOBS => {
            return Err(CliError::Input(format!(
                "--jobs {j}: expected at most {MAX_JOBS} cells at a time (this machine has \
                 {} cores)",
                std::thread::available_parallelism().map_or(1, |n| n.get())
            )));
        }
        j => j,
    };
    // Cells at once: what the pool will run (a Ray cluster's memory is its own).
    let parallel = if args.ray.is_some() {
        1
    } else {
        jobs.unwrap_or_else(rayon::current_num_threads)
    };
    let plan = Plan::new(grid, parallel).map_err(|e| CliError::Input(e.to_string()))?;
    let out = output::dir("--out", &args.out)?;
    let html_out = args
        .html
        .as_deref()
        .map(|p| output::dir("--html", p))
        .transpose()?;
    let mut names: Vec<String> = ssdlab::sweep::OUTPUT_FILES
        .iter()
        .map(|s| s.to_string())
        .collect();
    names.push(STORE_FILE.into());
    let mut outs = vec![(&out, names)];
    if let Some(h) = &html_out {
        outs.push((h, vec![html::PAGE_FILE.to_string()]));
    }
    output::distinct(&outs, &inputs(&args.grid, &plan))?;

    // Before any work: the values the device changes, which the results then carry as
    // requested and actual (docs/config.md, "Requested and actual values").
    for w in plan.actual_warnings() {
        eprintln!("warning: {w}");
    }
    if args.dry_run {
        return dry_run(&plan, &args.out);
    }
    if args.ray.is_some() {
        check_python(&python(args))?;
    }
    let mut sweep = Sweep::open(plan, &args.out).map_err(|e| CliError::Input(e.to_string()))?;
    let format = JsonFormat::parse(&args.json_format).expect("clap checks the values");
    ssdlab::sweep::table::check_format(&sweep.plan, &sweep.store, format)
        .map_err(|e| CliError::Input(e.to_string()))?;
    let pending = sweep.pending(args.retry_failed).len();
    let before = sweep.summary();
    if !args.quiet {
        eprintln!(
            "{}: {} cells ({} distinct{}), {} already done, {} to run {}",
            args.grid.display(),
            before.cells,
            before.distinct,
            if sweep.plan.rules.is_empty() {
                String::new()
            } else {
                format!("; {} excluded by the grid's rules", sweep.plan.excluded)
            },
            before.distinct - pending,
            pending,
            match &args.ray {
                Some(a) => format!("on the Ray cluster at {a}"),
                None => format!(
                    "on {} threads",
                    jobs.unwrap_or_else(rayon::current_num_threads)
                ),
            }
        );
    }
    match &args.ray {
        None => {
            sweep
                .run_local(jobs, !args.quiet, args.retry_failed)
                .map_err(|e| CliError::Output(e.to_string()))?;
        }
        Some(address) => run_ray(&mut sweep, address, args)?,
    }

    // The directory exists now (it holds the store): check it again as it is.
    let out = output::dir("--out", &args.out)?;
    let table = sweep.table();
    let files = sweep
        .output_files(&table, format)
        .map_err(|e| CliError::Output(e.to_string()))?;
    let mut batch = Batch::new();
    let page = html_out.as_ref().map(|_| {
        html::render(&ssdlab::sweep::page::sweep_page(
            &sweep,
            &table,
            &html::command_line(),
        ))
    });
    html::add_to_batch(&mut batch, &out, files, html_out.as_ref(), page);
    output::commit(batch)?;
    let s = sweep.summary();
    if !args.quiet {
        eprintln!(
            "{} cells: {} ok, {} failed; wrote {} in {}",
            s.cells,
            s.cells - s.failed,
            s.failed,
            ssdlab::sweep::OUTPUT_FILES.join(", "),
            args.out.display()
        );
    }
    if s.failed > 0 {
        return Err(CliError::Failed(format!(
            "{} of {} cells failed (their errors are in the `error` column of {}); the other results were written",
            s.failed,
            s.cells,
            args.out.join("results.csv").display()
        )));
    }
    Ok(())
}

/// The grid, its base config file and every trace, for output collision checks.
fn inputs<'a>(grid: &'a Path, plan: &'a Plan) -> Vec<(&'static str, &'a Path)> {
    let mut v: Vec<(&str, &Path)> = vec![("grid", grid)];
    if let Some((name, _)) = &plan.grid.base.config {
        v.push(("base.config", Path::new(name.as_str())));
    }
    for c in &plan.cells {
        if let Some(p) = c.design.trace_path()
            && !v.iter().any(|(_, q)| *q == p)
        {
            v.push(("trace", p));
        }
    }
    v
}

/// `--dry-run`: the cells with their keys and whether the store in `dir` has them.
fn dry_run(plan: &Plan, dir: &Path) -> Result<(), CliError> {
    use ssdlab::config::actual::fmt_pct;
    // Read-only: the store file is read, not opened for writing or locked.
    let done: std::collections::HashMap<String, String> =
        std::fs::read_to_string(dir.join(STORE_FILE))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Record>(l).ok())
            .map(|r| (r.key.clone(), format!("{:?}", r.status).to_lowercase()))
            .collect();
    let mut out = String::new();
    out += "cell\tkey\tstate";
    for a in &plan.grid.axes {
        out += &format!("\t{}", a.name);
    }
    let seed_axis = plan.grid.axes.iter().any(|a| a.name == "seed");
    if plan.grid.repeat > 1 {
        out += "\trep";
    }
    if !seed_axis {
        out += "\tseed";
    }
    // What the device makes of the values it rounds, beside what the axes ask for.
    out += "\top_percent_actual\tslc_cache_percent_actual\n";
    for c in &plan.cells {
        out += &format!(
            "{}\t{}\t{}",
            c.index + 1,
            c.spec.key,
            done.get(&c.spec.key).map_or("to run", String::as_str)
        );
        for v in &c.values {
            out += &format!("\t{}", ssdlab::sweep::plan::value_text(v));
        }
        if plan.grid.repeat > 1 {
            out += &format!("\t{}", c.rep);
        }
        if !seed_axis {
            out += &format!("\t{}", c.seed);
        }
        match c.design.run() {
            Some(d) => {
                out += &format!(
                    "\t{}\t{}\n",
                    fmt_pct(d.device.op_percent_actual),
                    fmt_pct(d.device.slc_cache_percent_actual)
                );
            }
            // A hybrid cell's SSD is built when it runs.
            None => out += "\t\t\n",
        }
    }
    output::print(&out)?;
    // What each rule did, on standard error so that standard output stays one table.
    for r in &plan.rules {
        let verb = if r.text.starts_with("where") {
            "kept"
        } else {
            "excluded"
        };
        eprintln!("{}: {} cells {verb}", r.text, r.cells);
    }
    if !plan.rules.is_empty() {
        eprintln!(
            "{} cells excluded in all, {} left",
            plan.excluded,
            plan.cells.len()
        );
    }
    Ok(())
}

/// The interpreter of `--ray`: `--python`, else `$SSDLAB_PYTHON`, else python3.
fn python(args: &SweepArgs) -> PathBuf {
    args.python
        .clone()
        .or_else(|| std::env::var_os("SSDLAB_PYTHON").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("python3"))
}

/// The Python modules the Ray backend imports, and how to install each.
const RAY_MODULES: &[(&str, &str)] = &[
    ("ray", "pip install 'ray[default]'"),
    ("ssdlab", "pip install . from the ssdlab checkout"),
];

/// Before any cell runs: `python` starts and finds every module of [`RAY_MODULES`]
/// (without importing them: a missing one is named, not a traceback of the driver's).
fn check_python(python: &std::path::Path) -> Result<(), CliError> {
    let names: Vec<String> = RAY_MODULES.iter().map(|(m, _)| format!("'{m}'")).collect();
    let probe = format!(
        "import importlib.util as u\nprint(' '.join(m for m in ({},) if u.find_spec(m) is None))",
        names.join(", ")
    );
    let o = std::process::Command::new(python)
        .args(["-c", &probe])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| {
            CliError::Input(format!(
                "--ray: cannot start {} ({e}); name a Python 3 interpreter with ray and the \
                 ssdlab package with --python or $SSDLAB_PYTHON (docs/python.md)",
                python.display()
            ))
        })?;
    if !o.status.success() {
        return Err(CliError::Input(format!(
            "--ray: {} does not run Python 3 ({}): {}; name another with --python",
            python.display(),
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        )));
    }
    let stdout = String::from_utf8_lossy(&o.stdout);
    let missing: Vec<&(&str, &str)> = RAY_MODULES
        .iter()
        .filter(|(m, _)| stdout.split_whitespace().any(|w| w == *m))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let what: Vec<String> = missing
        .iter()
        .map(|(m, how)| format!("module '{m}' ({how})"))
        .collect();
    Err(CliError::Input(format!(
        "--ray: {} lacks the Python {} the Ray backend needs; install into that \
         interpreter (see docs/python.md) or name another with --python; nothing was run",
        python.display(),
        what.join(" and ")
    )))
}

/// Prefix of a record line from the Ray driver (anything else on its stdout is Ray's).
const RECORD_PREFIX: &str = "SSDLAB-RECORD ";

/// `--ray`: the missing cells' specs go to `python -m ssdlab.ray_backend` on its stdin,
/// one JSON line each; its records come back on stdout as each task ends and go into
/// the store, exactly as the local backend's do.
fn run_ray(sweep: &mut Sweep, address: &str, args: &SweepArgs) -> Result<(), CliError> {
    let python = python(args);
    let specs: Vec<String> = sweep
        .pending(args.retry_failed)
        .iter()
        .map(|c| serde_json::to_string(&c.spec).expect("a spec serializes"))
        .collect();
    if specs.is_empty() {
        return Ok(());
    }
    let mut child = std::process::Command::new(&python)
        .args(["-m", "ssdlab.ray_backend", "--address", address])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| {
            CliError::Input(format!(
                "--ray: cannot start {} ({e}); install the ssdlab Python package and ray into it (pip install . ray, see docs/python.md) or name another with --python",
                python.display()
            ))
        })?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let feeder = std::thread::spawn(move || -> std::io::Result<()> {
        for s in specs {
            writeln!(stdin, "{s}")?;
        }
        Ok(())
    });
    let stdout = child.stdout.take().expect("piped stdout");
    let total = sweep.pending(args.retry_failed).len();
    let bar = ssdlab::sweep::runner::progress_bar(total, !args.quiet);
    let mut error = None;
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.map_err(|e| CliError::Output(format!("--ray: reading the driver: {e}")))?;
        let Some(json) = line.strip_prefix(RECORD_PREFIX) else {
            // Ray's own chatter: pass it on.
            eprintln!("{line}");
            continue;
        };
        let rec = serde_json::from_str::<Record>(json)
            .map_err(|e| format!("--ray: a record the driver sent does not parse: {e}"))
            .and_then(|r| sweep.record(r).map_err(|e| e.to_string()));
        if let Err(e) = rec {
            error = Some(e);
            break;
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    if let Some(e) = error {
        let _ = child.kill();
        let _ = child.wait();
        return Err(CliError::Output(e));
    }
    let status = child
        .wait()
        .map_err(|e| CliError::Output(format!("--ray: {e}")))?;
    let _ = feeder.join();
    if !status.success() {
        return Err(CliError::Output(format!(
            "--ray: the Ray driver ({} -m ssdlab.ray_backend) exited with {status}; the cells it finished are kept in the store, run the sweep again to resume",
            python.display()
        )));
    }
    Ok(())
}
