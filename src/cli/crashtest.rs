//! `ssdlab crashtest`: power cuts and recoveries in process (docs/nbd.md, "Power loss").

use super::CliError;
use super::args::{HostArgs, SettingsArgs, SsdArgs};
use super::design::Check;
use super::output;
use super::serve::design_args;
use clap::Args;
use rayon::prelude::*;
use ssdlab::data::crashtest::{self, CrashOptions, CrashReport};
use ssdlab::report::output::Batch;
use std::path::PathBuf;

/// Examples shown by `ssdlab crashtest --help`.
pub const AFTER_HELP: &str = "\
Examples:
  ssdlab crashtest --ftl page --buffer none,lru,bplru --cuts 200 --seed 1
  ssdlab crashtest --ftl page,dftl --buffer lru --plp --cuts 50 --json crash.json

Each design (the product of the --ftl, --gc and --buffer lists) gets its own device
holding data in memory. Between cuts the host writes (some with FUA), trims, flushes
and reads at random; the power is cut at a random flash operation (the command in
flight is never acknowledged; the write buffer's contents are lost unless --plp);
the device restarts from what is on flash and the FTL recovers. After each restart:
(a) no write acknowledged before a completed FLUSH, or written with FUA, is lost;
(b) every page reads back zeros or a version written there, intact; (c) the FTL's and
NAND's invariants hold. Exit status 0 only when every design passes.
Without --capacity the device is 64 MiB, without --preset or --config it has two
planes (so GC starts soon), without --timing it uses the counting model (timing does
not change what is on flash).";

/// `ssdlab crashtest` flags.
#[derive(Args, Debug, Default)]
pub struct CrashtestArgs {
    /// The SSD design.
    #[command(flatten)]
    pub ssd: SsdArgs,
    /// Seed.
    #[command(flatten)]
    pub host: HostArgs,
    /// File and `--set`.
    #[command(flatten)]
    pub settings: SettingsArgs,
    /// Power cuts per design.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 100,
        help_heading = "Power loss",
        value_parser = super::args::whole::<u64>(0, u64::MAX)
    )]
    pub cuts: u64,
    /// Host commands between two cuts, at most (each segment draws a number up to it).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 200,
        help_heading = "Power loss",
        value_parser = super::args::whole::<u32>(0, u32::MAX.into())
    )]
    pub ops_per_cut: u32,
    /// Power-loss protection: the write buffer reaches flash at a cut.
    #[arg(long, help_heading = "Power loss")]
    pub plp: bool,
    /// Write the results as JSON here (`-` = standard output).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub json: Option<PathBuf>,
}

/// Most power cuts per design.
const MAX_CUTS: u64 = 1_000_000;
/// Most host commands between two cuts.
const MAX_OPS_PER_CUT: u64 = 1_000_000;

/// Runs `ssdlab crashtest`.
pub fn cmd(a: &CrashtestArgs) -> Result<(), CliError> {
    if a.cuts == 0 || a.ops_per_cut == 0 {
        return Err(CliError::Input(
            "--cuts and --ops-per-cut: expected at least 1".into(),
        ));
    }
    // Bounds a user can reason about (docs/nbd.md): a million cuts of a small drive take
    // hours; more is a typo, not a test plan.
    for (flag, v, max) in [
        ("--cuts", a.cuts, MAX_CUTS),
        ("--ops-per-cut", u64::from(a.ops_per_cut), MAX_OPS_PER_CUT),
    ] {
        if v > max {
            return Err(CliError::Input(format!(
                "{flag} {v}: expected at most {max}"
            )));
        }
    }
    let mut ssd = a.ssd.clone();
    if ssd.capacity.is_none() {
        ssd.capacity = Some(vec![ssdlab::units::Size(64 << 20)]);
    }
    if ssd.timing.is_none() {
        ssd.timing = Some("count".into());
    }
    let mut settings = a.settings.clone();
    if ssd.preset.is_none() && settings.config.is_none() {
        // A small array (two planes) so that GC, merges and folds start within a few
        // cuts; any --set of these keys wins (it comes later).
        let small = [
            "device.channels=2",
            "device.chips_per_channel=1",
            "device.dies_per_chip=1",
            "device.planes_per_die=1",
            "device.pages_per_block=64",
        ];
        settings
            .set
            .splice(0..0, small.iter().map(|s| s.to_string()));
    }
    let dargs = design_args(&ssd, &a.host, &settings);
    let designs = dargs.designs(Check::Run)?;
    let json = a
        .json
        .as_ref()
        .map(|p| output::file("--json", p))
        .transpose()?;
    let opts = CrashOptions {
        cuts: a.cuts,
        seed: a.host.seed.unwrap_or(1),
        plp: a.plp,
        max_ops_per_cut: a.ops_per_cut,
    };
    // Cuts of every design together; drawn only on a terminal, after a second.
    let bar = std::sync::Mutex::new(ssdlab::report::progress::Progress::new(
        Some(a.cuts.saturating_mul(designs.len() as u64)),
        "power cuts",
    ));
    let tick = || bar.lock().expect("progress lock").step(1);
    let reports: Vec<CrashReport> = designs
        .par_iter()
        .map(|d| {
            let name = format!("{}+{}", d.cfg.ftl.name.name(), d.cfg.buffer.name.name());
            crashtest::run_with_progress(
                d.valid.as_ref().expect("checked for a run"),
                &name,
                &opts,
                &tick,
            )
        })
        .collect();
    bar.into_inner().expect("progress lock").finish();
    let passed = reports.iter().all(CrashReport::passed);
    for r in &reports {
        eprintln!(
            "{:<16} cuts {:>5}  lost {:>4}  torn/foreign {:>4}  live mismatches {:>4}  \
             invariant failures {:>3}  erases {:>6}  recovery {:>8.0} µs  scanned {:>8.0} pages{}",
            r.design,
            r.cuts,
            r.acked_writes_lost,
            r.torn_or_foreign_reads,
            r.live_read_mismatches,
            r.invariant_failures,
            r.erases,
            r.recovery_ns_mean / 1e3,
            r.scanned_pages_mean,
            r.error
                .as_ref()
                .map(|e| format!("  ERROR: {e}"))
                .unwrap_or_default()
        );
    }
    if let Some(out) = &json {
        let v = serde_json::json!({
            "seed": opts.seed,
            "plp": opts.plp,
            "passed": passed,
            "designs": reports,
        });
        let mut batch = Batch::new();
        batch.file(
            out,
            serde_json::to_string_pretty(&v).expect("serializes") + "\n",
        );
        output::commit(batch)?;
    }
    if passed {
        Ok(())
    } else {
        Err(CliError::Output(
            "crashtest: data lost, torn, inconsistent or not recoverable (see above)".into(),
        ))
    }
}
