//! Output files that never damage anything.
//!
//! Every writer goes through here, in two steps:
//!
//! 1. [`check`] (before a run): decides what each output path is — standard output
//!    (`-`), a regular file (absent or present; symlinks resolved to their target), a
//!    stream (character device, FIFO, socket) or a directory — and fails at once, with
//!    a message naming the flag and the path, when the parent is missing or not
//!    writable, or a file is expected where a directory is (or the reverse).
//!    [`check_distinct`] then rejects two outputs on one file, or an output on an input.
//! 2. [`Batch::commit`] (after the run): writes *all* outputs of a run together or none:
//!    every regular file into a temp file beside its target (same directory, so the
//!    rename is atomic), synced; a new directory as a temp directory beside it; then the
//!    streams; then the renames. A failure before the renames (ENOSPC, EIO, a stream
//!    whose reader went away) removes every temp file and leaves every existing path as
//!    it was. Streams are written through, never replaced: renaming a temp file over
//!    `/dev/null` would turn the device node into a regular file.
//!
//! [`atomic_write`] is the one-file form for library callers.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Distinguishes temp files of concurrent writers in one process (e.g. rayon workers
/// writing figures of different designs into one directory).
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Symlink hops followed before giving up (the kernel's own limit).
const MAX_LINKS: usize = 40;

/// What a file output path turned out to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dest {
    /// `-`: standard output.
    Stdout,
    /// A regular file, present or not: written to a temp file beside `target` and
    /// renamed over it.
    File {
        /// The file the path names, symlinks resolved (absolute).
        target: PathBuf,
    },
    /// A character device, FIFO or socket: opened and written directly.
    Stream,
    /// A directory of outputs, present or not (`--svg`, `--out`).
    Dir {
        /// The directory the path names, symlinks resolved (absolute).
        target: PathBuf,
    },
}

/// What kind of output a flag expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// One file (`-` = standard output).
    File,
    /// A directory of files.
    Dir,
}

/// An output path checked by [`check`]: the flag it came from, the path as given and
/// what it is.
#[derive(Clone, Debug)]
pub struct OutputPath {
    /// The flag, e.g. `--json` (used in messages).
    pub flag: String,
    /// The path as the user gave it.
    pub path: PathBuf,
    /// What it is.
    pub dest: Dest,
}

impl OutputPath {
    /// Whether it goes to standard output.
    pub fn is_stdout(&self) -> bool {
        self.dest == Dest::Stdout
    }

    fn err(&self, problem: PathProblem) -> OutputPathError {
        OutputPathError {
            flag: self.flag.clone(),
            path: self.path.clone(),
            problem,
        }
    }
}

/// An output path refused by [`check`]: the flag, the path as given, and why.
#[derive(Debug, thiserror::Error)]
#[error("{flag} {}: {problem}", .path.display())]
pub struct OutputPathError {
    /// The flag, e.g. `--json`.
    pub flag: String,
    /// The path as the user gave it.
    pub path: PathBuf,
    /// What is wrong with it.
    pub problem: PathProblem,
}

