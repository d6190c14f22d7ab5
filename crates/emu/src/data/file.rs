//! Page payloads in a sparse file that survives restarts (`ssdlab serve --data FILE`).
//!
//! ```text
//! 0                 header: "SSDLABF2", page bytes, pages, pages per block, blocks,
//!                   the design's fingerprint (a restart with another design is refused)
//! 4096              tags: 16 B per physical page (lpn + 1, seq, flags, program_seq);
//!                   0 = erased
//! tags end          erase counts: 4 B per block
//! data (page-aligned) page ppn at data + ppn × page bytes; erased pages are holes
//! ```
//! A program writes the data before the tag, so a page whose tag is on the file holds
//! its data: a crash between the two leaves an erased-looking page, as a program cut
//! short by power loss leaves a page that fails its ECC and is treated as erased.

use super::{PageStore, StoredTag};
use crate::nand::Geometry;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;

const MAGIC: &[u8; 8] = b"SSDLABF2";
/// The format before tags carried `program_seq` (refused with its own message).
const OLD_MAGIC: &[u8; 8] = b"SSDLABF1";
const HEADER_BYTES: u64 = 4096;
const TAG_BYTES: u64 = 16;
const FLAG_META: u32 = 1;

/// Flash contents in a file.
pub struct FileStore {
    file: File,
    page_bytes: u64,
    pages: u64,
    blocks: u64,
    tags_at: u64,
    erases_at: u64,
    data_at: u64,
    /// Pages programmed now (for the statistics).
    programmed: u64,
}

fn io_err(path: &Path, what: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {what}", path.display()),
    )
}

impl FileStore {
    /// What differs between the design a data file was written by and this run's, in one
    /// line: the geometry words of the header, then every key of the fingerprints (`KEY
    /// VALUE` words, a value being a word or a JSON object, flattened to dotted keys).
    fn design_difference(file_geo: &[u8], run_geo: &[u8], theirs: &str, ours: &str) -> String {
        let mut diffs = Vec::new();
        let words = |b: &[u8]| -> Vec<u64> {
            // Bytes 8..32: page size (u32), pages (u64), pages per block (u32), blocks (u64).
            vec![
                u32::from_le_bytes(b[8..12].try_into().unwrap()) as u64,
                u64::from_le_bytes(b[12..20].try_into().unwrap()),
                u32::from_le_bytes(b[20..24].try_into().unwrap()) as u64,
                u64::from_le_bytes(b[24..32].try_into().unwrap()),
            ]
        };
        let names = ["page bytes", "flash pages", "pages per block", "blocks"];
        for ((n, a), b) in names.iter().zip(words(file_geo)).zip(words(run_geo)) {
            if a != b {
                diffs.push(format!("{n} {a} in the file, {b} in this run"));
            }
        }
        let keys = |fp: &str| -> Vec<(String, String)> {
            let mut out = Vec::new();
            let mut rest = fp.trim();
            while !rest.is_empty() {
                let (key, after) = rest.split_once(' ').unwrap_or((rest, ""));
                let after = after.trim_start();
                let mut de =
                    serde_json::Deserializer::from_str(after).into_iter::<serde_json::Value>();
                match de.next() {
                    Some(Ok(v)) if v.is_object() => {
                        let used = de.byte_offset();
                        Self::flatten(key, &v, &mut out);
                        rest = after[used..].trim_start();
                    }
                    _ => {
                        let (value, tail) = after.split_once(' ').unwrap_or((after, ""));
                        out.push((key.to_string(), value.to_string()));
                        rest = tail.trim_start();
                    }
                }
            }
            out
        };
        let (a, b) = (keys(theirs), keys(ours));
        let get = |v: &[(String, String)], k: &str| {
            v.iter()
                .find(|(x, _)| x == k)
                .map_or("unset".to_string(), |(_, y)| y.clone())
        };
        let mut seen = Vec::new();
        for (k, _) in a.iter().chain(&b) {
            if seen.contains(k) {
                continue;
            }
            seen.push(k.clone());
            let (x, y) = (get(&a, k), get(&b, k));
            if x != y {
                diffs.push(format!("{k} {x} in the file, {y} in this run"));
            }
        }
        if diffs.is_empty() {
            "the header differs (same fingerprint)".into()
        } else {
            diffs.join("; ")
        }
    }

