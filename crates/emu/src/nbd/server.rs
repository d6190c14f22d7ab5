//! The NBD server: each connection's thread negotiates, then reads requests through a
//! 256 KiB buffer and performs them in batches under the lock of the one [`Device`],
//! through the one pipeline ([`Device::write_data`], [`Device::read_data`],
//! [`Device::submit`]), and sends the replies; the thread that called [`Server::run`]
//! prints statistics and watches for the stop.
//!
//! ```text
//! connection: handshake; loop {
//!     lock device (once per batch); for each whole request in the read buffer (≤ 8):
//!         issue_ns = wall time since start / scale; done_ns = device(req, payload in place)
//!     reply: none      -> all replies of the batch in one write
//!            simulated -> to the timer thread: heap by due time = start + done_ns × scale
//!     read once: whatever the socket holds }
//! ```
//! A queue-depth-32 client thus costs one `recv` and one `send` per batch and no thread
//! hand-off: profiled, a reader thread handing batches to a worker thread spent a fifth
//! of the server's time in the scheduler waking one or the other, more than the overlap
//! of reading with performing gave back on two cores shared with the client
//! (BENCHMARKS.md, 2026-11-24). A write's payload is given to the device straight from
//! the read buffer. A client that stalls in the middle of a request blocks only its own
//! thread, and holds no lock: the replies to everything before it were sent.

use super::proto::{self, Command, Request, Verdict, cflag, err, opt, rep, tflag};
use crate::config::Config;
use crate::host::SimError;
use crate::sim::HostTag;
use crate::sim::{Device, LiveStats};
use crate::workload::{IoRequest, OpKind};
use std::collections::BinaryHeap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// A `--latency` value that is none of the accepted forms.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "'{value}': expected none, simulated or scaled=F with F > 0 (e.g. scaled=10: ten times slower than simulated)"
)]
pub struct LatencyError {
    /// The value given.
    pub value: String,
}

/// When replies are sent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Latency {
    /// As soon as the simulation has performed the request.
    None,
    /// When the simulated completion time is reached on the wall clock.
    Simulated,
    /// Simulated times multiplied by this factor on the wall clock.
    Scaled(f64),
}

impl Latency {
    /// Parses `none`, `simulated` or `scaled=F` (F > 0).
    pub fn parse(s: &str) -> Result<Latency, LatencyError> {
        match s {
            "none" => Ok(Latency::None),
            "simulated" => Ok(Latency::Simulated),
            _ => {
                let f = s
                    .strip_prefix("scaled=")
                    .and_then(|f| f.parse::<f64>().ok())
                    .filter(|f| f.is_finite() && *f > 0.0)
                    .ok_or_else(|| LatencyError {
                        value: s.to_string(),
                    })?;
                Ok(Latency::Scaled(f))
            }
        }
    }

    /// Wall-clock nanoseconds per simulated nanosecond.
    fn scale(self) -> f64 {
        match self {
            Latency::None | Latency::Simulated => 1.0,
            Latency::Scaled(f) => f,
        }
    }
}

/// Where the server listens.
#[derive(Clone, Debug)]
pub enum Listen {
    /// A unix socket at this path (created; an existing socket file is replaced).
    Unix(PathBuf),
    /// A TCP address.
    Tcp(std::net::SocketAddr),
}

/// How the server runs.
pub struct ServeOptions {
    /// Reply timing.
    pub latency: Latency,
    /// The export's name (the default export "" is the same one).
    pub export_name: String,
    /// Largest request accepted, bytes.
    pub max_request_bytes: u32,
    /// A statistics line every so often.
    pub stats_every: Option<Duration>,
    /// Cut the power during this host command (1 = the first).
    pub power_cut_at_command: Option<u64>,
    /// Flash operations of that command that still reach the flash.
    pub power_cut_flash_ops: u64,
    /// Capacitor-backed flush of the write buffer at a power cut.
    pub plp: bool,
    /// Set to stop serving (signals, tests).
    pub stop: Arc<AtomicBool>,
    /// Set to ask for a statistics line (SIGUSR1).
    pub stats_now: Arc<AtomicBool>,
    /// Print a progress line on stderr.
    pub progress: bool,
}

/// How serving ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Stopped (signal): the write buffer was flushed to flash.
    Stopped,
    /// The power was cut: DRAM contents lost (unless PLP).
    PowerCut,
}

/// A connection's socket.
enum Conn {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Conn {
    fn try_clone(&self) -> io::Result<Conn> {
        Ok(match self {
            Conn::Unix(s) => Conn::Unix(s.try_clone()?),
            Conn::Tcp(s) => Conn::Tcp(s.try_clone()?),
        })
    }
    fn shutdown(&self) {
        let _ = match self {
            Conn::Unix(s) => s.shutdown(Shutdown::Both),
            Conn::Tcp(s) => s.shutdown(Shutdown::Both),
        };
    }
}

impl Read for Conn {
    fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
        match self {
            Conn::Unix(s) => s.read(b),
            Conn::Tcp(s) => s.read(b),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        match self {
            Conn::Unix(s) => s.write(b),
            Conn::Tcp(s) => s.write(b),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Conn::Unix(s) => s.flush(),
            Conn::Tcp(s) => s.flush(),
        }
    }
}

/// A reply due at a given instant.
struct Outgoing {
    due: Instant,
    order: u64,
    bytes: Vec<u8>,
}

impl PartialEq for Outgoing {
    fn eq(&self, o: &Self) -> bool {
        (self.due, self.order) == (o.due, o.order)
    }
}
impl Eq for Outgoing {}
impl PartialOrd for Outgoing {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Outgoing {
    // Earliest first out of a max-heap.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (o.due, o.order).cmp(&(self.due, self.order))
    }
}

/// One export: a namespace of the drive (or the whole drive), by name.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportSpec {
    /// The name a client asks for (`nbd-client -N NAME`, `nbd://host/NAME`).
    pub name: String,
    /// First byte of its slice of the device's logical space.
    pub base_bytes: u64,
    /// Its size in bytes.
    pub size_bytes: u64,
    /// The namespace index its commands carry (reports, FDP statistics).
    pub namespace: u32,
}

