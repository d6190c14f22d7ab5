//! A FAT file system (vfat: FAT16 and FAT32 with long file names) over any FTL, through
//! the simulator's device ([`crate::sim::Device`]), after Microsoft's "FAT: General
//! Overview of On-Disk Format" (the FAT32 File System Specification, version 1.03,
//! 2000). Where the specification leaves a choice, the model does what Linux does:
//! dosfstools' mkfs.fat (4.x) formats the volume, the kernel's vfat driver (fs/fat)
//! allocates clusters, names entries and writes metadata back.
//!
//! ```text
//! layout     512-byte sectors: reserved sectors (boot sector; FAT32 also FSInfo at 1
//!            and the backup boot sector at 6), two FAT copies, on FAT16 the fixed
//!            root directory (512 entries), then the data clusters from number 2
//! type       mkfs.fat: FAT32 from 512 MiB up, below FAT16 (mkfs.fat would pick FAT12
//!            under 4,085 clusters; not modelled: refused)
//! cluster    FAT32 by Microsoft's table as mkfs.fat copies it (≤ 260 MiB 512 B,
//!            ≤ 8 GiB 4 KiB, ≤ 16 GiB 8 KiB, ≤ 32 GiB 16 KiB, above 32 KiB); FAT16:
//!            mkfs.fat starts at 2 KiB and doubles until the count fits FAT16
//!            (4,087..=65,524); reserved sectors, FATs and the root region aligned
//!            to the cluster, the sector count to the track (mkfs.fat's defaults)
//! allocation a cluster chain per file in the FAT; a new cluster is the first free one
//!            after the last cluster allocated anywhere (Linux's prev_free, the
//!            FSInfo next-free hint), wrapping to cluster 2
//! directories 32-byte entries in the parent's clusters (FAT16 root: its fixed region);
//!            a name that is not a valid upper-case 8.3 name takes ⌈UTF-16 units / 13⌉
//!            long-name (LFN) entries before its 8.3 entry (vfat's default
//!            shortname=mixed creates names the Win95 way); a name goes in the first
//!            run of free slots, the directory grows by a zeroed cluster when none is
//!            long enough; directories never shrink
//! write      FAT has no holes: a write past the end first fills the gap with zeros;
//!            data sectors go to the device at once (one request per run of
//!            contiguous sectors; a sector partly written and holding data is read
//!            first: Linux's 512-byte buffers); FAT sectors (both copies), directory
//!            sectors and the FSInfo sector become dirty in the buffer cache, with the
//!            entry's size, first cluster and mtime updated on every write
//! writeback  ext2's rule (block.rs): on fsync (then a device flush), every
//!            writeback_ops operations, at unmount
//! delete     the chain's FAT entries are zeroed and the entry's slots marked 0xE5;
//!            discard = true trims each freed run of clusters (mount -o discard)
//! mkfs       as mkfs.fat: every reserved sector (boot sector, FSInfo and backup on
//!            FAT32), both whole FATs, and the root directory (FAT16: its region;
//!            FAT32: cluster 2), written before the run; the metadata stays cached
//! mount      the boot sector (and FSInfo on FAT32) is read
//! ```

use super::block::{BlockIo, fs_methods_through_io, measure_through_io};
use super::{FileOp, FileOpKind, FileSystem, FsError, MountStats, components};
use crate::config::Design;
use crate::sim::Device;
use crate::spec::{Counter, Counters};
use crate::workload::{IoRequest, OpKind};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// Reported as `fs.fat.data_sector_writes`.
pub const DATA_SECTOR_WRITES: Counter = Counter::total(
    "fs.fat.data_sector_writes",
    "sectors",
    "file data sectors written (zero fill included)",
);
/// Reported as `fs.fat.data_sector_reads`.
pub const DATA_SECTOR_READS: Counter = Counter::total(
    "fs.fat.data_sector_reads",
    "sectors",
    "file data sectors read",
);
/// Reported as `fs.fat.rmw_sector_reads`.
pub const RMW_SECTOR_READS: Counter = Counter::total(
    "fs.fat.rmw_sector_reads",
    "sectors",
    "sectors read to complete a partial sector write",
);
/// Reported as `fs.fat.zero_fill_sector_writes`.
pub const ZERO_FILL_SECTOR_WRITES: Counter = Counter::total(
    "fs.fat.zero_fill_sector_writes",
    "sectors",
    "sectors of zeros written where a write starts past the file's end",
);
/// Reported as `fs.fat.meta_sector_writes`.
pub const META_SECTOR_WRITES: Counter = Counter::total(
    "fs.fat.meta_sector_writes",
    "sectors",
    "metadata sectors written (FAT, directory and FSInfo)",
);
/// Reported as `fs.fat.fat_sector_writes`.
pub const FAT_SECTOR_WRITES: Counter = Counter::total(
    "fs.fat.fat_sector_writes",
    "sectors",
    "FAT sectors written (every copy)",
);
/// Reported as `fs.fat.dir_sector_writes`.
pub const DIR_SECTOR_WRITES: Counter = Counter::total(
    "fs.fat.dir_sector_writes",
    "sectors",
    "directory sectors written",
);
/// Reported as `fs.fat.fsinfo_sector_writes`.
pub const FSINFO_SECTOR_WRITES: Counter = Counter::total(
    "fs.fat.fsinfo_sector_writes",
    "sectors",
    "FSInfo sectors written (FAT32)",
);
/// Reported as `fs.fat.writebacks`.
pub const WRITEBACKS: Counter = Counter::total(
    "fs.fat.writebacks",
    "writebacks",
    "metadata writebacks (every writeback_ops operations and at unmount)",
);
/// Reported as `fs.fat.lfn_entries`.
pub const LFN_ENTRIES: Counter = Counter::gauge(
    "fs.fat.lfn_entries",
    "entries",
    "long-name directory entries made (reported as a state value: not subtracted over a phase)",
);
/// Reported as `fs.fat.discarded_clusters`.
pub const DISCARDED_CLUSTERS: Counter = Counter::total(
    "fs.fat.discarded_clusters",
    "clusters",
    "freed clusters trimmed (discard = true)",
);
/// Reported as `fs.fat.state.free_clusters`.
pub const FREE_CLUSTERS: Counter =
    Counter::gauge("fs.fat.state.free_clusters", "clusters", "free clusters");
