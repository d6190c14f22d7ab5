//! Power-loss testing in process (`ssdlab crashtest`): random writes, trims, flushes and
//! reads on a device holding data, the power cut at a random flash operation, a restart
//! that mounts the flash and lets the FTL recover, and checks against a model of what
//! the host was promised.
//!
//! ```text
//! every page write carries (lpn, version) and a pattern derived from them
//! per page: history = versions ever sent; floor = version a completed FLUSH (or FUA)
//!           covered and no trim followed
//! cut:      the store takes only the first B flash operations of the segment (B random);
//!           DRAM (the write buffer) is lost unless PLP; the command in flight is unacked
//! restart:  Device::mount (tags scan + Ftl::recover); (c) FTL and NAND invariants
//! check:    (b) a page reads zeros or a version in its history with an intact pattern,
//!               else torn_or_foreign
//!           (a) a version older than the floor (or zeros under a floor) is acked_writes_lost;
//!               an acknowledged trim lifts the floor (the host gave the data up)
//! ```
//! Between cuts, reads compare with the last acknowledged version (live mismatches: a
//! data-path bug shows up even in an FTL without recovery).
//!
//! A zoned drive gets zone commands instead (writes at the write pointer, appends,
//! finishes, resets, reads of one zone) and one more check after each mount: every
//! zone's write pointer and state are those the acknowledged commands (and the one in
//! flight, part way or not at all) allow, and pages above a zone's data read zeros.

use super::FlashData;
use crate::config::Design;
use crate::host::SimError;
use crate::sim::Device;
use crate::workload::{IoRequest, OpKind};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

/// How the test runs.
#[derive(Clone, Copy, Debug)]
pub struct CrashOptions {
    /// Power cuts (and restarts).
    pub cuts: u64,
    /// Seed of everything random.
    pub seed: u64,
    /// Power-loss protection: the write buffer reaches flash at a cut.
    pub plp: bool,
    /// Host commands between two cuts, at most.
    pub max_ops_per_cut: u32,
}

/// What one design's test found (the keys of `ssdlab crashtest --json`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct CrashReport {
    /// The design (`ftl+buffer`).
    pub design: String,
    /// Cuts performed and recovered from.
    pub cuts: u64,
    /// Pages whose acknowledged and flushed (or FUA) data was gone after a restart.
    pub acked_writes_lost: u64,
    /// Pages that read back bytes never written there (torn or another page's data).
    pub torn_or_foreign_reads: u64,
    /// Reads between cuts that did not return the last acknowledged data.
    pub live_read_mismatches: u64,
    /// Restarts after which the FTL's or NAND's invariants failed.
    pub invariant_failures: u64,
    /// Mean wall-clock time of a recovery, ns.
    pub recovery_ns_mean: f64,
    /// Mean pages whose OOB the mount scan read.
    pub scanned_pages_mean: f64,
    /// Host commands performed.
    pub host_commands: u64,
    /// Block erases over the whole test (GC, merges, folds: the data was moved).
    pub erases: u64,
    /// A zoned drive only: zones whose write pointer or state after a restart is not
    /// one the host's acknowledged commands (and the one in flight) allow, appends whose
    /// completion named another address, and pages above a zone's data that read
    /// anything but zeros.
    pub zone_mismatches: u64,
    /// Why the test stopped early (the FTL cannot recover, ran out of space…).
    pub error: Option<String>,
}

