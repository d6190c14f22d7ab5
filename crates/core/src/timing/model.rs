//! The time models behind one interface, [`TimeModel`]: [`FullModel`] (the busy-until
//! placement of [`Timing`](super::Timing)) and [`CountModel`] (the papers' serial
//! formula), the [`Model`] that holds either, and what the simulator passes in
//! ([`PlaceCtx`]) and gets back ([`Placed`]) for each command.

use super::{FormulaCosts, Timing};
use crate::nand::{CAUSES, Cause, FlashOp, Nand, NandCounters, OpKind};

/// When one command's flash work ends, as a time model places it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// When its last flash operation (its own, and GC or mapping work it triggered)
    /// ends; the start time when it caused none.
    pub flash_done_ns: u64,
    /// When the host data its programs carry has left controller DRAM: the end of the
    /// last host program's bus transfer (a write buffer's slot is free from then on).
    pub host_data_out_ns: u64,
}

/// What the simulator tells a time model about the command being placed.
pub struct PlaceCtx<'a> {
    /// No operation starts earlier (the command's issue or dispatch time, or when its
    /// write data has crossed the host link).
    pub start_ns: u64,
    /// Pages per management block when by-address placement rewrites whole blocks, else
    /// 1: the blocks a command merges with old data (read-modify-write) are rewritten
    /// one at a time; blocks it covers whole are written in parallel.
    pub serial_units: u32,
    /// A read's pages as (data ready, bytes); the model raises "ready" of the pages that
    /// flash supplies to the end of their flash read. Empty for other commands, and
    /// when [`TimeModel::per_page_reads`] is false.
    pub read_pages: &'a mut [(u64, u64)],
    /// Which of `read_pages` flash supplies, in order: the i-th host read the model
    /// places is the i-th of these (an FTL reads each mapped page once, in order).
    pub read_flash: &'a [u32],
}

/// A way of turning the flash operations of a command into time (full or count).
pub trait TimeModel: Send {
    /// Whether the NAND must log every operation for [`TimeModel::place`].
    fn needs_op_log(&self) -> bool;
    /// Whether a read's pages are timed one by one (so the host link can carry each as
    /// soon as its flash read ends) rather than the request as a whole.
    fn per_page_reads(&self) -> bool;
    /// Called before a command's flash work starts.
    fn begin(&mut self, nand: &Nand);
    /// Places the work done since [`TimeModel::begin`].
    fn place(&mut self, nand: &mut Nand, ctx: PlaceCtx<'_>) -> Placed;
    /// Idles every resource at `now_ns` and forgets busy-time accounting.
    fn reset(&mut self, now_ns: u64);
    /// Die busy time by cause since the last reset (`None` when the model has no dies).
    fn busy_ns(&self) -> Option<[u64; CAUSES]>;
}

/// One of the two time models, chosen by the design. Devices hold this rather than a
/// `Box<dyn TimeModel>`: the model is called three or four times per command, and with
/// the calls direct (and the small ones inlined) a steady full-timing run is a few
/// percent faster than through a vtable.
// A device holds one, built once and never moved on a hot path: the variants' sizes do
// not matter, and boxing the full model would add a pointer chase to every call.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub enum Model {
    /// [`FullModel`].
    Full(FullModel),
    /// [`CountModel`].
    Count(CountModel),
}

impl TimeModel for Model {
    #[inline]
    fn needs_op_log(&self) -> bool {
        match self {
            Model::Full(m) => m.needs_op_log(),
            Model::Count(m) => m.needs_op_log(),
        }
    }

    #[inline]
    fn per_page_reads(&self) -> bool {
        match self {
            Model::Full(m) => m.per_page_reads(),
            Model::Count(m) => m.per_page_reads(),
        }
    }

    #[inline]
    fn begin(&mut self, nand: &Nand) {
        match self {
            Model::Full(m) => m.begin(nand),
            Model::Count(m) => m.begin(nand),
        }
    }

    #[inline]
    fn place(&mut self, nand: &mut Nand, ctx: PlaceCtx<'_>) -> Placed {
        match self {
            Model::Full(m) => m.place(nand, ctx),
            Model::Count(m) => m.place(nand, ctx),
        }
    }

    fn reset(&mut self, now_ns: u64) {
        match self {
            Model::Full(m) => m.reset(now_ns),
            Model::Count(m) => m.reset(now_ns),
        }
    }

