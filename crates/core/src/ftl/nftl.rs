//! NFTL, M-Systems' NAND flash translation layer: A. Ban, "Flash file system", US patent
//! 5,404,485 (1995), as implemented in Linux `drivers/mtd/nftlcore.c` and described in
//! docs/papers.md §3 (Park & Kim's CFTL paper, which uses it as a baseline).
//!
//! ```text
//! tables:      EUN[lbn] → primary unit; Repl[unit] → next replacement unit (a chain)
//! write(lpn):  (lbn, off) = lpn / Np, lpn % Np; walk the chain: the first unit whose
//!              page off is FREE takes the write (the older copy is marked stale)
//!              none free: if the chain already has max_chain_blocks units → fold it;
//!                         if fewer than fold_free_blocks units are free → fold the
//!                         longest chain; append a free unit to the chain and write
//! read(lpn):   walk the chain while page off is USED; the last USED copy is current
//!              (each unit examined is an OOB read; a FREE page ends the walk)
//! fold(lbn):   copy the newest copy of every offset into the chain's last unit (its
//!              FREE pages are exactly the offsets whose newest copy is elsewhere);
//!              erase every other unit; the last unit becomes the primary
//! ```
//! Choices: the chain is capped at `[ftl.nftl] max_chain_blocks` units (default 2: one
//! primary and one replacement block, as docs/papers.md §3 describes NFTL; 0 = no cap, the
//! Linux behaviour, where chains grow until free units run out — up to 65,535 units,
//! the simulator's bound). Free units below
//! `fold_free_blocks` (default 2, Linux's non-desperate threshold) fold the longest
//! chain (ties: the one that reached that length first; Linux's scan takes the lowest
//! logical block, an accident of its loop, not a policy). A fold always goes in place
//! into the last unit: with writes taking the first FREE page along the chain, the used
//! pages of an offset form a prefix of the chain, so the last unit's FREE pages are
//! exactly those it must receive (Linux checks this and falls back to a fresh unit only
//! for states this model does not have). The page being overwritten is invalidated
//! before any fold, so folds never copy it (Linux's `pendingblock`). Trimmed pages are
//! stale (Linux marks them DELETED in the OOB; that OOB write is not charged).
//!
//! Recovery at power-up (from the OOB tags alone, [`Ftl::recover`]): every unit holds
//! pages of one logical block at their own offsets, so the tags say whose it is, and
//! the program counter in each page's tag says when each unit was opened.
//! ```text
//! newest copy of each page wins (highest seq; a copy beats its source), only it valid
//! per lbn: chain = its units by opening order; it stands if, at every offset, the
//!   programmed units form a prefix of the chain, their seqs never fall along it,
//!   the last is the newest copy, and the chain is within max_chain_blocks
//! otherwise (a fold cut short: copies with equal seqs, a FREE page before a USED one)
//!   → the fold is finished: the newest copies into the last unit when it holds only
//!   newest copies (else a free unit), the other units erased
//! used counts from the chain, mapped = has a newest copy, longest-chain lists rebuilt
//! ```
//!
//! Read cost: `[ftl.nftl] charge_chain_reads = true` (default) charges every unit the
//! walk examines beyond the one returning the data as one page read of cause `Map`
//! (reading a page's spare area still takes t_R); `false` treats the status as free.
//!
//! NAND rule: replacement units are written at fixed offsets, out of page order, as on
//! the small-block parts NFTL was built for; [`Ftl::programs_in_order`] is `false`.
//!
//! Mapping memory: `BL·4 + T·4` bytes (the EUN and replacement tables as 4-byte unit
//! numbers; Linux uses 2). The simulator also keeps, per logical page, a mapped bit and
//! how many units of its chain have its offset USED (what a device learns by walking the
//! chain's OOB status; they let `lookup` and the walk answer without touching the flash
//! array), and a longest-chain index instead of Linux's scan; none of those is counted.
//!
//! Counters: `ftl.merge.switch` (folds that copied nothing) and `ftl.merge.partial`
//! (folds that filled the last unit), `ftl.lookup.{count,probes}` (probes = chain units
//! examined), `ftl.nftl.folds`, `ftl.nftl.forced_folds` (longest chain, for free units),
//! `ftl.nftl.chain_max` (longest chain seen).

