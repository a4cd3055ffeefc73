//! `backrank datagen`: self-play games for training the network.
//!
//! * Openings: a fifth classical chess (start 518), `dfrc` tenths DFRC
//!   (two different back ranks; 3 unless told), the rest Chess960, then `plies` to
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
//! many were written, the next game number and the data file's length
//! after the last of them (replaced whole, never torn). A run stopped at
//! any point (Ctrl-C or a kill included) resumes where it was and loses
//! only the games in flight: bytes past the recorded length (a torn game,
//! or a game whose record was not written) are cut off first. Every game is
//! decided by its number and the seed alone.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use shakmaty::{Color, Position};

use backrank_data::{Filter, Game, Outcome, binary, stored_score, text};
use backrank_search::Limits;
use backrank_util::args::KeyValues;
use backrank_util::rng::SplitMix;

use crate::engine::Engine;
use crate::openings::{DEFAULT_DFRC_TENTHS, DEFAULT_MIX, MAX_DFRC_TENTHS, Starts, random_opening};
use crate::resumable::ResumableWriter;

/// The usage line of `backrank datagen`.
pub const USAGE: &str = "backrank datagen [out <file>] [games <n>] [nodes <n>] [threads <n>] [plies <n>] [seed <n>] \
                         [dfrc <tenths, 0-8>] [format binary|text]";

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
    /// The start positions (`dfrc`: the tenths of them that are DFRC).
    pub starts: Starts,
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
            starts: DEFAULT_MIX,
            text: false,
        }
    }
}

