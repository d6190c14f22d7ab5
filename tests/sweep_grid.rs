//! Grid files: expansion (product, zip, repetitions, trace globs), keys, and refusal of
//! bad grids before any cell runs, naming the axis.

mod common;

use ssdlab::sweep::{Grid, Plan};
use std::path::Path;

fn grid(text: &str, dir: &Path) -> Result<Grid, String> {
    Grid::from_table(toml::from_str(text).unwrap(), "test grid", dir)
}

const BASE: &str = r#"
[base]
workload = "random-write"
set = { "device.capacity" = "64MiB", "workload.requests" = 200 }
"#;

/// [`BASE`] for trace axes: no generator (its settings are refused next to a trace), the
/// request count caps the replay.
const TRACE_BASE: &str = r#"
[base]
set = { "device.capacity" = "64MiB", "workload.requests" = 200 }
"#;

#[test]
fn product_zip_and_repeat_expand_in_order() {
    let g = grid(
        &format!(
            r#"repeat = 2
{BASE}
[[axis]]
key = "ftl.name"
values = ["page", "dftl"]
[[axis]]
key = "device.op_percent"
values = [7, 28]
group = "z"
[[axis]]
key = "host.qd"
values = [1, 32]
group = "z"
"#
        ),
        Path::new(""),
    )
    .unwrap();
    // ftl (2) x zipped (op, qd) (2) = 4 combinations, first axis slowest.
    assert_eq!(
        g.combinations(),
        vec![vec![0, 0, 0], vec![0, 1, 1], vec![1, 0, 0], vec![1, 1, 1]]
    );
    let plan = Plan::new(g, 2).unwrap();
    assert_eq!(plan.cells.len(), 8);
    // Repetitions run with seed, seed + 1 and get their own keys.
    assert_eq!((plan.cells[0].seed, plan.cells[1].seed), (1, 2));
    assert_eq!(plan.keys().len(), 8);
    // The spec rebuilds the very configuration the cell validated.
    for c in &plan.cells {
        assert_eq!(c.spec.config().unwrap(), c.design.config);
        assert_eq!(ssdlab::sweep::key::cell_key(&c.design.config), c.spec.key);
    }
}

#[test]
fn mode_zip_zips_every_axis() {
    let g = grid(
        &format!(
            "mode = \"zip\"\n{BASE}\n[[axis]]\nkey = \"ftl.name\"\nvalues = [\"page\", \"dftl\", \"page\"]\n[[axis]]\nkey = \"seed\"\nvalues = [3, 4, 5]\n"
        ),
        Path::new(""),
    )
    .unwrap();
    assert_eq!(g.combinations(), vec![vec![0, 0], vec![1, 1], vec![2, 2]]);
    let plan = Plan::new(g, 1).unwrap();
    let seeds: Vec<u64> = plan.cells.iter().map(|c| c.seed).collect();
    assert_eq!(seeds, vec![3, 4, 5]);
}

#[test]
fn keys_follow_the_design_not_the_spelling() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.csv"), "0,0,W,0,4096\n").unwrap();
    let text = format!(
        "{TRACE_BASE}\n[[axis]]\nkey = \"trace\"\nvalues = [\"t.csv\"]\n[[axis]]\nkey = \"seed\"\nvalues = [1, 1, 2]\n"
    );
    let a = Plan::new(grid(&text, dir.path()).unwrap(), 1).unwrap();
    let b = Plan::new(grid(&text, &dir.path().join(".")).unwrap(), 1).unwrap();
    let ka: Vec<&str> = a.cells.iter().map(|c| c.spec.key.as_str()).collect();
    let kb: Vec<&str> = b.cells.iter().map(|c| c.spec.key.as_str()).collect();
    assert_eq!(ka, kb, "the trace path's spelling changed the keys");
    assert_eq!(ka[0], ka[1], "same design, same key");
    assert_ne!(ka[1], ka[2], "another seed, another key");
    assert_eq!(a.keys().len(), 2);
    // An edited trace is another input: another key.
    std::fs::write(dir.path().join("t.csv"), "0,0,W,0,8192\n").unwrap();
    let c = Plan::new(grid(&text, dir.path()).unwrap(), 1).unwrap();
    assert_ne!(c.cells[0].spec.key, ka[0]);
}

