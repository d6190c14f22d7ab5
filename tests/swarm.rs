//! Seeded swarm over designs: random preset × capacity × over-provisioning × FTL × GC
//! policy × buffer × timing model × queue depth × workload × preconditioning. Every
//! combination must either be refused before any work (a configuration error naming
//! what to change) or run to the end with the FTL, NAND and buffer invariants and the
//! host-side presence model checked ([`RunOptions::check`]). Some cases turn on FDP (page
//! FTL), a zoned drive or two to three namespaces (issue 33). Running out of space, a
//! panic, or any other failure mid-run is a bug; the case's seed and design are printed.
//!
//! CI runs a bounded number of small cases. More, and larger devices:
//!
//!     SSDLAB_SWARM=2000 cargo test --release --test swarm -- --nocapture
//!     SSDLAB_SWARM_SEED=1234 cargo test --release --test swarm   # one case again

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab::config::Config;
use ssdlab::host::SimError;
use ssdlab::sim::{RunOptions, run};

const PRESETS: &[&str] = &[
    "default",
    "qlc-nvme",
    "ssd-a",
    "ssd-b",
    "ssd-c",
    "android-emmc",
];
const FTLS: &[&str] = &[
    "page", "nftl", "bast", "fast", "faster", "aftl", "cftl", "dftl",
];
const GCS: &[&str] = &["greedy", "cost-benefit", "fifo", "d-choices"];
const BUFFERS: &[&str] = &[
    "none", "lru", "lfu", "fab", "bplru", "clc", "bpac", "exlru", "qlru",
];
const WORKLOADS: &[&str] = &[
    "random-write",
    "mixed",
    "zipf",
    "hot-cold",
    "seq-write",
    "oltp",
];

/// One random design as `--set`-style overrides, and the preset.
fn design(seed: u64, big: bool) -> (&'static str, Vec<(String, toml::Value)>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let preset = *PRESETS.choose(&mut rng).unwrap();
    let ftl = *FTLS.choose(&mut rng).unwrap();
    let s = |v: &str| toml::Value::String(v.into());
    let mut o = vec![("ftl.name".to_string(), s(ftl))];
    let caps: &[u64] = if big {
        &[1, 2, 4, 8, 16, 32]
    } else {
        &[1, 2, 4]
    };
    o.push((
        "device.capacity".into(),
        s(&format!("{}GiB", caps.choose(&mut rng).unwrap())),
    ));
    if rng.gen_bool(0.3) {
        let op = *[5.0, 7.0, 10.0, 15.0, 28.0].choose(&mut rng).unwrap();
        o.push(("device.op_percent".into(), toml::Value::Float(op)));
    }
    // Only FTLs with a GC victim policy take one (the others refuse the key).
    if matches!(ftl, "page" | "dftl") {
        o.push(("ftl.gc".into(), s(GCS.choose(&mut rng).unwrap())));
    }
    let buffer = *BUFFERS.choose(&mut rng).unwrap();
    if buffer != "none" {
        o.push(("buffer.name".into(), s(buffer)));
        let mib = *[1u64, 4, 16].choose(&mut rng).unwrap();
        o.push(("buffer.size".into(), s(&format!("{mib}MiB"))));
    }
    let timing = if rng.gen_bool(0.5) { "full" } else { "count" };
    o.push(("timing.mode".into(), s(timing)));
    let qd = *[1i64, 4, 32, 128].choose(&mut rng).unwrap();
    o.push(("host.qd".into(), toml::Value::Integer(qd)));
    o.push((
        "workload.kind".into(),
        s(WORKLOADS.choose(&mut rng).unwrap()),
    ));
    let requests = if big { 50_000 } else { 3_000 };
    o.push(("workload.requests".into(), toml::Value::Integer(requests)));
    match rng.gen_range(0..4) {
        0 => o.push(("precondition".into(), s("fill"))),
        1 if !big => {}
        1 => o.push(("precondition".into(), s("steady"))),
        _ => {}
    }
    o.push(("seed".into(), toml::Value::Integer(seed as i64 & 0xffff)));
    // Issue 33's interfaces, drawn after everything above so earlier seeds keep their
    // designs: FDP on the page FTL, a zoned drive, two or three namespaces.
    if ftl == "page" && rng.gen_bool(0.4) {
        // The buffer drawn above stays: it keeps each page's placement identifier.
        o.push(("ftl.fdp.enabled".into(), toml::Value::Boolean(true)));
        let kinds = ["initially-isolated", "persistently-isolated"];
        let handles = (0..rng.gen_range(1..=4))
            .map(|_| s(kinds.choose(&mut rng).unwrap()))
            .collect();
        o.push(("ftl.fdp.handles".into(), toml::Value::Array(handles)));
    }
    if rng.gen_bool(0.1) {
        // A zoned drive takes no write buffer; its own workload writes at the pointers,
        // the others' writes are refused and counted.
        o.retain(|(k, _)| !k.starts_with("buffer.") && k != "ftl.name" && k != "ftl.gc");
        o.push(("ftl.name".into(), s("zoned")));
        if rng.gen_bool(0.5) {
            o.retain(|(k, _)| k != "workload.kind" && k != "precondition");
            o.push(("workload.kind".into(), s("zoned-seq")));
        }
        if rng.gen_bool(0.5) {
            let d = *[1i64, 2, 4].choose(&mut rng).unwrap();
            o.push(("ftl.zoned.dies_per_zone".into(), toml::Value::Integer(d)));
        }
    } else if rng.gen_bool(0.2) {
        let n = rng.gen_range(2..=3);
        let namespaces = (0..n)
            .map(|i| {
                let mut t = toml::Table::new();
                t.insert("name".into(), s(&format!("ns{i}")));
                t.insert("share".into(), toml::Value::Float(1.0 / n as f64));
                toml::Value::Table(t)
            })
            .collect();
        o.push(("namespace".into(), toml::Value::Array(namespaces)));
    }
    (preset, o)
}

