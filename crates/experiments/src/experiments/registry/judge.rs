//! Verdicts at one grid point and labels of a whole row (registry rules 0.1, 0.2, 0.5).
//!
//! ```text
//! point    criterion applied to the mean over seeds 1–3 → holds / fails;
//!          unresolved instead when the seeds' spread (max − min) of the compared
//!          quantity exceeds the margin the criterion tests
//! row      robust       every point holds
//!          conditional  some points hold, not all
//!          fails        no point holds, none unresolved
//!          unresolved   no point holds, at least one unresolved
//!          not evaluable  the simulator lacks the experiment or mechanism (with why)
//! ```

use std::fmt;

/// The outcome at one grid point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The criterion is true.
    Holds,
    /// The criterion is false.
    Fails,
    /// The seeds disagree by more than the criterion's margin.
    Unresolved,
}

impl Verdict {
    /// `Holds` when `b`, else `Fails`.
    pub fn of(b: bool) -> Verdict {
        if b { Verdict::Holds } else { Verdict::Fails }
    }

    /// Both must hold; an unresolved part makes the whole unresolved unless another
    /// part fails outright.
    pub fn and(self, other: Verdict) -> Verdict {
        match (self, other) {
            (Verdict::Fails, _) | (_, Verdict::Fails) => Verdict::Fails,
            (Verdict::Unresolved, _) | (_, Verdict::Unresolved) => Verdict::Unresolved,
            _ => Verdict::Holds,
        }
    }

    /// All of `vs` (an empty list holds).
    pub fn all(vs: impl IntoIterator<Item = Verdict>) -> Verdict {
        vs.into_iter().fold(Verdict::Holds, Verdict::and)
    }

    /// Word for tables.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Fails => "fails",
            Verdict::Unresolved => "unresolved",
        }
    }
}

/// One evaluated grid point of a row.
#[derive(Clone, Debug)]
pub struct Point {
    /// The free-parameter values, e.g. `[("step_kib", "0.5"), ("state", "fresh")]`;
    /// empty for a row without free parameters.
    pub params: Vec<(String, String)>,
    /// The measured values the criterion used, formatted (e.g. "C/A = 5.50").
    pub measured: String,
    /// The outcome.
    pub verdict: Verdict,
}

impl Point {
    /// A point.
    pub fn new(
        params: Vec<(String, String)>,
        measured: impl Into<String>,
        verdict: Verdict,
    ) -> Point {
        Point {
            params,
            measured: measured.into(),
            verdict,
        }
    }

    /// `name=value, …`, or "(single evaluation)".
    pub fn params_text(&self) -> String {
        if self.params.is_empty() {
            return "(single evaluation)".into();
        }
        self.params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A row's label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Label {
    /// True at every grid point.
    Robust,
    /// True at some points, not all.
    Conditional,
    /// True at no point.
    Fails,
    /// True at no point, and the seeds could not decide at least one.
    Unresolved,
    /// The simulator cannot evaluate the row yet.
    NotEvaluable,
}

impl Label {
    /// Every label, in report order.
    pub const ALL: [Label; 5] = [
        Label::Robust,
        Label::Conditional,
        Label::Fails,
        Label::Unresolved,
        Label::NotEvaluable,
    ];

    /// The registry's word.
    pub fn word(self) -> &'static str {
        match self {
            Label::Robust => "robust",
            Label::Conditional => "conditional",
            Label::Fails => "fails",
            Label::Unresolved => "unresolved",
            Label::NotEvaluable => "not evaluable",
        }
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// The evaluation of one registry row.
#[derive(Clone, Debug)]
pub struct RowResult {
    /// Registry id.
    pub id: String,
    /// Every grid point evaluated (empty when not evaluable).
    pub points: Vec<Point>,
    /// Why the row cannot be evaluated, when it cannot.
    pub not_evaluable: Option<String>,
    /// For a row that is not robust: the cause, computed from the points, and the
    /// output that isolates it (a file of the result directory).
    pub cause: Option<String>,
    /// Rows of the experiment that isolates the cause (`isolation.csv`): (setting,
    /// what was measured there), empty when the cause needs no experiment of its own.
    pub isolation: Vec<(String, String)>,
}

impl RowResult {
    /// A row evaluated at `points`.
    pub fn evaluated(id: &str, points: Vec<Point>) -> RowResult {
        RowResult {
            id: id.into(),
            points,
            not_evaluable: None,
            cause: None,
            isolation: Vec::new(),
        }
    }

