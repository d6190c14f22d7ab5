//! Line-based traces parsed in pieces on worker threads, with a result identical to
//! reading the trace one line at a time: the same requests in the same order, the same
//! warnings, and the same first error naming the same line.
//!
//! Source: the split / parse / merge-in-order scheme of parallel text parsers (a
//! producer cuts the text at line ends; workers parse pieces independently; a consumer
//! takes the pieces back in the order they were cut). Why: decompressing zstd runs at
//! over 1 GB/s, faster than one core parses lines, and a parser that waits on one core
//! while the decompressor runs on the other cannot keep up with it.
//!
//! ```text
//! cutter thread:   skip the format's header lines (numbering them)
//!                  loop: read CHUNK bytes more (decompressed already, on their own thread)
//!                        cut after the last line end; keep the rest for the next piece
//!                        (a `\r` at the very end stays: a `\n` may follow)
//!                        send piece k to worker k mod W
//! worker j:        for each piece: run the shared line splitter (`Lines`) and the format's
//!                  parser over it, numbering lines from 1 within the piece, until the
//!                  first bad line; piece 0 with a copy of the parser as opened, the others
//!                  with its fork (the state after a data line)
//! reader (caller): take pieces from workers 0, 1, …, W-1, 0, … (that is, in cut order);
//!                  line = lines in earlier pieces + line within the piece; yield records,
//!                  then the piece's error if it has one (the stream ends there)
//!                  a forked piece with no data line before it is parsed again by a copy of
//!                  the parser as opened (a header may be its first data line)
//! ```
//!
//! A parser whose lines depend on earlier lines in any other way (fio: file names and
//! clock) has no fork and is run by one worker over the pieces in order. A trace whose
//! whole text was read for detection is parsed on the caller's thread, without threads.

use super::input::ByteStream;
use super::lex::MAX_LINE;
use super::reader::{LineError, LineParser, Lines, Parsed, Record, Records, io_after, too_long};
use crate::workload::TraceError;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// Bytes per piece: large enough that the hand-over cost per piece vanishes, small
/// enough that the first requests arrive soon and memory stays small.
pub(crate) const CHUNK: usize = 1 << 20;

/// Pieces queued per worker, each way.
const AHEAD: usize = 2;

/// Most workers: beyond this the single consumer is the limit.
const MAX_WORKERS: usize = 4;

/// How a trace is cut and parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Bytes read per piece (a piece is cut at the last line end within it, or grows
    /// until a line ends).
    pub chunk_bytes: usize,
    /// Parsing threads; 0 = cut and parse on the caller's thread.
    pub workers: usize,
}

impl Plan {
    /// The plan for a trace: on the caller's thread when its whole text is already in
    /// memory (`small`), else one worker per core (at most [`MAX_WORKERS`]).
    pub(crate) fn auto(small: bool) -> Plan {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Plan {
            chunk_bytes: CHUNK,
            workers: if small {
                0
            } else {
                cores.clamp(1, MAX_WORKERS)
            },
        }
    }
}

/// Why reading stopped after a piece.
enum Stop {
    /// The reader failed after the piece's bytes.
    Io(io::Error),
    /// A header line longer than [`MAX_LINE`], at this line number.
    TooLong(u64, String),
}

/// A piece of text as cut.
struct Job {
    bytes: Vec<u8>,
    /// Header lines read before the first piece (0 for the others).
    header_lines: u64,
    /// Reading stopped after this piece (an error, or the end of the trace).
    last: bool,
    stop: Option<Stop>,
}

/// One data line of a piece as parsed.
#[derive(Clone, Copy)]
struct Item {
    /// Line number within the piece (header lines included in the first piece).
    line: u64,
    parsed: Parsed,
    /// The line's text in [`Piece::texts`], kept for skipped lines only (quoted in
    /// warnings); empty for the others.
    text: (u32, u32),
}

/// A piece as parsed.
struct Piece {
    bytes: Vec<u8>,
    header_lines: u64,
    items: Vec<Item>,
    texts: Vec<u8>,
    /// Physical lines in the piece.
    lines: u64,
    /// The first bad line: its number within the piece, what was expected, what was
    /// found.
    failure: Option<(u64, String, String)>,
    last: bool,
    stop: Option<Stop>,
    /// Parsed by a fork of the parser (not the parser as opened).
    forked: bool,
    /// The worker that parsed it, to hand its buffers back.
    worker: usize,
}

