//! `host.stop_ns`: the host issues no request at or after the stop time, the requests
//! already issued complete, and the report says where it stopped. Without the key the
//! whole workload runs.

use ssdlab::config::Config;
use ssdlab::sim::{RunOptions, run};

fn config(qd: u32, extra: &str) -> Config {
    let text = format!(
        "[device]\ncapacity = \"1GiB\"\n[workload]\nkind = \"random-write\"\nrequests = 20000\n\
         [host]\nqd = {qd}\n{extra}"
    );
    let t: toml::Table = toml::from_str(&text).unwrap();
    Config::load_with(None, None, t).unwrap()
}

#[test]
fn the_host_stops_issuing_at_stop_ns_and_the_issued_requests_complete() {
    // Queue depths below, at and above the point where every tag is held (a held-back
    // request once took a tag's completion with it, and the run went on to the end).
    for qd in [1, 4, 16, 64] {
        let full = run(&config(qd, ""), RunOptions::default()).unwrap().report;
        let whole_ns = full.simulated_ns;
        assert_eq!(full.latency_ns.count, 20_000);
        // Stop a third of the way through the unlimited run's time.
        let stop = whole_ns / 3;
        let cut = run(
            &config(qd, &format!("stop_ns = {stop}\n")),
            RunOptions::default(),
        )
        .unwrap()
        .report;
        let n = cut.latency_ns.count;
        // The same random stream up to the stop: roughly a third of the requests.
        let share = n as f64 / 20_000.0;
        assert!((0.2..0.5).contains(&share), "qd {qd}: {n} requests");
        // Every request issued before the stop completes: the run ends after the stop
        // time, by at most a queue's worth of service.
        let slack = (qd as u64 + 1) * full.latency_ns.max;
        assert!(
            cut.simulated_ns + full.latency_ns.max >= stop && cut.simulated_ns < stop + slack,
            "qd {qd}: ended at {} ns, stop {stop} ns",
            cut.simulated_ns
        );
        assert!(
            cut.notes
                .iter()
                .any(|s| s.contains("stopped issuing requests") && s.contains("host.stop_ns")),
            "{:?}",
            cut.notes
        );
        assert!(!full.notes.iter().any(|s| s.contains("stopped issuing")));
    }
}

#[test]
fn stop_ns_is_refused_out_of_range_and_with_a_file_system() {
    let e = config(4, "stop_ns = 0\n")
        .validate()
        .unwrap_err()
        .to_string();
    assert!(e.contains("host.stop_ns"), "{e}");
    let t: toml::Table = toml::from_str(
        "[host]\nstop_ns = 1000\n[fs]\nname = \"ext2\"\nworkload = \"andrew-file\"\n",
    )
    .unwrap();
    let e = Config::load_with(None, None, t)
        .and_then(|c| c.validate().map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("host.stop_ns") && e.contains("file system"),
        "{e}"
    );
}
