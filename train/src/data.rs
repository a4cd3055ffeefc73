//! Training positions: reading the self-play text format, the compact
//! in-memory [`Dataset`], its binary cache, and the train/validation split.
//!
//! Text lines are `<FEN> | <score in cp, White's view> | <result 1.0/0.5/0.0,
//! White's view>`, FENs in X-FEN/Shredder notation (parsed as Chess960).
//! Each line becomes one record, stored relative to the side to move: the
//! score negated and the result flipped when Black is to move. A record keeps
//! the pieces as White-perspective input indices ([`feature`]); Black's are
//! derived with [`crate::model::mirror`]. Lines that do not parse stay as
//! records flagged [`FLAG_BAD`] so that records and lines correspond one to
//! one (the cache and `limit` count lines); the filters ([`Dataset::usable`])
//! drop them, positions in check, and mate-ish scores at training time.
//!
//! # The cache
//!
//! Parsing 3.8 M FENs takes seconds; the cache (`cache-<file name>.bin` in
//! the cache folder) loads them back in well under that. It covers a prefix
//! of the text file: its header records how many bytes of text it consumed
//! (whole lines only), how many records that gave, and FNV-1a hashes of the
//! first and the last 64 KiB of that prefix. On load the hashes are checked
//! against the text file: if they match the cached records are used and only
//! the lines after the prefix are parsed and appended to the cache (a file
//! that another process appends to costs only its new lines); if they do not
//! match, or the file shrank, the file is parsed afresh and the cache
//! rewritten. With `limit`, no more lines than needed are parsed.
//!
//! Layout, little-endian: magic `BKRKTDC1`, then u64 consumed bytes, u64
//! records, u64 record bytes, u64 head hash, u64 tail hash; then per record
//! u8 piece count `n`, u8 flags, u8 result (0/1/2, side to move's view),
//! i16 score (cp, side to move's view), `n` x u16 feature indices.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::thread;

use backrank_data::{Filter, Outcome, text};
use backrank_eval::nnue::feature;
use backrank_util::hash::{FNV_OFFSET_BASIS, FNV_PRIME, fnv1a};
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
const CACHE_MAGIC: &[u8; 8] = b"BKRKTDC1";
const CACHE_HEADER: u64 = 48;
const PROBE: u64 = 64 * 1024;

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

/// The cache's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct CacheHeader {
    consumed: u64,
    records: u64,
    record_bytes: u64,
    head: u64,
    tail: u64,
}

impl CacheHeader {
    fn to_bytes(self) -> Vec<u8> {
        let mut out = CACHE_MAGIC.to_vec();
        for word in [self.consumed, self.records, self.record_bytes, self.head, self.tail] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out
    }

    fn from_bytes(bytes: &[u8]) -> Option<CacheHeader> {
        if bytes.len() < CACHE_HEADER as usize || &bytes[..8] != CACHE_MAGIC {
            return None;
        }
        let word =
            |i: usize| u64::from_le_bytes(bytes[8 + 8 * i..16 + 8 * i].try_into().expect("eight bytes"));
        Some(CacheHeader {
            consumed: word(0),
            records: word(1),
            record_bytes: word(2),
            head: word(3),
            tail: word(4),
        })
    }
}

/// Hashes of the first and the last [`PROBE`] bytes of the text's first
/// `consumed` bytes.
fn prefix_hashes(text: &mut File, consumed: u64) -> io::Result<(u64, u64)> {
    let mut region = |start: u64, len: u64| -> io::Result<u64> {
        let mut buf = vec![0; len as usize];
        text.seek(SeekFrom::Start(start))?;
        text.read_exact(&mut buf)?;
        Ok(fnv1a(&buf))
    };
    let len = consumed.min(PROBE);
    Ok((region(0, len)?, region(consumed - len, len)?))
}

/// Appends every record of `data` to `out` in the cache's layout.
fn encode_records(data: &Dataset, out: &mut Vec<u8>) {
    for i in 0..data.len() {
        let features = data.features_of(i);
        out.extend_from_slice(&[features.len() as u8, data.flags[i], data.results[i]]);
        out.extend_from_slice(&data.scores[i].to_le_bytes());
        for f in features {
            out.extend_from_slice(&f.to_le_bytes());
        }
    }
}

/// Decodes up to `max` records from `bytes` into `data`; `None` if the
/// bytes end inside a record.
fn decode_records(mut bytes: &[u8], max: usize, data: &mut Dataset) -> Option<()> {
    let mut features = Vec::with_capacity(MAX_PIECES);
    for _ in 0..max {
        let (head, rest) = bytes.split_at_checked(5)?;
        let count = usize::from(head[0]);
        let (body, rest) = rest.split_at_checked(2 * count)?;
        features.clear();
        features.extend(body.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])));
        data.push(&features, i16::from_le_bytes([head[3], head[4]]), head[2], head[1]);
        bytes = rest;
    }
    Some(())
}

