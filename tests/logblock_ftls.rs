//! Hand-computed tiny cases for the block-mapped FTLs (NFTL, BAST, FAST, FASTer), and the
//! published trends of the Android FTL study (docs/papers.md §4) in counting mode.
//!
//! The tiny device: one plane of 16 blocks × 8 pages, 64 logical pages (8 logical blocks,
//! lbn = lpn / 8, off = lpn % 8). Expected copies and erases are worked out in comments.

mod common;

use ssdlab::config::Config;
use ssdlab::ftl::{Ftl, FtlConfig, FtlKind, build_ftl};
use ssdlab::nand::{Cause, Lpn, Nand, NandCounters};
use ssdlab::sim::{RunOptions, run};
use std::collections::BTreeMap;

struct Rig {
    ftl: Box<dyn Ftl>,
    nand: Nand,
    model: BTreeMap<u32, u32>,
}

impl Rig {
    fn new(name: FtlKind, tune: impl FnOnce(&mut FtlConfig)) -> Rig {
        let mut cfg = FtlConfig {
            name,
            ..FtlConfig::default()
        };
        tune(&mut cfg);
        let geo = common::one_plane(16, 8);
        let ftl = build_ftl(&cfg, &geo, 64, 1).unwrap();
        let nand = Nand::new(geo, 1_000_000, true, ftl.programs_in_order());
        Rig {
            ftl,
            nand,
            model: BTreeMap::new(),
        }
    }

    fn write(&mut self, lpns: impl IntoIterator<Item = u32>) {
        for l in lpns {
            let seq = self.nand.next_seq();
            self.ftl.write(Lpn(l), &mut self.nand).unwrap();
            self.model.insert(l, seq);
            self.ftl.check_invariants(&self.nand);
        }
    }

    fn counter(&self, key: &str) -> u64 {
        let mut c = ssdlab::spec::Counters::new();
        self.ftl.counters(&mut c);
        *c.get(key).unwrap_or_else(|| panic!("no counter {key}"))
    }

    fn snapshot(&self) -> NandCounters {
        *self.nand.counters()
    }

    /// (GC copies, erases) since `before`.
    fn cost(&self, before: &NandCounters) -> (u64, u64) {
        let d = self.nand.counters().since(before);
        (d.copies[Cause::Gc as usize], d.total_erases())
    }

    /// Every page reads back its last write (checked through the OOB sequence number).
    fn reads_back(&mut self) {
        for l in 0..64 {
            let got = self.ftl.read(Lpn(l), &mut self.nand).unwrap();
            let got = got.map(|p| self.nand.oob(p).seq);
            assert_eq!(got, self.model.get(&l).copied(), "lpn {l}");
        }
    }
}

/// Offset `off` of every logical block `lbns`.
fn offsets(off: u32, lbns: std::ops::Range<u32>) -> impl Iterator<Item = u32> {
    lbns.map(move |b| b * 8 + off)
}

#[test]
fn bast_sequential_overwrite_is_one_switch_merge_with_no_copies() {
    let mut r = Rig::new(FtlKind::Bast, |_| {});
    // lpn 0..7: first writes, in place into lbn 0's data block D.
    r.write(0..8);
    // Overwrite 0..7 in order: they fill one log block L, page i holding offset i.
    r.write(0..8);
    let before = r.snapshot();
    // The next overwrite finds L full and in order: L becomes the data block and D is
    // erased — one switch merge, 0 copies, 1 erase. lpn 0 then goes to a new log block.
    r.write([0]);
    assert_eq!(r.cost(&before), (0, 1));
    assert_eq!(r.counter("ftl.merge.switch"), 1);
    assert_eq!(r.counter("ftl.merge.partial"), 0);
    assert_eq!(r.counter("ftl.merge.full"), 0);
    assert_eq!(r.nand.counters().programs[Cause::Host as usize], 17);
    r.reads_back();
}

