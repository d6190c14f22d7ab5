//! EXP-M12 — placement inside and across channels, 2 × 2 (Ryu & Park 2009, Figs. 15,
//! 17): {write-order, by-address} × {one-channel, striped} on SSD B's hardware.
//!
//! ```text
//! drive    SSD B's hardware (preset ssd-b: SLC, 2 KB page, 128 KB erase block,
//!          4 ch × 4 chips, 32 GB, 7 % spare), no DRAM data buffer, page FTL
//! write-order + one-channel / striped: ftl.placement = write-order,
//!          ftl.mgmt_block = S, ftl.channel_placement = one-channel | striped
//!          (one-channel fills a management block's worth of writes on one channel
//!          before moving to the next; striped rotates pages over the channels)
//! W2       k files of 64 MB at offsets i × 64 MB, written with requests of R at QD 1
//!          file by file or interleaved (one request of each file in turn), then read
//!          by k concurrent streams, one per file, each at QD 1 (a stream issues its
//!          next R-sized read when its previous one completes; requests go to the
//!          device in order of issue time); throughput = k × 64 MB / time until the
//!          last stream ends
//! cell     one `ssdlab run` a point, two [[workload.phase]]s over [0, k × 64 MB):
//!            write  seq-write, size R; file by file: one stream (offsets in order),
//!                   interleaved: workload.streams = k (one request of each file in
//!                   turn), one loop at host.qd = 1
//!            read   seq-read, size R, workload.streams = k,
//!                   workload.stream_loop = "per-stream" (k closed loops, each with
//!                   host.qd = 1 outstanding)
//!          the read phase starts when the last write has completed (an idle drive);
//!          throughput from its simulated time; kept in the resumable stores
//!          OUT/cells/EXP-M12 (aged) and OUT/cells/EXP-M12-fresh
//! state    fresh: nothing written before the files; aged (EXP-M10's centre):
//!          precondition = "age", fill_percent = 87.5 (the first 87.5 % of the LBAs
//!          filled sequentially), aging.volume_drive_writes = 2, aging.pattern =
//!          uniform (2 × capacity of 4 KB uniform random writes over them; seeds 1–3)
//! grid     S ∈ {16 KB, 128 KB, 1 MB} × R ∈ {16, 64, 256} KB × k ∈ {4, 8, 16} ×
//!          W2 write order × state = 108 points
//! M14      T(write-order + one-channel) ≥ 1.05 × T(write-order + striped) on W2
//! M12, M13 not evaluable (see `missing`)
//! isolation (M14's cause, `isolation.csv`; not a grid point, judges nothing) the fresh
//!          points again with SSD B's buses faster, everything else the same:
//!          device.channel_mb_s = 4 × and 8 × the preset's 40 MB/s (a 2 KB page on the
//!          bus in 12.8 and 6.4 µs instead of 51 µs), and 8 × with the 300 MB/s host
//!          link lifted too (host_link_mb_s = 0, a second factor, said so in the
//!          output) — one-channel against striped at every S, R, k and write order,
//!          seed 1, set beside the registered fresh points
//! ```
//!
//! Time. Aging a 32 GB drive (2 × 32 GB of random writes) costs seconds, so the aged
//! cells of one (S, channel placement, seed) share one aged drive: the sweep runner
//! ages it once and runs each of the 18 (R, k, write order) cells on an exact copy
//! (docs/sweep.md, "Cells that share a preconditioned drive"), so every point sees
//! the drive exactly as aged. Fresh points get a new drive each. The file writes are
//! a phase of their own, not counted in the reads' time. Cost (session 20, partly
//! measured at load ≈ 14): a series about 17 CPU-s, mostly its aging; a fresh cell
//! about 0.1 CPU-s; the whole grid 273 CPU-s (BENCHMARKS.md).
//!
//! --quick: ends of S, R, k; 1 GB drive, 8 MB files.

use super::eval::{Env, Evaluator};
use super::grid_run::{self, RunPoint, ends, float, int, num, text};
use super::judge::{Label, Point, RowResult, Seeds, Verdict, at_least};
use crate::experiments::ExpError;
use std::collections::BTreeMap;

