//! The positional terms of the evaluation: mobility, pawn structure,
//! passed pawns, king safety, threats and piece bonuses. Everything is
//! computed per colour from attack maps built once per call; weights live in
//! [`crate::weights`].
//!
//! Chess960 matters here in two places: the king's shelter is measured
//! around the king's actual file (it may castle either way or stay), and a
//! bishop that starts in a corner behind its own pawn is penalised.

use std::sync::LazyLock;

use shakmaty::attacks::{
    bishop_attacks, king_attacks, knight_attacks, pawn_attacks, queen_attacks, rook_attacks,
};
use shakmaty::{Bitboard, Board, CastlingSide, Chess, Color, File, Position, Role, Square};

use crate::Tapered;
use crate::params::*;
use crate::pawn_cache::{self, PawnEntry};
use crate::sink::{Group, Score, Sink};
use crate::weights::WEIGHTS as W;

/// The index of `color` in per-colour arrays: White 0, Black 1.
pub const fn side(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

const PIECE_ROLES: [Role; 4] = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

fn file_mask(file: i32) -> Bitboard {
    if (0..8).contains(&file) { Bitboard::from_file(File::new(file as u32)) } else { Bitboard::EMPTY }
}

fn adjacent_files(file: i32) -> Bitboard {
    file_mask(file - 1) | file_mask(file + 1)
}

/// The rank of `sq` seen from `color`'s side: 0 is its back rank.
fn relative_rank(color: Color, sq: Square) -> i32 {
    let rank = sq.rank() as i32;
    if color == Color::White { rank } else { 7 - rank }
}

/// Every square on ranks strictly ahead of `rank` for `color`.
fn ranks_ahead(color: Color, rank: i32) -> Bitboard {
    // A shift, not a loop: this runs for every pawn of every evaluation.
    match color {
        Color::White => Bitboard::FULL.shift(8 * (rank + 1)),
        Color::Black => Bitboard::FULL.shift(8 * rank - 64),
    }
}

/// Per colour and square: the squares ahead on the same file, and ahead on
/// the same and both neighbouring files (where an enemy pawn stops a passer).
struct Spans {
    front: [[Bitboard; 64]; 2],
    passed: [[Bitboard; 64]; 2],
}

static SPANS: LazyLock<Spans> = LazyLock::new(|| {
    let mut spans = Spans { front: [[Bitboard::EMPTY; 64]; 2], passed: [[Bitboard::EMPTY; 64]; 2] };
    for color in Color::ALL {
        for sq in Square::ALL {
            let ahead = ranks_ahead(color, sq.rank() as i32);
            let file = sq.file() as i32;
            spans.front[side(color)][sq as usize] = ahead & file_mask(file);
            spans.passed[side(color)][sq as usize] = ahead & (file_mask(file) | adjacent_files(file));
        }
    }
    spans
});

/// Squares attacked by a set of pawns of `color`.
fn pawn_attack_map(color: Color, pawns: Bitboard) -> Bitboard {
    let not_a = !Bitboard::from_file(File::A);
    let not_h = !Bitboard::from_file(File::H);
    match color {
        Color::White => (pawns & not_a).shift(7) | (pawns & not_h).shift(9),
        Color::Black => (pawns & not_a).shift(-9) | (pawns & not_h).shift(-7),
    }
}

fn piece_attacks(role: Role, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Knight => knight_attacks(sq),
        Role::Bishop => bishop_attacks(sq, occupied),
        Role::Rook => rook_attacks(sq, occupied),
        _ => queen_attacks(sq, occupied),
    }
}

fn distance(a: Square, b: Square) -> i32 {
    (a.file() as i32 - b.file() as i32).abs().max((a.rank() as i32 - b.rank() as i32).abs())
}

/// What both sides attack, built in one pass over the pieces.
struct Maps {
    /// All squares each side attacks.
    attacked: [Bitboard; 2],
    /// Squares each side attacks with each piece role (knight..queen).
    by_role: [[Bitboard; 4]; 2],
    pawn_attacks: [Bitboard; 2],
    /// Danger to each side's king from the other side's pieces, and the
    /// number of those pieces.
    king_danger: [i32; 2],
    king_attackers: [i32; 2],
}