/// What the handshake settles, and the export.
#[derive(Clone)]
struct Export {
    name: String,
    base_bytes: u64,
    size_bytes: u64,
    namespace: u32,
    page_bytes: u32,
    max_bytes: u32,
}

impl Export {
    /// The tag of the export's commands.
    fn tag(&self) -> HostTag {
        HostTag {
            namespace: self.namespace,
            placement: None,
        }
    }
}

const TRANSMISSION_FLAGS: u16 = tflag::HAS_FLAGS
    | tflag::SEND_FLUSH
    | tflag::SEND_FUA
    | tflag::SEND_TRIM
    | tflag::SEND_WRITE_ZEROES
    | tflag::CAN_MULTI_CONN
    | tflag::SEND_CACHE;

/// The server's shared state.
pub struct Server {
    listener: Listener,
    /// The exports, the first being the default one (the empty name).
    exports: Vec<Export>,
}

/// The pid of the process at the other end of a Unix socket (`SO_PEERCRED`).
#[cfg(target_os = "linux")]
fn peer_pid(s: &UnixStream) -> Option<u32> {
    use std::os::unix::io::AsRawFd;
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `cred`, which lives on this
    // stack frame for the call; the descriptor belongs to `s`.
    let r = unsafe {
        libc::getsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    (r == 0 && cred.pid > 0).then_some(cred.pid as u32)
}

#[cfg(not(target_os = "linux"))]
fn peer_pid(_s: &UnixStream) -> Option<u32> {
    None
}

enum Listener {
    Unix(UnixListener, PathBuf),
    Tcp(TcpListener),
}

impl Server {
    /// Binds `listen` for a device of `size_bytes` with `page_bytes` pages, as one export.
    pub fn bind(
        listen: &Listen,
        export_name: &str,
        size_bytes: u64,
        page_bytes: u32,
        max_bytes: u32,
    ) -> io::Result<Server> {
        let one = ExportSpec {
            name: export_name.into(),
            base_bytes: 0,
            size_bytes,
            namespace: 0,
        };
        Server::bind_exports(listen, &[one], page_bytes, max_bytes)
    }

    /// Binds `listen` for the exports `exports` (one per namespace; the first is also
    /// the default export, the empty name), on a device with `page_bytes` pages.
    pub fn bind_exports(
        listen: &Listen,
        exports: &[ExportSpec],
        page_bytes: u32,
        max_bytes: u32,
    ) -> io::Result<Server> {
        if exports.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "no export to serve",
            ));
        }
        let listener = match listen {
            Listen::Unix(p) => {
                if std::fs::symlink_metadata(p)
                    .is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_socket(&m.file_type()))
                {
                    // A socket someone still answers on belongs to a live server: taking
                    // its path would leave that server unreachable (and delete the path
                    // when this one exits). Only a stale socket is replaced.
                    if let Ok(s) = UnixStream::connect(p) {
                        let who = peer_pid(&s).map_or("a live server".to_string(), |pid| {
                            format!("a live server (process {pid})")
                        });
                        return Err(io::Error::new(
                            io::ErrorKind::AddrInUse,
                            format!(
                                "{} is served by {who}; stop it first or give another --socket",
                                p.display()
                            ),
                        ));
                    }
                    std::fs::remove_file(p)?;
                }
                Listener::Unix(UnixListener::bind(p)?, p.clone())
            }
            Listen::Tcp(a) => Listener::Tcp(TcpListener::bind(a)?),
        };
        Ok(Server {
            listener,
            exports: exports
                .iter()
                .map(|e| Export {
                    name: e.name.clone(),
                    base_bytes: e.base_bytes,
                    size_bytes: e.size_bytes,
                    namespace: e.namespace,
                    page_bytes,
                    max_bytes,
                })
                .collect(),
        })
    }

    /// The TCP port bound (after `--port 0`).
    pub fn local_port(&self) -> Option<u16> {
        match &self.listener {
            Listener::Tcp(l) => l.local_addr().ok().map(|a| a.port()),
            Listener::Unix(..) => None,
        }
    }

    /// Serves until `opts.stop` is set or the power cut: connections on their own
    /// threads; statistics lines (to `stats`) and progress from this one.
    pub fn run(
        self,
        dev: &mut Device,
        cfg: &Config,
        opts: &ServeOptions,
        stats: &mut dyn FnMut(&crate::report::Report, &Clocks),
    ) -> io::Result<Ending> {
        let start = Instant::now();
        // The namespaces' slices, as `ssdlab run` lays them out: the statistics carry a
        // section per namespace (each export's commands carry its namespace's index).
        let slices = crate::config::namespace::slices(cfg, dev.capacity_bytes())
            .map_err(io::Error::other)?;
        let shared = Shared {
            sim: Mutex::new(Sim {
                live: LiveStats::new(dev, slices),
                dev,
                commands: 0,
                order: 0,
                sim_done_ns: 0,
                zeros: Vec::new(),
                power_cut: false,
            }),
            start,
            opts,
            conns: Mutex::new(Vec::new()),
            timeliness: Timeliness::default(),
        };
        let exports = self.exports.clone();
        let listener = self.listener;
        let timed = opts.latency != Latency::None;
        let clocks = |sim: &Sim| Clocks {
            simulated_ns: sim.sim_done_ns,
            wall_ns: start.elapsed().as_nanos() as u64,
            requests: sim.commands,
            timeliness: timed.then(|| shared.timeliness.summary()),
        };
        std::thread::scope(|scope| -> io::Result<()> {
            let shared = &shared;
            let exports = &exports[..];
            match listener {
                Listener::Unix(l, path) => {
                    l.set_nonblocking(true)?;
                    scope.spawn(move || {
                        accept_loop(
                            || l.accept().map(|(s, _)| Conn::Unix(s)),
                            scope,
                            shared,
                            exports,
                        );
                        let _ = std::fs::remove_file(path);
                    });
                }
                Listener::Tcp(l) => {
                    l.set_nonblocking(true)?;
                    scope.spawn(move || {
                        accept_loop(
                            || {
                                l.accept().map(|(s, _)| {
                                    let _ = s.set_nodelay(true);
                                    Conn::Tcp(s)
                                })
                            },
                            scope,
                            shared,
                            exports,
                        )
                    });
                }
            }
            let mut last_stats = Instant::now();
            let mut last_progress = Instant::now();
            while !opts.stop.load(Ordering::SeqCst) {
                if opts.stats_now.swap(false, Ordering::SeqCst)
                    || opts.stats_every.is_some_and(|e| last_stats.elapsed() >= e)
                {
                    last_stats = Instant::now();
                    let g = shared.lock();
                    stats(&g.live.report(cfg, g.dev), &clocks(&g));
                }
                if opts.progress && last_progress.elapsed() >= Duration::from_secs(1) {
                    last_progress = Instant::now();
                    let c = clocks(&shared.lock());
                    eprint!(
                        "\r{} requests, simulated {:.3} s, wall {:.3} s   ",
                        c.requests,
                        c.simulated_ns as f64 / 1e9,
                        c.wall_ns as f64 / 1e9
                    );
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            // Every connection is closed so that threads blocked in a read return; the
            // acceptor registers new ones under the same lock and checks the stop there.
            for (_, c) in shared.conns.lock().expect("not poisoned").iter() {
                c.shutdown();
            }
            Ok(())
        })?;
        let sim = shared.sim.into_inner().expect("not poisoned");
        let mut sim_done_ns = sim.sim_done_ns;
        let dev = sim.dev;
        if sim.power_cut {
            power_cut(dev, opts.plp);
            return Ok(Ending::PowerCut);
        }
        // A clean stop: the drive writes its buffer back, as at an orderly power-down.
        let end = dev.flush_buffer(sim_done_ns).map_err(io::Error::other)?;
        sim_done_ns = sim_done_ns.max(end);
        if let Some(d) = dev.nand.data_mut() {
            d.sync()?;
        }
        if opts.progress {
            eprintln!();
        }
        let c = Clocks {
            simulated_ns: sim_done_ns,
            wall_ns: start.elapsed().as_nanos() as u64,
            requests: sim.commands,
            timeliness: (opts.latency != Latency::None).then(|| shared.timeliness.summary()),
        };
        stats(&sim.live.report(cfg, dev), &c);
        Ok(Ending::Stopped)
    }
}

/// The device and its statistics, performed on by one connection at a time.
struct Sim<'d> {
    dev: &'d mut Device,
    live: LiveStats,
    /// Host commands performed (the power cut counts them).
    commands: u64,
    /// Order of replies due at the same instant.
    order: u64,
    /// Latest simulated completion, ns.
    sim_done_ns: u64,
    /// Zeros for WRITE_ZEROES.
    zeros: Vec<u8>,
    /// The power was cut: nothing more is performed or answered.
    power_cut: bool,
}

