//! Flexible Data Placement in the page FTL (crates/core/src/ftl/page_fdp.rs), driven
//! through the FTL API (`set_placement` once per command, then the command's writes):
//! hand-computed write amplification, isolation of persistently isolated handles through
//! GC, invalid identifiers, reclaim groups, no change without identifiers, and the
//! reference model with placements drawn at random.

mod common;
mod ftl_model;

use ssdlab::fdp::{FdpConfig, FdpReport, Isolation};
use ssdlab::ftl::gc::GcPolicyKind;
use ssdlab::ftl::{Ftl, FtlConfig, build_ftl};
use ssdlab::nand::{BlockId, Geometry, Lpn, Nand, Ppn};

use Isolation::{InitiallyIsolated as II, PersistentlyIsolated as PI};

fn fdp_cfg(handles: Vec<Isolation>) -> FtlConfig {
    FtlConfig {
        fdp: FdpConfig {
            enabled: true,
            handles,
            ..FdpConfig::default()
        },
        ..FtlConfig::default()
    }
}

fn planes(channels: u32, blocks: u32, pages: u32) -> Geometry {
    Geometry {
        channels,
        ..common::one_plane(blocks, pages)
    }
}

/// One command: its placement, then its page writes.
fn command(ftl: &mut dyn Ftl, nand: &mut Nand, pid: Option<u16>, lpns: &[u32]) {
    ftl.set_placement(0, pid);
    for &l in lpns {
        ftl.write(Lpn(l), nand).unwrap();
    }
}

/// A tiny deterministic generator (xorshift64*), so a failing seed replays exactly.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Hot handle 0 rewrites 2 blocks' worth of pages in order, cold handle 1 rewrites 6
/// blocks' worth in order, three hot commands per cold one.
fn hot_and_cold(ftl: &mut dyn Ftl, nand: &mut Nand, placed: bool, rounds: u32) {
    let (hot, cold) = (16u32, 48u32);
    let (mut h, mut c) = (0u32, 0u32);
    for _ in 0..rounds {
        for _ in 0..3 {
            command(ftl, nand, placed.then_some(0), &[h]);
            h = (h + 1) % hot;
        }
        command(ftl, nand, placed.then_some(1), &[hot + c]);
        c = (c + 1) % cold;
    }
}

#[test]
fn waf_is_one_when_each_reclaim_unit_dies_whole() {
    // One plane of 16 blocks × 8 pages, 64 logical pages: a reclaim unit is one block.
    // Each handle rewrites its range in order and its ranges are whole blocks, so with
    // the handles apart every block dies whole before GC takes it: no copies at all,
    // media bytes = host bytes, WAF = 1 exactly. Mixed in one frontier (no FDP) a block
    // holds three hot pages per cold one, and the cold ones must be copied.
    let geo = common::one_plane(16, 8);
    let rounds = 4000;
    let mut nand = Nand::new(geo, 1_000_000, false, true);
    let mut ftl = build_ftl(&fdp_cfg(vec![II, II]), &geo, 64, 1).unwrap();
    hot_and_cold(ftl.as_mut(), &mut nand, true, rounds);
    ftl.check_invariants(&nand);
    let r: FdpReport = ftl.fdp_report().expect("FDP on");
    let host = rounds as u64 * 4 * 4096;
    assert_eq!(r.host_bytes_written, host);
    assert_eq!(r.media_bytes_written, host, "no GC copies");
    assert_eq!(r.waf, 1.0);
    assert_eq!(r.handles[0].host_bytes_written, rounds as u64 * 3 * 4096);
    assert_eq!(r.handles[1].host_bytes_written, rounds as u64 * 4096);
    assert_eq!(nand.counters().copies.iter().sum::<u64>(), 0);
    let erases: u64 = nand.erase_counts().iter().map(|&e| e as u64).sum();
    assert!(erases > 0, "GC ran");
    assert_eq!(r.media_bytes_erased, erases * 8 * 4096);
    assert_eq!(
        r.events["media_reallocated"], 0,
        "no victim held valid data"
    );

    let mut plain_nand = Nand::new(geo, 1_000_000, false, true);
    let mut plain = build_ftl(&FtlConfig::default(), &geo, 64, 1).unwrap();
    hot_and_cold(plain.as_mut(), &mut plain_nand, false, rounds);
    assert!(plain.fdp_report().is_none());
    let copies: u64 = plain_nand.counters().copies.iter().sum();
    assert!(copies > rounds as u64 / 10, "mixed: {copies} copies");
}

