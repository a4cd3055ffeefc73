//! Backrank's search: iterative deepening PVS alpha-beta over
//! `shakmaty::Chess` (always in Chess960 castling mode), Lazy SMP threads
//! over a shared lock-free transposition table.
//!
//! The crate never prints: [`Search::go`] reports through a callback and
//! returns a [`SearchResult`]; the engine formats both for the GUI.
//!
//! Layout, one concept a file. The files form a line, each importing only
//! from those before it (`tests/layering.rs` checks that no import circle
//! comes back):
//! * leaves: [`score`], [`params`] (the tunables), `position` (hash keys,
//!   the null move, material tests), `see` (static exchange evaluation),
//!   `movegen` (the captures and promotions quiescence searches, generated
//!   directly), `signals` (the GUI's stop and ponder flags), `zeroed`
//!   (zero pages taken lazily from the OS);
//! * the tables and heuristics: [`tt`] (the transposition table), `history`
//!   and `correction` (move-ordering and correction histories), `movepick`
//!   (move ordering), [`tablebase`] (Syzygy probes at the root and in the
//!   tree), [`limits`] (search limits and the time manager);
//! * `state`: what every part of the search shares: a thread's `Worker`,
//!   the search's `Shared` inputs, a node and what it knows;
//! * the tree: `pruning` (node and move pruning, late move reductions),
//!   `quiescence` (the captures-only search at the leaves), `negamax`
//!   (alpha-beta, principal variation search);
//! * the front: `worker` (one thread's iterative deepening), `threads`
//!   (the persistent helper threads), `pool` (the front door, and the vote
//!   on the move to play).

mod correction;
mod history;
pub mod limits;
mod movegen;
mod movepick;
mod negamax;
pub mod params;
mod pool;
mod position;
mod pruning;
mod quiescence;
pub mod score;
mod see;
mod signals;
mod state;
pub mod tablebase;
mod threads;
pub mod tt;
mod worker;
mod zeroed;

pub use limits::{Clock, Limits, TimeManager};
pub use pool::{Progress, Report, Search, SearchResult, position_keys};
pub use signals::Signals;
pub use state::{PvLine, SearchOptions};
pub use threads::THREAD_STACK_BYTES;
