//! Configuration: built-in defaults ← preset ← TOML file ← command-line flags, loaded
//! into a [`Config`] (echoed with its seed in every report) and resolved by
//! [`Config::validate`] into a [`Design`]: the device derived once and every check that
//! can be made before allocating (bounds, cross-key rules, knobs the FTL does not use,
//! FTL feasibility, memory). Every refusal is a typed [`ConfigError`].

pub mod actual;
mod design;
pub mod fs;
mod memory;
pub mod namespace;

pub use crate::spec::{ConfigError, check_f64, check_range};
pub use design::{Design, check_memory_together};
pub use design::{check_trace_workload, generator_changed, namespace_seed};
pub use memory::{MemoryEstimate, available_memory};

use crate::buffer::{BufferConfig, BufferShape};
use crate::ftl::{FtlConfig, PresetFtl};
use crate::host::DispatchOrder;
use crate::nand::{CellKind, Geometry};
use crate::timing::{CopyCost, FormulaCosts, Organisation, SlcParams, TimingParams};
use crate::units::Size;
use crate::workload::synth::SynthConfig;
use crate::workload::trace::{BlkparseEvent, FitPolicy, TraceFormat};
use serde::{Deserialize, Serialize};
use std::fmt::Display;
use std::path::PathBuf;

/// The value preset `name` gives key `key` of table `table`, if any: lets validation tell
/// a preset's own setting from one the user gave.
fn preset_value(name: &str, table: &str, key: &str) -> Option<toml::Value> {
    let (_, text) = PRESETS.iter().find(|(n, _)| *n == name)?;
    let mut t: toml::Table = toml::from_str(text).ok()?;
    t.remove(table)?.as_table_mut()?.remove(key)
}

/// Presets embedded in the binary: (name, TOML text).
pub const PRESETS: &[(&str, &str)] = &[
    ("default", include_str!("../../../../presets/default.toml")),
    (
        "tlc-nvme",
        include_str!("../../../../presets/tlc-nvme.toml"),
    ),
    (
        "qlc-nvme",
        include_str!("../../../../presets/qlc-nvme.toml"),
    ),
    ("ssd-a", include_str!("../../../../presets/ssd-a.toml")),
    ("ssd-b", include_str!("../../../../presets/ssd-b.toml")),
    ("ssd-c", include_str!("../../../../presets/ssd-c.toml")),
    (
        "android-emmc",
        include_str!("../../../../presets/android-emmc.toml"),
    ),
];

/// `[device]`: the flash array, controller and host link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DeviceConfig {
    /// Preset this device came from.
    pub preset: String,
    /// One-line description.
    pub description: String,
    /// Cell technology (default timings, endurance, block size).
    pub cell: CellKind,
    /// Logical capacity exported to the host.
    pub capacity: Size,
    /// Over-provisioning, percent: (physical − logical) / logical.
    pub op_percent: f64,
    /// Channels.
    pub channels: u32,
    /// Chips per channel.
    pub chips_per_channel: u32,
    /// Dies per chip.
    pub dies_per_chip: u32,
    /// Planes per die.
    pub planes_per_die: u32,
    /// Page (mapping unit) size.
    pub page_size: Size,
    /// Spare bytes per page.
    pub oob_size: Size,
    /// Pages per block; default from the cell type.
    pub pages_per_block: Option<u32>,
    /// t_R override, ns.
    pub read_ns: Option<u64>,
    /// t_PROG override, ns.
    pub program_ns: Option<u64>,
    /// t_BERS override, ns.
    pub erase_ns: Option<u64>,
    /// Serial transfer per byte override, ns (page transfer = page size × t_RC).
    pub t_rc_ns: Option<f64>,
    /// Channel rate, MB/s; when set it replaces page size × t_RC.
    pub channel_mb_s: Option<f64>,
    /// Control-bus time per command for shared-control gangs, ns.
    pub command_ns: u64,
    /// How chips are wired.
    pub organisation: Organisation,
    /// Same-plane GC copies use copy-back (no bus transfer), as Agrawal et al. (2008)
    /// assume; the page FTL keeps GC inside a plane, so all its copies qualify. Set false
    /// to move every copy out over the bus and back (controller-side ECC).
    pub copyback: bool,
    /// Host interface rate, MB/s; 0 = unlimited.
    pub host_link_mb_s: f64,
    /// Program/erase cycles per block, at least 1; default from the cell type.
    pub endurance_cycles: Option<u32>,
    /// DRAM on the device (the write buffer uses it when one is configured).
    pub dram_buffer: Size,
    /// Mapping pages one program operation writes together (multi-plane / one-shot
    /// programming of physical pages larger than the mapping unit: planes × physical
    /// page / page_size). An operation holds its die for the whole t_PROG however many
    /// of these slots are filled; the pages queued for a die when it becomes free share
    /// one (`crate::timing::Timing`; the count model rounds a command's programs up to
    /// whole operations). Default 1.
    pub pages_per_program: u32,
    /// SLC write cache (TurboWrite-style), percent of the logical capacity: host writes
    /// open blocks in SLC mode (`slc_program_ns`, reads `slc_read_ns`) while their die
    /// holds fewer than its share of SLC blocks; the oldest are folded into the native
    /// cell type in the die's idle time. 0 = none (default).
    pub slc_cache_percent: f64,
    /// t_R of a block in SLC mode, ns; default: the SLC cell's.
    pub slc_read_ns: Option<u64>,
    /// t_PROG of a block in SLC mode, ns (one program operation of up to
    /// `pages_per_program` pages, like `program_ns`); default: the SLC cell's.
    pub slc_program_ns: Option<u64>,
    /// Fixed controller and protocol latency per command (doorbell, command fetch,
    /// completion, interrupt), ns: added to every command's completion, occupying no
    /// resource. Default 0.
    pub controller_latency_ns: u64,
    /// Controller time per command on the command-processing path, ns: commands pass it
    /// one at a time (it bounds IOPS at 1e9 / this) before their flash work. Default 0.
    pub controller_command_ns: u64,
    /// Keep a write sequence number in every page's OOB tag (4 B per page), so tests can
    /// check which host write a read returns (`sim::Device::peek_version`, the
    /// flash cache's data tags). Default: off. It changes no result, but doubles the tag
    /// bytes a GC copy or merge moves (and the NAND table's RAM).
    pub track_write_seq: Option<bool>,
}

