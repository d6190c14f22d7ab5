//! Adding an FTL is one spec and one registry line (issue 32, point 2): an FTL defined
//! here, in test code, and registered with `ssdlab::ftl::register`, is listed where
//! `ssdlab list` and `--ftl` take their names, parsed from a config file, validated by
//! its own check, estimated by the memory estimate, checked for feasibility, run through
//! the reference model every FTL runs against (tests/ftl_model), and run as a whole
//! simulation. Without the `register` call every test here fails.

mod common;
mod ftl_model;

use proptest::prelude::*;
use ssdlab::config::{Config, ConfigError};
use ssdlab::ftl::{FtlConfig, FtlKind, FtlSpec, page, register};

/// The dummy FTL: the page FTL's machinery under another name, description, memory
/// figure and one check of its own, so each use of the spec is visible.
static DUMMY: FtlSpec = FtlSpec {
    name: "dummy",
    description: "dummy FTL of tests/spec_dummy_ftl.rs: the page FTL under another name",
    validate: dummy_validate,
    // A forward and a reverse map of 4-byte entries (the page FTL keeps the forward one).
    memory_bytes: |_, _, logical_pages| logical_pages * 8,
    ..page::SPEC
};

/// The most free blocks the dummy lets GC collect up to.
const DUMMY_MAX_HIGH: u32 = 8;

/// The dummy's own check: every registered spec's check runs whichever FTL is chosen,
/// so it looks at the key only when the dummy is.
fn dummy_validate(cfg: &FtlConfig) -> Result<(), ConfigError> {
    if cfg.name.name() == "dummy" && cfg.gc_high_free_blocks > DUMMY_MAX_HIGH {
        return Err(ConfigError::value(
            "ftl.gc_high_free_blocks",
            cfg.gc_high_free_blocks,
            format!("at most {DUMMY_MAX_HIGH} with the dummy FTL"),
        ));
    }
    Ok(())
}

fn dummy() -> FtlKind {
    register(&DUMMY)
}

fn load(ftl_lines: &str) -> Result<Config, ConfigError> {
    let text = format!("[device]\ncapacity = \"256MiB\"\n[ftl]\n{ftl_lines}");
    Config::load(None, Some(("dummy.toml", &text)))
}

#[test]
fn the_dummy_is_listed_where_the_cli_takes_names() {
    dummy();
    let listed = ssdlab::names::ftls();
    assert!(
        listed
            .iter()
            .any(|(n, d)| *n == "dummy" && d == DUMMY.description),
        "{listed:?}"
    );
    // After the built-ins, which keep their order.
    assert_eq!(listed.first().map(|e| e.0), Some("page"));
    assert_eq!(listed.last().map(|e| e.0), Some("dummy"));
}

#[test]
fn the_dummy_parses_from_a_config_file_and_echoes_its_name() {
    let kind = dummy();
    let cfg = load("name = \"dummy\"\n").unwrap();
    assert_eq!(cfg.ftl.name, kind);
    assert_eq!(cfg.ftl.name.spec().description, DUMMY.description);
    let echo = serde_json::to_value(&cfg.ftl).unwrap();
    assert_eq!(echo["name"], "dummy");
    // An unknown name is refused listing the registry, dummy included.
    let e = load("name = \"nope\"\n").unwrap_err().to_string();
    assert!(e.contains("`dummy`") && e.contains("`page`"), "{e}");
}

#[test]
fn the_dummy_validates_its_own_key() {
    dummy();
    load("name = \"dummy\"\n").unwrap().validate().unwrap();
    let e = load("name = \"dummy\"\ngc_high_free_blocks = 9\n")
        .unwrap()
        .validate()
        .unwrap_err();
    assert_eq!(e.key(), Some("ftl.gc_high_free_blocks"), "{e}");
    assert!(e.to_string().contains("dummy"), "{e}");
    // The check is the dummy's: the page FTL takes the same value.
    load("name = \"page\"\ngc_high_free_blocks = 9\n")
        .unwrap()
        .validate()
        .unwrap();
    // Knobs it does not read are refused as for any FTL, from its spec's capabilities.
    let e = load("name = \"dummy\"\n[ftl.aftl]\nfine_slots = 7\n")
        .unwrap()
        .validate()
        .unwrap_err();
    match e {
        ConfigError::UnusedKnob { ftl, users, .. } => {
            assert_eq!(ftl, "dummy");
            assert_eq!(users, "aftl");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_dummy_is_estimated_by_its_spec() {
    dummy();
    let part = |name: &str| {
        let d = load(&format!("name = \"{name}\"\n"))
            .unwrap()
            .validate()
            .unwrap();
        let ftl = d.memory.parts.iter().find(|p| p.0 == "ftl").unwrap().1;
        (ftl, d.device.logical_pages)
    };
    let (dummy_bytes, logical) = part("dummy");
    let (page_bytes, _) = part("page");
    assert!(dummy_bytes > 0);
    // The spec's 8 bytes per logical page against the page FTL's 4.
    assert_eq!(dummy_bytes - page_bytes, logical * 4);
}

#[test]
fn the_dummy_fails_feasibility_by_its_name() {
    let kind = dummy();
    let cfg = FtlConfig {
        name: kind,
        ..FtlConfig::default()
    };
    let geo = common::one_plane(8, 8);
    let e = ssdlab::ftl::feasible::check(&cfg, &geo, 60).unwrap_err();
    assert_eq!(e.ftl, "dummy");
    ssdlab::ftl::feasible::check(&cfg, &geo, 16).unwrap();
}

#[test]
fn the_dummy_runs_a_whole_simulation() {
    dummy();
    let text = "[device]\ncapacity = \"32MiB\"\nop_percent = 25\n[timing]\nmode = \"count\"\n\
                [ftl]\nname = \"dummy\"\n[workload]\nkind = \"random-write\"\nrequests = 20000\n";
    let cfg = Config::load(None, Some(("dummy.toml", text))).unwrap();
    let out = ssdlab::sim::run(
        &cfg,
        ssdlab::sim::RunOptions {
            check: true,
            ..Default::default()
        },
    )
    .unwrap();
    let json = serde_json::to_value(&out.report).unwrap();
    assert_eq!(json["config"]["ftl"]["name"], "dummy", "{}", json["config"]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn the_dummy_reads_back_its_last_writes_in_the_reference_model(seq in ftl_model::ops(64)) {
        let kind = dummy();
        // The model's configurations come from the registry: the dummy is among them.
        let configs: Vec<FtlConfig> =
            ftl_model::configs().into_iter().filter(|c| c.name == kind).collect();
        prop_assert!(!configs.is_empty());
        for cfg in configs {
            for geo in ftl_model::geometries_for(&cfg) {
                ftl_model::run(&cfg, &geo, 64, &seq)?;
            }
        }
    }
}
