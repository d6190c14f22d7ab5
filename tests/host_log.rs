//! The MFT-style host log (src/host_log.rs) against a reference model: a flat byte array
//! of the host's address space. Every read through the layer must return the bytes of
//! the last write through it, across partial-block merges, trims, flushes and many
//! rounds of cleaning, on a device that carries real payloads; and the layer's maps must
//! stay consistent. Plus the layer's effect on a by-address SSD, and its config errors.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab::config::{Config, TimingMode};
use ssdlab::host_log::{HostLog, HostLogConfig, HostLogKind};
use ssdlab::nand::FlashData;
use ssdlab::sim::{Device, RunOptions, run};
use ssdlab::units::Size;
use ssdlab::workload::synth::SynthKind;

fn small_device(timing: TimingMode) -> Config {
    let mut c = Config::default();
    c.device.capacity = Size(32 << 20);
    c.device.channels = 2;
    c.device.chips_per_channel = 1;
    c.device.dies_per_chip = 1;
    c.device.planes_per_die = 1;
    c.device.op_percent = 15.0;
    c.device.host_link_mb_s = 0.0;
    c.timing.mode = timing;
    c
}

fn log_cfg(segment: u64, free_percent: f64) -> HostLogConfig {
    HostLogConfig {
        name: HostLogKind::Mft,
        segment: Size(segment),
        free_percent,
        ..HostLogConfig::default()
    }
}

