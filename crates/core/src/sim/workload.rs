//! The first stage of the pipeline: the workload as phases of requests, from a
//! generator or a trace (read ahead on a second thread by the host queue while the
//! simulator runs: `host.rs`).

use super::SimError;
use crate::config::Config;
use crate::config::TracePhase;
use crate::workload::trace::{OpenedTrace, TraceOptions, Warnings, open_trace};
use crate::workload::{IoRequest, OpKind, Phase, RequestStream, TraceError, synth};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Builds the phases of the configured workload (trace or generator).
pub fn build_workload(
    cfg: &Config,
    capacity_bytes: u64,
) -> Result<(Vec<Phase>, Option<Warnings>), SimError> {
    if !cfg.namespaces.is_empty() {
        return build_namespace_workload(cfg, capacity_bytes);
    }
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
        let phases = if cfg.trace.phases.is_empty() {
            vec![Phase {
                name,
                requests,
                open_loop: true,
                streams: None,
            }]
        } else {
            split_phases(requests, &cfg.trace.phases, path)
        };
        Ok((phases, Some(warnings)))
    } else {
        let workload = on_drive_zones(cfg, &cfg.workload, "workload")?;
        let phases = synth::build_phases(&workload, capacity_bytes, cfg.seed)
            .map_err(|e| SimError::Config(format!("workload: {e}")))?;
        Ok((phases, None))
    }
}

/// The generator `w` lays itself out on zones: `zoned-seq` always, `cachelib` and `lsm`
/// on a zoned drive (on a conventional one they use a block layout unless
/// `workload.zone_size` is set).
fn uses_zones(cfg: &Config, w: &synth::SynthConfig) -> bool {
    let k = w.kind;
    k == synth::SynthKind::ZonedSeq
        || ((k == synth::SynthKind::Cachelib || k == synth::SynthKind::Lsm)
            && cfg.ftl.name.name() == crate::ftl::zoned::SPEC.name)
}

/// The generator `w` (of the table `table`: `workload`, or a namespace's
/// `namespace[i].workload`) as it runs on `cfg`'s drive: with the drive's zone size and
/// capacity when it lays itself out on zones ([`with_drive_zones`]), else as given. A
/// namespace is whole zones of the drive (config/namespace.rs), so its generator's
/// zones are the drive's.
fn on_drive_zones<'a>(
    cfg: &Config,
    w: &'a synth::SynthConfig,
    table: &str,
) -> Result<std::borrow::Cow<'a, synth::SynthConfig>, SimError> {
    Ok(if uses_zones(cfg, w) {
        std::borrow::Cow::Owned(with_drive_zones(cfg, w, table)?)
    } else {
        std::borrow::Cow::Borrowed(w)
    })
}

/// The note of a run of the `lsm` generator: the bytes of its flushes, compactions and
/// host GC, and the host-side write amplification they give (the generator replayed
/// without a drive, so it covers the whole stream it was asked for).
pub fn lsm_note(cfg: &Config, capacity_bytes: u64) -> Result<Option<String>, SimError> {
    let w = &cfg.workload;
    if w.kind != synth::SynthKind::Lsm || !cfg.namespaces.is_empty() || cfg.trace.path.is_some() {
        return Ok(None);
    }
    let w = on_drive_zones(cfg, w, "workload")?;
    Ok(Some(
        synth::lsm::run_tally(&w, capacity_bytes, cfg.seed).note(),
    ))
}

/// The generator `w`'s settings (table `table`) with the zone size and capacity it
/// leaves unset taken from the zoned drive (`[ftl.zoned]`); a conventional drive has
/// none to give.
fn with_drive_zones(
    cfg: &Config,
    w: &synth::SynthConfig,
    table: &str,
) -> Result<synth::SynthConfig, SimError> {
    let mut w = w.clone();
    if w.zone_size.is_some() && w.zone_capacity.is_some() {
        return Ok(w);
    }
    if cfg.ftl.name.name() != crate::ftl::zoned::SPEC.name {
        if w.zone_size.is_none() {
            return Err(SimError::Config(format!(
                "{table}.zone_size: zoned-seq on a drive without zones (ftl.name = \"{}\") \
                 needs the zone size in bytes",
                cfg.ftl.name.name()
            )));
        }
        return Ok(w);
    }
    let design = cfg.validate_device()?;
    let (size, cap) = crate::ftl::zoned::zone_bytes(&cfg.ftl.zoned, &design.ftl_geometry);
    w.zone_size.get_or_insert(crate::units::Size(size));
    w.zone_capacity.get_or_insert(crate::units::Size(cap));
    Ok(w)
}

