//! Reports in fio's JSON shape (`ssdlab run --json-format fio`), so that tools written for
//! fio 3.x `--output-format=json` (fio-plot, fio JSON parsers, spreadsheets of
//! `jobs[].write.iops`) read a simulated drive as they read a real one.
//!
//! The shape follows fio's `stat.c` JSON writer: top-level `"fio version"`, timestamps,
//! `"global options"`, `"jobs"` and `"disk_util"`; per job `jobname`, `groupid`, `error`,
//! `"job options"`, one object per direction (`read`, `write`, `trim`, `sync`) and the
//! job-wide CPU, I/O-depth and latency-range maps. Per direction: `io_bytes`,
//! `io_kbytes`, `bw_bytes`, `bw` (KiB/s), `iops`, `runtime` (ms), `total_ios`,
//! `short_ios`, `drop_ios`, `slat_ns` / `clat_ns` / `lat_ns` ({`min`, `max`, `mean`,
//! `stddev`, `N`, `percentile`}) and the `bw_*` / `iops_*` sample statistics.
//!
//! How ssdlab's figures map (docs/outputs.md, "fio JSON"): one job per design; times are
//! simulated; a request's latency from arrival to completion is `lat_ns` and `clat_ns`
//! alike (the simulated host submits instantly, so `slat_ns` is all zero); percentiles
//! are fio's default list, keyed `"%f"` as fio prints them (`"99.990000"`); bandwidth
//! and IOPS statistics are one sample, the whole run; CPU figures are zero (a simulator
//! has no per-job CPU use to report).

use super::{LatencySummary, Report};

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

fn lat_json(l: &LatencySummary, percentiles: bool) -> serde_json::Value {
    let mut o = serde_json::json!({
        "min": l.min,
        "max": l.max,
        "mean": finite(l.mean),
        "stddev": finite(l.stddev),
        "N": l.count,
    });
    if percentiles && l.count > 0 {
        let map: serde_json::Map<String, serde_json::Value> = PERCENTILES
            .iter()
            .zip(&l.fio_percentiles)
            .map(|(p, v)| (format!("{p:.6}"), (*v).into()))
            .collect();
        o["percentile"] = map.into();
    }
    o
}

fn finite(v: f64) -> f64 {
    if v.is_finite() { v } else { 0.0 }
}

/// One direction: `bytes` moved, `lat` its latencies, over `sim_ns` simulated ns.
fn direction(bytes: u64, lat: &LatencySummary, sim_ns: u64) -> serde_json::Value {
    let secs = sim_ns as f64 / 1e9;
    let (bw_bytes, iops) = if secs > 0.0 && lat.count > 0 {
        (bytes as f64 / secs, lat.count as f64 / secs)
    } else {
        (0.0, 0.0)
    };
    let bw = (bw_bytes / 1024.0).floor() as u64;
    let runtime_ms = if lat.count > 0 {
        (sim_ns as f64 / 1e6).round() as u64
    } else {
        0
    };
    let samples = u64::from(lat.count > 0);
    serde_json::json!({
        "io_bytes": bytes,
        "io_kbytes": bytes >> 10,
        "bw_bytes": bw_bytes.floor() as u64,
        "bw": bw,
        "iops": iops,
        "runtime": runtime_ms,
        "total_ios": lat.count,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": lat_json(&LatencySummary::default(), false),
        "clat_ns": lat_json(lat, true),
        "lat_ns": lat_json(lat, true),
        "bw_min": bw,
        "bw_max": bw,
        "bw_agg": if samples > 0 { 100.0 } else { 0.0 },
        "bw_mean": bw as f64,
        "bw_dev": 0.0,
        "bw_samples": samples,
        "iops_min": iops.floor() as u64,
        "iops_max": iops.floor() as u64,
        "iops_mean": iops,
        "iops_stddev": 0.0,
        "iops_samples": samples,
    })
}

