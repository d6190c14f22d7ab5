//! Management blocks and placement (docs/papers.md §1): reference-model property tests over
//! every management-block size and placement, and hand-computed read-modify-write costs.

mod common;

use proptest::prelude::*;
use ssdlab::ftl::layout::{ChannelPlacement, Placement};
use ssdlab::ftl::{FtlConfig, FtlKind, build_ftl};
use ssdlab::nand::Superblock;
use ssdlab::nand::{Cause, Geometry, Lpn, Nand};
use ssdlab::units::Size;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
enum Op {
    /// Pages `first .. first + count` as one command.
    Write(u32, u32),
    Read(u32),
    Trim(u32),
}

fn ops(logical: u32) -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        6 => (0..logical, 1u32..6).prop_map(move |(f, c)| Op::Write(f, c.min(logical - f))),
        3 => (0..logical).prop_map(Op::Read),
        1 => (0..logical).prop_map(Op::Trim),
    ];
    prop::collection::vec(op, 1..1500)
}

fn two_channels() -> Geometry {
    Geometry {
        channels: 2,
        chips_per_channel: 2,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 12,
        pages_per_block: 4,
        page_size_bytes: 4096,
        oob_size_bytes: 64,
    }
}

fn layout_cfg(unit_pages: u64, placement: Placement, channel: ChannelPlacement) -> FtlConfig {
    FtlConfig {
        mgmt_block: Size(unit_pages * 4096),
        placement,
        channel_placement: channel,
        ..FtlConfig::default()
    }
}

fn run(cfg: &FtlConfig, geo: &Geometry, logical: u32, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut ftl =
        build_ftl(cfg, geo, logical as u64, 5).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut nand = Nand::new(*geo, 1_000_000, true, ftl.programs_in_order());
    let mut model: BTreeMap<u32, u32> = BTreeMap::new();
    for (i, op) in ops.iter().enumerate() {
        match *op {
            Op::Write(first, count) => {
                // Pages of one command get consecutive sequence numbers in page order.
                let seq = nand.next_seq();
                ftl.write_range(Lpn(first), count, &mut nand).unwrap();
                // RMW copies keep their tag and take no sequence number, so the k-th
                // page of the command has sequence seq + k.
                for (k, l) in (first..first + count).enumerate() {
                    model.insert(l, seq + k as u32);
                }
            }
            Op::Trim(l) => {
                ftl.trim(Lpn(l), &mut nand).unwrap();
                model.remove(&l);
            }
            Op::Read(l) => {
                let got = ftl.read(Lpn(l), &mut nand).unwrap().map(|p| nand.oob(p));
                let want = model.get(&l).copied();
                prop_assert_eq!(got.map(|t| t.seq), want, "op {}: lpn {}", i, l);
                if let Some(t) = got {
                    prop_assert_eq!(t.lpn, Lpn(l));
                }
            }
        }
        if i % 53 == 0 {
            ftl.check_invariants(&nand);
        }
    }
    ftl.check_invariants(&nand);
    for l in 0..logical {
        let got = ftl.lookup(Lpn(l), &nand).map(|p| nand.oob(p).seq);
        prop_assert_eq!(got, model.get(&l).copied(), "lpn {} at the end", l);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]
    #[test]
    fn every_mgmt_block_size_and_placement_reads_back_last_write(seq in ops(64)) {
        for geo in [common::one_plane(24, 8), two_channels()] {
            for unit_pages in [1, 2, 3, 4, 8, 16] {
                for (placement, _) in Placement::all() {
                    for (channel, _) in ChannelPlacement::all() {
                        let cfg = layout_cfg(unit_pages, *placement, *channel);
                        run(&cfg, &geo, 64, &seq)?;
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    /// Block-mapped and hybrid FTLs with management blocks of 1, 2 and 4 erase blocks
    /// (superblocks over 1, 2 or 4 of the 4 planes), both channel placements.
    #[test]
    fn every_block_mapped_ftl_on_every_superblock_reads_back_last_write(seq in ops(64)) {
        let geo = two_channels();
        for &(name, _, _) in FtlKind::all() {
            if !name.maps_blocks() {
                continue;
            }
            for blocks in [1u64, 2, 4] {
                for (channel, _) in ChannelPlacement::all() {
                    let cfg = FtlConfig {
                        name,
                        superblock: Size(blocks * 4 * 4096),
                        channel_placement: *channel,
                        ..FtlConfig::default()
                    };
                    let sb = Superblock::from_config(&cfg, &geo).map_err(|e| TestCaseError::fail(e.to_string()))?;
                    prop_assert_eq!(sb.as_ref().map_or(1, |s| s.blocks() as u64), blocks);
                    let vgeo = sb.as_ref().map_or(geo, Superblock::ftl_geometry);
                    run(&cfg, &vgeo, 64, &seq)?;
                }
            }
        }
    }
}

/// RMW copies (reads of untouched pages programmed again) so far.
fn rmw_copies(nand: &Nand) -> u64 {
    nand.counters().copies[Cause::Rmw as usize]
}

#[test]
fn by_address_rewrites_the_rest_of_each_touched_management_block() {
    let geo = two_channels();
    let cfg = layout_cfg(4, Placement::ByAddress, ChannelPlacement::Striped);
    let mut ftl = build_ftl(&cfg, &geo, 32, 1).unwrap();
    let mut nand = Nand::new(geo, 1000, false, true);
    // Pages 0..8 = management blocks 0 and 1, written whole: nothing to copy.
    ftl.write_range(Lpn(0), 8, &mut nand).unwrap();
    assert_eq!(rmw_copies(&nand), 0);
    // One page of block 1 (page 5): pages 4, 6, 7 are read and programmed again.
    ftl.write_range(Lpn(5), 1, &mut nand).unwrap();
    assert_eq!(rmw_copies(&nand), 3);
    // Pages 3..5 straddle blocks 0 and 1: 0, 1, 2 of block 0 and 5, 6, 7 of block 1.
    ftl.write_range(Lpn(3), 2, &mut nand).unwrap();
    assert_eq!(rmw_copies(&nand), 3 + 6);
    // A page of never-written block 2: nothing to copy.
    ftl.write_range(Lpn(9), 1, &mut nand).unwrap();
    assert_eq!(rmw_copies(&nand), 9);
    ftl.check_invariants(&nand);
    // Host programs: 8 + 1 + 2 + 1.
    assert_eq!(nand.counters().programs[Cause::Host as usize], 12);
}

#[test]
fn write_order_never_copies_and_keeps_host_programs_equal_to_pages() {
    let geo = two_channels();
    for channel in [ChannelPlacement::Striped, ChannelPlacement::OneChannel] {
        let cfg = layout_cfg(4, Placement::WriteOrder, channel);
        let mut ftl = build_ftl(&cfg, &geo, 32, 1).unwrap();
        let mut nand = Nand::new(geo, 1000, false, true);
        ftl.write_range(Lpn(0), 8, &mut nand).unwrap();
        ftl.write_range(Lpn(5), 1, &mut nand).unwrap();
        ftl.write_range(Lpn(3), 2, &mut nand).unwrap();
        assert_eq!(rmw_copies(&nand), 0);
        assert_eq!(nand.counters().programs[Cause::Host as usize], 11);
    }
}

#[test]
fn mgmt_block_that_is_not_a_whole_number_of_pages_is_refused() {
    let geo = two_channels();
    let mut cfg = layout_cfg(1, Placement::ByAddress, ChannelPlacement::Striped);
    cfg.mgmt_block = Size(6144);
    let err = build_ftl(&cfg, &geo, 32, 1)
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("multiple of the 4KiB page size"), "{err}");
}
