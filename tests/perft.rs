//! Move generation checked by perft against counts confirmed by two
//! independent generators: the 960 Chess960 start positions and 300
//! Chess960/DFRC middlegames near castling, the latter read both as
//! Shredder-FEN and as X-FEN.

use backrank::perft::perft;
use backrank_uci::notation::parse_fen;

const START_POSITIONS: &str = include_str!("data/frc960-perft.epd");
const CASTLING_POSITIONS: &str = include_str!("data/frc-castling-perft.epd");

/// A suite line: the FEN and its (depth, count) pairs.
fn parse_line(line: &str) -> (&str, Vec<(u32, u64)>) {
    let mut fields = line.split(';');
    let fen = fields.next().unwrap().trim();
    let counts = fields
        .map(|field| {
            let (depth, count) = field.trim().split_once(' ').unwrap();
            (depth.trim_start_matches('D').parse().unwrap(), count.parse().unwrap())
        })
        .collect();
    (fen, counts)
}

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
    for line in START_POSITIONS.lines().skip(share).step_by(shares) {
        let (fen, counts) = parse_line(line);
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
    let lines: Vec<&str> = START_POSITIONS.lines().collect();
    let sample = (0..lines.len()).step_by(48).chain([518]);
    for index in sample {
        let (fen, counts) = parse_line(lines[index]);
        assert!(counts.iter().any(|&(d, _)| d == 5));
        check(fen, &counts, 5);
    }
}

#[test]
fn castling_middlegames_shredder_fen() {
    for line in CASTLING_POSITIONS.lines() {
        let (fen, counts) = parse_line(line);
        check(fen, &counts, 4);
    }
}

#[test]
fn castling_middlegames_x_fen() {
    let mut rewritten = 0;
    for line in CASTLING_POSITIONS.lines() {
        let (fen, counts) = parse_line(line);
        let x_fen = to_x_fen(fen);
        rewritten += usize::from(x_fen != fen);
        check(&x_fen, &counts, 4);
    }
    // Nearly every position has castling rights, now written as KQkq.
    assert!(rewritten > 250, "{rewritten}");
}

/// Inner castling rooks (the file-letter form of X-FEN): these positions
/// have two rooks on one side of the king, the inner one castling.
#[test]
fn x_fen_inner_rooks() {
    let cases = [
        // White may castle with the b1 rook only (a1 rook is outer); Black with both.
        ("r3k2r/8/8/8/8/8/8/RR2K2R w HBha - 0 1", "r3k2r/8/8/8/8/8/8/RR2K2R w KBkq - 0 1"),
        ("1r2k1rr/8/8/8/8/8/8/1R2K1R1 b GBgb - 0 1", "1r2k1rr/8/8/8/8/8/8/1R2K1R1 b KQgq - 0 1"),
    ];
    for (shredder, x) in cases {
        assert_eq!(to_x_fen(shredder), x);
        let a = parse_fen(shredder).unwrap();
        let b = parse_fen(x).unwrap();
        assert_eq!(a, b);
        for depth in 1..=3 {
            assert_eq!(perft(&a, depth), perft(&b, depth), "{x} depth {depth}");
        }
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