use super::feasible::{self, Need};
use super::logblock::{Bits, Blocks, NIL, Role};
use super::spec::{Caps, FtlSpec, Section};
use super::{Ftl, FtlConfig, FtlError};
use crate::nand::{BlockId, Cause, Geometry, Lpn, Nand, Ppn};
use crate::spec::{ConfigError, Counter, Counters};
use serde::{Deserialize, Serialize};

/// Reported as `ftl.nftl.folds`.
pub const FOLDS: Counter =
    Counter::total("ftl.nftl.folds", "folds", "chains folded into a fresh unit");
/// Reported as `ftl.nftl.forced_folds`.
pub const FORCED_FOLDS: Counter = Counter::total(
    "ftl.nftl.forced_folds",
    "folds",
    "folds forced to free units (longest chain first)",
);
/// Reported as `ftl.nftl.chain_max`.
pub const CHAIN_MAX: Counter = Counter::gauge(
    "ftl.nftl.chain_max",
    "units",
    "longest chain of units reached",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[FOLDS, FORCED_FOLDS, CHAIN_MAX];

/// NFTL in the registry (both variants: `ftl.nftl.variant` picks the log-style one,
/// [`super::nftl_log`]).
pub const SPEC: FtlSpec = FtlSpec {
    name: "nftl",
    description: "NFTL (M-Systems/Linux): primary + replacement chains at fixed offsets, folding",
    caps: Caps {
        writes_at_offsets: true,
        tags_beyond_logical_only: true,
        ..Caps::BLOCK_MAPPED
    },
    sections: &[Section {
        key: "nftl",
        what: "NFTL chains",
    }],
    validate: |cfg| cfg.nftl.validate(),
    need: |cfg, geo, logical_pages| {
        Need::device(
            geo,
            feasible::logical_blocks(geo, logical_pages) + cfg.nftl.fold_free_blocks as u64,
            "primary units + fold_free_blocks free units",
        )
    },
    // Chains per logical block and a 2-byte "used" count per page.
    memory_bytes: |_, geo, logical_pages| {
        feasible::logical_blocks(geo, logical_pages) * 16 + logical_pages * 2
    },
    counters: &[
        COUNTERS,
        super::nftl_log::COUNTERS,
        super::logblock::COUNTERS,
        super::twolevel::COUNTERS,
    ],
    build: |cfg, geo, logical_pages, _| {
        if cfg.nftl.variant == NftlVariant::Log {
            super::nftl_log::build(cfg, geo, logical_pages)
        } else {
            Nftl::new(cfg, geo, logical_pages).map(|f| Box::new(f) as Box<dyn Ftl>)
        }
    },
};

/// `[ftl.nftl]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NftlConfig {
    /// Units a chain may hold before a write needing another folds it; 0 = no cap.
    pub max_chain_blocks: u32,
    /// Fold the longest chain when fewer units than this are free (at least 1).
    pub fold_free_blocks: u32,
    /// Charge each chain unit examined beyond the data's as a page read (cause `Map`);
    /// in the log variant, each replacement page scanned.
    pub charge_chain_reads: bool,
    /// Which NFTL: `fixed-offset` (Linux/M-Systems chains, this file) or `log` (one
    /// replacement block written in order and scanned on lookup, the variant the AFTL
    /// and CFTL papers compare against: [`super::nftl_log`]).
    pub variant: NftlVariant,
}

/// The NFTL variants (`ftl.nftl.variant`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum NftlVariant {
    /// Replacement units written at each page's own offset, chained (Linux NFTL).
    #[default]
    FixedOffset,
    /// One replacement block appended in write order, scanned on lookup.
    Log,
}

impl Default for NftlConfig {
    fn default() -> Self {
        NftlConfig {
            max_chain_blocks: 2,
            fold_free_blocks: 2,
            charge_chain_reads: true,
            variant: NftlVariant::FixedOffset,
        }
    }
}

impl NftlConfig {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.max_chain_blocks == 1 {
            return Err(ConfigError::value(
                "ftl.nftl.max_chain_blocks",
                1,
                "0 (no cap) or at least 2 (a chain needs a replacement unit)",
            ));
        }
        if self.fold_free_blocks == 0 {
            return Err(ConfigError::value(
                "ftl.nftl.fold_free_blocks",
                0,
                "at least 1",
            ));
        }
        if self.variant == NftlVariant::Log && self.max_chain_blocks != 2 {
            return Err(ConfigError::value(
                "ftl.nftl.max_chain_blocks",
                format!("{} with variant = \"log\"", self.max_chain_blocks),
                "2 (the log variant always has one primary and one replacement block)",
            ));
        }
        Ok(())
    }
}

