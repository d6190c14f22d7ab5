//! Zoned namespaces: the zones of an NVMe ZNS namespace, their state machine, the open and
//! active resource limits, and the status a command that breaks the rules gets.
//!
//! NVM Express Zoned Namespace Command Set (TP4053, ZNS 1.0, 2020; 1.1 keeps the model).
//! A zoned namespace is cut into zones of `zone_size` logical blocks, of which the first
//! `zone_capacity` may be written. Each zone has a write pointer and a state:
//!
//! ```text
//!                 write / append (implicit open)
//!   Empty ────────────────────────────────────► ImplicitlyOpened ─┐
//!     │  open                                      │ open           │ close (or the
//!     └──────────────────► ExplicitlyOpened ◄──────┘                │ controller, to
//!                             │ close                               │ free an open
//!                             ▼                                     ▼ resource)
//!                           Closed ◄───────────────────────────────┘
//!   write pointer reaches the capacity, or finish (any of the above) ──► Full
//!   reset (any of the active states, or Full) ──► Empty
//!   media failure ──► ReadOnly ──(offline)──► Offline
//! ```
//!
//! The open states and Closed are *active*: they hold a write frontier inside the drive,
//! which is why a drive bounds them (`max_active`, and `max_open` for the two open
//! states). A write or append to an Empty or Closed zone opens it implicitly; when the
//! open limit is reached the controller may first close its oldest implicitly opened zone
//! ("auto transition", on in every drive and emulator we know of; QEMU makes it
//! switchable, and so do we). Only if no implicitly opened zone can be closed does the
//! command fail with *Too Many Open Zones*.
//!
//! Checks happen before any state changes, so a refused command leaves the zones as they
//! were (the order follows the specification's write checks: zone state, then the write
//! pointer, then the zone's writable end). Choices the specification leaves open, with
//! the one taken:
//! - *Close of a zone whose write pointer is still at its start*: the zone returns to
//!   Empty rather than Closed (as Linux's null_blk and QEMU's emulation do), so an opened
//!   but unwritten zone does not keep an active resource.
//! - *Finish*: the blocks between the write pointer and the capacity are counted as
//!   padding (`zns.finish_pad_blocks`); a drive writes them to close its flash blocks,
//!   so they are media writes without host data and belong in write amplification.
//! - *Reads* may cross neither the namespace's end nor (without the Read Across Zone
//!   Boundaries option, which we do not model) a zone boundary; reading above the write
//!   pointer is allowed and returns deallocated data.
//!
//! The status values are the specification's command-specific codes (status code type 1),
//! so a report can name them as the specification does.

use crate::spec::{ConfigError, Counter, Counters};
use std::collections::VecDeque;

/// Reported as `zns.finish_pad_blocks`.
pub const FINISH_PAD_BLOCKS: Counter = Counter::total(
    "zns.finish_pad_blocks",
    "blocks",
    "logical blocks a zone finish padded between the write pointer and the zone capacity",
);
/// Reported as `zns.implicit_closes`.
pub const IMPLICIT_CLOSES: Counter = Counter::total(
    "zns.implicit_closes",
    "zones",
    "implicitly opened zones the controller closed to free an open resource",
);
/// Reported as `zns.resets`.
pub const RESETS: Counter =
    Counter::total("zns.resets", "zones", "zone resets that emptied a zone");
/// Reported as `zns.report_zones`.
pub const REPORT_ZONES: Counter = Counter::total(
    "zns.report_zones",
    "commands",
    "Report Zones commands performed (Zone Management Receive)",
);
/// Reported as `zns.opens`.
pub const OPENS: Counter = Counter::total(
    "zns.opens",
    "zones",
    "zones opened, explicitly or by a write (a closed zone reopened counts again)",
);
/// Reported as `zns.finishes`.
pub const FINISHES: Counter = Counter::total(
    "zns.finishes",
    "zones",
    "Finish Zone commands that made a zone full",
);
/// Reported as `zns.errors.invalid_opcode` by a conventional drive.
pub const INVALID_OPCODE: Counter = Counter::total(
    "zns.errors.invalid_opcode",
    "commands",
    "zone commands refused by a drive without zones: Invalid Command Opcode (0x01)",
);
/// Reported as `zns.open_zones`.
pub const OPEN_ZONES: Counter = Counter::gauge("zns.open_zones", "zones", "zones open now");
/// Reported as `zns.active_zones`.
pub const ACTIVE_ZONES: Counter = Counter::gauge("zns.active_zones", "zones", "zones active now");
/// One running total per refusal kind, in the order of [`ZnsStatus::ALL`].
pub const ERROR_COUNTERS: [Counter; 10] = [
    Counter::total(
        "zns.errors.invalid_field",
        "commands",
        "appends refused: the address is not a zone start (0x02)",
    ),
    Counter::total(
        "zns.errors.lba_out_of_range",
        "commands",
        "commands refused: past the namespace's end (0x80)",
    ),
    Counter::total(
        "zns.errors.boundary",
        "commands",
        "commands refused: across a zone boundary or capacity (0xB8)",
    ),
    Counter::total(
        "zns.errors.zone_full",
        "commands",
        "writes refused: the zone is full (0xB9)",
    ),
    Counter::total(
        "zns.errors.zone_read_only",
        "commands",
        "writes refused: the zone is read-only (0xBA)",
    ),
    Counter::total(
        "zns.errors.zone_offline",
        "commands",
        "commands refused: the zone is offline (0xBB)",
    ),
    Counter::total(
        "zns.errors.invalid_write",
        "commands",
        "writes refused: not at the write pointer (0xBC)",
    ),
    Counter::total(
        "zns.errors.too_many_active",
        "commands",
        "opens refused: the active limit (0xBD)",
    ),
    Counter::total(
        "zns.errors.too_many_open",
        "commands",
        "opens refused: the open limit (0xBE)",
    ),
    Counter::total(
        "zns.errors.invalid_transition",
        "commands",
        "zone actions refused from the zone's state (0xBF)",
    ),
];
/// The running totals and gauges of the zones.
pub const ZONE_COUNTERS: &[Counter] = &[
    FINISH_PAD_BLOCKS,
    IMPLICIT_CLOSES,
    RESETS,
    OPENS,
    FINISHES,
    REPORT_ZONES,
    OPEN_ZONES,
    ACTIVE_ZONES,
];
/// The counters this module reports.
pub const COUNTERS: &[&[Counter]] = &[ZONE_COUNTERS, &ERROR_COUNTERS];

