//! Issue 30 item 7: hostile input in bulk — traces × malformations, flags × bad values,
//! outputs × paths, and whole command lines — each case run as a user would run it,
//! asserting the exit code AND a message fragment: never a panic, never a hang, never
//! exit 0 on bad input, no input file damaged. CI runs the base set (over 500 cases,
//! printed with their outcomes); `SSDLAB_HOSTILE_FULL=1` multiplies every axis (more
//! values, more commands, every field of every line format) into thousands.

mod common;

use ssdlab::workload::trace::{CSV_CANONICAL_COLUMNS, TraceFormat};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a case expects.
#[derive(Clone, Debug)]
enum Want {
    /// Refused: this exit code and every fragment in standard error.
    Refused(i32, Vec<String>),
    /// Refused with exit 1 or 2, naming every fragment (an output that cannot be
    /// written is exit 1, one refused before the work exit 2).
    Failed(Vec<String>),
}

#[derive(Clone, Debug)]
struct Case {
    args: Vec<String>,
    want: Want,
    /// Files that must be byte-identical afterwards.
    keep: Vec<PathBuf>,
    /// The case's own working directory, when it may write files there (else the
    /// shared one): a case that rightly overwrites a file must not make another case,
    /// running beside it, see that file change.
    cwd: Option<PathBuf>,
}

fn case(args: &[&str], want: Want) -> Case {
    Case {
        args: args.iter().map(|s| s.to_string()).collect(),
        want,
        keep: Vec::new(),
        cwd: None,
    }
}

fn refused2(frags: &[&str]) -> Want {
    Want::Refused(2, frags.iter().map(|s| s.to_string()).collect())
}

fn full() -> bool {
    std::env::var_os("SSDLAB_HOSTILE_FULL").is_some_and(|v| v != "0")
}

/// A case's outcome, `None` if it held.
fn run_case(c: &Case, cwd: &Path) -> Option<String> {
    let before: Vec<Vec<u8>> = c.keep.iter().map(|p| fs::read(p).unwrap()).collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(&c.args)
        .current_dir(c.cwd.as_deref().unwrap_or(cwd))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            return Some(format!("HANG {:?}", c.args));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let mut err = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    for (p, b) in c.keep.iter().zip(&before) {
        if fs::read(p).ok().as_ref() != Some(b) {
            return Some(format!("DAMAGED {} by {:?}", p.display(), c.args));
        }
    }
    let code = status.code();
    if err.contains("panicked") || code == Some(101) || code.is_none() {
        return Some(format!("PANIC/ABORT {:?}: {code:?} {err}", c.args));
    }
    let (codes, frags): (&[i32], &Vec<String>) = match &c.want {
        Want::Refused(code, f) => (std::slice::from_ref(code), f),
        Want::Failed(f) => (&[1, 2], f),
    };
    if code == Some(0) {
        return Some(format!("EXIT 0 on bad input {:?}: {err}", c.args));
    }
    if !codes.contains(&code.unwrap()) {
        return Some(format!(
            "EXIT {code:?} (want {codes:?}) {:?}: {err}",
            c.args
        ));
    }
    // A fragment `a|b` holds if either is in the message (a flag or its config key).
    if let Some(f) = frags
        .iter()
        .find(|f| !f.split('|').any(|alt| err.contains(alt)))
    {
        return Some(format!("MESSAGE lacks `{f}` {:?}: {err}", c.args));
    }
    None
}

/// Numeric flags of each command, with the arguments that put the command in reach of
/// the flag's parser.
const NUMERIC: &[(&str, &[&str], &[&str])] = &[
    (
        "run",
        &[],
        &[
            "qd",
            "seed",
            "op",
            "read-percent",
            "capacity",
            "speedup",
            "fill",
            "trace-device",
            "mean-gap-ns",
            "span",
            "size",
            "size-max",
            "requests",
            "buffer-size",
            "mgmt-block",
        ],
    ),
    (
        "hybrid",
        &[],
        &[
            "runs",
            "cache",
            "qd",
            "seed",
            "requests",
            "span",
            "size",
            "read-percent",
        ],
    ),
    ("sweep", &["g.toml", "--out", "o"], &["jobs"]),
    (
        "crashtest",
        &[],
        &["cuts", "ops-per-cut", "capacity", "op", "seed"],
    ),
    (
        "probe",
        &[],
        &["passes", "partitions", "size", "step", "span", "seed"],
    ),
    ("reproduce", &["cftl", "--out", "o"], &["seed"]),
    (
        "serve",
        &["--socket", "s.sock"],
        &["stats-every", "power-cut-after", "capacity", "qd", "seed"],
    ),
    (
        "gen-trace",
        &["-o", "-"],
        &["requests", "span", "size", "seed", "capacity"],
    ),
    ("config", &[], &["op", "capacity", "qd", "seed", "fill"]),
];