/// Byte → its 8 bits as 0/1 counts (bit 0 first): a fold resets 8 used counts per lookup.
const SPREAD: [[u16; 8]; 256] = {
    let mut t = [[0u16; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            t[b][i] = ((b >> i) & 1) as u16;
            i += 1;
        }
        b += 1;
    }
    t
};

/// Longest chain the simulator tracks (chain positions are 2-byte); "no cap" means this.
const MAX_CHAIN: u32 = u16::MAX as u32;

/// Chains of two or more units in lists by length, each oldest first, so the longest
/// chain is found in O(1) (amortised) without scanning every logical block.
#[derive(Clone)]
struct ByLength {
    /// Units in each logical block's chain.
    len: Vec<u32>,
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Per length: first and last logical block of its list.
    head: Vec<u32>,
    tail: Vec<u32>,
    /// No list above this length is non-empty.
    max: u32,
}

impl ByLength {
    fn new(bl: usize) -> ByLength {
        ByLength {
            len: vec![0; bl],
            prev: vec![NIL; bl],
            next: vec![NIL; bl],
            head: vec![NIL; 3],
            tail: vec![NIL; 3],
            max: 0,
        }
    }

    fn set(&mut self, lbn: u32, len: u32) {
        let i = lbn as usize;
        let old = self.len[i];
        if old >= 2 {
            let (p, n) = (self.prev[i], self.next[i]);
            if p == NIL {
                self.head[old as usize] = n;
            } else {
                self.next[p as usize] = n;
            }
            if n == NIL {
                self.tail[old as usize] = p;
            } else {
                self.prev[n as usize] = p;
            }
        }
        self.len[i] = len;
        if len >= 2 {
            let l = len as usize;
            if l >= self.head.len() {
                self.head.resize(l + 1, NIL);
                self.tail.resize(l + 1, NIL);
            }
            let t = self.tail[l];
            self.prev[i] = t;
            self.next[i] = NIL;
            if t == NIL {
                self.head[l] = lbn;
            } else {
                self.next[t as usize] = lbn;
            }
            self.tail[l] = lbn;
            self.max = self.max.max(len);
        }
        while self.max >= 2 && self.head[self.max as usize] == NIL {
            self.max -= 1;
        }
    }

    /// Oldest of the longest chains with two or more units.
    fn longest(&self) -> Option<u32> {
        (self.max >= 2).then(|| self.head[self.max as usize])
    }

    /// Panics unless the lists hold exactly the chains of two or more units.
    fn check(&self) {
        let mut listed = 0;
        for l in 2..self.head.len() {
            let mut b = self.head[l];
            let mut prev = NIL;
            while b != NIL {
                assert_eq!(self.len[b as usize], l as u32, "lbn {b} in list {l}");
                assert_eq!(self.prev[b as usize], prev);
                listed += 1;
                prev = b;
                b = self.next[b as usize];
            }
            assert_eq!(self.tail[l], prev, "tail of list {l}");
            if l as u32 > self.max {
                assert_eq!(self.head[l], NIL, "list {l} above max");
            }
        }
        assert_eq!(listed, self.len.iter().filter(|&&l| l >= 2).count());
    }
}

/// Result of walking a chain at one offset.
#[derive(Clone, Copy, Debug)]
struct Walk {
    /// Last unit whose page is USED (holds the newest copy, which may be stale).
    newest: u32,
    /// First unit whose page is FREE, or NIL.
    free: u32,
    /// Last unit of the chain when no page is FREE (NIL for an empty chain).
    tail: u32,
    /// Units examined.
    visited: u32,
    /// Chain position of `free`.
    free_depth: u32,
}

/// NFTL state.
#[derive(Clone)]
pub struct Nftl {
    b: Blocks,
    cfg: NftlConfig,
    max_chain: u32,
    /// Unit → next unit of its chain, or NIL.
    repl: Vec<u32>,
    chains: ByLength,
    /// Per logical page: how many units of its chain have its offset USED (programmed)
    /// — a prefix of the chain, so the newest copy is at position `used - 1` and the
    /// first FREE page at `used`. This is what walking the chain's OOB status tells the
    /// firmware; keeping it per page lets the simulator walk the chain's unit links
    /// without touching the flash array (the walk and its probes are unchanged).
    used: Vec<u16>,
    /// Written and not trimmed, per logical page.
    mapped: Bits,
    folds: u64,
    forced_folds: u64,
    chain_max: u32,
    units: Vec<u32>,
    /// Logical blocks whose fold recovery finished at power-up.
    recovery_merges: u64,
}

