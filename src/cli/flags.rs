//! Which flags each command reads: one table, [`FLAGS`], so that no flag is parsed and
//! ignored. Every flag of every command is in it (a test walks clap's command tree, so
//! a new flag that is not listed fails the build's tests); a flag given on the command
//! line that the command, workload or generator chosen does not read is refused with
//! exit 2, naming what would read it.
//!
//! Flags that become config keys whose use depends on the whole configuration (a trace
//! or a generator, the generator's kind) are listed as [`Use::Key`]: the library's
//! unused-key table (`config::design`) refuses them, with the key and the flag's
//! effect, after the preset, `--config` file and `--set` are merged; this table then
//! only says so.

use super::CliError;
use clap::ArgMatches;
use clap::parser::ValueSource;

/// When a flag is read.
#[derive(Clone, Copy)]
pub enum Use {
    /// By every run of the command.
    Always,
    /// As the config key named, refused by the library's unused-key table when the run
    /// does not read it.
    Key(#[cfg_attr(not(test), allow(dead_code))] &'static str),
    /// Only when the predicate holds on the command's flags; otherwise refused, naming
    /// what would read it.
    When(fn(&ArgMatches) -> bool, &'static str),
    /// Never by this command; refused, naming what would read it.
    Never(&'static str),
}

/// One row: a command (`*`: every command that has the flag, unless a row names the
/// command) and a flag's long name.
pub struct FlagUse {
    /// Subcommand name, or `*`.
    pub command: &'static str,
    /// Long name, without `--`.
    pub flag: &'static str,
    /// When it is read.
    pub used: Use,
}

const fn row(command: &'static str, flag: &'static str, used: Use) -> FlagUse {
    FlagUse {
        command,
        flag,
        used,
    }
}

/// Whether the flag with clap id `id` was typed on the command line.
fn given(m: &ArgMatches, id: &str) -> bool {
    matches!(m.value_source(id), Some(ValueSource::CommandLine))
}

/// Whether a write buffer may be in use: `--buffer` was not given as `none` alone.
fn buffered(m: &ArgMatches) -> bool {
    !m.try_get_one::<Vec<String>>("buffer")
        .ok()
        .flatten()
        .is_some_and(|v| v.iter().all(|b| b == "none"))
}

const BUFFER: &str = "a write buffer (--buffer other than none)";
const GEN_TRACE: &str = "`ssdlab run` (gen-trace writes the workload's requests, which no \
                         design, preconditioning or host queue changes)";

use Use::{Always, Key, Never, When};

/// Every flag of every command and when it is read (see the module documentation).
pub const FLAGS: &[FlagUse] = &[
    // The design (run, config, gen-trace, serve, crashtest; hybrid's flash cache).
    row("*", "preset", Always),
    row("*", "fs", Key("fs.name")),
    row("*", "ftl", Always),
    row("*", "gc", Always),
    row("*", "buffer", Always),
    row("*", "buffer-size", When(buffered, BUFFER)),
    row("*", "dispatch", When(buffered, BUFFER)),
    row("*", "op", Always),
    row("*", "capacity", Always),
    row("*", "organisation", Always),
    row("*", "mgmt-block", Always),
    row("*", "placement", Always),
    row("*", "channel-placement", Always),
    row("*", "timing", Always),
    // The workload: generator settings are refused with a trace by the library.
    row("*", "workload", Always),
    row("*", "access-spec", Key("workload.iometer.spec")),
    row("*", "span", Key("workload.span")),
    row("*", "size", Key("workload.size")),
    row("*", "size-max", Key("workload.size_max")),
    row("*", "requests", Always),
    row("*", "read-percent", Key("workload.read_percent")),
    row("*", "mean-gap-ns", Key("workload.mean_gap_ns")),
    row("*", "fill", Always),
    row("*", "steady", Always),
    row("*", "precondition", Always),
    row("*", "host-log", Always),
    row("*", "runs", Always),
    // Host, trace, settings, outputs.
    row("*", "qd", Always),
    row("*", "seed", Always),
    row("*", "trace", Always),
    row("*", "format", Key("trace.format")),
    row("*", "trace-device", Key("trace.device")),
    row("*", "trace-fit", Key("trace.fit")),
    row("*", "columns", Key("trace.columns")),
    row("*", "file-trace", Key("fs.trace")),
    row("*", "speedup", Key("host.speedup")),
    row("*", "config", Always),
    row("*", "set", Always),
    row("*", "allow-memory", Always),
    row("*", "json", Always),
    row(
        "*",
        "json-format",
        When(
            |m| given(m, "json"),
            "--json FILE (the shape of the JSON report)",
        ),
    ),
    row("*", "csv", Always),
    row("*", "quiet", Always),
    row("*", "svg", Always),
    row("*", "html", Always),
    row("*", "out", Always),
    row("gen-trace", "out-format", Always),
    row("*", "list", Always),
    // hybrid: the HDD and its flash cache.
    row("hybrid", "hdd", Always),
    row("hybrid", "cache", Always),
    row("hybrid", "write-policy", Always),
    row("hybrid", "table", Always),
    row("hybrid", "no-hint", Always),
    row("hybrid", "eviction", Always),
    row("hybrid", "bypass-seq", Always),
    row("hybrid", "flash-preset", Always),
    // gen-trace writes requests: the design only sets the capacity.
    row("gen-trace", "ftl", Never(GEN_TRACE)),
    row("gen-trace", "gc", Never(GEN_TRACE)),
    row("gen-trace", "buffer", Never(GEN_TRACE)),
    row("gen-trace", "buffer-size", Never(GEN_TRACE)),
    row("gen-trace", "dispatch", Never(GEN_TRACE)),
    row("gen-trace", "op", Never(GEN_TRACE)),
    row("gen-trace", "organisation", Never(GEN_TRACE)),
    row("gen-trace", "mgmt-block", Never(GEN_TRACE)),
    row("gen-trace", "placement", Never(GEN_TRACE)),
    row("gen-trace", "channel-placement", Never(GEN_TRACE)),
    row("gen-trace", "timing", Never(GEN_TRACE)),
    row("gen-trace", "fill", Never(GEN_TRACE)),
    row("gen-trace", "steady", Never(GEN_TRACE)),
    row("gen-trace", "precondition", Never(GEN_TRACE)),
    row("gen-trace", "host-log", Never(GEN_TRACE)),
    row("gen-trace", "qd", Never(GEN_TRACE)),
    // serve: NBD clients bring their own requests and queue depth.
    row(
        "serve",
        "fs",
        Never("`ssdlab run`'s file-system workloads (serve exports the block device)"),
    ),
    row(
        "serve",
        "qd",
        Never("run and hybrid (an NBD client sets its own queue depth)"),
    ),
    row(
        "serve",
        "seed",
        When(
            |m| given(m, "power_cut_after"),
            "--power-cut-after (it draws the cut's command and point)",
        ),
    ),
    row(
        "serve",
        "plp",
        When(
            |m| given(m, "power_cut_after"),
            "--power-cut-after (a clean stop always writes the buffer back)",
        ),
    ),
    row("serve", "socket", Always),
    row("serve", "port", Always),
    row("serve", "listen", Always),
    row("serve", "data", Always),
    row("serve", "latency", Always),
    row("serve", "stats-every", Always),
    row("serve", "power-cut-after", Always),
    row("serve", "export-name", Always),
    // crashtest drives the device directly, command by command.
    row(
        "crashtest",
        "qd",
        Never("run and hybrid (the host queue; crashtest drives the device directly)"),
    ),
    row("crashtest", "cuts", Always),
    row("crashtest", "ops-per-cut", Always),
    row("crashtest", "plp", Always),
    // sweep.
    row(
        "sweep",
        "jobs",
        When(
            |m| !given(m, "ray"),
            "local sweeps (without --ray: the Ray cluster schedules its own tasks)",
        ),
    ),
    row("sweep", "ray", Always),
    row(
        "sweep",
        "json-format",
        When(
            |m| !m.get_flag("dry_run"),
            "a sweep that runs cells (not --dry-run: it writes no reports)",
        ),
    ),
    row("sweep", "python", Always),
    row(
        "sweep",
        "retry-failed",
        When(
            |m| !m.get_flag("dry_run"),
            "a sweep that runs cells (not --dry-run)",
        ),
    ),
    row("sweep", "dry-run", Always),
    row(
        "sweep",
        "html",
        When(
            |m| !m.get_flag("dry_run"),
            "a sweep that runs cells (not --dry-run)",
        ),
    ),
    // reproduce: with --list only the list is printed.
    row("reproduce", "all", When(not_list, REPRODUCE)),
    row("reproduce", "paper", When(not_list, REPRODUCE)),
    row("reproduce", "experiment", When(not_list, REPRODUCE)),
    row("reproduce", "out", When(not_list, REPRODUCE)),
    row("reproduce", "quick", When(not_list, REPRODUCE)),
    row("reproduce", "traces", When(not_list, REPRODUCE)),
    row("reproduce", "html", When(not_list, REPRODUCE)),
    // probe.
    row("probe", "device", Always),
    row("probe", "yes-destroy-data", Always),
    row("probe", "step", Always),
    row("probe", "partitions", Always),
    row("probe", "passes", Always),
];

const REPRODUCE: &str = "an experiment or --all (with --list only the list is printed)";

fn not_list(m: &ArgMatches) -> bool {
    !m.get_flag("list")
}

/// The row for `flag` of `command`: the command's own, else the `*` one.
pub fn lookup(command: &str, flag: &str) -> Option<&'static FlagUse> {
    FLAGS
        .iter()
        .find(|r| r.command == command && r.flag == flag)
        .or_else(|| FLAGS.iter().find(|r| r.command == "*" && r.flag == flag))
}

/// Whether clap handles the flag itself (`--help`, `--version`).
pub fn is_clap_own(a: &clap::Arg) -> bool {
    matches!(
        a.get_action(),
        clap::ArgAction::Help
            | clap::ArgAction::HelpShort
            | clap::ArgAction::HelpLong
            | clap::ArgAction::Version
    )
}

/// Refuses every flag typed on the command line that [`FLAGS`] says the command does
/// not read here (exit 2, naming what would read it).
pub fn check(cmd: &clap::Command, root: &ArgMatches) -> Result<(), CliError> {
    let Some((name, m)) = root.subcommand() else {
        return Ok(());
    };
    let Some(sub) = cmd.find_subcommand(name) else {
        return Ok(());
    };
    for a in sub.get_arguments() {
        let (Some(long), false) = (a.get_long(), is_clap_own(a)) else {
            continue;
        };
        if !given(m, a.get_id().as_str()) {
            continue;
        }
        let users = match lookup(name, long).map(|r| r.used) {
            Some(When(holds, users)) if !holds(m) => users,
            Some(Never(users)) => users,
            _ => continue,
        };
        return Err(CliError::Input(format!(
            "--{long}: not used by `ssdlab {name}` here; only {users} read it"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every flag of every command has a row (so a new flag cannot be added without
    /// saying when it is read), and every row names a flag that exists.
    #[test]
    fn every_flag_of_every_command_is_in_the_table() {
        let root = super::super::command();
        let mut flags = 0;
        let mut missing = Vec::new();
        let mut seen: Vec<(&str, String)> = Vec::new();
        for sub in root.get_subcommands() {
            for a in sub.get_arguments() {
                let (Some(long), false) = (a.get_long(), is_clap_own(a)) else {
                    continue;
                };
                flags += 1;
                seen.push((sub.get_name(), long.to_string()));
                if lookup(sub.get_name(), long).is_none() {
                    missing.push(format!("{} --{long}", sub.get_name()));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "flags without a row in cli::flags::FLAGS: {missing:?}"
        );
        for r in FLAGS {
            assert!(
                seen.iter()
                    .any(|(c, f)| f == r.flag && (r.command == "*" || *c == r.command)),
                "row {} --{} names no flag of the command tree",
                r.command,
                r.flag
            );
        }
        // A key row names a documented key (the library's table refuses it).
        let doc = include_str!("../../docs/config.md");
        for r in FLAGS {
            if let Key(k) = r.used {
                let leaf = k.rsplit('.').next().expect("a key");
                assert!(
                    doc.contains(leaf),
                    "--{}: key {k} not in docs/config.md",
                    r.flag
                );
            }
        }
        eprintln!("{flags} flags of {} rows", FLAGS.len());
    }

    /// The refusals parse as the process would: the flag named, and what reads it.
    #[test]
    fn flags_the_command_does_not_read_are_refused() {
        let refused = |argv: &[&str], what: &str| {
            let cmd = super::super::command();
            let m = cmd.clone().try_get_matches_from(argv).unwrap();
            let e = check(&cmd, &m)
                .expect_err(&format!("{argv:?} accepted"))
                .to_string();
            assert!(
                e.contains(argv[argv.len() - 2]) && e.contains(what),
                "{argv:?}: {e}"
            );
        };
        refused(
            &["ssdlab", "gen-trace", "-o", "x", "--ftl", "dftl"],
            "ssdlab run",
        );
        refused(
            &["ssdlab", "serve", "--socket", "s", "--qd", "4"],
            "queue depth",
        );
        refused(
            &["ssdlab", "serve", "--socket", "s", "--seed", "4"],
            "--power-cut-after",
        );
        refused(
            &["ssdlab", "run", "--buffer", "none", "--buffer-size", "1MiB"],
            "--buffer",
        );
        refused(
            &[
                "ssdlab", "sweep", "g", "--out", "o", "--ray", "auto", "--jobs", "2",
            ],
            "--ray",
        );
        refused(
            &[
                "ssdlab",
                "sweep",
                "g",
                "--out",
                "o",
                "--dry-run",
                "--html",
                "h",
            ],
            "--dry-run",
        );
        refused(&["ssdlab", "reproduce", "--list", "--quick"], "--list");
        refused(&["ssdlab", "crashtest", "--qd", "8"], "crashtest");
        let cmd = super::super::command();
        for ok in [
            &["ssdlab", "run", "--buffer", "lru", "--buffer-size", "1MiB"][..],
            &[
                "ssdlab",
                "serve",
                "--socket",
                "s",
                "--seed",
                "4",
                "--power-cut-after",
                "9",
            ],
            &["ssdlab", "sweep", "g", "--out", "o", "--jobs", "2"],
            &[
                "ssdlab",
                "gen-trace",
                "-o",
                "x",
                "--capacity",
                "1GiB",
                "--seed",
                "3",
            ],
        ] {
            let m = cmd.clone().try_get_matches_from(ok).unwrap();
            check(&cmd, &m).unwrap_or_else(|e| panic!("{ok:?}: {e}"));
        }
    }
}
