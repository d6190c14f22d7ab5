//! Where a trace's bytes come from, before any format sees them.
//!
//! A trace can be a regular file, a FIFO or process substitution (`<(zcat x.gz)`), or
//! standard input (`-`); none of these but the regular file can seek, so nothing here
//! seeks: the first bytes are read once into a *head*, inspected, and then replayed in
//! front of the rest of the stream.
//!
//! 1. Compression is recognised by the stream's first bytes (its magic number), never by
//!    the file name, so `cat x.gz |` works as well as `x.gz`: gzip (`1f 8b`, every member
//!    of a concatenated file), bzip2 (`BZh1`–`BZh9`, concatenated streams too), xz
//!    (`fd 37 7a 58 5a 00`, concatenated streams too) and zstd (`28 b5 2f fd`, every
//!    frame). A compressed stream is decompressed on a thread of its own, so the parser
//!    and the decompressor run side by side.
//! 2. The head of the (decompressed) text is what format detection reads; a UTF-8 byte
//!    order mark at its start is dropped.
//!
//! Only the scale fit policy needs a second pass; it reopens regular files and refuses
//! streams that cannot be read twice.

use crate::workload::TraceError;
use std::io::{self, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// A stream of trace bytes.
pub(crate) type ByteStream = Box<dyn Read + Send>;

/// The compressions recognised by their magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip (`.gz`), including concatenated members.
    Gzip,
    /// bzip2 (`.bz2`), including concatenated streams.
    Bzip2,
    /// xz (`.xz`), including concatenated streams.
    Xz,
    /// Zstandard (`.zst`), every frame.
    Zstd,
}

/// Longest magic number we look for.
const MAGIC_LEN: usize = 6;

impl Compression {
    /// The compression whose magic number `head` starts with.
    pub fn sniff(head: &[u8]) -> Compression {
        match head {
            [0x1f, 0x8b, ..] => Compression::Gzip,
            [b'B', b'Z', b'h', b'1'..=b'9', ..] => Compression::Bzip2,
            [0xfd, b'7', b'z', b'X', b'Z', 0x00, ..] => Compression::Xz,
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
            _ => Compression::None,
        }
    }

    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "plain",
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
        }
    }
}