/// One stream cut into the consecutive phases of `trace.phases`: phase i takes the next
/// `requests` of them. The phases are consumed one after the other (the run loop finishes
/// a phase before it starts the next), so they share the stream behind a lock. The trace
/// must hold exactly the phases' requests: fewer, or more, is an error naming the key.
fn split_phases(requests: RequestStream, phases: &[TracePhase], path: &Path) -> Vec<Phase> {
    let shared = Arc::new(Mutex::new(requests));
    let total: u64 = phases.iter().map(|p| p.requests).sum();
    let mut before = 0u64;
    let n = phases.len();
    phases
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let cut = PhaseCut {
                shared: Arc::clone(&shared),
                size: p.requests,
                left: p.requests,
                last: i + 1 == n,
                done: false,
                name: p.name.clone(),
                before,
                total,
                path: path.display().to_string(),
            };
            before += p.requests;
            Phase {
                name: p.name.clone(),
                requests: Box::new(cut),
                open_loop: true,
                streams: None,
            }
        })
        .collect()
}

/// The requests of one phase of [`split_phases`].
struct PhaseCut {
    shared: Arc<Mutex<RequestStream>>,
    /// Requests of this phase, and those still to take.
    size: u64,
    left: u64,
    /// The last phase checks that the trace ends with it.
    last: bool,
    done: bool,
    name: String,
    /// Requests of the phases before this one.
    before: u64,
    /// Requests of all phases.
    total: u64,
    path: String,
}

impl Iterator for PhaseCut {
    type Item = Result<IoRequest, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut s = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        if self.left == 0 {
            self.done = true;
            if !self.last {
                // The next phase's requests stay in the stream.
                return None;
            }
            // The last phase ends where the trace must end.
            return match s.next() {
                Some(Ok(_)) => Some(Err(TraceError::Option(format!(
                    "{}: trace.phases lists {} requests, but the trace has more",
                    self.path, self.total
                )))),
                Some(Err(e)) => Some(Err(e)),
                None => None,
            };
        }
        match s.next() {
            Some(Ok(r)) => {
                self.left -= 1;
                Some(Ok(r))
            }
            Some(Err(e)) => {
                self.done = true;
                Some(Err(e))
            }
            None => {
                self.done = true;
                Some(Err(TraceError::Option(format!(
                    "{}: trace.phases lists {} requests, but the trace ends after {} \
                     (in phase '{}', which expects {} more)",
                    self.path,
                    self.total,
                    self.before + self.size - self.left,
                    self.name,
                    self.left
                ))))
            }
        }
    }
}

