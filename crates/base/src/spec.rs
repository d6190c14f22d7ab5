//! What every component's configuration section shares, below all of them: the
//! validation error [`ConfigError`] (why a configuration was refused, naming the key, the
//! value given and what would be accepted, so the message alone says how to fix it) and
//! the range checks that build it.
//!
//! Also the vocabulary of what components report: a [`Counter`] declaration (key, counter
//! or gauge, unit, description), which each component makes once next to the code that
//! counts, and the [`Counters`] map they fill, which keeps each value's kind so that the
//! report tells running totals from state values without reading the key.
//!
//! It sits at the bottom of the module graph (it names only `units`) so that each
//! component can validate its own section without naming `config`, which aggregates the
//! sections and so sits above them (docs/architecture.md).

use std::fmt::Display;

/// A configuration the simulator refuses before doing any work (exit code 2).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// A layer does not parse: TOML syntax, an unknown key, a wrong type or an unknown
    /// name (serde lists the registered names). `origin` is the file path, "command line"
    /// or "preset NAME".
    #[error("{origin}: {message}")]
    Parse {
        /// File, "command line" or preset the text came from.
        origin: String,
        /// Dotted key the parser stopped at, when it names one.
        key: Option<String>,
        /// The parser's message (it names the key).
        message: String,
    },
    /// `device.preset` / `--preset` names no preset.
    #[error("unknown preset '{name}': expected one of {expected}")]
    UnknownPreset {
        /// The name given.
        name: String,
        /// Registered preset names, comma separated.
        expected: String,
    },
    /// A value outside what its key accepts.
    #[error("{key} = {value}: expected {expected}")]
    Value {
        /// Dotted key, e.g. `ftl.gc_d`.
        key: String,
        /// The value given, as the user wrote it (sizes with units).
        value: String,
        /// What is accepted: a range with its unit, a list of names, a relation to
        /// another key.
        expected: String,
    },
    /// A knob the chosen FTL does not read, set by a file or a flag away from its default.
    #[error("{key} = {value}: the {ftl} FTL does not use {what} (used by: {users})")]
    UnusedKnob {
        /// Dotted key.
        key: String,
        /// The value given.
        value: String,
        /// The FTL chosen.
        ftl: &'static str,
        /// What the knob sets, e.g. "a GC victim policy".
        what: String,
        /// FTLs that read it, from the registry.
        users: String,
    },
    /// The array cannot be built (its message names the field and the limit).
    #[error("{0}")]
    Geometry(String),
    /// The FTL's own settings or its fit on the device (the message names the key).
    #[error("{message}")]
    Ftl {
        /// The FTL chosen.
        ftl: &'static str,
        /// Why, naming the key and the smallest setting that works where known.
        message: String,
    },
    /// The generator's settings do not fit the device (the message names the key).
    #[error("{0}")]
    Workload(String),
    /// The run would need more memory than the machine has available.
    #[error(
        "the run needs about {need} of memory ({breakdown}) but only {available} is available \
         ({limit}): expected {fix}; or pass --allow-memory (run.allow_memory = true) to run anyway",
        need = crate::units::approx(*need_bytes),
        available = crate::units::approx(*available_bytes)
    )]
    Memory {
        /// Estimated peak bytes.
        need_bytes: u64,
        /// Bytes available to this process.
        available_bytes: u64,
        /// Where the limit comes from (MemAvailable, cgroup).
        limit: String,
        /// Largest parts of the estimate.
        breakdown: String,
        /// What to change.
        fix: String,
    },
}

impl ConfigError {
    /// A [`ConfigError::Value`] for `key` = `value`.
    pub fn value(key: impl Into<String>, value: impl Display, expected: impl Into<String>) -> Self {
        ConfigError::Value {
            key: key.into(),
            value: value.to_string(),
            expected: expected.into(),
        }
    }

    /// The key the error is about, when it is about one key.
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigError::Value { key, .. } | ConfigError::UnusedKnob { key, .. } => Some(key),
            ConfigError::UnknownPreset { .. } => Some("device.preset"),
            ConfigError::Parse { key, .. } => key.as_deref(),
            _ => None,
        }
    }
}

/// Checks `lo <= v <= hi` for key `key`; `what` explains the unit or meaning.
pub fn check_range<T: PartialOrd + Display + Copy>(
    key: &str,
    v: T,
    lo: T,
    hi: T,
    what: &str,
) -> Result<(), ConfigError> {
    if v < lo || v > hi {
        return Err(ConfigError::value(key, v, format!("{lo}..={hi} ({what})")));
    }
    Ok(())
}

