//! Configuration of a hybrid run: built-in defaults ← HDD preset ← SSD preset ← TOML file
//! ← command-line overrides, resolved into one validated [`HybridConfig`].
//!
//! ```toml
//! seed = 1
//! [hdd]                  # an HDD preset and any HddParams key
//! preset = "desktop-7200"
//! [cache]                # CacheConfig; size = 0 runs the HDD alone
//! size = "16GiB"
//! write_policy = "write-through"
//! [flash.device]         # the cache SSD: [device], [ftl], [timing] of an ssdlab config
//! preset = "sata-mlc-2011"   # or any preset of `ssdlab run`
//! [workload]
//! kind = "boot"          # boot, app-launch, game-load, read-mix, generator
//! runs = 2               # cold, then warm
//! idle_ns = 0            # host idle time between runs (e.g. a reboot)
//! [read_mix]             # kind = "read-mix": a synthetic read stream (workload::read_mix)
//! volume = 400000000     # bytes read by each run
//! [generator]            # the [workload] table of an ssdlab config (kind = "generator")
//! [trace]                # a trace replaces the workload (as in ssdlab run)
//! [host]
//! qd = 1
//! ```

use super::hdd::{DEFAULT_HDD_PRESET, HddError, HddParams};
use super::store::CacheConfig;
use super::workload::{DesktopWorkload, ReadMix};
use crate::config::{
    Config, ConfigError, DeviceConfig, TimingConfig, TraceConfig, check_range, merge,
};
use crate::ftl::FtlConfig;
use crate::workload::synth::SynthConfig;
use serde::{Deserialize, Serialize};

/// Flash presets of the hybrid command on top of the SSD presets of `ssdlab run`: (name,
/// TOML overlay whose `base` names the SSD preset it adjusts).
pub const FLASH_PRESETS: &[(&str, &str)] = &[(
    "sata-mlc-2011",
    include_str!("../../../../presets/flash/sata-mlc-2011.toml"),
)];

/// The SSD preset the flash cache uses unless told otherwise: an MLC SATA SSD of the
/// paper's time.
pub const DEFAULT_FLASH_PRESET: &str = "sata-mlc-2011";

/// Why the flash cache's SSD cannot be loaded.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FlashPresetError {
    /// The name is neither a hybrid flash preset nor an `ssdlab run` preset.
    #[error("unknown flash preset '{name}': expected one of {expected}")]
    Unknown {
        /// The name given.
        name: String,
        /// Every preset accepted, comma separated.
        expected: String,
    },
    /// A built-in flash preset's TOML does not parse.
    #[error("flash preset {name}: {message}")]
    Syntax {
        /// The preset.
        name: String,
        /// The parser's message.
        message: String,
    },
    /// A built-in flash preset names no `base` preset.
    #[error("flash preset {name}: expected a base preset")]
    NoBase {
        /// The preset.
        name: String,
    },
    /// The SSD's keys (`[flash.device]`, `[flash.ftl]`, `[flash.timing]`) are refused.
    #[error(transparent)]
    Config(Box<ConfigError>),
}

/// Why a hybrid configuration is refused: the file ("command line" for flags) and what.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{origin}: {error}")]
pub struct HybridConfigError {
    /// File name or "command line".
    pub origin: String,
    /// What is wrong, naming the key.
    pub error: HybridKeyError,
}