fn reads_return_the_last_write(seed: u64, timing: TimingMode) {
    let c = small_device(timing);
    let design = c.validate_device().unwrap();
    let mut dev = Device::build(&design).unwrap();
    dev.nand
        .attach_data(FlashData::in_memory(dev.nand.geometry()));
    let lc = log_cfg(64 << 10, 25.0);
    let shape = lc
        .shape(dev.capacity_bytes(), dev.page_bytes())
        .unwrap()
        .unwrap();
    let mut log = HostLog::new(&lc, shape, 1, true);
    let cap = log.capacity_bytes();
    let mut model = vec![0u8; cap as usize];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut t = 0u64;
    // Writes go to the first half of the space mostly, so some blocks are rewritten
    // many times and others are cold: segments mix live and dead blocks and the
    // cleaner moves live data many times.
    let ops = 6000;
    for i in 0..ops {
        t += 5_000;
        let hot = rng.gen_bool(0.8);
        let limit = if hot { cap / 2 } else { cap };
        let size = 512 * rng.gen_range(1..=48u64);
        let offset = 512 * rng.gen_range(0..(limit - size) / 512);
        let range = offset as usize..(offset + size) as usize;
        match rng.gen_range(0..100) {
            0..=59 => {
                let data: Vec<u8> = (0..size).map(|_| rng.r#gen()).collect();
                model[range].copy_from_slice(&data);
                t = log.write(&mut dev, offset, size, Some(&data), t).unwrap();
            }
            60..=93 => {
                let mut out = vec![0u8; size as usize];
                log.read(&mut dev, offset, size, Some(&mut out), t).unwrap();
                assert!(
                    out == model[range.clone()],
                    "seed {seed}, op {i}: read of {size} bytes at {offset} differs from the last write"
                );
            }
            94..=97 => {
                // Only whole blocks are forgotten; a later read of them returns zeros.
                log.trim(offset, size, t);
                let b = 4096u64;
                let (lo, hi) = (offset.div_ceil(b) * b, (offset + size) / b * b);
                if hi > lo {
                    model[lo as usize..hi as usize].fill(0);
                }
            }
            _ => {
                t = log.flush(&mut dev, t).unwrap();
            }
        }
        if i % 500 == 0 {
            log.check_invariants();
        }
    }
    log.check_invariants();
    let s = log.stats();
    assert!(
        s.cleaned_segments > 20 && s.cleaned_blocks > 100,
        "seed {seed}: the test must exercise cleaning: {s:?}"
    );
    // Every byte, after all that cleaning.
    let mut out = vec![0u8; cap as usize];
    log.read(&mut dev, 0, cap, Some(&mut out), t).unwrap();
    let first_bad = out.iter().zip(&model).position(|(a, b)| a != b);
    assert_eq!(first_bad, None, "seed {seed}: final image differs");
}

#[test]
fn reads_return_the_last_write_through_the_layer_across_cleaning() {
    for seed in [1, 2] {
        reads_return_the_last_write(seed, TimingMode::Count);
    }
    reads_return_the_last_write(3, TimingMode::Full);
}

fn random_write_iops(host_log: HostLogKind) -> (f64, Vec<String>) {
    let mut c = Config::load(Some("ssd-b"), None).unwrap();
    c.device.capacity = Size(256 << 20);
    c.precondition = ssdlab::config::Precondition::Steady;
    c.workload.kind = SynthKind::RandomWrite;
    c.workload.requests = Some(3000);
    c.host.qd = 1;
    c.host_log.name = host_log;
    let out = run(&c, RunOptions::default()).unwrap();
    (out.report.iops, out.report.notes)
}

#[test]
fn the_log_turns_random_writes_sequential_on_a_by_address_ssd() {
    // SSD B rewrites its 1 MiB management block for every small write; behind the log
    // it sees only whole 1 MiB segments, so 4 KiB random writes run far faster even
    // though the log's cleaner copies live blocks.
    let (without, _) = random_write_iops(HostLogKind::None);
    let (with, notes) = random_write_iops(HostLogKind::Mft);
    assert!(
        with > 10.0 * without,
        "MFT {with} IOPS vs {without} without"
    );
    let note = notes.iter().find(|n| n.starts_with("host log")).unwrap();
    assert!(note.contains("moved by the cleaner"), "{note}");
    assert!(
        !note.contains(" 0 moved by the cleaner"),
        "steady state cleans: {note}"
    );
}

#[test]
fn bad_host_log_settings_are_refused_naming_the_key() {
    let key = |f: &dyn Fn(&mut Config)| {
        let mut c = small_device(TimingMode::Count);
        c.host_log.name = HostLogKind::Mft;
        f(&mut c);
        c.validate()
            .expect_err("must be refused")
            .key()
            .map(str::to_string)
    };
    assert_eq!(
        key(&|c| c.host_log.segment = Size(6000)),
        Some("host_log.segment".into())
    );
    assert_eq!(
        key(&|c| c.host_log.block = Size(1000)),
        Some("host_log.block".into())
    );
    assert_eq!(
        key(&|c| c.host_log.free_percent = 0.5),
        Some("host_log.free_percent".into())
    );
    assert_eq!(
        key(&|c| c.host_log.buffer_segments = 0),
        Some("host_log.buffer_segments".into())
    );
    assert_eq!(
        key(&|c| {
            c.host_log.name = HostLogKind::None;
            c.host_log.free_percent = 30.0;
        }),
        Some("host_log.name".into())
    );
}

#[test]
fn host_log_space_confines_the_log_to_the_start_of_the_drive() {
    // A 32 MiB device, 1 MiB segments: by default the log spans all 32 segments; with
    // host_log.space = 16 MiB it manages 16 (the first 16 MiB of the SSD), and the host
    // sees half of those, so utilisation is live data / space, not / the whole drive.
    let mut c = small_device(TimingMode::Count);
    c.host_log = log_cfg(1 << 20, 50.0);
    let whole = c.validate().unwrap().host_log.unwrap();
    assert_eq!(whole.segments, 32);
    c.host_log.space = Size(16 << 20);
    let part = c.validate().unwrap().host_log.unwrap();
    assert_eq!((part.segments, part.host_segments), (16, 8));
    // A partial segment is not used.
    c.host_log.space = Size((16 << 20) + 4096);
    assert_eq!(c.validate().unwrap().host_log.unwrap().segments, 16);
    // More than the device: refused, naming the key.
    c.host_log.space = Size(64 << 20);
    assert_eq!(
        c.validate().expect_err("too large").key(),
        Some("host_log.space")
    );
    // A run through a confined log writes only inside its space.
    c.host_log.space = Size(16 << 20);
    c.precondition = ssdlab::config::Precondition::None;
    c.workload.kind = SynthKind::RandomWrite;
    c.workload.span = Some(Size(4 << 20));
    c.workload.requests = Some(4000);
    c.host.qd = 1;
    let out = run(&c, RunOptions::default()).unwrap();
    let note = out
        .report
        .notes
        .iter()
        .find(|n| n.starts_with("host log"))
        .unwrap();
    assert!(note.contains("over 16 segments of 1MiB"), "{note}");
    // 4000 × 4 KiB (15.6 MiB) over a 4 MiB span in 16 MiB: the log must clean.
    assert!(!note.contains("(0 segments cleaned"), "{note}");
}
