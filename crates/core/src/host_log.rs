//! A host-side log-structuring layer in front of the SSD: Managed Flash Technology (MFT).
//!
//! Source: EasyCo's Managed Flash Technology, as Ryu & Park (2009, docs/papers.md §1,
//! Fig. 16) describe it applied to their SSD B, and EasyCo's own description: a block
//! mapping layer in the host that never writes the SSD at random. Every write is
//! appended to a log that the host writes to the SSD in large sequential chunks, aligned
//! to the drive's erase unit; the host remembers where each block went, and a cleaner
//! reclaims chunks whose blocks were overwritten, so the layer works like a
//! log-structured file system below any file system (Rosenblum & Ousterhout 1992).
//! Its efficiency depends on the free space it keeps. docs/host-log.md restates it.
//!
//! It is a *stage of the one pipeline*: [`LogTarget`] is a [`Target`] of the one
//! [`crate::host::HostQueue`], queues commands in the one [`Ncq`], and performs each
//! with [`LogDevice::submit`] (`sim::Device`: the device's own queue, buffer, FTL and
//! time model).
//!
//! ```text
//! device = segments of `segment` bytes, each `segment / block` slots; the host sees
//!          (1 - free_percent) of them, in `block` units
//! write(blocks, t):
//!     for each block:
//!         while free segments <= min_free: clean(t)
//!         (partial block: read its old copy first, from host RAM or the SSD)
//!         invalidate its old slot; append it to the open segment (in host RAM)
//!         if the open segment is full: seal(t)
//!     done at t, or when host RAM has room for a new open segment
//! seal(t): one sequential SSD write of the open segment's unwritten slots, issued when
//!          their data is in RAM; its RAM is held until that write completes; at most
//!          `buffer_segments` segments (open + in flight) are held; open a free segment
//! clean(t): victim = the sealed segment with the fewest valid blocks (greedy);
//!           read its valid blocks from the SSD (one read per run of adjacent slots);
//!           append them to the log; the victim becomes free
//! read(blocks, t): blocks still in host RAM come from RAM; others from the SSD, one
//!                  read per run of adjacent slots; never-written blocks cost nothing
//! trim: forget the blocks (their slots become invalid)
//! flush: write the open segment's unwritten slots, then flush the SSD
//! ```

use crate::ftl::FtlError;
use crate::host::SimError;
use crate::host::{Dispatched, Ncq, QueuedCommand, Target};
use crate::spec::ConfigError;
use crate::units::Size;
use crate::workload::{IoRequest, OpKind};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, VecDeque};

/// Which host layer sits in front of the SSD.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum HostLogKind {
    /// None: the host's requests go straight to the SSD.
    #[default]
    None,
    /// Managed Flash Technology-style log: random writes become sequential segments.
    Mft,
}

impl HostLogKind {
    /// The config name.
    pub fn name(self) -> &'static str {
        match self {
            HostLogKind::None => "none",
            HostLogKind::Mft => "mft",
        }
    }

    /// Names and descriptions, for `--host-log` and `ssdlab list`.
    pub fn all() -> &'static [(HostLogKind, &'static str, &'static str)] {
        &[
            (HostLogKind::None, "none", "requests go straight to the SSD"),
            (
                HostLogKind::Mft,
                "mft",
                "Managed Flash Technology-style host log: writes remapped into sequential segments, host-side cleaning",
            ),
        ]
    }
}

/// The `[host_log]` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostLogConfig {
    /// The layer (`none` or `mft`).
    pub name: HostLogKind,
    /// Unit of the host's block map (a multiple of 512 B that divides `segment`).
    pub block: Size,
    /// Unit of the layer's sequential writes and of its cleaning (a multiple of the
    /// device page; MFT aligns it to the drive's erase unit, e.g. SSD B's 1 MiB).
    pub segment: Size,
    /// Share of the SSD's logical capacity the layer keeps free for its log, percent.
    pub free_percent: f64,
    /// Segments of host RAM: the open one plus those whose SSD write is in flight.
    pub buffer_segments: u32,
    /// Free segments below which the cleaner runs before the next block is appended.
    pub min_free_segments: u32,
    /// Host memory copy rate, MB/s: a host block appended to the open segment, or served
    /// from host RAM to a read, costs block size / rate of host CPU time.
    pub memcpy_mb_s: f64,
    /// SSD bytes the log manages, from offset 0 (the layer installed on a partition at
    /// the start of the drive), rounded down to whole segments; 0 = the whole device.
    pub space: Size,
}

