//! Bounded warning collection. A trace can have millions of odd lines; the user needs to
//! know *that* it happens, how often, and a few places to look — not a million messages.
//! Each kind of problem is one warning line: a count plus the first few examples.

use super::Warnings;

/// How many example lines a warning quotes.
const EXAMPLES: usize = 3;

/// How many counted events may pass before the shared list is refreshed. Publishing takes
/// a lock and re-renders strings, so it is batched; the final state is always published
/// when the stream ends, fails or is dropped.
const PUBLISH_EVERY: u32 = 4096;

/// The kinds of per-line problems a reader counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A timestamp earlier than the previous request's.
    Backwards,
    /// A forward jump of more than a day between consecutive requests.
    LongGap,
    /// A read/write/trim of zero bytes (dropped).
    ZeroSize,
    /// A size that is not a multiple of 512 B.
    OddSize,
    /// A header line (non-numeric first data line of a CSV format).
    Header,
    /// A blkparse line that is not an event line (e.g. the closing summary).
    NotEvent,
    /// A blkparse event whose rwbs names no data direction.
    NoDirection,
    /// A blkparse event of a read/write/discard with no sectors (no `+ count`).
    NoData,
    /// A request past the device end that was wrapped.
    Wrapped,
    /// A wrapped request that crossed the end and was split.
    Split,
    /// A request larger than the whole device (shortened).
    Clipped,
    /// A scaled request moved back to stay inside the device.
    Shifted,
}

const KINDS: usize = 12;

impl Kind {
    /// What happened, as a plural noun phrase ("skipped header lines").
    pub(crate) fn what(self) -> &'static str {
        self.text().0
    }

    /// What happened, and what the reader did about it.
    fn text(self) -> (&'static str, &'static str) {
        match self {
            Kind::Backwards => (
                "timestamps go backwards",
                "those requests were given the previous request's arrival time",
            ),
            Kind::LongGap => (
                "time jumps forward by more than a day",
                "check that the time column is in the unit the format expects",
            ),
            Kind::ZeroSize => ("zero-size read/write/trim requests", "dropped"),
            Kind::OddSize => (
                "sizes that are not a multiple of 512 B",
                "check the size unit; they are simulated as given",
            ),
            Kind::Header => ("skipped header lines", ""),
            Kind::NotEvent => (
                "skipped lines that are not blkparse event lines",
                "(e.g. the summary blkparse prints at the end)",
            ),
            Kind::NoDirection => (
                "skipped events whose rwbs has no R, W, D or F",
                "they carry no I/O",
            ),
            Kind::NoData => (
                "skipped events without data (no '+ count')",
                "they move no data (e.g. the second completion of a write with a flush)",
            ),
            Kind::Wrapped => (
                "requests past the end of the device",
                "wrapped: offset taken modulo the capacity",
            ),
            Kind::Split => (
                "wrapped requests that crossed the end of the device",
                "split in two, the rest continuing at offset 0",
            ),
            Kind::Clipped => (
                "requests larger than the whole device",
                "shortened to the capacity",
            ),
            Kind::Shifted => (
                "scaled requests that would end past the device",
                "moved back by whole 4 KiB pages",
            ),
        }
    }
}

/// Count and first examples of one kind.
#[derive(Default)]
struct Tally {
    count: u64,
    examples: Vec<(u64, String)>,
}

/// Per-stream warning state; renders into the shared [`Warnings`].
pub(crate) struct Collector {
    tallies: [Tally; KINDS],
    /// Kinds in the order they first occurred, so the output reads like the file.
    order: Vec<Kind>,
    /// Free-form notes (fit decisions, whole-trace checks).
    notes: Vec<String>,
    shared: Warnings,
    dirty: bool,
    since_publish: u32,
}

impl Collector {
    /// A collector publishing into `shared`.
    pub(crate) fn new(shared: Warnings) -> Self {
        Collector {
            tallies: Default::default(),
            order: Vec::new(),
            notes: Vec::new(),
            shared,
            dirty: false,
            since_publish: 0,
        }
    }

    /// Counts one occurrence of `kind` at `line`; `detail` is only evaluated for the first
    /// few, so the common path does not allocate.
    #[inline]
    pub(crate) fn count(&mut self, kind: Kind, line: u64, detail: impl FnOnce() -> String) {
        let t = &mut self.tallies[kind as usize];
        t.count += 1;
        if t.examples.len() < EXAMPLES {
            t.examples.push((line, detail()));
        }
        if t.count == 1 {
            // A new kind of problem is shown at once; later counts are batched.
            self.order.push(kind);
            self.publish();
        } else {
            self.dirty = true;
        }
    }

    /// Adds a free-form note and publishes it.
    pub(crate) fn note(&mut self, text: String) {
        self.notes.push(text);
        self.publish();
    }

    /// Called once per request; refreshes the shared list now and then.
    #[inline]
    pub(crate) fn tick(&mut self) {
        self.since_publish += 1;
        if self.since_publish >= PUBLISH_EVERY {
            self.since_publish = 0;
            if self.dirty {
                self.publish();
            }
        }
    }

    /// Renders every warning into the shared list.
    pub(crate) fn publish(&mut self) {
        self.dirty = false;
        let mut out = Vec::with_capacity(self.order.len() + self.notes.len());
        for &kind in &self.order {
            out.push(self.render(kind));
        }
        out.extend(self.notes.iter().cloned());
        if let Ok(mut v) = self.shared.0.lock() {
            *v = out;
        }
    }

    fn render(&self, kind: Kind) -> String {
        let t = &self.tallies[kind as usize];
        let (what, action) = kind.text();
        let unit = if t.count == 1 { "line" } else { "lines" };
        let mut s = format!("{what} at {} {unit} (", t.count);
        // The first example carries its detail; later ones only their line numbers, to keep
        // the message one readable line.
        if let Some((line, detail)) = t.examples.first() {
            if t.count > 1 {
                s.push_str("first ");
            }
            s.push_str("at line ");
            s.push_str(&line.to_string());
            if !detail.is_empty() {
                s.push_str(": ");
                s.push_str(detail);
            }
        }
        let rest: Vec<String> = t
            .examples
            .iter()
            .skip(1)
            .map(|(l, _)| l.to_string())
            .collect();
        if !rest.is_empty() {
            s.push_str("; then lines ");
            s.push_str(&rest.join(", "));
        }
        if t.count > t.examples.len() as u64 {
            s.push_str(", …");
        }
        s.push(')');
        if !action.is_empty() {
            s.push_str("; ");
            s.push_str(action);
        }
        s
    }
}

impl Drop for Collector {
    fn drop(&mut self) {
        // A consumer that stops early still sees the final counts.
        if self.dirty {
            self.publish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_counted() {
        let shared = Warnings::default();
        let mut c = Collector::new(shared.clone());
        for line in 3..15 {
            c.count(Kind::Backwards, line, || format!("detail {line}"));
        }
        c.count(Kind::ZeroSize, 20, String::new);
        drop(c);
        let w = shared.snapshot();
        assert_eq!(w.len(), 2);
        assert_eq!(
            w[0],
            "timestamps go backwards at 12 lines (first at line 3: detail 3; then lines 4, \
             5, …); those requests were given the previous request's arrival time"
        );
        assert_eq!(
            w[1],
            "zero-size read/write/trim requests at 1 line (at line 20); dropped"
        );
    }
}
