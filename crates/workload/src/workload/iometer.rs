//! Iometer-style access specifications as a workload (`kind = "iometer"`).
//!
//! Source: the Iometer User's Guide (Intel, later the Iometer project, iometer.org),
//! chapter "Edit Access Specification" and its "Disk Targets" tab; the built-in mixes
//! follow the access patterns Intel published with Iometer for file, web and database
//! servers. docs/workloads.md restates them in our words.
//!
//! An access specification is a weighted list of *lines*. Each line gives a transfer
//! size, its share of the I/Os ("% of access specification"), the share of reads, the
//! share of random (vs sequential) accesses, the alignment of its offsets, and an
//! optional burst length and transfer delay. A worker keeps a fixed number of I/Os
//! outstanding per target (here: `host.qd`) over a maximum disk size (here:
//! `workload.span`). Iometer keeps one sequential position per target that every line
//! shares: a sequential I/O starts where the previous I/O, of any line, ended.
//!
//! ```text
//! per burst:
//!     line  <- one line, with probability weight / 100
//!     repeat line.burst times:
//!         op     <- read with probability read% / 100, else write
//!         if uniform() < random% / 100:
//!             offset <- align * uniform{0 ..= (span - size) / align}
//!         else:
//!             offset <- round_up(position, align); if offset + size > span: offset <- 0
//!         position <- offset + size
//!         emit (offset, size, op) at time clock
//!     clock <- clock + line.delay        (all delays 0: closed loop, the host keeps
//!                                          host.qd I/Os outstanding)
//! ```
//!
//! Every line is validated before anything runs: sizes and alignments multiples of
//! 512 B (a sector) within the span, weights summing to 100, percentages in 0–100; each
//! error names the key (`workload.iometer.lines[2].align`, or the line and field of a
//! compact `spec` string).

use super::synth::GeneratorSpec;
use super::synth::SynthPhase;
use super::synth::stream::{SynthRng, below, rng_from_seed, size_hint};
use super::{IoRequest, OpKind};
use crate::spec::ConfigError;
use crate::units::Size;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// The generator's entry in the registry ([`super::synth::GENERATORS`]).
pub(crate) const SPEC: GeneratorSpec = GeneratorSpec::suite(
    "iometer",
    "Iometer access specification: weighted lines of size, read %, random %, alignment (--access-spec)",
);

/// Sector size: Iometer sizes and alignments are whole sectors.
pub const SECTOR_BYTES: u64 = 512;
/// Most lines one specification may have.
pub const MAX_LINES: usize = 256;
/// Longest burst, in I/Os.
pub const MAX_BURST: u32 = 1_000_000;
/// Longest transfer delay, in milliseconds (one minute).
pub const MAX_DELAY_MS: f64 = 60_000.0;
/// How far the weights may sum from 100 (typed shares such as 33.33 × 3).
const WEIGHT_TOLERANCE: f64 = 0.01;

/// The `[workload.iometer]` table: a built-in or compact `spec`, or explicit `lines`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IometerConfig {
    /// A built-in name (see [`builtins`]) or compact lines:
    /// `"4KiB weight=60 read=80 random=100 align=4KiB; 64KiB weight=40 read=100 random=0"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// The lines as a TOML array of tables (instead of `spec`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<AccessLine>,
}

impl IometerConfig {
    /// Nothing set (the table is then omitted from printed configurations).
    pub fn is_empty(&self) -> bool {
        self.spec.is_none() && self.lines.is_empty()
    }
}

/// One line of an access specification.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessLine {
    /// Transfer size (a multiple of 512 B).
    pub size: Size,
    /// Share of the I/Os this line issues, percent ("% of access specification").
    #[serde(default = "hundred")]
    pub weight: f64,
    /// Share of reads, percent.
    pub read_percent: f64,
    /// Share of random accesses, percent (the rest continue sequentially).
    pub random_percent: f64,
    /// Offsets are multiples of this (Iometer's default: sector boundaries, 512 B).
    #[serde(default = "sector")]
    pub align: Size,
    /// I/Os issued back to back before the transfer delay.
    #[serde(default = "one")]
    pub burst: u32,
    /// Wait after each burst, milliseconds (0: none).
    #[serde(default)]
    pub delay_ms: f64,
}

fn hundred() -> f64 {
    100.0
}
fn sector() -> Size {
    Size(SECTOR_BYTES)
}
fn one() -> u32 {
    1
}

