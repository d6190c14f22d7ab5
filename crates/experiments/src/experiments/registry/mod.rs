//! The claims registry: every result of the five seed papers that can be checked, with a
//! mechanical criterion, the experiment that feeds it and the range of every parameter
//! the paper leaves open, fixed before anything was run (`registry/claims.toml`, carried
//! in the binary). `ssdlab reproduce --all` judges every row by it.
//!
//! ```text
//! registry/claims.toml ──load──▶ Registry { rules, papers, experiments, claims }
//! registry/placement.toml ─load─▶ Registry (placement registry v1: papers F and Z)
//!                                   │ merged: papers, experiments and claims appended
//!                                   │ after the seed registry's, ids unique across both
//!                                   │
//!   evaluators (one file per experiment, registered in evaluators::all)
//!        │ each runs its experiment's whole free-parameter grid (seeds 1–3 where
//!        │ the runs use random numbers) and applies the criterion at every point
//!        ▼
//!   RowResult per claim id ──label──▶ robust | conditional | fails | unresolved
//!   (a claim whose experiment is not built yet: not evaluable, with the reason)
//!        ▼
//!   claims.csv (one row per registry id, never fewer) + points.csv + summary.md
//! ```
//!
//! The labels follow the registry's rule 0.1 and 0.5: a point holds, fails, or is
//! unresolved (the seeds disagree by more than the margin the criterion tests); robust =
//! every point holds; conditional = some but not all hold; fails = none holds and none is
//! unresolved; unresolved = none holds and at least one is unresolved. Unresolved points
//! count as not holding. Nothing here decides a label by hand: [`RowResult::label`] is the
//! only place labels are made.

pub mod eval;
pub mod exp_a1;
pub mod exp_a2;
pub mod exp_a3;
pub mod exp_c1;
pub mod exp_c2;
pub mod exp_c3;
pub mod exp_f1;
pub mod exp_f2;
pub mod exp_f3;
pub mod exp_h1;
pub mod exp_h2;
pub mod exp_h3;
pub mod exp_h4;
pub mod exp_m1;
pub mod exp_m10;
pub mod exp_m11;
pub mod exp_m12;
pub mod exp_m2;
pub mod exp_m3;
pub mod exp_m4;
pub mod exp_m5;
pub mod exp_m6;
pub mod exp_m7;
pub mod exp_m8;
pub mod exp_m9;
pub mod exp_n1;
pub mod exp_n2;
pub mod exp_n3;
pub mod exp_n4;
pub mod exp_z1;
pub mod grid_run;
pub mod judge;

use serde::Deserialize;
use std::sync::OnceLock;

/// The registry file, carried in the binary (the program never needs `../shared`).
pub const REGISTRY_TOML: &str = include_str!("../../../../../registry/claims.toml");

/// The placement registry (issue 33 point 5: FDP and ZNS results, pre-stated before any
/// run), in the same schema, carried the same way and judged beside the seed registry.
pub const PLACEMENT_TOML: &str = include_str!("../../../../../registry/placement.toml");

/// The registry files in the order their rows are judged and listed: (file, text).
pub const REGISTRY_FILES: [(&str, &str); 2] = [
    ("registry/claims.toml", REGISTRY_TOML),
    ("registry/placement.toml", PLACEMENT_TOML),
];

/// The whole registry.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Registry {
    /// Registry version; a changed criterion or range is a new version.
    pub version: u32,
    /// When it was issued.
    pub issued: String,
    /// What it is.
    pub source: String,
    /// The rules every row follows (§0).
    #[serde(default, rename = "rule")]
    pub rules: Vec<Rule>,
    /// The five papers.
    #[serde(rename = "paper")]
    pub papers: Vec<Paper>,
    /// The experiments (§8).
    #[serde(rename = "experiment")]
    pub experiments: Vec<ExperimentDef>,
    /// The claims.
    #[serde(rename = "claim")]
    pub claims: Vec<ClaimDef>,
    /// Design invariants (unit tests, not claims).
    #[serde(default, rename = "invariant")]
    pub invariants: Vec<Note>,
    /// The papers' own inconsistencies (§6).
    #[serde(default, rename = "inconsistency")]
    pub inconsistencies: Vec<Inconsistency>,
}

