//! Outputs never damage anything: `-` is standard output, devices, FIFOs and symlinks
//! are written through, every output path is checked before the run, and the outputs
//! of a run are written together or not at all. Also: every design of a comma list is
//! checked before the first run, help comes from the registries, and a typo in any
//! flag gets clap's suggestion.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{ssdlab, stderr};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A small run that takes well under a second.
const QUICK: &[&str] = &[
    "run",
    "--capacity",
    "2GiB",
    "--set",
    "device.channels=2",
    "--set",
    "device.chips_per_channel=2",
    "--workload",
    "random-write",
    "--requests",
    "2k",
];

/// A run that would take minutes: a check that fails with it proves it failed first.
const SLOW: &[&str] = &[
    "run",
    "--workload",
    "random-write",
    "--steady",
    "--requests",
    "100M",
];

fn with(base: &[&str], extra: &[&str]) -> Output {
    let mut a = base.to_vec();
    a.extend_from_slice(extra);
    ssdlab(&a)
}

/// Files in `dir`, sorted (temp files included: none may be left behind).
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[cfg(unix)]
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(unix)]
#[test]
fn json_to_dev_null_leaves_the_device_node() {
    use std::os::unix::fs::FileTypeExt;
    let char_dev = || {
        fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    };
    assert!(char_dev(), "/dev/null is not a device before the test");
    let o = with(QUICK, &["--json", "/dev/null", "--csv", "/dev/null", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(char_dev(), "ssdlab replaced /dev/null");
}

#[cfg(unix)]
#[test]
fn a_fifo_output_is_written_through() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.csv");
    let c = std::ffi::CString::new(s(&fifo)).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
    };
    let o = with(QUICK, &["--csv", s(&fifo), "-q"]);
    if !o.status.success() {
        // Let the reader finish before failing (it waits for a writer).
        drop(fs::OpenOptions::new().write(true).open(&fifo));
        panic!("{}", stderr(&o));
    }
    let text = reader.join().unwrap();
    assert!(text.starts_with("design,phase,"), "{text}");
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(entries(dir.path()), ["out.csv"]);
}

#[cfg(unix)]
#[test]
fn a_symlink_output_keeps_the_link_and_updates_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("real");
    fs::create_dir(&sub).unwrap();
    let target = sub.join("r.json");
    fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink("real/r.json", &link).unwrap();
    let o = with(QUICK, &["--json", s(&link), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&target).unwrap()).unwrap();
    assert!(v.get("write_amplification").is_some());
    assert_eq!(
        entries(&sub),
        ["r.json"],
        "temp file left beside the target"
    );
}

