//! Training positions: reading the text format and game files into the
//! compact in-memory [`Dataset`], and the train/validation split.
//!
//! Text lines are `<FEN> | <score in cp, White's view> | <result 1.0/0.5/0.0,
//! White's view>`, FENs in X-FEN/Shredder notation (parsed as Chess960).
//! Each line becomes one record, stored relative to the side to move: the
//! score negated and the result flipped when Black is to move. A record keeps
//! the pieces as White-perspective input indices ([`feature`]); Black's are
//! derived with [`crate::model::mirror`]. Lines that do not parse stay as
//! records flagged [`FLAG_BAD`] so that records and lines correspond one to
//! one (`limit` counts lines); the filters ([`Dataset::usable`])
//! drop them, positions in check, and mate-ish scores at training time.
//!
//! Text is parsed on several threads each time it is loaded: generation
//! 0's 3.76 M lines take about 5 s on two cores, nothing beside a training
//! run of hours (a binary cache of the parsed records, kept until
//! 2026-12-05, saved those seconds at the cost of 200 lines).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::thread;

use backrank_data::{Filter, Outcome, text};
use backrank_eval::nnue::feature;
use backrank_util::hash::{FNV_OFFSET_BASIS, FNV_PRIME};
use backrank_util::sigmoid;
use shakmaty::{Board, Chess, Color, Piece, Position, Role, Square};

/// Flag bit: Black is to move.
pub const FLAG_BLACK: u8 = 1;
/// Flag bit: the side to move is in check.
pub const FLAG_CHECK: u8 = 2;
/// Flag bit: the line did not parse (the record holds nothing else).
pub const FLAG_BAD: u8 = 4;
/// Positions whose score is at least this far from zero (mate-ish) are skipped.
pub const SCORE_LIMIT: i32 = backrank_data::MAX_SCORE as i32;
/// The default centipawns per unit of the network's output, also the
/// scale of the score's sigmoid in the target (see [`Target`]).
pub const SCORE_SCALE: u32 = 400;

/// How a record's score and game result blend into its training target:
/// `lambda x result + (1 - lambda) x sigmoid(score / scale)`. The scale is
/// also the network's centipawns per unit of output, so a smaller one
/// squashes large scores harder and resolves small ones more finely.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Target {
    /// Weight of the game result (0 to 1).
    pub lambda: f64,
    /// Centipawns per unit of the sigmoid's argument.
    pub scale: f64,
}

const MAX_PIECES: usize = 32;

/// Records in file order, one per text line, relative to the side to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dataset {
    /// Every record's White-perspective feature indices, back to back.
    pub features: Vec<u16>,
    /// Record `i`'s features are `features[offsets[i]..offsets[i + 1]]`.
    pub offsets: Vec<u32>,
    /// Score in centipawns, side to move's view.
    pub scores: Vec<i16>,
    /// Game result, side to move's view: 0 loss, 1 draw, 2 win.
    pub results: Vec<u8>,
    /// [`FLAG_BLACK`], [`FLAG_CHECK`], [`FLAG_BAD`].
    pub flags: Vec<u8>,
}

impl Default for Dataset {
    fn default() -> Dataset {
        Dataset::new()
    }
}

impl Dataset {
    /// No records.
    pub fn new() -> Dataset {
        Dataset {
            features: Vec::new(),
            offsets: vec![0],
            scores: Vec::new(),
            results: Vec::new(),
            flags: Vec::new(),
        }
    }

    /// The number of records.
    pub fn len(&self) -> usize {
        self.scores.len()
    }

