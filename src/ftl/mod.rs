//! Flash translation layers, one file each behind [`Ftl`], registered in [`FtlKind`].
//!
//! An FTL is plain synchronous code: it decides which pages move and asks the
//! [`Nand`](crate::nand::Nand) to do it. The NAND counts every operation by cause, so
//! write amplification, copies and erases are never counted by an FTL itself.
//!
//! Counter keys every FTL uses when it has the concept (others are FTL-specific):
//! `ftl.merge.switch`, `ftl.merge.partial`, `ftl.merge.full` (log-block merges by kind),
//! `ftl.lookup.count` and `ftl.lookup.probes` (map lookups and table entries visited by
//! them, so probes / count = translation cost per lookup), `ftl.cmt.hits` and
//! `ftl.cmt.misses` (cached-map FTLs; their extra flash reads and writes show up as NAND
//! operations of cause `Map`).

pub mod aftl;
pub mod bast;
mod blocks;
pub mod cftl;
pub mod dftl;
pub mod fast;
pub mod faster;
pub mod feasible;
pub mod gc;
pub mod hash;
pub mod layout;
pub mod logblock;
pub mod nftl;
pub mod page;
pub mod superblock;
mod twolevel;

use crate::nand::{Geometry, Lpn, Nand, Ppn};
use crate::units::Size;
use gc::{GcPolicyKind, PolicyParams};
use layout::{ChannelPlacement, Placement};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How many requests ahead the simulator announces a request's first page through
/// [`Ftl::prefetch_early`]. A random map entry of a multi-GiB table costs a DRAM access
/// and often a page walk (~100-200 ns here); a request without GC takes ~50 ns, so one
/// request ahead is too late and a few are needed.
pub const PREFETCH_AHEAD: usize = 4;

/// Errors an FTL can report (everything else is a bug and panics).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FtlError {
    /// No free block left and nothing to reclaim.
    #[error(
        "out of free blocks in plane {plane}: the device is full of valid data (more over-provisioning needed)"
    )]
    OutOfSpace {
        /// Plane that ran dry.
        plane: u32,
    },
    /// A block-mapped FTL found no free block although its block budget should keep one.
    #[error("{ftl}: no free block left (a bug: its block budget should prevent this)")]
    NoFreeBlock {
        /// Which FTL.
        ftl: &'static str,
    },
}