    /// Dotted keys of a JSON value's leaves, as compact JSON text.
    fn flatten(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    Self::flatten(&format!("{prefix}.{k}"), x, out);
                }
            }
            x => out.push((prefix.to_string(), x.to_string())),
        }
    }

    /// Opens `path` for an array of shape `geo` and design `fingerprint`: a new or empty
    /// file is formatted (all pages erased); an existing one must have been written for
    /// the same shape and design. Returns the store and whether it held data.
    pub fn open(path: &Path, geo: &Geometry, fingerprint: &str) -> io::Result<(FileStore, bool)> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        // One server owns a data file: a second one would interleave its programs with
        // the first's and each would later recover the other's acknowledged writes as
        // its own. The lock is taken before the file is read or formatted.
        if let Err(e) = crate::util::lock_exclusive(&file) {
            let who = match crate::util::flock_holder(&file) {
                Some(pid) => format!("process {pid}"),
                None => "another process".into(),
            };
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                format!(
                    "{}: in use by {who} (another ssdlab serve?): {e}; stop it first or give another file",
                    path.display()
                ),
            ));
        }
        let page_bytes = geo.page_size_bytes as u64;
        let pages = geo.pages();
        let blocks = geo.blocks() as u64;
        let tags_at = HEADER_BYTES;
        let erases_at = tags_at + pages * TAG_BYTES;
        let data_at = (erases_at + blocks * 4).div_ceil(page_bytes) * page_bytes;
        let mut header = vec![0u8; HEADER_BYTES as usize];
        header[0..8].copy_from_slice(MAGIC);
        header[8..12].copy_from_slice(&(page_bytes as u32).to_le_bytes());
        header[12..20].copy_from_slice(&pages.to_le_bytes());
        header[20..24].copy_from_slice(&geo.pages_per_block.to_le_bytes());
        header[24..32].copy_from_slice(&blocks.to_le_bytes());
        let fp = fingerprint.as_bytes();
        let fp_len = fp.len().min(HEADER_BYTES as usize - 36);
        header[32..36].copy_from_slice(&(fp_len as u32).to_le_bytes());
        header[36..36 + fp_len].copy_from_slice(&fp[..fp_len]);
        let len = file.metadata()?.len();
        let existing = len > 0;
        if existing {
            let mut on_file = vec![0u8; HEADER_BYTES as usize];
            file.read_exact_at(&mut on_file, 0)
                .map_err(|_| io_err(path, "not an ssdlab data file (too short)".into()))?;
            if &on_file[0..8] == OLD_MAGIC {
                return Err(io_err(
                    path,
                    "written by an older ssdlab whose OOB tags lack the program counter \
                     recovery needs; give a new path or an empty file"
                        .into(),
                ));
            }
            if &on_file[0..8] != MAGIC {
                return Err(io_err(
                    path,
                    "not an ssdlab data file (bad magic); give a new path or an empty file".into(),
                ));
            }
            if on_file != header {
                let n = u32::from_le_bytes(on_file[32..36].try_into().unwrap()) as usize;
                let theirs = String::from_utf8_lossy(&on_file[36..36 + n.min(4000)]);
                return Err(io_err(
                    path,
                    format!(
                        "written by another design: {}. Restart with the same design flags \
                         or use a new file",
                        Self::design_difference(
                            &on_file[..32],
                            &header[..32],
                            &theirs,
                            &String::from_utf8_lossy(&header[36..36 + fp_len])
                        )
                    ),
                ));
            }
        } else {
            file.write_all_at(&header, 0)?;
            file.set_len(data_at + pages * page_bytes)?;
        }
        let mut s = FileStore {
            file,
            page_bytes,
            pages,
            blocks,
            tags_at,
            erases_at,
            data_at,
            programmed: 0,
        };
        if existing {
            s.programmed = s.scan_tags().iter().flatten().count() as u64;
        }
        Ok((s, existing))
    }

    fn write_tag(&self, ppn: u32, tag: Option<StoredTag>) {
        let mut b = [0u8; TAG_BYTES as usize];
        if let Some(t) = tag {
            b[0..4].copy_from_slice(&t.lpn.wrapping_add(1).to_le_bytes());
            b[4..8].copy_from_slice(&t.seq.to_le_bytes());
            b[8..12].copy_from_slice(&(if t.meta { FLAG_META } else { 0 }).to_le_bytes());
            b[12..16].copy_from_slice(&t.program_seq.to_le_bytes());
        }
        self.file
            .write_all_at(&b, self.tags_at + ppn as u64 * TAG_BYTES)
            .expect("data file write failed");
    }

    fn read_tag(&self, ppn: u32) -> Option<StoredTag> {
        let mut b = [0u8; TAG_BYTES as usize];
        self.file
            .read_exact_at(&mut b, self.tags_at + ppn as u64 * TAG_BYTES)
            .expect("data file read failed");
        decode_tag(&b)
    }
}

