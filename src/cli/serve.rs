//! `ssdlab serve`: the simulated SSD as a Network Block Device (docs/nbd.md).

use super::CliError;
use super::args::{HostArgs, SettingsArgs, SsdArgs};
use super::design::{Check, DesignArgs};
use clap::Args;
use ssdlab::config::Design;
use ssdlab::data::FileStore;
use ssdlab::nand::FlashData;
use ssdlab::nbd::{Ending, Latency, Listen, ServeOptions, Server};
use ssdlab::sim::Device;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Examples shown by `ssdlab serve --help`.
pub const AFTER_HELP: &str = "\
Examples:
  ssdlab serve --socket /tmp/ssd.sock --capacity 16GiB
  nbdinfo 'nbd+unix:///?socket=/tmp/ssd.sock'
  qemu-io -f raw -c 'write -P 0xab 0 1M' -c 'read -P 0xab 0 1M' 'nbd+unix:///?socket=/tmp/ssd.sock'
  ssdlab serve --socket /tmp/ssd.sock --ftl dftl --buffer lru --data ssd.img --latency simulated
  ssdlab serve --port 10809 --preset ssd-b --stats-every 5   (TCP on 127.0.0.1)

The export is named 'ssdlab' (the default export '' is the same device). Every design
flag of `ssdlab run` applies. With --data the flash contents (pages, OOB tags, erase
counts) live in a sparse file: a restart with the same design mounts it and each FTL
rebuilds its mapping from the tags. SIGTERM or Ctrl-C stops cleanly (the write buffer
is written back); SIGUSR1 prints a statistics line. Statistics are JSON lines on
standard output, with the keys of `ssdlab run --json`.";

/// `ssdlab serve` flags.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The SSD design.
    #[command(flatten)]
    pub ssd: SsdArgs,
    /// Seed (random power cut).
    #[command(flatten)]
    pub host: HostArgs,
    /// File and `--set`.
    #[command(flatten)]
    pub settings: SettingsArgs,
    /// Listen on a unix socket at this path.
    #[arg(
        long,
        value_name = "PATH",
        help_heading = "Server",
        conflicts_with = "port",
        required_unless_present = "port"
    )]
    pub socket: Option<PathBuf>,
    /// Listen on this TCP port (127.0.0.1 unless --listen).
    #[arg(long, value_name = "N", help_heading = "Server",
          value_parser = super::args::whole::<u16>(0, u16::MAX.into()))]
    pub port: Option<u16>,
    /// TCP address to listen on instead of loopback (NBD has no authentication: anyone
    /// who reaches the port can read and write the device).
    #[arg(long, value_name = "ADDR", help_heading = "Server", requires = "port")]
    pub listen: Option<std::net::IpAddr>,
    /// Keep the flash contents in this sparse file; an existing file written by the
    /// same design is mounted (recovery from its OOB tags).
    #[arg(long, value_name = "FILE", help_heading = "Server")]
    pub data: Option<PathBuf>,
    /// Reply timing: none (as fast as possible), simulated (each reply when its
    /// simulated completion time is reached on the wall clock) or scaled=F (simulated
    /// times × F).
    #[arg(long, value_name = "MODE", default_value = "none", help_heading = "Server",
          value_parser = Latency::parse)]
    pub latency: Latency,
    /// A statistics line every this many seconds.
    #[arg(long, value_name = "SECONDS", help_heading = "Server",
          value_parser = super::args::real(0.0, MAX_STATS_EVERY_S, true))]
    pub stats_every: Option<f64>,
    /// Cut the power during the N-th command (with --seed: a random command from 1 to
    /// N and a random point inside it); the server then stops, as a drive losing power.
    #[arg(long, value_name = "N", help_heading = "Power loss",
          value_parser = super::args::whole::<u64>(1, u64::MAX))]
    pub power_cut_after: Option<u64>,
    /// Power-loss protection: at a cut the write buffer still reaches flash.
    #[arg(long, help_heading = "Power loss")]
    pub plp: bool,
    /// Export name [default: ssdlab]. A drive with [[namespace]] tables exports each
    /// namespace under its own name instead (the first is also the default export).
    #[arg(long, value_name = "NAME", help_heading = "Server")]
    pub export_name: Option<String>,
}

