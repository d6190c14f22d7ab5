//! Hard-disk timing model: seek curve, rotational position, zoned recording, track skew
//! and a segmented read-ahead cache.
//!
//! After Ruemmler & Wilkes, "An introduction to disk drive modeling" (IEEE Computer
//! 1994), the model most disk simulators (DiskSim among them) refine:
//!
//! ```text
//! access(op, lba, n, arrival):
//!     start   = max(arrival, busy_until) ; t = start + command_overhead
//!     read whose sectors all sit in a cache segment  -> t + bytes / interface rate
//!     read that continues the read-ahead stream      -> keep streaming, no seek, no wait
//!     otherwise for each track the request touches:
//!         t += seek(|Δcylinder|)  or head_switch  (same cylinder, other surface)
//!         t += rotational wait until the first sector passes under the head
//!         t += sectors × revolution / sectors_per_track(zone)
//!     after a read the drive keeps reading ahead into its segment until the next
//!     command (or a segment's worth), so a sequential stream with think time hits
//! seek(d) = a + b·√d for 1 ≤ d < boundary (arm accelerates, then decelerates)
//!         = c + e·d for d ≥ boundary       (arm coasts at top speed)
//! ```
//!
//! Choices the paper leaves open, documented here:
//! - **Seek fit.** A datasheet gives track-to-track, average and full-stroke seek times,
//!   not (a, b, c, e). We put the boundary at `short_seek_fraction` of the cylinders
//!   (Ruemmler & Wilkes' HP 97560 has it at about 20%) and solve the four linear
//!   equations seek(1) = track-to-track, seek(N−1) = full stroke, continuity at the
//!   boundary, and the mean over uniformly random pairs of distinct cylinders
//!   (P(d) = 2(N−d)/(N(N−1))) = average seek. Settle time is inside these figures.
//! - **Rotational position.** The platters spin from angle 0 at time 0; angle(t) =
//!   frac(t / revolution). Sector s of a track starts at angle frac((s + skew) / spt).
//! - **Zones.** `zones` bands of equal cylinder count whose sectors per track fall
//!   linearly from the outer to the inner value; the cylinder count follows from the
//!   capacity (the last cylinder may be partly unused). LBAs run outer to inner,
//!   cylinder by cylinder, surface by surface.
//! - **Skew.** Each track's sector 0 is shifted by the head-switch time (the
//!   track-to-track seek time at a cylinder boundary), rounded up to whole sectors, so a
//!   sequential transfer crossing a track loses only the switch, not a revolution.
//! - **Cache.** `cache_segments` segments of `segment_size`, replaced least recently
//!   used. A read fills a segment and read-ahead continues past it while the disk is
//!   idle (up to one segment beyond the request); a new command stops it. Writes go to
//!   the media (write cache off, as a filter driver measuring the disk would see with
//!   FUA writes) and drop overlapping segments. A partial cache hit is read from media.
//! - Media transfer to the host overlaps the media read; only cache hits pay the
//!   interface rate.

use crate::units::Size;
use serde::{Deserialize, Serialize};

/// Bytes per logical sector.
pub const SECTOR_BYTES: u64 = 512;

/// Built-in HDD presets: (name, TOML text).
pub const HDD_PRESETS: &[(&str, &str)] = &[
    (
        "desktop-7200",
        include_str!("../../../../presets/hdd/desktop-7200.toml"),
    ),
    (
        "laptop-5400",
        include_str!("../../../../presets/hdd/laptop-5400.toml"),
    ),
];

/// The default HDD preset.
pub const DEFAULT_HDD_PRESET: &str = "desktop-7200";

/// Parameters of a disk (the `[hdd]` table of a hybrid config).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HddParams {
    /// Preset this disk came from.
    #[serde(default)]
    pub preset: String,
    /// One-line description.
    #[serde(default)]
    pub description: String,
    /// Capacity (a multiple of 512 B).
    pub capacity: Size,
    /// Spindle speed, revolutions per minute.
    pub rpm: f64,
    /// Recording surfaces (heads).
    pub heads: u32,
    /// Recording zones.
    pub zones: u32,
    /// Sectors per track in the outermost zone.
    pub sectors_per_track_outer: u32,
    /// Sectors per track in the innermost zone.
    pub sectors_per_track_inner: u32,
    /// Seek over one cylinder, including settling, ms.
    pub track_to_track_seek_ms: f64,
    /// Mean seek over uniformly random pairs of cylinders, ms.
    pub average_seek_ms: f64,
    /// Seek over all cylinders, ms.
    pub full_stroke_seek_ms: f64,
    /// Where the √d part of the seek curve ends, as a share of the cylinders (0–1).
    pub short_seek_fraction: f64,
    /// Switching to another surface in the same cylinder, ms.
    pub head_switch_ms: f64,
    /// Controller time per command, ms.
    pub command_overhead_ms: f64,
    /// Host interface rate for cache hits, MB/s.
    pub interface_mb_s: f64,
    /// Read cache segments (0 = no cache, no read-ahead).
    pub cache_segments: u32,
    /// Size of one segment (also the read-ahead distance).
    pub segment_size: Size,
}

impl Default for HddParams {
    fn default() -> Self {
        HddParams::preset(DEFAULT_HDD_PRESET).expect("built-in preset parses")
    }
}

