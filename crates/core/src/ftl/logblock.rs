//! Machinery shared by the block-mapped FTLs with log or replacement blocks (NFTL, BAST,
//! FAST, FASTer; docs/algorithms.md §2.2–2.4): the free-block pool, the data-block map, the
//! three merges, and the page-mapped log area of FAST and FASTer.
//!
//! ```text
//! pool:          erased blocks, least-worn first (dynamic wear leveling; FIFO when
//!                ftl.dynamic_wl = false); equal wear → channel-first plane rotation
//! switch merge:  log holds offsets 0..Np−1 at their own offsets → it becomes the data
//!                block; erase the old data block                    (0 copies, 1 erase)
//! partial merge: log holds offsets 0..k−1 at their own offsets → copy the latest copy of
//!                every other offset into it, then switch         (Np−k copies, 1 erase)
//! full merge:    new block ← latest copy of every offset (data block + log pages);
//!                erase the old data block; the caller erases emptied logs (≤ Np copies)
//! ```
//! Every latest copy is the one valid page of its logical page (the NAND holds exactly
//! one), so the data block's valid pages are exactly the offsets no log overrides and a
//! merge moves the data block's share with one batch [`Nand::relocate_block`]. Merge
//! copies and erases have cause [`Cause::Gc`], so the formula's GC share covers them.
//!
//! Block budget: every logical block owns at most one data block, the log area is capped
//! (`[ftl.log] log_blocks`), and one block stays free so a full merge always has its
//! destination before it frees the old data block. The default log area is every block
//! not needed for that: "page-mapped log blocks in the over-provisioned area"
//! (docs/papers.md §4).
//!
//! Bad blocks (docs/ftls.md, "Bad blocks"): an erase that brings a block to the NAND's
//! endurance retires it instead of returning it to the pool; it is never allocated again.
//! Each retirement shrinks the log area by one block ([`Blocks::retired`]: BAST and FAST
//! lower their log caps by it; NFTL's chains simply find fewer free units), so the
//! one-block merge reserve survives; when an allocation finds the pool empty after
//! retirements, the drive has reached its end of life ([`FtlError::EndOfLife`]). Merges
//! check for their destination before changing any map, so the error leaves every
//! structure consistent. With a superblock every member is erased with the superblock,
//! so they reach the endurance together and the whole superblock is retired.

use super::FtlError;
use crate::nand::{BlockId, Cause, Geometry, Lpn, Nand, Ppn};
use crate::spec::{ConfigError, Counter, Counters};
use crate::util::FastDiv;
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::collections::VecDeque;

/// Reported as `ftl.merge.switch`.
pub const MERGE_SWITCH: Counter = Counter::total(
    "ftl.merge.switch",
    "merges",
    "switch merges: a log block written in order becomes the data block, nothing copied",
);
/// Reported as `ftl.merge.partial`.
pub const MERGE_PARTIAL: Counter = Counter::total(
    "ftl.merge.partial",
    "merges",
    "partial merges: the rest of a log block is filled from the data block",
);
/// Reported as `ftl.merge.full`.
pub const MERGE_FULL: Counter = Counter::total(
    "ftl.merge.full",
    "merges",
    "full merges (folds): a fresh block gets the logical block's live pages",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[MERGE_SWITCH, MERGE_PARTIAL, MERGE_FULL];

/// The `[ftl.log]` table, read by BAST, FAST and FASTer ([`super::FtlSpec::sections`]).
pub const LOG_SECTION: super::Section = super::Section {
    key: "log",
    what: "a log area",
};

/// Memory of a log-block FTL's tables: the data-block map per logical block, and the
/// log area's page map and links per page beyond the logical space.
pub fn log_area_memory_bytes(_: &super::FtlConfig, geo: &Geometry, logical_pages: u64) -> u64 {
    let log_pages = geo.pages().saturating_sub(logical_pages);
    super::feasible::logical_blocks(geo, logical_pages) * 8 + log_pages * 16
}

/// "No block / no entry" in the flat tables.
pub const NIL: u32 = u32::MAX;

/// `[ftl.log]`: the log area of BAST, FAST and FASTer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    /// Log blocks (FAST/FASTer: the sequential log block plus the random ones); 0 = every
    /// block beyond one data block per logical block and the one-block merge reserve.
    pub log_blocks: u32,
    /// BAST: which log block to merge when a data block needs one and none is free.
    pub victim: LogVictim,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig {
            log_blocks: 0,
            victim: LogVictim::Lru,
        }
    }
}

/// BAST's choice of victim log block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogVictim {
    /// Least recently written (the usual reading of the BAST paper).
    Lru,
    /// Oldest allocated.
    Fifo,
}

/// Logical blocks (`BL`) and the largest log area the device allows.
pub(crate) fn log_budget(
    geo: &Geometry,
    logical_pages: u64,
    cfg: &LogConfig,
    min_blocks: u32,
    ftl: &'static str,
) -> Result<u32, ConfigError> {
    let bl = logical_pages.div_ceil(geo.pages_per_block as u64);
    let total = geo.blocks() as u64;
    let max = total.saturating_sub(bl + 1);
    if max < min_blocks as u64 {
        return Err(super::spec::unfit(
            ftl,
            format!(
                "impossible geometry for {ftl}: {total} blocks hold {bl} data blocks + 1 merge reserve + at least {min_blocks} log blocks (raise over-provisioning)"
            ),
        ));
    }
    match cfg.log_blocks {
        0 => Ok(max.min(u32::MAX as u64 - 1) as u32),
        n if (n as u64) > max => Err(super::spec::unfit(
            ftl,
            format!(
                "ftl.log.log_blocks = {n}: at most {max} fit ({total} blocks − {bl} data blocks − 1 merge reserve)"
            ),
        )),
        n if n < min_blocks => Err(super::spec::unfit(
            ftl,
            format!("ftl.log.log_blocks = {n}: {ftl} needs at least {min_blocks}"),
        )),
        n => Ok(n),
    }
}