impl Default for DeviceConfig {
    fn default() -> Self {
        DeviceConfig {
            preset: "default".into(),
            description: String::new(),
            cell: CellKind::Tlc,
            capacity: Size(64 << 30),
            op_percent: 7.0,
            channels: 8,
            chips_per_channel: 4,
            dies_per_chip: 2,
            planes_per_die: 2,
            page_size: Size(4096),
            oob_size: Size(128),
            pages_per_block: None,
            read_ns: None,
            program_ns: None,
            erase_ns: None,
            t_rc_ns: None,
            channel_mb_s: None,
            command_ns: 100,
            organisation: Organisation::Channels,
            copyback: true,
            host_link_mb_s: 0.0,
            endurance_cycles: None,
            dram_buffer: Size(0),
            pages_per_program: 1,
            slc_cache_percent: 0.0,
            slc_read_ns: None,
            slc_program_ns: None,
            controller_latency_ns: 0,
            controller_command_ns: 0,
            track_write_seq: None,
        }
    }
}

/// `[host]`: the host queue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostConfig {
    /// Requests outstanding at most (1–512).
    pub qd: u32,
    /// Open-loop replay speed-up: trace gaps are divided by this.
    pub speedup: f64,
    /// Which waiting command the device takes next (matters with a write buffer).
    pub dispatch: DispatchOrder,
    /// The host stops issuing requests at this simulated time (ns from the start of the
    /// measured run); requests already issued complete. `None`: run the whole workload.
    /// MQSim's flows end at a `Stop_Time` this way.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::units::wide_u64::option"
    )]
    pub stop_ns: Option<u64>,
    /// How the controller picks the namespace whose submission queue it fetches the next
    /// command from (`rr` or `wrr`); read only with `[[namespace]]` tables.
    #[serde(skip_serializing_if = "is_default")]
    pub arbitration: namespace::ArbitrationKind,
    /// Commands one queue's turn may fetch (NVMe Arbitration Burst, as a plain count;
    /// 0 = no limit).
    #[serde(skip_serializing_if = "is_one")]
    pub arbitration_burst: u32,
    /// Weighted round robin: commands per round for the high class.
    #[serde(skip_serializing_if = "is_16")]
    pub weight_high: u32,
    /// Weighted round robin: commands per round for the medium class.
    #[serde(skip_serializing_if = "is_8")]
    pub weight_medium: u32,
    /// Weighted round robin: commands per round for the low class.
    #[serde(skip_serializing_if = "is_4")]
    pub weight_low: u32,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}
fn is_one(v: &u32) -> bool {
    *v == 1
}
fn is_16(v: &u32) -> bool {
    *v == 16
}
fn is_8(v: &u32) -> bool {
    *v == 8
}
fn is_4(v: &u32) -> bool {
    *v == 4
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            qd: 32,
            speedup: 1.0,
            dispatch: DispatchOrder::Fifo,
            stop_ns: None,
            // One command per turn: the Arbitration feature's smallest burst (AB = 000b).
            // A queue here holds every request its tenant will send, so a larger burst
            // would let one tenant's turn run for as long as the burst, which real
            // submission queues (as deep as the tenant's outstanding requests) bound.
            arbitration: namespace::ArbitrationKind::Rr,
            arbitration_burst: 1,
            // SPDK's arbitration example (examples/nvme/arbitration): 16, 8, 4.
            weight_high: 16,
            weight_medium: 8,
            weight_low: 4,
        }
    }
}

/// Timing model choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum TimingMode {
    /// Channel / die busy-until model.
    #[default]
    Full,
    /// Serial elapsed-time formula only (fastest).
    Count,
}

