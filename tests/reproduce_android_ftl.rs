//! `ssdlab reproduce android-ftl --quick` writes its outputs: every claim's verdict is
//! the one its test gives on the data, and the aged run ages as the paper says
//! (docs/papers.md §4, docs/reproductions.md "Defaults").

mod common;

use std::collections::BTreeMap;

#[test]
fn android_ftl_reproduction_is_consistent_and_ages_as_the_paper_says() {
    let (_dir, out) = common::reproduce_quick(
        "android-ftl",
        &[
            "summary.md",
            "android_ftl.csv",
            "seq_read.svg",
            "seq_write_aged.svg",
            "random_write.svg",
            "random_read.svg",
            "checks.csv",
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
    let core = ["page", "bast", "fast", "faster"];
    // The summary sets the paper's numbers beside ours.
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for s in [
        "17%",
        "86%",
        "Mechanisms, from the counters",
        "## Parameters",
    ] {
        assert!(md.contains(s), "summary lacks {s}");
    }
    // Claims as data, each verdict the one its test gives on the data CSV (whatever the
    // verdict is: the registry judges the outcome, this test only the bookkeeping).
    let claims = common::check_claims(&out);
    let holds = |id: &str| common::holds(&claims, id);
    let spread = |test: &str| {
        let v: Vec<f64> = core.iter().map(|f| get(test, f).0).collect();
        v.iter().copied().fold(0.0, f64::max) / v.iter().copied().fold(f64::MAX, f64::min)
    };
    assert_eq!(holds("A1"), spread("seq_read") < 1.03);
    let aged = |f: &str| get("seq_write_aged", f);
    let by_time = |test: &str, max: bool| {
        let key = |f: &&&str| get(test, f).0;
        let v = core.iter();
        if max {
            *v.max_by(|a, b| key(a).total_cmp(&key(b))).unwrap()
        } else {
            *v.min_by(|a, b| key(a).total_cmp(&key(b))).unwrap()
        }
    };
    assert_eq!(
        holds("A2"),
        by_time("seq_write_aged", false) == "page",
        "{csv}"
    );
    let fp = aged("fast").0 / aged("page").0;
    assert_eq!(holds("A3"), (0.9..=1.1).contains(&fp), "{csv}");
    assert_eq!(
        holds("A4"),
        by_time("seq_write_aged", true) == "bast",
        "{csv}"
    );
    let mean_share = |test: &str| core.iter().map(|f| get(test, f).1).sum::<f64>() / 4.0;
    assert_eq!(
        holds("A6"),
        (mean_share("seq_write_aged") - 0.23).abs() <= 0.10
    );
    let (bast, bast_gc) = get("random_write", "bast");
    assert_eq!(holds("A7"), (bast_gc - 0.86).abs() <= 0.10);
    let in_band = |f: &str| (0.085..=0.34).contains(&(get("random_write", f).0 / bast));
    assert_eq!(holds("A8"), in_band("fast") && in_band("faster"));
    assert_eq!(holds("A11"), by_time("random_write", false) == "page");
    // The aged run ages the way the paper says, fixed before any run: random writes over
    // the whole area, once (not the 25% under which A3, A4 and A6 held). Its sequential
    // write is the sweep's point for that aging at the preset's 7% over-provisioning.
    let mut p = csv::Reader::from_path(out.join("parameters.csv")).unwrap();
    let aging = p
        .records()
        .map(Result::unwrap)
        .find(|r| &r[0] == "AGING")
        .unwrap();
    assert!(aging[1].contains("100% of the capacity"), "{aging:?}");
    let sweep = std::fs::read_to_string(out.join("sensitivity_aged_write.csv")).unwrap();
    for f in core {
        let row = sweep
            .lines()
            .find(|l| l.starts_with(&format!("random100,7,{f},")))
            .unwrap();
        let total: f64 = row.split(',').nth(3).unwrap().parse().unwrap();
        assert!((total - aged(f).0).abs() < 1e-3, "{f}: {row} vs {csv}");
    }
    // The aged-write sweep covers every FTL at every over-provisioning and aging.
    assert_eq!(sweep.lines().count(), 1 + 5 * 4 * 4, "{sweep}");
}