/// A fixed-size bitset.
#[derive(Clone, Debug)]
pub(crate) struct Bits(Vec<u64>);

impl Bits {
    pub fn new(len: usize) -> Bits {
        Bits(crate::util::zeroed_vec(len.div_ceil(64)))
    }
    #[inline]
    pub fn get(&self, i: u32) -> bool {
        self.0[(i >> 6) as usize] & (1u64 << (i & 63)) != 0
    }
    #[inline]
    pub fn set(&mut self, i: u32) {
        self.0[(i >> 6) as usize] |= 1u64 << (i & 63);
    }
    #[inline]
    pub fn clear(&mut self, i: u32) {
        self.0[(i >> 6) as usize] &= !(1u64 << (i & 63));
    }
    /// Clears bits `from..to`.
    pub fn clear_range(&mut self, from: u32, to: u32) {
        let mut i = from;
        while i < to {
            if i & 63 == 0 && i + 64 <= to {
                self.0[(i >> 6) as usize] = 0;
                i += 64;
            } else {
                self.clear(i);
                i += 1;
            }
        }
    }
    /// Starts fetching the word holding bit `i`.
    #[inline]
    pub fn prefetch(&self, i: u32) {
        crate::util::prefetch(&self.0, (i >> 6) as usize);
    }
    /// Bytes of storage.
    pub fn bytes(&self) -> u64 {
        (self.0.len() * 8) as u64
    }
    /// Bits `from..from + len` (`len` 1 to 64), bit `from` first.
    #[inline]
    pub fn range(&self, from: u32, len: u32) -> u64 {
        debug_assert!((1..=64).contains(&len));
        let (w, sh) = ((from >> 6) as usize, from & 63);
        let mut v = self.0[w] >> sh;
        if sh != 0 && sh + len > 64 {
            v |= self.0[w + 1] << (64 - sh);
        }
        if len < 64 {
            v &= (1u64 << len) - 1;
        }
        v
    }
    /// Bits set.
    pub fn count_ones(&self) -> u64 {
        self.0.iter().map(|w| w.count_ones() as u64).sum()
    }
}

/// Erased blocks, handed out least-worn first. Buckets by erase count make both ends
/// O(1): erase counts only grow, so the lowest non-empty bucket moves slowly.
#[derive(Clone)]
pub(crate) struct BlockPool {
    buckets: Vec<VecDeque<u32>>,
    min: usize,
    len: usize,
    least_worn: bool,
}

impl BlockPool {
    /// Every block of `geo`, erased, in channel-first plane rotation so consecutive
    /// allocations of equally worn blocks spread over buses, chips, dies and planes.
    pub fn new(geo: &Geometry, least_worn: bool) -> BlockPool {
        let mut planes = Vec::with_capacity(geo.planes() as usize);
        for plane in 0..geo.planes_per_die {
            for die in 0..geo.dies_per_chip {
                for chip in 0..geo.chips_per_channel {
                    for ch in 0..geo.channels {
                        planes.push(
                            ((ch * geo.chips_per_channel + chip) * geo.dies_per_chip + die)
                                * geo.planes_per_die
                                + plane,
                        );
                    }
                }
            }
        }
        let mut first = VecDeque::with_capacity(geo.blocks() as usize);
        for i in 0..geo.blocks_per_plane {
            for &p in &planes {
                first.push_back(p * geo.blocks_per_plane + i);
            }
        }
        BlockPool {
            len: first.len(),
            buckets: vec![first],
            min: 0,
            least_worn,
        }
    }

    /// Free blocks.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Takes the least-worn free block (the oldest released one without wear leveling).
    #[inline]
    pub fn pop(&mut self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        while self.buckets[self.min].is_empty() {
            self.min += 1;
        }
        self.len -= 1;
        self.buckets[self.min].pop_front()
    }

    /// The block the next [`BlockPool::pop`] returns.
    #[inline]
    pub fn peek(&self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        self.buckets[self.min..]
            .iter()
            .find_map(|b| b.front().copied())
    }

    /// Returns an erased block that has been erased `erases` times.
    #[inline]
    pub fn push(&mut self, block: u32, erases: u32) {
        let k = if self.least_worn { erases as usize } else { 0 };
        if k >= self.buckets.len() {
            self.buckets.resize_with(k + 1, VecDeque::new);
        }
        self.buckets[k].push_back(block);
        self.min = self.min.min(k);
        self.len += 1;
    }

    /// Every free block (for invariant checks).
    pub fn blocks(&self) -> impl Iterator<Item = u32> + '_ {
        self.buckets.iter().flatten().copied()
    }

    /// Empties the pool (recovery refills it).
    fn clear(&mut self) {
        self.buckets.iter_mut().for_each(VecDeque::clear);
        self.min = 0;
        self.len = 0;
    }
}

/// What a mount scan tells a block-mapped FTL's recovery (docs/nbd.md, "Power loss").
#[derive(Clone)]
pub(crate) struct Scan {
    /// `ppn + 1` of the newest copy of each logical page (recovery.rs), 0 = none.
    pub newest: Vec<u32>,
    /// Lowest program counter of each block: the order blocks were opened in.
    pub opened: Vec<u32>,
    /// The logical block whose pages are the only ones a programmed block holds, or
    /// [`NIL`] (erased, or pages of several logical blocks: a page-mapped log block).
    pub owner: Vec<u32>,
    /// Whether every programmed page of the block holds its owner's page of the same
    /// offset (a data block, an NFTL unit, a FAST SW block, an in-order log block).
    pub in_place: Vec<bool>,
    /// Recovery merges done (logical blocks rebuilt because their blocks on flash were
    /// no state the FTL can be in: a merge or fold the cut interrupted).
    pub merges: u64,
}

