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
//! ```
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
use crate::nand::{BlockId, Cause, Geometry, Lpn, Nand, Ppn};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

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

/// Block pools, roles and the primary/replacement operations.
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
            return Err(FtlError::OutOfSpace { plane: self.cursor });
        };
        let pool = &mut self.free[p as usize];
        let Reverse((_, b)) = pool.pop().expect("plane marked non-empty");
        if pool.is_empty() {
            self.nonempty[p as usize >> 6] &= !(1u64 << (p & 63));
        }
        let planes = self.free.len() as u32;
        self.cursor = (p + 1) % planes;
        self.free_count -= 1;
        self.role[b as usize] = role;
        self.owner[b as usize] = lbn;
        self.stamp_seq = self.stamp_seq.wrapping_add(1);
        self.stamp[b as usize] = self.stamp_seq;
        if role == Role::Replacement {
            self.fifo.push_back((b, self.stamp_seq));
        }
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

    /// Erases `b` (which must hold no valid page) and returns it to its pool.
    pub fn erase(&mut self, b: u32, nand: &mut Nand) {
        nand.erase(BlockId(b), Cause::Gc);
        self.release(b, nand.erase_count(BlockId(b)));
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
    pub fn fold(
        &mut self,
        nand: &mut Nand,
        lbn: u32,
        p: u32,
        r: u32,
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
            if *role == Role::Free {
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
    name: &str,
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
) -> Result<u32, String> {
    let kind = if name == "aftl" {
        super::FtlKind::Aftl
    } else {
        super::FtlKind::Cftl
    };
    super::feasible::check_kind(kind, cfg, geo, logical_pages).map_err(|e| e.to_string())?;
    let lbns = logical_pages.div_ceil(geo.pages_per_block as u64);
    let need = lbns + cfg.gc_high_free_blocks as u64 + 1;
    if (geo.blocks() as u64) < need {
        return Err(format!(
            "impossible geometry for {name}: {lbns} logical blocks + {} free blocks for folds + 1 replacement block = {need} blocks, but the device has {} (raise over-provisioning or lower ftl.gc_high_free_blocks)",
            cfg.gc_high_free_blocks,
            geo.blocks()
        ));
    }
    if logical_pages >= (NIL - 1) as u64 {
        return Err(format!("{name}: too many logical pages"));
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
            .fold(
                &mut nand,
                0,
                p,
                r,
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
}
