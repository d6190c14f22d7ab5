//! EXP-N4 — NCQ on and off, and queue depth (Heo et al., QLRU slides, slide 6).
//!
//! ```text
//! drive    page-mapping SATA SSD: MLC, 4 KB pages, 4 dies a channel (4 chips of 1 die,
//!          1 plane), SATA 3 Gb/s (300 MB/s), channels ∈ {4, 8, 16}
//!          MLC timings of the era where the slides give none: Ryu & Park's Fig. 2
//!          (t_R 50 µs, t_PROG 750 µs — the middle of 600–900 —, t_BERS 3 ms, t_RC 25 ns
//!          = 40 MB/s buses); one page a program, no SLC cache, no controller latency
//! state    one sequential fill (precondition = fill); CAPACITY logical
//! load     4 KB random read, 4 KB random write, 64 KB sequential read; QD 1 … 32
//!          (QD 1 = NCQ off); REQUESTS a run; seeds 1–3 for the random loads
//! buffer   write-back LRU of BUFFER, or none (matters for writes only)
//! N8       IOPS(QD 32) ≥ 1.30 × IOPS(QD 1)
//! N11      throughput monotone within 5 % over QD 1…32 (rule 0.3b) and
//!          T(32) ≥ 0.90 × B*, B* = min(host link, Σ channel rate, Σ die array rate)
//! ```

use super::eval::{Env, Evaluator};
use super::grid_run::{self, RunPoint, float, int, num, text};
use super::judge::{Point, RowResult, Seeds, Verdict, at_least};
use crate::experiments::ExpError;
use std::collections::BTreeMap;

/// The registry's EXP-N4.
pub struct ExpN4;

/// Logical capacity (not stated; the fill must stay quick across 324 runs).
const CAPACITY: &str = "4GiB";
/// Write-back buffer when on: 32 MiB, the smallest of the slides' buffer grid (32–512 MB).
const BUFFER: &str = "32MiB";
/// Requests a run: over 600 rounds of the deepest queue.
const REQUESTS: i64 = 20_000;
const QDS: [i64; 6] = [1, 2, 4, 8, 16, 32];
const CHANNELS: [i64; 3] = [4, 8, 16];
const HOST_LINK_MB_S: f64 = 300.0;
const READ_NS: i64 = grid_run::ERA_MLC_READ_NS;
const PROGRAM_NS: i64 = grid_run::ERA_MLC_PROGRAM_NS;
const PAGE_BYTES: f64 = 4096.0;
const CHANNEL_MB_S: f64 = grid_run::ERA_MLC_CHANNEL_MB_S;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Load {
    RandRead,
    RandWrite,
    SeqRead,
}

impl Load {
    fn name(self) -> &'static str {
        match self {
            Load::RandRead => "4KB-random-read",
            Load::RandWrite => "4KB-random-write",
            Load::SeqRead => "64KB-sequential-read",
        }
    }
    fn keys(self) -> (&'static str, &'static str) {
        match self {
            Load::RandRead => ("random-read", "4KiB"),
            Load::RandWrite => ("random-write", "4KiB"),
            Load::SeqRead => ("seq-read", "64KiB"),
        }
    }
    fn seeds(self) -> &'static [i64] {
        match self {
            Load::SeqRead => &[1],
            _ => &[1, 2, 3],
        }
    }
    /// B*, MB/s: the host link, the buses, and the dies' array rate for this load.
    fn bound_mb_s(self, channels: i64) -> f64 {
        let dies = 4.0 * channels as f64;
        let array_ns = if self == Load::RandWrite {
            PROGRAM_NS
        } else {
            READ_NS
        };
        let array = dies * PAGE_BYTES / array_ns as f64 * 1e3;
        HOST_LINK_MB_S
            .min(channels as f64 * CHANNEL_MB_S)
            .min(array)
    }
}

