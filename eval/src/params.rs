//! The shape of the evaluation's weights. [`Weights`] holds every weight
//! the tuner fits (their values live in the generated [`crate::weights`]);
//! the few numbers it does not fit (the king-danger curve and the endgame
//! scales, which are not linear in the score) are constants here.

use crate::Tapered;

/// Every tunable weight, each a middlegame/endgame pair in centipawns.
///
/// `#[repr(C)]` and made of nothing but [`Tapered`] values, so that the
/// tuner can see it as one flat array in this order (see [`LAYOUT`]) and
/// the evaluation can tell which weight a term used by its place in
/// [`crate::weights::WEIGHTS`].
#[repr(C)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Weights {
    /// Material by role, pawn to queen.
    pub material: [Tapered; 5],
    /// Piece-square bonuses by role (pawn to king), then square from
    /// White's side (0 = a1); Black reads them mirrored.
    pub pst: [[Tapered; 64]; 6],
    /// Mobility by the number of safe squares a piece reaches.
    pub knight_mobility: [Tapered; 9],
    pub bishop_mobility: [Tapered; 14],
    pub rook_mobility: [Tapered; 15],
    pub queen_mobility: [Tapered; 28],

    pub doubled_pawn: Tapered,
    pub isolated_pawn: Tapered,
    /// A pawn no pawn of ours can come to defend, whose stop square an
    /// enemy pawn guards.
    pub backward_pawn: Tapered,
    /// Side by side with, or defended by, a pawn of ours; by relative rank.
    pub connected_pawn: [Tapered; 8],
    /// Passed pawns by relative rank.
    pub passed_pawn: [Tapered; 8],
    /// A passed pawn whose stop square is empty, by relative rank.
    pub passed_free_path: [Tapered; 8],
    /// Per square of king distance to a passer's stop square (twice
    /// theirs minus ours), times how far the pawn has come.
    pub passed_king_distance: Tapered,
    /// A passer the enemy king cannot catch in a pawn ending.
    pub unstoppable_passer: Tapered,

    /// Our pawn one or two ranks in front of the king (its file and both
    /// neighbours), and a shield file without a pawn of ours.
    pub shield_near: Tapered,
    pub shield_far: Tapered,
    pub shield_missing: Tapered,
    /// An enemy pawn on the king's files within three ranks of it.
    pub pawn_storm: Tapered,
    /// A file at the king with no pawn at all.
    pub open_file_near_king: Tapered,

    /// A piece (not a pawn) attacked by an enemy pawn.
    pub threat_by_pawn: Tapered,
    /// A rook or queen attacked by a knight or bishop.
    pub threat_by_minor: Tapered,
    /// A queen attacked by a rook.
    pub threat_by_rook: Tapered,
    /// A piece attacked and not defended.
    pub hanging_piece: Tapered,

    pub bishop_pair: Tapered,
    pub rook_open_file: Tapered,
    pub rook_half_open_file: Tapered,
    /// On the enemy half, defended by a pawn, out of reach of enemy pawns.
    pub knight_outpost: Tapered,
    pub bishop_outpost: Tapered,
    /// Chess960: a bishop in a corner whose only diagonal is blocked by its
    /// own pawn (Ba1 behind b2).
    pub corner_bishop_blocked: Tapered,
    /// A castling right still held: the king can still find shelter.
    pub castling_right: Tapered,
}

/// The fields of [`Weights`] in order, with their dimensions (empty for a
/// single weight), for the tuner to name and print them.
pub const LAYOUT: &[(&str, &[usize])] = &[
    ("material", &[5]),
    ("pst", &[6, 64]),
    ("knight_mobility", &[9]),
    ("bishop_mobility", &[14]),
    ("rook_mobility", &[15]),
    ("queen_mobility", &[28]),
    ("doubled_pawn", &[]),
    ("isolated_pawn", &[]),
    ("backward_pawn", &[]),
    ("connected_pawn", &[8]),
    ("passed_pawn", &[8]),
    ("passed_free_path", &[8]),
    ("passed_king_distance", &[]),
    ("unstoppable_passer", &[]),
    ("shield_near", &[]),
    ("shield_far", &[]),
    ("shield_missing", &[]),
    ("pawn_storm", &[]),
    ("open_file_near_king", &[]),
    ("threat_by_pawn", &[]),
    ("threat_by_minor", &[]),
    ("threat_by_rook", &[]),
    ("hanging_piece", &[]),
    ("bishop_pair", &[]),
    ("rook_open_file", &[]),
    ("rook_half_open_file", &[]),
    ("knight_outpost", &[]),
    ("bishop_outpost", &[]),
    ("corner_bishop_blocked", &[]),
    ("castling_right", &[]),
];

/// The number of [`Tapered`] weights in [`Weights`].
pub const WEIGHT_COUNT: usize = std::mem::size_of::<Weights>() / std::mem::size_of::<Tapered>();

impl Weights {
    /// The weights as one flat slice, in [`LAYOUT`] order.
    pub fn as_slice(&self) -> &[Tapered] {
        // Safety: `Weights` is `#[repr(C)]` and every field is a `Tapered`
        // or an array of them, so it is laid out as WEIGHT_COUNT
        // consecutive `Tapered` values with no padding (Tapered is two
        // i32s, align 4, and every field has that alignment).
        unsafe { std::slice::from_raw_parts((self as *const Weights).cast::<Tapered>(), WEIGHT_COUNT) }
    }

    /// The index in [`Weights::as_slice`] of `weight`, when it is one of
    /// `self`'s fields.
    pub fn index_of(&self, weight: &Tapered) -> Option<usize> {
        let offset = (weight as *const Tapered as usize).wrapping_sub(self as *const Weights as usize);
        (offset < std::mem::size_of::<Weights>()).then_some(offset / std::mem::size_of::<Tapered>())
    }
}

// --- Not tuned: the king-danger curve. -------------------------------------

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

// --- Not tuned: endgame scaling, in 64ths of the endgame score. -------------

pub const SCALE_NORMAL: i32 = 64;
/// Opposite-coloured bishops with nothing else but pawns...
pub const SCALE_OPPOSITE_BISHOPS: i32 = 32;
/// ...and with other pieces too.
pub const SCALE_OPPOSITE_BISHOPS_PIECES: i32 = 48;
/// The stronger side has no pawns and at most a minor piece's edge.
pub const SCALE_NO_PAWNS_SMALL_EDGE: i32 = 16;
/// The stronger side has no pawns and only knights, or a lone minor.
pub const SCALE_CANNOT_WIN: i32 = 0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::weights::WEIGHTS;

    #[test]
    fn layout_covers_every_weight() {
        let listed: usize = LAYOUT.iter().map(|(_, dims)| dims.iter().product::<usize>()).sum();
        assert_eq!(listed, WEIGHT_COUNT);
        assert_eq!(WEIGHTS.as_slice().len(), WEIGHT_COUNT);
    }

    #[test]
    fn weights_are_found_by_address() {
        assert_eq!(WEIGHTS.index_of(&WEIGHTS.material[0]), Some(0));
        assert_eq!(WEIGHTS.index_of(&WEIGHTS.pst[1][0]), Some(5 + 64));
        assert_eq!(WEIGHTS.index_of(&WEIGHTS.castling_right), Some(WEIGHT_COUNT - 1));
        assert_eq!(WEIGHTS.as_slice()[WEIGHT_COUNT - 1], WEIGHTS.castling_right);
        let elsewhere = Tapered::new(1, 2);
        assert_eq!(WEIGHTS.index_of(&elsewhere), None);
    }
}