    /// A row the simulator cannot evaluate, and why.
    pub fn not_evaluable(id: &str, why: impl Into<String>) -> RowResult {
        RowResult {
            id: id.into(),
            points: Vec::new(),
            not_evaluable: Some(why.into()),
            cause: None,
            isolation: Vec::new(),
        }
    }

    /// The same row with a cause attached.
    pub fn with_cause(mut self, cause: impl Into<String>) -> RowResult {
        self.cause = Some(cause.into());
        self
    }

    /// Adds the isolating experiment's rows (written to `isolation.csv`).
    pub fn with_isolation(mut self, rows: Vec<(String, String)>) -> RowResult {
        self.isolation = rows;
        self
    }

    /// Points that hold.
    pub fn holding(&self) -> usize {
        self.points
            .iter()
            .filter(|p| p.verdict == Verdict::Holds)
            .count()
    }

    /// Points that are unresolved.
    pub fn unresolved(&self) -> usize {
        self.points
            .iter()
            .filter(|p| p.verdict == Verdict::Unresolved)
            .count()
    }

    /// Where a conditional row holds, from its points alone: the parameters whose
    /// values at the holding points are a strict subset of all their values
    /// ("holds only with t_io_us ∈ {150, 300}"); `None` for a row that is not conditional.
    pub fn holds_where(&self) -> Option<String> {
        if self.label() != Label::Conditional {
            return None;
        }
        let mut names: Vec<&str> = Vec::new();
        for p in &self.points {
            for (k, _) in &p.params {
                if !names.contains(&k.as_str()) {
                    names.push(k);
                }
            }
        }
        let values = |holding: bool, k: &str| -> Vec<String> {
            let mut v: Vec<String> = Vec::new();
            for p in &self.points {
                if holding && p.verdict != Verdict::Holds {
                    continue;
                }
                if let Some((_, x)) = p.params.iter().find(|(n, _)| n == k)
                    && !v.contains(x)
                {
                    v.push(x.clone());
                }
            }
            v
        };
        let limits: Vec<String> = names
            .iter()
            .filter_map(|k| {
                let (h, a) = (values(true, k), values(false, k));
                (h.len() < a.len()).then(|| format!("{k} ∈ {{{}}}", h.join(", ")))
            })
            .collect();
        let n = format!("{} of {} points", self.holding(), self.points.len());
        Some(if limits.is_empty() {
            let misses: Vec<&Point> = self
                .points
                .iter()
                .filter(|p| p.verdict != Verdict::Holds)
                .collect();
            let listed = if misses.len() <= 6 {
                let m: Vec<String> = misses.iter().map(|p| p.params_text()).collect();
                format!("; it does not hold at: {}", m.join(" | "))
            } else {
                String::new()
            };
            format!("holds at {n}, with no single parameter deciding (points.csv){listed}")
        } else {
            format!(
                "holds at {n}, only with {} (points.csv)",
                limits.join(" and ")
            )
        })
    }

    /// The free parameters' main effects, for a conditional row: at each level of each
    /// parameter, the points that hold there out of the points at that level. In a full
    /// grid each level is crossed with every level of the others, so a parameter whose
    /// levels go from none holding to all holding decides the row on its own, and one
    /// whose levels hold alike does not move it. Rows for `isolation.csv`: (`name=value`,
    /// "holds at k of n points (p %)"); empty for a row that is not conditional.
    pub fn level_table(&self) -> Vec<(String, String)> {
        if self.label() != Label::Conditional {
            return Vec::new();
        }
        let mut levels: Vec<(String, String, usize, usize)> = Vec::new();
        for p in &self.points {
            for (k, v) in &p.params {
                let i = match levels.iter().position(|(n, x, ..)| n == k && x == v) {
                    Some(i) => i,
                    None => {
                        levels.push((k.clone(), v.clone(), 0, 0));
                        levels.len() - 1
                    }
                };
                levels[i].3 += 1;
                if p.verdict == Verdict::Holds {
                    levels[i].2 += 1;
                }
            }
        }
        // Grouped by parameter, in the order the parameters first appear.
        let mut names: Vec<&str> = Vec::new();
        for (k, ..) in &levels {
            if !names.contains(&k.as_str()) {
                names.push(k);
            }
        }
        names
            .iter()
            .flat_map(|k| levels.iter().filter(move |l| l.0 == *k))
            .map(|(k, v, h, n)| {
                (
                    format!("{k}={v}"),
                    format!(
                        "holds at {h} of {n} points ({:.0} %)",
                        100.0 * *h as f64 / (*n).max(1) as f64
                    ),
                )
            })
            .collect()
    }

