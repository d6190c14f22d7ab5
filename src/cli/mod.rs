//! Command-line interface (binary side: the library knows nothing of clap). Flags and
//! TOML resolve into the library's configurations; registries supply every list of
//! names; outputs are checked before any work and committed together after it.
//!
//! Every bad input ends in [`CliError::Input`] (exit code 2) with a message that names
//! the flag, file or key and what was expected; a failed write in [`CliError::Output`]
//! (exit code 1) names the path and the reason.

mod args;
mod config_cmd;
mod crashtest;
mod design;
mod flags;
mod gen_trace;
mod hybrid;
mod import_mqsim;
mod list;
mod ns_workload;
mod output;
mod probe;
mod registry;
mod reproduce;
mod run;
mod serve;
mod sweep;

use clap::{Parser, Subcommand};
use ssdlab::host::SimError;

/// Errors the binary maps to exit codes.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad input (exit 2).
    #[error("{0}")]
    Input(String),
    /// Could not write an output (exit 1).
    #[error("{0}")]
    Output(String),
    /// Some of a sweep's cells failed; the rest was written (exit 1).
    #[error("{0}")]
    Failed(String),
}

impl CliError {
    /// Process exit code.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Input(_) => 2,
            CliError::Output(_) | CliError::Failed(_) => 1,
        }
    }
}

impl From<SimError> for CliError {
    fn from(e: SimError) -> Self {
        CliError::Input(e.to_string())
    }
}

const ABOUT: &str =
    "ssdlab — a fast simulator of SSD firmware designs (NAND, FTLs, GC, wear leveling, timing)";

const AFTER_HELP: &str = "\
Examples:
  ssdlab run                                    built-in TLC NVMe device, IOZone-like suite
  ssdlab run --preset ssd-a --workload random-write --span 8GiB --requests 1M --qd 32
  ssdlab run --gc greedy,fifo,cost-benefit --fill --workload random-write --capacity 4GiB
  ssdlab run --buffer lru,qlru --buffer-size 64MiB --qd 256 --workload zipf --read-percent 0
  ssdlab run --trace trace.csv --format msr --trace-fit wrap --json out.json --svg figs/
  ssdlab list                                   presets, FTLs, GC policies, workloads, formats
  ssdlab config --preset ssd-c                  print a preset as a TOML file to edit
  ssdlab reproduce --list                       paper reproductions (CSV, SVG, Markdown)
  ssdlab sweep grid.toml --out results          a grid of designs, parallel and resumable
  ssdlab import-mqsim ssdconfig.xml -o m.toml   MQSim's XML as an ssdlab configuration

`ssdlab COMMAND --help` lists every flag with its choices.";

/// Top-level command line.
#[derive(Parser, Debug)]
#[command(name = "ssdlab", version, about = ABOUT, after_help = AFTER_HELP)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Simulate a workload (generator or trace) on one or more designs.
    #[command(after_help = run::AFTER_HELP)]
    Run(run::RunArgs),
    /// List presets, FTLs, GC policies, workloads and trace formats.
    List,
    /// Print the resolved configuration as TOML (a starting point for --config).
    Config(config_cmd::ConfigArgs),
    /// Write a synthetic workload as an ASCII trace (`time_ns dev lba size op`), or
    /// convert a block trace of any format into one (`--trace FILE`).
    #[command(after_help = gen_trace::AFTER_HELP)]
    GenTrace(gen_trace::GenTraceArgs),
    /// Run a workload on an HDD alone and behind a flash cache (Kim et al. 2011).
    #[command(after_help = hybrid::AFTER_HELP)]
    Hybrid(hybrid::HybridArgs),
    /// Run every cell of a grid of designs (parallel, resumable), into CSV, Parquet,
    /// JSON lines and an HTML page.
    #[command(after_help = sweep::AFTER_HELP)]
    Sweep(sweep::SweepArgs),
    /// Judge the papers' claims against the registry (--all), or rebuild a source
    /// paper's experiment: CSV tables, SVG figures and a Markdown summary.
    #[command(after_help = reproduce::AFTER_HELP)]
    Reproduce(reproduce::ReproduceArgs),
    /// Serve the simulated SSD as a Network Block Device (unix socket or TCP), with its
    /// data, its timing and power-loss recovery.
    #[command(after_help = serve::AFTER_HELP)]
    Serve(serve::ServeArgs),
    /// Cut the power at random flash operations and check what each FTL recovers.
    #[command(after_help = crashtest::AFTER_HELP)]
    Crashtest(crashtest::CrashtestArgs),
    /// Run the management-block probe (Ryu & Park 2009) against a real block device or
    /// file with O_DIRECT writes and name the inferred management-block size.
    #[command(after_help = probe::AFTER_HELP)]
    Probe(probe::ProbeArgs),
    /// Convert MQSim's ssdconfig.xml (and workload XML) into an ssdlab TOML
    /// configuration, naming every MQSim parameter it maps, approximates or cannot map.
    #[command(after_help = import_mqsim::AFTER_HELP)]
    ImportMqsim(import_mqsim::ImportMqsimArgs),
}

