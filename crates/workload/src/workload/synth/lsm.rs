//! `lsm`: a log-structured-merge key-value store (O'Neil, Cheng, Gawlick, O'Neil, "The
//! Log-Structured Merge-Tree (LSM-Tree)", Acta Informatica 1996) with RocksDB's leveled
//! compaction, as the storage stack sees it: table files written sequentially, read by
//! compactions and point lookups, and deleted whole. Keys are not simulated: a table is
//! a slot of `table_size` bytes in a level, and levels L1… keep their tables in key
//! order, so "the tables a compaction overlaps" is a window of the next level.
//!
//! ```text
//! levels L0 … Ln−1; budget(L0) = l0_tables (a compaction trigger), budget(L1) = l1_tables,
//!   budget(Li) = budget(Li−1) · fanout, the last level's budget = the data set
//!   D = ⌊live_percent % of the table slots⌋ (the levels stop at the first budget ≥ D)
//! flush: one table to L0 (the memtable, table_size bytes, written sequentially)
//! while L0 has ≥ l0_tables tables, or some Li (0 < i < n−1) has more than its budget:
//!   L0 → L1: inputs = every L0 table and every L1 table
//!   Li → Li+1: input = Li's next table (round robin), with the window of Li+1 it overlaps:
//!              c = |Li+1|, start = j·c/|Li|, length ⌈c/|Li|⌉ + 1 (capped by c)
//!   read every input; write the outputs to Li+1 (upper + lower tables; into the last
//!   level at most up to D: the rest of the input updates keys it already holds); then
//!   delete the inputs — Trim of each table's range on a block drive, on zones a
//!   Reset Zone of every zone whose tables are all dead
//! get (get_percent of the requests): size bytes of a live table, uniform over the tables
//!   (so spread over the levels by their sizes), never one written by the event in flight
//! ```
//!
//! Mount (zones only): one Report Zones of every zone from the span's first (filter 0,
//! the ASCII traces' `ZQ0`) before the first flush, as ZenFS lists all zones when it
//! opens the device (`ZonedBlockDevice::Open`: `zbd_list_zones(…, ZBD_RO_ALL, …)`). A
//! generator gets no replies, so the store does not read the answer: it plans on every
//! zone of its span being empty, and the report's `zone_reports` shows what the drive
//! answered (a preconditioned or shared drive need not agree).
//!
//! Where tables go (the host-side allocator):
//!
//! - **block drive**: a free-extent list over the span, first fit; a table is written
//!   only on free space and its range trimmed when it is deleted.
//! - **zones** (`workload.zone_size` set; the simulator fills it from `[ftl.zoned]`):
//!   every level writes its tables into its own open zone, one table after the other
//!   at the write pointer (ZenFS keeps files of one lifetime together likewise); a zone
//!   whose tables no longer fit is closed (Finish Zone when capacity is left, so it is no
//!   longer active), and reset as soon as all its tables are dead. When a level needs a
//!   zone and only one empty zone is left (kept for the collector), the host GC copies
//!   the live tables of the closed zone with the fewest into its own open zone (reads and
//!   writes counted as host I/O) and resets it.
//!
//! With `placement = "by-lifetime"` each write carries its level as FDP placement
//! identifier (a host GC copy its table's level). [`LsmTally`] counts the bytes by class,
//! so host-side write amplification = (flush + compaction + GC writes) / flush writes.

use super::{GeneratorSpec, stream::rng_from_seed};
use super::{LifetimePlacement, SynthConfig, SynthError};
use crate::units::Size;
use crate::workload::{IoRequest, OpKind};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use std::collections::{HashSet, VecDeque};

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const SPEC: GeneratorSpec = GeneratorSpec::new(
    "lsm",
    "an LSM key-value store: sequential table files, leveled compaction, trims (resets on zones)",
    build,
)
.with_check(check);

/// `[workload.lsm]`: the store's keys (docs/config.md gives each default's source).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LsmConfig {
    /// Size of a table file (and of the memtable a flush writes).
    pub table_size: Size,
    /// Size ratio of consecutive levels.
    pub fanout: u32,
    /// L0 tables that trigger an L0 → L1 compaction.
    pub l0_tables: u32,
    /// L1's budget in tables.
    pub l1_tables: u32,
    /// The data set (the last level's budget) as a share of the table slots, 0–100.
    pub live_percent: f64,
    /// Share of the requests that are point lookups (reads), 0–100.
    pub get_percent: f64,
    /// Placement identifiers by level, or none.
    pub placement: LifetimePlacement,
}

impl Default for LsmConfig {
    fn default() -> Self {
        LsmConfig {
            table_size: Size(64 << 20),
            fanout: 10,
            l0_tables: 4,
            l1_tables: 4,
            live_percent: 50.0,
            get_percent: 0.0,
            placement: LifetimePlacement::None,
        }
    }
}

/// Empty zones the allocator keeps for the host GC.
const GC_RESERVE_ZONES: usize = 1;

