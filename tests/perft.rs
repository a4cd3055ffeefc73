//! Move generation checked by perft against counts confirmed by two
//! independent generators: the 960 Chess960 start positions and 300
//! Chess960/DFRC middlegames near castling, the latter read both as
//! Shredder-FEN and as X-FEN; and inner castling rooks against moves
//! counted by hand.

mod common;

use std::collections::BTreeSet;

use backrank::perft::perft;
use backrank_uci::notation::parse_fen;
use shakmaty::{Chess, Move, Position};

use common::{CASTLING_PERFT, FRC960_PERFT, parse_perft_line};

/// Rewrites a Shredder-FEN's castling field as X-FEN: `K`/`Q` (`k`/`q`)
/// for the outermost rook on that side of the king, the file letter for an
/// inner one. Written independently of the engine's own FEN code.
fn to_x_fen(shredder: &str) -> String {
    let fields: Vec<&str> = shredder.split(' ').collect();
    let ranks: Vec<&str> = fields[0].split('/').collect();
    let expand = |rank: &str| -> Vec<char> {
        rank.chars()
            .flat_map(|c| match c.to_digit(10) {
                Some(n) => vec!['.'; n as usize],
                None => vec![c],
            })
            .collect()
    };
    let castling: String = fields[2]
        .chars()
        .map(|right| {
            if right == '-' {
                return right;
            }
            let white = right.is_ascii_uppercase();
            let rank = expand(if white { ranks[7] } else { ranks[0] });
            let (king, rook) = if white { ('K', 'R') } else { ('k', 'r') };
            let king_file = rank.iter().position(|&c| c == king).unwrap();
            let rook_file = (right.to_ascii_lowercase() as u8 - b'a') as usize;
            let outer = if rook_file > king_file {
                (rook_file + 1..8).all(|f| rank[f] != rook)
            } else {
                (0..rook_file).all(|f| rank[f] != rook)
            };
            match (outer, rook_file > king_file, white) {
                (true, true, true) => 'K',
                (true, false, true) => 'Q',
                (true, true, false) => 'k',
                (true, false, false) => 'q',
                (false, _, _) => right,
            }
        })
        .collect();
    let mut out: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
    out[2] = castling;
    out.join(" ")
}

fn check(fen: &str, counts: &[(u32, u64)], max_depth: u32) {
    let pos = parse_fen(fen).unwrap_or_else(|e| panic!("{e}"));
    for &(depth, expected) in counts.iter().filter(|(d, _)| *d <= max_depth) {
        assert_eq!(perft(&pos, depth), expected, "{fen} depth {depth}");
    }
}

/// Runs one share of a suite (the suites are split so that tests run in parallel).
fn start_positions_share(share: usize, shares: usize) {
    for line in FRC960_PERFT.lines().skip(share).step_by(shares) {
        let (fen, counts) = parse_perft_line(line);
        check(fen, &counts, 4);
    }
}

#[test]
fn chess960_start_positions_depth_4_part_1() {
    start_positions_share(0, 3);
}

#[test]
fn chess960_start_positions_depth_4_part_2() {
    start_positions_share(1, 3);
}

#[test]
fn chess960_start_positions_depth_4_part_3() {
    start_positions_share(2, 3);
}

#[test]
fn chess960_start_positions_depth_5_sample() {
    // Every 48th position, classical chess (518) among them.
    let lines: Vec<&str> = FRC960_PERFT.lines().collect();
    let sample = (0..lines.len()).step_by(48).chain([518]);
    for index in sample {
        let (fen, counts) = parse_perft_line(lines[index]);
        assert!(counts.iter().any(|&(d, _)| d == 5));
        check(fen, &counts, 5);
    }
}

#[test]
fn castling_middlegames_shredder_fen() {
    for line in CASTLING_PERFT.lines() {
        let (fen, counts) = parse_perft_line(line);
        check(fen, &counts, 4);
    }
}

#[test]
fn castling_middlegames_x_fen() {
    let mut rewritten = 0;
    for line in CASTLING_PERFT.lines() {
        let (fen, counts) = parse_perft_line(line);
        let x_fen = to_x_fen(fen);
        rewritten += usize::from(x_fen != fen);
        check(&x_fen, &counts, 4);
    }
    // Nearly every position has castling rights, now written as KQkq.
    assert!(rewritten > 250, "{rewritten}");
}

