//! Benchmark generators: sequential, uniform random, zipf, hot/cold, mixes, IOZone-like,
//! and OLTP-like and compile-like stand-ins for the NCQ-buffer paper's real workloads.
//!
//! Every generator is a lazy iterator: it holds a few words of state and computes each
//! request on demand, so a 100 M-request run costs no memory and no allocation per request.
//! All randomness comes from one `Xoshiro256PlusPlus` per phase seeded from the run's seed,
//! so the same config and seed always give the same requests.
//!
//! Guarantees for every request: `offset_bytes` is a multiple of `align`,
//! `offset_bytes + size_bytes <= span`, and `size_bytes` is `size` or (with `size_max`) a
//! multiple of `align` in `[size, size_max]` (`compile` takes `size_max` = 16 × `size`
//! when it is not set: its file writes are its larger requests).

pub mod aging;
pub mod andrew;
pub mod cachelib;
mod compile;
mod error;
pub mod export;
mod hotcold;
mod iozone;
pub mod lsm;
mod oltp;
pub(crate) mod own;
pub mod phases;
pub mod probe;
mod sequential;
pub(crate) mod stream;
pub mod streams;
mod uniform;
mod zipf;
pub mod zonedseq;

#[cfg(test)]
mod tests;

pub use error::SynthError;
pub use export::write_ascii;
pub use hotcold::HotColdKeys;
pub use iozone::IozoneKeys;
pub use oltp::OltpKeys;
pub use sequential::SequentialKeys;
pub use zipf::ZipfKeys;

use super::iometer::{self, IometerConfig};
use super::{IoRequest, OpKind, Phase, StreamSplit};
use crate::registry::{Named, Registry};
use crate::spec::{ConfigError, check_range};
use crate::units::Size;
use rand::RngCore;
use serde::{Deserialize, Serialize};
use stream::{Arrivals, Generator, OpMix, Placement, SizeDist, SynthRng, rng_from_seed};
pub use streams::StreamLoop;

/// Which generator: a handle on its entry in the registry ([`GENERATORS`], or one added
/// by [`register`]), compared and printed by its kebab-case name. The built-in ones have
/// constants (`SynthKind::Zipf`, …) for the code that names one.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SynthKind(&'static str);

// The built-in generators by name; each takes its name from its file's spec.
#[allow(non_upper_case_globals)]
impl SynthKind {
    /// Sequential writes over the span (`sequential.rs`).
    pub const SeqWrite: SynthKind = SynthKind(sequential::SEQ_WRITE.name);
    /// Sequential reads over the span (`sequential.rs`).
    pub const SeqRead: SynthKind = SynthKind(sequential::SEQ_READ.name);
    /// Uniform random writes (`uniform.rs`).
    pub const RandomWrite: SynthKind = SynthKind(uniform::RANDOM_WRITE.name);
    /// Uniform random reads (`uniform.rs`).
    pub const RandomRead: SynthKind = SynthKind(uniform::RANDOM_READ.name);
    /// Uniform random reads and writes, `read_percent` reads (`uniform.rs`).
    pub const Mixed: SynthKind = SynthKind(uniform::MIXED.name);
    /// Zipf-distributed offsets (`zipf.rs`).
    pub const Zipf: SynthKind = SynthKind(zipf::SPEC.name);
    /// Hot and cold regions (`hotcold.rs`).
    pub const HotCold: SynthKind = SynthKind(hotcold::SPEC.name);
    /// OLTP-like (`oltp.rs`).
    pub const Oltp: SynthKind = SynthKind(oltp::SPEC.name);
    /// Compile-like (`compile.rs`).
    pub const Compile: SynthKind = SynthKind(compile::SPEC.name);
    /// IOZone-like suite (`iozone.rs`), the default.
    pub const Iozone: SynthKind = SynthKind(iozone::SPEC.name);
    /// A log on zones (`zonedseq.rs`).
    pub const ZonedSeq: SynthKind = SynthKind(zonedseq::SPEC.name);
    /// Management-block probe (`probe.rs`).
    pub const Probe: SynthKind = SynthKind(probe::SPEC.name);
    /// Andrew-benchmark-like small files (`andrew.rs`).
    pub const Andrew: SynthKind = SynthKind(andrew::SPEC.name);
    /// Iometer access specification (`../iometer.rs`).
    pub const Iometer: SynthKind = SynthKind(iometer::SPEC.name);
    /// CacheLib-like flash cache (`cachelib.rs`).
    pub const Cachelib: SynthKind = SynthKind(cachelib::SPEC.name);
    /// Log-structured-merge key-value store (`lsm.rs`).
    pub const Lsm: SynthKind = SynthKind(lsm::SPEC.name);
}

impl Default for SynthKind {
    fn default() -> Self {
        SynthKind::Iozone
    }
}