    /// Whether there are no records.
    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    /// Record `i`'s White-perspective feature indices.
    pub fn features_of(&self, i: usize) -> &[u16] {
        &self.features[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Whether White is to move in record `i`.
    pub fn white_to_move(&self, i: usize) -> bool {
        self.flags[i] & FLAG_BLACK == 0
    }

    /// Whether record `i` passes the filters: parsed, not in check, score
    /// below [`SCORE_LIMIT`].
    pub fn usable(&self, i: usize) -> bool {
        self.flags[i] & (FLAG_BAD | FLAG_CHECK) == 0 && i32::from(self.scores[i]).abs() < SCORE_LIMIT
    }

    /// The training target of record `i` (see [`Target`]).
    pub fn target(&self, i: usize, target: Target) -> f64 {
        let result = f64::from(self.results[i]) / 2.0;
        target.lambda * result + (1.0 - target.lambda) * sigmoid(f64::from(self.scores[i]) / target.scale)
    }

    /// Appends one record.
    pub fn push(&mut self, features: &[u16], score: i16, result: u8, flags: u8) {
        self.features.extend_from_slice(features);
        self.offsets.push(u32::try_from(self.features.len()).expect("under 4 G features"));
        self.scores.push(score);
        self.results.push(result);
        self.flags.push(flags);
    }

    /// Appends every record of `other`.
    pub fn extend(&mut self, other: &Dataset) {
        for i in 0..other.len() {
            self.push(other.features_of(i), other.scores[i], other.results[i], other.flags[i]);
        }
    }

    /// Keeps the first `len` records.
    pub fn truncate(&mut self, len: usize) {
        if len < self.len() {
            self.features.truncate(self.offsets[len] as usize);
            self.offsets.truncate(len + 1);
            self.scores.truncate(len);
            self.results.truncate(len);
            self.flags.truncate(len);
        }
    }

    /// A hash of the records `indices` name, in that order: a checkpoint
    /// remembers it so that it resumes only on the same data. FNV's
    /// constants over two words a record, with a rotation: not FNV-1a.
    pub fn fingerprint(&self, indices: &[u32]) -> u64 {
        let mut hash = FNV_OFFSET_BASIS ^ indices.len() as u64;
        for &i in indices {
            let i = i as usize;
            let features = self.features_of(i);
            let sum = features.iter().fold(0u64, |s, &f| s.wrapping_mul(769).wrapping_add(u64::from(f)));
            let word = (self.scores[i] as u16 as u64)
                | (u64::from(self.results[i]) << 16)
                | (u64::from(self.flags[i]) << 24)
                | ((i as u64) << 32);
            for x in [word, sum] {
                hash = (hash ^ x).wrapping_mul(FNV_PRIME).rotate_left(29);
            }
        }
        hash
    }
}

/// The record of one text line (without its newline): features, score,
/// result and flags, or `None` when it does not parse.
fn parse_record(line: &[u8], features: &mut Vec<u16>) -> Option<(i16, u8, u8)> {
    let (pos, score, outcome) = text::parse_line(std::str::from_utf8(line).ok()?)?;
    record_of(&pos, score, outcome, features)
}

/// The record of a position with its score (cp, White's view) and its
/// game's outcome: features into `features`, then score, result and flags
/// from the side to move's view; `None` for an impossible board.
pub fn record_of(
    pos: &Chess,
    score: i16,
    outcome: Outcome,
    features: &mut Vec<u16>,
) -> Option<(i16, u8, u8)> {
    if pos.board().occupied().count() > MAX_PIECES {
        return None;
    }
    features.clear();
    features.extend(pos.board().iter().map(|(square, piece)| feature(Color::White, piece, square) as u16));
    let result_white = match outcome {
        Outcome::BlackWins => 0,
        Outcome::Draw => 1,
        Outcome::WhiteWins => 2,
    };
    let black = pos.turn() == Color::Black;
    let score = score.max(-i16::MAX);
    let mut flags = if black { FLAG_BLACK } else { 0 };
    if pos.is_check() {
        flags |= FLAG_CHECK;
    }
    Some(if black { (-score, 2 - result_white, flags) } else { (score, result_white, flags) })
}

/// The positions of a file of whole games that `filter` keeps (the
/// training-time filters: no check, no capture or promotion as the move
/// played, no decided score, not among the first plies), at most `limit`.
/// A record cut short at the end (a datagen still writing) ends the file
/// with a warning to `log`.
pub fn load_games(
    path: &Path,
    filter: &Filter,
    limit: Option<usize>,
    log: &mut dyn Write,
) -> Result<Dataset, String> {
    let games = backrank_data::read_games(path)?;
    let mut data = Dataset::new();
    let mut features = Vec::with_capacity(MAX_PIECES);
    let max = limit.unwrap_or(usize::MAX);
    for game in games {
        let game = match game {
            Ok(game) => game,
            Err(e) => {
                let _ = writeln!(log, "warning: {}: {e}; reading no further", path.display());
                break;
            }
        };
        for sample in game.samples().filter(|s| filter.keeps(s)) {
            if data.len() >= max {
                return Ok(data);
            }
            if let Some((score, result, flags)) =
                record_of(&sample.position, sample.score, sample.outcome, &mut features)
            {
                data.push(&features, score, result, flags);
            }
        }
    }
    Ok(data)
}

/// Parses whole lines, each ending in a newline, on one thread.
fn parse_chunk(text: &[u8]) -> Dataset {
    let mut data = Dataset::new();
    let mut features = Vec::with_capacity(MAX_PIECES);
    for line in text.split_inclusive(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        match parse_record(line, &mut features) {
            Some((score, result, flags)) => data.push(&features, score, result, flags),
            None => data.push(&[], 0, 1, FLAG_BAD),
        }
    }
    data
}

/// Parses `text` (whole lines, each ending in a newline) on `threads`
/// threads, each taking a contiguous run of lines; records in file order.
pub fn parse_text(text: &[u8], threads: usize) -> Dataset {
    let threads = threads.max(1);
    let mut bounds = vec![0];
    for k in 1..threads {
        let guess = (text.len() * k / threads).max(*bounds.last().expect("nonempty"));
        let end = text[guess..].iter().position(|&b| b == b'\n').map_or(text.len(), |p| guess + p + 1);
        bounds.push(end);
    }
    bounds.push(text.len());
    let parts: Vec<Dataset> = thread::scope(|scope| {
        let handles: Vec<_> =
            bounds.windows(2).map(|w| scope.spawn(move || parse_chunk(&text[w[0]..w[1]]))).collect();
        handles.into_iter().map(|h| h.join().expect("a parser thread panicked")).collect()
    });
    let mut data = Dataset::new();
    for part in &parts {
        data.extend(part);
    }
    data
}

/// The length of the longest prefix of `text` made of whole lines, at most
/// `max_lines` of them.
fn whole_lines(text: &[u8], max_lines: Option<usize>) -> usize {
    match max_lines {
        None => text.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1),
        Some(0) => 0,
        Some(n) => {
            let mut seen = 0;
            let mut end = 0;
            for (at, _) in text.iter().enumerate().filter(|&(_, &b)| b == b'\n') {
                seen += 1;
                end = at + 1;
                if seen == n {
                    break;
                }
            }
            end
        }
    }
}

/// The first `limit` records (all without one) of the text file `path`,
/// parsed on `threads` threads: one record a whole line (a line still
/// being written, without its newline, is left for a later read).
pub fn load_file(path: &Path, limit: Option<usize>, threads: usize) -> Result<Dataset, String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(parse_text(&text[..whole_lines(&text, limit)], threads))
}