impl CrashReport {
    /// Whether nothing was lost, torn or inconsistent and the test ran to the end.
    pub fn passed(&self) -> bool {
        self.acked_writes_lost == 0
            && self.torn_or_foreign_reads == 0
            && self.live_read_mismatches == 0
            && self.invariant_failures == 0
            && self.zone_mismatches == 0
            && self.error.is_none()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Last {
    Write(u64),
    Trim,
}

#[derive(Clone, Debug, Default)]
struct PageModel {
    /// Versions ever sent to this page (0 = zeros is always allowed).
    history: Vec<u64>,
    /// Last acknowledged event.
    last: Option<Last>,
    /// Version that must survive (or be superseded); `None` after a trim.
    floor: Option<u64>,
}

/// The bytes of version `v` of page `lpn`.
fn pattern(lpn: u64, v: u64, out: &mut [u8]) {
    out[0..8].copy_from_slice(&lpn.to_le_bytes());
    out[8..16].copy_from_slice(&v.to_le_bytes());
    let mut x = v.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ lpn;
    for c in out[16..].chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let b = x.to_le_bytes();
        c.copy_from_slice(&b[..c.len()]);
    }
}

/// Which version `page` (read from `lpn`) holds: `Some(0)` zeros, `Some(v)` an intact
/// version, `None` anything else.
fn identify(lpn: u64, page: &[u8], scratch: &mut [u8]) -> Option<u64> {
    if page.iter().all(|&b| b == 0) {
        return Some(0);
    }
    let l = u64::from_le_bytes(page[0..8].try_into().unwrap());
    let v = u64::from_le_bytes(page[8..16].try_into().unwrap());
    if l != lpn || v == 0 {
        return None;
    }
    pattern(lpn, v, scratch);
    (scratch == page).then_some(v)
}

fn req(op: OpKind, offset_bytes: u64, size_bytes: u64) -> IoRequest {
    IoRequest::new(op, offset_bytes, size_bytes)
}

/// The flash pages whose tags name host page `lpn`: (ppn, seq, program_seq), for the
/// debug output.
fn copies(tags: &[Option<super::StoredTag>], lpn: u64, _ps: u64) -> Vec<(usize, u32, u32)> {
    tags.iter()
        .enumerate()
        .filter_map(|(i, t)| {
            t.as_ref()
                .filter(|t| !t.meta && t.lpn as u64 == lpn)
                .map(|t| (i, t.seq, t.program_seq))
        })
        .collect()
}

/// Debug trace: pages the host was promised (a floor) with no copy left on flash.
fn trace_missing(dev: &Device, model: &[PageModel], cut: u64, op: u32) {
    let tags = dev.nand.data().expect("attached").store().scan_tags();
    let mut on_flash = vec![false; model.len()];
    for t in tags.iter().flatten() {
        if !t.meta && (t.lpn as usize) < model.len() {
            on_flash[t.lpn as usize] = true;
        }
    }
    for (l, m) in model.iter().enumerate() {
        if m.floor.is_some() && !on_flash[l] {
            eprintln!("trace: cut {cut} before op {op}: lpn {l} has no copy on flash");
        }
    }
}

fn is_cut(dev: &Device) -> bool {
    dev.nand.data().is_some_and(|d| d.is_cut())
}

/// Runs the test on `design` (which must track write sequence numbers).
pub fn run(design: &Design, name: &str, opts: &CrashOptions) -> CrashReport {
    run_with_progress(design, name, opts, &|| {})
}

/// [`run`], calling `tick` after every cut (the CLI's progress bar).
pub fn run_with_progress(
    design: &Design,
    name: &str,
    opts: &CrashOptions,
    tick: &(dyn Fn() + Sync),
) -> CrashReport {
    let mut rep = CrashReport {
        design: name.into(),
        ..Default::default()
    };
    if let Err(e) = run_inner(design, opts, &mut rep, tick) {
        rep.error = Some(e.to_string());
    }
    rep
}

/// The host's side of the test: what it sent to each page, what it flushed, its clock
/// and its buffers.
struct Host {
    /// Page size, bytes.
    ps: u64,
    /// Logical pages of the device.
    pages: u64,
    model: Vec<PageModel>,
    /// Pages written since the last flush (not FUA).
    dirty: Vec<u32>,
    next_version: u64,
    /// Issue time of the next command, ns.
    t: u64,
    buf: Vec<u8>,
    scratch: Vec<u8>,
}

fn run_inner(
    design: &Design,
    opts: &CrashOptions,
    rep: &mut CrashReport,
    tick: &(dyn Fn() + Sync),
) -> Result<(), SimError> {
    let mut dev = Device::build(design)?;
    dev.nand
        .attach_data(FlashData::in_memory(dev.nand.geometry()));
    let ps = dev.nand.geometry().page_size_bytes as u64;
    let pages = dev.resolved.logical_pages;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(opts.seed);
    let mut host = Host {
        ps,
        pages,
        model: vec![PageModel::default(); pages as usize],
        dirty: Vec::new(),
        next_version: 1,
        t: 0,
        buf: Vec::new(),
        scratch: vec![0u8; ps as usize],
    };
    let mut zoned = dev.ftl.zones().map(|z| ZoneHost::new(z.layout()));
    let mut page = vec![0u8; ps as usize];
    let mut recovery_ns = 0u64;
    let mut scanned = 0u64;
    for _ in 0..opts.cuts {
        tick();
        let ops = rng.gen_range(1..=opts.max_ops_per_cut.max(1));
        if !opts.plp {
            let budget = rng.gen_range(0..ops as u64 * 12 + 1);
            dev.nand.data_mut().expect("attached").arm_cut(budget);
        }
        let trace = std::env::var_os("SSDLAB_CRASH_TRACE").is_some();
        for op in 0..ops {
            if trace {
                trace_missing(&dev, &host.model, rep.cuts, op);
            }
            let cut = match zoned.as_mut() {
                Some(zh) => zone_command(&mut dev, &mut host, zh, &mut rng, rep)?,
                None => host_command(&mut dev, &mut host, &mut rng, rep)?,
            };
            if cut {
                break;
            }
        }
        if trace {
            trace_missing(&dev, &host.model, rep.cuts, ops);
        }
        // The power goes.
        rep.erases += dev.nand.counters().total_erases();
        if opts.plp {
            dev.flush_buffer(host.t)?;
        }
        let mut data = dev.nand.take_data().expect("attached");
        data.lose_dram();
        data.disarm();
        let debug = std::env::var_os("SSDLAB_CRASH_DEBUG").is_some();
        // What flash held at the cut, to tell a page lost before the mount from one the
        // recovery lost (debug output only).
        let before = if debug {
            data.store().scan_tags()
        } else {
            Vec::new()
        };
        let (d, r) = Device::mount(design, data)?;
        dev = d;
        rep.cuts += 1;
        recovery_ns += r.recovery_ns;
        scanned += r.pages_scanned;
        // Kept current, so a design that stops early still reports its recoveries.
        rep.recovery_ns_mean = recovery_ns as f64 / rep.cuts as f64;
        rep.scanned_pages_mean = scanned as f64 / rep.cuts as f64;
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            dev.ftl.check_invariants(&dev.nand)
        }));
        if ok.is_err() {
            rep.invariant_failures += 1;
        }
        if let Some(zh) = zoned.as_mut() {
            check_zones_after_mount(&dev, &mut host, zh, rep);
        }
        check_after_mount(&dev, &mut host, rep, &before, debug, &mut page);
        if let Some(zh) = zoned.as_ref() {
            check_zeros_above_data(&dev, &mut host, zh, rep, &mut page);
        }
    }
    Ok(())
}

