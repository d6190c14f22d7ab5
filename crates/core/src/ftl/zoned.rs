//! A zoned drive (NVMe Zoned Namespaces): the host writes each zone sequentially at its
//! write pointer and resets whole zones, so the drive keeps no page map and runs no GC.
//!
//! NVM Express Zoned Namespace Command Set 1.0 (TP4053, 2020), in its sections on the zone
//! model (zone size, zone capacity, write pointer), the zone states and their
//! transitions, the Max Open / Max Active Resources, Zone Append, Zone Management Send
//! (Open, Close, Finish, Reset) and the write checks with their statuses (0xB8–0xBF). The
//! state machine, the limits with the controller's auto-close and the
//! statuses live in `zns.rs` ([`Zones`]); this file puts zones on flash. Bjørling et al.,
//! "ZNS: Avoiding the Block Interface Tax for Flash-based SSDs" (USENIX ATC 2021) §2–§3
//! describe the same mapping: a zone is a set of erase blocks written in order, spread
//! over a number of dies, erased as a whole on reset.
//!
//! ```text
//! zone z:      dies (z·d + i) mod D for i < d   (d = dies_per_zone, D = dies)
//!              blocks: m = ⌈capacity / (d · pages_per_block)⌉ per die, taken from
//!              each die's free pool at the zone's first write (least-erased first)
//! page k of z: stripe s = k / (d·ppb), r = k mod (d·ppb)
//!              block = blocks[z][s·d + r mod d], page = r / d     (consecutive pages
//!              go to consecutive dies, so a zone spread over d dies programs d at once)
//! write(lba, n):   Zones.write (state, pointer, limits: a refusal changes nothing);
//!                  program pages wp..wp+n of the zone
//! append(zslba, n): Zones.append → first LBA; program as a write; the completion
//!                  carries that LBA
//! finish(z):   Zones.finish → pad; program the pad pages (no host data, counted in WA
//!              as Rmw programs and in zns.finish_pad_blocks), then mark them invalid
//! reset(z):    Zones.reset; invalidate the zone's data; erase its programmed blocks;
//!              every block back to its die's free pool
//! read(lpn):   below the zone's last host-written page: its page; else deallocated
//! mount:       block → (zone, slot) from its first OOB tag (a pad page's tag is its
//!              slot, above every logical page); a zone's pages on flash are a prefix:
//!              its length is the write pointer, its first pad page the data's end;
//!              not a prefix = a reset cut short (finished now); padding short of the
//!              capacity = a finish cut short (padded now); state Empty/Closed/Full
//! ```
//!
//! Choices the specification leaves open, with the one taken:
//! - A logical block is one flash page (the report's page counters are logical blocks);
//!   a write not on whole pages is widened to the pages it touches, as everywhere.
//! - Zone size 0 (the default) is one erase block on each of the zone's dies, the
//!   smallest zone that flash can reset without copying; zone capacity 0 is the zone
//!   size. Pages of a zone's last blocks beyond its capacity stay erased.
//! - Limits above the zone count are the zone count (no limit in effect).
//! - Trims are accepted and change nothing (a zone's data goes only by reset).
//! - Reset erases only the zone's programmed blocks; an erase is a host-caused erase
//!   (`Cause::Host`): the host asked for it, no GC did.
//! - Reads are per page and may cross zone boundaries (as with Read Across Zone
//!   Boundaries); a read of an offline zone is not modelled (no media failures here).
//! - A write buffer in front would reorder writes off the pointer; the device refuses
//!   the combination.

use super::feasible::Need;
use super::spec::{self, Caps, FtlSpec, Section};
use super::{Ftl, FtlConfig, FtlError, ZoneCommand, ZoneReply};
use crate::nand::{BlockId, Cause, Geometry, Lpn, Nand, Ppn};
use crate::spec::{ConfigError, Counter, Counters, check_range};
use crate::units::Size;
use crate::zns::{self, ZnsStatus, ZoneLayout, Zones};
use serde::{Deserialize, Serialize};

