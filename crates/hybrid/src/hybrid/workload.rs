//! Desktop workloads shaped like the paper's three measurements (docs/papers.md §5): a
//! Windows boot, launching a set of desktop applications together ("multitasking
//! loading"), and loading a game. Each is a list of runs — the first on a cold cache,
//! the rest warm — of requests with host think time between them (queue depth 1: the
//! next request is issued `think_ns` after the previous one completes, as a program that
//! waits for its data and then computes).
//!
//! The paper gives only the elapsed times; what each workload reads is our model,
//! documented here and in docs/hybrid.md:
//!
//! ```text
//! files:  placed one after another in a region of the disk with random gaps between
//!         them (other files, free space); sizes log-normal, rounded up to 4 KiB
//! boot:   system region 0–40 GiB. Each boot visits ~900 files in a fixed boot order
//!         (each later boot moves 5% of them and swaps 3% for others): a file-record
//!         read (4 KiB in the MFT area), then either the whole file in 64 KiB reads (40%,
//!         the prefetcher's large reads) or ~30% of its pages as 4–16 KiB faults at random
//!         offsets; 5% of requests are 4–16 KiB writes (registry hives rewritten in
//!         place, logs appended); think time exponential, mean 3 ms (driver and service
//!         start-up)
//! apps:   eleven applications in 20–80 GiB, 5 to 150 files each, plus 20–60 shared
//!         system libraries each from the system region; per file a header read, then
//!         page faults (4–32 KiB at random offsets over ~40% of it), or, for resource
//!         files (20%), the whole file in 64 KiB reads; think mean 0.3 ms (the programs
//!         start together, so the disk is rarely idle)
//! game:   150–160 GiB: 300 small files (configuration, scripts; 4–16 KiB reads) and six
//!         150–400 MiB archives of which the level loader reads 30–70% as sequential
//!         runs of 1–16 MiB in 256 KiB requests, with a 4 KiB index read between 10% of
//!         them; 1 ms think per 256 KiB (decompression)
//! ```
//!
//! Warm runs repeat the same access pattern (what the cache exploits), with the drift
//! described for boots. Everything is a function of the seed.

use crate::workload::{IoRequest, OpKind};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp, LogNormal};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const PAGE: u64 = 4 * KIB;

/// The built-in desktop workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DesktopWorkload {
    /// An operating-system boot.
    Boot,
    /// Eleven desktop applications launched together.
    AppLaunch,
    /// A game loading a level.
    GameLoad,
}

impl DesktopWorkload {
    /// Every workload with its name and a one-line description.
    pub fn all() -> &'static [(DesktopWorkload, &'static str, &'static str)] {
        &[
            (
                DesktopWorkload::Boot,
                "boot",
                "OS boot: ~900 system files, small faults and prefetch reads, 5% writes",
            ),
            (
                DesktopWorkload::AppLaunch,
                "app-launch",
                "11 applications launched together: page faults over many files",
            ),
            (
                DesktopWorkload::GameLoad,
                "game-load",
                "game level load: large sequential archive reads with decompression",
            ),
        ]
    }

    /// The registered name.
    pub fn name(self) -> &'static str {
        DesktopWorkload::all()
            .iter()
            .find(|(k, _, _)| *k == self)
            .map(|(_, n, _)| *n)
            .expect("registered")
    }

    /// Looks a workload up by name.
    pub fn from_name(name: &str) -> Option<DesktopWorkload> {
        DesktopWorkload::all()
            .iter()
            .find(|(_, n, _)| *n == name)
            .map(|(k, _, _)| *k)
    }

    /// The part of the disk the workload's files occupy (the layouts below): the system
    /// region for a boot, shared libraries and the applications for the launch, the
    /// game's files for the level load. The registry's synthetic mix ([`read_mix`]) reads
    /// from the same region.
    pub fn region(self) -> std::ops::Range<u64> {
        match self {
            DesktopWorkload::Boot => 4 * GIB..40 * GIB,
            DesktopWorkload::AppLaunch => 10 * GIB..80 * GIB,
            DesktopWorkload::GameLoad => 150 * GIB..160 * GIB,
        }
    }

    /// Highest byte the workload touches.
    pub fn end_bytes(self) -> u64 {
        match self {
            DesktopWorkload::Boot => 40 * GIB,
            DesktopWorkload::AppLaunch => 80 * GIB,
            DesktopWorkload::GameLoad => 160 * GIB,
        }
    }
}

