//! Unit tests of the NAND array: programming rules, copies and runs, erase and wear, OOB
//! tags, counters and the op log.

use super::*;

fn tiny() -> Geometry {
    Geometry {
        channels: 1,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 2,
        blocks_per_plane: 4,
        pages_per_block: 8,
        page_size_bytes: 4096,
        oob_size_bytes: 128,
    }
}

#[test]
fn program_copy_invalidate_erase_count_by_cause() {
    let mut n = Nand::new(tiny(), 10, true, true);
    let s0 = n.program(Ppn(0), Lpn(7), Cause::Host);
    let s1 = n.program(Ppn(1), Lpn(8), Cause::Host);
    assert_eq!((s0, s1), (0, 1));
    n.copy(Ppn(1), Ppn(8), Cause::Gc);
    assert_eq!(
        n.oob(Ppn(8)),
        OobTag {
            lpn: Lpn(8),
            seq: 1
        }
    );
    n.invalidate(Ppn(1));
    n.invalidate(Ppn(0));
    assert_eq!(n.valid_count(BlockId(0)), 0);
    assert_eq!(n.valid_count(BlockId(1)), 1);
    n.erase(BlockId(0), Cause::Gc);
    let c = n.counters();
    assert_eq!(c.programs, [2, 1, 0, 0, 0]);
    assert_eq!(c.reads, [0, 1, 0, 0, 0]);
    assert_eq!(c.copies[Cause::Gc as usize], 1);
    assert_eq!(c.total_erases(), 1);
    assert_eq!(n.erase_count(BlockId(0)), 1);
    n.check_invariants();
    // The erased block takes page 0 again.
    n.program(Ppn(0), Lpn(1), Cause::Host);
}

#[test]
#[should_panic(expected = "out of order")]
fn out_of_order_program_is_an_ftl_bug() {
    let mut n = Nand::new(tiny(), 10, false, true);
    n.program(Ppn(1), Lpn(0), Cause::Host);
}

#[test]
#[should_panic(expected = "non-erased")]
fn double_program_is_an_ftl_bug_without_order_rule() {
    let mut n = Nand::new(tiny(), 10, false, false);
    n.program(Ppn(3), Lpn(0), Cause::Host);
    n.program(Ppn(3), Lpn(1), Cause::Host);
}

#[test]
#[should_panic(expected = "still holds")]
fn erasing_valid_data_is_an_ftl_bug() {
    let mut n = Nand::new(tiny(), 10, false, true);
    n.program(Ppn(0), Lpn(0), Cause::Host);
    n.erase(BlockId(0), Cause::Gc);
}

#[test]
fn relaxed_erase_clears_exactly_its_blocks_programmed_bits() {
    // 100 pages per block: blocks straddle 64-bit words.
    let g = Geometry {
        pages_per_block: 100,
        ..tiny()
    };
    let mut n = Nand::new(g, 10, false, false);
    for p in (0..300).rev() {
        n.program(Ppn(p), Lpn(p), Cause::Host);
        n.invalidate(Ppn(p));
    }
    n.erase(BlockId(1), Cause::Gc);
    for p in 0..300 {
        assert_eq!(
            n.is_programmed(Ppn(p)),
            !(100..200).contains(&p),
            "page {p}"
        );
    }
    n.program(Ppn(150), Lpn(0), Cause::Host);
}

#[test]
fn valid_pages_scans_bitset_within_block() {
    let g = Geometry {
        pages_per_block: 100,
        ..tiny()
    };
    let mut n = Nand::new(g, 10, false, true);
    for p in 0..100 {
        n.program(Ppn(100 + p), Lpn(p), Cause::Host);
    }
    for p in (0..100).filter(|p| p % 3 != 0) {
        n.invalidate(Ppn(100 + p));
    }
    let mut v = Vec::new();
    n.valid_pages(BlockId(1), &mut v);
    let want: Vec<Ppn> = (0..100)
        .filter(|p| p % 3 == 0)
        .map(|p| Ppn(100 + p))
        .collect();
    assert_eq!(v, want);
    n.check_invariants();
}

