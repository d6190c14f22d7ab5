//! Concurrent sequential streams (`workload.streams`, `workload.stream_loop`): k
//! streams, each walking its own equal, consecutive region of the span, like k files
//! written or read side by side (Ryu & Park's W2: k files written one request of each in
//! turn, then read by k concurrent readers).
//!
//! ```text
//! span   [ region 0 | region 1 | … | region k−1 ]     region = span / k, down to align
//! order  s0#0, s1#0, …, sk−1#0, s0#1, s1#1, …         one request of each stream in turn
//! loop   shared      one loop at host.qd issues them in that order
//!                    (fio: nrfiles = k, file_service_type = roundrobin)
//!        per-stream  each stream is its own closed loop holding up to host.qd requests;
//!                    the host issues whichever stream's next request can go first,
//!                    lower stream first on a tie (fio: numjobs = k, each iodepth = qd)
//! ```
//!
//! Stream i's requests always fall in region i, so the host tells the streams apart by
//! address ([`crate::workload::StreamSplit`]) and requests need no extra field.

use super::sequential::Sequential;
use super::stream::{Placement, SynthRng};
use super::{SynthConfig, SynthKind};
use crate::spec::ConfigError;
use crate::units::Size;
use serde::{Deserialize, Serialize};

/// Largest `workload.streams`: more than a thousand concurrent files is a file-system
/// benchmark of its own, and the host scans the streams on every issue.
pub const MAX_STREAMS: u32 = 1024;

/// How the streams of `workload.streams` are issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum StreamLoop {
    /// One loop (closed at `host.qd`, or open with `mean_gap_ns`) issues the streams'
    /// requests in turn.
    #[default]
    Shared,
    /// Each stream is its own closed loop with `host.qd` requests outstanding.
    PerStream,
}

impl StreamLoop {
    /// Serde's `skip_serializing_if`: configs without the key report as before.
    pub(crate) fn is_shared(&self) -> bool {
        *self == StreamLoop::Shared
    }
}

/// Bytes of each of `k` streams' regions of `span`: span / k, down to a multiple of
/// `align`.
pub(crate) fn region_bytes(span: u64, k: u32, align: u64) -> u64 {
    span / u64::from(k.max(1)) / align.max(1) * align.max(1)
}

/// Stream i walks region i sequentially; the streams take turns, one request each.
pub(crate) struct Streams {
    region: u64,
    walks: Vec<Sequential>,
    next: usize,
}

impl Streams {
    /// `k` streams over regions of `region` bytes from offset 0.
    pub(crate) fn new(k: u32, region: u64) -> Streams {
        Streams {
            region,
            walks: (0..k).map(|_| Sequential::new(region)).collect(),
            next: 0,
        }
    }
}

impl Placement for Streams {
    #[inline]
    fn offset(&mut self, rng: &mut SynthRng, size: u64) -> u64 {
        let i = self.next;
        self.next = if i + 1 == self.walks.len() { 0 } else { i + 1 };
        i as u64 * self.region + self.walks[i].offset(rng, size)
    }
}

