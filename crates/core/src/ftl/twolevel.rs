//! The NAND side shared by the two-level hash FTLs (AFTL, CFTL): NFTL-style block mapping
//! with one primary and one replacement block per logical block — the log-style NFTL
//! variant the AFTL and CFTL papers compare against (docs/algorithms.md §2.3, docs/papers.md §3).
//!
//! ```text
//! lbn = lpn / Np, off = lpn % Np
//! primary P(lbn):     page `off` holds lpn (first write of an offset goes in place)
//! replacement R(lbn): later writes of any offset, appended in write order (OOB names lpn)
//! locate(lpn):        P[off] valid → it; else scan R newest-first for lpn's tag
//!                     (the first match is the latest copy: valid → found, invalid → none)
//! fold(lbn):          fresh block N; copy the one valid copy of every offset from P and R
//!                     to N[off] (unless the caller keeps it in R); erase P, and R if empty;
//!                     N becomes the primary
//! reclaim:            fold the logical block whose replacement block is oldest (FIFO)
//! erase(b):           erase count reached the endurance → b is retired (a bad block,
//!                     never allocated again; the spare pool shrinks for good); no free
//!                     block left once retirements took the spares → end of life
//! mount (power-up):   read every page's OOB tag (lpn, sequence number) and every
//!                     block's erase count — nothing else survives a power loss
//!   winner(lpn):      the copy with the highest sequence number (a copy keeps its
//!                     source's number, so a fold or demotion cut short leaves two)
//!   owner(b):         lbn of b's tags (every block holds pages of one logical block)
//!   per lbn, for each candidate P (its blocks whose pages all sit at their offsets,
//!   most live pages first); a live page is P's own copy when that carries the winning
//!   number, else the winner; the other blocks holding live pages must each be
//!                     R: programmed as a prefix, P[off] programmed for every page of it,
//!                        each live page the last copy of its lpn in it (at most one R)
//!                     D (AFTL only): P[off] erased for each of its live pages (detached)
//!                     blocks without live pages are stale (a fold or erase cut short):
//!                     erased
//!   else:             the first candidate whose offsets are erased for every live page
//!                     outside it takes them (a fold cut short is finished: copy, erase
//!                     the rest)
//!   else:             fold now: live pages to a fresh block at their offsets, erase the
//!                     old ones
//!   replacement FIFO: by the sequence number of each R's first page
//! ```
//! The tags are the NFTL firmware's "unit header" here: every page names its logical
//! page, so a block's owner and role follow from where its pages sit, and no block header
//! beyond the existing OOB tag (lpn, sequence number) is programmed. The roles found are
//! the ones the running FTL keeps (its invariants check them), so a cut outside a fold or
//! a demotion leaves every logical block as it was, and a cut inside one leaves copies
//! the mount keeps in the new primary (finishing the fold) or in the old one (dropping
//! the new). Only the last resort needs a free block; it erases the old ones at once.
//! Why P[off] first is right: a write of `off` goes in place only while P[off] is erased,
//! so any copy in R is newer than P[off], and a valid P[off] means R holds no copy.
//!
//! Choices the papers leave open, fixed here: blocks are pooled over the whole device
//! (a logical block's blocks may sit in any plane; allocation rotates over planes so
//! consecutive allocations land on different dies, and takes the least-worn free block of
//! that plane when `dynamic_wl` is on); the reclaim victim is the oldest replacement block
//! (round-robin over logical blocks, as NFTL folds chains in turn). Primary blocks are
//! written at fixed offsets, out of order, so these FTLs run on a relaxed NAND
//! ([`crate::ftl::Ftl::programs_in_order`] is `false`); replacement blocks are always
//! appended in order. Scanning R reads OOB tags; it is counted as probes (translation
//! work), not as flash page reads, as the CFTL paper measures translation in CPU time.

use super::hash::NIL;
use super::{FtlConfig, FtlError};
use crate::nand::StoredTag;
use crate::nand::{BlockId, Cause, Geometry, Lpn, Nand, Ppn};
use crate::spec::{ConfigError, Counter};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Reported as `ftl.recovery.folds`.
pub const RECOVERY_FOLDS: Counter = Counter::total(
    "ftl.recovery.folds",
    "folds",
    "folds the last mount started to recover",
);
/// Reported as `ftl.recovery.completed_folds`.
pub const RECOVERY_COMPLETED_FOLDS: Counter = Counter::total(
    "ftl.recovery.completed_folds",
    "folds",
    "interrupted folds the last mount completed",
);
/// Reported as `ftl.recovery.fold_copies`.
pub const RECOVERY_FOLD_COPIES: Counter = Counter::total(
    "ftl.recovery.fold_copies",
    "pages",
    "pages the last mount's folds copied",
);
/// Reported as `ftl.recovery.erased_blocks`.
pub const RECOVERY_ERASED_BLOCKS: Counter = Counter::total(
    "ftl.recovery.erased_blocks",
    "blocks",
    "blocks the last mount erased",
);
/// Reported as `ftl.recovery.detached_blocks`.
pub const RECOVERY_DETACHED_BLOCKS: Counter = Counter::total(
    "ftl.recovery.detached_blocks",
    "blocks",
    "detached blocks the last mount kept (AFTL)",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[
    RECOVERY_FOLDS,
    RECOVERY_COMPLETED_FOLDS,
    RECOVERY_FOLD_COPIES,
    RECOVERY_ERASED_BLOCKS,
    RECOVERY_DETACHED_BLOCKS,
];

/// What a block is used for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Erased, in a free pool.
    Free,
    /// Primary (data) block of `owner`.
    Primary,
    /// Replacement (log) block of `owner`.
    Replacement,
    /// A former replacement block kept only for pages still fine-mapped (AFTL's deferred GC).
    Detached,
    /// Reached its endurance: a bad block, never allocated again.
    Retired,
}

/// Result of a fold.
#[derive(Clone, Copy, Debug)]
pub struct Folded {
    /// The new primary block.
    pub primary: u32,
    /// Whether the old replacement block was kept (pages left in it) instead of erased.
    pub detached: bool,
    /// Pages copied.
    pub copies: u32,
}

/// Where [`Blocks::place`] put a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// At its offset in the primary block.
    InPlace(Ppn),
    /// Appended to the replacement block.
    Appended(Ppn),
}