/// Parses the data lines of `bytes` (whole lines, the last maybe unterminated) into
/// `piece`, numbering them after `header_lines`; stops at the first bad line.
fn parse_into<P: LineParser>(parser: &mut P, piece: &mut Piece) {
    piece.items.clear();
    piece.texts.clear();
    piece.failure = None;
    let mut lines = Lines::new(&piece.bytes[..], 0).starting_after(piece.header_lines);
    loop {
        match lines.next_line() {
            Ok(Some((line, text))) => match parser.parse(text) {
                Ok(parsed) => {
                    let range = if matches!(parsed, Parsed::Skip(_)) {
                        let start = piece.texts.len();
                        piece.texts.extend_from_slice(text);
                        (start as u32, piece.texts.len() as u32)
                    } else {
                        (0, 0)
                    };
                    piece.items.push(Item {
                        line,
                        parsed,
                        text: range,
                    });
                }
                Err(expected) => {
                    let expected = expected.to_string();
                    let found = super::lex::found_text(text);
                    piece.failure = Some((line, expected, found));
                    break;
                }
            },
            Ok(None) => break,
            Err(LineError::TooLong(line, found)) => {
                let expected = format!("a line of at most {MAX_LINE} bytes");
                piece.failure = Some((line, expected, found));
                break;
            }
            // Reading a slice does not fail.
            Err(LineError::Io(e, _)) => unreachable!("reading bytes in memory failed: {e}"),
        }
    }
    piece.lines = lines.line_no();
}

/// Cuts a byte stream into pieces that end at line ends.
struct Cutter {
    reader: Option<ByteStream>,
    /// Header lines still to skip (read on the first call).
    skip: u64,
    /// Bytes after the last cut: the start of the next piece.
    carry: Vec<u8>,
    chunk: usize,
    /// Emptied piece buffers handed back by the consumer.
    spent: Option<Receiver<Vec<u8>>>,
    /// An emptied piece buffer to use next (on the caller's thread).
    spare: Vec<u8>,
}

impl Cutter {
    fn new(reader: ByteStream, skip: u64, chunk: usize) -> Self {
        Cutter {
            reader: Some(reader),
            skip,
            carry: Vec::new(),
            chunk: chunk.max(1),
            spent: None,
            spare: Vec::new(),
        }
    }

    /// The next piece; `None` once the last one was given.
    fn next_job(&mut self) -> Option<Job> {
        let mut reader = self.reader.take()?;
        let mut header_lines = 0;
        if self.skip > 0 {
            let lines = Lines::new(BufReader::with_capacity(64 * 1024, reader), self.skip);
            self.skip = 0;
            match lines.skip_header() {
                // The buffered reader keeps what it read past the header.
                Ok((r, n)) => {
                    reader = Box::new(r);
                    header_lines = n;
                }
                Err(e) => {
                    let (stop, n) = match e {
                        LineError::Io(e, n) => (Stop::Io(e), n),
                        LineError::TooLong(line, found) => (Stop::TooLong(line, found), line),
                    };
                    return Some(Job {
                        bytes: Vec::new(),
                        header_lines: n,
                        last: true,
                        stop: Some(stop),
                    });
                }
            }
        }
        let mut bytes = std::mem::take(&mut self.spare);
        if bytes.capacity() == 0
            && let Some(r) = &self.spent
        {
            bytes = r.try_recv().unwrap_or_default();
        }
        bytes.clear();
        bytes.append(&mut self.carry);
        let mut want = self.chunk;
        loop {
            let had = bytes.len();
            let need = want.saturating_sub(had).max(1);
            bytes.reserve(need);
            let read = reader.by_ref().take(need as u64).read_to_end(&mut bytes);
            let (eof, stop) = match read {
                Ok(n) => (n < need, None),
                Err(e) => (true, Some(Stop::Io(e))),
            };
            if eof && stop.is_none() {
                // The end: everything left is the last piece.
                return Some(Job {
                    bytes,
                    header_lines,
                    last: true,
                    stop: None,
                });
            }
            // A `\r` at the very end may be the first half of `\r\n`: not a cut.
            let region = bytes.len() - usize::from(bytes.last() == Some(&b'\r'));
            let cut = memchr::memrchr2(b'\n', b'\r', &bytes[..region]).map_or(0, |p| p + 1);
            if region - cut > MAX_LINE {
                // A line longer than any allowed: the piece ends the trace with the error
                // for it (the splitter quotes its start), before any read error after it.
                return Some(Job {
                    bytes,
                    header_lines,
                    last: true,
                    stop: None,
                });
            }
            if stop.is_some() {
                // After a read error the partial last line is lost, as it is when reading
                // line by line.
                bytes.truncate(cut);
                return Some(Job {
                    bytes,
                    header_lines,
                    last: true,
                    stop,
                });
            }
            if cut > 0 {
                self.carry.extend_from_slice(&bytes[cut..]);
                self.reader = Some(reader);
                bytes.truncate(cut);
                return Some(Job {
                    bytes,
                    header_lines,
                    last: false,
                    stop: None,
                });
            }
            // A line longer than the piece: read on until it ends.
            want = bytes.len() + self.chunk;
        }
    }
}

