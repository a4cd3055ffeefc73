//! Position helpers of the search: hash keys, the null move, and material
//! tests, all over `shakmaty::Chess`.

use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

/// The key of a position.
pub(crate) fn key_of(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// The key of `pos` after `m`, from `pos`'s key, before the move is made;
/// `None` where shakmaty cannot update it (then take [`key_of`] the child).
pub(crate) fn key_after(pos: &Chess, key: u64, m: Move) -> Option<u64> {
    pos.update_zobrist_hash(Zobrist64(key), m, EnPassantMode::Legal).map(|z| z.0)
}

/// The position with the turn passed: same board, the other side to move,
/// no en-passant square. The fifty-move counter restarts, so that no
/// repetition is found across a null move. `None` when the side to move is
/// in check (passing would leave the king en prise).
pub(crate) fn null_move(pos: &Chess) -> Option<Chess> {
    if pos.is_check() {
        return None;
    }
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.swap_turn();
    setup.ep_square = None;
    setup.halfmoves = 0;
    setup.position(CastlingMode::Chess960).ok()
}

/// The key of [`null_move`]`(pos)`, from `pos`'s key: the turn flips and a
/// legal en-passant capture, if any, is gone.
pub(crate) fn null_move_key(pos: &Chess, key: u64) -> u64 {
    let turn = Zobrist64::zobrist_for_white_turn().0;
    let ep = pos.legal_ep_square().map_or(0, |sq| Zobrist64::zobrist_for_en_passant_file(sq.file()).0);
    key ^ turn ^ ep
}

/// Neither side can mate: bare kings, or a single minor piece.
pub(crate) fn is_insufficient_material(pos: &Chess) -> bool {
    let board = pos.board();
    (board.pawns() | board.rooks() | board.queens()).is_empty() && board.occupied().count() <= 3
}

/// True when the side to move has a piece other than pawns and king: then
/// zugzwang, where passing would be best, is rare.
pub(crate) fn has_non_pawn_material(pos: &Chess) -> bool {
    let board = pos.board();
    let pieces = board.knights() | board.bishops() | board.rooks() | board.queens();
    !(pieces & board.by_color(pos.turn())).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    use backrank_util::position;

    #[test]
    fn null_move_flips_the_turn_only() {
        let pos = position("bqnb1rkr/pp3ppp/3ppn2/2p5/4PP2/P2P4/NPP3PP/BQ1BNRKR b HFhf e3 0 9");
        let passed = null_move(&pos).unwrap();
        assert_eq!(passed.board(), pos.board());
        assert_eq!(passed.turn(), !pos.turn());
        assert_eq!(passed.castles().castling_rights(), pos.castles().castling_rights());
        assert_eq!(passed.legal_ep_square(), None);
        assert_ne!(key_of(&passed), key_of(&pos));
        assert_eq!(null_move_key(&pos, key_of(&pos)), key_of(&passed));
        // With a legal en-passant capture, which the null move gives up.
        let ep = position("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
        assert!(ep.legal_ep_square().is_some());
        assert_eq!(null_move_key(&ep, key_of(&ep)), key_of(&null_move(&ep).unwrap()));
        assert!(null_move(&position("4k3/8/8/8/8/8/4q3/4K3 w - - 0 1")).is_none());
    }

    #[test]
    fn incremental_keys_match_full_keys() {
        let pos = position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        let key = key_of(&pos);
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            assert_eq!(key_after(&pos, key, m).unwrap_or_else(|| key_of(&child)), key_of(&child), "{m}");
        }
    }

    #[test]
    fn material_tests() {
        assert!(is_insufficient_material(&position("8/8/4k3/8/8/3NK3/8/8 w - - 0 1")));
        assert!(!is_insufficient_material(&position("8/8/4k3/8/8/3RK3/8/8 w - - 0 1")));
        assert!(!has_non_pawn_material(&position("8/4p3/4k3/8/8/3PK3/8/8 w - - 0 1")));
        assert!(has_non_pawn_material(&position("8/4p3/4k3/8/8/3BK3/8/8 w - - 0 1")));
    }
}