/// The config key each numeric flag sets, where the library's check names the key.
const KEYS: &[(&str, &str)] = &[
    ("op", "device.op_percent"),
    ("capacity", "device.capacity"),
    ("speedup", "host.speedup"),
    ("fill", "fill_percent"),
    ("span", "workload span"),
    ("size", "workload size"),
    ("size-max", "size_max"),
    ("buffer-size", "buffer.size"),
    ("mgmt-block", "ftl.mgmt_block"),
    ("cache", "cache.size"),
];

const BAD_NUMBERS: &[&str] = &[
    "-1",
    "-0.5",
    "abc",
    "1.5x",
    "18446744073709551616",
    "NaN",
    "inf",
    "1e400",
    "",
    " ",
    "0x10",
];

const MORE_BAD_NUMBERS: &[&str] = &[
    "-18446744073709551616",
    "+-1",
    "1_",
    "1 2",
    "1,2,",
    "١٢",
    "--1",
    "1e",
    "-inf",
    "9999999999999999999999999999",
    "0.0.1",
    "\u{7f}",
];

/// Name flags and values no registry holds.
const NAMED: &[(&str, &[&str], &[&str])] = &[
    (
        "run",
        &[],
        &[
            "preset",
            "ftl",
            "gc",
            "buffer",
            "dispatch",
            "organisation",
            "placement",
            "channel-placement",
            "timing",
            "workload",
            "precondition",
            "host-log",
            "format",
            "trace-fit",
            "fs",
        ],
    ),
    (
        "hybrid",
        &[],
        &[
            "workload",
            "hdd",
            "write-policy",
            "table",
            "eviction",
            "flash-preset",
            "ftl",
            "gc",
        ],
    ),
    (
        "serve",
        &["--socket", "s.sock"],
        &["ftl", "gc", "latency", "preset"],
    ),
    ("crashtest", &[], &["ftl", "gc", "buffer", "preset"]),
    ("config", &[], &["preset", "ftl", "workload"]),
];

const BAD_NAMES: &[&str] = &["nope", "", ",", "page,,dftl"];
const MORE_BAD_NAMES: &[&str] = &["a b", "../etc", "\u{1}x", "lru,", "-x", "ftl=page"];

const LINE_FORMATS: [TraceFormat; 8] = [
    TraceFormat::Msr,
    TraceFormat::Ascii,
    TraceFormat::Disksim,
    TraceFormat::Blkparse,
    TraceFormat::Tencent,
    TraceFormat::Heimdall,
    TraceFormat::Csv,
    TraceFormat::Fio,
];

/// Malformed versions of one valid line: whole-line damage, and the line's request
/// size (its value `4096` or `8` sectors, whichever the format writes) made wrong.
fn malformations(line: &str, format: TraceFormat) -> Vec<(String, &'static str)> {
    let sep = if line.contains(',') { ',' } else { ' ' };
    let first = line.split(sep).next().unwrap_or("").to_string();
    let mut v = Vec::new();
    // blkparse output interleaves summary and message lines with the events, and its
    // reader skips whatever does not start like an event line (docs/traces.md): only an
    // event line with too few fields is malformed there.
    if format != TraceFormat::Blkparse {
        v.extend([
            (first, "a line cut after its first field"),
            ("\u{1}\u{2}\u{3}garbage\u{7f}".to_string(), "control bytes"),
            (
                line.replace(|c: char| c.is_ascii_digit(), "x"),
                "every digit a letter",
            ),
        ]);
    }
    // A trailing separator is an empty field only where the separator is a comma and
    // every field is read (whitespace formats and csv's column spec ignore it).
    if matches!(format, TraceFormat::Msr | TraceFormat::Tencent) {
        v.push((format!("{line}{sep}"), "a trailing empty field"));
    }
    v.push((
        match format {
            TraceFormat::Blkparse => "  8,16  0 1 0.5x 1 Q R 8 + 8 [p]".to_string(),
            TraceFormat::Msr | TraceFormat::Tencent | TraceFormat::Csv => "12,34".into(),
            _ => "12 34 56".into(),
        },
        "too few fields",
    ));
    if full() {
        v.push(("x".repeat(100_000), "a 100 KB line"));
        // fio's only `1` is in its file name (`dev1`), which may be any text: make its
        // size overflow instead.
        v.push((
            if format == TraceFormat::Fio {
                line.replace("4096", "18446744073709551616")
            } else {
                line.replace('1', "18446744073709551616")
            },
            "overflowing numbers",
        ));
        // Doubled commas are an empty field; doubled blanks are still one separator in
        // the whitespace formats ("runs of spaces/tabs"), so a valid line there.
        if sep == ',' {
            v.push((
                line.replace(sep, &format!("{sep}{sep}")),
                "doubled separators",
            ));
        }
        v.push((line.replace('0', "-"), "dashes for zeros"));
    }
    v
}

