//! The NBD wire format: fixed-newstyle handshake, option haggling and the transmission
//! phase's requests and replies (NetworkBlockDevice/nbd `doc/proto.md`; summary in
//! docs/nbd.md). Pure encoding and decoding, no I/O: the server reads bytes from its
//! socket and hands them here, so the decoder can be fuzzed on its own.
//!
//! ```text
//! S: "NBDMAGIC" "IHAVEOPT" u16 handshake flags (FIXED_NEWSTYLE | NO_ZEROES)
//! C: u32 client flags            (unknown bit -> close)
//! loop  C: "IHAVEOPT" u32 option u32 length data[length]
//!       S: 0x3e889045565a9 u32 option u32 reply-type u32 length data   (fixed newstyle)
//!       EXPORT_NAME -> u64 size, u16 flags, [124 zeros]; GO -> INFO replies, ACK
//! then  C: 0x25609513 u16 flags u16 type u64 cookie u64 offset u32 length [data]
//!       S: 0x67446698 u32 error u64 cookie [data]                      (simple)
//!       S: 0x668e33ef u16 flags u16 type u64 cookie u32 length payload (structured)
//! ```
//! Every number is big-endian.

/// "NBDMAGIC".
pub const NBDMAGIC: u64 = 0x4e42_444d_4147_4943;
/// "IHAVEOPT": the newstyle magic and the prefix of every option.
pub const IHAVEOPT: u64 = 0x4948_4156_454F_5054;
/// Magic of an option reply.
pub const REPLY_MAGIC: u64 = 0x0003_e889_0455_65a9;
/// Magic of a transmission request.
pub const REQUEST_MAGIC: u32 = 0x2560_9513;
/// Magic of a simple reply.
pub const SIMPLE_REPLY_MAGIC: u32 = 0x6744_6698;
/// Magic of a structured reply chunk.
pub const STRUCTURED_REPLY_MAGIC: u32 = 0x668e_33ef;

/// Handshake flag: fixed newstyle.
pub const FLAG_FIXED_NEWSTYLE: u16 = 1;
/// Handshake flag: no 124 zero bytes after EXPORT_NAME.
pub const FLAG_NO_ZEROES: u16 = 2;
/// Client flags the server understands.
pub const CLIENT_FLAGS_KNOWN: u32 = 1 | 2;
/// Client flag: the client asked for no zeroes.
pub const CLIENT_NO_ZEROES: u32 = 2;

/// Transmission flags.
pub mod tflag {
    /// Flags are valid.
    pub const HAS_FLAGS: u16 = 1;
    /// FLUSH is supported.
    pub const SEND_FLUSH: u16 = 1 << 2;
    /// FUA is supported.
    pub const SEND_FUA: u16 = 1 << 3;
    /// TRIM is supported.
    pub const SEND_TRIM: u16 = 1 << 5;
    /// WRITE_ZEROES is supported.
    pub const SEND_WRITE_ZEROES: u16 = 1 << 6;
    /// Several connections see one consistent device (one simulation serves them all,
    /// and a FLUSH on one connection flushes every connection's completed writes).
    pub const CAN_MULTI_CONN: u16 = 1 << 8;
    /// CACHE is supported.
    pub const SEND_CACHE: u16 = 1 << 10;
}

/// Option numbers.
pub mod opt {
    /// Choose an export and enter transmission (no reply header).
    pub const EXPORT_NAME: u32 = 1;
    /// Soft disconnect.
    pub const ABORT: u32 = 2;
    /// List exports.
    pub const LIST: u32 = 3;
    /// Describe an export.
    pub const INFO: u32 = 6;
    /// Describe an export and enter transmission.
    pub const GO: u32 = 7;
    /// Use structured replies.
    pub const STRUCTURED_REPLY: u32 = 8;
}

