//! Page payloads: the bytes each *physical* page holds, so a device served over NBD
//! returns what its FTL's mapping points at and every GC copy, merge and fold moves real
//! bytes (docs/nbd.md).
//!
//! ```text
//! host write(lpn, bytes) -> staged[lpn] = bytes          (controller DRAM: volatile)
//! NAND program(ppn, lpn, Host) -> store[ppn] = staged.take(lpn), tag(ppn) = (lpn, seq)
//! NAND copy(src, dst)         -> store[dst] = store[src], tag copied (same lpn and seq)
//! NAND erase(block)           -> its pages' data and tags dropped, erase count kept
//! host read(lpn) -> staged[lpn] if buffered, else store[L2P(lpn)], else zeros
//! ```
//! The NAND array calls `FlashData` (`nand::payload`) from the one place each kind of
//! operation passes (program, copy and its run and block forms, erase), so no FTL can
//! move a page without moving its bytes. The store keeps the OOB tag and erase count of
//! every page as flash does: a restart mounts the array from them alone
//! (`Nand::mount`), never from a copy of RAM state.
//!
//! A power cut (`FlashData::arm_cut`) lets a given number of flash operations reach the
//! store and drops the rest, as a drive losing power in the middle of a command does.
//!
//! The page-store interface and [`FlashData`] sit with the NAND model (`nand::payload`),
//! which calls them; this module holds the stores and the crash tests, which drive a whole
//! simulated device and so sit above the simulator.

pub mod crashtest;
mod file;

pub use file::FileStore;

use crate::nand::{FlashData, PageStore, StoredTag};