impl std::fmt::Debug for SynthKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl Serialize for SynthKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for SynthKind {
    /// By exact name; the message is serde's own for an unknown variant.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        lookup(&s)
            .map(GeneratorSpec::kind)
            .ok_or_else(|| serde::de::Error::custom(REGISTRY.unknown(&s)))
    }
}

/// One workload generator: its name, its description, and how it is built.
/// Each generator's file exports its own (`zipf::SPEC`, …); [`GENERATORS`] lists them.
pub struct GeneratorSpec {
    /// Its kebab-case name, as in config files (`workload.kind`) and `--workload`.
    pub name: &'static str,
    /// One line for `ssdlab list` and `--help`.
    pub summary: &'static str,
    /// A single generator (one phase over `[offset, offset + span)`), not a suite that
    /// expands into its own phases or lays out its own addresses.
    pub single: bool,
    /// How its requests are made.
    build: Build,
    /// Folds its own `[workload.NAME]` table into the flat keys ([`own`]); `None`: it
    /// has no such table (or a typed section of its own, as cachelib and lsm).
    own: Option<own::FoldFn>,
    /// Its own checks of a validated single config over a span, after the common ones
    /// (`None`: the common ones are all it needs).
    check: Option<CheckFn>,
}

/// A generator's own checks of `cfg` over a span of `span_bytes`.
pub(crate) type CheckFn = fn(&SynthConfig, span_bytes: u64) -> Result<(), SynthError>;

/// How a generator's requests are made.
#[derive(Clone, Copy)]
enum Build {
    /// A suite: [`generate`] expands it into its own phases.
    Suite,
    /// A built-in single generator, made in its file from the phase's parts.
    Own(MakeFn),
    /// A single generator defined outside this crate ([`register`]).
    External(BuildFn),
}

/// The requests of a phase, computed lazily.
pub(crate) type Requests = Box<dyn Iterator<Item = IoRequest> + Send>;

/// A built-in single generator's requests from the parts of its phase.
pub(crate) type MakeFn = fn(Single) -> Requests;

/// What a single generator's phase is made from: the validated config, the span
/// (`[0, span)`; `workload.offset` is added after), the request sizes, how many requests,
/// the phase's random source and its arrival times.
pub(crate) struct Single<'a> {
    pub cfg: &'a SynthConfig,
    pub span: u64,
    pub sizes: SizeDist,
    pub count: u64,
    pub rng: SynthRng,
    pub arrivals: Arrivals,
}

impl Single<'_> {
    /// `count` requests at the offsets `placement` draws, operations from `ops`.
    pub(crate) fn placed<P: Placement + 'static>(self, placement: P, ops: OpMix) -> Requests {
        Box::new(Generator::new(
            self.rng,
            placement,
            self.sizes,
            ops,
            self.arrivals,
            self.count,
        ))
    }

    /// Reads and writes, `read_percent` of them reads.
    pub(crate) fn reads(&self) -> OpMix {
        OpMix::Reads(self.cfg.read_percent / 100.0)
    }
}

/// The requests of a generator defined outside this crate, for `count` requests over
/// `[0, span_bytes)`, random from `seed`. Offsets are shifted by `workload.offset` and
/// the common keys are validated by the caller.
pub type BuildFn = fn(
    cfg: &SynthConfig,
    span_bytes: u64,
    count: u64,
    seed: u64,
) -> Box<dyn Iterator<Item = IoRequest> + Send>;

impl GeneratorSpec {
    /// A built-in suite's spec (it expands into its own phases in [`generate`]).
    pub(crate) const fn suite(name: &'static str, summary: &'static str) -> Self {
        GeneratorSpec {
            name,
            summary,
            single: false,
            build: Build::Suite,
            own: None,
            check: None,
        }
    }

    /// A built-in single generator's spec: `make` builds its requests.
    pub(crate) const fn own(name: &'static str, summary: &'static str, make: MakeFn) -> Self {
        GeneratorSpec {
            name,
            summary,
            single: true,
            build: Build::Own(make),
            own: None,
            check: None,
        }
    }

    /// A single generator defined outside this crate, made by `build`; add it with
    /// [`register`].
    pub const fn new(name: &'static str, summary: &'static str, build: BuildFn) -> Self {
        GeneratorSpec {
            name,
            summary,
            single: true,
            build: Build::External(build),
            own: None,
            check: None,
        }
    }

    /// The same spec with its own `[workload.NAME]` table, folded by `fold`.
    pub(crate) const fn with_own(self, fold: own::FoldFn) -> Self {
        GeneratorSpec {
            own: Some(fold),
            ..self
        }
    }

    /// The same spec with its own checks (`check`).
    pub(crate) const fn with_check(self, check: CheckFn) -> Self {
        GeneratorSpec {
            check: Some(check),
            ..self
        }
    }

    /// The generator's handle.
    pub fn kind(&self) -> SynthKind {
        SynthKind(self.name)
    }
}

