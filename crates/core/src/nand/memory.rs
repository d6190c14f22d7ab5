//! Page payloads in memory: one page-sized slot per programmed physical page holding
//! live data, slots of overwritten, trimmed and erased pages reused. Memory = live pages
//! (plus GC sources not yet erased) × page size + 16 B per physical page of tags and
//! slot index. An overwritten page keeps its tag (a mount scan sees it programmed)
//! but not its bytes.
//!
//! Slots live in chunks of 32 MiB, each reserved once: the pool grows without ever
//! moving (a growing contiguous buffer is copied at each doubling, and for a moment holds
//! twice the data), and a new slot is written once, by its payload, never zero-filled
//! first. The chunks are not advised for transparent huge pages: measured under
//! `ssdlab serve`, the kernel's zeroing of each fresh 2 MiB page took half the server's
//! time, several times what the 4 KiB page faults cost (BENCHMARKS.md, 2026-11-24).

use crate::nand::{FlashData, Geometry, PageStore, StoredTag};

/// `slot_of` value of a programmed page whose payload was dropped (reads give zeros).
const DROPPED: u32 = u32::MAX;

/// In-memory flash contents.
pub struct MemoryStore {
    page_bytes: usize,
    /// `slot + 1` of each physical page; 0 = erased, [`DROPPED`] = programmed, payload
    /// dropped.
    slot_of: Vec<u32>,
    /// `lpn + 1` of each page's tag (0 = erased) and its sequence number.
    tag_lpn: Vec<u32>,
    tag_seq: Vec<u32>,
    tag_program_seq: Vec<u32>,
    /// Pages holding metadata, one bit each.
    meta: Vec<u64>,
    pool: Pool,
    free_slots: Vec<u32>,
    erase_counts: Vec<u32>,
}

impl MemoryStore {
    /// An erased array of shape `geo`.
    pub fn new(geo: &Geometry) -> MemoryStore {
        let pages = geo.pages() as usize;
        MemoryStore {
            page_bytes: geo.page_size_bytes as usize,
            slot_of: crate::util::zeroed_vec(pages),
            tag_lpn: crate::util::zeroed_vec(pages),
            tag_seq: crate::util::zeroed_vec(pages),
            tag_program_seq: crate::util::zeroed_vec(pages),
            meta: crate::util::zeroed_vec(pages.div_ceil(64)),
            pool: Pool::new(geo.page_size_bytes as usize),
            free_slots: Vec::new(),
            erase_counts: vec![0; geo.blocks() as usize],
        }
    }

    /// A free slot for `ppn`, or `None` when its payload is to be pushed as a new one.
    fn reuse_slot(&mut self, ppn: u32) -> Option<u32> {
        debug_assert_eq!(
            self.slot_of[ppn as usize], 0,
            "program of a programmed page"
        );
        self.free_slots.pop()
    }

    fn set_tag(&mut self, ppn: u32, tag: StoredTag) {
        let i = ppn as usize;
        self.tag_lpn[i] = tag.lpn.wrapping_add(1);
        self.tag_seq[i] = tag.seq;
        self.tag_program_seq[i] = tag.program_seq;
        let bit = 1u64 << (i & 63);
        if tag.meta {
            self.meta[i >> 6] |= bit;
        } else {
            self.meta[i >> 6] &= !bit;
        }
    }

    fn tag(&self, ppn: u32) -> Option<StoredTag> {
        let i = ppn as usize;
        (self.slot_of[i] != 0).then(|| StoredTag {
            lpn: self.tag_lpn[i].wrapping_sub(1),
            seq: self.tag_seq[i],
            program_seq: self.tag_program_seq[i],
            meta: self.meta[i >> 6] & (1u64 << (i & 63)) != 0,
        })
    }
}

