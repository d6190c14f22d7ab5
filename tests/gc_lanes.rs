//! A page FTL whose GC pools span several dies (a device too small for per-plane
//! reserves, feasible.rs) writes on every die at once, as with per-plane pools: each
//! pool keeps a host frontier on each of its dies. Before, a pool had one open host
//! block, so on the default 1 GiB drive with the hot/cold split (pools of two dies)
//! sequential 128 KiB writes ran at 858 MiB/s against 1,621 without the split, and only
//! 16 of the 32 dies held any window of consecutive host pages (BENCHMARKS.md,
//! Session 24 (gc)).

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab::config::Config;
use ssdlab::ftl::{Ftl, FtlConfig, build_ftl, feasible};
use ssdlab::nand::{FlashData, Geometry, Lpn, Nand, PageStore, StoredTag};
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

/// The crash test's small drive (tests/crashtest.rs, `many_cuts_on_a_small_device…`:
/// `ssdlab crashtest --capacity 16MiB` on two one-plane dies of 64-page blocks, 9.9 %
/// OP asked: 36 blocks per plane for 4,096 logical pages), with 512-byte pages (the
/// page size enters no block count, and the tags are all this test keeps).
fn crash_geometry() -> Geometry {
    Geometry {
        channels: 2,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: 36,
        pages_per_block: 64,
        page_size_bytes: 512,
        oob_size_bytes: 16,
    }
}

/// A flash store that keeps only what a mount reads (OOB tags and erase counts), so a
/// drive's state can be copied and mounted again for each cut.
#[derive(Clone)]
struct Tags {
    tags: Vec<Option<StoredTag>>,
    erases: Vec<u32>,
}

impl PageStore for Tags {
    fn program(&mut self, ppn: u32, tag: StoredTag, _data: &[u8]) {
        self.tags[ppn as usize] = Some(tag);
    }
    fn copy(&mut self, src: u32, dst: u32, program_seq: u32) {
        let t = self.tags[src as usize].expect("copy of an erased page");
        self.tags[dst as usize] = Some(StoredTag { program_seq, ..t });
    }
    fn erase(&mut self, block: u32, first: u32, pages: u32, erase_count: u32) {
        self.tags[first as usize..(first + pages) as usize].fill(None);
        self.erases[block as usize] = erase_count;
    }
    fn read(&self, _ppn: u32, out: &mut [u8]) -> bool {
        out.fill(0);
        false
    }
    fn scan_tags(&self) -> Vec<Option<StoredTag>> {
        self.tags.clone()
    }
    fn erase_counts(&self) -> Vec<u32> {
        self.erases.clone()
    }
    fn sync(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    fn stored_bytes(&self) -> u64 {
        0
    }
}

const ENDURANCE: u32 = 100_000;

/// Mounts `store` and recovers a fresh FTL from it.
fn mount(
    store: Tags,
    build: &dyn Fn() -> Box<dyn Ftl>,
) -> (Box<dyn Ftl>, Nand, Result<(), ssdlab::ftl::RecoverError>) {
    let g = crash_geometry();
    let data = FlashData::new(Box::new(store), g.page_size_bytes as usize);
    let (mut nand, tags, _) = Nand::mount(g, ENDURANCE, true, data);
    let mut ftl = build();
    let r = ftl.recover(&mut nand, &tags);
    (ftl, nand, r)
}

/// Runs of 1–8 pages at random offsets (the crash test's writes) until `stop` says so
/// (given the pages written so far).
fn write_runs(
    ftl: &mut dyn Ftl,
    nand: &mut Nand,
    rng: &mut Xoshiro256PlusPlus,
    stop: impl Fn(&Nand, u64) -> bool,
) {
    let pages = ftl.logical_pages() as u32;
    let bytes = nand.geometry().page_size_bytes as usize;
    let mut written = 0;
    while !stop(nand, written) {
        let n = rng.gen_range(1..=8u32);
        let first = rng.gen_range(0..=pages - n);
        for lpn in first..first + n {
            let d = nand.data_mut().unwrap();
            d.stage(lpn, vec![1u8; bytes].into_boxed_slice());
            ftl.write(Lpn(lpn), nand).unwrap();
        }
        written += n as u64;
    }
}

/// Every power cut in a window of flash operations on a drive in steady state (the
/// whole space written three times over, then mounted) recovers, with a host frontier
/// per die. The window (the 3,000 flash operations after the mount) holds collections
/// at every free-block count, among them ones that take the pool's last free block for
/// the GC frontier before the victim's erase gives one back: a cut there leaves no
/// erased block at the mount and three partly written blocks (two host lanes and the
/// new GC block). Recovery used to keep two of them as frontiers (by block number,
/// whatever room they had left) and move the third out first, into a GC frontier that
/// could be one page from full: out of free blocks (the crash test's seed 11 after 98
/// cuts; every seed of 1–12 within 38–291 cuts).
#[test]
fn every_cut_in_a_window_of_collections_recovers_with_lanes() {
    let g = crash_geometry();
    let pages = 4096u64;
    let cfg = FtlConfig {
        gc: ssdlab::ftl::gc::GcPolicyKind::Greedy,
        ..Default::default()
    };
    let plan = feasible::page_plan(&cfg, &g, pages).unwrap();
    assert_eq!(
        (plan.unit_planes, plan.lanes),
        (2, 2),
        "one pool, a lane per die"
    );
    let build = || build_ftl(&cfg, &g, pages, 1).unwrap();
    let empty = Tags {
        tags: vec![None; g.pages() as usize],
        erases: vec![0; g.blocks() as usize],
    };
    // The prefix: three times the logical space in runs, no cut.
    let (mut ftl, mut nand, r) = mount(empty, &build);
    r.unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    write_runs(&mut *ftl, &mut nand, &mut rng, |_, w| w >= 3 * pages);
    let store = |nand: &Nand| Tags {
        tags: nand.data().unwrap().store().scan_tags(),
        erases: nand.data().unwrap().store().erase_counts(),
    };
    let steady = store(&nand);
    const WINDOW_OPS: u64 = 3000;
    let mut failures = Vec::new();
    for cut in 0..WINDOW_OPS {
        let (mut ftl, mut nand, r) = mount(steady.clone(), &build);
        r.unwrap();
        let mut rng = rng.clone();
        nand.data_mut().unwrap().arm_cut(cut);
        write_runs(&mut *ftl, &mut nand, &mut rng, |n, _| {
            n.data().unwrap().is_cut()
        });
        match mount(store(&nand), &build) {
            (ftl, nand, Ok(())) => ftl.check_invariants(&nand),
            (_, _, Err(e)) => failures.push(format!("cut after {cut} operations: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {WINDOW_OPS} cuts did not recover, first: {}",
        failures.len(),
        failures[0]
    );
}