/// What [`Blocks::mount`] rebuilt, for the FTL's tables.
#[derive(Clone, Debug, Default)]
pub struct Mounted {
    /// `(lbn, primary, replacement)` of every logical block holding data ([`NIL`]: no
    /// replacement block).
    pub lbns: Vec<(u32, u32, u32)>,
    /// Detached blocks kept (AFTL).
    pub detached: Vec<u32>,
    /// The live pages in replacement and detached blocks as `(seq, lpn, ppn)`, oldest
    /// first (AFTL's fine table is rebuilt from them).
    pub logged: Vec<(u32, u32, u32)>,
    /// What the mount did.
    pub stats: MountStats,
}

/// What a mount did (the FTL's `ftl.recovery.*` counters).
#[derive(Clone, Copy, Debug, Default)]
pub struct MountStats {
    /// Logical blocks folded into a free block because their blocks fit no roles.
    pub folds: u64,
    /// Logical blocks whose fold, cut short, the mount finished in their new primary.
    pub completed_folds: u64,
    /// Pages those folds copied.
    pub fold_copies: u64,
    /// Blocks erased because they held no live page.
    pub erased_blocks: u64,
    /// Detached blocks kept (AFTL).
    pub detached_blocks: u64,
}

impl MountStats {
    /// Adds the `ftl.recovery.*` counters to `out`.
    pub fn counters(&self, out: &mut crate::spec::Counters) {
        for (k, v) in [
            (&RECOVERY_FOLDS, self.folds),
            (&RECOVERY_COMPLETED_FOLDS, self.completed_folds),
            (&RECOVERY_FOLD_COPIES, self.fold_copies),
            (&RECOVERY_ERASED_BLOCKS, self.erased_blocks),
            (&RECOVERY_DETACHED_BLOCKS, self.detached_blocks),
        ] {
            out.set(k, v);
        }
    }
}

/// What the mount scan learnt about one block from its tags.
#[derive(Clone, Copy, Debug)]
struct Shape {
    /// Logical block of its pages ([`NIL`]: erased).
    owner: u32,
    /// Programmed pages.
    pages: u32,
    /// Every programmed page sits at its own offset (a primary block can).
    at_offsets: bool,
    /// The programmed pages are the first `pages` (a replacement block is).
    prefix: bool,
}

/// What the mount's pass over the tags found ([`Blocks::scan_tags`]).
struct TagScan {
    /// Per logical page: the physical page of its winning copy ([`NIL`]: none).
    win: Vec<u32>,
    /// Per logical page: the winning copy's sequence number.
    win_seq: Vec<u32>,
    /// Per block: what its tags say.
    shape: Vec<Shape>,
}

/// Roles for one logical block's blocks that keep its live pages in place.
#[derive(Clone)]
struct Fit {
    p: u32,
    r: u32,
    detached: Vec<u32>,
    /// Live pages kept where they are, `(lpn, ppn)`.
    live: Vec<(u32, u32)>,
    /// Live pages to copy to their offsets in `p`, `(lpn, ppn)`.
    moves: Vec<(u32, u32)>,
}

/// Block pools, roles and the primary/replacement operations.
#[derive(Clone)]
pub struct Blocks {
    geo: Geometry,
    np: u32,
    /// Per plane, its free blocks as `(key, block)`, least first (least worn, then lowest
    /// numbered). A binary heap: a plane holds a handful of free blocks once the device
    /// is in use, where a heap's push and pop beat a tree's node allocation.
    free: Vec<BinaryHeap<Reverse<(u32, u32)>>>,
    /// Bit `p` set when plane `p`'s pool is non-empty: with a handful of free blocks on
    /// the whole device, finding the next plane that has one is a bit scan, not a walk
    /// over empty pools.
    nonempty: Vec<u64>,
    free_count: u32,
    cursor: u32,
    role: Vec<Role>,
    owner: Vec<u32>,
    stamp: Vec<u32>,
    stamp_seq: u32,
    /// Replacement blocks by allocation order (stale entries skipped lazily).
    fifo: VecDeque<(u32, u32)>,
    dynamic_wl: bool,
    free_seq: u32,
    scratch: Vec<Ppn>,
    /// Blocks retired after reaching their endurance.
    retired: u32,
    /// The NAND's endurance (learnt at the first erase), for the end-of-life error.
    endurance: u32,
}

impl Blocks {
    /// Every block of `geo` erased and free.
    pub fn new(geo: &Geometry, dynamic_wl: bool) -> Blocks {
        let mut b = Blocks {
            geo: *geo,
            np: geo.pages_per_block,
            free: vec![BinaryHeap::new(); geo.planes() as usize],
            nonempty: vec![0; (geo.planes() as usize).div_ceil(64)],
            free_count: 0,
            cursor: 0,
            role: vec![Role::Free; geo.blocks() as usize],
            owner: vec![NIL; geo.blocks() as usize],
            stamp: vec![0; geo.blocks() as usize],
            stamp_seq: 0,
            fifo: VecDeque::new(),
            dynamic_wl,
            free_seq: 0,
            scratch: Vec::with_capacity(geo.pages_per_block as usize),
            retired: 0,
            endurance: u32::MAX,
        };
        for blk in 0..geo.blocks() {
            b.release(blk, 0);
        }
        b
    }

    /// Free blocks on the whole device.
    #[inline]
    pub fn free_count(&self) -> u32 {
        self.free_count
    }

    /// Role of block `b`.
    #[inline]
    pub fn role(&self, b: u32) -> Role {
        self.role[b as usize]
    }

    /// Logical block that owns `b` (primary, replacement or detached).
    #[inline]
    pub fn owner(&self, b: u32) -> u32 {
        self.owner[b as usize]
    }

    /// Marks a replacement block detached (the AFTL keeps it for fine-mapped pages).
    pub fn detach(&mut self, b: u32) {
        debug_assert_eq!(self.role[b as usize], Role::Replacement);
        self.role[b as usize] = Role::Detached;
    }

    fn release(&mut self, b: u32, erases: u32) {
        let key = if self.dynamic_wl {
            erases
        } else {
            self.free_seq = self.free_seq.wrapping_add(1);
            self.free_seq
        };
        self.role[b as usize] = Role::Free;
        self.owner[b as usize] = NIL;
        let plane = self.geo.plane_of(BlockId(b)) as usize;
        self.free[plane].push(Reverse((key, b)));
        self.nonempty[plane >> 6] |= 1u64 << (plane & 63);
        self.free_count += 1;
    }

