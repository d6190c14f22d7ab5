//! Fuzzes format auto-detection followed by whichever reader it picks.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ssdlab_fuzz::check_detect(data));
