//! Fuzzes the NBD decoders of `ssdlab serve`: request headers (and the server's verdict
//! on them), option headers and INFO/GO option data. None may panic; a decoded request
//! encodes back to its bytes; a request the server would perform lies inside the export.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdlab::nbd::proto::{self, Command, Verdict};

fuzz_target!(|data: &[u8]| {
    if let Some(h) = data.get(..proto::REQUEST_BYTES) {
        let h: [u8; proto::REQUEST_BYTES] = h.try_into().unwrap();
        if let Ok(r) = proto::decode_request(&h) {
            assert_eq!(proto::encode_request(&r), h);
            let export = u64::from_le_bytes(data.get(28..36).unwrap_or(&[0; 8]).try_into().unwrap());
            if proto::check_request(&r, export, 32 << 20) == Verdict::Run
                && !matches!(r.cmd, Command::Disc | Command::Flush)
            {
                assert!(r.offset.checked_add(r.length as u64).unwrap() <= export);
            }
        }
    }
    if let Some(h) = data.get(..proto::OPTION_HEADER_BYTES) {
        let _ = proto::decode_option(&h.try_into().unwrap());
    }
    let _ = proto::parse_info_request(data);
});
