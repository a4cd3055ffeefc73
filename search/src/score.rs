//! Score conventions: centipawns from the side to move's view, with mate
//! scores counted in plies from the root.

/// The deepest ply the search reaches.
pub const MAX_PLY: usize = 128;
/// Mate at the root (never reached: the mated side is at ply >= 1).
pub const MATE: i32 = 32_000;
/// Any score beyond this is a forced mate.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// A tablebase win at the root; wins found deeper score less, so that all
/// of them lie in a band just below the mate scores.
pub const TB_WIN: i32 = MATE_BOUND - 1;
/// Any score beyond this is a forced mate or a tablebase win.
pub const DECISIVE_BOUND: i32 = TB_WIN - MAX_PLY as i32;
/// Wider than any score.
pub const INFINITY: i32 = MATE + 1;
/// A draw.
pub const DRAW: i32 = 0;

/// The score of being mated at `ply`.
pub const fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

/// True for a forced mate, either way.
pub const fn is_mate(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// True for a forced mate or a tablebase result, either way: scores that
/// no margin applies to.
pub const fn is_decisive(score: i32) -> bool {
    score.abs() >= DECISIVE_BOUND
}

/// Moves (not plies) to mate, for `score mate N`: positive when the side to
/// move mates, negative when it is mated.
pub const fn mate_in_moves(score: i32) -> i32 {
    if score > 0 { (MATE - score + 1) / 2 } else { -(MATE + score) / 2 }
}

/// Mate and tablebase scores are stored relative to the node, so that an
/// entry is right wherever in the tree the position reappears.
pub const fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= DECISIVE_BOUND {
        score + ply as i32
    } else if score <= -DECISIVE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// The inverse of [`to_tt`], for a node whose fifty-move counter is
/// `halfmoves`. A stored win (or loss) whose mate or tablebase position
/// lies more plies away than the fifty-move rule leaves may be drawn by
/// the rule: it comes back as the best undecided score (or the worst).
pub const fn from_tt(score: i32, ply: usize, halfmoves: u32) -> i32 {
    let plies_left = 100 - halfmoves as i32;
    if score >= DECISIVE_BOUND {
        let plies_away = if score >= MATE_BOUND { MATE - score } else { TB_WIN - score };
        if plies_away > plies_left { DECISIVE_BOUND - 1 } else { score - ply as i32 }
    } else if score <= -DECISIVE_BOUND {
        let plies_away = if score <= -MATE_BOUND { MATE + score } else { TB_WIN + score };
        if plies_away > plies_left { -DECISIVE_BOUND + 1 } else { score + ply as i32 }
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_distances() {
        // Mate delivered on the first move: the mated side is at ply 1.
        assert_eq!(mate_in_moves(-mated_in(1)), 1);
        assert_eq!(mate_in_moves(-mated_in(3)), 2);
        assert_eq!(mate_in_moves(mated_in(2)), -1);
        assert_eq!(mate_in_moves(mated_in(0)), 0);
        assert!(is_mate(mated_in(40)) && !is_mate(900));
        assert_eq!(from_tt(to_tt(-mated_in(7), 4), 4, 0), -mated_in(7));
        assert_eq!(from_tt(to_tt(-TB_WIN + 9, 4), 4, 0), -TB_WIN + 9);
        assert!(is_decisive(TB_WIN - 100) && !is_mate(TB_WIN) && !is_decisive(5000));
    }

    #[test]
    fn table_wins_beyond_the_fifty_move_rule_are_not_trusted() {
        // Mate at ply 7 of the root, stored at ply 4: three plies from there.
        let stored = to_tt(-mated_in(7), 4);
        assert_eq!(from_tt(stored, 4, 97), -mated_in(7));
        assert_eq!(from_tt(stored, 4, 98), DECISIVE_BOUND - 1);
        let lost = to_tt(mated_in(7), 4);
        assert_eq!(from_tt(lost, 4, 97), mated_in(7));
        assert_eq!(from_tt(lost, 4, 98), -DECISIVE_BOUND + 1);
        // A tablebase win 9 plies from the root, stored at ply 4: five plies away.
        let table = to_tt(TB_WIN - 9, 4);
        assert_eq!(from_tt(table, 4, 95), TB_WIN - 9);
        assert_eq!(from_tt(table, 4, 96), DECISIVE_BOUND - 1);
        assert!(!is_decisive(DECISIVE_BOUND - 1));
        // Undecided scores pass as they are.
        assert_eq!(from_tt(to_tt(250, 4), 4, 99), 250);
    }
}
