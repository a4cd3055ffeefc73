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
//! and the draw takes the rest. [`FITTED`] holds the parameters that
//! `backrank-train wdl <games.bin>` fitted to Backrank's own games, and
//! [`per_mille`] turns a score into the chances `UCI_ShowWDL` reports.

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

/// The parameters `[a0, a1, b0, b1]` that `backrank-train wdl` fitted to the
/// shipped net's own self-play: every fourth kept position (442,085) of
/// gen6's first 21,568 `backrank datagen` games at 5000 nodes a move with
/// net v2l (mean log-loss 0.711 -> 0.555). Earlier fits: v2k
/// `[334.4, -203.0, 94.5, 13.7]`, v1a and v1d `[384.1, -222.1, 167.1,
/// -47.5]`, the hand-crafted evaluation `[317.3, -185.2, 131.7, -13.9]`.
/// v2k and v2l were trained at a steeper scale than v1d, so their scores
/// are smaller and mean more.
pub const FITTED: WdlParams = [326.5, -198.0, 87.0, 18.5];

/// Win, draw and loss chances in per mille (adding up to 1000) of an
/// undecided `score` (centipawns, side to move) in `pos`, by [`FITTED`].
pub fn per_mille(score: i32, pos: &Chess) -> [u32; 3] {
    let [win, _, loss] = chances(&FITTED, f64::from(score), f64::from(material(pos)));
    let win = ((win * 1000.0).round() as u32).min(1000);
    let loss = ((loss * 1000.0).round() as u32).min(1000 - win);
    [win, 1000 - win - loss, loss]
}

#[cfg(test)]
mod tests {
    use super::*;
    use backrank_util::position;

    #[test]
    fn chances_add_up_and_follow_the_score() {
        let pos = Chess::default();
        let mut last_win = 0;
        for score in [-800, -300, -100, 0, 100, 300, 800] {
            let [w, d, l] = per_mille(score, &pos);
            assert_eq!(w + d + l, 1000, "{score}");
            assert!(w >= last_win, "{score}");
            last_win = w;
        }
        let [w, _, l] = per_mille(0, &pos);
        assert_eq!(w, l);
        assert!(per_mille(800, &pos)[0] > 900);
        assert!(per_mille(-800, &pos)[2] > 900);
    }

    #[test]
    fn level_endings_are_drawish() {
        // With little material left, an equal score is most likely a draw;
        // with everything on the board, much less so.
        let full = Chess::default();
        let ending = position("4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1");
        assert!(per_mille(0, &ending)[1] > 500);
        assert!(per_mille(0, &ending)[1] > per_mille(0, &full)[1]);
    }
}
