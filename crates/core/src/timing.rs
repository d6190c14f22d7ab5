//! Turning flash operations into time.
//!
//! Two models share one interface:
//! - **Full**: busy-until reservations per die, per data bus and (for shared-control gangs)
//!   one control bus, after Agrawal et al. (USENIX ATC 2008) as restated in docs/papers.md §1.
//!   A read occupies its die for t_R and then its bus for the page transfer (the die's
//!   page register stays busy until the data has left); a program first crosses the bus
//!   into the die's register and then occupies the die for t_PROG; an erase occupies the
//!   die only. A GC copy between pages of one plane may use copy-back (no bus transfer).
//!   Operations are placed in request order at the earliest time their resources are
//!   free, so dies and channels overlap exactly as far as the workload lets them.
//!   A program operation writes up to `pages_per_program` mapping pages (multi-plane /
//!   one-shot programming) and takes the whole t_PROG however many it holds: the pages
//!   queued for a die when it becomes free are programmed together (see [`Timing`]).
//! - **Count**: the papers' serial elapsed-time formula
//!   `Cr·Tr + Cw·Tw + Gc·Tcopy + Ce·Te` (docs/papers.md §4), with no parallelism and no bus.
//!   Tw is one page's share of a full program (t_PROG / `pages_per_program`); a command's
//!   programs are charged in whole program operations, so the slots its last one leaves
//!   empty cost Tw each too (see [`CountModel`]).
//!
//! The simulator sees both through [`TimeModel`]: it calls [`TimeModel::begin`] before a
//! command's flash work and [`TimeModel::place`] after it, and learns when the work ends.
//!
//! This file holds the full model's busy-until placement ([`Timing`]); `model` holds the
//! interface and the two models behind it, `suspend` the suspension of GC operations.

mod model;
mod suspend;

pub use model::{CountModel, FullModel, Model, PlaceCtx, Placed, TimeModel};
pub use suspend::SuspendParams;

use crate::nand::{CAUSES, Cause, FlashOp, Geometry, NandCounters, OpKind, Ppn, Superblock};
use serde::{Deserialize, Serialize};

/// How chips are wired to the controller (docs/papers.md §1, after Agrawal et al.).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Organisation {
    /// All chips share one data and control bus.
    SharedBus,
    /// Chips share one control bus but each has its own data bus.
    SharedControl,
    /// Each channel has its own data and control bus; chips on a channel share it.
    #[default]
    Channels,
}

/// What one GC copy costs in the counting formula.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum CopyCost {
    /// One program time per copied page, as the paper's formula charges (`Gc·Tw`).
    #[default]
    Tw,
    /// A read plus a program.
    TrTw,
    /// Copy-back inside the chip: t_R + t_PROG without bus transfer (same as `tr-tw` in
    /// the formula, kept apart for the full model's benefit).
    Copyback,
}

/// Per-operation costs of the counting formula, nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FormulaCosts {
    /// Tr.
    pub read_ns: u64,
    /// Tw.
    pub program_ns: u64,
    /// Te.
    pub erase_ns: u64,
    /// Cost of one GC/WL copy.
    pub copy_cost: CopyCost,
}

/// The formula's time split into I/O and GC parts, nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FormulaTime {
    /// Cr·Tr + Cw·Tw (host reads and programs, including read-modify-write and mapping
    /// traffic).
    pub io_ns: u64,
    /// Gc·Tcopy + Ce·Te (copies and erases).
    pub gc_ns: u64,
}

impl FormulaTime {
    /// Total.
    pub fn total_ns(&self) -> u64 {
        self.io_ns + self.gc_ns
    }
}

impl FormulaCosts {
    /// Cost of one copy.
    pub fn copy_ns(&self) -> u64 {
        match self.copy_cost {
            CopyCost::Tw => self.program_ns,
            CopyCost::TrTw | CopyCost::Copyback => self.read_ns + self.program_ns,
        }
    }

    /// Formula time of a set of counters: copies are charged `copy_ns`, the remaining
    /// reads `Tr` and programs `Tw`; erases `Te`.
    pub fn time(&self, c: &NandCounters) -> FormulaTime {
        // Read-modify-write copies of a management block are part of the host write's
        // own cost, not garbage collection: they count as a read plus a program.
        let copies: u64 = c.copies.iter().sum::<u64>() - c.copies[Cause::Rmw as usize];
        let reads = c.total_reads() - copies;
        let programs = c.total_programs() - copies;
        FormulaTime {
            io_ns: reads * self.read_ns + programs * self.program_ns,
            gc_ns: copies * self.copy_ns() + c.total_erases() * self.erase_ns,
        }
    }
}

/// Parameters of the full model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimingParams {
    /// t_R.
    pub read_ns: u64,
    /// t_PROG.
    pub program_ns: u64,
    /// t_BERS.
    pub erase_ns: u64,
    /// Bus transfer of one page (page size × t_RC, or page size / channel rate).
    pub transfer_ns: u64,
    /// Control-bus occupancy of one command (shared-control gangs only).
    pub command_ns: u64,
    /// Whether same-plane GC copies use copy-back (skip the bus).
    pub copyback: bool,
    /// Wiring.
    pub organisation: Organisation,
    /// Mapping pages one program operation writes together (multi-plane or one-shot
    /// programming of physical pages larger than the mapping unit): the slots of a
    /// die's program. The operation takes the whole `program_ns` however many slots
    /// are filled; see [`Timing`] for which pages share one.
    pub pages_per_program: u32,
    /// The SLC write cache, if any.
    pub slc: Option<SlcParams>,
}

/// An SLC write cache (Samsung's TurboWrite and its kind): blocks of the native cell
/// type run in SLC mode, fast to program and read, and are folded back in idle time.
///
/// ```text
/// first program of an erased block: a host write on a die holding fewer than
///     blocks_per_die SLC blocks → SLC mode (queued on the die); anything else → native
/// program / read of a page: SLC block → slc_program_ns, slc_read_ns
///                           native   → program_ns, read_ns
///     (a program operation of either mode takes its whole time however many of its
///     pages_per_program slots are filled; only pages of one mode share an operation)
/// device idle time (no flash work anywhere for longer than FOLD_IDLE_NS; the time past
///     that threshold) is banked on every die; while a die's bank covers folding its
///     oldest SLC block (every page read in SLC mode and programmed natively) and that
///     block is not the newest, it is folded (becomes native) — no idle time, no
///     folding: a sustained write runs at native speed once the cache is full, and data
///     read soon after it was written is read in SLC mode, as on the real drives
/// erase: the block leaves the cache (its data was overwritten: nothing to fold)
/// ```
/// With superblocks (block-mapped FTLs) the mode is per superblock. Simplifications: a
/// folded block keeps its pages where they are (the copy's time is
/// charged, the move is not made), and an SLC block stores as many pages as a native
/// one, so the cache costs no capacity.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlcParams {
    /// t_R in SLC mode.
    pub read_ns: u64,
    /// t_PROG in SLC mode (one program operation, up to `pages_per_program` pages).
    pub program_ns: u64,
    /// SLC blocks a die holds at most.
    pub blocks_per_die: u32,
}