/// Evaluates every positional term of `pos` into `sink`.
pub fn evaluate_terms<S: Sink>(pos: &Chess, sink: &mut S) {
    let board = pos.board();
    let mut maps = Maps {
        attacked: [Bitboard::EMPTY; 2],
        by_role: [[Bitboard::EMPTY; 4]; 2],
        pawn_attacks: [Bitboard::EMPTY; 2],
        king_danger: [0; 2],
        king_attackers: [0; 2],
    };
    for color in Color::ALL {
        let pawns = board.pawns() & board.by_color(color);
        maps.pawn_attacks[side(color)] = pawn_attack_map(color, pawns);
        let king = board.king_of(color).map_or(Bitboard::EMPTY, king_attacks);
        maps.attacked[side(color)] = maps.pawn_attacks[side(color)] | king;
    }
    sink.group(Group::Mobility);
    for color in Color::ALL {
        mobility(pos, color, &mut maps, sink);
    }
    // The pawn structure comes from the pawn hash, except for the tuner,
    // which must see every term.
    sink.group(Group::Pawns);
    let passers = if S::CACHE_PAWNS {
        let pawns = [board.pawns() & board.white(), board.pawns() & board.black()];
        let entry = pawn_cache::get(pawns, || pawn_entry(pos, &maps));
        for color in Color::ALL {
            sink.add_fixed(color, entry.structure[side(color)]);
        }
        entry.passers
    } else {
        for color in Color::ALL {
            pawn_structure(pos, color, &maps, sink);
        }
        [passers(board, Color::White), passers(board, Color::Black)]
    };
    for color in Color::ALL {
        sink.group(Group::Passed);
        passed_pawns(pos, color, passers[side(color)], sink);
        sink.group(Group::KingSafety);
        king_safety(pos, color, &maps, sink);
        sink.group(Group::Threats);
        threats(pos, color, &maps, sink);
        sink.group(Group::Pieces);
        piece_bonuses(pos, color, sink);
    }
}

/// Mobility weights by role (knight..queen), indexed by safe squares reached.
fn mobility_weights(index: usize) -> &'static [Tapered] {
    match index {
        0 => &W.knight_mobility,
        1 => &W.bishop_mobility,
        2 => &W.rook_mobility,
        _ => &W.queen_mobility,
    }
}

/// Safe squares each piece reaches (not blocked by our own pawns or king,
/// not guarded by enemy pawns); fills the attack maps and the danger each
/// piece brings to the enemy king's zone.
fn mobility(pos: &Chess, color: Color, maps: &mut Maps, sink: &mut impl Sink) {
    let board = pos.board();
    let (us, them) = (side(color), side(!color));
    let occupied = board.occupied();
    let area = !(board.by_color(color) & (board.pawns() | board.kings())) & !maps.pawn_attacks[them];
    let zone = board.king_of(!color).map_or(Bitboard::EMPTY, |k| king_attacks(k).with(k));
    for (index, role) in PIECE_ROLES.into_iter().enumerate() {
        let weights = mobility_weights(index);
        for sq in board.by_piece(role.of(color)) {
            let attacks = piece_attacks(role, sq, occupied);
            maps.attacked[us] |= attacks;
            maps.by_role[us][index] |= attacks;
            let reach = (attacks & area).count();
            sink.add(color, &weights[reach.min(weights.len() - 1)], 1);
            let hits = attacks & zone;
            if hits.any() {
                maps.king_attackers[them] += 1;
                maps.king_danger[them] +=
                    KING_ATTACKER_WEIGHT[index] + KING_ZONE_SQUARE_DANGER * hits.count() as i32;
            }
        }
    }
}

/// The pawn hash entry of `pos`: pawn structure and passers.
fn pawn_entry(pos: &Chess, maps: &Maps) -> PawnEntry {
    let board = pos.board();
    let mut score = Score::default();
    score.group(Group::Pawns);
    for color in Color::ALL {
        pawn_structure(pos, color, maps, &mut score);
    }
    PawnEntry {
        pawns: [board.pawns() & board.white(), board.pawns() & board.black()],
        structure: score.by_group[Group::Pawns as usize],
        passers: [passers(board, Color::White), passers(board, Color::Black)],
    }
}

/// `color`'s passed pawns: no enemy pawn ahead on its own or a
/// neighbouring file, and no pawn of ours ahead on its file (the rear one
/// of doubled pawns is not counted).
fn passers(board: &Board, color: Color) -> Bitboard {
    let ours = board.pawns() & board.by_color(color);
    let theirs = board.pawns() & board.by_color(!color);
    let mut passers = Bitboard::EMPTY;
    for sq in ours {
        let front = SPANS.front[side(color)][sq as usize];
        if (SPANS.passed[side(color)][sq as usize] & theirs).is_empty() && (front & ours).is_empty() {
            passers.add(sq);
        }
    }
    passers
}

