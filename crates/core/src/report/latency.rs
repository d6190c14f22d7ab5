//! From an HDR latency histogram (nanoseconds) to the report's [`LatencySummary`] and to
//! the points of a latency CDF figure.

use super::LatencySummary;
use hdrhistogram::Histogram;

/// Lowest trackable latency, ns.
const LOWEST_NS: u64 = 1;
/// Highest latency tracked without resizing: 1000 s. `auto` resizing covers outliers
/// beyond that (a stalled simulation), so recording never fails.
const HIGHEST_NS: u64 = 1_000_000_000_000;
/// Three significant digits: 0.1 % value error, the usual trade-off for latency.
const SIGFIG: u8 = 3;

/// Upper bound on the number of points [`cdf_points`] returns.
pub const MAX_CDF_POINTS: usize = 200;

/// An empty latency histogram in nanoseconds: 3 significant digits, 1 ns – 1000 s,
/// growing automatically past 1000 s.
pub fn new_latency_histogram() -> Histogram<u64> {
    // The bounds and precision are constants within hdrhistogram's limits, so creation
    // cannot fail.
    let mut h = Histogram::new_with_bounds(LOWEST_NS, HIGHEST_NS, SIGFIG)
        .expect("constant histogram bounds are valid");
    h.auto(true);
    h
}

/// Count, min, mean, standard deviation, p50/p90/p99/p99.9/p99.99 and max of `h` (ns),
/// with fio's percentile list and latency ranges for `--json-format fio`. An empty
/// histogram gives the default (all-zero) summary rather than hdrhistogram's NaN mean.
///
/// The figures are hdrhistogram's own (`mean`, `stdev`, `value_at_quantile`,
/// `count_between`), computed in one walk over the recorded buckets and one over the
/// counts instead of one walk per figure: its `stdev` walks the buckets twice, and each
/// of the 22 quantiles and 31 ranges walked the counts from the start again (7.7 % of
/// EXP-A1's samples in session 27's profile, where runs are short). Same arithmetic in
/// the same order, so the same values to the bit (tested against the per-figure calls).
pub fn summarize(h: &Histogram<u64>) -> LatencySummary {
    if h.is_empty() {
        return LatencySummary::default();
    }
    let n = h.len() as f64;
    // (highest value of a recorded bucket, its count), in value order.
    let buckets: Vec<(u64, u64)> = h
        .iter_recorded()
        .map(|v| (v.value_iterated_to(), v.count_at_value()))
        .collect();
    // hdrhistogram's `mean` and `stdev` folds.
    let mean = buckets.iter().fold(0.0_f64, |total, &(v, c)| {
        total + h.median_equivalent(v) as f64 * c as f64 / n
    });
    let dev_total = buckets.iter().fold(0.0_f64, |gdt, &(v, c)| {
        let dev = h.median_equivalent(v) as f64 - mean;
        gdt + (dev * dev) * c as f64
    });
    // `count_between(0, upper)` counts the buckets up to `upper`'s: those whose highest
    // value is at most `upper`'s highest equivalent. The bounds ascend.
    let (mut next, mut upto) = (0usize, 0u64);
    let mut below = 0u64;
    let mut fio_ranges: Vec<f64> = super::fio::LATENCY_RANGES_NS
        .iter()
        .map(|&upper| {
            let upto = if upper >= h.max() {
                h.len()
            } else {
                let top = h.highest_equivalent(upper);
                while let Some(&(v, c)) = buckets.get(next)
                    && v <= top
                {
                    upto += c;
                    next += 1;
                }
                upto
            };
            let share = (upto - below) as f64 / n * 100.0;
            below = upto;
            share
        })
        .collect();
    // fio's last millisecond range is ">=2000": whatever lies beyond the others.
    fio_ranges.push((h.len() - below) as f64 / n * 100.0);
    // Every quantile from one walk over the counts (`value_at_quantiles` takes them in
    // ascending order).
    const SUMMARY_QUANTILES: [f64; 5] = [0.5, 0.9, 0.99, 0.999, 0.9999];
    let wanted: Vec<f64> = SUMMARY_QUANTILES
        .iter()
        .copied()
        .chain(super::fio::PERCENTILES.iter().map(|p| p / 100.0))
        .collect();
    let mut order: Vec<usize> = (0..wanted.len()).collect();
    order.sort_by(|&a, &b| wanted[a].total_cmp(&wanted[b]));
    let mut at = vec![0u64; wanted.len()];
    for (&i, v) in order
        .iter()
        .zip(h.value_at_quantiles(order.iter().map(|&i| wanted[i])))
    {
        at[i] = v;
    }
    LatencySummary {
        count: h.len(),
        min: h.min(),
        mean,
        stddev: (dev_total / n).sqrt(),
        p50: at[0],
        p90: at[1],
        p99: at[2],
        p999: at[3],
        p9999: at[4],
        max: h.max(),
        fio_percentiles: at[SUMMARY_QUANTILES.len()..].to_vec(),
        fio_ranges,
    }
}

/// The quantiles at which [`cdf_points`] samples a large histogram: every percent for the
/// body, then 1 − 10^−d for d from 2 to 6 in steps of 0.05 for the tail, which a
/// log-latency CDF is usually read for.
fn target_quantiles() -> Vec<f64> {
    let body = (1..=100).map(|i| f64::from(i) / 100.0);
    let tail = (40..=120).map(|i| 1.0 - 10f64.powf(-f64::from(i) / 20.0));
    let mut q: Vec<f64> = body.chain(tail).collect();
    q.sort_by(f64::total_cmp);
    q
}

