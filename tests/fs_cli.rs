//! File systems from the command line: `ssdlab list` names them, one command runs a
//! file workload on YAFFS2 and on ext2 over several FTLs side by side, file traces are
//! checked line by line before any work (exit code 2), and flags that cannot apply are
//! refused. Also ext2's block accounting through a run.

mod common;

use common::{json_designs, ssdlab, stderr};
use ssdlab::config::fs::FsKind;
use ssdlab::config::{Config, TimingMode};
use ssdlab::fs::ext2::Ext2;
use ssdlab::fs::{FileOp, FileOpKind as K, FileSystem};
use ssdlab::units::Size;
use std::sync::Arc;

const SMALL: &[&str] = &[
    "run",
    "--preset",
    "android-emmc",
    "--capacity",
    "64MiB",
    "--span",
    "4MiB",
];

#[test]
fn list_names_file_systems_and_file_workloads() {
    let o = ssdlab(&["list"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    for s in [
        "yaffs2",
        "ext2",
        "iozone-file",
        "postmark-file",
        "andrew-file",
        "rename",
    ] {
        assert!(out.contains(s), "list lacks {s}");
    }
}

#[test]
fn one_command_runs_yaffs2_and_ext2_over_ftls_side_by_side() {
    let mut args = SMALL.to_vec();
    args.extend([
        "--fs",
        "yaffs2,ext2",
        "--ftl",
        "page,bast",
        "--workload",
        "iozone-file",
        "--json",
        "-",
    ]);
    let (designs, names) = json_designs(&ssdlab(&args));
    assert_eq!(names, ["yaffs2", "ext2+page", "ext2+bast"]);
    for d in &designs {
        let r = &d["report"];
        // Same report keys as a block run; the file test wrote the 4 MiB file twice
        // (write, rewrite) and 4 MiB of random records.
        assert!(r["host_write_pages"].as_u64().unwrap() >= 3 * 2048, "{r}");
        assert!(r["nand_program_pages"].as_u64().unwrap() >= 3 * 2048);
        assert!(r["mapping_bytes"].as_u64().unwrap() > 0);
        let phases: Vec<&str> = r["phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            phases,
            [
                "seq-write",
                "rewrite",
                "seq-read",
                "reread",
                "random-write",
                "random-read",
                "mount"
            ]
        );
    }
    let y = &designs[0]["report"];
    assert!(y["counters"]["fs.yaffs2.chunk_writes"].as_u64().unwrap() >= 3 * 2048);
    assert!(
        y["counters"]["fs.yaffs2.mount.pages_read"]
            .as_u64()
            .unwrap()
            > 0
    );
    let e = &designs[2]["report"];
    assert!(e["counters"]["fs.ext2.data_block_writes"].as_u64().unwrap() >= 3 * 1024);
    assert!(
        e["counters"].get("ftl.merge.full").is_some(),
        "BAST's counters kept"
    );
}

#[test]
fn postmark_and_andrew_run_on_both_file_systems() {
    for w in ["postmark-file", "andrew-file"] {
        let mut args = SMALL.to_vec();
        args.extend([
            "--fs",
            "yaffs2,ext2",
            "--workload",
            w,
            "--set",
            "fs.postmark_files=100",
            "--set",
            "fs.postmark_transactions=500",
            "--set",
            "workload.andrew_files=50",
            "--csv",
            "-",
        ]);
        let o = ssdlab(&args);
        assert!(o.status.success(), "{w}: {}", stderr(&o));
    }
}

#[test]
fn file_trace_lines_are_checked_and_bad_ones_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("ok.ftrace");
    std::fs::write(
        &good,
        "# a small trace\n0 mkdir /d\n10 create /d/a\n20 write /d/a 0 10000\n\
         30 fsync /d/a\n40 read /d/a 100 5000\n50 rename /d/a /d/b\n60 truncate /d/b 10\n\
         70 unlink /d/b\n",
    )
    .unwrap();
    let mut args = SMALL.to_vec();
    args.extend([
        "--fs",
        "yaffs2",
        "--file-trace",
        good.to_str().unwrap(),
        "--csv",
        "-",
    ]);
    let o = ssdlab(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let bad = dir.path().join("bad.ftrace");
    std::fs::write(&bad, "0 create /a\n10 write /a 0\n").unwrap();
    let mut args = SMALL.to_vec();
    args.extend(["--fs", "ext2", "--file-trace", bad.to_str().unwrap()]);
    let o = ssdlab(&args);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("bad.ftrace:2: expected 5 fields for write"),
        "{e}"
    );
    // A path that does not exist when the operation comes: named with its line.
    let missing = dir.path().join("missing.ftrace");
    std::fs::write(&missing, "0 create /a\n10 unlink /nope\n").unwrap();
    let mut args = SMALL.to_vec();
    args.extend(["--fs", "yaffs2", "--file-trace", missing.to_str().unwrap()]);
    let o = ssdlab(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("missing.ftrace:2: unlink /nope: no such file"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn flags_that_cannot_apply_are_refused_before_any_work() {
    for (extra, want) in [
        (
            &["--workload", "iozone-file"][..],
            "--fs yaffs2, --fs ext2 or --fs fat",
        ),
        (
            &["--fs", "yaffs2", "--workload", "iozone"][..],
            "a file workload",
        ),
        (
            &[
                "--fs",
                "yaffs2",
                "--ftl",
                "bast",
                "--workload",
                "iozone-file",
            ][..],
            "--ftl",
        ),
    ] {
        let mut args = SMALL.to_vec();
        args.extend(extra);
        let o = ssdlab(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        assert!(stderr(&o).contains(want), "{extra:?}: {}", stderr(&o));
    }
}

#[test]
fn ext2_frees_what_it_allocates_and_sends_data_to_the_ftl() {
    let mut c = Config::load(Some("android-emmc"), None).unwrap();
    c.device.capacity = Size(64 << 20);
    c.timing.mode = TimingMode::Count;
    c.fs.name = FsKind::Ext2;
    let d = c.validate_device().unwrap();
    let mut fs = Ext2::mkfs(&d).unwrap();
    let free0 = fs.free_blocks();
    let path: Arc<str> = "/f".into();
    let op = |k, off, len| FileOp::new(k, &path, off, len);
    fs.exec(&op(K::Create, 0, 0), 0).unwrap();
    let host0 = fs.device_ref().host.write_pages;
    // 20 MiB: 5120 data blocks, one indirect, a double-indirect and four under it.
    fs.exec(&op(K::Write, 0, 20 << 20), 0).unwrap();
    let data_pages = (20u64 << 20) / 2048;
    assert_eq!(fs.device_ref().host.write_pages - host0, data_pages);
    let used = free0 - fs.free_blocks();
    assert_eq!(used, 5120 + 1 + 1 + 4, "data + indirect blocks");
    fs.exec(&op(K::Truncate, 4096 * 12, 0), 0).unwrap();
    assert_eq!(free0 - fs.free_blocks(), 12, "direct blocks only");
    fs.exec(&op(K::Unlink, 0, 0), 0).unwrap();
    assert_eq!(fs.free_blocks(), free0);
    fs.check();
}
