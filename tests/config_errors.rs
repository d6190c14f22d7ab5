//! Every class of configuration error is typed and carries the key, the value given and
//! what is expected; each is raised by `Config::load_with` / `Config::validate`, before
//! anything runs.

use ssdlab::config::{Config, ConfigError, set_key};

fn over(pairs: &[(&str, toml::Value)]) -> toml::Table {
    let mut t = toml::Table::new();
    for (k, v) in pairs {
        set_key(&mut t, k, v.clone());
    }
    t
}

fn s(v: &str) -> toml::Value {
    toml::Value::String(v.into())
}

fn i(v: i64) -> toml::Value {
    toml::Value::Integer(v)
}

/// Loads and validates the default preset with `pairs` set from the command line.
fn refuse(pairs: &[(&str, toml::Value)]) -> ConfigError {
    let small = [("device.capacity", s("4GiB"))];
    let mut all: Vec<(&str, toml::Value)> = small.to_vec();
    all.extend(pairs.iter().cloned());
    match Config::load_with(None, None, over(&all)) {
        Err(e) => e,
        Ok(c) => c.validate().expect_err("refused"),
    }
}

fn value_error(e: &ConfigError) -> (&str, &str, &str) {
    match e {
        ConfigError::Value {
            key,
            value,
            expected,
        } => (key, value, expected),
        other => panic!("expected a Value error, got {other:?}"),
    }
}

