//! Garbage-collection victim policies, one file each, behind [`VictimPolicy`].
//!
//! A policy sees blocks enter the candidate set when they are closed (fully programmed)
//! and hears about every invalidation, so it can keep its own index (buckets for greedy,
//! a queue for FIFO). `select` removes and returns the chosen victim of one plane.
//! Candidates are closed blocks only: never an open write frontier (a bug of MQSim's
//! greedy, docs/algorithms.md §3.2). When GC runs (foreground, background, preemptive)
//! is [`GcSchedule`], in `schedule.rs`.

mod cost_benefit;
mod d_choices;
mod fifo;
mod greedy;
mod schedule;

pub use cost_benefit::CostBenefit;
pub use d_choices::DChoices;
pub use fifo::Fifo;
pub use greedy::Greedy;
pub use schedule::{GcSchedule, MAX_SUSPEND_NS, SuspendConfig};

use crate::nand::{BlockId, Geometry, Nand};
use crate::registry::{Named, Registry};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::RwLock;

/// The built-in victim policies, one line each, in `ssdlab list` order. A policy is one
/// file exporting `pub const SPEC` plus its line here; the CLI's `--gc` choices, `ssdlab
/// list`, the `gc` key's parsing, the knob checks and the contract tests all read this
/// list (and the policies [`register_gc_policy`] added after it).
pub const GC_POLICIES: &[&GcPolicySpec] = &[
    &greedy::SPEC,
    &cost_benefit::SPEC,
    &fifo::SPEC,
    &d_choices::SPEC,
];

/// Builds one FTL family (page FTL, DFTL) over a policy: a plain function pointer,
/// instantiated per policy by [`GcPolicySpec::new`], so the FTL is monomorphised over its
/// policy and the per-write path has no dynamic dispatch.
pub type FtlBuild = fn(
    &super::FtlConfig,
    &Geometry,
    u64,
    PolicyParams,
) -> Result<Box<dyn super::Ftl>, crate::spec::ConfigError>;

/// Everything the simulator knows about a victim policy: its name (the `gc` key's value),
/// its one-line description, the `[ftl]` keys it reads and how to build the FTLs that
/// take a policy over it.
pub struct GcPolicySpec {
    /// Registered name, the value of `[ftl] gc` / `--gc`.
    pub name: &'static str,
    /// One line for `ssdlab list` and `--help`.
    pub description: &'static str,
    /// `[ftl]` keys the policy reads besides `gc` (e.g. `gc_d`): setting one of them away
    /// from its default with another policy is refused.
    pub params: &'static [&'static str],
    /// The page FTL over this policy.
    pub page_ftl: FtlBuild,
    /// DFTL (data GC) over this policy.
    pub dftl: FtlBuild,
}

impl GcPolicySpec {
    /// The spec of policy `P`, its FTL builders instantiated for `P`.
    pub const fn new<P: VictimPolicy>(
        name: &'static str,
        description: &'static str,
        params: &'static [&'static str],
    ) -> Self {
        GcPolicySpec {
            name,
            description,
            params,
            page_ftl: super::page::build_over::<P>,
            dftl: super::dftl::build_over::<P>,
        }
    }
}

/// The policies: [`GC_POLICIES`], then those registered at run time (test code adds a
/// dummy one); and the leaked `(kind, name, description)` table of all of them, rebuilt
/// on each registration so [`GcPolicyKind::all`] can hand out a `'static` slice.
static REGISTRY: Registry<GcPolicySpec> = Registry::new(GC_POLICIES);
type Described<K> = &'static [(K, &'static str, &'static str)];
static ALL: RwLock<Option<Described<GcPolicyKind>>> = RwLock::new(None);

impl Named for GcPolicySpec {
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        self.description
    }
}

/// Adds `spec` after the built-in policies, for the rest of the process. Refused (`Err`
/// with the name) when a policy of that name is already registered.
pub fn register_gc_policy(spec: &'static GcPolicySpec) -> Result<(), &'static str> {
    REGISTRY.register(spec).map_err(|t| t.0)?;
    *ALL.write().unwrap_or_else(|e| e.into_inner()) = None;
    Ok(())
}

/// Every policy: the built-in ones, then the registered ones.
pub fn gc_policies() -> Vec<&'static GcPolicySpec> {
    REGISTRY.all()
}

