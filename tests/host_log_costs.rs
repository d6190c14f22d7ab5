//! What the MFT-style host log (src/host_log.rs) costs the host: every host block it
//! appends is a host memory copy (host_log.memcpy_mb_s), so a write's latency is never
//! below the copy of its bytes; and every segment it writes out reaches the SSD as a
//! host write, so the device's own counters see the log's bytes.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab::config::{Config, TimingMode};
use ssdlab::host_log::{HostLog, HostLogConfig, HostLogKind};
use ssdlab::sim::{Device, RunOptions, run};
use ssdlab::units::Size;
use ssdlab::workload::synth::SynthKind;

fn small_device() -> Config {
    let mut c = Config::default();
    c.device.capacity = Size(32 << 20);
    c.device.channels = 2;
    c.device.chips_per_channel = 1;
    c.device.dies_per_chip = 1;
    c.device.planes_per_die = 1;
    c.device.op_percent = 15.0;
    c.device.host_link_mb_s = 0.0;
    c.timing.mode = TimingMode::Full;
    c
}

fn mft() -> HostLogConfig {
    HostLogConfig {
        name: HostLogKind::Mft,
        segment: Size(256 << 10),
        free_percent: 25.0,
        ..HostLogConfig::default()
    }
}

#[test]
fn mft_write_latency_includes_the_host_memory_copy() {
    // 4 KiB random writes at queue depth 1: most complete in host RAM, but none before
    // the host has copied its 4 KiB into the log's segment.
    let mut c = small_device();
    c.host_log = mft();
    c.workload.kind = SynthKind::RandomWrite;
    c.workload.size = Size(4096);
    c.workload.requests = Some(4000);
    c.host.qd = 1;
    let r = run(&c, RunOptions::default()).unwrap().report;
    let copy_ns = 4096.0 * 1e3 / c.host_log.memcpy_mb_s;
    assert!(
        r.write_latency_ns.p50 as f64 >= copy_ns.floor(),
        "write p50 {} ns below the {copy_ns} ns copy of 4 KiB in host memory",
        r.write_latency_ns.p50
    );
}

#[test]
fn mft_segment_writes_reach_the_device_as_host_writes() {
    // Random partial and whole-block writes with cleaning; after a flush the device has
    // received, as host writes, exactly the bytes of every block the log appended.
    let c = small_device();
    let design = c.validate_device().unwrap();
    let mut dev = Device::build(&design).unwrap();
    let lc = mft();
    let shape = lc
        .shape(dev.capacity_bytes(), dev.page_bytes())
        .unwrap()
        .unwrap();
    let mut log = HostLog::new(&lc, shape, 1, false);
    let cap = log.capacity_bytes();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut t = 0;
    for _ in 0..20_000 {
        let size = 4096 * rng.gen_range(1..=4u64);
        let offset = 4096 * rng.gen_range(0..(cap / 2 - size) / 4096);
        t = log.write(&mut dev, offset, size, None, t).unwrap();
    }
    t = log.flush(&mut dev, t).unwrap();
    assert!(t > 0);
    let s = log.stats();
    assert!(s.cleaned_blocks > 0, "the cleaner ran: {s:?}");
    let appended = (s.host_blocks + s.cleaned_blocks) * shape.block_bytes;
    assert_eq!(s.device_write_bytes, appended, "{s:?}");
    assert_eq!(
        dev.host.write_bytes, appended,
        "the device's host-write counter"
    );
    assert!(dev.nand.counters().total_programs() * dev.page_bytes() >= appended);
}

#[test]
fn a_host_memcpy_rate_that_is_not_positive_is_refused() {
    let mut c = small_device();
    c.host_log = mft();
    c.host_log.memcpy_mb_s = 0.0;
    let e = c.validate().expect_err("must be refused");
    assert_eq!(e.key(), Some("host_log.memcpy_mb_s"));
}