/// What every connection thread sees.
struct Shared<'d, 'o> {
    sim: Mutex<Sim<'d>>,
    start: Instant,
    opts: &'o ServeOptions,
    /// Open connections (by id), to close them at the stop.
    conns: Mutex<Vec<(u64, Conn)>>,
    /// How late the timed replies were written.
    timeliness: Timeliness,
}

impl<'d> Shared<'d, '_> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Sim<'d>> {
        // A panic while performing is an FTL bug; it ends the server with it.
        self.sim
            .lock()
            .expect("a connection panicked while performing a request")
    }

    /// Performs a checked request on the locked device, appends its reply to `out` and
    /// returns when the reply is due, or `None` when the power is (or just went) out:
    /// the request is never answered.
    fn execute(
        &self,
        sim: &mut Sim,
        export: &Export,
        req: &Request,
        data: &[u8],
        structured: bool,
        out: &mut Vec<u8>,
    ) -> Option<Instant> {
        let opts = self.opts;
        if sim.power_cut {
            return None;
        }
        sim.commands += 1;
        let cut_now = opts.power_cut_at_command == Some(sim.commands);
        // With power-loss protection the capacitors finish the command in flight, so
        // only an unprotected drive loses part of it.
        if cut_now
            && !opts.plp
            && let Some(d) = sim.dev.nand.data_mut()
        {
            d.arm_cut(opts.power_cut_flash_ops);
        }
        let scale = opts.latency.scale();
        let issue_ns = (self.start.elapsed().as_nanos() as f64 / scale) as u64;
        let reply_at = out.len();
        let cmd = Cmd {
            export,
            r: req,
            data,
            structured,
            issue_ns,
        };
        let result = perform(sim.dev, &cmd, &mut sim.zeros, out);
        if sim.dev.nand.data().is_some_and(|d| d.is_cut()) || cut_now {
            sim.power_cut = true;
            opts.stop.store(true, Ordering::SeqCst);
            return None;
        }
        let (done_ns, op) = match result {
            Ok(r) => r,
            Err(e) => {
                eprintln!("ssdlab serve: request failed: {e}");
                out.truncate(reply_at);
                error_reply(req, err::EIO, structured, out);
                return Some(Instant::now());
            }
        };
        sim.sim_done_ns = sim.sim_done_ns.max(done_ns);
        sim.live.record(
            export.namespace,
            op,
            req.length as u64,
            done_ns.saturating_sub(issue_ns),
            done_ns,
        );
        Some(match opts.latency {
            Latency::None => Instant::now(),
            _ => self.start + Duration::from_nanos((done_ns as f64 * scale) as u64),
        })
    }
}