fn decode_tag(b: &[u8]) -> Option<StoredTag> {
    let l = u32::from_le_bytes(b[0..4].try_into().unwrap());
    (l != 0).then(|| StoredTag {
        lpn: l.wrapping_sub(1),
        seq: u32::from_le_bytes(b[4..8].try_into().unwrap()),
        meta: u32::from_le_bytes(b[8..12].try_into().unwrap()) & FLAG_META != 0,
        program_seq: u32::from_le_bytes(b[12..16].try_into().unwrap()),
    })
}

impl PageStore for FileStore {
    fn program(&mut self, ppn: u32, tag: StoredTag, data: &[u8]) {
        self.file
            .write_all_at(data, self.data_at + ppn as u64 * self.page_bytes)
            .expect("data file write failed");
        self.write_tag(ppn, Some(tag));
        self.programmed += 1;
    }

    fn copy(&mut self, src: u32, dst: u32, program_seq: u32) {
        let mut buf = vec![0u8; self.page_bytes as usize];
        self.read(src, &mut buf);
        let tag = StoredTag {
            program_seq,
            ..self.read_tag(src).expect("copy of an erased page")
        };
        self.program(dst, tag, &buf);
    }

    fn erase(&mut self, block: u32, first: u32, pages: u32, erase_count: u32) {
        let zeros = vec![0u8; (pages as u64 * TAG_BYTES) as usize];
        let programmed = {
            let mut b = vec![0u8; zeros.len()];
            self.file
                .read_exact_at(&mut b, self.tags_at + first as u64 * TAG_BYTES)
                .expect("data file read failed");
            b.chunks_exact(TAG_BYTES as usize)
                .filter(|t| decode_tag(t).is_some())
                .count() as u64
        };
        self.programmed -= programmed.min(self.programmed);
        self.file
            .write_all_at(&zeros, self.tags_at + first as u64 * TAG_BYTES)
            .expect("data file write failed");
        self.file
            .write_all_at(
                &erase_count.to_le_bytes(),
                self.erases_at + block as u64 * 4,
            )
            .expect("data file write failed");
        // Give the erased pages' space back (a hole reads as zeros).
        let at = self.data_at + first as u64 * self.page_bytes;
        let len = pages as u64 * self.page_bytes;
        // SAFETY: fallocate on an open descriptor with in-range arguments; a failure
        // (a file system without hole punching) only leaves stale bytes that no read
        // returns, since the tags say the pages are erased.
        unsafe {
            libc::fallocate(
                self.file.as_raw_fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                at as libc::off_t,
                len as libc::off_t,
            );
        }
    }

    fn read(&self, ppn: u32, out: &mut [u8]) -> bool {
        if self.read_tag(ppn).is_none() {
            out.fill(0);
            return false;
        }
        self.file
            .read_exact_at(out, self.data_at + ppn as u64 * self.page_bytes)
            .expect("data file read failed");
        true
    }

    fn scan_tags(&self) -> Vec<Option<StoredTag>> {
        let mut out = Vec::with_capacity(self.pages as usize);
        let chunk_pages = 1 << 16;
        let mut buf = vec![0u8; (chunk_pages * TAG_BYTES) as usize];
        let mut p = 0;
        while p < self.pages {
            let n = chunk_pages.min(self.pages - p);
            let b = &mut buf[..(n * TAG_BYTES) as usize];
            self.file
                .read_exact_at(b, self.tags_at + p * TAG_BYTES)
                .expect("data file read failed");
            out.extend(b.chunks_exact(TAG_BYTES as usize).map(decode_tag));
            p += n;
        }
        out
    }

    fn erase_counts(&self) -> Vec<u32> {
        let mut b = vec![0u8; (self.blocks * 4) as usize];
        self.file
            .read_exact_at(&mut b, self.erases_at)
            .expect("data file read failed");
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }

    fn stored_bytes(&self) -> u64 {
        self.programmed * self.page_bytes
    }
}

#[cfg(test)]
mod difference_tests {
    use super::*;

    /// A restart with another design names the keys that differ, in one line.
    #[test]
    fn the_design_difference_names_the_keys() {
        let geo = [0u8; 32];
        let a = r#"ftl {"name":"page","gc":{"policy":"greedy"}} logical_pages 4096"#;
        let b = r#"ftl {"name":"dftl","gc":{"policy":"greedy"}} logical_pages 8192"#;
        let d = FileStore::design_difference(&geo, &geo, a, b);
        assert_eq!(
            d,
            "ftl.name \"page\" in the file, \"dftl\" in this run; logical_pages 4096 in the \
             file, 8192 in this run"
        );
        assert!(!d.contains('\n'));
    }
}
