//! End-to-end tests of the UCI protocol: each test spawns the built
//! `backrank` binary and talks to it over stdin/stdout, as a GUI would.

mod common;

use std::thread;
use std::time::{Duration, Instant};

use backrank_uci::notation::{parse_fen, parse_move};
use common::*;
use shakmaty::{Chess, Move, Position};

/// The 960 start positions in Shredder-FEN; line N+1 is position N.
const FRC960: &str = include_str!("data/frc960.epd");

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// A move in UCI_Chess960 notation, written independently of the engine:
/// castling as king-takes-rook.
fn uci_960(m: Move) -> String {
    match m {
        Move::Castle { king, rook } => format!("{king}{rook}"),
        _ => {
            let from = m.from().expect("a board move");
            let promotion = m.promotion().map(|r| r.char().to_string()).unwrap_or_default();
            format!("{from}{}{promotion}", m.to())
        }
    }
}

/// Checks that `text` is a legal move in `pos`, written as `chess960`
/// asks; returns it.
#[track_caller]
fn assert_legal(engine: &Engine, pos: &Chess, text: &str, chess960: bool) -> Move {
    let m = match parse_move(pos, text) {
        Ok(m) => m,
        Err(e) => engine
            .fail(&format!("bestmove {text}: {e} (position {})", backrank_uci::notation::shredder_fen(pos))),
    };
    if !pos.is_legal(m) {
        engine.fail(&format!("{text} parsed to the illegal move {m:?}"));
    }
    let expected = match m {
        Move::Castle { king, rook } if !chess960 => {
            let classical = king.file() == shakmaty::File::E
                && matches!(rook.file(), shakmaty::File::A | shakmaty::File::H);
            if classical {
                let to_file = if rook > king { 'g' } else { 'c' };
                format!("{king}{to_file}{}", king.rank().char())
            } else {
                uci_960(m)
            }
        }
        _ => uci_960(m),
    };
    if text != expected {
        engine.fail(&format!("move {m:?} written '{text}', expected '{expected}'"));
    }
    m
}

/// `pos` after `m`.
fn after(pos: &Chess, m: Move) -> Chess {
    let mut next = pos.clone();
    next.play_unchecked(m);
    next
}

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

/// A small LCG: reproducible picks without a random-number crate.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
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
// 1. Handshake
// ---------------------------------------------------------------------------

#[test]
fn handshake_lists_options_and_answers_isready() {
    let _cpu = shared_cpu();
    let mut engine = Engine::spawn();
    engine.send("uci");
    let lines = engine.read_until(|l| l == "uciok", SLOW);
    assert!(lines[0].starts_with("id name Backrank"), "first line {:?}", lines[0]);
    assert!(lines.iter().any(|l| l.starts_with("id author ")), "{lines:?}");
    for option in [
        "option name Hash type spin default 16 min 1 max ",
        "option name Threads type spin default 1 min 1 max ",
        "option name Clear Hash type button",
        "option name Ponder type check default false",
        "option name UCI_Chess960 type check default false",
        "option name Move Overhead type spin default 10 min 0 max ",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(option)), "no `{option}` in {lines:#?}");
    }
    // Nothing but id and option lines before uciok.
    for line in &lines[..lines.len() - 1] {
        assert!(line.starts_with("id ") || line.starts_with("option name "), "unexpected {line:?}");
    }
    assert!(engine.sync().is_empty());
    // Options can be set (names are case-insensitive) without any complaint.
    for set in [
        "setoption name Hash value 8",
        "setoption name threads value 1",
        "setoption name Clear Hash",
        "setoption name Ponder value true",
        "setoption name uci_chess960 value true",
        "setoption name Move Overhead value 30",
        "ucinewgame",
    ] {
        engine.send(set);
        let noise = engine.sync();
        assert!(noise.is_empty(), "`{set}` answered {noise:?}");
    }
    // A second `uci` is answered again.
    engine.send("uci");
    engine.expect_line(|l| l == "uciok", SLOW);
    let status = engine.quit_and_wait(SLOW).expect("the engine did not quit");
    assert!(status.success(), "exit status {status:?}");
}

// ---------------------------------------------------------------------------
// 2. Castling notation
// ---------------------------------------------------------------------------

