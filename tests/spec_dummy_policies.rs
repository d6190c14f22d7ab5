//! One spec per policy (issue 32): a GC victim policy and a write-buffer policy written
//! here, in test code, each added with one registration line, must be listed (by the
//! function `ssdlab list` prints), parsed from a config file, validated, estimated and
//! run through the reference-model tests exactly like the built-in ones. Removing either
//! registration makes every test here fail.
//!
//! The reference models are tests/ftl_model (every FTL over a GC policy against a
//! page-version model, run by tests/ftl_reference.rs) and tests/buffer_reference.rs (every buffer in
//! front of every FTL, through the device queue), included below; their own tests iterate
//! the registries and run here too.

#[path = "buffer_reference.rs"]
mod buffer_reference;
// The FTL reference model (tests/ftl_model, which tests/ftl_reference.rs runs), under
// the name the tests below use; it names `crate::common`.
mod common;
mod ftl_model;
use ftl_model as ftl_reference;

use proptest::prelude::*;
use ssdlab::buffer::{
    BufferConfig, BufferKind, BufferPolicySpec, BufferShape, Evicted, Evictions, Level,
    WriteBuffer, register_buffer_policy,
};
use ssdlab::config::Config;
use ssdlab::ftl::FtlKind;
use ssdlab::ftl::gc::{GcPolicyKind, GcPolicySpec, PolicyParams, VictimPolicy, register_gc_policy};
use ssdlab::host::DispatchOrder;
use ssdlab::nand::{BlockId, Geometry, Lpn, Nand};
use ssdlab::spec::{ConfigError, Counter, Counters};
use ssdlab::workload::{IoRequest, OpKind};
use std::collections::VecDeque;
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

// ---- the dummy GC policy: a random closed block that frees at least one page ----------

/// Random victim selection, preferring a block that frees something: a uniformly random
/// candidate, or the next one (in the plane's candidate order) that is not fully valid.
#[derive(Clone)]
struct RandomVictim {
    blocks_per_plane: u32,
    pages_per_block: u32,
    per_plane: Vec<Vec<u32>>,
    /// Position of each block in its plane's vector, `u32::MAX` when not a candidate.
    pos: Vec<u32>,
    rng: u64,
}

impl RandomVictim {
    fn next(&mut self) -> u64 {
        // xorshift64
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }
}

impl VictimPolicy for RandomVictim {
    fn build(geo: &Geometry, params: PolicyParams) -> Self {
        RandomVictim {
            blocks_per_plane: geo.blocks_per_plane,
            pages_per_block: geo.pages_per_block,
            per_plane: vec![Vec::new(); geo.planes() as usize],
            pos: vec![u32::MAX; geo.blocks() as usize],
            rng: params.seed | 1,
        }
    }

    fn on_close(&mut self, block: BlockId, _valid: u32, _now: u64) {
        let v = &mut self.per_plane[(block.0 / self.blocks_per_plane) as usize];
        self.pos[block.0 as usize] = v.len() as u32;
        v.push(block.0);
    }

    fn on_invalidate(&mut self, _block: BlockId, _valid_after: u32, _now: u64) {}

    fn remove(&mut self, block: BlockId) {
        let p = self.pos[block.0 as usize];
        if p == u32::MAX {
            return;
        }
        let v = &mut self.per_plane[(block.0 / self.blocks_per_plane) as usize];
        v.swap_remove(p as usize);
        if let Some(&moved) = v.get(p as usize) {
            self.pos[moved as usize] = p;
        }
        self.pos[block.0 as usize] = u32::MAX;
    }

    fn select(&mut self, plane: u32, nand: &Nand, _now: u64) -> Option<BlockId> {
        let len = self.per_plane[plane as usize].len();
        if len == 0 {
            return None;
        }
        let start = (self.next() % len as u64) as usize;
        let v = &self.per_plane[plane as usize];
        let pick = (0..len)
            .map(|i| v[(start + i) % len])
            .find(|&b| nand.valid_count(BlockId(b)) < self.pages_per_block)
            .unwrap_or(v[start]);
        self.remove(BlockId(pick));
        Some(BlockId(pick))
    }