#[test]
fn parse_errors_name_the_origin_and_the_key() {
    let e = Config::load(None, Some(("my.toml", "[ftl]\ngc_d = \"many\"\n"))).unwrap_err();
    match &e {
        ConfigError::Parse { origin, key, .. } => {
            assert_eq!(origin, "my.toml");
            assert_eq!(key.as_deref(), Some("ftl.gc_d"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let e = refuse(&[("ftl.gc", s("zzz"))]);
    assert!(e.to_string().starts_with("command line"), "{e}");
    assert!(
        e.to_string().contains("greedy"),
        "names come from the registry: {e}"
    );
    assert_eq!(e.key(), Some("ftl.gc"));
}

#[test]
fn unknown_preset_lists_the_presets() {
    let e = Config::load(Some("nope"), None).unwrap_err();
    match &e {
        ConfigError::UnknownPreset { name, expected } => {
            assert_eq!(name, "nope");
            assert!(expected.contains("ssd-a") && expected.contains("android-emmc"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn values_out_of_bounds_name_key_value_and_range() {
    // (overrides, key, value, part of what is expected)
    type Case<'a> = (Vec<(&'a str, toml::Value)>, &'a str, &'a str, &'a str);
    let cases: Vec<Case> = vec![
        (
            vec![("ftl.gc_d", i(1_000_000))],
            "ftl.gc_d",
            "1000000",
            "1..=64",
        ),
        (
            vec![("device.endurance_cycles", i(0))],
            "device.endurance_cycles",
            "0",
            "1..=",
        ),
        (vec![("host.qd", i(513))], "host.qd", "513", "1..=512"),
        (
            vec![("buffer.name", s("lru")), ("buffer.size", s("1TiB"))],
            "buffer.size",
            "1TiB",
            "logical capacity 4GiB",
        ),
        (
            vec![("buffer.exlru_window", i(1 << 20))],
            "buffer.exlru_window",
            "1048576",
            "1..=4096",
        ),
        (
            vec![("workload.andrew_files", i(100_000_000))],
            "workload.andrew_files",
            "100000000",
            "1..=1000000",
        ),
        (
            vec![("workload.probe_partitions", i(0))],
            "workload.probe_partitions",
            "0",
            "1..=",
        ),
        (
            vec![("workload.requests", i(i64::MAX))],
            "workload.requests",
            "9223372036854775807",
            "1..=",
        ),
        (
            vec![("device.read_ns", i(i64::MAX))],
            "device.read_ns",
            "9223372036854775807",
            "10 s",
        ),
        (
            vec![("device.capacity", s("16TiB"))],
            "device.capacity",
            "16TiB",
            "2^31 pages",
        ),
        (
            vec![("device.pages_per_block", i(1 << 20))],
            "device.pages_per_block",
            "1048576",
            "1..=65536",
        ),
        (vec![("ftl.gc_d", i(5))], "ftl.gc_d", "5", "d-choices"),
    ];
    for (pairs, key, value, expected) in cases {
        let e = refuse(&pairs);
        let (k, v, x) = value_error(&e);
        assert_eq!((k, v), (key, value), "{e}");
        assert!(x.contains(expected), "{e}");
        assert!(
            e.to_string()
                .starts_with(&format!("{key} = {value}: expected")),
            "{e}"
        );
    }
}

#[test]
fn unused_knobs_name_the_ftls_that_use_them() {
    let e = refuse(&[("ftl.name", s("bast")), ("ftl.gc", s("fifo"))]);
    assert_eq!(
        e.to_string(),
        "ftl.gc = fifo: the bast FTL does not use a GC victim policy (used by: page, dftl)"
    );
    let e = refuse(&[("ftl.name", s("dftl")), ("ftl.static_wl_threshold", i(8))]);
    match &e {
        ConfigError::UnusedKnob {
            key, ftl, users, ..
        } => {
            assert_eq!(
                (key.as_str(), *ftl, users.as_str()),
                ("ftl.static_wl_threshold", "dftl", "page")
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn geometry_ftl_and_workload_errors_are_typed() {
    let e = refuse(&[("device.channels", i(0))]);
    assert!(matches!(e, ConfigError::Geometry(_)), "{e:?}");
    assert!(e.to_string().contains("device.channels"), "{e}");
    // A GC reserve of 64 blocks per pool does not fit a 64 MiB device.
    let e = refuse(&[
        ("device.capacity", s("64MiB")),
        ("ftl.gc_high_free_blocks", i(64)),
        ("ftl.gc_low_free_blocks", i(63)),
    ]);
    assert!(matches!(e, ConfigError::Ftl { ftl: "page", .. }), "{e:?}");
    let e = refuse(&[
        ("workload.kind", s("random-write")),
        ("workload.span", s("8GiB")),
    ]);
    assert!(matches!(e, ConfigError::Workload(_)), "{e:?}");
    assert!(e.to_string().contains("span"), "{e}");
}

#[test]
fn memory_beyond_what_is_available_is_refused_unless_allowed() {
    // The largest device accepted (2^31 pages of 512 B) with sequence tags needs about
    // 2^31 × 12 B = 24 GiB; refused wherever less is available.
    let big = [
        ("device.capacity", s("1TiB")),
        ("device.page_size", s("512B")),
        ("device.pages_per_block", i(256)),
        ("device.track_write_seq", toml::Value::Boolean(true)),
    ];
    let c = Config::load_with(None, None, over(&big)).unwrap();
    let available = ssdlab::config::available_memory();
    match c.validate() {
        Err(ConfigError::Memory {
            need_bytes,
            available_bytes,
            fix,
            ..
        }) => {
            assert!(need_bytes > available_bytes);
            assert!(fix.contains("device.capacity"), "{fix}");
        }
        Ok(d) => {
            let (a, _) = available.expect("no limit known, so nothing refused");
            assert!(d.memory.total_bytes() <= a);
        }
        Err(e) => panic!("{e}"),
    }
    let mut allowed = big.to_vec();
    allowed.push(("run.allow_memory", toml::Value::Boolean(true)));
    allowed.push(("ftl.name", s("nftl")));
    let c = Config::load_with(None, None, over(&allowed)).unwrap();
    let est = c.validate().expect("allowed");
    assert!(est.memory.total_bytes() > 4 << 30, "{:?}", est.memory);
}
