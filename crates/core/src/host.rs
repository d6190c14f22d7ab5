//! The host side of the request pipeline: the host queue that admits requests, and the
//! device's command queue (SATA NCQ / NVMe submission queue) where they wait between
//! their issue and their dispatch, in the order the configured [`DispatchOrder`] picks.
//!
//! **One latency definition everywhere**: a request's latency runs from its *arrival*
//! (the trace's time stamp, scaled by the speed-up, for open-loop phases; the moment the
//! host wants to send it for closed-loop phases) to its *completion*, so it includes the
//! time spent waiting for a free queue tag and in the device queue.
//!
//! [`HostQueue`] admits requests (open loop, closed loop, or closed loop with think
//! time) into any [`Target`] — the simulated device, or the hybrid HDD + flash store —
//! holding at most `qd` tags (a tag is held from issue to completion), and
//! [`HostQueue::run`] drives the target until the stream ends. Without a write buffer
//! the device takes every command at its issue time and the flash dies act as the
//! queue; with one, the buffer's front end admits one command at a time, and the
//! commands still waiting are the future references that QLRU exploits.

use crate::arbitration::Arbiter;
use crate::ftl::{FtlError, PREFETCH_AHEAD};
use crate::spec::{ConfigError, Counter};
use crate::workload::{IoRequest, OpKind, RequestStream, StreamSplit, TraceError};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};
use std::thread::{JoinHandle, Thread};

/// Why a run could not complete. It lives with the host queue, the lowest stage whose
/// [`Target`] returns it; `sim` re-exports it.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// Bad configuration (exit code 2).
    #[error("{0}")]
    Config(String),
    /// Configuration refused by `config::Config::validate` (exit code 2; boxed:
    /// it is large and rare).
    #[error(transparent)]
    Design(Box<ConfigError>),
    /// Bad trace (exit code 2).
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// The FTL ran out of space.
    #[error(transparent)]
    Ftl(#[from] FtlError),
    /// A file operation failed (bad path in a file trace, no space left): an
    /// `fs::FsError`, boxed so this module need not name the file systems above it (its
    /// `From` impl lives in `fs`).
    #[error("{0}")]
    Fs(Box<dyn std::error::Error + Send + Sync>),
    /// The run was cancelled through its `sim::Cancel` flag (Ctrl-C from Python, a sweep
    /// stopped): there is no report.
    #[error("the run was cancelled before it finished")]
    Cancelled,
}

impl From<ConfigError> for SimError {
    fn from(e: ConfigError) -> SimError {
        SimError::Design(Box::new(e))
    }
}

/// Which waiting command the device takes next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum DispatchOrder {
    /// Oldest first.
    #[default]
    Fifo,
    /// The oldest command served entirely from DRAM (a read or write whose pages are all
    /// buffered), if it overlaps no older waiting command that writes, trims or flushes
    /// (so data never changes order); otherwise the oldest. Finding it costs a buffer
    /// lookup per page of each waiting command examined.
    HitsFirst,
}

impl DispatchOrder {
    /// Names and descriptions, for `ssdlab list`.
    pub fn all() -> &'static [(DispatchOrder, &'static str, &'static str)] {
        &[
            (DispatchOrder::Fifo, "fifo", "oldest command first"),
            (
                DispatchOrder::HitsFirst,
                "hits-first",
                "commands served entirely from the write buffer first, keeping data order",
            ),
        ]
    }
}

/// A command waiting in the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueuedCommand {
    /// The request.
    pub req: IoRequest,
    /// When it arrived at the host (latency is measured from here).
    pub arrival_ns: u64,
    /// When it entered the device queue (the earliest it can be dispatched).
    pub issue_ns: u64,
    /// First logical page it touches.
    pub first_lpn: u32,
    /// Pages it touches (0 for FLUSH).
    pub pages: u32,
}

impl QueuedCommand {
    fn overlaps(&self, o: &QueuedCommand) -> bool {
        self.first_lpn < o.first_lpn + o.pages && o.first_lpn < self.first_lpn + self.pages
    }

    /// Whether it changes data (writes, trims) or orders everything (flush).
    fn mutates(&self) -> bool {
        self.req.op != OpKind::Read
    }
}

/// Requests the measured run completed (counted by the run loop).
pub const REQUESTS: Counter = Counter::total(
    "host.requests",
    "requests",
    "host requests completed in the measured run",
);
/// NCQ dispatches out of arrival order (with a write buffer).
pub const REORDERED_COMMANDS: Counter = Counter::total(
    "host.reordered_commands",
    "commands",
    "commands the device queue dispatched ahead of an older one (with a write buffer)",
);
/// The counters the host side reports.
pub const COUNTERS: &[Counter] = &[REQUESTS, REORDERED_COMMANDS];

/// Commands waiting for dispatch, oldest first.
#[derive(Clone, Debug, Default)]
pub struct Ncq {
    waiting: VecDeque<QueuedCommand>,
    order: DispatchOrder,
    reordered: u64,
}

impl Ncq {
    /// An empty queue for up to `depth` commands.
    pub fn new(depth: usize, order: DispatchOrder) -> Ncq {
        Ncq {
            waiting: VecDeque::with_capacity(depth),
            order,
            reordered: 0,
        }
    }

    /// Commands waiting.
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    /// Whether none waits.
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// The oldest waiting command.
    pub fn front(&self) -> Option<&QueuedCommand> {
        self.waiting.front()
    }

    /// The waiting command `i` places behind the oldest (in arrival order).
    pub fn get(&self, i: usize) -> Option<&QueuedCommand> {
        self.waiting.get(i)
    }

    /// The newest waiting command.
    pub fn back(&self) -> Option<&QueuedCommand> {
        self.waiting.back()
    }

    /// Commands dispatched ahead of an older one.
    pub fn reordered(&self) -> u64 {
        self.reordered
    }

    /// Appends an arriving command.
    pub fn push(&mut self, c: QueuedCommand) {
        self.waiting.push_back(c);
    }

    /// Takes the next command to dispatch; `buffered(lpn)` says whether a page is in the
    /// write buffer (used by [`DispatchOrder::HitsFirst`]).
    #[inline(always)]
    pub fn pop(&mut self, buffered: impl Fn(u32) -> bool) -> Option<QueuedCommand> {
        if self.order == DispatchOrder::HitsFirst {
            return self.pop_hit_first(buffered);
        }
        self.waiting.pop_front()
    }

