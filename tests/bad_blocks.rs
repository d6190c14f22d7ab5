//! Bad-block retirement (docs/ftls.md, "Bad blocks"): a block erased up to its endurance
//! is retired by every FTL's block manager (blocks.rs, twolevel.rs, logblock.rs), never
//! written again, the spare capacity shrinks, and when no spare block is left the run
//! stops there and reports the end of life (the requests it lasted) instead of wearing
//! blocks past their rating or panicking.

use ssdlab::config::Config;
use ssdlab::ftl::{FtlConfig, FtlError, FtlKind, build_ftl};
use ssdlab::host::SimError;
use ssdlab::nand::{BlockId, Geometry, Lpn, Nand};
use ssdlab::sim::{RunOptions, run};
use std::collections::BTreeMap;

/// A two-plane, 32 MiB device of 64-page blocks rated for 40 P/E cycles, counting mode.
/// `nftl-log` is the NFTL with `[ftl.nftl] variant = "log"`; a `+sb` suffix runs a
/// block-mapped FTL on two-block superblocks (`ftl.superblock`, one block per plane).
fn config(ftl: &str, requests: u64) -> Config {
    let (ftl, superblock) = match ftl.strip_suffix("+sb") {
        Some(f) => (f, "superblock = \"512KiB\"\n"),
        None => (ftl, ""),
    };
    let (ftl, extra) = match ftl {
        "nftl-log" => ("nftl", "[ftl.nftl]\nvariant = \"log\"\n"),
        f => (f, ""),
    };
    let text = format!(
        "[device]\ncapacity = \"32MiB\"\nop_percent = 25\nchannels = 1\nchips_per_channel = 1\n\
         dies_per_chip = 1\nplanes_per_die = 2\npages_per_block = 64\nendurance_cycles = 40\n\
         slc_cache_percent = 0\ncontroller_latency_ns = 0\ncontroller_command_ns = 0\n\
         [buffer]\nname = \"none\"\n[timing]\nmode = \"count\"\n\
         [ftl]\nname = \"{ftl}\"\n{superblock}{extra}[workload]\nkind = \"random-write\"\nrequests = {requests}\n"
    );
    Config::load_with(None, Some(("bad-blocks.toml", &text)), toml::Table::new()).unwrap()
}

#[test]
fn worn_out_blocks_retire_and_the_drive_reaches_end_of_life() {
    for ftl in ["page", "dftl"] {
        // Long enough to use up every block's endurance several times over.
        expect_end_of_life(ftl, 400_000, 1);
    }
}

#[test]
fn retired_blocks_are_never_erased_again() {
    // Just short of the end of life: some blocks retired, the data all readable (check
    // mode compares every page with the host's view and the block manager's invariants:
    // a retired block is neither free nor a GC candidate), and no block erased beyond
    // its rating.
    // Wear leveling keeps erase counts within a few cycles of each other, so the window
    // between the first retirement and the end of life is narrow: step up to it.
    let mut seen_retired = false;
    for ftl in ["page", "dftl"] {
        seen_retired |= step_to_first_retirement(ftl, (100_000..=170_000).step_by(2_000));
    }
    assert!(
        seen_retired,
        "no run retired a block: the test needs longer runs"
    );
}

/// AFTL, CFTL and the log-style NFTL (block-mapped over `twolevel`'s pools): a fold's erase that reaches a
/// block's endurance retires it, the free pool shrinks for good, and the run ends with
/// end of life once no spare block is left; short of that the data is all readable and
/// no block is erased past its rating.
#[test]
fn hash_ftls_retire_worn_blocks_and_reach_end_of_life() {
    for ftl in ["aftl", "cftl", "nftl-log"] {
        expect_end_of_life(ftl, 400_000, 1);
        // Random page writes fold often here (WA far above the page FTL's), so the
        // first retirement comes after some thousands of writes: step up to it.
        let seen_retired = step_to_first_retirement(ftl, (4_000..=20_000).step_by(400));
        assert!(
            seen_retired,
            "{ftl}: no run retired a block before the end of life"
        );
    }
}

