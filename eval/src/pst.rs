//! Material and piece-square tables, from White's point of view
//! (index 0 = a1, 63 = h8), built by `const` formulas so that each shape
//! is stated once and its reason written beside it.

use crate::Tapered;

/// Material by role (pawn, knight, bishop, rook, queen, king).
pub const MATERIAL: [Tapered; 6] = [
    Tapered::new(85, 115),
    Tapered::new(335, 310),
    Tapered::new(355, 330),
    Tapered::new(475, 545),
    Tapered::new(1000, 1020),
    Tapered::new(0, 0),
];

/// Contribution of each role to the game phase.
pub const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];

/// Piece-square bonuses by role, then square.
pub const PST: [[Tapered; 64]; 6] = build_tables();

const fn build_tables() -> [[Tapered; 64]; 6] {
    let mut tables = [[Tapered::new(0, 0); 64]; 6];
    let mut role = 0;
    while role < 6 {
        let mut sq = 0;
        while sq < 64 {
            tables[role][sq] = by_role(role, (sq % 8) as i32, (sq / 8) as i32);
            sq += 1;
        }
        role += 1;
    }
    tables
}

/// Distance from the edge: 0 on the a/h file (or rank 1/8), 3 in the centre.
const fn centrality(x: i32) -> i32 {
    if x < 7 - x { x } else { 7 - x }
}

/// Pawns: advance (more so in the endgame, where passers decide), and
/// occupy the centre in the middlegame.
const fn pawn(file: i32, rank: i32) -> Tapered {
    const MG_ADVANCE: [i32; 8] = [0, 0, 0, 5, 12, 25, 45, 0];
    const EG_ADVANCE: [i32; 8] = [0, 0, 3, 12, 28, 50, 85, 0];
    let centre = if (file == 3 || file == 4) && (rank == 3 || rank == 4) { 12 } else { 0 };
    let flank_push = if rank >= 3 && (file == 0 || file == 7) { -5 } else { 0 };
    Tapered::new(MG_ADVANCE[rank as usize] + centre + flank_push, EG_ADVANCE[rank as usize])
}

/// Knights: strongly centralised, poor on the rim.
const fn knight(file: i32, rank: i32) -> Tapered {
    let c = centrality(file) + centrality(rank);
    let forward = if rank >= 3 && rank <= 5 { 6 } else { 0 };
    Tapered::new(7 * c - 21 + forward, 5 * c - 15)
}

/// Bishops: mildly centralised (long diagonals pass the centre).
const fn bishop(file: i32, rank: i32) -> Tapered {
    let c = centrality(file) + centrality(rank);
    Tapered::new(3 * c - 9, 3 * c - 9)
}

/// Rooks: the seventh rank, and central files in the middlegame.
const fn rook(file: i32, rank: i32) -> Tapered {
    let seventh = if rank == 6 { 15 } else { 0 };
    Tapered::new(seventh + 2 * centrality(file) - 3, seventh / 2)
}

/// Queens: little in the middlegame (early sorties are risky), centralised later.
const fn queen(file: i32, rank: i32) -> Tapered {
    let c = centrality(file) + centrality(rank);
    let early_sortie = if rank >= 4 { -5 } else { 0 };
    Tapered::new(c - 3 + early_sortie, 4 * c - 12)
}

/// King: sheltered on the back rank towards a wing in the middlegame,
/// wherever it started (Chess960 kings castle either way or not at all);
/// central and active in the endgame.
const fn king(file: i32, rank: i32) -> Tapered {
    const MG_RANK: [i32; 8] = [10, -10, -30, -45, -55, -60, -60, -60];
    const MG_FILE: [i32; 4] = [10, 15, -5, -15];
    let c = centrality(file) + centrality(rank);
    Tapered::new(MG_RANK[rank as usize] + MG_FILE[centrality(file) as usize], 9 * c - 27)
}

const fn by_role(role: usize, file: i32, rank: i32) -> Tapered {
    match role {
        0 => pawn(file, rank),
        1 => knight(file, rank),
        2 => bishop(file, rank),
        3 => rook(file, rank),
        4 => queen(file, rank),
        _ => king(file, rank),
    }
}
