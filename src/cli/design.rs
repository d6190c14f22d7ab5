//! The designs an SSD command names (the product of the `--ftl`, `--gc` and `--buffer`
//! lists), each resolved and validated before any simulation starts.

use super::CliError;
use super::args::{
    GeneratorArgs, HostArgs, List, SettingsArgs, Sizes, SsdArgs, TraceArgs, choices, set,
};
use super::ns_workload;
use super::registry;
use clap::Args;
use ssdlab::config::{Config, Design as ValidDesign, ResolvedDevice};
use ssdlab::names;
use std::path::Path;

/// Everything that makes an SSD run: design, workload, trace, host, configuration.
#[derive(Args, Debug, Default, Clone)]
pub struct DesignArgs {
    /// The SSD design.
    #[command(flatten)]
    pub ssd: SsdArgs,
    /// Workload generator (`ssdlab list` describes each), or one per namespace as a comma
    /// list NS=GEN (`db=random-write,logs=seq-write`, with [[namespace]] tables)
    #[arg(long, value_name = "NAME", help_heading = "Workload",
          value_parser = ns_workload::WorkloadChoice::new(names::generators()))]
    pub workload: Option<String>,
    /// Iometer access specification (implies --workload iometer): a built-in name
    /// (`ssdlab list`: 4k-random-read, file-server, database, …), compact lines such as
    /// '4KiB weight=60 read=80 random=100; 64KiB weight=40 read=100 random=0', or a TOML
    /// file with `outstanding` (the queue depth), `span` and [[line]] tables
    /// (docs/workloads.md)
    #[arg(long, value_name = "SPEC", help_heading = "Workload")]
    pub access_spec: Option<String>,
    /// Host-side layer in front of the SSD; a comma list compares (`mft`: Managed Flash
    /// Technology-style log, random writes remapped into sequential segments; its keys:
    /// --set host_log.segment=1MiB, host_log.free_percent, host_log.block,
    /// host_log.buffer_segments, host_log.min_free_segments, host_log.memcpy_mb_s,
    /// host_log.space;
    /// docs/host-log.md)
    #[arg(long, value_name = "NAME[,NAME…]", help_heading = "Host",
          value_parser = registry::list_of(names::host_logs()))]
    pub host_log: Option<List>,
    /// Generator settings.
    #[command(flatten)]
    pub generator: GeneratorArgs,
    /// A trace instead of a generator.
    #[command(flatten)]
    pub trace: TraceArgs,
    /// Precondition: write the logical space once first, sequentially; with a value,
    /// only that percent of it (MQSim's initial occupancy; with `--precondition
    /// footprint`, the fill before the footprint pass)
    #[arg(long, value_name = "PERCENT", num_args = 0..=1, default_missing_value = "100",
          help_heading = "Workload", conflicts_with = "steady",
          value_parser = super::args::real(0.0, 1000.0, false))]
    pub fill: Option<f64>,
    /// Precondition: fill, then random overwrites until write amplification settles.
    #[arg(long, help_heading = "Workload")]
    pub steady: bool,
    /// Preconditioning before the measured run (`footprint`: write every page the
    /// trace reads before writing it, in a first pass; docs/traces.md)
    #[arg(long, value_name = "NAME", help_heading = "Workload",
          conflicts_with = "steady",
          value_parser = registry::one_of(names::preconditions()))]
    pub precondition: Option<String>,
    /// Host queue and seed.
    #[command(flatten)]
    pub host: HostArgs,
    /// File and `--set`.
    #[command(flatten)]
    pub settings: SettingsArgs,
}

/// One design, validated.
pub struct Design {
    /// `ftl+gc+buffer` from the lists (empty for a single design).
    pub label: String,
    /// The configuration.
    pub cfg: Config,
    /// Its device, resolved once here.
    pub device: ResolvedDevice,
    /// The validated design ([`Check::Run`] only).
    pub valid: Option<ValidDesign>,
}

impl Design {
    /// Name in reports: the label, or `design` for a single design.
    pub fn name(&self) -> &str {
        if self.label.is_empty() {
            "design"
        } else {
            &self.label
        }
    }

    /// Logical capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.device.logical_pages * self.device.geometry.page_size_bytes as u64
    }
}

/// How much of a design a command needs checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// The device and workload (`config`, `gen-trace`: nothing is simulated).
    Device,
    /// Everything a simulation builds ([`validate_design`]).
    Run,
}

