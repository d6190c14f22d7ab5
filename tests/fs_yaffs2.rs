//! YAFFS2 against a reference model: random file operations (seeded; the seed is
//! printed on failure) through GC, remounts (scan and checkpoint) and power cuts. Every
//! file's bytes are compared by write version: each write operation stamps its bytes
//! with the next version number, the model does the same.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab::config::fs::FsKind;
use ssdlab::config::{Config, TimingMode};
use ssdlab::fs::yaffs2::Yaffs2;
use ssdlab::fs::{FileOp, FileOpKind as K, FileSystem, FsError};
use ssdlab::units::Size;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

const CHUNK: u64 = 2048;

fn small_fs(capacity: u64, checkpoint: bool) -> Yaffs2 {
    let mut c = Config::load(Some("android-emmc"), None).unwrap();
    c.device.capacity = Size(capacity);
    c.timing.mode = TimingMode::Count;
    c.fs.name = FsKind::Yaffs2;
    c.fs.yaffs2.checkpoint = checkpoint;
    let d = c.validate_device().unwrap();
    let mut fs = Yaffs2::format(&d).unwrap();
    fs.track_contents();
    fs
}

/// The reference model: file contents as write versions per byte, directories.
#[derive(Clone, Debug, Default, PartialEq)]
struct Model {
    files: BTreeMap<String, Vec<u64>>,
    dirs: BTreeSet<String>,
    version: u64,
}

impl Model {
    fn bytes(&self) -> u64 {
        self.files.values().map(|f| f.len() as u64).sum()
    }

    fn apply(&mut self, op: &FileOp) {
        let p = op.path.to_string();
        match op.kind {
            K::Create => {
                self.files.insert(p, Vec::new());
            }
            K::Mkdir => {
                self.dirs.insert(p);
            }
            K::Write => {
                if op.len_bytes == 0 {
                    return;
                }
                self.version += 1;
                let f = self.files.get_mut(&p).unwrap();
                let end = (op.offset_bytes + op.len_bytes) as usize;
                if f.len() < end {
                    f.resize(end, 0);
                }
                for b in &mut f[op.offset_bytes as usize..end] {
                    *b = self.version;
                }
            }
            K::Truncate => {
                let f = self.files.get_mut(&p).unwrap();
                f.resize(op.offset_bytes as usize, 0);
            }
            K::Unlink => {
                self.files.remove(&p);
            }
            K::Rename => {
                let f = self.files.remove(&p).unwrap();
                self.files.insert(op.to.as_ref().unwrap().to_string(), f);
            }
            _ => {}
        }
    }
}

fn op(kind: K, path: &str, off: u64, len: u64) -> FileOp {
    FileOp::new(kind, &Arc::from(path), off, len)
}

/// A random operation the model says is valid, keeping the data under `limit` bytes.
fn random_op(rng: &mut Xoshiro256PlusPlus, m: &Model, limit: u64) -> FileOp {
    let files: Vec<&String> = m.files.keys().collect();
    let full = m.bytes() > limit;
    let dirs: Vec<String> = std::iter::once(String::new())
        .chain(m.dirs.iter().cloned())
        .collect();
    let pick_dir = |rng: &mut Xoshiro256PlusPlus| dirs[rng.gen_range(0..dirs.len())].clone();
    loop {
        let k = rng.gen_range(0..100);
        if files.is_empty() || k < 8 {
            let d = pick_dir(rng);
            let path = format!("{d}/f{}", rng.gen_range(0..1000));
            if !m.files.contains_key(&path) && !m.dirs.contains(&path) {
                return op(K::Create, &path, 0, 0);
            }
            continue;
        }
        if k < 10 && m.dirs.len() < 6 {
            let path = format!("{}/d{}", pick_dir(rng), rng.gen_range(0..100));
            if !m.files.contains_key(&path) && !m.dirs.contains(&path) {
                return op(K::Mkdir, &path, 0, 0);
            }
            continue;
        }
        let f = files[rng.gen_range(0..files.len())].clone();
        let size = m.files[&f].len() as u64;
        return match k {
            10..=59 if !full => {
                // Writes of 1 B to 3 chunks, aligned or not, inside or past the end.
                let off = if rng.gen_bool(0.5) {
                    rng.gen_range(0..=size / CHUNK) * CHUNK
                } else {
                    rng.gen_range(0..=size + CHUNK)
                };
                op(K::Write, &f, off, rng.gen_range(1..3 * CHUNK))
            }
            60..=69 => op(
                K::Read,
                &f,
                rng.gen_range(0..=size),
                rng.gen_range(1..4 * CHUNK),
            ),
            70..=77 => op(K::Truncate, &f, rng.gen_range(0..=size + CHUNK / 2), 0),
            78..=83 => op(K::Fsync, &f, 0, 0),
            84..=87 => op(K::Close, &f, 0, 0),
            88..=93 => {
                let to = format!("{}/r{}", pick_dir(rng), rng.gen_range(0..1000));
                if m.dirs.contains(&to) || to == f {
                    continue;
                }
                let mut o = op(K::Rename, &f, 0, 0);
                o.to = Some(Arc::from(to.as_str()));
                o
            }
            _ => op(K::Unlink, &f, 0, 0),
        };
    }
}

