//! `cachelib`: a CacheLib-like flash cache (Berg et al., "The CacheLib Caching Engine:
//! Design and Experiences at Scale", OSDI 2020; its flash engine Navy, and the
//! small-object cache of Kangaroo, McAllister et al., SOSP 2021). The span holds two
//! regions whose data lives very differently:
//!
//! - the **small-object cache** (SOC, Navy's BigHash): a set-associative hash table of
//!   4 KiB buckets at the front of the span. Inserting an item rewrites its whole bucket
//!   in place, so the SOC sees random 4 KiB writes over a small range (short-lived
//!   pages, rewritten again and again);
//! - the **large-object cache** (LOC, Navy's BlockCache): the rest of the span, cut
//!   into regions of `region_size`, written as a log. A region is filled sequentially;
//!   when the log has gone round, the oldest region is evicted and rewritten (FIFO), so
//!   each page lives one full turn of the log.
//!
//! Writes are split between the two by bytes (`soc_write_percent`); gets (`get_percent`
//! of the requests) read a bucket or `workload.size` bytes of a written region. With
//! `placement = "by-lifetime"` SOC writes carry FDP placement identifier 0 and LOC
//! writes identifier 1 (the split the FDP flash-cache work makes: Allison et al.,
//! "Towards Efficient Flash Caches with Emerging NVMe Flexible Data Placement SSDs",
//! EuroSys 2025); by default they carry none and the drive behaves as without FDP.
//!
//! On a zoned drive (`workload.zone_size` set, filled in from `[ftl.zoned]` by the
//! simulator) one LOC region is one zone: written from its start to the zone capacity
//! and reset before it is rewritten, and the cache is mounted with one Report Zones of
//! every zone from the span's first (filter 0, `ZQ0`) before anything else, as a host
//! lists a zoned drive's zones when it opens it (the `lsm` generator does the same; a
//! generator gets no replies, so the cache plans on every zone being empty, and the
//! report's `zone_reports` shows what the drive answered; it counts as one of
//! `requests`). The SOC's in-place bucket rewrites cannot be
//! written at a zone's write pointer — CacheLib on ZNS keeps the SOC on a conventional
//! device — so on a zoned drive `soc_percent` defaults to 0 and any other value is
//! refused.
//!
//! ```text
//! zones: mount: Report Zones of every zone (the first request)
//! soc = ⌊span · soc_percent / 100 / bucket⌋ · bucket        (0 on zones)
//! LOC region k at soc + k · stride, writable bytes cap      (stride = cap = region_size;
//!                                                            zones: stride = zone size,
//!                                                            cap = zone capacity)
//! each request: with probability get_percent / 100 a get, else a write:
//!   write: SOC if soc_bytes < soc_write_percent % of all bytes written so far
//!            → bucket b uniform in [0, soc / bucket): write bucket bytes at b · bucket
//!          else LOC: region r, offset o (a FIFO ring):
//!            zones: o = 0 and region r written before → Reset Zone r first
//!            write min(size, cap − o) at soc + r · stride + o; o += that
//!            o = cap → r = (r + 1) mod regions, o = 0
//!   get: SOC (same share) → read a random bucket; LOC → read size bytes, aligned,
//!        inside the written part of a random region
//! ```

use super::{GeneratorSpec, stream::rng_from_seed};
use super::{LifetimePlacement, SynthConfig, SynthError};
use crate::units::Size;
use crate::workload::{IoRequest, OpKind};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const SPEC: GeneratorSpec = GeneratorSpec::new(
    "cachelib",
    "a CacheLib-like flash cache: random 4 KiB bucket writes (SOC) beside a FIFO log of regions (LOC)",
    build,
)
.with_check(check);

/// Navy's BlockCache region size (`navyConfig.blockCacheRegionSize`, 16 MiB).
pub const DEFAULT_REGION_SIZE: u64 = 16 << 20;

/// The placement identifier of SOC writes with `placement = "by-lifetime"`.
pub const SOC_PLACEMENT: u16 = 0;
/// The placement identifier of LOC writes with `placement = "by-lifetime"`.
pub const LOC_PLACEMENT: u16 = 1;

