//! The weights of the evaluation terms beyond material and piece-square
//! tables, in one place (so that a tuner can rewrite them), each a
//! middlegame/endgame pair in centipawns.

use crate::Tapered;

const fn t(mg: i32, eg: i32) -> Tapered {
    Tapered::new(mg, eg)
}

// --- Mobility: per safe square reached, around a typical count. ---------

/// Per safe square, by role (knight, bishop, rook, queen).
pub const MOBILITY_PER_SQUARE: [Tapered; 4] = [t(4, 4), t(5, 5), t(2, 4), t(1, 2)];
/// The count that scores zero, by role.
pub const MOBILITY_TYPICAL: [i32; 4] = [4, 6, 7, 13];
/// A piece that can go almost nowhere is worse than linear.
pub const TRAPPED_PIECE: Tapered = t(-20, -20);

// --- Pawn structure. ----------------------------------------------------

pub const DOUBLED_PAWN: Tapered = t(-10, -20);
pub const ISOLATED_PAWN: Tapered = t(-10, -12);
/// Backward pawn: cannot be defended by a pawn and its stop square is
/// guarded by an enemy pawn.
pub const BACKWARD_PAWN: Tapered = t(-8, -8);
/// Connected pawn (side by side, or defended by a pawn), by relative rank.
pub const CONNECTED_PAWN: [Tapered; 8] =
    [t(0, 0), t(3, 0), t(5, 2), t(8, 5), t(14, 10), t(25, 20), t(40, 35), t(0, 0)];
/// Passed pawn, by relative rank.
pub const PASSED_PAWN: [Tapered; 8] =
    [t(0, 0), t(2, 10), t(4, 14), t(10, 24), t(22, 42), t(40, 75), t(65, 120), t(0, 0)];
/// Passed pawn whose stop square is empty, by relative rank.
pub const PASSED_FREE_PATH: [Tapered; 8] =
    [t(0, 0), t(0, 2), t(0, 4), t(2, 8), t(4, 15), t(8, 30), t(14, 50), t(0, 0)];
/// Per square of king distance from a passed pawn's stop square (theirs
/// minus ours), scaled by how far the pawn has come.
pub const PASSED_KING_DISTANCE: Tapered = t(0, 2);
/// A passer the enemy king cannot catch in a pawn ending.
pub const UNSTOPPABLE_PASSER: Tapered = t(0, 250);

// --- King safety. --------------------------------------------------------

/// Danger added by each piece attacking the king zone, by role (knight,
/// bishop, rook, queen).
pub const KING_ATTACKER_WEIGHT: [i32; 4] = [20, 20, 40, 80];
/// Danger per attacked square of the king zone.
pub const KING_ZONE_SQUARE_DANGER: i32 = 8;
/// Danger per safe square from which an enemy piece could check.
pub const SAFE_CHECK_DANGER: i32 = 30;
/// Danger is squared and divided by this (middlegame centipawns)...
pub const KING_DANGER_DIVISOR: i32 = 256;
/// ...and capped here.
pub const KING_DANGER_MAX: i32 = 600;
/// Shield pawn one and two ranks in front of the king (its file and both
/// neighbours), and a shield file without any pawn of ours.
pub const SHIELD_NEAR: Tapered = t(14, 0);
pub const SHIELD_FAR: Tapered = t(7, 0);
pub const SHIELD_MISSING: Tapered = t(-12, 0);
/// An enemy pawn storming the king's files, within three ranks of it.
pub const PAWN_STORM: Tapered = t(-8, 0);
/// A file next to the king with no pawn at all.
pub const OPEN_FILE_NEAR_KING: Tapered = t(-15, 0);

// --- Threats. --------------------------------------------------------------

/// A piece (not a pawn) attacked by an enemy pawn.
pub const THREAT_BY_PAWN: Tapered = t(45, 35);
/// A rook or queen attacked by a knight or bishop.
pub const THREAT_BY_MINOR: Tapered = t(25, 20);
/// A queen attacked by a rook.
pub const THREAT_BY_ROOK: Tapered = t(25, 15);
/// A piece attacked and not defended.
pub const HANGING_PIECE: Tapered = t(20, 15);

// --- Pieces. ---------------------------------------------------------------

pub const BISHOP_PAIR: Tapered = t(25, 50);
pub const ROOK_OPEN_FILE: Tapered = t(25, 10);
pub const ROOK_HALF_OPEN_FILE: Tapered = t(12, 6);
/// Knight and bishop outposts: on the enemy half, defended by a pawn, out
/// of reach of enemy pawns.
pub const KNIGHT_OUTPOST: Tapered = t(22, 12);
pub const BISHOP_OUTPOST: Tapered = t(12, 6);
/// Chess960: a bishop in a corner whose diagonal is blocked by its own
/// pawn (Bb2-less fianchetto, e.g. Ba1 with a pawn on b2).
pub const CORNER_BISHOP_BLOCKED: Tapered = t(-30, -20);
/// A castling right still held (the king can still find shelter).
pub const CASTLING_RIGHT: Tapered = t(8, 0);

// --- Endgame scaling, in 64ths of the endgame score. -------------------------

pub const SCALE_NORMAL: i32 = 64;
/// Opposite-coloured bishops with nothing else but pawns...
pub const SCALE_OPPOSITE_BISHOPS: i32 = 32;
/// ...and with other pieces too.
pub const SCALE_OPPOSITE_BISHOPS_PIECES: i32 = 48;
/// The stronger side has no pawns and at most a minor piece's edge.
pub const SCALE_NO_PAWNS_SMALL_EDGE: i32 = 16;
/// The stronger side has no pawns and only knights, or a lone minor.
pub const SCALE_CANNOT_WIN: i32 = 0;
