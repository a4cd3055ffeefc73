//! The flags the GUI thread sets while a search runs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use parking_lot::Mutex;

/// Flags the GUI thread sets while a search runs.
#[derive(Debug, Default)]
pub struct Signals {
    stop: AtomicBool,
    pondering: AtomicBool,
    /// When `ponderhit` came: the clock runs from then.
    ponderhit_at: Mutex<Option<Instant>>,
}

impl Signals {
    /// Prepares for a new search; called by the GUI thread *before* the
    /// search starts, so that a `stop` sent right after `go` is never lost.
    pub fn reset(&self, pondering: bool) {
        self.stop.store(false, Ordering::SeqCst);
        self.pondering.store(pondering, Ordering::SeqCst);
        *self.ponderhit_at.lock() = None;
    }

    /// Asks every thread to finish now.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Whether the search has been told to finish.
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The opponent played the expected move: our clock runs from now on.
    pub fn ponderhit(&self) {
        *self.ponderhit_at.lock() = Some(Instant::now());
        self.pondering.store(false, Ordering::SeqCst);
    }

    /// Whether the search is on the opponent's time (`go ponder`, no `ponderhit` yet).
    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Ordering::Relaxed)
    }

    /// When `ponderhit` came, if it did.
    pub(crate) fn ponderhit_at(&self) -> Option<Instant> {
        *self.ponderhit_at.lock()
    }
}