/// Why [`check`] refuses an output path (each message says what was expected).
#[derive(Debug, thiserror::Error)]
pub enum PathProblem {
    /// `-` where a directory is expected.
    #[error("expected a directory; `-` (standard output) only works for single-file outputs")]
    StdoutForDir,
    /// An empty path.
    #[error("expected a path")]
    Empty,
    /// A file output ending in `/`.
    #[error("ends with `/`, so it names a directory; expected a file")]
    TrailingSlash,
    /// The path cannot be resolved.
    #[error("invalid path: {0}")]
    Invalid(io::Error),
    /// A directory where a file is expected.
    #[error("is a directory; expected a file")]
    IsDir,
    /// A file where a directory is expected.
    #[error("is not a directory; expected a directory for the files")]
    NotDir,
    /// A stream that cannot be written.
    #[error("not writable: {0}")]
    NotWritable(io::Error),
    /// An existing directory that takes no new files.
    #[error("cannot write into it: {0}")]
    CannotWriteInto(io::Error),
    /// The path cannot be inspected.
    #[error("cannot inspect: {0}")]
    CannotInspect(io::Error),
    /// The file's parent (or the nearest existing ancestor) is not a directory.
    #[error("{} is not a directory", .0.display())]
    ParentNotDir(PathBuf),
    /// The file's directory does not exist.
    #[error("directory {} does not exist", .0.display())]
    NoParent(PathBuf),
    /// The file's directory takes no new files.
    #[error("cannot create files in {}: {error}", .dir.display())]
    CannotCreateFiles {
        /// The directory.
        dir: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// The nearest existing ancestor takes no new directories.
    #[error("cannot create directories in {}: {error}", .dir.display())]
    CannotCreateDirs {
        /// The directory.
        dir: PathBuf,
        /// Why.
        error: io::Error,
    },
}

/// Outputs refused by [`check_distinct`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OutputClash {
    /// More than one output names standard output.
    #[error("{} all name `-` (standard output); only one output can go there", .flags.join(", "))]
    TwoOnStdout {
        /// Their flags.
        flags: Vec<String>,
    },
    /// An output on the same file as another output or an input.
    #[error(
        "{flag} {}: {} is the same file as {what}{other}; each output needs its own file, \
         and an output cannot overwrite an input",
        .path.display(),
        .file.display()
    )]
    SameFile {
        /// The output's flag.
        flag: String,
        /// The output's path as given.
        path: PathBuf,
        /// The file it would write.
        file: PathBuf,
        /// The other output or input ("the --json output", "the --trace file").
        what: String,
        /// The other's spelling, with a leading space, when it differs; else empty.
        other: String,
    },
}

/// Resolves `path` to the absolute path of the file it names: symlinks followed (also
/// dangling ones, whose target is where a new file will go), and for a path that does
/// not exist yet, its nearest existing ancestor canonicalized.
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut p = std::path::absolute(path)?;
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => match fs::canonicalize(&p) {
                Ok(c) => return Ok(c),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    let link = fs::read_link(&p)?;
                    p = p.parent().unwrap_or(Path::new("/")).join(link);
                }
                Err(e) => return Err(e),
            },
            Ok(_) => return fs::canonicalize(&p),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let (Some(parent), Some(name)) = (p.parent(), p.file_name()) else {
                    return Err(e);
                };
                return Ok(resolve(parent)?.join(name));
            }
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// Whether `meta` is a character device, FIFO or socket (written through, never
/// replaced).
#[cfg(unix)]
fn is_stream(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    t.is_char_device() || t.is_fifo() || t.is_socket() || t.is_block_device()
}

#[cfg(not(unix))]
fn is_stream(_meta: &fs::Metadata) -> bool {
    false
}

