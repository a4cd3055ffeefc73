//! End-to-end tests of the UCI protocol: each test spawns the built
//! `backrank` binary and talks to it over stdin/stdout, as a GUI would.

mod common;

use std::thread;
use std::time::{Duration, Instant};

use backrank_uci::notation::parse_fen;
use common::*;
use shakmaty::Chess;

// ---------------------------------------------------------------------------
// 1. Handshake
// ---------------------------------------------------------------------------

#[test]
fn handshake_lists_options_and_answers_isready() {
    let _cpu = shared_cpu();
    let mut engine = Engine::spawn();
    engine.send("uci");
    let lines = engine.read_until(|l| l == "uciok", SLOW);
    // `Backrank 0.2.0 (8909c38)`: the version and the commit it was built from.
    assert_eq!(lines[0], format!("id name {}", backrank::ENGINE_NAME));
    let version = concat!("id name Backrank ", env!("CARGO_PKG_VERSION"), " (");
    let commit = lines[0].strip_prefix(version).and_then(|rest| rest.strip_suffix(')'));
    assert!(commit.is_some_and(|c| !c.is_empty() && !c.contains(' ')), "first line {:?}", lines[0]);
    assert!(lines.iter().any(|l| l.starts_with("id author ")), "{lines:?}");
    for option in [
        "option name Hash type spin default 16 min 1 max ",
        "option name Threads type spin default 1 min 1 max ",
        "option name Clear Hash type button",
        "option name Ponder type check default false",
        "option name UCI_Chess960 type check default false",
        "option name Move Overhead type spin default 10 min 0 max ",
        "option name EvalFile type string default <empty>",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(option)), "no `{option}` in {lines:#?}");
    }
    // The search's tunables are options only in the `spsa` build.
    assert!(!lines.iter().any(|l| l.contains("RFP_MARGIN")), "{lines:#?}");
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
// 2. stop and isready during a search
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

