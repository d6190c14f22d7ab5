//! The machinery every generator shares: the request loop, sizes, operation mix, arrival
//! clock and a fast bounded random draw. Each generator only decides where a request goes
//! (a [`Placement`]); everything else is common so all generators agree on sizes, ops and
//! timing and cannot drift apart.

use crate::workload::{IoRequest, OpKind};
use rand::{Rng, RngCore, SeedableRng};
use rand_distr::{Distribution, Exp};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The generators' random source.
pub(crate) type SynthRng = Xoshiro256PlusPlus;

/// A seeded generator random source. `seed_from_u64` runs the seed through SplitMix64, so
/// neighbouring seeds (phase 0, 1, 2 … of a suite) still give unrelated streams.
pub(crate) fn rng_from_seed(seed: u64) -> SynthRng {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

/// A uniform draw in `0..n` (`n > 0`).
///
/// Lemire's multiply-and-reject method: exact (no modulo bias) and, unlike
/// `Rng::gen_range`, it needs a division only on the rare rejection path, which matters
/// because generators with variable sizes change the bound on every request.
#[inline]
pub(crate) fn below(rng: &mut SynthRng, n: u64) -> u64 {
    debug_assert!(n > 0);
    let mut m = u128::from(rng.next_u64()) * u128::from(n);
    if (m as u64) < n {
        // Values of the low half under `2^64 mod n` would over-represent some results.
        let threshold = n.wrapping_neg() % n;
        while (m as u64) < threshold {
            m = u128::from(rng.next_u64()) * u128::from(n);
        }
    }
    (m >> 64) as u64
}

/// Decides where each request goes; one implementation per access pattern.
pub(crate) trait Placement: Send {
    /// Byte offset for the next request of `size` bytes. Implementations guarantee
    /// `offset + size <= span` and that `offset` is a multiple of the alignment, for every
    /// `size` the phase's [`SizeDist`] can produce.
    fn offset(&mut self, rng: &mut SynthRng, size: u64) -> u64;
}

/// Request sizes: fixed, or uniform over `base, base + align, …, base + steps·align`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SizeDist {
    base: u64,
    align: u64,
    /// Number of sizes above `base`; 0 = fixed size.
    steps: u64,
}

impl SizeDist {
    /// Sizes from `min` to `max` (rounded down to a multiple of `align` above `min`).
    /// `max = None` or `max <= min` gives the fixed size `min`.
    pub(crate) fn new(min: u64, max: Option<u64>, align: u64) -> Self {
        let steps = max.map_or(0, |m| m.saturating_sub(min) / align);
        SizeDist {
            base: min,
            align,
            steps,
        }
    }

    /// The largest size this distribution yields; placements size their ranges by it.
    pub(crate) fn max(&self) -> u64 {
        self.base + self.steps * self.align
    }

    #[inline]
    pub(crate) fn sample(&self, rng: &mut SynthRng) -> u64 {
        if self.steps == 0 {
            // No draw at all for fixed sizes, so a fixed-size stream's offsets do not
            // depend on whether the size code consumed random numbers.
            self.base
        } else {
            self.base + below(rng, self.steps + 1) * self.align
        }
    }
}

/// Which operation each request is.
#[derive(Clone, Copy, Debug)]
pub(crate) enum OpMix {
    /// Every request is this operation.
    Fixed(OpKind),
    /// Each request is a read with this probability (0–1), else a write.
    Reads(f64),
}

impl OpMix {
    #[inline]
    pub(crate) fn sample(&self, rng: &mut SynthRng) -> OpKind {
        match *self {
            OpMix::Fixed(op) => op,
            // `gen::<f64>()` is in [0, 1): p = 0 never reads, p = 1 always reads.
            OpMix::Reads(p) => {
                if rng.r#gen::<f64>() < p {
                    OpKind::Read
                } else {
                    OpKind::Write
                }
            }
        }
    }
}

/// Arrival times: all zero (closed loop) or a Poisson process.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Arrivals {
    /// Closed loop: the host issues requests as fast as the device completes them.
    Closed,
    /// Open loop with exponential gaps.
    Poisson {
        /// Gap distribution.
        gaps: Exp<f64>,
        /// Time of the previous arrival. Kept in f64 and rounded only on output so
        /// rounding each gap to whole nanoseconds cannot bias the mean gap.
        clock_ns: f64,
    },
}

impl Arrivals {
    /// Poisson arrivals with mean gap `mean_gap_ns` (> 0), or closed loop for `None`.
    pub(crate) fn new(mean_gap_ns: Option<u64>) -> Self {
        match mean_gap_ns {
            None => Arrivals::Closed,
            Some(mean) => Arrivals::Poisson {
                // Validation guarantees mean > 0, so the rate is finite and positive.
                gaps: Exp::new(1.0 / mean as f64).expect("mean gap validated > 0"),
                clock_ns: 0.0,
            },
        }
    }

    /// Whether the phase is open loop.
    pub(crate) fn open_loop(&self) -> bool {
        matches!(self, Arrivals::Poisson { .. })
    }

    #[inline]
    pub(crate) fn next(&mut self, rng: &mut SynthRng) -> u64 {
        match self {
            Arrivals::Closed => 0,
            Arrivals::Poisson { gaps, clock_ns } => {
                *clock_ns += gaps.sample(rng);
                clock_ns.round() as u64
            }
        }
    }
}

/// A lazy, allocation-free stream of `count` requests.
///
/// Per request the random numbers are drawn in a fixed order — size, offset, operation,
/// arrival — so a given seed always yields the same stream.
pub(crate) struct Generator<P> {
    rng: SynthRng,
    placement: P,
    sizes: SizeDist,
    ops: OpMix,
    arrivals: Arrivals,
    remaining: u64,
}

impl<P: Placement> Generator<P> {
    /// A generator of `count` requests.
    pub(crate) fn new(
        rng: SynthRng,
        placement: P,
        sizes: SizeDist,
        ops: OpMix,
        arrivals: Arrivals,
        count: u64,
    ) -> Self {
        Generator {
            rng,
            placement,
            sizes,
            ops,
            arrivals,
            remaining: count,
        }
    }
}

impl<P: Placement> Iterator for Generator<P> {
    type Item = IoRequest;

    #[inline]
    fn next(&mut self) -> Option<IoRequest> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let size_bytes = self.sizes.sample(&mut self.rng);
        let offset_bytes = self.placement.offset(&mut self.rng, size_bytes);
        let op = self.ops.sample(&mut self.rng);
        let arrival_ns = self.arrivals.next(&mut self.rng);
        Some(IoRequest::new(op, offset_bytes, size_bytes).at(arrival_ns))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        size_hint(self.remaining)
    }
}

/// The size hint of a stream with `remaining` requests left (exact unless the count
/// exceeds `usize`, as it can on 32-bit targets).
pub(crate) fn size_hint(remaining: u64) -> (usize, Option<usize>) {
    match usize::try_from(remaining) {
        Ok(n) => (n, Some(n)),
        Err(_) => (usize::MAX, None),
    }
}
