//! Compile-like workload, a stand-in for the kernel-build trace of the NCQ-buffer paper
//! (docs/papers.md §2: "low locality but larger requests"): several parallel jobs (as with
//! `make -j4`) each write object files sequentially into fresh space, interleaved with
//! small writes to hot file-system metadata (inodes, bitmaps, journal) and reads of the
//! sources.
//!
//! ```text
//! regions: metadata = first 2% of the span (at most 16 MiB: the inode tables and
//!          bitmaps of a kernel tree), sources = next 25%, output = the rest
//! each request:
//!   with probability read_percent: read a [size, size_max] extent of the sources
//!   else with probability 30%:      write one `size` record at a uniform metadata slot
//!   else: a file write by one of 4 jobs (uniformly chosen): the job's current file
//!         gets its next chunk, of [size, size_max] bytes; a job whose file is done
//!         starts a new one of 1–16 chunks, reserved at the output cursor (which wraps
//!         to the region's start, so a long run rebuilds over old objects); one file in
//!         ten is written a second time right after (an object post-processed in place)
//! size_max defaults to 16 × size for this generator (file chunks are the larger
//! requests; metadata records are `size`)
//! ```
//! The shares, region sizes and file lengths are modelling choices, not measurements.

use super::stream::{Arrivals, SizeDist, SynthRng, below};
use super::{GeneratorSpec, Requests, Single};
use super::{SynthConfig, SynthError};
use crate::units::Size;
use crate::workload::{IoRequest, OpKind};
use rand::Rng;

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const SPEC: GeneratorSpec = GeneratorSpec::own(
    "compile",
    "compile-like: parallel jobs writing object files into fresh space, hot metadata, source reads",
    make,
)
.with_check(check);

/// The largest request fits the span, and each of the three regions holds its requests.
fn check(cfg: &SynthConfig, span: u64) -> Result<(), SynthError> {
    let size = cfg.size.bytes();
    let max = super::effective_size_max(cfg).unwrap_or(size);
    let (meta_end, sources_end) = regions(span, cfg.align.bytes());
    if max > span {
        return Err(SynthError::CompileSizeMax {
            max: Size(max),
            span: Size(span),
        });
    }
    if meta_end < size || sources_end - meta_end < max || span - sources_end < max {
        return Err(SynthError::CompileRegions {
            span: Size(span),
            size: Size(size),
            max: Size(max),
        });
    }
    Ok(())
}

fn make(a: Single) -> Requests {
    Box::new(Compile::new(
        a.rng, a.cfg, a.span, a.sizes, a.arrivals, a.count,
    ))
}

/// Parallel compile jobs.
const JOBS: usize = 4;
/// Share of writes that are metadata records.
const METADATA_SHARE: f64 = 0.30;
/// Most chunks in one object file.
const MAX_CHUNKS: u64 = 16;
/// Share of files written twice in a row.
const REWRITE_SHARE: f64 = 0.10;
/// Largest metadata region.
const MAX_METADATA_BYTES: u64 = 16 << 20;

/// Region boundaries `(metadata_end, sources_end)` for a span.
pub(crate) fn regions(span: u64, align: u64) -> (u64, u64) {
    let meta = (span / 50).min(MAX_METADATA_BYTES) / align * align;
    let sources = span / 4 / align * align;
    (meta, meta + sources)
}

#[derive(Clone, Copy, Debug, Default)]
struct Job {
    /// Next byte of the current file, relative to the output region.
    next: u64,
    chunks_left: u64,
    /// Start and chunk count of the current file, for its second write.
    start: u64,
    chunks: u64,
    rewrite: bool,
}

/// The compile-like request stream.
pub(crate) struct Compile {
    rng: SynthRng,
    sizes: SizeDist,
    record: u64,
    align: u64,
    read_share: f64,
    arrivals: Arrivals,
    meta_end: u64,
    sources_end: u64,
    out_len: u64,
    cursor: u64,
    max_chunks: u64,
    jobs: [Job; JOBS],
    remaining: u64,
}

impl Compile {
    /// `count` requests of `cfg` over `span` (validated: every region holds the largest
    /// request).
    pub(crate) fn new(
        rng: SynthRng,
        cfg: &SynthConfig,
        span: u64,
        sizes: SizeDist,
        arrivals: Arrivals,
        count: u64,
    ) -> Compile {
        let align = cfg.align.bytes();
        let record = cfg.size.bytes();
        let read_share = cfg.read_percent / 100.0;
        let (meta_end, sources_end) = regions(span, align);
        let out_len = span - sources_end;
        Compile {
            rng,
            sizes,
            record,
            align,
            read_share,
            arrivals,
            meta_end,
            sources_end,
            out_len,
            cursor: 0,
            max_chunks: (out_len / sizes.max()).clamp(1, MAX_CHUNKS),
            jobs: [Job::default(); JOBS],
            remaining: count,
        }
    }
}

impl Iterator for Compile {
    type Item = IoRequest;

    fn next(&mut self) -> Option<IoRequest> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let max = self.sizes.max();
        let (offset_bytes, size_bytes, op) = if self.rng.r#gen::<f64>() < self.read_share {
            let size = self.sizes.sample(&mut self.rng);
            let slots = (self.sources_end - self.meta_end - size) / self.align + 1;
            let off = self.meta_end + below(&mut self.rng, slots) * self.align;
            (off, size, OpKind::Read)
        } else if self.rng.r#gen::<f64>() < METADATA_SHARE {
            let slots = (self.meta_end - self.record) / self.align + 1;
            let off = below(&mut self.rng, slots) * self.align;
            (off, self.record, OpKind::Write)
        } else {
            let j = below(&mut self.rng, JOBS as u64) as usize;
            let job = &mut self.jobs[j];
            if job.chunks_left == 0 && job.rewrite {
                // The second write of the file just finished: same place, same length.
                job.rewrite = false;
                job.next = job.start;
                job.chunks_left = job.chunks;
            } else if job.chunks_left == 0 {
                let chunks = 1 + below(&mut self.rng, self.max_chunks);
                let rewrite = self.rng.r#gen::<f64>() < REWRITE_SHARE;
                let reserve = chunks * max;
                if self.cursor + reserve > self.out_len {
                    self.cursor = 0;
                }
                self.jobs[j] = Job {
                    next: self.cursor,
                    chunks_left: chunks,
                    start: self.cursor,
                    chunks,
                    rewrite,
                };
                self.cursor += reserve;
            }
            let size = self.sizes.sample(&mut self.rng);
            let job = &mut self.jobs[j];
            let off = self.sources_end + job.next;
            job.next += size;
            job.chunks_left -= 1;
            (off, size, OpKind::Write)
        };
        let arrival_ns = self.arrivals.next(&mut self.rng);
        Some(IoRequest::new(op, offset_bytes, size_bytes).at(arrival_ns))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        super::stream::size_hint(self.remaining)
    }
}