/// The device counts as idle, and starts folding its SLC cache, after this long without
/// flash work (firmware idle detection; an estimate, vendors do not publish it).
pub const FOLD_IDLE_NS: u64 = 1_000_000;

/// Block modes of the SLC cache.
const MODE_ERASED: u8 = 0;
const MODE_SLC: u8 = 1;
const MODE_NATIVE: u8 = 2;

/// State of the SLC cache in [`Timing`].
#[derive(Clone, Debug)]
struct SlcState {
    p: SlcParams,
    pages_per_block: u32,
    /// Mode of every block.
    mode: Vec<u8>,
    /// SLC blocks of each die, oldest first.
    fifo: Vec<std::collections::VecDeque<u32>>,
    /// Idle time banked for folding, per die.
    bank_ns: Vec<u64>,
    /// Time to fold one block.
    fold_block_ns: u64,
    /// Blocks folded so far.
    folded: u64,
    /// When the last flash operation placed so far ends.
    busy_until_ns: u64,
}

/// Reservations of one bus as sorted, disjoint busy intervals. A transfer takes the
/// earliest gap at or after the moment its data is ready, so a transfer that becomes
/// ready early is not held behind one reserved for a later moment (the head-of-line
/// artefact of a single busy-until value). Intervals that end before the current
/// request's issue time are pruned, and an interval is merged with a neighbour when the
/// gap between them is shorter than `min_gap_ns` (no transfer could use it), so the list
/// stays short. A sorted array beats a tree here: reservations land near the front
/// (host I/O) or the back (GC chains), where inserting is cheap. Long GC chains over the
/// bus (copy-back off) make it longer and slower; see BENCHMARKS.md.
#[derive(Clone, Debug, Default)]
pub struct Calendar {
    busy: Intervals,
    min_gap_ns: u64,
}

/// The sorted intervals of a [`Calendar`]: a vector whose first `head` entries are
/// pruned, so that pruning and inserting at the front cost no move, while indexing is
/// plain slice indexing. (A `VecDeque` did the same with wrapped indices; its
/// out-of-line `insert` and index arithmetic cost ~6 % of a replay's instructions.)
#[derive(Clone, Debug, Default)]
struct Intervals {
    v: Vec<(u64, u64)>,
    head: usize,
}

impl Intervals {
    #[inline]
    fn live(&self) -> &[(u64, u64)] {
        &self.v[self.head..]
    }

    #[inline]
    fn live_mut(&mut self) -> &mut [(u64, u64)] {
        &mut self.v[self.head..]
    }

    #[inline]
    fn len(&self) -> usize {
        self.v.len() - self.head
    }

    #[inline]
    fn front(&self) -> Option<&(u64, u64)> {
        self.v.get(self.head)
    }

    #[cfg(test)]
    fn iter(&self) -> std::slice::Iter<'_, (u64, u64)> {
        self.live().iter()
    }

    /// Inserts `x` before live entry `i`, moving whichever side is shorter.
    #[inline]
    fn insert(&mut self, i: usize, x: (u64, u64)) {
        if self.head > 0 && i <= self.len() / 2 {
            let h = self.head;
            self.v.copy_within(h..h + i, h - 1);
            self.head -= 1;
            self.v[h - 1 + i] = x;
        } else {
            self.v.insert(self.head + i, x);
        }
    }

    /// Removes live entry `i`.
    #[inline]
    fn remove(&mut self, i: usize) {
        if i == 0 {
            self.pop_front();
        } else {
            self.v.remove(self.head + i);
        }
    }

    /// Drops the first live entry; the dropped prefix is reclaimed once it outweighs
    /// the live entries (amortised O(1) per entry).
    #[inline]
    fn pop_front(&mut self) {
        self.head += 1;
        if self.head == self.v.len() {
            self.v.clear();
            self.head = 0;
        } else if self.head >= 32 && self.head * 2 >= self.v.len() {
            self.v.drain(..self.head);
            self.head = 0;
        }
    }

    fn clear(&mut self) {
        self.v.clear();
        self.head = 0;
    }
}

impl Calendar {
    /// An empty calendar whose gaps shorter than `min_gap_ns` count as busy.
    pub fn new(min_gap_ns: u64) -> Calendar {
        Calendar {
            busy: Intervals::default(),
            min_gap_ns,
        }
    }

    /// Reserves `len_ns` at the earliest time ≥ `ready_ns`; returns the start.
    pub fn reserve(&mut self, ready_ns: u64, len_ns: u64) -> u64 {
        let mut i = self.first_ending_after(ready_ns);
        let mut t = ready_ns;
        let busy = self.busy.live_mut();
        while i < busy.len() {
            let (s, e) = busy[i];
            if s >= t + len_ns {
                break;
            }
            t = t.max(e);
            i += 1;
        }
        let end = t + len_ns;
        // A gap narrower than `min_gap_ns` (or no gap at all) joins the neighbours.
        let join = self.min_gap_ns.max(1);
        let joins_prev = i > 0 && busy[i - 1].1 + join > t;
        let joins_next = i < busy.len() && busy[i].0 < end + join;
        match (joins_prev, joins_next) {
            (true, true) => {
                busy[i - 1].1 = busy[i].1;
                self.busy.remove(i);
            }
            (true, false) => busy[i - 1].1 = end,
            (false, true) => busy[i].0 = t,
            (false, false) => self.busy.insert(i, (t, end)),
        }
        t
    }

    /// Index of the first interval that ends after `t_ns` (the length if none does).
    #[inline]
    fn first_ending_after(&self, t_ns: u64) -> usize {
        // Reservations land a few intervals from the back (measured on a filled-device
        // replay: 10 intervals per bus on average, 3 after the new one), where walking
        // back is cheaper than a binary search's unpredictable branches; the search
        // takes over when the walk gets long.
        const WALK: usize = 8;
        let busy = self.busy.live();
        // A host-link transfer due now, with reads' transfers reserved far ahead (they
        // wait behind GC), falls before every interval: one look at the front.
        if busy.first().is_none_or(|&(_, e)| e > t_ns) {
            return 0;
        }
        let mut i = busy.len();
        for _ in 0..WALK {
            if i == 0 || busy[i - 1].1 <= t_ns {
                return i;
            }
            i -= 1;
        }
        busy.partition_point(|&(_, e)| e <= t_ns)
    }