/// One request and the host's think time before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Time between the previous request's completion and this one's issue.
    pub think_ns: u64,
    /// The request (`arrival_ns` unused).
    pub req: IoRequest,
}

/// One run of a workload (cold or warm).
#[derive(Clone, Debug)]
pub struct Run {
    /// `cold`, `warm`, `warm-2`, …
    pub name: String,
    /// The requests in order.
    pub steps: Vec<Step>,
}

/// Name of run `i` (0-based).
pub fn run_name(i: u32) -> String {
    match i {
        0 => "cold".into(),
        1 => "warm".into(),
        _ => format!("warm-{i}"),
    }
}

#[derive(Clone, Copy, Debug)]
struct File {
    offset: u64,
    size: u64,
}

/// A set of files: `n` log-normal sizes of median `median` and shape `sigma`, at most
/// `max` bytes.
#[derive(Clone, Copy, Debug)]
struct FileSet {
    n: usize,
    median: u64,
    sigma: f64,
    max: u64,
}

/// Lays `set` out in `region` from its start, with exponential gaps of mean `gap`
/// between files; panics if they do not fit (the regions are sized for them).
fn lay_out(
    rng: &mut Xoshiro256PlusPlus,
    set: FileSet,
    region: std::ops::Range<u64>,
    gap: u64,
) -> Vec<File> {
    let sizes = LogNormal::new((set.median as f64).ln(), set.sigma).expect("valid log-normal");
    let gaps = Exp::new(1.0 / gap as f64).expect("valid gap");
    let mut at = region.start;
    let mut files = Vec::with_capacity(set.n);
    for _ in 0..set.n {
        let size = (sizes.sample(rng) as u64)
            .clamp(PAGE, set.max)
            .next_multiple_of(PAGE);
        at += (gaps.sample(rng) as u64).next_multiple_of(PAGE);
        files.push(File { offset: at, size });
        at += size;
    }
    assert!(at <= region.end, "file layout overflows its region");
    files
}

struct Builder {
    rng: Xoshiro256PlusPlus,
    steps: Vec<Step>,
    think: Exp<f64>,
}

impl Builder {
    fn new(seed: u64, think_mean_ns: f64) -> Builder {
        Builder {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            steps: Vec::new(),
            think: Exp::new(1.0 / think_mean_ns).expect("positive think time"),
        }
    }

    fn push(&mut self, op: OpKind, offset: u64, size: u64) {
        let think_ns = self.think.sample(&mut self.rng) as u64;
        self.push_with(op, offset, size, think_ns);
    }

    fn push_with(&mut self, op: OpKind, offset: u64, size: u64, think_ns: u64) {
        self.steps.push(Step {
            think_ns,
            req: IoRequest::new(op, offset, size),
        });
    }

    /// The whole file in `chunk`-byte reads.
    fn read_whole(&mut self, f: File, chunk: u64) {
        let mut o = 0;
        while o < f.size {
            let len = chunk.min(f.size - o);
            self.push(OpKind::Read, f.offset + o, len);
            o += len;
        }
    }

    /// Page faults: reads of `min..=max` bytes at random page offsets until about
    /// `share` of the file has been requested (at least one read).
    fn faults(&mut self, f: File, share: f64, min: u64, max: u64, rng: &mut Xoshiro256PlusPlus) {
        let pages = f.size / PAGE;
        let target = ((f.size as f64 * share) as u64).max(PAGE);
        let mut done = 0;
        while done < target {
            let len = (rng.gen_range(min / PAGE..=max / PAGE) * PAGE).min(f.size);
            let first = rng.gen_range(0..=pages - len / PAGE);
            self.push(OpKind::Read, f.offset + first * PAGE, len);
            done += len;
        }
    }
}

/// Builds `runs` runs of workload `w` (0 < runs), seeded by `seed`.
pub fn build(w: DesktopWorkload, runs: u32, seed: u64) -> Vec<Run> {
    (0..runs)
        .map(|i| Run {
            name: run_name(i),
            steps: match w {
                DesktopWorkload::Boot => boot(seed, i),
                DesktopWorkload::AppLaunch => app_launch(seed),
                DesktopWorkload::GameLoad => game_load(seed),
            },
        })
        .collect()
}