    fn contains(&self, block: BlockId) -> bool {
        self.pos[block.0 as usize] != u32::MAX
    }
}

static DUMMY_GC: GcPolicySpec = GcPolicySpec::new::<RandomVictim>(
    "dummy-gc",
    "test only: a random closed block that frees at least one page",
    &[],
);

// ---- the dummy buffer policy: FIFO over pages ------------------------------------------

/// Reported as `buffer.dummy_buf.evictions`.
const EVICTIONS: Counter = Counter::total(
    "buffer.dummy_buf.evictions",
    "pages",
    "pages the test-only FIFO buffer evicted",
);

/// Pages leave in the order they entered; hits change nothing.
#[derive(Clone)]
struct FifoBuffer {
    cap: u32,
    queue: VecDeque<u32>,
    evictions: u64,
}

impl WriteBuffer for FifoBuffer {
    fn name(&self) -> &'static str {
        "dummy-buf"
    }
    fn capacity_pages(&self) -> u32 {
        self.cap
    }
    fn len_pages(&self) -> u32 {
        self.queue.len() as u32
    }
    fn contains(&self, lpn: Lpn) -> bool {
        self.queue.contains(&lpn.0)
    }
    fn write(&mut self, lpn: Lpn, out: &mut Evictions) -> bool {
        if self.contains(lpn) {
            return true;
        }
        if self.len_pages() == self.cap {
            self.evict(out);
        }
        self.queue.push_back(lpn.0);
        false
    }
    fn read(&mut self, lpn: Lpn) -> bool {
        self.contains(lpn)
    }
    fn remove(&mut self, lpn: Lpn) -> bool {
        match self.queue.iter().position(|&l| l == lpn.0) {
            Some(i) => {
                self.queue.remove(i);
                true
            }
            None => false,
        }
    }
    fn evict(&mut self, out: &mut Evictions) -> bool {
        let Some(lpn) = self.queue.pop_front() else {
            return false;
        };
        self.evictions += 1;
        out.push(Evicted { lpn, pad: false });
        true
    }
    fn counters(&self, out: &mut Counters) {
        out.set(&EVICTIONS, self.evictions);
    }
    fn check_invariants(&self) {
        assert!(self.len_pages() <= self.cap);
    }
}

/// Calls of the dummy's own validation (it has no keys of its own: the count shows the
/// registry runs it).
static VALIDATED: AtomicUsize = AtomicUsize::new(0);

/// 4 B per queued page and up to 12 more for the deque's slack: a figure that grows with
/// the buffer, so the test can see the estimate follow the size.
fn fifo_bytes(shape: &BufferShape) -> u64 {
    shape.capacity_pages as u64 * 16
}

static DUMMY_BUF: BufferPolicySpec = BufferPolicySpec {
    name: "dummy-buf",
    description: "test only: FIFO over pages",
    level: Level::Page,
    counters: &[EVICTIONS],
    memory_bytes: fifo_bytes,
    validate: |_: &BufferConfig| -> Result<(), ConfigError> {
        VALIDATED.fetch_add(1, Ordering::Relaxed);
        Ok(())
    },
    build: |_, shape| {
        Box::new(FifoBuffer {
            cap: shape.capacity_pages,
            queue: VecDeque::new(),
            evictions: 0,
        })
    },
};

// ---- registration: one line each ------------------------------------------------------

fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        register_gc_policy(&DUMMY_GC).unwrap();
        register_buffer_policy(&DUMMY_BUF).unwrap();
    });
}

fn dummy_gc() -> GcPolicyKind {
    register();
    GcPolicyKind::from_name("dummy-gc").expect("dummy-gc is registered")
}

fn dummy_buf() -> BufferKind {
    register();
    BufferKind::from_name("dummy-buf").expect("dummy-buf is registered")
}

// ---- the checks ----------------------------------------------------------------------

