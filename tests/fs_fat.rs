//! The FAT file system against a reference model and hand-computed cases.
//!
//! The model test replays random file operations (seeded; the seed and step are printed
//! on failure) through FAT16 and FAT32 volumes of several cluster sizes, and applies the
//! block requests each operation sends to a sector store: a data write stamps each
//! sector with (file, file sector, write version), a metadata write with "metadata",
//! a trim clears it. Reads must find every sector of the range stamped as the model
//! says, and so must every file read back whole at checkpoints: a data write landing
//! in the wrong place, or metadata written over live data, fails it. The FAT chains,
//! free count and directory slots are checked against the file tree at the same points.

mod common;

use common::{json_designs, ssdlab, stderr};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab::config::fs::FsKind;
use ssdlab::config::fs::{FatConfig, FatTypeChoice};
use ssdlab::config::{Config, Design, TimingMode};
use ssdlab::fs::fat::{Fat, FatLayout, FatType, lfn_entries};
use ssdlab::fs::{FileOp, FileOpKind as K, FileSystem};
use ssdlab::units::Size;
use ssdlab::workload::{IoRequest, OpKind};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

const SECTOR: u64 = 512;

fn design(capacity: u64, fat: FatConfig) -> Design {
    let mut c = Config::load(Some("android-emmc"), None).unwrap();
    c.device.capacity = Size(capacity);
    c.timing.mode = TimingMode::Count;
    c.fs.name = FsKind::Fat;
    c.fs.fat = fat;
    c.validate_device().unwrap()
}

fn op(kind: K, path: &str, off: u64, len: u64) -> FileOp {
    FileOp::new(kind, &Arc::from(path), off, len)
}

/// What a sector holds, as the requests sent so far left it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stamp {
    /// File `uid`'s sector `index`, written by write version `version`.
    Data {
        uid: u64,
        index: u64,
        version: u64,
    },
    Meta,
}

#[derive(Clone, Debug)]
struct File {
    uid: u64,
    size: u64,
    /// Write version of each sector below the size.
    versions: Vec<u64>,
}

#[derive(Default)]
struct Model {
    files: BTreeMap<String, File>,
    dirs: BTreeSet<String>,
    next_uid: u64,
    version: u64,
    names: u64,
}

impl Model {
    fn bytes(&self) -> u64 {
        self.files.values().map(|f| f.size).sum()
    }

    /// Sectors `start..end` of the file written by the next version.
    fn stamp(f: &mut File, start: u64, end: u64, version: u64) {
        let (s0, s1) = (start / SECTOR, end.div_ceil(SECTOR));
        if f.versions.len() < s1 as usize {
            f.versions.resize(s1 as usize, 0);
        }
        for v in &mut f.versions[s0 as usize..s1 as usize] {
            *v = version;
        }
        f.size = f.size.max(end);
    }

    /// Applies `o`; returns the file sectors the data writes cover (first, count).
    fn apply(&mut self, o: &FileOp) -> (u64, u64) {
        let p = o.path.to_string();
        match o.kind {
            K::Create => {
                self.next_uid += 1;
                let f = File {
                    uid: self.next_uid,
                    size: 0,
                    versions: Vec::new(),
                };
                self.files.insert(p, f);
            }
            K::Mkdir => {
                self.dirs.insert(p);
            }
            K::Write if o.len_bytes > 0 => {
                self.version += 1;
                let f = self.files.get_mut(&p).unwrap();
                let start = o.offset_bytes.min(f.size);
                let end = o.offset_bytes + o.len_bytes;
                Model::stamp(f, start, end, self.version);
                return (start / SECTOR, end.div_ceil(SECTOR) - start / SECTOR);
            }
            K::Truncate => {
                let f = self.files.get_mut(&p).unwrap();
                let new = o.offset_bytes;
                if new > f.size {
                    self.version += 1;
                    let start = f.size;
                    Model::stamp(f, start, new, self.version);
                    return (start / SECTOR, new.div_ceil(SECTOR) - start / SECTOR);
                }
                f.size = new;
                f.versions.truncate(new.div_ceil(SECTOR) as usize);
            }
            K::Unlink => {
                self.files.remove(&p);
            }
            K::Rename => {
                let to = o.to.as_ref().unwrap().to_string();
                if let Some(f) = self.files.remove(&p) {
                    self.files.insert(to, f);
                } else {
                    // A directory: everything under it moves.
                    let moved: Vec<String> = self
                        .files
                        .keys()
                        .chain(self.dirs.iter())
                        .filter(|k| k.starts_with(&format!("{p}/")) || **k == p)
                        .cloned()
                        .collect();
                    for k in moved {
                        let nk = format!("{to}{}", &k[p.len()..]);
                        if let Some(f) = self.files.remove(&k) {
                            self.files.insert(nk, f);
                        } else {
                            self.dirs.remove(&k);
                            self.dirs.insert(nk);
                        }
                    }
                }
            }
            _ => {}
        }
        (0, 0)
    }