    /// Takes a free block for `role` of logical block `lbn`, from the next plane in
    /// rotation that has one.
    pub fn alloc(&mut self, role: Role, lbn: u32) -> Result<u32, FtlError> {
        let Some(p) = self.next_nonempty_plane() else {
            return Err(self.out_of_space());
        };
        let pool = &mut self.free[p as usize];
        let Reverse((_, b)) = pool.pop().expect("plane marked non-empty");
        if pool.is_empty() {
            self.nonempty[p as usize >> 6] &= !(1u64 << (p & 63));
        }
        let planes = self.free.len() as u32;
        self.cursor = (p + 1) % planes;
        self.free_count -= 1;
        self.adopt(b, role, lbn);
        Ok(b)
    }

    /// First plane at or after the cursor (wrapping) with a free block.
    #[inline]
    fn next_nonempty_plane(&self) -> Option<u32> {
        let planes = self.free.len();
        let words = self.nonempty.len();
        let c = self.cursor as usize;
        // Words from the cursor's on, the cursor's word masked below it, then the
        // cursor's word again for the planes below the cursor.
        for i in 0..=words {
            let w = (c >> 6) + i;
            let mut bits = self.nonempty[w % words];
            if i == 0 {
                bits &= u64::MAX << (c & 63);
            }
            if bits != 0 {
                let p = (w % words) * 64 + bits.trailing_zeros() as usize;
                debug_assert!(p < planes);
                return Some(p as u32);
            }
        }
        None
    }

    /// Erases `b` (which must hold no valid page) and returns it to its pool, or retires
    /// it when that erase brought it to its endurance: a worn-out block is a bad block,
    /// so the spare capacity shrinks by one block (docs/ftls.md, "Bad blocks").
    pub fn erase(&mut self, b: u32, nand: &mut Nand) {
        nand.erase(BlockId(b), Cause::Gc);
        self.endurance = nand.endurance_cycles();
        let erases = nand.erase_count(BlockId(b));
        if erases >= self.endurance {
            self.retire(b);
        } else {
            self.release(b, erases);
        }
    }

    fn retire(&mut self, b: u32) {
        self.role[b as usize] = Role::Retired;
        self.owner[b as usize] = NIL;
        self.retired += 1;
    }

    /// Blocks retired so far.
    pub fn retired_blocks(&self) -> u64 {
        self.retired as u64
    }

    /// The error for a device with no free block left: the end of its life when retired
    /// blocks took the spares, else a device too full.
    pub fn out_of_space(&self) -> FtlError {
        if self.retired > 0 {
            FtlError::EndOfLife {
                plane: self.cursor,
                retired: self.retired as u64,
                endurance: self.endurance,
            }
        } else {
            FtlError::OutOfSpace { plane: self.cursor }
        }
    }

    /// The oldest live replacement block, without removing it.
    pub fn oldest_replacement(&mut self) -> Option<u32> {
        while let Some(&(b, s)) = self.fifo.front() {
            if self.role[b as usize] == Role::Replacement && self.stamp[b as usize] == s {
                return Some(b);
            }
            self.fifo.pop_front();
        }
        None
    }

    /// Starts fetching what folding primary `p` / replacement `r` ([`NIL`] when absent)
    /// will read, so the next reclaim's cache misses overlap the writes before it.
    #[inline]
    pub fn prefetch_fold(&self, nand: &Nand, p: u32, r: u32) {
        // The primary's tags are implicit (its pages sit at their offsets): not read.
        if p != NIL {
            nand.prefetch_block_status(BlockId(p));
        }
        if r != NIL {
            nand.prefetch_block(BlockId(r));
        }
    }

    /// Page `off` of block `b`.
    #[inline]
    pub fn page(&self, b: u32, off: u32) -> Ppn {
        Ppn(b * self.np + off)
    }

    /// Next page to append to replacement block `r`, or `None` when it is full.
    #[inline]
    pub fn append_page(&self, r: u32, nand: &Nand) -> Option<Ppn> {
        let wp = nand.write_ptr(BlockId(r));
        (wp < self.np).then(|| Ppn(r * self.np + wp))
    }

    /// Where a new copy of offset `off` of logical block `lbn` goes: in place in the
    /// primary (allocated on first use) while that page is erased, else appended to the
    /// replacement block (allocated on first use); `None` when the replacement block is
    /// full and the caller must fold first.
    #[inline]
    pub fn place(
        &mut self,
        nand: &Nand,
        lbn: u32,
        off: u32,
        p: &mut u32,
        r: &mut u32,
    ) -> Result<Option<Placement>, FtlError> {
        if *p == NIL {
            *p = self.alloc(Role::Primary, lbn)?;
        }
        let in_place = self.page(*p, off);
        if !nand.is_programmed(in_place) {
            return Ok(Some(Placement::InPlace(in_place)));
        }
        if *r == NIL {
            *r = self.alloc(Role::Replacement, lbn)?;
        }
        Ok(self.append_page(*r, nand).map(Placement::Appended))
    }

    /// Where `lpn` (at offset `off`) lives under primary `p` / replacement `r` ([`NIL`]
    /// when absent), and the page slots examined (P[off] and each R page scanned).
    #[inline]
    pub fn locate(&self, nand: &Nand, p: u32, r: u32, lpn: Lpn, off: u32) -> (Option<Ppn>, u32) {
        let mut probes = 0;
        if p != NIL {
            probes += 1;
            let ppn = self.page(p, off);
            // A write tests P[off]'s status next and programs it or R: fetch all at once.
            nand.prefetch_page(ppn);
            if nand.is_valid(ppn) {
                return (Some(ppn), probes);
            }
            if r != NIL && !nand.is_programmed(ppn) {
                // P[off] erased: offset `off` was not written since P was allocated (a
                // write goes in place while it can), so R holds no copy. The firmware
                // scans R to the end to learn that; the result is known, so only the
                // scan's probes are counted.
                let wp = nand.write_ptr(BlockId(r));
                debug_assert!(
                    (0..wp).all(|i| nand.oob_lpn_raw(self.page(r, i)) != lpn.0),
                    "lpn {} in R with P[{off}] erased",
                    lpn.0
                );
                return (None, probes + wp);
            }
        }
        if r != NIL {
            let first = r * self.np;
            let mut i = first + nand.write_ptr(BlockId(r));
            while i > first {
                i -= 1;
                probes += 1;
                if nand.oob_lpn_raw(Ppn(i)) == lpn.0 {
                    let ppn = Ppn(i);
                    return (nand.is_valid(ppn).then_some(ppn), probes);
                }
            }
        }
        (None, probes)
    }