/// Whether `path` names standard input.
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether `path` can be opened again for a second pass (a regular file, not `-`, a FIFO
/// or a `/dev/fd/N` of a pipe).
pub(crate) fn rewindable(path: &Path) -> bool {
    !is_stdin(path) && std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// The raw bytes of `path` (standard input for `-`).
pub(crate) fn open_raw(path: &Path) -> Result<ByteStream, TraceError> {
    if is_stdin(path) {
        return Ok(Box::new(io::stdin()));
    }
    let file = std::fs::File::open(path).map_err(|e| io_error(path, e))?;
    Ok(Box::new(file))
}

pub(crate) fn io_error(path: &Path, e: io::Error) -> TraceError {
    TraceError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Reads until `buf` holds `want` bytes or the stream ends; `true` at the end.
fn fill(r: &mut dyn Read, buf: &mut Vec<u8>, want: usize) -> io::Result<bool> {
    while buf.len() < want {
        let had = buf.len();
        buf.resize(want, 0);
        match r.read(&mut buf[had..]) {
            Ok(0) => {
                buf.truncate(had);
                return Ok(true);
            }
            Ok(n) => buf.truncate(had + n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => buf.truncate(had),
            Err(e) => {
                buf.truncate(had);
                return Err(e);
            }
        }
    }
    Ok(false)
}

/// `raw` decompressed if its first bytes are a known magic number.
pub(crate) fn decompress(
    mut raw: ByteStream,
    name: &Path,
) -> Result<(ByteStream, Compression), TraceError> {
    let mut magic = Vec::with_capacity(MAGIC_LEN);
    fill(&mut raw, &mut magic, MAGIC_LEN).map_err(|e| io_error(name, e))?;
    let kind = Compression::sniff(&magic);
    let joined: ByteStream = Box::new(Cursor::new(magic).chain(raw));
    let out: ByteStream = match kind {
        Compression::None => joined,
        Compression::Gzip => threaded(flate2::read::MultiGzDecoder::new(joined), kind),
        Compression::Bzip2 => threaded(bzip2::read::MultiBzDecoder::new(joined), kind),
        Compression::Xz => threaded(liblzma::read::XzDecoder::new_multi_decoder(joined), kind),
        Compression::Zstd => {
            let d = zstd::stream::read::Decoder::new(joined).map_err(|e| io_error(name, e))?;
            threaded(d, kind)
        }
    };
    Ok((out, kind))
}

/// How much of the text detection may look at: enough for its 32 sample lines in any
/// sane trace; lines longer than this are cut (and detection says it cannot tell).
pub(crate) const HEAD_MAX: usize = 256 * 1024;

/// Data lines the head should hold for detection (more than it samples, as some may be
/// comments).
const HEAD_LINES: usize = 64;

/// A decompressed stream with its first bytes read for inspection.
pub(crate) struct Headed {
    /// The first bytes of the text, byte order mark removed.
    pub head: Vec<u8>,
    /// The head holds the whole trace.
    pub eof: bool,
    /// The rest of the stream (without the head).
    pub rest: ByteStream,
    /// How the stream was compressed.
    pub compression: Compression,
}

impl Headed {
    /// The whole stream again: the head, then the rest.
    pub(crate) fn into_stream(self) -> ByteStream {
        Box::new(Cursor::new(self.head).chain(self.rest))
    }
}

/// Decompresses `raw` and reads its head: up to [`HEAD_MAX`] bytes, stopping early once
/// it holds [`HEAD_LINES`] line ends (a pipe's first read may be short; detection should
/// not depend on how the writer's output was chunked).
pub(crate) fn open_headed(raw: ByteStream, name: &Path) -> Result<Headed, TraceError> {
    let (mut rest, compression) = decompress(raw, name)?;
    let mut head = Vec::with_capacity(64 * 1024);
    let mut eof = false;
    let mut want = 16 * 1024;
    loop {
        eof = fill(&mut rest, &mut head, want).map_err(|e| io_error(name, e))? || eof;
        let ends = memchr::memchr2_iter(b'\n', b'\r', &head).count();
        if eof || ends >= HEAD_LINES || want >= HEAD_MAX {
            break;
        }
        want = (want * 4).min(HEAD_MAX);
    }
    if head.starts_with(b"\xEF\xBB\xBF") {
        head.drain(..3);
    }
    Ok(Headed {
        head,
        eof,
        rest,
        compression,
    })
}

/// Size of the chunks a decompression thread hands over.
const CHUNK: usize = 256 * 1024;

/// Chunks in flight between the decompression thread and the reader.
const CHUNKS_AHEAD: usize = 8;

/// The reading end of a decompression thread: chunks of decompressed bytes arrive over
/// a bounded channel and emptied buffers go back for reuse, so steady-state reading does
/// not allocate.
struct Threaded {
    chunks: Receiver<io::Result<Vec<u8>>>,
    spent: SyncSender<Vec<u8>>,
    cur: Vec<u8>,
    pos: usize,
    done: bool,
}

/// Runs `decoder` on its own thread and returns its output as a stream.
fn threaded<D: Read + Send + 'static>(mut decoder: D, kind: Compression) -> ByteStream {
    let (tx, chunks) = sync_channel::<io::Result<Vec<u8>>>(CHUNKS_AHEAD);
    let (spent, recycled) = sync_channel::<Vec<u8>>(CHUNKS_AHEAD + 2);
    std::thread::spawn(move || {
        loop {
            let mut buf = recycled.try_recv().unwrap_or_default();
            buf.clear();
            match fill(&mut decoder, &mut buf, CHUNK) {
                Ok(end) => {
                    // A closed channel means the reader was dropped: stop quietly.
                    if !buf.is_empty() && tx.send(Ok(buf)).is_err() {
                        return;
                    }
                    if end {
                        // An empty chunk marks the end.
                        let _ = tx.send(Ok(Vec::new()));
                        return;
                    }
                }
                Err(e) => {
                    let message = format!("{} data is corrupt or cut short: {e}", kind.name());
                    let _ = tx.send(Err(io::Error::new(e.kind(), message)));
                    return;
                }
            }
        }
    });
    Box::new(Threaded {
        chunks,
        spent,
        cur: Vec::new(),
        pos: 0,
        done: false,
    })
}

impl Read for Threaded {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.cur.len() {
            if self.done {
                return Ok(0);
            }
            let old = std::mem::take(&mut self.cur);
            // The thread may have finished and dropped its end: then there is no reuse.
            let _ = self.spent.try_send(old);
            self.pos = 0;
            match self.chunks.recv() {
                Ok(Ok(buf)) if buf.is_empty() => self.done = true,
                Ok(Ok(buf)) => self.cur = buf,
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => {
                    self.done = true;
                    return Err(io::Error::new(
                        io::ErrorKind::BrokenPipe,
                        "the decompression thread stopped",
                    ));
                }
            }
        }
        let n = out.len().min(self.cur.len() - self.pos);
        out[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// A stream shared with its opener, so a seekable reader given to
/// [`super::open_reader`] can be rewound for a second pass.
pub(crate) struct Shared<R>(pub std::sync::Arc<std::sync::Mutex<R>>);

impl<R: Read> Read for Shared<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| io::Error::other("trace reader poisoned"))?
            .read(out)
    }
}

/// Paths of the per-CPU files blktrace wrote for `path`: `path` itself names one of them
/// (`NAME.blktrace.N`) or their common base (`NAME`). Sorted by CPU number; empty when
/// there are none.
pub fn blktrace_files(path: &Path) -> Vec<PathBuf> {
    let Some(file) = path.file_name().map(|f| f.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    let base = match file.rsplit_once(".blktrace.") {
        Some((base, cpu)) if !cpu.is_empty() && cpu.bytes().all(|b| b.is_ascii_digit()) => {
            base.to_string()
        }
        _ => file,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let prefix = format!("{base}.blktrace.");
    let mut found: Vec<(u64, PathBuf)> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let cpu = name.strip_prefix(&prefix)?.parse::<u64>().ok()?;
            Some((cpu, dir.join(name)))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn read_all(bytes: Vec<u8>) -> Result<Vec<u8>, TraceError> {
        let h = open_headed(Box::new(Cursor::new(bytes)), Path::new("t"))?;
        let mut out = Vec::new();
        h.into_stream()
            .read_to_end(&mut out)
            .map_err(|e| io_error(Path::new("t"), e))?;
        Ok(out)
    }

    #[test]
    fn magic_numbers() {
        assert_eq!(Compression::sniff(b"\x1f\x8b\x08"), Compression::Gzip);
        assert_eq!(Compression::sniff(b"BZh9"), Compression::Bzip2);
        assert_eq!(Compression::sniff(b"BZh "), Compression::None);
        assert_eq!(Compression::sniff(b"\xfd7zXZ\0"), Compression::Xz);
        assert_eq!(Compression::sniff(b"\x28\xb5\x2f\xfd"), Compression::Zstd);
        assert_eq!(Compression::sniff(b"0 0 1 8 0"), Compression::None);
        assert_eq!(Compression::sniff(b""), Compression::None);
    }

    #[test]
    fn concatenated_gzip_members_are_all_read() {
        let mut data = Vec::new();
        for part in [&b"first\n"[..], b"second\n"] {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(part).unwrap();
            data.extend(e.finish().unwrap());
        }
        assert_eq!(read_all(data).unwrap(), b"first\nsecond\n");
    }

    #[test]
    fn every_codec_round_trips_and_bom_is_dropped() {
        let text: Vec<u8> = (0..50_000)
            .flat_map(|i| format!("{i} 0 {i} 8 1\n").into_bytes())
            .collect();
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend(&text);
        let gz = {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&bom).unwrap();
            e.finish().unwrap()
        };
        let bz = {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(&bom).unwrap();
            e.finish().unwrap()
        };
        let xz = {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
            e.write_all(&bom).unwrap();
            e.finish().unwrap()
        };
        let zst = zstd::stream::encode_all(&bom[..], 1).unwrap();
        for data in [bom.clone(), gz, bz, xz, zst] {
            assert_eq!(read_all(data).unwrap(), text);
        }
    }

    #[test]
    fn truncated_compressed_data_is_an_error() {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&[b'7'; 100_000]).unwrap();
        let mut gz = e.finish().unwrap();
        gz.truncate(gz.len() / 2);
        let err = read_all(gz).unwrap_err().to_string();
        assert!(err.contains("gzip data is corrupt or cut short"), "{err}");
    }
}
