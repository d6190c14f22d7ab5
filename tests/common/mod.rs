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

/// Removes every field whose value depends on the machine rather than the simulation.
pub fn strip_wall_clock(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            // `end_ms`: when a sweep cell ended, kept for fio's timestamps.
            m.retain(|k, _| !k.starts_with("wall_clock") && k != "end_ms");
            m.values_mut().for_each(strip_wall_clock);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_wall_clock),
        _ => {}
    }
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

/// Request `i` of the sample traces: 4 KiB at `i` × 4 KiB, every millisecond.
pub fn sample_request(i: u64, op: ssdlab::workload::OpKind) -> ssdlab::workload::IoRequest {
    ssdlab::workload::IoRequest::new(op, i * 4096, 4096)
        .at(i * 1_000_000)
        .on_device(1)
}

/// `n` valid lines of `format`.
pub fn valid_lines(format: ssdlab::workload::trace::TraceFormat, n: u64) -> Vec<String> {
    let mut header = Vec::new();
    ssdlab::workload::trace::write_header(format, &mut header).unwrap();
    let header = String::from_utf8(header).unwrap();
    let header = (!header.is_empty()).then(|| header.trim_end().to_string());
    header
        .into_iter()
        .chain((0..n).map(|i| {
            let op = if i % 2 == 0 {
                ssdlab::workload::OpKind::Read
            } else {
                ssdlab::workload::OpKind::Write
            };
            let mut v = Vec::new();
            ssdlab::workload::trace::write_request(format, &sample_request(i, op), &mut v).unwrap();
            String::from_utf8(v).unwrap().trim_end().to_string()
        }))
        .collect()
}

/// The first TOML block after `marker` in docs/config.md (a documented example that
/// must run as written).
pub fn config_doc_example(marker: &str) -> String {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/config.md"),
    )
    .unwrap();
    let at = doc
        .find(marker)
        .unwrap_or_else(|| panic!("{marker:?} is not in docs/config.md"));
    let rest = &doc[at..];
    let start = rest.find("```toml\n").unwrap() + "```toml\n".len();
    let len = rest[start..].find("```").unwrap();
    rest[start..start + len].to_string()
}

/// The designs of a successful `--json -` run and their names, in report order; panics
/// (showing standard error) if the run failed.
pub fn json_designs(o: &std::process::Output) -> (Vec<serde_json::Value>, Vec<String>) {
    assert!(o.status.success(), "{}", stderr(o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("a JSON report");
    let designs = v["designs"].as_array().expect("a designs array").clone();
    let names = designs
        .iter()
        .map(|d| d["name"].as_str().expect("a design name").to_string())
        .collect();
    (designs, names)
}