/// `access(path, W_OK)`: asks the kernel, so root, ACLs and read-only mounts are
/// judged as a real write would be (mode bits say nothing about root).
#[cfg(unix)]
fn access_writable(path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains NUL"))?;
    // SAFETY: `c` is a valid NUL-terminated string that outlives the call.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(unix))]
fn access_writable(_path: &Path) -> io::Result<()> {
    Ok(())
}

/// A fresh temp name beside `target`, hidden and unique to this process and call.
fn temp_beside(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    target.parent().unwrap_or(Path::new("/")).join(temp)
}

/// Proves `dir` takes new files by creating (and removing) one: the only test that
/// also catches read-only mounts, full inode tables and root-only quirks.
fn probe_dir(dir: &Path) -> io::Result<()> {
    let probe = temp_beside(&dir.join("probe"));
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?;
    fs::remove_file(&probe)
}

/// The nearest ancestor of the absolute path `p` (itself included) that exists.
fn existing_ancestor(p: &Path) -> Option<&Path> {
    p.ancestors().find(|a| fs::symlink_metadata(a).is_ok())
}

/// Checks an output path before the run; see the module documentation.
pub fn check(flag: &str, path: &Path, expect: Expect) -> Result<OutputPath, OutputPathError> {
    let mut out = OutputPath {
        flag: flag.to_string(),
        path: path.to_path_buf(),
        dest: Dest::Stdout,
    };
    if path.as_os_str() == "-" {
        return match expect {
            Expect::File => Ok(out),
            Expect::Dir => Err(out.err(PathProblem::StdoutForDir)),
        };
    }
    if path.as_os_str().is_empty() {
        return Err(out.err(PathProblem::Empty));
    }
    // `--json newdir/` names a directory; writing a file called `newdir` would hide the
    // mistake.
    if expect == Expect::File && path.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return Err(out.err(PathProblem::TrailingSlash));
    }
    let target = resolve(path).map_err(|e| out.err(PathProblem::Invalid(e)))?;
    match (fs::metadata(path), expect) {
        (Ok(m), Expect::File) if m.is_dir() => {
            return Err(out.err(PathProblem::IsDir));
        }
        (Ok(m), Expect::Dir) if !m.is_dir() => {
            return Err(out.err(PathProblem::NotDir));
        }
        (Ok(m), Expect::File) if is_stream(&m) => {
            access_writable(path).map_err(|e| out.err(PathProblem::NotWritable(e)))?;
            out.dest = Dest::Stream;
            return Ok(out);
        }
        (Ok(_), Expect::Dir) => {
            probe_dir(&target).map_err(|e| out.err(PathProblem::CannotWriteInto(e)))?;
            out.dest = Dest::Dir { target };
            return Ok(out);
        }
        (Ok(_), Expect::File) => {}
        (Err(e), _) if e.kind() != io::ErrorKind::NotFound => {
            return Err(out.err(PathProblem::CannotInspect(e)));
        }
        (Err(_), _) => {}
    }
    let parent = target.parent().unwrap_or(Path::new("/"));
    match expect {
        Expect::File => {
            // A new file needs its directory: creating directories for a file output
            // would hide a typo in the path.
            match fs::metadata(parent) {
                Ok(m) if m.is_dir() => {}
                Ok(_) => return Err(out.err(PathProblem::ParentNotDir(parent.to_path_buf()))),
                Err(_) => return Err(out.err(PathProblem::NoParent(parent.to_path_buf()))),
            }
            probe_dir(parent).map_err(|error| {
                out.err(PathProblem::CannotCreateFiles {
                    dir: parent.to_path_buf(),
                    error,
                })
            })?;
            out.dest = Dest::File { target };
        }
        Expect::Dir => {
            // Missing directories (also missing ancestors, as `--out results/x`) are
            // created at commit; the nearest existing ancestor must take them now.
            let base = existing_ancestor(parent).unwrap_or(Path::new("/"));
            if !base.is_dir() {
                return Err(out.err(PathProblem::ParentNotDir(base.to_path_buf())));
            }
            probe_dir(base).map_err(|error| {
                out.err(PathProblem::CannotCreateDirs {
                    dir: base.to_path_buf(),
                    error,
                })
            })?;
            out.dest = Dest::Dir { target };
        }
    }
    Ok(out)
}

/// The identity of a file for collision checks: its inode when it exists (so hard
/// links and symlinks compare equal), otherwise its resolved path.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Identity {
    Inode(u64, u64),
    Path(PathBuf),
}

fn identity(path: &Path) -> Option<Identity> {
    match fs::metadata(path) {
        #[cfg(unix)]
        Ok(m) => {
            use std::os::unix::fs::MetadataExt;
            Some(Identity::Inode(m.dev(), m.ino()))
        }
        #[cfg(not(unix))]
        Ok(_) => resolve(path).ok().map(Identity::Path),
        Err(_) => resolve(path).ok().map(Identity::Path),
    }
}

/// Whether writing `path` twice is harmless (character devices such as `/dev/null`).
#[cfg(unix)]
fn is_char_device(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device())
}

