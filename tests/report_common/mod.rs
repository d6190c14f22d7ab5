//! Shared fixture for the `report_*` integration tests (included with `mod`).

#![allow(dead_code)]

use ssdlab::report::{BufferReport, EraseSummary, LatencySummary, PhaseReport, Report};

/// A latency summary with round numbers.
pub fn lat(count: u64, mean: f64, p50: u64, p99: u64, p999: u64, max: u64) -> LatencySummary {
    LatencySummary {
        count,
        mean,
        p50,
        p99,
        p999,
        max,
        ..LatencySummary::default()
    }
}

/// One phase with the given name and scale.
pub fn phase(name: &str, requests: u64, iops: f64, wa: f64) -> PhaseReport {
    PhaseReport {
        name: name.to_string(),
        requests,
        read_requests: requests / 4,
        write_requests: requests - requests / 4,
        simulated_ns: 2_000_000_000,
        iops,
        read_iops: iops / 4.0,
        write_iops: iops * 0.75,
        throughput_mib_s: iops * 4096.0 / 1048576.0,
        read_throughput_mib_s: iops / 1024.0,
        write_throughput_mib_s: iops * 3.0 / 1024.0,
        latency_ns: lat(requests, 84_500.0, 61_000, 1_250_000, 4_800_000, 9_100_000),
        read_latency_ns: lat(requests / 4, 50_000.0, 48_000, 90_000, 120_000, 150_000),
        write_latency_ns: lat(
            requests - requests / 4,
            95_000.0,
            70_000,
            1_300_000,
            4_900_000,
            9_100_000,
        ),
        host_read_pages: requests / 4,
        host_write_pages: requests,
        nand_program_pages: (requests as f64 * wa) as u64,
        gc_copy_pages: (requests as f64 * (wa - 1.0)) as u64,
        erases: requests / 256,
        write_amplification: wa,
        elapsed_formula_us: 1_234_567.0,
        gc_time_share: 0.1875,
        counters: Default::default(),
    }
}

/// A hand-made report with distinctive numbers.
pub fn sample_report() -> Report {
    let mut counters = std::collections::BTreeMap::new();
    counters.insert("ftl.gc.victims".to_string(), 4321);
    counters.insert("ftl.map.cache_hits".to_string(), 987_654);
    Report {
        ssdlab_version: "0.1.0".to_string(),
        config: serde_json::json!({"ftl": {"kind": "page"}, "seed": 42}),
        measured_phase: "after preconditioning".to_string(),
        notes: vec!["counters exclude the fill".to_string()],
        warnings: vec!["trace: 3 requests beyond device end were wrapped".to_string()],
        host_read_pages: 250_000,
        host_write_pages: 1_000_000,
        host_trim_pages: 0,
        host_read_bytes: 0,
        host_write_bytes: 0,
        unmapped_read_pages: 12,
        unmapped_read_share: 12.0 / 250_000.0,
        nand_read_pages: 700_000,
        rmw_read_pages: 5,
        nand_program_pages: 1_450_000,
        host_program_pages: 1_000_000,
        gc_copy_pages: 430_000,
        wl_copy_pages: 20_000,
        map_program_pages: 0,
        rmw_program_pages: 0,
        erases: 5_664,
        write_amplification: 1.45,
        write_amplification_host: 1.0,
        write_amplification_gc: 0.43,
        write_amplification_wl: 0.02,
        write_amplification_map: 0.0,
        write_amplification_rmw: 0.0,
        iops: 123_456.7,
        throughput_mib_s: 482.25,
        latency_ns: lat(1_250_000, 84_500.0, 61_000, 1_250_000, 4_800_000, 9_100_000),
        read_latency_ns: lat(250_000, 50_000.0, 48_000, 90_000, 120_000, 150_000),
        write_latency_ns: lat(1_000_000, 95_000.0, 70_000, 1_300_000, 4_900_000, 9_100_000),
        elapsed_formula_us: 3_500_000.0,
        elapsed_formula_io_us: 2_800_000.0,
        elapsed_formula_gc_us: 700_000.0,
        gc_time_share: 0.2,
        gc_busy_share: 0.2,
        buffer: BufferReport {
            buffer_policy: "qlru".to_string(),
            buffer_size_bytes: 256 << 20,
            buffer_write_hit_ratio: 0.125,
            buffer_read_hit_ratio: 0.5,
            buffer_write_hit_pages: 125_000,
            buffer_read_hit_pages: 125_000,
            buffer_flushed_pages: 875_000,
            buffer_end_flush_pages: 65_536,
            buffer_padding_pages: 0,
            buffer_programs_saved: 125_000,
            buffer_resident_pages: 0,
            ftl_write_pages: 875_000,
            write_amplification_ftl: 1.657,
        },
        erase_count: EraseSummary {
            min: 3,
            mean: 5.53,
            max: 11,
            stddev: 1.25,
        },
        mapping_bytes: 8 * 1024 * 1024,
        op_percent_requested: 7.0,
        op_percent_actual: 7.0,
        slc_cache_percent_requested: 0.0,
        slc_cache_percent_actual: 0.0,
        simulated_ns: 10_125_000_000,
        counters,
        namespaces: Vec::new(),
        namespace_overhead: None,
        phases: vec![
            phase("seq-write", 500_000, 150_000.0, 1.0),
            phase("rand-write", 750_000, 98_765.4, 1.75),
        ],
        end_of_life: None,
        probe: None,
        fdp: None,
        zones: Vec::new(),
        zone_reports: Vec::new(),
        wall_clock_s: 1.5,
        wall_clock_measured_s: 1.0,
    }
}
