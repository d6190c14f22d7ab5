//! Block-trace readers. One file per format; all stream the file (never load it whole)
//! and report bad lines as `file:line: expected …, found '…'`.
//!
//! [`open_trace`] opens a file, detects its format when none is given (see
//! [`TraceFormat`] and `detect.rs`), and returns a stream of [`IoRequest`]s in bytes with
//! arrival times relative to the first request, plus [`Warnings`] filled while the stream
//! is consumed. The pipeline every format shares (`reader.rs`):
//!
//! 1. lines: `#` comment lines (first non-blank byte `#`) and blank lines are skipped
//!    everywhere; `\r\n` endings are accepted; lines longer than 64 KiB are errors (text is
//!    cut into pieces parsed on worker threads and merged back in order: `chunked.rs`);
//! 2. the format's parser turns a line into a request (or says it is not one);
//! 3. the device filter ([`TraceOptions::device`]) drops other devices;
//! 4. zero-size reads/writes/trims are dropped (counted in the warnings);
//! 5. times become `arrival_ns` relative to the first kept request; a time earlier than
//!    the previous request's gets the previous arrival (never backwards), with a warning;
//! 6. the fit policy ([`FitPolicy`]) maps requests onto `capacity_bytes`.
//!
//! The first malformed line ends the stream with [`TraceError::Malformed`]; nothing is
//! yielded after an error. No input makes a reader panic: arithmetic on trace values is
//! checked, and an overflow is a malformed line. `docs/traces.md` is the user's guide.

mod ascii;
mod blkparse;
mod blktrace;
mod chunked;
mod delimited;
mod detect;
mod disksim;
mod fio;
mod heimdall;
mod input;
mod lex;
mod msr;
mod reader;
mod tencent;
mod warn;
mod write;
mod ws5;

pub use delimited::{
    COLUMNS_EXAMPLE, CSV_CANONICAL_COLUMNS, ColumnItemError, ColumnSpec, ColumnSpecError,
};
pub use input::{Compression, blktrace_files};
pub use reader::Expected;
pub use write::{TraceWriter, write_header, write_request};

use super::{IoRequest, OpKind, RequestStream, TraceError};
use crate::registry::{Named, Registry};
use input::ByteStream;
use reader::{Fit, LineParser, Pipeline, Records};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::io::{BufRead, Cursor, Seek};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use warn::Collector;

/// A trace format: a handle on its entry in the registry ([`FORMATS`], or one added by
/// [`register`]). Made only from a registered spec, so [`TraceFormat::spec`] always finds
/// it; compared and printed by its name. The built-in formats have constants
/// (`TraceFormat::Msr`, …) for the code that names one.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceFormat(&'static str);

// The built-in formats by name, for code and tests that name one (`TraceFormat::Msr`);
// each takes its name from its file's spec, so the name is written once.
#[allow(non_upper_case_globals)]
impl TraceFormat {
    /// MSR Cambridge CSV (`msr.rs`).
    pub const Msr: TraceFormat = TraceFormat(msr::SPEC.name);
    /// SSD-simulator ASCII (`ascii.rs`).
    pub const Ascii: TraceFormat = TraceFormat(ascii::SPEC.name);
    /// DiskSim ASCII (`disksim.rs`).
    pub const Disksim: TraceFormat = TraceFormat(disksim::SPEC.name);
    /// blkparse text (`blkparse.rs`).
    pub const Blkparse: TraceFormat = TraceFormat(blkparse::SPEC.name);
    /// SNIA Tencent CBS CSV (`tencent.rs`).
    pub const Tencent: TraceFormat = TraceFormat(tencent::SPEC.name);
    /// Heimdall's MSR cut (`heimdall.rs`).
    pub const Heimdall: TraceFormat = TraceFormat(heimdall::SPEC.name);
    /// Generic delimited text (`delimited.rs`).
    pub const Csv: TraceFormat = TraceFormat(delimited::SPEC.name);
    /// blktrace binary (`blktrace.rs`).
    pub const Blktrace: TraceFormat = TraceFormat(blktrace::SPEC.name);
    /// fio iolog (`fio.rs`).
    pub const Fio: TraceFormat = TraceFormat(fio::SPEC.name);
}

