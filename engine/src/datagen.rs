//! `backrank datagen`: self-play games for training the network.
//!
//! * Openings: half Chess960, three tenths DFRC (two different back
//!   ranks), a fifth classical chess (start 518), then `plies` to
//!   `plies + 4` random legal plies; starts the search scores beyond
//!   [`MAX_START_SCORE`] are skipped.
//! * Moves: a soft node limit (the iteration that passes `nodes` is
//!   finished, with a hard cap of [`HARD_NODES_FACTOR`] times that), one
//!   search thread per game, games spread over `threads` threads,
//!   adjudication as below.
//! * Output: whole games in `backrank_data::binary` (every position with
//!   its score and the move played; what to train on is filtered when
//!   reading), or with `format text` the quiet positions as text lines.
//!
//! Games are appended whole as they finish; `<out>.progress` records how
//! many were written and the next game number, so that a run stopped at
//! any point (Ctrl-C included) resumes where it was and loses only the
//! games in flight. Every game is decided by its number and the seed alone.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use parking_lot::Mutex;
use shakmaty::{Chess, Color, Position};

use backrank_data::{Filter, Game, Outcome, binary, text};
use backrank_search::{Limits, position_keys};
use backrank_util::args::KeyValues;
use backrank_util::rng::SplitMix;

use crate::engine::Engine;
use crate::frc;

/// The usage line of `backrank datagen`.
pub const USAGE: &str = "backrank datagen [out <file>] [games <n>] [nodes <n>] [threads <n>] [plies <n>] [seed <n>] \
                         [format binary|text]";

/// What `backrank datagen` does; every field has a command-line key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The data file (appended to).
    pub out: PathBuf,
    /// Stop after this many games in the file.
    pub games: u64,
    /// Soft node limit per move.
    pub nodes: u64,
    pub threads: usize,
    /// Fewest random plies played from the start position (up to four more).
    pub random_plies: u32,
    pub seed: u64,
    /// Text lines instead of binary games.
    pub text: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            out: PathBuf::from("selfplay.bin"),
            games: 10_000,
            nodes: 5_000,
            threads: 2,
            random_plies: 8,
            seed: 1,
            text: false,
        }
    }
}

impl Config {
    /// Reads `key value` pairs.
    pub fn parse(args: &[&str]) -> Result<Config, String> {
        let keys = ["out", "games", "nodes", "threads", "plies", "seed", "format"];
        let args = KeyValues::parse(args, &keys, USAGE)?;
        let default = Config::default();
        let text = match args.text("format") {
            None | Some("binary") => false,
            Some("text") => true,
            Some(other) => return Err(format!("unknown format '{other}'\n{USAGE}")),
        };
        Ok(Config {
            out: args.text("out").map_or(default.out, PathBuf::from),
            games: args.get("games", default.games)?,
            nodes: args.get("nodes", default.nodes)?.max(1),
            threads: args.get("threads", default.threads)?.clamp(1, 256),
            random_plies: args.get("plies", default.random_plies)?.min(40),
            seed: args.get("seed", default.seed)?,
            text,
        })
    }
}

/// Adjudication: a score this large for [`WIN_PLIES`] plies in a row decides the game...
const WIN_SCORE: i32 = 1_000;
const WIN_PLIES: u32 = 6;
/// ...and after [`DRAW_FROM_PLY`], a score this small for [`DRAW_PLIES`] plies draws it.
const DRAW_SCORE: i32 = 10;
const DRAW_PLIES: u32 = 10;
const DRAW_FROM_PLY: usize = 120;
/// Games longer than this are drawn.
const MAX_PLIES: usize = 400;
/// Starts more unbalanced than this (after the random plies) are skipped.
const MAX_START_SCORE: i32 = 400;
/// The hard node cap per move, in soft limits.
const HARD_NODES_FACTOR: u64 = 5;
/// Seconds between progress lines.
const REPORT_EVERY_S: f64 = 5.0;