    /// The parameter whose levels' holding shares differ most (from [`Self::level_table`]),
    /// with its lowest and highest share: "decided most by fs: 0 % of points hold with
    /// fs=FAT, 100 % with fs=ext2". `None` when the row is not conditional or has no
    /// parameters.
    pub fn deciding_parameter(&self) -> Option<String> {
        if self.label() != Label::Conditional {
            return None;
        }
        let mut best: Option<(f64, String)> = None;
        let mut names: Vec<&str> = Vec::new();
        for p in &self.points {
            for (k, _) in &p.params {
                if !names.contains(&k.as_str()) {
                    names.push(k);
                }
            }
        }
        for k in names {
            let mut shares: Vec<(f64, String)> = Vec::new();
            let mut values: Vec<&str> = Vec::new();
            for p in &self.points {
                if let Some((_, v)) = p.params.iter().find(|(n, _)| n == k)
                    && !values.contains(&v.as_str())
                {
                    values.push(v);
                }
            }
            if values.len() < 2 {
                continue;
            }
            for v in values {
                let at: Vec<&Point> = self
                    .points
                    .iter()
                    .filter(|p| p.params.iter().any(|(n, x)| n == k && x == v))
                    .collect();
                let h = at.iter().filter(|p| p.verdict == Verdict::Holds).count();
                shares.push((h as f64 / at.len().max(1) as f64, format!("{k}={v}")));
            }
            let lo = shares.iter().min_by(|a, b| a.0.total_cmp(&b.0))?;
            let hi = shares.iter().max_by(|a, b| a.0.total_cmp(&b.0))?;
            let spread = hi.0 - lo.0;
            if best.as_ref().is_none_or(|b| spread > b.0) {
                best = Some((
                    spread,
                    format!(
                        "decided most by {k}: {:.0} % of points hold with {}, {:.0} % with {}",
                        100.0 * lo.0,
                        lo.1,
                        100.0 * hi.0,
                        hi.1
                    ),
                ));
            }
        }
        best.map(|b| b.1)
    }

    /// The label, from the points alone.
    pub fn label(&self) -> Label {
        if self.not_evaluable.is_some() || self.points.is_empty() {
            return Label::NotEvaluable;
        }
        let holds = self.holding();
        if holds == self.points.len() {
            Label::Robust
        } else if holds > 0 {
            Label::Conditional
        } else if self.unresolved() > 0 {
            Label::Unresolved
        } else {
            Label::Fails
        }
    }
}

/// Values of one quantity over the seeds of a point (one value for a deterministic run).
#[derive(Clone, Debug, PartialEq)]
pub struct Seeds(pub Vec<f64>);

impl Seeds {
    /// A deterministic quantity.
    pub fn one(x: f64) -> Seeds {
        Seeds(vec![x])
    }

    /// Mean over seeds.
    pub fn mean(&self) -> f64 {
        self.0.iter().sum::<f64>() / self.0.len().max(1) as f64
    }

    /// max − min over seeds (0 for one value).
    pub fn spread(&self) -> f64 {
        let (lo, hi) = self
            .0
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                (a.min(x), b.max(x))
            });
        if self.0.is_empty() { 0.0 } else { hi - lo }
    }

    /// spread / |mean| (0 for one value or a zero mean).
    pub fn relative_spread(&self) -> f64 {
        let m = self.mean().abs();
        if m > 0.0 { self.spread() / m } else { 0.0 }
    }

    /// Seed by seed `self / other` (the compared quantity of a ratio criterion).
    pub fn ratio(&self, other: &Seeds) -> Seeds {
        Seeds(self.0.iter().zip(&other.0).map(|(a, b)| a / b).collect())
    }
}