#[test]
fn the_dummies_are_listed_where_ssdlab_list_looks() {
    register();
    let gc = ssdlab::names::gc_policies();
    assert!(
        gc.iter()
            .any(|(n, d)| *n == "dummy-gc" && d.contains("random")),
        "{gc:?}"
    );
    // After the built-in ones, which keep their order.
    assert_eq!(gc[0].0, "greedy");
    assert_eq!(gc.last().unwrap().0, "dummy-gc");
    let buffers = ssdlab::names::buffers();
    assert_eq!(buffers[0].0, "none");
    assert!(
        buffers.iter().any(|(n, _)| *n == "dummy-buf"),
        "{buffers:?}"
    );
    assert!(BufferKind::policies().any(|k| k == dummy_buf()));
    // Its counters join the registry's counter table (docs/outputs.md is made from it).
    assert!(
        ssdlab::names::counters()
            .iter()
            .any(|c| c.key == "buffer.dummy_buf.evictions")
    );
    // A name is registered once.
    assert_eq!(register_gc_policy(&DUMMY_GC), Err("dummy-gc"));
    assert_eq!(register_buffer_policy(&DUMMY_BUF), Err("dummy-buf"));
}

fn toml(gc: &str, buffer: &str, size: &str) -> String {
    format!(
        "[device]\ncapacity = \"64MiB\"\npage_size = \"4KiB\"\n\
         [ftl]\nname = \"page\"\ngc = \"{gc}\"\n\
         [buffer]\nname = \"{buffer}\"\nsize = \"{size}\"\n"
    )
}

fn buffer_part(c: &Config) -> u64 {
    let d = c.validate().unwrap();
    d.memory
        .parts
        .iter()
        .find(|p| p.0 == "buffer")
        .map(|p| p.1)
        .unwrap()
}