/// The export name without namespaces when `--export-name` is not given.
const DEFAULT_EXPORT: &str = "ssdlab";

/// Longest statistics period, seconds (a year: beyond it no line would ever appear, and
/// 2^64 s overflowed the timer's `Duration`).
const MAX_STATS_EVERY_S: f64 = 365.0 * 86_400.0;

static STOP: AtomicBool = AtomicBool::new(false);
static USR1: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}
extern "C" fn on_usr1(_: libc::c_int) {
    USR1.store(true, Ordering::SeqCst);
}

/// The design flags as `run`'s design arguments, with OOB sequence numbers on (the
/// recovery needs them).
pub fn design_args(ssd: &SsdArgs, host: &HostArgs, settings: &SettingsArgs) -> DesignArgs {
    let mut settings = settings.clone();
    settings.set.push("device.track_write_seq=true".into());
    DesignArgs {
        ssd: ssd.clone(),
        host: host.clone(),
        settings,
        ..Default::default()
    }
}

/// `--latency` as typed.
fn latency_text(l: Latency) -> String {
    match l {
        Latency::None => "none (replies as soon as simulated)".into(),
        Latency::Simulated => "simulated".into(),
        Latency::Scaled(f) => format!("scaled={f}"),
    }
}

/// Whether the timed replies kept real time, in one line.
pub fn real_time_text(t: &ssdlab::nbd::TimelinessSummary) -> String {
    let us = |ns: u64| ns as f64 / 1e3;
    let verdict = if t.late_share() <= 0.01 {
        "kept real time"
    } else {
        "did not keep real time (a larger --latency scaled=F slows the simulated clock \
         until it can; docs/nbd.md)"
    };
    format!(
        "{verdict}: {:.1}% of {} timed replies later than their simulated time by more than \
         {} µs; lateness p50 {:.0} µs, p99 {:.0} µs",
        100.0 * t.late_share(),
        t.replies,
        us(ssdlab::nbd::LATE_TOLERANCE_NS),
        us(t.lateness_ns_p50),
        us(t.lateness_ns_p99)
    )
}

/// Longest unix socket path Linux binds (`sun_path` holds 108 bytes with the NUL).
const MAX_SOCKET_PATH: usize = 107;

/// `--socket` must name a new path or a socket (a live one is refused when binding, a
/// stale one replaced). Checked before the device is built or `--data` is opened: a
/// directory or a file there would otherwise fail as "Address already in use", a
/// missing directory as "No such file or directory", after the work.
fn check_socket_path(p: &std::path::Path) -> Result<(), CliError> {
    use std::os::unix::fs::FileTypeExt;
    let bad = |what: String| Err(CliError::Input(format!("--socket {}: {what}", p.display())));
    let expected = "expected the path of a new unix socket";
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.file_type().is_socket() => {}
        Ok(m) if m.is_dir() => {
            return bad(format!(
                "is a directory; {expected}, e.g. --socket {}",
                p.join("ssd.sock").display()
            ));
        }
        Ok(_) => {
            return bad(format!(
                "exists and is not a socket; {expected} (an existing file is not replaced)"
            ));
        }
        Err(_) => {
            if let Some(d) = p.parent()
                && !d.as_os_str().is_empty()
                && !d.is_dir()
            {
                return bad(format!(
                    "directory {} does not exist; {expected} in an existing directory",
                    d.display()
                ));
            }
        }
    }
    if p.as_os_str().len() > MAX_SOCKET_PATH {
        return bad(format!(
            "{} bytes long; {expected} of at most {MAX_SOCKET_PATH} bytes (the unix socket \
             address limit)",
            p.as_os_str().len()
        ));
    }
    Ok(())
}