/// A zone command the power cut may have caught: it was never acknowledged, so the
/// zone may be found before it or after it (a write also part way).
#[derive(Clone, Copy, Debug)]
enum InFlight {
    /// A write or append of this many pages at the write pointer.
    Write(u64),
    Finish,
    Reset,
}

/// The host's view of a zoned drive: each zone's write pointer and the end of its host
/// data as the acknowledged commands left them (a finish moves the pointer to the
/// capacity, not the data's end).
struct ZoneHost {
    size: u64,
    cap: u64,
    active_limit: usize,
    wp: Vec<u64>,
    data_end: Vec<u64>,
    in_flight: Option<(usize, InFlight)>,
}

impl ZoneHost {
    fn new(l: &crate::zns::ZoneLayout) -> ZoneHost {
        let n = l.zones as usize;
        ZoneHost {
            size: l.zone_size_blocks,
            cap: l.zone_capacity_blocks,
            active_limit: if l.max_active == 0 {
                n
            } else {
                l.max_active as usize
            },
            wp: vec![0; n],
            data_end: vec![0; n],
            in_flight: None,
        }
    }

    fn is_active(&self, z: usize) -> bool {
        self.wp[z] > 0 && self.wp[z] < self.cap
    }
}

/// The device's write pointer of zone `z`, from its start.
fn device_wp(dev: &Device, z: usize, size: u64) -> (u64, crate::zns::ZoneState) {
    let d = dev.ftl.zones().expect("zoned").descriptor(z as u32);
    (d.write_pointer - z as u64 * size, d.state)
}

