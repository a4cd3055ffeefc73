//! Backrank's evaluation: a position (or an accumulator) in, a score out
//! (centipawns, from the side to move's point of view).
//!
//! * [`nnue`]: the efficiently updatable network the search evaluates
//!   with: its layout and feature index, the file format, the accumulators
//!   and the SIMD forward pass.
//! * [`wdl`]: the win/draw/loss model behind `UCI_ShowWDL`.
//!
//! The hand-crafted evaluation that labelled the first training data was
//! retired once the network replaced it; it lives on at the git tag
//! `hce-final`, from which generation-0 data can be remade.

pub mod nnue;
pub mod wdl;
