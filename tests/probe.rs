//! The management-block probe (docs/papers.md §1) recovers the management-block size the
//! device was built with, on the paper's three SSD models and for any size from 4 KiB to
//! 4 MiB.

use proptest::prelude::*;
use ssdlab::config::Config;
use ssdlab::sim::{RunOptions, run};

/// Runs the probe on `preset` with `overrides` (TOML) and returns the inferred size.
fn probe(preset: &str, overrides: &str) -> Option<u64> {
    let table: toml::Table = toml::from_str(overrides).unwrap();
    let mut cfg = Config::load_with(Some(preset), None, table).unwrap();
    cfg.workload.kind = ssdlab::workload::synth::SynthKind::Probe;
    let out = run(&cfg, RunOptions::default()).unwrap();
    out.report.probe.expect("probe section").mgmt_block_bytes
}

#[test]
fn probe_recovers_the_three_paper_models() {
    // The presets carry the paper's inferred management blocks and placements.
    assert_eq!(probe("ssd-a", ""), Some(16 << 10));
    assert_eq!(probe("ssd-b", ""), Some(1 << 20));
    assert_eq!(probe("ssd-c", ""), Some(4 << 10));
}

#[test]
fn write_order_placement_hides_a_large_management_block() {
    // Log-structured placement never rewrites a management block, so only the page size
    // shows (the unaligned writes' page read-modify-write).
    let got = probe(
        "ssd-c",
        "[ftl]\nmgmt_block = \"1MiB\"\nplacement = \"write-order\"\n",
    );
    assert_eq!(got, Some(4 << 10));
}

/// Probe settings for a management block of `m` bytes: 512 B steps with 4 KiB writes
/// while that stays cheap; for larger blocks steps of a power of two dividing `m` (at most
/// m / 16) with writes of two steps, so exactly one write per block straddles.
fn probe_settings(m: u64) -> (u64, u64) {
    if m <= 64 << 10 {
        (512, 4096)
    } else {
        let mut step = 1u64 << m.trailing_zeros();
        while step > m / 16 {
            step /= 2;
        }
        (step, 2 * step)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]
    #[test]
    fn probe_recovers_any_mgmt_block_from_4kib_to_4mib(
        pages in prop_oneof![1u64..=16, 17u64..=1024],
        one_channel in any::<bool>(),
    ) {
        // Large blocks on one channel run GC on that channel's few planes during the
        // probe; its rare huge latencies must not hide the straddles (962 pages once
        // inferred 64 KiB).

        let m = pages * 4096;
        let (step, size) = probe_settings(m);
        let overrides = format!(
            "[ftl]\nmgmt_block = \"{m}B\"\nplacement = \"by-address\"\nchannel_placement = \"{}\"\n\
             [workload]\nprobe_step = \"{step}B\"\nsize = \"{size}B\"\nspan = \"{}B\"\nprobe_partitions = 2\n",
            if one_channel { "one-channel" } else { "striped" },
            3 * m,
        );
        prop_assert_eq!(probe("ssd-c", &overrides), Some(m), "m = {} B, step {}, size {}", m, step, size);
    }
}

#[test]
fn probe_recovers_blocks_placed_on_one_channel() {
    // 962 pages (3.76 MiB) is the size that GC outliers once hid.
    for m in [8u64 << 10, 12 << 10, 16 << 10, 64 << 10, 962 * 4096] {
        let (step, size) = probe_settings(m);
        let overrides = format!(
            "[ftl]\nmgmt_block = \"{m}B\"\nplacement = \"by-address\"\nchannel_placement = \"one-channel\"\n\
             [workload]\nprobe_step = \"{step}B\"\nsize = \"{size}B\"\nspan = \"{}B\"\nprobe_partitions = 2\n",
            3 * m
        );
        assert_eq!(probe("ssd-c", &overrides), Some(m), "m = {m}");
    }
}

