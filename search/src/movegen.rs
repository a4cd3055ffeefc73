//! The moves quiescence searches, generated directly: captures and queen
//! promotions only, instead of every legal move filtered down to them.
//!
//! The list is exactly `legal_moves()` filtered down to those moves, in
//! the same order, so the search (and `bench`) does not change; the
//! test below checks that over random Chess960, DFRC and classical games.

use shakmaty::{Bitboard, Chess, Color, Move, MoveList, Position, Role, Square, attacks};

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// The moves quiescence searches when not in check: every legal capture
/// (en passant and capturing promotions to any piece included) and the
/// quiet promotions to a queen, in `legal_moves()`'s order: en passant,
/// pawn captures towards the a-file then the h-file, quiet queen
/// promotions, then knight, bishop, rook, queen and king captures. The
/// side to move must not be in check (evasions come from `legal_moves()`).
pub(crate) fn quiescence_moves(pos: &Chess) -> MoveList {
    debug_assert!(!pos.is_check());
    let board = pos.board();
    let turn = pos.turn();
    let king = board.king_of(turn).expect("a king for each side");
    let them = pos.them();
    let pinned = pinned_pieces(pos, king);
    let legal = |from: Square, to: Square| !pinned.contains(from) || attacks::aligned(from, to, king);

    let mut moves = pos.en_passant_moves();
    let pawns = pos.our(Role::Pawn).0;
    let (towards_a, towards_h, push) = match turn {
        Color::White => (((pawns & !FILE_A) << 7, 7), ((pawns & !FILE_H) << 9, 9), 8),
        Color::Black => (((pawns & !FILE_A) >> 9, -9), ((pawns & !FILE_H) >> 7, -7), -8),
    };
    for (targets, offset) in [towards_a, towards_h] {
        let captures = Bitboard(targets) & them;
        for to in captures & !Bitboard::BACKRANKS {
            let from = from_offset(to, offset);
            if legal(from, to) {
                moves.push(Move::Normal {
                    role: Role::Pawn,
                    from,
                    capture: board.role_at(to),
                    to,
                    promotion: None,
                });
            }
        }
        for to in captures & Bitboard::BACKRANKS {
            let from = from_offset(to, offset);
            if legal(from, to) {
                let capture = board.role_at(to);
                for promotion in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                    moves.push(Move::Normal {
                        role: Role::Pawn,
                        from,
                        capture,
                        to,
                        promotion: Some(promotion),
                    });
                }
            }
        }
    }
    let pushes = Bitboard(pawns).shift(push) & !board.occupied() & Bitboard::BACKRANKS;
    for to in pushes {
        let from = from_offset(to, push);
        if legal(from, to) {
            moves.push(Move::Normal {
                role: Role::Pawn,
                from,
                capture: None,
                to,
                promotion: Some(Role::Queen),
            });
        }
    }
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        for from in pos.our(role) {
            let targets = piece_attacks(role, from, board.occupied()) & them;
            for to in targets {
                if legal(from, to) {
                    moves.push(Move::Normal { role, from, capture: board.role_at(to), to, promotion: None });
                }
            }
        }
    }
    for to in attacks::king_attacks(king) & them {
        // Not in check, so no slider's line runs through the king: the
        // board as it stands shows every attack on the target.
        if board.attacks_to(to, !turn, board.occupied()).is_empty() {
            moves.push(Move::Normal {
                role: Role::King,
                from: king,
                capture: board.role_at(to),
                to,
                promotion: None,
            });
        }
    }
    moves
}

/// Where a knight, bishop, rook or queen on `from` attacks.
fn piece_attacks(role: Role, from: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Knight => attacks::knight_attacks(from),
        Role::Bishop => attacks::bishop_attacks(from, occupied),
        Role::Rook => attacks::rook_attacks(from, occupied),
        _ => attacks::queen_attacks(from, occupied),
    }
}

/// The square a pawn came from to reach `to` by a step of `offset`.
fn from_offset(to: Square, offset: i32) -> Square {
    Square::new(to.to_u32().wrapping_add_signed(-offset))
}

/// The side to move's pieces that stand alone between their king and an
/// enemy slider on that line: they may move only along it.
fn pinned_pieces(pos: &Chess, king: Square) -> Bitboard {
    let board = pos.board();
    let snipers = (attacks::rook_attacks(king, Bitboard(0)) & board.rooks_and_queens())
        | (attacks::bishop_attacks(king, Bitboard(0)) & board.bishops_and_queens());
    let mut pinned = Bitboard(0);
    for sniper in snipers & pos.them() {
        let between = attacks::between(king, sniper) & board.occupied();
        if between.count() == 1 {
            pinned |= between & pos.us();
        }
    }
    pinned
}

#[cfg(test)]
mod tests {
    use super::*;
    use backrank_util::position;
    use backrank_util::rng::SplitMix;

    fn is_quiescence_move(m: &Move) -> bool {
        m.is_capture() || m.promotion() == Some(Role::Queen)
    }

    /// Random games from Chess960, DFRC and classical starts and from the
    /// castling middlegames: at every position not in check, the direct
    /// generator gives the filtered legal moves, in the same order.
    #[test]
    fn quiescence_moves_are_the_filtered_legal_moves_in_order() {
        let suite = include_str!("../../tests/data/frc-castling-perft.epd");
        let mut starts: Vec<String> =
            suite.lines().map(|l| l.split(';').next().unwrap().trim().to_string()).collect();
        starts.push("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into());
        starts.push("nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/BBRNKRQN w CFbg - 0 1".into());
        // Pins, en passant with a pinned pawn, promotions with captures.
        starts.push("4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 1".into());
        starts.push("r3k2r/1P4P1/8/3q4/8/8/1p3Bp1/R3K1NR w KQkq - 0 1".into());
        let mut rng = SplitMix(960);
        let (mut checked, mut noisy) = (0, 0);
        for fen in &starts {
            let mut pos = position(fen);
            for _ in 0..120 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                if !pos.is_check() {
                    let mut expected = legal.clone();
                    expected.retain(|m| is_quiescence_move(m));
                    assert_eq!(
                        quiescence_moves(&pos).as_slice(),
                        expected.as_slice(),
                        "{fen} after some plies"
                    );
                    checked += 1;
                    noisy += expected.len();
                }
                // Prefer captures now and then, so that games reach
                // promotions and sparse endgames.
                let captures: Vec<Move> = legal.iter().copied().filter(is_quiescence_move).collect();
                let m = if !captures.is_empty() && rng.below(3) == 0 {
                    captures[rng.below(captures.len() as u64) as usize]
                } else {
                    legal[rng.below(legal.len() as u64) as usize]
                };
                pos.play_unchecked(m);
            }
        }
        assert!(checked > 10_000 && noisy > 10_000, "{checked} positions, {noisy} moves");
    }
}
