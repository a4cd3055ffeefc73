//! Static evaluation: a position in, a score out (centipawns, from the side
//! to move's point of view).
//!
//! Every term has a middlegame and an endgame value, blended by the game
//! phase (the non-pawn material left), plus a small bonus for having the
//! move: material and piece-square tables, then mobility, pawn structure
//! (through a pawn hash), passed pawns, king safety, threats and piece
//! bonuses (`terms`), and a scale on the endgame part for drawish endings.
//! Black reads every table mirrored, so the evaluation of the
//! colour-flipped position is exactly the same.
//!
//! The terms are written once, generic over a [`Sink`]: the engine sums
//! them ([`Score`]); the tuner counts how often each weight is used
//! ([`Coefficients`], [`linear`]). Every tunable weight is a field of
//! [`Weights`] (`params.rs`, with the few untuned constants); their values
//! are in `weights.rs`, which the tuner (`tune/`) writes.

pub mod nnue;
mod params;
mod pawn_cache;
pub mod sink;
mod terms;
pub mod wdl;
pub mod weights;

use shakmaty::{Bitboard, Chess, Color, Position, Role};

pub use params::{LAYOUT, WEIGHT_COUNT, Weights};
pub use sink::{Coefficients, GROUP_NAMES, GROUPS, Group, Score, Sink};
pub use terms::side;
use weights::WEIGHTS;

/// A score with a middlegame and an endgame part.
#[repr(C)]
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

impl std::ops::Mul<i32> for Tapered {
    type Output = Tapered;
    fn mul(self, factor: i32) -> Tapered {
        Tapered::new(self.mg * factor, self.eg * factor)
    }
}

/// Phase of a full board: 4 minor pieces, 4 rooks, 2 queens.
pub const MAX_PHASE: i32 = 24;

/// Contribution of each role (pawn to king) to the game phase.
pub const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];

/// Bonus for the side to move (roughly half a tempo's worth).
pub const TEMPO: i32 = 10;

/// The breakdown of an evaluation, for the `eval` command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trace {
    /// The terms by [`Group`], White's then Black's.
    pub groups: [[Tapered; 2]; GROUPS],
    /// 0 (bare kings and pawns) to [`MAX_PHASE`] (all pieces on).
    pub phase: i32,
    /// The endgame part is scaled by this many 64ths (drawish endings).
    pub scale: i32,
    /// The final score, side to move.
    pub score: i32,
}

impl Trace {
    /// Every group by name, with White's and Black's share, in `eval` order.
    pub fn rows(&self) -> [(&'static str, [Tapered; 2]); GROUPS] {
        std::array::from_fn(|i| (GROUP_NAMES[i], self.groups[i]))
    }

    /// White's and Black's share of `group`.
    pub fn group(&self, group: Group) -> [Tapered; 2] {
        self.groups[group as usize]
    }
}

/// The table the `eval` command prints: each group's middlegame and
/// endgame parts for White, Black and the difference, then phase, scale,
/// tempo and the final score.
impl std::fmt::Display for Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "         Term    |    White    |    Black    |    Total")?;
        writeln!(f, "                 |   MG    EG  |   MG    EG  |   MG    EG")?;
        for (name, [white, black]) in self.rows() {
            let total = white - black;
            writeln!(
                f,
                " {name:<15} | {:5} {:5} | {:5} {:5} | {:5} {:5}",
                white.mg, white.eg, black.mg, black.eg, total.mg, total.eg
            )?;
        }
        writeln!(f, " Phase           | {} of {MAX_PHASE}", self.phase)?;
        writeln!(f, " Endgame scale   | {} of 64", self.scale)?;
        writeln!(f, " Tempo           | {TEMPO}")?;
        write!(f, " Hand-crafted    | {} (side to move; not used by the search)", self.score)
    }
}

/// The evaluation's own value of a piece in centipawns (its middlegame
/// material weight); 0 for the king.
#[inline]
pub(crate) fn piece_value(role: Role) -> i32 {
    WEIGHTS.material.get(role as usize - 1).map_or(0, |value| value.mg)
}

/// The side-to-move score of `pos`, in centipawns.
pub fn evaluate(pos: &Chess) -> i32 {
    trace(pos).score
}

