//! One search thread's iterative deepening over the shared table: the
//! `MultiPV` lines of each depth, aspiration windows, and the time
//! manager's view of how the search goes.

use std::sync::Arc;

use shakmaty::{Chess, Move};

use crate::params::{ASPIRATION_DELTA, ASPIRATION_MAX_DELTA, ASPIRATION_MIN_DEPTH};
use crate::score::{INFINITY, is_decisive, is_mate, mate_in_moves};
use crate::state::{Iteration, Node, PlyState, PvLine, Shared, Worker};

/// What the main thread has seen of the search so far, for the time manager.
#[derive(Debug, Clone, Copy, Default)]
struct Stability {
    /// Iterations in a row that kept the best move.
    same_best: u32,
    best: Option<Move>,
    score: Option<i32>,
}

impl Worker {
    /// Iterative deepening from `root`. `game_keys` are the keys of the
    /// positions before the root (for repetitions). `on_iteration` is called
    /// by the main thread after each completed iteration. Returns the last
    /// completed iteration, if any.
    pub(crate) fn iterate(
        &mut self,
        shared: &Shared,
        root: &Chess,
        game_keys: &[u64],
        root_moves: &[Move],
        mut on_iteration: impl FnMut(&Iteration, &Worker),
    ) -> Option<Iteration> {
        self.reset_nodes();
        self.histories.clear_killers();
        self.nnue.set_network(Arc::clone(shared.network));
        self.root_moves = root_moves.to_vec();
        self.keys.clear();
        self.keys.extend_from_slice(game_keys);
        self.root_index = self.keys.len();
        let root_key = crate::position::key_of(root);
        self.keys.push(root_key);
        self.stack[0] = PlyState::reached_by(None, false);

        let mut completed: Option<Iteration> = None;
        let mut stability = Stability::default();
        let max_depth = shared.limits.max_depth();
        for iteration_depth in 1..=max_depth {
            // Lazy SMP: odd helpers search one ply deeper, so that the
            // threads spread over two depths and fill the table for each other.
            let depth = (iteration_depth + (self.id % 2) as i32).min(max_depth);
            self.seldepth = 0;
            self.root_nodes = vec![0; self.root_moves.len()];
            let nodes_before = self.nodes;
            let Some(lines) = self.search_lines(shared, root, root_key, depth, completed.as_ref()) else {
                break;
            };
            let best = &lines[0];
            let iteration = Iteration {
                depth,
                seldepth: self.seldepth,
                score: best.score,
                pv: best.pv.clone(),
                lines: lines.clone(),
            };
            if self.id == 0 {
                self.flush_nodes(shared);
                on_iteration(&iteration, self);
            }
            let time_scale = self.time_scale_pct(&mut stability, &iteration, self.nodes - nodes_before);
            completed = Some(iteration);
            if shared.signals.is_stopped()
                || self.id == 0 && self.iteration_ends_search(shared, best.score, time_scale)
            {
                break;
            }
        }
        self.flush_nodes(shared);
        completed
    }

    /// The `MultiPV` best lines at `depth`, best first: each searched
    /// without the root moves of the lines before it. `None` when the
    /// search was stopped before the first line was done (and an earlier
    /// iteration exists to fall back on) or found no move.
    fn search_lines(
        &mut self,
        shared: &Shared,
        root: &Chess,
        root_key: u64,
        depth: i32,
        previous: Option<&Iteration>,
    ) -> Option<Vec<PvLine>> {
        let wanted = shared.options.multipv.clamp(1, self.root_moves.len().max(1));
        self.root_excluded.clear();
        let mut lines: Vec<PvLine> = Vec::with_capacity(wanted);
        for index in 0..wanted {
            let last_score = previous.and_then(|it| it.lines.get(index)).map(|line| line.score);
            let (score, usable) = self.aspiration_search(shared, root, root_key, depth, last_score);
            let stopped = shared.signals.is_stopped();
            if stopped && !usable && (previous.is_some() || index > 0) {
                break;
            }
            let pv = self.pv[0].clone();
            if pv.is_empty() {
                break;
            }
            self.root_excluded.push(pv[0]);
            lines.push(PvLine { score, pv });
            if stopped {
                break;
            }
        }
        self.root_excluded.clear();
        if lines.is_empty() {
            return None;
        }
        // A later line can come out better than an earlier one (the
        // search is not exact): report them sorted.
        lines.sort_by_key(|line| std::cmp::Reverse(line.score));
        Some(lines)
    }

