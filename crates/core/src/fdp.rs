//! Flexible Data Placement (NVMe TP4146, ratified 2022): the host tags each write with a
//! placement identifier so that data with the same expected lifetime fills the same
//! reclaim units; this module is the drive's bookkeeping of it — handles, the reclaim
//! unit each handle writes into in each reclaim group, the FDP statistics and the event
//! log. Where the pages physically go is the FTL's business; it asks [`Fdp::place`] which
//! handle a write belongs to and [`Fdp::gc_stream`] where a handle's moved data may go.
//!
//! The model, in the specification's terms and the seed paper's:
//!
//! ```text
//! reclaim group (RG)    a set of dies; each has its own reclaim units
//! reclaim unit (RU)     erase blocks the drive fills and reclaims together
//!                       (the seed paper's management block)
//! reclaim unit handle   points, in every RG, at the RU being filled; type:
//!   (RUH)                 initially isolated  — its data starts apart from other
//!                                               handles', but GC may mix it with the
//!                                               data of other initially isolated handles
//!                         persistently isolated — GC keeps its data apart for ever
//! placement handle      a namespace's index into the drive's RUHs
//! placement identifier  (RG, placement handle), packed into the write's DSPEC field:
//!                       RG in the upper bits, the handle in the lower
//!
//! write(pid, n bytes):
//!   (ph, rg) = parse(pid); if invalid: (0, 0) and event "invalid placement identifier"
//!   ruh = namespace.handles[ph]; host_bytes += n; media_bytes += n
//!   consume n of the RU's remaining capacity; when it runs out, the handle moves to a
//!   fresh RU (a normal change: no event)
//! reclaim unit handle update (host):
//!   if the RU is partly written: event "reclaim unit not fully written"; fresh RU
//! GC copy of n bytes: media_bytes += n          erase of n bytes: erased_bytes += n
//! WAF = media_bytes / host_bytes
//! ```
//!
//! Choices the specification leaves open, with the one taken: an invalid placement
//! identifier is written through placement handle 0 of reclaim group 0 and logged (QEMU's
//! and FEMU's emulations write it there; the event is the specification's); the event log
//! keeps the latest [`EVENT_LOG_CAPACITY`] events (a log page is finite) while the
//! counts per kind keep every one. A layout with no namespace list gives every
//! namespace all the drive's handles in order (placement handle i is RUH i), which is
//! what a drive configured with one namespace per tenant and no handle list does.
//!
//! The statistics are kept per handle and per namespace too (host and media bytes, so a
//! handle's WAF), as the FDP statistics log page keeps them per endurance group: data GC
//! moves is charged to the handle and namespace that wrote it.

use crate::spec::{ConfigError, Counter, Counters};
use crate::units::Size;

/// Reported as `fdp.host_bytes_written` (Host Bytes with Metadata Written, HBMW).
pub const HOST_BYTES: Counter = Counter::total(
    "fdp.host_bytes_written",
    "bytes",
    "bytes the host wrote to FDP namespaces (HBMW)",
);
/// Reported as `fdp.media_bytes_written` (Media Bytes with Metadata Written, MBMW).
pub const MEDIA_BYTES: Counter = Counter::total(
    "fdp.media_bytes_written",
    "bytes",
    "bytes written to the media: host data and the data GC moved (MBMW)",
);
/// Reported as `fdp.media_bytes_erased` (Media Bytes Erased, MBE).
pub const ERASED_BYTES: Counter = Counter::total(
    "fdp.media_bytes_erased",
    "bytes",
    "bytes of erase blocks erased (MBE)",
);

/// Most events the event log keeps (older ones drop out; the counts keep them).
pub const EVENT_LOG_CAPACITY: usize = 64;

/// The handle an event names for a reclaim unit that holds the GC data of several
/// initially isolated handles.
pub const MIXED_HANDLES: u16 = u16::MAX;

/// Reclaim unit handles a drive has by default: FEMU's FDP mode and the FDP drives
/// the CacheLib work ran on expose 8, all initially isolated, in one reclaim group.
pub const DEFAULT_HANDLES: usize = 8;

