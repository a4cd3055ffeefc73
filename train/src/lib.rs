//! The NNUE trainer for Backrank: reads self-play positions ([`data`]),
//! trains the float network that the engine's quantised one mirrors
//! ([`model`]) with AdamW over shuffled batches on several threads
//! ([`train`], with the optimiser in [`adam`]), and writes the quantised net through
//! `backrank_eval::nnue::format::QuantisedNet`. It also fits the
//! win/draw/loss model of `UCI_ShowWDL` to game results ([`wdl`]).

pub mod adam;
pub mod data;
pub mod model;
pub mod train;
pub mod wdl;

#[cfg(test)]
mod tests;