/// Runs `ftl` in check mode (every page compared with the host's view, the block
/// manager's invariants) at each request count in turn until a block is retired or the
/// drive reaches its end of life; every run has retired = worn-out blocks and no block
/// erased beyond its rating of 40. Whether a retirement was seen.
fn step_to_first_retirement(ftl: &str, requests: impl Iterator<Item = u64>) -> bool {
    for requests in requests {
        let r = match run(
            &config(ftl, requests),
            RunOptions {
                check: true,
                ..Default::default()
            },
        ) {
            Ok(out) => out.report,
            Err(SimError::Ftl(FtlError::EndOfLife { .. })) => return false,
            Err(e) => panic!("{ftl} {requests}: {e}"),
        };
        let retired = r.counters["ftl.retired_blocks"];
        assert_eq!(
            retired, r.counters["nand.worn_out_blocks"],
            "{ftl} {requests}"
        );
        assert!(
            r.erase_count.max <= 40,
            "{ftl} {requests}: {}",
            r.erase_count.max
        );
        if retired > 0 {
            return true;
        }
    }
    false
}

/// NFTL (fixed-offset), BAST, FAST and FASTer (logblock.rs's pool): the same story as the
/// others — retirement at the endurance, end of life once the spares are gone — at the
/// request counts where each wears the device out under random writes.
#[test]
fn block_mapped_ftls_retire_worn_blocks_and_reach_end_of_life() {
    let windows: [(&str, std::ops::RangeInclusive<u64>, usize); 4] = [
        ("nftl", 12_000..=15_000, 250),
        ("bast", 9_000..=10_000, 100),
        ("fast", 70_000..=76_000, 500),
        ("faster", 60_000..=66_000, 500),
    ];
    for (ftl, window, step) in windows {
        expect_end_of_life(ftl, 400_000, 1);
        assert!(
            step_to_first_retirement(ftl, window.step_by(step)),
            "{ftl}: no run retired a block before the end of life"
        );
    }
}

/// A block-mapped FTL on superblocks retires the whole superblock (all its members are
/// erased together, so they reach the endurance together): retired blocks come in whole
/// superblocks and match the NAND's worn-out physical blocks.
#[test]
fn superblocks_retire_whole() {
    for (ftl, window, step) in [
        ("bast+sb", 6_000..=7_000u64, 100),
        ("nftl+sb", 8_500..=9_500, 100),
    ] {
        expect_end_of_life(ftl, 400_000, 2);
        assert!(
            step_to_first_retirement(ftl, window.step_by(step)),
            "{ftl}: no run retired a superblock before the end of life"
        );
    }
}

/// Runs `ftl` for `requests` and expects the run to stop at the end of life with a
/// report of the requests completed until then, with a retired count that is a multiple
/// of `per_unit` (physical blocks per retired unit).
fn expect_end_of_life(ftl: &str, requests: u64, per_unit: u64) {
    let out = match run(&config(ftl, requests), RunOptions::default()) {
        Ok(out) => out,
        Err(e) => panic!("{ftl}: expected a report ending at the end of life, got {e}"),
    };
    let r = &out.report;
    let Some(eol) = &r.end_of_life else {
        panic!("{ftl}: {requests} writes on a 40-cycle device did not wear it out");
    };
    let retired = r.counters["ftl.retired_blocks"];
    assert!(retired > 0, "{ftl}");
    assert_eq!(retired % per_unit, 0, "{ftl}: {retired} blocks retired");
    assert!(
        eol.reason.starts_with("end of life") && eol.reason.contains("endurance of 40 P/E"),
        "{ftl}: {}",
        eol.reason
    );
    // The report covers exactly the requests completed before the wear-out.
    assert!(
        eol.after_requests > 0 && eol.after_requests < requests,
        "{ftl}"
    );
    assert_eq!(r.counters["host.requests"], eol.after_requests, "{ftl}");
    assert_eq!(r.latency_ns.count, eol.after_requests, "{ftl}");
    assert_eq!(eol.at_ns, r.simulated_ns, "{ftl}");
    assert!(eol.host_write_bytes >= eol.after_requests * 4096, "{ftl}");
    assert!(
        r.warnings.iter().any(|w| w.contains("end of life")),
        "{ftl}: {:?}",
        r.warnings
    );
}

