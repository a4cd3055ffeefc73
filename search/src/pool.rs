//! The search front door: a pool of workers over one shared table (Lazy
//! SMP). The calling thread runs the main worker, which alone reports and
//! keeps the clock; persistent helpers (see [`crate::threads`]) search the
//! same tree and share what they find through the table. The move played
//! is voted on by every thread's last completed iteration.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use backrank_eval::nnue::Network;
use shakmaty::{Chess, Move, Position};

use crate::limits::{Limits, TimeManager};
use crate::params::VOTE_SCORE_OFFSET;
use crate::score::{TB_WIN, is_decisive, is_mate};
use crate::signals::Signals;
use crate::state::{Iteration, PvLine, SearchOptions, Shared, Worker};
use crate::tablebase::{TablebaseConfig, Tablebases};
use crate::threads::HelperPool;
use crate::tt::TranspositionTable;
use shakmaty_syzygy::Wdl;

/// What the search tells its caller after each iteration and at the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub depth: u32,
    pub seldepth: u32,
    /// Centipawns or a mate score (see [`crate::score`]), side to move.
    pub score: i32,
    pub nodes: u64,
    pub elapsed: Duration,
    /// Permille of the table in use.
    pub hashfull: u32,
    /// Tablebase probes that found their position.
    pub tb_hits: u64,
    pub pv: Vec<Move>,
    /// With `MultiPV`: every line, best first (the first is `score`, `pv`).
    pub lines: Vec<PvLine>,
}

/// What the search tells its caller while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress<'a> {
    /// The main thread completed an iteration.
    Iteration(&'a Report),
    /// The main thread starts on root move `m`, the `number`th of its
    /// iteration at `depth` (sent only once the search has run a while,
    /// see [`crate::params::CURRMOVE_AFTER_MS`]).
    CurrentMove { depth: u32, m: Move, number: u32 },
}

/// The outcome of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchResult {
    /// `None` only when there is no legal move.
    pub best: Option<Move>,
    /// The expected reply, to ponder on.
    pub ponder: Option<Move>,
    pub report: Report,
}

/// The searcher: table, per-thread state and settings; lives for the
/// whole session.
pub struct Search {
    tt: TranspositionTable,
    /// The worker the calling thread runs.
    main: Worker,
    helpers: HelperPool,
    tablebases: Tablebases,
    /// The network the search evaluates with.
    network: Arc<Network>,
    options: SearchOptions,
}

impl Search {
    /// A searcher with a table of `hash_mb` megabytes and `threads` threads.
    pub fn new(hash_mb: usize, threads: usize) -> Result<Search, String> {
        let mut search = Search {
            tt: TranspositionTable::new(hash_mb)?,
            main: Worker::new(0),
            helpers: HelperPool::default(),
            tablebases: Tablebases::default(),
            network: backrank_eval::nnue::embedded(),
            options: SearchOptions::default(),
        };
        search.set_threads(threads);
        Ok(search)
    }

    /// Searches with `options` from the next search on.
    pub fn set_options(&mut self, options: SearchOptions) {
        self.options = options;
    }

    /// Evaluates with `network` from the next search on.
    pub fn set_network(&mut self, network: Arc<Network>) {
        self.network = network;
    }

    /// Replaces the table with an empty one of `hash_mb` megabytes. When
    /// that size cannot be had the old table is kept, contents and all;
    /// only when the new size fits once the old table is freed does it go
    /// (and if even then it does not fit, a fresh table of the old size
    /// takes its place, and the error says so).
    pub fn resize_hash(&mut self, hash_mb: usize) -> Result<(), String> {
        TranspositionTable::check_size(hash_mb)?;
        if let Ok(tt) = TranspositionTable::new(hash_mb) {
            self.tt = tt;
            return Ok(());
        }
        let old_mb = self.tt.megabytes();
        self.tt = TranspositionTable::new(1)?;
        match TranspositionTable::new(hash_mb) {
            Ok(tt) => {
                self.tt = tt;
                Ok(())
            }
            Err(e) => {
                self.tt = TranspositionTable::new(old_mb.max(1))?;
                Err(format!("{e}; a fresh table of the old size ({old_mb} MB) is in use"))
            }
        }
    }