    /// [`Ncq::pop`] for [`DispatchOrder::HitsFirst`] (out of line: FIFO, the common order,
    /// is one `pop_front` that the host loop inlines).
    #[inline(never)]
    fn pop_hit_first(&mut self, buffered: impl Fn(u32) -> bool) -> Option<QueuedCommand> {
        for i in 0..self.waiting.len() {
            let c = &self.waiting[i];
            let from_dram = matches!(c.req.op, OpKind::Read | OpKind::Write)
                && (c.first_lpn..c.first_lpn + c.pages).all(&buffered);
            if !from_dram {
                continue;
            }
            let blocked = self.waiting.range(..i).any(|o| {
                o.req.op == OpKind::Flush || ((o.mutates() || c.mutates()) && o.overlaps(c))
            });
            if !blocked {
                self.reordered += (i > 0) as u64;
                return self.waiting.remove(i);
            }
        }
        self.waiting.pop_front()
    }
}

/// A dispatched command and its times.
#[derive(Clone, Copy, Debug)]
pub struct Dispatched {
    /// The command.
    pub cmd: QueuedCommand,
    /// When the device took it.
    pub dispatch_ns: u64,
    /// When it completed.
    pub done_ns: u64,
    /// A Zone Append's completion: the LBA (logical page) it wrote; `None` otherwise.
    pub append_lba: Option<u64>,
}

/// What a [`HostQueue`] feeds: something with a command queue that performs commands.
pub trait Target {
    /// Puts `req` in the queue (arrived at `arrival_ns`, issued at `issue_ns`).
    fn queue(&mut self, req: &IoRequest, arrival_ns: u64, issue_ns: u64) -> Result<(), SimError>;
    /// Performs the next waiting command (`None` when none waits).
    fn dispatch(&mut self) -> Result<Option<Dispatched>, SimError>;
    /// Commands waiting.
    fn queued(&self) -> usize;
    /// Issue time of the oldest waiting command.
    fn oldest_issue_ns(&self) -> Option<u64>;
    /// When the target can take the next command (0: at once).
    fn free_ns(&self) -> u64;
    /// Hints: `next` is the request after the one just queued, `far` the one
    /// [`PREFETCH_AHEAD`] positions later (map entries can be fetched early).
    fn prefetch(&self, _next: Option<&IoRequest>, _far: Option<&IoRequest>) {}
}

/// How a phase's requests arrive at the host.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arrivals {
    /// At the request's `arrival_ns` divided by `speedup` (a trace): open loop.
    Open {
        /// Arrival gaps are divided by this.
        speedup: f64,
    },
    /// As soon as a queue tag is free (like fio): closed loop.
    Closed,
    /// Closed loop with think time: each request arrives `arrival_ns` after the previous
    /// request completed (a user waiting for each step, as desktop workloads do).
    Think,
}

/// Requests per batch handed from the reading thread to the host (40 KiB: small enough
/// to stay off the allocator's mmap path, large enough that the hand-over is rare).
const BATCH: usize = 1024;

/// Batches the reading thread may have ready before it waits for the host.
const BATCHES_AHEAD: usize = 8;

/// A waiting reading thread is woken only once the host has this many ready batches or
/// fewer left. Waking a thread is a system call (in a VM, an interrupt to the other
/// CPU): once per batch it cost the host about 10 ns per request, as much as generating
/// the requests; once per `BATCHES_AHEAD - WAKE_AT` batches it is noise.
const WAKE_AT: usize = 2;

/// Slots left free at the front of each batch: the host moves the requests it has not
/// yet taken there and adopts the batch's vector, instead of copying the batch.
const HEAD: usize = PREFETCH_AHEAD;

/// Streams that say they hold at most this many requests are read at once, on the
/// host's thread (a thread would cost more than it saves).
const READ_AT_ONCE: usize = 4 * BATCH;

/// A batch of requests from the reading thread (after [`HEAD`] free slots); `last` ends
/// the stream, after `error` when it ended on one.
struct Batch {
    requests: Vec<IoRequest>,
    error: Option<TraceError>,
    last: bool,
}

/// What the two ends of the hand-over share besides the channels.
#[derive(Default)]
struct Gate {
    /// Batches sent and not yet taken by the host.
    ready: AtomicUsize,
    /// The reading thread waits (or is about to) for `ready` to fall to [`WAKE_AT`].
    waiting: AtomicBool,
    /// The host has stopped reading.
    closed: AtomicBool,
}

/// The host's end of the hand-over.
struct Feed {
    batches: Receiver<Batch>,
    /// Spent batch vectors go back for reuse.
    spent: SyncSender<Vec<IoRequest>>,
    gate: Arc<Gate>,
    reader: Thread,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Feed {
    fn drop(&mut self) {
        // A reading thread waiting for room must learn that none will come.
        self.gate.closed.store(true, SeqCst);
        self.reader.unpark();
    }
}

/// The request stream, read ahead: on a second thread in batches (parsing a trace or
/// generating requests then overlaps the simulation, which on a two-core machine makes
/// it almost free), with at least the next [`PREFETCH_AHEAD`] requests at hand so the
/// target can be told of them. Reading ahead has no other effect: requests come out in
/// order, and a stream's first error comes out in its place and ends it.
struct Lookahead {
    /// Requests read; the next is at `pos`.
    buf: Vec<IoRequest>,
    pos: usize,
    /// The error that ends the stream, once `buf` is used up.
    error: Option<TraceError>,
    /// `None` once the last batch has arrived.
    feed: Option<Feed>,
}

/// The reading thread: reads batches of `inner` and sends them until the stream ends or
/// the host stops reading, keeping at most [`BATCHES_AHEAD`] ready.
fn read_ahead(
    mut inner: RequestStream,
    tx: Sender<Batch>,
    recycled: Receiver<Vec<IoRequest>>,
    gate: &Gate,
) {
    // Fills the free slots at the front of a batch until the host moves requests there.
    const FILLER: IoRequest = IoRequest::new(OpKind::Flush, 0, 0);
    loop {
        let mut requests = recycled
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(HEAD + BATCH));
        requests.clear();
        requests.resize(HEAD, FILLER);
        let (error, last) = match read_batch(&mut *inner, &mut requests, HEAD + BATCH) {
            Ok(more) => (None, !more),
            Err(e) => (Some(e), true),
        };
        if gate.ready.load(SeqCst) >= BATCHES_AHEAD {
            // Wait until the host is nearly out. The host checks `waiting` after taking a
            // batch, this thread checks `ready` after setting it (both sequentially
            // consistent), so one of the two sees the other and no wake-up is lost.
            gate.waiting.store(true, SeqCst);
            while gate.ready.load(SeqCst) > WAKE_AT && !gate.closed.load(SeqCst) {
                std::thread::park();
            }
            gate.waiting.store(false, SeqCst);
        }
        gate.ready.fetch_add(1, SeqCst);
        // A send fails when the host has stopped reading: stop too.
        if gate.closed.load(SeqCst)
            || tx
                .send(Batch {
                    requests,
                    error,
                    last,
                })
                .is_err()
            || last
        {
            return;
        }
    }
}

