//! Management-block probe (docs/papers.md §1; Ryu & Park 2009, after the method they used on
//! SSDs A, B and C): fixed-size writes at offsets that move forward in small steps,
//! repeated per partition; a write that straddles a management-block boundary costs an
//! extra read-modify-write, so latency jumps once per management block and the spacing of
//! the jumps is the management-block size.
//!
//! ```text
//! partitions p = 0 .. P−1 start at p · G, G = largest power of two ≤ capacity / P
//! phase "probe-fill": write [start, start + span + size) sequentially (1 MiB requests),
//!                     so every later write finds data to read-modify-write
//! phase "probe":      for i in 0 .. span / step: write `size` bytes at start + i · step
//! infer: per partition, threshold = midpoint of the lowest and highest latency;
//!        onsets = offsets where latency rises above it; candidate = most common
//!        spacing of consecutive onsets, over all partitions (smallest on a tie)
//!        confidence = P(slow | straddles a candidate boundary) − P(slow | does not)
//!        (best phase per partition; 95 % bounds), 1 = exactly the straddles are slow
//!        jump = median latency of the slow writes − median of the others
//!        size = candidate if confidence ≥ MIN_CONFIDENCE and jump ≥ MIN_JUMP_NS,
//!               else none found
//! ```
//! Partitions start on a power-of-two boundary so a power-of-two management block puts
//! its boundaries at the same offsets in every partition; the spacing, not the position,
//! is what the inference uses, so other sizes work too. Onsets closer together than
//! `size` are merged (a slow run may dip for one sample when a write covers a boundary
//! exactly), which bounds the smallest size the probe can see by the write size — use
//! writes no larger than the smallest management block you expect, and a step no larger
//! than a sector-aligned fraction of it.

use super::GeneratorSpec;
use super::own::{fold_field, own_keys};
use super::{SynthConfig, SynthError};
use crate::units::Size;
use crate::workload::{IoRequest, OpKind};

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const SPEC: GeneratorSpec = GeneratorSpec::suite(
    "probe",
    "management-block probe: size writes at offsets rising by probe_step; infers the size",
)
.with_own(fold_field!(probe, SPEC));

own_keys! {
    /// `[workload.probe]`: the probe's own keys ([`super::own`]).
    ProbeKeys {
        /// Offset step between writes, a multiple of 512 B.
        step: Size => probe_step,
        /// Partitions probed.
        partitions: u32 => probe_partitions,
        /// A management-block size to test.
        block: Size => probe_block,
    }
}

/// Bytes written per fill request.
const FILL_CHUNK_BYTES: u64 = 1 << 20;

/// Where the probe's partitions start on a device of `capacity_bytes`.
pub fn partition_starts(cfg: &SynthConfig, capacity_bytes: u64) -> Result<Vec<u64>, SynthError> {
    let parts = cfg.probe_partitions as u64;
    if parts == 0 {
        return Err(SynthError::ProbeNoPartitions);
    }
    let step = cfg.probe_step.bytes();
    if step == 0 || !step.is_multiple_of(512) {
        return Err(SynthError::ProbeStep(cfg.probe_step));
    }
    let size = cfg.size.bytes();
    if !size.is_multiple_of(512) {
        return Err(SynthError::ProbeSize(cfg.size));
    }
    let region = probe_span(cfg) + size;
    let share = capacity_bytes / parts;
    let g = if share == 0 {
        0
    } else {
        1u64 << (63 - share.leading_zeros())
    };
    if g < region {
        return Err(SynthError::ProbeRoom {
            parts,
            region_bytes: region,
            room_bytes: g,
        });
    }
    Ok((0..parts).map(|p| p * g).collect())
}

/// Bytes probed per partition.
pub fn probe_span(cfg: &SynthConfig) -> u64 {
    cfg.span.map(|s| s.bytes()).unwrap_or(4 << 20)
}

