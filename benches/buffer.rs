//! Cost of the write-buffer policies per host page operation, behind BENCHMARKS.md.
//! Run: `cargo bench --bench buffer` (target: LRU and QLRU ≤ 100 ns per page operation
//! on a 512 MiB buffer of 4 KiB pages).
//!
//! Each policy starts full (steady state: every miss evicts) and then takes uniform random
//! page writes over twice its capacity, so about half the writes hit. The QLRU rows also
//! run the NCQ hooks: each page write is a one-page command queued `qd` commands before
//! it is dispatched, so the queue always holds `qd` future references. As in the
//! simulator, which passes the next waiting command's first page to
//! `WriteBuffer::prefetch` when it dispatches one, each operation prefetches the next
//! page's lookup.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab::buffer::{BufferConfig, BufferKind, BufferShape, Evictions, build_buffer};
use ssdlab::nand::Lpn;
use std::hint::black_box;

const BUFFER_BYTES: u64 = 512 << 20;
const PAGE_BYTES: u64 = 4096;
const OPS: usize = 1 << 20;

fn stream(span: u32) -> Vec<u32> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    (0..OPS).map(|_| rng.gen_range(0..span)).collect()
}

fn policies(c: &mut Criterion) {
    let capacity_pages = (BUFFER_BYTES / PAGE_BYTES) as u32;
    let span = capacity_pages * 2;
    let shape = BufferShape {
        capacity_pages,
        block_pages: 256,
        logical_pages: 1 << 26,
    };
    let lpns = stream(span);
    let mut g = c.benchmark_group("buffer_512MiB_random_writes_over_2x");
    g.throughput(Throughput::Elements(OPS as u64));
    g.sample_size(10);
    for kind in BufferKind::policies() {
        let cfg = BufferConfig {
            name: kind,
            ..BufferConfig::default()
        };
        let mut b = build_buffer(&cfg, shape).unwrap();
        let mut out = Evictions::default();
        out.pages.reserve(1024);
        for l in 0..capacity_pages {
            out.clear();
            b.write(Lpn(l * 2), &mut out);
        }
        g.bench_function(BenchmarkId::new(kind.name(), "write"), |bench| {
            bench.iter(|| {
                let mut hits = 0u32;
                for i in 0..OPS {
                    b.prefetch(Lpn(lpns[(i + 1) % OPS]));
                    out.clear();
                    hits += b.write(Lpn(lpns[i]), &mut out) as u32;
                }
                black_box(hits)
            })
        });
    }
    for qd in [32usize, 512] {
        let cfg = BufferConfig {
            name: BufferKind::Qlru,
            ..BufferConfig::default()
        };
        let mut b = build_buffer(&cfg, shape).unwrap();
        let mut out = Evictions::default();
        for l in 0..capacity_pages {
            out.clear();
            b.write(Lpn(l * 2), &mut out);
        }
        // Prime the queue with the first `qd` commands.
        for &l in &lpns[..qd] {
            b.queued(Lpn(l), 1);
        }
        g.bench_function(BenchmarkId::new("qlru+ncq", format!("qd{qd}")), |bench| {
            bench.iter(|| {
                let mut hits = 0u32;
                for i in 0..OPS {
                    // Command i is dispatched and writes its page; command i + qd arrives.
                    let l = lpns[i];
                    b.dispatched(Lpn(l), 1);
                    b.prefetch(Lpn(lpns[(i + 1) % OPS]));
                    out.clear();
                    hits += b.write(Lpn(l), &mut out) as u32;
                    b.queued(Lpn(lpns[(i + qd) % OPS]), 1);
                }
                black_box(hits)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, policies);
criterion_main!(benches);
