//! Zipf-distributed access: a few slots get most of the requests.

use super::own::{fold_field, own_keys};
use super::stream::{Placement, SynthRng};
use super::{GeneratorSpec, Requests, Single};
use rand::Rng;
use rand_distr::Zipf;

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const SPEC: GeneratorSpec = GeneratorSpec::own(
    "zipf",
    "Zipf-distributed offsets (zipf_theta), hot slots scattered over the span",
    make,
)
.with_own(fold_field!(zipf, SPEC));

own_keys! {
    /// `[workload.zipf]`: the key only this generator reads under its own name
    /// ([`super::own`]; oltp and iozone read `zipf_theta` too).
    ZipfKeys {
        /// Zipf exponent.
        theta: f64 => zipf_theta,
    }
}

/// `read_percent` reads at Zipf-ranked slots.
fn make(mut a: Single) -> Requests {
    let ops = a.reads();
    let (span, align) = (a.span, a.cfg.align.bytes());
    let placement = ZipfSlots::new(span, align, a.sizes.max(), a.cfg.zipf_theta, &mut a.rng);
    a.placed(placement, ops)
}

/// Draws a popularity rank from Zipf(n, θ) (rank 1 hottest) and maps it to a slot with a
/// fixed affine bijection, so the hot slots are scattered over the span instead of packed
/// at its start (which would flatter any FTL that keeps neighbours together).
///
/// Memory is O(1) whatever the slot count: the sampler is rand_distr's
/// rejection-inversion method, and the mapping is arithmetic, not a permutation table.
#[derive(Clone, Debug)]
pub(crate) struct ZipfSlots {
    ranks: Zipf<f64>,
    slots: u64,
    align: u64,
    /// Multiplier of the rank → slot map; coprime to `slots`, which makes the map a
    /// bijection.
    stride: u64,
    /// Slot of rank 1.
    shift: u64,
}

impl ZipfSlots {
    /// Zipf placement over the `align`-sized slots that can hold a request of `max_size`
    /// inside `span`. `rng` seeds where rank 1 lands; `theta` must be > 0 (validated).
    pub(crate) fn new(
        span: u64,
        align: u64,
        max_size: u64,
        theta: f64,
        rng: &mut SynthRng,
    ) -> Self {
        let slots = (span - max_size) / align + 1;
        let ranks = Zipf::new(slots, theta).expect("slots >= 1 and theta > 0 are validated");
        // Golden-ratio stride: consecutive ranks land about 0.618·n slots apart, the most
        // even spread an affine map gives. Step up to the nearest coprime value.
        let mut stride = ((slots as f64) * 0.618_033_988_749_894_9) as u64 % slots;
        while gcd(stride, slots) != 1 {
            stride = (stride + 1) % slots;
        }
        let shift = rng.r#gen::<u64>() % slots;
        ZipfSlots {
            ranks,
            slots,
            align,
            stride,
            shift,
        }
    }

    /// The slot (0-based, in units of `align`) that popularity rank `rank` (1-based) maps to.
    pub(crate) fn slot_of_rank(&self, rank: u64) -> u64 {
        let r = u128::from(rank - 1);
        ((r * u128::from(self.stride) + u128::from(self.shift)) % u128::from(self.slots)) as u64
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Placement for ZipfSlots {
    #[inline]
    fn offset(&mut self, rng: &mut SynthRng, _size: u64) -> u64 {
        // The sampler works in f64 and can, very rarely, round to n + 1 (rand_distr
        // issue #54); clamp so the offset stays inside the span.
        let rank = (rng.sample(self.ranks) as u64).clamp(1, self.slots);
        self.slot_of_rank(rank) * self.align
    }
}
