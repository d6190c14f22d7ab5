//! Crash-safe output files: every writer in [`crate::report`] goes through
//! [`atomic_write`], so a run that fails (or is killed) part-way never leaves a truncated
//! JSON, CSV or SVG behind for a later script to mistake for a result.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes temp files of concurrent writers in one process (e.g. rayon workers
/// writing figures of different designs into one directory).
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Removes the temp file unless the write was committed; runs on error and on unwinding.
struct TempGuard {
    path: PathBuf,
    committed: bool,
}

impl Drop for TempGuard {
    fn drop(&mut self) {
        if !self.committed {
            // Best effort: the original error is the one worth reporting.
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Writes `path` all-or-nothing.
///
/// `write` fills a temp file created next to `path` (same directory, hence same file
/// system, so the final rename is atomic). Only when it returns `Ok` and the data are
/// flushed and synced is the temp file renamed over `path`. If `write` fails or panics,
/// the temp file is removed and `path` is left as it was (absent, or the old content).
pub fn atomic_write<F>(path: &Path, write: F) -> io::Result<()>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    let file_name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("output path '{}' has no file name", path.display()),
        )
    })?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let temp_name = format!(
        ".{}.{}.{}.tmp",
        file_name.to_string_lossy(),
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let temp_path = dir.join(temp_name);
    // create_new: never clobber a file that is not ours.
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp_path)?;
    let mut guard = TempGuard {
        path: temp_path,
        committed: false,
    };
    let mut out = BufWriter::new(file);
    write(&mut out)?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    // Sync before the rename: otherwise a power loss could leave the new name pointing
    // at an empty file on file systems that reorder metadata and data writes.
    file.sync_all()?;
    drop(file);
    fs::rename(&guard.path, path)?;
    guard.committed = true;
    sync_dir(dir);
    Ok(())
}

/// Makes the rename itself durable; failure only weakens durability, so it is ignored.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// [`atomic_write`] of a whole string.
pub fn write_string_atomically(path: &Path, contents: &str) -> io::Result<()> {
    atomic_write(path, |w| w.write_all(contents.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        write_string_atomically(&p, "one").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "one");
        write_string_atomically(&p, "two").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn failure_keeps_old_content_and_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        write_string_atomically(&p, "old").unwrap();
        let err = atomic_write(&p, |w| {
            w.write_all(b"partial")?;
            Err(io::Error::other("boom"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "boom");
        assert_eq!(fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn rejects_path_without_file_name() {
        assert!(atomic_write(Path::new("/"), |_| Ok(())).is_err());
    }
}