/// What is wrong in a hybrid configuration; each variant names the key.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum HybridKeyError {
    /// The TOML does not parse, or a key is unknown or of the wrong type (the parser's
    /// message names the key).
    #[error("{0}")]
    Syntax(String),
    /// A section that must be a table is not one.
    #[error("{key}: expected a table")]
    NotATable {
        /// The section (`hdd`, `flash`).
        key: &'static str,
    },
    /// A value of the wrong kind.
    #[error("{key} = {value}: expected {expected}")]
    Value {
        /// Dotted key.
        key: &'static str,
        /// The value given.
        value: String,
        /// What is accepted.
        expected: &'static str,
    },
    /// A key the section does not have.
    #[error("unknown key {key}: expected {expected}")]
    UnknownKey {
        /// Dotted key.
        key: String,
        /// The keys the section has.
        expected: &'static str,
    },
    /// The `[hdd]` section.
    #[error(transparent)]
    Hdd(#[from] HddError),
    /// The `[flash]` section.
    #[error("flash: {0}")]
    Flash(#[from] FlashPresetError),
    /// Settings refused by validation.
    #[error(transparent)]
    Invalid(Box<ConfigError>),
}

/// Loads SSD preset `name` (a hybrid flash preset or any `ssdlab run` preset) with the
/// `[flash]` table `user` (keys device, ftl, timing) merged over it.
pub fn load_flash(name: &str, mut user: toml::Table) -> Result<Config, FlashPresetError> {
    let (base, overlay) = match FLASH_PRESETS.iter().find(|(n, _)| *n == name) {
        Some((_, text)) => {
            let mut t: toml::Table =
                toml::from_str(text).map_err(|e| FlashPresetError::Syntax {
                    name: name.to_string(),
                    message: e.to_string(),
                })?;
            let base = match t.remove("base") {
                Some(toml::Value::String(b)) => b,
                _ => {
                    return Err(FlashPresetError::NoBase {
                        name: name.to_string(),
                    });
                }
            };
            (base, t)
        }
        None => (name.to_string(), toml::Table::new()),
    };
    let mut table = overlay;
    if let Some(toml::Value::Table(d)) = user.get_mut("device") {
        d.remove("preset");
    }
    merge(&mut table, user);
    let mut c = Config::load_with(Some(&base), None, table).map_err(|e| match e {
        ConfigError::UnknownPreset { .. } => {
            let mut names: Vec<&str> = FLASH_PRESETS.iter().map(|(n, _)| *n).collect();
            names.extend(crate::config::PRESETS.iter().map(|(n, _)| *n));
            FlashPresetError::Unknown {
                name: name.to_string(),
                expected: names.join(", "),
            }
        }
        e => FlashPresetError::Config(Box::new(e)),
    })?;
    c.device.preset = name.to_string();
    Ok(c)
}

/// A flash preset as `ssdlab run` settings: the SSD preset it is based on and its
/// overlay as dotted keys (`device.channel_mb_s`, …; descriptions left out), for
/// experiments that measure the cache SSD alone with an ordinary run. `None` for a name
/// that is not a hybrid flash preset.
pub fn flash_preset_run_keys(name: &str) -> Option<(String, Vec<(String, toml::Value)>)> {
    let (_, text) = FLASH_PRESETS.iter().find(|(n, _)| *n == name)?;
    let mut t: toml::Table = toml::from_str(text).expect("built-in flash preset parses");
    let base = t.remove("base")?.as_str()?.to_string();
    let mut keys = Vec::new();
    for (table, v) in t {
        if let toml::Value::Table(inner) = v {
            for (k, v) in inner {
                if k != "description" {
                    keys.push((format!("{table}.{k}"), v));
                }
            }
        }
    }
    Some((base, keys))
}

/// What runs against the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum WorkloadKind {
    /// The boot-like workload.
    #[default]
    Boot,
    /// The application-launch-like workload.
    AppLaunch,
    /// The game-load-like workload.
    GameLoad,
    /// The synthetic read mix of `[read_mix]` (volume, share of small requests, region).
    ReadMix,
    /// A benchmark generator (`[generator]`).
    Generator,
}

impl WorkloadKind {
    /// The desktop workload, if this is one.
    pub fn desktop(self) -> Option<DesktopWorkload> {
        match self {
            WorkloadKind::Boot => Some(DesktopWorkload::Boot),
            WorkloadKind::AppLaunch => Some(DesktopWorkload::AppLaunch),
            WorkloadKind::GameLoad => Some(DesktopWorkload::GameLoad),
            WorkloadKind::ReadMix | WorkloadKind::Generator => None,
        }
    }
}

/// `[workload]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HybridWorkloadConfig {
    /// Which workload.
    pub kind: WorkloadKind,
    /// Runs in a row on one store: the first cold, the others warm (1–100).
    pub runs: u32,
    /// Host idle time before each run after the first, ns (e.g. a reboot between a cold
    /// and a warm boot: the cache SSD finishes its pending fills meanwhile). Not part of
    /// any run's elapsed time. Left out of the echoed configuration when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub idle_ns: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// Most idle time between runs: about 11.6 days, far from overflowing the ns clock.
const MAX_IDLE_NS: u64 = 1_000_000_000_000_000;

impl Default for HybridWorkloadConfig {
    fn default() -> Self {
        HybridWorkloadConfig {
            kind: WorkloadKind::Boot,
            runs: 2,
            idle_ns: 0,
        }
    }
}

