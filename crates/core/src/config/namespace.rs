//! `[[namespace]]`: the namespaces a drive carries on the same flash, dies and buffer,
//! and `[host] arbitration`: how the controller picks the submission queue it fetches
//! the next command from (NVM Express Base Specification 2.0, "Namespaces" and
//! "Command Arbitration"; the arbiter itself is `crate::arbitration`).
//!
//! ```text
//! namespace i covers logical bytes [base_i, base_i + size_i) of the FTL's space:
//!   base_0 = 0, base_{i+1} = base_i + size_i        (in the order of the tables)
//!   grain  = a flash page; on a zoned drive (ftl.name = "zoned") the zone size
//!   size_i = `size` rounded down to whole pages; on a zoned drive `size` must be a
//!            whole number of zones (else refused), and
//!          = `share` × drive capacity rounded down to whole grains (at least one)
//! a request at byte o of namespace i of length n:
//!   o + n > size_i  -> "LBA Out of Range" (NVMe status 80h), counted for i, not performed
//!   otherwise       -> device byte base_i + o
//! ```
//!
//! Why one slice of the one map: on a conventional drive the namespaces share the FTL,
//! as NVMe namespaces do on real drives (a namespace is a range of the controller's
//! logical space, its pages mixed with the other namespaces' in the same blocks and
//! collected by the same garbage collector). Separate placement per namespace is FDP's
//! business, separate zones ZNS's. Slices start on page boundaries so that no flash page
//! holds two namespaces' sectors (a partial write never reads another tenant's page).
//! On a zoned drive they start and end on zone boundaries: a zone has one write pointer
//! and is reset whole, so a zone two namespaces shared would take each one's writes off
//! the other's pointer and lose both's data to either's reset. An explicit `size` is a
//! number the user chose, and rounding it down to zones could drop up to a whole zone
//! (gigabytes on real drives), so a size off the zone grid is refused; a `share` names no
//! exact size and is rounded down to whole zones, as it is to whole pages.
//!
//! Without `[[namespace]]` tables the drive is one namespace covering everything, and the
//! host queue takes today's path: nothing here runs.

use super::ConfigError;
use crate::arbitration::{Mechanism, Priority};
use crate::nand::Geometry;
use crate::units::Size;
use crate::workload::synth::SynthConfig;
use serde::{Deserialize, Serialize};

/// One `[[namespace]]` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamespaceConfig {
    /// Name shown in the report (unique, not empty).
    pub name: String,
    /// Size in bytes (rounded down to whole flash pages; on a zoned drive a whole number
    /// of zones); exclusive with `share`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Size>,
    /// Fraction of the drive's logical space (0 < share ≤ 1), rounded down to whole pages
    /// (zones on a zoned drive); exclusive with `size`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<f64>,
    /// Arbitration priority class of the namespace's submission queue (used by
    /// `host.arbitration = "wrr"`).
    #[serde(default = "medium")]
    pub priority: Priority,
    /// The trace's device number whose requests go to this namespace (a trace replayed on
    /// several namespaces needs it on each).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<u32>,
    /// The namespace's own generator; absent: the `[workload]` table, run on this
    /// namespace's space.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::workload::synth::deserialize_folded_option"
    )]
    pub workload: Option<SynthConfig>,
    /// FDP: the namespace's placement-handle list, indices into `ftl.fdp.handles` (a
    /// write's placement identifier picks one of them); absent: every handle, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement_handles: Option<Vec<u16>>,
    /// FDP: the placement identifier of the namespace's writes that carry none (a
    /// per-namespace default, as a host driver sets one per namespace); absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<u16>,
    /// Whether the namespace is zoned. Only the drive's kind is accepted: `true` with
    /// `ftl.name = "zoned"` (every namespace is a slice of the one zoned FTL), `false`
    /// on a conventional drive; a zoned namespace beside a conventional one is refused
    /// ([`zoned_kind`]; docs/zns.md says what it would take).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zoned: Option<bool>,
}

/// The class the Linux NVMe driver creates its I/O submission queues in.
fn medium() -> Priority {
    Priority::Medium
}