    fn name(&mut self, rng: &mut Xoshiro256PlusPlus) -> String {
        self.names += 1;
        let n = self.names;
        match rng.gen_range(0..3) {
            0 => format!("f{n}"),
            1 => format!("F{n}.DAT"),
            _ => format!("a_rather_long_file_name_number_{n}.data"),
        }
    }

    fn random_op(&mut self, rng: &mut Xoshiro256PlusPlus, limit: u64) -> FileOp {
        let dirs: Vec<String> = std::iter::once(String::new())
            .chain(self.dirs.iter().cloned())
            .collect();
        let files: Vec<String> = self.files.keys().cloned().collect();
        let pick =
            |rng: &mut Xoshiro256PlusPlus, v: &[String]| v[rng.gen_range(0..v.len())].clone();
        let r = rng.gen_range(0..100);
        if files.is_empty() || r < 12 {
            let d = pick(rng, &dirs);
            let name = self.name(rng);
            return op(K::Create, &format!("{d}/{name}"), 0, 0);
        }
        if r < 15 && self.dirs.len() < 12 {
            let d = pick(rng, &dirs);
            let name = self.name(rng);
            return op(K::Mkdir, &format!("{d}/{name}"), 0, 0);
        }
        let f = pick(rng, &files);
        let size = self.files[&f].size;
        match r {
            15..=54 if self.bytes() < limit => {
                let off = match rng.gen_range(0..4) {
                    0 => size,
                    1 => size + rng.gen_range(0..9000),
                    _ => rng.gen_range(0..=size),
                };
                op(K::Write, &f, off, rng.gen_range(1..24_000))
            }
            15..=69 => {
                let off = rng.gen_range(0..=size);
                op(K::Read, &f, off, rng.gen_range(1..30_000))
            }
            70..=77 => {
                let new = if rng.gen_bool(0.7) || self.bytes() >= limit {
                    rng.gen_range(0..=size)
                } else {
                    size + rng.gen_range(1..10_000)
                };
                op(K::Truncate, &f, new, 0)
            }
            78..=85 => op(K::Unlink, &f, 0, 0),
            86..=93 => {
                let mut o = op(K::Rename, &f, 0, 0);
                let to = if rng.gen_bool(0.3) && files.len() > 1 {
                    pick(rng, &files)
                } else {
                    let d = pick(rng, &dirs);
                    let name = self.name(rng);
                    format!("{d}/{name}")
                };
                o.to = Some(to.into());
                o
            }
            94..=95 if !self.dirs.is_empty() => {
                // Move a directory whose new place is not inside itself.
                let d = pick(rng, &dirs[1..]);
                let parent = pick(rng, &dirs);
                if parent == d || parent.starts_with(&format!("{d}/")) {
                    return op(K::Fsync, &f, 0, 0);
                }
                let mut o = op(K::Rename, &d, 0, 0);
                let name = self.name(rng);
                o.to = Some(format!("{parent}/{name}").into());
                o
            }
            _ => op(K::Fsync, &f, 0, 0),
        }
    }
}