/// `[ftl.fdp]`: Flexible Data Placement in the page FTL (docs/fdp.md).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FdpConfig {
    /// Whether the drive has FDP enabled (off: one write frontier, as without FDP).
    pub enabled: bool,
    /// Reclaim groups: the dies split into this many equal groups (1, as FEMU's FDP mode
    /// and published FDP drives have).
    pub reclaim_groups: u16,
    /// The reclaim unit handles, each with its isolation type.
    pub handles: Vec<Isolation>,
    /// Bytes of a reclaim unit: a multiple of one erase block on every plane of a
    /// reclaim group (a superblock of the group); 0 = one such superblock.
    pub ru_size: Size,
    /// Per namespace, its placement handles (indices into `handles`): filled from the
    /// `[[namespace]] placement_handles` keys when the drive is built, not a key of its
    /// own; empty: every namespace has every handle.
    #[serde(skip)]
    pub namespace_handles: Vec<Vec<u16>>,
}

impl Default for FdpConfig {
    fn default() -> Self {
        FdpConfig {
            enabled: false,
            reclaim_groups: 1,
            handles: vec![Isolation::InitiallyIsolated; DEFAULT_HANDLES],
            ru_size: Size(0),
            namespace_handles: Vec::new(),
        }
    }
}

impl FdpConfig {
    /// Whether nothing was changed (left out of a report's config then).
    pub fn is_default(&self) -> bool {
        *self == FdpConfig::default()
    }

    /// The drive's layout with reclaim units of `ru_bytes` (each namespace sees its
    /// placement handles, or all of them).
    pub fn layout(&self, ru_bytes: u64) -> FdpLayout {
        FdpLayout {
            reclaim_groups: self.reclaim_groups,
            ru_bytes,
            handles: self.handles.clone(),
            namespaces: self.namespace_handles.clone(),
        }
    }

    /// Checks what does not depend on the device; `key` is the section (`ftl.fdp`).
    pub fn validate(&self, key: &str) -> Result<(), ConfigError> {
        // The unit size is checked against the geometry when the FTL is built; any
        // non-zero placeholder lets the layout check the rest.
        self.layout(1).validate(key)
    }
}

/// How a reclaim unit handle's data is kept apart when GC moves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    /// Apart when written; GC may mix it with other initially isolated handles' data.
    InitiallyIsolated,
    /// Apart when written and after every GC move.
    PersistentlyIsolated,
}

/// Kinds of FDP events the drive logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// The host moved a handle to a new RU before its RU was full.
    RuNotFullyWritten,
    /// A write carried a placement identifier the namespace does not have.
    InvalidPlacementIdentifier,
    /// The drive moved valid data of a reclaim unit elsewhere (GC or media trouble).
    MediaReallocated,
    /// The drive moved a handle to a new reclaim unit on its own before the old one was
    /// full (TP4146's "implicitly modified reclaim unit handle"; here: after a power cut
    /// the open units are not written further).
    ImplicitRuChange,
}

impl EventKind {
    /// Every kind, in declaration order.
    pub const ALL: [EventKind; 4] = [
        EventKind::RuNotFullyWritten,
        EventKind::InvalidPlacementIdentifier,
        EventKind::MediaReallocated,
        EventKind::ImplicitRuChange,
    ];

    /// The name the report gives the kind.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::RuNotFullyWritten => "ru_not_fully_written",
            EventKind::InvalidPlacementIdentifier => "invalid_placement_identifier",
            EventKind::MediaReallocated => "media_reallocated",
            EventKind::ImplicitRuChange => "implicit_ru_change",
        }
    }

    /// The counter of events of this kind.
    pub fn counter(self) -> &'static Counter {
        &EVENT_COUNTERS[self as usize]
    }
}

/// One running total per event kind, in the order of [`EventKind::ALL`].
pub const EVENT_COUNTERS: [Counter; 4] = [
    Counter::total(
        "fdp.events.ru_not_fully_written",
        "events",
        "handles the host moved to a new reclaim unit before theirs was full",
    ),
    Counter::total(
        "fdp.events.invalid_placement_identifier",
        "events",
        "writes with a placement identifier the namespace does not have",
    ),
    Counter::total(
        "fdp.events.media_reallocated",
        "events",
        "reclaim units whose valid data the drive moved",
    ),
    Counter::total(
        "fdp.events.implicit_ru_change",
        "events",
        "handles the drive moved to a new reclaim unit before theirs was full",
    ),
];