/// Reported as `zns.reset_erased_blocks`.
pub const RESET_ERASED_BLOCKS: Counter = Counter::total(
    "zns.reset_erased_blocks",
    "blocks",
    "erase blocks zone resets erased",
);
/// Reported as `zns.appends`.
pub const APPENDS: Counter = Counter::total(
    "zns.appends",
    "commands",
    "Zone Append commands performed (each completion carries its LBA)",
);
/// The highest padding tag ([`ZonedFtl::pad_tag`]); `u32::MAX` itself would wrap the
/// NAND's stored `lpn + 1` to its "no tag" value.
const PAD_TAG_TOP: u32 = u32::MAX - 1;

/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[RESET_ERASED_BLOCKS, APPENDS, zns::INVALID_OPCODE];

/// The zoned FTL in the registry.
pub const SPEC: FtlSpec = FtlSpec {
    name: "zoned",
    description: "NVMe zoned namespace: zones written at the write pointer, reset whole, no page map, no GC",
    caps: Caps {
        gc_policy: false,
        free_block_watermarks: false,
        gc_schedules: spec::FOREGROUND_ONLY,
        hot_cold: false,
        static_wl: false,
        page_layout: false,
        maps_blocks: false,
        writes_at_offsets: false,
        tags_beyond_logical_only: false,
    },
    sections: &[Section {
        key: "zoned",
        what: "the zones of a zoned namespace",
    }],
    validate: |cfg| cfg.zoned.validate(),
    need: |cfg, geo, logical_pages| match Shape::new(&cfg.zoned, geo, logical_pages) {
        Ok(s) => Need {
            unit_planes: geo.planes_per_die,
            need: s.die_need(),
            have: geo.blocks_per_plane as u64 * geo.planes_per_die as u64,
            what: "the erase blocks of the zones on their busiest die",
        },
        // The shape's own error is reported by the constructor; here it cannot fit.
        Err(_) => Need::device(geo, u64::MAX, "zones of the configured shape"),
    },
    memory_bytes: |cfg, geo, logical_pages| match Shape::new(&cfg.zoned, geo, logical_pages) {
        // Per zone: its block list, write pointer, state and last data page.
        Ok(s) => s.layout.zones as u64 * (s.blocks_per_zone() * spec::ENTRY_BYTES + 24),
        Err(_) => 0,
    },
    counters: &[COUNTERS, zns::ZONE_COUNTERS, &zns::ERROR_COUNTERS],
    build: |cfg, geo, logical_pages, _| {
        ZonedFtl::new(cfg, geo, logical_pages).map(|f| Box::new(f) as _)
    },
};

/// `[ftl.zoned]`: the zones of the namespace and how they sit on the dies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ZonedConfig {
    /// Bytes between zone starts (a multiple of the page size); 0 = one erase block on
    /// each of the zone's dies.
    pub zone_size: Size,
    /// Writable bytes at the start of each zone (≤ the zone size); 0 = the zone size.
    pub zone_capacity: Size,
    /// Most zones open at once (Max Open Resources); 0 = no limit.
    pub max_open: u32,
    /// Most zones active at once (Max Active Resources); 0 = no limit.
    pub max_active: u32,
    /// Dies a zone's erase blocks are spread over, 1 … all; 0 = all dies.
    pub dies_per_zone: u32,
    /// The controller closes its oldest implicitly opened zone when a write would
    /// exceed `max_open`.
    pub auto_close: bool,
}

impl Default for ZonedConfig {
    /// Western Digital Ultrastar DC ZN540's limits (14 open, 14 active; docs/config.md),
    /// zones of one erase block per die over all dies, auto-close on (every drive).
    fn default() -> Self {
        ZonedConfig {
            zone_size: Size(0),
            zone_capacity: Size(0),
            max_open: 14,
            max_active: 14,
            dies_per_zone: 0,
            auto_close: true,
        }
    }
}

impl ZonedConfig {
    /// Whether every setting is the default (the config echo leaves the table out then,
    /// so designs without a zoned drive report as before).
    pub fn is_default(&self) -> bool {
        *self == ZonedConfig::default()
    }