impl Nftl {
    /// An NFTL over an erased array.
    pub fn new(cfg: &FtlConfig, geo: &Geometry, logical_pages: u64) -> Result<Nftl, ConfigError> {
        cfg.nftl.validate()?;
        super::feasible::check_kind(super::FtlKind::Nftl, cfg, geo, logical_pages)?;
        let b = Blocks::new("nftl", geo, logical_pages, cfg.dynamic_wl);
        let bl = b.data.len() as u64;
        let need = bl + cfg.nftl.fold_free_blocks as u64;
        if (geo.blocks() as u64) < need {
            return Err(super::spec::unfit(
                "nftl",
                format!(
                    "impossible geometry for nftl: {} blocks, but {bl} primary units + ftl.nftl.fold_free_blocks = {} free units need {need} (raise over-provisioning)",
                    geo.blocks(),
                    cfg.nftl.fold_free_blocks
                ),
            ));
        }
        Ok(Nftl {
            cfg: cfg.nftl.clone(),
            max_chain: match cfg.nftl.max_chain_blocks {
                0 => MAX_CHAIN,
                n => n.min(MAX_CHAIN),
            },
            repl: vec![NIL; geo.blocks() as usize],
            chains: ByLength::new(bl as usize),
            used: crate::util::zeroed_vec(logical_pages as usize),
            mapped: Bits::new(logical_pages as usize),
            folds: 0,
            forced_folds: 0,
            chain_max: 0,
            units: Vec::new(),
            recovery_merges: 0,
            b,
        })
    }

    /// Walks `lpn`'s chain (logical block `lbn`, offset `off`) reading each unit's page
    /// status, as NFTL does: every unit whose page is USED, then the first FREE one.
    #[inline]
    fn walk(&self, lpn: Lpn, lbn: u32, off: u32, nand: &Nand) -> Walk {
        let mut w = Walk {
            newest: NIL,
            free: NIL,
            tail: NIL,
            visited: 0,
            free_depth: 0,
        };
        let used = self.used[lpn.0 as usize] as u32;
        let mut u = self.b.data[lbn as usize];
        for _ in 0..used {
            w.visited += 1;
            w.newest = u;
            w.tail = u;
            u = self.repl[u as usize];
        }
        if u != NIL {
            w.visited += 1;
            w.free = u;
            w.free_depth = used;
        }
        debug_assert!(
            {
                let (mut v, mut x) = (self.b.data[lbn as usize], 0);
                while v != NIL && nand.is_programmed(self.b.page(v, off)) {
                    x += 1;
                    v = self.repl[v as usize];
                }
                x == used && (w.free == NIL || !nand.is_programmed(self.b.page(w.free, off)))
            },
            "used count of lpn {} disagrees with the flash",
            lpn.0
        );
        w
    }

    fn set_len(&mut self, lbn: u32, len: u32) {
        self.chains.set(lbn, len);
        self.chain_max = self.chain_max.max(len);
    }

    /// Folds `lbn`'s chain into its last unit.
    fn fold(&mut self, lbn: u32, nand: &mut Nand) {
        self.folds += 1;
        let mut units = std::mem::take(&mut self.units);
        units.clear();
        let mut u = self.b.data[lbn as usize];
        while u != NIL {
            units.push(u);
            u = self.repl[u as usize];
        }
        let target = *units.last().expect("fold of an empty chain");
        let mut copied = 0;
        for &u in &units[..units.len() - 1] {
            // The valid pages of an earlier unit are the newest copies of their offsets,
            // and the target's page at each of those offsets is FREE.
            copied += nand.relocate_block(BlockId(u), BlockId(target), Cause::Gc);
            self.release(u, nand);
        }
        if copied > 0 {
            self.b.stats.partial += 1;
        } else {
            self.b.stats.switch += 1;
        }
        // Every newest copy now sits in the single remaining unit: an offset is USED
        // there or nowhere.
        let first = lbn * self.b.np;
        let end = (first + self.b.np).min(self.used.len() as u32);
        let base = self.b.page(target, 0).0;
        let mut l = first;
        while l < end {
            let n = (end - l).min(64);
            let bits = nand.programmed_bits(Ppn(base + l - first), n);
            let used = &mut self.used[l as usize..(l + n) as usize];
            let mut chunks = used.chunks_exact_mut(8);
            for (i, c) in (&mut chunks).enumerate() {
                c.copy_from_slice(&SPREAD[(bits >> (8 * i)) as usize & 0xff]);
            }
            let done = n as usize / 8 * 8;
            for (i, u) in chunks.into_remainder().iter_mut().enumerate() {
                *u = (bits >> (done + i)) as u16 & 1;
            }
            l += n;
        }
        self.units = units;
        self.repl[target as usize] = NIL;
        self.b.role[target as usize] = Role::Data;
        self.b.data[lbn as usize] = target;
        self.set_len(lbn, 1);
    }