/// Applies `reqs` (the requests of one operation whose data writes cover
/// `data_count` file sectors from `first` of file `uid`, version `version`) to the
/// store; returns the sectors read, in order.
fn replay(
    store: &mut HashMap<u64, Stamp>,
    reqs: &[IoRequest],
    uid: u64,
    (first, data_count): (u64, u64),
    version: u64,
) -> Vec<u64> {
    let mut reads = Vec::new();
    let mut data_done = 0;
    for r in reqs {
        let (s0, n) = (r.offset_bytes / SECTOR, r.size_bytes / SECTOR);
        assert_eq!(r.offset_bytes % SECTOR, 0, "{r:?}");
        assert_eq!(r.size_bytes % SECTOR, 0, "{r:?}");
        for s in s0..s0 + n {
            match r.op {
                OpKind::Write if data_done < data_count => {
                    let index = first + data_done;
                    store.insert(
                        s,
                        Stamp::Data {
                            uid,
                            index,
                            version,
                        },
                    );
                    data_done += 1;
                }
                OpKind::Write => {
                    store.insert(s, Stamp::Meta);
                }
                OpKind::Trim => {
                    store.remove(&s);
                }
                OpKind::Read => reads.push(s),
                OpKind::Flush => {}
                op => panic!("FAT issued a zone operation {op:?}"),
            }
        }
    }
    assert_eq!(data_done, data_count, "data sectors written");
    reads
}

fn compare(fs: &Fat, m: &Model, store: &HashMap<u64, Stamp>, seed: u64, step: usize) {
    fs.check_structure();
    let tree = fs.tree();
    let files: BTreeMap<&String, u64> = tree
        .iter()
        .filter(|(_, v)| !v.0)
        .map(|(k, v)| (k, v.1))
        .collect();
    let want: BTreeMap<&String, u64> = m.files.iter().map(|(k, f)| (k, f.size)).collect();
    assert_eq!(files, want, "seed {seed} step {step}: files and sizes");
    let dirs: BTreeSet<&String> = tree.iter().filter(|(_, v)| v.0).map(|(k, _)| k).collect();
    assert_eq!(
        dirs,
        m.dirs.iter().collect(),
        "seed {seed} step {step}: directories"
    );
    let cb = fs.layout().cluster_bytes();
    for (p, f) in &m.files {
        let (_, size, chain) = &tree[p];
        assert_eq!(chain.len() as u64, size.div_ceil(cb), "{p}: clusters");
        if let Some(&c) = chain.first() {
            assert_eq!(
                &fs.fat_chain(c),
                chain,
                "seed {seed} step {step}: {p} FAT chain"
            );
        }
        let name = p.rsplit('/').next().unwrap();
        assert_eq!(
            fs.entry_sectors(p).len() as u64,
            1 + lfn_entries(name).unwrap(),
            "{p}: directory slots"
        );
        for (i, s) in fs.sectors_of(p, 0, f.size).into_iter().enumerate() {
            let want = Stamp::Data {
                uid: f.uid,
                index: i as u64,
                version: f.versions[i],
            };
            assert_eq!(
                store.get(&s),
                Some(&want),
                "seed {seed} step {step}: {p} sector {i} (device sector {s})"
            );
        }
    }
}

fn seed_config(seed: u64) -> FatConfig {
    let mut c = FatConfig {
        discard: seed % 2 == 1,
        ..FatConfig::default()
    };
    match seed % 4 {
        0 => {}
        1 => {
            c.fat_type = FatTypeChoice::Fat32;
            c.cluster_size = Some(Size(512));
        }
        2 => c.cluster_size = Some(Size(8192)),
        _ => {
            c.fat_type = FatTypeChoice::Fat32;
            c.cluster_size = Some(Size(4096));
        }
    }
    c
}