    /// End of the earliest reservation, `u64::MAX` when there is none.
    #[inline]
    pub fn front_end_ns(&self) -> u64 {
        self.busy.front().map_or(u64::MAX, |&(_, e)| e)
    }

    /// Forgets intervals that end at or before `now_ns`.
    pub fn prune(&mut self, now_ns: u64) {
        while self.busy.front().is_some_and(|&(_, e)| e <= now_ns) {
            self.busy.pop_front();
        }
    }

    /// Forgets every reservation.
    pub fn clear(&mut self) {
        self.busy.clear();
    }
}

/// One page's share of an operation on `pages` pages, rounded.
fn share(ns: u64, pages: u32) -> u64 {
    let pages = pages.max(1) as u64;
    (ns + pages / 2) / pages
}

/// A die's latest program operation while it is the last thing the die does: a
/// multi-plane / one-shot program of up to `pages_per_program` mapping pages.
#[derive(Clone, Copy, Debug, Default)]
struct Batch {
    /// When the die became free for it (its first page's data could start to arrive):
    /// a page queued by then joins it.
    open_ns: u64,
    /// When the die's array is free again for a copy's source read ahead of the program
    /// (copies within the die read their pages before the one program).
    prep_ns: u64,
    /// When the program proper starts: every page's data is in the die's registers.
    program_start_ns: u64,
    /// t_PROG of its cell mode (native or SLC; pages of one mode share an operation).
    program_ns: u64,
    /// Pages in it; 0 when none is open (the die has done something else since).
    pages: u32,
    /// Cause of its first page, which is charged the die time of its empty slots.
    cause: u8,
}

impl Batch {
    /// The die time of its empty slots out of `k`.
    #[inline]
    fn empty_slots_ns(&self, k: u32) -> u64 {
        self.program_ns - self.program_ns * self.pages as u64 / k as u64
    }

    /// Takes no more pages; its empty slots' die time is charged to `busy_ns`.
    #[inline]
    fn close(&mut self, k: u32, busy_ns: &mut [u64; CAUSES]) {
        if self.pages > 0 {
            busy_ns[self.cause as usize] += self.empty_slots_ns(k);
            self.pages = 0;
        }
    }
}

/// Busy-until state of dies and buses.
///
/// Program operations (`pages_per_program` = k slots per die): a controller issues one
/// multi-plane / one-shot program per die for the pages waiting for that die when it
/// becomes free, up to k, and the die is then busy for the whole t_PROG of the cell
/// mode however many slots are filled (a partly filled program pads; it is not faster).
/// In this busy-until model: a program of a page whose data is ready by the time the
/// die became free for the die's latest program (and nothing else ran on the die since,
/// the mode is the same and a slot is left) joins that program: its data crosses the bus
/// no earlier than that moment, and the program starts once every member's data is in
/// (a copy within the die reads its source first, on the die, ahead of the program).
/// Otherwise it opens a new program when the die is next free. So a lone page (QD 1)
/// costs transfer + t_PROG, and a die with a queue writes k pages per t_PROG. Pages
/// are placed in request order, so a page of a later command that joins an earlier
/// command's program delays that program by its transfer after the earlier command's
/// completion was already reported (at most k − 1 transfers, a few µs each); slots are
/// not tied to planes or blocks (a real multi-plane program takes one wordline per plane).
#[derive(Clone, Debug)]
pub struct Timing {
    p: TimingParams,
    pages_per_plane: crate::util::FastDiv,
    pages_per_die: crate::util::FastDiv,
    /// Data bus of each die.
    die_bus: Vec<u32>,
    die_free_ns: Vec<u64>,
    buses: Vec<Calendar>,
    /// End of each bus's earliest reservation (`u64::MAX` when it has none), kept beside
    /// the calendars so that [`Timing::advance`], which runs for every command, reads one
    /// cache line and prunes only the buses that have something to forget (walking every
    /// calendar's own memory each time cost a steady full-timing run ~3 % of its time).
    bus_front_end_ns: Vec<u64>,
    control_free_ns: u64,
    /// Die busy time by cause.
    busy_ns: [u64; CAUSES],
    /// Where virtual pages live when the FTL runs on superblocks.
    superblock: Option<Superblock>,
    planes_per_die: u32,
    /// Superblock erases: the last erase (by `erase_mark`) that reserved each die.
    die_mark: Vec<u32>,
    erase_mark: u32,
    /// Each die's latest program operation ([`Batch`]).
    batch: Vec<Batch>,
    /// How long before its end the last program placed received its data (the end of
    /// its bus transfer).
    last_program_ns: u64,
    /// The SLC write cache, when configured (physical page addresses only).
    slc: Option<Box<SlcState>>,
    /// Program/erase suspension of GC work for reads, when configured (suspend.rs).
    suspend: Option<Box<suspend::State>>,
}

impl Timing {
    /// A model of `geo` with all resources idle at time 0.
    pub fn new(geo: &Geometry, p: TimingParams) -> Timing {
        let dies = geo.dies();
        let die_bus: Vec<u32> = (0..dies)
            .map(|d| {
                let plane = d * geo.planes_per_die;
                match p.organisation {
                    Organisation::SharedBus => 0,
                    Organisation::SharedControl => geo.chip_of_plane(plane),
                    Organisation::Channels => geo.channel_of_plane(plane),
                }
            })
            .collect();
        let buses = die_bus.iter().copied().max().unwrap_or(0) as usize + 1;
        Timing {
            p,
            pages_per_plane: crate::util::FastDiv::new(geo.blocks_per_plane * geo.pages_per_block),
            pages_per_die: crate::util::FastDiv::new(
                geo.blocks_per_plane * geo.pages_per_block * geo.planes_per_die,
            ),
            die_bus,
            die_free_ns: vec![0; dies as usize],
            buses: vec![Calendar::new(p.transfer_ns); buses],
            bus_front_end_ns: vec![u64::MAX; buses],
            control_free_ns: 0,
            busy_ns: [0; CAUSES],
            superblock: None,
            planes_per_die: geo.planes_per_die,
            die_mark: vec![0; dies as usize],
            erase_mark: 0,
            batch: vec![Batch::default(); dies as usize],
            last_program_ns: 0,
            slc: p.slc.map(|sp| {
                let blocks = geo.blocks_per_plane as u64 * geo.planes() as u64;
                Box::new(SlcState {
                    p: sp,
                    pages_per_block: geo.pages_per_block,
                    mode: vec![MODE_ERASED; blocks as usize],
                    fifo: vec![std::collections::VecDeque::new(); dies as usize],
                    bank_ns: vec![0; dies as usize],
                    // Folding moves whole blocks: every program operation is full.
                    fold_block_ns: geo.pages_per_block as u64
                        * (share(sp.read_ns, p.pages_per_program)
                            + share(p.program_ns, p.pages_per_program)),
                    folded: 0,
                    busy_until_ns: 0,
                })
            }),
            suspend: None,
        }
    }

