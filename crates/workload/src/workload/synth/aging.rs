//! Aging write streams: the host writes that `precondition = "age"` sends after filling
//! the live data set, until `aging.volume_drive_writes` × the logical capacity has been
//! written (src/sim/run.rs). Two patterns, from the claims registry's EXP-M10 (Ryu &
//! Park 2009, "three months of use" of a 2008–09 desktop):
//!
//! ```text
//! uniform   4 KiB writes, uniform over the live span, 4 KiB aligned
//! desktop   each write: p = 0.7  small random: size uniform in 4, 8, 12, 16 KiB;
//!                                80 % of them in the first 20 % of the live span (hot),
//!                                the rest uniform in the other 80 % (cold)
//!                       p = 0.3  large sequential: size uniform in 64 … 256 KiB in 4 KiB
//!                                steps, appended at a cursor that walks the live span
//!                                from 0 and wraps (a file written in one go)
//! ```
//! The shares are by request count; sizes step by 4 KiB because the era's file systems
//! (NTFS, ext3) allocate 4 KiB clusters. Every write lies inside `[0, span)` and is
//! aligned to 4 KiB.

use super::hotcold::HotCold;
use super::sequential::Sequential;
use super::stream::{Placement, SizeDist, SynthRng, rng_from_seed};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Allocation unit of every aging write (4 KiB clusters).
pub const AGING_ALIGN: u64 = 4 << 10;

/// What the aging writes look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum AgingPattern {
    /// 4 KiB writes uniform over the live span.
    #[default]
    Uniform,
    /// 70 % 4–16 KiB random writes with 80/20 hot/cold, 30 % 64–256 KiB sequential.
    Desktop,
}

impl AgingPattern {
    /// Names and descriptions, for errors and docs.
    pub fn all() -> &'static [(AgingPattern, &'static str, &'static str)] {
        &[
            (
                AgingPattern::Uniform,
                "uniform",
                "4 KiB writes uniform over the live span",
            ),
            (
                AgingPattern::Desktop,
                "desktop",
                "70 % 4–16 KiB random writes (80/20 hot/cold), 30 % 64–256 KiB sequential",
            ),
        ]
    }
}

/// Share of the desktop mix's writes that are small random writes (by count).
const DESKTOP_RANDOM_SHARE: f64 = 0.7;
/// Hot region (percent of the live span) and the share of small writes it receives.
const DESKTOP_HOT_SPAN_PERCENT: f64 = 20.0;
const DESKTOP_HOT_ACCESS_PERCENT: f64 = 80.0;
const DESKTOP_SMALL: (u64, u64) = (4 << 10, 16 << 10);
const DESKTOP_LARGE: (u64, u64) = (64 << 10, 256 << 10);

/// The aging writes as `(offset, size)` in bytes, lazily, until at least `volume_bytes`
/// have been written. `span` (the live data set) must hold the largest write of the
/// pattern (256 KiB for `desktop`, and its hot region 16 KiB); the caller checks it.
pub struct AgingWrites {
    pattern: AgingPattern,
    rng: SynthRng,
    uniform: HotCold,
    hot_cold: HotCold,
    seq: Sequential,
    small: SizeDist,
    large: SizeDist,
    left_bytes: u64,
}

impl AgingWrites {
    /// The stream for `pattern` over `[0, span)`, seeded with `seed`.
    pub fn new(pattern: AgingPattern, span: u64, volume_bytes: u64, seed: u64) -> AgingWrites {
        let span = span / AGING_ALIGN * AGING_ALIGN;
        AgingWrites {
            pattern,
            rng: rng_from_seed(seed),
            // A hot share of 0 % of the requests makes HotCold uniform over the span.
            uniform: HotCold::new(span, AGING_ALIGN, 0.0, 0.0),
            hot_cold: HotCold::new(
                span,
                AGING_ALIGN,
                DESKTOP_HOT_SPAN_PERCENT,
                DESKTOP_HOT_ACCESS_PERCENT,
            ),
            seq: Sequential::new(span),
            small: SizeDist::new(DESKTOP_SMALL.0, Some(DESKTOP_SMALL.1), AGING_ALIGN),
            large: SizeDist::new(DESKTOP_LARGE.0, Some(DESKTOP_LARGE.1), AGING_ALIGN),
            left_bytes: volume_bytes,
        }
    }

    /// The smallest live span the pattern runs on.
    pub fn min_span(pattern: AgingPattern) -> u64 {
        match pattern {
            AgingPattern::Uniform => AGING_ALIGN,
            // The span must hold a 256 KiB write; its hot fifth (51 KiB) then holds 16 KiB.
            AgingPattern::Desktop => DESKTOP_LARGE.1,
        }
    }
}

impl Iterator for AgingWrites {
    type Item = (u64, u64);

    fn next(&mut self) -> Option<(u64, u64)> {
        if self.left_bytes == 0 {
            return None;
        }
        let (offset, size) = match self.pattern {
            AgingPattern::Uniform => (self.uniform.offset(&mut self.rng, AGING_ALIGN), AGING_ALIGN),
            AgingPattern::Desktop => {
                if self.rng.r#gen::<f64>() < DESKTOP_RANDOM_SHARE {
                    let size = self.small.sample(&mut self.rng);
                    (self.hot_cold.offset(&mut self.rng, size), size)
                } else {
                    let size = self.large.sample(&mut self.rng);
                    (self.seq.offset(&mut self.rng, size), size)
                }
            }
        };
        self.left_bytes = self.left_bytes.saturating_sub(size);
        Some((offset, size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_writes_4kib_inside_the_span_until_the_volume() {
        let span = 1 << 20;
        let w: Vec<_> = AgingWrites::new(AgingPattern::Uniform, span, 2 * span, 7).collect();
        assert_eq!(w.len() as u64, 2 * span / AGING_ALIGN);
        assert!(
            w.iter()
                .all(|&(o, s)| s == AGING_ALIGN && o % AGING_ALIGN == 0 && o + s <= span)
        );
    }

    #[test]
    fn desktop_mix_has_its_shares_sizes_and_hot_region() {
        let span: u64 = 64 << 20;
        let w: Vec<_> = AgingWrites::new(AgingPattern::Desktop, span, 16 * span, 3).collect();
        let small: Vec<_> = w.iter().filter(|&&(_, s)| s <= 16 << 10).collect();
        let share = small.len() as f64 / w.len() as f64;
        assert!((share - 0.7).abs() < 0.01, "small share {share}");
        let hot_end = span / 5;
        let hot = small.iter().filter(|&&&(o, s)| o + s <= hot_end).count() as f64;
        assert!((hot / small.len() as f64 - 0.8).abs() < 0.01);
        assert!(
            w.iter()
                .all(|&(o, s)| o % AGING_ALIGN == 0 && o + s <= span)
        );
        let large: Vec<_> = w.iter().filter(|&&(_, s)| s > 16 << 10).collect();
        assert!(
            large
                .iter()
                .all(|&&(_, s)| (64 << 10..=256 << 10).contains(&s))
        );
        // The large writes follow one another: each starts where the last ended or at 0.
        assert!(
            large
                .windows(2)
                .all(|p| p[1].0 == p[0].0 + p[0].1 || p[1].0 == 0)
        );
        let bytes: u64 = w.iter().map(|&(_, s)| s).sum();
        assert!(bytes >= 16 * span && bytes < 16 * span + (256 << 10));
    }
}