/// `[workload.cachelib]`: the flash cache's keys (docs/config.md gives each default's
/// source).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CachelibConfig {
    /// Share of the span given to the small-object cache, 0–100; `None`: 4 on a
    /// conventional drive, 0 on zones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub soc_percent: Option<f64>,
    /// Share of the bytes written that go to the SOC, 0–100 (every write goes to the
    /// LOC when the SOC is empty, as on zones).
    pub soc_write_percent: f64,
    /// SOC bucket (set) size: each insert rewrites one bucket.
    pub bucket_size: Size,
    /// LOC region size; `None`: 16 MiB, or the zone capacity on zones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region_size: Option<Size>,
    /// Share of the requests that are gets (reads), 0–100.
    pub get_percent: f64,
    /// Placement identifiers by lifetime class (SOC 0, LOC 1), or none.
    pub placement: LifetimePlacement,
}

impl Default for CachelibConfig {
    fn default() -> Self {
        CachelibConfig {
            soc_percent: None,
            soc_write_percent: 50.0,
            bucket_size: Size(4096),
            region_size: None,
            get_percent: 0.0,
            placement: LifetimePlacement::None,
        }
    }
}

/// The layout the generator uses over a span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Bytes of the SOC, from the span's start (a multiple of the bucket).
    pub soc_bytes: u64,
    /// Bucket size.
    pub bucket_bytes: u64,
    /// First byte of the LOC.
    pub loc_start: u64,
    /// Bytes between region starts.
    pub region_stride: u64,
    /// Writable bytes of a region.
    pub region_cap: u64,
    /// Regions in the LOC.
    pub regions: u64,
    /// Regions are zones (reset before they are rewritten).
    pub zoned: bool,
}

/// The layout of `cfg` over `span_bytes` (after [`check`]).
pub fn layout(cfg: &SynthConfig, span_bytes: u64) -> Layout {
    let c = cfg.cachelib.clone().unwrap_or_default();
    let zoned = cfg.zone_size.is_some();
    let bucket = c.bucket_size.bytes().max(1);
    let soc_percent = c.soc_percent.unwrap_or(if zoned { 0.0 } else { 4.0 });
    let soc = ((span_bytes as f64 * soc_percent / 100.0) as u64 / bucket) * bucket;
    let (stride, cap, loc_start) = match cfg.zone_size {
        Some(z) => {
            let z = z.bytes().max(1);
            let cap = cfg.zone_capacity.map_or(z, |c| c.bytes()).clamp(1, z);
            // The LOC starts at the first zone after the SOC (none on zones: 0).
            (z, cap, soc.div_ceil(z) * z)
        }
        None => {
            let r = c
                .region_size
                .map_or(DEFAULT_REGION_SIZE, |r| r.bytes())
                .max(1);
            (r, r, soc)
        }
    };
    Layout {
        soc_bytes: soc,
        bucket_bytes: bucket,
        loc_start,
        region_stride: stride,
        region_cap: cap,
        regions: span_bytes.saturating_sub(loc_start) / stride,
        zoned,
    }
}