/// Refuses flags that serve cannot take (lists of designs, a zero interval or cut).
fn check_args(a: &ServeArgs) -> Result<(), CliError> {
    if [&a.ssd.ftl, &a.ssd.gc, &a.ssd.buffer]
        .iter()
        .any(|l| l.as_ref().is_some_and(|v| v.len() > 1))
    {
        return Err(CliError::Input(
            "--ftl, --gc and --buffer take one name each for serve (one device is served)".into(),
        ));
    }
    if [&a.ssd.capacity, &a.ssd.buffer_size, &a.ssd.mgmt_block]
        .iter()
        .any(|l| l.as_ref().is_some_and(|v| v.len() > 1))
    {
        return Err(CliError::Input(
            "--capacity, --buffer-size and --mgmt-block take one size each for serve (one device is served)".into(),
        ));
    }
    if let Some(p) = &a.socket {
        check_socket_path(p)?;
    }
    if let Some(s) = a.stats_every
        && !(s.is_finite() && s > 0.0)
    {
        return Err(CliError::Input(format!(
            "--stats-every {s}: expected a positive number of seconds"
        )));
    }
    if a.power_cut_after == Some(0) {
        return Err(CliError::Input(
            "--power-cut-after 0: expected a command number from 1".into(),
        ));
    }
    Ok(())
}

/// The served device: mounted from `--data` when the file holds an earlier run's flash,
/// else built fresh (over the file, or in memory).
fn open_device(a: &ServeArgs, valid: &Design, fingerprint: &str) -> Result<Device, CliError> {
    let geo = valid.ftl_geometry;
    let page_bytes = geo.page_size_bytes;
    let dev = match &a.data {
        Some(path) => {
            let (store, existing) = FileStore::open(path, &geo, fingerprint)
                .map_err(|e| CliError::Input(format!("--data {}: {e}", path.display())))?;
            let data = FlashData::new(Box::new(store), page_bytes as usize);
            if existing {
                let (dev, r) = Device::mount(valid, data)
                    .map_err(|e| CliError::Input(format!("--data {}: {e}", path.display())))?;
                eprintln!(
                    "ssdlab serve: mounted {}: scanned {} pages ({} programmed, {} ignored) \
                     in {:.1} ms",
                    path.display(),
                    r.pages_scanned,
                    r.programmed_pages,
                    r.pages_ignored,
                    r.recovery_ns as f64 / 1e6
                );
                dev
            } else {
                let mut dev = Device::build(valid)?;
                dev.nand.attach_data(data);
                dev
            }
        }
        None => {
            let mut dev = Device::build(valid)?;
            dev.nand.attach_data(FlashData::in_memory(&geo));
            dev
        }
    };
    Ok(dev)
}

/// Where to listen: the Unix socket, or the TCP port (on loopback unless told).
fn listen_on(a: &ServeArgs) -> Listen {
    match (&a.socket, a.port) {
        (Some(p), _) => Listen::Unix(p.clone()),
        (None, Some(port)) => {
            let ip = a
                .listen
                .unwrap_or(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST));
            if !ip.is_loopback() {
                eprintln!(
                    "warning: listening on {ip}: NBD has no authentication; anyone who can \
                     reach port {port} can read and overwrite the device"
                );
            }
            Listen::Tcp(std::net::SocketAddr::new(ip, port))
        }
        (None, None) => unreachable!("clap requires one"),
    }
}

