//! Golden-report regression: a dozen seeded designs run through the CLI and their JSON
//! reports (minus wall-clock fields) are compared with the files in `tests/golden/`.
//! A change that claims "results unchanged" must leave every file identical; a change
//! that alters results on purpose re-blesses them with
//!
//!     SSDLAB_BLESS=1 cargo test --release --test golden
//!
//! and says in its commit message which figures moved and why.

mod common;

use common::strip_wall_clock;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// (name, arguments of `ssdlab run`). Small devices and request counts keep the whole
/// set to a few seconds in release builds while still covering every FTL, every GC
/// policy, several buffers, both timing models, preconditioning and trace replay.
const CASES: &[(&str, &str)] = &[
    ("default-suite", ""),
    (
        "page-greedy-fill",
        "--ftl page --workload random-write --capacity 16GiB --requests 200k --fill",
    ),
    (
        "page-cost-benefit-steady",
        "--ftl page --gc cost-benefit --workload random-write --capacity 16GiB --requests 200k --steady",
    ),
    (
        "page-fifo-hotcold-full",
        "--ftl page --gc fifo --workload hot-cold --capacity 16GiB --requests 200k --fill --timing full --qd 8",
    ),
    (
        "page-dchoices-zipf",
        "--ftl page --gc d-choices --workload zipf --capacity 16GiB --requests 200k --fill --qd 4",
    ),
    (
        "logblock-ftls",
        "--ftl nftl,bast,fast,faster --workload random-write --capacity 4GiB --requests 100k --fill",
    ),
    (
        "aftl-cftl-dftl-mixed",
        "--ftl aftl,cftl,dftl --workload mixed --capacity 16GiB --requests 100k --fill",
    ),
    (
        "buffers-oltp",
        "--buffer lru,qlru,bplru --buffer-size 32MiB --qd 64 --workload oltp --requests 100k",
    ),
    (
        "ssd-a-random",
        "--preset ssd-a --workload random-write --span 8GiB --requests 100k --qd 32",
    ),
    (
        "android-iozone",
        "--preset android-emmc --ftl bast,fast --workload iozone",
    ),
    (
        "msr-trace-full",
        "--trace ../shared/traces/msr/hm_0-head1k.csv --trace-fit wrap --timing full",
    ),
    (
        "spc-trace-buffered",
        "--trace ../shared/traces/spc-ascii/financial1-head10k.ascii --trace-fit wrap --buffer fab,clc --buffer-size 16MiB",
    ),
    ("probe-ssd-c", "--workload probe --preset ssd-c"),
];

fn report(args: &str) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .arg("run")
        .args(args.split_whitespace())
        .args(["--json", "-", "-q"])
        .output()
        .expect("ssdlab runs");
    assert!(
        out.status.success(),
        "ssdlab run {args} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    strip_wall_clock(&mut v);
    v
}

/// The first path (JSON pointer) at which two reports differ, with both values.
fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => {
                        if let Some(d) = first_difference(&format!("{path}/{k}"), p, q) {
                            return Some(d);
                        }
                    }
                    (p, q) => return Some(format!("{path}/{k}: golden {p:?}, now {q:?}")),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(&format!("{path}/{i}"), p, q)),
        _ => (a != b).then(|| format!("{path}: golden {a}, now {b}")),
    }
}

#[test]
fn reports_match_the_golden_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let bless = std::env::var_os("SSDLAB_BLESS").is_some();
    let mut failures = Vec::new();
    for &(name, args) in CASES {
        let now = report(args);
        let path = dir.join(format!("{name}.json"));
        if bless {
            let text = serde_json::to_string_pretty(&now).expect("serializes") + "\n";
            std::fs::write(&path, text).expect("golden file written");
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (create it with SSDLAB_BLESS=1 cargo test --release --test golden)",
                path.display()
            )
        });
        let golden: Value = serde_json::from_str(&text).expect("golden JSON");
        if let Some(d) = first_difference("", &golden, &now) {
            failures.push(format!("{name} (ssdlab run {args}): {d}"));
        }
    }
    assert!(
        failures.is_empty(),
        "reports changed; if on purpose, re-bless with SSDLAB_BLESS=1 and say why in the commit:\n{}",
        failures.join("\n")
    );
}
