//! `reproduce --out DIR` twice: the second run finds every cell of the grid-run
//! experiments in their stores (OUT/cells/EXP-…/store.jsonl) and reruns none, and its
//! claims.csv is the first run's.
//!
//! Experiments listed here send all their simulator points through the sweep store;
//! one whose points ran in-process would have no store and fail the test.

mod common;

use std::path::Path;

fn run(out: &Path, experiments: &str) {
    let o = common::ssdlab(&[
        "reproduce",
        "--all",
        "--quick",
        "--experiment",
        experiments,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
}

fn store(out: &Path, exp: &str) -> String {
    std::fs::read_to_string(out.join("cells").join(exp).join("store.jsonl"))
        .unwrap_or_else(|e| panic!("{exp} has no store: {e}"))
}

#[test]
fn a_second_run_reuses_every_stored_cell() {
    // EXP-M12 keeps its fresh and aged cells in two stores; EXP-H2 keeps hybrid cells
    // (docs/sweep.md, "Hybrid grids") and run cells in one store.
    let experiments = ["EXP-M7", "EXP-M8", "EXP-M11", "EXP-M12", "EXP-H2"];
    let stores = [
        "EXP-M7",
        "EXP-M8",
        "EXP-M11",
        "EXP-M12",
        "EXP-M12-fresh",
        "EXP-H2",
    ];
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("claims");
    let list = experiments.join(",");
    run(&out, &list);
    let first: Vec<String> = stores.iter().map(|e| store(&out, e)).collect();
    let claims = std::fs::read_to_string(out.join("claims.csv")).unwrap();
    for (e, s) in stores.iter().zip(&first) {
        assert!(s.lines().count() > 0, "{e}: an empty store");
    }
    run(&out, &list);
    for (e, s) in stores.iter().zip(&first) {
        assert_eq!(&store(&out, e), s, "{e}: the second run reran cells");
    }
    assert_eq!(
        std::fs::read_to_string(out.join("claims.csv")).unwrap(),
        claims
    );
}
