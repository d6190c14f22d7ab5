//! Trace replay on a preconditioned device (docs/traces.md, "Preconditioning"): the
//! footprint pass writes exactly the pages a trace reads before writing them, partial
//! fills write exactly their share, the unmapped-read share and its warning agree with an
//! independent model of which pages hold data, and the CLI refuses what cannot work.

mod common;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab::config::Config;
use ssdlab::sim::{RunOptions, run};
use std::io::Write;

const PAGE: u64 = 4096;
/// Logical pages of the 1 GiB test device.
const LOGICAL: u64 = (1 << 30) / PAGE;

/// A random ASCII trace (`time_ns dev lba_sectors size_sectors op`, op 1 = read) over
/// the first `span` pages: reads and writes of 1–8 pages, some not page-aligned.
fn random_trace(seed: u64, requests: usize, span: u64, read_share: f64) -> Vec<(bool, u64, u64)> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..requests)
        .map(|_| {
            let read = rng.gen_bool(read_share);
            let sectors = rng.gen_range(1..=64u64);
            let lba = rng.gen_range(0..span * 8 - sectors);
            (read, lba, sectors)
        })
        .collect()
}

fn write_trace(reqs: &[(bool, u64, u64)]) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new()
        .suffix(".ascii")
        .tempfile()
        .unwrap();
    for (i, (read, lba, sectors)) in reqs.iter().enumerate() {
        writeln!(
            f,
            "{} 0 {lba} {sectors} {}",
            i as u64 * 100_000,
            *read as u8
        )
        .unwrap();
    }
    f.flush().unwrap();
    f
}

/// Pages of a request.
fn pages(lba: u64, sectors: u64) -> std::ops::Range<u64> {
    lba * 512 / PAGE..((lba + sectors) * 512).div_ceil(PAGE)
}

/// The reference: (pages the footprint pass must write, page reads that hit a page
/// holding no data without preconditioning, page reads), given the first `filled`
/// pages hold data.
fn reference(reqs: &[(bool, u64, u64)], filled: u64) -> (u64, u64, u64) {
    let mut holds = vec![false; LOGICAL as usize];
    holds[..filled as usize].iter_mut().for_each(|h| *h = true);
    let mut footprint = holds.clone();
    let (mut pass, mut unmapped, mut reads) = (0, 0, 0);
    for &(read, lba, sectors) in reqs {
        for p in pages(lba, sectors) {
            let p = p as usize;
            if read {
                reads += 1;
                if !holds[p] {
                    unmapped += 1;
                }
                if !footprint[p] {
                    footprint[p] = true;
                    pass += 1;
                }
            } else {
                holds[p] = true;
                footprint[p] = true;
            }
        }
    }
    (pass, unmapped, reads)
}

fn config(trace: &std::path::Path, extra: &str) -> Config {
    let text = format!(
        "{extra}\n[device]\ncapacity = \"1GiB\"\n[trace]\npath = \"{}\"\nformat = \"ascii\"\n",
        trace.display()
    );
    Config::load_with(None, Some(("test.toml", &text)), toml::Table::new()).unwrap()
}

