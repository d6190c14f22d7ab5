//! NFTL, log-style variant (`[ftl.nftl] variant = "log"`): the block-mapped NFTL the
//! AFTL (Wu & Kuo, ICCAD 2006) and CFTL (Park & Kim, IEEK 2008) papers compare against
//! (docs/papers.md §3, docs/algorithms.md §2.3). Its replacement block takes later
//! writes of any offset in write order, so a lookup that misses the primary block scans
//! the replacement block's pages — the search cost AFTL's and CFTL's fine tables exist
//! to avoid. The fixed-offset (Linux) NFTL is [`super::nftl`].
//!
//! ```text
//! table:       lbn → (primary P, replacement R), two arrays indexed by lbn
//! lookup(lpn): P[off] valid → it; else scan R newest-first for lpn's OOB tag
//!              (probes: P[off] checked + each R page scanned; the array index is free)
//! write(lpn):  invalidate the old copy; P[off] erased → program in place;
//!              else append to R (allocated on first use); R full → fold, programming
//!              the page in place in N before P and R are erased (a cut between an
//!              erase and the program would lose the page's last durable version)
//! fold(lbn):   fresh block N; copy the valid copy of every offset from P and R to
//!              N[off]; erase P and R; N becomes the primary
//! reclaim:     below `fold_free_blocks` free blocks, fold the logical block whose
//!              replacement block is oldest (FIFO), until that many are free
//! mount:       from the OOB tags alone (twolevel.rs `Blocks::mount`): the newest copy
//!              of each page wins; per lbn, the block whose pages sit at their offsets is
//!              P, the one appended as a prefix R; a fold cut short is finished (or
//!              redone in a free block); blocks holding no live page are erased;
//!              replacement FIFO by each R's first program
//! ```
//! The block side (pools, placement, scan, fold) is [`super::twolevel::Blocks`], shared
//! with AFTL and CFTL, so the three differ only in their tables. With
//! `charge_chain_reads` each replacement page scanned on a host read is charged as a
//! spare-area read (cause `Map`), as the fixed-offset NFTL charges its chain walk.

use super::hash::NIL;
use super::twolevel::{Blocks, Placement};
use super::{Ftl, FtlConfig, FtlError};
use crate::nand::{Cause, Geometry, Lpn, Nand, Ppn};
use crate::spec::{ConfigError, Counter, Counters};

/// Reported as `ftl.nftl.fold_copies`.
pub const FOLD_COPIES: Counter =
    Counter::total("ftl.nftl.fold_copies", "pages", "pages copied by folds");