/// The state of a zone (the Zone State field of a zone descriptor).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ZoneState {
    /// ZSE: nothing written, write pointer at the zone start.
    Empty,
    /// ZSIO: opened by a write or append.
    ImplicitlyOpened,
    /// ZSEO: opened by an Open Zone command.
    ExplicitlyOpened,
    /// ZSC: active but not open.
    Closed,
    /// ZSF: written to its capacity, or finished.
    Full,
    /// ZSRO: readable, no longer writable (a media failure).
    ReadOnly,
    /// ZSO: neither readable nor writable.
    Offline,
}

impl ZoneState {
    /// The specification's abbreviation (ZSE, ZSIO, …).
    pub fn name(self) -> &'static str {
        match self {
            ZoneState::Empty => "ZSE",
            ZoneState::ImplicitlyOpened => "ZSIO",
            ZoneState::ExplicitlyOpened => "ZSEO",
            ZoneState::Closed => "ZSC",
            ZoneState::Full => "ZSF",
            ZoneState::ReadOnly => "ZSRO",
            ZoneState::Offline => "ZSO",
        }
    }

    /// Open states hold an open resource.
    pub fn is_open(self) -> bool {
        matches!(
            self,
            ZoneState::ImplicitlyOpened | ZoneState::ExplicitlyOpened
        )
    }

    /// Active states (the open ones and Closed) hold an active resource.
    pub fn is_active(self) -> bool {
        self.is_open() || self == ZoneState::Closed
    }
}

/// Why [`Zones::restore`] refused what the flash held after a power cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RestoreError {
    /// More blocks written than the zone's capacity.
    #[error("zone {zone} holds {written} blocks, beyond its capacity of {capacity}")]
    OverCapacity {
        /// The zone.
        zone: u32,
        /// Blocks found written.
        written: u64,
        /// The zone's capacity in blocks.
        capacity: u64,
    },
    /// A partly written zone beyond the active-zone limit.
    #[error("zone {zone} is partly written but {active} zones are active already (the limit)")]
    TooManyActive {
        /// The zone.
        zone: u32,
        /// Zones active already.
        active: u32,
    },
}

/// Why a zoned command was refused: the specification's status for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum ZnsStatus {
    /// Generic 0x02: a field is invalid (an append whose address is not a zone start).
    #[error("Invalid Field in Command (0x02)")]
    InvalidField,
    /// Generic 0x80: the blocks run past the namespace's end.
    #[error("LBA Out of Range (0x80)")]
    LbaOutOfRange,
    /// 0xB8: the command crosses a zone boundary or the zone's writable capacity.
    #[error("Zone Boundary Error (0xB8)")]
    BoundaryError,
    /// 0xB9: the zone is full.
    #[error("Zone Is Full (0xB9)")]
    ZoneFull,
    /// 0xBA: the zone is read-only.
    #[error("Zone Is Read Only (0xBA)")]
    ZoneReadOnly,
    /// 0xBB: the zone is offline.
    #[error("Zone Is Offline (0xBB)")]
    ZoneOffline,
    /// 0xBC: a write that does not start at the write pointer.
    #[error("Zone Invalid Write (0xBC)")]
    InvalidWrite,
    /// 0xBD: opening the zone would exceed the active limit.
    #[error("Too Many Active Zones (0xBD)")]
    TooManyActive,
    /// 0xBE: opening the zone would exceed the open limit.
    #[error("Too Many Open Zones (0xBE)")]
    TooManyOpen,
    /// 0xBF: the zone management action is not allowed from the zone's state.
    #[error("Invalid Zone State Transition (0xBF)")]
    InvalidTransition,
}

impl ZnsStatus {
    /// Every status, in the order of their codes.
    pub const ALL: [ZnsStatus; 10] = [
        ZnsStatus::InvalidField,
        ZnsStatus::LbaOutOfRange,
        ZnsStatus::BoundaryError,
        ZnsStatus::ZoneFull,
        ZnsStatus::ZoneReadOnly,
        ZnsStatus::ZoneOffline,
        ZnsStatus::InvalidWrite,
        ZnsStatus::TooManyActive,
        ZnsStatus::TooManyOpen,
        ZnsStatus::InvalidTransition,
    ];

    /// The status code (with its status code type: 0 generic, 1 command specific).
    pub fn code(self) -> (u8, u8) {
        match self {
            ZnsStatus::InvalidField => (0, 0x02),
            ZnsStatus::LbaOutOfRange => (0, 0x80),
            ZnsStatus::BoundaryError => (1, 0xB8),
            ZnsStatus::ZoneFull => (1, 0xB9),
            ZnsStatus::ZoneReadOnly => (1, 0xBA),
            ZnsStatus::ZoneOffline => (1, 0xBB),
            ZnsStatus::InvalidWrite => (1, 0xBC),
            ZnsStatus::TooManyActive => (1, 0xBD),
            ZnsStatus::TooManyOpen => (1, 0xBE),
            ZnsStatus::InvalidTransition => (1, 0xBF),
        }
    }

    /// The counter under which refusals of this kind are reported.
    pub fn counter(self) -> &'static Counter {
        &ERROR_COUNTERS[self.index()]
    }

    fn index(self) -> usize {
        ZnsStatus::ALL.iter().position(|&s| s == self).unwrap_or(0)
    }
}

/// The shape and limits of a zoned namespace, in logical blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneLayout {
    /// Number of zones.
    pub zones: u32,
    /// Logical blocks per zone (the distance between zone starts).
    pub zone_size_blocks: u64,
    /// Writable blocks at the start of each zone (≤ the zone size).
    pub zone_capacity_blocks: u64,
    /// Most zones open at once (0 = no limit other than the zone count).
    pub max_open: u32,
    /// Most zones active at once (0 = no limit other than the zone count).
    pub max_active: u32,
    /// Whether the controller closes its oldest implicitly opened zone when a new open
    /// would exceed `max_open`.
    pub auto_close: bool,
}