#[test]
fn random_operations_match_the_model_in_chains_entries_and_data() {
    let seeds: u64 = std::env::var("SSDLAB_FS_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    for seed in 0..seeds {
        let mut fs = Fat::mkfs(&design(64 << 20, seed_config(seed))).unwrap();
        let mut m = Model::default();
        let mut store = HashMap::new();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut reads = 0;
        for step in 0..3000 {
            let o = m.random_op(&mut rng, 12 << 20);
            let reqs = fs
                .trace_op(&o)
                .unwrap_or_else(|e| panic!("seed {seed} step {step}: {o:?}: {e}"));
            let uid = m.files.get(&*o.path).map_or(0, |f| f.uid);
            let span = m.apply(&o);
            let got = replay(&mut store, &reqs, uid, span, m.version);
            if o.kind == K::Read {
                // The data read back: each sector as the model's last write left it.
                let f = &m.files[&*o.path];
                let end = (o.offset_bytes + o.len_bytes).min(f.size);
                let want = fs.sectors_of(&o.path, o.offset_bytes, end - o.offset_bytes);
                assert_eq!(got, want, "seed {seed} step {step}: sectors read");
                for (k, s) in got.iter().enumerate() {
                    let i = o.offset_bytes / SECTOR + k as u64;
                    let stamp = Stamp::Data {
                        uid: f.uid,
                        index: i,
                        version: f.versions[i as usize],
                    };
                    assert_eq!(store.get(s), Some(&stamp), "seed {seed} step {step}: read");
                }
                reads += got.len();
            }
            if step % 101 == 0 {
                compare(&fs, &m, &store, seed, step);
            }
            if step % 250 == 0 {
                let reqs = fs.trace_sync();
                replay(&mut store, &reqs, 0, (0, 0), 0);
                assert!(fs.dirty_sectors().is_empty());
            }
        }
        let reqs = fs.trace_sync();
        replay(&mut store, &reqs, 0, (0, 0), 0);
        compare(&fs, &m, &store, seed, 3000);
        assert!(
            reads > 1000,
            "seed {seed}: the test read little ({reads} sectors)"
        );
        let mut c = ssdlab::spec::Counters::new();
        fs.counters(&mut c);
        assert!(c["fs.fat.lfn_entries"] > 0, "seed {seed}: {c:?}");
        assert!(
            c["fs.fat.zero_fill_sector_writes"] > 0,
            "seed {seed}: {c:?}"
        );
    }
}

#[test]
fn mkfs_picks_fat16_with_4k_clusters_for_256mib_and_fat32_with_4k_for_4gib() {
    // 256 MiB = 524,288 sectors (a multiple of the 32-sector track). 2 KiB clusters
    // (mkfs.fat's FAT16 start): 4 reserved, 32 root sectors, 524,252 for FATs and data;
    // (524,252·512 + 8) / (2,048 + 4) = 130,807 clusters > 65,524: doubled. 4 KiB: 8
    // reserved, 524,248 left; (524,248·512 + 8) / (4,096 + 4) = 65,467 clusters, FAT
    // of ⌈65,469·2 / 512⌉ = 256 sectors; (524,248 − 512) / 8 = 65,467 clusters.
    let l = FatLayout::for_volume(256 << 20, &FatConfig::default()).unwrap();
    assert_eq!(
        l,
        FatLayout {
            fat_type: FatType::Fat16,
            sectors: 524_288,
            sectors_per_cluster: 8,
            reserved_sectors: 8,
            fat_sectors: 256,
            root_dir_sectors: 32,
            clusters: 65_467,
        }
    );
    assert_eq!(l.data_start(), 8 + 2 * 256 + 32);
    // 4 GiB = 8,388,608 sectors: FAT32 (≥ 512 MiB), 8 sectors per cluster (260 MiB to
    // 8 GiB); rounded to the 63-sector track: 8,388,576. 32 reserved; (8,388,544·512 +
    // 16) / (4,096 + 8) = 1,046,524 clusters; FAT ⌈1,046,526·4 / 512⌉ = 8,176 sectors;
    // (8,388,544 − 16,352) / 8 = 1,046,524.
    let l = FatLayout::for_volume(4 << 30, &FatConfig::default()).unwrap();
    assert_eq!(
        l,
        FatLayout {
            fat_type: FatType::Fat32,
            sectors: 8_388_576,
            sectors_per_cluster: 8,
            reserved_sectors: 32,
            fat_sectors: 8176,
            root_dir_sectors: 0,
            clusters: 1_046_524,
        }
    );
    // The cluster size override, and what cannot be laid out.
    let c = FatConfig {
        cluster_size: Some(Size(16 << 10)),
        ..FatConfig::default()
    };
    let l = FatLayout::for_volume(256 << 20, &c).unwrap();
    assert_eq!(l.sectors_per_cluster, 32);
    let e = FatLayout::for_volume(4 << 20, &FatConfig::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("FAT12"), "{e}");
    let c = FatConfig {
        fat_type: FatTypeChoice::Fat16,
        cluster_size: Some(Size(512)),
        ..FatConfig::default()
    };
    let e = FatLayout::for_volume(256 << 20, &c)
        .unwrap_err()
        .to_string();
    assert!(e.contains("fs.fat.cluster_size"), "{e}");
}

