//! Superblocks: the management block of the block-mapped and hybrid FTLs (docs/papers.md §1,
//! "SSD management block"; Ryu & Park 2009).
//!
//! NFTL, BAST, FAST, FASTer, AFTL and CFTL map whole erase blocks. A management block of
//! `k` physical blocks makes each of them map *superblocks* instead: `k` blocks on `k`
//! different planes, programmed, merged and erased together. The FTL code does not
//! change: it runs on a *virtual* geometry with `k` times fewer planes and `k` times
//! larger blocks, and this module tells the timing model where each virtual page lives:
//!
//! ```text
//! virtual plane v, virtual block b, page p of the superblock
//!   member  j = p mod k          consecutive pages rotate over the k members, so a
//!                                superblock's sequential transfer uses k dies at once
//!   plane     = order[v·k + j]   order = channel-first    (striped: the k members sit on
//!                                        k channels first, then chips, dies, planes)
//!                                order = channel by channel (one-channel: the members
//!                                        share one channel while k ≤ its planes)
//!   physical page = page p / k of block b of that plane
//! erase of a superblock = one erase on each member (in parallel on distinct dies)
//! ```
//!
//! Sizes below one erase block are not a superblock: a block-mapped FTL cannot erase
//! part of a block, so a sub-block mapping unit needs page-level GC underneath, which is
//! what the page FTL's `placement = "by-address"` models (from one page up). The
//! in-block placement is fixed for these FTLs: data blocks hold pages at their address
//! offset and the log/replacement blocks are the log area, so `ftl.placement` does not
//! apply to them; `ftl.channel_placement` chooses the member planes.

use super::FtlConfig;
use super::layout::{ChannelPlacement, by_channel_order, channel_first_order};
use crate::nand::Geometry;
use crate::spec::ConfigError;
use crate::units::Size;

use crate::nand::Superblock;