/// `[timing]`: model choice and the elapsed-time formula's constants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct TimingConfig {
    /// `full` or `count`.
    pub mode: TimingMode,
    /// Tr of the formula; default: the device's t_R.
    pub formula_read_ns: Option<u64>,
    /// Tw of the formula; default: the device's t_PROG.
    pub formula_program_ns: Option<u64>,
    /// Te of the formula; default: the device's t_BERS.
    pub formula_erase_ns: Option<u64>,
    /// What one GC copy costs in the formula.
    pub copy_cost: CopyCost,
}

/// `[trace]`: replaying a block trace instead of a generator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct TraceConfig {
    /// Trace file; when set, `[workload]` is ignored.
    pub path: Option<PathBuf>,
    /// Format; detected from the file when absent.
    pub format: Option<TraceFormat>,
    /// Keep only this device / volume.
    pub device: Option<u32>,
    /// Requests past the device end: reject, wrap or scale.
    pub fit: FitPolicy,
    /// Column spec for the generic `csv` format.
    pub columns: Option<String>,
    /// Replay only the trace's writes (the NCQ-buffer paper measures write commands only).
    pub writes_only: bool,
    /// Which blkparse / blktrace action is a request: `Q` (queued, default), `D` (issued to
    /// the driver, after merging) or `C` (completed).
    pub blkparse_event: BlkparseEvent,
    /// Splits the replay into named phases of consecutive requests, each reported on
    /// its own with its own counters (docs/traces.md, "Phases"); empty: one phase.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<TracePhase>,
}

/// One phase of a replay split by `trace.phases`: the next `requests` requests kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TracePhase {
    /// Name shown in the report's `phases`.
    pub name: String,
    /// Requests in the phase (after `trace.device`, `trace.writes_only` and
    /// `workload.requests`); 0 is allowed (a phase that sent nothing to the device).
    pub requests: u64,
}

/// Preconditioning before the measured run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Precondition {
    /// Start from an empty device.
    #[default]
    None,
    /// Write the whole logical space once, sequentially.
    Fill,
    /// Fill, then random single-page overwrites until write amplification settles.
    Steady,
    /// From empty, random writes of [`Config::precondition_record`] (default one page)
    /// over the whole logical space, [`Config::fill_percent`] of its size in total
    /// (default 100%, up to 1000%: several drive writes); pages never hit stay unwritten.
    Random,
    /// Write every page the workload reads before writing it, in a first streaming pass
    /// over the workload (after [`Config::fill_percent`] of the space, when set), so a
    /// replayed trace reads data a real drive would hold instead of never-written pages.
    Footprint,
    /// Fill [`Config::fill_percent`] of the space (the live data, default 100%), then
    /// write `aging.volume_drive_writes` × the logical capacity inside it in the
    /// `aging.pattern` (the claims registry's EXP-M10; docs/ftls.md, "Aging").
    Age,
}

impl Precondition {
    /// Names and descriptions, for `--precondition` and `ssdlab list`.
    pub fn all() -> &'static [(Precondition, &'static str, &'static str)] {
        &[
            (Precondition::None, "none", "start from an empty device"),
            (
                Precondition::Fill,
                "fill",
                "write the logical space (fill_percent of it, default all) once, sequentially",
            ),
            (
                Precondition::Steady,
                "steady",
                "fill, then random overwrites until write amplification settles",
            ),
            (
                Precondition::Random,
                "random",
                "from empty, random writes of precondition_record (default a page) over the whole space, fill_percent of its size (default 100, up to 1000)",
            ),
            (
                Precondition::Footprint,
                "footprint",
                "write every page the workload reads before writing it, in a first pass (after fill_percent of the space)",
            ),
            (
                Precondition::Age,
                "age",
                "fill fill_percent of the space (default all), then aging.volume_drive_writes × the capacity of aging.pattern writes inside it",
            ),
        ]
    }
}

/// `[aging]`: what `precondition = "age"` writes after the fill.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgingConfig {
    /// Bytes of aging writes, in multiples of the logical capacity (drive writes).
    pub volume_drive_writes: f64,
    /// Pattern of the aging writes.
    pub pattern: crate::workload::synth::aging::AgingPattern,
}

impl Default for AgingConfig {
    fn default() -> Self {
        AgingConfig {
            volume_drive_writes: 1.0,
            pattern: crate::workload::synth::aging::AgingPattern::Uniform,
        }
    }
}

impl AgingConfig {
    /// Whether every key has its default (the report leaves the table out then).
    pub fn is_default(&self) -> bool {
        *self == AgingConfig::default()
    }
}

/// `[run]`: limits on the run itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// Run even when the memory estimate exceeds the memory available.
    pub allow_memory: bool,
}