/// Reported as `fs.fat.state.clusters`.
pub const CLUSTERS: Counter = Counter::gauge(
    "fs.fat.state.clusters",
    "clusters",
    "data clusters of the volume",
);
/// Reported as `fs.fat.state.cluster_bytes`.
pub const CLUSTER_BYTES: Counter =
    Counter::gauge("fs.fat.state.cluster_bytes", "bytes", "cluster size");
/// Reported as `fs.fat.state.fat_bits`.
pub const FAT_BITS: Counter = Counter::gauge(
    "fs.fat.state.fat_bits",
    "bits",
    "bits per FAT entry (16 or 32)",
);
/// Reported as `fs.fat.state.files`.
pub const FILES: Counter = Counter::gauge(
    "fs.fat.state.files",
    "files",
    "files and directories, the root excluded",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[
    DATA_SECTOR_WRITES,
    DATA_SECTOR_READS,
    RMW_SECTOR_READS,
    ZERO_FILL_SECTOR_WRITES,
    META_SECTOR_WRITES,
    FAT_SECTOR_WRITES,
    DIR_SECTOR_WRITES,
    FSINFO_SECTOR_WRITES,
    WRITEBACKS,
    LFN_ENTRIES,
    DISCARDED_CLUSTERS,
    FREE_CLUSTERS,
    CLUSTERS,
    CLUSTER_BYTES,
    FAT_BITS,
    FILES,
];

/// Bytes of a sector (the model's only sector size, as on SD cards).
pub const SECTOR_BYTES: u64 = 512;
/// Bytes of a directory entry.
const ENTRY_BYTES: u64 = 32;
/// The first data cluster.
const FIRST_CLUSTER: u32 = 2;
/// End of chain as the FAT stores it (read as such by FAT16 and FAT32 alike).
const EOC: u32 = 0x0FFF_FFFF;
/// The largest file FAT can hold (the size field is 32 bits).
const MAX_FILE_BYTES: u64 = 0xFFFF_FFFF;
/// Linux's limit on a directory's entries (FAT_MAX_DIR_ENTRIES).
const MAX_DIR_ENTRIES: u64 = 65536;
/// mkfs.fat's cluster-count limits (FAT12 below MIN_CLUST_16; 4,085 and 4,086 avoided
/// because Windows and Linux disagree on them).
const MIN_CLUST_16: u64 = 4087;
const MAX_CLUST_12: u64 = 4084;
const MAX_CLUST_16: u64 = 65524;
const MIN_CLUST_32: u64 = 65525;
const MAX_CLUST_32: u64 = 268_435_446;
/// mkfs.fat's default root directory entries on FAT16.
const ROOT_ENTRIES_16: u64 = 512;

use crate::config::fs::{FatConfig, FatTypeChoice};

/// FAT16 or FAT32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FatType {
    /// 16-bit FAT entries, fixed root directory region.
    Fat16,
    /// 32-bit FAT entries (28 used), root directory in a cluster chain.
    Fat32,
}

/// Where everything lies on the volume, in sectors, as mkfs.fat lays it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FatLayout {
    /// FAT16 or FAT32.
    pub fat_type: FatType,
    /// Sectors of the file system (the volume's, rounded down to a track).
    pub sectors: u64,
    /// Sectors per cluster.
    pub sectors_per_cluster: u64,
    /// Reserved sectors before the first FAT.
    pub reserved_sectors: u64,
    /// Sectors of one FAT copy.
    pub fat_sectors: u64,
    /// Sectors of the fixed root directory (FAT16; 0 on FAT32).
    pub root_dir_sectors: u64,
    /// Data clusters (numbered from 2).
    pub clusters: u64,
}

fn align(sectors: u64, to: u64, on: bool) -> u64 {
    if on {
        sectors.div_ceil(to) * to
    } else {
        sectors
    }
}

/// Why mkfs.fat's layout does not fit a volume under `fs.fat`: each names the volume
/// size, the cluster counts mkfs.fat accepts and the keys to change.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FatLayoutError {
    /// mkfs.fat would choose FAT12, which is not modelled.
    #[error(
        "{bytes} B volume: mkfs.fat would make FAT12 here ({clusters} clusters of {cluster_bytes} B, FAT16 needs {min_fat16}), which ssdlab does not model; expected a larger device.capacity or a smaller fs.fat.cluster_size"
    )]
    Fat12 {
        /// Volume size.
        bytes: u64,
        /// Clusters the FAT16 layout would have.
        clusters: u64,
        /// Cluster size tried.
        cluster_bytes: u64,
        /// The fewest clusters of a FAT16 volume.
        min_fat16: u64,
    },
    /// No cluster size gives a cluster count within the type's bounds.
    #[error(
        "{bytes} B volume: no {what} layout with {} within mkfs.fat's cluster counts {min}..={max}; expected another fs.fat.cluster_size or fs.fat.fat_type",
        .cluster_size.map_or("any cluster size".to_string(), |c| format!("{c} clusters"))
    )]
    NoLayout {
        /// Volume size.
        bytes: u64,
        /// FAT16 or FAT32.
        what: &'static str,
        /// `fs.fat.cluster_size`, when set.
        cluster_size: Option<crate::units::Size>,
        /// The fewest clusters of the type.
        min: u64,
        /// The most clusters of the type.
        max: u64,
    },
}