impl ZoneLayout {
    /// Checks the layout; `key` prefixes the keys named in errors (e.g. `namespace.zns`).
    pub fn validate(&self, key: &str) -> Result<(), ConfigError> {
        let k = |name: &str| format!("{key}.{name}");
        if self.zones == 0 {
            return Err(ConfigError::value(k("zones"), 0, "at least one zone"));
        }
        if self.zone_size_blocks == 0 {
            return Err(ConfigError::value(
                k("zone_size"),
                0,
                "at least one logical block",
            ));
        }
        if self.zone_capacity_blocks == 0 || self.zone_capacity_blocks > self.zone_size_blocks {
            return Err(ConfigError::value(
                k("zone_capacity"),
                self.zone_capacity_blocks,
                format!(
                    "between 1 and the zone size ({} blocks)",
                    self.zone_size_blocks
                ),
            ));
        }
        if (self.zones as u64)
            .checked_mul(self.zone_size_blocks)
            .is_none()
        {
            return Err(ConfigError::value(
                k("zones"),
                self.zones,
                "a namespace of fewer than 2^64 logical blocks",
            ));
        }
        if self.max_active > self.zones {
            return Err(ConfigError::value(
                k("max_active"),
                self.max_active,
                format!("at most the zone count {} (0 = no limit)", self.zones),
            ));
        }
        if self.max_open > self.zones {
            return Err(ConfigError::value(
                k("max_open"),
                self.max_open,
                format!("at most the zone count {} (0 = no limit)", self.zones),
            ));
        }
        if self.max_active != 0 && (self.max_open == 0 || self.max_open > self.max_active) {
            return Err(ConfigError::value(
                k("max_open"),
                self.max_open,
                format!(
                    "between 1 and max_active = {} (an open zone is also active)",
                    self.max_active
                ),
            ));
        }
        Ok(())
    }

    /// Logical blocks the namespace spans.
    pub fn blocks(&self) -> u64 {
        self.zones as u64 * self.zone_size_blocks
    }

    fn open_limit(&self) -> u32 {
        if self.max_open == 0 {
            self.zones
        } else {
            self.max_open
        }
    }

    fn active_limit(&self) -> u32 {
        if self.max_active == 0 {
            self.zones
        } else {
            self.max_active
        }
    }
}

/// One zone's descriptor, as Report Zones returns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneDescriptor {
    /// Index of the zone.
    pub index: u32,
    /// First logical block (ZSLBA).
    pub start: u64,
    /// Writable blocks (ZCAP).
    pub capacity: u64,
    /// Write pointer (the next block a write must start at).
    pub write_pointer: u64,
    /// State.
    pub state: ZoneState,
}

/// Which zones Report Zones lists: the Zone Receive Action Specific field (ZRASF) of a
/// Zone Management Receive with the Report Zones action (ZNS 1.0, "Report Zones"; the
/// values as libnvme's `enum nvme_zns_report_options` and nvme-cli's `report-zones
/// --state` name them): 0 every zone, 1 Empty, 2 Implicitly Opened, 3 Explicitly
/// Opened, 4 Closed, 5 Full, 6 Read Only, 7 Offline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFilter {
    /// Every zone.
    All,
    /// Only zones in this state.
    State(ZoneState),
}

impl ReportFilter {
    /// The filters by ZRASF value (index = value).
    pub const BY_CODE: [ReportFilter; 8] = [
        ReportFilter::All,
        ReportFilter::State(ZoneState::Empty),
        ReportFilter::State(ZoneState::ImplicitlyOpened),
        ReportFilter::State(ZoneState::ExplicitlyOpened),
        ReportFilter::State(ZoneState::Closed),
        ReportFilter::State(ZoneState::Full),
        ReportFilter::State(ZoneState::ReadOnly),
        ReportFilter::State(ZoneState::Offline),
    ];
    /// The names [`ReportFilter::parse`] takes, by ZRASF value.
    pub const NAMES: [&'static str; 8] = [
        "all",
        "empty",
        "implicitly-opened",
        "explicitly-opened",
        "closed",
        "full",
        "read-only",
        "offline",
    ];

    /// The filter of ZRASF value `code`; `None` for the values the specification
    /// reserves (8 and up).
    pub fn from_code(code: u8) -> Option<ReportFilter> {
        Self::BY_CODE.get(code as usize).copied()
    }

    /// Its ZRASF value.
    pub fn code(self) -> u8 {
        Self::BY_CODE
            .iter()
            .position(|f| *f == self)
            .expect("every filter has a code") as u8
    }

    /// Its name (`all`, `empty`, `implicitly-opened`, …).
    pub fn name(self) -> &'static str {
        Self::NAMES[self.code() as usize]
    }

    /// The filter named `s` (a name of [`ReportFilter::NAMES`], or its ZRASF value).
    pub fn parse(s: &str) -> Option<ReportFilter> {
        let s = s.trim();
        match Self::NAMES.iter().position(|n| n.eq_ignore_ascii_case(s)) {
            Some(i) => Some(Self::BY_CODE[i]),
            None => s.parse::<u8>().ok().and_then(Self::from_code),
        }
    }

    /// Whether a zone in state `s` is listed.
    pub fn matches(self, s: ZoneState) -> bool {
        match self {
            ReportFilter::All => true,
            ReportFilter::State(want) => want == s,
        }
    }
}

/// What a Report Zones command returns (with Partial Report cleared): the header's
/// Number of Zones, which counts every zone from the starting one that matches the
/// filter, and the descriptors that fit the host's buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneReportData {
    /// Zones from the starting one that match the filter (the header's Number of Zones).
    pub zones_matching: u64,
    /// Their descriptors, in zone order, at most as many as were asked for.
    pub descriptors: Vec<ZoneDescriptor>,
}

#[derive(Clone, Copy, Debug)]
struct Zone {
    write_pointer: u64,
    state: ZoneState,
}

/// The zones of one namespace and the counters of what was done to them.
#[derive(Clone, Debug)]
pub struct Zones {
    layout: ZoneLayout,
    zones: Vec<Zone>,
    open: u32,
    active: u32,
    /// Implicitly opened zones, oldest first (the auto-close order).
    implicit: VecDeque<u32>,
    finish_pad_blocks: u64,
    implicit_closes: u64,
    resets: u64,
    opens: u64,
    finishes: u64,
    report_zones: u64,
    errors: [u64; ZnsStatus::ALL.len()],
}

impl Zones {
    /// All zones Empty. The layout must have passed [`ZoneLayout::validate`].
    pub fn new(layout: ZoneLayout) -> Result<Zones, ConfigError> {
        layout.validate("zns")?;
        let zones = (0..layout.zones as u64)
            .map(|i| Zone {
                write_pointer: i * layout.zone_size_blocks,
                state: ZoneState::Empty,
            })
            .collect();
        Ok(Zones {
            layout,
            zones,
            open: 0,
            active: 0,
            implicit: VecDeque::new(),
            finish_pad_blocks: 0,
            implicit_closes: 0,
            resets: 0,
            opens: 0,
            finishes: 0,
            report_zones: 0,
            errors: [0; ZnsStatus::ALL.len()],
        })
    }