/// The whole configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Seed of every random choice.
    #[serde(with = "crate::units::wide_u64")]
    pub seed: u64,
    /// Preconditioning.
    pub precondition: Precondition,
    /// Share of the logical space written sequentially before the run, percent (MQSim's
    /// initial occupancy): with `fill` (default 100) and `footprint` (default 0); with
    /// `random`, the volume of random writes as a share of the logical space (default
    /// 100, up to 1000: several drive writes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fill_percent: Option<f64>,
    /// What `precondition = "age"` writes.
    #[serde(skip_serializing_if = "AgingConfig::is_default")]
    pub aging: AgingConfig,
    /// Size of each write of `precondition = "random"`, aligned to it (default one
    /// mapping page; a file system: one chunk or block). A multiple of the page size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precondition_record: Option<Size>,
    /// Device.
    pub device: DeviceConfig,
    /// FTL.
    pub ftl: FtlConfig,
    /// Host queue.
    pub host: HostConfig,
    /// DRAM write buffer.
    pub buffer: BufferConfig,
    /// Timing.
    pub timing: TimingConfig,
    /// Generator settings (each generator's own `[workload.NAME]` table folded in).
    #[serde(deserialize_with = "crate::workload::synth::deserialize_folded")]
    pub workload: SynthConfig,
    /// Trace settings.
    pub trace: TraceConfig,
    /// Limits on the run.
    pub run: RunConfig,
    /// File system and file workload (`fs.name = none`: block workload).
    pub fs: fs::FsConfig,
    /// Host-side log layer in front of the SSD (`host_log.name = mft`).
    #[serde(skip_serializing_if = "crate::host_log::HostLogConfig::is_default")]
    pub host_log: crate::host_log::HostLogConfig,
    /// The drive's namespaces (`[[namespace]]` tables; none: one namespace covering the
    /// whole drive).
    #[serde(rename = "namespace", skip_serializing_if = "Vec::is_empty")]
    pub namespaces: Vec<namespace::NamespaceConfig>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: 1,
            precondition: Precondition::None,
            fill_percent: None,
            aging: AgingConfig::default(),
            precondition_record: None,
            device: DeviceConfig::default(),
            ftl: FtlConfig::default(),
            host: HostConfig::default(),
            buffer: BufferConfig::default(),
            timing: TimingConfig::default(),
            workload: SynthConfig::default(),
            trace: TraceConfig::default(),
            run: RunConfig::default(),
            fs: fs::FsConfig::default(),
            host_log: crate::host_log::HostLogConfig::default(),
            namespaces: Vec::new(),
        }
    }
}

/// The device as the simulator builds it.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedDevice {
    /// Array shape.
    pub geometry: Geometry,
    /// Logical pages exported.
    pub logical_pages: u64,
    /// Full-model parameters.
    pub timing: TimingParams,
    /// Counting-formula costs.
    pub formula: FormulaCosts,
    /// Endurance per block.
    pub endurance_cycles: u32,
    /// Whether OOB tags carry write sequence numbers.
    pub track_write_seq: bool,
    /// Host link, ns per byte (0 = unlimited).
    pub link_ns_per_byte: f64,
    /// Over-provisioning actually obtained after rounding to whole blocks, percent.
    pub op_percent_actual: f64,
    /// SLC cache actually obtained after rounding to whole blocks on every die, percent
    /// of the logical capacity (0 without a cache).
    pub slc_cache_percent_actual: f64,
    /// The write buffer's shape; `None` = no buffer.
    pub buffer: Option<BufferShape>,
    /// Fixed controller latency per command, ns.
    pub controller_latency_ns: u64,
    /// Serial controller time per command, ns.
    pub controller_command_ns: u64,
}

/// Merges `over` into `base`: tables key by key, any other value replaced.
pub fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// Sets the dotted `key` (e.g. `ftl.log.victim`) of `table` to `value`, creating the
/// sub-tables on the way: the shape `--set` overrides take.
pub fn set_key(table: &mut toml::Table, key: &str, value: toml::Value) {
    let (parents, last) = key.rsplit_once('.').map_or(("", key), |(p, l)| (p, l));
    let mut cur = table;
    for p in parents.split('.').filter(|p| !p.is_empty()) {
        let entry = cur
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if !entry.is_table() {
            *entry = toml::Value::Table(toml::Table::new());
        }
        cur = entry.as_table_mut().expect("just made a table");
    }
    cur.insert(last.to_string(), value);
}

/// Every value of `table` that is not a table, with its dotted key.
pub fn leaves(table: &toml::Table) -> Vec<(String, toml::Value)> {
    fn walk(prefix: &str, t: &toml::Table, out: &mut Vec<(String, toml::Value)>) {
        for (k, v) in t {
            let key = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            match v {
                toml::Value::Table(sub) => walk(&key, sub, out),
                v => out.push((key, v.clone())),
            }
        }
    }
    let mut out = Vec::new();
    walk("", table, &mut out);
    out
}

/// Looks up a preset's TOML text by name.
pub fn preset_text(name: &str) -> Result<&'static str, ConfigError> {
    PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
            ConfigError::UnknownPreset {
                name: name.into(),
                expected: names.join(", "),
            }
        })
}

fn parse_error(origin: &str, e: impl Display) -> ConfigError {
    let message = e.to_string().trim_end().to_string();
    // serde's messages end with "in `ftl.gc_d`" when they know the key.
    let key = message
        .rsplit_once("in `")
        .and_then(|(_, k)| k.strip_suffix('`'))
        .map(str::to_string);
    ConfigError::Parse {
        origin: origin.into(),
        key,
        message,
    }
}

