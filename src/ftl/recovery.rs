//! What every FTL's power-up recovery reads from the mount scan's OOB tags
//! ([`crate::data::StoredTag`]), written once for all of them.
//!
//! ```text
//! newer(a, b):  a.seq > b.seq, or the same seq and a.program_seq > b.program_seq
//!               (same lpn and seq = one version and its GC / merge copy: the copy,
//!               programmed later, is where the interrupted move had got to)
//! newest[lpn]:  the programmed host page of lpn that is newer than all others
//! superseded:   a page with the newest version's seq that lost to its copy: the source
//!               of a move cut short (its block is a victim to finish)
//! opened[b]:    lowest program_seq of block b's pages: the order blocks were opened in
//! ```
//! Sequence numbers are compared as plain integers: a u32 counter does not wrap within
//! the runs this simulator does (4 G programs).

use crate::data::StoredTag;
use crate::nand::{BlockId, Geometry, Ppn};

/// Whether tag `a` holds a newer copy than `b` of the same logical page.
#[inline]
pub(crate) fn newer(a: &StoredTag, b: &StoredTag) -> bool {
    (a.seq, a.program_seq) > (b.seq, b.program_seq)
}

/// `ppn + 1` of the newest host copy of each logical page below `logical_pages` (0 =
/// none on flash).
pub(crate) fn newest(tags: &[Option<StoredTag>], logical_pages: u64) -> Vec<u32> {
    let mut best: Vec<u32> = crate::util::zeroed_vec(logical_pages as usize);
    for (i, t) in tags.iter().enumerate() {
        let Some(t) = t else { continue };
        if t.meta || t.lpn as u64 >= logical_pages {
            continue;
        }
        let slot = &mut best[t.lpn as usize];
        let beats = *slot == 0 || {
            let cur = tags[(*slot - 1) as usize].as_ref().expect("programmed");
            newer(t, cur)
        };
        if beats {
            *slot = i as u32 + 1;
        }
    }
    best
}

/// Whether page `ppn` (tag `t`) holds the newest version of its logical page but lost
/// to a later copy of it: the source of a GC copy or merge cut short.
#[inline]
pub(crate) fn superseded_by_copy(
    ppn: Ppn,
    t: &StoredTag,
    newest: &[u32],
    tags: &[Option<StoredTag>],
) -> bool {
    if t.meta {
        return false;
    }
    match newest.get(t.lpn as usize) {
        Some(&w) if w != 0 && w - 1 != ppn.0 => {
            tags[(w - 1) as usize].is_some_and(|n| n.seq == t.seq)
        }
        _ => false,
    }
}

/// Blocks holding the source of a copy cut short, in block order.
pub(crate) fn interrupted_sources(
    geo: &Geometry,
    tags: &[Option<StoredTag>],
    newest: &[u32],
) -> Vec<BlockId> {
    let np = geo.pages_per_block as usize;
    let mut out = Vec::new();
    for (b, page_tags) in tags.chunks(np).enumerate() {
        let hit = page_tags.iter().enumerate().any(|(off, t)| {
            t.as_ref()
                .is_some_and(|t| superseded_by_copy(Ppn((b * np + off) as u32), t, newest, tags))
        });
        if hit {
            out.push(BlockId(b as u32));
        }
    }
    out
}

/// The lowest `program_seq` of each block's pages (`u32::MAX` for an erased block): the
/// order in which blocks were opened since their last erase.
pub(crate) fn opened(geo: &Geometry, tags: &[Option<StoredTag>]) -> Vec<u32> {
    tags.chunks(geo.pages_per_block as usize)
        .map(|c| {
            c.iter()
                .flatten()
                .map(|t| t.program_seq)
                .min()
                .unwrap_or(u32::MAX)
        })
        .collect()
}
