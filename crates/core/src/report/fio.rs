//! Reports in fio's JSON shape (`ssdlab run --json-format fio`, `ssdlab sweep
//! --json-format fio`, Python `Result.fio()`), so that tools written for fio 3.x
//! `--output-format=json` (fio-plot, fio JSON parsers, spreadsheets of
//! `jobs[].write.iops`) read a simulated drive as they read a real one.
//!
//! # Layout: fio's own, field by field and in fio's order
//! Researchers diff these files against real fio output, so every object is a struct
//! whose fields are declared in the order fio writes them (serde serializes a struct's
//! fields in declaration order; the ssdlab JSON's maps stay sorted, and serde_json's
//! `preserve_order` stays off). The order is that of fio's `stat.c` (axboe/fio
//! f5344384, fio 3.42): `__show_run_stats` writes `"fio version"`, `timestamp`,
//! `timestamp_ms`, `time`, `"global options"`, `jobs`, then `disk_util`;
//! `show_thread_status_json` writes per job `jobname`, `groupid`, `job_start`, `error`,
//! `eta`, `elapsed`, `"job options"`, `read`, `write`, `trim`, `sync`, `job_runtime`,
//! `usr_cpu`, `sys_cpu`, `ctx`, `majf`, `minf`, `iodepth_level`, `iodepth_submit`,
//! `iodepth_complete`, `latency_ns`, `latency_us`, `latency_ms`, then `latency_depth`,
//! `latency_target`, `latency_target_ns`, `latency_percentile`, `latency_window`,
//! `latency_window_us`; `add_ddir_status_json` per direction `io_bytes`, `io_kbytes`,
//! `bw_bytes`, `bw` (KiB/s), `iops`, `runtime` (ms), `total_ios`, `short_ios`,
//! `drop_ios`, `slat_ns`, `clat_ns`, `lat_ns`, `bw_min`, `bw_max`, `bw_agg`, `bw_mean`,
//! `bw_dev`, `bw_samples`, `iops_min`, `iops_max`, `iops_mean`, `iops_stddev`,
//! `iops_samples` (`sync`: `total_ios`, `lat_ns`); `add_ddir_lat_json` `min`, `max`,
//! `mean`, `stddev`, `N`, `percentile` (ascending, keyed `"%f"`). Maps whose keys fio
//! writes in a fixed order (percentiles, latency ranges, I/O depths) are [`Ordered`].
//!
//! # How ssdlab's figures map (docs/outputs.md, "fio JSON")
//! One job per design; times are simulated; a request's latency from arrival to
//! completion is `lat_ns` and `clat_ns` alike (the simulated host submits instantly, so
//! `slat_ns` is all zero), both with percentiles (fio run with `lat_percentiles=1`);
//! percentiles are fio's default list; bandwidth and IOPS statistics are one sample, the
//! whole run; every request is submitted and completed alone (`iodepth_submit` and
//! `iodepth_complete` all in fio's "1 to 4" bucket, `"4"`); CPU figures and `job_start`
//! are zero (a simulator has no per-job CPU use or wall-clock start to report); the
//! timestamps are those of the end of the run.
//!
//! The figures a job needs are a [`FioSource`], taken from a [`Report`] when the run
//! ends; a sweep keeps it in its store beside the ssdlab report (whose JSON leaves out
//! fio's percentile list), so that its cells give the same jobs later.

use super::{LatencySummary, Report};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

/// Shape of a JSON report: `--json-format` (run, sweep).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JsonFormat {
    /// The full ssdlab report (docs/outputs.md).
    #[default]
    Ssdlab,
    /// fio 3.x `--output-format=json` (this module).
    Fio,
}

impl JsonFormat {
    /// The format named `s` as the flag takes it (`ssdlab`, `fio`).
    pub fn parse(s: &str) -> Option<JsonFormat> {
        match s {
            "ssdlab" => Some(JsonFormat::Ssdlab),
            "fio" => Some(JsonFormat::Fio),
            _ => None,
        }
    }
}

/// fio's default `percentile_list`.
pub const PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// Upper bounds (ns) of fio's `latency_ns`, `latency_us` and `latency_ms` ranges, in
/// order; the last `latency_ms` range (`">=2000"`) holds the rest.
pub const LATENCY_RANGES_NS: [u64; 31] = [
    2,
    4,
    10,
    20,
    50,
    100,
    250,
    500,
    750,
    1_000,
    2_000,
    4_000,
    10_000,
    20_000,
    50_000,
    100_000,
    250_000,
    500_000,
    750_000,
    1_000_000,
    2_000_000,
    4_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    750_000_000,
    1_000_000_000,
    2_000_000_000,
];