impl Default for HostLogConfig {
    fn default() -> Self {
        HostLogConfig {
            name: HostLogKind::None,
            block: Size(4096),
            segment: Size(1 << 20),
            free_percent: 10.0,
            buffer_segments: 2,
            min_free_segments: 2,
            // A 2008–09 desktop (Core 2 on DDR2-800): docs/host-log.md gives the source.
            memcpy_mb_s: 2500.0,
            // MFT manages the block device it is installed on: the whole drive.
            space: Size(0),
        }
    }
}

/// The layer's geometry, resolved against a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostLogShape {
    /// Bytes per block.
    pub block_bytes: u64,
    /// Blocks per segment.
    pub segment_blocks: u32,
    /// Segments on the SSD.
    pub segments: u32,
    /// Segments' worth of blocks the host sees.
    pub host_segments: u32,
}

impl HostLogShape {
    /// Capacity the host sees, bytes.
    pub fn host_capacity_bytes(&self) -> u64 {
        self.host_segments as u64 * self.segment_blocks as u64 * self.block_bytes
    }

    fn segment_bytes(&self) -> u64 {
        self.segment_blocks as u64 * self.block_bytes
    }
}

impl HostLogConfig {
    /// Whether a layer is configured.
    pub fn active(&self) -> bool {
        self.name != HostLogKind::None
    }

    /// Whether every key is at its default (the table is then not printed).
    pub fn is_default(&self) -> bool {
        *self == HostLogConfig::default()
    }

    /// Checks the layer against a device of `capacity_bytes` with `page_bytes` pages;
    /// `None` when no layer is configured.
    pub fn shape(
        &self,
        capacity_bytes: u64,
        page_bytes: u64,
    ) -> Result<Option<HostLogShape>, ConfigError> {
        if !self.active() {
            if !self.is_default() {
                return Err(ConfigError::value(
                    "host_log.name",
                    "none",
                    "host_log.name = \"mft\" (--host-log mft) when other host_log keys are set",
                ));
            }
            return Ok(None);
        }
        let (block, segment) = (self.block.bytes(), self.segment.bytes());
        if block == 0 || block % 512 != 0 {
            return Err(ConfigError::value(
                "host_log.block",
                self.block,
                "a multiple of 512 B, e.g. 4KiB",
            ));
        }
        if segment == 0 || segment % page_bytes != 0 || segment % block != 0 {
            return Err(ConfigError::value(
                "host_log.segment",
                self.segment,
                format!(
                    "a multiple of the device page ({}) and of host_log.block ({}), e.g. the \
                     SSD's management block or erase unit",
                    Size(page_bytes),
                    self.block
                ),
            ));
        }
        crate::spec::check_range(
            "host_log.buffer_segments",
            self.buffer_segments,
            1,
            1024,
            "segments of host RAM",
        )?;
        crate::spec::check_range(
            "host_log.min_free_segments",
            self.min_free_segments,
            1,
            1024,
            "free segments kept for the cleaner",
        )?;
        if !(self.memcpy_mb_s > 0.0 && self.memcpy_mb_s.is_finite()) {
            return Err(ConfigError::value(
                "host_log.memcpy_mb_s",
                self.memcpy_mb_s,
                "a positive rate, MB/s (host memory copy)",
            ));
        }
        crate::spec::check_f64(
            "host_log.free_percent",
            self.free_percent,
            0.0,
            90.0,
            "percent of the SSD kept free for the log",
        )?;
        let space = match self.space.bytes() {
            0 => capacity_bytes,
            s if s <= capacity_bytes => s,
            _ => {
                return Err(ConfigError::value(
                    "host_log.space",
                    self.space,
                    format!(
                        "at most the device's capacity ({}), or 0 for the whole device",
                        Size(capacity_bytes)
                    ),
                ));
            }
        };
        let segments = space / segment;
        let blocks = segment / block;
        if segments > u32::MAX as u64 / 2 || blocks * segments > u32::MAX as u64 - 1 {
            return Err(ConfigError::value(
                "host_log.block",
                self.block,
                "fewer than 2^32 blocks on the device: a larger block or segment",
            ));
        }
        let host_segments = ((segments as f64) * (1.0 - self.free_percent / 100.0)).floor() as u64;
        // The cleaner needs its free segments plus one to write into and one more so
        // that some sealed segment always holds an invalid block.
        let need = self.min_free_segments as u64 + 2;
        if segments < need + 1 || segments - host_segments < need {
            return Err(ConfigError::value(
                "host_log.free_percent",
                self.free_percent,
                format!(
                    "enough free space for host_log.min_free_segments + 2 = {need} of the \
                     log's {segments} segments of {}: a larger free_percent, a smaller \
                     segment, a larger host_log.space or a larger device",
                    self.segment
                ),
            ));
        }
        Ok(Some(HostLogShape {
            block_bytes: block,
            segment_blocks: blocks as u32,
            segments: segments as u32,
            host_segments: host_segments as u32,
        }))
    }
}