/// The registry of built-in generators, in the order `ssdlab list` shows them: one line
/// per generator, whose file exports its spec. The names, `ssdlab list`, `--help` and
/// config parsing come from it.
pub const GENERATORS: [&GeneratorSpec; 16] = [
    &sequential::SEQ_WRITE,
    &sequential::SEQ_READ,
    &uniform::RANDOM_WRITE,
    &uniform::RANDOM_READ,
    &uniform::MIXED,
    &zipf::SPEC,
    &hotcold::SPEC,
    &oltp::SPEC,
    &compile::SPEC,
    &iozone::SPEC,
    &probe::SPEC,
    &andrew::SPEC,
    &iometer::SPEC,
    &zonedseq::SPEC,
    &cachelib::SPEC,
    &lsm::SPEC,
];

/// The generators: the built-ins, then those added at run time by [`register`].
static REGISTRY: Registry<GeneratorSpec> = Registry::new(&GENERATORS);

impl Named for GeneratorSpec {
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
}

/// Adds a generator defined outside this crate: from then on it is listed, parsed by
/// name (`workload.kind`, `--workload`) and run like a built-in one. Refuses a name
/// already taken.
pub fn register(spec: &'static GeneratorSpec) -> Result<SynthKind, ConfigError> {
    REGISTRY.register(spec).map_err(|_| {
        ConfigError::value(
            "workload.kind",
            spec.name,
            "a generator name not yet registered",
        )
    })?;
    Ok(spec.kind())
}

/// The spec named `name` exactly.
fn lookup(name: &str) -> Option<&'static GeneratorSpec> {
    REGISTRY.get(name)
}

/// Settings of a generator (the `[workload]` table of a config file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SynthConfig {
    /// Which generator.
    pub kind: SynthKind,
    /// Address range used, from offset 0; `None` = the whole logical capacity.
    pub span: Option<Size>,
    /// Request size.
    pub size: Size,
    /// If set, sizes are uniform in `[size, size_max]` in steps of `align`.
    pub size_max: Option<Size>,
    /// Offsets (and sizes) are multiples of this.
    pub align: Size,
    /// Requests per phase; `None` = span / size.
    #[serde(with = "crate::units::wide_u64::option", default)]
    pub requests: Option<u64>,
    /// Share of reads for `mixed`, `zipf`, `hot-cold`, 0–100.
    pub read_percent: f64,
    /// Zipf exponent.
    pub zipf_theta: f64,
    /// Hot region as a share of the span, 0–100.
    pub hot_span_percent: f64,
    /// Share of requests sent to the hot region, 0–100.
    pub hot_access_percent: f64,
    /// Mean gap between arrivals (exponential); `None` = closed loop.
    #[serde(with = "crate::units::wide_u64::option", default)]
    pub mean_gap_ns: Option<u64>,
    /// Probe: offset step between writes (a multiple of 512 B).
    pub probe_step: Size,
    /// Probe: partitions probed (the inference pools them).
    pub probe_partitions: u32,
    /// Probe: a management-block size to test (the report's `probe.block_test`: the
    /// writes crossing its boundaries against the others); `None` = only infer one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe_block: Option<Size>,
    /// Andrew: files in the source tree.
    pub andrew_files: u32,
    /// Iometer: the access specification.
    #[serde(skip_serializing_if = "IometerConfig::is_empty")]
    pub iometer: IometerConfig,
    /// Iozone: one record size for all four phases (`size` is then unused); `None` keeps
    /// 128 KiB sequential records unless `size` differs from its default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iozone_record: Option<Size>,
    /// Iozone: run the two read phases first (seq-read, random-read, seq-write,
    /// random-write), so they read the data preconditioning left instead of the suite's
    /// own file.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub iozone_reads_first: bool,
    /// Iozone: how its random phases draw offsets (uniform, as IOzone does, by default).
    #[serde(skip_serializing_if = "IozoneRandom::is_uniform")]
    pub iozone_random: IozoneRandom,
    /// Start of the address range a single generator uses: its requests fall in
    /// `[offset, offset + span)` (span default: the capacity above `offset`).
    #[serde(skip_serializing_if = "is_zero_size")]
    pub offset: Size,
    /// seq-write / seq-read: concurrent sequential streams over equal consecutive
    /// regions of the span, one request of each in turn ([`streams`]); 1 = one stream.
    #[serde(skip_serializing_if = "is_one")]
    pub streams: u32,
    /// How the streams are issued: one shared loop, or a closed loop each.
    #[serde(skip_serializing_if = "StreamLoop::is_shared")]
    pub stream_loop: StreamLoop,
    /// `zoned-seq`: bytes between zone starts; `None` = the zoned drive's
    /// (`[ftl.zoned]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zone_size: Option<Size>,
    /// `zoned-seq`: writable bytes of each zone; `None` = the zoned drive's, or the zone
    /// size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zone_capacity: Option<Size>,
    /// The FDP placement identifier every write of a single generator carries (a
    /// tenant's handle); `None`: none, unless the generator sets its own
    /// (`placement = "by-lifetime"` of `cachelib` and `lsm`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement_id: Option<u16>,
    /// `[workload.cachelib]`: the flash cache's keys ([`cachelib::CachelibConfig`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cachelib: Option<cachelib::CachelibConfig>,
    /// `[workload.lsm]`: the LSM store's keys ([`lsm::LsmConfig`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lsm: Option<lsm::LsmConfig>,
    /// `[workload.seq-write]` ([`SequentialKeys`]); folded into the flat keys
    /// when parsed ([`own`]), so never serialized.
    #[serde(rename = "seq-write", skip_serializing)]
    pub seq_write: Option<SequentialKeys>,
    /// `[workload.seq-read]`, as `seq_write`.
    #[serde(rename = "seq-read", skip_serializing)]
    pub seq_read: Option<SequentialKeys>,
    /// `[workload.zipf]` ([`ZipfKeys`]), folded when parsed.
    #[serde(skip_serializing)]
    pub zipf: Option<ZipfKeys>,
    /// `[workload.hot-cold]` ([`HotColdKeys`]), folded when parsed.
    #[serde(rename = "hot-cold", skip_serializing)]
    pub hot_cold: Option<HotColdKeys>,
    /// `[workload.oltp]` ([`OltpKeys`]), folded when parsed.
    #[serde(skip_serializing)]
    pub oltp: Option<OltpKeys>,
    /// `[workload.iozone]` ([`IozoneKeys`]), folded when parsed.
    #[serde(skip_serializing)]
    pub iozone: Option<IozoneKeys>,
    /// `[workload.probe]` ([`probe::ProbeKeys`]), folded when parsed.
    #[serde(skip_serializing)]
    pub probe: Option<probe::ProbeKeys>,
    /// `[workload.andrew]` ([`andrew::AndrewKeys`]), folded when parsed.
    #[serde(skip_serializing)]
    pub andrew: Option<andrew::AndrewKeys>,
    /// `[workload.zoned-seq]` ([`zonedseq::ZonedSeqKeys`]), folded when parsed.
    #[serde(rename = "zoned-seq", skip_serializing)]
    pub zoned_seq: Option<zonedseq::ZonedSeqKeys>,
    /// `[[workload.phase]]`: generators run one after another on the same device, each
    /// reported as its own phase; each inherits every key of `[workload]` it does not
    /// set ([`phases`]). Empty: the `[workload]` table is the workload.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub phase: Vec<toml::Table>,
}