    /// Checks the settings that do not depend on the device.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.zone_capacity.0 > 0 && self.zone_size.0 > 0 && self.zone_capacity > self.zone_size {
            return Err(ConfigError::value(
                "ftl.zoned.zone_capacity",
                self.zone_capacity.0,
                format!("at most ftl.zoned.zone_size = {} bytes", self.zone_size.0),
            ));
        }
        if self.max_active != 0 && (self.max_open == 0 || self.max_open > self.max_active) {
            return Err(ConfigError::value(
                "ftl.zoned.max_open",
                self.max_open,
                format!(
                    "between 1 and ftl.zoned.max_active = {} (an open zone is also active)",
                    self.max_active
                ),
            ));
        }
        check_range(
            "ftl.zoned.dies_per_zone",
            self.dies_per_zone,
            0,
            1 << 20,
            "dies (0 = all)",
        )
    }
}

/// The zone size and capacity in bytes that `cfg` gives on `geo` (its defaults resolved),
/// for a host that lays out its data in zones (`zoned-seq`).
pub fn zone_bytes(cfg: &ZonedConfig, geo: &Geometry) -> (u64, u64) {
    let d = match cfg.dies_per_zone {
        0 => geo.dies(),
        d => d.min(geo.dies()),
    };
    let size = match cfg.zone_size.0 {
        0 => d as u64 * geo.pages_per_block as u64 * geo.page_size_bytes as u64,
        s => s,
    };
    let cap = match cfg.zone_capacity.0 {
        0 => size,
        c => c,
    };
    (size, cap)
}

/// The zones' shape on a device: the layout in pages and the blocks each zone takes.
#[derive(Clone, Copy, Debug)]
struct Shape {
    layout: ZoneLayout,
    dies: u32,
    dies_per_zone: u32,
    pages_per_block: u32,
    /// Blocks per die per zone.
    per_die: u32,
}

impl Shape {
    fn new(cfg: &ZonedConfig, geo: &Geometry, logical_pages: u64) -> Result<Shape, ConfigError> {
        let dies = geo.dies();
        let d = if cfg.dies_per_zone == 0 {
            dies
        } else {
            cfg.dies_per_zone
        };
        if d > dies {
            return Err(ConfigError::value(
                "ftl.zoned.dies_per_zone",
                d,
                format!("between 1 and the device's {dies} dies (0 = all)"),
            ));
        }
        let page = geo.page_size_bytes as u64;
        let ppb = geo.pages_per_block;
        let pages = |key: &str, s: Size, default: u64| -> Result<u64, ConfigError> {
            if s.0 == 0 {
                return Ok(default);
            }
            if !s.0.is_multiple_of(page) {
                return Err(ConfigError::value(
                    key,
                    s.0,
                    format!("a multiple of the page size ({page} bytes)"),
                ));
            }
            Ok(s.0 / page)
        };
        let size = pages("ftl.zoned.zone_size", cfg.zone_size, d as u64 * ppb as u64)?;
        let cap = pages("ftl.zoned.zone_capacity", cfg.zone_capacity, size)?;
        if cap > size {
            return Err(ConfigError::value(
                "ftl.zoned.zone_capacity",
                cap * page,
                format!("at most the zone size ({} bytes)", size * page),
            ));
        }
        let zones = logical_pages / size;
        if zones == 0 || zones > u32::MAX as u64 {
            return Err(ConfigError::value(
                "ftl.zoned.zone_size",
                size * page,
                format!(
                    "at most the logical capacity ({} bytes), leaving at least one zone",
                    logical_pages * page
                ),
            ));
        }
        let zones = zones as u32;
        let clamp = |limit: u32| if limit > zones { zones } else { limit };
        let layout = ZoneLayout {
            zones,
            zone_size_blocks: size,
            zone_capacity_blocks: cap,
            max_open: clamp(cfg.max_open),
            max_active: clamp(cfg.max_active),
            auto_close: cfg.auto_close,
        };
        layout.validate("ftl.zoned")?;
        let per_die = cap.div_ceil(d as u64 * ppb as u64) as u32;
        Ok(Shape {
            layout,
            dies,
            dies_per_zone: d,
            pages_per_block: ppb,
            per_die,
        })
    }

    /// Where page `k` of a zone lies: the index of its block in the zone's block list
    /// and the page in that block.
    #[inline]
    fn slot(&self, k: u64) -> (u64, u64) {
        let d = self.dies_per_zone as u64;
        let ppb = self.pages_per_block as u64;
        let (stripe, r) = (k / (d * ppb), k % (d * ppb));
        (stripe * d + r % d, r / d)
    }