/// What the layer did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostLogStats {
    /// Blocks the host wrote.
    pub host_blocks: u64,
    /// Blocks the cleaner moved.
    pub cleaned_blocks: u64,
    /// Segments the cleaner reclaimed.
    pub cleaned_segments: u64,
    /// Segment writes sent to the SSD (whole or, after a flush, partial).
    pub segment_writes: u64,
    /// Reads sent to the SSD (host reads, cleaning, partial-block merges).
    pub device_reads: u64,
    /// Block reads served from host RAM.
    pub ram_reads: u64,
    /// Times a write waited for host RAM.
    pub ram_waits: u64,
    /// Bytes the segment writes sent to the SSD.
    pub device_write_bytes: u64,
    /// Host memory copies (blocks appended by the host, blocks read from host RAM).
    pub ram_copies: u64,
}

impl HostLogStats {
    /// Blocks written to the SSD per block the host wrote.
    pub fn write_amplification(&self) -> f64 {
        (self.host_blocks + self.cleaned_blocks) as f64 / self.host_blocks.max(1) as f64
    }
}

const NONE: u32 = u32::MAX;

/// The layer's state (the device stays owned by the run; [`LogTarget`] pairs them).
#[derive(Clone)]
pub struct HostLog {
    shape: HostLogShape,
    buffer_segments: usize,
    min_free: usize,
    /// Host CPU time of copying one block in host memory.
    copy_block_ns: u64,
    /// Host block → slot (segment × blocks per segment + index), or NONE.
    map: Vec<u32>,
    /// Slot → host block, or NONE (the cleaner's reverse map).
    owner: Vec<u32>,
    /// Valid blocks per segment.
    valid: Vec<u32>,
    /// Sealed segments by (valid blocks, segment): the greedy victim is the first.
    sealed: BTreeSet<(u32, u32)>,
    free: VecDeque<u32>,
    open: u32,
    /// Slots of the open segment filled, and of those already written to the SSD.
    fill: u32,
    flushed: u32,
    /// When the open segment's data is all in host RAM (cleaned and merged blocks wait
    /// for their SSD reads).
    open_ready_ns: u64,
    /// When each segment's last SSD write completes (its RAM copy serves reads until).
    written_ns: Vec<u64>,
    /// Completion times of segment writes still holding host RAM, oldest first.
    in_flight: VecDeque<u64>,
    /// The open segment's payload, when the device holds data.
    stage: Option<Vec<u8>>,
    ncq: Ncq,
    free_ns: u64,
    stats: HostLogStats,
}

impl HostLog {
    /// An empty layer of `shape` (from [`HostLogConfig::shape`]); `qd` sizes its queue.
    pub fn new(cfg: &HostLogConfig, shape: HostLogShape, qd: usize, holds_data: bool) -> Self {
        let slots = shape.segments as usize * shape.segment_blocks as usize;
        let mut free: VecDeque<u32> = (0..shape.segments).collect();
        let open = free.pop_front().expect("validated: several segments");
        HostLog {
            shape,
            buffer_segments: cfg.buffer_segments as usize,
            min_free: cfg.min_free_segments as usize,
            copy_block_ns: (shape.block_bytes as f64 * 1e3 / cfg.memcpy_mb_s).round() as u64,
            map: vec![NONE; shape.host_segments as usize * shape.segment_blocks as usize],
            owner: vec![NONE; slots],
            valid: vec![0; shape.segments as usize],
            sealed: BTreeSet::new(),
            free,
            open,
            fill: 0,
            flushed: 0,
            open_ready_ns: 0,
            written_ns: vec![0; shape.segments as usize],
            in_flight: VecDeque::new(),
            stage: holds_data.then(|| vec![0u8; shape.segment_bytes() as usize]),
            ncq: Ncq::new(qd, crate::host::DispatchOrder::Fifo),
            free_ns: 0,
            stats: HostLogStats::default(),
        }
    }