    /// The same model with host reads suspending GC programs and erases
    /// (`ftl.gc_schedule = "preemptive"`; `None`: no suspension).
    pub fn with_suspend(mut self, p: Option<SuspendParams>) -> Timing {
        let dies = self.die_free_ns.len();
        self.suspend = p.map(|p| Box::new(suspend::State::new(p, dies)));
        self
    }

    /// GC operations suspended for a read so far, and reads placed ahead of queued GC
    /// work (0 without suspension).
    pub fn gc_suspensions(&self) -> (u64, u64) {
        self.suspend
            .as_ref()
            .map_or((0, 0), |s| (s.suspensions, s.reads_ahead))
    }

    /// SLC blocks folded into the native cell type so far (0 without an SLC cache).
    pub fn slc_folded_blocks(&self) -> u64 {
        self.slc.as_ref().map_or(0, |s| s.folded)
    }

    /// t_R of the page at `ppn`.
    #[inline]
    fn read_ns_at(&self, ppn: Ppn) -> u64 {
        match &self.slc {
            Some(s) if s.mode[(ppn.0 / s.pages_per_block) as usize] == MODE_SLC => s.p.read_ns,
            _ => self.p.read_ns,
        }
    }

    /// t_PROG of the block holding `ppn` (on `die`) when `cause` programs it: the time
    /// of one whole program operation; decides an erased block's mode on its first
    /// program.
    #[inline]
    fn program_ns_at(&mut self, ppn: Ppn, die: usize, cause: Cause) -> u64 {
        let Some(s) = self.slc.as_deref_mut() else {
            return self.p.program_ns;
        };
        let b = (ppn.0 / s.pages_per_block) as usize;
        if s.mode[b] == MODE_ERASED {
            s.mode[b] = if cause == Cause::Host && s.fifo[die].len() < s.p.blocks_per_die as usize {
                s.fifo[die].push_back(b as u32);
                MODE_SLC
            } else {
                MODE_NATIVE
            };
        }
        if s.mode[b] == MODE_SLC {
            s.p.program_ns
        } else {
            self.p.program_ns
        }
    }

    /// Banks the device's idle time before `ready_ns` on every die and folds what
    /// `die`'s bank pays for.
    #[inline]
    fn fold_idle(&mut self, die: usize, ready_ns: u64) {
        let Some(s) = self.slc.as_deref_mut() else {
            return;
        };
        let idle_from = s.busy_until_ns.saturating_add(FOLD_IDLE_NS);
        if ready_ns > idle_from {
            let gap = ready_ns - idle_from;
            s.bank_ns
                .iter_mut()
                .for_each(|b| *b = b.saturating_add(gap));
            s.busy_until_ns = ready_ns;
        }
        // The newest SLC block may still be open: it stays.
        while s.fifo[die].len() > 1 && s.bank_ns[die] >= s.fold_block_ns {
            let b = s.fifo[die].pop_front().expect("len > 1");
            s.mode[b as usize] = MODE_NATIVE;
            s.bank_ns[die] -= s.fold_block_ns;
            s.folded += 1;
        }
        if s.fifo[die].len() <= 1 {
            // Nothing to fold: idle time is not saved for later.
            s.bank_ns[die] = 0;
        }
    }

    /// Records that flash work runs until `end_ns` (the SLC cache's idle detection).
    #[inline]
    fn busy_until(&mut self, end_ns: u64) {
        if let Some(s) = self.slc.as_deref_mut() {
            s.busy_until_ns = s.busy_until_ns.max(end_ns);
        }
    }

    /// An erase: the block leaves the SLC cache.
    #[inline]
    fn slc_erase(&mut self, block_ppn: Ppn, die: usize) {
        if let Some(s) = self.slc.as_deref_mut() {
            let b = (block_ppn.0 / s.pages_per_block) as usize;
            if s.mode[b] == MODE_SLC
                && let Some(i) = s.fifo[die].iter().position(|&x| x as usize == b)
            {
                s.fifo[die].remove(i);
            }
            s.mode[b] = MODE_ERASED;
        }
    }

    /// The same model for an FTL that runs on `superblock`'s virtual geometry: operation
    /// addresses are then virtual pages, placed on their member planes.
    pub fn with_superblock(mut self, superblock: Option<Superblock>) -> Timing {
        // A superblock is allocated and erased as one: the SLC cache gives all its
        // members one mode, keyed by the virtual block.
        if let (Some(sb), Some(s)) = (&superblock, self.slc.as_deref_mut()) {
            s.pages_per_block *= sb.blocks();
            s.fold_block_ns *= sb.blocks() as u64;
        }
        self.superblock = superblock;
        self
    }

    /// Parameters in use.
    pub fn params(&self) -> &TimingParams {
        &self.p
    }

    #[inline]
    fn plane_of(&self, ppn: Ppn) -> u32 {
        match &self.superblock {
            None => self.pages_per_plane.div(ppn.0),
            Some(sb) => sb.plane_of(ppn),
        }
    }

    #[inline]
    fn die_of(&self, ppn: Ppn) -> usize {
        match &self.superblock {
            None => self.pages_per_die.div(ppn.0) as usize,
            Some(sb) => (sb.plane_of(ppn) / self.planes_per_die) as usize,
        }
    }

    #[inline]
    fn command(&mut self, ready_ns: u64) -> u64 {
        if self.p.organisation == Organisation::SharedControl {
            let start = ready_ns.max(self.control_free_ns);
            self.control_free_ns = start + self.p.command_ns;
            self.control_free_ns
        } else {
            ready_ns
        }
    }

    fn read_into_register(&mut self, die: usize, ready_ns: u64, read_ns: u64) -> u64 {
        let start = ready_ns.max(self.die_free_ns[die]);
        start + read_ns
    }

    fn bus_out(&mut self, die: usize, data_ready_ns: u64) -> u64 {
        let bus = self.die_bus[die] as usize;
        self.reserve_bus(bus, data_ready_ns) + self.p.transfer_ns
    }

    /// The die's open program operation that a page whose data is ready at `ready_ns`
    /// joins, if any: one still the last thing on the die, of the same mode, with a
    /// slot left, that formed (the die became free for it) after the page was ready.
    #[inline]
    fn joinable(&self, die: usize, ready_ns: u64, program_ns: u64) -> Option<Batch> {
        let b = self.batch[die];
        (b.pages > 0
            && b.pages < self.p.pages_per_program
            && b.program_ns == program_ns
            && ready_ns <= b.open_ns)
            .then_some(b)
    }