impl Config {
    /// Builds a config from an optional preset name and optional TOML text of a user file
    /// (`source` names it in errors). The file's `device.preset` is used when `preset` is
    /// `None`.
    pub fn load(preset: Option<&str>, file: Option<(&str, &str)>) -> Result<Config, ConfigError> {
        Config::load_with(preset, file, toml::Table::new())
    }

    /// Like [`Config::load`], with `overrides` (e.g. from command-line flags) merged last.
    pub fn load_with(
        preset: Option<&str>,
        file: Option<(&str, &str)>,
        overrides: toml::Table,
    ) -> Result<Config, ConfigError> {
        let user: toml::Table = match file {
            Some((source, text)) => toml::from_str(text).map_err(|e| {
                if crate::mqsim::looks_like_xml(text) {
                    // A bare TOML error ("invalid key") on an XML file helps nobody.
                    let what = if text.contains("<Execution_Parameter_Set")
                        || text.contains("<MQSim_IO_Scenarios")
                    {
                        "this is MQSim XML"
                    } else {
                        "this is XML"
                    };
                    return ConfigError::Parse {
                        origin: source.into(),
                        key: None,
                        message: format!(
                            "{what}, not a TOML configuration; convert it with `ssdlab import-mqsim {source} -o {source}.toml` and pass that file (docs/mqsim.md)"
                        ),
                    };
                }
                parse_error(source, e)
            })?,
            None => toml::Table::new(),
        };
        let file_preset = user
            .get("device")
            .and_then(|d| d.get("preset"))
            .and_then(|p| p.as_str())
            .map(str::to_string);
        let name = preset
            .map(str::to_string)
            .or(file_preset)
            .unwrap_or_else(|| "default".into());
        let mut base = toml::Table::try_from(Config::default()).expect("defaults serialize");
        let preset_origin = format!("preset {name}");
        let preset_table: toml::Table =
            toml::from_str(preset_text(&name)?).map_err(|e| parse_error(&preset_origin, e))?;
        merge(&mut base, preset_table);
        // The `[ftl]` keys as defaults and preset leave them: a preset describes a device
        // with its own FTL's settings, which another FTL may ignore (see Design).
        let preset_ftl = match base.get("ftl") {
            Some(t) => {
                FtlConfig::deserialize(t.clone()).map_err(|e| parse_error(&preset_origin, e))?
            }
            None => FtlConfig::default(),
        };
        merge(&mut base, user);
        merge(&mut base, overrides);
        if let Some(toml::Value::Table(d)) = base.get_mut("device") {
            d.insert("preset".into(), toml::Value::String(name.clone()));
        }
        let source = file.map(|(s, _)| s).unwrap_or("command line");
        let mut cfg = Config::deserialize(base).map_err(|e| parse_error(source, e))?;
        cfg.ftl.preset = PresetFtl(Some(Box::new(preset_ftl)));
        Ok(cfg)
    }

    /// The array's shape: page size, capacity and over-provisioning checked, levels of
    /// the array in range, blocks per plane derived.
    fn resolve_shape(&self) -> Result<Shape, ConfigError> {
        let d = &self.device;
        let cell = d.cell.timing();
        let page = d.page_size.bytes();
        if page == 0 || !page.is_multiple_of(512) || page > MAX_PAGE_BYTES {
            return Err(ConfigError::value(
                "device.page_size",
                d.page_size,
                "a multiple of 512B up to 1MiB",
            ));
        }
        check_range(
            "device.oob_size",
            d.oob_size.bytes(),
            0,
            page,
            "bytes of spare area, at most the page size",
        )?;
        check_f64(
            "device.op_percent",
            d.op_percent,
            0.0,
            1000.0,
            "percent: (physical - logical) / logical",
        )?;
        let logical_pages = d.capacity.bytes() / page;
        if logical_pages == 0 {
            return Err(ConfigError::value(
                "device.capacity",
                d.capacity,
                format!("at least one {} page", d.page_size),
            ));
        }
        if !d.capacity.bytes().is_multiple_of(page) {
            return Err(ConfigError::value(
                "device.capacity",
                d.capacity,
                format!("a whole number of {} pages", d.page_size),
            ));
        }
        if logical_pages > MAX_LOGICAL_PAGES {
            return Err(ConfigError::value(
                "device.capacity",
                d.capacity,
                format!(
                    "at most 2^31 pages ({} with {} pages; logical page numbers are 32-bit \
                     and over-provisioning needs the rest): a smaller capacity or a larger \
                     device.page_size",
                    Size(MAX_LOGICAL_PAGES * page),
                    d.page_size
                ),
            ));
        }
        let pages_per_block = d.pages_per_block.unwrap_or(cell.pages_per_block);
        for (name, v, hi) in [
            ("channels", d.channels, MAX_PER_LEVEL),
            ("chips_per_channel", d.chips_per_channel, MAX_PER_LEVEL),
            ("dies_per_chip", d.dies_per_chip, MAX_PER_LEVEL),
            ("planes_per_die", d.planes_per_die, MAX_PER_LEVEL),
            ("pages_per_block", pages_per_block, MAX_PAGES_PER_BLOCK),
        ] {
            if v == 0 {
                return Err(ConfigError::Geometry(format!(
                    "impossible geometry: device.{name} = 0: expected at least 1"
                )));
            }
            check_range(
                &format!("device.{name}"),
                v,
                1,
                hi,
                "per level of the array",
            )?;
        }
        let planes = d.channels as u64
            * d.chips_per_channel as u64
            * d.dies_per_chip as u64
            * d.planes_per_die as u64;
        if planes > MAX_PLANES {
            return Err(ConfigError::Geometry(format!(
                "impossible geometry: {planes} planes (device.channels × chips_per_channel × \
                 dies_per_chip × planes_per_die): expected at most {MAX_PLANES}"
            )));
        }
        let physical_pages = (logical_pages as f64 * (1.0 + d.op_percent / 100.0)).ceil() as u64;
        let blocks_per_plane = physical_pages.div_ceil(pages_per_block as u64 * planes);
        if blocks_per_plane > u32::MAX as u64 {
            return Err(ConfigError::Geometry(
                "impossible geometry: too many blocks per plane".into(),
            ));
        }
        let geometry = Geometry {
            channels: d.channels,
            chips_per_channel: d.chips_per_channel,
            dies_per_chip: d.dies_per_chip,
            planes_per_die: d.planes_per_die,
            blocks_per_plane: blocks_per_plane as u32,
            pages_per_block,
            page_size_bytes: page as u32,
            oob_size_bytes: d.oob_size.bytes() as u32,
        };
        geometry
            .validate()
            .map_err(|e| ConfigError::Geometry(e.to_string()))?;
        Ok(Shape {
            geometry,
            logical_pages,
            planes,
            pages_per_block,
        })
    }

