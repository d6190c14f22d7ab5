//! Runs the registry's experiments and writes the verdicts: one evaluator per experiment
//! (one file each, registered in [`evaluators`]), every registry row in `claims.csv`
//! whether or not an evaluator covers it, every grid point in `points.csv`, the
//! experiments that isolate a miss's cause in `isolation.csv`, and a `summary.md`
//! generated from those tables only.

use super::judge::{Label, RowResult};
use super::{Registry, placement_registry, registry};
use crate::experiments::{Ctx, ExpError, TraceDir, md_table};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

/// What an evaluator sees.
#[derive(Clone, Debug)]
pub struct Env {
    /// Ends of each range only (rule: CI's quick pass); the report says so.
    pub quick: bool,
    /// Where resumable grid stores go (`DIR/cells/EXP-…`), when running for a directory.
    pub work: Option<PathBuf>,
    /// Trace samples.
    pub traces: TraceDir,
}

/// One registry experiment, evaluated.
pub trait Evaluator: Sync {
    /// The registry experiment id, e.g. `EXP-M5`.
    fn experiment(&self) -> &'static str;
    /// Runs the experiment's grid and judges the rows it covers (a subset of the
    /// experiment's claims; the others stay "not evaluable" with [`Evaluator::missing`]).
    fn evaluate(&self, env: &Env) -> Result<Vec<RowResult>, ExpError>;
    /// Why the experiment's rows that [`Evaluator::evaluate`] does not return cannot be
    /// evaluated.
    fn missing(&self) -> &'static str {
        "this row's part of the experiment is not built yet"
    }
}

/// Registers the evaluators, in registry order: one line per experiment file. Each
/// file's opening doc comment (its drawing: setup, grid, criteria and every default
/// with its source) is compiled in from the same line, so the report that records the
/// design ([`designs`]) cannot miss an evaluator.
macro_rules! registered {
    ($($file:ident => $ty:ident),* $(,)?) => {
        /// Every evaluator, in registry order.
        pub fn evaluators() -> Vec<Box<dyn Evaluator>> {
            vec![$(Box::new(super::$file::$ty)),*]
        }

        /// (experiment id, its evaluator file's source), in registry order.
        fn sources() -> Vec<(&'static str, &'static str)> {
            vec![$((
                super::$file::$ty.experiment(),
                include_str!(concat!(stringify!($file), ".rs")),
            )),*]
        }
    };
}

registered! {
    exp_m1 => ExpM1,
    exp_m2 => ExpM2,
    exp_m3 => ExpM3,
    exp_m4 => ExpM4,
    exp_m5 => ExpM5,
    exp_m6 => ExpM6,
    exp_m7 => ExpM7,
    exp_m8 => ExpM8,
    exp_m9 => ExpM9,
    exp_m10 => ExpM10,
    exp_m11 => ExpM11,
    exp_m12 => ExpM12,
    exp_n1 => ExpN1,
    exp_n2 => ExpN2,
    exp_n3 => ExpN3,
    exp_n4 => ExpN4,
    exp_c1 => ExpC1,
    exp_c2 => ExpC2,
    exp_c3 => ExpC3,
    exp_a1 => ExpA1,
    exp_a2 => ExpA2,
    exp_a3 => ExpA3,
    exp_h1 => ExpH1,
    exp_h2 => ExpH2,
    exp_h3 => ExpH3,
    exp_h4 => ExpH4,
    exp_f1 => ExpF1,
    exp_f2 => ExpF2,
    exp_f3 => ExpF3,
    exp_z1 => ExpZ1,
}

/// The opening `//!` doc comment of a source file, as Markdown.
fn doc_comment(source: &str) -> String {
    let mut out = String::new();
    for line in source.lines() {
        let Some(rest) = line.strip_prefix("//!") else {
            break;
        };
        out.push_str(rest.strip_prefix(' ').unwrap_or(rest));
        out.push('\n');
    }
    out
}