fn format_name(f: TraceFormat) -> String {
    f.name().to_string()
}

#[test]
fn hostile_cases_never_panic_hang_exit_0_or_damage_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // An input every case may touch and none may change.
    let good = d.join("good.ascii");
    fs::write(
        &good,
        common::valid_lines(TraceFormat::Ascii, 50).join("\n") + "\n",
    )
    .unwrap();
    fs::write(
        d.join("g.toml"),
        "[base]\npreset = \"default\"\nworkload = \"random-write\"\n\
         set = { \"device.capacity\" = \"256MiB\", \"workload.requests\" = 100 }\n\
         [[axis]]\nkey = \"ftl.name\"\nvalues = [\"page\"]\n",
    )
    .unwrap();
    let mut cases = flag_cases();
    cases.extend(trace_cases(d));
    cases.extend(output_cases(d, &good));
    cases.extend(command_line_cases());
    let total = cases.len();
    let failures = run_all(&cases, d);
    let count = |k: &str| failures.iter().filter(|f| f.starts_with(k)).count();
    eprintln!(
        "hostile cases: {total} run ({}): {} panics/aborts, {} hangs, {} wrong exit 0, {} \
         damaged files, {} other exit codes, {} messages lacking their fragment",
        if full() { "full" } else { "CI set" },
        count("PANIC"),
        count("HANG"),
        count("EXIT 0"),
        count("DAMAGED"),
        count("EXIT ") - count("EXIT 0"),
        count("MESSAGE")
    );
    assert!(total >= 500, "only {total} cases");
    assert!(
        failures.is_empty(),
        "{} of {total} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Flags × bad values.
fn flag_cases() -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    let numbers: Vec<&str> = if full() {
        [BAD_NUMBERS, MORE_BAD_NUMBERS].concat()
    } else {
        BAD_NUMBERS.to_vec()
    };
    for (cmd, ctx, flags) in NUMERIC {
        for f in *flags {
            for v in &numbers {
                let flag = format!("--{f}");
                let mut a = vec![*cmd];
                a.extend(*ctx);
                a.extend([flag.as_str(), v]);
                // A value that parses but no design takes is refused by the config
                // check, which names the key the flag sets.
                let named = match KEYS.iter().find(|(k, _)| k == f) {
                    Some((_, key)) => format!("{flag}|{key}"),
                    None => flag.clone(),
                };
                cases.push(case(&a, refused2(&[&named])));
            }
        }
    }
    let names: Vec<&str> = if full() {
        [BAD_NAMES, MORE_BAD_NAMES].concat()
    } else {
        BAD_NAMES.to_vec()
    };
    for (cmd, ctx, flags) in NAMED {
        for f in *flags {
            for v in &names {
                let flag = format!("--{f}");
                let mut a = vec![*cmd];
                a.extend(*ctx);
                a.extend([flag.as_str(), v]);
                cases.push(case(&a, refused2(&[&flag])));
            }
        }
    }

    cases
}

/// Traces × malformations: a valid trace with one line (the 8th request) damaged, run and
/// converted by gen-trace.
fn trace_cases(d: &Path) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for (n_trace, format) in LINE_FORMATS.into_iter().enumerate() {
        let lines = common::valid_lines(format, 20);
        let at = lines.len() - 12;
        for (k, (bad, what)) in malformations(&lines[at], format).into_iter().enumerate() {
            let mut l = lines.clone();
            l[at] = bad;
            let p = d.join(format!("t{n_trace}-{k}.{}", format_name(format)));
            fs::write(&p, l.join("\n") + "\n").unwrap();
            let ps = p.display().to_string();
            let fname = format_name(format);
            let mut a = vec![
                "run",
                "--capacity",
                "256MiB",
                "-q",
                "--trace",
                &ps,
                "--format",
                &fname,
            ];
            if format == TraceFormat::Csv {
                a.extend(["--columns", CSV_CANONICAL_COLUMNS]);
            }
            let mut c = case(&a, refused2(&[&ps]));
            c.keep.push(p.clone());
            let _ = what;
            cases.push(c.clone());
            // The same trace converted by gen-trace.
            let mut g = c.clone();
            g.args[0] = "gen-trace".into();
            g.args.retain(|x| x != "-q");
            g.args
                .extend(["-o".into(), d.join("conv.ascii").display().to_string()]);
            cases.push(g);
        }
    }

    cases
}

