//! The device: device queue → (write-buffer stage) → page operations → FTL → NAND →
//! time model, one path for every command.
//!
//! [`Device::exec`] performs a dispatched command: it splits the request into pages,
//! lets the write buffer (when there is one) take or serve them, hands the rest to the
//! FTL (read-modify-write of partial pages, trims of whole pages), then asks the time
//! model when the flash work ends and the host link when the data has crossed.

use super::SimError;
use super::stage::{BufferStage, BufferStats};
use crate::buffer::WriteBuffer;
use crate::config::{Config, Design, ResolvedDevice, TimingMode};
use crate::ftl::layout::Placement;
use crate::ftl::{Ftl, FtlError, ZoneCommand, ZoneReply, build_ftl};
use crate::host::{Dispatched, Ncq, QueuedCommand};
use crate::nand::{Cause, Lpn, Nand};
use crate::timing::{
    Calendar, CountModel, FOLD_IDLE_NS, FormulaCosts, FullModel, Model, PlaceCtx, TimeModel, Timing,
};
use crate::workload::{IoRequest, OpKind};

/// A built device: NAND array, FTL, optional write buffer and time model.
pub struct Device {
    /// Resolved parameters.
    pub resolved: ResolvedDevice,
    /// The flash array.
    pub nand: Nand,
    /// The FTL.
    pub ftl: Box<dyn Ftl>,
    /// Full or counting time model.
    pub(super) time: Model,
    /// Page size in bytes, as a divider (a shift for power-of-two pages).
    pub(super) page: crate::util::SizeDiv,
    /// The host link (writes' data in, reads' data out).
    link: Calendar,
    /// Host-link time of one whole page.
    link_page_ns: u64,
    /// Pages per management block when by-address placement rewrites whole blocks (those
    /// a command merges with old data are rewritten one at a time), else 1.
    serial_units: u32,
    /// A read's pages as (data ready, bytes for the host), for the link transfer.
    read_pages: Vec<(u64, u64)>,
    /// Which of them flash supplies, in order.
    read_flash: Vec<u32>,
    /// Host-side page counters.
    pub host: HostCounters,
    /// Commands waiting for dispatch.
    pub(super) ncq: Ncq,
    /// The write-buffer stage, when configured.
    pub(super) buffer: Option<Box<BufferStage>>,
    /// When the controller's command path is free (`device.controller_command_ns`).
    ctrl_free_ns: u64,
    /// Background GC (`ftl.gc_schedule = "background"`): collect in idle time.
    idle_gc: bool,
    /// When the last flash work placed so far ends (the idle detection of background GC).
    flash_busy_until_ns: u64,
    /// The FTL has zones (`ftl/zoned.rs`): writes go through its zone checks.
    zoned: bool,
    /// Per namespace, the placement identifier of its writes that carry none
    /// (`[[namespace]] placement`); empty when no namespace sets one.
    ns_placement: Vec<Option<u16>>,
    /// Zone commands refused because the FTL has no zones (Invalid Command Opcode).
    invalid_zone_commands: u64,
    /// The LBA (logical page) the last completed Zone Append wrote, as its completion
    /// carries it.
    last_append_lba: Option<u64>,
    /// The Report Zones commands performed and what each returned.
    zone_reports: Vec<crate::report::ZoneReportCommand>,
    /// Host pages written by each namespace, with two or more (`[[namespace]]`; the
    /// flash array counts their programs, `Nand::attribute_programs`); else empty.
    ns_write_pages: Vec<u64>,
    /// Each namespace's end (exclusive), in logical pages of the device, with two or
    /// more; else empty. A namespace's Report Zones lists its own zones only.
    ns_end_pages: Vec<u64>,
}

/// Counts host write `req` of `pages` pages, for the device and for its namespace.
#[inline]
fn count_write(host: &mut HostCounters, ns_pages: &mut [u64], req: &IoRequest, pages: u64) {
    host.write_pages += pages;
    host.write_bytes += req.size_bytes;
    if let Some(p) = ns_pages.get_mut(req.namespace as usize) {
        *p += pages;
    }
}

/// Page counters kept by the host side of the simulator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostCounters {
    /// Pages read.
    pub read_pages: u64,
    /// Pages written.
    pub write_pages: u64,
    /// Pages trimmed.
    pub trim_pages: u64,
    /// Reads of unmapped pages.
    pub unmapped_read_pages: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
}

impl HostCounters {
    pub(super) fn since(&self, e: &HostCounters) -> HostCounters {
        HostCounters {
            read_pages: self.read_pages - e.read_pages,
            write_pages: self.write_pages - e.write_pages,
            trim_pages: self.trim_pages - e.trim_pages,
            unmapped_read_pages: self.unmapped_read_pages - e.unmapped_read_pages,
            read_bytes: self.read_bytes - e.read_bytes,
            write_bytes: self.write_bytes - e.write_bytes,
        }
    }
}

/// The time model a design asks for (full or counting), over its physical geometry.
pub fn time_model(design: &Design) -> Model {
    let resolved = &design.device;
    match design.config.timing.mode {
        TimingMode::Full => Model::Full(FullModel::new(
            Timing::new(&resolved.geometry, resolved.timing)
                .with_superblock(design.superblock.clone())
                .with_suspend(design.config.ftl.suspend_params()),
        )),
        TimingMode::Count => Model::Count(CountModel::new(
            resolved.formula,
            resolved.timing.pages_per_program,
        )),
    }
}

/// What a restart's recovery did ([`Device::mount`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Pages whose OOB area the mount scan read (every physical page).
    pub pages_scanned: u64,
    /// Of those, programmed ones.
    pub programmed_pages: u64,
    /// Programmed pages after a gap in an in-order block, ignored.
    pub pages_ignored: u64,
    /// Wall-clock time of the scan and the FTL's rebuild.
    pub recovery_ns: u64,
}

fn data_req(tag: HostTag, op: OpKind, offset_bytes: u64, size_bytes: u64) -> IoRequest {
    IoRequest::new(op, offset_bytes, size_bytes)
        .in_namespace(tag.namespace)
        .with_placement(tag.placement)
}

/// Who a command with data comes from, as NVMe carries it beside the addresses: the
/// namespace (whose slice the offset already lies in: the caller translated it) and the
/// FDP placement identifier of a write. The default is namespace 0 without a directive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostTag {
    /// The namespace index (0 = the first, or the only one).
    pub namespace: u32,
    /// The FDP placement identifier of a write; `None`: no directive.
    pub placement: Option<u16>,
}

/// The error for a request that ends past the device's last byte (out of line: the host
/// loop inlines [`Device::queue`]).
#[cold]
fn past_the_end(req: &IoRequest, capacity: u64) -> SimError {
    SimError::Config(format!(
        "request at byte {} of {} bytes ends past the device's {capacity} bytes",
        req.offset_bytes, req.size_bytes
    ))
}

/// A zoned drive's write or append takes its whole payload into DRAM (no buffer: the
/// pages are programmed before the command completes). Only with page payloads.
fn admit_payload(nand: &mut Nand) {
    if let Some(d) = nand.data_mut() {
        d.admit_all();
    }
}

/// A refused zoned write's payload (pages `first..last`) leaves DRAM: it was never
/// programmed and must not be read back.
fn drop_payload(nand: &mut Nand, first: u64, last: u64) {
    if let Some(d) = nand.data_mut() {
        for lpn in first..last {
            d.unstage(lpn as u32);
        }
    }
}

