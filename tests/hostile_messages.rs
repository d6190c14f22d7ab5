//! Issue 30, "refusals and messages": the last four cases, each named after it. On main
//! 6d67830 `--qd -1` said "unexpected argument '-1' found" without the flag, `serve
//! --socket DIR` said "Address already in use", `sweep --ray` with a python3 lacking
//! ray ended in the driver's ModuleNotFoundError traceback, and a closed standard output
//! (`| head -1`) was "Broken pipe" with exit 1 (or a panic of `print!`, exit 101).

use std::fs;
use std::process::{Command, Stdio};

mod common;
use common::{refused, ssdlab, stderr};

#[test]
fn a_negative_number_names_the_flag_and_what_it_expects() {
    for (args, flag) in [
        (vec!["run", "--qd", "-1"], "--qd"),
        (vec!["run", "--seed", "-3"], "--seed"),
        (vec!["run", "--op", "-7"], "--op"),
        (vec!["run", "--read-percent", "-50"], "--read-percent"),
        (vec!["run", "--capacity", "-1"], "--capacity"),
        (vec!["run", "--speedup", "-2"], "--speedup"),
        (vec!["run", "--fill", "-1"], "--fill"),
        (vec!["run", "--trace-device", "-1"], "--trace-device"),
        (vec!["run", "--mean-gap-ns", "-1"], "--mean-gap-ns"),
        (vec!["hybrid", "--runs", "-1"], "--runs"),
        (
            vec!["sweep", "g.toml", "--out", "o", "--jobs", "-4"],
            "--jobs",
        ),
        (vec!["crashtest", "--cuts", "-1"], "--cuts"),
        (vec!["crashtest", "--ops-per-cut", "-1"], "--ops-per-cut"),
        (vec!["probe", "--passes", "-1"], "--passes"),
        (vec!["serve", "--port", "-1"], "--port"),
        (vec!["serve", "--stats-every", "-0.5"], "--stats-every"),
        (
            vec!["serve", "--power-cut-after", "-1"],
            "--power-cut-after",
        ),
    ] {
        let o = ssdlab(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(!e.contains("unexpected argument"), "{args:?}: {e}");
        assert!(
            e.contains(flag) && e.contains("expected"),
            "{args:?}: should name {flag} and what it expects: {e}"
        );
    }
}

#[test]
fn serve_socket_a_directory_names_the_flag_and_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let o = ssdlab(&["serve", "--capacity", "64MiB", "--socket", &d]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("--socket") && e.contains(&d) && e.contains("directory"),
        "{e}"
    );
    assert!(!e.contains("Unix(") && !e.contains("already in use"), "{e}");

    // A regular file there: refused, and left as it was.
    let f = dir.path().join("notes.txt");
    fs::write(&f, "keep me").unwrap();
    let fs_ = f.display().to_string();
    refused(
        &["serve", "--capacity", "64MiB", "--socket", &fs_],
        &["--socket", &fs_, "not a socket"],
    );
    assert_eq!(fs::read_to_string(&f).unwrap(), "keep me");

    // A missing directory, and a path longer than a socket address holds; --data is
    // not created by a refused server.
    let data = dir.path().join("d.img").display().to_string();
    let missing = dir.path().join("no/such/s.sock").display().to_string();
    refused(
        &[
            "serve",
            "--capacity",
            "64MiB",
            "--data",
            &data,
            "--socket",
            &missing,
        ],
        &["--socket", "does not exist"],
    );
    let long = dir.path().join("x".repeat(120)).display().to_string();
    refused(
        &[
            "serve",
            "--capacity",
            "64MiB",
            "--data",
            &data,
            "--socket",
            &long,
        ],
        &["--socket", "at most 107 bytes"],
    );
    assert!(!dir.path().join("d.img").exists());
}

const GRID: &str = "[base]\npreset = \"default\"\nworkload = \"random-write\"\n\
                    set = { \"device.capacity\" = \"256MiB\", \"workload.requests\" = 100 }\n\
                    [[axis]]\nkey = \"ftl.name\"\nvalues = [\"page\", \"dftl\"]\n";

#[test]
fn sweep_ray_with_a_python_lacking_ray_names_the_module_before_any_work() {
    let Ok(py) = Command::new("python3").arg("--version").output() else {
        eprintln!("skipped: no python3 on PATH");
        return;
    };
    assert!(py.status.success());
    let dir = tempfile::tempdir().unwrap();
    // python3 without its site-packages (-S): neither ray nor ssdlab can be found,
    // whatever this machine has installed.
    let bare = dir.path().join("bare-python");
    fs::write(&bare, "#!/bin/sh\nexec python3 -S \"$@\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&bare, fs::Permissions::from_mode(0o755)).unwrap();
    let grid = dir.path().join("g.toml");
    fs::write(&grid, GRID).unwrap();
    let out = dir.path().join("r");
    let o = ssdlab(&[
        "sweep",
        grid.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--ray",
        "127.0.0.1:1",
        "--python",
        bare.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("--ray") && e.contains("'ray'"), "{e}");
    assert!(e.contains("pip install 'ray[default]'"), "{e}");
    assert!(
        !e.contains("Traceback") && !e.contains("ModuleNotFoundError"),
        "{e}"
    );
    assert!(!out.exists(), "nothing is created before the check");

    // An interpreter that does not exist: named, exit 2.
    let o = ssdlab(&[
        "sweep",
        grid.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--ray",
        "auto",
        "--python",
        "/nonexistent/python3",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("/nonexistent/python3"),
        "{}",
        stderr(&o)
    );
}

/// Runs ssdlab with its standard output a pipe whose reader is already gone.
fn to_closed_stdout(args: &[&str]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[test]
fn output_to_a_closed_stdout_exits_0_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let grid = dir.path().join("g.toml");
    fs::write(&grid, GRID).unwrap();
    let out = dir.path().join("r").display().to_string();
    let small = ["--capacity", "256MiB", "--requests", "2000"];
    let cases: Vec<Vec<&str>> = vec![
        vec!["gen-trace", "-o", "-"],
        vec!["gen-trace", "-o", "-", "--out-format", "fio"],
        vec!["gen-trace", "-o", "-", "--out-format", "blktrace"],
        [&["run", "--json", "-"][..], &small].concat(),
        [&["run", "--csv", "-"][..], &small].concat(),
        [&["run"][..], &small].concat(),
        vec!["config", "-o", "-"],
        vec!["list"],
        vec!["reproduce", "--list"],
        vec!["hybrid", "--list"],
        vec!["sweep", grid.to_str().unwrap(), "--out", &out, "--dry-run"],
    ];
    for args in cases {
        let o = to_closed_stdout(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {e}");
        assert!(
            !e.contains("Broken pipe") && !e.contains("panicked") && !e.contains("error"),
            "{args:?}: {e}"
        );
    }
}
