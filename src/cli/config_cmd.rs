//! `ssdlab config`: the resolved configuration as TOML.

use super::CliError;
use super::design::{Check, DesignArgs};
use super::output;
use clap::Args;
use ssdlab::report::output::Batch;
use std::path::PathBuf;

/// `ssdlab config` flags.
#[derive(Args, Debug)]
pub struct ConfigArgs {
    /// Design and workload.
    #[command(flatten)]
    pub design: DesignArgs,
    /// Write the TOML here instead of standard output (`-` = standard output).
    #[arg(long, short, value_name = "FILE", help_heading = "Output")]
    pub out: Option<PathBuf>,
}

/// Runs `ssdlab config`.
pub fn cmd(args: &ConfigArgs) -> Result<(), CliError> {
    let designs = args.design.designs(Check::Device)?;
    let out = output::file(
        "--out",
        args.out.as_deref().unwrap_or(std::path::Path::new("-")),
    )?;
    output::distinct(&[(&out, Vec::new())], &args.design.inputs(&designs))?;
    let cfg = &designs[0].cfg;
    let text = toml::to_string_pretty(cfg)
        .map_err(|e| CliError::Output(format!("cannot write the configuration as TOML: {e}")))?;
    let mut batch = Batch::new();
    batch.file(&out, text);
    output::commit(batch)?;
    Ok(())
}