/// Checks a design without running it: the library's [`Config::validate`] (device,
/// bounds, knobs the FTL does not use, FTL feasibility, workload, memory).
pub fn validate_design(cfg: &Config) -> Result<ValidDesign, String> {
    cfg.validate().map_err(|e| e.to_string())
}

/// `--access-spec SPEC`: a TOML file (its `outstanding`, `span`, `spec` and `[[line]]`
/// keys become `host.qd`, `workload.span`, `workload.iometer.spec` and
/// `workload.iometer.lines`), or else a built-in name or compact lines, which the
/// library checks.
fn access_spec_overlay(spec: &str, t: &mut toml::Table) -> Result<(), CliError> {
    set(t, "workload.kind", "iometer");
    let path = Path::new(spec);
    // A name ending in .toml is meant as a file: say it is missing, rather than parse the
    // name as a specification line (no line or built-in name ends that way).
    if !path.is_file() && spec.to_ascii_lowercase().ends_with(".toml") {
        return Err(CliError::Input(format!(
            "--access-spec {spec}: no such file (a specification file, or else a built-in \
             name or compact lines)"
        )));
    }
    if !path.is_file() {
        set(t, "workload.iometer.spec", spec);
        return Ok(());
    }
    let flag = format!("--access-spec {}", path.display());
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::Input(format!("{flag}: cannot read: {e}")))?;
    let file: toml::Table =
        toml::from_str(&text).map_err(|e| CliError::Input(format!("{flag}: {e}")))?;
    for (k, v) in file {
        let key = match k.as_str() {
            "outstanding" => "host.qd",
            "span" => "workload.span",
            "spec" => "workload.iometer.spec",
            "line" => "workload.iometer.lines",
            _ => {
                return Err(CliError::Input(format!(
                    "{flag}: unknown key '{k}': expected outstanding, span, spec or [[line]] tables \
                     (size, weight, read_percent, random_percent, align, burst, delay_ms)"
                )));
            }
        };
        set(t, key, v);
    }
    Ok(())
}

/// Whether the dotted `key` is set in `t`.
fn has_key(t: &toml::Table, key: &str) -> bool {
    let mut cur = t;
    let mut parts = key.split('.').peekable();
    while let Some(p) = parts.next() {
        match cur.get(p) {
            Some(toml::Value::Table(sub)) if parts.peek().is_some() => cur = sub,
            Some(_) => return parts.peek().is_none(),
            None => return false,
        }
    }
    false
}

/// Checks that an input file can be read (`-`, standard input, is the trace reader's).
pub fn check_input(flag: &str, path: &Path) -> Result<(), String> {
    if path.as_os_str() == "-" {
        return Ok(());
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(format!(
            "{flag} {}: is a directory; expected a file",
            path.display()
        )),
        // Opening a FIFO or a device would consume or block on what the run must
        // read: only regular files are opened to check them.
        Ok(m) if !m.is_file() => Ok(()),
        Ok(_) => std::fs::File::open(path)
            .map(drop)
            .map_err(|e| format!("{flag} {}: cannot read: {e}", path.display())),
        // blktrace's base name (`NAME` for `NAME.blktrace.0`, `.1`, …) is what
        // docs/traces.md shows; the reader resolves the per-CPU files.
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                && !ssdlab::workload::trace::blktrace_files(path).is_empty() =>
        {
            Ok(())
        }
        Err(e) => Err(format!("{flag} {}: cannot read: {e}", path.display())),
    }
}

