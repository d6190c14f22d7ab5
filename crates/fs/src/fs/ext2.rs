//! An ext2-style block file system (R. Card, T. Ts'o, S. Tweedie, "Design and
//! implementation of the second extended filesystem", 1994) that turns file operations
//! into block requests for any FTL, through the simulator's device
//! ([`crate::sim::Device`]: device queue, write buffer, FTL, NAND, time model).
//!
//! ```text
//! layout     block groups of 8·block_size blocks; groups 0, 1 and powers of 3, 5, 7
//!            start with a superblock copy and the group descriptor table (sparse
//!            superblocks); every group: block bitmap, inode bitmap, inode table
//!            (inode_size bytes × inodes per group), then data blocks
//! inodes     12 direct pointers, single, double and triple indirect blocks
//! allocation a new file's inode goes in its directory's group (else the next group
//!            with a free inode), a directory's in the group with the most free blocks
//!            among those with free inodes; a data block goes right after the file's
//!            previous block if free, else the first free block from the inode's group
//!            on (ext2's goal-directed allocation)
//! directories entries of 8 + name rounded to 4 bytes packed in directory blocks; a
//!            new block when the last is full
//! write      data blocks go to the device at once (one request per run of contiguous
//!            blocks; a block partly written and holding data is read first);
//!            metadata blocks (bitmaps, group descriptors, inode table blocks,
//!            indirect and directory blocks) become dirty in the buffer cache
//! writeback  dirty metadata is written on fsync (then a device flush) and every
//!            writeback_ops operations (standing in for the periodic flusher), and at
//!            the end of the run
//! discard    with discard = true, freed blocks are trimmed (mount -o discard)
//! mkfs       superblocks, descriptors, bitmaps and the root directory are written
//!            before the run (inode tables are initialised lazily, as with
//!            lazy_itable_init); the metadata stays cached (no metadata reads)
//! ```

use super::block::{BlockIo, fs_methods_through_io, measure_through_io};
use super::{FileOp, FileOpKind, FileSystem, FsError, MountStats, components};
use crate::config::Design;
use crate::sim::Device;
use crate::workload::{IoRequest, OpKind};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use crate::config::fs::Ext2Config;
use crate::spec::{Counter, Counters};

/// Reported as `fs.ext2.data_block_writes`.
pub const DATA_BLOCK_WRITES: Counter = Counter::total(
    "fs.ext2.data_block_writes",
    "blocks",
    "file data blocks written",
);
/// Reported as `fs.ext2.data_block_reads`.
pub const DATA_BLOCK_READS: Counter = Counter::total(
    "fs.ext2.data_block_reads",
    "blocks",
    "file data blocks read",
);
/// Reported as `fs.ext2.meta_block_writes`.
pub const META_BLOCK_WRITES: Counter = Counter::total(
    "fs.ext2.meta_block_writes",
    "blocks",
    "metadata blocks written (bitmaps, inodes, directories, superblock)",
);
/// Reported as `fs.ext2.rmw_block_reads`.
pub const RMW_BLOCK_READS: Counter = Counter::total(
    "fs.ext2.rmw_block_reads",
    "blocks",
    "blocks read to complete a partial block write",
);
/// Reported as `fs.ext2.writebacks`.
pub const WRITEBACKS: Counter = Counter::total(
    "fs.ext2.writebacks",
    "writebacks",
    "metadata writebacks (every writeback_ops operations and at unmount)",
);
/// Reported as `fs.ext2.discarded_blocks`.
pub const DISCARDED_BLOCKS: Counter = Counter::total(
    "fs.ext2.discarded_blocks",
    "blocks",
    "freed blocks trimmed (discard = true)",
);
/// Reported as `fs.ext2.state.free_blocks`.
pub const FREE_BLOCKS: Counter =
    Counter::gauge("fs.ext2.state.free_blocks", "blocks", "free blocks");