/// `[read_mix]`: the synthetic read stream of `workload.kind = "read-mix"`
/// ([`super::workload::read_mix`]; every run reads the same stream). The defaults are
/// the middle boot level of the claims registry's EXP-H2 (400 MB, 60 % small requests)
/// over the boot model's system region (4–40 GiB).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReadMixConfig {
    /// Bytes read by one run (a plain number is bytes; `MB` means MiB, as everywhere).
    pub volume: crate::units::Size,
    /// Share of requests of 64 KiB or less (0–1).
    pub small_share: f64,
    /// First byte of the disk region the data live in (a multiple of 4 KiB).
    pub region_start: crate::units::Size,
    /// Size of that region (at least 16 MiB, the longest sequential stream).
    pub region_size: crate::units::Size,
}

impl Default for ReadMixConfig {
    fn default() -> Self {
        let region = DesktopWorkload::Boot.region();
        ReadMixConfig {
            volume: crate::units::Size(400_000_000),
            small_share: 0.6,
            region_start: crate::units::Size(region.start),
            region_size: crate::units::Size(region.end - region.start),
        }
    }
}

impl ReadMixConfig {
    /// The mix as the generator takes it.
    pub fn mix(&self) -> ReadMix {
        ReadMix {
            read_bytes: self.volume.bytes(),
            small_share: self.small_share,
            region: self.region_start.bytes()
                ..self
                    .region_start
                    .bytes()
                    .saturating_add(self.region_size.bytes()),
        }
    }

    /// Checks every key; the error names it.
    fn validate(&self) -> Result<(), ConfigError> {
        if self.volume.bytes() == 0 {
            return Err(ConfigError::value(
                "read_mix.volume",
                self.volume,
                "a positive size (bytes read by a run)",
            ));
        }
        crate::spec::check_f64(
            "read_mix.small_share",
            self.small_share,
            0.0,
            1.0,
            "share of requests of 64 KiB or less",
        )?;
        if !self.region_start.bytes().is_multiple_of(4096) {
            return Err(ConfigError::value(
                "read_mix.region_start",
                self.region_start,
                "a multiple of 4 KiB",
            ));
        }
        if self.region_size.bytes() < 16 << 20 {
            return Err(ConfigError::value(
                "read_mix.region_size",
                self.region_size,
                "at least 16 MiB (the longest sequential stream)",
            ));
        }
        Ok(())
    }
}

/// `[host]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HybridHostConfig {
    /// Requests outstanding at most for traces and generators (1–512); the desktop
    /// workloads always run at depth 1 with think time.
    pub qd: u32,
    /// Trace replay speed-up (arrival gaps divided by this).
    pub speedup: f64,
}

impl Default for HybridHostConfig {
    fn default() -> Self {
        HybridHostConfig {
            qd: 1,
            speedup: 1.0,
        }
    }
}

/// `[flash]`: the SSD used as the cache (its capacity is the cache size).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct FlashConfig {
    /// Flash array and controller.
    pub device: DeviceConfig,
    /// FTL.
    pub ftl: FtlConfig,
    /// Timing model.
    pub timing: TimingConfig,
}

impl FlashConfig {
    /// The SSD as an ssdlab [`Config`].
    pub fn to_config(&self, seed: u64) -> Config {
        Config {
            seed,
            device: self.device.clone(),
            ftl: self.ftl.clone(),
            timing: self.timing.clone(),
            ..Config::default()
        }
    }
}

/// The whole hybrid configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HybridConfig {
    /// Seed of every random choice.
    #[serde(with = "crate::units::wide_u64")]
    pub seed: u64,
    /// The disk.
    pub hdd: HddParams,
    /// The cache.
    pub cache: CacheConfig,
    /// The cache SSD.
    pub flash: FlashConfig,
    /// What runs.
    pub workload: HybridWorkloadConfig,
    /// Read-mix settings (`workload.kind = "read-mix"`).
    pub read_mix: ReadMixConfig,
    /// Generator settings (`workload.kind = "generator"`).
    pub generator: SynthConfig,
    /// Trace settings (a trace replaces the workload).
    pub trace: TraceConfig,
    /// Host queue.
    pub host: HybridHostConfig,
}

impl Default for HybridConfig {
    fn default() -> Self {
        let flash = load_flash(DEFAULT_FLASH_PRESET, toml::Table::new()).expect("built-in preset");
        HybridConfig {
            seed: 1,
            hdd: HddParams::default(),
            cache: CacheConfig::default(),
            flash: FlashConfig {
                device: flash.device,
                ftl: flash.ftl,
                timing: flash.timing,
            },
            workload: HybridWorkloadConfig::default(),
            read_mix: ReadMixConfig::default(),
            generator: SynthConfig::default(),
            trace: TraceConfig::default(),
            host: HybridHostConfig::default(),
        }
    }
}