/// `placement` of `[workload.cachelib]` and `[workload.lsm]`: whether writes carry an FDP
/// placement identifier by lifetime class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum LifetimePlacement {
    /// No identifiers: the drive places the writes as it does today.
    #[default]
    None,
    /// One identifier per lifetime class (the generator's file says which).
    ByLifetime,
}

/// Offsets of the iozone suite's random phases (`workload.iozone_random`). IOzone itself
/// draws them uniformly; the skewed ones are for locality variants of its random test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum IozoneRandom {
    /// Uniform over the span (IOzone's `-i 2`).
    #[default]
    Uniform,
    /// `hot_access_percent` of the requests to the first `hot_span_percent` of the span.
    HotCold,
    /// Zipf-ranked slots (`zipf_theta`) scattered over the span.
    Zipf,
}

impl IozoneRandom {
    fn is_uniform(&self) -> bool {
        *self == IozoneRandom::Uniform
    }
}

impl Default for SynthConfig {
    fn default() -> Self {
        SynthConfig {
            kind: SynthKind::Iozone,
            span: None,
            size: Size(4096),
            size_max: None,
            align: Size(4096),
            requests: None,
            read_percent: 70.0,
            zipf_theta: 0.99,
            hot_span_percent: 20.0,
            hot_access_percent: 80.0,
            mean_gap_ns: None,
            probe_step: Size(512),
            probe_partitions: 3,
            probe_block: None,
            andrew_files: 1000,
            iometer: IometerConfig::default(),
            iozone_record: None,
            iozone_reads_first: false,
            iozone_random: IozoneRandom::Uniform,
            offset: Size(0),
            streams: 1,
            stream_loop: StreamLoop::Shared,
            zone_size: None,
            zone_capacity: None,
            placement_id: None,
            cachelib: None,
            lsm: None,
            seq_write: None,
            seq_read: None,
            zipf: None,
            hot_cold: None,
            oltp: None,
            iozone: None,
            probe: None,
            andrew: None,
            zoned_seq: None,
            phase: Vec::new(),
        }
    }
}

impl SynthConfig {
    /// Folds every generator's own `[workload.NAME]` table into the flat keys ([`own`]):
    /// a table with another generator, or a table key whose flat key holds another
    /// value, is refused. Parsing does this ([`deserialize_folded`]); the check and the
    /// generators do it again for a config built otherwise.
    pub fn fold_own_tables(&mut self) -> Result<(), ConfigError> {
        self.fold_tables(true)
    }

