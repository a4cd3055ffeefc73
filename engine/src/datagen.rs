//! `backrank datagen`: self-play games at a fixed node count per move,
//! from random Chess960 and DFRC starts with a few random plies, written
//! as one line per quiet position:
//!
//! ```text
//! <FEN> | <score in centipawns, White's view> | <result 1.0/0.5/0.0, White's view>
//! ```
//!
//! (the text format the bullet NNUE trainer reads; the tuner reads it too).
//! Games are appended whole as they finish; `<out>.progress` records how
//! many were written and the next game number, so that a run stopped at
//! any point resumes where it was (a game in flight is simply dropped).
//! Every game is decided by its number and the seed alone.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use parking_lot::Mutex;
use shakmaty::{Chess, Color, Move, Position};

use backrank_search::score::is_decisive;
use backrank_search::{Limits, Search, Signals, position_keys};
use backrank_uci::notation::x_fen;

use crate::frc;
use crate::rng::SplitMix;

/// What `backrank datagen` does; every field has a command-line key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The data file (appended to).
    pub out: PathBuf,
    /// Stop after this many games in the file.
    pub games: u64,
    /// Nodes per move.
    pub nodes: u64,
    pub threads: usize,
    /// Random plies played from the start position.
    pub random_plies: u32,
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            out: PathBuf::from("selfplay.txt"),
            games: 10_000,
            nodes: 5_000,
            threads: 2,
            random_plies: 6,
            seed: 1,
        }
    }
}

/// The usage line of `backrank datagen`.
pub const USAGE: &str =
    "backrank datagen [out <file>] [games <n>] [nodes <n>] [threads <n>] [plies <n>] [seed <n>]";