    /// The layer's geometry.
    pub fn shape(&self) -> HostLogShape {
        self.shape
    }

    /// Capacity the host sees, bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.shape.host_capacity_bytes()
    }

    /// Host blocks.
    pub fn blocks(&self) -> u64 {
        self.map.len() as u64
    }

    /// What the layer did so far.
    pub fn stats(&self) -> HostLogStats {
        self.stats
    }

    /// Idles the layer at `now_ns` (after preconditioning); RAM held by earlier segment
    /// writes is released.
    pub fn reset_time(&mut self, now_ns: u64) {
        self.free_ns = now_ns;
        self.open_ready_ns = now_ns.min(self.open_ready_ns);
        self.in_flight.clear();
        for t in &mut self.written_ns {
            *t = (*t).min(now_ns);
        }
    }

    fn seg_of(&self, slot: u32) -> u32 {
        slot / self.shape.segment_blocks
    }

    fn slot_offset(&self, slot: u32) -> u64 {
        slot as u64 * self.shape.block_bytes
    }

    /// Whether a read of `slot` at `t` is served from host RAM.
    fn in_ram(&self, slot: u32, t: u64) -> bool {
        let seg = self.seg_of(slot);
        let idx = slot % self.shape.segment_blocks;
        (seg == self.open && idx >= self.flushed) || self.written_ns[seg as usize] > t
    }

    fn invalidate(&mut self, slot: u32) {
        let seg = self.seg_of(slot);
        self.owner[slot as usize] = NONE;
        let v = self.valid[seg as usize];
        // Only sealed segments are ranked: not the open one, nor a victim being cleaned.
        if self.sealed.remove(&(v, seg)) {
            self.sealed.insert((v - 1, seg));
        }
        self.valid[seg as usize] = v - 1;
    }

    /// The SSD write of the open segment's slots `flushed..fill`, issued when their data
    /// is in RAM and no earlier than `t`; returns its completion.
    fn write_out<D: LogDevice>(
        &mut self,
        dev: &mut D,
        t: u64,
        timed: bool,
    ) -> Result<u64, SimError> {
        let sb = self.shape.segment_blocks;
        let first = self.open * sb + self.flushed;
        let n = self.fill - self.flushed;
        if n == 0 {
            return Ok(t);
        }
        let offset = self.slot_offset(first);
        let bytes = n as u64 * self.shape.block_bytes;
        let issue = t.max(self.open_ready_ns);
        self.stats.segment_writes += 1;
        self.stats.device_write_bytes += bytes;
        let done = if !timed {
            // The same one write command as the timed path, without its time.
            dev.write_untimed_bytes(offset, bytes)?;
            issue
        } else if let Some(stage) = &self.stage {
            let lo = (self.flushed as u64 * self.shape.block_bytes) as usize;
            dev.write_data(offset, &stage[lo..lo + bytes as usize], issue)?
        } else {
            dev.submit(&IoRequest::new(OpKind::Write, offset, bytes), issue)?
        };
        self.flushed = self.fill;
        let w = &mut self.written_ns[self.open as usize];
        *w = (*w).max(done);
        Ok(done)
    }

    /// Seals the full open segment and opens a free one; returns when host RAM has room
    /// for the new open segment (no earlier than `t`).
    fn seal<D: LogDevice>(&mut self, dev: &mut D, t: u64, timed: bool) -> Result<u64, SimError> {
        let done = self.write_out(dev, t, timed)?;
        self.sealed
            .insert((self.valid[self.open as usize], self.open));
        self.open = self.free.pop_front().ok_or_else(|| {
            SimError::Config("host log: no free segment left (cleaner invariant broken)".into())
        })?;
        self.fill = 0;
        self.flushed = 0;
        self.open_ready_ns = 0;
        if !timed {
            return Ok(t);
        }
        self.in_flight.push_back(done);
        let mut at = t;
        while self.in_flight.front().is_some_and(|&d| d <= at) {
            self.in_flight.pop_front();
        }
        // The new open segment needs RAM: wait for the oldest writes to complete.
        while self.in_flight.len() + 1 > self.buffer_segments {
            let d = self.in_flight.pop_front().expect("non-empty");
            if d > at {
                at = d;
                self.stats.ram_waits += 1;
            }
        }
        Ok(at)
    }

    /// Appends host block `blk` (data in RAM at `ready_ns`, payload `data` in data mode)
    /// to the log; returns when the caller may go on (RAM may have had to drain).
    fn append<D: LogDevice>(
        &mut self,
        dev: &mut D,
        blk: u32,
        ready_ns: u64,
        data: Option<&[u8]>,
        t: u64,
        timed: bool,
    ) -> Result<u64, SimError> {
        let old = self.map[blk as usize];
        if old != NONE {
            self.invalidate(old);
        }
        let slot = self.open * self.shape.segment_blocks + self.fill;
        if let (Some(stage), Some(d)) = (&mut self.stage, data) {
            let b = self.shape.block_bytes as usize;
            let lo = self.fill as usize * b;
            stage[lo..lo + b].copy_from_slice(d);
        }
        self.map[blk as usize] = slot;
        self.owner[slot as usize] = blk;
        self.valid[self.open as usize] += 1;
        self.fill += 1;
        self.open_ready_ns = self.open_ready_ns.max(ready_ns);
        if self.fill == self.shape.segment_blocks {
            return self.seal(dev, t, timed);
        }
        Ok(t)
    }

    /// Cleans until more than `min_free` segments are free; returns when the caller may
    /// go on.
    fn make_room<D: LogDevice>(
        &mut self,
        dev: &mut D,
        t: u64,
        timed: bool,
    ) -> Result<u64, SimError> {
        let mut at = t;
        let mut rounds = 0u64;
        while self.free.len() <= self.min_free {
            rounds += 1;
            let &(v, victim) = self.sealed.first().ok_or_else(|| {
                SimError::Config("host log: nothing to clean (cleaner invariant broken)".into())
            })?;
            if v == self.shape.segment_blocks || rounds > 4 * self.shape.segments as u64 {
                return Err(SimError::Config(
                    "host log: every segment is full of live blocks (cleaner invariant broken)"
                        .into(),
                ));
            }
            self.sealed.remove(&(v, victim));
            at = self.clean(dev, victim, at, timed)?;
            debug_assert_eq!(self.valid[victim as usize], 0);
            self.free.push_back(victim);
        }
        Ok(at)
    }

    /// Moves the live blocks of `victim` to the head of the log.
    fn clean<D: LogDevice>(
        &mut self,
        dev: &mut D,
        victim: u32,
        t: u64,
        timed: bool,
    ) -> Result<u64, SimError> {
        let sb = self.shape.segment_blocks;
        let b = self.shape.block_bytes;
        let live: Vec<(u32, u32)> = (victim * sb..(victim + 1) * sb)
            .filter_map(|s| {
                let o = self.owner[s as usize];
                (o != NONE).then_some((s, o))
            })
            .collect();
        // Its last write must have landed before it can be read back.
        let issue = t.max(self.written_ns[victim as usize]);
        let mut ready = issue;
        let mut payload = Vec::new();
        if timed {
            let mut i = 0;
            while i < live.len() {
                let mut j = i + 1;
                while j < live.len() && live[j].0 == live[j - 1].0 + 1 {
                    j += 1;
                }
                let offset = self.slot_offset(live[i].0);
                let bytes = (j - i) as u64 * b;
                self.stats.device_reads += 1;
                let done = if self.stage.is_some() {
                    let mut buf = vec![0u8; bytes as usize];
                    let d = dev.read_data(offset, &mut buf, issue)?;
                    payload.extend_from_slice(&buf);
                    d
                } else {
                    dev.submit(&IoRequest::new(OpKind::Read, offset, bytes), issue)?
                };
                ready = ready.max(done);
                i = j;
            }
        }
        let mut at = t;
        for (k, &(_, blk)) in live.iter().enumerate() {
            let data =
                (!payload.is_empty()).then(|| &payload[k * b as usize..(k + 1) * b as usize]);
            at = self.append(dev, blk, ready, data, at, timed)?;
        }
        self.stats.cleaned_blocks += live.len() as u64;
        self.stats.cleaned_segments += 1;
        Ok(at)
    }

    /// Writes host block `blk` outside any timing (preconditioning).
    pub fn write_untimed<D: LogDevice>(&mut self, dev: &mut D, blk: u64) -> Result<(), SimError> {
        self.make_room(dev, 0, false)?;
        self.stats.host_blocks += 1;
        self.append(dev, blk as u32, 0, None, 0, false)?;
        Ok(())
    }

    /// Performs a host command at `t` without data; returns its completion.
    pub fn exec<D: LogDevice>(
        &mut self,
        dev: &mut D,
        r: &IoRequest,
        t: u64,
    ) -> Result<u64, SimError> {
        match r.op {
            OpKind::Write => self.write(dev, r.offset_bytes, r.size_bytes, None, t),
            OpKind::Read => self.read(dev, r.offset_bytes, r.size_bytes, None, t),
            OpKind::Trim => Ok(self.trim(r.offset_bytes, r.size_bytes, t)),
            OpKind::Flush => self.flush(dev, t),
            // The layer exports a conventional block device over its own log: a zone
            // command has no meaning for it, and the run stops with the reason.
            op => Err(SimError::Config(format!(
                "the host log layer exports a conventional block device: {} is a zone \
                 operation, which only ftl.name = \"zoned\" without a host log takes",
                op.name()
            ))),
        }
    }

    fn check_range(&self, offset: u64, size: u64) -> Result<(), SimError> {
        if offset.saturating_add(size) > self.capacity_bytes() {
            return Err(SimError::Config(format!(
                "request at byte {offset} of {size} bytes ends past the host log's {} bytes",
                self.capacity_bytes()
            )));
        }
        Ok(())
    }

    /// Writes `size` bytes at `offset` (with their payload in data mode) at `t`;
    /// returns when the host may consider it done (its data is in host RAM).
    pub fn write<D: LogDevice>(
        &mut self,
        dev: &mut D,
        offset: u64,
        size: u64,
        data: Option<&[u8]>,
        t: u64,
    ) -> Result<u64, SimError> {
        self.check_range(offset, size)?;
        let b = self.shape.block_bytes;
        let end = offset + size;
        let mut at = t;
        let mut block = vec![0u8; if self.stage.is_some() { b as usize } else { 0 }];
        for blk in offset / b..end.div_ceil(b) {
            at = self.make_room(dev, at, true)?;
            let (lo, hi) = ((blk * b).max(offset), ((blk + 1) * b).min(end));
            let mut ready = at;
            if hi - lo < b {
                // The rest of the block comes from its current copy.
                ready = self.merge_old(dev, blk, &mut block, at)?;
            }
            if let Some(d) = data
                && !block.is_empty()
            {
                let s = (lo - blk * b) as usize;
                block[s..s + (hi - lo) as usize]
                    .copy_from_slice(&d[(lo - offset) as usize..(hi - offset) as usize]);
            }
            self.stats.host_blocks += 1;
            // The host CPU copies the block into the open segment, one block at a time;
            // the block is in the segment when that copy ends.
            at += self.copy_block_ns;
            self.stats.ram_copies += 1;
            let ready = ready.max(at);
            let payload = (!block.is_empty()).then_some(&block[..]);
            // Copy out: `append` borrows self mutably.
            let payload: Option<Vec<u8>> = payload.map(<[u8]>::to_vec);
            at = self.append(dev, blk as u32, ready, payload.as_deref(), at, true)?;
        }
        self.free_ns = at;
        Ok(at)
    }

    /// Fills `out` with the current content of `blk` (data mode) and returns when it is
    /// in RAM: at once from RAM or when never written, else after an SSD read.
    fn merge_old<D: LogDevice>(
        &mut self,
        dev: &mut D,
        blk: u64,
        out: &mut [u8],
        t: u64,
    ) -> Result<u64, SimError> {
        let slot = self.map[blk as usize];
        out.fill(0);
        if slot == NONE {
            return Ok(t);
        }
        if self.in_ram(slot, t) {
            self.stats.ram_reads += 1;
            self.copy_from_ram(dev, slot, out);
            return Ok(t);
        }
        self.stats.device_reads += 1;
        let (o, b) = (self.slot_offset(slot), self.shape.block_bytes);
        if self.stage.is_some() {
            dev.read_data(o, out, t)
        } else {
            dev.submit(&IoRequest::new(OpKind::Read, o, b), t)
        }
    }

    /// The RAM copy of `slot` (data mode): the open segment's stage, or the SSD's copy
    /// for a segment whose write is in flight (its payload already reached the device).
    fn copy_from_ram<D: LogDevice>(&self, dev: &D, slot: u32, out: &mut [u8]) {
        let Some(stage) = &self.stage else {
            return;
        };
        if out.is_empty() {
            return;
        }
        let b = self.shape.block_bytes as usize;
        if self.seg_of(slot) == self.open {
            let idx = (slot % self.shape.segment_blocks) as usize;
            out.copy_from_slice(&stage[idx * b..(idx + 1) * b]);
            return;
        }
        // The same bytes: the segment's write took them to the device when issued.
        let page = dev.page_bytes();
        let offset = self.slot_offset(slot);
        let mut buf = vec![0u8; page as usize];
        for lpn in offset / page..(offset + b as u64).div_ceil(page) {
            dev.page_payload(lpn, &mut buf);
            let (lo, hi) = (
                (lpn * page).max(offset),
                ((lpn + 1) * page).min(offset + b as u64),
            );
            out[(lo - offset) as usize..(hi - offset) as usize]
                .copy_from_slice(&buf[(lo - lpn * page) as usize..(hi - lpn * page) as usize]);
        }
    }

    /// Reads `size` bytes at `offset` at `t` (into `out` in data mode); returns its
    /// completion.
    pub fn read<D: LogDevice>(
        &mut self,
        dev: &mut D,
        offset: u64,
        size: u64,
        out: Option<&mut [u8]>,
        t: u64,
    ) -> Result<u64, SimError> {
        self.check_range(offset, size)?;
        let b = self.shape.block_bytes;
        let end = offset + size;
        let (first, last) = (offset / b, end.div_ceil(b));
        let mut done = t;
        // The host CPU copies the blocks served from RAM one after the other.
        let mut copied = t;
        let data = self.stage.is_some() && out.is_some();
        let mut buf = vec![
            0u8;
            if data {
                ((last - first) * b) as usize
            } else {
                0
            }
        ];
        // Runs of adjacent SSD slots: (first slot, blocks, index of the first block).
        let mut run: Option<(u32, u32, u64)> = None;
        let mut runs = Vec::new();
        for blk in first..last {
            let slot = self.map[blk as usize];
            let i = blk - first;
            if slot != NONE && self.in_ram(slot, t) {
                self.stats.ram_reads += 1;
                self.stats.ram_copies += 1;
                copied += self.copy_block_ns;
                done = done.max(copied);
                if data {
                    let dst = &mut buf[(i * b) as usize..((i + 1) * b) as usize];
                    self.copy_from_ram(dev, slot, dst);
                }
                continue;
            }
            if slot == NONE {
                continue;
            }
            match &mut run {
                // Adjacent in the log *and* on the host: a block skipped in between
                // (never written, or in RAM) ends the run.
                Some((s, n, at)) if *s + *n == slot && *at + *n as u64 == i => *n += 1,
                _ => {
                    if let Some(r) = run.take() {
                        runs.push(r);
                    }
                    run = Some((slot, 1, i));
                }
            }
        }
        runs.extend(run);
        for (slot, n, i) in runs {
            self.stats.device_reads += 1;
            let (o, bytes) = (self.slot_offset(slot), n as u64 * b);
            let d = if data {
                dev.read_data(o, &mut buf[(i * b) as usize..(i * b + bytes) as usize], t)?
            } else {
                dev.submit(&IoRequest::new(OpKind::Read, o, bytes), t)?
            };
            done = done.max(d);
        }
        if let Some(out) = out
            && data
        {
            let s = (offset - first * b) as usize;
            out.copy_from_slice(&buf[s..s + size as usize]);
        }
        Ok(done)
    }

    /// Forgets the blocks `[offset, offset + size)` covers entirely.
    pub fn trim(&mut self, offset: u64, size: u64, t: u64) -> u64 {
        let b = self.shape.block_bytes;
        let end = (offset + size).min(self.capacity_bytes());
        for blk in offset.div_ceil(b)..(end / b).max(offset.div_ceil(b)) {
            let slot = self.map[blk as usize];
            if slot != NONE {
                self.invalidate(slot);
                self.map[blk as usize] = NONE;
            }
        }
        t
    }

    /// Writes what the open segment holds that the SSD does not, then flushes the SSD.
    pub fn flush<D: LogDevice>(&mut self, dev: &mut D, t: u64) -> Result<u64, SimError> {
        let w = self.write_out(dev, t, true)?;
        let f = dev.submit(&IoRequest::new(OpKind::Flush, 0, 0), t)?;
        let done = w.max(f);
        self.free_ns = done;
        Ok(done)
    }

    /// Panics at the first inconsistency between the map, the reverse map, the valid
    /// counts and the segment lists (tests and `--check`).
    pub fn check_invariants(&self) {
        let sb = self.shape.segment_blocks;
        let mut valid = vec![0u32; self.valid.len()];
        for (blk, &slot) in self.map.iter().enumerate() {
            if slot != NONE {
                assert_eq!(self.owner[slot as usize], blk as u32, "slot {slot}");
                valid[(slot / sb) as usize] += 1;
            }
        }
        for (slot, &o) in self.owner.iter().enumerate() {
            if o != NONE {
                assert_eq!(self.map[o as usize], slot as u32, "block {o}");
            }
        }
        assert_eq!(valid, self.valid, "valid counts");
        for &f in &self.free {
            assert_eq!(self.valid[f as usize], 0, "free segment {f} holds blocks");
        }
        for &(v, s) in &self.sealed {
            assert_eq!(self.valid[s as usize], v, "sealed segment {s}");
        }
        assert_eq!(
            self.sealed.len() + self.free.len() + 1,
            self.shape.segments as usize,
            "every segment is open, sealed or free"
        );
    }
}