/// Range names as fio writes them, per unit.
const RANGE_NAMES: [&str; 10] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000",
];

/// The version string: fio's key, ssdlab's name (a reader that checks for `fio-` sees
/// that it is not fio).
fn version() -> String {
    format!("ssdlab-{}", env!("CARGO_PKG_VERSION"))
}

/// A map written with its keys in the order given (fio's order), not sorted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ordered<V>(pub Vec<(String, V)>);

impl<V: Serialize> Serialize for Ordered<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// One latency distribution as a fio job needs it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FioLatency {
    /// Requests measured.
    pub count: u64,
    /// Minimum, ns.
    pub min: u64,
    /// Maximum, ns.
    pub max: u64,
    /// Mean, ns.
    pub mean: f64,
    /// Population standard deviation, ns.
    pub stddev: f64,
    /// At fio's [`PERCENTILES`], ns.
    pub percentiles: Vec<u64>,
}

impl FioLatency {
    fn from_summary(l: &LatencySummary) -> FioLatency {
        FioLatency {
            count: l.count,
            min: l.min,
            max: l.max,
            mean: finite(l.mean),
            stddev: finite(l.stddev),
            percentiles: l.fio_percentiles.clone(),
        }
    }
}

/// What a design's fio job is built from: the few figures of its [`Report`] fio reports,
/// with the percentile list and latency ranges the ssdlab JSON leaves out. A sweep keeps
/// one per cell in its store (`Record::fio`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FioSource {
    /// fio's `rw` for the run's generator ([`rw`]).
    pub rw: String,
    /// The generator's request size as configured (`bs`; empty for traces).
    pub bs: String,
    /// Host queue depth.
    pub qd: u64,
    /// Simulated time of the measured run, ns.
    pub simulated_ns: u64,
    /// Host bytes read.
    pub read_bytes: u64,
    /// Host bytes written.
    pub write_bytes: u64,
    /// Host bytes trimmed.
    pub trim_bytes: u64,
    /// Reads.
    pub read: FioLatency,
    /// Writes.
    pub write: FioLatency,
    /// Share of all requests (percent) in each of fio's [`LATENCY_RANGES_NS`] and above.
    pub ranges: Vec<f64>,
    /// Wall-clock end of the run, ms since the epoch (fio's timestamps).
    pub end_ms: u64,
}