    fn release(&mut self, u: u32, nand: &mut Nand) {
        self.repl[u as usize] = NIL;
        self.b.release(u, nand);
    }

    /// [`Ftl::write`] of one page.
    fn write_page(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let (lbn, off) = self.b.split(lpn);
        // Invalidate first so no fold below copies the page being replaced.
        let mut w = self.drop_copy(lpn, nand);
        loop {
            if w.free != NIL {
                let p = self.b.page(w.free, off);
                nand.program(p, lpn, Cause::Host);
                self.used[lpn.0 as usize] = w.free_depth as u16 + 1;
                self.mapped.set(lpn.0);
                if self.b.pool.len() <= self.cfg.fold_free_blocks as usize
                    && let Some(next) = self.chains.longest()
                {
                    // The next write needing a unit will likely fold this chain, copying
                    // its primary unit's pages and resetting its used counts: start
                    // fetching them, and the chain's link.
                    let d = self.b.data[next as usize];
                    // Its primary unit's tags are implicit (pages at their offsets).
                    nand.prefetch_block_status(BlockId(d));
                    crate::util::prefetch(&self.repl, d as usize);
                    let first = (next * self.b.np) as usize;
                    let last = (first + self.b.np as usize).min(self.used.len());
                    for i in (first..last).step_by(32) {
                        crate::util::prefetch(&self.used, i);
                    }
                }
                return Ok(());
            }
            let len = self.chains.len[lbn as usize];
            if len >= self.max_chain {
                self.fold(lbn, nand);
                w = self.walk(lpn, lbn, off, nand);
                continue;
            }
            if self.b.pool.len() < self.cfg.fold_free_blocks as usize
                && let Some(victim) = self.chains.longest()
            {
                self.forced_folds += 1;
                self.fold(victim, nand);
                w = self.walk(lpn, lbn, off, nand);
                continue;
            }
            let role = if w.tail == NIL { Role::Data } else { Role::Log };
            let u = self.b.alloc(role)?;
            if w.tail == NIL {
                self.b.data[lbn as usize] = u;
            } else {
                self.repl[w.tail as usize] = u;
            }
            self.set_len(lbn, len + 1);
            w = Walk {
                free: u,
                free_depth: len,
                ..w
            };
        }
    }

    /// Second prefetch stage, after the current request: the hinted page's used count
    /// and chain links have arrived (the hook fetched them), so fetch the flash state of
    /// the pages its write will touch: the newest copy (invalidated) and the first FREE
    /// page (programmed).
    #[inline]
    fn prefetch_hinted(&self, nand: &Nand) {
        let lpn = self.b.take_hint();
        if lpn == NIL {
            return;
        }
        let (lbn, off) = self.b.split(Lpn(lpn));
        let used = self.used[lpn as usize] as u32;
        let mut u = self.b.data[lbn as usize];
        let mut i = 0;
        while u != NIL && i <= used {
            if i + 1 >= used {
                nand.prefetch_page(self.b.page(u, off));
            }
            u = self.repl[u as usize];
            i += 1;
        }
    }

    /// [`Nftl::locate`], counted as one lookup probing every unit walked.
    #[inline]
    fn locate_counted(&mut self, lpn: Lpn, nand: &Nand) -> (Option<Ppn>, Walk) {
        let r = self.locate(lpn, nand);
        self.b.stats.lookups += 1;
        self.b.stats.probes += r.1.visited as u64;
        r
    }