    /// [`Self::fold_own_tables`], `strict` as [`own::FoldFn`] says.
    fn fold_tables(&mut self, strict: bool) -> Result<(), ConfigError> {
        for spec in GENERATORS {
            if let Some(fold) = spec.own {
                fold(self, strict)?;
            }
        }
        Ok(())
    }

    /// Whether an own table is still unfolded.
    fn has_own_tables(&self) -> bool {
        self.seq_write.is_some()
            || self.seq_read.is_some()
            || self.zipf.is_some()
            || self.hot_cold.is_some()
            || self.oltp.is_some()
            || self.iozone.is_some()
            || self.probe.is_some()
            || self.andrew.is_some()
            || self.zoned_seq.is_some()
    }

    /// The config with its own tables folded (borrowed as is when it has none).
    fn folded(&self) -> Result<std::borrow::Cow<'_, SynthConfig>, ConfigError> {
        if !self.has_own_tables() {
            return Ok(std::borrow::Cow::Borrowed(self));
        }
        let mut c = self.clone();
        c.fold_own_tables()?;
        Ok(std::borrow::Cow::Owned(c))
    }
}

/// Parses a `[workload]` table and folds its generators' own tables into the flat keys
/// (`#[serde(deserialize_with)]` of every field holding one); a refused table is the
/// parser's error, so the file and line are named.
pub fn deserialize_folded<'de, D: serde::Deserializer<'de>>(d: D) -> Result<SynthConfig, D::Error> {
    let mut c = SynthConfig::deserialize(d)?;
    c.fold_own_tables().map_err(serde::de::Error::custom)?;
    Ok(c)
}

/// [`deserialize_folded`] for an optional table (`[namespace.workload]`).
pub fn deserialize_folded_option<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<SynthConfig>, D::Error> {
    match Option::<SynthConfig>::deserialize(d)? {
        None => Ok(None),
        Some(mut c) => {
            c.fold_own_tables().map_err(serde::de::Error::custom)?;
            Ok(Some(c))
        }
    }
}

/// Every generator's name (kebab-case, as in config files) and a one-line description, in
/// the order `ssdlab list` shows them (the registry's).
pub fn names() -> Vec<(&'static str, &'static str)> {
    REGISTRY.described()
}

impl SynthKind {
    /// A single generator (one phase), not a suite that expands into its own phases or
    /// lays out its own addresses (iozone, probe, andrew, iometer).
    pub fn is_single(self) -> bool {
        self.spec().single
    }

    /// The kebab-case name, as in config files and [`names`].
    pub fn name(self) -> &'static str {
        self.0
    }

    /// The generator's entry in the registry.
    pub fn spec(self) -> &'static GeneratorSpec {
        lookup(self.0).expect("a SynthKind is made only from a registered spec")
    }
}

/// One generated phase with infallible requests (generators cannot fail mid-stream, unlike
/// trace readers). `gen-trace` feeds `requests` straight to [`write_ascii`].
pub struct SynthPhase {
    /// Short name shown in reports (the generator's kebab-case name).
    pub name: String,
    /// Requests carry Poisson arrival times (`mean_gap_ns` set) rather than all 0.
    pub open_loop: bool,
    /// Per-stream closed loops (`stream_loop = "per-stream"` with streams > 1).
    pub streams: Option<StreamSplit>,
    /// The requests, computed lazily.
    pub requests: Box<dyn Iterator<Item = IoRequest> + Send>,
}

impl std::fmt::Debug for SynthPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SynthPhase")
            .field("name", &self.name)
            .field("open_loop", &self.open_loop)
            .finish_non_exhaustive()
    }
}

/// Builds the phases of a generator for a device of `capacity_bytes`, seeded by `seed`.
///
/// Errors name the offending setting and what was expected; the CLI prints them as is.
pub fn build_phases(
    cfg: &SynthConfig,
    capacity_bytes: u64,
    seed: u64,
) -> Result<Vec<Phase>, SynthError> {
    Ok(generate(cfg, capacity_bytes, seed)?
        .into_iter()
        .map(|p| Phase {
            name: p.name,
            requests: Box::new(p.requests.map(Ok)),
            open_loop: p.open_loop,
            streams: p.streams,
        })
        .collect())
}

/// Like [`build_phases`], but yields plain [`IoRequest`]s (for exporting traces).
///
/// A single generator's phase is seeded with `seed`; the iozone suite's phase `i`
/// (0-based) with `seed + i`, so its phases do not replay each other's offsets.
pub fn generate(
    cfg: &SynthConfig,
    capacity_bytes: u64,
    seed: u64,
) -> Result<Vec<SynthPhase>, SynthError> {
    let mut phases = generate_unplaced(cfg, capacity_bytes, seed)?;
    // A tenant's placement identifier goes on the writes that carry none (a generator's
    // own by-lifetime identifiers win); without the key the requests are untouched.
    if let Some(pid) = cfg.placement_id {
        for p in &mut phases {
            let requests = std::mem::replace(&mut p.requests, Box::new(std::iter::empty()));
            p.requests = Box::new(requests.map(move |r| {
                if r.placement.is_none() && matches!(r.op, OpKind::Write | OpKind::ZoneAppend) {
                    r.with_placement(Some(pid))
                } else {
                    r
                }
            }));
        }
    }
    Ok(phases)
}

