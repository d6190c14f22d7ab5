//! `--access-spec` end to end: a specification file (lines, outstanding I/Os, span), the
//! built-ins and compact lines, and bad specifications refused with exit code 2 naming
//! the key, before any work.

mod common;
use common::{ssdlab, stderr};

const SMALL: &[&str] = &["--capacity", "256MiB", "--requests", "3000", "-q"];

fn run(args: &[&str]) -> std::process::Output {
    let mut v = vec!["run"];
    v.extend_from_slice(args);
    v.extend_from_slice(SMALL);
    ssdlab(&v)
}

#[test]
fn a_specification_file_sets_lines_outstanding_ios_and_span() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("mix.toml");
    std::fs::write(
        &spec,
        "outstanding = 8\nspan = \"64MiB\"\n\
         [[line]]\nsize = \"4KiB\"\nweight = 75\nread_percent = 100\nrandom_percent = 100\nalign = \"4KiB\"\n\
         [[line]]\nsize = \"64KiB\"\nweight = 25\nread_percent = 0\nrandom_percent = 0\n",
    )
    .unwrap();
    let json = dir.path().join("r.json");
    let o = run(&[
        "--access-spec",
        spec.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["config"]["host"]["qd"], 8);
    assert_eq!(r["config"]["workload"]["kind"], "iometer");
    assert_eq!(r["config"]["workload"]["span"], "64MiB");
    let lines = r["config"]["workload"]["iometer"]["lines"]
        .as_array()
        .unwrap();
    assert_eq!(lines.len(), 2);
    // About a quarter of the requests are the 64 KiB writes.
    let reads = r["phases"][0]["read_requests"].as_u64().unwrap();
    let writes = r["phases"][0]["write_requests"].as_u64().unwrap();
    assert_eq!(reads + writes, 3000);
    assert!((600..900).contains(&writes), "{writes} writes of 3000");
}

#[test]
fn built_ins_and_compact_lines_run() {
    for spec in [
        "file-server",
        "database",
        "8KiB weight=50 read=100 random=100; 16KiB weight=50 read=0 random=50 burst=4 delay_ms=0.05",
    ] {
        let o = run(&["--access-spec", spec]);
        assert!(o.status.success(), "{spec}: {}", stderr(&o));
    }
}

#[test]
fn bad_specifications_exit_2_naming_the_key() {
    for (spec, key) in [
        (
            "4KiB weight=50 read=100 random=100",
            "workload.iometer.lines[*].weight",
        ),
        ("4KiB weight=100 read=100", "random=PERCENT"),
        (
            "3000B read=100 random=100",
            "workload.iometer.lines[0].size",
        ),
        (
            "4KiB read=100 random=100 align=100B",
            "workload.iometer.lines[0].align",
        ),
        (
            "4KiB read=200 random=100",
            "workload.iometer.lines[0].read_percent",
        ),
        ("no-such-spec", "file-server"),
    ] {
        let o = run(&["--access-spec", spec]);
        assert_eq!(o.status.code(), Some(2), "{spec}: {}", stderr(&o));
        assert!(stderr(&o).contains(key), "{spec}: {}", stderr(&o));
    }
    // A missing specification file is named as missing, not parsed as a line.
    let o = run(&["--access-spec", "missing-mix.toml"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--access-spec missing-mix.toml: no such file"),
        "{}",
        stderr(&o)
    );
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("bad.toml");
    std::fs::write(&spec, "outstandin = 8\n").unwrap();
    let o = run(&["--access-spec", spec.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown key 'outstandin'"),
        "{}",
        stderr(&o)
    );
    let o = run(&["--access-spec", "database", "--workload", "random-write"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--workload iometer"), "{}", stderr(&o));
    // An access specification set while another workload runs would be ignored.
    let o = run(&[
        "--workload",
        "random-write",
        "--set",
        "workload.iometer.spec=database",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
