//! Pruning and reductions: the decisions that let the search skip or
//! shorten work, each with what it is, why it is sound, and the Elo its
//! SPRT measured (every figure so far with the hand-crafted evaluation,
//! before 6bf7c54).

use shakmaty::{Chess, Move};

use crate::history::Line;
use crate::movepick::is_noisy;
use crate::params::{
    FP_BASE, FP_MARGIN, FP_MAX_DEPTH, LMP_MAX_DEPTH, LMR_HISTORY_DIVISOR, LMR_MIN_DEPTH, LMR_MIN_MOVES,
    LMR_NOT_IMPROVING_REDUCTION, LMR_PV_REDUCTION, NMP_BASE_REDUCTION, NMP_DEPTH_DIVISOR, NMP_EVAL_DIVISOR,
    NMP_EVAL_MAX_REDUCTION, NMP_MIN_DEPTH, RAZOR_BASE, RAZOR_MARGIN, RAZOR_MAX_DEPTH, RFP_MARGIN,
    RFP_MAX_DEPTH, SEE_NOISY_MARGIN, SEE_PRUNE_MAX_DEPTH, SEE_QUIET_MARGIN, lmp_limit, lmr_reduction,
};
use crate::position::{has_non_pawn_material, null_move, null_move_key};
use crate::score::is_decisive;
use crate::see::see_ge;
use crate::state::{Node, NodeState, PlyState, Shared, Worker};

/// What becomes of a move before it is made.
pub(crate) enum MoveFate {
    Search,
    /// Not this move.
    Skip,
    /// Neither this nor any later quiet move.
    SkipQuiets,
}

impl Worker {
    /// Whole-node pruning of a non-PV node before its moves (never in a
    /// singular test): the score to return, or `None` to search the moves.
    pub(crate) fn prune_node(
        &mut self,
        shared: &Shared,
        node: Node,
        depth: i32,
        alpha: i32,
        beta: i32,
        state: &NodeState,
    ) -> Option<i32> {
        let NodeState { in_check, eval, improving, .. } = *state;
        if in_check {
            return None;
        }
        // Reverse futility pruning: far enough above beta near the leaves, a
        // quiet position will not fall below it within the remaining depth.
        // No SPRT of its own: part of the selective-search bundle of
        // a2aff2f, +341.9 for all six together (RFP, LMP and futility, SEE
        // in quiescence, aspiration windows, the quiescence table, LMR's
        // first form), measured with the hand-crafted evaluation.
        if depth <= RFP_MAX_DEPTH.get()
            && eval - RFP_MARGIN.get() * (depth - i32::from(improving)) >= beta
            && !is_decisive(beta)
        {
            return Some(eval);
        }

        // Razoring: far below alpha near the leaves, only a tactic can save
        // the node; if quiescence finds none, trust it. No SPRT of its own:
        // part of 7630fbb's toolkit, +75.2 with the histories, razoring, IIR
        // and SEE pruning together (hand-crafted evaluation).
        if depth <= RAZOR_MAX_DEPTH.get()
            && eval + RAZOR_BASE.get() + RAZOR_MARGIN.get() * depth * depth < alpha
        {
            let score = self.quiescence(shared, node, alpha, beta);
            if score <= alpha {
                return Some(score);
            }
        }

        // Null-move pruning (+143.0, d2e6bf7, 4+0.04, hand-crafted
        // evaluation): if passing the turn still fails high at a reduced
        // depth, a real move will too. Not in check (illegal), not twice in
        // a row (the search would collapse), not with only pawns left
        // (zugzwang is common there).
        if depth >= NMP_MIN_DEPTH.get()
            && eval >= beta
            && !self.stack[node.ply].null
            && has_non_pawn_material(node.pos)
        {
            return self.null_move_search(shared, node, depth, beta, eval);
        }
        None
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
        self.stack[ply + 1] = PlyState {
            double_extensions: self.stack[ply].double_extensions,
            ..PlyState::reached_by(None, true)
        };
        let child_node = Node { pos: &child, key: child_key, ply: ply + 1 };
        let score = -self.negamax(shared, child_node, depth - 1 - reduction, -beta, -beta + 1);
        self.keys.pop();
        if shared.signals.is_stopped() || score < beta {
            return None;
        }
        Some(if is_decisive(score) { beta } else { score })
    }

    /// Shallow pruning of move `m` (not at the root, once a move has saved
    /// the node from being mated), decided before the move is made, which
    /// is the costly part. `good_noisy`: the picker handed `m` out among
    /// the captures that passed its exchange test.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn prune_move(
        &self,
        pos: &Chess,
        m: Move,
        depth: i32,
        alpha: i32,
        state: &NodeState,
        quiets_tried: usize,
        good_noisy: bool,
    ) -> MoveFate {
        // Shallow quiet-move pruning (measured with reverse futility
        // pruning's bundle): late move pruning (late quiet moves of a
        // well-ordered node rarely matter) and futility pruning (a quiet
        // move cannot lift a static evaluation this far below alpha). Both
        // hold for every later quiet move too, so the picker skips them.
        if !state.pv_node && !state.in_check && !is_noisy(m) {
            let late = depth <= LMP_MAX_DEPTH.get() && quiets_tried >= lmp_limit(depth, state.improving);
            let futile =
                depth <= FP_MAX_DEPTH.get() && state.eval + FP_BASE.get() + FP_MARGIN.get() * depth <= alpha;
            if late || futile {
                return MoveFate::SkipQuiets;
            }
        }
        // SEE pruning: near the leaves, a move that loses material in the
        // exchange on its square (more for captures, as depth grows) is not
        // worth a search. No SPRT of its own: part of 7630fbb's toolkit (see
        // razoring). A capture of the picker's good stage has passed a
        // stricter test already (an exchange at least even).
        if depth <= SEE_PRUNE_MAX_DEPTH.get() && !(is_noisy(m) && good_noisy) {
            let threshold = if is_noisy(m) {
                -SEE_NOISY_MARGIN.get() * depth * depth
            } else {
                -SEE_QUIET_MARGIN.get() * depth
            };
            if !see_ge(pos, m, threshold) {
                return MoveFate::Skip;
            }
        }
        MoveFate::Search
    }

    /// Late move reductions (+143.4 alone, d3beb61, 4+0.04, hand-crafted
    /// evaluation): well-ordered nodes rarely find their best move late,
    /// so late quiet moves are searched shallower first, and again at full
    /// depth only if they beat alpha (see `zero_window_first`). The
    /// reduction of the `index`th move (0-based) `m`, searched to `new_depth`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn late_move_reduction(
        &self,
        line: &Line,
        m: Move,
        depth: i32,
        new_depth: i32,
        index: usize,
        gives_check: bool,
        state: &NodeState,
    ) -> i32 {
        let pv_node = state.pv_node;
        if depth < LMR_MIN_DEPTH.get()
            || index < LMR_MIN_MOVES.get() as usize + usize::from(pv_node)
            || is_noisy(m)
            || state.in_check
            || gives_check
        {
            return 0;
        }
        let history = self.histories.quiet(line, m);
        (lmr_reduction(depth, index) - LMR_PV_REDUCTION.get() * i32::from(pv_node)
            + LMR_NOT_IMPROVING_REDUCTION.get() * i32::from(!state.improving)
            - history / LMR_HISTORY_DIVISOR.get())
        // At least a ply of search is left (new_depth can be 1 or less when
        // a range lets LMR start at depth 1 or 2).
        .clamp(0, (new_depth - 1).max(0))
    }
}
