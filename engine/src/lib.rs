//! The Backrank engine: wiring between the GUI (`backrank_uci`), the search
//! (`backrank_search`) and the evaluation (`backrank_eval`), plus the
//! command-line tools `bench`, `perft`, `frc`, `datagen` and `rescore`.

pub mod bench;
pub mod controller;
#[cfg(target_arch = "x86_64")]
pub mod cpu;
pub mod datagen;
pub mod engine;
pub mod frc;
pub mod game;
pub mod genfens;
pub mod openings;
pub mod options;
pub mod perft;
pub mod rescore;
pub mod resumable;
pub mod search_thread;
pub mod strength;

/// Name and author as `uci` announces them: the version, and the commit
/// it was built from (`build.rs`: `git rev-parse --short HEAD`, or the
/// `BACKRANK_COMMIT` variable, or `unknown`).
pub const ENGINE_NAME: &str =
    concat!("Backrank ", env!("CARGO_PKG_VERSION"), " (", env!("BACKRANK_COMMIT"), ")");
pub const ENGINE_AUTHOR: &str = "the Backrank developers";