/// Requests of the fill phase.
pub fn fill_requests(cfg: &SynthConfig, starts: &[u64]) -> Vec<IoRequest> {
    let region = probe_span(cfg) + cfg.size.bytes();
    let mut out = Vec::new();
    for &start in starts {
        let mut off = 0;
        while off < region {
            let len = FILL_CHUNK_BYTES.min(region - off);
            out.push(IoRequest::new(OpKind::Write, start + off, len));
            off += len;
        }
    }
    out
}

/// Requests of the probe phase: partition by partition, offsets rising by `probe_step`.
pub fn probe_requests(
    cfg: &SynthConfig,
    starts: Vec<u64>,
) -> impl Iterator<Item = IoRequest> + Send + 'static {
    let step = cfg.probe_step.bytes();
    let n = probe_span(cfg) / step;
    let size = cfg.size.bytes();
    starts.into_iter().flat_map(move |start| {
        (0..n).map(move |i| IoRequest::new(OpKind::Write, start + i * step, size))
    })
}

/// Confidence ([`ProbeResult::confidence`]) below which the probe names no management
/// block: writes straddling the candidate's boundaries are then not much more often
/// slow than the others, and the spacing is noise. Measured with the default probe
/// (4 KiB every 512 B): the paper's SSD A 1.00, SSD B 0.65, SSD C 0.34 (its pages'
/// read-modify-write shows under die contention), a page FTL 1.00; a file on tmpfs
/// 0.07–0.09 (docs/config.md "Management-block probe").
pub const MIN_CONFIDENCE: f64 = 0.25;

/// Smallest latency jump ([`ProbeResult::jump_ns`]) the probe takes for a management
/// block. A straddling write costs an extra read-modify-write, which includes at least
/// one flash page read: tens of µs on MLC/TLC, about 3 µs on the fastest low-latency
/// SLC, 2.5 µs or more on an emulated drive at `--latency scaled=0.1`. Memory has
/// structure too, far finer: a 4 KiB write to a file on tmpfs that straddles two memory
/// pages costs about 0.2 µs more than one that does not, and with timing noise low
/// enough that structure is as regular as a page FTL's (confidence up to 0.99 on this
/// machine). 1 µs sits between the two.
pub const MIN_JUMP_NS: u64 = 1_000;

/// What the probe saw.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeResult {
    /// The inferred management-block size: the candidate, when its confidence reaches
    /// [`MIN_CONFIDENCE`] and its jump [`MIN_JUMP_NS`].
    pub mgmt_block_bytes: Option<u64>,
    /// The most common spacing of latency jumps, whatever its confidence.
    pub candidate_bytes: Option<u64>,
    /// How much more often writes straddling a boundary of the candidate are slow than
    /// the others: P(slow | straddles) − P(slow | does not), each at the end of its 95 %
    /// interval that makes the difference smaller (Youden's J); 1 = exactly the
    /// straddling writes are slow, 0 = no more often than the rest or no candidate. Each partition's boundaries sit at the phase that
    /// scores best.
    pub confidence: f64,
    /// How much slower the slow writes are than the others: the difference of their
    /// median latencies, ns (0 when no write was slow).
    pub jump_ns: u64,
    /// Onsets found over all partitions.
    pub onsets: usize,
    /// Lowest and highest latency seen, ns.
    pub latency_ns_min: u64,
    /// Highest latency seen, ns.
    pub latency_ns_max: u64,
}

/// One partition's `(partition, offset, latency)` samples and the latency above which a
/// write is slow (`None`: no boundary effect in it).
type Partition<'a> = (&'a [(u32, u64, u64)], Option<u64>);

