//! Win/draw/loss chances for `UCI_ShowWDL`, from the score and the
//! material on the board. The model and how its numbers were fitted to
//! Backrank's own self-play results: `tune/src/wdl.rs` (`tune wdl <data>`).

use backrank_search::score::is_decisive;
use shakmaty::{Chess, Position, Role};

/// The fitted parameters: `a = A0 + A1 * m`, `b = B0 + B1 * m`, with `m`
/// the material (pawn 1, minor 3, rook 5, queen 9; clamped to 10..78) / 58.
/// Fitted by `tune wdl` to 103 k positions (every fourth) of 4741
/// self-play games at 5000 nodes a move (mean log-loss 0.847 -> 0.714).
const A0: f64 = 317.3;
const A1: f64 = -185.2;
const B0: f64 = 131.7;
const B1: f64 = -13.9;

/// Win, draw and loss chances in per mille (adding up to 1000) of `score`
/// (centipawns or a mate/tablebase score, side to move) in `pos`.
pub fn wdl(score: i32, pos: &Chess) -> [u32; 3] {
    if is_decisive(score) {
        return if score > 0 { [1000, 0, 0] } else { [0, 0, 1000] };
    }
    let board = pos.board();
    let material: u32 =
        [(Role::Pawn, 1), (Role::Knight, 3), (Role::Bishop, 3), (Role::Rook, 5), (Role::Queen, 9)]
            .into_iter()
            .map(|(role, value)| board.by_role(role).count() as u32 * value)
            .sum();
    let m = f64::from(material).clamp(10.0, 78.0) / 58.0;
    let (a, b) = (A0 + A1 * m, (B0 + B1 * m).max(1.0));
    let s = f64::from(score);
    let win = (1000.0 / (1.0 + ((a - s) / b).exp())).round() as u32;
    let loss = (1000.0 / (1.0 + ((a + s) / b).exp())).round() as u32;
    let (win, loss) = (win.min(1000), loss.min(1000 - win.min(1000)));
    [win, 1000 - win - loss, loss]
}

#[cfg(test)]
mod tests {
    use super::*;
    use backrank_search::score::MATE;

    #[test]
    fn chances_add_up_and_follow_the_score() {
        let pos = Chess::default();
        let mut last_win = 0;
        for score in [-800, -300, -100, 0, 100, 300, 800] {
            let [w, d, l] = wdl(score, &pos);
            assert_eq!(w + d + l, 1000, "{score}");
            assert!(w >= last_win, "{score}");
            last_win = w;
        }
        let [w, _, l] = wdl(0, &pos);
        assert_eq!(w, l);
        assert!(wdl(800, &pos)[0] > 900);
        assert!(wdl(-800, &pos)[2] > 900);
        assert_eq!(wdl(MATE - 5, &pos), [1000, 0, 0]);
        assert_eq!(wdl(-MATE + 5, &pos), [0, 0, 1000]);
    }

    #[test]
    fn level_endings_are_drawish() {
        // With little material left, an equal score is most likely a draw;
        // with everything on the board, much less so.
        let full = Chess::default();
        let ending: Chess = "4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Chess960)
            .unwrap();
        assert!(wdl(0, &ending)[1] > 500);
        assert!(wdl(0, &ending)[1] > wdl(0, &full)[1]);
    }
}
