//! `--workload NS=GEN,…`: a generator per namespace (issue 33: "generators and
//! `--workload` take a per-namespace list"; docs/placement.md).
//!
//! ```text
//! --workload GEN            [workload] kind = GEN             (every namespace without its own table)
//! --workload A=G1,B=G2      namespace A: its own [namespace.workload] table, or a copy of
//!                           [workload], with kind = G1; namespace B likewise with G2
//! refused (exit 2, before any run), naming the flag:
//!   no [[namespace]] tables, a trace replayed (namespaces take trace devices),
//!   a name no namespace has or named twice, a file-system workload as GEN,
//!   a namespace neither named nor carrying its own [namespace.workload] table
//! ```
//!
//! Why a namespace the list leaves out must have its own table: with a per-namespace
//! list the `[workload]` table is no one's generator in particular, and running its
//! default (the iozone suite) on a forgotten namespace would be a silent surprise.

use super::registry;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::error::ErrorKind;
use ssdlab::config::Config;
use ssdlab::workload::synth::SynthKind;
use std::ffi::OsStr;

/// Parses `--workload`: one generator name (checked against the registry as before), or a
/// comma list of `NS=GEN` whose every GEN is a generator name.
#[derive(Clone)]
pub struct WorkloadChoice(PossibleValuesParser);

impl WorkloadChoice {
    /// A parser over the generator names of `named`.
    pub fn new(named: Vec<ssdlab::names::Named>) -> Self {
        WorkloadChoice(registry::one_of(named))
    }
}

impl TypedValueParser for WorkloadChoice {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        let text = value
            .to_str()
            .ok_or_else(|| clap::Error::new(ErrorKind::InvalidUtf8).with_cmd(cmd))?;
        if !text.contains('=') {
            return self.0.parse_ref(cmd, arg, value);
        }
        for item in text.split(',') {
            match item.split_once('=') {
                Some((ns, generator)) if !ns.trim().is_empty() => {
                    self.0.parse_ref(cmd, arg, OsStr::new(generator.trim()))?;
                }
                _ => {
                    return Err(clap::Error::raw(
                        ErrorKind::ValueValidation,
                        format!(
                            "invalid value '{text}' for '--workload <NAME>': '{item}' is not \
                             NS=GEN; expected a generator name, or a comma list of \
                             NAMESPACE=GENERATOR (e.g. db=random-write,logs=seq-write)\n"
                        ),
                    )
                    .with_cmd(cmd));
                }
            }
        }
        Ok(text.to_string())
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        self.0.possible_values()
    }
}

/// The `(namespace, generator)` pairs of a per-namespace `--workload`; `None` for a
/// single generator name.
pub fn pairs(workload: &str) -> Option<Vec<(String, String)>> {
    workload.contains('=').then(|| {
        workload
            .split(',')
            .filter_map(|item| item.split_once('='))
            .map(|(n, g)| (n.trim().to_string(), g.trim().to_string()))
            .collect()
    })
}

/// Gives each namespace of `cfg` its generator from `--workload NS=GEN,…` (`flag` is the
/// flag as given, for messages); errors name the flag and what was expected.
pub fn apply(cfg: &mut Config, flag: &str, pairs: &[(String, String)]) -> Result<(), String> {
    let names: Vec<&str> = cfg.namespaces.iter().map(|n| n.name.as_str()).collect();
    if names.is_empty() {
        return Err(format!(
            "--workload {flag}: NS=GEN names namespaces and the design has none; expected \
             --workload GENERATOR, or [[namespace]] tables in the config (docs/placement.md)"
        ));
    }
    if cfg.trace.path.is_some() {
        return Err(format!(
            "--workload {flag}: expected no generators when a trace is replayed (--trace): \
             each namespace takes its requests from its trace device (namespace.device)"
        ));
    }
    let mut kinds: Vec<Option<SynthKind>> = vec![None; names.len()];
    for (ns, generator) in pairs {
        let Some(i) = names.iter().position(|n| n == ns) else {
            return Err(format!(
                "--workload {flag}: no namespace named '{ns}'; expected one of {}",
                names.join(", ")
            ));
        };
        if kinds[i].is_some() {
            return Err(format!(
                "--workload {flag}: namespace '{ns}' named twice; expected each namespace once"
            ));
        }
        let kind: SynthKind = toml::Value::String(generator.clone())
            .try_into()
            .map_err(|_| {
                format!(
                    "--workload {flag}: '{generator}' for namespace '{ns}' is a file-system \
                     workload; expected a block generator (`ssdlab list`), as a namespace \
                     is a range of blocks"
                )
            })?;
        kinds[i] = Some(kind);
    }
    for (i, kind) in kinds.iter().enumerate() {
        let ns = &mut cfg.namespaces[i];
        match kind {
            Some(k) => {
                let mut w = ns.workload.clone().unwrap_or_else(|| cfg.workload.clone());
                w.kind = *k;
                ns.workload = Some(w);
            }
            None if ns.workload.is_none() => {
                return Err(format!(
                    "--workload {flag}: namespace '{}' has no generator; expected \
                     {}=GENERATOR in the list, or its own [namespace.workload] table",
                    ns.name, ns.name
                ));
            }
            None => {}
        }
    }
    Ok(())
}