/// The word-at-a-time merge must leave exactly the state (bits, tags, counts,
/// counters) that page-by-page relocation leaves; the op-logging array takes the
/// page-by-page path, so it is the oracle.
#[test]
fn relocate_block_matches_page_by_page_relocation() {
    const NP: u32 = 192;
    let g = Geometry {
        pages_per_block: NP,
        ..tiny()
    };
    let build = |logging: bool| {
        let mut n = Nand::new(g, 10, true, false);
        n.set_logging(logging);
        // Block 1 (source): word 0, offsets ≡ 0,1 mod 3 below 60 valid (40, in 20
        // runs); word 1, all but the 13 offsets ≡ 0 mod 5 (65, 70 … 125) valid (51);
        // word 2, only the 16 offsets ≡ 0 mod 4 valid.
        for p in 0..NP {
            n.program(Ppn(NP + p), Lpn(1000 + p), Cause::Host);
        }
        for p in 0..NP {
            let stale = match p / 64 {
                0 => p % 3 == 2 || p >= 60,
                1 => p % 5 == 0,
                _ => p % 4 != 0,
            };
            if stale {
                n.invalidate(Ppn(NP + p));
            }
        }
        // Block 2 (target) already holds offsets 60–63 of word 0 (the tags go over
        // in one run, 0–59, around them), nothing of word 1 (one run of 64) and the
        // 48 offsets ≢ 0 mod 4 of word 2 (runs of the moved pages).
        for p in 0..NP {
            let taken = match p / 64 {
                0 => p >= 60,
                1 => false,
                _ => p % 4 != 0,
            };
            if taken {
                n.program(Ppn(2 * NP + p), Lpn(5000 + p), Cause::Host);
            }
        }
        let moved = n.relocate_block(BlockId(1), BlockId(2), Cause::Gc);
        n.drain_log();
        (n, moved)
    };
    let (fast, m1) = build(false);
    let (slow, m2) = build(true);
    assert_eq!(m1, 40 + 51 + 16);
    assert_eq!(m1, m2);
    assert_eq!(fast.counters(), slow.counters());
    assert_eq!(fast.counters().copies[Cause::Gc as usize], m1 as u64);
    for p in 0..4 * NP {
        let ppn = Ppn(p);
        assert_eq!(fast.is_valid(ppn), slow.is_valid(ppn), "{ppn:?}");
        assert_eq!(fast.is_programmed(ppn), slow.is_programmed(ppn), "{ppn:?}");
        if fast.is_valid(ppn) {
            assert_eq!(fast.oob(ppn), slow.oob(ppn), "{ppn:?}");
        }
    }
    for b in 0..4 {
        assert_eq!(fast.valid_count(BlockId(b)), slow.valid_count(BlockId(b)));
        assert_eq!(fast.write_ptr(BlockId(b)), slow.write_ptr(BlockId(b)));
    }
    assert_eq!(fast.valid_count(BlockId(2)), 4 + 48 + m1);
    fast.check_invariants();
    // Block 1 now holds nothing valid: erasing it frees every page for programming.
    let mut fast = fast;
    fast.erase(BlockId(1), Cause::Gc);
    for p in (0..NP).rev() {
        fast.program(Ppn(NP + p), Lpn(p), Cause::Host);
    }
    fast.check_invariants();
}

