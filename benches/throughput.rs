//! Throughput benchmarks behind BENCHMARKS.md. Run: `cargo bench --bench throughput`
//! (add `-- quick` for a shorter version, `-- ftls` for the log-block FTL rows only,
//! `-- hash-ftl` for the DFTL / AFTL / CFTL rows only). Each scenario runs the real `ssdlab` binary so
//! what is measured is what users run; figures come from the report's
//! `wall_clock_measured_s` (the measured phase only, after preconditioning).

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> PathBuf {
    // cargo bench builds the binary in the same profile directory as this bench.
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let b = dir.join("ssdlab");
    assert!(
        b.exists(),
        "build the binary first: cargo build --release ({})",
        b.display()
    );
    b
}

fn run_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(bin())
        .args(args)
        .args(["--json", "-", "-q"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ssdlab {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn f(v: &serde_json::Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("{k}"))
}

fn peak_rss_children_kib() -> i64 {
    // SAFETY: getrusage only writes into the struct we pass.
    unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut u);
        u.ru_maxrss
    }
}

fn gen_trace(path: &Path, requests: &str) {
    let out = Command::new(bin())
        .args([
            "gen-trace",
            "--workload",
            "hot-cold",
            "--capacity",
            "64GiB",
            "--span",
            "16GiB",
            "--size",
            "4KiB",
            "--size-max",
            "64KiB",
            "--read-percent",
            "40",
            "--mean-gap-ns",
            "200000",
            "--requests",
            requests,
            "-o",
        ])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// User CPU seconds of finished children so far (robust to other processes sharing the
/// machine, unlike wall-clock time).
fn children_cpu_s() -> f64 {
    // SAFETY: getrusage only writes into the struct we pass.
    unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut u);
        u.ru_utime.tv_sec as f64 + u.ru_utime.tv_usec as f64 / 1e6
    }
}

/// The log-block FTLs (issue 3): uniform random 4 KiB writes on a 16 GiB device in
/// counting mode, target ≥ 2 M host page writes/s each. `fill` preconditions the device
/// first, so every overwrite merges (the hardest case).
fn log_ftls(quick: bool) {
    let requests = if quick { "1M" } else { "4M" };
    for fill in [false, true] {
        for ftl in ["page", "nftl", "bast", "fast", "faster"] {
            let mut args = vec![
                "run",
                "--ftl",
                ftl,
                "--capacity",
                "16GiB",
                "--timing",
                "count",
                "--workload",
                "random-write",
                "--size",
                "4KiB",
                "--requests",
                requests,
            ];
            if fill {
                args.push("--fill");
            }
            let cpu0 = children_cpu_s();
            let r = run_json(&args);
            let cpu = children_cpu_s() - cpu0;
            let writes = f(&r, "host_write_pages");
            let secs = f(&r, "wall_clock_measured_s");
            println!(
                "{ftl:6} 16 GiB random 4 KiB writes{}, counting: {:5.2} M host writes/s wall, {:5.2} M/s per CPU-second of the whole process (WA {:6.2}, GC share {:.3})",
                if fill {
                    " after --fill"
                } else {
                    ", fresh      "
                },
                writes / secs / 1e6,
                writes / cpu / 1e6,
                f(&r, "write_amplification"),
                f(&r, "gc_time_share"),
            );
        }
    }
}

