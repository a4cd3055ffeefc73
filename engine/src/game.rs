//! The game the GUI has set up: a start position and the moves played
//! from it, kept as the list of positions (for repetitions).

use backrank_search::position_keys;
use backrank_uci::PositionStart;
use backrank_uci::notation::{parse_fen, parse_move};
use shakmaty::{Chess, Move, Position};

/// Start position plus moves; the last position is the one to search.
#[derive(Debug, Clone)]
pub struct Game {
    positions: Vec<Chess>,
}

impl Default for Game {
    fn default() -> Self {
        Game { positions: vec![Chess::default()] }
    }
}

impl Game {
    /// Builds the game of a `position` command. A bad FEN is an error (the
    /// caller keeps its old game); a bad move ends the move list there, and
    /// the game is the legal prefix, with the reason as the second value.
    pub fn from_command(start: &PositionStart, moves: &[String]) -> Result<(Game, Option<String>), String> {
        let root = match start {
            PositionStart::StartPos => Chess::default(),
            PositionStart::Fen(fen) => parse_fen(fen)?,
        };
        let mut game = Game { positions: vec![root] };
        for (index, text) in moves.iter().enumerate() {
            match parse_move(game.current(), text) {
                Ok(m) => game.play(m),
                Err(e) => {
                    let why = format!("move {} of the list: {e}; using the position before it", index + 1);
                    return Ok((game, Some(why)));
                }
            }
        }
        Ok((game, None))
    }

    /// A game that starts at `pos`.
    pub fn from_position(pos: Chess) -> Game {
        Game { positions: vec![pos] }
    }

    /// The position to move in.
    pub fn current(&self) -> &Chess {
        self.positions.last().expect("a game has a position")
    }

    /// Plays a legal move.
    pub fn play(&mut self, m: Move) {
        let mut next = self.current().clone();
        next.play_unchecked(m);
        self.positions.push(next);
    }

    /// The positions before the current one since the last irreversible
    /// move (the only ones a repetition can come from), oldest first.
    pub fn history(&self) -> &[Chess] {
        let before = &self.positions[..self.positions.len() - 1];
        let reversible = self.current().halfmoves() as usize;
        &before[before.len().saturating_sub(reversible)..]
    }

    /// How often the current position stood before in the game (same
    /// board, side to move, castling rights and en passant square).
    pub fn repetitions(&self) -> usize {
        let key = position_keys([self.current()])[0];
        position_keys(self.history()).into_iter().filter(|&k| k == key).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legal_prefix_on_bad_move() {
        let moves: Vec<String> = ["e2e4", "e7e5", "e1e3", "g1f3"].iter().map(|s| s.to_string()).collect();
        let (game, why) = Game::from_command(&PositionStart::StartPos, &moves).unwrap();
        assert_eq!(game.positions.len(), 3);
        assert!(why.unwrap().contains("e1e3"));
    }

    #[test]
    fn history_since_irreversible_move() {
        let moves: Vec<String> =
            ["e2e4", "e7e5", "g1f3", "b8c6", "f3g1"].iter().map(|s| s.to_string()).collect();
        let (game, why) = Game::from_command(&PositionStart::StartPos, &moves).unwrap();
        assert!(why.is_none());
        assert_eq!(game.current().halfmoves(), 3);
        assert_eq!(game.history().len(), 3);
        assert!(Game::from_command(&PositionStart::Fen("junk".into()), &[]).is_err());
    }

    #[test]
    fn repetitions_count_earlier_occurrences() {
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let moves: Vec<String> = shuffle.iter().cycle().take(8).map(|s| s.to_string()).collect();
        let counts: Vec<usize> = (0..=8)
            .map(|n| Game::from_command(&PositionStart::StartPos, &moves[..n]).unwrap().0.repetitions())
            .collect();
        assert_eq!(counts, [0, 0, 0, 0, 1, 1, 1, 1, 2]);
        // A position never seen before.
        let moves: Vec<String> =
            ["g1f3", "g8f6", "f3g1", "f6g8", "b1c3"].iter().map(|s| s.to_string()).collect();
        assert_eq!(Game::from_command(&PositionStart::StartPos, &moves).unwrap().0.repetitions(), 0);
    }
}
