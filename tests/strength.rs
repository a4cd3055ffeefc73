//! End-to-end tests of the playing levels (`UCI_LimitStrength`, `UCI_Elo`,
//! `Skill Level`): announced, legal and prompt at every control, weaker in
//! a meaningful share of positions, reproducible, and still mating in one.

mod common;

use std::time::{Duration, Instant};

use backrank_uci::notation::parse_fen;
use common::{Engine, SLOW, after, assert_legal};
use shakmaty::Position;

/// Starts from `tests/data/frc960.epd`: Chess960 (and, at 518, classical).
fn frc_start(n: usize) -> String {
    let line = include_str!("data/frc960.epd").lines().nth(n).expect("960 lines");
    line.split(';').next().unwrap().trim().to_string()
}

fn set(engine: &mut Engine, name: &str, value: &str) {
    engine.send(&format!("setoption name {name} value {value}"));
    let noise = engine.sync();
    assert!(noise.is_empty(), "{name}: {noise:?}");
}

#[test]
fn the_options_are_announced() {
    let _cpu = common::shared_cpu();
    let mut engine = Engine::spawn();
    engine.send("uci");
    let lines = engine.read_until(|l| l == "uciok", SLOW);
    for option in [
        "option name UCI_LimitStrength type check default false",
        "option name UCI_Elo type spin default 1500 min 1320 max 3000",
        "option name Skill Level type spin default 20 min 0 max 20",
    ] {
        assert!(lines.iter().any(|l| l == option), "missing `{option}` in {lines:?}");
    }
}

/// Every level answers a legal move promptly at every kind of `go`, in
/// Chess960 and in classical notation; a long clock is not burnt.
#[test]
fn every_level_moves_legally_and_promptly() {
    let _cpu = common::exclusive_cpu();
    let mut engine = Engine::ready();
    let levels: [(&str, &str); 5] = [
        ("UCI_Elo", "1320"),
        ("UCI_Elo", "2000"),
        // High enough to need most of a second on a long clock (about
        // 860,000 nodes), low enough to keep the test short.
        ("UCI_Elo", "2400"),
        ("Skill Level", "0"),
        ("Skill Level", "12"),
    ];
    let controls: [(&str, Duration); 5] = [
        ("go wtime 100 btime 100 winc 10 binc 10", Duration::from_millis(400)),
        ("go wtime 600000 btime 600000 winc 5000 binc 5000", Duration::from_secs(5)),
        ("go movetime 300", Duration::from_millis(800)),
        ("go depth 30", Duration::from_secs(5)),
        ("go nodes 5000", Duration::from_secs(2)),
    ];
    for (chess960, start) in [(true, 0), (true, 777), (false, 518)] {
        engine.set_chess960(chess960);
        let fen = frc_start(start);
        let pos = parse_fen(&fen).unwrap();
        for &(option, value) in &levels {
            let limit = if option == "UCI_Elo" { "true" } else { "false" };
            set(&mut engine, "UCI_LimitStrength", limit);
            set(&mut engine, option, value);
            for &(go, bound) in &controls {
                engine.send(&format!("position fen {fen}"));
                let started = Instant::now();
                let (best, _, _) = engine.go(go);
                let took = started.elapsed();
                assert_legal(&engine, &pos, &best, chess960);
                assert!(took <= bound, "{option} {value}, {go}: {took:?}");
            }
            // `go infinite` still searches until `stop`, then answers at once.
            engine.send(&format!("position fen {fen}"));
            engine.send("go infinite");
            std::thread::sleep(Duration::from_millis(100));
            let stopped = Instant::now();
            engine.send("stop");
            let (best, _, _) = engine.await_bestmove(SLOW);
            assert!(stopped.elapsed() <= common::STOP_LATENCY);
            assert_legal(&engine, &pos, &best, chess960);
            set(&mut engine, "Skill Level", "20");
        }
    }
}

/// The move of `fen` after `go`, from a fresh game.
fn fresh_move(engine: &mut Engine, fen: &str, go: &str) -> String {
    engine.send("ucinewgame");
    engine.send(&format!("position fen {fen}"));
    engine.go(go).0
}

#[test]
fn a_low_level_often_plays_another_move_and_does_so_reproducibly() {
    let _cpu = common::shared_cpu();
    let mut engine = Engine::ready();
    engine.set_chess960(true);
    let (mut differ, mut total) = (0, 0);
    for n in (0..960).step_by(60) {
        let fen = frc_start(n);
        set(&mut engine, "UCI_LimitStrength", "false");
        let strong = fresh_move(&mut engine, &fen, "go depth 8");
        set(&mut engine, "UCI_LimitStrength", "true");
        set(&mut engine, "UCI_Elo", "1500");
        let weak = fresh_move(&mut engine, &fen, "go wtime 10000 btime 10000");
        assert_eq!(fresh_move(&mut engine, &fen, "go wtime 10000 btime 10000"), weak, "{fen}");
        differ += usize::from(weak != strong);
        total += 1;
    }
    assert!(differ * 4 >= total, "only {differ} of {total} moves differ from full strength");
}

#[test]
fn the_lowest_level_still_mates_in_one() {
    let _cpu = common::shared_cpu();
    let mut engine = Engine::ready();
    engine.set_chess960(true);
    set(&mut engine, "UCI_LimitStrength", "true");
    set(&mut engine, "UCI_Elo", "1320");
    for fen in [
        "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
        "k7/8/1K6/8/8/8/7Q/8 w - - 0 1",
        "r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1",
        "6rk/6pp/7N/8/8/8/8/6K1 w - - 0 1",
        "1k6/ppp5/8/8/8/8/8/K2R4 w - - 0 1",
        "rk6/pp6/4N3/8/8/8/8/RK4Q1 w Aa - 0 1",
    ] {
        let pos = parse_fen(fen).unwrap();
        for _ in 0..3 {
            let best = fresh_move(&mut engine, fen, "go wtime 60000 btime 60000");
            let m = assert_legal(&engine, &pos, &best, true);
            assert!(after(&pos, m).is_checkmate(), "{fen}: {best} does not mate");
        }
    }
}
