//! The three desktop workloads on the HDD alone and behind the default flash cache:
//! warm runs must beat cold runs and the HDD alone (the paper's trend, docs/papers.md §5),
//! and what the counters say must fit together.

use ssdlab::hybrid::config::{HybridConfig, WorkloadKind};
use ssdlab::hybrid::run::{HybridReport, run};
use ssdlab::units::Size;

fn go(kind: WorkloadKind, cache_bytes: u64) -> HybridReport {
    let mut c = HybridConfig::default();
    c.workload.kind = kind;
    c.cache.size = Size(cache_bytes);
    // A small cache spread over the SSD's 20 planes leaves each plane few blocks; extra
    // spare area keeps the page FTL's GC reserve.
    c.flash.device.op_percent = 40.0;
    run(&c).unwrap()
}

#[test]
fn warm_runs_beat_cold_runs_and_the_hdd_alone_for_every_desktop_workload() {
    for kind in [
        WorkloadKind::Boot,
        WorkloadKind::AppLaunch,
        WorkloadKind::GameLoad,
    ] {
        let hdd = go(kind, 0);
        let cached = go(kind, 16 << 30);
        let (h_cold, h_warm) = (hdd.run("cold").unwrap(), hdd.run("warm").unwrap());
        let (c_cold, c_warm) = (cached.run("cold").unwrap(), cached.run("warm").unwrap());
        assert!(c_warm.elapsed_s < c_cold.elapsed_s, "{kind:?}");
        assert!(c_warm.elapsed_s < h_warm.elapsed_s, "{kind:?}");
        assert!(c_warm.elapsed_s < h_cold.elapsed_s, "{kind:?}");
        // The HDD alone has no memory across runs beyond its small cache: cold ≈ warm.
        assert!(
            (h_warm.elapsed_s / h_cold.elapsed_s - 1.0).abs() < 0.05,
            "{kind:?}"
        );
        // Both designs see the same requests, and the same think time.
        assert_eq!(h_cold.requests, c_cold.requests);
        assert_eq!(h_cold.think_s, c_cold.think_s);
        // Warm runs are mostly hits; the cold run filled what the warm run hits.
        assert!(c_warm.hit_ratio > 0.9, "{kind:?}: {}", c_warm.hit_ratio);
        assert!(c_cold.cache.fill_units > 0 && hdd.runs[0].cache.fill_units == 0);
        // A 16 GiB cache holds every workload: nothing is evicted.
        assert_eq!(
            cached.runs.iter().map(|r| r.cache.evictions).sum::<u64>(),
            0
        );
        // Hits cost no HDD time: the warm HDD time is the misses' share.
        assert!(c_warm.hdd.busy_ns < 0.2 * h_warm.hdd.busy_ns, "{kind:?}");
    }
}

#[test]
fn a_cache_smaller_than_the_working_set_evicts_and_helps_less() {
    let small = go(WorkloadKind::AppLaunch, 256 << 20);
    let big = go(WorkloadKind::AppLaunch, 16 << 30);
    let (s, b) = (small.run("warm").unwrap(), big.run("warm").unwrap());
    assert!(s.cache.evictions > 0);
    assert!(s.hit_ratio < b.hit_ratio);
    assert!(s.elapsed_s > b.elapsed_s);
}

#[test]
fn list_table_costs_more_comparisons_and_simulated_time_than_trees() {
    let mut by_table = Vec::new();
    for table in ["list", "avl", "btree"] {
        let mut c = HybridConfig::default();
        c.workload.kind = WorkloadKind::AppLaunch;
        c.cache.table = serde_json::from_value(serde_json::json!(table)).unwrap();
        let r = run(&c).unwrap();
        let w = r.run("warm").unwrap().clone();
        by_table.push((table, w.comparisons_per_lookup, w.elapsed_s, w.hit_ratio));
    }
    let (list, avl, bt) = (by_table[0], by_table[1], by_table[2]);
    // Same cache decisions whatever the table…
    assert_eq!(list.3, avl.3);
    assert_eq!(avl.3, bt.3);
    // …but the list searches thousands of records per lookup, the trees dozens.
    assert!(list.1 > 50.0 * avl.1.max(bt.1), "{by_table:?}");
    assert!(list.2 > avl.2 && list.2 > bt.2, "{by_table:?}");
}