impl PageStore for MemoryStore {
    fn program(&mut self, ppn: u32, tag: StoredTag, data: &[u8]) {
        let s = match self.reuse_slot(ppn) {
            Some(s) => {
                self.pool.page_mut(s).copy_from_slice(data);
                s
            }
            None => self.pool.push(data),
        };
        self.slot_of[ppn as usize] = s + 1;
        self.set_tag(ppn, tag);
    }

    fn copy(&mut self, src: u32, dst: u32, program_seq: u32) {
        let tag = StoredTag {
            program_seq,
            ..self.tag(src).expect("copy of an erased page")
        };
        match self.slot_of[src as usize] {
            // A page whose newest version was trimmed, found live again by a mount: its
            // copy holds no bytes either.
            DROPPED => self.slot_of[dst as usize] = DROPPED,
            s => {
                let to = match self.reuse_slot(dst) {
                    Some(to) => {
                        self.pool.copy(s - 1, to);
                        to
                    }
                    None => self.pool.push_copy(s - 1),
                };
                self.slot_of[dst as usize] = to + 1;
            }
        }
        self.set_tag(dst, tag);
    }

    fn invalidate(&mut self, ppn: u32) {
        let s = &mut self.slot_of[ppn as usize];
        if *s != 0 && *s != DROPPED {
            self.free_slots.push(*s - 1);
            *s = DROPPED;
        }
    }

    fn erase(&mut self, block: u32, first: u32, pages: u32, erase_count: u32) {
        for p in first..first + pages {
            let s = std::mem::take(&mut self.slot_of[p as usize]);
            if s != 0 && s != DROPPED {
                self.free_slots.push(s - 1);
            }
            self.tag_lpn[p as usize] = 0;
        }
        self.erase_counts[block as usize] = erase_count;
    }

    fn read(&self, ppn: u32, out: &mut [u8]) -> bool {
        match self.slot_of[ppn as usize] {
            0 | DROPPED => {
                out.fill(0);
                false
            }
            s => {
                out.copy_from_slice(self.pool.page(s - 1));
                true
            }
        }
    }

    fn scan_tags(&self) -> Vec<Option<StoredTag>> {
        (0..self.slot_of.len() as u32)
            .map(|p| self.tag(p))
            .collect()
    }

    fn erase_counts(&self) -> Vec<u32> {
        self.erase_counts.clone()
    }

    fn sync(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn stored_bytes(&self) -> u64 {
        (self.pool.slots as usize - self.free_slots.len()) as u64 * self.page_bytes as u64
    }
}

/// Bytes of one chunk of slots (a multiple of the 2 MiB huge page).
const CHUNK_BYTES: usize = 32 << 20;

/// Page-sized slots in fixed chunks that never move.
struct Pool {
    page_bytes: usize,
    slots_per_chunk: usize,
    /// Each chunk reserved at its full size; filled up to the slots in use.
    chunks: Vec<Vec<u8>>,
    /// Slots handed out.
    slots: u32,
}

impl Pool {
    fn new(page_bytes: usize) -> Pool {
        Pool::with_chunk(page_bytes, CHUNK_BYTES)
    }

    fn with_chunk(page_bytes: usize, chunk_bytes: usize) -> Pool {
        Pool {
            page_bytes,
            slots_per_chunk: (chunk_bytes / page_bytes).max(1),
            chunks: Vec::new(),
            slots: 0,
        }
    }

    fn at(&self, s: u32) -> (usize, usize) {
        let s = s as usize;
        (
            s / self.slots_per_chunk,
            s % self.slots_per_chunk * self.page_bytes,
        )
    }

    fn page(&self, s: u32) -> &[u8] {
        let (c, at) = self.at(s);
        &self.chunks[c][at..at + self.page_bytes]
    }

    fn page_mut(&mut self, s: u32) -> &mut [u8] {
        let (c, at) = self.at(s);
        &mut self.chunks[c][at..at + self.page_bytes]
    }

