//! The payload side of the NAND array: the page-store interface ([`PageStore`]), the OOB
//! tag a store keeps per page ([`StoredTag`]), and [`FlashData`], which the [`Nand`]
//! calls from the one place each kind of operation passes. The stores themselves (memory,
//! file) and the crash tests that cut power live above the simulator, in the `data` module
//! (docs/nbd.md).
//!
//! ```text
//! host write(lpn, bytes) -> staged[lpn] = bytes          (controller DRAM: volatile)
//! NAND program(ppn, lpn, Host) -> store[ppn] = staged.take(lpn), tag(ppn) = (lpn, seq)
//! NAND copy(src, dst)         -> store[dst] = store[src], tag copied (same lpn and seq)
//! NAND erase(block)           -> its pages' data and tags dropped, erase count kept
//! host read(lpn) -> staged[lpn] if buffered, else store[L2P(lpn)], else zeros
//! ```
//! The store keeps the OOB tag and erase count of every page as flash does: a restart
//! mounts the array from them alone ([`Nand::mount`]), never from a copy of RAM state.
//!
//! A power cut ([`FlashData::arm_cut`]) lets a given number of flash operations reach the
//! store and drops the rest, as a drive losing power in the middle of a command does.

use super::Cause;
#[cfg(doc)]
use super::Nand;
use std::collections::HashMap;

/// What the OOB area of a programmed page says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredTag {
    /// Logical page (or a metadata tag, for [`Cause::Map`] pages).
    pub lpn: u32,
    /// Host write sequence number of the data.
    pub seq: u32,
    /// What the page holds: host data (programs of cause Host and their copies) or
    /// FTL metadata ([`Cause::Map`]).
    pub meta: bool,
    /// When the flash programmed this page: a counter over every program *and copy*
    /// (unlike `seq`, which a copy keeps). Two pages with the same `lpn` and `seq` are
    /// a copy and its source; the higher `program_seq` is the copy, so a recovery can
    /// finish a GC or merge cut short exactly where it stopped. A block's lowest
    /// `program_seq` orders blocks by when they were opened (replacement chains, log
    /// FIFOs). Real controllers write such a counter into the spare area for the same
    /// reason (YAFFS2's block sequence number, docs/nbd.md "Power loss").
    pub program_seq: u32,
}

/// A medium holding page payloads, tags and erase counts.
pub trait PageStore: Send {
    /// Programs `ppn` with `data` (a whole page) and its tag.
    fn program(&mut self, ppn: u32, tag: StoredTag, data: &[u8]);
    /// Copies page `src` (data and tag, with `program_seq` as the copy's own) to erased
    /// page `dst`.
    fn copy(&mut self, src: u32, dst: u32, program_seq: u32);
    /// `ppn`'s data was overwritten or trimmed: a store may drop its payload (reads of it
    /// then give zeros) but keeps its tag, so a mount scan still finds the page
    /// programmed. Only called while no power cut is armed (see
    /// [`FlashData::on_invalidate`]).
    fn invalidate(&mut self, _ppn: u32) {}
    /// Erases the `pages` pages from `first` (one block) and records its new erase count.
    fn erase(&mut self, block: u32, first: u32, pages: u32, erase_count: u32);
    /// Fills `out` with `ppn`'s data; `false` (and zeros) when it holds none.
    fn read(&self, ppn: u32, out: &mut [u8]) -> bool;
    /// Tags of every page (`None` = erased), in page order: the mount scan.
    fn scan_tags(&self) -> Vec<Option<StoredTag>>;
    /// Erase count of every block.
    fn erase_counts(&self) -> Vec<u32>;
    /// Makes everything written so far durable (a file's fsync; nothing in memory).
    fn sync(&mut self) -> std::io::Result<()>;
    /// Bytes of page data held (memory) or allocated (file).
    fn stored_bytes(&self) -> u64;
}

