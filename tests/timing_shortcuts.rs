//! Two timing shortcuts that made drives faster than any real one (issue 29, items 1
//! and 2), each pinned by a run that failed before the fix:
//!
//! - a program operation takes its whole t_PROG however many of its
//!   `pages_per_program` slots are filled: a lone page does not get a share of it, while
//!   pages queued for one die still share one program (docs/config.md);
//! - by-address management blocks that a write covers whole and aligned are written
//!   without reading old data and in parallel over the dies they sit on, while a
//!   sub-block write still pays its read-modify-write (docs/ftls.md).

use ssdlab::config::Config;
use ssdlab::report::Report;

/// Runs `text` (TOML over `preset`) and returns the report.
fn run(preset: &str, text: &str) -> Report {
    let cfg = Config::load(Some(preset), Some(("test", text))).unwrap();
    ssdlab::sim::run(&cfg, ssdlab::sim::RunOptions::default())
        .unwrap()
        .report
}

/// The default TLC device (t_PROG 500 µs, 8 mapping pages per program) without the write
/// buffer and SLC cache that would hide the program time, on 4 GiB, with `extra` TOML
/// lines appended (after the `[device]` keys).
fn tlc(timing: &str, slc_percent: f64, workload: &str) -> Report {
    run(
        "default",
        &format!(
            "[device]\ncapacity = \"4GiB\"\nslc_cache_percent = {slc_percent}\n\
             [buffer]\nname = \"none\"\n[timing]\nmode = \"{timing}\"\n{workload}"
        ),
    )
}

const ONE_4K_WRITE: &str =
    "[host]\nqd = 1\n[workload]\nkind = \"random-write\"\nsize = \"4KiB\"\nrequests = 1\n";

#[test]
fn lone_page_program_costs_whole_t_prog() {
    // The default preset's t_PROG and its data transfer of one 4 KiB page at 1,400 MB/s.
    let t_prog_ns = 500_000.0;
    let transfer_ns = 4096.0 / 1.4;
    for timing in ["full", "count"] {
        let r = tlc(timing, 0.0, ONE_4K_WRITE);
        assert_eq!(r.nand_program_pages, 1, "{timing}");
        let lat = r.write_latency_ns.mean;
        // The count model has no bus: it charges the program alone.
        let floor = if timing == "full" {
            t_prog_ns + transfer_ns
        } else {
            t_prog_ns
        };
        assert!(
            lat >= floor,
            "{timing}: a lone 4 KiB TLC program completed in {lat} ns, under t_PROG"
        );
        // …and not more than once: one program operation, not one per slot.
        assert!(lat < 2.0 * t_prog_ns, "{timing}: {lat} ns");
    }
    // The SLC-mode program follows the same rule: its whole 114 µs.
    let r = tlc("full", 4.2, ONE_4K_WRITE);
    assert!(
        r.write_latency_ns.mean >= 114_000.0 + transfer_ns,
        "SLC: {} ns",
        r.write_latency_ns.mean
    );
}

#[test]
fn pages_queued_for_a_die_share_one_program() {
    // A large sequential write at high queue depth keeps every die's queue full, so
    // each program writes all 8 slots: the throughput stays 8 pages per t_PROG per die
    // (32 dies × 32 KiB / 500 µs ≈ 2,000 MiB/s), far above one page per t_PROG
    // (≈ 250 MiB/s), in both models.
    let seq = "[host]\nqd = 32\n[workload]\nkind = \"seq-write\"\nsize = \"128KiB\"\n\
               requests = 2048\n";
    let full = tlc("full", 0.0, seq);
    assert!(
        full.throughput_mib_s > 1_500.0,
        "full: {} MiB/s",
        full.throughput_mib_s
    );
    // The count model is one serial server: 8 pages per t_PROG, ≈ 62 MiB/s.
    let count = tlc("count", 0.0, seq);
    let want = 8.0 * 4096.0 / 500e-6 / (1 << 20) as f64;
    assert!(
        (count.throughput_mib_s - want).abs() < 0.02 * want,
        "count: {} MiB/s, want {want}",
        count.throughput_mib_s
    );
}

/// SSD A (16 KiB by-address management blocks of 4 KiB pages, 16 dies on 4 channels)
/// at 2 GiB without its buffer, with `ftl` lines in `[ftl]` and `workload` TOML (which
/// may start with top-level keys) in front.
fn ssd_a(ftl: &str, workload: &str) -> Report {
    run(
        "ssd-a",
        &format!(
            "{workload}\n[device]\ncapacity = \"2GiB\"\n[buffer]\nname = \"none\"\n[ftl]\n{ftl}\n"
        ),
    )
}

const WRITE_ORDER: &str = "placement = \"write-order\"";

#[test]
fn aligned_mgmt_blocks_written_in_parallel() {
    // One 64 KiB write covers four whole, aligned 16 KiB management blocks: nothing to
    // read, and their 16 pages sit on 16 different dies, so the write costs about one
    // program plus the channel transfers, not four block rewrites in a row.
    let one_64k =
        "[host]\nqd = 1\n[workload]\nkind = \"random-write\"\nsize = \"64KiB\"\nrequests = 1\n";
    let one = ssd_a("", one_64k);
    assert_eq!(one.rmw_read_pages, 0);
    assert_eq!(one.nand_program_pages, 16);
    let by_address = one.write_latency_ns.mean;
    let write_order = ssd_a(WRITE_ORDER, one_64k).write_latency_ns.mean;
    assert!(
        by_address <= 1.05 * write_order,
        "64 KiB by-address {by_address} ns, page mapping {write_order} ns"
    );
    // A fresh 128 KiB sequential write at QD 32 runs as fast as with page mapping.
    let seq = "[host]\nqd = 32\n[workload]\nkind = \"seq-write\"\nsize = \"128KiB\"\n\
               requests = 1000\n";
    let ba = ssd_a("", seq).throughput_mib_s;
    let wo = ssd_a(WRITE_ORDER, seq).throughput_mib_s;
    assert!(ba >= 0.95 * wo, "by-address {ba} MiB/s, page mapping {wo}");
}

#[test]
fn sub_block_writes_still_rewrite_their_management_block() {
    // After a fill every 4 KiB random write rewrites its 16 KiB block: 3 pages read and
    // programmed again (a copy each), besides its own page.
    let random_4k = "precondition = \"fill\"\n[host]\nqd = 1\n[workload]\n\
                     kind = \"random-write\"\nsize = \"4KiB\"\nrequests = 2000\n";
    let r = ssd_a("", random_4k);
    assert_eq!(r.host_write_pages, 2000);
    assert_eq!(r.counters["ftl.mgmt.rmw_pages"], 3 * 2000);
    // A rewrite costs more than a plain program: the copies' reads and transfers (the
    // four pages of a block sit on four channels, so the copies overlap).
    let plain = ssd_a(WRITE_ORDER, random_4k);
    assert!(
        r.write_latency_ns.p50 as f64 > 1.2 * plain.write_latency_ns.p50 as f64,
        "by-address p50 {} ns, page mapping {} ns",
        r.write_latency_ns.p50,
        plain.write_latency_ns.p50
    );
}
