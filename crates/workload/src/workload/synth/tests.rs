//! Tests of the generators and the ASCII exporter. Statistical checks use fixed seeds and
//! bounds several standard deviations wide, so they are deterministic and not flaky.

use super::stream::rng_from_seed;
use super::*;
use crate::workload::OpKind;

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// All requests of the single phase a non-suite config produces.
fn requests(c: &SynthConfig, capacity: u64, seed: u64) -> Vec<IoRequest> {
    let mut phases = generate(c, capacity, seed).expect("valid config");
    assert_eq!(phases.len(), 1);
    phases.pop().unwrap().requests.collect()
}

const SINGLE_KINDS: [SynthKind; 9] = [
    SynthKind::SeqWrite,
    SynthKind::SeqRead,
    SynthKind::RandomWrite,
    SynthKind::RandomRead,
    SynthKind::Mixed,
    SynthKind::Zipf,
    SynthKind::HotCold,
    SynthKind::Oltp,
    SynthKind::Compile,
];

#[test]
fn same_seed_same_stream_different_seed_different_stream() {
    for kind in SINGLE_KINDS.into_iter().chain([SynthKind::Iozone]) {
        let c = SynthConfig {
            kind,
            span: Some(Size(64 * MIB)),
            requests: Some(2000),
            mean_gap_ns: Some(10_000),
            ..SynthConfig::default()
        };
        let all = |seed| -> Vec<IoRequest> {
            generate(&c, GIB, seed)
                .unwrap()
                .into_iter()
                .flat_map(|p| p.requests)
                .collect()
        };
        let a = all(42);
        assert_eq!(
            a,
            all(42),
            "{kind:?}: same seed must give the same requests"
        );
        assert_ne!(
            a,
            all(43),
            "{kind:?}: different seeds must differ (arrivals at least)"
        );
    }
}

#[test]
fn every_request_inside_span_and_aligned() {
    for kind in SINGLE_KINDS {
        for size_max in [None, Some(Size(40 * KIB))] {
            let c = SynthConfig {
                kind,
                span: Some(Size(MIB + 8 * KIB)),
                size: Size(8 * KIB),
                size_max,
                align: Size(4 * KIB),
                requests: Some(20_000),
                ..SynthConfig::default()
            };
            for r in requests(&c, 2 * MIB, 7) {
                assert_eq!(r.offset_bytes % (4 * KIB), 0, "{kind:?}: {r:?} not aligned");
                assert_eq!(
                    r.size_bytes % (4 * KIB),
                    0,
                    "{kind:?}: {r:?} size not aligned"
                );
                // compile defaults size_max to 16 × size.
                let default_max = if kind == SynthKind::Compile {
                    128 * KIB
                } else {
                    8 * KIB
                };
                assert!(
                    r.size_bytes >= 8 * KIB
                        && r.size_bytes <= size_max.map_or(default_max, |s| s.0),
                    "{kind:?}: {r:?} size out of range"
                );
                assert!(
                    r.offset_bytes + r.size_bytes <= c.span.unwrap().0,
                    "{kind:?}: {r:?} past span"
                );
                assert_eq!(r.device, 0);
                assert_eq!(r.arrival_ns, 0, "closed loop arrivals are 0");
            }
        }
    }
}

