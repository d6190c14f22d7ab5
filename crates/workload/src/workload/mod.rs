//! Workloads: real block traces (`trace`) and benchmark generators (`synth`).
//!
//! Every workload is a sequence of [`Phase`]s; each phase is a stream of [`IoRequest`]s in
//! byte units. The simulator splits requests into flash pages, so readers and generators
//! never need to know the device's page size.

pub mod iometer;
pub mod synth;
pub mod trace;

use std::path::PathBuf;

/// What a request asks the device to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    /// Read `size_bytes` at `offset_bytes`.
    Read,
    /// Write `size_bytes` at `offset_bytes`.
    Write,
    /// Discard (TRIM/UNMAP) the range.
    Trim,
    /// Flush volatile caches (no range).
    Flush,
    /// Zone Append (NVMe ZNS): `size_bytes` of data at the write pointer of the zone
    /// starting at `offset_bytes`; the completion carries the address written.
    #[serde(rename = "zone-append")]
    ZoneAppend,
    /// Reset Zone: the zone starting at `offset_bytes` becomes empty (no size).
    #[serde(rename = "zone-reset")]
    ZoneReset,
    /// Finish Zone: the zone starting at `offset_bytes` becomes full (no size).
    #[serde(rename = "zone-finish")]
    ZoneFinish,
    /// Open Zone: the zone starting at `offset_bytes` is opened explicitly (no size).
    #[serde(rename = "zone-open")]
    ZoneOpen,
    /// Close Zone: the open zone starting at `offset_bytes` is closed (no size).
    #[serde(rename = "zone-close")]
    ZoneClose,
    /// Report Zones (Zone Management Receive): the descriptors of the zones from the one
    /// holding `offset_bytes` on whose state passes the filter, the Zone Receive Action
    /// Specific value given (0 every zone, 1 empty, 2 implicitly opened, 3 explicitly
    /// opened, 4 closed, 5 full, 6 read only, 7 offline; at most 7, checked where the
    /// request is read). No size; nothing changes on the drive.
    #[serde(rename = "zone-report")]
    ZoneReport(u8),
}

impl OpKind {
    /// The zone operations (append and the four zone management actions), which only a
    /// zoned drive accepts; a conventional one refuses them with a counted status.
    pub const ZONE_OPS: [OpKind; 5] = [
        OpKind::ZoneAppend,
        OpKind::ZoneReset,
        OpKind::ZoneFinish,
        OpKind::ZoneOpen,
        OpKind::ZoneClose,
    ];

    /// Whether this is a zone operation ([`OpKind::ZONE_OPS`]).
    #[inline]
    pub fn is_zone_op(self) -> bool {
        matches!(
            self,
            OpKind::ZoneAppend
                | OpKind::ZoneReset
                | OpKind::ZoneFinish
                | OpKind::ZoneOpen
                | OpKind::ZoneClose
                | OpKind::ZoneReport(_)
        )
    }

    /// The zone operations' codes in the ASCII trace layout's op column (`ZA` append,
    /// `ZR` reset, `ZF` finish, `ZO` open, `ZC` close, `ZQ0`–`ZQ7` Report Zones with
    /// that filter value; docs/traces.md); `None` for the others (`1` read, `0` write).
    pub fn zone_code(self) -> Option<&'static str> {
        match self {
            OpKind::ZoneAppend => Some("ZA"),
            OpKind::ZoneReset => Some("ZR"),
            OpKind::ZoneFinish => Some("ZF"),
            OpKind::ZoneOpen => Some("ZO"),
            OpKind::ZoneClose => Some("ZC"),
            OpKind::ZoneReport(f) => REPORT_CODES.get(f as usize).copied(),
            OpKind::Read | OpKind::Write | OpKind::Trim | OpKind::Flush => None,
        }
    }

    /// The zone operation whose [`OpKind::zone_code`] is `code` (upper case).
    pub fn from_zone_code(code: &[u8]) -> Option<OpKind> {
        OpKind::ZONE_OPS
            .into_iter()
            .find(|op| op.zone_code().map(str::as_bytes) == Some(code))
            .or_else(|| {
                let f = REPORT_CODES.iter().position(|c| c.as_bytes() == code)?;
                Some(OpKind::ZoneReport(f as u8))
            })
    }

    /// The name the CSV layout and reports give the operation (`Read`, …, `ZoneAppend`).
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Read => "Read",
            OpKind::Write => "Write",
            OpKind::Trim => "Trim",
            OpKind::Flush => "Flush",
            OpKind::ZoneAppend => "ZoneAppend",
            OpKind::ZoneReset => "ZoneReset",
            OpKind::ZoneFinish => "ZoneFinish",
            OpKind::ZoneOpen => "ZoneOpen",
            OpKind::ZoneClose => "ZoneClose",
            OpKind::ZoneReport(_) => "ZoneReport",
        }
    }

    /// Whether the operation carries no data range, only an address (flush, and the four
    /// zone management actions).
    #[inline]
    pub fn is_sizeless(self) -> bool {
        matches!(
            self,
            OpKind::Flush
                | OpKind::ZoneReset
                | OpKind::ZoneFinish
                | OpKind::ZoneOpen
                | OpKind::ZoneClose
                | OpKind::ZoneReport(_)
        )
    }
}

/// The ASCII layout's codes of Report Zones, by filter value (Zone Receive Action
/// Specific: 0 all … 7 offline).
const REPORT_CODES: [&str; 8] = ["ZQ0", "ZQ1", "ZQ2", "ZQ3", "ZQ4", "ZQ5", "ZQ6", "ZQ7"];

