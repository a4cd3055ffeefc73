//! The text format: one position a line,
//! `<FEN> | <score in cp, White's view> | <result 1.0/0.5/0.0, White's view>`.
//! The seed data is in it; `backrank datagen` can export to it.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode};

use crate::{Game, Outcome, Sample};

/// Reads one line; `None` if it is not in the format.
pub fn parse_line(line: &str) -> Option<(Chess, i16, Outcome)> {
    let mut fields = line.split('|').map(str::trim);
    let pos = fields.next()?.parse::<Fen>().ok()?.into_position(CastlingMode::Chess960).ok()?;
    let score = fields.next()?.parse::<i16>().ok()?;
    let outcome = Outcome::from_white_score(fields.next()?.parse::<f32>().ok()?)?;
    fields.next().is_none().then_some((pos, score, outcome))
}

/// One line for a position.
pub fn format_line(pos: &Chess, score: i16, outcome: Outcome) -> String {
    let fen = Fen::from_position(pos, EnPassantMode::Legal);
    format!("{fen} | {score} | {:.1}", outcome.white_score())
}

/// The lines of a game's samples that `keep` accepts.
pub fn game_lines(game: &Game, mut keep: impl FnMut(&Sample) -> bool) -> Vec<String> {
    game.samples().filter(|s| keep(s)).map(|s| format_line(&s.position, s.score, s.outcome)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::sample_game;
    use shakmaty::Position;

    #[test]
    fn lines_round_trip() {
        let game = sample_game();
        let lines = game_lines(&game, |_| true);
        assert_eq!(lines.len(), game.moves.len());
        for (line, sample) in lines.iter().zip(game.samples()) {
            let (pos, score, outcome) = parse_line(line).unwrap();
            assert_eq!(pos.board(), sample.position.board());
            assert_eq!(pos.castles().castling_rights(), sample.position.castles().castling_rights());
            assert_eq!((score, outcome), (sample.score, Outcome::BlackWins));
        }
        let seed = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | -35 | 0.5";
        assert_eq!(parse_line(seed).map(|(_, s, o)| (s, o)), Some((-35, Outcome::Draw)));
        assert!(parse_line("not a fen | 1 | 0.5").is_none());
        assert!(parse_line(&seed.replace("0.5", "0.7")).is_none());
    }
}
