//! The NAND flash array: geometry, addresses, cell presets, page/block state, OOB tags and
//! the operation counters every report is built from.
//!
//! This module is the one owner of physical truth (docs/architecture.md, principle 2). An FTL asks it
//! to read, program, copy, invalidate and erase; it refuses physically impossible requests
//! (programming a page twice, programming out of order when the part forbids it, erasing
//! a block that still holds valid data) with a panic, because each of those is an FTL bug.
//!
//! Counting is done here, once, by cause ([`Cause`]), so no FTL can forget to count a copy.
//! When the full timing model runs, every operation is also appended to an op log that the
//! simulator drains after each request and hands to the timing model (the `timing` module, which sits above this one).
//!
//! Its parts: `geometry` (the shape, the cell presets and the address arithmetic),
//! `payload` and `memory` (page payloads, for the runs that hold data), `superblock`
//! (where a superblock's pages live), `owners` (programs by namespace) and `tests`; this
//! file keeps the array itself.

mod geometry;
mod memory;
mod owners;
mod payload;
mod superblock;

pub use geometry::{CellKind, CellTiming, Geometry, GeometryError};
pub use memory::MemoryStore;
pub use owners::ProgramOwners;
pub use payload::{FlashData, PageStore, StoredTag};
pub use superblock::Superblock;

use crate::spec::Counter;
use crate::util::zeroed_vec;
use serde::{Deserialize, Serialize};

/// Logical page number (host address / page size).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lpn(pub u32);

/// Physical page number: `block * pages_per_block + page`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ppn(pub u32);

/// Physical block number: `plane * blocks_per_plane + index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockId(pub u32);

/// Why a flash operation happened; counters and busy time are kept apart by cause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum Cause {
    /// Host data.
    Host = 0,
    /// Garbage collection or merge.
    Gc = 1,
    /// Static wear leveling.
    Wl = 2,
    /// Mapping / metadata pages (e.g. DFTL translation pages).
    Map = 3,
    /// Read-modify-write of partial pages, and buffer padding.
    Rmw = 4,
}

/// Number of [`Cause`] values.
pub const CAUSES: usize = 5;

/// The out-of-band tag every programmed page carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OobTag {
    /// Logical page stored here.
    pub lpn: Lpn,
    /// Host write sequence number of the data (kept through GC copies); 0 when the
    /// array does not track sequence numbers.
    pub seq: u32,
}

/// Kind of a logged flash operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// Page read to the controller.
    Read,
    /// Page program from the controller.
    Program,
    /// Page copy: read `src` then program `addr` (copy-back when both share a plane).
    Copy {
        /// Source page.
        src: Ppn,
    },
    /// Block erase; `addr` is the block's first page.
    Erase,
    /// `pages` copies, one after another, of valid pages of the block holding `src`
    /// into the consecutive pages from `addr` on (GC moving a victim's live pages into
    /// its frontier, see [`Nand::relocate_run`]); the timing model places it exactly as
    /// `pages` single copies from that block. Never of cause [`Cause::Rmw`].
    CopyRun {
        /// One of the source pages (they all share its block).
        src: Ppn,
        /// How many pages were copied.
        pages: u16,
    },
}

/// One logged flash operation (for the timing model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlashOp {
    /// What was done.
    pub kind: OpKind,
    /// Why.
    pub cause: Cause,
    /// Target page (first page of the block for erases).
    pub addr: Ppn,
}

/// Operation counters by cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NandCounters {
    /// Page reads (copies count one read each).
    pub reads: [u64; CAUSES],
    /// Page programs (copies count one program each).
    pub programs: [u64; CAUSES],
    /// Of `programs`, those that were copies of existing pages.
    pub copies: [u64; CAUSES],
    /// Block erases.
    pub erases: [u64; CAUSES],
}

/// Page reads of every cause in a phase's own counters (`trace.phases`).
pub const READ_PAGES: Counter = Counter::total(
    "nand.read_pages",
    "pages",
    "flash page reads of every cause (a phase's own counters only)",
);
/// Map page reads in a phase's own counters.
pub const MAP_READ_PAGES: Counter = Counter::total(
    "nand.map_read_pages",
    "pages",
    "flash page reads of mapping (translation) pages (a phase's own counters only)",
);
/// Worn-out blocks at the end of the run.
pub const WORN_OUT_BLOCKS: Counter = Counter::gauge(
    "nand.worn_out_blocks",
    "blocks",
    "blocks erased at least their rated endurance cycles, at the end of the run",
);
/// The counters the flash array reports.
pub const COUNTERS: &[Counter] = &[READ_PAGES, MAP_READ_PAGES, WORN_OUT_BLOCKS];

