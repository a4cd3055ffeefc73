//! Win/draw/loss chances for `UCI_ShowWDL`, from the score and the
//! material on the board: the model of `backrank_eval::wdl` with the
//! numbers `tune wdl <data>` fitted to Backrank's own self-play results.

use backrank_eval::wdl::{WdlParams, chances, material};
use backrank_search::score::is_decisive;
use shakmaty::Chess;

/// The fitted parameters `[a0, a1, b0, b1]` of [`backrank_eval::wdl`].
/// Fitted by `tune wdl` to 103 k positions (every fourth) of 4741
/// self-play games at 5000 nodes a move (mean log-loss 0.847 -> 0.714).
const PARAMS: WdlParams = [317.3, -185.2, 131.7, -13.9];

/// Win, draw and loss chances in per mille (adding up to 1000) of `score`
/// (centipawns or a mate/tablebase score, side to move) in `pos`.
pub fn wdl(score: i32, pos: &Chess) -> [u32; 3] {
    if is_decisive(score) {
        return if score > 0 { [1000, 0, 0] } else { [0, 0, 1000] };
    }
    let [win, _, loss] = chances(&PARAMS, f64::from(score), f64::from(material(pos)));
    let win = ((win * 1000.0).round() as u32).min(1000);
    let loss = ((loss * 1000.0).round() as u32).min(1000 - win);
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