#[test]
fn castling_notation_follows_uci_chess960() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    let classical = parse_fen(CLASSICAL_CASTLING).unwrap();
    let expected_total = shakmaty::perft(&classical, 1);

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
    let frc = "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w AHah - 0 1";
    for chess960 in [false, true] {
        engine.set_chess960(chess960);
        engine.send(&format!("position fen {frc}"));
        let (moves, total) = engine.perft(1);
        assert_eq!(total, shakmaty::perft(&parse_fen(frc).unwrap(), 1));
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
// 3. X-FEN
// ---------------------------------------------------------------------------

#[test]
fn x_fen_and_shredder_fen_agree() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    engine.set_chess960(true);
    // King g1 between rooks b1 and h1; castling is possible on both sides.
    let cases = [
        (
            "1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w KQkq - 0 1",
            "1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w HBhb - 0 1",
        ),
        // Inner rooks (b1, b8) named by their file letter in X-FEN.
        (
            "rr2k1r1/1ppppppp/8/8/8/8/1PPPPPPP/RR2K1R1 w KBkb - 0 1",
            "rr2k1r1/1ppppppp/8/8/8/8/1PPPPPPP/RR2K1R1 w GBgb - 0 1",
        ),
        // A start position in X-FEN (king d1 between rooks b1 and g1).
        (
            "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w KQkq - 0 1",
            "nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1",
        ),
    ];
    for (x, shredder) in cases {
        let expected = shakmaty::perft(&parse_fen(shredder).unwrap(), 3);
        engine.send(&format!("position fen {shredder}"));
        let (_, shredder_total) = engine.perft(3);
        assert_eq!(shredder_total, expected, "{shredder}");
        engine.send(&format!("position fen {x}"));
        let (_, x_total) = engine.perft(3);
        assert_eq!(x_total, expected, "{x}");
        let (x_out, shredder_out) = engine.display();
        assert_eq!(shredder_out, shredder, "`d` after {x}");
        assert_eq!(x_out, x, "`d` after {x}");
    }
    // The castling rights really are in play in the first two cases.
    for fen in [
        "1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w - - 0 1",
        "rr2k1r1/1ppppppp/8/8/8/8/1PPPPPPP/RR2K1R1 w - - 0 1",
    ] {
        engine.send(&format!("position fen {fen}"));
        let (_, total) = engine.perft(3);
        let with_rights = shakmaty::perft(&parse_fen(&fen.replace(" - - ", " KQkq - ")).unwrap(), 3);
        assert_ne!(total, with_rights, "{fen}: castling makes no difference at depth 3");
    }
    // The inner-rook castle itself is listed.
    engine.send("position fen rr2k1r1/1ppppppp/8/8/8/8/1PPPPPPP/RR2K1R1 w KBkb - 0 1");
    let (moves, _) = engine.perft(1);
    assert!(has_perft_move(&moves, "e1b1") && has_perft_move(&moves, "e1g1"), "{moves:?}");
    assert!(!moves.iter().any(|(m, _)| m == "e1a1"), "{moves:?}");
}

// ---------------------------------------------------------------------------
// 4. Legal best moves in Chess960 start positions
// ---------------------------------------------------------------------------

#[test]
fn bestmove_is_legal_in_random_chess960_start_positions() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    engine.set_chess960(true);
    let mut rng = Lcg(0x05ee_d960);
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
    let mut rng = Lcg(42);
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

// ---------------------------------------------------------------------------
// 5. stop and isready during a search
// ---------------------------------------------------------------------------

#[test]
fn stop_ends_an_infinite_search_and_isready_is_answered_while_searching() {
    let _cpu = exclusive_cpu();
    let mut engine = Engine::ready();
    for go in ["go infinite", "go"] {
        engine.send("position startpos moves e2e4");
        engine.send(go);
        thread::sleep(Duration::from_millis(200));
        // isready is answered at once, during the search.
        engine.send("isready");
        let lines = engine.read_until(|l| l == "readyok", STOP_LATENCY);
        if lines.iter().any(|l| l.starts_with("bestmove")) {
            engine.fail(&format!("`{go}` ended before stop"));
        }
        // An infinite search does not end on its own...
        engine.expect_no_line(|l| l.starts_with("bestmove"), Duration::from_millis(300));
        // ...but at once on stop.
        let sent = Instant::now();
        engine.send("stop");
        let (best, _, _) = engine.await_bestmove(STOP_LATENCY);
        let elapsed = sent.elapsed();
        assert!(elapsed <= STOP_LATENCY, "bestmove {elapsed:?} after stop");
        let pos = parse_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
        assert_legal(&engine, &pos, &best, false);
        engine.expect_no_line(|l| l.starts_with("bestmove"), Duration::from_millis(200));
    }

    // A stop right behind the go is not lost.
    engine.send("position startpos");
    engine.send_bytes(b"go infinite\nstop\n");
    let (best, _, _) = engine.await_bestmove(STOP_LATENCY);
    assert_legal(&engine, &Chess::default(), &best, false);

    // stop with no search running is harmless.
    engine.send("stop");
    assert!(engine.sync().is_empty());

    // quit during an infinite search ends the process promptly.
    engine.send("go infinite");
    thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    let status = engine.quit_and_wait(STOP_LATENCY);
    assert!(
        status.is_some_and(|s| s.success()),
        "quit during a search: {status:?} after {:?}",
        started.elapsed()
    );
}