#[test]
fn sequential_offsets_hand_worked() {
    // Span of four requests: the default count is one pass.
    let c = SynthConfig {
        kind: SynthKind::SeqWrite,
        span: Some(Size(16 * KIB)),
        ..SynthConfig::default()
    };
    let got: Vec<_> = requests(&c, MIB, 1)
        .iter()
        .map(|r| (r.offset_bytes, r.op))
        .collect();
    let w = OpKind::Write;
    assert_eq!(got, [(0, w), (4 * KIB, w), (8 * KIB, w), (12 * KIB, w)]);

    // Wraps to 0 before a request would cross the end of a 10 KiB span.
    let c = SynthConfig {
        kind: SynthKind::SeqRead,
        span: Some(Size(10 * KIB)),
        align: Size(2 * KIB),
        requests: Some(5),
        ..SynthConfig::default()
    };
    let got: Vec<_> = requests(&c, MIB, 1)
        .iter()
        .map(|r| r.offset_bytes)
        .collect();
    assert_eq!(got, [0, 4 * KIB, 0, 4 * KIB, 0]);
    assert!(requests(&c, MIB, 1).iter().all(|r| r.op == OpKind::Read));

    // Variable sizes: each request starts where the previous one ended.
    let c = SynthConfig {
        kind: SynthKind::SeqWrite,
        span: Some(Size(MIB)),
        size_max: Some(Size(64 * KIB)),
        requests: Some(1000),
        ..SynthConfig::default()
    };
    let rs = requests(&c, MIB, 3);
    for pair in rs.windows(2) {
        let end = pair[0].offset_bytes + pair[0].size_bytes;
        let expected = if end + pair[1].size_bytes > MIB {
            0
        } else {
            end
        };
        assert_eq!(pair[1].offset_bytes, expected);
    }
}

#[test]
fn uniform_offsets_spread_evenly() {
    const SLOTS: usize = 64;
    const N: u64 = 64_000;
    let c = SynthConfig {
        kind: SynthKind::RandomWrite,
        span: Some(Size(SLOTS as u64 * 4 * KIB)),
        requests: Some(N),
        ..SynthConfig::default()
    };
    let mut counts = [0u64; SLOTS];
    for r in requests(&c, GIB, 11) {
        counts[(r.offset_bytes / (4 * KIB)) as usize] += 1;
    }
    let expected = N as f64 / SLOTS as f64;
    let chi2: f64 = counts
        .iter()
        .map(|&o| (o as f64 - expected).powi(2) / expected)
        .sum();
    // 63 degrees of freedom: mean 63, sd ≈ 11.2; 130 is about six sd out.
    assert!(chi2 < 130.0, "chi-square {chi2} too large: {counts:?}");
    assert!(counts.iter().all(|&c| c > 0));
}

/// Generalised harmonic number H(n, θ) = Σ k^-θ.
fn harmonic(n: u64, theta: f64) -> f64 {
    (1..=n).map(|k| (k as f64).powf(-theta)).sum()
}

#[test]
fn zipf_rank_frequencies_match_analytic() {
    const SLOTS: u64 = 50;
    const N: u64 = 200_000;
    let theta = 0.99;
    let seed = 5;
    let c = SynthConfig {
        kind: SynthKind::Zipf,
        span: Some(Size(SLOTS * 4 * KIB)),
        requests: Some(N),
        zipf_theta: theta,
        ..SynthConfig::default()
    };
    let mut counts = vec![0u64; SLOTS as usize];
    for r in requests(&c, GIB, seed) {
        counts[(r.offset_bytes / (4 * KIB)) as usize] += 1;
    }
    // Rebuild the map the generator used (it draws the shift first from the phase rng).
    let map = zipf::ZipfSlots::new(
        SLOTS * 4 * KIB,
        4 * KIB,
        4 * KIB,
        theta,
        &mut rng_from_seed(seed),
    );
    let h = harmonic(SLOTS, theta);
    for rank in 1..=5u64 {
        let freq = counts[map.slot_of_rank(rank) as usize] as f64 / N as f64;
        let p = (rank as f64).powf(-theta) / h;
        // sd of a frequency near 0.22 over 200 K draws is ≈ 0.0009.
        assert!(
            (freq - p).abs() < 0.005,
            "rank {rank}: frequency {freq}, analytic {p}"
        );
    }
    let hottest = counts
        .iter()
        .enumerate()
        .max_by_key(|&(_, c)| *c)
        .unwrap()
        .0 as u64;
    assert_eq!(hottest, map.slot_of_rank(1));
}

