//! Move ordering: the node's legal moves, scored once and handed out best
//! first (selection sort, since a cut-off usually comes early).
//!
//! Order: the transposition-table move, captures and queen promotions that
//! do not lose material (by static exchange) by most valuable victim /
//! least valuable attacker, the two killers, quiet moves by history, then
//! losing captures and under-promotions.

use backrank_eval::piece_value;
use shakmaty::{Chess, Move, MoveList, Position, Role};

use crate::history::Histories;
use crate::see::see_ge;
use crate::tt::is_packed;

const TT_MOVE: i32 = 1 << 30;
const GOOD_NOISY: i32 = 1 << 24;
const KILLER: [i32; 2] = [1 << 22, (1 << 22) - 1];

/// True for a move that changes material: a capture or a promotion.
pub fn is_noisy(m: Move) -> bool {
    m.is_capture() || m.promotion().is_some()
}

/// MVV-LVA: take the biggest victim, with the smallest attacker; after
/// the quiet moves when the exchange loses material.
fn noisy_score(pos: &Chess, m: Move) -> i32 {
    let victim = m.capture().map_or(0, piece_value);
    let promotion = m.promotion().map_or(0, |role| piece_value(role) - piece_value(Role::Pawn));
    let attacker = m.role() as i32;
    // Under-promotions are rarely better than the queen: order them last.
    let under = matches!(m.promotion(), Some(role) if role != Role::Queen);
    let mvv_lva = 8 * (victim + promotion) - attacker;
    if under || !see_ge(pos, m, 0) { -GOOD_NOISY + mvv_lva } else { GOOD_NOISY + mvv_lva }
}

/// Hands out the moves of one node in order.
pub struct MovePicker {
    moves: MoveList,
    scores: [i32; 256],
    next: usize,
}

impl MovePicker {
    /// Scores `moves` for a node at `ply` whose table move is `tt_move`.
    pub fn new(pos: &Chess, moves: MoveList, tt_move: u16, histories: &Histories, ply: usize) -> Self {
        let side = pos.turn();
        let mut scores = [0; 256];
        let killers = histories.killers(ply);
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = if is_packed(m, tt_move) {
                TT_MOVE
            } else if is_noisy(m) {
                noisy_score(pos, m)
            } else if killers[0] == Some(m) {
                KILLER[0]
            } else if killers[1] == Some(m) {
                KILLER[1]
            } else {
                histories.quiet(side, m)
            };
        }
        MovePicker { moves, scores, next: 0 }
    }
}

impl Iterator for MovePicker {
    type Item = Move;

    fn next(&mut self) -> Option<Move> {
        let start = self.next;
        if start >= self.moves.len() {
            return None;
        }
        let mut best = start;
        for i in start + 1..self.moves.len() {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.swap(start, best);
        self.scores.swap(start, best);
        self.next += 1;
        Some(self.moves[start])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tt::pack_move;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    #[test]
    fn order_is_tt_then_captures_then_quiets() {
        // White can take a queen with a pawn (exd5) or a knight (Nxd5).
        let pos: Chess = "4k3/8/8/3q4/4P3/2N5/8/4K3 w - - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Chess960)
            .unwrap();
        let moves = pos.legal_moves();
        let quiet = *moves.iter().find(|m| !m.is_capture()).unwrap();
        let picked: Vec<Move> =
            MovePicker::new(&pos, moves.clone(), pack_move(quiet), &Histories::default(), 0).collect();
        assert_eq!(picked.len(), moves.len());
        assert_eq!(picked[0], quiet);
        assert_eq!(picked[1].role(), Role::Pawn);
        assert!(picked[1].is_capture() && picked[2].is_capture());
        assert!(picked[3..].iter().all(|m| !m.is_capture()));
    }
}