/// Reported as `ftl.nftl.scan_reads`.
pub const SCAN_READS: Counter = Counter::total(
    "ftl.nftl.scan_reads",
    "pages",
    "replacement-block pages read to find a logical page",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[FOLD_COPIES, SCAN_READS];

/// Log-style NFTL state.
#[derive(Clone)]
pub struct NftlLog {
    np: u32,
    logical_pages: u32,
    fold_free: u32,
    charge: bool,
    blocks: Blocks,
    primary: Vec<u32>,
    replacement: Vec<u32>,
    lookups: u64,
    probes: u64,
    folds: u64,
    forced_folds: u64,
    fold_copies: u64,
    scan_reads: u64,
    /// What the last mount did (`None` on a device built fresh).
    mounted: Option<super::twolevel::MountStats>,
}

/// Builds a log-style NFTL.
pub fn build(
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
) -> Result<Box<dyn Ftl>, ConfigError> {
    Ok(Box::new(NftlLog::new(cfg, geo, logical_pages)?))
}

impl NftlLog {
    /// A log-style NFTL over an erased array of shape `geo`.
    pub fn new(
        cfg: &FtlConfig,
        geo: &Geometry,
        logical_pages: u64,
    ) -> Result<NftlLog, ConfigError> {
        cfg.nftl.validate()?;
        super::feasible::check_kind(super::FtlKind::Nftl, cfg, geo, logical_pages)?;
        if logical_pages >= (NIL - 1) as u64 {
            return Err(super::spec::unfit("nftl", "nftl: too many logical pages"));
        }
        let lbns = logical_pages.div_ceil(geo.pages_per_block as u64) as usize;
        Ok(NftlLog {
            np: geo.pages_per_block,
            logical_pages: logical_pages as u32,
            fold_free: cfg.nftl.fold_free_blocks,
            charge: cfg.nftl.charge_chain_reads,
            blocks: Blocks::new(geo, cfg.dynamic_wl),
            primary: vec![NIL; lbns],
            replacement: vec![NIL; lbns],
            lookups: 0,
            probes: 0,
            folds: 0,
            forced_folds: 0,
            fold_copies: 0,
            scan_reads: 0,
            mounted: None,
        })
    }

    fn locate(&self, lpn: Lpn, nand: &Nand) -> (Option<Ppn>, u32) {
        let lbn = (lpn.0 / self.np) as usize;
        self.blocks.locate(
            nand,
            self.primary[lbn],
            self.replacement[lbn],
            lpn,
            lpn.0 % self.np,
        )
    }

    /// Folds `lbn`; `host` is the write that needed the fold (its old copy already
    /// invalid): it is programmed in place in the new primary before the old blocks are
    /// erased, so a power cut never finds its old copy erased and the new one unwritten.
    fn fold(&mut self, lbn: u32, host: Option<Lpn>, nand: &mut Nand) -> Result<(), FtlError> {
        let (p, r) = (self.primary[lbn as usize], self.replacement[lbn as usize]);
        let f = self
            .blocks
            .fold_for(nand, lbn, p, r, host, |_| false, |_, _| {})?;
        debug_assert!(!f.detached, "a plain fold empties the replacement block");
        self.folds += 1;
        self.fold_copies += f.copies as u64;
        self.primary[lbn as usize] = f.primary;
        self.replacement[lbn as usize] = NIL;
        Ok(())
    }

    #[cold]
    fn reclaim(&mut self, nand: &mut Nand) -> Result<(), FtlError> {
        while self.blocks.free_count() < self.fold_free {
            let Some(r) = self.blocks.oldest_replacement() else {
                break;
            };
            self.forced_folds += 1;
            self.fold(self.blocks.owner(r), None, nand)?;
        }
        if self.blocks.free_count() == 0 {
            // End of life when worn-out blocks were retired, else a device too full.
            return Err(self.blocks.out_of_space());
        }
        Ok(())
    }
}

impl Ftl for NftlLog {
    fn name(&self) -> &'static str {
        "nftl"
    }

    fn logical_pages(&self) -> u64 {
        self.logical_pages as u64
    }

    fn read(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<Option<Ppn>, FtlError> {
        let (loc, probes) = self.locate(lpn, nand);
        self.lookups += 1;
        self.probes += probes as u64;
        if self.charge {
            // Every replacement page scanned (all probes past the primary's page) is a
            // spare-area read on the replacement block.
            let lbn = (lpn.0 / self.np) as usize;
            let r = self.replacement[lbn];
            let scanned = probes.saturating_sub((self.primary[lbn] != NIL) as u32);
            if r != NIL {
                for _ in 0..scanned {
                    nand.charge_read(self.blocks.page(r, 0), Cause::Map);
                }
                self.scan_reads += scanned as u64;
            }
        }
        if let Some(ppn) = loc {
            nand.read(ppn, Cause::Host);
        }
        Ok(loc)
    }

    fn lookup(&self, lpn: Lpn, nand: &Nand) -> Option<Ppn> {
        self.locate(lpn, nand).0
    }

    fn write(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        if self.blocks.free_count() < self.fold_free {
            self.reclaim(nand)?;
        }
        let (old, probes) = self.locate(lpn, nand);
        self.lookups += 1;
        self.probes += probes as u64;
        if let Some(old) = old {
            nand.invalidate(old);
        }
        let lbn = lpn.0 / self.np;
        let off = lpn.0 % self.np;
        let (mut p, mut r) = (self.primary[lbn as usize], self.replacement[lbn as usize]);
        let placed = self.blocks.place(nand, lbn, off, &mut p, &mut r)?;
        self.primary[lbn as usize] = p;
        self.replacement[lbn as usize] = r;
        match placed {
            Some(Placement::InPlace(ppn)) | Some(Placement::Appended(ppn)) => {
                nand.program(ppn, lpn, Cause::Host);
            }
            // R is full: fold. The old copy is already invalid, so the new primary's
            // page `off` is erased and the fold programs the data there in place.
            None => self.fold(lbn, Some(lpn), nand)?,
        }
        Ok(())
    }

    fn trim(&mut self, lpn: Lpn, nand: &mut Nand) -> Result<(), FtlError> {
        if let (Some(old), _) = self.locate(lpn, nand) {
            nand.invalidate(old);
        }
        Ok(())
    }

    fn mapping_bytes(&self) -> u64 {
        // Two 4-byte block numbers per logical block.
        8 * self.primary.len() as u64
    }

    fn counters(&self, out: &mut Counters) {
        out.set(&super::LOOKUP_COUNT, self.lookups);
        out.set(&super::LOOKUP_PROBES, self.probes);
        // Every probe is a page slot (the table is an array indexed by lbn).
        out.set(&super::LOOKUP_SLOT_PROBES, self.probes);
        out.set(&super::logblock::MERGE_FULL, self.folds);
        out.set(&super::nftl::FORCED_FOLDS, self.forced_folds);
        out.set(&FOLD_COPIES, self.fold_copies);
        out.set(&SCAN_READS, self.scan_reads);
        out.set(&super::MAPPING_COARSE_BYTES, self.mapping_bytes());
        out.set(&super::RETIRED_BLOCKS, self.blocks.retired_blocks());
        if let Some(m) = &self.mounted {
            m.counters(out);
        }
    }

    fn reserved_blocks(&self) -> u64 {
        self.fold_free as u64
    }

    fn programs_in_order(&self) -> bool {
        false
    }

    /// Mount (see the header): primaries and replacement blocks from the tags.
    fn recover(
        &mut self,
        nand: &mut Nand,
        tags: &[Option<crate::nand::StoredTag>],
    ) -> Result<(), super::RecoverError> {
        let m = self
            .blocks
            .mount(nand, tags, self.logical_pages, false, "nftl")?;
        self.primary.fill(NIL);
        self.replacement.fill(NIL);
        for &(lbn, p, r) in &m.lbns {
            self.primary[lbn as usize] = p;
            self.replacement[lbn as usize] = r;
        }
        self.mounted = Some(m.stats);
        Ok(())
    }

    fn check_invariants(&self, nand: &Nand) {
        nand.check_invariants();
        self.blocks.check(nand);
        self.blocks.check_owners(
            (0..self.primary.len()).map(|l| (l as u32, self.primary[l], self.replacement[l])),
        );
        for lpn in 0..self.logical_pages {
            if let Some(ppn) = self.lookup(Lpn(lpn), nand) {
                assert!(nand.is_valid(ppn), "lpn {lpn} maps to an invalid page");
                assert_eq!(nand.oob_lpn_raw(ppn), lpn, "OOB tag of lpn {lpn}");
            }
        }
    }
}