impl Config {
    /// Reads `key value` pairs.
    pub fn parse(args: &[&str]) -> Result<Config, String> {
        let keys = ["out", "games", "nodes", "threads", "plies", "seed", "dfrc", "format"];
        let args = KeyValues::parse(args, &keys, USAGE)?;
        let default = Config::default();
        let text = match args.text("format") {
            None | Some("binary") => false,
            Some("text") => true,
            Some(other) => return Err(format!("unknown format '{other}'\n{USAGE}")),
        };
        let dfrc_tenths = args.get("dfrc", DEFAULT_DFRC_TENTHS)?;
        if dfrc_tenths > MAX_DFRC_TENTHS {
            return Err(format!("dfrc {dfrc_tenths}: 0 to {MAX_DFRC_TENTHS} tenths\n{USAGE}"));
        }
        Ok(Config {
            out: args.text("out").map_or(default.out, PathBuf::from),
            games: args.get("games", default.games)?,
            nodes: args.get("nodes", default.nodes)?.max(1),
            threads: args.get("threads", default.threads)?.clamp(1, 256),
            random_plies: args.get("plies", default.random_plies)?.min(40),
            seed: args.get("seed", default.seed)?,
            starts: Starts::Mixed { dfrc_tenths },
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

/// Plays games until the file holds `config.games` of them.
pub fn run(config: &Config) -> Result<(), String> {
    let writer = ResumableWriter::open("datagen", &config.out)?;
    let progress = writer.progress();
    if progress.written >= config.games {
        eprintln!("{} already holds {} games", config.out.display(), progress.written);
        return Ok(());
    }
    eprintln!(
        "datagen: {} games to {} ({} there), {} nodes a move, {} threads",
        config.games,
        config.out.display(),
        progress.written,
        config.nodes,
        config.threads
    );
    let output = Mutex::new(Output { writer, error: None });
    let next_game = AtomicU64::new(progress.next);
    std::thread::scope(|scope| {
        for _ in 0..config.threads {
            scope.spawn(|| {
                let mut engine = Engine::new();
                while !output.lock().is_done(config) {
                    let number = next_game.fetch_add(1, Ordering::SeqCst);
                    let Some(game) = play_game(&mut engine, config, number) else { continue };
                    let mut out = output.lock();
                    if out.is_done(config) {
                        return;
                    }
                    if let Err(e) = out.append(&game, number, config) {
                        out.error = Some(format!("datagen: {e}"));
                    }
                }
            });
        }
    });
    output.into_inner().error.map_or(Ok(()), Err)
}

/// The data file, behind one lock, and the first error that stopped the run.
struct Output {
    writer: ResumableWriter,
    error: Option<String>,
}

impl Output {
    fn is_done(&self, config: &Config) -> bool {
        self.writer.progress().written >= config.games || self.error.is_some()
    }

    /// Appends game `number` and says how the run goes.
    fn append(&mut self, game: &Game, number: u64, config: &Config) -> std::io::Result<()> {
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
        self.writer.append(&bytes, 1, number + 1, game.moves.len() as u64)?;
        let left = config.games.saturating_sub(self.writer.progress().written);
        let eta_s = left as f64 / self.writer.units_per_s().max(1e-9);
        let eta = format!(", ETA {}h{:02}m", (eta_s / 3600.0) as u64, (eta_s / 60.0) as u64 % 60);
        self.writer.report(left == 0, &eta);
        Ok(())
    }
}

/// The limits of one move: a soft node limit with a hard cap of
/// [`HARD_NODES_FACTOR`] times it (`rescore` searches the same way).
pub(crate) fn move_limits(nodes: u64) -> Limits {
    Limits { soft_nodes: Some(nodes), nodes: Some(nodes * HARD_NODES_FACTOR), ..Limits::default() }
}

/// Plays game `number`; `None` when its start was unusable.
fn play_game(engine: &mut Engine, config: &Config, number: u64) -> Option<Game> {
    let mut rng = SplitMix(config.seed ^ number.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let start = random_opening(&mut rng, config.starts, config.random_plies)?;
    engine.new_game();
    engine.set_root(start.clone());
    let limits = move_limits(config.nodes);
    let mut moves = Vec::new();
    let (mut winning_plies, mut drawn_plies) = (0u32, 0u32);
    let winner = loop {
        let pos = engine.position().clone();
        let outcome = pos.outcome();
        if outcome.is_known() {
            break outcome.winner();
        }
        if pos.halfmoves() >= 100 || engine.repetitions() >= 2 || moves.len() >= MAX_PLIES {
            break None;
        }
        let found = engine.think(&limits);
        let best = found.best?;
        let stored = stored_score(found.report.score, pos.turn());
        let white_score = i32::from(stored);
        if moves.is_empty() && white_score.abs() > MAX_START_SCORE {
            return None;
        }
        moves.push((best, stored));
        // Adjudication.
        winning_plies = if white_score.abs() >= WIN_SCORE { winning_plies + 1 } else { 0 };
        drawn_plies = if white_score.abs() <= DRAW_SCORE { drawn_plies + 1 } else { 0 };
        if winning_plies >= WIN_PLIES {
            break Some(if white_score > 0 { Color::White } else { Color::Black });
        }
        if moves.len() >= DRAW_FROM_PLY && drawn_plies >= DRAW_PLIES {
            break None;
        }
        engine.play(best);
    };
    Some(Game { start, moves, outcome: Outcome::from_winner(winner) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resumable::{Progress, progress_path, read_progress, write_progress};
    use backrank_data::binary::GameReader;
    use backrank_util::scratch::ScratchDir;

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
        assert_eq!(config.starts, DEFAULT_MIX);
        let dfrc = Config::parse(&["dfrc", "6"]).unwrap();
        assert_eq!(dfrc.starts, Starts::Mixed { dfrc_tenths: 6 });
        assert!(Config::parse(&["dfrc", "9"]).unwrap_err().contains("0 to 8"));
    }

    /// A scratch folder with a file of two quick games: the folder, the
    /// run's settings and the file's bytes.
    fn two_games(name: &str) -> (ScratchDir, Config, Vec<u8>) {
        let dir = ScratchDir::new(name);
        let config =
            Config { out: dir.join("data.bin"), games: 2, nodes: 300, threads: 1, ..Config::default() };
        run(&config).unwrap();
        let bytes = std::fs::read(&config.out).unwrap();
        (dir, config, bytes)
    }

    #[test]
    fn writes_games_and_resumes() {
        let (dir, config, first) = two_games("datagen-resume");
        let out = config.out.clone();
        let progress = read_progress(&progress_path(&out)).unwrap();
        assert_eq!(progress, Progress { written: 2, next: 2, bytes: Some(first.len() as u64) });
        let games: Vec<Game> = GameReader::new(&first[..]).map(Result::unwrap).collect();
        assert_eq!(games.len(), 2);
        assert!(games.iter().all(|g| g.moves.len() > 4));
        // Asking for three games plays one more and keeps the first two.
        run(&Config { games: 3, ..config.clone() }).unwrap();
        let second = std::fs::read(&out).unwrap();
        assert!(second.starts_with(&first) && second.len() > first.len());
        assert_eq!(GameReader::new(&second[..]).count(), 3);
        assert_eq!(read_progress(&progress_path(&out)).unwrap().written, 3);
        // The same games again from scratch: the same bytes.
        let again = dir.join("again.bin");
        run(&Config { out: again.clone(), games: 3, ..config }).unwrap();
        assert_eq!(std::fs::read(&again).unwrap(), second);
    }

    /// A kill can leave a game appended but not recorded, or half a game:
    /// the next run cuts both off and goes on from the record.
    #[test]
    fn resumes_after_a_kill_mid_record() {
        let (dir, config, two) = two_games("datagen-torn");
        let out = config.out.clone();
        let reference = dir.join("reference.bin");
        run(&Config { out: reference.clone(), games: 3, ..config.clone() }).unwrap();
        let three = std::fs::read(&reference).unwrap();
        let third_game = &three[two.len()..];
        for tail in [third_game, &third_game[..third_game.len() / 2], &[0xB1, 0x00, 0x07][..]] {
            let mut damaged = two.clone();
            damaged.extend_from_slice(tail);
            std::fs::write(&out, &damaged).unwrap();
            run(&Config { games: 3, ..config.clone() }).unwrap();
            assert_eq!(std::fs::read(&out).unwrap(), three, "after a tail of {} bytes", tail.len());
            let progress = read_progress(&progress_path(&out)).unwrap();
            assert_eq!(progress, Progress { written: 3, next: 3, bytes: Some(three.len() as u64) });
            // Back to two games for the next case.
            std::fs::write(&out, &two).unwrap();
            let record = Progress { written: 2, next: 2, bytes: Some(two.len() as u64) };
            write_progress(&progress_path(&out), &record).unwrap();
        }
        // A file shorter than its record is not written to.
        std::fs::write(&out, &two[..10]).unwrap();
        assert!(run(&Config { games: 3, ..config }).is_err());
        assert!(!dir.join("data.bin.progress.new").exists());
    }
}
