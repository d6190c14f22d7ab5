//! Sequential access: offsets 0, size, 2·size … wrapping to 0 at the end of the span.

use super::GeneratorSpec;
use super::stream::{Placement, SynthRng};

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const SEQ_WRITE: GeneratorSpec = GeneratorSpec::builtin(
    "seq-write",
    "sequential writes over the span, one pass by default",
    true,
);

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const SEQ_READ: GeneratorSpec = GeneratorSpec::builtin(
    "seq-read",
    "sequential reads over the span, one pass by default",
    true,
);

/// Walks the span from offset 0 in request-sized steps.
#[derive(Clone, Debug)]
pub(crate) struct Sequential {
    span: u64,
    next: u64,
}

impl Sequential {
    /// Sequential placement over `[0, span)`.
    pub(crate) fn new(span: u64) -> Self {
        Sequential { span, next: 0 }
    }
}

impl Placement for Sequential {
    #[inline]
    fn offset(&mut self, _rng: &mut SynthRng, size: u64) -> u64 {
        // Wrap before a request would cross the end of the span, rather than splitting or
        // truncating it: every request keeps the size the config asked for, and the tail
        // of a span that is not a multiple of the size is simply never touched.
        if self.next + size > self.span {
            self.next = 0;
        }
        let offset = self.next;
        self.next += size;
        offset
    }
}
