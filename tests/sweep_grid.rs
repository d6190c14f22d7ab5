//! Grid files: expansion (product, zip, repetitions, trace globs), keys, and refusal of
//! bad grids before any cell runs, naming the axis.

mod common;

use ssdlab::sweep::{Grid, Plan};
use std::path::Path;

/// The grid, or its refusal as the CLI prints it.
fn grid(text: &str, dir: &Path) -> Result<Grid, String> {
    Grid::from_table(toml::from_str(text).unwrap(), "test grid", dir).map_err(|e| e.to_string())
}

/// The plan of one cell at a time, or its refusal as the CLI prints it.
fn plan(g: Grid) -> Result<Plan, String> {
    Plan::new(g, 1).map_err(|e| e.to_string())
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
        let d = c.design.run().unwrap();
        assert_eq!(c.spec.config().unwrap(), d.config);
        assert_eq!(ssdlab::sweep::key::cell_key(&d.config), c.spec.key);
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
            .and_then(plan)
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
    .and_then(plan)
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

/// Two axes whose one pair is invalid: DFTL has no static wear leveling, so
/// (dftl, 100) is refused while each value alone, and every other pair, is valid.
const PAIR: &str = r#"
[[axis]]
key = "ftl.name"
values = ["page", "dftl"]
[[axis]]
key = "ftl.static_wl_threshold"
values = [0, 100]
"#;

#[test]
fn exclude_drops_the_invalid_pair_before_validation() {
    // Without the rule the grid is refused whole, naming cell 4 and its values.
    let e = grid(&format!("{BASE}\n{PAIR}"), Path::new(""))
        .and_then(plan)
        .unwrap_err();
    assert!(
        e.contains("cell 4 (ftl.name=dftl, ftl.static_wl_threshold=100)"),
        "{e}"
    );
    let g = grid(
        &format!(
            "repeat = 2\nexclude = [{{ \"ftl.name\" = \"dftl\", \"ftl.static_wl_threshold\" = 100 }}]\n{BASE}\n{PAIR}"
        ),
        Path::new(""),
    )
    .unwrap();
    let plan = Plan::new(g, 1).unwrap();
    // 4 combinations × 2 repetitions, one combination (2 cells) dropped.
    assert_eq!(plan.cells.len(), 6);
    assert_eq!(plan.excluded, 2);
    assert_eq!(plan.rules.len(), 1);
    assert_eq!(plan.rules[0].cells, 2);
    assert!(
        plan.rules[0].text.starts_with("exclude rule 1 {"),
        "{:?}",
        plan.rules
    );
    // Cells are numbered 1.. in order, with no gap where the excluded ones were.
    let idx: Vec<usize> = plan.cells.iter().map(|c| c.index).collect();
    assert_eq!(idx, vec![0, 1, 2, 3, 4, 5]);
    assert!(
        plan.cells
            .iter()
            .all(|c| !(c.values[0].as_str() == Some("dftl")
                && c.values[1].as_integer() == Some(100)))
    );
}

#[test]
fn where_keeps_only_matching_cells_and_lists_match_any_value() {
    // where: only cells matching a rule; a list in a rule means any of its values.
    let g = grid(
        &format!(
            "where = [{{ \"ftl.name\" = \"page\" }}, {{ \"ftl.static_wl_threshold\" = [0] }}]\n{BASE}\n{PAIR}"
        ),
        Path::new(""),
    )
    .unwrap();
    let plan = Plan::new(g, 1).unwrap();
    let cells: Vec<(String, i64)> = plan
        .cells
        .iter()
        .map(|c| {
            (
                c.values[0].as_str().unwrap().to_string(),
                c.values[1].as_integer().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        cells,
        vec![("page".into(), 0), ("page".into(), 100), ("dftl".into(), 0)]
    );
    assert_eq!(plan.excluded, 1);
    assert_eq!(
        plan.rules.iter().map(|r| r.cells).collect::<Vec<_>>(),
        vec![2, 2]
    );
    // Sizes match however they are written: "64MiB" names the value 64MiB.
    let g = grid(
        &format!(
            "exclude = [{{ \"device.capacity\" = [\"64MiB\"] }}]\n{BASE}\n[[axis]]\nkey = \"device.capacity\"\nvalues = [\"64MiB\", \"128MiB\"]\n"
        ),
        Path::new(""),
    )
    .unwrap();
    assert_eq!(Plan::new(g, 1).unwrap().cells.len(), 1);
}

#[test]
fn a_rule_that_matches_nothing_is_refused_naming_it() {
    for (rules, words) in [
        // Not an axis (a typo of the key).
        (
            "exclude = [{ \"ftl.nam\" = \"dftl\" }]",
            &["exclude rule 1", "`ftl.nam` is not an axis", "ftl.name"][..],
        ),
        // Not one of the axis's values (a typo of the value).
        (
            "exclude = [{ \"ftl.name\" = \"dtfl\" }]",
            &[
                "exclude rule 1",
                "\"dtfl\" is not a value of axis `ftl.name`",
            ][..],
        ),
        // Empty.
        ("where = [{}]", &["where rule 1", "empty"][..]),
    ] {
        let e = grid(&format!("{rules}\n{BASE}\n{PAIR}"), Path::new(""))
            .and_then(plan)
            .unwrap_err();
        for w in words {
            assert!(e.contains(w), "{rules}: error lacks {w:?}:\n{e}");
        }
    }
    // Values of zipped axes that never meet: no cell has both.
    let e = grid(
        &format!(
            "exclude = [{{ \"ftl.name\" = \"page\" }}, {{ \"ftl.name\" = \"page\", \"ftl.static_wl_threshold\" = 100 }}]\n{BASE}\n{}",
            PAIR.replace("values = [0, 100]", "values = [0, 100]\ngroup = \"z\"")
                .replace("values = [\"page\", \"dftl\"]", "values = [\"page\", \"dftl\"]\ngroup = \"z\"")
        ),
        Path::new(""),
    )
    .and_then(plan)
    .unwrap_err();
    assert!(
        e.contains(
            "exclude rule 2 { ftl.name = \"page\", ftl.static_wl_threshold = 100 }: matches no cell"
        ),
        "{e}"
    );
    assert!(!e.contains("exclude rule 1"), "{e}");
    // Rules that leave nothing are refused too.
    let e = grid(
        &format!("exclude = [{{ \"ftl.name\" = [\"page\", \"dftl\"] }}]\n{BASE}\n{PAIR}"),
        Path::new(""),
    )
    .and_then(plan)
    .unwrap_err();
    assert!(e.contains("leave no cell"), "{e}");
}

#[test]
fn refusals_name_each_cell_by_its_place_in_the_grid() {
    // Cells 1 and 3 are refused, cell 2 is valid: each refusal names its own cell
    // (counting the refused ones; the old count of accepted cells said 1 and 2).
    let e = grid(
        &format!(
            "{BASE}\n[[axis]]\nkey = \"device.capacity\"\nvalues = [\"1000B\", \"64MiB\", \"2000B\"]\n"
        ),
        Path::new(""),
    )
    .and_then(plan)
    .unwrap_err();
    assert!(e.contains("cell 1 (device.capacity=1000B)"), "{e}");
    assert!(e.contains("cell 3 (device.capacity=2000B)"), "{e}");
    assert!(!e.contains("cell 2 "), "{e}");
    // After an exclusion, the numbers are those of the remaining cells (the rows of
    // the results and of --dry-run).
    let e = grid(
        &format!(
            "exclude = [{{ \"device.capacity\" = \"1000B\" }}]\n{BASE}\n[[axis]]\nkey = \"device.capacity\"\nvalues = [\"1000B\", \"64MiB\", \"2000B\"]\n"
        ),
        Path::new(""),
    )
    .and_then(plan)
    .unwrap_err();
    assert!(e.contains("cell 2 (device.capacity=2000B)"), "{e}");
}

#[test]
fn dry_run_says_what_each_rule_excluded() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.toml");
    std::fs::write(
        &g,
        format!(
            "exclude = [{{ \"ftl.name\" = \"dftl\", \"ftl.static_wl_threshold\" = 100 }}]\n{BASE}\n{PAIR}"
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = common::ssdlab(&[
        "sweep",
        g.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--dry-run",
    ]);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains(
            "exclude rule 1 { ftl.name = \"dftl\", ftl.static_wl_threshold = 100 }: 1 cells excluded"
        ),
        "{err}"
    );
    assert!(err.contains("1 cells excluded in all, 3 left"), "{err}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(stdout.lines().count(), 4, "{stdout}");
}