/// [`generate`] before `placement_id` is applied.
fn generate_unplaced(
    cfg: &SynthConfig,
    capacity_bytes: u64,
    seed: u64,
) -> Result<Vec<SynthPhase>, SynthError> {
    let cfg = &*cfg.folded()?;
    if !cfg.phase.is_empty() {
        return Ok(phases::generate(cfg, capacity_bytes, seed)?);
    }
    if cfg.kind == SynthKind::Andrew {
        return andrew::phases(cfg, capacity_bytes, seed);
    }
    if cfg.kind == SynthKind::Iometer {
        let span = resolve_span(cfg, capacity_bytes);
        check_iometer(cfg, capacity_bytes)?;
        let lines = iometer::lines(&cfg.iometer)?;
        let count = cfg
            .requests
            .unwrap_or(span / iometer::mean_size_bytes(&lines));
        return Ok(vec![iometer::phase(lines, span, count, seed)]);
    }
    if cfg.kind == SynthKind::Probe {
        let starts = probe::partition_starts(cfg, capacity_bytes)?;
        let fill = probe::fill_requests(cfg, &starts);
        return Ok(vec![
            SynthPhase {
                name: "probe-fill".into(),
                open_loop: false,
                streams: None,
                requests: Box::new(fill.into_iter()),
            },
            SynthPhase {
                name: "probe".into(),
                open_loop: false,
                streams: None,
                requests: Box::new(probe::probe_requests(cfg, starts)),
            },
        ]);
    }
    check_offset(cfg, capacity_bytes)?;
    let span = resolve_span(cfg, capacity_bytes);
    validate(cfg, capacity_bytes, span)?;
    check_streams(cfg, span)?;
    let align = cfg.align.bytes();
    let size = cfg.size.bytes();
    if cfg.kind == SynthKind::Iozone {
        let plan = iozone::plan(
            span,
            size,
            align,
            cfg.requests,
            cfg.iozone_record.map(|r| r.bytes()),
        );
        // Each phase gets its own seed so, e.g., the random-read phase does not replay
        // the random-write phase's offsets; the seed stays the phase's when the reads run
        // first.
        let order: [usize; 4] = if cfg.iozone_reads_first {
            [1, 3, 0, 2]
        } else {
            [0, 1, 2, 3]
        };
        return Ok(order
            .iter()
            .map(|&i| (&plan[i], i as u64))
            .map(|(p, i)| {
                let sizes = SizeDist::new(p.size, None, align);
                single(
                    cfg,
                    p.kind,
                    span,
                    sizes,
                    p.count,
                    rng_from_seed(seed.wrapping_add(i)),
                )
            })
            .collect());
    }
    let sizes = SizeDist::new(size, effective_size_max(cfg), align);
    let region = streams::region_bytes(span, cfg.streams, align);
    // k streams: one pass over each region by default.
    let count = cfg.requests.unwrap_or(if cfg.streams > 1 {
        u64::from(cfg.streams) * (region / size)
    } else {
        span / size
    });
    let mut phase = single(cfg, cfg.kind, span, sizes, count, rng_from_seed(seed));
    let offset = cfg.offset.bytes();
    if cfg.stream_loop == StreamLoop::PerStream && cfg.streams > 1 {
        phase.streams = Some(StreamSplit {
            count: cfg.streams,
            offset_bytes: offset,
            region_bytes: region,
        });
    }
    if offset > 0 {
        phase.requests = Box::new(phase.requests.map(move |mut r| {
            r.offset_bytes += offset;
            r
        }));
    }
    Ok(vec![phase])
}

/// The largest request size a single generator uses (`compile` defaults it).
fn effective_size_max(cfg: &SynthConfig) -> Option<u64> {
    match (cfg.size_max, cfg.kind) {
        (Some(m), _) => Some(m.bytes()),
        (None, SynthKind::Compile) => Some(16 * cfg.size.bytes()),
        (None, _) => None,
    }
}

/// The span a config uses on a device of `capacity_bytes`.
fn resolve_span(cfg: &SynthConfig, capacity_bytes: u64) -> u64 {
    match (cfg.span, cfg.kind) {
        (Some(span), _) => span.bytes(),
        (None, SynthKind::Iozone) => iozone::DEFAULT_SPAN.min(capacity_bytes),
        (None, _) => capacity_bytes.saturating_sub(cfg.offset.bytes()),
    }
}