/// Doubled, isolated, backward and connected pawns.
fn pawn_structure(pos: &Chess, color: Color, maps: &Maps, sink: &mut impl Sink) {
    let board = pos.board();
    let ours = board.pawns() & board.by_color(color);
    for sq in ours {
        let file = sq.file() as i32;
        let rank = relative_rank(color, sq);
        if (SPANS.front[side(color)][sq as usize] & ours).any() {
            sink.add(color, &W.doubled_pawn, 1);
        }
        let neighbours = adjacent_files(file) & ours;
        let supported = (pawn_attacks(!color, sq) & ours).any();
        let phalanx = (neighbours & Bitboard::from_rank(sq.rank())).any();
        if supported || phalanx {
            sink.add(color, &W.connected_pawn[rank as usize], 1);
        } else if neighbours.is_empty() {
            sink.add(color, &W.isolated_pawn, 1);
        } else if (neighbours & !ranks_ahead(color, sq.rank() as i32)).is_empty() {
            // No pawn of ours level or behind on a neighbouring file: none
            // can come to defend it, and the square ahead is guarded.
            let stop = sq.offset(if color == Color::White { 8 } else { -8 });
            if stop.is_some_and(|stop| maps.pawn_attacks[side(!color)].contains(stop)) {
                sink.add(color, &W.backward_pawn, 1);
            }
        }
    }
}

/// Passed pawns: by rank, a free path, the kings' distances, and whether
/// the enemy king can catch it in a pawn ending.
fn passed_pawns(pos: &Chess, color: Color, passers: Bitboard, sink: &mut impl Sink) {
    let board = pos.board();
    let (Some(our_king), Some(their_king)) = (board.king_of(color), board.king_of(!color)) else {
        return;
    };
    let their_pieces = board.by_color(!color) & !(board.pawns() | board.kings());
    for sq in passers {
        let front = SPANS.front[side(color)][sq as usize];
        let rank = relative_rank(color, sq);
        sink.add(color, &W.passed_pawn[rank as usize], 1);
        let Some(stop) = sq.offset(if color == Color::White { 8 } else { -8 }) else { continue };
        if !board.occupied().contains(stop) {
            sink.add(color, &W.passed_free_path[rank as usize], 1);
        }
        let weight = (rank - 2).max(0);
        let kings = 2 * distance(their_king, stop) - distance(our_king, stop);
        sink.add(color, &W.passed_king_distance, weight * kings);
        // The rule of the square, in a pawn ending with a clear path.
        if their_pieces.is_empty() && (front & board.occupied()).is_empty() {
            let promotion = if color == Color::White { front.last() } else { front.first() }.unwrap_or(sq);
            let pawn_moves = (7 - rank).min(if rank == 1 { 5 } else { 7 });
            let tempo = i32::from(pos.turn() != color);
            if distance(their_king, promotion) - tempo > pawn_moves {
                sink.add(color, &W.unstoppable_passer, 1);
            }
        }
    }
}

