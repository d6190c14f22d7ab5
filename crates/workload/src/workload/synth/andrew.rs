//! Andrew-like small-file workload at block level, after the Andrew benchmark (J. Howard
//! et al., "Scale and performance in a distributed file system", ACM TOCS 6(1), 1988),
//! which the CFTL paper (docs/papers.md §3) times: copy a source tree, scan it, read it all,
//! compile it.
//!
//! ```text
//! layout:  metadata area (inodes 256 B each, one 512 B directory block per directory)
//!          then data areas, each file starting on a 4 KiB file-system block:
//!          source tree | copy | objects | binary
//! files:   `andrew_files` files, sizes log-uniform in 1–64 KiB (sector multiples),
//!          ten files per directory
//! setup:   write the source tree (the benchmark's input, untarred): each file in 4 KiB
//!          writes, then its inode and directory block
//! mkdir:   per directory: inode write + directory block write
//! copy:    per file: read the source in 4 KiB reads, write the copy in 4 KiB writes,
//!          inode + directory block writes
//! scandir: per directory: directory block read; per file: inode read
//! readall: per file: the copy read in 4 KiB reads
//! make:    per file: read the copy, write an object file of half its size, inode
//!          write; link: read every object, write the binary (half their total) in
//!          64 KiB writes, inode write
//! ```
//! Every phase is a deterministic function of the seed (file sizes only are drawn). The
//! block-level shape that matters for FTLs: many short sequential runs, small metadata
//! writes that keep hitting the same few blocks, and files re-read soon after they are
//! written.

use super::GeneratorSpec;
use super::own::{fold_field, own_keys};
use super::stream::{SynthRng, below};
use super::{SynthConfig, SynthError, SynthPhase};
use crate::workload::{IoRequest, OpKind};

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const SPEC: GeneratorSpec = GeneratorSpec::suite(
    "andrew",
    "Andrew-benchmark-like small files: setup, mkdir, copy, scandir, readall, make over andrew_files files",
)
.with_own(fold_field!(andrew, SPEC));

own_keys! {
    /// `[workload.andrew]`: the benchmark's own key ([`super::own`]).
    AndrewKeys {
        /// Files in the source tree.
        files: u32 => andrew_files,
    }
}

const SECTOR: u64 = 512;
const FS_BLOCK: u64 = 4096;
const INODE_BYTES: u64 = 256;
const FILES_PER_DIR: u64 = 10;
const LINK_CHUNK: u64 = 64 << 10;

/// Where everything lives.
struct Layout {
    sizes: Vec<u64>,
    dirs: u64,
    src: Vec<u64>,
    copy: Vec<u64>,
    obj: Vec<u64>,
    binary: u64,
    dir_base: u64,
    end: u64,
}

fn round_up(x: u64, to: u64) -> u64 {
    x.div_ceil(to) * to
}

impl Layout {
    fn new(files: u64, rng: &mut SynthRng) -> Layout {
        // log-uniform 1–64 KiB: 2^(10 + u·6) bytes, u uniform in [0, 1).
        let sizes: Vec<u64> = (0..files)
            .map(|_| {
                let u = below(rng, 1 << 20) as f64 / (1 << 20) as f64;
                round_up((1024.0 * 2f64.powf(u * 6.0)) as u64, SECTOR)
            })
            .collect();
        let dirs = files.div_ceil(FILES_PER_DIR) + 1;
        // Inodes for every file of the tree, its copy, its object, the binary, the dirs.
        let inodes = 3 * files + dirs + 1;
        let dir_base = round_up(inodes * INODE_BYTES, FS_BLOCK);
        let meta_end = round_up(dir_base + dirs * SECTOR, FS_BLOCK);
        let mut at = meta_end;
        let mut place = |size: u64| {
            let start = at;
            at += round_up(size, FS_BLOCK);
            start
        };
        let src: Vec<u64> = sizes.iter().map(|&s| place(s)).collect();
        let copy: Vec<u64> = sizes.iter().map(|&s| place(s)).collect();
        let obj: Vec<u64> = sizes.iter().map(|&s| place(obj_size(s))).collect();
        let binary = place(binary_size(&sizes));
        Layout {
            sizes,
            dirs,
            src,
            copy,
            obj,
            binary,
            dir_base,
            end: at,
        }
    }
}

fn obj_size(src: u64) -> u64 {
    round_up(src / 2, SECTOR).max(SECTOR)
}

fn binary_size(sizes: &[u64]) -> u64 {
    round_up(sizes.iter().map(|&s| obj_size(s)).sum::<u64>() / 2, SECTOR)
}

fn req(op: OpKind, offset_bytes: u64, size_bytes: u64) -> IoRequest {
    IoRequest::new(op, offset_bytes, size_bytes)
}

/// `size` bytes from `start` in requests of at most `chunk`.
fn extent(out: &mut Vec<IoRequest>, op: OpKind, start: u64, size: u64, chunk: u64) {
    let mut off = 0;
    while off < size {
        let n = chunk.min(size - off);
        out.push(req(op, start + off, n));
        off += n;
    }
}

/// The sector holding inode `i`.
fn inode(out: &mut Vec<IoRequest>, op: OpKind, i: u64) {
    out.push(req(op, i * INODE_BYTES / SECTOR * SECTOR, SECTOR));
}