    /// The layout the zones were built with.
    pub fn layout(&self) -> &ZoneLayout {
        &self.layout
    }

    /// Zones open now.
    pub fn open_count(&self) -> u32 {
        self.open
    }

    /// Zones active now.
    pub fn active_count(&self) -> u32 {
        self.active
    }

    /// The zone holding `lba`, or `LbaOutOfRange`.
    pub fn zone_of(&self, lba: u64) -> Result<u32, ZnsStatus> {
        if lba >= self.layout.blocks() {
            return Err(ZnsStatus::LbaOutOfRange);
        }
        Ok((lba / self.layout.zone_size_blocks) as u32)
    }

    fn start(&self, zone: u32) -> u64 {
        zone as u64 * self.layout.zone_size_blocks
    }

    fn writable_end(&self, zone: u32) -> u64 {
        self.start(zone) + self.layout.zone_capacity_blocks
    }

    /// The descriptor of `zone`.
    pub fn descriptor(&self, zone: u32) -> ZoneDescriptor {
        let z = self.zones[zone as usize];
        ZoneDescriptor {
            index: zone,
            start: self.start(zone),
            capacity: self.layout.zone_capacity_blocks,
            write_pointer: z.write_pointer,
            state: z.state,
        }
    }

    /// Report Zones: the descriptors of the zones from `first` on that pass `filter`.
    pub fn report(&self, first: u32, filter: ReportFilter) -> Vec<ZoneDescriptor> {
        self.report_range(first, self.layout.zones, filter)
    }

    /// The descriptors of the zones from `first` up to `end` (excluded) that pass
    /// `filter`.
    fn report_range(&self, first: u32, end: u32, filter: ReportFilter) -> Vec<ZoneDescriptor> {
        (first..end.min(self.layout.zones))
            .map(|i| self.descriptor(i))
            .filter(|d| filter.matches(d.state))
            .collect()
    }

    /// The Report Zones command (Zone Management Receive, Report Zones action, Partial
    /// Report cleared): the zones from the one holding `slba` on that pass `filter`, at
    /// most `max_descriptors` of them (what the host's buffer holds; `None`: all), and
    /// how many match in all. Counted (`zns.report_zones`); a starting LBA past the
    /// namespace's end is *LBA Out of Range*, counted as the other refusals. The command
    /// reads only the controller's zone states: nothing changes.
    pub fn report_zones(
        &mut self,
        slba: u64,
        filter: ReportFilter,
        max_descriptors: Option<usize>,
    ) -> Result<ZoneReportData, ZnsStatus> {
        self.report_zones_in(slba, None, filter, max_descriptors)
    }

    /// [`Zones::report_zones`] for a namespace whose logical space ends (exclusive) at
    /// `end_lba` (`None`: the drive's end). Its report lists only its own zones, as a
    /// namespace's controller answers; the start must lie before the end (else *LBA Out
    /// of Range*). LBAs stay the drive's: the namespace's slice is not subtracted.
    pub fn report_zones_in(
        &mut self,
        slba: u64,
        end_lba: Option<u64>,
        filter: ReportFilter,
        max_descriptors: Option<usize>,
    ) -> Result<ZoneReportData, ZnsStatus> {
        let end_lba = end_lba.map_or(self.layout.blocks(), |e| e.min(self.layout.blocks()));
        let first = match self.zone_of(slba) {
            Ok(_) if slba >= end_lba => return self.refuse(ZnsStatus::LbaOutOfRange),
            Ok(z) => z,
            Err(e) => return self.refuse(e),
        };
        self.report_zones += 1;
        let end_zone = end_lba.div_ceil(self.layout.zone_size_blocks) as u32;
        let all = self.report_range(first, end_zone, filter);
        let zones_matching = all.len() as u64;
        let mut descriptors = all;
        descriptors.truncate(max_descriptors.unwrap_or(usize::MAX));
        Ok(ZoneReportData {
            zones_matching,
            descriptors,
        })
    }

    /// Report Zones with the filter given by its ZRASF value `code`: a reserved value (8
    /// and up) is *Invalid Field in Command* (0x02), counted. `end_lba` as in
    /// [`Zones::report_zones_in`].
    pub fn report_zones_by_code(
        &mut self,
        slba: u64,
        end_lba: Option<u64>,
        code: u8,
        max_descriptors: Option<usize>,
    ) -> Result<(ReportFilter, ZoneReportData), ZnsStatus> {
        match ReportFilter::from_code(code) {
            Some(f) => Ok((f, self.report_zones_in(slba, end_lba, f, max_descriptors)?)),
            None => self.refuse(ZnsStatus::InvalidField),
        }
    }

    /// Counts a refusal and returns it.
    fn refuse<T>(&mut self, status: ZnsStatus) -> Result<T, ZnsStatus> {
        self.errors[status.index()] += 1;
        Err(status)
    }

    fn set_state(&mut self, zone: u32, to: ZoneState) {
        let from = self.zones[zone as usize].state;
        if from == to {
            return;
        }
        if from.is_open() {
            self.open -= 1;
        }
        if from.is_active() {
            self.active -= 1;
        }
        if from == ZoneState::ImplicitlyOpened {
            self.implicit.retain(|&z| z != zone);
        }
        if to.is_open() {
            self.open += 1;
            if !from.is_open() {
                self.opens += 1;
            }
        }
        if to.is_active() {
            self.active += 1;
        }
        if to == ZoneState::ImplicitlyOpened {
            self.implicit.push_back(zone);
        }
        self.zones[zone as usize].state = to;
    }

    /// Makes room to open `zone` (Empty or Closed), closing the oldest implicitly opened
    /// zone when the open limit is reached and auto-close is on. Checks both limits
    /// before changing anything.
    fn make_room(&mut self, zone: u32) -> Result<(), ZnsStatus> {
        let becomes_active = self.zones[zone as usize].state == ZoneState::Empty;
        if becomes_active && self.active >= self.layout.active_limit() {
            return self.refuse(ZnsStatus::TooManyActive);
        }
        if self.open >= self.layout.open_limit() {
            match self.implicit.front().copied() {
                Some(victim) if self.layout.auto_close => {
                    self.close_zone(victim);
                    self.implicit_closes += 1;
                }
                _ => return self.refuse(ZnsStatus::TooManyOpen),
            }
        }
        Ok(())
    }

    /// Close without the transition check (the zone is open).
    fn close_zone(&mut self, zone: u32) {
        let to = if self.zones[zone as usize].write_pointer == self.start(zone) {
            ZoneState::Empty
        } else {
            ZoneState::Closed
        };
        self.set_state(zone, to);
    }