/// A rule of §0.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// e.g. "0.2".
    pub id: String,
    /// Short name.
    pub title: String,
    /// The rule.
    pub text: String,
}

/// One seed paper.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Paper {
    /// Claim-id prefix: M, N, C, A or H.
    pub prefix: String,
    /// Seed number, "000" … "004".
    pub seed: String,
    /// Authors and title.
    pub title: String,
}

/// One experiment of §8.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentDef {
    /// e.g. "EXP-M9".
    pub id: String,
    /// Paper prefix.
    pub paper: String,
    /// Short title.
    pub title: String,
    /// Fixed setup.
    pub setup: String,
    /// Claims it feeds.
    pub claims: Vec<String>,
    /// The grid sizes, as the registry states them.
    pub grid_note: String,
    /// Free parameters, in order.
    #[serde(default, rename = "parameter")]
    pub parameters: Vec<Parameter>,
}

/// A free parameter and its levels.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parameter {
    /// Identifier, unit last.
    pub name: String,
    /// Levels, as listed.
    pub levels: Vec<String>,
    /// Why this range.
    pub why: String,
    /// Which rows it applies to ("" = all).
    #[serde(default)]
    pub applies_to: String,
}

/// One claim.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimDef {
    /// e.g. "M2".
    pub id: String,
    /// Paper prefix.
    pub paper: String,
    /// Short title.
    pub title: String,
    /// Where in the paper.
    pub paper_ref: String,
    /// What the paper says.
    pub statement: String,
    /// The paper's numbers (text; never an input to a computation).
    pub paper_values: String,
    /// value, ranking, ratio, direction, crossover, threshold or trend.
    pub kind: String,
    /// The mechanical test.
    pub criterion: String,
    /// The first experiment it uses.
    pub experiment: String,
    /// Every experiment it uses.
    pub experiments: Vec<String>,
    /// The row's own grid.
    pub row_grid: String,
    /// Grid points of this row.
    pub points: u32,
    /// How the label follows from the points.
    pub robust_rule: String,
    /// Whether the paper is too vague for a fully mechanical criterion.
    pub vague: bool,
    /// The registry's reading of the vague wording.
    #[serde(default)]
    pub vague_reading: String,
    /// A §6 inconsistency that concerns the row.
    #[serde(default)]
    pub contradiction: String,
    /// Notes.
    #[serde(default)]
    pub notes: String,
}

/// A design invariant.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Note {
    /// e.g. "D4".
    pub id: String,
    /// What must hold.
    pub text: String,
}

/// An inconsistency of a paper (§6).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inconsistency {
    /// e.g. "6.1".
    pub id: String,
    /// Claims it concerns.
    #[serde(default)]
    pub rows: Vec<String>,
    /// What is inconsistent.
    pub text: String,
}

/// Why the claims registry is refused: the TOML, or a cross-reference between claims,
/// papers and experiments, naming both ends.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RegistryError {
    /// The text does not parse (the parser names the key).
    #[error("{file}: {message}")]
    Syntax {
        /// The registry file.
        file: String,
        /// The parser's message.
        message: String,
    },
    /// A claim is duplicated or names a paper or experiment that is not there.
    #[error("registry: claim {claim} {problem}")]
    Claim {
        /// The claim's id.
        claim: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A claim's main experiment is not among its experiments.
    #[error("registry: claim {claim}: experiment {experiment} not in its experiments")]
    MainNotListed {
        /// The claim.
        claim: String,
        /// Its `experiment`.
        experiment: String,
    },
    /// An experiment a claim names does not list the claim back.
    #[error("registry: {experiment} does not list claim {claim}")]
    Unlisted {
        /// The experiment.
        experiment: String,
        /// The claim.
        claim: String,
    },
    /// Two registries define the same paper prefix or experiment id.
    #[error("registry: {what} {id} is defined in {file} and before it")]
    Duplicate {
        /// "paper" or "experiment".
        what: &'static str,
        /// The prefix or id.
        id: String,
        /// The later file.
        file: String,
    },
    /// An experiment lists a claim that is not in the registry.
    #[error("registry: {experiment} lists unknown claim {claim}")]
    UnknownClaim {
        /// The experiment.
        experiment: String,
        /// The claim.
        claim: String,
    },
}

