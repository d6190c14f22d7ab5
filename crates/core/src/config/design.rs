//! [`Design`]: a [`Config`] resolved and checked before any work. Everything that can be
//! known without running — device derivation, bounds, cross-key rules, knobs the chosen
//! FTL does not read, the FTL's fit on the device, the generator's fit, memory — is
//! checked here, so a comma list of designs can be refused as a whole before the first
//! one runs.

use super::memory::{self, MemoryEstimate};
use super::{Config, ConfigError, ResolvedDevice, TimingMode};
use crate::ftl::layout::ChannelPlacement;
use crate::ftl::{FtlConfig, build_ftl, gc::gc_policies, knob, unit_pages};
use crate::nand::Geometry;
use crate::nand::Superblock;
use crate::units::Size;
use crate::workload::synth;
use std::collections::BTreeMap;

/// A validated configuration with everything derived from it that the simulator builds.
#[derive(Clone, Debug)]
pub struct Design {
    /// The configuration.
    pub config: Config,
    /// The device, derived once.
    pub device: ResolvedDevice,
    /// Superblocks of a block-mapped FTL (`ftl.superblock` of several erase blocks).
    pub superblock: Option<Superblock>,
    /// The geometry the FTL and the NAND state run on (virtual with superblocks).
    pub ftl_geometry: Geometry,
    /// Pages per management block of the page FTL (1 for the other FTLs).
    pub mgmt_block_pages: u32,
    /// The host-side log layer in front of the SSD (`[host_log]`), when configured.
    pub host_log: Option<crate::host_log::HostLogShape>,
    /// Estimated peak memory of the run.
    pub memory: MemoryEstimate,
    /// Settings accepted but ignored, for the report's notes (a preset's keys for other
    /// FTLs under the chosen one).
    pub notes: Vec<String>,
}

impl Config {
    /// Resolves and checks this configuration for a run; see [`Design`].
    pub fn validate(&self) -> Result<Design, ConfigError> {
        self.design(true)
    }

    /// Like [`Config::validate`] without the generator's settings, for a device driven
    /// by other code (the flash cache of `ssdlab hybrid`, tests).
    pub fn validate_device(&self) -> Result<Design, ConfigError> {
        self.design(false)
    }

