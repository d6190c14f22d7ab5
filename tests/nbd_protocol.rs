//! `ssdlab serve` against a raw client: the handshake, option replies and malformed
//! requests get the NBD spec's answers, and a stalled or misbehaving client never stops
//! the server from serving the others; `--latency simulated` and `scaled=F` hold each
//! reply until its simulated completion (checked against the simulated clock the server
//! reports, never against a fixed wall-clock bound); statistics lines come every
//! `--stats-every`, on SIGUSR1 and at exit, with the keys of `ssdlab run --json`.

use ssdlab::nbd::proto::{self, Command, Request, cflag, err, opt, rep};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

struct Serve {
    child: Child,
    sock: PathBuf,
}

impl Serve {
    fn start(dir: &Path) -> Serve {
        Serve::with(
            dir,
            "p",
            &[
                "--capacity",
                "16MiB",
                "--buffer",
                "lru",
                "--buffer-size",
                "1MiB",
            ],
        )
    }

    /// A server with these flags; its standard output goes to `dir/NAME.out`.
    fn with(dir: &Path, name: &str, args: &[&str]) -> Serve {
        let sock = dir.join(format!("{name}.sock"));
        let out = std::fs::File::create(dir.join(format!("{name}.out"))).unwrap();
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .arg("serve")
            .args(args)
            .arg("--socket")
            .arg(&sock)
            .stdout(out)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let t = Instant::now();
        while !sock.exists() {
            assert!(t.elapsed() < Duration::from_secs(60));
            std::thread::sleep(Duration::from_millis(20));
        }
        Serve { child, sock }
    }

