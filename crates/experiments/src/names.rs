//! The names of every registry, each with its one-line description: FTLs, GC and buffer
//! policies, presets, workloads, trace formats, config enums, the hybrid store's choices
//! and the papers `reproduce` takes. Taken from the library's own tables (the `all()` and
//! `names()` tables, the preset lists, and the serde names of config enums), so adding
//! an FTL, a policy or a preset updates `--help`, `ssdlab list`, every "expected one of …"
//! message and the Python module's `list()` without touching either front end.
//!
//! It names the paper registry of `experiments`, so it sits above it; the CLI wraps these
//! lists into clap parsers (`src/cli/registry.rs`), the Python module uses them as they are.

use crate::buffer::BufferKind;
use crate::config::fs::FileWorkloadKind;
use crate::config::fs::FsKind;
use crate::config::{Config, PRESETS, Precondition, TimingMode};
use crate::fs::FileOpKind;
use crate::ftl::FtlKind;
use crate::ftl::gc::GcPolicyKind;
use crate::ftl::layout::{ChannelPlacement, Placement};
use crate::host::DispatchOrder;
use crate::hybrid::config::FLASH_PRESETS;
use crate::hybrid::evict::EvictionKind;
use crate::hybrid::hdd::{HDD_PRESETS, HddParams};
use crate::hybrid::store::WritePolicy;
use crate::hybrid::table::TableKind;
use crate::hybrid::workload::DesktopWorkload;
use crate::spec::Counter;
use crate::timing::Organisation;
use crate::workload::synth;
use crate::workload::trace::{FitPolicy, TraceFormat};
use serde::de::{self, Deserializer, Visitor};

/// A choice: its name and a one-line description.
pub type Named = (&'static str, String);

/// The serialized names of a serde enum's variants, in declaration order.
///
/// Serde hands a deserializer the full variant list when it asks for an enum; this
/// deserializer records it and stops. It is how config enums that have no `all()`
/// table (timing mode, organisation, trace fit) still list themselves.
pub fn variants<T: de::DeserializeOwned>() -> &'static [&'static str] {
    #[derive(Debug)]
    struct Stop;
    impl std::fmt::Display for Stop {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("variant probe")
        }
    }
    impl std::error::Error for Stop {}
    impl de::Error for Stop {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Stop
        }
    }
    struct Probe<'a>(&'a mut &'static [&'static str]);
    impl<'de> Deserializer<'de> for Probe<'_> {
        type Error = Stop;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _name: &'static str,
            variants: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            *self.0 = variants;
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map
            struct identifier ignored_any
        }
    }
    let mut names: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe(&mut names));
    names
}

/// The variant of a serde enum named `name`.
fn variant<T: de::DeserializeOwned>(name: &str) -> Option<T> {
    T::deserialize(de::value::StrDeserializer::<de::value::Error>::new(name)).ok()
}

fn described<T: Copy>(all: &[(T, &'static str, &'static str)]) -> Vec<Named> {
    all.iter().map(|(_, n, d)| (*n, d.to_string())).collect()
}

/// Device presets of `ssdlab run`.
pub fn presets() -> Vec<Named> {
    PRESETS
        .iter()
        .map(|(name, _)| {
            let desc = Config::load(Some(name), None)
                .map(|c| c.device.description)
                .unwrap_or_default();
            (*name, desc)
        })
        .collect()
}

/// FTLs.
pub fn ftls() -> Vec<Named> {
    described(FtlKind::all())
}

/// GC victim policies.
pub fn gc_policies() -> Vec<Named> {
    described(GcPolicyKind::all())
}

/// Write-buffer policies.
pub fn buffers() -> Vec<Named> {
    described(BufferKind::all())
}

/// Device-queue dispatch orders.
pub fn dispatch_orders() -> Vec<Named> {
    described(DispatchOrder::all())
}

/// Preconditionings.
pub fn preconditions() -> Vec<Named> {
    described(Precondition::all())
}

/// Workload generators: block-level ones, then the file-level ones (which need a file
/// system, `--fs`).
pub fn generators() -> Vec<Named> {
    synth::names()
        .iter()
        .map(|(n, d)| (*n, d.to_string()))
        .chain(described(FileWorkloadKind::all()))
        .collect()
}

