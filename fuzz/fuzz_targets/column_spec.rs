//! Fuzzes the csv column spec parser (`--columns`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ssdlab_fuzz::check_column_spec(data));
