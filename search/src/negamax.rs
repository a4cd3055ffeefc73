//! The alpha-beta search proper: principal variation search with a
//! quiescence search at the leaves.

use shakmaty::{Chess, Move, MoveList, Position};

use crate::history::{Line, bonus, piece_to};
use crate::movegen::quiescence_moves;
use crate::movepick::{MovePicker, is_noisy};
use crate::params::{
    EXTENSION_MAX_PLY, FP_BASE, FP_MARGIN, FP_MAX_DEPTH, IIR_MIN_DEPTH, LMP_MAX_DEPTH, LMR_HISTORY_DIVISOR,
    LMR_MIN_DEPTH, LMR_MIN_MOVES, NMP_BASE_REDUCTION, NMP_DEPTH_DIVISOR, NMP_EVAL_DIVISOR,
    NMP_EVAL_MAX_REDUCTION, NMP_MIN_DEPTH, QS_DELTA_MARGIN, RAZOR_BASE, RAZOR_MARGIN, RAZOR_MAX_DEPTH,
    RFP_MARGIN, RFP_MAX_DEPTH, SE_MARGIN, SE_MIN_DEPTH, SE_TT_DEPTH_MARGIN, SEE_NOISY_MARGIN,
    SEE_PRUNE_MAX_DEPTH, SEE_QUIET_MARGIN, TB_DEPTH_BONUS, lmp_limit, lmr_reduction,
};
use crate::position::{
    has_non_pawn_material, is_insufficient_material, key_after, key_of, null_move, null_move_key,
};
use crate::score::{DRAW, MATE_BOUND, MAX_PLY, is_decisive, mated_in};
use crate::see::{piece_value, see_ge};
use crate::tablebase::wdl_score;
use crate::tt::{Bound, TtEntry, is_packed, pack_move};
use shakmaty_syzygy::Wdl;
use std::sync::atomic::Ordering;

use crate::worker::{EVAL_NONE, PlyState, Shared, Worker};

/// A node of the tree: its position, its key (already on the key stack),
/// and its distance from the root.
#[derive(Clone, Copy)]
pub(crate) struct Node<'a> {
    pub pos: &'a Chess,
    pub key: u64,
    pub ply: usize,
}

impl Worker {
    /// True if the current node (the last key pushed) repeats an earlier
    /// position since the last irreversible move.
    fn is_repetition(&self, halfmoves: u32) -> bool {
        let current = self.keys.len() - 1;
        let key = self.keys[current];
        let reach = (halfmoves as usize).min(current);
        (4..=reach).step_by(2).any(|back| self.keys[current - back] == key)
    }