#[test]
fn zipf_map_is_a_bijection_that_scatters_hot_slots() {
    for slots in [1u64, 2, 3, 10, 12, 97, 1000, 1024] {
        let span = slots * 4 * KIB;
        let map = zipf::ZipfSlots::new(span, 4 * KIB, 4 * KIB, 0.99, &mut rng_from_seed(9));
        let mut seen = vec![false; slots as usize];
        for rank in 1..=slots {
            let s = map.slot_of_rank(rank);
            assert!(!seen[s as usize], "slots {slots}: rank {rank} collides");
            seen[s as usize] = true;
        }
        if slots > 20 {
            // The ten hottest slots are pairwise apart, not a contiguous block.
            let hot: Vec<u64> = (1..=10).map(|r| map.slot_of_rank(r)).collect();
            let mut sorted = hot.clone();
            sorted.sort_unstable();
            assert!(
                sorted.last().unwrap() - sorted[0] > 9,
                "slots {slots}: hot block {hot:?}"
            );
        }
    }
}

#[test]
fn hot_cold_share_matches_setting() {
    const N: u64 = 100_000;
    let c = SynthConfig {
        kind: SynthKind::HotCold,
        span: Some(Size(1000 * 4 * KIB)),
        requests: Some(N),
        hot_span_percent: 20.0,
        hot_access_percent: 80.0,
        ..SynthConfig::default()
    };
    let hot_end = 200 * 4 * KIB;
    let mut hot = 0u64;
    for r in requests(&c, GIB, 13) {
        if r.offset_bytes < hot_end {
            hot += 1;
            assert!(
                r.offset_bytes + r.size_bytes <= hot_end,
                "hot request crosses into cold: {r:?}"
            );
        }
    }
    let share = hot as f64 / N as f64;
    assert!((share - 0.80).abs() < 0.01, "hot share {share}");

    // All-hot and all-cold extremes.
    for (access, want_hot) in [(100.0, N), (0.0, 0)] {
        let c = SynthConfig {
            hot_access_percent: access,
            ..c.clone()
        };
        let hot = requests(&c, GIB, 13)
            .iter()
            .filter(|r| r.offset_bytes < hot_end)
            .count() as u64;
        assert_eq!(hot, want_hot);
    }
}

#[test]
fn size_max_spreads_sizes_over_aligned_range() {
    const N: u64 = 64_000;
    let c = SynthConfig {
        kind: SynthKind::RandomWrite,
        span: Some(Size(64 * MIB)),
        size: Size(4 * KIB),
        size_max: Some(Size(66 * KIB)), // not a multiple: the largest size is 64 KiB
        requests: Some(N),
        ..SynthConfig::default()
    };
    let mut counts = [0u64; 16];
    for r in requests(&c, GIB, 17) {
        assert_eq!(r.size_bytes % (4 * KIB), 0);
        assert!((4 * KIB..=64 * KIB).contains(&r.size_bytes), "{r:?}");
        counts[(r.size_bytes / (4 * KIB) - 1) as usize] += 1;
    }
    // 4000 expected per size, sd ≈ 61.
    assert!(
        counts.iter().all(|&c| (3600..=4400).contains(&c)),
        "{counts:?}"
    );
}

#[test]
fn read_percent_respected() {
    const N: u64 = 100_000;
    for kind in [SynthKind::Mixed, SynthKind::Zipf, SynthKind::HotCold] {
        for pct in [0.0, 30.0, 70.0, 100.0] {
            let c = SynthConfig {
                kind,
                span: Some(Size(64 * MIB)),
                requests: Some(N),
                read_percent: pct,
                ..SynthConfig::default()
            };
            let reads = requests(&c, GIB, 19)
                .iter()
                .filter(|r| r.op == OpKind::Read)
                .count();
            let share = reads as f64 / N as f64 * 100.0;
            assert!((share - pct).abs() < 1.0, "{kind:?} {pct}%: got {share}%");
        }
    }
}

