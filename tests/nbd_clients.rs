//! `ssdlab serve` with real NBD clients: qemu-io (qemu-utils), nbdinfo and nbdcopy
//! (libnbd-bin), fio's nbd engine (fio), mkfs.ext4 / e2fsck / debugfs (e2fsprogs) over
//! nbdfuse (libnbd-bin + fuse3). A test whose tool is missing, or whose FUSE mount the
//! environment refuses, prints why and returns without asserting (it is skipped, not
//! passed: the message says SKIPPED).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn have(tool: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// True (skip) when a tool is missing; under `SSDLAB_CI=1` (CI installs them all) a
/// missing tool fails the test instead.
fn skip_unless(tools: &[&str], test: &str) -> bool {
    let missing: Vec<&&str> = tools.iter().filter(|t| !have(t)).collect();
    if missing.is_empty() {
        return false;
    }
    assert!(
        std::env::var("SSDLAB_CI").map_or(true, |v| v != "1"),
        "SSDLAB_CI=1 but {missing:?} not installed (apt-get install qemu-utils libnbd-bin fio e2fsprogs fuse3)"
    );
    eprintln!(
        "SKIPPED {test}: {missing:?} not installed (apt-get install qemu-utils libnbd-bin fio e2fsprogs fuse3)"
    );
    true
}