impl TraceFormat {
    /// Every built-in format, in documentation order (the order of [`FORMATS`]).
    pub const ALL: [TraceFormat; FORMATS.len()] = {
        let mut all = [TraceFormat(""); FORMATS.len()];
        let mut i = 0;
        while i < FORMATS.len() {
            all[i] = TraceFormat(FORMATS[i].name);
            i += 1;
        }
        all
    };

    /// Every format: the built-in ones, then those added by [`register`] in their order.
    pub fn all() -> Vec<TraceFormat> {
        specs().into_iter().map(FormatSpec::format).collect()
    }

    /// The name used on the command line and in configs (`msr`, `ascii`, …).
    pub fn name(self) -> &'static str {
        self.0
    }

    /// The format's entry in the registry.
    pub fn spec(self) -> &'static FormatSpec {
        lookup(self.0).expect("a TraceFormat is made only from a registered spec")
    }
}

impl fmt::Debug for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// One trace format: its name, its reader and its writer, and what a line can carry.
/// Each format's file exports its own (`msr::SPEC`, …); [`FORMATS`] lists them.
pub struct FormatSpec {
    /// Its name on the command line and in configs.
    pub name: &'static str,
    /// One line for `ssdlab list` and `--help`.
    pub summary: &'static str,
    /// The operations a line can carry (every format carries a time, a device, an
    /// offset, a size and an operation).
    pub ops: &'static [OpKind],
    /// What a written request keeps, for messages and docs: a request read back is the
    /// same to this resolution.
    pub resolution: &'static str,
    /// What a written file starts with.
    header: &'static str,
    /// Builds the reader's stream (`open_source` has opened and detected the bytes).
    read: Reader,
    /// Writes one request (`None`: a format that is only read).
    write: Option<write::WriteFn>,
    /// Writes what follows the last request, if anything.
    end: Option<write::EndFn>,
}

impl FormatSpec {
    /// The format's handle.
    pub fn format(&self) -> TraceFormat {
        TraceFormat(self.name)
    }

    /// A line-based format read by `parse` and never written, for formats defined outside
    /// this crate and added with [`register`]. `parse` gets one data line (comments, blank
    /// lines and line endings are handled by the shared line reader) and returns the
    /// request with `arrival_ns` as the line's absolute time in ns, or what was expected
    /// (reported as `file:line: expected …, found '…'`). `time_unit` names the time
    /// column's unit in warnings.
    pub const fn lines(
        name: &'static str,
        summary: &'static str,
        ops: &'static [OpKind],
        time_unit: &'static str,
        parse: ParseLineFn,
    ) -> FormatSpec {
        FormatSpec {
            name,
            summary,
            ops,
            resolution: "",
            header: "",
            read: Reader::Lines { parse, time_unit },
            write: None,
            end: None,
        }
    }
}

/// A line parser of a format defined outside this crate (see [`FormatSpec::lines`]).
pub type ParseLineFn = fn(&[u8]) -> Result<IoRequest, Expected>;

/// How a format's stream is built.
enum Reader {
    /// By the format's own code in this crate.
    Own(ReadFn),
    /// By a [`ParseLineFn`] under the shared line reader.
    Lines {
        parse: ParseLineFn,
        time_unit: &'static str,
    },
}

/// Builds a format's request stream from the opening context and, for blktrace, the
/// per-CPU files of the set.
type ReadFn = for<'c, 'a> fn(&'c mut Ctx<'a>, Vec<PathBuf>) -> Result<RequestStream, TraceError>;

/// Reads and writes.
const RW: &[OpKind] = &[OpKind::Read, OpKind::Write];
/// Reads, writes and the zone operations (the ASCII layout's op codes).
const RW_ZONES: &[OpKind] = &[
    OpKind::Read,
    OpKind::Write,
    OpKind::ZoneAppend,
    OpKind::ZoneReset,
    OpKind::ZoneFinish,
    OpKind::ZoneOpen,
    OpKind::ZoneClose,
    OpKind::ZoneReport(0),
];
/// Reads, writes, trims and flushes.
const ALL_OPS: &[OpKind] = &[OpKind::Read, OpKind::Write, OpKind::Trim, OpKind::Flush];

/// The registry of built-in trace formats, in documentation order: one line per format,
/// whose file exports its spec. The readers (`open_source`), the writers
/// (`gen-trace --out-format`, [`write_request`]), the names ([`TraceFormat::ALL`],
/// `ssdlab list`, `--help`) and detection's list of names come from it.
pub const FORMATS: [&FormatSpec; 9] = [
    &msr::SPEC,
    &ascii::SPEC,
    &disksim::SPEC,
    &blkparse::SPEC,
    &tencent::SPEC,
    &heimdall::SPEC,
    &delimited::SPEC,
    &blktrace::SPEC,
    &fio::SPEC,
];