    /// The zone page at `page` of the block in list position `slot` (inverse of
    /// [`Shape::slot`]).
    fn page_of(&self, slot: u64, page: u64) -> u64 {
        let d = self.dies_per_zone as u64;
        (slot / d) * d * self.pages_per_block as u64 + page * d + slot % d
    }

    fn blocks_per_zone(&self) -> u64 {
        self.per_die as u64 * self.dies_per_zone as u64
    }

    /// The die of the `i`-th block group of zone `z`.
    fn die(&self, zone: u32, i: u32) -> u32 {
        ((zone as u64 * self.dies_per_zone as u64 + i as u64) % self.dies as u64) as u32
    }

    /// Blocks the busiest die must hold when every zone is written.
    fn die_need(&self) -> u64 {
        let mut use_per_die = vec![0u64; self.dies as usize];
        for z in 0..self.layout.zones {
            for i in 0..self.dies_per_zone {
                use_per_die[self.die(z, i) as usize] += self.per_die as u64;
            }
        }
        use_per_die.into_iter().max().unwrap_or(0)
    }
}

/// The zoned FTL: the zones' states ([`Zones`]) and, per zone, the erase blocks it
/// holds and how far its host data reaches.
#[derive(Clone)]
pub struct ZonedFtl {
    shape: Shape,
    logical_pages: u64,
    zones: Zones,
    /// Each zone's blocks in stripe order (empty until its first write or finish).
    blocks: Vec<Vec<u32>>,
    /// Pages of host data from each zone's start (the padding of a finish beyond it).
    data_end: Vec<u64>,
    /// Free blocks of each die.
    free: Vec<Vec<u32>>,
    reset_erased_blocks: u64,
    appends: u64,
}

impl ZonedFtl {
    /// A zoned FTL over an erased array of shape `geo`, exporting `logical_pages`.
    pub fn new(
        cfg: &FtlConfig,
        geo: &Geometry,
        logical_pages: u64,
    ) -> Result<ZonedFtl, ConfigError> {
        let shape = Shape::new(&cfg.zoned, geo, logical_pages)?;
        let per_die_blocks = geo.blocks_per_plane as u64 * geo.planes_per_die as u64;
        if shape.die_need() > per_die_blocks {
            return Err(super::spec::unfit(
                "zoned",
                format!(
                    "ftl.zoned: {} zones of {} blocks on {} of {} dies need {} blocks on a die, \
                 which has {per_die_blocks} (smaller zones, more dies per zone or less \
                 logical capacity)",
                    shape.layout.zones,
                    shape.blocks_per_zone(),
                    shape.dies_per_zone,
                    shape.dies,
                    shape.die_need()
                ),
            ));
        }
        // Padding tags count down from PAD_TAG_TOP, one per zone block slot; they
        // must stay above every logical page.
        let slots = shape.layout.zones as u64 * shape.blocks_per_zone();
        if logical_pages + slots >= PAD_TAG_TOP as u64 {
            return Err(super::spec::unfit(
                "zoned",
                format!(
                    "ftl.zoned: {logical_pages} logical pages and {slots} zone blocks do not \
                     fit the 32-bit OOB tags"
                ),
            ));
        }
        let mut free = vec![Vec::new(); shape.dies as usize];
        for b in 0..geo.blocks() {
            let die = geo.die_of_plane(geo.plane_of(BlockId(b)));
            free[die as usize].push(b);
        }
        let zones = Zones::new(shape.layout)?;
        Ok(ZonedFtl {
            shape,
            logical_pages,
            zones,
            blocks: vec![Vec::new(); shape.layout.zones as usize],
            data_end: vec![0; shape.layout.zones as usize],
            free,
            reset_erased_blocks: 0,
            appends: 0,
        })
    }

    fn zone_size(&self) -> u64 {
        self.shape.layout.zone_size_blocks
    }

