//! DFTL's cold start (`ftl.dftl.cmt_start = "cold"`, docs/ftls-hash.md): when
//! preconditioning ends, dirty cached map entries are written back and the CMT is emptied,
//! so the first read of every preconditioned page misses and reads its translation page;
//! with the default warm start those reads hit. Data must read back as the reference
//! model has it either way, and the write-back belongs to preconditioning, not to the
//! measured counters.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab::config::Config;
use ssdlab::ftl::dftl::{CmtPolicy, CmtStart};
use ssdlab::ftl::{FtlConfig, FtlKind, build_ftl};
use ssdlab::nand::{Geometry, Lpn, Nand};
use ssdlab::run::run;
use ssdlab::sim::RunOptions;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

fn counter(ftl: &dyn ssdlab::ftl::Ftl, key: &str) -> u64 {
    let mut m = ssdlab::spec::Counters::new();
    ftl.counters(&mut m);
    m[key]
}

/// FTL level: random overwrites and trims as preconditioning (with a CMT smaller than
/// the written set, so evictions and GC run), the hand-over, then a read of every page
/// in random order, checked against the last write's OOB sequence number.
#[test]
fn cold_start_misses_every_first_read_and_keeps_data() {
    let geo = Geometry {
        channels: 2,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 2,
        blocks_per_plane: 40,
        pages_per_block: 32,
        page_size_bytes: 4096,
        oob_size_bytes: 64,
    };
    let logical = 3000u32;
    for seed in [1u64, 2, 3] {
        for start in [CmtStart::Warm, CmtStart::Cold] {
            for (cmt, policy) in [(4000u64, CmtPolicy::Lru), (700, CmtPolicy::SegmentedLru)] {
                let ctx = format!("seed {seed}, {start:?}, cmt {cmt} {policy:?}");
                let mut cfg = FtlConfig {
                    name: FtlKind::Dftl,
                    ..FtlConfig::default()
                };
                cfg.dftl.cmt_entries = Some(cmt);
                cfg.dftl.cmt_policy = policy;
                cfg.dftl.cmt_start = start;
                let mut ftl = build_ftl(&cfg, &geo, logical as u64, 1).unwrap();
                let mut nand = Nand::new(geo, 1_000_000, true, true);
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
                let mut model: BTreeMap<u32, u32> = BTreeMap::new();
                for _ in 0..12_000 {
                    let l = rng.gen_range(0..logical);
                    if rng.gen_bool(0.05) {
                        ftl.trim(Lpn(l), &mut nand).unwrap();
                        model.remove(&l);
                    } else {
                        let seq = nand.next_seq();
                        ftl.write(Lpn(l), &mut nand).unwrap();
                        model.insert(l, seq);
                    }
                }
                let dirty_writes0 = counter(&*ftl, "ftl.dftl.trans_writes");
                ftl.end_preconditioning(&mut nand).unwrap();
                ftl.check_invariants(&nand);
                let wrote_back = counter(&*ftl, "ftl.dftl.trans_writes") - dirty_writes0;
                if start == CmtStart::Cold {
                    assert!(wrote_back > 0, "{ctx}: dirty entries were not written back");
                } else {
                    assert_eq!(wrote_back, 0, "{ctx}: a warm start writes nothing");
                }
                // Every page in random order: data as the model has it; a cold CMT
                // misses each first read with one translation read; a warm CMT holding
                // every entry misses none.
                let mut pages: Vec<u32> = (0..logical).collect();
                pages.shuffle(&mut rng);
                let mut seen_misses = 0u64;
                for &l in &pages {
                    let (m0, t0) = (
                        counter(&*ftl, "ftl.cmt.misses"),
                        counter(&*ftl, "ftl.dftl.trans_reads"),
                    );
                    let got = ftl.read(Lpn(l), &mut nand).unwrap();
                    let want = model.get(&l).copied();
                    assert_eq!(got.map(|p| nand.oob(p).seq), want, "{ctx}: lpn {l}");
                    if let Some(p) = got {
                        assert_eq!(nand.oob(p).lpn, Lpn(l), "{ctx}: lpn {l}");
                    }
                    let (dm, dt) = (
                        counter(&*ftl, "ftl.cmt.misses") - m0,
                        counter(&*ftl, "ftl.dftl.trans_reads") - t0,
                    );
                    seen_misses += dm;
                    if want.is_none() {
                        continue;
                    }
                    match (start, cmt >= logical as u64) {
                        (CmtStart::Cold, _) => {
                            assert_eq!(dm, 1, "{ctx}: first read of lpn {l} must miss");
                            // The miss reads the translation page; with a small CMT the
                            // insert's eviction may add a write-back's read.
                            assert!(dt >= 1, "{ctx}: lpn {l} missed without a translation read");
                            if cmt >= logical as u64 {
                                assert_eq!(dt, 1, "{ctx}: lpn {l}");
                            }
                        }
                        (CmtStart::Warm, true) => {
                            assert_eq!((dm, dt), (0, 0), "{ctx}: warm read of lpn {l} missed");
                        }
                        (CmtStart::Warm, false) => {}
                    }
                }
                if start == CmtStart::Cold {
                    assert!(seen_misses >= model.len() as u64, "{ctx}");
                }
                ftl.check_invariants(&nand);
            }
        }
    }
}