    fn design(&self, with_workload: bool) -> Result<Design, ConfigError> {
        if with_workload {
            self.check_unused()?;
        }
        self.ftl.validate()?;
        self.fs.validate(with_workload)?;
        if self.fs.active()
            && let Some(p) = &self.trace.path
        {
            return Err(ConfigError::value(
                "trace.path",
                p.display(),
                format!(
                    "no block trace with fs.name = {}: a file system replays a file trace \
                     (fs.trace, --file-trace)",
                    self.fs.name.name()
                ),
            ));
        }
        self.check_trace_phases()?;
        if self.fs.active()
            && self.ftl.name == crate::ftl::FtlKind::Dftl
            && self.ftl.dftl.cmt_start == crate::ftl::dftl::CmtStart::Cold
        {
            return Err(ConfigError::value(
                "ftl.dftl.cmt_start",
                "cold",
                format!(
                    "\"warm\" with a file system (fs.name = {}): the cold start empties the \
                     CMT where block-level preconditioning ends, which file-system aging \
                     does not pass through",
                    self.fs.name.name()
                ),
            ));
        }
        if self.ftl.gc_schedule == crate::ftl::gc::GcSchedule::Preemptive
            && self.timing.mode == TimingMode::Count
        {
            return Err(ConfigError::value(
                "ftl.gc_schedule",
                "preemptive",
                "foreground or background with timing.mode = count (suspending an operation \
                 for a read needs the full model's dies; the counting formula has none)",
            ));
        }
        let device = self.resolve_device()?;
        let geo = device.geometry;
        let notes = check_knobs(&self.ftl, &self.device.preset)?;
        let superblock = Superblock::from_config(&self.ftl, &geo)?;
        if self.ftl.name.maps_blocks()
            && superblock.is_none()
            && self.ftl.channel_placement != ChannelPlacement::Striped
            && user_set(&self.ftl, "channel_placement")
        {
            return Err(ConfigError::value(
                "ftl.channel_placement",
                self.ftl.channel_placement.name(),
                format!(
                    "striped unless ftl.superblock spans several erase blocks (the {} FTL's \
                     unit is then one erase block, which sits on one plane)",
                    self.ftl.name.name()
                ),
            ));
        }
        let ftl_geometry = superblock.as_ref().map_or(geo, Superblock::ftl_geometry);
        let mgmt_block_pages = if self.ftl.name.uses_page_layout() {
            unit_pages(&self.ftl, &geo, device.logical_pages)?
        } else {
            1
        };
        self.check_precondition(geo.page_size_bytes as u64)?;
        let device_capacity = device.logical_pages * geo.page_size_bytes as u64;
        let host_log = self
            .host_log
            .shape(device_capacity, geo.page_size_bytes as u64)?;
        if self.host.stop_ns.is_some() && self.fs.active() {
            return Err(ConfigError::value(
                "host.stop_ns",
                self.host.stop_ns.unwrap_or_default(),
                "unset with a file system (fs.name): a file workload runs to its end",
            ));
        }
        if host_log.is_some() && self.fs.active() {
            return Err(ConfigError::value(
                "host_log.name",
                "mft",
                "none with a file system (fs.name): the host log is a block layer for block workloads",
            ));
        }
        if with_workload && self.trace.path.is_some() {
            check_trace_workload(&self.workload, "workload")?;
        }
        if with_workload && self.trace.path.is_none() && !self.fs.active() {
            // The host sees the layer's capacity when there is one.
            let capacity = host_log.map_or(device_capacity, |h| h.host_capacity_bytes());
            synth::check(&self.workload, capacity, self.seed)?;
        }
        if !self.namespaces.is_empty() {
            let grain = super::namespace::Grain::of(self, &ftl_geometry);
            self.check_namespaces(device_capacity, grain, with_workload)?;
        }
        let memory = memory::estimate(
            self,
            &ftl_geometry,
            device.logical_pages,
            device.buffer.as_ref(),
            device.track_write_seq,
        );
        if !self.run.allow_memory {
            check_fits(&memory, self)?;
        }
        // YAFFS2 runs on the raw array: no FTL is built.
        if self.fs.name != super::fs::FsKind::Yaffs2 {
            ftl_feasible(&self.ftl, &ftl_geometry, device.logical_pages)?;
        }
        Ok(Design {
            config: self.clone(),
            device,
            superblock,
            ftl_geometry,
            mgmt_block_pages,
            host_log,
            memory,
            notes,
        })
    }
}

/// The seed of namespace `i`'s generator: the run's seed for the first, so that one
/// namespace generates what the drive without namespaces would, then distinct seeds so
/// that two namespaces running the same generator do not send the same addresses.
pub fn namespace_seed(seed: u64, i: usize) -> u64 {
    seed.wrapping_add(i as u64)
}