/// Host page writes per second of the hash-table FTLs: uniform random 4 KiB writes on a
/// 16 GiB device (default preset otherwise), counting mode; as many writes as the device
/// has pages (a quarter in quick mode). The CPU share (process user CPU time / process
/// wall time) shows how much of a core the run got: below ~95% the machine was shared.
fn hash_ftls(quick: bool) {
    let writes = if quick { "1M" } else { "4M" };
    let cases: [(&str, &[&str]); 4] = [
        (
            "dftl, CMT 10% of entries",
            &["--set", "ftl.dftl.cmt_fraction=0.1"],
        ),
        (
            "dftl, CMT 10% of entries, filled first (GC throughout)",
            &["--set", "ftl.dftl.cmt_fraction=0.1", "--fill"],
        ),
        ("aftl", &[]),
        ("cftl", &[]),
    ];
    for (label, extra) in cases {
        let name = label.split(',').next().unwrap();
        let mut args = vec![
            "run",
            "--ftl",
            name,
            "--capacity",
            "16GiB",
            "--workload",
            "random-write",
            "--requests",
            writes,
            "--timing",
            "count",
        ];
        args.extend_from_slice(extra);
        let cpu0 = children_cpu_s();
        let t0 = std::time::Instant::now();
        let r = run_json(&args);
        let cpu = children_cpu_s() - cpu0;
        let share = cpu / t0.elapsed().as_secs_f64();
        let secs = f(&r, "wall_clock_measured_s");
        let host = f(&r, "host_write_pages");
        let flash = f(&r, "nand_program_pages");
        println!(
            "{label:55}: {:5.2} M host page writes/s wall, {:5.2} M/s per CPU-second of the whole process, {:5.2} M flash programs/s wall (WA {:.2}, {:.0} writes in {:.2} s, CPU share {:.0}%)",
            host / secs / 1e6,
            host / cpu / 1e6,
            flash / secs / 1e6,
            f(&r, "write_amplification"),
            host,
            secs,
            share * 100.0
        );
    }
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    if std::env::args().any(|a| a == "hash-ftl") {
        println!(
            "ssdlab hash-FTL throughput ({} mode)\n",
            if quick { "quick" } else { "full" }
        );
        hash_ftls(quick);
        return;
    }
    if std::env::args().any(|a| a == "ftls") {
        println!(
            "log-block FTL throughput ({} mode)\n",
            if quick { "quick" } else { "full" }
        );
        log_ftls(quick);
        return;
    }
    let writes = if quick { "4M" } else { "16M" };
    println!(
        "ssdlab throughput benchmarks ({} mode)\n",
        if quick { "quick" } else { "full" }
    );

    for timing in ["count", "full"] {
        let r = run_json(&[
            "run",
            "--capacity",
            "64GiB",
            "--op",
            "7",
            "--gc",
            "greedy",
            "--workload",
            "random-write",
            "--requests",
            writes,
            "--steady",
            "--qd",
            "32",
            "--timing",
            timing,
        ]);
        let progs = f(&r, "nand_program_pages");
        let secs = f(&r, "wall_clock_measured_s");
        println!(
            "steady random 4 KiB writes, 64 GiB, op 7, page+greedy, timing {timing:5}: {:6.2} M flash programs/s (WA {:.2}, {:.0} programs in {:.2} s)",
            progs / secs / 1e6,
            f(&r, "write_amplification"),
            progs,
            secs
        );
    }

    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("bench.ascii");
    gen_trace(&trace, if quick { "200k" } else { "1M" });
    let t = trace.to_str().unwrap();
    let r = run_json(&[
        "run",
        "--trace",
        t,
        "--format",
        "ascii",
        "--capacity",
        "64GiB",
        "--qd",
        "32",
    ]);
    println!(
        "1M-request hot/cold trace replay, 64 GiB, full timing: {:.3} s wall ({:.0} requests/s), WA {:.2}",
        f(&r, "wall_clock_measured_s"),
        r["counters"]["host.requests"].as_f64().unwrap() / f(&r, "wall_clock_measured_s"),
        f(&r, "write_amplification")
    );
    let r = run_json(&[
        "run",
        "--trace",
        t,
        "--format",
        "ascii",
        "--capacity",
        "16GiB",
        "--fill",
        "--qd",
        "32",
    ]);
    println!(
        "same trace, 16 GiB filled first (GC throughout), full timing: {:.3} s wall ({:.0} requests/s), WA {:.2}",
        f(&r, "wall_clock_measured_s"),
        r["counters"]["host.requests"].as_f64().unwrap() / f(&r, "wall_clock_measured_s"),
        f(&r, "write_amplification")
    );

    println!();
    log_ftls(quick);
    println!();

    // Memory: a 1 TiB page-mapped device. Every physical page's tables are touched by a
    // fill, so the figure is the worst case.
    let before = peak_rss_children_kib();
    let r = run_json(&[
        "run",
        "--capacity",
        "1TiB",
        "--op",
        "7",
        "--workload",
        "random-write",
        "--requests",
        "1M",
        "--fill",
        "--timing",
        "count",
    ]);
    let rss_kib = peak_rss_children_kib().max(before);
    let geo = &r["config"]["resolved"]["geometry"];
    let pages = [
        "channels",
        "chips_per_channel",
        "dies_per_chip",
        "planes_per_die",
        "blocks_per_plane",
        "pages_per_block",
    ]
    .iter()
    .map(|k| geo[k].as_f64().unwrap())
    .product::<f64>();
    let rss = rss_kib as f64 * 1024.0;
    println!(
        "1 TiB device filled: peak RSS {:.0} MiB for {:.0} M physical pages = {:.2} B/page (budget: 10 B/page + 100 MiB = {:.0} MiB)",
        rss / (1 << 20) as f64,
        pages / 1e6,
        (rss - 100.0 * (1 << 20) as f64) / pages,
        (10.0 * pages + 100.0 * (1 << 20) as f64) / (1 << 20) as f64
    );
}