/// The command tree as parsed: every flag that takes a value reads a negative number
/// as its value, so `--qd -1` is refused by the flag's own parser, naming the flag and
/// the range it takes, rather than by clap as "unexpected argument '-1'". (A value that
/// is not a number and starts with `-` is still read as the next flag; [`matches_from`]
/// names the flag when that flag does not exist.)
pub fn command() -> clap::Command {
    fn negatives_are_values(cmd: clap::Command) -> clap::Command {
        cmd.mut_args(|a| {
            if a.get_action().takes_values() {
                a.allow_negative_numbers(true)
            } else {
                a
            }
        })
        .mut_subcommands(negatives_are_values)
    }
    use clap::CommandFactory;
    // serve runs one device: its help says one name where run's says a comma list.
    let one = |what: &'static str| move |a: clap::Arg| a.value_name("NAME").help(what);
    let size = |what: &'static str| move |a: clap::Arg| a.value_name("SIZE").help(what);
    negatives_are_values(Cli::command()).mut_subcommand("serve", |s| {
        s.mut_arg("ftl", one("FTL (one name: serve runs one device)"))
            .mut_arg("gc", one("GC victim policy (one name)"))
            .mut_arg("buffer", one("Write-buffer policy (one name)"))
            .mut_arg("fs", one("Not used by serve (it exports the block device)"))
            .mut_arg("capacity", size("Logical capacity, e.g. 64GiB (one size)"))
            .mut_arg(
                "buffer_size",
                size("Write-buffer size, e.g. 256MiB (one size; default: the device's DRAM)"),
            )
            .mut_arg(
                "mgmt_block",
                size("SSD management block size, e.g. 1MiB (one size; see run --help)"),
            )
    })
}

/// Parses the process's command line with [`command`] (a malformed one: clap's message
/// on standard error, exit 2; help and version: exit 0), then refuses any flag the
/// command does not read here ([`flags::check`]).
pub fn parse() -> Result<Cli, CliError> {
    use clap::FromArgMatches;
    let cmd = command();
    let m = matches_from(&cmd, std::env::args_os()).unwrap_or_else(|e| e.exit());
    flags::check(&cmd, &m)?;
    Ok(Cli::from_arg_matches(&m).unwrap_or_else(|e| e.exit()))
}

/// Parses `args` (the program name first) with `cmd`, as clap does, except for one
/// message. clap reads a token starting with `-` after a flag as the next flag, so
/// `--qd -inf`, `--seed --1`, `--ftl -x` or `--fill -inf` was "unexpected argument '-i'
/// found", naming no flag (issue 30). When the unknown argument directly follows a flag
/// that takes a value, it was meant as that value: the flag's own parser judges it, so
/// the message names the flag and what it expects; a value the parser would take (a
/// path `-x`) gets how to pass it (`--json=-x`). Command lines that parse are untouched.
pub fn matches_from<I, T>(cmd: &clap::Command, args: I) -> Result<clap::ArgMatches, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    cmd.clone().try_get_matches_from(&args).map_err(|e| {
        if e.kind() != clap::error::ErrorKind::UnknownArgument {
            return e;
        }
        let mut built = cmd.clone();
        built.build();
        hyphen_value_error(&built, &args).unwrap_or(e)
    })
}