/// The workload of a drive with `[[namespace]]` tables, every request tagged with its
/// namespace and addressed inside it. A trace: each namespace takes the requests of its
/// `device` (one namespace without one takes them all; other devices' requests are
/// dropped, as `trace.device` drops them). Generators: each namespace runs its own
/// `[namespace.workload]` (or `[workload]`) on its own space with its own seed
/// ([`crate::config::namespace_seed`]); phase k of the run is every namespace's phase k,
/// their requests interleaved (by arrival time in open loop, in turn in closed loop), and
/// the host sorts them into the namespaces' queues again.
fn build_namespace_workload(
    cfg: &Config,
    capacity_bytes: u64,
) -> Result<(Vec<Phase>, Option<Warnings>), SimError> {
    let slices = crate::config::namespace::slices(cfg, capacity_bytes)?;
    if let Some(path) = &cfg.trace.path {
        let opts = TraceOptions {
            format: cfg.trace.format,
            device: None,
            fit: cfg.trace.fit,
            capacity_bytes,
            columns: cfg.trace.columns.clone(),
            blkparse_event: cfg.trace.blkparse_event,
        };
        let OpenedTrace {
            requests, warnings, ..
        } = open_trace(path, &opts)?;
        let devices: Vec<Option<u32>> = cfg.namespaces.iter().map(|n| n.device).collect();
        let requests: RequestStream = Box::new(requests.filter_map(move |r| match r {
            Ok(r) => {
                let ns = if devices.len() == 1 && devices[0].is_none() {
                    Some(0)
                } else {
                    devices.iter().position(|&d| d == Some(r.device))
                };
                ns.map(|i| Ok(r.in_namespace(i as u32)))
            }
            Err(e) => Some(Err(e)),
        }));
        let requests: RequestStream = if cfg.trace.writes_only {
            Box::new(requests.filter(|r| r.as_ref().map_or(true, |r| r.op == OpKind::Write)))
        } else {
            requests
        };
        let requests: RequestStream = match cfg.workload.requests {
            Some(n) => Box::new(requests.take(usize::try_from(n).unwrap_or(usize::MAX))),
            None => requests,
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        return Ok((
            vec![Phase {
                name,
                requests,
                open_loop: true,
                streams: None,
            }],
            Some(warnings),
        ));
    }
    let mut per_ns: Vec<std::vec::IntoIter<Phase>> = Vec::new();
    for (i, (ns, slice)) in cfg.namespaces.iter().zip(&slices).enumerate() {
        let w = match &ns.workload {
            Some(w) => on_drive_zones(cfg, w, &format!("namespace[{i}].workload"))?,
            None => on_drive_zones(cfg, &cfg.workload, "workload")?,
        };
        let phases = synth::build_phases(
            &w,
            slice.size_bytes,
            crate::config::namespace_seed(cfg.seed, i),
        )
        .map_err(|e| SimError::Config(format!("namespace {} ({}): workload: {e}", i, ns.name)))?;
        per_ns.push(phases.into_iter());
    }
    let mut phases = Vec::new();
    loop {
        let parts: Vec<(u32, Phase)> = per_ns
            .iter_mut()
            .enumerate()
            .filter_map(|(i, it)| it.next().map(|p| (i as u32, p)))
            .collect();
        if parts.is_empty() {
            break;
        }
        if let Some((i, _)) = parts.iter().find(|(_, p)| p.streams.is_some()) {
            return Err(SimError::Config(format!(
                "namespace {i}: workload.stream_loop = \"per-stream\" is not modelled with \
                 [[namespace]] tables (each namespace is one submission queue); use \
                 \"shared\" or one namespace per stream"
            )));
        }
        let open_loop = parts[0].1.open_loop;
        if parts.iter().any(|(_, p)| p.open_loop != open_loop) {
            return Err(SimError::Config(format!(
                "phase {}: the namespaces' generators mix open-loop (arrival times) and \
                 closed-loop phases; give every namespace's workload the same kind of phase",
                phases.len() + 1
            )));
        }
        let mut names: Vec<&str> = Vec::new();
        for (_, p) in &parts {
            if !names.contains(&p.name.as_str()) {
                names.push(&p.name);
            }
        }
        let name = names.join("+");
        let streams: Vec<(u32, RequestStream)> =
            parts.into_iter().map(|(i, p)| (i, p.requests)).collect();
        phases.push(Phase {
            name,
            requests: Box::new(Interleave::new(streams, open_loop)),
            open_loop,
            streams: None,
        });
    }
    Ok((phases, None))
}

/// Several namespaces' request streams as one, each request tagged with its namespace:
/// by arrival time (open loop; ties to the lower namespace) or in turn (closed loop).
/// A stream's error comes out in its place and ends the whole.
struct Interleave {
    streams: Vec<(u32, std::iter::Peekable<RequestStream>)>,
    open_loop: bool,
    turn: usize,
    failed: bool,
}

impl Interleave {
    fn new(streams: Vec<(u32, RequestStream)>, open_loop: bool) -> Interleave {
        Interleave {
            streams: streams
                .into_iter()
                .map(|(i, s)| (i, s.peekable()))
                .collect(),
            open_loop,
            turn: 0,
            failed: false,
        }
    }
}

impl Iterator for Interleave {
    type Item = Result<IoRequest, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let k = if self.open_loop {
            let mut best: Option<(u64, usize)> = None;
            for (k, (_, s)) in self.streams.iter_mut().enumerate() {
                match s.peek() {
                    // An error goes out at once.
                    Some(Err(_)) => {
                        best = Some((0, k));
                        break;
                    }
                    Some(Ok(r)) if best.is_none_or(|(t, _)| r.arrival_ns < t) => {
                        best = Some((r.arrival_ns, k));
                    }
                    _ => {}
                }
            }
            best?.1
        } else {
            let n = self.streams.len();
            let k = (0..n)
                .map(|d| (self.turn + d) % n)
                .find(|&k| self.streams[k].1.peek().is_some())?;
            self.turn = (k + 1) % n;
            k
        };
        let (ns, s) = &mut self.streams[k];
        match s.next()? {
            Ok(r) => Some(Ok(r.in_namespace(*ns))),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::sim::{RunOptions, run};

    /// 10 one-page writes, then 5 one-page reads of them, as an ASCII trace.
    fn trace() -> tempfile::NamedTempFile {
        use std::io::Write;
        let mut f = tempfile::NamedTempFile::new().unwrap();
        for i in 0..15u64 {
            let (lba, op) = if i < 10 {
                (i * 8, 0)
            } else {
                ((i - 10) * 8, 1)
            };
            writeln!(f, "{} 0 {lba} 8 {op}", i * 1000).unwrap();
        }
        f
    }

    /// No write buffer: every page reaches the FTL in its own phase.
    fn config(path: &std::path::Path, phases: &str) -> Config {
        let text = format!(
            r#"
            [device]
            capacity = "64MiB"
            channels = 1
            chips_per_channel = 1
            [host]
            qd = 1
            [buffer]
            name = "none"
            [trace]
            path = "{}"
            format = "ascii"
            {phases}
            "#,
            path.display()
        );
        Config::load(None, Some(("test", &text))).unwrap()
    }

    #[test]
    fn a_trace_split_into_phases_reports_each_with_its_own_counters() {
        let t = trace();
        let phases = r#"phases = [{ name = "write", requests = 10 }, { name = "idle", requests = 0 },
                        { name = "read", requests = 5 }]"#;
        let r = run(&config(t.path(), phases), RunOptions::default())
            .unwrap()
            .report;
        let names: Vec<(&str, u64)> = r
            .phases
            .iter()
            .map(|p| (p.name.as_str(), p.requests))
            .collect();
        assert_eq!(names, [("write", 10), ("idle", 0), ("read", 5)]);
        let (w, idle, rd) = (&r.phases[0], &r.phases[1], &r.phases[2]);
        let (reads, map_reads) = (crate::nand::READ_PAGES.key, crate::nand::MAP_READ_PAGES.key);
        assert_eq!(rd.counters[reads], 5);
        assert_eq!(w.counters[reads], 0);
        assert_eq!(idle.counters[reads], 0);
        assert_eq!(w.counters[map_reads], 0);
        // The phases' counters add up to the run's (every FTL counter that is not a gauge).
        let gauges: Vec<&str> = crate::ftl::counter_groups()
            .iter()
            .flat_map(|l| l.iter())
            .filter(|c| c.is_gauge())
            .map(|c| c.key)
            .collect();
        let is_gauge = |k: &str| gauges.contains(&k);
        for (k, &v) in &r.counters {
            if k.starts_with("ftl.") && !is_gauge(k) {
                let sum: u64 = r.phases.iter().map(|p| p.counters[k]).sum();
                assert_eq!(sum, v, "{k}");
            }
        }
        // Without the key: one phase named after the file, no per-phase counters (and
        // none in the JSON).
        let r = run(&config(t.path(), ""), RunOptions::default())
            .unwrap()
            .report;
        assert_eq!(r.phases.len(), 1);
        assert_eq!(r.phases[0].requests, 15);
        assert!(r.phases[0].counters.is_empty());
        let json = serde_json::to_value(&r).unwrap();
        assert!(json["phases"][0].get("counters").is_none());
    }

    #[test]
    fn phases_that_do_not_cover_the_trace_exactly_are_refused_naming_the_key() {
        let t = trace();
        for (phases, says) in [
            (
                r#"phases = [{ name = "a", requests = 10 }, { name = "b", requests = 6 }]"#,
                "trace ends after 15 (in phase 'b', which expects 1 more)",
            ),
            (
                r#"phases = [{ name = "a", requests = 10 }, { name = "b", requests = 4 }]"#,
                "lists 14 requests, but the trace has more",
            ),
        ] {
            let Err(e) = run(&config(t.path(), phases), RunOptions::default()) else {
                panic!("{phases} ran");
            };
            let e = e.to_string();
            assert!(e.contains("trace.phases") && e.contains(says), "{e}");
        }
        // Validation: a name for every phase, each once, and only with a trace.
        let twice = r#"phases = [{ name = "a", requests = 10 }, { name = "a", requests = 5 }]"#;
        let e = config(t.path(), twice).validate().unwrap_err().to_string();
        assert!(
            e.contains("trace.phases") && e.contains("'a' is given twice"),
            "{e}"
        );
        let unnamed = r#"phases = [{ name = "", requests = 15 }]"#;
        let e = config(t.path(), unnamed)
            .validate()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("trace.phases") && e.contains("a name for phase 1"),
            "{e}"
        );
        let mut c = config(t.path(), r#"phases = [{ name = "a", requests = 15 }]"#);
        c.trace.path = None;
        c.trace.format = None;
        let e = c.validate().unwrap_err().to_string();
        assert!(
            e.contains("trace.phases") && e.contains("only block-trace replays"),
            "{e}"
        );
    }
}
