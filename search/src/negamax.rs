//! The alpha-beta search proper: principal variation search with a
//! quiescence search at the leaves.
//!
//! The soundness fixes of issue 25 (no whole-node pruning in a singular
//! test; repetitions as a 2-fold in the search or a 3-fold in the game;
//! draws by rule in quiescence; table results near the fifty-move limit;
//! a stopped fail-high kept; draws scored 0 +/- 1) were measured together:
//! net v2b, 20,000 nodes a move, SPRT [-5, 0], H1 after 1,536 games,
//! +21.1 +/- 12.3 Elo.

use std::sync::atomic::Ordering;

use shakmaty::{Move, MoveList, Position};
use shakmaty_syzygy::Wdl;

use crate::correction::CorrectionKeys;
use crate::history::{Line, bonus, piece_to};
use crate::movepick::{MovePicker, is_noisy};
use crate::params::{
    EXTENSION_MAX_PLY, IIR_MIN_DEPTH, SE_DOUBLE_MARGIN, SE_DOUBLE_MAX, SE_MARGIN, SE_MIN_DEPTH,
    SE_TT_DEPTH_MARGIN, TB_DEPTH_BONUS, TT_FIFTY_MOVE_GUARD,
};
use crate::pruning::MoveFate;
use crate::score::{DRAW, MATE_BOUND, MAX_PLY, is_decisive, mated_in};
use crate::state::{EVAL_NONE, Node, NodeState, PlyState, Shared, Worker, bound_of, play, tt_cutoff};
use crate::tablebase::wdl_score;
use crate::tt::{Bound, TtEntry, is_packed, pack_move};

impl Worker {
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
        if !root && let Some(score) = self.ends_before_search(node, &mut alpha, &mut beta) {
            return score;
        }

        // A singular-extension search of this node leaves one move out: the
        // stored result (for all moves) neither ends nor replaces it.
        let excluded = self.stack[ply].excluded;

        // Transposition table: a deep enough result ends a non-PV node,
        // unless the fifty-move rule is near (the stored result may come
        // from a path on which the rule did not bind). A soundness fix (see
        // the module note).
        let tt_hit = shared.tt.probe(key, ply, pos.halfmoves());
        if let Some(hit) = tt_hit
            && excluded.is_none()
            && !pv_node
            && pos.halfmoves() < TT_FIFTY_MOVE_GUARD.get() as u32
            && hit.depth >= depth
            && tt_cutoff(hit.bound, hit.score, alpha, beta)
        {
            return hit.score;
        }
        let tt_move = tt_hit.map_or(0, |hit| hit.packed_move);

        let original_alpha = alpha;
        let mut best_score = -crate::score::INFINITY;
        let mut max_score = crate::score::INFINITY;
        if !root && excluded.is_none() {
            match self.probe_tablebases(shared, node, depth, alpha, beta) {
                Some(TablebaseResult::Cutoff(score)) => return score,
                // Not decisive here: it bounds a PV node's score.
                Some(TablebaseResult::AtLeast(score)) if pv_node => {
                    best_score = score;
                    alpha = alpha.max(score);
                }
                Some(TablebaseResult::AtMost(score)) if pv_node => max_score = score,
                _ => {}
            }
        }

        let state = self.node_state(node, tt_hit, pv_node, excluded);
        // Not in a singular test: its result must come from searching the
        // other moves, or the test cancels its own extension (or even
        // returns a multi-cut with no move searched). A soundness fix (see
        // the module note).
        if !pv_node
            && excluded.is_none()
            && let Some(score) = self.prune_node(shared, node, depth, alpha, beta, &state)
        {
            return score;
        }

        // Internal iterative reduction: without a table move this node was
        // never searched (or not usefully); a shallower search costs less
        // and fills the table for the next iteration. No SPRT of its own:
        // part of 7630fbb's toolkit (see razoring in `prune_node`).
        if depth >= IIR_MIN_DEPTH.get() && tt_move == 0 {
            depth -= 1;
        }

        let mut moves = pos.legal_moves();
        if root {
            moves.retain(|m| self.root_moves.contains(m) && !self.root_excluded.contains(m));
        }
        if moves.is_empty() {
            return if state.in_check { mated_in(ply) } else { DRAW };
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
                let good_noisy = picker.last_was_good_noisy();
                match self.prune_move(pos, m, depth, alpha, &state, quiets_tried.len(), good_noisy) {
                    MoveFate::Search => {}
                    MoveFate::Skip => continue,
                    MoveFate::SkipQuiets => {
                        picker.skip_quiets();
                        continue;
                    }
                }
            }
            let (child, child_key) = play(shared, pos, key, m);
            let gives_check = child.is_check();
            let extension = match self.extension(shared, node, depth, beta, tt_hit, m, gives_check, pv_node) {
                Ok(extension) => extension,
                Err(multi_cut) => return multi_cut,
            };
            let new_depth = depth - 1 + extension;