/// Checks `streams` and `stream_loop` of a generator whose span is `span`.
pub(crate) fn check(cfg: &SynthConfig, span: u64, size_max: u64) -> Result<(), ConfigError> {
    if cfg.streams == 0 || cfg.streams > MAX_STREAMS {
        return Err(ConfigError::value(
            "workload.streams",
            cfg.streams,
            format!("1 to {MAX_STREAMS} concurrent sequential streams (default 1)"),
        ));
    }
    let sequential = matches!(cfg.kind, SynthKind::SeqWrite | SynthKind::SeqRead);
    if cfg.streams > 1 && !sequential {
        return Err(ConfigError::value(
            "workload.streams",
            cfg.streams,
            format!(
                "1 with kind = {}: streams walk regions of the span sequentially, so they \
                 apply to kind = seq-write or seq-read",
                cfg.kind.name()
            ),
        ));
    }
    if cfg.stream_loop == StreamLoop::PerStream {
        if !sequential {
            return Err(ConfigError::value(
                "workload.stream_loop",
                "per-stream",
                format!(
                    "shared with kind = {}: per-stream loops apply to the streams of kind = \
                     seq-write or seq-read (workload.streams)",
                    cfg.kind.name()
                ),
            ));
        }
        if let Some(g) = cfg.mean_gap_ns {
            return Err(ConfigError::value(
                "workload.stream_loop",
                "per-stream",
                format!(
                    "shared with mean_gap_ns = {g}: a per-stream loop is closed (each stream \
                     issues its next request when one of its own completes), an open loop \
                     has arrival times instead"
                ),
            ));
        }
    }
    if cfg.streams > 1 {
        let region = region_bytes(span, cfg.streams, cfg.align.bytes());
        if region < size_max.max(1) {
            return Err(ConfigError::value(
                "workload.streams",
                cfg.streams,
                format!(
                    "at most {} streams: span {} / {} leaves regions of {} (down to align \
                     {}), and each must hold a request of {}",
                    (span / size_max.max(1)).max(1),
                    Size(span),
                    cfg.streams,
                    Size(region),
                    cfg.align,
                    Size(size_max)
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{SynthConfig, check as check_one, generate, phases};
    use crate::workload::{OpKind, StreamSplit};

    const KIB: u64 = 1024;

    fn workload(text: &str) -> SynthConfig {
        toml::from_str(text).expect("a workload table")
    }

    #[test]
    fn two_streams_take_turns_over_their_regions() {
        // span 64 KiB from offset 16 KiB, two streams: regions [16, 48) and [48, 80) KiB;
        // 8 KiB requests, by default one pass over each region (4 + 4), in turn.
        let w = workload(
            r#"
            kind = "seq-read"
            offset = "16KiB"
            span = "64KiB"
            size = "8KiB"
            align = "8KiB"
            streams = 2
            stream_loop = "per-stream"
            "#,
        );
        let mut p = generate(&w, 1 << 20, 1).unwrap();
        assert_eq!(p.len(), 1);
        let p = p.remove(0);
        assert_eq!(
            p.streams,
            Some(StreamSplit {
                count: 2,
                offset_bytes: 16 * KIB,
                region_bytes: 32 * KIB,
            })
        );
        let got: Vec<(OpKind, u64, u64)> = p
            .requests
            .map(|r| (r.op, r.offset_bytes / KIB, r.size_bytes / KIB))
            .collect();
        let want: Vec<(OpKind, u64, u64)> = [16, 48, 24, 56, 32, 64, 40, 72]
            .iter()
            .map(|&o| (OpKind::Read, o, 8))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_shared_loop_keeps_the_turns_and_one_loop() {
        // Three streams over 48 KiB, 8 KiB writes, 7 requests: regions of 16 KiB; after
        // one round each stream continues where it was, and a stream wraps inside its
        // own region (the 7th request is stream 0's third: back to its start).
        let w = workload(
            r#"
            kind = "seq-write"
            span = "48KiB"
            size = "8KiB"
            align = "8KiB"
            streams = 3
            requests = 7
            "#,
        );
        let p = generate(&w, 1 << 20, 1).unwrap().remove(0);
        assert_eq!(p.streams, None, "a shared loop is the host's ordinary loop");
        let got: Vec<u64> = p.requests.map(|r| r.offset_bytes / KIB).collect();
        assert_eq!(got, vec![0, 16, 32, 8, 24, 40, 0]);
    }

    #[test]
    fn one_stream_is_the_plain_generator() {
        let plain = workload("kind = \"seq-write\"\nspan = \"64KiB\"\nsize = \"8KiB\"");
        let one = SynthConfig {
            streams: 1,
            ..plain.clone()
        };
        let offs = |c: &SynthConfig| -> Vec<u64> {
            generate(c, 1 << 20, 1)
                .unwrap()
                .remove(0)
                .requests
                .map(|r| r.offset_bytes)
                .collect()
        };
        assert_eq!(offs(&plain), offs(&one));
        // Not serialized at its default: reports of configs without the key are unchanged.
        let t = toml::to_string(&plain).unwrap();
        assert!(!t.contains("streams") && !t.contains("stream_loop"), "{t}");
    }

    #[test]
    fn bad_streams_are_refused_by_key() {
        let err = |text: &str| {
            check_one(&workload(text), 1 << 20, 1)
                .unwrap_err()
                .to_string()
        };
        let e = err("kind = \"random-write\"\nstreams = 2");
        assert!(e.starts_with("workload.streams = 2"), "{e}");
        let e = err("kind = \"seq-read\"\nstreams = 0");
        assert!(e.starts_with("workload.streams = 0"), "{e}");
        let e = err("kind = \"seq-read\"\nspan = \"64KiB\"\nsize = \"8KiB\"\nstreams = 9");
        assert!(
            e.starts_with("workload.streams = 9") && e.contains("at most 8 streams"),
            "{e}"
        );
        let e = err(
            "kind = \"seq-read\"\nstreams = 2\nstream_loop = \"per-stream\"\nmean_gap_ns = 1000",
        );
        assert!(e.starts_with("workload.stream_loop"), "{e}");
        let e = err("kind = \"mixed\"\nstream_loop = \"per-stream\"");
        assert!(e.starts_with("workload.stream_loop"), "{e}");
        // In a phase, the error names the entry.
        let p = workload("kind = \"seq-read\"\n[[phase]]\n[[phase]]\nkind = \"zipf\"\nstreams = 4");
        let e = phases::check(&p, 1 << 20, 1).unwrap_err().to_string();
        assert!(e.starts_with("workload.phase[1].streams = 4"), "{e}");
    }
}