#[test]
fn poisson_arrivals_have_requested_mean_gap() {
    const N: u64 = 100_000;
    let c = SynthConfig {
        kind: SynthKind::RandomRead,
        span: Some(Size(64 * MIB)),
        requests: Some(N),
        mean_gap_ns: Some(25_000),
        ..SynthConfig::default()
    };
    let phases = generate(&c, GIB, 23).unwrap();
    assert!(phases[0].open_loop);
    let rs = requests(&c, GIB, 23);
    assert!(rs.windows(2).all(|w| w[0].arrival_ns <= w[1].arrival_ns));
    let mean = rs.last().unwrap().arrival_ns as f64 / N as f64;
    assert!((mean / 25_000.0 - 1.0).abs() < 0.02, "mean gap {mean}");
    // Exponential gaps: the standard deviation equals the mean.
    let gaps: Vec<f64> = std::iter::once(rs[0].arrival_ns)
        .chain(rs.windows(2).map(|w| w[1].arrival_ns - w[0].arrival_ns))
        .map(|g| g as f64)
        .collect();
    let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / N as f64;
    assert!(
        (var.sqrt() / mean - 1.0).abs() < 0.03,
        "gap sd {}",
        var.sqrt()
    );

    let closed = SynthConfig {
        mean_gap_ns: None,
        ..c
    };
    assert!(!generate(&closed, GIB, 23).unwrap()[0].open_loop);
}

#[test]
fn iozone_phases_sizes_and_counts() {
    let shape = |c: &SynthConfig, capacity| -> Vec<(String, u64, u64, OpKind)> {
        generate(c, capacity, 29)
            .unwrap()
            .into_iter()
            .map(|p| {
                let rs: Vec<IoRequest> = p.requests.collect();
                assert!(rs.iter().all(|r| r.size_bytes == rs[0].size_bytes));
                assert!(rs.iter().all(|r| r.op == rs[0].op));
                (p.name, rs[0].size_bytes, rs.len() as u64, rs[0].op)
            })
            .collect()
    };
    let (r, w) = (OpKind::Read, OpKind::Write);
    let s = |n: &str| n.to_string();

    // Small device: the span is the whole 64 MiB.
    let got = shape(&SynthConfig::default(), 64 * MIB);
    assert_eq!(
        got,
        [
            (s("seq-write"), 128 * KIB, 512, w),
            (s("seq-read"), 128 * KIB, 512, r),
            (s("random-write"), 4 * KIB, 16384, w),
            (s("random-read"), 4 * KIB, 16384, r),
        ]
    );

    // A size other than 4 KiB is used by every phase; `requests` sets every count.
    let c = SynthConfig {
        size: Size(16 * KIB),
        requests: Some(100),
        ..SynthConfig::default()
    };
    let got = shape(&c, 64 * MIB);
    let sizes: Vec<_> = got.iter().map(|g| (g.1, g.2)).collect();
    assert_eq!(sizes, [(16 * KIB, 100); 4]);

    // Large device: the span defaults to 1 GiB (checked through the phase's size hint to
    // avoid walking 262 144 random requests).
    let phases = generate(&SynthConfig::default(), 64 * GIB, 29).unwrap();
    let counts: Vec<_> = phases.iter().map(|p| p.requests.size_hint().0).collect();
    assert_eq!(counts, [8192, 8192, 262_144, 262_144]);
    assert!(phases.iter().all(|p| !p.open_loop));

    // Sequential phases walk the span in order.
    let mut phases = generate(&SynthConfig::default(), 64 * MIB, 29).unwrap();
    let offs: Vec<u64> = phases.remove(1).requests.map(|r| r.offset_bytes).collect();
    assert!(
        offs.iter()
            .enumerate()
            .all(|(i, &o)| o == i as u64 * 128 * KIB)
    );

    // Tiny device: the record shrinks to the span.
    let got = shape(&SynthConfig::default(), 64 * KIB);
    assert_eq!(got[0].1, 64 * KIB);
    assert_eq!(got[0].2, 1);
}

