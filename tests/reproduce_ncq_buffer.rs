//! `ssdlab reproduce ncq-buffer --quick` writes its outputs and shows the paper's trends:
//! QLRU ≥ LRU everywhere, a gain that grows with queue length and vanishes when requests
//! arrive too slowly to queue, and device write amplification below 1 with a buffer.

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
fn ncq_buffer_reproduction_shows_the_papers_trends() {
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
    // Grid: QLRU ≥ LRU in every cell; the gain at the longest queue beats the shortest.
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
    for b in &buffers {
        let gain = |qd: &str| cell(b, qd, "qlru").unwrap() - cell(b, qd, "lru").unwrap();
        for qd in &qds {
            assert!(gain(qd) >= 0.0, "buffer {b} qd {qd}: gain {}", gain(qd));
        }
        let (lo, hi) = (gain(&qds[0]), gain(qds.last().unwrap()));
        assert!(
            hi > lo + 0.5,
            "buffer {b}: gain {lo} at qd {} vs {hi}",
            qds[0]
        );
    }
    // Every other policy has a row.
    for p in ["lfu", "fab", "bplru", "clc", "bpac", "exlru"] {
        assert!(grid.iter().any(|r| r["policy"] == p), "no {p} row");
    }
    // Inter-arrival: the gain with a full queue (closed loop) exceeds the gain when the
    // slowest arrivals leave the queue empty, where it is (nearly) zero.
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
    assert!(gain_at("0") > gain_at(&slowest) + 1.0, "{arr:?}");
    assert!(gain_at(&slowest).abs() < 0.05, "{}", gain_at(&slowest));
    // Workloads: QLRU ≥ LRU on both stand-ins at every queue length; device WA < 1 with
    // a buffer and = 1 without, FTL WA = 1 on the empty device.
    let w = rows(&out.join("workloads.csv"));
    for wl in ["oltp", "compile"] {
        for qd in ["32", "512"] {
            let get = |p: &str| {
                w.iter()
                    .find(|r| r["workload"] == wl && r["qd"] == qd && r["policy"] == p)
                    .unwrap()
            };
            assert!(
                f(get("qlru"), "write_hit_ratio_percent")
                    >= f(get("lru"), "write_hit_ratio_percent")
            );
            assert!(f(get("lru"), "device_wa") < 1.0);
            assert_eq!(f(get("lru"), "ftl_wa"), 1.0);
            assert_eq!(f(get("none"), "device_wa"), 1.0);
        }
    }
    let claims = common::check_claims(&out);
    // N6 recomputed from the workload table at the longest queue.
    let gain = |wl: &str| {
        let at = |p: &str| {
            f(
                w.iter()
                    .find(|r| r["workload"] == wl && r["qd"] == "512" && r["policy"] == p)
                    .unwrap(),
                "write_hit_ratio_percent",
            )
        };
        at("qlru") - at("lru")
    };
    assert_eq!(
        common::holds(&claims, "N6"),
        gain("compile") > gain("oltp"),
        "compile +{} vs OLTP +{}",
        gain("compile"),
        gain("oltp")
    );
    // The buffer-size sweep always runs (the default size is a choice): four sizes,
    // both workloads, the default among them.
    let sens = rows(&out.join("sensitivity_compile_gain.csv"));
    assert_eq!(sens.len(), 8);
    assert!(sens.iter().any(|r| r["buffer_mib"] == "32"));
    assert!(out.join("sensitivity_compile_gain.svg").is_file());
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(!md.contains("does not hold"), "{md}");
    assert!(
        md.contains("60.3") && md.contains("8.6"),
        "paper numbers missing"
    );
}