/// fio's latency-range maps of all requests: `latency_ns`, `latency_us`, `latency_ms`.
fn ranges(l: &LatencySummary) -> [(&'static str, serde_json::Value); 3] {
    let share = |i: usize| l.fio_ranges.get(i).copied().unwrap_or(0.0);
    let unit = |first: usize, extra: bool| {
        let mut m = serde_json::Map::new();
        for (k, name) in RANGE_NAMES.iter().enumerate() {
            m.insert((*name).into(), share(first + k).into());
        }
        if extra {
            m.insert("2000".into(), share(first + 10).into());
            m.insert(">=2000".into(), share(first + 11).into());
        }
        serde_json::Value::Object(m)
    };
    [
        ("latency_ns", unit(0, false)),
        ("latency_us", unit(10, false)),
        ("latency_ms", unit(20, true)),
    ]
}

/// fio's `iodepth_level` map with the whole run at the host queue depth `qd`.
fn iodepth(qd: u64) -> serde_json::Value {
    let names = ["1", "2", "4", "8", "16", "32", ">=64"];
    let level = match qd {
        0 | 1 => 0,
        q if q >= 64 => 6,
        q => (63 - q.leading_zeros()) as usize,
    };
    let m: serde_json::Map<String, serde_json::Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            (
                (*n).to_string(),
                if i == level { 100.0 } else { 0.0 }.into(),
            )
        })
        .collect();
    m.into()
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

/// One fio job for the design `name`'s `report`.
fn job(name: &str, r: &Report) -> serde_json::Value {
    let page = r
        .config
        .pointer("/device/page_size")
        .and_then(|v| v.as_str())
        .and_then(|s| s.parse::<crate::units::Size>().ok())
        .map_or(4096, |s| s.bytes());
    let qd = r
        .config
        .pointer("/host/qd")
        .and_then(|v| v.as_u64())
        .unwrap_or(1);
    let sim = r.simulated_ns;
    let mut j = serde_json::json!({
        "jobname": name,
        "groupid": 0,
        "error": 0,
        "eta": 0,
        "elapsed": (sim as f64 / 1e9).ceil() as u64,
        "job options": {
            "name": name,
            "ioengine": "ssdlab (simulated)",
            "rw": rw(r),
            "bs": r.config.pointer("/workload/size").and_then(|v| v.as_str()).unwrap_or(""),
            "iodepth": qd.to_string(),
            "numjobs": "1",
        },
        "read": direction(r.host_read_bytes, &r.read_latency_ns, sim),
        "write": direction(r.host_write_bytes, &r.write_latency_ns, sim),
        "trim": direction(r.host_trim_pages * page, &LatencySummary::default(), sim),
        "sync": {
            "total_ios": 0,
            "lat_ns": lat_json(&LatencySummary::default(), false),
        },
        "job_runtime": (sim as f64 / 1e6).round() as u64,
        "usr_cpu": 0.0,
        "sys_cpu": 0.0,
        "ctx": 0,
        "majf": 0,
        "minf": 0,
        "iodepth_level": iodepth(qd),
    });
    for (k, v) in ranges(&r.latency_ns) {
        j[k] = v;
    }
    j["latency_depth"] = qd.into();
    j
}

/// The fio-shaped JSON of `designs` (name, report): one job per design.
pub fn to_fio_json(designs: &[(&str, &Report)]) -> serde_json::Value {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    serde_json::json!({
        "fio version": version(),
        "timestamp": now.as_secs(),
        "timestamp_ms": now.as_millis() as u64,
        "time": ctime(now.as_secs()),
        "global options": {},
        "jobs": designs.iter().map(|(n, r)| job(n, r)).collect::<Vec<_>>(),
        "disk_util": [],
    })
}

/// [`to_fio_json`] pretty-printed.
pub fn to_fio_string(designs: &[(&str, &Report)]) -> String {
    serde_json::to_string_pretty(&to_fio_json(designs)).expect("JSON values serialize")
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
    fn percentile_keys_are_printed_as_fio_prints_them() {
        let l = LatencySummary {
            count: 1,
            fio_percentiles: vec![7; PERCENTILES.len()],
            ..Default::default()
        };
        let j = lat_json(&l, true);
        assert_eq!(j["percentile"]["99.990000"], 7);
        assert_eq!(j["percentile"]["1.000000"], 7);
        assert_eq!(j["percentile"].as_object().unwrap().len(), 17);
    }
}
