//! DFTL's translation reads in time and in number (docs/mqsim.md, "Translation reads").
//!
//! - A read that misses the CMT learns its data page's address from the translation page,
//!   so its data read starts only when that translation read has ended: a cold miss costs
//!   two reads in sequence, never one read's time.
//! - With `ftl.dftl.coalesce_misses`, the misses of one host command on one translation
//!   page share a single translation read (MQSim's `ArrivingMappingEntries`); without it
//!   (the paper's per-miss read) each miss reads the page again. Separate commands never
//!   share a read.

use ssdlab::config::Config;
use ssdlab::report::Report;
use ssdlab::sim::{RunOptions, run};
use std::io::Write;

const READ_NS: u64 = 50_000;

/// `(lba_sectors, sectors)` reads, one every 2 ms (each finds the device idle).
fn trace(reads: &[(u64, u64)]) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new()
        .suffix(".ascii")
        .tempfile()
        .unwrap();
    for (i, (lba, sectors)) in reads.iter().enumerate() {
        writeln!(f, "{} 0 {lba} {sectors} 1", i as u64 * 2_000_000).unwrap();
    }
    f.flush().unwrap();
    f
}

/// A filled 256 MiB device of 4 KiB pages (1,024 map entries per translation page), no
/// controller latency, no SLC cache, one page per program; DFTL with a CMT that holds
/// every entry, started cold so every first read misses.
fn run_reads(reads: &[(u64, u64)], coalesce: bool) -> Report {
    let f = trace(reads);
    let text = format!(
        "precondition = \"fill\"\n\
         [device]\ncapacity = \"256MiB\"\npage_size = \"4KiB\"\nread_ns = {READ_NS}\n\
         slc_cache_percent = 0.0\npages_per_program = 1\n\
         controller_latency_ns = 0\ncontroller_command_ns = 0\n\
         [ftl]\nname = \"dftl\"\n\
         [ftl.dftl]\ncmt_fraction = 1.0\ncmt_policy = \"lru\"\ncmt_start = \"cold\"\n\
         coalesce_misses = {coalesce}\n\
         [trace]\npath = \"{}\"\nformat = \"ascii\"\n",
        f.path().display()
    );
    let cfg = Config::load_with(None, Some(("test.toml", &text)), toml::Table::new()).unwrap();
    run(
        &cfg,
        RunOptions {
            check: true,
            ..Default::default()
        },
    )
    .unwrap()
    .report
}

fn counter(r: &Report, key: &str) -> u64 {
    r.counters.get(key).copied().unwrap_or(0)
}

/// One-page reads scattered over the device (each in its own translation page): every
/// one misses, and none can complete before a translation read and a data read, one
/// after the other. Before the fix the data read was placed at the command's start,
/// beside its translation read, and a miss cost one read's time (mean ≈ 1 × t_R).
#[test]
fn a_miss_reads_its_data_page_after_the_translation_page() {
    // 256 MiB / 4 KiB = 65,536 pages; page k·1,024 + 7 is in translation page k.
    let reads: Vec<(u64, u64)> = (0..60).map(|k| ((k * 1024 + 7) * 8, 8)).collect();
    for coalesce in [false, true] {
        let r = run_reads(&reads, coalesce);
        assert_eq!(counter(&r, "ftl.cmt.misses"), 60, "coalesce {coalesce}");
        assert_eq!(
            counter(&r, "ftl.dftl.trans_reads"),
            60,
            "coalesce {coalesce}"
        );
        let l = &r.read_latency_ns;
        assert_eq!(l.count, 60);
        assert!(
            l.mean >= 2.0 * READ_NS as f64,
            "coalesce {coalesce}: a cold miss took {} ns on average, less than two reads \
             of {READ_NS} ns in sequence",
            l.mean
        );
    }
}

/// 64 KiB reads (16 pages of one translation page each): without coalescing each page's
/// miss reads the translation page (16 reads, one after another on its die); with it the
/// command reads it once and its 15 other misses share that read, and the read completes
/// sooner. Two one-page commands on one translation page still read it twice.
#[test]
fn misses_of_one_command_share_a_translation_read() {
    // Request k reads pages k·2,048 … +15 (translation page 2k, 16 pages).
    let big: Vec<(u64, u64)> = (0..30).map(|k| (k * 2048 * 8, 128)).collect();
    let per_miss = run_reads(&big, false);
    let shared = run_reads(&big, true);
    for r in [&per_miss, &shared] {
        assert_eq!(counter(r, "ftl.cmt.misses"), 30 * 16);
    }
    assert_eq!(counter(&per_miss, "ftl.dftl.trans_reads"), 30 * 16);
    assert_eq!(counter(&shared, "ftl.dftl.trans_reads"), 30);
    assert_eq!(counter(&shared, "ftl.dftl.shared_trans_reads"), 30 * 15);
    assert!(
        !per_miss
            .counters
            .contains_key("ftl.dftl.shared_trans_reads"),
        "the counter is reported only with coalesce_misses"
    );
    // 16 translation reads in sequence on one die against one.
    let (a, b) = (per_miss.read_latency_ns.mean, shared.read_latency_ns.mean);
    assert!(
        a > b + 10.0 * READ_NS as f64,
        "per-miss {a} ns, shared {b} ns"
    );
    // Separate commands: pages 0 and 1 (one translation page), 2 ms apart.
    let r = run_reads(&[(0, 8), (8, 8)], true);
    assert_eq!(counter(&r, "ftl.dftl.trans_reads"), 2);
    assert_eq!(counter(&r, "ftl.dftl.shared_trans_reads"), 0);
}

#[test]
fn coalesce_misses_is_a_dftl_key() {
    let load = |text: &str| {
        Config::load_with(None, Some(("test.toml", text)), toml::Table::new())
            .and_then(|c| c.validate().map(|_| ()))
    };
    load("[ftl]\nname = \"dftl\"\n[ftl.dftl]\ncoalesce_misses = true\n").unwrap();
    let e = load("[ftl]\nname = \"dftl\"\n[ftl.dftl]\ncoalesce_misses = 2\n").unwrap_err();
    assert!(e.to_string().contains("coalesce_misses"), "{e}");
}
