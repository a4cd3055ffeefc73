//! Games in PGN as cutechess and fastchess write them, for example the
//! games an OpenBench datagen workload returns: `[FEN]` and `[Variant]`
//! tags (castling read in Chess960 mode always), SAN moves, and after each
//! engine move a comment like `{+0.35/12 0.123s}` (pawns from the mover's
//! view, then depth and time; `+M5` or `-M3` for a mate). Moves without
//! such a comment (`{book}`) get [`NO_SCORE`] and are never trained on.
//!
//! Read by [`pgn_reader`], streaming: [`games`] takes any reader and gives
//! the games one at a time, holding one game and a small buffer, never the
//! whole file. Variations `( ... )`, nested or not, are skipped, as are
//! NAGs (`$1`, `!?`) and comments without a score; a token that is no move
//! at all is passed over by the reader (the next move is then most likely
//! illegal, and the game an error).

use std::io::Read;
use std::ops::ControlFlow;

use pgn_reader::{KnownOutcome, RawComment, RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use crate::{Game, NO_SCORE, Outcome};

/// A mate score from a comment, in centipawns: beyond any filter's reach.
const MATE_SCORE: i16 = 32_000;

/// The games of a PGN stream (a file: no need for a `BufReader`, the PGN
/// reader buffers), one at a time. Games without a result (`*`) are
/// skipped; a game that cannot be read (an unknown start, an illegal move)
/// gives an error naming its number, counted from 1 over every game of the
/// stream, and reading goes on with the next game. A read error or a
/// broken file (an unterminated tag or comment) gives an error and ends
/// the stream.
pub fn games<R: Read>(input: R) -> Games<R> {
    Games { reader: Reader::new(input), visitor: GameVisitor::default(), done: false }
}

/// Every game of a PGN text, as [`games`] gives them.
pub fn parse_games(text: &str) -> Vec<Result<Game, String>> {
    games(text.as_bytes()).collect()
}

/// The games of a PGN stream: see [`games`].
#[derive(Debug)]
pub struct Games<R> {
    reader: Reader<R>,
    visitor: GameVisitor,
    done: bool,
}

impl<R: Read> Iterator for Games<R> {
    type Item = Result<Game, String>;

    fn next(&mut self) -> Option<Result<Game, String>> {
        while !self.done {
            // The visitor counts a game when its tags begin.
            let number = self.visitor.games + 1;
            match self.reader.read_game(&mut self.visitor) {
                Ok(Some(Ok(Some(game)))) => return Some(Ok(game)),
                Ok(Some(Ok(None))) => {}
                Ok(Some(Err(e))) => return Some(Err(format!("game {number}: {e}"))),
                Ok(None) => self.done = true,
                Err(e) => {
                    self.done = true;
                    return Some(Err(format!("game {number}: {e}")));
                }
            }
        }
        None
    }
}

/// Builds each game as the reader goes; counts the games begun.
#[derive(Debug, Default)]
struct GameVisitor {
    games: usize,
}

/// What the tags say: where the game starts, its result.
#[derive(Default)]
struct Tags {
    start: Option<Chess>,
    outcome: Option<Outcome>,
}

/// The game so far.
struct Movetext {
    start: Chess,
    pos: Chess,
    moves: Vec<(Move, i16)>,
    outcome: Option<Outcome>,
    /// Inside a comment too long for the reader's buffer, past its first
    /// chunk (the only one that can hold the score).
    long_comment: bool,
}

/// A game ([`None`] without a result) or why it cannot be read.
type GameOutput = Result<Option<Game>, String>;

impl Visitor for GameVisitor {
    type Tags = Tags;
    type Movetext = Movetext;
    type Output = GameOutput;

    fn begin_tags(&mut self) -> ControlFlow<GameOutput, Tags> {
        self.games += 1;
        ControlFlow::Continue(Tags::default())
    }

    fn tag(&mut self, tags: &mut Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<GameOutput> {
        match name {
            b"FEN" => match start_of(value.as_bytes()) {
                Ok(start) => tags.start = Some(start),
                Err(e) => return ControlFlow::Break(Err(e)),
            },
            b"Result" => tags.outcome = outcome_of(value.as_bytes()),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<GameOutput, Movetext> {
        let start = tags.start.unwrap_or_default();
        let pos = start.clone();
        ControlFlow::Continue(Movetext {
            start,
            pos,
            moves: Vec::new(),
            outcome: tags.outcome,
            long_comment: false,
        })
    }

    fn san(&mut self, movetext: &mut Movetext, san_plus: SanPlus) -> ControlFlow<GameOutput> {
        match san_plus.san.to_move(&movetext.pos) {
            Ok(m) => {
                movetext.moves.push((m, NO_SCORE));
                movetext.pos.play_unchecked(m);
                ControlFlow::Continue(())
            }
            Err(_) => ControlFlow::Break(Err(format!("illegal move '{san_plus}'"))),
        }
    }

    fn partial_comment(
        &mut self,
        movetext: &mut Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<GameOutput> {
        if !movetext.long_comment {
            movetext.read_score(comment.as_bytes());
        }
        movetext.long_comment = true;
        ControlFlow::Continue(())
    }

    fn comment(&mut self, movetext: &mut Movetext, comment: RawComment<'_>) -> ControlFlow<GameOutput> {
        if !std::mem::take(&mut movetext.long_comment) {
            movetext.read_score(comment.as_bytes());
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, movetext: &mut Movetext, outcome: pgn_reader::Outcome) -> ControlFlow<GameOutput> {
        movetext.outcome = outcome.known().map(outcome_of_known);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: Movetext) -> GameOutput {
        let Movetext { start, moves, outcome, .. } = movetext;
        Ok(outcome.map(|outcome| Game { start, moves, outcome }))
    }
}

impl Movetext {
    /// The score of a comment, if it has one, as the last move's: the score
    /// of the position it was played from, given from the mover's view.
    fn read_score(&mut self, comment: &[u8]) {
        let mover = !self.pos.turn();
        if let (Some((_, score)), Some(cp)) = (self.moves.last_mut(), comment_score(comment)) {
            *score = if mover == Color::White { cp } else { cp.saturating_neg() };
        }
    }
}

/// The position of a `[FEN]` tag, in Chess960 mode.
fn start_of(fen: &[u8]) -> Result<Chess, String> {
    Fen::from_ascii(fen)
        .map_err(|e| format!("bad FEN: {e}"))?
        .into_position(CastlingMode::Chess960)
        .map_err(|e| format!("bad start position: {e}"))
}

/// The outcome of a `[Result]` tag: `None` for `*` or anything else.
fn outcome_of(result: &[u8]) -> Option<Outcome> {
    KnownOutcome::from_ascii(result).ok().map(outcome_of_known)
}

fn outcome_of_known(outcome: KnownOutcome) -> Outcome {
    Outcome::from_winner(outcome.winner())
}

/// The centipawns of a `{+0.35/12 0.123s}` comment, from the mover's view.
fn comment_score(comment: &[u8]) -> Option<i16> {
    let first = std::str::from_utf8(comment).ok()?.split_whitespace().next()?;
    let score = first.split('/').next()?;
    if let Some(mate) = score.strip_prefix("+M").or(score.strip_prefix("M")) {
        return mate.parse::<u32>().ok().map(|_| MATE_SCORE);
    }
    if let Some(mate) = score.strip_prefix("-M") {
        return mate.parse::<u32>().ok().map(|_| -MATE_SCORE);
    }
    if !first.contains('/') {
        return None;
    }
    let pawns: f64 = score.parse().ok()?;
    Some((pawns * 100.0).round().clamp(-30_000.0, 30_000.0) as i16)
}

#[cfg(test)]
mod tests {
    use shakmaty::CastlingSide;

    use super::*;

    const PGN: &str = r#"[Event "datagen"]
[Variant "fischerandom"]
[FEN "1r2k1r1/pbppnp1p/1b3P2/8/Q7/B1PB1q2/P4PPP/3RK1R1 w GDgb - 0 1"]
[Result "0-1"]

1. O-O {book} O-O-O {+0.35/12 0.123s} 2. Qxa7 {-0.20/11 0.101s} Qxf2+
{+M3/20 0.2s} 0-1

[Event "second"]
[Result "1/2-1/2"]

1. e4 {+0.30/10 0.1s} e5 {-0.25/10 0.1s} 1/2-1/2
"#;

    fn scores(game: &Game) -> Vec<i16> {
        game.moves.iter().map(|&(_, s)| s).collect()
    }

    fn read(pgn: &str) -> Vec<Game> {
        parse_games(pgn).into_iter().map(Result::unwrap).collect()
    }

    #[test]
    fn reads_fastchess_games_with_their_scores() {
        let games = read(PGN);
        assert_eq!(games.len(), 2);
        let first = &games[0];
        assert_eq!(first.outcome, Outcome::BlackWins);
        assert!(first.moves[0].0.is_castle() && first.moves[1].0.is_castle());
        // Book, Black's +0.35, White's -0.20, Black's mate in 3: White's view.
        assert_eq!(scores(first), vec![NO_SCORE, -35, -20, -MATE_SCORE]);
        assert_eq!(scores(&games[1]), vec![30, 25]);
        assert_eq!(games[1].outcome, Outcome::Draw);
        assert!(parse_games("[FEN \"bad\"]\n\n1. e4 1-0\n")[0].is_err());
        assert!(parse_games("1. e4 e4 1-0\n")[0].as_ref().unwrap_err().contains("illegal"));
    }

    #[test]
    fn variations_nags_and_extra_comments_are_skipped() {
        let pgn = "[Result \"1-0\"]\n\n1. e4 $1 {+0.30/10 0.1s} (1. d4 d5 (1... Nf6 2. c4 {-0.50/3 0s} \
                   (2. Nf3 g6)) 2. c4) 1... e5!? {-0.25/10 0.1s} {a second comment} 2. Nf3 {book} \
                   {+0.40/9 0.1s} ; a rest-of-line comment\n2... Nc6?? {-0.60/9 0.1s {nested} the \
                   outer one goes on} 3. Bb5 {book {nested}} 1-0\n";
        let games = read(pgn);
        assert_eq!(games.len(), 1);
        let sans: Vec<String> = games[0].moves.iter().map(|&(m, _)| m.to_string()).collect();
        assert_eq!(sans, ["e2-e4", "e7-e5", "Ng1-f3", "Nb8-c6", "Bf1-b5"]);
        // A later scoring comment of the same move wins; `{` inside a
        // comment does not nest: the first `}` ends it.
        assert_eq!(scores(&games[0]), vec![30, 25, 40, 60, NO_SCORE]);
        assert_eq!(games[0].outcome, Outcome::WhiteWins);
    }

    #[test]
    fn a_chess960_game_castles_both_ways_and_keeps_its_mate_scores() {
        let pgn = "[Variant \"chess 960\"]\n[FEN \"rk2r3/pppppppp/8/8/8/8/PPPPPPPP/RK2R3 w EAea - 0 1\"]\n\
                   [SetUp \"1\"]\n[Result \"1-0\"]\n\n1. O-O-O {+0.10/5 0.01s} O-O {-0.05/5 0.01s} \
                   2. d4 {+M5/30 0.2s} d5 {-M4/30 0.2s} 3. e4 {-M2/30 0.1s} 1-0\n";
        let games = read(pgn);
        let game = &games[0];
        assert_eq!(game.start.castles().castling_rights().count(), 4);
        let sides: Vec<_> = game.moves.iter().map(|&(m, _)| m.castling_side()).collect();
        assert_eq!(sides, [Some(CastlingSide::QueenSide), Some(CastlingSide::KingSide), None, None, None]);
        assert_eq!(scores(game), vec![10, 5, MATE_SCORE, MATE_SCORE, -MATE_SCORE]);
        let end = game.samples().last().map(|s| s.position).unwrap();
        assert_eq!(end.board().king_of(Color::White), Some(shakmaty::Square::C1));
    }

    #[test]
    fn games_without_a_result_are_skipped_and_errors_name_their_game() {
        let pgn = "[Result \"*\"]\n\n1. e4 *\n\n[Result \"1-0\"]\n\n1. d4 1-0\n\n1. e4 e4 1-0\n\n\
                   [FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1-0\n\n1. Nf3 {+0.10/1 0s} 0-1\n";
        let games = parse_games(pgn);
        assert_eq!(games.len(), 4);
        assert_eq!(games[0].as_ref().unwrap().moves.len(), 1);
        assert_eq!(games[1].as_ref().unwrap_err(), "game 3: illegal move 'e4'");
        assert!(games[2].as_ref().unwrap_err().starts_with("game 4: bad start position"));
        assert_eq!(scores(games[3].as_ref().unwrap()), vec![10]);
        assert!(parse_games("1. e4 {unclosed 1-0\n")[0].as_ref().unwrap_err().contains("comment"));
    }

    #[test]
    fn a_long_comment_gives_only_its_first_score() {
        let filler = " -9.99/1 0.5/2".repeat(100);
        let games = read(&format!("1. e4 {{+0.50/9 0.1s{filler}}} e5 {{{filler}}} 1-0\n"));
        assert_eq!(scores(&games[0]), vec![50, 999]);
    }
}
