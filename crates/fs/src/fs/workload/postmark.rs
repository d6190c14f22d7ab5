//! Postmark-like small-file workload (J. Katcher, "PostMark: a new file system
//! benchmark", NetApp TR3022, 1997): the mail/news-server pattern of many short-lived
//! small files.
//!
//! ```text
//! create        mkdir postmark_dirs directories; create postmark_files files, each
//!               written whole (size uniform in [postmark_size_min, postmark_size_max])
//!               and closed
//! transactions  postmark_transactions times: read a random file whole or append a
//!               random amount to it (even odds), then create a new file or delete a
//!               random one (even odds)
//! delete        delete every remaining file
//! ```
//! Files are picked uniformly from the live pool; a transaction that would delete the
//! last file creates one instead. Everything is drawn from the run's seed.

use super::{FileOpKind as K, FilePhase, FileWorkloadError, op, phase};
use crate::config::fs::FsConfig;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::Arc;

pub(super) fn phases(
    fs: &FsConfig,
    capacity_bytes: u64,
    seed: u64,
) -> Result<Vec<FilePhase>, FileWorkloadError> {
    let (lo, hi) = (fs.postmark_size_min.bytes(), fs.postmark_size_max.bytes());
    let pool_bytes = fs.postmark_files as u64 * hi;
    if pool_bytes > capacity_bytes / 2 {
        return Err(FileWorkloadError::TooLarge {
            workload: "postmark-file",
            what: format!("fs.postmark_files × fs.postmark_size_max = {pool_bytes} B"),
            capacity_bytes,
        });
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x9057_3a2c);
    let dirs: Vec<Arc<str>> = (0..fs.postmark_dirs)
        .map(|d| Arc::from(format!("/pm{d}")))
        .collect();
    let mut next = 0u64;
    // Live files: (path, size).
    let mut live: Vec<(Arc<str>, u64)> = Vec::new();
    let mut create =
        |rng: &mut Xoshiro256PlusPlus, live: &mut Vec<(Arc<str>, u64)>, out: &mut Vec<_>| {
            let dir = &dirs[(next % dirs.len() as u64) as usize];
            let path: Arc<str> = format!("{dir}/f{next}").into();
            next += 1;
            let size = rng.gen_range(lo..=hi);
            out.push(op(K::Create, &path, 0, 0));
            out.push(op(K::Write, &path, 0, size));
            out.push(op(K::Close, &path, 0, 0));
            live.push((path, size));
        };
    let mut setup = Vec::new();
    for d in &dirs {
        setup.push(op(K::Mkdir, d, 0, 0));
    }
    for _ in 0..fs.postmark_files {
        create(&mut rng, &mut live, &mut setup);
    }
    let mut tx = Vec::new();
    for _ in 0..fs.postmark_transactions {
        let i = rng.gen_range(0..live.len());
        let (path, size) = live[i].clone();
        tx.push(op(K::Open, &path, 0, 0));
        if rng.r#gen::<bool>() {
            tx.push(op(K::Read, &path, 0, size));
        } else {
            let add = rng.gen_range(lo..=hi);
            tx.push(op(K::Write, &path, size, add));
            live[i].1 += add;
        }
        tx.push(op(K::Close, &path, 0, 0));
        if rng.r#gen::<bool>() || live.len() == 1 {
            create(&mut rng, &mut live, &mut tx);
        } else {
            let j = rng.gen_range(0..live.len());
            let (p, _) = live.swap_remove(j);
            tx.push(op(K::Unlink, &p, 0, 0));
        }
    }
    let delete: Vec<_> = live.iter().map(|(p, _)| op(K::Unlink, p, 0, 0)).collect();
    Ok(vec![
        phase("create", setup),
        phase("transactions", tx),
        phase("delete", delete),
    ])
}
