//! The block-device side shared by the file systems that run over an FTL (ext2, FAT):
//! the device ([`crate::sim::Device`]), the requests the current operation queues, and
//! a buffer cache of dirty metadata units (ext2 blocks, FAT sectors).
//!
//! ```text
//! queue      an operation's data requests are queued as it runs, one per run of
//!            contiguous units, and sent together when it ends
//! writeback  dirty metadata is written on fsync (then a device flush), every
//!            writeback_ops operations (standing in for the kernel's periodic
//!            flusher) and at unmount, one request per run of contiguous units
//! mkfs       what mkfs writes is sent untimed: the run starts on a formatted device
//! mount      unmount writes every dirty unit; mount reads the fixed header only
//!            (the rest of the metadata stays cached, so it is never read)
//! ```

use super::{FsError, MountStats};
use crate::sim::Device;
use crate::workload::{IoRequest, OpKind};
use std::collections::BTreeSet;

/// Device, queued requests and dirty metadata of a file system over an FTL.
pub(crate) struct BlockIo {
    /// The device below.
    pub(crate) dev: Device,
    /// Bytes of one unit (block or sector): offsets below are in units.
    unit_bytes: u64,
    /// Dirty metadata units.
    pub(crate) dirty: BTreeSet<u64>,
    /// Requests of the current operation.
    pub(crate) pending: Vec<IoRequest>,
    writeback_ops: u64,
    ops_since_writeback: u64,
    /// Writebacks that wrote something.
    pub(crate) writebacks: u64,
    /// Metadata units written back.
    pub(crate) meta_unit_writes: u64,
}

impl BlockIo {
    pub(crate) fn new(dev: Device, unit_bytes: u64, writeback_ops: u64) -> BlockIo {
        BlockIo {
            dev,
            unit_bytes,
            dirty: BTreeSet::new(),
            pending: Vec::new(),
            writeback_ops,
            ops_since_writeback: 0,
            writebacks: 0,
            meta_unit_writes: 0,
        }
    }

    /// Queues one request per run of contiguous units (in the order given).
    pub(crate) fn push_runs(&mut self, units: &[u64], op: OpKind) {
        let mut i = 0;
        while i < units.len() {
            let mut j = i + 1;
            while j < units.len() && units[j] == units[j - 1] + 1 {
                j += 1;
            }
            self.push(units[i], (j - i) as u64, op);
            i = j;
        }
    }

    /// Queues one request of `count` units from `unit`.
    pub(crate) fn push(&mut self, unit: u64, count: u64, op: OpKind) {
        self.pending.push(IoRequest::new(
            op,
            unit * self.unit_bytes,
            count * self.unit_bytes,
        ));
    }

    /// Writes every dirty unit (one request per contiguous run); returns them.
    pub(crate) fn writeback(&mut self) -> Vec<u64> {
        if self.dirty.is_empty() {
            return Vec::new();
        }
        let units: Vec<u64> = std::mem::take(&mut self.dirty).into_iter().collect();
        self.meta_unit_writes += units.len() as u64;
        self.writebacks += 1;
        self.push_runs(&units, OpKind::Write);
        units
    }

    /// fsync: every dirty unit, then a device flush; returns the units written.
    pub(crate) fn fsync(&mut self) -> Vec<u64> {
        let units = self.writeback();
        self.pending.push(IoRequest::new(OpKind::Flush, 0, 0));
        units
    }

    /// Counts one finished operation; every `writeback_ops` of them the dirty metadata
    /// is written (returned as by [`BlockIo::writeback`]).
    pub(crate) fn op_done(&mut self) -> Vec<u64> {
        self.ops_since_writeback += 1;
        if self.ops_since_writeback >= self.writeback_ops {
            self.ops_since_writeback = 0;
            return self.writeback();
        }
        Vec::new()
    }

    /// `sync` for a block trace: the periodic count restarts and every dirty unit is
    /// written; returns the units written.
    pub(crate) fn sync(&mut self) -> Vec<u64> {
        self.ops_since_writeback = 0;
        self.writeback()
    }

