//! IOZone-like file test (IOZone's `-i 0 -i 1 -i 2` on one file), after the Android
//! study's use of IOZone (docs/papers.md §4):
//!
//! ```text
//! seq-write     create /iozone.tmp, write it record by record, fsync, close
//! rewrite       open, write it again record by record, fsync, close
//! seq-read      open, read it record by record, close
//! reread        open, read it again, close
//! random-write  open, `count` writes of `size` at random record offsets, fsync, close
//! random-read   open, `count` reads of `size` at random record offsets, close
//! ```
//! The file is `span` bytes (default min(1 GiB, half the capacity)); sequential records
//! are 128 KiB unless `size` is set to something other than 4 KiB (then `size`), random
//! records are `size`; `count` is file / record unless `requests` is set. Offsets are
//! drawn from the run's seed, one stream per phase.

use super::{FileOpKind as K, FilePhase, FileWorkloadError, op};
use crate::workload::synth::SynthConfig;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::Arc;

const SEQ_RECORD: u64 = 128 << 10;

pub(super) fn phases(
    w: &SynthConfig,
    capacity_bytes: u64,
    seed: u64,
) -> Result<Vec<FilePhase>, FileWorkloadError> {
    let file = w
        .span
        .map_or(super::default_file_bytes(capacity_bytes), |s| s.bytes());
    let size = w.size.bytes();
    if file == 0 || size == 0 || size > file {
        return Err(FileWorkloadError::Bound {
            workload: "iozone-file",
            key: format!("workload.span (file size, {file} B)"),
            rule: format!("must be at least workload.size ({size} B) and above 0"),
        });
    }
    let seq = if size != 4096 {
        size
    } else {
        SEQ_RECORD.min(file)
    };
    let path: Arc<str> = "/iozone.tmp".into();
    let seq_n = w.requests.unwrap_or(file.div_ceil(seq));
    let rnd_n = w.requests.unwrap_or(file / size);
    let records = file / size;
    let sequential = |kind: K, first: Option<K>, sync: bool| {
        let path = path.clone();
        let head = first.map(|k| op(k, &path, 0, 0));
        let body = (0..seq_n).map({
            let path = path.clone();
            move |i| {
                let off = (i * seq) % file;
                op(kind, &path, off, seq.min(file - off))
            }
        });
        let tail = sync.then(|| op(K::Fsync, &path, 0, 0));
        let close = op(K::Close, &path, 0, 0);
        head.into_iter()
            .chain(body)
            .chain(tail)
            .chain(std::iter::once(close))
            .map(Ok)
    };
    let random = |kind: K, salt: u64, sync: bool| {
        let path = path.clone();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ salt);
        let open = op(K::Open, &path, 0, 0);
        let body = (0..rnd_n).map({
            let path = path.clone();
            move |_| op(kind, &path, rng.gen_range(0..records) * size, size)
        });
        let tail = sync.then(|| op(K::Fsync, &path, 0, 0));
        let close = op(K::Close, &path, 0, 0);
        std::iter::once(open)
            .chain(body)
            .chain(tail)
            .chain(std::iter::once(close))
            .map(Ok)
    };
    let p = |name: &str, ops: super::super::FileOpStream| FilePhase {
        name: name.into(),
        ops,
        open_loop: false,
    };
    Ok(vec![
        p(
            "seq-write",
            Box::new(sequential(K::Write, Some(K::Create), true)),
        ),
        p(
            "rewrite",
            Box::new(sequential(K::Write, Some(K::Open), true)),
        ),
        p(
            "seq-read",
            Box::new(sequential(K::Read, Some(K::Open), false)),
        ),
        p(
            "reread",
            Box::new(sequential(K::Read, Some(K::Open), false)),
        ),
        p("random-write", Box::new(random(K::Write, 0x1a2b, true))),
        p("random-read", Box::new(random(K::Read, 0x3c4d, false))),
    ])
}
