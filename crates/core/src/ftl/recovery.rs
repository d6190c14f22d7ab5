//! What every FTL's power-up recovery reads from the mount scan's OOB tags
//! ([`crate::nand::StoredTag`]), written once for all of them.
//!
//! ```text
//! newer(a, b):  a.seq > b.seq, or the same seq and a.program_seq > b.program_seq
//!               (same lpn and seq = one version and its GC / merge copy: the copy,
//!               programmed later, is where the interrupted move had got to)
//! newest[lpn]:  the programmed host page of lpn that is newer than all others
//! opened[b]:    lowest program_seq of block b's pages: the order blocks were opened in
//! ```
//! Sequence numbers are compared as plain integers: a u32 counter does not wrap within
//! the runs this simulator does (4 G programs).

use crate::nand::Geometry;
use crate::nand::StoredTag;

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

/// The crash tests' read-back check after a power cut and a mount: every logical page
/// reads a version the host wrote to it (`history[lpn]`; 0 stands for never written) and
/// none older than the last version made durable (`floor[lpn]`), which is then raised to
/// what was read. The tests write each page's version into its bytes 0..8 and its
/// logical page number into bytes 8..12. Panics naming `what` on a violation.
#[doc(hidden)]
pub fn check_read_back(
    ftl: &dyn super::Ftl,
    nand: &crate::nand::Nand,
    history: &[Vec<u64>],
    floor: &mut [u64],
    what: &str,
) {
    let data = nand.data().expect("the crash tests keep page payloads");
    let mut page = vec![0u8; nand.geometry().page_size_bytes as usize];
    for (l, (seen, durable)) in history.iter().zip(floor.iter_mut()).enumerate() {
        let lpn = l as u32;
        let got = match ftl.lookup(crate::nand::Lpn(lpn), nand) {
            Some(ppn) => {
                data.read(ppn.0, &mut page);
                assert_eq!(page[8..12], lpn.to_le_bytes(), "{what}");
                u64::from_le_bytes(page[..8].try_into().expect("8 bytes"))
            }
            None => 0,
        };
        assert!(
            seen.contains(&got),
            "{what}: lpn {lpn} reads v{got}, never written"
        );
        assert!(
            got >= *durable,
            "{what}: lpn {lpn} reads v{got}, v{durable} was durable"
        );
        *durable = got;
    }
}
