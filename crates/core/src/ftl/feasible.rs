//! Feasibility of an FTL on a device, decided without building it: the same arithmetic
//! the constructors use (they call [`check`] or, for the page-mapped FTLs, [`page_plan`]
//! and [`dftl_plan`], so a configuration check and a build cannot disagree).
//!
//! ```text
//! page FTL, DFTL (per GC unit of k planes, k = the smallest divisor of the plane count
//! that fits; k = 1 — per-plane pools — whenever one plane has room):
//!   need(k) = ⌈(data pages + translation pages per unit) / pages per block⌉
//!             + gc_high free blocks + one block per open frontier
//!   have(k) = k · blocks per plane
//!   page FTL without FDP: a unit spanning d > 1 dies keeps a host frontier on each of
//!   its dies (d "lanes"), so every die writes at once as with per-plane pools; the
//!   smallest k that fits with all its lanes wins, else the smallest k that fits with
//!   one host frontier (a unit's host writes then go to one die at a time)
//! block-mapped FTLs (device-wide pools):
//!   nftl        logical blocks + fold_free_blocks
//!   bast/fast/faster  logical blocks + 1 merge reserve + max(minimum, log_blocks)
//!   aftl/cftl   logical blocks + gc_high_free_blocks + 1 replacement block
//! on failure: smallest capacity at the device's over-provisioning, and smallest
//! over-provisioning at its capacity, found by search over the same need/have
//! ```
//! `geo` is the geometry the FTL is built on (for block-mapped FTLs with a management
//! block of k erase blocks, the superblock geometry). The device's over-provisioning is
//! read back from `geo` and `logical_pages` as `physical / logical − 1`, the figure the
//! report prints as the actual OP; capacities and OPs are turned into geometries the way
//! the config does (`blocks per plane = ⌈⌈logical·(1 + OP)⌉ / (pages per block ·
//! planes)⌉`).

use super::{FtlConfig, FtlKind};
use crate::nand::Geometry;
use crate::units::Size;

/// Why an FTL cannot run on a device, and what would let it.
#[derive(Clone, Debug, PartialEq)]
pub struct Infeasible {
    /// The FTL's name.
    pub ftl: &'static str,
    /// What the blocks are needed for (e.g. "data + GC reserve + open frontiers").
    pub what: &'static str,
    /// Planes per pool the counts below refer to (0 = the whole device).
    pub unit_planes: u32,
    /// Blocks needed per pool.
    pub need_blocks: u64,
    /// Blocks each pool has.
    pub have_blocks: u64,
    /// Smallest logical capacity (bytes) that works at the device's over-provisioning,
    /// if any up to 1 PiB does.
    pub min_capacity_bytes: Option<u64>,
    /// Smallest over-provisioning (percent, rounded up to 0.1) that works at the device's
    /// capacity, if any up to 1000 % does.
    pub min_op_percent: Option<f64>,
}

impl From<Infeasible> for crate::spec::ConfigError {
    /// The FTL does not fit the device: the message names the capacity and
    /// over-provisioning that would.
    fn from(e: Infeasible) -> Self {
        super::spec::unfit(e.ftl, e.to_string())
    }
}

impl std::fmt::Display for Infeasible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pool = match self.unit_planes {
            0 => "the device".to_string(),
            1 => "each plane".to_string(),
            k => format!("each pool of {k} planes"),
        };
        if self.need_blocks == u64::MAX {
            // A shape that does not fit at all (a spec's `need` says so with u64::MAX):
            // no block count to quote.
            write!(
                f,
                "impossible geometry for the {} FTL: {} do not fit on {pool} ({} blocks)",
                self.ftl, self.what, self.have_blocks
            )?;
        } else {
            write!(
                f,
                "impossible geometry for the {} FTL: {pool} needs {} blocks ({}) but has {}",
                self.ftl, self.need_blocks, self.what, self.have_blocks
            )?;
        }
        let cap = self.min_capacity_bytes.map(|b| format!("≥ {}", Size(b)));
        let op = self
            .min_op_percent
            .map(|p| format!("≥ {p:.1} % over-provisioning"));
        match (cap, op) {
            (Some(c), Some(o)) => write!(f, "; needs a capacity {c} or {o}"),
            (Some(c), None) => write!(f, "; needs a capacity {c}"),
            (None, Some(o)) => write!(f, "; needs {o}"),
            (None, None) => Ok(()),
        }
    }
}