#[test]
fn build_phases_wraps_generated_requests() {
    let c = SynthConfig {
        kind: SynthKind::Mixed,
        span: Some(Size(MIB)),
        requests: Some(300),
        ..SynthConfig::default()
    };
    let phases = build_phases(&c, GIB, 31).unwrap();
    assert_eq!(phases.len(), 1);
    assert_eq!(phases[0].name, "mixed");
    assert!(!phases[0].open_loop);
    let via_phase: Vec<IoRequest> = build_phases(&c, GIB, 31)
        .unwrap()
        .remove(0)
        .requests
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(via_phase, requests(&c, GIB, 31));
    let names: Vec<_> = build_phases(&SynthConfig::default(), GIB, 31)
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(
        names,
        ["seq-write", "seq-read", "random-write", "random-read"]
    );
}

/// The config the rejection tests spoil one key of: 1 MiB of random writes.
fn rejection_base() -> SynthConfig {
    SynthConfig {
        kind: SynthKind::RandomWrite,
        span: Some(Size(MIB)),
        ..SynthConfig::default()
    }
}

/// Each config is refused by [`generate`] and [`build_phases`], with a message naming
/// `needle` and saying what was expected.
fn assert_rejected_with_expectations(cases: Vec<(SynthConfig, &str)>) {
    for (c, needle) in cases {
        let err = generate(&c, GIB, 1).expect_err(needle).to_string();
        assert!(err.contains(needle), "'{err}' should mention {needle}");
        assert!(
            err.contains("expected"),
            "'{err}' should say what was expected"
        );
        assert!(build_phases(&c, GIB, 1).is_err());
    }
}

#[test]
fn bad_shared_keys_are_rejected_with_expectations() {
    let base = rejection_base();
    assert_rejected_with_expectations(vec![
        (
            SynthConfig {
                span: Some(Size(2 * GIB)),
                ..base.clone()
            },
            "span",
        ),
        (
            SynthConfig {
                size: Size(0),
                ..base.clone()
            },
            "size",
        ),
        (
            SynthConfig {
                size: Size(2 * MIB),
                ..base.clone()
            },
            "size <= span",
        ),
        (
            SynthConfig {
                align: Size(0),
                ..base.clone()
            },
            "align",
        ),
        (
            SynthConfig {
                align: Size(3000),
                ..base.clone()
            },
            "align to divide size",
        ),
        (
            SynthConfig {
                size_max: Some(Size(KIB)),
                ..base.clone()
            },
            "size_max",
        ),
        (
            SynthConfig {
                size_max: Some(Size(2 * MIB)),
                ..base.clone()
            },
            "size_max",
        ),
        (
            SynthConfig {
                requests: Some(0),
                ..base.clone()
            },
            "requests",
        ),
        (
            SynthConfig {
                read_percent: 101.0,
                ..base.clone()
            },
            "read_percent",
        ),
        (
            SynthConfig {
                read_percent: f64::NAN,
                ..base.clone()
            },
            "read_percent",
        ),
        (
            SynthConfig {
                hot_span_percent: -1.0,
                ..base.clone()
            },
            "hot_span_percent",
        ),
        (
            SynthConfig {
                hot_access_percent: 100.5,
                ..base.clone()
            },
            "hot_access_percent",
        ),
        (
            SynthConfig {
                zipf_theta: 0.0,
                ..base.clone()
            },
            "zipf_theta",
        ),
        (
            SynthConfig {
                zipf_theta: -0.5,
                ..base.clone()
            },
            "zipf_theta",
        ),
        (
            SynthConfig {
                zipf_theta: f64::INFINITY,
                ..base.clone()
            },
            "zipf_theta",
        ),
        (
            SynthConfig {
                mean_gap_ns: Some(0),
                ..base.clone()
            },
            "mean_gap_ns",
        ),
    ]);
}

#[test]
fn bad_generator_keys_are_rejected_with_expectations() {
    let base = rejection_base();
    assert_rejected_with_expectations(vec![
        (
            SynthConfig {
                kind: SynthKind::Iozone,
                size_max: Some(Size(8 * KIB)),
                ..base.clone()
            },
            "iozone",
        ),
        (
            SynthConfig {
                kind: SynthKind::HotCold,
                hot_span_percent: 0.1,
                ..base.clone()
            },
            "hot region",
        ),
        (
            SynthConfig {
                kind: SynthKind::HotCold,
                hot_span_percent: 100.0,
                ..base.clone()
            },
            "cold region",
        ),
    ]);
    // A hot-cold region that receives no requests may be too small.
    let all_hot = SynthConfig {
        kind: SynthKind::HotCold,
        hot_span_percent: 100.0,
        hot_access_percent: 100.0,
        ..base
    };
    assert!(generate(&all_hot, GIB, 1).is_ok());
}

