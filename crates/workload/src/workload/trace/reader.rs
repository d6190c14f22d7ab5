//! The format-independent half of every reader: line splitting, comment handling, time
//! rebasing, device filtering, sanity checks and the fit policy. A format only turns one
//! line into a [`RawRequest`]; everything else is shared so all formats behave alike.

use super::lex::{MAX_LINE, found_text, human_ns, is_blank};
use super::warn::{Collector, Kind};
use crate::workload::{IoRequest, OpKind, TraceError};
use std::borrow::Cow;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// Why a line is not a request: what was expected there. Its text is the `expected` of
/// [`TraceError::Malformed`] (`file:line: expected …, found '…'`), so the variants keep
/// the messages' wording; the typed fields say which layout, field and rule.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Expected {
    /// A field of the layout is not what it must be.
    #[error("{layout} (field {index}, {name}, must be {must})")]
    Field {
        /// The line layout.
        layout: Cow<'static, str>,
        /// 1-based field number.
        index: usize,
        /// The field's name in the layout.
        name: Cow<'static, str>,
        /// What it must be.
        must: Cow<'static, str>,
    },
    /// The line has the wrong number of fields.
    #[error("{layout} (the line has {found} field{})", plural(*.found))]
    Count {
        /// The line layout.
        layout: Cow<'static, str>,
        /// How many fields it has.
        found: usize,
    },
    /// A request whose end does not fit a `u64`.
    #[error("offset + size to stay below 2^64 bytes")]
    EndOverflow,
    /// A problem with the line as a whole, quoted after its layout.
    #[error("{layout} ({inner})")]
    Layout {
        /// The line layout.
        layout: Cow<'static, str>,
        /// What is wrong.
        inner: Box<Expected>,
    },
    /// Anything else, as text.
    #[error("{0}")]
    Other(Cow<'static, str>),
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

impl From<String> for Expected {
    fn from(s: String) -> Self {
        Expected::Other(Cow::Owned(s))
    }
}

impl From<&'static str> for Expected {
    fn from(s: &'static str) -> Self {
        Expected::Other(Cow::Borrowed(s))
    }
}

impl Expected {
    /// This error placed after `layout`: `layout (this)`.
    pub(crate) fn in_layout(self, layout: impl Into<Cow<'static, str>>) -> Expected {
        Expected::Layout {
            layout: layout.into(),
            inner: Box::new(self),
        }
    }
}

/// One request as a format parser reads it: absolute time, bytes, before rebasing,
/// filtering and fitting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawRequest {
    /// Absolute timestamp in nanoseconds, in the trace's own epoch.
    pub time_ns: u64,
    /// Device number as the format defines it.
    pub device: u32,
    /// First byte.
    pub offset: u64,
    /// Length in bytes.
    pub size: u64,
    /// Operation.
    pub op: OpKind,
    /// FDP placement identifier, where the format carries one (ASCII's optional sixth
    /// column); `None` otherwise.
    pub placement: Option<u16>,
}

impl RawRequest {
    /// Builds a request, refusing ranges whose end does not fit a `u64` so later stages can
    /// add `offset + size` without overflow checks.
    #[inline]
    pub(crate) fn new(
        time_ns: u64,
        device: u32,
        offset: u64,
        size: u64,
        op: OpKind,
    ) -> Result<Self, Expected> {
        if offset.checked_add(size).is_none() {
            return Err(Expected::EndOverflow);
        }
        Ok(RawRequest {
            time_ns,
            device,
            offset,
            size,
            op,
            placement: None,
        })
    }
}

/// What a format parser made of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Parsed {
    /// A request.
    Request(RawRequest),
    /// A line that is expected and carries no request (another blkparse action).
    Ignore,
    /// A line that is not data; counted in the warnings under this kind.
    Skip(Kind),
}