#[test]
fn bast_random_overwrites_force_a_full_merge() {
    // One log block, so a second logical block needing one evicts the first.
    let mut r = Rig::new(FtlKind::Bast, |c| c.log.log_blocks = 1);
    r.write(0..6); // lbn 0: offsets 0..5 in place in D; 6 and 7 never written
    r.write([3, 5, 3]); // log L: [3, 5, 3] — out of order, so only a full merge fits
    r.write([8]); // lbn 1's first write: in place, no log needed
    let before = r.snapshot();
    // lbn 1 needs a log block: the victim L is merged. The new block gets D's valid
    // offsets 0, 1, 2, 4 (4 copies) and L's newest copies of 3 and 5 (2 copies): 6
    // copies; D and L are erased: 2 erases. Offsets 6 and 7 stay free.
    r.write([8]);
    assert_eq!(r.cost(&before), (6, 2));
    assert_eq!(r.counter("ftl.merge.full"), 1);
    assert_eq!(r.counter("ftl.bast.victim_merges"), 1);
    // The merged log block had written 3 pages.
    assert_eq!(r.counter("ftl.bast.merged_log_pages"), 3);
    r.reads_back();
    // Offset 6 is still free in the new data block: its first write goes in place.
    let before = r.snapshot();
    let host_before = before.programs[Cause::Host as usize];
    r.write([6]);
    assert_eq!(r.cost(&before), (0, 0));
    assert_eq!(r.nand.counters().programs[0], host_before + 1);
    r.reads_back();
}

#[test]
fn bast_in_order_prefix_is_a_partial_merge() {
    let mut r = Rig::new(FtlKind::Bast, |c| c.log.log_blocks = 1);
    r.write(0..8);
    r.write([0, 1, 2]); // log L holds offsets 0, 1, 2 at pages 0, 1, 2
    r.write([8]);
    let before = r.snapshot();
    // Evicting L: partial merge copies D's offsets 3..7 into L (5 copies), erases D.
    r.write([8]);
    assert_eq!(r.cost(&before), (5, 1));
    assert_eq!(r.counter("ftl.merge.partial"), 1);
    r.reads_back();
}

#[test]
fn bast_thrashes_under_small_random_writes() {
    // Eight logical blocks, seven log blocks: writes cycling over all eight blocks' page 1
    // evict a log block holding a single page almost every time (log-block thrashing):
    // each full merge copies 8 pages for 1 host write.
    let mut r = Rig::new(FtlKind::Bast, |_| {});
    r.write(0..64);
    let before = r.snapshot();
    for round in 0..4 {
        r.write(offsets(1 + round % 2, 0..8));
    }
    let merges = r.counter("ftl.merge.full");
    // Round 1 fills 7 log blocks and evicts one for the 8th; every later write evicts.
    assert_eq!(merges, 1 + 24);
    assert_eq!(r.cost(&before).0, 8 * merges);
    assert!(r.counter("ftl.bast.merged_log_pages") <= merges + 7);
    r.reads_back();
}

#[test]
fn fast_log_area_fill_cascades_into_full_merges() {
    // Log area of 3 blocks: 1 sequential + 2 random.
    let mut r = Rig::new(FtlKind::Fast, |c| c.log.log_blocks = 3);
    r.write(0..64); // every data block full, in place
    // RW block A: page 1 of lbns 0..7; RW block B: page 2 of lbns 0..7.
    r.write(offsets(1, 0..8));
    r.write(offsets(2, 0..8));
    assert_eq!(r.counter("ftl.merge.full"), 0);
    let before = r.snapshot();
    // Writing lpn 3 (lbn 0, offset 3) finds the RW log full: the oldest block A is
    // reclaimed. Each of its 8 pages belongs to a different lbn, so 8 full merges
    // follow, each gathering the data block's valid pages and the RW copies of offsets 1
    // (in A) and 2 (in B): 8 copies each, except lbn 0's, which skips offset 3 (being
    // overwritten, invalidated first): 7 + 7 × 8 = 63 copies; erases: 8 old data blocks
    // + A = 9. B is left with no valid page, and lpn 3 goes in place into lbn 0's new
    // data block, whose page 3 the merge left free.
    let host = before.programs[Cause::Host as usize];
    r.write([3]);
    assert_eq!(r.counter("ftl.merge.full"), 8);
    assert_eq!(r.counter("ftl.log.reclaims"), 1);
    assert_eq!(r.counter("ftl.log.reclaim_merges"), 8);
    assert_eq!(r.cost(&before), (63, 9));
    assert_eq!(r.nand.counters().programs[Cause::Host as usize], host + 1);
    r.reads_back();
}