    /// Locates the `out.len()` consecutive pages from `first` (all in the logical block
    /// of `p` / `r`) at once: each primary slot, then one newest-first scan of R for the
    /// pages not found there, stopping when all are resolved. Writes ppns (or [`NIL`]) and
    /// returns the page slots examined.
    pub fn locate_run(&self, nand: &Nand, p: u32, r: u32, first: u32, out: &mut [u32]) -> u32 {
        let mut probes = 0;
        let mut pending = 0;
        for (i, o) in out.iter_mut().enumerate() {
            *o = NIL;
            if p != NIL {
                probes += 1;
                let ppn = self.page(p, (first + i as u32) % self.np);
                if nand.is_valid(ppn) {
                    *o = ppn.0;
                    continue;
                }
            }
            pending |= 1u64 << i;
        }
        if r != NIL && pending != 0 {
            let base = r * self.np;
            let mut i = base + nand.write_ptr(BlockId(r));
            while i > base && pending != 0 {
                i -= 1;
                probes += 1;
                let k = nand.oob_lpn_raw(Ppn(i)).wrapping_sub(first);
                if (k as usize) < out.len() && pending & (1u64 << k) != 0 {
                    // The newest copy decides: valid → here, invalid → unmapped.
                    pending &= !(1u64 << k);
                    if nand.is_valid(Ppn(i)) {
                        out[k as usize] = i;
                    }
                }
            }
        }
        probes
    }

    /// Folds logical block `lbn`: copies the valid page of every offset held in primary `p`
    /// and replacement `r` ([`NIL`] if none) into a fresh block at its offset — except
    /// replacement pages for which `keep(lpn)` is true, which stay in `r` — and erases `p`,
    /// and `r` unless it still holds kept pages (it is then detached). `moved(lpn, new)`
    /// hears about every copy out of `r`; the primary's pages keep their offsets, so a
    /// caller that follows them reads the new block's valid bits instead (one word per
    /// 64 pages rather than one call per page).
    ///
    /// `host`: the host write that needed the fold (its old copy already invalid, so its
    /// offset in the new block is erased): the page is programmed there before `p` and
    /// `r` are erased, so a power cut never finds the old copy erased and the new one not
    /// yet written.
    #[allow(clippy::too_many_arguments)]
    pub fn fold_for(
        &mut self,
        nand: &mut Nand,
        lbn: u32,
        p: u32,
        r: u32,
        host: Option<Lpn>,
        mut keep: impl FnMut(Lpn) -> bool,
        mut moved: impl FnMut(Lpn, Ppn),
    ) -> Result<Folded, FtlError> {
        let n = self.alloc(Role::Primary, lbn)?;
        let mut pages = std::mem::take(&mut self.scratch);
        let mut copies = 0;
        let lbn_base = lbn * self.np;
        if p != NIL {
            // The primary's pages keep their offsets: one block-wide merge copy.
            copies += nand.relocate_block(BlockId(p), BlockId(n), Cause::Gc);
        }
        if r != NIL {
            pages.clear();
            nand.valid_pages(BlockId(r), &mut pages);
            for &src in &pages {
                // A replacement page's offset comes from its OOB tag.
                let lpn = Lpn(nand.oob_lpn_raw(src));
                if keep(lpn) {
                    continue;
                }
                let dst = self.page(n, lpn.0 - lbn_base);
                nand.relocate(src, dst, Cause::Gc);
                moved(lpn, dst);
                copies += 1;
            }
        }
        self.scratch = pages;
        if let Some(lpn) = host {
            nand.program(self.page(n, lpn.0 - lbn_base), lpn, Cause::Host);
        }
        if p != NIL {
            self.erase(p, nand);
        }
        let mut detached = false;
        if r != NIL {
            if nand.valid_count(BlockId(r)) == 0 {
                self.erase(r, nand);
            } else {
                self.detach(r);
                detached = true;
            }
        }
        Ok(Folded {
            primary: n,
            detached,
            copies,
        })
    }

    /// Gives block `b` `role` for logical block `lbn` (an allocation, or a mount finding
    /// it: a replacement block joins the reclaim FIFO now, so a mount adopts them oldest
    /// first).
    fn adopt(&mut self, b: u32, role: Role, lbn: u32) {
        self.role[b as usize] = role;
        self.owner[b as usize] = lbn;
        self.stamp_seq = self.stamp_seq.wrapping_add(1);
        self.stamp[b as usize] = self.stamp_seq;
        if role == Role::Replacement {
            self.fifo.push_back((b, self.stamp_seq));
        }
    }

    /// Power-up: rebuilds pools and roles from the OOB tags and erase counts of a mounted
    /// array (pages programmed, none valid) and marks the live pages valid; see the
    /// module header. `detached_ok`: the FTL keeps detached blocks (AFTL). `name` is the
    /// FTL's, for messages. `Err` when the flash holds pages this FTL cannot have written
    /// (another FTL's or geometry's), or a fold it needs finds no free block.
    ///
    /// Four steps: read the tags ([`Self::scan_tags`]), rebuild the free and retired
    /// pools ([`Self::reset_pools`]), give each logical block's blocks the roles that keep
    /// its live pages in place ([`Self::adopt_fitting`]), and fold the logical blocks no
    /// roles fit ([`Self::fold_unfit`]).
    pub fn mount(
        &mut self,
        nand: &mut Nand,
        tags: &[Option<StoredTag>],
        logical_pages: u32,
        detached_ok: bool,
        name: &'static str,
    ) -> Result<Mounted, super::RecoverError> {
        let lp = logical_pages;
        let scan = self.scan_tags(tags, lp, name)?;
        let lbns = lp.div_ceil(self.np);
        let mut by_lbn: Vec<Vec<u32>> = vec![Vec::new(); lbns as usize];
        for (b, sh) in scan.shape.iter().enumerate() {
            if sh.owner != NIL {
                by_lbn[sh.owner as usize].push(b as u32);
            }
        }
        self.reset_pools(nand, &scan.shape);
        let mut m = Mounted::default();
        let unfit = self.adopt_fitting(nand, tags, lp, &scan, &by_lbn, detached_ok, &mut m);
        self.fold_unfit(nand, lp, &scan.win, &by_lbn, unfit, name, &mut m)?;
        m.logged.sort_unstable();
        m.stats.detached_blocks = m.detached.len() as u64;
        Ok(m)
    }

