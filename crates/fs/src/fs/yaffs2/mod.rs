//! A YAFFS2-style log-structured flash file system on the raw NAND array, after
//! Aleph One's YAFFS2 ("How YAFFS works", C. Manning; the yaffs2 sources' tag layout,
//! block states, GC victim search and checkpoint), as docs/papers.md §4 describes it:
//! no FTL, the file system writes flash pages (chunks) itself.
//!
//! ```text
//! on flash   every chunk carries tags in its spare area: object id, chunk id
//!            (0 = object header, n = n-th data chunk of a file), byte count, and the
//!            sequence number of its block (blocks are numbered as they are allocated)
//! in RAM     object table (id -> type, parent, name, size, header chunk); per file a
//!            Tnode tree chunk -> page (tnode.rs); per block state, sequence number,
//!            live chunks, "holds a shrink header"
//! write      for each chunk touched: read the old chunk if only part is written,
//!            program a new chunk at the allocation point, point the Tnode at it and
//!            delete the old one (a block whose chunks are all deleted is erased at
//!            once); the object header (size) is rewritten on fsync and close
//! allocate   one block at a time in block order, each given the next sequence number;
//!            keep reserved_blocks erased for GC; ENOSPC when only the reserve is free
//! truncate   delete chunks past the new end, rewrite a partial last chunk, write a
//!            header marked "shrink"; its block may be collected only when it is the
//!            oldest dirty block (so no older chunk the shrink deleted can come back)
//! unlink     header moved to the "deleted" directory, then resized to 0 (a shrink
//!            header), all chunks and the header deleted, the object freed
//! GC         before every chunk write (gc.rs): aggressive when fewer than reserved +
//!            checkpoint + 1 blocks are erased (dirtiest block over the whole device,
//!            copied whole), else passive (dirtiest of at most 100 blocks from a
//!            rotating finder, ≤ 4..chunks/8 live chunks, ≤ 5 copies per call); every
//!            10th/20th failed search takes the oldest dirty block; background GC in
//!            idle time with a looser threshold
//! mount      scan.rs: read the first chunk's tags of every block (state, sequence),
//!            then every chunk's tags newest block first, newest chunk first: the first
//!            chunk seen for (object, chunk id) wins, headers give names and sizes,
//!            shrink headers cut older chunks; or, with a checkpoint, read it instead
//! checkpoint written at unmount into erased blocks (block info, object table, Tnode
//!            contents), erased at the first change after mount
//! ```
//! `mapping_bytes` is the RAM of the Tnode trees (Tnode size from the chunk-number
//! width, as YAFFS2 sizes them) plus the object table. Header and checkpoint programs,
//! scan reads are of cause `Map`; data chunks `Host`; GC copies and erases `Gc`.

pub mod gc;
pub mod scan;
pub mod tnode;

use super::{FileOp, FileOpKind, FileSystem, FsError, MountStats, components};
use crate::config::{Design, ResolvedDevice};
use crate::nand::{BlockId, Cause, Lpn, Nand, Ppn};
use crate::sim::{HostCounters, Measure};
use crate::timing::{PlaceCtx, TimeModel};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use tnode::{Tnodes, Tree};

use crate::config::fs::Yaffs2Config;
use crate::spec::{Counter, Counters};

/// Reported as `fs.yaffs2.chunk_writes`.
pub const CHUNK_WRITES: Counter =
    Counter::total("fs.yaffs2.chunk_writes", "chunks", "data chunks written");
/// Reported as `fs.yaffs2.header_writes`.
pub const HEADER_WRITES: Counter = Counter::total(
    "fs.yaffs2.header_writes",
    "chunks",
    "object header chunks written",
);
/// Reported as `fs.yaffs2.gc.passive`.
pub const GC_PASSIVE: Counter = Counter::total(
    "fs.yaffs2.gc.passive",
    "blocks",
    "blocks collected by passive GC",
);
/// Reported as `fs.yaffs2.gc.aggressive`.
pub const GC_AGGRESSIVE: Counter = Counter::total(
    "fs.yaffs2.gc.aggressive",
    "blocks",
    "blocks collected by aggressive GC",
);
/// Reported as `fs.yaffs2.gc.background`.
pub const GC_BACKGROUND: Counter = Counter::total(
    "fs.yaffs2.gc.background",
    "blocks",
    "blocks collected by background GC",
);
/// Reported as `fs.yaffs2.gc.oldest_dirty`.
pub const GC_OLDEST_DIRTY: Counter = Counter::total(
    "fs.yaffs2.gc.oldest_dirty",
    "blocks",
    "blocks collected as the oldest dirty block",
);
/// Reported as `fs.yaffs2.gc.copies`.
pub const GC_COPIES: Counter =
    Counter::total("fs.yaffs2.gc.copies", "chunks", "live chunks GC copied");
/// Reported as `fs.yaffs2.erased_when_dirty`.
pub const ERASED_WHEN_DIRTY: Counter = Counter::total(
    "fs.yaffs2.erased_when_dirty",
    "blocks",
    "blocks erased as soon as their last chunk died",
);
/// Reported as `fs.yaffs2.mounts`.
pub const MOUNTS: Counter = Counter::total("fs.yaffs2.mounts", "mounts", "mounts");
/// Reported as `fs.yaffs2.mount.pages_read`.
pub const MOUNT_PAGES_READ: Counter = Counter::total(
    "fs.yaffs2.mount.pages_read",
    "pages",
    "flash pages the mounts read (tags and headers, or checkpoint chunks)",
);
/// Reported as `fs.yaffs2.checkpoints_written`.
pub const CHECKPOINTS_WRITTEN: Counter = Counter::total(
    "fs.yaffs2.checkpoints_written",
    "checkpoints",
    "checkpoints written at unmount",
);
/// Reported as `fs.yaffs2.checkpoint.chunks`.
pub const CHECKPOINT_CHUNKS: Counter = Counter::total(
    "fs.yaffs2.checkpoint.chunks",
    "chunks",
    "chunks the checkpoints took",
);
/// Reported as `fs.yaffs2.checkpoint.mounts`.
pub const CHECKPOINT_MOUNTS: Counter = Counter::total(
    "fs.yaffs2.checkpoint.mounts",
    "mounts",
    "mounts that read a checkpoint instead of scanning",
);
/// Reported as `fs.yaffs2.state.erased_blocks`.
pub const ERASED_BLOCKS: Counter =
    Counter::gauge("fs.yaffs2.state.erased_blocks", "blocks", "erased blocks");
