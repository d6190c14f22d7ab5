//! Cache control table lookups (docs/papers.md §5): the paper's linear list, its AVL tree,
//! and the B+-tree, at 1 K, 100 K and 1 M records. Target: a lookup at 1 M records in
//! at most 200 ns.
//!
//! Records are one to eight 4 KiB units long, spaced with gaps, inserted in random order
//! (a cache fills in the order data is read). `reference/sorted-array` is a binary search
//! over a plain sorted array of the same starts (8 B per record, no inserts possible): a
//! floor for any comparison-based search on the machine at hand, to read the tables'
//! figures against when the machine is shared. Two lookup patterns:
//! - `random`: hits at uniformly random records (no hint) — the worst case for caches;
//! - `sequential-hint`: every record in address order through the last-read hint.
//!
//! Run with `cargo bench --bench cache_table`; criterion's "thrpt" is lookups per second
//! (one element = one lookup), its time per iteration covers `BATCH` lookups (256 for
//! the list, whose lookups at 1 M records take milliseconds).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ssdlab::hybrid::table::{CacheTable, Record, TableKind, find_hinted};
use std::hint::black_box;
use std::time::Duration;

const BATCH: usize = 4096;
const LIST_BATCH: usize = 256;

/// xorshift64: cheap and reproducible.
fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Records 0..n (record i at unit 16·i, length 1–8) in random insertion order.
fn build(kind: TableKind, n: u64) -> Box<dyn CacheTable> {
    let mut order: Vec<u64> = (0..n).collect();
    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ n;
    for i in (1..order.len()).rev() {
        order.swap(i, (next(&mut x) % (i as u64 + 1)) as usize);
    }
    let mut t = kind.build();
    for i in order {
        t.insert(Record {
            start: 16 * i,
            len: 1 + (i % 8) as u32,
            value: i as u32,
        });
    }
    t
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("cache_table");
    group.sample_size(20);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    for n in [1_000u64, 100_000, 1_000_000] {
        for (kind, name, _) in TableKind::all() {
            // The list at 1 M records takes ~1 ms per lookup: fewer samples suffice.
            if *kind == TableKind::List && n >= 1_000_000 {
                group.sample_size(10);
            }
            let batch = if *kind == TableKind::List {
                LIST_BATCH
            } else {
                BATCH
            };
            group.throughput(Throughput::Elements(batch as u64));
            let t = build(*kind, n);
            let mut x = 12345u64;
            let keys: Vec<u64> = (0..batch).map(|_| 16 * (next(&mut x) % n)).collect();
            group.bench_with_input(BenchmarkId::new(format!("{name}/random"), n), &n, |b, _| {
                b.iter(|| {
                    let mut cmp = 0u64;
                    let mut found = 0u64;
                    for &k in &keys {
                        found += t
                            .find(black_box(k), &mut cmp)
                            .map_or(0, |(_, r)| r.len as u64);
                    }
                    black_box((found, cmp))
                })
            });
            let mut pos = 0u64;
            let mut hint = None;
            group.bench_with_input(
                BenchmarkId::new(format!("{name}/sequential-hint"), n),
                &n,
                |b, _| {
                    b.iter(|| {
                        let mut cmp = 0u64;
                        for _ in 0..batch {
                            let (r, _) = find_hinted(t.as_ref(), 16 * pos, &mut hint, &mut cmp);
                            black_box(r);
                            pos = (pos + 1) % n;
                        }
                        black_box(cmp)
                    })
                },
            );
            group.sample_size(20);
        }
        let sorted: Vec<u64> = (0..n).map(|i| 16 * i).collect();
        let mut x = 12345u64;
        let keys: Vec<u64> = (0..BATCH).map(|_| 16 * (next(&mut x) % n)).collect();
        group.throughput(Throughput::Elements(BATCH as u64));
        group.bench_with_input(BenchmarkId::new("reference/sorted-array", n), &n, |b, _| {
            b.iter(|| {
                let mut found = 0u64;
                for &k in &keys {
                    let i = sorted.partition_point(|&s| s <= black_box(k));
                    found += sorted[i - 1];
                }
                black_box(found)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
