//! Mounting YAFFS2: the backwards scan of the tags (`yaffs2_scan_backwards`), and the
//! checkpoint that replaces it (`yaffs_checkpt_*`), in our words.
//!
//! ```text
//! scan:
//!   for every block: read its first chunk's tags -> erased, checkpoint, or to scan with
//!     its sequence number
//!   for every block to scan, highest sequence number first, last chunk first:
//!     read the tags (an erased chunk: the block was being written; the newest such
//!     block becomes the allocation block again; a torn chunk fails ECC: garbage)
//!     data chunk (id n > 0) of object o:
//!       live if o has no chunk n yet and (n-1)·chunk < o's shrink size, else dead;
//!       before o's newest header is seen, its size = furthest end of such chunks
//!     header chunk of o:
//!       first (newest) one: read its data; o takes type, parent, name, size from it;
//!         shrink size = min(shrink size, size); live
//!       older ones: dead; if one marks a shrink (or a deletion, size 0), shrink size =
//!         min(shrink size, its size)
//!   objects whose parent is the deleted/unlinked directory are deleted; objects that
//!   never got a header are dropped with their chunks; full blocks with no live chunk
//!   (and no shrink header) are erased
//! checkpoint (option):
//!   unmount: serialise block info, live-chunk bitmap, objects and Tnode leaves into
//!     the lowest-numbered erased blocks (sequence number "checkpoint")
//!   mount: read first-chunk tags of blocks in order until the checkpoint's blocks are
//!     found, read its chunks, restore; any change afterwards erases it
//! ```

use super::{
    BlockInfo, BlockState, CHECKPOINT_SEQ, DELETED, FIRST_USER_ID, FsError, LOST_N_FOUND,
    MountStats, NONE, ObjKind, Object, ROOT, TORN, UNLINKED, Yaffs2, tnode,
};
use crate::nand::{BlockId, Cause, Ppn};
use std::sync::Arc;

const MAGIC: u32 = 0x5941_4632;
/// Object id in the tags of checkpoint chunks.
const CHECKPOINT_OBJ: u32 = u32::MAX;

/// Marks chunk `p` live in the scan's bitmap.
fn set_live(live: &mut [u64], p: u32) {
    live[p as usize >> 6] |= 1 << (p & 63);
}

impl Yaffs2 {
    /// Blocks a checkpoint needs now (0 without the option): what YAFFS2 keeps erased
    /// for it on top of the GC reserve.
    pub(super) fn checkpoint_blocks_needed(&self) -> u32 {
        if !self.cfg.checkpoint {
            return 0;
        }
        let g = &self.resolved.geometry;
        let (leaves, _) = self.tnodes.count();
        let bytes = 64
            + self.blocks.len() as u64 * 10
            + g.pages() / 8
            + self.objects.len() as u64 * 40
            + leaves * (4 + 4 * tnode::LEVEL0 as u64);
        let block_bytes = g.page_size_bytes as u64 * g.pages_per_block as u64;
        bytes.div_ceil(block_bytes) as u32 + 1
    }

    /// Unmounts: dirty headers are written, then the checkpoint when configured.
    pub(super) fn unmount(&mut self) -> Result<(), FsError> {
        for id in FIRST_USER_ID..self.objects.len() as u32 {
            if self.objects[id as usize].as_ref().is_some_and(|o| o.dirty) {
                self.write_header(id, false)?;
            }
        }
        if self.cfg.checkpoint && !self.checkpointed {
            self.write_checkpoint()?;
        }
        Ok(())
    }