#[cfg(not(unix))]
fn is_char_device(_path: &Path) -> bool {
    false
}

/// Rejects outputs that share a file with each other or with an input.
///
/// `outputs` are checked outputs, each with the file names it will write when it is a
/// directory (empty when not known before the run); `inputs` are (flag, path) of the
/// files the run reads. At most one output may be standard output.
pub fn check_distinct(
    outputs: &[(&OutputPath, Vec<String>)],
    inputs: &[(&str, &Path)],
) -> Result<(), OutputClash> {
    let stdout: Vec<&str> = outputs
        .iter()
        .filter(|(o, _)| o.is_stdout())
        .map(|(o, _)| o.flag.as_str())
        .collect();
    if stdout.len() > 1 {
        return Err(OutputClash::TwoOnStdout {
            flags: stdout.into_iter().map(str::to_string).collect(),
        });
    }
    // (what it is, its identity) of every file involved.
    let mut files: Vec<(String, PathBuf, Identity)> = Vec::new();
    for (flag, path) in inputs {
        if let Some(id) = identity(path) {
            files.push((format!("the {flag} file"), path.to_path_buf(), id));
        }
    }
    for (o, names) in outputs {
        let paths: Vec<PathBuf> = match &o.dest {
            Dest::Stdout => continue,
            Dest::Dir { target } => names.iter().map(|n| target.join(n)).collect(),
            _ if is_char_device(&o.path) => continue,
            _ => vec![o.path.clone()],
        };
        for p in paths {
            let Some(id) = identity(&p) else { continue };
            if let Some((what, other, _)) = files.iter().find(|(_, _, i)| *i == id) {
                // Name both spellings when they differ (a symlink, `./x`, a hard link).
                let other = if *other == p {
                    String::new()
                } else {
                    format!(" {}", other.display())
                };
                return Err(OutputClash::SameFile {
                    flag: o.flag.clone(),
                    path: o.path.clone(),
                    file: p,
                    what: what.clone(),
                    other,
                });
            }
            files.push((format!("the {} output", o.flag), p, id));
        }
    }
    Ok(())
}

/// A function that writes an output's content.
pub type WriteFn<'a> = Box<dyn FnOnce(&mut dyn Write) -> io::Result<()> + 'a>;

/// Content of one output file.
pub enum Content<'a> {
    /// Bytes already in memory.
    Bytes(Vec<u8>),
    /// Written by a function (for outputs too large to hold, e.g. a generated trace).
    Writer(WriteFn<'a>),
}

impl Content<'_> {
    fn write_to(self, w: &mut dyn Write) -> io::Result<()> {
        match self {
            Content::Bytes(b) => w.write_all(&b),
            Content::Writer(f) => f(w),
        }
    }
}

impl From<String> for Content<'_> {
    fn from(s: String) -> Self {
        Content::Bytes(s.into_bytes())
    }
}

impl From<Vec<u8>> for Content<'_> {
    fn from(b: Vec<u8>) -> Self {
        Content::Bytes(b)
    }
}

/// A failed commit: which path, and why.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot write: {source}", path.display())]
pub struct CommitError {
    /// The output that failed.
    pub path: PathBuf,
    /// Why.
    pub source: io::Error,
}

fn at(path: &Path) -> impl FnOnce(io::Error) -> CommitError + '_ {
    move |source| CommitError {
        path: path.to_path_buf(),
        source,
    }
}