fn describe(preset: &str, o: &[(String, toml::Value)]) -> String {
    let mut d = format!("--preset {preset}");
    for (k, v) in o {
        let v = match v {
            toml::Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        d += &format!(" --set {k}={v}");
    }
    d
}

/// Runs case `seed`: `Ok(true)` ran, `Ok(false)` refused up front, `Err` a bug.
fn case(seed: u64, big: bool) -> Result<bool, String> {
    let (preset, o) = design(seed, big);
    let mut t = toml::Table::new();
    for (k, v) in &o {
        // Dotted keys nest (`ftl.fdp.enabled`), as `--set` reads them.
        let mut parts: Vec<&str> = k.split('.').collect();
        let last = parts.pop().unwrap();
        let mut at = &mut t;
        for p in parts {
            at = at
                .entry(p)
                .or_insert_with(|| toml::Value::Table(toml::Table::new()))
                .as_table_mut()
                .unwrap();
        }
        at.insert(last.into(), v.clone());
    }
    let cfg = match Config::load_with(Some(preset), None, t) {
        Ok(c) => c,
        // Refused while loading: a configuration error, before any work.
        Err(_) => return Ok(false),
    };
    let out = std::panic::catch_unwind(|| {
        run(
            &cfg,
            RunOptions {
                check: true,
                ..RunOptions::default()
            },
        )
    });
    match out {
        Ok(Ok(o)) => {
            // Issue 30: the WA split must add up for every FTL (management-block
            // read-modify-write was in no part of it).
            let r = &o.report;
            let parts = r.write_amplification_host
                + r.write_amplification_gc
                + r.write_amplification_wl
                + r.write_amplification_map
                + r.write_amplification_rmw;
            if (parts - r.write_amplification).abs() > 1e-9 * r.write_amplification.max(1.0) {
                Err(format!(
                    "WA parts add up to {parts} but the total is {}",
                    r.write_amplification
                ))
            } else {
                Ok(true)
            }
        }
        Ok(Err(SimError::Config(_))) => Ok(false),
        Ok(Err(e)) => Err(format!("failed mid-run: {e}")),
        Err(p) => Err(format!(
            "panicked: {}",
            p.downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| p.downcast_ref::<&str>().copied())
                .unwrap_or("?")
        )),
    }
    .map_err(|e| {
        format!(
            "swarm case seed={seed}: {e}\n  design: {}",
            describe(preset, &o)
        )
    })
}

#[test]
fn every_design_runs_checked_or_is_refused_up_front() {
    if let Some(seed) = std::env::var("SSDLAB_SWARM_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        let r = case(seed, std::env::var_os("SSDLAB_SWARM_BIG").is_some());
        println!("case {seed}: {r:?}");
        r.unwrap();
        return;
    }
    let n: u64 = std::env::var("SSDLAB_SWARM")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(24);
    let big = n > 24;
    let base = 0x5_3a2d_u64;
    let (mut ran, mut refused) = (0, 0);
    let mut failures = Vec::new();
    // Cases drawing FDP, a zoned drive or namespaces (issue 33).
    let placement = (0..n)
        .filter(|&i| {
            design(base + i, big).1.iter().any(|(k, v)| {
                k == "namespace"
                    || k == "ftl.fdp.enabled"
                    || (k == "ftl.name" && v.as_str() == Some("zoned"))
            })
        })
        .count();
    assert!(placement > 0, "no case drew FDP, ZNS or namespaces");
    println!("swarm: {placement} of the cases use FDP, a zoned drive or namespaces");
    for i in 0..n {
        match case(base + i, big) {
            Ok(true) => ran += 1,
            Ok(false) => refused += 1,
            Err(e) => failures.push(e),
        }
    }
    println!("swarm: {n} cases, {ran} ran checked, {refused} refused up front");
    assert!(
        failures.is_empty(),
        "{} of {n} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // A swarm where everything is refused checks nothing.
    assert!(ran * 2 >= n, "only {ran} of {n} designs ran");
}