    /// Mounts from flash: RAM state is rebuilt from the checkpoint or a full scan.
    pub(super) fn mount(&mut self, now_ns: u64) -> Result<MountStats, FsError> {
        let reads0 = self.mtd.nand.counters().total_reads();
        let ((from_checkpoint, blocks_scanned), done) = self.timed(now_ns, |fs| {
            fs.reset_ram();
            if fs.cfg.checkpoint && fs.read_checkpoint()? {
                Ok((true, 0))
            } else {
                fs.reset_ram();
                fs.scan()
            }
        })?;
        let st = MountStats {
            pages_read: self.mtd.nand.counters().total_reads() - reads0,
            time_ns: done - now_ns,
            from_checkpoint,
            blocks_scanned,
        };
        self.stats.mounts += 1;
        self.stats.mount_pages_read += st.pages_read;
        self.stats.checkpoint_mounts += from_checkpoint as u64;
        self.last_mount = st;
        Ok(st)
    }

    /// Reads the first chunk's tags of block `b` (an erased chunk is read too).
    fn read_first_tags(&mut self, b: u32) -> bool {
        let p = Ppn(b * self.ppb());
        if self.mtd.nand.write_ptr(BlockId(b)) == 0 {
            self.mtd.nand.charge_read(p, Cause::Map);
            false
        } else {
            self.mtd.nand.read(p, Cause::Map);
            true
        }
    }

    fn find_or_create(&mut self, id: u32, kind: ObjKind) -> u32 {
        if self.objects.get(id as usize).is_none_or(|o| o.is_none()) {
            self.put_object(id, Object::new(kind));
        }
        id
    }

    /// The full backwards scan; returns (false, blocks scanned).
    fn scan(&mut self) -> Result<(bool, u64), FsError> {
        let ppb = self.ppb();
        let nb = self.blocks.len() as u32;
        let pages = nb as usize * ppb as usize;
        let mut live = vec![0u64; pages.div_ceil(64)];
        let (mut to_scan, any_checkpoint) = self.classify_blocks();
        to_scan.sort_unstable();
        self.seq = to_scan.last().map_or(0, |&(s, _)| s);
        let newest = to_scan.last().map(|&(_, b)| b);
        for &(_, b) in to_scan.iter().rev() {
            self.scan_block(b, &mut live);
            let written = self.mtd.nand.write_ptr(BlockId(b));
            if written < ppb && Some(b) == newest {
                self.blocks[b as usize].state = BlockState::Allocating;
                self.alloc_block = b;
                self.alloc_page = written;
            }
        }
        self.drop_dead_objects(&mut live);
        self.attach_orphans();
        let live_total = self.sync_validity(&live);
        let ckpt_blocks = self
            .blocks
            .iter()
            .filter(|b| b.state == BlockState::Checkpoint)
            .count() as u64;
        self.free_chunks = nb as u64 * ppb as u64 - live_total - ckpt_blocks * ppb as u64;
        self.erased_blocks = self
            .blocks
            .iter()
            .filter(|b| b.state == BlockState::Empty)
            .count() as u32;
        self.checkpointed = any_checkpoint;
        // Full blocks left with nothing live are erased now.
        for b in 0..nb {
            let bi = self.blocks[b as usize];
            if bi.state == BlockState::Full && bi.in_use == 0 && !bi.has_shrink {
                self.erase_block(b, Cause::Gc)?;
            }
        }
        Ok((false, to_scan.len() as u64))
    }

    /// Reads each block's first tags: empty, checkpoint or full. Returns the full blocks
    /// as (sequence number, block), unsorted, and whether a checkpoint is on flash.
    fn classify_blocks(&mut self) -> (Vec<(u32, u32)>, bool) {
        let nb = self.blocks.len() as u32;
        let mut to_scan: Vec<(u32, u32)> = Vec::new();
        let mut any_checkpoint = false;
        for b in 0..nb {
            let programmed = self.read_first_tags(b);
            let bi = &mut self.blocks[b as usize];
            *bi = BlockInfo {
                state: BlockState::Empty,
                seq: 0,
                in_use: 0,
                has_shrink: false,
            };
            if programmed {
                let seq = self.mtd.block_seq[b as usize];
                if seq == CHECKPOINT_SEQ {
                    bi.state = BlockState::Checkpoint;
                    any_checkpoint = true;
                } else {
                    bi.state = BlockState::Full;
                    bi.seq = seq;
                    to_scan.push((seq, b));
                }
            }
        }
        (to_scan, any_checkpoint)
    }