/// Outputs × paths: outputs onto an input, into a file, onto a directory, nowhere.
/// Each case runs in its own directory holding its own `good.ascii` (the trace input)
/// and `g.toml` (the sweep grid), both of which must come out unchanged.
fn output_cases(d: &Path, good: &Path) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    const GOOD: &str = "@GOOD";
    let run: &[&str] = &[
        "run",
        "--capacity",
        "256MiB",
        "--requests",
        "100",
        "-q",
        "--trace",
        GOOD,
    ];
    let outs: &[(&[&str], &str)] = &[
        (run, "--json"),
        (run, "--csv"),
        (run, "--svg"),
        (run, "--html"),
        (&["gen-trace", "--trace", GOOD], "-o"),
        (&["config", "--config", GOOD], "-o"),
        (
            &[
                "crashtest",
                "--capacity",
                "16MiB",
                "--cuts",
                "1",
                "--trace",
                GOOD,
            ],
            "--json",
        ),
        (&["hybrid", "--trace", GOOD], "--json"),
        (&["hybrid", "--trace", GOOD], "--csv"),
        (&["sweep", "g.toml"], "--out"),
        (&["reproduce", "cftl", "--quick", "--traces", GOOD], "--out"),
    ];
    let mut n_out = 0;
    for (args, flag) in outs {
        let dir_output = matches!(*flag, "--svg" | "--html" | "--out");
        let mut paths: Vec<&str> = vec![GOOD, "@GOOD/x", ""];
        if full() {
            paths.extend(["/proc/no/such", "/dev/null/x", "g.toml/"]);
            // An existing file is a fine target for a file output unless it is an
            // input; `g.toml` is one for sweep, and no directory for a directory output.
            if dir_output || args[0] == "sweep" {
                paths.push("g.toml");
            }
        }
        // A directory output given a directory is fine: only files get one.
        if !dir_output {
            paths.push("@DIR");
        }
        for p in paths {
            n_out += 1;
            let own = d.join(format!("out{n_out}"));
            fs::create_dir(&own).unwrap();
            let good_here = own.join("good.ascii");
            fs::copy(good, &good_here).unwrap();
            fs::copy(d.join("g.toml"), own.join("g.toml")).unwrap();
            let fill = |x: &str| {
                x.replace(GOOD, &good_here.display().to_string())
                    .replace("@DIR", &own.display().to_string())
            };
            let mut a: Vec<String> = args.iter().map(|x| fill(x)).collect();
            a.extend([flag.to_string(), fill(p)]);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let mut c = case(&a, Want::Failed(vec![]));
            c.keep.push(good_here);
            c.keep.push(own.join("g.toml"));
            c.cwd = Some(own);
            cases.push(c);
        }
    }

    cases
}

/// Whole command lines.
fn command_line_cases() -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for a in [
        &["nope"][..],
        &["run", "extra-positional"],
        &["run", "--set"],
        &["run", "--set", "nokey"],
        &["run", "--set", "device.nope=1"],
        &["run", "--set", "device.capacity=true"],
        &["run", "--config", "/nonexistent.toml"],
        &["run", "--trace", "/nonexistent.trace"],
        &["sweep", "/nonexistent.toml", "--out", "o"],
        &["reproduce", "nope", "--out", "o"],
        &["probe", "--device", "/nonexistent"],
        &["serve"],
        &["serve", "--socket", "s.sock", "--port", "1"],
        &["hybrid", "--workload", "boot", "--trace", "x"],
        &["gen-trace"],
        &["crashtest", "--cuts", "0"],
    ] {
        cases.push(case(a, Want::Failed(vec![])));
    }

    cases
}

/// Runs the cases two at a time (the machine's cores; four with the full set),
/// collecting every failure.
fn run_all(cases: &[Case], d: &Path) -> Vec<String> {
    let failures = Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = if full() { 4 } else { 2 };
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(c) = cases.get(i) else { break };
                    if let Some(f) = run_case(c, d) {
                        failures.lock().unwrap().push(f);
                    }
                }
            });
        }
    });
    failures.into_inner().unwrap()
}
