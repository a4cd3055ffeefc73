//! `backrank rescore`: labels a data file again with this build's search and
//! network, so that old positions (generation 0's, labelled by the retired
//! hand-crafted evaluation, or any older net's) learn from the current net.
//!
//! * Game files (`.bin`, `.pgn`): every position of every game is searched
//!   again along the game, exactly as `backrank datagen` searched it (a
//!   fresh table at each game's start, kept along the game, the game's
//!   moves as the history), and the same moves and result are written with
//!   the new scores in the binary format. Rescoring a datagen file with the
//!   build and node count that made it gives the file back byte for byte.
//! * Text files: every line's position is searched again (no history), the
//!   table kept along a chunk of [`TEXT_CHUNK`] consecutive lines (the seed
//!   data's lines run in game order), and the line is written with the new
//!   score and its old result. Lines that are not positions are dropped
//!   and counted.
//!
//! Work goes out in chunks (`chunk` lines or games, by default
//! [`TEXT_CHUNK`] or [`GAME_CHUNK`]), each decided by its input alone, over
//! `threads` threads, and the chunks are written in input order: the output
//! does not depend on the thread count. `<out>.progress` counts the input
//! lines or games done (see [`crate::progress`]), so a stopped run resumes
//! where it was.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use shakmaty::Position;

use backrank_data::{Game, binary, is_game_file, read_games, stored_score, text};
use backrank_search::Limits;
use backrank_util::args::KeyValues;

use crate::datagen::move_limits;
use crate::engine::Engine;
use crate::resumable::ResumableWriter;

/// The usage line of `backrank rescore`.
pub const USAGE: &str = "backrank rescore in <file> out <file> [nodes <n>] [threads <n>] [chunk <n>]";

/// Text lines per chunk.
pub const TEXT_CHUNK: usize = 1024;
/// Games per chunk.
pub const GAME_CHUNK: usize = 8;

/// What `backrank rescore` does; every field has a command-line key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The data file to label again (text lines, or games: `.bin`, `.pgn`).
    pub input: PathBuf,
    /// Where the relabelled data goes (appended to when resuming).
    pub out: PathBuf,
    /// Soft node limit per position, as `datagen`'s.
    pub nodes: u64,
    pub threads: usize,
    /// Lines or games per chunk (the table is kept along a chunk of lines).
    pub chunk: usize,
}

impl Config {
    /// Reads `key value` pairs.
    pub fn parse(args: &[&str]) -> Result<Config, String> {
        let args = KeyValues::parse(args, &["in", "out", "nodes", "threads", "chunk"], USAGE)?;
        let path = |key: &str| args.text(key).map(PathBuf::from).ok_or_else(|| USAGE.to_string());
        let (input, out) = (path("in")?, path("out")?);
        if input == out {
            return Err("rescore: the output must be another file than the input".into());
        }
        if is_game_file(&input) && out.extension().and_then(|e| e.to_str()) != Some("bin") {
            return Err("rescore: games are written in the binary format; name the output <name>.bin".into());
        }
        let chunk = if is_game_file(&input) { GAME_CHUNK } else { TEXT_CHUNK };
        Ok(Config {
            input,
            out,
            nodes: args.get("nodes", 5_000u64)?.max(1),
            threads: args.get("threads", 2usize)?.clamp(1, 256),
            chunk: args.get("chunk", chunk)?.max(1),
        })
    }
}

/// A chunk of the input.
enum Chunk {
    Lines(Vec<String>),
    Games(Vec<Game>),
}

impl Chunk {
    /// Its lines or games.
    fn units(&self) -> u64 {
        match self {
            Chunk::Lines(lines) => lines.len() as u64,
            Chunk::Games(games) => games.len() as u64,
        }
    }
}

/// The input, read a chunk at a time.
struct Input {
    source: Source,
    /// Lines or games per chunk.
    size: usize,
    /// The number of the next chunk.
    next: u64,
}

enum Source {
    Lines(std::io::Lines<BufReader<std::fs::File>>),
    Games(Box<dyn Iterator<Item = Result<Game, String>> + Send>),
}

