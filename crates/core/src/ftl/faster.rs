//! FASTer: S.-P. Lim, S.-W. Lee, B. Moon, "FASTer FTL for enterprise-class flash memory
//! SSDs", IEEE SNAPI 2010 — FAST (fast.rs) with a different reclaim of the oldest
//! random-write (RW) log block.
//!
//! ```text
//! reclaim(victim = oldest RW block):
//!   for each valid page p of the victim that already had its second chance:
//!       isolation on  → move p to the isolation log (cold pages); when that log is
//!                       full, reclaim its oldest block FAST-style (full merges)
//!       isolation off → full-merge p's logical block
//!   for each valid page p that has not had it: second chance — copy p to a new RW
//!       tail block and mark it (it lives one more lap of the log, so a warm page gets
//!       another chance to be overwritten before it forces a merge)
//!   erase the victim
//! ```
//! Everything else (in-place first writes, the SW log block, reads searching the log
//! area newest copy first) is FAST's.
//!
//! Choices (the paper's exact isolation and scheduling details could not be checked,
//! docs/algorithms.md §2.7/§8): the isolation area is `[ftl.faster] isolation_percent` of
//! the RW log blocks (default 10; 0 = no isolation: pages past their second chance are
//! merged at once); merges are done when the reclaim needs them, not spread over later
//! writes (the paper's "progressive" merging changes latency, not operation counts);
//! `second_chance = false` turns FASTer back into FAST plus isolation. Marked pages are
//! handled before second-chance copies so the new tail block is taken only when no
//! merge still needs the one-block reserve, which keeps the block budget that of FAST.
//!
//! Recovery at power-up (FAST's, fast.rs, plus):
//! ```text
//! marks cleared (not on flash); RW blocks by opening order
//! more RW blocks than the log holds → a reclaim was cut after opening its new tail:
//!   tail   = newest RW block (page 0 is a second-chance copy)
//!   victim = block with the latest earlier copy of that page (same lpn, seq) — not
//!            the oldest RW block: isolation blocks outlive main-log blocks
//!   move the victim's live pages to the tail (they fit: the reclaim was moving them
//!   there), erase the victim — no free block needed, as the reclaim needed none
//! the oldest RW blocks beyond the main log's capacity form the isolation log
//! ```
//!
//! NAND rule and memory: as FAST, plus one second-chance bit per RW log position.
//!
//! Counters: FAST's, plus `ftl.faster.second_chances` (pages copied to the tail),
//! `ftl.faster.isolated` (pages moved to the isolation log), `ftl.faster.merged`
//! (logical blocks merged because a page had used its second chance).

use super::Ftl;
use super::fast::{COLD, Fast, FastCore, HOT, RwReclaim};
use super::feasible;
use super::logblock::NIL;
use super::spec::{Caps, FtlSpec, Section};
use super::{FtlConfig, FtlError};
use crate::nand::{Geometry, Lpn, Nand};
use crate::spec::{ConfigError, Counter, Counters};
use serde::{Deserialize, Serialize};

/// Reported as `ftl.faster.second_chances`.
pub const SECOND_CHANCES: Counter = Counter::total(
    "ftl.faster.second_chances",
    "pages",
    "pages given a second chance: moved to the log's end instead of merging their block",
);
/// Reported as `ftl.faster.isolated`.
pub const ISOLATED: Counter = Counter::total(
    "ftl.faster.isolated",
    "pages",
    "pages moved to the isolation (cold) log",
);
/// Reported as `ftl.faster.merged`.
pub const MERGED: Counter = Counter::total(
    "ftl.faster.merged",
    "merges",
    "logical blocks merged because a page had used its second chance, without isolation",
);
/// The counters declared in this file.
pub const COUNTERS: &[Counter] = &[SECOND_CHANCES, ISOLATED, MERGED];

