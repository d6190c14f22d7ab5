//! Fuzzes decompression (magic sniffing, every codec) and detection on a stream that
//! cannot seek, raw and gzip-wrapped.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ssdlab_fuzz::check_decompress(data));