    /// The physical page of page `k` of `zone` (its blocks allocated).
    #[inline]
    fn ppn(&self, zone: u32, k: u64) -> Ppn {
        let (slot, page) = self.shape.slot(k);
        let block = self.blocks[zone as usize][slot as usize];
        Ppn((block as u64 * self.shape.pages_per_block as u64 + page) as u32)
    }

    /// The OOB tag of page `k` of `zone` when a finish pads it: not a logical block (the
    /// tags from `u32::MAX - 1` down are above every logical page, checked at build) but
    /// the zone's block slot, so a mount tells padding from data and knows the zone of a
    /// block that holds padding only.
    fn pad_tag(&self, zone: u32, k: u64) -> Lpn {
        let slot = zone as u64 * self.shape.blocks_per_zone() + self.shape.slot(k).0;
        Lpn(PAD_TAG_TOP - slot as u32)
    }

    /// Where `lpn`'s host data is, if it has any.
    fn locate(&self, lpn: Lpn) -> Option<Ppn> {
        let zone = lpn.0 as u64 / self.zone_size();
        if zone >= self.shape.layout.zones as u64 {
            return None;
        }
        let k = lpn.0 as u64 % self.zone_size();
        (k < self.data_end[zone as usize]).then(|| self.ppn(zone as u32, k))
    }

    /// Gives `zone` its blocks if it has none: on each of its dies the least-erased
    /// free blocks (dynamic wear leveling; the lowest number on a tie).
    fn allocate(&mut self, zone: u32, nand: &Nand) -> Result<(), FtlError> {
        if !self.blocks[zone as usize].is_empty() {
            return Ok(());
        }
        let mut list = Vec::with_capacity(self.shape.blocks_per_zone() as usize);
        for _ in 0..self.shape.per_die {
            for i in 0..self.shape.dies_per_zone {
                let pool = &mut self.free[self.shape.die(zone, i) as usize];
                let best = pool
                    .iter()
                    .enumerate()
                    .min_by_key(|&(_, &b)| (nand.erase_count(BlockId(b)), b))
                    .map(|(j, _)| j)
                    .ok_or(FtlError::NoFreeBlock { ftl: "zoned" })?;
                list.push(pool.swap_remove(best));
            }
        }
        self.blocks[zone as usize] = list;
        Ok(())
    }

    /// Programs `count` pages of host data at the end of `zone`'s data.
    fn program(&mut self, zone: u32, count: u64, nand: &mut Nand) -> Result<(), FtlError> {
        self.allocate(zone, nand)?;
        let start = zone as u64 * self.zone_size();
        let from = self.data_end[zone as usize];
        for k in from..from + count {
            let ppn = self.ppn(zone, k);
            nand.program(ppn, Lpn((start + k) as u32), Cause::Host);
        }
        self.data_end[zone as usize] = from + count;
        Ok(())
    }

    /// A write of `count` pages at `first` (at the write pointer), checked by the
    /// zones first.
    fn write_at(&mut self, first: u64, count: u64, nand: &mut Nand) -> Result<ZoneReply, FtlError> {
        match self.zones.write(first, count) {
            Ok(()) => {
                let zone = (first / self.zone_size()) as u32;
                self.program(zone, count, nand)?;
                Ok(ZoneReply::Done)
            }
            Err(s) => Ok(ZoneReply::Refused(s)),
        }
    }

    /// Finish: the pages from the zone's data to its capacity are programmed without
    /// host data and left invalid.
    fn pad(&mut self, zone: u32, pad: u64, nand: &mut Nand) -> Result<(), FtlError> {
        if pad == 0 {
            return Ok(());
        }
        self.allocate(zone, nand)?;
        let from = self.shape.layout.zone_capacity_blocks - pad;
        debug_assert_eq!(from, self.data_end[zone as usize]);
        for k in from..from + pad {
            let ppn = self.ppn(zone, k);
            nand.program(ppn, self.pad_tag(zone, k), Cause::Rmw);
            nand.invalidate(ppn);
        }
        Ok(())
    }

