//! `zoned-seq`: a log on zones, the simplest host of a zoned drive (NVMe ZNS). The span is
//! cut into zones of `workload.zone_size` bytes; the generator writes them one after the
//! other from their start, `size` bytes per request, up to each zone's capacity
//! (`workload.zone_capacity`), and before it writes a zone again it resets it — the
//! oldest zone, since they are written in a ring. This is the write pattern of a
//! log-structured store on ZNS that never keeps old data (a circular log, as ZenFS's
//! write-ahead log files or a FIFO cache use), so the drive's write amplification is
//! 1 and each reset erases exactly the blocks one zone filled.
//!
//! ```text
//! mount: Report Zones of every zone from the span's first (filter 0, `ZQ0`)
//! zone c = 0, o = 0
//! loop: if o = 0 and zone c was written before: Reset Zone c
//!       write min(size, capacity − o) bytes at c·zone_size + o; o += that
//!       if o = capacity: c = (c + 1) mod zones, o = 0
//! ```
//!
//! The mount is what a host of a zoned drive does first (ZenFS lists every zone when it
//! opens the device, as the `lsm` generator does): a generator gets no replies, so the
//! log plans on every zone being empty, and the report's `zone_reports` shows what the
//! drive answered.
//!
//! Without the two keys the simulator fills them in from the zoned drive
//! (`[ftl.zoned]`); on a conventional drive the generator needs them set, and the
//! drive refuses the Report Zones and the resets (Invalid Command Opcode). Requests
//! arrive in closed loop; `requests` counts every request, the Report Zones and the
//! resets included (default: span / size).

use super::SynthError;
use super::own::{fold_field, own_keys};
use super::{GeneratorSpec, SynthConfig};
use crate::units::Size;
use crate::workload::{IoRequest, OpKind};

/// The generator's entry in the registry ([`super::GENERATORS`]).
pub(crate) const SPEC: GeneratorSpec = GeneratorSpec::new(
    "zoned-seq",
    "a log on zones: writes zones in a ring from their start, resetting each before it is rewritten",
    build,
)
.with_own(fold_field!(zoned_seq, SPEC))
.with_check(check);

own_keys! {
    /// `[workload.zoned-seq]`: the zone geometry the log is written in ([`super::own`];
    /// cachelib and lsm read the flat keys, which the simulator fills from `[ftl.zoned]`).
    ZonedSeqKeys {
        /// Bytes between zone starts.
        zone_size: Size => zone_size,
        /// Writable bytes of each zone.
        zone_capacity: Size => zone_capacity,
    }
}

fn build(
    cfg: &SynthConfig,
    span_bytes: u64,
    count: u64,
    _seed: u64,
) -> Box<dyn Iterator<Item = IoRequest> + Send> {
    // Validated by `check` before any run; a zone of the request size is the fallback
    // for code that builds one without a check.
    let size = cfg.size.bytes().max(1);
    let zone = cfg.zone_size.map_or(size, |s| s.bytes()).max(1);
    let capacity = cfg.zone_capacity.map_or(zone, |s| s.bytes()).clamp(1, zone);
    Box::new(ZonedSeq {
        mount_due: cfg.zone_size.is_some(),
        zones: (span_bytes / zone).max(1),
        zone_bytes: zone,
        capacity_bytes: capacity,
        size,
        zone: 0,
        offset: 0,
        wrapped: false,
        reset_due: false,
        left: count,
    })
}

/// The settings `zoned-seq` needs: both zone sizes known, the capacity within the zone,
/// at least one zone in the span.
pub fn check(cfg: &SynthConfig, span_bytes: u64) -> Result<(), SynthError> {
    // Unset, the simulator takes the zoned drive's (and refuses a conventional drive).
    let Some(zone) = cfg.zone_size else {
        return Ok(());
    };
    if zone.bytes() == 0 || zone.bytes() > span_bytes {
        return Err(SynthError::ZoneSize {
            zone_bytes: zone.bytes(),
            span_bytes,
        });
    }
    if let Some(cap) = cfg.zone_capacity
        && (cap.bytes() == 0 || cap.bytes() > zone.bytes())
    {
        return Err(SynthError::ZoneCapacity {
            capacity_bytes: cap.bytes(),
            zone_bytes: zone.bytes(),
        });
    }
    Ok(())
}

/// The ring's position.
#[derive(Clone, Debug)]
struct ZonedSeq {
    /// The mount's Report Zones is still to be issued (on zones only).
    mount_due: bool,
    zones: u64,
    zone_bytes: u64,
    capacity_bytes: u64,
    size: u64,
    /// Zone being written.
    zone: u64,
    /// Bytes written into it.
    offset: u64,
    /// The ring has wrapped: from then on every zone is reset before it is written.
    wrapped: bool,
    /// The zone being entered must be reset first.
    reset_due: bool,
    left: u64,
}

impl Iterator for ZonedSeq {
    type Item = IoRequest;

    fn next(&mut self) -> Option<IoRequest> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        if self.mount_due {
            self.mount_due = false;
            return Some(IoRequest::new(OpKind::ZoneReport(0), 0, 0));
        }
        let start = self.zone * self.zone_bytes;
        if self.reset_due {
            self.reset_due = false;
            return Some(IoRequest::new(OpKind::ZoneReset, start, 0));
        }
        let n = self.size.min(self.capacity_bytes - self.offset);
        let req = IoRequest::new(OpKind::Write, start + self.offset, n);
        self.offset += n;
        if self.offset == self.capacity_bytes {
            self.offset = 0;
            self.zone += 1;
            if self.zone == self.zones {
                self.zone = 0;
                self.wrapped = true;
            }
            self.reset_due = self.wrapped;
        }
        Some(req)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Size;

    #[test]
    fn writes_each_zone_to_its_capacity_and_resets_it_before_the_next_pass() {
        let cfg = SynthConfig {
            size: Size(4096),
            zone_size: Some(Size(16384)),
            zone_capacity: Some(Size(12288)),
            ..SynthConfig::default()
        };
        let got: Vec<(OpKind, u64, u64)> = build(&cfg, 32768, 10, 0)
            .map(|r| (r.op, r.offset_bytes, r.size_bytes))
            .collect();
        use OpKind::{Write as W, ZoneReset as R};
        assert_eq!(
            got,
            [
                // Mounted first: Report Zones of every zone.
                (OpKind::ZoneReport(0), 0, 0),
                (W, 0, 4096),
                (W, 4096, 4096),
                (W, 8192, 4096),
                (W, 16384, 4096),
                (W, 20480, 4096),
                (W, 24576, 4096),
                (R, 0, 0),
                (W, 0, 4096),
                (W, 4096, 4096),
            ]
        );
    }
}
