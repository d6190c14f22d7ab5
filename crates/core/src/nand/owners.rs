//! Flash programs attributed to the namespace whose logical page each one holds
//! (`[[namespace]]`, docs/placement.md "Report"): a namespace's own write amplification,
//! measured instead of apportioned by host-write share.
//!
//! Namespaces are consecutive slices of the FTL's logical space, so the owner of a
//! program is found from the logical page in its OOB tag alone: a host program, a GC or
//! merge copy, a read-modify-write and a buffer's padding rewrite all carry the logical
//! page they hold. Pages that hold no namespace's logical page — translation pages
//! (DFTL tags them above every logical page), a zone finish's padding (likewise) — are
//! the device's own overhead.
//!
//! ```text
//! ends[i] = first logical page after namespace i        (ascending; ends[-1] = 0)
//! a program of a page whose tag holds lpn:
//!   i = the number of ends ≤ lpn                          (binary search, n ≤ a few)
//!   programs[i] += 1                                      (i = n: no namespace: overhead)
//! ```
//!
//! The array keeps this only with two or more namespaces (one namespace is the device),
//! so a drive without tables pays one `None` test per program.

/// Programs per namespace, by the logical page each program's tag holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramOwners {
    /// First logical page after each namespace, ascending.
    ends: Box<[u32]>,
    /// Programs of each namespace's pages, then (last) of pages no namespace holds.
    programs: Box<[u64]>,
}

impl ProgramOwners {
    /// Counting for the namespaces that end (exclusive) at the logical pages `ends`, in
    /// ascending order; the first starts at logical page 0.
    pub fn new(ends: Vec<u32>) -> ProgramOwners {
        debug_assert!(ends.is_sorted(), "namespace ends out of order: {ends:?}");
        let n = ends.len();
        ProgramOwners {
            ends: ends.into_boxed_slice(),
            programs: vec![0; n + 1].into_boxed_slice(),
        }
    }

    /// The owner of logical page `lpn`: its namespace's index, or the number of
    /// namespaces when none holds it.
    #[inline]
    pub fn owner(&self, lpn: u32) -> usize {
        self.ends.partition_point(|&e| e <= lpn)
    }

    /// One program of a page holding `lpn`.
    #[inline]
    pub fn count(&mut self, lpn: u32) {
        let i = self.owner(lpn);
        self.programs[i] += 1;
    }

    /// Programs so far: one per namespace, in order, then the overhead's.
    pub fn programs(&self) -> &[u64] {
        &self.programs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_goes_to_the_slice_holding_it_and_past_the_last_to_overhead() {
        let mut o = ProgramOwners::new(vec![10, 25]);
        for lpn in [0, 9, 10, 24, 25, u32::MAX - 3] {
            o.count(lpn);
        }
        assert_eq!(o.programs(), &[2, 2, 2]);
        assert_eq!((o.owner(0), o.owner(10), o.owner(25)), (0, 1, 2));
    }
}
