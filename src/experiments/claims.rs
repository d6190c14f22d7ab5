//! An experiment's own checks as data: every paper experiment records one [`Claim`] per
//! published result it checks, and [`finish`] writes them as `checks.csv` and builds
//! `summary.md` from them, so no sentence of a summary asserts an outcome the table does
//! not show. These checks predate the claims registry and are not its verdict: the
//! registry's criteria and grids (`ssdlab reproduce --all`, [`super::registry`]) judge
//! the claims, and the summary says so.
//!
//! ```text
//! claim        id, figure/table, the paper's value or trend, ours, the test applied,
//!              holds yes/no (computed from the run's numbers, never written by hand)
//! sensitivity  for a claim that does not hold: a sweep over what the paper left
//!              unsaid, its figure (SVG) and an explanation computed from the sweep
//! finish       checks.csv (one row per check) + summary.md = title, intro, the claims
//!              table, the count of claims that hold, each sensitivity result, then
//!              the experiment's detailed sections
//! ```
//! A claim that does not hold without a sensitivity result is reported as such in the
//! summary ("no sensitivity experiment"), never hidden.

use super::{Ctx, md_table};

/// One published result checked against ours.
#[derive(Clone, Debug)]
pub struct Claim {
    /// Short identifier, unique within the experiment, e.g. `A2`.
    pub id: String,
    /// Where the paper reports it, e.g. "Fig. 14" or "§4 text".
    pub figure: String,
    /// The paper's value or trend, as published (text only, never an input).
    pub paper: String,
    /// Our value, formatted.
    pub ours: String,
    /// The test applied to decide `holds`, in words (e.g. "0.9 <= FAST/page <= 1.1").
    pub test: String,
    /// Whether the test passed on this run's numbers.
    pub holds: bool,
}

impl Claim {
    /// A claim; `holds` is the result of the test described by `test`.
    pub fn new(
        id: &str,
        figure: &str,
        paper: impl Into<String>,
        ours: impl Into<String>,
        test: impl Into<String>,
        holds: bool,
    ) -> Claim {
        Claim {
            id: id.into(),
            figure: figure.into(),
            paper: paper.into(),
            ours: ours.into(),
            test: test.into(),
            holds,
        }
    }
}

/// The outcome of a sensitivity experiment for one or more claims.
#[derive(Clone, Debug)]
pub struct Sensitivity {
    /// Claims it investigates.
    pub claims: Vec<String>,
    /// What was swept, in words.
    pub swept: String,
    /// Figure file names (SVG) in the output directory.
    pub figures: Vec<String>,
    /// A setting under which the paper's result appears, if the sweep found one.
    pub setting_found: Option<String>,
    /// The explanation, with the sweep's numbers filled in.
    pub explanation: String,
}

/// Claims and sensitivity results of one reproduction.
#[derive(Clone, Debug, Default)]
pub struct Claims {
    rows: Vec<Claim>,
    sensitivity: Vec<Sensitivity>,
}

impl Claims {
    /// Records a claim.
    pub fn push(&mut self, c: Claim) {
        debug_assert!(
            self.rows.iter().all(|r| r.id != c.id),
            "duplicate claim id {}",
            c.id
        );
        self.rows.push(c);
    }

    /// Records a sensitivity result.
    pub fn sensitivity(&mut self, s: Sensitivity) {
        self.sensitivity.push(s);
    }

    /// Every claim so far.
    pub fn rows(&self) -> &[Claim] {
        &self.rows
    }

    /// Whether claim `id` holds (`None`: no such claim).
    pub fn holds(&self, id: &str) -> Option<bool> {
        self.rows.iter().find(|c| c.id == id).map(|c| c.holds)
    }

    /// Whether any of `ids` does not hold (a sweep is then worth reporting).
    pub fn any_fails(&self, ids: &[&str]) -> bool {
        ids.iter().any(|id| self.holds(id) == Some(false))
    }

    fn sensitivity_of(&self, id: &str) -> Option<&Sensitivity> {
        self.sensitivity
            .iter()
            .find(|s| s.claims.iter().any(|c| c == id))
    }
}

/// Header of `checks.csv`.
pub const HEADER: [&str; 8] = [
    "id",
    "figure",
    "paper",
    "ours",
    "test",
    "holds",
    "sensitivity_figure",
    "explanation",
];

