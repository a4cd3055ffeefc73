//! The thread that runs the session's searches: started once with the
//! session and handed one job per `go`, so that the GUI thread stays free
//! to answer `isready` and to act on `stop` and `ponderhit` at once.
//!
//! Why a layer of its own beside the search crate's threads
//! (`backrank_search::threads`): those are the search's helpers, which
//! `Search::go` drives from the thread that calls it, and every tool
//! (`bench`, `datagen`, `Engine::think`) wants exactly that, a search on its
//! own thread with no channel in between. Only the UCI session needs the
//! call itself to run elsewhere, and so this thread lives with the session.

use std::sync::Arc;
use std::thread::JoinHandle;

use backrank_search::{Search, THREAD_STACK_BYTES};
use crossbeam_channel::{Receiver, Sender, bounded, unbounded};
use parking_lot::Mutex;

/// One search to run, from `go` to `bestmove`.
pub type Job = Box<dyn FnOnce(&mut Search) + Send>;

/// The search thread and the job it may be running.
pub struct SearchThread {
    /// `None` only while dropping: closing the channel ends the thread.
    jobs: Option<Sender<Job>>,
    /// One message per finished job.
    finished: Receiver<()>,
    /// A job was handed over and its end not yet collected by [`Self::wait`].
    busy: bool,
    thread: Option<JoinHandle<()>>,
}

impl SearchThread {
    /// Starts the thread; each job locks `search` while it runs.
    pub fn start(search: Arc<Mutex<Search>>) -> std::io::Result<SearchThread> {
        let (jobs, inbox) = unbounded::<Job>();
        let (outbox, finished) = bounded(1);
        let thread = std::thread::Builder::new().name("search".into()).stack_size(THREAD_STACK_BYTES).spawn(
            move || {
                while let Ok(job) = inbox.recv() {
                    job(&mut search.lock());
                    if outbox.send(()).is_err() {
                        return;
                    }
                }
            },
        )?;
        Ok(SearchThread { jobs: Some(jobs), finished, busy: false, thread: Some(thread) })
    }

    /// Hands `job` over; false if the thread is gone (it panicked).
    /// Call [`Self::wait`] first: one job at a time.
    pub fn run(&mut self, job: Job) -> bool {
        debug_assert!(!self.busy, "one search at a time");
        self.busy = self.jobs.as_ref().is_some_and(|jobs| jobs.send(job).is_ok());
        self.busy
    }

    /// Whether the last job is still running.
    pub fn is_running(&self) -> bool {
        self.busy && self.finished.is_empty() && self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// Waits for the last job, if any, to finish (the caller stops it first).
    pub fn wait(&mut self) {
        if std::mem::take(&mut self.busy) {
            // An error means the thread is gone: nothing left to wait for.
            let _ = self.finished.recv();
        }
    }
}

impl Drop for SearchThread {
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