/// The data side of a NAND array: the store (flash contents) and the controller's
/// DRAM copies of host data not yet programmed.
pub struct FlashData {
    store: Box<dyn PageStore>,
    page_bytes: usize,
    /// Whole-page payloads of host writes waiting for their program (the write buffer's
    /// contents, or a write in flight), by logical page.
    staged: HashMap<u32, Box<[u8]>>,
    /// Whole-page payloads of the host write being performed, moved into `staged` page
    /// by page as the write path takes each page (a buffer may first evict an older
    /// version of a page of the same write, which must go out with its old bytes).
    pending: HashMap<u32, Box<[u8]>>,
    /// Content of the next metadata page programmed (an FTL's translation page).
    staged_meta: Option<Box<[u8]>>,
    /// Flash operations still allowed to reach the store before the power cut.
    cut_budget: Option<u64>,
    /// The cut happened: later operations are lost.
    cut: bool,
    /// [`StoredTag::program_seq`] of the next page programmed or copied.
    next_program_seq: u32,
    zero: Box<[u8]>,
}

impl std::fmt::Debug for FlashData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlashData")
            .field("page_bytes", &self.page_bytes)
            .field("staged_pages", &self.staged.len())
            .field("cut", &self.cut)
            .finish()
    }
}

impl FlashData {
    /// Data over `store`, pages of `page_bytes`.
    pub fn new(store: Box<dyn PageStore>, page_bytes: usize) -> FlashData {
        FlashData {
            store,
            page_bytes,
            staged: HashMap::new(),
            staged_meta: None,
            pending: HashMap::new(),
            cut_budget: None,
            cut: false,
            next_program_seq: 0,
            zero: vec![0; page_bytes].into_boxed_slice(),
        }
    }

    /// Page size in bytes.
    pub fn page_bytes(&self) -> usize {
        self.page_bytes
    }

    /// Lets `ops` more flash operations reach the store; the ones after are lost.
    pub fn arm_cut(&mut self, ops: u64) {
        self.cut_budget = Some(ops);
    }

    /// Power is back: no cut pending, every operation reaches the store again.
    pub fn disarm(&mut self) {
        self.cut_budget = None;
        self.cut = false;
    }

    /// Whether the power cut has happened.
    pub fn is_cut(&self) -> bool {
        self.cut
    }

    /// Whether one more operation reaches the store (counting it against the budget).
    fn reaches_flash(&mut self) -> bool {
        if self.cut {
            return false;
        }
        match &mut self.cut_budget {
            Some(0) => {
                self.cut = true;
                false
            }
            Some(n) => {
                *n -= 1;
                true
            }
            None => true,
        }
    }

    /// Puts a host write's whole-page payload for `lpn` into controller DRAM.
    pub fn stage(&mut self, lpn: u32, page: Box<[u8]>) {
        debug_assert_eq!(page.len(), self.page_bytes);
        self.staged.insert(lpn, page);
    }

    /// Holds a host write's whole-page payload for `lpn` until the write path takes the
    /// page ([`FlashData::admit`]).
    pub fn pend(&mut self, lpn: u32, page: Box<[u8]>) {
        debug_assert_eq!(page.len(), self.page_bytes);
        self.pending.insert(lpn, page);
    }

    /// The write path takes page `lpn` of the current write: its payload enters DRAM.
    pub fn admit(&mut self, lpn: u32) {
        if let Some(p) = self.pending.remove(&lpn) {
            self.staged.insert(lpn, p);
        }
    }

    /// The write path takes every page of the current write at once (no buffer).
    pub fn admit_all(&mut self) {
        self.staged.extend(self.pending.drain());
    }

    /// Stages, for `lpn`, a copy of what flash page `ppn` holds (buffer padding writes
    /// the same data back).
    pub fn stage_from_flash(&mut self, lpn: u32, ppn: u32) {
        let mut p = vec![0; self.page_bytes].into_boxed_slice();
        self.store.read(ppn, &mut p);
        self.staged.insert(lpn, p);
    }

    /// Content for the next metadata page ([`Cause::Map`]) programmed.
    pub fn stage_meta(&mut self, page: Box<[u8]>) {
        debug_assert_eq!(page.len(), self.page_bytes);
        self.staged_meta = Some(page);
    }

