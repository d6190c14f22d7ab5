//! The memory a run will need, estimated from the design before anything is allocated,
//! and the memory this process may use (`MemAvailable`, cgroup limits).
//!
//! The per-page and per-block figures follow the tables the code allocates (they are
//! sizes of its element types, not published numbers): `src/nand.rs` keeps a 4-byte OOB
//! tag per page (8 with `track_write_seq`), a validity bit per page (a second bit for
//! FTLs that program out of order) and 16 bytes of state per block; the page FTL and
//! DFTL a 4-byte map entry per logical page; the buffer what its policy's
//! spec says (`BufferPolicySpec::memory_bytes`: a page index of 4 B per 16 logical pages
//! and a line per present group, list links per buffered page, cluster nodes for the
//! block-level policies; `src/buffer/core.rs`). `tests/config_memory.rs` checks the total against the
//! process's resident-set growth.

use super::Config;
use crate::buffer::{BufferKind, BufferShape, key_map_bytes};
use crate::nand::Geometry;
use crate::units::Size;
use crate::workload::synth::SynthKind;

use crate::units::approx;

/// `bytes` rounded down to a whole number of GiB (MiB below 1 GiB), as a size a user
/// would type.
pub fn round_down_size(bytes: u64) -> Size {
    let unit = if bytes >= 1 << 30 { 1 << 30 } else { 1 << 20 };
    Size(bytes / unit * unit)
}

/// Estimated peak bytes of a run, by part.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemoryEstimate {
    /// (part, bytes), largest parts first after [`MemoryEstimate::sorted`].
    pub parts: Vec<(&'static str, u64)>,
}

impl MemoryEstimate {
    /// Sum of the parts.
    pub fn total_bytes(&self) -> u64 {
        self.parts.iter().map(|p| p.1).sum()
    }

    /// The parts, largest first, as "nand 1.2GiB, ftl 512MiB".
    pub fn breakdown(&self) -> String {
        let mut p = self.parts.clone();
        p.sort_by_key(|x| std::cmp::Reverse(x.1));
        let s: Vec<String> = p
            .iter()
            .filter(|x| x.1 > 0)
            .map(|(n, b)| format!("{n} {}", approx(*b)))
            .collect();
        s.join(", ")
    }

    /// Bytes that grow with the number of flash pages (what a smaller capacity or a
    /// larger page shrinks).
    pub fn per_page_bytes(&self) -> u64 {
        self.parts
            .iter()
            .filter(|p| matches!(p.0, "nand" | "ftl"))
            .map(|p| p.1)
            .sum()
    }
}

/// Bytes the process needs besides the tables: code, latency histograms, report
/// buffers, the allocator's slack (measured at a few MiB).
const FIXED_BYTES: u64 = 8 << 20;

/// NAND block state (`BlockState`: write pointer, valid count, erases, tag base).
const NAND_BLOCK_BYTES: u64 = 16;

/// FTL per-block bookkeeping: role, GC bucket or queue links, free lists (a few `u32`s).
const FTL_BLOCK_BYTES: u64 = 24;

/// Andrew generator: per file its sizes and extents, and the requests of its six phases
/// held in memory (about 100 requests of 32 bytes per file).
const ANDREW_FILE_BYTES: u64 = 4096;

/// The buffer's part: what its policy's spec says its structures take, plus the write
/// sequence numbers it carries per page when the run tracks them (a hash map).
fn buffer_bytes(kind: BufferKind, shape: &BufferShape, track_seq: bool) -> u64 {
    let mut bytes = kind.spec().map_or(0, |s| (s.memory_bytes)(shape));
    if track_seq {
        bytes += key_map_bytes(shape.capacity_pages as u64);
    }
    bytes
}