/// `host.arbitration`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ArbitrationKind {
    /// Round robin (the arbitration every NVMe controller supports).
    #[default]
    Rr,
    /// Weighted round robin with urgent priority class.
    Wrr,
}

/// One namespace as the run uses it.
#[derive(Clone, Debug, PartialEq)]
pub struct NamespaceSlice {
    /// Its name.
    pub name: String,
    /// First byte of its slice of the FTL's logical space.
    pub base_bytes: u64,
    /// Its size in bytes (whole pages).
    pub size_bytes: u64,
    /// Its submission queue's priority class.
    pub priority: Priority,
}

/// The arbitration settings of `[host]`, as the arbiter takes them.
pub fn mechanism(host: &super::HostConfig) -> Mechanism {
    match host.arbitration {
        ArbitrationKind::Rr => Mechanism::RoundRobin,
        ArbitrationKind::Wrr => Mechanism::WeightedRoundRobin {
            high: host.weight_high,
            medium: host.weight_medium,
            low: host.weight_low,
        },
    }
}

/// What a namespace's slice is a whole number of (see the module's pseudocode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grain {
    /// Flash pages of this many bytes: a conventional drive.
    Page(u64),
    /// Zones this many bytes apart: a zoned drive (`ftl.name = "zoned"`).
    Zone(u64),
}

impl Grain {
    /// The grain of `cfg`'s drive, whose FTL runs on `geo`.
    pub fn of(cfg: &super::Config, geo: &Geometry) -> Grain {
        if cfg.ftl.name.is_zoned() {
            Grain::Zone(crate::ftl::zoned::zone_bytes(&cfg.ftl.zoned, geo).0)
        } else {
            Grain::Page(geo.page_size_bytes as u64)
        }
    }

    fn bytes(self) -> u64 {
        match self {
            Grain::Page(b) | Grain::Zone(b) => b,
        }
    }

    /// "one flash page (4096 bytes)", "one zone (32MiB, ftl.zoned.zone_size)".
    fn one(self) -> String {
        match self {
            Grain::Page(b) => format!("one flash page ({b} bytes)"),
            Grain::Zone(b) => format!("one zone ({}, ftl.zoned.zone_size)", Size(b)),
        }
    }
}

/// The namespaces' slices of `cfg`'s drive of `capacity_bytes` (every caller's way to
/// [`layout`]: the grain comes from the drive); empty without `[[namespace]]` tables.
pub fn slices(
    cfg: &super::Config,
    capacity_bytes: u64,
) -> Result<Vec<NamespaceSlice>, ConfigError> {
    if cfg.namespaces.is_empty() {
        return Ok(Vec::new());
    }
    let geo = cfg.resolve_device()?.geometry;
    layout(&cfg.namespaces, capacity_bytes, Grain::of(cfg, &geo))
}

