//! The reference model every FTL runs against (used by tests/ftl_reference.rs and
//! tests/spec_dummy_ftl.rs): random read/write/trim sequences on tiny geometries, through
//! GC and wear leveling, must read back exactly the last write of every page (checked
//! through the OOB tag's write sequence), for every registered FTL × GC policy.
#![allow(dead_code)]

use crate::common;
use proptest::prelude::*;
use ssdlab::ftl::cftl::FullPolicy;
use ssdlab::ftl::dftl::CmtPolicy;
use ssdlab::ftl::gc::GcPolicyKind;
use ssdlab::ftl::{FtlConfig, FtlKind, build_ftl};
use ssdlab::nand::{Cause, Geometry, Lpn, Nand};
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub enum Op {
    Write(u32),
    Read(u32),
    Trim(u32),
    /// The FDP placement (namespace, identifier) of the writes that follow.
    Place(u32, Option<u16>),
}

pub fn ops(logical: u32) -> impl Strategy<Value = Vec<Op>> {
    // A hot set makes GC see blocks with very different valid counts.
    let lpn = prop_oneof![3 => 0..logical, 1 => 0..(logical / 8).max(1)];
    let op = prop_oneof![
        6 => lpn.clone().prop_map(Op::Write),
        3 => lpn.clone().prop_map(Op::Read),
        1 => lpn.prop_map(Op::Trim),
    ];
    prop::collection::vec(op, 1..3000)
}

pub fn geometries() -> Vec<Geometry> {
    vec![
        common::one_plane(16, 8),
        Geometry {
            channels: 2,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 2,
            blocks_per_plane: 10,
            pages_per_block: 4,
            page_size_bytes: 4096,
            oob_size_bytes: 64,
        },
    ]
}

/// The geometries a configuration runs on: DFTL at its default thresholds keeps two
/// more spare blocks per plane plus its translation blocks, so it gets a few more blocks.
pub fn geometries_for(cfg: &FtlConfig) -> Vec<Geometry> {
    let defaults = FtlConfig::default();
    if cfg.name == FtlKind::Dftl && cfg.gc_high_free_blocks == defaults.gc_high_free_blocks {
        let mut g = geometries();
        g[0].blocks_per_plane = 20;
        g[1].blocks_per_plane = 13;
        g
    } else {
        geometries()
    }
}

/// The configurations the model runs: for every FTL of the registry (built-ins and those
/// a test added with `ssdlab::ftl::register`), its defaults and variants that make its
/// GC, folds or merges run constantly.
pub fn configs() -> Vec<FtlConfig> {
    let mut out = Vec::new();
    for &(name, _, _) in FtlKind::all() {
        if name.is_zoned() {
            // Written only at its zones' write pointers: tests/zoned.rs has its model.
            continue;
        }
        if name.uses_log_area() || name == FtlKind::Nftl {
            // Log-block FTLs: defaults, plus a starved variant (the smallest log area
            // each accepts, Linux-style uncapped NFTL chains, FASTer without isolation)
            // so victim merges and reclaims run almost every write.
            out.push(FtlConfig {
                name,
                ..FtlConfig::default()
            });
            let mut tight = FtlConfig {
                name,
                ..FtlConfig::default()
            };
            tight.log.log_blocks = 2;
            tight.log.victim = ssdlab::ftl::logblock::LogVictim::Fifo;
            tight.nftl.max_chain_blocks = 0;
            tight.nftl.fold_free_blocks = 1;
            tight.faster.isolation_percent = 0;
            out.push(tight);
            continue;
        }
        // FTLs that fold instead of using a victim policy skip the GC-policy product.
        let policies: Vec<GcPolicyKind> = if name.uses_gc_policy() {
            GcPolicyKind::all().iter().map(|p| p.0).collect()
        } else {
            vec![GcPolicyKind::Greedy]
        };
        for &gc in &policies {
            for (variant, (hot_cold, static_wl)) in [(true, 0), (false, 2)].into_iter().enumerate()
            {
                let mut c = FtlConfig {
                    name,
                    gc,
                    hot_cold,
                    static_wl_threshold: static_wl,
                    static_wl_check_erases: 3,
                    gc_d: 3,
                    ..FtlConfig::default()
                };
                // Tiny tables so promotions, demotions and evictions happen constantly.
                c.aftl.fine_slots = 3;
                c.aftl.defer_gc = variant == 0;
                c.cftl.short_slots = 2;
                c.cftl.long_slots = 8;
                c.cftl.subblock_factor = if variant == 0 { 2 } else { 8 };
                c.cftl.promote_hits = 2;
                c.cftl.nur_period_lookups = 11;
                c.cftl.full = if variant == 0 {
                    FullPolicy::Evict
                } else {
                    FullPolicy::Wait
                };
                c.dftl.cmt_entries = Some(2 + variant as u64);
                c.dftl.cmt_policy = if variant == 0 {
                    CmtPolicy::SegmentedLru
                } else {
                    CmtPolicy::Lru
                };
                if name == FtlKind::Dftl {
                    // DFTL at its default GC thresholds (run on geometries with room for
                    // its translation blocks, see `geometries_for`), and with GC stopping
                    // at the low mark, which fits the smallest geometries.
                    let mut low = c.clone();
                    low.gc_high_free_blocks = low.gc_low_free_blocks;
                    out.push(low);
                }
                out.push(c);
            }
        }
    }
    out
}

