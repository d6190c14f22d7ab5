//! `ssdlab import-mqsim ssdconfig.xml [workload.xml] [-o out.toml]`: MQSim's XML
//! configuration as an ssdlab TOML file, with every MQSim parameter accounted for as
//! mapped, approximated or not mapped (the mapping is the library's [`ssdlab::mqsim`]).

use super::CliError;
use super::output;
use clap::Args;
use ssdlab::report::output::Batch;
use std::path::{Path, PathBuf};

/// Examples shown by `ssdlab import-mqsim --help`.
pub const AFTER_HELP: &str = "\
Examples:
  ssdlab import-mqsim ssdconfig.xml -o mqsim.toml          the device
  ssdlab import-mqsim ssdconfig.xml workload.xml -o w.toml the device and the first flow
  ssdlab run --config mqsim.toml --trace t.ascii --format ascii

The TOML starts with one comment per MQSim parameter: mapped (exactly), approximated
(how) or cannot map (why), with its file and line; elements MQSim does not read are
listed. Malformed XML exits with code 2 naming the file and line. docs/mqsim.md.";

/// `ssdlab import-mqsim` flags.
#[derive(Args, Debug)]
pub struct ImportMqsimArgs {
    /// MQSim's device configuration (ssdconfig.xml: <Execution_Parameter_Set>).
    #[arg(value_name = "SSDCONFIG.xml")]
    pub ssdconfig: PathBuf,
    /// MQSim's workload file (<MQSim_IO_Scenarios>); its first flow becomes the
    /// workload or trace settings.
    #[arg(value_name = "WORKLOAD.xml")]
    pub workload: Option<PathBuf>,
    /// Write the TOML here (default and `-`: standard output).
    #[arg(long, short, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

fn read(what: &str, p: &Path) -> Result<String, CliError> {
    std::fs::read_to_string(p)
        .map_err(|e| CliError::Input(format!("{what} {}: cannot read: {e}", p.display())))
}

/// Runs `ssdlab import-mqsim`.
pub fn cmd(a: &ImportMqsimArgs) -> Result<(), CliError> {
    let out = output::file("--out", a.out.as_deref().unwrap_or(Path::new("-")))?;
    let mut inputs: Vec<(&str, &Path)> = vec![("ssdconfig", a.ssdconfig.as_path())];
    if let Some(w) = &a.workload {
        inputs.push(("workload", w.as_path()));
    }
    output::distinct(&[(&out, Vec::new())], &inputs)?;
    let ssd_text = read("ssdconfig", &a.ssdconfig)?;
    let ssd_name = a.ssdconfig.display().to_string();
    let wl = match &a.workload {
        Some(w) => Some((w.display().to_string(), read("workload", w)?)),
        None => None,
    };
    let imp = ssdlab::mqsim::import(
        (&ssd_name, &ssd_text),
        wl.as_ref().map(|(n, t)| (n.as_str(), t.as_str())),
    )
    .map_err(|e| CliError::Input(e.to_string()))?;
    let command = match &wl {
        Some((n, _)) => format!("ssdlab import-mqsim {ssd_name} {n}"),
        None => format!("ssdlab import-mqsim {ssd_name}"),
    };
    let text = ssdlab::mqsim::to_toml(&imp, &command);
    // What is written must load: a mapping that produced an invalid design is a bug
    // here, reported as such rather than left for `run` to find.
    ssdlab::config::Config::load_with(None, Some(("imported configuration", &text)), toml::Table::new())
        .and_then(|c| c.resolve_device().map(|_| ()))
        .map_err(|e| CliError::Input(format!("{command}: the imported configuration does not load ({e}); please report this with the XML")))?;
    if !imp.unknown.is_empty() {
        eprintln!(
            "import-mqsim: {} element(s) MQSim does not read were ignored: {}",
            imp.unknown.len(),
            imp.unknown
                .iter()
                .map(|(f, p, l)| format!("{f}:{l} {p}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let mut batch = Batch::new();
    batch.file(&out, text);
    output::commit(batch)?;
    Ok(())
}
