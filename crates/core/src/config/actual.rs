//! Requested versus actual: the values a design asks for that the device can only
//! approximate, and the rule for reporting them (docs/config.md, "Requested and actual
//! values").
//!
//! The array holds whole blocks in every plane, so the physical capacity, and with it the
//! over-provisioning, moves in steps of `pages_per_block × planes` pages; the SLC cache
//! is whole blocks on every die. On a small simulated capacity one step can be large
//! (the default preset at 256 MiB: 64 planes × 256 pages = a quarter of the logical
//! pages, so 9.9 % OP becomes 25 %). Refusing such a design would refuse most small
//! test devices, so these values are *carried*: every output has the requested value and
//! `KEY_actual` beside it, and a difference beyond rounding (see [`tolerance_percent`])
//! is a warning that names the nearest achievable values. Values that are a unit's
//! rounding (a buffer size that is not whole pages, a capacity that is not whole pages)
//! are refused instead, where they are checked.

use super::{Config, ResolvedDevice};

/// A requested value the device obtained only approximately.
#[derive(Clone, Debug, PartialEq)]
pub struct Actual {
    /// The configuration key, e.g. `device.op_percent`.
    pub key: &'static str,
    /// What the design asked for.
    pub requested: f64,
    /// What the device obtained.
    pub actual: f64,
    /// Achievable values next to the request (below and above), for the warning.
    pub nearest: Vec<f64>,
    /// Why the value moves in steps, for the warning.
    pub step: String,
}

impl Actual {
    /// Whether the difference is more than the rounding [`tolerance_percent`] allows.
    pub fn changed(&self, tolerance: f64) -> bool {
        (self.actual - self.requested).abs() > tolerance + 1e-9
    }

    /// The one-line warning: the key, both values, why, and what to ask for instead.
    pub fn warning(&self) -> String {
        let near: Vec<String> = self.nearest.iter().map(|v| fmt_pct(*v)).collect();
        let short = self.key.rsplit('.').next().unwrap_or(self.key);
        format!(
            "{} = {} was asked for but the device has {} ({}); outputs carry both \
             ({short}_requested, {short}_actual). Achievable near it: {}",
            self.key,
            fmt_pct(self.requested),
            fmt_pct(self.actual),
            self.step,
            near.join(", ")
        )
    }
}

/// A percentage with at most 3 decimals and no trailing zeros (`7`, `12.5`, `6.667`).
pub fn fmt_pct(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// How far (percentage points) an actual value may sit from the requested one and still
/// count as rounding: one block's share of the logical capacity, and never less than
/// half a percentage point (the precision to which papers and datasheets quote
/// over-provisioning and SLC-cache sizes: 7 %, 28 %, 4.2 %).
pub fn tolerance_percent(dev: &ResolvedDevice) -> f64 {
    let block = dev.geometry.pages_per_block as f64 / dev.logical_pages.max(1) as f64 * 100.0;
    block.max(0.5)
}

/// The requested and actual values of every key the device rounds to its geometry, in
/// a fixed order (the outputs' columns): `device.op_percent`,
/// `device.slc_cache_percent`.
pub fn actuals(cfg: &Config, dev: &ResolvedDevice) -> Vec<Actual> {
    let g = &dev.geometry;
    let logical = dev.logical_pages.max(1) as f64;
    let ppb = g.pages_per_block as u64;
    let planes = g.channels as u64
        * g.chips_per_channel as u64
        * g.dies_per_chip as u64
        * g.planes_per_die as u64;
    let dies = planes / g.planes_per_die.max(1) as u64;
    let pct = |pages: u64| pages as f64 / logical * 100.0;
    // OP: physical = k whole blocks in every plane, k ≥ 1, physical ≥ logical.
    let op_step = ppb * planes;
    let op_at = |k: u64| pct(k * op_step) - 100.0;
    let k_actual = g.blocks_per_plane as u64;
    let mut op_near = Vec::new();
    if k_actual > 1 && op_at(k_actual - 1) >= 0.0 {
        op_near.push(op_at(k_actual - 1));
    }
    op_near.push(op_at(k_actual));
    let op = Actual {
        key: "device.op_percent",
        requested: cfg.device.op_percent,
        actual: dev.op_percent_actual,
        nearest: op_near,
        step: format!(
            "whole blocks in each of {planes} planes: steps of {} pages, {}% of the \
             logical capacity; a larger device.capacity or fewer planes gives finer steps",
            op_step,
            fmt_pct(pct(op_step))
        ),
    };
    // SLC cache: k whole blocks on every die.
    let slc_step = ppb * dies;
    let slc_blocks = dev
        .timing
        .slc
        .as_ref()
        .map_or(0, |s| s.blocks_per_die as u64);
    let mut slc_near = Vec::new();
    if slc_blocks > 1 {
        slc_near.push(pct((slc_blocks - 1) * slc_step));
    }
    slc_near.push(pct(slc_blocks * slc_step));
    let slc = Actual {
        key: "device.slc_cache_percent",
        requested: cfg.device.slc_cache_percent,
        actual: dev.slc_cache_percent_actual,
        nearest: slc_near,
        step: format!(
            "whole blocks on each of {dies} dies: steps of {} pages, {}% of the logical \
             capacity",
            slc_step,
            fmt_pct(pct(slc_step))
        ),
    };
    vec![op, slc]
}

/// The warnings of the values that moved beyond rounding (empty when none did).
pub fn warnings(cfg: &Config, dev: &ResolvedDevice) -> Vec<String> {
    let tol = tolerance_percent(dev);
    actuals(cfg, dev)
        .into_iter()
        .filter(|a| a.changed(tol))
        .map(|a| a.warning())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(capacity: &str, op: f64) -> Config {
        let mut c = Config::load(Some("default"), None).unwrap();
        c.device.capacity = capacity.parse().unwrap();
        c.device.op_percent = op;
        c
    }

    #[test]
    fn op_at_256mib_on_the_default_array_moves_to_quarter_steps() {
        // 64 planes x 256 pages = 16384 pages = 25 % of 65536 logical pages.
        let c = cfg("256MiB", 7.0);
        let d = c.resolve_device().unwrap();
        let a = &actuals(&c, &d)[0];
        assert_eq!(a.key, "device.op_percent");
        assert_eq!(a.actual, 25.0);
        assert_eq!(a.nearest, vec![0.0, 25.0]);
        assert!(a.changed(tolerance_percent(&d)));
        let w = warnings(&c, &d);
        assert!(
            w[0].contains("device.op_percent = 7 was asked for"),
            "{w:?}"
        );
        assert!(w[0].contains("has 25"), "{w:?}");
        assert!(w[0].contains("Achievable near it: 0, 25"), "{w:?}");
    }

    #[test]
    fn slc_cache_at_256mib_is_rounded_to_a_block_per_die() {
        // 4.2 % of 65536 pages = 11 blocks; 32 dies hold at least one each: 12.5 %.
        let c = cfg("256MiB", 9.9);
        let d = c.resolve_device().unwrap();
        let a = &actuals(&c, &d)[1];
        assert_eq!(a.key, "device.slc_cache_percent");
        assert_eq!(a.actual, 12.5);
        assert!(a.changed(tolerance_percent(&d)));
    }

    #[test]
    fn presets_at_their_own_capacity_get_what_they_ask_for() {
        for (name, _) in super::super::PRESETS {
            let c = Config::load(Some(name), None).unwrap();
            let d = c.resolve_device().unwrap();
            assert_eq!(warnings(&c, &d), Vec::<String>::new(), "{name}");
        }
    }
}
