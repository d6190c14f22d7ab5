//! Issue 30's "wrong numbers without an error" and "unbounded work" cases, one test per
//! case, named after it: each failed on main 548a3e2 (wrong exit code, a wrapped number
//! or unbounded work) and is refused or computed exactly now.

use std::fs;

mod common;
use common::{ssdlab, stderr, stdout};

/// A short run: 200 requests on a small drive.
fn quick(extra: &[&str]) -> std::process::Output {
    common::quick_run("200", extra)
}

#[test]
fn seed_above_i64_max_is_a_valid_u64_seed() {
    let o = quick(&["--seed", "9223372036854775808"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = quick(&["--seed", "18446744073709551615", "--json", "-"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("18446744073709551615"),
        "the seed is reported as given"
    );
    let o = ssdlab(&["config", "--seed", "18446744073709551615"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("seed = \"18446744073709551615\""),
        "{}",
        stdout(&o)
    );
}

#[test]
fn requests_of_2_pow_64_are_refused_not_read_as_minus_one() {
    let o = quick(&["--requests", "18446744073709551616"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("--requests") && !e.contains("-1"), "{e}");
}

#[test]
fn a_negative_seed_in_a_config_names_the_key_and_the_range() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c.toml");
    fs::write(&c, "seed = -3\n").unwrap();
    let o = quick(&["--config", c.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("seed") && e.contains("-3") && e.contains("whole number"),
        "{e}"
    );
}

#[test]
fn a_trace_gap_divided_by_a_tiny_speedup_is_a_time_overflow_error() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.ascii");
    // Two writes one second apart; at --speedup 1e-12 the gap is 1e21 ns.
    fs::write(&t, "0 0 0 8 0\n1000000000 0 8 8 0\n").unwrap();
    let o = ssdlab(&[
        "run",
        "--capacity",
        "256MiB",
        "--trace",
        t.to_str().unwrap(),
        "--format",
        "ascii",
        "--speedup",
        "1e-12",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("request 2") && e.contains("speed"), "{e}");
}

#[test]
fn a_time_stamp_of_2_pow_64_minus_1_is_a_time_overflow_error() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.ascii");
    fs::write(&t, "0 0 0 8 0\n18446744073709551615 0 8 8 0\n").unwrap();
    let o = ssdlab(&[
        "run",
        "--capacity",
        "256MiB",
        "--trace",
        t.to_str().unwrap(),
        "--format",
        "ascii",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("request 2"), "{}", stderr(&o));
}

#[test]
fn a_mean_gap_of_i64_max_is_a_time_overflow_error() {
    let o = quick(&["--mean-gap-ns", "9223372036854775807"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("mean_gap_ns"), "{}", stderr(&o));
}

#[test]
fn sweep_jobs_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.toml");
    fs::write(
        &g,
        "[base]\nworkload = \"random-write\"\n[base.set]\n\"device.capacity\" = \"256MiB\"\n\"workload.requests\" = 100\n[[axis]]\nkey = \"seed\"\nvalues = [1, 2]\n",
    )
    .unwrap();
    let out = dir.path().join("r");
    let o = ssdlab(&[
        "sweep",
        g.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "100000",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--jobs 100000"), "{}", stderr(&o));
    assert!(!out.exists());
}

#[test]
fn a_grid_of_four_100_value_axes_is_counted_and_refused_before_it_is_built() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.toml");
    let values: Vec<String> = (1..=100).map(|i| i.to_string()).collect();
    let v = values.join(", ");
    let mut text = String::from("[base]\nworkload = \"random-write\"\n");
    for key in [
        "seed",
        "workload.requests",
        "host.qd",
        "ftl.gc_low_free_blocks",
    ] {
        text += &format!("[[axis]]\nkey = \"{key}\"\nvalues = [{v}]\n");
    }
    fs::write(&g, text).unwrap();
    let o = ssdlab(&[
        "sweep",
        g.to_str().unwrap(),
        "--out",
        dir.path().join("r").to_str().unwrap(),
        "--dry-run",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("100000000 cells"), "{}", stderr(&o));
}

#[test]
fn crashtest_cuts_are_bounded() {
    let o = ssdlab(&["crashtest", "--cuts", "1000000000000"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--cuts 1000000000000"),
        "{}",
        stderr(&o)
    );
}

/// Issue 31: refusals named the wrong cell (`index = cells.len()` skipped refused
/// cells: two refused repetitions were both "cell 1").
#[test]
fn grid_refusals_name_their_own_cells() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.toml");
    fs::write(
        &g,
        "repeat = 2\n[base]\nworkload = \"random-write\"\n[base.set]\n\"device.capacity\" = \"2GiB\"\n[[axis]]\nkey = \"ftl.name\"\nvalues = [\"dftl\", \"page\"]\n[[axis]]\nkey = \"ftl.gc\"\nvalues = [\"fifo\", \"greedy\"]\n",
    )
    .unwrap();
    let o = ssdlab(&[
        "sweep",
        g.to_str().unwrap(),
        "--out",
        dir.path().join("r").to_str().unwrap(),
        "--dry-run",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("cell 1 (ftl.name=dftl, ftl.gc=fifo, rep=0)"),
        "{e}"
    );
    assert!(
        e.contains("cell 2 (ftl.name=dftl, ftl.gc=fifo, rep=1)"),
        "{e}"
    );
}

/// Issue 30: `--op 7 --ftl dftl --gc fifo --workload seq-write` was refused by a bound
/// derived for random writes; random writes are still refused, naming why.
#[test]
fn dftl_with_fifo_runs_sequential_workloads_and_refuses_random_ones() {
    let base = [
        "run",
        "--capacity",
        "2GiB",
        "--op",
        "7",
        "--ftl",
        "dftl",
        "--gc",
        "fifo",
        "--requests",
        "2000",
    ];
    let mut a = base.to_vec();
    a.extend(["--workload", "seq-write"]);
    let o = ssdlab(&a);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut a = base.to_vec();
    a.extend(["--workload", "random-write"]);
    let o = ssdlab(&a);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("random writes"), "{}", stderr(&o));
}
