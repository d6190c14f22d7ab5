//! `ssdlab list`: every registry with its descriptions.

use super::registry::{self, Named};

/// The listing.
pub fn text() -> String {
    let sections: [(&str, Vec<Named>); 15] = [
        ("Presets (--preset)", registry::presets()),
        ("FTLs (--ftl)", registry::ftls()),
        ("GC victim policies (--gc)", registry::gc_policies()),
        ("Write-buffer policies (--buffer)", registry::buffers()),
        ("Dispatch orders (--dispatch)", registry::dispatch_orders()),
        ("Workloads (--workload)", registry::generators()),
        (
            "Iometer access specifications (--access-spec)",
            registry::access_specs(),
        ),
        ("Host log layers (--host-log)", registry::host_logs()),
        ("File systems (--fs)", registry::file_systems()),
        (
            "File-trace operations (--file-trace FILE, one per line)",
            registry::file_ops(),
        ),
        ("Trace formats (--format)", registry::trace_formats()),
        ("Trace fit policies (--trace-fit)", registry::trace_fits()),
        (
            "Papers (ssdlab reproduce PAPER --out DIR; --list for the experiments)",
            registry::papers(),
        ),
        ("Timing models (--timing)", registry::timing_modes()),
        (
            "Chip organisations (--organisation)",
            registry::organisations(),
        ),
    ];
    sections
        .iter()
        .map(|(title, named)| format!("{title}:\n{}", registry::lines(named, 14)))
        .collect::<Vec<_>>()
        .join("\n")
}
