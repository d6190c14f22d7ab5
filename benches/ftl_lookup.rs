//! Real time per address translation (ns) of the block-mapped and hash-table FTLs, the
//! wall-clock companion of the modelled translation cost that `ssdlab reproduce cftl`
//! (EXP-C2) judges against the CFTL paper's translation-time claims.
//! Run: `cargo bench --bench ftl_lookup`.
//!
//! Device: the CFTL paper's kind of CompactFlash card — 512 B pages, 16 KiB blocks (32
//! pages), 256 MiB, 7% spare. Accesses come in small-file runs, as in the paper's Andrew
//! benchmark: a file of 4–32 pages (2–16 KiB) starting at an 8-page boundary, 80% of
//! files in a hot 10% of the space, read or written whole. Warm-up: one sequential pass,
//! then file overwrites as many pages as the device holds, so replacement blocks,
//! fine-grained entries and promotions exist. Measured: `Ftl::read` of the pages of such
//! files — the whole lookup path (hash probes, replacement-block scans, LRU / NUR /
//! hit-count upkeep) plus the NAND model's read bookkeeping, the same for every FTL.

use criterion::{Criterion, criterion_group, criterion_main};
use ssdlab::ftl::{Ftl, FtlConfig, FtlKind, build_ftl};
use ssdlab::nand::{Geometry, Lpn, Nand};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

const LOGICAL: u32 = (256 << 20) / 512;

fn geometry() -> Geometry {
    let ppb = 32;
    Geometry {
        channels: 1,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: (LOGICAL as f64 * 1.07 / ppb as f64).ceil() as u32,
        pages_per_block: ppb,
        page_size_bytes: 512,
        oob_size_bytes: 16,
    }
}

/// The pages of deterministic small-file accesses, `n` pages in all (see the header).
fn skewed(n: usize, seed: u64) -> Vec<u32> {
    let mut x = seed;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let r = (x >> 33) as u32;
        let span = if r % 10 < 8 { LOGICAL / 10 } else { LOGICAL };
        let len = 4 + (r >> 4) % 29;
        let start = ((r >> 9) % (span / 8)) * 8;
        for l in start..(start + len).min(LOGICAL) {
            out.push(l);
        }
    }
    out.truncate(n);
    out
}

fn warmed(kind: FtlKind) -> (Box<dyn Ftl>, Nand) {
    let cfg = FtlConfig {
        name: kind,
        ..FtlConfig::default()
    };
    let geo = geometry();
    let mut ftl = build_ftl(&cfg, &geo, LOGICAL as u64, 1).expect("device fits");
    let mut nand = Nand::new(geo, u32::MAX, false, ftl.programs_in_order());
    for l in 0..LOGICAL {
        ftl.write(Lpn(l), &mut nand).unwrap();
    }
    for l in skewed(LOGICAL as usize, 7) {
        ftl.write(Lpn(l), &mut nand).unwrap();
    }
    (ftl, nand)
}

fn lookups(c: &mut Criterion) {
    let mut group = c.benchmark_group("ftl_lookup");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let reads = skewed(1 << 16, 11);
    for &(kind, name, _) in FtlKind::all() {
        // The translation schemes the CFTL paper compares (NFTL when it is registered).
        if !["nftl", "aftl", "cftl"].contains(&name) {
            continue;
        }
        let (mut ftl, mut nand) = warmed(kind);
        let before = counters(&*ftl);
        let mut i = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                let l = reads[i & (reads.len() - 1)];
                i += 1;
                black_box(ftl.read(Lpn(l), &mut nand).unwrap())
            })
        });
        let after = counters(&*ftl);
        let d = |k: &str| after.get(k).copied().unwrap_or(0) - before.get(k).copied().unwrap_or(0);
        println!(
            "{name}: {:.2} probes per lookup over {} lookups",
            d("ftl.lookup.probes") as f64 / d("ftl.lookup.count").max(1) as f64,
            d("ftl.lookup.count")
        );
    }
    group.finish();
}

fn counters(ftl: &dyn Ftl) -> BTreeMap<String, u64> {
    let mut m = ssdlab::spec::Counters::new();
    ftl.counters(&mut m);
    m.into_map()
}

criterion_group!(benches, lookups);
criterion_main!(benches);