#[test]
fn the_dummies_parse_validate_estimate_and_run() {
    register();
    let text = toml("dummy-gc", "dummy-buf", "1MiB");
    let c = Config::load(None, Some(("dummy.toml", &text))).unwrap();
    assert_eq!(c.ftl.gc, dummy_gc());
    assert_eq!(c.buffer.name, dummy_buf());
    // The config echo names them as the file does.
    let echo = serde_json::to_value(&c).unwrap();
    assert_eq!(echo["ftl"]["gc"], "dummy-gc");
    assert_eq!(echo["buffer"]["name"], "dummy-buf");

    // Validated: the registry runs the policy's own check, and the shared checks name it.
    let before = VALIDATED.load(Ordering::Relaxed);
    let design = c.validate().unwrap();
    assert!(VALIDATED.load(Ordering::Relaxed) > before);
    let small = toml("dummy-gc", "dummy-buf", "2KiB");
    let e = Config::load(None, Some(("dummy.toml", &small)))
        .unwrap()
        .validate()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("buffer.size") && e.contains("'dummy-buf'"),
        "{e}"
    );
    // dummy-gc reads no `gc_d`: setting it is refused, naming the policy that reads it.
    let mut d = c.clone();
    d.ftl.gc_d = 7;
    let e = d.validate().unwrap_err().to_string();
    assert!(
        e.contains("ftl.gc_d") && e.contains("d-choices") && e.contains("dummy-gc"),
        "{e}"
    );
    // A mistyped name lists every choice, the dummy's too.
    let typo = toml("dummy-gc", "dummy-bu", "1MiB");
    let e = Config::load(None, Some(("dummy.toml", &typo)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("`dummy-buf`") && e.contains("`qlru`"), "{e}");

    // Estimated from its spec: 1 MiB of 4 KiB pages = 256 pages; twice the size, twice
    // the bytes.
    let part = buffer_part(&c);
    assert_eq!(part, 256 * 16);
    let mut big = c.clone();
    big.buffer.size = Some(ssdlab::units::Size(2 << 20));
    assert_eq!(buffer_part(&big), 2 * part);

    // Runs: the device is built over both dummies and takes every page twice over, so
    // the buffer evicts and GC collects.
    let mut dev = ssdlab::sim::Device::build(&design).unwrap();
    let logical = design.device.logical_pages;
    for i in 0..2 * logical {
        let lpn = i.wrapping_mul(2_654_435_761) % logical;
        let req = IoRequest::new(OpKind::Write, lpn * 4096, 4096);
        dev.submit(&req, 0).unwrap();
    }
    let policy = dev.buffer_policy().unwrap();
    assert_eq!(policy.name(), "dummy-buf");
    let mut counters = Counters::default();
    policy.counters(&mut counters);
    assert!(counters.value(&EVICTIONS) > 0);
    dev.ftl.check_invariants(&dev.nand);
    dev.nand.check_invariants();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    /// The FTL reference model over the dummy GC policy: every configuration the
    /// reference test makes for it (page FTL and DFTL, each variant), on its geometries.
    #[test]
    fn the_dummy_gc_policy_passes_the_ftl_reference_model(seq in ftl_reference::ops(64)) {
        let dummy = dummy_gc();
        let configs: Vec<_> = ftl_reference::configs()
            .into_iter()
            .filter(|c| c.gc == dummy)
            .collect();
        prop_assert!(configs.iter().any(|c| c.name == FtlKind::Page));
        prop_assert!(configs.iter().any(|c| c.name == FtlKind::Dftl));
        for cfg in configs {
            for geo in ftl_reference::geometries_for(&cfg) {
                ftl_reference::run(&cfg, &geo, 64, &seq)?;
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    /// The buffer reference model over the dummy buffer, in front of every FTL, with both
    /// dispatch orders; and over the dummy GC policy behind every buffer.
    #[test]
    fn the_dummies_pass_the_buffer_reference_model(
        seq in buffer_reference::steps(),
        pages in 1u64..24,
    ) {
        let buffer = dummy_buf();
        // A zoned drive takes no write buffer (tests/zoned.rs).
        for &(ftl, _, _) in FtlKind::all().iter().filter(|(k, _, _)| !k.is_zoned()) {
            for dispatch in [DispatchOrder::Fifo, DispatchOrder::HitsFirst] {
                buffer_reference::run(&buffer_reference::config(ftl, buffer, dispatch, pages), &seq)?;
            }
        }
        let gc = dummy_gc();
        for &(ftl, _, _) in FtlKind::all().iter().filter(|(k, _, _)| k.uses_gc_policy()) {
            for buffer in BufferKind::policies() {
                let mut c = buffer_reference::config(ftl, buffer, DispatchOrder::Fifo, pages);
                c.ftl.gc = gc;
                buffer_reference::run(&c, &seq)?;
            }
        }
    }
}

/// docs/config.md, the config reference, lists every built-in policy on the `gc` and the
/// `[buffer] name` lines, in registry order (the test-only dummies are not built in), and
/// names every block-level buffer policy on the `block_pages` line.
#[test]
fn the_config_reference_lists_every_built_in_policy() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/config.md");
    let text = std::fs::read_to_string(path).unwrap();
    let line = |start: &str| {
        text.lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("docs/config.md has no line starting {start:?}"))
            .to_string()
    };
    let gc: Vec<&str> = ssdlab::ftl::gc::GC_POLICIES
        .iter()
        .map(|s| s.name)
        .collect();
    let l = line("gc = ");
    assert!(l.contains(&gc.join(" | ")), "{l:?} should list {gc:?}");
    let buffers: Vec<&str> = ssdlab::buffer::BUFFER_POLICIES
        .iter()
        .map(|s| s.name)
        .collect();
    let l = line("name = \"none\"             # none ");
    assert!(
        l.contains(&format!("# none {} (", buffers.join(" "))),
        "{l:?} should list {buffers:?}"
    );
    let l = line("# block_pages").to_lowercase();
    let words: Vec<&str> = l.split(|c: char| !c.is_alphanumeric()).collect();
    for s in ssdlab::buffer::BUFFER_POLICIES {
        assert_eq!(
            words.contains(&s.name),
            s.level == Level::Block,
            "{l:?}: {} is {:?}-level",
            s.name,
            s.level
        );
    }
}
