//! Reference-model property tests of the hybrid store: random reads and writes on a
//! small disk behind a flash cache far smaller than the data (so extents are evicted
//! constantly) on a tiny SSD (so its GC runs constantly) must read back exactly the last
//! write of every unit, under every write policy, table and eviction policy. Flash data
//! are checked through the SSD's mapping and OOB tags, so a wrong table record, a stale
//! copy or an FTL bug all show up as a wrong tag.

use proptest::prelude::*;
use ssdlab::config::{Config, TimingMode};
use ssdlab::hybrid::evict::EvictionKind;
use ssdlab::hybrid::hdd::HddParams;
use ssdlab::hybrid::store::{CacheConfig, HybridStore, WritePolicy};
use ssdlab::hybrid::table::TableKind;
use ssdlab::units::Size;
use std::collections::BTreeMap;

const UNIT: u64 = 4096;
/// Units of the disk the operations touch.
const SPAN: u64 = 600;

fn small_hdd() -> HddParams {
    let mut o = toml::Table::new();
    o.insert("capacity".into(), toml::Value::String("256MiB".into()));
    o.insert("heads".into(), toml::Value::Integer(2));
    o.insert("sectors_per_track_outer".into(), toml::Value::Integer(200));
    o.insert("sectors_per_track_inner".into(), toml::Value::Integer(100));
    o.insert("zones".into(), toml::Value::Integer(4));
    HddParams::load("desktop-7200", o).unwrap()
}

/// A one-plane SSD of 24 blocks × 4 pages of 4 KiB for a 64-unit cache (the page FTL
/// keeps 6 blocks for GC and frontiers), so GC runs after a few dozen writes.
fn tiny_flash() -> Config {
    let mut c = Config::default();
    c.device.channels = 1;
    c.device.chips_per_channel = 1;
    c.device.dies_per_chip = 1;
    c.device.planes_per_die = 1;
    c.device.pages_per_block = Some(4);
    c.device.op_percent = 50.0;
    c.device.host_link_mb_s = 0.0;
    // Data tags identify flash data by write sequence number.
    c.device.track_write_seq = Some(true);
    c.timing.mode = TimingMode::Full;
    c
}

fn cache(policy: WritePolicy, table: TableKind, eviction: EvictionKind) -> CacheConfig {
    CacheConfig {
        size: Size(64 * UNIT),
        write_policy: policy,
        table,
        eviction,
        extent_max: Size(8 * UNIT),
        ..CacheConfig::default()
    }
}

#[derive(Clone, Debug)]
enum Op {
    Write(u64, u64),
    Read(u64, u64),
    Flush,
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    // A hot region makes data come back while still cached; long reads make partial hits.
    let start = prop_oneof![2 => 0..SPAN - 16, 1 => 0..40u64];
    let op = prop_oneof![
        4 => (start.clone(), 1..16u64).prop_map(|(s, l)| Op::Write(s, l)),
        6 => (start, 1..16u64).prop_map(|(s, l)| Op::Read(s, l)),
        1 => Just(Op::Flush),
    ];
    prop::collection::vec(op, 1..400)
}

fn check(cfg: &CacheConfig, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut store = HybridStore::new(&small_hdd(), Some((cfg, &tiny_flash()))).unwrap();
    store.track_tags();
    let mut model: BTreeMap<u64, u64> = BTreeMap::new();
    let mut t = 0u64;
    let mut out = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let tag = i as u64 + 1;
        match *op {
            Op::Write(s, l) => {
                t = store.write_tagged(s * UNIT, l * UNIT, t, tag).unwrap();
                for u in s..s + l {
                    model.insert(u, tag);
                }
            }
            Op::Read(s, l) => {
                t = store.read_tagged(s * UNIT, l * UNIT, t, &mut out).unwrap();
                let want: Vec<u64> = (s..s + l)
                    .map(|u| model.get(&u).copied().unwrap_or(0))
                    .collect();
                prop_assert_eq!(
                    &out,
                    &want,
                    "op {} {:?} under {:?}",
                    i,
                    op,
                    cfg.write_policy
                );
            }
            Op::Flush => t = store.flush(t).unwrap(),
        }
        if i % 37 == 0 {
            store.check_invariants();
        }
    }
    store.check_invariants();
    // After a flush every unit reads back its last write from a cold disk too: the HDD
    // alone holds the truth once dirty data are written back.
    t = store.flush(t).unwrap();
    for u in 0..SPAN {
        t = store.read_tagged(u * UNIT, UNIT, t, &mut out).unwrap();
        prop_assert_eq!(out[0], model.get(&u).copied().unwrap_or(0), "unit {}", u);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn every_read_returns_the_last_write_under_every_policy(ops in ops()) {
        for &(policy, _, _) in WritePolicy::all() {
            for &(table, _, _) in TableKind::all() {
                check(&cache(policy, table, EvictionKind::Lru), &ops)?;
            }
            check(&cache(policy, TableKind::Btree, EvictionKind::Fifo), &ops)?;
            let mut no_hint = cache(policy, TableKind::Avl, EvictionKind::Lru);
            no_hint.hint = false;
            no_hint.bypass_sequential = Size(8 * UNIT);
            check(&no_hint, &ops)?;
        }
    }
}

#[test]
fn long_random_run_evicts_and_collects_garbage() {
    // One long deterministic run per policy: the counters prove evictions, write-backs
    // and flash GC all happened while every read stayed correct.
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
    let ops: Vec<Op> = (0..6000)
        .map(|_| {
            let s = if rng.gen_bool(0.5) {
                rng.gen_range(0..40)
            } else {
                rng.gen_range(0..SPAN - 16)
            };
            let l = rng.gen_range(1..16);
            match rng.gen_range(0..10) {
                0..4 => Op::Write(s, l),
                4..9 => Op::Read(s, l),
                _ => Op::Flush,
            }
        })
        .collect();
    for &(policy, _, _) in WritePolicy::all() {
        let cfg = cache(policy, TableKind::Btree, EvictionKind::Lru);
        check(&cfg, &ops).unwrap();
        // Run again without tags to read the counters.
        let mut store = HybridStore::new(&small_hdd(), Some((&cfg, &tiny_flash()))).unwrap();
        let mut t = 0;
        for op in &ops {
            let req = |s: u64, l: u64, op| ssdlab::workload::IoRequest::new(op, s * UNIT, l * UNIT);
            t = match *op {
                Op::Write(s, l) => store.submit(&req(s, l, ssdlab::workload::OpKind::Write), t),
                Op::Read(s, l) => store.submit(&req(s, l, ssdlab::workload::OpKind::Read), t),
                Op::Flush => store.flush(t),
            }
            .unwrap();
        }
        let st = *store.stats();
        let nand = *store.flash().unwrap().nand.counters();
        assert!(st.evictions > 100, "{policy:?}: {st:?}");
        assert!(st.hit_units > 0 && st.miss_units > 0, "{policy:?}");
        assert!(
            nand.copies.iter().sum::<u64>() > 0,
            "{policy:?}: no flash GC"
        );
        if policy == WritePolicy::WriteBack {
            assert!(st.destaged_units > 0);
        } else {
            assert_eq!(st.destaged_units, 0);
        }
        if policy == WritePolicy::WriteAround {
            assert!(st.invalidated_units > 0 && st.write_flash_units == 0);
        }
    }
}
