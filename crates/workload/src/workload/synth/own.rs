//! A generator's own table, `[workload.NAME]` (issue 32: "one spec per algorithm … its own
//! config section with its own validation"), and the checks every such table shares.
//!
//! ```text
//! [workload]        kind, span, size, size_max, align, requests, read_percent,
//!                   mean_gap_ns, offset, placement_id, phase     ◀── common to every generator
//! [workload.NAME]   the keys only generator NAME reads (its file declares them):
//!   seq-write, seq-read   streams, stream_loop
//!   zipf                  theta                                 (= zipf_theta)
//!   hot-cold              hot_span_percent, hot_access_percent
//!   oltp                  zipf_theta
//!   iozone                record, reads_first, random           (= iozone_*),
//!                         zipf_theta, hot_span_percent, hot_access_percent
//!   probe                 step, partitions, block               (= probe_*)
//!   andrew                files                                 (= andrew_files)
//!   zoned-seq             zone_size, zone_capacity
//!   cachelib, lsm, iometer   their own typed sections (cachelib.rs, lsm.rs, ../iometer.rs)
//!
//! parsing (`deserialize_folded`): each table given is folded into the flat key it names
//!   table with another kind        -> error naming workload.NAME
//!   flat key set to another value  -> error naming workload.NAME.KEY (one setting, two values)
//!   otherwise                      -> flat key = the table's value; the table is dropped
//! ```
//!
//! Why fold rather than keep the tables: the flat keys are what every report echoes (the
//! golden reports and every JSON key stay as they were) and what the code above reads, and
//! a key several generators read (`zipf_theta`: zipf, oltp, iozone's zipf phases) is one
//! setting wherever it is written. The old flat keys stay accepted, so every existing
//! config, preset and flag keeps working; a key one generator reads may be written in
//! that generator's table instead.

use super::{SynthConfig, SynthError};
use crate::spec::ConfigError;
use serde::Serialize;

/// Folds a generator's own table (if given) into the flat keys; each generator with a
/// table exports one and names it in its spec ([`super::GeneratorSpec::with_own`]).
/// `strict`: a flat key set to another value is refused (a `[workload]` table); else the
/// table's key wins (a `[[workload.phase]]` entry's table over the keys it inherits).
pub(crate) type FoldFn = fn(&mut SynthConfig, strict: bool) -> Result<(), ConfigError>;

/// Refuses generator `name`'s table when the config runs another generator.
pub(crate) fn refuse_other_kind(cfg: &SynthConfig, name: &str) -> Result<(), ConfigError> {
    if cfg.kind.name() == name {
        return Ok(());
    }
    Err(ConfigError::value(
        format!("workload.{name}"),
        "a table",
        format!(
            "no [workload.{name}] table with workload.kind = \"{}\" (its keys are the {name} \
             generator's)",
            cfg.kind.name()
        ),
    ))
}

/// Folding one generator's table into the flat keys of `cfg`.
pub(crate) struct Fold<'a> {
    name: &'static str,
    cfg: &'a mut SynthConfig,
    defaults: SynthConfig,
    strict: bool,
}

impl<'a> Fold<'a> {
    /// Starts folding generator `name`'s table; refused when `cfg` runs another generator.
    pub(crate) fn new(
        cfg: &'a mut SynthConfig,
        name: &'static str,
        strict: bool,
    ) -> Result<Self, ConfigError> {
        refuse_other_kind(cfg, name)?;
        Ok(Fold {
            name,
            cfg,
            defaults: SynthConfig::default(),
            strict,
        })
    }