/// `experiments.md`: for each experiment that ran, its evaluator's drawing — setup, grid,
/// criteria, and every parameter outside the grid with the value used and its source
/// (registry rule 0.6), so each report records the defaults it was produced under.
pub fn designs(ev: &Evaluation) -> String {
    let mut s = String::from(
        "# The experiments as run\n\nEach section is the opening comment of the \
         experiment's evaluator (`src/experiments/registry/`): its setup, grid and \
         criteria, and every default outside the registry's grid with its source, \
         fixed before the first run.\n",
    );
    for (id, source) in sources() {
        if ev.seconds.iter().any(|(e, _)| e == id) {
            s.push_str(&format!("\n## {id}\n\n{}", doc_comment(source)));
        }
    }
    s
}

/// Why a row whose experiment has no evaluator is not evaluable.
fn no_evaluator(r: &Registry, exp: &str) -> String {
    let title = r.experiment(exp).map(|x| x.title.as_str()).unwrap_or("");
    format!("{exp} ({title}) is not built in ssdlab yet")
}

/// The evaluation of the whole registry (or the rows of one paper).
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// One result per registry row, in registry order.
    pub rows: Vec<RowResult>,
    /// Seconds each evaluator took.
    pub seconds: Vec<(String, f64)>,
    /// Whether only the ends of each range ran.
    pub quick: bool,
}

/// Evaluates every row of the registry whose paper prefix is in `papers` (all when
/// empty). Rows without an evaluator are "not evaluable" with the reason.
pub fn evaluate(env: &Env, papers: &[String]) -> Result<Evaluation, ExpError> {
    evaluate_only(env, papers, &[])
}

/// [`evaluate`], restricted to the rows of the experiments `only` (all when empty): a
/// long experiment can be run, resumed or left out on its own (`--experiment`).
pub fn evaluate_only(
    env: &Env,
    papers: &[String],
    only: &[String],
) -> Result<Evaluation, ExpError> {
    let reg = registry();
    for id in only {
        if reg.experiment(id).is_none() {
            return Err(ExpError::Other(format!(
                "--experiment {id}: expected a registry experiment id such as EXP-M9 \
                 (`ssdlab reproduce --all --help` lists them)"
            )));
        }
    }
    let chosen = |exp: &str| only.is_empty() || only.iter().any(|e| e == exp);
    let wanted = |prefix: &str| papers.is_empty() || papers.iter().any(|p| p == prefix);
    let mut found: BTreeMap<String, RowResult> = BTreeMap::new();
    let mut seconds = Vec::new();
    for ev in evaluators() {
        let Some(x) = reg.experiment(ev.experiment()) else {
            return Err(ExpError::Other(format!(
                "evaluator for {} which the registry does not define",
                ev.experiment()
            )));
        };
        if !wanted(&x.paper) || !chosen(&x.id) {
            continue;
        }
        let t = Instant::now();
        for row in ev.evaluate(env)? {
            if !x.claims.contains(&row.id) {
                return Err(ExpError::Other(format!(
                    "{} judged {}, which the registry does not feed from it",
                    x.id, row.id
                )));
            }
            found.insert(row.id.clone(), row);
        }
        for id in &x.claims {
            let c = reg.claim(id).expect("checked registry");
            if c.experiment == x.id && !found.contains_key(id) {
                found.insert(id.clone(), RowResult::not_evaluable(id, ev.missing()));
            }
        }
        seconds.push((x.id.clone(), t.elapsed().as_secs_f64()));
    }
    let rows = reg
        .claims
        .iter()
        .filter(|c| wanted(&c.paper) && chosen(&c.experiment))
        .map(|c| {
            found.remove(&c.id).unwrap_or_else(|| {
                RowResult::not_evaluable(&c.id, no_evaluator(reg, &c.experiment))
            })
        })
        .collect();
    Ok(Evaluation {
        rows,
        seconds,
        quick: env.quick,
    })
}

/// Label counts per paper prefix (and "all").
pub fn label_counts(ev: &Evaluation) -> BTreeMap<String, BTreeMap<Label, usize>> {
    let reg = registry();
    let mut m: BTreeMap<String, BTreeMap<Label, usize>> = BTreeMap::new();
    for r in &ev.rows {
        let paper = reg
            .claim(&r.id)
            .map(|c| c.paper.clone())
            .unwrap_or_default();
        for key in [paper, "all".to_string()] {
            *m.entry(key).or_default().entry(r.label()).or_default() += 1;
        }
    }
    m
}

