//! A multi-phase workload: `[[workload.phase]]` entries, each a single generator, run
//! one after another on the same device (no reset, no preconditioning in between) and
//! reported as separate phases.
//!
//! ```text
//! [workload]            span = "2GiB"            ◀── keys every phase inherits
//! [[workload.phase]]    kind = "random-write", requests = 1000     phase 0, seed + 0
//! [[workload.phase]]    kind = "random-read",  requests = 500      phase 1, seed + 1
//!                                   │
//!   phase i = [workload] without `phase`, overlaid with entry i (minus `name`)
//!           = a SynthConfig, validated as one, generated with seed + i
//! ```
//!
//! Phase `i` (0-based) draws from seed + i, as the iozone suite's phases do, so two
//! phases of the same generator do not replay each other's offsets. A phase's report
//! name is its `name` key, or its generator's name. Only single generators may be
//! phases (not iozone, probe, andrew or iometer, which expand into phases or lay out
//! addresses of their own).

use super::{SynthConfig, SynthPhase, generate as generate_one};
use crate::spec::ConfigError;

/// Entry `i` resolved: its report name and its generator settings.
pub fn resolve(cfg: &SynthConfig, i: usize) -> Result<(String, SynthConfig), ConfigError> {
    let key = |k: &str| format!("workload.phase[{i}].{k}");
    let base = SynthConfig {
        phase: Vec::new(),
        ..cfg.clone()
    };
    let mut table = toml::Table::try_from(&base).expect("the workload table serializes");
    let mut own = cfg.phase[i].clone();
    let name = match own.remove("name") {
        None => None,
        Some(toml::Value::String(s)) if !s.is_empty() => Some(s),
        Some(v) => {
            return Err(ConfigError::value(
                key("name"),
                v,
                "a non-empty string: the phase's name in the report",
            ));
        }
    };
    if own.contains_key("phase") {
        return Err(ConfigError::value(
            key("phase"),
            "[…]",
            "no phases inside a phase: list every phase under [[workload.phase]]",
        ));
    }
    table.extend(own);
    let mut p: SynthConfig = table.try_into().map_err(|e: toml::de::Error| {
        ConfigError::Workload(format!("workload.phase[{i}]: {}", e.message()))
    })?;
    // The entry's own generator table wins over the keys the entry inherits.
    p.fold_tables(false).map_err(|e| in_phase(e, i))?;
    if !p.kind.is_single() {
        return Err(ConfigError::value(
            key("kind"),
            p.kind.name(),
            "a single generator (seq-write, seq-read, random-write, random-read, mixed, \
             zipf, hot-cold, oltp, compile); every phase inherits [workload]'s kind \
             (default iozone) unless it sets its own",
        ));
    }
    Ok((name.unwrap_or_else(|| p.kind.name().to_string()), p))
}

/// Names a phase's error by its entry: `workload.X` becomes `workload.phase[i].X`.
fn in_phase(e: ConfigError, i: usize) -> ConfigError {
    match e {
        ConfigError::Value {
            key,
            value,
            expected,
        } => ConfigError::Value {
            key: key.replacen("workload.", &format!("workload.phase[{i}]."), 1),
            value,
            expected,
        },
        ConfigError::Workload(m) if m.starts_with("workload.phase[") => ConfigError::Workload(m),
        ConfigError::Workload(m) => ConfigError::Workload(format!("workload.phase[{i}]: {m}")),
        other => other,
    }
}

/// Checks every phase against a device of `capacity_bytes`.
pub fn check(cfg: &SynthConfig, capacity_bytes: u64, seed: u64) -> Result<(), ConfigError> {
    for i in 0..cfg.phase.len() {
        let (_, p) = resolve(cfg, i)?;
        super::check(&p, capacity_bytes, seed.wrapping_add(i as u64))
            .map_err(|e| in_phase(e, i))?;
    }
    Ok(())
}

