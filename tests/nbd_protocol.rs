//! `ssdlab serve` against a raw client: the handshake, option replies and malformed
//! requests get the NBD spec's answers, and a stalled or misbehaving client never stops
//! the server from serving the others.

use ssdlab::nbd::proto::{self, Command, Request, cflag, err, opt, rep};
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

struct Serve {
    child: Child,
    sock: PathBuf,
}

impl Serve {
    fn start(dir: &Path) -> Serve {
        let sock = dir.join("p.sock");
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .args([
                "serve",
                "--capacity",
                "16MiB",
                "--buffer",
                "lru",
                "--buffer-size",
                "1MiB",
                "--socket",
            ])
            .arg(&sock)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let t = Instant::now();
        while !sock.exists() {
            assert!(t.elapsed() < Duration::from_secs(60));
            std::thread::sleep(Duration::from_millis(20));
        }
        Serve { child, sock }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn connect(s: &Serve) -> UnixStream {
    let c = UnixStream::connect(&s.sock).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    c
}

fn read_n(c: &mut UnixStream, n: usize) -> Vec<u8> {
    let mut b = vec![0u8; n];
    c.read_exact(&mut b).unwrap();
    b
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes(b[..4].try_into().unwrap())
}

fn send_option(c: &mut UnixStream, option: u32, data: &[u8]) {
    let mut v = proto::IHAVEOPT.to_be_bytes().to_vec();
    v.extend_from_slice(&option.to_be_bytes());
    v.extend_from_slice(&(data.len() as u32).to_be_bytes());
    v.extend_from_slice(data);
    c.write_all(&v).unwrap();
}

/// (option, reply type, data)
fn option_reply(c: &mut UnixStream) -> (u32, u32, Vec<u8>) {
    let h = read_n(c, 20);
    assert_eq!(&h[0..8], &proto::REPLY_MAGIC.to_be_bytes());
    let len = be32(&h[16..20]) as usize;
    (be32(&h[8..12]), be32(&h[12..16]), read_n(c, len))
}

/// Greeting, client flags, then GO on the default export; returns the export size.
fn handshake(c: &mut UnixStream) -> u64 {
    let g = read_n(c, 18);
    assert_eq!(&g[0..8], b"NBDMAGIC");
    assert_eq!(&g[8..16], b"IHAVEOPT");
    c.write_all(&3u32.to_be_bytes()).unwrap();
    // An unknown option is answered "unsupported" and negotiation goes on.
    send_option(c, 4242, b"abc");
    assert_eq!(option_reply(c).1, rep::ERR_UNSUP);
    send_option(c, opt::LIST, &[]);
    let (_, t, d) = option_reply(c);
    assert_eq!(t, rep::SERVER);
    assert_eq!(&d[4..], b"ssdlab");
    assert_eq!(option_reply(c).1, rep::ACK);
    // INFO on an unknown export.
    let mut info = 3u32.to_be_bytes().to_vec();
    info.extend_from_slice(b"xyz");
    info.extend_from_slice(&0u16.to_be_bytes());
    send_option(c, opt::INFO, &info);
    assert_eq!(option_reply(c).1, rep::ERR_UNKNOWN);
    // A malformed GO (lengths disagree).
    send_option(c, opt::GO, &[0, 0, 0, 9]);
    assert_eq!(option_reply(c).1, rep::ERR_INVALID);
    let mut go = 0u32.to_be_bytes().to_vec();
    go.extend_from_slice(&1u16.to_be_bytes());
    go.extend_from_slice(&proto::info::BLOCK_SIZE.to_be_bytes());
    send_option(c, opt::GO, &go);
    let mut size = 0;
    loop {
        let (_, t, d) = option_reply(c);
        if t == rep::ACK {
            break;
        }
        assert_eq!(t, rep::INFO);
        match u16::from_be_bytes([d[0], d[1]]) {
            0 => size = u64::from_be_bytes(d[2..10].try_into().unwrap()),
            3 => {
                assert_eq!(be32(&d[2..6]), 512);
                assert_eq!(be32(&d[6..10]), 4096);
            }
            other => panic!("info {other}"),
        }
    }
    size
}

fn request(c: &mut UnixStream, cmd: Command, flags: u16, offset: u64, length: u32, cookie: u64) {
    let r = Request {
        flags,
        cmd,
        cookie,
        offset,
        length,
    };
    c.write_all(&proto::encode_request(&r)).unwrap();
}

/// (error, cookie) of a simple reply.
fn simple_reply(c: &mut UnixStream) -> (u32, u64) {
    let h = read_n(c, 16);
    assert_eq!(be32(&h[0..4]), proto::SIMPLE_REPLY_MAGIC);
    (
        be32(&h[4..8]),
        u64::from_be_bytes(h[8..16].try_into().unwrap()),
    )
}

fn closed(c: &mut UnixStream) -> bool {
    let mut b = [0u8; 1];
    matches!(c.read(&mut b), Ok(0) | Err(_))
}

#[test]
fn malformed_requests_get_spec_errors_and_never_stop_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let s = Serve::start(dir.path());
    let mut a = connect(&s);
    let size = handshake(&mut a);
    assert_eq!(size, 16 << 20);
    // A client that sends half a request header and stalls.
    let mut stalled = connect(&s);
    handshake(&mut stalled);
    stalled
        .write_all(&proto::REQUEST_MAGIC.to_be_bytes())
        .unwrap();
    stalled.write_all(&[0, 0, 0, 1, 0, 0]).unwrap();
    // Another that sends half a write's payload and stalls.
    let mut stalled2 = connect(&s);
    handshake(&mut stalled2);
    request(&mut stalled2, Command::Write, 0, 0, 8192, 1);
    stalled2.write_all(&[7u8; 100]).unwrap();

    // Meanwhile `a` is served: write, read back.
    request(&mut a, Command::Write, cflag::FUA, 4096, 4096, 11);
    a.write_all(&[0x5a; 4096]).unwrap();
    assert_eq!(simple_reply(&mut a), (0, 11));
    request(&mut a, Command::Read, 0, 4096, 4096, 12);
    assert_eq!(simple_reply(&mut a), (0, 12));
    assert_eq!(read_n(&mut a, 4096), vec![0x5a; 4096]);
    // Unknown command: EINVAL.
    request(&mut a, Command::Unknown(77), 0, 0, 0, 13);
    assert_eq!(simple_reply(&mut a), (err::EINVAL, 13));
    // Unknown flag: EINVAL.
    request(&mut a, Command::Read, 0x40, 0, 512, 14);
    assert_eq!(simple_reply(&mut a), (err::EINVAL, 14));
    // Read past the end: EINVAL; write past the end: ENOSPC (its payload is skipped).
    request(&mut a, Command::Read, 0, size - 512, 1024, 15);
    assert_eq!(simple_reply(&mut a), (err::EINVAL, 15));
    request(&mut a, Command::Write, 0, size, 512, 16);
    a.write_all(&[1u8; 512]).unwrap();
    assert_eq!(simple_reply(&mut a), (err::ENOSPC, 16));
    // Offset + length overflows.
    request(&mut a, Command::Trim, 0, u64::MAX - 100, 4096, 17);
    assert_eq!(simple_reply(&mut a), (err::EINVAL, 17));
    // Still in sync: the data is intact and unwritten space reads zeros.
    request(&mut a, Command::Read, 0, 0, 8192, 18);
    assert_eq!(simple_reply(&mut a), (0, 18));
    let d = read_n(&mut a, 8192);
    assert!(d[..4096].iter().all(|&b| b == 0));
    assert!(d[4096..].iter().all(|&b| b == 0x5a));
    // Flush, trim, write zeroes, cache.
    for (cmd, cookie) in [
        (Command::Flush, 19),
        (Command::Trim, 20),
        (Command::WriteZeroes, 21),
        (Command::Cache, 22),
    ] {
        request(&mut a, cmd, 0, 0, 4096, cookie);
        assert_eq!(simple_reply(&mut a), (0, cookie));
    }
    // A write longer than the maximum cannot be skipped: the connection closes.
    let mut b = connect(&s);
    handshake(&mut b);
    request(&mut b, Command::Write, 0, 0, u32::MAX, 30);
    assert!(closed(&mut b));
    // Bad request magic: closed.
    let mut c = connect(&s);
    handshake(&mut c);
    c.write_all(&[0xde; 28]).unwrap();
    assert!(closed(&mut c));
    // Bad option magic and unknown client flags: closed.
    let mut d = connect(&s);
    read_n(&mut d, 18);
    d.write_all(&0x8000u32.to_be_bytes()).unwrap();
    assert!(closed(&mut d));
    let mut e = connect(&s);
    read_n(&mut e, 18);
    e.write_all(&1u32.to_be_bytes()).unwrap();
    e.write_all(&[0u8; 16]).unwrap();
    assert!(closed(&mut e));
    // The stalled clients did not block anyone; `a` still works and disconnects cleanly.
    request(&mut a, Command::Read, 0, 4096, 512, 40);
    assert_eq!(simple_reply(&mut a), (0, 40));
    assert_eq!(read_n(&mut a, 512), vec![0x5a; 512]);
    request(&mut a, Command::Disc, 0, 0, 0, 41);
    assert!(closed(&mut a));
    drop(stalled);
    drop(stalled2);
    // A new client after all that is served.
    let mut f = connect(&s);
    handshake(&mut f);
    request(&mut f, Command::Read, 0, 4096, 512, 50);
    assert_eq!(simple_reply(&mut f), (0, 50));
    let mut s = s;
    assert!(s.child.try_wait().unwrap().is_none(), "the server died");
}

#[test]
fn structured_replies_carry_read_data_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = Serve::start(dir.path());
    let mut a = connect(&s);
    read_n(&mut a, 18);
    a.write_all(&3u32.to_be_bytes()).unwrap();
    send_option(&mut a, opt::STRUCTURED_REPLY, &[]);
    assert_eq!(option_reply(&mut a).1, rep::ACK);
    send_option(&mut a, opt::EXPORT_NAME, b"ssdlab");
    let x = read_n(&mut a, 10);
    assert_eq!(u64::from_be_bytes(x[0..8].try_into().unwrap()), 16 << 20);
    request(&mut a, Command::Write, 0, 1000, 24, 1);
    a.write_all(&[9u8; 24]).unwrap();
    assert_eq!(simple_reply(&mut a), (0, 1));
    request(&mut a, Command::Read, 0, 1000, 24, 2);
    let h = read_n(&mut a, 20);
    assert_eq!(be32(&h[0..4]), proto::STRUCTURED_REPLY_MAGIC);
    assert_eq!(u16::from_be_bytes([h[6], h[7]]), proto::chunk::OFFSET_DATA);
    assert_eq!(be32(&h[16..20]), 8 + 24);
    let p = read_n(&mut a, 32);
    assert_eq!(u64::from_be_bytes(p[0..8].try_into().unwrap()), 1000);
    assert_eq!(&p[8..], &[9u8; 24]);
    request(&mut a, Command::Read, 0, 16 << 20, 512, 3);
    let h = read_n(&mut a, 20);
    assert_eq!(u16::from_be_bytes([h[6], h[7]]), proto::chunk::ERROR);
    let p = read_n(&mut a, be32(&h[16..20]) as usize);
    assert_eq!(be32(&p[0..4]), err::EINVAL);
}
