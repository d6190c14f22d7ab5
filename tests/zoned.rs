//! The zoned drive (`ftl/zoned.rs`, NVMe ZNS) through the device pipeline.
//!
//! - A seeded swarm of random zone commands (writes at and off the write pointer,
//!   appends, resets, finishes, opens, closes, reads) on tiny drives of random shape,
//!   checked after every command against an independent model: `zns::Zones` for the
//!   zone states, write pointers and refusals, and a flat map from logical page to the
//!   write that page must return (a reset empties a zone, a finish's padding holds no
//!   data). The seed is in every failure message.
//! - Hand-computed cases: a finish's padding in write amplification; a write off the
//!   pointer counted and changing nothing; reset then rewrite; one die per zone against
//!   all dies for the same writes (the striped zone finishes sooner); a conventional
//!   drive refusing zone commands with a counted status.

mod common;

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab::buffer::BufferKind;
use ssdlab::config::{Config, TimingMode};
use ssdlab::ftl::FtlKind;
use ssdlab::sim::Device;
use ssdlab::spec::Counters;
use ssdlab::units::Size;
use ssdlab::workload::{IoRequest, OpKind};
use ssdlab::zns::{self, ReportFilter, ZnsStatus, ZoneLayout, ZoneState, Zones};
use std::collections::BTreeMap;

const PAGE: u64 = 4096;
const PPB: u32 = 8;
/// Two channels of two dies: four dies of one plane.
const DIES: u32 = 4;

/// A tiny zoned drive of `logical` pages on four dies with `blocks_per_die` blocks each.
fn config(logical: u64, blocks_per_die: u64) -> Config {
    let mut c = Config::default();
    c.device.capacity = Size(logical * PAGE);
    let physical = blocks_per_die * DIES as u64 * PPB as u64;
    c.device.op_percent = (physical as f64 / logical as f64 - 1.0) * 100.0;
    c.device.pages_per_block = Some(PPB);
    c.device.channels = 2;
    c.device.chips_per_channel = 1;
    c.device.dies_per_chip = 2;
    c.device.planes_per_die = 1;
    c.device.track_write_seq = Some(true);
    c.timing.mode = TimingMode::Full;
    c.buffer.name = BufferKind::None;
    c.ftl.name = FtlKind::Zoned;
    c
}

fn req(op: OpKind, lpn: u64, pages: u64) -> IoRequest {
    IoRequest::new(op, lpn * PAGE, pages * PAGE)
}

fn counters(dev: &Device) -> Counters {
    let mut c = Counters::new();
    dev.ftl.counters(&mut c);
    c
}

fn zones(dev: &Device) -> &Zones {
    dev.ftl.zones().expect("a zoned drive")
}

/// What a read of each logical page returns: the write sequence number of its data.
fn versions(dev: &Device, logical: u64) -> Vec<Option<u32>> {
    (0..logical as u32).map(|l| dev.peek_version(l)).collect()
}