/// Estimates the run's peak memory. `geo` is the array the NAND state is kept for (the
/// FTL's virtual geometry with superblocks: same pages, fewer blocks).
pub fn estimate(
    cfg: &Config,
    geo: &Geometry,
    logical_pages: u64,
    buffer: Option<&BufferShape>,
    track_seq: bool,
) -> MemoryEstimate {
    let pages = geo.pages();
    let blocks = geo.blocks() as u64;
    // The FTL's spec says what it keeps (ftl/spec.rs).
    let spec = cfg.ftl.name.spec();
    // NFTL and BAST write data pages at their offsets: the NAND then keeps a second
    // bitmap of programmed pages.
    let out_of_order = spec.caps.writes_at_offsets;
    let tag = if track_seq { 8 } else { 4 };
    let log_pages = pages.saturating_sub(logical_pages);
    // Blocks whose pages sit at their own offsets keep one tag base per block. NFTL
    // writes every unit at fixed offsets, so only pages beyond the logical space touch
    // the per-page tag table; the other FTLs' merges and log writes touch it all in time.
    let tagged_pages = if spec.caps.tags_beyond_logical_only {
        log_pages
    } else {
        pages
    };
    let nand = tagged_pages * tag
        + pages.div_ceil(64) * 8 * (1 + out_of_order as u64)
        + blocks * NAND_BLOCK_BYTES;
    let ftl = blocks * FTL_BLOCK_BYTES + (spec.memory_bytes)(&cfg.ftl, geo, logical_pages);
    let buffer = buffer.map_or(0, |b| buffer_bytes(cfg.buffer.name, b, track_seq));
    let workload = if cfg.trace.path.is_none() && cfg.workload.kind == SynthKind::Andrew {
        cfg.workload.andrew_files as u64 * ANDREW_FILE_BYTES
    } else {
        0
    };
    MemoryEstimate {
        parts: vec![
            ("nand", nand),
            ("ftl", ftl),
            ("buffer", buffer),
            ("workload", workload),
            ("fixed", FIXED_BYTES),
        ],
    }
}

/// Bytes this process may still allocate and where the limit comes from: the smaller of
/// `MemAvailable` and the cgroup's limit minus its usage. `None` where neither can be
/// read (then nothing is refused).
pub fn available_memory() -> Option<(u64, String)> {
    let mut best: Option<(u64, String)> = None;
    let mut offer = |bytes: u64, what: String| {
        if best.as_ref().is_none_or(|b| bytes < b.0) {
            best = Some((bytes, what));
        }
    };
    if let Ok(text) = std::fs::read_to_string("/proc/meminfo")
        && let Some(kib) = text
            .lines()
            .find_map(|l| l.strip_prefix("MemAvailable:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    {
        offer(kib * 1024, "MemAvailable in /proc/meminfo".into());
    }
    if let Some((bytes, what)) = cgroup_room() {
        offer(bytes, what);
    }
    best
}

/// Room left under this process's cgroup memory limit (v2, else v1).
fn cgroup_room() -> Option<(u64, String)> {
    let read = |p: &str| -> Option<u64> { std::fs::read_to_string(p).ok()?.trim().parse().ok() };
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    if let Some(path) = own.lines().find_map(|l| l.strip_prefix("0::")) {
        let dir = format!("/sys/fs/cgroup{}", path.trim_end_matches('/'));
        // "max" does not parse: no limit at this level.
        if let (Some(max), Some(cur)) = (
            read(&format!("{dir}/memory.max")),
            read(&format!("{dir}/memory.current")),
        ) {
            return Some((
                max.saturating_sub(cur),
                format!("cgroup limit {dir}/memory.max"),
            ));
        }
        return None;
    }
    let max = read("/sys/fs/cgroup/memory/memory.limit_in_bytes")?;
    let cur = read("/sys/fs/cgroup/memory/memory.usage_in_bytes")?;
    // v1 reports "no limit" as a huge number.
    (max < 1 << 60).then(|| {
        (
            max.saturating_sub(cur),
            "cgroup limit memory.limit_in_bytes".into(),
        )
    })
}
