//! Uniform random access over the span.

use super::stream::{Placement, SynthRng, below};

/// Draws every aligned offset with `offset + size <= span` with equal probability.
#[derive(Clone, Debug)]
pub(crate) struct Uniform {
    span: u64,
    align: u64,
}

impl Uniform {
    /// Uniform placement over `[0, span)` at multiples of `align`.
    pub(crate) fn new(span: u64, align: u64) -> Self {
        Uniform { span, align }
    }
}

impl Placement for Uniform {
    #[inline]
    fn offset(&mut self, rng: &mut SynthRng, size: u64) -> u64 {
        // The slot count depends on the size (larger requests have fewer valid start
        // slots), so it is computed per request; validation ensures size <= span.
        let slots = (self.span - size) / self.align + 1;
        below(rng, slots) * self.align
    }
}