/// One cell of `claims.csv`'s `measured` column: the single point's value, or the
/// first failing point's when the row is not robust.
fn measured_summary(r: &RowResult) -> String {
    match r.points.as_slice() {
        [] => String::new(),
        [p] => p.measured.clone(),
        ps => {
            let pick = ps
                .iter()
                .find(|p| p.verdict != super::judge::Verdict::Holds)
                .unwrap_or(&ps[0]);
            format!(
                "{} at {} (all {} points in points.csv)",
                pick.measured,
                pick.params_text(),
                ps.len()
            )
        }
    }
}

/// The `why` column: why a row is not evaluable, or where a conditional row holds and
/// the cause its evaluator computed for a miss.
/// A row that is not robust and concerns one of the papers' own inconsistencies (the
/// registry's `contradiction`) says so: a miss there may be the paper's.
fn why(r: &RowResult) -> String {
    let paper = registry()
        .claim(&r.id)
        .filter(|c| !c.contradiction.is_empty() && r.label() != Label::Robust)
        .map(|c| format!("paper inconsistency {}", c.contradiction));
    let parts: Vec<String> = [
        r.not_evaluable.clone(),
        r.holds_where(),
        r.cause.clone(),
        setup_kind(r),
        level_note(r),
        paper,
    ]
    .into_iter()
    .flatten()
    .collect();
    parts.join("; ")
}

/// The kind of cause of a conditional row whose evaluator named none: by the registry's
/// rules a conditional row holds at some points of its free-parameter grid and not at
/// others, so what decides it is a setting the paper leaves open, and `points.csv` (the
/// verdict at every point) is the output that isolates which.
fn setup_kind(r: &RowResult) -> Option<String> {
    const KINDS: [&str; 6] = [
        "setup",
        "hardware",
        "mechanism",
        "vague",
        "inconsistency",
        "kind:",
    ];
    let named = r
        .cause
        .as_deref()
        .is_some_and(|c| KINDS.iter().any(|k| c.contains(k)));
    (r.label() == Label::Conditional && !named).then(|| {
        "kind: setup the paper leaves open — the registry's free parameters decide it \
         (the verdict at every point is in points.csv)"
            .to_string()
    })
}

/// Where a conditional row's isolating output is its grid's main effects (it has no
/// experiment of its own): the parameter that moves it most, and the pointer to the
/// table of every level's holding points in `isolation.csv`.
fn level_note(r: &RowResult) -> Option<String> {
    if !r.isolation.is_empty() {
        return None;
    }
    r.deciding_parameter().map(|d| {
        format!("{d}; the points holding at each level of every free parameter (isolation.csv)")
    })
}

/// The rows a result contributes to `isolation.csv`: its own isolating experiment's, or
/// for a conditional row without one, its free parameters' main effects.
fn isolation_rows(r: &RowResult) -> Vec<(String, String)> {
    if r.isolation.is_empty() {
        r.level_table()
    } else {
        r.isolation.clone()
    }
}

/// Writes `claims.csv`, `points.csv` and `summary.md` into `ctx`.
pub fn write(ev: &Evaluation, ctx: &mut Ctx) {
    let reg = registry();
    let header = [
        "id",
        "paper",
        "title",
        "kind",
        "experiment",
        "label",
        "points_holding",
        "points_unresolved",
        "points_evaluated",
        "points_registered",
        "measured",
        "paper_values",
        "criterion",
        "why",
    ];
    let mut rows = Vec::new();
    let mut points = Vec::new();
    for r in &ev.rows {
        let c = reg.claim(&r.id).expect("rows come from the registry");
        let why = why(r);
        rows.push(vec![
            c.id.clone(),
            c.paper.clone(),
            c.title.clone(),
            c.kind.clone(),
            c.experiment.clone(),
            r.label().word().to_string(),
            r.holding().to_string(),
            r.unresolved().to_string(),
            r.points.len().to_string(),
            c.points.to_string(),
            measured_summary(r),
            c.paper_values.clone(),
            c.criterion.clone(),
            why,
        ]);
        for (i, p) in r.points.iter().enumerate() {
            points.push(vec![
                c.id.clone(),
                i.to_string(),
                p.params_text(),
                p.measured.clone(),
                p.verdict.word().to_string(),
            ]);
        }
    }
    ctx.csv("claims", &header, rows);
    ctx.csv(
        "points",
        &["id", "point", "parameters", "measured", "verdict"],
        points,
    );
    let isolation: Vec<Vec<String>> = ev
        .rows
        .iter()
        .flat_map(|r| {
            isolation_rows(r)
                .into_iter()
                .map(|(setting, measured)| vec![r.id.clone(), setting, measured])
        })
        .collect();
    ctx.csv("isolation", &["id", "setting", "measured"], isolation);
    ctx.markdown("summary", summary(ev));
    ctx.markdown("experiments", designs(ev));
}