/// One random command on a zoned drive (a write at the write pointer, an append, a
/// finish, a reset or a read of one zone) and what it changes in the model once
/// acknowledged; `true` when the power was cut during it. A drive without a write
/// buffer (the only kind a zoned one is) programs a write before completing it, so an
/// acknowledged write is durable at once.
fn zone_command(
    dev: &mut Device,
    host: &mut Host,
    zh: &mut ZoneHost,
    rng: &mut Xoshiro256PlusPlus,
    rep: &mut CrashReport,
) -> Result<bool, SimError> {
    let ps = host.ps;
    host.t += 10_000;
    let t = host.t;
    rep.host_commands += 1;
    let zones = zh.wp.len();
    let active: Vec<usize> = (0..zones).filter(|&z| zh.is_active(z)).collect();
    // Mostly the zones already open, as a log-structured host writes; a new zone only
    // while the drive has an active resource left.
    let z = if !active.is_empty() && (active.len() >= zh.active_limit || rng.gen_bool(0.8)) {
        active[rng.gen_range(0..active.len())]
    } else {
        rng.gen_range(0..zones)
    };
    let start = z as u64 * zh.size;
    let wp = zh.wp[z];
    let roll = rng.gen_range(0..100);
    if roll < 65 && wp < zh.cap {
        // A write at the pointer, or (one in four) an append.
        let n = rng.gen_range(1..=8u64).min(zh.cap - wp);
        host.buf.resize((n * ps) as usize, 0);
        let v0 = host.next_version;
        host.next_version += n;
        for k in 0..n {
            let lpn = start + wp + k;
            pattern(
                lpn,
                v0 + k,
                &mut host.buf[(k * ps) as usize..((k + 1) * ps) as usize],
            );
            host.model[lpn as usize].history.push(v0 + k);
        }
        zh.in_flight = Some((z, InFlight::Write(n)));
        let append = rng.gen_range(0..4) == 0;
        let lba = if append {
            dev.append_data(start * ps, &host.buf, t)?.1
        } else {
            dev.write_data((start + wp) * ps, &host.buf, t)?;
            None
        };
        if is_cut(dev) {
            return Ok(true);
        }
        zh.in_flight = None;
        let (now, _) = device_wp(dev, z, zh.size);
        if now == wp {
            // Refused (the drive's active limit): nothing was written.
            return Ok(false);
        }
        if now != wp + n || (append && lba != Some(start + wp)) {
            rep.zone_mismatches += 1;
        }
        for k in 0..n {
            let m = &mut host.model[(start + wp + k) as usize];
            m.last = Some(Last::Write(v0 + k));
            m.floor = Some(v0 + k);
        }
        zh.wp[z] = wp + n;
        zh.data_end[z] = wp + n;
    } else if roll < 72 && zh.is_active(z) {
        zh.in_flight = Some((z, InFlight::Finish));
        dev.submit(&req(OpKind::ZoneFinish, start * ps, 0), t)?;
        if is_cut(dev) {
            return Ok(true);
        }
        zh.in_flight = None;
        zh.wp[z] = zh.cap;
        if device_wp(dev, z, zh.size).0 != zh.cap {
            rep.zone_mismatches += 1;
        }
    } else if roll < 82 && wp > 0 {
        zh.in_flight = Some((z, InFlight::Reset));
        dev.submit(&req(OpKind::ZoneReset, start * ps, 0), t)?;
        if is_cut(dev) {
            return Ok(true);
        }
        zh.in_flight = None;
        reset_model(host, zh, z);
        if device_wp(dev, z, zh.size).0 != 0 {
            rep.zone_mismatches += 1;
        }
    } else {
        // A read inside the zone: its data reads the last version, above it zeros.
        let k0 = rng.gen_range(0..zh.size);
        let n = rng.gen_range(1..=8u64).min(zh.size - k0);
        host.buf.resize((n * ps) as usize, 0);
        dev.read_data((start + k0) * ps, &mut host.buf, t)?;
        if is_cut(dev) {
            return Ok(true);
        }
        for k in k0..k0 + n {
            let lpn = start + k;
            let got = identify(
                lpn,
                &host.buf[((k - k0) * ps) as usize..((k - k0 + 1) * ps) as usize],
                &mut host.scratch,
            );
            let want = match host.model[lpn as usize].last {
                Some(Last::Write(v)) if k < zh.data_end[z] => Some(v),
                _ if k >= zh.data_end[z] => Some(0),
                _ => continue,
            };
            if got != want {
                rep.live_read_mismatches += 1;
            }
        }
    }
    Ok(false)
}