/// Bytes and commands by what the store issued them for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LsmTally {
    /// Memtable flushes (the user's data).
    pub flush_bytes: u64,
    /// Compaction reads and writes.
    pub compaction_read_bytes: u64,
    pub compaction_write_bytes: u64,
    /// Host GC copies (zones).
    pub gc_read_bytes: u64,
    pub gc_write_bytes: u64,
    /// Point lookups.
    pub get_bytes: u64,
    /// Trims (block drive) and zone commands.
    pub trims: u64,
    pub zone_resets: u64,
    pub zone_finishes: u64,
    /// Report Zones commands (one, at mount, on zones).
    pub zone_reports: u64,
    /// The allocator found no room for a table: the stream ended early.
    pub out_of_space: bool,
}

impl LsmTally {
    /// (flush + compaction + GC writes) / flush writes; 0 before any flush.
    pub fn host_write_amplification(&self) -> f64 {
        if self.flush_bytes == 0 {
            return 0.0;
        }
        (self.flush_bytes + self.compaction_write_bytes + self.gc_write_bytes) as f64
            / self.flush_bytes as f64
    }

    /// One line for the report's notes.
    pub fn note(&self) -> String {
        format!(
            "lsm workload: flushes wrote {}, compactions wrote {} (read {}), host GC wrote {} \
             (read {}), gets read {}; {} trims, {} zone resets, {} zone finishes, {} zone \
             reports; host-side write amplification (flush + compaction + GC writes) / flush \
             writes = {:.3}{}",
            Size(self.flush_bytes),
            Size(self.compaction_write_bytes),
            Size(self.compaction_read_bytes),
            Size(self.gc_write_bytes),
            Size(self.gc_read_bytes),
            Size(self.get_bytes),
            self.trims,
            self.zone_resets,
            self.zone_finishes,
            self.zone_reports,
            self.host_write_amplification(),
            if self.out_of_space {
                "; the store ran out of space and stopped early (lower workload.lsm.live_percent)"
            } else {
                ""
            }
        )
    }
}

/// What a request was issued for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Flush,
    CompactionRead,
    CompactionWrite,
    GcRead,
    GcWrite,
    Trim,
    Reset,
    Finish,
    Report,
}

/// The shape of the store over a span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    pub table_bytes: u64,
    /// Zones: (zone bytes, tables per zone, zones); `None`: a block drive.
    pub zones: Option<(u64, u64, u64)>,
    /// Zones: the writable bytes of each.
    pub zone_cap_bytes: u64,
    /// Table slots in the span.
    pub slots: u64,
    /// Budgets in tables, L0 (its trigger) first; the last is the data set.
    pub budgets: Vec<u64>,
    /// Tables the store may hold at its peak (see [`check`]).
    pub peak_tables: u64,
}

/// The store's shape for `cfg` over `span_bytes`.
pub fn shape(cfg: &SynthConfig, span_bytes: u64) -> Shape {
    let c = cfg.lsm.clone().unwrap_or_default();
    let table = c.table_size.bytes().max(1);
    let zones = cfg.zone_size.map(|z| {
        let z = z.bytes().max(1);
        let cap = cfg.zone_capacity.map_or(z, |c| c.bytes()).clamp(1, z);
        (z, cap / table, span_bytes / z)
    });
    let slots = zones.map_or(span_bytes / table, |(_, per, n)| per * n);
    let data = ((slots as f64 * c.live_percent / 100.0) as u64).max(1);
    let mut budgets = vec![u64::from(c.l0_tables.max(1))];
    let mut b = u64::from(c.l1_tables.max(1));
    loop {
        if b >= data || budgets.len() >= 16 {
            budgets.push(data);
            break;
        }
        budgets.push(b);
        b = b.saturating_mul(u64::from(c.fanout.max(2)));
    }
    let n = budgets.len();
    // Every level at its budget, each middle level one over (before its compaction),
    // plus the largest compaction's outputs written before its inputs are deleted.
    let middle: u64 = budgets[1..n - 1].iter().map(|b| b + 1).sum();
    let largest = (budgets[0] + budgets[1] + 1).max(u64::from(c.fanout) + 3);
    let mut peak = budgets[0] + middle + budgets[n - 1] + largest;
    if let Some((_, per, _)) = zones {
        // A partly written zone per level and the collector's, and its reserve.
        peak += (n as u64 + 1 + GC_RESERVE_ZONES as u64) * per;
    }
    Shape {
        table_bytes: table,
        zones,
        zone_cap_bytes: cfg
            .zone_size
            .map_or(0, |z| cfg.zone_capacity.map_or(z.bytes(), |c| c.bytes())),
        slots,
        budgets,
        peak_tables: peak,
    }
}