fn compare(fs: &Yaffs2, m: &Model, seed: u64, step: usize) {
    fs.check_invariants();
    let got = fs.contents();
    for (p, want) in &m.files {
        let have = got
            .get(p)
            .unwrap_or_else(|| panic!("seed {seed} step {step}: {p} missing"));
        if have != want {
            let first = have.iter().zip(want).position(|(a, b)| a != b);
            panic!(
                "seed {seed} step {step}: {p}: sizes {} / {} (fs / model), first difference at byte {first:?}",
                have.len(),
                want.len()
            );
        }
    }
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        m.files.keys().collect::<Vec<_>>(),
        "seed {seed} step {step}: files"
    );
    let dirs: BTreeSet<String> = fs.directories().into_iter().collect();
    assert_eq!(dirs, m.dirs, "seed {seed} step {step}: directories");
}

#[test]
fn random_operations_through_gc_and_remounts_match_the_model() {
    let seeds: u64 = std::env::var("SSDLAB_FS_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    for seed in 0..seeds {
        let checkpoint = seed % 2 == 1;
        // 2 MiB of SLC with 2 KiB chunks: 34 blocks of 64 chunks; the data stays under
        // 40% of it, so GC runs constantly.
        let mut fs = small_fs(2 << 20, checkpoint);
        let mut m = Model::default();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let limit = 800 << 10;
        for step in 0..6000 {
            if step % 500 == 499 {
                let st = fs.remount(0).unwrap();
                assert_eq!(st.from_checkpoint, checkpoint, "seed {seed} step {step}");
                compare(&fs, &m, seed, step);
                continue;
            }
            let o = random_op(&mut rng, &m, limit);
            fs.exec(&o, 0)
                .unwrap_or_else(|e| panic!("seed {seed} step {step}: {o:?}: {e}"));
            m.apply(&o);
            assert_eq!(fs.versions(), m.version, "seed {seed} step {step}");
            if step % 97 == 0 {
                compare(&fs, &m, seed, step);
            }
        }
        compare(&fs, &m, seed, 6000);
        let mut c = ssdlab::spec::Counters::new();
        fs.counters(&mut c);
        assert!(
            c["fs.yaffs2.gc.copies"] > 0,
            "seed {seed}: GC never copied: {c:?}"
        );
    }
}

/// Whether `have` (a file after a power cut) is made of chunks each equal to the same
/// chunk of one of `states` (the file as it was at its last fsync and after every later
/// operation), bytes past a state's end reading as zero.
fn consistent(have: &[u64], states: &[Vec<u64>]) -> bool {
    let size = have.len();
    if !states.iter().any(|s| s.len() >= size) && !states.is_empty() {
        return false;
    }
    have.chunks(CHUNK as usize).enumerate().all(|(i, c)| {
        let base = i * CHUNK as usize;
        states.iter().any(|s| {
            c.iter()
                .enumerate()
                .all(|(j, &v)| s.get(base + j).copied().unwrap_or(0) == v)
        })
    })
}