    fn signal(&self, sig: i32) {
        // SAFETY: signalling our own child by its id.
        unsafe {
            libc::kill(self.child.id() as i32, sig);
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn connect(s: &Serve) -> UnixStream {
    let c = UnixStream::connect(&s.sock).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    c
}

fn read_n(c: &mut UnixStream, n: usize) -> Vec<u8> {
    let mut b = vec![0u8; n];
    c.read_exact(&mut b).unwrap();
    b
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes(b[..4].try_into().unwrap())
}

fn send_option(c: &mut UnixStream, option: u32, data: &[u8]) {
    let mut v = proto::IHAVEOPT.to_be_bytes().to_vec();
    v.extend_from_slice(&option.to_be_bytes());
    v.extend_from_slice(&(data.len() as u32).to_be_bytes());
    v.extend_from_slice(data);
    c.write_all(&v).unwrap();
}

/// (option, reply type, data)
fn option_reply(c: &mut UnixStream) -> (u32, u32, Vec<u8>) {
    let h = read_n(c, 20);
    assert_eq!(&h[0..8], &proto::REPLY_MAGIC.to_be_bytes());
    let len = be32(&h[16..20]) as usize;
    (be32(&h[8..12]), be32(&h[12..16]), read_n(c, len))
}

/// Greeting, client flags, then GO on the default export; returns the export size.
fn handshake(c: &mut UnixStream) -> u64 {
    handshake_pages(c, 4096)
}

/// [`handshake`] with a device of `page_bytes` pages (the preferred block size).
fn handshake_pages(c: &mut UnixStream, page_bytes: u32) -> u64 {
    let g = read_n(c, 18);
    assert_eq!(&g[0..8], b"NBDMAGIC");
    assert_eq!(&g[8..16], b"IHAVEOPT");
    c.write_all(&3u32.to_be_bytes()).unwrap();
    // An unknown option is answered "unsupported" and negotiation goes on.
    send_option(c, 4242, b"abc");
    assert_eq!(option_reply(c).1, rep::ERR_UNSUP);
    send_option(c, opt::LIST, &[]);
    let (_, t, d) = option_reply(c);
    assert_eq!(t, rep::SERVER);
    assert_eq!(&d[4..], b"ssdlab");
    assert_eq!(option_reply(c).1, rep::ACK);
    // INFO on an unknown export.
    let mut info = 3u32.to_be_bytes().to_vec();
    info.extend_from_slice(b"xyz");
    info.extend_from_slice(&0u16.to_be_bytes());
    send_option(c, opt::INFO, &info);
    assert_eq!(option_reply(c).1, rep::ERR_UNKNOWN);
    // A malformed GO (lengths disagree).
    send_option(c, opt::GO, &[0, 0, 0, 9]);
    assert_eq!(option_reply(c).1, rep::ERR_INVALID);
    let mut go = 0u32.to_be_bytes().to_vec();
    go.extend_from_slice(&1u16.to_be_bytes());
    go.extend_from_slice(&proto::info::BLOCK_SIZE.to_be_bytes());
    send_option(c, opt::GO, &go);
    let mut size = 0;
    loop {
        let (_, t, d) = option_reply(c);
        if t == rep::ACK {
            break;
        }
        assert_eq!(t, rep::INFO);
        match u16::from_be_bytes([d[0], d[1]]) {
            0 => size = u64::from_be_bytes(d[2..10].try_into().unwrap()),
            3 => {
                assert_eq!(be32(&d[2..6]), 512);
                assert_eq!(be32(&d[6..10]), page_bytes);
            }
            other => panic!("info {other}"),
        }
    }
    size
}

fn request(c: &mut UnixStream, cmd: Command, flags: u16, offset: u64, length: u32, cookie: u64) {
    let r = Request {
        flags,
        cmd,
        cookie,
        offset,
        length,
    };
    c.write_all(&proto::encode_request(&r)).unwrap();
}

/// (error, cookie) of a simple reply.
fn simple_reply(c: &mut UnixStream) -> (u32, u64) {
    let h = read_n(c, 16);
    assert_eq!(be32(&h[0..4]), proto::SIMPLE_REPLY_MAGIC);
    (
        be32(&h[4..8]),
        u64::from_be_bytes(h[8..16].try_into().unwrap()),
    )
}

fn closed(c: &mut UnixStream) -> bool {
    let mut b = [0u8; 1];
    matches!(c.read(&mut b), Ok(0) | Err(_))
}

#[test]
fn malformed_requests_get_spec_errors_and_never_stop_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let s = Serve::start(dir.path());
    let mut a = connect(&s);
    let size = handshake(&mut a);
    assert_eq!(size, 16 << 20);
    // A client that sends half a request header and stalls.
    let mut stalled = connect(&s);
    handshake(&mut stalled);
    stalled
        .write_all(&proto::REQUEST_MAGIC.to_be_bytes())
        .unwrap();
    stalled.write_all(&[0, 0, 0, 1, 0, 0]).unwrap();
    // Another that sends half a write's payload and stalls.
    let mut stalled2 = connect(&s);
    handshake(&mut stalled2);
    request(&mut stalled2, Command::Write, 0, 0, 8192, 1);
    stalled2.write_all(&[7u8; 100]).unwrap();

    // Meanwhile `a` is served: write, read back.
    request(&mut a, Command::Write, cflag::FUA, 4096, 4096, 11);
    a.write_all(&[0x5a; 4096]).unwrap();
    assert_eq!(simple_reply(&mut a), (0, 11));
    request(&mut a, Command::Read, 0, 4096, 4096, 12);
    assert_eq!(simple_reply(&mut a), (0, 12));
    assert_eq!(read_n(&mut a, 4096), vec![0x5a; 4096]);
    // Unknown command: EINVAL.
    request(&mut a, Command::Unknown(77), 0, 0, 0, 13);
    assert_eq!(simple_reply(&mut a), (err::EINVAL, 13));
    // Unknown flag: EINVAL.
    request(&mut a, Command::Read, 0x40, 0, 512, 14);
    assert_eq!(simple_reply(&mut a), (err::EINVAL, 14));
    // Read past the end: EINVAL; write past the end: ENOSPC (its payload is skipped).
    request(&mut a, Command::Read, 0, size - 512, 1024, 15);
    assert_eq!(simple_reply(&mut a), (err::EINVAL, 15));
    request(&mut a, Command::Write, 0, size, 512, 16);
    a.write_all(&[1u8; 512]).unwrap();
    assert_eq!(simple_reply(&mut a), (err::ENOSPC, 16));
    // Offset + length overflows.
    request(&mut a, Command::Trim, 0, u64::MAX - 100, 4096, 17);
    assert_eq!(simple_reply(&mut a), (err::EINVAL, 17));
    // Still in sync: the data is intact and unwritten space reads zeros.
    request(&mut a, Command::Read, 0, 0, 8192, 18);
    assert_eq!(simple_reply(&mut a), (0, 18));
    let d = read_n(&mut a, 8192);
    assert!(d[..4096].iter().all(|&b| b == 0));
    assert!(d[4096..].iter().all(|&b| b == 0x5a));
    // Flush, trim, write zeroes, cache.
    for (cmd, cookie) in [
        (Command::Flush, 19),
        (Command::Trim, 20),
        (Command::WriteZeroes, 21),
        (Command::Cache, 22),
    ] {
        request(&mut a, cmd, 0, 0, 4096, cookie);
        assert_eq!(simple_reply(&mut a), (0, cookie));
    }
    // A write longer than the maximum cannot be skipped: the connection closes.
    let mut b = connect(&s);
    handshake(&mut b);
    request(&mut b, Command::Write, 0, 0, u32::MAX, 30);
    assert!(closed(&mut b));
    // Bad request magic: closed.
    let mut c = connect(&s);
    handshake(&mut c);
    c.write_all(&[0xde; 28]).unwrap();
    assert!(closed(&mut c));
    // Bad option magic and unknown client flags: closed.
    let mut d = connect(&s);
    read_n(&mut d, 18);
    d.write_all(&0x8000u32.to_be_bytes()).unwrap();
    assert!(closed(&mut d));
    let mut e = connect(&s);
    read_n(&mut e, 18);
    e.write_all(&1u32.to_be_bytes()).unwrap();
    e.write_all(&[0u8; 16]).unwrap();
    assert!(closed(&mut e));
    // The stalled clients did not block anyone; `a` still works and disconnects cleanly.
    request(&mut a, Command::Read, 0, 4096, 512, 40);
    assert_eq!(simple_reply(&mut a), (0, 40));
    assert_eq!(read_n(&mut a, 512), vec![0x5a; 512]);
    request(&mut a, Command::Disc, 0, 0, 0, 41);
    assert!(closed(&mut a));
    drop(stalled);
    drop(stalled2);
    // A new client after all that is served.
    let mut f = connect(&s);
    handshake(&mut f);
    request(&mut f, Command::Read, 0, 4096, 512, 50);
    assert_eq!(simple_reply(&mut f), (0, 50));
    let mut s = s;
    assert!(s.child.try_wait().unwrap().is_none(), "the server died");
}

#[test]
fn structured_replies_carry_read_data_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = Serve::start(dir.path());
    let mut a = connect(&s);
    read_n(&mut a, 18);
    a.write_all(&3u32.to_be_bytes()).unwrap();
    send_option(&mut a, opt::STRUCTURED_REPLY, &[]);
    assert_eq!(option_reply(&mut a).1, rep::ACK);
    send_option(&mut a, opt::EXPORT_NAME, b"ssdlab");
    let x = read_n(&mut a, 10);
    assert_eq!(u64::from_be_bytes(x[0..8].try_into().unwrap()), 16 << 20);
    request(&mut a, Command::Write, 0, 1000, 24, 1);
    a.write_all(&[9u8; 24]).unwrap();
    assert_eq!(simple_reply(&mut a), (0, 1));
    request(&mut a, Command::Read, 0, 1000, 24, 2);
    let h = read_n(&mut a, 20);
    assert_eq!(be32(&h[0..4]), proto::STRUCTURED_REPLY_MAGIC);
    assert_eq!(u16::from_be_bytes([h[6], h[7]]), proto::chunk::OFFSET_DATA);
    assert_eq!(be32(&h[16..20]), 8 + 24);
    let p = read_n(&mut a, 32);
    assert_eq!(u64::from_be_bytes(p[0..8].try_into().unwrap()), 1000);
    assert_eq!(&p[8..], &[9u8; 24]);
    request(&mut a, Command::Read, 0, 16 << 20, 512, 3);
    let h = read_n(&mut a, 20);
    assert_eq!(u16::from_be_bytes([h[6], h[7]]), proto::chunk::ERROR);
    let p = read_n(&mut a, be32(&h[16..20]) as usize);
    assert_eq!(be32(&p[0..4]), err::EINVAL);
}

/// The statistics lines the server finished printing so far (a line still being
/// written, without its newline, is not one yet).
fn stats_lines(dir: &Path, name: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join(format!("{name}.out"))).unwrap();
    let done = text.rfind('\n').map_or("", |i| &text[..i]);
    done.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Waits until the server printed `n` lines.
fn wait_lines(dir: &Path, name: &str, n: usize) -> Vec<serde_json::Value> {
    let t = Instant::now();
    loop {
        let v = stats_lines(dir, name);
        if v.len() >= n {
            return v;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "{} lines: {v:?}",
            v.len()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends `n` 4 KiB writes one at a time (a gap of `gap` after the first half); returns
/// the wall time each took, from its request to its reply.
fn timed_writes(c: &mut UnixStream, n: u64, gap: Duration) -> Vec<Duration> {
    (0..n)
        .map(|i| {
            if i == n / 2 {
                std::thread::sleep(gap);
            }
            let t = Instant::now();
            // Within the first MiB: on SSD B each write after the first rewrites the
            // whole 1 MiB management block.
            request(c, Command::Write, 0, (i % 200) * 4096, 4096, i);
            c.write_all(&[i as u8; 4096]).unwrap();
            assert_eq!(simple_reply(c), (0, i));
            t.elapsed()
        })
        .collect()
}

/// With `--latency simulated` (F = 1) and `scaled=F`, no reply comes before its simulated
/// service time × F has passed on the wall clock (summed over requests sent one at a
/// time: each waits at least F × its simulated latency), and the simulated clock
/// follows the wall clock divided by F (an idle gap of wall time moves it by gap / F).
/// SSD B read-modify-writes its management block on every 4 KiB write (≈ 1 ms simulated here), so
/// replies that ignored the mode would come far too early.
#[test]
fn simulated_and_scaled_latency_hold_replies_until_the_simulated_completion() {
    let dir = tempfile::tempdir().unwrap();
    for (mode, f) in [("simulated", 1.0f64), ("scaled=0.25", 0.25)] {
        let name = mode.replace('=', "");
        let s = Serve::with(
            dir.path(),
            &name,
            &[
                "--preset",
                "ssd-b",
                "--capacity",
                "64MiB",
                "--latency",
                mode,
            ],
        );
        let mut c = connect(&s);
        let connected = Instant::now();
        handshake_pages(&mut c, 2048);
        let n = 16;
        let gap = Duration::from_millis(300);
        let took = timed_writes(&mut c, n, gap);
        let last_reply = connected.elapsed();
        s.signal(libc::SIGUSR1);
        let v = wait_lines(dir.path(), &name, 1).remove(0);
        let w = &v["write_latency_ns"];
        assert_eq!(w["count"], n, "{mode}: {v}");
        let mean_ns = w["mean"].as_f64().unwrap();
        assert!(mean_ns > 3e5, "{mode}: SSD B writes are slow: {v}");
        let client_ns: f64 = took.iter().map(|d| d.as_nanos() as f64).sum();
        // Each reply is due F × (done − issue) after the request was taken; 1 µs per
        // request covers the rounding of the two conversions.
        assert!(
            client_ns + n as f64 * 1e3 >= f * mean_ns * n as f64,
            "{mode}: replies came in {client_ns} ns, before the simulated {} ns × {f}",
            mean_ns * n as f64
        );
        // The simulated clock advances as wall time / F: by the last reply at least
        // (time since connecting, gap included) / F had passed on it.
        let sim_ns = v["simulated_ns"].as_f64().unwrap();
        let wall_ns = v["wall_clock_ns"].as_f64().unwrap();
        let since_connect_ns =
            last_reply.as_nanos() as f64 - took[n as usize - 1].as_nanos() as f64;
        assert!(
            sim_ns * f + 1e6 >= since_connect_ns,
            "{mode}: simulated clock {sim_ns} ns × {f} behind the wall ({since_connect_ns} ns)"
        );
        // Every reply was due by the simulated clock before it was sent.
        assert!(wall_ns + 1e3 >= sim_ns * f, "{mode}: {v}");
        drop(c);
        drop(s);
    }
}

/// Statistics: every `--stats-every`, on SIGUSR1 and at exit, one JSON line with the keys
/// of `ssdlab run --json` (but its run configuration) and the two clocks.
#[test]
fn statistics_every_interval_on_sigusr1_and_at_exit_with_the_run_keys() {
    let dir = tempfile::tempdir().unwrap();
    let design = [
        "--capacity",
        "64MiB",
        "--buffer",
        "lru",
        "--buffer-size",
        "1MiB",
    ];
    let mut args = design.to_vec();
    args.extend(["--stats-every", "0.2"]);
    let mut s = Serve::with(dir.path(), "st", &args);
    let mut c = connect(&s);
    handshake(&mut c);
    timed_writes(&mut c, 40, Duration::ZERO);
    request(&mut c, Command::Read, 0, 0, 8192, 99);
    assert_eq!(simple_reply(&mut c), (0, 99));
    read_n(&mut c, 8192);
    // Periodic lines keep coming while the client is idle.
    let periodic = wait_lines(dir.path(), "st", 3);
    let before = periodic.len();
    s.signal(libc::SIGUSR1);
    let t = Instant::now();
    let after = loop {
        let v = stats_lines(dir.path(), "st");
        if v.len() > before {
            break v;
        }
        assert!(t.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(5));
    };
    let last = after.last().unwrap();
    assert_eq!(last["requests"], 41, "{last}");
    assert_eq!(last["write_latency_ns"]["count"], 40, "{last}");
    assert_eq!(last["read_latency_ns"]["count"], 1, "{last}");
    assert_eq!(last["host_write_pages"], 40, "{last}");
    drop(c);
    s.signal(libc::SIGTERM);
    assert!(s.child.wait().unwrap().success());
    let all = stats_lines(dir.path(), "st");
    let exit = all.last().unwrap();
    assert_eq!(exit["requests"], 41, "{exit}");
    // Wall-clock spacing of the periodic lines is not asserted (a loaded machine); their
    // count grows with time instead.
    assert!(all.len() >= 4, "{all:?}");
    // The keys of `ssdlab run --json` on the same design, less the run configuration and
    // what only a workload run has (phases, wall-clock timings of the run).
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .arg("run")
        .args(design)
        .args([
            "--workload",
            "random-write",
            "--requests",
            "100",
            "-q",
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let run: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let keys = |v: &serde_json::Value| -> std::collections::BTreeSet<String> {
        v.as_object().unwrap().keys().cloned().collect()
    };
    let mut want = keys(&run);
    want.remove("config");
    for line in &all {
        let got = keys(line);
        let missing: Vec<_> = want.difference(&got).collect();
        assert!(missing.is_empty(), "missing {missing:?} in {line}");
        for k in ["simulated_ns", "wall_clock_ns", "requests"] {
            assert!(got.contains(k), "{k} in {line}");
        }
    }
}

/// `--power-cut-after N` over NBD: the N-th command is never answered and the server
/// exits; a restart from the same `--data` mounts what reached the flash. With no write
/// buffer every acknowledged write is on flash; a flushed page reads its last version.
#[test]
fn a_power_cut_over_nbd_keeps_acknowledged_writes_across_the_restart() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("pc.img");
    let img = img.to_str().unwrap();
    let design = ["--capacity", "16MiB", "--buffer", "none", "--data", img];
    let mut args = design.to_vec();
    args.extend(["--power-cut-after", "30"]);
    let mut s = Serve::with(dir.path(), "pc", &args);
    let mut c = connect(&s);
    handshake(&mut c);
    let write = |c: &mut UnixStream, page: u64, byte: u8, cookie: u64| {
        request(c, Command::Write, 0, page * 4096, 4096, cookie);
        c.write_all(&[byte; 4096]).unwrap();
    };
    // Commands 1-10: pages 0-9 = 0xa0 + page; 11: flush; 12-16: pages 0-4 = 0xb0 + page.
    for p in 0..10 {
        write(&mut c, p, 0xa0 + p as u8, p);
        assert_eq!(simple_reply(&mut c), (0, p));
    }
    request(&mut c, Command::Flush, 0, 0, 0, 100);
    assert_eq!(simple_reply(&mut c), (0, 100));
    for p in 0..5 {
        write(&mut c, p, 0xb0 + p as u8, 200 + p);
        assert_eq!(simple_reply(&mut c), (0, 200 + p));
    }
    // Commands 17-29 are answered; the 30th is not, and the connection ends.
    for k in 17..=30u64 {
        write(&mut c, 100 + k, 0xcc, 300 + k);
        if k < 30 {
            assert_eq!(simple_reply(&mut c), (0, 300 + k));
        }
    }
    assert!(closed(&mut c), "the command at the cut was answered");
    let t = Instant::now();
    let st = loop {
        if let Some(st) = s.child.try_wait().unwrap() {
            break st;
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "server still running"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(st.success(), "{st}");
    // Restart: mount the flash, recover the map from the tags.
    let s = Serve::with(dir.path(), "pc2", &design);
    let mut c = connect(&s);
    handshake(&mut c);
    for p in 0..10u64 {
        request(&mut c, Command::Read, 0, p * 4096, 4096, 500 + p);
        assert_eq!(simple_reply(&mut c), (0, 500 + p));
        let want = if p < 5 { 0xb0 } else { 0xa0 } + p as u8;
        assert_eq!(read_n(&mut c, 4096), vec![want; 4096], "page {p}");
    }
    request(&mut c, Command::Read, 0, 1000 * 4096, 4096, 600);
    assert_eq!(simple_reply(&mut c), (0, 600));
    assert_eq!(read_n(&mut c, 4096), vec![0u8; 4096], "never written");
}

/// Opens export `name` by EXPORT_NAME (simple replies); returns its size.
fn open_export(c: &mut UnixStream, name: &[u8]) -> u64 {
    read_n(c, 18);
    c.write_all(&3u32.to_be_bytes()).unwrap();
    send_option(c, opt::EXPORT_NAME, name);
    let x = read_n(c, 10);
    u64::from_be_bytes(x[0..8].try_into().unwrap())
}

/// Writes `len` bytes of `byte` at `offset`, then reads them back; returns what was read.
fn write_then_read(c: &mut UnixStream, offset: u64, len: u32, byte: u8, cookie: u64) -> Vec<u8> {
    request(c, Command::Write, 0, offset, len, cookie);
    c.write_all(&vec![byte; len as usize]).unwrap();
    assert_eq!(simple_reply(c), (0, cookie));
    read_back(c, offset, len, cookie + 1)
}

fn read_back(c: &mut UnixStream, offset: u64, len: u32, cookie: u64) -> Vec<u8> {
    request(c, Command::Read, 0, offset, len, cookie);
    assert_eq!(simple_reply(c), (0, cookie));
    read_n(c, len as usize)
}

/// A drive with `[[namespace]]` tables exports each namespace under its own name, on its
/// own slice: LIST names them all, the default export is the first, offsets are the
/// namespace's own (byte 0 of one is not byte 0 of another), a request past a
/// namespace's end is refused, and `--export-name` beside the tables is refused (exit 2).
#[test]
fn each_namespace_is_its_own_export_on_its_own_slice() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("ns.toml");
    std::fs::write(
        &cfg,
        "[device]\ncapacity = \"16MiB\"\n[[namespace]]\nname = \"db\"\nshare = 0.5\n\
         [[namespace]]\nname = \"logs\"\nshare = 0.25\n",
    )
    .unwrap();
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["serve", "--config"])
        .arg(&cfg)
        .args(["--export-name", "x", "--socket"])
        .arg(dir.path().join("bad.sock"))
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let e = String::from_utf8_lossy(&bad.stderr);
    assert!(
        e.contains("--export-name x") && e.contains("db, logs"),
        "{e}"
    );
    let cfg_arg = cfg.to_str().unwrap();
    let s = Serve::with(dir.path(), "ns", &["--config", cfg_arg, "--buffer", "none"]);
    // LIST: both, in order.
    let mut l = connect(&s);
    read_n(&mut l, 18);
    l.write_all(&3u32.to_be_bytes()).unwrap();
    send_option(&mut l, opt::LIST, &[]);
    let mut names = Vec::new();
    loop {
        let (_, t, d) = option_reply(&mut l);
        if t == rep::ACK {
            break;
        }
        assert_eq!(t, rep::SERVER);
        names.push(String::from_utf8(d[4..].to_vec()).unwrap());
    }
    assert_eq!(names, ["db", "logs"]);
    let mut logs = connect(&s);
    assert_eq!(open_export(&mut logs, b"logs"), 4 << 20);
    let mut db = connect(&s);
    assert_eq!(
        open_export(&mut db, b""),
        8 << 20,
        "the default export is the first"
    );
    assert_eq!(
        write_then_read(&mut logs, 0, 4096, 0xbb, 10),
        vec![0xbb; 4096]
    );
    // Byte 0 of db is another flash page than byte 0 of logs.
    assert_eq!(read_back(&mut db, 0, 4096, 20), vec![0; 4096]);
    assert_eq!(
        write_then_read(&mut db, 0, 4096, 0xaa, 30),
        vec![0xaa; 4096]
    );
    assert_eq!(read_back(&mut logs, 0, 4096, 40), vec![0xbb; 4096]);
    // Past logs' end (still inside the drive): refused, nothing performed.
    request(&mut logs, Command::Read, 0, 4 << 20, 4096, 50);
    assert_eq!(simple_reply(&mut logs), (err::EINVAL, 50));
    // The exit statistics have a section per namespace: the refusal is LBA Out of
    // Range for logs alone, and each namespace's bytes are its own client's.
    drop((l, db, logs));
    let mut s = s;
    s.signal(libc::SIGTERM);
    assert!(s.child.wait().unwrap().success());
    let last = stats_lines(dir.path(), "ns").pop().expect("exit line");
    let ns = last["namespaces"].as_array().expect("namespaces");
    let got: Vec<_> = ns
        .iter()
        .map(|n| {
            (
                n["name"].as_str().unwrap().to_string(),
                n["write_bytes"].as_u64().unwrap(),
                n["read_bytes"].as_u64().unwrap(),
                n["errors_lba_out_of_range"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("db".to_string(), 4096, 2 * 4096, 0),
            ("logs".to_string(), 4096, 2 * 4096, 1)
        ],
        "{last}"
    );
}
