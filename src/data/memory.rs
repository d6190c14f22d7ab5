//! Page payloads in memory: one page-sized slot per programmed physical page holding
//! live data, slots of overwritten, trimmed and erased pages reused. Memory = live pages
//! (plus GC sources not yet erased) × page size + 16 B per physical page of tags and
//! slot index. An overwritten page keeps its tag (a mount scan sees it programmed)
//! but not its bytes.

use super::{PageStore, StoredTag};
use crate::nand::Geometry;

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
    pool: Vec<u8>,
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
            pool: Vec::new(),
            free_slots: Vec::new(),
            erase_counts: vec![0; geo.blocks() as usize],
        }
    }

    fn slot(&mut self, ppn: u32) -> usize {
        debug_assert_eq!(
            self.slot_of[ppn as usize], 0,
            "program of a programmed page"
        );
        let s = match self.free_slots.pop() {
            Some(s) => s,
            None => {
                let s = (self.pool.len() / self.page_bytes) as u32;
                self.pool.resize(self.pool.len() + self.page_bytes, 0);
                s
            }
        };
        self.slot_of[ppn as usize] = s + 1;
        s as usize * self.page_bytes
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
        let at = self.slot(ppn);
        self.pool[at..at + self.page_bytes].copy_from_slice(data);
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
                let from = (s - 1) as usize * self.page_bytes;
                let to = self.slot(dst);
                self.pool.copy_within(from..from + self.page_bytes, to);
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
                let at = (s - 1) as usize * self.page_bytes;
                out.copy_from_slice(&self.pool[at..at + self.page_bytes]);
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
        (self.pool.len() - self.free_slots.len() * self.page_bytes) as u64
    }
}
