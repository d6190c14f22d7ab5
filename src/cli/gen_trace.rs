//! `ssdlab gen-trace`: a generator's requests as an ASCII trace.

use super::CliError;
use super::design::{Check, DesignArgs};
use super::output;
use clap::Args;
use ssdlab::report::output::{Batch, Content};
use ssdlab::workload::synth;
use std::path::PathBuf;

/// `ssdlab gen-trace` flags.
#[derive(Args, Debug)]
pub struct GenTraceArgs {
    /// Design and workload (the device sets the capacity).
    #[command(flatten)]
    pub design: DesignArgs,
    /// Output file (`-` = standard output).
    #[arg(long, short, value_name = "FILE", help_heading = "Output")]
    pub out: PathBuf,
}

/// Runs `ssdlab gen-trace`.
pub fn cmd(args: &GenTraceArgs) -> Result<(), CliError> {
    let designs = args.design.designs(Check::Device)?;
    let out = output::file("--out", &args.out)?;
    output::distinct(&[(&out, Vec::new())], &args.design.inputs(&designs))?;
    let d = &designs[0];
    let phases = synth::generate(&d.cfg.workload, d.capacity_bytes(), d.cfg.seed)
        .map_err(|e| CliError::Input(format!("workload: {e}")))?;
    let mut lines = 0u64;
    let mut batch = Batch::new();
    let count = &mut lines;
    batch.file(
        &out,
        Content::Writer(Box::new(move |w| {
            // Phases follow one another in time: each starts where the previous one ended.
            let mut offset_ns = 0u64;
            for p in phases {
                let mut last = 0u64;
                let reqs = p.requests.map(|mut r| {
                    r.arrival_ns += offset_ns;
                    last = r.arrival_ns;
                    r
                });
                *count += synth::write_ascii(reqs, &mut *w)?;
                offset_ns = last + 1;
            }
            Ok(())
        })),
    );
    output::commit(batch)?;
    let to = if out.is_stdout() {
        "standard output".to_string()
    } else {
        args.out.display().to_string()
    };
    eprintln!("wrote {lines} requests to {to}");
    Ok(())
}
