//! Paper reproductions: `ssdlab reproduce` judges the claims registry
//! ([`registry`]: one evaluator file per registry experiment, each a declarative grid
//! run on the sweep engine plus the analysis that applies the registry's criteria).
//!
//! This module holds what every evaluator shares: [`Ctx`], the in-memory sink of the
//! outputs (nothing reaches the disk until the evaluation has succeeded: [`write_outputs`]
//! commits them all together, so a failed or interrupted run never leaves a
//! half-finished result directory behind), and [`find_traces`], where the trace samples
//! are.

pub mod registry;

use crate::config::Config;
use crate::host::SimError;
use crate::report::output;
use crate::run::run;
use crate::sim::{RunOptions, RunOutput};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// Why an experiment failed.
#[derive(Debug, thiserror::Error)]
pub enum ExpError {
    /// A run inside the experiment failed (the label says which).
    #[error("{label}: {source}")]
    Run {
        /// Which configuration of the experiment.
        label: String,
        /// What went wrong.
        source: SimError,
    },
    /// Anything else, e.g. an inconsistent setting.
    #[error("{0}")]
    Other(String),
}

/// One output file held in memory until the experiment succeeds.
#[derive(Clone, Debug)]
pub struct OutputFile {
    /// File name inside the output directory, e.g. `memory.csv`.
    pub file_name: String,
    /// Contents.
    pub contents: String,
}

/// The outputs of an evaluation, held in memory until it has succeeded.
#[derive(Debug, Default)]
pub struct Ctx {
    files: Vec<OutputFile>,
}

/// The trace-sample directory an experiment replays from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceDir {
    /// Found (or given with `--traces`): the directory and how it was found.
    Found {
        /// The directory holding `msr/`, `spc-ascii/`, ….
        dir: PathBuf,
        /// "given with --traces" or "found beside the checkout of the executable".
        how: String,
    },
    /// Not found: the places looked at, for the summary.
    Missing(String),
}

impl TraceDir {
    /// `dir`'s subdirectory `sub`, when traces were found.
    pub fn join(&self, sub: &str) -> Option<PathBuf> {
        match self {
            TraceDir::Found { dir, .. } => Some(dir.join(sub)),
            TraceDir::Missing(_) => None,
        }
    }

    /// One sentence for a summary: where the traces came from, or why a section was
    /// skipped.
    pub fn describe(&self) -> String {
        match self {
            TraceDir::Found { dir, how } => {
                format!("trace samples from `{}` ({how})", dir.display())
            }
            TraceDir::Missing(why) => format!(
                "no trace-sample directory found ({why}); pass `--traces DIR` to replay them"
            ),
        }
    }
}

/// Name of the trace-sample directory looked for beside a checkout.
const TRACE_DIR_NAME: &str = "shared/traces";

/// Finds the trace samples: `explicit` (from `--traces`) if given, else a
/// `shared/traces` directory beside the checkout the executable was built in (each
/// ancestor `A` of the executable's path is tried as `A/../shared/traces`), so the
/// result does not depend on the working directory.
pub fn find_traces(explicit: Option<&Path>) -> TraceDir {
    if let Some(d) = explicit {
        return if d.is_dir() {
            TraceDir::Found {
                dir: d.to_path_buf(),
                how: "given with --traces".into(),
            }
        } else {
            TraceDir::Missing(format!("--traces {} is not a directory", d.display()))
        };
    }
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return TraceDir::Missing(format!("the executable's path is unknown: {e}")),
    };
    let exe = exe.canonicalize().unwrap_or(exe);
    for a in exe.ancestors().skip(1) {
        let Some(parent) = a.parent() else { break };
        let cand = parent.join(TRACE_DIR_NAME);
        if cand.is_dir() {
            return TraceDir::Found {
                dir: cand,
                how: format!("beside the checkout of the executable, {}", a.display()),
            };
        }
    }
    TraceDir::Missing(format!(
        "looked for `../{TRACE_DIR_NAME}` from every directory above {}",
        exe.display()
    ))
}