enum Item<'a> {
    Stdout(Content<'a>),
    Stream(PathBuf, Content<'a>),
    File(PathBuf, Content<'a>),
    Dir(PathBuf, Vec<(String, Content<'a>)>),
}

/// Outputs of one run, committed together by [`Batch::commit`].
#[derive(Default)]
pub struct Batch<'a> {
    items: Vec<Item<'a>>,
}

/// Temp files and directories made while staging, removed unless committed.
#[derive(Default)]
struct Staged {
    /// (temp, final) renames to do.
    renames: Vec<(PathBuf, PathBuf)>,
    /// Temp directories (removed recursively on failure).
    temp_dirs: Vec<PathBuf>,
    /// Directories created for missing ancestors (removed if still empty on failure).
    created: Vec<PathBuf>,
    committed: bool,
}

impl Drop for Staged {
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        // Best effort: the original error is the one worth reporting.
        for (temp, _) in &self.renames {
            if !self.temp_dirs.contains(temp) {
                let _ = fs::remove_file(temp);
            }
        }
        for d in &self.temp_dirs {
            let _ = fs::remove_dir_all(d);
        }
        for d in self.created.iter().rev() {
            let _ = fs::remove_dir(d);
        }
    }
}

/// Writes `content` into a new temp file at `temp`, synced before it is renamed:
/// otherwise a power loss could leave the new name pointing at an empty file on file
/// systems that reorder metadata and data writes.
fn write_temp(temp: &Path, content: Content<'_>) -> io::Result<()> {
    // create_new: never clobber a file that is not ours.
    let file = OpenOptions::new().write(true).create_new(true).open(temp)?;
    let mut out = BufWriter::new(file);
    content.write_to(&mut out)?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()
}

/// Writes `content` straight into an existing stream (device, FIFO, socket).
fn write_stream(path: &Path, content: Content<'_>) -> io::Result<()> {
    let mut out = BufWriter::new(OpenOptions::new().write(true).open(path)?);
    content.write_to(&mut out)?;
    out.flush()
}

/// Makes renames durable; failure only weakens durability, so it is ignored.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// Streams to write at commit: `None` is standard output.
type Streams<'a> = Vec<(Option<PathBuf>, Content<'a>)>;

impl<'a> Batch<'a> {
    /// An empty batch.
    pub fn new() -> Batch<'a> {
        Batch::default()
    }

    /// Adds a single-file output checked with [`Expect::File`].
    pub fn file(&mut self, out: &OutputPath, content: impl Into<Content<'a>>) {
        let content = content.into();
        self.items.push(match &out.dest {
            Dest::Stdout => Item::Stdout(content),
            Dest::Stream => Item::Stream(out.path.clone(), content),
            Dest::File { target } | Dest::Dir { target } => Item::File(target.clone(), content),
        });
    }

    /// Adds a directory output checked with [`Expect::Dir`] and the files to put in it
    /// (other files in an existing directory are left alone).
    pub fn dir(&mut self, out: &OutputPath, files: Vec<(String, Content<'a>)>) {
        let target = match &out.dest {
            Dest::Dir { target } | Dest::File { target } => target.clone(),
            Dest::Stdout | Dest::Stream => out.path.clone(),
        };
        // Two flags may share one directory (`--svg D --html D`): staged as one, so a
        // new `D` is built once and renamed into place once.
        for item in &mut self.items {
            if let Item::Dir(t, existing) = item
                && *t == target
            {
                existing.extend(files);
                return;
            }
        }
        self.items.push(Item::Dir(target, files));
    }

    /// Writes every output, all or nothing. Standard output whose reader went away
    /// (`ssdlab … -o - | head -1`) is not a failure: the reader has what it wanted, as
    /// with coreutils (see [`stdout_closed`]). (see the module documentation); returns the
    /// files written (directories as their files), in the order added.
    pub fn commit(self) -> Result<Vec<PathBuf>, CommitError> {
        let mut staged = Staged::default();
        let mut streams: Streams<'a> = Vec::new();
        let mut written = Vec::new();
        for item in self.items {
            match item {
                Item::Stdout(c) => streams.push((None, c)),
                Item::Stream(p, c) => streams.push((Some(p), c)),
                Item::File(target, c) => {
                    stage_file(&mut staged, &mut streams, &target, c)?;
                    written.push(target);
                }
                Item::Dir(target, files) => {
                    written.extend(files.iter().map(|(n, _)| target.join(n)));
                    stage_dir(&mut staged, &mut streams, &target, files)?;
                }
            }
        }
        // Streams before renames: a stream that fails (its reader went away, /dev/full)
        // still leaves every file output untouched.
        for (path, content) in streams {
            match path {
                None => {
                    let mut out = io::stdout().lock();
                    match content.write_to(&mut out).and_then(|()| out.flush()) {
                        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                            STDOUT_CLOSED.store(true, Ordering::SeqCst);
                        }
                        r => r.map_err(at(Path::new("standard output")))?,
                    }
                }
                Some(p) => write_stream(&p, content).map_err(at(&p))?,
            }
        }
        let mut dirs = Vec::new();
        for (temp, target) in &staged.renames {
            fs::rename(temp, target).map_err(at(target))?;
            if let Some(d) = target.parent()
                && !dirs.contains(&d)
            {
                dirs.push(d);
            }
        }
        for d in dirs {
            sync_dir(d);
        }
        staged.committed = true;
        Ok(written)
    }
}