/// Mounts the server's export as the file `dev` with nbdfuse; `None` when the
/// environment refuses the FUSE mount.
fn fuse_mount(dev: &Path, sock: &Path) -> Option<Child> {
    let mut c = Command::new("nbdfuse")
        .arg(dev)
        .arg("--unix")
        .arg(sock)
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let t = Instant::now();
    while !dev.exists() {
        if t.elapsed() > Duration::from_secs(10) || c.try_wait().ok().flatten().is_some() {
            let _ = c.kill();
            let _ = c.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(c)
}

/// Unmounts what [`fuse_mount`] mounted at `mnt`.
fn fuse_unmount(mnt: &Path, c: Child) {
    let _ = Command::new("fusermount3").arg("-u").arg(mnt).status();
    let _ = c.wait_with_output();
}

/// A running `ssdlab serve`, stopped (SIGTERM, a clean shutdown) when dropped.
struct Serve {
    child: Option<Child>,
    sock: PathBuf,
}

impl Serve {
    fn start(dir: &Path, name: &str, args: &[&str]) -> Serve {
        Serve::spawn(dir, name, args, Stdio::null())
    }

    /// As [`Serve::start`], keeping the statistics lines for [`Serve::stop_stats`].
    fn start_with_stats(dir: &Path, name: &str, args: &[&str]) -> Serve {
        Serve::spawn(dir, name, args, Stdio::piped())
    }

    fn spawn(dir: &Path, name: &str, args: &[&str], stdout: Stdio) -> Serve {
        let sock = dir.join(format!("{name}.sock"));
        let child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .arg("serve")
            .arg("--socket")
            .arg(&sock)
            .args(args)
            .stdout(stdout)
            .stderr(Stdio::inherit())
            .spawn()
            .expect("ssdlab starts");
        let t = Instant::now();
        while !sock.exists() {
            assert!(
                t.elapsed() < Duration::from_secs(60),
                "server did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Serve {
            child: Some(child),
            sock,
        }
    }

    fn uri(&self) -> String {
        self.export_uri("")
    }

    /// The URI of the export `name` (a namespace's).
    fn export_uri(&self, name: &str) -> String {
        format!("nbd+unix:///{name}?socket={}", self.sock.display())
    }

    /// Stops the server cleanly and returns its last statistics line (written on exit)
    /// as JSON.
    fn stop_stats(mut self) -> serde_json::Value {
        let mut c = self.child.take().expect("running");
        // SAFETY: signalling our own child by its id.
        unsafe {
            libc::kill(c.id() as i32, libc::SIGTERM);
        }
        let mut out = String::new();
        std::io::Read::read_to_string(&mut c.stdout.take().expect("piped"), &mut out).unwrap();
        let st = c.wait().expect("server exits");
        assert!(st.success(), "server exited with {st}");
        let last = out.lines().last().expect("a statistics line on exit");
        serde_json::from_str(last).unwrap()
    }

    /// Stops the server cleanly and waits for it.
    fn stop(mut self) {
        self.stop_inner();
    }

    fn stop_inner(&mut self) {
        if let Some(mut c) = self.child.take() {
            // SAFETY: signalling our own child by its id.
            unsafe {
                libc::kill(c.id() as i32, libc::SIGTERM);
            }
            let st = c.wait().expect("server exits");
            assert!(st.success(), "server exited with {st}");
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("tool runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn qemu_io(uri: &str, cmds: &[&str]) -> Output {
    let mut c = Command::new("qemu-io");
    c.args(["-f", "raw"]);
    for x in cmds {
        c.args(["-c", x]);
    }
    c.arg(uri);
    run(&mut c)
}

#[test]
fn qemu_io_patterns_discard_and_flush_on_page_fast_and_dftl() {
    if skip_unless(&["qemu-io"], "qemu_io") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for ftl in ["page", "fast", "dftl"] {
        for buffer in ["none", "lru"] {
            let s = Serve::start(
                dir.path(),
                &format!("{ftl}-{buffer}"),
                &["--capacity", "64MiB", "--ftl", ftl, "--buffer", buffer],
            );
            let o = qemu_io(
                &s.uri(),
                &[
                    "write -P 0xab 0 1M",
                    "write -P 0x11 4096 512",
                    "write -P 0x22 8191 3",
                    "write -P 0x5c 32M 8M",
                    "flush",
                    "read -P 0xab 0 4096",
                    "read -P 0x11 4096 512",
                    "read -P 0xab 4608 3583",
                    "read -P 0x22 8191 3",
                    "read -P 0xab 8194 1040382",
                    "read -P 0x5c 32M 8M",
                    "discard 512K 512K",
                    "read -P 0 512K 512K",
                    "read -P 0 60M 1M",
                    "write -z 33M 1M",
                    "read -P 0 33M 1M",
                    "read -P 0x5c 34M 6M",
                ],
            );
            let t = text(&o);
            assert!(o.status.success(), "{ftl}+{buffer}: {t}");
            assert!(
                !t.contains("Pattern verification failed") && !t.contains("error"),
                "{ftl}+{buffer}: {t}"
            );
            // The verification can fail: a wrong pattern is noticed.
            let bad = qemu_io(&s.uri(), &["read -P 0xac 0 4096"]);
            assert!(
                text(&bad).contains("Pattern verification failed"),
                "{}",
                text(&bad)
            );
            s.stop();
        }
    }
}

#[test]
fn nbdinfo_shows_size_block_sizes_and_flags() {
    if skip_unless(&["nbdinfo"], "nbdinfo") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let s = Serve::start(dir.path(), "info", &["--capacity", "96MiB"]);
    let o = run(Command::new("nbdinfo").arg("--json").arg(s.uri()));
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let e = &v["exports"][0];
    assert_eq!(e["export-size"], 96u64 << 20, "{v}");
    assert_eq!(e["block_size_minimum"], 512, "{v}");
    assert_eq!(e["block_size_preferred"], 4096, "{v}");
    assert_eq!(e["block_size_maximum"], 32u64 << 20, "{v}");
    for f in [
        "can_flush",
        "can_fua",
        "can_trim",
        "can_zero",
        "can_multi_conn",
        "can_cache",
    ] {
        assert_eq!(e[f], true, "{f}: {v}");
    }
    assert_eq!(e["is_read_only"], false, "{v}");
    assert_eq!(v["protocol"], "newstyle-fixed", "{v}");
    let l = run(Command::new("nbdinfo").arg("--list").arg(s.uri()));
    assert!(text(&l).contains("export=\"ssdlab\""), "{}", text(&l));
}

#[test]
fn nbdcopy_round_trip_of_256_mib_is_byte_identical() {
    if skip_unless(&["nbdcopy"], "nbdcopy") {
        return;
    }
    use rand::{RngCore, SeedableRng};
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("in.bin");
    let back = dir.path().join("out.bin");
    let mut data = vec![0u8; 256 << 20];
    rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(13).fill_bytes(&mut data);
    std::fs::write(&src, &data).unwrap();
    // A device only a little larger than the data: GC moves live pages while it copies.
    let s = Serve::start(
        dir.path(),
        "copy",
        &["--capacity", "288MiB", "--ftl", "page", "--buffer", "lru"],
    );
    for _ in 0..2 {
        let o = run(Command::new("nbdcopy").arg(&src).arg(s.uri()));
        assert!(o.status.success(), "{}", text(&o));
    }
    let o = run(Command::new("nbdcopy").arg(s.uri()).arg(&back));
    assert!(o.status.success(), "{}", text(&o));
    let got = std::fs::read(&back).unwrap();
    assert_eq!(got.len(), 288 << 20);
    assert!(
        got[..data.len()] == data[..],
        "data differs after the round trip"
    );
    assert!(
        got[data.len()..].iter().all(|&b| b == 0),
        "unwritten tail not zero"
    );
}

#[test]
fn fio_verify_survives_a_restart_from_the_data_file() {
    if skip_unless(&["fio"], "fio") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("ssd.img");
    let img_s = img.to_str().unwrap();
    let design = [
        "--capacity",
        "128MiB",
        "--ftl",
        "page",
        "--buffer",
        "lru",
        "--data",
        img_s,
    ];
    let job = |s: &Serve, extra: &[&str]| {
        let mut c = Command::new("fio");
        c.current_dir(dir.path()).args([
            "--name=v",
            "--ioengine=nbd",
            &format!("--uri={}", s.uri()),
            "--rw=randwrite",
            "--bs=4k",
            "--size=96m",
            "--iodepth=16",
            "--verify=crc32c",
            "--randseed=7",
        ]);
        c.args(extra);
        run(&mut c)
    };
    let s = Serve::start(dir.path(), "fio", &design);
    let o = job(&s, &[]);
    assert!(o.status.success(), "{}", text(&o));
    // fio flushes at the end of its job; the stop is clean too.
    s.stop();
    let s = Serve::start(dir.path(), "fio", &design);
    let o = job(&s, &["--verify_only"]);
    assert!(o.status.success(), "after restart: {}", text(&o));
    s.stop();
    // The check can fail: a fresh device does not verify.
    let s = Serve::start(dir.path(), "fresh", &["--capacity", "128MiB"]);
    let o = job(&s, &["--verify_only"]);
    assert!(!o.status.success(), "an empty device verified");
}

/// Issue 33: two fio jobs at once, each on its own namespace's export of one drive (a
/// sequential writer and a random writer, both verifying with crc32c), and serve's exit
/// statistics carry a section per namespace as `ssdlab run`'s report does: each
/// namespace's bytes are what its fio job moved, and the two sum to the device totals.
#[test]
fn two_fio_jobs_on_two_namespace_exports_at_once_are_reported_per_namespace() {
    if skip_unless(&["fio"], "fio on two namespaces") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("two.toml");
    std::fs::write(
        &toml,
        "[device]\ncapacity = \"256MiB\"\n\
         [[namespace]]\nname = \"seq\"\nshare = 0.5\n\
         [[namespace]]\nname = \"rand\"\nshare = 0.5\n",
    )
    .unwrap();
    let s = Serve::start_with_stats(
        dir.path(),
        "ns",
        &["--config", toml.to_str().unwrap(), "--buffer", "none"],
    );
    let fio = |name: &str, extra: &[&str]| {
        Command::new("fio")
            .current_dir(dir.path())
            .args([
                &format!("--name={name}"),
                "--ioengine=nbd",
                &format!("--uri={}", s.export_uri(name)),
                "--verify=crc32c",
                "--output-format=json",
            ])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("fio starts")
    };
    // Both processes run at the same time, each on its own export.
    let seq = fio(
        "seq",
        &["--rw=write", "--bs=128k", "--size=64m", "--iodepth=8"],
    );
    let rand = fio(
        "rand",
        &[
            "--rw=randwrite",
            "--bs=4k",
            "--size=24m",
            "--iodepth=16",
            "--randseed=3",
        ],
    );
    let (seq, rand) = (
        seq.wait_with_output().unwrap(),
        rand.wait_with_output().unwrap(),
    );
    assert!(seq.status.success(), "{}", text(&seq));
    assert!(rand.status.success(), "{}", text(&rand));
    let v = s.stop_stats();
    // fio's nbd engine prints a line before the JSON.
    let report = |o: &Output| -> serde_json::Value {
        let t = String::from_utf8_lossy(&o.stdout);
        serde_json::from_str(&t[t.find('{').expect("fio's JSON")..]).unwrap()
    };
    let (seq_fio, rand_fio) = (report(&seq), report(&rand));
    // The two jobs were in flight at the same time: each started (its report's time
    // less its run time) before the other ended.
    let span = |r: &serde_json::Value| {
        let end = r["timestamp_ms"].as_u64().unwrap();
        (end - r["jobs"][0]["job_runtime"].as_u64().unwrap(), end)
    };
    let ((s0, e0), (s1, e1)) = (span(&seq_fio), span(&rand_fio));
    assert!(
        s0 < e1 && s1 < e0,
        "not concurrent: seq {s0}..{e0} ms, rand {s1}..{e1} ms"
    );
    let (seq_job, rand_job) = (&seq_fio["jobs"][0], &rand_fio["jobs"][0]);
    let ns = v["namespaces"].as_array().expect("a namespaces list");
    assert_eq!(ns.len(), 2, "{v}");
    let field = |i: usize, k: &str| ns[i][k].as_u64().unwrap_or_else(|| panic!("{k}: {v}"));
    let sum = |k: &str| field(0, k) + field(1, k);
    for (i, (name, j)) in [("seq", seq_job), ("rand", rand_job)]
        .into_iter()
        .enumerate()
    {
        assert_eq!(ns[i]["name"], name, "{v}");
        assert_eq!(field(i, "size_bytes"), 128 << 20, "{v}");
        // What fio wrote (and read back to verify) on this export, this namespace only.
        assert_eq!(
            field(i, "write_bytes"),
            j["write"]["io_bytes"].as_u64().unwrap(),
            "{name}: {v}"
        );
        assert_eq!(
            field(i, "read_bytes"),
            j["read"]["io_bytes"].as_u64().unwrap(),
            "{name}: {v}"
        );
        assert_eq!(
            ns[i]["write_latency_ns"]["count"], j["write"]["total_ios"],
            "{name}: {v}"
        );
        assert!(
            ns[i]["write_latency_ns"]["p99"].as_u64().unwrap() > 0,
            "{v}"
        );
        assert!(ns[i]["iops"].as_f64().unwrap() > 0.0, "{v}");
        assert_eq!(field(i, "errors_lba_out_of_range"), 0, "{v}");
    }
    assert_eq!(field(0, "write_bytes"), 64 << 20);
    assert_eq!(field(1, "write_bytes"), 24 << 20);
    assert_eq!(
        sum("write_bytes"),
        v["host_write_bytes"].as_u64().unwrap(),
        "{v}"
    );
    assert_eq!(
        sum("read_bytes"),
        v["host_read_bytes"].as_u64().unwrap(),
        "{v}"
    );
    // The namespaces' measured contributions and the overhead's (pages of no
    // namespace) sum to the device's WA.
    let wa: f64 = ns
        .iter()
        .map(|n| n["write_amplification_contribution"].as_f64().unwrap())
        .sum::<f64>()
        + v["namespace_overhead"]["write_amplification_contribution"]
            .as_f64()
            .unwrap();
    assert!(
        (wa - v["write_amplification"].as_f64().unwrap()).abs() < 1e-9,
        "{v}"
    );
}

#[test]
fn ext4_through_nbdfuse_survives_a_restart() {
    if skip_unless(
        &["nbdfuse", "mkfs.ext4", "e2fsck", "debugfs", "fusermount3"],
        "ext4",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("ssd.img");
    let img_s = img.to_str().unwrap();
    let design = [
        "--capacity",
        "96MiB",
        "--ftl",
        "dftl",
        "--buffer",
        "bplru",
        "--data",
        img_s,
    ];
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let dev = mnt.join("ssd");
    let mount = |s: &Serve| fuse_mount(&dev, &s.sock);
    let unmount = |c: Child| fuse_unmount(&mnt, c);
    let s = Serve::start(dir.path(), "fs", &design);
    let Some(fuse) = mount(&s) else {
        eprintln!("SKIPPED ext4: the environment refused the FUSE mount (nbdfuse)");
        return;
    };
    let o = run(Command::new("mkfs.ext4").args(["-q", "-F"]).arg(&dev));
    assert!(o.status.success(), "{}", text(&o));
    use rand::{RngCore, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
    let mut files = Vec::new();
    for (i, size) in [5 << 20, 300_000, 1, 12 << 20].into_iter().enumerate() {
        let mut d = vec![0u8; size];
        rng.fill_bytes(&mut d);
        let p = dir.path().join(format!("f{i}"));
        std::fs::write(&p, &d).unwrap();
        let o = run(Command::new("debugfs")
            .arg("-w")
            .arg("-R")
            .arg(format!("write {} f{i}", p.display()))
            .arg(&dev));
        assert!(o.status.success(), "{}", text(&o));
        files.push((format!("f{i}"), d));
    }
    let o = run(Command::new("e2fsck").arg("-fn").arg(&dev));
    assert!(o.status.success(), "{}", text(&o));
    unmount(fuse);
    s.stop();
    let s = Serve::start(dir.path(), "fs", &design);
    let fuse = mount(&s).expect("mounted before");
    let o = run(Command::new("e2fsck").arg("-fn").arg(&dev));
    assert!(o.status.success(), "after restart: {}", text(&o));
    for (name, d) in &files {
        let out = dir.path().join(format!("{name}.back"));
        let o = run(Command::new("debugfs")
            .arg("-R")
            .arg(format!("dump {name} {}", out.display()))
            .arg(&dev));
        assert!(o.status.success(), "{}", text(&o));
        assert!(
            std::fs::read(&out).unwrap() == *d,
            "{name} differs after restart"
        );
    }
    unmount(fuse);
    s.stop();
}

/// `ssdlab probe --device` on an emulated SSD B (1 MiB management blocks, by-address
/// placement) seen as a file through nbdfuse: the reply times carry the simulated
/// latencies (scaled by 0.1 to keep it short), and the probe names 1 MiB; with the
/// device's management block set to 256 KiB it names that instead.
#[test]
fn probe_over_nbd_names_the_emulated_management_block() {
    if skip_unless(&["nbdfuse", "fusermount3"], "probe over nbd") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let dev = mnt.join("ssd");
    for (mgmt, expect) in [(None, 1u64 << 20), (Some("256KiB"), 256 << 10)] {
        let mut args = vec![
            "--preset",
            "ssd-b",
            "--capacity",
            "64MiB",
            "--latency",
            "scaled=0.1",
        ];
        if let Some(m) = mgmt {
            args.extend(["--mgmt-block", m]);
        }
        let s = Serve::start(dir.path(), "probe", &args);
        let Some(fuse) = fuse_mount(&dev, &s.sock) else {
            eprintln!("SKIPPED probe over nbd: the environment refused the FUSE mount (nbdfuse)");
            return;
        };
        let json = dir.path().join("probe.json");
        let o = run(Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .args(["probe", "--device"])
            .arg(&dev)
            .args(["--size", "64KiB", "--step", "16KiB", "--json"])
            .arg(&json));
        fuse_unmount(&mnt, fuse);
        s.stop();
        assert!(o.status.success(), "{}", text(&o));
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        assert_eq!(v["probe"]["mgmt_block_bytes"], expect, "{mgmt:?}: {v}");
        // Three straddling writes per boundary (16 KiB steps under a 64 KiB write), 36 in
        // all with 1 MiB blocks: their rate's 95 % lower bound keeps the confidence near
        // 0.6 (0.58 measured; 0.35–0.46 with one straddle per boundary at 32 KiB steps).
        let p = &v["probe"];
        assert!(
            p["confidence"].as_f64().unwrap() >= p["confidence_threshold"].as_f64().unwrap(),
            "{mgmt:?}: {v}"
        );
        assert!(
            p["jump_ns"].as_u64().unwrap() >= p["jump_threshold_ns"].as_u64().unwrap(),
            "{mgmt:?}: {v}"
        );
        assert_eq!(v["writes"], 3 * 256, "{v}");
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("inferred management block"),
            "{}",
            text(&o)
        );
    }
}

/// A file in memory (tmpfs) has no management blocks. Its slow writes are either timing
/// noise (jumps with a most common spacing that agrees with no block boundaries) or the
/// memory's own 4 KiB pages, whose straddles cost well under a microsecond more — far
/// less than any flash read-modify-write — so the probe names none either way (issue 13
/// point 6: it used to report 4 KiB or 96 KiB here; CI once saw the 4 KiB pages at
/// confidence 0.99).
#[test]
fn probe_of_a_memory_backed_file_finds_no_structure() {
    let shm = Path::new("/dev/shm");
    if !shm.is_dir() {
        eprintln!("SKIPPED probe of a memory-backed file: no /dev/shm");
        return;
    }
    let dir = tempfile::tempdir_in(shm).unwrap();
    let img = dir.path().join("plain.img");
    std::fs::write(&img, vec![0u8; 8 << 20]).unwrap();
    let json = dir.path().join("probe.json");
    let o = run(Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["probe", "--device"])
        .arg(&img)
        .args(["--span", "1MiB", "--json"])
        .arg(&json));
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let p = &v["probe"];
    assert!(p["mgmt_block_bytes"].is_null(), "{v}");
    assert_eq!(p["mgmt_block"], "none found", "{v}");
    let weak = p["confidence"].as_f64().unwrap() < p["confidence_threshold"].as_f64().unwrap();
    let small = p["jump_ns"].as_u64().unwrap() < p["jump_threshold_ns"].as_u64().unwrap();
    assert!(weak || small, "{v}");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("no management-block structure"),
        "{}",
        text(&o)
    );
}

/// `ssdlab probe` refuses what it must not overwrite, naming the path, with exit 2.
#[test]
fn probe_refuses_bad_paths_and_unconfirmed_block_devices() {
    let probe = |args: &[&str]| {
        run(Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .arg("probe")
            .args(args))
    };
    let o = probe(&["--device", "/no/such/disk"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("/no/such/disk"), "{}", text(&o));
    let o = probe(&["--device", "/dev/null"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("not a block device or a regular file"),
        "{}",
        text(&o)
    );
    // A file too small for three partitions of 4 MiB + 4 KiB.
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small.img");
    std::fs::write(&small, vec![7u8; 1 << 20]).unwrap();
    let o = probe(&["--device", small.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("small.img (1MiB)"), "{}", text(&o));
    assert_eq!(
        std::fs::read(&small).unwrap(),
        vec![7u8; 1 << 20],
        "file touched"
    );
    // A block device without --yes-destroy-data: refused before it is opened for writing,
    // naming its size (any block device the machine has; none in most containers).
    let blockdev = std::fs::read_dir("/dev").ok().and_then(|d| {
        d.flatten().map(|e| e.path()).find(|p| {
            use std::os::unix::fs::FileTypeExt;
            std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device())
        })
    });
    if let Some(b) = blockdev {
        let o = probe(&["--device", b.to_str().unwrap()]);
        if !text(&o).contains("cannot open") {
            assert_eq!(o.status.code(), Some(2), "{}", text(&o));
            assert!(text(&o).contains("--yes-destroy-data"), "{}", text(&o));
            assert!(text(&o).contains("bytes)"), "{}", text(&o));
        }
    }
}