#[test]
fn random_zone_commands_agree_with_the_zone_model_and_a_flat_map() {
    let seeds: u64 = std::env::var("SSDLAB_ZONED_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    for seed in 1..=seeds {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let d = [1u32, 2, 4][rng.gen_range(0..3)];
        // Zone size: one block on each die of the zone, or two; capacity up to it.
        let size = d as u64 * PPB as u64 * rng.gen_range(1..=2u64);
        let cap = rng.gen_range(1..=size);
        let zones_n = rng.gen_range(2..=6u64);
        let logical = zones_n * size;
        // Enough blocks on every die for the zones, and no fewer pages than the logical
        // space.
        let zone_blocks = cap.div_ceil(d as u64 * PPB as u64) * d as u64;
        let per_die = ((zone_blocks * zones_n).div_ceil(DIES as u64) + 2)
            .max(logical.div_ceil(DIES as u64 * PPB as u64));
        let mut c = config(logical, per_die);
        c.ftl.zoned.zone_size = Size(size * PAGE);
        c.ftl.zoned.zone_capacity = Size(cap * PAGE);
        c.ftl.zoned.dies_per_zone = d;
        c.ftl.zoned.max_active = rng.gen_range(0..=zones_n as u32);
        c.ftl.zoned.max_open = if c.ftl.zoned.max_active == 0 {
            rng.gen_range(0..=zones_n as u32)
        } else {
            rng.gen_range(1..=c.ftl.zoned.max_active)
        };
        c.ftl.zoned.auto_close = rng.gen_bool(0.5);
        let mut dev = Device::new(&c).unwrap_or_else(|e| panic!("seed {seed}: {e} ({c:?})"));
        let mut model = Zones::new(ZoneLayout {
            zones: zones_n as u32,
            zone_size_blocks: size,
            zone_capacity_blocks: cap,
            max_open: c.ftl.zoned.max_open,
            max_active: c.ftl.zoned.max_active,
            auto_close: c.ftl.zoned.auto_close,
        })
        .unwrap();
        let mut map: BTreeMap<u64, u32> = BTreeMap::new();
        // The newest write's sequence number so far (-1: none yet).
        let mut newest = -1i64;
        let mut t = 0u64;
        for step in 0..300 {
            let zone = rng.gen_range(0..zones_n);
            let start = zone * size;
            let wp = model.descriptor(zone as u32).write_pointer;
            let op = rng.gen_range(0..10);
            let n = rng.gen_range(1..=4u64).min(size);
            let (r, expected): (IoRequest, Result<Option<u64>, ZnsStatus>) = match op {
                0..=2 => {
                    let lpn = if rng.gen_bool(0.85) {
                        wp
                    } else {
                        rng.gen_range(0..logical)
                    };
                    let n = n.min(logical - lpn);
                    (
                        req(OpKind::Write, lpn, n),
                        model.write(lpn, n).map(|()| Some(lpn)),
                    )
                }
                3 => {
                    let at = if rng.gen_bool(0.9) { start } else { start + 1 };
                    let n = n.min(logical - at);
                    (
                        req(OpKind::ZoneAppend, at, n),
                        model.append(at, n).map(Some),
                    )
                }
                4 => (
                    req(OpKind::ZoneReset, start, 0),
                    model.reset(zone as u32).map(|()| None),
                ),
                5 => (
                    req(OpKind::ZoneFinish, start, 0),
                    model.finish(zone as u32).map(|_| None),
                ),
                6 => (
                    req(OpKind::ZoneOpen, start, 0),
                    model.open(zone as u32).map(|()| None),
                ),
                7 => (
                    req(OpKind::ZoneClose, start, 0),
                    model.close(zone as u32).map(|()| None),
                ),
                _ => (req(OpKind::Read, rng.gen_range(0..logical), 1), Ok(None)),
            };
            let before = versions(&dev, logical);
            t = dev
                .submit(&r, t)
                .unwrap_or_else(|e| panic!("seed {seed} step {step} {r:?}: {e}"));
            let ctx = format!(
                "seed {seed} step {step} {:?} at {} x{}",
                r.op,
                r.offset_bytes / PAGE,
                r.size_bytes / PAGE
            );
            // The model's answer applied to the flat map.
            match (r.op, expected) {
                (OpKind::Write | OpKind::ZoneAppend, Ok(Some(first))) => {
                    if r.op == OpKind::ZoneAppend {
                        assert_eq!(dev.last_append_lba(), Some(first), "{ctx}: append's LBA");
                    }
                    for l in first..first + r.size_bytes / PAGE {
                        let v = dev.peek_version(l as u32);
                        assert!(
                            v.is_some_and(|v| i64::from(v) > newest),
                            "{ctx}: page {l} after its write holds {v:?}, expected a version > {newest}"
                        );
                        map.insert(l, v.unwrap());
                    }
                    newest = (first..first + r.size_bytes / PAGE)
                        .filter_map(|l| map.get(&l).map(|&v| i64::from(v)))
                        .max()
                        .unwrap_or(newest);
                }
                (OpKind::ZoneReset, Ok(_)) => {
                    map.retain(|&l, _| l / size != zone);
                }
                (OpKind::Write | OpKind::ZoneAppend, Err(_)) => {
                    assert_eq!(
                        versions(&dev, logical),
                        before,
                        "{ctx}: a refused write changed data"
                    );
                    if r.op == OpKind::ZoneAppend {
                        assert_eq!(dev.last_append_lba(), None, "{ctx}: a refused append's LBA");
                    }
                }
                _ => {}
            }
            // Zones, refusals and data agree with the model after every command.
            assert_eq!(
                zones(&dev).report(0, ReportFilter::All),
                model.report(0, ReportFilter::All),
                "{ctx}: zone descriptors"
            );
            let (mut got, mut want) = (Counters::new(), Counters::new());
            zones(&dev).counters(&mut got);
            model.counters(&mut want);
            for s in ZnsStatus::ALL {
                assert_eq!(
                    got.value(s.counter()),
                    want.value(s.counter()),
                    "{ctx}: {s}"
                );
            }
            for l in 0..logical {
                assert_eq!(
                    dev.peek_version(l as u32),
                    map.get(&l).copied(),
                    "{ctx}: page {l}"
                );
            }
            dev.ftl.check_invariants(&dev.nand);
            dev.nand.check_invariants();
        }
    }
}