/// Option reply types.
pub mod rep {
    /// Done.
    pub const ACK: u32 = 1;
    /// One export of a LIST.
    pub const SERVER: u32 = 2;
    /// One piece of information of INFO / GO.
    pub const INFO: u32 = 3;
    /// Option not supported.
    pub const ERR_UNSUP: u32 = (1 << 31) + 1;
    /// Malformed option.
    pub const ERR_INVALID: u32 = (1 << 31) + 3;
    /// No such export.
    pub const ERR_UNKNOWN: u32 = (1 << 31) + 6;
}

/// Information types of INFO / GO.
pub mod info {
    /// Size and transmission flags.
    pub const EXPORT: u16 = 0;
    /// Block-size constraints.
    pub const BLOCK_SIZE: u16 = 3;
}

/// Transmission errors (errno values the spec fixes).
pub mod err {
    /// Operation not permitted.
    pub const EPERM: u32 = 1;
    /// I/O error.
    pub const EIO: u32 = 5;
    /// Invalid argument.
    pub const EINVAL: u32 = 22;
    /// No space left (write past the end).
    pub const ENOSPC: u32 = 28;
    /// Value too large.
    pub const EOVERFLOW: u32 = 75;
    /// Not supported.
    pub const ENOTSUP: u32 = 95;
    /// Server shutting down.
    pub const ESHUTDOWN: u32 = 108;
}

/// Command flags.
pub mod cflag {
    /// Force unit access.
    pub const FUA: u16 = 1;
    /// WRITE_ZEROES must write, not punch a hole.
    pub const NO_HOLE: u16 = 2;
    /// Flags this server understands.
    pub const KNOWN: u16 = FUA | NO_HOLE;
}

/// Structured reply chunk types.
pub mod chunk {
    /// Data at an offset.
    pub const OFFSET_DATA: u16 = 1;
    /// An error with a message.
    pub const ERROR: u16 = (1 << 15) + 1;
    /// Final chunk with nothing in it.
    pub const NONE: u16 = 0;
    /// Flag: last chunk of the reply.
    pub const DONE: u16 = 1;
}

/// Length of a request header.
pub const REQUEST_BYTES: usize = 28;
/// Length of an option header (after the client flags).
pub const OPTION_HEADER_BYTES: usize = 16;
/// Longest option data accepted (an export name is at most 4096 bytes; INFO adds a few
/// request numbers): longer ones are a denial of service and close the connection.
pub const MAX_OPTION_BYTES: u32 = 8192;

/// The transmission commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// NBD_CMD_READ.
    Read,
    /// NBD_CMD_WRITE (followed by `length` bytes of data).
    Write,
    /// NBD_CMD_DISC.
    Disc,
    /// NBD_CMD_FLUSH.
    Flush,
    /// NBD_CMD_TRIM.
    Trim,
    /// NBD_CMD_CACHE.
    Cache,
    /// NBD_CMD_WRITE_ZEROES.
    WriteZeroes,
    /// Any other type (answered EINVAL).
    Unknown(u16),
}

impl Command {
    fn from_wire(t: u16) -> Command {
        match t {
            0 => Command::Read,
            1 => Command::Write,
            2 => Command::Disc,
            3 => Command::Flush,
            4 => Command::Trim,
            5 => Command::Cache,
            6 => Command::WriteZeroes,
            n => Command::Unknown(n),
        }
    }
}

/// A decoded request header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Command flags.
    pub flags: u16,
    /// What to do.
    pub cmd: Command,
    /// Handle echoed in the reply.
    pub cookie: u64,
    /// Byte offset.
    pub offset: u64,
    /// Byte length.
    pub length: u32,
}

/// Why a request header could not be decoded: the stream is out of sync and the
/// connection must close.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad request magic {0:#010x} (expected 0x25609513)")]
pub struct BadMagic(pub u32);

fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}
fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}
fn be64(b: &[u8]) -> u64 {
    u64::from_be_bytes(b[..8].try_into().expect("8 bytes"))
}