impl Lookahead {
    fn new(mut inner: RequestStream) -> Self {
        let short = inner.size_hint().1.is_some_and(|n| n <= READ_AT_ONCE);
        let mut la = Lookahead {
            buf: Vec::new(),
            pos: 0,
            error: None,
            feed: None,
        };
        if short {
            la.error = read_batch(&mut *inner, &mut la.buf, usize::MAX).err();
            return la;
        }
        // `ready` bounds the batches in flight, so the channel itself need not.
        let (tx, batches) = channel::<Batch>();
        let (spent, recycled) = sync_channel::<Vec<IoRequest>>(BATCHES_AHEAD + 2);
        let gate = Arc::new(Gate::default());
        let shared = Arc::clone(&gate);
        let thread = std::thread::spawn(move || read_ahead(inner, tx, recycled, &shared));
        la.feed = Some(Feed {
            batches,
            spent,
            gate,
            reader: thread.thread().clone(),
            thread: Some(thread),
        });
        la.refill();
        la
    }

    /// Takes batches until more than [`PREFETCH_AHEAD`] requests are at hand or the
    /// stream has ended.
    #[cold]
    fn refill(&mut self) {
        while self.buf.len() - self.pos <= PREFETCH_AHEAD {
            let Some(feed) = &mut self.feed else {
                return;
            };
            let Ok(batch) = feed.batches.recv() else {
                // The thread ended without its last batch: it panicked. Its panic is
                // this thread's.
                if let Some(Err(p)) = feed.thread.take().map(JoinHandle::join) {
                    std::panic::resume_unwind(p);
                }
                unreachable!("the reading thread ended without a last batch or a panic");
            };
            if feed.gate.ready.fetch_sub(1, SeqCst) - 1 <= WAKE_AT && feed.gate.waiting.load(SeqCst)
            {
                feed.reader.unpark();
            }
            // The requests not yet taken move into the batch's free slots in front.
            let mut next = batch.requests;
            let rest = self.buf.len() - self.pos;
            let start = HEAD - rest;
            next[start..HEAD].copy_from_slice(&self.buf[self.pos..]);
            let spent = std::mem::replace(&mut self.buf, next);
            self.pos = start;
            // The thread may have stopped (its last batch): the vector is then dropped.
            let _ = feed.spent.try_send(spent);
            if batch.last {
                self.error = batch.error;
                self.feed = None;
            }
        }
    }

    /// The next request; `Err(())` when the stream's error comes next.
    #[inline]
    fn front(&self) -> Option<Result<&IoRequest, ()>> {
        match self.buf.get(self.pos) {
            Some(r) => Some(Ok(r)),
            None => self.error.as_ref().map(|_| Err(())),
        }
    }

    /// The request `n` positions ahead of the next one.
    #[inline]
    fn peek(&self, n: usize) -> Option<&IoRequest> {
        self.buf.get(self.pos + n)
    }

    #[inline]
    fn next(&mut self) -> Option<Result<IoRequest, TraceError>> {
        let Some(&r) = self.buf.get(self.pos) else {
            return self.error.take().map(Err);
        };
        self.advance();
        Some(Ok(r))
    }

    /// Skips the next request, which [`Lookahead::front`] has shown to be one.
    #[inline]
    fn advance(&mut self) {
        self.pos += 1;
        if self.buf.len() - self.pos <= PREFETCH_AHEAD && self.feed.is_some() {
            self.refill();
        }
    }
}

/// Appends requests of `inner` to `out` until it holds `max`; `Ok(false)` when the stream
/// ended, `Err` when it ended on an error.
fn read_batch(
    inner: &mut (dyn Iterator<Item = Result<IoRequest, TraceError>> + Send),
    out: &mut Vec<IoRequest>,
    max: usize,
) -> Result<bool, TraceError> {
    while out.len() < max {
        match inner.next() {
            Some(Ok(r)) => out.push(r),
            Some(Err(e)) => return Err(e),
            None => return Ok(false),
        }
    }
    Ok(true)
}

/// The host: admits a phase's requests into a [`Target`] with at most `qd` outstanding.
pub struct HostQueue {
    requests: Lookahead,
    arrivals: Arrivals,
    start_ns: u64,
    qd: usize,
    /// Closed loop: when the previous request was issued (think time: completed).
    issue_clock: u64,
    /// Open loop: the previous arrival (arrivals never go back in time).
    last_arrival: u64,
    /// Open loop: the arrival of the next request, once computed (the host asks for it
    /// again each time it checks whether the request is due).
    front_arrival: Option<u64>,
    /// Completion times of dispatched commands still holding a queue tag.
    completions: BinaryHeap<Reverse<u64>>,
    /// Requests issued so far (names the request whose time overflows).
    issued: u64,
    /// No request is issued at or after this time (`host.stop_ns`).
    stop_ns: Option<u64>,
    /// Whether a request was held back by `stop_ns`.
    stopped: bool,
    /// Concurrent closed loops, one per stream ([`HostQueue::per_stream`]); `None`: one
    /// loop for the whole phase (boxed: rare, and it keeps the common host small).
    per_stream: Option<Box<PerStream>>,
    /// The namespaces' submission queues and their arbiter ([`HostQueue::namespaces`]);
    /// `None`: one queue, the drive's whole space (boxed: rare).
    namespaces: Option<Box<NamespaceQueues>>,
}

/// The submission queues of a drive with `[[namespace]]` tables, one per namespace, and
/// the controller's [`Arbiter`] between them. The phase's stream carries every
/// namespace's requests (each tagged with its namespace); the host sorts them into the
/// queues and, each time a queue tag is free, the arbiter picks which queue's oldest
/// command enters the device among those that have arrived by then. Tags (`qd`) are the
/// controller's, shared by the namespaces, as the device queue is.
///
/// Arrivals: open loop, each request at its own time stamp; closed loop, each namespace
/// is its own closed loop (its next request arrives when its previous one was issued),
/// so with every tenant busy the arbiter alone decides the order of service.
pub struct NamespaceQueues {
    /// Per namespace: first byte of its slice of the drive, and its size.
    slices: Vec<(u64, u64)>,
    /// Per namespace: requests read and not yet fetched.
    pending: Vec<VecDeque<IoRequest>>,
    /// Per namespace: the arrival of its head request, once computed.
    head_arrival: Vec<Option<u64>>,
    /// Per namespace, closed loop: when its previous request was issued.
    clock: Vec<u64>,
    /// Per namespace, open loop: its previous arrival (arrivals never go back in time).
    last_arrival: Vec<u64>,
    /// When the previous command was issued (issue times never go back in time).
    last_issue_ns: u64,
    /// Open loop: the arrival of the last request read from the stream; no request still
    /// unread arrives earlier (traces are in time order).
    last_read_ns: u64,
    arbiter: Arbiter,
    /// Per namespace: requests refused with "LBA Out of Range" (never performed).
    errors: Arc<[AtomicU64]>,
    /// The phase's stream has no more requests.
    ended: bool,
}

