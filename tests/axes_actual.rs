//! Honest axes: a value the device rounds (over-provisioning to whole blocks in every
//! plane, the SLC cache to whole blocks on every die) is carried as requested and actual
//! in every output and warned about before any work; the example grids ask only for what
//! they get (docs/config.md, "Requested and actual values").

use std::path::Path;
use std::process::{Command, Output};

fn ssdlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The default preset at 256 MiB has 64 planes of 256-page blocks: OP moves in steps of
/// 25 %, so 7 % becomes 25 %.
#[test]
fn run_carries_requested_and_actual_op_in_every_output_and_warns() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, json, html) = (
        dir.path().join("r.csv"),
        dir.path().join("r.json"),
        dir.path().join("page"),
    );
    let o = ssdlab(&[
        "run",
        "--capacity",
        "256MiB",
        "--op",
        "7",
        "--workload",
        "random-write",
        "--requests",
        "500",
        "--csv",
        csv.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains("warning: device.op_percent = 7 was asked for but the device has 25"),
        "{err}"
    );
    assert!(err.contains("Achievable near it: 0, 25"), "{err}");
    assert!(err.contains("device.slc_cache_percent = 4.2"), "{err}");
    // Text table.
    let out = text(&o.stdout);
    assert!(out.contains("7% / 25%"), "{out}");
    // JSON, top level.
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(j["op_percent_requested"], 7.0);
    assert_eq!(j["op_percent_actual"], 25.0);
    assert_eq!(j["slc_cache_percent_requested"], 4.2);
    assert_eq!(j["slc_cache_percent_actual"], 12.5);
    assert!(
        j["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("device.op_percent = 7")),
        "{j}"
    );
    // CSV.
    let mut r = csv::Reader::from_path(&csv).unwrap();
    let h = r.headers().unwrap().clone();
    let row = r.records().next().unwrap().unwrap();
    let get = |k: &str| row[h.iter().position(|c| c == k).unwrap()].to_string();
    assert_eq!(get("op_percent_requested"), "7");
    assert_eq!(get("op_percent_actual"), "25");
    // HTML page.
    let page = std::fs::read_to_string(html.join("index.html")).unwrap();
    assert!(page.contains("op_percent_actual"), "no actual column");
}

#[test]
fn a_value_the_device_gets_is_not_warned_about() {
    let o = ssdlab(&[
        "run",
        "--capacity",
        "256MiB",
        "--op",
        "25",
        "--set",
        "device.slc_cache_percent=0",
        "--workload",
        "random-write",
        "--requests",
        "200",
        "-q",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(!text(&o.stderr).contains("warning"), "{}", text(&o.stderr));
}

fn write_grid(dir: &Path, ops: &str) -> std::path::PathBuf {
    let g = dir.join("g.toml");
    std::fs::write(
        &g,
        format!(
            r#"[base]
workload = "random-write"
set = {{ "device.capacity" = "256MiB", "workload.requests" = 300, "device.slc_cache_percent" = 0 }}
[[axis]]
key = "device.op_percent"
values = [{ops}]
"#
        ),
    )
    .unwrap();
    g
}

#[test]
fn sweep_warns_before_work_and_its_results_carry_the_actual_value_beside_the_axis() {
    let dir = tempfile::tempdir().unwrap();
    let g = write_grid(dir.path(), "7, 25");
    let out = dir.path().join("out");
    let dry = ssdlab(&[
        "sweep",
        g.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--dry-run",
    ]);
    assert!(dry.status.success(), "{}", text(&dry.stderr));
    let err = text(&dry.stderr);
    assert!(
        err.contains("warning: 1 of 2 cells (1): device.op_percent = 7 was asked for"),
        "{err}"
    );
    let listing = text(&dry.stdout);
    assert!(
        listing
            .lines()
            .next()
            .unwrap()
            .ends_with("op_percent_actual\tslc_cache_percent_actual")
    );
    assert!(
        listing.lines().nth(1).unwrap().ends_with("\t25\t0"),
        "{listing}"
    );
    let html = dir.path().join("html");
    let run = ssdlab(&[
        "sweep",
        g.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
        "-q",
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let mut r = csv::Reader::from_path(out.join("results.csv")).unwrap();
    let h: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let axis = h.iter().position(|c| c == "device.op_percent").unwrap();
    // Right after the axes (and the seed column): requested, then actual.
    assert_eq!(h[axis + 2], "op_percent_requested", "{h:?}");
    assert_eq!(h[axis + 3], "op_percent_actual", "{h:?}");
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(&rows[0][axis + 3], "25");
    assert_eq!(&rows[1][axis + 3], "25");
    let page = std::fs::read_to_string(html.join("index.html")).unwrap();
    assert!(
        page.contains("7 (actual 25)"),
        "axis label without the actual value"
    );
    assert!(page.contains("Values the device changed"));
}

#[test]
fn every_example_grid_asks_only_for_what_it_gets() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let mut n = 0;
    for e in std::fs::read_dir(root.join("docs/grids")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        n += 1;
        let o = ssdlab(&[
            "sweep",
            p.to_str().unwrap(),
            "--out",
            dir.path().join("x").to_str().unwrap(),
            "--dry-run",
        ]);
        assert!(o.status.success(), "{}: {}", p.display(), text(&o.stderr));
        assert!(
            !text(&o.stderr).contains("warning"),
            "{}: {}",
            p.display(),
            text(&o.stderr)
        );
    }
    assert!(n > 0);
}