/// The counters this module reports.
pub const COUNTERS: &[&[Counter]] = &[&[HOST_BYTES, MEDIA_BYTES, ERASED_BYTES], &EVENT_COUNTERS];

/// One logged event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// The placement identifier involved (as the host gave it).
    pub pid: u16,
    /// The namespace (1-based, as NVMe numbers them).
    pub nsid: u32,
    /// The reclaim group, when known.
    pub reclaim_group: u16,
    /// The reclaim unit handle, when known.
    pub handle: u16,
}

/// The drive's FDP configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FdpLayout {
    /// Reclaim groups (≥ 1).
    pub reclaim_groups: u16,
    /// Bytes one reclaim unit holds.
    pub ru_bytes: u64,
    /// The drive's reclaim unit handles and their isolation.
    pub handles: Vec<Isolation>,
    /// Per namespace, its placement handles: indices into `handles`.
    pub namespaces: Vec<Vec<u16>>,
}

impl FdpLayout {
    /// Checks the layout; `key` prefixes the keys errors name.
    pub fn validate(&self, key: &str) -> Result<(), ConfigError> {
        if self.reclaim_groups == 0 {
            return Err(ConfigError::value(
                format!("{key}.reclaim_groups"),
                0,
                "at least one reclaim group",
            ));
        }
        if self.ru_bytes == 0 {
            return Err(ConfigError::value(
                format!("{key}.ru_size"),
                0,
                "a reclaim unit of at least one erase block",
            ));
        }
        if self.handles.is_empty() || self.handles.len() > u16::MAX as usize {
            return Err(ConfigError::value(
                format!("{key}.handles"),
                self.handles.len(),
                "1 to 65535 reclaim unit handles",
            ));
        }
        for (ns, phs) in self.namespaces.iter().enumerate() {
            if phs.is_empty() {
                return Err(ConfigError::value(
                    format!("{key}.namespaces[{ns}]"),
                    "[]",
                    "at least one placement handle",
                ));
            }
            if let Some(&bad) = phs.iter().find(|&&h| h as usize >= self.handles.len()) {
                return Err(ConfigError::value(
                    format!("{key}.namespaces[{ns}]"),
                    bad,
                    format!("reclaim unit handles 0 to {}", self.handles.len() - 1),
                ));
            }
            if (self.rg_bits() as usize) + bits_for(phs.len()) as usize > 16 {
                return Err(ConfigError::value(
                    format!("{key}.namespaces[{ns}]"),
                    phs.len(),
                    "placement handles and reclaim groups that fit a 16-bit identifier",
                ));
            }
        }
        Ok(())
    }

    /// Bits the reclaim group takes at the top of a placement identifier.
    fn rg_bits(&self) -> u32 {
        bits_for(self.reclaim_groups as usize)
    }

    /// The placement identifier of handle `ph` in reclaim group `rg`.
    pub fn pid(&self, rg: u16, ph: u16) -> u16 {
        if self.rg_bits() == 0 {
            ph
        } else {
            (rg << (16 - self.rg_bits())) | ph
        }
    }
}

/// Bits needed to number `n` things (0 for one).
fn bits_for(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

/// The report's `fdp` section: the FDP statistics over the drive's life so far (as the
/// log page keeps them), per handle and per namespace, and the events by kind.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FdpReport {
    /// Host bytes written (HBMW).
    pub host_bytes_written: u64,
    /// Media bytes written (MBMW).
    pub media_bytes_written: u64,
    /// Media bytes erased (MBE).
    pub media_bytes_erased: u64,
    /// MBMW / HBMW.
    pub waf: f64,
    /// Per reclaim unit handle.
    pub handles: Vec<FdpUsage>,
    /// Per namespace (that wrote), by NSID.
    pub namespaces: Vec<FdpUsage>,
    /// Events by kind, every one counted.
    pub events: std::collections::BTreeMap<String, u64>,
}

