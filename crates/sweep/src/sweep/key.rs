//! A cell's key: SHA-256 of everything its result depends on — the resolved
//! configuration (design, workload, seed, trace path), the trace file's identity and
//! the ssdlab version — so a finished cell is found again by any sweep, resumed or not,
//! whatever grid produced it, and a new version or an edited trace runs it anew. Run and
//! hybrid cells hash under different tags, so the two kinds never share a key.

use crate::config::Config;
use crate::hybrid::config::HybridConfig;
use sha2::{Digest, Sha256};
use std::path::Path;

/// The hex key of `cfg` (32 hex digits: 128 bits of the SHA-256).
pub fn cell_key(cfg: &Config) -> String {
    // Serializing a Config walks its fields in declaration order: the same settings
    // always give the same text.
    let text = serde_json::to_string(cfg).expect("a Config serializes");
    key(b"ssdlab sweep cell v1\n", &text, cfg.trace.path.as_deref())
}

/// The hex key of a hybrid cell's configuration `cfg`.
pub fn hybrid_cell_key(cfg: &HybridConfig) -> String {
    let text = serde_json::to_string(cfg).expect("a HybridConfig serializes");
    key(
        b"ssdlab sweep hybrid cell v1\n",
        &text,
        cfg.trace.path.as_deref(),
    )
}

/// SHA-256 of `tag`, the version, the configuration's JSON `text` and the trace's
/// identity, as 32 hex digits.
fn key(tag: &[u8], text: &str, trace: Option<&Path>) -> String {
    let mut h = Sha256::new();
    h.update(tag);
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(b"\n");
    h.update(text.as_bytes());
    if let Some(p) = trace {
        // The trace's size and modification time stand for its content: hashing every
        // byte of a multi-gigabyte trace per cell would cost more than many runs.
        h.update(b"\ntrace ");
        if let Ok(m) = std::fs::metadata(p) {
            let mtime_ns = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            h.update(format!("{} {mtime_ns}", m.len()).as_bytes());
        }
    }
    h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
