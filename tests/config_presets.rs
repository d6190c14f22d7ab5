//! Every preset with every FTL loads and validates at its default capacity: a preset's
//! settings for the page FTL never break another FTL (they are noted, not refused), and
//! `--preset ssd-a --ftl bast` runs out of the box.

use ssdlab::config::{Config, PRESETS};
use ssdlab::ftl::FtlKind;
use ssdlab::sim::{RunOptions, run};

fn with_ftl(preset: &str, ftl: &str, extra: &str) -> Config {
    let text = format!("[ftl]\nname = \"{ftl}\"\n{extra}");
    let t: toml::Table = toml::from_str(&text).unwrap();
    Config::load_with(Some(preset), None, t).unwrap()
}

#[test]
fn every_preset_validates_with_every_ftl() {
    for (preset, _) in PRESETS {
        for &(kind, ftl, _) in FtlKind::all() {
            let c = with_ftl(preset, ftl, "");
            let d = c
                .validate()
                .unwrap_or_else(|e| panic!("--preset {preset} --ftl {ftl}: {e}"));
            if kind != FtlKind::Page && (*preset == "ssd-a" || *preset == "ssd-b") {
                assert!(
                    d.notes.iter().any(|n| n.contains("ftl.placement")),
                    "{preset} {ftl}: {:?}",
                    d.notes
                );
            }
        }
    }
}

#[test]
fn ssd_b_keeps_its_superblock_for_log_block_ftls() {
    let d = with_ftl("ssd-b", "fast", "").validate().unwrap();
    assert_eq!(d.superblock.as_ref().map(|s| s.blocks()), Some(8));
    let d = with_ftl("ssd-b", "page", "").validate().unwrap();
    assert_eq!(d.mgmt_block_pages, 512);
    assert!(d.superblock.is_none());
}

#[test]
fn ssd_a_runs_bast_out_of_the_box() {
    let c = with_ftl(
        "ssd-a",
        "bast",
        "[workload]\nkind = \"random-write\"\nspan = \"256MiB\"\nrequests = 2000\n",
    );
    let out = run(&c, RunOptions::default()).expect("ssd-a with bast runs");
    assert!(
        out.report
            .notes
            .iter()
            .any(|w| w.contains("ftl.mgmt_block")),
        "{:?}",
        out.report.notes
    );
}

#[test]
fn a_user_setting_that_the_preset_also_sets_differently_is_refused() {
    // The preset's by-address placement is noted for bast; the user's one-channel is not
    // the preset's and means nothing without a superblock.
    let e = with_ftl("ssd-a", "bast", "channel_placement = \"one-channel\"\n")
        .validate()
        .unwrap_err();
    assert_eq!(e.key(), Some("ftl.channel_placement"), "{e}");
}

/// A preset's key for other FTLs is information, not a problem with the run: the report
/// lists it under notes and keeps its warnings for what the user should act on.
#[test]
fn preset_knobs_another_ftl_ignores_are_notes_not_warnings() {
    let c = with_ftl(
        "ssd-b",
        "page",
        "[device]\ncapacity = \"256MiB\"\n[workload]\nkind = \"seq-write\"\nrequests = 64\n",
    );
    let out = run(&c, RunOptions::default()).unwrap();
    let r = &out.report;
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("comes from preset ssd-b")),
        "{:?}",
        r.notes
    );
    assert!(
        !r.warnings.iter().any(|w| w.contains("comes from preset")),
        "{:?}",
        r.warnings
    );
}