#[test]
fn probe_sees_the_superblocks_of_log_block_ftls() {
    // BAST and FAST keep one log block per data (super)block or one sequential log
    // block, so their merges follow data-block boundaries and the probe's latency
    // pattern repeats with the superblock. (NFTL folds when a replacement block fills,
    // which does not line up with the boundaries once blocks are large.) The device is
    // pinned: the TLC drive of 64 single-page-program dies without buffer, SLC cache or
    // controller stage.
    for ftl in ["bast", "fast"] {
        for m in [2u64 << 20, 8 << 20] {
            let overrides = format!(
                "[device]\ncapacity = \"1GiB\"\nslc_cache_percent = 0.0\ndies_per_chip = 2\n\
                 pages_per_program = 1\nread_ns = 60000\nprogram_ns = 700000\nchannel_mb_s = 800.0\n\
                 op_percent = 7.0\ncontroller_latency_ns = 0\ncontroller_command_ns = 0\n\
                 [buffer]\nname = \"none\"\n\
                 [ftl]\nname = \"{ftl}\"\nsuperblock = \"{m}B\"\n\
                 [workload]\nprobe_step = \"64KiB\"\nsize = \"128KiB\"\nspan = \"32MiB\"\n"
            );
            assert_eq!(probe("default", &overrides), Some(m), "{ftl} m = {m}");
        }
    }
}

/// The probe's report section with `workload.probe_block` = `block` on SSD A.
fn block_test(block: &str) -> ssdlab::workload::synth::probe::BlockTest {
    let table: toml::Table = toml::from_str(&format!(
        "[workload]\nkind = \"probe\"\nprobe_partitions = 1\nspan = \"256KiB\"\nprobe_block = \"{block}\"\n"
    ))
    .unwrap();
    let cfg = Config::load_with(Some("ssd-a"), None, table).unwrap();
    let out = run(&cfg, RunOptions::default()).unwrap();
    let p = out.report.probe.expect("probe section");
    assert_eq!(
        p.mgmt_block_bytes,
        Some(16 << 10),
        "the test leaves the inference alone"
    );
    p.block_test.expect("block_test with probe_block")
}

#[test]
fn probe_block_tests_a_named_size_against_the_drive() {
    // SSD A rewrites 16 KiB management blocks: tested against them, the 4 KiB writes
    // straddling two blocks are slow and the others are not.
    let right = block_test("16KiB");
    assert_eq!(right.block_bytes, 16 << 10);
    // 256 KiB every 512 B: 512 writes, 7 of every 32 straddle.
    assert_eq!((right.crossing_writes, right.inside_writes), (112, 400));
    assert!(right.crossing_slow_share >= 0.9, "{right:?}");
    assert!(right.inside_slow_share <= 0.05, "{right:?}");
    assert!(right.crossing_latency_ns_mean > 1.5 * right.inside_latency_ns_mean);
    // Tested against 8 KiB, the 8 KiB boundaries inside a 16 KiB block cost nothing:
    // about half the "crossing" writes are fast.
    let wrong = block_test("8KiB");
    assert_eq!(wrong.crossing_writes, 224);
    assert!(wrong.crossing_slow_share < 0.6, "{wrong:?}");
    // Without the key the report has no such section (and the JSON no key).
    let cfg = Config::load_with(
        Some("ssd-a"),
        None,
        toml::from_str("[workload]\nkind = \"probe\"\nprobe_partitions = 1\nspan = \"256KiB\"\n")
            .unwrap(),
    )
    .unwrap();
    let out = run(&cfg, RunOptions::default()).unwrap();
    let p = out.report.probe.unwrap();
    assert!(p.block_test.is_none());
    assert!(
        serde_json::to_value(&p)
            .unwrap()
            .get("block_test")
            .is_none()
    );
}

#[test]
fn probe_block_is_refused_off_the_probe_and_when_not_whole_sectors() {
    for (text, want) in [
        (
            "[workload]\nkind = \"random-write\"\nprobe_block = \"16KiB\"\n",
            "workload.kind = \"probe\"",
        ),
        (
            "[workload]\nkind = \"probe\"\nprobe_block = \"1000B\"\n",
            "multiple of 512 B",
        ),
        (
            "[workload]\nkind = \"probe\"\nprobe_block = \"0B\"\n",
            "multiple of 512 B",
        ),
    ] {
        let err = Config::load_with(Some("ssd-a"), None, toml::from_str(text).unwrap())
            .and_then(|c| c.validate().map(|_| c))
            .expect_err(text)
            .to_string();
        assert!(
            err.contains("workload.probe_block") && err.contains(want),
            "{err}"
        );
    }
}
