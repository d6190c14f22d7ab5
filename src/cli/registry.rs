//! The choices of every named flag, taken from the library's registries (the `all()`
//! and `names()` tables, the preset lists, and the serde names of config enums), so
//! adding an FTL, a policy or a preset updates `--help`, `ssdlab list` and every
//! "expected one of …" message without touching the CLI.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::error::ErrorKind;
use serde::de::{self, Deserializer, Visitor};
use ssdlab::buffer::BufferKind;
use ssdlab::config::{Config, PRESETS, Precondition, TimingMode};
use ssdlab::fs::workload::FileWorkloadKind;
use ssdlab::fs::{FileOpKind, FsKind};
use ssdlab::ftl::FtlKind;
use ssdlab::ftl::gc::GcPolicyKind;
use ssdlab::ftl::layout::{ChannelPlacement, Placement};
use ssdlab::host::DispatchOrder;
use ssdlab::hybrid::config::FLASH_PRESETS;
use ssdlab::hybrid::evict::EvictionKind;
use ssdlab::hybrid::hdd::{HDD_PRESETS, HddParams};
use ssdlab::hybrid::store::WritePolicy;
use ssdlab::hybrid::table::TableKind;
use ssdlab::hybrid::workload::DesktopWorkload;
use ssdlab::timing::Organisation;
use ssdlab::workload::synth;
use ssdlab::workload::trace::{FitPolicy, TraceFormat};
use std::ffi::OsStr;

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
    ssdlab::workload::iometer::builtin_names()
        .into_iter()
        .map(|(n, d)| (n, d.to_string()))
        .collect()
}

/// Host-side layers in front of the SSD (`--host-log`).
pub fn host_logs() -> Vec<Named> {
    described(ssdlab::host_log::HostLogKind::all())
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

/// Trace formats.
pub fn trace_formats() -> Vec<Named> {
    TraceFormat::ALL
        .into_iter()
        .map(|f| {
            // Exhaustive: a new format does not compile until it is described here.
            let desc = match f {
                TraceFormat::Msr => {
                    "MSR Cambridge CSV: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"
                }
                TraceFormat::Ascii => {
                    "SSD-simulator ASCII: time_ns dev lba_sectors size_sectors op (1 = read)"
                }
                TraceFormat::Disksim => {
                    "DiskSim ASCII: time_ms dev blkno count flags (bit 0 = read)"
                }
                TraceFormat::Blkparse => "blkparse default text output, Q (or D) events",
                TraceFormat::Tencent => {
                    "SNIA Tencent CBS CSV: timestamp_s,offset_sectors,size_sectors,type,volume"
                }
                TraceFormat::Heimdall => "time_ms dev offset_bytes size_bytes op (1 = read)",
                TraceFormat::Csv => "any delimited text; name the columns with --columns",
                TraceFormat::Blktrace => {
                    "blktrace binary per-CPU files (NAME.blktrace.N), merged by time, Q events"
                }
                TraceFormat::Fio => "fio iolog v2/v3 as written by write_iolog",
            };
            (f.name(), desc.to_string())
        })
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
            let desc = ssdlab::hybrid::config::load_flash(n, toml::Table::new())
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

/// Everything `ssdlab hybrid --workload` takes: desktop workloads, then generators.
pub fn hybrid_workloads() -> Vec<Named> {
    let mut v = desktop_workloads();
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
    let reg = ssdlab::experiments::registry::registry();
    ssdlab::experiments::registry::PAPER_NAMES
        .iter()
        .map(|(name, prefix)| {
            let title = reg.paper(prefix).map(|p| p.title.as_str()).unwrap_or("");
            (*name, format!("{prefix}: {title}"))
        })
        .collect()
}

/// Choices as clap possible values (shown by `--help`, checked by the parser, with
/// "a similar value exists" tips on typos).
fn possible(named: Vec<Named>) -> Vec<PossibleValue> {
    named
        .into_iter()
        .map(|(n, d)| {
            let v = PossibleValue::new(n);
            if d.is_empty() { v } else { v.help(d) }
        })
        .collect()
}

/// A parser of one name out of `named`.
pub fn one_of(named: Vec<Named>) -> PossibleValuesParser {
    PossibleValuesParser::new(possible(named))
}

/// A parser of a comma list of names out of `named`: each element is checked as
/// [`one_of`] checks a single name (same message, same tips).
pub fn list_of(named: Vec<Named>) -> NameList {
    NameList(one_of(named))
}

/// See [`list_of`].
#[derive(Clone)]
pub struct NameList(PossibleValuesParser);

impl TypedValueParser for NameList {
    type Value = Vec<String>;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Vec<String>, clap::Error> {
        let text = value
            .to_str()
            .ok_or_else(|| clap::Error::new(ErrorKind::InvalidUtf8).with_cmd(cmd))?;
        text.split(',')
            .map(|x| self.0.parse_ref(cmd, arg, OsStr::new(x.trim())))
            .collect()
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        self.0.possible_values()
    }
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
