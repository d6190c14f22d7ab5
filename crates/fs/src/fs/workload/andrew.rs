//! Andrew-like small-file workload at file level: the phases of the block-level Andrew
//! workload (`workload/synth/andrew.rs`, after Howard et al., ACM TOCS 1988) as file
//! operations, so the file system decides where inodes, directories and data go.
//!
//! ```text
//! files:   andrew_files files, sizes log-uniform in 1–64 KiB, ten per directory
//! setup:   mkdir /src and its directories; create and write every source file, close
//! mkdir:   mkdir /copy and its directories
//! copy:    per file: read the source whole, create the copy, write it whole, close
//! scandir: per file: open and close (a stat; the file system reads what it must)
//! readall: per file: read the copy whole
//! make:    per file: read the copy, create an object file of half its size, write it,
//!          close; link: read every object, write /copy/a.out (half their total) in
//!          64 KiB writes, fsync, close
//! ```

use super::{FileOpKind as K, FilePhase, FileWorkloadError, op, phase};
use crate::workload::synth::SynthConfig;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::Arc;

const FILES_PER_DIR: u64 = 10;
const LINK_CHUNK: u64 = 64 << 10;

pub(super) fn phases(
    w: &SynthConfig,
    capacity_bytes: u64,
    seed: u64,
) -> Result<Vec<FilePhase>, FileWorkloadError> {
    let files = w.andrew_files as u64;
    if files == 0 {
        return Err(FileWorkloadError::Bound {
            workload: "andrew-file",
            key: "workload.andrew_files".into(),
            rule: "must be at least 1".into(),
        });
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xa4d7_e111);
    let sizes: Vec<u64> = (0..files)
        .map(|_| (1024.0 * 2f64.powf(rng.gen_range(0.0..6.0))) as u64)
        .collect();
    let total: u64 = sizes.iter().sum();
    // Source, copy, objects (half) and the binary (a quarter).
    if total * 3 > capacity_bytes / 2 {
        return Err(FileWorkloadError::TooLarge {
            workload: "andrew-file",
            what: format!(
                "workload.andrew_files = {files} needs about {} B",
                total * 3
            ),
            capacity_bytes,
        });
    }
    let dirs = files.div_ceil(FILES_PER_DIR);
    let p = |root: &str, i: u64, ext: &str| -> Arc<str> {
        format!("{root}/d{}/f{i}{ext}", i / FILES_PER_DIR).into()
    };
    let mut setup = vec![op(K::Mkdir, &"/src".into(), 0, 0)];
    for d in 0..dirs {
        setup.push(op(K::Mkdir, &format!("/src/d{d}").into(), 0, 0));
    }
    for (i, &s) in sizes.iter().enumerate() {
        let f = p("/src", i as u64, ".c");
        setup.push(op(K::Create, &f, 0, 0));
        setup.push(op(K::Write, &f, 0, s));
        setup.push(op(K::Close, &f, 0, 0));
    }
    let mut mkdir = vec![op(K::Mkdir, &"/copy".into(), 0, 0)];
    for d in 0..dirs {
        mkdir.push(op(K::Mkdir, &format!("/copy/d{d}").into(), 0, 0));
    }
    let mut copy = Vec::new();
    let mut scan = Vec::new();
    let mut readall = Vec::new();
    let mut make = Vec::new();
    for (i, &s) in sizes.iter().enumerate() {
        let (src, dst) = (p("/src", i as u64, ".c"), p("/copy", i as u64, ".c"));
        copy.push(op(K::Open, &src, 0, 0));
        copy.push(op(K::Read, &src, 0, s));
        copy.push(op(K::Close, &src, 0, 0));
        copy.push(op(K::Create, &dst, 0, 0));
        copy.push(op(K::Write, &dst, 0, s));
        copy.push(op(K::Close, &dst, 0, 0));
        scan.push(op(K::Open, &dst, 0, 0));
        scan.push(op(K::Close, &dst, 0, 0));
        readall.push(op(K::Open, &dst, 0, 0));
        readall.push(op(K::Read, &dst, 0, s));
        readall.push(op(K::Close, &dst, 0, 0));
        let obj = p("/copy", i as u64, ".o");
        make.push(op(K::Open, &dst, 0, 0));
        make.push(op(K::Read, &dst, 0, s));
        make.push(op(K::Close, &dst, 0, 0));
        make.push(op(K::Create, &obj, 0, 0));
        make.push(op(K::Write, &obj, 0, (s / 2).max(1)));
        make.push(op(K::Close, &obj, 0, 0));
    }
    for (i, &s) in sizes.iter().enumerate() {
        let obj = p("/copy", i as u64, ".o");
        make.push(op(K::Open, &obj, 0, 0));
        make.push(op(K::Read, &obj, 0, (s / 2).max(1)));
        make.push(op(K::Close, &obj, 0, 0));
    }
    let bin: Arc<str> = "/copy/a.out".into();
    let bin_bytes = (total / 4).max(1);
    make.push(op(K::Create, &bin, 0, 0));
    let mut at = 0;
    while at < bin_bytes {
        let n = LINK_CHUNK.min(bin_bytes - at);
        make.push(op(K::Write, &bin, at, n));
        at += n;
    }
    make.push(op(K::Fsync, &bin, 0, 0));
    make.push(op(K::Close, &bin, 0, 0));
    Ok(vec![
        phase("setup", setup),
        phase("mkdir", mkdir),
        phase("copy", copy),
        phase("scandir", scan),
        phase("readall", readall),
        phase("make", make),
    ])
}