/// Bytes the workload needs for `files` files (drawn with `seed`).
pub fn footprint_bytes(files: u64, seed: u64) -> u64 {
    Layout::new(files, &mut super::stream::rng_from_seed(seed)).end
}

/// The phases, for a device of `capacity_bytes`.
pub fn phases(
    cfg: &SynthConfig,
    capacity_bytes: u64,
    seed: u64,
) -> Result<Vec<SynthPhase>, SynthError> {
    let files = cfg.andrew_files as u64;
    if files == 0 {
        return Err(SynthError::AndrewNoFiles);
    }
    let l = Layout::new(files, &mut super::stream::rng_from_seed(seed));
    if l.end > capacity_bytes {
        return Err(SynthError::AndrewFootprint {
            files,
            need_bytes: l.end,
            capacity_bytes,
        });
    }
    let n = files as usize;
    let dir_of = |f: usize| f as u64 / FILES_PER_DIR;
    let dir_block = |out: &mut Vec<IoRequest>, op: OpKind, d: u64| {
        out.push(req(op, l.dir_base + d * SECTOR, SECTOR));
    };
    // Inode numbers: source files 0.., copies n.., objects 2n.., dirs 3n.., binary last.
    let (ino_copy, ino_obj, ino_dir) = (files, 2 * files, 3 * files);
    let ino_bin = 3 * files + l.dirs;
    use OpKind::{Read, Write};

    let mut setup = Vec::new();
    for f in 0..n {
        extent(&mut setup, Write, l.src[f], l.sizes[f], FS_BLOCK);
        inode(&mut setup, Write, f as u64);
        dir_block(&mut setup, Write, dir_of(f));
    }
    let mut mkdir = Vec::new();
    for d in 0..l.dirs {
        inode(&mut mkdir, Write, ino_dir + d);
        dir_block(&mut mkdir, Write, d);
    }
    let mut copy = Vec::new();
    for f in 0..n {
        extent(&mut copy, Read, l.src[f], l.sizes[f], FS_BLOCK);
        extent(&mut copy, Write, l.copy[f], l.sizes[f], FS_BLOCK);
        inode(&mut copy, Write, ino_copy + f as u64);
        dir_block(&mut copy, Write, dir_of(f));
    }
    let mut scandir = Vec::new();
    for d in 0..l.dirs {
        dir_block(&mut scandir, Read, d);
    }
    for f in 0..n {
        inode(&mut scandir, Read, ino_copy + f as u64);
    }
    let mut readall = Vec::new();
    for f in 0..n {
        extent(&mut readall, Read, l.copy[f], l.sizes[f], FS_BLOCK);
    }
    let mut make = Vec::new();
    for f in 0..n {
        extent(&mut make, Read, l.copy[f], l.sizes[f], FS_BLOCK);
        extent(&mut make, Write, l.obj[f], obj_size(l.sizes[f]), FS_BLOCK);
        inode(&mut make, Write, ino_obj + f as u64);
    }
    for f in 0..n {
        extent(&mut make, Read, l.obj[f], obj_size(l.sizes[f]), FS_BLOCK);
    }
    extent(
        &mut make,
        Write,
        l.binary,
        binary_size(&l.sizes),
        LINK_CHUNK,
    );
    inode(&mut make, Write, ino_bin);

    Ok([
        ("andrew-setup", setup),
        ("andrew-mkdir", mkdir),
        ("andrew-copy", copy),
        ("andrew-scandir", scandir),
        ("andrew-readall", readall),
        ("andrew-make", make),
    ]
    .into_iter()
    .map(|(name, reqs)| SynthPhase {
        name: name.into(),
        open_loop: false,
        streams: None,
        requests: Box::new(reqs.into_iter()),
    })
    .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_touch_what_the_benchmark_touches_and_stay_inside_the_device() {
        let cfg = SynthConfig {
            kind: super::super::SynthKind::Andrew,
            andrew_files: 25,
            ..SynthConfig::default()
        };
        let cap = 64 << 20;
        let ph = phases(&cfg, cap, 3).unwrap();
        let names: Vec<&str> = ph.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "andrew-setup",
                "andrew-mkdir",
                "andrew-copy",
                "andrew-scandir",
                "andrew-readall",
                "andrew-make"
            ]
        );
        let mut counts = Vec::new();
        for p in ph {
            let reqs: Vec<IoRequest> = p.requests.collect();
            for r in &reqs {
                assert!(r.offset_bytes + r.size_bytes <= cap);
                assert_eq!(r.offset_bytes % SECTOR, 0);
                assert!(r.size_bytes > 0 && r.size_bytes % SECTOR == 0);
            }
            let reads = reqs.iter().filter(|r| r.op == OpKind::Read).count();
            counts.push((reqs.len(), reads));
        }
        // mkdir: 25 files → 3 directories + 1 → 4 dirs × (inode + dir block), no reads.
        assert_eq!(counts[1], (8, 0));
        // scandir: 4 directory reads + 25 inode reads, all reads.
        assert_eq!(counts[3], (29, 29));
        // readall reads exactly the bytes copy wrote, so both have the same 4 KiB reads
        // as setup has writes minus its metadata (2 per file).
        assert_eq!(counts[4].0, counts[0].0 - 2 * 25);
        // The same seed gives the same layout; footprint grows with the file count.
        assert_eq!(footprint_bytes(25, 3), footprint_bytes(25, 3));
        assert!(footprint_bytes(250, 3) > 5 * footprint_bytes(25, 3));
    }
}