/// The records of several files in order, at most `limit` in all: text
/// files parsed whole, game files (`.bin`, `.pgn`) read through `filter`.
/// Reports each file to `log`.
pub fn load(
    paths: &[PathBuf],
    limit: Option<usize>,
    filter: &Filter,
    threads: usize,
    log: &mut dyn Write,
) -> Result<Dataset, String> {
    let mut all = Dataset::new();
    for path in paths {
        let left = limit.map(|l| l.saturating_sub(all.len()));
        if left == Some(0) {
            break;
        }
        let start = std::time::Instant::now();
        let (data, what) = if backrank_data::is_game_file(path) {
            let data = load_games(path, filter, left, log)?;
            let what = format!("{} positions kept", data.len());
            (data, what)
        } else {
            let data = load_file(path, left, threads)?;
            let bad = data.flags.iter().filter(|&&f| f & FLAG_BAD != 0).count();
            let what = format!("{} records ({bad} bad lines)", data.len());
            (data, what)
        };
        let _ = writeln!(log, "{}: {what} in {:.1}s", path.display(), start.elapsed().as_secs_f64());
        if all.is_empty() {
            all = data;
        } else {
            all.extend(&data);
        }
    }
    Ok(all)
}

/// The usable records split into training and validation: records come in
/// game order, so validation takes whole runs of games, every
/// `val_every`-th block of `val_block` records (the last block of each
/// group); `val_every == 0` keeps none out.
pub fn split(data: &Dataset, val_block: usize, val_every: usize) -> (Vec<u32>, Vec<u32>) {
    let (mut train, mut val) = (Vec::new(), Vec::new());
    for i in (0..data.len()).filter(|&i| data.usable(i)) {
        let block = i / val_block.max(1);
        if val_every > 0 && block % val_every == val_every - 1 {
            val.push(i as u32);
        } else {
            train.push(i as u32);
        }
    }
    (train, val)
}

/// The board of a record's White-perspective features.
pub fn board_of(features: &[u16]) -> Board {
    let mut board = Board::empty();
    for &f in features {
        let f = usize::from(f);
        let color = if f < 384 { Color::White } else { Color::Black };
        let role = Role::ALL[(f % 384) / 64];
        board.set_piece_at(Square::new((f % 64) as u32), Piece { color, role });
    }
    board
}
