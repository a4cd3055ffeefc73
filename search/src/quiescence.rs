//! Quiescence search: the leaves of the tree, where only captures and
//! promotions (all evasions in check) are searched, so that the static
//! evaluation is taken only of quiet positions.

use shakmaty::Position;

use crate::correction::CorrectionKeys;
use crate::history::piece_to;
use crate::movegen::quiescence_moves;
use crate::movepick::MovePicker;
use crate::params::QS_DELTA_MARGIN;
use crate::score::{DRAW, MAX_PLY, mated_in};
use crate::see::{piece_value, see_ge};
use crate::state::{Node, PlyState, Shared, Worker, bound_of, play, tt_cutoff};
use crate::tt::{TtEntry, pack_move};

impl Worker {
    /// Quiescence search: only captures and promotions (all evasions when in
    /// check), with the static evaluation as a lower bound ("stand pat")
    /// since the side to move need not capture.
    pub(crate) fn quiescence(&mut self, shared: &Shared, node: Node, mut alpha: i32, beta: i32) -> i32 {
        let Node { pos, key, ply } = node;
        if self.count_node(shared) {
            return DRAW;
        }
        self.seldepth = self.seldepth.max(ply + 1);
        if ply >= MAX_PLY - 1 {
            return self.evaluate(pos, ply);
        }
        // Draws by rule, as in `negamax` (a repetition needs a non-capture
        // evasion here).
        if self.is_draw_by_rule(pos) {
            return self.draw_score();
        }
        // The transposition table in quiescence (measured with reverse
        // futility pruning's bundle): any stored result is at least as deep
        // as this search.
        let pv_node = beta - alpha > 1;
        let tt_hit = shared.tt.probe(key, ply, pos.halfmoves());
        if let Some(hit) = tt_hit
            && !pv_node
            && tt_cutoff(hit.bound, hit.score, alpha, beta)
        {
            return hit.score;
        }
        let in_check = pos.is_check();
        let original_alpha = alpha;
        let mut best_score = -crate::score::INFINITY;
        let (mut raw_eval, mut static_eval) = (DRAW, DRAW);
        if !in_check {
            raw_eval = match tt_hit {
                Some(hit) => hit.static_eval,
                None => self.evaluate(pos, ply),
            };
            // Corrected as in `negamax` (learnt there only).
            let keys = CorrectionKeys::of(pos.board());
            static_eval = self.histories.corrections.correct(pos.turn(), &keys, raw_eval);
            if static_eval >= beta {
                return static_eval;
            }
            alpha = alpha.max(static_eval);
            best_score = static_eval;
        }

        // Out of check, only captures and queen promotions, generated
        // directly; in check, every evasion.
        let mut moves = if in_check { pos.legal_moves() } else { quiescence_moves(pos) };
        if in_check && moves.is_empty() {
            return mated_in(ply);
        }
        let tt_move = tt_hit.map_or(0, |hit| hit.packed_move);
        let line = self.line(pos.turn(), ply);
        let mut picker = MovePicker::new(pos, &mut moves, tt_move, line);
        let mut best_move = None;
        while let Some(m) = picker.next(&self.histories) {
            if !in_check {
                // Losing captures are not worth resolving (measured with
                // reverse futility pruning's bundle, as SEE in quiescence):
                // the stand-pat score is already better. The picker hands them (and under-promotions) out
                // last, so the loop ends there; only the table move, which
                // the picker does not sort, needs its exchange tested here.
                if picker.last_was_bad_noisy() {
                    break;
                }
                if !picker.last_was_good_noisy() && !see_ge(pos, m, 0) {
                    continue;
                }
                // Delta pruning: a capture whose victim, with a margin for
                // the positional swing, cannot lift the static evaluation to
                // alpha is not searched. Sound in the sense of stand pat:
                // the side to move keeps its static score. No SPRT of its
                // own: part of 175db96's quiescence change, +40.8 with
                // 052aaba's table buckets (net v1d, 4+0.04).
                let gain = m.capture().map_or(0, piece_value);
                if m.promotion().is_none() && static_eval + gain + QS_DELTA_MARGIN.get() <= alpha {
                    continue;
                }
            }
            let (child, child_key) = play(shared, pos, key, m);
            self.stack[ply + 1] = PlyState::reached_by(Some(piece_to(line.side, m)), false);
            let child_node = Node { pos: &child, key: child_key, ply: ply + 1 };
            self.keys.push(child_key);
            let score = -self.quiescence(shared, child_node, -beta, -alpha);
            self.keys.pop();
            if shared.signals.is_stopped() {
                return DRAW;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        let bound = bound_of(best_score, original_alpha, beta);
        let packed_move = best_move.map_or(0, pack_move);
        let entry = TtEntry { packed_move, score: best_score, static_eval: raw_eval, depth: 0, bound };
        shared.tt.store(key, ply, entry);
        best_score
    }
}