/// Decodes a request header.
pub fn decode_request(b: &[u8; REQUEST_BYTES]) -> Result<Request, BadMagic> {
    let magic = be32(&b[0..4]);
    if magic != REQUEST_MAGIC {
        return Err(BadMagic(magic));
    }
    Ok(Request {
        flags: be16(&b[4..6]),
        cmd: Command::from_wire(be16(&b[6..8])),
        cookie: be64(&b[8..16]),
        offset: be64(&b[16..24]),
        length: be32(&b[24..28]),
    })
}

/// Encodes a request header (clients and tests).
pub fn encode_request(r: &Request) -> [u8; REQUEST_BYTES] {
    let t = match r.cmd {
        Command::Read => 0,
        Command::Write => 1,
        Command::Disc => 2,
        Command::Flush => 3,
        Command::Trim => 4,
        Command::Cache => 5,
        Command::WriteZeroes => 6,
        Command::Unknown(n) => n,
    };
    let mut b = [0u8; REQUEST_BYTES];
    b[0..4].copy_from_slice(&REQUEST_MAGIC.to_be_bytes());
    b[4..6].copy_from_slice(&r.flags.to_be_bytes());
    b[6..8].copy_from_slice(&t.to_be_bytes());
    b[8..16].copy_from_slice(&r.cookie.to_be_bytes());
    b[16..24].copy_from_slice(&r.offset.to_be_bytes());
    b[24..28].copy_from_slice(&r.length.to_be_bytes());
    b
}

/// What the server does with a request once its header is decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Perform it.
    Run,
    /// Answer with this error (a write's payload is read and dropped first).
    Error(u32),
    /// Close the connection: the payload cannot be skipped safely (a write longer than
    /// the maximum block size, which the client must not send).
    Close,
}

/// Checks a decoded request against the export: unknown commands and flags are EINVAL;
/// a range past the end (or whose end overflows) is ENOSPC for writes and EINVAL for the
/// rest, as the spec asks; lengths beyond `max_bytes` are EOVERFLOW (writes close, their
/// payload cannot be skipped).
pub fn check_request(r: &Request, export_bytes: u64, max_bytes: u32) -> Verdict {
    let writes = matches!(r.cmd, Command::Write | Command::WriteZeroes);
    if r.cmd == Command::Write && r.length > max_bytes {
        return Verdict::Close;
    }
    if let Command::Unknown(_) = r.cmd {
        return Verdict::Error(err::EINVAL);
    }
    if r.flags & !cflag::KNOWN != 0 {
        return Verdict::Error(err::EINVAL);
    }
    if matches!(r.cmd, Command::Disc | Command::Flush) {
        return Verdict::Run;
    }
    match r.offset.checked_add(r.length as u64) {
        None => Verdict::Error(err::EINVAL),
        Some(end) if end > export_bytes => {
            Verdict::Error(if writes { err::ENOSPC } else { err::EINVAL })
        }
        Some(_) if r.cmd == Command::Read && r.length > max_bytes => Verdict::Error(err::EOVERFLOW),
        Some(_) => Verdict::Run,
    }
}

/// Whether [`check_request`] refuses `r` because it reaches past the export's end (or
/// its end overflows): NVMe's LBA Out of Range, which a namespace's report counts.
pub fn out_of_range(r: &Request, export_bytes: u64) -> bool {
    !matches!(r.cmd, Command::Unknown(_) | Command::Disc | Command::Flush)
        && r.flags & !cflag::KNOWN == 0
        && r.offset
            .checked_add(r.length as u64)
            .is_none_or(|end| end > export_bytes)
}

/// A decoded option header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionHeader {
    /// Option number.
    pub option: u32,
    /// Length of its data.
    pub length: u32,
}

/// Decodes an option header; `None` when the magic is wrong (close the connection).
pub fn decode_option(b: &[u8; OPTION_HEADER_BYTES]) -> Option<OptionHeader> {
    (be64(&b[0..8]) == IHAVEOPT).then(|| OptionHeader {
        option: be32(&b[8..12]),
        length: be32(&b[12..16]),
    })
}

/// The data of an INFO or GO option: the export name and the information requested.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InfoRequest {
    /// Export name (may be empty: the default export).
    pub name: Vec<u8>,
    /// Information types asked for.
    pub requests: Vec<u16>,
}