    /// Makes room for one more slot; its chunk index.
    fn room(&mut self) -> usize {
        if self.slots as usize == self.chunks.len() * self.slots_per_chunk {
            self.chunks
                .push(Vec::with_capacity(self.slots_per_chunk * self.page_bytes));
        }
        self.chunks.len() - 1
    }

    /// A new slot holding `data`.
    fn push(&mut self, data: &[u8]) -> u32 {
        let c = self.room();
        self.chunks[c].extend_from_slice(data);
        self.slots += 1;
        self.slots - 1
    }

    /// A new slot holding a copy of slot `from`.
    fn push_copy(&mut self, from: u32) -> u32 {
        let c = self.room();
        let (fc, at) = self.at(from);
        let range = at..at + self.page_bytes;
        if fc == c {
            self.chunks[c].extend_from_within(range);
        } else {
            let (head, tail) = self.chunks.split_at_mut(c);
            tail[0].extend_from_slice(&head[fc][range]);
        }
        self.slots += 1;
        self.slots - 1
    }

    /// Copies slot `from` into slot `to`.
    fn copy(&mut self, from: u32, to: u32) {
        let ((fc, fa), (tc, ta)) = (self.at(from), self.at(to));
        let n = self.page_bytes;
        if fc == tc {
            self.chunks[fc].copy_within(fa..fa + n, ta);
        } else if fc < tc {
            let (head, tail) = self.chunks.split_at_mut(tc);
            tail[0][ta..ta + n].copy_from_slice(&head[fc][fa..fa + n]);
        } else {
            let (head, tail) = self.chunks.split_at_mut(fc);
            head[tc][ta..ta + n].copy_from_slice(&tail[0][fa..fa + n]);
        }
    }
}

// The constructor lives with the store it builds; `FlashData` itself is the NAND model's
// (`nand::payload`). This store sits in the core crate beside the NAND model (the file
// store and crash tests are in ssdlab-emu): core's own tests mount arrays from it.
impl FlashData {
    /// Data in memory for an array of shape `geo`.
    pub fn in_memory(geo: &Geometry) -> FlashData {
        FlashData::new(
            Box::new(MemoryStore::new(geo)),
            geo.page_size_bytes as usize,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Pool;
    use rand::{Rng, SeedableRng};

    /// Pushes, copies within and across chunks and overwrites, against a plain vector of
    /// pages; small chunks (3 pages) so that every chunk boundary case occurs.
    #[test]
    fn pool_matches_a_vector_of_pages() {
        for seed in 0..20u64 {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            let page = 16;
            let mut pool = Pool::with_chunk(page, 3 * page);
            let mut model: Vec<Vec<u8>> = Vec::new();
            for step in 0..400 {
                let n = model.len() as u32;
                match rng.gen_range(0..4) {
                    0 | 1 if n > 0 && rng.gen_bool(0.5) => {
                        let (from, to) = (rng.gen_range(0..n), rng.gen_range(0..n));
                        pool.copy(from, to);
                        model[to as usize] = model[from as usize].clone();
                    }
                    0 => {
                        let d: Vec<u8> = (0..page).map(|_| rng.r#gen()).collect();
                        assert_eq!(pool.push(&d), n, "seed {seed} step {step}");
                        model.push(d);
                    }
                    1 if n > 0 => {
                        let from = rng.gen_range(0..n);
                        assert_eq!(pool.push_copy(from), n, "seed {seed} step {step}");
                        model.push(model[from as usize].clone());
                    }
                    _ if n > 0 => {
                        let s = rng.gen_range(0..n);
                        let d: Vec<u8> = (0..page).map(|_| rng.r#gen()).collect();
                        pool.page_mut(s).copy_from_slice(&d);
                        model[s as usize] = d;
                    }
                    _ => {}
                }
                for (s, want) in model.iter().enumerate() {
                    assert_eq!(
                        pool.page(s as u32),
                        &want[..],
                        "seed {seed} step {step} slot {s}"
                    );
                }
            }
        }
    }
}