    /// Adds a page whose data is in `die`'s registers at `data_in_ns` (after source
    /// reads on the die that end at `prep_ns`) to `joined`, the die's open program, or
    /// else to a new program the die became free for at `open_ns`; returns when the
    /// program ends. Die busy time: the page's own transfers and reads (`prep_busy_ns`
    /// when it opens the program; a joiner's is what it delays the program by) and its
    /// slot's share of t_PROG; the empty slots' shares go to the first page's cause
    /// when the program closes ([`Timing::close_batch`]).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn program(
        &mut self,
        die: usize,
        joined: Option<Batch>,
        open_ns: u64,
        prep_ns: u64,
        data_in_ns: u64,
        program_ns: u64,
        cause: usize,
        prep_busy_ns: u64,
    ) -> u64 {
        let k = self.p.pages_per_program as u64;
        let (b, prep_busy_ns) = match joined {
            Some(mut b) => {
                b.prep_ns = b.prep_ns.max(prep_ns);
                b.program_start_ns = b.program_start_ns.max(data_in_ns);
                b.pages += 1;
                // An open program is the die's last work: it ends when the die is free.
                let delay = b.program_start_ns + program_ns - self.die_free_ns[die];
                (b, delay)
            }
            None => {
                self.close_batch(die);
                let b = Batch {
                    open_ns,
                    prep_ns,
                    program_start_ns: data_in_ns,
                    program_ns,
                    pages: 1,
                    cause: cause as u8,
                };
                (b, prep_busy_ns)
            }
        };
        // Slot i's share of t_PROG, so that k slots add up to it exactly.
        let i = b.pages as u64 - 1;
        let slot_ns = program_ns * (i + 1) / k - program_ns * i / k;
        self.busy_ns[cause] += prep_busy_ns + slot_ns;
        let end = b.program_start_ns + program_ns;
        self.batch[die] = b;
        self.die_free_ns[die] = end;
        end
    }

    /// Closes `die`'s open program, if any (the die does something else next).
    #[inline]
    fn close_batch(&mut self, die: usize) {
        self.batch[die].close(self.p.pages_per_program, &mut self.busy_ns);
    }

    /// Programs a page whose data is in controller RAM from `ready_ns` on `die`: its
    /// transfer over the die's bus, then the program it joins or opens.
    fn bus_in_and_program(
        &mut self,
        die: usize,
        ready_ns: u64,
        program_ns: u64,
        cause: usize,
    ) -> u64 {
        let bus = self.die_bus[die] as usize;
        let joined = self.joinable(die, ready_ns, program_ns);
        // The data can only enter the die's page register once the die is free (for the
        // page of an open program: once it became free for that program).
        let open = ready_ns.max(joined.map_or(self.die_free_ns[die], |b| b.open_ns));
        let data_in = self.reserve_bus(bus, open) + self.p.transfer_ns;
        let end = self.program(
            die,
            joined,
            open,
            open,
            data_in,
            program_ns,
            cause,
            self.p.transfer_ns,
        );
        self.last_program_ns = end - data_in;
        end
    }

    /// Tells the model that no operation will be placed before `now_ns` any more (the
    /// simulator calls it with each request's issue time), so old reservations can go.
    #[inline]
    pub fn advance(&mut self, now_ns: u64) {
        for (b, front_end) in self.bus_front_end_ns.iter_mut().enumerate() {
            if *front_end <= now_ns {
                let bus = &mut self.buses[b];
                bus.prune(now_ns);
                *front_end = bus.front_end_ns();
            }
        }
    }

    /// Reserves one transfer on `bus` at the earliest time ≥ `ready_ns`; returns its
    /// start.
    #[inline]
    fn reserve_bus(&mut self, bus: usize, ready_ns: u64) -> u64 {
        let b = &mut self.buses[bus];
        let start = b.reserve(ready_ns, self.p.transfer_ns);
        self.bus_front_end_ns[bus] = b.front_end_ns();
        start
    }

    /// Places `op` no earlier than `ready_ns`; returns its completion time.
    pub fn apply(&mut self, op: &FlashOp, ready_ns: u64) -> u64 {
        if self.suspend.is_some() {
            return self.apply_suspendable(op, ready_ns);
        }
        let end = self.apply_op(op, ready_ns);
        self.busy_until(end);
        end
    }

    fn apply_op(&mut self, op: &FlashOp, ready_ns: u64) -> u64 {
        let c = op.cause as usize;
        let die = self.die_of(op.addr);
        let ready = self.command(ready_ns);
        self.fold_idle(die, ready);
        match op.kind {
            OpKind::Read => {
                // The die reads after its open program, which takes no more pages.
                self.close_batch(die);
                let read_ns = self.read_ns_at(op.addr);
                let data = self.read_into_register(die, ready, read_ns);
                let end = self.bus_out(die, data);
                self.die_free_ns[die] = end;
                self.busy_ns[c] += read_ns + self.p.transfer_ns;
                end
            }
            OpKind::Program => {
                let program_ns = self.program_ns_at(op.addr, die, op.cause);
                self.bus_in_and_program(die, ready, program_ns, c)
            }
            OpKind::Erase if self.superblock.is_some() => {
                self.slc_erase(op.addr, die);
                // One erase on every member; members on one die erase together
                // (multi-plane erase), distinct dies in parallel.
                let sb = self.superblock.as_ref().expect("checked");
                let mut end = ready;
                self.erase_mark = self.erase_mark.wrapping_add(1);
                for &plane in sb.member_planes(op.addr) {
                    let d = plane / self.planes_per_die;
                    if self.die_mark[d as usize] == self.erase_mark {
                        continue;
                    }
                    self.die_mark[d as usize] = self.erase_mark;
                    self.batch[d as usize].close(self.p.pages_per_program, &mut self.busy_ns);
                    let start = ready.max(self.die_free_ns[d as usize]);
                    let e = start + self.p.erase_ns;
                    self.die_free_ns[d as usize] = e;
                    self.busy_ns[c] += self.p.erase_ns;
                    end = end.max(e);
                }
                end
            }
            OpKind::Erase => {
                self.slc_erase(op.addr, die);
                self.close_batch(die);
                let start = ready.max(self.die_free_ns[die]);
                let end = start + self.p.erase_ns;
                self.die_free_ns[die] = end;
                self.busy_ns[c] += self.p.erase_ns;
                end
            }
            OpKind::Copy { src } => self.copy(op, src, die, ready),
            OpKind::CopyRun { src, pages } => {
                let pages = pages as u64;
                if pages == 0 {
                    return ready_ns;
                }
                if self.superblock.is_some() {
                    // Consecutive pages of a superblock sit on different members: time
                    // each copy where its own pages live.
                    let mut end = ready_ns;
                    for i in 0..pages as u32 {
                        let one = FlashOp {
                            kind: OpKind::Copy {
                                src: Ppn(src.0 + i),
                            },
                            cause: op.cause,
                            addr: Ppn(op.addr.0 + i),
                        };
                        end = end.max(self.apply(&one, ready_ns));
                    }
                    return end;
                }
                if self.p.pages_per_program == 1
                    && self.p.organisation != Organisation::SharedControl
                    && self.copies_back(op, src)
                {
                    // One source block and one destination block: one mode each.
                    let step = self.read_ns_at(src) + self.program_ns_at(op.addr, die, op.cause);
                    // Copy-back keeps every copy on the one die: each starts when the
                    // previous ends (the die is busy until then, and later than `ready`),
                    // so `pages` single copies end exactly `pages` steps after the first
                    // starts.
                    let start = ready.max(self.die_free_ns[die]);
                    let end = start + pages * step;
                    self.die_free_ns[die] = end;
                    self.busy_ns[c] += pages * step;
                    return end;
                }
                // Over the bus, with a shared control bus (each command takes its turn
                // there), or with program operations of several pages (copies fill their
                // slots): copy by copy, as the single-page operation does.
                let mut end = self.copy(op, src, die, ready);
                for _ in 1..pages {
                    let ready = self.command(ready_ns);
                    end = end.max(self.copy(op, src, die, ready));
                }
                end
            }
        }
    }

    /// Whether a copy from `src` to `op.addr` uses copy-back.
    #[inline]
    fn copies_back(&self, op: &FlashOp, src: Ppn) -> bool {
        // A management block's read-modify-write merges the old pages with the new
        // sectors in controller RAM, so its copies always cross the bus.
        self.p.copyback && op.cause != Cause::Rmw && self.plane_of(src) == self.plane_of(op.addr)
    }

    /// One page copy from `src` to die `die` (which holds `op.addr`), its command issued
    /// at `ready`; returns its completion time.
    #[inline]
    fn copy(&mut self, op: &FlashOp, src: Ppn, die: usize, ready: u64) -> u64 {
        let c = op.cause as usize;
        let src_die = self.die_of(src);
        let read_ns = self.read_ns_at(src);
        let program_ns = self.program_ns_at(op.addr, die, op.cause);
        let transfer_ns = self.p.transfer_ns;
        if src_die != die {
            // Another die reads the page (after its own work) and sends it out; it then
            // waits in controller RAM for `die`'s program like a host page.
            self.close_batch(src_die);
            let data = self.read_into_register(src_die, ready, read_ns);
            let out = self.bus_out(src_die, data);
            self.die_free_ns[src_die] = out;
            self.busy_ns[c] += read_ns + transfer_ns;
            return self.bus_in_and_program(die, out, program_ns, c);
        }
        // Within one die the source read prepares the program: a copy queued when the die
        // became free for its open program reads its page ahead of that program.
        let joined = self.joinable(die, ready, program_ns);
        let open = ready.max(joined.map_or(self.die_free_ns[die], |b| b.open_ns));
        let read_start = joined.map_or(open, |b| ready.max(b.prep_ns));
        let data = read_start + read_ns;
        if self.copies_back(op, src) {
            self.program(die, joined, open, data, data, program_ns, c, read_ns)
        } else {
            // Out to controller RAM and back in over the die's bus.
            let out = self.bus_out(die, data);
            let bus = self.die_bus[die] as usize;
            let data_in = self.reserve_bus(bus, out) + transfer_ns;
            let busy = read_ns + 2 * transfer_ns;
            self.program(die, joined, open, out, data_in, program_ns, c, busy)
        }
    }

    /// Die busy time by cause so far (the programs still open counted whole).
    pub fn busy_ns(&self) -> [u64; CAUSES] {
        let mut busy = self.busy_ns;
        for b in self.batch.iter().filter(|b| b.pages > 0) {
            busy[b.cause as usize] += b.empty_slots_ns(self.p.pages_per_program);
        }
        busy
    }

    /// Share of die busy time spent on GC and wear leveling.
    pub fn gc_busy_share(&self) -> f64 {
        let busy = self.busy_ns();
        let total: u64 = busy.iter().sum();
        if total == 0 {
            return 0.0;
        }
        (busy[Cause::Gc as usize] + busy[Cause::Wl as usize]) as f64 / total as f64
    }

    /// Forgets busy-time accounting (after preconditioning) and idles every resource at
    /// `now_ns`.
    pub fn reset(&mut self, now_ns: u64) {
        self.busy_ns = [0; CAUSES];
        self.die_free_ns.iter_mut().for_each(|t| *t = now_ns);
        // Open programs' empty slots belong to the forgotten accounting.
        self.batch.iter_mut().for_each(|b| b.pages = 0);
        self.buses.iter_mut().for_each(Calendar::clear);
        self.bus_front_end_ns.iter_mut().for_each(|e| *e = u64::MAX);
        self.control_free_ns = now_ns;
        if let Some(s) = self.suspend.as_deref_mut() {
            s.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The count model charges a command exactly the formula time of the counters'
    /// difference, whatever the costs, counts and copy cost (hand-rolled seeded cases).
    #[test]
    fn count_model_charges_the_formula_time_of_the_difference() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let counters = |rng: &mut rand_xoshiro::Xoshiro256PlusPlus, max: u64| {
            let mut c = NandCounters::default();
            for a in [&mut c.reads, &mut c.programs, &mut c.erases] {
                a.iter_mut().for_each(|x| *x = rng.gen_range(0..max));
            }
            // Copies are among the programs and reads.
            for i in 0..CAUSES {
                c.copies[i] = rng.gen_range(0..=c.programs[i].min(c.reads[i]));
            }
            c
        };
        for case in 0..2000 {
            let copy_cost = [CopyCost::Tw, CopyCost::TrTw, CopyCost::Copyback][case % 3];
            let formula = FormulaCosts {
                read_ns: rng.gen_range(0..100_000),
                program_ns: rng.gen_range(0..2_000_000),
                erase_ns: rng.gen_range(0..10_000_000),
                copy_cost,
            };
            let model = CountModel::new(formula, 1);
            let before = counters(&mut rng, 1 << 40);
            let step = counters(&mut rng, if case % 2 == 0 { 4 } else { 1 << 20 });
            let mut after = before;
            for i in 0..CAUSES {
                after.reads[i] += step.reads[i];
                after.programs[i] += step.programs[i];
                after.copies[i] += step.copies[i];
                after.erases[i] += step.erases[i];
            }
            assert_eq!(
                model.weight(&after).wrapping_sub(model.weight(&before)),
                formula.time(&after.since(&before)).total_ns(),
                "case {case}: {formula:?}, {before:?} then {step:?}"
            );
        }
    }

    fn geo(channels: u32, chips: u32) -> Geometry {
        Geometry {
            channels,
            chips_per_channel: chips,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 4,
            pages_per_block: 4,
            page_size_bytes: 4096,
            oob_size_bytes: 128,
        }
    }

    fn params(org: Organisation) -> TimingParams {
        TimingParams {
            read_ns: 25_000,
            program_ns: 200_000,
            erase_ns: 1_500_000,
            transfer_ns: 100_000,
            command_ns: 1_000,
            copyback: false,
            organisation: org,
            pages_per_program: 1,
            slc: None,
        }
    }

    fn op(kind: OpKind, addr: u32) -> FlashOp {
        FlashOp {
            kind,
            cause: Cause::Host,
            addr: Ppn(addr),
        }
    }

    #[test]
    fn formula_matches_hand_computed_example() {
        // docs/algorithms.md §1.1: (Cr, Cw, Gc, Ce) = (1000, 1000, 500, 10) with Tr 20, Tw 250,
        // Te 1500 µs and copies charged Tw → 410,000 µs. Copies also count as reads and
        // programs in NandCounters, so 500 of the reads/programs below are the copies.
        let mut c = NandCounters::default();
        c.reads[0] = 1000;
        c.programs[0] = 1000;
        c.reads[1] = 500;
        c.programs[1] = 500;
        c.copies[1] = 500;
        c.erases[1] = 10;
        let f = FormulaCosts {
            read_ns: 20_000,
            program_ns: 250_000,
            erase_ns: 1_500_000,
            copy_cost: CopyCost::Tw,
        };
        let t = f.time(&c);
        assert_eq!(t.total_ns(), 410_000_000);
        assert_eq!(t.io_ns, 270_000_000);
    }

    #[test]
    fn reads_on_two_dies_of_one_channel_overlap_array_time_not_bus_time() {
        // 1 channel, 2 chips: both reads' t_R run in parallel (25 µs), then the two
        // transfers serialise on the bus: second completes at 25 + 100 + 100 µs.
        let g = geo(1, 2);
        let mut t = Timing::new(&g, params(Organisation::Channels));
        let a = t.apply(&op(OpKind::Read, 0), 0);
        let b = t.apply(&op(OpKind::Read, 16), 0); // block 4 = plane 1 = chip 1
        assert_eq!(a, 125_000);
        assert_eq!(b, 225_000);
    }

    #[test]
    fn channels_parallelise_transfers() {
        let g = geo(2, 1);
        let mut t = Timing::new(&g, params(Organisation::Channels));
        assert_eq!(t.apply(&op(OpKind::Read, 0), 0), 125_000);
        assert_eq!(t.apply(&op(OpKind::Read, 16), 0), 125_000);
    }

    #[test]
    fn shared_bus_serialises_everything_and_shared_control_only_commands() {
        let g = geo(2, 2);
        let mut bus = Timing::new(&g, params(Organisation::SharedBus));
        let mut ctl = Timing::new(&g, params(Organisation::SharedControl));
        let mut last_bus = 0;
        let mut last_ctl = 0;
        for plane in 0..4 {
            last_bus = last_bus.max(bus.apply(&op(OpKind::Read, plane * 16), 0));
            last_ctl = last_ctl.max(ctl.apply(&op(OpKind::Read, plane * 16), 0));
        }
        assert_eq!(last_bus, 25_000 + 4 * 100_000);
        // Four commands of 1 µs each, then independent read + transfer.
        assert_eq!(last_ctl, 4_000 + 125_000);
    }

    /// Superblocks of 2 blocks on a 2-channel × 2-chip array (4 blocks of 4 pages per
    /// plane): virtual blocks are 8 pages, virtual planes hold 32 pages.
    fn superblock(ch: crate::ftl::layout::ChannelPlacement) -> Timing {
        let g = geo(2, 2);
        let cfg = crate::ftl::FtlConfig {
            name: crate::ftl::FtlKind::Bast,
            superblock: crate::units::Size(2 * 4 * 4096),
            channel_placement: ch,
            ..crate::ftl::FtlConfig::default()
        };
        let sb = Superblock::from_config(&cfg, &g).unwrap();
        Timing::new(&g, params(Organisation::Channels)).with_superblock(sb)
    }

    #[test]
    fn superblock_pages_alternate_members_and_erase_all_of_them_at_once() {
        use crate::ftl::layout::ChannelPlacement;
        // Striped: the members of virtual plane 0 are channel 0 and channel 1 (chip 0),
        // so virtual pages 0 and 1 program in parallel: both end after one transfer
        // (100 µs) and one program (200 µs).
        let mut t = superblock(ChannelPlacement::Striped);
        assert_eq!(t.apply(&op(OpKind::Program, 0), 0), 300_000);
        assert_eq!(t.apply(&op(OpKind::Program, 1), 0), 300_000);
        // Page 2 is on member 0 again: it waits for that die.
        assert_eq!(t.apply(&op(OpKind::Program, 2), 0), 600_000);
        // Erasing superblock 0 erases on both dies: the one free at 300 µs finishes
        // first, the superblock when the later die (free at 600 µs) is done.
        assert_eq!(t.apply(&op(OpKind::Erase, 0), 0), 600_000 + 1_500_000);
        assert_eq!(t.busy_ns()[0], 3 * 300_000 + 2 * 1_500_000);
        // One-channel: the members are the two chips of channel 0, so the second
        // page's transfer waits for the first one's on the shared bus.
        let mut t = superblock(ChannelPlacement::OneChannel);
        assert_eq!(t.apply(&op(OpKind::Program, 0), 0), 300_000);
        assert_eq!(t.apply(&op(OpKind::Program, 1), 0), 400_000);
        // Virtual plane 1 (virtual pages 32..) is channel 1: free.
        assert_eq!(t.apply(&op(OpKind::Program, 32), 0), 300_000);
    }

    #[test]
    fn program_waits_for_die_and_erase_blocks_die() {
        let g = geo(1, 1);
        let mut t = Timing::new(&g, params(Organisation::Channels));
        assert_eq!(t.apply(&op(OpKind::Erase, 0), 0), 1_500_000);
        assert_eq!(t.apply(&op(OpKind::Program, 4), 0), 1_500_000 + 300_000);
        assert_eq!(t.busy_ns()[0], 1_500_000 + 300_000);
    }

    proptest::proptest! {
        /// The calendar's interval array behaves as the `VecDeque` it replaced, through
        /// inserts at either end and the middle, removals and prunes that move its head.
        #[test]
        fn intervals_match_a_vecdeque(ops in proptest::collection::vec((0u8..4, 0usize..64), 1..400)) {
            let mut a = Intervals::default();
            let mut r = std::collections::VecDeque::new();
            for (n, (op, at)) in ops.into_iter().enumerate() {
                let x = (n as u64, n as u64 + 1);
                match op {
                    0 | 1 => {
                        let i = at % (r.len() + 1);
                        a.insert(i, x);
                        r.insert(i, x);
                    }
                    2 if !r.is_empty() => {
                        let i = at % r.len();
                        a.remove(i);
                        r.remove(i);
                    }
                    _ => {
                        if r.pop_front().is_some() {
                            a.pop_front();
                        }
                    }
                }
                let want: Vec<(u64, u64)> = r.iter().copied().collect();
                proptest::prop_assert_eq!(a.live(), want.as_slice());
                proptest::prop_assert_eq!(a.front(), r.front());
            }
        }
    }

    #[test]
    fn calendar_backfills_gaps_and_merges() {
        let mut c = Calendar::new(0);
        assert_eq!(c.reserve(100, 10), 100);
        assert_eq!(c.reserve(0, 10), 0); // before the first reservation
        assert_eq!(c.reserve(5, 10), 10); // after [0,10), gap [10,100) fits
        assert_eq!(c.reserve(95, 10), 110); // [95,105) overlaps [100,110)
        let v: Vec<(u64, u64)> = c.busy.iter().copied().collect();
        assert_eq!(v, vec![(0, 20), (100, 120)]);
        c.prune(50);
        assert_eq!(c.busy.len(), 1);
        // Gaps shorter than a transfer are useless and merged away.
        let mut c = Calendar::new(10);
        c.reserve(0, 10);
        c.reserve(15, 10); // gap [10,15) < 10: merged into [0,25)
        assert_eq!(c.busy.len(), 1);
        assert_eq!(c.reserve(0, 10), 25);
        c.reserve(100, 10);
        assert_eq!(c.busy.len(), 2);
    }

    /// A copy run is placed exactly as its single copies one after another, whatever
    /// the wiring and copy-back setting, including after other traffic left the dies
    /// and buses busy at different times.
    #[test]
    fn copy_run_matches_single_copies() {
        let g = Geometry {
            planes_per_die: 2,
            ..geo(2, 2)
        };
        for org in [
            Organisation::Channels,
            Organisation::SharedBus,
            Organisation::SharedControl,
        ] {
            for (copyback, k) in [(true, 1), (false, 1), (true, 4), (false, 4)] {
                for (src, dst) in [(0, 8), (1, 18), (40, 6)] {
                    let mut p = params(org);
                    p.copyback = copyback;
                    p.pages_per_program = k;
                    let mut run = Timing::new(&g, p);
                    let mut single = Timing::new(&g, p);
                    for t in [&mut run, &mut single] {
                        t.apply(&op(OpKind::Program, 5), 0);
                        t.apply(&op(OpKind::Read, 33), 0);
                        t.apply(&op(OpKind::Erase, 20), 0);
                    }
                    let cause = Cause::Gc;
                    let ready = 50_000;
                    let end = run.apply(
                        &FlashOp {
                            kind: OpKind::CopyRun {
                                src: Ppn(src),
                                pages: 3,
                            },
                            cause,
                            addr: Ppn(dst),
                        },
                        ready,
                    );
                    let mut want = 0;
                    for k in 0..3 {
                        let copy = FlashOp {
                            kind: OpKind::Copy { src: Ppn(src + k) },
                            cause,
                            addr: Ppn(dst + k),
                        };
                        want = want.max(single.apply(&copy, ready));
                    }
                    let case = format!("{org:?} copyback {copyback} k {k} {src}->{dst}");
                    assert_eq!(end, want, "{case}");
                    assert_eq!(run.busy_ns(), single.busy_ns(), "{case}");
                    assert_eq!(run.die_free_ns, single.die_free_ns, "{case}");
                    assert_eq!(run.control_free_ns, single.control_free_ns, "{case}");
                    // The next operation sees the same buses.
                    let next = op(OpKind::Read, 1);
                    assert_eq!(run.apply(&next, 0), single.apply(&next, 0), "{case}");
                }
            }
        }
    }

    /// A program operation takes the whole t_PROG whatever it holds; the pages queued
    /// for a die when it becomes free share one, up to `pages_per_program`.
    #[test]
    fn program_operations_take_whole_t_prog_and_hold_the_queued_pages() {
        let g = Geometry {
            planes_per_die: 2,
            ..geo(1, 1)
        };
        let mut p = params(Organisation::Channels);
        p.pages_per_program = 4;
        let (x, prog) = (p.transfer_ns, p.program_ns);
        // A lone page: its transfer, then the whole program.
        let mut t = Timing::new(&g, p);
        assert_eq!(t.apply(&op(OpKind::Program, 0), 0), x + prog);
        // Three pages ready when the die became free (time 0) join it: each transfer
        // delays the program start, none adds a program.
        let mut t = Timing::new(&g, p);
        for (i, ppn) in [0, 1, 16, 17].into_iter().enumerate() {
            assert_eq!(
                t.apply(&op(OpKind::Program, ppn), 0),
                (i as u64 + 1) * x + prog
            );
        }
        // The fifth page opens the next program once the die is free.
        let first_end = 4 * x + prog;
        assert_eq!(t.apply(&op(OpKind::Program, 2), 0), first_end + x + prog);
        // A page that arrives after the die became free for that program waits for
        // the next one, and so does a page after a read.
        assert_eq!(
            t.apply(&op(OpKind::Program, 3), first_end + 1),
            first_end + 2 * x + 2 * prog
        );
        let read_end = t.apply(&op(OpKind::Read, 0), 0);
        assert_eq!(t.apply(&op(OpKind::Program, 18), 0), read_end + x + prog);
        // Die time: 5 transfers + 2 programs + the read + the last two programs.
        assert_eq!(t.busy_ns()[0], 7 * x + 4 * prog + p.read_ns + x);
        // Copies within a die read their sources first, then share one program.
        let mut cp = p;
        cp.copyback = true;
        let mut t = Timing::new(&g, cp);
        let mut end = 0;
        for k in 0..4 {
            let copy = FlashOp {
                kind: OpKind::Copy { src: Ppn(k) },
                cause: Cause::Gc,
                addr: Ppn(4 + k),
            };
            end = t.apply(&copy, 0);
        }
        assert_eq!(end, 4 * cp.read_ns + prog);
    }

    #[test]
    fn copyback_skips_the_bus_within_a_plane() {
        let g = geo(1, 1);
        let mut p = params(Organisation::Channels);
        p.copyback = true;
        let mut t = Timing::new(&g, p);
        let copy = FlashOp {
            kind: OpKind::Copy { src: Ppn(0) },
            cause: Cause::Gc,
            addr: Ppn(4),
        };
        assert_eq!(t.apply(&copy, 0), 225_000);
        assert_eq!(t.gc_busy_share(), 1.0);
    }
}
