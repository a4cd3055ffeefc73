//! The NNUE trainer for Backrank: reads self-play positions ([`data`]),
//! trains the float network that the engine's quantised one mirrors
//! ([`model`]) with AdamW over shuffled batches on several threads
//! ([`train`]), and writes the quantised net through
//! `backrank_eval::nnue::format::QuantisedNet`.

pub mod data;
pub mod model;
pub mod train;

#[cfg(test)]
mod tests;