/// A copy run must leave exactly the state (bits, tags, counts, write pointers,
/// counters) that one `relocate` per page leaves, and log one run entry for the
/// single-copy entries.
#[test]
fn relocate_run_matches_page_by_page_relocation() {
    let g = Geometry {
        pages_per_block: 100,
        ..tiny()
    };
    // Block 1 full, every third page then stale; block 3 already holds 5 pages.
    let build = || {
        let mut n = Nand::new(g, 10, true, true);
        n.set_logging(true);
        for p in 0..100 {
            n.program(Ppn(100 + p), Lpn(1000 + p), Cause::Host);
        }
        for p in (0..100).step_by(3) {
            n.invalidate(Ppn(100 + p));
        }
        for p in 0..5 {
            n.program(Ppn(300 + p), Lpn(p), Cause::Host);
        }
        n.drain_log();
        n
    };
    let mut srcs = Vec::new();
    build().valid_pages(BlockId(1), &mut srcs);
    assert_eq!(srcs.len(), 66);
    // Two runs, as a GC fills one frontier block and starts the next: 60 pages
    // into block 3 after its 5 pages, 6 into block 2 from page 0.
    let (a, b) = srcs.split_at(60);
    let mut run = build();
    run.relocate_run(a, Ppn(305), Cause::Gc);
    run.relocate_run(b, Ppn(200), Cause::Gc);
    run.relocate_run(&[], Ppn(206), Cause::Gc);
    let mut single = build();
    for (k, &src) in a.iter().enumerate() {
        single.relocate(src, Ppn(305 + k as u32), Cause::Gc);
    }
    for (k, &src) in b.iter().enumerate() {
        single.relocate(src, Ppn(200 + k as u32), Cause::Gc);
    }
    assert_eq!(run.counters(), single.counters());
    assert_eq!(run.counters().copies[Cause::Gc as usize], 66);
    for p in 0..4 * 100 {
        let ppn = Ppn(p);
        assert_eq!(run.is_valid(ppn), single.is_valid(ppn), "{ppn:?}");
        assert_eq!(run.is_programmed(ppn), single.is_programmed(ppn), "{ppn:?}");
        if run.is_valid(ppn) {
            assert_eq!(run.oob(ppn), single.oob(ppn), "{ppn:?}");
        }
    }
    for b in 0..4 {
        assert_eq!(run.valid_count(BlockId(b)), single.valid_count(BlockId(b)));
        assert_eq!(run.write_ptr(BlockId(b)), single.write_ptr(BlockId(b)));
    }
    assert_eq!(run.valid_count(BlockId(1)), 0);
    assert_eq!(run.write_ptr(BlockId(3)), 65);
    run.check_invariants();
    let log: Vec<FlashOp> = run.drain_log().collect();
    let kinds: Vec<(OpKind, Ppn)> = log.iter().map(|o| (o.kind, o.addr)).collect();
    assert_eq!(
        kinds,
        [
            (
                OpKind::CopyRun {
                    src: a[0],
                    pages: 60
                },
                Ppn(305)
            ),
            (
                OpKind::CopyRun {
                    src: b[0],
                    pages: 6
                },
                Ppn(200)
            )
        ]
    );
    assert_eq!(single.drain_log().count(), 66);
    // The log entry stays as small as before runs existed.
    assert_eq!(std::mem::size_of::<FlashOp>(), 16);
}

#[test]
#[should_panic(expected = "out of order")]
fn relocate_run_refuses_to_skip_pages() {
    let mut n = Nand::new(tiny(), 10, false, true);
    n.program(Ppn(0), Lpn(0), Cause::Host);
    n.relocate_run(&[Ppn(0)], Ppn(9), Cause::Gc);
}

#[test]
#[should_panic(expected = "different blocks")]
fn relocate_run_sources_share_a_block() {
    let mut n = Nand::new(tiny(), 10, false, true);
    n.program(Ppn(0), Lpn(0), Cause::Host);
    n.program(Ppn(8), Lpn(1), Cause::Host);
    n.relocate_run(&[Ppn(0), Ppn(8)], Ppn(16), Cause::Gc);
}