/// Built-in Iometer access specifications (`--access-spec`).
pub fn access_specs() -> Vec<Named> {
    crate::workload::iometer::builtin_names()
        .into_iter()
        .map(|(n, d)| (n, d.to_string()))
        .collect()
}

/// Host-side layers in front of the SSD (`--host-log`).
pub fn host_logs() -> Vec<Named> {
    described(crate::host_log::HostLogKind::all())
}

/// File systems (`--fs`).
pub fn file_systems() -> Vec<Named> {
    described(FsKind::all())
}

/// File-trace operations, for `ssdlab list`.
pub fn file_ops() -> Vec<Named> {
    FileOpKind::all()
        .iter()
        .map(|(_, n, args)| (*n, format!("time_ns {n} {args}")))
        .collect()
}

/// Trace formats: the registry's (built-in ones, then any added with
/// `trace::register`).
pub fn trace_formats() -> Vec<Named> {
    TraceFormat::all()
        .into_iter()
        .map(|f| (f.name(), f.spec().summary.to_string()))
        .collect()
}

/// What to do with trace requests past the device end.
pub fn trace_fits() -> Vec<Named> {
    variants::<FitPolicy>()
        .iter()
        .map(|n| {
            let desc = match variant::<FitPolicy>(n) {
                Some(FitPolicy::Reject) => "stop with an error naming the line",
                Some(FitPolicy::Wrap) => "offset modulo capacity",
                Some(FitPolicy::Scale) => "scale offsets so the highest address fits",
                None => "",
            };
            (*n, desc.to_string())
        })
        .collect()
}

/// Timing models.
pub fn timing_modes() -> Vec<Named> {
    variants::<TimingMode>()
        .iter()
        .map(|n| {
            let desc = match variant::<TimingMode>(n) {
                Some(TimingMode::Full) => "busy-until reservations per die, bus and control bus",
                Some(TimingMode::Count) => {
                    "serial elapsed-time formula Cr*Tr + Cw*Tw + Gc*Tcopy + Ce*Te"
                }
                None => "",
            };
            (*n, desc.to_string())
        })
        .collect()
}

/// Chip organisations.
pub fn organisations() -> Vec<Named> {
    variants::<Organisation>()
        .iter()
        .map(|n| {
            let desc = match variant::<Organisation>(n) {
                Some(Organisation::SharedBus) => "all chips share one data and control bus",
                Some(Organisation::SharedControl) => "one control bus, a data bus per channel",
                Some(Organisation::Channels) => "a data and control bus per channel",
                None => "",
            };
            (*n, desc.to_string())
        })
        .collect()
}

/// Placements inside a management block.
pub fn placements() -> Vec<Named> {
    Placement::all()
        .iter()
        .map(|(_, n)| (*n, String::new()))
        .collect()
}

/// Placements of a management block over channels.
pub fn channel_placements() -> Vec<Named> {
    ChannelPlacement::all()
        .iter()
        .map(|(_, n)| (*n, String::new()))
        .collect()
}

/// HDD presets of `ssdlab hybrid`.
pub fn hdd_presets() -> Vec<Named> {
    HDD_PRESETS
        .iter()
        .map(|(n, _)| {
            let desc = HddParams::preset(n)
                .map(|p| p.description)
                .unwrap_or_default();
            (*n, desc)
        })
        .collect()
}

/// Flash presets of `ssdlab hybrid`: its own, then every `ssdlab run` preset.
pub fn flash_presets() -> Vec<Named> {
    let mut v: Vec<Named> = FLASH_PRESETS
        .iter()
        .map(|(n, _)| {
            let desc = crate::hybrid::config::load_flash(n, toml::Table::new())
                .map(|c| c.device.description)
                .unwrap_or_default();
            (*n, desc)
        })
        .collect();
    v.extend(presets());
    v
}

/// Desktop workloads of `ssdlab hybrid`.
pub fn desktop_workloads() -> Vec<Named> {
    described(DesktopWorkload::all())
}

/// The workloads of `ssdlab hybrid` itself: the desktop workloads and the read mix.
pub fn hybrid_own_workloads() -> Vec<Named> {
    let mut v = desktop_workloads();
    v.push((
        "read-mix",
        "synthetic reads of [read_mix]: volume, share of small requests, disk region".into(),
    ));
    v
}

