//! Analytic oracle: FIFO cleaning under uniform random single-page writes after a full
//! fill has WA = 1/(1−X), X = −W0(−α·e^(−α))/α, α = (physical − reserved) / logical blocks.
//! Greedy must do at least as well as FIFO. Independent of the FTL: the formula is from
//! Hu et al. (SYSTOR 2009) / Desnoyers (SYSTOR 2012).

mod common;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab::ftl::gc::GcPolicyKind;
use ssdlab::ftl::{FtlConfig, build_ftl};
use ssdlab::nand::{Lpn, Nand};

/// Measured steady-state WA and the analytic FIFO value for `op_percent`.
fn measure(gc: GcPolicyKind, op_percent: f64) -> (f64, f64) {
    let pages = 64u32;
    let logical_blocks = 1024u64;
    let cfg = FtlConfig {
        gc,
        hot_cold: false,
        ..FtlConfig::default()
    };
    let logical_pages = logical_blocks * pages as u64;
    // Physical blocks follow --op: (physical − logical) / logical.
    let physical = (logical_blocks as f64 * (1.0 + op_percent / 100.0)).round() as u32;
    let geo = common::one_plane(physical, pages);
    let mut nand = Nand::new(geo, 1_000_000, false, true);
    let mut ftl = build_ftl(&cfg, &geo, logical_pages, 7).unwrap();
    for lpn in 0..logical_pages {
        ftl.write(Lpn(lpn as u32), &mut nand).unwrap();
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(42);
    // Warm up until the valid-count distribution settles, then measure.
    for _ in 0..8 * logical_pages {
        ftl.write(Lpn(rng.gen_range(0..logical_pages as u32)), &mut nand)
            .unwrap();
    }
    let before = *nand.counters();
    let n = 8 * logical_pages;
    for _ in 0..n {
        ftl.write(Lpn(rng.gen_range(0..logical_pages as u32)), &mut nand)
            .unwrap();
    }
    let d = nand.counters().since(&before);
    let wa = d.total_programs() as f64 / n as f64;
    let alpha = (physical as f64 - ftl.reserved_blocks() as f64) / logical_blocks as f64;
    ftl.check_invariants(&nand);
    (wa, common::fifo_wa(alpha))
}

#[test]
fn lambert_w_is_right() {
    // W0(-1/e) = -1; W0(x)·e^W0(x) = x.
    assert!((common::lambert_w0(-1.0 / std::f64::consts::E + 1e-12) + 1.0).abs() < 1e-4);
    for x in [-0.3, -0.1, -0.01] {
        let w = common::lambert_w0(x);
        assert!((w * w.exp() - x).abs() < 1e-12);
    }
    // docs/algorithms.md §1.3 table (two decimals, hand-rounded): Sf 0.07/0.15/0.28 →
    // 7.30/3.52/1.99 with alpha = 1/(1−Sf).
    for (sf, want) in [(0.07, 7.30), (0.15, 3.52), (0.28, 1.99)] {
        let got = common::fifo_wa(1.0 / (1.0 - sf));
        assert!((got - want).abs() < 0.03, "sf {sf}: {got} vs {want}");
    }
}

#[test]
fn fifo_matches_analytic_and_greedy_beats_it() {
    for op in [7.0, 15.0, 28.0] {
        let (fifo, formula) = measure(GcPolicyKind::Fifo, op);
        let (greedy, _) = measure(GcPolicyKind::Greedy, op);
        let err = (fifo - formula).abs() / formula;
        println!(
            "op {op}%: FIFO {fifo:.3} formula {formula:.3} ({:.2}%), greedy {greedy:.3}",
            err * 100.0
        );
        assert!(
            err < 0.03,
            "op {op}%: FIFO WA {fifo:.3} vs formula {formula:.3}"
        );
        assert!(
            greedy <= fifo,
            "op {op}%: greedy {greedy:.3} > FIFO {fifo:.3}"
        );
    }
}