impl FdpReport {
    /// The per-handle rows then the per-namespace rows, each named (`handle 1`,
    /// `namespace 2`): what the text and HTML reports list.
    pub fn usage_rows(&self) -> impl Iterator<Item = (String, &FdpUsage)> {
        self.handles
            .iter()
            .map(|u| (format!("handle {}", u.index), u))
            .chain(
                self.namespaces
                    .iter()
                    .map(|u| (format!("namespace {}", u.index), u)),
            )
    }
}

/// One handle's or namespace's bytes.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FdpUsage {
    /// Handle index, or the namespace's NSID (1-based).
    pub index: u32,
    /// A handle's isolation type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<Isolation>,
    /// Host bytes written.
    pub host_bytes_written: u64,
    /// Media bytes written: the host's and what GC moved.
    pub media_bytes_written: u64,
    /// Media over host bytes.
    pub waf: f64,
}

/// Where a write goes: the handle and reclaim group it was placed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The reclaim unit handle.
    pub handle: u16,
    /// The reclaim group.
    pub reclaim_group: u16,
    /// Reclaim units the write filled (each moved the handle to a fresh one).
    pub new_units: u32,
}

/// Where GC may put a handle's moved data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GcStream {
    /// With the moved data of every initially isolated handle.
    SharedInitiallyIsolated,
    /// Only with this persistently isolated handle's own data.
    Handle(u16),
}

/// The drive's FDP state.
#[derive(Clone, Debug)]
pub struct Fdp {
    layout: FdpLayout,
    /// Bytes left in the RU each (handle, reclaim group) is filling.
    left_bytes: Vec<u64>,
    host_bytes: u64,
    media_bytes: u64,
    erased_bytes: u64,
    events: std::collections::VecDeque<Event>,
    event_counts: [u64; 4],
    /// Host and media bytes per reclaim unit handle.
    per_handle: Vec<Bytes>,
    /// Host and media bytes per namespace (0-based), grown as namespaces write.
    per_namespace: Vec<Bytes>,
}

/// Host and media bytes written through one handle or by one namespace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bytes {
    /// Bytes the host wrote (HBMW).
    pub host: u64,
    /// Bytes written to the media: the host's and what GC moved (MBMW).
    pub media: u64,
}

impl Bytes {
    /// Media over host bytes (1 before any host write).
    pub fn waf(&self) -> f64 {
        if self.host == 0 {
            1.0
        } else {
            self.media as f64 / self.host as f64
        }
    }
}

impl Fdp {
    /// Every handle at the start of an empty reclaim unit in every group.
    pub fn new(layout: FdpLayout) -> Result<Fdp, ConfigError> {
        layout.validate("fdp")?;
        let slots = layout.handles.len() * layout.reclaim_groups as usize;
        let handles = layout.handles.len();
        Ok(Fdp {
            left_bytes: vec![layout.ru_bytes; slots],
            layout,
            host_bytes: 0,
            media_bytes: 0,
            erased_bytes: 0,
            events: Default::default(),
            event_counts: [0; 4],
            per_handle: vec![Bytes::default(); handles],
            per_namespace: Vec::new(),
        })
    }

    /// The layout.
    pub fn layout(&self) -> &FdpLayout {
        &self.layout
    }

    fn slot(&self, handle: u16, rg: u16) -> usize {
        handle as usize * self.layout.reclaim_groups as usize + rg as usize
    }

    fn log(&mut self, e: Event) {
        self.event_counts[e.kind as usize] += 1;
        if self.events.len() == EVENT_LOG_CAPACITY {
            self.events.pop_front();
        }
        self.events.push_back(e);
    }

    /// (placement handle, reclaim group) of `pid` in namespace `ns` (0-based), if valid.
    pub fn parse(&self, ns: usize, pid: u16) -> Option<(u16, u16)> {
        let phs = self.placement_handles(ns)?;
        let rg_bits = self.layout.rg_bits();
        let (rg, ph) = if rg_bits == 0 {
            (0, pid)
        } else {
            (pid >> (16 - rg_bits), pid & ((1u16 << (16 - rg_bits)) - 1))
        };
        (rg < self.layout.reclaim_groups && (ph as usize) < phs).then_some((ph, rg))
    }