#[test]
fn a_finish_pads_the_zone_and_the_padding_counts_in_write_amplification() {
    // Zones of one block on each of two dies: 16 pages, all writable.
    let mut c = config(64, 4);
    c.ftl.zoned.dies_per_zone = 2;
    let mut dev = Device::new(&c).unwrap();
    let t = dev.submit(&req(OpKind::Write, 0, 5), 0).unwrap();
    dev.submit(&req(OpKind::ZoneFinish, 0, 0), t).unwrap();
    // 5 host pages, 11 pages of padding: 16 programs, WA = 16 / 5 = 3.2.
    let nand = dev.nand.counters();
    assert_eq!(dev.host.write_pages, 5);
    assert_eq!(nand.total_programs(), 16);
    assert_eq!(
        nand.total_programs() as f64 / dev.host.write_pages as f64,
        3.2
    );
    let k = counters(&dev);
    assert_eq!(k.value(&zns::FINISH_PAD_BLOCKS), 11);
    assert_eq!(k.value(&zns::FINISHES), 1);
    assert_eq!(zones(&dev).descriptor(0).state, ZoneState::Full);
    // The padding holds no data: reads above the host's last page are deallocated.
    assert!(dev.peek_version(4).is_some());
    assert!((5..16).all(|l| dev.peek_version(l).is_none()));
}

#[test]
fn a_write_off_the_pointer_is_counted_and_changes_nothing() {
    let mut c = config(64, 4);
    c.ftl.zoned.dies_per_zone = 2;
    let mut dev = Device::new(&c).unwrap();
    let t = dev.submit(&req(OpKind::Write, 0, 3), 0).unwrap();
    let before = (zones(&dev).descriptor(0), *dev.nand.counters(), dev.host);
    dev.submit(&req(OpKind::Write, 5, 1), t).unwrap();
    dev.submit(&req(OpKind::Write, 1, 1), t).unwrap();
    assert_eq!(
        (zones(&dev).descriptor(0), *dev.nand.counters(), dev.host),
        before
    );
    let k = counters(&dev);
    assert_eq!(k.value(ZnsStatus::InvalidWrite.counter()), 2);
    assert_eq!(zones(&dev).descriptor(0).write_pointer, 3);
    // At the pointer it goes on.
    dev.submit(&req(OpKind::Write, 3, 2), t).unwrap();
    assert_eq!(zones(&dev).descriptor(0).write_pointer, 5);
}