/// Parses pieces with a parser as opened (piece 0) or its fork (the others, when there
/// is one; else the one parser goes on over every piece in order).
struct Worker<P> {
    opened: P,
    fork: Option<P>,
    /// Piece 0 was parsed.
    started: bool,
    index: usize,
}

impl<P: LineParser + Clone> Worker<P> {
    fn parse(&mut self, job: Job, items: Vec<Item>, texts: Vec<u8>) -> Piece {
        let mut piece = Piece {
            bytes: job.bytes,
            header_lines: job.header_lines,
            items,
            texts,
            lines: 0,
            failure: None,
            last: job.last,
            stop: job.stop,
            forked: false,
            worker: self.index,
        };
        // Piece 0 is the first piece worker 0 gets.
        let first = !self.started && self.index == 0;
        self.started = true;
        match &mut self.fork {
            Some(fork) if !first => {
                piece.forked = true;
                parse_into(fork, &mut piece);
            }
            _ => parse_into(&mut self.opened, &mut piece),
        }
        piece
    }
}

/// Where the consumer's pieces come from.
enum Source<P> {
    /// Cut and parsed on the caller's thread.
    Inline { cutter: Cutter, worker: Worker<P> },
    /// From worker threads, taken in turn.
    Threads {
        pieces: Vec<Receiver<Piece>>,
        next: usize,
        spent_bytes: SyncSender<Vec<u8>>,
        spent_items: Vec<SyncSender<(Vec<Item>, Vec<u8>)>>,
    },
}

/// The records of a line-based trace, parsed in pieces (see the module comment).
pub(crate) struct ChunkRecords<P> {
    source: Source<P>,
    /// A copy of the parser as opened: its units and names, and to parse again a forked
    /// piece that had no data line before it.
    opened: P,
    path: PathBuf,
    cur: Piece,
    idx: usize,
    /// Lines in the pieces before `cur`.
    base: u64,
    /// A data line was seen in the pieces before `cur`.
    seen_data: bool,
    /// The stream ended (its last piece or error was given).
    ended: bool,
}

fn empty_piece() -> Piece {
    Piece {
        bytes: Vec::new(),
        header_lines: 0,
        items: Vec::new(),
        texts: Vec::new(),
        lines: 0,
        failure: None,
        last: false,
        stop: None,
        forked: false,
        worker: 0,
    }
}