#[test]
fn fast_reads_the_newest_log_copy() {
    // FlashSim's FAST returns the oldest RW copy of a page rewritten in the log
    // (docs/algorithms.md §2.6); every read here must return the latest write.
    let mut r = Rig::new(FtlKind::Fast, |_| {});
    r.write(0..64);
    for _ in 0..5 {
        r.write([9, 17, 9]);
        r.reads_back();
    }
}

#[test]
fn fast_sequential_log_switches_and_partially_merges() {
    let mut r = Rig::new(FtlKind::Fast, |_| {});
    r.write(0..64);
    // Rewriting lbn 0 from offset 0 in order fills the SW block.
    r.write(0..8);
    let before = r.snapshot();
    // Offset 0 of lbn 1 closes the full, in-order SW block: switch merge (0 copies, the
    // old data block erased) and a new SW block for lbn 1.
    r.write([8]);
    assert_eq!(r.cost(&before), (0, 1));
    assert_eq!(r.counter("ftl.merge.switch"), 1);
    r.write([9, 10, 11]); // SW: offsets 0..3 of lbn 1
    let before = r.snapshot();
    // Offset 0 of lbn 2 closes it: partial merge copies offsets 4..7 (4 copies), 1 erase.
    r.write([16]);
    assert_eq!(r.cost(&before), (4, 1));
    assert_eq!(r.counter("ftl.merge.partial"), 1);
    r.reads_back();
    // A broken sequence (offset 3 after 0) merges the SW block and logs the page as
    // random; the data is still right.
    r.write([19]);
    assert_eq!(r.counter("ftl.merge.partial"), 2);
    r.reads_back();
}

#[test]
fn faster_second_chance_saves_the_merges_fast_does() {
    // A = [1×7, 9]: valid pages lpn 1 (page 6) and 9 (page 7); B likewise for 17, 25.
    let fill = |r: &mut Rig| {
        r.write(0..64);
        r.write([1, 1, 1, 1, 1, 1, 1, 9]);
        r.write([17, 17, 17, 17, 17, 17, 17, 25]);
    };
    let mut fast = Rig::new(FtlKind::Fast, |c| c.log.log_blocks = 3);
    fill(&mut fast);
    let before = fast.snapshot();
    // FAST reclaims A by merging lbns 0 and 1: 2 × 8 copies, 2 data blocks + A erased.
    fast.write([33]);
    assert_eq!(fast.cost(&before), (16, 3));
    assert_eq!(fast.counter("ftl.merge.full"), 2);

    let mut faster = Rig::new(FtlKind::Faster, |c| {
        c.log.log_blocks = 3;
        c.faster.isolation_percent = 0;
    });
    fill(&mut faster);
    let before = faster.snapshot();
    // FASTer copies A's 2 valid pages to a new tail C instead (marked), erases A.
    faster.write([33]);
    assert_eq!(faster.cost(&before), (2, 1));
    assert_eq!(faster.counter("ftl.merge.full"), 0);
    assert_eq!(faster.counter("ftl.faster.second_chances"), 2);
    // They are overwritten during their extra lap, so they never force a merge: C fills
    // with 1, 9, 41, 49, 57, and the next write reclaims B the same way.
    faster.write([1, 9, 41, 49, 57, 2]);
    assert_eq!(faster.counter("ftl.merge.full"), 0);
    assert_eq!(faster.counter("ftl.faster.second_chances"), 4);
    assert_eq!(faster.cost(&before), (4, 2));
    faster.reads_back();
    fast.reads_back();
}

