//! Backrank's search: iterative deepening PVS alpha-beta over
//! `shakmaty::Chess` (always in Chess960 castling mode), Lazy SMP threads
//! over a shared lock-free transposition table.
//!
//! The crate never prints: [`Search::go`] reports through a callback and
//! returns a [`SearchResult`]; the engine formats both for the GUI.
//!
//! Layout, one concept a file:
//! * [`limits`]: search limits and the time manager (and its scaling by
//!   best-move stability, score drop and node share);
//! * [`tt`]: the transposition table, in memory from `zeroed` (zero pages
//!   taken lazily from the OS);
//! * `history`: killers and history heuristics;
//! * `movegen`: the captures and promotions quiescence searches, generated
//!   directly;
//! * `movepick`: move ordering;
//! * `negamax`: alpha-beta (principal variation search);
//! * `pruning`: node and move pruning, late move reductions;
//! * `quiescence`: the captures-only search at the leaves;
//! * `worker`: one thread's state and its iterative deepening;
//! * `pool`: the front door, and the vote on the move to play;
//! * `threads`: the persistent helper threads;
//! * `position`: hash keys, the null move, material tests;
//! * [`params`]: every tunable number;
//! * [`score`]: score and mate conventions;
//! * `see`: static exchange evaluation;
//! * [`tablebase`]: Syzygy probes at the root and in the tree.

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
pub mod tablebase;
mod threads;
pub mod tt;
mod worker;
mod zeroed;

pub use limits::{Clock, Limits, TimeManager};
pub use pool::{Progress, Report, Search, SearchOptions, SearchResult, position_keys};
pub use threads::THREAD_STACK_BYTES;
pub use worker::PvLine;
pub use worker::Signals;