fn trace(reads: &[(u64, u64)]) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new()
        .suffix(".ascii")
        .tempfile()
        .unwrap();
    for (i, (lba, sectors)) in reads.iter().enumerate() {
        writeln!(f, "{} 0 {lba} {sectors} 1", i as u64 * 200_000).unwrap();
    }
    f.flush().unwrap();
    f
}

fn config(trace: &std::path::Path, start: &str) -> Config {
    let text = format!(
        "precondition = \"fill\"\n\
         [device]\ncapacity = \"256MiB\"\n\
         [ftl]\nname = \"dftl\"\n\
         [ftl.dftl]\ncmt_fraction = 1.0\ncmt_policy = \"lru\"\ncmt_start = \"{start}\"\n\
         [trace]\npath = \"{}\"\nformat = \"ascii\"\n",
        trace.display()
    );
    Config::load_with(None, Some(("test.toml", &text)), toml::Table::new()).unwrap()
}

/// Whole run: a filled device, then reads. Cold: misses and translation reads equal the
/// distinct pages read (the CMT holds every entry, so nothing is evicted), no
/// translation write lands in the measured phase, and reads are slower than warm, where
/// none misses. Check mode verifies invariants and every page's presence at the end.
#[test]
fn measured_phase_after_cold_start_reads_translation_pages() {
    let seed = 0xc01d;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let pages = (256u64 << 20) / 4096;
    let reads: Vec<(u64, u64)> = (0..1500)
        .map(|_| {
            // Hot region for repeats, the rest over the device; 1–16 pages, some
            // unaligned.
            let span = if rng.gen_bool(0.3) { 512 } else { pages - 16 };
            let sectors = rng.gen_range(1..=128u64);
            (rng.gen_range(0..span * 8), sectors)
        })
        .collect();
    let distinct: BTreeSet<u64> = reads
        .iter()
        .flat_map(|&(lba, s)| lba * 512 / 4096..((lba + s) * 512).div_ceil(4096))
        .collect();
    let f = trace(&reads);
    let mut mean = BTreeMap::new();
    for start in ["warm", "cold"] {
        let ctx = format!("seed {seed:#x}, {start}");
        let r = run(
            &config(f.path(), start),
            RunOptions {
                check: true,
                ..Default::default()
            },
        )
        .unwrap()
        .report;
        let c = |k: &str| r.counters.get(k).copied().unwrap_or(0);
        let want = if start == "cold" {
            distinct.len() as u64
        } else {
            0
        };
        assert_eq!(c("ftl.cmt.misses"), want, "{ctx}");
        assert_eq!(c("ftl.dftl.trans_reads"), want, "{ctx}");
        assert_eq!(c("ftl.dftl.trans_writes"), 0, "{ctx}");
        assert_eq!(r.unmapped_read_pages, 0, "{ctx}");
        mean.insert(start, r.latency_ns.mean);
    }
    assert!(mean["cold"] > mean["warm"], "seed {seed:#x}: {mean:?}");
}

#[test]
fn cmt_start_is_refused_where_there_is_no_cmt() {
    let load = |text: &str| {
        Config::load_with(None, Some(("test.toml", text)), toml::Table::new())
            .and_then(|c| c.validate().map(|_| ()))
    };
    let e = load("[ftl]\nname = \"page\"\n[ftl.dftl]\ncmt_start = \"cold\"\n").unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("ftl.dftl.cmt_start"), "{msg}");
    assert!(msg.contains("dftl"), "{msg}");
    let e = load("[ftl]\nname = \"dftl\"\n[ftl.dftl]\ncmt_start = \"tepid\"\n").unwrap_err();
    assert!(e.to_string().contains("cmt_start"), "{e}");
    let e =
        load("[fs]\nname = \"ext2\"\nworkload = \"andrew-file\"\n[ftl]\nname = \"dftl\"\n[ftl.dftl]\ncmt_start = \"cold\"\n")
            .unwrap_err();
    assert!(e.to_string().contains("file system"), "{e}");
    load("[ftl]\nname = \"dftl\"\n[ftl.dftl]\ncmt_start = \"cold\"\n").unwrap();
}