    /// Scans block `b`'s chunks newest first: the newest copy of each data chunk and
    /// header wins (and is marked in `live`); older headers give only their shrink
    /// information.
    fn scan_block(&mut self, b: u32, live: &mut [u64]) {
        let ppb = self.ppb();
        let cb = self.chunk_bytes();
        let first = b * ppb;
        let written = self.mtd.nand.write_ptr(BlockId(b));
        for c in (0..ppb).rev() {
            let p = first + c;
            if c >= written {
                // Erased chunk: read to find that it is erased.
                self.mtd.nand.charge_read(Ppn(p), Cause::Map);
                continue;
            }
            self.mtd.nand.read(Ppn(p), Cause::Map);
            let spare = self.mtd.spare[p as usize];
            if spare.n_bytes == TORN || spare.obj == CHECKPOINT_OBJ {
                continue;
            }
            let id = spare.obj;
            let chunk_id = self.mtd.chunk_id(p);
            if chunk_id > 0 {
                let id = self.find_or_create(id, ObjKind::File);
                let o = self.objects[id as usize].as_mut().expect("made");
                let base = (chunk_id as u64 - 1) * cb;
                if o.kind == ObjKind::File
                    && base < o.shrink_size
                    && self.tnodes.get(&o.tree, chunk_id as u64 - 1).is_none()
                {
                    self.tnodes.set(&mut o.tree, chunk_id as u64 - 1, p);
                    o.data_chunks += 1;
                    set_live(live, p);
                    self.blocks[b as usize].in_use += 1;
                    if !o.valid {
                        let end = base + spare.n_bytes as u64;
                        o.scanned_size = o.scanned_size.max(end);
                        o.size = o.scanned_size;
                    }
                }
            } else {
                let h = self.mtd.headers.get(&p).cloned().expect("header data");
                let id = self.find_or_create(id, h.kind);
                let valid = self.obj(id).valid;
                if valid {
                    // An older header: only its shrink information matters.
                    let o = self.obj_mut(id);
                    if o.kind == ObjKind::File && h.kind == ObjKind::File {
                        let (mut size, mut shrink) = (h.size, h.shrink);
                        if h.parent == DELETED || h.parent == UNLINKED {
                            size = 0;
                            shrink = true;
                        }
                        if shrink {
                            o.shrink_size = o.shrink_size.min(size);
                            self.blocks[b as usize].has_shrink = true;
                        }
                    }
                    continue;
                }
                // The newest header: read its data for the name.
                self.mtd.nand.read(Ppn(p), Cause::Map);
                if h.parent != id {
                    self.find_or_create(h.parent, ObjKind::Dir);
                }
                let o = self.obj_mut(id);
                o.valid = true;
                o.kind = h.kind;
                o.hdr = p;
                o.parent = h.parent;
                o.name = h.name.clone();
                if h.kind == ObjKind::File {
                    if o.scanned_size < h.size {
                        o.size = h.size;
                        o.scanned_size = h.size;
                    }
                    o.shrink_size = o.shrink_size.min(h.size);
                }
                if h.shrink {
                    self.blocks[b as usize].has_shrink = true;
                }
                set_live(live, p);
                self.blocks[b as usize].in_use += 1;
            }
        }
    }

    /// Deleted objects go; objects never given a header are dropped with their chunks.
    fn drop_dead_objects(&mut self, live: &mut [u64]) {
        let ppb = self.ppb();
        let ids: Vec<u32> = (FIRST_USER_ID..self.objects.len() as u32)
            .filter(|&i| self.objects[i as usize].is_some())
            .collect();
        for &id in &ids {
            let o = self.obj(id);
            if !o.valid || o.parent == DELETED || o.parent == UNLINKED {
                let mut o = self.objects[id as usize].take().expect("live");
                let mut dead = Vec::new();
                self.tnodes
                    .prune_from(&mut o.tree, 0, &mut |_, p| dead.push(p));
                if o.hdr != NONE {
                    dead.push(o.hdr);
                }
                for p in dead {
                    live[p as usize >> 6] &= !(1 << (p & 63));
                    self.blocks[(p / ppb) as usize].in_use -= 1;
                }
            }
        }
    }

