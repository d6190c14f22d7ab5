//! Fuzzing the configuration layers: any `--set`-style override of any key with any kind
//! of value, and any size string, loads or is refused without panicking, and a refusal
//! names the key.

use proptest::prelude::*;
use ssdlab::config::{Config, ConfigError, leaves, set_key};
use ssdlab::units::Size;

/// Every key of the default configuration, dotted, plus optional keys absent from it.
fn keys() -> Vec<String> {
    let mut out: Vec<String> = leaves(&toml::Table::try_from(Config::default()).unwrap())
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    out.extend(
        [
            "device.pages_per_block",
            "device.read_ns",
            "device.endurance_cycles",
            "device.channel_mb_s",
            "device.t_rc_ns",
            "buffer.size",
            "buffer.block_pages",
            "buffer.lfu_aging_refs",
            "workload.requests",
            "workload.span",
            "workload.mean_gap_ns",
            "ftl.dftl.cmt_entries",
            "ftl.dftl.cmt_fraction",
        ]
        .map(String::from),
    );
    // The trace path would make the run read a file; it is not a configuration bound.
    out.retain(|k| !k.starts_with("trace."));
    out
}

fn value() -> impl Strategy<Value = toml::Value> {
    prop_oneof![
        any::<i64>().prop_map(toml::Value::Integer),
        (0i64..100_000).prop_map(toml::Value::Integer),
        any::<f64>().prop_map(toml::Value::Float),
        any::<bool>().prop_map(toml::Value::Boolean),
        "[0-9]{1,6}(B|KiB|MiB|GiB|TiB|K|M|G|XB|)".prop_map(toml::Value::String),
        "[a-z-]{0,12}".prop_map(toml::Value::String),
        Just(toml::Value::String("".into())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_override_loads_or_is_refused_naming_its_key(
        pick in any::<prop::sample::Index>(),
        v in value(),
    ) {
        let keys = keys();
        let key = &keys[pick.index(keys.len())];
        let mut t = toml::Table::new();
        // A small device keeps the accepted cases quick to validate.
        set_key(&mut t, "device.capacity", toml::Value::String("1GiB".into()));
        set_key(&mut t, key, v.clone());
        match Config::load_with(None, None, t) {
            Err(e) => {
                let last = key.rsplit('.').next().unwrap();
                prop_assert!(e.to_string().contains(last), "{key} = {v}: {e}");
            }
            Ok(c) => {
                if let Err(e) = c.validate() {
                    // Refusals of a cross-key rule name another key; all are typed.
                    let named = e.to_string();
                    prop_assert!(!named.is_empty());
                    if let ConfigError::Value { key: k, .. } = &e {
                        prop_assert!(named.starts_with(k.as_str()));
                    }
                }
            }
        }
    }

    #[test]
    fn size_strings_parse_or_are_refused(text in "\\PC{0,16}") {
        if let Ok(s) = text.parse::<Size>() {
            prop_assert_eq!(s.to_string().parse::<Size>().ok(), Some(s));
        }
        let mut t = toml::Table::new();
        set_key(&mut t, "device.capacity", toml::Value::String(text.clone()));
        if let Err(e) = Config::load_with(None, None, t) {
            prop_assert!(e.to_string().contains("capacity"), "{text:?}: {e}");
        }
    }
}