impl FioSource {
    /// The figures of `r`, a run that ended now.
    pub fn from_report(r: &Report) -> FioSource {
        let page = r
            .config
            .pointer("/device/page_size")
            .and_then(|v| v.as_str())
            .and_then(|s| s.parse::<crate::units::Size>().ok())
            .map_or(4096, |s| s.bytes());
        FioSource {
            rw: rw(r).into(),
            bs: r
                .config
                .pointer("/workload/size")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .into(),
            qd: r
                .config
                .pointer("/host/qd")
                .and_then(|v| v.as_u64())
                .unwrap_or(1),
            simulated_ns: r.simulated_ns,
            read_bytes: r.host_read_bytes,
            write_bytes: r.host_write_bytes,
            trim_bytes: r.host_trim_pages * page,
            read: FioLatency::from_summary(&r.read_latency_ns),
            write: FioLatency::from_summary(&r.write_latency_ns),
            ranges: r.latency_ns.fio_ranges.clone(),
            end_ms: now_ms(),
        }
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis() as u64
}

/// fio's whole JSON document.
#[derive(Clone, Debug, Serialize)]
pub struct FioOutput {
    /// `fio-3.x` in fio; `ssdlab-VERSION` here.
    #[serde(rename = "fio version")]
    pub fio_version: String,
    /// Seconds since the epoch.
    pub timestamp: u64,
    /// Milliseconds since the epoch.
    pub timestamp_ms: u64,
    /// As C's `ctime` (UTC).
    pub time: String,
    /// Options of the job file's global section (none here).
    #[serde(rename = "global options")]
    pub global_options: Ordered<String>,
    /// One per design.
    pub jobs: Vec<FioJob>,
    /// Block-device statistics (none: the device is simulated).
    pub disk_util: Vec<serde_json::Value>,
}

/// One job (`show_thread_status_json`).
#[derive(Clone, Debug, Serialize)]
pub struct FioJob {
    /// The design's name.
    pub jobname: String,
    /// Always 0.
    pub groupid: u32,
    /// Wall-clock start, ms since the epoch in fio; 0 here.
    pub job_start: u64,
    /// Always 0.
    pub error: i32,
    /// Always 0.
    pub eta: u64,
    /// Simulated seconds, rounded up.
    pub elapsed: u64,
    /// The job's options as fio would print them.
    #[serde(rename = "job options")]
    pub job_options: JobOptions,
    /// Reads.
    pub read: FioDirection,
    /// Writes.
    pub write: FioDirection,
    /// Trims.
    pub trim: FioDirection,
    /// Syncs (none).
    pub sync: FioSync,
    /// Simulated ms.
    pub job_runtime: u64,
    /// 0.
    pub usr_cpu: f64,
    /// 0.
    pub sys_cpu: f64,
    /// 0.
    pub ctx: u64,
    /// 0.
    pub majf: u64,
    /// 0.
    pub minf: u64,
    /// Share of the run at each queue depth: all at the host's.
    pub iodepth_level: Ordered<f64>,
    /// Requests per submission: one at a time.
    pub iodepth_submit: Ordered<f64>,
    /// Requests per completion: one at a time.
    pub iodepth_complete: Ordered<f64>,
    /// Share of requests in each range below 1 µs.
    pub latency_ns: Ordered<f64>,
    /// … below 1 ms.
    pub latency_us: Ordered<f64>,
    /// … from 1 ms.
    pub latency_ms: Ordered<f64>,
    /// fio's `latency_qd`: the queue depth.
    pub latency_depth: u64,
    /// No latency target: 0.
    pub latency_target: u64,
    /// No latency target: 0.
    pub latency_target_ns: u64,
    /// fio's default, 100.
    pub latency_percentile: f64,
    /// 0.
    pub latency_window: u64,
    /// 0.
    pub latency_window_us: u64,
}

/// A job's options, in the order a job file would give them.
#[derive(Clone, Debug, Serialize)]
pub struct JobOptions {
    /// The job's name.
    pub name: String,
    /// `ssdlab (simulated)`.
    pub ioengine: String,
    /// fio's `rw`.
    pub rw: String,
    /// Request size.
    pub bs: String,
    /// Host queue depth.
    pub iodepth: String,
    /// `1`.
    pub numjobs: String,
}

/// One direction (`add_ddir_status_json`).
#[derive(Clone, Debug, Serialize)]
pub struct FioDirection {
    /// Bytes moved.
    pub io_bytes: u64,
    /// KiB moved.
    pub io_kbytes: u64,
    /// Bytes/s.
    pub bw_bytes: u64,
    /// KiB/s.
    pub bw: u64,
    /// Requests/s.
    pub iops: f64,
    /// ms.
    pub runtime: u64,
    /// Requests.
    pub total_ios: u64,
    /// 0.
    pub short_ios: u64,
    /// 0.
    pub drop_ios: u64,
    /// Submission latency: zero.
    pub slat_ns: FioLat,
    /// Completion latency.
    pub clat_ns: FioLat,
    /// Total latency.
    pub lat_ns: FioLat,
    /// KiB/s, one sample.
    pub bw_min: u64,
    /// KiB/s, one sample.
    pub bw_max: u64,
    /// Percent of the group's bandwidth.
    pub bw_agg: f64,
    /// KiB/s, one sample.
    pub bw_mean: f64,
    /// 0.
    pub bw_dev: f64,
    /// 1 if any request, else 0.
    pub bw_samples: u64,
    /// Requests/s, one sample.
    pub iops_min: u64,
    /// Requests/s, one sample.
    pub iops_max: u64,
    /// Requests/s, one sample.
    pub iops_mean: f64,
    /// 0.
    pub iops_stddev: f64,
    /// 1 if any request, else 0.
    pub iops_samples: u64,
}

/// The `sync` direction: fio writes only these two.
#[derive(Clone, Debug, Serialize)]
pub struct FioSync {
    /// 0.
    pub total_ios: u64,
    /// Empty.
    pub lat_ns: FioLat,
}

/// A latency (`add_ddir_lat_json`).
#[derive(Clone, Debug, Serialize)]
pub struct FioLat {
    /// ns.
    pub min: u64,
    /// ns.
    pub max: u64,
    /// ns.
    pub mean: f64,
    /// ns.
    pub stddev: f64,
    /// Requests.
    #[serde(rename = "N")]
    pub n: u64,
    /// At fio's [`PERCENTILES`], keyed as fio prints them (`"99.990000"`); only with
    /// requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percentile: Option<Ordered<u64>>,
}

fn lat(l: &FioLatency, percentiles: bool) -> FioLat {
    FioLat {
        min: l.min,
        max: l.max,
        mean: finite(l.mean),
        stddev: finite(l.stddev),
        n: l.count,
        percentile: (percentiles && l.count > 0).then(|| {
            Ordered(
                PERCENTILES
                    .iter()
                    .zip(&l.percentiles)
                    .map(|(p, v)| (format!("{p:.6}"), *v))
                    .collect(),
            )
        }),
    }
}

fn finite(v: f64) -> f64 {
    if v.is_finite() { v } else { 0.0 }
}

/// One direction: `bytes` moved, `l` its latencies, over `sim_ns` simulated ns.
fn direction(bytes: u64, l: &FioLatency, sim_ns: u64) -> FioDirection {
    let secs = sim_ns as f64 / 1e9;
    let (bw_bytes, iops) = if secs > 0.0 && l.count > 0 {
        (bytes as f64 / secs, l.count as f64 / secs)
    } else {
        (0.0, 0.0)
    };
    let bw = (bw_bytes / 1024.0).floor() as u64;
    let runtime = if l.count > 0 {
        (sim_ns as f64 / 1e6).round() as u64
    } else {
        0
    };
    let samples = u64::from(l.count > 0);
    FioDirection {
        io_bytes: bytes,
        io_kbytes: bytes >> 10,
        bw_bytes: bw_bytes.floor() as u64,
        bw,
        iops,
        runtime,
        total_ios: l.count,
        short_ios: 0,
        drop_ios: 0,
        slat_ns: lat(&FioLatency::default(), false),
        clat_ns: lat(l, true),
        lat_ns: lat(l, true),
        bw_min: bw,
        bw_max: bw,
        bw_agg: if samples > 0 { 100.0 } else { 0.0 },
        bw_mean: bw as f64,
        bw_dev: 0.0,
        bw_samples: samples,
        iops_min: iops.floor() as u64,
        iops_max: iops.floor() as u64,
        iops_mean: iops,
        iops_stddev: 0.0,
        iops_samples: samples,
    }
}

/// fio's latency-range maps of all requests: `latency_ns`, `latency_us`, `latency_ms`.
fn ranges(shares: &[f64]) -> [Ordered<f64>; 3] {
    let share = |i: usize| shares.get(i).copied().unwrap_or(0.0);
    let unit = |first: usize, extra: bool| {
        let mut m: Vec<(String, f64)> = RANGE_NAMES
            .iter()
            .enumerate()
            .map(|(k, name)| ((*name).to_string(), share(first + k)))
            .collect();
        if extra {
            m.push(("2000".into(), share(first + 10)));
            m.push((">=2000".into(), share(first + 11)));
        }
        Ordered(m)
    };
    [unit(0, false), unit(10, false), unit(20, true)]
}

/// fio's `iodepth_level` map with the whole run at the host queue depth `qd`.
fn iodepth(qd: u64) -> Ordered<f64> {
    let names = ["1", "2", "4", "8", "16", "32", ">=64"];
    let level = match qd {
        0 | 1 => 0,
        q if q >= 64 => 6,
        q => (63 - q.leading_zeros()) as usize,
    };
    Ordered(
        names
            .iter()
            .enumerate()
            .map(|(i, n)| ((*n).to_string(), if i == level { 100.0 } else { 0.0 }))
            .collect(),
    )
}

/// fio's `iodepth_submit` / `iodepth_complete` map: every request submitted (completed)
/// alone, in fio's "1 to 4" bucket `"4"`; all zero without requests.
fn one_at_a_time(requests: u64) -> Ordered<f64> {
    let names = ["0", "4", "8", "16", "32", "64", ">=64"];
    Ordered(
        names
            .iter()
            .map(|n| {
                let v = if *n == "4" && requests > 0 {
                    100.0
                } else {
                    0.0
                };
                ((*n).to_string(), v)
            })
            .collect(),
    )
}

/// fio's `rw` for the run's generator (`randrw` for traces, IOZone and other mixes),
/// which fio-plot groups results by.
fn rw(r: &Report) -> &'static str {
    if r.config
        .pointer("/trace/path")
        .is_some_and(|p| !p.is_null())
    {
        return "randrw";
    }
    match r.config.pointer("/workload/kind").and_then(|v| v.as_str()) {
        Some("random-write") => "randwrite",
        Some("random-read") => "randread",
        Some("seq-write") => "write",
        Some("seq-read") => "read",
        _ => "randrw",
    }
}

