//! The array's shape and cell technology: [`CellKind`] with its datasheet timings and
//! endurance, [`Geometry`] (channels, chips, dies, planes, blocks, pages and their sizes)
//! with the address arithmetic every layer uses (which plane, die, chip and channel a page
//! is on), and [`GeometryError`], why a shape cannot be built.

use super::{BlockId, Ppn};
use serde::{Deserialize, Serialize};

/// NAND cell technology; selects default timings, endurance and block size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellKind {
    /// 1 bit per cell (docs/papers.md §1, Figure 2).
    Slc,
    /// 2 bits per cell (docs/papers.md §1, Figure 2).
    Mlc,
    /// 3 bits per cell, a modern 3D TLC part.
    Tlc,
    /// 4 bits per cell, a modern 3D QLC part.
    Qlc,
}

/// Timings and endurance of one cell technology.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellTiming {
    /// Array → page register (t_R).
    pub read_ns: u64,
    /// Page program (t_PROG).
    pub program_ns: u64,
    /// Block erase (t_BERS).
    pub erase_ns: u64,
    /// Serial transfer per byte on the flash bus (t_RC).
    pub t_rc_ns: f64,
    /// Program/erase cycles a block is rated for.
    pub endurance_cycles: u32,
    /// Pages per block typical of the technology.
    pub pages_per_block: u32,
}

impl CellKind {
    /// Typical parameters. SLC and MLC come from docs/papers.md §1 (Figure 2 of Ryu & Park):
    /// t_R max, t_PROG and t_BERS mid-range typical, t_RC 25 ns. TLC/QLC are representative
    /// 3D NAND datasheet figures (2020s); adjust with the `read_ns`, `program_ns`,
    /// `erase_ns` overrides of `[device]`.
    pub fn timing(self) -> CellTiming {
        match self {
            CellKind::Slc => CellTiming {
                read_ns: 25_000,
                program_ns: 250_000,
                erase_ns: 1_500_000,
                t_rc_ns: 25.0,
                endurance_cycles: 100_000,
                pages_per_block: 64,
            },
            CellKind::Mlc => CellTiming {
                read_ns: 50_000,
                program_ns: 750_000,
                erase_ns: 3_000_000,
                t_rc_ns: 25.0,
                endurance_cycles: 10_000,
                pages_per_block: 128,
            },
            CellKind::Tlc => CellTiming {
                read_ns: 60_000,
                program_ns: 700_000,
                erase_ns: 3_500_000,
                t_rc_ns: 1.25, // 800 MT/s ONFI/Toggle bus
                endurance_cycles: 3_000,
                pages_per_block: 256,
            },
            CellKind::Qlc => CellTiming {
                read_ns: 110_000,
                program_ns: 2_000_000,
                erase_ns: 10_000_000,
                t_rc_ns: 1.25,
                endurance_cycles: 1_000,
                pages_per_block: 256,
            },
        }
    }
}

/// Shape of the flash array. Blocks are numbered plane by plane; planes are numbered
/// `((channel * chips_per_channel + chip) * dies_per_chip + die) * planes_per_die + plane`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Geometry {
    /// Independent channels (buses).
    pub channels: u32,
    /// Chips (packages) sharing one channel.
    pub chips_per_channel: u32,
    /// Dies per chip; each takes commands independently.
    pub dies_per_chip: u32,
    /// Planes per die.
    pub planes_per_die: u32,
    /// Blocks in each plane.
    pub blocks_per_plane: u32,
    /// Pages in each block.
    pub pages_per_block: u32,
    /// Data bytes per page.
    pub page_size_bytes: u32,
    /// Spare (OOB) bytes per page.
    pub oob_size_bytes: u32,
}

impl Geometry {
    /// All planes in the array.
    pub fn planes(&self) -> u32 {
        self.channels * self.chips_per_channel * self.dies_per_chip * self.planes_per_die
    }
    /// All dies in the array.
    pub fn dies(&self) -> u32 {
        self.channels * self.chips_per_channel * self.dies_per_chip
    }
    /// All chips in the array.
    pub fn chips(&self) -> u32 {
        self.channels * self.chips_per_channel
    }
    /// All blocks.
    pub fn blocks(&self) -> u32 {
        self.planes() * self.blocks_per_plane
    }
    /// All physical pages.
    pub fn pages(&self) -> u64 {
        self.blocks() as u64 * self.pages_per_block as u64
    }
    /// Raw capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.pages() * self.page_size_bytes as u64
    }
    /// Plane that holds `block`.
    #[inline]
    pub fn plane_of(&self, block: BlockId) -> u32 {
        block.0 / self.blocks_per_plane
    }
    /// Die (global index) that holds `plane`.
    #[inline]
    pub fn die_of_plane(&self, plane: u32) -> u32 {
        plane / self.planes_per_die
    }
    /// Chip (global index) that holds `plane`.
    #[inline]
    pub fn chip_of_plane(&self, plane: u32) -> u32 {
        plane / (self.planes_per_die * self.dies_per_chip)
    }
    /// Channel that holds `plane`.
    #[inline]
    pub fn channel_of_plane(&self, plane: u32) -> u32 {
        self.chip_of_plane(plane) / self.chips_per_channel
    }
    /// Block that holds `ppn`.
    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> BlockId {
        BlockId(ppn.0 / self.pages_per_block)
    }
    /// First page of `block`.
    #[inline]
    pub fn first_page(&self, block: BlockId) -> Ppn {
        Ppn(block.0 * self.pages_per_block)
    }
    /// Checks that the shape is usable; the error names the field and the limit.
    pub fn validate(&self) -> Result<(), GeometryError> {
        let fields = [
            ("channels", self.channels),
            ("chips_per_channel", self.chips_per_channel),
            ("dies_per_chip", self.dies_per_chip),
            ("planes_per_die", self.planes_per_die),
            ("blocks_per_plane", self.blocks_per_plane),
            ("pages_per_block", self.pages_per_block),
            ("page_size", self.page_size_bytes),
        ];
        for (name, v) in fields {
            if v == 0 {
                return Err(GeometryError::Zero { field: name });
            }
        }
        if !self.page_size_bytes.is_multiple_of(512) {
            return Err(GeometryError::PageSize {
                page_size_bytes: self.page_size_bytes,
            });
        }
        let pages = (self.channels as u128)
            * self.chips_per_channel as u128
            * self.dies_per_chip as u128
            * self.planes_per_die as u128
            * self.blocks_per_plane as u128
            * self.pages_per_block as u128;
        if pages >= u32::MAX as u128 {
            return Err(GeometryError::TooManyPages {
                pages,
                max: u32::MAX - 1,
            });
        }
        Ok(())
    }
}

/// Why a [`Geometry`] cannot be built: each variant names the field and the limit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    /// A count of channels, chips, dies, planes, blocks or pages, or the page size, is 0.
    #[error("impossible geometry: {field} must be at least 1")]
    Zero {
        /// The field, as the geometry names it (`channels`, `page_size`, ...).
        field: &'static str,
    },
    /// The page does not hold a whole number of 512-byte sectors.
    #[error(
        "impossible geometry: page size {page_size_bytes} B is not a multiple of 512 B sectors"
    )]
    PageSize {
        /// The page size given.
        page_size_bytes: u32,
    },
    /// More physical pages than a 32-bit page number addresses.
    #[error(
        "impossible geometry: {pages} physical pages; at most {max} are supported (32-bit page numbers; use a larger page size)"
    )]
    TooManyPages {
        /// Physical pages the shape has.
        pages: u128,
        /// The most supported.
        max: u32,
    },
}