/// Why a disk cannot be built: each variant names the `hdd.` key (or keys) and what was
/// expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum HddError {
    /// `hdd.preset` names no built-in preset.
    #[error("unknown HDD preset '{name}': expected one of {expected}")]
    UnknownPreset {
        /// The name given.
        name: String,
        /// The presets, comma separated.
        expected: String,
    },
    /// The preset's or the overrides' TOML does not parse (unknown key, wrong type).
    #[error("{origin}: {message}")]
    Parse {
        /// `HDD preset NAME` or `hdd`.
        origin: String,
        /// The parser's message (it names the key).
        message: String,
    },
    /// A value outside what its key accepts.
    #[error("{key} = {value}: expected {expected}")]
    Value {
        /// Dotted key, e.g. `hdd.rpm`.
        key: String,
        /// The value given.
        value: String,
        /// What is accepted.
        expected: String,
    },
    /// Keys that are valid alone but not together.
    #[error("hdd {what}: expected {expected}")]
    Inconsistent {
        /// The settings and their values.
        what: String,
        /// The relation they must satisfy.
        expected: &'static str,
    },
    /// Counts that must be at least 1.
    #[error("{keys} must be at least 1")]
    Zero {
        /// The keys.
        keys: &'static str,
    },
    /// The seek curve's equations have no solution.
    #[error("hdd: the seek curve equations are singular")]
    SingularSeekCurve,
    /// More cylinders than the layout's 32-bit counts hold.
    #[error("hdd: too many cylinders (capacity too large for the track size)")]
    TooManyCylinders,
    /// The layout leaves too few cylinders to fit the seek curve.
    #[error(
        "hdd: only {cylinders} cylinders; the seek curve needs at least 4 (larger capacity or fewer sectors per track)"
    )]
    TooFewCylinders {
        /// Cylinders of the layout.
        cylinders: u32,
    },
}

impl HddParams {
    /// A built-in preset by name.
    pub fn preset(name: &str) -> Result<HddParams, HddError> {
        HddParams::load(name, toml::Table::new())
    }

    /// Preset `name` with `overrides` (keys of [`HddParams`]) merged over it.
    pub fn load(name: &str, overrides: toml::Table) -> Result<HddParams, HddError> {
        let text = HDD_PRESETS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .ok_or_else(|| {
                let names: Vec<&str> = HDD_PRESETS.iter().map(|(n, _)| *n).collect();
                HddError::UnknownPreset {
                    name: name.to_string(),
                    expected: names.join(", "),
                }
            })?;
        let mut table: toml::Table = toml::from_str(text).map_err(|e| HddError::Parse {
            origin: format!("HDD preset {name}"),
            message: e.to_string(),
        })?;
        crate::config::merge(&mut table, overrides);
        table.insert("preset".into(), toml::Value::String(name.into()));
        let p = HddParams::deserialize(table).map_err(|e| HddError::Parse {
            origin: "hdd".into(),
            message: e.to_string().trim_end().to_string(),
        })?;
        p.validate()?;
        Ok(p)
    }

    /// The zone layout for raw media rates (the rate at which sectors pass under the
    /// head, as the presets' comments use the term): sectors per track =
    /// rate / (512 B × revolutions per second), rounded, outermost and innermost zone.
    /// A sustained transfer is slower by the head and cylinder switches.
    pub fn set_media_rates(&mut self, outer_mb_s: f64, inner_mb_s: f64) {
        let per_track = |mb_s: f64| (mb_s * 1e6 * 60.0 / (SECTOR_BYTES as f64 * self.rpm)).round();
        self.sectors_per_track_outer = per_track(outer_mb_s) as u32;
        self.sectors_per_track_inner = per_track(inner_mb_s) as u32;
    }

    /// Checks every setting; the error names the key and what was expected.
    pub fn validate(&self) -> Result<(), HddError> {
        let value = |name: &str, v: &dyn std::fmt::Display, expected: &str| HddError::Value {
            key: format!("hdd.{name}"),
            value: v.to_string(),
            expected: expected.to_string(),
        };
        let positive = |name: &str, v: f64| {
            if v > 0.0 && v.is_finite() {
                Ok(())
            } else {
                Err(value(name, &v, "a positive number"))
            }
        };
        let non_negative = |name: &str, v: f64| {
            if v >= 0.0 && v.is_finite() {
                Ok(())
            } else {
                Err(value(name, &v, "a number ≥ 0"))
            }
        };
        positive("rpm", self.rpm)?;
        positive("track_to_track_seek_ms", self.track_to_track_seek_ms)?;
        positive("interface_mb_s", self.interface_mb_s)?;
        non_negative("head_switch_ms", self.head_switch_ms)?;
        non_negative("command_overhead_ms", self.command_overhead_ms)?;
        if !(self.track_to_track_seek_ms < self.average_seek_ms
            && self.average_seek_ms < self.full_stroke_seek_ms
            && self.full_stroke_seek_ms.is_finite())
        {
            return Err(HddError::Inconsistent {
                what: format!(
                    "seek times {} / {} / {} ms",
                    self.track_to_track_seek_ms, self.average_seek_ms, self.full_stroke_seek_ms
                ),
                expected: "track_to_track_seek_ms < average_seek_ms < full_stroke_seek_ms",
            });
        }
        if !(self.short_seek_fraction > 0.0 && self.short_seek_fraction < 1.0) {
            return Err(value(
                "short_seek_fraction",
                &self.short_seek_fraction,
                "a share between 0 and 1, e.g. 0.2",
            ));
        }
        if self.heads == 0 || self.zones == 0 {
            return Err(HddError::Zero {
                keys: "hdd.heads and hdd.zones",
            });
        }
        if self.sectors_per_track_inner == 0
            || self.sectors_per_track_inner > self.sectors_per_track_outer
        {
            return Err(HddError::Inconsistent {
                what: format!(
                    "sectors per track {} (outer) / {} (inner)",
                    self.sectors_per_track_outer, self.sectors_per_track_inner
                ),
                expected: "1 ≤ inner ≤ outer",
            });
        }
        let cap = self.capacity.bytes();
        if cap == 0 || !cap.is_multiple_of(SECTOR_BYTES) {
            return Err(value(
                "capacity",
                &self.capacity,
                "a positive multiple of 512 B",
            ));
        }
        if self.cache_segments > 0 && self.segment_size.bytes() < SECTOR_BYTES {
            return Err(value(
                "segment_size",
                &self.segment_size,
                "at least one sector (512 B) when cache_segments > 0",
            ));
        }
        if self.cache_segments > 1024 {
            return Err(value(
                "cache_segments",
                &self.cache_segments,
                "at most 1024",
            ));
        }
        Ok(())
    }
}