/// A flash translation layer. The caller guarantees `lpn < logical_pages()`.
/// After any call returns, every written, untrimmed `lpn` reads back its latest write.
pub trait Ftl: Send {
    /// Registered name.
    fn name(&self) -> &'static str;
    /// Logical pages exported to the host.
    fn logical_pages(&self) -> u64;
    /// Reads `lpn` (one host flash read when mapped); `None` = never written or trimmed.
    fn read(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<Option<Ppn>, FtlError>;
    /// Where `lpn` lives now, without any counted flash operation. FTLs that locate pages
    /// by their OOB tags (NFTL-style replacement-block scans) read them from `nand`.
    fn lookup(&self, lpn: Lpn, nand: &Nand) -> Option<Ppn>;
    /// Writes new data for `lpn`.
    fn write(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError>;
    /// Discards `lpn`.
    fn trim(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError>;
    /// Bytes of RAM the mapping structures need (formula in each FTL's docs).
    fn mapping_bytes(&self) -> u64;
    /// FTL-specific counters, e.g. `ftl.gc.victims`: running totals since the FTL was
    /// built (the report subtracts the preconditioning's share), except the state
    /// values [`is_gauge`] names.
    fn counters(&self, out: &mut BTreeMap<String, u64>);
    /// Blocks held back from user data (GC reserve and open frontiers), for analytic
    /// comparisons of write amplification.
    fn reserved_blocks(&self) -> u64;
    /// Hints that `lpn` will be accessed soon (the simulator passes the next request's
    /// first page), so a large mapping table's cache miss can overlap current work.
    fn prefetch(&self, _lpn: Lpn) {}
    /// Hints that `lpn` will be accessed a few requests from now (the simulator passes
    /// the first page of the request [`PREFETCH_AHEAD`] positions ahead): far enough
    /// that the map entry is in cache by the time [`Ftl::prefetch_next`] reads it.
    fn prefetch_early(&self, _lpn: Lpn) {}
    /// Hints that `lpn` is the next request's first page. The map entry was asked for
    /// by [`Ftl::prefetch_early`], so an FTL may read it and prefetch the flash state
    /// the write will touch (the old page's validity word and block). By default this is
    /// [`Ftl::prefetch`].
    fn prefetch_next(&self, lpn: Lpn, _nand: &Nand) {
        self.prefetch(lpn);
    }
    /// Whether the FTL programs the pages of a block strictly in order, as modern NAND
    /// requires. Old FTLs that write a page at its fixed offset (NFTL, BAST's data
    /// blocks) return `false`; the simulator then builds the [`Nand`] in relaxed mode,
    /// which still refuses to program a page twice without an erase.
    fn programs_in_order(&self) -> bool {
        true
    }
    /// Panics if the FTL's structures disagree with the NAND (tests call this often).
    fn check_invariants(&self, nand: &Nand);
    /// Writes the `count` pages from `first` as one host command. FTLs that map units
    /// larger than a page (management blocks) override this so one command rewrites a
    /// unit once, not once per page.
    fn write_range(&mut self, first: Lpn, count: u32, nand: &mut Nand) -> Result<(), FtlError> {
        for lpn in first.0..first.0 + count {
            self.write(Lpn(lpn), nand)?;
        }
        Ok(())
    }
}

/// Registered FTLs (the `name` key of `[ftl]` / `--ftl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FtlKind {
    /// Page-level mapping (ideal page FTL).
    #[default]
    Page,
    /// NFTL: primary + replacement-unit chains, folding.
    Nftl,
    /// BAST: one log block per data block.
    Bast,
    /// FAST: fully associative random log + one sequential log block.
    Fast,
    /// FASTer: FAST with second chance and isolation.
    Faster,
    /// Adaptive two-level FTL (coarse + fine hash tables).
    Aftl,
    /// Clustered FTL (clustered hash tables, two-level fine tables).
    Cftl,
    /// Demand-based page mapping (cached mapping table).
    Dftl,
}

impl FtlKind {
    /// Every FTL with a one-line description, for `ssdlab list`.
    pub fn all() -> &'static [(FtlKind, &'static str, &'static str)] {
        &[
            (
                FtlKind::Page,
                "page",
                "page-level mapping, per-plane frontiers, pluggable GC, hot/cold split, wear leveling",
            ),
            (
                FtlKind::Nftl,
                "nftl",
                "NFTL (M-Systems/Linux): primary + replacement chains at fixed offsets, folding",
            ),
            (
                FtlKind::Bast,
                "bast",
                "BAST (Kim et al. 2002): one log block per data block; switch/partial/full merges",
            ),
            (
                FtlKind::Fast,
                "fast",
                "FAST (Lee et al. 2007): one sequential + fully associative random log blocks",
            ),
            (
                FtlKind::Faster,
                "faster",
                "FASTer (Lim et al. 2010): FAST + second chance and isolation of cold log pages",
            ),
            (
                FtlKind::Aftl,
                "aftl",
                "AFTL (Wu & Kuo 2006): coarse block hash + bounded fine page hash, LRU demotion, deferred GC",
            ),
            (
                FtlKind::Cftl,
                "cftl",
                "CFTL (Park & Kim 2008): clustered hash tables, short/long fine tables, hit-count promotion, NUR demotion",
            ),
            (
                FtlKind::Dftl,
                "dftl",
                "DFTL (Gupta et al. 2009): cached mapping table + GTD, translation pages on flash, LRU or segmented LRU",
            ),
        ]
    }

    /// The FTL's name as `--ftl` takes it.
    pub fn name(self) -> &'static str {
        FtlKind::all()
            .iter()
            .find(|e| e.0 == self)
            .map_or("?", |e| e.1)
    }

    /// Whether the FTL uses the `gc` victim policy (the block-mapped ones fold instead).
    pub fn uses_gc_policy(self) -> bool {
        matches!(self, FtlKind::Page | FtlKind::Dftl)
    }
}

/// `[ftl]` table: which FTL, and the GC and wear-leveling settings it uses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FtlConfig {
    /// Which FTL.
    pub name: FtlKind,
    /// GC victim policy.
    pub gc: GcPolicyKind,
    /// GC starts when a plane has fewer free blocks than this (at least 2).
    pub gc_low_free_blocks: u32,
    /// GC stops once the plane has this many free blocks.
    pub gc_high_free_blocks: u32,
    /// Separate write frontier for GC-relocated (colder) pages.
    pub hot_cold: bool,
    /// Dynamic wear leveling: allocate the least-worn free block.
    pub dynamic_wl: bool,
    /// Static wear leveling: relocate the coldest block's data when a plane's erase-count
    /// spread reaches this; 0 = off.
    pub static_wl_threshold: u32,
    /// Check the spread every this many erases per plane.
    pub static_wl_check_erases: u32,
    /// Samples per selection for `d-choices`.
    pub gc_d: u32,
    /// SSD management block: for the page FTL the unit a `by-address` layout rewrites
    /// (0 = one flash page; a multiple of the page size); for the block-mapped FTLs a
    /// superblock of whole erase blocks (0 = one block; see [`superblock`]).
    pub mgmt_block: Size,
    /// Placement of pages inside a management block.
    pub placement: Placement,
    /// Placement of a management block's pages on channels.
    pub channel_placement: ChannelPlacement,
    /// `[ftl.log]`: log area of BAST, FAST and FASTer.
    pub log: logblock::LogConfig,
    /// `[ftl.nftl]`: NFTL chains and folding.
    pub nftl: nftl::NftlConfig,
    /// `[ftl.faster]`: FASTer's second chance and isolation.
    pub faster: faster::FasterConfig,
    /// `[ftl.aftl]` settings.
    pub aftl: aftl::AftlConfig,
    /// `[ftl.cftl]` settings.
    pub cftl: cftl::CftlConfig,
    /// `[ftl.dftl]` settings.
    pub dftl: dftl::DftlConfig,
}