    /// The operation latencies (the cell's, or the keys'), the SLC cache and the
    /// formula's costs.
    fn resolve_timing(
        &self,
        geometry: &Geometry,
        logical_pages: u64,
        planes: u64,
    ) -> Result<(TimingParams, FormulaCosts), ConfigError> {
        let d = &self.device;
        let cell = d.cell.timing();
        let page = geometry.page_size_bytes as u64;
        let pages_per_block = geometry.pages_per_block;
        let transfer_ns = match (d.channel_mb_s, d.t_rc_ns) {
            (Some(rate), _) => {
                check_f64("device.channel_mb_s", rate, f64::MIN_POSITIVE, 1e9, "MB/s")?;
                (page as f64 / rate * 1e3).round() as u64
            }
            (None, Some(t_rc)) => {
                check_f64("device.t_rc_ns", t_rc, 0.0, 1e6, "ns per byte")?;
                (page as f64 * t_rc).round() as u64
            }
            (None, None) => (page as f64 * cell.t_rc_ns).round() as u64,
        };
        for (key, v) in [
            ("device.read_ns", d.read_ns),
            ("device.program_ns", d.program_ns),
            ("device.erase_ns", d.erase_ns),
            ("device.command_ns", Some(d.command_ns)),
            ("device.slc_read_ns", d.slc_read_ns),
            ("device.slc_program_ns", d.slc_program_ns),
            (
                "device.controller_latency_ns",
                Some(d.controller_latency_ns),
            ),
            (
                "device.controller_command_ns",
                Some(d.controller_command_ns),
            ),
            ("timing.formula_read_ns", self.timing.formula_read_ns),
            ("timing.formula_program_ns", self.timing.formula_program_ns),
            ("timing.formula_erase_ns", self.timing.formula_erase_ns),
        ] {
            if let Some(v) = v {
                check_range(key, v, 0, MAX_OP_NS, "ns; 10 s at most")?;
            }
        }
        let read_ns = d.read_ns.unwrap_or(cell.read_ns);
        let program_ns = d.program_ns.unwrap_or(cell.program_ns);
        let erase_ns = d.erase_ns.unwrap_or(cell.erase_ns);
        check_range(
            "device.pages_per_program",
            d.pages_per_program,
            1,
            pages_per_block,
            "mapping pages one program writes together, at most a block's",
        )?;
        check_f64(
            "device.slc_cache_percent",
            d.slc_cache_percent,
            0.0,
            100.0,
            "percent of the logical capacity held in SLC mode; 0 = no SLC cache",
        )?;
        let slc = if d.slc_cache_percent > 0.0 {
            let slc_cell = CellKind::Slc.timing();
            let blocks = (logical_pages as f64 * d.slc_cache_percent
                / 100.0
                / pages_per_block as f64)
                .ceil() as u64;
            let dies = planes / d.planes_per_die as u64;
            Some(SlcParams {
                read_ns: d.slc_read_ns.unwrap_or(slc_cell.read_ns),
                program_ns: d.slc_program_ns.unwrap_or(slc_cell.program_ns),
                blocks_per_die: blocks.div_ceil(dies).min(u32::MAX as u64) as u32,
            })
        } else {
            // SLC timings have no effect without the cache: refused when the user gave
            // them, accepted when they are the preset's own (so that
            // `--set device.slc_cache_percent=0` turns a preset's cache off).
            for (key, short, value) in [
                ("device.slc_read_ns", "slc_read_ns", d.slc_read_ns),
                ("device.slc_program_ns", "slc_program_ns", d.slc_program_ns),
            ] {
                if value.is_some()
                    && value
                        != preset_value(&d.preset, "device", short)
                            .and_then(|v| v.as_integer())
                            .and_then(|v| u64::try_from(v).ok())
                {
                    return Err(ConfigError::value(
                        key,
                        "set",
                        "no value without an SLC cache (device.slc_cache_percent > 0)",
                    ));
                }
            }
            None
        };
        let timing = TimingParams {
            read_ns,
            program_ns,
            erase_ns,
            transfer_ns,
            command_ns: d.command_ns,
            copyback: d.copyback,
            organisation: d.organisation,
            pages_per_program: d.pages_per_program,
            slc,
        };
        let t = &self.timing;
        // The formula charges one mapping page its share of a multi-page program.
        let page_program_ns = (program_ns as f64 / d.pages_per_program as f64).round() as u64;
        let formula = FormulaCosts {
            read_ns: t.formula_read_ns.unwrap_or(read_ns),
            program_ns: t.formula_program_ns.unwrap_or(page_program_ns),
            erase_ns: t.formula_erase_ns.unwrap_or(erase_ns),
            copy_cost: t.copy_cost,
        };
        Ok((timing, formula))
    }

