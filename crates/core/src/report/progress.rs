//! A progress bar that stays out of the way: nothing is shown unless stderr is a
//! terminal and the run has already taken a while, so short runs, pipes and CI logs
//! stay clean; and counting is cheap enough to call once per simulated request.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// How long a run must take before a bar appears.
pub const DEFAULT_DELAY: Duration = Duration::from_secs(2);

/// Increments buffered before indicatif (and the clock) is consulted. Simulations
/// complete millions of requests per second, so this still refreshes many times a
/// second while keeping [`Progress::inc`] to an add and a compare.
const FLUSH_EVERY: u64 = 1 << 16;

/// Progress of a long loop, e.g. requests simulated out of the workload's total.
#[derive(Debug)]
pub struct Progress {
    total: Option<u64>,
    label: String,
    start: Instant,
    delay: Duration,
    enabled: bool,
    /// Increments already passed on (or due to be passed on) to the bar.
    flushed: u64,
    /// Increments since the last flush.
    pending: u64,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A progress counter for `total` steps (`None` when unknown: a spinner then), shown
    /// on stderr with `label` once [`DEFAULT_DELAY`] has passed, and only if stderr is a
    /// terminal.
    pub fn new(total: Option<u64>, label: &str) -> Self {
        Self::with_options(total, label, std::io::stderr().is_terminal(), DEFAULT_DELAY)
    }

    /// Like [`Progress::new`] with the terminal check and the delay given explicitly
    /// (`enabled = false` never shows anything); for tests and callers that know better.
    pub fn with_options(total: Option<u64>, label: &str, enabled: bool, delay: Duration) -> Self {
        Progress {
            total,
            label: label.to_string(),
            start: Instant::now(),
            delay,
            enabled,
            flushed: 0,
            pending: 0,
            bar: None,
        }
    }

    /// Counts `n` more steps. Cheap: the bar is only touched every 64 Ki steps.
    #[inline]
    pub fn inc(&mut self, n: u64) {
        self.pending += n;
        if self.pending >= FLUSH_EVERY {
            self.flush();
        }
    }

    /// Counts `n` more coarse steps (a power cut, a cell) and updates the bar at once:
    /// [`Progress::inc`] batches 64 Ki steps, which coarse loops may never reach.
    pub fn step(&mut self, n: u64) {
        self.pending += n;
        self.flush();
    }

    /// Steps counted so far.
    pub fn position(&self) -> u64 {
        self.flushed + self.pending
    }

    /// Whether a bar is currently on screen (or would be, on a terminal).
    pub fn is_visible(&self) -> bool {
        self.bar.is_some()
    }

    fn flush(&mut self) {
        self.flushed += self.pending;
        self.pending = 0;
        if !self.enabled {
            return;
        }
        if self.bar.is_none() && self.start.elapsed() >= self.delay {
            self.bar = Some(self.make_bar());
        }
        if let Some(bar) = &self.bar {
            bar.set_position(self.flushed);
        }
    }

    fn make_bar(&self) -> ProgressBar {
        let template = if self.total.is_some() {
            "{msg} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} ({per_sec}, ETA {eta})"
        } else {
            "{spinner} {msg} [{elapsed_precise}] {human_pos} ({per_sec})"
        };
        // The templates are constants known to parse; the fallback only guards against
        // a future indicatif rejecting one.
        let style =
            ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar());
        let bar = ProgressBar::with_draw_target(self.total, ProgressDrawTarget::stderr())
            .with_style(style);
        bar.set_message(self.label.clone());
        bar
    }

    /// Ends the bar, leaving its final state on screen if it was shown at all.
    pub fn finish(mut self) {
        self.flushed += self.pending;
        self.pending = 0;
        if let Some(bar) = self.bar.take() {
            bar.set_position(self.flushed);
            bar.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disabled_never_shows() {
        let mut p = Progress::with_options(Some(10), "x", false, Duration::ZERO);
        p.inc(1 << 20);
        assert!(!p.is_visible());
        assert_eq!(p.position(), 1 << 20);
        p.finish();
    }

    #[test]
    fn enabled_shows_only_after_flush_threshold() {
        let mut p = Progress::with_options(None, "x", true, Duration::ZERO);
        p.inc(5);
        assert!(!p.is_visible(), "small counts must not touch indicatif");
        p.inc(FLUSH_EVERY);
        assert!(p.is_visible());
        assert_eq!(p.position(), FLUSH_EVERY + 5);
        p.finish();
    }

    #[test]
    fn delay_holds_the_bar_back() {
        let mut p = Progress::with_options(Some(1 << 20), "x", true, Duration::from_secs(3600));
        p.inc(1 << 20);
        assert!(!p.is_visible());
        p.finish();
    }
}
