//! Reference-model property tests: random read/write/trim sequences on tiny geometries,
//! through GC and wear leveling, must read back exactly the last write of every page
//! (checked through the OOB tag's write sequence), for every registered FTL × GC policy
//! (the model: tests/ftl_model/mod.rs).

mod common;
mod ftl_model;

use ftl_model::{configs, geometries_for, ops, run};
use proptest::prelude::*;
use ssdlab::ftl::{FtlConfig, build_ftl};
use ssdlab::nand::{Lpn, Nand};

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn every_ftl_reads_back_last_write(seq in ops(64)) {
        // 64 logical pages: 8 blocks on the one-plane part (16 physical), 4 per plane on
        // the four-plane part (10 physical each) — GC and WL fire constantly.
        for cfg in configs() {
            for geo in geometries_for(&cfg) {
                run(&cfg, &geo, 64, &seq)?;
            }
        }
    }
}

#[test]
fn erase_counts_spread_less_with_static_wear_leveling() {
    // Half the space written once (cold), the other half hammered: without static WL the
    // cold blocks never erase; with it the spread stays near the threshold.
    let geo = common::one_plane(40, 16);
    let logical = 32 * 16;
    let spread = |threshold: u32| {
        let cfg = FtlConfig {
            static_wl_threshold: threshold,
            static_wl_check_erases: 4,
            ..FtlConfig::default()
        };
        let mut nand = Nand::new(geo, 1_000_000, false, true);
        let mut ftl = build_ftl(&cfg, &geo, logical as u64, 1).unwrap();
        for l in 0..logical {
            ftl.write(Lpn(l), &mut nand).unwrap();
        }
        for i in 0..200_000u32 {
            ftl.write(Lpn(i.wrapping_mul(2654435761) % (logical / 4)), &mut nand)
                .unwrap();
        }
        ftl.check_invariants(&nand);
        let e = nand.erase_counts();
        // Standard deviation rather than max − min: one open GC frontier that receives
        // almost no copies (hot data dies before GC) legitimately stays at 0 erases.
        let mean = e.iter().map(|&x| x as f64).sum::<f64>() / e.len() as f64;
        let var = e.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / e.len() as f64;
        (var.sqrt(), nand.counters().copies[2])
    };
    let (without, wl0) = spread(0);
    let (with, wl1) = spread(20);
    assert_eq!(wl0, 0);
    assert!(wl1 > 0);
    assert!(
        with < without / 4.0,
        "stddev with static WL {with}, without {without}"
    );
}