    /// Table key `key`, if given, becomes the flat key `flat` (`field` reaches it); a flat
    /// key set to another value than its default and the table's is refused when strict.
    pub(crate) fn key<V: Into<T>, T: PartialEq + Serialize>(
        &mut self,
        key: &str,
        flat: &str,
        given: Option<V>,
        field: fn(&mut SynthConfig) -> &mut T,
    ) -> Result<(), ConfigError> {
        let Some(v) = given.map(Into::into) else {
            return Ok(());
        };
        let default_is = field(&mut self.defaults) == field(self.cfg);
        let cur = field(self.cfg);
        if self.strict && !default_is && *cur != v {
            return Err(ConfigError::value(
                format!("workload.{}.{key}", self.name),
                shown(&v),
                format!(
                    "workload.{flat} unset or equal to it (it is {}): both name the same setting",
                    shown(cur)
                ),
            ));
        }
        *cur = v;
        Ok(())
    }
}

/// A generator's own table as [`own_keys!`] declares it: its keys fold into the flat ones.
pub(crate) trait OwnKeys {
    /// Folds every key given.
    fn fold_into(self, f: &mut Fold<'_>) -> Result<(), ConfigError>;
}

/// Folds generator `name`'s `table`, if given, into `cfg` ([`FoldFn`]).
pub(crate) fn fold<K: OwnKeys>(
    cfg: &mut SynthConfig,
    table: Option<K>,
    name: &'static str,
    strict: bool,
) -> Result<(), ConfigError> {
    match table {
        Some(t) => t.fold_into(&mut Fold::new(cfg, name, strict)?),
        None => Ok(()),
    }
}

/// The [`FoldFn`] of spec `$spec`, whose table is the [`SynthConfig`] field `$field`.
macro_rules! fold_field {
    ($field:ident, $spec:ident) => {
        |c, strict| {
            let t = c.$field.take();
            $crate::workload::synth::own::fold(c, t, $spec.name, strict)
        }
    };
}
pub(crate) use fold_field;

/// Declares a generator's own table: a struct of optional keys, each folding into the
/// flat `[workload]` key after `=>`.
macro_rules! own_keys {
    ($(#[$doc:meta])* $name:ident {
        $($(#[$kdoc:meta])* $key:ident: $ty:ty => $flat:ident),* $(,)?
    }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $($(#[$kdoc])* pub $key: Option<$ty>,)*
        }

        impl $crate::workload::synth::own::OwnKeys for $name {
            fn fold_into(
                self,
                f: &mut $crate::workload::synth::own::Fold<'_>,
            ) -> Result<(), $crate::spec::ConfigError> {
                $(f.key(stringify!($key), stringify!($flat), self.$key, |c| &mut c.$flat)?;)*
                Ok(())
            }
        }
    };
}
pub(crate) use own_keys;

/// A value as a config file writes it (sizes in units, enums by name).
fn shown<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => "?".into(),
    }
}

/// A generator's own typed section (`[workload.cachelib]`, `[workload.lsm]`) as its check
/// starts: the section (its defaults when absent) when the config runs the generator,
/// `None` when it runs another one (after refusing the section there). Such a generator
/// runs in closed loop, so `mean_gap_ns` is refused with it.
pub(crate) fn own_section<T: Clone + Default>(
    cfg: &SynthConfig,
    name: &'static str,
    section: &Option<T>,
) -> Result<Option<(T, Section)>, SynthError> {
    if section.is_some() {
        refuse_other_kind(cfg, name)?;
    }
    if cfg.kind.name() != name {
        return Ok(None);
    }
    if let Some(g) = cfg.mean_gap_ns {
        return Err(ConfigError::value(
            "workload.mean_gap_ns",
            g,
            format!("unset with kind = \"{name}\" (its requests are a closed loop)"),
        )
        .into());
    }
    Ok(Some((section.clone().unwrap_or_default(), Section(name))))
}

/// Names the keys of generator `.0`'s section in errors.
pub(crate) struct Section(&'static str);

impl Section {
    /// `workload.NAME.key = v: expected want`.
    pub(crate) fn bad(&self, key: &str, v: &dyn std::fmt::Display, want: String) -> SynthError {
        ConfigError::value(format!("workload.{}.{key}", self.0), v, want).into()
    }
}
