//! No allocation per operation: after a warm-up, a long stream of page writes, reads,
//! trims and NCQ hooks through every write-buffer policy — and through the simulator's
//! buffered command path (queue, dispatch, write-back through the FTL) — allocates
//! nothing. A counting global allocator (this test binary only) checks it.

use ssdlab::buffer::{BufferConfig, BufferKind, BufferShape, Evictions, build_buffer};
use ssdlab::config::{Config, TimingMode};
use ssdlab::nand::Lpn;
use ssdlab::sim::Device;
use ssdlab::units::Size;
use ssdlab::workload::{IoRequest, OpKind};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

// Per thread: the test harness runs tests on parallel threads.
thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    if COUNTING.with(Cell::get) {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
    }
}

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by `f`.
fn allocations(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get) - before
}

/// A deterministic page stream with a hot set (hits) and a wide cold range (misses).
fn lpn(i: u64) -> u32 {
    let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    if x.is_multiple_of(3) {
        (x % 64) as u32
    } else {
        (x % 20_000) as u32
    }
}

#[test]
fn policies_allocate_nothing_per_operation() {
    let shape = BufferShape {
        capacity_pages: 4096,
        block_pages: 64,
        logical_pages: 1 << 20,
    };
    for kind in BufferKind::policies() {
        let cfg = BufferConfig {
            name: kind,
            ..BufferConfig::default()
        };
        let mut b = build_buffer(&cfg, shape).unwrap();
        let mut out = Evictions::default();
        out.pages.reserve(256);
        let mut step = |b: &mut Box<dyn ssdlab::buffer::WriteBuffer>, i: u64| {
            let l = lpn(i);
            // A queue of 32 one-page commands ahead of the write.
            b.queued(Lpn(lpn(i + 32)), 1);
            b.dispatched(Lpn(l), 1);
            out.clear();
            b.write(Lpn(l), &mut out);
            b.read(Lpn(lpn(i ^ 5)));
            if i.is_multiple_of(97) {
                b.remove(Lpn(lpn(i + 7)));
            }
        };
        for i in 0..32 {
            b.queued(Lpn(lpn(i)), 1);
        }
        // Warm-up: fill the buffer, grow the reference map, run ghost lists full.
        for i in 0..50_000 {
            step(&mut b, i);
        }
        let n = allocations(|| {
            for i in 50_000..150_000 {
                step(&mut b, i);
            }
        });
        assert_eq!(
            n,
            0,
            "{} allocated {n} times in 100k operations",
            kind.name()
        );
    }
}

#[test]
fn the_buffered_command_path_allocates_nothing_per_request() {
    for kind in [BufferKind::Lru, BufferKind::Qlru, BufferKind::Bplru] {
        let mut c = Config::default();
        c.device.capacity = Size(1 << 30);
        c.device.channels = 2;
        c.device.chips_per_channel = 1;
        c.device.dies_per_chip = 1;
        c.device.planes_per_die = 1;
        c.device.op_percent = 15.0;
        // Counting mode: the full model's calendars are the timing layer's business.
        c.timing.mode = TimingMode::Count;
        c.buffer.name = kind;
        c.buffer.size = Some(Size(8 << 20));
        c.host.qd = 32;
        let mut dev = Device::new(&c).unwrap();
        let req = |i: u64| {
            IoRequest::new(
                if i.is_multiple_of(4) {
                    OpKind::Read
                } else {
                    OpKind::Write
                },
                lpn(i) as u64 * 4096,
                4096 * (1 + i % 3),
            )
        };
        let mut t = 0;
        let mut run = |dev: &mut Device, range: std::ops::Range<u64>| {
            for i in range {
                dev.queue(&req(i), t, t).unwrap();
                if dev.queued_commands() >= 32 {
                    t = dev.dispatch().unwrap().unwrap().done_ns;
                }
            }
        };
        run(&mut dev, 0..60_000);
        let n = allocations(|| run(&mut dev, 60_000..120_000));
        assert_eq!(n, 0, "{}: {n} allocations in 60k requests", kind.name());
    }
}