/// Parses INFO / GO data; `None` when the lengths inside disagree with its length.
pub fn parse_info_request(d: &[u8]) -> Option<InfoRequest> {
    let n = be32(d.get(0..4)?) as usize;
    let name = d.get(4..4usize.checked_add(n)?)?.to_vec();
    let rest = &d[4 + n..];
    let count = be16(rest.get(0..2)?) as usize;
    let list = &rest[2..];
    if list.len() != count * 2 {
        return None;
    }
    Some(InfoRequest {
        name,
        requests: list.chunks_exact(2).map(be16).collect(),
    })
}

/// An option reply.
pub fn option_reply(option: u32, reply: u32, data: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(20 + data.len());
    v.extend_from_slice(&REPLY_MAGIC.to_be_bytes());
    v.extend_from_slice(&option.to_be_bytes());
    v.extend_from_slice(&reply.to_be_bytes());
    v.extend_from_slice(&(data.len() as u32).to_be_bytes());
    v.extend_from_slice(data);
    v
}

/// The server's greeting.
pub fn greeting() -> [u8; 18] {
    let mut b = [0u8; 18];
    b[0..8].copy_from_slice(&NBDMAGIC.to_be_bytes());
    b[8..16].copy_from_slice(&IHAVEOPT.to_be_bytes());
    b[16..18].copy_from_slice(&(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES).to_be_bytes());
    b
}

/// NBD_INFO_EXPORT payload.
pub fn info_export(size_bytes: u64, flags: u16) -> Vec<u8> {
    let mut v = Vec::with_capacity(12);
    v.extend_from_slice(&info::EXPORT.to_be_bytes());
    v.extend_from_slice(&size_bytes.to_be_bytes());
    v.extend_from_slice(&flags.to_be_bytes());
    v
}

/// NBD_INFO_BLOCK_SIZE payload.
pub fn info_block_size(min: u32, preferred: u32, max: u32) -> Vec<u8> {
    let mut v = Vec::with_capacity(14);
    v.extend_from_slice(&info::BLOCK_SIZE.to_be_bytes());
    v.extend_from_slice(&min.to_be_bytes());
    v.extend_from_slice(&preferred.to_be_bytes());
    v.extend_from_slice(&max.to_be_bytes());
    v
}

/// A simple reply header.
pub fn simple_reply(cookie: u64, error: u32) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[0..4].copy_from_slice(&SIMPLE_REPLY_MAGIC.to_be_bytes());
    b[4..8].copy_from_slice(&error.to_be_bytes());
    b[8..16].copy_from_slice(&cookie.to_be_bytes());
    b
}

/// A structured reply chunk header.
pub fn structured_header(cookie: u64, flags: u16, kind: u16, length: u32) -> [u8; 20] {
    let mut b = [0u8; 20];
    b[0..4].copy_from_slice(&STRUCTURED_REPLY_MAGIC.to_be_bytes());
    b[4..6].copy_from_slice(&flags.to_be_bytes());
    b[6..8].copy_from_slice(&kind.to_be_bytes());
    b[8..16].copy_from_slice(&cookie.to_be_bytes());
    b[16..20].copy_from_slice(&length.to_be_bytes());
    b
}

