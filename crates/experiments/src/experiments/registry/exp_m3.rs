//! EXP-M3 — how many 40 MB/s channels match a SATA hard disk and Ultra-320 SCSI
//! (Ryu & Park 2009, §2.2, Fig. 4).
//!
//! ```text
//! drive    N channels, each one 40 MB/s bus with 2 SLC packages × 2 dies (EXP-M1
//!          timings: 2 KB page, 64 pages a block, t_R 25 µs, t_PROG 200 µs, t_BERS 1.5 ms),
//!          page FTL striping pages over channels in write order, host link unlimited,
//!          no DRAM buffer, no SLC cache, no fixed controller latency
//! state    filled sequentially beforehand (precondition = fill)
//! load     sequential reads at queue depth 32 of READ_BYTES in requests of R; MB/s
//! grid     R ∈ {64, 256, 1024} KB × controller per-command time {0, 25, 50} µs
//!          (device.controller_command_ns), N ∈ {3, 4, 7, 8} (the channel counts the
//!          criteria compare)
//! M29      T(4) ≥ 120 MB/s and T(3) < 126 MB/s
//! M30      T(8) ≥ 304 MB/s and T(7) < 320 MB/s
//! ```
//! Sequential reads draw no random numbers: one run a point (rule 0.5).

use super::eval::{Env, Evaluator};
use super::grid_run::{self, RunPoint, int, num, text};
use super::judge::{Point, RowResult, Verdict};
use crate::experiments::ExpError;

/// The registry's EXP-M3.
pub struct ExpM3;

/// Logical capacity of every drive. Not stated by the paper; large enough that the
/// reads below never wrap, small enough that the fill is quick.
const CAPACITY: &str = "1GiB";
/// Bytes read a run: 16 rounds of the queue at the largest request (1 MiB × 32), so
/// the queue's start and drain weigh little.
const READ_BYTES: u64 = 512 << 20;
const CHANNELS: [i64; 4] = [3, 4, 7, 8];
const SIZES_KIB: [i64; 3] = [64, 256, 1024];
const COMMAND_US: [i64; 3] = [0, 25, 50];

fn base() -> Vec<(&'static str, toml::Value)> {
    let mut keys = grid_run::era_slc_drive();
    keys.extend([
        ("workload", text("seq-read")),
        ("precondition", text("fill")),
        ("host.qd", int(32)),
        ("device.capacity", text(CAPACITY)),
        ("device.chips_per_channel", int(2)),
        ("device.dies_per_chip", int(2)),
        ("seed", int(1)),
    ]);
    keys
}

impl Evaluator for ExpM3 {
    fn experiment(&self) -> &'static str {
        "EXP-M3"
    }

    fn evaluate(&self, env: &Env) -> Result<Vec<RowResult>, ExpError> {
        let mut points = Vec::new();
        let mut where_ = Vec::new();
        for size in SIZES_KIB {
            for cmd in COMMAND_US {
                for ch in CHANNELS {
                    points.push(RunPoint::new(vec![
                        ("device.channels", int(ch)),
                        ("workload.size", text(&format!("{size}KiB"))),
                        ("device.controller_command_ns", int(cmd * 1000)),
                        (
                            "workload.requests",
                            int((READ_BYTES / (size as u64 * 1024)) as i64),
                        ),
                    ]));
                    where_.push((size, cmd, ch));
                }
            }
        }
        let reports = grid_run::run(env, "EXP-M3", base(), &points)?;
        // MB/s = 10^6 B/s (rule 0.7).
        let mb_s: Vec<f64> = reports
            .iter()
            .map(|r| num(r, "throughput_mib_s") * 1.048_576)
            .collect();
        let t = |size: i64, cmd: i64, ch: i64| -> f64 {
            let i = where_
                .iter()
                .position(|w| *w == (size, cmd, ch))
                .expect("every point ran");
            mb_s[i]
        };
        let mut m29 = Vec::new();
        let mut m30 = Vec::new();
        for size in SIZES_KIB {
            for cmd in COMMAND_US {
                let params = vec![
                    ("request_kib".to_string(), size.to_string()),
                    ("controller_overhead_us".to_string(), cmd.to_string()),
                ];
                let (t3, t4, t7, t8) = (
                    t(size, cmd, 3),
                    t(size, cmd, 4),
                    t(size, cmd, 7),
                    t(size, cmd, 8),
                );
                m29.push(Point::new(
                    params.clone(),
                    format!("T(3) {t3:.1}, T(4) {t4:.1} MB/s"),
                    Verdict::of(t4 >= 120.0).and(Verdict::of(t3 < 126.0)),
                ));
                m30.push(Point::new(
                    params,
                    format!("T(7) {t7:.1}, T(8) {t8:.1} MB/s"),
                    Verdict::of(t8 >= 304.0).and(Verdict::of(t7 < 320.0)),
                ));
            }
        }
        Ok(vec![
            RowResult::evaluated("M29", m29),
            RowResult::evaluated("M30", m30),
        ])
    }
}