/// Turns one data line (no newline, not blank, not a comment) into a request.
pub(crate) trait LineParser: Send {
    /// Parses `line`. `Err` holds what was expected, for [`TraceError::Malformed`].
    fn parse(&mut self, line: &[u8]) -> Result<Parsed, Expected>;
    /// The unit of the time column, for warnings (`ns`, `ms`, …).
    fn time_unit(&self) -> &'static str;
    /// How many lines at the start of the file are headers to skip unread.
    fn skip_lines(&self) -> u64 {
        0
    }
    /// Why a line came back as [`Parsed::Ignore`], for the message when nothing was kept.
    fn ignore_reason(&self) -> &'static str {
        "carry no request"
    }
    /// A parser for a later piece of the trace, in the state this one would be in after
    /// any one data line, whatever that line was; `None` (the default) when what a line
    /// means depends on the lines before it in any other way (fio's file names and
    /// clock), so the trace must be parsed in order by one parser. Pieces of a trace are
    /// parsed side by side with forks (`chunked.rs`).
    fn fork(&self) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }
}

/// The [`LineParser`] of a format registered from outside the crate
/// ([`super::FormatSpec::lines`]): a stateless function of the line.
#[derive(Clone, Copy)]
pub(crate) struct FnParser {
    pub(crate) parse: super::ParseLineFn,
    pub(crate) time_unit: &'static str,
}

impl LineParser for FnParser {
    fn parse(&mut self, line: &[u8]) -> Result<Parsed, Expected> {
        let r = (self.parse)(line)?;
        RawRequest::new(r.arrival_ns, r.device, r.offset_bytes, r.size_bytes, r.op)
            .map(Parsed::Request)
    }

    fn time_unit(&self) -> &'static str {
        self.time_unit
    }

    fn fork(&self) -> Option<Self> {
        Some(*self)
    }
}

/// For the CSV layouts whose files may open with a column-name line (MSR, Tencent): the
/// first data line, if it is not numeric, is a header to skip; `seen_data` records that
/// the first line has been looked at.
#[inline]
pub(crate) fn header_once(seen_data: &mut bool, line: &[u8]) -> Option<Parsed> {
    if *seen_data {
        return None;
    }
    *seen_data = true;
    super::lex::is_header(line).then_some(Parsed::Skip(Kind::Header))
}

/// Builds the `expected` text of a field error: the layout plus which field is wrong.
pub(crate) fn field_error(
    layout: &'static str,
    index: usize,
    name: &'static str,
    must: &'static str,
) -> Expected {
    Expected::Field {
        layout: Cow::Borrowed(layout),
        index,
        name: Cow::Borrowed(name),
        must: Cow::Borrowed(must),
    }
}

/// The request of a whitespace-format line whose fields `c` has read: the line must end
/// there (else the field-count error), and `r` is the request or why it is impossible.
pub(crate) fn ws_finish(
    line: &[u8],
    c: &super::lex::WsCursor,
    layout: &'static str,
    r: Result<RawRequest, Expected>,
) -> Result<Parsed, Expected> {
    if !c.at_end() {
        return Err(count_error(layout, super::lex::WsFields::new(line).count()));
    }
    r.map(Parsed::Request).map_err(|m| m.in_layout(layout))
}

/// Error text for a bad field of a whitespace-separated line with `fields` fields: when
/// the line has the wrong number of fields, say that rather than blame one field (a
/// missing or extra field is the likelier mistake).
pub(crate) fn ws_field_error(
    line: &[u8],
    layout: &'static str,
    fields: usize,
    index: usize,
    name: &'static str,
    must: &'static str,
) -> Expected {
    let n = super::lex::WsFields::new(line).count();
    if n == fields {
        field_error(layout, index, name, must)
    } else {
        count_error(layout, n)
    }
}

/// Builds the `expected` text of a field-count error.
pub(crate) fn count_error(layout: &'static str, found: usize) -> Expected {
    Expected::Count {
        layout: Cow::Borrowed(layout),
        found,
    }
}

/// Why [`Lines::next_line`] stopped.
pub(crate) enum LineError {
    /// The reader failed after this many whole lines.
    Io(std::io::Error, u64),
    /// A line longer than [`MAX_LINE`] at this line number, and its start for messages.
    TooLong(u64, String),
}

/// Data lines of a reader: comments (`#` as first non-blank byte), blank lines and the
/// first `skip` lines are passed over. A line ends at `\n`, `\r\n` or a lone `\r` (old Mac
/// and some Windows tools write CR-only files; without this such a file is one huge line).
/// The line buffer is reused, so reading does not allocate per line.
pub(crate) struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    line_no: u64,
    skip: u64,
    /// Bytes of the reader's buffer handed out as the last line, consumed on the next
    /// call (lines wholly inside the buffer are parsed in place, without a copy).
    pending: usize,
}