impl Default for FtlConfig {
    fn default() -> Self {
        FtlConfig {
            name: FtlKind::Page,
            gc: GcPolicyKind::Greedy,
            gc_low_free_blocks: 2,
            gc_high_free_blocks: 3,
            hot_cold: true,
            dynamic_wl: true,
            static_wl_threshold: 0,
            static_wl_check_erases: 64,
            gc_d: 10,
            mgmt_block: Size(0),
            placement: Placement::WriteOrder,
            channel_placement: ChannelPlacement::Striped,
            log: Default::default(),
            nftl: Default::default(),
            faster: Default::default(),
            aftl: aftl::AftlConfig::default(),
            cftl: cftl::CftlConfig::default(),
            dftl: dftl::DftlConfig::default(),
        }
    }
}

impl FtlConfig {
    /// Checks settings that do not depend on the device.
    pub fn validate(&self) -> Result<(), String> {
        if self.gc_low_free_blocks < 2 {
            return Err(format!(
                "ftl.gc_low_free_blocks = {}: expected at least 2 (GC needs a block to copy into)",
                self.gc_low_free_blocks
            ));
        }
        if self.gc_high_free_blocks < self.gc_low_free_blocks {
            return Err(format!(
                "ftl.gc_high_free_blocks = {} is below gc_low_free_blocks = {}",
                self.gc_high_free_blocks, self.gc_low_free_blocks
            ));
        }
        if self.gc_d == 0 {
            return Err("ftl.gc_d must be at least 1".into());
        }
        if self.static_wl_check_erases == 0 {
            return Err("ftl.static_wl_check_erases must be at least 1".into());
        }
        self.nftl.validate()?;
        self.faster.validate()?;
        self.aftl.validate()?;
        self.cftl.validate()?;
        self.dftl.validate()?;
        Ok(())
    }
}

/// Whether counter `key` is a state value (mapping bytes now, entries held, a maximum
/// reached) rather than a running total: reports after preconditioning
/// show state values as they are and running totals for the measured phase only.
pub fn is_gauge(key: &str) -> bool {
    key.starts_with("ftl.mapping.")
        || key.ends_with("_bytes")
        || key.ends_with("_entries") && !key.contains("batched")
        || key.ends_with("_max")
}

/// Pages per management block for `cfg` on `geo`, or why the size does not fit.
pub fn unit_pages(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> Result<u32, String> {
    let page = geo.page_size_bytes as u64;
    let bytes = cfg.mgmt_block.bytes();
    if bytes == 0 {
        return Ok(1);
    }
    if !bytes.is_multiple_of(page) {
        return Err(format!(
            "ftl.mgmt_block = {}: expected a multiple of the {} page size",
            cfg.mgmt_block,
            Size(page)
        ));
    }
    let pages = bytes / page;
    if pages > logical_pages {
        return Err(format!(
            "ftl.mgmt_block = {} is larger than the logical capacity {}",
            cfg.mgmt_block,
            Size(logical_pages * page)
        ));
    }
    Ok(pages as u32)
}

/// Builds the configured FTL over `geo`, exporting `logical_pages`.
pub fn build_ftl(
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
    seed: u64,
) -> Result<Box<dyn Ftl>, String> {
    cfg.validate()?;
    let params = PolicyParams { d: cfg.gc_d, seed };
    Ok(match cfg.name {
        FtlKind::Page => page::build(cfg, geo, logical_pages, params)?,
        FtlKind::Nftl => Box::new(nftl::Nftl::new(cfg, geo, logical_pages)?),
        FtlKind::Bast => Box::new(bast::Bast::new(cfg, geo, logical_pages)?),
        FtlKind::Fast => Box::new(fast::build_fast(cfg, geo, logical_pages)?),
        FtlKind::Faster => Box::new(faster::build(cfg, geo, logical_pages)?),
        FtlKind::Aftl => aftl::build(cfg, geo, logical_pages)?,
        FtlKind::Cftl => cftl::build(cfg, geo, logical_pages)?,
        FtlKind::Dftl => dftl::build(cfg, geo, logical_pages, params)?,
    })
}
