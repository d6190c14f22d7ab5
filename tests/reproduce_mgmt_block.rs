//! `ssdlab reproduce mgmt-block --quick` writes its outputs and shows the paper's trends.

mod common;

#[test]
fn mgmt_block_reproduction_shows_the_papers_trends() {
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
    assert!(w4("C") > w4("A") && w4("A") > w4("B"), "{iops}");
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
    assert!(loss("write-order") > loss("by-address"), "{aging}");
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
    for n in [8, 16] {
        assert!(rr("channels", n) > rr("shared-control", n), "{org}");
        assert!(rr("shared-control", n) > rr("shared-bus", n), "{org}");
    }
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
    assert!(
        cell("B", "with MFT", 3) >= 10.0 * cell("B", "without", 3),
        "{f16}"
    );
    assert!(cell("B", "with MFT", 4) < cell("B", "without", 4), "{f16}");
    let claims = common::check_claims(&out);
    for id in ["M15", "M16"] {
        assert!(common::holds(&claims, id), "{id}");
    }
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(!md.contains("does not hold"), "{md}");
    assert!(md.contains("paper"));
}