/// The fitted seek curve, nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SeekCurve {
    /// First cylinder distance of the linear part.
    pub boundary: u32,
    /// Short seeks: `a + b·√d`.
    pub a_ns: f64,
    /// Short seeks: `a + b·√d`.
    pub b_ns: f64,
    /// Long seeks: `c + e·d`.
    pub c_ns: f64,
    /// Long seeks: `c + e·d`.
    pub e_ns: f64,
}

impl SeekCurve {
    /// Seek time over `d` cylinders (0 for no move).
    #[inline]
    pub fn seek_ns(&self, d: u32) -> f64 {
        if d == 0 {
            0.0
        } else if d < self.boundary {
            self.a_ns + self.b_ns * (d as f64).sqrt()
        } else {
            self.c_ns + self.e_ns * d as f64
        }
    }

    /// Fits the curve to datasheet figures over `cylinders` cylinders (see the module
    /// docs for the four equations).
    pub fn fit(p: &HddParams, cylinders: u32) -> Result<SeekCurve, HddError> {
        let n = cylinders as f64;
        if cylinders < 4 {
            return Err(HddError::TooFewCylinders { cylinders });
        }
        let boundary = ((n * p.short_seek_fraction) as u32).clamp(2, cylinders - 1);
        let (mut s0, mut s1, mut l0, mut l1) = (0.0, 0.0, 0.0, 0.0);
        let norm = n * (n - 1.0);
        for d in 1..cylinders {
            let w = 2.0 * (n - d as f64) / norm;
            if d < boundary {
                s0 += w;
                s1 += w * (d as f64).sqrt();
            } else {
                l0 += w;
                l1 += w * d as f64;
            }
        }
        let ms = 1e6;
        let bd = boundary as f64;
        let x = solve4(
            [
                [1.0, 1.0, 0.0, 0.0],
                [0.0, 0.0, 1.0, n - 1.0],
                [1.0, bd.sqrt(), -1.0, -bd],
                [s0, s1, l0, l1],
            ],
            [
                p.track_to_track_seek_ms * ms,
                p.full_stroke_seek_ms * ms,
                0.0,
                p.average_seek_ms * ms,
            ],
        );
        let curve = match x {
            Some([a, b, c, e]) => SeekCurve {
                boundary,
                a_ns: a,
                b_ns: b,
                c_ns: c,
                e_ns: e,
            },
            None => return Err(HddError::SingularSeekCurve),
        };
        if !(curve.b_ns > 0.0 && curve.e_ns >= 0.0 && curve.a_ns >= 0.0) {
            return Err(HddError::Inconsistent {
                what: format!(
                    "seek times {} / {} / {} ms cannot be fitted by a rising curve (a + b√d, then linear from {} cylinders)",
                    p.track_to_track_seek_ms, p.average_seek_ms, p.full_stroke_seek_ms, boundary
                ),
                expected: "an average seek nearer to a third of the way from track-to-track to full stroke, or another short_seek_fraction",
            });
        }
        Ok(curve)
    }
}

/// Gaussian elimination with partial pivoting for the 4×4 seek fit.
fn solve4(mut a: [[f64; 4]; 4], mut y: [f64; 4]) -> Option<[f64; 4]> {
    for i in 0..4 {
        let p = (i..4).max_by(|&r, &s| a[r][i].abs().total_cmp(&a[s][i].abs()))?;
        if a[p][i].abs() < 1e-300 {
            return None;
        }
        a.swap(i, p);
        y.swap(i, p);
        let (pivot, yi) = (a[i], y[i]);
        for r in (0..4).filter(|&r| r != i) {
            let f = a[r][i] / pivot[i];
            for (x, p) in a[r].iter_mut().zip(pivot.iter()).skip(i) {
                *x -= f * p;
            }
            y[r] -= f * yi;
        }
    }
    Some([
        y[0] / a[0][0],
        y[1] / a[1][1],
        y[2] / a[2][2],
        y[3] / a[3][3],
    ])
}