    /// Searches with `threads` threads (at least one): the caller's and
    /// `threads - 1` helpers, started or ended here, not per search.
    pub fn set_threads(&mut self, threads: usize) {
        self.helpers.resize(threads.max(1) - 1);
    }

    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// Loads the Syzygy tables in `paths` (see [`Tablebases::load`]),
    /// replacing any loaded before. Returns the number of table files and
    /// the folders that could not be read.
    pub fn set_tablebase_path(&mut self, paths: &str) -> (usize, Vec<String>) {
        let (tablebases, files, errors) = Tablebases::load(paths, self.tablebases.config);
        self.tablebases = tablebases;
        (files, errors)
    }

    /// The tablebase probe settings, to change.
    pub fn tablebase_config(&mut self) -> &mut TablebaseConfig {
        &mut self.tablebases.config
    }

    /// The most pieces a tablebase probe sees (0 without tables).
    pub fn tablebase_pieces(&self) -> usize {
        self.tablebases.max_pieces()
    }

    /// Forgets everything learned: table and histories (a new game).
    pub fn clear(&mut self) {
        self.tt.clear(self.threads());
        self.main.histories.clear();
        self.helpers.clear_histories();
    }

    /// Searches `root` under `limits`. `game_keys` are the keys of the
    /// positions played before `root`, oldest first (see [`position_keys`]).
    /// `on_progress` receives a report after each completed iteration of
    /// the main thread, and the root move it is on once it has run a while. The caller resets `signals` before calling; the search
    /// returns after `signals.stop()`, after a limit is reached, or, unless
    /// the search is infinite or pondering, when it has nothing left to do.
    pub fn go(
        &mut self,
        root: &Chess,
        game_keys: &[u64],
        limits: &Limits,
        signals: &Signals,
        on_progress: impl Fn(Progress) + Sync,
    ) -> SearchResult {
        let start = Instant::now();
        let mut root_moves: Vec<Move> = root.legal_moves().into_iter().collect();
        if !limits.searchmoves.is_empty() {
            root_moves.retain(|m| limits.searchmoves.contains(m));
        }
        if root_moves.is_empty() {
            wait_for_release(limits, signals);
            let report = Report {
                depth: 0,
                seldepth: 0,
                score: if root.is_check() { crate::score::mated_in(0) } else { 0 },
                nodes: 0,
                elapsed: start.elapsed(),
                hashfull: self.tt.hashfull(),
                tb_hits: 0,
                pv: Vec::new(),
                lines: Vec::new(),
            };
            return SearchResult { best: None, ponder: None, report };
        }

        self.tt.new_search();
        let nodes = AtomicU64::new(0);
        let tb_hits = AtomicU64::new(0);
        // In the tables: search only the moves that keep the best result.
        let root_result = self.tablebases.rank_root(root, &root_moves).map(|ranking| {
            tb_hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            root_moves = ranking.moves;
            ranking.wdl
        });
        let on_current_move = |m: Move, number: u32, depth: i32| {
            on_progress(Progress::CurrentMove { depth: depth as u32, m, number });
        };
        let shared = Shared {
            on_current_move: &on_current_move,
            tt: &self.tt,
            tablebases: &self.tablebases,
            signals,
            nodes: &nodes,
            tb_hits: &tb_hits,
            limits,
            options: self.options,
            network: &self.network,
            time: TimeManager::new(limits, self.options.move_overhead_ms),
            start,
        };
        let report_of = |iteration: &Iteration, main: &Worker| {
            let true_score = |score| root_result.map_or(score, |wdl| tablebase_root_score(wdl, score));
            Report {
                depth: iteration.depth as u32,
                seldepth: iteration.seldepth as u32,
                score: true_score(iteration.score),
                nodes: nodes.load(std::sync::atomic::Ordering::Relaxed).max(main.nodes),
                elapsed: start.elapsed(),
                hashfull: self.tt.hashfull(),
                tb_hits: tb_hits.load(std::sync::atomic::Ordering::Relaxed),
                pv: iteration.pv.clone(),
                lines: iteration
                    .lines
                    .iter()
                    .map(|line| PvLine { score: true_score(line.score), pv: line.pv.clone() })
                    .collect(),
            }
        };

        let main = &mut self.main;
        let (main_completed, helper_results) =
            self.helpers.search(&shared, root, game_keys, &root_moves, || {
                let completed = main.iterate(&shared, root, game_keys, &root_moves, |iteration, main| {
                    on_progress(Progress::Iteration(&report_of(iteration, main)))
                });
                // The main thread is done. An infinite or ponder search
                // still waits for the GUI (helpers search on meanwhile);
                // then the helpers stop with the main thread.
                wait_for_release(limits, signals);
                signals.stop();
                completed
            });

        let mut results: Vec<Iteration> = main_completed.into_iter().chain(helper_results).collect();
        // With several lines the report is the main thread's own.
        let chosen = if self.options.multipv > 1 { 0 } else { vote(&results) };
        let iteration = if results.is_empty() {
            Iteration {
                depth: 0,
                seldepth: 0,
                score: 0,
                pv: vec![root_moves[0]],
                lines: vec![PvLine { score: 0, pv: vec![root_moves[0]] }],
            }
        } else {
            results.swap_remove(chosen)
        };
        let report = report_of(&iteration, main);
        SearchResult { best: iteration.pv.first().copied(), ponder: iteration.pv.get(1).copied(), report }
    }
}