/// The flash side of an unbuffered write of pages `first..last` (timed or not): the
/// untouched sectors of a partly written first or last page come from the old page
/// (read-modify-write), then the whole range goes to the FTL as one command.
fn write_through(
    ftl: &mut dyn Ftl,
    nand: &mut Nand,
    first: u64,
    last: u64,
    head_partial: bool,
    tail_partial: bool,
) -> Result<(), FtlError> {
    let head = head_partial.then_some(first);
    let tail = (tail_partial && head != Some(last - 1)).then_some(last - 1);
    if let Some(d) = nand.data_mut() {
        d.admit_all();
    }
    for lpn in [head, tail].into_iter().flatten() {
        if let Some(old) = ftl.lookup(Lpn(lpn as u32), nand) {
            nand.read(old, Cause::Rmw);
        }
    }
    ftl.write_range(Lpn(first as u32), (last - first) as u32, nand)
}

/// Data-ready time of a read page served by the write buffer, until the DRAM copy's end
/// is known.
const HIT: u64 = u64::MAX;

impl Device {
    /// Builds the device `cfg` describes.
    pub fn new(cfg: &Config) -> Result<Device, SimError> {
        Device::build(&cfg.validate_device()?)
    }

    /// Builds the device of a validated design.
    pub fn build(design: &Design) -> Result<Device, SimError> {
        let cfg = &design.config;
        let resolved = design.device.clone();
        let geo = resolved.geometry;
        // Block-mapped FTLs with a management block of k erase blocks run on a virtual
        // geometry of superblocks; the timing model places their pages physically.
        let superblock = design.superblock.clone();
        let ftl_geo = design.ftl_geometry;
        // FDP: each namespace's placement-handle list goes to the drive's FDP layout.
        let ns_handles = crate::config::namespace::fdp_placement(&cfg.namespaces, &cfg.ftl.fdp)?;
        let ftl = if ns_handles.is_empty() {
            build_ftl(&cfg.ftl, &ftl_geo, resolved.logical_pages, cfg.seed)?
        } else {
            let mut with_lists = cfg.ftl.clone();
            with_lists.fdp.namespace_handles = ns_handles;
            build_ftl(&with_lists, &ftl_geo, resolved.logical_pages, cfg.seed)?
        };
        let ns_placement: Vec<Option<u16>> = if cfg.namespaces.iter().any(|n| n.placement.is_some())
        {
            cfg.namespaces.iter().map(|n| n.placement).collect()
        } else {
            Vec::new()
        };
        let mut nand = Nand::new(
            ftl_geo,
            resolved.endurance_cycles,
            resolved.track_write_seq,
            ftl.programs_in_order(),
        );
        if let Some(sb) = &superblock {
            nand.set_blocks_per_erase(sb.blocks());
        }
        let serial_units = if cfg.ftl.placement == Placement::ByAddress
            && cfg.ftl.name == crate::ftl::FtlKind::Page
        {
            design.mgmt_block_pages
        } else {
            1
        };
        let zoned = ftl.zones().is_some();
        if zoned && resolved.buffer.is_some() {
            return Err(SimError::Config(
                "ftl.name = \"zoned\" takes no write buffer: a buffer reorders writes off the \
                 zones' write pointers (set buffer.size = 0)"
                    .into(),
            ));
        }
        if cfg.ftl.fdp.enabled
            && cfg.buffer.name == crate::buffer::BufferKind::Bplru
            && cfg.buffer.bplru_padding
            && resolved.buffer.is_some()
        {
            // Padding rewrites pages the buffer does not hold, so it has no placement
            // identifier for them: written under the evicted block's, they could move
            // data into another handle's reclaim unit.
            return Err(SimError::Config(
                "ftl.fdp.enabled with buffer.name = \"bplru\" needs buffer.bplru_padding = \
                 false: padding rewrites pages whose placement identifier the buffer does \
                 not hold"
                    .into(),
            ));
        }
        let time = time_model(design);
        let page_bytes = geo.page_size_bytes as u64;
        // Two or more namespaces: their write amplification is measured, each program
        // counted for the namespace whose logical page it holds (nand/owners.rs).
        let (ns_write_pages, ns_end_pages) = if cfg.namespaces.len() >= 2 {
            let slices =
                crate::config::namespace::slices(cfg, resolved.logical_pages * page_bytes)?;
            let ends: Vec<u64> = slices
                .iter()
                .map(|s| (s.base_bytes + s.size_bytes) / page_bytes)
                .collect();
            nand.attribute_programs(ends.iter().map(|&e| e as u32).collect());
            (vec![0; slices.len()], ends)
        } else {
            (Vec::new(), Vec::new())
        };
        let buffer = resolved.buffer.map(|shape| {
            Box::new(BufferStage::new(
                &cfg.buffer,
                shape,
                page_bytes,
                &nand,
                ftl.rewrite_unit_pages(),
                cfg.ftl.fdp.enabled,
            ))
        });
        nand.set_logging(time.needs_op_log());
        Ok(Device {
            page: crate::util::SizeDiv::new(page_bytes),
            link_page_ns: (page_bytes as f64 * resolved.link_ns_per_byte) as u64,
            resolved,
            nand,
            ftl,
            time,
            link: Calendar::default(),
            serial_units,
            read_pages: Vec::new(),
            read_flash: Vec::new(),
            host: HostCounters::default(),
            ncq: Ncq::new(cfg.host.qd as usize, cfg.host.dispatch),
            buffer,
            ctrl_free_ns: 0,
            idle_gc: cfg.ftl.gc_schedule == crate::ftl::gc::GcSchedule::Background,
            flash_busy_until_ns: 0,
            zoned,
            ns_placement,
            invalid_zone_commands: 0,
            last_append_lba: None,
            zone_reports: Vec::new(),
            ns_write_pages,
            ns_end_pages,
        })
    }

    /// An exact copy of the drive's whole state (flash, FTL, write buffer, time model,
    /// queue, counters and the FTL's random streams), so that a measurement run from the
    /// copy does exactly what it would have done on this drive: several measurements can
    /// start from one preconditioned state (`sim::Prepared`). `None` when the flash holds
    /// page payloads ([`Nand::try_clone`]).
    pub fn try_clone(&self) -> Option<Device> {
        // Destructured so that a field added later must be copied here too.
        let Device {
            resolved,
            nand,
            ftl,
            time,
            page,
            link,
            link_page_ns,
            serial_units,
            read_pages,
            read_flash,
            host,
            ncq,
            buffer,
            ctrl_free_ns,
            idle_gc,
            flash_busy_until_ns,
            zoned,
            ns_placement,
            invalid_zone_commands,
            last_append_lba,
            zone_reports,
            ns_write_pages,
            ns_end_pages,
        } = self;
        Some(Device {
            resolved: resolved.clone(),
            nand: nand.try_clone()?,
            ftl: ftl.clone(),
            time: time.clone(),
            page: *page,
            link: link.clone(),
            link_page_ns: *link_page_ns,
            serial_units: *serial_units,
            read_pages: read_pages.clone(),
            read_flash: read_flash.clone(),
            host: *host,
            ncq: ncq.clone(),
            buffer: buffer.clone(),
            ctrl_free_ns: *ctrl_free_ns,
            idle_gc: *idle_gc,
            flash_busy_until_ns: *flash_busy_until_ns,
            zoned: *zoned,
            ns_placement: ns_placement.clone(),
            invalid_zone_commands: *invalid_zone_commands,
            last_append_lba: *last_append_lba,
            zone_reports: zone_reports.clone(),
            ns_write_pages: ns_write_pages.clone(),
            ns_end_pages: ns_end_pages.clone(),
        })
    }

