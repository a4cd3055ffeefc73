//! Persistent helper threads for Lazy SMP. They start once (and again
//! when `Threads` changes), each owning its [`Worker`] and so its
//! histories, and sleep on a channel between searches: a `go` costs two
//! channel messages per helper, not a thread start.

use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, bounded, unbounded};
use shakmaty::{Chess, Move};

use crate::state::{Iteration, Shared, Worker};

/// Stack for search threads (the helpers here, the main one in the
/// engine): the recursion holds a position and a move list per ply.
pub const THREAD_STACK_BYTES: usize = 16 << 20;

/// One search's inputs, as pointers that a helper may follow until it has
/// sent its result (see [`HelperPool::search`]).
#[derive(Clone, Copy)]
struct Job {
    /// A `Shared<'_>` with its lifetime erased.
    shared: *const (),
    root: *const Chess,
    game_keys: *const [u64],
    root_moves: *const [Move],
}

// Safety: every pointee is `Sync` (the helpers only read them, or touch
// atomics), and `HelperPool::search` keeps them alive until each helper
// that received the job has answered.
unsafe impl Send for Job {}

enum Command {
    Search(Job),
    ClearHistories,
}

struct Helper {
    /// `None` only while dropping: closing the channel ends the thread.
    commands: Option<Sender<Command>>,
    results: Receiver<Option<Iteration>>,
    thread: Option<JoinHandle<()>>,
}

impl Helper {
    fn start(id: usize) -> Helper {
        let (commands, inbox) = unbounded();
        let (outbox, results) = bounded(1);
        let thread = std::thread::Builder::new()
            .name(format!("helper {id}"))
            .stack_size(THREAD_STACK_BYTES)
            .spawn(move || helper_loop(Worker::new(id), &inbox, &outbox))
            .expect("cannot start a search thread");
        Helper { commands: Some(commands), results, thread: Some(thread) }
    }

    /// Hands the helper a command; false if its thread is gone.
    fn send(&self, command: Command) -> bool {
        self.commands.as_ref().is_some_and(|commands| commands.send(command).is_ok())
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        self.commands = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// What a helper thread does all its life: one command after another.
fn helper_loop(mut worker: Worker, inbox: &Receiver<Command>, outbox: &Sender<Option<Iteration>>) {
    while let Ok(command) = inbox.recv() {
        match command {
            Command::ClearHistories => worker.histories.clear(),
            Command::Search(job) => {
                // Safety: `HelperPool::search` does not return, and so the
                // pointees stay alive, until this thread's result has
                // arrived; nothing here touches them after `send`.
                let (shared, root, game_keys, root_moves) =
                    unsafe { (&*job.shared.cast::<Shared>(), &*job.root, &*job.game_keys, &*job.root_moves) };
                let completed = worker.iterate(shared, root, game_keys, root_moves, |_, _| {});
                if outbox.send(completed).is_err() {
                    return;
                }
            }
        }
    }
}

/// The helper threads (every thread but the caller's, which runs the main worker).
#[derive(Default)]
pub(crate) struct HelperPool {
    helpers: Vec<Helper>,
}

impl HelperPool {
    /// Keeps `count` helpers, numbered from 1 (0 is the main worker).
    pub fn resize(&mut self, count: usize) {
        self.helpers.truncate(count);
        while self.helpers.len() < count {
            self.helpers.push(Helper::start(self.helpers.len() + 1));
        }
    }

    pub fn len(&self) -> usize {
        self.helpers.len()
    }

    /// Clears every helper's histories (before their next search).
    pub fn clear_histories(&self) {
        for helper in &self.helpers {
            helper.send(Command::ClearHistories);
        }
    }

    /// Runs `main` on this thread while every helper searches the same
    /// root; once `main` returns, stops the helpers and returns its result
    /// with the helpers' last completed iterations.
    pub fn search<R>(
        &self,
        shared: &Shared,
        root: &Chess,
        game_keys: &[u64],
        root_moves: &[Move],
        main: impl FnOnce() -> R,
    ) -> (R, Vec<Iteration>) {
        let job = Job { shared: std::ptr::from_ref(shared).cast(), root, game_keys, root_moves };
        let mut waiter = Waiter { shared, busy: Vec::new(), results: Vec::new() };
        for helper in &self.helpers {
            if helper.send(Command::Search(job)) {
                waiter.busy.push(helper);
            }
        }
        let result = main();
        // Also on unwinding: the waiter's drop keeps the job alive until
        // every helper is done with it.
        waiter.wait();
        (result, std::mem::take(&mut waiter.results))
    }
}

/// Waits for the helpers still on a job: the soundness of [`Job`] rests on it.
struct Waiter<'a> {
    shared: &'a Shared<'a>,
    busy: Vec<&'a Helper>,
    results: Vec<Iteration>,
}

impl Waiter<'_> {
    fn wait(&mut self) {
        if self.busy.is_empty() {
            return;
        }
        self.shared.signals.stop();
        for helper in self.busy.drain(..) {
            // An error means the thread died and holds nothing any more.
            if let Ok(Some(iteration)) = helper.results.recv() {
                self.results.push(iteration);
            }
        }
    }
}

impl Drop for Waiter<'_> {
    fn drop(&mut self) {
        self.wait();
    }
}