impl FatLayout {
    /// mkfs.fat's layout of a `bytes`-byte volume under `cfg` (dosfstools 4.x:
    /// `establish_params` and `setup_tables`, with its defaults: two FATs, 512 root
    /// entries on FAT16, 1 reserved sector on FAT16 and 32 on FAT32, structures aligned
    /// to the cluster, the sector count to the track).
    pub fn for_volume(bytes: u64, cfg: &FatConfig) -> Result<FatLayout, FatLayoutError> {
        let total = bytes / SECTOR_BYTES;
        // mkfs.fat's track size when the device reports no geometry.
        let secs_track = if total <= 524_288 {
            if total <= 4096 { 16 } else { 32 }
        } else {
            63
        };
        let fat32 = match cfg.fat_type {
            FatTypeChoice::Fat32 => true,
            FatTypeChoice::Fat16 => false,
            FatTypeChoice::Auto => bytes >= 512 << 20,
        };
        let mut spc = if fat32 {
            // Microsoft's table (FAT32 specification p. 20), as mkfs.fat has it.
            match total {
                t if t > 32 << 21 => 64,
                t if t > 16 << 21 => 32,
                t if t > 8 << 21 => 16,
                t if t > 260 << 11 => 8,
                _ => 1,
            }
        } else {
            4
        };
        let mut max_spc = 128;
        if let Some(c) = cfg.cluster_size {
            spc = c.bytes() / SECTOR_BYTES;
            max_spc = spc;
        }
        let sectors = total / secs_track * secs_track;
        // Tiny volumes (floppy size) are not aligned.
        let aligned = sectors > 8192;
        let reserved0 = if fat32 { 32 } else { 1 };
        let root_sectors0 = if fat32 {
            0
        } else {
            ROOT_ENTRIES_16 * ENTRY_BYTES / SECTOR_BYTES
        };
        let what = if fat32 { "FAT32" } else { "FAT16" };
        while spc <= max_spc {
            let reserved = align(reserved0, spc, aligned);
            let root = align(root_sectors0, spc, aligned);
            if sectors <= reserved + root {
                break;
            }
            let data = sectors - reserved - root;
            // The cluster count the FATs leave room for (two copies; the first two
            // entries are reserved), then recounted with the FAT length rounded up.
            let (entry, min, max) = if fat32 {
                (4, MIN_CLUST_32, MAX_CLUST_32)
            } else {
                (2, MIN_CLUST_16, MAX_CLUST_16)
            };
            let guess = (data * SECTOR_BYTES + 2 * 2 * entry) / (spc * SECTOR_BYTES + 2 * entry);
            let fat_len = align(((guess + 2) * entry).div_ceil(SECTOR_BYTES), spc, aligned);
            let clusters = data.saturating_sub(2 * fat_len) / spc;
            let fits = clusters <= max.min(fat_len * SECTOR_BYTES / entry);
            let enough = clusters >= min || fat32 && cfg.fat_type == FatTypeChoice::Fat32;
            if fits && enough && clusters > 0 {
                return Ok(FatLayout {
                    fat_type: if fat32 {
                        FatType::Fat32
                    } else {
                        FatType::Fat16
                    },
                    sectors,
                    sectors_per_cluster: spc,
                    reserved_sectors: reserved,
                    fat_sectors: fat_len,
                    root_dir_sectors: root,
                    clusters,
                });
            }
            if fits && !fat32 {
                // Too few clusters for FAT16: mkfs.fat takes FAT12 here if it fits.
                let c12 = data * SECTOR_BYTES * 2 / (2 * spc * SECTOR_BYTES + 6);
                if c12 <= MAX_CLUST_12 && cfg.fat_type == FatTypeChoice::Auto {
                    return Err(FatLayoutError::Fat12 {
                        bytes,
                        clusters,
                        cluster_bytes: spc * SECTOR_BYTES,
                        min_fat16: MIN_CLUST_16,
                    });
                }
            }
            spc *= 2;
        }
        Err(FatLayoutError::NoLayout {
            bytes,
            what,
            cluster_size: cfg.cluster_size,
            min: if fat32 { MIN_CLUST_32 } else { MIN_CLUST_16 },
            max: if fat32 { MAX_CLUST_32 } else { MAX_CLUST_16 },
        })
    }

    /// Bytes of a FAT entry.
    pub fn entry_bytes(&self) -> u64 {
        match self.fat_type {
            FatType::Fat16 => 2,
            FatType::Fat32 => 4,
        }
    }

    /// Bytes of a cluster.
    pub fn cluster_bytes(&self) -> u64 {
        self.sectors_per_cluster * SECTOR_BYTES
    }

    /// First sector of FAT copy `copy` (0 or 1).
    pub fn fat_start(&self, copy: u64) -> u64 {
        self.reserved_sectors + copy * self.fat_sectors
    }

    /// First sector of the fixed root directory (FAT16).
    pub fn root_start(&self) -> u64 {
        self.fat_start(2)
    }

    /// First sector of cluster 2.
    pub fn data_start(&self) -> u64 {
        self.root_start() + self.root_dir_sectors
    }

    /// First sector of cluster `c`.
    pub fn cluster_sector(&self, c: u32) -> u64 {
        self.data_start() + (c - FIRST_CLUSTER) as u64 * self.sectors_per_cluster
    }

    /// The sector of FAT copy `copy` holding cluster `c`'s entry.
    pub fn fat_sector(&self, c: u32, copy: u64) -> u64 {
        self.fat_start(copy) + c as u64 * self.entry_bytes() / SECTOR_BYTES
    }
}