#[test]
#[should_panic(expected = "non-erased")]
fn relocate_block_refuses_programmed_targets() {
    let g = Geometry {
        pages_per_block: 64,
        ..tiny()
    };
    let mut n = Nand::new(g, 10, false, false);
    n.program(Ppn(64 + 7), Lpn(1), Cause::Host);
    n.program(Ppn(128 + 7), Lpn(2), Cause::Host);
    n.relocate_block(BlockId(1), BlockId(2), Cause::Gc);
}

#[test]
fn clear_bits_clears_exactly_the_range() {
    for (from, to) in [(0, 64), (3, 9), (60, 130), (64, 192), (5, 5)] {
        let mut bits = vec![u64::MAX; 4];
        clear_bits(&mut bits, from, to);
        for i in 0..256 {
            let set = bits[i >> 6] & (1 << (i & 63)) != 0;
            assert_eq!(set, !(from..to).contains(&i), "{from}..{to} bit {i}");
        }
    }
}

#[test]
fn geometry_maps_planes_to_dies_chips_channels() {
    let g = Geometry {
        channels: 2,
        chips_per_channel: 2,
        dies_per_chip: 2,
        planes_per_die: 2,
        ..tiny()
    };
    assert_eq!(g.planes(), 16);
    assert_eq!(g.die_of_plane(5), 2);
    assert_eq!(g.chip_of_plane(5), 1);
    assert_eq!(g.channel_of_plane(5), 0);
    assert_eq!(g.channel_of_plane(8), 1);
    assert!(Geometry { channels: 0, ..g }.validate().is_err());
}

/// An impossible shape is refused with a typed error naming the field and the limit, in
/// the words the config layer has always printed.
#[test]
fn an_impossible_geometry_names_the_field_and_the_limit() {
    let g = tiny();
    let e = Geometry { channels: 0, ..g }.validate().unwrap_err();
    assert_eq!(e, GeometryError::Zero { field: "channels" });
    assert_eq!(
        e.to_string(),
        "impossible geometry: channels must be at least 1"
    );
    let e = Geometry {
        page_size_bytes: 1000,
        ..g
    }
    .validate()
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "impossible geometry: page size 1000 B is not a multiple of 512 B sectors"
    );
    let e = Geometry {
        blocks_per_plane: u32::MAX,
        ..g
    }
    .validate()
    .unwrap_err();
    assert!(matches!(e, GeometryError::TooManyPages { max, .. } if max == u32::MAX - 1));
}

/// One step of the tag model test: what to do, on which blocks and pages.
#[derive(Clone, Debug)]
enum TagOp {
    /// Program a page of `block`: at its offset of the block's logical run, or `lpn`.
    Program {
        block: u32,
        page: u32,
        at_offset: bool,
        lpn: u32,
    },
    /// Merge every valid page of `src` into `dst` (relaxed) or move them as a run
    /// to `dst`'s write pointer (in order).
    Move {
        src: u32,
        dst: u32,
    },
    Invalidate {
        block: u32,
        page: u32,
    },
    Erase {
        block: u32,
    },
}

fn tag_op() -> impl proptest::strategy::Strategy<Value = TagOp> {
    use proptest::prelude::*;
    prop_oneof![
        4 => (0u32..6, 0u32..128, any::<bool>(), 0u32..2000)
            .prop_map(|(block, page, at_offset, lpn)| TagOp::Program { block, page, at_offset, lpn }),
        1 => (0u32..6, 0u32..6).prop_map(|(src, dst)| TagOp::Move { src, dst }),
        2 => (0u32..6, 0u32..128).prop_map(|(block, page)| TagOp::Invalidate { block, page }),
        1 => (0u32..6).prop_map(|block| TagOp::Erase { block }),
    ]
}