/// Logical pages of each handle in the isolation test: handle h owns `h*32 .. h*32+32`.
fn owner(lpn: u32) -> u32 {
    lpn / 32
}

/// Random overwrites of three handles' ranges (handle 0 hottest), then every block's
/// written pages: the set of handles whose data each block holds.
fn block_owners(handles: Vec<Isolation>, seed: u64) -> Vec<Vec<u32>> {
    let geo = planes(2, 16, 8);
    let mut nand = Nand::new(geo, 1_000_000, false, true);
    let cfg = FtlConfig {
        gc: GcPolicyKind::Greedy,
        ..fdp_cfg(handles)
    };
    let mut ftl = build_ftl(&cfg, &geo, 96, seed).unwrap();
    let mut rng = Rng(seed | 1);
    for _ in 0..30_000 {
        let h = [0, 0, 0, 1, 2][rng.below(5) as usize];
        let n = 1 + rng.below(3) as u32;
        let lpns: Vec<u32> = (0..n).map(|_| h * 32 + rng.below(32) as u32).collect();
        command(ftl.as_mut(), &mut nand, Some(h as u16), &lpns);
    }
    ftl.check_invariants(&nand);
    owners_by_block(&nand)
}

/// Every block's written pages: the set of handles ([`owner`]) whose data it holds.
fn owners_by_block(nand: &Nand) -> Vec<Vec<u32>> {
    let geo = *nand.geometry();
    let np = geo.pages_per_block;
    (0..geo.blocks())
        .map(|b| {
            let mut owners: Vec<u32> = (0..nand.write_ptr(BlockId(b)))
                .map(|p| owner(nand.oob(Ppn(b * np + p)).lpn.0))
                .collect();
            owners.sort();
            owners.dedup();
            owners
        })
        .collect()
}

#[test]
fn gc_never_mixes_a_persistently_isolated_handles_data() {
    // Handle 0 persistently isolated, 1 and 2 initially isolated: no block ever holds
    // handle 0's data beside another's, while GC does mix 1's and 2's.
    let seed = 0x05ee_dfd9;
    println!("seed {seed:#x}");
    let owners = block_owners(vec![PI, II, II], seed);
    for (b, o) in owners.iter().enumerate() {
        assert!(
            !(o.contains(&0) && o.len() > 1),
            "block {b} holds handles {o:?}"
        );
    }
    assert!(
        owners.iter().any(|o| o == &[1, 2]),
        "initially isolated handles' GC data shares blocks"
    );
    // The same check fails when handle 0 is initially isolated too: it can fail.
    let mixed = block_owners(vec![II, II, II], seed);
    assert!(
        mixed.iter().any(|o| o.contains(&0) && o.len() > 1),
        "initially isolated: GC mixes handle 0 with others"
    );
}

#[test]
fn an_invalid_identifier_writes_through_handle_zero_and_is_logged_once_per_command() {
    let geo = common::one_plane(32, 8);
    let mut nand = Nand::new(geo, 1_000_000, false, true);
    let mut ftl = build_ftl(&fdp_cfg(vec![II, PI]), &geo, 64, 1).unwrap();
    command(ftl.as_mut(), &mut nand, Some(1), &[0, 1]);
    command(ftl.as_mut(), &mut nand, Some(7), &[2, 3, 4]);
    command(ftl.as_mut(), &mut nand, None, &[5]);
    let r = ftl.fdp_report().unwrap();
    assert_eq!(r.events["invalid_placement_identifier"], 1);
    assert_eq!(r.handles[0].host_bytes_written, 4 * 4096);
    assert_eq!(r.handles[1].host_bytes_written, 2 * 4096);
    assert_eq!(r.handles[1].isolation, Some(PI));
    assert_eq!(r.namespaces.len(), 1);
    assert_eq!(r.namespaces[0].index, 1, "NSID 1");
    // Pages 2..=4 sit with page 5 (handle 0), not with 0 and 1 (handle 1).
    let block = |l: u32| nand.geometry().block_of(ftl.lookup(Lpn(l), &nand).unwrap());
    assert_eq!(block(2), block(5));
    assert_ne!(block(2), block(0));
}