    /// The mount's one pass over the tags: the winning copy of each logical page and
    /// each block's owner and shape. `Err` on a tag this FTL never writes, or a block
    /// holding two logical blocks' pages.
    fn scan_tags(
        &self,
        tags: &[Option<StoredTag>],
        lp: u32,
        name: &'static str,
    ) -> Result<TagScan, super::RecoverError> {
        let np = self.np;
        let nb = self.geo.blocks();
        let mut win = vec![NIL; lp as usize];
        let mut win_seq = vec![0u32; lp as usize];
        let mut shape = vec![
            Shape {
                owner: NIL,
                pages: 0,
                at_offsets: true,
                prefix: true,
            };
            nb as usize
        ];
        for b in 0..nb {
            let sh = &mut shape[b as usize];
            for off in 0..np {
                let i = b * np + off;
                let Some(t) = tags[i as usize] else { continue };
                if t.meta || t.lpn >= lp {
                    return Err(super::RecoverError::Foreign {
                        ftl: name,
                        what: format!(
                            "page {i} carries a tag ({} {}) that {name} never writes on this \
                             geometry: the flash holds another FTL's or device's data",
                            if t.meta { "metadata" } else { "logical page" },
                            t.lpn
                        ),
                    });
                }
                let lbn = t.lpn / np;
                if sh.owner == NIL {
                    sh.owner = lbn;
                } else if sh.owner != lbn {
                    return Err(super::RecoverError::Foreign {
                        ftl: name,
                        what: format!(
                            "block {b} holds pages of logical blocks {} and {lbn}, which \
                             {name} never does: the flash holds another FTL's data",
                            sh.owner
                        ),
                    });
                }
                sh.at_offsets &= t.lpn % np == off;
                sh.prefix &= off == sh.pages;
                sh.pages += 1;
                let l = t.lpn as usize;
                let w = win[l];
                // On a tie (a copy cut short) the copy at its own offset wins: a
                // demotion's destination, or a fold's.
                if w == NIL
                    || t.seq > win_seq[l]
                    || (t.seq == win_seq[l] && off == t.lpn % np && w % np != t.lpn % np)
                {
                    win[l] = i;
                    win_seq[l] = t.seq;
                }
            }
        }
        Ok(TagScan {
            win,
            win_seq,
            shape,
        })
    }

    /// Pools from scratch: erased blocks are free, or retired when worn out; every
    /// other block is unowned until a role is adopted for it.
    fn reset_pools(&mut self, nand: &Nand, shape: &[Shape]) {
        self.endurance = nand.endurance_cycles();
        for set in &mut self.free {
            set.clear();
        }
        self.nonempty.fill(0);
        self.free_count = 0;
        self.fifo.clear();
        self.retired = 0;
        self.role.fill(Role::Free);
        self.owner.fill(NIL);
        for b in 0..self.geo.blocks() {
            if shape[b as usize].pages == 0 {
                let erases = nand.erase_count(BlockId(b));
                if erases >= self.endurance {
                    self.retire(b);
                } else {
                    self.release(b, erases);
                }
            }
        }
    }

    /// Adopts the roles [`Self::fit`] finds for each logical block's blocks, marks their
    /// live pages valid, completes folds cut short, queues the replacements in their
    /// original order and erases the blocks left stale. Returns the logical blocks no
    /// roles fit (to fold).
    #[allow(clippy::too_many_arguments)]
    fn adopt_fitting(
        &mut self,
        nand: &mut Nand,
        tags: &[Option<StoredTag>],
        lp: u32,
        scan: &TagScan,
        by_lbn: &[Vec<u32>],
        detached_ok: bool,
        m: &mut Mounted,
    ) -> Vec<u32> {
        let np = self.np;
        let mut unfit = Vec::new();
        let mut stale = Vec::new();
        let mut replacements = Vec::new();
        for (lbn, blocks) in by_lbn.iter().enumerate() {
            if blocks.is_empty() {
                continue;
            }
            let lbn = lbn as u32;
            let Some(f) = self.fit(
                nand,
                tags,
                lbn,
                blocks,
                &scan.win,
                &scan.win_seq,
                lp,
                &scan.shape,
                detached_ok,
            ) else {
                unfit.push(lbn);
                continue;
            };
            for &b in blocks {
                if b != f.p && b != f.r && !f.detached.contains(&b) {
                    stale.push(b);
                }
            }
            self.adopt(f.p, Role::Primary, lbn);
            for &d in &f.detached {
                self.role[d as usize] = Role::Detached;
                self.owner[d as usize] = lbn;
            }
            if f.r != NIL {
                let first = tags[(f.r * np) as usize].map_or(0, |t| t.seq);
                replacements.push((first, f.r, lbn));
            }
            for &(l, w) in &f.live {
                nand.revalidate(Ppn(w));
                if w / np != f.p {
                    m.logged.push((scan.win_seq[l as usize], l, w));
                }
            }
            // A fold cut short: its remaining pages go to their offsets in the new
            // primary now (the blocks they leave are stale).
            if !f.moves.is_empty() {
                m.stats.completed_folds += 1;
            }
            for &(l, w) in &f.moves {
                nand.revalidate(Ppn(w));
                nand.relocate(Ppn(w), self.page(f.p, l - lbn * np), Cause::Gc);
                m.stats.fold_copies += 1;
            }
            m.lbns.push((lbn, f.p, f.r));
            m.detached.extend(f.detached);
        }
        replacements.sort_unstable();
        for (_, r, lbn) in replacements {
            self.adopt(r, Role::Replacement, lbn);
        }
        for b in stale {
            self.erase(b, nand);
            m.stats.erased_blocks += 1;
        }
        unfit
    }

    /// Folds each logical block in `unfit` into a fresh primary: its winning pages to
    /// their offsets, its old blocks erased. `Err` when no free block is left.
    #[allow(clippy::too_many_arguments)]
    fn fold_unfit(
        &mut self,
        nand: &mut Nand,
        lp: u32,
        win: &[u32],
        by_lbn: &[Vec<u32>],
        unfit: Vec<u32>,
        name: &'static str,
        m: &mut Mounted,
    ) -> Result<(), super::RecoverError> {
        let np = self.np;
        for lbn in unfit {
            let n =
                self.alloc(Role::Primary, lbn)
                    .map_err(|source| super::RecoverError::Flash {
                        ftl: name,
                        step: format!("folding logical block {lbn}: "),
                        source,
                    })?;
            for l in lbn * np..((lbn + 1) * np).min(lp) {
                let w = win[l as usize];
                if w != NIL {
                    nand.revalidate(Ppn(w));
                    nand.relocate(Ppn(w), self.page(n, l - lbn * np), Cause::Gc);
                    m.stats.fold_copies += 1;
                }
            }
            for &b in &by_lbn[lbn as usize] {
                self.erase(b, nand);
            }
            m.stats.folds += 1;
            m.lbns.push((lbn, n, NIL));
        }
        Ok(())
    }