impl<P: LineParser + Clone + 'static> ChunkRecords<P> {
    /// Records of `stream` (the trace's text from its start) named `path`.
    pub(crate) fn new(stream: ByteStream, parser: P, path: &Path, plan: Plan) -> Self {
        let fork = parser.fork();
        let workers = if fork.is_some() {
            plan.workers
        } else {
            plan.workers.min(1)
        };
        let mut cutter = Cutter::new(stream, parser.skip_lines(), plan.chunk_bytes);
        let worker = |index| Worker {
            opened: parser.clone(),
            fork: fork.clone(),
            started: false,
            index,
        };
        let source = if workers == 0 {
            Source::Inline {
                cutter,
                worker: worker(0),
            }
        } else {
            let (spent_bytes, spent_rx) = sync_channel(workers * (AHEAD + 1));
            cutter.spent = Some(spent_rx);
            let mut jobs = Vec::with_capacity(workers);
            let mut pieces = Vec::with_capacity(workers);
            let mut spent_items = Vec::with_capacity(workers);
            for j in 0..workers {
                let (job_tx, job_rx) = sync_channel::<Job>(AHEAD);
                let (piece_tx, piece_rx) = sync_channel::<Piece>(AHEAD);
                let (items_tx, items_rx) = sync_channel::<(Vec<Item>, Vec<u8>)>(AHEAD + 2);
                let mut w = worker(j);
                std::thread::spawn(move || {
                    for job in job_rx {
                        let (items, texts) = items_rx.try_recv().unwrap_or_default();
                        // A closed channel means the reader was dropped: stop quietly.
                        if piece_tx.send(w.parse(job, items, texts)).is_err() {
                            return;
                        }
                    }
                });
                jobs.push(job_tx);
                pieces.push(piece_rx);
                spent_items.push(items_tx);
            }
            std::thread::spawn(move || {
                let mut k = 0;
                while let Some(job) = cutter.next_job() {
                    if jobs[k % jobs.len()].send(job).is_err() {
                        return;
                    }
                    k += 1;
                }
            });
            Source::Threads {
                pieces,
                next: 0,
                spent_bytes,
                spent_items,
            }
        };
        ChunkRecords {
            source,
            opened: parser,
            path: path.to_path_buf(),
            cur: empty_piece(),
            idx: 0,
            base: 0,
            seen_data: false,
            ended: false,
        }
    }

    /// Moves to the next piece, handing the current one's buffers back.
    fn advance(&mut self) -> Result<(), TraceError> {
        self.base += self.cur.lines;
        self.seen_data |= !self.cur.items.is_empty();
        let old = std::mem::replace(&mut self.cur, empty_piece());
        let next = match &mut self.source {
            Source::Inline { cutter, worker } => {
                // Inline, the buffers are simply reused.
                cutter.spare = old.bytes;
                cutter
                    .next_job()
                    .map(|job| worker.parse(job, old.items, old.texts))
            }
            Source::Threads {
                pieces,
                next,
                spent_bytes,
                spent_items,
            } => {
                if old.bytes.capacity() > 0 {
                    let _ = spent_bytes.try_send(old.bytes);
                }
                if old.items.capacity() > 0 {
                    let _ = spent_items[old.worker].try_send((old.items, old.texts));
                }
                let got = pieces[*next].recv().ok();
                *next = (*next + 1) % pieces.len();
                got
            }
        };
        let Some(mut piece) = next else {
            // Every stream ends with a piece marked last; a thread that stopped before
            // that is a failure, not the end of the trace.
            self.ended = true;
            return Err(io_after(
                &self.path,
                self.base,
                &io::Error::other("the trace parsing thread stopped"),
            ));
        };
        if piece.forked && !self.seen_data {
            // The fork assumed a data line before this piece; there was none.
            let mut opened = self.opened.clone();
            parse_into(&mut opened, &mut piece);
            piece.forked = false;
        }
        self.cur = piece;
        self.idx = 0;
        Ok(())
    }

    /// The error ending the current piece, if any.
    fn piece_error(&mut self) -> Option<TraceError> {
        if let Some((line, expected, found)) = self.cur.failure.take() {
            return Some(TraceError::Malformed {
                path: self.path.clone(),
                line: self.base + line,
                expected,
                found,
            });
        }
        match self.cur.stop.take()? {
            Stop::Io(e) => Some(io_after(&self.path, self.base + self.cur.lines, &e)),
            Stop::TooLong(line, found) => Some(too_long(&self.path, self.base + line, found)),
        }
    }
}

impl<P: LineParser + Clone + 'static> Records for ChunkRecords<P> {
    #[inline]
    fn next_record(&mut self) -> Result<Option<Record<'_>>, TraceError> {
        while self.idx == self.cur.items.len() {
            if self.ended {
                return Ok(None);
            }
            if let Some(e) = self.piece_error() {
                self.ended = true;
                return Err(e);
            }
            if self.cur.last {
                self.ended = true;
                return Ok(None);
            }
            self.advance()?;
        }
        let item = self.cur.items[self.idx];
        self.idx += 1;
        Ok(Some(Record {
            line: self.base + item.line,
            parsed: item.parsed,
            text: &self.cur.texts[item.text.0 as usize..item.text.1 as usize],
        }))
    }

    fn time_unit(&self) -> &'static str {
        self.opened.time_unit()
    }

    fn ignore_reason(&self) -> &'static str {
        self.opened.ignore_reason()
    }
}

