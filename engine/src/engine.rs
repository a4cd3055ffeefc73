//! The engine's one front door: the game, the options, the search and its
//! thread behind a small API. The UCI controller parses lines and prints
//! through it; `bench`, `perft`, `datagen` and `genfens` use it too.
//!
//! A `go` runs on the session's search thread and reports through a
//! callback ([`Event`]), so that the caller stays free to answer `isready`
//! and to `stop` or `ponderhit` at once; [`Engine::think`] searches on the
//! caller's thread instead, for the tools.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use backrank_eval::nnue;
use backrank_search::{
    Clock, Limits, Progress, Report, Search, SearchOptions, SearchResult, Signals, position_keys,
};
use backrank_uci::notation::parse_move;
use backrank_uci::{GoLimits, PositionStart};
use parking_lot::{Mutex, MutexGuard};
use shakmaty::{Chess, Color, Move, Position};

use crate::game::Game;
use crate::options::{self, DEFAULT_HASH_MB, Setting};
use crate::search_thread::SearchThread;
use crate::strength::Strength;

/// The options that shape a search or its report, kept here so that they
/// can change while a search runs: the search takes its own
/// ([`SearchOptions`]) at each `go`. (The rest live in the search itself:
/// table, threads, tablebases.)
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// `UCI_Chess960`: castling written king-takes-rook.
    pub chess960: bool,
    /// `Move Overhead` and `MultiPV`.
    pub search: SearchOptions,
    /// `UCI_ShowWDL`.
    pub show_wdl: bool,
    /// `UCI_LimitStrength`, `UCI_Elo` and `Skill Level`.
    pub strength: Strength,
}