/// Plays games until the file holds `config.games` of them.
pub fn run(config: &Config) -> Result<(), String> {
    let progress_path = progress_path(&config.out);
    let (written, next) = read_progress(&progress_path)?;
    if written >= config.games {
        eprintln!("{} already holds {written} games", config.out.display());
        return Ok(());
    }
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&config.out)
        .map_err(|e| format!("cannot open {}: {e}", config.out.display()))?;
    let start = Instant::now();
    let output = Mutex::new(Output {
        file,
        written,
        next_unstarted: next,
        positions: 0,
        games_this_run: 0,
        last_report: 0.0,
    });
    let next_game = AtomicU64::new(next);
    eprintln!(
        "datagen: {} games to {} ({written} there), {} nodes a move, {} threads",
        config.games,
        config.out.display(),
        config.nodes,
        config.threads
    );
    std::thread::scope(|scope| {
        for _ in 0..config.threads {
            scope.spawn(|| {
                let mut engine = Engine::new();
                loop {
                    if output.lock().written >= config.games {
                        return;
                    }
                    let number = next_game.fetch_add(1, Ordering::SeqCst);
                    let Some(game) = play_game(&mut engine, config, number) else { continue };
                    let mut out = output.lock();
                    if out.written >= config.games {
                        return;
                    }
                    if let Err(e) = out.append(&game, number, config, &progress_path) {
                        eprintln!("datagen: {e}");
                        std::process::exit(1);
                    }
                    out.report(config, start.elapsed().as_secs_f64());
                }
            });
        }
    });
    Ok(())
}

/// The data file and its progress record, behind one lock.
struct Output {
    file: std::fs::File,
    written: u64,
    next_unstarted: u64,
    positions: u64,
    games_this_run: u64,
    last_report: f64,
}

impl Output {
    fn append(
        &mut self,
        game: &Game,
        number: u64,
        config: &Config,
        progress_path: &Path,
    ) -> std::io::Result<()> {
        let mut bytes = Vec::new();
        if config.text {
            let filter = Filter::default();
            for line in text::game_lines(game, |s| filter.keeps(s)) {
                bytes.extend_from_slice(line.as_bytes());
                bytes.push(b'\n');
            }
        } else {
            binary::write_game(&mut bytes, game)?;
        }
        self.file.write_all(&bytes)?;
        self.file.flush()?;
        self.written += 1;
        self.games_this_run += 1;
        self.positions += game.moves.len() as u64;
        self.next_unstarted = self.next_unstarted.max(number + 1);
        std::fs::write(progress_path, format!("{} {}\n", self.written, self.next_unstarted))
    }

    /// A progress line every few seconds, and at the end.
    fn report(&mut self, config: &Config, seconds: f64) {
        if seconds - self.last_report < REPORT_EVERY_S && self.written < config.games {
            return;
        }
        self.last_report = seconds;
        let seconds = seconds.max(0.001);
        let games_per_s = self.games_this_run as f64 / seconds;
        let eta_s = (config.games - self.written) as f64 / games_per_s.max(1e-9);
        eprintln!(
            "datagen: {} games ({} this run), {} positions this run, {:.0} positions/s, ETA {}h{:02}m",
            self.written,
            self.games_this_run,
            self.positions,
            self.positions as f64 / seconds,
            (eta_s / 3600.0) as u64,
            (eta_s / 60.0) as u64 % 60
        );
    }
}

fn progress_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".progress");
    PathBuf::from(name)
}

/// Games written and the next game number, from a progress file (none: a fresh start).
fn read_progress(path: &Path) -> Result<(u64, u64), String> {
    let Ok(text) = std::fs::read_to_string(path) else { return Ok((0, 0)) };
    let numbers: Vec<u64> = text.split_whitespace().filter_map(|n| n.parse().ok()).collect();
    match numbers[..] {
        [written, next] => Ok((written, next)),
        _ => Err(format!("{} is not a datagen progress file", path.display())),
    }
}

/// The start of game `number`: a Chess960, DFRC or classical back rank,
/// then random plies. `None` when the random plies ended the game.
pub fn opening(rng: &mut SplitMix, min_plies: u32) -> Option<Chess> {
    let kind = rng.below(10);
    let white = if kind < 2 { 518 } else { rng.below(u64::from(frc::COUNT)) as u32 };
    let black = if kind < 7 { white } else { rng.below(u64::from(frc::COUNT)) as u32 };
    let plies = min_plies + rng.below(5) as u32;
    random_plies(frc::position(white, black)?, plies, rng)
}

/// `pos` after `plies` random legal plies; `None` if the game ends on the way.
pub fn random_plies(mut pos: Chess, plies: u32, rng: &mut SplitMix) -> Option<Chess> {
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        pos.play_unchecked(moves[rng.below(moves.len() as u64) as usize]);
    }
    (!pos.legal_moves().is_empty()).then_some(pos)
}