#[test]
fn ponderhit_starts_the_clock() {
    let _cpu = exclusive_cpu();
    let mut engine = Engine::ready();
    engine.send("setoption name Ponder value true");
    engine.send("position startpos moves e2e4 e7e5");
    engine.send("go ponder wtime 2000 btime 2000");
    // While pondering there is no bestmove, however long it takes.
    engine.expect_no_line(|l| l.starts_with("bestmove"), Duration::from_millis(500));
    engine.send("ponderhit");
    // Under a 2 s clock the move must come well within it.
    let (best, _, _) = engine.await_bestmove(Duration::from_millis(1800));
    let pos = parse_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2").unwrap();
    assert_legal(&engine, &pos, &best, false);

    // A ponder search that is stopped answers at once too.
    engine.send("go ponder wtime 2000 btime 2000");
    thread::sleep(Duration::from_millis(100));
    engine.send("stop");
    let (best, _, _) = engine.await_bestmove(STOP_LATENCY);
    assert_legal(&engine, &pos, &best, false);
}

// ---------------------------------------------------------------------------
// 6. No legal move
// ---------------------------------------------------------------------------

#[test]
fn checkmate_and_stalemate_give_null_bestmove() {
    let _cpu = exclusive_cpu();
    let mut engine = Engine::ready();
    let mate = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    let stalemate = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
    for (fen, score) in [(mate, "info depth 0 score mate 0"), (stalemate, "info depth 0 score cp 0")] {
        for go in ["go depth 5", "go movetime 50", "go wtime 1000 btime 1000", "go nodes 100"] {
            engine.send(&format!("position fen {fen}"));
            let (best, ponder, lines) = engine.go(go);
            assert_eq!(best, "0000", "{fen} `{go}`");
            assert_eq!(ponder, None, "{fen} `{go}`");
            let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info")).collect();
            assert_eq!(infos, [score], "{fen} `{go}`: {lines:?}");
        }
        // An infinite search waits for stop even with nothing to search.
        engine.send(&format!("position fen {fen}"));
        engine.send("go infinite");
        engine.expect_no_line(|l| l.starts_with("bestmove"), Duration::from_millis(300));
        engine.send("stop");
        let (best, _, lines) = engine.await_bestmove(STOP_LATENCY);
        assert_eq!(best, "0000");
        assert_eq!(lines.last().map(String::as_str), Some(score));
    }
    // The same mate reached through moves.
    engine.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    let (best, _, lines) = engine.go("go depth 3");
    assert_eq!(best, "0000");
    assert_eq!(lines.last().map(String::as_str), Some("info depth 0 score mate 0"));
}

// ---------------------------------------------------------------------------
// 7. Malformed input
// ---------------------------------------------------------------------------

