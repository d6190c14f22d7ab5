//! The block-buffer container shared by the block-level policies (FAB, BPLRU, CLC,
//! ExLRU): it owns the buffered blocks and their pages ([`Clusters`]), the capacity and
//! the [`WriteBuffer`] contract; a policy only orders the blocks and picks the victim.
//! The split follows the shape of foyer's `Eviction` trait: the container reports
//! events (a block gained a page, a buffered page was referenced, a page was dropped)
//! and asks for a victim; the policy keeps its own lists and never touches the pages.
//!
//! ```text
//! write(p):  p buffered → policy.access(block(p), write)                      (hit)
//!            else: full → evict; node of block(p) (allocated if new);
//!                  add p to it; policy.added(node, off, fresh)                (miss)
//! read(p):   p buffered → policy.access(block(p), read)
//! remove(p): drop p from its node; policy.removed(node, pages left);
//!            a node left empty is freed
//! evict:     n = policy.victim() (taken off the policy's lists); all of n's pages
//!            leave in page order (with padding when policy.pads())
//! ```
//! Why a separate container: every block-level policy repeated the same page
//! bookkeeping and the same `WriteBuffer` methods around its own victim choice; here the
//! repetition is gone and each policy file keeps only its paper, its pseudocode and its
//! ordering.

use super::core::Clusters;
use super::{Evictions, WriteBuffer};
use crate::nand::Lpn;
use crate::spec::Counters;

/// A block-level victim picker: the policy half of a [`BlockBuffer`]. Node numbers are
/// the container's ([`Clusters`] nodes, one per buffered logical block); the policy
/// reads the container's page counts (`cl.count`) and uses its list links (`cl.links`)
/// for its own lists, but never adds or drops pages.
pub trait BlockEviction: Clone + Send + 'static {
    /// Registered name of the policy.
    const NAME: &'static str;

    /// Whether a victim block leaves with padding: the block's unbuffered pages are
    /// read from flash and written back with it (BPLRU).
    #[inline]
    fn pads(&self) -> bool {
        false
    }

    /// A buffered page of node `n` was referenced: a write hit (`write`) or a read hit.
    fn access(&mut self, cl: &mut Clusters, n: u32, write: bool);

    /// Page `off` has just joined node `n` (a write miss; `cl.count[n]` includes it).
    /// `fresh`: `n` was allocated for this page and is on none of the policy's lists;
    /// otherwise it is where the policy left it, at its previous count.
    fn added(&mut self, cl: &mut Clusters, n: u32, off: u32, fresh: bool);

    /// A page of node `n` was dropped (TRIM); `left` pages remain (the count before was
    /// `left + 1`). When `left` is 0 the policy takes `n` off its lists: the container
    /// frees it.
    fn removed(&mut self, cl: &mut Clusters, n: u32, left: u32);

    /// The next victim, taken off the policy's lists; `None` when no block is buffered.
    fn victim(&mut self, cl: &mut Clusters) -> Option<u32>;

    /// Policy-specific counters, keys `buffer.<policy>.*`.
    fn counters(&self, _out: &mut Counters) {}

    /// Panics if the policy's lists disagree with the container's nodes.
    fn check(&self, cl: &Clusters);
}

/// A write buffer of whole logical blocks: the container of a block-level policy `P`.
#[derive(Clone)]
pub struct BlockBuffer<P: BlockEviction> {
    cl: Clusters,
    policy: P,
    cap: u32,
}

impl<P: BlockEviction> BlockBuffer<P> {
    /// An empty buffer of `capacity` pages in blocks of `block_pages` pages, on a device
    /// of `logical_pages` pages, ordered by `policy`.
    pub fn new(capacity: u32, block_pages: u32, logical_pages: u64, policy: P) -> Self {
        BlockBuffer {
            cl: Clusters::new(capacity, block_pages, logical_pages),
            policy,
            cap: capacity,
        }
    }
}

impl<P: BlockEviction> WriteBuffer for BlockBuffer<P> {
    fn name(&self) -> &'static str {
        P::NAME
    }

    fn capacity_pages(&self) -> u32 {
        self.cap
    }

    fn len_pages(&self) -> u32 {
        self.cl.pages()
    }

    #[inline]
    fn prefetch(&self, lpn: Lpn) {
        self.cl.prefetch(lpn.0);
    }

    fn contains(&self, lpn: Lpn) -> bool {
        self.cl.contains(lpn.0)
    }

    fn write(&mut self, lpn: Lpn, out: &mut Evictions) -> bool {
        if let Some((n, _)) = self.cl.locate_page(lpn.0) {
            self.policy.access(&mut self.cl, n, true);
            return true;
        }
        let (lbn, off) = self.cl.split(lpn.0);
        if self.cl.pages() == self.cap {
            self.evict(out);
        }
        // Looked up after the eviction: it may have taken this very block.
        let (n, fresh) = match self.cl.find(lbn) {
            Some(n) => (n, false),
            None => (self.cl.alloc(lbn), true),
        };
        self.cl.set(n, off);
        self.policy.added(&mut self.cl, n, off, fresh);
        false
    }

    fn read(&mut self, lpn: Lpn) -> bool {
        match self.cl.locate_page(lpn.0) {
            Some((n, _)) => {
                self.policy.access(&mut self.cl, n, false);
                true
            }
            None => false,
        }
    }

    fn remove(&mut self, lpn: Lpn) -> bool {
        let Some((n, off)) = self.cl.locate_page(lpn.0) else {
            return false;
        };
        let left = self.cl.clear(n, off);
        self.policy.removed(&mut self.cl, n, left);
        if left == 0 {
            self.cl.release(n);
        }
        true
    }

    fn evict(&mut self, out: &mut Evictions) -> bool {
        let Some(n) = self.policy.victim(&mut self.cl) else {
            return false;
        };
        self.cl.drain(n, self.policy.pads(), out);
        true
    }

    fn counters(&self, out: &mut Counters) {
        self.policy.counters(out);
    }

    fn check_invariants(&self) {
        self.cl.check();
        assert!(self.cl.pages() <= self.cap, "over capacity");
        self.policy.check(&self.cl);
    }
}
