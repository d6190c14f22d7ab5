//! A file-workload run: build the file system on the design's device, age it if asked,
//! perform every phase's file operations one at a time (an application thread issuing
//! system calls: each operation starts when it has arrived and the previous one has
//! completed), optionally remount at the end, and report with the same keys as a block
//! run ([`crate::sim`]'s report stage). Latency runs from an operation's arrival to its
//! completion; "requests" in the report are file operations.

use super::ext2::Ext2;
use super::fat::Fat;
use super::yaffs2::Yaffs2;
use super::{FileOp, FileOpKind, FileSystem, FsKind, workload};
use crate::config::{Design, Precondition};
use crate::host::SimError;
use crate::sim::report::{Baseline, Measured, PhaseAcc, WallClock, assemble};
use crate::sim::{RunOptions, RunOutput};
use crate::workload::OpKind;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::Arc;

/// Builds the file system a design names (formatted, empty).
pub fn build_fs(design: &Design) -> Result<Box<dyn FileSystem>, SimError> {
    Ok(match design.config.fs.name {
        FsKind::Yaffs2 => Box::new(Yaffs2::format(design)?),
        FsKind::Ext2 => Box::new(Ext2::mkfs(design)?),
        FsKind::Fat => Box::new(Fat::mkfs(design)?),
        FsKind::None => {
            return Err(SimError::Config(
                "no file system configured (fs.name = none)".into(),
            ));
        }
    })
}

/// Bytes a file system on this design can hold: the whole raw array for YAFFS2 (it has
/// no FTL and no over-provisioning), the logical capacity for a file system over an FTL.
pub fn capacity_bytes(design: &Design) -> u64 {
    let g = &design.device.geometry;
    match design.config.fs.name {
        FsKind::Yaffs2 => g.pages() * g.page_size_bytes as u64,
        _ => design.device.logical_pages * g.page_size_bytes as u64,
    }
}

/// The block operation a file operation is reported under (reads and writes have
/// their own latency figures; the rest count as other requests).
fn report_kind(k: FileOpKind) -> OpKind {
    match k {
        FileOpKind::Read => OpKind::Read,
        FileOpKind::Write => OpKind::Write,
        _ => OpKind::Flush,
    }
}

/// Ages the file system: one file filling 90% of the space the workload leaves
/// (`fill`), then for `steady` rounds of random overwrites of one chunk-sized record,
/// half the file per round, until a round's write amplification is within 1% of the
/// previous one's (at most 20 rounds). Untimed; returns notes for the report.
fn age(fs: &mut dyn FileSystem, design: &Design, footprint: u64) -> Result<Vec<String>, SimError> {
    let cfg = &design.config;
    let mut notes = Vec::new();
    if cfg.precondition == Precondition::None {
        return Ok(notes);
    }
    if cfg.precondition == Precondition::Random {
        return age_random(fs, design, footprint);
    }
    let record = design.device.geometry.page_size_bytes as u64;
    let cap = capacity_bytes(design);
    let bytes = ((cap.saturating_sub(footprint)) as f64 * 0.9) as u64 / record * record;
    if bytes == 0 {
        return Ok(notes);
    }
    let path: Arc<str> = "/aging.dat".into();
    fs.exec(&FileOp::new(FileOpKind::Create, &path, 0, 0), 0)?;
    let step = 1u64 << 20;
    let mut at = 0;
    while at < bytes {
        let n = step.min(bytes - at);
        fs.exec(&FileOp::new(FileOpKind::Write, &path, at, n), 0)?;
        at += n;
    }
    fs.exec(&FileOp::new(FileOpKind::Close, &path, 0, 0), 0)?;
    notes.push(format!(
        "aged: wrote /aging.dat, {bytes} bytes (90% of the space the workload leaves)"
    ));
    if cfg.precondition == Precondition::Steady {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed ^ 0x5eed_f111);
        let records = bytes / record;
        let round = (records / 2).max(1);
        let mut prev = f64::NAN;
        for r in 1..=20 {
            let nand0 = fs.device().nand().counters().total_programs();
            let host0 = fs.device().host().write_pages;
            for _ in 0..round {
                let off = rng.gen_range(0..records) * record;
                fs.exec(&FileOp::new(FileOpKind::Write, &path, off, record), 0)?;
            }
            let programs = fs.device().nand().counters().total_programs() - nand0;
            let writes = (fs.device().host().write_pages - host0).max(1);
            let wa = programs as f64 / writes as f64;
            let settled = (wa - prev).abs() <= 0.01 * prev;
            prev = wa;
            if settled || r == 20 {
                notes.push(format!(
                    "aged: {r} rounds of {round} random record overwrites; last round's write amplification {wa:.3}{}",
                    if settled { " (settled)" } else { " (not settled after 20 rounds)" }
                ));
                break;
            }
        }
    }
    notes.push("counters cover the measured phase only (after aging)".into());
    Ok(notes)
}