/// The fio job of the design `name`.
pub fn job(name: &str, s: &FioSource) -> FioJob {
    let sim = s.simulated_ns;
    let [latency_ns, latency_us, latency_ms] = ranges(&s.ranges);
    let requests = s.read.count + s.write.count;
    FioJob {
        jobname: name.into(),
        groupid: 0,
        job_start: 0,
        error: 0,
        eta: 0,
        elapsed: (sim as f64 / 1e9).ceil() as u64,
        job_options: JobOptions {
            name: name.into(),
            ioengine: "ssdlab (simulated)".into(),
            rw: s.rw.clone(),
            bs: s.bs.clone(),
            iodepth: s.qd.to_string(),
            numjobs: "1".into(),
        },
        read: direction(s.read_bytes, &s.read, sim),
        write: direction(s.write_bytes, &s.write, sim),
        trim: direction(s.trim_bytes, &FioLatency::default(), sim),
        sync: FioSync {
            total_ios: 0,
            lat_ns: lat(&FioLatency::default(), false),
        },
        job_runtime: (sim as f64 / 1e6).round() as u64,
        usr_cpu: 0.0,
        sys_cpu: 0.0,
        ctx: 0,
        majf: 0,
        minf: 0,
        iodepth_level: iodepth(s.qd),
        iodepth_submit: one_at_a_time(requests),
        iodepth_complete: one_at_a_time(requests),
        latency_ns,
        latency_us,
        latency_ms,
        latency_depth: s.qd,
        latency_target: 0,
        latency_target_ns: 0,
        latency_percentile: 100.0,
        latency_window: 0,
        latency_window_us: 0,
    }
}

