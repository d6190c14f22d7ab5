//! OLTP-like workload, a stand-in for the database traces of the NCQ-buffer paper
//! (docs/papers.md §2: "high locality but small requests"), in the shape of TPC-C and the
//! UMass/SPC Financial traces: small page-sized requests to the database's data pages
//! under a skewed popularity, and the redo log appended sequentially.
//!
//! ```text
//! regions: data = [0, span − log), log = the last max(span/32, 4 × largest request)
//! each request: size from [size, size_max] (4 KiB by default)
//!   with probability 10%: a log write at the log cursor (wrapping at the region's end)
//!   otherwise:            a data request at a Zipf(zipf_theta)-ranked slot of the data
//!                         region (hot slots scattered, as the `zipf` generator does);
//!                         a read with probability read_percent, else a write
//! ```
//! The shares and region sizes are modelling choices, not measurements of any trace; the
//! locality comes from `zipf_theta` (0.99 by default).

use super::own::{fold_field, own_keys};
use super::stream::Placement;
use super::stream::{Arrivals, OpMix, SizeDist, SynthRng};
use super::zipf::ZipfSlots;
use super::{GeneratorSpec, Requests, Single};
use super::{SynthConfig, SynthError};
use crate::units::Size;
use crate::workload::{IoRequest, OpKind};
use rand::Rng;

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const SPEC: GeneratorSpec = GeneratorSpec::own(
    "oltp",
    "OLTP-like: small requests to Zipf-ranked database pages plus sequential log appends",
    make,
)
.with_own(fold_field!(oltp, SPEC))
.with_check(check);

/// Both regions hold the largest request.
fn check(cfg: &SynthConfig, span: u64) -> Result<(), SynthError> {
    let max = super::effective_size_max(cfg).unwrap_or(cfg.size.bytes());
    let (data, log) = regions(span, cfg.align.bytes(), max);
    if data < max || log < max {
        return Err(SynthError::OltpRegions {
            span: Size(span),
            data: Size(data),
            log: Size(log),
            max: Size(max),
        });
    }
    Ok(())
}

own_keys! {
    /// `[workload.oltp]`: the key of its data pages' popularity ([`super::own`]).
    OltpKeys {
        /// Zipf exponent of the data pages.
        zipf_theta: f64 => zipf_theta,
    }
}

fn make(a: Single) -> Requests {
    Box::new(Oltp::new(
        a.rng, a.cfg, a.span, a.sizes, a.arrivals, a.count,
    ))
}

/// Share of requests that are redo-log appends.
const LOG_SHARE: f64 = 0.10;

/// Where the log region starts and how long it is, for a span and largest request.
pub(crate) fn regions(span: u64, align: u64, max_size: u64) -> (u64, u64) {
    let log = ((span / 32).max(4 * max_size)) / align * align;
    (span.saturating_sub(log), log)
}

/// The OLTP-like request stream.
pub(crate) struct Oltp {
    rng: SynthRng,
    sizes: SizeDist,
    data: ZipfSlots,
    ops: OpMix,
    arrivals: Arrivals,
    log_start: u64,
    log_len: u64,
    log_cursor: u64,
    remaining: u64,
}

impl Oltp {
    /// `count` requests of `cfg` over `span` (validated: both regions hold the largest
    /// request).
    pub(crate) fn new(
        mut rng: SynthRng,
        cfg: &SynthConfig,
        span: u64,
        sizes: SizeDist,
        arrivals: Arrivals,
        count: u64,
    ) -> Oltp {
        let align = cfg.align.bytes();
        let (log_start, log_len) = regions(span, align, sizes.max());
        let data = ZipfSlots::new(log_start, align, sizes.max(), cfg.zipf_theta, &mut rng);
        let ops = OpMix::Reads(cfg.read_percent / 100.0);
        Oltp {
            rng,
            sizes,
            data,
            ops,
            arrivals,
            log_start,
            log_len,
            log_cursor: 0,
            remaining: count,
        }
    }
}

impl Iterator for Oltp {
    type Item = IoRequest;

    fn next(&mut self) -> Option<IoRequest> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let size_bytes = self.sizes.sample(&mut self.rng);
        let (offset_bytes, op) = if self.rng.r#gen::<f64>() < LOG_SHARE {
            if self.log_cursor + size_bytes > self.log_len {
                self.log_cursor = 0;
            }
            let off = self.log_start + self.log_cursor;
            self.log_cursor += size_bytes;
            (off, OpKind::Write)
        } else {
            let off = self.data.offset(&mut self.rng, size_bytes);
            (off, self.ops.sample(&mut self.rng))
        };
        let arrival_ns = self.arrivals.next(&mut self.rng);
        Some(IoRequest::new(op, offset_bytes, size_bytes).at(arrival_ns))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        super::stream::size_hint(self.remaining)
    }
}