impl Input {
    fn open(path: &Path, size: usize) -> Result<Input, String> {
        let source = if is_game_file(path) {
            Source::Games(read_games(path)?)
        } else {
            let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Source::Lines(BufReader::new(file).lines())
        };
        Ok(Input { source, size, next: 0 })
    }

    /// The next chunk and its number; `None` at the end of the input. A
    /// game file's stream ends at its first bad record.
    fn next_chunk(&mut self) -> Result<Option<(u64, Chunk)>, String> {
        let chunk = match &mut self.source {
            Source::Lines(lines) => {
                let chunk: Vec<String> =
                    lines.take(self.size).collect::<Result<_, _>>().map_err(|e| e.to_string())?;
                (!chunk.is_empty()).then_some(Chunk::Lines(chunk))
            }
            Source::Games(games) => {
                let chunk: Vec<Game> = games.take(self.size).map_while(Result::ok).collect();
                (!chunk.is_empty()).then_some(Chunk::Games(chunk))
            }
        };
        let number = self.next;
        self.next += 1;
        Ok(chunk.map(|chunk| (number, chunk)))
    }
}

/// The relabelled bytes of a chunk and what it held.
struct Done {
    bytes: Vec<u8>,
    /// Input lines or games.
    units: u64,
    positions: u64,
    dropped: u64,
}

/// The search's score of the engine's current position, as data files
/// store it.
fn white_score(engine: &mut Engine, limits: &Limits) -> i16 {
    stored_score(engine.think(limits).report.score, engine.position().turn())
}

/// Labels one chunk again.
fn rescore_chunk(engine: &mut Engine, chunk: Chunk, limits: &Limits) -> Done {
    let mut done = Done { bytes: Vec::new(), units: chunk.units(), positions: 0, dropped: 0 };
    match chunk {
        Chunk::Lines(lines) => {
            engine.new_game();
            for line in lines {
                let Some((pos, old, outcome)) = text::parse_line(&line) else {
                    done.dropped += 1;
                    continue;
                };
                // A position without moves keeps its label (data files
                // hold none, but a hand-made one might).
                let score = if pos.legal_moves().is_empty() {
                    old
                } else {
                    engine.set_root(pos.clone());
                    white_score(engine, limits)
                };
                done.bytes.extend_from_slice(text::format_line(&pos, score, outcome).as_bytes());
                done.bytes.push(b'\n');
                done.positions += 1;
            }
        }
        Chunk::Games(games) => {
            for game in games {
                engine.new_game();
                engine.set_root(game.start.clone());
                let mut moves = Vec::with_capacity(game.moves.len());
                for &(m, _) in &game.moves {
                    moves.push((m, white_score(engine, limits)));
                    engine.play(m);
                }
                done.positions += moves.len() as u64;
                let relabelled = Game { moves, ..game };
                binary::write_game(&mut done.bytes, &relabelled).expect("writing to memory");
            }
        }
    }
    done
}

/// The output file and the chunks finished out of order.
struct Output {
    writer: ResumableWriter,
    /// The number of this run's next chunk to write.
    next_chunk: u64,
    waiting: BTreeMap<u64, Done>,
    dropped: u64,
    error: Option<String>,
}

impl Output {
    /// Takes a finished chunk and writes every chunk that is now next in order.
    fn finish(&mut self, number: u64, done: Done) -> std::io::Result<()> {
        self.waiting.insert(number, done);
        while let Some(done) = self.waiting.remove(&self.next_chunk) {
            self.next_chunk += 1;
            let written = self.writer.progress().written;
            self.writer.append(&done.bytes, done.units, written + done.units, done.positions)?;
            self.dropped += done.dropped;
        }
        Ok(())
    }

    fn report(&mut self, end: bool) {
        let detail = format!(", {} lines dropped{}", self.dropped, if end { ", done" } else { "" });
        self.writer.report(end, &detail);
    }
}

/// Skips the first `units` lines or games of `input` (done by an earlier
/// run); this run's chunks are then numbered from 0.
fn skip(input: &mut Input, units: u64) -> Result<(), String> {
    let size = input.size;
    let mut skipped = 0;
    while skipped < units {
        input.size = (units - skipped).min(1 << 16) as usize;
        match input.next_chunk()? {
            Some((_, chunk)) => skipped += chunk.units(),
            None => return Err(format!("shorter than the progress record's {units} lines or games")),
        }
    }
    (input.size, input.next) = (size, 0);
    Ok(())
}