/// Reported as `fs.ext2.state.blocks`.
pub const BLOCKS: Counter = Counter::gauge(
    "fs.ext2.state.blocks",
    "blocks",
    "blocks of the file system",
);
/// Reported as `fs.ext2.state.inodes`.
pub const INODES: Counter = Counter::gauge("fs.ext2.state.inodes", "inodes", "inodes in use");
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[
    DATA_BLOCK_WRITES,
    DATA_BLOCK_READS,
    META_BLOCK_WRITES,
    RMW_BLOCK_READS,
    WRITEBACKS,
    DISCARDED_BLOCKS,
    FREE_BLOCKS,
    BLOCKS,
    INODES,
];

const DIRECT: u64 = 12;
const ROOT_INO: u32 = 2;
const FIRST_INO: u32 = 11;

#[derive(Clone, Debug, Default)]
struct Group {
    bitmap: Vec<u64>,
    free_blocks: u64,
    inode_used: Vec<bool>,
    free_inodes: u64,
    dirs: u64,
    /// First block of the group, of its inode table, of its data.
    start: u64,
    itable: u64,
    data: u64,
    end: u64,
}

#[derive(Clone, Debug)]
struct Inode {
    dir: bool,
    size: u64,
    /// Physical block of each file block (0 = hole).
    blocks: Vec<u64>,
    /// Indirect blocks by (level, index at that level).
    indirect: HashMap<(u8, u64), u64>,
    /// Directory blocks with the bytes used in each.
    dir_blocks: Vec<(u64, u64)>,
    /// Directory entries: name -> (inode, directory block index).
    entries: HashMap<Arc<str>, (u32, usize)>,
}