    /// Invalidates `lpn`'s current copy, if any; returns the walk that found it.
    #[inline]
    fn drop_copy(&mut self, lpn: Lpn, nand: &mut Nand) -> Walk {
        let (old, w) = self.locate_counted(lpn, nand);
        if let Some(p) = old {
            nand.invalidate(p);
            self.mapped.clear(lpn.0);
        }
        w
    }

    /// Where `lpn`'s current copy is, and the walk that found it.
    #[inline]
    fn locate(&self, lpn: Lpn, nand: &Nand) -> (Option<Ppn>, Walk) {
        let (lbn, off) = self.b.split(lpn);
        let w = self.walk(lpn, lbn, off, nand);
        let r = (w.newest != NIL && self.mapped.get(lpn.0)).then(|| self.b.page(w.newest, off));
        debug_assert_eq!(r, self.lookup(lpn, nand));
        (r, w)
    }
}

impl Nftl {
    /// Whether `units` (opening order) form a chain NFTL can be in for `lbn`; sets the
    /// used counts of its pages if so.
    fn chain_stands(
        &mut self,
        lbn: u32,
        units: &[u32],
        scan: &super::logblock::Scan,
        nand: &Nand,
    ) -> bool {
        if units.len() as u32 > self.max_chain {
            return false;
        }
        let first = lbn * self.b.np;
        let end = (first + self.b.np).min(self.b.logical_pages);
        for l in first..end {
            let off = l - first;
            let mut used = 0;
            let mut last_seq = None;
            let mut last = None;
            for (i, &u) in units.iter().enumerate() {
                let p = self.b.page(u, off);
                if !nand.is_programmed(p) {
                    continue;
                }
                let seq = nand.oob(p).seq;
                if used != i || last_seq.is_some_and(|s| s > seq) {
                    return false;
                }
                used += 1;
                last_seq = Some(seq);
                last = Some(p);
            }
            if last.is_some_and(|p| !scan.is_newest(p, nand)) {
                return false;
            }
        }
        for l in first..end {
            let off = l - first;
            self.used[l as usize] = units
                .iter()
                .take_while(|&&u| nand.is_programmed(self.b.page(u, off)))
                .count() as u16;
        }
        true
    }
}

