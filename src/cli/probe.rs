//! `ssdlab probe --device PATH`: the management-block probe of Ryu & Park 2009
//! (docs/papers.md §1) against a real block device or file, timed on the wall clock.
//!
//! ```text
//! starts = probe::partition_starts(settings, device size)     (shared with --workload probe)
//! fill:  probe::fill_requests  -> pwrite each (1 MiB requests); fdatasync
//! probe: probe::probe_requests -> for each: t0; pwrite (O_DIRECT, else O_DSYNC); latency
//!        repeated --passes times; each offset keeps its fastest time
//! infer: probe::infer(samples)  -> the management-block size (spacing of latency jumps)
//! ```
//! The requests, the partition layout and the inference are the simulated probe's own
//! (`src/workload/synth/probe.rs`); only the clock differs: here a write's latency is
//! the wall time `pwrite` takes, one write at a time (queue depth 1, as the method needs).
//! O_DIRECT keeps the page cache out of the measurement; where a file system refuses it
//! (tmpfs, some FUSE file systems) O_DSYNC stands in: every write then returns only once
//! the device acknowledged it, which adds the same flush cost to every sample.

use super::CliError;
use super::args::parse_size;
use super::output;
use clap::Args;
use rand::{RngCore, SeedableRng};
use ssdlab::report::ProbeReport;
use ssdlab::report::output::Batch;
use ssdlab::units::Size;
use ssdlab::workload::IoRequest;
use ssdlab::workload::synth::{SynthConfig, SynthKind, probe};
use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom};
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Examples shown by `ssdlab probe --help`.
pub const AFTER_HELP: &str = "\
Examples:
  ssdlab probe --device /tmp/disk.img                       a regular file (overwritten)
  ssdlab probe --device /dev/sdX --yes-destroy-data         a whole SSD: its data is lost
  ssdlab probe --device ssd.img --size 64KiB --step 32KiB   fewer, larger writes

  # an emulated SSD B over NBD, seen as a file through nbdfuse:
  ssdlab serve --socket /tmp/b.sock --preset ssd-b --capacity 256MiB --latency simulated &
  mkdir -p /tmp/mnt && nbdfuse /tmp/mnt/ssd --unix /tmp/b.sock &
  ssdlab probe --device /tmp/mnt/ssd --size 64KiB --step 32KiB      (names 1 MiB)

The probe first writes every probed region once (so each later write finds data to
read-modify-write), then writes --size bytes at offsets rising by --step over --span
bytes in each of --partitions partitions, one write at a time, and times each write;
each offset keeps the fastest of --passes passes (a busy host only adds delay). A
write that straddles two management blocks costs more, so latency jumps once per
management block; the most common spacing of the jumps is the inferred size (the same
inference as `ssdlab run --workload probe`). Writes bypass the page cache (O_DIRECT);
where that is refused, each write is synchronous (O_DSYNC) instead and the output says
so. Everything in the probed regions is overwritten: a block device needs
--yes-destroy-data, and is opened exclusively (a mounted one is refused).";

/// `ssdlab probe` flags.
#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// Block device or regular file to probe (its probed regions are overwritten).
    #[arg(long, value_name = "PATH")]
    pub device: PathBuf,
    /// Confirm that the block device's data may be destroyed (not needed for a regular
    /// file).
    #[arg(long)]
    pub yes_destroy_data: bool,
    /// Size of each probe write (default 4KiB, as --workload probe).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub size: Option<Size>,
    /// Offset step between probe writes, a multiple of 512 B (default 512B).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub step: Option<Size>,
    /// Bytes probed per partition (default 4MiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub span: Option<Size>,
    /// Partitions probed, spread over the device (default 3).
    #[arg(long, value_name = "N", value_parser = super::args::whole::<u32>(0, u32::MAX.into()))]
    pub partitions: Option<u32>,
    /// Passes over the probe writes; each offset's latency is the fastest of its passes
    /// (host delays — scheduling, interrupts, a loaded machine — only ever add time).
    #[arg(long, value_name = "N", default_value_t = 3,
          value_parser = super::args::whole::<u32>(1, 100))]
    pub passes: u32,
    /// Seed of the written data (random bytes, so a compressing drive cannot skip them).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = super::args::whole::<u64>(0, u64::MAX))]
    pub seed: u64,
    /// Write the result as JSON to this file (`-` = standard output).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// How the writes reach the device.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Direct,
    Dsync,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Direct => "O_DIRECT",
            Mode::Dsync => "O_DSYNC (O_DIRECT refused)",
        }
    }
}

/// What is probed.
struct Target {
    path: PathBuf,
    block_device: bool,
    size_bytes: u64,
}