    /// Builds the directory: children of a directory that lost its header go to
    /// lost+found; unused object ids become free.
    fn attach_orphans(&mut self) {
        for id in FIRST_USER_ID..self.objects.len() as u32 {
            let Some(o) = &self.objects[id as usize] else {
                self.free_ids.push(id);
                continue;
            };
            let parent = o.parent;
            let parent_ok = self
                .objects
                .get(parent as usize)
                .and_then(|p| p.as_ref())
                .is_some_and(|p| p.kind == ObjKind::Dir);
            if !parent_ok {
                let o = self.obj_mut(id);
                o.parent = LOST_N_FOUND;
                o.name = format!("obj{id}").into();
            }
            let o = self.obj(id);
            let key = (o.parent, o.name.clone());
            self.dir.entry(key).or_insert(id);
        }
        self.free_ids.reverse();
        self.objects[ROOT as usize].as_mut().expect("root").valid = true;
    }

    /// Brings the array's validity in line with what the scan found live; returns the
    /// live chunks outside checkpoint blocks.
    fn sync_validity(&mut self, live: &[u64]) -> u64 {
        let ppb = self.ppb();
        let nb = self.blocks.len() as u32;
        let mut live_total = 0u64;
        for b in 0..nb {
            let first = b * ppb;
            let written = self.mtd.nand.write_ptr(BlockId(b));
            let ckpt = self.blocks[b as usize].state == BlockState::Checkpoint;
            for p in first..first + written {
                let want = ckpt || live[p as usize >> 6] & (1 << (p & 63)) != 0;
                let have = self.mtd.nand.is_valid(Ppn(p));
                if want && !have {
                    self.mtd.nand.mark_valid(Ppn(p));
                } else if !want && have {
                    self.mtd.nand.invalidate(Ppn(p));
                }
            }
            if !ckpt {
                live_total += self.blocks[b as usize].in_use as u64;
            }
        }
        live_total
    }

    /// Serialises the RAM state (see the module docs).
    fn checkpoint_bytes(&self) -> Vec<u8> {
        let mut v = Vec::new();
        let u32le = |v: &mut Vec<u8>, x: u32| v.extend_from_slice(&x.to_le_bytes());
        v.extend_from_slice(&0u64.to_le_bytes()); // length, filled in below
        u32le(&mut v, MAGIC);
        u32le(&mut v, self.seq);
        u32le(&mut v, self.blocks.len() as u32);
        u32le(&mut v, self.alloc_block);
        u32le(&mut v, self.alloc_page);
        for bi in &self.blocks {
            v.push(match bi.state {
                BlockState::Empty => 0,
                BlockState::Allocating => 1,
                BlockState::Full | BlockState::Collecting => 2,
                BlockState::Checkpoint => 3,
            });
            u32le(&mut v, bi.seq);
            u32le(&mut v, bi.in_use);
            v.push(bi.has_shrink as u8);
        }
        let pages = self.resolved.geometry.pages() as u32;
        let mut bits = vec![0u8; (pages as usize).div_ceil(8)];
        for p in 0..pages {
            if self.mtd.nand.is_programmed(Ppn(p)) && self.mtd.nand.is_valid(Ppn(p)) {
                bits[p as usize / 8] |= 1 << (p % 8);
            }
        }
        v.extend_from_slice(&bits);
        let ids: Vec<u32> = (FIRST_USER_ID..self.objects.len() as u32)
            .filter(|&i| self.objects[i as usize].is_some())
            .collect();
        u32le(&mut v, ids.len() as u32);
        for id in ids {
            let o = self.obj(id);
            u32le(&mut v, id);
            v.push((o.kind == ObjKind::Dir) as u8);
            u32le(&mut v, o.parent);
            v.extend_from_slice(&o.size.to_le_bytes());
            u32le(&mut v, o.hdr);
            v.extend_from_slice(&(o.name.len() as u16).to_le_bytes());
            v.extend_from_slice(o.name.as_bytes());
            let mut leaves = Vec::new();
            self.tnodes
                .for_each_leaf(&o.tree, &mut |base, e| leaves.push((base, *e)));
            u32le(&mut v, leaves.len() as u32);
            for (base, e) in leaves {
                u32le(&mut v, base as u32);
                for x in e {
                    u32le(&mut v, x);
                }
            }
        }
        let len = v.len() as u64;
        v[..8].copy_from_slice(&len.to_le_bytes());
        v
    }

