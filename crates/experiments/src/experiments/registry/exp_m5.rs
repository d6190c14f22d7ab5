//! EXP-M5 — address and mapping-table arithmetic (Ryu & Park 2009, §3.1, Fig. 6).
//!
//! ```text
//! M33  locate(sector × 512 B, 1 MiB, 4 KiB) for sectors 10201 and 10081, and the block
//!      and page counts of a 32 GiB drive with 1 MiB management blocks
//! M34  mapping entries of a 32 GiB drive at S = 4 KiB, 16 KiB, 1 MiB:
//!      by-address  = entries of the map ssdlab builds (mapping bytes / entry width)
//!      write-order = the same, with write-order placement
//! ```
//! Both rows call the simulator's own functions (the layout's `locate`, the page FTL's
//! `mapping_bytes`), so a change there changes the verdict. No randomness: one
//! evaluation each.

use super::eval::{Env, Evaluator};
use super::judge::{Point, RowResult, Verdict, exactly};
use crate::config::Config;
use crate::experiments::ExpError;
use crate::ftl::build_ftl;
use crate::ftl::layout::locate;

/// The registry's EXP-M5.
pub struct ExpM5;

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const SECTOR_BYTES: u64 = 512;
const PAGE_BYTES: u64 = 4 * KIB;

/// Bytes of one entry of the page FTL's map (its `mapping_bytes` counts 4 B a page).
const PAGE_ENTRY_BYTES: u64 = 4;

impl Evaluator for ExpM5 {
    fn experiment(&self) -> &'static str {
        "EXP-M5"
    }

    fn evaluate(&self, _env: &Env) -> Result<Vec<RowResult>, ExpError> {
        Ok(vec![m33(), m34()?])
    }
}

fn m33() -> RowResult {
    let blocks = 32 * GIB / MIB;
    let pages = MIB / PAGE_BYTES;
    let a = locate(10201 * SECTOR_BYTES, MIB, PAGE_BYTES);
    let a_in = (10201 * SECTOR_BYTES) % PAGE_BYTES;
    let b = locate(10081 * SECTOR_BYTES, MIB, PAGE_BYTES);
    let b_in = (10081 * SECTOR_BYTES) % PAGE_BYTES;
    let v = Verdict::all([
        exactly(blocks, 32_768),
        exactly(pages, 256),
        exactly(10201 * SECTOR_BYTES, 5_222_912),
        exactly(a.0, 4),
        exactly(a.1, 251),
        exactly(a_in, 512),
        exactly(b.0, 4),
        exactly(b.1, 236),
        exactly(b_in, 512),
    ]);
    let measured = format!(
        "{blocks} blocks of {pages} pages; sector 10201 → block {}, page {}, +{a_in} B; \
         sector 10081 → block {}, page {}, +{b_in} B",
        a.0, a.1, b.0, b.1
    );
    RowResult::evaluated("M33", vec![Point::new(vec![], measured, v)])
}

/// Mapping entries ssdlab keeps for a 32 GiB SSD A-like drive with management block
/// `unit` and `placement`.
fn entries(unit: u64, placement: &str) -> Result<u64, ExpError> {
    let text = format!(
        "[device]\ncapacity = \"32GiB\"\n[ftl]\nname = \"page\"\nplacement = \"{placement}\"\n\
         mgmt_block = \"{}KiB\"\n",
        unit / KIB
    );
    Ok(mapping_bytes(&text)?.0 / PAGE_ENTRY_BYTES)
}

/// The mapping bytes of the FTL `text` configures on a 32 GiB SSD A-like drive, and the
/// drive's erase-block bytes.
fn mapping_bytes(text: &str) -> Result<(u64, u64), ExpError> {
    let cfg = Config::load(Some("ssd-a"), Some(("EXP-M5", text)))
        .map_err(|e| ExpError::Other(format!("EXP-M5 config: {e}")))?;
    let dev = cfg
        .resolve_device()
        .map_err(|e| ExpError::Other(format!("EXP-M5 device: {e}")))?;
    if dev.logical_pages * PAGE_BYTES != 32 * GIB {
        return Err(ExpError::Other(format!(
            "EXP-M5: the drive holds {} logical pages, not 32 GiB",
            dev.logical_pages
        )));
    }
    let ftl = build_ftl(&cfg.ftl, &dev.geometry, dev.logical_pages, cfg.seed)
        .map_err(|e| ExpError::Other(format!("EXP-M5 FTL: {e}")))?;
    let g = &dev.geometry;
    Ok((
        ftl.mapping_bytes(),
        g.pages_per_block as u64 * g.page_size_bytes as u64,
    ))
}

/// M34's isolating table (judges nothing): the map ssdlab's by-address placement keeps
/// at each S, beside the per-management-block count the paper means, and the map of
/// ssdlab's block-mapped FTL (NFTL) on the same drive, which does shrink to one entry an
/// erase block but has no setting for a mapping unit other than the erase block.
fn m34_isolation(by_address: &[(u64, u64, u64)]) -> Result<Vec<(String, String)>, ExpError> {
    let mut rows: Vec<(String, String)> = by_address
        .iter()
        .map(|&(unit, got, want)| {
            (
                format!("page FTL, by-address, S = {} KiB, 32 GiB", unit / KIB),
                format!(
                    "{got} entries (mapping bytes / {PAGE_ENTRY_BYTES} B); a map per \
                     management block needs 32 GiB / S = {want}"
                ),
            )
        })
        .collect();
    let (nftl, erase) = mapping_bytes("[device]\ncapacity = \"32GiB\"\n[ftl]\nname = \"nftl\"\n")?;
    rows.push((
        format!(
            "nftl (block-mapped), erase block {} KiB, 32 GiB",
            erase / KIB
        ),
        format!(
            "{nftl} mapping bytes for 32 GiB / erase block = {} blocks",
            32 * GIB / erase
        ),
    ));
    Ok(rows)
}

fn m34() -> Result<RowResult, ExpError> {
    let want = [
        (4 * KIB, 8_388_608u64),
        (16 * KIB, 2_097_152),
        (MIB, 32_768),
    ];
    let mut parts = Vec::new();
    let mut verdicts = Vec::new();
    let mut by_address_entries = Vec::new();
    for (unit, by_address) in want {
        let ba = entries(unit, "by-address")?;
        by_address_entries.push((unit, ba, by_address));
        let wo = entries(unit, "write-order")?;
        verdicts.push(exactly(ba, by_address));
        verdicts.push(exactly(wo, 8_388_608));
        parts.push(format!(
            "S={} KiB: by-address {ba} (want {by_address}), write-order {wo} (want 8388608)",
            unit / KIB
        ));
    }
    let v = Verdict::all(verdicts);
    let row = RowResult::evaluated("M34", vec![Point::new(vec![], parts.join("; "), v)]);
    Ok(if v == Verdict::Holds {
        row
    } else {
        row.with_cause(
            "mechanism ssdlab lacks: its by-address placement keeps a page-level map under \
             the management block (a plane-fixed page mapping), so the table does not shrink \
             with S; a block-mapped FTL (nftl, bast, …) maps per erase block or superblock \
             but cannot map units smaller than an erase block (isolation.csv)",
        )
        .with_isolation(m34_isolation(&by_address_entries)?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worked_example_is_exact() {
        assert_eq!(m33().label(), super::super::judge::Label::Robust);
    }
}