/// The fields of [`HybridConfig`] other than the preset-based `hdd` and `flash`.
#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Rest {
    seed: u64,
    cache: CacheConfig,
    workload: HybridWorkloadConfig,
    read_mix: ReadMixConfig,
    generator: SynthConfig,
    trace: TraceConfig,
    host: HybridHostConfig,
}

impl Default for Rest {
    fn default() -> Self {
        let d = HybridConfig::default();
        Rest {
            seed: d.seed,
            cache: d.cache,
            workload: d.workload,
            read_mix: d.read_mix,
            generator: d.generator,
            trace: d.trace,
            host: d.host,
        }
    }
}

impl HybridConfig {
    /// Builds a config from the TOML text of an optional file (`source` names it in
    /// errors) with `overrides` merged over it.
    pub fn load(
        file: Option<(&str, &str)>,
        overrides: toml::Table,
    ) -> Result<HybridConfig, HybridConfigError> {
        let source = file.map(|(s, _)| s).unwrap_or("command line");
        HybridConfig::load_keys(file, overrides).map_err(|error| HybridConfigError {
            origin: source.to_string(),
            error,
        })
    }

    /// [`HybridConfig::load`] without the origin on its errors.
    fn load_keys(
        file: Option<(&str, &str)>,
        overrides: toml::Table,
    ) -> Result<HybridConfig, HybridKeyError> {
        let syntax = |e: &dyn std::fmt::Display| {
            HybridKeyError::Syntax(e.to_string().trim_end().to_string())
        };
        let mut user: toml::Table = match file {
            Some((_, text)) => toml::from_str(text).map_err(|e| syntax(&e))?,
            None => toml::Table::new(),
        };
        merge(&mut user, overrides);
        let mut hdd = match user.remove("hdd") {
            Some(toml::Value::Table(t)) => t,
            Some(_) => return Err(HybridKeyError::NotATable { key: "hdd" }),
            None => toml::Table::new(),
        };
        let hdd_preset = match hdd.remove("preset") {
            Some(toml::Value::String(s)) => s,
            Some(v) => {
                return Err(HybridKeyError::Value {
                    key: "hdd.preset",
                    value: v.to_string(),
                    expected: "a preset name",
                });
            }
            None => DEFAULT_HDD_PRESET.into(),
        };
        let hdd = HddParams::load(&hdd_preset, hdd)?;
        let flash = match user.remove("flash") {
            Some(toml::Value::Table(t)) => t,
            Some(_) => return Err(HybridKeyError::NotATable { key: "flash" }),
            None => toml::Table::new(),
        };
        for key in flash.keys() {
            if !["device", "ftl", "timing"].contains(&key.as_str()) {
                return Err(HybridKeyError::UnknownKey {
                    key: format!("flash.{key}"),
                    expected: "flash.device, flash.ftl or flash.timing",
                });
            }
        }
        let flash_preset = flash
            .get("device")
            .and_then(|d| d.get("preset"))
            .and_then(|p| p.as_str())
            .unwrap_or(DEFAULT_FLASH_PRESET)
            .to_string();
        let fc = load_flash(&flash_preset, flash)?;
        let rest = Rest::deserialize(user).map_err(|e| syntax(&e))?;
        let cfg = HybridConfig {
            seed: rest.seed,
            hdd,
            cache: rest.cache,
            flash: FlashConfig {
                device: fc.device,
                ftl: fc.ftl,
                timing: fc.timing,
            },
            workload: rest.workload,
            read_mix: rest.read_mix,
            generator: rest.generator,
            trace: rest.trace,
            host: rest.host,
        };
        cfg.validate()
            .map_err(|e| HybridKeyError::Invalid(Box::new(e)))?;
        Ok(cfg)
    }