#[cfg(test)]
mod tests {
    //! The chunked reader against the line-by-line one ([`LineRecords`]), both through
    //! the same [`Pipeline`]: every request, warning and error must be the same, for any
    //! piece size, worker count, read-buffer size and way the bytes arrive.

    use super::super::reader::{Fit, LineRecords, Pipeline};
    use super::super::warn::Collector;
    use super::super::{
        Warnings, ascii::Ascii, delimited::Delimited, fio::Fio, msr::Msr, tencent::Tencent,
    };
    use super::*;
    use proptest::prelude::*;

    /// Hands out at most `step` bytes per read, then fails with `fail` (if given) at the
    /// end of `data`, as a corrupt compressed stream does.
    struct Dribble {
        data: Vec<u8>,
        pos: usize,
        step: usize,
        fail: bool,
    }

    impl Read for Dribble {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.pos == self.data.len() {
                return if self.fail {
                    Err(io::Error::other("gzip data is corrupt or cut short"))
                } else {
                    Ok(0)
                };
            }
            let n = out.len().min(self.step).min(self.data.len() - self.pos);
            out[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }

    /// Everything a pipeline over `records` yields, as text, then its warnings.
    fn run<S: Records>(records: S) -> (Vec<String>, Vec<String>) {
        let warnings = Warnings::default();
        let pipe = Pipeline::new(
            records,
            Path::new("t.trace"),
            None,
            Fit::Reject { cap: 1 << 50 },
            Collector::new(warnings.clone()),
        );
        let out = pipe
            .map(|r| match r {
                Ok(q) => format!("{q:?}"),
                Err(e) => format!("error: {e}"),
            })
            .collect();
        (out, warnings.snapshot())
    }

    /// Serial (reference) and chunked results for `text` read by `parser`.
    #[allow(clippy::type_complexity)]
    fn both<P: LineParser + Clone + 'static>(
        parser: P,
        text: &[u8],
        plan: Plan,
        buffer: usize,
        step: usize,
        fail: bool,
    ) -> ((Vec<String>, Vec<String>), (Vec<String>, Vec<String>)) {
        let dribble = || Dribble {
            data: text.to_vec(),
            pos: 0,
            step: step.max(1),
            fail,
        };
        let serial = run(LineRecords::new(
            BufReader::with_capacity(buffer.max(1), dribble()),
            parser.clone(),
            Path::new("t.trace"),
        ));
        let chunked = run(ChunkRecords::new(
            Box::new(dribble()),
            parser,
            Path::new("t.trace"),
            plan,
        ));
        (serial, chunked)
    }

    /// One line of a random trace of `format` (0 ascii, 1 msr, 2 fio v3, 3 csv): mostly
    /// requests, some comments, blank lines, headers and bad lines.
    fn line(format: u8, pick: u8, n: u64) -> String {
        match (pick % 16, format) {
            (0, _) => "# a comment".into(),
            (1, _) => String::new(),
            (2, _) => "  \t ".into(),
            (3, 1) => "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime".into(),
            (3, 2) => format!("{n} /dev/sdb open"),
            (3, _) => "time dev lba size op".into(),
            (4, _) if pick > 200 => "1 2 x".into(),
            (5, 2) => format!("{n} /dev/sdc write {} 4096", n * 4096),
            (_, 0) => format!("{} {} {} {} {}", n * 1000, n % 3, n * 8, 8 + n % 9, n % 2),
            (_, 1) => format!(
                "{},hm,{},{},{},4096,77",
                128_166_372_003_061_629 + n,
                n % 2,
                if n.is_multiple_of(3) { "Read" } else { "Write" },
                n * 4096
            ),
            (_, 2) => format!("{n} /dev/sdb read {} 8192", n * 512),
            (_, _) => format!("{},{},{},{}", n * 3, n * 4096, 4096, n % 2),
        }
    }

    fn trace(format: u8, picks: &[u8], ends: &[u8]) -> Vec<u8> {
        let mut text = Vec::new();
        if format == 2 {
            text.extend_from_slice(b"fio version 3 iolog\n");
        }
        for (i, (&p, &e)) in picks.iter().zip(ends.iter().cycle()).enumerate() {
            text.extend_from_slice(line(format, p, i as u64).as_bytes());
            text.extend_from_slice(match e % 5 {
                0 => b"\r\n",
                1 => b"\r",
                _ => b"\n",
            });
        }
        text
    }