impl DesignArgs {
    /// The flags as a TOML overlay (merged over preset and file).
    fn overrides(&self) -> Result<toml::Table, CliError> {
        let mut t = toml::Table::new();
        self.ssd.apply(&mut t);
        if let Some(w) = self
            .workload
            .as_ref()
            .filter(|w| ns_workload::pairs(w).is_none())
        {
            // File-level workloads are the file system's (`[fs] workload`).
            let key = if ssdlab::config::fs::FileWorkloadKind::parse(w).is_some() {
                "fs.workload"
            } else {
                "workload.kind"
            };
            set(&mut t, key, w.as_str());
        }
        if let Some(spec) = &self.access_spec {
            if let Some(w) = self.workload.as_deref().filter(|w| *w != "iometer") {
                return Err(CliError::Input(format!(
                    "--access-spec with --workload {w}: expected --workload iometer or no \
                     --workload (an access specification is the iometer workload)"
                )));
            }
            access_spec_overlay(spec, &mut t)?;
        }
        self.generator.apply(&mut t, "workload");
        self.trace.apply(&mut t);
        self.host.apply(&mut t);
        match (&self.precondition, self.fill) {
            (Some(p), _) => set(&mut t, "precondition", p.as_str()),
            (None, Some(_)) => set(&mut t, "precondition", "fill"),
            (None, None) if self.steady => set(&mut t, "precondition", "steady"),
            (None, None) => {}
        }
        // `--fill` alone means the whole space, which is `fill`'s default: left unset,
        // so the report's configuration reads as before.
        if let Some(p) = self.fill
            && (p != 100.0 || self.precondition.is_some())
        {
            set(&mut t, "fill_percent", p);
        }
        self.settings.apply(&mut t)?;
        Ok(t)
    }

    /// `--ftl`, `--gc` and `--buffer` have nothing to set under `--fs yaffs2` alone.
    fn refuse_flags_under_yaffs2(&self) -> Result<(), CliError> {
        if let Some(list) = &self.ssd.fs
            && list.iter().all(|f| f == "yaffs2")
        {
            for (flag, given) in [
                ("--ftl", self.ssd.ftl.is_some()),
                ("--gc", self.ssd.gc.is_some()),
                ("--buffer", self.ssd.buffer.is_some()),
            ] {
                if given {
                    return Err(CliError::Input(format!(
                        "{flag}: --fs yaffs2 runs on raw NAND without an FTL or write buffer; \
                         expected {flag} only with --fs ext2 or fat (e.g. --fs yaffs2,ext2 {flag} …)"
                    )));
                }
            }
        }
        Ok(())
    }