/// Labels `config.input` again into `config.out`, resuming if it was started.
pub fn run(config: &Config) -> Result<(), String> {
    let writer = ResumableWriter::open("rescore", &config.out)?;
    let progress = writer.progress();
    let mut input = Input::open(&config.input, config.chunk)?;
    skip(&mut input, progress.written).map_err(|e| format!("{}: {e}", config.input.display()))?;
    eprintln!(
        "rescore: {} into {} ({} lines or games done), {} nodes a position, {} threads",
        config.input.display(),
        config.out.display(),
        progress.written,
        config.nodes,
        config.threads
    );
    let input = Mutex::new(input);
    let output =
        Mutex::new(Output { writer, next_chunk: 0, waiting: BTreeMap::new(), dropped: 0, error: None });
    let limits = move_limits(config.nodes);
    std::thread::scope(|scope| {
        for _ in 0..config.threads {
            scope.spawn(|| {
                let mut engine = Engine::new();
                loop {
                    let next = input.lock().next_chunk();
                    let (number, chunk) = match next {
                        Ok(Some(next)) => next,
                        Ok(None) => return,
                        Err(e) => {
                            output.lock().error.get_or_insert(format!("rescore: {e}"));
                            return;
                        }
                    };
                    let done = rescore_chunk(&mut engine, chunk, &limits);
                    let mut out = output.lock();
                    if out.error.is_some() {
                        return;
                    }
                    match out.finish(number, done) {
                        Ok(()) => out.report(false),
                        Err(e) => out.error = Some(format!("rescore: {e}")),
                    }
                }
            });
        }
    });
    let mut output = output.into_inner();
    output.report(true);
    output.error.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen;
    use crate::resumable::{progress_path, read_progress};
    use backrank_util::scratch::ScratchDir;

    #[test]
    fn parses_keys_and_refuses_junk() {
        let config = Config::parse(&["in", "a.bin", "out", "b.bin", "nodes", "300"]).unwrap();
        assert_eq!((config.nodes, config.threads, config.chunk), (300, 2, GAME_CHUNK));
        let config = Config::parse(&["in", "a.txt", "out", "b.txt", "chunk", "16"]).unwrap();
        assert_eq!((config.nodes, config.chunk), (5000, 16));
        assert!(Config::parse(&["in", "a.bin"]).is_err());
        assert!(Config::parse(&["in", "a.bin", "out", "a.bin"]).is_err());
        assert!(Config::parse(&["in", "a.bin", "out", "b.txt"]).is_err());
        assert!(Config::parse(&["in", "a.txt", "out", "b.txt", "colour", "blue"]).is_err());
    }

    #[test]
    fn a_datagen_file_rescored_by_its_own_build_comes_back_byte_for_byte() {
        let dir = ScratchDir::new("rescore-games");
        let made = dir.join("made.bin");
        let datagen =
            datagen::Config { out: made.clone(), games: 3, nodes: 300, threads: 1, ..Default::default() };
        datagen::run(&datagen).unwrap();
        let rescored = dir.join("rescored.bin");
        run(&Config { input: made.clone(), out: rescored.clone(), nodes: 300, threads: 2, chunk: 1 })
            .unwrap();
        assert_eq!(std::fs::read(&rescored).unwrap(), std::fs::read(&made).unwrap());
        // At another node count the moves and results stay, the scores move.
        let deeper = dir.join("deeper.bin");
        run(&Config { input: made.clone(), out: deeper.clone(), nodes: 2000, threads: 1, chunk: 8 }).unwrap();
        let games = |path: &Path| read_games(path).unwrap().map(Result::unwrap).collect::<Vec<Game>>();
        let (old, new) = (games(&made), games(&deeper));
        assert_eq!(old.len(), 3);
        let mut changed = 0;
        for (a, b) in old.iter().zip(&new) {
            assert_eq!((&a.start, a.outcome), (&b.start, b.outcome));
            assert!(a.moves.iter().zip(&b.moves).all(|(x, y)| x.0 == y.0));
            changed += a.moves.iter().zip(&b.moves).filter(|(x, y)| x.1 != y.1).count();
        }
        assert!(changed > 10, "only {changed} scores changed");
    }

    /// Text lines from a short datagen run, plus a line that is not a position.
    fn text_input(dir: &ScratchDir) -> PathBuf {
        let path = dir.join("lines.txt");
        let config = datagen::Config {
            out: path.clone(),
            games: 2,
            nodes: 300,
            threads: 1,
            text: true,
            ..Default::default()
        };
        datagen::run(&config).unwrap();
        let mut lines = std::fs::read_to_string(&path).unwrap();
        lines.push_str("not a position | 1 | 0.5\n");
        std::fs::write(&path, lines).unwrap();
        path
    }

    #[test]
    fn text_lines_keep_position_and_result() {
        let dir = ScratchDir::new("rescore-text");
        let input = text_input(&dir);
        let out = dir.join("out.txt");
        run(&Config { input: input.clone(), out: out.clone(), nodes: 400, threads: 2, chunk: TEXT_CHUNK })
            .unwrap();
        let (old, new) = (std::fs::read_to_string(&input).unwrap(), std::fs::read_to_string(&out).unwrap());
        let old: Vec<&str> = old.lines().collect();
        let new: Vec<&str> = new.lines().collect();
        assert_eq!(new.len(), old.len() - 1, "the junk line is dropped");
        let fields = |line: &str| line.split(" | ").map(str::to_string).collect::<Vec<_>>();
        let mut changed = 0;
        for (a, b) in old.iter().zip(&new) {
            let (a, b) = (fields(a), fields(b));
            assert_eq!((&a[0], &a[2]), (&b[0], &b[2]));
            changed += usize::from(a[1] != b[1]);
        }
        // Searched alone, without the game's table, the labels move.
        assert!(changed > new.len() / 4, "{changed} of {} changed", new.len());
        // Every label is the search's score of the line's position, from
        // White's view: a search of each position in the same order, its
        // score turned by hand.
        let mut engine = Engine::new();
        engine.new_game();
        for line in &new[..20] {
            let (pos, label, _) = text::parse_line(line).unwrap();
            let white = pos.turn() == shakmaty::Color::White;
            engine.set_root(pos);
            let score = engine.think(&move_limits(400)).report.score;
            assert_eq!(i32::from(label), if white { score } else { -score }, "{line}");
        }
    }

    #[test]
    fn chunks_come_out_in_order_whatever_the_threads_and_a_stopped_run_resumes() {
        let dir = ScratchDir::new("rescore-resume");
        let input = text_input(&dir);
        let config = |out: &str, threads| Config {
            input: input.clone(),
            out: dir.join(out),
            nodes: 200,
            threads,
            chunk: 16,
        };
        run(&config("one.txt", 1)).unwrap();
        run(&config("two.txt", 2)).unwrap();
        let whole = std::fs::read(dir.join("one.txt")).unwrap();
        assert_eq!(std::fs::read(dir.join("two.txt")).unwrap(), whole);
        // A run stopped after three chunks (its input then ended there),
        // with a torn line after them: the next run cuts the torn bytes
        // and goes on to the same file.
        let first_48: String =
            std::fs::read_to_string(&input).unwrap().lines().take(48).map(|l| format!("{l}\n")).collect();
        let short = dir.join("short.txt");
        std::fs::write(&short, first_48).unwrap();
        run(&Config { input: short, ..config("resumed.txt", 2) }).unwrap();
        let record = read_progress(&progress_path(&dir.join("resumed.txt"))).unwrap();
        assert_eq!((record.written, record.next), (48, 48));
        let mut torn = std::fs::read(dir.join("resumed.txt")).unwrap();
        torn.extend_from_slice(b"8/8/8 | 12");
        std::fs::write(dir.join("resumed.txt"), torn).unwrap();
        run(&config("resumed.txt", 2)).unwrap();
        assert_eq!(std::fs::read(dir.join("resumed.txt")).unwrap(), whole);
    }
}