    /// The Report Zones commands performed so far, with what each returned.
    pub fn zone_reports(&self) -> &[crate::report::ZoneReportCommand] {
        &self.zone_reports
    }

    /// Host pages written so far by each namespace (empty below two namespaces).
    pub fn namespace_write_pages(&self) -> &[u64] {
        &self.ns_write_pages
    }

    /// The LBA (logical page) the last performed Zone Append wrote: what its completion
    /// carries (`None` before any, or when the last append was refused).
    pub fn last_append_lba(&self) -> Option<u64> {
        self.last_append_lba
    }

    /// Zone commands refused because the drive has no zones (Invalid Command Opcode).
    pub fn invalid_zone_commands(&self) -> u64 {
        self.invalid_zone_commands
    }

    /// Page size in bytes.
    pub fn page_bytes(&self) -> u64 {
        self.page.get()
    }

    /// Logical capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.resolved.logical_pages * self.page.get()
    }

    /// Formula costs in use.
    pub fn formula(&self) -> &FormulaCosts {
        &self.resolved.formula
    }

    /// Writes page `lpn` outside any timing (preconditioning): a one-page host write
    /// ([`Device::write_untimed_bytes`]).
    pub fn write_untimed(&mut self, lpn: u64) -> Result<(), FtlError> {
        let ps = self.page.get();
        self.write_untimed_bytes(lpn * ps, ps)
    }

    /// Writes `size_bytes` at `offset_bytes` outside any timing (preconditioning, aging):
    /// the flash operations of an unbuffered host write of that range, read-modify-write
    /// included ([`write_through`], the path [`Device::submit`] takes), so an aged
    /// device is one the measured path could have produced. The write buffer is passed
    /// by: the state is that of a drive whose host wrote through it (FUA writes).
    pub fn write_untimed_bytes(
        &mut self,
        offset_bytes: u64,
        size_bytes: u64,
    ) -> Result<(), FtlError> {
        let ps = self.page;
        let end = offset_bytes + size_bytes;
        let (first, last) = (ps.div(offset_bytes), ps.div_ceil(end));
        if first < last {
            write_through(
                &mut *self.ftl,
                &mut self.nand,
                first,
                last,
                !ps.divides(offset_bytes),
                !ps.divides(end),
            )?;
        }
        if self.time.needs_op_log() {
            self.nand.drain_log();
        }
        Ok(())
    }

    /// Builds the device of `design` over flash contents `data` left by an earlier run
    /// (a restart after shutdown or power loss): the NAND is mounted from the stored
    /// pages, tags and erase counts and the FTL rebuilds its mapping from them
    /// ([`crate::ftl::Ftl::recover`]); no RAM state of the earlier run is used. The
    /// design must track write sequence numbers (`device.track_write_seq`).
    pub fn mount(
        design: &Design,
        data: crate::nand::FlashData,
    ) -> Result<(Device, Recovery), SimError> {
        let mut dev = Device::build(design)?;
        if !dev.nand.tracks_seq() {
            return Err(SimError::Config(
                "recovery needs device.track_write_seq = true (OOB sequence numbers)".into(),
            ));
        }
        let start = std::time::Instant::now();
        let (mut nand, tags, pages_ignored) = Nand::mount(
            *dev.nand.geometry(),
            dev.resolved.endurance_cycles,
            dev.nand.in_order(),
            data,
        );
        if let Some(sb) = &design.superblock {
            nand.set_blocks_per_erase(sb.blocks());
        }
        nand.set_logging(dev.time.needs_op_log());
        dev.nand = nand;
        dev.ftl
            .recover(&mut dev.nand, &tags)
            .map_err(|e| SimError::Config(e.to_string()))?;
        let pages_scanned = tags.len() as u64;
        let programmed_pages = tags.iter().flatten().count() as u64;
        Ok((
            dev,
            Recovery {
                pages_scanned,
                programmed_pages,
                pages_ignored,
                recovery_ns: start.elapsed().as_nanos() as u64,
            },
        ))
    }

    /// Whether the NAND holds page payloads.
    pub fn holds_data(&self) -> bool {
        self.nand.data().is_some()
    }

    /// What a read of page `lpn` returns now, into `out` (one page): the write buffer's
    /// copy, else the flash page the FTL maps it to, else zeros. No flash operation is
    /// counted (the timed read is [`Device::submit`]).
    pub fn page_payload(&self, lpn: u64, out: &mut [u8]) {
        let data = self.nand.data().expect("the device holds data");
        if let Some(p) = data.staged(lpn as u32) {
            out.copy_from_slice(p);
        } else if let Some(ppn) = self.ftl.lookup(Lpn(lpn as u32), &self.nand) {
            data.read(ppn.0, out);
        } else {
            out.fill(0);
        }
    }

    /// Performs a host write of `bytes` at `offset_bytes`, issued at `issue_ns`, through
    /// the same path as [`Device::submit`], with its data: each page's payload (merged
    /// with the page's current bytes when only part of it is written) enters controller
    /// DRAM when the write path takes the page and stays there until the FTL programs it. Returns the completion time.
    pub fn write_data(
        &mut self,
        offset_bytes: u64,
        bytes: &[u8],
        issue_ns: u64,
    ) -> Result<u64, SimError> {
        self.write_data_as(HostTag::default(), offset_bytes, bytes, issue_ns)
    }

    /// [`Device::write_data`] for the namespace and placement of `tag` (`offset_bytes` is
    /// a device byte: the namespace's slice already added).
    pub fn write_data_as(
        &mut self,
        tag: HostTag,
        offset_bytes: u64,
        bytes: &[u8],
        issue_ns: u64,
    ) -> Result<u64, SimError> {
        let ps = self.page.get();
        let end = offset_bytes + bytes.len() as u64;
        if end > self.capacity_bytes() || bytes.is_empty() {
            return self.submit(
                &data_req(tag, OpKind::Write, offset_bytes, bytes.len() as u64),
                issue_ns,
            );
        }
        let first = self.page.div(offset_bytes);
        let last = self.page.div_ceil(end);
        for lpn in first..last {
            let page_start = lpn * ps;
            let lo = offset_bytes.max(page_start);
            let hi = end.min(page_start + ps);
            let src = &bytes[(lo - offset_bytes) as usize..(hi - offset_bytes) as usize];
            // A whole page is copied once; only a partial one starts from the old data.
            let page = if hi - lo == ps {
                Box::from(src)
            } else {
                let mut page = vec![0u8; ps as usize].into_boxed_slice();
                self.page_payload(lpn, &mut page);
                page[(lo - page_start) as usize..(hi - page_start) as usize].copy_from_slice(src);
                page
            };
            self.nand
                .data_mut()
                .expect("the device holds data")
                .pend(lpn as u32, page);
        }
        self.submit(
            &data_req(tag, OpKind::Write, offset_bytes, bytes.len() as u64),
            issue_ns,
        )
    }

    /// Performs a Zone Append of `bytes` (whole pages) to the zone starting at
    /// `zone_start_bytes`, with its data: the controller puts the payload at the zone's
    /// write pointer, which the completion reports. Returns the completion time and the
    /// first logical block written (`None` when the drive refused the append, or is not
    /// zoned).
    pub fn append_data(
        &mut self,
        zone_start_bytes: u64,
        bytes: &[u8],
        issue_ns: u64,
    ) -> Result<(u64, Option<u64>), SimError> {
        let ps = self.page.get();
        let req = IoRequest::new(OpKind::ZoneAppend, zone_start_bytes, bytes.len() as u64);
        let wp = self.ftl.zones().and_then(|z| {
            z.zone_of(self.page.div(zone_start_bytes))
                .ok()
                .map(|i| z.descriptor(i).write_pointer)
        });
        if let Some(wp) = wp
            && self.page.divides(bytes.len() as u64)
            && self.nand.data().is_some()
        {
            let d = self.nand.data_mut().expect("checked");
            for (i, c) in bytes.chunks(ps as usize).enumerate() {
                d.pend((wp + i as u64) as u32, Box::from(c));
            }
        }
        let done = self.submit(&req, issue_ns)?;
        Ok((done, self.last_append_lba))
    }

    /// Performs a host read of `out.len()` bytes at `offset_bytes`, issued at `issue_ns`
    /// ([`Device::submit`]), and fills `out` with the data. Returns the completion time.
    pub fn read_data(
        &mut self,
        offset_bytes: u64,
        out: &mut [u8],
        issue_ns: u64,
    ) -> Result<u64, SimError> {
        self.read_data_as(HostTag::default(), offset_bytes, out, issue_ns)
    }

    /// [`Device::read_data`] for the namespace of `tag` (`offset_bytes` a device byte).
    pub fn read_data_as(
        &mut self,
        tag: HostTag,
        offset_bytes: u64,
        out: &mut [u8],
        issue_ns: u64,
    ) -> Result<u64, SimError> {
        let done = self.submit(
            &data_req(tag, OpKind::Read, offset_bytes, out.len() as u64),
            issue_ns,
        )?;
        let ps = self.page.get();
        let end = offset_bytes + out.len() as u64;
        let mut page = vec![0u8; ps as usize];
        for lpn in self.page.div(offset_bytes)..self.page.div_ceil(end) {
            let page_start = lpn * ps;
            let lo = offset_bytes.max(page_start);
            let hi = end.min(page_start + ps);
            self.page_payload(lpn, &mut page);
            out[(lo - offset_bytes) as usize..(hi - offset_bytes) as usize]
                .copy_from_slice(&page[(lo - page_start) as usize..(hi - page_start) as usize]);
        }
        Ok(done)
    }

    #[inline]
    fn link_ns(&self, bytes: u64) -> u64 {
        if bytes == self.page.get() {
            self.link_page_ns
        } else {
            (bytes as f64 * self.resolved.link_ns_per_byte) as u64
        }
    }

    /// Performs `req`, issued at `issue_ns`, through the device queue (queued and
    /// dispatched at once); returns its completion time.
    pub fn submit(&mut self, req: &IoRequest, issue_ns: u64) -> Result<u64, SimError> {
        self.queue(req, issue_ns, issue_ns)?;
        let d = self.dispatch()?.expect("a command was just queued");
        Ok(d.done_ns)
    }

    /// Whether a write buffer is configured.
    pub fn has_buffer(&self) -> bool {
        self.buffer.is_some()
    }

    /// The write buffer's counters.
    pub fn buffer_stats(&self) -> Option<BufferStats> {
        self.buffer.as_ref().map(|b| b.stats)
    }

    /// The write buffer's policy.
    pub fn buffer_policy(&self) -> Option<&dyn WriteBuffer> {
        self.buffer.as_deref().map(|b| &*b.policy)
    }

    /// When the device can take the next command: the buffer's front end serves one at a
    /// time; without a buffer every command is taken at once (0).
    pub fn front_free_ns(&self) -> u64 {
        self.buffer.as_ref().map_or(0, |b| b.free_ns)
    }

    /// Commands waiting in the device queue.
    pub fn queued_commands(&self) -> usize {
        self.ncq.len()
    }

    /// The oldest waiting command.
    pub fn oldest_queued(&self) -> Option<&QueuedCommand> {
        self.ncq.front()
    }

    /// The newest waiting command.
    pub fn newest_queued(&self) -> Option<&QueuedCommand> {
        self.ncq.back()
    }

    /// Commands the device took ahead of an older one ([`crate::host::DispatchOrder`]).
    pub fn reordered_commands(&self) -> u64 {
        self.ncq.reordered()
    }

    /// Sequence number of the host write that a read of `lpn` returns now (from the
    /// buffer or from flash); `None` when it holds no data. Needs write-sequence tracking.
    pub fn peek_version(&self, lpn: u32) -> Option<u32> {
        if let Some(v) = self
            .buffer
            .as_ref()
            .and_then(|b| b.versions.as_ref())
            .and_then(|m| m.get(lpn))
        {
            return Some(v);
        }
        self.ftl
            .lookup(Lpn(lpn), &self.nand)
            .map(|p| self.nand.oob(p).seq)
    }

    /// Hints that `req` is the next command: its first page's map entry and buffer slot
    /// can be fetched while the current one runs.
    #[inline]
    pub fn prefetch_next(&self, req: &IoRequest) {
        let lpn = Lpn(self.page.div(req.offset_bytes) as u32);
        self.ftl.prefetch_next(lpn, &self.nand);
        // A replay's device queue is mostly empty (commands arrive apart), so the
        // dispatch-time prefetch of the next queued command rarely fires: the host's
        // lookahead fetches the buffer's index entries too, first and last page (a
        // command may span two index groups).
        if let Some(b) = &self.buffer {
            b.policy.prefetch(lpn);
            b.policy.prefetch(self.last_lpn(req));
        }
    }

    /// Hints that `req` comes a few commands from now ([`crate::ftl::PREFETCH_AHEAD`]).
    #[inline]
    pub fn prefetch_early(&self, req: &IoRequest) {
        let lpn = Lpn(self.page.div(req.offset_bytes) as u32);
        self.ftl.prefetch_early(lpn);
        if let Some(b) = &self.buffer {
            b.policy.prefetch_early(lpn);
            b.policy.prefetch_early(self.last_lpn(req));
        }
    }

    /// Last page `req` touches (its first for an empty request).
    #[inline]
    fn last_lpn(&self, req: &IoRequest) -> Lpn {
        let end = (req.offset_bytes + req.size_bytes).max(req.offset_bytes + 1);
        Lpn((self.page.div(end - 1)) as u32)
    }

    /// Puts `req` in the device queue: it arrived at the host at `arrival_ns` and entered
    /// the device at `issue_ns`. The buffer learns of the pages it will reference.
    #[inline(always)]
    pub fn queue(
        &mut self,
        req: &IoRequest,
        arrival_ns: u64,
        issue_ns: u64,
    ) -> Result<(), SimError> {
        let end_bytes = req.offset_bytes.saturating_add(req.size_bytes);
        let capacity = self.capacity_bytes();
        if end_bytes > capacity {
            return Err(past_the_end(req, capacity));
        }
        let (first_lpn, pages) = if req.op == OpKind::Flush {
            (0, 0)
        } else {
            let first = self.page.div(req.offset_bytes);
            (first as u32, (self.page.div_ceil(end_bytes) - first) as u32)
        };
        if let Some(b) = &mut self.buffer
            && matches!(req.op, OpKind::Read | OpKind::Write)
        {
            b.policy.queued(Lpn(first_lpn), pages);
        }
        self.ncq.push(QueuedCommand {
            req: *req,
            arrival_ns,
            issue_ns,
            first_lpn,
            pages,
        });
        Ok(())
    }

    /// Takes the next command from the device queue and performs it, no earlier than its
    /// issue time and, with a buffer, than the front end is free. `None` when the queue
    /// is empty.
    #[inline(always)]
    pub fn dispatch(&mut self) -> Result<Option<Dispatched>, SimError> {
        let cmd = match &mut self.buffer {
            None => self.ncq.pop(|_| false),
            Some(b) => {
                let policy = &b.policy;
                let cmd = self.ncq.pop(|l| policy.contains(Lpn(l)));
                if let Some(c) = &cmd {
                    if matches!(c.req.op, OpKind::Read | OpKind::Write) {
                        b.policy.dispatched(Lpn(c.first_lpn), c.pages);
                    }
                    // The next command's pages (first and last: it may span two
                    // groups of the policy's index) and, one level shallower, those
                    // of the command after it.
                    if let Some(next) = self.ncq.front() {
                        b.policy.prefetch(Lpn(next.first_lpn));
                        if next.pages > 1 {
                            b.policy.prefetch(Lpn(next.first_lpn + next.pages - 1));
                        }
                    }
                    if let Some(after) = self.ncq.get(1) {
                        b.policy.prefetch_early(Lpn(after.first_lpn));
                        if after.pages > 1 {
                            b.policy
                                .prefetch_early(Lpn(after.first_lpn + after.pages - 1));
                        }
                    }
                }
                cmd
            }
        };
        let Some(cmd) = cmd else {
            return Ok(None);
        };
        // The controller's command path takes commands one at a time as they arrive (a
        // pipeline stage ahead of the buffer's front end, overlapping its work), and
        // every command pays the fixed protocol latency on top.
        let mut ready_ns = cmd.issue_ns;
        let per_cmd = self.resolved.controller_command_ns;
        if per_cmd > 0 {
            ready_ns = ready_ns.max(self.ctrl_free_ns) + per_cmd;
            self.ctrl_free_ns = ready_ns;
        }
        let t = self.front_free_ns().max(ready_ns);
        let done_ns = self.exec(&cmd, t)? + self.resolved.controller_latency_ns;
        let append_lba = if cmd.req.op == OpKind::ZoneAppend {
            self.last_append_lba
        } else {
            None
        };
        Ok(Some(Dispatched {
            cmd,
            dispatch_ns: t,
            done_ns,
            append_lba,
        }))
    }

    /// Writes every buffered page back (the end-of-run flush), starting at `now_ns`;
    /// returns when the last program completes.
    pub fn flush_buffer(&mut self, now_ns: u64) -> Result<u64, SimError> {
        let Some(b) = &mut self.buffer else {
            return Ok(now_ns);
        };
        self.time.begin(&self.nand);
        b.flush_all(&mut *self.ftl, &mut self.nand)?;
        let placed = self.time.place(
            &mut self.nand,
            PlaceCtx {
                start_ns: now_ns,
                serial_units: self.serial_units,
                read_pages: &mut [],
                read_flash: &[],
            },
        );
        self.flash_busy_until_ns = self.flash_busy_until_ns.max(placed.flash_done_ns);
        Ok(placed.flash_done_ns)
    }

    /// Background GC in the idle time before a command dispatched at `t`: the device
    /// counts as idle once no flash work has run for [`FOLD_IDLE_NS`] (the notion the
    /// SLC cache's folding uses); from then on the FTL collects one victim at a time,
    /// each step's operations placed from the start of the idle period (dies in
    /// parallel), until nothing is worth collecting or the work reaches `t`. A step
    /// that overruns `t` delays the command, as a started erase would on a drive.
    fn collect_idle(&mut self, t: u64) -> Result<(), SimError> {
        let idle_from = self.flash_busy_until_ns.saturating_add(FOLD_IDLE_NS);
        if idle_from >= t {
            return Ok(());
        }
        loop {
            self.time.begin(&self.nand);
            let more = self.ftl.collect_idle(&mut self.nand)?;
            let placed = self.time.place(
                &mut self.nand,
                PlaceCtx {
                    start_ns: idle_from,
                    serial_units: 1,
                    read_pages: &mut [],
                    read_flash: &[],
                },
            );
            self.flash_busy_until_ns = self.flash_busy_until_ns.max(placed.flash_done_ns);
            if !more || placed.flash_done_ns >= t {
                return Ok(());
            }
        }
    }

    /// Performs a dispatched command at `t`; returns its completion and, with a buffer,
    /// advances the front end's clock.
    fn exec(&mut self, cmd: &QueuedCommand, t: u64) -> Result<u64, SimError> {
        let ps = self.page;
        let req = &cmd.req;
        let end_bytes = req.offset_bytes + req.size_bytes;
        let first = cmd.first_lpn as u64;
        let last = first + cmd.pages as u64;
        let per_page_reads = self.time.per_page_reads();
        if self.idle_gc {
            self.collect_idle(t)?;
        }
        self.time.begin(&self.nand);
        self.ftl.begin_command();
        let ftl = &mut *self.ftl;
        let nand = &mut self.nand;
        // When the write's data has crossed the host link into the device.
        let mut ready_ns = t;
        // Pages served from DRAM (their copy costs the front end time).
        let mut dram_pages = 0u64;
        match req.op {
            OpKind::Write => {
                // Once per request, not per page: the FTL tags the pages that follow.
                // A write without an identifier takes its namespace's default, if any.
                let pid = req.placement.or_else(|| {
                    self.ns_placement
                        .get(req.namespace as usize)
                        .copied()
                        .flatten()
                });
                ftl.set_placement(req.namespace, pid);
                let link = (req.size_bytes as f64 * self.resolved.link_ns_per_byte) as u64;
                if link > 0 {
                    self.link.prune(t);
                    ready_ns = self.link.reserve(t, link) + link;
                }
                let head_partial = !ps.divides(req.offset_bytes);
                let tail_partial = !ps.divides(end_bytes);
                if self.zoned {
                    // The zones check the write before anything changes; a refused one
                    // writes no host data (and its payload, if any, leaves DRAM).
                    admit_payload(nand);
                    let r =
                        ftl.zone_command(ZoneCommand::Write, Lpn(first as u32), cmd.pages, nand)?;
                    if r == ZoneReply::Done {
                        count_write(&mut self.host, &mut self.ns_write_pages, req, last - first);
                    } else {
                        drop_payload(nand, first, last);
                    }
                } else {
                    match self.buffer.as_deref_mut() {
                        Some(b) => {
                            b.set_placement(req.namespace, pid);
                            let partial = |lpn: u64| {
                                (lpn == first && head_partial) || (lpn + 1 == last && tail_partial)
                            };
                            b.write(first, last, partial, ftl, nand)?;
                            dram_pages = last - first;
                        }
                        None => write_through(ftl, nand, first, last, head_partial, tail_partial)?,
                    }
                    count_write(&mut self.host, &mut self.ns_write_pages, req, last - first);
                }
            }
            OpKind::Read => {
                if per_page_reads {
                    self.read_pages.clear();
                    self.read_flash.clear();
                }
                for lpn in first..last {
                    let hit = self.buffer.as_deref_mut().is_some_and(|b| b.read(lpn));
                    if per_page_reads {
                        let bytes = end_bytes.min((lpn + 1) * ps.get())
                            - req.offset_bytes.max(lpn * ps.get());
                        self.read_pages.push((if hit { HIT } else { t }, bytes));
                    }
                    if hit {
                        dram_pages += 1;
                    } else if ftl.read(Lpn(lpn as u32), nand)?.is_none() {
                        self.host.unmapped_read_pages += 1;
                    } else if per_page_reads {
                        self.read_flash.push((lpn - first) as u32);
                    }
                }
                self.host.read_pages += last - first;
                self.host.read_bytes += req.size_bytes;
            }
            OpKind::Trim => {
                // Only whole pages can be discarded.
                let whole_first = ps.div_ceil(req.offset_bytes);
                let whole_last = ps.div(end_bytes);
                for lpn in whole_first..whole_last.max(whole_first) {
                    if let Some(b) = self.buffer.as_deref_mut() {
                        b.trim(lpn);
                    }
                    if let Some(d) = nand.data_mut() {
                        d.unstage(lpn as u32);
                    }
                    ftl.trim(Lpn(lpn as u32), nand)?;
                }
                self.host.trim_pages += whole_last.saturating_sub(whole_first);
            }
            OpKind::Flush => {
                if let Some(b) = self.buffer.as_deref_mut() {
                    b.host_flush(ftl, nand)?;
                }
            }
            // Zone Management Receive: the controller answers from its zone states, with
            // no flash work.
            OpKind::ZoneReport(code) => match ftl.zones_mut() {
                None => self.invalid_zone_commands += 1,
                Some(z) => {
                    // A namespace's report ends with its own last zone (its slice is a
                    // whole number of zones); one namespace's is the drive's.
                    let end = self.ns_end_pages.get(req.namespace as usize).copied();
                    if let Ok((f, r)) = z.report_zones_by_code(first, end, code, None) {
                        self.zone_reports.push(crate::report::ZoneReportCommand {
                            at_ns: t,
                            start_lba: first,
                            filter: f.name().into(),
                            zones_matching: r.zones_matching,
                            zones: r.descriptors.iter().map(Into::into).collect(),
                        });
                    }
                }
            },
            OpKind::ZoneAppend
            | OpKind::ZoneReset
            | OpKind::ZoneFinish
            | OpKind::ZoneOpen
            | OpKind::ZoneClose => {
                let zc = match req.op {
                    OpKind::ZoneAppend => ZoneCommand::Append,
                    OpKind::ZoneReset => ZoneCommand::Reset,
                    OpKind::ZoneFinish => ZoneCommand::Finish,
                    OpKind::ZoneOpen => ZoneCommand::Open,
                    _ => ZoneCommand::Close,
                };
                if zc == ZoneCommand::Append {
                    self.last_append_lba = None;
                    // An append's data crosses the link like a write's.
                    let link = (req.size_bytes as f64 * self.resolved.link_ns_per_byte) as u64;
                    if link > 0 {
                        self.link.prune(t);
                        ready_ns = self.link.reserve(t, link) + link;
                    }
                }
                if zc == ZoneCommand::Append {
                    admit_payload(nand);
                }
                let reply = ftl.zone_command(zc, Lpn(first as u32), cmd.pages, nand)?;
                if zc == ZoneCommand::Append
                    && let ZoneReply::Refused(_) = reply
                    && let Some(d) = nand.data_mut()
                {
                    // `append_data` staged the payload at the write pointer.
                    let wp = ftl.zones().map_or(first, |z| {
                        z.zone_of(first)
                            .map_or(first, |i| z.descriptor(i).write_pointer)
                    });
                    for lpn in wp..wp + cmd.pages as u64 {
                        d.unstage(lpn as u32);
                    }
                }
                match reply {
                    ZoneReply::Appended(lba) => {
                        self.last_append_lba = Some(lba);
                        count_write(&mut self.host, &mut self.ns_write_pages, req, last - first);
                    }
                    ZoneReply::NotZoned => self.invalid_zone_commands += 1,
                    ZoneReply::Done | ZoneReply::Refused(_) => {}
                }
            }
        }
        // Without a buffer a write's programs need its data, so its flash work starts
        // once the data has crossed the link; with one, the programs are of victims
        // already in DRAM and start at dispatch.
        let buffered = self.buffer.is_some();
        let placed = self.time.place(
            &mut self.nand,
            PlaceCtx {
                start_ns: if buffered { t } else { ready_ns },
                serial_units: self.serial_units,
                read_pages: &mut self.read_pages,
                read_flash: &self.read_flash,
            },
        );
        self.flash_busy_until_ns = self.flash_busy_until_ns.max(placed.flash_done_ns);
        let dram_ns = dram_pages * self.buffer.as_deref().map_or(0, |b| b.dram_ns_per_page);
        let (done, front_free) = match req.op {
            // A buffered write completes once its data is in DRAM, which needs its
            // victims' data to have left; an unbuffered one when its programs end.
            OpKind::Write if buffered => {
                let out_ns = self
                    .buffer
                    .as_deref_mut()
                    .map_or(placed.host_data_out_ns, |b| {
                        b.slot_free_ns(placed.host_data_out_ns)
                    });
                let d = ready_ns.max(out_ns.max(t) + dram_ns);
                (d, d)
            }
            OpKind::Write => (ready_ns.max(placed.flash_done_ns), t),
            OpKind::Read => {
                let hits_done = t + dram_ns;
                let mut d = hits_done.max(placed.flash_done_ns);
                if per_page_reads {
                    // Hits are ready after the DRAM copy, misses when their flash read
                    // ends; each page crosses the link as soon as it is ready.
                    for p in self.read_pages.iter_mut() {
                        if p.0 == HIT {
                            p.0 = hits_done;
                        }
                    }
                    d = d.max(self.send_read_pages(t));
                } else {
                    // One serial server: the data follow the whole request.
                    let link = self.link_ns(req.size_bytes);
                    if link > 0 {
                        self.link.prune(t);
                        d = self.link.reserve(d, link) + link;
                    }
                }
                (d, hits_done)
            }
            OpKind::Trim => (placed.flash_done_ns, t),
            OpKind::Flush => (placed.flash_done_ns, placed.host_data_out_ns),
            // An append completes when its programs end, as an unbuffered write; the
            // zone management actions when their programs (finish) or erases (reset) do.
            OpKind::ZoneAppend => (ready_ns.max(placed.flash_done_ns), t),
            OpKind::ZoneReset | OpKind::ZoneFinish | OpKind::ZoneOpen | OpKind::ZoneClose => {
                (placed.flash_done_ns, t)
            }
            // Nothing was placed: it completes at dispatch.
            OpKind::ZoneReport(_) => (placed.flash_done_ns.max(t), t),
        };
        if let Some(b) = self.buffer.as_deref_mut() {
            b.free_ns = front_free;
        }
        Ok(done)
    }

    /// Sends a read's pages (`read_pages`: data ready, bytes) to the host, each as soon
    /// as its data is ready, in order of readiness, so the transfer overlaps the flash
    /// reads as in an NVMe or SATA controller; returns when the last one has crossed
    /// (0 without a link).
    fn send_read_pages(&mut self, now_ns: u64) -> u64 {
        if self.resolved.link_ns_per_byte <= 0.0 {
            return 0;
        }
        if !self.read_pages.is_sorted_by_key(|&(ready, _)| ready) {
            self.read_pages.sort_by_key(|&(ready, _)| ready);
        }
        self.link.prune(now_ns);
        let mut done_ns = 0;
        for i in 0..self.read_pages.len() {
            let (ready, bytes) = self.read_pages[i];
            let link = self.link_ns(bytes);
            if link > 0 {
                done_ns = done_ns.max(self.link.reserve(ready, link) + link);
            }
        }
        done_ns
    }

    /// The boundary between preconditioning and the measured phase: the FTL's untimed
    /// hand-over ([`crate::ftl::Ftl::end_preconditioning`], e.g. DFTL's cold CMT), then
    /// every resource idle at time 0.
    pub fn start_measured_phase(&mut self) -> Result<(), FtlError> {
        self.ftl.end_preconditioning(&mut self.nand)?;
        if self.time.needs_op_log() {
            self.nand.drain_log();
        }
        self.reset_time(0);
        Ok(())
    }

    /// Idles every resource at `now_ns` and forgets busy-time accounting.
    pub fn reset_time(&mut self, now_ns: u64) {
        self.time.reset(now_ns);
        self.link.clear();
        self.ctrl_free_ns = now_ns;
        self.flash_busy_until_ns = now_ns;
    }
}
/// The host-side log layer drives the device through this trait (it sits below `sim`).
impl crate::host_log::LogDevice for Device {
    fn submit(&mut self, req: &IoRequest, issue_ns: u64) -> Result<u64, SimError> {
        Device::submit(self, req, issue_ns)
    }
    fn write_untimed_bytes(&mut self, offset_bytes: u64, size_bytes: u64) -> Result<(), FtlError> {
        Device::write_untimed_bytes(self, offset_bytes, size_bytes)
    }
    fn write_data(
        &mut self,
        offset_bytes: u64,
        bytes: &[u8],
        issue_ns: u64,
    ) -> Result<u64, SimError> {
        Device::write_data(self, offset_bytes, bytes, issue_ns)
    }
    fn read_data(
        &mut self,
        offset_bytes: u64,
        out: &mut [u8],
        issue_ns: u64,
    ) -> Result<u64, SimError> {
        Device::read_data(self, offset_bytes, out, issue_ns)
    }
    fn page_bytes(&self) -> u64 {
        Device::page_bytes(self)
    }
    fn page_payload(&self, lpn: u64, out: &mut [u8]) {
        Device::page_payload(self, lpn, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Precondition;
    use crate::sim::{RunOptions, run};
    use crate::units::Size;

    fn tiny() -> Config {
        let mut c = Config::default();
        c.device.capacity = Size(64 << 20);
        c.device.channels = 1;
        c.device.chips_per_channel = 1;
        c.device.dies_per_chip = 1;
        c.device.planes_per_die = 1;
        c.device.host_link_mb_s = 0.0;
        c.device.op_percent = 15.0;
        c.timing.mode = TimingMode::Count;
        c
    }

    fn req(op: OpKind, offset_bytes: u64, size_bytes: u64) -> IoRequest {
        IoRequest::new(op, offset_bytes, size_bytes)
    }

    #[test]
    fn partial_page_writes_read_modify_write_only_when_data_exists() {
        let mut dev = Device::new(&tiny()).unwrap();
        // 512 B into an empty page: nothing to merge with.
        dev.submit(&req(OpKind::Write, 512, 512), 0).unwrap();
        assert_eq!(dev.nand.counters().reads[Cause::Rmw as usize], 0);
        // Again: now the page holds data, so the other sectors are read first.
        dev.submit(&req(OpKind::Write, 1024, 512), 0).unwrap();
        assert_eq!(dev.nand.counters().reads[Cause::Rmw as usize], 1);
        // 8 KiB starting mid-page over pages 0..=2: first and last are partial, page 1
        // whole; only page 0 holds data.
        dev.submit(&req(OpKind::Write, 2048, 8192), 0).unwrap();
        assert_eq!(dev.nand.counters().reads[Cause::Rmw as usize], 2);
        assert_eq!(dev.host.write_pages, 1 + 1 + 3);
    }

    #[test]
    fn counting_mode_charges_the_formula_serially() {
        let c = tiny();
        let mut dev = Device::new(&c).unwrap();
        let f = *dev.formula();
        // Two 4 KiB writes issued at 0: the second waits for the first (serial device).
        let a = dev.submit(&req(OpKind::Write, 0, 4096), 0).unwrap();
        let b = dev.submit(&req(OpKind::Write, 4096, 4096), 0).unwrap();
        assert_eq!(a, f.program_ns);
        assert_eq!(b, 2 * f.program_ns);
        // A read of a written page costs Tr; of an unwritten one nothing.
        let r = dev.submit(&req(OpKind::Read, 0, 4096), b).unwrap();
        assert_eq!(r, b + f.read_ns);
        let u = dev.submit(&req(OpKind::Read, 1 << 20, 4096), r).unwrap();
        assert_eq!(u, r);
        assert_eq!(dev.host.unmapped_read_pages, 1);
    }

    #[test]
    fn trims_discard_whole_pages_only_and_requests_past_the_end_fail() {
        let mut dev = Device::new(&tiny()).unwrap();
        dev.submit(&req(OpKind::Write, 0, 3 * 4096), 0).unwrap();
        dev.submit(&req(OpKind::Trim, 100, 2 * 4096), 0).unwrap(); // covers page 1 only
        assert_eq!(dev.host.trim_pages, 1);
        assert!(dev.ftl.lookup(Lpn(0), &dev.nand).is_some());
        assert!(dev.ftl.lookup(Lpn(1), &dev.nand).is_none());
        assert!(dev.ftl.lookup(Lpn(2), &dev.nand).is_some());
        let end = dev.capacity_bytes();
        assert!(matches!(
            dev.submit(&req(OpKind::Read, end - 512, 1024), 0),
            Err(SimError::Config(_))
        ));
    }

    #[test]
    fn a_reads_pages_cross_the_host_link_as_each_flash_read_ends() {
        // One die: the two pages of an 8 KiB read come off flash one after the other, a
        // page read (tens of µs) apart. Over a 3.5 GB/s link a page takes ~1.2 µs, so the
        // first page's transfer is hidden behind the second's read and the request ends
        // one page transfer after its last flash read (not two).
        let read_at = |link_mb_s: f64| {
            let mut c = tiny();
            c.timing.mode = TimingMode::Full;
            c.device.host_link_mb_s = link_mb_s;
            let mut dev = Device::new(&c).unwrap();
            dev.submit(&req(OpKind::Write, 0, 8192), 0).unwrap();
            let t = 1_000_000_000;
            (dev.submit(&req(OpKind::Read, 0, 8192), t).unwrap() - t, dev)
        };
        let (flash_ns, _) = read_at(0.0);
        let (with_link_ns, dev) = read_at(3500.0);
        let page_link_ns = dev.link_ns(4096);
        assert!(page_link_ns > 0 && page_link_ns < dev.resolved.timing.read_ns);
        assert_eq!(with_link_ns, flash_ns + page_link_ns);
    }

    #[test]
    fn closed_loop_queue_depth_bounds_outstanding_requests() {
        // qd 1 on one die: each 4 KiB read waits for the previous one, so IOPS = 1/Tr.
        let mut c = tiny();
        c.timing.mode = TimingMode::Full;
        c.precondition = Precondition::Fill;
        c.workload.kind = crate::workload::synth::SynthKind::RandomRead;
        c.workload.requests = Some(1000);
        c.host.qd = 1;
        let r = run(&c, RunOptions::default()).unwrap().report;
        let d = c.resolve_device().unwrap();
        let per_read = d.timing.read_ns + d.timing.transfer_ns;
        assert!(r.latency_ns.max as f64 / per_read as f64 >= 0.99);
        assert!(
            (r.iops - 1e9 / per_read as f64).abs() / r.iops < 0.01,
            "{}",
            r.iops
        );
        assert_eq!(r.measured_phase, "after preconditioning");
        assert_eq!(r.host_write_pages, 0);
    }

    fn buffered(mut c: Config, kind: crate::buffer::BufferKind, pages: u64) -> Config {
        c.buffer.name = kind;
        c.buffer.size = Some(Size(pages * 4096));
        // 4096 B at 4096 MB/s: one page costs exactly 1 µs of DRAM copy.
        c.buffer.dram_mb_s = 4096.0;
        c
    }

    #[test]
    fn buffered_writes_finish_in_dram_and_misses_wait_for_their_victims() {
        use crate::buffer::BufferKind;
        // Counting mode (one serial flash server), no host link, a 2-page LRU buffer.
        let c = buffered(tiny(), BufferKind::Lru, 2);
        let mut dev = Device::new(&c).unwrap();
        let f = *dev.formula();
        let w = |l: u64| req(OpKind::Write, l * 4096, 4096);
        // Page 0 into a free slot: 1 µs of DRAM copy. Page 1, issued at 0 too, waits for
        // the front end (free at 1 µs).
        assert_eq!(dev.submit(&w(0), 0).unwrap(), 1_000);
        assert_eq!(dev.submit(&w(1), 0).unwrap(), 2_000);
        // A hit on page 0: DRAM only, nothing reaches flash.
        assert_eq!(dev.submit(&w(0), 0).unwrap(), 3_000);
        assert_eq!(dev.nand.counters().total_programs(), 0);
        // Page 2 misses on a full buffer: the LRU page, 1, is programmed first (serial
        // flash: Tw from 3 µs) and the new data is copied into its slot afterwards.
        assert_eq!(dev.submit(&w(2), 0).unwrap(), 3_000 + f.program_ns + 1_000);
        assert_eq!(dev.nand.counters().total_programs(), 1);
        // A read hit costs the DRAM copy; a read of page 1 goes to flash (Tr).
        let t = dev.front_free_ns();
        assert_eq!(
            dev.submit(&req(OpKind::Read, 0, 4096), t).unwrap(),
            t + 1_000
        );
        let t = dev.front_free_ns();
        assert_eq!(
            dev.submit(&req(OpKind::Read, 4096, 4096), t).unwrap(),
            t.max(3_000 + f.program_ns) + f.read_ns
        );
        let st = dev.buffer_stats().unwrap();
        assert_eq!(
            (st.write_hit_pages, st.read_hit_pages, st.flushed_pages),
            (1, 1, 1)
        );
        // 4 host page writes, 1 flash program so far: device WA 0.25.
        assert_eq!(dev.host.write_pages, 4);
    }

    #[test]
    fn a_victim_frees_its_slot_when_its_data_has_crossed_the_bus() {
        use crate::buffer::BufferKind;
        // Full timing, one die: the miss waits for the victim's transfer to the die, not
        // for the program itself.
        let mut c = buffered(tiny(), BufferKind::Lru, 1);
        c.timing.mode = TimingMode::Full;
        let mut dev = Device::new(&c).unwrap();
        let d = c.resolve_device().unwrap().timing;
        let w = |l: u64| req(OpKind::Write, l * 4096, 4096);
        assert_eq!(dev.submit(&w(0), 0).unwrap(), 1_000);
        let t = dev.front_free_ns();
        assert_eq!(dev.submit(&w(1), t).unwrap(), t + d.transfer_ns + 1_000);
        // The next miss must wait for the die: its victim's transfer starts when the
        // first program ends.
        let t2 = dev.front_free_ns();
        assert_eq!(
            dev.submit(&w(2), t2).unwrap(),
            t + d.transfer_ns + d.program_ns + d.transfer_ns + 1_000
        );
    }

    #[test]
    fn with_a_buffer_commands_wait_in_the_queue_closed_loop_keeps_it_full() {
        use crate::buffer::BufferKind;
        // Sequential 4 KiB writes that all fit the buffer: every command costs 1 µs of
        // front-end time. Closed loop at queue depth 4: in steady state each request
        // waits for the 3 ahead of it, so its latency is 4 µs.
        let mut c = buffered(tiny(), BufferKind::Lru, 4096);
        c.workload.kind = crate::workload::synth::SynthKind::SeqWrite;
        c.workload.requests = Some(2_000);
        c.buffer.flush_at_end = false;
        c.host.qd = 4;
        let r = run(&c, RunOptions::default()).unwrap().report;
        assert!(
            (r.latency_ns.p50 as f64 - 4_000.0).abs() < 50.0,
            "{:?}",
            r.latency_ns
        );
        assert_eq!(r.buffer.buffer_resident_pages, 2_000);
        assert_eq!(r.nand_program_pages, 0);
        assert_eq!(r.write_amplification, 0.0);
        // Open loop with arrivals far apart: nobody waits, latency is the service time.
        c.workload.mean_gap_ns = Some(100_000);
        let r = run(&c, RunOptions::default()).unwrap().report;
        assert!(
            (r.latency_ns.p50 as f64 - 1_000.0).abs() < 20.0,
            "{:?}",
            r.latency_ns
        );
    }

    #[test]
    fn device_write_amplification_drops_below_one_and_ftl_wa_is_kept_apart() {
        use crate::buffer::BufferKind;
        // Overwrites of a 256-page hot set through a 512-page buffer: almost every write
        // hits; the end-of-run flush writes each hot page once.
        let mut c = buffered(tiny(), BufferKind::Qlru, 512);
        c.workload.kind = crate::workload::synth::SynthKind::RandomWrite;
        c.workload.span = Some(Size(256 * 4096));
        c.workload.requests = Some(20_000);
        let r = run(&c, RunOptions::default()).unwrap().report;
        assert_eq!(r.buffer.buffer_flushed_pages, 256);
        assert_eq!(r.buffer.buffer_end_flush_pages, 256);
        assert_eq!(r.buffer.ftl_write_pages, 256);
        assert!(r.write_amplification < 0.02, "{}", r.write_amplification);
        assert_eq!(r.buffer.write_amplification_ftl, 1.0);
        assert_eq!(r.buffer.buffer_write_hit_pages, 20_000 - 256);
        assert_eq!(r.buffer.buffer_programs_saved, 20_000 - 256);
        // Without the buffer the two WAs coincide.
        c.buffer.name = BufferKind::None;
        let r = run(&c, RunOptions::default()).unwrap().report;
        assert_eq!(r.buffer.buffer_policy, "none");
        assert_eq!(r.write_amplification, r.buffer.write_amplification_ftl);
        assert!(r.write_amplification >= 1.0);
    }
}
