//! EXP-H4 — PCMark's HDD suite on the bare HDD and on the warm cached system (Kim et al.
//! 2011, §V, Fig. 12).
//!
//! ```text
//! setup    replay the PCMark HDD-suite traces (Vantage or 7) on the EXP-H2 hardware,
//!          HDD alone and warm cached, and score both with the vendor's formula
//! grid     pcmark_version {Vantage, 7} × EXP-H2's 81 device points = 162
//! H17      Score(cached) − Score(HDD-only) ≥ 4,700
//! ```
//! ssdlab has neither input, so H17 is not evaluable (registry: "If the simulator has no
//! PCMark trace replay and scoring formula, the row is not evaluable; it does not pass").
//! Replaying a block trace is not what is missing — `ssdlab hybrid --trace` replays
//! block traces against both systems — but the suite's traces are Futuremark's and are
//! not in the repository, and the score is the vendor's unpublished formula over the
//! suite's per-trace results; substituting other traces or another formula would be an
//! easier criterion than the row's.

use super::eval::{Env, Evaluator};
use super::judge::RowResult;
use crate::experiments::ExpError;

/// The registry's EXP-H4.
pub struct ExpH4;

/// What ssdlab lacks for H17.
const MISSING: &str = "needs the PCMark Vantage and PCMark 7 HDD-suite block traces \
     (Futuremark's recordings of application loading, gaming, media and system \
     workloads; none is in ssdlab or freely published) and the vendor's scoring formula \
     that turns the suite's per-trace results into points (not published); ssdlab can \
     replay a block trace on the HDD alone and behind the cache (`ssdlab hybrid \
     --trace`), so these two inputs are all that is missing";

impl Evaluator for ExpH4 {
    fn experiment(&self) -> &'static str {
        "EXP-H4"
    }

    fn evaluate(&self, _env: &Env) -> Result<Vec<RowResult>, ExpError> {
        Ok(vec![RowResult::not_evaluable("H17", MISSING)])
    }

    fn missing(&self) -> &'static str {
        MISSING
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::TraceDir;
    use crate::experiments::registry::judge::Label;

    #[test]
    fn h17_is_not_evaluable_and_says_what_is_missing() {
        let env = Env {
            quick: true,
            work: None,
            traces: TraceDir::Missing("test".into()),
        };
        let r = ExpH4.evaluate(&env).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].label(), Label::NotEvaluable);
        let why = r[0].not_evaluable.as_deref().unwrap();
        assert!(
            why.contains("traces") && why.contains("scoring formula"),
            "{why}"
        );
    }
}