impl NandCounters {
    /// Total reads.
    pub fn total_reads(&self) -> u64 {
        self.reads.iter().sum()
    }
    /// Total programs.
    pub fn total_programs(&self) -> u64 {
        self.programs.iter().sum()
    }
    /// Total erases.
    pub fn total_erases(&self) -> u64 {
        self.erases.iter().sum()
    }
    /// Component-wise `self - earlier`.
    pub fn since(&self, earlier: &NandCounters) -> NandCounters {
        let mut d = *self;
        for i in 0..CAUSES {
            d.reads[i] -= earlier.reads[i];
            d.programs[i] -= earlier.programs[i];
            d.copies[i] -= earlier.copies[i];
            d.erases[i] -= earlier.erases[i];
        }
        d
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct BlockState {
    /// Next page to program (in-order parts); number of programmed pages otherwise.
    write_ptr: u32,
    valid: u32,
    erases: u32,
    /// Once a page is programmed (`write_ptr > 0`): the logical page `b` such that every
    /// programmed page `off` of the block holds `b + off`, whose tags are then implicit
    /// (not stored), or [`EXPLICIT`] when the tags are stored in `oob_lpn`. See
    /// [`Nand`]'s notes on tags.
    tag_base: u32,
}

/// [`BlockState::tag_base`] of a block whose tags are stored.
const EXPLICIT: u32 = u32::MAX;

/// The tag base after programming `lpn` at page `page` of a block whose base is `base`
/// (`None`: nothing programmed since its erase), and whether the tags so far must be
/// stored first (the block leaves implicit mode). The first program decides: a page at
/// its own offset of a logical run starts implicit mode; later programs keep it while
/// they agree.
#[inline(always)]
fn next_tag_base(base: Option<u32>, lpn: u32, page: u32) -> (u32, bool) {
    match base {
        None if lpn >= page => (lpn - page, false),
        None => (EXPLICIT, false),
        Some(EXPLICIT) => (EXPLICIT, false),
        Some(b) if lpn.wrapping_sub(page) == b && lpn >= page => (b, false),
        Some(_) => (EXPLICIT, true),
    }
}

/// The flash array's state.
///
/// Tags: a block whose programmed pages all hold their own offset of one logical run
/// (page `off` holds `base + off`: the data and primary blocks of block-mapped and
/// hybrid FTLs, written in place or merged, and sequentially written blocks) keeps its
/// OOB tags implicit — the base in its state, not a tag per page in `oob_lpn`. Reads of
/// a tag give the same answer either way; a program that breaks the pattern stores the
/// block's tags first. Whole-block merges of such blocks then move no tag bytes at all,
/// where they used to read and write a 4-byte tag per page: on a 16 GiB device the tag
/// array is 16 MiB, and merges were bound by its cache misses.
#[derive(Debug)]
pub struct Nand {
    geo: Geometry,
    /// log2(pages per block) when it is a power of two (block index by shift instead of a
    /// division on every page operation), else `u32::MAX`.
    ppb_shift: u32,
    /// `lpn + 1` of each page's OOB tag; 0 = no tag (erased or never programmed).
    oob_lpn: Vec<u32>,
    /// Write sequence per page; empty when not tracked (saves 4 B per page on huge arrays).
    oob_seq: Vec<u32>,
    valid: Vec<u64>,
    /// Valid pages per plane, and in all: how full each plane is, which a controller's
    /// dynamic allocation reads to steer writes away from a plane short of reclaimable
    /// space (ftl/layout.rs).
    plane_valid: Vec<u32>,
    valid_total: u64,
    /// One bit per page, only when out-of-order programming is allowed.
    programmed: Vec<u64>,
    blocks: Vec<BlockState>,
    in_order: bool,
    endurance_cycles: u32,
    worn_out_blocks: u32,
    next_seq: u32,
    /// Sequence numbers the next host programs store, in order, instead of fresh ones
    /// (data a write buffer received earlier, see [`Nand::stamp_next_host_program`]).
    stamps: std::collections::VecDeque<u32>,
    counters: NandCounters,
    logging: bool,
    log: Vec<FlashOp>,
    /// Physical blocks one `erase` erases: 1, or k when the FTL runs on superblocks of k
    /// blocks (`ftl::superblock`), so erase counters stay in physical block erases.
    blocks_per_erase: u32,
    /// Page payloads, when the array holds data (`ssdlab serve`, `ssdlab crashtest`):
    /// every program, copy and erase below also moves or drops the bytes.
    data: Option<Box<FlashData>>,
    /// Programs by the namespace whose logical page they hold, with two or more
    /// namespaces ([`Nand::attribute_programs`]).
    owners: Option<Box<ProgramOwners>>,
}

impl Nand {
    /// A fresh, fully erased array. `track_seq` keeps a 4-byte write sequence number per
    /// page (needed by the reference-model tests); `in_order` enforces in-order page
    /// programming inside a block, as every large-block SLC and all MLC/TLC parts require.
    pub fn new(geo: Geometry, endurance_cycles: u32, track_seq: bool, in_order: bool) -> Nand {
        geo.validate()
            .expect("geometry validated by the config layer");
        let pages = geo.pages() as usize;
        Nand {
            geo,
            ppb_shift: if geo.pages_per_block.is_power_of_two() {
                geo.pages_per_block.trailing_zeros()
            } else {
                u32::MAX
            },
            // Tags are written block by block as blocks are programmed, and on a large
            // device a run touches few blocks: with 4 KiB pages only the tags of blocks
            // in use are faulted in and zeroed, where one huge page per plane would zero
            // the whole table (a quarter of the run on a 512 GiB device). Reads of
            // tags walk a block in order, so the TLB misses stay rare.
            oob_lpn: vec![0; pages],
            oob_seq: if track_seq {
                zeroed_vec(pages)
            } else {
                Vec::new()
            },
            valid: zeroed_vec(pages.div_ceil(64)),
            plane_valid: vec![0; geo.planes() as usize],
            valid_total: 0,
            programmed: if in_order {
                Vec::new()
            } else {
                zeroed_vec(pages.div_ceil(64))
            },
            blocks: zeroed_vec(geo.blocks() as usize),
            in_order,
            endurance_cycles,
            worn_out_blocks: 0,
            next_seq: 0,
            stamps: std::collections::VecDeque::new(),
            counters: NandCounters::default(),
            logging: false,
            log: Vec::new(),
            blocks_per_erase: 1,
            data: None,
            owners: None,
        }
    }

    /// An exact copy of the array's state (tags, validity, wear, counters, pending
    /// stamps and the operation log), or `None` when it holds page payloads: their store
    /// may be a file, which a copy cannot share (`ssdlab serve`, `ssdlab crashtest`).
    pub fn try_clone(&self) -> Option<Nand> {
        // Destructured so that a field added later must be copied here too.
        let Nand {
            geo,
            ppb_shift,
            oob_lpn,
            oob_seq,
            valid,
            plane_valid,
            valid_total,
            programmed,
            blocks,
            in_order,
            endurance_cycles,
            worn_out_blocks,
            next_seq,
            stamps,
            counters,
            logging,
            log,
            blocks_per_erase,
            data,
            owners,
        } = self;
        if data.is_some() {
            return None;
        }
        Some(Nand {
            geo: *geo,
            ppb_shift: *ppb_shift,
            oob_lpn: oob_lpn.clone(),
            oob_seq: oob_seq.clone(),
            valid: valid.clone(),
            plane_valid: plane_valid.clone(),
            valid_total: *valid_total,
            programmed: programmed.clone(),
            blocks: blocks.clone(),
            in_order: *in_order,
            endurance_cycles: *endurance_cycles,
            worn_out_blocks: *worn_out_blocks,
            next_seq: *next_seq,
            stamps: stamps.clone(),
            counters: *counters,
            logging: *logging,
            log: log.clone(),
            blocks_per_erase: *blocks_per_erase,
            data: None,
            owners: owners.clone(),
        })
    }

    /// Makes the array hold page payloads in `data` (an erased store, or the one
    /// [`Nand::mount`] read).
    pub fn attach_data(&mut self, data: FlashData) {
        self.data = Some(Box::new(data));
    }

    /// The page payloads, when held.
    pub fn data(&self) -> Option<&FlashData> {
        self.data.as_deref()
    }

    /// The page payloads, when held (staging host data, power cuts).
    pub fn data_mut(&mut self) -> Option<&mut FlashData> {
        self.data.as_deref_mut()
    }

    /// Takes the page payloads out (a restart mounts them into a new array).
    pub fn take_data(&mut self) -> Option<FlashData> {
        self.data.take().map(|b| *b)
    }

    /// Builds the array a power-up finds in `data`: every page whose tag is on the store
    /// is programmed (with that tag), erase counts as stored, nothing valid yet (the
    /// FTL's recovery marks the pages its mapping keeps, [`Nand::revalidate`]). Under
    /// the in-order rule a block's programmed pages form a prefix; a page after a gap
    /// cannot have been programmed in order and is ignored (counted in the result).
    /// Returns the array, the tags read (`None` = erased) and the ignored pages.
    pub fn mount(
        geo: Geometry,
        endurance_cycles: u32,
        in_order: bool,
        data: FlashData,
    ) -> (Nand, Vec<Option<StoredTag>>, u64) {
        let mut n = Nand::new(geo, endurance_cycles, true, in_order);
        let mut tags = data.store().scan_tags();
        let erases = data.store().erase_counts();
        let np = geo.pages_per_block as usize;
        let mut ignored = 0;
        let mut max_seq = None::<u32>;
        for (b, st) in n.blocks.iter_mut().enumerate() {
            st.erases = erases[b];
            if st.erases >= endurance_cycles {
                n.worn_out_blocks += 1;
            }
            st.tag_base = EXPLICIT;
            let first = b * np;
            let mut gap = false;
            for off in 0..np {
                let i = first + off;
                let Some(t) = tags[i] else {
                    gap = true;
                    continue;
                };
                if in_order && gap {
                    tags[i] = None;
                    ignored += 1;
                    continue;
                }
                if in_order {
                    st.write_ptr += 1;
                } else {
                    n.programmed[i >> 6] |= 1u64 << (i & 63);
                    st.write_ptr += 1;
                }
                n.oob_lpn[i] = t.lpn.wrapping_add(1);
                n.oob_seq[i] = t.seq;
                // Metadata pages draw from the same counter: new ones must outrank
                // every stale copy left on flash too.
                max_seq = Some(max_seq.map_or(t.seq, |m| m.max(t.seq)));
            }
        }
        n.next_seq = max_seq.map_or(0, |m| m.wrapping_add(1));
        let mut data = data;
        if let Some(last) = tags.iter().flatten().map(|t| t.program_seq).max() {
            data.continue_program_seq(last);
        }
        n.data = Some(Box::new(data));
        (n, tags, ignored)
    }

    /// Marks programmed page `ppn` valid again (an FTL's recovery keeping it).
    pub fn revalidate(&mut self, ppn: Ppn) {
        let i = ppn.0 as usize;
        assert!(
            self.is_programmed(ppn),
            "recovery bug: revalidate of erased page {ppn:?}"
        );
        let bit = 1u64 << (i & 63);
        if self.valid[i >> 6] & bit == 0 {
            self.valid[i >> 6] |= bit;
            let bi = self.block_index(ppn);
            self.blocks[bi].valid += 1;
            self.count_valid(bi, 1);
        }
    }

    /// Makes each block of this array stand for `k` physical blocks erased together (a
    /// superblock): erase counters and worn-out counts then count physical blocks.
    pub fn set_blocks_per_erase(&mut self, k: u32) {
        self.blocks_per_erase = k.max(1);
    }

    /// The array's geometry.
    #[inline]
    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    /// Whether write sequence numbers are tracked.
    pub fn tracks_seq(&self) -> bool {
        !self.oob_seq.is_empty()
    }

    /// Whether in-order programming is enforced.
    pub fn in_order(&self) -> bool {
        self.in_order
    }

    /// Turns the op log on or off (on for the full timing model).
    pub fn set_logging(&mut self, on: bool) {
        self.logging = on;
        self.log.clear();
    }

    /// Moves the logged operations into `other` (cleared first) and keeps `other`'s
    /// buffer for the next ones, so callers can read the NAND while walking the log
    /// without allocating.
    pub fn swap_log(&mut self, other: &mut Vec<FlashOp>) {
        other.clear();
        std::mem::swap(&mut self.log, other);
    }

    /// Operations logged since the last call (the buffer is reused).
    pub fn drain_log(&mut self) -> std::vec::Drain<'_, FlashOp> {
        self.log.drain(..)
    }

    /// Counters so far.
    #[inline]
    pub fn counters(&self) -> &NandCounters {
        &self.counters
    }

    /// Sequence number the next host program will get.
    pub fn next_seq(&self) -> u32 {
        self.next_seq
    }

    /// Hands out the next sequence number without programming anything: a write buffer
    /// tags the data it absorbs in the order the host wrote it, so that the tag written
    /// to flash later (see [`Nand::stamp_next_host_program`]) still says which host write
    /// the page holds.
    #[inline]
    pub fn take_seq(&mut self) -> u32 {
        let s = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        s
    }

    /// Makes a coming program of cause [`Cause::Host`] store `seq` in its OOB tag instead
    /// of a fresh number (a write buffer writing back data the host wrote earlier).
    /// Stamps are used in the order given, one per host program.
    #[inline]
    pub fn stamp_next_host_program(&mut self, seq: u32) {
        self.stamps.push_back(seq);
    }

    /// Whether a stamp is still waiting for its host program (the simulator checks that
    /// every FTL consumed them all).
    pub fn stamp_pending(&self) -> bool {
        !self.stamps.is_empty()
    }

    #[inline]
    fn log_op(&mut self, kind: OpKind, cause: Cause, addr: Ppn) {
        if self.logging {
            self.log.push(FlashOp { kind, cause, addr });
        }
    }

    /// Whether `ppn` holds valid data.
    #[inline]
    pub fn is_valid(&self, ppn: Ppn) -> bool {
        let i = ppn.0 as usize;
        self.valid[i >> 6] & (1u64 << (i & 63)) != 0
    }

    /// Whether `ppn` has been programmed since its block's last erase.
    #[inline]
    pub fn is_programmed(&self, ppn: Ppn) -> bool {
        if self.in_order {
            let b = self.geo.block_of(ppn);
            ppn.0 - self.geo.first_page(b).0 < self.blocks[b.0 as usize].write_ptr
        } else {
            let i = ppn.0 as usize;
            self.programmed[i >> 6] & (1u64 << (i & 63)) != 0
        }
    }

    /// OOB tag of a programmed page (no flash operation is counted).
    #[inline]
    pub fn oob(&self, ppn: Ppn) -> OobTag {
        debug_assert!(self.is_programmed(ppn), "OOB of unprogrammed page {ppn:?}");
        OobTag {
            lpn: Lpn(self.tag_lpn(ppn)),
            seq: self.oob_seq.get(ppn.0 as usize).copied().unwrap_or(0),
        }
    }

    /// Valid pages in `block`.
    #[inline]
    pub fn valid_count(&self, block: BlockId) -> u32 {
        self.blocks[block.0 as usize].valid
    }

    /// Next page to program in `block` (pages programmed so far).
    #[inline]
    pub fn write_ptr(&self, block: BlockId) -> u32 {
        self.blocks[block.0 as usize].write_ptr
    }

    /// Erase count of `block`.
    #[inline]
    pub fn erase_count(&self, block: BlockId) -> u32 {
        self.blocks[block.0 as usize].erases
    }

    /// Erase counts of all blocks, in block order.
    pub fn erase_counts(&self) -> Vec<u32> {
        self.blocks.iter().map(|b| b.erases).collect()
    }

    /// Physical erase blocks each erase covers (a superblock's members; else 1).
    pub fn blocks_per_erase(&self) -> u32 {
        self.blocks_per_erase
    }

    /// Program/erase cycles a block is rated for.
    pub fn endurance_cycles(&self) -> u32 {
        self.endurance_cycles
    }

    /// Blocks erased at least `endurance_cycles` times.
    pub fn worn_out_blocks(&self) -> u32 {
        self.worn_out_blocks
    }

    /// Reads a page for `cause` and returns its tag.
    #[inline]
    pub fn read(&mut self, ppn: Ppn, cause: Cause) -> OobTag {
        assert!(
            self.is_programmed(ppn),
            "FTL bug: read of erased page {ppn:?}"
        );
        self.counters.reads[cause as usize] += 1;
        self.log_op(OpKind::Read, cause, ppn);
        self.oob(ppn)
    }

    /// Counts a read of a page without checking it holds data; used for reads the model
    /// charges but whose content does not matter (e.g. DFTL translation pages kept off-array).
    pub fn charge_read(&mut self, ppn: Ppn, cause: Cause) {
        self.counters.reads[cause as usize] += 1;
        self.log_op(OpKind::Read, cause, ppn);
    }

    /// Adds `delta` valid pages to block `bi`'s plane and the total (the block's own
    /// count is the caller's).
    #[inline(always)]
    fn count_valid(&mut self, bi: usize, delta: i32) {
        let plane = bi / self.geo.blocks_per_plane as usize;
        self.plane_valid[plane] = self.plane_valid[plane].wrapping_add_signed(delta);
        self.valid_total = self.valid_total.wrapping_add_signed(delta as i64);
    }

    /// Moves `n` valid pages' share from block `from`'s plane to block `to`'s.
    #[inline(always)]
    fn move_valid(&mut self, from: usize, to: usize, n: u32) {
        let bpp = self.geo.blocks_per_plane as usize;
        let (pf, pt) = (from / bpp, to / bpp);
        if pf != pt {
            self.plane_valid[pf] -= n;
            self.plane_valid[pt] += n;
        }
    }

    /// Valid pages on `plane`.
    #[inline]
    pub fn plane_valid(&self, plane: u32) -> u32 {
        self.plane_valid[plane as usize]
    }

    /// Valid pages on the whole array.
    #[inline]
    pub fn valid_total(&self) -> u64 {
        self.valid_total
    }

    /// Block index of `ppn` (shift when possible).
    #[inline(always)]
    fn block_index(&self, ppn: Ppn) -> usize {
        if self.ppb_shift != u32::MAX {
            (ppn.0 >> self.ppb_shift) as usize
        } else {
            (ppn.0 / self.geo.pages_per_block) as usize
        }
    }

    #[inline]
    fn place(&mut self, ppn: Ppn, lpn: Lpn, seq: u32) {
        if let Some(o) = self.owners.as_deref_mut() {
            o.count(lpn.0);
        }
        let bi = self.block_index(ppn);
        let page = ppn.0 - bi as u32 * self.geo.pages_per_block;
        let b = BlockId(bi as u32);
        let st = &mut self.blocks[bi];
        let (base, store_all) =
            next_tag_base((st.write_ptr > 0).then_some(st.tag_base), lpn.0, page);
        if self.in_order {
            assert!(
                page == st.write_ptr,
                "FTL bug: program of page {page} of block {} out of order (next is {})",
                b.0,
                st.write_ptr
            );
        } else {
            let i = ppn.0 as usize;
            let bit = 1u64 << (i & 63);
            assert!(
                self.programmed[i >> 6] & bit == 0,
                "FTL bug: program of non-erased page {ppn:?}"
            );
            self.programmed[i >> 6] |= bit;
        }
        st.write_ptr += 1;
        st.valid += 1;
        self.count_valid(bi, 1);
        if store_all {
            self.store_tags(bi);
        }
        self.blocks[bi].tag_base = base;
        let i = ppn.0 as usize;
        self.valid[i >> 6] |= 1u64 << (i & 63);
        if base == EXPLICIT {
            self.oob_lpn[i] = lpn.0 + 1;
        }
        if let Some(s) = self.oob_seq.get_mut(i) {
            *s = seq;
        }
    }

    /// Programs new data for `lpn` into erased page `ppn`; returns the write sequence
    /// number stored in its OOB tag.
    #[inline]
    pub fn program(&mut self, ppn: Ppn, lpn: Lpn, cause: Cause) -> u32 {
        let seq = match self.stamps.front() {
            Some(&s) if cause == Cause::Host => {
                self.stamps.pop_front();
                s
            }
            _ => self.take_seq(),
        };
        self.place(ppn, lpn, seq);
        if let Some(d) = self.data.as_deref_mut() {
            d.on_program(ppn.0, lpn.0, seq, cause);
        }
        self.counters.programs[cause as usize] += 1;
        self.log_op(OpKind::Program, cause, ppn);
        seq
    }

    /// Copies valid page `src` into erased page `dst` (tag and data kept), for `cause`.
    /// The source stays valid; the FTL invalidates it once its map points at `dst`.
    #[inline]
    pub fn copy(&mut self, src: Ppn, dst: Ppn, cause: Cause) {
        let tag = self.oob(src);
        self.copy_tagged(src, dst, tag, cause);
    }

    /// [`Nand::copy`] for a caller that knows the logical page `src`'s tag names (its
    /// map points `lpn` at `src`): the same tags, checks, counters and log, without
    /// loading the source's tag. A management block's read-modify-write copies pages of
    /// a random block of a multi-GiB array, where that load is a cache miss of its own
    /// (session 26's profile of EXP-M10: 69 % of `copy`'s samples).
    #[inline]
    pub fn copy_known(&mut self, src: Ppn, dst: Ppn, lpn: Lpn, cause: Cause) {
        debug_assert_eq!(
            self.tag_lpn(src),
            lpn.0,
            "FTL bug: {src:?} holds another page"
        );
        let seq = self.oob_seq.get(src.0 as usize).copied().unwrap_or(0);
        self.copy_tagged(src, dst, OobTag { lpn, seq }, cause);
    }

    /// The copy of `src`, whose tag is `tag`, into `dst`.
    #[inline(always)]
    fn copy_tagged(&mut self, src: Ppn, dst: Ppn, tag: OobTag, cause: Cause) {
        debug_assert!(self.is_valid(src), "FTL bug: copy of invalid page {src:?}");
        self.place(dst, tag.lpn, tag.seq);
        if let Some(d) = self.data.as_deref_mut() {
            d.on_copy(src.0, dst.0);
        }
        let c = cause as usize;
        self.counters.reads[c] += 1;
        self.counters.programs[c] += 1;
        self.counters.copies[c] += 1;
        self.log_op(OpKind::Copy { src }, cause, dst);
    }

    /// Moves the valid pages `srcs` (all of one block, in the order given) into the
    /// `srcs.len()` consecutive erased pages from `dst` on, which must lie in one block:
    /// exactly what [`Nand::relocate`] of each `srcs[k]` to `dst + k` in turn does (same
    /// tags, checks, counters; logged as one [`OpKind::CopyRun`] entry instead of one
    /// [`OpKind::Copy`] per page), but with each block's state and the counters updated
    /// once for the whole run. This is a GC's victim-copy loop, the simulator's hottest
    /// path under garbage collection. The moved logical pages are in the OOB tags of the
    /// destination pages afterwards ([`Nand::oob_lpn_raw`]).
    pub fn relocate_run(&mut self, srcs: &[Ppn], dst: Ppn, cause: Cause) {
        let Some(&first_src) = srcs.first() else {
            return;
        };
        debug_assert!(cause != Cause::Rmw, "copy runs are GC / WL moves");
        let n = srcs.len();
        let db = self.block_index(dst);
        let off = dst.0 as usize - db * self.geo.pages_per_block as usize;
        assert!(
            off + n <= self.geo.pages_per_block as usize,
            "FTL bug: copy run of {n} pages from page {off} overflows block {db}"
        );
        if !self.in_order {
            // Relaxed parts check every target page's programmed bit; no FTL that runs
            // them moves pages in runs on a hot path, so the single-page path serves.
            for (k, &src) in srcs.iter().enumerate() {
                self.relocate(src, Ppn(dst.0 + k as u32), cause);
            }
            return;
        }
        assert!(
            off as u32 == self.blocks[db].write_ptr,
            "FTL bug: program of page {off} of block {db} out of order (next is {})",
            self.blocks[db].write_ptr
        );
        let sb = self.block_index(first_src);
        let d = dst.0 as usize;
        let track_seq = !self.oob_seq.is_empty();
        // Tags: the source block's base (all sources share it) and the target's, decided
        // page by page as `place` does.
        let np = self.geo.pages_per_block;
        let (s_first, s_base) = (sb as u32 * np, self.blocks[sb].tag_base);
        let st = &self.blocks[db];
        let mut d_base = (st.write_ptr > 0).then_some(st.tag_base);
        for (k, &src) in srcs.iter().enumerate() {
            let i = src.0 as usize;
            assert!(
                self.block_index(src) == sb,
                "FTL bug: copy run sources {first_src:?} and {src:?} lie in different blocks"
            );
            let bit = 1u64 << (i & 63);
            assert!(
                self.valid[i >> 6] & bit != 0,
                "FTL bug: invalidate of invalid page {src:?}"
            );
            self.valid[i >> 6] &= !bit;
            let lpn = if s_base != EXPLICIT {
                s_base.wrapping_add(src.0 - s_first)
            } else {
                self.oob_lpn[i].wrapping_sub(1)
            };
            if let Some(o) = self.owners.as_deref_mut() {
                o.count(lpn);
            }
            let page = (off + k) as u32;
            let (base, store_all) = next_tag_base(d_base, lpn, page);
            if store_all {
                self.store_tags(db);
            }
            self.blocks[db].tag_base = base;
            d_base = Some(base);
            if base == EXPLICIT {
                self.oob_lpn[d + k] = lpn + 1;
            }
            if track_seq {
                self.oob_seq[d + k] = self.oob_seq[i];
            }
        }
        // The targets lie at and beyond the write pointer of an in-order block, so their
        // validity bits are clear.
        set_bits(&mut self.valid, d, d + n);
        if let Some(data) = self.data.as_deref_mut() {
            for (k, &src) in srcs.iter().enumerate() {
                data.on_copy(src.0, dst.0 + k as u32);
            }
        }
        let st = &mut self.blocks[db];
        st.write_ptr += n as u32;
        st.valid += n as u32;
        self.blocks[sb].valid -= n as u32;
        self.move_valid(sb, db, n as u32);
        let c = cause as usize;
        self.counters.reads[c] += n as u64;
        self.counters.programs[c] += n as u64;
        self.counters.copies[c] += n as u64;
        if self.logging {
            for (k, chunk) in srcs.chunks(u16::MAX as usize).enumerate() {
                let addr = Ppn(dst.0 + (k * u16::MAX as usize) as u32);
                let kind = OpKind::CopyRun {
                    src: chunk[0],
                    pages: chunk.len() as u16,
                };
                self.log.push(FlashOp { kind, cause, addr });
            }
        }
    }

    /// Copies valid page `src` into erased page `dst` and invalidates `src` in one step
    /// (what GC does for every live page); returns the logical page moved.
    #[inline]
    pub fn relocate(&mut self, src: Ppn, dst: Ppn, cause: Cause) -> Lpn {
        self.copy(src, dst, cause);
        // A move, not an overwrite: the source keeps its payload until its block is
        // erased (a mount may pick either copy, both hold the same data).
        self.clear_valid(src);
        Lpn(self.tag_lpn(src))
    }

    /// Logical page in the OOB tag of `ppn` without any checks (an erased page gives a
    /// meaningless value).
    #[inline]
    pub fn oob_lpn_raw(&self, ppn: Ppn) -> u32 {
        self.tag_lpn(ppn)
    }

    /// The logical page of `ppn`'s tag: from its block's base when the block's tags are
    /// implicit, else stored.
    #[inline(always)]
    fn tag_lpn(&self, ppn: Ppn) -> u32 {
        let bi = self.block_index(ppn);
        let base = self.blocks[bi].tag_base;
        if base != EXPLICIT && self.blocks[bi].write_ptr > 0 {
            base.wrapping_add(ppn.0 - bi as u32 * self.geo.pages_per_block)
        } else {
            self.oob_lpn[ppn.0 as usize].wrapping_sub(1)
        }
    }

    /// Stores the implicit tags of block `bi` (it leaves implicit mode). Every page gets
    /// its offset's tag: erased pages' tags are never read.
    #[cold]
    fn store_tags(&mut self, bi: usize) {
        let base = self.blocks[bi].tag_base;
        debug_assert!(base != EXPLICIT);
        let np = self.geo.pages_per_block as usize;
        let first = bi * np;
        for (off, t) in self.oob_lpn[first..first + np].iter_mut().enumerate() {
            *t = base.wrapping_add(off as u32 + 1);
        }
        self.blocks[bi].tag_base = EXPLICIT;
    }

    /// Marks `ppn`'s data stale (overwritten, trimmed or copied away). The page store
    /// may drop the payload of a page overwritten or trimmed
    /// ([`FlashData::on_invalidate`]).
    #[inline]
    pub fn invalidate(&mut self, ppn: Ppn) {
        self.clear_valid(ppn);
        if let Some(d) = self.data.as_deref_mut() {
            d.on_invalidate(ppn.0);
        }
    }

    #[inline]
    fn clear_valid(&mut self, ppn: Ppn) {
        let i = ppn.0 as usize;
        let bit = 1u64 << (i & 63);
        assert!(
            self.valid[i >> 6] & bit != 0,
            "FTL bug: invalidate of invalid page {ppn:?}"
        );
        self.valid[i >> 6] &= !bit;
        let bi = self.block_index(ppn);
        self.blocks[bi].valid -= 1;
        self.count_valid(bi, -1);
    }

    /// Marks programmed page `ppn` valid again. Validity is the flash user's view, kept
    /// here for its checks; a file system that rebuilds that view from the tags after a
    /// power loss (YAFFS2's mount scan, `fs/yaffs2/`) may find live a page it had
    /// invalidated in RAM before the cut, and records it with this.
    pub fn mark_valid(&mut self, ppn: Ppn) {
        assert!(
            self.is_programmed(ppn),
            "bug: mark_valid of erased page {ppn:?}"
        );
        let i = ppn.0 as usize;
        let bit = 1u64 << (i & 63);
        if self.valid[i >> 6] & bit == 0 {
            self.valid[i >> 6] |= bit;
            let bi = self.block_index(ppn);
            self.blocks[bi].valid += 1;
            self.count_valid(bi, 1);
        }
    }

    /// Erases `block`; it must hold no valid page.
    pub fn erase(&mut self, block: BlockId, cause: Cause) {
        let st = &mut self.blocks[block.0 as usize];
        assert!(
            st.valid == 0,
            "FTL bug: erase of block {} which still holds {} valid pages",
            block.0,
            st.valid
        );
        st.write_ptr = 0;
        st.erases += 1;
        if st.erases == self.endurance_cycles {
            self.worn_out_blocks += self.blocks_per_erase;
        }
        if !self.in_order {
            let first = self.geo.first_page(block).0 as usize;
            clear_bits(
                &mut self.programmed,
                first,
                first + self.geo.pages_per_block as usize,
            );
        }
        self.counters.erases[cause as usize] += self.blocks_per_erase as u64;
        let first = self.geo.first_page(block);
        let erases = self.blocks[block.0 as usize].erases;
        if let Some(d) = self.data.as_deref_mut() {
            d.on_erase(block.0, first.0, self.geo.pages_per_block, erases);
        }
        self.log_op(OpKind::Erase, cause, first);
    }

    /// Counts from now on every program by the namespace whose logical page it holds:
    /// namespace i ends (exclusive) at logical page `ends[i]`, the first starts at 0
    /// ([`ProgramOwners`]). Called once, when the device is built with two or more
    /// namespaces.
    pub fn attribute_programs(&mut self, ends: Vec<u32>) {
        self.owners = Some(Box::new(ProgramOwners::new(ends)));
    }

    /// Programs so far by namespace, then those of pages no namespace holds; `None`
    /// unless [`Nand::attribute_programs`] was called.
    pub fn owner_programs(&self) -> Option<&[u64]> {
        self.owners.as_deref().map(ProgramOwners::programs)
    }

    /// Asks the CPU to start fetching the state of page `ppn` (validity and status
    /// bits, OOB tag, its block's counters): an FTL about to test a page and then
    /// program or invalidate it gets all those cache misses at once.
    #[inline]
    pub fn prefetch_page(&self, ppn: Ppn) {
        use crate::util::prefetch;
        let i = ppn.0 as usize;
        self.prefetch_page_status(ppn);
        prefetch(&self.oob_lpn, i);
        prefetch(&self.oob_seq, i);
    }

    /// [`Nand::prefetch_page`] without the OOB tag: for a page that is more likely
    /// tested and invalidated than programmed.
    #[inline]
    pub fn prefetch_page_status(&self, ppn: Ppn) {
        use crate::util::prefetch;
        let i = ppn.0 as usize;
        prefetch(&self.valid, i >> 6);
        prefetch(&self.programmed, i >> 6);
        prefetch(&self.blocks, self.block_index(ppn));
    }

    /// Asks the CPU to start fetching everything a whole-block operation on `block` will
    /// touch (its OOB tags, validity and status bits, block state), so the cache misses
    /// of a merge overlap instead of following one another.
    #[inline]
    pub fn prefetch_block(&self, block: BlockId) {
        self.prefetch_pages(block, self.geo.pages_per_block);
    }

    /// [`Nand::prefetch_block`] for the first `pages` pages of `block` only (a log block
    /// holding a few pages: fetching the rest would only crowd the memory system).
    #[inline]
    pub fn prefetch_pages(&self, block: BlockId, pages: u32) {
        use crate::util::prefetch;
        let np = pages.min(self.geo.pages_per_block) as usize;
        let first = self.geo.first_page(block).0 as usize;
        // One prefetch per 64-byte line: 16 four-byte tags.
        for i in (first..first + np).step_by(16) {
            prefetch(&self.oob_lpn, i);
            prefetch(&self.oob_seq, i);
        }
        if np > 0 {
            for w in (first >> 6)..=((first + np - 1) >> 6) {
                prefetch(&self.valid, w);
                prefetch(&self.programmed, w);
            }
        }
        prefetch(&self.blocks, block.0 as usize);
    }

    /// [`Nand::prefetch_block`] without the OOB tags: the validity and status bits and
    /// the block state, for a block whose tags are implicit (written in place: data and
    /// primary blocks, and the free blocks they merge into).
    #[inline]
    pub fn prefetch_block_status(&self, block: BlockId) {
        use crate::util::prefetch;
        let np = self.geo.pages_per_block as usize;
        let first = self.geo.first_page(block).0 as usize;
        for w in (first >> 6)..=((first + np - 1) >> 6) {
            prefetch(&self.valid, w);
            prefetch(&self.programmed, w);
        }
        prefetch(&self.blocks, block.0 as usize);
    }

    /// Moves every valid page of `src` to the same page offset in `dst` (a block merge:
    /// NFTL folds, log-block merges) and returns how many moved. Counted exactly like one
    /// [`Nand::relocate`] per page (a read, a program and a copy of `cause` each) and
    /// logged page by page, but done a 64-page word at a time in relaxed mode, where a
    /// whole-block merge is otherwise the simulator's hottest loop. Every target page must
    /// be erased; under the in-order rule the pages go one by one, so the rule is checked.
    pub fn relocate_block(&mut self, src: BlockId, dst: BlockId, cause: Cause) -> u32 {
        let np = self.geo.pages_per_block as usize;
        let s0 = self.geo.first_page(src).0 as usize;
        let d0 = self.geo.first_page(dst).0 as usize;
        if self.in_order || !np.is_multiple_of(64) || self.logging || self.data.is_some() {
            self.prefetch_block(src);
            let mut moved = 0;
            for off in 0..np {
                if self.is_valid(Ppn((s0 + off) as u32)) {
                    self.relocate(Ppn((s0 + off) as u32), Ppn((d0 + off) as u32), cause);
                    moved += 1;
                }
            }
            return moved;
        }
        let (sb, db) = (src.0 as usize, dst.0 as usize);
        if self.blocks[sb].valid == 0 {
            return 0;
        }
        // Tags: the pages keep their offsets, so a source whose tags are implicit hands
        // its base to a target that has none yet or the same one, and no tag moves.
        // Otherwise the target stores its tags: copied from the source's, or written
        // from the source's base.
        let s_base = self.blocks[sb].tag_base;
        let d_base = (self.blocks[db].write_ptr > 0).then_some(self.blocks[db].tag_base);
        let implicit = s_base != EXPLICIT && d_base.is_none_or(|b| b == s_base);
        if !implicit {
            if d_base.is_some_and(|b| b != EXPLICIT) {
                self.store_tags(db);
            }
            self.blocks[db].tag_base = EXPLICIT;
            if s_base == EXPLICIT {
                self.prefetch_block(src);
            }
            self.prefetch_block(dst);
        }
        let track_seq = !self.oob_seq.is_empty();
        // Relaxed part, whole words: blocks start on a word boundary.
        let (sw, dw) = (s0 >> 6, d0 >> 6);
        let mut moved = 0u32;
        for w in 0..np >> 6 {
            let mask = self.valid[sw + w];
            if mask == 0 {
                continue;
            }
            assert!(
                self.programmed[dw + w] & mask == 0,
                "FTL bug: merge into non-erased pages of block {}",
                dst.0
            );
            let taken = self.programmed[dw + w];
            self.programmed[dw + w] |= mask;
            self.valid[dw + w] |= mask;
            self.valid[sw + w] = 0;
            moved += mask.count_ones();
            if let Some(o) = self.owners.as_deref_mut() {
                // The moved pages' owners, from the source's tags (left as they are).
                let mut m = mask;
                while m != 0 {
                    let off = (w << 6) + m.trailing_zeros() as usize;
                    m &= m - 1;
                    o.count(if s_base != EXPLICIT {
                        s_base.wrapping_add(off as u32)
                    } else {
                        self.oob_lpn[s0 + off].wrapping_sub(1)
                    });
                }
            }
            if implicit && !track_seq {
                continue;
            }
            let (s, d) = (s0 + (w << 6), d0 + (w << 6));
            // Copy the tags in runs of consecutive pages: the runs of `mask` (exactly
            // the moved pages), or, when fewer, the runs of target pages not yet
            // programmed (a superset of `mask`). Tags of pages left erased are never read
            // (only programmed pages' tags are; erasing leaves old tags in place too), so
            // the extra ones are harmless, and an erased target word is one 64-tag copy.
            let free = !taken;
            let runs = |x: u64| (x & !(x << 1)).count_ones();
            let mut m = if runs(free) < runs(mask) { free } else { mask };
            while m != 0 {
                let start = m.trailing_zeros() as usize;
                let len = (!(m >> start)).trailing_zeros().min(64 - start as u32) as usize;
                if !implicit {
                    if s_base == EXPLICIT {
                        copy_run(&mut self.oob_lpn, s + start, d + start, len);
                    } else {
                        let first = s_base.wrapping_add(((w << 6) + start) as u32 + 1);
                        for (j, t) in self.oob_lpn[d + start..d + start + len]
                            .iter_mut()
                            .enumerate()
                        {
                            *t = first.wrapping_add(j as u32);
                        }
                    }
                }
                if track_seq {
                    copy_run(&mut self.oob_seq, s + start, d + start, len);
                }
                m &= if start + len == 64 {
                    0
                } else {
                    !(((1u64 << len) - 1) << start)
                };
            }
        }
        if implicit && moved > 0 {
            self.blocks[db].tag_base = s_base;
        }
        self.blocks[sb].valid -= moved;
        let st = &mut self.blocks[db];
        st.valid += moved;
        st.write_ptr += moved;
        self.move_valid(sb, db, moved);
        let c = cause as usize;
        let n = moved as u64;
        self.counters.reads[c] += n;
        self.counters.programs[c] += n;
        self.counters.copies[c] += n;
        moved
    }

    /// Validity bits of the `len` pages (1 to 64) from `first`: bit `i` is page
    /// `first + i` (a whole run of a block's pages in one or two word reads).
    #[inline]
    pub fn valid_bits(&self, first: Ppn, len: u32) -> u64 {
        debug_assert!((1..=64).contains(&len), "valid_bits of {len} pages");
        bits_at(&self.valid, first.0 as usize, len)
    }

    /// Programmed bits of the `len` pages (1 to 64) from `first` (as [`Nand::valid_bits`]).
    #[inline]
    pub fn programmed_bits(&self, first: Ppn, len: u32) -> u64 {
        debug_assert!((1..=64).contains(&len), "programmed_bits of {len} pages");
        if self.in_order {
            return (0..len).fold(0, |acc, i| {
                acc | (self.is_programmed(Ppn(first.0 + i)) as u64) << i
            });
        }
        bits_at(&self.programmed, first.0 as usize, len)
    }

    /// Valid pages of `block`, in page order, appended to `out`.
    pub fn valid_pages(&self, block: BlockId, out: &mut Vec<Ppn>) {
        let first = self.geo.first_page(block).0 as usize;
        let end = first + self.geo.pages_per_block as usize;
        let mut i = first;
        while i < end {
            let word_end = ((i >> 6) + 1) << 6;
            let stop = word_end.min(end);
            let mut w = self.valid[i >> 6] >> (i & 63);
            if stop - i < 64 {
                w &= (1u64 << (stop - i)) - 1;
            }
            while w != 0 {
                let t = w.trailing_zeros() as usize;
                out.push(Ppn((i + t) as u32));
                w &= w - 1;
            }
            i = stop;
        }
    }

    /// Panics if any block's valid count disagrees with its valid bits, or a valid page
    /// lies beyond its block's write pointer.
    pub fn check_invariants(&self) {
        let mut buf = Vec::new();
        for b in 0..self.geo.blocks() {
            buf.clear();
            self.valid_pages(BlockId(b), &mut buf);
            let st = &self.blocks[b as usize];
            assert_eq!(buf.len() as u32, st.valid, "block {b}: valid count");
            for p in &buf {
                assert!(
                    self.is_programmed(*p),
                    "block {b}: valid page {p:?} not programmed"
                );
            }
            assert!(
                st.write_ptr <= self.geo.pages_per_block,
                "block {b}: write pointer"
            );
        }
        let bpp = self.geo.blocks_per_plane as usize;
        for (plane, &n) in self.plane_valid.iter().enumerate() {
            let blocks = &self.blocks[plane * bpp..(plane + 1) * bpp];
            let sum: u64 = blocks.iter().map(|st| st.valid as u64).sum();
            assert_eq!(n as u64, sum, "plane {plane}: valid count");
        }
        let sum: u64 = self.blocks.iter().map(|st| st.valid as u64).sum();
        assert_eq!(self.valid_total, sum, "valid pages in all");
    }
}

/// Copies `v[s..s + len]` to `v[d..d + len]` (disjoint): short runs element by element,
/// long ones with `memcpy`.
#[inline(always)]
fn copy_run(v: &mut [u32], s: usize, d: usize, len: usize) {
    if len < 8 {
        for i in 0..len {
            v[d + i] = v[s + i];
        }
    } else {
        v.copy_within(s..s + len, d);
    }
}

/// Bits `i..i + len` (`len` 1 to 64) of a bitset, bit 0 first.
#[inline]
fn bits_at(bits: &[u64], i: usize, len: u32) -> u64 {
    let (w, sh) = (i >> 6, i & 63);
    let mut v = bits[w] >> sh;
    if sh != 0 && sh + len as usize > 64 {
        v |= bits[w + 1] << (64 - sh);
    }
    if len < 64 {
        v &= (1u64 << len) - 1;
    }
    v
}

/// Calls `f(word, mask)` for each word of a bitset that bits `from..to` touch, with
/// the mask of those bits in it.
#[inline]
fn for_bit_range(from: usize, to: usize, mut f: impl FnMut(usize, u64)) {
    let mut i = from;
    while i < to {
        let word_end = ((i >> 6) + 1) << 6;
        let stop = word_end.min(to);
        let n = stop - i;
        let mask = if n == 64 {
            u64::MAX
        } else {
            ((1u64 << n) - 1) << (i & 63)
        };
        f(i >> 6, mask);
        i = stop;
    }
}

/// Clears bits `from..to` of a bitset, a word at a time where it can.
fn clear_bits(bits: &mut [u64], from: usize, to: usize) {
    for_bit_range(from, to, |w, mask| bits[w] &= !mask);
}

/// Sets bits `from..to` of a bitset, a word at a time where it can.
fn set_bits(bits: &mut [u64], from: usize, to: usize) {
    for_bit_range(from, to, |w, mask| bits[w] |= mask);
}

#[cfg(test)]
mod tests;