/// The castling moves of `pos`, as king square then rook square.
fn castles(pos: &Chess) -> BTreeSet<String> {
    pos.legal_moves()
        .into_iter()
        .filter_map(|m| match m {
            Move::Castle { king, rook } => Some(format!("{king}{rook}")),
            _ => None,
        })
        .collect()
}

/// Inner castling rooks (the file-letter form of X-FEN): these positions
/// have two rooks on one side of a king, the inner one castling. Both
/// forms must give the moves counted by hand, castles included.
#[test]
fn x_fen_inner_rooks() {
    // (Shredder-FEN, X-FEN, legal moves, castles), each side to move.
    //
    // 1. White: rooks a1, b1, h1, king e1, rights on b1 and h1; Black:
    //    rooks a8, h8, king e8, both rights. No square near either king is
    //    attacked.
    //    White: king 5 steps (d1 f1 d2 e2 f2); castles e1h1 (f1 g1 empty)
    //    and e1b1 (king to c1, rook to d1, both empty), but not with the
    //    outer a1 rook; a1 rook 7 (a2-a7, xa8); b1 rook 9 (b2-b8, c1, d1);
    //    h1 rook 9 (h2-h7, xh8, g1, f1): 32.
    //    Black: king 5; castles e8h8 and e8a8 (b8-d8 empty); a8 rook 10
    //    (a7-a2, xa1, b8-d8); h8 rook 9 (h7-h2, xh1, g8, f8): 26.
    // 2. White: rooks b1, g1, king e1, rights on both; Black: rooks b8,
    //    g8, h8, king e8, rights on b8 and the inner g8 rook. The g-file is
    //    open, so each king would land on g1/g8 in the other rook's line:
    //    only the b-rook castles.
    //    Black: king 5; e8b8 (king c8, rook d8); b8 rook 10 (a8, c8, d8,
    //    b7-b2, xb1); g8 rook 8 (f8, g7-g2, xg1); h8 rook 7 (h7-h1): 31.
    //    White: king 5; e1b1; b1 rook 10 (a1, c1, d1, b2-b7, xb8); g1 rook 9
    //    (f1, h1, g2-g7, xg8): 25.
    let cases: [(&str, &str, u64, &[&str]); 4] = [
        (
            "r3k2r/8/8/8/8/8/8/RR2K2R w HBha - 0 1",
            "r3k2r/8/8/8/8/8/8/RR2K2R w KBkq - 0 1",
            32,
            &["e1b1", "e1h1"],
        ),
        (
            "r3k2r/8/8/8/8/8/8/RR2K2R b HBha - 0 1",
            "r3k2r/8/8/8/8/8/8/RR2K2R b KBkq - 0 1",
            26,
            &["e8a8", "e8h8"],
        ),
        (
            "1r2k1rr/8/8/8/8/8/8/1R2K1R1 b GBgb - 0 1",
            "1r2k1rr/8/8/8/8/8/8/1R2K1R1 b KQgq - 0 1",
            31,
            &["e8b8"],
        ),
        (
            "1r2k1rr/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1",
            "1r2k1rr/8/8/8/8/8/8/1R2K1R1 w KQgq - 0 1",
            25,
            &["e1b1"],
        ),
    ];
    for (shredder, x, moves, expected_castles) in cases {
        assert_eq!(to_x_fen(shredder), x);
        let expected_castles: BTreeSet<String> = expected_castles.iter().map(|c| c.to_string()).collect();
        for fen in [shredder, x] {
            let pos = parse_fen(fen).unwrap();
            assert_eq!(perft(&pos, 1), moves, "{fen}");
            assert_eq!(castles(&pos), expected_castles, "{fen}");
        }
        // Without the rights, exactly the castles go.
        let mut fields: Vec<&str> = shredder.split(' ').collect();
        fields[2] = "-";
        let no_rights = fields.join(" ");
        let pos = parse_fen(&no_rights).unwrap();
        assert_eq!(perft(&pos, 1), moves - expected_castles.len() as u64, "{no_rights}");
    }
}

#[test]
fn x_fen_conversion() {
    assert_eq!(
        to_x_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"),
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9"
    );
    assert_eq!(to_x_fen("4k3/8/8/8/8/8/8/RR2K1R1 w GB - 0 1"), "4k3/8/8/8/8/8/8/RR2K1R1 w KB - 0 1");
}