/// The simulated and wall clocks, reported side by side.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clocks {
    /// Simulated time of the last completion, ns.
    pub simulated_ns: u64,
    /// Wall time since the server started, ns.
    pub wall_ns: u64,
    /// Requests performed.
    pub requests: u64,
    /// Whether the timed replies (`--latency simulated` or `scaled=F`) kept real time;
    /// `None` without timed replies.
    pub timeliness: Option<TimelinessSummary>,
}

/// A reply written more than this after its due instant counts as late: about a
/// timer wake-up's usual slack on Linux, so that "late" means the server could not keep
/// up, not that a thread woke a few microseconds after its deadline.
pub const LATE_TOLERANCE_NS: u64 = 10_000;

/// Sub-buckets per power of two of the lateness histogram (±19 % resolution).
const SUB: u32 = 4;

/// How late the timed replies were written: a log histogram of lateness (time written
/// minus due instant, ns), shared by the connections' timer threads.
pub struct Timeliness {
    buckets: Vec<AtomicU64>,
}

/// What [`Timeliness`] reports.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimelinessSummary {
    /// Timed replies written.
    pub replies: u64,
    /// Of those, written more than [`LATE_TOLERANCE_NS`] after their due instant.
    pub late: u64,
    /// Lateness at the median and the 99th percentile (upper edge of its bucket), ns.
    pub lateness_ns_p50: u64,
    /// See `lateness_ns_p50`.
    pub lateness_ns_p99: u64,
}

impl TimelinessSummary {
    /// Share of late replies, 0–1.
    pub fn late_share(&self) -> f64 {
        if self.replies == 0 {
            0.0
        } else {
            self.late as f64 / self.replies as f64
        }
    }
}

impl Default for Timeliness {
    fn default() -> Self {
        Timeliness {
            buckets: (0..(64 * SUB as usize))
                .map(|_| AtomicU64::new(0))
                .collect(),
        }
    }
}

impl Timeliness {
    fn bucket(ns: u64) -> usize {
        if ns < 2 {
            return ns as usize;
        }
        let log = 63 - ns.leading_zeros();
        let frac = if log >= 2 {
            (ns >> (log - 2)) & 3
        } else {
            (ns << (2 - log)) & 3
        };
        (log * SUB) as usize + frac as usize
    }

    /// Upper edge of bucket `b`, ns.
    fn edge(b: usize) -> u64 {
        if b < 2 {
            return b as u64;
        }
        let (log, frac) = (b as u32 / SUB, b as u128 % SUB as u128);
        let base = 1u128 << log;
        (base + (base * (frac + 1)).div_ceil(SUB as u128)).min(u64::MAX as u128) as u64
    }

    /// Records a reply written `late_ns` after its due instant.
    pub fn record(&self, late_ns: u64) {
        self.buckets[Self::bucket(late_ns)].fetch_add(1, Ordering::Relaxed);
    }

    /// The replies so far.
    pub fn summary(&self) -> TimelinessSummary {
        let counts: Vec<u64> = self
            .buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect();
        let replies: u64 = counts.iter().sum();
        let late: u64 = counts
            .iter()
            .enumerate()
            .filter(|(b, _)| Self::edge(*b) > LATE_TOLERANCE_NS)
            .map(|(_, c)| c)
            .sum();
        let at = |q: f64| {
            let want = ((replies as f64) * q).ceil().max(1.0) as u64;
            let mut seen = 0;
            for (b, c) in counts.iter().enumerate() {
                seen += c;
                if seen >= want {
                    return Self::edge(b);
                }
            }
            0
        };
        TimelinessSummary {
            replies,
            late,
            lateness_ns_p50: if replies == 0 { 0 } else { at(0.5) },
            lateness_ns_p99: if replies == 0 { 0 } else { at(0.99) },
        }
    }
}