impl Inode {
    fn new(dir: bool) -> Inode {
        Inode {
            dir,
            size: 0,
            blocks: Vec::new(),
            indirect: HashMap::new(),
            dir_blocks: Vec::new(),
            entries: HashMap::new(),
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Stats {
    data_block_writes: u64,
    data_block_reads: u64,
    rmw_block_reads: u64,
    discarded_blocks: u64,
}

/// The ext2-style file system on a simulated device.
pub struct Ext2 {
    cfg: Ext2Config,
    /// Device, queued requests and dirty metadata blocks.
    io: BlockIo,
    block: u64,
    blocks_total: u64,
    blocks_per_group: u64,
    inodes_per_group: u64,
    groups: Vec<Group>,
    inodes: HashMap<u32, Inode>,
    stats: Stats,
}

fn has_super(g: u64) -> bool {
    if g <= 1 {
        return true;
    }
    [3u64, 5, 7].iter().any(|&b| {
        let mut x = g;
        while x.is_multiple_of(b) {
            x /= b;
        }
        x == 1
    })
}

impl Ext2 {
    /// Builds the device of `design` and makes a file system on it (mkfs writes are
    /// untimed: the run starts on a freshly made file system).
    pub fn mkfs(design: &Design) -> Result<Ext2, FsError> {
        let cfg = design.config.fs.ext2.clone();
        let dev = Device::build(design).map_err(|e| FsError::Device(e.to_string()))?;
        let block = cfg.block_size.bytes();
        let blocks_total = dev.capacity_bytes() / block;
        let blocks_per_group = 8 * block;
        let ngroups = blocks_total.div_ceil(blocks_per_group);
        let inodes_per_group = (blocks_per_group * block / cfg.bytes_per_inode.bytes())
            .min(8 * block)
            .max(16);
        let itable_blocks = (inodes_per_group * cfg.inode_size as u64).div_ceil(block);
        let gdt_blocks = (ngroups * 32).div_ceil(block);
        let writeback_ops = cfg.writeback_ops;
        let mut fs = Ext2 {
            cfg,
            io: BlockIo::new(dev, block, writeback_ops),
            block,
            blocks_total,
            blocks_per_group,
            inodes_per_group,
            groups: Vec::new(),
            inodes: HashMap::new(),
            stats: Stats::default(),
        };
        for g in 0..ngroups {
            let start = g * blocks_per_group;
            let end = (start + blocks_per_group).min(blocks_total);
            let meta_start = start + if has_super(g) { 1 + gdt_blocks } else { 0 };
            let itable = meta_start + 2;
            let data = itable + itable_blocks;
            if data + 1 >= end {
                // A last group too small for its own metadata is left out, as mkfs does.
                if g == 0 {
                    return Err(FsError::NoSpace {
                        fs: "ext2",
                        detail: format!(
                            "{} B device too small for one block group",
                            fs.io.dev.capacity_bytes()
                        ),
                    });
                }
                fs.blocks_total = start;
                break;
            }
            let n = (end - start) as usize;
            let mut grp = Group {
                bitmap: vec![0; n.div_ceil(64)],
                free_blocks: 0,
                inode_used: vec![false; inodes_per_group as usize],
                free_inodes: inodes_per_group,
                dirs: 0,
                start,
                itable,
                data,
                end,
            };
            for b in start..data {
                let i = (b - start) as usize;
                grp.bitmap[i >> 6] |= 1 << (i & 63);
            }
            grp.free_blocks = end - data;
            fs.groups.push(grp);
            // Superblock copy, descriptors and both bitmaps are written by mkfs.
            for b in start..itable {
                fs.io.dirty.insert(b);
            }
        }
        // Reserved inodes 1..FIRST_INO.
        for i in 0..(FIRST_INO - 1) as usize {
            fs.groups[0].inode_used[i] = true;
        }
        fs.groups[0].free_inodes -= (FIRST_INO - 1) as u64;
        fs.inodes.insert(ROOT_INO, Inode::new(true));
        fs.groups[0].dirs += 1;
        fs.add_dir_block(ROOT_INO)?;
        fs.mark_inode_dirty(ROOT_INO);
        fs.io.write_untimed()?;
        Ok(fs)
    }

    fn group_of(&self, b: u64) -> usize {
        (b / self.blocks_per_group) as usize
    }

    fn inode_group(&self, ino: u32) -> usize {
        ((ino as u64 - 1) / self.inodes_per_group) as usize
    }

    fn mark_inode_dirty(&mut self, ino: u32) {
        let g = self.inode_group(ino);
        let idx = (ino as u64 - 1) % self.inodes_per_group;
        let blk = self.groups[g].itable + idx * self.cfg.inode_size as u64 / self.block;
        self.io.dirty.insert(blk);
    }

    fn mark_group_dirty(&mut self, g: usize) {
        // Its block bitmap, inode bitmap and descriptor (in group 0's table).
        let grp = &self.groups[g];
        self.io.dirty.insert(grp.itable - 2);
        self.io.dirty.insert(grp.itable - 1);
        self.io.dirty.insert(1);
    }

    fn is_free(&self, b: u64) -> bool {
        let g = &self.groups[self.group_of(b)];
        let i = (b - g.start) as usize;
        g.bitmap[i >> 6] & (1 << (i & 63)) == 0
    }

    fn take(&mut self, b: u64) {
        let gi = self.group_of(b);
        let g = &mut self.groups[gi];
        let i = (b - g.start) as usize;
        g.bitmap[i >> 6] |= 1 << (i & 63);
        g.free_blocks -= 1;
        self.mark_group_dirty(gi);
    }

    /// Allocates a block at `goal` if free, else the first free block from the goal's
    /// group on (wrapping).
    fn alloc_block(&mut self, goal: u64) -> Result<u64, FsError> {
        let goal = if goal < self.blocks_total { goal } else { 0 };
        if self.is_free(goal) && goal >= self.groups[self.group_of(goal)].data {
            self.take(goal);
            return Ok(goal);
        }
        let n = self.groups.len();
        let g0 = self.group_of(goal);
        for k in 0..n {
            let gi = (g0 + k) % n;
            let g = &self.groups[gi];
            if g.free_blocks == 0 {
                continue;
            }
            let from = if k == 0 { goal.max(g.data) } else { g.data };
            let first_word = ((from - g.start) / 64) as usize;
            for w in first_word..g.bitmap.len() {
                let mut bits = !g.bitmap[w];
                if w == first_word {
                    bits &= !0u64 << ((from - g.start) % 64);
                }
                if bits != 0 {
                    let b = g.start + w as u64 * 64 + bits.trailing_zeros() as u64;
                    if b < g.end {
                        self.take(b);
                        return Ok(b);
                    }
                }
            }
            if k == 0 {
                // Wrap to the start of the goal's group.
                for w in 0..=first_word.min(g.bitmap.len() - 1) {
                    let bits = !g.bitmap[w];
                    if bits != 0 {
                        let b = g.start + w as u64 * 64 + bits.trailing_zeros() as u64;
                        if b < g.end && b >= g.data {
                            self.take(b);
                            return Ok(b);
                        }
                    }
                }
            }
        }
        Err(FsError::NoSpace {
            fs: "ext2",
            detail: "no free block".into(),
        })
    }

    fn free_block(&mut self, b: u64) {
        let gi = self.group_of(b);
        let g = &mut self.groups[gi];
        let i = (b - g.start) as usize;
        debug_assert!(g.bitmap[i >> 6] & (1 << (i & 63)) != 0);
        g.bitmap[i >> 6] &= !(1 << (i & 63));
        g.free_blocks += 1;
        self.io.dirty.remove(&b);
        self.mark_group_dirty(gi);
        if self.cfg.discard {
            self.io.push(b, 1, OpKind::Trim);
            self.stats.discarded_blocks += 1;
        }
    }

    fn alloc_inode(&mut self, dir: bool, parent: u32) -> Result<u32, FsError> {
        let n = self.groups.len();
        let g0 = if dir {
            // Spread directories: most free blocks among groups with free inodes.
            (0..n)
                .filter(|&g| self.groups[g].free_inodes > 0)
                .max_by_key(|&g| (self.groups[g].free_blocks, std::cmp::Reverse(g)))
                .unwrap_or(0)
        } else {
            self.inode_group(parent)
        };
        for k in 0..n {
            let gi = (g0 + k) % n;
            if self.groups[gi].free_inodes == 0 {
                continue;
            }
            let g = &mut self.groups[gi];
            let i = g.inode_used.iter().position(|u| !u).expect("free inode");
            g.inode_used[i] = true;
            g.free_inodes -= 1;
            if dir {
                g.dirs += 1;
            }
            self.mark_group_dirty(gi);
            let ino = (gi as u64 * self.inodes_per_group + i as u64 + 1) as u32;
            self.inodes.insert(ino, Inode::new(dir));
            self.mark_inode_dirty(ino);
            return Ok(ino);
        }
        Err(FsError::NoSpace {
            fs: "ext2",
            detail: "no free inode".into(),
        })
    }

    fn free_inode(&mut self, ino: u32) {
        let gi = self.inode_group(ino);
        let i = ((ino as u64 - 1) % self.inodes_per_group) as usize;
        let dir = self.inodes.remove(&ino).is_some_and(|n| n.dir);
        let g = &mut self.groups[gi];
        g.inode_used[i] = false;
        g.free_inodes += 1;
        if dir {
            g.dirs -= 1;
        }
        self.mark_group_dirty(gi);
        self.mark_inode_dirty(ino);
    }

    fn add_dir_block(&mut self, dir: u32) -> Result<usize, FsError> {
        let goal = self.groups[self.inode_group(dir)].data;
        let b = self.alloc_block(goal)?;
        let d = self.inodes.get_mut(&dir).expect("dir");
        d.dir_blocks.push((b, 0));
        d.size += self.block;
        self.io.dirty.insert(b);
        self.mark_inode_dirty(dir);
        Ok(self.inodes[&dir].dir_blocks.len() - 1)
    }

    fn add_entry(&mut self, dir: u32, name: Arc<str>, ino: u32) -> Result<(), FsError> {
        let rec = 8 + (name.len() as u64).div_ceil(4) * 4;
        let block = self.block;
        let d = &self.inodes[&dir];
        let slot = d
            .dir_blocks
            .iter()
            .position(|&(_, used)| used + rec <= block);
        let i = match slot {
            Some(i) => i,
            None => self.add_dir_block(dir)?,
        };
        let d = self.inodes.get_mut(&dir).expect("dir");
        d.dir_blocks[i].1 += rec;
        let b = d.dir_blocks[i].0;
        d.entries.insert(name, (ino, i));
        self.io.dirty.insert(b);
        Ok(())
    }

    fn remove_entry(&mut self, dir: u32, name: &str) {
        let d = self.inodes.get_mut(&dir).expect("dir");
        if let Some((_, i)) = d.entries.remove(name) {
            d.dir_blocks[i].1 -= 8 + (name.len() as u64).div_ceil(4) * 4;
            let b = d.dir_blocks[i].0;
            self.io.dirty.insert(b);
        }
    }

    fn lookup(&self, path: &str) -> Option<u32> {
        let mut cur = ROOT_INO;
        for c in components(path) {
            cur = self.inodes.get(&cur)?.entries.get(c)?.0;
        }
        Some(cur)
    }

    fn parent_of(&self, op: &FileOp, path: &str) -> Result<(u32, Arc<str>), FsError> {
        super::resolve_parent(op, path, |p| self.lookup(p), |i| self.inodes[&i].dir)
    }

    fn file(&self, op: &FileOp) -> Result<u32, FsError> {
        super::resolve_file(op, |p| self.lookup(p), |i| self.inodes[&i].dir)
    }

    /// The indirect blocks file block `i` is reached through, as (level, index) keys,
    /// outermost first.
    fn indirect_path(&self, i: u64) -> Vec<(u8, u64)> {
        let per = self.block / 4;
        if i < DIRECT {
            return vec![];
        }
        let i = i - DIRECT;
        if i < per {
            return vec![(1, 0)];
        }
        let i = i - per;
        if i < per * per {
            return vec![(2, 0), (3, i / per)];
        }
        let i = i - per * per;
        vec![(4, 0), (5, i / (per * per)), (6, i / per)]
    }

    /// Maps file block `i` of `ino` to a new block near `goal`.
    fn map_block(&mut self, ino: u32, i: u64, goal: u64) -> Result<u64, FsError> {
        for key in self.indirect_path(i) {
            if !self.inodes[&ino].indirect.contains_key(&key) {
                let b = self.alloc_block(goal)?;
                self.inodes
                    .get_mut(&ino)
                    .expect("inode")
                    .indirect
                    .insert(key, b);
                self.io.dirty.insert(b);
            }
        }
        // The pointer lives in the innermost indirect block, or in the inode.
        match self.indirect_path(i).last() {
            Some(key) => {
                let b = self.inodes[&ino].indirect[key];
                self.io.dirty.insert(b);
            }
            None => self.mark_inode_dirty(ino),
        }
        let b = self.alloc_block(goal)?;
        let n = self.inodes.get_mut(&ino).expect("inode");
        if n.blocks.len() <= i as usize {
            n.blocks.resize(i as usize + 1, 0);
        }
        n.blocks[i as usize] = b;
        Ok(b)
    }

    fn write(&mut self, op: &FileOp) -> Result<(), FsError> {
        let ino = self.file(op)?;
        if op.len_bytes == 0 {
            return Ok(());
        }
        let bs = self.block;
        let end = op.offset_bytes + op.len_bytes;
        let size = self.inodes[&ino].size;
        let mut data = Vec::new();
        let mut rmw = Vec::new();
        let g = self.inode_group(ino);
        for i in op.offset_bytes / bs..end.div_ceil(bs) {
            let cur = self.inodes[&ino]
                .blocks
                .get(i as usize)
                .copied()
                .unwrap_or(0);
            let b = if cur != 0 {
                let partial =
                    (op.offset_bytes > i * bs || end < ((i + 1) * bs).min(size)) && i * bs < size;
                if partial {
                    rmw.push(cur);
                }
                cur
            } else {
                let prev = self.inodes[&ino]
                    .blocks
                    .iter()
                    .take(i as usize)
                    .rev()
                    .find(|&&b| b != 0)
                    .copied();
                let goal = prev.map_or(self.groups[g].data, |p| p + 1);
                self.map_block(ino, i, goal)?
            };
            data.push(b);
        }
        self.stats.rmw_block_reads += rmw.len() as u64;
        self.stats.data_block_writes += data.len() as u64;
        self.io.push_runs(&rmw, OpKind::Read);
        self.io.push_runs(&data, OpKind::Write);
        let n = self.inodes.get_mut(&ino).expect("inode");
        if end > n.size {
            n.size = end;
            self.mark_inode_dirty(ino);
        }
        Ok(())
    }

    fn read(&mut self, op: &FileOp) -> Result<(), FsError> {
        let ino = self.file(op)?;
        let n = &self.inodes[&ino];
        let end = (op.offset_bytes + op.len_bytes).min(n.size);
        if op.offset_bytes >= end {
            return Ok(());
        }
        let blocks: Vec<u64> = (op.offset_bytes / self.block..end.div_ceil(self.block))
            .filter_map(|i| n.blocks.get(i as usize).copied().filter(|&b| b != 0))
            .collect();
        self.stats.data_block_reads += blocks.len() as u64;
        self.io.push_runs(&blocks, OpKind::Read);
        Ok(())
    }

    fn truncate(&mut self, ino: u32, size: u64) {
        let keep = size.div_ceil(self.block);
        let n = self.inodes.get_mut(&ino).expect("inode");
        let freed: Vec<u64> = n
            .blocks
            .iter()
            .skip(keep as usize)
            .copied()
            .filter(|&b| b != 0)
            .collect();
        n.blocks.truncate(keep as usize);
        n.size = size;
        // Indirect blocks no longer needed.
        let needed: BTreeSet<(u8, u64)> = (0..keep).flat_map(|i| self.indirect_path(i)).collect();
        let n = self.inodes.get_mut(&ino).expect("inode");
        let mut gone = Vec::new();
        n.indirect.retain(|k, b| {
            let keep = needed.contains(k);
            if !keep {
                gone.push(*b);
            }
            keep
        });
        for b in freed.into_iter().chain(gone) {
            self.free_block(b);
        }
        self.mark_inode_dirty(ino);
    }

    fn apply(&mut self, op: &FileOp) -> Result<(), FsError> {
        match op.kind {
            FileOpKind::Create | FileOpKind::Mkdir => {
                let (parent, name) = self.parent_of(op, &op.path)?;
                if self.inodes[&parent].entries.contains_key(&name) {
                    return Err(FsError::Exists {
                        at: String::new(),
                        op: op.kind.name(),
                        path: op.path.to_string(),
                    });
                }
                let dir = op.kind == FileOpKind::Mkdir;
                let ino = self.alloc_inode(dir, parent)?;
                if dir {
                    self.add_dir_block(ino)?;
                }
                self.add_entry(parent, name, ino)?;
                Ok(())
            }
            FileOpKind::Open | FileOpKind::Close => self.file(op).map(drop),
            FileOpKind::Write => self.write(op),
            FileOpKind::Read => self.read(op),
            FileOpKind::Truncate => {
                let ino = self.file(op)?;
                if op.offset_bytes < self.inodes[&ino].size {
                    self.truncate(ino, op.offset_bytes);
                } else {
                    self.inodes.get_mut(&ino).expect("inode").size = op.offset_bytes;
                    self.mark_inode_dirty(ino);
                }
                Ok(())
            }
            FileOpKind::Unlink => {
                let ino = self.file(op)?;
                let (parent, name) = self.parent_of(op, &op.path)?;
                self.remove_entry(parent, &name);
                self.truncate(ino, 0);
                self.free_inode(ino);
                Ok(())
            }
            FileOpKind::Rename => {
                let ino = super::resolve_existing(op, &op.path, |p| self.lookup(p))?;
                let to = op.to.clone().unwrap_or_else(|| op.path.clone());
                let (np, nname) = self.parent_of(op, &to)?;
                let (op_, oname) = self.parent_of(op, &op.path)?;
                if let Some(&(t, _)) = self.inodes[&np].entries.get(&nname) {
                    if t == ino {
                        return Ok(());
                    }
                    if self.inodes[&t].dir {
                        return Err(FsError::Exists {
                            at: String::new(),
                            op: "rename",
                            path: to.to_string(),
                        });
                    }
                    self.remove_entry(np, &nname);
                    self.truncate(t, 0);
                    self.free_inode(t);
                }
                self.remove_entry(op_, &oname);
                self.add_entry(np, nname, ino)?;
                self.mark_inode_dirty(ino);
                Ok(())
            }
            FileOpKind::Fsync => {
                self.file(op)?;
                self.io.fsync();
                Ok(())
            }
        }
    }

    /// Performs `op` on the file system's structures and queues its block requests
    /// (with the periodic metadata writeback), without sending them.
    fn stage(&mut self, op: &FileOp) -> Result<(), FsError> {
        self.apply(op).map_err(|e| e.at(op))?;
        self.io.op_done();
        Ok(())
    }

    /// The block requests `op` sends, taken instead of sent: a block trace below the
    /// file system for replays outside the simulator (the device below sees nothing).
    pub fn trace_op(&mut self, op: &FileOp) -> Result<Vec<IoRequest>, FsError> {
        self.stage(op)?;
        Ok(std::mem::take(&mut self.io.pending))
    }

    /// `sync`: the dirty metadata's writes, taken instead of sent (see [`Ext2::trace_op`]).
    pub fn trace_sync(&mut self) -> Vec<IoRequest> {
        self.io.sync();
        std::mem::take(&mut self.io.pending)
    }

    /// Free blocks (tests).
    pub fn free_blocks(&self) -> u64 {
        self.groups.iter().map(|g| g.free_blocks).sum()
    }

    /// Blocks in the file system.
    pub fn blocks_total(&self) -> u64 {
        self.blocks_total
    }

    /// The device below.
    pub fn device_ref(&self) -> &Device {
        &self.io.dev
    }
}

impl FileSystem for Ext2 {
    fn name(&self) -> &'static str {
        "ext2"
    }

    fn exec(&mut self, op: &FileOp, now_ns: u64) -> Result<u64, FsError> {
        self.stage(op)?;
        self.io.submit(now_ns)
    }

    fn remount(&mut self, now_ns: u64) -> Result<MountStats, FsError> {
        // Unmount writes every dirty block; ext2 keeps its metadata at fixed places, so
        // mounting reads the superblock and group descriptors only.
        let gdt = (self.groups.len() as u64 * 32).div_ceil(self.block);
        self.io.remount(now_ns, 1 + gdt)
    }

    fn counters(&self, out: &mut Counters) {
        let s = &self.stats;
        for (k, v) in [
            (&DATA_BLOCK_WRITES, s.data_block_writes),
            (&DATA_BLOCK_READS, s.data_block_reads),
            (&META_BLOCK_WRITES, self.io.meta_unit_writes),
            (&RMW_BLOCK_READS, s.rmw_block_reads),
            (&WRITEBACKS, self.io.writebacks),
            (&DISCARDED_BLOCKS, s.discarded_blocks),
            (&FREE_BLOCKS, self.free_blocks()),
            (&BLOCKS, self.blocks_total),
            (&INODES, self.inodes.len() as u64),
        ] {
            out.set(k, v);
        }
    }

    fs_methods_through_io!();

    fn check(&self) {
        self.io.dev.ftl.check_invariants(&self.io.dev.nand);
        self.io.dev.nand.check_invariants();
    }
}

measure_through_io!(Ext2);