/// Which of the threads' last completed iterations to play (index into
/// `results`, the main thread's first if it completed one). A proven win
/// takes the shortest mate. Otherwise the threads within a ply of the
/// deepest vote: each for its best move, with its depth times its score
/// above the worst voter's (plus [`VOTE_SCORE_OFFSET`]); the deepest, then
/// first, thread playing the most-voted move is chosen (scores from two
/// plies apart do not compare). One thread: always 0.
///
/// Measured with the hand-crafted evaluation (7c2ebc4): two threads with
/// this vote against one thread, 5+0.05,
/// +98.1 +/- 33.2 Elo (200 games). The vote alone against playing the
/// main thread's move, both on two threads, 2+0.02: +6.2 +/- 31.3 after
/// 280 games (stopped unfinished: no difference shown either way).
fn vote(results: &[Iteration]) -> usize {
    if let Some((index, _)) = results
        .iter()
        .enumerate()
        .filter(|(_, it)| is_decisive(it.score) && it.score > 0)
        .max_by_key(|&(index, it)| (it.score, std::cmp::Reverse(index)))
    {
        return index;
    }
    let deepest = results.iter().map(|it| it.depth).max().unwrap_or(0);
    let voters = || results.iter().enumerate().filter(move |(_, it)| it.depth + 1 >= deepest);
    let worst = voters().map(|(_, it)| it.score).min().unwrap_or(0);
    let votes_for = |m: Option<&Move>| -> i64 {
        voters()
            .filter(|(_, it)| it.pv.first() == m)
            .map(|(_, it)| i64::from(it.score - worst + VOTE_SCORE_OFFSET) * i64::from(it.depth))
            .sum()
    };
    voters()
        .max_by_key(|&(i, it)| (votes_for(it.pv.first()), it.depth, std::cmp::Reverse(i)))
        .map_or(0, |(i, _)| i)
}

/// The score to report for a root whose tablebase result is `wdl`: the
/// search's own score when it has found the mate, else the true result.
fn tablebase_root_score(wdl: Wdl, search_score: i32) -> i32 {
    match wdl {
        Wdl::Win if !(is_mate(search_score) && search_score > 0) => TB_WIN - 1,
        Wdl::Loss if !(is_mate(search_score) && search_score < 0) => -TB_WIN + 1,
        Wdl::Win | Wdl::Loss => search_score,
        _ => 0,
    }
}