/// Reported as `fs.yaffs2.state.free_chunks`.
pub const FREE_CHUNKS: Counter =
    Counter::gauge("fs.yaffs2.state.free_chunks", "chunks", "free chunks");
/// Reported as `fs.yaffs2.state.objects`.
pub const OBJECTS: Counter = Counter::gauge(
    "fs.yaffs2.state.objects",
    "objects",
    "objects (files, directories)",
);
/// Reported as `fs.yaffs2.state.tnodes`.
pub const TNODES: Counter = Counter::gauge(
    "fs.yaffs2.state.tnodes",
    "tnodes",
    "Tnodes of the file trees (internal and leaf)",
);
/// Reported as `fs.yaffs2.state.last_mount.pages_read`.
pub const LAST_MOUNT_PAGES_READ: Counter = Counter::gauge(
    "fs.yaffs2.state.last_mount.pages_read",
    "pages",
    "flash pages the last mount read",
);
/// Reported as `fs.yaffs2.state.last_mount.time_ns`.
pub const LAST_MOUNT_TIME_NS: Counter = Counter::gauge(
    "fs.yaffs2.state.last_mount.time_ns",
    "ns",
    "simulated time of the last mount",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[
    CHUNK_WRITES,
    HEADER_WRITES,
    GC_PASSIVE,
    GC_AGGRESSIVE,
    GC_BACKGROUND,
    GC_OLDEST_DIRTY,
    GC_COPIES,
    ERASED_WHEN_DIRTY,
    MOUNTS,
    MOUNT_PAGES_READ,
    CHECKPOINTS_WRITTEN,
    CHECKPOINT_CHUNKS,
    CHECKPOINT_MOUNTS,
    ERASED_BLOCKS,
    FREE_CHUNKS,
    OBJECTS,
    TNODES,
    LAST_MOUNT_PAGES_READ,
    LAST_MOUNT_TIME_NS,
];

/// Object ids YAFFS2 reserves.
pub const ROOT: u32 = 1;
/// Lost+found directory.
pub const LOST_N_FOUND: u32 = 2;
/// Parent of objects unlinked while open.
pub const UNLINKED: u32 = 3;
/// Parent of deleted objects.
pub const DELETED: u32 = 4;
const FIRST_USER_ID: u32 = 5;
/// Page index meaning "none".
const NONE: u32 = u32::MAX;
/// Sequence number of checkpoint blocks.
const CHECKPOINT_SEQ: u32 = u32::MAX;

/// Object kind (YAFFS2's object types that the workloads use).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
}

/// The data area of an object-header chunk (what YAFFS2's `yaffs_obj_hdr` holds that
/// the model needs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Object type.
    pub kind: ObjKind,
    /// Parent directory id.
    pub parent: u32,
    /// Name in the parent.
    pub name: Arc<str>,
    /// File size in bytes.
    pub size: u64,
    /// Written by a truncation (or deletion): older chunks past `size` are dead.
    pub shrink: bool,
}

/// Spare-area tags of a chunk besides the chunk id (kept in the NAND's own tag) and the
/// block's sequence number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Spare {
    obj: u32,
    /// Bytes of data in the chunk; [`TORN`] when the program was cut by a power loss
    /// (the ECC check fails on read).
    n_bytes: u32,
}

const TORN: u32 = u32::MAX;

/// Contents of a data chunk for tests: byte ranges `[start, end)` and the write that
/// put them there (a write-version number). Bytes in no range are zero.
pub type Content = Vec<(u32, u32, u64)>;

/// The flash as YAFFS2 sees it through MTD: pages with data and spare areas. Persists
/// across mounts and power cuts; everything else in [`Yaffs2`] is RAM.
struct Mtd {
    nand: Nand,
    spare: Vec<Spare>,
    /// Sequence number of each block, as written in the tags of each of its chunks.
    block_seq: Vec<u32>,
    /// Data areas of header chunks.
    headers: HashMap<u32, Header>,
    /// Data areas of data chunks, when contents are tracked (tests).
    data: Option<HashMap<u32, Content>>,
    /// Checkpoint stream bytes held by each checkpoint block.
    checkpoint: BTreeMap<u32, Vec<u8>>,
    /// Flash programs and erases left before the power is cut (crash tests).
    power_left: Option<u64>,
    /// Write versions handed out (tests).
    versions: u64,
}

impl Mtd {
    fn ppb(&self) -> u32 {
        self.nand.geometry().pages_per_block
    }

    fn block_of(&self, p: u32) -> u32 {
        p / self.ppb()
    }