/// Tags read back what was programmed, whichever way the array stores them
/// (implicit per-block bases or stored tags), through programs at and off their
/// offsets, merges, runs, invalidations and erases, in both programming modes.
fn check_tag_model(in_order: bool, ops: &[TagOp]) {
    let g = Geometry {
        blocks_per_plane: 3,
        pages_per_block: 128,
        ..tiny()
    };
    let np = g.pages_per_block;
    let mut n = Nand::new(g, 1000, false, in_order);
    let mut model: std::collections::HashMap<u32, u32> = Default::default();
    // Blocks share logical runs two by two, so merges meet both equal and different bases.
    let run_base = |b: u32| (b % 3) * np + 1000;
    for op in ops {
        match *op {
            TagOp::Program {
                block,
                page,
                at_offset,
                lpn,
            } => {
                let page = if in_order {
                    n.write_ptr(BlockId(block))
                } else {
                    page
                };
                let ppn = Ppn(block * np + page);
                if page >= np || n.is_programmed(ppn) {
                    continue;
                }
                let lpn = if at_offset {
                    run_base(block) + page
                } else {
                    lpn
                };
                n.program(ppn, Lpn(lpn), Cause::Host);
                model.insert(ppn.0, lpn);
            }
            TagOp::Move { src, dst } => {
                if src == dst {
                    continue;
                }
                let mut pages = Vec::new();
                n.valid_pages(BlockId(src), &mut pages);
                if in_order {
                    let wp = n.write_ptr(BlockId(dst));
                    if wp as usize + pages.len() > np as usize {
                        continue;
                    }
                    n.relocate_run(&pages, Ppn(dst * np + wp), Cause::Gc);
                    for (k, p) in pages.iter().enumerate() {
                        let l = model[&p.0];
                        model.insert(dst * np + wp + k as u32, l);
                    }
                } else {
                    let off = |p: &Ppn| p.0 - src * np;
                    if pages
                        .iter()
                        .any(|p| n.is_programmed(Ppn(dst * np + off(p))))
                    {
                        continue;
                    }
                    assert_eq!(
                        n.relocate_block(BlockId(src), BlockId(dst), Cause::Gc),
                        pages.len() as u32
                    );
                    for p in &pages {
                        let l = model[&p.0];
                        model.insert(dst * np + off(p), l);
                    }
                }
            }
            TagOp::Invalidate { block, page } => {
                let ppn = Ppn(block * np + page);
                if n.is_valid(ppn) {
                    n.invalidate(ppn);
                }
            }
            TagOp::Erase { block } => {
                if n.valid_count(BlockId(block)) == 0 {
                    n.erase(BlockId(block), Cause::Gc);
                    model.retain(|&p, _| p / np != block);
                }
            }
        }
        for (&p, &l) in &model {
            assert_eq!(n.oob(Ppn(p)).lpn, Lpn(l), "tag of page {p} after {op:?}");
            assert_eq!(n.oob_lpn_raw(Ppn(p)), l);
        }
    }
    n.check_invariants();
}

proptest::proptest! {
    #[test]
    fn tags_read_back_under_implicit_and_stored_modes(
        in_order: bool,
        ops in proptest::collection::vec(tag_op(), 1..300),
    ) {
        check_tag_model(in_order, &ops);
    }
}

#[test]
fn a_merge_of_an_in_place_block_keeps_its_tags_implicit_and_a_stray_program_stores_them() {
    let g = Geometry {
        pages_per_block: 128,
        ..tiny()
    };
    let mut n = Nand::new(g, 100, false, false);
    for off in [5, 0, 77] {
        n.program(Ppn(off), Lpn(256 + off), Cause::Host);
    }
    assert_eq!(n.blocks[0].tag_base, 256);
    n.relocate_block(BlockId(0), BlockId(1), Cause::Gc);
    assert_eq!(n.blocks[1].tag_base, 256, "the base moves with the pages");
    assert_eq!(n.oob(Ppn(128 + 77)).lpn, Lpn(333));
    // A page that is not at its offset: the block's tags are stored from then on.
    n.program(Ppn(128 + 6), Lpn(9), Cause::Host);
    assert_eq!(n.blocks[1].tag_base, EXPLICIT);
    for (p, l) in [(128, 256), (128 + 5, 261), (128 + 6, 9), (128 + 77, 333)] {
        assert_eq!(n.oob(Ppn(p)).lpn, Lpn(l));
    }
}