impl Scan {
    /// Whether page `p` holds the newest copy of its logical page.
    #[inline]
    pub fn is_newest(&self, p: Ppn, nand: &Nand) -> bool {
        self.newest.get(nand.oob(p).lpn.0 as usize) == Some(&(p.0 + 1))
    }
}

/// What a block is used for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Role {
    /// In the free pool, erased.
    Free,
    /// The block-mapped home of a logical block (NFTL: primary unit).
    Data,
    /// Log block (NFTL: replacement unit).
    Log,
    /// Erased up to the NAND's endurance: a bad block, never allocated again.
    Retired,
}

/// Counts of merges and lookups, reported under the conventional keys.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MergeStats {
    pub switch: u64,
    pub partial: u64,
    pub full: u64,
    pub lookups: u64,
    pub probes: u64,
}

impl MergeStats {
    pub fn report(&self, out: &mut Counters) {
        out.set(&MERGE_SWITCH, self.switch);
        out.set(&MERGE_PARTIAL, self.partial);
        out.set(&MERGE_FULL, self.full);
        out.set(&super::LOOKUP_COUNT, self.lookups);
        out.set(&super::LOOKUP_PROBES, self.probes);
    }
}

/// The block-mapped side every log-block FTL shares: data-block map, roles, free pool,
/// merges.
#[derive(Clone)]
pub(crate) struct Blocks {
    pub geo: Geometry,
    pub np: u32,
    div: FastDiv,
    pub logical_pages: u32,
    /// Logical block → its data block, or [`NIL`].
    pub data: Vec<u32>,
    pub role: Vec<Role>,
    pub pool: BlockPool,
    pub stats: MergeStats,
    ftl: &'static str,
    /// The simulator's hint ([`Blocks::prefetch_lpn`]): first page of the next request,
    /// or [`NIL`].
    hint: Cell<u32>,
    /// A host write whose page's old copy is already invalid while the FTL makes room
    /// for the new one (merges, log reclaims) — see [`Blocks::begin_write`].
    pending: Option<Lpn>,
    /// The block holding that old copy, or [`NIL`].
    held: u32,
    /// Whether [`Blocks::release`] was asked to erase `held` meanwhile (it waits).
    deferred: bool,
    /// Blocks (superblocks on a superblock geometry) retired at their endurance.
    retired: u32,
    /// Physical erase blocks retired (a superblock counts its members), as the NAND's
    /// `worn_out_blocks` counts them.
    retired_physical: u64,
    /// The NAND's endurance (learnt at the first erase), for the end-of-life error.
    endurance: u32,
}

impl Blocks {
    pub fn new(ftl: &'static str, geo: &Geometry, logical_pages: u64, least_worn: bool) -> Self {
        let np = geo.pages_per_block;
        let bl = logical_pages.div_ceil(np as u64) as usize;
        Blocks {
            geo: *geo,
            np,
            div: FastDiv::new(np),
            logical_pages: logical_pages as u32,
            data: vec![NIL; bl],
            role: vec![Role::Free; geo.blocks() as usize],
            pool: BlockPool::new(geo, least_worn),
            stats: MergeStats::default(),
            ftl,
            hint: Cell::new(NIL),
            pending: None,
            held: NIL,
            deferred: false,
            retired: 0,
            retired_physical: 0,
            endurance: u32::MAX,
        }
    }

    /// Blocks retired so far (superblocks on a superblock geometry): the log area is
    /// this many blocks smaller than configured.
    #[inline]
    pub fn retired(&self) -> u32 {
        self.retired
    }

    /// Physical erase blocks retired so far (the counter `ftl.retired_blocks`).
    pub fn retired_blocks(&self) -> u64 {
        self.retired_physical
    }

    /// The error for an allocation that found no free block: the end of the drive's
    /// life once retirements took the spares, else a broken block budget (a bug).
    #[cold]
    pub fn out_of_blocks(&self) -> FtlError {
        if self.retired > 0 {
            FtlError::EndOfLife {
                plane: 0,
                retired: self.retired_physical,
                endurance: self.endurance,
            }
        } else {
            FtlError::NoFreeBlock { ftl: self.ftl }
        }
    }

    /// `Ok` when an allocation would find a free block: merges call it before they
    /// touch any map, so running out leaves every structure as it was.
    #[inline]
    pub fn ensure_free(&self) -> Result<(), FtlError> {
        if self.pool.len() == 0 {
            return Err(self.out_of_blocks());
        }
        Ok(())
    }

    /// A host write of `lpn` invalidated its old copy `old` and now makes room for the
    /// new one. Until [`Blocks::finish_write`], nothing erases the old copy before the
    /// new one is programmed (a power cut in between would lose the page's last durable
    /// version): a merge of `lpn`'s logical block programs the page into its destination
    /// before erasing the blocks it replaces (as the write would right after it), and an
    /// erase of the old copy's block for any other reason (a log reclaim) waits.
    pub fn begin_write(&mut self, lpn: Lpn, old: Option<Ppn>) {
        self.pending = Some(lpn);
        self.held = old.map_or(NIL, |p| self.geo.block_of(p).0);
    }

    /// The write [`Blocks::begin_write`] announced, while it still has to be programmed.
    #[inline]
    pub fn pending(&self) -> Option<Lpn> {
        self.pending
    }

    /// The block holding the pending write's old copy ([`NIL`] when none).
    #[inline]
    pub fn held(&self) -> u32 {
        self.held
    }