/// The host reset zone `z`: its data is given up.
fn reset_model(host: &mut Host, zh: &mut ZoneHost, z: usize) {
    let start = z as u64 * zh.size;
    for lpn in start..start + zh.cap {
        let m = &mut host.model[lpn as usize];
        m.last = Some(Last::Trim);
        m.floor = None;
    }
    zh.wp[z] = 0;
    zh.data_end[z] = 0;
}

/// After a mount: every zone's write pointer is where the acknowledged commands put it
/// (or, for the zone of the command in flight, where that command would have got to),
/// and its state follows from it (Empty at the start, Full at the capacity, else
/// Closed: open zones do not survive the power). The model then takes the device's
/// pointers.
fn check_zones_after_mount(
    dev: &Device,
    host: &mut Host,
    zh: &mut ZoneHost,
    rep: &mut CrashReport,
) {
    use crate::zns::ZoneState;
    let in_flight = zh.in_flight.take();
    for z in 0..zh.wp.len() {
        let (now, state) = device_wp(dev, z, zh.size);
        let wp = zh.wp[z];
        let flight = in_flight.filter(|&(fz, _)| fz == z).map(|(_, f)| f);
        let allowed = match flight {
            None => now == wp,
            Some(InFlight::Write(n)) => now >= wp && now <= wp + n,
            Some(InFlight::Finish) => now == wp || now == zh.cap,
            Some(InFlight::Reset) => now == wp || now == 0,
        };
        let want_state = match now {
            0 => ZoneState::Empty,
            w if w == zh.cap => ZoneState::Full,
            _ => ZoneState::Closed,
        };
        if !allowed || state != want_state {
            if std::env::var_os("SSDLAB_CRASH_DEBUG").is_some() {
                eprintln!(
                    "cut {}: zone {z} write pointer {now} ({}), host expected {wp} \
                     (in flight {flight:?})",
                    rep.cuts,
                    state.name()
                );
            }
            rep.zone_mismatches += 1;
        }
        match flight {
            Some(InFlight::Reset) if now == 0 => reset_model(host, zh, z),
            Some(InFlight::Write(_)) => {
                zh.wp[z] = now;
                zh.data_end[z] = now;
            }
            _ => zh.wp[z] = now,
        }
    }
}

/// After a mount: pages above a zone's host data read zeros.
fn check_zeros_above_data(
    dev: &Device,
    host: &mut Host,
    zh: &ZoneHost,
    rep: &mut CrashReport,
    page: &mut [u8],
) {
    for z in 0..zh.wp.len() {
        let start = z as u64 * zh.size;
        for k in zh.data_end[z]..zh.size {
            dev.page_payload(start + k, page);
            if identify(start + k, page, &mut host.scratch) != Some(0) {
                rep.zone_mismatches += 1;
            }
        }
    }
}