#[test]
fn oltp_is_small_and_skewed_with_a_sequential_log() {
    let c = SynthConfig {
        kind: SynthKind::Oltp,
        span: Some(Size(256 * MIB)),
        requests: Some(50_000),
        read_percent: 0.0,
        ..SynthConfig::default()
    };
    let reqs = requests(&c, GIB, 3);
    let (log_start, _) = oltp::regions(256 * MIB, 4 * KIB, 4 * KIB);
    let (log, data): (Vec<&IoRequest>, Vec<&IoRequest>) =
        reqs.iter().partition(|r| r.offset_bytes >= log_start);
    // 10% log appends, each right after the previous one, wrapping at the end of the
    // 8 MiB log region.
    let share = log.len() as f64 / reqs.len() as f64;
    assert!((share - 0.10).abs() < 0.01, "log share {share}");
    for w in log.windows(2) {
        let next = w[0].offset_bytes + w[0].size_bytes;
        let next = if next == 256 * MIB { log_start } else { next };
        assert_eq!(w[1].offset_bytes, next);
    }
    // High locality: with Zipf 0.99 over 63k data pages, the 1% most written pages take
    // a large share of the data writes (analytically H(630)/H(63k) ≈ 0.60 at θ = 1).
    let mut counts = std::collections::HashMap::new();
    for r in &data {
        *counts.entry(r.offset_bytes).or_insert(0u64) += 1;
    }
    let mut v: Vec<u64> = counts.into_values().collect();
    v.sort_unstable_by(|a, b| b.cmp(a));
    let top: u64 = v.iter().take(630).sum();
    let top_share = top as f64 / data.len() as f64;
    assert!(top_share > 0.45, "top 1% of pages take {top_share}");
    assert!(
        reqs.iter()
            .all(|r| r.op == OpKind::Write && r.size_bytes == 4 * KIB)
    );
}

#[test]
fn compile_writes_files_sequentially_into_fresh_space() {
    let c = SynthConfig {
        kind: SynthKind::Compile,
        span: Some(Size(GIB)),
        requests: Some(10_000),
        read_percent: 0.0,
        ..SynthConfig::default()
    };
    let reqs = requests(&c, GIB, 5);
    let (meta_end, sources_end) = compile::regions(GIB, 4 * KIB);
    let meta = reqs.iter().filter(|r| r.offset_bytes < meta_end).count();
    let share = meta as f64 / reqs.len() as f64;
    assert!((share - 0.30).abs() < 0.02, "metadata share {share}");
    let files: Vec<_> = reqs
        .iter()
        .filter(|r| r.offset_bytes >= sources_end)
        .collect();
    assert_eq!(
        meta + files.len(),
        reqs.len(),
        "no source reads at read_percent 0"
    );
    // File chunks are the larger requests: 4–64 KiB, mean about 34 KiB.
    let mean = files.iter().map(|r| r.size_bytes).sum::<u64>() as f64 / files.len() as f64;
    assert!((mean / KIB as f64 - 34.0).abs() < 2.0, "mean chunk {mean}");
    // Low locality: only the files written twice (one in ten) revisit output pages
    // before the output cursor wraps (10k requests reserve about 7k × 8.5 × 64 KiB ≈
    // 430 MiB of the 747 MiB region). Their second pass redraws chunk sizes, so it
    // covers most, not all, of the first: somewhat under 1/11 of file pages are rewrites.
    let mut seen = std::collections::HashSet::new();
    let mut pages = 0u64;
    let mut rewrites = 0u64;
    for r in &files {
        for p in r.offset_bytes / (4 * KIB)..(r.offset_bytes + r.size_bytes) / (4 * KIB) {
            pages += 1;
            rewrites += !seen.insert(p) as u64;
        }
    }
    let share = rewrites as f64 / pages as f64;
    assert!(share > 0.04 && share < 0.10, "rewritten pages {share}");
    // With reads, read_percent of the requests read the sources.
    let c = SynthConfig {
        read_percent: 40.0,
        ..c
    };
    let reqs = requests(&c, GIB, 5);
    let reads: Vec<_> = reqs.iter().filter(|r| r.op == OpKind::Read).collect();
    assert!((reads.len() as f64 / reqs.len() as f64 - 0.40).abs() < 0.02);
    assert!(
        reads
            .iter()
            .all(|r| r.offset_bytes >= meta_end && r.offset_bytes + r.size_bytes <= sources_end)
    );
}

