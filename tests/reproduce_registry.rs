//! `ssdlab reproduce --all`: every row of the built-in claims registry gets one row of
//! claims.csv with a label, and the deterministic experiments' verdicts are those the
//! simulator's own numbers give (checked here against hand-computed values).

mod common;

use std::collections::BTreeMap;

fn claims(dir: &std::path::Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut rd = csv::Reader::from_path(dir.join("claims.csv")).unwrap();
    let header: Vec<String> = rd.headers().unwrap().iter().map(String::from).collect();
    rd.records()
        .map(|r| {
            let r = r.unwrap();
            let row: BTreeMap<String, String> = header
                .iter()
                .cloned()
                .zip(r.iter().map(String::from))
                .collect();
            (row["id"].clone(), row)
        })
        .collect()
}

/// The `[[claim]]` tables of registry file `name`.
fn registry_claims(name: &str) -> usize {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("registry")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines().filter(|l| l.trim() == "[[claim]]").count()
}

#[test]
fn reproduce_all_writes_one_row_per_registry_claim() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("claims");
    let o = common::ssdlab(&[
        "reproduce",
        "--all",
        "--quick",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let rows = claims(&out);
    // Both registries carried in the binary: the seed papers' 130 rows and the
    // placement registry's, each counted from its file.
    let (seed, placement) = (
        registry_claims("claims.toml"),
        registry_claims("placement.toml"),
    );
    assert_eq!((seed, placement), (130, 13));
    assert_eq!(rows.len(), seed + placement, "one row per registry id");
    assert!(rows.contains_key("F8") && rows.contains_key("Z5"));
    let labels = [
        "robust",
        "conditional",
        "fails",
        "unresolved",
        "not evaluable",
    ];
    for (id, r) in &rows {
        assert!(
            labels.contains(&r["label"].as_str()),
            "{id}: {}",
            r["label"]
        );
        if r["label"] == "not evaluable" {
            assert!(!r["why"].is_empty(), "{id} says why it is not evaluable");
            // Points that could run are reported for information only.
            assert!(
                r["points_evaluated"] == "0" || r["why"].contains("points.csv"),
                "{id}"
            );
        } else {
            assert_ne!(r["points_evaluated"], "0", "{id}");
        }
    }
    // Hand-computed: 10201 × 512 B = 5,222,912 B = block 4, page 251.
    assert_eq!(rows["M33"]["label"], "robust");
    // A list searched from the front: the mean over n records is (n + 1) / 2.
    assert_eq!(rows["H5"]["label"], "robust");
    assert!(rows["H5"]["measured"].contains("50000.5"));
    // The Fig. 10 re-read is pure search at t_io = 0 (ratio exactly 3, outside
    // [1.75, 2.92]) and holds only where t_io > 0.
    assert_eq!(rows["H7"]["label"], "conditional");
    assert!(rows["H7"]["why"].contains("t_io_us ∈ {150, 300}"));
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("quick run"), "a quick run says so");
    let points = std::fs::read_to_string(out.join("points.csv")).unwrap();
    assert!(
        points
            .lines()
            .any(|l| l.starts_with("H7,") && l.contains("t_io_us=0"))
    );
    // Isolating experiments: every id with rows in isolation.csv is a row that misses
    // and whose cause cites the file; these rows, when they miss, always have rows.
    let mut iso = csv::Reader::from_path(out.join("isolation.csv")).unwrap();
    let iso_ids: std::collections::BTreeSet<String> =
        iso.records().map(|r| r.unwrap()[0].to_string()).collect();
    for id in &iso_ids {
        assert_ne!(rows[id]["label"], "robust", "{id}");
        assert!(rows[id]["why"].contains("(isolation.csv)"), "{id}");
    }
    for id in [
        "M11", "M20", "M25", "M34", "M36", "M56", "N12", "N16", "C1", "C2", "C5", "C6", "C7", "C8",
        "C12", "C13", "C14", "A12", "H6",
    ] {
        if rows[id]["label"] != "robust" && rows[id]["label"] != "not evaluable" {
            assert!(
                iso_ids.contains(id),
                "{id} misses but isolation.csv has no rows"
            );
        }
    }
}

