//! `ssdlab gen-trace`: a generator's requests as an ASCII trace.

use super::CliError;
use super::design::{Check, DesignArgs};
use super::output;
use clap::Args;
use ssdlab::report::output::{Batch, Content};
use ssdlab::workload::synth;
use std::path::PathBuf;

/// Examples shown by `ssdlab gen-trace --help`.
pub const AFTER_HELP: &str = "\
Examples:
  ssdlab gen-trace --workload random-write --capacity 4GiB --requests 10k -o rw.trace
  ssdlab gen-trace --trace hm_0.csv --format msr -o hm_0.ascii      convert a trace
  ssdlab gen-trace --trace hm_0.csv --requests 1000 -o - | head     its first 1,000 requests";

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
    // File-level workloads produce file operations, not block requests: nothing here
    // could write them (they ran as the default suite before, silently).
    if d.cfg.fs.active() || d.cfg.fs.workload.is_some() || d.cfg.fs.trace.is_some() {
        return Err(CliError::Input(
            "--fs / file workloads (iozone-file, …) / --file-trace: gen-trace writes the \
             block requests of a generator or converts a block trace (--trace); file-system \
             runs are `ssdlab run`'s"
                .into(),
        ));
    }
    let mut lines = 0u64;
    let mut batch = Batch::new();
    let count = &mut lines;
    if d.cfg.trace.path.is_some() {
        // Conversion: any trace reader's requests (with --format, --trace-device,
        // --trace-fit, --columns, --requests applied as a run applies them) written as
        // the ASCII format.
        let (phases, _) = ssdlab::sim::build_workload(&d.cfg, d.capacity_bytes())
            .map_err(|e| CliError::Input(e.to_string()))?;
        batch.file(
            &out,
            Content::Writer(Box::new(move |w| {
                for p in phases {
                    let mut failed = None;
                    let reqs = p.requests.map_while(|r| match r {
                        Ok(r) => Some(r),
                        Err(e) => {
                            failed = Some(e);
                            None
                        }
                    });
                    *count += synth::write_ascii(reqs, &mut *w)?;
                    if let Some(e) = failed {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::InvalidData,
                            e.to_string(),
                        ));
                    }
                }
                Ok(())
            })),
        );
    } else {
        let phases = synth::generate(&d.cfg.workload, d.capacity_bytes(), d.cfg.seed)
            .map_err(|e| CliError::Input(format!("workload: {e}")))?;
        batch.file(
            &out,
            Content::Writer(Box::new(move |w| {
                // Phases follow one another in time: each starts where the previous one
                // ended.
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
    }
    // A malformed trace line met while converting is bad input (exit 2, naming the
    // trace file and line), not a failure to write the output.
    batch.commit().map_err(|e| {
        if e.source.kind() == std::io::ErrorKind::InvalidData {
            CliError::Input(format!("--trace: {}; no output file was written", e.source))
        } else {
            CliError::Output(format!("{e}; no output file was written"))
        }
    })?;
    if ssdlab::report::output::stdout_closed() {
        // `gen-trace -o - | head`: the reader took what it wanted; nothing to report.
        return Ok(());
    }
    let to = if out.is_stdout() {
        "standard output".to_string()
    } else {
        args.out.display().to_string()
    };
    eprintln!("wrote {lines} requests to {to}");
    Ok(())
}
