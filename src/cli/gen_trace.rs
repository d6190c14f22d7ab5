//! `ssdlab gen-trace`: a generator's requests, or a converted trace, written in any
//! trace format that has a writer (`--out-format`, default ASCII).

use super::CliError;
use super::design::{Check, DesignArgs};
use super::output;
use super::registry;
use clap::Args;
use ssdlab::names;
use ssdlab::report::output::{Batch, Content};
use ssdlab::workload::RequestStream;
use ssdlab::workload::synth;
use ssdlab::workload::trace::{TraceFormat, TraceWriter};
use std::io::{BufWriter, Write};
use std::path::PathBuf;

/// Examples shown by `ssdlab gen-trace --help`.
pub const AFTER_HELP: &str = "\
Examples:
  ssdlab gen-trace --workload random-write --capacity 4GiB --requests 10k -o rw.trace
  ssdlab gen-trace --trace hm_0.csv --format msr -o hm_0.ascii      convert a trace
  ssdlab gen-trace --trace x.blkparse.txt --out-format fio -o x.iolog   to a fio iolog
  ssdlab gen-trace --trace hm_0.csv --requests 1000 -o - | head     its first 1,000 requests";

/// `ssdlab gen-trace` flags.
#[derive(Args, Debug)]
pub struct GenTraceArgs {
    /// Design and workload (the device sets the capacity).
    #[command(flatten)]
    pub design: DesignArgs,
    /// Output file (`-` = standard output). For `--out-format blktrace`, a per-CPU
    /// file name `NAME.blktrace.0` (or `-`).
    #[arg(long, short, value_name = "FILE", help_heading = "Output")]
    pub out: PathBuf,
    /// Format of the output file: any trace format (`--format` names the input's).
    /// Requests are written to the format's resolution (docs/traces.md); one the format
    /// cannot carry (a trim in msr) is refused, naming it.
    #[arg(long, value_name = "NAME", default_value = "ascii", ignore_case = true,
          value_parser = registry::one_of(names::trace_formats()), help_heading = "Output")]
    pub out_format: String,
}

/// A blktrace capture is a set of per-CPU files `NAME.blktrace.CPU` (what blkparse
/// `-i NAME` and `--trace NAME` read): one written file must be named as one of them.
fn check_blktrace_name(out: &std::path::Path) -> Result<(), CliError> {
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned());
    let per_cpu = name
        .as_deref()
        .and_then(|n| n.rsplit_once(".blktrace."))
        .is_some_and(|(base, cpu)| {
            !base.is_empty() && !cpu.is_empty() && cpu.bytes().all(|b| b.is_ascii_digit())
        });
    if out.as_os_str() == "-" || per_cpu {
        return Ok(());
    }
    Err(CliError::Input(format!(
        "--out {}: --out-format blktrace writes one per-CPU file of a blktrace capture, \
         which is named NAME.blktrace.CPU (blkparse -i NAME and ssdlab --trace NAME read \
         the set); name it e.g. {}.blktrace.0",
        out.display(),
        out.display()
    )))
}

/// Writes every request of `phases` with `w`; a trace's malformed line and a request the
/// format cannot carry are `InvalidData` errors naming the flag, the rest are the
/// output's own errors. Phases follow one another in time when `chain` (generators: each
/// starts where the previous one ended); a trace's phases carry their own times.
fn write_phases(
    phases: Vec<RequestStream>,
    format: TraceFormat,
    chain: bool,
    out: &mut dyn Write,
) -> std::io::Result<u64> {
    let invalid = |m: String| std::io::Error::new(std::io::ErrorKind::InvalidData, m);
    let mut w = TraceWriter::new(format, BufWriter::with_capacity(1 << 16, out))?;
    let mut offset_ns = 0u64;
    for p in phases {
        let mut last = offset_ns;
        for r in p {
            let mut r = r.map_err(|e| invalid(format!("--trace: {e}")))?;
            if chain {
                r.arrival_ns = r.arrival_ns.saturating_add(offset_ns);
            }
            last = r.arrival_ns;
            w.write(&r).map_err(|e| {
                if e.kind() == std::io::ErrorKind::InvalidInput {
                    invalid(format!(
                        "--out-format {format}: request {} ({:?} of {} B at byte {}, device \
                         {}): {e}",
                        w.written() + 1,
                        r.op,
                        r.size_bytes,
                        r.offset_bytes,
                        r.device
                    ))
                } else {
                    e
                }
            })?;
        }
        offset_ns = last.saturating_add(1);
    }
    let n = w.written();
    w.finish()?;
    Ok(n)
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
    let format: TraceFormat = args
        .out_format
        .parse()
        .map_err(|e| CliError::Input(format!("--out-format: {e}")))?;
    if format == TraceFormat::Blktrace {
        check_blktrace_name(&args.out)?;
    }
    let mut lines = 0u64;
    let count = &mut lines;
    let (phases, chain): (Vec<RequestStream>, bool) = if d.cfg.trace.path.is_some() {
        // Conversion: any trace reader's requests (with --format, --trace-device,
        // --trace-fit, --columns, --requests applied as a run applies them).
        let (phases, _) = ssdlab::sim::build_workload(&d.cfg, d.capacity_bytes())
            .map_err(|e| CliError::Input(e.to_string()))?;
        (phases.into_iter().map(|p| p.requests).collect(), false)
    } else {
        let phases = synth::generate(&d.cfg.workload, d.capacity_bytes(), d.cfg.seed)
            .map_err(|e| CliError::Input(format!("workload: {e}")))?;
        let streams: Vec<RequestStream> = phases
            .into_iter()
            .map(|p| Box::new(p.requests.map(Ok)) as RequestStream)
            .collect();
        (streams, true)
    };
    let mut batch = Batch::new();
    batch.file(
        &out,
        Content::Writer(Box::new(move |w| {
            *count = write_phases(phases, format, chain, w)?;
            Ok(())
        })),
    );
    // A malformed trace line met while converting, or a request the output format
    // cannot carry, is bad input (exit 2, naming the flag), not a failure to write.
    batch.commit().map_err(|e| {
        if e.source.kind() == std::io::ErrorKind::InvalidData {
            CliError::Input(format!("{}; no output file was written", e.source))
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