#[test]
fn a_reset_erases_the_zone_and_it_can_be_written_again() {
    let mut c = config(64, 4);
    c.ftl.zoned.dies_per_zone = 2;
    let mut dev = Device::new(&c).unwrap();
    let mut t = dev.submit(&req(OpKind::Write, 0, 16), 0).unwrap();
    assert_eq!(zones(&dev).descriptor(0).state, ZoneState::Full);
    t = dev.submit(&req(OpKind::Write, 16, 16), t).unwrap();
    let old: Vec<u32> = (0..16).map(|l| dev.peek_version(l).unwrap()).collect();
    // Full: a further write is refused.
    dev.submit(&req(OpKind::ZoneAppend, 0, 1), t).unwrap();
    assert_eq!(counters(&dev).value(ZnsStatus::ZoneFull.counter()), 1);
    t = dev.submit(&req(OpKind::ZoneReset, 0, 0), t).unwrap();
    let k = counters(&dev);
    assert_eq!(k.value(&zns::RESETS), 1);
    assert_eq!(k.value(&ssdlab::ftl::zoned::RESET_ERASED_BLOCKS), 2);
    assert_eq!(dev.nand.counters().total_erases(), 2);
    assert_eq!(zones(&dev).descriptor(0).state, ZoneState::Empty);
    assert!((0..16).all(|l| dev.peek_version(l).is_none()));
    // Zone 1 is untouched; zone 0 takes new data from its start.
    assert!((16..32).all(|l| dev.peek_version(l).is_some()));
    dev.submit(&req(OpKind::Write, 0, 4), t).unwrap();
    for (l, old) in old.iter().enumerate().take(4) {
        assert!(dev.peek_version(l as u32).unwrap() > *old);
    }
    dev.ftl.check_invariants(&dev.nand);
}

#[test]
fn a_zone_over_all_dies_is_written_in_parallel_one_over_one_die_is_not() {
    // The same 32-page zone: four blocks on one die, or one block on each of four.
    let done = |dies: u32| {
        let mut c = config(128, 8);
        c.ftl.zoned.zone_size = Size(32 * PAGE);
        c.ftl.zoned.dies_per_zone = dies;
        let mut dev = Device::new(&c).unwrap();
        let t = dev.submit(&req(OpKind::Write, 0, 32), 0).unwrap();
        assert_eq!(dev.nand.counters().total_programs(), 32);
        t
    };
    let (one, all) = (done(1), done(DIES));
    assert!(
        one > 2 * all,
        "one die per zone {one} ns, all {DIES} dies {all} ns: expected the striped zone to finish well before"
    );
}

#[test]
fn a_conventional_drive_refuses_zone_commands_with_a_counted_status() {
    let mut c = config(64, 4);
    c.ftl.name = FtlKind::Page;
    let mut dev = Device::new(&c).unwrap();
    let t = dev.submit(&req(OpKind::Write, 0, 4), 0).unwrap();
    let before = (*dev.nand.counters(), dev.host);
    for op in OpKind::ZONE_OPS {
        let pages = if op == OpKind::ZoneAppend { 1 } else { 0 };
        dev.submit(&req(op, 0, pages), t).unwrap();
    }
    assert_eq!((*dev.nand.counters(), dev.host), before);
    assert_eq!(dev.invalid_zone_commands(), 5);
    let mut k = Counters::new();
    use ssdlab::sim::Measure;
    dev.layer_counters(&mut k);
    assert_eq!(k.value(&zns::INVALID_OPCODE), 5);
    assert_eq!(dev.last_append_lba(), None);
}

#[test]
fn a_zoned_drive_refuses_a_write_buffer() {
    let mut c = config(64, 4);
    c.buffer.name = BufferKind::Lru;
    c.buffer.size = Some(Size(16 * PAGE));
    let e = Device::new(&c).err().expect("refused");
    assert!(e.to_string().contains("write buffer"), "{e}");
}