    /// The pending host write, if it belongs to logical block `lbn`.
    #[inline]
    pub fn pending_in(&self, lbn: u32) -> Option<Lpn> {
        self.pending.filter(|&l| self.split(l).0 == lbn)
    }

    /// The host write is programmed (or abandoned): the erase it held back happens now.
    pub fn finish_write(&mut self, nand: &mut Nand) {
        self.pending = None;
        let held = std::mem::replace(&mut self.held, NIL);
        if std::mem::take(&mut self.deferred) {
            self.release(held, nand);
        }
    }

    /// Programs the pending write of `lpn` at its offset of `block` (a merge destination)
    /// and finishes it.
    fn program_pending(&mut self, lpn: Lpn, block: u32, nand: &mut Nand) {
        let off = self.offset_of_lpn(lpn);
        nand.program(self.page(block, off), lpn, Cause::Host);
        self.finish_write(nand);
    }

    /// (logical block, offset) of `lpn`.
    #[inline]
    pub fn split(&self, lpn: Lpn) -> (u32, u32) {
        let lbn = self.div.div(lpn.0);
        (lbn, lpn.0 - lbn * self.np)
    }

    /// Page `off` of `block`.
    #[inline]
    pub fn page(&self, block: u32, off: u32) -> Ppn {
        Ppn(block * self.np + off)
    }

    /// Offset inside its block of the page `ppn`.
    #[inline]
    pub fn offset_of(&self, ppn: Ppn) -> u32 {
        ppn.0 - self.div.div(ppn.0) * self.np
    }

    /// Takes a free block for `role`.
    #[inline]
    pub fn alloc(&mut self, role: Role) -> Result<u32, FtlError> {
        let Some(b) = self.pool.pop() else {
            return Err(self.out_of_blocks());
        };
        debug_assert_eq!(self.role[b as usize], Role::Free);
        self.role[b as usize] = role;
        Ok(b)
    }

    /// Starts fetching what a merge into the next free block will touch.
    #[inline]
    pub fn prefetch_next_free(&self, nand: &Nand) {
        if let Some(b) = self.pool.peek() {
            // A merge into it writes pages at their offsets: its tags stay implicit.
            nand.prefetch_block_status(BlockId(b));
        }
    }

    /// Starts fetching the map entries of `lpn`'s logical block and the mapped bit, and
    /// remembers `lpn` for [`Blocks::take_hint`] (the simulator's hint: the next request).
    #[inline]
    pub fn prefetch_lpn(&self, lpn: Lpn, mapped: &Bits) {
        let lbn = self.div.div(lpn.0) as usize;
        crate::util::prefetch(&self.data, lbn);
        mapped.prefetch(lpn.0);
        self.hint.set(lpn.0);
    }

    /// The page [`Blocks::prefetch_lpn`] was last given, once ([`NIL`] if none since).
    #[inline]
    pub fn take_hint(&self) -> u32 {
        self.hint.replace(NIL)
    }

    /// Second prefetch stage, after the current request: the hinted page's data-block
    /// entry and mapped bit have arrived, so fetch the flash state of its page there,
    /// which the next write tests first: with the OOB tag when the page is unmapped (a
    /// first write, programmed in place), without it otherwise (an overwrite goes to a
    /// log block; the data page is at most invalidated).
    #[inline]
    pub fn prefetch_hinted_data_page(&self, nand: &Nand, mapped: &Bits) {
        let lpn = self.take_hint();
        if lpn == NIL {
            return;
        }
        let (lbn, off) = self.split(Lpn(lpn));
        let d = self.data[lbn as usize];
        if d != NIL {
            if mapped.get(lpn) {
                nand.prefetch_page_status(self.page(d, off));
            } else {
                nand.prefetch_page(self.page(d, off));
            }
        }
    }

    /// Erases `block` (it must hold no valid page) and returns it to the pool, or
    /// retires it when that erase brought it to its endurance (a worn-out block is a
    /// bad block: the spare capacity shrinks by one block).
    #[inline]
    pub fn release(&mut self, block: u32, nand: &mut Nand) {
        if block == self.held && self.pending.is_some() {
            // It holds the pending write's old copy: erased once the new one is on flash.
            self.role[block as usize] = Role::Free;
            self.deferred = true;
            return;
        }
        nand.erase(BlockId(block), Cause::Gc);
        let erases = nand.erase_count(BlockId(block));
        if erases >= nand.endurance_cycles() {
            self.retire(block, nand);
            return;
        }
        self.role[block as usize] = Role::Free;
        self.pool.push(block, erases);
    }

    /// Marks erased `block` as a bad block.
    #[cold]
    fn retire(&mut self, block: u32, nand: &Nand) {
        self.endurance = nand.endurance_cycles();
        self.role[block as usize] = Role::Retired;
        self.retired += 1;
        self.retired_physical += nand.blocks_per_erase() as u64;
    }

    /// Full merge of `lbn`: a new data block receives the latest copy of every offset —
    /// the old data block's valid pages and the log pages `extras` (each a valid page of
    /// `lbn` outside the data block) — and the old data block is erased. The caller
    /// drops `extras` from its log maps and erases log blocks this empties. A logical
    /// block with no valid page left gets no new block.
    pub fn full_merge(
        &mut self,
        lbn: u32,
        extras: &[Ppn],
        nand: &mut Nand,
    ) -> Result<(), FtlError> {
        self.stats.full += 1;
        let d = self.data[lbn as usize];
        let in_data = if d == NIL {
            0
        } else {
            nand.valid_count(BlockId(d))
        };
        let host = self.pending_in(lbn);
        if in_data == 0 && extras.is_empty() && host.is_none() {
            if d != NIL {
                self.release(d, nand);
                self.data[lbn as usize] = NIL;
            }
            return Ok(());
        }
        let n = self.alloc(Role::Data)?;
        if in_data > 0 {
            nand.relocate_block(BlockId(d), BlockId(n), Cause::Gc);
        }
        for &src in extras {
            debug_assert_eq!(self.split(nand.oob(src).lpn).0, lbn);
            let off = self.offset_of_lpn(nand.oob(src).lpn);
            nand.relocate(src, self.page(n, off), Cause::Gc);
        }
        if let Some(lpn) = host {
            // The write that needed this merge: its offset is free in the new block.
            self.program_pending(lpn, n, nand);
        }
        if d != NIL {
            self.release(d, nand);
        }
        self.data[lbn as usize] = n;
        Ok(())
    }

