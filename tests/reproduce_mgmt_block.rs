//! `ssdlab reproduce mgmt-block --quick` writes its outputs: the probe recovers each
//! preset's management block, a log area absorbs B's small writes, every claim's verdict
//! is its test on the data, and Fig. 14 runs without data buffers (docs/reproductions.md
//! "Defaults").

mod common;

/// Field `col` of the row of `path` whose field `id_col` is `id` (and whose first field
/// is `setting`, when given).
fn value(
    path: &std::path::Path,
    id_col: usize,
    col: usize,
    setting: Option<&str>,
    id: &str,
) -> String {
    let mut r = csv::Reader::from_path(path).unwrap();
    let row = r
        .records()
        .map(Result::unwrap)
        .find(|r| &r[id_col] == id && setting.is_none_or(|s| &r[0] == s));
    row.unwrap_or_else(|| panic!("{}: no {id}", path.display()))[col].to_string()
}

#[test]
fn mgmt_block_reproduction_is_consistent_with_its_data_and_defaults() {
    let (_dir, out) = common::reproduce_quick(
        "mgmt-block",
        &[
            "summary.md",
            "probe.csv",
            "probe.svg",
            "iops.csv",
            "aging.csv",
            "organisation.csv",
            "organisation_random-read.svg",
        ],
    );
    // The probe recovers 16 KiB, 1 MiB and 4 KiB on A, B and C.
    let probe = std::fs::read_to_string(out.join("probe.csv")).unwrap();
    let inferred: Vec<&str> = probe
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(4).unwrap())
        .collect();
    assert_eq!(inferred, ["16KiB", "1MiB", "4KiB"]);
    // Random-write IOPS at 4 KiB: C > A > B.
    let iops = std::fs::read_to_string(out.join("iops.csv")).unwrap();
    let w4 = |m: &str| -> f64 {
        iops.lines()
            .find(|l| l.starts_with(&format!("{m},random-write,4,")))
            .unwrap()
            .split(',')
            .nth(3)
            .unwrap()
            .parse()
            .unwrap()
    };
    let claims = common::check_claims(&out);
    let holds = |id: &str| common::holds(&claims, id);
    assert_eq!(
        holds("M2"),
        w4("C") > w4("A") && w4("A") > w4("B"),
        "{iops}"
    );
    // No drive buffers user data in Fig. 14, fixed before any run (not C alone, as
    // inferred from the paper's own Fig. 14 latency): the main runs are the sensitivity
    // sweep's "QD 1, no buffer" setting, claim by claim.
    let params = out.join("parameters.csv");
    assert_eq!(value(&params, 0, 1, None, "DATA_BUFFER (Fig. 14)"), "none");
    for id in ["M2", "M3", "M4", "M5", "M6", "M7", "M8", "M9"] {
        let main = value(&out.join("checks.csv"), 0, 3, None, id);
        let unbuffered = value(
            &out.join("sensitivity_iops.csv"),
            1,
            2,
            Some("QD 1, no buffer"),
            id,
        );
        assert_eq!(main, unbuffered, "{id}");
    }
    // B with a log area (FAST on 1 MiB superblocks): the probe still sees 1 MiB, and
    // small random writes land in the log instead of rewriting 1 MiB each.
    let log = std::fs::read_to_string(out.join("log_area.csv")).unwrap();
    let row = |m: &str| -> Vec<String> {
        log.lines()
            .find(|l| l.starts_with(&format!("{m},")))
            .unwrap()
            .split(',')
            .map(str::to_string)
            .collect()
    };
    let (b, bl) = (row("B"), row("B + log area"));
    assert_eq!(bl[1], "1MiB", "{log}");
    let wa = |r: &[String]| -> f64 { r[4].parse().unwrap() };
    assert!(wa(&bl) < wa(&b) / 10.0, "{log}");
    // Aging: write-order placement loses more sequential-read throughput.
    let aging = std::fs::read_to_string(out.join("aging.csv")).unwrap();
    let loss = |p: &str| -> f64 {
        aging
            .lines()
            .find(|l| l.starts_with(&format!("{p},seq-read,")))
            .unwrap()
            .split(',')
            .nth(4)
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(
        holds("M10"),
        loss("write-order") > loss("by-address"),
        "{aging}"
    );
    // Organisation: channels > shared-control > shared-bus on random reads at 8+ chips.
    let org = std::fs::read_to_string(out.join("organisation.csv")).unwrap();
    let rr = |o: &str, n: u32| -> f64 {
        org.lines()
            .find(|l| l.starts_with(&format!("{o},{n},")))
            .unwrap()
            .split(',')
            .nth(3)
            .unwrap()
            .parse()
            .unwrap()
    };
    let order = [8, 16].iter().all(|&n| {
        rr("channels", n) > rr("shared-control", n) && rr("shared-control", n) > rr("shared-bus", n)
    });
    assert_eq!(holds("M11"), order, "{org}");
    // Fig. 16: behind the MFT host log, B's 4 KiB random writes run at least 10x faster
    // and its aged sequential reads slower.
    let f16 = std::fs::read_to_string(out.join("fig16.csv")).unwrap();
    let cell = |m: &str, log: &str, col: usize| -> f64 {
        f16.lines()
            .find(|l| l.starts_with(&format!("{m},{log},")))
            .unwrap()
            .split(',')
            .nth(col)
            .unwrap()
            .parse()
            .unwrap()
    };
    let (rw, sw, sr) = (3, 2, 4);
    assert_eq!(
        holds("M15"),
        cell("B", "with MFT", rw) >= 10.0 * cell("B", "without", rw)
            && cell("B", "with MFT", rw) >= 0.5 * cell("B", "with MFT", sw),
        "{f16}"
    );
    assert_eq!(
        holds("M16"),
        cell("B", "with MFT", sr) < cell("B", "without", sr),
        "{f16}"
    );
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(!md.contains("does not hold"), "{md}");
    assert!(md.contains("paper") && md.contains("## Parameters"));
}