/// FASTer in the registry.
pub const SPEC: FtlSpec = FtlSpec {
    name: "faster",
    description: "FASTer (Lim et al. 2010): FAST + second chance and isolation of cold log pages",
    caps: Caps::BLOCK_MAPPED,
    sections: &[
        Section {
            key: "faster",
            what: "FASTer's second chance and isolation",
        },
        super::logblock::LOG_SECTION,
    ],
    validate: |cfg| cfg.faster.validate(),
    need: |cfg, geo, logical_pages| {
        let min = 2 + (cfg.faster.isolation_percent > 0) as u32;
        feasible::log_area_need(cfg, geo, logical_pages, min)
    },
    memory_bytes: super::logblock::log_area_memory_bytes,
    counters: &[COUNTERS, super::fast::COUNTERS, super::logblock::COUNTERS],
    build: |cfg, geo, logical_pages, _| {
        build(cfg, geo, logical_pages).map(|f| Box::new(f) as Box<dyn Ftl>)
    },
};

/// `[ftl.faster]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FasterConfig {
    /// Copy a victim's valid, unmarked pages to the log tail instead of merging.
    pub second_chance: bool,
    /// Share of the RW log blocks forming the isolation log for cold pages; 0 = none.
    pub isolation_percent: u32,
}

impl Default for FasterConfig {
    fn default() -> Self {
        FasterConfig {
            second_chance: true,
            isolation_percent: 10,
        }
    }
}

impl FasterConfig {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.isolation_percent > 90 {
            return Err(ConfigError::value(
                "ftl.faster.isolation_percent",
                self.isolation_percent,
                "0 to 90",
            ));
        }
        Ok(())
    }
}

/// FASTer's reclaim.
#[derive(Clone)]
pub struct SecondChance {
    second_chance: bool,
    second_chances: u64,
    isolated: u64,
    merged: u64,
}

/// Builds FASTer.
pub fn build(
    cfg: &FtlConfig,
    geo: &Geometry,
    logical_pages: u64,
) -> Result<Fast<SecondChance>, ConfigError> {
    cfg.faster.validate()?;
    Ok(Fast {
        core: FastCore::new(
            cfg,
            geo,
            logical_pages,
            cfg.faster.isolation_percent,
            true,
            "faster",
        )?,
        policy: SecondChance {
            second_chance: cfg.faster.second_chance,
            second_chances: 0,
            isolated: 0,
            merged: 0,
        },
    })
}

impl RwReclaim for SecondChance {
    const NAME: &'static str = "faster";

    fn reclaim(&mut self, f: &mut FastCore, nand: &mut Nand) -> Result<(), FtlError> {
        let slot = f.rw.oldest(HOT).expect("reclaim of an empty log");
        let np = f.b.np;
        // After a retirement the random log is over its cap: this victim gives its
        // block up, so no page gets a second chance (that would take a new tail).
        let sc = self.second_chance && f.rw.len(HOT) as u32 <= f.hot_cap();
        let marked =
            |f: &FastCore, pos: u32| !sc || f.flags.as_ref().expect("FASTer keeps flags").get(pos);
        // Pages past their second chance: isolate or merge. Merges and isolation-log
        // reclaims may drop later pages of the victim, so each is looked at afresh.
        for page in 0..np {
            let pos = f.rw.pos(slot, page);
            let lpn = f.rw.lpn_at(pos);
            if lpn == NIL || !marked(f, pos) {
                continue;
            }
            let lbn = f.b.split(Lpn(lpn)).0;
            if f.cap[COLD] == 0 {
                self.merged += 1;
                f.full_merge_lbn(lbn, nand)?;
                continue;
            }
            f.make_room_merging(COLD, nand)?;
            if f.rw.lpn_at(pos) == NIL {
                continue; // merged away while the isolation log made room
            }
            self.isolated += 1;
            f.move_page(COLD, pos, false, nand);
        }
        // Second chances: the rest go to a fresh tail, marked.
        let left = (0..np)
            .filter(|&p| f.rw.lpn_at(f.rw.pos(slot, p)) != NIL)
            .count();
        if left > 0 {
            f.open_rw(HOT)?;
            for page in 0..np {
                let pos = f.rw.pos(slot, page);
                let lpn = f.rw.lpn_at(pos);
                if lpn == NIL {
                    continue;
                }
                self.second_chances += 1;
                f.move_page(HOT, pos, true, nand);
            }
        }
        f.erase_oldest_log(HOT, nand);
        Ok(())
    }

    fn counters(&self, out: &mut Counters) {
        out.set(&SECOND_CHANCES, self.second_chances);
        out.set(&ISOLATED, self.isolated);
        out.set(&MERGED, self.merged);
    }
}
