//! The choices of every named flag as clap parsers, from the library's name lists
//! (`ssdlab::names`), so adding an FTL, a policy or a preset updates `--help`,
//! `ssdlab list` and every "expected one of …" message without touching the CLI.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::error::ErrorKind;
use std::ffi::OsStr;

use ssdlab::names::*;

/// Choices as clap possible values (shown by `--help`, checked by the parser, with
/// "a similar value exists" tips on typos).
fn possible(named: Vec<Named>) -> Vec<PossibleValue> {
    named
        .into_iter()
        .map(|(n, d)| {
            let v = PossibleValue::new(n);
            if d.is_empty() { v } else { v.help(d) }
        })
        .collect()
}

/// A parser of one name out of `named`.
pub fn one_of(named: Vec<Named>) -> PossibleValuesParser {
    PossibleValuesParser::new(possible(named))
}

/// A parser of a comma list of names out of `named`: each element is checked as
/// [`one_of`] checks a single name (same message, same tips).
pub fn list_of(named: Vec<Named>) -> NameList {
    NameList(one_of(named))
}

/// See [`list_of`].
#[derive(Clone)]
pub struct NameList(PossibleValuesParser);

impl TypedValueParser for NameList {
    type Value = Vec<String>;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Vec<String>, clap::Error> {
        let text = value
            .to_str()
            .ok_or_else(|| clap::Error::new(ErrorKind::InvalidUtf8).with_cmd(cmd))?;
        text.split(',')
            .map(|x| self.0.parse_ref(cmd, arg, OsStr::new(x.trim())))
            .collect()
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        self.0.possible_values()
    }
}
