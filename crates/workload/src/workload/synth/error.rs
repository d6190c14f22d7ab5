//! Why a generator's settings do not fit a device: one variant per check that
//! [`super::generate`] and [`super::check`] make, each message naming the key and what
//! was expected (the CLI prints it as is, exit 2).

use super::IozoneRandom;
use crate::spec::ConfigError;
use crate::units::Size;

/// A generator's settings that cannot run on the device.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SynthError {
    /// A check shared with config validation (offset, streams, iometer, phases).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// `workload.span` above the logical capacity.
    #[error(
        "workload span {span} is larger than the device's logical capacity {capacity}: \
         expected span <= capacity"
    )]
    SpanOverCapacity { span: Size, capacity: Size },
    /// `workload.size` = 0.
    #[error("workload size is 0: expected a request size > 0, e.g. 4KiB")]
    ZeroSize,
    /// `workload.zone_size` zero or above the span (the `zoned-seq` generator).
    #[error(
        "workload.zone_size: expected between 1 byte and the span ({span_bytes} bytes), found \
         {zone_bytes}"
    )]
    ZoneSize { zone_bytes: u64, span_bytes: u64 },
    /// `workload.zone_capacity` zero or above the zone size (the `zoned-seq` generator).
    #[error(
        "workload.zone_capacity: expected between 1 byte and workload.zone_size = \
         {zone_bytes}, found {capacity_bytes}"
    )]
    ZoneCapacity {
        capacity_bytes: u64,
        zone_bytes: u64,
    },
    /// `workload.align` = 0.
    #[error("workload align is 0: expected an alignment > 0, e.g. 4KiB")]
    ZeroAlign,
    /// `workload.size` not a multiple of `workload.align`.
    #[error(
        "workload size {size} is not a multiple of align {align}: expected align to divide size"
    )]
    SizeNotAligned { size: Size, align: Size },
    /// `workload.size` above the span.
    #[error("workload size {size} is larger than the span {span}: expected size <= span")]
    SizeOverSpan { size: Size, span: Size },
    /// `iozone_record` or `iozone_reads_first` with another generator.
    #[error(
        "workload iozone_record and iozone_reads_first apply to kind = \"iozone\" only: \
         expected neither with another generator"
    )]
    IozoneKeysElsewhere,
    /// `workload.iozone_record` zero, unaligned or above the span.
    #[error(
        "workload iozone_record {record} must be a non-zero multiple of align {align} no \
         larger than the span {span}"
    )]
    IozoneRecord {
        record: Size,
        align: Size,
        span: Size,
    },
    /// `workload.size_max` with the iozone suite.
    #[error(
        "workload size_max is not supported by iozone (it runs fixed record sizes): expected \
         no size_max, or a single generator such as random-write"
    )]
    IozoneSizeMax,
    /// `workload.size_max` outside `[size, span]`.
    #[error(
        "workload size_max {max} is outside [size, span] = [{size}, {span}]: expected size \
         <= size_max <= span"
    )]
    SizeMaxRange { max: Size, size: Size, span: Size },
    /// `workload.requests` = 0.
    #[error("workload requests is 0: expected at least 1 (or omit it for span / size)")]
    ZeroRequests,
    /// A percentage key outside 0–100.
    #[error("workload {key} is {value}: expected a percentage from 0 to 100")]
    Percent { key: &'static str, value: f64 },
    /// `workload.zipf_theta` not a finite positive exponent.
    #[error("workload zipf_theta is {0}: expected a finite exponent > 0, e.g. 0.99")]
    ZipfTheta(f64),
    /// `workload.mean_gap_ns` = 0.
    #[error("workload mean_gap_ns is 0: expected a mean gap > 0 ns (omit it for a closed loop)")]
    ZeroMeanGap,
    /// `workload.iozone_random` set with another generator.
    #[error(
        "workload iozone_random is {0:?}: expected \"uniform\" (the default) unless workload \
         kind is iozone (the only generator that reads it; hot-cold and zipf are generators \
         of their own)"
    )]
    IozoneRandomElsewhere(IozoneRandom),
    /// hot-cold: the hot region cannot hold the largest request.
    #[error(
        "hot-cold: the hot region ({hot_span_percent}% of span {span} = {hot} after rounding \
         down to align {align}) cannot hold a {max} request: expected a larger span or \
         hot_span_percent"
    )]
    HotRegion {
        hot_span_percent: f64,
        span: Size,
        hot: Size,
        align: Size,
        max: Size,
    },
    /// hot-cold: the cold region cannot hold the largest request.
    #[error(
        "hot-cold: the cold region (span {span} minus the hot {hot}) cannot hold a {max} \
         request: expected a larger span or a smaller hot_span_percent"
    )]
    ColdRegion { span: Size, hot: Size, max: Size },
    /// oltp: its data or log region cannot hold the largest request.
    #[error(
        "oltp: span {span} leaves {data} of data and {log} of log, each must hold a {max} \
         request: expected a larger span"
    )]
    OltpRegions {
        span: Size,
        data: Size,
        log: Size,
        max: Size,
    },
    /// compile: its largest request is above the span.
    #[error(
        "compile: size_max (default 16 × size) = {max} is larger than the span {span}: \
         expected a larger span or a size_max"
    )]
    CompileSizeMax { max: Size, span: Size },
    /// compile: one of its regions cannot hold its requests.
    #[error(
        "compile: span {span} is too small for its regions (2% metadata ≥ {size}, 25% sources \
         and the rest output ≥ {max}): expected a larger span"
    )]
    CompileRegions { span: Size, size: Size, max: Size },
    /// andrew: `workload.andrew_files` = 0.
    #[error("workload andrew_files is 0: expected at least 1")]
    AndrewNoFiles,
    /// andrew: the files do not fit the device.
    #[error(
        "andrew: {files} files need {need_bytes} bytes but the device has {capacity_bytes}: \
         expected fewer andrew_files or a larger capacity"
    )]
    AndrewFootprint {
        files: u64,
        need_bytes: u64,
        capacity_bytes: u64,
    },
    /// probe: `workload.probe_partitions` = 0.
    #[error("workload probe_partitions is 0: expected at least 1")]
    ProbeNoPartitions,
    /// probe: `workload.probe_step` zero or not a multiple of 512 B.
    #[error("workload probe_step = {0}: expected a positive multiple of 512 B")]
    ProbeStep(Size),
    /// probe: `workload.size` not a multiple of 512 B.
    #[error("workload size = {0} for the probe: expected a multiple of 512 B")]
    ProbeSize(Size),
    /// probe: the partitions do not fit the device.
    #[error(
        "the probe needs {parts} partitions of {region_bytes} bytes (span + size) but the \
         device only has room for {parts} of {room_bytes}: expected a smaller span or fewer \
         probe_partitions"
    )]
    ProbeRoom {
        parts: u64,
        region_bytes: u64,
        room_bytes: u64,
    },
}

impl From<SynthError> for ConfigError {
    /// Config validation reports a generator's misfit as [`ConfigError::Workload`] (the
    /// message is the same).
    fn from(e: SynthError) -> ConfigError {
        match e {
            SynthError::Config(c) => c,
            other => ConfigError::Workload(other.to_string()),
        }
    }
}