    fn check(format: u8, text: &[u8], plan: Plan, buffer: usize, step: usize, fail: bool) {
        let (serial, chunked) = match format {
            0 => both(Ascii, text, plan, buffer, step, fail),
            1 => both(Msr::default(), text, plan, buffer, step, fail),
            2 => both(Fio::default(), text, plan, buffer, step, fail),
            _ => {
                let spec = "time=0:ms,offset=1:bytes,size=2:bytes,op=3,delim=',',skip=2,\
                            read=0,write=1";
                let p = Delimited::new(spec.parse().unwrap());
                both(p, text, plan, buffer, step, fail)
            }
        };
        assert_eq!(
            serial, chunked,
            "{plan:?}, buffer {buffer}, reads of {step}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        #[test]
        fn chunked_parse_is_the_serial_parse(
            format in 0u8..4,
            picks in proptest::collection::vec(any::<u8>(), 0..120),
            ends in proptest::collection::vec(any::<u8>(), 1..8),
            chunk in 1usize..160,
            workers in 0usize..4,
            buffer in 1usize..200,
            step in 1usize..300,
            fail in any::<bool>(),
            cut in any::<prop::sample::Index>(),
        ) {
            let mut text = trace(format, &picks, &ends);
            if fail {
                // A stream that breaks somewhere, maybe inside a line.
                let at = cut.index(text.len() + 1);
                text.truncate(at);
            }
            let plan = Plan { chunk_bytes: chunk, workers };
            check(format, &text, plan, buffer, step, fail);
        }
    }

    #[test]
    fn long_lines_and_line_ends_at_every_piece_boundary() {
        // Lines longer than a piece, a line of exactly the longest length, one longer,
        // and `\r\n` split at every position.
        let mut text = b"0 0 0 8 0\r\n".to_vec();
        text.extend(std::iter::repeat_n(b' ', MAX_LINE - 9));
        text.extend_from_slice(b"1 0 8 8 1\r\n2 0 16 8 0\r");
        let mut over = text.clone();
        over.extend(std::iter::repeat_n(b'7', MAX_LINE + 5));
        over.extend_from_slice(b"\n3 0 8 8 1\n");
        for chunk in [
            1,
            2,
            3,
            7,
            11,
            12,
            13,
            1000,
            MAX_LINE,
            MAX_LINE + 1,
            MAX_LINE + 20,
        ] {
            for workers in [0, 2] {
                let plan = Plan {
                    chunk_bytes: chunk,
                    workers,
                };
                for t in [&text, &over] {
                    check(0, t, plan, 4096, 5000, false);
                    check(0, t, plan, 4096, 5000, true);
                }
            }
        }
    }

    #[test]
    fn a_header_after_a_piece_of_only_comments_is_still_a_header() {
        // The pieces after the first are parsed by a fork that assumes a data line came
        // before; with only comments before, the piece is parsed again as opened.
        let mut text = "# c\n".repeat(50).into_bytes();
        text.extend_from_slice(b"timestamp,offset,size,type,volume\n1.5,8,8,0,1\n");
        let plan = Plan {
            chunk_bytes: 16,
            workers: 3,
        };
        let (serial, chunked) = both(Tencent::default(), &text, plan, 64, 7, false);
        assert_eq!(serial, chunked);
        assert_eq!(chunked.0.len(), 1, "{chunked:?}");
    }

    #[test]
    fn errors_name_the_line_in_the_whole_trace() {
        let mut text = String::new();
        for i in 0..5000 {
            text.push_str(&format!("{i} 0 {i} 8 1\n"));
        }
        text.push_str("# c\n\n5000 0 oops 8 1\n5001 0 1 8 1\n");
        let plan = Plan {
            chunk_bytes: 4096,
            workers: 2,
        };
        let (serial, chunked) = both(Ascii, text.as_bytes(), plan, 4096, 1 << 20, false);
        assert_eq!(serial, chunked);
        let last = chunked.0.last().unwrap();
        assert!(last.starts_with("error: t.trace:5003: expected"), "{last}");
        assert_eq!(chunked.0.len(), 5001);
    }
}
