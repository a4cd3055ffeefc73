//! The win/draw/loss model behind `UCI_ShowWDL`, shared by the engine
//! (which reports it) and the tuner (which fits it): with `s` the score
//! (centipawns, side to move) and `m` the material on the board (pawn 1,
//! minor 3, rook 5, queen 9; clamped to 10..78) divided by 58,
//!
//! ```text
//! win  = 1 / (1 + exp((a - s) / b))      loss = 1 / (1 + exp((a + s) / b))
//! a = a0 + a1 * m                        b = b0 + b1 * m
//! ```
//!
//! and the draw takes the rest.

use backrank_util::sigmoid;
use shakmaty::{Chess, Position, Role};

/// The model's parameters `[a0, a1, b0, b1]`.
pub type WdlParams = [f64; 4];

/// Material on the board in pawns (both sides), as the model counts it.
pub fn material(pos: &Chess) -> u32 {
    let board = pos.board();
    [(Role::Pawn, 1), (Role::Knight, 3), (Role::Bishop, 3), (Role::Rook, 5), (Role::Queen, 9)]
        .into_iter()
        .map(|(role, value)| board.by_role(role).count() as u32 * value)
        .sum()
}

/// Win, draw and loss chances (adding up to 1) of `score` with `material` on the board.
pub fn chances(params: &WdlParams, score: f64, material: f64) -> [f64; 3] {
    let m = material.clamp(10.0, 78.0) / 58.0;
    let a = params[0] + params[1] * m;
    let b = (params[2] + params[3] * m).max(1.0);
    let win = sigmoid((score - a) / b);
    let loss = sigmoid((-score - a) / b);
    [win, 1.0 - win - loss, loss]
}