/// Set once standard output's reader has gone away.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Whether standard output's reader went away during this process (`| head -1`): the
/// output it stopped reading was cut short on purpose, so a command says nothing more
/// about it and exits 0.
pub fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(Ordering::SeqCst)
}

/// Writes `text` to standard output. A reader that went away ends the output quietly
/// (recorded for [`stdout_closed`]); any other failure is returned. (`print!` would
/// panic on either.)
pub fn print_stdout(text: &str) -> io::Result<()> {
    if stdout_closed() {
        return Ok(());
    }
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            STDOUT_CLOSED.store(true, Ordering::SeqCst);
            Ok(())
        }
        r => r,
    }
}

/// Stages one file: a temp file beside a regular target; a stream target (e.g. a FIFO
/// already inside an output directory) joins the streams.
fn stage_file<'a>(
    staged: &mut Staged,
    streams: &mut Streams<'a>,
    target: &Path,
    content: Content<'a>,
) -> Result<(), CommitError> {
    let target = resolve(target).map_err(at(target))?;
    if fs::metadata(&target).is_ok_and(|m| is_stream(&m)) {
        streams.push((Some(target), content));
        return Ok(());
    }
    if target.file_name().is_none() {
        return Err(at(&target)(io::Error::new(
            io::ErrorKind::InvalidInput,
            "no file name",
        )));
    }
    let temp = temp_beside(&target);
    // Registered before writing so a failed write still removes it.
    staged.renames.push((temp.clone(), target.clone()));
    write_temp(&temp, content).map_err(at(&target))
}

/// Stages a directory: into an existing one, file by file; a new one is built as a
/// temp directory beside it and renamed into place whole.
fn stage_dir<'a>(
    staged: &mut Staged,
    streams: &mut Streams<'a>,
    target: &Path,
    files: Vec<(String, Content<'a>)>,
) -> Result<(), CommitError> {
    if fs::metadata(target).is_ok_and(|m| m.is_dir()) {
        for (name, content) in files {
            stage_file(staged, streams, &target.join(name), content)?;
        }
        return Ok(());
    }
    let parent = target.parent().unwrap_or(Path::new("/"));
    let missing: Vec<PathBuf> = parent
        .ancestors()
        .take_while(|a| fs::symlink_metadata(a).is_err())
        .map(Path::to_path_buf)
        .collect();
    for d in missing.into_iter().rev() {
        fs::create_dir(&d).map_err(at(&d))?;
        staged.created.push(d);
    }
    let temp = temp_beside(target);
    fs::create_dir(&temp).map_err(at(target))?;
    staged.temp_dirs.push(temp.clone());
    staged.renames.push((temp.clone(), target.to_path_buf()));
    for (name, content) in files {
        write_temp(&temp.join(&name), content).map_err(at(&target.join(&name)))?;
    }
    sync_dir(&temp);
    Ok(())
}