/// The formats: the built-ins, then those added at run time by [`register`] (a plug-in,
/// a test).
static REGISTRY: Registry<FormatSpec> = Registry::new(&FORMATS);

impl Named for FormatSpec {
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
}

/// Adds a format defined outside this crate to the registry: from then on it is listed,
/// parsed by name (`--format NAME`, configs) and read by [`open_trace`] like a built-in
/// one. Refuses a name already taken. Detection never guesses it: name it.
pub fn register(spec: &'static FormatSpec) -> Result<TraceFormat, TraceError> {
    REGISTRY.register(spec).map_err(|_| {
        TraceError::Option(format!(
            "trace format '{}' is already registered",
            spec.name
        ))
    })?;
    Ok(spec.format())
}

/// Every spec: the built-in ones, then the registered ones.
fn specs() -> Vec<&'static FormatSpec> {
    REGISTRY.all()
}

/// The spec named `name` exactly.
fn lookup(name: &str) -> Option<&'static FormatSpec> {
    REGISTRY.get(name)
}

/// The names of every format, `a, b or c`, for detection's messages: csv last, as the one
/// that needs a column spec besides its name.
pub(crate) fn names_or() -> String {
    let mut names: Vec<&str> = specs().iter().map(|f| f.name).collect();
    names.sort_by_key(|n| *n == delimited::SPEC.name);
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

impl Serialize for TraceFormat {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for TraceFormat {
    /// By exact name, as the derived enum did; the message is serde's own.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        lookup(&s)
            .map(FormatSpec::format)
            .ok_or_else(|| serde::de::Error::custom(REGISTRY.unknown(&s)))
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TraceFormat {
    type Err = TraceError;

    fn from_str(s: &str) -> Result<Self, TraceError> {
        let want = s.trim().to_ascii_lowercase();
        lookup(&want).map(FormatSpec::format).ok_or_else(|| {
            TraceError::Option(format!(
                "unknown trace format '{s}' (known: {})",
                TraceFormat::all()
                    .into_iter()
                    .map(TraceFormat::name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
    }
}

/// What to do with requests past the end of the simulated device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum FitPolicy {
    /// Stop with an error naming the line.
    #[default]
    Reject,
    /// Offset modulo capacity. A request that then crosses the end is split in two (the
    /// rest continues at offset 0, same arrival); one larger than the device is first
    /// shortened to the capacity. Both are counted in the warnings.
    Wrap,
    /// Scale offsets linearly so the trace's highest address fits: a streaming pre-pass
    /// finds the highest end offset, then each offset is multiplied by
    /// `capacity / highest end`, rounded down to a 4 KiB page, keeping its position within
    /// the page. Sizes are unchanged; a request that would end past the device is moved
    /// back by whole pages. A trace that already fits is left as it is.
    Scale,
}

impl FromStr for FitPolicy {
    type Err = TraceError;

    fn from_str(s: &str) -> Result<Self, TraceError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "reject" => Ok(FitPolicy::Reject),
            "wrap" => Ok(FitPolicy::Wrap),
            "scale" => Ok(FitPolicy::Scale),
            _ => Err(TraceError::Option(format!(
                "unknown fit policy '{s}' (known: reject, wrap, scale)"
            ))),
        }
    }
}

/// Which blkparse event lines are requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum BlkparseEvent {
    /// `Q`: queued — what the application asked for, before merging (the default).
    #[default]
    #[serde(alias = "q", alias = "Q")]
    Queue,
    /// `D`: issued to the device driver, after the I/O scheduler merged and reordered.
    #[serde(alias = "d", alias = "D")]
    Issue,
    /// `C`: completed.
    #[serde(alias = "c", alias = "C")]
    Complete,
}

impl FromStr for BlkparseEvent {
    type Err = TraceError;

    fn from_str(s: &str) -> Result<Self, TraceError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "q" | "queue" | "queued" => Ok(BlkparseEvent::Queue),
            "d" | "issue" | "issued" => Ok(BlkparseEvent::Issue),
            "c" | "complete" | "completed" => Ok(BlkparseEvent::Complete),
            _ => Err(TraceError::Option(format!(
                "unknown blkparse event '{s}' (known: Q = queued, D = issued, C = completed)"
            ))),
        }
    }
}

/// Shared list of warnings a reader collects while it streams.
///
/// Each entry is one kind of problem with its count and first examples, e.g.
/// `timestamps go backwards at 12 lines (first at line 3: …)`. Counts are refreshed every
/// few thousand requests and are final once the stream has ended or been dropped.
#[derive(Clone, Debug, Default)]
pub struct Warnings(pub Arc<Mutex<Vec<String>>>);

impl Warnings {
    /// A copy of the warnings so far.
    pub fn snapshot(&self) -> Vec<String> {
        self.0.lock().map(|v| v.clone()).unwrap_or_default()
    }
}

/// An opened trace: its request stream and the warnings it collects.
pub struct OpenedTrace {
    /// Requests in file order.
    pub requests: RequestStream,
    /// Sanity-check warnings (filled in while `requests` is consumed).
    pub warnings: Warnings,
    /// The format read (the detected one when none was given).
    pub format: TraceFormat,
    /// How the bytes were compressed (recognised by their magic number).
    pub compression: Compression,
}

impl fmt::Debug for OpenedTrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenedTrace")
            .field("format", &self.format)
            .field("warnings", &self.warnings)
            .finish_non_exhaustive()
    }
}