/// What a `go` reports: its warnings on the caller's thread before the
/// search starts, the rest on the search thread.
pub enum Event<'a> {
    /// Something wrong with the `go` command (a `searchmoves` move that is
    /// not legal here), reported before the search starts.
    Warning(&'a str),
    /// A completed iteration.
    Iteration(&'a Report),
    /// The main thread starts on root move `number` (1-based) at `depth`.
    CurrentMove { depth: u32, m: Move, number: u32 },
    /// The search is over; the engine counts as idle from here on.
    Done(&'a SearchResult),
}

/// A session's engine.
///
/// Its searches run on a [`SearchThread`], a layer over the search crate's
/// own threads: [`Search::go`] searches on the thread that calls it (as
/// `bench`, `datagen` and [`Engine::think`] want), and the session needs
/// it to run elsewhere so that its input loop stays free.
pub struct Engine {
    search: Arc<Mutex<Search>>,
    /// The network the search evaluates with, kept here too so that `eval`
    /// reads it without the search's lock, which a running `go` holds.
    network: Arc<nnue::Network>,
    signals: Arc<Signals>,
    game: Game,
    settings: Settings,
    searcher: SearchThread,
    /// Set by a search job just before it reports [`Event::Done`]: from then
    /// on the GUI may treat the engine as idle, though the job is ending.
    answered: Arc<AtomicBool>,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

impl Engine {
    /// An engine with every option at its default (applied from the table).
    pub fn new() -> Engine {
        let search = Arc::new(Mutex::new(Search::new(DEFAULT_HASH_MB, 1).expect("a 16 MB hash table")));
        let mut engine = Engine {
            searcher: SearchThread::start(Arc::clone(&search)).expect("cannot start the search thread"),
            search,
            network: nnue::embedded(),
            signals: Arc::new(Signals::default()),
            game: Game::default(),
            settings: Settings::default(),
            answered: Arc::new(AtomicBool::new(true)),
        };
        for option in options::all() {
            if let Some(default) = option.spec.default_value() {
                engine.apply(option.setting(&default));
            }
        }
        engine
    }

    /// The options in force that shape searches and reports.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The search, locked (only while no `go` runs, or it waits for it).
    fn search(&self) -> MutexGuard<'_, Search> {
        self.search.lock()
    }

    /// `setoption`: `Ok(Some(text))` when there is something to say.
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<Option<String>, String> {
        let option = options::find(name).ok_or_else(|| format!("unknown option '{name}'"))?;
        let value = option.spec.parse_value(value).map_err(|e| e.to_string())?;
        if option.needs_idle {
            self.when_idle(option.spec.name)?;
        }
        Ok(self.apply(option.setting(&value)))
    }

    /// Carries out an option's setting (the search idle where the row
    /// says so); `Some(text)` is said as `info string`.
    pub fn apply(&mut self, setting: Setting) -> Option<String> {
        match setting {
            Setting::Hash(mb) => return self.resize_hash(mb),
            Setting::Threads(threads) => self.search().set_threads(threads),
            Setting::ClearHash => self.search().clear(),
            Setting::Nothing => {}
            Setting::Chess960(on) => self.settings.chess960 = on,
            Setting::MoveOverheadMs(ms) => self.settings.search.move_overhead_ms = ms,
            Setting::MultiPv(lines) => self.settings.search.multipv = lines,
            Setting::ShowWdl(on) => self.settings.show_wdl = on,
            Setting::LimitStrength(on) => self.settings.strength.limit = on,
            Setting::Elo(elo) => self.settings.strength.elo = elo,
            Setting::SkillLevel(skill) => self.settings.strength.skill = skill,
            Setting::EvalFile(path) => return self.load_network(&path),
            Setting::SyzygyPath(paths) => return self.load_tablebases(&paths),
            Setting::SyzygyProbeDepth(depth) => self.search().tablebase_config().probe_depth = depth,
            Setting::Syzygy50MoveRule(on) => self.search().tablebase_config().fifty_move_rule = on,
            Setting::SyzygyProbeLimit(pieces) => self.search().tablebase_config().probe_limit = pieces,
            #[cfg(feature = "spsa")]
            Setting::Tunable(tunable, value) => tunable.set(value),
        }
        None
    }

    /// Readies the engine for something that needs the search idle
    /// (`what`, named in the error): joins a search that has answered or
    /// that has been told to stop, and refuses while one runs on, since
    /// waiting for it would stall every command behind this one.
    pub fn when_idle(&mut self, what: &str) -> Result<(), String> {
        if self.is_searching() && !self.signals.is_stopped() {
            return Err(format!("{what}: not while searching (send stop first)"));
        }
        self.wait();
        Ok(())
    }

    /// `Hash`: a new table; a size that cannot be had keeps the old one.
    fn resize_hash(&mut self, mb: usize) -> Option<String> {
        self.search().resize_hash(mb).err()
    }

    /// `EvalFile`: loads a network (empty: the embedded one); a file that
    /// cannot be used leaves the current network in place.
    fn load_network(&mut self, path: &str) -> Option<String> {
        let (network, text) = if path.is_empty() {
            let changed = self.network.name != "embedded";
            (nnue::embedded(), changed.then(|| "EvalFile: using the embedded network".to_string()))
        } else {
            match nnue::Network::load(path) {
                Ok(net) => {
                    let text = format!("EvalFile: loaded {}", net.name);
                    (Arc::new(net), Some(text))
                }
                Err(e) => return Some(format!("EvalFile: {e}; keeping {}", self.network.name)),
            }
        };
        self.search().set_network(Arc::clone(&network));
        self.network = network;
        text
    }

    /// The network the search evaluates with (never waits for a search).
    pub fn network(&self) -> &nnue::Network {
        &self.network
    }

    /// `SyzygyPath`: loads the tables and says, in one line, what was found.
    fn load_tablebases(&mut self, paths: &str) -> Option<String> {
        let mut search = self.search();
        let (files, errors) = search.set_tablebase_path(paths);
        let problems = if errors.is_empty() { String::new() } else { format!(" ({})", errors.join("; ")) };
        if files > 0 {
            let pieces = search.tablebase_pieces();
            Some(format!("found {files} Syzygy table files, up to {pieces} pieces{problems}"))
        } else if !paths.is_empty() {
            Some(format!("no Syzygy tables in '{paths}'{problems}; going on without them"))
        } else {
            None
        }
    }

    /// `ucinewgame`: a fresh game and a cleared table.
    pub fn new_game(&mut self) {
        self.wait();
        self.search().clear();
        self.game = Game::default();
    }

    /// `position`: `Ok(Some(why))` when the move list had to be cut short;
    /// an error (a bad FEN) keeps the previous position.
    pub fn set_position(
        &mut self,
        start: &PositionStart,
        moves: &[String],
    ) -> Result<Option<String>, String> {
        let (game, warning) = Game::from_command(start, moves)?;
        self.game = game;
        Ok(warning)
    }

    /// Starts the game over from `pos` (the tools' way in).
    pub fn set_root(&mut self, pos: Chess) {
        self.game = Game::from_position(pos);
    }

    /// Plays a legal move in the current game.
    pub fn play(&mut self, m: Move) {
        self.game.play(m);
    }

    /// The position to move in.
    pub fn position(&self) -> &Chess {
        self.game.current()
    }

    /// The game's positions before the current one since the last
    /// irreversible move (those a repetition can come from).
    pub fn history(&self) -> &[Chess] {
        self.game.history()
    }

    /// How often the current position stood before in the game.
    pub fn repetitions(&self) -> usize {
        self.game.repetitions()
    }

    /// `go perft`: a `move: count` line per root move of the current
    /// position, then `Nodes searched: N` (moves written as `UCI_Chess960` says).
    pub fn perft(&mut self, depth: u32) -> Vec<String> {
        self.wait();
        crate::perft::divide_report(self.game.current(), depth, self.settings.chess960)
    }

    /// `genfens`: `count` distinct random openings for `seed`, from `book`
    /// if there is one (see [`crate::genfens`]).
    pub fn genfens(&self, count: u64, seed: u64, book: Option<&str>) -> Result<Vec<String>, String> {
        crate::genfens::openings(count, seed, book)
    }

    /// Searches the current position on the caller's thread.
    pub fn think(&mut self, limits: &Limits) -> SearchResult {
        self.wait();
        let keys = position_keys(self.game.history());
        self.signals.reset(false);
        let mut search = self.search();
        search.set_options(self.settings.search);
        search.go(self.game.current(), &keys, limits, &self.signals, |_| {})
    }

    /// The search limits of a `go`, from the side to move's view, and what
    /// was wrong with it: moves of `searchmoves` that are not legal here
    /// are left out.
    pub fn limits_of(&self, go: &GoLimits) -> (Limits, Vec<String>) {
        let root = self.game.current();
        let white = root.turn() == Color::White;
        let (time, increment) = if white { (go.wtime, go.winc) } else { (go.btime, go.binc) };
        let clock = time.map(|time_ms| Clock {
            time_ms,
            increment_ms: increment.unwrap_or(0),
            moves_to_go: go.movestogo,
        });
        let (mut searchmoves, mut warnings) = (Vec::new(), Vec::new());
        for text in &go.searchmoves {
            match parse_move(root, text) {
                Ok(m) => searchmoves.push(m),
                Err(e) => warnings.push(format!("searchmoves: {e}; ignored")),
            }
        }
        // A bare `go` searches until `stop`, as in other engines.
        let unbounded = clock.is_none()
            && go.depth.is_none()
            && go.nodes.is_none()
            && go.mate.is_none()
            && go.movetime.is_none();
        let limits = Limits {
            depth: go.depth,
            nodes: go.nodes,
            soft_nodes: None,
            mate: go.mate,
            movetime_ms: go.movetime,
            clock,
            infinite: go.infinite || unbounded,
            searchmoves,
        };
        (limits, warnings)
    }

    /// `go`: searches on the search thread, reporting to `on_event`; a
    /// running search is stopped first. What was wrong with the limits
    /// ([`Engine::limits_of`]) is reported first, as [`Event::Warning`]s,
    /// so that it comes before the search's own reports. Fails if the
    /// search thread is gone (then no search is reported).
    pub fn go(
        &mut self,
        go: &GoLimits,
        on_event: impl Fn(Event) + Send + Sync + 'static,
    ) -> Result<(), String> {
        self.wait();
        let root = self.game.current().clone();
        let (limits, warnings) = self.limits_of(go);
        warnings.iter().for_each(|warning| on_event(Event::Warning(warning)));
        let game_keys = position_keys(self.game.history());
        let signals = Arc::clone(&self.signals);
        // Reset before the job starts: a `stop` right after `go` must not be lost.
        signals.reset(go.ponder);
        self.answered.store(false, Ordering::SeqCst);
        let answered = Arc::clone(&self.answered);
        let mut options = self.settings.search;
        // A playing level searches its node budget over several lines and
        // then chooses among them (see `crate::strength`).
        let level = self.settings.strength.level();
        let limits = match level {
            Some(level) => {
                options.multipv = options.multipv.max(level.lines());
                level.limits(limits)
            }
            None => limits,
        };
        let seed = position_keys([&root])[0];
        let job = Box::new(move |search: &mut Search| {
            search.set_options(options);
            let result = search.go(&root, &game_keys, &limits, &signals, |progress| match progress {
                Progress::Iteration(report) => on_event(Event::Iteration(report)),
                Progress::CurrentMove { depth, m, number } => {
                    on_event(Event::CurrentMove { depth, m, number })
                }
            });
            let result = match level {
                Some(level) => level.choose(result, seed),
                None => result,
            };
            answered.store(true, Ordering::SeqCst);
            on_event(Event::Done(&result));
        });
        if self.searcher.run(job) { Ok(()) } else { Err("the search thread is gone".into()) }
    }

    /// `stop`: the running search ends and answers.
    pub fn stop(&self) {
        self.signals.stop();
    }

    /// `ponderhit`: the pondering search goes on as a normal one.
    pub fn ponderhit(&self) {
        self.signals.ponderhit();
    }

    /// A search is running and has not answered yet.
    pub fn is_searching(&self) -> bool {
        self.searcher.is_running() && !self.answered.load(Ordering::SeqCst)
    }

    /// Stops the running search, if any, and waits until it has answered.
    pub fn wait(&mut self) {
        if self.searcher.is_running() {
            self.signals.stop();
        }
        self.searcher.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_apply_and_defaults_are_in_force() {
        let mut engine = Engine::new();
        assert_eq!(
            engine.settings(),
            &Settings {
                chess960: false,
                search: SearchOptions { move_overhead_ms: 10, multipv: 1 },
                show_wdl: false,
                strength: Strength { limit: false, elo: 1500, skill: 20 },
            }
        );
        assert_eq!(engine.set_option("UCI_LimitStrength", Some("true")), Ok(None));
        assert_eq!(engine.set_option("UCI_Elo", Some("2000")), Ok(None));
        assert_eq!(engine.set_option("Skill Level", Some("5")), Ok(None));
        assert_eq!(engine.settings().strength, Strength { limit: true, elo: 2000, skill: 5 });
        assert_eq!(engine.set_option("uci_chess960", Some("true")), Ok(None));
        assert_eq!(engine.set_option("MultiPV", Some("3")), Ok(None));
        assert!(engine.settings().chess960 && engine.settings().search.multipv == 3);
        assert!(engine.set_option("MultiPV", Some("0")).is_err());
        assert!(engine.set_option("Contempt", Some("10")).is_err());
        assert!(engine.set_option("EvalFile", Some("/no/such.nnue")).unwrap().unwrap().contains("keeping"));
    }

    #[test]
    fn think_searches_the_game_position() {
        // After 1. f3 e5 2. g4 only Black's Qh4 mates: the search must be
        // of the position the moves lead to, with Black to move.
        let mut engine = Engine::new();
        let moves: Vec<String> = ["f2f3", "e7e5", "g2g4"].iter().map(|s| s.to_string()).collect();
        engine.set_position(&PositionStart::StartPos, &moves).unwrap();
        let result = engine.think(&Limits::depth(3));
        assert_eq!(result.best.unwrap().to_string(), "Qd8-h4");
        assert_eq!(backrank_search::score::mate_in_moves(result.report.score), 1);
        engine.play(result.best.unwrap());
        assert!(engine.position().is_checkmate());
    }
}

/// Run alone (`cargo test -p backrank --features spsa --lib -- spsa_`):
/// they change values that every search in the process reads.
#[cfg(all(test, feature = "spsa"))]
mod spsa_tests {
    use super::*;
    use backrank_search::params::RFP_MARGIN;

    #[test]
    fn spsa_tunables_are_set_and_checked_as_options() {
        let mut engine = Engine::new();
        assert_eq!(engine.set_option("rfp_margin", Some("120")), Ok(None));
        assert_eq!(RFP_MARGIN.get(), 120);
        for refused in ["181", "29", "wide"] {
            assert!(engine.set_option("RFP_MARGIN", Some(refused)).is_err(), "{refused}");
        }
        assert_eq!(RFP_MARGIN.get(), 120);
        let default = RFP_MARGIN.default.to_string();
        assert_eq!(engine.set_option("RFP_MARGIN", Some(&default)), Ok(None));
        assert_eq!(RFP_MARGIN.get(), RFP_MARGIN.default);
    }
}