    /// Derives the device the simulator builds, checking every device, host, timing and
    /// buffer setting. [`Config::validate`] calls it once and checks the rest; use that.
    pub fn resolve_device(&self) -> Result<ResolvedDevice, ConfigError> {
        let d = &self.device;
        let cell = d.cell.timing();
        let page = d.page_size.bytes();
        let Shape {
            geometry,
            logical_pages,
            planes,
            pages_per_block,
        } = self.resolve_shape()?;
        let (timing, formula) = self.resolve_timing(&geometry, logical_pages, planes)?;
        check_f64(
            "device.host_link_mb_s",
            d.host_link_mb_s,
            0.0,
            1e9,
            "MB/s; 0 = unlimited",
        )?;
        let link_ns_per_byte = if d.host_link_mb_s > 0.0 {
            1e3 / d.host_link_mb_s
        } else {
            0.0
        };
        if let Some(e) = d.endurance_cycles {
            // 0 used to mean "never wears out" by accident; a block that survives no
            // erase is not a device.
            check_range(
                "device.endurance_cycles",
                e,
                1,
                u32::MAX,
                "program/erase cycles per block; omit it for the cell's default",
            )?;
        }
        check_range(
            "host.qd",
            self.host.qd,
            1,
            512,
            "outstanding requests (NCQ tags)",
        )?;
        // DFTL with FIFO: each GC-moved page costs a translation-page write that goes
        // stale at once but waits the whole FIFO queue, so under random writes there is no
        // steady state below physical = 2 x logical (docs/ftls.md, "Victim policies other
        // than greedy under DFTL"); it would run out of free blocks mid-run.
        // Sequential generators over a fresh or sequentially filled drive overwrite whole
        // blocks, so GC moves nothing and FIFO is as good as greedy: the bound is the
        // random writes' (issue 30: `--workload seq-write` was refused by it).
        use crate::workload::synth::SynthKind;
        let sequential_only = self.trace.path.is_none()
            && self.fs.workload.is_none()
            && matches!(self.workload.kind, SynthKind::SeqWrite | SynthKind::SeqRead)
            && matches!(self.precondition, Precondition::None | Precondition::Fill);
        if self.ftl.name == crate::ftl::FtlKind::Dftl
            && self.ftl.gc == crate::ftl::gc::GcPolicyKind::Fifo
            && self.device.op_percent < 100.0
            && !sequential_only
        {
            return Err(ConfigError::value(
                "ftl.gc",
                "fifo",
                format!(
                    "greedy, cost-benefit or d-choices with dftl at device.op_percent = {} \
                     for a workload with random writes (a trace, a random generator or \
                     random preconditioning): DFTL with FIFO then needs \
                     device.op_percent >= 100, since its stale translation blocks wait the \
                     whole FIFO queue; docs/ftls.md. Sequential generators (seq-write, \
                     seq-read) run at any over-provisioning",
                    self.device.op_percent
                ),
            ));
        }
        if !(self.host.speedup > 0.0 && self.host.speedup.is_finite()) {
            return Err(ConfigError::value(
                "host.speedup",
                self.host.speedup,
                "a positive number (trace gaps are divided by it)",
            ));
        }
        if let Some(stop) = self.host.stop_ns
            && !(1..=crate::host::MAX_SIM_TIME_NS).contains(&stop)
        {
            return Err(ConfigError::value(
                "host.stop_ns",
                stop,
                format!(
                    "a simulated time in ns from 1 to {} (2^62, the simulator's time limit)",
                    crate::host::MAX_SIM_TIME_NS
                ),
            ));
        }
        // A preset's own buffer size is sized for its full capacity: on a smaller device
        // it is capped at the logical capacity, as the DRAM-derived default is (a size the
        // user gave that exceeds the device is still refused).
        let mut buffer_cfg = std::borrow::Cow::Borrowed(&self.buffer);
        if let Some(size) = self.buffer.size {
            let logical_bytes = logical_pages.saturating_mul(page);
            if size.bytes() > logical_bytes
                && preset_value(&d.preset, "buffer", "size")
                    .and_then(|v| v.as_str()?.parse::<Size>().ok())
                    == Some(size)
            {
                buffer_cfg.to_mut().size = Some(Size(logical_bytes));
            }
        }
        let buffer =
            buffer_cfg.shape(page, pages_per_block, logical_pages, d.dram_buffer.bytes())?;
        let physical = geometry.pages();
        let slc_cache_percent_actual = timing.slc.as_ref().map_or(0.0, |s| {
            (s.blocks_per_die as u64 * (planes / d.planes_per_die as u64) * pages_per_block as u64)
                as f64
                / logical_pages as f64
                * 100.0
        });
        Ok(ResolvedDevice {
            geometry,
            logical_pages,
            timing,
            formula,
            endurance_cycles: d.endurance_cycles.unwrap_or(cell.endurance_cycles),
            track_write_seq: d.track_write_seq.unwrap_or(false),
            link_ns_per_byte,
            op_percent_actual: (physical as f64 - logical_pages as f64) / logical_pages as f64
                * 100.0,
            slc_cache_percent_actual,
            buffer,
            controller_latency_ns: d.controller_latency_ns,
            controller_command_ns: d.controller_command_ns,
        })
    }
}