    /// The DRAM copy of `lpn`, if one is staged.
    pub fn staged(&self, lpn: u32) -> Option<&[u8]> {
        self.staged.get(&lpn).map(|b| &b[..])
    }

    /// Drops the DRAM copy of `lpn` (trimmed while buffered).
    pub fn unstage(&mut self, lpn: u32) {
        self.staged.remove(&lpn);
    }

    /// Pages staged now.
    pub fn staged_pages(&self) -> usize {
        self.staged.len()
    }

    /// Continues the program counter after `last` (a mount found it on flash), so every
    /// page programmed from now on outranks the ones already there.
    pub fn continue_program_seq(&mut self, last: u32) {
        self.next_program_seq = last.wrapping_add(1);
    }

    fn take_program_seq(&mut self) -> u32 {
        let s = self.next_program_seq;
        self.next_program_seq = s.wrapping_add(1);
        s
    }

    /// Drops all of controller DRAM (power lost without protection).
    pub fn lose_dram(&mut self) {
        self.staged.clear();
        self.pending.clear();
    }

    /// Reads flash page `ppn` into `out` (zeros when it holds nothing).
    pub fn read(&self, ppn: u32, out: &mut [u8]) -> bool {
        self.store.read(ppn, out)
    }

    /// The NAND programmed `ppn` with `lpn` for `cause`: host data comes out of DRAM,
    /// metadata pages carry what the FTL staged ([`FlashData::stage_meta`]), or zeros.
    pub(crate) fn on_program(&mut self, ppn: u32, lpn: u32, seq: u32, cause: Cause) {
        let meta = cause == Cause::Map;
        let page = if meta {
            self.staged_meta.take()
        } else {
            self.staged.remove(&lpn)
        };
        debug_assert!(
            meta || page.is_some() || self.cut,
            "host program of page {lpn} with no data staged"
        );
        if !self.reaches_flash() {
            return;
        }
        let tag = StoredTag {
            lpn,
            seq,
            meta,
            program_seq: self.take_program_seq(),
        };
        match &page {
            Some(p) => self.store.program(ppn, tag, p),
            None => {
                let z = std::mem::take(&mut self.zero);
                self.store.program(ppn, tag, &z);
                self.zero = z;
            }
        }
    }

    /// The NAND copied `src` to `dst`.
    pub(crate) fn on_copy(&mut self, src: u32, dst: u32) {
        if self.reaches_flash() {
            let p = self.take_program_seq();
            self.store.copy(src, dst, p);
        }
    }

    /// The NAND marked `ppn` stale because the host overwrote or trimmed its logical
    /// page (GC moves keep their source's payload until the erase). The store may drop
    /// the payload at once — memory then follows the live data, not everything
    /// programmed since the last erase — but only while no power cut is armed: an FTL
    /// may invalidate the old version before programming the new one, and a cut between
    /// the two must leave the old bytes on flash for the mount to find. Without a cut
    /// every command completes, so the newer version (higher sequence number) is on
    /// flash before anyone can mount; a trimmed page then reads as zeros.
    pub(crate) fn on_invalidate(&mut self, ppn: u32) {
        if self.cut_budget.is_none() && !self.cut {
            self.store.invalidate(ppn);
        }
    }

    /// The NAND erased `block` (pages `first..first + pages`).
    pub(crate) fn on_erase(&mut self, block: u32, first: u32, pages: u32, erase_count: u32) {
        if self.reaches_flash() {
            self.store.erase(block, first, pages, erase_count);
        }
    }

    /// The store (mount scans, statistics).
    pub fn store(&self) -> &dyn PageStore {
        &*self.store
    }

    /// Makes the store durable.
    pub fn sync(&mut self) -> std::io::Result<()> {
        self.store.sync()
    }

    /// Takes the store back (a restart mounts it into a new array).
    pub fn into_store(self) -> Box<dyn PageStore> {
        self.store
    }
}