/// Writes `checks.csv` and `summary.md` (title, intro, the claims table and count,
/// sensitivity results, then `body`, the experiment's detailed sections).
pub fn finish(ctx: &mut Ctx, claims: &Claims, title: &str, intro: &str, body: &str) {
    let mut rows = Vec::new();
    for c in &claims.rows {
        let s = claims.sensitivity_of(&c.id);
        rows.push(vec![
            c.id.clone(),
            c.figure.clone(),
            c.paper.clone(),
            c.ours.clone(),
            c.test.clone(),
            if c.holds { "yes" } else { "no" }.to_string(),
            s.map_or(String::new(), |s| s.figures.join(" ")),
            s.map_or(String::new(), |s| s.explanation.clone()),
        ]);
    }
    ctx.csv("checks", &HEADER, rows);

    let held = claims.rows.iter().filter(|c| c.holds).count();
    let total = claims.rows.len();
    let mut md = format!("# {title}\n\n{intro}\n");
    md.push_str("## The experiment's own checks\n\n");
    md.push_str(&format!(
        "These checks are older than the claims registry and are **not its verdict**: the \
         registry's criteria and parameter grids judge the claims (`ssdlab reproduce --all`, \
         docs/reproductions.md), and some of these tests are looser than the registry's. \
         {held} of {total} checks pass ({}%). One row per published result (`checks.csv`); \
         \"holds\" is the test on this run's numbers.\n\n",
        if total == 0 {
            "n/a".to_string()
        } else {
            format!("{:.0}", 100.0 * held as f64 / total as f64)
        }
    ));
    let table: Vec<Vec<String>> = claims
        .rows
        .iter()
        .map(|c| {
            vec![
                c.id.clone(),
                c.figure.clone(),
                c.paper.clone(),
                c.ours.clone(),
                c.test.clone(),
                if c.holds { "yes" } else { "**no**" }.to_string(),
            ]
        })
        .collect();
    md.push_str(&md_table(
        &["id", "where", "paper", "ours", "test", "holds"],
        &table,
    ));
    md.push('\n');
    let failing: Vec<&Claim> = claims.rows.iter().filter(|c| !c.holds).collect();
    if !claims.sensitivity.is_empty() || !failing.is_empty() {
        md.push_str("## Sensitivity experiments\n\n");
        for s in &claims.sensitivity {
            let figs: Vec<String> = s.figures.iter().map(|f| format!("`{f}`")).collect();
            md.push_str(&format!(
                "### Claims {}: {}\n\nFigures: {}. {}\n\n{}\n\n",
                s.claims.join(", "),
                s.swept,
                figs.join(", "),
                match &s.setting_found {
                    Some(set) => format!("The paper's result appears with: {set}."),
                    None => "No setting in the swept range gives the paper's result.".into(),
                },
                s.explanation
            ));
        }
        for c in failing {
            if claims.sensitivity_of(&c.id).is_none() {
                md.push_str(&format!(
                    "- Claim {} does not hold and has no sensitivity experiment in this run.\n",
                    c.id
                ));
            }
        }
        md.push('\n');
    }
    md.push_str(body);
    ctx.markdown("summary", md);
}

/// `x` as a percentage with one decimal.
pub fn pct(x: f64) -> String {
    format!("{}%", super::fmt_f(100.0 * x, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_csv_and_summary_agree() {
        let mut ctx = Ctx::new(true, 1);
        let mut c = Claims::default();
        c.push(Claim::new("X1", "Fig. 1", "a > b", "3 > 2", "a > b", true));
        c.push(Claim::new("X2", "Fig. 2", "c > d", "1 < 2", "c > d", false));
        c.sensitivity(Sensitivity {
            claims: vec!["X2".into()],
            swept: "knob".into(),
            figures: vec!["sens_x2.svg".into()],
            setting_found: None,
            explanation: "d is always larger".into(),
        });
        finish(&mut ctx, &c, "T", "intro\n", "## body\n");
        let csv = &ctx.files()[0].contents;
        assert!(csv.starts_with("id,figure,paper,ours,test,holds,"));
        assert!(csv.contains("X2,Fig. 2,c > d,1 < 2,c > d,no,sens_x2.svg,d is always larger"));
        let md = &ctx.files()[1].contents;
        assert!(md.contains("1 of 2 checks pass (50%)"));
        assert!(md.contains("not its verdict"));
        assert!(md.contains("No setting in the swept range"));
        assert!(md.ends_with("## body\n"));
    }

    #[test]
    fn a_failing_claim_without_a_sweep_is_said_so() {
        let mut ctx = Ctx::new(true, 1);
        let mut c = Claims::default();
        c.push(Claim::new("Y", "T", "p", "o", "t", false));
        finish(&mut ctx, &c, "T", "", "");
        assert!(
            ctx.files()[1]
                .contents
                .contains("has no sensitivity experiment")
        );
    }
}