#[test]
fn a_reclaim_group_keeps_its_writes_on_its_dies() {
    // Four dies (one plane each) in two groups: group 0 = planes 0, 1; group 1 = 2, 3.
    let geo = planes(4, 32, 8);
    let mut cfg = fdp_cfg(vec![II, II]);
    cfg.fdp.reclaim_groups = 2;
    let mut nand = Nand::new(geo, 1_000_000, false, true);
    let mut ftl = build_ftl(&cfg, &geo, 256, 1).unwrap();
    // Two groups take the identifier's top bit.
    command(
        ftl.as_mut(),
        &mut nand,
        Some(0x8001),
        &(0..40).collect::<Vec<_>>(),
    );
    command(
        ftl.as_mut(),
        &mut nand,
        Some(0x0000),
        &(40..80).collect::<Vec<_>>(),
    );
    let plane = |l: u32| {
        let b = nand.geometry().block_of(ftl.lookup(Lpn(l), &nand).unwrap());
        b.0 / geo.blocks_per_plane
    };
    assert!((0..40).all(|l| plane(l) >= 2));
    assert!((40..80).all(|l| plane(l) < 2));
    // Both planes of a group are used in turn.
    assert_ne!(plane(0), plane(1));
    ftl.check_invariants(&nand);
    // A unit size that is not whole superblocks of the group, and a group count that
    // does not divide the dies, are refused naming the key.
    cfg.fdp.ru_size = ssdlab::units::Size(3 * 8 * 4096);
    let e = build_ftl(&cfg, &geo, 256, 1).err().unwrap().to_string();
    assert!(e.contains("ftl.fdp.ru_size"), "{e}");
    cfg.fdp.ru_size = ssdlab::units::Size(0);
    cfg.fdp.reclaim_groups = 3;
    let e = build_ftl(&cfg, &geo, 256, 1).err().unwrap().to_string();
    assert!(e.contains("ftl.fdp.reclaim_groups"), "{e}");
}

#[test]
fn without_placement_identifiers_fdp_changes_nothing() {
    // FDP on with its eight default handles but no identifier ever given: every write
    // goes through handle 0 and GC copies to the shared GC frontier, the plain page FTL's
    // host and hot/cold GC frontiers, opened in the same order from the same pools.
    let geo = planes(2, 64, 8);
    for gc in [GcPolicyKind::Greedy, GcPolicyKind::CostBenefit] {
        let run = |cfg: FtlConfig| {
            let mut nand = Nand::new(geo, 1_000_000, false, true);
            let mut ftl = build_ftl(&cfg, &geo, 512, 9).unwrap();
            let mut rng = Rng(42);
            for i in 0..40_000u64 {
                let l = if i < 512 {
                    i as u32
                } else {
                    let range = if rng.below(4) == 0 { 512 } else { 64 };
                    rng.below(range) as u32
                };
                ftl.write(Lpn(l), &mut nand).unwrap();
            }
            ftl.check_invariants(&nand);
            (*nand.counters(), nand.erase_counts())
        };
        let plain = run(FtlConfig {
            gc,
            ..FtlConfig::default()
        });
        let fdp = run(FtlConfig {
            gc,
            ..fdp_cfg(vec![II; 8])
        });
        assert!(plain.0.copies.iter().sum::<u64>() > 0, "GC ran");
        assert_eq!(plain.0, fdp.0, "{gc:?}: NAND counters");
        assert_eq!(plain.1, fdp.1, "{gc:?}: erase counts");
    }
}

