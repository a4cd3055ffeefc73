//! One search thread: its own histories, PV table and key stack, and the
//! iterative-deepening loop it runs over the shared table.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use parking_lot::Mutex;

use shakmaty::{Chess, Move, Position};

use crate::history::{Histories, Line};
use crate::limits::{Limits, TimeManager};
use crate::negamax::Node;
use crate::params::{
    ASPIRATION_DELTA, ASPIRATION_MAX_DELTA, ASPIRATION_MIN_DEPTH, CHECK_EVERY_NODES, CURRMOVE_AFTER_MS,
};
use crate::pool::SearchOptions;
use crate::score::{INFINITY, MAX_PLY, is_decisive, is_mate, mate_in_moves};
use crate::tablebase::Tablebases;
use crate::tt::TranspositionTable;
use backrank_eval::nnue::{self, AccumulatorStack, Network};

/// Flags the GUI thread sets while a search runs.
#[derive(Debug, Default)]
pub struct Signals {
    stop: AtomicBool,
    pondering: AtomicBool,
    /// When `ponderhit` came: the clock runs from then.
    ponderhit_at: Mutex<Option<Instant>>,
}

impl Signals {
    /// Prepares for a new search; called by the GUI thread *before* the
    /// search starts, so that a `stop` sent right after `go` is never lost.
    pub fn reset(&self, pondering: bool) {
        self.stop.store(false, Ordering::SeqCst);
        self.pondering.store(pondering, Ordering::SeqCst);
        *self.ponderhit_at.lock() = None;
    }

    /// Asks every thread to finish now.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The opponent played the expected move: our clock runs from now on.
    pub fn ponderhit(&self) {
        *self.ponderhit_at.lock() = Some(Instant::now());
        self.pondering.store(false, Ordering::SeqCst);
    }

    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Ordering::Relaxed)
    }
}

/// What one search shares between its threads.
pub(crate) struct Shared<'a> {
    /// Told the root move the main thread starts on, its number and the depth.
    pub on_current_move: &'a (dyn Fn(Move, u32, i32) + Sync),
    pub tt: &'a TranspositionTable,
    pub tablebases: &'a Tablebases,
    pub signals: &'a Signals,
    /// Nodes of all threads, added in batches.
    pub nodes: &'a AtomicU64,
    /// Tablebase hits of all threads.
    pub tb_hits: &'a AtomicU64,
    pub limits: &'a Limits,
    /// The search's options (`MultiPV`, `Move Overhead`, ...), read whole.
    pub options: SearchOptions,
    /// The network every thread evaluates with.
    pub network: &'a Arc<Network>,
    pub time: TimeManager,
    pub start: Instant,
}

impl Shared<'_> {
    /// Time since the clock started for us (at `go`, or at `ponderhit`).
    fn clock_start(&self) -> Instant {
        self.signals.ponderhit_at.lock().map_or(self.start, |at| at.max(self.start))
    }

    /// Reports the root move the main thread starts on, once the search
    /// has run for [`CURRMOVE_AFTER_MS`] (GUIs show it; earlier it would
    /// only flood the pipe).
    pub fn report_current_move(&self, m: Move, number: u32, depth: i32) {
        if self.start.elapsed().as_millis() >= u128::from(CURRMOVE_AFTER_MS) {
            (self.on_current_move)(m, number, depth);
        }
    }

    pub fn hard_limit_reached(&self) -> bool {
        !self.signals.is_pondering() && self.time.hard_expired(self.clock_start())
    }

    /// Too late to start another iteration, with the soft target scaled
    /// by `scale_pct` percent?
    pub fn iteration_time_over(&self, scale_pct: u32) -> bool {
        !self.signals.is_pondering() && self.time.iteration_time_over(self.clock_start(), scale_pct)
    }
}

/// One of the best lines of an iteration (several with `MultiPV`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PvLine {
    pub score: i32,
    pub pv: Vec<Move>,
}

/// The result of one completed iteration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Iteration {
    pub depth: i32,
    pub seldepth: usize,
    /// The best line's score and moves.
    pub score: i32,
    pub pv: Vec<Move>,
    /// Every line searched, best first (the first is `score`, `pv`).
    pub lines: Vec<PvLine>,
}

/// What the main thread has seen of the search so far, for the time manager.
#[derive(Debug, Clone, Copy, Default)]
struct Stability {
    /// Iterations in a row that kept the best move.
    same_best: u32,
    best: Option<Move>,
    score: Option<i32>,
}