    /// Partial merge (switch merge when `k == Np`): `log` holds offsets `0..k` of `lbn` at
    /// their own offsets and nothing beyond; it receives the latest copy of every other
    /// offset (the data block's valid pages and the log pages `extras`, all at offsets
    /// ≥ k) and becomes the data block; the old one is erased.
    pub fn partial_merge(&mut self, lbn: u32, log: u32, k: u32, extras: &[Ppn], nand: &mut Nand) {
        if k == self.np {
            self.stats.switch += 1;
        } else {
            self.stats.partial += 1;
        }
        let d = self.data[lbn as usize];
        if d != NIL && nand.valid_count(BlockId(d)) > 0 {
            debug_assert!(k < self.np, "switch merge with live data-block pages");
            nand.relocate_block(BlockId(d), BlockId(log), Cause::Gc);
        }
        for &src in extras {
            let off = self.offset_of_lpn(nand.oob(src).lpn);
            debug_assert!(off >= k, "log page below the in-order prefix");
            nand.relocate(src, self.page(log, off), Cause::Gc);
        }
        // The write that needed this merge goes in place when its offset is still free
        // (past the in-order prefix), before the old data block is erased.
        if let Some(lpn) = self.pending_in(lbn)
            && !nand.is_programmed(self.page(log, self.offset_of_lpn(lpn)))
        {
            self.program_pending(lpn, log, nand);
        }
        if d != NIL {
            self.release(d, nand);
        }
        self.role[log as usize] = Role::Data;
        self.data[lbn as usize] = log;
    }

    #[inline]
    pub fn offset_of_lpn(&self, lpn: Lpn) -> u32 {
        self.split(lpn).1
    }

    /// First step of a recovery: the newest copy of every logical page made valid
    /// (nothing else is), the data map emptied, every block free in RAM; returns what
    /// the tags say about each block. The FTL then claims blocks ([`Blocks::role`]) and
    /// calls [`Blocks::remount_pool`].
    pub fn scan(&mut self, nand: &mut Nand, tags: &[Option<crate::nand::StoredTag>]) -> Scan {
        let newest = super::recovery::newest(tags, self.logical_pages as u64);
        for &w in &newest {
            if w != 0 {
                nand.revalidate(Ppn(w - 1));
            }
        }
        let blocks = self.geo.blocks() as usize;
        let mut owner = vec![NIL; blocks];
        let mut in_place = vec![false; blocks];
        for b in 0..blocks as u32 {
            let mut own = NIL;
            let mut placed = true;
            let mut any = false;
            for off in 0..self.np {
                let p = self.page(b, off);
                if !nand.is_programmed(p) {
                    continue;
                }
                let (lbn, o) = self.split(nand.oob(p).lpn);
                if !any {
                    own = lbn;
                    any = true;
                } else if own != lbn {
                    own = NIL;
                }
                placed &= o == off;
            }
            if any && own != NIL {
                owner[b as usize] = own;
                in_place[b as usize] = placed;
            }
        }
        self.data.fill(NIL);
        self.role.fill(Role::Free);
        // The bad-block table survives power loss (a real drive keeps it in a reserved
        // block; here the NAND's erase counts, which persist, say which blocks wore out).
        self.retired = 0;
        self.retired_physical = 0;
        for b in 0..blocks as u32 {
            if nand.erase_count(BlockId(b)) >= nand.endurance_cycles() {
                debug_assert_eq!(nand.write_ptr(BlockId(b)), 0, "worn-out block {b} in use");
                self.retire(b, nand);
            }
        }
        Scan {
            newest,
            opened: super::recovery::opened(&self.geo, tags),
            owner,
            in_place,
            merges: 0,
        }
    }

    /// Rebuilds the free pool from the blocks no structure claimed: a programmed one
    /// holds no valid page (the scan kept only newest copies, all claimed) and is
    /// erased; equal wear keeps the channel-first rotation.
    pub fn remount_pool(&mut self, nand: &mut Nand) {
        let order: Vec<u32> = BlockPool::new(&self.geo, true).blocks().collect();
        self.pool.clear();
        for b in order {
            if self.role[b as usize] != Role::Free {
                continue;
            }
            if nand.write_ptr(BlockId(b)) > 0 {
                assert_eq!(nand.valid_count(BlockId(b)), 0, "unclaimed block {b}");
                self.release(b, nand);
            } else {
                self.pool.push(b, nand.erase_count(BlockId(b)));
            }
        }
    }

