//! The knob table: every `[ftl]` key set away from its default, under every FTL, either
//! validates (the FTL reads it) or is refused naming the FTLs that do — from one table,
//! `ssdlab::ftl::KNOBS`, so adding a key without deciding who reads it fails here.

use ssdlab::config::{Config, ConfigError, leaves, set_key};
use ssdlab::ftl::{FtlConfig, FtlKind, knob};

/// A value other than the default that every FTL reading the key accepts on a 4 GiB
/// default device.
fn other_value(key: &str, v: &toml::Value) -> toml::Value {
    let s = |x: &str| toml::Value::String(x.into());
    match (key, v) {
        ("gc", _) => s("cost-benefit"),
        ("gc_schedule", _) => s("preemptive"),
        ("placement", _) => s("by-address"),
        ("channel_placement", _) => s("one-channel"),
        ("mgmt_block", _) => s("16KiB"),
        ("superblock", _) => s("2MiB"),
        ("log.victim", _) => s("fifo"),
        ("log.log_blocks", _) => toml::Value::Integer(64),
        ("dftl.cmt_policy", _) => s("lru"),
        ("dftl.cmt_start", _) => s("cold"),
        ("cftl.full", _) => s("evict"),
        ("cftl.demotion", _) => s("lru"),
        ("cftl.levels", _) => toml::Value::Integer(1),
        ("nftl.variant", _) => s("log"),
        (_, toml::Value::Boolean(b)) => toml::Value::Boolean(!b),
        (_, toml::Value::Integer(n)) => toml::Value::Integer(n + 1),
        (_, toml::Value::Float(f)) => toml::Value::Float(f / 2.0),
        (k, v) => panic!("no alternative value for ftl.{k} = {v}"),
    }
}

fn design(
    ftl: &str,
    key: &str,
    value: toml::Value,
    extra: &[(&str, toml::Value)],
) -> Result<(), ConfigError> {
    // No SLC cache: the default preset's would refuse the superblocks that some
    // block-mapped keys need (a superblock's members must share one cell mode).
    let mut text = format!(
        "[device]\ncapacity = \"4GiB\"\nop_percent = 28.0\nslc_cache_percent = 0.0\n\
         [ftl]\nname = \"{ftl}\"\n"
    );
    let mut ftl_t = toml::Table::new();
    for (k, v) in extra.iter().cloned().chain([(key, value)]) {
        set_key(&mut ftl_t, k, v);
    }
    let mut t = toml::Table::new();
    t.insert("ftl".into(), toml::Value::Table(ftl_t));
    text.push_str(&toml::to_string(&t).unwrap().replacen("[ftl]\n", "", 1));
    let c = Config::load(None, Some(("knobs.toml", &text)))?;
    c.validate().map(drop)
}

#[test]
fn every_knob_under_every_ftl_runs_or_is_refused_with_its_users() {
    let mut keys = leaves(&toml::Table::try_from(FtlConfig::default()).unwrap());
    // Optional keys absent from the defaults.
    keys.push(("dftl.cmt_entries".into(), toml::Value::Integer(4095)));
    // Left out of the serialized defaults (reports omit the warm default).
    keys.push(("dftl.cmt_start".into(), toml::Value::String("warm".into())));
    let mut checked = 0;
    for (key, default) in keys {
        if key == "name" {
            continue;
        }
        let k = knob(&key).unwrap_or_else(|| panic!("ftl.{key} missing from KNOBS"));
        let value = other_value(&key, &default);
        for &(kind, name, _) in FtlKind::all() {
            // Keys that only mean something with another: gc_d with d-choices, the
            // block-mapped FTLs' channel placement with a superblock.
            let mut extra = Vec::new();
            if key == "gc_d" && kind.uses_gc_policy() {
                extra.push(("gc", toml::Value::String("d-choices".into())));
            }
            if key.starts_with("suspend.") && kind.uses_gc_schedule() {
                extra.push(("gc_schedule", toml::Value::String("preemptive".into())));
            }
            if key == "channel_placement" && kind.maps_blocks() {
                extra.push(("superblock", toml::Value::String("2MiB".into())));
            }
            let r = design(name, &key, value.clone(), &extra);
            if k.used_by(kind) {
                r.unwrap_or_else(|e| panic!("ftl.{key} = {value} under {name}: {e}"));
            } else {
                match r {
                    Err(ConfigError::UnusedKnob {
                        key: got,
                        ftl,
                        users,
                        ..
                    }) => {
                        assert_eq!(got, format!("ftl.{key}"));
                        assert_eq!(ftl, name);
                        assert_eq!(users, k.users());
                        assert!(!users.split(", ").any(|u| u == name));
                    }
                    other => panic!("ftl.{key} = {value} under {name}: {other:?}"),
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn a_knob_set_to_its_default_is_accepted_by_every_ftl() {
    for &(_, name, _) in FtlKind::all() {
        design(name, "gc", toml::Value::String("greedy".into()), &[])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn gc_d_without_d_choices_is_refused() {
    let e = design("page", "gc_d", toml::Value::Integer(4), &[]).unwrap_err();
    assert_eq!(e.key(), Some("ftl.gc_d"), "{e}");
}

/// DFTL with FIFO has no steady state under random writes below 100 % over-provisioning
/// (docs/ftls.md): refused up front naming the key and the fix, accepted at 100 %.
#[test]
fn dftl_with_fifo_is_refused_below_full_over_provisioning() {
    let load = |op: f64| {
        let text = format!(
            "[device]\ncapacity = \"1GiB\"\nop_percent = {op:.1}\n[ftl]\nname = \"dftl\"\ngc = \"fifo\"\n"
        );
        Config::load(None, Some(("fifo.toml", &text)))
            .unwrap()
            .validate()
            .map(drop)
    };
    match load(7.0) {
        Err(ConfigError::Value { key, expected, .. }) => {
            assert_eq!(key, "ftl.gc");
            assert!(expected.contains("device.op_percent >= 100"), "{expected}");
        }
        r => panic!("dftl + fifo at 7% OP: {r:?}"),
    }
    load(100.0).expect("dftl + fifo at 100% OP");
}