fn base() -> Vec<(&'static str, toml::Value)> {
    let mut keys = vec![
        ("precondition", text("fill")),
        ("device.capacity", text(CAPACITY)),
        ("device.chips_per_channel", int(4)),
        ("device.host_link_mb_s", float(HOST_LINK_MB_S)),
        ("workload.requests", int(REQUESTS)),
        ("buffer.size", text(BUFFER)),
    ];
    keys.extend(grid_run::era_mlc_drive());
    keys
}

type Key = (Load, i64, bool, i64);

impl Evaluator for ExpN4 {
    fn experiment(&self) -> &'static str {
        "EXP-N4"
    }

    fn evaluate(&self, env: &Env) -> Result<Vec<RowResult>, ExpError> {
        let loads = [Load::RandRead, Load::RandWrite, Load::SeqRead];
        let channels = grid_run::ends(&CHANNELS, env.quick);
        let mut points = Vec::new();
        let mut index: Vec<Key> = Vec::new();
        for load in loads {
            for &ch in &channels {
                for buffered in [false, true] {
                    for qd in QDS {
                        let (w, size) = load.keys();
                        for &seed in load.seeds() {
                            points.push(RunPoint::new(vec![
                                ("workload", text(w)),
                                ("workload.size", text(size)),
                                ("device.channels", int(ch)),
                                ("buffer.name", text(if buffered { "lru" } else { "none" })),
                                ("host.qd", int(qd)),
                                ("seed", int(seed)),
                            ]));
                            index.push((load, ch, buffered, qd));
                        }
                    }
                }
            }
        }
        let reports = grid_run::run(env, "EXP-N4", base(), &points)?;
        let mut iops: BTreeMap<Key, Seeds> = BTreeMap::new();
        let mut mb_s: BTreeMap<Key, Seeds> = BTreeMap::new();
        for (k, r) in index.into_iter().zip(&reports) {
            iops.entry(k)
                .or_insert_with(|| Seeds(vec![]))
                .0
                .push(num(r, "iops"));
            mb_s.entry(k)
                .or_insert_with(|| Seeds(vec![]))
                .0
                .push(num(r, "throughput_mib_s") * 1.048_576);
        }
        let mut n8 = Vec::new();
        let mut n11 = Vec::new();
        for load in loads {
            for &ch in &channels {
                for buffered in [false, true] {
                    let params = vec![
                        ("workload".to_string(), load.name().to_string()),
                        ("channels".to_string(), ch.to_string()),
                        (
                            "write_back_buffer".to_string(),
                            if buffered { "on" } else { "off" }.to_string(),
                        ),
                    ];
                    let at = |qd| &iops[&(load, ch, buffered, qd)];
                    let gain = at(32).ratio(at(1));
                    n8.push(Point::new(
                        params.clone(),
                        format!(
                            "IOPS QD1 {:.0}, QD32 {:.0} ({:.2}×)",
                            at(1).mean(),
                            at(32).mean(),
                            gain.mean()
                        ),
                        at_least(&gain, 1.30),
                    ));
                    let t: Vec<f64> = QDS
                        .iter()
                        .map(|&q| mb_s[&(load, ch, buffered, q)].mean())
                        .collect();
                    let monotone = t.windows(2).all(|w| w[1] >= 0.95 * w[0]);
                    let rise = t[5] >= 1.05 * t[0];
                    let bound = load.bound_mb_s(ch);
                    n11.push(Point::new(
                        params,
                        format!(
                            "MB/s at QD 1…32: {}; B* {bound:.0}",
                            t.iter()
                                .map(|x| format!("{x:.0}"))
                                .collect::<Vec<_>>()
                                .join(" / ")
                        ),
                        Verdict::all([
                            Verdict::of(monotone && rise),
                            Verdict::of(t[5] >= 0.90 * bound),
                        ]),
                    ));
                }
            }
        }
        Ok(vec![
            RowResult::evaluated("N8", n8),
            RowResult::evaluated("N11", n11),
        ])
    }
}