/// Runs `ops` on a fresh FTL of `cfg` over `geo` exporting `logical` pages, checking
/// every read against the model, the FTL's invariants, and the host-program counts.
pub fn run(cfg: &FtlConfig, geo: &Geometry, logical: u32, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut ftl =
        build_ftl(cfg, geo, logical as u64, 3).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut nand = Nand::new(*geo, 1_000_000, true, ftl.programs_in_order());
    let mut model: BTreeMap<u32, u32> = BTreeMap::new();
    let who = format!("{cfg:?} on {} planes", geo.planes());
    for (i, op) in ops.iter().enumerate() {
        match *op {
            Op::Write(l) => {
                let seq = nand.next_seq();
                ftl.write(Lpn(l), &mut nand)
                    .unwrap_or_else(|e| panic!("{cfg:?} on {geo:?}: op {i}: {e}"));
                model.insert(l, seq);
            }
            Op::Trim(l) => {
                ftl.trim(Lpn(l), &mut nand)
                    .unwrap_or_else(|e| panic!("{cfg:?} on {geo:?}: op {i}: {e}"));
                model.remove(&l);
            }
            Op::Place(ns, pid) => ftl.set_placement(ns, pid),
            Op::Read(l) => {
                let got = ftl
                    .read(Lpn(l), &mut nand)
                    .unwrap_or_else(|e| panic!("{cfg:?} on {geo:?}: op {i}: {e}"));
                match (got, model.get(&l)) {
                    (None, None) => {}
                    (Some(ppn), Some(&seq)) => {
                        let tag = nand.oob(ppn);
                        prop_assert_eq!(
                            tag.lpn,
                            Lpn(l),
                            "{}: op {}: wrong page for lpn {}",
                            who,
                            i,
                            l
                        );
                        prop_assert_eq!(
                            tag.seq,
                            seq,
                            "{}: op {}: stale data for lpn {}",
                            who,
                            i,
                            l
                        );
                    }
                    (g, m) => prop_assert!(false, "{who}: op {i}: lpn {l} read {g:?}, model {m:?}"),
                }
            }
        }
        if i % 13 == 0 {
            ftl.check_invariants(&nand);
        }
    }
    ftl.check_invariants(&nand);
    // Finally every page reads back its last write.
    for l in 0..logical {
        let want = model.get(&l).copied();
        let got = ftl.lookup(Lpn(l), &nand).map(|p| nand.oob(p).seq);
        prop_assert_eq!(got, want, "{}: lpn {} at the end", who, l);
    }
    // Every host write is exactly one host program (no buffer, whole pages); the rest of
    // the programs are moves (GC, WL copies and rewrites) or map pages, and copies never
    // exceed the programs of their cause.
    let c = nand.counters();
    let writes = ops.iter().filter(|o| matches!(o, Op::Write(_))).count() as u64;
    prop_assert_eq!(
        c.programs[Cause::Host as usize],
        writes,
        "{}: host programs",
        who
    );
    prop_assert_eq!(c.copies[Cause::Host as usize], 0, "{}: host copies", who);
    for cause in 0..c.programs.len() {
        prop_assert!(c.copies[cause] <= c.programs[cause], "{}: copies", who);
    }
    Ok(())
}
