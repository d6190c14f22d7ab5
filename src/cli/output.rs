//! Output flags checked before any work and committed together after it (the
//! mechanism is [`ssdlab::report::output`]; this maps it to exit codes).

use super::CliError;
use super::args::ReportArgs;
use ssdlab::report::output::{self, Batch, Expect, OutputPath};
use std::path::Path;

/// Prints `text` on standard output: a reader that went away (`| head -1`) ends the
/// output quietly with exit 0, like coreutils; another failure is an output error.
pub fn print(text: &str) -> Result<(), CliError> {
    output::print_stdout(text)
        .map_err(|e| CliError::Output(format!("standard output: cannot write: {e}")))
}

/// Checks a single-file output flag (`-` = standard output).
pub fn file(flag: &str, path: &Path) -> Result<OutputPath, CliError> {
    output::check(flag, path, Expect::File).map_err(|e| CliError::Input(e.to_string()))
}

/// Checks a directory output flag.
pub fn dir(flag: &str, path: &Path) -> Result<OutputPath, CliError> {
    output::check(flag, path, Expect::Dir).map_err(|e| CliError::Input(e.to_string()))
}

/// Rejects outputs sharing a file with each other or with an input (see
/// [`output::check_distinct`]), and a file output where a directory output goes.
pub fn distinct(
    outputs: &[(&OutputPath, Vec<String>)],
    inputs: &[(&str, &Path)],
) -> Result<(), CliError> {
    file_not_on_dir(outputs).map_err(CliError::Input)?;
    output::check_distinct(outputs, inputs).map_err(|e| CliError::Input(e.to_string()))
}

/// A file output at (or above) the path of a directory output: `--svg D --json D`
/// with a new `D` passed every check, ran the whole simulation, then wrote the JSON as
/// `D` and failed to make the directory (issue 30). Both paths are known before the
/// work, so the clash is refused then.
fn file_not_on_dir(outputs: &[(&OutputPath, Vec<String>)]) -> Result<(), String> {
    use ssdlab::report::output::Dest;
    for (file, _) in outputs {
        let Dest::File { target: f } = &file.dest else {
            continue;
        };
        for (dir, _) in outputs {
            let Dest::Dir { target: d } = &dir.dest else {
                continue;
            };
            if d.starts_with(f) {
                return Err(format!(
                    "{} {}: the {} directory {} needs that path; a file output and a \
                     directory output need different paths",
                    file.flag,
                    file.path.display(),
                    dir.flag,
                    dir.path.display()
                ));
            }
        }
    }
    Ok(())
}

/// Writes every output of the batch, all or nothing; a failure is an output error
/// (exit 1) naming the path and the reason.
pub fn commit(batch: Batch<'_>) -> Result<Vec<std::path::PathBuf>, CliError> {
    batch
        .commit()
        .map_err(|e| CliError::Output(format!("{e}; no output file was written")))
}

/// `--json` and `--csv` of a run, checked.
pub struct Reports {
    /// `--json`.
    pub json: Option<OutputPath>,
    /// `--csv`.
    pub csv: Option<OutputPath>,
    /// `--json-format fio`: the JSON in fio's shape.
    pub fio_json: bool,
    /// `--quiet`.
    quiet: bool,
}

impl Reports {
    /// Checks the report flags (not yet against each other: see [`Reports::paths`]).
    pub fn check(a: &ReportArgs) -> Result<Reports, CliError> {
        Ok(Reports {
            json: a.json.as_deref().map(|p| file("--json", p)).transpose()?,
            csv: a.csv.as_deref().map(|p| file("--csv", p)).transpose()?,
            fio_json: a.json_format == "fio",
            quiet: a.quiet,
        })
    }

    /// The outputs, for [`distinct`].
    pub fn paths(&self) -> Vec<(&OutputPath, Vec<String>)> {
        [&self.json, &self.csv]
            .into_iter()
            .flatten()
            .map(|o| (o, Vec::new()))
            .collect()
    }

    /// Each given report output with the name of its format in the registry
    /// (`ssdlab::report::render`): `--json` as `json` (or `fio` with `--json-format
    /// fio`), `--csv` as `csv`.
    pub fn rendered(&self) -> Vec<(&OutputPath, &'static str)> {
        let json = if self.fio_json { "fio" } else { "json" };
        [(&self.json, json), (&self.csv, "csv")]
            .into_iter()
            .filter_map(|(o, f)| o.as_ref().map(|o| (o, f)))
            .collect()
    }

    /// Whether the table goes to standard output: not with `-q`, and not when an output
    /// does (one stream, one format).
    pub fn show_table(&self) -> bool {
        !self.quiet && !self.paths().iter().any(|(o, _)| o.is_stdout())
    }
}