    /// How many placement handles namespace `ns` has (`None`: no such namespace). With
    /// no namespace list every namespace has all the drive's handles.
    fn placement_handles(&self, ns: usize) -> Option<usize> {
        if self.layout.namespaces.is_empty() {
            Some(self.layout.handles.len())
        } else {
            self.layout.namespaces.get(ns).map(Vec::len)
        }
    }

    /// The reclaim unit handle behind placement handle `ph` of namespace `ns`.
    fn handle_of(&self, ns: usize, ph: u16) -> u16 {
        if self.layout.namespaces.is_empty() {
            ph
        } else {
            self.layout
                .namespaces
                .get(ns)
                .map_or(0, |phs| phs[ph as usize])
        }
    }

    /// The handle and reclaim group the writes of namespace `ns` (0-based) with
    /// placement identifier `pid` go to (`None`: no identifier, placement handle 0 of
    /// group 0). An invalid identifier goes there too and is logged: call this once per
    /// command, as a drive checks the command's identifier once.
    pub fn resolve(&mut self, ns: usize, pid: Option<u16>) -> (u16, u16) {
        let (ph, rg) = match pid {
            None => (0, 0),
            Some(p) => self.parse(ns, p).unwrap_or_else(|| {
                self.log(Event {
                    kind: EventKind::InvalidPlacementIdentifier,
                    pid: p,
                    nsid: ns as u32 + 1,
                    reclaim_group: 0,
                    handle: 0,
                });
                (0, 0)
            }),
        };
        (self.handle_of(ns, ph), rg)
    }

    /// `bytes` the host wrote through `handle` in `rg` for namespace `ns`: the
    /// statistics, and the reclaim units the write filled (each moved the handle on).
    pub fn host_written(&mut self, ns: usize, handle: u16, rg: u16, bytes: u64) -> u32 {
        self.host_bytes += bytes;
        self.media_bytes += bytes;
        let h = &mut self.per_handle[handle as usize];
        h.host += bytes;
        h.media += bytes;
        let n = self.namespace_mut(ns);
        n.host += bytes;
        n.media += bytes;
        let slot = self.slot(handle, rg);
        let mut rest = bytes;
        let mut new_units = 0;
        while rest >= self.left_bytes[slot] {
            rest -= self.left_bytes[slot];
            self.left_bytes[slot] = self.layout.ru_bytes;
            new_units += 1;
        }
        self.left_bytes[slot] -= rest;
        new_units
    }

    fn namespace_mut(&mut self, ns: usize) -> &mut Bytes {
        if ns >= self.per_namespace.len() {
            self.per_namespace.resize(ns + 1, Bytes::default());
        }
        &mut self.per_namespace[ns]
    }

    /// GC (or wear leveling) moved `bytes` that namespace `ns` wrote through `handle`:
    /// media bytes, charged to both.
    pub fn moved(&mut self, ns: usize, handle: u16, bytes: u64) {
        self.media_bytes += bytes;
        self.per_handle[handle as usize].media += bytes;
        self.namespace_mut(ns).media += bytes;
    }

    /// The drive moved the valid data of a reclaim unit of `handle` in `rg` (`handle`
    /// is [`MIXED_HANDLES`] for a unit holding several initially isolated handles' GC
    /// data): the "media reallocated" event.
    pub fn reallocated(&mut self, handle: u16, rg: u16) {
        self.log(Event {
            kind: EventKind::MediaReallocated,
            pid: 0,
            nsid: 0,
            reclaim_group: rg,
            handle,
        });
    }

    /// The drive moved `handle` in `rg` to a fresh reclaim unit on its own: logged when
    /// the unit was partly written.
    pub fn implicit_change(&mut self, handle: u16, rg: u16) {
        let slot = self.slot(handle, rg);
        if self.left_bytes[slot] != self.layout.ru_bytes {
            self.log(Event {
                kind: EventKind::ImplicitRuChange,
                pid: 0,
                nsid: 0,
                reclaim_group: rg,
                handle,
            });
            self.left_bytes[slot] = self.layout.ru_bytes;
        }
    }