/// Everything `ssdlab hybrid --workload` takes: desktop workloads, the read mix, then
/// generators.
pub fn hybrid_workloads() -> Vec<Named> {
    let mut v = hybrid_own_workloads();
    v.extend(generators());
    v
}

/// Cache write policies.
pub fn write_policies() -> Vec<Named> {
    described(WritePolicy::all())
}

/// Cache control tables.
pub fn tables() -> Vec<Named> {
    described(TableKind::all())
}

/// Cache eviction policies.
pub fn evictions() -> Vec<Named> {
    described(EvictionKind::all())
}

/// The papers by their `ssdlab reproduce` names, each with its claim prefix and title.
pub fn papers() -> Vec<Named> {
    let reg = crate::experiments::registry::registry();
    crate::experiments::registry::PAPER_NAMES
        .iter()
        .map(|(name, prefix)| {
            let title = reg.paper(prefix).map(|p| p.title.as_str()).unwrap_or("");
            (*name, format!("{prefix}: {title}"))
        })
        .collect()
}

/// Every counter a run's report may carry, from each component's declarations
/// (`COUNTERS` next to the code that counts them): FTLs, write buffers, file systems,
/// the flash array and the host side. docs/outputs.md's counter table is made from it
/// (tests/counters.rs checks both).
pub fn counters() -> Vec<Counter> {
    let ftl = crate::ftl::counter_groups();
    let buffer = crate::buffer::counters();
    let families: [&[&[Counter]]; 5] = [
        &ftl,
        &buffer,
        crate::fs::COUNTERS,
        &[crate::nand::COUNTERS],
        &[crate::host::COUNTERS],
    ];
    families
        .iter()
        .flat_map(|f| f.iter())
        .flat_map(|l| l.iter())
        .copied()
        .collect()
}

/// `  name           description` lines, for `ssdlab list` and `hybrid --list`.
pub fn lines(named: &[Named], width: usize) -> String {
    // A name longer than the column widens it for the whole list, so descriptions stay
    // aligned and never run into the name.
    let width = named
        .iter()
        .map(|(n, _)| n.len())
        .max()
        .unwrap_or(0)
        .max(width);
    named
        .iter()
        .map(|(n, d)| format!("  {n:<width$} {d}\n"))
        .collect()
}

#[cfg(test)]
mod tests {

    /// Every trace format of the registry is listed once under its name, its name parses
    /// back to it (on the command line and in a config), and the list is the registry's.
    #[test]
    fn the_trace_format_registry_lists_every_format_once() {
        use crate::workload::trace::{FORMATS, TraceFormat, TraceOptions};
        let listed = super::trace_formats();
        assert!(listed.len() >= FORMATS.len());
        for (spec, (name, desc)) in FORMATS.iter().zip(&listed) {
            assert_eq!(spec.name, *name);
            assert_eq!(spec.summary, desc);
            assert_eq!(
                listed.iter().filter(|(n, _)| n == name).count(),
                1,
                "{name}"
            );
            let f: TraceFormat = name.parse().unwrap();
            assert_eq!(f.name(), *name);
            let o: TraceOptions = toml::from_str(&format!(
                "format = \"{name}\"\nfit = \"wrap\"\ncapacity_bytes = 1\n"
            ))
            .unwrap();
            assert_eq!(o.format, Some(f));
        }
    }
    use super::*;

    #[test]
    fn long_names_widen_the_column() {
        let named: Vec<Named> = vec![("ab", "x".into()), ("abcdefgh", "y".into())];
        assert_eq!(lines(&named, 4), "  ab       x\n  abcdefgh y\n");
        assert_eq!(lines(&named[..1], 4), "  ab   x\n");
    }

    #[test]
    fn serde_enums_list_their_config_names() {
        assert_eq!(variants::<TimingMode>(), ["full", "count"]);
        assert_eq!(variants::<FitPolicy>(), ["reject", "wrap", "scale"]);
        assert_eq!(
            variants::<Organisation>(),
            ["shared-bus", "shared-control", "channels"]
        );
        for (n, d) in timing_modes()
            .into_iter()
            .chain(organisations())
            .chain(trace_fits())
        {
            assert!(!d.is_empty(), "{n} has no description");
        }
    }
}