impl NamespaceQueues {
    /// Queues for namespaces at `slices` (first byte, size in bytes), picked by
    /// `arbiter`; refused requests are counted in `errors` (one per namespace).
    pub fn new(slices: Vec<(u64, u64)>, arbiter: Arbiter, errors: Arc<[AtomicU64]>) -> Self {
        let n = slices.len();
        debug_assert_eq!(errors.len(), n);
        NamespaceQueues {
            slices,
            pending: vec![VecDeque::new(); n],
            head_arrival: vec![None; n],
            clock: vec![0; n],
            last_arrival: vec![0; n],
            last_issue_ns: 0,
            last_read_ns: 0,
            arbiter,
            errors,
            ended: false,
        }
    }

    /// Reads the next request into its namespace's queue; `false` once the stream ended.
    fn read(
        &mut self,
        requests: &mut Lookahead,
        arrivals: Arrivals,
        start_ns: u64,
    ) -> Result<bool, SimError> {
        match requests.next() {
            Some(Ok(r)) => {
                let n = self.slices.len();
                let Some(q) = self.pending.get_mut(r.namespace as usize) else {
                    return Err(SimError::Config(format!(
                        "a request addresses namespace {} but the drive has {n} ([[namespace]] tables)",
                        r.namespace
                    )));
                };
                if let Arrivals::Open { speedup } = arrivals {
                    self.last_read_ns = (start_ns as f64 + r.arrival_ns as f64 / speedup) as u64;
                }
                q.push_back(r);
                Ok(true)
            }
            Some(Err(e)) => Err(e.into()),
            None => {
                self.ended = true;
                Ok(false)
            }
        }
    }

    /// The arrival of namespace `s`'s head request (it has one).
    fn arrival(
        &mut self,
        s: usize,
        arrivals: Arrivals,
        start_ns: u64,
        issued: u64,
    ) -> Result<u64, SimError> {
        if let Some(a) = self.head_arrival[s] {
            return Ok(a);
        }
        let req = self.pending[s].front().expect("a head request");
        let a = match arrivals {
            Arrivals::Open { speedup } => {
                let rel = req.arrival_ns as f64 / speedup;
                let at = start_ns as f64 + rel;
                if at.is_nan() || at > MAX_SIM_TIME_NS as f64 {
                    return Err(time_overflow(
                        issued,
                        format!(
                            "at {at:.3e} ns (its time stamp {} ns divided by speed-up {speedup})",
                            req.arrival_ns
                        ),
                    ));
                }
                (start_ns + rel as u64).max(self.last_arrival[s])
            }
            // Think time is not modelled per namespace: each is a closed loop.
            Arrivals::Closed | Arrivals::Think => self.clock[s],
        };
        self.head_arrival[s] = Some(a);
        Ok(a)
    }
}

/// The state of per-stream closed loops (`workload.stream_loop = "per-stream"`): each
/// stream keeps up to `qd` requests outstanding, issues its requests in order and its
/// next one as soon as it has a free tag, like one fio job of `numjobs`; the host issues
/// whichever stream's next request can go first (the lower stream on a tie), so the
/// device sees the streams' requests in order of issue time.
struct PerStream {
    split: StreamSplit,
    /// Requests read from the phase's stream and not yet issued, per stream. The phase
    /// yields the streams' requests in turn, so a stream that runs ahead of the others
    /// makes them wait here.
    pending: Vec<VecDeque<IoRequest>>,
    /// Per stream: when its previous request was issued (its closed-loop clock).
    clock: Vec<u64>,
    /// Per stream: commands issued and not yet dispatched.
    waiting: Vec<usize>,
    /// Per stream: completion times of dispatched commands still holding a tag.
    completions: Vec<BinaryHeap<Reverse<u64>>>,
    /// The phase's stream has no more requests.
    ended: bool,
}

impl PerStream {
    fn new(split: StreamSplit, start_ns: u64) -> PerStream {
        let k = split.count.max(1) as usize;
        PerStream {
            split,
            pending: vec![VecDeque::new(); k],
            clock: vec![start_ns; k],
            waiting: vec![0; k],
            completions: vec![BinaryHeap::new(); k],
            ended: false,
        }
    }

    /// Reads requests until every stream has one waiting to be issued or the phase's
    /// stream has ended (an error in it ends the run).
    fn fill(&mut self, requests: &mut Lookahead) -> Result<(), SimError> {
        while !self.ended && self.pending.iter().any(VecDeque::is_empty) {
            match requests.next() {
                Some(Ok(r)) => self.pending[self.split.of(r.offset_bytes)].push_back(r),
                Some(Err(e)) => return Err(e.into()),
                None => self.ended = true,
            }
        }
        Ok(())
    }

    /// A dispatched command of stream `s` now holds its tag until `done_ns`.
    fn dispatched(&mut self, d: &Dispatched) {
        let s = self.split.of(d.cmd.req.offset_bytes);
        self.waiting[s] -= 1;
        self.completions[s].push(Reverse(d.done_ns));
    }
}

/// The latest simulated time a run may reach, 2^62 ns (about 146 years). Arrival times
/// are checked against it, so no later sum of times can overflow 64 bits: past it a
/// trace's time stamps or a `--speedup` are wrong, and the run stops with an error
/// instead of wrapping around to an earlier time.
pub const MAX_SIM_TIME_NS: u64 = 1 << 62;

/// The error for a request whose arrival lies past [`MAX_SIM_TIME_NS`].
fn time_overflow(index: u64, what: String) -> SimError {
    SimError::Config(format!(
        "request {} (counting from 1) would arrive {what}, past the simulator's time limit \
         of 2^62 ns (146 years): check the trace's time stamps, host.speedup (--speedup) \
         or workload.mean_gap_ns (--mean-gap-ns)",
        index + 1
    ))
}

impl HostQueue {
    /// A host that starts sending `requests` at `start_ns`.
    pub fn new(requests: RequestStream, arrivals: Arrivals, start_ns: u64, qd: usize) -> Self {
        HostQueue {
            requests: Lookahead::new(requests),
            arrivals,
            start_ns,
            qd: qd.max(1),
            issue_clock: start_ns,
            last_arrival: start_ns,
            front_arrival: None,
            completions: BinaryHeap::with_capacity(qd + 1),
            issued: 0,
            stop_ns: None,
            stopped: false,
            per_stream: None,
            namespaces: None,
        }
    }