/// A whole structured error chunk (the last of its reply).
pub fn structured_error(cookie: u64, error: u32, message: &str) -> Vec<u8> {
    let m = message.as_bytes();
    let mut v = structured_header(cookie, chunk::DONE, chunk::ERROR, 6 + m.len() as u32).to_vec();
    v.extend_from_slice(&error.to_be_bytes());
    v.extend_from_slice(&(m.len() as u16).to_be_bytes());
    v.extend_from_slice(m);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // Any 28 bytes decode or are refused for their magic; a decoded header encodes
        // back to the same bytes, and the verdict never panics.
        #[test]
        fn request_decoder_round_trips_and_never_panics(
            b in proptest::collection::vec(any::<u8>(), REQUEST_BYTES),
            valid_magic in any::<bool>(),
            export in any::<u64>(),
            max in any::<u32>(),
        ) {
            let mut a: [u8; REQUEST_BYTES] = b.try_into().unwrap();
            if valid_magic {
                a[0..4].copy_from_slice(&REQUEST_MAGIC.to_be_bytes());
            }
            match decode_request(&a) {
                Ok(r) => {
                    prop_assert_eq!(encode_request(&r), a);
                    let v = check_request(&r, export, max);
                    if v == Verdict::Run && !matches!(r.cmd, Command::Disc | Command::Flush) {
                        prop_assert!(r.offset.checked_add(r.length as u64).unwrap() <= export);
                    }
                    // What the namespace report counts as out of range is always refused,
                    // and with the spec's range errors.
                    if out_of_range(&r, export) && v != Verdict::Close {
                        prop_assert!(
                            matches!(v, Verdict::Error(e) if e == err::EINVAL || e == err::ENOSPC),
                            "{:?}", v
                        );
                    }
                }
                Err(BadMagic(m)) => prop_assert_ne!(m, REQUEST_MAGIC),
            }
        }

        #[test]
        fn info_parser_never_panics_and_agrees_with_its_encoding(
            d in proptest::collection::vec(any::<u8>(), 0..64),
            name in proptest::collection::vec(any::<u8>(), 0..20),
            reqs in proptest::collection::vec(any::<u16>(), 0..5),
        ) {
            let _ = parse_info_request(&d);
            let mut e = (name.len() as u32).to_be_bytes().to_vec();
            e.extend_from_slice(&name);
            e.extend_from_slice(&(reqs.len() as u16).to_be_bytes());
            for r in &reqs {
                e.extend_from_slice(&r.to_be_bytes());
            }
            prop_assert_eq!(parse_info_request(&e), Some(InfoRequest { name, requests: reqs }));
        }
    }

    fn req(cmd: Command, offset: u64, length: u32) -> Request {
        Request {
            flags: 0,
            cmd,
            cookie: 7,
            offset,
            length,
        }
    }

    #[test]
    fn out_of_range_requests_get_the_spec_errors() {
        let max = 32 << 20;
        assert_eq!(
            check_request(&req(Command::Read, 1024, 512), 1024, max),
            Verdict::Error(err::EINVAL)
        );
        assert_eq!(
            check_request(&req(Command::Write, 1024, 512), 1024, max),
            Verdict::Error(err::ENOSPC)
        );
        assert_eq!(
            check_request(&req(Command::WriteZeroes, 512, 1024), 1024, max),
            Verdict::Error(err::ENOSPC)
        );
        assert_eq!(
            check_request(&req(Command::Trim, u64::MAX - 10, 512), u64::MAX, max),
            Verdict::Error(err::EINVAL)
        );
        assert_eq!(
            check_request(&req(Command::Unknown(99), 0, 0), 1024, max),
            Verdict::Error(err::EINVAL)
        );
        assert_eq!(
            check_request(&req(Command::Write, 0, max + 1), u64::MAX, max),
            Verdict::Close
        );
        let mut r = req(Command::Read, 0, 512);
        r.flags = 0x80;
        assert_eq!(check_request(&r, 1024, max), Verdict::Error(err::EINVAL));
        assert_eq!(
            check_request(&req(Command::Read, 512, 512), 1024, max),
            Verdict::Run
        );
    }

    #[test]
    fn bad_magic_is_refused() {
        let mut b = encode_request(&req(Command::Read, 0, 512));
        b[0] ^= 1;
        assert!(decode_request(&b).is_err());
        let mut o = [0u8; OPTION_HEADER_BYTES];
        o[0..8].copy_from_slice(&IHAVEOPT.to_be_bytes());
        o[8..12].copy_from_slice(&7u32.to_be_bytes());
        assert_eq!(
            decode_option(&o),
            Some(OptionHeader {
                option: 7,
                length: 0
            })
        );
        o[0] = 0;
        assert_eq!(decode_option(&o), None);
    }
}