    /// The zone holding `count` (≥ 1) blocks from `lba`, or `LbaOutOfRange` (counted)
    /// when they run past the namespace's end.
    fn zone_of_range(&mut self, lba: u64, count: u64) -> Result<u32, ZnsStatus> {
        let end = lba.checked_add(count).filter(|_| count > 0);
        match (self.zone_of(lba), end) {
            (Ok(zone), Some(end)) if end <= self.layout.blocks() => Ok(zone),
            _ => self.refuse(ZnsStatus::LbaOutOfRange),
        }
    }

    /// The state and write-pointer checks of a write of `count` blocks at `lba` (or an
    /// append to the zone starting at `lba`), in the specification's order.
    fn check_write(&mut self, lba: u64, count: u64, append: bool) -> Result<u32, ZnsStatus> {
        let zone = self.zone_of_range(lba, count)?;
        match self.zones[zone as usize].state {
            ZoneState::Full => return self.refuse(ZnsStatus::ZoneFull),
            ZoneState::ReadOnly => return self.refuse(ZnsStatus::ZoneReadOnly),
            ZoneState::Offline => return self.refuse(ZnsStatus::ZoneOffline),
            _ => {}
        }
        let wp = self.zones[zone as usize].write_pointer;
        if append {
            if lba != self.start(zone) {
                return self.refuse(ZnsStatus::InvalidField);
            }
        } else if lba != wp {
            return self.refuse(ZnsStatus::InvalidWrite);
        }
        if wp + count > self.writable_end(zone) {
            return self.refuse(ZnsStatus::BoundaryError);
        }
        Ok(zone)
    }

    /// Advances the write pointer of an open-able zone by `count`, opening it implicitly
    /// first and marking it Full at its capacity. Returns the first block written.
    fn advance(&mut self, zone: u32, count: u64) -> Result<u64, ZnsStatus> {
        let state = self.zones[zone as usize].state;
        if matches!(state, ZoneState::Empty | ZoneState::Closed) {
            self.make_room(zone)?;
            self.set_state(zone, ZoneState::ImplicitlyOpened);
        }
        let z = &mut self.zones[zone as usize];
        let first = z.write_pointer;
        z.write_pointer += count;
        if self.zones[zone as usize].write_pointer == self.writable_end(zone) {
            self.set_state(zone, ZoneState::Full);
        }
        Ok(first)
    }

    /// Write: `count` blocks at `lba`, which must be the zone's write pointer.
    pub fn write(&mut self, lba: u64, count: u64) -> Result<(), ZnsStatus> {
        let zone = self.check_write(lba, count, false)?;
        self.advance(zone, count).map(|_| ())
    }

    /// Zone Append: `count` blocks at the write pointer of the zone starting at
    /// `zone_start`; the completion carries the first block written.
    pub fn append(&mut self, zone_start: u64, count: u64) -> Result<u64, ZnsStatus> {
        let zone = self.check_write(zone_start, count, true)?;
        self.advance(zone, count)
    }

    /// Read: `count` blocks at `lba` inside one zone that is not offline.
    pub fn read(&mut self, lba: u64, count: u64) -> Result<(), ZnsStatus> {
        let zone = self.zone_of_range(lba, count)?;
        if self.zones[zone as usize].state == ZoneState::Offline {
            return self.refuse(ZnsStatus::ZoneOffline);
        }
        if lba + count > self.start(zone) + self.layout.zone_size_blocks {
            return self.refuse(ZnsStatus::BoundaryError);
        }
        Ok(())
    }

    /// The zone starting at `lba`, for a zone management command: past the namespace
    /// is `LbaOutOfRange`, an address inside a zone `InvalidField` (both counted).
    pub fn zone_start(&mut self, lba: u64) -> Result<u32, ZnsStatus> {
        let zone = match self.zone_of(lba) {
            Ok(z) => z,
            Err(s) => return self.refuse(s),
        };
        if lba != self.start(zone) {
            return self.refuse(ZnsStatus::InvalidField);
        }
        Ok(zone)
    }

    fn zone_index(&mut self, zone: u32) -> Result<u32, ZnsStatus> {
        if zone >= self.layout.zones {
            return self.refuse(ZnsStatus::LbaOutOfRange);
        }
        Ok(zone)
    }

    /// Open Zone: makes `zone` explicitly opened.
    pub fn open(&mut self, zone: u32) -> Result<(), ZnsStatus> {
        let zone = self.zone_index(zone)?;
        match self.zones[zone as usize].state {
            ZoneState::Empty | ZoneState::Closed => {
                self.make_room(zone)?;
                self.set_state(zone, ZoneState::ExplicitlyOpened);
                Ok(())
            }
            ZoneState::ImplicitlyOpened | ZoneState::ExplicitlyOpened => {
                self.set_state(zone, ZoneState::ExplicitlyOpened);
                Ok(())
            }
            _ => self.refuse(ZnsStatus::InvalidTransition),
        }
    }

    /// Close Zone: an open zone becomes Closed (Empty if nothing was written).
    pub fn close(&mut self, zone: u32) -> Result<(), ZnsStatus> {
        let zone = self.zone_index(zone)?;
        match self.zones[zone as usize].state {
            s if s.is_open() => {
                self.close_zone(zone);
                Ok(())
            }
            ZoneState::Closed => Ok(()),
            _ => self.refuse(ZnsStatus::InvalidTransition),
        }
    }

    /// Finish Zone: the zone becomes Full; returns the blocks padded (from the write
    /// pointer to the capacity), which the drive writes without host data.
    pub fn finish(&mut self, zone: u32) -> Result<u64, ZnsStatus> {
        let zone = self.zone_index(zone)?;
        match self.zones[zone as usize].state {
            ZoneState::Full => Ok(0),
            s if s == ZoneState::Empty || s.is_active() => {
                let end = self.writable_end(zone);
                let pad = end - self.zones[zone as usize].write_pointer;
                self.zones[zone as usize].write_pointer = end;
                self.set_state(zone, ZoneState::Full);
                self.finish_pad_blocks += pad;
                self.finishes += 1;
                Ok(pad)
            }
            _ => self.refuse(ZnsStatus::InvalidTransition),
        }
    }