impl Registry {
    /// Parses registry text and checks its cross-references.
    pub fn parse(text: &str) -> Result<Registry, RegistryError> {
        Registry::parse_file("registry/claims.toml", text)
    }

    /// [`Registry::parse`] of the file named `file` (named in a syntax error).
    pub fn parse_file(file: &str, text: &str) -> Result<Registry, RegistryError> {
        let r: Registry = toml::from_str(text).map_err(|e| RegistryError::Syntax {
            file: file.to_string(),
            message: e.to_string(),
        })?;
        r.check()?;
        Ok(r)
    }

    /// Parses several registry files and joins them into one: the first file's version,
    /// date, source and rules; every file's papers, experiments, claims, invariants and
    /// inconsistencies in file order. A paper prefix, experiment id or claim id defined
    /// twice is refused, naming the later file.
    pub fn parse_all(files: &[(&str, &str)]) -> Result<Registry, RegistryError> {
        let mut all: Option<Registry> = None;
        for (file, text) in files {
            let r = Registry::parse_file(file, text)?;
            let Some(a) = all.as_mut() else {
                all = Some(r);
                continue;
            };
            let dup = |what, id: &str| RegistryError::Duplicate {
                what,
                id: id.to_string(),
                file: file.to_string(),
            };
            if let Some(p) = r.papers.iter().find(|p| a.paper(&p.prefix).is_some()) {
                return Err(dup("paper", &p.prefix));
            }
            if let Some(x) = r.experiments.iter().find(|x| a.experiment(&x.id).is_some()) {
                return Err(dup("experiment", &x.id));
            }
            a.papers.extend(r.papers);
            a.experiments.extend(r.experiments);
            a.claims.extend(r.claims);
            a.invariants.extend(r.invariants);
            a.inconsistencies.extend(r.inconsistencies);
            a.check()?;
        }
        Ok(all.expect("at least one registry file"))
    }

    fn check(&self) -> Result<(), RegistryError> {
        let mut seen = std::collections::BTreeSet::new();
        let broken = |claim: &str, problem: String| RegistryError::Claim {
            claim: claim.to_string(),
            problem,
        };
        for c in &self.claims {
            if !seen.insert(c.id.as_str()) {
                return Err(broken(&c.id, "appears twice".into()));
            }
            if !self.papers.iter().any(|p| p.prefix == c.paper) {
                return Err(broken(&c.id, format!("names paper {}", c.paper)));
            }
            for e in &c.experiments {
                let Some(x) = self.experiment(e) else {
                    return Err(broken(&c.id, format!("names unknown {e}")));
                };
                if !x.claims.contains(&c.id) {
                    return Err(RegistryError::Unlisted {
                        experiment: e.clone(),
                        claim: c.id.clone(),
                    });
                }
            }
            if !c.experiments.contains(&c.experiment) {
                return Err(RegistryError::MainNotListed {
                    claim: c.id.clone(),
                    experiment: c.experiment.clone(),
                });
            }
        }
        for x in &self.experiments {
            for id in &x.claims {
                if self.claim(id).is_none() {
                    return Err(RegistryError::UnknownClaim {
                        experiment: x.id.clone(),
                        claim: id.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The claim `id`.
    pub fn claim(&self, id: &str) -> Option<&ClaimDef> {
        self.claims.iter().find(|c| c.id == id)
    }

    /// The experiment `id`.
    pub fn experiment(&self, id: &str) -> Option<&ExperimentDef> {
        self.experiments.iter().find(|x| x.id == id)
    }

    /// The paper with claim prefix `prefix`.
    pub fn paper(&self, prefix: &str) -> Option<&Paper> {
        self.papers.iter().find(|p| p.prefix == prefix)
    }
}

/// The command-line name of each paper (`ssdlab reproduce NAME`), by claim prefix: what
/// the paper is about, in a word or two.
pub const PAPER_NAMES: [(&str, &str); 7] = [
    ("mgmt-block", "M"),
    ("ncq-buffer", "N"),
    ("cftl", "C"),
    ("android-ftl", "A"),
    ("hdd-cache", "H"),
    ("fdp", "F"),
    ("zns", "Z"),
];

/// The claim prefix of the paper named `name` on the command line.
pub fn paper_prefix(name: &str) -> Option<&'static str> {
    PAPER_NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, p)| *p)
}

/// The registries carried in the binary, joined: the seed papers' claims, then the
/// placement registry's.
pub fn registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        Registry::parse_all(&REGISTRY_FILES).expect("the built-in registries are valid")
    })
}

