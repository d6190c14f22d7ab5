//! Uniform random access over the span.

use super::GeneratorSpec;
use super::stream::{Placement, SynthRng, below};

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const RANDOM_WRITE: GeneratorSpec =
    GeneratorSpec::builtin("random-write", "uniform random writes over the span", true);

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const RANDOM_READ: GeneratorSpec =
    GeneratorSpec::builtin("random-read", "uniform random reads over the span", true);

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const MIXED: GeneratorSpec = GeneratorSpec::builtin(
    "mixed",
    "uniform random reads and writes, read_percent reads",
    true,
);

/// Draws every aligned offset with `offset + size <= span` with equal probability.
#[derive(Clone, Debug)]
pub(crate) struct Uniform {
    span: u64,
    align: u64,
    /// The last size seen and its slot count: sizes rarely change from one request to
    /// the next, and the count costs a 64-bit division.
    last_size: u64,
    last_slots: u64,
}

impl Uniform {
    /// Uniform placement over `[0, span)` at multiples of `align`.
    pub(crate) fn new(span: u64, align: u64) -> Self {
        Uniform {
            span,
            align,
            last_size: u64::MAX,
            last_slots: 0,
        }
    }
}

impl Placement for Uniform {
    #[inline]
    fn offset(&mut self, rng: &mut SynthRng, size: u64) -> u64 {
        // The slot count depends on the size (larger requests have fewer valid start
        // slots), so it is computed per request; validation ensures size <= span.
        if size != self.last_size {
            self.last_size = size;
            self.last_slots = (self.span - size) / self.align + 1;
        }
        below(rng, self.last_slots) * self.align
    }
}