    /// Reset Zone: the zone becomes Empty with its write pointer at its start; its data
    /// is gone.
    pub fn reset(&mut self, zone: u32) -> Result<(), ZnsStatus> {
        let zone = self.zone_index(zone)?;
        match self.zones[zone as usize].state {
            ZoneState::Empty => Ok(()),
            s if s.is_active() || s == ZoneState::Full => {
                self.zones[zone as usize].write_pointer = self.start(zone);
                self.set_state(zone, ZoneState::Empty);
                self.resets += 1;
                Ok(())
            }
            _ => self.refuse(ZnsStatus::InvalidTransition),
        }
    }

    /// Power-up: the zone's write pointer is `written` blocks past its start, as the
    /// drive found it on flash. The zone is Empty with nothing written, Full at its
    /// capacity, else Closed: open states do not survive the power going (QEMU's ZNS
    /// emulation likewise closes every open zone at shutdown, `nvme_zoned_ns_shutdown`,
    /// and a zone with nothing written is Empty). Called once per zone on freshly built zones (all Empty); `Err`
    /// names what the flash held that the limits forbid.
    pub fn restore(&mut self, zone: u32, written: u64) -> Result<(), RestoreError> {
        let cap = self.layout.zone_capacity_blocks;
        if written > cap {
            return Err(RestoreError::OverCapacity {
                zone,
                written,
                capacity: cap,
            });
        }
        let to = match written {
            0 => ZoneState::Empty,
            w if w == cap => ZoneState::Full,
            _ => ZoneState::Closed,
        };
        if to == ZoneState::Closed && self.active >= self.layout.active_limit() {
            return Err(RestoreError::TooManyActive {
                zone,
                active: self.active,
            });
        }
        self.zones[zone as usize].write_pointer = self.start(zone) + written;
        self.set_state(zone, to);
        Ok(())
    }

    /// A media failure: the drive makes `zone` read-only (from any state but Offline).
    pub fn fail_to_read_only(&mut self, zone: u32) -> Result<(), ZnsStatus> {
        let zone = self.zone_index(zone)?;
        if self.zones[zone as usize].state == ZoneState::Offline {
            return self.refuse(ZnsStatus::InvalidTransition);
        }
        self.set_state(zone, ZoneState::ReadOnly);
        Ok(())
    }

    /// Offline Zone: a read-only zone is taken offline.
    pub fn offline(&mut self, zone: u32) -> Result<(), ZnsStatus> {
        let zone = self.zone_index(zone)?;
        match self.zones[zone as usize].state {
            ZoneState::ReadOnly | ZoneState::Offline => {
                self.set_state(zone, ZoneState::Offline);
                Ok(())
            }
            _ => self.refuse(ZnsStatus::InvalidTransition),
        }
    }

    /// Refusals of `status` so far.
    pub fn errors(&self, status: ZnsStatus) -> u64 {
        self.errors[status.index()]
    }

    /// The counters: running totals, the refusals by status, and the open and active
    /// zone gauges.
    pub fn counters(&self, out: &mut Counters) {
        out.set(&FINISH_PAD_BLOCKS, self.finish_pad_blocks);
        out.set(&IMPLICIT_CLOSES, self.implicit_closes);
        out.set(&RESETS, self.resets);
        out.set(&OPENS, self.opens);
        out.set(&FINISHES, self.finishes);
        out.set(&REPORT_ZONES, self.report_zones);
        out.set(&OPEN_ZONES, self.open as u64);
        out.set(&ACTIVE_ZONES, self.active as u64);
        for s in ZnsStatus::ALL {
            out.set(s.counter(), self.errors(s));
        }
    }