/// Whether a line is data: past the header lines, not blank, not a `#` comment.
#[inline]
fn is_data(line: &[u8]) -> bool {
    match line.iter().position(|&b| !is_blank(b)) {
        None => false,
        Some(i) => line[i] != b'#',
    }
}

impl<R: BufRead> Lines<R> {
    /// Lines of `reader`, skipping the first `skip` physical lines.
    pub(crate) fn new(reader: R, skip: u64) -> Self {
        Lines {
            reader,
            buf: Vec::with_capacity(256),
            line_no: 0,
            skip,
            pending: 0,
        }
    }

    /// The next data line and its 1-based physical line number; `None` at the end.
    #[inline]
    pub(crate) fn next_line(&mut self) -> Result<Option<(u64, &[u8])>, LineError> {
        if self.pending > 0 {
            self.reader.consume(self.pending);
            self.pending = 0;
        }
        enum Step {
            Eof,
            Copy,
            Skip(usize),
            Line(usize, usize),
        }
        let (used, end) = loop {
            // Fast path: the whole line and its terminator are in the reader's buffer; look
            // at it in place. One search finds either terminator byte.
            let step = {
                let avail = self
                    .reader
                    .fill_buf()
                    .map_err(|e| LineError::Io(e, self.line_no))?;
                if avail.is_empty() {
                    Step::Eof
                } else if let Some(pos) =
                    memchr::memchr2(b'\n', b'\r', avail).filter(|&pos| pos <= MAX_LINE)
                {
                    // Length of the terminator; 0 = a `\r` at the buffer's end, where the
                    // next byte (maybe `\n`) is not known yet.
                    let term = if avail[pos] == b'\n' {
                        1
                    } else {
                        match avail.get(pos + 1) {
                            Some(b'\n') => 2,
                            Some(_) => 1,
                            None => 0,
                        }
                    };
                    if term == 0 {
                        Step::Copy
                    } else {
                        self.line_no += 1;
                        if self.line_no > self.skip && is_data(&avail[..pos]) {
                            Step::Line(pos + term, pos)
                        } else {
                            Step::Skip(pos + term)
                        }
                    }
                } else {
                    // The line runs past the buffer (or is over-long).
                    Step::Copy
                }
            };
            match step {
                Step::Eof => return Ok(None),
                Step::Copy => return self.next_line_copied(),
                Step::Skip(used) => self.reader.consume(used),
                Step::Line(used, end) => break (used, end),
            }
        };
        self.pending = used;
        // The buffer still holds the line: this returns it without reading.
        let avail = self
            .reader
            .fill_buf()
            .map_err(|e| LineError::Io(e, self.line_no))?;
        Ok(Some((self.line_no, &avail[..end])))
    }

    /// Reads one physical line into `self.buf` (without its terminator), across buffer
    /// refills. `false` at the end of the input.
    fn read_line_copied(&mut self) -> Result<bool, LineError> {
        self.buf.clear();
        loop {
            let avail = self
                .reader
                .fill_buf()
                .map_err(|e| LineError::Io(e, self.line_no))?;
            if avail.is_empty() {
                return Ok(!self.buf.is_empty());
            }
            let found = memchr::memchr2(b'\n', b'\r', avail);
            let take = found.unwrap_or(avail.len());
            if self.buf.len() + take > MAX_LINE {
                // Keep only what the error message needs; a newline-free file must not make
                // us buffer all of it.
                let room = MAX_LINE + 1 - self.buf.len().min(MAX_LINE + 1);
                self.buf.extend_from_slice(&avail[..take.min(room)]);
                self.line_no += 1;
                return Err(LineError::TooLong(self.line_no, found_text(&self.buf)));
            }
            self.buf.extend_from_slice(&avail[..take]);
            match found {
                None => self.reader.consume(take),
                Some(pos) => {
                    let cr = avail[pos] == b'\r';
                    self.reader.consume(pos + 1);
                    if cr {
                        // `\r\n` is one terminator, even split across two reads.
                        let next = self
                            .reader
                            .fill_buf()
                            .map_err(|e| LineError::Io(e, self.line_no))?;
                        if next.first() == Some(&b'\n') {
                            self.reader.consume(1);
                        }
                    }
                    return Ok(true);
                }
            }
        }
    }