#[test]
fn faster_isolates_pages_past_their_second_chance() {
    // 3 RW blocks, 34% isolation: 1 isolation block, 2 hot blocks.
    let mut r = Rig::new(FtlKind::Faster, |c| {
        c.log.log_blocks = 4;
        c.faster.isolation_percent = 34;
    });
    r.write(0..64);
    r.write([1, 1, 1, 1, 1, 1, 1, 9]); // A: valid 1, 9
    r.write([17, 17, 17, 17, 17, 17, 17, 25]); // B: valid 17, 25
    let before = r.snapshot();
    r.write([33]); // reclaim A: 1*, 9* to tail C (2 copies); C = [1*, 9*, 33]
    r.write([41, 49, 57, 2, 10]); // C full
    r.write([18]); // reclaim B: 17*, 25* to tail D (2 copies); D = [17*, 25*, 18]
    r.write([34, 42, 50, 58, 3]); // D full
    // Reclaim C: 1* and 9* had their second chance → isolation block (2 copies); 33,
    // 41, 49, 57, 2, 10 get theirs → new tail (6 copies). No merge at all; erased: A,
    // B, C. Total copies 2 + 2 + 2 + 6 = 12.
    r.write([11]);
    assert_eq!(r.counter("ftl.faster.isolated"), 2);
    assert_eq!(r.counter("ftl.faster.second_chances"), 10);
    assert_eq!(r.counter("ftl.merge.full"), 0);
    assert_eq!(r.cost(&before), (12, 3));
    r.reads_back();
}

#[test]
fn nftl_folds_into_the_last_unit_when_the_chain_is_full() {
    let mut r = Rig::new(FtlKind::Nftl, |_| {});
    r.write(0..8); // primary unit P, in place
    r.write(0..4); // replacement unit R, offsets 0..3
    let before = r.snapshot();
    // lpn 0's page is used in both units and the chain has its 2 units: fold in place
    // into R — P's valid offsets 4..7 are copied to R's free pages (4 copies), P is
    // erased (1 erase) — then R2 is appended and takes lpn 0.
    r.write([0]);
    assert_eq!(r.cost(&before), (4, 1));
    assert_eq!(r.counter("ftl.nftl.folds"), 1);
    assert_eq!(r.counter("ftl.merge.partial"), 1);
    // Reading lpn 5 walks R (used) then R2 (free): 2 units examined, the data in the
    // first; the second costs one spare-area read of cause Map.
    let before = r.snapshot();
    let probes = r.counter("ftl.lookup.probes");
    r.ftl.read(Lpn(5), &mut r.nand).unwrap();
    let d = r.nand.counters().since(&before);
    assert_eq!(
        (d.reads[Cause::Host as usize], d.reads[Cause::Map as usize]),
        (1, 1)
    );
    assert_eq!(r.counter("ftl.lookup.probes") - probes, 2);
    r.reads_back();
}

#[test]
fn nftl_folds_the_longest_chain_when_free_units_run_low() {
    let mut r = Rig::new(FtlKind::Nftl, |_| {});
    r.write(0..64); // 8 primary units; 8 free
    r.write(offsets(0, 0..7)); // lbns 0..6 get a replacement unit each: 1 free
    assert_eq!(r.counter("ftl.nftl.forced_folds"), 0);
    let before = r.snapshot();
    // lbn 7 needs a unit with fewer than 2 free: the longest chain (all of lbns 0..6
    // have 2 units; lbn 0's reached that length first) is folded: offsets 1..7 copied
    // from its primary (7 copies), the primary erased.
    r.write([56]);
    assert_eq!(r.counter("ftl.nftl.forced_folds"), 1);
    assert_eq!(r.cost(&before), (7, 1));
    r.reads_back();
}

#[test]
fn merges_count_as_gc_in_the_formula() {
    let mut r = Rig::new(FtlKind::Bast, |c| c.log.log_blocks = 1);
    r.write(0..8);
    r.write([3, 5]);
    r.write([8, 8]);
    let c = r.nand.counters();
    assert!(c.copies[Cause::Gc as usize] > 0);
    assert_eq!(c.copies.iter().sum::<u64>(), c.copies[Cause::Gc as usize]);
    assert_eq!(c.erases.iter().sum::<u64>(), c.erases[Cause::Gc as usize]);
}