impl Config {
    /// Reads `key value` pairs.
    pub fn parse(args: &[&str]) -> Result<Config, String> {
        let mut config = Config::default();
        if !args.len().is_multiple_of(2) {
            return Err(USAGE.to_string());
        }
        for pair in args.chunks(2) {
            let number =
                || pair[1].parse::<u64>().map_err(|_| format!("'{}' is not a number\n{USAGE}", pair[1]));
            match pair[0] {
                "out" => config.out = PathBuf::from(pair[1]),
                "games" => config.games = number()?,
                "nodes" => config.nodes = number()?.max(1),
                "threads" => config.threads = number()?.clamp(1, 256) as usize,
                "plies" => config.random_plies = number()?.min(40) as u32,
                "seed" => config.seed = number()?,
                _ => return Err(USAGE.to_string()),
            }
        }
        Ok(config)
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
    let output = Mutex::new(Output { file, written, next_unstarted: next, positions: 0 });
    let next_game = AtomicU64::new(next);
    let start = Instant::now();
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
                let mut search = Search::new(16, 1).expect("a 16 MB table");
                loop {
                    if output.lock().written >= config.games {
                        return;
                    }
                    let number = next_game.fetch_add(1, Ordering::SeqCst);
                    let Some(game) = play_game(&mut search, config, number) else { continue };
                    let mut out = output.lock();
                    if out.written >= config.games {
                        return;
                    }
                    if let Err(e) = out.append(&game, number, &progress_path) {
                        eprintln!("datagen: {e}");
                        std::process::exit(1);
                    }
                    if out.written.is_multiple_of(50) || out.written == config.games {
                        let seconds = start.elapsed().as_secs_f64().max(0.001);
                        eprintln!(
                            "datagen: {} games, {} positions this run ({:.0}/s)",
                            out.written,
                            out.positions,
                            out.positions as f64 / seconds
                        );
                    }
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
}

impl Output {
    fn append(&mut self, game: &Game, number: u64, progress_path: &Path) -> std::io::Result<()> {
        let result = match game.result {
            Some(Color::White) => "1.0",
            Some(Color::Black) => "0.0",
            None => "0.5",
        };
        let mut text = String::new();
        for (fen, score) in &game.positions {
            text.push_str(&format!("{fen} | {score} | {result}\n"));
        }
        self.file.write_all(text.as_bytes())?;
        self.file.flush()?;
        self.written += 1;
        self.positions += game.positions.len() as u64;
        self.next_unstarted = self.next_unstarted.max(number + 1);
        std::fs::write(progress_path, format!("{} {}\n", self.written, self.next_unstarted))
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

/// One finished game: its recorded positions and the winner.
struct Game {
    positions: Vec<(String, i32)>,
    result: Option<Color>,
}

/// Plays game `number`; `None` when its start was unusable.
fn play_game(search: &mut Search, config: &Config, number: u64) -> Option<Game> {
    let mut rng = SplitMix(config.seed ^ number.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let white = (rng.next_u64() % u64::from(frc::COUNT)) as u32;
    // Half Chess960, half DFRC.
    let black = if rng.next_u64().is_multiple_of(2) {
        white
    } else {
        (rng.next_u64() % u64::from(frc::COUNT)) as u32
    };
    let mut pos = frc::position(white, black)?;
    for _ in 0..config.random_plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        pos.play_unchecked(moves[(rng.next_u64() % moves.len() as u64) as usize]);
    }
    if pos.legal_moves().is_empty() {
        return None;
    }

    search.clear();
    let limits = Limits { nodes: Some(config.nodes), ..Limits::default() };
    let mut history: Vec<Chess> = Vec::new();
    let mut keys: Vec<u64> = Vec::new();
    let mut positions = Vec::new();
    let (mut winning_plies, mut drawn_plies) = (0u32, 0u32);
    let result = loop {
        let outcome = pos.outcome();
        if outcome.is_known() {
            break outcome.winner();
        }
        let key = position_keys([&pos])[0];
        let repetitions = keys.iter().rev().take(pos.halfmoves() as usize + 1).filter(|&&k| k == key).count();
        if pos.halfmoves() >= 100 || repetitions >= 2 || history.len() >= MAX_PLIES {
            break None;
        }
        let found = search.go(&pos, &keys, &limits, &Signals::default(), |_| {});
        let best: Move = found.best?;
        let score = found.report.score;
        let white_score = if pos.turn() == Color::White { score } else { -score };
        if history.is_empty() && white_score.abs() > MAX_START_SCORE {
            return None;
        }
        if !pos.is_check() && !best.is_capture() && !best.is_promotion() && !is_decisive(score) {
            positions.push((x_fen(&pos), white_score));
        }
        // Adjudication.
        winning_plies = if white_score.abs() >= WIN_SCORE { winning_plies + 1 } else { 0 };
        drawn_plies = if white_score.abs() <= DRAW_SCORE { drawn_plies + 1 } else { 0 };
        if winning_plies >= WIN_PLIES {
            break Some(if white_score > 0 { Color::White } else { Color::Black });
        }
        if history.len() >= DRAW_FROM_PLY && drawn_plies >= DRAW_PLIES {
            break None;
        }
        keys.push(key);
        history.push(pos.clone());
        pos.play_unchecked(best);
    };
    Some(Game { positions, result })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_keys_and_refuses_junk() {
        let config = Config::parse(&["out", "x.txt", "games", "7", "nodes", "300"]).unwrap();
        assert_eq!(config.out, PathBuf::from("x.txt"));
        assert_eq!((config.games, config.nodes, config.threads), (7, 300, 2));
        assert!(Config::parse(&["games"]).is_err());
        assert!(Config::parse(&["games", "many"]).is_err());
        assert!(Config::parse(&["colour", "blue"]).is_err());
    }

    #[test]
    fn writes_games_and_resumes() {
        let dir = std::env::temp_dir().join(format!("backrank-datagen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("data.txt");
        let config = Config { out: out.clone(), games: 2, nodes: 300, threads: 1, ..Config::default() };
        run(&config).unwrap();
        let first = std::fs::read_to_string(&out).unwrap();
        assert_eq!(read_progress(&progress_path(&out)).unwrap().0, 2);
        for line in first.lines() {
            let fields: Vec<&str> = line.split(" | ").collect();
            assert_eq!(fields.len(), 3, "{line}");
            backrank_uci::notation::parse_fen(fields[0]).unwrap();
            fields[1].parse::<i32>().unwrap();
            assert!(["1.0", "0.5", "0.0"].contains(&fields[2]), "{line}");
        }
        // Asking for three games plays one more and keeps the first two.
        run(&Config { games: 3, ..config }).unwrap();
        let second = std::fs::read_to_string(&out).unwrap();
        assert!(second.starts_with(&first) && second.len() > first.len());
        assert_eq!(read_progress(&progress_path(&out)).unwrap().0, 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
