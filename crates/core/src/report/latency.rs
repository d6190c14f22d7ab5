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
pub fn summarize(h: &Histogram<u64>) -> LatencySummary {
    if h.is_empty() {
        return LatencySummary::default();
    }
    let n = h.len() as f64;
    let mut below = 0u64;
    let mut fio_ranges: Vec<f64> = super::fio::LATENCY_RANGES_NS
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
        fio_percentiles: super::fio::PERCENTILES
            .iter()
            .map(|p| h.value_at_quantile(p / 100.0))
            .collect(),
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

    #[test]
    fn resizes_past_1000_s() {
        let mut h = new_latency_histogram();
        h.record(5_000_000_000_000).unwrap();
        assert_eq!(summarize(&h).count, 1);
    }
}
