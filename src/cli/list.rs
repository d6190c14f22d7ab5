//! `ssdlab list`: every registry with its descriptions.

use ssdlab::names::{self, Named};

/// The listing.
pub fn text() -> String {
    let sections: [(&str, Vec<Named>); 15] = [
        ("Presets (--preset)", names::presets()),
        ("FTLs (--ftl)", names::ftls()),
        ("GC victim policies (--gc)", names::gc_policies()),
        ("Write-buffer policies (--buffer)", names::buffers()),
        ("Dispatch orders (--dispatch)", names::dispatch_orders()),
        ("Workloads (--workload)", names::generators()),
        (
            "Iometer access specifications (--access-spec)",
            names::access_specs(),
        ),
        ("Host log layers (--host-log)", names::host_logs()),
        ("File systems (--fs)", names::file_systems()),
        (
            "File-trace operations (--file-trace FILE, one per line)",
            names::file_ops(),
        ),
        ("Trace formats (--format)", names::trace_formats()),
        ("Trace fit policies (--trace-fit)", names::trace_fits()),
        (
            "Papers (ssdlab reproduce PAPER --out DIR; --list for the experiments)",
            names::papers(),
        ),
        ("Timing models (--timing)", names::timing_modes()),
        (
            "Chip organisations (--organisation)",
            names::organisations(),
        ),
    ];
    sections
        .iter()
        .map(|(title, named)| format!("{title}:\n{}", names::lines(named, 14)))
        .collect::<Vec<_>>()
        .join("\n")
}