/// The block-mapped FTLs driven directly on a tiny 16-cycle device until the end of
/// life: after every operation the FTL's invariants hold (a retired block is neither
/// free nor mapped, every worn-out block is retired) and every page reads back its last
/// write; the drive keeps working past its first retirements (the log area shrinks, the
/// merge reserve stays); the end comes as `EndOfLife`, never a panic or another error,
/// and leaves the invariants intact; no block is erased beyond its rating.
#[test]
fn block_mapped_ftls_keep_invariants_up_to_end_of_life() {
    let geo = Geometry {
        channels: 1,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 2,
        blocks_per_plane: 24,
        pages_per_block: 8,
        page_size_bytes: 4096,
        oob_size_bytes: 64,
    };
    let endurance = 16;
    let logical = 288u32; // 36 data blocks of 48: 11 log blocks + the merge reserve
    for kind in [FtlKind::Nftl, FtlKind::Bast, FtlKind::Fast, FtlKind::Faster] {
        let mut longest_after_first = 0;
        for seed in [1u64, 2, 3] {
            let who = format!("{kind:?} seed {seed}");
            let cfg = FtlConfig {
                name: kind,
                ..Default::default()
            };
            let mut ftl = build_ftl(&cfg, &geo, logical as u64, seed).unwrap();
            let mut nand = Nand::new(geo, endurance, true, ftl.programs_in_order());
            let mut model: BTreeMap<u32, u32> = BTreeMap::new();
            let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let mut next = move || {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                rng
            };
            let retired = |ftl: &dyn ssdlab::ftl::Ftl| {
                let mut c = ssdlab::spec::Counters::new();
                ftl.counters(&mut c);
                c["ftl.retired_blocks"]
            };
            let mut ops_after_first_retirement = 0u64;
            let err = loop {
                let r = next();
                // Mostly random overwrites, some sequential runs (FAST's SW block,
                // switch merges) and trims.
                let l = (r >> 8) as u32 % logical;
                let res = if r % 20 == 0 {
                    model.remove(&l);
                    ftl.trim(Lpn(l), &mut nand)
                } else if r % 20 == 1 {
                    let first = l / 8 * 8;
                    (first..first + 8).try_for_each(|l| {
                        let seq = nand.next_seq();
                        ftl.write(Lpn(l), &mut nand)?;
                        model.insert(l, seq);
                        Ok(())
                    })
                } else {
                    let seq = nand.next_seq();
                    ftl.write(Lpn(l), &mut nand).map(|()| {
                        model.insert(l, seq);
                    })
                };
                if let Err(e) = res {
                    break e;
                }
                ftl.check_invariants(&nand);
                if let Some(&seq) = model.get(&l) {
                    let p = ftl.lookup(Lpn(l), &nand);
                    assert_eq!(p.map(|p| nand.oob(p).seq), Some(seq), "{who}: lpn {l}");
                }
                if retired(ftl.as_ref()) > 0 {
                    ops_after_first_retirement += 1;
                }
                assert!(
                    ops_after_first_retirement < 1_000_000,
                    "{who}: never wore out"
                );
            };
            match err {
                FtlError::EndOfLife {
                    retired: r,
                    endurance: e,
                    ..
                } => {
                    assert_eq!(e, endurance, "{who}");
                    assert_eq!(r, retired(ftl.as_ref()), "{who}");
                }
                e => panic!("{who}: expected end of life, got {e}"),
            }
            ftl.check_invariants(&nand);
            let worn = nand.worn_out_blocks() as u64;
            assert_eq!(retired(ftl.as_ref()), worn, "{who}");
            assert!(worn > 0, "{who}");
            for b in 0..geo.blocks() {
                assert!(
                    nand.erase_count(BlockId(b)) <= endurance,
                    "{who}: block {b}"
                );
            }
            // Every page the failed write did not touch still reads its last write.
            for (&l, &seq) in &model {
                if let Some(p) = ftl.lookup(Lpn(l), &nand) {
                    assert_eq!(nand.oob(p).seq, seq, "{who}: lpn {l} after the end of life");
                }
            }
            longest_after_first = longest_after_first.max(ops_after_first_retirement);
            eprintln!(
                "{who}: {worn} blocks retired, {ops_after_first_retirement} operations after the first"
            );
        }
        // Wear leveling keeps erase counts close, so the end follows the first
        // retirement soon (for FAST a reclaim whose merges retire the old data blocks
        // can use up the reserve at once), but not always at once.
        assert!(
            longest_after_first > 0,
            "{kind:?}: every seed's first retirement ended the drive's life"
        );
    }
}
