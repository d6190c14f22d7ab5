//! Latency summaries and CDF points from an HDR histogram.

use ssdlab::report::latency::{MAX_CDF_POINTS, cdf_points, new_latency_histogram, summarize};

/// Relative error hdrhistogram allows at 3 significant digits (value-equivalent ranges
/// are at most 1/1024 of the value wide at that precision).
fn close(actual: u64, expected: u64) -> bool {
    (actual as f64 - expected as f64).abs() <= expected as f64 / 1000.0 + 1.0
}

#[test]
fn summarize_one_to_thousand_microseconds() {
    let mut h = new_latency_histogram();
    for us in 1..=1000u64 {
        h.record(us * 1000).unwrap();
    }
    let s = summarize(&h);
    assert_eq!(s.count, 1000);
    assert!(
        (s.mean - 500_500.0).abs() / 500_500.0 < 1e-3,
        "mean {}",
        s.mean
    );
    assert!(close(s.p50, 500_000), "p50 {}", s.p50);
    assert!(close(s.p99, 990_000), "p99 {}", s.p99);
    assert!(close(s.p999, 999_000), "p999 {}", s.p999);
    assert!(close(s.max, 1_000_000), "max {}", s.max);
}

#[test]
fn cdf_of_small_histogram_is_every_step() {
    let mut h = new_latency_histogram();
    for v in [100u64, 100, 200, 400] {
        h.record(v).unwrap();
    }
    assert_eq!(
        cdf_points(&h),
        vec![(100.0, 0.5), (200.0, 0.75), (400.0, 1.0)]
    );
}

#[test]
fn cdf_of_large_histogram_is_bounded_deterministic_and_reaches_tail() {
    let mut h = new_latency_histogram();
    // A bimodal distribution: fast reads and a GC-delayed tail.
    for i in 0..1_000_000u64 {
        let v = if i % 100 == 0 {
            2_000_000 + (i * 31) % 8_000_000
        } else {
            40_000 + (i * 17) % 60_000
        };
        h.record(v).unwrap();
    }
    let a = cdf_points(&h);
    assert!(a.len() <= MAX_CDF_POINTS, "{}", a.len());
    assert_eq!(a, cdf_points(&h.clone()));
    assert!(a.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
    assert_eq!(a.last().unwrap().1, 1.0);
    // The tail is sampled finely: several points above the 99th percentile.
    assert!(a.iter().filter(|p| p.1 > 0.99).count() >= 10);
}
