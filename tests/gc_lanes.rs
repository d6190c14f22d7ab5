//! A page FTL whose GC pools span several dies (a device too small for per-plane
//! reserves, feasible.rs) writes on every die at once, as with per-plane pools: each
//! pool keeps a host frontier on each of its dies. Before, a pool had one open host
//! block, so on the default 1 GiB drive with the hot/cold split (pools of two dies)
//! sequential 128 KiB writes ran at 858 MiB/s against 1,621 without the split, and only
//! 16 of the 32 dies held any window of consecutive host pages (BENCHMARKS.md,
//! Session 24 (gc)).

use ssdlab::config::Config;
use ssdlab::nand::Lpn;
use ssdlab::sim::Device;
use std::collections::BTreeSet;

/// The default preset at 1 GiB without a write buffer, with `extra` TOML lines.
fn config(extra: &str) -> Config {
    let text = format!("[device]\ncapacity = \"1GiB\"\n[buffer]\nname = \"none\"\n{extra}");
    Config::load(Some("default"), Some(("gc-lanes.toml", &text))).unwrap()
}

/// Dies holding logical pages `0..n` after the whole logical space was written twice
/// in order (the second pass runs GC: every victim is fully invalid).
fn dies_of_first_pages(cfg: &Config, n: u64) -> (u32, u32) {
    let mut dev = Device::new(cfg).unwrap();
    let pages = dev.capacity_bytes() / dev.page_bytes();
    for _ in 0..2 {
        for lpn in 0..pages {
            dev.write_untimed(lpn).unwrap();
        }
    }
    let geo = *dev.nand.geometry();
    let dies: BTreeSet<u32> = (0..n)
        .map(|l| {
            let ppn = dev.ftl.lookup(Lpn(l as u32), &dev.nand).expect("written");
            geo.die_of_plane(geo.plane_of(geo.block_of(ppn)))
        })
        .collect();
    (dies.len() as u32, geo.dies())
}

#[test]
fn pooled_units_spread_host_writes_over_every_die() {
    // 1,024 consecutive pages: 32 per die if the stripe reaches every die.
    for hot_cold in [true, false] {
        let cfg = config(&format!("[ftl]\nhot_cold = {hot_cold}\n"));
        let (used, dies) = dies_of_first_pages(&cfg, 1024);
        assert_eq!(
            used, dies,
            "hot_cold = {hot_cold}: 1,024 consecutive pages on {used} of {dies} dies"
        );
    }
}

#[test]
fn hot_cold_split_costs_no_sequential_throughput_on_a_pooled_device() {
    // GC copies nothing here (victims hold no valid page), so the split's extra GC
    // frontier is never opened and cannot change the work; only where host pages go can.
    let run = |hot_cold: bool| {
        let cfg = config(&format!(
            "[ftl]\nhot_cold = {hot_cold}\n[workload]\nkind = \"seq-write\"\n\
             size = \"128KiB\"\nrequests = 20000\n"
        ));
        let r = ssdlab::sim::run(&cfg, ssdlab::sim::RunOptions::default())
            .unwrap()
            .report;
        assert_eq!(r.gc_copy_pages, 0, "hot_cold = {hot_cold}");
        r.throughput_mib_s
    };
    let (on, off) = (run(true), run(false));
    assert!(
        on >= 0.9 * off,
        "hot/cold split {on:.0} MiB/s against {off:.0} MiB/s without it"
    );
}