/// `summary.md`, generated from the evaluation alone.
pub fn summary(ev: &Evaluation) -> String {
    let reg = registry();
    let counts = label_counts(ev);
    let pl = placement_registry();
    let placement = if ev.rows.iter().any(|r| pl.claim(&r.id).is_some()) {
        format!(
            " and the placement registry (v{}, {})",
            pl.version, pl.issued
        )
    } else {
        String::new()
    };
    let mut s = format!(
        "# ssdlab against the claims registry (v{}, {}){placement}\n\n\
         Every row of the registry is listed; a row is judged at every point of its \
         free-parameter grid{}, and its label follows from the points alone \
         (robust: all hold; conditional: some; fails: none; unresolved: none hold and \
         the seeds disagreed at some; not evaluable: ssdlab cannot run it yet).\n\n",
        reg.version,
        reg.issued,
        if ev.quick {
            " — **quick run: only the ends of each range, so these labels are not the \
             registry's verdict**"
        } else {
            ""
        }
    );
    let mut header = vec!["paper".to_string()];
    header.extend(Label::ALL.iter().map(|l| l.word().to_string()));
    header.push("rows".into());
    let mut table = Vec::new();
    let mut keys: Vec<String> = reg.papers.iter().map(|p| p.prefix.clone()).collect();
    keys.push("all".into());
    for k in keys {
        let Some(m) = counts.get(&k) else { continue };
        let title = reg
            .paper(&k)
            .map(|p| format!("{} ({})", k, p.title))
            .unwrap_or_else(|| "all".into());
        let mut row = vec![title];
        row.extend(
            Label::ALL
                .iter()
                .map(|l| m.get(l).copied().unwrap_or(0).to_string()),
        );
        row.push(m.values().sum::<usize>().to_string());
        table.push(row);
    }
    let hdr: Vec<&str> = header.iter().map(|h| h.as_str()).collect();
    s.push_str(&md_table(&hdr, &table));
    s.push_str("\n## Rows\n\n");
    let mut rows = Vec::new();
    for r in &ev.rows {
        let c = reg.claim(&r.id).expect("registry row");
        let pts = if r.points.is_empty() {
            "–".to_string()
        } else {
            format!("{}/{}", r.holding(), r.points.len())
        };
        let why = why(r);
        rows.push(vec![
            c.id.clone(),
            c.title.clone(),
            r.label().word().to_string(),
            pts,
            measured_summary(r),
            why,
        ]);
    }
    s.push_str(&md_table(
        &[
            "id",
            "claim",
            "label",
            "points holding",
            "measured",
            "cause / why not evaluable",
        ],
        &rows,
    ));
    if !ev.seconds.is_empty() {
        s.push_str("\n## Time per experiment\n\n");
        let t: Vec<Vec<String>> = ev
            .seconds
            .iter()
            .map(|(x, secs)| vec![x.clone(), format!("{secs:.1}")])
            .collect();
        s.push_str(&md_table(&["experiment", "seconds"], &t));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A conditional row without a named kind of cause gets the registry's: its free
    /// parameters decide it; a row whose evaluator named one, or a row that is not
    /// conditional, gets nothing added.
    #[test]
    fn a_conditional_row_without_a_kind_is_said_to_depend_on_its_setup() {
        use super::super::judge::{Point, Verdict};
        let p = |v| Point::new(vec![("x".into(), "1".into())], "", v);
        let cond = RowResult::evaluated("M32", vec![p(Verdict::Holds), p(Verdict::Fails)]);
        assert!(setup_kind(&cond).unwrap().contains("points.csv"));
        let named = cond.clone().with_cause("a hardware difference: the buses");
        assert_eq!(setup_kind(&named), None);
        let fails = RowResult::evaluated("M32", vec![p(Verdict::Fails)]);
        assert_eq!(setup_kind(&fails), None);
        assert!(why(&cond).contains("kind: setup the paper leaves open"));
    }

    /// A conditional row's main effects, hand-counted: x=1 holds at both of its points,
    /// x=2 at none, y holds at one of two at each level; so x decides it, and a row with
    /// an isolating experiment of its own keeps that experiment's rows.
    #[test]
    fn a_conditional_row_gets_its_main_effects_in_isolation_csv() {
        use super::super::judge::{Point, Verdict};
        let p = |x: &str, y: &str, v| {
            Point::new(vec![("x".into(), x.into()), ("y".into(), y.into())], "", v)
        };
        let r = RowResult::evaluated(
            "M32",
            vec![
                p("1", "a", Verdict::Holds),
                p("1", "b", Verdict::Holds),
                p("2", "a", Verdict::Fails),
                p("2", "b", Verdict::Fails),
            ],
        );
        let t = isolation_rows(&r);
        let want = [
            ("x=1", "holds at 2 of 2 points (100 %)"),
            ("x=2", "holds at 0 of 2 points (0 %)"),
            ("y=a", "holds at 1 of 2 points (50 %)"),
            ("y=b", "holds at 1 of 2 points (50 %)"),
        ];
        assert_eq!(t.len(), 4);
        for (got, (s, m)) in t.iter().zip(want) {
            assert_eq!((got.0.as_str(), got.1.as_str()), (s, m));
        }
        let w = why(&r);
        assert!(
            w.contains("decided most by x: 0 % of points hold with x=2, 100 % with x=1"),
            "{w}"
        );
        let own = r.clone().with_isolation(vec![("s".into(), "m".into())]);
        assert_eq!(
            isolation_rows(&own),
            vec![("s".to_string(), "m".to_string())]
        );
        assert!(!why(&own).contains("decided most"));
        let fails = RowResult::evaluated("M32", vec![p("1", "a", Verdict::Fails)]);
        assert!(isolation_rows(&fails).is_empty());
    }

    fn env() -> Env {
        Env {
            quick: true,
            work: None,
            traces: TraceDir::Missing("test".into()),
        }
    }

    /// One evaluation of the whole registry shared by the tests.
    fn whole() -> &'static Evaluation {
        static E: std::sync::OnceLock<Evaluation> = std::sync::OnceLock::new();
        // Papers C and H evaluate in seconds (C and H3 without simulator runs, H1 and
        // H2 on their quick grids); the whole registry runs in tests/reproduce_registry.rs.
        E.get_or_init(|| evaluate(&env(), &["C".to_string(), "H".to_string()]).unwrap())
    }

    #[test]
    fn every_registry_row_gets_exactly_one_result_in_registry_order() {
        let ev = whole();
        let ids: Vec<&str> = ev.rows.iter().map(|r| r.id.as_str()).collect();
        let want: Vec<&str> = registry()
            .claims
            .iter()
            .filter(|c| c.paper == "C" || c.paper == "H")
            .map(|c| c.id.as_str())
            .collect();
        assert_eq!(ids, want);
        for r in &ev.rows {
            if r.label() == Label::NotEvaluable {
                assert!(
                    r.not_evaluable.as_deref().is_some_and(|w| !w.is_empty()),
                    "{}",
                    r.id
                );
            }
        }
    }

    #[test]
    fn claims_csv_has_one_row_per_registry_id_and_the_summary_counts_them() {
        let ev = whole();
        let mut ctx = Ctx::new();
        write(ev, &mut ctx);
        let csv = &ctx
            .files()
            .iter()
            .find(|f| f.file_name == "claims.csv")
            .unwrap()
            .contents;
        let mut rd = csv::Reader::from_reader(csv.as_bytes());
        assert_eq!(rd.records().count(), ev.rows.len());
        let s = summary(ev);
        let total = ev.rows.len().to_string();
        assert!(s.contains(&format!("| {total} |")), "{s}");
        assert!(s.contains("quick run"));
    }

    #[test]
    fn a_paper_filter_keeps_only_its_rows() {
        let ev = evaluate(&env(), &["C".to_string()]).unwrap();
        assert!(!ev.rows.is_empty());
        assert!(ev.rows.iter().all(|r| r.id.starts_with('C')));
    }
}