/// Every program is counted once, for the namespace whose logical page it holds
/// (`nand/owners.rs`): single programs and copies, GC copy runs, and whole-block merges
/// on both of their paths (relaxed parts merge a 64-page word at a time, from implicit
/// and from stored tags).
#[test]
fn programs_are_counted_for_the_namespace_of_their_page_on_every_path() {
    let geo = Geometry {
        planes_per_die: 1,
        blocks_per_plane: 8,
        pages_per_block: 64,
        ..tiny()
    };
    let total = |n: &Nand| n.owner_programs().unwrap().iter().sum::<u64>();
    // Namespace 0 holds logical pages [0, 40), namespace 1 [40, 100); above: no one.
    let mut n = Nand::new(geo, 10, false, false);
    assert_eq!(n.owner_programs(), None);
    n.attribute_programs(vec![40, 100]);
    // Block 0: page p holds p (implicit tags): 40 of namespace 0, 24 of namespace 1.
    for p in 0..64 {
        n.program(Ppn(p), Lpn(p), Cause::Host);
    }
    // Block 1: 32 pages of namespace 1 (99 down to 68, stored tags), 32 of no one's.
    for k in 0..64 {
        let lpn = if k < 32 { 99 - k } else { u32::MAX - 1 - k };
        n.program(Ppn(64 + k), Lpn(lpn), Cause::Map);
    }
    assert_eq!(n.owner_programs(), Some(&[40, 56, 32][..]));
    // Merge the even pages of block 0 (20 below 40, 12 above) and all of block 1.
    for p in (1..64).step_by(2) {
        n.invalidate(Ppn(p));
    }
    assert_eq!(n.relocate_block(BlockId(0), BlockId(2), Cause::Gc), 32);
    assert_eq!(n.relocate_block(BlockId(1), BlockId(3), Cause::Gc), 64);
    assert_eq!(n.owner_programs(), Some(&[60, 100, 64][..]));
    assert_eq!(total(&n), n.counters().total_programs());
    // In-order parts: a copy run across the boundary, and a single copy.
    let mut n = Nand::new(geo, 10, false, true);
    n.attribute_programs(vec![40, 100]);
    for p in 0..64 {
        n.program(Ppn(p), Lpn(p), Cause::Host);
    }
    let srcs: Vec<Ppn> = (30..50).map(Ppn).collect();
    n.relocate_run(&srcs, Ppn(64), Cause::Gc);
    n.copy(Ppn(0), Ppn(84), Cause::Wl);
    assert_eq!(n.owner_programs(), Some(&[40 + 10 + 1, 24 + 10, 0][..]));
    assert_eq!(total(&n), n.counters().total_programs());
    // A copy of the array keeps counting from the same figures.
    let c = n.try_clone().unwrap();
    assert_eq!(c.owner_programs(), n.owner_programs());
}

