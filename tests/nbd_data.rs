//! Page payloads through every FTL and buffer policy: random writes (whole and partial
//! pages), trims and reads on a small device, enough to make GC, merges and folds move
//! data many times; every read is compared with a byte-exact model of the device. An
//! FTL or buffer that loses, misplaces or tears data fails here, not only in a counter.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab::buffer::BufferKind;
use ssdlab::config::{Config, TimingMode};
use ssdlab::ftl::FtlKind;
use ssdlab::nand::FlashData;
use ssdlab::sim::Device;
use ssdlab::units::Size;
use ssdlab::workload::{IoRequest, OpKind};

fn design(ftl: FtlKind, buffer: BufferKind) -> ssdlab::config::Design {
    let mut c = Config::default();
    c.device.capacity = Size(8 << 20);
    c.device.channels = 2;
    c.device.chips_per_channel = 1;
    c.device.dies_per_chip = 1;
    c.device.planes_per_die = 1;
    c.device.pages_per_block = Some(64);
    c.device.op_percent = 30.0;
    c.device.track_write_seq = Some(true);
    c.timing.mode = TimingMode::Count;
    c.ftl.name = ftl;
    c.buffer.name = buffer;
    if buffer != BufferKind::None {
        c.buffer.size = Some(Size(256 << 10));
    }
    c.validate()
        .unwrap_or_else(|e| panic!("{ftl:?}+{buffer:?}: {e}"))
}

fn check(ftl: FtlKind, buffer: BufferKind, seed: u64) {
    let d = design(ftl, buffer);
    let mut dev = Device::build(&d).unwrap();
    dev.nand
        .attach_data(FlashData::in_memory(dev.nand.geometry()));
    let cap = dev.capacity_bytes();
    let mut model = vec![0u8; cap as usize];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut t = 0;
    let mut buf = Vec::new();
    // About five device capacities of writes.
    let mut written = 0u64;
    while written < 5 * cap {
        t += 1000;
        let roll = rng.gen_range(0..100);
        // Sector-aligned ranges, often page-aligned, up to 16 pages.
        let len = if rng.gen_bool(0.7) {
            rng.gen_range(1..=16u64) * 4096
        } else {
            rng.gen_range(1..=40u64) * 512
        };
        let off = if len % 4096 == 0 && rng.gen_bool(0.8) {
            rng.gen_range(0..=(cap - len) / 4096) * 4096
        } else {
            rng.gen_range(0..=(cap - len) / 512) * 512
        };
        let (o, l) = (off as usize, len as usize);
        if roll < 70 {
            buf.resize(l, 0);
            rng.fill(&mut buf[..]);
            dev.write_data(off, &buf, t)
                .unwrap_or_else(|e| panic!("{ftl:?}+{buffer:?} seed {seed}: {e}"));
            model[o..o + l].copy_from_slice(&buf);
            written += len;
        } else if roll < 78 {
            let req = IoRequest::new(OpKind::Trim, off, len).at(t);
            dev.submit(&req, t).unwrap();
            // Only whole pages are discarded: they read zeros; the rest is unchanged.
            let first = off.div_ceil(4096) * 4096;
            let end = (off + len) / 4096 * 4096;
            if end > first {
                model[first as usize..end as usize].fill(0);
            }
        } else if roll < 80 {
            let req = IoRequest::new(OpKind::Flush, 0, 0).at(t);
            dev.submit(&req, t).unwrap();
        } else {
            buf.resize(l, 0);
            dev.read_data(off, &mut buf, t).unwrap();
            assert!(
                buf[..] == model[o..o + l],
                "{ftl:?}+{buffer:?} seed {seed}: read at {off} of {len} bytes differs"
            );
        }
    }
    dev.flush_buffer(t).unwrap();
    dev.ftl.check_invariants(&dev.nand);
    // The whole device, after the buffer's write-back.
    let mut all = vec![0u8; cap as usize];
    for (i, chunk) in all.chunks_mut(1 << 20).enumerate() {
        dev.read_data(i as u64 * (1 << 20), chunk, t).unwrap();
    }
    assert!(
        all == model,
        "{ftl:?}+{buffer:?} seed {seed}: final contents differ"
    );
    let c = dev.nand.counters();
    assert!(
        c.total_erases() > 0,
        "{ftl:?}+{buffer:?}: no block was ever erased, so GC never moved data"
    );
}

#[test]
fn every_ftl_and_buffer_returns_the_bytes_written_through_gc() {
    let seed = std::env::var("SSDLAB_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    // A zoned drive takes no write buffer and no random writes (tests/zoned.rs).
    for &(ftl, _, _) in FtlKind::all().iter().filter(|(k, _, _)| !k.is_zoned()) {
        for buffer in [BufferKind::None, BufferKind::Lru, BufferKind::Bplru] {
            eprintln!("{ftl:?} + {buffer:?}, seed {seed}");
            check(ftl, buffer, seed);
        }
    }
}