    /// [`Lines::next_line`] for a line that is not wholly inside the reader's buffer.
    #[cold]
    fn next_line_copied(&mut self) -> Result<Option<(u64, &[u8])>, LineError> {
        loop {
            if !self.read_line_copied()? {
                return Ok(None);
            }
            self.line_no += 1;
            if self.line_no > self.skip && is_data(&self.buf) {
                break;
            }
        }
        Ok(Some((self.line_no, &self.buf[..])))
    }

    /// The last line number read.
    pub(crate) fn line_no(&self) -> u64 {
        self.line_no
    }

    /// Numbers the lines as if `n` lines had come before (a later piece of a trace).
    pub(crate) fn starting_after(mut self, n: u64) -> Self {
        self.line_no = n;
        self
    }

    /// Reads the header lines to skip (the `skip` of [`Lines::new`]) now, with the same
    /// errors as reading them one by one would give, and returns the reader positioned
    /// after them with the number of lines read.
    pub(crate) fn skip_header(mut self) -> Result<(R, u64), LineError> {
        if self.pending > 0 {
            self.reader.consume(self.pending);
            self.pending = 0;
        }
        while self.line_no < self.skip {
            match self.read_line_copied() {
                Ok(true) => self.line_no += 1,
                Ok(false) => break,
                Err(e) => return Err(e),
            }
        }
        Ok((self.reader, self.line_no))
    }
}

/// How requests are made to fit the device.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fit {
    /// Fail on a request past `cap`.
    Reject { cap: u64 },
    /// Offsets modulo `cap`; crossing requests are split.
    Wrap { cap: u64 },
    /// Offsets mapped linearly from `[0, max_end)` into `[0, cap)`.
    Scale { cap: u64, max_end: u64 },
}

/// Page size whose alignment scaling preserves.
const PAGE: u64 = 4096;

/// Maps a request into `[0, cap)` for the scale policy: the offset is scaled by
/// `cap / max_end`, rounded down to a 4 KiB page, and keeps its position within the page
/// (`offset % 4096`) so that aligned requests stay aligned and unaligned ones stay
/// unaligned the same way. Sizes are not scaled — request sizes are what the workload
/// is. A request that would then end past `cap` is moved back by whole pages; one larger
/// than the device is shortened to `cap`. Returns `(offset, size, moved, shortened)`.
pub(crate) fn scale_into(offset: u64, size: u64, cap: u64, max_end: u64) -> (u64, u64, bool, bool) {
    let shortened = size > cap;
    let size = size.min(cap);
    // offset < max_end, so the quotient is < cap and fits a u64.
    let scaled = (u128::from(offset) * u128::from(cap) / u128::from(max_end.max(1))) as u64;
    let mut off = (scaled - scaled % PAGE).saturating_add(offset % PAGE);
    let mut moved = false;
    if off > cap - size {
        moved = true;
        let over = off - (cap - size);
        let back = over.div_ceil(PAGE).saturating_mul(PAGE);
        // Going below 0 cannot keep the in-page position; start at 0 then (size <= cap).
        off = off.saturating_sub(back);
    }
    (off, size, moved, shortened)
}

/// One record of a trace as a [`Records`] source yields it.
pub(crate) struct Record<'a> {
    /// 1-based line (text formats) or record number (binary formats).
    pub line: u64,
    /// What the parser made of it.
    pub parsed: Parsed,
    /// The record's text, quoted in warnings about skipped records.
    pub text: &'a [u8],
}

/// A source of parsed records: the lines of a text format through its [`LineParser`]
/// ([`LineRecords`]), or the events of a binary format. The [`Pipeline`] does the rest.
pub(crate) trait Records: Send {
    /// The next record, `Ok(None)` at the end; an error ends the stream.
    fn next_record(&mut self) -> Result<Option<Record<'_>>, TraceError>;
    /// The unit of the time column, for warnings (`ns`, `ms`, …).
    fn time_unit(&self) -> &'static str;
    /// What the records are called in messages ("data lines", "events").
    fn noun(&self) -> &'static str {
        "data lines"
    }
    /// What one record's number counts ("line", "event").
    fn unit(&self) -> &'static str {
        "line"
    }
    /// Why a record came back as [`Parsed::Ignore`], for the message when nothing was kept.
    fn ignore_reason(&self) -> &'static str {
        "carry no request"
    }
}