/// `[workload.cachelib]`'s keys, each error naming its key and what was expected.
pub fn check(cfg: &SynthConfig, span_bytes: u64) -> Result<(), SynthError> {
    let Some((c, section)) = super::own::own_section(cfg, SPEC.name, &cfg.cachelib)? else {
        return Ok(());
    };
    let (c, bad) = (&c, |key: &str, v: &dyn std::fmt::Display, want: String| {
        section.bad(key, v, want)
    });
    for (key, v) in [
        ("soc_write_percent", Some(c.soc_write_percent)),
        ("get_percent", Some(c.get_percent)),
        ("soc_percent", c.soc_percent),
    ] {
        if let Some(v) = v
            && !(0.0..=100.0).contains(&v)
        {
            return Err(bad(key, &v, "a percentage between 0 and 100".into()));
        }
    }
    let align = cfg.align.bytes().max(1);
    let bucket = c.bucket_size.bytes();
    if bucket == 0 || !bucket.is_multiple_of(align) {
        return Err(bad(
            "bucket_size",
            &c.bucket_size,
            format!("a positive multiple of workload.align ({})", cfg.align),
        ));
    }
    if cfg.zone_size.is_some() {
        if let Some(p) = c.soc_percent
            && p > 0.0
        {
            return Err(bad(
                "soc_percent",
                &p,
                "0 on a zoned drive: the small-object cache rewrites 4 KiB buckets in place, \
                 which a zone's write pointer refuses (CacheLib on ZNS keeps it on a \
                 conventional device)"
                    .into(),
            ));
        }
        let l = layout(cfg, span_bytes);
        if let Some(r) = c.region_size
            && r.bytes() != l.region_cap
        {
            return Err(bad(
                "region_size",
                &r,
                format!(
                    "the zone capacity ({}) on a zoned drive (one region is one zone), or unset",
                    Size(l.region_cap)
                ),
            ));
        }
    } else if let Some(r) = c.region_size
        && (r.bytes() == 0 || !r.bytes().is_multiple_of(align))
    {
        return Err(bad(
            "region_size",
            &r,
            format!("a positive multiple of workload.align ({})", cfg.align),
        ));
    }
    let l = layout(cfg, span_bytes);
    let soc_share = c.soc_percent.unwrap_or(if l.zoned { 0.0 } else { 4.0 });
    if soc_share > 0.0 && l.soc_bytes == 0 {
        return Err(bad(
            "soc_percent",
            &soc_share,
            format!(
                "a share of the span ({}) holding at least one bucket of {}",
                Size(span_bytes),
                c.bucket_size
            ),
        ));
    }
    if l.regions < 2 && c.soc_write_percent < 100.0 {
        return Err(bad(
            "region_size",
            &Size(l.region_stride),
            format!(
                "at least two regions in the large-object cache ({} after the SOC's {})",
                Size(span_bytes.saturating_sub(l.loc_start)),
                Size(l.soc_bytes)
            ),
        ));
    }
    Ok(())
}

fn build(
    cfg: &SynthConfig,
    span_bytes: u64,
    count: u64,
    seed: u64,
) -> Box<dyn Iterator<Item = IoRequest> + Send> {
    Box::new(Cachelib::new(cfg, span_bytes, count, seed))
}

/// The flash cache's state: where the LOC log is and what has been written.
#[derive(Clone, Debug)]
pub struct Cachelib {
    l: Layout,
    size: u64,
    soc_write_share: f64,
    get_share: f64,
    by_lifetime: bool,
    /// Region being written and bytes written into it.
    region: u64,
    offset: u64,
    /// The log has gone round: every region holds data.
    wrapped: bool,
    /// Zones: the region being entered must be reset before it is written.
    reset_due: bool,
    /// Zones: the mount's Report Zones is still to be issued.
    mount_due: bool,
    soc_written: u64,
    loc_written: u64,
    rng: Xoshiro256PlusPlus,
    left: u64,
}

impl Cachelib {
    /// The generator for `count` requests over `[0, span_bytes)`.
    pub fn new(cfg: &SynthConfig, span_bytes: u64, count: u64, seed: u64) -> Cachelib {
        let c = cfg.cachelib.clone().unwrap_or_default();
        let l = layout(cfg, span_bytes);
        Cachelib {
            l,
            size: cfg.size.bytes().clamp(1, l.region_cap.max(1)),
            soc_write_share: if l.soc_bytes == 0 {
                0.0
            } else if l.regions == 0 {
                1.0
            } else {
                c.soc_write_percent / 100.0
            },
            get_share: c.get_percent / 100.0,
            by_lifetime: c.placement == LifetimePlacement::ByLifetime,
            region: 0,
            offset: 0,
            wrapped: false,
            reset_due: false,
            mount_due: l.zoned,
            soc_written: 0,
            loc_written: 0,
            rng: rng_from_seed(seed),
            left: count,
        }
    }

    fn pid(&self, soc: bool) -> Option<u16> {
        self.by_lifetime
            .then_some(if soc { SOC_PLACEMENT } else { LOC_PLACEMENT })
    }

    /// The next write goes to the SOC: its bytes are below their share of all written.
    fn soc_turn(&self) -> bool {
        if self.soc_write_share >= 1.0 {
            return true;
        }
        if self.soc_write_share <= 0.0 {
            return false;
        }
        let total = (self.soc_written + self.loc_written) as f64;
        (self.soc_written as f64) < self.soc_write_share * total
    }

