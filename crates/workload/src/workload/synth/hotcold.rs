//! Hot/cold access: a share of the requests go to a small region at the start of the span.

use super::own::{fold_field, own_keys};
use super::stream::{Placement, SizeDist, SynthRng, below};
use super::{GeneratorSpec, Requests, Single, SynthConfig, SynthError};
use crate::units::Size;
use rand::Rng;

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const SPEC: GeneratorSpec = GeneratorSpec::own(
    "hot-cold",
    "hot_access_percent of requests to the first hot_span_percent of the span",
    make,
)
.with_own(fold_field!(hot_cold, SPEC))
.with_check(check);

own_keys! {
    /// `[workload.hot-cold]`: the keys of the hot and cold regions ([`super::own`]; the
    /// iozone suite's hot-cold random phases read them too).
    HotColdKeys {
        /// Hot region as a share of the span, 0–100.
        hot_span_percent: f64 => hot_span_percent,
        /// Share of requests sent to the hot region, 0–100.
        hot_access_percent: f64 => hot_access_percent,
    }
}

/// `read_percent` reads, `hot_access_percent` of them to the hot region.
fn make(a: Single) -> Requests {
    let ops = a.reads();
    let c = a.cfg;
    let placement = HotCold::new(
        a.span,
        c.align.bytes(),
        c.hot_span_percent,
        c.hot_access_percent,
    );
    a.placed(placement, ops)
}

/// `hot_share` of requests land uniformly in `[0, hot_end)`, the rest uniformly in
/// `[hot_end, span)`; each request lies wholly inside its region.
#[derive(Clone, Debug)]
pub(crate) struct HotCold {
    span: u64,
    align: u64,
    hot_end: u64,
    hot_share: f64,
}

impl HotCold {
    /// The hot region is the first `hot_span_percent` of `span`, rounded down to a
    /// multiple of `align` so cold offsets stay aligned.
    pub(crate) fn new(
        span: u64,
        align: u64,
        hot_span_percent: f64,
        hot_access_percent: f64,
    ) -> Self {
        HotCold {
            span,
            align,
            hot_end: Self::hot_end(span, align, hot_span_percent),
            hot_share: hot_access_percent / 100.0,
        }
    }

    /// End of the hot region for a span, alignment and hot share (percent).
    pub(crate) fn hot_end(span: u64, align: u64, hot_span_percent: f64) -> u64 {
        // u128 keeps span × percent exact for spans beyond 2^53 bytes; the percent is
        // scaled to millionths, finer than any config will state.
        let millionths = (hot_span_percent * 10_000.0).round() as u128;
        let bytes = (u128::from(span) * millionths / 1_000_000) as u64;
        bytes / align * align
    }
}

impl Placement for HotCold {
    #[inline]
    fn offset(&mut self, rng: &mut SynthRng, size: u64) -> u64 {
        // Validation guarantees each region that can be chosen holds the largest size.
        if rng.r#gen::<f64>() < self.hot_share {
            let slots = (self.hot_end - size) / self.align + 1;
            below(rng, slots) * self.align
        } else {
            let slots = (self.span - size - self.hot_end) / self.align + 1;
            self.hot_end + below(rng, slots) * self.align
        }
    }
}

/// Each region that receives requests must hold the largest request.
pub(crate) fn check(cfg: &SynthConfig, span: u64) -> Result<(), SynthError> {
    let align = cfg.align.bytes();
    let max = SizeDist::new(cfg.size.bytes(), cfg.size_max.map(Size::bytes), align).max();
    let hot_end = HotCold::hot_end(span, align, cfg.hot_span_percent);
    if cfg.hot_access_percent > 0.0 && hot_end < max {
        return Err(SynthError::HotRegion {
            hot_span_percent: cfg.hot_span_percent,
            span: Size(span),
            hot: Size(hot_end),
            align: cfg.align,
            max: Size(max),
        });
    }
    if cfg.hot_access_percent < 100.0 && span - hot_end < max {
        return Err(SynthError::ColdRegion {
            span: Size(span),
            hot: Size(hot_end),
            max: Size(max),
        });
    }
    Ok(())
}