    /// Panics if the open and active counts, the implicit-open queue or a write pointer
    /// disagree with the zones' states.
    pub fn check_invariants(&self) {
        let open = self.zones.iter().filter(|z| z.state.is_open()).count() as u32;
        let active = self.zones.iter().filter(|z| z.state.is_active()).count() as u32;
        assert_eq!(open, self.open, "open count");
        assert_eq!(active, self.active, "active count");
        assert!(self.open <= self.layout.open_limit(), "open limit");
        assert!(self.active <= self.layout.active_limit(), "active limit");
        let implicit: Vec<u32> = (0..self.layout.zones)
            .filter(|&i| self.zones[i as usize].state == ZoneState::ImplicitlyOpened)
            .collect();
        let mut queued: Vec<u32> = self.implicit.iter().copied().collect();
        queued.sort_unstable();
        assert_eq!(queued, implicit, "implicitly opened zones");
        for (i, z) in self.zones.iter().enumerate() {
            let start = self.start(i as u32);
            assert!(z.write_pointer >= start && z.write_pointer <= self.writable_end(i as u32));
            match z.state {
                ZoneState::Empty => assert_eq!(z.write_pointer, start, "empty zone {i}"),
                ZoneState::Full => {
                    assert_eq!(
                        z.write_pointer,
                        self.writable_end(i as u32),
                        "full zone {i}"
                    )
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn layout(zones: u32, size: u64, cap: u64, max_open: u32, max_active: u32) -> ZoneLayout {
        ZoneLayout {
            zones,
            zone_size_blocks: size,
            zone_capacity_blocks: cap,
            max_open,
            max_active,
            auto_close: true,
        }
    }

    fn state(z: &Zones, zone: u32) -> ZoneState {
        z.descriptor(zone).state
    }

    #[test]
    fn writes_at_the_pointer_fill_a_zone_and_release_its_resources() {
        let mut z = Zones::new(layout(4, 100, 80, 0, 0)).unwrap();
        z.write(0, 30).unwrap();
        assert_eq!(state(&z, 0), ZoneState::ImplicitlyOpened);
        assert_eq!((z.open_count(), z.active_count()), (1, 1));
        z.write(30, 50).unwrap();
        assert_eq!(state(&z, 0), ZoneState::Full);
        assert_eq!(z.descriptor(0).write_pointer, 80);
        assert_eq!((z.open_count(), z.active_count()), (0, 0));
        assert_eq!(z.write(80, 1), Err(ZnsStatus::ZoneFull));
        z.check_invariants();
    }

    #[test]
    fn a_write_off_the_pointer_or_past_the_capacity_changes_nothing() {
        let mut z = Zones::new(layout(2, 100, 80, 0, 0)).unwrap();
        z.write(100, 10).unwrap();
        let before = z.report(0, ReportFilter::All);
        assert_eq!(z.write(115, 1), Err(ZnsStatus::InvalidWrite));
        assert_eq!(z.write(5, 1), Err(ZnsStatus::InvalidWrite));
        assert_eq!(z.write(110, 71), Err(ZnsStatus::BoundaryError));
        assert_eq!(z.write(200, 1), Err(ZnsStatus::LbaOutOfRange));
        assert_eq!(z.report(0, ReportFilter::All), before);
        assert_eq!(z.errors(ZnsStatus::InvalidWrite), 2);
        assert_eq!(z.errors(ZnsStatus::BoundaryError), 1);
        // A refused write does not open the empty zone it aimed at.
        assert_eq!(state(&z, 0), ZoneState::Empty);
    }

    #[test]
    fn the_open_limit_closes_the_oldest_implicitly_opened_zone() {
        let mut z = Zones::new(layout(4, 10, 10, 2, 0)).unwrap();
        z.write(0, 1).unwrap();
        z.write(10, 1).unwrap();
        z.write(20, 1).unwrap();
        assert_eq!(state(&z, 0), ZoneState::Closed);
        assert_eq!(state(&z, 1), ZoneState::ImplicitlyOpened);
        assert_eq!(state(&z, 2), ZoneState::ImplicitlyOpened);
        let mut c = Counters::new();
        z.counters(&mut c);
        assert_eq!(c.value(&IMPLICIT_CLOSES), 1);
        z.check_invariants();
    }

    #[test]
    fn without_auto_close_or_with_explicit_opens_the_limit_refuses() {
        let mut l = layout(4, 10, 10, 2, 0);
        l.auto_close = false;
        let mut z = Zones::new(l).unwrap();
        z.write(0, 1).unwrap();
        z.write(10, 1).unwrap();
        assert_eq!(z.write(20, 1), Err(ZnsStatus::TooManyOpen));
        assert_eq!(state(&z, 2), ZoneState::Empty);

        // Explicitly opened zones are never closed by the controller.
        let mut z = Zones::new(layout(4, 10, 10, 2, 0)).unwrap();
        z.open(0).unwrap();
        z.open(1).unwrap();
        assert_eq!(z.write(20, 1), Err(ZnsStatus::TooManyOpen));
        assert_eq!(z.open(2), Err(ZnsStatus::TooManyOpen));
        z.check_invariants();
    }

    #[test]
    fn closed_zones_hold_the_active_limit() {
        let mut z = Zones::new(layout(4, 10, 10, 2, 2)).unwrap();
        z.write(0, 3).unwrap();
        z.close(0).unwrap();
        assert_eq!(state(&z, 0), ZoneState::Closed);
        z.write(10, 3).unwrap();
        assert_eq!(z.write(20, 1), Err(ZnsStatus::TooManyActive));
        // Writing on into the closed zone reopens it: open 2, active 2, allowed.
        z.write(3, 1).unwrap();
        assert_eq!((z.open_count(), z.active_count()), (2, 2));
        // Resetting one frees an active resource.
        z.reset(1).unwrap();
        z.write(20, 1).unwrap();
        z.check_invariants();
    }

    #[test]
    fn closing_an_unwritten_zone_empties_it() {
        let mut z = Zones::new(layout(2, 10, 10, 0, 0)).unwrap();
        z.open(1).unwrap();
        assert_eq!(state(&z, 1), ZoneState::ExplicitlyOpened);
        z.close(1).unwrap();
        assert_eq!(state(&z, 1), ZoneState::Empty);
        assert_eq!(z.active_count(), 0);
    }

    #[test]
    fn finish_pads_to_the_capacity_and_append_returns_where_it_wrote() {
        let mut z = Zones::new(layout(3, 128, 100, 0, 0)).unwrap();
        assert_eq!(z.append(128, 30), Ok(128));
        assert_eq!(z.append(128, 20), Ok(158));
        assert_eq!(z.append(130, 1), Err(ZnsStatus::InvalidField));
        assert_eq!(z.finish(1), Ok(50));
        assert_eq!(state(&z, 1), ZoneState::Full);
        // An empty zone finished pads all of its capacity; a full one pads nothing.
        assert_eq!(z.finish(2), Ok(100));
        assert_eq!(z.finish(2), Ok(0));
        let mut c = Counters::new();
        z.counters(&mut c);
        assert_eq!(c.value(&FINISH_PAD_BLOCKS), 150);
        z.reset(1).unwrap();
        assert_eq!(z.descriptor(1).write_pointer, 128);
        assert_eq!(z.append(128, 1), Ok(128));
        z.check_invariants();
    }

    #[test]
    fn read_only_and_offline_zones() {
        let mut z = Zones::new(layout(2, 10, 10, 0, 0)).unwrap();
        z.write(0, 4).unwrap();
        assert_eq!(z.offline(0), Err(ZnsStatus::InvalidTransition));
        z.fail_to_read_only(0).unwrap();
        assert_eq!(z.active_count(), 0);
        assert_eq!(z.write(4, 1), Err(ZnsStatus::ZoneReadOnly));
        z.read(0, 4).unwrap();
        assert_eq!(z.reset(0), Err(ZnsStatus::InvalidTransition));
        z.offline(0).unwrap();
        assert_eq!(z.read(0, 1), Err(ZnsStatus::ZoneOffline));
        assert_eq!(z.open(0), Err(ZnsStatus::InvalidTransition));
        assert_eq!(z.read(5, 6), Err(ZnsStatus::ZoneOffline));
        assert_eq!(z.read(15, 6), Err(ZnsStatus::LbaOutOfRange));
        z.check_invariants();
    }

    #[test]
    fn reads_stay_inside_one_zone() {
        let mut z = Zones::new(layout(2, 10, 8, 0, 0)).unwrap();
        z.read(8, 2).unwrap(); // above the capacity, inside the zone: deallocated data
        assert_eq!(z.read(8, 3), Err(ZnsStatus::BoundaryError));
    }

    #[test]
    fn layouts_are_checked_with_the_key_named() {
        let bad = [
            (layout(0, 10, 10, 0, 0), "x.zones"),
            (layout(2, 0, 0, 0, 0), "x.zone_size"),
            (layout(2, 10, 11, 0, 0), "x.zone_capacity"),
            (layout(2, 10, 10, 3, 0), "x.max_open"),
            (layout(2, 10, 10, 0, 3), "x.max_active"),
            (layout(4, 10, 10, 3, 2), "x.max_open"),
            (layout(4, 10, 10, 0, 2), "x.max_open"),
        ];
        for (l, key) in bad {
            let e = l.validate("x").unwrap_err();
            assert_eq!(e.key(), Some(key), "{l:?}: {e}");
        }
        layout(4, 10, 10, 2, 3).validate("x").unwrap();
    }

    /// Random zone commands against an independent model of the write pointers: every
    /// accepted write moves its zone's pointer by exactly its length, every refused
    /// command leaves all zones as they were, and the counts agree with the states.
    #[test]
    fn random_commands_keep_the_model_and_the_invariants() {
        for seed in 1..=40u64 {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let zones = rng.gen_range(1..6u32);
            let size = rng.gen_range(1..12u64);
            let cap = rng.gen_range(1..=size);
            let max_active = rng.gen_range(0..=zones);
            let max_open = if max_active == 0 {
                rng.gen_range(0..=zones)
            } else {
                rng.gen_range(1..=max_active)
            };
            let mut l = layout(zones, size, cap, max_open, max_active);
            l.auto_close = rng.gen_bool(0.5);
            let mut z = Zones::new(l).unwrap();
            let mut wp: Vec<u64> = (0..zones as u64).map(|i| i * size).collect();
            for step in 0..400 {
                let zone = rng.gen_range(0..zones);
                let start = zone as u64 * size;
                let before = z.report(0, ReportFilter::All);
                let op = rng.gen_range(0..8);
                let r: Result<(), ZnsStatus> = match op {
                    0 | 1 => {
                        let lba = if rng.gen_bool(0.8) {
                            wp[zone as usize]
                        } else {
                            rng.gen_range(0..zones as u64 * size)
                        };
                        let n = rng.gen_range(1..4);
                        z.write(lba, n)
                            .inspect(|_| wp[(lba / size) as usize] = lba + n)
                            .map(|_| ())
                    }
                    2 => {
                        let n = rng.gen_range(1..4);
                        z.append(start, n).map(|first| {
                            assert_eq!(first, wp[zone as usize], "seed {seed} step {step}");
                            wp[zone as usize] += n;
                        })
                    }
                    3 => z.open(zone),
                    4 => z.close(zone),
                    5 => z.finish(zone).map(|_| wp[zone as usize] = start + cap),
                    6 => z.reset(zone).map(|_| wp[zone as usize] = start),
                    _ => z.read(rng.gen_range(0..zones as u64 * size), 1),
                };
                if r.is_err() {
                    assert_eq!(
                        z.report(0, ReportFilter::All),
                        before,
                        "seed {seed} step {step}"
                    );
                }
                check_report_zones(&mut z, &mut rng, &format!("seed {seed} step {step}"));
                for (i, w) in wp.iter().enumerate() {
                    assert_eq!(
                        z.descriptor(i as u32).write_pointer,
                        *w,
                        "seed {seed} step {step}"
                    );
                }
                z.check_invariants();
            }
        }
    }

    /// The spec's ZRASF table, written out independently of [`ReportFilter::BY_CODE`]:
    /// value → the abbreviation of the state listed (`None`: every zone).
    const ZRASF: [(u8, Option<&str>); 8] = [
        (0, None),
        (1, Some("ZSE")),
        (2, Some("ZSIO")),
        (3, Some("ZSEO")),
        (4, Some("ZSC")),
        (5, Some("ZSF")),
        (6, Some("ZSRO")),
        (7, Some("ZSO")),
    ];

    /// Report Zones against a model of it: for every ZRASF value, a random starting LBA
    /// and buffer size, the zones listed are those from the starting zone whose state the
    /// table names, in order, cut at the buffer, and the count is of all that match;
    /// the per-state reports partition the full one; the command changes no zone and is
    /// counted; a starting LBA past the end is refused and counted.
    fn check_report_zones(z: &mut Zones, rng: &mut Xoshiro256PlusPlus, at: &str) {
        let blocks = z.layout().blocks();
        let size = z.layout().zone_size_blocks;
        let before = z.report(0, ReportFilter::All);
        let slba = rng.gen_range(0..blocks);
        let max = rng.gen_bool(0.5).then(|| rng.gen_range(0..4usize));
        let mut counters = Counters::new();
        z.counters(&mut counters);
        let done_before = counters.value(&REPORT_ZONES);
        let mut per_state = 0;
        for (code, state) in ZRASF {
            let f = ReportFilter::from_code(code).unwrap();
            assert_eq!(f.code(), code);
            assert_eq!(ReportFilter::parse(f.name()), Some(f));
            assert_eq!(ReportFilter::parse(&code.to_string()), Some(f));
            let want: Vec<ZoneDescriptor> = before
                .iter()
                .filter(|d| d.start + size > slba && state.is_none_or(|s| d.state.name() == s))
                .copied()
                .collect();
            let got = z.report_zones(slba, f, max).unwrap();
            assert_eq!(got.zones_matching, want.len() as u64, "{at} code {code}");
            let cut = max.unwrap_or(usize::MAX).min(want.len());
            assert_eq!(got.descriptors, want[..cut], "{at} code {code}");
            if state.is_some() {
                per_state += got.zones_matching;
            }
        }
        let all = z.report_zones(slba, ReportFilter::All, None).unwrap();
        assert_eq!(per_state, all.zones_matching, "{at}");
        assert_eq!(ReportFilter::from_code(8), None);
        assert_eq!(ReportFilter::parse("opened"), None);
        let before_refusals = z.errors(ZnsStatus::LbaOutOfRange);
        assert_eq!(
            z.report_zones(blocks, ReportFilter::All, None),
            Err(ZnsStatus::LbaOutOfRange)
        );
        assert_eq!(z.errors(ZnsStatus::LbaOutOfRange), before_refusals + 1);
        // A namespace ending at a zone boundary after the start's zone lists only the
        // zones before its end; a start at or past its end is refused.
        let zones = z.layout().zones as u64;
        let end = rng.gen_range(slba / size + 1..=zones) * size;
        let got = z
            .report_zones_in(slba, Some(end), ReportFilter::All, None)
            .unwrap();
        let want: Vec<ZoneDescriptor> = before
            .iter()
            .filter(|d| d.start + size > slba && d.start < end)
            .copied()
            .collect();
        assert_eq!(got.descriptors, want, "{at} end {end}");
        assert_eq!(got.zones_matching, want.len() as u64, "{at} end {end}");
        assert_eq!(
            z.report_zones_in(end - size, Some(end - size), ReportFilter::All, None),
            Err(ZnsStatus::LbaOutOfRange)
        );
        assert_eq!(z.errors(ZnsStatus::LbaOutOfRange), before_refusals + 2);
        let mut counters = Counters::new();
        z.counters(&mut counters);
        assert_eq!(counters.value(&REPORT_ZONES), done_before + 10, "{at}");
        assert_eq!(z.report(0, ReportFilter::All), before, "{at}");
    }
}