/// Rule 0.2: `x ≥ factor × y` judged on the mean ratio; unresolved when the per-seed
/// ratios spread, relative to their mean, by more than the margin the test has
/// (`factor − 1`, at least 5 %): a ratio of 12 ± 0.3 is resolved, 1.1 ± 0.1 is not.
pub fn at_least(ratio: &Seeds, factor: f64) -> Verdict {
    let margin = (factor - 1.0).abs().max(0.05);
    if ratio.relative_spread() > margin {
        return Verdict::Unresolved;
    }
    Verdict::of(ratio.mean() >= factor)
}

/// Rule 0.2 for times: `x ≤ factor × y`.
pub fn at_most(ratio: &Seeds, factor: f64) -> Verdict {
    let margin = (1.0 - factor).abs().max(0.05);
    if ratio.relative_spread() > margin {
        return Verdict::Unresolved;
    }
    Verdict::of(ratio.mean() <= factor)
}

/// A window `[lo, hi]` on the mean; unresolved when the seeds spread by more than half
/// the window's width.
pub fn within(x: &Seeds, lo: f64, hi: f64) -> Verdict {
    if x.spread() > (hi - lo) / 2.0 {
        return Verdict::Unresolved;
    }
    let m = x.mean();
    Verdict::of(m >= lo && m <= hi)
}

/// Exact equality of integers (mechanism-fixed numbers).
pub fn exactly(x: u64, want: u64) -> Verdict {
    Verdict::of(x == want)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(vs: &[Verdict]) -> RowResult {
        RowResult::evaluated(
            "X1",
            vs.iter().map(|v| Point::new(vec![], "", *v)).collect(),
        )
    }

    #[test]
    fn labels_follow_rule_0_1_and_unresolved_counts_as_not_holding() {
        use Verdict::*;
        assert_eq!(row(&[Holds, Holds]).label(), Label::Robust);
        assert_eq!(row(&[Holds, Fails]).label(), Label::Conditional);
        assert_eq!(row(&[Holds, Unresolved]).label(), Label::Conditional);
        assert_eq!(row(&[Fails, Fails]).label(), Label::Fails);
        assert_eq!(row(&[Fails, Unresolved]).label(), Label::Unresolved);
        assert_eq!(row(&[]).label(), Label::NotEvaluable);
        assert_eq!(
            RowResult::not_evaluable("X", "no HDD model").label(),
            Label::NotEvaluable
        );
    }

    #[test]
    fn holds_where_names_the_parameter_that_decides() {
        let p = |t: &str, v| Point::new(vec![("t_io_us".into(), t.into())], "", v);
        let r = RowResult::evaluated(
            "H7",
            vec![
                p("0", Verdict::Fails),
                p("150", Verdict::Holds),
                p("300", Verdict::Holds),
            ],
        );
        assert_eq!(
            r.holds_where().unwrap(),
            "holds at 2 of 3 points, only with t_io_us ∈ {150, 300} (points.csv)"
        );
        assert_eq!(row(&[Verdict::Holds]).holds_where(), None);
    }

    #[test]
    fn a_tie_is_no_win_and_noisy_seeds_are_unresolved() {
        // 1.04 is a tie under rule 0.2, 1.06 a win.
        assert_eq!(at_least(&Seeds::one(1.04), 1.05), Verdict::Fails);
        assert_eq!(at_least(&Seeds::one(1.06), 1.05), Verdict::Holds);
        assert_eq!(at_most(&Seeds::one(0.96), 0.95), Verdict::Fails);
        // Mean 1.10 but the seeds span 0.2 > the 0.05 margin.
        assert_eq!(
            at_least(&Seeds(vec![1.0, 1.1, 1.2]), 1.05),
            Verdict::Unresolved
        );
        // A large ratio whose seeds differ by 2.5 % of it is decided.
        assert_eq!(
            at_least(&Seeds(vec![11.9, 12.0, 12.2]), 1.05),
            Verdict::Holds
        );
        assert_eq!(within(&Seeds(vec![0.9, 1.1]), 0.75, 1.25), Verdict::Holds);
        assert_eq!(
            within(&Seeds(vec![0.5, 1.1]), 0.75, 1.25),
            Verdict::Unresolved
        );
        assert_eq!(within(&Seeds::one(1.3), 0.75, 1.25), Verdict::Fails);
    }

    #[test]
    fn and_lets_a_failure_win_over_unresolved() {
        use Verdict::*;
        assert_eq!(Holds.and(Unresolved), Unresolved);
        assert_eq!(Unresolved.and(Fails), Fails);
        assert_eq!(Verdict::all([Holds, Holds]), Holds);
    }
}