impl AccessLine {
    /// A line with no burst or delay.
    pub fn new(size: u64, weight: f64, read_percent: f64, random_percent: f64, align: u64) -> Self {
        AccessLine {
            size: Size(size),
            weight,
            read_percent,
            random_percent,
            align: Size(align),
            burst: 1,
            delay_ms: 0.0,
        }
    }
}

/// The built-in specifications: name, description, lines. Iometer's server patterns are
/// sector-aligned; ours align each line to its size up to 4 KiB, as flash users set
/// Iometer's alignment, so a 4 KiB I/O never straddles two flash pages.
pub fn builtins() -> Vec<(&'static str, &'static str, Vec<AccessLine>)> {
    const K: u64 = 1024;
    let al = |s: u64| s.min(4 * K);
    let mix = |sizes: &[(u64, f64)], read: f64, random: f64| -> Vec<AccessLine> {
        sizes
            .iter()
            .map(|&(s, w)| AccessLine::new(s, w, read, random, al(s)))
            .collect()
    };
    let all_sizes: Vec<(u64, f64)> = (0..12).map(|i| (512u64 << i, 100.0 / 12.0)).collect();
    vec![
        (
            "4k-random-read",
            "4 KiB random reads, 4 KiB aligned",
            mix(&[(4 * K, 100.0)], 100.0, 100.0),
        ),
        (
            "4k-random-write",
            "4 KiB random writes, 4 KiB aligned",
            mix(&[(4 * K, 100.0)], 0.0, 100.0),
        ),
        (
            "64k-sequential-read",
            "64 KiB sequential reads",
            mix(&[(64 * K, 100.0)], 100.0, 0.0),
        ),
        (
            "64k-sequential-write",
            "64 KiB sequential writes",
            mix(&[(64 * K, 100.0)], 0.0, 0.0),
        ),
        (
            "all-in-one",
            "every power-of-two size from 512 B to 1 MiB in equal shares, half reads, half random",
            mix(&all_sizes, 50.0, 50.0),
        ),
        (
            "file-server",
            "Intel's file-server mix: 512 B-64 KiB (60% 4 KiB), 80% reads, all random",
            mix(
                &[
                    (512, 10.0),
                    (K, 5.0),
                    (2 * K, 5.0),
                    (4 * K, 60.0),
                    (8 * K, 2.0),
                    (16 * K, 4.0),
                    (32 * K, 4.0),
                    (64 * K, 10.0),
                ],
                80.0,
                100.0,
            ),
        ),
        (
            "web-server",
            "Intel's web-server mix: 512 B-512 KiB, all reads, all random",
            mix(
                &[
                    (512, 22.0),
                    (K, 15.0),
                    (2 * K, 8.0),
                    (4 * K, 23.0),
                    (8 * K, 15.0),
                    (16 * K, 2.0),
                    (32 * K, 6.0),
                    (64 * K, 7.0),
                    (128 * K, 1.0),
                    (512 * K, 1.0),
                ],
                100.0,
                100.0,
            ),
        ),
        (
            "database",
            "Intel's database (OLTP) pattern: 8 KiB, 67% reads, all random",
            mix(&[(8 * K, 100.0)], 67.0, 100.0),
        ),
        (
            "workstation",
            "Intel's workstation pattern: 8 KiB, 80% reads, 80% random",
            mix(&[(8 * K, 100.0)], 80.0, 80.0),
        ),
    ]
}

/// Built-in names and descriptions, for help texts and `ssdlab list`.
pub fn builtin_names() -> Vec<(&'static str, &'static str)> {
    builtins().into_iter().map(|(n, d, _)| (n, d)).collect()
}

const KEY: &str = "workload.iometer";
const FIELDS: &str = "weight, read, random, align, burst, delay_ms";

/// The lines `cfg` describes (a built-in, a compact spec, or explicit lines), not yet
/// checked against a span.
pub fn lines(cfg: &IometerConfig) -> Result<Vec<AccessLine>, ConfigError> {
    match (&cfg.spec, cfg.lines.is_empty()) {
        (Some(s), false) => Err(ConfigError::value(
            format!("{KEY}.spec"),
            s,
            format!("either {KEY}.spec or {KEY}.lines, not both"),
        )),
        (None, true) => Err(ConfigError::value(
            format!("{KEY}.spec"),
            "(unset)",
            format!(
                "a built-in access specification ({}), compact lines such as \
                 \"4KiB weight=100 read=70 random=100\", or [[{KEY}.lines]] tables",
                names_list()
            ),
        )),
        (None, false) => Ok(cfg.lines.clone()),
        (Some(s), true) => match builtins().into_iter().find(|(n, _, _)| *n == s.trim()) {
            Some((_, _, l)) => Ok(l),
            None => parse_compact(s),
        },
    }
}