    /// Whether the static evaluation at `ply` beats the one two plies
    /// back (or four, if we were in check then); true when neither is known.
    fn is_improving(&self, ply: usize, static_eval: i32) -> bool {
        let earlier =
            [2, 4].iter().filter(|&&back| ply >= back).map(|&back| self.stack[ply - back].static_eval);
        earlier.into_iter().find(|&eval| eval != EVAL_NONE).is_none_or(|eval| static_eval > eval)
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0]);
    }

    /// Negamax with alpha-beta and PVS of `node` to `depth` in the window
    /// (alpha, beta). Returns a score from the side to move's view.
    pub(crate) fn negamax(
        &mut self,
        shared: &Shared,
        node: Node,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        let Node { pos, key, ply } = node;
        let root = ply == 0;
        let pv_node = beta - alpha > 1;
        self.pv[ply].clear();
        if depth <= 0 {
            return self.quiescence(shared, node, alpha, beta);
        }
        if self.count_node(shared) && !root {
            return DRAW;
        }
        self.seldepth = self.seldepth.max(ply + 1);

        if !root {
            // Draws by rule. (A mate on the hundredth half-move still counts:
            // that case is caught below, where there are no legal moves.)
            if is_insufficient_material(pos) || self.is_repetition(pos.halfmoves()) {
                return DRAW;
            }
            if pos.halfmoves() >= 100 && !(pos.is_check() && pos.legal_moves().is_empty()) {
                return DRAW;
            }
            if ply >= MAX_PLY - 1 {
                return self.evaluate(pos, ply);
            }
            // Mate distance pruning: no line from here can beat a mate
            // already found nearer the root.
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(-mated_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        // A singular-extension search of this node leaves one move out: the
        // stored result (for all moves) neither ends nor replaces it.
        let excluded = self.stack[ply].excluded;

        // Transposition table: a deep enough result ends a non-PV node.
        let tt_hit = shared.tt.probe(key, ply);
        if let Some(hit) = tt_hit
            && excluded.is_none()
            && !pv_node
            && hit.depth >= depth
            && tt_cutoff(hit.bound, hit.score, alpha, beta)
        {
            return hit.score;
        }
        let tt_move = tt_hit.map_or(0, |hit| hit.packed_move);

        // Tablebases, right after a capture or pawn move (the only moment
        // the WDL tables are exact under the fifty-move rule): the result
        // ends the node when its bound allows, else bounds a PV node.
        let original_alpha = alpha;
        let mut best_score = -crate::score::INFINITY;
        let mut max_score = crate::score::INFINITY;
        if !root
            && excluded.is_none()
            && pos.halfmoves() == 0
            && depth >= shared.tablebases.config.probe_depth
            && let Some(wdl) = shared.tablebases.probe_wdl(pos)
        {
            shared.tb_hits.fetch_add(1, Ordering::Relaxed);
            let score = wdl_score(wdl, ply);
            let bound = match wdl {
                Wdl::Win => Bound::Lower,
                Wdl::Loss => Bound::Upper,
                _ => Bound::Exact,
            };
            if tt_cutoff(bound, score, alpha, beta) {
                let depth = (depth + TB_DEPTH_BONUS.get()).min(MAX_PLY as i32);
                let static_eval = self.evaluate(pos, ply);
                shared.tt.store(key, ply, TtEntry { packed_move: 0, score, static_eval, depth, bound });
                return score;
            }
            if pv_node {
                if bound == Bound::Lower {
                    best_score = score;
                    alpha = alpha.max(score);
                } else {
                    max_score = score;
                }
            }
        }

        let in_check = pos.is_check();
        // The table caches static evaluations too.
        let static_eval = match tt_hit {
            _ if in_check => DRAW,
            Some(hit) => hit.static_eval,
            None => self.evaluate(pos, ply),
        };
        self.stack[ply].static_eval = if in_check { EVAL_NONE } else { static_eval };
        // A stored search result bounds the position better than the
        // static evaluation does, where its bound points the right way;
        // not in a singular test, whose stored result is the excluded
        // move's own.
        let eval = match tt_hit {
            Some(hit)
                if !in_check
                    && excluded.is_none()
                    && !is_decisive(hit.score)
                    && tt_cutoff(hit.bound, hit.score, static_eval, static_eval + 1) =>
            {
                hit.score
            }
            _ => static_eval,
        };
        // Is our static evaluation better than a move ago (two plies)? Then
        // cut-offs are likelier and pruning can be bolder (from 7630fbb).
        let improving = !in_check && self.is_improving(ply, static_eval);

        // Reverse futility pruning: far enough above beta near the leaves, a
        // quiet position will not fall below it within the remaining depth.
        // No SPRT of its own: part of the selective-search bundle of
        // a2aff2f, +341.9 for all six together (RFP, LMP and futility, SEE
        // in quiescence, aspiration windows, the quiescence table, LMR's
        // first form), measured with the hand-crafted evaluation.
        if !pv_node
            && !in_check
            && depth <= RFP_MAX_DEPTH.get()
            && eval - RFP_MARGIN.get() * (depth - i32::from(improving)) >= beta
            && !is_decisive(beta)
        {
            return eval;
        }

        // Razoring: far below alpha near the leaves, only a tactic can save
        // the node; if quiescence finds none, trust it. No SPRT of its own:
        // part of 7630fbb's toolkit, +75.2 with the histories, razoring, IIR
        // and SEE pruning together (hand-crafted evaluation).
        if !pv_node
            && !in_check
            && depth <= RAZOR_MAX_DEPTH.get()
            && eval + RAZOR_BASE.get() + RAZOR_MARGIN.get() * depth * depth < alpha
        {
            let score = self.quiescence(shared, node, alpha, beta);
            if score <= alpha {
                return score;
            }
        }

        // Null-move pruning (+143.0, d2e6bf7, 4+0.04, hand-crafted
        // evaluation): if passing the turn still fails high at a reduced
        // depth, a real move will too.
        // Not in check (illegal), not twice in a row (the search would
        // collapse), not with only pawns left (zugzwang is common there).
        if !pv_node
            && !in_check
            && depth >= NMP_MIN_DEPTH.get()
            && eval >= beta
            && !self.stack[ply].null
            && excluded.is_none()
            && has_non_pawn_material(pos)
            && let Some(score) = self.null_move_search(shared, node, depth, beta, eval)
        {
            return score;
        }

        // Internal iterative reduction: without a table move this node was
        // never searched (or not usefully); a shallower search costs less
        // and fills the table for the next iteration. No SPRT of its own:
        // part of 7630fbb's toolkit (see razoring).
        if depth >= IIR_MIN_DEPTH.get() && tt_move == 0 {
            depth -= 1;
        }

        let mut moves = pos.legal_moves();
        if root {
            moves.retain(|m| self.root_moves.contains(m) && !self.root_excluded.contains(m));
        }
        if moves.is_empty() {
            return if in_check { mated_in(ply) } else { DRAW };
        }

        let side = pos.turn();
        let line = self.line(side, ply);
        let mut best_move: Option<Move> = None;
        // On the stack: no allocation per node.
        let mut quiets_tried = MoveList::new();
        let mut noisy_tried = MoveList::new();

        let mut picker = MovePicker::new(pos, &mut moves, tt_move, line);
        let mut next_index = 0;
        while let Some(m) = picker.next(&self.histories) {
            let index = next_index;
            next_index += 1;
            if Some(m) == excluded {
                continue;
            }
            // Shallow pruning, once a move has saved us from being mated,
            // decided before the move is made (that is the costly part).
            if !root && best_score > -MATE_BOUND {
                // Shallow quiet-move pruning (measured with reverse futility
                // pruning's bundle): late move pruning (late quiet moves of
                // a well-ordered node rarely matter) and futility pruning (a quiet move cannot
                // lift a static evaluation this far below alpha). Both hold
                // for every later quiet move too, so the picker skips them.
                if !pv_node && !in_check && !is_noisy(m) {
                    let late =
                        depth <= LMP_MAX_DEPTH.get() && quiets_tried.len() >= lmp_limit(depth, improving);
                    let futile = depth <= FP_MAX_DEPTH.get()
                        && eval + FP_BASE.get() + FP_MARGIN.get() * depth <= alpha;
                    if late || futile {
                        picker.skip_quiets();
                        continue;
                    }
                }
                // SEE pruning: near the leaves, a move that loses material
                // in the exchange on its square (more for captures, as
                // depth grows) is not worth a search. No SPRT of its own:
                // part of 7630fbb's toolkit (see razoring).
                // A capture of the picker's good stage has passed a stricter
                // test already (an exchange at least even).
                if depth <= SEE_PRUNE_MAX_DEPTH.get() && !(is_noisy(m) && picker.last_was_good_noisy()) {
                    let threshold = if is_noisy(m) {
                        -SEE_NOISY_MARGIN.get() * depth * depth
                    } else {
                        -SEE_QUIET_MARGIN.get() * depth
                    };
                    if !see_ge(pos, m, threshold) {
                        continue;
                    }
                }
            }
            let (child, child_key) = play(shared, pos, key, m);
            let gives_check = child.is_check();
            // Check extension: a move that gives check is searched a ply
            // deeper, so that forcing lines are not cut at the horizon.
            // No SPRT of its own (from the first search).
            let mut extension = i32::from(gives_check && ply < EXTENSION_MAX_PLY);
            // Singular extensions, with multi-cut and negative extensions
            // (+33.4, 3471331, 4+0.04, hand-crafted evaluation):
            // when the table move is much better than every other move
            // (a reduced search without it fails low well below its score),
            // the node hinges on it: search it a ply deeper. When even the
            // others beat beta, the node cuts at once; when only the table
            // move is expected to, it is searched a ply shallower.
            if !root && excluded.is_none() && is_packed(m, tt_move) && ply < EXTENSION_MAX_PLY {
                match self.singular(shared, node, depth, beta, tt_hit, m) {
                    Singular::Extend => extension = 1,
                    Singular::MultiCut(score) => return score,
                    Singular::Reduce => extension = -1,
                    Singular::No => {}
                }
            }
            let new_depth = depth - 1 + extension;

            let child_node = Node { pos: &child, key: child_key, ply: ply + 1 };
            self.keys.push(child_key);
            self.stack[ply + 1] = PlyState::reached_by(Some(piece_to(side, m)), false);
            let nodes_before = self.nodes;
            if root && self.id == 0 {
                shared.report_current_move(m, index as u32 + 1, depth);
            }
            let score = if index == 0 {
                -self.negamax(shared, child_node, new_depth, -beta, -alpha)
            } else {
                // Late move reductions (+143.4 alone, d3beb61, 4+0.04,
                // hand-crafted evaluation):
                // well-ordered nodes rarely find their best move late, so
                // late quiet moves are searched shallower first, and again at
                // full depth only if they beat alpha.
                let reduction = if depth >= LMR_MIN_DEPTH.get()
                    && index >= LMR_MIN_MOVES.get() as usize + usize::from(pv_node)
                    && !is_noisy(m)
                    && !in_check
                    && !gives_check
                {
                    let history = self.histories.quiet(&line, m);
                    (lmr_reduction(depth, index) - i32::from(pv_node) + i32::from(!improving)
                        - history / LMR_HISTORY_DIVISOR.get())
                    .clamp(0, new_depth - 1)
                } else {
                    0
                };
                // PVS: prove the move worse with a null window; re-search
                // with the full window only when it is not.
                let mut score = -self.negamax(shared, child_node, new_depth - reduction, -alpha - 1, -alpha);
                if score > alpha && reduction > 0 {
                    score = -self.negamax(shared, child_node, new_depth, -alpha - 1, -alpha);
                }
                if score > alpha && score < beta {
                    score = -self.negamax(shared, child_node, new_depth, -beta, -alpha);
                }
                score
            };
            self.keys.pop();
            if root && let Some(i) = self.root_moves.iter().position(|&r| r == m) {
                self.root_nodes[i] += self.nodes - nodes_before;
            }

            if shared.signals.is_stopped() && !(root && index == 0) {
                return DRAW;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    if pv_node || root {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        self.reward_cutoff(&line, m, &quiets_tried, &noisy_tried, depth);
                        break;
                    }
                }
            }
            if is_noisy(m) {
                noisy_tried.push(m);
            } else {
                quiets_tried.push(m);
            }
        }

        if excluded.is_some() {
            // Every other move was pruned: nothing beats alpha.
            return if best_score == -crate::score::INFINITY { alpha } else { best_score };
        }
        best_score = best_score.min(max_score);
        let bound = bound_of(best_score, original_alpha, beta);
        if !(root && shared.signals.is_stopped()) {
            let packed = best_move.map_or(0, pack_move);
            let entry = TtEntry { packed_move: packed, score: best_score, static_eval, depth, bound };
            shared.tt.store(key, ply, entry);
        }
        best_score
    }

    /// The singular-extension test of the table move `m` (see singular
    /// extensions in `negamax`).
    fn singular(
        &mut self,
        shared: &Shared,
        node: Node,
        depth: i32,
        beta: i32,
        tt_hit: Option<TtEntry>,
        m: Move,
    ) -> Singular {
        let Some(hit) = tt_hit else { return Singular::No };
        if depth < SE_MIN_DEPTH.get()
            || hit.bound == Bound::Upper
            || hit.depth < depth - SE_TT_DEPTH_MARGIN.get()
            || is_decisive(hit.score)
        {
            return Singular::No;
        }
        let singular_beta = hit.score - SE_MARGIN.get() * depth;
        self.stack[node.ply].excluded = Some(m);
        let score = self.negamax(shared, node, (depth - 1) / 2, singular_beta - 1, singular_beta);
        self.stack[node.ply].excluded = None;
        if score < singular_beta {
            Singular::Extend
        } else if singular_beta >= beta {
            Singular::MultiCut(singular_beta)
        } else if hit.score >= beta {
            Singular::Reduce
        } else {
            Singular::No
        }
    }

    /// Searches the null move with a reduced null window around `beta`;
    /// the score when it fails high (mates are not trusted: passing is not
    /// a legal move), else `None`.
    fn null_move_search(
        &mut self,
        shared: &Shared,
        node: Node,
        depth: i32,
        beta: i32,
        static_eval: i32,
    ) -> Option<i32> {
        let Node { pos, key, ply } = node;
        let child = null_move(pos)?;
        let child_key = null_move_key(pos, key);
        let reduction = NMP_BASE_REDUCTION.get()
            + depth / NMP_DEPTH_DIVISOR.get()
            + ((static_eval - beta) / NMP_EVAL_DIVISOR.get()).min(NMP_EVAL_MAX_REDUCTION.get());
        self.keys.push(child_key);
        self.stack[ply + 1] = PlyState::reached_by(None, true);
        let child_node = Node { pos: &child, key: child_key, ply: ply + 1 };
        let score = -self.negamax(shared, child_node, depth - 1 - reduction, -beta, -beta + 1);
        self.keys.pop();
        if shared.signals.is_stopped() || score < beta {
            return None;
        }
        Some(if is_decisive(score) { beta } else { score })
    }

    /// Move `best` caused a cut-off: it gains history (a quiet one also
    /// becomes a killer and a countermove); the moves of its kind tried
    /// before it lose history, and so do the captures tried before it.
    fn reward_cutoff(&mut self, line: &Line, best: Move, quiets: &[Move], noisy: &[Move], depth: i32) {
        let delta = bonus(depth);
        if is_noisy(best) {
            self.histories.update_capture(line.side, best, delta);
        } else {
            self.histories.remember_refutation(line, best);
            self.histories.update_quiet(line, best, delta);
            for &other in quiets {
                self.histories.update_quiet(line, other, -delta);
            }
        }
        for &other in noisy {
            self.histories.update_capture(line.side, other, -delta);
        }
    }

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
        if is_insufficient_material(pos) {
            return DRAW;
        }
        // The transposition table in quiescence (measured with reverse
        // futility pruning's bundle): any stored result is at least as deep
        // as this search.
        let pv_node = beta - alpha > 1;
        let tt_hit = shared.tt.probe(key, ply);
        if let Some(hit) = tt_hit
            && !pv_node
            && tt_cutoff(hit.bound, hit.score, alpha, beta)
        {
            return hit.score;
        }
        let in_check = pos.is_check();
        let original_alpha = alpha;
        let mut best_score = -crate::score::INFINITY;
        let mut static_eval = DRAW;
        if !in_check {
            static_eval = match tt_hit {
                Some(hit) => hit.static_eval,
                None => self.evaluate(pos, ply),
            };
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
            let score = -self.quiescence(shared, child_node, -beta, -alpha);
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
        shared.tt.store(key, ply, TtEntry { packed_move, score: best_score, static_eval, depth: 0, bound });
        best_score
    }
}