    /// Checks settings that do not need the devices built.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range(
            "workload.runs",
            self.workload.runs,
            1,
            100,
            "runs; the first is cold",
        )?;
        check_range("host.qd", self.host.qd, 1, 512, "outstanding requests")?;
        check_range(
            "workload.idle_ns",
            self.workload.idle_ns,
            0,
            MAX_IDLE_NS,
            "ns of host idle time between runs",
        )?;
        self.read_mix.validate()?;
        let read_mix = self.trace.path.is_none() && self.workload.kind == WorkloadKind::ReadMix;
        if !read_mix && self.read_mix != ReadMixConfig::default() {
            let d = ReadMixConfig::default();
            let m = &self.read_mix;
            let (key, value) = if m.volume != d.volume {
                ("volume", m.volume.to_string())
            } else if m.small_share != d.small_share {
                ("small_share", m.small_share.to_string())
            } else if m.region_start != d.region_start {
                ("region_start", m.region_start.to_string())
            } else {
                ("region_size", m.region_size.to_string())
            };
            return Err(ConfigError::value(
                format!("read_mix.{key}"),
                value,
                "no value unless workload.kind = \"read-mix\" (and no trace): the \
                 [read_mix] keys describe that workload only",
            ));
        }
        if self.trace.path.is_some() {
            crate::config::check_trace_workload(&self.generator, "generator")?;
        } else if self.workload.kind != WorkloadKind::Generator
            && let Some((key, value)) = crate::config::generator_changed(&self.generator)
        {
            // Issue 30: `hybrid --requests 0` ran the default boot workload unchanged.
            let kind = match self.workload.kind.desktop() {
                Some(desktop) => format!("the {desktop:?} desktop workload"),
                None => "the read mix ([read_mix])".into(),
            };
            return Err(ConfigError::value(
                format!("generator.{key}"),
                value,
                format!(
                    "no value with {kind}, which has its own requests: the [generator] \
                     keys (--span, --size, --requests, …) apply with workload.kind = \
                     \"generator\" (--workload generator)"
                ),
            ));
        }
        if !(self.host.speedup > 0.0 && self.host.speedup.is_finite()) {
            return Err(ConfigError::value(
                "host.speedup",
                self.host.speedup,
                "a positive number",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_file_and_overrides_merge_in_order_and_errors_name_the_key() {
        let text = "seed = 5\n[hdd]\npreset = \"laptop-5400\"\n[cache]\nsize = \"1GiB\"\n[flash.device]\npreset = \"ssd-a\"\n";
        let mut o = toml::Table::new();
        let mut cache = toml::Table::new();
        cache.insert(
            "write_policy".into(),
            toml::Value::String("write-back".into()),
        );
        o.insert("cache".into(), toml::Value::Table(cache));
        let c = HybridConfig::load(Some(("h.toml", text)), o).unwrap();
        assert_eq!(c.seed, 5);
        assert_eq!(c.hdd.preset, "laptop-5400");
        assert_eq!(c.hdd.rpm, 5400.0);
        assert_eq!(c.cache.size.bytes(), 1 << 30);
        assert_eq!(
            c.cache.write_policy,
            super::super::store::WritePolicy::WriteBack
        );
        assert_eq!(c.flash.device.preset, "ssd-a");
        for (text, key) in [
            ("[cache]\nsise = 1\n", "sise"),
            ("[hdd]\nrpm = -1.0\n", "rpm"),
            ("[hdd]\npreset = \"floppy\"\n", "floppy"),
            ("[flash]\ndevise = 1\n", "devise"),
            ("[flash.device]\nchanels = 1\n", "chanels"),
            ("[flash.device]\npreset = \"usb-stick\"\n", "sata-mlc-2011"),
            ("[workload]\nruns = 0\n", "runs"),
            ("[workload]\nkind = \"boat\"\n", "boat"),
        ] {
            let e = HybridConfig::load(Some(("x.toml", text)), toml::Table::new())
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("x.toml") && e.contains(key), "{text}: {e}");
        }
    }

    #[test]
    fn a_flash_preset_becomes_run_keys_that_rebuild_it() {
        let (base, keys) = flash_preset_run_keys(DEFAULT_FLASH_PRESET).unwrap();
        let mut set = toml::Table::new();
        for (k, v) in keys {
            let (t, k) = k.split_once('.').unwrap();
            set.entry(t)
                .or_insert_with(|| toml::Value::Table(toml::Table::new()))
                .as_table_mut()
                .unwrap()
                .insert(k.into(), v);
        }
        let run = Config::load_with(Some(&base), None, set).unwrap();
        let hybrid = load_flash(DEFAULT_FLASH_PRESET, toml::Table::new()).unwrap();
        assert_eq!(run.device.channel_mb_s, hybrid.device.channel_mb_s);
        assert_eq!(run.device.host_link_mb_s, hybrid.device.host_link_mb_s);
        assert_eq!(run.ftl, hybrid.ftl);
        assert!(flash_preset_run_keys("ssd-a").is_none());
    }
}