#[test]
fn dash_is_standard_output_for_every_file_output_and_replaces_the_table() {
    let o = with(QUICK, &["--csv", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("design,phase,"), "{out}");
    assert!(
        !out.contains("Write amplification"),
        "table printed too:\n{out}"
    );
    assert!(!Path::new("-").exists(), "wrote a file named -");

    let o = with(QUICK, &["--json", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let _: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();

    let o = ssdlab(&[
        "gen-trace",
        "--workload",
        "seq-write",
        "--requests",
        "10",
        "-o",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 10);

    let o = ssdlab(&["config", "--preset", "ssd-a", "-o", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("[device]"));

    // One output at most on standard output; a directory never.
    let o = with(SLOW, &["--json", "-", "--csv", "-"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("only one output"), "{}", stderr(&o));
    let o = with(SLOW, &["--svg", "-"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--svg -"), "{}", stderr(&o));
}

/// Runs SLOW with `extra` plus a `--csv` that a late failure would leave behind, and
/// expects exit 2 at once with `needles` in the message.
fn fails_before_work(dir: &Path, extra: &[&str], needles: &[&str]) {
    let later = dir.join("later.csv");
    let mut a = SLOW.to_vec();
    a.extend_from_slice(extra);
    a.extend(["--csv", s(&later)]);
    let o = ssdlab(&a);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{a:?}: {e}");
    for n in needles {
        assert!(e.contains(n), "{a:?}: expected '{n}' in: {e}");
    }
    assert!(!e.contains("panicked"), "{a:?}: {e}");
    assert!(!later.exists(), "{a:?} wrote an output");
}

#[test]
fn bad_output_paths_exit_2_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let missing = d.join("no/such/dir/r.json");
    fails_before_work(d, &["--json", s(&missing)], &["--json", "does not exist"]);
    fails_before_work(d, &["--json", s(d)], &["--json", "is a directory"]);
    let file = d.join("file");
    fs::write(&file, "keep").unwrap();
    fails_before_work(d, &["--svg", s(&file)], &["--svg", "not a directory"]);
    // A directory whose parent is a file.
    fails_before_work(
        d,
        &["--svg", s(&file.join("figs"))],
        &["--svg", "ot a directory"],
    );
    let trace = d.join("t.ascii");
    fs::write(&trace, "0 0 0 8 0\n").unwrap();
    // (Not with SLOW: its generator flags are refused next to a trace.)
    let later = d.join("later.csv");
    let o = ssdlab(&[
        "run",
        "--trace",
        s(&trace),
        "--format",
        "ascii",
        "--json",
        s(&trace),
        "--csv",
        s(&later),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--trace file"), "{}", stderr(&o));
    assert!(!later.exists());
    assert_eq!(fs::read_to_string(&trace).unwrap(), "0 0 0 8 0\n");
    let cfg = d.join("c.toml");
    fs::write(&cfg, "seed = 3\n").unwrap();
    fails_before_work(
        d,
        &["--config", s(&cfg), "--json", s(&cfg)],
        &["--json", "--config file"],
    );
    // Two outputs on one file, also through a symlink or `./`.
    let a = d.join("a.out");
    fails_before_work(
        d,
        &["--json", s(&d.join("later.csv"))],
        &["--csv", "--json"],
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("a.out", d.join("alias")).unwrap();
        let o = with(SLOW, &["--json", s(&a), "--csv", s(&d.join("alias"))]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("same file"), "{}", stderr(&o));
    }
    // A figure name inside --svg that another output also names.
    let figs = d.join("figs");
    fs::create_dir(&figs).unwrap();
    let o = with(
        SLOW,
        &["--svg", s(&figs), "--json", s(&figs.join("throughput.svg"))],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!a.exists());
    assert_eq!(fs::read_to_string(&file).unwrap(), "keep");
    assert_eq!(entries(&figs), Vec::<String>::new());
    // reproduce and gen-trace check --out the same way.
    let o = ssdlab(&["reproduce", "cftl", "--out", s(&file)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--out"), "{}", stderr(&o));
    let o = ssdlab(&["reproduce", "cftl", "--out", "-"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = ssdlab(&["gen-trace", "--requests", "1G", "-o", s(d)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = ssdlab(&["config", "--config", s(&cfg), "-o", s(&cfg)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(fs::read_to_string(&cfg).unwrap(), "seed = 3\n");
}

/// A mount point for tmpfs tests, unmounted when dropped.
#[cfg(unix)]
struct Mount(PathBuf);

#[cfg(unix)]
impl Mount {
    /// Mounts a tmpfs with `opts` under `dir` (needs root and CAP_SYS_ADMIN).
    fn tmpfs(dir: &Path, opts: &str) -> Option<Mount> {
        if !is_root() {
            return None;
        }
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", opts, "tmpfs", s(dir)])
            .status()
            .is_ok_and(|st| st.success());
        ok.then(|| Mount(dir.to_path_buf()))
    }
}

#[cfg(unix)]
impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[cfg(unix)]
#[test]
fn an_unwritable_parent_exits_2_before_the_run() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let ro = dir.path().join("ro");
    fs::create_dir(&ro).unwrap();
    // Root writes into mode-0555 directories, so as root only a read-only mount is
    // unwritable; other users get a read-only directory.
    let _mount = if is_root() {
        match Mount::tmpfs(&ro, "ro,size=64k") {
            Some(m) => Some(m),
            None => {
                eprintln!("skipped: cannot mount a read-only tmpfs");
                return;
            }
        }
    } else {
        fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
        None
    };
    fails_before_work(
        dir.path(),
        &["--json", s(&ro.join("r.json"))],
        &["--json", "cannot create files in"],
    );
    fails_before_work(
        dir.path(),
        &["--svg", s(&ro.join("figs"))],
        &["--svg", "cannot create"],
    );
}

#[test]
fn a_bad_output_leaves_no_output_of_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (j, c) = (d.join("a.json"), d.join("a.csv"));
    let reg = d.join("regular");
    fs::write(&reg, "keep").unwrap();
    let o = with(QUICK, &["--json", s(&j), "--csv", s(&c), "--svg", s(&reg)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!j.exists() && !c.exists());
    assert_eq!(fs::read_to_string(&reg).unwrap(), "keep");
}

#[cfg(unix)]
#[test]
fn a_failed_write_at_the_end_leaves_every_path_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let j = d.join("a.json");
    fs::write(&j, "old").unwrap();
    let figs = d.join("figs");
    // /dev/full takes the open and fails the write with ENOSPC.
    if Path::new("/dev/full").exists() {
        let o = with(
            QUICK,
            &["--json", s(&j), "--csv", "/dev/full", "--svg", s(&figs)],
        );
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains("/dev/full") && e.contains("No space left"),
            "{e}"
        );
        assert_eq!(fs::read_to_string(&j).unwrap(), "old");
        assert_eq!(entries(d), ["a.json"], "temps or outputs left");
    }
    // A real full file system: the figures do not fit in 64 KiB.
    let mnt = d.join("small");
    fs::create_dir(&mnt).unwrap();
    let Some(_m) = Mount::tmpfs(&mnt, "size=64k") else {
        eprintln!("skipped the tmpfs part: cannot mount");
        return;
    };
    fs::write(mnt.join("a.csv"), "old").unwrap();
    let o = with(
        QUICK,
        &[
            "--ftl",
            "page,dftl,bast,fast,nftl,faster,aftl,cftl",
            "--json",
            s(&mnt.join("a.json")),
            "--csv",
            s(&mnt.join("a.csv")),
            "--svg",
            s(&mnt.join("figs")),
            "-q",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("No space left"), "{}", stderr(&o));
    assert_eq!(entries(&mnt), ["a.csv"]);
    assert_eq!(fs::read_to_string(mnt.join("a.csv")).unwrap(), "old");
}

#[test]
fn an_existing_svg_directory_keeps_its_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let figs = dir.path().join("figs");
    fs::create_dir(&figs).unwrap();
    fs::write(figs.join("notes.txt"), "mine").unwrap();
    fs::write(figs.join("throughput.svg"), "old").unwrap();
    let o = with(QUICK, &["--svg", s(&figs), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        entries(&figs),
        [
            "erase_histogram.svg",
            "latency_cdf.svg",
            "notes.txt",
            "throughput.svg"
        ]
    );
    assert_eq!(fs::read_to_string(figs.join("notes.txt")).unwrap(), "mine");
    assert_ne!(
        fs::read_to_string(figs.join("throughput.svg")).unwrap(),
        "old"
    );
    // A new directory with missing parents appears whole.
    let deep = dir.path().join("a/b/figs");
    let o = with(QUICK, &["--svg", s(&deep), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(entries(&deep).len(), 3);
    assert_eq!(entries(&dir.path().join("a/b")), ["figs"]);
}

#[test]
fn every_design_of_a_list_is_checked_before_the_first_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let o = ssdlab(&[
        "run",
        "--ftl",
        "page,bast,fast",
        "--mgmt-block",
        "16KiB",
        "--workload",
        "random-write",
        "--requests",
        "100M",
        "--json",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("design 2 (ftl=bast)"), "{e}");
    assert!(e.contains("design 3 (ftl=fast)"), "{e}");
    assert!(!e.contains("design 1"), "{e}");
    assert!(!out.exists());
}

/// `ssdlab SUB --help` for `sub`.
fn help(sub: &str) -> String {
    let o = ssdlab(&[sub, "--help"]);
    assert!(o.status.success(), "{}", stderr(&o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn help_lists_the_registries_and_teaches_by_example() {
    let run = help("run");
    for (_, name, _) in ssdlab::ftl::FtlKind::all() {
        assert!(
            run.contains(&format!("- {name}:")),
            "run --help lacks FTL {name}"
        );
    }
    for (_, name, _) in ssdlab::buffer::BufferKind::all() {
        assert!(
            run.contains(&format!("- {name}:")),
            "run --help lacks buffer {name}"
        );
    }
    for (name, _) in ssdlab::workload::synth::names() {
        assert!(
            run.contains(&format!("- {name}:")),
            "run --help lacks workload {name}"
        );
    }
    for (name, _) in ssdlab::config::PRESETS {
        assert!(
            run.contains(&format!("- {name}:")),
            "run --help lacks preset {name}"
        );
    }
    for f in ssdlab::workload::trace::TraceFormat::ALL {
        assert!(
            run.contains(&format!("- {}:", f.name())),
            "run --help lacks {f}"
        );
    }
    for sub in ["run", "hybrid", "reproduce"] {
        let h = help(sub);
        assert!(
            h.contains("Examples:") && h.contains(&format!("ssdlab {sub} ")),
            "{sub} --help has no examples"
        );
    }
    let hybrid = help("hybrid");
    for (_, name, _) in ssdlab::hybrid::store::WritePolicy::all() {
        assert!(
            hybrid.contains(&format!("- {name}:")),
            "hybrid --help lacks {name}"
        );
    }
    // A wrong name is told the registry's names, and the nearest one.
    let o = ssdlab(&["run", "--gc", "greedy,fifoo"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("d-choices") && e.contains("'fifo'"), "{e}");
}

/// Long flags `ssdlab SUB --help` defines (the first long flag of each option line, not
/// flags its descriptions mention).
fn long_flags(sub: &str) -> Vec<String> {
    let mut v: Vec<String> = help(sub)
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let first = words.next()?;
            if first.starts_with("--") {
                Some(first)
            } else if first.starts_with('-') && first.len() <= 3 {
                words.next().filter(|w| w.starts_with("--"))
            } else {
                None
            }
        })
        .filter(|w| w.len() > 3)
        .map(|w| {
            w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
                .to_string()
        })
        .filter(|w| {
            w.chars()
                .skip(2)
                .all(|c| c.is_ascii_lowercase() || c == '-')
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn a_typo_in_any_flag_gets_a_suggestion_and_exit_2() {
    for sub in ["run", "hybrid", "config", "gen-trace", "reproduce"] {
        let flags = long_flags(sub);
        assert!(flags.len() >= 3, "{sub}: {flags:?}");
        for flag in flags.iter().filter(|f| *f != "--help") {
            // The last letter doubled: `--ftl` → `--ftll`.
            let typo = format!("{flag}{}", flag.chars().last().unwrap());
            if flags.contains(&typo) {
                continue;
            }
            let o = ssdlab(&[sub, &typo, "x"]);
            let e = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{sub} {typo}: {e}");
            assert!(
                e.contains("similar argument") && e.contains(flag.as_str()),
                "{sub} {typo}: {e}"
            );
        }
    }
}

#[test]
fn hybrid_outputs_follow_the_same_rules() {
    let quick = [
        "hybrid",
        "--workload",
        "random-read",
        "--span",
        "256MiB",
        "--requests",
        "200",
        "--cache",
        "none,1GiB",
    ];
    let o = with(&quick, &["--csv", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("workload,design,run"), "{out}");
    assert!(!out.contains("vs HDD"), "table printed too:\n{out}");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("h.out");
    let o = with(&quick, &["--json", s(&p), "--csv", s(&p)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("same file"), "{}", stderr(&o));
    assert!(!p.exists());
}

/// Issue 30, "probe --device p.img --json p.img": exit 0 and the image replaced by JSON.
#[test]
fn probe_refuses_a_json_report_on_its_own_device() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("p.img");
    let f = fs::File::create(&img).unwrap();
    f.set_len(64 << 20).unwrap();
    let o = ssdlab(&["probe", "--device", s(&img), "--json", s(&img)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--device"), "{}", stderr(&o));
    assert_eq!(
        fs::metadata(&img).unwrap().len(),
        64 << 20,
        "the image was damaged"
    );
}

/// Issue 30, "--svg late.d --html late.d" with a new `late.d`: exit 1 after the run
/// with three SVGs left behind. Two directory outputs may share one new directory.
#[test]
fn two_directory_outputs_share_one_new_directory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("late.d");
    let o = with(QUICK, &["--svg", s(&d), "--html", s(&d)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let names = entries(&d);
    assert!(names.iter().any(|n| n.ends_with(".svg")), "{names:?}");
    assert!(names.iter().any(|n| n.ends_with(".html")), "{names:?}");
    assert_eq!(entries(dir.path()), ["late.d"], "temps left behind");
    let e = dir.path().join("e.d");
    let o = with(QUICK, &["--svg", s(&e), "--json", s(&e.join("r.json"))]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "a file inside a new directory: {}",
        stderr(&o)
    );
    assert!(!e.exists());
}

/// Issue 30, "(and `--svg D --json D`) with a new `D`: exit 1 *after* the simulation,
/// 'no output file was written', yet the JSON is left in `D`". A file output where a
/// directory output goes (the same path, or a directory below it) is refused before the
/// run, and nothing is written.
#[test]
fn a_file_output_on_a_new_directory_output_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let late = d.join("late.d");
    for extra in [
        vec!["--svg", s(&late), "--json", s(&late)],
        vec!["--html", s(&late), "--json", s(&late)],
        vec!["--json", s(&late), "--svg", s(&late)],
    ] {
        fails_before_work(d, &extra, &["--json", "directory"]);
        assert!(!late.exists(), "{extra:?} left {}", late.display());
    }
    let sub = late.join("figs");
    fails_before_work(
        d,
        &["--svg", s(&sub), "--json", s(&late)],
        &["--json", "--svg"],
    );
    assert!(!late.exists());
}

/// Issue 30, "`--json newdir/` writes a file named `newdir`".
#[test]
fn a_file_output_ending_in_a_slash_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = format!("{}/newdir/", s(dir.path()));
    let o = with(QUICK, &["--json", &p]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--json") && stderr(&o).contains("`/`"),
        "{}",
        stderr(&o)
    );
    assert!(entries(dir.path()).is_empty());
}

/// Issue 30: the text report never named the design it reported, and with a comma list
/// the first design's full report was printed unlabelled.
#[test]
fn the_text_report_names_its_design_and_labels_the_first_of_a_list() {
    let o = common::ssdlab(&["run", "--capacity", "256MiB", "--requests", "200"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(
        out.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("Design: preset default, 256MiB, ftl page")),
        "{out}"
    );
    let o = common::ssdlab(&[
        "run",
        "--capacity",
        "256MiB",
        "--requests",
        "200",
        "--ftl",
        "page,dftl",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("Design: page") && out.contains("the first of 2"),
        "{out}"
    );
}

#[test]
fn size_lists_multiply_the_designs_each_labelled() {
    let o = ssdlab(&[
        "run",
        "--capacity",
        "64MiB,128MiB",
        "--ftl",
        "page,dftl",
        "--buffer-size",
        "1MiB, 4MiB",
        "--workload",
        "random-write",
        "--requests",
        "300",
        "--json",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let got: Vec<(String, String, String)> = v["designs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let c = &d["report"]["config"];
            (
                d["name"].as_str().unwrap().to_string(),
                c["device"]["capacity"].as_str().unwrap().to_string(),
                c["buffer"]["size"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Name lists first, then each size list, the last varying fastest.
    let mut want = Vec::new();
    for f in ["page", "dftl"] {
        for c in ["64MiB", "128MiB"] {
            for b in ["1MiB", "4MiB"] {
                want.push((
                    format!("{f}+capacity={c}+buffer-size={b}"),
                    c.to_string(),
                    b.to_string(),
                ));
            }
        }
    }
    assert_eq!(got, want);
    // A single size is no list: the design keeps its name.
    let o = ssdlab(&[
        "run",
        "--capacity",
        "64MiB",
        "--ftl",
        "page,dftl",
        "--workload",
        "random-write",
        "--requests",
        "100",
        "--csv",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = String::from_utf8_lossy(&o.stdout);
    assert!(csv.contains("\npage,all,"), "{csv}");
    assert!(!csv.contains("capacity="), "{csv}");
}

#[test]
fn size_lists_refuse_bad_elements_and_name_the_design() {
    // A bad element is refused by the flag's parser, naming it.
    let o = ssdlab(&["run", "--buffer-size", "1MiB,4x"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("\"4x\""), "{}", stderr(&o));
    // A size that cannot hold the design is refused naming its design, before any run.
    let o = ssdlab(&[
        "run",
        "--capacity",
        "64MiB,1000B",
        "--workload",
        "random-write",
        "--requests",
        "100M",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("design 2 (capacity=1000B)"), "{e}");
    assert!(!e.contains("design 1"), "{e}");
    // serve serves one device: a list is refused.
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("s.sock");
    let o = ssdlab(&["serve", "--capacity", "64MiB,128MiB", "--socket", s(&sock)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("one size each"), "{}", stderr(&o));
}