/// `go infinite` and `go ponder` must not answer before `stop` (or
/// `ponderhit`), even when the search itself has finished.
fn wait_for_release(limits: &Limits, signals: &Signals) {
    while (limits.infinite || signals.is_pondering()) && !signals.is_stopped() {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The keys of `positions`, for [`Search::go`]'s `game_keys`.
pub fn position_keys<'a>(positions: impl IntoIterator<Item = &'a Chess>) -> Vec<u64> {
    positions.into_iter().map(crate::position::key_of).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::mate_in_moves;

    use backrank_util::position;

    fn search(fen: &str, limits: &Limits, threads: usize) -> SearchResult {
        let mut search = Search::new(4, threads).unwrap();
        let signals = Signals::default();
        search.go(&position(fen), &[], limits, &signals, |_| {})
    }

    #[test]
    fn finds_mate_in_two() {
        // 1. Qxh7+ is not it; 1. Nf6+ gxf6 2. Bxf7# is.
        let result =
            search("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", &Limits::depth(5), 1);
        assert_eq!(mate_in_moves(result.report.score), 2);
        assert_eq!(result.best.unwrap().to_string(), "Nd5-f6");
    }

    #[test]
    fn node_limit_is_exact_with_one_thread() {
        let limits = Limits { nodes: Some(5000), ..Limits::default() };
        let result = search("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", &limits, 1);
        assert_eq!(result.report.nodes, 5000);
        assert!(result.best.is_some());
    }

    #[test]
    fn a_node_limit_counts_every_thread() {
        // Two threads stop near the limit in all (it was the main thread's
        // own nodes: about twice the limit in all): short of it by at
        // most the helper's unflushed nodes when the main thread stops.
        let limits = Limits { nodes: Some(200_000), ..Limits::default() };
        let result = search("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", &limits, 2);
        let nodes = result.report.nodes;
        let slack = 2 * crate::params::CHECK_EVERY_NODES;
        assert!((200_000..200_000 + slack).contains(&nodes), "{nodes} nodes");
    }

    #[test]
    fn searchmoves_restricts_the_root() {
        let root = Chess::default();
        let only = root.legal_moves().into_iter().find(|m| m.to_string() == "a2-a3").unwrap();
        let limits = Limits { depth: Some(4), searchmoves: vec![only], ..Limits::default() };
        let result = search("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", &limits, 1);
        assert_eq!(result.best, Some(only));
    }

    /// The game from `fen` after `moves` (UCI), as the positions before the
    /// last and the last.
    fn game_after(fen: &str, moves: &[&str]) -> (Vec<Chess>, Chess) {
        let mut game = vec![position(fen)];
        for uci in moves {
            let m = uci.parse::<shakmaty::uci::UciMove>().unwrap().to_move(game.last().unwrap()).unwrap();
            let mut next = game.last().unwrap().clone();
            next.play_unchecked(m);
            game.push(next);
        }
        let root = game.pop().unwrap();
        (game, root)
    }

    #[test]
    fn a_third_occurrence_in_the_game_is_a_draw_and_a_second_is_not() {
        // A queen down, White can only hope to repeat. After the shuffle
        // Kg1 Qc8 Kh1 Qb8 played twice, Kg1 stands for the third time.
        let start = "1q5k/8/8/8/8/8/8/7K w - - 0 1";
        let shuffle = ["h1g1", "b8c8", "g1h1", "c8b8"];
        let twice: Vec<&str> = shuffle.iter().chain(&shuffle).copied().collect();
        let (game, root) = game_after(start, &twice);
        let mut search = Search::new(4, 1).unwrap();
        let result = search.go(&root, &position_keys(&game), &Limits::depth(6), &Signals::default(), |_| {});
        assert_eq!(result.best.unwrap().to_string(), "Kh1-g1");
        assert!(result.report.score.abs() <= 1, "a draw, give or take the jitter: {}", result.report.score);
        // Played once, Kg1 is only its second occurrence: Black goes on
        // and wins (a repetition inside the search would be a draw, but
        // Black, to move there, avoids it).
        let (game, root) = game_after(start, &shuffle);
        let result = search.go(&root, &position_keys(&game), &Limits::depth(6), &Signals::default(), |_| {});
        assert!(result.report.score < -500, "{}", result.report.score);
        // Without the history nothing repeats.
        let result = search.go(&root, &[], &Limits::depth(6), &Signals::default(), |_| {});
        assert!(result.report.score < -500);
    }

    #[test]
    fn three_threads_take_the_hanging_queen_and_all_search() {
        // Black's queen stands on d4, attacked by the f3 knight and
        // defended by nothing: 1. Nxd4 wins a queen for nothing, and
        // every other move lets it get away.
        let root = position("rnb1kbnr/pppppppp/8/8/3q4/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1");
        let mut search = Search::new(4, 3).unwrap();
        // Deep enough (tens of milliseconds) for the helpers, which start
        // their first search cold, to take part.
        let result = search.go(&root, &[], &Limits::depth(11), &Signals::default(), |_| {});
        assert_eq!(result.best.unwrap().to_string(), "Nf3xd4");
        // Nothing recaptures on d4: White is a queen up, far more than
        // any positional score.
        assert!(result.report.score > 500, "score {}", result.report.score);
        assert!(result.report.depth >= 11, "depth {}", result.report.depth);
        // The nodes reported are every thread's: more than the main
        // thread searched by itself.
        let main_nodes = search.main.nodes;
        assert!(
            result.report.nodes > main_nodes,
            "{} reported, main thread {main_nodes}",
            result.report.nodes
        );
    }

    fn iteration(depth: i32, score: i32, best: &str) -> Iteration {
        let m = Chess::default().legal_moves().into_iter().find(|m| m.to_string() == best).unwrap();
        Iteration { depth, seldepth: 0, score, pv: vec![m], lines: vec![PvLine { score, pv: vec![m] }] }
    }

    #[test]
    fn the_vote_follows_depth_and_score() {
        // Alone, the main thread decides.
        assert_eq!(vote(&[iteration(9, 20, "e2-e4")]), 0);
        // Two deeper, better helpers agreeing outvote it; the deepest of them plays.
        let results = [iteration(10, 20, "e2-e4"), iteration(11, 45, "d2-d4"), iteration(10, 40, "d2-d4")];
        assert_eq!(vote(&results), 1);
        // A helper two plies shallower has no vote, however it scores.
        let results = [iteration(12, 20, "e2-e4"), iteration(10, 90, "d2-d4")];
        assert_eq!(vote(&results), 0);
        // One ply shallower it has, and a clearly better score carries it.
        let results = [iteration(12, 20, "e2-e4"), iteration(11, 40, "d2-d4")];
        assert_eq!(vote(&results), 1);
        // Equal votes: the main thread keeps its move.
        let results = [iteration(10, 20, "e2-e4"), iteration(10, 20, "d2-d4")];
        assert_eq!(vote(&results), 0);
        // A proven mate wins outright, the shortest first.
        let results = [
            iteration(20, 300, "e2-e4"),
            iteration(8, crate::score::MATE - 9, "d2-d4"),
            iteration(8, crate::score::MATE - 5, "Ng1-f3"),
        ];
        assert_eq!(vote(&results), 2);
    }

    #[test]
    fn threads_change_between_searches() {
        let mut search = Search::new(4, 1).unwrap();
        let root = position("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
        for threads in [4, 2, 2, 1, 3] {
            search.set_threads(threads);
            assert_eq!(search.threads(), threads);
            let result = search.go(&root, &[], &Limits::depth(7), &Signals::default(), |_| {});
            assert!(root.is_legal(result.best.unwrap()));
            // The vote may choose a helper one ply short of the deepest
            // (see `vote`): a stopped helper's last iteration can be 6.
            assert!(result.report.depth >= 6, "{threads} threads: depth {}", result.report.depth);
            search.clear();
        }
    }

    #[test]
    fn no_legal_move() {
        let result =
            search("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", &Limits::depth(3), 1);
        assert_eq!(result.best, None);
        assert_eq!(mate_in_moves(result.report.score), 0);
    }
}