    fn spend_power(&mut self) -> Result<(), FsError> {
        match &mut self.power_left {
            Some(0) => Err(FsError::PowerCut),
            Some(n) => {
                *n -= 1;
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// Programs chunk `p` with tags (`obj`, `chunk_id`, `n_bytes`). A program cut by the
    /// power leaves a torn page behind.
    fn program(
        &mut self,
        p: u32,
        obj: u32,
        chunk_id: u32,
        n_bytes: u32,
        cause: Cause,
    ) -> Result<(), FsError> {
        if self.power_left == Some(0) {
            self.nand.program(Ppn(p), Lpn(chunk_id), cause);
            self.nand.invalidate(Ppn(p));
            self.spare[p as usize] = Spare { obj, n_bytes: TORN };
            return Err(FsError::PowerCut);
        }
        self.spend_power()?;
        self.nand.program(Ppn(p), Lpn(chunk_id), cause);
        self.spare[p as usize] = Spare { obj, n_bytes };
        Ok(())
    }

    fn erase(&mut self, b: u32, cause: Cause) -> Result<(), FsError> {
        self.spend_power()?;
        self.nand.erase(BlockId(b), cause);
        let first = b * self.ppb();
        for p in first..first + self.ppb() {
            self.headers.remove(&p);
            if let Some(d) = &mut self.data {
                d.remove(&p);
            }
        }
        self.checkpoint.remove(&b);
        self.block_seq[b as usize] = 0;
        Ok(())
    }

    fn chunk_id(&self, p: u32) -> u32 {
        self.nand.oob(Ppn(p)).lpn.0
    }
}

/// Block states (YAFFS2's `yaffs_block_state` that occur here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockState {
    /// Erased, ready for allocation.
    Empty,
    /// The allocation block (partly written).
    Allocating,
    /// Fully written (or abandoned part written after a mount).
    Full,
    /// Being garbage-collected.
    Collecting,
    /// Holds checkpoint data.
    Checkpoint,
}

#[derive(Clone, Copy, Debug)]
struct BlockInfo {
    state: BlockState,
    seq: u32,
    /// Live chunks.
    in_use: u32,
    /// Holds a shrink header (see the module docs).
    has_shrink: bool,
}

/// One object in RAM.
#[derive(Clone, Debug)]
struct Object {
    kind: ObjKind,
    parent: u32,
    name: Arc<str>,
    size: u64,
    /// Header chunk.
    hdr: u32,
    tree: Tree,
    data_chunks: u32,
    /// The header on flash is out of date (size changed).
    dirty: bool,
    // Scan state.
    valid: bool,
    shrink_size: u64,
    scanned_size: u64,
}

impl Object {
    fn new(kind: ObjKind) -> Object {
        Object {
            kind,
            parent: ROOT,
            name: "".into(),
            size: 0,
            hdr: NONE,
            tree: Tree::default(),
            data_chunks: 0,
            dirty: false,
            valid: false,
            shrink_size: u64::MAX,
            scanned_size: 0,
        }
    }
}

/// Counters by event.
#[derive(Clone, Copy, Debug, Default)]
struct Stats {
    chunk_writes: u64,
    header_writes: u64,
    gc_passive: u64,
    gc_aggressive: u64,
    gc_background: u64,
    gc_oldest_dirty: u64,
    gc_copies: u64,
    block_erases_dirty: u64,
    mounts: u64,
    mount_pages_read: u64,
    checkpoints_written: u64,
    checkpoint_chunks: u64,
    checkpoint_mounts: u64,
}

/// The YAFFS2-style file system with its flash and time model.
pub struct Yaffs2 {
    cfg: Yaffs2Config,
    resolved: ResolvedDevice,
    mtd: Mtd,
    time: crate::timing::Model,
    host: HostCounters,
    // ---- RAM state (rebuilt by a mount) ----
    blocks: Vec<BlockInfo>,
    objects: Vec<Option<Object>>,
    free_ids: Vec<u32>,
    dir: HashMap<(u32, Arc<str>), u32>,
    tnodes: Tnodes,
    seq: u32,
    alloc_block: u32,
    alloc_page: u32,
    alloc_finder: u32,
    erased_blocks: u32,
    /// Chunks not live: erased or deleted (reclaimable), checkpoint blocks excluded.
    free_chunks: u64,
    gc: gc::GcState,
    /// A checkpoint is on flash and must be erased before the first change.
    checkpointed: bool,
    stats: Stats,
    last_mount: MountStats,
}

impl Yaffs2 {
    /// A freshly formatted file system on the design's device (all blocks erased).
    pub fn format(design: &Design) -> Result<Yaffs2, FsError> {
        let cfg = &design.config;
        let resolved = design.device.clone();
        let geo = resolved.geometry;
        let mut nand = Nand::new(geo, resolved.endurance_cycles, false, true);
        let time = crate::sim::time_model(design);
        nand.set_logging(time.needs_op_log());
        let pages = geo.pages() as usize;
        let blocks = geo.blocks() as usize;
        let mut fs = Yaffs2 {
            cfg: cfg.fs.yaffs2.clone(),
            resolved,
            mtd: Mtd {
                nand,
                spare: crate::util::zeroed_vec(pages),
                block_seq: vec![0; blocks],
                headers: HashMap::new(),
                data: None,
                checkpoint: BTreeMap::new(),
                power_left: None,
                versions: 0,
            },
            time,
            host: HostCounters::default(),
            blocks: Vec::new(),
            objects: Vec::new(),
            free_ids: Vec::new(),
            dir: HashMap::new(),
            tnodes: Tnodes::default(),
            seq: 0,
            alloc_block: NONE,
            alloc_page: 0,
            alloc_finder: 0,
            erased_blocks: 0,
            free_chunks: 0,
            gc: gc::GcState::default(),
            checkpointed: false,
            stats: Stats::default(),
            last_mount: MountStats::default(),
        };
        fs.reset_ram();
        let ppb = geo.pages_per_block as u64;
        fs.blocks = vec![
            BlockInfo {
                state: BlockState::Empty,
                seq: 0,
                in_use: 0,
                has_shrink: false,
            };
            blocks
        ];
        fs.erased_blocks = blocks as u32;
        fs.free_chunks = blocks as u64 * ppb;
        if fs.erased_blocks <= fs.min_erased() + 1 {
            return Err(FsError::NoSpace {
                fs: "yaffs2",
                detail: format!(
                    "the device has {blocks} blocks; YAFFS2 needs more than fs.yaffs2.reserved_blocks + checkpoint + 2"
                ),
            });
        }
        Ok(fs)
    }

    /// Keeps the contents of every data chunk (write versions by byte range), for
    /// reference-model tests. Costs RAM per written chunk.
    pub fn track_contents(&mut self) {
        self.mtd.data.get_or_insert_with(HashMap::new);
    }

    /// Cuts the power after `ops` more flash programs or erases (the next one is torn).
    pub fn cut_power_after(&mut self, ops: Option<u64>) {
        self.mtd.power_left = ops;
    }

    /// Write versions handed out so far (each write operation takes the next one).
    pub fn versions(&self) -> u64 {
        self.mtd.versions
    }

    /// Power comes back: RAM is lost, the file system mounts from what is on flash.
    pub fn power_cycle(&mut self, now_ns: u64) -> Result<MountStats, FsError> {
        self.mtd.power_left = None;
        self.mount(now_ns)
    }

    /// The last mount's statistics.
    pub fn last_mount(&self) -> MountStats {
        self.last_mount
    }

    /// The flash array (tests check its invariants).
    pub fn nand(&self) -> &Nand {
        &self.mtd.nand
    }

    /// Clears the RAM state (before a mount rebuilds it).
    fn reset_ram(&mut self) {
        self.objects.clear();
        self.free_ids.clear();
        self.dir.clear();
        self.tnodes = Tnodes::default();
        self.gc = gc::GcState::default();
        self.alloc_block = NONE;
        self.alloc_page = 0;
        self.alloc_finder = 0;
        for (id, kind) in [
            (ROOT, ObjKind::Dir),
            (LOST_N_FOUND, ObjKind::Dir),
            (UNLINKED, ObjKind::Dir),
            (DELETED, ObjKind::Dir),
        ] {
            let mut o = Object::new(kind);
            o.valid = true;
            self.put_object(id, o);
        }
        let lf = self.objects[LOST_N_FOUND as usize].as_mut().expect("made");
        lf.name = "lost+found".into();
        self.dir.insert((ROOT, "lost+found".into()), LOST_N_FOUND);
    }

    fn put_object(&mut self, id: u32, o: Object) {
        let i = id as usize;
        if self.objects.len() <= i {
            self.objects.resize(i + 1, None);
        }
        self.objects[i] = Some(o);
    }

    fn obj(&self, id: u32) -> &Object {
        self.objects[id as usize].as_ref().expect("live object")
    }

    fn obj_mut(&mut self, id: u32) -> &mut Object {
        self.objects[id as usize].as_mut().expect("live object")
    }

    fn new_id(&mut self) -> u32 {
        match self.free_ids.pop() {
            Some(id) => id,
            None => (self.objects.len() as u32).max(FIRST_USER_ID),
        }
    }

    fn chunk_bytes(&self) -> u64 {
        self.resolved.geometry.page_size_bytes as u64
    }

    fn ppb(&self) -> u32 {
        self.resolved.geometry.pages_per_block
    }

    /// Erased blocks GC must keep: the reserve, the checkpoint's blocks, one more.
    fn min_erased(&self) -> u32 {
        self.cfg.reserved_blocks + self.checkpoint_blocks_needed()
    }

    /// Looks `path` up; `None` when a component is missing.
    fn lookup(&self, path: &str) -> Option<u32> {
        let mut cur = ROOT;
        for c in components(path) {
            cur = *self.dir.get(&(cur, Arc::from(c)))?;
        }
        Some(cur)
    }

    /// The parent directory id and leaf name of `path`, checking the parent.
    fn parent_of(&self, op: &FileOp, path: &str) -> Result<(u32, Arc<str>), FsError> {
        super::resolve_parent(
            op,
            path,
            |p| self.lookup(p),
            |id| self.obj(id).kind == ObjKind::Dir,
        )
    }

    fn file(&self, op: &FileOp) -> Result<u32, FsError> {
        super::resolve_file(
            op,
            |p| self.lookup(p),
            |id| self.obj(id).kind != ObjKind::File,
        )
    }

    /// Erases the checkpoint before the first change after a mount that used it.
    fn invalidate_checkpoint(&mut self) -> Result<(), FsError> {
        if !self.checkpointed {
            return Ok(());
        }
        self.checkpointed = false;
        for b in 0..self.blocks.len() as u32 {
            if self.blocks[b as usize].state == BlockState::Checkpoint {
                let first = b * self.ppb();
                for p in first..first + self.mtd.nand.write_ptr(BlockId(b)) {
                    if self.mtd.nand.is_valid(Ppn(p)) {
                        self.mtd.nand.invalidate(Ppn(p));
                    }
                }
                self.mtd.erase(b, Cause::Map)?;
                self.free_chunks += self.ppb() as u64;
                self.blocks[b as usize] = BlockInfo {
                    state: BlockState::Empty,
                    seq: 0,
                    in_use: 0,
                    has_shrink: false,
                };
                self.erased_blocks += 1;
            }
        }
        Ok(())
    }

    /// Whether `n` more chunks may be written by a user operation: the free chunks
    /// beyond the reserve (YAFFS2's `yaffs_check_alloc_available`).
    fn space_for(&self, n: u64) -> Result<(), FsError> {
        let reserve = self.min_erased() as u64 * self.ppb() as u64;
        if self.free_chunks >= reserve + n {
            Ok(())
        } else {
            Err(FsError::NoSpace {
                fs: "yaffs2",
                detail: format!(
                    "{} free chunks, {} reserved for GC, {} needed",
                    self.free_chunks, reserve, n
                ),
            })
        }
    }

    /// The next chunk at the allocation point; a new block (next sequence number) when
    /// the current one is full. Only GC may take the reserve.
    fn alloc_chunk(&mut self, use_reserve: bool) -> Result<u32, FsError> {
        if self.alloc_block == NONE {
            if !use_reserve && self.erased_blocks <= self.cfg.reserved_blocks {
                return Err(FsError::NoSpace {
                    fs: "yaffs2",
                    detail: format!(
                        "{} erased blocks left, all reserved for GC",
                        self.erased_blocks
                    ),
                });
            }
            let n = self.blocks.len() as u32;
            let mut found = NONE;
            for i in 0..n {
                let b = (self.alloc_finder + i) % n;
                if self.blocks[b as usize].state == BlockState::Empty {
                    found = b;
                    break;
                }
            }
            if found == NONE {
                return Err(FsError::NoSpace {
                    fs: "yaffs2",
                    detail: "no erased block left".into(),
                });
            }
            self.alloc_finder = (found + 1) % n;
            self.seq += 1;
            let bi = &mut self.blocks[found as usize];
            bi.state = BlockState::Allocating;
            bi.seq = self.seq;
            bi.has_shrink = false;
            self.mtd.block_seq[found as usize] = self.seq;
            self.erased_blocks -= 1;
            self.alloc_block = found;
            self.alloc_page = 0;
        }
        let p = self.alloc_block * self.ppb() + self.alloc_page;
        self.alloc_page += 1;
        if self.alloc_page == self.ppb() {
            self.blocks[self.alloc_block as usize].state = BlockState::Full;
            self.alloc_block = NONE;
        }
        Ok(p)
    }

    /// Writes a chunk for a user operation (GC may run first) and marks it live.
    fn write_chunk(
        &mut self,
        obj: u32,
        chunk_id: u32,
        n_bytes: u32,
        cause: Cause,
    ) -> Result<u32, FsError> {
        self.check_gc(false)?;
        self.space_for(1)?;
        let p = self.alloc_chunk(false)?;
        self.program_live(p, obj, chunk_id, n_bytes, cause)?;
        Ok(p)
    }

    fn program_live(
        &mut self,
        p: u32,
        obj: u32,
        chunk_id: u32,
        n_bytes: u32,
        cause: Cause,
    ) -> Result<(), FsError> {
        let r = self.mtd.program(p, obj, chunk_id, n_bytes, cause);
        // A torn page is neither live nor free: it is garbage until its block is erased.
        self.free_chunks -= 1;
        r?;
        let b = self.mtd.block_of(p);
        self.blocks[b as usize].in_use += 1;
        Ok(())
    }

    /// Deletes live chunk `p`; a full block left with no live chunk (and no shrink
    /// header) is erased at once (YAFFS2's `yaffs_block_became_dirty`).
    fn delete_chunk(&mut self, p: u32) -> Result<(), FsError> {
        self.mtd.nand.invalidate(Ppn(p));
        self.free_chunks += 1;
        let b = self.mtd.block_of(p);
        let bi = &mut self.blocks[b as usize];
        bi.in_use -= 1;
        let seq = bi.seq;
        if bi.state == BlockState::Full {
            if bi.in_use == 0 && !bi.has_shrink {
                self.erase_block(b, Cause::Gc)?;
                self.stats.block_erases_dirty += 1;
            } else {
                self.gc.note_dirty(b, seq);
            }
        }
        Ok(())
    }

    fn erase_block(&mut self, b: u32, cause: Cause) -> Result<(), FsError> {
        self.mtd.erase(b, cause)?;
        let bi = &mut self.blocks[b as usize];
        // Chunks never written (a block abandoned part written) were counted free
        // already; the rest were garbage and are free now too.
        bi.state = BlockState::Empty;
        bi.in_use = 0;
        bi.has_shrink = false;
        bi.seq = 0;
        self.erased_blocks += 1;
        self.gc.block_erased(b);
        Ok(())
    }

    /// Writes `obj`'s header (`shrink`: after a truncation) and deletes the old one.
    fn write_header(&mut self, id: u32, shrink: bool) -> Result<(), FsError> {
        let o = self.obj(id);
        let h = Header {
            kind: o.kind,
            parent: o.parent,
            name: o.name.clone(),
            size: o.size,
            shrink,
        };
        let p = self.write_chunk(id, 0, 0, Cause::Map)?;
        self.mtd.headers.insert(p, h);
        if shrink {
            let b = self.mtd.block_of(p);
            self.blocks[b as usize].has_shrink = true;
        }
        // Read after the write: GC before it may have moved the old header.
        let o = self.obj_mut(id);
        let old = o.hdr;
        o.hdr = p;
        o.dirty = false;
        if old != NONE {
            self.delete_chunk(old)?;
        }
        self.stats.header_writes += 1;
        Ok(())
    }

    fn create(&mut self, op: &FileOp, kind: ObjKind) -> Result<u32, FsError> {
        let (parent, name) = self.parent_of(op, &op.path)?;
        if self.dir.contains_key(&(parent, name.clone())) {
            return Err(FsError::Exists {
                at: String::new(),
                op: op.kind.name(),
                path: op.path.to_string(),
            });
        }
        self.invalidate_checkpoint()?;
        let id = self.new_id();
        let mut o = Object::new(kind);
        o.parent = parent;
        o.name = name.clone();
        o.valid = true;
        self.put_object(id, o);
        self.dir.insert((parent, name), id);
        self.write_header(id, false)?;
        Ok(id)
    }

    fn write(&mut self, op: &FileOp) -> Result<(), FsError> {
        let id = self.file(op)?;
        if op.len_bytes == 0 {
            return Ok(());
        }
        self.invalidate_checkpoint()?;
        self.mtd.versions += 1;
        let version = self.mtd.versions;
        let cb = self.chunk_bytes();
        let end = op.offset_bytes + op.len_bytes;
        let new_size = self.obj(id).size.max(end);
        for chunk in op.offset_bytes / cb..end.div_ceil(cb) {
            let base = chunk * cb;
            let lo = op.offset_bytes.max(base) - base;
            let hi = end.min(base + cb) - base;
            let old = self.tnodes.get(&self.obj(id).tree, chunk);
            let partial = lo > 0 || hi < cb.min(new_size - base);
            if partial && let Some(p) = old {
                self.mtd.nand.read(Ppn(p), Cause::Rmw);
            }
            // The merged contents are formed before the program (GC it triggers may
            // move and erase the old chunk).
            let content = self.mtd.data.as_ref().map(|d| {
                let mut c = old.and_then(|o| d.get(&o).cloned()).unwrap_or_default();
                overlay(&mut c, lo as u32, hi as u32, version);
                c
            });
            let n_bytes = cb.min(new_size - base) as u32;
            let p = self.write_chunk(id, chunk as u32 + 1, n_bytes, Cause::Host)?;
            if let (Some(d), Some(c)) = (&mut self.mtd.data, content) {
                d.insert(p, c);
            }
            let o = self.objects[id as usize].as_mut().expect("live");
            let replaced = self.tnodes.set(&mut o.tree, chunk, p);
            match replaced {
                Some(old) => self.delete_chunk(old)?,
                None => self.obj_mut(id).data_chunks += 1,
            }
            self.stats.chunk_writes += 1;
            self.host.write_pages += 1;
        }
        self.host.write_bytes += op.len_bytes;
        let o = self.obj_mut(id);
        if new_size != o.size {
            o.size = new_size;
            o.dirty = true;
        }
        Ok(())
    }

    fn read(&mut self, op: &FileOp) -> Result<(), FsError> {
        let id = self.file(op)?;
        let cb = self.chunk_bytes();
        let size = self.obj(id).size;
        let end = (op.offset_bytes + op.len_bytes).min(size);
        if op.offset_bytes >= end {
            return Ok(());
        }
        for chunk in op.offset_bytes / cb..end.div_ceil(cb) {
            match self.tnodes.get(&self.obj(id).tree, chunk) {
                Some(p) => {
                    self.mtd.nand.read(Ppn(p), Cause::Host);
                }
                None => self.host.unmapped_read_pages += 1,
            }
            self.host.read_pages += 1;
        }
        self.host.read_bytes += end - op.offset_bytes;
        Ok(())
    }

    /// Sets `id`'s size (YAFFS2's `yaffs_resize_file`): shrinking deletes the chunks
    /// past the end, rewrites a partial last chunk and writes a shrink header.
    fn resize(&mut self, id: u32, new_size: u64) -> Result<(), FsError> {
        let old_size = self.obj(id).size;
        if new_size >= old_size {
            if new_size > old_size {
                self.obj_mut(id).size = new_size;
                self.write_header(id, false)?;
            }
            return Ok(());
        }
        let cb = self.chunk_bytes();
        let keep = new_size.div_ceil(cb);
        let mut dead = Vec::new();
        let o = self.objects[id as usize].as_mut().expect("live");
        self.tnodes
            .prune_from(&mut o.tree, keep, &mut |_, p| dead.push(p));
        o.data_chunks -= dead.len() as u32;
        for p in dead {
            self.delete_chunk(p)?;
        }
        let partial = new_size % cb;
        if partial != 0
            && let Some(old) = self.tnodes.get(&self.obj(id).tree, keep - 1)
        {
            self.mtd.nand.read(Ppn(old), Cause::Rmw);
            let content = self.mtd.data.as_ref().map(|d| {
                let mut c = d.get(&old).cloned().unwrap_or_default();
                clip(&mut c, partial as u32);
                c
            });
            let p = self.write_chunk(id, keep as u32, partial as u32, Cause::Host)?;
            if let (Some(d), Some(c)) = (&mut self.mtd.data, content) {
                d.insert(p, c);
            }
            let o = self.objects[id as usize].as_mut().expect("live");
            // The chunk it replaces, wherever GC has moved it meanwhile.
            let moved = self
                .tnodes
                .set(&mut o.tree, keep - 1, p)
                .expect("had a chunk");
            self.delete_chunk(moved)?;
            self.stats.chunk_writes += 1;
        }
        self.obj_mut(id).size = new_size;
        self.write_header(id, true)
    }

    /// Removes a file: header into the deleted directory, resize to 0, free it.
    fn unlink_id(&mut self, id: u32) -> Result<(), FsError> {
        let o = self.obj(id);
        self.dir.remove(&(o.parent, o.name.clone()));
        let o = self.obj_mut(id);
        o.parent = DELETED;
        o.name = "deleted".into();
        // A deletion is a shrink to nothing: its block must outlive the object's older
        // chunks (the scan treats it so).
        self.write_header(id, true)?;
        self.resize(id, 0)?;
        let hdr = self.obj(id).hdr;
        if hdr != NONE {
            self.delete_chunk(hdr)?;
        }
        let o = self.objects[id as usize].take().expect("live");
        debug_assert_eq!(o.data_chunks, 0);
        let mut tree = o.tree;
        self.tnodes.prune_from(&mut tree, 0, &mut |_, _| {});
        self.free_ids.push(id);
        Ok(())
    }

    fn rename(&mut self, op: &FileOp) -> Result<(), FsError> {
        let id = super::resolve_existing(op, &op.path, |p| self.lookup(p))?;
        let to = op.to.clone().unwrap_or_else(|| op.path.clone());
        let (parent, name) = self.parent_of(op, &to)?;
        if let Some(&target) = self.dir.get(&(parent, name.clone())) {
            if target == id {
                return Ok(());
            }
            if self.obj(target).kind == ObjKind::Dir {
                return Err(FsError::Exists {
                    at: String::new(),
                    op: "rename",
                    path: to.to_string(),
                });
            }
            self.invalidate_checkpoint()?;
            self.unlink_id(target)?;
        }
        self.invalidate_checkpoint()?;
        let o = self.obj(id);
        self.dir.remove(&(o.parent, o.name.clone()));
        let o = self.obj_mut(id);
        o.parent = parent;
        o.name = name.clone();
        self.dir.insert((parent, name), id);
        self.write_header(id, false)
    }

    /// Performs `op` on flash (no timing).
    fn apply(&mut self, op: &FileOp) -> Result<(), FsError> {
        match op.kind {
            FileOpKind::Create => self.create(op, ObjKind::File).map(drop),
            FileOpKind::Mkdir => self.create(op, ObjKind::Dir).map(drop),
            FileOpKind::Open => self.file(op).map(drop),
            FileOpKind::Write => self.write(op),
            FileOpKind::Read => self.read(op),
            FileOpKind::Close | FileOpKind::Fsync => {
                let id = self.file(op)?;
                if self.obj(id).dirty {
                    self.write_header(id, false)?;
                }
                Ok(())
            }
            FileOpKind::Truncate => {
                let id = self.file(op)?;
                self.invalidate_checkpoint()?;
                self.resize(id, op.offset_bytes)
            }
            FileOpKind::Unlink => {
                let id = self.file(op)?;
                self.invalidate_checkpoint()?;
                self.unlink_id(id)
            }
            FileOpKind::Rename => self.rename(op),
        }
    }

    /// Runs flash work `f` from `now_ns` under the time model; returns when it ends.
    fn timed<T>(
        &mut self,
        now_ns: u64,
        f: impl FnOnce(&mut Self) -> Result<T, FsError>,
    ) -> Result<(T, u64), FsError> {
        self.time.begin(&self.mtd.nand);
        let r = f(self);
        let placed = self.time.place(
            &mut self.mtd.nand,
            PlaceCtx {
                start_ns: now_ns,
                serial_units: 1,
                read_pages: &mut [],
                read_flash: &[],
            },
        );
        Ok((r?, placed.flash_done_ns))
    }

    /// Every file's contents as write versions per byte (0 = zero byte), by path, when
    /// contents are tracked (tests).
    pub fn contents(&self) -> BTreeMap<String, Vec<u64>> {
        let mut out = BTreeMap::new();
        let Some(d) = &self.mtd.data else {
            return out;
        };
        let cb = self.chunk_bytes();
        for (id, o) in self.objects.iter().enumerate() {
            let Some(o) = o else { continue };
            if o.kind != ObjKind::File || id < FIRST_USER_ID as usize {
                continue;
            }
            let mut bytes = vec![0u64; o.size as usize];
            self.tnodes.for_each(&o.tree, &mut |chunk, p| {
                let base = chunk * cb;
                for &(s, e, v) in d.get(&p).map_or(&[][..], |c| &c[..]) {
                    for b in base + s as u64..(base + e as u64).min(o.size) {
                        bytes[b as usize] = v;
                    }
                }
            });
            out.insert(self.path_of(id as u32), bytes);
        }
        out
    }

    /// Every directory's path (tests).
    pub fn directories(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .objects
            .iter()
            .enumerate()
            .filter(|(id, o)| {
                *id >= FIRST_USER_ID as usize && o.as_ref().is_some_and(|o| o.kind == ObjKind::Dir)
            })
            .map(|(id, _)| self.path_of(id as u32))
            .collect();
        v.sort();
        v
    }

    fn path_of(&self, mut id: u32) -> String {
        let mut parts = Vec::new();
        while id != ROOT {
            let o = self.obj(id);
            parts.push(o.name.clone());
            id = o.parent;
            if parts.len() > 10_000 {
                break;
            }
        }
        parts.reverse();
        format!("/{}", parts.join("/"))
    }

    /// Panics if RAM state and flash disagree (tests call this).
    pub fn check_invariants(&self) {
        self.mtd.nand.check_invariants();
        let mut live = 0u64;
        for (b, bi) in self.blocks.iter().enumerate() {
            let nv = self.mtd.nand.valid_count(BlockId(b as u32));
            if bi.state != BlockState::Checkpoint {
                assert_eq!(bi.in_use, nv, "block {b}: live chunks");
                live += nv as u64;
            }
            if bi.state == BlockState::Empty {
                assert_eq!(self.mtd.nand.write_ptr(BlockId(b as u32)), 0, "block {b}");
            }
        }
        let ckpt = self
            .blocks
            .iter()
            .filter(|b| b.state == BlockState::Checkpoint)
            .count() as u64;
        assert_eq!(
            self.free_chunks + live + ckpt * self.ppb() as u64,
            self.blocks.len() as u64 * self.ppb() as u64,
            "free chunk count"
        );
        for (id, o) in self.objects.iter().enumerate() {
            let Some(o) = o else { continue };
            if id >= FIRST_USER_ID as usize {
                assert!(self.mtd.nand.is_valid(Ppn(o.hdr)), "object {id}: header");
                assert_eq!(self.mtd.spare[o.hdr as usize].obj, id as u32);
            }
            let mut n = 0;
            self.tnodes.for_each(&o.tree, &mut |c, p| {
                n += 1;
                assert!(self.mtd.nand.is_valid(Ppn(p)), "object {id} chunk {c}");
                assert_eq!(self.mtd.chunk_id(p), c as u32 + 1);
                assert_eq!(self.mtd.spare[p as usize].obj, id as u32);
            });
            assert_eq!(n, o.data_chunks, "object {id}: data chunks");
        }
    }

    /// RAM of the Tnode trees and object table, bytes: YAFFS2 sizes a Tnode from the
    /// bits a page number needs (at least 16, even), 16 entries per level-0 Tnode, and
    /// no smaller than 8 pointers (internal Tnodes share the allocation size).
    fn ram_bytes(&self) -> u64 {
        let pages = self.resolved.geometry.pages();
        let mut width = (64 - pages.leading_zeros()).max(16) as u64;
        width += width & 1;
        let tnode = (width * tnode::LEVEL0 as u64 / 8).max(8 * 8);
        let (leaves, inner) = self.tnodes.count();
        let objects = self.objects.iter().filter(|o| o.is_some()).count() as u64;
        (leaves + inner) * tnode + objects * std::mem::size_of::<Object>() as u64
    }
}

/// Puts write `v` over bytes `[lo, hi)` of a chunk's contents.
fn overlay(c: &mut Content, lo: u32, hi: u32, v: u64) {
    let mut out = Vec::with_capacity(c.len() + 2);
    for &(s, e, w) in c.iter() {
        if s < lo {
            out.push((s, e.min(lo), w));
        }
        if e > hi {
            out.push((s.max(hi), e, w));
        }
    }
    out.push((lo, hi, v));
    out.sort_unstable();
    *c = out;
}

/// Drops the contents at or past byte `end`.
fn clip(c: &mut Content, end: u32) {
    c.retain(|&(s, _, _)| s < end);
    for r in c.iter_mut() {
        r.1 = r.1.min(end);
    }
}

impl FileSystem for Yaffs2 {
    fn name(&self) -> &'static str {
        "yaffs2"
    }

    fn exec(&mut self, op: &FileOp, now_ns: u64) -> Result<u64, FsError> {
        let (_, done) = self.timed(now_ns, |fs| fs.apply(op).map_err(|e| e.at(op)))?;
        Ok(done)
    }

    fn idle(&mut self, now_ns: u64, until_ns: u64) -> Result<u64, FsError> {
        if !self.cfg.background_gc {
            return Ok(now_ns);
        }
        let mut t = now_ns;
        // One background pass per gap at most every few ms of idle time, as YAFFS2's
        // background thread wakes up: each pass is one check_gc(background).
        while t < until_ns {
            let before =
                self.mtd.nand.counters().total_programs() + self.mtd.nand.counters().total_erases();
            let (_, done) = self.timed(t, |fs| fs.check_gc(true))?;
            let after =
                self.mtd.nand.counters().total_programs() + self.mtd.nand.counters().total_erases();
            if after == before {
                break;
            }
            t = done;
        }
        Ok(t)
    }

    fn remount(&mut self, now_ns: u64) -> Result<MountStats, FsError> {
        let (_, t) = self.timed(now_ns, |fs| fs.unmount())?;
        self.mount(t)
    }

    fn counters(&self, out: &mut Counters) {
        let s = &self.stats;
        for (k, v) in [
            (&CHUNK_WRITES, s.chunk_writes),
            (&HEADER_WRITES, s.header_writes),
            (&GC_PASSIVE, s.gc_passive),
            (&GC_AGGRESSIVE, s.gc_aggressive),
            (&GC_BACKGROUND, s.gc_background),
            (&GC_OLDEST_DIRTY, s.gc_oldest_dirty),
            (&GC_COPIES, s.gc_copies),
            (&ERASED_WHEN_DIRTY, s.block_erases_dirty),
            (&MOUNTS, s.mounts),
            (&MOUNT_PAGES_READ, s.mount_pages_read),
            (&CHECKPOINTS_WRITTEN, s.checkpoints_written),
            (&CHECKPOINT_CHUNKS, s.checkpoint_chunks),
            (&CHECKPOINT_MOUNTS, s.checkpoint_mounts),
            (&ERASED_BLOCKS, self.erased_blocks as u64),
            (&FREE_CHUNKS, self.free_chunks),
            (
                &OBJECTS,
                self.objects.iter().filter(|o| o.is_some()).count() as u64,
            ),
            (&TNODES, {
                let (a, b) = self.tnodes.count();
                a + b
            }),
            (&LAST_MOUNT_PAGES_READ, self.last_mount.pages_read),
            (&LAST_MOUNT_TIME_NS, self.last_mount.time_ns),
        ] {
            out.set(k, v);
        }
    }

    fn mapping_bytes(&self) -> u64 {
        self.ram_bytes()
    }

    fn device(&self) -> &dyn Measure {
        self
    }

    fn reset_time(&mut self, now_ns: u64) {
        self.time.reset(now_ns);
    }

    fn check(&self) {
        self.check_invariants();
    }
}

impl Measure for Yaffs2 {
    fn nand(&self) -> &Nand {
        &self.mtd.nand
    }
    fn host(&self) -> HostCounters {
        self.host
    }
    fn resolved(&self) -> &ResolvedDevice {
        &self.resolved
    }
    fn busy_ns(&self) -> Option<[u64; crate::nand::CAUSES]> {
        self.time.busy_ns()
    }
    fn layer_counters(&self, out: &mut Counters) {
        FileSystem::counters(self, out);
    }
    fn mapping_bytes(&self) -> u64 {
        self.ram_bytes()
    }
}