/// One recording zone.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Zone {
    /// First cylinder.
    pub first_cylinder: u32,
    /// Cylinders in the zone.
    pub cylinders: u32,
    /// Sectors per track.
    pub sectors_per_track: u32,
    /// First LBA.
    pub first_lba: u64,
    /// One past the last LBA.
    pub end_lba: u64,
    /// Skew between tracks of one cylinder, sectors.
    pub head_skew: u32,
    /// Skew at a cylinder boundary, sectors.
    pub cylinder_skew: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Loc {
    zone: usize,
    cylinder: u32,
    head: u32,
    sector: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct Segment {
    start: u64,
    end: u64,
    stamp: u64,
}

/// The drive reading ahead into `segment`. While `streaming`, the head reaches the start
/// of `next` at `at_ns` and keeps reading; otherwise it stopped (at `limit`) and resumes,
/// after a rotational wait, from `at_ns` once a hit moves the limit on.
#[derive(Clone, Copy, Debug)]
struct ReadAhead {
    next: u64,
    limit: u64,
    at_ns: f64,
    segment: usize,
    streaming: bool,
}

/// Counters of a disk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HddStats {
    /// Commands.
    pub requests: u64,
    /// Read commands.
    pub read_requests: u64,
    /// Write commands.
    pub write_requests: u64,
    /// Reads served entirely from the drive's cache.
    pub cache_hit_requests: u64,
    /// Sectors read from or written to the media (read-ahead included).
    pub media_sectors: u64,
    /// Time spent seeking and switching heads.
    pub seek_ns: f64,
    /// Time spent waiting for the platter.
    pub rotation_ns: f64,
    /// Time spent transferring at the media rate (read-ahead included).
    pub transfer_ns: f64,
    /// Command time from start of service to completion.
    pub busy_ns: f64,
}

impl HddStats {
    /// Component-wise `self − earlier`.
    pub fn since(&self, e: &HddStats) -> HddStats {
        HddStats {
            requests: self.requests - e.requests,
            read_requests: self.read_requests - e.read_requests,
            write_requests: self.write_requests - e.write_requests,
            cache_hit_requests: self.cache_hit_requests - e.cache_hit_requests,
            media_sectors: self.media_sectors - e.media_sectors,
            seek_ns: self.seek_ns - e.seek_ns,
            rotation_ns: self.rotation_ns - e.rotation_ns,
            transfer_ns: self.transfer_ns - e.transfer_ns,
            busy_ns: self.busy_ns - e.busy_ns,
        }
    }
}

/// A simulated disk: one actuator serving commands in arrival order.
#[derive(Clone, Debug)]
pub struct Hdd {
    p: HddParams,
    rev_ns: f64,
    zones: Vec<Zone>,
    cylinders: u32,
    seek: SeekCurve,
    head_switch_ns: f64,
    overhead_ns: f64,
    interface_ns_per_byte: f64,
    capacity_sectors: u64,
    segment_sectors: u64,
    cylinder: u32,
    head: u32,
    free_ns: f64,
    ra: Option<ReadAhead>,
    segments: Vec<Segment>,
    stamp: u64,
    stats: HddStats,
}

impl Hdd {
    /// Builds the disk `p` describes (validated, seek curve fitted).
    pub fn new(p: &HddParams) -> Result<Hdd, HddError> {
        p.validate()?;
        let rev_ns = 60e9 / p.rpm;
        let nz = p.zones as u64;
        let spt = |z: u64| -> u32 {
            if nz == 1 {
                p.sectors_per_track_outer
            } else {
                let span = (p.sectors_per_track_outer - p.sectors_per_track_inner) as u64;
                p.sectors_per_track_outer - ((span * z + (nz - 1) / 2) / (nz - 1)) as u32
            }
        };
        let capacity_sectors = p.capacity.bytes() / SECTOR_BYTES;
        let per_cylinder_all_zones: u64 =
            (0..nz).map(|z| spt(z) as u64).sum::<u64>() * p.heads as u64;
        let cyl_per_zone = capacity_sectors.div_ceil(per_cylinder_all_zones);
        if cyl_per_zone * nz > u32::MAX as u64 / 2 {
            return Err(HddError::TooManyCylinders);
        }
        let skew = |ns: f64, spt: u32| ((ns / rev_ns) * spt as f64).ceil() as u32 % spt.max(1);
        let head_switch_ns = p.head_switch_ms * 1e6;
        let mut zones = Vec::new();
        let mut lba = 0u64;
        for z in 0..nz {
            if lba >= capacity_sectors {
                break;
            }
            let s = spt(z);
            let sectors = cyl_per_zone * p.heads as u64 * s as u64;
            let end = (lba + sectors).min(capacity_sectors);
            zones.push(Zone {
                first_cylinder: (z * cyl_per_zone) as u32,
                cylinders: cyl_per_zone as u32,
                sectors_per_track: s,
                first_lba: lba,
                end_lba: end,
                head_skew: skew(head_switch_ns, s),
                cylinder_skew: skew(p.track_to_track_seek_ms * 1e6, s),
            });
            lba = end;
        }
        let last = zones.last().expect("capacity > 0 gives a zone");
        let used_in_last = (last.end_lba - last.first_lba)
            .div_ceil(p.heads as u64 * last.sectors_per_track as u64);
        let cylinders = last.first_cylinder + used_in_last as u32;
        let seek = SeekCurve::fit(p, cylinders)?;
        let segment_sectors = if p.cache_segments == 0 {
            0
        } else {
            p.segment_size.bytes() / SECTOR_BYTES
        };
        Ok(Hdd {
            p: p.clone(),
            rev_ns,
            zones,
            cylinders,
            seek,
            head_switch_ns,
            overhead_ns: p.command_overhead_ms * 1e6,
            interface_ns_per_byte: 1e3 / p.interface_mb_s,
            capacity_sectors,
            segment_sectors,
            cylinder: 0,
            head: 0,
            free_ns: 0.0,
            ra: None,
            segments: Vec::with_capacity(p.cache_segments as usize),
            stamp: 0,
            stats: HddStats::default(),
        })
    }