/// Danger from enemy pieces on the king zone and safe checks (middlegame,
/// squared), and the pawn shelter around the king's actual file.
fn king_safety(pos: &Chess, color: Color, maps: &Maps, sink: &mut impl Sink) {
    let board = pos.board();
    let Some(king) = board.king_of(color) else { return };
    let (us, them) = (side(color), side(!color));
    let occupied = board.occupied();
    let safe = !maps.attacked[us] & !board.by_color(!color);
    let their = &maps.by_role[them];
    let checks = (knight_attacks(king) & their[0] & safe).count()
        + (bishop_attacks(king, occupied) & (their[1] | their[3]) & safe).count()
        + (rook_attacks(king, occupied) & (their[2] | their[3]) & safe).count();
    let mut danger = SAFE_CHECK_DANGER * checks as i32;
    if maps.king_attackers[us] >= 2 {
        danger += maps.king_danger[us];
    }
    if (board.queens() & board.by_color(!color)).is_empty() {
        danger /= 2;
    }
    let penalty = (danger * danger / KING_DANGER_DIVISOR).min(KING_DANGER_MAX);
    sink.add_fixed(color, Tapered::new(-penalty, -danger / 8));

    let ours = board.pawns() & board.by_color(color);
    let theirs = board.pawns() & board.by_color(!color);
    let king_rank = relative_rank(color, king);
    if king_rank > 2 {
        return;
    }
    let king_file = king.file() as i32;
    for file in (king_file - 1).max(0)..=(king_file + 1).min(7) {
        let ahead = file_mask(file) & ranks_ahead(color, king.rank() as i32);
        let shield = ahead & ours;
        let nearest = shield.into_iter().map(|sq| relative_rank(color, sq) - king_rank).min();
        match nearest {
            Some(1) => sink.add(color, &W.shield_near, 1),
            Some(2) => sink.add(color, &W.shield_far, 1),
            Some(_) => {}
            None => sink.add(color, &W.shield_missing, 1),
        }
        if (file_mask(file) & board.pawns()).is_empty() {
            sink.add(color, &W.open_file_near_king, 1);
        }
        let storm =
            (ahead & theirs).into_iter().filter(|&sq| relative_rank(color, sq) - king_rank <= 3).count()
                as i32;
        sink.add(color, &W.pawn_storm, storm);
    }
}

/// Enemy pieces our pawns or lesser pieces attack, and hanging ones.
fn threats(pos: &Chess, color: Color, maps: &Maps, sink: &mut impl Sink) {
    let board = pos.board();
    let (us, them) = (side(color), side(!color));
    let targets = board.by_color(!color) & !(board.pawns() | board.kings());
    let majors = targets & (board.rooks() | board.queens());
    let minors_attack = maps.by_role[us][0] | maps.by_role[us][1];
    let count = |set: Bitboard| set.count() as i32;
    sink.add(color, &W.threat_by_pawn, count(targets & maps.pawn_attacks[us]));
    sink.add(color, &W.threat_by_minor, count(majors & minors_attack));
    sink.add(color, &W.threat_by_rook, count(targets & board.queens() & maps.by_role[us][2]));
    sink.add(color, &W.hanging_piece, count(targets & maps.attacked[us] & !maps.attacked[them]));
}

/// Bishop pair, rooks on open files, outposts, blocked corner bishops and
/// castling rights kept.
fn piece_bonuses(pos: &Chess, color: Color, sink: &mut impl Sink) {
    let board = pos.board();
    let ours = board.by_color(color);
    let our_pawns = board.pawns() & ours;
    let their_pawns = board.pawns() & !ours;
    let bishops = board.bishops() & ours;
    if (bishops & Bitboard::DARK_SQUARES).any() && (bishops & Bitboard::LIGHT_SQUARES).any() {
        sink.add(color, &W.bishop_pair, 1);
    }
    for sq in board.rooks() & ours {
        let file = file_mask(sq.file() as i32);
        if (file & board.pawns()).is_empty() {
            sink.add(color, &W.rook_open_file, 1);
        } else if (file & our_pawns).is_empty() {
            sink.add(color, &W.rook_half_open_file, 1);
        }
    }
    for sq in (board.knights() | board.bishops()) & ours {
        let rank = relative_rank(color, sq);
        let defended = (pawn_attacks(!color, sq) & our_pawns).any();
        let attackable =
            (SPANS.passed[side(color)][sq as usize] & !file_mask(sq.file() as i32) & their_pawns).any();
        if (3..=5).contains(&rank) && defended && !attackable {
            let outpost = if board.knights().contains(sq) { &W.knight_outpost } else { &W.bishop_outpost };
            sink.add(color, outpost, 1);
        }
    }
    for sq in bishops {
        if let Some(blocker) = corner_diagonal_neighbour(color, sq)
            && our_pawns.contains(blocker)
        {
            sink.add(color, &W.corner_bishop_blocked, 1);
        }
    }
    for castling_side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
        if pos.castles().has(color, castling_side) {
            sink.add(color, &W.castling_right, 1);
        }
    }
}

/// For a bishop on one of `color`'s back-rank corners, the square its only
/// diagonal leaves through.
fn corner_diagonal_neighbour(color: Color, sq: Square) -> Option<Square> {
    match (color, sq) {
        (Color::White, Square::A1) => Some(Square::B2),
        (Color::White, Square::H1) => Some(Square::G2),
        (Color::Black, Square::A8) => Some(Square::B7),
        (Color::Black, Square::H8) => Some(Square::G7),
        _ => None,
    }
}