/// The error for a read that failed after `line` whole lines.
pub(crate) fn io_after(path: &Path, line: u64, e: &std::io::Error) -> TraceError {
    TraceError::Io {
        path: path.to_path_buf(),
        message: format!("after line {line}: {e}"),
    }
}

/// The error for a line longer than [`MAX_LINE`].
pub(crate) fn too_long(path: &Path, line: u64, found: String) -> TraceError {
    TraceError::Malformed {
        path: path.to_path_buf(),
        line,
        expected: format!("a line of at most {MAX_LINE} bytes"),
        found,
    }
}

/// The lines of a reader through a format's [`LineParser`], one line at a time: the
/// plain serial reader, kept as the reference the chunked reader (`chunked.rs`) is
/// tested against.
#[cfg(test)]
pub(crate) struct LineRecords<R, P> {
    lines: Lines<R>,
    parser: P,
    path: PathBuf,
}

#[cfg(test)]
impl<R: BufRead, P: LineParser> LineRecords<R, P> {
    /// Records of `reader` (positioned at the start of the trace) named `path`.
    pub(crate) fn new(reader: R, parser: P, path: &Path) -> Self {
        let skip = parser.skip_lines();
        LineRecords {
            lines: Lines::new(reader, skip),
            parser,
            path: path.to_path_buf(),
        }
    }
}

#[cfg(test)]
impl<R: BufRead + Send, P: LineParser> Records for LineRecords<R, P> {
    #[inline]
    fn next_record(&mut self) -> Result<Option<Record<'_>>, TraceError> {
        let (line_no, line) = match self.lines.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => return Ok(None),
            Err(LineError::Io(e, n)) => return Err(io_after(&self.path, n, &e)),
            Err(LineError::TooLong(n, found)) => return Err(too_long(&self.path, n, found)),
        };
        match self.parser.parse(line) {
            Ok(parsed) => Ok(Some(Record {
                line: line_no,
                parsed,
                text: line,
            })),
            Err(expected) => Err(TraceError::Malformed {
                path: self.path.clone(),
                line: line_no,
                expected: expected.to_string(),
                found: found_text(line),
            }),
        }
    }

    fn time_unit(&self) -> &'static str {
        self.parser.time_unit()
    }

    fn ignore_reason(&self) -> &'static str {
        self.parser.ignore_reason()
    }
}

/// Most devices listed when `--trace-device` matched nothing.
const MAX_DEVICES_LISTED: usize = 32;

/// Sizes and devices seen, for the whole-trace checks at the end.
#[derive(Default)]
struct Stats {
    requests: u64,
    data_requests: u64,
    min_size: u64,
    max_size: u64,
    /// Records read (data lines or events).
    records: u64,
    /// Records that were no request ([`Parsed::Ignore`]).
    ignored: u64,
    /// Records skipped with a warning, and the first of them.
    skipped: u64,
    first_skip: Option<(u64, Kind, String)>,
    /// Requests for other devices than the one kept.
    other_device: u64,
    /// Zero-size requests dropped.
    zero_size: u64,
    /// Devices the filter rejected (the first few), to list when nothing matched.
    other_devices: std::collections::BTreeSet<u32>,
    /// More devices than listed were seen.
    more_devices: bool,
}

/// One day in nanoseconds: a gap longer than this between consecutive requests most likely
/// means the time unit is wrong.
const DAY_NS: u64 = 86_400_000_000_000;

/// The streaming reader: records → filter → time → checks → fit.
pub(crate) struct Pipeline<S> {
    source: S,
    path: PathBuf,
    device: Option<u32>,
    fit: Fit,
    base: Option<u64>,
    prev_arrival: u64,
    pending: Option<IoRequest>,
    done: bool,
    stats: Stats,
    warn: Collector,
}