/// Infers the management-block size from `(partition, offset within partition, latency)`
/// samples in probe order. `size_bytes` is the probe's write size.
pub fn infer(samples: &[(u32, u64, u64)], size_bytes: u64) -> ProbeResult {
    let lo = samples.iter().map(|s| s.2).min().unwrap_or(0);
    let hi = samples.iter().map(|s| s.2).max().unwrap_or(0);
    let mut spacings: Vec<u64> = Vec::new();
    let mut onsets = 0;
    let mut parts: Vec<Partition> = Vec::new();
    let mut part = 0;
    while part < samples.len() {
        let p = samples[part].0;
        let end = part + samples[part..].iter().take_while(|s| s.0 == p).count();
        let s = &samples[part..end];
        part = end;
        let plo = s.iter().map(|x| x.2).min().unwrap_or(0);
        let phi = s.iter().map(|x| x.2).max().unwrap_or(0);
        // Less than 5% between fastest and slowest: no boundary effect in this partition.
        if phi <= plo + plo / 20 {
            parts.push((s, None));
            continue;
        }
        // Rare huge outliers (GC or merges running while a write waits) must not set
        // the threshold: a straddling write costs about twice a single one, so the top
        // of the range is capped at 2.5 × the median latency (the median is a single
        // write's cost, or the straddles' when nearly every write straddles, as with
        // page-sized blocks). Half-way between the fastest and that level separates
        // single from straddling writes.
        let mut lat: Vec<u64> = s.iter().map(|x| x.2).collect();
        let k = lat.len() / 2;
        let median = *lat.select_nth_unstable(k).1;
        let upper = phi.min(median.saturating_mul(5) / 2);
        // Likewise a floor that fewer than 2% of the writes reach is not a single write's
        // cost but a few writes that found their block not yet written (or idle dies):
        // the median stands in for it.
        let at_floor = s.iter().filter(|x| x.2 <= plo + plo / 20).count();
        let floor = if at_floor * 50 < s.len() { median } else { plo };
        let mid = floor + (upper - floor) / 2;
        parts.push((s, Some(mid)));
        let mut last: Option<u64> = None;
        for w in s.windows(2) {
            if w[0].2 <= mid && w[1].2 > mid {
                let at = w[1].1;
                if let Some(prev) = last {
                    if at - prev < size_bytes {
                        continue;
                    }
                    spacings.push(at - prev);
                }
                last = Some(at);
                onsets += 1;
            }
        }
    }
    spacings.sort_unstable();
    let mut best: Option<(usize, u64)> = None;
    let mut i = 0;
    while i < spacings.len() {
        let v = spacings[i];
        let n = spacings[i..].iter().take_while(|&&x| x == v).count();
        if best.is_none_or(|(bn, _)| n > bn) {
            best = Some((n, v));
        }
        i += n;
    }
    let candidate = best.map(|(_, v)| v);
    let confidence = candidate.map_or(0.0, |m| agreement(&parts, m, size_bytes));
    let jump_ns = jump(&parts);
    ProbeResult {
        mgmt_block_bytes: candidate
            .filter(|_| confidence >= MIN_CONFIDENCE && jump_ns >= MIN_JUMP_NS),
        candidate_bytes: candidate,
        confidence,
        jump_ns,
        onsets,
        latency_ns_min: lo,
        latency_ns_max: hi,
    }
}

/// How much slower the slow writes are: the median, over the writes above their
/// partition's threshold, of their latency minus the median latency of the partition's
/// other writes (0 when none is above). Per partition, because partitions can sit at
/// different latency levels (another die's queue, a different block state).
fn jump(parts: &[Partition]) -> u64 {
    let mut excess = Vec::new();
    for &(s, mid) in parts {
        let Some(mid) = mid else { continue };
        let mut fast: Vec<u64> = s.iter().map(|x| x.2).filter(|&l| l <= mid).collect();
        if fast.is_empty() {
            continue;
        }
        let k = fast.len() / 2;
        let base = *fast.select_nth_unstable(k).1;
        excess.extend(s.iter().filter(|x| x.2 > mid).map(|x| x.2 - base));
    }
    if excess.is_empty() {
        return 0;
    }
    let k = excess.len() / 2;
    *excess.select_nth_unstable(k).1
}

/// How much slower a write must be than the median of the writes that stay inside
/// their blocks to count as slow in [`test_block`]: a write that crosses into one more
/// management block than its size needs costs one more read-modify-write, about twice
/// a single write (the reasoning of [`infer`]'s cap), so 1.5 × sits half-way between
/// one write's cost and two.
pub const SLOW_FACTOR: f64 = 1.5;