/// Checks that a floating-point `v` is finite and in `lo..=hi`.
pub fn check_f64(key: &str, v: f64, lo: f64, hi: f64, what: &str) -> Result<(), ConfigError> {
    if !v.is_finite() || v < lo || v > hi {
        return Err(ConfigError::value(key, v, format!("{lo} to {hi} ({what})")));
    }
    Ok(())
}

/// FTL constructors (their own files) report `String`s; a [`ConfigError`] raised inside
/// one by a shared helper (e.g. `ftl::unit_pages`) passes through as its message.
impl From<ConfigError> for String {
    fn from(e: ConfigError) -> String {
        e.to_string()
    }
}

/// Whether a reported figure is a running total or a state value: a report over part of
/// a run (the measured phase after preconditioning, one phase of a trace) shows a running
/// total's difference over that part and a state value as it stands at its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CounterKind {
    /// A running total since the component was built (events, pages, blocks).
    Counter,
    /// A state value: bytes or entries held now, a maximum reached, a size.
    Gauge,
}

/// One figure under `counters` in a run's report, declared once next to the code that
/// counts it, with what it is: the JSON key, whether it is a running total or a state
/// value, its unit and a one-line description. The registry of every declaration is
/// `names::counters()`; docs/outputs.md's counter table is generated from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Counter {
    /// The report's key, dotted by component (`ftl.gc.victims`).
    pub key: &'static str,
    /// Running total or state value.
    pub kind: CounterKind,
    /// What one unit counts, plural (`pages`, `bytes`, `merges`).
    pub unit: &'static str,
    /// One line: what is counted.
    pub description: &'static str,
}

impl Counter {
    /// A running total.
    pub const fn total(key: &'static str, unit: &'static str, description: &'static str) -> Self {
        Counter {
            key,
            kind: CounterKind::Counter,
            unit,
            description,
        }
    }

    /// A state value.
    pub const fn gauge(key: &'static str, unit: &'static str, description: &'static str) -> Self {
        Counter {
            key,
            kind: CounterKind::Gauge,
            unit,
            description,
        }
    }

    /// Whether it is a state value.
    pub fn is_gauge(&self) -> bool {
        self.kind == CounterKind::Gauge
    }
}

/// Counter values by key, each set through its [`Counter`] declaration, so that a key
/// cannot be spelt two ways and the report knows each one's kind without parsing its
/// name. Ordered by key; the report's `counters` object is [`Counters::into_map`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    values: std::collections::BTreeMap<&'static str, (u64, CounterKind)>,
}

impl Counters {
    /// No values.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `counter` to `value` (a second set replaces the first).
    pub fn set(&mut self, counter: &Counter, value: u64) {
        self.values.insert(counter.key, (value, counter.kind));
    }

    /// The value of `key`, if it was set.
    pub fn get(&self, key: &str) -> Option<&u64> {
        self.values.get(key).map(|(v, _)| v)
    }

    /// The value of `counter`, 0 if it was not set.
    pub fn value(&self, counter: &Counter) -> u64 {
        self.get(counter.key).copied().unwrap_or(0)
    }

    /// Keys and values in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.values.iter().map(|(k, (v, _))| (*k, *v))
    }

    /// Keys and kinds in key order.
    pub fn kinds(&self) -> impl Iterator<Item = (&'static str, CounterKind)> + '_ {
        self.values.iter().map(|(k, (_, kind))| (*k, *kind))
    }

    /// Number of keys set.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no key is set.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The values over the part of the run since `before` was taken: running totals
    /// less their value then (never below 0), state values as they are.
    pub fn since(mut self, before: &Counters) -> Counters {
        for (k, (v, kind)) in self.values.iter_mut() {
            if *kind == CounterKind::Counter {
                *v -= before.get(k).copied().unwrap_or(0).min(*v);
            }
        }
        self
    }

    /// The report's form: key to value.
    pub fn into_map(self) -> std::collections::BTreeMap<String, u64> {
        self.values
            .into_iter()
            .map(|(k, (v, _))| (k.to_string(), v))
            .collect()
    }
}

impl std::ops::Index<&str> for Counters {
    type Output = u64;
    fn index(&self, key: &str) -> &u64 {
        self.get(key)
            .unwrap_or_else(|| panic!("counter {key} was not set"))
    }
}