#[test]
fn malformed_input_is_reported_and_ignored() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    let long_line = "x".repeat(100_000);
    // Each line, and how many `info string` lines it must produce (nothing else).
    let bad: Vec<(&str, usize)> = vec![
        ("foo", 1),
        ("go depth x", 1),
        ("go depth", 1),
        ("go sideways 3", 1),
        ("go nodes -1", 1),
        ("position fen garbage", 1),
        ("position fen", 1),
        ("position", 1),
        ("position somewhere", 1),
        ("position startpos moves e2e5", 1),
        ("setoption name Hash value -1", 1),
        ("setoption name Hash value 0", 1),
        ("setoption name Hash value lots", 1),
        ("setoption name Threads value 0", 1),
        ("setoption name UCI_Chess960 value maybe", 1),
        ("setoption name Nope value 1", 1),
        ("setoption value 3", 1),
        ("setoption", 1),
        ("isready now", 1),
        ("debug sideways", 1),
        ("", 0),
        ("   \t  ", 0),
        ("\u{1}\u{2}", 1),
        ("\u{0}", 1),
        ("\u{7f}\u{1b}[31m", 1),
        ("é€💥", 1),
        (&long_line, 1),
    ];
    for (line, infos) in &bad {
        engine.send(line);
        let answer = engine.sync();
        let all_info_strings = answer.iter().all(|l| l.starts_with("info string "));
        if answer.len() != *infos || !all_info_strings {
            engine.fail(&format!(
                "{:?} answered {answer:?}, expected {infos} `info string` line(s)",
                clip(line)
            ));
        }
    }
    // A line ending in CR LF (a Windows GUI) is still a command.
    engine.send_bytes(b"isready\r\n");
    engine.expect_line(|l| l == "readyok", SLOW);

    // Still alive and searching from the start position (every bad
    // `position` was ignored, and the bad move dropped).
    let (x_fen, _) = engine.display();
    assert_eq!(x_fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    let (best, _, _) = engine.go("go depth 2");
    assert_legal(&engine, &Chess::default(), &best, false);

    // An invalid FEN keeps the previous position.
    let kept = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
    engine.send(&format!("position fen {kept}"));
    for fen in [
        "garbage",
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1",
        "4k3/8/8/8/8/8/8/4K2k w - - 0 1",
        "4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1",
    ] {
        engine.send(&format!("position fen {fen} moves e2e4"));
        let (x_fen, _) = engine.display();
        assert_eq!(x_fen, kept, "after the invalid FEN {fen:?}");
    }
    let (best, _, _) = engine.go("go depth 2");
    assert_legal(&engine, &parse_fen(kept).unwrap(), &best, false);

    // An illegal move keeps the legal prefix, whatever follows it.
    for moves in ["e2e4 e7e5 e1e3 g1f3", "e2e4 e7e5 zzzz g1f3", "e2e4 e7e5 e1g1", "e2e4 e7e5 0000"] {
        engine.send(&format!("position startpos moves {moves}"));
        let warning = engine.expect_line(|l| l.starts_with("info string"), SLOW);
        assert!(warning.contains("move 3"), "{moves}: {warning}");
        let (x_fen, _) = engine.display();
        assert_eq!(x_fen, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "moves {moves}");
    }
    let (best, _, _) = engine.go("go depth 2");
    let pos = parse_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2").unwrap();
    assert_legal(&engine, &pos, &best, false);

    // Bad searchmoves are reported; the good ones still bind the search.
    engine.send("position startpos");
    engine.send("go depth 3 searchmoves a2a3 e2e5");
    let (best, _, lines) = engine.await_bestmove(SLOW);
    assert_eq!(best, "a2a3", "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("info string") && l.contains("e2e5")), "{lines:?}");
    assert!(engine.sync().is_empty());
}

#[test]
fn non_utf8_input_is_ignored() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    engine.send_bytes(b"\xff\xfe\x80junk\n");
    engine.send("isready");
    engine.expect_line(|l| l == "readyok", SLOW);
    let (best, _, _) = engine.go("go depth 2");
    assert_legal(&engine, &Chess::default(), &best, false);
}

// ---------------------------------------------------------------------------
// 8. Mate in 2
// ---------------------------------------------------------------------------

#[test]
fn finds_mate_in_two() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    // 1. Nf6+ gxf6 2. Bxf7#, the only mate in two.
    engine.send("position fen r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1");
    let (best, ponder, lines) = engine.go("go depth 5");
    assert_eq!(best, "d5f6", "{lines:?}");
    let last =
        lines.iter().rev().find(|l| l.starts_with("info") && l.contains(" score ")).expect("an info line");
    assert!(last.contains(" score mate 2 "), "{last}");
    assert!(last.contains(" pv d5f6 "), "{last}");
    assert_eq!(ponder.as_deref(), Some("g7f6"), "{lines:?}");

    // `go mate 2` finds it too, and stops there.
    engine.send("ucinewgame");
    engine.send("position fen r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1");
    let (best, _, lines) = engine.go("go mate 2");
    assert_eq!(best, "d5f6", "{lines:?}");

    // The mated side sees it coming: after 1. Nf6+, black is mated in 1.
    engine.send("position fen r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1 moves d5f6");
    let (_, _, lines) = engine.go("go depth 4");
    let last = lines.iter().rev().find(|l| l.starts_with("info") && l.contains(" score ")).unwrap();
    assert!(last.contains(" score mate -1 "), "{last}");
}