/// The probe's writes split by a management-block size given beforehand
/// (`workload.probe_block`), to test that size rather than infer one: the writes that
/// cross a boundary (touch more blocks of that size than ⌈write size / block⌉, i.e.
/// for writes no larger than the block, straddle two blocks) against the others.
/// Boundaries are at multiples of the block from each partition's start.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BlockTest {
    /// The block tested, bytes.
    pub block_bytes: u64,
    /// Writes that cross a boundary.
    pub crossing_writes: u64,
    /// Writes that do not.
    pub inside_writes: u64,
    /// Mean latency of the crossing writes, ns (0 without any).
    pub crossing_latency_ns_mean: f64,
    /// Mean latency of the other writes, ns (0 without any).
    pub inside_latency_ns_mean: f64,
    /// Median latency of the other writes, ns (the mean of the middle two for an even
    /// count; 0 without any).
    pub inside_latency_ns_median: f64,
    /// Share of the crossing writes at [`SLOW_FACTOR`] × the inside median or more.
    pub crossing_slow_share: f64,
    /// Share of the other writes above [`SLOW_FACTOR`] × the inside median (ties at the
    /// threshold count for the block on both sides).
    pub inside_slow_share: f64,
}

/// Whether a write of `size` at `offset` (within its partition) touches more blocks
/// of `block` bytes than a write of its size must.
pub fn crosses(offset: u64, size: u64, block: u64) -> bool {
    let touched = (offset + size - 1) / block - offset / block + 1;
    touched > size.div_ceil(block)
}

/// Splits `(partition, offset within partition, latency)` samples of writes of
/// `size_bytes` by `block_bytes` ([`BlockTest`]).
pub fn test_block(samples: &[(u32, u64, u64)], size_bytes: u64, block_bytes: u64) -> BlockTest {
    let (mut cross, mut inside): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
    for &(_, offset, latency) in samples {
        if crosses(offset, size_bytes, block_bytes) {
            cross.push(latency);
        } else {
            inside.push(latency);
        }
    }
    let mean = |v: &[u64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64
        }
    };
    inside.sort_unstable();
    let n = inside.len();
    let median = match n {
        0 => 0.0,
        _ if n % 2 == 1 => inside[n / 2] as f64,
        _ => (inside[n / 2 - 1] + inside[n / 2]) as f64 / 2.0,
    };
    let threshold = SLOW_FACTOR * median;
    let share = |k: usize, of: usize| if of == 0 { 0.0 } else { k as f64 / of as f64 };
    BlockTest {
        block_bytes,
        crossing_writes: cross.len() as u64,
        inside_writes: n as u64,
        crossing_latency_ns_mean: mean(&cross),
        inside_latency_ns_mean: mean(&inside),
        inside_latency_ns_median: median,
        crossing_slow_share: share(
            cross.iter().filter(|&&l| l as f64 >= threshold).count(),
            cross.len(),
        ),
        inside_slow_share: share(inside.iter().filter(|&&l| l as f64 > threshold).count(), n),
    }
}

/// Counts over probe writes: how many are slow, how many straddle a boundary, how many
/// both.
#[derive(Clone, Copy, Default)]
struct Table {
    slow_straddle: u64,
    slow: u64,
    straddle: u64,
    n: u64,
}

impl Table {
    /// How much more often straddling writes are slow than the others: P(slow |
    /// straddles) at its 95 % lower bound minus P(slow | does not) at its 95 % upper
    /// bound (Youden's J, made conservative: a rate seen over few writes counts for
    /// less); 1 = exactly the straddling writes are slow, 0 = no more often than the
    /// rest; at least 0.
    fn confidence(&self) -> f64 {
        let others = self.n - self.straddle;
        if self.straddle == 0 || others == 0 {
            return 0.0;
        }
        let hit = wilson(self.slow_straddle, self.straddle).0;
        let false_alarm = wilson(self.slow - self.slow_straddle, others).1;
        (hit - false_alarm).max(0.0)
    }
}