    fn soc_bucket(&mut self) -> u64 {
        self.rng
            .gen_range(0..self.l.soc_bytes / self.l.bucket_bytes)
            * self.l.bucket_bytes
    }

    fn region_start(&self, r: u64) -> u64 {
        self.l.loc_start + r * self.l.region_stride
    }

    /// A get: a bucket, or `size` bytes inside a written region; `None` if nothing is
    /// written yet.
    fn get(&mut self) -> Option<IoRequest> {
        let soc = self.l.soc_bytes > 0
            && (self.l.regions == 0 || self.rng.gen_bool(self.soc_write_share.clamp(0.0, 1.0)));
        if soc {
            let b = self.soc_bucket();
            return Some(IoRequest::new(OpKind::Read, b, self.l.bucket_bytes));
        }
        // Full regions: every other one once the log has wrapped, else those before the
        // current one; the current one's written part counts too.
        let full = if self.wrapped {
            self.l.regions - 1
        } else {
            self.region
        };
        let pick = self.rng.gen_range(0..full + 1);
        let (r, written) = if pick == full {
            (self.region, self.offset)
        } else if self.wrapped {
            // The regions other than the current one, in ring order after it.
            ((self.region + 1 + pick) % self.l.regions, self.l.region_cap)
        } else {
            (pick, self.l.region_cap)
        };
        let chunks = written / self.size;
        if chunks == 0 {
            return None;
        }
        let at = self.region_start(r) + self.rng.gen_range(0..chunks) * self.size;
        Some(IoRequest::new(OpKind::Read, at, self.size))
    }

    fn write(&mut self) -> IoRequest {
        if self.soc_turn() {
            let b = self.soc_bucket();
            self.soc_written += self.l.bucket_bytes;
            return IoRequest::new(OpKind::Write, b, self.l.bucket_bytes)
                .with_placement(self.pid(true));
        }
        let start = self.region_start(self.region);
        let n = self.size.min(self.l.region_cap - self.offset);
        let req =
            IoRequest::new(OpKind::Write, start + self.offset, n).with_placement(self.pid(false));
        self.offset += n;
        self.loc_written += n;
        if self.offset == self.l.region_cap {
            self.offset = 0;
            self.region += 1;
            if self.region == self.l.regions {
                self.region = 0;
                self.wrapped = true;
            }
            self.reset_due = self.l.zoned && self.wrapped;
        }
        req
    }
}

impl Iterator for Cachelib {
    type Item = IoRequest;

    fn next(&mut self) -> Option<IoRequest> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        if self.mount_due {
            self.mount_due = false;
            return Some(IoRequest::new(OpKind::ZoneReport(0), 0, 0));
        }
        if self.get_share > 0.0
            && self.rng.gen_bool(self.get_share.min(1.0))
            && let Some(r) = self.get()
        {
            return Some(r);
        }
        // The oldest region is evicted: on zones it is reset before its first write.
        if self.reset_due && !self.soc_turn() {
            self.reset_due = false;
            return Some(IoRequest::new(
                OpKind::ZoneReset,
                self.region_start(self.region),
                0,
            ));
        }
        Some(self.write())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn cfg(c: CachelibConfig, zones: Option<(u64, u64)>, size: u64) -> SynthConfig {
        SynthConfig {
            kind: SPEC.kind(),
            size: Size(size),
            zone_size: zones.map(|z| Size(z.0)),
            zone_capacity: zones.map(|z| Size(z.1)),
            cachelib: Some(c),
            ..SynthConfig::default()
        }
    }