impl std::error::Error for Infeasible {}

/// How a page-mapped FTL organises its blocks on a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Planes per GC unit (free pool + frontiers + GC); 1 = per plane.
    pub unit_planes: u32,
    /// Host frontiers per unit, one per die group ("lane") of the unit: 1, or the dies
    /// a unit spans (the page FTL without FDP when its reserve allows).
    pub lanes: u32,
    /// GC starts when a unit has fewer free blocks than this.
    pub gc_low: u32,
    /// GC stops once the unit has this many.
    pub gc_high: u32,
}

/// Blocks needed and available per pool, for one candidate organisation: what an
/// FTL's spec ([`super::FtlSpec::need`]) computes.
#[derive(Clone, Copy, Debug)]
pub struct Need {
    /// Planes per pool (0 = the whole device).
    pub unit_planes: u32,
    /// Blocks needed per pool.
    pub need: u64,
    /// Blocks each pool has.
    pub have: u64,
    /// What the blocks are needed for.
    pub what: &'static str,
}

impl Need {
    /// Whether the need fits.
    pub fn fits(&self) -> bool {
        self.need <= self.have
    }

    /// A device-wide pool of `need` blocks for `what` on `geo`.
    pub fn device(geo: &Geometry, need: u64, what: &'static str) -> Need {
        Need {
            unit_planes: 0,
            need,
            have: geo.blocks() as u64,
            what,
        }
    }
}