impl<S: Records> Pipeline<S> {
    /// A reader over `source`.
    pub(crate) fn new(
        source: S,
        path: &Path,
        device: Option<u32>,
        fit: Fit,
        warn: Collector,
    ) -> Self {
        Pipeline {
            source,
            path: path.to_path_buf(),
            device,
            fit,
            base: None,
            prev_arrival: 0,
            pending: None,
            done: false,
            stats: Stats {
                min_size: u64::MAX,
                ..Stats::default()
            },
            warn,
        }
    }

    /// Stops the stream with `err`.
    fn fail(&mut self, err: TraceError) -> Option<Result<IoRequest, TraceError>> {
        self.done = true;
        self.warn.publish();
        Some(Err(err))
    }

    /// Why the stream kept no request: the error ending a stream that would otherwise be
    /// silently empty (a simulation of nothing).
    fn empty_error(&self) -> TraceError {
        let s = &self.stats;
        let noun = self.source.noun();
        let reason = if s.records == 0 {
            format!("the trace has no {noun} (it is empty, or only comments and blank lines)")
        } else if let Some(dev) = self.device
            && s.other_device > 0
        {
            let mut list: Vec<String> = s.other_devices.iter().map(u32::to_string).collect();
            if s.more_devices {
                list.push("…".into());
            }
            format!(
                "device {dev} not in trace; devices seen: {}",
                list.join(", ")
            )
        } else {
            let mut parts = Vec::new();
            if s.skipped > 0 {
                let (line, kind, text) = s.first_skip.as_ref().expect("a skip was recorded");
                parts.push(format!(
                    "{} {} (first at {} {line}: {text})",
                    s.skipped,
                    kind.what(),
                    self.source.unit()
                ));
            }
            if s.ignored > 0 {
                parts.push(format!("{} {}", s.ignored, self.source.ignore_reason()));
            }
            if s.zero_size > 0 {
                parts.push(format!("{} had size 0 (dropped)", s.zero_size));
            }
            if s.other_device > 0 {
                parts.push(format!("{} were for other devices", s.other_device));
            }
            format!(
                "none of its {} {noun} is a request that was kept: {}",
                s.records,
                parts.join("; ")
            )
        };
        TraceError::Empty {
            path: self.path.clone(),
            reason,
        }
    }

    /// The whole-trace checks, run once when the trace ends; `Err` when it kept nothing.
    fn finish(&mut self) -> Result<(), TraceError> {
        self.done = true;
        let unit = self.source.time_unit();
        let n = self.stats.requests;
        if n == 0 {
            self.warn.publish();
            return Err(self.empty_error());
        }
        let span = self.prev_arrival;
        if n >= 100 && span == 0 {
            self.warn.note(format!(
                "all {n} requests have the same arrival time: the timestamps (in {unit}) \
                 may be that coarse, or the time column is wrong"
            ));
        } else if n >= 1000 && span < n.saturating_mul(10) {
            self.warn.note(format!(
                "the {n} requests span only {} (more than 100 million requests/s): are \
                 the timestamps in a coarser unit than {unit}?",
                human_ns(span)
            ));
        } else if n >= 100 && span / n > 3_600_000_000_000 {
            self.warn.note(format!(
                "the {n} requests span {} (one every {} on average): are the timestamps \
                 in a finer unit than {unit}?",
                human_ns(span),
                human_ns(span / n)
            ));
        }
        let d = self.stats.data_requests;
        if d >= 100 && self.stats.max_size < 512 {
            self.warn.note(format!(
                "all {d} request sizes are below 512 B (largest {} B): is the size column \
                 in sectors or KiB rather than bytes?",
                self.stats.max_size
            ));
        } else if d >= 100 && self.stats.min_size >= 64 << 20 {
            self.warn.note(format!(
                "all {d} request sizes are at least 64 MiB (smallest {} B): is the size \
                 column in bytes rather than sectors?",
                self.stats.min_size
            ));
        }
        self.warn.publish();
        Ok(())
    }

    /// Rebases `time_ns` to the first request and keeps arrivals non-decreasing.
    #[inline]
    fn arrival(&mut self, time_ns: u64, line: u64) -> u64 {
        let base = *self.base.get_or_insert(time_ns);
        let prev = self.prev_arrival;
        match time_ns.checked_sub(base) {
            Some(a) if a >= prev => {
                if a - prev > DAY_NS {
                    self.warn
                        .count(Kind::LongGap, line, || format!("+{}", human_ns(a - prev)));
                }
                self.prev_arrival = a;
                a
            }
            a => {
                let behind = match a {
                    Some(a) => prev - a,
                    None => prev.saturating_add(base - time_ns),
                };
                self.warn.count(Kind::Backwards, line, || {
                    format!("{} before the previous request", human_ns(behind))
                });
                prev
            }
        }
    }
}

