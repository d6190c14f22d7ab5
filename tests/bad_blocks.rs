//! Bad-block retirement (docs/ftls.md, "Bad blocks"): a block erased up to its endurance
//! is retired by the page FTL's and DFTL's block manager, never written again, the spare
//! capacity shrinks, and when a unit has no spare block left the run ends with a clear
//! end-of-life error instead of wearing blocks past their rating or panicking.

use ssdlab::config::Config;
use ssdlab::ftl::FtlError;
use ssdlab::sim::{RunOptions, SimError, run};

/// A two-plane, 32 MiB device of 64-page blocks rated for 40 P/E cycles, counting mode.
/// `nftl-log` is the NFTL with `[ftl.nftl] variant = "log"`.
fn config(ftl: &str, requests: u64) -> Config {
    let (ftl, extra) = match ftl {
        "nftl-log" => ("nftl", "[ftl.nftl]\nvariant = \"log\"\n"),
        f => (f, ""),
    };
    let text = format!(
        "[device]\ncapacity = \"32MiB\"\nop_percent = 25\nchannels = 1\nchips_per_channel = 1\n\
         dies_per_chip = 1\nplanes_per_die = 2\npages_per_block = 64\nendurance_cycles = 40\n\
         slc_cache_percent = 0\ncontroller_latency_ns = 0\ncontroller_command_ns = 0\n\
         [buffer]\nname = \"none\"\n[timing]\nmode = \"count\"\n\
         [ftl]\nname = \"{ftl}\"\n{extra}[workload]\nkind = \"random-write\"\nrequests = {requests}\n"
    );
    Config::load_with(None, Some(("bad-blocks.toml", &text)), toml::Table::new()).unwrap()
}

#[test]
fn worn_out_blocks_retire_and_the_drive_reaches_end_of_life() {
    for ftl in ["page", "dftl"] {
        // Long enough to use up every block's endurance several times over.
        match run(&config(ftl, 400_000), RunOptions::default()) {
            Err(SimError::Ftl(
                e @ FtlError::EndOfLife {
                    retired, endurance, ..
                },
            )) => {
                assert!(retired > 0, "{ftl}");
                assert_eq!(endurance, 40, "{ftl}");
                assert!(e.to_string().starts_with("end of life"), "{ftl}: {e}");
            }
            Err(e) => panic!("{ftl}: expected end of life, got {e}"),
            Ok(_) => panic!("{ftl}: 400 K writes on a 40-cycle device did not wear it out"),
        }
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
        match run(&config(ftl, 400_000), RunOptions::default()) {
            Err(SimError::Ftl(
                e @ FtlError::EndOfLife {
                    retired, endurance, ..
                },
            )) => {
                assert!(retired > 0, "{ftl}");
                assert_eq!(endurance, 40, "{ftl}");
                assert!(e.to_string().starts_with("end of life"), "{ftl}: {e}");
            }
            Err(e) => panic!("{ftl}: expected end of life, got {e}"),
            Ok(_) => panic!("{ftl}: 400 K writes on a 40-cycle device did not wear it out"),
        }
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
