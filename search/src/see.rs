//! Static exchange evaluation: the material outcome of the capture sequence
//! on one square, each side recapturing with its least valuable piece and
//! free to stop. Pins are ignored, as usual; x-rays are seen, since
//! attackers are recomputed as pieces leave the board.

use shakmaty::{Bitboard, Chess, Move, Position, Role};

use crate::params::{SEE_BISHOP_VALUE, SEE_KNIGHT_VALUE, SEE_PAWN_VALUE, SEE_QUEEN_VALUE, SEE_ROOK_VALUE};

/// The search's piece values, in centipawns: for exchanges, capture
/// ordering and delta pruning (the king is never captured).
#[inline]
pub fn piece_value(role: Role) -> i32 {
    match role {
        Role::Pawn => SEE_PAWN_VALUE.get(),
        Role::Knight => SEE_KNIGHT_VALUE.get(),
        Role::Bishop => SEE_BISHOP_VALUE.get(),
        Role::Rook => SEE_ROOK_VALUE.get(),
        Role::Queen => SEE_QUEEN_VALUE.get(),
        Role::King => 20_000,
    }
}

/// True when `m` wins at least `threshold` centipawns of material once the
/// exchange on its target square is played out.
pub fn see_ge(pos: &Chess, m: Move, threshold: i32) -> bool {
    let (Some(from), to) = (m.from(), m.to()) else { return 0 >= threshold };
    if matches!(m, Move::Castle { .. }) {
        return 0 >= threshold;
    }
    let promotion_gain = m.promotion().map_or(0, |role| piece_value(role) - piece_value(Role::Pawn));
    // What we win if the opponent does not recapture.
    let mut swap = m.capture().map_or(0, piece_value) + promotion_gain - threshold;
    if swap < 0 {
        return false;
    }
    // What we stand to lose: the piece now on `to`.
    swap = piece_value(m.promotion().unwrap_or(m.role())) - swap;
    if swap <= 0 {
        return true;
    }
    let board = pos.board();
    let mut occupied = board.occupied() ^ Bitboard::from(from) ^ Bitboard::from(to);
    if let Move::EnPassant { .. } = m {
        occupied ^= Bitboard::from(shakmaty::Square::from_coords(to.file(), from.rank()));
    }
    let mut side = pos.turn();
    // 1 while the side that made the last capture is winning the exchange.
    let mut result = true;
    loop {
        side = !side;
        let attackers = board.attacks_to(to, side, occupied) & occupied;
        if attackers.is_empty() {
            break;
        }
        result = !result;
        let role = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King]
            .into_iter()
            .find(|&role| !(attackers & board.by_role(role)).is_empty())
            .expect("an attacker has a role");
        if role == Role::King {
            // The king may take only if the other side has nothing left to recapture.
            let defenders = board.attacks_to(to, !side, occupied) & occupied;
            if !defenders.is_empty() {
                result = !result;
            }
            break;
        }
        swap = piece_value(role) - swap;
        if swap < i32::from(result) {
            break;
        }
        let attacker = (attackers & board.by_role(role)).first().expect("non-empty");
        occupied ^= Bitboard::from(attacker);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use backrank_util::position;
    use shakmaty::uci::UciMove;

    fn check(fen: &str, uci: &str, threshold: i32) -> bool {
        let pos = position(fen);
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        see_ge(&pos, m, threshold)
    }

    #[test]
    fn exchanges() {
        let (pawn, knight) = (SEE_PAWN_VALUE.get(), SEE_KNIGHT_VALUE.get());
        // Pawn takes an undefended knight: + knight.
        let fen = "4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1";
        assert!(check(fen, "e4d5", knight));
        assert!(!check(fen, "e4d5", knight + 1));
        // Queen takes a pawn defended by a pawn: loses the queen for a pawn.
        let fen = "4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1";
        assert!(!check(fen, "d2d5", 0));
        // Rook takes a knight defended by a rook, backed by a second rook:
        // + knight - rook + rook.
        let fen = "3rk3/8/8/3n4/8/8/3R4/3RK3 w - - 0 1";
        assert!(check(fen, "d2d5", knight));
        assert!(!check(fen, "d2d5", knight + 1));
        // A quiet move to a square a pawn attacks loses the piece.
        let fen = "4k3/8/8/8/3p4/8/8/3NK3 w - - 0 1";
        assert!(!check(fen, "d1c3", 0));
        assert!(check(fen, "d1f2", 0));
        // A king recaptures only what nothing else defends.
        assert!(!check("4k3/4p3/8/8/8/8/8/4RK2 w - - 0 1", "e1e7", 0));
        assert!(check("4k3/4p3/8/8/8/8/4R3/4RK2 w - - 0 1", "e2e7", pawn));
        assert!(!check("4k3/4p3/8/8/8/8/4R3/4RK2 w - - 0 1", "e2e7", pawn + 1));
    }
}
