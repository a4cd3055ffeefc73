//! The binary game format `backrank datagen` writes: whole games, one
//! record after another, so that files can be appended to and joined.
//!
//! A record, all numbers little-endian:
//!
//! | bytes | what |
//! |---|---|
//! | 1 | tag `0xB1` (format 1) |
//! | 1 | outcome: 0 Black wins, 1 draw, 2 White wins |
//! | 1 | length `L` of the start FEN |
//! | L | start position, FEN (X-FEN castling; Chess960 and DFRC alike) |
//! | 2 | number of moves `N` |
//! | 4 N | per move: the move (u16), then the score (i16, centipawns, White's view, of the position it was played from) |
//!
//! A move is `from | to << 6 | promotion << 12`: squares 0 (a1) to 63
//! (h8), promotion 0 for none else the role (2 knight ... 5 queen).
//! Castling is written king-takes-rook (`to` is the rook's square), as
//! everywhere inside Backrank. About 4 bytes a position in all.

use std::io::{self, Read, Write};

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position, Role, Square};

use crate::{Game, Outcome};

const TAG: u8 = 0xB1;

/// The 16-bit code of `m`.
pub fn encode_move(m: Move) -> u16 {
    let (from, to) = match m {
        Move::Castle { king, rook } => (king, rook),
        _ => (m.from().expect("not a drop"), m.to()),
    };
    let promotion = m.promotion().map_or(0, |role| role as u16);
    from as u16 | (to as u16) << 6 | promotion << 12
}

/// The legal move of `pos` with code `code`.
pub fn decode_move(pos: &Chess, code: u16) -> Option<Move> {
    let from = Square::new(u32::from(code & 63));
    let to = Square::new(u32::from((code >> 6) & 63));
    let promotion = match code >> 12 {
        0 => None,
        r => Some(Role::try_from(r as u8).ok()?),
    };
    pos.legal_moves().into_iter().find(|&m| {
        let target = if let Move::Castle { rook, .. } = m { rook } else { m.to() };
        m.from() == Some(from) && target == to && m.promotion() == promotion
    })
}

/// Appends one game.
pub fn write_game(out: &mut impl Write, game: &Game) -> io::Result<()> {
    let fen = Fen::from_position(&game.start, EnPassantMode::Legal).to_string();
    let count = u16::try_from(game.moves.len()).map_err(|_| io::Error::other("game too long"))?;
    let mut bytes = Vec::with_capacity(5 + fen.len() + 4 * game.moves.len());
    let outcome = match game.outcome {
        Outcome::BlackWins => 0,
        Outcome::Draw => 1,
        Outcome::WhiteWins => 2,
    };
    bytes.extend_from_slice(&[TAG, outcome, fen.len() as u8]);
    bytes.extend_from_slice(fen.as_bytes());
    bytes.extend_from_slice(&count.to_le_bytes());
    for &(m, score) in &game.moves {
        bytes.extend_from_slice(&encode_move(m).to_le_bytes());
        bytes.extend_from_slice(&score.to_le_bytes());
    }
    out.write_all(&bytes)
}

/// Reads games until the end of `input`. A record cut short (a writer
/// killed mid-write) or a move that is not legal ends the stream with an error.
pub struct GameReader<R> {
    input: R,
    done: bool,
}

impl<R: Read> GameReader<R> {
    pub fn new(input: R) -> GameReader<R> {
        GameReader { input, done: false }
    }

    fn read_game(&mut self) -> Result<Option<Game>, String> {
        let mut head = [0u8; 3];
        match self.input.read(&mut head[..1]) {
            Ok(0) => return Ok(None),
            Ok(_) => {}
            Err(e) => return Err(e.to_string()),
        }
        let cut = |e: io::Error| format!("record cut short: {e}");
        self.input.read_exact(&mut head[1..]).map_err(cut)?;
        if head[0] != TAG {
            return Err(format!("bad record tag {:#x}", head[0]));
        }
        let outcome = match head[1] {
            0 => Outcome::BlackWins,
            1 => Outcome::Draw,
            2 => Outcome::WhiteWins,
            other => return Err(format!("bad outcome {other}")),
        };
        let mut fen = vec![0u8; usize::from(head[2])];
        self.input.read_exact(&mut fen).map_err(cut)?;
        let start: Chess = Fen::from_ascii(&fen)
            .map_err(|e| format!("bad start FEN: {e}"))?
            .into_position(CastlingMode::Chess960)
            .map_err(|e| format!("bad start position: {e}"))?;
        let mut count = [0u8; 2];
        self.input.read_exact(&mut count).map_err(cut)?;
        let mut body = vec![0u8; 4 * usize::from(u16::from_le_bytes(count))];
        self.input.read_exact(&mut body).map_err(cut)?;
        let mut pos = start.clone();
        let mut moves = Vec::with_capacity(body.len() / 4);
        for chunk in body.chunks_exact(4) {
            let code = u16::from_le_bytes([chunk[0], chunk[1]]);
            let m = decode_move(&pos, code).ok_or_else(|| format!("illegal move code {code:#x}"))?;
            moves.push((m, i16::from_le_bytes([chunk[2], chunk[3]])));
            pos.play_unchecked(m);
        }
        Ok(Some(Game { start, moves, outcome }))
    }
}

impl<R: Read> Iterator for GameReader<R> {
    type Item = Result<Game, String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let game = self.read_game().transpose();
        self.done = !matches!(game, Some(Ok(_)));
        game
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{position, sample_game};

    #[test]
    fn games_round_trip_and_damage_is_reported() {
        let game = sample_game();
        assert!(game.moves.iter().any(|(m, _)| m.is_castle()));
        let mut bytes = Vec::new();
        write_game(&mut bytes, &game).unwrap();
        let other = Game { outcome: Outcome::Draw, moves: game.moves[..3].to_vec(), ..game.clone() };
        write_game(&mut bytes, &other).unwrap();
        let read: Vec<Game> = GameReader::new(&bytes[..]).map(Result::unwrap).collect();
        assert_eq!(read, vec![game.clone(), other]);
        // Four bytes a move, plus at most 95 for each start.
        assert!(bytes.len() <= 4 * (game.moves.len() + 3) + 2 * 95);
        let cut: Vec<_> = GameReader::new(&bytes[..bytes.len() - 2]).collect();
        assert!(cut[0].is_ok() && cut[1].as_ref().unwrap_err().contains("cut short"));
        assert_eq!(GameReader::new(&b""[..]).count(), 0);
    }

    #[test]
    fn every_kind_of_move_has_a_code() {
        for fen in [
            "1r2k1r1/pbppnp1p/1b3P2/8/Q7/B1PB1q2/P4PPP/3RK1R1 w GDgb - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "2r1kr2/8/8/8/8/8/8/1R2K1R1 w GBfc - 0 1",
        ] {
            let pos = position(fen);
            for m in pos.legal_moves() {
                assert_eq!(decode_move(&pos, encode_move(m)), Some(m), "{fen}: {m:?}");
            }
        }
    }
}
