//! Counters are declared once: each component declares the keys it reports under
//! `counters` (`ssdlab::spec::Counter`: key, counter or gauge, unit, description) next to
//! the code that counts them, and `ssdlab::names::counters()` collects every declaration.
//! These tests hold the registry to the reports and to the documentation:
//!
//! - every key in the report of a run (whole run and per phase) of every FTL under every
//!   buffer policy, and of every file system over every FTL, is declared — so a key
//!   emitted without a declaration in its component's `COUNTERS` list fails here;
//! - no key is declared twice, and every declaration has a unit and a description;
//! - docs/outputs.md's counter table is the registry's, row for row
//!   (`SSDLAB_BLESS=1 cargo test --release --test counters` rewrites it).

mod common;

use common::{ssdlab, stderr};
use ssdlab::names;
use ssdlab::spec::{Counter, CounterKind};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Names of a registry, from its `all()` table.
fn all<T>(table: &[(T, &'static str, &'static str)]) -> String {
    table
        .iter()
        .map(|(_, n, _)| *n)
        .collect::<Vec<_>>()
        .join(",")
}

/// Counter keys of every design's report (whole run and phases) of `ssdlab run ARGS`,
/// with the designs that carried each.
fn report_keys(args: &[&str], seen: &mut BTreeMap<String, BTreeSet<String>>) {
    let mut all_args = vec!["run"];
    all_args.extend_from_slice(args);
    all_args.extend(["--json", "-", "-q"]);
    let o = ssdlab(&all_args);
    assert!(
        o.status.success(),
        "ssdlab {}: {}",
        all_args.join(" "),
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON report");
    let designs: Vec<(String, &serde_json::Value)> = match v["designs"].as_array() {
        Some(ds) => ds
            .iter()
            .map(|d| (d["name"].as_str().unwrap_or("?").to_string(), &d["report"]))
            .collect(),
        None => vec![("design".to_string(), &v)],
    };
    for (name, r) in designs {
        let phases = r["phases"].as_array().into_iter().flatten();
        for counters in std::iter::once(&r["counters"]).chain(phases.map(|p| &p["counters"])) {
            for k in counters.as_object().into_iter().flat_map(|m| m.keys()) {
                seen.entry(k.clone()).or_default().insert(name.clone());
            }
        }
    }
}

/// The counter keys of runs covering every FTL × buffer policy and every file system
/// over every FTL, on small devices, plus the settings that add conditional keys.
fn keys_of_all_designs() -> BTreeMap<String, BTreeSet<String>> {
    // The zoned drive takes no write buffer and no random writes: its own runs below.
    let ftls = all(ssdlab::ftl::FtlKind::all()).replace(",zoned", "");
    let buffers = all(ssdlab::buffer::BufferKind::all());
    let fss = all(ssdlab::config::fs::FsKind::all()).replace("none,", "");
    let mut seen = BTreeMap::new();
    let small = ["--preset", "android-emmc", "--capacity", "64MiB"];
    // Random writes after a fill, so GC and merges run and the report subtracts the fill.
    let mut random_writes = |design: &[&str]| {
        let mut args = small.to_vec();
        args.extend_from_slice(design);
        args.extend(["--workload", "random-write", "--requests", "20k", "--fill"]);
        report_keys(&args, &mut seen);
    };
    // Every FTL under every buffer policy.
    random_writes(&[
        "--ftl",
        &ftls,
        "--buffer",
        &buffers,
        "--buffer-size",
        "1MiB",
    ]);
    // Keys reported only under some settings: background GC, DFTL's shared translation
    // reads, NFTL's log variant (the one AFTL's and CFTL's papers describe).
    random_writes(&["--ftl", "page", "--set", "ftl.gc_schedule=background"]);
    random_writes(&["--ftl", "dftl", "--set", "ftl.dftl.coalesce_misses=true"]);
    random_writes(&["--ftl", "nftl", "--set", "ftl.nftl.variant=log"]);
    // FDP's statistics and events (reported only with it on).
    random_writes(&["--ftl", "page", "--set", "ftl.fdp.enabled=true"]);
    // Every file system over every FTL (YAFFS2 runs on raw flash), with its mount phase.
    let mut args = small.to_vec();
    args.extend([
        "--fs",
        &fss,
        "--ftl",
        &ftls,
        "--span",
        "4MiB",
        "--workload",
        "iozone-file",
    ]);
    report_keys(&args, &mut seen);
    // A trace split into phases: each phase reports its own counters.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let trace = dir.path().join("t.ascii");
    let lines: String = (0..15u64)
        .map(|i| {
            let (lba, op) = if i < 10 {
                (i * 8, 0)
            } else {
                ((i - 10) * 8, 1)
            };
            format!("{} 0 {lba} 8 {op}\n", i * 1000)
        })
        .collect();
    std::fs::write(&trace, lines).expect("trace written");
    let config = dir.path().join("c.toml");
    std::fs::write(
        &config,
        format!(
            "[trace]\npath = {:?}\nformat = \"ascii\"\n\
             phases = [{{ name = \"write\", requests = 10 }}, {{ name = \"read\", requests = 5 }}]\n",
            trace.display().to_string()
        ),
    )
    .expect("config written");
    let config = config.display().to_string();
    let mut args = small.to_vec();
    args.extend(["--config", &config, "--ftl", "dftl,nftl"]);
    report_keys(&args, &mut seen);
    // The zoned drive under its log-on-zones generator; a conventional drive sent a zone
    // reset (a trace line with op ZR) reports the refusal.
    let mut args = small.to_vec();
    args.extend([
        "--ftl",
        "zoned",
        "--buffer",
        "none",
        "--workload",
        "zoned-seq",
        "--requests",
        "20k",
    ]);
    report_keys(&args, &mut seen);
    let zr = dir.path().join("zr.ascii");
    std::fs::write(&zr, "0 0 0 8 0\n1000 0 0 0 ZR\n").expect("trace written");
    let zr = zr.display().to_string();
    let mut args = small.to_vec();
    args.extend(["--trace", &zr, "--format", "ascii", "--ftl", "page"]);
    report_keys(&args, &mut seen);
    seen
}

#[test]
fn every_reported_counter_is_declared() {
    let declared: BTreeSet<&str> = names::counters().iter().map(|c| c.key).collect();
    let seen = keys_of_all_designs();
    let undeclared: Vec<String> = seen
        .iter()
        .filter(|(k, _)| !declared.contains(k.as_str()))
        .map(|(k, designs)| {
            format!(
                "{k} (reported by {})",
                designs.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    assert!(
        undeclared.is_empty(),
        "counters reported but not declared in any component's COUNTERS list: {undeclared:#?}"
    );
    // And every declaration is reported by one of these runs, but for what only a power
    // cut and a mount report (the recovery tests in src/ftl/twolevel.rs read those).
    let unseen: Vec<&str> = declared
        .iter()
        .filter(|k| !seen.contains_key(**k) && !k.starts_with("ftl.recovery."))
        .copied()
        .collect();
    println!("{} keys seen, {} declared", seen.len(), declared.len());
    assert!(
        unseen.is_empty(),
        "declared counters no run reported (a stale declaration, or a run to add here): {unseen:?}"
    );
}

#[test]
fn every_counter_is_declared_once_with_unit_and_description() {
    let all = names::counters();
    let mut keys = BTreeSet::new();
    for c in &all {
        assert!(keys.insert(c.key), "{} is declared twice", c.key);
        assert!(
            c.key.contains('.')
                && c.key.chars().all(|ch| ch.is_ascii_lowercase()
                    || ch.is_ascii_digit()
                    || ch == '.'
                    || ch == '_'),
            "{}: keys are dotted lower-case names",
            c.key
        );
        assert!(!c.unit.is_empty(), "{} has no unit", c.key);
        assert!(!c.description.is_empty(), "{} has no description", c.key);
    }
}

/// docs/outputs.md's counter table as the registry makes it, sorted by key.
fn table(all: &[Counter]) -> String {
    let mut rows: Vec<&Counter> = all.iter().collect();
    rows.sort_by_key(|c| c.key);
    let mut t = String::from("| key | kind | unit | what it counts |\n|---|---|---|---|\n");
    for c in rows {
        let kind = match c.kind {
            CounterKind::Counter => "counter",
            CounterKind::Gauge => "gauge",
        };
        t.push_str(&format!(
            "| `{}` | {kind} | {} | {} |\n",
            c.key, c.unit, c.description
        ));
    }
    t
}

const BEGIN: &str = "<!-- counter table: made from ssdlab::names::counters() -->\n";
const END: &str = "<!-- end of counter table -->";

#[test]
fn docs_counter_table_is_the_registry() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/outputs.md");
    let text = std::fs::read_to_string(&path).expect("docs/outputs.md");
    let start = text
        .find(BEGIN)
        .expect("docs/outputs.md has the counter table's start marker")
        + BEGIN.len();
    let end = start + text[start..].find(END).expect("and its end marker");
    let want = table(&names::counters());
    if std::env::var_os("SSDLAB_BLESS").is_some() {
        let new = format!("{}{want}{}", &text[..start], &text[end..]);
        std::fs::write(&path, new).expect("docs/outputs.md written");
        return;
    }
    assert_eq!(
        text[start..end],
        want,
        "docs/outputs.md's counter table differs from the declarations; \
         SSDLAB_BLESS=1 cargo test --release --test counters rewrites it"
    );
}