#[test]
fn reproduce_all_refuses_an_unknown_paper_and_a_missing_out() {
    let o = common::ssdlab(&["reproduce", "--all", "--paper", "X", "--out", "/tmp/x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("--paper"),
        "{}",
        common::stderr(&o)
    );
    let o = common::ssdlab(&["reproduce", "--all"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("--out"),
        "{}",
        common::stderr(&o)
    );
    let o = common::ssdlab(&["reproduce", "cftl", "--all", "--out", "/tmp/x"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_paper_filter_writes_only_that_papers_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("c");
    let o = common::ssdlab(&[
        "reproduce",
        "--all",
        "--paper",
        "C",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let rows = claims(&out);
    assert_eq!(rows.len(), 18);
    assert!(rows.keys().all(|k| k.starts_with('C')));
    // The plain hash node: (tag 4 B + next 4 B) / address 4 B = 2.0, inside [1.9, 2.1].
    assert_eq!(rows["C9"]["label"], "robust");
    // experiments.md records each experiment that ran, with its defaults and sources,
    // and no other.
    let designs = std::fs::read_to_string(out.join("experiments.md")).unwrap();
    for id in ["EXP-C1", "EXP-C2", "EXP-C3"] {
        assert!(designs.contains(&format!("## {id}\n")), "{id}");
    }
    assert!(!designs.contains("## EXP-M1\n"));
    assert!(designs.contains("```text"), "the drawings come through");

    // The paper's name is the same selection, and gives the same table.
    let named = tmp.path().join("named");
    let o = common::ssdlab(&["reproduce", "cftl", "--out", named.to_str().unwrap()]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_eq!(
        std::fs::read_to_string(named.join("claims.csv")).unwrap(),
        std::fs::read_to_string(out.join("claims.csv")).unwrap()
    );
}

#[test]
fn reproduce_list_names_every_paper_and_experiment_and_a_bare_call_is_refused() {
    let o = common::ssdlab(&["reproduce", "--list"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    for name in [
        "mgmt-block",
        "ncq-buffer",
        "cftl",
        "android-ftl",
        "hdd-cache",
        "fdp",
        "zns",
    ] {
        assert!(text.contains(name), "{name}");
    }
    // 26 seed experiments and the placement registry's EXP-F1–F3 and EXP-Z1.
    assert_eq!(text.matches("  EXP-").count(), 30, "{text}");
    assert!(text.contains("  EXP-Z1 "), "{text}");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("none");
    let o = common::ssdlab(&["reproduce", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("--all"),
        "{}",
        common::stderr(&o)
    );
    assert!(!out.exists());
}

#[test]
fn the_placement_papers_select_only_the_placement_registry_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("fz");
    let o = common::ssdlab(&[
        "reproduce",
        "--paper",
        "F,Z",
        "--quick",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let rows = claims(&out);
    let ids: Vec<&str> = rows.keys().map(|k| k.as_str()).collect();
    assert_eq!(
        ids,
        [
            "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "Z1", "Z2", "Z3", "Z4", "Z5"
        ]
    );
    for (id, r) in &rows {
        assert_ne!(r["label"], "not evaluable", "{id}: {}", r["why"]);
        assert_ne!(r["points_evaluated"], "0", "{id}");
    }
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("and the placement registry (v1, 2026-11-28)"),
        "{summary}"
    );
    // The crossover's isolating output: WAF of both isolation types at each level.
    let iso = std::fs::read_to_string(out.join("isolation.csv")).unwrap();
    assert!(
        iso.lines()
            .any(|l| l.starts_with("F8,op_percent_actual=") && l.contains("initially isolated")),
        "{iso}"
    );
    // One experiment by id, and the paper's name.
    let f3 = tmp.path().join("f3");
    let o = common::ssdlab(&[
        "reproduce",
        "--experiment",
        "EXP-F3",
        "--quick",
        "--out",
        f3.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let one = claims(&f3);
    assert_eq!(one.keys().collect::<Vec<_>>(), ["F8"]);
    assert_eq!(one["F8"]["measured"], rows["F8"]["measured"]);
}

#[test]
fn an_experiment_filter_writes_only_its_rows_and_refuses_unknown_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("m5");
    let o = common::ssdlab(&[
        "reproduce",
        "--all",
        "--experiment",
        "EXP-M5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let rows = claims(&out);
    assert_eq!(rows.keys().collect::<Vec<_>>(), ["M33", "M34"]);
    let bad = tmp.path().join("bad");
    let o = common::ssdlab(&[
        "reproduce",
        "--all",
        "--experiment",
        "EXP-M99",
        "--out",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(common::stderr(&o).contains("EXP-M99"));
    assert!(!bad.exists(), "nothing written");
}

#[test]
fn exp_m6_probe_cells_resume_from_their_store() {
    // EXP-M6's probe runs are sweep cells: a second run into the same --out finds every
    // one in OUT/cells/EXP-M6/store.jsonl and runs none again (the store only grows by
    // the records of cells that ran), and judges the same.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("m6");
    let run = || {
        let o = common::ssdlab(&[
            "reproduce",
            "--all",
            "--quick",
            "--experiment",
            "EXP-M6",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", common::stderr(&o));
        claims(&out)
    };
    let store = out.join("cells").join("EXP-M6").join("store.jsonl");
    let lines = || std::fs::read_to_string(&store).unwrap().lines().count();
    let first = run();
    let cells = lines();
    // --quick: A (3 write sizes) and its 2 controls, A's twin (1), B (3 sizes) × 2 log
    // sizes × 3 superblocks, B's twin (1), C (4 sizes) and its control, each at 2 steps
    // × 2 states.
    assert_eq!(cells, 4 * (3 + 2 * 3 + 1 + 2 * 3 * 3 + 1 + 4 + 4));
    assert_eq!(run(), first);
    assert_eq!(lines(), cells, "no cell ran again");
}
