//! Uniform random access over the span.

use super::stream::{OpMix, Placement, SynthRng, below};
use super::{GeneratorSpec, IozoneRandom, Requests, Single, hotcold, zipf};
use crate::workload::OpKind;

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const RANDOM_WRITE: GeneratorSpec = GeneratorSpec::own(
    "random-write",
    "uniform random writes over the span",
    random_write,
);

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const RANDOM_READ: GeneratorSpec = GeneratorSpec::own(
    "random-read",
    "uniform random reads over the span",
    random_read,
);

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const MIXED: GeneratorSpec = GeneratorSpec::own(
    "mixed",
    "uniform random reads and writes, read_percent reads",
    mixed,
);

fn random_write(a: Single) -> Requests {
    random(a, OpKind::Write)
}

fn random_read(a: Single) -> Requests {
    random(a, OpKind::Read)
}

/// Random `op`s: uniform over the span, or as the iozone suite's `iozone_random` asks
/// for its random phases (only the suite sets it; validated).
fn random(mut a: Single, op: OpKind) -> Requests {
    let op = OpMix::Fixed(op);
    let (span, align) = (a.span, a.cfg.align.bytes());
    match a.cfg.iozone_random {
        IozoneRandom::Uniform => a.placed(Uniform::new(span, align), op),
        IozoneRandom::HotCold => {
            let placement = hotcold::HotCold::new(
                span,
                align,
                a.cfg.hot_span_percent,
                a.cfg.hot_access_percent,
            );
            a.placed(placement, op)
        }
        IozoneRandom::Zipf => {
            let placement =
                zipf::ZipfSlots::new(span, align, a.sizes.max(), a.cfg.zipf_theta, &mut a.rng);
            a.placed(placement, op)
        }
    }
}

fn mixed(a: Single) -> Requests {
    let ops = a.reads();
    let placement = Uniform::new(a.span, a.cfg.align.bytes());
    a.placed(placement, ops)
}

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