    /// Checks a stream against the layout: SOC writes are whole buckets inside the SOC,
    /// LOC writes continue the log exactly where it is (sequential, regions in FIFO
    /// order from their start, wrapping to the first), zones are reset before they are
    /// rewritten and never written off their pointer, a cache on zones is mounted with
    /// one Report Zones of every zone first of all (and a conventional one never), reads
    /// fall on written data, and the SOC's share of the bytes is kept. Returns (SOC bytes,
    /// LOC bytes, resets).
    fn model(c: &SynthConfig, span: u64, reqs: &[IoRequest]) -> Result<(u64, u64, u64), String> {
        let l = layout(c, span);
        let by_lifetime = c.cachelib.as_ref().unwrap().placement == LifetimePlacement::ByLifetime;
        let (mut region, mut offset, mut wrapped, mut reset_ok) = (0u64, 0u64, false, false);
        let (mut soc, mut loc, mut resets) = (0u64, 0u64, 0u64);
        // Bytes written into each region since its last reset (reads must stay below).
        let mut filled = vec![0u64; l.regions as usize];
        for (i, r) in reqs.iter().enumerate() {
            let end = r.offset_bytes + r.size_bytes;
            if l.zoned && i == 0 && (r.op, r.offset_bytes) != (OpKind::ZoneReport(0), 0) {
                return Err(format!(
                    "{r:?}: a cache on zones mounts with Report Zones first"
                ));
            }
            match r.op {
                OpKind::ZoneReport(0) if l.zoned && i == 0 => {}
                OpKind::Write if r.offset_bytes < l.soc_bytes => {
                    if !r.offset_bytes.is_multiple_of(l.bucket_bytes)
                        || r.size_bytes != l.bucket_bytes
                        || end > l.soc_bytes
                    {
                        return Err(format!("{r:?}: not one bucket inside the SOC"));
                    }
                    if r.placement != by_lifetime.then_some(SOC_PLACEMENT) {
                        return Err(format!("{r:?}: SOC write with the wrong identifier"));
                    }
                    soc += r.size_bytes;
                }
                OpKind::Write => {
                    let want = l.loc_start + region * l.region_stride + offset;
                    if r.offset_bytes != want || offset + r.size_bytes > l.region_cap {
                        return Err(format!("{r:?}: the log is at {want} (region {region})"));
                    }
                    if l.zoned && wrapped && offset == 0 && !reset_ok {
                        return Err(format!("{r:?}: zone {region} rewritten without a reset"));
                    }
                    if r.placement != by_lifetime.then_some(LOC_PLACEMENT) {
                        return Err(format!("{r:?}: LOC write with the wrong identifier"));
                    }
                    reset_ok = false;
                    loc += r.size_bytes;
                    offset += r.size_bytes;
                    filled[region as usize] = offset;
                    if offset == l.region_cap {
                        (region, offset) = ((region + 1) % l.regions, 0);
                        wrapped |= region == 0;
                    }
                }
                OpKind::ZoneReset => {
                    let want = l.loc_start + region * l.region_stride;
                    if !l.zoned || r.offset_bytes != want || offset != 0 || !wrapped {
                        return Err(format!("{r:?}: a reset other than the oldest region's"));
                    }
                    reset_ok = true;
                    filled[region as usize] = 0;
                    resets += 1;
                }
                OpKind::Read if r.offset_bytes < l.soc_bytes => {
                    if end > l.soc_bytes || !r.offset_bytes.is_multiple_of(l.bucket_bytes) {
                        return Err(format!("{r:?}: not a bucket"));
                    }
                }
                OpKind::Read => {
                    let k = (r.offset_bytes - l.loc_start) / l.region_stride;
                    let rel = r.offset_bytes - l.loc_start - k * l.region_stride;
                    if k >= l.regions || rel + r.size_bytes > filled[k as usize] {
                        return Err(format!("{r:?}: reads unwritten bytes of region {k}"));
                    }
                }
                _ => return Err(format!("unexpected {r:?}")),
            }
        }
        Ok((soc, loc, resets))
    }

    #[test]
    fn conventional_stream_keeps_the_soc_buckets_and_the_fifo_log() {
        let c = cfg(
            CachelibConfig {
                region_size: Some(Size(1 << 20)),
                get_percent: 30.0,
                placement: LifetimePlacement::ByLifetime,
                ..CachelibConfig::default()
            },
            None,
            64 << 10,
        );
        let span = 64 << 20;
        check(&c, span).unwrap();
        let reqs: Vec<IoRequest> = Cachelib::new(&c, span, 200_000, 5).collect();
        let (soc, loc, resets) = model(&c, span, &reqs).unwrap();
        assert_eq!(resets, 0);
        // Half of the bytes each (within one request), and the log went round.
        let share = soc as f64 / (soc + loc) as f64;
        assert!((share - 0.5).abs() < 0.01, "SOC share {share}");
        assert!(loc > 2 * (64 << 20), "the log went round twice: {loc}");
        assert!(reqs.iter().filter(|r| r.op == OpKind::Read).count() > 50_000);
    }

