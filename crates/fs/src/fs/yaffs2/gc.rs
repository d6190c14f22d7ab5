//! YAFFS2's garbage collection (`yaffs_check_gc`, `yaffs_find_gc_block`,
//! `yaffs_gc_block` in the yaffs2 sources), in our words:
//!
//! ```text
//! check_gc(background):            before every chunk write, and in idle time
//!   min_erased = reserved + checkpoint blocks + 1
//!   aggressive = erased blocks < min_erased
//!   if not aggressive:
//!     foreground and erased chunks > free chunks / 4: nothing to do
//!     erased chunks >= free chunks / 2 and skip > 0 (foreground): skip -= 1; return
//!   skip = 5
//!   no block being collected: pick one (find_gc_block); collect from where it stopped:
//!     aggressive: every live chunk of the block; passive: at most 5 copies per call
//!   repeat once more while erased blocks < reserved
//!
//! find_gc_block(aggressive, background):
//!   if nothing was found 10 (background) / 20 (foreground) times in a row: take the
//!     block with the oldest sequence number that has dead chunks
//!   else search for the dirtiest full block (fewest live chunks):
//!     aggressive: every block, threshold = chunks per block
//!     passive: at most min(100, blocks/16 + 1) blocks from a rotating finder,
//!       threshold clamp(background ? 2·(not_done + 2) : 0, 4, chunks/8 (chunks/2 bg))
//!   a block holding a shrink header qualifies only if it is the oldest dirty block
//!   take the best if its live chunks <= threshold; else not_done += 1
//! ```
//! A collected block is erased when its last live chunk has moved (cause `Gc`). A
//! header moved by GC loses its shrink mark and carries the file's current size (a
//! copy is newer than the file's data chunks written since, so a scan would otherwise
//! cut them off).

use super::{BlockState, FsError, NONE, Yaffs2};
use crate::nand::{Cause, Ppn};

/// YAFFS2's floor on the passive threshold (`YAFFS_GC_PASSIVE_THRESHOLD`).
const PASSIVE_THRESHOLD: u32 = 4;
/// Copies per passive collection call.
const PASSIVE_COPIES: u32 = 5;

/// GC state kept between calls.
#[derive(Clone, Debug)]
pub struct GcState {
    /// Block being collected (incrementally when passive), or [`NONE`].
    block: u32,
    /// Next chunk of it to examine.
    chunk: u32,
    /// Searches in a row that found nothing.
    not_done: u32,
    /// Foreground calls left to skip while plenty is erased.
    skip: u32,
    /// Rotating start of the passive search.
    finder: u32,
    /// Oldest dirty block and its sequence number, when known.
    oldest_dirty: Option<(u32, u32)>,
}

impl Default for GcState {
    fn default() -> GcState {
        GcState {
            block: NONE,
            chunk: 0,
            not_done: 0,
            skip: 0,
            finder: 0,
            oldest_dirty: None,
        }
    }
}

impl GcState {
    /// A full block got a dead chunk: it may be the new oldest dirty block.
    pub(super) fn note_dirty(&mut self, block: u32, seq: u32) {
        if let Some((s, _)) = self.oldest_dirty
            && seq < s
        {
            self.oldest_dirty = Some((seq, block));
        }
    }

    /// A block was erased: forget it as the oldest dirty block.
    pub(super) fn block_erased(&mut self, block: u32) {
        if self.oldest_dirty.is_some_and(|(_, b)| b == block) {
            self.oldest_dirty = None;
        }
        if self.block == block {
            self.block = NONE;
        }
    }
}

impl Yaffs2 {
    fn is_dirty_full(&self, b: usize) -> bool {
        let bi = &self.blocks[b];
        bi.state == BlockState::Full && bi.in_use < self.ppb()
    }

    /// The oldest full block with dead chunks (sequence, block), cached.
    fn oldest_dirty(&mut self) -> Option<(u32, u32)> {
        if self.gc.oldest_dirty.is_none() {
            let mut best: Option<(u32, u32)> = None;
            for b in 0..self.blocks.len() {
                if self.is_dirty_full(b) {
                    let s = self.blocks[b].seq;
                    if best.is_none_or(|(bs, _)| s < bs) {
                        best = Some((s, b as u32));
                    }
                }
            }
            self.gc.oldest_dirty = best;
        }
        self.gc.oldest_dirty
    }

    /// Whether `b` may be collected now (the shrink-header rule).
    fn ok_for_gc(&mut self, b: usize) -> bool {
        if !self.blocks[b].has_shrink {
            return true;
        }
        let seq = self.blocks[b].seq;
        self.oldest_dirty().is_some_and(|(s, _)| seq <= s)
    }

