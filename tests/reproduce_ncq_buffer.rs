//! `ssdlab reproduce ncq-buffer --quick` writes its outputs: every grid cell and workload
//! run, claim verdicts that are their tests on the data, QLRU = LRU when nothing queues,
//! and the workload runs' buffer as documented (docs/reproductions.md "Defaults").

mod common;

use std::collections::BTreeMap;

/// Rows of a CSV file as maps from column name to field.
fn rows(path: &std::path::Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

fn f(r: &BTreeMap<String, String>, k: &str) -> f64 {
    r[k].parse().unwrap_or_else(|_| panic!("{k} = {}", r[k]))
}

#[test]
fn ncq_buffer_reproduction_is_consistent_with_its_data_and_defaults() {
    let (_dir, out) = common::reproduce_quick(
        "ncq-buffer",
        &[
            "summary.md",
            "grid.csv",
            "gain_vs_qd.svg",
            "hit_ratio_vs_buffer.svg",
            "policies_grid.svg",
            "arrivals.csv",
            "gain_vs_gap.svg",
            "queue_vs_gap.svg",
            "workloads.csv",
            "workloads.svg",
        ],
    );
    let claims = common::check_claims(&out);
    let holds = |id: &str| common::holds(&claims, id);
    // Grid: every cell of both policies; N1's verdict is its test on the grid CSV.
    let grid = rows(&out.join("grid.csv"));
    let cell = |mib: &str, qd: &str, p: &str| {
        grid.iter()
            .find(|r| r["buffer_mib"] == mib && r["qd"] == qd && r["policy"] == p)
            .map(|r| f(r, "write_hit_ratio_percent"))
    };
    let mut buffers: Vec<String> = grid.iter().map(|r| r["buffer_mib"].clone()).collect();
    buffers.dedup();
    let mut qds: Vec<String> = grid
        .iter()
        .filter(|r| r["policy"] == "qlru")
        .map(|r| r["qd"].clone())
        .collect();
    qds.sort_by_key(|q| q.parse::<u32>().unwrap());
    qds.dedup();
    assert!(buffers.len() >= 2 && qds.len() >= 2);
    let mut all_ge = true;
    for b in &buffers {
        for qd in &qds {
            all_ge &= cell(b, qd, "qlru").unwrap() >= cell(b, qd, "lru").unwrap();
        }
    }
    assert_eq!(holds("N1"), all_ge);
    // Every other policy has a row.
    for p in ["lfu", "fab", "bplru", "clc", "bpac", "exlru"] {
        assert!(grid.iter().any(|r| r["policy"] == p), "no {p} row");
    }
    // Inter-arrival: when the slowest arrivals leave the queue empty, QLRU has no queued
    // command to look at and behaves as LRU (a property of the policy, not a claim).
    let arr = rows(&out.join("arrivals.csv"));
    let gain_at = |gap: &str| {
        let h = |p: &str| {
            arr.iter()
                .find(|r| r["mean_gap_us"] == gap && r["policy"] == p)
                .map(|r| f(r, "write_hit_ratio_percent"))
                .unwrap()
        };
        h("qlru") - h("lru")
    };
    let slowest = arr.last().unwrap()["mean_gap_us"].clone();
    assert!(gain_at(&slowest).abs() < 0.05, "{}", gain_at(&slowest));
    // Workloads: every policy at every queue length; without a buffer the device writes
    // what the host writes, and the FTL's own WA is 1 on the empty device. N4's verdict
    // is its test on the table.
    let w = rows(&out.join("workloads.csv"));
    let mut n4 = true;
    for wl in ["oltp", "compile"] {
        for qd in ["32", "512"] {
            let get = |p: &str| {
                w.iter()
                    .find(|r| r["workload"] == wl && r["qd"] == qd && r["policy"] == p)
                    .unwrap()
            };
            n4 &= f(get("qlru"), "write_hit_ratio_percent")
                >= f(get("lru"), "write_hit_ratio_percent");
            assert_eq!(f(get("lru"), "ftl_wa"), 1.0);
            assert_eq!(f(get("none"), "device_wa"), 1.0);
        }
    }
    assert_eq!(holds("N4"), n4);
    // N6 recomputed from the workload table at the longest queue.
    let at = |wl: &str, p: &str| {
        f(
            w.iter()
                .find(|r| r["workload"] == wl && r["qd"] == "512" && r["policy"] == p)
                .unwrap(),
            "write_hit_ratio_percent",
        )
    };
    let gain = |wl: &str| at(wl, "qlru") - at(wl, "lru");
    assert_eq!(
        holds("N6"),
        gain("compile") > gain("oltp"),
        "compile +{} vs OLTP +{}",
        gain("compile"),
        gain("oltp")
    );
    // The workload runs' buffer is the smallest of the (quick) grid, fixed before any run
    // (not the 128 / 32 MiB adopted after N6 failed): the buffer-size sweep, which always
    // runs, has the same LRU hit ratio at that size as the workload section.
    let mut p = csv::Reader::from_path(out.join("parameters.csv")).unwrap();
    let buffer = p
        .records()
        .map(Result::unwrap)
        .find(|r| &r[0] == "work_buffer_mib");
    assert_eq!(&buffer.unwrap()[1], "8 MiB");
    let sens = rows(&out.join("sensitivity_compile_gain.csv"));
    assert_eq!(sens.len(), 8);
    for wl in ["oltp", "compile"] {
        let r = sens
            .iter()
            .find(|r| r["workload"] == wl && r["buffer_mib"] == "8")
            .unwrap();
        assert!(
            (f(r, "lru_hit_percent") - at(wl, "lru")).abs() < 1e-3,
            "{r:?}"
        );
    }
    assert!(out.join("sensitivity_compile_gain.svg").is_file());
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("## Parameters"));
    assert!(
        md.contains("60.3") && md.contains("8.6"),
        "paper numbers missing"
    );
}