#[test]
fn movetime_is_used_whole() {
    let _cpu = exclusive_cpu();
    let mut engine = Engine::ready();
    engine.send("position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
    let started = Instant::now();
    engine.go("go movetime 1000");
    let took = started.elapsed();
    // Move Overhead (10 ms) is kept back; the rest is the search's.
    assert!(took >= Duration::from_millis(900) && took <= Duration::from_millis(1300), "{took:?}");
}

// ---------------------------------------------------------------------------
// 3. No legal move
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
// 4. Malformed input
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

    // Bad searchmoves are reported before the search's own lines (a
    // depth-1 search can answer before a late warning), and the good ones
    // still bind the search. Repeated because the order was once a race.
    for depth in std::iter::once(3).chain([1; 63]) {
        engine.send("position startpos");
        engine.send(&format!("go depth {depth} searchmoves a2a3 e2e5"));
        let (best, _, lines) = engine.await_bestmove(SLOW);
        assert_eq!(best, "a2a3", "{lines:?}");
        assert!(lines.iter().any(|l| l.starts_with("info string") && l.contains("e2e5")), "{lines:?}");
        assert!(engine.sync().is_empty());
    }
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
// 5. Mate in 2
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
// 6. Empty clocks
// ---------------------------------------------------------------------------

/// The longest a move may take on an empty, 1 ms or negative clock. The
/// engine answers those in a millisecond or two (measured); the rest is
/// room for a loaded 2-core machine.
const EMPTY_CLOCK_ANSWER: Duration = Duration::from_millis(150);

#[test]
fn empty_or_negative_clock_still_moves() {
    let _cpu = exclusive_cpu();
    let mut engine = Engine::ready();
    let black_to_move = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    // (start, go, milliseconds the search itself may use on top of the margin)
    let cases = [
        ("startpos", "go wtime 0 btime 0", 0),
        ("startpos", "go wtime 1 btime 1", 0),
        ("startpos", "go wtime -100 btime 100", 0),
        ("startpos", "go wtime -100000 btime -100000 winc -5 binc 0", 0),
        ("startpos", "go wtime 1 btime 1 movestogo 0", 0),
        ("startpos", "go wtime 0 btime 0 winc 0 binc 0 movestogo 1", 0),
        // A white clock that does not parse, and 30 ms a move.
        ("startpos", "go wtime 99999999999999999999999 btime 0 movetime 30", 30),
        ("startpos", "go movetime 0", 0),
        ("startpos", "go movetime 1", 0),
        ("startpos", "go movetime -5", 0),
        ("startpos", "go depth 0", 0),
        ("startpos", "go nodes 1", 0),
        ("startpos", "go nodes 0", 0),
        (black_to_move, "go wtime 100000 btime -100", 0),
        (black_to_move, "go wtime 100000 btime 0", 0),
        (black_to_move, "go wtime 100000 btime 1", 0),
    ];
    for (start, go, search_ms) in cases {
        let (position, pos) = if start == "startpos" {
            ("position startpos".to_string(), Chess::default())
        } else {
            (format!("position fen {start}"), parse_fen(start).unwrap())
        };
        engine.send(&position);
        let limit = EMPTY_CLOCK_ANSWER + Duration::from_millis(search_ms);
        let sent = Instant::now();
        engine.send(go);
        let (best, _, _) = engine.await_bestmove(Duration::from_secs(2));
        let elapsed = sent.elapsed();
        assert!(elapsed < limit, "`{go}` took {elapsed:?}, more than {limit:?}");
        assert_legal(&engine, &pos, &best, false);
    }
    // A sane clock still gives a move well inside it: 500 ms with 10 kept
    // back is 490 / 25 = 19 ms a move, the hard limit three times that.
    engine.send("position startpos");
    let limit = EMPTY_CLOCK_ANSWER + Duration::from_millis(57);
    let sent = Instant::now();
    let (best, _, _) = engine.go("go wtime 500 btime 500");
    assert!(sent.elapsed() < limit, "took {:?}, more than {limit:?}", sent.elapsed());
    assert_legal(&engine, &Chess::default(), &best, false);
}

// ---------------------------------------------------------------------------
// 7. One bestmove per go
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
    // `go perft` waits for a search only once it was told to stop (or has
    // answered): after `stop` its output follows the last bestmove.
    engine.send("stop");
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

// ---------------------------------------------------------------------------
// 8. Hash
// ---------------------------------------------------------------------------

/// The `hashfull` of the last `info` line that has one.
fn last_hashfull(engine: &Engine, lines: &[String]) -> u32 {
    let hashfull = lines.iter().rev().find_map(|l| {
        let mut tokens = l.split_whitespace().skip_while(|&t| t != "hashfull");
        tokens.nth(1).and_then(|n| n.parse().ok())
    });
    hashfull.unwrap_or_else(|| engine.fail("no info line with hashfull"))
}

#[test]
fn hash_resizes_and_an_impossible_size_is_refused() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    let pos = parse_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
    // The same 50 000 nodes fill a quarter or so of a 1 MB table (16 384
    // buckets of 4 entries) and hardly show in 64 or 256 MB (over a
    // million entries): `hashfull` shows which size is in force.
    let search = |engine: &mut Engine| {
        engine.send("position startpos moves e2e4");
        let (best, _, lines) = engine.go("go nodes 50000");
        assert_legal(engine, &pos, &best, false);
        last_hashfull(engine, &lines)
    };
    for (mb, full) in [(64, false), (1, true), (256, false), (1, true)] {
        engine.send(&format!("setoption name Hash value {mb}"));
        let noise = engine.sync();
        assert!(noise.is_empty(), "Hash {mb} answered {noise:?}");
        let hashfull = search(&mut engine);
        if full {
            assert!(hashfull >= 100, "Hash {mb}: hashfull {hashfull}");
        } else {
            assert!(hashfull <= 30, "Hash {mb}: hashfull {hashfull}");
        }
    }
    // A terabyte (the announced maximum) is more than this machine has:
    // one `info string`, and the 1 MB table stays.
    engine.send("setoption name Hash value 1048576");
    let answer = engine.sync();
    if answer.len() != 1 || !answer[0].starts_with("info string ") || !answer[0].contains("1048576 MB") {
        engine.fail(&format!("Hash 1048576 answered {answer:?}"));
    }
    let hashfull = search(&mut engine);
    assert!(hashfull >= 100, "after the refused size: hashfull {hashfull}");
}
