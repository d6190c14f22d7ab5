//! The HTML reports in a real headless browser (Chromium from Debian's packages): the
//! pages of `sweep`, `run` and `reproduce` load without console errors, their plots are
//! in the rendered DOM, and a screenshot is taken. The console check is shown to catch
//! an error on a page that has one.
//!
//! Needs `chromium` (apt). Without it the test says so and passes — except under
//! `SSDLAB_CI=1`, where a missing browser fails it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SSDLAB_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|n| {
            std::env::split_paths(&std::env::var_os("PATH")?)
                .map(|d| d.join(n))
                .find(|p| p.exists())
        })
}

/// What the browser made of a page: console messages at error level, the DOM after
/// scripts ran, and whether a screenshot was written.
struct Loaded {
    console_errors: Vec<String>,
    dom: String,
    screenshot_bytes: u64,
}

fn load(browser: &Path, page: &Path, shot: &Path) -> Loaded {
    let profile = tempfile::tempdir().unwrap();
    let common_args = |c: &mut Command| {
        c.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=2000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()));
    };
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let mut c = Command::new(browser);
    common_args(&mut c);
    let o = c
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .expect("run chromium");
    let log = String::from_utf8_lossy(&o.stderr);
    // Chromium logs console messages as `...:CONSOLE(line)] "message", source: url`;
    // uncaught exceptions and console.error carry level ERROR or "Uncaught".
    let console_errors = log
        .lines()
        .filter(|l| l.contains("CONSOLE") && (l.contains("ERROR") || l.contains("Uncaught")))
        .map(String::from)
        .collect();
    let mut c = Command::new(browser);
    common_args(&mut c);
    let s = c
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--window-size=1400,2000")
        .arg(&url)
        .output()
        .expect("run chromium");
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    Loaded {
        console_errors,
        dom: String::from_utf8_lossy(&o.stdout).into_owned(),
        screenshot_bytes: std::fs::metadata(shot).map_or(0, |m| m.len()),
    }
}

fn browser_or_skip() -> Option<PathBuf> {
    let b = chromium();
    if b.is_none() {
        assert!(
            std::env::var("SSDLAB_CI").map_or(true, |v| v != "1"),
            "SSDLAB_CI=1 but chromium is not installed (apt-get install chromium)"
        );
        eprintln!("skipped: chromium not installed (apt-get install chromium)");
    }
    b
}

fn check_page(browser: &Path, page: &Path, min_svgs: usize) {
    let shot = page.with_extension("png");
    let l = load(browser, page, &shot);
    assert!(
        l.console_errors.is_empty(),
        "{}: console errors:\n{}",
        page.display(),
        l.console_errors.join("\n")
    );
    let svgs = l.dom.matches("<svg").count();
    assert!(
        svgs >= min_svgs,
        "{}: {svgs} plots rendered",
        page.display()
    );
    assert!(l.dom.contains("<table class=\"sortable\""));
    // A blank page compresses to a few KB; one with plots and a table does not.
    assert!(
        l.screenshot_bytes > 30_000,
        "{}: screenshot of {} bytes",
        page.display(),
        l.screenshot_bytes
    );
}

#[test]
fn the_html_reports_load_without_console_errors_and_show_plots() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();

    // The console check can fail: a page with a script error is caught.
    let bad = dir.path().join("bad.html");
    std::fs::write(
        &bad,
        "<!DOCTYPE html><html><body><p>x</p><script>undefinedFunction();</script></body></html>",
    )
    .unwrap();
    let l = load(&browser, &bad, &dir.path().join("bad.png"));
    assert!(
        !l.console_errors.is_empty(),
        "a script error went unnoticed: the console check cannot fail"
    );

    // sweep --html
    let grid = dir.path().join("g.toml");
    std::fs::write(
        &grid,
        r#"
[base]
workload = "random-write"
set = { "device.capacity" = "128MiB", "workload.requests" = 3000 }
[[axis]]
key = "ftl.name"
values = ["page", "dftl"]
[[axis]]
key = "device.op_percent"
values = [7, 28]
"#,
    )
    .unwrap();
    let out = dir.path().join("sweep");
    let o = common::ssdlab(&[
        "sweep",
        grid.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--html",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        page.contains("sweep") && page.contains("--html"),
        "the command is not on the page"
    );
    // 2 axes x (WA, GC share) + CDF + throughput + 4 erase histograms
    check_page(&browser, &out.join("index.html"), 10);

    // run --html
    let run = dir.path().join("run");
    let o = common::ssdlab(&[
        "run",
        "--ftl",
        "page,dftl",
        "--workload",
        "mixed",
        "--capacity",
        "128MiB",
        "--requests",
        "3000",
        "-q",
        "--html",
        run.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    check_page(&browser, &run.join("index.html"), 4);

    // reproduce --html, the page beside the registry's files (tables, no figures)
    let rep = dir.path().join("rep");
    let o = common::ssdlab(&[
        "reproduce",
        "cftl",
        "--quick",
        "--out",
        rep.to_str().unwrap(),
        "--html",
        rep.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(rep.join("summary.md").exists());
    check_page(&browser, &rep.join("index.html"), 0);
}
