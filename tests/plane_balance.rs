//! Write-order striping is dynamic allocation (crates/core/src/ftl/layout.rs, "Balance"):
//! the rotation passes over a GC unit holding more than one erase block of valid pages
//! above the mean. Two streams that alternate page by page used to fall into step with
//! the rotation and pin one stream to half of the planes, whose GC then copied almost
//! whole blocks (issue 29: a two-tenant run on 1 GiB reached WA 60.9 and ended the
//! drive's life). These tests hold the guard's closed-form bound and its absence under
//! a lone stream.

mod common;

use rand::{Rng, SeedableRng};
use ssdlab::fdp::{FdpConfig, Isolation};
use ssdlab::ftl::{Ftl, FtlConfig, FtlKind, build_ftl};
use ssdlab::nand::{Geometry, Lpn, Nand};

/// Eight planes (four channels × two chips) of 64 blocks of 32 pages: room in every
/// plane for its share of the data, its GC reserve and its frontiers, so each plane is
/// its own GC unit (feasible.rs pools planes only on drives too small for that).
fn geo() -> Geometry {
    Geometry {
        channels: 4,
        chips_per_channel: 2,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 64,
        pages_per_block: 32,
        page_size_bytes: 4096,
        oob_size_bytes: 64,
    }
}

/// The logical pages: 3/4 of the flash. The random tenant's 3/4 of them would not fit
/// on half of the planes (9,216 pages against 8,192).
fn logical(g: &Geometry) -> u32 {
    (g.pages() * 3 / 4) as u32
}

/// The closed-form bound of the guard for a workload that only writes (the mean never
/// falls): a unit receives a page only while it is at or under
/// mean + max(pages_per_block, (pages per plane − reserve − mean) / 2), with `reserve`
/// the plane's GC reserve and open frontiers in pages, so no plane ever holds more than
/// one page above that.
fn assert_balanced(nand: &Nand, what: &str, step: usize, reserve: u64, slack: u64) {
    let g = nand.geometry();
    let planes = g.planes() as u64;
    let mean = nand.valid_total() / planes;
    let plane_pages = (g.blocks_per_plane * g.pages_per_block) as u64;
    let spare = plane_pages.saturating_sub(reserve + mean);
    let limit = mean + (g.pages_per_block as u64).max(spare / 2) + 1 + slack;
    for p in 0..g.planes() {
        let v = nand.plane_valid(p) as u64;
        assert!(
            v <= limit,
            "{what}, after {step} writes: plane {p} holds {v} valid pages, over the bound \
             {limit} (mean {mean})"
        );
    }
}

/// A sequential tenant on the first quarter of the space beside a random one on the
/// rest, one page each in turn (round-robin arbitration of 4 KiB commands), ten
/// passes of the sequential tenant: the random tenant's writes cover its space about
/// 97 %, more than half of the planes can hold.
/// `slack`: pages the FTL may place outside the rotation (DFTL's translation pages).
/// The reserve is the FTL's own (`Ftl::reserved_blocks`, per plane), unless `no_reserve`.
fn two_tenants(
    ftl: &mut dyn Ftl,
    nand: &mut Nand,
    seed: u64,
    what: &str,
    slack: u64,
    no_reserve: bool,
) {
    let g = *nand.geometry();
    let reserve = if no_reserve {
        0
    } else {
        ftl.reserved_blocks() / g.planes() as u64 * g.pages_per_block as u64
    };
    let n = logical(nand.geometry());
    let seq_pages = n / 4;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for i in 0..10 * seq_pages as usize {
        ftl.write(Lpn(i as u32 % seq_pages), nand)
            .unwrap_or_else(|e| panic!("{what}, seed {seed}: seq write {i}: {e}"));
        let r = rng.gen_range(seq_pages..n);
        ftl.write(Lpn(r), nand)
            .unwrap_or_else(|e| panic!("{what}, seed {seed}: rand write {i}: {e}"));
        assert_balanced(nand, what, 2 * i + 2, reserve, slack);
    }
    nand.check_invariants();
}

#[test]
fn two_tenants_alternating_pages_spread_over_every_plane() {
    let g = geo();
    for seed in 1..=3 {
        let mut ftl = build_ftl(&FtlConfig::default(), &g, logical(&g) as u64, seed).unwrap();
        let mut nand = Nand::new(g, 1_000_000, false, ftl.programs_in_order());
        two_tenants(ftl.as_mut(), &mut nand, seed, "page FTL", 0, false);
    }
}

#[test]
fn two_tenants_sharing_one_fdp_handle_spread_over_every_plane() {
    let g = geo();
    let cfg = FtlConfig {
        fdp: FdpConfig {
            enabled: true,
            handles: vec![Isolation::InitiallyIsolated],
            ..FdpConfig::default()
        },
        ..FtlConfig::default()
    };
    for seed in 1..=3 {
        let mut ftl = build_ftl(&cfg, &g, logical(&g) as u64, seed).unwrap();
        let mut nand = Nand::new(g, 1_000_000, false, ftl.programs_in_order());
        ftl.set_placement(0, None);
        two_tenants(
            ftl.as_mut(),
            &mut nand,
            seed,
            "page FTL with FDP, one handle",
            0,
            false,
        );
    }
}

#[test]
fn two_tenants_on_dftl_spread_over_every_plane() {
    let g = geo();
    let cfg = FtlConfig {
        name: FtlKind::Dftl,
        ..FtlConfig::default()
    };
    let mut ftl = build_ftl(&cfg, &g, logical(&g) as u64, 1).unwrap();
    let mut nand = Nand::new(g, 1_000_000, false, ftl.programs_in_order());
    // DFTL's translation pages are valid pages too, and a collection's batch update
    // puts them in the unit with the most free blocks, outside the rotation: the bound
    // holds up to the translation pages there are (one per 1,024 logical pages).
    let translation = (logical(&g) as u64).div_ceil(1024);
    // Its reserved blocks count translation blocks, which hold valid pages: the bound is
    // taken without a reserve, a looser one.
    two_tenants(ftl.as_mut(), &mut nand, 1, "DFTL", translation, true);
}

/// Under a lone sequential stream every unit stays within one block of the others, so
/// the rotation is the plain channel-first one: the guard changes nothing there.
#[test]
fn a_lone_sequential_stream_keeps_the_plain_rotation() {
    let g = geo();
    let mut ftl = build_ftl(&FtlConfig::default(), &g, logical(&g) as u64, 1).unwrap();
    let mut nand = Nand::new(g, 1_000_000, false, ftl.programs_in_order());
    let order = ssdlab::ftl::layout::channel_first_order(&g);
    for l in 0..2 * logical(&g) {
        let lpn = l % logical(&g);
        ftl.write(Lpn(lpn), &mut nand).unwrap();
        let ppn = ftl.lookup(Lpn(lpn), &nand).expect("just written");
        let plane = g.plane_of(g.block_of(ppn));
        assert_eq!(
            plane,
            order[l as usize % order.len()],
            "write {l} left the channel-first rotation"
        );
    }
}