    /// Recovery merge of `lbn`, whose blocks `own` (each holding only its pages) are no
    /// state the FTL can be in: the newest copy of every offset — from `own` or from
    /// shared log blocks — goes to one data block, the others of `own` are erased. The
    /// data block is the most recently opened of `own` whose pages sit at their offsets
    /// and are all newest copies (an interrupted merge's destination: the merge is
    /// finished), else a free block. Returns it.
    pub fn settle(
        &mut self,
        lbn: u32,
        own: &[u32],
        scan: &mut Scan,
        nand: &mut Nand,
    ) -> Result<u32, FtlError> {
        scan.merges += 1;
        let target = own
            .iter()
            .copied()
            .filter(|&b| {
                scan.in_place[b as usize]
                    && (0..self.np).all(|off| {
                        let p = self.page(b, off);
                        !nand.is_programmed(p) || scan.is_newest(p, nand)
                    })
            })
            .max_by_key(|&b| scan.opened[b as usize]);
        let t = match target {
            Some(t) => {
                self.role[t as usize] = Role::Data;
                t
            }
            None => self.alloc(Role::Data)?,
        };
        let first = lbn * self.np;
        let end = (first + self.np).min(self.logical_pages);
        for l in first..end {
            let w = scan.newest[l as usize];
            if w == 0 || self.geo.block_of(Ppn(w - 1)).0 == t {
                continue;
            }
            let dst = self.page(t, l - first);
            nand.relocate(Ppn(w - 1), dst, Cause::Gc);
            scan.newest[l as usize] = dst.0 + 1;
        }
        for &b in own {
            if b != t {
                self.release(b, nand);
            }
        }
        self.data[lbn as usize] = t;
        Ok(t)
    }

    /// RAM of the data-block map, bytes.
    pub fn map_bytes(&self) -> u64 {
        (self.data.len() * std::mem::size_of::<u32>()) as u64
    }

    /// Blocks not available to data: the log area plus the merge reserve.
    pub fn reserved(&self, log_blocks: u32) -> u64 {
        log_blocks as u64 + 1
    }

    /// Checks roles against the pool and the NAND, the data blocks' contents, and that
    /// `lookup` finds exactly the valid pages.
    pub fn check(&self, nand: &Nand, lookup: impl Fn(Lpn) -> Option<Ppn>) {
        let mut free = vec![false; self.role.len()];
        for b in self.pool.blocks() {
            assert!(!free[b as usize], "block {b} twice in the free pool");
            free[b as usize] = true;
            assert_eq!(self.role[b as usize], Role::Free, "pooled block {b}");
            assert_eq!(
                nand.write_ptr(BlockId(b)),
                0,
                "free block {b} is not erased"
            );
        }
        assert_eq!(self.pool.len(), free.iter().filter(|&&f| f).count());
        for (b, &r) in self.role.iter().enumerate() {
            if r == Role::Free {
                assert!(free[b], "free block {b} is not in the pool");
            }
        }
        let mut retired = 0;
        for (b, &r) in self.role.iter().enumerate() {
            if r == Role::Retired {
                retired += 1;
                let id = BlockId(b as u32);
                assert!(
                    nand.erase_count(id) >= nand.endurance_cycles(),
                    "retired block {b} is not worn out"
                );
                assert_eq!(nand.write_ptr(id), 0, "retired block {b} was programmed");
            } else {
                assert!(
                    nand.erase_count(BlockId(b as u32)) < nand.endurance_cycles(),
                    "worn-out block {b} is not retired"
                );
            }
        }
        assert_eq!(retired, self.retired, "retired blocks");
        let mut owner = vec![NIL; self.role.len()];
        for (lbn, &d) in self.data.iter().enumerate() {
            if d == NIL {
                continue;
            }
            assert_eq!(self.role[d as usize], Role::Data, "data block of lbn {lbn}");
            assert_eq!(owner[d as usize], NIL, "block {d} is data of two lbns");
            owner[d as usize] = lbn as u32;
            let mut pages = Vec::new();
            nand.valid_pages(BlockId(d), &mut pages);
            for p in pages {
                let lpn = nand.oob(p).lpn;
                assert_eq!(
                    self.split(lpn),
                    (lbn as u32, self.offset_of(p)),
                    "data block {d} of lbn {lbn} holds lpn {} at {p:?}",
                    lpn.0
                );
            }
        }
        let mut mapped = 0u64;
        for l in 0..self.logical_pages {
            if let Some(p) = lookup(Lpn(l)) {
                assert!(nand.is_valid(p), "lpn {l} maps to invalid {p:?}");
                assert_eq!(nand.oob(p).lpn, Lpn(l), "OOB of {p:?}");
                mapped += 1;
            }
        }
        let valid: u64 = (0..self.geo.blocks())
            .map(|b| nand.valid_count(BlockId(b)) as u64)
            .sum();
        assert_eq!(mapped, valid, "mapped pages != valid pages");
        nand.check_invariants();
    }
}

/// One FIFO stream of log blocks in a [`RwLog`].
#[derive(Clone, Debug, Default)]
struct Stream {
    /// Slots, oldest first; the last is the tail being filled.
    fifo: VecDeque<u32>,
    /// Pages used in the tail.
    fill: u32,
}

/// FAST's page-mapped random-write log: fully associative log blocks in FIFO streams
/// (FASTer adds an isolation stream), with
/// - `rev[pos]`: logical page of each log position (`pos = slot·Np + page`), the
///   paper's RW map;
/// - a hash index LPN → position (linear probing over `rev`, so a slot is 4 B): reads
///   and overwrites find the newest copy in ~1 probe, and an overwritten copy leaves
///   the index at once (FlashSim's FAST returned stale copies here, docs/algorithms.md §2.6);
/// - per-logical-block doubly linked lists of its log positions, so a merge gathers a
///   block's log pages without probing every offset.
///
/// Mapping memory: `Nslots·Np·(4 + 8) + H·4 + BL·4 + Nslots·4` bytes (`rev`, list
/// links, index slots `H` = next power of two ≥ 2·Nslots·Np, list heads, slot table).
#[derive(Clone)]
pub(crate) struct RwLog {
    np: u32,
    div: FastDiv,
    slot_block: Vec<u32>,
    free_slots: Vec<u32>,
    rev: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    head: Vec<u32>,
    index: Vec<u32>,
    bits: u32,
    streams: Vec<Stream>,
}