impl Config {
    /// `[[namespace]]` and the arbitration keys of `[host]`: the slices fit the drive,
    /// the arbiter accepts its settings, a trace maps its devices onto the namespaces,
    /// each namespace's generator fits its slice, and the features the namespace host
    /// does not model are not asked for together with it.
    fn check_namespaces(
        &self,
        capacity_bytes: u64,
        grain: super::namespace::Grain,
        with_workload: bool,
    ) -> Result<(), ConfigError> {
        use super::namespace::{in_namespace, layout, mechanism};
        let slices = layout(&self.namespaces, capacity_bytes, grain)?;
        let priorities: Vec<_> = slices.iter().map(|s| s.priority).collect();
        crate::arbitration::Arbiter::new(
            mechanism(&self.host),
            self.host.arbitration_burst,
            &priorities,
            "host",
        )?;
        let refuse = |key: &str, value: &dyn std::fmt::Display, why: &str| {
            Err(ConfigError::value(
                key,
                value,
                format!(
                    "{why} with [[namespace]] tables (the namespace host queue does not model it)"
                ),
            ))
        };
        if self.fs.active() {
            return refuse("fs.name", &self.fs.name.name(), "none");
        }
        if self.host_log.name != crate::host_log::HostLogConfig::default().name {
            return refuse("host_log.name", &self.host_log.name.name(), "none");
        }
        if !self.trace.phases.is_empty() {
            return refuse("trace.phases", &self.trace.phases.len(), "no phases");
        }
        super::namespace::fdp_placement(&self.namespaces, &self.ftl.fdp)?;
        super::namespace::zoned_kind(&self.namespaces, self.ftl.name.is_zoned())?;
        if !with_workload {
            return Ok(());
        }
        if self.trace.path.is_some() {
            if let Some(d) = self.trace.device {
                return refuse(
                    "trace.device",
                    &d,
                    "unset (each namespace's `device` picks its requests)",
                );
            }
            for (i, ns) in self.namespaces.iter().enumerate() {
                if ns.workload.is_some() {
                    return Err(ConfigError::value(
                        format!("namespace[{i}].workload"),
                        "(a table)",
                        "no generator when a trace is replayed (trace.path)",
                    ));
                }
                if self.namespaces.len() > 1 && ns.device.is_none() {
                    return Err(ConfigError::value(
                        format!("namespace[{i}].device"),
                        "(none)",
                        "the trace's device number whose requests this namespace takes \
                         (a trace replayed on several namespaces maps each device)",
                    ));
                }
                if let Some(d) = ns.device
                    && self.namespaces[..i].iter().any(|o| o.device == Some(d))
                {
                    return Err(ConfigError::value(
                        format!("namespace[{i}].device"),
                        d,
                        "a device number no other namespace takes",
                    ));
                }
            }
        } else {
            for (i, (ns, slice)) in self.namespaces.iter().zip(&slices).enumerate() {
                if let Some(d) = ns.device {
                    return Err(ConfigError::value(
                        format!("namespace[{i}].device"),
                        d,
                        "unset without a trace (trace.path): only a trace has device numbers",
                    ));
                }
                let w = ns.workload.as_ref().unwrap_or(&self.workload);
                synth::check(w, slice.size_bytes, namespace_seed(self.seed, i)).map_err(|e| {
                    if ns.workload.is_some() {
                        in_namespace(i, e)
                    } else {
                        e
                    }
                })?;
                if w.kind == synth::SynthKind::Probe {
                    return Err(ConfigError::value(
                        if ns.workload.is_some() {
                            format!("namespace[{i}].workload.kind")
                        } else {
                            "workload.kind".into()
                        },
                        "probe",
                        "another generator with [[namespace]] tables (the probe measures one drive alone)",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Share of the logical space the preconditioning fills sequentially, percent.
    pub fn fill_share_percent(&self) -> f64 {
        use super::Precondition as P;
        match self.precondition {
            P::None | P::Random => 0.0,
            P::Fill | P::Steady | P::Age => self.fill_percent.unwrap_or(100.0),
            P::Footprint => self.fill_percent.unwrap_or(0.0),
        }
    }

    /// Keys set away from their defaults that nothing in this run reads are refused,
    /// naming what would read them ([`UNUSED_KEYS`]: one table, so a new key that only
    /// some runs read is added in one place).
    fn check_unused(&self) -> Result<(), ConfigError> {
        for k in UNUSED_KEYS {
            if (k.set)(self) && !(k.used)(self) {
                return Err(ConfigError::value(
                    k.key,
                    (k.show)(self),
                    format!("no value here: only {} read it", k.users),
                ));
            }
        }
        Ok(())
    }

    /// `trace.phases`: only with a trace; every phase named, no name twice (the report
    /// tells phases apart by name).
    fn check_trace_phases(&self) -> Result<(), ConfigError> {
        let phases = &self.trace.phases;
        if phases.is_empty() {
            return Ok(());
        }
        let show = || {
            phases
                .iter()
                .map(|p| format!("{}={}", p.name, p.requests))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if self.trace.path.is_none() {
            return Err(ConfigError::value(
                "trace.phases",
                show(),
                "no value here: only block-trace replays (trace.path, --trace) read it",
            ));
        }
        for (i, p) in phases.iter().enumerate() {
            if p.name.trim().is_empty() {
                return Err(ConfigError::value(
                    "trace.phases",
                    show(),
                    format!(
                        "a name for phase {} (e.g. {{ name = \"setup\", requests = 100 }})",
                        i + 1
                    ),
                ));
            }
            if phases[..i].iter().any(|q| q.name == p.name) {
                return Err(ConfigError::value(
                    "trace.phases",
                    show(),
                    format!("each phase name once; '{}' is given twice", p.name),
                ));
            }
        }
        Ok(())
    }

    /// `fill_percent` only with the preconditionings that read it, within 0–100; a
    /// footprint pass reads the workload twice, so it needs a trace that can be reopened.
    fn check_precondition(&self, page_bytes: u64) -> Result<(), ConfigError> {
        use super::Precondition as P;
        if let Some(p) = self.fill_percent {
            if self.precondition == P::Random {
                super::check_f64(
                    "fill_percent",
                    p,
                    0.0,
                    1000.0,
                    "volume of random aging writes, percent of the logical space: up to \
                     ten drive writes",
                )?;
            } else {
                super::check_f64(
                    "fill_percent",
                    p,
                    0.0,
                    100.0,
                    "percent of the logical space written before the run",
                )?;
            }
            match self.precondition {
                P::Fill | P::Footprint | P::Random | P::Age => {}
                P::Steady if p == 100.0 => {}
                other => {
                    let name = P::all()
                        .iter()
                        .find(|(k, _, _)| *k == other)
                        .map_or("?", |(_, n, _)| *n);
                    return Err(ConfigError::value(
                        "fill_percent",
                        p,
                        format!(
                            "no value with precondition = \"{name}\" (it reads fill_percent \
                             only with \"fill\", \"footprint\", \"random\" or \"age\"; \
                             \"steady\" fills all)"
                        ),
                    ));
                }
            }
        }
        if self.precondition == P::Age {
            super::check_f64(
                "aging.volume_drive_writes",
                self.aging.volume_drive_writes,
                0.0,
                1000.0,
                "bytes of aging writes in multiples of the logical capacity",
            )?;
            if self.fs.active() {
                return Err(ConfigError::value(
                    "precondition",
                    "age",
                    "\"none\", \"fill\" or \"steady\" with a file system (aging writes \
                     logical pages below it)",
                ));
            }
        } else if !self.aging.is_default() {
            return Err(ConfigError::value(
                "aging",
                format!(
                    "volume_drive_writes = {}, pattern = {:?}",
                    self.aging.volume_drive_writes, self.aging.pattern
                ),
                "no [aging] keys unless precondition = \"age\" (only aging reads them)",
            ));
        }
        if let Some(r) = self.precondition_record {
            if self.precondition != P::Random {
                return Err(ConfigError::value(
                    "precondition_record",
                    r,
                    "no value unless precondition = \"random\" (the only aging that reads it)",
                ));
            }
            if r.bytes() == 0 || r.bytes() % page_bytes != 0 {
                return Err(ConfigError::value(
                    "precondition_record",
                    r,
                    format!("a non-zero multiple of the page size ({page_bytes} B)"),
                ));
            }
            if self.host_log.active() {
                return Err(ConfigError::value(
                    "precondition_record",
                    r,
                    "no value with a host log (its aging writes one host-log block at a time)",
                ));
            }
        }
        if self.precondition == P::Footprint
            && let Some(path) = &self.trace.path
        {
            let regular =
                path.as_os_str() != "-" && std::fs::metadata(path).map_or(true, |m| m.is_file());
            if !regular {
                return Err(ConfigError::value(
                    "precondition",
                    "footprint",
                    format!(
                        "a trace file that can be read twice (the footprint pass reads it \
                         before the replay); {} is a pipe or standard input: save it to a \
                         file first",
                        path.display()
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Whether the FTL fits the device (enough blocks for its data, reserves and frontiers),
/// checked by [`crate::ftl::feasible::check`] (the arithmetic the constructors use, no
/// allocation), then by building the FTL and dropping it for the constructor's other
/// checks: its tables come zeroed from the OS (untouched pages cost no memory) and the
/// memory estimate has already run.
fn ftl_feasible(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> Result<(), ConfigError> {
    // Capacity first, by arithmetic alone (it names the smallest capacity and OP that
    // work); then the constructor's remaining checks (log-area sizes, page counts).
    crate::ftl::feasible::check(cfg, geo, logical_pages)?;
    build_ftl(cfg, geo, logical_pages, 0).map(drop)
}

/// Refuses a run whose estimate exceeds the memory available, naming the fix.
fn check_fits(m: &MemoryEstimate, cfg: &Config) -> Result<(), ConfigError> {
    let Some((available, limit)) = memory::available_memory() else {
        return Ok(());
    };
    check_estimate(m, cfg, available, limit)
}

fn check_estimate(
    m: &MemoryEstimate,
    cfg: &Config,
    available: u64,
    limit: String,
) -> Result<(), ConfigError> {
    let need = m.total_bytes();
    if need <= available {
        return Ok(());
    }
    // Flash-page tables scale with capacity / page size; the rest does not.
    let rest = need - m.per_page_bytes();
    let room = available.saturating_sub(rest);
    let scale = room as f64 / m.per_page_bytes().max(1) as f64;
    let page = cfg.device.page_size.bytes();
    let capacity = memory::round_down_size((cfg.device.capacity.bytes() as f64 * scale) as u64);
    let factor = (1.0 / scale.max(1e-9)).ceil() as u64;
    let larger_page = (page * factor.next_power_of_two()).min(super::MAX_PAGE_BYTES);
    let fix = if room == 0 {
        "a smaller buffer.size or workload".to_string()
    } else {
        format!(
            "device.capacity at most {} (--capacity), or device.page_size = {} (fewer pages)",
            capacity,
            Size(larger_page)
        )
    };
    Err(ConfigError::Memory {
        need_bytes: need,
        available_bytes: available,
        limit,
        breakdown: m.breakdown(),
        fix,
    })
}

/// Refuses the estimates of designs that run at the same time (a comma list runs them in
/// parallel) when together they exceed the memory available.
pub fn check_memory_together(designs: &[Design]) -> Result<(), ConfigError> {
    if designs.iter().any(|d| d.config.run.allow_memory) {
        return Ok(());
    }
    let Some((available, limit)) = memory::available_memory() else {
        return Ok(());
    };
    let need: u64 = designs.iter().map(|d| d.memory.total_bytes()).sum();
    if need <= available {
        return Ok(());
    }
    Err(ConfigError::Memory {
        need_bytes: need,
        available_bytes: available,
        limit,
        breakdown: format!("{} designs run side by side", designs.len()),
        fix: "fewer designs per run, or a smaller device.capacity".into(),
    })
}

/// Refuses generator settings (table `table`: `workload`, or `generator` for `hybrid`)
/// next to a trace, which replays its own requests: a `--span` or `--read-percent` there
/// would be silently ignored. `requests` is the one setting both read (it caps the
/// replay).
pub fn check_trace_workload(w: &synth::SynthConfig, table: &str) -> Result<(), ConfigError> {
    if w.requests == Some(0) {
        return Err(ConfigError::value(
            format!("{table}.requests"),
            0,
            "at least 1 (the trace requests to replay), or unset for the whole trace",
        ));
    }
    let now = flat(w);
    let default = flat(&synth::SynthConfig {
        requests: w.requests,
        ..synth::SynthConfig::default()
    });
    let mut changed = now.iter().filter(|(k, v)| default.get(*k) != Some(*v));
    match changed.next() {
        None => Ok(()),
        Some((key, value)) => Err(ConfigError::value(
            format!("{table}.{key}"),
            value,
            format!(
                "no generator setting with a trace (trace.path, --trace), which replays its \
                 own requests; of [{table}] only `requests` applies (it caps the replay)"
            ),
        )),
    }
}

/// A table as dotted keys (sub-tables flattened) and values as a user writes them.
/// The first key of `w` set away from the generator's defaults, as (key, value).
pub fn generator_changed(w: &synth::SynthConfig) -> Option<(String, String)> {
    let default = flat(&synth::SynthConfig::default());
    flat(w).into_iter().find(|(k, v)| default.get(k) != Some(v))
}

fn flat(cfg: &impl serde::Serialize) -> BTreeMap<String, String> {
    let table = toml::Table::try_from(cfg).expect("the config table serializes");
    super::leaves(&table)
        .into_iter()
        .map(|(k, v)| match v {
            toml::Value::String(s) => (k, s),
            other => (k, other.to_string()),
        })
        .collect()
}

/// Whether `key` (under `[ftl]`) was set by a file or flag away from both its built-in
/// default and the preset's value.
fn user_set(cfg: &FtlConfig, key: &str) -> bool {
    let now = flat(cfg);
    let default = flat(&FtlConfig::default());
    let preset = cfg.preset.0.as_deref().map(flat);
    let v = now.get(key);
    v != default.get(key) && preset.is_none_or(|p| v != p.get(key))
}

/// Refuses knobs the chosen FTL does not read when a file or flag set them away from
/// their default; returns notes for such knobs a preset set (a preset describes a device
/// with its own FTL's settings, which another FTL legitimately ignores).
fn check_knobs(cfg: &FtlConfig, preset_name: &str) -> Result<Vec<String>, ConfigError> {
    let kind = cfg.name;
    let now = flat(cfg);
    let default = flat(&FtlConfig::default());
    let preset = cfg.preset.0.as_deref().map(flat);
    let mut notes = Vec::new();
    let keys: std::collections::BTreeSet<&String> = now.keys().chain(default.keys()).collect();
    for key in keys {
        let v = now.get(key);
        if v == default.get(key) {
            continue;
        }
        let k = knob(key).unwrap_or_else(|| panic!("ftl.{key} missing from ftl::KNOBS"));
        let value = v.map_or("(unset)", String::as_str);
        if !k.used_by(kind) {
            if preset.as_ref().is_some_and(|p| p.get(key) == v) {
                notes.push(format!(
                    "ftl.{key} = {value} comes from preset {preset_name} for {}; the {} FTL \
                     ignores it",
                    k.users(),
                    kind.name()
                ));
                continue;
            }
            return Err(ConfigError::UnusedKnob {
                key: format!("ftl.{key}"),
                value: value.to_string(),
                ftl: kind.name(),
                what: k.what.to_string(),
                users: k.users(),
            });
        }
        // A GC policy's own keys (`gc_d`): set away from the default, the chosen policy
        // must read them (its spec says which keys it reads).
        let readers: Vec<&str> = gc_policies()
            .iter()
            .filter(|s| s.params.contains(&key.as_str()))
            .map(|s| s.name)
            .collect();
        if !readers.is_empty()
            && !cfg.gc.spec().params.contains(&key.as_str())
            && preset.as_ref().is_none_or(|p| p.get(key) != v)
        {
            return Err(ConfigError::value(
                format!("ftl.{key}"),
                value,
                format!(
                    "its default unless ftl.gc = {} (gc = {} samples no candidates)",
                    readers.join(" or "),
                    cfg.gc.name()
                ),
            ));
        }
    }
    Ok(notes)
}

/// A key that only some runs read: when it is set away from its default and `used` is
/// false, validation refuses it naming `users` (issue 30: flags parsed and ignored).
struct UnusedKey {
    key: &'static str,
    set: fn(&Config) -> bool,
    used: fn(&Config) -> bool,
    show: fn(&Config) -> String,
    users: &'static str,
}

fn has_trace(c: &Config) -> bool {
    c.trace.path.is_some()
}

/// Whether the run's block requests come from the generator (no trace, no file system).
fn generated(c: &Config) -> bool {
    c.trace.path.is_none() && !c.fs.active()
}

/// The table of keys that only some runs read (see [`UnusedKey`]).
const UNUSED_KEYS: &[UnusedKey] = &[
    UnusedKey {
        key: "host.arbitration",
        set: |c| c.host.arbitration != super::namespace::ArbitrationKind::Rr,
        used: |c| !c.namespaces.is_empty(),
        show: |c| format!("{:?}", c.host.arbitration).to_lowercase(),
        users: "drives with [[namespace]] tables",
    },
    UnusedKey {
        key: "host.arbitration_burst",
        set: |c| c.host.arbitration_burst != 1,
        used: |c| !c.namespaces.is_empty(),
        show: |c| c.host.arbitration_burst.to_string(),
        users: "drives with [[namespace]] tables",
    },
    UnusedKey {
        key: "trace.format",
        set: |c| c.trace.format.is_some(),
        used: has_trace,
        show: |c| format!("{:?}", c.trace.format.map(|f| f.name())),
        users: "block-trace replays (trace.path, --trace)",
    },
    UnusedKey {
        key: "trace.device",
        set: |c| c.trace.device.is_some(),
        used: has_trace,
        show: |c| format!("{:?}", c.trace.device),
        users: "block-trace replays (trace.path, --trace)",
    },
    UnusedKey {
        key: "trace.fit",
        set: |c| c.trace.fit != crate::workload::trace::FitPolicy::default(),
        used: has_trace,
        show: |c| format!("{:?}", c.trace.fit),
        users: "block-trace replays (trace.path, --trace)",
    },
    UnusedKey {
        key: "trace.columns",
        set: |c| c.trace.columns.is_some(),
        used: has_trace,
        show: |c| format!("{:?}", c.trace.columns),
        users: "block-trace replays (trace.path, --trace) in the csv format",
    },
    UnusedKey {
        key: "trace.writes_only",
        set: |c| c.trace.writes_only,
        used: has_trace,
        show: |_| "true".into(),
        users: "block-trace replays (trace.path, --trace)",
    },
    UnusedKey {
        key: "host.speedup",
        set: |c| c.host.speedup != 1.0,
        used: |c| c.trace.path.is_some() || c.fs.trace.is_some(),
        show: |c| c.host.speedup.to_string(),
        users: "replays of a trace's time stamps (--trace, --file-trace)",
    },
    UnusedKey {
        key: "workload.read_percent",
        set: |c| {
            c.workload.read_percent != crate::workload::synth::SynthConfig::default().read_percent
        },
        used: |c| {
            use crate::workload::synth::SynthKind as K;
            generated(c)
                && matches!(
                    c.workload.kind,
                    K::Mixed | K::Zipf | K::HotCold | K::Oltp | K::Compile
                )
        },
        show: |c| c.workload.read_percent.to_string(),
        users: "the generators mixed, zipf, hot-cold, oltp and compile",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ftl_key_has_a_knob_entry() {
        for key in flat(&FtlConfig::default()).keys() {
            assert!(knob(key).is_some(), "ftl.{key} has no entry in ftl::KNOBS");
        }
    }

    #[test]
    fn memory_refusal_names_a_capacity_that_fits() {
        let cfg = Config::default();
        let d = cfg.validate().unwrap();
        let need = d.memory.total_bytes();
        let e = check_estimate(&d.memory, &cfg, need / 4, "test".into()).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("device.capacity at most"), "{msg}");
        assert!(msg.contains("run.allow_memory"), "{msg}");
    }
}