            let child_node = Node { pos: &child, key: child_key, ply: ply + 1 };
            self.keys.push(child_key);
            self.stack[ply + 1] = PlyState {
                double_extensions: self.stack[ply].double_extensions + i32::from(extension >= 2),
                ..PlyState::reached_by(Some(piece_to(side, m)), false)
            };
            let nodes_before = self.nodes;
            if root && self.id == 0 {
                shared.report_current_move(m, index as u32 + 1, depth);
            }
            let score = if index == 0 {
                -self.negamax(shared, child_node, new_depth, -beta, -alpha)
            } else {
                let reduction =
                    self.late_move_reduction(&line, m, depth, new_depth, index, gives_check, &state);
                self.zero_window_first(shared, child_node, new_depth, reduction, alpha, beta)
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
        self.store_result(shared, node, &state, best_move, best_score, original_alpha, beta, depth);
        best_score
    }

    /// How much deeper move `m` of `node` is searched: the check extension
    /// and the singular-extension test of the table move. `Err` holds the
    /// node's score when the test proves a multi-cut.
    #[allow(clippy::too_many_arguments)]
    fn extension(
        &mut self,
        shared: &Shared,
        node: Node,
        depth: i32,
        beta: i32,
        tt_hit: Option<TtEntry>,
        m: Move,
        gives_check: bool,
        pv_node: bool,
    ) -> Result<i32, i32> {
        let ply = node.ply;
        if ply >= EXTENSION_MAX_PLY {
            return Ok(0);
        }
        // Check extension: a move that gives check is searched a ply
        // deeper, so that forcing lines are not cut at the horizon. From
        // the first search; its removal was tested twice
        // (`search/EXPERIMENTS.md`): -1.7 +/- 13.8 at 20,000 nodes a move
        // with net v2e (SPRT [-5, 0], undecided after 1,600 games), and
        // -49.6 +/- 28.5 at 4+0.04 with net v2p when LMR reduced checks a
        // ply less instead. It stays.
        let check_extension = i32::from(gives_check);
        // Singular extensions, with multi-cut and negative extensions
        // (+33.4, 3471331, 4+0.04, hand-crafted evaluation): when the table
        // move is much better than every other move (a reduced search
        // without it fails low well below its score), the node hinges on
        // it: search it a ply deeper. When even the others beat beta, the
        // node cuts at once; when only the table move is expected to, it is
        // searched a ply shallower.
        let tt_move = tt_hit.map_or(0, |hit| hit.packed_move);
        if ply == 0 || self.stack[ply].excluded.is_some() || !is_packed(m, tt_move) {
            return Ok(check_extension);
        }
        Ok(match self.singular(shared, node, depth, beta, tt_hit, m, pv_node) {
            Singular::Extend => 1,
            Singular::ExtendTwice => 2,
            Singular::MultiCut(score) => return Err(score),
            Singular::Reduce => -1,
            Singular::No => check_extension,
        })
    }

    /// A searched node teaches the correction histories (unless the search
    /// was stopped) and stores its result in the table (unless it is a
    /// stopped root, whose result is incomplete).
    #[allow(clippy::too_many_arguments)]
    fn store_result(
        &mut self,
        shared: &Shared,
        node: Node,
        state: &NodeState,
        best_move: Option<Move>,
        best_score: i32,
        original_alpha: i32,
        beta: i32,
        depth: i32,
    ) {
        let bound = bound_of(best_score, original_alpha, beta);
        if !shared.signals.is_stopped() {
            self.learn_correction(node, state, best_move, best_score, bound, depth);
        }
        if !(node.ply == 0 && shared.signals.is_stopped()) {
            let packed_move = best_move.map_or(0, pack_move);
            let entry = TtEntry { packed_move, score: best_score, static_eval: state.raw_eval, depth, bound };
            shared.tt.store(node.key, node.ply, entry);
        }
    }

    /// PVS for every move but the first: prove the move worse with a null
    /// window (at a reduced depth first, if `reduction`); re-search it at
    /// full depth, then with the full window, only while it is not.
    fn zero_window_first(
        &mut self,
        shared: &Shared,
        child: Node,
        new_depth: i32,
        reduction: i32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let mut score = -self.negamax(shared, child, new_depth - reduction, -alpha - 1, -alpha);
        if score > alpha && reduction > 0 {
            score = -self.negamax(shared, child, new_depth, -alpha - 1, -alpha);
        }
        if score > alpha && score < beta {
            score = -self.negamax(shared, child, new_depth, -beta, -alpha);
        }
        score
    }

    /// Whether a (non-root) node ends before any search: a draw by rule,
    /// the ply limit, or mate distance pruning, which also narrows the
    /// window to the scores a line from here can still reach.
    fn ends_before_search(&mut self, node: Node, alpha: &mut i32, beta: &mut i32) -> Option<i32> {
        let Node { pos, ply, .. } = node;
        if self.is_draw_by_rule(pos) {
            return Some(self.draw_score());
        }
        if ply >= MAX_PLY - 1 {
            return Some(self.evaluate(pos, ply));
        }
        // Mate distance pruning: no line from here can beat a mate already
        // found nearer the root.
        *alpha = (*alpha).max(mated_in(ply));
        *beta = (*beta).min(-mated_in(ply + 1));
        (*alpha >= *beta).then_some(*alpha)
    }