/// One phase of a single (non-suite) generator `kind`; `cfg` is already validated.
/// The generator's spec makes its requests.
fn single(
    cfg: &SynthConfig,
    kind: SynthKind,
    span: u64,
    sizes: SizeDist,
    count: u64,
    mut rng: SynthRng,
) -> SynthPhase {
    let arrivals = Arrivals::new(cfg.mean_gap_ns);
    let requests = match kind.spec().build {
        Build::Own(make) => make(Single {
            cfg,
            span,
            sizes,
            count,
            rng,
            arrivals,
        }),
        Build::External(build) => build(cfg, span, count, rng.next_u64()),
        Build::Suite => unreachable!("suites are expanded into single phases by generate"),
    };
    SynthPhase {
        name: kind.name().to_string(),
        open_loop: arrivals.open_loop(),
        streams: None,
        requests,
    }
}

/// Largest `requests` per phase: at a few million simulated requests a second, more
/// would run for hours.
pub const MAX_REQUESTS: u64 = 10_000_000_000;

/// Largest `andrew_files`: the generator holds every file's extents and its phases'
/// requests in memory (a few KiB per file).
pub const MAX_ANDREW_FILES: u32 = 1_000_000;

/// Largest `probe_partitions`: the inference pools them, and Ryu & Park probed a few.
pub const MAX_PROBE_PARTITIONS: u32 = 1024;

/// Checks the generator's settings against a device of `capacity_bytes` without
/// generating anything (every bound and fit [`generate`] would refuse).
pub fn check(cfg: &SynthConfig, capacity_bytes: u64, seed: u64) -> Result<(), ConfigError> {
    let cfg = &*cfg.folded()?;
    if !cfg.phase.is_empty() {
        return phases::check(cfg, capacity_bytes, seed);
    }
    check_offset(cfg, capacity_bytes)?;
    check_streams(cfg, resolve_span(cfg, capacity_bytes))?;
    if cfg.kind != SynthKind::Iometer && !cfg.iometer.is_empty() {
        return Err(ConfigError::value(
            "workload.iometer",
            cfg.kind.name(),
            "workload.kind = \"iometer\" (--access-spec) when an access specification is set",
        ));
    }
    if let Some(r) = cfg.requests {
        check_range(
            "workload.requests",
            r,
            1,
            MAX_REQUESTS,
            "requests per phase",
        )?;
    }
    check_range(
        "workload.andrew_files",
        cfg.andrew_files,
        1,
        MAX_ANDREW_FILES,
        "files in the andrew source tree",
    )?;
    check_range(
        "workload.probe_partitions",
        cfg.probe_partitions,
        1,
        MAX_PROBE_PARTITIONS,
        "partitions probed",
    )?;
    if let Some(b) = cfg.probe_block {
        if cfg.kind != SynthKind::Probe {
            return Err(ConfigError::value(
                "workload.probe_block",
                b,
                "workload.kind = \"probe\" (it names a management block for the probe to test)",
            ));
        }
        if b.bytes() == 0 || !b.bytes().is_multiple_of(512) {
            return Err(ConfigError::value(
                "workload.probe_block",
                b,
                "a positive multiple of 512 B (a management-block size to test)",
            ));
        }
    }
    match cfg.kind {
        SynthKind::Andrew => {
            let need = andrew::footprint_bytes(cfg.andrew_files as u64, seed);
            if need > capacity_bytes {
                return Err(ConfigError::value(
                    "workload.andrew_files",
                    cfg.andrew_files,
                    format!(
                        "fewer files or a larger capacity: they need {} but the device has {}",
                        Size(need),
                        Size(capacity_bytes)
                    ),
                ));
            }
            Ok(())
        }
        SynthKind::Probe => probe::partition_starts(cfg, capacity_bytes)
            .map(|_| ())
            .map_err(ConfigError::from),
        SynthKind::Iometer => check_iometer(cfg, capacity_bytes),
        _ => validate(cfg, capacity_bytes, resolve_span(cfg, capacity_bytes))
            .map_err(ConfigError::from),
    }
}

/// `workload.offset`: a single generator's, aligned, and the range inside the capacity.
fn check_offset(cfg: &SynthConfig, capacity_bytes: u64) -> Result<(), ConfigError> {
    let offset = cfg.offset.bytes();
    if offset > 0 {
        if !cfg.kind.is_single() {
            return Err(ConfigError::value(
                "workload.offset",
                cfg.offset,
                format!(
                    "0 with kind = {} (a suite lays out its own addresses); offset applies \
                     to single generators",
                    cfg.kind.name()
                ),
            ));
        }
        if offset >= capacity_bytes || !offset.is_multiple_of(cfg.align.bytes().max(1)) {
            return Err(ConfigError::value(
                "workload.offset",
                cfg.offset,
                format!(
                    "a multiple of align {} below the capacity {}",
                    cfg.align,
                    Size(capacity_bytes)
                ),
            ));
        }
        let span = resolve_span(cfg, capacity_bytes);
        if offset + span > capacity_bytes {
            return Err(ConfigError::value(
                "workload.span",
                Size(span),
                format!(
                    "offset + span <= the capacity {}: offset is {}",
                    Size(capacity_bytes),
                    cfg.offset
                ),
            ));
        }
    }
    Ok(())
}