/// Long-name entries a name takes besides its 8.3 entry: none for a valid 8.3 name
/// without lower-case letters (vfat creates names the Win95 way: a lower-case 8.3
/// name gets a long name too), else one per 13 UTF-16 units. `None` past 255 units.
pub fn lfn_entries(name: &str) -> Option<u64> {
    let units = name.encode_utf16().count() as u64;
    if units > 255 {
        return None;
    }
    let valid_part = |p: &str, max: usize| {
        !p.is_empty()
            && p.len() <= max
            && p.chars().all(|c| {
                c.is_ascii_uppercase() || c.is_ascii_digit() || "$%'-_@~`!(){}^#&".contains(c)
            })
    };
    let short = match name.split_once('.') {
        None => valid_part(name, 8),
        Some((base, ext)) => valid_part(base, 8) && valid_part(ext, 3),
    };
    Some(if short { 0 } else { units.div_ceil(13) })
}

/// What an entry names.
#[derive(Clone, Debug)]
struct Node {
    dir: bool,
    /// File size (directories: 0, as FAT stores them).
    size: u64,
    /// The cluster chain.
    chain: Vec<u32>,
    /// Parent directory and the first of the entry's slots there (LFN entries, then
    /// the 8.3 entry).
    parent: u32,
    slot: u64,
    slots: u64,
    /// Directories: name -> node, and which slots are in use.
    entries: HashMap<Arc<str>, u32>,
    used: Vec<bool>,
}