/// What the layer needs of the SSD below it. `sim::Device` implements it; the layer names
/// only this trait, so it sits below the simulator that builds it into a run.
pub trait LogDevice {
    /// Performs `req` issued at `issue_ns` through the device's queue; returns when it
    /// completes.
    fn submit(&mut self, req: &IoRequest, issue_ns: u64) -> Result<u64, SimError>;
    /// Writes `size_bytes` from `offset_bytes` without timing (preconditioning).
    fn write_untimed_bytes(&mut self, offset_bytes: u64, size_bytes: u64) -> Result<(), FtlError>;
    /// Writes `bytes` (payloads kept) at `offset_bytes`, issued at `issue_ns`.
    fn write_data(
        &mut self,
        offset_bytes: u64,
        bytes: &[u8],
        issue_ns: u64,
    ) -> Result<u64, SimError>;
    /// Reads into `out` from `offset_bytes`, issued at `issue_ns`.
    fn read_data(
        &mut self,
        offset_bytes: u64,
        out: &mut [u8],
        issue_ns: u64,
    ) -> Result<u64, SimError>;
    /// Page size in bytes.
    fn page_bytes(&self) -> u64;
    /// The payload logical page `lpn` holds now, untimed.
    fn page_payload(&self, lpn: u64, out: &mut [u8]);
}