#[test]
fn a_three_cluster_write_sends_its_clusters_and_dirties_two_fat_sectors_and_the_entry() {
    // 64 MiB: FAT16 with 2 KiB clusters (4 sectors): reserved 0..4, FAT copies 4..132
    // and 132..260, root directory 260..292, cluster 2 at 292.
    let mut fs = Fat::mkfs(&design(64 << 20, FatConfig::default())).unwrap();
    let l = *fs.layout();
    assert_eq!(
        (
            l.fat_type,
            l.sectors_per_cluster,
            l.reserved_sectors,
            l.fat_sectors
        ),
        (FatType::Fat16, 4, 4, 128)
    );
    assert_eq!(l.data_start(), 292);
    // An upper-case 8.3 name: one entry, root slot 0 = sector 260.
    assert!(
        fs.trace_op(&op(K::Create, "/DATA.BIN", 0, 0))
            .unwrap()
            .is_empty()
    );
    assert_eq!(fs.entry_sectors("/DATA.BIN"), [260]);
    // 3 clusters: the first free after cluster 2 (the hint mkfs leaves) are 3, 4, 5 =
    // sectors 296..308, one request.
    let reqs = fs.trace_op(&op(K::Write, "/DATA.BIN", 0, 6144)).unwrap();
    let w = |s: u64, n: u64| (OpKind::Write, s * 512, n * 512);
    let got: Vec<_> = reqs
        .iter()
        .map(|r| (r.op, r.offset_bytes, r.size_bytes))
        .collect();
    assert_eq!(got, [w(296, 12)]);
    assert_eq!(fs.tree()["/DATA.BIN"].2, [3, 4, 5]);
    // Entries 3..5 (2 bytes each) lie in the first sector of each FAT copy; the entry
    // (size, first cluster, mtime) in root sector 260.
    assert_eq!(fs.dirty_sectors(), [4, 132, 260]);
    let reqs = fs.trace_op(&op(K::Fsync, "/DATA.BIN", 0, 0)).unwrap();
    let got: Vec<_> = reqs
        .iter()
        .map(|r| (r.op, r.offset_bytes, r.size_bytes))
        .collect();
    assert_eq!(got, [w(4, 1), w(132, 1), w(260, 1), (OpKind::Flush, 0, 0)]);
    // A second file's first write goes right after: cluster 6, sector 308.
    fs.trace_op(&op(K::Create, "/b", 0, 0)).unwrap();
    let reqs = fs.trace_op(&op(K::Write, "/b", 0, 100)).unwrap();
    assert_eq!(
        reqs.iter()
            .map(|r| (r.op, r.offset_bytes, r.size_bytes))
            .collect::<Vec<_>>(),
        [w(308, 1)]
    );
    // "b" is lower case: a long-name entry and the 8.3 entry, root slots 1 and 2.
    assert_eq!(fs.entry_sectors("/b"), [260, 260]);
    // Deleting frees the chain: FAT entries zeroed in both copies, slot marked deleted.
    let free = fs.free_clusters();
    fs.trace_op(&op(K::Unlink, "/DATA.BIN", 0, 0)).unwrap();
    assert_eq!(fs.free_clusters(), free + 3);
    assert_eq!(fs.dirty_sectors(), [4, 132, 260]);
    fs.check();
}