/// A victim policy, by its spec: the `gc` key / `--gc` flag. Compared, printed and
/// (de)serialized by name, so the config echo reads as it did when this was an enum.
#[derive(Clone, Copy)]
pub struct GcPolicyKind(&'static GcPolicySpec);

// Named like the enum variants they replace, so every call site reads as before.
#[allow(non_upper_case_globals)]
impl GcPolicyKind {
    /// Fewest valid pages (eNVy; the default of DFTL, SSDSim, WiscSim).
    pub const Greedy: GcPolicyKind = GcPolicyKind(&greedy::SPEC);
    /// Kawaguchi et al.'s cost-benefit, max age·(1−u)/(2u).
    pub const CostBenefit: GcPolicyKind = GcPolicyKind(&cost_benefit::SPEC);
    /// Oldest closed block first (round-robin cleaning).
    pub const Fifo: GcPolicyKind = GcPolicyKind(&fifo::SPEC);
    /// Van Houdt's d-choices: fewest valid among d random candidates.
    pub const DChoices: GcPolicyKind = GcPolicyKind(&d_choices::SPEC);
}

impl GcPolicyKind {
    /// The policy of `spec`.
    pub fn of(spec: &'static GcPolicySpec) -> Self {
        GcPolicyKind(spec)
    }

    /// Its spec.
    pub fn spec(self) -> &'static GcPolicySpec {
        self.0
    }

    /// Its registered name.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The registered policy called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        REGISTRY.get(name).map(GcPolicyKind)
    }

    /// Every policy with a one-line description, for `ssdlab list`.
    pub fn all() -> &'static [(GcPolicyKind, &'static str, &'static str)] {
        if let Some(all) = *ALL.read().expect("registry lock") {
            return all;
        }
        let table: Vec<_> = gc_policies()
            .into_iter()
            .map(|s| (GcPolicyKind(s), s.name, s.description))
            .collect();
        // Leaked once per registration (a handful per process).
        let all: Described<GcPolicyKind> = Box::leak(table.into_boxed_slice());
        *ALL.write().expect("registry lock") = Some(all);
        all
    }
}

impl Default for GcPolicyKind {
    fn default() -> Self {
        GcPolicyKind::Greedy
    }
}

impl PartialEq for GcPolicyKind {
    fn eq(&self, other: &Self) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for GcPolicyKind {}

impl std::fmt::Debug for GcPolicyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

impl Serialize for GcPolicyKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name)
    }
}

impl<'de> Deserialize<'de> for GcPolicyKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        GcPolicyKind::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(REGISTRY.unknown(&name)))
    }
}

/// Parameters a policy may use.
#[derive(Clone, Copy, Debug)]
pub struct PolicyParams {
    /// Samples per selection for d-choices.
    pub d: u32,
    /// Seed for randomized policies.
    pub seed: u64,
}

/// A GC victim-selection policy. `now` is a logical clock: pages programmed so far, by
/// the host and by the FTL itself.
pub trait VictimPolicy: Send + Clone + 'static {
    /// A policy for `geo`.
    fn build(geo: &Geometry, params: PolicyParams) -> Self
    where
        Self: Sized;
    /// `block` was fully programmed and becomes a candidate with `valid` valid pages.
    fn on_close(&mut self, block: BlockId, valid: u32, now: u64);
    /// A page of `block` was invalidated; it now holds `valid_after` valid pages.
    /// Called for every block, candidate or not.
    fn on_invalidate(&mut self, block: BlockId, valid_after: u32, now: u64);
    /// Removes `block` from the candidates (e.g. taken by wear leveling).
    fn remove(&mut self, block: BlockId);
    /// Picks, removes and returns a victim in `plane`, or `None` if it has no candidate.
    fn select(&mut self, plane: u32, nand: &Nand, now: u64) -> Option<BlockId>;
    /// Whether `block` is a candidate (for invariant checks).
    fn contains(&self, block: BlockId) -> bool;
    /// Hints that `block` will soon see [`VictimPolicy::on_invalidate`] (no effect on
    /// the policy's state).
    fn prefetch(&self, _block: BlockId) {}
    /// The block `select(plane, …)` would most likely return next, if the policy can
    /// tell cheaply and without changing its state; only used to prefetch that block's
    /// flash state while the current victim is moved, so a wrong guess costs nothing.
    fn peek(&self, _plane: u32) -> Option<BlockId> {
        None
    }
}

/// Candidates of each plane in a vector with O(1) insert and remove (swap-remove with a
/// position index); shared by the policies that scan or sample.
#[derive(Clone, Debug)]
pub(crate) struct CandidateList {
    blocks_per_plane: u32,
    per_plane: Vec<Vec<u32>>,
    /// Position of each block in its plane's vector, `u32::MAX` when absent.
    pos: Vec<u32>,
}