/// Checks the path: a block device or a regular file, its size, the confirmation.
fn target(a: &ProbeArgs) -> Result<Target, CliError> {
    let path = &a.device;
    let meta = std::fs::metadata(path).map_err(|e| {
        CliError::Input(format!(
            "--device {}: {e}: expected a block device or a regular file",
            path.display()
        ))
    })?;
    let ft = meta.file_type();
    let block_device = ft.is_block_device();
    if !block_device && !ft.is_file() {
        return Err(CliError::Input(format!(
            "--device {}: not a block device or a regular file",
            path.display()
        )));
    }
    let size_bytes = if block_device {
        // A block device's metadata has no length; its end does.
        File::open(path)
            .and_then(|mut f| f.seek(SeekFrom::End(0)))
            .map_err(|e| {
                CliError::Input(format!("--device {}: cannot open: {e}", path.display()))
            })?
    } else {
        meta.len()
    };
    if block_device && !a.yes_destroy_data {
        return Err(CliError::Input(format!(
            "--device {} is a block device of {} ({size_bytes} bytes): the probe overwrites \
             parts of it and its data is lost. Add --yes-destroy-data to go ahead.",
            path.display(),
            Size(size_bytes)
        )));
    }
    Ok(Target {
        path: path.clone(),
        block_device,
        size_bytes,
    })
}

/// Opens for writing, bypassing the page cache when the file system allows it.
fn open(t: &Target, mode: Mode) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true);
    let mut flags = match mode {
        Mode::Direct => libc::O_DIRECT,
        Mode::Dsync => libc::O_DSYNC,
    };
    if t.block_device {
        // Exclusive: the kernel refuses a block device that is mounted or in use.
        flags |= libc::O_EXCL;
    }
    o.custom_flags(flags).open(&t.path)
}

/// A buffer of random bytes whose start is aligned for O_DIRECT (4 KiB covers every
/// logical block size in use).
struct Aligned {
    buf: Vec<u8>,
    at: usize,
    len: usize,
}

impl Aligned {
    fn new(len: usize, seed: u64) -> Aligned {
        const ALIGN: usize = 4096;
        let mut buf = vec![0u8; len + ALIGN];
        rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed).fill_bytes(&mut buf);
        let at = buf.as_ptr().align_offset(ALIGN);
        Aligned { buf, at, len }
    }
    fn bytes(&self, n: u64) -> &[u8] {
        debug_assert!(n as usize <= self.len);
        &self.buf[self.at..self.at + n as usize]
    }
}

/// Writes one request, returning how long it took.
fn timed_write(f: &File, data: &Aligned, r: &IoRequest) -> io::Result<u64> {
    let t = Instant::now();
    f.write_all_at(data.bytes(r.size_bytes), r.offset_bytes)?;
    Ok(t.elapsed().as_nanos() as u64)
}

fn write_error(path: &Path, r: &IoRequest, mode: Mode, e: io::Error) -> CliError {
    let hint = if mode == Mode::Direct && e.raw_os_error() == Some(libc::EINVAL) {
        " (O_DIRECT needs offsets and sizes in multiples of the device's logical block \
         size: try --step 4KiB --size 4KiB or larger)"
    } else {
        ""
    };
    CliError::Output(format!(
        "--device {}: write of {} bytes at offset {} failed: {e}{hint}",
        path.display(),
        r.size_bytes,
        r.offset_bytes
    ))
}

/// The probe's generator settings from the flags, checked.
fn settings_of(a: &ProbeArgs) -> Result<SynthConfig, CliError> {
    let defaults = SynthConfig::default();
    let settings = SynthConfig {
        kind: SynthKind::Probe,
        size: a.size.unwrap_or(defaults.size),
        probe_step: a.step.unwrap_or(defaults.probe_step),
        span: Some(a.span.unwrap_or(Size(probe::probe_span(&defaults)))),
        probe_partitions: a.partitions.unwrap_or(defaults.probe_partitions),
        ..defaults
    };
    if settings.size.bytes() == 0 {
        return Err(CliError::Input(
            "--size 0: expected a positive multiple of 512 B".into(),
        ));
    }
    // A span shorter than one write probes nothing ("none found" from zero samples).
    let span = probe::probe_span(&settings);
    if span < settings.size.bytes() {
        return Err(CliError::Input(format!(
            "--span {}: expected at least --size ({}), the bytes each partition probes",
            Size(span),
            settings.size
        )));
    }
    Ok(settings)
}