impl Ftl for Nftl {
    fn name(&self) -> &'static str {
        "nftl"
    }

    fn logical_pages(&self) -> u64 {
        self.b.logical_pages as u64
    }

    fn read(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<Option<Ppn>, FtlError> {
        let (r, w) = self.locate_counted(lpn, nand);
        if let Some(p) = r {
            nand.read(p, Cause::Host);
        }
        self.prefetch_hinted(nand);
        let extra = w.visited - r.is_some() as u32;
        if self.cfg.charge_chain_reads && extra > 0 {
            // Spare-area reads of the other units examined (the addresses only matter to
            // the timing model: the primary unit's page stands for them).
            let (lbn, off) = self.b.split(lpn);
            let at = self.b.page(self.b.data[lbn as usize], off);
            for _ in 0..extra {
                nand.charge_read(at, Cause::Map);
            }
        }
        Ok(r)
    }

    fn lookup(&self, lpn: Lpn, _nand: &Nand) -> Option<Ppn> {
        if !self.mapped.get(lpn.0) {
            return None;
        }
        let (lbn, off) = self.b.split(lpn);
        let mut u = self.b.data[lbn as usize];
        for _ in 1..self.used[lpn.0 as usize] {
            u = self.repl[u as usize];
        }
        Some(self.b.page(u, off))
    }

    fn write(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        let r = self.write_page(lpn, nand);
        self.prefetch_hinted(nand);
        r
    }

    fn prefetch(&self, lpn: Lpn) {
        self.b.prefetch_lpn(lpn, &self.mapped);
        crate::util::prefetch(&self.used, lpn.0 as usize);
    }

    fn trim(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        self.drop_copy(lpn, nand);
        Ok(())
    }

    fn mapping_bytes(&self) -> u64 {
        self.b.map_bytes() + (self.repl.len() * std::mem::size_of::<u32>()) as u64
    }

    fn counters(&self, out: &mut Counters) {
        self.b.stats.report(out);
        out.set(&super::RETIRED_BLOCKS, self.b.retired_blocks());
        out.set(&FOLDS, self.folds);
        out.set(&FORCED_FOLDS, self.forced_folds);
        out.set(&CHAIN_MAX, self.chain_max as u64);
        out.set(&super::RECOVERY_MERGES, self.recovery_merges);
    }

    fn reserved_blocks(&self) -> u64 {
        self.b.geo.blocks() as u64 - self.b.data.len() as u64
    }

    fn programs_in_order(&self) -> bool {
        false
    }

    fn recover(
        &mut self,
        nand: &mut Nand,
        tags: &[Option<crate::nand::StoredTag>],
    ) -> Result<(), super::RecoverError> {
        let mut scan = self.b.scan(nand, tags);
        let bl = self.b.data.len();
        let mut own: Vec<Vec<u32>> = vec![Vec::new(); bl];
        for b in 0..self.b.geo.blocks() {
            if nand.write_ptr(BlockId(b)) == 0 {
                continue;
            }
            let lbn = scan.owner[b as usize];
            if lbn == NIL || !scan.in_place[b as usize] {
                return Err(super::RecoverError::Foreign {
                    ftl: "nftl",
                    what: format!(
                        "block {b} holds pages away from their offsets or of several logical \
                         blocks, which NFTL never writes"
                    ),
                });
            }
            own[lbn as usize].push(b);
            self.b.role[b as usize] = Role::Log;
        }
        self.b.remount_pool(nand);
        self.repl.fill(NIL);
        self.used.fill(0);
        self.chains = ByLength::new(bl);
        for (lbn, units) in own.iter_mut().enumerate() {
            let lbn = lbn as u32;
            if units.is_empty() {
                continue;
            }
            units.sort_unstable_by_key(|&u| scan.opened[u as usize]);
            let chain = if self.chain_stands(lbn, units, &scan, nand) {
                units.clone()
            } else {
                let t = self
                    .b
                    .settle(lbn, units, &mut scan, nand)
                    .map_err(super::RecoverError::flash("nftl"))?;
                self.chain_stands(lbn, &[t], &scan, nand);
                vec![t]
            };
            self.b.data[lbn as usize] = chain[0];
            self.b.role[chain[0] as usize] = Role::Data;
            for w in chain.windows(2) {
                self.repl[w[0] as usize] = w[1];
                self.b.role[w[1] as usize] = Role::Log;
            }
            self.set_len(lbn, chain.len() as u32);
        }
        self.mapped = Bits::new(self.b.logical_pages as usize);
        for (l, &w) in scan.newest.iter().enumerate() {
            if w != 0 {
                self.mapped.set(l as u32);
            }
        }
        self.recovery_merges += scan.merges;
        Ok(())
    }

    fn check_invariants(&self, nand: &Nand) {
        let mut seen = vec![false; self.repl.len()];
        for (lbn, &h) in self.b.data.iter().enumerate() {
            let mut len = 0;
            let mut u = h;
            while u != NIL {
                assert!(!seen[u as usize], "unit {u} in two chains");
                seen[u as usize] = true;
                let want = if len == 0 { Role::Data } else { Role::Log };
                assert_eq!(self.b.role[u as usize], want, "unit {u} of lbn {lbn}");
                len += 1;
                u = self.repl[u as usize];
            }
            assert_eq!(self.chains.len[lbn], len, "chain length of lbn {lbn}");
            assert!(len <= self.max_chain, "chain of lbn {lbn}: {len}");
            // Used pages of each offset form a prefix of the chain; only the newest copy
            // can be valid.
            for off in 0..self.b.np {
                let mut u = h;
                let mut free_seen = false;
                while u != NIL {
                    let p = self.b.page(u, off);
                    if free_seen {
                        assert!(
                            !nand.is_programmed(p),
                            "lbn {lbn} off {off}: USED after FREE"
                        );
                    }
                    free_seen |= !nand.is_programmed(p);
                    let newest = !free_seen
                        && (self.repl[u as usize] == NIL
                            || !nand.is_programmed(self.b.page(self.repl[u as usize], off)));
                    if nand.is_valid(p) {
                        assert!(newest, "stale copy {p:?} still valid");
                    }
                    u = self.repl[u as usize];
                }
            }
        }
        for (u, &r) in self.b.role.iter().enumerate() {
            // A retired (worn-out) unit is in no chain (logblock's check covers it).
            let chained = !matches!(r, Role::Free | Role::Retired);
            assert_eq!(chained, seen[u], "unit {u} role vs chains");
        }
        self.chains.check();
        self.b.check(nand, |l| self.lookup(l, nand));
    }
}