/// One host request, in bytes. `arrival_ns` is meaningful only for open-loop phases.
///
/// Build one with [`IoRequest::new`] and the `at`/`on_device`/`in_namespace`/
/// `with_placement` setters rather than a struct literal, so that a field added later is
/// one edit here, not one per call site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoRequest {
    /// Arrival time relative to the start of the trace, in nanoseconds.
    pub arrival_ns: u64,
    /// Device / volume / disk number as the trace names it (0 for generators).
    pub device: u32,
    /// Byte offset of the first byte, inside the request's namespace.
    pub offset_bytes: u64,
    /// Length in bytes (0 only for `Flush`).
    pub size_bytes: u64,
    /// The operation.
    pub op: OpKind,
    /// The namespace the request addresses (its index among the drive's `[[namespace]]`
    /// tables; 0 = the first, or the only one).
    pub namespace: u32,
    /// The FDP placement identifier a write carries (NVMe TP4146 "Placement Identifier"
    /// in the directive specific field); `None`: no placement directive.
    pub placement: Option<u16>,
}

impl IoRequest {
    /// A request of a closed-loop stream (arrival 0, device 0, namespace 0, no placement
    /// directive), as layers below the workload issue them (the host log's segment
    /// writes, cleaning reads); the setters below change the rest.
    pub const fn new(op: OpKind, offset_bytes: u64, size_bytes: u64) -> IoRequest {
        IoRequest {
            arrival_ns: 0,
            device: 0,
            offset_bytes,
            size_bytes,
            op,
            namespace: 0,
            placement: None,
        }
    }

    /// The same request arriving at `arrival_ns`.
    #[must_use]
    pub const fn at(mut self, arrival_ns: u64) -> IoRequest {
        self.arrival_ns = arrival_ns;
        self
    }

    /// The same request with the trace's device number `device`.
    #[must_use]
    pub const fn on_device(mut self, device: u32) -> IoRequest {
        self.device = device;
        self
    }

    /// The same request addressed to namespace `namespace`.
    #[must_use]
    pub const fn in_namespace(mut self, namespace: u32) -> IoRequest {
        self.namespace = namespace;
        self
    }

    /// The same request with FDP placement identifier `placement`.
    #[must_use]
    pub const fn with_placement(mut self, placement: Option<u16>) -> IoRequest {
        self.placement = placement;
        self
    }
}

/// Where a bad trace line is and what was expected there.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum TraceError {
    /// A line that does not parse.
    #[error("{path}:{line}: expected {expected}, found '{found}'")]
    Malformed {
        /// The trace file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What the reader expected, e.g. "5 space-separated fields: time_ns dev lba size op".
        expected: String,
        /// The offending text (truncated to 80 characters).
        found: String,
    },
    /// A request that does not fit the device under the `reject` policy.
    #[error(
        "{path}:{line}: request ends at byte {end_bytes}, past the device's {capacity_bytes} bytes (use --trace-fit wrap or scale)"
    )]
    PastEnd {
        /// The trace file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// One past the last byte the request touches.
        end_bytes: u64,
        /// Logical capacity of the simulated device.
        capacity_bytes: u64,
    },
    /// The file cannot be opened or read.
    #[error("{path}: {message}")]
    Io {
        /// The trace file.
        path: PathBuf,
        /// The OS error text.
        message: String,
    },
    /// A trace that yields no request at all: empty, all lines skipped, no request for
    /// the chosen device, or every request filtered. Replaying it would simulate nothing.
    #[error("{path}: no requests: {reason}")]
    Empty {
        /// The trace file.
        path: PathBuf,
        /// Why nothing was kept, e.g. "device 7 not in trace; devices seen: 0, 1, 3".
        reason: String,
    },
    /// A bad option (unknown format name, bad column spec).
    #[error("{0}")]
    Option(String),
}

/// A boxed stream of requests.
pub type RequestStream = Box<dyn Iterator<Item = Result<IoRequest, TraceError>> + Send>;

/// One phase of a workload, reported on its own (e.g. IOZone's "seq-write").
pub struct Phase {
    /// Short name shown in reports.
    pub name: String,
    /// The requests.
    pub requests: RequestStream,
    /// Open loop: requests arrive at `arrival_ns` (a trace). Closed loop: the host keeps
    /// `qd` requests outstanding and issues the next one as soon as one completes (like fio).
    pub open_loop: bool,
    /// Concurrent closed loops (`workload.stream_loop = "per-stream"`): the phase's
    /// requests belong to streams by address, and each stream keeps its own `qd`
    /// requests outstanding. `None`: one closed (or open) loop for the whole phase.
    pub streams: Option<StreamSplit>,
}

/// How a phase's address range splits into concurrent streams: stream `i` owns
/// `[offset_bytes + i × region_bytes, offset_bytes + (i + 1) × region_bytes)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamSplit {
    /// Streams (at least 1).
    pub count: u32,
    /// Start of stream 0's region.
    pub offset_bytes: u64,
    /// Bytes of each stream's region (> 0).
    pub region_bytes: u64,
}

impl StreamSplit {
    /// The stream whose region holds `offset_bytes` (addresses outside every region
    /// count as the nearest end stream).
    #[inline]
    pub fn of(&self, offset_bytes: u64) -> usize {
        let i = offset_bytes.saturating_sub(self.offset_bytes) / self.region_bytes;
        i.min(u64::from(self.count) - 1) as usize
    }
}

impl std::fmt::Debug for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Phase")
            .field("name", &self.name)
            .field("open_loop", &self.open_loop)
            .finish_non_exhaustive()
    }
}
