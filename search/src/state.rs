//! The types every part of the search shares, in one leaf so that the
//! search's files form a line: this, then `pruning`, `quiescence` and
//! `negamax` (the tree), then `worker` (iterative deepening), `threads`
//! and `pool` (the front door).
//!
//! * [`Shared`]: what one search shares between its threads;
//! * [`Worker`]: a search thread's own state, and the small steps every
//!   node takes (counting, evaluating, the rules' draws);
//! * [`Node`], [`NodeState`], [`PlyState`]: a node, what it knows before
//!   its moves, and what the line remembers of each ply;
//! * [`play`], [`tt_cutoff`], [`bound_of`]: the steps `negamax` and
//!   `quiescence` both take.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use shakmaty::{Chess, Move, Position};

use backrank_eval::nnue::{self, AccumulatorStack, Network};

use crate::correction::CorrectionKeys;
use crate::history::{Histories, Line};
use crate::limits::{Limits, TimeManager};
use crate::params::{CHECK_EVERY_NODES, CURRMOVE_AFTER_MS};
use crate::position::{is_insufficient_material, key_after, key_of};
use crate::score::MAX_PLY;
use crate::signals::Signals;
use crate::tablebase::Tablebases;
use crate::tt::{Bound, TranspositionTable};

/// Settings of every search until changed: the UCI options that shape a
/// search without being one of its limits. Every search thread reads them
/// whole (`Shared::options`): a new one is a field here, set by its row of
/// the engine's option table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchOptions {
    /// `Move Overhead`: milliseconds kept back for the GUI and the pipe.
    pub move_overhead_ms: u64,
    /// `MultiPV`: best lines to find; 0 counts as 1.
    pub multipv: usize,
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
        self.signals.ponderhit_at().map_or(self.start, |at| at.max(self.start))
    }

    /// Reports the root move the main thread starts on, once the search
    /// has run for [`CURRMOVE_AFTER_MS`] (GUIs show it; earlier it would
    /// only flood the pipe).
    pub fn report_current_move(&self, m: Move, number: u32, depth: i32) {
        if self.start.elapsed().as_millis() >= u128::from(CURRMOVE_AFTER_MS) {
            (self.on_current_move)(m, number, depth);
        }
    }

    /// Whether the clock's hard limit has passed (never while pondering).
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
    /// Centipawns or a mate score, side to move's view.
    pub score: i32,
    /// The line's moves from the root.
    pub pv: Vec<Move>,
}

/// The result of one completed iteration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Iteration {
    pub depth: i32,
    pub seldepth: usize,
    /// The best line's score and moves.
    pub score: i32,
    pub pv: Vec<Move>,
    /// Every line searched, best first (the first is `score`, `pv`).
    pub lines: Vec<PvLine>,
}

/// A node of the tree: its position, its key (already on the key stack),
/// and its distance from the root.
#[derive(Clone, Copy)]
pub(crate) struct Node<'a> {
    pub pos: &'a Chess,
    pub key: u64,
    pub ply: usize,
}