/// See [`matches_from`]: the error for a value starting with `-` that clap read as an
/// unknown flag, if that is what happened.
fn hyphen_value_error(cmd: &clap::Command, args: &[std::ffi::OsString]) -> Option<clap::Error> {
    let words: Vec<&str> = args
        .iter()
        .skip(1)
        .map(|a| a.to_str())
        .collect::<Option<_>>()?;
    let at = words
        .iter()
        .position(|w| cmd.find_subcommand(w).is_some())?;
    let sub = cmd.find_subcommand(words[at])?;
    let flag_of = |w: &str| -> Option<&clap::Arg> {
        if let Some(long) = w.strip_prefix("--") {
            let long = long.split('=').next().unwrap_or_default();
            sub.get_arguments().find(|a| {
                a.get_long() == Some(long) || a.get_all_aliases().is_some_and(|v| v.contains(&long))
            })
        } else {
            let mut c = w.strip_prefix('-')?.chars();
            let short = c.next()?;
            sub.get_arguments().find(|a| a.get_short() == Some(short))
        }
    };
    let known = |w: &str| w == "--help" || w == "-h" || flag_of(w).is_some();
    for j in at + 1..words.len().saturating_sub(1) {
        let (flag, value) = (words[j], words[j + 1]);
        if flag == "--" {
            break;
        }
        // `--qd=3` and `-q4` carry their value; only a bare flag reads the next word.
        let bare = if flag.starts_with("--") {
            !flag.contains('=')
        } else {
            flag.len() == 2 && flag.starts_with('-')
        };
        if !bare || !value.starts_with('-') || value == "-" || known(value) {
            continue;
        }
        if !flag_of(flag).is_some_and(|a| a.get_action().takes_values()) {
            continue;
        }
        // The same command line with the value attached (`--qd=-inf`), so clap hands it
        // to the flag's parser.
        let mut joined: Vec<String> = std::iter::once("ssdlab".to_string())
            .chain(words.iter().map(|w| w.to_string()))
            .collect();
        joined[j + 1] = format!("{flag}={value}");
        joined.remove(j + 2);
        return Some(match cmd.clone().try_get_matches_from(&joined) {
            Err(e) => e,
            Ok(_) => {
                let mut sub = sub.clone();
                sub.error(
                    clap::error::ErrorKind::UnknownArgument,
                    format!(
                        "'{value}' after {flag} was read as a flag, and there is no such \
                         flag; to give {flag} a value starting with `-`, write {flag}={value}"
                    ),
                )
            }
        });
    }
    None
}