/// Opens the device (O_DIRECT where the file system takes it, else O_DSYNC) and writes
/// every partition once, so the probe's writes overwrite data; returns the file, the
/// mode the writes use and the data buffer.
fn fill(
    a: &ProbeArgs,
    t: &Target,
    settings: &SynthConfig,
    starts: &[u64],
) -> Result<(File, Mode, Aligned), CliError> {
    // O_DIRECT where the file system takes it; a refusal shows at open or at the first
    // write (EINVAL), and then every write is synchronous instead.
    let mut mode = Mode::Direct;
    let mut f = match open(t, Mode::Direct) {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
            mode = Mode::Dsync;
            open(t, Mode::Dsync).map_err(|e| open_error(t, e))?
        }
        Err(e) => return Err(open_error(t, e)),
    };
    let fill = probe::fill_requests(settings, starts);
    let largest = fill
        .iter()
        .map(|r| r.size_bytes)
        .max()
        .unwrap_or(0)
        .max(settings.size.bytes());
    let data = Aligned::new(largest as usize, a.seed);
    eprintln!(
        "ssdlab probe: {} ({}, {}), {} writes",
        t.path.display(),
        if t.block_device {
            "block device"
        } else {
            "regular file"
        },
        Size(t.size_bytes),
        mode.name()
    );
    for (i, r) in fill.iter().enumerate() {
        if let Err(e) = timed_write(&f, &data, r) {
            if i == 0 && mode == Mode::Direct && e.raw_os_error() == Some(libc::EINVAL) {
                mode = Mode::Dsync;
                eprintln!("ssdlab probe: O_DIRECT writes refused ({e}); using O_DSYNC writes");
                f = open(t, Mode::Dsync).map_err(|e| open_error(t, e))?;
                timed_write(&f, &data, r).map_err(|e| write_error(&t.path, r, mode, e))?;
                continue;
            }
            return Err(write_error(&t.path, r, mode, e));
        }
    }
    f.sync_data().map_err(|e| {
        CliError::Output(format!(
            "--device {}: fdatasync after the fill failed: {e}",
            t.path.display()
        ))
    })?;
    Ok((f, mode, data))
}

/// Runs `ssdlab probe`.
pub fn cmd(a: &ProbeArgs) -> Result<(), CliError> {
    let settings = settings_of(a)?;
    let json = a
        .json
        .as_deref()
        .map(|p| output::file("--json", p))
        .transpose()?;
    let t = target(a)?;
    // The report must never land on the device it describes (on a real block device
    // the JSON would be written onto the disk).
    if let Some(j) = &json {
        output::distinct(&[(j, Vec::new())], &[("--device", t.path.as_path())])?;
    }
    let starts = probe::partition_starts(&settings, t.size_bytes).map_err(|e| {
        CliError::Input(format!(
            "--device {} ({}): {e} (flags --size, --step, --span, --partitions)",
            t.path.display(),
            Size(t.size_bytes)
        ))
    })?;
    let (f, mode, data) = fill(a, &t, &settings, &starts)?;
    let requests: Vec<IoRequest> = probe::probe_requests(&settings, starts.clone()).collect();
    let bar = progress_bar(requests.len() as u64 * a.passes as u64);
    let mut latency_ns = vec![u64::MAX; requests.len()];
    for _ in 0..a.passes {
        for (r, l) in requests.iter().zip(&mut latency_ns) {
            let ns = timed_write(&f, &data, r).map_err(|e| write_error(&t.path, r, mode, e))?;
            *l = (*l).min(ns);
            bar.inc(1);
        }
    }
    let samples: Vec<(u32, u64, u64)> = requests
        .iter()
        .zip(&latency_ns)
        .map(|(r, &ns)| {
            let p = starts.partition_point(|&s| s <= r.offset_bytes) - 1;
            (p as u32, r.offset_bytes - starts[p], ns)
        })
        .collect();
    bar.finish_and_clear();
    let result = probe::infer(&samples, settings.size.bytes());
    let report = ProbeReport::new(
        &result,
        settings.size.bytes(),
        settings.probe_step.bytes(),
        settings.probe_partitions,
    );
    let text = format!(
        "Management-block probe of {} ({} writes every {} over {} in {} partitions, {} \
         passes, {}, latency {:.1}–{:.1} µs, {} jumps): inferred management block: {}\n",
        t.path.display(),
        settings.size,
        Size(report.step_bytes),
        Size(probe::probe_span(&settings)),
        report.partitions,
        a.passes,
        mode.name(),
        report.latency_ns_min as f64 / 1e3,
        report.latency_ns_max as f64 / 1e3,
        report.onsets,
        report.verdict()
    );
    if let Some(out) = &json {
        let v = serde_json::json!({
            "device": t.path,
            "device_bytes": t.size_bytes,
            "block_device": t.block_device,
            "write_mode": match mode { Mode::Direct => "direct", Mode::Dsync => "dsync" },
            "writes": samples.len(),
            "passes": a.passes,
            "span_bytes": probe::probe_span(&settings),
            "probe": report,
        });
        let mut batch = Batch::new();
        batch.file(
            out,
            serde_json::to_string_pretty(&v).expect("serializes") + "\n",
        );
        output::commit(batch)?;
        if !out.is_stdout() {
            output::print(&text)?;
        } else {
            eprint!("{text}");
        }
    } else {
        output::print(&text)?;
    }
    Ok(())
}

fn open_error(t: &Target, e: io::Error) -> CliError {
    let why = if e.raw_os_error() == Some(libc::EBUSY) {
        " (in use: mounted, or held by another program)".to_string()
    } else {
        String::new()
    };
    CliError::Input(format!(
        "--device {}: cannot open for writing: {e}{why}",
        t.path.display()
    ))
}

/// A bar on stderr when it is a terminal; hidden otherwise.
fn progress_bar(total: u64) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template("probing {bar:40} {pos}/{len} writes {eta}")
            .expect("valid template"),
    );
    bar
}