/// What a node knows before its moves are searched.
pub(crate) struct NodeState {
    pub pv_node: bool,
    pub in_check: bool,
    /// The network's static evaluation (what the table stores; `DRAW` in check).
    pub raw_eval: i32,
    /// The position's correction-history slots.
    pub keys: CorrectionKeys,
    /// The static evaluation (a draw score in check).
    pub static_eval: i32,
    /// The static evaluation refined by the table's score.
    pub eval: i32,
    /// The static evaluation beats the one a move ago.
    pub improving: bool,
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

impl Worker {
    /// Thread `id`'s state (0 is the main thread), with empty histories.
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
            self.flush_nodes(shared);
            if self.id == 0 && shared.hard_limit_reached() {
                shared.signals.stop();
            }
        }
        // Any thread may end a node-limited search: the main thread alone,
        // descheduled on a busy machine, let a helper run thousands of
        // nodes past the limit.
        if shared.limits.nodes.is_some_and(|limit| self.search_nodes(shared) >= limit) {
            shared.signals.stop();
        }
        shared.signals.is_stopped()
    }

    /// The nodes of every thread so far, as this thread sees them: the
    /// flushed total and its own unflushed nodes. Exact with one thread;
    /// with more, short by the helpers' unflushed nodes (fewer than
    /// [`CHECK_EVERY_NODES`] each), so that `go nodes N` stops near N
    /// nodes in all, as in Stockfish.
    pub(crate) fn search_nodes(&self, shared: &Shared) -> u64 {
        shared.nodes.load(Ordering::Relaxed) + self.unflushed_nodes
    }

    /// Starts the count of a new search.
    pub(crate) fn reset_nodes(&mut self) {
        self.nodes = 0;
        self.unflushed_nodes = 0;
    }

    /// Adds the nodes not yet counted to the search's total.
    pub(crate) fn flush_nodes(&mut self, shared: &Shared) {
        shared.nodes.fetch_add(self.unflushed_nodes, Ordering::Relaxed);
        self.unflushed_nodes = 0;
    }

    /// Whether the current node (its key the last pushed), `pos`, is drawn
    /// by rule: insufficient material, a repetition (see
    /// [`Worker::is_repetition`]) or the fifty-move rule, unless the move
    /// that reached the hundredth half-move mated. A soundness fix of
    /// issue 25 in quiescence (see `negamax`'s module note).
    pub(crate) fn is_draw_by_rule(&self, pos: &Chess) -> bool {
        is_insufficient_material(pos)
            || self.is_repetition(pos.halfmoves())
            || pos.halfmoves() >= 100 && !(pos.is_check() && pos.legal_moves().is_empty())
    }

    /// True if the current node (the last key pushed) is a draw by
    /// repetition as the search counts it: it repeats a position of the
    /// search's own line (the root included: the side to move can choose
    /// to repeat again), or it stands for the third time in the game.
    /// Only positions since the last irreversible move can repeat. A
    /// soundness fix (see `negamax`'s module note).
    pub(crate) fn is_repetition(&self, halfmoves: u32) -> bool {
        let current = self.keys.len() - 1;
        let key = self.keys[current];
        let reach = (halfmoves as usize).min(current);
        let mut in_the_game = 0;
        for back in (4..=reach).step_by(2) {
            let index = current - back;
            if self.keys[index] == key {
                if index >= self.root_index {
                    return true;
                }
                in_the_game += 1;
                if in_the_game == 2 {
                    return true;
                }
            }
        }
        false
    }

    /// The score of a draw by rule: 0 give or take 1, varied by the node
    /// count, so that the search does not take every path into a
    /// repetition for equal and stop looking past them (as Ethereal and
    /// Stockfish do). A soundness fix (see `negamax`'s module note).
    pub(crate) fn draw_score(&self) -> i32 {
        1 - (self.nodes & 2) as i32
    }
}

/// The position after `m` and its key. The key comes first, so that the
/// child's table bucket is on its way from memory while the move is made.
pub(crate) fn play(shared: &Shared, pos: &Chess, key: u64, m: Move) -> (Chess, u64) {
    let child_key = key_after(pos, key, m);
    if let Some(child_key) = child_key {
        shared.tt.prefetch(child_key);
    }
    let mut child = pos.clone();
    child.play_unchecked(m);
    let child_key = child_key.unwrap_or_else(|| key_of(&child));
    (child, child_key)
}

/// Whether a stored score with `bound` decides a node with window (alpha, beta).
pub(crate) fn tt_cutoff(bound: Bound, score: i32, alpha: i32, beta: i32) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    }
}

/// The bound a node's best score proves, given the window it was searched with.
pub(crate) fn bound_of(best_score: i32, original_alpha: i32, beta: i32) -> Bound {
    if best_score >= beta {
        Bound::Lower
    } else if best_score > original_alpha {
        Bound::Exact
    } else {
        Bound::Upper
    }
}