    /// Writes the checkpoint into the lowest-numbered erased blocks (skipped when the
    /// erased blocks beyond the GC reserve cannot hold it).
    fn write_checkpoint(&mut self) -> Result<(), FsError> {
        let ppb = self.ppb();
        let cb = self.chunk_bytes() as usize;
        let len = self.checkpoint_bytes().len();
        let chunks = len.div_ceil(cb) as u32;
        let nblocks = chunks.div_ceil(ppb);
        if self.erased_blocks < nblocks + self.cfg.reserved_blocks {
            return Ok(());
        }
        let chosen: Vec<u32> = (0..self.blocks.len() as u32)
            .filter(|&b| self.blocks[b as usize].state == BlockState::Empty)
            .take(nblocks as usize)
            .collect();
        for &b in &chosen {
            self.blocks[b as usize] = BlockInfo {
                state: BlockState::Checkpoint,
                seq: CHECKPOINT_SEQ,
                in_use: 0,
                has_shrink: false,
            };
            self.erased_blocks -= 1;
            self.free_chunks -= ppb as u64;
            self.mtd.block_seq[b as usize] = CHECKPOINT_SEQ;
        }
        // Serialised after the blocks are marked, so it records them as checkpoint.
        let bytes = self.checkpoint_bytes();
        debug_assert_eq!(bytes.len(), len);
        let mut at = 0usize;
        let mut n = 0u32;
        'blocks: for &b in &chosen {
            let start = at;
            for c in 0..ppb {
                if at >= bytes.len() {
                    self.mtd.checkpoint.insert(b, bytes[start..at].to_vec());
                    break 'blocks;
                }
                let end = (at + cb).min(bytes.len());
                self.mtd.program(
                    b * ppb + c,
                    CHECKPOINT_OBJ,
                    n,
                    (end - at) as u32,
                    Cause::Map,
                )?;
                n += 1;
                at = end;
            }
            self.mtd.checkpoint.insert(b, bytes[start..at].to_vec());
        }
        self.checkpointed = true;
        self.stats.checkpoints_written += 1;
        self.stats.checkpoint_chunks += n as u64;
        Ok(())
    }

    /// Finds and reads the checkpoint; restores RAM from it. `false` when there is none
    /// (or it is incomplete), and the caller scans.
    fn read_checkpoint(&mut self) -> Result<bool, FsError> {
        let ppb = self.ppb();
        let mut stream = Vec::new();
        let mut want: Option<usize> = None;
        for b in 0..self.blocks.len() as u32 {
            if !self.read_first_tags(b) || self.mtd.block_seq[b as usize] != CHECKPOINT_SEQ {
                continue;
            }
            let Some(part) = self.mtd.checkpoint.get(&b).cloned() else {
                continue;
            };
            for c in 0..self.mtd.nand.write_ptr(BlockId(b)) {
                self.mtd.nand.read(Ppn(b * ppb + c), Cause::Map);
            }
            stream.extend_from_slice(&part);
            if want.is_none() && stream.len() >= 8 {
                want = Some(u64::from_le_bytes(stream[..8].try_into().expect("8")) as usize);
            }
            if want.is_some_and(|w| stream.len() >= w) {
                break;
            }
        }
        match want {
            Some(w) if stream.len() == w => {
                self.restore(&stream);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn restore(&mut self, s: &[u8]) {
        let mut at = 8usize;
        let u32_ = |at: &mut usize| {
            let x = u32::from_le_bytes(s[*at..*at + 4].try_into().expect("4"));
            *at += 4;
            x
        };
        assert_eq!(u32_(&mut at), MAGIC, "checkpoint magic");
        self.seq = u32_(&mut at);
        let nb = u32_(&mut at) as usize;
        self.alloc_block = u32_(&mut at);
        self.alloc_page = u32_(&mut at);
        for b in 0..nb {
            let state = match s[at] {
                0 => BlockState::Empty,
                1 => BlockState::Allocating,
                3 => BlockState::Checkpoint,
                _ => BlockState::Full,
            };
            at += 1;
            let seq = u32_(&mut at);
            let in_use = u32_(&mut at);
            let has_shrink = s[at] != 0;
            at += 1;
            self.blocks[b] = BlockInfo {
                state,
                seq,
                in_use,
                has_shrink,
            };
        }
        let pages = self.resolved.geometry.pages() as usize;
        let bits = &s[at..at + pages.div_ceil(8)];
        at += pages.div_ceil(8);
        for p in 0..pages as u32 {
            if !self.mtd.nand.is_programmed(Ppn(p)) {
                continue;
            }
            let want = bits[p as usize / 8] & (1 << (p % 8)) != 0;
            let have = self.mtd.nand.is_valid(Ppn(p));
            if want && !have {
                self.mtd.nand.mark_valid(Ppn(p));
            } else if !want && have {
                self.mtd.nand.invalidate(Ppn(p));
            }
        }
        let n = u32_(&mut at);
        for _ in 0..n {
            let id = u32_(&mut at);
            let kind = if s[at] == 1 {
                ObjKind::Dir
            } else {
                ObjKind::File
            };
            at += 1;
            let parent = u32_(&mut at);
            let size = u64::from_le_bytes(s[at..at + 8].try_into().expect("8"));
            at += 8;
            let hdr = u32_(&mut at);
            let nl = u16::from_le_bytes(s[at..at + 2].try_into().expect("2")) as usize;
            at += 2;
            let name: Arc<str> = String::from_utf8_lossy(&s[at..at + nl]).into();
            at += nl;
            let mut o = Object::new(kind);
            o.parent = parent;
            o.size = size;
            o.hdr = hdr;
            o.name = name.clone();
            o.valid = true;
            let leaves = u32_(&mut at);
            for _ in 0..leaves {
                let base = u32_(&mut at) as u64;
                for i in 0..tnode::LEVEL0 as u64 {
                    let e = u32_(&mut at);
                    if e != 0 {
                        self.tnodes.set(&mut o.tree, base + i, e - 1);
                        o.data_chunks += 1;
                    }
                }
            }
            self.put_object(id, o);
            self.dir.insert((parent, name), id);
        }
        for id in FIRST_USER_ID..self.objects.len() as u32 {
            if self.objects[id as usize].is_none() {
                self.free_ids.push(id);
            }
        }
        self.free_ids.reverse();
        let mut live = 0u64;
        let mut ckpt = 0u64;
        for (b, bi) in self.blocks.iter().enumerate() {
            if bi.state == BlockState::Checkpoint {
                ckpt += 1;
            } else {
                live += self.mtd.nand.valid_count(BlockId(b as u32)) as u64;
            }
        }
        let ppb = self.ppb() as u64;
        self.free_chunks = self.blocks.len() as u64 * ppb - live - ckpt * ppb;
        self.erased_blocks = self
            .blocks
            .iter()
            .filter(|b| b.state == BlockState::Empty)
            .count() as u32;
        self.checkpointed = true;
    }
}