    /// Sorts the phase's requests into the namespaces' submission queues of `queues`
    /// ([`NamespaceQueues`]); `None` keeps one queue. Not together with per-stream loops.
    pub fn namespaces(mut self, queues: Option<NamespaceQueues>) -> Self {
        debug_assert!(queues.is_none() || self.per_stream.is_none());
        self.namespaces = queues.map(|mut q| {
            q.clock.fill(self.start_ns);
            q.last_arrival.fill(self.start_ns);
            q.last_issue_ns = self.start_ns;
            q.last_read_ns = self.start_ns;
            Box::new(q)
        });
        self
    }

    /// [`HostQueue::admit`] for a drive with namespaces: once a tag is free, the arbiter
    /// picks among the namespaces whose head request has arrived; a request past its
    /// namespace's end is counted and dropped, and the next one is considered.
    #[inline(never)]
    fn admit_ns<T: Target>(
        &mut self,
        target: &mut T,
        bound: Option<u64>,
    ) -> Result<bool, SimError> {
        let (arrivals, start_ns, qd) = (self.arrivals, self.start_ns, self.qd);
        let open = matches!(arrivals, Arrivals::Open { .. });
        let ns = self.namespaces.as_mut().expect("namespace queues");
        loop {
            // Closed loops: every namespace with requests left has its next one at hand.
            // Open loop: at least one request read.
            while !ns.ended
                && if open {
                    ns.pending.iter().all(VecDeque::is_empty)
                } else {
                    ns.pending.iter().any(VecDeque::is_empty)
                }
            {
                ns.read(&mut self.requests, arrivals, start_ns)?;
            }
            // The earliest time a command can be issued, and whether it waits for a tag.
            let (issue, full) = loop {
                let mut earliest: Option<u64> = None;
                for s in 0..ns.pending.len() {
                    if !ns.pending[s].is_empty() {
                        let a = ns.arrival(s, arrivals, start_ns, self.issued)?;
                        earliest = Some(earliest.map_or(a, |e: u64| e.min(a)));
                    }
                }
                let Some(earliest) = earliest else {
                    return Ok(false);
                };
                let earliest = earliest.max(ns.last_issue_ns);
                while self
                    .completions
                    .peek()
                    .is_some_and(|&Reverse(t)| t <= earliest)
                {
                    self.completions.pop();
                }
                let full = target.queued() + self.completions.len() >= qd;
                let issue = if full {
                    match self.completions.peek() {
                        Some(&Reverse(t)) => earliest.max(t),
                        // Every tag is held by a waiting command.
                        None => return Ok(false),
                    }
                } else {
                    earliest
                };
                // A request not yet read may arrive by then: read on (open loop).
                if open && !ns.ended && ns.last_read_ns <= issue {
                    ns.read(&mut self.requests, arrivals, start_ns)?;
                    continue;
                }
                break (issue, full);
            };
            if bound.is_some_and(|b| issue > b) {
                return Ok(false);
            }
            if self.stop_ns.is_some_and(|x| issue >= x) {
                self.stopped = true;
                return Ok(false);
            }
            let heads = &ns.head_arrival;
            let q = ns
                .arbiter
                .next(&|q| heads[q].is_some_and(|a| a <= issue))
                .expect("a namespace whose request has arrived");
            let arrival = ns.head_arrival[q].take().expect("computed");
            let mut req = ns.pending[q].pop_front().expect("a head request");
            let (base, size) = ns.slices[q];
            if req.offset_bytes.saturating_add(req.size_bytes) > size {
                // NVMe "LBA Out of Range": the command fails; no tag, no flash work.
                ns.errors[q].fetch_add(1, SeqCst);
                if open {
                    ns.last_arrival[q] = arrival;
                }
                continue;
            }
            if full {
                self.completions.pop();
            }
            req.offset_bytes += base;
            ns.last_issue_ns = issue;
            self.issued += 1;
            let arrival = if open {
                ns.last_arrival[q] = arrival;
                arrival
            } else {
                ns.clock[q] = issue;
                issue
            };
            target.queue(&req, arrival, issue)?;
            let next = ns.pending[q].front().map(|r| {
                let mut r = *r;
                r.offset_bytes = r.offset_bytes.saturating_add(base);
                r
            });
            target.prefetch(next.as_ref(), None);
            return Ok(true);
        }
    }

    /// Runs the phase as concurrent closed loops, one per stream of `split`, each with
    /// `qd` tags of its own ([`PerStream`]); `None` keeps one loop. Only closed-loop
    /// phases have streams (the generator refuses per-stream loops with arrival times).
    pub fn per_stream(mut self, split: Option<StreamSplit>) -> Self {
        debug_assert!(split.is_none() || self.arrivals == Arrivals::Closed);
        self.per_stream = split.map(|s| Box::new(PerStream::new(s, self.start_ns)));
        self
    }

    /// [`HostQueue::admit`] for per-stream loops: issues the request of the stream that
    /// can go first, if it can by `bound`.
    #[inline(never)]
    fn admit_per_stream<T: Target>(
        &mut self,
        target: &mut T,
        bound: Option<u64>,
    ) -> Result<bool, SimError> {
        let ps = self.per_stream.as_mut().expect("per-stream loops");
        ps.fill(&mut self.requests)?;
        let mut best: Option<(u64, usize, bool)> = None;
        for s in 0..ps.pending.len() {
            if ps.pending[s].is_empty() {
                continue;
            }
            // Closed loop: the stream's next request arrives when its previous one
            // was issued; a tag freed by then is free for it.
            let arrival = ps.clock[s];
            let comps = &mut ps.completions[s];
            while comps.peek().is_some_and(|&Reverse(t)| t <= arrival) {
                comps.pop();
            }
            let full = ps.waiting[s] + comps.len() >= self.qd;
            let issue = if full {
                // Every tag held by a waiting command frees none before its dispatch.
                match comps.peek() {
                    Some(&Reverse(t)) => arrival.max(t),
                    None => continue,
                }
            } else {
                arrival
            };
            if bound.is_some_and(|b| issue > b) {
                continue;
            }
            if best.is_none_or(|(t, _, _)| issue < t) {
                best = Some((issue, s, full));
            }
        }
        let Some((issue, s, full)) = best else {
            return Ok(false);
        };
        if self.stop_ns.is_some_and(|x| issue >= x) {
            self.stopped = true;
            return Ok(false);
        }
        if full {
            ps.completions[s].pop();
        }
        let req = ps.pending[s].pop_front().expect("a pending request");
        ps.clock[s] = issue;
        ps.waiting[s] += 1;
        self.issued += 1;
        target.queue(&req, issue, issue)?;
        target.prefetch(ps.pending[s].front(), None);
        Ok(true)
    }