/// `copy_known` (the read-modify-write's copy, handed the logical page its map names)
/// leaves the array exactly as `copy` (which loads the source's tag) does: same tags and
/// sequence numbers, validity, block states, counters and log, over a random mix of
/// host writes, rewrites and collections that leaves blocks with implicit tags (runs
/// of consecutive pages) and stored ones.
#[test]
fn copy_with_a_known_page_matches_the_copy_that_loads_its_tag() {
    use rand::{Rng, SeedableRng};
    let g = Geometry {
        blocks_per_plane: 8,
        pages_per_block: 16,
        ..tiny()
    };
    let blocks = g.planes_per_die * g.blocks_per_plane;
    let np = g.pages_per_block;
    const LPNS: u32 = 96;
    for seed in 0..20u64 {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let [mut slow, mut fast] = [(); 2].map(|_| {
            let mut n = Nand::new(g, 1000, true, true);
            n.set_logging(true);
            n
        });
        // The shadow FTL both arrays share: map, owner of each page, free blocks.
        let mut map = vec![None::<Ppn>; LPNS as usize];
        let mut free: Vec<u32> = (1..blocks).rev().collect();
        let mut frontier = (0u32, 0u32);
        let next_page = |frontier: &mut (u32, u32), free: &mut Vec<u32>| {
            if frontier.1 == np {
                *frontier = (free.pop().expect("a free block"), 0);
            }
            let p = Ppn(frontier.0 * np + frontier.1);
            frontier.1 += 1;
            p
        };
        let mut copies = 0;
        for step in 0..3000 {
            // Collect when free blocks run short: the fullest-of-stale closed block.
            while free.len() < 3 {
                let victim = (0..blocks)
                    .filter(|&b| b != frontier.0 && !free.contains(&b))
                    .min_by_key(|&b| slow.valid_count(BlockId(b)))
                    .unwrap();
                let mut live = Vec::new();
                slow.valid_pages(BlockId(victim), &mut live);
                for src in live {
                    let lpn = slow.oob(src).lpn;
                    let dst = next_page(&mut frontier, &mut free);
                    slow.copy(src, dst, Cause::Gc);
                    fast.copy_known(src, dst, lpn, Cause::Gc);
                    slow.invalidate(src);
                    fast.invalidate(src);
                    map[lpn.0 as usize] = Some(dst);
                    copies += 1;
                }
                slow.erase(BlockId(victim), Cause::Gc);
                fast.erase(BlockId(victim), Cause::Gc);
                free.insert(0, victim);
            }
            // A run of 1–4 consecutive pages, each written or (if mapped) rewritten.
            let first = rng.gen_range(0..LPNS);
            let run = rng.gen_range(1..=4).min(LPNS - first);
            for lpn in first..first + run {
                let old = map[lpn as usize];
                let dst = next_page(&mut frontier, &mut free);
                match old {
                    Some(src) if rng.gen_bool(0.5) => {
                        slow.copy(src, dst, Cause::Rmw);
                        fast.copy_known(src, dst, Lpn(lpn), Cause::Rmw);
                        copies += 1;
                    }
                    _ => {
                        let a = slow.program(dst, Lpn(lpn), Cause::Host);
                        let b = fast.program(dst, Lpn(lpn), Cause::Host);
                        assert_eq!(a, b);
                    }
                }
                if let Some(src) = old {
                    slow.invalidate(src);
                    fast.invalidate(src);
                }
                map[lpn as usize] = Some(dst);
            }
            assert_eq!(slow.counters(), fast.counters(), "seed {seed} step {step}");
        }
        assert!(copies > 1000, "seed {seed}: {copies} copies");
        for p in 0..blocks * np {
            let ppn = Ppn(p);
            assert_eq!(slow.is_valid(ppn), fast.is_valid(ppn), "{ppn:?}");
            assert_eq!(slow.is_programmed(ppn), fast.is_programmed(ppn), "{ppn:?}");
            if slow.is_programmed(ppn) {
                assert_eq!(slow.oob(ppn), fast.oob(ppn), "seed {seed} {ppn:?}");
            }
        }
        for b in 0..blocks {
            assert_eq!(slow.valid_count(BlockId(b)), fast.valid_count(BlockId(b)));
            assert_eq!(slow.write_ptr(BlockId(b)), fast.write_ptr(BlockId(b)));
        }
        for (lpn, p) in map.iter().enumerate() {
            if let Some(p) = p {
                assert_eq!(fast.oob(*p).lpn, Lpn(lpn as u32));
            }
        }
        fast.check_invariants();
        assert_eq!(
            slow.drain_log().collect::<Vec<_>>(),
            fast.drain_log().collect::<Vec<_>>()
        );
    }
}
