//! Fuzzes the blktrace binary reader: any bytes give a well-formed stream, and what parsed
//! round-trips.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdlab::workload::trace::TraceFormat;

fuzz_target!(|data: &[u8]| ssdlab_fuzz::check(TraceFormat::Blktrace, data));