#[test]
fn the_reference_model_agrees_with_fdp_on() {
    // Seeded swarm: random writes, reads, trims and placements (valid and invalid
    // identifiers, two namespaces) on tiny geometries, every GC policy, with and
    // without static wear leveling; SSDLAB_FDP_SEED replays one seed.
    let base: u64 = std::env::var("SSDLAB_FDP_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0xfd9_2026);
    println!("seed {base}");
    let geos = [common::one_plane(24, 8), planes(2, 20, 4)];
    let layouts = [vec![II, PI, II], vec![PI, PI], vec![II]];
    for round in 0..6u64 {
        let seed = base.wrapping_add(round);
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let logical = 64u32;
        let mut ops = Vec::new();
        for _ in 0..2500 {
            let l = if rng.below(4) == 0 {
                rng.below(8) as u32
            } else {
                rng.below(logical as u64) as u32
            };
            ops.push(match rng.below(20) {
                0..=10 => ftl_model::Op::Write(l),
                11..=15 => ftl_model::Op::Read(l),
                16 => ftl_model::Op::Trim(l),
                _ => ftl_model::Op::Place(
                    rng.below(2) as u32,
                    match rng.below(6) {
                        0 => None,
                        1 => Some(rng.below(1 << 16) as u16),
                        k => Some(k as u16 - 2),
                    },
                ),
            });
        }
        let layout = &layouts[(round % 3) as usize];
        for &(gc, _, _) in GcPolicyKind::all() {
            for static_wl in [0, 2] {
                let cfg = FtlConfig {
                    gc,
                    gc_d: 3,
                    static_wl_threshold: static_wl,
                    static_wl_check_erases: 3,
                    ..fdp_cfg(layout.clone())
                };
                for geo in &geos {
                    ftl_model::run(&cfg, geo, logical, &ops)
                        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
                }
            }
        }
    }
}

#[test]
fn fdp_settings_are_checked_before_any_run() {
    let run = |extra: &[&str]| {
        let mut a = vec![
            "run",
            "--preset",
            "android-emmc",
            "--capacity",
            "64MiB",
            "--workload",
            "random-write",
            "--requests",
            "100",
        ];
        a.extend_from_slice(extra);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--ftl", "dftl", "--set", "ftl.fdp.enabled=true"],
            &["ftl.fdp", "page"],
        ),
        (
            &[
                "--set",
                "ftl.fdp.enabled=true",
                "--set",
                "ftl.placement=by-address",
                "--mgmt-block",
                "16KiB",
            ],
            &["ftl.placement", "write-order"],
        ),
        (
            &[
                "--set",
                "ftl.fdp.enabled=true",
                "--set",
                "ftl.fdp.reclaim_groups=3",
            ],
            &["ftl.fdp.reclaim_groups", "divisor"],
        ),
        (
            &["--set", "ftl.fdp.reclaim_groups=0"],
            &["ftl.fdp.reclaim_groups"],
        ),
        (&["--set", "ftl.fdp.handles=[]"], &["ftl.fdp.handles"]),
        (
            &[
                "--set",
                "ftl.fdp.enabled=true",
                "--buffer",
                "bplru",
                "--set",
                "buffer.size=1MiB",
            ],
            &["ftl.fdp.enabled", "bplru_padding"],
        ),
        (
            &["--set", "ftl.fdp.handles=[\"hot\"]"],
            &["ftl.fdp.handles", "persistently-isolated"],
        ),
    ];
    for (extra, names) in cases {
        let args = run(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        common::refused(&args, names);
    }
}

#[test]
fn the_report_has_an_fdp_section_only_with_fdp_on() {
    let section = |extra: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("r.json");
        let json_s = json.display().to_string();
        let mut a = vec![
            "run",
            "--preset",
            "android-emmc",
            "--capacity",
            "64MiB",
            "--workload",
            "random-write",
            "--requests",
            "2k",
            "--json",
            &json_s,
        ];
        a.extend_from_slice(extra);
        let o = common::ssdlab(&a);
        assert!(o.status.success(), "{}", common::stderr(&o));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (
            v.get("fdp").cloned(),
            v["config"]["ftl"].get("fdp").cloned(),
        )
    };
    assert_eq!(section(&[]), (None, None));
    let (fdp, cfg) = section(&["--set", "ftl.fdp.enabled=true"]);
    let fdp = fdp.expect("an fdp section");
    assert_eq!(fdp["handles"].as_array().unwrap().len(), 8);
    assert!(fdp["host_bytes_written"].as_u64().unwrap() > 0);
    assert_eq!(fdp["events"]["invalid_placement_identifier"], 0);
    assert_eq!(cfg.unwrap()["enabled"], true);
}