/// The 95 % Wilson score interval of a proportion `k / n`.
fn wilson(k: u64, n: u64) -> (f64, f64) {
    const Z: f64 = 1.96;
    let n = n as f64;
    let p = k as f64 / n;
    let z2 = Z * Z;
    let centre = p + z2 / (2.0 * n);
    let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let d = 1.0 + z2 / n;
    ((centre - half) / d, (centre + half) / d)
}

/// The probe's confidence in `m`-byte blocks probed with writes of `size` bytes: how
/// much more often writes straddling a block boundary are slow (above the partition's
/// threshold) than the others ([`Table::confidence`]). The boundaries' phase is unknown
/// (a partition starts on a power of two, blocks need not be one), so each partition
/// takes the phase with the best confidence, found for every phase at once: a write at
/// `o` straddles the boundaries of phase φ when φ lies strictly inside (o, o + size)
/// modulo `m`, an interval of phases added to difference arrays. Phases are evaluated
/// on the grid of the offsets' and the size's common divisor, where the answer can
/// change. The partitions' counts are then pooled.
fn agreement(parts: &[Partition], m: u64, size: u64) -> f64 {
    let mut total = Table::default();
    for &(s, mid) in parts {
        let g = s.iter().fold(gcd(size, m), |g, x| gcd(g, x.1));
        let phases = (m / g) as usize;
        // diff[φ] over phases φ · g: +1 where an interval starts, −1 past its end.
        let mut all = vec![0i64; phases + 1];
        let mut slow = vec![0i64; phases + 1];
        let mut table = Table {
            n: s.len() as u64,
            ..Table::default()
        };
        for &(_, o, lat) in s {
            let is_slow = mid.is_some_and(|mid| lat > mid);
            table.slow += is_slow as u64;
            // Phases strictly inside (o, o + size): from o + g to o + size − g.
            if size <= g {
                continue;
            }
            let count = ((size - g) / g) as usize;
            let diffs = [&mut all, &mut slow];
            let marked = diffs.into_iter().take(1 + is_slow as usize);
            if count >= phases {
                // Longer than a block: straddles whatever the phase.
                for d in marked {
                    d[0] += 1;
                    d[phases] -= 1;
                }
                continue;
            }
            let first = ((o % m) / g + 1) as usize % phases;
            let end = first + count;
            for d in marked {
                d[first] += 1;
                if end <= phases {
                    d[end] -= 1;
                } else {
                    d[phases] -= 1;
                    d[0] += 1;
                    d[end - phases] -= 1;
                }
            }
        }
        let (mut a, mut b) = (0i64, 0i64);
        let mut best: Option<(f64, Table)> = None;
        for phase in 0..phases {
            a += all[phase];
            b += slow[phase];
            let t = Table {
                straddle: a as u64,
                slow_straddle: b as u64,
                ..table
            };
            let c = t.confidence();
            if best.is_none_or(|(bc, _)| c > bc) {
                best = Some((c, t));
            }
        }
        let t = best.map_or(table, |(_, t)| t);
        total.slow_straddle += t.slow_straddle;
        total.slow += t.slow;
        total.straddle += t.straddle;
        total.n += t.n;
    }
    total.confidence()
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Latency of a `size`-byte write at `off` when management blocks of `m` bytes are
    /// rewritten whole: one block's cost (50 µs), two when the write straddles a
    /// boundary.
    fn model(off: u64, size: u64, m: u64) -> u64 {
        let blocks = (off + size - 1) / m - off / m + 1;
        50_000 * blocks
    }

    #[test]
    fn infers_the_spacing_of_latency_jumps() {
        for m in [4096u64, 16 << 10, 12 << 10, 1 << 20] {
            let samples: Vec<(u32, u64, u64)> = (0..2u32)
                .flat_map(|p| {
                    (0..(3 * m / 512)).map(move |i| (p, i * 512, model(i * 512 + 7 * 512, 4096, m)))
                })
                .collect();
            let r = infer(&samples, 4096);
            assert_eq!(r.mgmt_block_bytes, Some(m), "m = {m}");
        }
    }

    #[test]
    fn rare_outliers_do_not_hide_the_straddles() {
        // 16 KiB blocks probed with 4 KiB writes every 512 B: straddles cost 100 µs,
        // others 50 µs; GC makes three writes take 5 ms and the first two writes
        // found their block unwritten (500 ns).
        let m = 16 << 10;
        let samples: Vec<(u32, u64, u64)> = (0..400u64)
            .map(|i| {
                let lat = match i {
                    0 | 1 => 500,
                    50 | 170 | 290 => 5_000_000,
                    _ => model(i * 512, 4096, m),
                };
                (0, i * 512, lat)
            })
            .collect();
        assert_eq!(infer(&samples, 4096).mgmt_block_bytes, Some(m));
    }

    /// Probe samples of 3 partitions × `n` writes of 4 KiB every 512 B, latency from
    /// `lat(offset, rng)`.
    fn samples(
        n: u64,
        seed: u64,
        mut lat: impl FnMut(u64, &mut rand_xoshiro::Xoshiro256PlusPlus) -> u64,
    ) -> Vec<(u32, u64, u64)> {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        (0..3u32)
            .flat_map(|p| (0..n).map(move |i| (p, i * 512)))
            .map(|(p, o)| (p, o, lat(o, &mut rng)))
            .collect()
    }

    #[test]
    fn timing_noise_is_no_structure() {
        // A device whose writes all cost the same, seen through a noisy clock: jitter
        // of ±10 % and rare spikes of 2–20×. Spikes rise above the threshold, their
        // spacings have a most common value, but they fall on no block's boundaries.
        use rand::Rng;
        for seed in 0..20 {
            let s = samples(8192, seed, |_, rng| {
                let base = rng.gen_range(900..1100);
                if rng.gen_bool(0.01) {
                    base * rng.gen_range(2..20)
                } else {
                    base
                }
            });
            let r = infer(&s, 4096);
            assert!(r.candidate_bytes.is_some(), "seed {seed}: {r:?}");
            assert_eq!(r.mgmt_block_bytes, None, "seed {seed}: {r:?}");
            assert!(r.confidence < 0.15, "seed {seed}: {r:?}");
        }
    }

    #[test]
    fn structure_under_noise_keeps_a_high_confidence() {
        // 64 KiB blocks under the same noise: the slow writes still straddle (the
        // spikes are the only exceptions).
        use rand::Rng;
        let m = 64 << 10;
        for seed in 0..20 {
            let s = samples(16 * m / 512, seed, |o, rng| {
                let base = model(o, 4096, m) * rng.gen_range(95..105) / 100;
                if rng.gen_bool(0.005) {
                    base * rng.gen_range(2..20)
                } else {
                    base
                }
            });
            let r = infer(&s, 4096);
            assert_eq!(r.mgmt_block_bytes, Some(m), "seed {seed}: {r:?}");
            assert!(r.confidence > 0.5, "seed {seed}: {r:?}");
        }
    }

    #[test]
    fn the_best_phase_is_found_per_partition() {
        // 12 KiB blocks (not a power of two): partitions at power-of-two starts see the
        // boundaries at different phases; each partition's own phase finds every slow
        // write on a boundary (the confidence is then bounded by 42 of 42 straddles).
        let m = 12 << 10;
        let s: Vec<(u32, u64, u64)> = (0..3u32)
            .flat_map(|p| {
                (0..(3 * m / 512)).map(move |i| {
                    let shift = p as u64 * 1536;
                    (p, i * 512, model(i * 512 + shift, 4096, m))
                })
            })
            .collect();
        let r = infer(&s, 4096);
        assert_eq!(r.mgmt_block_bytes, Some(m), "{r:?}");
        assert!(r.confidence > 0.5, "{r:?}");
    }

    #[test]
    fn flat_latency_infers_nothing() {
        let samples: Vec<(u32, u64, u64)> = (0..100).map(|i| (0, i * 512, 1000 + i % 3)).collect();
        assert_eq!(infer(&samples, 4096).mgmt_block_bytes, None);
    }

    #[test]
    fn page_sized_blocks_show_as_slow_runs_with_one_fast_aligned_sample() {
        // Write-order placement with 4 KiB pages: aligned 4 KiB writes program one page,
        // unaligned ones read-modify-write two, so latency dips once per 4 KiB.
        let samples: Vec<(u32, u64, u64)> = (0..64)
            .map(|i| (0, i * 512, if i % 8 == 0 { 30_000 } else { 70_000 }))
            .collect();
        let r = infer(&samples, 4096);
        assert_eq!(r.mgmt_block_bytes, Some(4096), "{r:?}");
        assert_eq!(r.jump_ns, 40_000, "{r:?}");
    }

    #[test]
    fn structure_finer_than_a_flash_operation_is_memory_not_a_management_block() {
        // A file on tmpfs: a 4 KiB write that straddles two 4 KiB memory pages costs
        // about 400 ns more, with little noise. The structure is perfectly regular, but
        // no flash read-modify-write is that cheap; the same pattern 100 times slower
        // is a 4 KiB management block.
        for (scale, named) in [(1, None), (100, Some(4096))] {
            let s = samples(2048, 7, |o, rng| {
                use rand::Rng;
                let base = model(o, 4096, 4096) / 50_000 * 400 + 350 + rng.gen_range(0..20);
                base * scale
            });
            let r = infer(&s, 4096);
            assert_eq!(r.candidate_bytes, Some(4096), "scale {scale}: {r:?}");
            assert!(r.confidence > 0.9, "scale {scale}: {r:?}");
            assert_eq!(r.mgmt_block_bytes, named, "scale {scale}: {r:?}");
        }
    }

    #[test]
    fn block_test_splits_the_writes_by_the_given_block() {
        // 4 KiB writes every 512 B over 64 KiB, 16 KiB blocks: 7 of every 32 offsets
        // straddle (those starting in the last 3.5 KiB of a block).
        let s: Vec<(u32, u64, u64)> = (0..128u64)
            .map(|i| (0, i * 512, model(i * 512, 4096, 16 << 10)))
            .collect();
        let t = test_block(&s, 4096, 16 << 10);
        assert_eq!((t.crossing_writes, t.inside_writes), (28, 100));
        assert_eq!(t.crossing_latency_ns_mean, 100_000.0);
        assert_eq!(t.inside_latency_ns_mean, 50_000.0);
        assert_eq!(t.inside_latency_ns_median, 50_000.0);
        // 100 µs ≥ 1.5 × 50 µs: every crossing write is slow, no other one.
        assert_eq!((t.crossing_slow_share, t.inside_slow_share), (1.0, 0.0));
        // Tested against 8 KiB (a wrong guess), only half of its crossing writes are
        // slow: the 8 KiB boundaries inside the 16 KiB blocks cost nothing.
        let t = test_block(&s, 4096, 8 << 10);
        assert_eq!(t.crossing_writes, 56);
        assert_eq!(t.crossing_slow_share, 0.5);
        assert_eq!(t.inside_slow_share, 0.0);
        // A write larger than the block crosses when it touches one block more than it
        // must: 32 KiB aligned to 16 KiB touches 2 (inside), unaligned 3 (crossing).
        assert!(!crosses(16384, 32768, 16384));
        assert!(crosses(512, 32768, 16384));
        assert!(crosses(3072, 10240, 4096));
        assert!(!crosses(2048, 10240, 4096));
        // Even count: the median is the mean of the middle two; the threshold is ≥ for
        // crossing writes and > for the others.
        let s = vec![(0, 0, 100), (0, 512, 200), (0, 16 * 1024 - 512, 225)];
        let t = test_block(&s, 1024, 16 << 10);
        assert_eq!(t.inside_latency_ns_median, 150.0);
        assert_eq!(t.crossing_slow_share, 1.0);
        assert_eq!(t.inside_slow_share, 0.0);
    }
}