#[test]
fn long_names_take_one_entry_per_13_characters() {
    assert_eq!(lfn_entries("DATA.BIN"), Some(0), "upper-case 8.3: none");
    assert_eq!(lfn_entries("README"), Some(0));
    assert_eq!(
        lfn_entries("data.bin"),
        Some(1),
        "lower case: vfat adds a long name"
    );
    assert_eq!(lfn_entries("Makefile"), Some(1));
    assert_eq!(
        lfn_entries("ABCDEFGHI.TXT"),
        Some(1),
        "base past 8: 13 units, 1 entry"
    );
    assert_eq!(
        lfn_entries("ABCDEFGHIJ.TXT"),
        Some(2),
        "14 units: 2 entries"
    );
    assert_eq!(lfn_entries("A.B.C"), Some(1), "two dots");
    assert_eq!(
        lfn_entries("a-much-longer-file-name.txt"),
        Some(3),
        "27 units"
    );
    assert_eq!(lfn_entries(&"x".repeat(255)), Some(20));
    assert_eq!(lfn_entries(&"x".repeat(256)), None);
    // Through the file system: 1 + 3 slots in a new directory's cluster (after "."
    // and ".."), rewriting 32-byte slots 2..6 of its first sector.
    let mut fs = Fat::mkfs(&design(64 << 20, FatConfig::default())).unwrap();
    fs.trace_op(&op(K::Mkdir, "/D", 0, 0)).unwrap();
    fs.trace_op(&op(K::Create, "/D/a-much-longer-file-name.txt", 0, 0))
        .unwrap();
    let s = fs.entry_sectors("/D/a-much-longer-file-name.txt");
    assert_eq!(s.len(), 4);
    let d = fs.tree()["/D"].2[0];
    assert!(
        s.iter().all(|&x| x == fs.layout().cluster_sector(d)),
        "{s:?}"
    );
    fs.check();
}

#[test]
fn a_full_fat16_root_and_a_full_volume_are_enospc() {
    let mut fs = Fat::mkfs(&design(64 << 20, FatConfig::default())).unwrap();
    for i in 0..512 {
        fs.trace_op(&op(K::Create, &format!("/F{i}"), 0, 0))
            .unwrap();
    }
    let e = fs.trace_op(&op(K::Create, "/F512", 0, 0)).unwrap_err();
    assert!(e.to_string().contains("root directory is full"), "{e}");
    // FAT32's root grows instead.
    let c = FatConfig {
        fat_type: FatTypeChoice::Fat32,
        ..FatConfig::default()
    };
    let mut fs = Fat::mkfs(&design(64 << 20, c)).unwrap();
    for i in 0..600 {
        fs.trace_op(&op(K::Create, &format!("/F{i}"), 0, 0))
            .unwrap();
    }
    fs.check();
    let free = fs.free_clusters() * fs.layout().cluster_bytes();
    fs.trace_op(&op(K::Create, "/big", 0, 0)).unwrap();
    let e = fs.trace_op(&op(K::Write, "/big", 0, free + 1)).unwrap_err();
    assert!(e.to_string().contains("no space"), "{e}");
}

#[test]
fn fat_runs_every_file_workload_over_nftl_aftl_and_cftl() {
    let base = [
        "run",
        "--preset",
        "android-emmc",
        "--capacity",
        "64MiB",
        "--span",
        "4MiB",
        "--fs",
        "fat",
        "--ftl",
        "nftl,aftl,cftl",
        "--set",
        "workload.andrew_files=50",
        "--set",
        "fs.postmark_files=100",
        "--set",
        "fs.postmark_transactions=300",
        "--json",
        "-",
    ];
    for w in ["andrew-file", "iozone-file", "postmark-file"] {
        let mut args = base.to_vec();
        args.extend(["--workload", w]);
        let (designs, names) = json_designs(&ssdlab(&args));
        assert_eq!(names, ["fat+nftl", "fat+aftl", "fat+cftl"], "{w}");
        for d in &designs {
            let c = &d["report"]["counters"];
            assert!(
                c["fs.fat.data_sector_writes"].as_u64().unwrap() > 0,
                "{w}: {c}"
            );
            assert!(
                c["fs.fat.fat_sector_writes"].as_u64().unwrap() > 0,
                "{w}: {c}"
            );
            assert_eq!(c["fs.fat.state.fat_bits"].as_u64(), Some(16), "{w}");
            assert!(d["report"]["host_write_pages"].as_u64().unwrap() > 0);
        }
    }
}

#[test]
fn a_bad_fat_key_names_the_key_and_what_was_expected() {
    for (set, want) in [
        (
            "fs.fat.cluster_size=3KiB",
            ["fs.fat.cluster_size", "power of two"],
        ),
        ("fs.fat.fat_type=fat12", ["fat_type", "fat12"]),
    ] {
        let args = [
            "run",
            "--fs",
            "fat",
            "--workload",
            "iozone-file",
            "--set",
            set,
        ];
        let o = ssdlab(&args);
        assert_eq!(o.status.code(), Some(2), "{set}");
        let e = stderr(&o);
        assert!(want.iter().all(|w| e.contains(w)), "{set}: {e}");
    }
}
