//! Adding a trace format or a workload generator is one spec and one registration: a
//! dummy `lba,size,op` CSV format and a dummy generator, defined here in test code, are
//! listed with the built-in ones (`ssdlab list`, `--help`), parsed by name (`--format`,
//! a config's `trace.format` and `workload.kind`), read through the normal trace-opening
//! path and run through a short simulation. Without their registration every step fails.

use ssdlab::config::Config;
use ssdlab::sim::{RunOptions, run};
use ssdlab::workload::synth::{self, GeneratorSpec, SynthConfig, SynthKind};
use ssdlab::workload::trace::{self, Expected, FormatSpec, TraceFormat, TraceOptions};
use ssdlab::workload::{IoRequest, OpKind};
use std::io::Write;
use std::sync::Once;

/// One line of the dummy format: `lba_4k,size_bytes,op` with op `r` or `w`; the time is
/// the line's 4 KiB page number in µs (any function of the line will do for a test).
fn parse_dummy(line: &[u8]) -> Result<IoRequest, Expected> {
    const LAYOUT: &str = "3 comma-separated fields: lba_4k,size_bytes,op(r|w)";
    let text = std::str::from_utf8(line).map_err(|_| Expected::from(LAYOUT))?;
    let f: Vec<&str> = text.split(',').map(str::trim).collect();
    let [lba, size, op] = f[..] else {
        return Err(Expected::from(LAYOUT));
    };
    let lba: u64 = lba.parse().map_err(|_| Expected::from(LAYOUT))?;
    let size: u64 = size.parse().map_err(|_| Expected::from(LAYOUT))?;
    let op = match op {
        "r" => OpKind::Read,
        "w" => OpKind::Write,
        _ => return Err(Expected::from(LAYOUT)),
    };
    let mut r = IoRequest::new(op, lba * 4096, size);
    r.arrival_ns = lba * 1000;
    Ok(r)
}

static DUMMY_FORMAT: FormatSpec = FormatSpec::lines(
    "dummy",
    "test format: lba_4k,size_bytes,op(r|w)",
    &[OpKind::Read, OpKind::Write],
    "µs",
    parse_dummy,
);

/// The dummy generator: `count` 4 KiB writes at every other page of the span.
fn build_dummy(
    cfg: &SynthConfig,
    span_bytes: u64,
    count: u64,
    _seed: u64,
) -> Box<dyn Iterator<Item = IoRequest> + Send> {
    let size = cfg.size.bytes();
    let slots = (span_bytes / (2 * size)).max(1);
    Box::new((0..count).map(move |i| IoRequest::new(OpKind::Write, (i % slots) * 2 * size, size)))
}

static DUMMY_GENERATOR: GeneratorSpec = GeneratorSpec::new(
    "dummy-gen",
    "test generator: writes at every other page",
    build_dummy,
);

/// Registers both once per test binary (tests run on threads of one process).
fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        trace::register(&DUMMY_FORMAT).unwrap();
        synth::register(&DUMMY_GENERATOR).unwrap();
    });
}

#[test]
fn registered_format_and_generator_are_listed_and_named() {
    register();
    let formats = ssdlab::names::trace_formats();
    assert!(
        formats
            .iter()
            .any(|(n, d)| *n == "dummy" && d.contains("lba_4k")),
        "{formats:?}"
    );
    let generators = ssdlab::names::generators();
    assert!(
        generators.iter().any(|(n, _)| *n == "dummy-gen"),
        "{generators:?}"
    );
    let f: TraceFormat = "dummy".parse().unwrap();
    assert_eq!(f.name(), "dummy");
    let k: SynthKind = serde_json::from_str("\"dummy-gen\"").unwrap();
    assert_eq!(k.name(), "dummy-gen");
    assert!(k.is_single());
    // A name is registered once.
    assert!(trace::register(&DUMMY_FORMAT).is_err());
    assert!(synth::register(&DUMMY_GENERATOR).is_err());
    // Built-in names are unchanged and still refused twice.
    assert!(TraceFormat::all().contains(&TraceFormat::Msr));
}

#[test]
fn registered_format_reads_through_open_trace_with_line_numbers_in_errors() {
    register();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.dummy");
    std::fs::write(&path, "# lba,size,op\n0,4096,w\n\n3,8192,r\n").unwrap();
    let opts = TraceOptions {
        format: Some("dummy".parse().unwrap()),
        ..TraceOptions::default()
    };
    let t = trace::open_trace(&path, &opts).unwrap();
    assert_eq!(t.format.name(), "dummy");
    let got: Vec<IoRequest> = t.requests.map(Result::unwrap).collect();
    assert_eq!(got.len(), 2);
    assert_eq!((got[0].op, got[0].offset_bytes), (OpKind::Write, 0));
    assert_eq!(
        (got[1].op, got[1].offset_bytes, got[1].size_bytes),
        (OpKind::Read, 3 * 4096, 8192)
    );
    // Rebased to the first request, as for every format.
    assert_eq!(got[1].arrival_ns, 3000);

    // A bad line is reported by the shared reader as file:line.
    std::fs::write(&path, "0,4096,w\n1,4096,x\n").unwrap();
    let err = trace::open_trace(&path, &opts)
        .unwrap()
        .requests
        .find_map(Result::err)
        .unwrap()
        .to_string();
    assert!(
        err.contains("t.dummy:2: expected 3 comma-separated fields"),
        "{err}"
    );
}

/// Runs the config `text` with the reference-model check at the end.
fn run_checked(text: &str) -> ssdlab::report::Report {
    let cfg = Config::load_with(None, Some(("test.toml", text)), toml::Table::new()).unwrap();
    let opts = RunOptions {
        check: true,
        ..Default::default()
    };
    run(&cfg, opts).unwrap().report
}

#[test]
fn registered_format_and_generator_run_a_simulation() {
    register();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.dummy");
    let mut f = std::fs::File::create(&path).unwrap();
    for i in 0..200u64 {
        writeln!(f, "{},4096,{}", i % 50, if i < 100 { "w" } else { "r" }).unwrap();
    }
    drop(f);
    let text = format!(
        "[device]\ncapacity = \"1GiB\"\n[trace]\npath = \"{}\"\nformat = \"dummy\"\n",
        path.display()
    );
    let r = run_checked(&text);
    assert_eq!(r.host_read_pages, 100);

    let text = "[device]\ncapacity = \"1GiB\"\n[workload]\nkind = \"dummy-gen\"\nrequests = 300\n";
    let r = run_checked(text);
    assert_eq!(r.phases.len(), 1);
    assert_eq!(r.phases[0].name, "dummy-gen");
    assert_eq!(r.phases[0].requests, 300);
}