impl RwLog {
    /// A log of `slots` blocks for `bl` logical blocks, with `streams` FIFO streams.
    pub fn new(np: u32, slots: u32, bl: usize, streams: usize) -> RwLog {
        let positions = slots as usize * np as usize;
        let cap = (2 * positions).next_power_of_two().max(2);
        RwLog {
            np,
            div: FastDiv::new(np),
            slot_block: vec![NIL; slots as usize],
            free_slots: (0..slots).rev().collect(),
            rev: vec![NIL; positions],
            next: vec![NIL; positions],
            prev: vec![NIL; positions],
            head: vec![NIL; bl],
            index: crate::util::zeroed_vec(cap),
            bits: cap.trailing_zeros(),
            streams: vec![Stream::default(); streams],
        }
    }

    #[inline]
    fn home(&self, lpn: u32) -> usize {
        ((lpn as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize
    }

    /// Position holding the newest log copy of `lpn`, and index slots probed.
    #[inline]
    pub fn lookup(&self, lpn: Lpn) -> (Option<u32>, u64) {
        let mask = self.index.len() - 1;
        let mut i = self.home(lpn.0);
        let mut probes = 1;
        loop {
            let e = self.index[i];
            if e == 0 {
                return (None, probes);
            }
            if self.rev[(e - 1) as usize] == lpn.0 {
                return (Some(e - 1), probes);
            }
            i = (i + 1) & mask;
            probes += 1;
        }
    }

    /// Whether a lookup of `lpn` would find it, without counting (for prefetch-free
    /// invariant checks).
    pub fn find(&self, lpn: Lpn) -> Option<u32> {
        self.lookup(lpn).0
    }

    /// Records that position `pos` now holds the newest copy of `lpn` (of block `lbn`).
    #[inline]
    pub fn insert(&mut self, pos: u32, lpn: Lpn, lbn: u32) {
        let p = pos as usize;
        debug_assert_eq!(self.rev[p], NIL);
        self.rev[p] = lpn.0;
        let mask = self.index.len() - 1;
        let mut i = self.home(lpn.0);
        while self.index[i] != 0 {
            i = (i + 1) & mask;
        }
        self.index[i] = pos + 1;
        let h = self.head[lbn as usize];
        self.next[p] = h;
        self.prev[p] = NIL;
        if h != NIL {
            self.prev[h as usize] = pos;
        }
        self.head[lbn as usize] = pos;
    }

    /// Forgets position `pos` (its copy was overwritten, trimmed or merged away).
    #[inline]
    pub fn remove(&mut self, pos: u32, lbn: u32) {
        self.unindex(pos);
        let p = pos as usize;
        let (n, pr) = (self.next[p], self.prev[p]);
        if pr == NIL {
            self.head[lbn as usize] = n;
        } else {
            self.next[pr as usize] = n;
        }
        if n != NIL {
            self.prev[n as usize] = pr;
        }
        self.rev[p] = NIL;
    }

    /// Moves the copy recorded at `from` to `to` (a GC copy of the same logical page):
    /// its index slot and list node are rewritten in place.
    #[inline]
    pub fn move_to(&mut self, from: u32, to: u32, lbn: u32) {
        let (f, t) = (from as usize, to as usize);
        let lpn = self.rev[f];
        debug_assert!(lpn != NIL && self.rev[t] == NIL);
        let mask = self.index.len() - 1;
        let mut i = self.home(lpn);
        while self.index[i] != from + 1 {
            i = (i + 1) & mask;
        }
        self.index[i] = to + 1;
        self.rev[t] = lpn;
        self.rev[f] = NIL;
        let (p, n) = (self.prev[f], self.next[f]);
        self.prev[t] = p;
        self.next[t] = n;
        if p == NIL {
            self.head[lbn as usize] = to;
        } else {
            self.next[p as usize] = to;
        }
        if n != NIL {
            self.prev[n as usize] = to;
        }
    }

    /// Removes `pos` from the hash index (backward-shift deletion keeps probe chains
    /// short without tombstones).
    fn unindex(&mut self, pos: u32) {
        let mask = self.index.len() - 1;
        let mut i = self.home(self.rev[pos as usize]);
        while self.index[i] != pos + 1 {
            debug_assert_ne!(self.index[i], 0, "position {pos} not indexed");
            i = (i + 1) & mask;
        }
        let mut hole = i;
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let e = self.index[j];
            if e == 0 {
                break;
            }
            let home = self.home(self.rev[(e - 1) as usize]);
            // The entry may fill the hole if the hole lies on its probe path home..j.
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.index[hole] = e;
                hole = j;
            }
        }
        self.index[hole] = 0;
    }

    /// Starts fetching the index slot and list head a lookup of `lpn` will read first.
    #[inline]
    pub fn prefetch(&self, lpn: Lpn, lbn: u32) {
        crate::util::prefetch(&self.index, self.home(lpn.0));
        crate::util::prefetch(&self.head, lbn as usize);
    }

    /// Removes every log position of `lbn` and appends them to `out`.
    pub fn take_lbn(&mut self, lbn: u32, out: &mut Vec<u32>) {
        let mut p = self.head[lbn as usize];
        while p != NIL {
            out.push(p);
            self.unindex(p);
            self.rev[p as usize] = NIL;
            p = self.next[p as usize];
        }
        self.head[lbn as usize] = NIL;
    }

    /// Logical page recorded at `pos` ([`NIL`] when none).
    #[inline]
    pub fn lpn_at(&self, pos: u32) -> u32 {
        self.rev[pos as usize]
    }

