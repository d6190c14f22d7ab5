//! The log-style NFTL (`ftl.nftl.variant = "log"`, papers.md §3): a hand-worked lookup
//! scan, and a seeded randomized run against a reference map (the seed is printed on
//! failure).

mod common;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab::ftl::nftl::NftlVariant;
use ssdlab::ftl::{Ftl, FtlConfig, FtlKind, build_ftl};
use ssdlab::nand::{Lpn, Nand};

fn make(blocks: u32, pages: u32, logical: u64) -> (Box<dyn Ftl>, Nand) {
    let geo = common::one_plane(blocks, pages);
    let mut cfg = FtlConfig {
        name: FtlKind::Nftl,
        ..FtlConfig::default()
    };
    cfg.nftl.variant = NftlVariant::Log;
    cfg.nftl.charge_chain_reads = false;
    let ftl = build_ftl(&cfg, &geo, logical, 1).unwrap();
    let nand = Nand::new(geo, 1_000_000, true, ftl.programs_in_order());
    (ftl, nand)
}

fn counter(ftl: &dyn Ftl, k: &str) -> u64 {
    let mut m = ssdlab::spec::Counters::new();
    ftl.counters(&mut m);
    m[k]
}

#[test]
fn a_lookup_checks_the_primary_then_scans_the_replacement_newest_first() {
    // 4 pages per block; logical block 0 = lpns 0..4.
    let (mut f, mut n) = make(16, 4, 16);
    f.write(Lpn(0), &mut n).unwrap(); // P[0], in place
    f.write(Lpn(1), &mut n).unwrap(); // P[1]
    f.write(Lpn(0), &mut n).unwrap(); // R[0] (P[0] used)
    f.write(Lpn(1), &mut n).unwrap(); // R[1]
    let (l0, p0) = (
        counter(&*f, "ftl.lookup.count"),
        counter(&*f, "ftl.lookup.probes"),
    );
    // Read 0: P[0] invalid (1 probe), scan R from R[1] (lpn 1) to R[0] (hit): 3 probes.
    assert!(f.read(Lpn(0), &mut n).unwrap().is_some());
    assert_eq!(counter(&*f, "ftl.lookup.count"), l0 + 1);
    assert_eq!(counter(&*f, "ftl.lookup.probes"), p0 + 3);
    // Read 2: P[2] erased → R holds no copy (scan counted: 2 pages) → unmapped.
    assert!(f.read(Lpn(2), &mut n).unwrap().is_none());
    assert_eq!(counter(&*f, "ftl.lookup.probes"), p0 + 3 + 3);
    f.check_invariants(&n);
}

#[test]
fn random_writes_keep_every_page_readable_and_fold_when_full() {
    for seed in 0..4u64 {
        let result = std::panic::catch_unwind(|| {
            let (mut f, mut n) = make(40, 8, 256);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut written = vec![false; 256];
            for i in 0..5000 {
                let lpn = rng.gen_range(0..256u32);
                f.write(Lpn(lpn), &mut n).unwrap();
                written[lpn as usize] = true;
                if i % 997 == 0 {
                    f.check_invariants(&n);
                }
            }
            for (lpn, &w) in written.iter().enumerate() {
                assert_eq!(
                    f.read(Lpn(lpn as u32), &mut n).unwrap().is_some(),
                    w,
                    "lpn {lpn}"
                );
            }
            f.check_invariants(&n);
            assert!(counter(&*f, "ftl.merge.full") > 0, "no fold in 5000 writes");
        });
        assert!(result.is_ok(), "failed with seed {seed}");
    }
}

#[test]
fn the_log_variant_refuses_a_chain_cap_it_cannot_honour() {
    let geo = common::one_plane(16, 4);
    let mut cfg = FtlConfig {
        name: FtlKind::Nftl,
        ..FtlConfig::default()
    };
    cfg.nftl.variant = NftlVariant::Log;
    cfg.nftl.max_chain_blocks = 3;
    let e = build_ftl(&cfg, &geo, 16, 1).err().expect("refused");
    assert!(e.to_string().contains("max_chain_blocks"), "{e}");
}