/// The array's shape as [`Config::resolve_device`] derives it.
struct Shape {
    geometry: Geometry,
    logical_pages: u64,
    /// Planes of the whole array.
    planes: u64,
    pages_per_block: u32,
}

/// Largest page: a mapping unit beyond 1 MiB is a block, not a page.
pub const MAX_PAGE_BYTES: u64 = 1 << 20;

/// Largest logical capacity in pages: page numbers are `u32` and the physical pages
/// (logical plus over-provisioning) must fit too.
pub const MAX_LOGICAL_PAGES: u64 = 1 << 31;

/// Largest count per array level (channels, chips per channel, dies, planes).
pub const MAX_PER_LEVEL: u32 = 1024;

/// Largest plane count of the whole array: per-plane state is allocated up front.
pub const MAX_PLANES: u64 = 1 << 16;

/// Largest `pages_per_block` (block state keeps page counts in 32 bits; real NAND has
/// at most a few thousand).
pub const MAX_PAGES_PER_BLOCK: u32 = 1 << 16;

/// Largest flash-operation or command time: beyond 10 s a value is a unit mistake.
pub const MAX_OP_NS: u64 = 10_000_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_loads_and_resolves() {
        for (name, _) in PRESETS {
            let c = Config::load(Some(name), None).unwrap();
            assert_eq!(&c.device.preset, name);
            let d = c.resolve_device().unwrap();
            assert!(d.op_percent_actual >= c.device.op_percent - 1e-9, "{name}");
            assert!(d.op_percent_actual < c.device.op_percent + 1.0, "{name}");
        }
    }

    #[test]
    fn file_overrides_preset_and_preset_overrides_defaults() {
        let c = Config::load(
            Some("ssd-b"),
            Some((
                "my.toml",
                "seed = 9\n[device]\nop_percent = 28\n[ftl]\ngc = \"fifo\"\n",
            )),
        )
        .unwrap();
        assert_eq!(c.seed, 9);
        assert_eq!(c.device.op_percent, 28.0);
        assert_eq!(c.device.page_size, Size(2048));
        assert_eq!(c.ftl.gc, crate::ftl::gc::GcPolicyKind::Fifo);
    }

    #[test]
    fn errors_name_the_file_and_the_key() {
        let e = Config::load(None, Some(("my.toml", "[device]\nchanels = 4\n")))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("my.toml"), "{e}");
        assert!(e.contains("chanels"), "{e}");
        let e = Config::load(Some("nope"), None).unwrap_err().to_string();
        assert!(
            e.contains("unknown preset 'nope'") && e.contains("ssd-a"),
            "{e}"
        );
        let e = Config::load(None, Some(("x.toml", "[ftl]\nname = \"zftl\"\n")))
            .unwrap_err()
            .to_string();
        assert!(e.contains("zftl"), "{e}");
    }

    #[test]
    fn impossible_geometry_is_an_error() {
        let mut c = Config::default();
        c.device.channels = 0;
        assert!(
            c.resolve_device()
                .unwrap_err()
                .to_string()
                .contains("channels")
        );
        let mut c = Config::default();
        c.device.page_size = Size(1000);
        assert!(
            c.resolve_device()
                .unwrap_err()
                .to_string()
                .contains("page_size")
        );
        let mut c = Config::default();
        c.host.qd = 0;
        assert!(c.resolve_device().unwrap_err().to_string().contains("qd"));
    }

    #[test]
    fn android_preset_uses_the_papers_formula_constants() {
        let c = Config::load(Some("android-emmc"), None).unwrap();
        let d = c.resolve_device().unwrap();
        assert_eq!(
            (d.formula.read_ns, d.formula.program_ns, d.formula.erase_ns),
            (20_000, 250_000, 1_500_000)
        );
        assert_eq!(c.timing.mode, TimingMode::Count);
    }
}