/// The placement registry alone (its version and date head the summary when its rows
/// are judged).
pub fn placement_registry() -> &'static Registry {
    static R: OnceLock<Registry> = OnceLock::new();
    R.get_or_init(|| {
        Registry::parse_file(REGISTRY_FILES[1].0, PLACEMENT_TOML)
            .expect("the built-in placement registry is valid")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_registry_parses_and_cross_references() {
        let r = registry();
        assert!(!r.claims.is_empty());
        for c in &r.claims {
            assert!(r.experiment(&c.experiment).is_some(), "{}", c.id);
            assert!(c.points >= 1, "{}: points", c.id);
        }
    }

    #[test]
    fn a_claim_naming_an_unknown_experiment_is_refused() {
        let text = r#"
            version = 1
            issued = "x"
            source = "x"
            [[paper]]
            prefix = "M"
            seed = "000"
            title = "t"
            [[experiment]]
            id = "EXP-M5"
            paper = "M"
            title = "t"
            setup = "s"
            claims = ["M33"]
            grid_note = "1"
            [[claim]]
            id = "M33"
            paper = "M"
            title = "t"
            paper_ref = "r"
            statement = "s"
            paper_values = "v"
            kind = "value"
            criterion = "c"
            experiment = "EXP-M9"
            experiments = ["EXP-M9"]
            row_grid = "none"
            points = 1
            robust_rule = "r"
            vague = false
        "#;
        let e = Registry::parse(text).unwrap_err().to_string();
        assert!(e.contains("M33") && e.contains("EXP-M9"), "{e}");
    }

    /// The joined registry holds both files' rows, the seed rows first, each id once.
    #[test]
    fn the_placement_registry_is_joined_after_the_seed_registry() {
        let seed = Registry::parse(REGISTRY_TOML).unwrap();
        let placement = placement_registry();
        let all = registry();
        assert_eq!(all.claims.len(), seed.claims.len() + placement.claims.len());
        assert!(
            placement
                .claims
                .iter()
                .all(|c| c.paper == "F" || c.paper == "Z")
        );
        assert_eq!(all.claims[seed.claims.len()].id, placement.claims[0].id);
        assert!(all.experiment("EXP-F1").is_some() && all.paper("Z").is_some());
        assert_eq!(
            (all.version, all.issued.as_str()),
            (seed.version, seed.issued.as_str())
        );
    }

    /// A second file redefining an experiment of the first is refused, naming it.
    #[test]
    fn an_experiment_defined_in_two_registries_is_refused() {
        let twice = [
            ("registry/claims.toml", REGISTRY_TOML),
            ("again.toml", REGISTRY_TOML),
        ];
        let e = Registry::parse_all(&twice).unwrap_err().to_string();
        assert!(e.contains("again.toml") && e.contains("paper M"), "{e}");
        let e = Registry::parse_file("x.toml", "version = ")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.toml: "), "{e}");
    }
}
