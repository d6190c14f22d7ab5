//! Cancelling a run from outside (Ctrl-C in Python, a sweep stopped part way): a shared
//! flag the run loop polls between commands, so a long run stops within a command's
//! simulation time instead of running to its end. A cancelled run returns
//! [`SimError::Cancelled`](super::SimError::Cancelled) and no report: a sweep must not
//! record it as a result.

use super::SimError;
use crate::host::{Dispatched, Target};
use crate::workload::IoRequest;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A flag shared by whoever may cancel and the runs that poll it (cheap to clone).
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A flag not yet set.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks every run holding this flag to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`Cancel::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// `Err(Cancelled)` once cancelled.
    pub fn check(&self) -> Result<(), SimError> {
        if self.is_cancelled() {
            Err(SimError::Cancelled)
        } else {
            Ok(())
        }
    }
}

/// Checks `cancel` when `opts` carries one.
pub(crate) fn check(cancel: Option<&Cancel>) -> Result<(), SimError> {
    cancel.map_or(Ok(()), Cancel::check)
}

/// A target that refuses new commands once cancelled: the host queue's loop admits a
/// command per request, so this is the check between requests, with no cost in the
/// device itself.
pub(crate) struct Watched<'a, T: Target> {
    pub inner: &'a mut T,
    pub cancel: Option<&'a Cancel>,
}

impl<T: Target> Target for Watched<'_, T> {
    #[inline]
    fn queue(&mut self, req: &IoRequest, arrival_ns: u64, issue_ns: u64) -> Result<(), SimError> {
        check(self.cancel)?;
        self.inner.queue(req, arrival_ns, issue_ns)
    }

    #[inline(always)]
    fn dispatch(&mut self) -> Result<Option<Dispatched>, SimError> {
        self.inner.dispatch()
    }

    #[inline]
    fn queued(&self) -> usize {
        self.inner.queued()
    }

    #[inline]
    fn oldest_issue_ns(&self) -> Option<u64> {
        self.inner.oldest_issue_ns()
    }

    #[inline]
    fn free_ns(&self) -> u64 {
        self.inner.free_ns()
    }

    #[inline(always)]
    fn prefetch(&self, next: Option<&IoRequest>, far: Option<&IoRequest>) {
        self.inner.prefetch(next, far)
    }
}