#[test]
fn trace_globs_expand_sorted_relative_to_the_grid() {
    let dir = tempfile::tempdir().unwrap();
    for n in ["b.csv", "a.csv", "c.txt"] {
        std::fs::write(dir.path().join(n), "0,0,W,0,4096\n").unwrap();
    }
    let g = grid(
        &format!("{TRACE_BASE}\n[[axis]]\nkey = \"trace\"\nvalues = [\"*.csv\"]\n"),
        dir.path(),
    )
    .unwrap();
    let v: Vec<&str> = g.axes[0]
        .values
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(v, vec!["a.csv", "b.csv"]);
}

/// (grid body after BASE, words the error must contain)
const BAD: &[(&str, &[&str])] = &[
    (
        "[[axis]]\nkey = \"ftl.nam\"\nvalues = [\"page\"]\n",
        &["axis `ftl.nam`", "nam"],
    ),
    (
        "[[axis]]\nkey = \"ftl.gc\"\nvalues = [\"greedy\", \"bogus\"]\n",
        &["axis `ftl.gc` value \"bogus\"", "greedy"],
    ),
    (
        "[[axis]]\nkey = \"workload\"\nvalues = [\"random-write\", \"nosuch\"]\n",
        &["axis `workload` value \"nosuch\""],
    ),
    (
        "[[axis]]\nkey = \"device.op_percent\"\nvalues = [7, -5]\n",
        &["axis `device.op_percent`", "-5"],
    ),
    (
        "[[axis]]\nkey = \"host.qd\"\nvalues = [1, 100000]\n",
        &["axis `host.qd`", "100000"],
    ),
    (
        "[[axis]]\nkey = \"trace\"\nvalues = [\"no-such-dir/*.csv\"]\n",
        &["axis `trace`", "matches no file"],
    ),
    (
        "[[axis]]\nkey = \"seed\"\nvalues = [-1]\n",
        &["axis 1 (`seed`)", "non-negative"],
    ),
    (
        "[[axis]]\nkey = \"ftl.name\"\nvalues = [\"page\"]\ngroup = \"g\"\n[[axis]]\nkey = \"seed\"\nvalues = [1, 2]\ngroup = \"g\"\n",
        &["`ftl.name`", "`seed`", "zipped"],
    ),
    (
        "[[axis]]\nkey = \"ftl.name\"\nvalues = []\n",
        &["axis 1 (`ftl.name`)", "at least one value"],
    ),
    ("[[axis]]\nkye = \"ftl.name\"\nvalues = [1]\n", &["kye"]),
];

#[test]
fn bad_grids_are_refused_naming_the_axis() {
    for (body, words) in BAD {
        let e = grid(&format!("{BASE}\n{body}"), Path::new(""))
            .and_then(|g| Plan::new(g, 1))
            .expect_err(body);
        for w in *words {
            assert!(e.contains(w), "grid\n{body}\nerror lacks {w:?}:\n{e}");
        }
    }
}

#[test]
fn a_bad_combination_names_the_cell_and_its_axis() {
    // Each value parses alone; only a whole cell's design fails validation.
    let e = grid(
        &format!("{BASE}\n[[axis]]\nkey = \"device.capacity\"\nvalues = [\"64MiB\", \"1000B\"]\n"),
        Path::new(""),
    )
    .and_then(|g| Plan::new(g, 1))
    .unwrap_err();
    assert!(
        e.contains("cell 2 (device.capacity=1000B): axis `device.capacity`"),
        "{e}"
    );
    assert!(e.contains("refused before any cell ran"), "{e}");
}

#[test]
fn the_cli_refuses_a_bad_grid_with_exit_2_before_any_cell_runs() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.toml");
    std::fs::write(
        &g,
        format!(
            "{BASE}\n[[axis]]\nkey = \"ftl.name\"\nvalues = [\"page\"]\n[[axis]]\nkey = \"ftl.gc\"\nvalues = [\"greedy\", \"bogus\"]\n"
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = common::ssdlab(&["sweep", g.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("axis `ftl.gc`"),
        "{}",
        common::stderr(&o)
    );
    assert!(!out.exists(), "a refused grid created its output directory");
}
