//! Superblocks (docs/papers.md §1, "SSD management block") on the block-mapped and hybrid
//! FTLs, end to end: the paper's trade-off — a larger management block shrinks the
//! mapping table but makes small writes copy more — and erases counted per physical
//! block.

use std::process::Command;

fn run(ftl: &str, mgmt: &str, channel: &str) -> serde_json::Value {
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args([
            "run",
            "--ftl",
            ftl,
            "--capacity",
            "512MiB",
            "--set",
            "device.channels=4",
            "--set",
            "device.chips_per_channel=2",
            "--mgmt-block",
            mgmt,
            "--channel-placement",
            channel,
            "--workload",
            "random-write",
            "--size",
            "4KiB",
            "--fill",
            "--requests",
            "20k",
            "--timing",
            "count",
            "--seed",
            "3",
            "--json",
            "-",
            "-q",
        ])
        .output()
        .expect("run ssdlab");
    assert!(
        o.status.success(),
        "{ftl} {mgmt}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn f(v: &serde_json::Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("{k} in report"))
}

#[test]
fn larger_superblocks_shrink_the_map_and_raise_small_write_cost() {
    // The default preset's erase block is 1 MiB (256 pages of 4 KiB), so 2 MiB and
    // 8 MiB management blocks are superblocks of 2 and 8 blocks.
    for ftl in ["nftl", "bast", "aftl", "cftl"] {
        let one = run(ftl, "1MiB", "striped");
        let two = run(ftl, "2MiB", "striped");
        let eight = run(ftl, "8MiB", "one-channel");
        // Fewer, larger units: less mapping memory.
        assert!(
            f(&two, "mapping_bytes") < f(&one, "mapping_bytes")
                && f(&eight, "mapping_bytes") < f(&two, "mapping_bytes"),
            "{ftl}: mapping bytes {} {} {}",
            f(&one, "mapping_bytes"),
            f(&two, "mapping_bytes"),
            f(&eight, "mapping_bytes")
        );
        // These FTLs merge or fold a whole unit per small random write once the
        // device is full, so write amplification grows about in proportion.
        let (wa1, wa2, wa8) = (
            f(&one, "write_amplification"),
            f(&two, "write_amplification"),
            f(&eight, "write_amplification"),
        );
        assert!(
            wa2 > 1.6 * wa1 && wa8 > 3.0 * wa2,
            "{ftl}: WA {wa1} {wa2} {wa8}"
        );
        // Erases count physical blocks: a superblock erase is 2 (or 8) of them.
        assert!(f(&two, "erases") > 0.0, "{ftl}");
        assert_eq!(f(&two, "erases") as u64 % 2, 0, "{ftl}");
        assert_eq!(f(&eight, "erases") as u64 % 8, 0, "{ftl}");
    }
}