impl<S: Records> Iterator for Pipeline<S> {
    type Item = Result<IoRequest, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(p) = self.pending.take() {
            return Some(Ok(p));
        }
        if self.done {
            return None;
        }
        loop {
            let (line_no, raw) = match self.source.next_record() {
                Ok(Some(rec)) => {
                    self.stats.records += 1;
                    match rec.parsed {
                        Parsed::Request(r) => (rec.line, r),
                        Parsed::Ignore => {
                            self.stats.ignored += 1;
                            continue;
                        }
                        Parsed::Skip(kind) => {
                            let text = rec.text;
                            self.stats.skipped += 1;
                            if self.stats.first_skip.is_none() {
                                let quoted = format!("'{}'", found_text(text));
                                self.stats.first_skip = Some((rec.line, kind, quoted));
                            }
                            self.warn
                                .count(kind, rec.line, || format!("'{}'", found_text(text)));
                            continue;
                        }
                    }
                }
                Ok(None) => {
                    return match self.finish() {
                        Ok(()) => None,
                        Err(e) => Some(Err(e)),
                    };
                }
                Err(e) => return self.fail(e),
            };
            if let Some(want) = self.device
                && raw.device != want
            {
                self.stats.other_device += 1;
                let seen = &mut self.stats.other_devices;
                if seen.len() < MAX_DEVICES_LISTED {
                    seen.insert(raw.device);
                } else if !seen.contains(&raw.device) {
                    self.stats.more_devices = true;
                }
                continue;
            }
            // Flushes and zone management actions have no size; other ops need one.
            if raw.size == 0 && !raw.op.is_sizeless() {
                self.stats.zero_size += 1;
                self.warn.count(Kind::ZeroSize, line_no, String::new);
                continue;
            }
            let arrival_ns = self.arrival(raw.time_ns, line_no);
            self.stats.requests += 1;
            if !raw.op.is_sizeless() {
                self.stats.data_requests += 1;
                self.stats.min_size = self.stats.min_size.min(raw.size);
                self.stats.max_size = self.stats.max_size.max(raw.size);
                if !raw.size.is_multiple_of(512) {
                    self.warn
                        .count(Kind::OddSize, line_no, || format!("{} B", raw.size));
                }
            }
            self.warn.tick();
            let mut req = IoRequest::new(raw.op, raw.offset, raw.size)
                .at(arrival_ns)
                .on_device(raw.device)
                .with_placement(raw.placement);
            // `RawRequest::new` guarantees this does not overflow.
            let end = raw.offset + raw.size;
            match self.fit {
                Fit::Reject { cap } => {
                    if end > cap {
                        let err = TraceError::PastEnd {
                            path: self.path.clone(),
                            line: line_no,
                            end_bytes: end,
                            capacity_bytes: cap,
                        };
                        return self.fail(err);
                    }
                }
                Fit::Wrap { cap } => {
                    if end > cap {
                        self.warn
                            .count(Kind::Wrapped, line_no, || format!("ends at byte {end}"));
                        if req.size_bytes > cap {
                            self.warn
                                .count(Kind::Clipped, line_no, || format!("{} B", req.size_bytes));
                            req.size_bytes = cap;
                        }
                        req.offset_bytes %= cap;
                        let room = cap - req.offset_bytes;
                        if req.size_bytes > room {
                            self.warn.count(Kind::Split, line_no, String::new);
                            self.pending = Some(IoRequest {
                                offset_bytes: 0,
                                size_bytes: req.size_bytes - room,
                                ..req
                            });
                            req.size_bytes = room;
                        }
                    }
                }
                Fit::Scale { cap, max_end } => {
                    if req.op != OpKind::Flush {
                        let (off, size, moved, shortened) =
                            scale_into(raw.offset, raw.size, cap, max_end);
                        if shortened {
                            self.warn
                                .count(Kind::Clipped, line_no, || format!("{} B", raw.size));
                        }
                        if moved {
                            self.warn.count(Kind::Shifted, line_no, String::new);
                        }
                        req.offset_bytes = off;
                        req.size_bytes = size;
                    }
                }
            }
            return Some(Ok(req));
        }
    }
}