/// Plays game `number`; `None` when its start was unusable.
fn play_game(engine: &mut Engine, config: &Config, number: u64) -> Option<Game> {
    let mut rng = SplitMix(config.seed ^ number.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let start = opening(&mut rng, config.random_plies)?;
    engine.new_game();
    engine.set_root(start.clone());
    let limits = Limits {
        soft_nodes: Some(config.nodes),
        nodes: Some(config.nodes * HARD_NODES_FACTOR),
        ..Limits::default()
    };
    let mut keys: Vec<u64> = Vec::new();
    let mut moves = Vec::new();
    let (mut winning_plies, mut drawn_plies) = (0u32, 0u32);
    let winner = loop {
        let pos = engine.position().clone();
        let outcome = pos.outcome();
        if outcome.is_known() {
            break outcome.winner();
        }
        let key = position_keys([&pos])[0];
        let repetitions = keys.iter().rev().take(pos.halfmoves() as usize + 1).filter(|&&k| k == key).count();
        if pos.halfmoves() >= 100 || repetitions >= 2 || moves.len() >= MAX_PLIES {
            break None;
        }
        let found = engine.think(&limits);
        let best = found.best?;
        let score = found.report.score;
        let white_score = if pos.turn() == Color::White { score } else { -score };
        if moves.is_empty() && white_score.abs() > MAX_START_SCORE {
            return None;
        }
        moves.push((best, white_score.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16));
        // Adjudication.
        winning_plies = if white_score.abs() >= WIN_SCORE { winning_plies + 1 } else { 0 };
        drawn_plies = if white_score.abs() <= DRAW_SCORE { drawn_plies + 1 } else { 0 };
        if winning_plies >= WIN_PLIES {
            break Some(if white_score > 0 { Color::White } else { Color::Black });
        }
        if moves.len() >= DRAW_FROM_PLY && drawn_plies >= DRAW_PLIES {
            break None;
        }
        keys.push(key);
        engine.play(best);
    };
    Some(Game { start, moves, outcome: Outcome::from_winner(winner) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use backrank_data::binary::GameReader;

    #[test]
    fn parses_keys_and_refuses_junk() {
        let config =
            Config::parse(&["out", "x.bin", "games", "7", "nodes", "300", "format", "text"]).unwrap();
        assert_eq!(config.out, PathBuf::from("x.bin"));
        assert_eq!((config.games, config.nodes, config.threads, config.text), (7, 300, 2, true));
        assert!(Config::parse(&["games"]).is_err());
        assert!(Config::parse(&["games", "many"]).is_err());
        assert!(Config::parse(&["colour", "blue"]).is_err());
        assert!(Config::parse(&["format", "csv"]).is_err());
    }

    #[test]
    fn openings_are_varied_legal_and_deterministic() {
        let starts: Vec<Chess> = (0..200).filter_map(|n| opening(&mut SplitMix(n), 8)).collect();
        assert!(starts.len() > 190);
        let again: Vec<Chess> = (0..200).filter_map(|n| opening(&mut SplitMix(n), 8)).collect();
        assert_eq!(starts, again);
        let plies: Vec<u32> =
            starts.iter().map(|p| p.fullmoves().get() * 2 - 2 + u32::from(p.turn().is_black())).collect();
        assert!(plies.iter().all(|&p| (8..=12).contains(&p)), "{plies:?}");
        // Some classical games among them (the king and rooks on e, a, h).
        let classical = starts
            .iter()
            .filter(|p| {
                p.castles().castling_rights().count() == 4
                    && p.board().king_of(Color::White).is_some_and(|k| k == shakmaty::Square::E1)
            })
            .count();
        assert!(classical > 10, "{classical}");
    }

    #[test]
    fn writes_games_and_resumes() {
        let dir = std::env::temp_dir().join(format!("backrank-datagen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("data.bin");
        let config = Config { out: out.clone(), games: 2, nodes: 300, threads: 1, ..Config::default() };
        run(&config).unwrap();
        let first = std::fs::read(&out).unwrap();
        assert_eq!(read_progress(&progress_path(&out)).unwrap().0, 2);
        let games: Vec<Game> = GameReader::new(&first[..]).map(Result::unwrap).collect();
        assert_eq!(games.len(), 2);
        assert!(games.iter().all(|g| g.moves.len() > 4));
        // Asking for three games plays one more and keeps the first two.
        run(&Config { games: 3, ..config.clone() }).unwrap();
        let second = std::fs::read(&out).unwrap();
        assert!(second.starts_with(&first) && second.len() > first.len());
        assert_eq!(GameReader::new(&second[..]).count(), 3);
        assert_eq!(read_progress(&progress_path(&out)).unwrap().0, 3);
        // The same games again from scratch: the same bytes.
        let again = dir.join("again.bin");
        run(&Config { out: again.clone(), games: 3, ..config }).unwrap();
        assert_eq!(std::fs::read(&again).unwrap(), second);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
