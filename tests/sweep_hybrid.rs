//! Hybrid grids (`base.kind = "hybrid"`): cells of `ssdlab hybrid` through the sweep
//! engine — run, tabulated per run (`cold_…`, `warm_…`), resumed without re-running a
//! cell, rebuilt from their spec as a Ray worker does, and refused before any cell runs
//! when a key or value is bad, naming it.

mod common;

use common::{refused, ssdlab, stderr};
use ssdlab::sweep::{CellKind, Grid, Plan, Sweep};
use std::path::Path;

/// Two cells: the HDD alone and behind a 2 GiB cache, a 20 MB read mix read twice.
const GRID: &str = r#"
[base]
kind = "hybrid"
workload = "read-mix"
set = { "read_mix.volume" = 20000000, "workload.idle_ns" = 3600000000000, "cache.write_policy" = "write-around" }

[[axis]]
key = "cache.size"
values = [0, "2GiB"]
"#;

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn sweep(grid: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut a = vec![
        "sweep",
        grid.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    a.extend(extra);
    ssdlab(&a)
}

#[test]
fn a_two_cell_hybrid_grid_runs_tabulates_each_run_and_resumes_without_rerunning() {
    let tmp = tempfile::tempdir().unwrap();
    let grid = write(tmp.path(), "grid.toml", GRID);
    let out = tmp.path().join("out");
    let html = tmp.path().join("html");
    let o = sweep(&grid, &out, &["--html", html.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let store = std::fs::read_to_string(out.join("store.jsonl")).unwrap();
    assert_eq!(store.lines().count(), 2, "{store}");

    let mut r = csv::Reader::from_path(out.join("results.csv")).unwrap();
    let cols: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let col = |name: &str| {
        cols.iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("no column {name} in {cols:?}"))
    };
    for wall in ["cold_lookup_wall_ns_mean", "warm_cache_lookup_wall_ns"] {
        assert!(!cols.iter().any(|c| c == wall), "{wall} is wall clock");
    }
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2);
    let f = |row: &csv::StringRecord, name: &str| row[col(name)].parse::<f64>().unwrap();
    let (alone, cached) = (&rows[0], &rows[1]);
    assert_eq!(&alone[col("status")], "ok");
    assert_eq!(&alone[col("cache.size")], "0");
    // The HDD alone: both runs on the disk (its own cache is too small for 20 MB).
    assert_eq!(f(alone, "warm_hit_ratio"), 0.0);
    assert!(f(alone, "warm_hdd_requests") > 0.0);
    // Behind the cache the warm run is all flash hits, and faster.
    assert_eq!(f(cached, "warm_hit_ratio"), 1.0);
    assert_eq!(f(cached, "warm_cache_miss_units"), 0.0);
    assert_eq!(f(cached, "warm_hdd_requests"), 0.0);
    assert!(f(cached, "cold_cache_fill_units") > 0.0);
    assert!(f(cached, "warm_elapsed_s") < f(alone, "warm_elapsed_s") / 2.0);
    let page = std::fs::read_to_string(html.join("index.html")).unwrap();
    assert!(page.contains("Warm run"), "the page charts the warm run");

    // Again into the same directory: every cell is found, none runs.
    let csv = std::fs::read(out.join("results.csv")).unwrap();
    let o = sweep(&grid, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("2 already done, 0 to run"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(out.join("store.jsonl")).unwrap(),
        store
    );
    assert_eq!(std::fs::read(out.join("results.csv")).unwrap(), csv);
}

/// What a Ray worker does with a hybrid cell: the spec alone (as JSON) rebuilds the
/// configuration, hashes to the driver's key and runs it to the record the local
/// backend stores.
#[test]
fn a_hybrid_cell_rebuilt_from_its_spec_gives_the_local_record() {
    let tmp = tempfile::tempdir().unwrap();
    let g = Grid::from_table(toml::from_str(GRID).unwrap(), "test grid", Path::new("")).unwrap();
    assert_eq!(g.kind, CellKind::Hybrid);
    let plan = Plan::new(g, 1).unwrap();
    let specs: Vec<String> = plan
        .cells
        .iter()
        .map(|c| serde_json::to_string(&c.spec).unwrap())
        .collect();
    assert!(specs[0].contains(r#""kind":"hybrid""#), "{}", specs[0]);
    let mut sweep = Sweep::open(plan, tmp.path()).unwrap();
    sweep.run_local(Some(1), false, false).unwrap();
    for s in &specs {
        let spec: ssdlab::sweep::CellSpec = serde_json::from_str(s).unwrap();
        let mut remote = ssdlab::sweep::run_spec(&spec);
        let mut local = sweep.store.get(&spec.key).unwrap().clone();
        assert_eq!(
            remote.status,
            ssdlab::sweep::Status::Ok,
            "{:?}",
            remote.error
        );
        for r in [&mut remote, &mut local] {
            let rep = r.report.as_mut().unwrap();
            common::strip_wall_clock(rep);
            // The table lookups' wall-clock times.
            for run in rep["runs"].as_array_mut().unwrap() {
                let m = run.as_object_mut().unwrap();
                m.remove("lookup_wall_ns_mean");
                m["cache"].as_object_mut().unwrap().remove("lookup_wall_ns");
            }
        }
        assert_eq!(remote, local);
    }
    // A run grid's specs carry no kind: they are what they were.
    let run_grid = Grid::from_table(
        toml::from_str(
            "[base]\nworkload = \"random-write\"\nset = { \"device.capacity\" = \"64MiB\", \"workload.requests\" = 10 }\n",
        )
        .unwrap(),
        "run grid",
        Path::new(""),
    )
    .unwrap();
    let plan = Plan::new(run_grid, 1).unwrap();
    let spec = serde_json::to_value(&plan.cells[0].spec).unwrap();
    assert!(spec.get("kind").is_none(), "{spec}");
}

#[test]
fn bad_hybrid_grids_are_refused_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let out_s = out.to_str().unwrap();
    for (name, text, names) in [
        (
            "kind.toml",
            "[base]\nkind = \"hybird\"\n",
            &["base.kind", "hybird", "\"hybrid\""][..],
        ),
        (
            "preset.toml",
            "[base]\nkind = \"hybrid\"\npreset = \"ssd-a\"\n",
            &["base.preset", "hdd.preset"][..],
        ),
        (
            "preset-axis.toml",
            "[base]\nkind = \"hybrid\"\n[[axis]]\nkey = \"preset\"\nvalues = [\"ssd-a\"]\n",
            &["axis 1 (`preset`)", "hdd.preset"][..],
        ),
        (
            "key.toml",
            "[base]\nkind = \"hybrid\"\n[[axis]]\nkey = \"cache.sise\"\nvalues = [1]\n",
            &["axis `cache.sise`", "sise"][..],
        ),
        (
            "value.toml",
            "[base]\nkind = \"hybrid\"\nworkload = \"read-mix\"\n[[axis]]\nkey = \"read_mix.small_share\"\nvalues = [0.5, 1.5]\n",
            &[
                "axis `read_mix.small_share` value \"1.5\"",
                "read_mix.small_share",
            ][..],
        ),
        (
            "unused.toml",
            "[base]\nkind = \"hybrid\"\nworkload = \"boot\"\nset = { \"read_mix.volume\" = 1000000 }\n",
            &["base design", "read_mix.volume", "read-mix"][..],
        ),
    ] {
        let g = write(tmp.path(), name, text);
        refused(&["sweep", g.to_str().unwrap(), "--out", out_s], names);
        assert!(!out.exists(), "{name}: the output directory was created");
    }
    // fio's shape is one device's job: refused before any cell runs.
    let g = write(tmp.path(), "grid.toml", GRID);
    refused(
        &[
            "sweep",
            g.to_str().unwrap(),
            "--out",
            out_s,
            "--json-format",
            "fio",
        ],
        &["--json-format fio", "hybrid"],
    );
}