#[test]
fn mapping_memory_follows_the_documented_formulas() {
    // 64 logical pages = 8 logical blocks of 8 pages, 16 physical blocks.
    let nftl = Rig::new(FtlKind::Nftl, |_| {});
    assert_eq!(nftl.ftl.mapping_bytes(), 8 * 4 + 16 * 4);
    // BAST: 7 log blocks (16 − 8 − 1), each a 24-byte header + 8 two-byte entries.
    let bast = Rig::new(FtlKind::Bast, |_| {});
    assert_eq!(bast.ftl.mapping_bytes(), 8 * 4 + 7 * (24 + 2 * 8));
    // FAST: 6 RW blocks + 1 spare slot = 7 slots × 8 positions = 56 positions:
    // rev + links 56 × 12, index 128 slots × 4, list heads 8 × 4, slot table 7 × 4, SW 12.
    let fast = Rig::new(FtlKind::Fast, |_| {});
    assert_eq!(
        fast.ftl.mapping_bytes(),
        8 * 4 + 56 * 12 + 128 * 4 + 8 * 4 + 7 * 4 + 12
    );
    // FASTer adds one bit per position (56 bits → one 8-byte word).
    let faster = Rig::new(FtlKind::Faster, |_| {});
    assert_eq!(faster.ftl.mapping_bytes(), fast.ftl.mapping_bytes() + 8);
}

/// Formula time (µs) and GC share of the measured phase of a counting-mode run on the
/// Android preset shrunk to 256 MiB, after a sequential fill.
fn android(ftl: &str, workload: &str) -> (f64, f64) {
    let text = format!(
        "precondition = \"fill\"\n[device]\ncapacity = \"256MiB\"\n[ftl]\nname = \"{ftl}\"\n\
         [timing]\nmode = \"count\"\n[workload]\n{workload}\n"
    );
    let cfg = Config::load(Some("android-emmc"), Some(("test", &text))).unwrap();
    let out = run(&cfg, RunOptions::default()).unwrap();
    let p = &out.report.phases[0];
    (p.elapsed_formula_us, p.gc_time_share)
}

#[test]
fn small_random_writes_follow_the_android_study_trends() {
    // 2 KiB random writes over a 32 MiB region of a full 256 MiB device (docs/papers.md §4).
    let w = "kind = \"random-write\"\nsize = \"2KiB\"\nalign = \"2KiB\"\nspan = \"32MiB\"\nrequests = 40000";
    let (page, _) = android("page", w);
    let (bast, bast_gc) = android("bast", w);
    let (fast, fast_gc) = android("fast", w);
    let (faster, _) = android("faster", w);
    println!("page {page} bast {bast} ({bast_gc}) fast {fast} ({fast_gc}) faster {faster}");
    // BAST thrashes: nearly all its time is merging, far more than FAST's.
    assert!(bast_gc > 0.9, "BAST GC share {bast_gc}");
    assert!(bast_gc - fast_gc > 0.15, "BAST {bast_gc} vs FAST {fast_gc}");
    // FAST and FASTer take a small fraction of BAST's time (paper: 17%).
    assert!(fast < 0.25 * bast, "FAST {fast} vs BAST {bast}");
    assert!(faster < 0.25 * bast, "FASTer {faster} vs BAST {bast}");
    // Page mapping is fastest.
    assert!(page < fast && page < faster, "page {page}");
}

#[test]
fn sequential_reads_cost_the_same_on_every_ftl() {
    let w = "kind = \"seq-read\"\nsize = \"128KiB\"";
    // A zoned drive is filled only at its write pointers (tests/zoned.rs).
    let times: Vec<(String, f64)> = FtlKind::all()
        .iter()
        .filter(|(k, _, _)| !k.is_zoned())
        .map(|&(_, name, _)| (name.to_string(), android(name, w).0))
        .collect();
    let min = times.iter().map(|t| t.1).fold(f64::MAX, f64::min);
    for (name, t) in &times {
        if name == "dftl" {
            // DFTL caches single entries: reading a cold region costs one translation-page
            // read per data page (docs/algorithms.md §2.9): about twice the data reads, plus
            // the write-back of entries the fill left dirty in the CMT.
            assert!(
                (1.9..2.1).contains(&(t / min)),
                "{name}: {t} µs vs best {min}"
            );
        } else {
            assert!(t / min < 1.03, "{name}: {t} µs vs best {min}");
        }
    }
}
