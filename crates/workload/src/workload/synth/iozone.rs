//! The IOZone-like suite: four phases over one span, each reported on its own.
//!
//! | phase          | request size                                   | default count |
//! |----------------|------------------------------------------------|---------------|
//! | `seq-write`    | 128 KiB records, or `size` if set (not 4 KiB)   | span / record |
//! | `seq-read`     | same as `seq-write`                            | span / record |
//! | `random-write` | `size` (4 KiB by default)                      | span / size   |
//! | `random-read`  | `size`                                         | span / size   |
//!
//! The span defaults to min(1 GiB, capacity) so the suite finishes quickly on any device;
//! `requests`, if set, is the count of every phase. The 128 KiB record is IOZone's usual
//! large-record size, where sequential throughput is at its peak; it shrinks to the span
//! (rounded down to `align`) on devices smaller than one record. `size_max` is rejected:
//! IOZone runs fixed record sizes, and a range would make the sequential and random phases
//! disagree about what was measured.

use super::own::{fold_field, own_keys};
use super::{GeneratorSpec, IozoneRandom, SynthConfig, SynthError, SynthKind};
use crate::units::Size;

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const SPEC: GeneratorSpec = GeneratorSpec::suite(
    "iozone",
    "IOZone-like suite: seq-write, seq-read, random-write, random-read phases",
)
.with_own(fold_field!(iozone, SPEC))
.with_check(check);

/// The suite's own checks: its hot-cold random phases' regions (`random = "hot-cold"`).
fn check(cfg: &SynthConfig, span_bytes: u64) -> Result<(), SynthError> {
    if cfg.iozone_random == IozoneRandom::HotCold {
        super::hotcold::check(cfg, span_bytes)?;
    }
    Ok(())
}

own_keys! {
    /// `[workload.iozone]`: the suite's own keys ([`super::own`]), and those of the skewed
    /// random phases (`random = "zipf"` or `"hot-cold"`) it shares with zipf and hot-cold.
    IozoneKeys {
        /// One record size for all four phases.
        record: Size => iozone_record,
        /// The two read phases first.
        reads_first: bool => iozone_reads_first,
        /// How the random phases draw offsets.
        random: IozoneRandom => iozone_random,
        /// Zipf exponent of `random = "zipf"`.
        zipf_theta: f64 => zipf_theta,
        /// Hot region of `random = "hot-cold"`, percent of the span.
        hot_span_percent: f64 => hot_span_percent,
        /// Share of requests to the hot region.
        hot_access_percent: f64 => hot_access_percent,
    }
}

/// Default span of the suite when `span` is not set.
pub(crate) const DEFAULT_SPAN: u64 = 1 << 30;

/// Record size of the sequential phases when `size` is left at its default.
pub(crate) const SEQ_RECORD: u64 = 128 << 10;

/// One phase of the suite: which generator, with which request size and count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IozonePhase {
    /// Generator of the phase; its kebab-case name is the phase name.
    pub(crate) kind: SynthKind,
    /// Request size in bytes.
    pub(crate) size: u64,
    /// Number of requests.
    pub(crate) count: u64,
}

/// The four phases for a span, user request size, alignment and optional count.
/// `size` must be a validated, non-zero multiple of `align`, and at most `span`.
/// `record`, when set (a multiple of `align`, at most `span`), is the size of every phase.
pub(crate) fn plan(
    span: u64,
    size: u64,
    align: u64,
    requests: Option<u64>,
    record: Option<u64>,
) -> [IozonePhase; 4] {
    let size = record.unwrap_or(size);
    let seq = if record.is_some() || Size(size) != super::SynthConfig::default().size {
        size
    } else {
        // `size` (a multiple of align) fits the span, so this never drops below it.
        SEQ_RECORD.min(span) / align * align
    };
    let phase = |kind, size: u64| IozonePhase {
        kind,
        size,
        count: requests.unwrap_or(span / size),
    };
    [
        phase(SynthKind::SeqWrite, seq),
        phase(SynthKind::SeqRead, seq),
        phase(SynthKind::RandomWrite, size),
        phase(SynthKind::RandomRead, size),
    ]
}