/// `[workload.lsm]`'s keys, each error naming its key and what was expected.
pub fn check(cfg: &SynthConfig, span_bytes: u64) -> Result<(), SynthError> {
    let Some((c, section)) = super::own::own_section(cfg, SPEC.name, &cfg.lsm)? else {
        return Ok(());
    };
    let (c, bad) = (&c, |key: &str, v: &dyn std::fmt::Display, want: String| {
        section.bad(key, v, want)
    });
    for (key, v) in [
        ("live_percent", c.live_percent),
        ("get_percent", c.get_percent),
    ] {
        if !(0.0..=100.0).contains(&v) || (key == "live_percent" && v == 0.0) {
            return Err(bad(key, &v, "a percentage above 0 and at most 100".into()));
        }
    }
    if !(2..=1000).contains(&c.fanout) {
        return Err(bad("fanout", &c.fanout, "between 2 and 1000".into()));
    }
    if c.l0_tables == 0 || c.l1_tables == 0 {
        let (k, v) = if c.l0_tables == 0 {
            ("l0_tables", c.l0_tables)
        } else {
            ("l1_tables", c.l1_tables)
        };
        return Err(bad(k, &v, "at least 1 table".into()));
    }
    let align = cfg.align.bytes().max(1);
    let table = c.table_size.bytes();
    if table == 0 || !table.is_multiple_of(align) {
        return Err(bad(
            "table_size",
            &c.table_size,
            format!("a positive multiple of workload.align ({})", cfg.align),
        ));
    }
    let s = shape(cfg, span_bytes);
    if let Some((z, per, n)) = s.zones {
        if per == 0 {
            return Err(bad(
                "table_size",
                &c.table_size,
                format!(
                    "at most the zone capacity ({})",
                    Size(cfg.zone_capacity.map_or(z, |c| c.bytes()))
                ),
            ));
        }
        let need = s.budgets.len() as u64 + 1 + GC_RESERVE_ZONES as u64 + 1;
        if n < need {
            return Err(bad(
                "table_size",
                &c.table_size,
                format!(
                    "a store whose {} levels, host GC and reserve fit the span's {n} zones \
                     (it needs {need}): a larger span or smaller zones",
                    s.budgets.len()
                ),
            ));
        }
    }
    if s.peak_tables > s.slots {
        return Err(bad(
            "live_percent",
            &c.live_percent,
            format!(
                "a data set that leaves room for compaction{}: with {} levels the store may \
                 hold {} tables of {} at its peak, the span has {} slots; lower live_percent \
                 or table_size",
                if s.zones.is_some() {
                    ", the open zones and the host GC"
                } else {
                    ""
                },
                s.budgets.len(),
                s.peak_tables,
                c.table_size,
                s.slots
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
    Box::new(Lsm::new(cfg, span_bytes, count, seed))
}

/// The counts of every request class `lsm` issues for `count` requests over
/// `span_bytes` from `seed` (the generator run without a drive: cheap).
pub fn tally(cfg: &SynthConfig, span_bytes: u64, count: u64, seed: u64) -> LsmTally {
    let mut g = Lsm::new(cfg, span_bytes, count, seed);
    for _ in g.by_ref() {}
    g.tally
}

/// [`tally`] of the phase [`super::generate`] makes of `cfg` on a device of
/// `capacity_bytes` with the run's `seed` (the same span, count and generator seed).
pub fn run_tally(cfg: &SynthConfig, capacity_bytes: u64, seed: u64) -> LsmTally {
    use rand::RngCore;
    let span = super::resolve_span(cfg, capacity_bytes);
    let count = cfg.requests.unwrap_or(span / cfg.size.bytes().max(1));
    tally(cfg, span, count, rng_from_seed(seed).next_u64())
}

/// A table file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Table {
    id: u64,
    /// First byte in the span.
    at: u64,
}

/// One zone as the host allocator keeps it.
#[derive(Clone, Copy, Debug, Default)]
struct Zone {
    /// Tables written (the write pointer, in tables).
    written: u64,
    /// Live tables.
    live: u64,
    /// A level's or the collector's current zone.
    open: bool,
}

/// Where tables go.
#[derive(Clone, Debug)]
enum Space {
    /// Free extents `(start, length)` in address order.
    Block(Vec<(u64, u64)>),
    /// Zones, each level's open zone and the collector's.
    Zoned {
        zone_bytes: u64,
        /// A table slot past this is not written (capacity not a multiple of tables).
        short: bool,
        per_zone: u64,
        zones: Vec<Zone>,
        level_zone: Vec<Option<usize>>,
        gc_zone: Option<usize>,
    },
}

/// The store.
#[derive(Clone, Debug)]
pub struct Lsm {
    table_bytes: u64,
    size: u64,
    budgets: Vec<u64>,
    levels: Vec<Vec<Table>>,
    cursor: Vec<usize>,
    space: Space,
    by_lifetime: bool,
    get_share: f64,
    queue: VecDeque<(IoRequest, Class)>,
    /// Tables written or moved by the event in the queue: not readable by gets yet.
    fresh: HashSet<u64>,
    next_id: u64,
    /// The tables being written by the current flush or compaction, and their level.
    writing: (usize, Vec<Table>),
    stopped: bool,
    rng: Xoshiro256PlusPlus,
    left: u64,
    /// What has been issued so far.
    pub tally: LsmTally,
}

impl Lsm {
    /// The store for `count` requests over `[0, span_bytes)` (after [`check`]).
    pub fn new(cfg: &SynthConfig, span_bytes: u64, count: u64, seed: u64) -> Lsm {
        let c = cfg.lsm.clone().unwrap_or_default();
        let s = shape(cfg, span_bytes);
        let n = s.budgets.len();
        let space = match s.zones {
            None => Space::Block(vec![(0, s.slots * s.table_bytes)]),
            Some((z, per, zones)) => Space::Zoned {
                zone_bytes: z,
                short: per * s.table_bytes < s.zone_cap_bytes,
                per_zone: per,
                zones: vec![Zone::default(); zones as usize],
                level_zone: vec![None; n],
                gc_zone: None,
            },
        };
        let mut queue = VecDeque::new();
        if s.zones.is_some() {
            // Mount: list every zone (the module's pseudocode).
            queue.push_back((IoRequest::new(OpKind::ZoneReport(0), 0, 0), Class::Report));
        }
        Lsm {
            table_bytes: s.table_bytes,
            size: cfg.size.bytes().clamp(1, s.table_bytes),
            budgets: s.budgets,
            levels: vec![Vec::new(); n],
            cursor: vec![0; n],
            space,
            by_lifetime: c.placement == LifetimePlacement::ByLifetime,
            get_share: c.get_percent / 100.0,
            queue,
            fresh: HashSet::new(),
            next_id: 0,
            writing: (0, Vec::new()),
            stopped: false,
            rng: rng_from_seed(seed),
            left: count,
            tally: LsmTally::default(),
        }
    }

    /// Tables per level, L0 first.
    pub fn level_tables(&self) -> Vec<u64> {
        self.levels.iter().map(|l| l.len() as u64).collect()
    }

    /// Budgets per level, L0's trigger first.
    pub fn budgets(&self) -> &[u64] {
        &self.budgets
    }

    fn pid(&self, level: usize) -> Option<u16> {
        self.by_lifetime
            .then(|| u16::try_from(level).unwrap_or(u16::MAX))
    }

    /// Queues a table's sequential reads or writes in `size` chunks.
    fn table_io(&mut self, op: OpKind, at: u64, class: Class, pid: Option<u16>) {
        let mut o = 0;
        while o < self.table_bytes {
            let n = self.size.min(self.table_bytes - o);
            let mut r = IoRequest::new(op, at + o, n);
            if op == OpKind::Write {
                r = r.with_placement(pid);
            }
            self.queue.push_back((r, class));
            o += n;
        }
    }

    /// Room for a new table of `level`; `None`: the span is full.
    fn alloc(&mut self, level: usize) -> Option<u64> {
        if let Space::Block(free) = &mut self.space {
            let t = self.table_bytes;
            let k = free.iter().position(|&(_, len)| len >= t)?;
            let at = free[k].0;
            if free[k].1 == t {
                free.remove(k);
            } else {
                free[k] = (at + t, free[k].1 - t);
            }
            return Some(at);
        }
        let z = self.zone_for(Some(level))?;
        Some(self.take_slot(z))
    }

    /// The zone the next table of `level` (`None`: the collector) goes to, opening one
    /// (after collecting, for a level, when only the reserve is left).
    fn zone_for(&mut self, level: Option<usize>) -> Option<usize> {
        let Space::Zoned {
            per_zone,
            level_zone,
            gc_zone,
            zones,
            ..
        } = &self.space
        else {
            return None;
        };
        let cur = match level {
            Some(l) => level_zone[l],
            None => *gc_zone,
        };
        if let Some(z) = cur {
            if zones[z].written < *per_zone {
                return Some(z);
            }
            self.close_zone(z);
            self.set_open(level, None);
        }
        if level.is_some() && self.empty_zones() <= GC_RESERVE_ZONES {
            self.collect();
        }
        let Space::Zoned { zones, .. } = &mut self.space else {
            return None;
        };
        let e = zones.iter().position(|z| z.written == 0 && !z.open)?;
        zones[e].open = true;
        self.set_open(level, Some(e));
        Some(e)
    }

    fn set_open(&mut self, level: Option<usize>, z: Option<usize>) {
        if let Space::Zoned {
            level_zone,
            gc_zone,
            ..
        } = &mut self.space
        {
            match level {
                Some(l) => level_zone[l] = z,
                None => *gc_zone = z,
            }
        }
    }

    fn empty_zones(&self) -> usize {
        match &self.space {
            Space::Zoned { zones, .. } => {
                zones.iter().filter(|z| z.written == 0 && !z.open).count()
            }
            Space::Block(_) => 0,
        }
    }

    fn zone_start(&self, z: usize) -> u64 {
        match &self.space {
            Space::Zoned { zone_bytes, .. } => z as u64 * zone_bytes,
            Space::Block(_) => 0,
        }
    }

    /// The next slot of open zone `z`.
    fn take_slot(&mut self, z: usize) -> u64 {
        let start = self.zone_start(z);
        let t = self.table_bytes;
        let Space::Zoned { zones, .. } = &mut self.space else {
            unreachable!("take_slot is for zones")
        };
        let at = start + zones[z].written * t;
        zones[z].written += 1;
        zones[z].live += 1;
        at
    }

    /// A zone no table will be written to any more: finished if capacity is left (so it
    /// stops being active), reset if nothing in it lives.
    fn close_zone(&mut self, z: usize) {
        let start = self.zone_start(z);
        let Space::Zoned { zones, short, .. } = &mut self.space else {
            return;
        };
        zones[z].open = false;
        if *short {
            // Writes stopped short of the zone capacity: Finish Zone, so that it stops
            // counting against the drive's active zones.
            self.queue
                .push_back((IoRequest::new(OpKind::ZoneFinish, start, 0), Class::Finish));
        }
        if zones[z].live == 0 {
            zones[z].written = 0;
            self.queue
                .push_back((IoRequest::new(OpKind::ZoneReset, start, 0), Class::Reset));
        }
    }

    /// Host GC: while only the reserve is empty, the closed zone with the fewest live
    /// tables (and some dead) has them copied to the collector's zone and is reset.
    fn collect(&mut self) {
        while self.empty_zones() <= GC_RESERVE_ZONES {
            let Space::Zoned { zones, .. } = &self.space else {
                return;
            };
            let Some(v) = zones
                .iter()
                .enumerate()
                .filter(|(_, z)| !z.open && z.written > 0 && z.live < z.written)
                .min_by_key(|(i, z)| (z.live, *i))
                .map(|(i, _)| i)
            else {
                return;
            };
            let start = self.zone_start(v);
            let end = start + self.zone_bytes();
            // The live tables: in the levels, and the outputs of the compaction in
            // flight (written, not yet in their level); `l` = the level, `None` = the
            // outputs (of level `self.writing.0`).
            let in_victim = |t: &Table| (start..end).contains(&t.at);
            let mut moving: Vec<(Option<usize>, usize)> = Vec::new();
            for (l, ts) in self.levels.iter().enumerate() {
                moving.extend(
                    ts.iter()
                        .enumerate()
                        .filter(|(_, t)| in_victim(t))
                        .map(|(k, _)| (Some(l), k)),
                );
            }
            moving.extend(
                self.writing
                    .1
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| in_victim(t))
                    .map(|(k, _)| (None, k)),
            );
            for (l, k) in moving {
                let Some(z) = self.zone_for(None) else {
                    return;
                };
                let (level, old) = match l {
                    Some(l) => (l, self.levels[l][k]),
                    None => (self.writing.0, self.writing.1[k]),
                };
                let at = self.take_slot(z);
                self.table_io(OpKind::Read, old.at, Class::GcRead, None);
                self.table_io(OpKind::Write, at, Class::GcWrite, self.pid(level));
                match l {
                    Some(l) => self.levels[l][k].at = at,
                    None => self.writing.1[k].at = at,
                }
                self.fresh.insert(old.id);
                if let Space::Zoned { zones, .. } = &mut self.space {
                    zones[v].live -= 1;
                }
            }
            if let Space::Zoned { zones, .. } = &mut self.space {
                zones[v].written = 0;
            }
            self.queue
                .push_back((IoRequest::new(OpKind::ZoneReset, start, 0), Class::Reset));
        }
    }

    fn zone_bytes(&self) -> u64 {
        match &self.space {
            Space::Zoned { zone_bytes, .. } => *zone_bytes,
            Space::Block(_) => 0,
        }
    }

    /// A table's space is given back: trimmed, or its zone reset when all its tables are
    /// dead (and no more will be written there).
    fn delete(&mut self, t: Table) {
        let tb = self.table_bytes;
        match &mut self.space {
            Space::Block(free) => {
                let k = free.partition_point(|&(s, _)| s < t.at);
                free.insert(k, (t.at, tb));
                // Merge with the neighbours.
                if k + 1 < free.len() && free[k].0 + free[k].1 == free[k + 1].0 {
                    free[k].1 += free[k + 1].1;
                    free.remove(k + 1);
                }
                if k > 0 && free[k - 1].0 + free[k - 1].1 == free[k].0 {
                    free[k - 1].1 += free[k].1;
                    free.remove(k);
                }
                self.queue
                    .push_back((IoRequest::new(OpKind::Trim, t.at, tb), Class::Trim));
            }
            Space::Zoned {
                zone_bytes, zones, ..
            } => {
                let z = (t.at / *zone_bytes) as usize;
                zones[z].live -= 1;
                if zones[z].live == 0 && !zones[z].open {
                    zones[z].written = 0;
                    let start = z as u64 * *zone_bytes;
                    self.queue
                        .push_back((IoRequest::new(OpKind::ZoneReset, start, 0), Class::Reset));
                }
            }
        }
    }

    /// `k` new tables for `level`, queued for writing; `None` if the span is full.
    fn write_tables(&mut self, level: usize, k: u64, class: Class) -> Option<Vec<Table>> {
        // Kept where the host GC sees them: they live before they join their level.
        self.writing = (level, Vec::new());
        for _ in 0..k {
            let at = self.alloc(level)?;
            let t = Table {
                id: self.next_id,
                at,
            };
            self.next_id += 1;
            self.table_io(OpKind::Write, at, class, self.pid(level));
            self.fresh.insert(t.id);
            self.writing.1.push(t);
        }
        Some(std::mem::take(&mut self.writing.1))
    }

    /// The next write-path event: a flush and the compactions it triggers. `false`: the
    /// span is full.
    fn event(&mut self) -> bool {
        let Some(t) = self.write_tables(0, 1, Class::Flush) else {
            return false;
        };
        self.levels[0].extend(t);
        let n = self.levels.len();
        loop {
            if self.levels[0].len() as u64 >= self.budgets[0] {
                if !self.compact(0) {
                    return false;
                }
            } else if let Some(i) =
                (1..n - 1).find(|&i| self.levels[i].len() as u64 > self.budgets[i])
            {
                if !self.compact(i) {
                    return false;
                }
            } else {
                return true;
            }
        }
    }

    /// Level `i` into `i + 1`; `false` if the outputs found no room.
    fn compact(&mut self, i: usize) -> bool {
        let last = i + 1 == self.levels.len() - 1;
        let lower = self.levels[i + 1].len();
        let (upper, j, window) = if i == 0 {
            (self.levels[0].len(), 0, 0..lower)
        } else {
            let ci = self.levels[i].len();
            let j = self.cursor[i] % ci;
            let w = if lower == 0 {
                0..0
            } else {
                let start = j * lower / ci;
                start..(start + lower.div_ceil(ci) + 1).min(lower)
            };
            (1, j, w)
        };
        let inputs: Vec<Table> = if i == 0 {
            self.levels[0].clone()
        } else {
            vec![self.levels[i][j]]
        }
        .into_iter()
        .chain(self.levels[i + 1][window.clone()].iter().copied())
        .collect();
        for t in &inputs {
            self.table_io(OpKind::Read, t.at, Class::CompactionRead, None);
        }
        let merged = (upper + window.len()) as u64;
        let outputs = if last {
            let room = self.budgets[i + 1].saturating_sub(lower as u64);
            merged.min(window.len() as u64 + room).max(1)
        } else {
            merged
        };
        let Some(out) = self.write_tables(i + 1, outputs, Class::CompactionWrite) else {
            return false;
        };
        // The inputs' current places (a host GC may have moved them meanwhile).
        let ids: HashSet<u64> = inputs.iter().map(|t| t.id).collect();
        let mut dead: Vec<Table> = Vec::new();
        for l in [i, i + 1] {
            dead.extend(self.levels[l].iter().filter(|t| ids.contains(&t.id)));
        }
        if i == 0 {
            self.levels[0].clear();
        } else {
            self.levels[i].remove(j);
            self.cursor[i] = j;
        }
        self.levels[i + 1].splice(window, out);
        for t in dead {
            self.delete(t);
        }
        true
    }

    /// A point lookup: `size` bytes of a live table not touched by the event in flight.
    fn get(&mut self) -> Option<IoRequest> {
        let stable: Vec<u64> = self
            .levels
            .iter()
            .flatten()
            .filter(|t| !self.fresh.contains(&t.id))
            .map(|t| t.at)
            .collect();
        if stable.is_empty() {
            return None;
        }
        let at = stable[self.rng.gen_range(0..stable.len())];
        let chunks = self.table_bytes / self.size;
        let o = self.rng.gen_range(0..chunks.max(1)) * self.size;
        Some(IoRequest::new(OpKind::Read, at + o, self.size))
    }
}

impl Iterator for Lsm {
    type Item = IoRequest;

    fn next(&mut self) -> Option<IoRequest> {
        if self.left == 0 {
            return None;
        }
        if self.queue.is_empty() {
            self.fresh.clear();
            if self.stopped || !self.event() {
                self.stopped = true;
                self.tally.out_of_space = true;
                if self.queue.is_empty() {
                    return None;
                }
            }
        }
        self.left -= 1;
        if self.get_share > 0.0
            && self.rng.gen_bool(self.get_share.min(1.0))
            && let Some(r) = self.get()
        {
            self.tally.get_bytes += r.size_bytes;
            return Some(r);
        }
        let (r, class) = self.queue.pop_front()?;
        let t = &mut self.tally;
        match class {
            Class::Flush => t.flush_bytes += r.size_bytes,
            Class::CompactionRead => t.compaction_read_bytes += r.size_bytes,
            Class::CompactionWrite => t.compaction_write_bytes += r.size_bytes,
            Class::GcRead => t.gc_read_bytes += r.size_bytes,
            Class::GcWrite => t.gc_write_bytes += r.size_bytes,
            Class::Trim => t.trims += 1,
            Class::Reset => t.zone_resets += 1,
            Class::Finish => t.zone_finishes += 1,
            Class::Report => t.zone_reports += 1,
        }
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    const BLOCK: u64 = 4096;

    /// A small model of what the drive holds: which 4 KiB blocks carry live data and,
    /// on zones, each zone's write pointer. Every request must keep it consistent.
    struct Model {
        live: Vec<bool>,
        /// (zone bytes, capacity, write pointers) on zones.
        zones: Option<(u64, u64, Vec<u64>)>,
        /// Requests applied so far.
        seen: u64,
    }

    impl Model {
        fn new(span: u64, zones: Option<(u64, u64)>) -> Model {
            Model {
                live: vec![false; (span / BLOCK) as usize],
                zones: zones.map(|(z, c)| (z, c, vec![0; (span / z) as usize])),
                seen: 0,
            }
        }

        fn blocks(r: &IoRequest) -> std::ops::Range<usize> {
            (r.offset_bytes / BLOCK) as usize
                ..(r.offset_bytes + r.size_bytes).div_ceil(BLOCK) as usize
        }

        fn apply(&mut self, r: &IoRequest) -> Result<(), String> {
            self.seen += 1;
            match r.op {
                // Mount on zones: every zone listed, first of all and once.
                OpKind::ZoneReport(0)
                    if self.zones.is_some() && r.offset_bytes == 0 && self.seen == 1 => {}
                OpKind::Write => {
                    if let Some((z, cap, wp)) = &mut self.zones {
                        let k = (r.offset_bytes / *z) as usize;
                        let rel = r.offset_bytes - k as u64 * *z;
                        if rel != wp[k] || rel + r.size_bytes > *cap {
                            return Err(format!("{r:?} off zone {k}'s write pointer {}", wp[k]));
                        }
                        wp[k] += r.size_bytes;
                    }
                    for b in Self::blocks(r) {
                        if self.live[b] {
                            return Err(format!("{r:?} writes over live block {b}"));
                        }
                        self.live[b] = true;
                    }
                }
                OpKind::Trim => {
                    for b in Self::blocks(r) {
                        if !self.live[b] {
                            return Err(format!(
                                "{r:?} trims dead block {b} (twice, or never written)"
                            ));
                        }
                        self.live[b] = false;
                    }
                }
                OpKind::Read => {
                    for b in Self::blocks(r) {
                        if !self.live[b] {
                            return Err(format!("{r:?} reads dead block {b}"));
                        }
                    }
                }
                OpKind::ZoneReset | OpKind::ZoneFinish => {
                    let Some((z, cap, wp)) = &mut self.zones else {
                        return Err(format!("{r:?} on a block drive"));
                    };
                    let k = (r.offset_bytes / *z) as usize;
                    if !r.offset_bytes.is_multiple_of(*z) {
                        return Err(format!("{r:?} not at a zone start"));
                    }
                    if r.op == OpKind::ZoneFinish {
                        wp[k] = *cap;
                    } else {
                        wp[k] = 0;
                        let first = r.offset_bytes / BLOCK;
                        for b in first..first + *z / BLOCK {
                            self.live[b as usize] = false;
                        }
                    }
                }
                _ => return Err(format!("unexpected {r:?}")),
            }
            Ok(())
        }

        fn live_bytes(&self) -> u64 {
            self.live.iter().filter(|&&l| l).count() as u64 * BLOCK
        }
    }

    fn cfg(lsm: LsmConfig, zones: Option<(u64, u64)>, size: u64) -> SynthConfig {
        SynthConfig {
            kind: SPEC.kind(),
            size: Size(size),
            zone_size: zones.map(|z| Size(z.0)),
            zone_capacity: zones.map(|z| Size(z.1)),
            lsm: Some(lsm),
            ..SynthConfig::default()
        }
    }

    /// Runs `requests` requests (then the event in flight to its end) through the model,
    /// checking at every event boundary that the levels keep their budgets and that the
    /// live data is exactly the tables the store holds (every deleted table's space was
    /// given back once, by a trim or a reset).
    fn run(c: &SynthConfig, span: u64, requests: u64, seed: u64) -> Result<Lsm, String> {
        let mut g = Lsm::new(c, span, u64::MAX, seed);
        let zones = c
            .zone_size
            .map(|z| (z.bytes(), c.zone_capacity.unwrap_or(z).bytes()));
        let mut m = Model::new(span, zones);
        let fanout = u64::from(c.lsm.as_ref().unwrap().fanout);
        let mut n = 0;
        while n < requests || !g.queue.is_empty() {
            let Some(r) = g.next() else { break };
            n += 1;
            m.apply(&r)?;
            if g.queue.is_empty() {
                let b = g.budgets().to_vec();
                let t = g.level_tables();
                let last = t.len() - 1;
                if t[0] >= b[0] {
                    return Err(format!("L0 holds {} tables, trigger {}", t[0], b[0]));
                }
                for i in 1..t.len() {
                    if t[i] > b[i] {
                        return Err(format!(
                            "L{i} holds {} tables over its budget {}",
                            t[i], b[i]
                        ));
                    }
                    if i >= 2 && b[i] > fanout * b[i - 1] {
                        return Err(format!(
                            "L{i}'s budget {} over fanout × L{}'s {}",
                            b[i],
                            i - 1,
                            b[i - 1]
                        ));
                    }
                }
                let _ = last;
                // No live table lost (a reset of a zone holding one would show here).
                for tb in g.levels.iter().flatten() {
                    let first = (tb.at / BLOCK) as usize;
                    if !m.live[first..first + (g.table_bytes / BLOCK) as usize]
                        .iter()
                        .all(|&l| l)
                    {
                        return Err(format!("table {tb:?} is not all on the drive"));
                    }
                }
                let tables: u64 = t.iter().sum();
                if zones.is_none() && m.live_bytes() != tables * g.table_bytes {
                    return Err(format!(
                        "{} live bytes on the drive, {} tables of {} in the store",
                        m.live_bytes(),
                        tables,
                        g.table_bytes
                    ));
                }
            }
        }
        if g.tally.out_of_space {
            return Err("the store ran out of space".into());
        }
        Ok(g)
    }

    #[test]
    fn block_drive_tables_never_overwrite_live_data_and_each_is_trimmed_once() {
        let lsm = LsmConfig {
            table_size: Size(1 << 20),
            get_percent: 20.0,
            ..LsmConfig::default()
        };
        let c = cfg(lsm, None, 256 << 10);
        check(&c, 128 << 20).unwrap();
        let g = run(&c, 128 << 20, 20_000, 7).unwrap();
        let t = g.tally;
        assert!(
            t.trims > 100 && t.compaction_write_bytes > t.flush_bytes,
            "{t:?}"
        );
        assert_eq!(
            t.gc_write_bytes + t.zone_resets + t.zone_reports,
            0,
            "{t:?}"
        );
        assert!(t.get_bytes > 0, "{t:?}");
        // The levels grew past L1: a compaction chain ran.
        assert!(g.level_tables().len() >= 3, "{:?}", g.level_tables());
    }

    #[test]
    fn zones_are_written_at_their_pointers_reset_when_dead_and_collected_by_the_host() {
        let lsm = LsmConfig {
            table_size: Size(1 << 20),
            live_percent: 30.0,
            get_percent: 10.0,
            ..LsmConfig::default()
        };
        // Capacity 3.5 tables: each zone is finished when its third table is in.
        let c = cfg(lsm, Some((4 << 20, 3584 << 10)), 256 << 10);
        check(&c, 256 << 20).map_err(|e| e.to_string()).unwrap();
        let g = run(&c, 256 << 20, 40_000, 3).unwrap();
        let t = g.tally;
        assert_eq!(t.trims, 0, "{t:?}");
        assert!(t.zone_resets > 10 && t.zone_finishes > 10, "{t:?}");
        assert!(
            t.gc_write_bytes > 0 && t.gc_write_bytes == t.gc_read_bytes,
            "{t:?}"
        );
        assert!(t.host_write_amplification() > 1.0);
        // Mounted with one Report Zones of every zone, its first request.
        assert_eq!(t.zone_reports, 1, "{t:?}");
        let first = Lsm::new(&c, 256 << 20, 1, 3).next().unwrap();
        assert_eq!((first.op, first.offset_bytes), (OpKind::ZoneReport(0), 0));
    }

    #[test]
    fn by_lifetime_tags_each_write_with_its_level() {
        let lsm = LsmConfig {
            table_size: Size(1 << 20),
            placement: LifetimePlacement::ByLifetime,
            ..LsmConfig::default()
        };
        let c = cfg(lsm, None, 1 << 20);
        let reqs: Vec<IoRequest> = Lsm::new(&c, 128 << 20, 5000, 1).collect();
        let pids: HashSet<Option<u16>> = reqs
            .iter()
            .filter(|r| r.op == OpKind::Write)
            .map(|r| r.placement)
            .collect();
        assert!(
            pids.contains(&Some(0)) && pids.contains(&Some(2)),
            "{pids:?}"
        );
        assert!(!pids.contains(&None));
        assert!(
            reqs.iter()
                .filter(|r| r.op != OpKind::Write)
                .all(|r| r.placement.is_none())
        );
        // Without the key: no identifiers at all.
        let c = cfg(
            LsmConfig {
                table_size: Size(1 << 20),
                ..LsmConfig::default()
            },
            None,
            1 << 20,
        );
        assert!(Lsm::new(&c, 128 << 20, 5000, 1).all(|r| r.placement.is_none()));
    }

    #[test]
    fn a_data_set_without_room_for_compaction_is_refused_naming_the_key() {
        let lsm = LsmConfig {
            table_size: Size(1 << 20),
            live_percent: 90.0,
            ..LsmConfig::default()
        };
        let e = check(&cfg(lsm, None, 4096), 64 << 20)
            .unwrap_err()
            .to_string();
        assert!(e.contains("workload.lsm.live_percent"), "{e}");
        let lsm = LsmConfig {
            table_size: Size(8 << 20),
            ..LsmConfig::default()
        };
        let e = check(&cfg(lsm, Some((8 << 20, 6 << 20)), 4096), 256 << 20)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("workload.lsm.table_size") && e.contains("zone capacity"),
            "{e}"
        );
    }

    /// Random valid stores, block and zoned, each checked against the model; the seed is
    /// printed on failure.
    #[test]
    fn swarm_of_stores_keeps_the_model() {
        let mut tried = 0;
        for seed in 0..60u64 {
            let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
            let table = [256u64 << 10, 512 << 10, 1 << 20][r.gen_range(0..3)];
            let lsm = LsmConfig {
                table_size: Size(table),
                fanout: r.gen_range(2..12),
                l0_tables: r.gen_range(1..6),
                l1_tables: r.gen_range(1..6),
                live_percent: r.gen_range(5.0..45.0),
                get_percent: [0.0, 10.0, 50.0][r.gen_range(0..3)],
                placement: LifetimePlacement::None,
            };
            let zones = r.gen_bool(0.5).then(|| {
                let z = [2u64 << 20, 4 << 20][r.gen_range(0..2)];
                (z, z - r.gen_range(0..4) * (256 << 10))
            });
            let span = [64u64 << 20, 128 << 20][r.gen_range(0..2)];
            let c = cfg(lsm, zones, [64u64 << 10, 256 << 10][r.gen_range(0..2)]);
            if check(&c, span).is_err() {
                continue;
            }
            tried += 1;
            if let Err(e) = run(&c, span, 6000, seed) {
                panic!("swarm seed {seed}: {e}\nconfig: {c:?}");
            }
        }
        assert!(tried >= 20, "only {tried} of the drawn stores were valid");
    }
}