    fn busy_ns(&self) -> Option<[u64; CAUSES]> {
        match self {
            Model::Full(m) => m.busy_ns(),
            Model::Count(m) => m.busy_ns(),
        }
    }
}

/// The full model as a [`TimeModel`]: every logged operation on its die and bus.
#[derive(Clone)]
pub struct FullModel {
    timing: Timing,
    ops: Vec<FlashOp>,
    /// The by-address management blocks the command being placed merges with old data.
    merging: Vec<u32>,
}

impl FullModel {
    /// Wraps `timing`.
    pub fn new(timing: Timing) -> FullModel {
        FullModel {
            timing,
            ops: Vec::new(),
            merging: Vec::new(),
        }
    }
}

impl TimeModel for FullModel {
    fn needs_op_log(&self) -> bool {
        true
    }

    fn per_page_reads(&self) -> bool {
        true
    }

    fn begin(&mut self, _nand: &Nand) {}

    fn place(&mut self, nand: &mut Nand, ctx: PlaceCtx<'_>) -> Placed {
        let t = &mut self.timing;
        let start = ctx.start_ns;
        t.advance(start);
        // A partly written page is programmed only once its old contents have been read
        // and merged: read-modify-write reads gate the command's own programs.
        // By-address management blocks: a block the write covers whole (or whose other
        // pages hold no data) is replaced without reading anything, each page on its die
        // and bus as the layout puts it, so such blocks proceed in parallel and only pages
        // sharing a die or a bus wait for each other. A block merged with old data (its
        // other pages copied: read-modify-write) goes through the firmware's merge one
        // block at a time, so a write that straddles two partly covered blocks pays for
        // both in sequence — the latency jump at block boundaries that the management-
        // block probe (docs/papers.md §1) measured on real drives.
        let mut ops = std::mem::take(&mut self.ops);
        nand.swap_log(&mut ops);
        let merging = &mut self.merging;
        merging.clear();
        if ctx.serial_units > 1 {
            for op in ops.iter().filter(|op| op.cause == Cause::Rmw) {
                let u = nand.oob_lpn_raw(op.addr) / ctx.serial_units;
                if !merging.contains(&u) {
                    merging.push(u);
                }
            }
        }
        let mut host_reads = 0;
        let mut merged_ns = start;
        // A host read's address comes from the mapping: a command's host reads wait for
        // the mapping reads (translation pages, chain scans) logged before them.
        let mut map_read_ns = start;
        let (mut unit, mut unit_start_ns, mut unit_done_ns) = (u32::MAX, start, start);
        let mut placed = Placed {
            flash_done_ns: start,
            host_data_out_ns: start,
        };
        for op in &ops {
            let rmw_read = op.cause == Cause::Rmw && op.kind == OpKind::Read;
            let own = !rmw_read && matches!(op.cause, Cause::Host | Cause::Rmw);
            let mut at = if own { merged_ns } else { start };
            let merge_unit = if own && !merging.is_empty() {
                let u = nand.oob_lpn_raw(op.addr) / ctx.serial_units;
                merging.contains(&u).then_some(u)
            } else {
                None
            };
            if let Some(u) = merge_unit {
                if u != unit {
                    if unit != u32::MAX {
                        unit_start_ns = unit_done_ns;
                    }
                    unit = u;
                }
                at = at.max(unit_start_ns);
            }
            let host_read = op.kind == OpKind::Read && op.cause == Cause::Host;
            if host_read {
                at = at.max(map_read_ns);
            }
            let end = t.apply(op, at);
            if rmw_read {
                merged_ns = merged_ns.max(end);
            }
            if op.kind == OpKind::Read && op.cause == Cause::Map {
                map_read_ns = map_read_ns.max(end);
            }
            if merge_unit.is_some() {
                unit_done_ns = unit_done_ns.max(end);
            }
            match (op.kind, op.cause) {
                (OpKind::Read, Cause::Host) => {
                    // A read's page is ready for the host when its flash read ends.
                    if let Some(&k) = ctx.read_flash.get(host_reads) {
                        let p = &mut ctx.read_pages[k as usize];
                        p.0 = p.0.max(end);
                    }
                    host_reads += 1;
                }
                (OpKind::Program, Cause::Host) => {
                    placed.host_data_out_ns = placed.host_data_out_ns.max(end - t.last_program_ns);
                }
                _ => {}
            }
            placed.flash_done_ns = placed.flash_done_ns.max(end);
        }
        self.ops = ops;
        placed
    }

    fn reset(&mut self, now_ns: u64) {
        self.timing.reset(now_ns);
    }