    /// Roles for the blocks of logical block `lbn` (see the module header): the first
    /// candidate primary under which every live page stays where it is, else the first
    /// under which the live pages outside it can be copied to their (erased) offsets in
    /// it, finishing a fold cut short; `None` if neither exists.
    #[allow(clippy::too_many_arguments)]
    fn fit(
        &self,
        nand: &Nand,
        tags: &[Option<StoredTag>],
        lbn: u32,
        blocks: &[u32],
        win: &[u32],
        win_seq: &[u32],
        lp: u32,
        shape: &[Shape],
        detached_ok: bool,
    ) -> Option<Fit> {
        let np = self.np;
        let base = lbn * np;
        let end = (base + np).min(lp);
        // Under primary `p`, where each live page of the block is: P's own copy when it
        // carries the winning sequence number (a fold or demotion cut short leaves equal
        // copies, and the primary's is the one to keep), else the winner.
        let live = |p: u32| -> Vec<(u32, u32)> {
            (base..end)
                .filter(|&l| win[l as usize] != NIL)
                .map(|l| {
                    let own = p * np + l - base;
                    let mine = tags[own as usize]
                        .is_some_and(|t| t.lpn == l && t.seq == win_seq[l as usize]);
                    (l, if mine { own } else { win[l as usize] })
                })
                .collect()
        };
        let mut candidates: Vec<(usize, u32)> = blocks
            .iter()
            .filter(|&&b| shape[b as usize].at_offsets)
            .map(|&b| (live(b).iter().filter(|&&(_, w)| w / np == b).count(), b))
            .collect();
        candidates.sort_unstable_by_key(|&(n, b)| (std::cmp::Reverse(n), b));
        let tag = |i: u32| tags[i as usize];
        'candidate: for &(_, p) in &candidates {
            let pages = live(p);
            let in_p = |off: u32| nand.is_programmed(self.page(p, off));
            let mut r = NIL;
            let mut detached = Vec::new();
            for &b in blocks {
                if b == p {
                    continue;
                }
                let ws: Vec<(u32, u32)> = pages
                    .iter()
                    .filter(|&&(_, w)| w / np == b)
                    .map(|&(l, w)| (l - base, w))
                    .collect();
                if ws.is_empty() {
                    continue; // stale
                }
                if ws.iter().all(|&(off, _)| in_p(off)) {
                    if r != NIL || !shape[b as usize].prefix {
                        continue 'candidate;
                    }
                    // Every page of R has its offset taken in P (writes go to R only
                    // then), and each winner is the last copy of its page in R (the scan
                    // runs newest first).
                    let first = b * np;
                    if (first..first + np).any(|i| tag(i).is_some_and(|t| !in_p(t.lpn % np))) {
                        continue 'candidate;
                    }
                    for &(off, w) in &ws {
                        if (w + 1..first + np).any(|i| tag(i).is_some_and(|t| t.lpn == base + off))
                        {
                            continue 'candidate;
                        }
                    }
                    r = b;
                } else if detached_ok && ws.iter().all(|&(off, _)| !in_p(off)) {
                    detached.push(b);
                } else {
                    continue 'candidate;
                }
            }
            return Some(Fit {
                p,
                r,
                detached,
                live: pages,
                moves: Vec::new(),
            });
        }
        for &(_, p) in &candidates {
            let (inside, outside): (Vec<_>, Vec<_>) =
                live(p).into_iter().partition(|&(_, w)| w / np == p);
            if outside
                .iter()
                .all(|&(l, _)| !nand.is_programmed(self.page(p, l - base)))
            {
                return Some(Fit {
                    p,
                    r: NIL,
                    detached: Vec::new(),
                    live: inside,
                    moves: outside,
                });
            }
        }
        None
    }

    /// Panics unless the `(lbn, primary, replacement)` triples (blocks [`NIL`] when
    /// absent) name exactly the blocks holding those roles, each owned by its lbn.
    pub fn check_owners(&self, entries: impl Iterator<Item = (u32, u32, u32)>) {
        let mut owned: i64 = 0;
        for (lbn, p, r) in entries {
            for (b, role) in [(p, Role::Primary), (r, Role::Replacement)] {
                if b != NIL {
                    assert_eq!(self.role[b as usize], role, "lbn {lbn} block {b}");
                    assert_eq!(self.owner[b as usize], lbn, "owner of block {b}");
                    owned += 1;
                }
            }
        }
        let with_role = self
            .role
            .iter()
            .filter(|r| matches!(r, Role::Primary | Role::Replacement))
            .count() as i64;
        assert_eq!(
            owned, with_role,
            "blocks with a role no coarse entry references"
        );
    }

    /// Panics if the pools disagree with the NAND or with the roles.
    pub fn check(&self, nand: &Nand) {
        let mut free = 0;
        for (plane, set) in self.free.iter().enumerate() {
            for &Reverse((_, b)) in set {
                assert_eq!(self.role[b as usize], Role::Free, "pooled block {b}");
                assert_eq!(
                    self.geo.plane_of(BlockId(b)) as usize,
                    plane,
                    "block {b} pooled in the wrong plane"
                );
                assert_eq!(nand.write_ptr(BlockId(b)), 0, "free block {b} not erased");
                free += 1;
            }
        }
        assert_eq!(free, self.free_count, "free count");
        for (plane, set) in self.free.iter().enumerate() {
            let marked = self.nonempty[plane >> 6] & (1u64 << (plane & 63)) != 0;
            assert_eq!(marked, !set.is_empty(), "plane {plane} non-empty mark");
        }
        let roles_free = self.role.iter().filter(|r| **r == Role::Free).count() as u32;
        assert_eq!(roles_free, free, "free roles vs pools");
        for (b, role) in self.role.iter().enumerate() {
            if *role == Role::Retired {
                assert!(
                    nand.erase_count(BlockId(b as u32)) >= self.endurance,
                    "retired block {b} below its endurance"
                );
                assert_eq!(nand.write_ptr(BlockId(b as u32)), 0, "retired block {b}");
            } else if *role == Role::Free {
                assert_eq!(nand.valid_count(BlockId(b as u32)), 0, "free block {b}");
            } else {
                assert!(self.owner[b] != NIL, "block {b} ({role:?}) has no owner");
            }
            if *role == Role::Replacement {
                // Appended in order: every page below the write pointer is programmed.
                let wp = nand.write_ptr(BlockId(b as u32));
                for i in 0..wp {
                    assert!(
                        nand.is_programmed(self.page(b as u32, i)),
                        "R block {b} hole"
                    );
                }
            }
        }
    }
}