fn boot(seed: u64, boot_index: u32) -> Vec<Step> {
    // The installation (layout, boot order, access pattern) depends on the seed only;
    // each boot's drift on the boot index.
    let mut layout_rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xb007);
    let files = lay_out(
        &mut layout_rng,
        FileSet {
            n: 1200,
            median: 48 * KIB,
            sigma: 1.5,
            max: 16 * MIB,
        },
        4 * GIB..40 * GIB,
        8 * MIB,
    );
    let mut order: Vec<usize> = (0..900).collect();
    shuffle(&mut order, &mut layout_rng);
    let mut drift = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xd41f7 ^ (boot_index as u64) << 32);
    if boot_index > 0 {
        for i in 0..order.len() {
            if drift.gen_bool(0.05) {
                let j = drift.gen_range(0..order.len());
                order.swap(i, j);
            }
            if drift.gen_bool(0.03) {
                order[i] = drift.gen_range(900..files.len());
            }
        }
    }
    let mut b = Builder::new(seed ^ 0x5eed ^ (boot_index as u64) << 40, 3e6);
    let mft = 3 * GIB;
    let hive = 2 * GIB; // registry hives: rewritten in place every boot
    let mut log = 2 * GIB + 64 * MIB + boot_index as u64 * 4 * MIB; // appended logs
    for &fi in &order {
        let f = files[fi];
        // The file's record: 1 KiB per file in the MFT, read by 4 KiB cluster.
        b.push(OpKind::Read, mft + (fi as u64 * KIB) / PAGE * PAGE, PAGE);
        // Each file's access pattern is fixed by the installation, not by the boot.
        let mut pattern = Xoshiro256PlusPlus::seed_from_u64(seed ^ (fi as u64 * 0x9E37_79B9));
        if pattern.gen_bool(0.4) {
            b.read_whole(f, 64 * KIB);
        } else {
            b.faults(f, 0.3, 4 * KIB, 16 * KIB, &mut pattern);
        }
        if b.rng.gen_bool(0.15) {
            let len = b.rng.gen_range(1..=4) * PAGE;
            if b.rng.gen_bool(0.5) {
                let at = hive + b.rng.gen_range(0..(16 * MIB) / PAGE) * PAGE;
                b.push(OpKind::Write, at, len);
            } else {
                b.push(OpKind::Write, log, len);
                log += len;
            }
        }
    }
    b.steps
}

fn app_launch(seed: u64) -> Vec<Step> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xa995);
    // Shared system libraries in the system region.
    let shared = lay_out(
        &mut rng,
        FileSet {
            n: 400,
            median: 256 * KIB,
            sigma: 1.2,
            max: 32 * MIB,
        },
        10 * GIB..20 * GIB,
        4 * MIB,
    );
    // (files, median size): from a large image editor down to a card game.
    const APPS: [(usize, u64); 11] = [
        (150, 1024 * KIB), // image editor
        (8, 128 * KIB),    // text editor
        (30, 256 * KIB),   // file manager
        (12, 256 * KIB),   // paint program
        (6, 128 * KIB),    // calculator
        (15, 256 * KIB),   // word pad
        (90, 768 * KIB),   // presentation program
        (100, 768 * KIB),  // word processor
        (90, 768 * KIB),   // spreadsheet
        (40, 512 * KIB),   // media player
        (5, 256 * KIB),    // card game
    ];
    let mut b = Builder::new(seed ^ 0x1a7c, 0.3e6);
    let mut at = 20 * GIB;
    for (i, &(n, median)) in APPS.iter().enumerate() {
        let files = lay_out(
            &mut rng,
            FileSet {
                n,
                median,
                sigma: 1.3,
                max: 64 * MIB,
            },
            at..80 * GIB,
            16 * MIB,
        );
        at = files.last().map_or(at, |f| f.offset + f.size) + 256 * MIB;
        let mut libs: Vec<usize> = (0..shared.len()).collect();
        shuffle(&mut libs, &mut rng);
        libs.truncate(rng.gen_range(20..=60));
        let mut pattern = Xoshiro256PlusPlus::seed_from_u64(seed ^ (i as u64) << 20);
        for f in libs.iter().map(|&l| shared[l]).chain(files.iter().copied()) {
            b.push(OpKind::Read, f.offset, PAGE);
            if pattern.gen_bool(0.2) {
                b.read_whole(f, 64 * KIB);
            } else {
                b.faults(f, 0.4, 4 * KIB, 32 * KIB, &mut pattern);
            }
        }
    }
    b.steps
}