/// The layer and the device below it, as the host queue's [`Target`].
pub struct LogTarget<'a, D: LogDevice> {
    /// The layer.
    pub log: &'a mut HostLog,
    /// The SSD.
    pub dev: &'a mut D,
}

impl<D: LogDevice> Target for LogTarget<'_, D> {
    fn queue(&mut self, r: &IoRequest, arrival_ns: u64, issue_ns: u64) -> Result<(), SimError> {
        self.log.check_range(r.offset_bytes, r.size_bytes)?;
        let b = self.log.shape.block_bytes;
        let first = (r.offset_bytes / b) as u32;
        let pages = if r.op == OpKind::Flush {
            0
        } else {
            ((r.offset_bytes + r.size_bytes).div_ceil(b) - first as u64) as u32
        };
        self.log.ncq.push(QueuedCommand {
            req: *r,
            arrival_ns,
            issue_ns,
            first_lpn: first,
            pages,
        });
        Ok(())
    }

    fn dispatch(&mut self) -> Result<Option<Dispatched>, SimError> {
        let Some(cmd) = self.log.ncq.pop(|_| false) else {
            return Ok(None);
        };
        let t = cmd.issue_ns.max(self.log.free_ns);
        let done_ns = self.log.exec(self.dev, &cmd.req, t)?;
        Ok(Some(Dispatched {
            cmd,
            dispatch_ns: t,
            done_ns,
            append_lba: None,
        }))
    }

    fn queued(&self) -> usize {
        self.log.ncq.len()
    }

    fn oldest_issue_ns(&self) -> Option<u64> {
        self.log.ncq.front().map(|c| c.issue_ns)
    }

    fn free_ns(&self) -> u64 {
        self.log.free_ns
    }
}
