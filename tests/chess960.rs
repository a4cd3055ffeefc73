//! End-to-end tests of Chess960 at the UCI edge: castling notation with
//! and without `UCI_Chess960`, X-FEN against Shredder-FEN, and legal best
//! moves from the 960 start positions, each against the built binary.

mod common;

use backrank_uci::notation::parse_fen;
use common::*;
use shakmaty::Position;

/// The 960 start positions in Shredder-FEN; line N+1 is position N.
const FRC960: &str = include_str!("data/frc960.epd");

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------
/// The board field of a FEN.
fn board_of(fen: &str) -> &str {
    fen.split(' ').next().unwrap()
}

/// The castling field of a FEN.
fn castling_of(fen: &str) -> &str {
    fen.split(' ').nth(2).unwrap()
}

fn has_perft_move(moves: &[(String, u64)], text: &str) -> bool {
    moves.iter().any(|(m, n)| m == text && *n == 1)
}

/// `fen` with every bishop, knight and queen taken off the board.
fn strip_minor_pieces(fen: &str) -> String {
    let (board, rest) = fen.split_once(' ').unwrap();
    let ranks: Vec<String> = board
        .split('/')
        .map(|rank| {
            let mut out = String::new();
            let mut empty = 0;
            for c in rank.chars() {
                if let Some(d) = c.to_digit(10) {
                    empty += d;
                } else if "bnqBNQ".contains(c) {
                    empty += 1;
                } else {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    out.push(c);
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            out
        })
        .collect();
    format!("{} {rest}", ranks.join("/"))
}

fn frc_position(n: usize) -> &'static str {
    FRC960.lines().nth(n).expect("960 lines").trim()
}

// ---------------------------------------------------------------------------
// 1. Castling notation
// ---------------------------------------------------------------------------

#[test]
fn castling_notation_follows_uci_chess960() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    // Counted by hand: 16 pawn moves, king d1 and f1, two castles, a1 rook
    // to b1-d1, h1 rook to g1 and f1: 25.
    let expected_total = 25;

    engine.send(&format!("position fen {CLASSICAL_CASTLING}"));
    let (moves, total) = engine.perft(1);
    assert_eq!(total, expected_total);
    assert_eq!(moves.len() as u64, expected_total);
    assert!(has_perft_move(&moves, "e1g1") && has_perft_move(&moves, "e1c1"), "{moves:?}");
    assert!(!moves.iter().any(|(m, _)| m == "e1h1" || m == "e1a1"), "{moves:?}");

    engine.set_chess960(true);
    engine.send(&format!("position fen {CLASSICAL_CASTLING}"));
    let (moves, total) = engine.perft(1);
    assert_eq!(total, expected_total);
    assert!(has_perft_move(&moves, "e1h1") && has_perft_move(&moves, "e1a1"), "{moves:?}");
    assert!(!moves.iter().any(|(m, _)| m == "e1g1" || m == "e1c1"), "{moves:?}");

    // King b1, rooks a1 and h1: king-takes-rook in both modes; b1c1 is a king step.
    // By hand: 16 pawn moves, king c1, both castles (c1-g1 empty), h1
    // rook to g1-c1: 24.
    let frc = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w AHah - 0 1";
    for chess960 in [false, true] {
        engine.set_chess960(chess960);
        engine.send(&format!("position fen {frc}"));
        let (moves, total) = engine.perft(1);
        assert_eq!(total, 24, "{chess960}: {moves:?}");
        assert!(has_perft_move(&moves, "b1a1") && has_perft_move(&moves, "b1h1"), "{chess960}: {moves:?}");
        assert!(has_perft_move(&moves, "b1c1"), "{chess960}: {moves:?}");
        assert!(!moves.iter().any(|(m, _)| m == "b1g1"), "{chess960}: {moves:?}");
    }

    // Both written forms are read in both modes, from the classical squares.
    for chess960 in [false, true] {
        engine.set_chess960(chess960);
        for (m, board) in [
            ("e1g1", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1"),
            ("e1h1", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1"),
            ("e1c1", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/2KR3R"),
            ("e1a1", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/2KR3R"),
        ] {
            engine.send(&format!("position fen {CLASSICAL_CASTLING} moves {m}"));
            let (x_fen, shredder) = engine.display();
            assert_eq!(board_of(&x_fen), board, "{m} (UCI_Chess960 {chess960})");
            assert_eq!(castling_of(&x_fen), "kq", "{m} (UCI_Chess960 {chess960})");
            assert_eq!(castling_of(&shredder), "ha", "{m} (UCI_Chess960 {chess960})");
        }
        // And on to black's castling in the same line.
        engine.send(&format!("position fen {CLASSICAL_CASTLING} moves e1g1 e8c8"));
        let (x_fen, _) = engine.display();
        assert_eq!(x_fen, "2kr3r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w - - 2 2");
    }

    // King-only castling: king e1 passes its rook d1 to c1; the rook stays.
    engine.set_chess960(true);
    engine.send("position fen k7/8/8/8/8/8/8/3RK3 w D - 0 1");
    let (moves, _) = engine.perft(1);
    assert!(has_perft_move(&moves, "e1d1"), "{moves:?}");
    engine.send("position fen k7/8/8/8/8/8/8/3RK3 w D - 0 1 moves e1d1");
    let (x_fen, _) = engine.display();
    assert_eq!(x_fen, "k7/8/8/8/8/8/8/2KR4 b - - 1 1");
    // King b1, rook d1: the rook is on the king's h-side, so this is the
    // king-side castle (king g1, rook f1), and b1c1 a mere king step.
    engine.send("position fen k7/8/8/8/8/8/8/1K1R4 w D - 0 1");
    let (moves, _) = engine.perft(1);
    assert!(has_perft_move(&moves, "b1d1") && has_perft_move(&moves, "b1c1"), "{moves:?}");
    engine.send("position fen k7/8/8/8/8/8/8/1K1R4 w D - 0 1 moves b1d1");
    let (x_fen, _) = engine.display();
    assert_eq!(x_fen, "k7/8/8/8/8/8/8/5RK1 b - - 1 1");
    engine.send("position fen k7/8/8/8/8/8/8/1K1R4 w D - 0 1 moves b1c1");
    let (x_fen, _) = engine.display();
    assert_eq!(x_fen, "k7/8/8/8/8/8/8/2KR4 b - - 1 1");

    // Rook-only castling: king g1 stays, rook h1 -> f1.
    engine.send("position fen k7/8/8/8/8/8/8/4R1KR w H - 0 1 moves g1h1");
    let (x_fen, _) = engine.display();
    assert_eq!(x_fen, "k7/8/8/8/8/8/8/4RRK1 b - - 1 1");

    // King f1, rook h1: f1g1 is an ordinary king step, f1h1 castles.
    let step = "1r3k1r/8/8/8/8/8/8/1R3K1R w HBhb - 0 1";
    for chess960 in [false, true] {
        engine.set_chess960(chess960);
        engine.send(&format!("position fen {step}"));
        let (moves, _) = engine.perft(1);
        assert!(has_perft_move(&moves, "f1g1") && has_perft_move(&moves, "f1h1"), "{moves:?}");
        assert!(has_perft_move(&moves, "f1b1"), "{moves:?}");
        engine.send(&format!("position fen {step} moves f1g1"));
        let (x_fen, shredder) = engine.display();
        assert_eq!(board_of(&x_fen), "1r3k1r/8/8/8/8/8/8/1R4KR", "f1g1 (UCI_Chess960 {chess960})");
        assert_eq!(castling_of(&shredder), "hb", "f1g1 (UCI_Chess960 {chess960})");
        engine.send(&format!("position fen {step} moves f1h1"));
        let (x_fen, shredder) = engine.display();
        assert_eq!(board_of(&x_fen), "1r3k1r/8/8/8/8/8/8/1R3RK1", "f1h1 (UCI_Chess960 {chess960})");
        assert_eq!(castling_of(&shredder), "hb", "f1h1 (UCI_Chess960 {chess960})");
        // The classical form is refused away from the classical squares: the
        // move is dropped and the position stays.
        engine.send(&format!("position fen {step} moves f1c1"));
        let (x_fen, _) = engine.display();
        assert_eq!(board_of(&x_fen), board_of(step), "f1c1 (UCI_Chess960 {chess960})");
    }
}

// ---------------------------------------------------------------------------
// 2. X-FEN
// ---------------------------------------------------------------------------

#[test]
fn x_fen_and_shredder_fen_agree() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    engine.set_chess960(true);
    // (X-FEN, Shredder-FEN, counts from depth 1), the counts worked out by
    // hand or published.
    let cases: [(&str, &str, Vec<u64>); 5] = [
        // King g1 between rooks b1 and h1, castling possible on both sides.
        // Every white move is 16 pawn moves, king f1, castles g1h1 (rook
        // to f1) and g1b1 (king c1, rook d1, c1-f1 empty), b1 rook to a1
        // and c1-f1: 24. Black's are the mirror image, and no first move
        // touches the other side's: 24 x 24 at depth 2.
        (
            "1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w KQkq - 0 1",
            "1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w HBhb - 0 1",
            vec![24, 576],
        ),
        // Inner rooks (b1, b8) named by their file letter in X-FEN. White:
        // 14 pawn moves, king d1 and f1, castles e1g1 (rook to f1) and
        // e1b1 (king c1, rook d1), never with the outer a1 rook; a1 rook
        // to a2-a7 and xa8, b1 rook to c1 and d1, g1 rook to f1 and h1: 29.
        // Black likewise has 29 after any of the 22 moves that leave the
        // a-file alone. After the a1 rook's: a2 28, a3 27, a4 26, a5 25
        // (the a8 rook's file shortens), a6 25 (b7xa6 too), a7 23, xa8 22
        // (the a8 rook's 7 moves go, b8xa8 comes, and castling to c8 would
        // put the king on the opened rank): 22 x 29 + 176 = 814.
        (
            "rr2k1r1/1ppppppp/8/8/8/8/1PPPPPPP/RR2K1R1 w KBkb - 0 1",
            "rr2k1r1/1ppppppp/8/8/8/8/1PPPPPPP/RR2K1R1 w GBgb - 0 1",
            vec![29, 814],
        ),
        // A start position in X-FEN (king d1 between rooks b1 and g1).
        (
            "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w KQkq - 0 1",
            "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1",
            published_counts("nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1"),
        ),
        // Middlegames from the published castling suite.
        (
            "1bqrkrbn/1pp1pppp/1n1p3Q/p7/3P4/6N1/PPP1PPPP/NB1RKRB1 w KQkq - 0 4",
            "1bqrkrbn/1pp1pppp/1n1p3Q/p7/3P4/6N1/PPP1PPPP/NB1RKRB1 w FDfd - 0 4",
            published_counts("1bqrkrbn/1pp1pppp/1n1p3Q/p7/3P4/6N1/PPP1PPPP/NB1RKRB1 w FDfd - 0 4"),
        ),
        (
            "1bbrkn1r/Q3p1p1/2pp1p1n/7p/1P1P4/8/P1P1PPPP/RN1KRBBN b KQkq - 0 8",
            "1bbrkn1r/Q3p1p1/2pp1p1n/7p/1P1P4/8/P1P1PPPP/RN1KRBBN b EAhd - 0 8",
            published_counts("1bbrkn1r/Q3p1p1/2pp1p1n/7p/1P1P4/8/P1P1PPPP/RN1KRBBN b EAhd - 0 8"),
        ),
    ];
    for (x, shredder, counts) in cases {
        for fen in [shredder, x] {
            engine.send(&format!("position fen {fen}"));
            for (depth, &expected) in (1..=3).zip(&counts) {
                let (_, total) = engine.perft(depth);
                assert_eq!(total, expected, "{fen} depth {depth}");
            }
        }
        let (x_out, shredder_out) = engine.display();
        assert_eq!(shredder_out, shredder, "`d` after {x}");
        assert_eq!(x_out, x, "`d` after {x}");
    }
    // The castling rights really are in play in the first two cases:
    // without them exactly the two castles go.
    for (fen, moves) in [
        ("1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w - - 0 1", 22),
        ("rr2k1r1/1ppppppp/8/8/8/8/1PPPPPPP/RR2K1R1 w - - 0 1", 27),
    ] {
        engine.send(&format!("position fen {fen}"));
        let (_, total) = engine.perft(1);
        assert_eq!(total, moves, "{fen}");
    }
    // The inner-rook castle itself is listed.
    engine.send("position fen rr2k1r1/1ppppppp/8/8/8/8/1PPPPPPP/RR2K1R1 w KBkb - 0 1");
    let (moves, _) = engine.perft(1);
    assert!(has_perft_move(&moves, "e1b1") && has_perft_move(&moves, "e1g1"), "{moves:?}");
    assert!(!moves.iter().any(|(m, _)| m == "e1a1"), "{moves:?}");
}

// ---------------------------------------------------------------------------
// 3. Legal best moves in Chess960 start positions
// ---------------------------------------------------------------------------

#[test]
fn bestmove_is_legal_in_random_chess960_start_positions() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    engine.set_chess960(true);
    let mut rng = SplitMix(0x05ee_d960);
    let mut picked = Vec::new();
    while picked.len() < 100 {
        let n = rng.below(960) as usize;
        if !picked.contains(&n) {
            picked.push(n);
        }
    }
    for n in picked {
        let fen = frc_position(n);
        let pos = parse_fen(fen).unwrap();
        engine.send("ucinewgame");
        engine.send(&format!("position fen {fen}"));
        let (best, ponder, _) = engine.go("go depth 3");
        let m = assert_legal(&engine, &pos, &best, true);
        if let Some(ponder) = ponder {
            assert_legal(&engine, &after(&pos, m), &ponder, true);
        }
    }

    // The same back ranks with the minor pieces and queens gone, a few plies
    // in: castling is now often legal. Whatever the engine picks must be
    // legal, and a castle it is made to play (searchmoves) must come out
    // king-takes-rook, or e1g1/e1c1 from the classical squares in classical mode.
    let mut rng = SplitMix(42);
    let mut castles = 0;
    for _ in 0..40 {
        let fen = strip_minor_pieces(frc_position(rng.below(960) as usize));
        let mut pos = parse_fen(&fen).unwrap();
        // Walk a few random plies to get the pieces moving.
        let mut played = Vec::new();
        for _ in 0..rng.below(4) {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.below(legal.len() as u64) as usize];
            played.push(uci_960(m));
            pos = after(&pos, m);
        }
        let legal = pos.legal_moves();
        if legal.is_empty() {
            continue;
        }
        engine.send(&format!("position fen {fen} moves {}", played.join(" ")));
        for chess960 in [true, false] {
            engine.set_chess960(chess960);
            let (best, _, _) = engine.go("go depth 3");
            assert_legal(&engine, &pos, &best, chess960);
            for castle in legal.iter().filter(|m| m.is_castle()) {
                let (best, ponder, lines) =
                    engine.go(&format!("go depth 2 searchmoves {}", uci_960(*castle)));
                let m = assert_legal(&engine, &pos, &best, chess960);
                assert_eq!(m, *castle, "{lines:?}");
                if let Some(ponder) = ponder {
                    assert_legal(&engine, &after(&pos, m), &ponder, chess960);
                }
                let pv = format!(" pv {best}");
                assert!(lines.iter().any(|l| l.contains(&pv)), "no `{pv}` in {lines:?}");
                castles += 1;
            }
        }
    }
    assert!(castles >= 10, "only {castles} castles tried");
}