/// Options for opening a trace.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TraceOptions {
    /// `None` = detect from the file's first lines.
    pub format: Option<TraceFormat>,
    /// Keep only this device / disk / volume number.
    pub device: Option<u32>,
    /// Policy for requests past the device end.
    pub fit: FitPolicy,
    /// Logical capacity of the simulated device, bytes.
    pub capacity_bytes: u64,
    /// Column spec for [`TraceFormat::Csv`] (see [`ColumnSpec`]); giving one without a
    /// format selects `csv`.
    #[serde(default)]
    pub columns: Option<String>,
    /// Which blkparse events are requests.
    #[serde(default)]
    pub blkparse_event: BlkparseEvent,
}

impl Default for TraceOptions {
    /// Detect the format, every device, reject requests past the end of a device of
    /// `u64::MAX` bytes (that is: no limit — set the simulated capacity).
    fn default() -> Self {
        TraceOptions {
            format: None,
            device: None,
            fit: FitPolicy::Reject,
            capacity_bytes: u64::MAX,
            columns: None,
            blkparse_event: BlkparseEvent::Queue,
        }
    }
}

/// Opens `path` as a trace: a file, a FIFO (`<(zcat x.gz)`), or standard input for `-`;
/// compressed (gzip, bzip2, xz, zstd) or not, recognised by the first bytes. For the
/// blktrace format `path` may also be the base name `NAME` of blktrace's per-CPU files
/// `NAME.blktrace.N`, or any one of them: all of them are read and merged by time.
pub fn open_trace(path: &Path, opts: &TraceOptions) -> Result<OpenedTrace, TraceError> {
    let maybe_blktrace = opts.format.is_none_or(|f| f == TraceFormat::Blktrace);
    let set = if maybe_blktrace && !input::is_stdin(path) {
        input::blktrace_files(path)
    } else {
        Vec::new()
    };
    if !set.is_empty() && !path.exists() {
        // A base name: open the first per-CPU file for detection.
        let first = set[0].clone();
        let mut open = move || input::open_raw(&first);
        return open_source(path, opts, &mut open, true, set);
    }
    let rewindable = input::rewindable(path);
    // A file of the set stands for the set only when it is one of blktrace's own names.
    let set = if set.iter().any(|p| p.file_name() == path.file_name()) {
        set
    } else {
        Vec::new()
    };
    let mut open = || input::open_raw(path);
    open_source(path, opts, &mut open, rewindable, set)
}

