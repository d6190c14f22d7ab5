//! EXP-A3 — EXP-A1 without aging (Kim et al., 003 §3, text under Fig. 3: most schemes
//! absorb sequential writes with little GC; Fig. 3's GC comes from the earlier aging).
//!
//! ```text
//! setup   EXP-A1 (exp_a1.rs) without phase 0: a fresh device, then the 100 MiB IOzone
//!         file's sequential write (phase 1), for page, BAST, FAST, FASTer and YAFFS2
//! grid    page {2 KiB × 64, 4 KiB × 128} × capacity {256, 512, 1024} MiB × spare
//!         {3, 7, 15} % × record {4, 16, 64} KiB = 54 points
//! seeds   one: a fresh device's sequential write draws no random number (the later
//!         random phases of the suite do, but A15 reads phase 1 only)
//! A15     every scheme's GC share of the sequential write ≤ 5 %
//! ```

use super::eval::{Env, Evaluator};
use super::exp_a1::{self, FTLS, Pt, UNIFORM, Upto};
use super::judge::{Label, Point, RowResult, Verdict};
use crate::experiments::ExpError;

/// The registry's EXP-A3.
pub struct ExpA3;

impl Evaluator for ExpA3 {
    fn experiment(&self) -> &'static str {
        "EXP-A3"
    }

    fn evaluate(&self, env: &Env) -> Result<Vec<RowResult>, ExpError> {
        let pts = exp_a1::grid(env.quick, false);
        let keys: Vec<_> = pts
            .iter()
            .flat_map(|&p| FTLS.iter().map(move |&f| (p, f, UNIFORM.0, Upto::Suite, 1)))
            .collect();
        let ftl = exp_a1::run_ftl(env, "EXP-A3", &keys, &[])?;
        let ykeys: Vec<(Pt, i64)> = pts.iter().map(|&p| (p, 1)).collect();
        let yaffs = exp_a1::run_yaffs2(env, "EXP-A3-yaffs2", &ykeys)?;
        let mut points = Vec::new();
        let mut worst_all = (0.0f64, String::new());
        for &pt in &pts {
            let mut shares: Vec<(&str, f64)> = FTLS
                .iter()
                .map(|&f| {
                    (
                        f,
                        ftl[&(pt, f, UNIFORM.0, Upto::Suite, 1)]
                            .phase("seq-write")
                            .gc_share(),
                    )
                })
                .collect();
            shares.push(("yaffs2", yaffs[&(pt, 1)].phase("seq-write").gc_share()));
            let worst =
                shares.iter().cloned().fold(
                    ("", f64::NEG_INFINITY),
                    |a, b| if b.1 > a.1 { b } else { a },
                );
            let p = Point::new(
                pt.params(),
                shares
                    .iter()
                    .map(|(s, x)| format!("{s} {:.1} %", 100.0 * x))
                    .collect::<Vec<_>>()
                    .join(", "),
                Verdict::of(shares.iter().all(|(_, x)| *x <= 0.05)),
            );
            if worst.1 > worst_all.0 {
                worst_all = (worst.1, format!("{} at {}", worst.0, p.params_text()));
            }
            points.push(p);
        }
        let r = RowResult::evaluated("A15", points);
        if r.label() == Label::Robust {
            return Ok(vec![r]);
        }
        Ok(vec![r.with_cause(format!(
            "the largest GC share on the fresh device is {:.1} % ({}); the criterion wants \
             ≤ 5 % for every scheme",
            100.0 * worst_all.0,
            worst_all.1
        ))])
    }
}