fn game_load(seed: u64) -> Vec<Step> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x6a3e);
    let small = lay_out(
        &mut rng,
        FileSet {
            n: 300,
            median: 32 * KIB,
            sigma: 1.0,
            max: 4 * MIB,
        },
        150 * GIB..152 * GIB,
        MIB,
    );
    let mut b = Builder::new(seed ^ 0x7e7e, 0.5e6);
    for f in &small {
        let len = rng.gen_range(1..=4) * PAGE;
        b.push(OpKind::Read, f.offset, len.min(f.size));
    }
    let mut at = 152 * GIB;
    let chunk = 256 * KIB;
    for _ in 0..6 {
        let size = rng.gen_range(150..=400) * MIB;
        let share = rng.gen_range(0.3..0.7);
        // Runs of 1–16 MiB at sorted random offsets until `share` of the archive.
        let mut runs = Vec::new();
        let mut total = 0;
        while total < (size as f64 * share) as u64 {
            let len = rng.gen_range(1..=16) * MIB;
            let off = rng.gen_range(0..(size - len) / MIB) * MIB;
            runs.push((off, len));
            total += len;
        }
        runs.sort_unstable();
        for (off, len) in runs {
            let mut o = 0;
            while o < len {
                // Decompression of the previous chunk: 1 ms per 256 KiB.
                b.push_with(OpKind::Read, at + off + o, chunk, 1_000_000);
                o += chunk;
                if b.rng.gen_bool(0.1) {
                    let idx = at + b.rng.gen_range(0..MIB / PAGE) * PAGE;
                    b.push(OpKind::Read, idx, PAGE);
                }
            }
        }
        at += size + 64 * MIB;
    }
    assert!(at <= 160 * GIB);
    b.steps
}

/// The registry's synthetic desktop load (EXP-H2), for when no recorded trace exists:
/// only the read volume and the share of small requests are given, so everything else is
/// fixed here (defaults, with their sources):
///
/// ```text
/// request   small (≤ 64 KiB) with probability small_share, else large
/// small     4–64 KiB, uniform in 4 KiB steps, at a uniformly random 4 KiB-aligned offset
///           of the region (page faults and metadata: Windows clusters image page
///           faults up to 64 KiB, the registry's boundary)
/// large     128 KiB–1 MiB, uniform in 64 KiB steps (1 MiB: the largest transfer of the
///           Windows 7 storage stack, CrystalDiskMark's block); large requests continue a
///           sequential stream, which starts at a random 4 KiB-aligned offset of the
///           region and runs 1–16 MiB (uniform in MiB; the run lengths of the game-load
///           model above); a stream's last request is at least 128 KiB too
/// volume    requests until `read_bytes` are read (the last one shortened to fit)
/// writes    none: the registry gives no write volume (writes bypass the cache, so both
///           systems would pay them on the HDD)
/// think     0: the registry's CPU time is a total, added by the caller to both systems
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ReadMix {
    /// Bytes read by one run.
    pub read_bytes: u64,
    /// Share of requests of 64 KiB or less (0–1).
    pub small_share: f64,
    /// Where on the disk the data live.
    pub region: std::ops::Range<u64>,
}

/// One run of the mix `m` (every run of a workload is the same, as a repeated boot or
/// launch reads the same data), seeded by `seed`.
pub fn read_mix(m: &ReadMix, seed: u64) -> Vec<Step> {
    assert!(
        (0.0..=1.0).contains(&m.small_share) && m.region.end >= m.region.start + 16 * MIB,
        "read mix: small_share in [0, 1] and a region of at least 16 MiB"
    );
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x4d1c);
    let pages = (m.region.end - m.region.start) / PAGE;
    let mut steps = Vec::new();
    let mut read = 0u64;
    // Next byte of the current stream and how much of it is left.
    let (mut at, mut left) = (0u64, 0u64);
    while read < m.read_bytes {
        let (offset, size) = if rng.gen_bool(m.small_share) {
            let size = rng.gen_range(1..=16u64) * PAGE;
            let page = rng.gen_range(0..pages - size / PAGE);
            (m.region.start + page * PAGE, size)
        } else {
            if left == 0 {
                left = rng.gen_range(1..=16u64) * MIB;
                // Room for the stream and a last request rounded up to 128 KiB.
                let page = rng.gen_range(0..pages - (left + 128 * KIB) / PAGE);
                at = m.region.start + page * PAGE;
            }
            // A stream's last piece stays a large request (≥ 128 KiB), so the share of
            // small requests is the one asked for.
            let size = (rng.gen_range(2..=16u64) * 64 * KIB)
                .min(left)
                .max(128 * KIB);
            let o = at;
            at += size;
            left = left.saturating_sub(size);
            (o, size)
        };
        let size = size.min((m.read_bytes - read).next_multiple_of(PAGE));
        steps.push(Step {
            think_ns: 0,
            req: IoRequest::new(OpKind::Read, offset, size),
        });
        read += size;
    }
    steps
}

