//! Chess960 and DFRC start positions by their standard (Scharnagl) numbers:
//! 518 is classical chess.

use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, Setup};

/// Number of Chess960 start positions.
pub const COUNT: u32 = 960;

/// The double Fischer Random position with White's back rank from start
/// position `white` and Black's from `black` (the same number gives the
/// Chess960 position). Every rook may castle.
pub fn position(white: u32, black: u32) -> Option<Chess> {
    if white >= COUNT || black >= COUNT {
        return None;
    }
    let white_board = Board::chess960(white);
    let black_board = Board::chess960(black);
    let mut board = Board::empty();
    for color in Color::ALL {
        let source = if color == Color::White { &white_board } else { &black_board };
        for (sq, piece) in source.clone() {
            if piece.color == color {
                board.set_piece_at(sq, piece);
            }
        }
    }
    let mut setup = Setup::initial();
    setup.castling_rights = board.rooks() & (Bitboard::from(shakmaty::Rank::First) | shakmaty::Rank::Eighth);
    setup.board = board;
    setup.position(CastlingMode::Chess960).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use backrank_uci::notation::{shredder_fen, x_fen};

    #[test]
    fn numbering_matches_the_reference_list() {
        let reference = include_str!("../../tests/data/frc960.epd");
        for (n, line) in reference.lines().enumerate() {
            let pos = position(n as u32, n as u32).unwrap();
            assert_eq!(shredder_fen(&pos), line.trim(), "position {n}");
        }
        assert_eq!(
            x_fen(&position(518, 518).unwrap()),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        );
    }

    #[test]
    fn dfrc_mixes_back_ranks() {
        let pos = position(0, 518).unwrap();
        assert_eq!(shredder_fen(&pos), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFha - 0 1");
        assert!(position(960, 0).is_none());
    }
}