impl CandidateList {
    pub(crate) fn new(geo: &Geometry) -> Self {
        CandidateList {
            blocks_per_plane: geo.blocks_per_plane,
            per_plane: vec![Vec::new(); geo.planes() as usize],
            pos: vec![u32::MAX; geo.blocks() as usize],
        }
    }
    pub(crate) fn insert(&mut self, b: BlockId) {
        let plane = (b.0 / self.blocks_per_plane) as usize;
        debug_assert_eq!(self.pos[b.0 as usize], u32::MAX);
        self.pos[b.0 as usize] = self.per_plane[plane].len() as u32;
        self.per_plane[plane].push(b.0);
    }
    pub(crate) fn remove(&mut self, b: BlockId) {
        let p = self.pos[b.0 as usize];
        if p == u32::MAX {
            return;
        }
        let plane = (b.0 / self.blocks_per_plane) as usize;
        let v = &mut self.per_plane[plane];
        let last = *v.last().expect("non-empty");
        v.swap_remove(p as usize);
        if last != b.0 {
            self.pos[last as usize] = p;
        }
        self.pos[b.0 as usize] = u32::MAX;
    }
    pub(crate) fn contains(&self, b: BlockId) -> bool {
        self.pos[b.0 as usize] != u32::MAX
    }
    pub(crate) fn plane(&self, plane: u32) -> &[u32] {
        &self.per_plane[plane as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nand::{Cause, Lpn, Ppn};

    fn geo() -> Geometry {
        Geometry {
            channels: 1,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 6,
            pages_per_block: 4,
            page_size_bytes: 4096,
            oob_size_bytes: 128,
        }
    }

    /// Fills blocks 0..5 and invalidates pages so that block b keeps `valid[b]` pages;
    /// blocks are closed in order 0..5 at times 0..5 and invalidated at time 10 + b.
    fn scenario<P: VictimPolicy>(valid: [u32; 5]) -> (P, Nand) {
        let g = geo();
        let mut nand = Nand::new(g, 100, false, true);
        let mut p = P::build(&g, PolicyParams { d: 2, seed: 1 });
        for b in 0..5u32 {
            for i in 0..4 {
                nand.program(Ppn(b * 4 + i), Lpn(b * 4 + i), Cause::Host);
            }
            p.on_close(BlockId(b), 4, b as u64);
        }
        for b in 0..5u32 {
            for i in valid[b as usize]..4 {
                nand.invalidate(Ppn(b * 4 + i));
                p.on_invalidate(BlockId(b), nand.valid_count(BlockId(b)), 10 + b as u64);
            }
        }
        (p, nand)
    }

    #[test]
    fn greedy_picks_fewest_valid_each_time() {
        let (mut p, nand) = scenario::<Greedy>([3, 1, 4, 2, 0]);
        let order: Vec<u32> = (0..5).map(|_| p.select(0, &nand, 20).unwrap().0).collect();
        assert_eq!(order, vec![4, 1, 3, 0, 2]);
        assert_eq!(p.select(0, &nand, 20), None);
    }

    #[test]
    fn greedy_stays_right_through_stack_compaction() {
        // Every cycle leaves stale entries in the higher buckets; thousands of cycles force
        // several compactions. The choice must stay the emptiest block each time.
        let g = geo();
        let nand = Nand::new(g, 100, false, true);
        let mut p = Greedy::build(&g, PolicyParams { d: 1, seed: 0 });
        let mut peeks = 0;
        for cycle in 0..5000u32 {
            for b in 0..6u32 {
                p.on_close(BlockId(b), 4, 0);
                let target = (b + cycle) % 5;
                for v in (target..4).rev() {
                    p.on_invalidate(BlockId(b), v, 0);
                }
            }
            let mut want: Vec<(u32, u32)> = (0..6u32).map(|b| ((b + cycle) % 5, b)).collect();
            want.sort();
            for (v, _) in want {
                // A peek, when it answers, names the block select then returns.
                let peeked = p.peek(0);
                let got = p.select(0, &nand, 0).unwrap();
                assert_eq!((got.0 + cycle) % 5, v, "cycle {cycle}");
                if let Some(b) = peeked {
                    assert_eq!(b, got, "cycle {cycle}");
                    peeks += 1;
                }
            }
            assert_eq!(p.peek(0), None);
            assert_eq!(p.select(0, &nand, 0), None);
        }
        assert!(p.entries() <= 4 * 6 + 1024 + 1);
        // Stale entries rarely exhaust the peek's budget here.
        assert!(peeks > 5000 * 6 * 9 / 10, "{peeks}");
    }

    #[test]
    fn fifo_picks_in_close_order_regardless_of_validity() {
        let (mut p, nand) = scenario::<Fifo>([3, 1, 4, 2, 0]);
        let order: Vec<u32> = (0..5).map(|_| p.select(0, &nand, 20).unwrap().0).collect();
        assert_eq!(order, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn cost_benefit_weighs_age_against_utilisation() {
        // Valid [3,1,4,2,0]: block 4 is empty → free win first. Then scores at now=20 with
        // age = 20 - last modification (10+b): u = v/4, score = age·(1−u)/(2u):
        // b0: 10·0.25/1.5 = 1.67, b1: 9·0.75/0.5 = 13.5, b3: 7·0.5/1 = 3.5; b2 is fully
        // valid (u = 1) and never chosen.
        let (mut p, nand) = scenario::<CostBenefit>([3, 1, 4, 2, 0]);
        let order: Vec<u32> = (0..4).map(|_| p.select(0, &nand, 20).unwrap().0).collect();
        assert_eq!(order, vec![4, 1, 3, 0]);
        assert_eq!(p.select(0, &nand, 20), None);
        assert!(p.contains(BlockId(2)));
        // At age 0 every block scores 0: the emptiest wins, then the lowest number.
        let (mut p, nand) = scenario::<CostBenefit>([3, 2, 4, 2, 3]);
        for b in 0..5 {
            p.on_invalidate(BlockId(b), nand.valid_count(BlockId(b)), 50);
        }
        let order: Vec<u32> = (0..4).map(|_| p.select(0, &nand, 50).unwrap().0).collect();
        assert_eq!(order, vec![1, 3, 0, 4]);
        // A recently modified block loses to an old one with more valid pages:
        // at now=100, b4 (v=1) touched at 95: 5·0.75/0.5 = 7.5; b0 (v=2) last touched at
        // 10: 90·0.5/1 = 45.
        let (mut p, nand) = scenario::<CostBenefit>([2, 2, 2, 2, 1]);
        assert_eq!(p.select(0, &nand, 20).unwrap().0, 4); // 6·1.5 = 9 beats 10·0.5 = 5
        let (mut p, nand) = scenario::<CostBenefit>([2, 2, 2, 2, 1]);
        p.on_invalidate(BlockId(4), 1, 95);
        assert_eq!(p.select(0, &nand, 100).unwrap().0, 0);
    }

    #[test]
    fn d_choices_returns_each_candidate_once_and_prefers_emptier() {
        let (mut p, nand) = scenario::<DChoices>([3, 1, 4, 2, 0]);
        let mut got: Vec<u32> = (0..5).map(|_| p.select(0, &nand, 20).unwrap().0).collect();
        assert_eq!(p.select(0, &nand, 20), None);
        got.sort();
        assert_eq!(got, vec![0, 1, 2, 3, 4]);
        // With d ≥ candidates it is greedy in expectation; with many draws the fullest
        // block (2) is never picked first.
        let mut firsts = [0u32; 5];
        for seed in 0..200 {
            let g = geo();
            let mut p = DChoices::build(&g, PolicyParams { d: 8, seed });
            let (_, nand) = scenario::<Greedy>([3, 1, 4, 2, 0]);
            for b in 0..5 {
                p.on_close(BlockId(b), nand.valid_count(BlockId(b)), 0);
            }
            firsts[p.select(0, &nand, 20).unwrap().0 as usize] += 1;
        }
        assert!(firsts[4] > 150, "{firsts:?}");
        assert_eq!(firsts[2], 0);
    }

    #[test]
    fn registry_lists_every_policy_by_its_name() {
        let names: Vec<&str> = GcPolicyKind::all().iter().map(|e| e.1).collect();
        assert_eq!(names, ["greedy", "cost-benefit", "fifo", "d-choices"]);
        for &(k, name, desc) in GcPolicyKind::all() {
            assert_eq!(k.name(), name);
            assert_eq!(k.spec().description, desc);
            assert_eq!(GcPolicyKind::from_name(name), Some(k));
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(json, format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<GcPolicyKind>(&json).unwrap(), k);
        }
        assert_eq!(GcPolicyKind::default(), GcPolicyKind::Greedy);
        assert_eq!(GcPolicyKind::DChoices.spec().params, ["gc_d"]);
        let e = serde_json::from_str::<GcPolicyKind>("\"greed\"")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "unknown variant `greed`, expected one of `greedy`, `cost-benefit`, `fifo`, `d-choices`"
            ),
            "{e}"
        );
        assert_eq!(register_gc_policy(&greedy::SPEC), Err("greedy"));
    }

    #[test]
    fn removal_takes_block_out_of_every_policy() {
        fn check<P: VictimPolicy>() {
            let (mut p, nand) = scenario::<P>([3, 1, 3, 2, 0]);
            p.remove(BlockId(4));
            p.remove(BlockId(1));
            assert!(!p.contains(BlockId(4)));
            let mut got: Vec<u32> = (0..3).map(|_| p.select(0, &nand, 20).unwrap().0).collect();
            got.sort();
            assert_eq!(got, vec![0, 2, 3]);
            assert_eq!(p.select(0, &nand, 20), None);
        }
        check::<Greedy>();
        check::<Fifo>();
        check::<CostBenefit>();
        check::<DChoices>();
    }
}