#[test]
fn names_match_serde_kinds() {
    let mut seen = std::collections::BTreeSet::new();
    for (name, desc) in names() {
        assert!(seen.insert(name), "{name} listed twice");
        let kind: SynthKind = serde_json::from_str(&format!("\"{name}\"")).expect(name);
        assert_eq!(kind.name(), name);
        assert!(!desc.is_empty());
    }
}

/// Parses the ASCII layout back: `time_ns dev lba_sectors size_sectors op`.
fn parse_ascii(text: &str) -> Vec<IoRequest> {
    text.lines()
        .map(|line| {
            let f: Vec<u64> = line.split(' ').map(|x| x.parse().expect(line)).collect();
            assert_eq!(f.len(), 5, "{line}");
            IoRequest::new(
                match f[4] {
                    1 => OpKind::Read,
                    0 => OpKind::Write,
                    other => panic!("op {other}"),
                },
                f[2] * 512,
                f[3] * 512,
            )
            .at(f[0])
            .on_device(f[1] as u32)
        })
        .collect()
}

#[test]
fn ascii_export_round_trips() {
    let c = SynthConfig {
        kind: SynthKind::Mixed,
        span: Some(Size(64 * GIB)),
        size_max: Some(Size(256 * KIB)),
        requests: Some(5000),
        mean_gap_ns: Some(1_000_000),
        ..SynthConfig::default()
    };
    let rs = requests(&c, 128 * GIB, 37);
    let mut out = Vec::new();
    let lines = write_ascii(rs.iter().copied(), &mut out).unwrap();
    assert_eq!(lines, 5000);
    assert_eq!(parse_ascii(std::str::from_utf8(&out).unwrap()), rs);

    // Extremes of the number formatter and sector widening of unaligned requests.
    let odd = [
        IoRequest::new(OpKind::Read, 100, 1000)
            .at(u64::MAX)
            .on_device(u32::MAX),
        IoRequest::new(OpKind::Write, 512 * 99, 1).on_device(9),
        IoRequest::new(OpKind::Write, 512 * 100, 512)
            .at(10)
            .on_device(10),
    ];
    let mut out = Vec::new();
    write_ascii(odd.iter().copied(), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(
        text,
        format!(
            "{} {} 0 3 1\n0 9 99 1 0\n10 10 100 1 0\n",
            u64::MAX,
            u32::MAX
        )
    );

    let flush = IoRequest::new(OpKind::Flush, 0, 0);
    let mut out = Vec::new();
    let err = write_ascii([odd[2], flush].into_iter(), &mut out).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert_eq!(out, b"10 10 100 1 0\n", "lines before the error are kept");
}

/// Generator throughput in release builds:
/// `cargo test --release --lib workload::synth::tests::speed -- --ignored --nocapture`.
#[test]
#[ignore]
fn speed() {
    const N: u64 = 20_000_000;
    let kinds = [
        ("seq-write", SynthKind::SeqWrite, None, None),
        ("random-write", SynthKind::RandomWrite, None, None),
        (
            "mixed+size_max",
            SynthKind::Mixed,
            Some(Size(64 * KIB)),
            None,
        ),
        ("mixed+poisson", SynthKind::Mixed, None, Some(10_000)),
        ("zipf 16M slots", SynthKind::Zipf, None, None),
        ("hot-cold", SynthKind::HotCold, None, None),
    ];
    for (label, kind, size_max, mean_gap_ns) in kinds {
        let c = SynthConfig {
            kind,
            span: Some(Size(64 * GIB)),
            size_max,
            requests: Some(N),
            mean_gap_ns,
            ..SynthConfig::default()
        };
        let start = std::time::Instant::now();
        let mut sum = 0u64;
        for p in build_phases(&c, 64 * GIB, 1).unwrap() {
            for r in p.requests {
                sum = sum.wrapping_add(r.unwrap().offset_bytes);
            }
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{label:>16}: {:6.1} M requests/s (checksum {sum})",
            N as f64 / secs / 1e6
        );
    }
    let c = SynthConfig {
        kind: SynthKind::RandomWrite,
        span: Some(Size(64 * GIB)),
        requests: Some(N),
        ..SynthConfig::default()
    };
    let start = std::time::Instant::now();
    let lines = write_ascii(
        generate(&c, 64 * GIB, 1).unwrap().remove(0).requests,
        std::io::sink(),
    )
    .unwrap();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{:>16}: {:6.1} M lines/s",
        "write_ascii",
        lines as f64 / secs / 1e6
    );

    // Accuracy of the sampler at the size the speed was measured for: 16 M slots, θ 0.99.
    let slots = 16 << 20;
    let c = SynthConfig {
        kind: SynthKind::Zipf,
        span: Some(Size(slots * 4 * KIB)),
        requests: Some(N),
        ..SynthConfig::default()
    };
    let map = zipf::ZipfSlots::new(
        slots * 4 * KIB,
        4 * KIB,
        4 * KIB,
        0.99,
        &mut rng_from_seed(1),
    );
    let hot: Vec<u64> = (1..=3).map(|r| map.slot_of_rank(r) * 4 * KIB).collect();
    let mut counts = [0u64; 3];
    for r in requests(&c, slots * 4 * KIB, 1) {
        if let Some(i) = hot.iter().position(|&o| o == r.offset_bytes) {
            counts[i] += 1;
        }
    }
    let h = harmonic(slots, 0.99);
    for (i, n) in counts.iter().enumerate() {
        let p = ((i + 1) as f64).powf(-0.99) / h;
        let f = *n as f64 / N as f64;
        println!("zipf 16M rank {}: frequency {f:.5}, analytic {p:.5}", i + 1);
        assert!((f / p - 1.0).abs() < 0.02);
    }
}