#[test]
fn zone_operations_from_an_ascii_trace_run_end_to_end_and_are_reported() {
    // The default preset's zone: one 1 MiB block on each of 32 dies, 32 MiB = 65536
    // sectors, 8192 pages.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let trace = dir.path().join("z.ascii");
    std::fs::write(
        &trace,
        "0 0 0 64 0\n\
         1000 0 0 64 ZA\n\
         2000 0 0 0 ZF\n\
         3000 0 0 0 ZR\n\
         4000 0 65536 0 ZO\n\
         5000 0 65536 0 ZC\n\
         6000 0 8 8 0\n",
    )
    .expect("trace written");
    let trace = trace.display().to_string();
    let o = common::ssdlab(&[
        "run",
        "--ftl",
        "zoned",
        "--buffer",
        "none",
        "--capacity",
        "256MiB",
        "--trace",
        &trace,
        "--format",
        "ascii",
        "--json",
        "-",
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON report");
    let k = |key: &str| {
        r["counters"][key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key} in {}", r["counters"]))
    };
    assert_eq!(k("host.requests"), 7);
    // The append is a write request beside the two writes.
    assert_eq!(r["phases"][0]["write_requests"].as_u64(), Some(3));
    assert_eq!(k("zns.appends"), 1);
    assert_eq!(k("zns.finishes"), 1);
    assert_eq!(k("zns.finish_pad_blocks"), 8192 - 16);
    assert_eq!(k("zns.resets"), 1);
    assert_eq!(k("zns.reset_erased_blocks"), 32);
    assert_eq!(k("zns.errors.invalid_write"), 1);
    assert_eq!(k("zns.opens"), 2);
    assert_eq!(r["host_write_pages"].as_u64(), Some(16));
    assert_eq!(r["nand_program_pages"].as_u64(), Some(8192));
    assert_eq!(r["write_amplification"].as_f64(), Some(512.0));
}

/// Report Zones in the JSON report: one descriptor per zone (start, capacity, write
/// pointer in logical blocks, state by the specification's abbreviation), after a trace
/// that leaves zones open, full and empty; a conventional drive's report has no `zones`.
#[test]
fn the_json_report_lists_every_zone_as_report_zones_returns_it() {
    // The default preset's zone: 8192 pages (one 1 MiB block on each of 32 dies).
    let dir = tempfile::tempdir().expect("a temporary directory");
    let trace = dir.path().join("z.ascii");
    std::fs::write(
        &trace,
        "0 0 0 64 0\n\
         1000 0 65536 64 ZA\n\
         2000 0 131072 0 ZF\n\
         3000 0 196608 0 ZO\n",
    )
    .expect("trace written");
    let trace = trace.display().to_string();
    let run = |ftl: &str| {
        let o = common::ssdlab(&[
            "run",
            "--ftl",
            ftl,
            "--buffer",
            "none",
            "--capacity",
            "256MiB",
            "--trace",
            &trace,
            "--format",
            "ascii",
            "--json",
            "-",
        ]);
        assert!(o.status.success(), "{}", common::stderr(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).expect("JSON report")
    };
    let r = run("zoned");
    let zones = r["zones"].as_array().expect("a zones list");
    assert_eq!(zones.len(), 8, "{}", r["zones"]);
    let zone = |i: usize| {
        let z = &zones[i];
        (
            z["start_lba"].as_u64().unwrap(),
            z["capacity_blocks"].as_u64().unwrap(),
            z["write_pointer_lba"].as_u64().unwrap(),
            z["state"].as_str().unwrap().to_string(),
        )
    };
    let zs = 8192;
    assert_eq!(zone(0), (0, zs, 8, "ZSIO".into()));
    assert_eq!(zone(1), (zs, zs, zs + 8, "ZSIO".into()));
    assert_eq!(zone(2), (2 * zs, zs, 3 * zs, "ZSF".into()));
    assert_eq!(zone(3), (3 * zs, zs, 3 * zs, "ZSEO".into()));
    for i in 4..8 {
        assert_eq!(zone(i), (i as u64 * zs, zs, i as u64 * zs, "ZSE".into()));
    }
    // The page FTL refuses the zone commands and reports no zones.
    let r = run("page");
    assert!(r.get("zones").is_none(), "{}", r["zones"]);
}

/// Report Zones mid-run (the ascii layout's `ZQ0`–`ZQ7`, the filter's ZRASF value):
/// each command answers with the zones as they are when it is performed, filtered by
/// state from its starting zone, and is counted; the report's `zone_reports` lists the
/// answers in order. A conventional drive refuses the command (Invalid Command Opcode)
/// and reports none.
#[test]
fn report_zones_mid_run_answers_with_the_states_of_that_moment() {
    // The default preset's zone: 8192 pages (65536 sectors), 8 zones in 256 MiB.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let trace = dir.path().join("q.ascii");
    std::fs::write(
        &trace,
        "0 0 0 0 ZQ1\n\
         1000 0 0 64 0\n\
         2000 0 0 0 ZQ1\n\
         3000 0 131072 0 ZF\n\
         4000 0 0 0 ZQ5\n\
         5000 0 65536 0 ZQ0\n\
         6000 0 8 0 ZQ2\n",
    )
    .expect("trace written");
    let trace = trace.display().to_string();
    let run = |ftl: &str| {
        let o = common::ssdlab(&[
            "run",
            "--ftl",
            ftl,
            "--buffer",
            "none",
            "--capacity",
            "256MiB",
            "--trace",
            &trace,
            "--format",
            "ascii",
            "--json",
            "-",
        ]);
        assert!(o.status.success(), "{}", common::stderr(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).expect("JSON report")
    };
    let r = run("zoned");
    let zs = 8192u64;
    // A descriptor as (start, write pointer, state); an answer as (filter, start LBA,
    // zones matching, descriptors).
    type Zone = (u64, u64, String);
    let got: Vec<(String, u64, u64, Vec<Zone>)> = r["zone_reports"]
        .as_array()
        .expect("a zone_reports list")
        .iter()
        .map(|c| {
            (
                c["filter"].as_str().unwrap().to_string(),
                c["start_lba"].as_u64().unwrap(),
                c["zones_matching"].as_u64().unwrap(),
                c["zones"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|z| {
                        (
                            z["start_lba"].as_u64().unwrap(),
                            z["write_pointer_lba"].as_u64().unwrap(),
                            z["state"].as_str().unwrap().to_string(),
                        )
                    })
                    .collect(),
            )
        })
        .collect();
    let empty_from = |first: u64| -> Vec<Zone> {
        (first..8)
            .map(|i| (i * zs, i * zs, "ZSE".to_string()))
            .collect()
    };
    let mut all_from_1 = vec![
        (zs, zs, "ZSE".to_string()),
        (2 * zs, 3 * zs, "ZSF".to_string()),
    ];
    all_from_1.extend(empty_from(3));
    assert_eq!(
        got,
        vec![
            ("empty".to_string(), 0, 8, empty_from(0)),
            // After the write, zone 0 is implicitly opened: no longer empty.
            ("empty".to_string(), 0, 7, empty_from(1)),
            (
                "full".to_string(),
                0,
                1,
                vec![(2 * zs, 3 * zs, "ZSF".to_string())]
            ),
            ("all".to_string(), zs, 7, all_from_1),
            // Its starting LBA is inside zone 0: the report starts at that zone.
            (
                "implicitly-opened".to_string(),
                1,
                1,
                vec![(0, 8, "ZSIO".to_string())]
            ),
        ],
        "{}",
        r["zone_reports"]
    );
    assert_eq!(r["counters"]["zns.report_zones"], 5, "{}", r["counters"]);
    assert_eq!(r["counters"]["host.requests"], 7, "{}", r["counters"]);
    let r = run("page");
    assert!(r.get("zone_reports").is_none(), "{}", r["zone_reports"]);
    assert_eq!(
        r["counters"]["zns.errors.invalid_opcode"], 6,
        "{}",
        r["counters"]
    );
}

#[test]
fn a_drive_too_small_for_one_zone_is_refused_with_the_capacity_that_fits() {
    // The default preset's smallest zone is one 1 MiB block on each of 32 dies.
    let o = common::ssdlab(&[
        "run",
        "--ftl",
        "zoned",
        "--buffer",
        "none",
        "--capacity",
        "7MiB",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("zones of the configured shape do not fit") && e.contains("needs a capacity"),
        "{e}"
    );
    assert!(!e.contains(&u64::MAX.to_string()), "{e}");
}

/// NBD cannot carry zone commands or statuses: serving a zoned drive is refused before
/// anything listens (a refused write would otherwise be acknowledged to the client).
#[test]
fn a_zoned_drive_is_not_served_over_nbd() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sock = dir.path().join("z.sock");
    let o = common::ssdlab(&[
        "serve",
        "--ftl",
        "zoned",
        "--buffer",
        "none",
        "--socket",
        sock.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("cannot be served over NBD"),
        "{}",
        common::stderr(&o)
    );
    assert!(!sock.exists());
}