/// Whether `cfg`'s FTL can run on `geo` exporting `logical_pages`; the error names what
/// it needs and the smallest capacity and over-provisioning that work. No allocation on
/// success.
pub fn check(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> Result<(), Infeasible> {
    check_kind(cfg.name, cfg, geo, logical_pages)
}

/// [`check`] for FTL `kind` with `cfg`'s other settings (constructors call this with
/// their own kind, whatever `cfg.name` says).
pub fn check_kind(
    kind: FtlKind,
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
) -> Result<(), Infeasible> {
    let n = need(kind, cfg, geo, logical_pages);
    if n.fits() {
        return Ok(());
    }
    Err(infeasible(kind, cfg, geo, logical_pages, n))
}

/// Frontiers the page FTL keeps open per unit: host, GC (hot/cold split), WL (static
/// wear leveling on); with FDP a host frontier per handle and the GC frontiers its
/// isolation needs instead of the first two (ftl/page_fdp.rs).
fn page_frontiers(cfg: &FtlConfig, lanes: u32) -> u64 {
    let wl = (cfg.static_wl_threshold > 0) as u64;
    if cfg.fdp.enabled {
        return super::page_fdp::PageFdp::max_frontiers(cfg) + wl;
    }
    lanes as u64 + cfg.hot_cold as u64 + wl
}

/// Host lanes a unit of `k` planes can have: one per die it spans (1 for a unit
/// within one die, and with FDP, whose handles keep their own frontiers).
pub fn full_lanes(cfg: &FtlConfig, geo: &Geometry, k: u32) -> u32 {
    if cfg.fdp.enabled {
        1
    } else {
        (k / geo.planes_per_die.max(1)).max(1)
    }
}

/// The page FTL's organisation on `geo`: per-plane units when a plane has room for its
/// data, the GC reserve and its frontiers, else the smallest group of planes that does.
pub fn page_plan(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> Result<Plan, Infeasible> {
    let n = page_best(cfg, geo, logical_pages);
    if !n.0.fits() {
        return Err(infeasible(FtlKind::Page, cfg, geo, logical_pages, n.0));
    }
    Ok(Plan {
        unit_planes: n.0.unit_planes,
        lanes: n.1,
        gc_low: cfg.gc_low_free_blocks,
        gc_high: cfg.gc_high_free_blocks,
    })
}

/// The page FTL's best organisation and its host lanes: the smallest unit that fits
/// with a host frontier on each of its dies, else [`paged_best`]'s (one host frontier
/// per unit). Pools of planes exist only because a plane is too small for its reserve;
/// a unit confined to one open host block wrote on one of its dies at a time, so a
/// 1 GiB default drive with the hot/cold split (units of two dies) kept half its dies
/// idle during sequential writes (BENCHMARKS.md, Session 24).
pub fn page_best(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> (Need, u32) {
    let planes = geo.planes();
    for k in (1..=planes).filter(|k| planes.is_multiple_of(*k)) {
        let lanes = full_lanes(cfg, geo, k);
        let n = paged_need(cfg, geo, logical_pages, false, k, lanes);
        if n.fits() {
            return (n, lanes);
        }
    }
    (paged_best(cfg, geo, logical_pages, false), 1)
}

/// Extra free blocks DFTL keeps above the configured thresholds in each of `units` GC
/// units. An operation may open a host block and a translation block before its GC
/// check, and a GC pass a GC block and a translation block (its batch update) before its
/// first victim is erased; the page FTL's thresholds count one of each. Translation
/// blocks come from the unit with the most free blocks, which is always the unit being
/// collected on a one-unit device (two more) but may be any unit, the collected one
/// included when all sit at the threshold, on larger ones (one more). On top of that,
/// headroom for a collection's translation writes: a data victim's batch update writes one
/// translation page per translation page its moved entries fall in, at most
/// `min(pages per block, translation pages)`, and the victims a pass takes before the
/// translation blocks they leave stale become the cheapest ones drain the unit meanwhile.
/// The headroom is two such worst-case batches, in whole blocks: two blocks on real
/// devices, none where the whole map fits in less than half a block. Measured under
/// sustained random overwrites at 7 % over-provisioning: android-emmc at 2 GiB (one unit)
/// ran out with one block of headroom and ran with two; ssd-b at 256 MiB with
/// cost-benefit ran out with one and ran with three in the low and high thresholds
/// (docs/ftls.md).
pub fn dftl_extra_free(geo: &Geometry, logical_pages: u64, units: u32) -> u32 {
    let np = geo.pages_per_block as u64;
    let batch = dftl_translation_pages(geo, logical_pages).min(np);
    let headroom = (2 * batch / np.max(1)) as u32;
    (if units == 1 { 2 } else { 1 }) + headroom
}

/// DFTL's organisation: as the page FTL's (no wear-leveling frontier), with an equal
/// share of the translation blocks and a translation frontier per unit and
/// [`dftl_extra_free`] more free blocks in each threshold.
pub fn dftl_plan(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> Result<Plan, Infeasible> {
    paged(FtlKind::Dftl, cfg, geo, logical_pages).map(|k| {
        let extra = dftl_extra_free(geo, logical_pages, geo.planes() / k);
        Plan {
            unit_planes: k,
            lanes: 1,
            gc_low: cfg.gc_low_free_blocks + extra,
            gc_high: cfg.gc_high_free_blocks + extra,
        }
    })
}

/// Translation pages DFTL needs for `logical_pages` (4-byte entries per page).
pub fn dftl_translation_pages(geo: &Geometry, logical_pages: u64) -> u64 {
    logical_pages.div_ceil((geo.page_size_bytes / 4).max(1) as u64)
}

/// Need per unit of `k` planes for the page FTL (`dftl` = false) with `lanes` host
/// frontiers, or DFTL.
fn paged_need(
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
    dftl: bool,
    k: u32,
    lanes: u32,
) -> Need {
    let units = (geo.planes() / k) as u64;
    let np = geo.pages_per_block as u64;
    let data = logical_pages.div_ceil(units).div_ceil(np);
    let need = if dftl {
        // Translation pages stripe over the units: each keeps an equal share of the
        // translation blocks plus its own open translation frontier.
        let trans = dftl_translation_pages(geo, logical_pages).div_ceil(np);
        data + trans.div_ceil(units)
            + 1
            + (cfg.gc_high_free_blocks + dftl_extra_free(geo, logical_pages, units as u32)) as u64
            + 1
            + cfg.hot_cold as u64
    } else {
        data + cfg.gc_high_free_blocks as u64 + page_frontiers(cfg, lanes)
    };
    Need {
        unit_planes: k,
        need,
        have: geo.blocks_per_plane as u64 * k as u64,
        what: if dftl {
            "data + share of translation blocks + GC reserve + open frontiers"
        } else {
            "data + GC reserve + open frontiers"
        },
    }
}

/// The smallest unit (divisor of the plane count) whose need fits, or the whole device's
/// need when none does: the need of the page FTL (`dftl` = false) and DFTL.
pub fn paged_best(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64, dftl: bool) -> Need {
    let planes = geo.planes();
    let mut last = None;
    for k in 1..=planes {
        if !planes.is_multiple_of(k) {
            continue;
        }
        let n = paged_need(cfg, geo, logical_pages, dftl, k, 1);
        if n.fits() {
            return n;
        }
        last = Some(n);
    }
    last.expect("at least one plane")
}

fn paged(
    kind: FtlKind,
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
) -> Result<u32, Infeasible> {
    let n = paged_best(cfg, geo, logical_pages, kind == FtlKind::Dftl);
    if n.fits() {
        Ok(n.unit_planes)
    } else {
        Err(infeasible(kind, cfg, geo, logical_pages, n))
    }
}

/// The need of FTL `kind` on `geo` (the best organisation for the page-mapped ones).
fn need(kind: FtlKind, cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> Need {
    (kind.spec().need)(cfg, geo, logical_pages)
}

/// Logical blocks of `logical_pages` on `geo`.
pub fn logical_blocks(geo: &Geometry, logical_pages: u64) -> u64 {
    logical_pages.div_ceil(geo.pages_per_block as u64)
}

/// A log-block FTL's need: at least `min` log blocks (more if `ftl.log.log_blocks` asks
/// for more) beside the data blocks and one merge reserve (`logblock::log_budget`).
pub fn log_area_need(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64, min: u32) -> Need {
    let logs = cfg.log.log_blocks.max(min) as u64;
    Need::device(
        geo,
        logical_blocks(geo, logical_pages) + 1 + logs,
        "data blocks + 1 merge reserve + log blocks",
    )
}

/// The two-level hash FTLs' need (AFTL, CFTL): every logical block, the free blocks
/// their folds keep, and one replacement block.
pub fn two_level_need(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> Need {
    Need::device(
        geo,
        logical_blocks(geo, logical_pages) + cfg.gc_high_free_blocks as u64 + 1,
        "logical blocks + free blocks for folds + 1 replacement block",
    )
}

/// The failure for `n`, with the smallest capacity and over-provisioning that work.
fn infeasible(
    kind: FtlKind,
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
    n: Need,
) -> Infeasible {
    let physical = geo.pages();
    let stripe = geo.pages_per_block as u64 * geo.planes() as u64;
    // The geometry of a device of `phys` physical pages.
    let with = |phys: u64| Geometry {
        blocks_per_plane: phys.div_ceil(stripe).min(u32::MAX as u64) as u32,
        ..*geo
    };
    let works = |g: &Geometry, lp: u64| need(kind, cfg, g, lp).fits();
    // Capacity at this OP: logical pages scaled, physical = ⌈logical · physical₀ /
    // logical₀⌉; candidates 1, 1.5, 2, 3, 4, 6 … × 2^k bytes above the current size.
    let page = geo.page_size_bytes as u64;
    let mut min_capacity_bytes = None;
    let mut base = page;
    'search: while base <= 1 << 50 {
        for bytes in [base, base + base / 2] {
            let lp = bytes / page;
            if lp <= logical_pages {
                continue;
            }
            let phys = (lp as u128 * physical as u128).div_ceil(logical_pages as u128) as u64;
            if lp < u32::MAX as u64 && works(&with(phys), lp) {
                min_capacity_bytes = Some(bytes);
                break 'search;
            }
        }
        base *= 2;
    }
    // OP at this capacity: the smallest blocks per plane that works, then the smallest
    // OP (0.1 % steps) the config turns into that many.
    let mut min_op_percent = None;
    let bpp0 = geo.blocks_per_plane as u64;
    let max_bpp = (logical_pages * 11).div_ceil(stripe) + 1;
    let bpp = (bpp0 + 1..=max_bpp).find(|&b| works(&with(b * stripe), logical_pages));
    if let Some(b) = bpp {
        let mut tenths = 0u64;
        while tenths <= 10_000 {
            let op = tenths as f64 / 10.0;
            let phys = (logical_pages as f64 * (1.0 + op / 100.0)).ceil() as u64;
            if phys.div_ceil(stripe) >= b {
                min_op_percent = Some(op);
                break;
            }
            tenths += 1;
        }
    }
    Infeasible {
        ftl: kind.name(),
        what: n.what,
        unit_planes: n.unit_planes,
        need_blocks: n.need,
        have_blocks: n.have,
        min_capacity_bytes,
        min_op_percent,
    }
}