    fn find_gc_block(&mut self, aggressive: bool, background: bool) -> Option<u32> {
        let n = self.blocks.len() as u32;
        let ppb = self.ppb();
        if self.gc.not_done >= if background { 10 } else { 20 } {
            if let Some((_, b)) = self.oldest_dirty() {
                self.stats.gc_oldest_dirty += 1;
                self.gc.not_done = 0;
                return Some(b);
            }
            self.gc.not_done = 0;
        }
        let (threshold, iterations) = if aggressive {
            (ppb, n)
        } else {
            let max = (if background { ppb / 2 } else { ppb / 8 }).max(PASSIVE_THRESHOLD);
            let t = if background {
                (self.gc.not_done + 2) * 2
            } else {
                0
            };
            (t.max(PASSIVE_THRESHOLD).min(max), (n / 16 + 1).min(100))
        };
        let mut best: Option<(u32, u32)> = None;
        for _ in 0..iterations {
            self.gc.finder = (self.gc.finder + 1) % n;
            let b = self.gc.finder as usize;
            if !self.is_dirty_full(b) {
                continue;
            }
            let used = self.blocks[b].in_use;
            if best.is_none_or(|(u, _)| used < u) && self.ok_for_gc(b) {
                best = Some((used, b as u32));
            }
        }
        match best {
            Some((used, b)) if used <= threshold => {
                self.gc.not_done = 0;
                Some(b)
            }
            _ => {
                self.gc.not_done += 1;
                None
            }
        }
    }

    /// YAFFS2's `yaffs_check_gc`.
    pub(super) fn check_gc(&mut self, background: bool) -> Result<(), FsError> {
        let ppb = self.ppb() as u64;
        for _try in 0..2 {
            let min_erased = self.min_erased() + 1;
            let erased_chunks = self.erased_blocks as u64 * ppb;
            let aggressive = self.erased_blocks < min_erased;
            if !aggressive {
                if !background && erased_chunks > self.free_chunks / 4 {
                    break;
                }
                self.gc.skip = self.gc.skip.min(20);
                if !(erased_chunks < self.free_chunks / 2 || self.gc.skip < 1 || background) {
                    self.gc.skip -= 1;
                    break;
                }
            }
            self.gc.skip = 5;
            if self.gc.block == NONE {
                match self.find_gc_block(aggressive, background) {
                    Some(b) => {
                        self.gc.block = b;
                        self.gc.chunk = 0;
                        self.blocks[b as usize].state = BlockState::Collecting;
                    }
                    None => break,
                }
            }
            if background {
                self.stats.gc_background += 1;
            } else if aggressive {
                self.stats.gc_aggressive += 1;
            } else {
                self.stats.gc_passive += 1;
            }
            self.gc_block(aggressive)?;
            if self.erased_blocks >= self.cfg.reserved_blocks || self.gc.block == NONE {
                break;
            }
        }
        Ok(())
    }

    /// Moves live chunks out of the block being collected (all of them when `whole`,
    /// else at most [`PASSIVE_COPIES`]); erases it once it holds none.
    fn gc_block(&mut self, whole: bool) -> Result<(), FsError> {
        let b = self.gc.block;
        let ppb = self.ppb();
        let mut copies = if whole { ppb } else { PASSIVE_COPIES };
        let first = b * ppb;
        while self.gc.chunk < ppb && copies > 0 {
            let src = first + self.gc.chunk;
            self.gc.chunk += 1;
            if !self.mtd.nand.is_valid(Ppn(src)) {
                continue;
            }
            self.copy_chunk(src)?;
            copies -= 1;
        }
        if self.gc.chunk >= ppb {
            debug_assert_eq!(self.blocks[b as usize].in_use, 0, "block {b} emptied");
            self.gc.block = NONE;
            // Chunks written into the block being collected are impossible (it is full).
            self.blocks[b as usize].has_shrink = false;
            self.erase_block(b, Cause::Gc)?;
        }
        Ok(())
    }

    /// Copies live chunk `src` to the allocation point and repoints its owner.
    fn copy_chunk(&mut self, src: u32) -> Result<(), FsError> {
        let dst = self.alloc_chunk(true)?;
        let spare = self.mtd.spare[src as usize];
        let chunk_id = self.mtd.chunk_id(src);
        self.mtd.spend_power()?;
        self.mtd.nand.copy(Ppn(src), Ppn(dst), Cause::Gc);
        self.mtd.spare[dst as usize] = spare;
        self.free_chunks -= 1;
        let db = self.mtd.block_of(dst);
        self.blocks[db as usize].in_use += 1;
        let obj = spare.obj;
        if chunk_id == 0 {
            // A header moves into a newer block: it no longer needs the shrink rule
            // (the block it came from is the oldest dirty one or holds no shrink).
            // It also takes the file's size in RAM: the copy is newer than data chunks
            // written since the header, and a scan must not let it cut them off.
            let mut h = self.mtd.headers.get(&src).cloned().expect("header data");
            h.shrink = false;
            let o = self.obj_mut(obj);
            h.size = o.size;
            o.hdr = dst;
            o.dirty = false;
            self.mtd.headers.insert(dst, h);
        } else {
            if let Some(d) = &mut self.mtd.data
                && let Some(c) = d.get(&src).cloned()
            {
                d.insert(dst, c);
            }
            let o = self.objects[obj as usize].as_mut().expect("live owner");
            self.tnodes.set(&mut o.tree, chunk_id as u64 - 1, dst);
        }
        self.stats.gc_copies += 1;
        // The source block is being collected: deleting its chunk must not erase it
        // early (collect finishes the block), so update the counts directly.
        self.mtd.nand.invalidate(Ppn(src));
        self.free_chunks += 1;
        let sb = self.mtd.block_of(src);
        self.blocks[sb as usize].in_use -= 1;
        Ok(())
    }
}