/// A search thread's own state; kept between searches (histories learn).
pub struct Worker {
    pub(crate) id: usize,
    pub(crate) histories: Histories,
    pub(crate) pv: Vec<Vec<Move>>,
    /// Keys of every position from the game's start to the current node.
    pub(crate) keys: Vec<u64>,
    /// Where the root's key stands in `keys` (the game's positions before it).
    pub(crate) root_index: usize,
    /// Nodes searched by this thread in this search.
    pub(crate) nodes: u64,
    unflushed_nodes: u64,
    pub(crate) seldepth: usize,
    pub(crate) root_moves: Vec<Move>,
    /// Root moves already reported as a better line of this iteration (`MultiPV`).
    pub(crate) root_excluded: Vec<Move>,
    /// Nodes spent below each root move (same order as `root_moves`) in
    /// this iteration.
    pub(crate) root_nodes: Vec<u64>,
    /// The current line, ply by ply.
    pub(crate) stack: [PlyState; MAX_PLY + 2],
    /// The network's accumulators along the current line, by ply.
    pub(crate) nnue: AccumulatorStack,
}

/// What the search remembers about one ply of the line being searched.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlyState {
    /// [`piece_to`](crate::history::piece_to) of the move into this ply:
    /// `None` at the root and after a null move.
    pub moved: Option<usize>,
    /// Whether the move into this ply was a null move.
    pub null: bool,
    /// The static evaluation at this ply ([`EVAL_NONE`] in check).
    pub static_eval: i32,
    /// The move a singular-extension search leaves out at this ply.
    pub excluded: Option<Move>,
    /// Double extensions on the line from the root to this ply.
    pub double_extensions: i32,
}

/// No static evaluation (the side to move was in check).
pub(crate) const EVAL_NONE: i32 = i32::MIN;

impl PlyState {
    /// A ply reached by `moved` (`None` for the root or a null move).
    pub(crate) const fn reached_by(moved: Option<usize>, null: bool) -> PlyState {
        PlyState { moved, null, static_eval: EVAL_NONE, excluded: None, double_extensions: 0 }
    }
}

impl Worker {
    pub fn new(id: usize) -> Worker {
        Worker {
            id,
            histories: Histories::default(),
            pv: vec![Vec::new(); MAX_PLY + 1],
            keys: Vec::new(),
            root_index: 0,
            nodes: 0,
            unflushed_nodes: 0,
            seldepth: 0,
            root_moves: Vec::new(),
            root_excluded: Vec::new(),
            root_nodes: Vec::new(),
            stack: [PlyState::reached_by(None, false); MAX_PLY + 2],
            nnue: AccumulatorStack::new(nnue::embedded(), MAX_PLY + 2),
        }
    }

    /// The static evaluation of `pos`, the node at `ply`: the network's,
    /// from the accumulators along the line.
    pub(crate) fn evaluate(&mut self, pos: &Chess, ply: usize) -> i32 {
        self.nnue.evaluate(ply, pos.board(), pos.turn())
    }

    /// The line to the node at `ply`, for move ordering.
    pub(crate) fn line(&self, side: shakmaty::Color, ply: usize) -> Line {
        let back = |plies: usize| if ply + 1 >= plies { self.stack[ply + 1 - plies].moved } else { None };
        Line { side, ply, previous: [back(1), back(2), back(4)] }
    }

    /// Counts a node; the main thread also looks at the clock and the node
    /// limit. Returns true when the search must stop.
    pub(crate) fn count_node(&mut self, shared: &Shared) -> bool {
        // Once stopped, nothing more is searched or counted (the root may
        // still be entered): a node limit is then exact.
        if shared.signals.is_stopped() {
            return true;
        }
        self.nodes += 1;
        self.unflushed_nodes += 1;
        if self.unflushed_nodes >= CHECK_EVERY_NODES {
            shared.nodes.fetch_add(self.unflushed_nodes, Ordering::Relaxed);
            self.unflushed_nodes = 0;
            if self.id == 0 && shared.hard_limit_reached() {
                shared.signals.stop();
            }
        }
        if self.id == 0 && shared.limits.nodes.is_some_and(|limit| self.nodes >= limit) {
            shared.signals.stop();
        }
        shared.signals.is_stopped()
    }

    fn flush_nodes(&mut self, shared: &Shared) {
        shared.nodes.fetch_add(self.unflushed_nodes, Ordering::Relaxed);
        self.unflushed_nodes = 0;
    }

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
        self.nodes = 0;
        self.unflushed_nodes = 0;
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
    /// evaluation, see reverse futility pruning in `negamax`): most
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
            if delta > ASPIRATION_MAX_DELTA {
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
        let soft_nodes = shared.limits.soft_nodes.is_some_and(|limit| self.nodes >= limit);
        mate_found || forced || soft_nodes || shared.iteration_time_over(time_scale)
    }
}