#[test]
fn after_a_power_cut_every_file_is_its_last_fsynced_version_or_newer_complete_chunks() {
    let trials: u64 = std::env::var("SSDLAB_FS_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(40, |n: u64| n * 10);
    let mut cuts = 0;
    for seed in 0..trials {
        let mut fs = small_fs(2 << 20, seed % 3 == 0);
        let mut m = Model::default();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1000 + seed);
        // Per file: its contents at the last fsync and after each later operation.
        let mut states: BTreeMap<String, Vec<Vec<u64>>> = BTreeMap::new();
        let cut_at = rng.gen_range(50..1500);
        let mut step = 0;
        loop {
            let o = random_op(&mut rng, &m, 700 << 10);
            if step == cut_at {
                fs.cut_power_after(Some(rng.gen_range(0..6)));
            }
            let before = m.clone();
            let r = fs.exec(&o, 0);
            match r {
                Ok(_) => {
                    m.apply(&o);
                    let p = o.path.to_string();
                    match o.kind {
                        K::Fsync | K::Close | K::Create => {
                            states.insert(p.clone(), vec![m.files[&p].clone()]);
                        }
                        K::Unlink => {
                            states.remove(&p);
                        }
                        K::Rename => {
                            let to = o.to.as_ref().unwrap().to_string();
                            let s = states.remove(&p).unwrap_or_default();
                            states.insert(to.clone(), s);
                            states.get_mut(&to).unwrap().push(m.files[&to].clone());
                        }
                        K::Mkdir | K::Read | K::Open => {}
                        _ => states
                            .entry(p.clone())
                            .or_default()
                            .push(m.files[&p].clone()),
                    }
                    step += 1;
                }
                Err(FsError::PowerCut) => {
                    cuts += 1;
                    fs.power_cycle(0)
                        .unwrap_or_else(|e| panic!("seed {seed}: mount: {e}"));
                    fs.check_invariants();
                    let got = fs.contents();
                    // The interrupted operation may or may not have happened.
                    let mut after = before.clone();
                    after.apply(&o);
                    let touched: Vec<String> = std::iter::once(o.path.to_string())
                        .chain(o.to.iter().map(|t| t.to_string()))
                        .collect();
                    for (p, have) in &got {
                        let mut s = states.get(p).cloned().unwrap_or_default();
                        if let Some(f) = after.files.get(p) {
                            s.push(f.clone());
                        }
                        if touched.contains(p) {
                            // A rename moves the source's states to the target.
                            if let Some(src) = states.get(&o.path.to_string()) {
                                s.extend(src.iter().cloned());
                            }
                        } else {
                            assert!(
                                before.files.contains_key(p),
                                "seed {seed}: {p} appeared after the cut ({o:?})"
                            );
                        }
                        assert!(
                            consistent(have, &s),
                            "seed {seed}: {p} after a cut during {o:?}: neither its fsynced \
                             version nor newer complete chunks"
                        );
                    }
                    for p in before.files.keys() {
                        assert!(
                            got.contains_key(p) || touched.contains(p),
                            "seed {seed}: {p} lost after a cut during {o:?}"
                        );
                    }
                    // Carry on from what the file system holds; it must stay exact.
                    m.files = got;
                    m.dirs = fs.directories().into_iter().collect();
                    m.version = fs.versions();
                    let mut log = Vec::new();
                    for _ in 0..300 {
                        let o = random_op(&mut rng, &m, 700 << 10);
                        fs.exec(&o, 0)
                            .unwrap_or_else(|e| panic!("seed {seed}: after the cut: {o:?}: {e}"));
                        m.apply(&o);
                        log.push(o);
                    }
                    fs.remount(0).unwrap();
                    if std::env::var("SSDLAB_FS_DEBUG").is_ok() {
                        let got = fs.contents();
                        for (p, f) in &m.files {
                            if got.get(p) != Some(f) {
                                eprintln!("{p}: cut during {o:?}");
                                for l in log.iter().filter(|l| {
                                    &*l.path == p.as_str() || l.to.as_deref() == Some(p.as_str())
                                }) {
                                    eprintln!(
                                        "  {:?} {} {} {:?}",
                                        l.kind, l.offset_bytes, l.len_bytes, l.to
                                    );
                                }
                            }
                        }
                    }
                    compare(&fs, &m, seed, step);
                    break;
                }
                Err(e) => panic!("seed {seed} step {step}: {o:?}: {e}"),
            }
        }
    }
    assert_eq!(cuts, trials, "every trial cut the power");
}

#[test]
fn a_mount_scan_reads_every_block_and_a_checkpoint_reads_fewer_pages() {
    // 1 GiB in counting mode: the scan reads the first chunk of every block and every
    // written chunk; the checkpoint mount reads the checkpoint and the blocks before it.
    let mut pages = Vec::new();
    for (capacity, checkpoint) in [(256u64 << 20, false), (1 << 30, false), (1 << 30, true)] {
        let mut fs = small_fs(capacity, checkpoint);
        for f in 0..16 {
            let p = format!("/f{f}");
            fs.exec(&op(K::Create, &p, 0, 0), 0).unwrap();
            fs.exec(&op(K::Write, &p, 0, 1 << 20), 0).unwrap();
            fs.exec(&op(K::Close, &p, 0, 0), 0).unwrap();
        }
        fs.remount(0).unwrap();
        let st = fs.last_mount();
        assert_eq!(st.from_checkpoint, checkpoint);
        assert!(st.time_ns > 0);
        pages.push(st.pages_read);
        // What the mount rebuilt is exact.
        assert_eq!(fs.contents().len(), 16);
        fs.check_invariants();
    }
    let (small, big, ckpt) = (pages[0], pages[1], pages[2]);
    let blocks = |cap: u64| (cap as f64 * 1.07 / CHUNK as f64 / 64.0).ceil() as u64;
    // The scan's first-tag reads grow with the device; the data read does not.
    assert!(big > small, "{pages:?}");
    assert!(
        big - small >= blocks(1 << 30) - blocks(256 << 20) - 2,
        "{pages:?}"
    );
    assert!(ckpt < big / 4, "{pages:?}");
}

#[test]
fn full_device_reports_no_space_and_stays_consistent() {
    let mut fs = small_fs(1 << 20, false);
    fs.exec(&op(K::Create, "/big", 0, 0), 0).unwrap();
    let mut off = 0;
    let err = loop {
        match fs.exec(&op(K::Write, "/big", off, 64 << 10), 0) {
            Ok(_) => off += 64 << 10,
            Err(e) => break e,
        }
    };
    assert!(matches!(err, FsError::NoSpace { .. }), "{err}");
    fs.check_invariants();
    // Space comes back after a truncate.
    fs.exec(&op(K::Truncate, "/big", 0, 0), 0).unwrap();
    fs.exec(&op(K::Write, "/big", 0, 256 << 10), 0).unwrap();
    fs.check_invariants();
}