    /// Physical page of position `pos`.
    #[inline]
    pub fn ppn(&self, pos: u32) -> Ppn {
        let slot = self.div.div(pos);
        Ppn(self.slot_block[slot as usize] * self.np + pos - slot * self.np)
    }

    /// Position of page `page` of `slot`.
    #[inline]
    pub fn pos(&self, slot: u32, page: u32) -> u32 {
        slot * self.np + page
    }

    /// Block in `slot`.
    #[inline]
    pub fn block(&self, slot: u32) -> u32 {
        self.slot_block[slot as usize]
    }

    /// Blocks in stream `s`.
    #[inline]
    pub fn len(&self, s: usize) -> usize {
        self.streams[s].fifo.len()
    }

    /// Whether stream `s`'s tail has an unwritten page.
    #[inline]
    pub fn has_room(&self, s: usize) -> bool {
        !self.streams[s].fifo.is_empty() && self.streams[s].fill < self.np
    }

    /// Appends erased `block` to stream `s` as its new tail; returns its slot.
    pub fn push_block(&mut self, s: usize, block: u32) -> u32 {
        let slot = self
            .free_slots
            .pop()
            .expect("log slots sized to the log area");
        self.slot_block[slot as usize] = block;
        self.streams[s].fifo.push_back(slot);
        self.streams[s].fill = 0;
        slot
    }

    /// Takes the next page of stream `s`'s tail (which must have room).
    #[inline]
    pub fn next_pos(&mut self, s: usize) -> u32 {
        let st = &mut self.streams[s];
        debug_assert!(st.fill < self.np);
        let slot = *st.fifo.back().expect("stream has a tail");
        st.fill += 1;
        slot * self.np + st.fill - 1
    }

    /// Oldest slot of stream `s`.
    #[inline]
    pub fn oldest(&self, s: usize) -> Option<u32> {
        self.streams[s].fifo.front().copied()
    }

    /// Removes the oldest slot of stream `s` (its block must hold no indexed copy) and
    /// returns its block.
    pub fn pop_oldest(&mut self, s: usize) -> u32 {
        let st = &mut self.streams[s];
        let slot = st.fifo.pop_front().expect("stream not empty");
        if st.fifo.is_empty() {
            st.fill = 0;
        }
        let b = self.slot_block[slot as usize];
        self.slot_block[slot as usize] = NIL;
        self.free_slots.push(slot);
        let first = (slot * self.np) as usize;
        debug_assert!(
            self.rev[first..first + self.np as usize]
                .iter()
                .all(|&l| l == NIL),
            "recycled log slot still indexed"
        );
        b
    }

    /// Blocks the log can hold.
    pub fn capacity(&self) -> u32 {
        self.slot_block.len() as u32
    }

    /// Recovery: the tail of stream `s` has `fill` pages programmed already.
    pub fn restore_fill(&mut self, s: usize, fill: u32) {
        self.streams[s].fill = fill;
    }

    /// Pages used in stream `s`'s tail.
    pub fn fill(&self, s: usize) -> u32 {
        self.streams[s].fill
    }

    /// Recovery: stream `from`'s oldest slot becomes stream `to`'s tail, `fill` pages of
    /// it programmed (FASTer's isolation log is rebuilt from the oldest blocks).
    pub fn move_oldest(&mut self, from: usize, to: usize, fill: u32) {
        let slot = self.streams[from]
            .fifo
            .pop_front()
            .expect("stream not empty");
        if self.streams[from].fifo.is_empty() {
            self.streams[from].fill = 0;
        }
        self.streams[to].fifo.push_back(slot);
        self.streams[to].fill = fill;
    }

    /// Slots of stream `s`, oldest first.
    pub fn slots(&self, s: usize) -> impl Iterator<Item = u32> + '_ {
        self.streams[s].fifo.iter().copied()
    }

    /// Mapping memory in bytes (formula in the type's docs).
    pub fn mapping_bytes(&self) -> u64 {
        let u = std::mem::size_of::<u32>();
        (self.rev.len() * 3 * u
            + self.index.len() * u
            + self.head.len() * u
            + self.slot_block.len() * u) as u64
    }

    /// Checks that the index, the lists and `rev` agree with each other and the NAND.
    pub fn check(&self, nand: &Nand, split: impl Fn(Lpn) -> (u32, u32)) {
        let mut indexed = 0;
        for &e in &self.index {
            if e != 0 {
                indexed += 1;
                let pos = e - 1;
                let lpn = self.rev[pos as usize];
                assert_ne!(lpn, NIL, "index points at empty position {pos}");
                assert_eq!(self.find(Lpn(lpn)), Some(pos), "index of lpn {lpn}");
                let ppn = self.ppn(pos);
                assert!(
                    nand.is_valid(ppn),
                    "log position {pos} of lpn {lpn} is invalid"
                );
                assert_eq!(nand.oob(ppn).lpn, Lpn(lpn));
            }
        }
        let mut listed = 0;
        for (lbn, &h) in self.head.iter().enumerate() {
            let mut p = h;
            let mut prev = NIL;
            while p != NIL {
                listed += 1;
                assert_eq!(self.prev[p as usize], prev, "list links of lbn {lbn}");
                assert_eq!(split(Lpn(self.rev[p as usize])).0, lbn as u32);
                prev = p;
                p = self.next[p as usize];
            }
        }
        let used = self.rev.iter().filter(|&&l| l != NIL).count();
        assert_eq!(indexed, used, "indexed vs recorded log positions");
        assert_eq!(listed, used, "listed vs recorded log positions");
        let in_streams: usize = self.streams.iter().map(|s| s.fifo.len()).sum();
        assert_eq!(in_streams + self.free_slots.len(), self.slot_block.len());
    }
}