/// The number in a note of the form "… pass wrote N pages …".
fn footprint_note(notes: &[String]) -> u64 {
    let n = notes
        .iter()
        .find(|n| n.contains("footprint pass wrote"))
        .unwrap_or_else(|| panic!("no footprint note in {notes:?}"));
    n.split("wrote ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn footprint_writes_exactly_the_pages_read_before_written() {
    for case in 0..4u64 {
        let seed = 0xf00d + case;
        let span = [LOGICAL / 64, LOGICAL / 8, LOGICAL, 300][case as usize];
        let reqs = random_trace(seed, 3000, span, [0.9, 0.5, 0.8, 0.6][case as usize]);
        let f = write_trace(&reqs);
        let (pass, unmapped, reads) = reference(&reqs, 0);
        let ctx = format!("seed {seed:#x}, span {span} pages");

        // Empty device: the unmapped share and its warning follow the reference model.
        let r = run(
            &config(f.path(), ""),
            RunOptions {
                check: true,
                ..Default::default()
            },
        )
        .unwrap()
        .report;
        assert_eq!(r.host_read_pages, reads, "{ctx}");
        assert_eq!(r.unmapped_read_pages, unmapped, "{ctx}");
        let share = unmapped as f64 / reads as f64;
        assert!((r.unmapped_read_share - share).abs() < 1e-12, "{ctx}");
        let warned = r.warnings.iter().any(|w| w.contains("never-written pages"));
        assert_eq!(warned, share > 0.01, "{ctx}: {:?}", r.warnings);

        // Footprint: the pass writes the reference's pages, and no read is unmapped
        // (check mode verifies every page's presence against the host's view at the end).
        let cfg = config(f.path(), "precondition = \"footprint\"");
        let r = run(
            &cfg,
            RunOptions {
                check: true,
                ..Default::default()
            },
        )
        .unwrap()
        .report;
        assert_eq!(footprint_note(&r.notes), pass, "{ctx}");
        assert_eq!(r.unmapped_read_pages, 0, "{ctx}");
        assert!(
            !r.warnings.iter().any(|w| w.contains("never-written")),
            "{ctx}"
        );
    }
}

#[test]
fn partial_fill_writes_its_share_and_footprint_tops_it_up() {
    let seed = 0xfeed;
    // Reads only, over the whole device: a fill of P% leaves exactly the reads above it
    // unmapped.
    let reqs = random_trace(seed, 4000, LOGICAL, 1.0);
    let f = write_trace(&reqs);
    for percent in [0.0, 25.0, 60.0, 100.0] {
        let filled = (LOGICAL as f64 * percent / 100.0).round() as u64;
        let (pass, unmapped, _) = reference(&reqs, filled);
        let ctx = format!("seed {seed:#x}, fill {percent}%");
        let cfg = config(
            f.path(),
            &format!("precondition = \"fill\"\nfill_percent = {percent}"),
        );
        let r = run(
            &cfg,
            RunOptions {
                check: true,
                ..Default::default()
            },
        )
        .unwrap()
        .report;
        assert_eq!(r.unmapped_read_pages, unmapped, "{ctx}");
        let cfg = config(
            f.path(),
            &format!("precondition = \"footprint\"\nfill_percent = {percent}"),
        );
        let r = run(
            &cfg,
            RunOptions {
                check: true,
                ..Default::default()
            },
        )
        .unwrap()
        .report;
        assert_eq!(footprint_note(&r.notes), pass, "{ctx}");
        assert_eq!(r.unmapped_read_pages, 0, "{ctx}");
    }
}

#[test]
fn cli_warns_on_stderr_and_refuses_what_cannot_work() {
    let reqs = random_trace(7, 500, LOGICAL / 16, 0.9);
    let f = write_trace(&reqs);
    let path = f.path().to_str().unwrap();
    let o = common::ssdlab(&["run", "--trace", path, "--capacity", "1GiB", "-q"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let err = common::stderr(&o);
    assert!(
        err.contains("warning:") && err.contains("--precondition footprint"),
        "{err}"
    );
    let o = common::ssdlab(&[
        "run",
        "--trace",
        path,
        "--capacity",
        "1GiB",
        "-q",
        "--precondition",
        "footprint",
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    // No unmapped-read warning (the 1 GiB default drive still warns that its
    // over-provisioning is rounded to whole blocks: docs/config.md).
    assert!(
        !common::stderr(&o).contains("--precondition footprint"),
        "{}",
        common::stderr(&o)
    );

    // A footprint pass reads the trace twice: standard input cannot be.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args([
            "run",
            "--trace",
            "-",
            "--format",
            "ascii",
            "--precondition",
            "footprint",
        ])
        .stdin(std::fs::File::open(f.path()).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("read twice"),
        "{}",
        common::stderr(&o)
    );
    // fill_percent means nothing without a fill.
    let o = common::ssdlab(&[
        "run",
        "--set",
        "fill_percent=20",
        "--workload",
        "random-read",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("fill_percent"),
        "{}",
        common::stderr(&o)
    );
    let o = common::ssdlab(&["run", "--fill", "101", "--workload", "random-read"]);
    assert_eq!(o.status.code(), Some(2));
}