#[test]
fn iozone_record_sizes_every_phase_and_reads_first_reorders_with_the_same_streams() {
    let base = SynthConfig {
        kind: SynthKind::Iozone,
        span: Some(Size(16 * MIB)),
        iozone_record: Some(Size(4 * KIB)),
        ..SynthConfig::default()
    };
    let phases = |c: &SynthConfig| -> Vec<(String, Vec<IoRequest>)> {
        generate(c, GIB, 5)
            .unwrap()
            .into_iter()
            .map(|p| (p.name, p.requests.collect()))
            .collect()
    };
    // A 4 KiB record is 4 KiB in the sequential phases too (without the key they take
    // 128 KiB records, since 4 KiB is the default size).
    let writes_first = phases(&base);
    assert!(
        writes_first
            .iter()
            .all(|(_, rs)| rs.iter().all(|r| r.size_bytes == 4 * KIB))
    );
    let reads_first = phases(&SynthConfig {
        iozone_reads_first: true,
        ..base.clone()
    });
    let names: Vec<&str> = reads_first.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["seq-read", "random-read", "seq-write", "random-write"]
    );
    for (name, rs) in &reads_first {
        let same = writes_first.iter().find(|(n, _)| n == name).unwrap();
        assert_eq!(&same.1, rs, "{name}: the phase keeps its own stream");
    }
    // Neither key with another generator.
    let other = SynthConfig {
        kind: SynthKind::RandomRead,
        ..base
    };
    assert!(generate(&other, GIB, 5).is_err());
}
