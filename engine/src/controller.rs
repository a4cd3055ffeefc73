//! The UCI session: reads GUI lines, keeps the game and the options, and
//! hands each search to the session's search thread (see
//! [`crate::search_thread`]) so that this one stays free to answer
//! `isready` and to act on `stop` and `ponderhit` at once.

use std::io::{BufRead, Write};
use std::sync::Arc;

use backrank_search::score::{is_mate, mate_in_moves};
use backrank_search::{Clock, Limits, Progress, PvLine, Report, Search, Signals, position_keys};
use backrank_uci::notation::{format_move, parse_move, shredder_fen, x_fen};
use backrank_uci::options::OPTIONS;
use backrank_uci::{BestMove, Command, EngineOption, GoLimits, Info, Score};
use parking_lot::Mutex;
use shakmaty::{Chess, Color, Position};

use crate::game::Game;
use crate::perft::divide_report;
use crate::search_thread::SearchThread;
use crate::wdl::wdl;
use crate::{ENGINE_AUTHOR, ENGINE_NAME};

/// Writes one line to stdout and flushes it (the GUI reads line by line).
pub fn send(line: &str) {
    let mut out = std::io::stdout().lock();
    // A GUI that closed the pipe cannot be told anything: ignore the error.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// The `info` lines of a search report: one, or one per line with
/// `MultiPV` (numbered, best first). With `wdl_root` (`UCI_ShowWDL`), each
/// score comes with its win/draw/loss chances in that position.
pub fn info_lines(report: &Report, chess960: bool, wdl_root: Option<&Chess>) -> Vec<Info> {
    let millis = report.elapsed.as_millis() as u64;
    let single = [PvLine { score: report.score, pv: report.pv.clone() }];
    let lines = if report.lines.len() > 1 { report.lines.as_slice() } else { &single };
    lines
        .iter()
        .enumerate()
        .map(|(index, line)| Info {
            depth: Some(report.depth),
            seldepth: Some(report.seldepth),
            multipv: (lines.len() > 1).then_some(index as u32 + 1),
            score: Some(if is_mate(line.score) {
                Score::Mate(mate_in_moves(line.score))
            } else {
                Score::Cp(line.score)
            }),
            wdl: wdl_root.map(|root| wdl(line.score, root)),
            nodes: Some(report.nodes),
            nps: Some(report.nodes * 1000 / millis.max(1)),
            hashfull: Some(report.hashfull),
            tbhits: Some(report.tb_hits),
            time_ms: Some(millis),
            pv: line.pv.iter().map(|&m| format_move(m, chess960)).collect(),
            ..Info::default()
        })
        .collect()
}

/// A UCI session.
pub struct Controller {
    search: Arc<Mutex<Search>>,
    signals: Arc<Signals>,
    game: Game,
    chess960: bool,
    move_overhead_ms: u64,
    /// Best lines to report (`MultiPV`).
    multipv: usize,
    /// Add `wdl w d l` to scores (`UCI_ShowWDL`).
    show_wdl: bool,
    /// Runs the searches.
    searcher: SearchThread,
}

impl Default for Controller {
    fn default() -> Self {
        Self::new()
    }
}

impl Controller {
    pub fn new() -> Controller {
        let search = Arc::new(Mutex::new(Search::new(16, 1).expect("a 16 MB hash table")));
        Controller {
            searcher: SearchThread::start(Arc::clone(&search)).expect("cannot start the search thread"),
            search,
            signals: Arc::new(Signals::default()),
            game: Game::default(),
            chess960: false,
            move_overhead_ms: 10,
            multipv: 1,
            show_wdl: false,
        }
    }

    /// Reads commands until `quit` or the end of input.
    pub fn run(&mut self, input: impl BufRead) {
        let mut input = input;
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            // Bytes, not `lines()`: a line that is not UTF-8 is reported and
            // skipped rather than ending the session.
            match input.read_until(b'\n', &mut bytes) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let line = String::from_utf8_lossy(&bytes);
            if line.trim().is_empty() {
                continue;
            }
            match line.parse::<Command>() {
                Ok(Command::Quit) => break,
                Ok(command) => self.handle(command),
                Err(e) => send(&Info::string(format!("{e}; ignored")).to_string()),
            }
        }
        self.finish_search();
    }

    fn handle(&mut self, command: Command) {
        match command {
            Command::Uci => self.identify(),
            Command::IsReady => send("readyok"),
            Command::Debug(_) => {}
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::UciNewGame => {
                self.finish_search();
                self.search.lock().clear();
                self.game = Game::default();
            }
            Command::Position { start, moves } => match Game::from_command(&start, &moves) {
                Ok((game, warning)) => {
                    self.game = game;
                    if let Some(why) = warning {
                        send(&Info::string(why).to_string());
                    }
                }
                Err(e) => send(&Info::string(format!("{e}; keeping the previous position")).to_string()),
            },
            Command::Go(limits) => self.go(limits),
            Command::Stop => self.signals.stop(),
            Command::PonderHit => self.signals.ponderhit(),
            Command::Quit => self.finish_search(),
            Command::Display => self.display(),
            Command::Eval => self.eval(),
        }
    }

    fn identify(&self) {
        send(&format!("id name {ENGINE_NAME}"));
        send(&format!("id author {ENGINE_AUTHOR}"));
        for option in OPTIONS {
            send(&option.to_string());
        }
        send("uciok");
    }

    fn is_searching(&self) -> bool {
        self.searcher.is_running()
    }

    /// Stops the running search, if any, and waits for its `bestmove`.
    fn finish_search(&mut self) {
        if self.searcher.is_running() {
            self.signals.stop();
        }
        self.searcher.wait();
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let option = match EngineOption::parse(name, value) {
            Ok(option) => option,
            Err(e) => return send(&Info::string(format!("{e}; ignored")).to_string()),
        };
        let needs_search = !matches!(
            option,
            EngineOption::Ponder(_)
                | EngineOption::Chess960(_)
                | EngineOption::MoveOverheadMs(_)
                | EngineOption::MultiPv(_)
                | EngineOption::ShowWdl(_)
        );
        if needs_search && self.is_searching() {
            return send(&Info::string(format!("cannot set '{name}' while searching; ignored")).to_string());
        }
        if needs_search {
            // Joins a search that has already answered.
            self.finish_search();
        }
        match option {
            EngineOption::HashMb(mb) => {
                if let Err(e) = self.search.lock().resize_hash(mb) {
                    send(&Info::string(format!("{e}; keeping the previous table")).to_string());
                }
            }
            EngineOption::Threads(n) => self.search.lock().set_threads(n),
            EngineOption::ClearHash => self.search.lock().clear(),
            EngineOption::Ponder(_) => {}
            EngineOption::Chess960(on) => self.chess960 = on,
            EngineOption::MoveOverheadMs(ms) => self.move_overhead_ms = ms,
            EngineOption::MultiPv(lines) => self.multipv = lines,
            EngineOption::ShowWdl(on) => self.show_wdl = on,
            EngineOption::SyzygyPath(paths) => self.load_tablebases(&paths),
            EngineOption::SyzygyProbeDepth(depth) => {
                self.search.lock().tablebase_config().probe_depth = depth
            }
            EngineOption::Syzygy50MoveRule(on) => self.search.lock().tablebase_config().fifty_move_rule = on,
            EngineOption::SyzygyProbeLimit(pieces) => {
                self.search.lock().tablebase_config().probe_limit = pieces;
            }
        }
    }

    /// Loads the tables of `SyzygyPath` and says, in one line, what was found.
    fn load_tablebases(&mut self, paths: &str) {
        let mut search = self.search.lock();
        let (files, errors) = search.set_tablebase_path(paths);
        let problems = if errors.is_empty() { String::new() } else { format!(" ({})", errors.join("; ")) };
        if files > 0 {
            let pieces = search.tablebase_pieces();
            let text = format!("found {files} Syzygy table files, up to {pieces} pieces{problems}");
            send(&Info::string(text).to_string());
        } else if !paths.is_empty() {
            let text = format!("no Syzygy tables in '{paths}'{problems}; going on without them");
            send(&Info::string(text).to_string());
        }
    }

    /// The search limits of a `go`, from the side to move's view.
    fn limits_of(&self, go: &GoLimits, root: &Chess) -> Limits {
        let white = root.turn() == Color::White;
        let (time, increment) = if white { (go.wtime, go.winc) } else { (go.btime, go.binc) };
        let clock = time.map(|time_ms| Clock {
            time_ms,
            increment_ms: increment.unwrap_or(0),
            moves_to_go: go.movestogo,
        });
        let mut searchmoves = Vec::new();
        for text in &go.searchmoves {
            match parse_move(root, text) {
                Ok(m) => searchmoves.push(m),
                Err(e) => send(&Info::string(format!("searchmoves: {e}; ignored")).to_string()),
            }
        }
        // A bare `go` searches until `stop`, as in other engines.
        let unbounded = clock.is_none()
            && go.depth.is_none()
            && go.nodes.is_none()
            && go.mate.is_none()
            && go.movetime.is_none();
        Limits {
            depth: go.depth,
            nodes: go.nodes,
            mate: go.mate,
            movetime_ms: go.movetime,
            clock,
            infinite: go.infinite || unbounded,
            searchmoves,
            move_overhead_ms: self.move_overhead_ms,
            multipv: self.multipv,
        }
    }

    fn go(&mut self, go: GoLimits) {
        self.finish_search();
        let root = self.game.current().clone();
        if let Some(depth) = go.perft {
            for line in divide_report(&root, depth, self.chess960) {
                send(&line);
            }
            return;
        }
        let limits = self.limits_of(&go, &root);
        let game_keys = position_keys(self.game.history());
        let (signals, chess960) = (Arc::clone(&self.signals), self.chess960);
        // Reset before the job starts: a `stop` right after `go` must not be lost.
        signals.reset(go.ponder);
        let show_wdl = self.show_wdl;
        let job = Box::new(move |search: &mut Search| {
            let wdl_root = show_wdl.then_some(&root);
            let result = search.go(&root, &game_keys, &limits, &signals, |progress| match progress {
                Progress::Iteration(report) => {
                    for info in info_lines(report, chess960, wdl_root) {
                        send(&info.to_string());
                    }
                }
                Progress::CurrentMove { depth, m, number } => {
                    let currmove = Some((format_move(m, chess960), number));
                    send(&Info { depth: Some(depth), currmove, ..Info::default() }.to_string());
                }
            });
            if result.best.is_none() {
                let score = if is_mate(result.report.score) { Score::Mate(0) } else { Score::Cp(0) };
                send(&Info { depth: Some(0), score: Some(score), ..Info::default() }.to_string());
            } else {
                for info in info_lines(&result.report, chess960, wdl_root) {
                    send(&info.to_string());
                }
            }
            let best = BestMove {
                best: result.best.map(|m| format_move(m, chess960)),
                ponder: result.ponder.map(|m| format_move(m, chess960)),
            };
            send(&best.to_string());
        });
        if !self.searcher.run(job) {
            send(&Info::string("the search thread is gone").to_string());
            send(&BestMove::default().to_string());
        }
    }

    fn display(&self) {
        let pos = self.game.current();
        let board = pos.board();
        send("");
        for rank in (0..8).rev() {
            send(" +---+---+---+---+---+---+---+---+");
            let mut row = String::from(" |");
            for file in 0..8 {
                let sq = shakmaty::Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::new(rank));
                let c = board.piece_at(sq).map_or(' ', |p| p.char());
                row.push_str(&format!(" {c} |"));
            }
            send(&format!("{row} {}", rank + 1));
        }
        send(" +---+---+---+---+---+---+---+---+");
        send("   a   b   c   d   e   f   g   h");
        send("");
        send(&format!("Fen: {}", x_fen(pos)));
        send(&format!("Shredder-FEN: {}", shredder_fen(pos)));
        let checkers: Vec<String> = pos.checkers().into_iter().map(|sq| sq.to_string()).collect();
        send(&format!("Checkers: {}", checkers.join(" ")));
    }

    fn eval(&self) {
        let trace = backrank_eval::trace(self.game.current());
        send("         Term    |    White    |    Black    |    Total");
        send("                 |   MG    EG  |   MG    EG  |   MG    EG");
        for (name, [white, black]) in trace.rows() {
            let total = white - black;
            send(&format!(
                " {name:<15} | {:5} {:5} | {:5} {:5} | {:5} {:5}",
                white.mg, white.eg, black.mg, black.eg, total.mg, total.eg
            ));
        }
        send(&format!(" Phase           | {} of {}", trace.phase, backrank_eval::MAX_PHASE));
        send(&format!(" Endgame scale   | {} of 64", trace.scale));
        send(&format!(" Tempo           | {}", backrank_eval::TEMPO));
        send("");
        send(&format!("Final evaluation: {} (side to move)", trace.score));
    }
}