/// Reads a trace from any seekable buffered reader (a file, a `Cursor` over bytes);
/// `name` stands for the file in messages and its extension helps format detection.
/// Compressed bytes are decompressed. Reading starts at the reader's current position;
/// the scale policy's second pass seeks back to it.
pub fn open_reader<R>(
    reader: R,
    name: &Path,
    opts: &TraceOptions,
) -> Result<OpenedTrace, TraceError>
where
    R: BufRead + Seek + Send + 'static,
{
    let shared = std::sync::Arc::new(std::sync::Mutex::new(reader));
    let io_err = |e: std::io::Error| input::io_error(name, e);
    let start = shared
        .lock()
        .map_err(|_| input::io_error(name, std::io::Error::other("poisoned")))?
        .stream_position()
        .map_err(io_err)?;
    let mut open = || -> Result<ByteStream, TraceError> {
        shared
            .lock()
            .map_err(|_| input::io_error(name, std::io::Error::other("poisoned")))?
            .seek(std::io::SeekFrom::Start(start))
            .map_err(io_err)?;
        Ok(Box::new(input::Shared(shared.clone())))
    };
    open_source(name, opts, &mut open, true, Vec::new())
}

/// Reads a trace from a stream that cannot seek (a socket, a child's output, bytes
/// arriving over a channel). Like [`open_trace`] on a pipe: compression and format are
/// recognised from the first bytes; the scale fit policy is refused, as it needs two
/// passes.
pub fn open_stream<R>(
    reader: R,
    name: &Path,
    opts: &TraceOptions,
) -> Result<OpenedTrace, TraceError>
where
    R: std::io::Read + Send + 'static,
{
    let mut once: Option<ByteStream> = Some(Box::new(reader));
    let mut open = || {
        once.take().ok_or_else(|| {
            TraceError::Option(format!(
                "{}: the stream can be read only once",
                name.display()
            ))
        })
    };
    open_source(name, opts, &mut open, false, Vec::new())
}

/// Parses `bytes` as a trace in `format` (overriding `opts.format`) and collects every
/// item of the stream — the requests, then the error if there is one. Meant for fuzzing,
/// tests and small in-memory traces; errors opening the stream come back as the only item.
pub fn parse_bytes(
    format: TraceFormat,
    bytes: &[u8],
    opts: &TraceOptions,
) -> Vec<Result<IoRequest, TraceError>> {
    let opts = TraceOptions {
        format: Some(format),
        ..opts.clone()
    };
    match open_reader(Cursor::new(bytes.to_vec()), Path::new("<bytes>"), &opts) {
        Ok(t) => t.requests.collect(),
        Err(e) => vec![Err(e)],
    }
}

/// The shared opening path: decompress, read the head, pick the format, fail early on a
/// trace with nothing in it, and build the stream. `open` gives the raw bytes from the
/// start; it is called again only for the scale policy's second pass, and only when
/// `rewindable`.
fn open_source(
    name: &Path,
    opts: &TraceOptions,
    open: &mut dyn FnMut() -> Result<ByteStream, TraceError>,
    rewindable: bool,
    blktrace_set: Vec<PathBuf>,
) -> Result<OpenedTrace, TraceError> {
    let headed = input::open_headed(open()?, name)?;
    let compression = headed.compression;
    let format = match (opts.format, &opts.columns) {
        (Some(f), _) => f,
        (None, Some(_)) => TraceFormat::Csv,
        (None, None) => detect::detect_head(&headed.head, headed.eof, name)?,
    };
    // The whole trace is in the head and there is nothing in it: say so now rather than
    // after setting up a stream of nothing.
    if headed.eof && blktrace_set.len() <= 1 {
        let nothing = if format == TraceFormat::Blktrace {
            headed.head.is_empty()
        } else {
            !detect::has_data_line(&headed.head)
        };
        if nothing {
            return Err(TraceError::Empty {
                path: name.to_path_buf(),
                reason: if headed.head.is_empty() {
                    "the trace is empty".into()
                } else {
                    "the trace has only comments and blank lines".into()
                },
            });
        }
    }
    let warnings = Warnings::default();
    let plan = chunked::Plan::auto(headed.eof);
    let mut ctx = Ctx {
        name,
        opts,
        warnings: &warnings,
        open,
        rewindable,
        first: Some(headed.into_stream()),
        plan,
    };
    let requests = match &format.spec().read {
        Reader::Own(read) => read(&mut ctx, blktrace_set)?,
        Reader::Lines { parse, time_unit } => ctx.lines(reader::FnParser {
            parse: *parse,
            time_unit,
        })?,
    };
    Ok(OpenedTrace {
        requests,
        warnings,
        format,
        compression,
    })
}