/// Checks the device can hold every logical block plus the reclaim reserve.
pub fn check_capacity(
    name: &'static str,
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
) -> Result<u32, ConfigError> {
    let kind = if name == "aftl" {
        super::FtlKind::Aftl
    } else {
        super::FtlKind::Cftl
    };
    super::feasible::check_kind(kind, cfg, geo, logical_pages)?;
    let lbns = logical_pages.div_ceil(geo.pages_per_block as u64);
    let need = lbns + cfg.gc_high_free_blocks as u64 + 1;
    if (geo.blocks() as u64) < need {
        return Err(super::spec::unfit(
            name,
            format!(
                "impossible geometry for {name}: {lbns} logical blocks + {} free blocks for folds + 1 replacement block = {need} blocks, but the device has {} (raise over-provisioning or lower ftl.gc_high_free_blocks)",
                cfg.gc_high_free_blocks,
                geo.blocks()
            ),
        ));
    }
    if logical_pages >= (NIL - 1) as u64 {
        return Err(super::spec::unfit(
            name,
            format!("{name}: too many logical pages"),
        ));
    }
    Ok(lbns as u32)
}

/// Panics unless every logical page `find` maps is a valid page tagged with it, and the
/// mapped pages are exactly the device's valid pages.
pub fn check_mapping(nand: &Nand, logical_pages: u32, find: impl Fn(Lpn) -> Option<Ppn>) {
    let mut mapped = 0u64;
    for l in 0..logical_pages {
        if let Some(ppn) = find(Lpn(l)) {
            assert!(nand.is_valid(ppn), "lpn {l} maps to invalid {ppn:?}");
            assert_eq!(nand.oob(ppn).lpn, Lpn(l), "OOB of {ppn:?}");
            mapped += 1;
        }
    }
    let g = nand.geometry();
    let valid: u64 = (0..g.blocks())
        .map(|b| nand.valid_count(BlockId(b)) as u64)
        .sum();
    assert_eq!(mapped, valid, "mapped pages != valid pages");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo() -> Geometry {
        Geometry {
            channels: 1,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 2,
            blocks_per_plane: 3,
            pages_per_block: 4,
            page_size_bytes: 4096,
            oob_size_bytes: 64,
        }
    }

    #[test]
    fn allocation_rotates_planes_and_locate_prefers_newest_replacement_copy() {
        let g = geo();
        let mut nand = Nand::new(g, 100, true, false);
        let mut b = Blocks::new(&g, true);
        let p = b.alloc(Role::Primary, 0).unwrap();
        let r = b.alloc(Role::Replacement, 0).unwrap();
        assert_ne!(g.plane_of(BlockId(p)), g.plane_of(BlockId(r)));
        assert_eq!(b.free_count(), 4);
        // lpn 2 in place at P[2], then twice into R (R[0], R[1]); lpn 1 in place at
        // P[1], then at R[2] (a write goes to R only once P[off] is taken).
        nand.program(b.page(p, 2), Lpn(2), Cause::Host);
        nand.invalidate(b.page(p, 2));
        nand.program(b.append_page(r, &nand).unwrap(), Lpn(2), Cause::Host);
        nand.invalidate(b.page(r, 0));
        nand.program(b.append_page(r, &nand).unwrap(), Lpn(2), Cause::Host);
        nand.program(b.page(p, 1), Lpn(1), Cause::Host);
        nand.invalidate(b.page(p, 1));
        nand.program(b.append_page(r, &nand).unwrap(), Lpn(1), Cause::Host);
        // lpn 2: P[2] checked (1), then R scanned from R[2] down: R[2] (lpn 1), R[1] hit.
        assert_eq!(b.locate(&nand, p, r, Lpn(2), 2), (Some(b.page(r, 1)), 3));
        assert_eq!(b.locate(&nand, p, r, Lpn(1), 1), (Some(b.page(r, 2)), 2));
        // lpn 3 never written: P[3] + all 3 programmed R pages (counted without the scan:
        // P[3] is erased, so R cannot hold it).
        assert_eq!(b.locate(&nand, p, r, Lpn(3), 3), (None, 4));
        // Fold keeping lpn 1 in R: lpn 2 copied to the new block's page 2; P erased; R
        // detached with lpn 1.
        let mut moved = Vec::new();
        let f = b
            .fold_for(
                &mut nand,
                0,
                p,
                r,
                None,
                |l| l == Lpn(1),
                |l, d| moved.push((l, d)),
            )
            .unwrap();
        assert!(f.detached);
        assert_eq!(f.copies, 1);
        assert_eq!(moved, vec![(Lpn(2), b.page(f.primary, 2))]);
        assert_eq!(b.role(r), Role::Detached);
        assert_eq!(b.role(p), Role::Free);
        assert_eq!(nand.counters().erases[Cause::Gc as usize], 1);
        b.check(&nand);
        nand.check_invariants();
    }

    /// A logical block whose only block holds its pages away from their offsets (an
    /// AFTL detached block whose primary is gone, seen by CFTL, which has none) fits no
    /// roles: the mount folds it into a free block, and a block mixing two logical
    /// blocks is refused with a message.
    #[test]
    fn mount_folds_a_logical_block_no_role_fits() {
        use crate::ftl::{FtlConfig, FtlKind, build_ftl};
        use crate::nand::FlashData;
        let g = Geometry {
            blocks_per_plane: 12,
            pages_per_block: 8,
            ..geo()
        };
        let cfg = FtlConfig {
            name: FtlKind::Cftl,
            ..Default::default()
        };
        let flash = |pages: &[(u32, u32)]| {
            let mut nand = Nand::new(g, 100, true, false);
            nand.attach_data(FlashData::in_memory(&g));
            for &(ppn, lpn) in pages {
                let d = nand.data_mut().unwrap();
                d.stage(lpn, vec![lpn as u8 + 1; 4096].into_boxed_slice());
                nand.program(Ppn(ppn), Lpn(lpn), Cause::Host);
            }
            let data = nand.take_data().unwrap();
            Nand::mount(g, 100, false, data)
        };
        // Block 5 holds lpn 3 then lpn 1 (offsets 0 and 1), a stale older lpn 3 too.
        let (mut nand, tags, _) = flash(&[(40, 3), (41, 1), (42, 3)]);
        let mut ftl = build_ftl(&cfg, &g, 128, 1).unwrap();
        ftl.recover(&mut nand, &tags).unwrap();
        ftl.check_invariants(&nand);
        let mut c = crate::spec::Counters::new();
        ftl.counters(&mut c);
        assert_eq!(c.value(&super::RECOVERY_FOLDS), 1);
        let mut page = vec![0u8; 4096];
        for lpn in [1u32, 3] {
            let ppn = ftl.lookup(Lpn(lpn), &nand).expect("kept");
            assert_eq!(ppn.0 % 8, lpn, "at its offset now");
            nand.data().unwrap().read(ppn.0, &mut page);
            assert_eq!(page[0], lpn as u8 + 1);
        }
        assert_eq!(nand.erase_count(BlockId(5)), 1, "the old block erased");
        // Pages of logical blocks 0 and 1 in one block: not this FTL's flash.
        let (mut nand, tags, _) = flash(&[(40, 3), (41, 9)]);
        let mut ftl = build_ftl(&cfg, &g, 128, 1).unwrap();
        let e = ftl.recover(&mut nand, &tags).unwrap_err();
        assert!(
            e.to_string()
                .contains("block 5 holds pages of logical blocks 0 and 1"),
            "{e}"
        );
    }

    /// Seeded power cuts at random flash operations of AFTL and CFTL with real payloads
    /// (hot logical blocks, so replacement blocks fill, folds run and AFTL detaches
    /// blocks; a tiny fine table, so demotions run): after every mount the invariants
    /// hold and each page reads a version written there, no older than the last one
    /// whose write returned before the cut (or zeros / any version after a trim). The
    /// cuts land inside folds too: the mount finishes some and keeps detached blocks.
    #[test]
    fn random_cuts_recover_every_durable_write() {
        use crate::ftl::{FtlConfig, FtlKind, build_ftl};
        use crate::nand::FlashData;
        use rand::{Rng, SeedableRng};
        use rand_xoshiro::Xoshiro256PlusPlus;
        use std::collections::BTreeMap;
        let g = Geometry {
            blocks_per_plane: 12,
            pages_per_block: 8,
            ..geo()
        };
        let lp = 128u32;
        let ps = g.page_size_bytes as usize;
        let payload = |lpn: u32, v: u64| {
            let mut p = vec![0u8; ps].into_boxed_slice();
            p[..8].copy_from_slice(&v.to_le_bytes());
            p[8..12].copy_from_slice(&lpn.to_le_bytes());
            p
        };
        for kind in [FtlKind::Aftl, FtlKind::Cftl] {
            let mut cfg = FtlConfig {
                name: kind,
                ..Default::default()
            };
            cfg.aftl.fine_slots = 6;
            cfg.cftl.short_slots = 8;
            cfg.cftl.long_slots = 16;
            let mut totals = BTreeMap::new();
            for seed in 0..30u64 {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
                let build = || build_ftl(&cfg, &g, lp as u64, seed).unwrap();
                let mut nand = Nand::new(g, 10_000, true, false);
                nand.attach_data(FlashData::in_memory(&g));
                let mut ftl = build();
                let mut history = vec![vec![0u64]; lp as usize];
                let mut floor = vec![0u64; lp as usize];
                let mut version = 0u64;
                for round in 0..8 {
                    nand.data_mut().unwrap().arm_cut(rng.gen_range(0..300));
                    while !nand.data().unwrap().is_cut() {
                        // Three quarters of the traffic on four logical blocks.
                        let lpn = if rng.gen_bool(0.75) {
                            rng.gen_range(0..32)
                        } else {
                            rng.gen_range(0..lp)
                        };
                        if rng.gen_bool(0.1) {
                            ftl.trim(Lpn(lpn), &mut nand).unwrap();
                            if !nand.data().unwrap().is_cut() {
                                floor[lpn as usize] = 0;
                            }
                            continue;
                        }
                        version += 1;
                        let d = nand.data_mut().unwrap();
                        d.stage(lpn, payload(lpn, version));
                        history[lpn as usize].push(version);
                        ftl.write(Lpn(lpn), &mut nand).unwrap();
                        if !nand.data().unwrap().is_cut() {
                            floor[lpn as usize] = version;
                            // Between cuts every durable page reads its last version.
                            for l in 0..lp {
                                if floor[l as usize] > 0 {
                                    let got = ftl.lookup(Lpn(l), &nand).map(|p| {
                                        let mut page = vec![0u8; ps];
                                        nand.data().unwrap().read(p.0, &mut page);
                                        u64::from_le_bytes(page[..8].try_into().unwrap())
                                    });
                                    assert_eq!(
                                        got,
                                        Some(floor[l as usize]),
                                        "{kind:?} seed {seed} round {round} live lpn {l} after write of {lpn} v{version}"
                                    );
                                }
                            }
                        }
                    }
                    let mut data = nand.take_data().unwrap();
                    data.lose_dram();
                    data.disarm();
                    let (mut mounted, tags, _) = Nand::mount(g, 10_000, false, data);
                    let mut fresh = build();
                    fresh.recover(&mut mounted, &tags).unwrap();
                    fresh.check_invariants(&mounted);
                    let mut c = crate::spec::Counters::new();
                    fresh.counters(&mut c);
                    for (k, v) in c.iter().filter(|(k, _)| k.starts_with("ftl.recovery.")) {
                        *totals.entry(k).or_insert(0) += v;
                    }
                    crate::ftl::check_read_back(
                        &*fresh,
                        &mounted,
                        &history,
                        &mut floor,
                        &format!("{kind:?} seed {seed} round {round}"),
                    );
                    nand = mounted;
                    ftl = fresh;
                }
            }
            // The cuts hit folds (stale blocks erased at mount), CFTL's cut short are
            // finished at mount, and AFTL's detached blocks survive a mount.
            eprintln!("{kind:?}: {totals:?}");
            assert!(
                totals[super::RECOVERY_ERASED_BLOCKS.key] > 0,
                "{kind:?} {totals:?}"
            );
            if kind == FtlKind::Aftl {
                assert!(
                    totals[super::RECOVERY_DETACHED_BLOCKS.key] > 0,
                    "{totals:?}"
                );
            } else {
                assert!(
                    totals[super::RECOVERY_COMPLETED_FOLDS.key] > 0,
                    "{totals:?}"
                );
            }
        }
    }
}