    /// Issues nothing at or after `stop_ns` (absolute simulated time); `None`: no limit.
    pub fn stop_at(mut self, stop_ns: Option<u64>) -> Self {
        self.stop_ns = stop_ns;
        self
    }

    /// Issues the next request into the target's queue if it can be issued by `bound`
    /// (any time when `None`): it must have arrived and a queue tag must be free (tags
    /// are held from issue to completion, so `qd` bounds waiting + executing commands).
    /// Inlined: it runs twice per command, and the call cost as much as its work.
    #[inline(always)]
    fn admit<T: Target>(&mut self, target: &mut T, bound: Option<u64>) -> Result<bool, SimError> {
        if self.stopped {
            return Ok(false);
        }
        if self.per_stream.is_some() {
            return self.admit_per_stream(target, bound);
        }
        if self.namespaces.is_some() {
            return self.admit_ns(target, bound);
        }
        if matches!(self.arrivals, Arrivals::Think) && target.queued() > 0 {
            // The next step's arrival depends on this one's completion.
            return Ok(false);
        }
        let req = match self.requests.front() {
            None => return Ok(false),
            Some(Ok(r)) => *r,
            Some(Err(_)) => {
                let e = self.requests.next().expect("peeked").expect_err("an error");
                return Err(e.into());
            }
        };
        let arrival = match self.arrivals {
            Arrivals::Open { speedup } => match self.front_arrival {
                Some(a) => a,
                None => {
                    let rel = req.arrival_ns as f64 / speedup;
                    let at = self.start_ns as f64 + rel;
                    if at.is_nan() || at > MAX_SIM_TIME_NS as f64 {
                        return Err(time_overflow(
                            self.issued,
                            format!(
                                "at {at:.3e} ns (its time stamp {} ns divided by speed-up \
                                 {speedup})",
                                req.arrival_ns
                            ),
                        ));
                    }
                    // Whole nanoseconds of the gap added to the start, as before the
                    // check (f64 sums lose units past 2^53 ns).
                    let a = (self.start_ns + rel as u64).max(self.last_arrival);
                    self.front_arrival = Some(a);
                    a
                }
            },
            Arrivals::Closed => self.issue_clock,
            Arrivals::Think => match self.issue_clock.checked_add(req.arrival_ns) {
                Some(a) if a <= MAX_SIM_TIME_NS => a,
                _ => {
                    return Err(time_overflow(
                        self.issued,
                        format!(
                            "{} ns after the previous completion at {} ns",
                            req.arrival_ns, self.issue_clock
                        ),
                    ));
                }
            },
        };
        if bound.is_some_and(|b| arrival > b) {
            return Ok(false);
        }
        while self
            .completions
            .peek()
            .is_some_and(|&Reverse(t)| t <= arrival)
        {
            self.completions.pop();
        }
        let full = target.queued() + self.completions.len() >= self.qd;
        let issue = if full {
            // Every tag is held; a waiting command frees none before it is dispatched.
            match self.completions.peek() {
                Some(&Reverse(t)) if bound.is_none_or(|b| t <= b) => arrival.max(t),
                _ => return Ok(false),
            }
        } else {
            arrival
        };
        // Checked before the tag is taken: a request held back must leave the queue's
        // state as it was, or the next call would find a tag free too early.
        if self.stop_ns.is_some_and(|s| issue >= s) {
            self.stopped = true;
            return Ok(false);
        }
        if full {
            self.completions.pop();
        }
        self.requests.advance();
        self.front_arrival = None;
        self.issued += 1;
        let arrival = match self.arrivals {
            Arrivals::Open { .. } => {
                self.last_arrival = arrival;
                arrival
            }
            // A closed-loop host issues the request the moment a tag frees.
            Arrivals::Closed => {
                self.issue_clock = issue;
                issue
            }
            Arrivals::Think => issue,
        };
        target.queue(&req, arrival, issue)?;
        target.prefetch(
            self.requests.peek(0),
            self.requests.peek(PREFETCH_AHEAD - 1),
        );
        Ok(true)
    }

    /// Feeds every request to `target` and calls `done` for each completed command, in
    /// dispatch order; returns the number of commands completed. Each dispatch happens
    /// when the target is free and the oldest waiting command has been issued; every
    /// request issued by then is queued first, so the target sees exactly the commands
    /// that wait at that moment.
    pub fn run<T: Target>(
        self,
        target: &mut T,
        done: impl FnMut(&Dispatched),
    ) -> Result<u64, SimError> {
        self.run_until_stop(target, done).map(|(n, _)| n)
    }