    fn busy_ns(&self) -> Option<[u64; CAUSES]> {
        Some(self.timing.busy_ns())
    }
}

/// The counting model as a [`TimeModel`]: the device is one serial server whose service
/// time for a command is the formula time of the operations it caused. A command that
/// caused none (a DRAM hit, an unmapped read, a trim) does not wait for the server.
///
/// Programs are charged in whole program operations of `pages_per_program` (k) pages, as
/// the full model times them: the formula's Tw is one page's share of a full operation
/// (t_PROG / k by default), and a command whose P programs (copies included) leave the
/// last operation partly filled also pays Tw for each empty slot, ⌈P/k⌉·k·Tw in all. A
/// lone page therefore costs t_PROG, and a command of k pages or more the formula's
/// P·Tw up to the last operation's padding. (The report's "Elapsed (formula)" stays the
/// papers' count, Cw·Tw, with no padding.)
#[derive(Clone)]
pub struct CountModel {
    formula: FormulaCosts,
    /// Pages per program operation (k).
    pages_per_program: u64,
    free_ns: u64,
    /// [`CountModel::weight`] of the counters when the command began.
    before: u64,
    /// Programs counted when the command began.
    before_programs: u64,
}

impl CountModel {
    /// A model charging `formula`, with programs in operations of `pages_per_program`
    /// pages.
    pub fn new(formula: FormulaCosts, pages_per_program: u32) -> CountModel {
        CountModel {
            formula,
            pages_per_program: pages_per_program.max(1) as u64,
            free_ns: 0,
            before: 0,
            before_programs: 0,
        }
    }

    /// Programs counted so far, modulo 2^64.
    #[inline]
    fn programs(c: &NandCounters) -> u64 {
        c.programs.iter().fold(0u64, |s, &x| s.wrapping_add(x))
    }

    /// The formula time of every operation counted so far, modulo 2^64. The formula is
    /// linear in the counters, so a command's cost is the difference of this after and
    /// before it: exactly [`FormulaCosts::time`] of the counters' difference. Why not
    /// that: a copy of the counters at the start and the difference at the end read
    /// them with vector loads right after the flash operations' scalar increments, and
    /// each such load waits for those stores (a failed store forward); this reads them
    /// one by one, and the count model's share of a steady run's time halves.
    #[inline]
    pub(super) fn weight(&self, c: &NandCounters) -> u64 {
        let f = &self.formula;
        let sum = |a: &[u64; CAUSES]| a.iter().fold(0u64, |s, &x| s.wrapping_add(x));
        let copies = sum(&c.copies).wrapping_sub(c.copies[Cause::Rmw as usize]);
        let reads = sum(&c.reads).wrapping_sub(copies);
        let programs = sum(&c.programs).wrapping_sub(copies);
        reads
            .wrapping_mul(f.read_ns)
            .wrapping_add(programs.wrapping_mul(f.program_ns))
            .wrapping_add(copies.wrapping_mul(f.copy_ns()))
            .wrapping_add(sum(&c.erases).wrapping_mul(f.erase_ns))
    }
}

impl TimeModel for CountModel {
    fn needs_op_log(&self) -> bool {
        false
    }

    fn per_page_reads(&self) -> bool {
        false
    }

    fn begin(&mut self, nand: &Nand) {
        self.before = self.weight(nand.counters());
        if self.pages_per_program > 1 {
            self.before_programs = Self::programs(nand.counters());
        }
    }

    fn place(&mut self, nand: &mut Nand, ctx: PlaceCtx<'_>) -> Placed {
        let mut cost = self.weight(nand.counters()).wrapping_sub(self.before);
        if self.pages_per_program > 1 {
            // The empty slots of the command's last program operation.
            let k = self.pages_per_program;
            let programs = Self::programs(nand.counters()).wrapping_sub(self.before_programs);
            cost += (k - programs % k) % k * self.formula.program_ns;
        }
        if cost == 0 {
            return Placed {
                flash_done_ns: ctx.start_ns,
                host_data_out_ns: ctx.start_ns,
            };
        }
        self.free_ns = ctx.start_ns.max(self.free_ns) + cost;
        Placed {
            flash_done_ns: self.free_ns,
            host_data_out_ns: self.free_ns,
        }
    }

    fn reset(&mut self, now_ns: u64) {
        self.free_ns = now_ns;
    }

    fn busy_ns(&self) -> Option<[u64; CAUSES]> {
        None
    }
}