/// The namespaces' slices of a drive of `capacity_bytes`, each a whole number of
/// `grain`s; empty without `[[namespace]]` tables. Errors name the table's key.
pub fn layout(
    namespaces: &[NamespaceConfig],
    capacity_bytes: u64,
    grain: Grain,
) -> Result<Vec<NamespaceSlice>, ConfigError> {
    let unit = grain.bytes();
    // A zoned drive's space ends with its last whole zone.
    let capacity_bytes = match grain {
        Grain::Page(_) => capacity_bytes,
        Grain::Zone(z) => capacity_bytes / z * z,
    };
    let mut out: Vec<NamespaceSlice> = Vec::with_capacity(namespaces.len());
    let mut base = 0u64;
    for (i, ns) in namespaces.iter().enumerate() {
        let key = |k: &str| format!("namespace[{i}].{k}");
        if ns.name.trim().is_empty() {
            return Err(ConfigError::value(key("name"), "\"\"", "a non-empty name"));
        }
        if out.iter().any(|o| o.name == ns.name) {
            return Err(ConfigError::value(
                key("name"),
                &ns.name,
                "a name no other namespace has",
            ));
        }
        let bytes = match (ns.size, ns.share) {
            (Some(_), Some(_)) => {
                return Err(ConfigError::value(
                    key("share"),
                    ns.share.unwrap_or_default(),
                    "either size or share, not both",
                ));
            }
            (None, None) => {
                return Err(ConfigError::value(
                    key("size"),
                    "(none)",
                    "a size in bytes or a share of the logical space",
                ));
            }
            (Some(s), None) => {
                if let Grain::Zone(z) = grain
                    && !s.bytes().is_multiple_of(z)
                {
                    let below = s.bytes() / z * z;
                    let near = if below == 0 {
                        Size(z).to_string()
                    } else {
                        format!("{} or {}", Size(below), Size(below + z))
                    };
                    return Err(ConfigError::value(
                        key("size"),
                        s,
                        format!(
                            "a whole number of zones for namespace \"{}\" on this zoned \
                             drive: a multiple of the zone size {} ({z} bytes, \
                             ftl.zoned.zone_size), e.g. {near}; a share is rounded to zones",
                            ns.name,
                            Size(z)
                        ),
                    ));
                }
                s.bytes()
            }
            (None, Some(f)) => {
                if !(f > 0.0 && f <= 1.0) {
                    return Err(ConfigError::value(
                        key("share"),
                        f,
                        "a fraction of the logical space, 0 < share <= 1",
                    ));
                }
                (capacity_bytes as f64 * f) as u64
            }
        };
        let size_bytes = bytes / unit * unit;
        // The key at fault and its value as the user gave it; a share also shows the
        // bytes it came to (`namespace[1].share = 0.75 (768MiB)`).
        let (at, given) = match ns.share {
            Some(f) if ns.size.is_none() => (
                key("share"),
                format!("{f} ({})", crate::units::Size(size_bytes)),
            ),
            _ => (key("size"), crate::units::Size(bytes).to_string()),
        };
        if size_bytes == 0 {
            return Err(ConfigError::value(
                at,
                given,
                format!("at least {}", grain.one()),
            ));
        }
        if base + size_bytes > capacity_bytes {
            let whole = match grain {
                Grain::Page(_) => "logical bytes",
                Grain::Zone(_) => "bytes of whole zones",
            };
            return Err(ConfigError::value(
                at,
                given,
                format!(
                    "at most the {} the namespaces before it leave of the drive's {} {whole}",
                    crate::units::Size(capacity_bytes - base),
                    crate::units::Size(capacity_bytes)
                ),
            ));
        }
        out.push(NamespaceSlice {
            name: ns.name.clone(),
            base_bytes: base,
            size_bytes,
            priority: ns.priority,
        });
        base += size_bytes;
    }
    Ok(out)
}