/// `precondition = "random"` at file level, the block path's aging seen through a file
/// system: from empty, `fill_percent` (default 100) of the *logical* capacity (the one an
/// FTL would export; YAFFS2 keeps the over-provisioned rest as its free space) in random
/// writes of `precondition_record` (default one page), aligned, over that space. An
/// offset that the workload's file will occupy (below `footprint`, where the block
/// workload's file lies) goes to `/aging-head.dat`, any other to `/aging.dat` (sparse
/// files: untouched records stay unwritten); the head file is deleted before the
/// workload, as the file's first write makes those block-level pages garbage.
fn age_random(
    fs: &mut dyn FileSystem,
    design: &Design,
    footprint: u64,
) -> Result<Vec<String>, SimError> {
    let cfg = &design.config;
    let page = design.device.geometry.page_size_bytes as u64;
    let logical = design.device.logical_pages * page;
    let record = cfg
        .precondition_record
        .map_or(page, |r| r.bytes())
        .min(logical);
    let slots = logical / record;
    let writes =
        (logical as f64 * cfg.fill_percent.unwrap_or(100.0) / 100.0 / record as f64).round() as u64;
    let head: Arc<str> = "/aging-head.dat".into();
    let rest: Arc<str> = "/aging.dat".into();
    for p in [&head, &rest] {
        fs.exec(&FileOp::new(FileOpKind::Create, p, 0, 0), 0)?;
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed ^ 0x5eed_f111);
    for _ in 0..writes {
        let off = rng.gen_range(0..slots) * record;
        let (p, at) = if off < footprint {
            (&head, off)
        } else {
            (&rest, off - footprint)
        };
        fs.exec(&FileOp::new(FileOpKind::Write, p, at, record), 0)?;
    }
    for p in [&head, &rest] {
        fs.exec(&FileOp::new(FileOpKind::Close, p, 0, 0), 0)?;
    }
    fs.exec(&FileOp::new(FileOpKind::Unlink, &head, 0, 0), 0)?;
    Ok(vec![
        format!(
            "aged: {writes} random writes of {record} B over the {logical}-byte logical space, \
             from empty (the part the workload's file takes deleted before it runs)"
        ),
        "counters cover the measured phase only (after aging)".into(),
    ])
}

/// Runs a validated design whose `[fs]` names a file system, and reports.
pub fn run_fs(design: &Design, opts: RunOptions) -> Result<RunOutput, SimError> {
    let cfg = &design.config;
    let start = std::time::Instant::now();
    let mut fs = build_fs(design)?;
    let cap = capacity_bytes(design);
    let phases = workload::build_phases(&cfg.fs, &cfg.workload, cap, cfg.seed)
        .map_err(|e| SimError::Config(e.to_string()))?;
    let footprint = cfg
        .workload
        .span
        .map_or(workload::default_file_bytes(cap), |s| s.bytes());
    let mut notes = age(&mut *fs, design, footprint)?;
    fs.reset_time(0);
    notes.push(format!(
        "file system {} on {} bytes; requests are file operations, issued one at a time \
         (host.qd = {} does not apply: an operation's block requests, for {}, are sent \
         together)",
        fs.name(),
        cap,
        cfg.host.qd,
        // The block file system the sentence is about (ext2 named on YAFFS2 runs too,
        // as before FAT existed).
        if fs.name() == "fat" { "FAT" } else { "ext2" }
    ));
    let wall = WallClock {
        start,
        measured: std::time::Instant::now(),
    };
    let base = Baseline::take(fs.device());
    let mut m = Measured::new();
    let mut progress = opts
        .progress
        .then(|| crate::report::progress::Progress::new(None, "simulating"));
    for phase in phases {
        let start_ns = m.now_ns;
        let mut acc = PhaseAcc::new(phase.name.clone(), start_ns, fs.device());
        let mut free_ns = start_ns;
        for (index, op) in phase.ops.enumerate() {
            if let Some(c) = &opts.cancel {
                c.check()?;
            }
            let op = op?;
            let arrival = if phase.open_loop {
                let rel = op.arrival_ns as f64 / cfg.host.speedup;
                let at = start_ns as f64 + rel;
                // The host's time limit: past it later sums of times could wrap.
                if at.is_nan() || at > crate::host::MAX_SIM_TIME_NS as f64 {
                    return Err(SimError::Config(format!(
                        "file operation {} of phase {} would start at {at:.3e} ns (time \
                         stamp {} ns / host.speedup {}), past the simulator's time limit of \
                         2^62 ns (146 years): check the trace's time stamps or --speedup",
                        index + 1,
                        phase.name,
                        op.arrival_ns,
                        cfg.host.speedup
                    )));
                }
                start_ns + rel as u64
            } else {
                free_ns
            };
            if arrival > free_ns {
                free_ns = fs.idle(free_ns, arrival)?;
            }
            let issue = arrival.max(free_ns);
            let done = fs.exec(&op, issue)?;
            acc.record(report_kind(op.kind), done - arrival, done);
            let bytes = match op.kind {
                FileOpKind::Read | FileOpKind::Write => op.len_bytes,
                _ => 0,
            };
            m.series.add(done, bytes);
            free_ns = done;
            if let Some(p) = &mut progress {
                p.inc(1);
            }
        }
        m.end_phase(acc, fs.device());
    }
    if let Some(p) = progress {
        p.finish();
    }
    if m.requests == 0 {
        return Err(SimError::Config(
            "the file workload produced no operations".into(),
        ));
    }
    if cfg.fs.remount {
        let t = m.now_ns;
        let mut acc = PhaseAcc::new("mount".into(), t, fs.device());
        let st = fs.remount(t)?;
        acc.record(OpKind::Flush, st.time_ns.max(1), t + st.time_ns);
        m.end_phase(acc, fs.device());
        notes.push(format!(
            "remount after the workload: {} pages read ({}), {:.3} ms by the time model",
            st.pages_read,
            if st.from_checkpoint {
                "checkpoint".to_string()
            } else if st.blocks_scanned > 0 {
                format!("scan of {} blocks", st.blocks_scanned)
            } else if fs.name() == "fat" {
                "boot sector, and FSInfo on FAT32".to_string()
            } else {
                "superblock and descriptors".to_string()
            },
            st.time_ns as f64 / 1e6
        ));
    }
    if opts.check {
        fs.check();
    }
    Ok(assemble(
        cfg,
        fs.device(),
        &base,
        m,
        notes
            .into_iter()
            .chain(design.notes.iter().cloned())
            .collect(),
        Vec::new(),
        wall,
    ))
}
