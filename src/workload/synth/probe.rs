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
//!        onsets = offsets where latency rises above it; size = most common spacing of
//!        consecutive onsets, over all partitions (smallest on a tie)
//! ```
//! Partitions start on a power-of-two boundary so a power-of-two management block puts
//! its boundaries at the same offsets in every partition; the spacing, not the position,
//! is what the inference uses, so other sizes work too. Onsets closer together than
//! `size` are merged (a slow run may dip for one sample when a write covers a boundary
//! exactly), which bounds the smallest size the probe can see by the write size — use
//! writes no larger than the smallest management block you expect, and a step no larger
//! than a sector-aligned fraction of it.

use super::SynthConfig;
use crate::workload::{IoRequest, OpKind};

/// Bytes written per fill request.
const FILL_CHUNK_BYTES: u64 = 1 << 20;

/// Where the probe's partitions start on a device of `capacity_bytes`.
pub fn partition_starts(cfg: &SynthConfig, capacity_bytes: u64) -> Result<Vec<u64>, String> {
    let parts = cfg.probe_partitions as u64;
    if parts == 0 {
        return Err("workload probe_partitions is 0: expected at least 1".into());
    }
    let step = cfg.probe_step.bytes();
    if step == 0 || !step.is_multiple_of(512) {
        return Err(format!(
            "workload probe_step = {}: expected a positive multiple of 512 B",
            cfg.probe_step
        ));
    }
    let size = cfg.size.bytes();
    if !size.is_multiple_of(512) {
        return Err(format!(
            "workload size = {} for the probe: expected a multiple of 512 B",
            cfg.size
        ));
    }
    let region = probe_span(cfg) + size;
    let share = capacity_bytes / parts;
    let g = if share == 0 {
        0
    } else {
        1u64 << (63 - share.leading_zeros())
    };
    if g < region {
        return Err(format!(
            "the probe needs {parts} partitions of {} bytes (span + size) but the device only has room for {parts} of {g}: expected a smaller span or fewer probe_partitions",
            region
        ));
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
            out.push(IoRequest {
                arrival_ns: 0,
                device: 0,
                offset_bytes: start + off,
                size_bytes: len,
                op: OpKind::Write,
            });
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
        (0..n).map(move |i| IoRequest {
            arrival_ns: 0,
            device: 0,
            offset_bytes: start + i * step,
            size_bytes: size,
            op: OpKind::Write,
        })
    })
}

/// What the probe saw.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeResult {
    /// The inferred management-block size, if latency jumped periodically.
    pub mgmt_block_bytes: Option<u64>,
    /// Onsets found over all partitions.
    pub onsets: usize,
    /// Lowest and highest latency seen, ns.
    pub latency_ns_min: u64,
    /// Highest latency seen, ns.
    pub latency_ns_max: u64,
}

/// Infers the management-block size from `(partition, offset within partition, latency)`
/// samples in probe order. `size_bytes` is the probe's write size.
pub fn infer(samples: &[(u32, u64, u64)], size_bytes: u64) -> ProbeResult {
    let lo = samples.iter().map(|s| s.2).min().unwrap_or(0);
    let hi = samples.iter().map(|s| s.2).max().unwrap_or(0);
    let mut spacings: Vec<u64> = Vec::new();
    let mut onsets = 0;
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
    ProbeResult {
        mgmt_block_bytes: best.map(|(_, v)| v),
        onsets,
        latency_ns_min: lo,
        latency_ns_max: hi,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Latency of a `size`-byte write at `off` when management blocks of `m` bytes are
    /// rewritten whole: one block's cost, two when the write straddles a boundary.
    fn model(off: u64, size: u64, m: u64) -> u64 {
        let blocks = (off + size - 1) / m - off / m + 1;
        1000 * blocks
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
        // 16 KiB blocks probed with 4 KiB writes every 512 B: straddles cost 2000 ns,
        // others 1000 ns; GC makes three writes take 100 µs and the first two writes
        // found their block unwritten (10 ns).
        let m = 16 << 10;
        let samples: Vec<(u32, u64, u64)> = (0..400u64)
            .map(|i| {
                let lat = match i {
                    0 | 1 => 10,
                    50 | 170 | 290 => 100_000,
                    _ => model(i * 512, 4096, m),
                };
                (0, i * 512, lat)
            })
            .collect();
        assert_eq!(infer(&samples, 4096).mgmt_block_bytes, Some(m));
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
            .map(|i| (0, i * 512, if i % 8 == 0 { 300 } else { 700 }))
            .collect();
        assert_eq!(infer(&samples, 4096).mgmt_block_bytes, Some(4096));
    }
}