/// The scale policy's pre-pass: the highest end offset of the requests the main pass will
/// yield (same records, same device filter, zero-size and flush requests excluded). Streams
/// the source; stops quietly at the first error, which the main pass then reports.
pub(crate) fn max_end<S: Records>(mut source: S, device: Option<u32>) -> u64 {
    let mut max = 0;
    while let Ok(Some(rec)) = source.next_record() {
        if let Parsed::Request(r) = rec.parsed {
            if device.is_some_and(|d| d != r.device) || r.size == 0 || r.op == OpKind::Flush {
                continue;
            }
            max = max.max(r.offset + r.size);
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every buffer size, so lines fall wholly inside the buffer (parsed in place) and
    /// across its end (copied) in every combination: the results must be identical.
    #[test]
    fn lines_are_the_same_whatever_the_buffer_size() {
        let text =
            b"# c\r\n1 2 3\r\n\n  \t\nlonger line with several fields 1234567890\n# x\nE\n\nlast";
        let reference: Vec<(u64, Vec<u8>)> = {
            let mut l = Lines::new(&text[..], 1);
            let mut v = Vec::new();
            while let Ok(Some((n, line))) = l.next_line() {
                v.push((n, line.to_vec()));
            }
            v
        };
        assert_eq!(
            reference,
            vec![
                (2, b"1 2 3".to_vec()),
                (5, b"longer line with several fields 1234567890".to_vec()),
                (7, b"E".to_vec()),
                (9, b"last".to_vec()),
            ]
        );
        for cap in 1..=text.len() + 1 {
            let mut l = Lines::new(std::io::BufReader::with_capacity(cap, &text[..]), 1);
            let mut v = Vec::new();
            while let Ok(Some((n, line))) = l.next_line() {
                v.push((n, line.to_vec()));
            }
            assert_eq!(v, reference, "buffer of {cap} bytes");
        }
    }

    #[test]
    fn lines_skip_comments_blanks_and_crlf() {
        let text = b"# head\r\n\r\n  \t\nA B\r\n  # indented comment\nC\n\nD";
        let mut l = Lines::new(&text[..], 0);
        let mut got = Vec::new();
        while let Ok(Some((n, line))) = l.next_line() {
            got.push((n, line.to_vec()));
        }
        assert_eq!(
            got,
            vec![(4, b"A B".to_vec()), (6, b"C".to_vec()), (8, b"D".to_vec())]
        );
    }

    #[test]
    fn lines_skip_header_lines() {
        let mut l = Lines::new(&b"h1\nh2\nx\n"[..], 2);
        assert!(matches!(l.next_line(), Ok(Some((3, b"x")))));
        assert!(matches!(l.next_line(), Ok(None)));
    }

    #[test]
    fn too_long_line_is_an_error() {
        let text = vec![b'1'; MAX_LINE + 10];
        let mut l = Lines::new(&text[..], 0);
        assert!(matches!(l.next_line(), Err(LineError::TooLong(1, _))));
    }

    #[test]
    fn scale_keeps_page_position_and_stays_inside() {
        // Half-size device: 6 pages + 512 B becomes 3 pages + 512 B.
        let (off, size, moved, short) = scale_into(8192 * 3 + 512, 4096, 1 << 20, 2 << 20);
        assert_eq!((off, size, moved, short), (12288 + 512, 4096, false, false));
        // The topmost request is moved back so it ends inside.
        let (off, size, moved, _) = scale_into((2 << 20) - 8192, 8192, 1 << 20, 2 << 20);
        assert!(moved);
        assert!(off + size <= 1 << 20);
        assert_eq!(off % 4096, 0);
        // Larger than the device: shortened to it, at 0.
        assert_eq!(scale_into(0, 10_000, 4096, 20_000), (0, 4096, false, true));
        // A tiny device still never overflows.
        let (off, size, _, _) = scale_into(u64::MAX - 10, 10, 100, u64::MAX);
        assert!(off + size <= 100);
    }
}