fn names_list() -> String {
    builtins()
        .iter()
        .map(|(n, _, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses compact lines: `SIZE key=value …` separated by `;`.
pub fn parse_compact(spec: &str) -> Result<Vec<AccessLine>, ConfigError> {
    let key = format!("{KEY}.spec");
    let parts: Vec<&str> = spec.split(';').map(str::trim).collect();
    let single = parts.len() == 1;
    let mut out = Vec::new();
    for (i, text) in parts.iter().enumerate() {
        let n = i + 1;
        let bad = |what: String| ConfigError::value(&key, format!("line {n} \"{text}\""), what);
        let mut tokens = text.split_whitespace();
        let Some(size_tok) = tokens.next() else {
            return Err(bad(format!(
                "a transfer size to start each ';'-separated line (not a built-in name either: {})",
                names_list()
            )));
        };
        let size: Size = size_tok.parse().map_err(|_| {
            bad(format!(
                "a transfer size such as 4KiB or 512B first, found '{size_tok}' (not a built-in \
                 name either: {})",
                names_list()
            ))
        })?;
        let mut line = AccessLine::new(size.bytes(), f64::NAN, f64::NAN, f64::NAN, SECTOR_BYTES);
        for tok in tokens {
            let Some((k, v)) = tok.split_once('=') else {
                return Err(bad(format!("key=value after the size, found '{tok}'")));
            };
            let v = v.trim_end_matches('%');
            let num = |v: &str| -> Result<f64, ConfigError> {
                v.parse::<f64>()
                    .map_err(|_| bad(format!("a number for {k}, found '{v}'")))
            };
            match k {
                "weight" => line.weight = num(v)?,
                "read" => line.read_percent = num(v)?,
                "random" => line.random_percent = num(v)?,
                "delay_ms" => line.delay_ms = num(v)?,
                "align" => {
                    line.align = v
                        .parse()
                        .map_err(|_| bad(format!("a size for align, found '{v}'")))?
                }
                "burst" => {
                    line.burst = v
                        .parse()
                        .map_err(|_| bad(format!("a whole number for burst, found '{v}'")))?
                }
                _ => return Err(bad(format!("one of {FIELDS}, found '{k}'"))),
            }
        }
        if line.read_percent.is_nan() || line.random_percent.is_nan() {
            return Err(bad("read=PERCENT and random=PERCENT on every line".into()));
        }
        if line.weight.is_nan() {
            if !single {
                return Err(bad(
                    "weight=PERCENT on every line when there are several".into()
                ));
            }
            line.weight = 100.0;
        }
        out.push(line);
    }
    Ok(out)
}

/// Checks `lines` against a span of `span_bytes`; errors name the key of the line.
pub fn check_lines(lines: &[AccessLine], span_bytes: u64) -> Result<(), ConfigError> {
    let key = |i: usize, f: &str| format!("{KEY}.lines[{i}].{f}");
    if lines.is_empty() || lines.len() > MAX_LINES {
        return Err(ConfigError::value(
            format!("{KEY}.lines"),
            format!("{} lines", lines.len()),
            format!("1 to {MAX_LINES} access lines"),
        ));
    }
    for (i, l) in lines.iter().enumerate() {
        let (size, align) = (l.size.bytes(), l.align.bytes());
        if size == 0 || size % SECTOR_BYTES != 0 {
            return Err(ConfigError::value(
                key(i, "size"),
                l.size,
                "a transfer size > 0 that is a multiple of 512 B (whole sectors)",
            ));
        }
        if size > span_bytes {
            return Err(ConfigError::value(
                key(i, "size"),
                l.size,
                format!("at most the span {}", Size(span_bytes)),
            ));
        }
        if align == 0 || align % SECTOR_BYTES != 0 || align > span_bytes {
            return Err(ConfigError::value(
                key(i, "align"),
                l.align,
                format!(
                    "an alignment > 0, a multiple of 512 B, at most the span {}",
                    Size(span_bytes)
                ),
            ));
        }
        for (f, v) in [
            ("weight", l.weight),
            ("read_percent", l.read_percent),
            ("random_percent", l.random_percent),
        ] {
            crate::spec::check_f64(&key(i, f), v, 0.0, 100.0, "percent")?;
        }
        crate::spec::check_range(&key(i, "burst"), l.burst, 1, MAX_BURST, "I/Os per burst")?;
        crate::spec::check_f64(
            &key(i, "delay_ms"),
            l.delay_ms,
            0.0,
            MAX_DELAY_MS,
            "milliseconds after each burst",
        )?;
    }
    let sum: f64 = lines.iter().map(|l| l.weight).sum();
    if (sum - 100.0).abs() > WEIGHT_TOLERANCE {
        return Err(ConfigError::value(
            format!("{KEY}.lines[*].weight"),
            format!("a sum of {sum}"),
            "weights (percent of the access specification) that sum to 100",
        ));
    }
    Ok(())
}

/// Weighted mean transfer size (the default request count is span / this).
pub fn mean_size_bytes(lines: &[AccessLine]) -> u64 {
    let m: f64 = lines
        .iter()
        .map(|l| l.weight / 100.0 * l.size.bytes() as f64)
        .sum();
    (m.round() as u64).max(SECTOR_BYTES)
}

/// The phase of a validated specification: `count` I/Os over `[0, span_bytes)`.
pub fn phase(lines: Vec<AccessLine>, span_bytes: u64, count: u64, seed: u64) -> SynthPhase {
    let open_loop = lines.iter().any(|l| l.delay_ms > 0.0);
    let mut acc = 0.0;
    let cumulative = lines
        .iter()
        .map(|l| {
            acc += l.weight;
            acc
        })
        .collect();
    SynthPhase {
        name: "iometer".into(),
        open_loop,
        streams: None,
        requests: Box::new(Stream {
            rng: rng_from_seed(seed),
            lines,
            cumulative,
            span: span_bytes,
            position: 0,
            remaining: count,
            line: 0,
            burst_left: 0,
            started: false,
            clock_ns: 0.0,
        }),
    }
}

/// The lazy request stream of a specification.
struct Stream {
    rng: SynthRng,
    lines: Vec<AccessLine>,
    /// Running sums of the weights, for the line draw.
    cumulative: Vec<f64>,
    span: u64,
    /// Where the next sequential I/O starts (shared by every line, as in Iometer).
    position: u64,
    remaining: u64,
    /// Line of the current burst and I/Os left in it.
    line: usize,
    burst_left: u32,
    /// Whether a burst has been issued (the first one starts at time 0).
    started: bool,
    /// Arrival clock (open loop only); f64 so sub-ns delays do not drift.
    clock_ns: f64,
}

impl Stream {
    fn pick_line(&mut self) -> usize {
        let total = *self
            .cumulative
            .last()
            .expect("validated: at least one line");
        let x = self.rng.r#gen::<f64>() * total;
        // Lines of weight 0 have the same running sum as their predecessor and are never
        // the first sum above x.
        self.cumulative
            .partition_point(|&c| c <= x)
            .min(self.lines.len() - 1)
    }
}

impl Iterator for Stream {
    type Item = IoRequest;

    fn next(&mut self) -> Option<IoRequest> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        if self.burst_left == 0 {
            // The previous burst's delay runs before this burst starts.
            if self.started {
                self.clock_ns += self.lines[self.line].delay_ms * 1e6;
            }
            self.started = true;
            self.line = self.pick_line();
            self.burst_left = self.lines[self.line].burst;
        }
        self.burst_left -= 1;
        let l = &self.lines[self.line];
        let (size, align) = (l.size.bytes(), l.align.bytes());
        let op = if self.rng.r#gen::<f64>() * 100.0 < l.read_percent {
            OpKind::Read
        } else {
            OpKind::Write
        };
        let random = self.rng.r#gen::<f64>() * 100.0 < l.random_percent;
        let offset = if random {
            below(&mut self.rng, (self.span - size) / align + 1) * align
        } else {
            let o = self.position.div_ceil(align) * align;
            if o + size > self.span { 0 } else { o }
        };
        self.position = offset + size;
        Some(IoRequest::new(op, offset, size).at(self.clock_ns.round() as u64))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        size_hint(self.remaining)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    fn stream(lines: Vec<AccessLine>, span: u64, n: u64, seed: u64) -> Vec<IoRequest> {
        check_lines(&lines, span).expect("valid");
        phase(lines, span, n, seed).requests.collect()
    }

    #[test]
    fn builtins_are_valid_and_named_uniquely() {
        let all = builtins();
        for (n, _, l) in &all {
            check_lines(l, 64 * MIB).unwrap_or_else(|e| panic!("{n}: {e}"));
            assert_eq!(
                lines(&IometerConfig {
                    spec: Some(n.to_string()),
                    lines: vec![]
                })
                .unwrap(),
                *l
            );
        }
        let mut names: Vec<_> = all.iter().map(|b| b.0).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
    }

    #[test]
    fn the_stream_matches_the_mix_statistically() {
        // Two lines with distinct sizes, so each request says which line issued it.
        let seed = 7;
        let lines = vec![
            AccessLine::new(4096, 70.0, 80.0, 100.0, 4096),
            AccessLine::new(65536, 30.0, 20.0, 0.0, 8192),
        ];
        let n = 40_000u64;
        let reqs = stream(lines, 256 * MIB, n, seed);
        assert_eq!(reqs.len() as u64, n);
        let small: Vec<_> = reqs.iter().filter(|r| r.size_bytes == 4096).collect();
        let big: Vec<_> = reqs.iter().filter(|r| r.size_bytes == 65536).collect();
        assert_eq!(small.len() + big.len(), n as usize);
        // Binomial bounds at about 5 standard deviations.
        let within = |count: usize, total: usize, p: f64, what: &str| {
            let sd = (total as f64 * p * (1.0 - p)).sqrt();
            let d = (count as f64 - total as f64 * p).abs();
            assert!(
                d <= 5.0 * sd + 1.0,
                "seed {seed}: {what}: {count} of {total}, expected {p}"
            );
        };
        within(small.len(), n as usize, 0.7, "share of line 1");
        let reads = |v: &[&IoRequest]| v.iter().filter(|r| r.op == OpKind::Read).count();
        within(reads(&small), small.len(), 0.8, "reads of line 1");
        within(reads(&big), big.len(), 0.2, "reads of line 2");
        // Line 2 is all sequential: each of its I/Os starts where the previous I/O (of
        // either line) ended, rounded up to its 8 KiB alignment, or wraps to 0.
        for w in reqs.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            if b.size_bytes == 65536 {
                let next = (a.offset_bytes + a.size_bytes).div_ceil(8192) * 8192;
                assert!(
                    b.offset_bytes == next || (b.offset_bytes == 0 && next + 65536 > 256 * MIB),
                    "seed {seed}: sequential I/O at {} after {a:?}",
                    b.offset_bytes
                );
            }
        }
        // Line 1 is all random: offsets cover the span roughly evenly (each eighth of
        // the span gets 1/8 of them).
        let eighth = 256 * MIB / 8;
        for k in 0..8 {
            let c = small
                .iter()
                .filter(|r| r.offset_bytes / eighth == k)
                .count();
            within(
                c,
                small.len(),
                0.125,
                "random offsets per eighth of the span",
            );
        }
    }

    #[test]
    fn offsets_are_aligned_and_inside_the_span() {
        for seed in 0..20u64 {
            let lines = vec![
                AccessLine::new(1536, 40.0, 50.0, 50.0, 512),
                AccessLine::new(12288, 35.0, 50.0, 70.0, 4096),
                AccessLine::new(131072, 25.0, 50.0, 30.0, 131072),
            ];
            let span = 10 * MIB + 4096;
            for r in stream(lines.clone(), span, 3000, seed) {
                let l = lines
                    .iter()
                    .find(|l| l.size.bytes() == r.size_bytes)
                    .unwrap();
                assert_eq!(
                    r.offset_bytes % l.align.bytes(),
                    0,
                    "seed {seed}: {r:?} not aligned to {}",
                    l.align
                );
                assert!(r.offset_bytes + r.size_bytes <= span, "seed {seed}: {r:?}");
            }
        }
    }

    #[test]
    fn bursts_and_delays_set_open_loop_arrival_times() {
        let mut l = AccessLine::new(4096, 100.0, 100.0, 100.0, 4096);
        l.burst = 4;
        l.delay_ms = 2.0;
        let p = phase(vec![l.clone()], 64 * MIB, 12, 1);
        assert!(p.open_loop);
        let t: Vec<u64> = p.requests.map(|r| r.arrival_ns).collect();
        assert_eq!(
            t,
            [0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4].map(|ms| ms * 1_000_000)
        );
        l.delay_ms = 0.0;
        let p = phase(vec![l], 64 * MIB, 12, 1);
        assert!(!p.open_loop);
    }

    proptest::proptest! {
        /// Lines written out in the compact form parse back to the same lines, and any
        /// text either parses or is refused naming `workload.iometer.spec` (no panic).
        #[test]
        fn compact_lines_round_trip_and_garbage_is_refused(
            lines in proptest::collection::vec(
                (1u64..4096, 0u32..=100, 0u32..=100, 0u32..=100, 1u64..64, 1u32..100, 0u32..1000),
                1..6,
            ),
            garbage in ".{0,40}",
        ) {
            let text: Vec<String> = lines
                .iter()
                .map(|&(sectors, w, r, x, a, b, d)| {
                    format!(
                        "{}B weight={w} read={r}% random={x} align={}B burst={b} delay_ms={}",
                        sectors * 512,
                        a * 512,
                        d as f64 / 10.0
                    )
                })
                .collect();
            let parsed = parse_compact(&text.join("; ")).unwrap();
            proptest::prop_assert_eq!(parsed.len(), lines.len());
            for (p, &(sectors, w, r, x, a, b, d)) in parsed.iter().zip(&lines) {
                proptest::prop_assert_eq!(p.size, Size(sectors * 512));
                proptest::prop_assert_eq!(p.align, Size(a * 512));
                proptest::prop_assert_eq!(
                    (p.weight, p.read_percent, p.random_percent, p.burst, p.delay_ms),
                    (w as f64, r as f64, x as f64, b, d as f64 / 10.0)
                );
            }
            if let Err(e) = parse_compact(&garbage) {
                proptest::prop_assert_eq!(e.key(), Some("workload.iometer.spec"));
            }
        }
    }

    #[test]
    fn compact_specs_parse_and_bad_specs_are_refused_naming_the_key() {
        let ok = parse_compact("4KiB weight=60 read=80 random=100 align=4KiB; 64KiB weight=40% read=100 random=0 burst=8 delay_ms=1.5").unwrap();
        assert_eq!(ok.len(), 2);
        assert_eq!(ok[1].burst, 8);
        assert_eq!(ok[1].delay_ms, 1.5);
        assert_eq!(ok[0].align, Size(4096));
        assert_eq!(
            ok[1].align,
            Size(512),
            "Iometer's default: sector boundaries"
        );
        assert_eq!(
            parse_compact("8KiB read=67 random=100").unwrap()[0].weight,
            100.0
        );
        let err = |s: &str| parse_compact(s).unwrap_err().to_string();
        assert!(err("4KiB read=1").contains("random=PERCENT"));
        assert!(err("4KiB wt=3 read=1 random=1").contains("one of weight"));
        assert!(err("4KiB read=1 random=1; 8KiB read=1 random=1").contains("weight=PERCENT"));
        assert!(
            err("fileserver").contains("file-server"),
            "lists the built-ins"
        );
        let bad = |l: AccessLine, key: &str| {
            let e = check_lines(&[l], MIB).unwrap_err();
            assert_eq!(e.key(), Some(key), "{e}");
        };
        bad(
            AccessLine::new(1000, 100.0, 0.0, 0.0, 512),
            "workload.iometer.lines[0].size",
        );
        bad(
            AccessLine::new(2 * MIB, 100.0, 0.0, 0.0, 512),
            "workload.iometer.lines[0].size",
        );
        bad(
            AccessLine::new(4096, 100.0, 0.0, 0.0, 100),
            "workload.iometer.lines[0].align",
        );
        bad(
            AccessLine::new(4096, 100.0, 101.0, 0.0, 512),
            "workload.iometer.lines[0].read_percent",
        );
        bad(
            AccessLine::new(4096, 100.0, 0.0, -1.0, 512),
            "workload.iometer.lines[0].random_percent",
        );
        bad(
            AccessLine::new(4096, 90.0, 0.0, 0.0, 512),
            "workload.iometer.lines[*].weight",
        );
        let mut l = AccessLine::new(4096, 100.0, 0.0, 0.0, 512);
        l.burst = 0;
        bad(l.clone(), "workload.iometer.lines[0].burst");
        l.burst = 1;
        l.delay_ms = f64::INFINITY;
        bad(l, "workload.iometer.lines[0].delay_ms");
        let both = IometerConfig {
            spec: Some("database".into()),
            lines: vec![AccessLine::new(4096, 100.0, 0.0, 0.0, 512)],
        };
        assert_eq!(
            lines(&both).unwrap_err().key(),
            Some("workload.iometer.spec")
        );
        assert_eq!(
            lines(&IometerConfig::default()).unwrap_err().key(),
            Some("workload.iometer.spec")
        );
    }
}
