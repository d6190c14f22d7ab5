//! Shared preconditioned states (src/sim/run.rs `run_series`, src/sweep/runner.rs
//! `run_group`): cells whose drives precondition alike run from one preconditioning
//! pass, each measured phase from an exact copy of the state (aged to its own volume
//! on the way to the largest). Every record must be exactly the one the cell's own run
//! gives: same report (minus wall-clock fields), same figures, same errors.

mod common;

use common::strip_wall_clock;
use ssdlab::sweep::runner::{run_cell, run_group, series_groups};
use ssdlab::sweep::{Cell, Grid, Plan, Record};
use std::path::Path;

fn plan(text: &str) -> Plan {
    let g = Grid::from_table(toml::from_str(text).unwrap(), "test grid", Path::new("")).unwrap();
    Plan::new(g, 1).unwrap()
}

fn text(r: &Record) -> String {
    let mut v = serde_json::to_value(r).unwrap();
    strip_wall_clock(&mut v);
    serde_json::to_string(&v).unwrap()
}

/// Runs every cell on its own and by series; asserts identical records and returns
/// (cells, groups).
fn same_both_ways(plan: &Plan) -> (usize, usize) {
    let cells: Vec<&Cell> = plan.cells.iter().collect();
    let groups = series_groups(&cells);
    let mut shared = std::collections::HashMap::new();
    for g in &groups {
        run_group(g, None, &mut |r| {
            assert!(shared.insert(r.key.clone(), r).is_none(), "a key twice");
        });
    }
    assert_eq!(shared.len(), cells.len());
    for c in &cells {
        let own = run_cell(c.design.run().unwrap(), &c.spec.key);
        let from_shared = &shared[&c.spec.key];
        assert_eq!(
            text(&own),
            text(from_shared),
            "cell {} ({:?}) differs when run from a shared state",
            c.index,
            c.values
        );
    }
    (cells.len(), groups.len())
}

#[test]
fn aged_iozone_points_match_their_own_runs_on_both_drives() {
    // EXP-M10's grid at 1/512 scale (its --quick sizes): the aged state depends on
    // (drive, U, pattern, volume, seed); read target and record only on the measured
    // phase. Volumes 1, 2, 4 share one aging pass per (drive, U, pattern).
    let p = plan(
        r#"
[base]
workload = "iozone"
seed = 2
set = { "precondition" = "age", "buffer.name" = "lru", "buffer.size" = "64KiB", "ftl.gc_schedule" = "background", "host.qd" = 1, "workload.span" = "2MiB" }
[[axis]]
key = "preset"
values = ["ssd-a", "ssd-c"]
group = "drive"
[[axis]]
key = "device.capacity"
values = ["64MiB", "160MiB"]
group = "drive"
[[axis]]
key = "fill_percent"
values = [75.0, 100.0]
[[axis]]
key = "aging.pattern"
values = ["uniform", "desktop"]
[[axis]]
key = "aging.volume_drive_writes"
values = [1.0, 2.0, 4.0]
[[axis]]
key = "workload.iozone_reads_first"
values = [false, true]
[[axis]]
key = "workload.iozone_record"
values = ["4KiB", "64KiB"]
"#,
    );
    let (cells, groups) = same_both_ways(&p);
    assert_eq!((cells, groups), (96, 8));
}

#[test]
fn other_preconditionings_ftls_and_buffers_match_their_own_runs() {
    // Random-choice GC (d-choices draws from the FTL's stream), DFTL's cached map, a
    // log-block FTL and a host log, each preconditioned once and measured under several
    // workloads; the write buffer carries data from one phase into the next.
    let p = plan(
        r#"
[base]
set = { "device.capacity" = "64MiB", "workload.requests" = 3000, "buffer.name" = "lru", "buffer.size" = "256KiB", "host.qd" = 4 }
[[axis]]
key = "ftl.name"
values = ["page", "dftl", "fast", "page"]
group = "drive"
[[axis]]
key = "ftl.gc"
values = ["d-choices", "greedy", "greedy", "greedy"]
group = "drive"
[[axis]]
key = "precondition"
values = ["steady", "random", "fill", "fill"]
group = "drive"
[[axis]]
key = "host_log.name"
values = ["none", "none", "none", "mft"]
group = "drive"
[[axis]]
key = "workload"
values = ["random-write", "mixed", "zipf"]
"#,
    );
    let (cells, groups) = same_both_ways(&p);
    assert_eq!((cells, groups), (12, 4));
}