/// Installs the SIGINT/SIGTERM (stop) and SIGUSR1 (statistics now) handlers and a thread
/// that turns them into the two flags it returns.
fn watch_signals() -> (Arc<AtomicBool>, Arc<AtomicBool>) {
    // SAFETY: the handlers only store to atomics, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_stop as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_stop as *const () as libc::sighandler_t);
        libc::signal(libc::SIGUSR1, on_usr1 as *const () as libc::sighandler_t);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let stats_now = Arc::new(AtomicBool::new(false));
    {
        let (stop, stats_now) = (stop.clone(), stats_now.clone());
        std::thread::spawn(move || {
            loop {
                if STOP.load(Ordering::SeqCst) {
                    stop.store(true, Ordering::SeqCst);
                }
                if USR1.swap(false, Ordering::SeqCst) {
                    stats_now.store(true, Ordering::SeqCst);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
    }
    (stop, stats_now)
}

/// A statistics line: the report without its config, with the clocks and, when replies
/// are timed, how late they were.
fn stats_json(r: &ssdlab::report::Report, c: &ssdlab::nbd::Clocks) -> serde_json::Value {
    let mut v = serde_json::to_value(r).expect("report serializes");
    if let Some(o) = v.as_object_mut() {
        o.remove("config");
        o.insert("simulated_ns".into(), c.simulated_ns.into());
        o.insert("wall_clock_ns".into(), c.wall_ns.into());
        o.insert("requests".into(), c.requests.into());
        if let Some(t) = c.timeliness {
            o.insert(
                "real_time".into(),
                serde_json::json!({
                    "timed_replies": t.replies,
                    "late_replies": t.late,
                    "late_share": t.late_share(),
                    "lateness_ns_p50": t.lateness_ns_p50,
                    "lateness_ns_p99": t.lateness_ns_p99,
                    "late_tolerance_ns": ssdlab::nbd::LATE_TOLERANCE_NS,
                }),
            );
        }
    }
    v
}

/// The exports: one per `[[namespace]]` table, named after it, on its slice of the
/// drive; without tables the whole drive under `--export-name`.
fn exports(
    a: &ServeArgs,
    cfg: &ssdlab::config::Config,
    capacity_bytes: u64,
) -> Result<Vec<ssdlab::nbd::ExportSpec>, CliError> {
    if cfg.namespaces.is_empty() {
        return Ok(vec![ssdlab::nbd::ExportSpec {
            name: a
                .export_name
                .as_deref()
                .unwrap_or(DEFAULT_EXPORT)
                .to_string(),
            base_bytes: 0,
            size_bytes: capacity_bytes,
            namespace: 0,
        }]);
    }
    if let Some(n) = &a.export_name {
        let names: Vec<&str> = cfg.namespaces.iter().map(|n| n.name.as_str()).collect();
        return Err(CliError::Input(format!(
            "--export-name {n}: the drive has [[namespace]] tables, and each is exported \
             under its own name ({}); leave --export-name out",
            names.join(", ")
        )));
    }
    let slices = ssdlab::config::namespace::slices(cfg, capacity_bytes)
        .map_err(|e| CliError::Input(e.to_string()))?;
    Ok(slices
        .into_iter()
        .enumerate()
        .map(|(i, s)| ssdlab::nbd::ExportSpec {
            name: s.name,
            base_bytes: s.base_bytes,
            size_bytes: s.size_bytes,
            namespace: i as u32,
        })
        .collect())
}

/// Runs `ssdlab serve`.
pub fn cmd(a: &ServeArgs) -> Result<(), CliError> {
    check_args(a)?;
    let mut designs = design_args(&a.ssd, &a.host, &a.settings).designs(Check::Run)?;
    let design = designs.remove(0);
    let valid = design.valid.expect("checked for a run");
    let cfg = valid.config.clone();
    // NBD has no zone commands and no zone statuses: a write off a zone's write pointer
    // would be refused by the drive while the client is told it succeeded.
    if cfg.ftl.name.is_zoned() {
        return Err(CliError::Input(
            "--ftl zoned cannot be served over NBD: the protocol has no zone commands or \
             zone statuses, so a write the zoned drive refuses would be acknowledged to the \
             client; replay zone operations with `ssdlab run --trace` (ascii op codes ZA ZR \
             ZF ZO ZC, docs/zns.md) or Python's `ssdlab.run(requests=...)`"
                .into(),
        ));
    }
    let geo = valid.ftl_geometry;
    let page_bytes = geo.page_size_bytes;
    let fingerprint = format!(
        "ftl {} logical_pages {}",
        serde_json::to_string(&cfg.ftl).expect("config serializes"),
        valid.device.logical_pages
    );
    let exports = exports(a, &cfg, valid.device.logical_pages * page_bytes as u64)?;
    let mut dev = open_device(a, &valid, &fingerprint)?;
    let listen = listen_on(a);
    let max_bytes = 32 << 20;
    let server = Server::bind_exports(&listen, &exports, page_bytes, max_bytes).map_err(|e| {
        let on = match &listen {
            Listen::Unix(p) => format!("--socket {}", p.display()),
            Listen::Tcp(a) => format!("--port {} ({a})", a.port()),
        };
        CliError::Input(format!("cannot listen on {on}: {e}"))
    })?;
    let where_ = |name: &str| match &listen {
        Listen::Unix(p) => format!("nbd+unix:///{name}?socket={}", p.display()),
        Listen::Tcp(addr) => format!(
            "nbd://{}:{}/{name}",
            addr.ip(),
            server.local_port().unwrap_or(addr.port()),
        ),
    };
    if let [one] = &exports[..] {
        eprintln!(
            "ssdlab serve: {} ({} bytes, {} B pages, ftl {}, latency {})",
            where_(&one.name),
            one.size_bytes,
            page_bytes,
            dev.ftl.name(),
            latency_text(a.latency)
        );
    } else {
        eprintln!(
            "ssdlab serve: {} namespaces ({} B pages, ftl {}, latency {}):",
            exports.len(),
            page_bytes,
            dev.ftl.name(),
            latency_text(a.latency)
        );
        for e in &exports {
            eprintln!("  {} ({} bytes)", where_(&e.name), e.size_bytes);
        }
    }
    let (stop, stats_now) = watch_signals();
    let (cut_command, cut_ops) = match a.power_cut_after {
        None => (None, 0),
        Some(n) => match a.host.seed {
            None => (Some(n), u64::MAX),
            Some(seed) => {
                use rand::{Rng, SeedableRng};
                let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
                (Some(rng.gen_range(1..=n)), rng.gen_range(0..64))
            }
        },
    };
    let opts = ServeOptions {
        latency: a.latency,
        export_name: exports[0].name.clone(),
        max_request_bytes: max_bytes,
        stats_every: a.stats_every.map(Duration::from_secs_f64),
        power_cut_at_command: cut_command,
        power_cut_flash_ops: cut_ops,
        plp: a.plp,
        stop,
        stats_now,
        progress: std::io::stderr().is_terminal(),
    };
    let mut out = std::io::stdout();
    let mut last_timeliness = None;
    let mut stats = |r: &ssdlab::report::Report, c: &ssdlab::nbd::Clocks| {
        last_timeliness = c.timeliness;
        let v = stats_json(r, c);
        // One write per line: `writeln!` would hand the value over in pieces, and
        // standard output's line buffer (1 KiB) writes a longer line out in parts, so a
        // reader following the file could see half a line.
        let _ = out.write_all(format!("{v}\n").as_bytes());
        let _ = out.flush();
    };
    let ending = server
        .run(&mut dev, &cfg, &opts, &mut stats)
        .map_err(|e| CliError::Output(format!("serve: {e}")))?;
    if let Some(t) = last_timeliness {
        eprintln!("ssdlab serve: {}", real_time_text(&t));
    }
    if ending == Ending::PowerCut {
        eprintln!(
            "ssdlab serve: power cut at command {} ({}); restart with the same --data to recover",
            cut_command.unwrap_or(0),
            if a.plp {
                "write buffer saved by PLP"
            } else {
                "write buffer contents lost"
            }
        );
    }
    Ok(())
}