    /// How much of the soft time target this search should use after
    /// `iteration`, in percent: more while the best move keeps changing,
    /// after a score drop, and when the best move took a small share of
    /// the nodes (the others were close); less when all is calm. Spends
    /// the same time per move on average as the unscaled soft target, only
    /// where it matters more (+20.4, 7c764e8: 4+0.04, [0, 10], 1024 games,
    /// hand-crafted evaluation).
    fn time_scale_pct(&self, stability: &mut Stability, iteration: &Iteration, iteration_nodes: u64) -> u32 {
        let best = iteration.pv[0];
        stability.same_best = if stability.best == Some(best) { stability.same_best + 1 } else { 0 };
        stability.best = Some(best);
        let score_drop = stability.score.map_or(0, |last| last - iteration.score);
        stability.score = Some(iteration.score);
        let best_nodes = self.root_moves.iter().position(|&m| m == best).map_or(0, |i| self.root_nodes[i]);
        let share_pct = (best_nodes * 100 / iteration_nodes.max(1)) as u32;
        crate::limits::soft_scale_pct(stability.same_best, score_drop, share_pct)
    }

    /// Searches the root in a narrow window around the previous iteration's
    /// score, widening it on each failure (aspiration windows; no SPRT of
    /// their own, part of a2aff2f's +341.9 bundle with the hand-crafted
    /// evaluation, see reverse futility pruning in `pruning`): most
    /// iterations confirm the last one, and a narrow window cuts more.
    /// Returns the score and whether it is usable: searched to the end, or
    /// a fail-high whose re-search the stop cut short (Ethereal plays that
    /// move too).
    fn aspiration_search(
        &mut self,
        shared: &Shared,
        root: &Chess,
        root_key: u64,
        depth: i32,
        previous: Option<i32>,
    ) -> (i32, bool) {
        let mut delta = ASPIRATION_DELTA.get();
        let (mut alpha, mut beta) = match previous {
            Some(score) if depth >= ASPIRATION_MIN_DEPTH.get() && !is_decisive(score) => {
                (score - delta, score + delta)
            }
            _ => (-INFINITY, INFINITY),
        };
        // The last fail-high of this depth: its score (a lower bound) and line.
        let mut fail_high: Option<(i32, Vec<Move>)> = None;
        loop {
            let score = self.negamax(shared, Node { pos: root, key: root_key, ply: 0 }, depth, alpha, beta);
            if shared.signals.is_stopped() {
                // Stopped while re-searching a fail-high: its move has
                // proved better than the last iteration's, so keep it. A
                // soundness fix (see `negamax`'s module note).
                return match fail_high {
                    Some((score, pv)) => {
                        self.pv[0] = pv;
                        (score, true)
                    }
                    None => (score, false),
                };
            }
            if score > alpha && score < beta {
                return (score, true);
            }
            // A fail-low after it refutes an earlier fail-high.
            fail_high = (score >= beta && !self.pv[0].is_empty()).then(|| (score, self.pv[0].clone()));
            delta *= 2;
            if delta > ASPIRATION_MAX_DELTA.get() {
                (alpha, beta) = (-INFINITY, INFINITY);
            } else if score <= alpha {
                alpha = (score - delta).max(-INFINITY);
            } else {
                beta = (score + delta).min(INFINITY);
            }
        }
    }

    /// After an iteration of the main thread: is the search over?
    /// `time_scale` stretches the soft time target (percent).
    fn iteration_ends_search(&self, shared: &Shared, score: i32, time_scale: u32) -> bool {
        let mate_found = shared
            .limits
            .mate
            .is_some_and(|moves| score > 0 && is_mate(score) && mate_in_moves(score) <= moves as i32);
        // One legal move: no need to think (unless the GUI wants us to).
        let forced = self.root_moves.len() == 1 && shared.time.soft.is_some();
        let soft_nodes = shared.limits.soft_nodes.is_some_and(|limit| self.search_nodes(shared) >= limit);
        mate_found || forced || soft_nodes || shared.iteration_time_over(time_scale)
    }
}
