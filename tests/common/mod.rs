//! Helpers shared by the integration tests.
#![allow(dead_code)]

use ssdlab::nand::Geometry;

/// One-plane geometry with `blocks` blocks of `pages` pages.
pub fn one_plane(blocks: u32, pages: u32) -> Geometry {
    Geometry {
        channels: 1,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 1,
        blocks_per_plane: blocks,
        pages_per_block: pages,
        page_size_bytes: 4096,
        oob_size_bytes: 128,
    }
}

/// Principal branch of Lambert W for x in [-1/e, 0), by Halley iteration.
pub fn lambert_w0(x: f64) -> f64 {
    assert!((-1.0 / std::f64::consts::E..0.0).contains(&x));
    let mut w = if x < -0.3 {
        -1.0 + (2.0 * (1.0 + std::f64::consts::E * x)).sqrt()
    } else {
        x
    };
    for _ in 0..100 {
        let ew = w.exp();
        let f = w * ew - x;
        let next = w - f / (ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0));
        if (next - w).abs() < 1e-15 {
            return next;
        }
        w = next;
    }
    w
}

/// Write amplification of FIFO cleaning under uniform random single-page writes with
/// `alpha` = physical / logical blocks (Hu et al. 2009; Desnoyers 2012).
pub fn fifo_wa(alpha: f64) -> f64 {
    let x = -lambert_w0(-alpha * (-alpha).exp()) / alpha;
    1.0 / (1.0 - x)
}

/// Runs `ssdlab reproduce NAME --quick` from the checkout (where the trace samples
/// beside it are found) into a fresh directory, checks that it succeeded and wrote every
/// one of `files`, and returns the directory (dropping it deletes the outputs) and the
/// output path.
pub fn reproduce_quick(name: &str, files: &[&str]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(name);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["reproduce", name, "--quick", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in files {
        assert!(out.join(f).exists(), "{name}: {f} missing");
    }
    (dir, out)
}

/// Runs the `ssdlab` binary with `args` and collects its output.
pub fn ssdlab(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .output()
        .expect("run ssdlab")
}

/// A command's standard error as text.
pub fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A command's standard output as text.
pub fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs ssdlab with `args` and asserts it refused them: exit 2, every one of `names`
/// in the message, no panic.
pub fn refused(args: &[&str], names: &[&str]) {
    let o = ssdlab(args);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
    assert!(!e.contains("panicked"), "{args:?}: {e}");
    for n in names {
        assert!(e.contains(n), "{args:?}: `{n}` not in: {e}");
    }
}

/// A short run on a small drive (256 MiB, random writes, `requests` requests) with
/// `extra` flags after.
pub fn quick_run(requests: &str, extra: &[&str]) -> std::process::Output {
    let mut a = vec![
        "run",
        "--capacity",
        "256MiB",
        "--workload",
        "random-write",
        "--requests",
        requests,
    ];
    a.extend_from_slice(extra);
    ssdlab(&a)
}

/// Checks `checks.csv` and `summary.md` of a reproduction in `out` against each other:
/// the header, unique ids, yes/no verdicts, a sensitivity figure (an SVG written beside
/// it) and an explanation for every claim that does not hold, and the summary's count
/// and rows. Returns the claims as (id, holds).
pub fn check_claims(out: &std::path::Path) -> Vec<(String, bool)> {
    let csv = std::fs::read_to_string(out.join("checks.csv")).expect("checks.csv");
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header,
        [
            "id",
            "figure",
            "paper",
            "ours",
            "test",
            "holds",
            "sensitivity_figure",
            "explanation"
        ]
    );
    let md = std::fs::read_to_string(out.join("summary.md")).expect("summary.md");
    let mut claims = Vec::new();
    for rec in r.records() {
        let rec = rec.unwrap();
        let id = rec[0].to_string();
        assert!(
            !id.is_empty() && !claims.iter().any(|(i, _)| *i == id),
            "id {id}"
        );
        for (i, f) in rec.iter().enumerate().take(5) {
            assert!(!f.trim().is_empty(), "claim {id}: empty {}", header[i]);
        }
        let holds = match &rec[5] {
            "yes" => true,
            "no" => false,
            other => panic!("claim {id}: holds = {other}"),
        };
        if !holds {
            assert!(
                !rec[7].trim().is_empty(),
                "claim {id} fails without explanation"
            );
            let figs: Vec<&str> = rec[6].split_whitespace().collect();
            assert!(
                !figs.is_empty(),
                "claim {id} fails without a sensitivity figure"
            );
            for f in figs {
                let svg = std::fs::read_to_string(out.join(f))
                    .unwrap_or_else(|e| panic!("claim {id}: {f}: {e}"));
                assert!(svg.contains("<svg"), "claim {id}: {f} is not an SVG");
            }
        }
        // The summary's table row shows the same verdict.
        let row = md
            .lines()
            .find(|l| l.starts_with(&format!("| {id} |")))
            .unwrap_or_else(|| panic!("summary lacks claim {id}"));
        assert_eq!(row.ends_with("| yes |"), holds, "claim {id}: {row}");
        claims.push((id, holds));
    }
    assert!(!claims.is_empty(), "no claims");
    let held = claims.iter().filter(|c| c.1).count();
    let count = format!("{held} of {} checks pass", claims.len());
    assert!(md.contains(&count), "summary lacks `{count}`");
    claims
}

/// Whether claim `id` holds, from [`check_claims`]'s result.
pub fn holds(claims: &[(String, bool)], id: &str) -> bool {
    claims
        .iter()
        .find(|c| c.0 == id)
        .unwrap_or_else(|| panic!("no claim {id}"))
        .1
}
