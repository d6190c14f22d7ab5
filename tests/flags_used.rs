//! Issue 30, "flags parsed and ignored (exit 0)": one test per case of the issue, each
//! exited 0 on main 548a3e2 with the flag ignored; now the flag is used or refused with
//! exit 2, naming it and what would read it.

use std::fs;

mod common;
use common::{refused, ssdlab, stderr};

const RUN: &[&str] = &[
    "run",
    "--capacity",
    "256MiB",
    "--workload",
    "random-write",
    "--requests",
    "100",
];

fn run_with(extra: &[&str]) -> Vec<&'static str> {
    let mut a: Vec<&'static str> = RUN.to_vec();
    for e in extra {
        a.push(Box::leak(e.to_string().into_boxed_str()));
    }
    a
}

#[test]
fn trace_flags_without_a_trace_are_refused() {
    for (flag, value, key) in [
        ("--trace-device", "3", "trace.device"),
        ("--trace-fit", "wrap", "trace.fit"),
        ("--format", "msr", "trace.format"),
        ("--speedup", "2", "host.speedup"),
        ("--columns", "time=0:s,lba=1,size=2,op=3", "trace.columns"),
    ] {
        refused(&run_with(&[flag, value]), &[key, "--trace"]);
    }
}

#[test]
fn read_percent_with_a_write_only_generator_is_refused() {
    refused(
        &run_with(&["--read-percent", "50"]),
        &["workload.read_percent", "mixed"],
    );
    // Read by the mixed generator.
    let o = ssdlab(&[
        "run",
        "--capacity",
        "256MiB",
        "--workload",
        "mixed",
        "--read-percent",
        "50",
        "--requests",
        "100",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn hybrid_requests_with_a_desktop_workload_are_refused() {
    for n in ["0", "1", "1M"] {
        refused(
            &["hybrid", "--workload", "boot", "--requests", n],
            &["generator.requests", "--workload generator"],
        );
    }
}

#[test]
fn probe_span_0_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("p.img");
    fs::File::create(&img).unwrap().set_len(64 << 20).unwrap();
    refused(
        &["probe", "--device", img.to_str().unwrap(), "--span", "0"],
        &["--span"],
    );
}

#[test]
fn gen_trace_converts_a_trace() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.ascii");
    fs::write(&t, "0 0 0 8 0\n1000 0 8 16 1\n2500 0 64 8 0\n").unwrap();
    let out = dir.path().join("out.ascii");
    let o = ssdlab(&[
        "gen-trace",
        "--capacity",
        "256MiB",
        "--trace",
        t.to_str().unwrap(),
        "--format",
        "ascii",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let got = fs::read_to_string(&out).unwrap();
    assert_eq!(got.lines().count(), 3, "{got}");
    let fields: Vec<Vec<&str>> = got.lines().map(|l| l.split(' ').collect()).collect();
    assert_eq!(fields[1][0], "1000", "{got}");
    assert_eq!(fields[1][4], "1", "a read stays a read: {got}");
    assert_eq!(fields[2][2], "64", "{got}");
}

#[test]
fn gen_trace_refuses_a_file_workload() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    refused(
        &[
            "gen-trace",
            "--workload",
            "iozone-file",
            "--fs",
            "ext2",
            "-o",
            out.to_str().unwrap(),
        ],
        &["gen-trace", "file"],
    );
    assert!(!out.exists());
}

/// Issue 30: `--set device.capacity=true`, `= -1` and a `[device.capacity]` table gave
/// "data did not match any variant of untagged enum Raw" with no key and no type.
#[test]
fn a_wrong_type_for_a_size_names_the_key_the_value_and_the_type() {
    for (v, shown) in [("true", "boolean `true`"), ("-1", "integer `-1`")] {
        let set = format!("device.capacity={v}");
        let o = ssdlab(&["run", "--set", &set]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains("device.capacity") && e.contains(shown) && e.contains("a size such as"),
            "{e}"
        );
        assert!(!e.contains("untagged"), "{e}");
    }
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c.toml");
    fs::write(&c, "[device.capacity]\nx = 1\n").unwrap();
    let o = ssdlab(&["run", "--config", c.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("map, expected a size"),
        "{}",
        stderr(&o)
    );
}
