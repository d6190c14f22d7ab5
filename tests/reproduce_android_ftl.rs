//! `ssdlab reproduce android-ftl --quick` writes its outputs and shows the Android study's
//! trends (docs/papers.md §4).

mod common;

use std::collections::BTreeMap;

#[test]
fn android_ftl_reproduction_shows_the_papers_trends() {
    let (_dir, out) = common::reproduce_quick(
        "android-ftl",
        &[
            "summary.md",
            "android_ftl.csv",
            "seq_read.svg",
            "seq_write_aged.svg",
            "random_write.svg",
            "random_read.svg",
            "claims.csv",
        ],
    );
    let csv = std::fs::read_to_string(out.join("android_ftl.csv")).unwrap();
    // (test, ftl) → (total_s, gc_share)
    let mut t: BTreeMap<(String, String), (f64, f64)> = BTreeMap::new();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        if f[col("status")] != "ok" {
            continue;
        }
        t.insert(
            (f[col("test")].into(), f[col("ftl")].into()),
            (
                f[col("total_s")].parse().unwrap(),
                f[col("gc_share")].parse().unwrap(),
            ),
        );
    }
    let get = |test: &str, ftl: &str| t[&(test.to_string(), ftl.to_string())];
    // Random write: BAST's GC share far above FAST's; FAST and FASTer a small fraction of
    // BAST's time (paper: 17%); page mapping fastest.
    let (bast, bast_gc) = get("random_write", "bast");
    let (fast, fast_gc) = get("random_write", "fast");
    let (faster, _) = get("random_write", "faster");
    let (page, _) = get("random_write", "page");
    assert!(bast_gc > 0.8, "BAST GC share {bast_gc}");
    assert!(bast_gc - fast_gc > 0.15, "BAST {bast_gc} vs FAST {fast_gc}");
    assert!(fast < 0.35 * bast && faster < 0.35 * bast, "{csv}");
    assert!(page < fast && page < faster && page < bast, "{csv}");
    // Sequential read: the paper's FTLs within a few percent.
    let reads: Vec<f64> = ["page", "bast", "fast", "faster"]
        .iter()
        .map(|f| get("seq_read", f).0)
        .collect();
    let min = reads.iter().copied().fold(f64::MAX, f64::min);
    let max = reads.iter().copied().fold(0.0, f64::max);
    assert!(max / min < 1.03, "{reads:?}");
    // Aged sequential write: BAST is the slowest of the hybrids and FAST spends less
    // than half of BAST's GC time.
    let aged = |f: &str| get("seq_write_aged", f);
    assert!(aged("bast").0 > aged("fast").0 && aged("bast").0 > aged("faster").0);
    assert!(aged("fast").0 * aged("fast").1 < 0.5 * aged("bast").0 * aged("bast").1);
    // The summary sets the paper's numbers beside ours.
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for s in ["17%", "86%", "Mechanisms, from the counters"] {
        assert!(md.contains(s), "summary lacks {s}");
    }
    // Claims as data, consistent with the data they are computed from.
    let claims = common::check_claims(&out);
    let fastest = ["page", "bast", "fast", "faster"]
        .iter()
        .min_by(|a, b| aged(a).0.total_cmp(&aged(b).0))
        .unwrap();
    assert_eq!(common::holds(&claims, "A2"), *fastest == "page", "{csv}");
    let slowest = ["page", "bast", "fast", "faster"]
        .iter()
        .max_by(|a, b| aged(a).0.total_cmp(&aged(b).0))
        .unwrap();
    assert_eq!(common::holds(&claims, "A4"), *slowest == "bast", "{csv}");
    assert_eq!(common::holds(&claims, "A7"), (bast_gc - 0.86).abs() <= 0.10);
    // The aged-write sweep covers every FTL at every over-provisioning and aging.
    let sweep = std::fs::read_to_string(out.join("sensitivity_aged_write.csv")).unwrap();
    assert_eq!(sweep.lines().count(), 1 + 5 * 4 * 4, "{sweep}");
}