/// One random host command (write, trim, flush or read) and what it changes in the
/// model once acknowledged; `true` when the power was cut during it.
fn host_command(
    dev: &mut Device,
    host: &mut Host,
    rng: &mut Xoshiro256PlusPlus,
    rep: &mut CrashReport,
) -> Result<bool, SimError> {
    let (ps, pages) = (host.ps, host.pages);
    host.t += 10_000;
    let t = host.t;
    let roll = rng.gen_range(0..100);
    let n = rng.gen_range(1..=8u64).min(pages);
    let first = rng.gen_range(0..=pages - n);
    rep.host_commands += 1;
    if roll < 60 {
        // A write (one in ten with FUA).
        let fua = rng.gen_range(0..10) == 0;
        host.buf.resize((n * ps) as usize, 0);
        let v0 = host.next_version;
        host.next_version += n;
        for k in 0..n {
            pattern(
                first + k,
                v0 + k,
                &mut host.buf[(k * ps) as usize..((k + 1) * ps) as usize],
            );
            host.model[(first + k) as usize].history.push(v0 + k);
        }
        dev.write_data(first * ps, &host.buf, t)?;
        if fua && !is_cut(dev) {
            dev.submit(&req(OpKind::Flush, 0, 0), t)?;
        }
        if is_cut(dev) {
            return Ok(true);
        }
        for k in 0..n {
            let m = &mut host.model[(first + k) as usize];
            m.last = Some(Last::Write(v0 + k));
            if fua {
                m.floor = Some(v0 + k);
            } else {
                host.dirty.push((first + k) as u32);
            }
        }
    } else if roll < 70 {
        dev.submit(&req(OpKind::Trim, first * ps, n * ps), t)?;
        if is_cut(dev) {
            return Ok(true);
        }
        // The host discarded these pages: from now on any earlier version (or
        // zeros) is an acceptable answer until it writes them again.
        for k in first..first + n {
            let m = &mut host.model[k as usize];
            m.last = Some(Last::Trim);
            m.floor = None;
        }
    } else if roll < 78 {
        dev.submit(&req(OpKind::Flush, 0, 0), t)?;
        if is_cut(dev) {
            return Ok(true);
        }
        for &l in &host.dirty {
            let m = &mut host.model[l as usize];
            m.floor = match m.last {
                Some(Last::Write(v)) => Some(v),
                _ => None,
            };
        }
        host.dirty.clear();
    } else {
        host.buf.resize((n * ps) as usize, 0);
        dev.read_data(first * ps, &mut host.buf, t)?;
        if is_cut(dev) {
            return Ok(true);
        }
        for k in 0..n {
            let got = identify(
                first + k,
                &host.buf[(k * ps) as usize..((k + 1) * ps) as usize],
                &mut host.scratch,
            );
            if let Some(Last::Write(v)) = host.model[(first + k) as usize].last
                && got != Some(v)
            {
                rep.live_read_mismatches += 1;
            }
        }
    }
    Ok(false)
}

/// After a mount: what every page holds now, against what the host may expect of it;
/// the model then takes what the device holds as the new floor.
fn check_after_mount(
    dev: &Device,
    host: &mut Host,
    rep: &mut CrashReport,
    before: &[Option<super::StoredTag>],
    debug: bool,
    page: &mut [u8],
) {
    let ps = host.ps;
    for lpn in 0..host.pages {
        dev.page_payload(lpn, page);
        let m = &mut host.model[lpn as usize];
        let got = identify(lpn, page, &mut host.scratch);
        let known = got.is_some_and(|v| v == 0 || m.history.contains(&v));
        if !known {
            rep.torn_or_foreign_reads += 1;
            continue;
        }
        let v = got.expect("known");
        if m.floor.is_some_and(|f| v < f) {
            if debug {
                eprintln!(
                    "cut {}: lpn {lpn} reads version {v}, flushed {:?}, history {:?}; \
                     at the cut {:?}, after the mount {:?} (maps to {:?})",
                    rep.cuts,
                    m.floor,
                    m.history,
                    copies(before, lpn, ps),
                    copies(
                        &dev.nand.data().expect("attached").store().scan_tags(),
                        lpn,
                        ps
                    ),
                    dev.ftl.lookup(crate::nand::Lpn(lpn as u32), &dev.nand),
                );
            }
            rep.acked_writes_lost += 1;
        }
        // The device holds `v` now, on flash: it must stay (or be superseded).
        m.floor = (v > 0).then_some(v);
        m.last = Some(if v > 0 { Last::Write(v) } else { Last::Trim });
    }
    host.dirty.clear();
}