/// Points `(latency ns, fraction of requests ≤ latency)` of the empirical CDF of `h`,
/// at most [`MAX_CDF_POINTS`], in increasing latency order; empty for an empty histogram.
///
/// Each point is an exact step of the histogram (a recorded bucket's upper value and the
/// cumulative fraction through it), so the curve never invents values. With few distinct
/// buckets all are returned; otherwise the buckets where the CDF first reaches each of a
/// fixed set of quantiles (percent steps plus log-spaced tail quantiles up to 99.9999 %)
/// are kept, plus the first and the last. The selection depends only on the histogram,
/// so the output is deterministic.
pub fn cdf_points(h: &Histogram<u64>) -> Vec<(f64, f64)> {
    let steps: Vec<(f64, f64)> = h
        .iter_recorded()
        .map(|v| (v.value_iterated_to() as f64, v.quantile_iterated_to()))
        .collect();
    if steps.len() <= MAX_CDF_POINTS {
        return steps;
    }
    let mut keep = vec![false; steps.len()];
    keep[0] = true;
    keep[steps.len() - 1] = true;
    for q in target_quantiles() {
        // First step whose cumulative fraction reaches q; a float shortfall at q = 1
        // falls back to the last step.
        let i = steps.partition_point(|&(_, f)| f < q);
        keep[i.min(steps.len() - 1)] = true;
    }
    steps
        .into_iter()
        .zip(keep)
        .filter_map(|(p, k)| k.then_some(p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty() {
        let h = new_latency_histogram();
        assert_eq!(summarize(&h), LatencySummary::default());
        assert!(cdf_points(&h).is_empty());
    }

    #[test]
    fn quantile_count_is_bounded() {
        assert!(target_quantiles().len() + 2 <= MAX_CDF_POINTS);
    }

    #[test]
    fn many_buckets_are_thinned_monotonically() {
        let mut h = new_latency_histogram();
        for i in 1..=200_000u64 {
            h.record(i * 37 % 5_000_000 + 1).unwrap();
        }
        let pts = cdf_points(&h);
        assert!(
            pts.len() <= MAX_CDF_POINTS && pts.len() > 100,
            "{}",
            pts.len()
        );
        assert!(pts.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
        assert_eq!(pts.last().unwrap().1, 1.0);
    }

    /// The summary as it was computed before the one-walk [`summarize`]: one
    /// hdrhistogram call per figure.
    fn summarize_by_calls(h: &Histogram<u64>) -> LatencySummary {
        if h.is_empty() {
            return LatencySummary::default();
        }
        let n = h.len() as f64;
        let mut below = 0u64;
        let mut fio_ranges: Vec<f64> = crate::report::fio::LATENCY_RANGES_NS
            .iter()
            .map(|&upper| {
                // Every value lies at or below the maximum: no need to walk the buckets (a
                // walk up to a range's upper bound costs most of a short run's report).
                let upto = if upper >= h.max() {
                    h.len()
                } else {
                    h.count_between(0, upper)
                };
                let share = (upto - below) as f64 / n * 100.0;
                below = upto;
                share
            })
            .collect();
        // fio's last millisecond range is ">=2000": whatever lies beyond the others.
        fio_ranges.push((h.len() - below) as f64 / n * 100.0);
        LatencySummary {
            count: h.len(),
            min: h.min(),
            mean: h.mean(),
            stddev: h.stdev(),
            p50: h.value_at_quantile(0.5),
            p90: h.value_at_quantile(0.9),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            p9999: h.value_at_quantile(0.9999),
            max: h.max(),
            fio_percentiles: crate::report::fio::PERCENTILES
                .iter()
                .map(|p| h.value_at_quantile(p / 100.0))
                .collect(),
            fio_ranges,
        }
    }

    /// The one-walk summary equals hdrhistogram's per-figure calls to the bit, on
    /// histograms of one value, few, many (body and tail), values past the initial
    /// 1000 s range, and values at fio's range bounds.
    #[test]
    fn one_walk_summary_equals_the_per_figure_calls() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(27);
        let mut cases: Vec<Histogram<u64>> = Vec::new();
        let mut one = new_latency_histogram();
        one.record(90_000).unwrap();
        cases.push(one);
        let mut bounds = new_latency_histogram();
        for &b in super::super::fio::LATENCY_RANGES_NS.iter() {
            for v in [b - 1, b, b + 1] {
                bounds.record_n(v.max(1), 1 + v % 7).unwrap();
            }
        }
        cases.push(bounds);
        for k in 0..40 {
            let mut h = new_latency_histogram();
            let n = [3, 50, 5_000, 200_000][k % 4];
            let spread = [10u64, 1_000, 1_000_000, 1_000_000_000][(k / 4) % 4];
            for _ in 0..n {
                // Log-uniform over `spread` around 50 µs, plus rare huge outliers.
                let x = 50_000.0 * (spread as f64).powf(rng.gen_range(-0.5..1.0));
                let v = if rng.gen_bool(0.001) {
                    5_000_000_000_000
                } else {
                    x as u64 + 1
                };
                h.record(v).unwrap();
            }
            cases.push(h);
        }
        for h in &cases {
            let (a, b) = (summarize(h), summarize_by_calls(h));
            assert_eq!(a, b);
            assert_eq!(a.mean.to_bits(), b.mean.to_bits());
            assert_eq!(a.stddev.to_bits(), b.stddev.to_bits());
        }
    }

    #[test]
    fn resizes_past_1000_s() {
        let mut h = new_latency_histogram();
        h.record(5_000_000_000_000).unwrap();
        assert_eq!(summarize(&h).count, 1);
    }
}
