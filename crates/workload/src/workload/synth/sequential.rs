//! Sequential access: offsets 0, size, 2·size … wrapping to 0 at the end of the span.

use super::own::{fold_field, own_keys};
use super::stream::{OpMix, Placement, SynthRng};
use super::{GeneratorSpec, Requests, Single, StreamLoop, streams};
use crate::workload::OpKind;

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const SEQ_WRITE: GeneratorSpec = GeneratorSpec::own(
    "seq-write",
    "sequential writes over the span, one pass by default",
    seq_write,
)
.with_own(fold_field!(seq_write, SEQ_WRITE));

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const SEQ_READ: GeneratorSpec = GeneratorSpec::own(
    "seq-read",
    "sequential reads over the span, one pass by default",
    seq_read,
)
.with_own(fold_field!(seq_read, SEQ_READ));

own_keys! {
    /// `[workload.seq-write]` and `[workload.seq-read]`: the keys only the sequential
    /// generators read ([`super::own`]).
    SequentialKeys {
        /// Concurrent sequential streams.
        streams: u32 => streams,
        /// How the streams are issued.
        stream_loop: StreamLoop => stream_loop,
    }
}

fn seq_write(a: Single) -> Requests {
    sequential(a, OpKind::Write)
}

fn seq_read(a: Single) -> Requests {
    sequential(a, OpKind::Read)
}

/// One pass of `op` over the span, or with `streams` > 1 one over each stream's region,
/// a request of each in turn ([`streams`]).
fn sequential(a: Single, op: OpKind) -> Requests {
    let op = OpMix::Fixed(op);
    if a.cfg.streams > 1 {
        let region = streams::region_bytes(a.span, a.cfg.streams, a.cfg.align.bytes());
        let placement = streams::Streams::new(a.cfg.streams, region);
        a.placed(placement, op)
    } else {
        let placement = Sequential::new(a.span);
        a.placed(placement, op)
    }
}

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
