//! The first stage of the pipeline: the workload as phases of requests, from a
//! generator or a trace (read ahead on a second thread by the host queue while the
//! simulator runs: `host.rs`).

use super::SimError;
use crate::config::Config;
use crate::workload::trace::{OpenedTrace, TraceOptions, Warnings, open_trace};
use crate::workload::{OpKind, Phase, RequestStream, synth};

/// Builds the phases of the configured workload (trace or generator).
pub fn build_workload(
    cfg: &Config,
    capacity_bytes: u64,
) -> Result<(Vec<Phase>, Option<Warnings>), SimError> {
    if let Some(path) = &cfg.trace.path {
        let opts = TraceOptions {
            format: cfg.trace.format,
            device: cfg.trace.device,
            fit: cfg.trace.fit,
            capacity_bytes,
            columns: cfg.trace.columns.clone(),
            blkparse_event: cfg.trace.blkparse_event,
        };
        let OpenedTrace {
            requests, warnings, ..
        } = open_trace(path, &opts)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let requests: RequestStream = if cfg.trace.writes_only {
            Box::new(requests.filter(|r| r.as_ref().map_or(true, |r| r.op == OpKind::Write)))
        } else {
            requests
        };
        // `--requests` caps a replay: the first N requests kept (after the device and
        // writes-only filters), the rest of the trace is not read.
        let requests: RequestStream = match cfg.workload.requests {
            Some(n) => Box::new(requests.take(usize::try_from(n).unwrap_or(usize::MAX))),
            None => requests,
        };
        Ok((
            vec![Phase {
                name,
                requests,
                open_loop: true,
            }],
            Some(warnings),
        ))
    } else {
        let phases = synth::build_phases(&cfg.workload, capacity_bytes, cfg.seed)
            .map_err(|e| SimError::Config(format!("workload: {e}")))?;
        Ok((phases, None))
    }
}