fn shuffle<T>(v: &mut [T], rng: &mut Xoshiro256PlusPlus) {
    for i in (1..v.len()).rev() {
        v.swap(i, rng.gen_range(0..=i));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(steps: &[Step], op: OpKind) -> u64 {
        steps
            .iter()
            .filter(|s| s.req.op == op)
            .map(|s| s.req.size_bytes)
            .sum()
    }

    #[test]
    fn the_read_mix_has_the_asked_volume_share_and_region() {
        let m = ReadMix {
            read_bytes: 1_000_000_000,
            small_share: 0.6,
            region: DesktopWorkload::Boot.region(),
        };
        let s = read_mix(&m, 3);
        assert_eq!(s, read_mix(&m, 3));
        assert_ne!(s, read_mix(&m, 4));
        let total: u64 = s.iter().map(|x| x.req.size_bytes).sum();
        // Exactly the volume, up to the last request's rounding to 4 KiB.
        assert!(
            total >= m.read_bytes && total < m.read_bytes + PAGE,
            "{total}"
        );
        let small = s.iter().filter(|x| x.req.size_bytes <= 64 * KIB).count();
        let share = small as f64 / s.len() as f64;
        // About 4,000 requests: the binomial standard deviation is 0.008.
        assert!((share - 0.6).abs() < 0.03, "{share}");
        for x in &s {
            assert!(m.region.contains(&x.req.offset_bytes));
            assert!(x.req.offset_bytes + x.req.size_bytes <= m.region.end);
            assert_eq!((x.req.op, x.think_ns), (OpKind::Read, 0));
            assert!(x.req.size_bytes <= MIB && x.req.size_bytes.is_multiple_of(PAGE));
        }
        // Large requests continue their stream: most follow the previous large one.
        let large: Vec<&Step> = s.iter().filter(|x| x.req.size_bytes > 64 * KIB).collect();
        let follows = large
            .windows(2)
            .filter(|w| w[0].req.offset_bytes + w[0].req.size_bytes == w[1].req.offset_bytes)
            .count();
        assert!(
            follows * 10 > large.len() * 8,
            "{follows} of {}",
            large.len()
        );
    }

    #[test]
    fn workloads_have_the_intended_shape_and_stay_in_their_regions() {
        for &(w, name, _) in DesktopWorkload::all() {
            let runs = build(w, 2, 7);
            assert_eq!(runs.len(), 2);
            assert_eq!(
                (runs[0].name.as_str(), runs[1].name.as_str()),
                ("cold", "warm")
            );
            let s = &runs[0].steps;
            for st in s {
                assert!(
                    st.req.offset_bytes + st.req.size_bytes <= w.end_bytes(),
                    "{name}"
                );
                assert!(st.req.offset_bytes.is_multiple_of(PAGE) && st.req.size_bytes > 0);
            }
            let reads = bytes(s, OpKind::Read);
            let writes = bytes(s, OpKind::Write);
            // Mostly reads, and sizes within a desktop's range (tens of MiB to a few GiB).
            assert!(writes * 10 < reads, "{name}: {writes} vs {reads}");
            assert!((30 * MIB..4 * GIB).contains(&reads), "{name}: {reads}");
            // Deterministic.
            assert_eq!(build(w, 1, 7)[0].steps, runs[0].steps, "{name}");
        }
        // Boots drift a little; application launches repeat exactly.
        let boots = build(DesktopWorkload::Boot, 2, 7);
        assert_ne!(boots[0].steps, boots[1].steps);
        let apps = build(DesktopWorkload::AppLaunch, 2, 7);
        assert_eq!(apps[0].steps, apps[1].steps);
        // The game reads mostly in 256 KiB requests.
        let game = &build(DesktopWorkload::GameLoad, 1, 7)[0].steps;
        let big = game
            .iter()
            .filter(|s| s.req.size_bytes == 256 * KIB)
            .count();
        assert!(big * 2 > game.len());
    }
}