impl Ctx {
    /// A context with no outputs yet.
    pub fn new() -> Ctx {
        Ctx::default()
    }

    fn push(&mut self, file_name: String, contents: String) {
        if let Some(f) = self.files.iter_mut().find(|f| f.file_name == file_name) {
            f.contents = contents;
        } else {
            self.files.push(OutputFile {
                file_name,
                contents,
            });
        }
    }

    /// A CSV table `STEM.csv` (fields quoted as needed).
    pub fn csv(&mut self, stem: &str, header: &[&str], rows: Vec<Vec<String>>) {
        debug_assert!(
            rows.iter().all(|r| r.len() == header.len()),
            "{stem}.csv: row width"
        );
        self.push(
            format!("{stem}.csv"),
            crate::report::table::csv(header, &rows),
        );
    }

    /// A Markdown summary `STEM.md`.
    pub fn markdown(&mut self, stem: &str, text: String) {
        self.push(format!("{stem}.md"), text);
    }

    /// Outputs so far, in the order they were first produced.
    pub fn files(&self) -> &[OutputFile] {
        &self.files
    }
}

/// Runs every `(label, config)` with [`crate::run::run`], in parallel, results in input
/// order (each run is a pure function of its config, so the order of execution cannot
/// change a result); fails on the first failed run.
pub fn run_all(configs: &[(String, Config)]) -> Result<Vec<RunOutput>, ExpError> {
    configs
        .par_iter()
        .map(|(label, cfg)| {
            run(cfg, RunOptions::default()).map_err(|source| ExpError::Run {
                label: label.clone(),
                source,
            })
        })
        .collect()
}

/// Every output of `ctx` as (file name, content), ready for [`output::Batch::dir`].
pub fn output_files(ctx: &Ctx) -> Vec<(String, output::Content<'static>)> {
    ctx.files()
        .iter()
        .map(|f| (f.file_name.clone(), f.contents.clone().into()))
        .collect()
}

/// Writes every output of `ctx` into `dir`, all together or none (see
/// [`output::Batch`]): a new `dir` (and missing parents) appears whole; in an existing
/// one the files of the same names are replaced at the end and other files are left.
/// Returns the paths written.
pub fn write_outputs(ctx: &Ctx, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let out = output::check("--out", dir, output::Expect::Dir)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let mut batch = output::Batch::new();
    batch.dir(&out, output_files(ctx));
    batch.commit().map_err(|e| e.source)
}

/// A Markdown table from a header and rows (the shared renderer).
pub use crate::report::table::markdown as md_table;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_stay_in_memory_until_written_and_a_rewrite_replaces() {
        let mut ctx = Ctx::new();
        ctx.csv("t", &["a", "b"], vec![vec!["1".into(), "x,y".into()]]);
        ctx.markdown("s", "# hi\n".into());
        ctx.csv("t", &["a"], vec![vec!["2".into()]]);
        assert_eq!(ctx.files().len(), 2);
        assert_eq!(ctx.files()[0].contents, "a\n2\n");
        let dir = std::env::temp_dir().join(format!("ssdlab-exp-{}", std::process::id()));
        let written = write_outputs(&ctx, &dir).unwrap();
        assert_eq!(written.len(), 2);
        assert_eq!(std::fs::read_to_string(dir.join("s.md")).unwrap(), "# hi\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn csv_quotes_fields_with_commas() {
        let mut ctx = Ctx::new();
        ctx.csv("t", &["a", "b"], vec![vec!["1".into(), "x,y".into()]]);
        assert_eq!(ctx.files()[0].contents, "a,b\n1,\"x,y\"\n");
    }

    #[test]
    fn markdown_table_has_a_separator_row() {
        let t = md_table(&["x", "y"], &[vec!["1".into(), "2".into()]]);
        assert_eq!(t, "| x | y |\n|---|---|\n| 1 | 2 |\n");
    }
}