    /// The size lists: (flag, sizes given).
    fn size_lists(&self) -> [(&'static str, &Option<Sizes>); 3] {
        [
            ("capacity", &self.ssd.capacity),
            ("buffer-size", &self.ssd.buffer_size),
            ("mgmt-block", &self.ssd.mgmt_block),
        ]
    }

    /// Whether size flag `flag` lists several sizes (then it labels the designs).
    fn listed(&self, flag: &str) -> bool {
        self.size_lists()
            .iter()
            .any(|(f, l)| *f == flag && l.as_ref().is_some_and(|l| l.len() > 1))
    }

    /// Every combination of the listed names (and sizes) as (flag, value) pairs.
    fn combos(&self) -> Vec<Vec<(&'static str, Option<String>)>> {
        let mut combos = Vec::new();
        let raw_fs = |fs: &Option<String>| fs.as_deref() == Some("yaffs2");
        for h in choices(&self.host_log) {
            for fs in choices(&self.ssd.fs) {
                if raw_fs(&fs) {
                    // No FTL, GC policy or buffer below YAFFS2: one design.
                    combos.push(vec![
                        ("fs", fs),
                        ("ftl", None),
                        ("gc", None),
                        ("buffer", None),
                        ("host-log", h.clone()),
                    ]);
                    continue;
                }
                for f in choices(&self.ssd.ftl) {
                    for g in choices(&self.ssd.gc) {
                        for b in choices(&self.ssd.buffer) {
                            combos.push(vec![
                                ("fs", fs.clone()),
                                ("ftl", f.clone()),
                                ("gc", g.clone()),
                                ("buffer", b),
                                ("host-log", h.clone()),
                            ]);
                        }
                    }
                }
            }
        }
        // Size lists multiply the designs like the name lists (last, so they vary
        // fastest). A size is labelled `flag=SIZE`, and only when its flag lists
        // several: a single size leaves the design's name as it was.
        for (flag, list) in self.size_lists() {
            let Some(list) = list else { continue };
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    list.iter().map(move |s| {
                        let mut c = c.clone();
                        c.push((flag, Some(s.to_string())));
                        c
                    })
                })
                .collect();
        }
        combos
    }

    /// Every design the flags name, each checked as `check` says; all problems of all
    /// designs are reported together, before any work.
    pub fn designs(&self, check: Check) -> Result<Vec<Design>, CliError> {
        let file = self.settings.read_file()?;
        let base = self.overrides()?;
        self.refuse_flags_under_yaffs2()?;
        let combos = self.combos();
        let several = combos.len() > 1;
        let mut designs = Vec::new();
        let mut errors = Vec::new();
        for (i, combo) in combos.into_iter().enumerate() {
            let mut o = base.clone();
            let mut label = Vec::new();
            let mut given = Vec::new();
            let mut mgmt_block = None;
            for (flag, v) in combo {
                if let Some(v) = v {
                    let key = match flag {
                        "fs" => "fs.name",
                        "ftl" => "ftl.name",
                        "gc" => "ftl.gc",
                        "host-log" => "host_log.name",
                        "capacity" => "device.capacity",
                        "buffer-size" => "buffer.size",
                        "mgmt-block" => {
                            // Applied after loading: the key follows the FTL (below).
                            mgmt_block = Some(v.parse::<ssdlab::units::Size>().expect("parsed"));
                            ""
                        }
                        _ => "buffer.name",
                    };
                    // A size flag gives way to a --set of its key, as it did when the
                    // flag was a single value set before the --set ones.
                    let by_set = matches!(flag, "capacity" | "buffer-size") && has_key(&base, key);
                    if !key.is_empty() && !by_set {
                        set(&mut o, key, v.as_str());
                    }
                    if matches!(flag, "capacity" | "buffer-size" | "mgmt-block") {
                        if self.listed(flag) {
                            given.push(format!("{flag}={v}"));
                            label.push(format!("{flag}={v}"));
                        }
                    } else {
                        given.push(format!("{flag}={v}"));
                        label.push(v);
                    }
                }
            }
            let checked = Config::load_with(
                self.ssd.preset.as_deref(),
                file.as_ref().map(|(n, t)| (n.as_str(), t.as_str())),
                o,
            )
            .map_err(|e| e.to_string())
            .and_then(|mut cfg| {
                // --mgmt-block means the page FTL's management block or the
                // block-mapped FTLs' superblock: the key follows the FTL.
                if let Some(v) = mgmt_block {
                    cfg.ftl.set_mgmt_block_flag(v);
                }
                if let Some(w) = &self.workload
                    && let Some(pairs) = ns_workload::pairs(w)
                {
                    ns_workload::apply(&mut cfg, w, &pairs)?;
                }
                if let Some(p) = &cfg.trace.path {
                    check_input("--trace", p)?;
                }
                if let Some(p) = &cfg.fs.trace {
                    check_input("--file-trace", p)?;
                }
                let (device, valid) = match check {
                    Check::Run => {
                        let v = validate_design(&cfg)?;
                        (v.device.clone(), Some(v))
                    }
                    Check::Device => (cfg.resolve_device().map_err(|e| e.to_string())?, None),
                };
                Ok((cfg, device, valid))
            });
            match checked {
                Ok((cfg, device, valid)) => designs.push(Design {
                    label: label.join("+"),
                    cfg,
                    device,
                    valid,
                }),
                Err(e) if several => {
                    errors.push(format!("design {} ({}): {e}", i + 1, given.join(", ")))
                }
                Err(e) => errors.push(e),
            }
        }
        if errors.is_empty() {
            // Designs of a list run side by side: together they must fit in memory.
            let valid: Vec<ValidDesign> = designs.iter().filter_map(|d| d.valid.clone()).collect();
            ssdlab::config::check_memory_together(&valid)
                .map_err(|e| CliError::Input(e.to_string()))?;
            Ok(designs)
        } else {
            Err(CliError::Input(errors.join("\n")))
        }
    }

    /// The files the designs read, for output collision checks.
    pub fn inputs<'a>(&'a self, designs: &'a [Design]) -> Vec<(&'static str, &'a Path)> {
        input_files(
            self.settings.config.as_deref(),
            designs
                .iter()
                .flat_map(|d| [d.cfg.trace.path.as_deref(), d.cfg.fs.trace.as_deref()])
                .flatten(),
        )
    }
}

/// The `--config` file and the traces (each once) as (flag, path), for
/// [`super::output::distinct`].
pub fn input_files<'a>(
    config: Option<&'a Path>,
    traces: impl IntoIterator<Item = &'a Path>,
) -> Vec<(&'static str, &'a Path)> {
    let mut v: Vec<(&str, &Path)> = config.map(|c| ("--config", c)).into_iter().collect();
    for p in traces {
        if !v.iter().any(|(_, q)| *q == p) {
            v.push(("--trace", p));
        }
    }
    v
}