/// The position after `m` and its key. The key comes first, so that the
/// child's table bucket is on its way from memory while the move is made.
fn play(shared: &Shared, pos: &Chess, key: u64, m: Move) -> (Chess, u64) {
    let child_key = key_after(pos, key, m);
    if let Some(child_key) = child_key {
        shared.tt.prefetch(child_key);
    }
    let mut child = pos.clone();
    child.play_unchecked(m);
    let child_key = child_key.unwrap_or_else(|| key_of(&child));
    (child, child_key)
}

/// The verdict of the singular-extension test.
enum Singular {
    /// The table move alone holds the node: extend it.
    Extend,
    /// Other moves beat beta too: the node fails high with this score.
    MultiCut(i32),
    /// The table move is not singular but should cut: reduce it.
    Reduce,
    No,
}

/// Whether a stored score with `bound` decides a node with window (alpha, beta).
fn tt_cutoff(bound: Bound, score: i32, alpha: i32, beta: i32) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    }
}

/// The bound a node's best score proves, given the window it was searched with.
fn bound_of(best_score: i32, original_alpha: i32, beta: i32) -> Bound {
    if best_score >= beta {
        Bound::Lower
    } else if best_score > original_alpha {
        Bound::Exact
    } else {
        Bound::Upper
    }
}