/// Evaluates `pos` and keeps every term.
pub fn trace(pos: &Chess) -> Trace {
    let mut sums = Score::default();
    let phase = evaluate_into(pos, &mut sums);
    let total = sums.net();
    let scale = endgame_scale(pos, total.eg);
    let white = blend(total, phase, scale);
    let score = if pos.turn() == Color::White { white } else { -white } + TEMPO;
    Trace { groups: sums.by_group, phase, scale, score }
}

/// The middlegame and endgame parts blended by `phase`, the endgame part
/// scaled by `scale` 64ths.
pub fn blend(total: Tapered, phase: i32, scale: i32) -> i32 {
    let eg = total.eg * scale / 64;
    (total.mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE
}

/// The evaluation of a position as the tuner sees it: linear in the
/// weights. White's score is `blend(Σ counts[i] * weights[i] + fixed,
/// phase, scale)`, plus [`TEMPO`] for the side to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Linear {
    pub coefficients: Coefficients,
    pub phase: i32,
    pub scale: i32,
}

/// The linear form of `pos`'s evaluation (see [`Linear`]).
pub fn linear(pos: &Chess) -> Linear {
    let mut coefficients = Coefficients::default();
    let phase = evaluate_into(pos, &mut coefficients);
    Linear { coefficients, phase, scale: trace(pos).scale }
}

/// Sends every term of `pos` to `sink`; returns the game phase.
fn evaluate_into(pos: &Chess, sink: &mut impl Sink) -> i32 {
    let board = pos.board();
    let mut phase = 0;
    for role in Role::ALL {
        let index = role as usize - 1;
        for color in Color::ALL {
            let pieces: Bitboard = board.by_piece(role.of(color));
            phase += PHASE_WEIGHT[index] * pieces.count() as i32;
            if let Some(value) = WEIGHTS.material.get(index) {
                sink.group(Group::Material);
                sink.add(color, value, pieces.count() as i32);
            }
            sink.group(Group::Placement);
            for sq in pieces {
                // Tables are written for White; Black reads them mirrored.
                let relative = if color == Color::White { sq } else { sq.flip_vertical() };
                sink.add(color, &WEIGHTS.pst[index][relative as usize], 1);
            }
        }
    }
    terms::evaluate_terms(pos, sink);
    phase.min(MAX_PHASE)
}