impl Node {
    fn new(dir: bool, parent: u32) -> Node {
        Node {
            dir,
            size: 0,
            chain: Vec::new(),
            parent,
            slot: 0,
            slots: 0,
            entries: HashMap::new(),
            used: Vec::new(),
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Stats {
    data_sector_writes: u64,
    data_sector_reads: u64,
    rmw_sector_reads: u64,
    zero_fill_sector_writes: u64,
    fat_sector_writes: u64,
    dir_sector_writes: u64,
    fsinfo_sector_writes: u64,
    lfn_entries: u64,
    discarded_clusters: u64,
}

const ROOT: u32 = 0;

/// The FAT file system on a simulated device.
pub struct Fat {
    cfg: FatConfig,
    layout: FatLayout,
    /// Device, queued requests and dirty metadata sectors.
    io: BlockIo,
    /// The FAT: 0 free, [`EOC`] end of chain, else the next cluster.
    fat: Vec<u32>,
    free_clusters: u64,
    /// The last cluster allocated (Linux's prev_free; FSInfo's next-free hint).
    prev_free: u32,
    nodes: HashMap<u32, Node>,
    next_id: u32,
    stats: Stats,
}

impl Fat {
    /// Builds the device of `design` and formats it as mkfs.fat does (the writes are
    /// untimed: the run starts on a freshly made file system).
    pub fn mkfs(design: &Design) -> Result<Fat, FsError> {
        let cfg = design.config.fs.fat.clone();
        let dev = Device::build(design).map_err(|e| FsError::Device(e.to_string()))?;
        let layout =
            FatLayout::for_volume(dev.capacity_bytes(), &cfg).map_err(|e| FsError::NoSpace {
                fs: "fat",
                detail: e.to_string(),
            })?;
        let writeback_ops = cfg.writeback_ops;
        let n = layout.clusters as usize + FIRST_CLUSTER as usize;
        let mut fs = Fat {
            cfg,
            layout,
            io: BlockIo::new(dev, SECTOR_BYTES, writeback_ops),
            fat: vec![0; n],
            free_clusters: layout.clusters,
            prev_free: FIRST_CLUSTER,
            nodes: HashMap::new(),
            next_id: 1,
            stats: Stats::default(),
        };
        // Entries 0 and 1 hold the media byte and the clean flags.
        fs.fat[0] = EOC;
        fs.fat[1] = EOC;
        let mut root = Node::new(true, ROOT);
        match layout.fat_type {
            FatType::Fat16 => {
                root.used =
                    vec![false; (layout.root_dir_sectors * SECTOR_BYTES / ENTRY_BYTES) as usize];
            }
            FatType::Fat32 => {
                // The root directory is cluster 2, allocated by mkfs.
                fs.fat[FIRST_CLUSTER as usize] = EOC;
                fs.free_clusters -= 1;
                root.chain.push(FIRST_CLUSTER);
                root.used = vec![false; (layout.cluster_bytes() / ENTRY_BYTES) as usize];
            }
        }
        fs.nodes.insert(ROOT, root);
        // mkfs.fat writes every reserved sector, both whole FATs and the root directory.
        let root_end = match layout.fat_type {
            FatType::Fat16 => layout.data_start(),
            FatType::Fat32 => layout.data_start() + layout.sectors_per_cluster,
        };
        fs.io.dirty.extend(0..root_end);
        fs.io.write_untimed()?;
        Ok(fs)
    }

    /// The layout mkfs chose.
    pub fn layout(&self) -> &FatLayout {
        &self.layout
    }

    /// Free clusters.
    pub fn free_clusters(&self) -> u64 {
        self.free_clusters
    }

    /// The device below.
    pub fn device_ref(&self) -> &Device {
        &self.io.dev
    }

    fn node(&self, id: u32) -> &Node {
        &self.nodes[&id]
    }

    fn node_mut(&mut self, id: u32) -> &mut Node {
        self.nodes.get_mut(&id).expect("node")
    }

    fn fsinfo_dirty(&mut self) {
        if self.layout.fat_type == FatType::Fat32 {
            self.io.dirty.insert(1);
        }
    }

    /// Sets cluster `c`'s FAT entry, dirtying its sector in both copies.
    fn set_fat(&mut self, c: u32, v: u32) {
        self.fat[c as usize] = v;
        for copy in 0..2 {
            let s = self.layout.fat_sector(c, copy);
            self.io.dirty.insert(s);
        }
    }

    /// Allocates the first free cluster after the last one allocated (wrapping), as
    /// Linux's fat_alloc_clusters, and ends a chain there.
    fn alloc_cluster(&mut self) -> Result<u32, FsError> {
        if self.free_clusters == 0 {
            return Err(FsError::NoSpace {
                fs: "fat",
                detail: format!("all {} clusters in use", self.layout.clusters),
            });
        }
        let n = self.fat.len() as u32;
        let mut c = self.prev_free + 1;
        loop {
            if c >= n {
                c = FIRST_CLUSTER;
            }
            if self.fat[c as usize] == 0 {
                break;
            }
            c += 1;
        }
        self.set_fat(c, EOC);
        self.free_clusters -= 1;
        self.prev_free = c;
        self.fsinfo_dirty();
        Ok(c)
    }

    /// Appends `count` clusters to `id`'s chain; returns them.
    fn extend_chain(&mut self, id: u32, count: u64) -> Result<Vec<u32>, FsError> {
        let mut added = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let c = self.alloc_cluster()?;
            match self.node(id).chain.last().copied() {
                Some(last) => self.set_fat(last, c),
                // The first cluster lives in the directory entry.
                None => self.entry_dirty(id),
            }
            self.node_mut(id).chain.push(c);
            added.push(c);
        }
        Ok(added)
    }

    /// Frees `id`'s clusters from chain index `keep` on (the FAT entries zeroed, the
    /// new last one ending the chain); trims them with discard.
    fn cut_chain(&mut self, id: u32, keep: usize) {
        let freed: Vec<u32> = self.node_mut(id).chain.drain(keep..).collect();
        if freed.is_empty() {
            return;
        }
        match self.node(id).chain.last().copied() {
            Some(last) => self.set_fat(last, EOC),
            None => self.entry_dirty(id),
        }
        for &c in &freed {
            self.set_fat(c, 0);
        }
        self.free_clusters += freed.len() as u64;
        self.fsinfo_dirty();
        if self.cfg.discard {
            let mut sorted = freed;
            sorted.sort_unstable();
            let spc = self.layout.sectors_per_cluster;
            let mut i = 0;
            while i < sorted.len() {
                let mut j = i + 1;
                while j < sorted.len() && sorted[j] == sorted[j - 1] + 1 {
                    j += 1;
                }
                let s = self.layout.cluster_sector(sorted[i]);
                self.io.push(s, (j - i) as u64 * spc, OpKind::Trim);
                self.stats.discarded_clusters += (j - i) as u64;
                i = j;
            }
        }
    }

    /// The device sector of directory `dir`'s slot `slot`.
    fn slot_sector(&self, dir: u32, slot: u64) -> u64 {
        let byte = slot * ENTRY_BYTES;
        let d = self.node(dir);
        if dir == ROOT && self.layout.fat_type == FatType::Fat16 {
            return self.layout.root_start() + byte / SECTOR_BYTES;
        }
        let cb = self.layout.cluster_bytes();
        self.layout.cluster_sector(d.chain[(byte / cb) as usize]) + byte % cb / SECTOR_BYTES
    }

    /// Marks the sector of `id`'s 8.3 entry dirty (size, first cluster, times).
    fn entry_dirty(&mut self, id: u32) {
        if id == ROOT {
            return; // the root has no entry
        }
        let n = self.node(id);
        let s = self.slot_sector(n.parent, n.slot + n.slots - 1);
        self.io.dirty.insert(s);
    }

    /// Marks the sectors of slots `from..from + count` of `dir` dirty.
    fn slots_dirty(&mut self, dir: u32, from: u64, count: u64) {
        for k in from..from + count {
            let s = self.slot_sector(dir, k);
            self.io.dirty.insert(s);
        }
    }

    /// Zeroes new directory clusters (their sectors become dirty metadata, as Linux's
    /// fat_add_new_entries and fat_alloc_new_dir write them through the buffer cache).
    fn zero_clusters(&mut self, clusters: &[u32]) {
        for &c in clusters {
            let s = self.layout.cluster_sector(c);
            self.io.dirty.extend(s..s + self.layout.sectors_per_cluster);
        }
    }

    /// Takes `count` free slots in `dir` (the first run long enough, the directory
    /// grown by clusters when none is); returns the first.
    fn take_slots(&mut self, dir: u32, count: u64) -> Result<u64, FsError> {
        let d = self.node(dir);
        let mut run = 0;
        let mut found = None;
        for (i, &u) in d.used.iter().enumerate() {
            run = if u { 0 } else { run + 1 };
            if run == count {
                found = Some(i as u64 + 1 - count);
                break;
            }
        }
        let first = match found {
            Some(f) => f,
            None => {
                // The free slots at the end continue into the new clusters.
                let have = d.used.len() as u64;
                let need = count - run;
                if dir == ROOT && self.layout.fat_type == FatType::Fat16 {
                    return Err(FsError::NoSpace {
                        fs: "fat",
                        detail: format!("FAT16's fixed root directory is full ({have} entries)"),
                    });
                }
                if have + need > MAX_DIR_ENTRIES {
                    return Err(FsError::NoSpace {
                        fs: "fat",
                        detail: format!("a directory holds at most {MAX_DIR_ENTRIES} entries"),
                    });
                }
                let per = self.layout.cluster_bytes() / ENTRY_BYTES;
                let added = self.extend_chain(dir, need.div_ceil(per))?;
                self.zero_clusters(&added);
                let d = self.node_mut(dir);
                d.used
                    .resize((have + added.len() as u64 * per) as usize, false);
                have - run
            }
        };
        let d = self.node_mut(dir);
        for u in &mut d.used[first as usize..(first + count) as usize] {
            *u = true;
        }
        self.slots_dirty(dir, first, count);
        // The directory's mtime changes: its own entry is rewritten.
        self.entry_dirty(dir);
        Ok(first)
    }

    /// Puts `id` in `dir` under `name` (LFN entries and the 8.3 entry).
    fn add_entry(&mut self, op: &FileOp, dir: u32, name: Arc<str>, id: u32) -> Result<(), FsError> {
        let lfn = lfn_entries(&name).ok_or_else(|| FsError::WrongType {
            at: String::new(),
            op: op.kind.name(),
            path: op.path.to_string(),
            what: "has a name longer than FAT's 255 characters",
        })?;
        let slot = self.take_slots(dir, lfn + 1)?;
        self.stats.lfn_entries += lfn;
        let n = self.node_mut(id);
        n.parent = dir;
        n.slot = slot;
        n.slots = lfn + 1;
        self.node_mut(dir).entries.insert(name, id);
        Ok(())
    }

    /// Marks `id`'s slots deleted (0xE5) and takes its name out of its directory.
    fn remove_entry(&mut self, name: &str, id: u32) {
        let (dir, slot, slots) = {
            let n = self.node(id);
            (n.parent, n.slot, n.slots)
        };
        let d = self.node_mut(dir);
        d.entries.remove(name);
        for u in &mut d.used[slot as usize..(slot + slots) as usize] {
            *u = false;
        }
        self.slots_dirty(dir, slot, slots);
        self.entry_dirty(dir);
    }

    fn lookup(&self, path: &str) -> Option<u32> {
        let mut cur = ROOT;
        for c in components(path) {
            cur = *self.nodes.get(&cur)?.entries.get(c)?;
        }
        Some(cur)
    }

    fn parent_of(&self, op: &FileOp, path: &str) -> Result<(u32, Arc<str>), FsError> {
        super::resolve_parent(op, path, |p| self.lookup(p), |i| self.node(i).dir)
    }

    fn file(&self, op: &FileOp) -> Result<u32, FsError> {
        super::resolve_file(op, |p| self.lookup(p), |i| self.node(i).dir)
    }

    /// The device sector of file sector `i` of `id`.
    fn file_sector(&self, id: u32, i: u64) -> u64 {
        let spc = self.layout.sectors_per_cluster;
        self.layout
            .cluster_sector(self.node(id).chain[(i / spc) as usize])
            + i % spc
    }

    /// Writes bytes `start..end` of file `id` (`start` at most its size: FAT has no
    /// holes); `zero_to` ends the part that is the zero fill of a gap.
    fn write_range(
        &mut self,
        op: &FileOp,
        id: u32,
        start: u64,
        end: u64,
        zero_to: u64,
    ) -> Result<(), FsError> {
        if end > MAX_FILE_BYTES {
            return Err(FsError::NoSpace {
                fs: "fat",
                detail: format!(
                    "{} would end at byte {end}, past FAT's largest file ({MAX_FILE_BYTES} B)",
                    op.path
                ),
            });
        }
        let size = self.node(id).size;
        let cb = self.layout.cluster_bytes();
        let have = self.node(id).chain.len() as u64;
        let need = end.div_ceil(cb);
        if need > have {
            self.extend_chain(id, need - have)?;
        }
        let (s0, s1) = (start / SECTOR_BYTES, end.div_ceil(SECTOR_BYTES));
        // A first or last sector partly written and holding data is read first.
        let mut rmw = Vec::new();
        for i in [s0, s1 - 1] {
            let partial = (start > i * SECTOR_BYTES || end < ((i + 1) * SECTOR_BYTES).min(size))
                && i * SECTOR_BYTES < size;
            if partial && rmw.last() != Some(&i) {
                rmw.push(i);
            }
        }
        let rmw: Vec<u64> = rmw.into_iter().map(|i| self.file_sector(id, i)).collect();
        let data: Vec<u64> = (s0..s1).map(|i| self.file_sector(id, i)).collect();
        self.stats.rmw_sector_reads += rmw.len() as u64;
        self.stats.data_sector_writes += data.len() as u64;
        self.stats.zero_fill_sector_writes += zero_to.div_ceil(SECTOR_BYTES).saturating_sub(s0);
        self.io.push_runs(&rmw, OpKind::Read);
        self.io.push_runs(&data, OpKind::Write);
        let n = self.node_mut(id);
        n.size = n.size.max(end);
        // Size and mtime live in the entry.
        self.entry_dirty(id);
        Ok(())
    }

    fn write(&mut self, op: &FileOp) -> Result<(), FsError> {
        let id = self.file(op)?;
        if op.len_bytes == 0 {
            return Ok(());
        }
        let size = self.node(id).size;
        let start = op.offset_bytes.min(size);
        let zero_to = if op.offset_bytes > size {
            op.offset_bytes
        } else {
            0
        };
        self.write_range(op, id, start, op.offset_bytes + op.len_bytes, zero_to)
    }

    fn read(&mut self, op: &FileOp) -> Result<(), FsError> {
        let id = self.file(op)?;
        let end = (op.offset_bytes + op.len_bytes).min(self.node(id).size);
        if op.offset_bytes >= end {
            return Ok(());
        }
        let sectors: Vec<u64> = (op.offset_bytes / SECTOR_BYTES..end.div_ceil(SECTOR_BYTES))
            .map(|i| self.file_sector(id, i))
            .collect();
        self.stats.data_sector_reads += sectors.len() as u64;
        self.io.push_runs(&sectors, OpKind::Read);
        Ok(())
    }

    fn truncate(&mut self, op: &FileOp, id: u32, size: u64) -> Result<(), FsError> {
        let old = self.node(id).size;
        if size > old {
            // Growing fills with zeros (Linux's fat_cont_expand).
            return self.write_range(op, id, old, size, size);
        }
        let keep = size.div_ceil(self.layout.cluster_bytes()) as usize;
        self.cut_chain(id, keep);
        self.node_mut(id).size = size;
        self.entry_dirty(id);
        Ok(())
    }

    fn apply(&mut self, op: &FileOp) -> Result<(), FsError> {
        match op.kind {
            FileOpKind::Create | FileOpKind::Mkdir => {
                let (parent, name) = self.parent_of(op, &op.path)?;
                if self.node(parent).entries.contains_key(&name) {
                    return Err(FsError::Exists {
                        at: String::new(),
                        op: op.kind.name(),
                        path: op.path.to_string(),
                    });
                }
                let dir = op.kind == FileOpKind::Mkdir;
                let id = self.next_id;
                self.next_id += 1;
                self.nodes.insert(id, Node::new(dir, parent));
                if let Err(e) = self.add_entry(op, parent, name, id) {
                    self.nodes.remove(&id);
                    return Err(e);
                }
                if dir {
                    // One zeroed cluster with "." and "..".
                    let c = self.extend_chain(id, 1)?;
                    self.zero_clusters(&c);
                    let per = self.layout.cluster_bytes() / ENTRY_BYTES;
                    let n = self.node_mut(id);
                    n.used = vec![false; per as usize];
                    n.used[0] = true;
                    n.used[1] = true;
                }
                Ok(())
            }
            FileOpKind::Open | FileOpKind::Close => self.file(op).map(drop),
            FileOpKind::Write => self.write(op),
            FileOpKind::Read => self.read(op),
            FileOpKind::Truncate => {
                let id = self.file(op)?;
                self.truncate(op, id, op.offset_bytes)
            }
            FileOpKind::Unlink => {
                let id = self.file(op)?;
                let (_, name) = self.parent_of(op, &op.path)?;
                self.remove_entry(&name, id);
                self.cut_chain(id, 0);
                self.nodes.remove(&id);
                Ok(())
            }
            FileOpKind::Rename => self.rename(op),
            FileOpKind::Fsync => {
                self.file(op)?;
                let s = self.io.fsync();
                self.count_meta(&s);
                Ok(())
            }
        }
    }

    /// vfat_rename: onto an existing file, the moved entry takes the target's slots and
    /// the target's clusters are freed; else a new entry is made; the old slots are
    /// deleted; a directory moved elsewhere gets its ".." entry rewritten.
    fn rename(&mut self, op: &FileOp) -> Result<(), FsError> {
        let id = super::resolve_existing(op, &op.path, |p| self.lookup(p))?;
        let to = op.to.clone().unwrap_or_else(|| op.path.clone());
        let (np, nname) = self.parent_of(op, &to)?;
        let (_, oname) = self.parent_of(op, &op.path)?;
        let old_parent = self.node(id).parent;
        let target = self.node(np).entries.get(&nname).copied();
        if target == Some(id) {
            return Ok(());
        }
        let (old_slot, old_slots) = (self.node(id).slot, self.node(id).slots);
        match target {
            Some(t) => {
                if self.node(t).dir {
                    return Err(FsError::Exists {
                        at: String::new(),
                        op: "rename",
                        path: to.to_string(),
                    });
                }
                let (slot, slots) = (self.node(t).slot, self.node(t).slots);
                self.cut_chain(t, 0);
                self.nodes.remove(&t);
                let n = self.node_mut(id);
                n.parent = np;
                n.slot = slot;
                n.slots = slots;
                self.node_mut(np).entries.insert(nname, id);
                self.entry_dirty(id);
                self.entry_dirty(np);
            }
            None => {
                // Made before the old one goes (Linux adds, then removes).
                self.add_entry(op, np, nname, id)?;
            }
        }
        let d = self.node_mut(old_parent);
        d.entries.remove(&oname);
        for u in &mut d.used[old_slot as usize..(old_slot + old_slots) as usize] {
            *u = false;
        }
        self.slots_dirty(old_parent, old_slot, old_slots);
        self.entry_dirty(old_parent);
        if self.node(id).dir && old_parent != np {
            let s = self.slot_sector(id, 1);
            self.io.dirty.insert(s);
        }
        Ok(())
    }

    /// Splits written-back sectors into FAT, FSInfo and directory sectors.
    fn count_meta(&mut self, sectors: &[u64]) {
        let fat = self.layout.fat_start(0)..self.layout.root_start();
        for &s in sectors {
            if fat.contains(&s) {
                self.stats.fat_sector_writes += 1;
            } else if s < self.layout.reserved_sectors {
                self.stats.fsinfo_sector_writes += 1;
            } else {
                self.stats.dir_sector_writes += 1;
            }
        }
    }

    /// Performs `op` and queues its requests (with the periodic writeback), unsent.
    fn stage(&mut self, op: &FileOp) -> Result<(), FsError> {
        self.apply(op).map_err(|e| e.at(op))?;
        let s = self.io.op_done();
        self.count_meta(&s);
        Ok(())
    }

    /// The block requests `op` sends, taken instead of sent (see
    /// [`super::ext2::Ext2::trace_op`]).
    pub fn trace_op(&mut self, op: &FileOp) -> Result<Vec<IoRequest>, FsError> {
        self.stage(op)?;
        Ok(std::mem::take(&mut self.io.pending))
    }

    /// `sync`: the dirty metadata's writes, taken instead of sent.
    pub fn trace_sync(&mut self) -> Vec<IoRequest> {
        let s = self.io.sync();
        self.count_meta(&s);
        std::mem::take(&mut self.io.pending)
    }

    /// Every file and directory (tests): path -> (is a directory, size, cluster chain).
    pub fn tree(&self) -> BTreeMap<String, (bool, u64, Vec<u32>)> {
        let mut out = BTreeMap::new();
        let mut stack = vec![(ROOT, String::new())];
        while let Some((id, path)) = stack.pop() {
            for (name, &c) in &self.node(id).entries {
                let p = format!("{path}/{name}");
                let n = self.node(c);
                out.insert(p.clone(), (n.dir, n.size, n.chain.clone()));
                if n.dir {
                    stack.push((c, p));
                }
            }
        }
        out
    }

    /// The cluster chain the FAT holds from `first` (tests).
    pub fn fat_chain(&self, first: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut c = first;
        while (FIRST_CLUSTER..EOC).contains(&c) && out.len() <= self.fat.len() {
            out.push(c);
            c = self.fat[c as usize];
        }
        out
    }

    /// The device sectors bytes `offset..offset + len` of `path` occupy (tests).
    pub fn sectors_of(&self, path: &str, offset: u64, len: u64) -> Vec<u64> {
        let id = self.lookup(path).expect("path");
        (offset / SECTOR_BYTES..(offset + len).div_ceil(SECTOR_BYTES))
            .map(|i| self.file_sector(id, i))
            .collect()
    }

    /// The device sectors of `path`'s directory entry slots, LFN entries first (tests).
    pub fn entry_sectors(&self, path: &str) -> Vec<u64> {
        let id = self.lookup(path).expect("path");
        let n = self.node(id);
        (n.slot..n.slot + n.slots)
            .map(|k| self.slot_sector(n.parent, k))
            .collect()
    }

    /// Dirty metadata sectors (tests).
    pub fn dirty_sectors(&self) -> Vec<u64> {
        self.io.dirty.iter().copied().collect()
    }

    /// Checks the FAT against the chains: every chain linked in order and ended, every
    /// other cluster free, the free count right, directory slots consistent.
    pub fn check_structure(&self) {
        let mut owned = BTreeSet::new();
        for (id, n) in &self.nodes {
            if let Some(&first) = n.chain.first() {
                assert_eq!(self.fat_chain(first), n.chain, "node {id}: FAT chain");
                assert_eq!(self.fat[*n.chain.last().unwrap() as usize], EOC);
            }
            for &c in &n.chain {
                assert!(owned.insert(c), "cluster {c} in two chains");
            }
            if n.dir {
                let used = n.used.iter().filter(|&&u| u).count() as u64;
                let dots = if *id == ROOT { 0 } else { 2 };
                let want: u64 = n.entries.values().map(|c| self.node(*c).slots).sum();
                assert_eq!(used, want + dots, "node {id}: slots in use");
            } else {
                let cb = self.layout.cluster_bytes();
                assert_eq!(
                    n.chain.len() as u64,
                    n.size.div_ceil(cb),
                    "node {id}: clusters"
                );
            }
        }
        let free = (FIRST_CLUSTER as usize..self.fat.len())
            .filter(|&c| self.fat[c] == 0)
            .count() as u64;
        assert_eq!(free, self.free_clusters, "free count");
        assert_eq!(
            free + owned.len() as u64,
            self.layout.clusters,
            "clusters neither free nor in a chain"
        );
    }
}

impl FileSystem for Fat {
    fn name(&self) -> &'static str {
        "fat"
    }

    fn exec(&mut self, op: &FileOp, now_ns: u64) -> Result<u64, FsError> {
        self.stage(op)?;
        self.io.submit(now_ns)
    }

    fn remount(&mut self, now_ns: u64) -> Result<MountStats, FsError> {
        // Unmount writes every dirty sector; mounting reads the boot sector, and the
        // FSInfo sector after it on FAT32 (the FAT is read on demand; cached here).
        let pending = self.io.dirty.iter().copied().collect::<Vec<_>>();
        self.count_meta(&pending);
        let header = match self.layout.fat_type {
            FatType::Fat16 => 1,
            FatType::Fat32 => 2,
        };
        self.io.remount(now_ns, header)
    }

    fn counters(&self, out: &mut Counters) {
        let s = &self.stats;
        for (k, v) in [
            (&DATA_SECTOR_WRITES, s.data_sector_writes),
            (&DATA_SECTOR_READS, s.data_sector_reads),
            (&RMW_SECTOR_READS, s.rmw_sector_reads),
            (&ZERO_FILL_SECTOR_WRITES, s.zero_fill_sector_writes),
            (&META_SECTOR_WRITES, self.io.meta_unit_writes),
            (&FAT_SECTOR_WRITES, s.fat_sector_writes),
            (&DIR_SECTOR_WRITES, s.dir_sector_writes),
            (&FSINFO_SECTOR_WRITES, s.fsinfo_sector_writes),
            (&WRITEBACKS, self.io.writebacks),
            (&LFN_ENTRIES, s.lfn_entries),
            (&DISCARDED_CLUSTERS, s.discarded_clusters),
            (&FREE_CLUSTERS, self.free_clusters),
            (&CLUSTERS, self.layout.clusters),
            (&CLUSTER_BYTES, self.layout.cluster_bytes()),
            (&FAT_BITS, 8 * self.layout.entry_bytes()),
            (&FILES, self.nodes.len() as u64 - 1),
        ] {
            out.set(k, v);
        }
    }

    fs_methods_through_io!();

    fn check(&self) {
        self.check_structure();
        self.io.dev.ftl.check_invariants(&self.io.dev.nand);
        self.io.dev.nand.check_invariants();
    }
}

measure_through_io!(Fat);