    /// Tablebases, right after a capture or pawn move (the only moment the
    /// WDL tables are exact under the fifty-move rule): the result ends the
    /// node when its bound allows (and is stored), else it bounds the score.
    fn probe_tablebases(
        &mut self,
        shared: &Shared,
        node: Node,
        depth: i32,
        alpha: i32,
        beta: i32,
    ) -> Option<TablebaseResult> {
        let Node { pos, key, ply } = node;
        if pos.halfmoves() != 0 || depth < shared.tablebases.config.probe_depth {
            return None;
        }
        let wdl = shared.tablebases.probe_wdl(pos)?;
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
            return Some(TablebaseResult::Cutoff(score));
        }
        Some(if bound == Bound::Lower {
            TablebaseResult::AtLeast(score)
        } else {
            TablebaseResult::AtMost(score)
        })
    }

    /// The node's evaluations, once the table has been read: the static
    /// evaluation (cached in the table) and the same refined by a stored
    /// search result where its bound points the right way.
    fn node_state(
        &mut self,
        node: Node,
        tt_hit: Option<TtEntry>,
        pv_node: bool,
        excluded: Option<Move>,
    ) -> NodeState {
        let Node { pos, ply, .. } = node;
        let in_check = pos.is_check();
        let raw_eval = match tt_hit {
            _ if in_check => DRAW,
            Some(hit) => hit.static_eval,
            None => self.evaluate(pos, ply),
        };
        // Correction histories (see `crate::correction`): +29.0 +/- 13.1
        // at 20,000 nodes a move, net v2b (SPRT [0, 5], 1,586 games).
        let keys = CorrectionKeys::of(pos.board());
        let static_eval =
            if in_check { DRAW } else { self.histories.corrections.correct(pos.turn(), &keys, raw_eval) };
        self.stack[ply].static_eval = if in_check { EVAL_NONE } else { static_eval };
        // Not in a singular test, whose stored result is the excluded
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
        NodeState { pv_node, in_check, raw_eval, keys, static_eval, eval, improving }
    }

    /// The singular-extension test of the table move `m` (see singular
    /// extensions in `negamax`).
    #[allow(clippy::too_many_arguments)]
    fn singular(
        &mut self,
        shared: &Shared,
        node: Node,
        depth: i32,
        beta: i32,
        tt_hit: Option<TtEntry>,
        m: Move,
        pv_node: bool,
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
            // Double extensions: off the PV, a table move that every other
            // move trails by far more than the margin is searched two plies
            // deeper, a bounded number of times on a line (so that the
            // tree stays finite and PV lines keep their length). Measured
            // together with the continuation history four plies back (see
            // `crate::history`): +51.8 +/- 23.4, net v2p, 4+0.04, SPRT
            // [0, 10], H1 after 304 games.
            let far_below = score < singular_beta - SE_DOUBLE_MARGIN.get();
            let room = self.stack[node.ply].double_extensions < SE_DOUBLE_MAX.get();
            if !pv_node && far_below && room { Singular::ExtendTwice } else { Singular::Extend }
        } else if singular_beta >= beta {
            Singular::MultiCut(singular_beta)
        } else if hit.score >= beta {
            Singular::Reduce
        } else {
            Singular::No
        }
    }

    /// A finished search of a quiet node teaches the correction histories
    /// how far its static evaluation was off, when the result says so: an
    /// exact score, or a bound beyond the static evaluation in its own
    /// direction. Not in check (no static evaluation), not after a capture
    /// or promotion was best (the material, not the structure, decided),
    /// not for decisive scores.
    fn learn_correction(
        &mut self,
        node: Node,
        state: &NodeState,
        best_move: Option<Move>,
        best_score: i32,
        bound: Bound,
        depth: i32,
    ) {
        let misjudged = match bound {
            Bound::Exact => true,
            Bound::Lower => best_score > state.static_eval,
            Bound::Upper => best_score < state.static_eval,
        };
        if state.in_check || !misjudged || best_move.is_some_and(is_noisy) || is_decisive(best_score) {
            return;
        }
        let turn = node.pos.turn();
        self.histories.corrections.update(turn, &state.keys, state.raw_eval, best_score, depth);
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
}

/// What the tablebases say of a node.
enum TablebaseResult {
    /// The result decides the node: its score.
    Cutoff(i32),
    /// The node scores at least (a win) or at most (a loss) this.
    AtLeast(i32),
    AtMost(i32),
}

/// The verdict of the singular-extension test.
enum Singular {
    /// The table move alone holds the node: extend it.
    Extend,
    /// The table move holds a non-PV node by far: extend it two plies.
    ExtendTwice,
    /// Other moves beat beta too: the node fails high with this score.
    MultiCut(i32),
    /// The table move is not singular but should cut: reduce it.
    Reduce,
    No,
}