/// Where the cache of the text file `text` lives in the folder `dir`.
pub fn cache_path(dir: &Path, text: &Path) -> PathBuf {
    let name = text.file_name().map_or_else(|| "data".into(), |n| n.to_string_lossy().into_owned());
    dir.join(format!("cache-{name}.bin"))
}

/// What [`load_file`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LoadReport {
    /// Records taken from the cache.
    pub cached: usize,
    /// Records parsed from the text now.
    pub parsed: usize,
    /// Lines that did not parse, among all the records returned.
    pub bad: usize,
}

/// Reads the cache at `path` if it still describes a prefix of `text`,
/// with up to `max` of its records.
fn read_cache(path: &Path, text: &mut File, text_len: u64, max: usize) -> Option<(CacheHeader, Dataset)> {
    let mut file = File::open(path).ok()?;
    let mut head = [0; CACHE_HEADER as usize];
    file.read_exact(&mut head).ok()?;
    let header = CacheHeader::from_bytes(&head)?;
    if header.consumed > text_len || prefix_hashes(text, header.consumed).ok()? != (header.head, header.tail)
    {
        return None;
    }
    let mut bytes = vec![0; usize::try_from(header.record_bytes).ok()?];
    file.read_exact(&mut bytes).ok()?;
    let take = max.min(usize::try_from(header.records).ok()?);
    let mut data = Dataset::new();
    data.features.reserve(bytes.len() / 2);
    decode_records(&bytes, take, &mut data)?;
    Some((header, data))
}

/// Writes the encoded `records` after the first `kept` record bytes of the
/// cache at `path` (dropping any others), then `header`.
fn append_cache(path: &Path, kept: u64, records: &[u8], header: CacheHeader) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path)?;
    // A blank header first: a crash before the real one is written leaves
    // a file that is refused rather than misread.
    file.set_len(CACHE_HEADER + kept)?;
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&[0; CACHE_HEADER as usize])?;
    file.seek(SeekFrom::Start(CACHE_HEADER + kept))?;
    file.write_all(records)?;
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&header.to_bytes())?;
    Ok(())
}

/// The first `limit` records (all without one) of the text file `path`,
/// through the cache at `cache`, parsing on `threads` threads.
pub fn load_file(
    path: &Path,
    cache: &Path,
    limit: Option<usize>,
    threads: usize,
) -> Result<(Dataset, LoadReport), String> {
    let err = |e: io::Error| format!("{}: {e}", path.display());
    let mut text = File::open(path).map_err(err)?;
    let text_len = text.metadata().map_err(err)?.len();
    let max = limit.unwrap_or(usize::MAX);
    let (old, mut data) = match read_cache(cache, &mut text, text_len, max) {
        Some((header, data)) => (Some(header), data),
        None => (None, Dataset::new()),
    };
    let mut report = LoadReport { cached: data.len(), ..LoadReport::default() };
    let header = old.unwrap_or_default();
    let cache_complete = data.len() as u64 == header.records;
    if data.len() < max && cache_complete && header.consumed < text_len {
        let mut rest = Vec::new();
        text.seek(SeekFrom::Start(header.consumed)).map_err(err)?;
        text.read_to_end(&mut rest).map_err(err)?;
        let take = whole_lines(&rest, limit.map(|l| l - data.len()));
        let new = parse_text(&rest[..take], threads);
        report.parsed = new.len();
        data.extend(&new);
        let consumed = header.consumed + take as u64;
        let (head, tail) = prefix_hashes(&mut text, consumed).map_err(err)?;
        let mut bytes = Vec::new();
        encode_records(&new, &mut bytes);
        let kept = old.map_or(0, |h| h.record_bytes);
        let new_header = CacheHeader {
            consumed,
            records: data.len() as u64,
            record_bytes: kept + bytes.len() as u64,
            head,
            tail,
        };
        if take > 0
            && let Err(e) = append_cache(cache, kept, &bytes, new_header)
        {
            eprintln!("warning: cannot write the cache {}: {e}", cache.display());
        }
    }
    report.bad = data.flags.iter().filter(|&&f| f & FLAG_BAD != 0).count();
    Ok((data, report))
}

/// The records of several files in order, at most `limit` in all: text
/// files cached in the folder `cache_dir`, game files (`.bin`, `.pgn`) read
/// through `filter`. Reports each file to `log`.
pub fn load(
    paths: &[PathBuf],
    cache_dir: &Path,
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
        if backrank_data::is_game_file(path) {
            let data = load_games(path, filter, left, log)?;
            let _ = writeln!(
                log,
                "{}: {} positions kept in {:.1}s",
                path.display(),
                data.len(),
                start.elapsed().as_secs_f64()
            );
            all.extend(&data);
            continue;
        }
        let (data, report) = load_file(path, &cache_path(cache_dir, path), left, threads)?;
        let _ = writeln!(
            log,
            "{}: {} records ({} cached, {} parsed, {} bad lines) in {:.1}s",
            path.display(),
            data.len(),
            report.cached,
            report.parsed,
            report.bad,
            start.elapsed().as_secs_f64()
        );
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