    /// Parameters.
    pub fn params(&self) -> &HddParams {
        &self.p
    }
    /// Capacity in sectors.
    pub fn capacity_sectors(&self) -> u64 {
        self.capacity_sectors
    }
    /// Capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.capacity_sectors * SECTOR_BYTES
    }
    /// Cylinders in use.
    pub fn cylinders(&self) -> u32 {
        self.cylinders
    }
    /// The zones.
    pub fn zones(&self) -> &[Zone] {
        &self.zones
    }
    /// The fitted seek curve.
    pub fn seek_curve(&self) -> &SeekCurve {
        &self.seek
    }
    /// One revolution, ns.
    pub fn revolution_ns(&self) -> f64 {
        self.rev_ns
    }
    /// Counters so far.
    pub fn stats(&self) -> &HddStats {
        &self.stats
    }
    /// Time at which the disk finishes its last accepted command.
    pub fn busy_until_ns(&self) -> u64 {
        self.free_ns.ceil() as u64
    }
    /// Cylinder of `lba` (for tests and figures).
    pub fn cylinder_of(&self, lba: u64) -> u32 {
        self.locate(lba).cylinder
    }

    #[inline]
    fn locate(&self, lba: u64) -> Loc {
        debug_assert!(lba < self.capacity_sectors);
        let zone = self.zones.partition_point(|z| z.end_lba <= lba);
        let z = &self.zones[zone];
        let rel = lba - z.first_lba;
        let spt = z.sectors_per_track as u64;
        let track = rel / spt;
        Loc {
            zone,
            cylinder: z.first_cylinder + (track / self.p.heads as u64) as u32,
            head: (track % self.p.heads as u64) as u32,
            sector: (rel % spt) as u32,
        }
    }

    /// Time from `t` until the start of `loc`'s sector passes under the head.
    #[inline]
    fn rotational_wait_ns(&self, loc: Loc, t: f64) -> f64 {
        let z = &self.zones[loc.zone];
        let spt = z.sectors_per_track as u64;
        let cyl_in_zone = (loc.cylinder - z.first_cylinder) as u64;
        let track_in_zone = cyl_in_zone * self.p.heads as u64 + loc.head as u64;
        // Every track change inside a cylinder adds a head skew; every cylinder change a
        // cylinder skew instead.
        let head_changes = track_in_zone - cyl_in_zone;
        let offset = (head_changes * z.head_skew as u64
            + cyl_in_zone * z.cylinder_skew as u64
            + loc.sector as u64)
            % spt;
        let target = offset as f64 / spt as f64;
        let angle = (t / self.rev_ns).fract();
        let mut w = target - angle;
        if w < 0.0 {
            w += 1.0;
        }
        // Rounding must not turn "the sector is under the head now" into a revolution.
        if w > 1.0 - 1e-9 {
            w = 0.0;
        }
        w * self.rev_ns
    }

    /// Transfers sectors `lba..lba + count` starting at time `t`, moving the head as
    /// needed; with `streaming` the head is already at the start of `lba` at `t` (no
    /// positioning, no wait). Stops early when the next sector would end after
    /// `deadline`. Returns (sectors transferred, time after the last one).
    fn stream(
        &mut self,
        mut lba: u64,
        count: u64,
        mut t: f64,
        deadline: f64,
        mut streaming: bool,
    ) -> (u64, f64) {
        let end = lba + count;
        while lba < end {
            let loc = self.locate(lba);
            let z = self.zones[loc.zone];
            if !streaming || loc.sector == 0 {
                let moved = (loc.cylinder, loc.head) != (self.cylinder, self.head);
                let pos = if loc.cylinder != self.cylinder {
                    self.seek.seek_ns(loc.cylinder.abs_diff(self.cylinder))
                } else if loc.head != self.head {
                    self.head_switch_ns
                } else {
                    0.0
                };
                if !streaming || moved {
                    let wait = self.rotational_wait_ns(loc, t + pos);
                    if t + pos + wait > deadline {
                        break;
                    }
                    self.cylinder = loc.cylinder;
                    self.head = loc.head;
                    self.stats.seek_ns += pos;
                    self.stats.rotation_ns += wait;
                    t += pos + wait;
                }
            }
            streaming = true;
            let sector_ns = self.rev_ns / z.sectors_per_track as f64;
            let on_track = (z.sectors_per_track - loc.sector) as u64;
            let mut k = on_track.min(end - lba).min(z.end_lba - lba);
            if t + k as f64 * sector_ns > deadline {
                k = ((deadline - t) / sector_ns).floor().max(0.0) as u64;
                if k == 0 {
                    break;
                }
            }
            t += k as f64 * sector_ns;
            self.stats.transfer_ns += k as f64 * sector_ns;
            self.stats.media_sectors += k;
            lba += k;
        }
        (count - (end - lba), t)
    }

    /// Lets the read-ahead run until `until_ns` (the drive reads while idle).
    fn advance_read_ahead(&mut self, until_ns: f64) {
        let Some(mut ra) = self.ra else { return };
        if ra.next < ra.limit && ra.at_ns < until_ns {
            let want = ra.limit - ra.next;
            let (done, t) = self.stream(ra.next, want, ra.at_ns, until_ns, ra.streaming);
            ra.next += done;
            if done > 0 {
                ra.at_ns = t;
                ra.streaming = done < want;
            }
            let seg = &mut self.segments[ra.segment];
            seg.end = ra.next;
            seg.start = seg.start.max(seg.end.saturating_sub(self.segment_sectors));
        }
        self.ra = Some(ra);
    }

    fn new_segment(&mut self, start: u64, end: u64) -> usize {
        self.stamp += 1;
        let seg = Segment {
            start: start.max(end.saturating_sub(self.segment_sectors)),
            end,
            stamp: self.stamp,
        };
        if self.segments.len() < self.p.cache_segments as usize {
            self.segments.push(seg);
            self.segments.len() - 1
        } else {
            let i = (0..self.segments.len())
                .min_by_key(|&i| self.segments[i].stamp)
                .expect("at least one segment");
            self.segments[i] = seg;
            i
        }
    }

    /// Performs a read (`write = false`) or write of `sectors` sectors at `lba`, arriving
    /// at `arrival_ns`; returns the completion time. The caller keeps the range inside
    /// the disk.
    pub fn access(&mut self, write: bool, lba: u64, sectors: u64, arrival_ns: u64) -> u64 {
        debug_assert!(sectors > 0 && lba + sectors <= self.capacity_sectors);
        let start = (arrival_ns as f64).max(self.free_ns);
        let t = start + self.overhead_ns;
        self.stats.requests += 1;
        let end_lba = lba + sectors;
        let done = if write {
            self.stats.write_requests += 1;
            // The head leaves the stream; cached copies of the range become stale.
            self.advance_read_ahead(start);
            self.ra = None;
            for s in &mut self.segments {
                if s.start < end_lba && lba < s.end {
                    *s = Segment::default();
                }
            }
            self.stream(lba, sectors, t, f64::INFINITY, false).1
        } else {
            self.stats.read_requests += 1;
            self.advance_read_ahead(t);
            let hit = self
                .segments
                .iter()
                .position(|s| s.start <= lba && end_lba <= s.end && s.end > s.start);
            if let Some(i) = hit {
                self.stamp += 1;
                self.segments[i].stamp = self.stamp;
                // A hit in the read-ahead segment moves the read-ahead on (and restarts a
                // stopped one), as drives do for sequential streams.
                if let Some(ra) = &mut self.ra
                    && ra.segment == i
                {
                    let limit = (end_lba + self.segment_sectors).min(self.capacity_sectors);
                    if limit > ra.limit {
                        if !ra.streaming {
                            ra.at_ns = t;
                        }
                        ra.limit = limit;
                    }
                }
                self.stats.cache_hit_requests += 1;
                let done = t + (sectors * SECTOR_BYTES) as f64 * self.interface_ns_per_byte;
                self.free_ns = self.free_ns.max(done);
                self.stats.busy_ns += done - start;
                return done.round() as u64;
            }
            let continuing = self.ra.filter(|ra| {
                let s = &self.segments[ra.segment];
                ra.streaming && s.start <= lba && lba <= ra.next && ra.next < end_lba
            });
            let (media_end, segment) = match continuing {
                Some(ra) => {
                    // The drive has been reading this stream all along: carry on from
                    // where the read-ahead is, with no seek and no rotational wait.
                    let (_, e) =
                        self.stream(ra.next, end_lba - ra.next, ra.at_ns, f64::INFINITY, true);
                    let seg = &mut self.segments[ra.segment];
                    seg.end = end_lba;
                    seg.start = seg.start.max(end_lba.saturating_sub(self.segment_sectors));
                    self.stamp += 1;
                    seg.stamp = self.stamp;
                    let cached = (ra.next - lba) * SECTOR_BYTES;
                    (
                        e.max(t + cached as f64 * self.interface_ns_per_byte),
                        Some(ra.segment),
                    )
                }
                None => {
                    let e = self.stream(lba, sectors, t, f64::INFINITY, false).1;
                    let seg = (self.p.cache_segments > 0).then(|| self.new_segment(lba, end_lba));
                    (e, seg)
                }
            };
            self.ra = segment.map(|segment| ReadAhead {
                next: end_lba,
                limit: (end_lba + self.segment_sectors).min(self.capacity_sectors),
                at_ns: media_end,
                segment,
                streaming: true,
            });
            media_end
        };
        self.free_ns = done;
        self.stats.busy_ns += done - start;
        done.round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Mean service time of `n` random 4 KiB reads at queue depth 1, each arriving a
    /// random 0–10 ms after the previous one completes (so rotational phases are
    /// independent of the previous request).
    fn random_read_mean_ns(p: &HddParams, n: u64) -> f64 {
        let mut d = Hdd::new(p).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let sectors = d.capacity_sectors();
        let mut t = 0u64;
        let mut total = 0u64;
        for _ in 0..n {
            let lba = rng.gen_range(0..sectors / 8) * 8;
            let arrival = t + rng.gen_range(0..10_000_000);
            let done = d.access(false, lba, 8, arrival);
            total += done - arrival;
            t = done;
        }
        total as f64 / n as f64
    }

    /// MB/s of back-to-back 1 MiB reads of `bytes` from `offset_bytes`.
    fn sequential_mb_s(d: &mut Hdd, offset_bytes: u64, bytes: u64) -> f64 {
        let chunk = 2048u64;
        let first = offset_bytes / SECTOR_BYTES;
        let mut t = d.busy_until_ns();
        let start = t;
        for i in 0..bytes / (chunk * SECTOR_BYTES) {
            t = d.access(false, first + i * chunk, chunk, t);
        }
        bytes as f64 / ((t - start) as f64 / 1e9) / 1e6
    }

    #[test]
    fn fitted_seek_curve_meets_the_datasheet_figures() {
        for (name, _) in HDD_PRESETS {
            let p = HddParams::preset(name).unwrap();
            let d = Hdd::new(&p).unwrap();
            let s = d.seek_curve();
            let n = d.cylinders();
            assert!(
                (s.seek_ns(1) - p.track_to_track_seek_ms * 1e6).abs() < 1.0,
                "{name}"
            );
            assert!(
                (s.seek_ns(n - 1) - p.full_stroke_seek_ms * 1e6).abs() < 1.0,
                "{name}"
            );
            // Continuous at the boundary and never decreasing.
            let b = s.boundary;
            let (below, at) = (s.a_ns + s.b_ns * (b as f64).sqrt(), s.seek_ns(b));
            assert!((below - at).abs() < 1.0, "{name}: {below} vs {at}");
            let mut prev = 0.0;
            for d in (0..n).step_by(97) {
                assert!(s.seek_ns(d) >= prev, "{name} at {d}");
                prev = s.seek_ns(d);
            }
            // Independent check of the average: random pairs of cylinders.
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
            let m = 200_000;
            let mut sum = 0.0;
            let mut k = 0;
            while k < m {
                let (x, y) = (rng.gen_range(0..n), rng.gen_range(0..n));
                if x != y {
                    sum += s.seek_ns(x.abs_diff(y));
                    k += 1;
                }
            }
            let avg_ms = sum / m as f64 / 1e6;
            assert!(
                (avg_ms / p.average_seek_ms - 1.0).abs() < 0.02,
                "{name}: {avg_ms}"
            );
        }
    }

    #[test]
    fn random_4k_reads_match_a_7200_rpm_desktop_disk() {
        // A 7200 rpm desktop disk does about 80–120 random 4 KiB reads per second at
        // queue depth 1: average seek + half a revolution (4.17 ms) + overhead.
        let p = HddParams::preset("desktop-7200").unwrap();
        let mean = random_read_mean_ns(&p, 20_000);
        let iops = 1e9 / mean;
        assert!((80.0..=120.0).contains(&iops), "{iops} IOPS ({mean} ns)");
        // The mean is at least half a revolution plus overhead and at most a full
        // revolution plus a full-stroke seek: bounds that follow from the mechanics.
        let rev = 60e9 / p.rpm;
        assert!(mean > rev / 2.0 + p.command_overhead_ms * 1e6);
        assert!(mean < rev + p.full_stroke_seek_ms * 1e6);
        let laptop = random_read_mean_ns(&HddParams::preset("laptop-5400").unwrap(), 20_000);
        let laptop_iops = 1e9 / laptop;
        assert!(
            laptop_iops < iops && (40.0..=80.0).contains(&laptop_iops),
            "{laptop_iops}"
        );
    }

    #[test]
    fn sequential_reads_run_at_100_to_200_mb_s_and_fall_towards_the_inner_zone() {
        let p = HddParams::preset("desktop-7200").unwrap();
        let mut d = Hdd::new(&p).unwrap();
        let outer = sequential_mb_s(&mut d, 0, 256 << 20);
        assert!((100.0..=200.0).contains(&outer), "outer {outer} MB/s");
        // Capacity-weighted average: equal reads at 16 evenly spaced offsets.
        let cap = d.capacity_bytes();
        let mut rates = Vec::new();
        for i in 0..16 {
            let off = (cap / 16 * i) / (1 << 20) * (1 << 20);
            rates.push(sequential_mb_s(&mut d, off, 32 << 20));
        }
        let avg = rates.iter().sum::<f64>() / rates.len() as f64;
        assert!((100.0..=200.0).contains(&avg), "average {avg} MB/s");
        assert!(rates[15] < rates[0] * 0.6, "{rates:?}");
        // The outer rate cannot beat the raw media rate (sectors per track per revolution).
        let raw = p.sectors_per_track_outer as f64 * 512.0 * p.rpm / 60.0 / 1e6;
        assert!(outer < raw && outer > raw * 0.8, "{outer} vs raw {raw}");
    }

    fn tiny() -> HddParams {
        HddParams {
            preset: String::new(),
            description: String::new(),
            // 1 zone, 1 head, 100 sectors per track, 100 cylinders.
            capacity: Size(100 * 100 * 512),
            rpm: 6000.0, // 10 ms per revolution, 0.1 ms per sector
            heads: 1,
            zones: 1,
            sectors_per_track_outer: 100,
            sectors_per_track_inner: 100,
            track_to_track_seek_ms: 1.0,
            average_seek_ms: 3.0,
            full_stroke_seek_ms: 6.0,
            short_seek_fraction: 0.2,
            head_switch_ms: 0.5,
            command_overhead_ms: 0.0,
            interface_mb_s: 100.0,
            cache_segments: 0,
            segment_size: Size(0),
        }
    }

    #[test]
    fn media_rates_set_sectors_per_track_from_the_spindle_speed() {
        let mut p = HddParams::preset("desktop-7200").unwrap();
        // 7200 rpm = 120 revolutions a second: 100 MB/s = 1e8 / 120 / 512 = 1627.6 sectors.
        p.set_media_rates(100.0, 55.0);
        assert_eq!(
            (p.sectors_per_track_outer, p.sectors_per_track_inner),
            (1628, 895)
        );
        let mut d = Hdd::new(&p).unwrap();
        let raw = 1628.0 * 512.0 * 120.0 / 1e6;
        let seq = sequential_mb_s(&mut d, 0, 64 << 20);
        assert!(seq < raw && seq > 0.85 * raw, "{seq} vs {raw}");
    }

    #[test]
    fn hand_computed_rotation_seek_and_skew() {
        let mut d = Hdd::new(&tiny()).unwrap();
        assert_eq!(d.cylinders(), 100);
        // Sector 25 of cylinder 0 at t = 0: no seek, wait 25/100 of 10 ms = 2.5 ms,
        // transfer one sector 0.1 ms → 2.6 ms.
        assert_eq!(d.access(false, 25, 1, 0), 2_600_000);
        // Sector 0 of cylinder 1 (LBA 100): track-to-track 1 ms → t = 3.6 ms, angle 0.36.
        // Cylinder skew = ceil(1 ms / 10 ms × 100) = 10 sectors, so sector 0 sits at
        // angle 0.10: wait (0.10 − 0.36 + 1) × 10 ms = 7.4 ms; + 0.1 ms → 11.1 ms.
        assert_eq!(d.access(false, 100, 1, 0), 11_100_000);
        // Reading sectors 99..=100 across the boundary from t = 20 ms: seek back to
        // cylinder 0 (1 ms) → 21 ms, angle 0.1, sector 99 at 0.99: wait 8.9 ms → 29.9 ms,
        // read it → 30.0 ms (angle 0); then to cylinder 1 (1 ms) → 31 ms, angle 0.1,
        // its sector 0 is at 0.10: wait 0; read → 31.1 ms. The skew saves a revolution.
        assert_eq!(d.access(false, 99, 2, 20_000_000), 31_100_000);
    }

    #[test]
    fn read_ahead_turns_a_sequential_stream_with_think_time_into_cache_hits() {
        let stream = |segments: u32| {
            let mut p = tiny();
            p.cache_segments = segments;
            p.segment_size = Size(64 << 10);
            p.command_overhead_ms = 0.1;
            let mut d = Hdd::new(&p).unwrap();
            let mut t = 0;
            let mut total = 0;
            for i in 0..200u64 {
                let arrival = t + 1_000_000; // 1 ms of host think time
                let done = d.access(false, i * 8, 8, arrival);
                total += done - arrival;
                t = done;
            }
            (total / 200, d.stats().cache_hit_requests)
        };
        let (without, hits0) = stream(0);
        let (with, hits) = stream(4);
        assert_eq!(hits0, 0);
        // Without a cache each 4 KiB read misses its sector and waits most of a
        // revolution (10 ms); with read-ahead nearly all are hits: overhead 0.1 ms +
        // 4 KiB at 100 MB/s ≈ 0.14 ms.
        assert!(without > 5_000_000, "{without}");
        assert!(hits > 190, "{hits}");
        assert!(with < 300_000, "{with}");
    }

    #[test]
    fn writes_drop_cached_copies_and_bad_parameters_are_rejected() {
        let mut p = tiny();
        p.cache_segments = 2;
        p.segment_size = Size(64 << 10);
        let mut d = Hdd::new(&p).unwrap();
        let t = d.access(false, 0, 8, 0);
        let t = d.access(false, 0, 8, t);
        assert_eq!(d.stats().cache_hit_requests, 1);
        let t = d.access(true, 4, 1, t);
        d.access(false, 0, 8, t);
        assert_eq!(d.stats().cache_hit_requests, 1);
        let mut bad = tiny();
        bad.average_seek_ms = 7.0;
        assert!(
            Hdd::new(&bad)
                .unwrap_err()
                .to_string()
                .contains("average_seek_ms")
        );
        let e = HddParams::load("nope", toml::Table::new())
            .unwrap_err()
            .to_string();
        assert!(e.contains("desktop-7200"), "{e}");
        let mut o = toml::Table::new();
        o.insert("rmp".into(), toml::Value::Float(1.0));
        let e = HddParams::load("desktop-7200", o).unwrap_err().to_string();
        assert!(e.contains("rmp"), "{e}");
        // Typed: the variant names the key, the value and the expectation; the message
        // is the one the string error had.
        let mut bad = HddParams::preset("desktop-7200").unwrap();
        bad.cache_segments = 2000;
        let e = bad.validate().unwrap_err();
        assert_eq!(
            e,
            HddError::Value {
                key: "hdd.cache_segments".into(),
                value: "2000".into(),
                expected: "at most 1024".into(),
            }
        );
        assert_eq!(
            e.to_string(),
            "hdd.cache_segments = 2000: expected at most 1024"
        );
        assert!(matches!(
            HddParams::load("nope", toml::Table::new()),
            Err(HddError::UnknownPreset { name, .. }) if name == "nope"
        ));
    }
}