/// The registry's EXP-M12.
pub struct ExpM12;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;
const S_KIB: [u64; 3] = [16, 128, 1024];
const R_KIB: [u64; 3] = [16, 64, 256];
const K_FILES: [u64; 3] = [4, 8, 16];
const ORDERS: [&str; 2] = ["file-by-file", "interleaved"];
const CHANNELS: [&str; 2] = ["one-channel", "striped"];
const SEEDS: [u64; 3] = [1, 2, 3];
/// EXP-M10's centre: utilisation 87.5 %, aging volume 2 × the logical capacity, 4 KB
/// uniform random writes.
const AGED_UTILISATION_PERCENT: f64 = 87.5;
const AGING_VOLUME_DRIVE_WRITES: f64 = 2.0;
const AGING_PATTERN: &str = "uniform";
/// The measured phase's name in a cell's report.
const READ: &str = "read";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum State {
    Fresh,
    Aged,
}

/// (R KiB, k, write order).
type Load = (u64, u64, &'static str);
/// (S KiB, channel placement, state, seed) → throughput per load, MB/s.
type Session = (u64, &'static str, State, u64);

struct Sizes {
    capacity_gib: u64,
    file_bytes: u64,
}

fn sizes(quick: bool) -> Sizes {
    if quick {
        Sizes {
            capacity_gib: 1,
            file_bytes: 8 * MIB,
        }
    } else {
        Sizes {
            capacity_gib: 32,
            file_bytes: 64 * MIB,
        }
    }
}

/// One `[[workload.phase]]` table.
fn phase(keys: &[(&str, toml::Value)]) -> toml::Value {
    toml::Value::Table(
        keys.iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

/// W2 as the cell's two phases: write the k files in `order`, then read them with k
/// concurrent streams at QD 1 each.
fn w2(load: Load, file_bytes: u64) -> toml::Value {
    let (r_kib, k, order) = load;
    let size = text(&format!("{r_kib}KiB"));
    let span = text(&format!("{}B", k * file_bytes));
    let write_streams = if order == "interleaved" { k } else { 1 };
    toml::Value::Array(vec![
        phase(&[
            ("name", text("write")),
            ("kind", text("seq-write")),
            ("size", size.clone()),
            ("align", size.clone()),
            ("span", span.clone()),
            ("streams", int(write_streams as i64)),
        ]),
        phase(&[
            ("name", text(READ)),
            ("kind", text("seq-read")),
            ("size", size.clone()),
            ("align", size),
            ("span", span),
            ("streams", int(k as i64)),
            ("stream_loop", text("per-stream")),
        ]),
    ])
}

/// Keys every cell shares: SSD B without a DRAM buffer, page FTL in write order, QD 1.
fn base(sz: &Sizes, state: State) -> Vec<(&'static str, toml::Value)> {
    let mut keys = vec![
        ("preset", text("ssd-b")),
        ("device.capacity", text(&format!("{}GiB", sz.capacity_gib))),
        ("buffer.name", text("none")),
        ("ftl.name", text("page")),
        ("ftl.placement", text("write-order")),
        ("host.qd", int(1)),
    ];
    if state == State::Aged {
        keys.extend([
            ("precondition", text("age")),
            ("fill_percent", float(AGED_UTILISATION_PERCENT)),
            (
                "aging.volume_drive_writes",
                float(AGING_VOLUME_DRIVE_WRITES),
            ),
            ("aging.pattern", text(AGING_PATTERN)),
        ]);
    }
    keys
}

/// Every load of the grid.
fn loads(quick: bool) -> Vec<Load> {
    let mut v = Vec::new();
    for r in ends(&R_KIB, quick) {
        for k in ends(&K_FILES, quick) {
            for o in ORDERS {
                v.push((r, k, o));
            }
        }
    }
    v
}

/// Runs the cells of `sessions` (all of one state) and returns MB/s per (session, load).
fn runs(
    env: &Env,
    state: State,
    sessions: &[Session],
) -> Result<BTreeMap<(Session, Load), f64>, ExpError> {
    let sz = sizes(env.quick);
    let mut keys = Vec::new();
    let mut points = Vec::new();
    for &s in sessions {
        for l in loads(env.quick) {
            keys.push((s, l));
            points.push(RunPoint::new(vec![
                ("seed", int(s.3 as i64)),
                ("ftl.mgmt_block", text(&format!("{}KiB", s.0))),
                ("ftl.channel_placement", text(s.1)),
                ("workload.phase", w2(l, sz.file_bytes)),
            ]));
        }
    }
    let exp = match state {
        State::Fresh => "EXP-M12-fresh",
        State::Aged => "EXP-M12",
    };
    let reports = grid_run::run(env, exp, base(&sz, state), &points)?;
    keys.into_iter()
        .zip(&reports)
        .map(|((s, l), r)| {
            let read = r["phases"]
                .as_array()
                .and_then(|v| v.iter().find(|p| p["name"] == READ))
                .ok_or_else(|| ExpError::Other(format!("{exp}: a report without phase {READ}")))?;
            let bytes = l.1 * sz.file_bytes;
            Ok(((s, l), mb_s(bytes, num(read, "simulated_ns"))))
        })
        .collect()
}

/// The isolating runs' bus speeds: (name, channel MB/s, host link MB/s; 0 = no limit).
/// SSD B's buses are 40 MB/s (25 ns a byte, the preset's SLC t_RC) and its host link
/// 300 MB/s (SATA 3 Gb/s).
const BUS_ARMS: [(&str, f64, f64); 3] = [
    (
        "bus ×4 (160 MB/s a channel), host link 300 MB/s",
        160.0,
        300.0,
    ),
    (
        "bus ×8 (320 MB/s a channel), host link 300 MB/s",
        320.0,
        300.0,
    ),
    (
        "bus ×8 (320 MB/s a channel), host link unlimited",
        320.0,
        0.0,
    ),
];
/// SSD B's channels, chips, page and t_R, and the preset's bus and host link.
const B_CHANNELS: f64 = 4.0;
const B_CHIPS: f64 = 16.0;
const B_PAGE_BYTES: f64 = 2048.0;
const B_READ_US: f64 = 25.0;
const B_BUS_MB_S: f64 = 40.0;
const B_HOST_LINK_MB_S: f64 = 300.0;

/// The most any placement can read (the closed form the isolating runs move): the
/// lowest of the channels' buses together, the chips (each reads a page in t_R, then
/// sends it over its bus: one page per t_R + transfer) and the host link (0 = no limit).
fn read_ceiling_mb_s(channels: f64, bus_mb_s: f64, host_link_mb_s: f64) -> f64 {
    let buses = channels * bus_mb_s;
    let chips = B_CHIPS * B_PAGE_BYTES / (B_READ_US + B_PAGE_BYTES / bus_mb_s);
    let inside = buses.min(chips);
    if host_link_mb_s > 0.0 {
        inside.min(host_link_mb_s)
    } else {
        inside
    }
}

/// The fresh points with the buses (and in the last arm the host link) faster: MB/s
/// per (arm, session, load).
fn bus_runs(env: &Env) -> Result<BTreeMap<(usize, Session, Load), f64>, ExpError> {
    let sz = sizes(env.quick);
    let mut keys = Vec::new();
    let mut points = Vec::new();
    for (arm, &(_, bus, host)) in BUS_ARMS.iter().enumerate() {
        for s in ends(&S_KIB, env.quick) {
            for c in CHANNELS {
                for l in loads(env.quick) {
                    keys.push((arm, (s, c, State::Fresh, 1), l));
                    points.push(RunPoint::new(vec![
                        ("seed", int(1)),
                        ("ftl.mgmt_block", text(&format!("{s}KiB"))),
                        ("ftl.channel_placement", text(c)),
                        ("device.channel_mb_s", float(bus)),
                        ("device.host_link_mb_s", float(host)),
                        ("workload.phase", w2(l, sz.file_bytes)),
                    ]));
                }
            }
        }
    }
    let exp = "EXP-M12-isolation";
    let reports = grid_run::run(env, exp, base(&sz, State::Fresh), &points)?;
    keys.into_iter()
        .zip(&reports)
        .map(|((arm, s, l), r)| {
            let read = r["phases"]
                .as_array()
                .and_then(|v| v.iter().find(|p| p["name"] == READ))
                .ok_or_else(|| ExpError::Other(format!("{exp}: a report without phase {READ}")))?;
            Ok((
                (arm, s, l),
                mb_s(l.1 * sz.file_bytes, num(read, "simulated_ns")),
            ))
        })
        .collect()
}

/// One arm of M14's isolation over its points: (lowest, highest one-channel /
/// striped, points with one-channel ≥ 1.05 × striped, points, fastest striped MB/s).
#[derive(Clone, Copy, Debug, PartialEq)]
struct ArmSummary {
    lo: f64,
    hi: f64,
    wins: usize,
    points: usize,
    best_striped: f64,
}

fn arm_summary(pairs: &[(f64, f64)]) -> ArmSummary {
    let mut a = ArmSummary {
        lo: f64::INFINITY,
        hi: 0.0,
        wins: 0,
        points: pairs.len(),
        best_striped: 0.0,
    };
    for &(one, striped) in pairs {
        let r = one / striped;
        a.lo = a.lo.min(r);
        a.hi = a.hi.max(r);
        a.wins += usize::from(r >= 1.05);
        a.best_striped = a.best_striped.max(striped);
    }
    a
}

/// M14's isolating experiment: its rows and cause sentence, from the registered fresh
/// points `t` and the faster-bus runs `b`.
fn bus_isolation(
    quick: bool,
    t: &BTreeMap<(Session, Load), f64>,
    b: &BTreeMap<(usize, Session, Load), f64>,
) -> (Vec<(String, String)>, String) {
    let fresh = |s: u64, c: &'static str| (s, c, State::Fresh, 1);
    let mut rows = Vec::new();
    let mut arms: Vec<(String, f64, ArmSummary)> = Vec::new();
    let registered: Vec<(f64, f64)> = ends(&S_KIB, quick)
        .into_iter()
        .flat_map(|s| loads(quick).into_iter().map(move |l| (s, l)))
        .map(|(s, l)| {
            (
                t[&(fresh(s, "one-channel"), l)],
                t[&(fresh(s, "striped"), l)],
            )
        })
        .collect();
    arms.push((
        "registered bus (40 MB/s a channel), host link 300 MB/s".into(),
        read_ceiling_mb_s(B_CHANNELS, B_BUS_MB_S, B_HOST_LINK_MB_S),
        arm_summary(&registered),
    ));
    for (arm, &(name, bus, host)) in BUS_ARMS.iter().enumerate() {
        let mut pairs = Vec::new();
        for s in ends(&S_KIB, quick) {
            for r in ends(&R_KIB, quick) {
                let mut cells = Vec::new();
                for l in loads(quick).into_iter().filter(|l| l.0 == r) {
                    let (one, striped) = (
                        b[&(arm, fresh(s, "one-channel"), l)],
                        b[&(arm, fresh(s, "striped"), l)],
                    );
                    let reg = (
                        t[&(fresh(s, "one-channel"), l)],
                        t[&(fresh(s, "striped"), l)],
                    );
                    pairs.push((one, striped));
                    cells.push(format!(
                        "k={} {}: one-channel {:.1} / striped {:.1} MB/s (×{:.2}; registered \
                            bus ×{:.2})",
                        l.1,
                        l.2,
                        one,
                        striped,
                        one / striped,
                        reg.0 / reg.1
                    ));
                }
                rows.push((
                    format!(
                        "{name}, mgmt_block_kib={s}, request_kib={r}, state=fresh, seed=1, \
                            placement=write-order, W2"
                    ),
                    format!(
                        "read ceiling {:.0} MB/s (closed form: min(4 × bus, 16 chips × 2 KB / (t_R + \
                         transfer), host link)); {}",
                        read_ceiling_mb_s(B_CHANNELS, bus, host),
                        cells.join("; ")
                    ),
                ));
            }
        }
        arms.push((
            name.to_string(),
            read_ceiling_mb_s(B_CHANNELS, bus, host),
            arm_summary(&pairs),
        ));
    }
    let parts: Vec<String> = arms
        .iter()
        .map(|(name, ceiling, a)| {
            format!(
                "{name}: ceiling {ceiling:.0} MB/s, striped up to {:.1} MB/s, one-channel / \
                    striped {:.2}–{:.2} (≥ 1.05 at {} of {})",
                a.best_striped, a.lo, a.hi, a.wins, a.points
            )
        })
        .collect();
    let faster = &arms[1..];
    let wins: usize = faster.iter().map(|a| a.2.wins).sum();
    let verdict = if wins == 0 {
        "so the bus does not explain the miss: with the bus no longer the bottleneck one \
            channel still never reads 5 % faster than striping"
            .to_string()
    } else {
        let n: usize = faster.iter().map(|a| a.2.points).sum();
        format!(
            "so the bus explains the miss where one channel then helps: at {wins} of the \
                faster arms' {n} points"
        )
    };
    let cause = format!(
        "kind: hardware/setup, isolated by experiment — the fresh points again with SSD B's \
         buses faster and nothing else changed (the last arm also lifts the host link, a \
            second factor): {}; {verdict} (isolation.csv)",
        parts.join("; ")
    );
    (rows, cause)
}

/// Bytes over simulated nanoseconds in MB/s (10^6 B/s).
fn mb_s(bytes: u64, ns: f64) -> f64 {
    bytes as f64 / ns.max(1.0) * 1e3
}

/// M14 at one point: one-channel / striped per seed.
fn m14_verdict(one_channel: &Seeds, striped: &Seeds) -> Verdict {
    at_least(&one_channel.ratio(striped), 1.05)
}

impl Evaluator for ExpM12 {
    fn experiment(&self) -> &'static str {
        "EXP-M12"
    }

    fn missing(&self) -> &'static str {
        "the by-address combinations need by-address placement with a 2.6 % log area at \
         S = 16 KB, below SSD B's 128 KB erase block: a log-block FTL (bast, fast) maps whole \
         erase blocks (ftl.superblock ≥ 128 KB), and the page FTL's by-address mgmt_block \
         has no log area, so by-address + log area at S = 16 KB cannot be built and the \
         row's 108 points cannot all be evaluated"
    }

    fn evaluate(&self, env: &Env) -> Result<Vec<RowResult>, ExpError> {
        let quick = env.quick;
        let (mut fresh, mut aged) = (Vec::new(), Vec::new());
        for s in ends(&S_KIB, quick) {
            for c in CHANNELS {
                fresh.push((s, c, State::Fresh, 1));
                for seed in SEEDS {
                    aged.push((s, c, State::Aged, seed));
                }
            }
        }
        let mut t = runs(env, State::Aged, &aged)?;
        t.extend(runs(env, State::Fresh, &fresh)?);
        let mut m14 = Vec::new();
        for s in ends(&S_KIB, quick) {
            for l in loads(quick) {
                for state in [State::Fresh, State::Aged] {
                    let seeds: &[u64] = if state == State::Fresh { &[1] } else { &SEEDS };
                    let tp = |c: &'static str| {
                        Seeds(seeds.iter().map(|&sd| t[&((s, c, state, sd), l)]).collect())
                    };
                    let (one, striped) = (tp("one-channel"), tp("striped"));
                    m14.push(Point::new(
                        vec![
                            ("mgmt_block_kib".to_string(), s.to_string()),
                            ("request_kib".to_string(), l.0.to_string()),
                            ("files".to_string(), l.1.to_string()),
                            ("write_order".to_string(), l.2.to_string()),
                            (
                                "state".to_string(),
                                match state {
                                    State::Fresh => "fresh",
                                    State::Aged => "aged",
                                }
                                .to_string(),
                            ),
                        ],
                        format!(
                            "W2 write-order: one-channel {:.1} MB/s, striped {:.1} MB/s (×{:.2})",
                            one.mean(),
                            striped.mean(),
                            one.ratio(&striped).mean()
                        ),
                        m14_verdict(&one, &striped),
                    ));
                }
            }
        }
        let mut m14 = RowResult::evaluated("M14", m14);
        if m14.label() != Label::Robust {
            let (mut lo, mut hi, mut best) = (f64::INFINITY, 0.0f64, 0.0f64);
            let mut same = true;
            for ((s, l), &x) in &t {
                if s.1 != "one-channel" {
                    continue;
                }
                let y = t[&((s.0, "striped", s.2, s.3), *l)];
                (lo, hi, best) = (lo.min(x / y), hi.max(x / y), best.max(y));
                if s.2 == State::Aged {
                    same &= (x - t[&((s.0, s.1, State::Fresh, 1), *l)]).abs() < 1e-9 * x;
                }
            }
            // Four 40 MB/s buses (SSD B): the most any placement can read.
            let buses_mb_s = read_ceiling_mb_s(B_CHANNELS, B_BUS_MB_S, 0.0);
            let faster = bus_runs(env)?;
            let (iso_rows, iso_cause) = bus_isolation(quick, &t, &faster);
            m14 = m14.with_isolation(iso_rows);
            m14 = m14.with_cause(format!(
                "one-channel / striped ranges {lo:.2}–{hi:.2}; striped reads reach {best:.1} MB/s, \
                 the {buses_mb_s:.0} MB/s of SSD B's four 40 MB/s buses (a 2 KB page crosses a \
                 bus in 51 µs, twice t_R), so the k streams are bus-bound{}; {iso_cause}",
                if same {
                    "; aged and fresh drives give the same throughput at every point (the files \
                     are written after the aging, and write-order placement lays them out the \
                     same way on either)"
                } else {
                    ""
                }
            ));
        }
        Ok(vec![m14])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_faster_bus_moves_the_read_ceiling_as_the_closed_form_says() {
        // The registered drive: four 40 MB/s buses bind (the chips could give 430).
        assert!((read_ceiling_mb_s(B_CHANNELS, B_BUS_MB_S, B_HOST_LINK_MB_S) - 160.0).abs() < 1e-9);
        // Bus ×4: the buses give 640, the chips 1,000: the host link binds.
        assert!((read_ceiling_mb_s(B_CHANNELS, 160.0, 300.0) - 300.0).abs() < 1e-9);
        // Bus ×8, no host link: the chips bind, 16 × 2048 B / 31.4 µs (the full run's
        // striped reads reached 1,043.5 MB/s).
        let chips = read_ceiling_mb_s(B_CHANNELS, 320.0, 0.0);
        assert!((chips - 16.0 * 2048.0 / 31.4).abs() < 1e-9, "{chips}");
        assert!(chips < 4.0 * 320.0);
    }

    #[test]
    fn the_isolation_says_whether_one_channel_then_helps() {
        let q = true;
        let mut t = BTreeMap::new();
        let mut b = BTreeMap::new();
        for s in ends(&S_KIB, q) {
            for l in loads(q) {
                t.insert(((s, "one-channel", State::Fresh, 1), l), 100.0);
                t.insert(((s, "striped", State::Fresh, 1), l), 160.0);
                for arm in 0..BUS_ARMS.len() {
                    b.insert((arm, (s, "one-channel", State::Fresh, 1), l), 290.0);
                    b.insert((arm, (s, "striped", State::Fresh, 1), l), 300.0);
                }
            }
        }
        let (rows, cause) = bus_isolation(q, &t, &b);
        assert_eq!(rows.len(), BUS_ARMS.len() * 2 * 2);
        assert!(
            cause.contains("the bus does not explain the miss"),
            "{cause}"
        );
        assert!(
            cause.contains("one-channel / striped 0.97–0.97 (≥ 1.05 at 0 of 16)"),
            "{cause}"
        );
        // One point of one faster arm where one channel reads 10 % faster.
        let l = loads(q)[0];
        b.insert((2, (16, "one-channel", State::Fresh, 1), l), 330.0);
        let (_, cause) = bus_isolation(q, &t, &b);
        assert!(
            cause.contains("the bus explains the miss where one channel then helps: at 1 of"),
            "{cause}"
        );
        assert_eq!(
            arm_summary(&[(110.0, 100.0), (90.0, 100.0)]),
            ArmSummary {
                lo: 0.9,
                hi: 1.1,
                wins: 1,
                points: 2,
                best_striped: 100.0
            }
        );
    }

    #[test]
    fn m14_is_a_five_percent_win_of_one_channel_over_striped() {
        // 102.55 vs 102.32 MiB/s, the audit's tie, is no win under rule 0.2.
        assert_eq!(
            m14_verdict(&Seeds::one(102.55), &Seeds::one(102.32)),
            Verdict::Fails
        );
        assert_eq!(
            m14_verdict(&Seeds::one(110.0), &Seeds::one(100.0)),
            Verdict::Holds
        );
        // The reverse direction (striped faster) fails.
        assert_eq!(
            m14_verdict(&Seeds::one(100.0), &Seeds::one(110.0)),
            Verdict::Fails
        );
    }
}