/// The phases, in order, phase `i` seeded with `seed + i`.
pub fn generate(
    cfg: &SynthConfig,
    capacity_bytes: u64,
    seed: u64,
) -> Result<Vec<SynthPhase>, ConfigError> {
    check(cfg, capacity_bytes, seed)?;
    let mut out = Vec::with_capacity(cfg.phase.len());
    for i in 0..cfg.phase.len() {
        let (name, p) = resolve(cfg, i)?;
        let mut one = generate_one(&p, capacity_bytes, seed.wrapping_add(i as u64))
            .map_err(|e| in_phase(ConfigError::Workload(e.to_string()), i))?;
        debug_assert_eq!(one.len(), 1, "a single generator is one phase");
        let mut ph = one.remove(0);
        ph.name = name;
        out.push(ph);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::OpKind;

    /// A phase as (name, [(op, offset KiB, size KiB)]).
    type Seen = (String, Vec<(OpKind, u64, u64)>);

    fn workload(text: &str) -> SynthConfig {
        toml::from_str(text).expect("a workload table")
    }

    #[test]
    fn two_phases_run_in_order_with_their_own_keys() {
        // Phase 0 inherits span 64 KiB and size 4 KiB: offsets 0, 4, 8 KiB (sequential).
        // Phase 1 reads 8 KiB from offset 16 KiB over a 16 KiB span: 16, 24, then wraps
        // to 16 KiB.
        let w = workload(
            r#"
            span = "64KiB"
            size = "4KiB"
            [[phase]]
            kind = "seq-write"
            requests = 3
            [[phase]]
            kind = "seq-read"
            name = "reads"
            size = "8KiB"
            offset = "16KiB"
            span = "16KiB"
            requests = 3
            "#,
        );
        let phases = generate(&w, 1 << 20, 7).unwrap();
        let got: Vec<Seen> = phases
            .into_iter()
            .map(|p| {
                let reqs = p
                    .requests
                    .map(|r| (r.op, r.offset_bytes / 1024, r.size_bytes / 1024))
                    .collect();
                (p.name, reqs)
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "seq-write".to_string(),
                    vec![
                        (OpKind::Write, 0, 4),
                        (OpKind::Write, 4, 4),
                        (OpKind::Write, 8, 4)
                    ]
                ),
                (
                    "reads".to_string(),
                    vec![
                        (OpKind::Read, 16, 8),
                        (OpKind::Read, 24, 8),
                        (OpKind::Read, 16, 8)
                    ]
                ),
            ]
        );
    }

    #[test]
    fn phase_i_draws_from_seed_plus_i() {
        let w = workload(
            r#"
            kind = "random-write"
            span = "1MiB"
            requests = 50
            [[phase]]
            [[phase]]
            "#,
        );
        let offsets = |p: SynthPhase| p.requests.map(|r| r.offset_bytes).collect::<Vec<_>>();
        let mut ph = generate(&w, 1 << 20, 5).unwrap();
        let (second, first) = (offsets(ph.pop().unwrap()), offsets(ph.pop().unwrap()));
        assert_ne!(first, second, "phases must not replay each other's offsets");
        let single = |seed| {
            let one = SynthConfig {
                phase: Vec::new(),
                ..w.clone()
            };
            offsets(generate_one(&one, 1 << 20, seed).unwrap().remove(0))
        };
        assert_eq!(first, single(5));
        assert_eq!(second, single(6));
    }

    #[test]
    fn errors_name_the_phase_and_its_key() {
        let err = |text: &str| check(&workload(text), 1 << 20, 1).unwrap_err().to_string();
        // No kind anywhere: the default iozone suite cannot be a phase.
        let e = err("[[phase]]\nspan = \"64KiB\"");
        assert!(e.starts_with("workload.phase[0].kind = iozone"), "{e}");
        let e = err("kind = \"seq-write\"\n[[phase]]\n[[phase]]\nsize = \"3KiB\"");
        assert!(
            e.contains("workload.phase[1]") && e.contains("align"),
            "{e}"
        );
        let e = err("kind = \"seq-write\"\n[[phase]]\nsapn = \"1MiB\"");
        assert!(e.contains("workload.phase[0]") && e.contains("sapn"), "{e}");
        let e = err("kind = \"seq-write\"\n[[phase]]\noffset = \"1020KiB\"\nspan = \"8KiB\"");
        assert!(e.starts_with("workload.phase[0].span"), "{e}");
        let e = err("kind = \"seq-write\"\n[[phase]]\nname = 3");
        assert!(e.starts_with("workload.phase[0].name"), "{e}");
    }

    #[test]
    fn offset_moves_a_single_generator() {
        let w = workload("kind = \"seq-write\"\noffset = \"8KiB\"\nrequests = 2");
        let p = generate_one(&w, 16 * 1024, 1).unwrap().remove(0);
        let offs: Vec<u64> = p.requests.map(|r| r.offset_bytes).collect();
        // Span defaults to the 8 KiB above the offset.
        assert_eq!(offs, vec![8192, 12288]);
        let bad = workload("kind = \"iozone\"\noffset = \"8KiB\"");
        let e = super::super::check(&bad, 1 << 20, 1)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("workload.offset"), "{e}");
    }
}