// ---------------------------------------------------------------------------
// 9. Empty clocks
// ---------------------------------------------------------------------------

#[test]
fn empty_or_negative_clock_still_moves() {
    let _cpu = exclusive_cpu();
    let mut engine = Engine::ready();
    let black_to_move = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let cases = [
        ("startpos", "go wtime 0 btime 0"),
        ("startpos", "go wtime -100 btime 100"),
        ("startpos", "go wtime -100000 btime -100000 winc -5 binc 0"),
        ("startpos", "go wtime 1 btime 1 movestogo 0"),
        ("startpos", "go wtime 0 btime 0 winc 0 binc 0 movestogo 1"),
        ("startpos", "go wtime 99999999999999999999999 btime 0 movetime 30"),
        ("startpos", "go movetime 0"),
        ("startpos", "go movetime -5"),
        ("startpos", "go depth 0"),
        ("startpos", "go nodes 1"),
        ("startpos", "go nodes 0"),
        (black_to_move, "go wtime 100000 btime -100"),
        (black_to_move, "go wtime 100000 btime 0"),
    ];
    for (start, go) in cases {
        let (position, pos) = if start == "startpos" {
            ("position startpos".to_string(), Chess::default())
        } else {
            (format!("position fen {start}"), parse_fen(start).unwrap())
        };
        engine.send(&position);
        let sent = Instant::now();
        engine.send(go);
        let (best, _, _) = engine.await_bestmove(Duration::from_secs(2));
        let elapsed = sent.elapsed();
        assert!(elapsed < Duration::from_secs(1), "`{go}` took {elapsed:?}");
        assert_legal(&engine, &pos, &best, false);
    }
    // A sane clock still gives a move well inside it.
    engine.send("position startpos");
    let sent = Instant::now();
    let (best, _, _) = engine.go("go wtime 500 btime 500");
    assert!(sent.elapsed() < Duration::from_millis(450), "took {:?}", sent.elapsed());
    assert_legal(&engine, &Chess::default(), &best, false);
}

// ---------------------------------------------------------------------------
// 10. One bestmove per go
// ---------------------------------------------------------------------------

#[test]
fn exactly_one_bestmove_per_go() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    engine.send("position startpos");
    engine.send("go depth 3");
    engine.send("position startpos moves e2e4");
    engine.send("go depth 3");
    engine.send("isready");
    let mut bestmoves = Vec::new();
    let mut ready = false;
    let deadline = Instant::now() + SLOW;
    while bestmoves.len() < 2 || !ready {
        match engine.next_line(deadline) {
            Some(line) if line.starts_with("bestmove") => bestmoves.push(line),
            Some(line) if line == "readyok" => ready = true,
            Some(_) => {}
            None => engine.fail("fewer than two bestmoves, or no readyok"),
        }
    }
    engine.expect_no_line(|l| l.starts_with("bestmove"), Duration::from_millis(300));
    let first = bestmoves[0].split_whitespace().nth(1).unwrap().to_string();
    let second = bestmoves[1].split_whitespace().nth(1).unwrap().to_string();
    assert_legal(&engine, &Chess::default(), &first, false);
    let pos = parse_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
    assert_legal(&engine, &pos, &second, false);

    // Many searches back to back: one bestmove each, in order.
    for _ in 0..20 {
        engine.send("position startpos");
        engine.send("go depth 2");
    }
    engine.send("go perft 1");
    let lines = engine.read_until(|l| l.starts_with("Nodes searched"), SLOW);
    let count = lines.iter().filter(|l| l.starts_with("bestmove")).count();
    assert_eq!(count, 20, "{lines:?}");
    engine.expect_no_line(|l| l.starts_with("bestmove"), Duration::from_millis(300));

    // A search over more threads behaves the same.
    engine.send("setoption name Threads value 2");
    assert!(engine.sync().is_empty());
    engine.send("position startpos moves e2e4");
    let (best, _, _) = engine.go("go depth 4");
    assert_legal(&engine, &pos, &best, false);
    engine.expect_no_line(|l| l.starts_with("bestmove"), Duration::from_millis(200));
}