/// The fio document of `designs` (name, figures): one job per design, stamped with the
/// latest end of their runs.
pub fn document(designs: &[(&str, &FioSource)]) -> FioOutput {
    let end_ms = designs
        .iter()
        .map(|(_, s)| s.end_ms)
        .max()
        .unwrap_or_else(now_ms);
    FioOutput {
        fio_version: version(),
        timestamp: end_ms / 1000,
        timestamp_ms: end_ms,
        time: ctime(end_ms / 1000),
        global_options: Ordered::default(),
        jobs: designs.iter().map(|(n, s)| job(n, s)).collect(),
        disk_util: Vec::new(),
    }
}

/// The fio document of `designs` (name, report), pretty-printed in fio's key order.
pub fn to_fio_string(designs: &[(&str, &Report)]) -> String {
    let sources: Vec<FioSource> = designs
        .iter()
        .map(|(_, r)| FioSource::from_report(r))
        .collect();
    let named: Vec<(&str, &FioSource)> = designs.iter().map(|(n, _)| *n).zip(&sources).collect();
    serde_json::to_string_pretty(&document(&named)).expect("fio documents serialize")
}

/// fio's JSON output shape ([`super::render::RENDERERS`]): [`to_fio_string`] and a
/// newline (`--json-format fio`).
pub struct FioJson;

/// The fio-JSON renderer.
pub static FIO_JSON: FioJson = FioJson;

impl super::render::Renderer for FioJson {
    fn name(&self) -> &'static str {
        "fio"
    }
    fn summary(&self) -> &'static str {
        "the report in fio's --output-format=json shape, one job per design"
    }
    fn extension(&self) -> &'static str {
        "json"
    }
    fn render(
        &self,
        designs: &[(&str, &Report)],
        w: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        w.write_all(to_fio_string(designs).as_bytes())?;
        w.write_all(b"\n")
    }
}

/// `secs` since the epoch as C's `ctime` writes it (UTC): `Fri Nov 27 12:44:11 2026`,
/// the form of fio's `"time"`.
fn ctime(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(month - 1) as usize],
        day,
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        year
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctime_matches_c() {
        assert_eq!(ctime(0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(ctime(1_795_783_451), "Fri Nov 27 12:44:11 2026");
    }

    #[test]
    fn percentile_keys_are_printed_as_fio_prints_them_in_fios_order() {
        let l = FioLatency {
            count: 1,
            percentiles: vec![7; PERCENTILES.len()],
            ..Default::default()
        };
        let text = serde_json::to_string(&lat(&l, true)).unwrap();
        let j: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(j["percentile"]["99.990000"], 7);
        assert_eq!(j["percentile"]["1.000000"], 7);
        assert_eq!(j["percentile"].as_object().unwrap().len(), 17);
        // Ascending as fio writes them, not sorted as strings ("10" before "5").
        let p5 = text.find("\"5.000000\"").unwrap();
        let p10 = text.find("\"10.000000\"").unwrap();
        assert!(p5 < p10, "{text}");
        assert!(text.starts_with("{\"min\":0,\"max\":0,\"mean\":0.0,\"stddev\":0.0,\"N\":1,"));
    }
}
