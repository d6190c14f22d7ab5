//! The first stage of the pipeline: the workload as phases of requests, from a
//! generator or a trace (parsed on a second thread while the simulator runs).

use super::SimError;
use crate::config::Config;
use crate::workload::trace::{OpenedTrace, TraceOptions, Warnings, open_trace};
use crate::workload::{IoRequest, OpKind, Phase, RequestStream, TraceError, synth};

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
        let requests = parse_ahead(requests);
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

/// Parses a trace on a second thread, in batches, while the simulator consumes it: on a
/// two-core machine parsing then costs almost nothing. Order and errors are preserved
/// (the reader stops after its first error, and so does this stream).
fn parse_ahead(mut requests: RequestStream) -> RequestStream {
    const BATCH: usize = 4096;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Result<IoRequest, TraceError>>>(8);
    std::thread::spawn(move || {
        loop {
            let batch: Vec<_> = requests.by_ref().take(BATCH).collect();
            let done = batch.len() < BATCH || batch.last().is_some_and(|r| r.is_err());
            if tx.send(batch).is_err() || done {
                return;
            }
        }
    });
    Box::new(rx.into_iter().flatten())
}