    /// Sends the queued requests to the device at `now_ns`; returns when the last ends.
    pub(crate) fn submit(&mut self, now_ns: u64) -> Result<u64, FsError> {
        let mut done = now_ns;
        for r in std::mem::take(&mut self.pending) {
            let t = self
                .dev
                .submit(&r, now_ns)
                .map_err(|e| FsError::Device(e.to_string()))?;
            done = done.max(t);
        }
        Ok(done)
    }

    /// Writes the dirty units and sends the queued writes untimed (mkfs).
    pub(crate) fn write_untimed(&mut self) -> Result<(), FsError> {
        self.writeback();
        // Each pending write is one write command, as the timed path sends it (mkfs
        // frees no unit, so nothing else is pending).
        for r in std::mem::take(&mut self.pending) {
            debug_assert_eq!(r.op, OpKind::Write, "mkfs queues writes only");
            self.dev
                .write_untimed_bytes(r.offset_bytes, r.size_bytes)
                .map_err(|e| FsError::Device(e.to_string()))?;
        }
        Ok(())
    }

    /// Unmount (every dirty unit written) and mount at `now_ns`: the mount reads
    /// `header_units` units from unit 0.
    pub(crate) fn remount(
        &mut self,
        now_ns: u64,
        header_units: u64,
    ) -> Result<MountStats, FsError> {
        self.writeback();
        let t = self.submit(now_ns)?;
        let reads0 = self.dev.nand.counters().total_reads();
        let r = IoRequest::new(OpKind::Read, 0, header_units * self.unit_bytes);
        let done = self
            .dev
            .submit(&r, t)
            .map_err(|e| FsError::Device(e.to_string()))?;
        Ok(MountStats {
            pages_read: self.dev.nand.counters().total_reads() - reads0,
            time_ns: done - t,
            from_checkpoint: false,
            blocks_scanned: 0,
        })
    }
}

/// The [`crate::fs::FileSystem`] methods every file system over a [`BlockIo`] field
/// `io` answers from the device: the FTL's map size, itself as the measured device,
/// the time reset.
macro_rules! fs_methods_through_io {
    () => {
        fn mapping_bytes(&self) -> u64 {
            self.io.dev.ftl.mapping_bytes()
        }

        fn device(&self) -> &dyn $crate::sim::Measure {
            self
        }

        fn reset_time(&mut self, now_ns: u64) {
            self.io.dev.reset_time(now_ns);
        }
    };
}
pub(crate) use fs_methods_through_io;

/// `impl Measure` for a file system over an FTL whose [`BlockIo`] is the field `io`:
/// the device's measures, with the file system's counters among the layer counters.
macro_rules! measure_through_io {
    ($t:ty) => {
        impl $crate::sim::Measure for $t {
            fn nand(&self) -> &$crate::nand::Nand {
                $crate::sim::Measure::nand(&self.io.dev)
            }
            fn host(&self) -> $crate::sim::HostCounters {
                $crate::sim::Measure::host(&self.io.dev)
            }
            fn resolved(&self) -> &$crate::config::ResolvedDevice {
                $crate::sim::Measure::resolved(&self.io.dev)
            }
            fn busy_ns(&self) -> Option<[u64; $crate::nand::CAUSES]> {
                $crate::sim::Measure::busy_ns(&self.io.dev)
            }
            fn layer_counters(&self, out: &mut $crate::spec::Counters) {
                $crate::sim::Measure::layer_counters(&self.io.dev, out);
                $crate::fs::FileSystem::counters(self, out);
            }
            fn mapping_bytes(&self) -> u64 {
                $crate::sim::Measure::mapping_bytes(&self.io.dev)
            }
            fn buffer_report(
                &self,
                host_writes: u64,
                host_reads: u64,
                programs: u64,
            ) -> $crate::report::BufferReport {
                $crate::sim::Measure::buffer_report(&self.io.dev, host_writes, host_reads, programs)
            }
            fn stage_counters(&self, out: &mut $crate::spec::Counters) {
                $crate::sim::Measure::stage_counters(&self.io.dev, out);
            }
        }
    };
}
pub(crate) use measure_through_io;