/// Writes `path` all-or-nothing (the one-file form of [`Batch`]).
///
/// `write` fills a temp file created next to `path`'s target (same directory, so the
/// final rename is atomic). Only when it returns `Ok` and the data are synced is the temp
/// file renamed over the target. If `write` fails or panics, the temp file is removed
/// and the target is left as it was. A symlink is followed (the link stays); a device,
/// FIFO or socket is written directly.
pub fn atomic_write<F>(path: &Path, write: F) -> io::Result<()>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    if path.file_name().is_none() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("output path '{}' has no file name", path.display()),
        ));
    }
    let mut staged = Staged::default();
    let mut streams = Vec::new();
    stage_file(
        &mut staged,
        &mut streams,
        path,
        Content::Writer(Box::new(write)),
    )
    .map_err(|e| e.source)?;
    for (p, content) in streams {
        write_stream(p.as_deref().unwrap_or(path), content)?;
    }
    for (temp, target) in &staged.renames {
        fs::rename(temp, target)?;
        sync_dir(target.parent().unwrap_or(Path::new("/")));
    }
    staged.committed = true;
    Ok(())
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

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_kept_and_its_target_updated() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        let link = dir.path().join("link.txt");
        fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink("real.txt", &link).unwrap();
        write_string_atomically(&link, "new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        // A dangling link creates its target.
        let dangling = dir.path().join("d.txt");
        std::os::unix::fs::symlink("made.txt", &dangling).unwrap();
        write_string_atomically(&dangling, "x").unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("made.txt")).unwrap(),
            "x"
        );
    }

    #[test]
    fn a_failing_output_leaves_no_output_of_the_batch() {
        let dir = tempfile::tempdir().unwrap();
        let a = check("--json", &dir.path().join("a.json"), Expect::File).unwrap();
        let b = check("--csv", &dir.path().join("b.csv"), Expect::File).unwrap();
        let old = dir.path().join("old");
        fs::create_dir(&old).unwrap();
        fs::write(old.join("x.svg"), "keep").unwrap();
        let svg = check("--svg", &old, Expect::Dir).unwrap();
        let new_dir = check("--svg", &dir.path().join("n/m"), Expect::Dir).unwrap();
        let mut batch = Batch::new();
        batch.file(&a, "{}".to_string());
        batch.dir(&svg, vec![("x.svg".into(), "new".to_string().into())]);
        batch.dir(&new_dir, vec![("y.svg".into(), "y".to_string().into())]);
        batch.file(
            &b,
            Content::Writer(Box::new(|w| {
                w.write_all(b"partial")?;
                Err(io::Error::new(io::ErrorKind::StorageFull, "injected"))
            })),
        );
        let e = batch.commit().unwrap_err();
        assert!(e.to_string().contains("b.csv") && e.to_string().contains("injected"));
        let mut left: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert_eq!(left, ["old"], "temps or outputs left behind");
        assert_eq!(fs::read_dir(&old).unwrap().count(), 1);
        assert_eq!(fs::read_to_string(old.join("x.svg")).unwrap(), "keep");
    }

    #[test]
    fn checks_name_the_flag_and_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let e = check("--json", dir.path(), Expect::File)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--json ") && e.contains("is a directory"),
            "{e}"
        );
        let f = dir.path().join("f");
        fs::write(&f, "").unwrap();
        let e = check("--svg", &f, Expect::Dir).unwrap_err().to_string();
        assert!(e.contains("not a directory"), "{e}");
        let e = check("--csv", &dir.path().join("no/x.csv"), Expect::File)
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not exist"), "{e}");
        assert!(check("--svg", Path::new("-"), Expect::Dir).is_err());
        let a = check("--json", &f, Expect::File).unwrap();
        let b = check("--csv", &dir.path().join("./f"), Expect::File).unwrap();
        let e = check_distinct(&[(&a, vec![]), (&b, vec![])], &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--csv") && e.contains("--json"), "{e}");
        let e = check_distinct(&[(&a, vec![])], &[("--trace", &f)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--trace"), "{e}");
    }
}
