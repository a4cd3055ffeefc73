//! Static evaluation: a position in, a score out (centipawns, from the side
//! to move's point of view).
//!
//! Eval v1 is tapered material plus piece-square tables: every term has a
//! middlegame and an endgame value, blended by the game phase (the non-pawn
//! material left), plus a small bonus for having the move. The tables are
//! built by formulas in [`pst`] rather than typed in, and are mirrored for
//! Black, so the evaluation of the colour-flipped position is exactly the same.

mod pst;

use shakmaty::{Bitboard, Chess, Color, Position, Role};

pub use pst::{MATERIAL, PHASE_WEIGHT, PST};

/// A score with a middlegame and an endgame part.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tapered {
    pub mg: i32,
    pub eg: i32,
}

impl Tapered {
    pub const fn new(mg: i32, eg: i32) -> Tapered {
        Tapered { mg, eg }
    }
}

impl std::ops::Add for Tapered {
    type Output = Tapered;
    fn add(self, other: Tapered) -> Tapered {
        Tapered::new(self.mg + other.mg, self.eg + other.eg)
    }
}

impl std::ops::Sub for Tapered {
    type Output = Tapered;
    fn sub(self, other: Tapered) -> Tapered {
        Tapered::new(self.mg - other.mg, self.eg - other.eg)
    }
}

/// Phase of a full board: 4 minor pieces, 4 rooks, 2 queens.
pub const MAX_PHASE: i32 = 24;

/// Bonus for the side to move (roughly half a tempo's worth).
pub const TEMPO: i32 = 10;

/// The breakdown of an evaluation, for the `eval` command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trace {
    /// Material of each colour (white, black).
    pub material: [Tapered; 2],
    /// Piece-square bonuses of each colour (white, black).
    pub placement: [Tapered; 2],
    /// 0 (bare kings and pawns) to [`MAX_PHASE`] (all pieces on).
    pub phase: i32,
    /// The final score, side to move.
    pub score: i32,
}

/// The value of a piece in centipawns (middlegame), for move ordering.
pub const fn piece_value(role: Role) -> i32 {
    MATERIAL[role as usize - 1].mg
}

/// The side-to-move score of `pos`, in centipawns.
pub fn evaluate(pos: &Chess) -> i32 {
    trace(pos).score
}

/// Evaluates `pos` and keeps every term.
pub fn trace(pos: &Chess) -> Trace {
    let board = pos.board();
    let mut material = [Tapered::default(); 2];
    let mut placement = [Tapered::default(); 2];
    let mut phase = 0;
    for role in Role::ALL {
        let index = role as usize - 1;
        for color in Color::ALL {
            let pieces: Bitboard = board.by_piece(role.of(color));
            let count = pieces.count() as i32;
            material[color as usize].mg += MATERIAL[index].mg * count;
            material[color as usize].eg += MATERIAL[index].eg * count;
            phase += PHASE_WEIGHT[index] * count;
            for sq in pieces {
                // Tables are written for White; Black reads them mirrored.
                let relative = if color == Color::White { sq } else { sq.flip_vertical() };
                placement[color as usize] = placement[color as usize] + PST[index][relative as usize];
            }
        }
    }
    let phase = phase.min(MAX_PHASE);
    let white = Color::White as usize;
    let black = Color::Black as usize;
    let total = material[white] + placement[white] - material[black] - placement[black];
    let blended = (total.mg * phase + total.eg * (MAX_PHASE - phase)) / MAX_PHASE;
    let score = match pos.turn() {
        Color::White => blended,
        Color::Black => -blended,
    } + TEMPO;
    Trace { material, placement, phase, score }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, EnPassantMode};

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Chess960).unwrap()
    }

    fn mirrored(pos: &Chess) -> Chess {
        pos.to_setup(EnPassantMode::Legal).into_mirrored().position(CastlingMode::Chess960).unwrap()
    }

    #[test]
    fn start_position_is_the_tempo() {
        assert_eq!(evaluate(&Chess::default()), TEMPO);
    }

    #[test]
    fn colour_flip_gives_the_same_score() {
        // Every position of the Chess960/DFRC castling suite, and the positions after each legal move.
        let suite = include_str!("../../tests/data/frc-castling-perft.epd");
        let mut checked = 0;
        for line in suite.lines() {
            let fen = line.split(';').next().unwrap();
            let pos = position(fen);
            for m in pos.legal_moves() {
                let mut child = pos.clone();
                child.play_unchecked(m);
                assert_eq!(evaluate(&child), evaluate(&mirrored(&child)), "{fen} {m}");
                checked += 1;
            }
        }
        assert!(checked > 5000);
    }

    #[test]
    fn material_counts() {
        // White a queen up, to move: clearly winning; the same with Black to move: clearly losing.
        let white_to_move = position("4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
        let black_to_move = position("4k3/8/8/8/8/8/8/3QK3 b - - 0 1");
        assert!(evaluate(&white_to_move) > 800);
        assert!(evaluate(&black_to_move) < -800);
    }

    #[test]
    fn trace_adds_up() {
        let pos = position("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
        let t = trace(&pos);
        assert_eq!(t.phase, MAX_PHASE);
        assert_eq!(t.material[0], t.material[1]);
        assert_eq!(t.score, evaluate(&pos));
    }
}