    #[test]
    fn on_zones_each_region_is_a_zone_reset_before_it_is_rewritten() {
        let c = cfg(
            CachelibConfig::default(),
            Some((4 << 20, 3 << 20)),
            128 << 10,
        );
        let span = 64 << 20;
        check(&c, span).unwrap();
        let l = layout(&c, span);
        assert_eq!((l.soc_bytes, l.region_cap, l.regions), (0, 3 << 20, 16));
        let reqs: Vec<IoRequest> = Cachelib::new(&c, span, 2000, 5).collect();
        let (soc, loc, resets) = model(&c, span, &reqs).unwrap();
        assert_eq!(soc, 0);
        assert!(loc > 0 && resets >= 16, "{loc} {resets}");
        assert!(reqs.iter().all(|r| r.placement.is_none()));
        // A SOC on zones is refused, naming the key.
        let c = cfg(
            CachelibConfig {
                soc_percent: Some(4.0),
                ..CachelibConfig::default()
            },
            Some((4 << 20, 3 << 20)),
            128 << 10,
        );
        let e = check(&c, span).unwrap_err().to_string();
        assert!(e.contains("workload.cachelib.soc_percent"), "{e}");
    }

    #[test]
    fn placement_id_tags_the_writes_that_carry_none() {
        let mut c = cfg(
            CachelibConfig {
                get_percent: 50.0,
                region_size: Some(Size(1 << 20)),
                ..CachelibConfig::default()
            },
            None,
            64 << 10,
        );
        c.placement_id = Some(5);
        c.requests = Some(2000);
        let reqs = |c: &SynthConfig| -> Vec<IoRequest> {
            super::super::generate(c, 64 << 20, 1)
                .unwrap()
                .into_iter()
                .flat_map(|p| p.requests)
                .collect()
        };
        let r = reqs(&c);
        assert!(r.iter().any(|r| r.op == OpKind::Read));
        for q in &r {
            let want = (q.op == OpKind::Write).then_some(5);
            assert_eq!(q.placement, want, "{q:?}");
        }
        // The generator's own identifiers win.
        c.cachelib.as_mut().unwrap().placement = LifetimePlacement::ByLifetime;
        let pids: std::collections::BTreeSet<Option<u16>> = reqs(&c)
            .iter()
            .filter(|q| q.op == OpKind::Write)
            .map(|q| q.placement)
            .collect();
        assert_eq!(pids, [Some(SOC_PLACEMENT), Some(LOC_PLACEMENT)].into());
    }

    /// Random layouts, conventional and zoned, against the model; the seed is printed on
    /// failure.
    #[test]
    fn swarm_of_caches_keeps_the_model() {
        let mut tried = 0;
        for seed in 0..60u64 {
            let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
            let zones = r.gen_bool(0.4).then(|| {
                let z = [1u64 << 20, 2 << 20][r.gen_range(0..2)];
                (z, z - r.gen_range(0..3) * (256 << 10))
            });
            let c = cfg(
                CachelibConfig {
                    soc_percent: zones.is_none().then(|| r.gen_range(0.0..60.0)),
                    soc_write_percent: r.gen_range(0.0..=100.0),
                    bucket_size: Size([4096u64, 8192][r.gen_range(0..2)]),
                    region_size: zones
                        .is_none()
                        .then(|| Size([256u64 << 10, 1 << 20][r.gen_range(0..2)])),
                    get_percent: [0.0, 20.0, 70.0][r.gen_range(0..3)],
                    placement: if r.gen_bool(0.5) {
                        LifetimePlacement::ByLifetime
                    } else {
                        LifetimePlacement::None
                    },
                },
                zones,
                [4096u64, 64 << 10, 256 << 10][r.gen_range(0..3)],
            );
            let span = [8u64 << 20, 32 << 20][r.gen_range(0..2)];
            if check(&c, span).is_err() {
                continue;
            }
            tried += 1;
            let reqs: Vec<IoRequest> = Cachelib::new(&c, span, 20_000, seed).collect();
            if let Err(e) = model(&c, span, &reqs) {
                panic!("swarm seed {seed}: {e}\nconfig: {c:?}");
            }
        }
        assert!(tried >= 30, "only {tried} of the drawn caches were valid");
    }
}