    /// Reset: the zone's data goes, its programmed blocks are erased, all of its blocks
    /// return to their dies' pools.
    fn erase_zone(&mut self, zone: u32, nand: &mut Nand) {
        for k in 0..self.data_end[zone as usize] {
            nand.invalidate(self.ppn(zone, k));
        }
        self.data_end[zone as usize] = 0;
        let ppb = self.shape.pages_per_block;
        let geo = *nand.geometry();
        for b in std::mem::take(&mut self.blocks[zone as usize]) {
            if nand.write_ptr(BlockId(b)) > 0 {
                nand.erase(BlockId(b), Cause::Host);
                self.reset_erased_blocks += 1;
            }
            let die = geo.die_of_plane(geo.plane_of(BlockId(b)));
            debug_assert_eq!(geo.first_page(BlockId(b)).0 % ppb, 0);
            self.free[die as usize].push(b);
        }
    }

    /// The zone a management command names: `first` must be a zone's start.
    fn zone_at(&mut self, first: u64) -> Result<u32, ZnsStatus> {
        self.zones.zone_start(first)
    }
}

impl Ftl for ZonedFtl {
    fn name(&self) -> &'static str {
        "zoned"
    }

    fn logical_pages(&self) -> u64 {
        self.logical_pages
    }

    fn read(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<Option<Ppn>, FtlError> {
        let ppn = self.locate(lpn);
        if let Some(p) = ppn {
            nand.read(p, Cause::Host);
        }
        Ok(ppn)
    }

    fn lookup(&self, lpn: Lpn, _nand: &Nand) -> Option<Ppn> {
        self.locate(lpn)
    }

    /// One page at the write pointer (preconditioning, a buffer's victim); a refusal is
    /// counted by the zones.
    fn write(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        self.write_at(lpn.0 as u64, 1, nand).map(|_| ())
    }

    fn write_range(&mut self, first: Lpn, count: u32, nand: &mut Nand) -> Result<(), FtlError> {
        self.write_at(first.0 as u64, count as u64, nand)
            .map(|_| ())
    }

    fn trim(&mut self, _lpn: Lpn, _nand: &mut Nand) -> Result<(), FtlError> {
        Ok(())
    }

    fn mapping_bytes(&self) -> u64 {
        self.shape.layout.zones as u64 * (self.shape.blocks_per_zone() * spec::ENTRY_BYTES + 24)
    }

    fn counters(&self, out: &mut Counters) {
        self.zones.counters(out);
        out.set(&RESET_ERASED_BLOCKS, self.reset_erased_blocks);
        out.set(&APPENDS, self.appends);
    }

    /// Blocks no zone can use: beyond what the zones take on each die.
    fn reserved_blocks(&self) -> u64 {
        let total: u64 = self.free.iter().map(|f| f.len() as u64).sum::<u64>()
            + self.blocks.iter().map(|b| b.len() as u64).sum::<u64>();
        total.saturating_sub(self.shape.layout.zones as u64 * self.shape.blocks_per_zone())
    }

    fn programs_in_order(&self) -> bool {
        true
    }

    fn zones(&self) -> Option<&Zones> {
        Some(&self.zones)
    }

    fn zones_mut(&mut self) -> Option<&mut Zones> {
        Some(&mut self.zones)
    }

    /// Power-up from the OOB tags alone. A programmed block belongs to the zone and
    /// list slot its first tag names (a data page: its logical block; a padding page:
    /// the slot itself, [`ZonedFtl::pad_tag`]). A zone writes its pages in order, so
    /// what it holds is a prefix of its pages: its length is the write pointer, the
    /// first padding page (if any) the end of its host data. Pages that are not a prefix
    /// are a reset the cut interrupted (a reset erases the slot holding page 0 first):
    /// the mount finishes it. A prefix with padding but short of the capacity is a
    /// finish the cut interrupted: the mount pads the rest. Neither was acknowledged, so
    /// either outcome is one the host may see. Zones partly written come back Closed
    /// ([`Zones::restore`]); their empty slots take the least-erased free blocks of
    /// their dies, as at a first write.
    fn recover(
        &mut self,
        nand: &mut Nand,
        tags: &[Option<crate::nand::StoredTag>],
    ) -> Result<(), super::RecoverError> {
        let foreign = |what: String| super::RecoverError::Foreign { ftl: "zoned", what };
        let geo = *nand.geometry();
        let ppb = geo.pages_per_block as u64;
        let bpz = self.shape.blocks_per_zone();
        let zones = self.shape.layout.zones as u64;
        let size = self.zone_size();
        let nz = zones as usize;
        // Per zone: its slots' blocks, pages on flash, one past the highest page, the
        // first padding page.
        let mut slots: Vec<Vec<Option<u32>>> = vec![Vec::new(); nz];
        let mut held = vec![0u64; nz];
        let mut reach = vec![0u64; nz];
        let mut first_pad = vec![u64::MAX; nz];
        for f in &mut self.free {
            f.clear();
        }
        for b in 0..geo.blocks() {
            let first = geo.first_page(BlockId(b)).0 as usize;
            let page_tags = &tags[first..first + ppb as usize];
            let die = geo.die_of_plane(geo.plane_of(BlockId(b)));
            // Where a tag says its page lies: (zone, slot, zone page, padding).
            let place = |p: u64, lpn: u32| -> Option<(u64, u64, u64, bool)> {
                let l = lpn as u64;
                if l < zones * size {
                    let (zone, k) = (l / size, l % size);
                    let (slot, page) = self.shape.slot(k);
                    (page == p).then_some((zone, slot, k, false))
                } else if lpn <= PAD_TAG_TOP && ((PAD_TAG_TOP - lpn) as u64) < zones * bpz {
                    let g = (PAD_TAG_TOP - lpn) as u64;
                    let (zone, slot) = (g / bpz, g % bpz);
                    Some((zone, slot, self.shape.page_of(slot, p), true))
                } else {
                    None
                }
            };
            let mut owner: Option<(u64, u64)> = None;
            for (p, t) in page_tags.iter().enumerate() {
                let Some(t) = t else { continue };
                let bad = || foreign(format!("block {b} page {p} holds tag {}", t.lpn));
                if t.meta {
                    return Err(bad());
                }
                let (zone, slot, k, pad) = place(p as u64, t.lpn).ok_or_else(bad)?;
                match owner {
                    None => {
                        if self
                            .shape
                            .die(zone as u32, (slot % self.shape.dies_per_zone as u64) as u32)
                            != die
                        {
                            return Err(foreign(format!(
                                "block {b} holds zone {zone}'s slot {slot}, which lies on another die"
                            )));
                        }
                        let list = &mut slots[zone as usize];
                        if list.is_empty() {
                            list.resize(bpz as usize, None);
                        }
                        if list[slot as usize].replace(b).is_some() {
                            return Err(foreign(format!(
                                "two blocks hold zone {zone}'s slot {slot} (one is block {b})"
                            )));
                        }
                        owner = Some((zone, slot));
                    }
                    Some(o) if o != (zone, slot) => return Err(bad()),
                    Some(_) => {}
                }
                let z = zone as usize;
                held[z] += 1;
                reach[z] = reach[z].max(k + 1);
                if pad {
                    first_pad[z] = first_pad[z].min(k);
                }
            }
            if owner.is_none() {
                self.free[die as usize].push(b);
            }
        }
        let err = super::RecoverError::flash("zoned");
        let cap = self.shape.layout.zone_capacity_blocks;
        for zone in 0..nz {
            if held[zone] == 0 {
                continue;
            }
            let z = zone as u32;
            if held[zone] != reach[zone] {
                // A reset cut short: erase what it left.
                for b in slots[zone].iter().flatten() {
                    nand.erase(BlockId(*b), Cause::Host);
                    self.reset_erased_blocks += 1;
                    let die = geo.die_of_plane(geo.plane_of(BlockId(*b)));
                    self.free[die as usize].push(*b);
                }
                continue;
            }
            // Slots the zone has not reached yet take fresh blocks, as `allocate`
            // would have given it.
            let mut list = Vec::with_capacity(bpz as usize);
            for (i, slot) in slots[zone].iter().enumerate() {
                let b = match slot {
                    Some(b) => *b,
                    None => {
                        let die = self
                            .shape
                            .die(z, (i as u64 % self.shape.dies_per_zone as u64) as u32);
                        let pool = &mut self.free[die as usize];
                        let best = pool
                            .iter()
                            .enumerate()
                            .min_by_key(|&(_, &b)| (nand.erase_count(BlockId(b)), b))
                            .map(|(j, _)| j)
                            .ok_or(FtlError::NoFreeBlock { ftl: "zoned" })
                            .map_err(err)?;
                        pool.swap_remove(best)
                    }
                };
                list.push(b);
            }
            self.blocks[zone] = list;
            let wp = held[zone];
            let end = wp.min(first_pad[zone]);
            self.data_end[zone] = end;
            for k in 0..end {
                nand.revalidate(self.ppn(z, k));
            }
            if first_pad[zone] != u64::MAX && wp < cap {
                // A finish cut short: pad the rest (the zone ends Full).
                for k in wp..cap {
                    let ppn = self.ppn(z, k);
                    nand.program(ppn, self.pad_tag(z, k), Cause::Rmw);
                    nand.invalidate(ppn);
                }
                self.zones
                    .restore(z, cap)
                    .map_err(|e| foreign(e.to_string()))?;
            } else {
                self.zones
                    .restore(z, wp)
                    .map_err(|e| foreign(e.to_string()))?;
            }
        }
        Ok(())
    }

    fn zone_command(
        &mut self,
        cmd: ZoneCommand,
        first: Lpn,
        pages: u32,
        nand: &mut Nand,
    ) -> Result<ZoneReply, FtlError> {
        let first = first.0 as u64;
        let zone = match cmd {
            ZoneCommand::Write => return self.write_at(first, pages as u64, nand),
            ZoneCommand::Append => match self.zones.append(first, pages as u64) {
                Ok(lba) => {
                    self.program((first / self.zone_size()) as u32, pages as u64, nand)?;
                    self.appends += 1;
                    return Ok(ZoneReply::Appended(lba));
                }
                Err(s) => return Ok(ZoneReply::Refused(s)),
            },
            _ => match self.zone_at(first) {
                Ok(z) => z,
                Err(s) => return Ok(ZoneReply::Refused(s)),
            },
        };
        let r = match cmd {
            ZoneCommand::Open => self.zones.open(zone),
            ZoneCommand::Close => self.zones.close(zone),
            ZoneCommand::Finish => match self.zones.finish(zone) {
                Ok(pad) => {
                    self.pad(zone, pad, nand)?;
                    Ok(())
                }
                Err(s) => Err(s),
            },
            ZoneCommand::Reset => self.zones.reset(zone).map(|()| self.erase_zone(zone, nand)),
            ZoneCommand::Write | ZoneCommand::Append => unreachable!("handled above"),
        };
        Ok(match r {
            Ok(()) => ZoneReply::Done,
            Err(s) => ZoneReply::Refused(s),
        })
    }

    fn check_invariants(&self, nand: &Nand) {
        self.zones.check_invariants();
        let ppb = self.shape.pages_per_block as u64;
        for z in 0..self.shape.layout.zones {
            let d = self.zones.descriptor(z);
            let wp = d.write_pointer - d.start;
            let end = self.data_end[z as usize];
            assert!(end <= wp, "zone {z}: data beyond the write pointer");
            if d.state != zns::ZoneState::Full {
                assert_eq!(end, wp, "zone {z}: data end and write pointer");
            }
            let blocks = &self.blocks[z as usize];
            if wp == 0 {
                assert!(blocks.is_empty(), "zone {z}: empty zone holds blocks");
                continue;
            }
            assert_eq!(
                blocks.len() as u64,
                self.shape.blocks_per_zone(),
                "zone {z}"
            );
            let valid: u64 = blocks
                .iter()
                .map(|&b| nand.valid_count(BlockId(b)) as u64)
                .sum();
            assert_eq!(valid, end, "zone {z}: valid pages and host data");
            for k in 0..end {
                let ppn = self.ppn(z, k);
                assert!(nand.is_valid(ppn), "zone {z} page {k}");
                assert_eq!(nand.oob(ppn).lpn.0 as u64, d.start + k, "zone {z} page {k}");
            }
            let programmed: u64 = blocks
                .iter()
                .map(|&b| nand.write_ptr(BlockId(b)) as u64)
                .sum();
            assert_eq!(
                programmed, wp,
                "zone {z}: programmed pages ({ppb} per block)"
            );
        }
    }
}