/// Runs the parsed command line.
pub fn main_with(cli: Cli) -> Result<(), CliError> {
    match &cli.command {
        Command::Run(a) => run::cmd(a),
        Command::List => output::print(&list::text()),
        Command::Config(a) => config_cmd::cmd(a),
        Command::GenTrace(a) => gen_trace::cmd(a),
        Command::Hybrid(a) => hybrid::cmd(a),
        Command::Reproduce(a) => reproduce::cmd(a),
        Command::Sweep(a) => sweep::cmd(a),
        Command::Serve(a) => serve::cmd(a),
        Command::Crashtest(a) => crashtest::cmd(a),
        Command::Probe(a) => probe::cmd(a),
        Command::ImportMqsim(a) => import_mqsim::cmd(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Whether a flag takes a number: by the type it parses into, or (a comma list of
    /// sizes parses into strings) by its value name.
    fn takes_a_number(a: &clap::Arg) -> bool {
        use std::any::TypeId;
        let t = a.get_value_parser().type_id();
        [
            TypeId::of::<u16>(),
            TypeId::of::<u32>(),
            TypeId::of::<u64>(),
            TypeId::of::<usize>(),
            TypeId::of::<f64>(),
            TypeId::of::<ssdlab::units::Size>(),
        ]
        .iter()
        .any(|id| t == *id)
            || a.get_value_names()
                .is_some_and(|v| v.iter().any(|n| n.as_str().starts_with("SIZE")))
    }

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
        command().debug_assert();
    }

    /// One flag that takes a value, with the start of a command line that reaches it.
    struct ValueFlag {
        /// `ssdlab SUB` plus a placeholder for each required positional, so the flag is
        /// what gets parsed.
        argv: Vec<String>,
        /// `--name`.
        flag: String,
        /// Whether it takes a number ([`takes_a_number`]).
        number: bool,
    }

    /// Every flag of every subcommand that takes a value, from clap's own command tree:
    /// a new flag is covered by the tests that walk it the day it is added.
    fn value_flags() -> Vec<ValueFlag> {
        let root = command();
        let mut out = Vec::new();
        for sub in root.get_subcommands() {
            let positionals = sub
                .get_positionals()
                .filter(|p| p.is_required_set())
                .count();
            for a in sub.get_arguments() {
                let Some(long) = a.get_long() else { continue };
                if a.is_positional() || !a.get_action().takes_values() {
                    continue;
                }
                let mut argv = vec!["ssdlab".to_string(), sub.get_name().to_string()];
                argv.extend(std::iter::repeat_n("x".to_string(), positionals));
                out.push(ValueFlag {
                    argv,
                    flag: format!("--{long}"),
                    number: takes_a_number(a),
                });
            }
        }
        out
    }

    /// `--qd -1` and every other flag given a negative number: never clap's "unexpected
    /// argument '-1'"; a flag that takes a number refuses it with exit 2, naming the flag
    /// and what it expects.
    #[test]
    fn a_negative_value_names_the_flag_and_what_it_expects() {
        let (mut cases, mut numeric) = (0, 0);
        for f in value_flags() {
            numeric += usize::from(f.number);
            for bad in ["-1", "-5", "-0.5", "-1e3"] {
                let mut argv = f.argv.clone();
                argv.extend([f.flag.clone(), bad.to_string()]);
                let r = command().try_get_matches_from(&argv);
                let msg = r.as_ref().err().map(|e| e.to_string()).unwrap_or_default();
                assert!(!msg.contains("unexpected argument"), "{argv:?}: {msg}");
                if f.number {
                    let e = r.expect_err(&format!("{argv:?} accepted a negative number"));
                    assert_eq!(e.exit_code(), 2, "{argv:?}: {msg}");
                    assert_eq!(
                        e.kind(),
                        clap::error::ErrorKind::ValueValidation,
                        "{argv:?}: {msg}"
                    );
                    assert!(
                        msg.contains(&f.flag) && msg.contains("expected"),
                        "{argv:?} should name {} and what it expects: {msg}",
                        f.flag
                    );
                }
                cases += 1;
            }
        }
        eprintln!("{cases} negative values tried on {numeric} numeric flags");
        assert!(numeric >= 20, "only {numeric} numeric flags found");
    }

    /// Issue 30, hostile suite: `--qd -inf`, `--seed --1`, `--ftl -x`, `--fill -inf`
    /// were "unexpected argument '-i' found" with no flag named (clap reads the value as
    /// the next flag). Every flag that takes a value, given one starting with `-` that
    /// is no flag, gets a message naming it; a real flag after it still parses as one.
    #[test]
    fn a_hyphen_value_names_the_flag() {
        let root = command();
        let flags = value_flags();
        for f in &flags {
            for v in ["-inf", "--1", "-x", "--nope"] {
                let mut argv = f.argv.clone();
                argv.extend([f.flag.clone(), v.to_string()]);
                let e = matches_from(&root, argv.clone()).expect_err(&format!("{argv:?} accepted"));
                let msg = e.to_string();
                assert_eq!(e.exit_code(), 2, "{argv:?}: {msg}");
                assert!(!msg.contains("unexpected argument"), "{argv:?}: {msg}");
                assert!(
                    msg.contains(&f.flag),
                    "{argv:?} should name {}: {msg}",
                    f.flag
                );
                if f.number {
                    assert!(msg.contains("expected"), "{argv:?}: {msg}");
                }
            }
        }
        assert!(flags.len() >= 60, "only {} flags with values", flags.len());
        // A real flag after a flag with an optional value is still that flag.
        let m = matches_from(&root, ["ssdlab", "run", "--fill", "--qd", "4"]).expect("--fill --qd");
        let run = m.subcommand_matches("run").unwrap();
        assert_eq!(run.get_one::<u32>("qd").copied(), Some(4));
        // And a missing value is still clap's "a value is required".
        let e = matches_from(&root, ["ssdlab", "run", "--qd", "--seed", "3"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::InvalidValue, "{e}");
    }
}