    /// Host and media bytes per reclaim unit handle.
    pub fn per_handle(&self) -> &[Bytes] {
        &self.per_handle
    }

    /// Host and media bytes per namespace (0-based; namespaces that never wrote may be
    /// missing at the end).
    pub fn per_namespace(&self) -> &[Bytes] {
        &self.per_namespace
    }

    /// Events of `kind` so far (the log may have dropped some; this count has not).
    pub fn event_count(&self, kind: EventKind) -> u64 {
        self.event_counts[kind as usize]
    }

    /// The report's `fdp` section.
    pub fn report(&self) -> FdpReport {
        let row = |b: &Bytes| (b.host, b.media, b.waf());
        FdpReport {
            host_bytes_written: self.host_bytes,
            media_bytes_written: self.media_bytes,
            media_bytes_erased: self.erased_bytes,
            waf: self.waf(),
            handles: self
                .per_handle
                .iter()
                .zip(&self.layout.handles)
                .enumerate()
                .map(|(i, (b, iso))| {
                    let (host, media, waf) = row(b);
                    FdpUsage {
                        index: i as u32,
                        isolation: Some(*iso),
                        host_bytes_written: host,
                        media_bytes_written: media,
                        waf,
                    }
                })
                .collect(),
            namespaces: self
                .per_namespace
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let (host, media, waf) = row(b);
                    FdpUsage {
                        index: i as u32 + 1,
                        isolation: None,
                        host_bytes_written: host,
                        media_bytes_written: media,
                        waf,
                    }
                })
                .collect(),
            events: EventKind::ALL
                .iter()
                .map(|&k| (k.name().to_string(), self.event_counts[k as usize]))
                .collect(),
        }
    }

    /// A host write of `bytes` to namespace `ns` (0-based) with placement identifier
    /// `pid` (`None`: the write carried none, and goes through placement handle 0).
    pub fn place(&mut self, ns: usize, pid: Option<u16>, bytes: u64) -> Placement {
        let (handle, reclaim_group) = self.resolve(ns, pid);
        let new_units = self.host_written(ns, handle, reclaim_group, bytes);
        Placement {
            handle,
            reclaim_group,
            new_units,
        }
    }

    /// The host's Reclaim Unit Handle Update for `pid` in namespace `ns`: the handle
    /// moves to a fresh reclaim unit; a partly written one is logged. `false` when the
    /// identifier is invalid (the command fails; nothing changes).
    pub fn update_handle(&mut self, ns: usize, pid: u16) -> bool {
        let Some((ph, rg)) = self.parse(ns, pid) else {
            return false;
        };
        let handle = self.handle_of(ns, ph);
        let slot = self.slot(handle, rg);
        if self.left_bytes[slot] != self.layout.ru_bytes {
            self.log(Event {
                kind: EventKind::RuNotFullyWritten,
                pid,
                nsid: ns as u32 + 1,
                reclaim_group: rg,
                handle,
            });
            self.left_bytes[slot] = self.layout.ru_bytes;
        }
        true
    }

    /// Where GC may put `handle`'s moved data.
    pub fn gc_stream(&self, handle: u16) -> GcStream {
        match self.layout.handles[handle as usize] {
            Isolation::InitiallyIsolated => GcStream::SharedInitiallyIsolated,
            Isolation::PersistentlyIsolated => GcStream::Handle(handle),
        }
    }

    /// GC moved `bytes` of valid data out of a reclaim unit of `handle` in `rg`.
    pub fn gc_moved(&mut self, handle: u16, rg: u16, bytes: u64) {
        self.moved(0, handle, bytes);
        if bytes > 0 {
            self.reallocated(handle, rg);
        }
    }

    /// The drive erased `bytes` of erase blocks.
    pub fn erased(&mut self, bytes: u64) {
        self.erased_bytes += bytes;
    }

    /// Media bytes written over host bytes written (1 before any host write).
    pub fn waf(&self) -> f64 {
        if self.host_bytes == 0 {
            1.0
        } else {
            self.media_bytes as f64 / self.host_bytes as f64
        }
    }

    /// The event log, oldest first.
    pub fn events(&self) -> impl Iterator<Item = &Event> {
        self.events.iter()
    }

    /// The statistics and the event counts.
    pub fn counters(&self, out: &mut Counters) {
        out.set(&HOST_BYTES, self.host_bytes);
        out.set(&MEDIA_BYTES, self.media_bytes);
        out.set(&ERASED_BYTES, self.erased_bytes);
        for k in EventKind::ALL {
            out.set(k.counter(), self.event_counts[k as usize]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Isolation::*;

    fn layout(rgs: u16, handles: Vec<Isolation>, namespaces: Vec<Vec<u16>>) -> FdpLayout {
        FdpLayout {
            reclaim_groups: rgs,
            ru_bytes: 1000,
            handles,
            namespaces,
        }
    }

    #[test]
    fn placement_identifiers_pack_the_group_above_the_handle() {
        let l = layout(4, vec![InitiallyIsolated; 3], vec![vec![0, 1, 2]]);
        let fdp = Fdp::new(l.clone()).unwrap();
        // 4 groups take the top 2 bits.
        assert_eq!(l.pid(3, 2), 0xC002);
        assert_eq!(fdp.parse(0, 0xC002), Some((2, 3)));
        assert_eq!(fdp.parse(0, 3), None, "no placement handle 3");
        assert_eq!(fdp.parse(1, 0), None, "no namespace 2");
        let one_group = Fdp::new(layout(1, vec![InitiallyIsolated], vec![vec![0]])).unwrap();
        assert_eq!(one_group.parse(0, 0), Some((0, 0)));
        assert_eq!(one_group.parse(0, 1), None);
    }

    #[test]
    fn writes_fill_reclaim_units_and_count_host_and_media_bytes() {
        let mut fdp = Fdp::new(layout(1, vec![InitiallyIsolated; 2], vec![vec![0, 1]])).unwrap();
        assert_eq!(fdp.place(0, Some(1), 600).new_units, 0);
        assert_eq!(fdp.place(0, Some(1), 600).new_units, 1);
        assert_eq!(fdp.place(0, Some(1), 1800).new_units, 2);
        assert_eq!(fdp.place(0, Some(0), 10).handle, 0);
        fdp.gc_moved(1, 0, 300);
        fdp.erased(2000);
        let mut c = Counters::new();
        fdp.counters(&mut c);
        assert_eq!(c.value(&HOST_BYTES), 3010);
        assert_eq!(c.value(&MEDIA_BYTES), 3310);
        assert_eq!(c.value(&ERASED_BYTES), 2000);
        assert!((fdp.waf() - 3310.0 / 3010.0).abs() < 1e-12);
        assert_eq!(c.value(EventKind::MediaReallocated.counter()), 1);
    }

    #[test]
    fn an_invalid_identifier_goes_through_handle_zero_and_is_logged() {
        let mut fdp = Fdp::new(layout(2, vec![InitiallyIsolated; 2], vec![vec![1, 0]])).unwrap();
        let p = fdp.place(0, Some(0x0005), 8);
        assert_eq!(
            (p.handle, p.reclaim_group),
            (1, 0),
            "placement handle 0 is RUH 1"
        );
        let e: Vec<_> = fdp.events().copied().collect();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].kind, EventKind::InvalidPlacementIdentifier);
        assert_eq!((e[0].pid, e[0].nsid), (5, 1));
        // No identifier at all is not an error.
        fdp.place(0, None, 8);
        assert_eq!(fdp.events().count(), 1);
    }

    #[test]
    fn a_handle_update_logs_a_partly_written_unit_only() {
        let mut fdp = Fdp::new(layout(1, vec![PersistentlyIsolated], vec![vec![0]])).unwrap();
        assert!(fdp.update_handle(0, 0));
        assert_eq!(
            fdp.events().count(),
            0,
            "an empty unit is not 'not fully written'"
        );
        fdp.place(0, Some(0), 999);
        assert!(fdp.update_handle(0, 0));
        assert_eq!(
            fdp.events().next().map(|e| e.kind),
            Some(EventKind::RuNotFullyWritten)
        );
        // The fresh unit takes a whole unit's bytes before the next change.
        assert_eq!(fdp.place(0, Some(0), 999).new_units, 0);
        assert!(!fdp.update_handle(0, 7));
    }

    #[test]
    fn gc_keeps_persistently_isolated_data_apart() {
        let fdp = Fdp::new(layout(
            1,
            vec![InitiallyIsolated, PersistentlyIsolated, InitiallyIsolated],
            vec![vec![0, 1, 2]],
        ))
        .unwrap();
        assert_eq!(fdp.gc_stream(0), GcStream::SharedInitiallyIsolated);
        assert_eq!(fdp.gc_stream(2), GcStream::SharedInitiallyIsolated);
        assert_eq!(fdp.gc_stream(1), GcStream::Handle(1));
    }

    #[test]
    fn the_event_log_keeps_the_latest_and_counts_all() {
        let mut fdp = Fdp::new(layout(1, vec![InitiallyIsolated], vec![vec![0]])).unwrap();
        for i in 0..100u16 {
            fdp.place(0, Some(1000 + i), 1);
        }
        assert_eq!(fdp.events().count(), EVENT_LOG_CAPACITY);
        assert_eq!(fdp.events().next().map(|e| e.pid), Some(1000 + 100 - 64));
        let mut c = Counters::new();
        fdp.counters(&mut c);
        assert_eq!(
            c.value(EventKind::InvalidPlacementIdentifier.counter()),
            100
        );
    }

    #[test]
    fn statistics_are_kept_per_handle_and_namespace() {
        let mut fdp = Fdp::new(layout(
            1,
            vec![InitiallyIsolated, PersistentlyIsolated],
            vec![],
        ))
        .unwrap();
        // No namespace list: every namespace has every handle, in order.
        assert_eq!(fdp.resolve(2, Some(1)), (1, 0));
        assert_eq!(fdp.resolve(2, Some(2)), (0, 0), "invalid: handle 0");
        assert_eq!(fdp.event_count(EventKind::InvalidPlacementIdentifier), 1);
        fdp.host_written(2, 1, 0, 100);
        fdp.host_written(0, 0, 0, 50);
        fdp.moved(2, 1, 30);
        let r = fdp.report();
        assert_eq!((r.host_bytes_written, r.media_bytes_written), (150, 180));
        assert_eq!(r.handles[1].host_bytes_written, 100);
        assert_eq!(r.handles[1].media_bytes_written, 130);
        assert!((r.handles[1].waf - 1.3).abs() < 1e-12);
        assert_eq!(r.handles[0].waf, 1.0);
        assert_eq!(r.namespaces.len(), 3);
        assert_eq!(r.namespaces[2].index, 3, "NSID");
        assert_eq!(r.namespaces[2].media_bytes_written, 130);
        assert_eq!(r.namespaces[1].host_bytes_written, 0);
        // The drive moving both handles on: two partly written units, then none.
        fdp.implicit_change(1, 0);
        fdp.implicit_change(0, 0);
        fdp.implicit_change(1, 0);
        assert_eq!(fdp.event_count(EventKind::ImplicitRuChange), 2);
        assert_eq!(fdp.report().events["implicit_ru_change"], 2);
    }

    #[test]
    fn layouts_are_checked_with_the_key_named() {
        let cases = [
            (
                layout(0, vec![InitiallyIsolated], vec![vec![0]]),
                "f.reclaim_groups",
            ),
            (layout(1, vec![], vec![]), "f.handles"),
            (
                layout(1, vec![InitiallyIsolated], vec![vec![]]),
                "f.namespaces[0]",
            ),
            (
                layout(1, vec![InitiallyIsolated], vec![vec![0], vec![1]]),
                "f.namespaces[1]",
            ),
        ];
        for (l, key) in cases {
            assert_eq!(l.validate("f").unwrap_err().key(), Some(key));
        }
        let mut l = layout(1, vec![InitiallyIsolated], vec![vec![0]]);
        l.ru_bytes = 0;
        assert_eq!(l.validate("f").unwrap_err().key(), Some("f.ru_size"));
    }
}