/// `[[namespace]] placement_handles` and `placement`: a namespace's writes without an
/// identifier take its default, which indexes its own handle list. Two namespaces write
/// the same amount; `a` lists handles [2, 0] with default 0 (→ handle 2), `b` has every
/// handle and default 1 (→ handle 1), so handles 2 and 1 carry all host bytes, half each.
/// Before these keys existed the run was refused (unknown field) and, with the keys
/// ignored, every write went to handle 0.
#[test]
fn a_namespace_default_placement_indexes_its_handle_list() {
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("ns.toml");
    let json = dir.path().join("r.json");
    let design = |a_extra: &str, b_extra: &str| {
        format!(
            "seed = 1\n[device]\ncapacity = \"256MiB\"\n[buffer]\nname = \"none\"\n\
             [ftl]\nname = \"page\"\n[ftl.fdp]\nenabled = true\n\
             handles = [\"initially-isolated\", \"initially-isolated\", \"persistently-isolated\"]\n\
             [workload]\nkind = \"seq-write\"\nrequests = 1000\nsize = \"16KiB\"\n\
             [[namespace]]\nname = \"a\"\nshare = 0.5\n{a_extra}\n\
             [[namespace]]\nname = \"b\"\nshare = 0.5\n{b_extra}\n"
        )
    };
    std::fs::write(
        &toml,
        design("placement_handles = [2, 0]\nplacement = 0", "placement = 1"),
    )
    .unwrap();
    let (t, j) = (toml.display().to_string(), json.display().to_string());
    let o = common::ssdlab(&["run", "--config", &t, "--json", &j]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let by: Vec<u64> = r["fdp"]["handles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["host_bytes_written"].as_u64().unwrap())
        .collect();
    assert_eq!(by[0], 0, "{by:?}");
    assert!(by[1] > 0 && by[1] == by[2], "{by:?}");
    assert_eq!(
        r["fdp"]["events"]["invalid_placement_identifier"]
            .as_u64()
            .unwrap_or(0),
        0
    );
    // Refused before any work, naming the key.
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "placement_handles = [3]",
            "",
            &["namespace[0].placement_handles", "below 3"],
        ),
        (
            "placement_handles = [1, 1]",
            "",
            &["namespace[0].placement_handles", "distinct"],
        ),
        (
            "placement_handles = []",
            "",
            &["namespace[0].placement_handles"],
        ),
        (
            "placement_handles = [2]\nplacement = 1",
            "",
            &["namespace[0].placement", "1 placement"],
        ),
        ("", "placement = 3", &["namespace[1].placement"]),
    ];
    for (a, b, names) in cases {
        std::fs::write(&toml, design(a, b)).unwrap();
        common::refused(&["run", "--config", &t], names);
    }
    std::fs::write(
        &toml,
        design("placement = 0", "").replace("enabled = true", "enabled = false"),
    )
    .unwrap();
    common::refused(
        &["run", "--config", &t],
        &["namespace[0].placement", "ftl.fdp.enabled"],
    );
}

/// Random overwrites of three handles' ranges through the device with a write buffer of
/// `buffer` (LRU, 6 pages), every handle persistently isolated: the set of handles
/// whose data each block holds.
fn buffered_block_owners(buffer: &str, seed: u64) -> Vec<Vec<u32>> {
    use ssdlab::buffer::BufferKind;
    use ssdlab::config::Config;
    use ssdlab::sim::Device;
    use ssdlab::units::Size;
    use ssdlab::workload::{IoRequest, OpKind};
    let mut c = Config::default();
    c.device.capacity = Size(96 * 4096);
    c.device.op_percent = 100.0 * (256.0 - 96.0) / 96.0; // 256 physical pages
    c.device.pages_per_block = Some(8);
    c.device.channels = 2;
    c.device.chips_per_channel = 1;
    c.device.dies_per_chip = 1;
    c.device.planes_per_die = 1;
    c.ftl = FtlConfig {
        gc: GcPolicyKind::Greedy,
        ..fdp_cfg(vec![PI, PI, PI])
    };
    c.buffer.name = BufferKind::from_name(buffer).unwrap();
    c.buffer.size = Some(Size(6 * 4096));
    // Padding would rewrite pages whose identifier the buffer does not hold (refused).
    c.buffer.bplru_padding = false;
    let mut dev = Device::new(&c).unwrap();
    let mut rng = Rng(seed | 1);
    for _ in 0..20_000 {
        let h = [0, 0, 0, 1, 2][rng.below(5) as usize];
        let l = h * 32 + rng.below(32) as u32;
        let mut req = IoRequest::new(OpKind::Write, l as u64 * 4096, 4096);
        req.placement = Some(h as u16);
        dev.submit(&req, 0).unwrap();
    }
    dev.submit(&IoRequest::new(OpKind::Flush, 0, 0), 0).unwrap();
    dev.ftl.check_invariants(&dev.nand);
    owners_by_block(&dev.nand)
}

#[test]
fn a_write_buffer_keeps_each_pages_placement_identifier() {
    // The buffer writes a page back when a later request evicts it; the page must go to
    // the handle of the write it holds. Before the buffer kept identifiers per page, FDP
    // with a buffer was refused: written back under the evicting request's handle, the
    // persistently isolated handles' data shared blocks.
    let seed = 0x0b0f_fe12;
    println!("seed {seed:#x}");
    for buffer in ["lru", "bplru"] {
        let owners = buffered_block_owners(buffer, seed);
        for (b, o) in owners.iter().enumerate() {
            assert!(o.len() <= 1, "{buffer}: block {b} holds handles {o:?}");
        }
        assert!(
            owners.iter().filter(|o| !o.is_empty()).count() > 3,
            "{buffer}: data was written"
        );
    }
}
