//! Training data, whole games at a time.
//!
//! A [`Game`] is a start position, each move played with the score the
//! search gave the position it was played from (White's view), and the
//! result. Three ways in and out:
//!
//! * [`binary`]: the format `backrank datagen` writes, about 4 bytes a
//!   position (documented there);
//! * [`text`]: `<FEN> | <cp, White's view> | <1.0/0.5/0.0>`, one position a
//!   line (the seed data's format; import and export);
//! * [`pgn`]: games from cutechess/fastchess (for example an OpenBench
//!   datagen workload), with the `{+0.35/12 0.123s}` comments they write.
//!
//! What is trained on is decided when reading, not when generating:
//! [`Filter`] drops positions in check, with a capture or promotion as the
//! best move, with a decided score, or among a game's first plies.

pub mod binary;
pub mod pgn;
pub mod text;

use std::io;
use std::path::Path;

use shakmaty::{Chess, Color, Move, Position};

/// Whether `path` holds whole games (`backrank datagen`'s binary format,
/// `.bin`, or PGN, `.pgn`) rather than text lines.
pub fn is_game_file(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("bin" | "pgn"))
}

/// The games of a `.pgn` file or of a binary file, both streamed (read a
/// game at a time, never whole), each game or why it could not be read; a
/// binary file's stream ends at its first bad record (for example one cut
/// short by a datagen still writing), a PGN file's at a read error or a
/// broken tag or comment (see [`pgn::games`]).
pub fn read_games(path: &Path) -> Result<Box<dyn Iterator<Item = Result<Game, String>> + Send>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(if path.extension().and_then(|e| e.to_str()) == Some("pgn") {
        Box::new(pgn::games(file))
    } else {
        Box::new(binary::GameReader::new(io::BufReader::new(file)))
    })
}

/// A game's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    WhiteWins,
    Draw,
    BlackWins,
}

impl Outcome {
    /// 1, 0.5 or 0: White's score.
    pub fn white_score(self) -> f32 {
        match self {
            Outcome::WhiteWins => 1.0,
            Outcome::Draw => 0.5,
            Outcome::BlackWins => 0.0,
        }
    }

    /// The outcome of a White score of 1, 0.5 or 0.
    pub fn from_white_score(score: f32) -> Option<Outcome> {
        if score == 1.0 {
            Some(Outcome::WhiteWins)
        } else if score == 0.5 {
            Some(Outcome::Draw)
        } else if score == 0.0 {
            Some(Outcome::BlackWins)
        } else {
            None
        }
    }

    /// The winner, if any.
    pub fn from_winner(winner: Option<Color>) -> Outcome {
        match winner {
            Some(Color::White) => Outcome::WhiteWins,
            Some(Color::Black) => Outcome::BlackWins,
            None => Outcome::Draw,
        }
    }
}

/// A score that was not recorded (a book move in a PGN): never trained on.
pub const NO_SCORE: i16 = i16::MIN;

/// A search's score (centipawns or a mate score, `turn`'s view) as games
/// store it: White's view, within an `i16` and never [`NO_SCORE`].
pub fn stored_score(score: i32, turn: Color) -> i16 {
    let white = if turn == Color::White { score } else { -score };
    white.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16
}

/// One game: where it started, what was played, how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    pub start: Chess,
    /// Each move with the score of the position it was played from, in
    /// centipawns from White's view ([`NO_SCORE`] if unknown).
    pub moves: Vec<(Move, i16)>,
    pub outcome: Outcome,
}

/// One position of a game, with what was played there.
#[derive(Debug, Clone)]
pub struct Sample {
    pub position: Chess,
    /// The move played (the search's best move in self-play).
    pub best: Move,
    /// Centipawns, White's view.
    pub score: i16,
    pub outcome: Outcome,
    /// Plies from the game's start.
    pub ply: usize,
}

impl Game {
    /// Every position of the game, in order.
    pub fn samples(&self) -> impl Iterator<Item = Sample> + '_ {
        let mut pos = self.start.clone();
        self.moves.iter().enumerate().map(move |(ply, &(best, score))| {
            let sample = Sample { position: pos.clone(), best, score, outcome: self.outcome, ply };
            pos.play_unchecked(best);
            sample
        })
    }
}

/// Which positions are trained on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Filter {
    /// A game's first plies (the random opening) are skipped.
    pub min_ply: usize,
    /// Scores at least this large (mates, tablebase wins, lopsided
    /// positions) are skipped.
    pub max_score: i16,
}

/// Scores at least this large are decided: never trained on.
pub const MAX_SCORE: i16 = 3000;

impl Default for Filter {
    fn default() -> Filter {
        Filter { min_ply: 8, max_score: MAX_SCORE }
    }
}

impl Filter {
    /// True if `sample` is a quiet, undecided position past the opening.
    pub fn keeps(&self, sample: &Sample) -> bool {
        sample.ply >= self.min_ply
            && sample.score != NO_SCORE
            && sample.score.unsigned_abs() < self.max_score.unsigned_abs()
            && !sample.position.is_check()
            && !sample.best.is_capture()
            && !sample.best.is_promotion()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) use backrank_util::position;

    /// A short game from a Chess960 start with a castle, a capture and a check.
    pub(crate) fn sample_game() -> Game {
        let mut pos = position("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
        let start = pos.clone();
        let mut moves = Vec::new();
        for i in 0..30 {
            let legal = pos.legal_moves();
            let Some(&m) = legal
                .iter()
                .find(|m| m.is_castle())
                .or(legal.iter().find(|m| m.is_capture()))
                .or(legal.get(i % legal.len().max(1)))
            else {
                break;
            };
            moves.push((m, (i as i16 - 15) * 7));
            pos.play_unchecked(m);
            if pos.is_game_over() {
                break;
            }
        }
        Game { start, moves, outcome: Outcome::BlackWins }
    }

    #[test]
    fn stored_scores_are_whites_and_fit_in_sixteen_bits() {
        assert_eq!(stored_score(35, Color::White), 35);
        assert_eq!(stored_score(35, Color::Black), -35);
        // Mate scores are larger than an i16: they keep their sign and
        // stay clear of NO_SCORE.
        assert_eq!(stored_score(1_000_000, Color::Black), -i16::MAX);
        assert_eq!(stored_score(-1_000_000, Color::Black), i16::MAX);
        assert_ne!(stored_score(i32::MIN + 1, Color::White), NO_SCORE);
    }

    #[test]
    fn samples_replay_the_game_and_the_filter_drops_what_it_should() {
        let game = sample_game();
        let samples: Vec<Sample> = game.samples().collect();
        assert_eq!(samples.len(), game.moves.len());
        assert!(samples.iter().all(|s| s.position.is_legal(s.best)));
        let filter = Filter { min_ply: 2, max_score: 3000 };
        for s in &samples {
            let quiet = !s.position.is_check() && !s.best.is_capture() && !s.best.is_promotion();
            assert_eq!(filter.keeps(s), quiet && s.ply >= 2, "{:?}", s.best);
        }
        let mut decided = samples[5].clone();
        decided.score = 3000;
        assert!(!filter.keeps(&decided));
        decided.score = NO_SCORE;
        assert!(!filter.keeps(&decided));
    }
}