/// What building a stream needs besides the records.
struct Ctx<'a> {
    name: &'a Path,
    opts: &'a TraceOptions,
    warnings: &'a Warnings,
    open: &'a mut dyn FnMut() -> Result<ByteStream, TraceError>,
    rewindable: bool,
    /// The stream opened for detection, used by the first pass.
    first: Option<ByteStream>,
    /// How line-based text is cut into pieces and parsed.
    plan: chunked::Plan,
}

impl Ctx<'_> {
    /// [`Ctx::build`] for a line-based format.
    fn lines<P>(&mut self, parser: P) -> Result<RequestStream, TraceError>
    where
        P: LineParser + Clone + 'static,
    {
        let name = self.name.to_path_buf();
        let plan = self.plan;
        self.build(move |stream| {
            Ok(chunked::ChunkRecords::new(
                stream,
                parser.clone(),
                &name,
                plan,
            ))
        })
    }

    /// Sets up the fit policy (running the scale pre-pass over a first reading of the
    /// trace) and boxes the pipeline. `make` turns the trace's (decompressed) bytes from
    /// the start into records.
    fn build<S, F>(&mut self, mut make: F) -> Result<RequestStream, TraceError>
    where
        S: Records + 'static,
        F: FnMut(ByteStream) -> Result<S, TraceError>,
    {
        let cap = self.opts.capacity_bytes;
        let mut warn = Collector::new(self.warnings.clone());
        let need_room = |policy: &str| {
            if cap == 0 {
                Err(TraceError::Option(format!(
                    "the {policy} fit policy needs a device capacity above 0 bytes"
                )))
            } else {
                Ok(())
            }
        };
        let first = self.first.take().expect("build runs once");
        let (fit, stream) = match self.opts.fit {
            FitPolicy::Reject => (Fit::Reject { cap }, first),
            FitPolicy::Wrap => {
                need_room("wrap")?;
                (Fit::Wrap { cap }, first)
            }
            FitPolicy::Scale => {
                need_room("scale")?;
                if !self.rewindable {
                    return Err(TraceError::Option(format!(
                        "{}: the scale fit policy reads the trace twice (to find its highest \
                         address first), and a pipe or standard input can be read only once; \
                         save the trace to a file, or use --trace-fit wrap",
                        self.name.display()
                    )));
                }
                let max_end = reader::max_end(make(first)?, self.opts.device);
                let again = input::open_headed((self.open)()?, self.name)?.into_stream();
                let fit = if max_end <= cap {
                    warn.note(format!(
                        "scale: the trace's highest address ({max_end} B) fits the device \
                         ({cap} B); offsets are left as they are"
                    ));
                    Fit::Reject { cap }
                } else {
                    warn.note(format!(
                        "scale: offsets multiplied by {:.6} to map the trace's {max_end} B \
                         onto the device's {cap} B (rounded to 4 KiB pages, sizes unchanged)",
                        cap as f64 / max_end as f64
                    ));
                    Fit::Scale { cap, max_end }
                };
                (fit, again)
            }
        };
        Ok(Box::new(Pipeline::new(
            make(stream)?,
            self.name,
            self.opts.device,
            fit,
            warn,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print() {
        for f in TraceFormat::ALL {
            assert_eq!(f.to_string().parse::<TraceFormat>().unwrap(), f);
        }
        let e = "csvv".parse::<TraceFormat>().unwrap_err().to_string();
        assert!(e.contains("unknown trace format 'csvv'"), "{e}");
        assert_eq!("Scale".parse::<FitPolicy>().unwrap(), FitPolicy::Scale);
        assert_eq!("D".parse::<BlkparseEvent>().unwrap(), BlkparseEvent::Issue);
        assert!("X".parse::<BlkparseEvent>().is_err());
    }

    #[test]
    fn options_from_config_without_the_new_fields() {
        let o: TraceOptions =
            toml::from_str("format = \"msr\"\nfit = \"wrap\"\ncapacity_bytes = 1024\n").unwrap();
        assert_eq!(o.format, Some(TraceFormat::Msr));
        assert_eq!(o.columns, None);
        assert_eq!(o.blkparse_event, BlkparseEvent::Queue);
        let o: TraceOptions = toml::from_str(
            "fit = \"reject\"\ncapacity_bytes = 1\nblkparse_event = \"D\"\ncolumns = \"x\"\n",
        )
        .unwrap();
        assert_eq!(o.blkparse_event, BlkparseEvent::Issue);
        assert_eq!(o.columns.as_deref(), Some("x"));
    }
}
