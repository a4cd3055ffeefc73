//! End-to-end tests of the Syzygy tablebases (`SyzygyPath` and friends),
//! with the 3- and 4-piece tables in `tests/data/syzygy`.

mod common;

use backrank_uci::notation::{parse_fen, parse_move};
use common::*;
use shakmaty::{Chess, Position};

const TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/syzygy");

/// An engine with the test tables loaded; checks the one `info string`.
fn engine_with_tables() -> Engine {
    let mut engine = Engine::ready();
    engine.send(&format!("setoption name SyzygyPath value {TABLES}"));
    let lines = engine.sync();
    if !(lines.len() == 1 && lines[0].contains("found 70 Syzygy table files, up to 4 pieces")) {
        engine.fail(&format!("unexpected answer to SyzygyPath: {lines:?}"));
    }
    engine
}

/// The last `info` line with a score among `lines`.
fn last_score_line(engine: &Engine, lines: &[String]) -> String {
    match lines.iter().rev().find(|l| l.starts_with("info") && l.contains(" score ")) {
        Some(line) => line.clone(),
        None => engine.fail("no info line with a score"),
    }
}

/// Sends `position fen <fen>` and `go`; the best move, the last scored
/// `info` line, and every line before `bestmove`.
fn search(engine: &mut Engine, fen: &str, go: &str) -> (String, String, Vec<String>) {
    engine.send(&format!("position fen {fen}"));
    let (best, _, lines) = engine.go(go);
    let line = last_score_line(engine, &lines);
    (best, line, lines)
}

/// The number after `key` in an info line.
fn field(line: &str, key: &str) -> Option<i64> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    tokens.windows(2).find(|pair| pair[0] == key).and_then(|pair| pair[1].parse().ok())
}

#[test]
fn kqkr_win_is_played_out_to_mate() {
    let _cpu = shared_cpu();
    let mut engine = engine_with_tables();
    // Among the longest KQ v KR wins: 57 plies to the first capture.
    let start = "7K/4r3/4k3/Q7/8/8/8/8 w - - 0 1";
    let mut pos: Chess = parse_fen(start).unwrap();
    let mut moves: Vec<String> = Vec::new();
    engine.send(&format!("position fen {start}"));
    let (_, _, lines) = engine.go("go depth 1");
    let line = last_score_line(&engine, &lines);
    assert!(field(&line, "cp").is_some_and(|cp| cp > 20_000), "not reported as a win: {line}");

    // Both sides play from the tables: the longest defence against the fastest win.
    const MAX_PLIES: usize = 160;
    while !pos.is_game_over() {
        if moves.len() >= MAX_PLIES {
            engine.fail(&format!("no mate after {MAX_PLIES} plies: {}", moves.join(" ")));
        }
        engine.send(&format!("position fen {start} moves {}", moves.join(" ")));
        let (best, _, _) = engine.go("go nodes 20000");
        let Ok(m) = parse_move(&pos, &best) else { engine.fail(&format!("illegal bestmove {best}")) };
        pos.play_unchecked(m);
        moves.push(best);
    }
    assert!(pos.is_checkmate() && pos.turn() == shakmaty::Color::Black, "{}", moves.join(" "));
    println!("mate in {} plies: {}", moves.len(), moves.join(" "));
}

#[test]
fn drawn_endings_score_zero_at_depth_one() {
    let _cpu = shared_cpu();
    let mut engine = engine_with_tables();
    // K+R v K+B, and K+P v K+P with blocked pawns: the tables say draw,
    // though the material says otherwise for the first.
    for fen in ["8/8/3bk3/8/8/8/3RK3/8 w - - 0 1", "8/4p3/8/4k3/8/8/4P3/4K3 w - - 0 1"] {
        let (_, line, _) = search(&mut engine, fen, "go depth 1");
        assert_eq!(field(&line, "cp"), Some(0), "{fen}: {line}");
        assert!(field(&line, "tbhits").is_some_and(|hits| hits >= 1), "{line}");
    }
}

#[test]
fn a_capture_into_a_won_table_is_found() {
    let _cpu = shared_cpu();
    let mut engine = engine_with_tables();
    // Five pieces, outside the tables; Qxf4 leaves K+Q v K+N, a won table.
    let (best, line, lines) = search(&mut engine, "k7/8/8/8/3Q1r2/8/8/4K1n1 w - - 0 1", "go depth 2");
    assert_eq!(best, "d4f4", "{lines:?}");
    let cp = field(&line, "cp").unwrap_or(0);
    assert!(cp > 20_000, "{line}");
    assert!(field(&line, "tbhits").is_some_and(|hits| hits >= 1), "{line}");
}

#[test]
fn positions_with_castling_rights_are_never_probed() {
    let _cpu = shared_cpu();
    let mut engine = engine_with_tables();
    let (_, line, _) = search(&mut engine, "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "go depth 3");
    assert_eq!(field(&line, "tbhits"), Some(0), "{line}");
    // The same without the right is in the tables.
    let (_, line, _) = search(&mut engine, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "go depth 3");
    assert!(field(&line, "tbhits").is_some_and(|hits| hits >= 1), "{line}");
    assert!(field(&line, "cp").is_some_and(|cp| cp > 20_000) || line.contains(" mate "), "{line}");
}

#[test]
fn without_tables_nothing_changes() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    engine.send("setoption name SyzygyPath value /no/such/folder");
    let lines = engine.sync();
    assert!(lines.len() == 1 && lines[0].starts_with("info string no Syzygy tables"), "{lines:?}");
    let krkb = "8/8/3bk3/8/8/8/3RK3/8 w - - 0 1";
    let (best, line, _) = search(&mut engine, krkb, "go depth 4");
    let pos: Chess = parse_fen(krkb).unwrap();
    assert!(parse_move(&pos, &best).is_ok_and(|m| pos.is_legal(m)), "{best}");
    assert_eq!(field(&line, "tbhits"), Some(0), "{line}");
    // An emptied path unloads the tables without a word.
    let mut engine = engine_with_tables();
    engine.send("setoption name SyzygyPath value <empty>");
    assert_eq!(engine.sync(), Vec::<String>::new());
    let (_, line, _) = search(&mut engine, krkb, "go depth 2");
    assert_eq!(field(&line, "tbhits"), Some(0), "{line}");
}