/// `ftl.superblock` resolved: the FTL's side of the layout in [`crate::nand::Superblock`].
// An inherent impl outside the type's module: at the crate split this becomes a free
// function (the type will live in a lower crate).
impl Superblock {
    /// The superblock `cfg` asks for on `geo` (`ftl.superblock`): `None` when the FTL
    /// does not map blocks or the superblock is one erase block (or unset), an error
    /// naming the valid sizes when it does not fit.
    pub fn from_config(cfg: &FtlConfig, geo: &Geometry) -> Result<Option<Superblock>, ConfigError> {
        let bytes = cfg.superblock.bytes();
        if !cfg.name.maps_blocks() || bytes == 0 {
            return Ok(None);
        }
        let block_bytes = geo.pages_per_block as u64 * geo.page_size_bytes as u64;
        let planes = geo.planes();
        let valid = || {
            let sizes: Vec<String> = (1..=planes)
                .filter(|k| planes.is_multiple_of(*k))
                .map(|k| Size(k as u64 * block_bytes).to_string())
                .collect();
            sizes.join(", ")
        };
        if !bytes.is_multiple_of(block_bytes) {
            return Err(ConfigError::value(
                "ftl.superblock",
                cfg.superblock,
                format!(
                    "one of: {} (the {} FTL maps whole erase blocks, so its superblock is a \
                     whole number of {} blocks spread over planes; management blocks smaller \
                     than an erase block are a page-FTL setting: --ftl page --placement \
                     by-address with ftl.mgmt_block)",
                    valid(),
                    cfg.name.name(),
                    Size(block_bytes),
                ),
            ));
        }
        let k = bytes / block_bytes;
        if k > planes as u64 || !(planes as u64).is_multiple_of(k) {
            return Err(ConfigError::value(
                "ftl.superblock",
                cfg.superblock,
                format!(
                    "one of: {} (it is {k} erase blocks, but a superblock takes one block on \
                     each of k planes and k must divide the {planes} planes)",
                    valid()
                ),
            ));
        }
        if k == 1 {
            return Ok(None);
        }
        let k = k as u32;
        let order = match cfg.channel_placement {
            ChannelPlacement::Striped => channel_first_order(geo),
            ChannelPlacement::OneChannel => by_channel_order(geo),
        };
        Ok(Some(Superblock::new(k, *geo, order)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::FtlKind;
    use crate::nand::Ppn;

    /// 4 channels × 2 chips × 1 die × 2 planes = 16 planes, 8 blocks of 4 pages each.
    fn geo() -> Geometry {
        Geometry {
            channels: 4,
            chips_per_channel: 2,
            dies_per_chip: 1,
            planes_per_die: 2,
            blocks_per_plane: 8,
            pages_per_block: 4,
            page_size_bytes: 4096,
            oob_size_bytes: 64,
        }
    }

    fn cfg(blocks: u64, ch: ChannelPlacement) -> FtlConfig {
        FtlConfig {
            name: FtlKind::Bast,
            superblock: Size(blocks * 4 * 4096),
            channel_placement: ch,
            ..FtlConfig::default()
        }
    }

    fn channel(g: &Geometry, plane: u32) -> u32 {
        g.channel_of_plane(plane)
    }

    #[test]
    fn one_block_or_page_ftl_means_no_superblock() {
        assert!(
            Superblock::from_config(&cfg(1, ChannelPlacement::Striped), &geo())
                .unwrap()
                .is_none()
        );
        let mut c = cfg(4, ChannelPlacement::Striped);
        c.name = FtlKind::Page;
        assert!(Superblock::from_config(&c, &geo()).unwrap().is_none());
    }

    #[test]
    fn virtual_geometry_keeps_every_page() {
        let g = geo();
        for k in [2u64, 4, 8, 16] {
            for ch in [ChannelPlacement::Striped, ChannelPlacement::OneChannel] {
                let sb = Superblock::from_config(&cfg(k, ch), &g).unwrap().unwrap();
                let v = sb.ftl_geometry();
                assert_eq!(v.planes() as u64 * k, g.planes() as u64);
                assert_eq!(v.pages_per_block as u64, 4 * k);
                assert_eq!(v.pages(), g.pages());
                assert_eq!(v.blocks_per_plane, g.blocks_per_plane);
                v.validate().unwrap();
            }
        }
    }

    #[test]
    fn striped_members_take_distinct_channels_first() {
        // k = 4 = channels: the four members of every superblock sit on four channels,
        // and pages 0..3 of a superblock go to members 0..3.
        let g = geo();
        let sb = Superblock::from_config(&cfg(4, ChannelPlacement::Striped), &g)
            .unwrap()
            .unwrap();
        let vppb = 16u32;
        for vblock in 0..sb.ftl_geometry().blocks() {
            let first = Ppn(vblock * vppb);
            let mut chans: Vec<u32> = (0..4)
                .map(|p| channel(&g, sb.plane_of(Ppn(first.0 + p))))
                .collect();
            chans.sort();
            assert_eq!(chans, vec![0, 1, 2, 3], "superblock {vblock}");
            // Page p and p + k share a member.
            assert_eq!(sb.plane_of(first), sb.plane_of(Ppn(first.0 + 4)));
        }
        // Every physical plane is a member of exactly one virtual plane.
        let mut all: Vec<u32> = (0..4u32)
            .flat_map(|v| sb.member_planes(Ppn(v * 8 * 16)).to_vec())
            .collect();
        all.sort();
        assert_eq!(all, (0..16).collect::<Vec<_>>());
    }

    #[test]
    fn one_channel_members_share_a_channel_and_spread_over_its_chips() {
        let g = geo();
        let sb = Superblock::from_config(&cfg(4, ChannelPlacement::OneChannel), &g)
            .unwrap()
            .unwrap();
        for v in 0..4u32 {
            let members = sb.member_planes(Ppn(v * 8 * 16));
            assert!(members.iter().all(|&p| channel(&g, p) == v), "{members:?}");
            // Members 0 and 1 are on the channel's two chips.
            assert_ne!(g.chip_of_plane(members[0]), g.chip_of_plane(members[1]));
        }
    }

    #[test]
    fn sizes_that_are_not_superblocks_are_refused_with_the_valid_list() {
        let g = geo();
        let mut c = cfg(1, ChannelPlacement::Striped);
        c.superblock = Size(8192);
        let e = Superblock::from_config(&c, &g).unwrap_err().to_string();
        assert!(
            e.contains("whole erase blocks") && e.contains("16KiB, 32KiB"),
            "{e}"
        );
        let e = Superblock::from_config(&cfg(3, ChannelPlacement::Striped), &g)
            .unwrap_err()
            .to_string();
        assert!(e.contains("must divide the 16 planes"), "{e}");
        let e = Superblock::from_config(&cfg(32, ChannelPlacement::Striped), &g)
            .unwrap_err()
            .to_string();
        assert!(e.contains("must divide"), "{e}");
    }
}