    /// [`HostQueue::run`], also saying whether [`HostQueue::stop_at`]'s time held a
    /// request back (the stream did not end).
    pub fn run_until_stop<T: Target>(
        mut self,
        target: &mut T,
        mut done: impl FnMut(&Dispatched),
    ) -> Result<(u64, bool), SimError> {
        let mut n = 0u64;
        loop {
            if target.queued() == 0 && !self.admit(target, None)? {
                break;
            }
            let oldest = target.oldest_issue_ns().expect("non-empty");
            let t = target.free_ns().max(oldest);
            while self.admit(target, Some(t))? {}
            let d = target.dispatch()?.expect("non-empty");
            match &mut self.per_stream {
                None => self.completions.push(Reverse(d.done_ns)),
                Some(ps) => ps.dispatched(&d),
            }
            if matches!(self.arrivals, Arrivals::Think) {
                // The user waits for this step before thinking about the next.
                self.issue_clock = d.done_ns;
            }
            done(&d);
            n += 1;
        }
        Ok((n, self.stopped))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(op: OpKind, first_lpn: u32, pages: u32) -> QueuedCommand {
        QueuedCommand {
            req: IoRequest::new(op, first_lpn as u64 * 4096, pages as u64 * 4096),
            arrival_ns: 0,
            issue_ns: 0,
            first_lpn,
            pages,
        }
    }

    fn req(i: u64) -> IoRequest {
        IoRequest::new(OpKind::Write, i * 4096, 4096)
    }

    /// Drains a lookahead over `items`, checking every peek against the items.
    fn drain(items: Vec<Result<IoRequest, TraceError>>, hint: bool) -> Vec<Result<u64, String>> {
        let n = items.len();
        let expected: Vec<Option<u64>> = items
            .iter()
            .map(|r| r.as_ref().ok().map(|r| r.offset_bytes))
            .collect();
        let inner: RequestStream = if hint {
            Box::new(items.into_iter())
        } else {
            // No size hint: read on a thread.
            Box::new(items.into_iter().filter(|_| true))
        };
        // Nothing after the first error is ever read.
        let visible = expected.iter().position(Option::is_none).unwrap_or(n);
        let mut la = Lookahead::new(inner);
        let mut out = Vec::new();
        for i in 0..n + 2 {
            // The next requests before the first error are at hand.
            for k in 0..=PREFETCH_AHEAD {
                let want = (i + k < visible).then(|| expected[i + k]).flatten();
                assert_eq!(la.peek(k).map(|r| r.offset_bytes), want, "peek {k} at {i}");
            }
            match la.next() {
                Some(r) => out.push(r.map(|r| r.offset_bytes).map_err(|e| e.to_string())),
                None => break,
            }
        }
        out
    }

    #[test]
    fn lookahead_gives_every_request_in_order_and_stops_at_the_first_error() {
        for n in [
            0,
            1,
            3,
            5,
            BATCH - 1,
            BATCH,
            BATCH + 1,
            3 * BATCH + 7,
            READ_AT_ONCE + 1,
        ] {
            for hint in [true, false] {
                let items: Vec<_> = (0..n as u64).map(|i| Ok(req(i))).collect();
                let got = drain(items, hint);
                let want: Vec<_> = (0..n as u64).map(|i| Ok(i * 4096)).collect();
                assert_eq!(got, want, "{n} requests, size hint {hint}");
            }
        }
        for at in [0, 2, BATCH - 1, BATCH, 2 * BATCH + 3] {
            for hint in [true, false] {
                let mut items: Vec<_> = (0..at as u64).map(|i| Ok(req(i))).collect();
                items.push(Err(TraceError::Option(format!("bad at {at}"))));
                items.extend((0..10).map(|i| Ok(req(i))));
                let got = drain(items, hint);
                assert_eq!(got.len(), at + 1, "error at {at}, size hint {hint}");
                assert_eq!(got[at], Err(format!("bad at {at}")));
            }
        }
    }

    /// Polls `done` for up to a minute (a liveness check, not a timing one).
    fn eventually(done: impl Fn() -> bool) -> bool {
        (0..6000).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(10));
            done()
        })
    }

    #[test]
    fn a_reading_thread_waiting_for_room_stops_when_the_host_stops_reading() {
        // The stream is endless; the thread owns it and drops it when it returns.
        let alive = Arc::new(());
        let held = Arc::clone(&alive);
        let inner: RequestStream = Box::new((0..u64::MAX).map(move |i| {
            let _ = &held;
            Ok(req(i))
        }));
        let mut la = Lookahead::new(inner);
        for i in 0..3 * BATCH as u64 {
            assert_eq!(la.next().unwrap().unwrap().offset_bytes, i * 4096);
        }
        let gate = Arc::clone(&la.feed.as_ref().unwrap().gate);
        assert!(
            eventually(|| gate.waiting.load(SeqCst)),
            "the reading thread never filled its batches"
        );
        drop(la);
        assert!(
            eventually(|| Arc::strong_count(&alive) == 1),
            "the reading thread still runs after the host dropped the stream"
        );
    }

    #[test]
    #[should_panic(expected = "generator broke")]
    fn a_panic_while_reading_ahead_is_the_hosts() {
        let inner: RequestStream = Box::new((0..u64::MAX).map(|i| {
            assert!(i < 5000, "generator broke");
            Ok(req(i))
        }));
        let mut la = Lookahead::new(inner);
        while la.next().is_some() {}
    }

    /// A target that starts every command at its issue time and completes it after a
    /// service time by stream region (stream 0 below 1 MiB: 10 ns; above: 25 ns).
    #[derive(Default)]
    struct Parallel {
        queue: VecDeque<QueuedCommand>,
    }

    impl Target for Parallel {
        fn queue(
            &mut self,
            req: &IoRequest,
            arrival_ns: u64,
            issue_ns: u64,
        ) -> Result<(), SimError> {
            self.queue.push_back(QueuedCommand {
                req: *req,
                arrival_ns,
                issue_ns,
                first_lpn: 0,
                pages: 0,
            });
            Ok(())
        }

        fn dispatch(&mut self) -> Result<Option<Dispatched>, SimError> {
            Ok(self.queue.pop_front().map(|cmd| Dispatched {
                append_lba: None,
                cmd,
                dispatch_ns: cmd.issue_ns,
                done_ns: cmd.issue_ns
                    + if cmd.req.offset_bytes < 1 << 20 {
                        10
                    } else {
                        25
                    },
            }))
        }

        fn queued(&self) -> usize {
            self.queue.len()
        }

        fn oldest_issue_ns(&self) -> Option<u64> {
            self.queue.front().map(|c| c.issue_ns)
        }

        fn free_ns(&self) -> u64 {
            0
        }
    }

    /// Two namespaces of 512 KiB each (namespace 1 from byte 512 Ki), `n` 4 KiB reads
    /// each, in turn, run at depth 1 through `mechanism`: (namespace, device offset) in
    /// service order, and the refused requests per namespace.
    fn two_namespaces(
        mechanism: crate::arbitration::Mechanism,
        reqs: Vec<IoRequest>,
    ) -> (Vec<(u32, u64)>, Vec<u64>) {
        use crate::arbitration::Priority::{High, Low};
        let arbiter = Arbiter::new(mechanism, 1, &[High, Low], "host").unwrap();
        let errors: Arc<[AtomicU64]> = (0..2).map(|_| AtomicU64::new(0)).collect();
        let queues = NamespaceQueues::new(
            vec![(0, 512 << 10), (512 << 10, 512 << 10)],
            arbiter,
            Arc::clone(&errors),
        );
        let items: Vec<Result<IoRequest, TraceError>> = reqs.into_iter().map(Ok).collect();
        let mut target = Parallel {
            queue: VecDeque::new(),
        };
        let mut order = Vec::new();
        HostQueue::new(Box::new(items.into_iter()), Arrivals::Closed, 0, 1)
            .namespaces(Some(queues))
            .run(&mut target, |d| {
                order.push((d.cmd.req.namespace, d.cmd.req.offset_bytes))
            })
            .unwrap();
        let errors = errors.iter().map(|e| e.load(SeqCst)).collect();
        (order, errors)
    }

    fn in_turn(n: u64) -> Vec<IoRequest> {
        (0..n)
            .flat_map(|i| {
                (0..2).map(move |ns| IoRequest::new(OpKind::Read, i * 4096, 4096).in_namespace(ns))
            })
            .collect()
    }

    #[test]
    fn round_robin_serves_the_namespaces_in_turn_at_their_slices() {
        let (order, errors) = two_namespaces(crate::arbitration::Mechanism::RoundRobin, in_turn(6));
        let ns: Vec<u32> = order.iter().map(|o| o.0).collect();
        assert_eq!(ns, [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
        // Namespace 1's byte 4096 is the drive's 512 Ki + 4096.
        assert_eq!(order[3], (1, (512 << 10) + 4096));
        assert_eq!(errors, [0, 0]);
    }

    #[test]
    fn weighted_round_robin_serves_high_twice_per_low_once() {
        // High weight 2, low weight 1, burst 1: a round is high, high, low; once the
        // high namespace's six requests are served, the low one's rest follow.
        let wrr = crate::arbitration::Mechanism::WeightedRoundRobin {
            high: 2,
            medium: 1,
            low: 1,
        };
        let (order, _) = two_namespaces(wrr, in_turn(6));
        let ns: Vec<u32> = order.iter().map(|o| o.0).collect();
        assert_eq!(ns, [0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 1, 1]);
    }

    #[test]
    fn a_request_past_its_namespace_is_counted_and_not_performed() {
        let reqs = vec![
            IoRequest::new(OpKind::Read, 0, 4096),
            // Ends one byte past namespace 1's 512 KiB.
            IoRequest::new(OpKind::Write, (512 << 10) - 4095, 4096).in_namespace(1),
            IoRequest::new(OpKind::Read, 4096, 4096).in_namespace(1),
        ];
        let (order, errors) = two_namespaces(crate::arbitration::Mechanism::RoundRobin, reqs);
        assert_eq!(order, [(0, 0), (1, (512 << 10) + 4096)]);
        assert_eq!(errors, [0, 1]);
    }

    /// Two streams of `n` reads each, in turn (as `workload.streams = 2` yields them):
    /// stream 0 at 0, 4, 8 … KiB, stream 1 at 1 MiB + 0, 4, 8 … KiB. Runs them through
    /// a host of depth `qd` and returns (stream, issue, done) in dispatch order.
    fn two_streams(qd: usize, n: u64, per_stream: bool) -> Vec<(usize, u64, u64)> {
        let split = StreamSplit {
            count: 2,
            offset_bytes: 0,
            region_bytes: 1 << 20,
        };
        let reqs: Vec<Result<IoRequest, TraceError>> = (0..n)
            .flat_map(|i| [i * 4096, (1 << 20) + i * 4096])
            .map(|o| Ok(IoRequest::new(OpKind::Read, o, 4096)))
            .collect();
        let host = HostQueue::new(Box::new(reqs.into_iter()), Arrivals::Closed, 0, qd)
            .per_stream(per_stream.then_some(split));
        let mut out = Vec::new();
        host.run(&mut Parallel::default(), |d| {
            out.push((split.of(d.cmd.req.offset_bytes), d.cmd.issue_ns, d.done_ns));
        })
        .unwrap();
        out
    }

    #[test]
    fn per_stream_loops_issue_each_stream_when_its_own_request_completes() {
        // QD 1 each: stream 0 issues at 0, 10, 20 (10 ns a read), stream 1 at 0, 25, 50
        // (25 ns); the device sees them in order of issue time, stream 0 first on a tie.
        assert_eq!(
            two_streams(1, 3, true),
            vec![
                (0, 0, 10),
                (1, 0, 25),
                (0, 10, 20),
                (0, 20, 30),
                (1, 25, 50),
                (1, 50, 75)
            ]
        );
        // One shared loop at QD 1 alternates strictly, each waiting for the other.
        assert_eq!(
            two_streams(1, 2, false),
            vec![(0, 0, 10), (1, 10, 35), (0, 35, 45), (1, 45, 70)]
        );
    }

    #[test]
    fn no_stream_ever_holds_more_than_its_depth() {
        for qd in [1, 2, 3] {
            let done = two_streams(qd, 40, true);
            assert_eq!(done.len(), 80);
            let mut most = [0usize; 2];
            for &(s, issue, _) in &done {
                // Commands of stream s outstanding at `issue` (this one included).
                let held = done
                    .iter()
                    .filter(|&&(t, i, d)| t == s && i <= issue && d > issue)
                    .count();
                assert!(held <= qd, "stream {s} held {held} > {qd} at {issue} ns");
                most[s] = most[s].max(held);
            }
            // Each stream uses all its tags: the streams do not share one depth.
            assert_eq!(most, [qd, qd], "qd {qd}");
            // Each stream's requests go in its own order.
            for s in 0..2 {
                let issues: Vec<u64> = done.iter().filter(|d| d.0 == s).map(|d| d.1).collect();
                assert!(
                    issues.windows(2).all(|w| w[0] <= w[1]),
                    "stream {s}: {issues:?}"
                );
            }
        }
    }

    #[test]
    fn hits_first_jumps_only_over_non_conflicting_commands() {
        let buffered = |l: u32| (10..20).contains(&l);
        let mut q = Ncq::new(8, DispatchOrder::HitsFirst);
        q.push(cmd(OpKind::Write, 0, 2)); // pages 0 and 1: not buffered
        q.push(cmd(OpKind::Read, 1, 1)); // page 1: not buffered
        q.push(cmd(OpKind::Write, 12, 2)); // all buffered, overlaps nothing older
        q.push(cmd(OpKind::Read, 12, 1)); // buffered; must not pass the write of 12
        // The write of 12..14 jumps ahead; then the read of 12, whose only overlapping
        // older command (that write) has gone.
        assert_eq!(q.pop(buffered).unwrap().first_lpn, 12);
        assert_eq!(q.pop(buffered).unwrap().req.op, OpKind::Read);
        assert_eq!(q.len(), 2);
        assert_eq!(q.reordered(), 2);
        // Write 0..2 and read 1 are both misses: FIFO.
        assert_eq!(q.pop(buffered).unwrap().first_lpn, 0);
        assert_eq!(q.pop(buffered).unwrap().first_lpn, 1);
        // A flush is a barrier: nothing passes it.
        q.push(cmd(OpKind::Write, 0, 1));
        q.push(cmd(OpKind::Flush, 0, 0));
        q.push(cmd(OpKind::Write, 15, 1));
        assert_eq!(q.pop(buffered).unwrap().first_lpn, 0);
        assert_eq!(q.pop(buffered).unwrap().req.op, OpKind::Flush);
        assert_eq!(q.pop(buffered).unwrap().first_lpn, 15);
        // A read of buffered page 10 cannot pass an older write of 9..11 (partly a miss).
        q.push(cmd(OpKind::Write, 9, 2));
        q.push(cmd(OpKind::Read, 10, 1));
        assert_eq!(q.pop(buffered).unwrap().first_lpn, 9);
        assert_eq!(q.pop(buffered).unwrap().first_lpn, 10);
        assert_eq!(q.reordered(), 2);
        // FIFO never reorders.
        let mut f = Ncq::new(4, DispatchOrder::Fifo);
        f.push(cmd(OpKind::Write, 0, 1));
        f.push(cmd(OpKind::Write, 12, 1));
        assert_eq!(f.pop(buffered).unwrap().first_lpn, 0);
    }
}