/// Serde's `skip_serializing_if` for a zero size (keeps reports of configs without the
/// key as they were).
fn is_zero_size(s: &Size) -> bool {
    s.0 == 0
}

/// Serde's `skip_serializing_if` for one stream (the default).
fn is_one(n: &u32) -> bool {
    *n == 1
}

/// `workload.streams` and `workload.stream_loop` against the span ([`streams::check`]).
fn check_streams(cfg: &SynthConfig, span: u64) -> Result<(), ConfigError> {
    let size_max = effective_size_max(cfg).unwrap_or(cfg.size.bytes());
    streams::check(cfg, span, size_max)
}

/// Checks an Iometer specification: its lines against the span, and the generic keys
/// it has its own form of (sizes per line, delays instead of Poisson gaps).
fn check_iometer(cfg: &SynthConfig, capacity_bytes: u64) -> Result<(), ConfigError> {
    let span = resolve_span(cfg, capacity_bytes);
    if span > capacity_bytes || span == 0 {
        return Err(ConfigError::value(
            "workload.span",
            Size(span),
            format!(
                "a span > 0 and at most the capacity {}",
                Size(capacity_bytes)
            ),
        ));
    }
    if let Some(m) = cfg.size_max {
        return Err(ConfigError::value(
            "workload.size_max",
            m,
            "no size_max with kind = iometer: each access line has its own size",
        ));
    }
    if let Some(g) = cfg.mean_gap_ns {
        return Err(ConfigError::value(
            "workload.mean_gap_ns",
            g,
            "no mean_gap_ns with kind = iometer: give access lines a burst and delay_ms",
        ));
    }
    if cfg.requests == Some(0) {
        return Err(ConfigError::value(
            "workload.requests",
            0,
            "at least 1 (or omit it for span / mean transfer size)",
        ));
    }
    iometer::check_lines(&iometer::lines(&cfg.iometer)?, span)
}

/// Checks a config against a device; the error says what was expected.
fn validate(cfg: &SynthConfig, capacity_bytes: u64, span: u64) -> Result<(), SynthError> {
    let (size, align) = (cfg.size.bytes(), cfg.align.bytes());
    if span > capacity_bytes {
        return Err(SynthError::SpanOverCapacity {
            span: cfg.span.unwrap_or(Size(span)),
            capacity: Size(capacity_bytes),
        });
    }
    if size == 0 {
        return Err(SynthError::ZeroSize);
    }
    if align == 0 {
        return Err(SynthError::ZeroAlign);
    }
    if size % align != 0 {
        return Err(SynthError::SizeNotAligned {
            size: cfg.size,
            align: cfg.align,
        });
    }
    if size > span {
        return Err(SynthError::SizeOverSpan {
            size: cfg.size,
            span: Size(span),
        });
    }
    if cfg.kind != SynthKind::Iozone && (cfg.iozone_record.is_some() || cfg.iozone_reads_first) {
        return Err(SynthError::IozoneKeysElsewhere);
    }
    if let Some(r) = cfg.iozone_record
        && (r.bytes() == 0 || r.bytes() % align != 0 || r.bytes() > span)
    {
        return Err(SynthError::IozoneRecord {
            record: r,
            align: cfg.align,
            span: Size(span),
        });
    }
    if let Some(max) = cfg.size_max {
        if cfg.kind == SynthKind::Iozone {
            return Err(SynthError::IozoneSizeMax);
        }
        if max < cfg.size || max.bytes() > span {
            return Err(SynthError::SizeMaxRange {
                max,
                size: cfg.size,
                span: Size(span),
            });
        }
    }
    if cfg.requests == Some(0) {
        return Err(SynthError::ZeroRequests);
    }
    for (key, value) in [
        ("read_percent", cfg.read_percent),
        ("hot_span_percent", cfg.hot_span_percent),
        ("hot_access_percent", cfg.hot_access_percent),
    ] {
        if !(0.0..=100.0).contains(&value) {
            return Err(SynthError::Percent { key, value });
        }
    }
    if !(cfg.zipf_theta > 0.0 && cfg.zipf_theta.is_finite()) {
        return Err(SynthError::ZipfTheta(cfg.zipf_theta));
    }
    if cfg.mean_gap_ns == Some(0) {
        return Err(SynthError::ZeroMeanGap);
    }
    if cfg.kind != SynthKind::Iozone && cfg.iozone_random != IozoneRandom::Uniform {
        return Err(SynthError::IozoneRandomElsewhere(cfg.iozone_random));
    }
    // A typed section of another generator is refused whatever runs.
    for (name, given) in [
        (cachelib::SPEC.name, cfg.cachelib.is_some()),
        (lsm::SPEC.name, cfg.lsm.is_some()),
    ] {
        if given {
            own::refuse_other_kind(cfg, name)?;
        }
    }
    match cfg.kind.spec().check {
        Some(check) => check(cfg, span),
        None => Ok(()),
    }
}