/// How much of the endgame score holds up, in 64ths: less with
/// opposite-coloured bishops, or when the side ahead has no pawns and too
/// little extra material to mate.
fn endgame_scale(pos: &Chess, eg: i32) -> i32 {
    use params::*;
    let board = pos.board();
    let strong = if eg >= 0 { Color::White } else { Color::Black };
    let non_pawn = |color: Color| -> i32 {
        [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            .into_iter()
            .map(|role| piece_value(role) * (board.by_piece(role.of(color))).count() as i32)
            .sum()
    };
    let strong_pawns = (board.pawns() & board.by_color(strong)).count();
    if strong_pawns == 0 {
        let ours = board.by_color(strong);
        let only_knights = (ours & !board.kings()) == (ours & board.knights());
        if non_pawn(strong) <= piece_value(Role::Bishop)
            || only_knights && (ours & board.knights()).count() <= 2
        {
            return SCALE_CANNOT_WIN;
        }
        if non_pawn(strong) - non_pawn(!strong) <= piece_value(Role::Bishop) {
            return SCALE_NO_PAWNS_SMALL_EDGE;
        }
    }
    let white_bishops = board.bishops() & board.white();
    let black_bishops = board.bishops() & board.black();
    let opposite = white_bishops.count() == 1
        && black_bishops.count() == 1
        && (white_bishops & Bitboard::DARK_SQUARES).any() != (black_bishops & Bitboard::DARK_SQUARES).any();
    if opposite {
        let others = board.knights() | board.rooks() | board.queens();
        return if others.is_empty() { SCALE_OPPOSITE_BISHOPS } else { SCALE_OPPOSITE_BISHOPS_PIECES };
    }
    SCALE_NORMAL
}

#[cfg(test)]
mod tests {
    use super::*;

    use shakmaty::{CastlingMode, EnPassantMode};

    use backrank_util::position;

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

    /// White's share minus Black's of one row of the trace.
    fn net(pos: &Chess, row: &str) -> Tapered {
        let [white, black] = trace(pos).rows().into_iter().find(|(name, _)| *name == row).unwrap().1;
        white - black
    }

    #[test]
    fn passed_pawns_count_and_grow_with_rank() {
        // White's d-pawn is passed (no black pawn on c-e ahead); Black's
        // h-pawn is not. Both kings in corners, about as far from the
        // pawn's path either way, so that the rank decides.
        let passed = position("k7/7p/8/8/3P3P/8/8/K7 w - - 0 1");
        assert!(net(&passed, "Passed pawns").eg > 0);
        let further = position("k7/7p/3P4/8/8/7P/8/K7 w - - 0 1");
        assert!(net(&further, "Passed pawns").eg > net(&passed, "Passed pawns").eg);
        // A black pawn on e5 stops it.
        let stopped = position("4k3/8/8/4p3/3P4/8/8/4K3 w - - 0 1");
        assert_eq!(net(&stopped, "Passed pawns"), Tapered::default());
    }

    #[test]
    fn a_sheltered_king_is_safer_than_an_open_one() {
        // Same material; White's king has its pawns, Black's has lost them.
        let pos = position("r5k1/5r2/8/8/8/8/5PPP/R5K1 w - - 0 1");
        assert!(net(&pos, "King safety").mg > 0);
        // Pieces bearing on the king's zone add danger.
        let calm = position("6k1/5ppp/8/8/8/8/5PPP/3QR1K1 w - - 0 1");
        let attacked = position("6k1/5ppp/8/6N1/7Q/8/5PPP/6K1 w - - 0 1");
        assert!(net(&attacked, "King safety").mg > net(&calm, "King safety").mg);
    }

    #[test]
    fn chess960_corner_bishop_behind_its_pawn_is_penalised() {
        // DFRC: White's corner bishops sit behind b2 and g2; Black's h8
        // bishop has its diagonal open (g7 went to g6).
        let pos = position("rnbknqrb/pppppp1p/6p1/8/8/8/PPPPPPPP/BNRKQNRB w - - 0 2");
        let [white, black] = trace(&pos).group(Group::Pieces);
        assert!(white.mg < black.mg, "{white:?} {black:?}");
    }

    #[test]
    fn bishop_pair_mobility_and_threats() {
        let pair = position("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1");
        let same_colour = position("4k3/8/8/8/8/8/1B6/2B1K3 w - - 0 1");
        assert!(net(&pair, "Pieces").eg > net(&same_colour, "Pieces").eg);
        // A knight in the corner reaches less than one in the centre.
        let corner = position("4k3/8/8/8/8/8/8/N3K3 w - - 0 1");
        let centre = position("4k3/8/8/8/3N4/8/8/4K3 w - - 0 1");
        assert!(net(&centre, "Mobility").mg > net(&corner, "Mobility").mg);
        // A pawn attacking a knight is a threat.
        let threat = position("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1");
        assert!(net(&threat, "Threats").mg > 0);
    }

    #[test]
    fn drawish_endings_are_scaled_down() {
        assert_eq!(
            trace(&position("4k3/8/3b4/8/8/8/8/3RK3 w - - 0 1")).scale,
            params::SCALE_NO_PAWNS_SMALL_EDGE
        );
        assert_eq!(trace(&position("4k3/8/8/8/8/8/8/2NNK3 w - - 0 1")).scale, params::SCALE_CANNOT_WIN);
        assert_eq!(trace(&position("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")).scale, params::SCALE_NORMAL);
        let opposite = position("4k3/5pp1/4b3/8/8/4B3/5PPP/6K1 w - - 0 1");
        let same = position("4k3/5pp1/3b4/8/8/4B3/5PPP/6K1 w - - 0 1");
        assert_eq!(trace(&opposite).scale, params::SCALE_OPPOSITE_BISHOPS);
        assert_eq!(trace(&same).scale, params::SCALE_NORMAL);
    }

    #[test]
    fn trace_adds_up() {
        let pos = position("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
        let t = trace(&pos);
        assert_eq!(t.phase, MAX_PHASE);
        assert_eq!(t.group(Group::Material)[0], t.group(Group::Material)[1]);
        assert_eq!(t.score, evaluate(&pos));
    }
}