/// The namespaces' FDP keys against `[ftl.fdp]`: they need FDP on, a handle list names
/// handles the drive has (each once), and a default placement identifier is one the
/// namespace accepts (its reclaim group and placement handle exist). Returns the
/// per-namespace handle lists for [`crate::fdp::FdpConfig::namespace_handles`] (empty
/// when no namespace has one: then every namespace has every handle).
pub fn fdp_placement(
    namespaces: &[NamespaceConfig],
    fdp: &crate::fdp::FdpConfig,
) -> Result<Vec<Vec<u16>>, ConfigError> {
    let handles = fdp.handles.len();
    let all: Vec<u16> = (0..handles as u16).collect();
    for (i, ns) in namespaces.iter().enumerate() {
        let key = |k: &str| format!("namespace[{i}].{k}");
        let given = |k: &str| match k {
            "placement_handles" => ns.placement_handles.as_ref().map(|v| format!("{v:?}")),
            _ => ns.placement.map(|p| p.to_string()),
        };
        for k in ["placement_handles", "placement"] {
            if let Some(v) = given(k)
                && !fdp.enabled
            {
                return Err(ConfigError::value(
                    key(k),
                    v,
                    "no FDP key without ftl.fdp.enabled = true",
                ));
            }
        }
        if let Some(list) = &ns.placement_handles {
            let mut seen = vec![false; handles];
            let ok = !list.is_empty()
                && list.iter().all(|&h| {
                    let fresh = (h as usize) < handles && !seen[h as usize];
                    if fresh {
                        seen[h as usize] = true;
                    }
                    fresh
                });
            if !ok {
                return Err(ConfigError::value(
                    key("placement_handles"),
                    format!("{list:?}"),
                    format!(
                        "a non-empty list of distinct reclaim unit handles below {handles} \
                         (ftl.fdp.handles)"
                    ),
                ));
            }
        }
    }
    let lists: Vec<Vec<u16>> = if namespaces.iter().all(|ns| ns.placement_handles.is_none()) {
        Vec::new()
    } else {
        namespaces
            .iter()
            .map(|ns| ns.placement_handles.clone().unwrap_or_else(|| all.clone()))
            .collect()
    };
    if !fdp.enabled {
        return Ok(lists);
    }
    // A default identifier is checked as the drive checks a command's: by its own parse.
    let mut f = fdp.clone();
    f.namespace_handles = lists.clone();
    let drive = crate::fdp::Fdp::new(f.layout(1))?;
    for (i, ns) in namespaces.iter().enumerate() {
        if let Some(pid) = ns.placement
            && drive.parse(i, pid).is_none()
        {
            let phs = ns.placement_handles.as_ref().map_or(handles, Vec::len);
            return Err(ConfigError::value(
                format!("namespace[{i}].placement"),
                pid,
                format!(
                    "a placement identifier of this namespace: one of its {phs} placement \
                     handles in one of the {} reclaim groups",
                    fdp.reclaim_groups
                ),
            ));
        }
    }
    Ok(lists)
}
/// The namespaces' `zoned` keys against the drive: one FTL serves the whole drive, so a
/// namespace can only be of the drive's kind. A zoned namespace beside a conventional
/// one would need a second FTL on its own share of the dies and blocks (docs/zns.md,
/// "A zoned namespace beside a conventional one"), which the device does not have.
pub fn zoned_kind(namespaces: &[NamespaceConfig], drive_zoned: bool) -> Result<(), ConfigError> {
    for (i, ns) in namespaces.iter().enumerate() {
        match ns.zoned {
            Some(z) if z != drive_zoned => {
                return Err(ConfigError::value(
                    format!("namespace[{i}].zoned"),
                    z,
                    if drive_zoned {
                        "true, or unset: with ftl.name = \"zoned\" every namespace is a \
                         slice of the one zoned FTL (a conventional namespace beside zoned \
                         ones is not modelled; docs/zns.md)"
                    } else {
                        "false, or unset: a zoned namespace beside conventional ones is not \
                         modelled, since one FTL serves the whole drive (docs/zns.md, \"A zoned \
                         namespace beside a conventional one\"); ftl.name = \"zoned\" makes the \
                         whole drive zoned"
                    },
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// A generator's error for namespace `i`'s own `[namespace.workload]`, its key moved
/// under the table.
pub fn in_namespace(i: usize, e: ConfigError) -> ConfigError {
    match e {
        ConfigError::Value {
            key,
            value,
            expected,
        } => ConfigError::Value {
            key: format!("namespace[{i}].{key}"),
            value,
            expected,
        },
        ConfigError::Workload(m) => ConfigError::Workload(format!("namespace[{i}]: {m}")),
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(name: &str, size: Option<u64>, share: Option<f64>) -> NamespaceConfig {
        NamespaceConfig {
            name: name.into(),
            size: size.map(Size),
            share,
            priority: Priority::Medium,
            device: None,
            workload: None,
            placement_handles: None,
            placement: None,
            zoned: None,
        }
    }

    #[test]
    fn a_namespace_is_only_of_the_drives_kind() {
        let mut a = ns("a", None, Some(0.5));
        let b = ns("b", None, Some(0.5));
        for drive in [false, true] {
            zoned_kind(&[a.clone(), b.clone()], drive).unwrap();
            a.zoned = Some(drive);
            zoned_kind(&[b.clone(), a.clone()], drive).unwrap();
            a.zoned = Some(!drive);
            let e = zoned_kind(&[b.clone(), a.clone()], drive).unwrap_err();
            assert_eq!(e.key(), Some("namespace[1].zoned"), "{e}");
            assert!(e.to_string().contains("docs/zns.md"), "{e}");
            a.zoned = None;
        }
    }

    #[test]
    fn slices_follow_each_other_on_page_boundaries() {
        let l = layout(
            &[ns("a", Some(10_000), None), ns("b", None, Some(0.5))],
            1 << 20,
            Grain::Page(4096),
        )
        .unwrap();
        assert_eq!((l[0].base_bytes, l[0].size_bytes), (0, 8192));
        assert_eq!((l[1].base_bytes, l[1].size_bytes), (8192, 1 << 19));
    }

    #[test]
    fn bad_namespaces_name_their_key() {
        let key = |v: &[NamespaceConfig]| layout(v, 1 << 20, Grain::Page(4096)).unwrap_err();
        assert_eq!(key(&[ns("a", None, None)]).key(), Some("namespace[0].size"));
        assert_eq!(
            key(&[ns("a", None, Some(0.7)), ns("b", None, Some(0.7))]).key(),
            Some("namespace[1].share")
        );
        assert_eq!(
            key(&[ns("a", None, Some(0.1)), ns("a", None, Some(0.1))]).key(),
            Some("namespace[1].name")
        );
        assert_eq!(
            key(&[ns("a", Some(100), None)]).key(),
            Some("namespace[0].size")
        );
        assert_eq!(
            key(&[ns("a", Some(8192), Some(0.1))]).key(),
            Some("namespace[0].share")
        );
    }

    /// On a zoned drive a slice is whole zones: a share rounds down to them (the drive's
    /// space ending with its last whole zone), a size off the zone grid is refused
    /// naming the table, its size and the zone size.
    #[test]
    fn zoned_slices_are_whole_zones() {
        const Z: u64 = 32 << 20;
        // 1000 MiB: 31 whole zones (992 MiB) and an 8 MiB tail no zone covers.
        let cap = 1000 << 20;
        let l = layout(
            &[ns("a", Some(2 * Z), None), ns("b", None, Some(0.5))],
            cap,
            Grain::Zone(Z),
        )
        .unwrap();
        assert_eq!((l[0].base_bytes, l[0].size_bytes), (0, 2 * Z));
        // 0.5 of the 992 MiB of whole zones = 496 MiB = 15.5 zones -> 15 zones.
        assert_eq!((l[1].base_bytes, l[1].size_bytes), (2 * Z, 15 * Z));
        let e = layout(
            &[ns("a", Some(Z), None), ns("logs", Some(100 << 20), None)],
            cap,
            Grain::Zone(Z),
        )
        .unwrap_err();
        assert_eq!(e.key(), Some("namespace[1].size"), "{e}");
        let m = e.to_string();
        for part in [
            "100MiB",
            "\"logs\"",
            "zone size 32MiB",
            "e.g. 96MiB or 128MiB",
        ] {
            assert!(m.contains(part), "{part} not in {m}");
        }
        // The same size on a conventional drive is whole pages and accepted.
        layout(&[ns("logs", Some(100 << 20), None)], cap, Grain::Page(4096)).unwrap();
        // A share below one zone is refused, naming the zone.
        let e = layout(&[ns("a", None, Some(0.01))], cap, Grain::Zone(Z)).unwrap_err();
        assert_eq!(e.key(), Some("namespace[0].share"), "{e}");
        assert!(e.to_string().contains("at least one zone (32MiB"), "{e}");
        // Whole zones past the last whole zone do not fit (992 MiB of zones, not 1000).
        let e = layout(
            &[ns("a", Some(31 * Z), None), ns("b", Some(Z), None)],
            cap,
            Grain::Zone(Z),
        )
        .unwrap_err();
        assert_eq!(e.key(), Some("namespace[1].size"), "{e}");
    }

    /// A share that does not fit says the share and the bytes it came to (it used to
    /// print the bytes alone, so the user could not see which number was wrong).
    #[test]
    fn a_share_that_does_not_fit_prints_the_share_and_its_bytes() {
        let e = layout(
            &[ns("a", None, Some(0.5)), ns("b", None, Some(0.75))],
            1 << 30,
            Grain::Page(4096),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("namespace[1].share = 0.75 (768MiB)"), "{e}");
    }
}