fn accept_loop<'scope, 'env, 'd: 'scope, 'o: 'scope>(
    accept: impl Fn() -> io::Result<Conn>,
    scope: &'scope std::thread::Scope<'scope, 'env>,
    shared: &'scope Shared<'d, 'o>,
    exports: &'scope [Export],
) {
    let mut next_id = 0u64;
    while !shared.opts.stop.load(Ordering::SeqCst) {
        match accept() {
            Ok(c) => {
                next_id += 1;
                let id = next_id;
                {
                    let mut conns = shared.conns.lock().expect("not poisoned");
                    // Checked under the lock the stop closes connections under.
                    if shared.opts.stop.load(Ordering::SeqCst) {
                        c.shutdown();
                        break;
                    }
                    match c.try_clone() {
                        Ok(k) => conns.push((id, k)),
                        Err(e) => {
                            eprintln!("ssdlab serve: connection refused: {e}");
                            continue;
                        }
                    }
                }
                scope.spawn(move || {
                    if let Err(e) = connection(c, shared, exports)
                        && e.kind() != io::ErrorKind::UnexpectedEof
                    {
                        eprintln!("ssdlab serve: connection closed: {e}");
                    }
                    let mut conns = shared.conns.lock().expect("not poisoned");
                    conns.retain(|(i, _)| *i != id);
                });
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => {
                eprintln!("ssdlab serve: accept failed: {e}");
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

fn protocol_error(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

/// Negotiates; returns whether structured replies were chosen and the export the client
/// chose, or `None` when the client ended the session during negotiation.
fn negotiate<'e>(c: &mut Conn, exports: &'e [Export]) -> io::Result<Option<(bool, &'e Export)>> {
    c.write_all(&proto::greeting())?;
    let mut f = [0u8; 4];
    c.read_exact(&mut f)?;
    let client_flags = u32::from_be_bytes(f);
    if client_flags & !proto::CLIENT_FLAGS_KNOWN != 0 {
        return Err(protocol_error(format!(
            "unknown client flags {client_flags:#x}"
        )));
    }
    let no_zeroes = client_flags & proto::CLIENT_NO_ZEROES != 0;
    let mut structured = false;
    loop {
        let mut h = [0u8; proto::OPTION_HEADER_BYTES];
        c.read_exact(&mut h)?;
        let oh = proto::decode_option(&h).ok_or_else(|| protocol_error("bad option magic"))?;
        if oh.length > proto::MAX_OPTION_BYTES {
            return Err(protocol_error(format!(
                "option data of {} bytes",
                oh.length
            )));
        }
        let mut d = vec![0u8; oh.length as usize];
        c.read_exact(&mut d)?;
        // The empty name is the default export, the first.
        let known = |name: &[u8]| {
            if name.is_empty() {
                exports.first()
            } else {
                exports.iter().find(|e| e.name.as_bytes() == name)
            }
        };
        match oh.option {
            opt::EXPORT_NAME => {
                let Some(export) = known(&d) else {
                    return Err(protocol_error("unknown export name"));
                };
                c.write_all(&export.size_bytes.to_be_bytes())?;
                c.write_all(&TRANSMISSION_FLAGS.to_be_bytes())?;
                if !no_zeroes {
                    c.write_all(&[0u8; 124])?;
                }
                return Ok(Some((structured, export)));
            }
            opt::ABORT => {
                c.write_all(&proto::option_reply(oh.option, rep::ACK, &[]))?;
                return Ok(None);
            }
            opt::LIST => {
                if !d.is_empty() {
                    c.write_all(&proto::option_reply(oh.option, rep::ERR_INVALID, &[]))?;
                    continue;
                }
                for export in exports {
                    let mut s = (export.name.len() as u32).to_be_bytes().to_vec();
                    s.extend_from_slice(export.name.as_bytes());
                    c.write_all(&proto::option_reply(oh.option, rep::SERVER, &s))?;
                }
                c.write_all(&proto::option_reply(oh.option, rep::ACK, &[]))?;
            }
            opt::STRUCTURED_REPLY => {
                if !d.is_empty() {
                    c.write_all(&proto::option_reply(oh.option, rep::ERR_INVALID, &[]))?;
                    continue;
                }
                structured = true;
                c.write_all(&proto::option_reply(oh.option, rep::ACK, &[]))?;
            }
            opt::INFO | opt::GO => {
                let Some(ir) = proto::parse_info_request(&d) else {
                    c.write_all(&proto::option_reply(oh.option, rep::ERR_INVALID, &[]))?;
                    continue;
                };
                let Some(export) = known(&ir.name) else {
                    c.write_all(&proto::option_reply(oh.option, rep::ERR_UNKNOWN, &[]))?;
                    continue;
                };
                c.write_all(&proto::option_reply(
                    oh.option,
                    rep::INFO,
                    &proto::info_export(export.size_bytes, TRANSMISSION_FLAGS),
                ))?;
                if ir.requests.contains(&proto::info::BLOCK_SIZE) {
                    c.write_all(&proto::option_reply(
                        oh.option,
                        rep::INFO,
                        &proto::info_block_size(512, export.page_bytes, export.max_bytes),
                    ))?;
                }
                c.write_all(&proto::option_reply(oh.option, rep::ACK, &[]))?;
                if oh.option == opt::GO {
                    return Ok(Some((structured, export)));
                }
            }
            _ => {
                c.write_all(&proto::option_reply(oh.option, rep::ERR_UNSUP, &[]))?;
            }
        }
    }
}

/// Bytes a connection reads at a time: a queue-depth-32 client's 4 KiB writes (32 ×
/// 4,124 bytes) fit whole, so one `recv` brings a client's whole queue in.
const READ_BUFFER_BYTES: usize = 256 << 10;

/// Requests performed under one lock of the device before their replies are sent. Small,
/// so that a queue-depth-32 client gets replies (and sends new requests) while the rest
/// of its queue is performed: client and server then work side by side instead of taking
/// turns, and the server's next read nearly always finds requests waiting, so it seldom
/// sleeps. Measured with fio (4 KiB random writes, QD 32, BENCHMARKS.md 2026-11-24):
/// 8 gave 127–130 k IOPS, 64 gave 121 k, 1 (a `send` per reply) 106–113 k.
const MAX_BATCH: usize = 8;

/// A connection's read buffer. Requests are decoded and performed straight from it (a
/// write's payload is never copied out before the device takes it), and it is refilled
/// by one `read` of whatever the socket holds. Its bytes are zeroed once when it is
/// allocated, never per request.
struct ReadBuf {
    buf: Vec<u8>,
    /// Unconsumed bytes are `buf[start..end]`.
    start: usize,
    end: usize,
}

impl ReadBuf {
    fn new() -> ReadBuf {
        ReadBuf {
            buf: vec![0; READ_BUFFER_BYTES],
            start: 0,
            end: 0,
        }
    }

    fn data(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    fn consume(&mut self, n: usize) {
        self.start += n;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            // A request larger than the usual buffer grew it; give that memory back.
            if self.buf.len() > READ_BUFFER_BYTES {
                self.buf = vec![0; READ_BUFFER_BYTES];
            }
        }
    }

    /// Reads once (waiting for the client) with room for `need` unconsumed bytes; the
    /// number of bytes read, 0 at the end of the stream.
    fn fill(&mut self, c: &mut Conn, need: usize) -> io::Result<usize> {
        if self.buf.len() < need {
            self.buf.resize(need, 0);
        }
        // Move the unconsumed tail (less than one request) to the front when the room
        // behind it is short, so that each read can take a whole queue of requests.
        if self.buf.len() - self.start < need || self.buf.len() - self.end < self.buf.len() / 4 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        loop {
            match c.read(&mut self.buf[self.end..]) {
                Ok(n) => {
                    self.end += n;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// Where a connection's replies go.
enum Replies {
    /// `--latency none`: sent by the connection's thread, all replies of a batch in one
    /// write.
    Now(Vec<u8>),
    /// Simulated timing: handed to the connection's timer thread, which sends each when
    /// due.
    Timed(mpsc::Sender<Vec<Outgoing>>, Vec<Outgoing>),
}

impl Replies {
    /// Buffer for the next reply's bytes.
    fn buffer(&mut self) -> &mut Vec<u8> {
        match self {
            Replies::Now(out) => out,
            Replies::Timed(_, batch) => {
                batch.push(Outgoing {
                    due: Instant::now(),
                    order: 0,
                    bytes: Vec::new(),
                });
                &mut batch.last_mut().expect("just pushed").bytes
            }
        }
    }

    /// The reply just written to [`Self::buffer`] is due at `due`.
    fn due(&mut self, due: Instant, order: u64) {
        if let Replies::Timed(_, batch) = self
            && let Some(o) = batch.last_mut()
        {
            o.due = due;
            o.order = order;
        }
    }

    /// Sends (or hands over) the replies so far.
    fn send(&mut self, c: &mut Conn) -> io::Result<()> {
        match self {
            Replies::Now(out) => {
                if !out.is_empty() {
                    c.write_all(out)?;
                    out.clear();
                }
            }
            Replies::Timed(tx, batch) => {
                if !batch.is_empty() {
                    tx.send(std::mem::take(batch))
                        .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))?;
                }
            }
        }
        Ok(())
    }
}

/// One connection: negotiation, then requests until DISC, EOF or a protocol error, read
/// and performed on this thread; with simulated timing a timer thread sends the replies.
fn connection(mut c: Conn, shared: &Shared, exports: &[Export]) -> io::Result<()> {
    let Some((structured, export)) = negotiate(&mut c, exports)? else {
        return Ok(());
    };
    let result = if shared.opts.latency == Latency::None {
        serve_requests(&mut c, shared, export, structured, Replies::Now(Vec::new()))
    } else {
        let wc = c.try_clone()?;
        std::thread::scope(|s| {
            let (tx, rx) = mpsc::channel::<Vec<Outgoing>>();
            let t = &shared.timeliness;
            s.spawn(move || send_when_due(wc, rx, t));
            serve_requests(
                &mut c,
                shared,
                export,
                structured,
                Replies::Timed(tx, Vec::new()),
            )
            // The sender is dropped: the timer thread sends what it holds, then ends.
        })
    };
    c.shutdown();
    result
}

/// What the next bytes of the read buffer hold.
enum Next {
    /// Fewer than this many bytes of the request are buffered.
    Need(usize),
    /// A whole request: its header, verdict and the length of header + payload.
    Whole(Request, Verdict, usize),
}

fn next_request(d: &[u8], export: &Export) -> io::Result<Next> {
    let Some(h) = d.first_chunk::<{ proto::REQUEST_BYTES }>() else {
        return Ok(Next::Need(proto::REQUEST_BYTES));
    };
    let req = proto::decode_request(h).map_err(|e| protocol_error(e.to_string()))?;
    let verdict = proto::check_request(&req, export.size_bytes, export.max_bytes);
    if verdict == Verdict::Close {
        return Err(protocol_error(format!(
            "write of {} bytes (maximum {})",
            req.length, export.max_bytes
        )));
    }
    // A write's payload follows its header, also when it is answered with an error.
    let whole = proto::REQUEST_BYTES
        + if req.cmd == Command::Write {
            req.length as usize
        } else {
            0
        };
    Ok(if d.len() < whole {
        Next::Need(whole)
    } else {
        Next::Whole(req, verdict, whole)
    })
}

/// The request loop: perform every whole request the read buffer holds (at most
/// [`MAX_BATCH`] under one lock of the device), send their replies, then read once more.
/// A client that stalls in the middle of a request has had every earlier reply.
fn serve_requests(
    c: &mut Conn,
    shared: &Shared,
    export: &Export,
    structured: bool,
    mut replies: Replies,
) -> io::Result<()> {
    let mut rb = ReadBuf::new();
    loop {
        let mut sim = None;
        let mut performed = 0;
        let step = loop {
            if performed == MAX_BATCH {
                break Ok(None);
            }
            let (req, verdict, whole) = match next_request(rb.data(), export) {
                Ok(Next::Need(n)) => break Ok(Some(n)),
                Ok(Next::Whole(r, v, w)) => (r, v, w),
                Err(e) => break Err(e),
            };
            if shared.opts.stop.load(Ordering::SeqCst) {
                error_reply(&req, err::ESHUTDOWN, structured, replies.buffer());
                break Err(io::ErrorKind::UnexpectedEof.into());
            }
            match verdict {
                Verdict::Run if req.cmd == Command::Disc => {
                    break Err(io::ErrorKind::UnexpectedEof.into());
                }
                Verdict::Run => {
                    let g = sim.get_or_insert_with(|| shared.lock());
                    let data = &rb.data()[proto::REQUEST_BYTES..whole];
                    match shared.execute(g, export, &req, data, structured, replies.buffer()) {
                        Some(due) => {
                            g.order += 1;
                            replies.due(due, g.order);
                        }
                        // The power is out: nothing more is answered.
                        None => {
                            c.shutdown();
                            return Ok(());
                        }
                    }
                }
                Verdict::Error(e) => {
                    // Past the export's end is NVMe's LBA Out of Range for its namespace,
                    // counted as `ssdlab run` counts it.
                    if proto::out_of_range(&req, export.size_bytes) {
                        sim.get_or_insert_with(|| shared.lock())
                            .live
                            .record_out_of_range(export.namespace);
                    }
                    error_reply(&req, e, structured, replies.buffer())
                }
                Verdict::Close => unreachable!("next_request closes"),
            }
            rb.consume(whole);
            performed += 1;
        };
        drop(sim);
        replies.send(c)?;
        match step {
            Ok(Some(need)) => {
                if rb.fill(c, need)? == 0 {
                    return Ok(());
                }
            }
            Ok(None) => {}
            // DISC, the stop, or the end of the stream: a clean end.
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        }
    }
}

/// Appends the error reply to `req`.
fn error_reply(req: &Request, e: u32, structured: bool, out: &mut Vec<u8>) {
    if structured && req.cmd == Command::Read {
        out.extend_from_slice(&proto::structured_error(req.cookie, e, ""));
    } else {
        out.extend_from_slice(&proto::simple_reply(req.cookie, e));
    }
}

/// A connection's timer thread (simulated timing): keeps the replies in a heap by due
/// time and sends each when it is due, those due together in one write.
fn send_when_due(mut c: Conn, rx: mpsc::Receiver<Vec<Outgoing>>, lateness: &Timeliness) {
    let mut heap = BinaryHeap::<Outgoing>::new();
    let mut out = Vec::new();
    let mut open = true;
    while open || !heap.is_empty() {
        let now = Instant::now();
        while heap.peek().is_some_and(|o| o.due <= now) {
            let o = heap.pop().expect("peeked");
            lateness.record(now.duration_since(o.due).as_nanos() as u64);
            out.extend_from_slice(&o.bytes);
        }
        if !out.is_empty() {
            if c.write_all(&out).is_err() {
                return;
            }
            out.clear();
        }
        let wait = heap.peek().map(|o| o.due.saturating_duration_since(now));
        let got = match (open, wait) {
            (true, None) => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
            (true, Some(w)) => rx.recv_timeout(w),
            (false, Some(w)) => {
                std::thread::sleep(w);
                continue;
            }
            (false, None) => break,
        };
        match got {
            Ok(b) => heap.extend(b),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => open = false,
        }
        heap.extend(rx.try_iter().flatten());
    }
}

/// Power is lost: with PLP the capacitors let the write buffer reach flash; without,
/// its contents are gone. Nothing else is written.
fn power_cut(dev: &mut Device, plp: bool) {
    if plp {
        let _ = dev.flush_buffer(0);
    }
    if let Some(d) = dev.nand.data_mut() {
        d.lose_dram();
        let _ = d.sync();
    }
}

/// One request as [`perform`] takes it.
struct Cmd<'a> {
    /// The export it came on: its offsets are the export's, the device sees them past
    /// the export's base.
    export: &'a Export,
    r: &'a Request,
    /// A write's payload.
    data: &'a [u8],
    /// Structured replies negotiated.
    structured: bool,
    issue_ns: u64,
}

/// Performs one request and appends its reply to `out`; returns the completion time and
/// its kind.
fn perform(
    dev: &mut Device,
    cmd: &Cmd,
    zeros: &mut Vec<u8>,
    out: &mut Vec<u8>,
) -> Result<(u64, OpKind), SimError> {
    let &Cmd {
        export,
        r,
        data,
        structured,
        issue_ns,
    } = cmd;
    let fua = r.flags & cflag::FUA != 0;
    let tag = export.tag();
    let sub = |op: OpKind, offset: u64, len: u64| {
        IoRequest::new(op, offset, len)
            .at(issue_ns)
            .in_namespace(tag.namespace)
    };
    // The request was checked against the export's size: the device byte cannot overflow.
    let at = export.base_bytes + r.offset;
    if r.cmd != Command::Read || !structured {
        out.extend_from_slice(&proto::simple_reply(r.cookie, 0));
    }
    match r.cmd {
        Command::Read => {
            if structured {
                out.extend_from_slice(&proto::structured_header(
                    r.cookie,
                    proto::chunk::DONE,
                    if r.length == 0 {
                        proto::chunk::NONE
                    } else {
                        proto::chunk::OFFSET_DATA
                    },
                    if r.length == 0 { 0 } else { 8 + r.length },
                ));
                if r.length > 0 {
                    out.extend_from_slice(&r.offset.to_be_bytes());
                }
            }
            if r.length == 0 {
                return Ok((issue_ns, OpKind::Read));
            }
            let data_at = out.len();
            out.resize(data_at + r.length as usize, 0);
            let done = dev.read_data_as(tag, at, &mut out[data_at..], issue_ns)?;
            Ok((done, OpKind::Read))
        }
        Command::Write | Command::WriteZeroes => {
            if r.length == 0 {
                return Ok((issue_ns, OpKind::Write));
            }
            let mut done = issue_ns;
            if r.cmd == Command::Write {
                done = dev.write_data_as(tag, at, data, issue_ns)?;
            } else {
                // Zeros are written (never a hole: a trim is not durable across a power
                // cut, a write is), in pieces of at most the largest request.
                let chunk = 1u64 << 22;
                if zeros.len() < chunk as usize {
                    zeros.resize(chunk as usize, 0);
                }
                let mut pos = at;
                let end = at + r.length as u64;
                while pos < end {
                    let n = chunk.min(end - pos);
                    done = done.max(dev.write_data_as(tag, pos, &zeros[..n as usize], issue_ns)?);
                    pos += n;
                }
            }
            if fua {
                done = done.max(flush(dev, &sub(OpKind::Flush, 0, 0), done)?);
            }
            Ok((done, OpKind::Write))
        }
        Command::Trim => {
            if r.length == 0 {
                return Ok((issue_ns, OpKind::Trim));
            }
            let mut done = dev.submit(&sub(OpKind::Trim, at, r.length as u64), issue_ns)?;
            if fua {
                done = done.max(flush(dev, &sub(OpKind::Flush, 0, 0), done)?);
            }
            Ok((done, OpKind::Trim))
        }
        Command::Flush => {
            let done = flush(dev, &sub(OpKind::Flush, 0, 0), issue_ns)?;
            Ok((done, OpKind::Flush))
        }
        // A prefetch hint: the simulated device has no read cache to fill.
        Command::Cache => Ok((issue_ns, OpKind::Read)),
        Command::Disc | Command::Unknown(_) => unreachable!("filtered before"),
    }
}

/// A host FLUSH through the pipeline, then the store made durable.
fn flush(dev: &mut Device, req: &IoRequest, at_ns: u64) -> Result<u64, SimError> {
    let done = dev.submit(req, at_ns)?;
    if let Some(d) = dev.nand.data_mut() {
        d.sync()
            .map_err(|e| SimError::Config(format!("data file sync failed: {e}")))?;
    }
    Ok(done)
}

#[cfg(test)]
mod timeliness_tests {
    use super::*;

    #[test]
    fn lateness_percentiles_and_late_share() {
        let t = Timeliness::default();
        for _ in 0..90 {
            t.record(1_000);
        }
        for _ in 0..10 {
            t.record(1_000_000);
        }
        let s = t.summary();
        assert_eq!((s.replies, s.late), (100, 10));
        assert!((1_000..1_300).contains(&s.lateness_ns_p50), "{s:?}");
        assert!((1_000_000..1_300_000).contains(&s.lateness_ns_p99), "{s:?}");
        assert_eq!(s.late_share(), 0.1);
        for ns in [0u64, 1, 2, 3, 5, 7, 1 << 40, u64::MAX] {
            assert!(Timeliness::edge(Timeliness::bucket(ns)) >= ns, "{ns}");
        }
    }
}
