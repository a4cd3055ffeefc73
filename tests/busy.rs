//! The engine answers at once. Commands sent while a search runs may not
//! stall the input loop: each is answered at once, or said to be ignored in
//! one `info string` when it needs an idle engine, and `stop` then still
//! ends the search with one `bestmove` per `go`. A large `Hash` is ready at
//! once too.

mod common;

use std::time::{Duration, Instant};

use backrank_util::rng::SplitMix;
use common::*;

/// How soon an answer must come while a search runs (a shared 2-core CI).
const PROMPT: Duration = Duration::from_secs(2);

/// Sends `command` during the running search and waits for the line that
/// answers it; no `bestmove` may come on the way.
#[track_caller]
fn answered(engine: &mut Engine, command: &str, answer: impl Fn(&str) -> bool) -> String {
    engine.send(command);
    let lines = engine.read_until(|l| answer(l) || l.starts_with("bestmove"), PROMPT);
    let last = lines.last().unwrap().clone();
    if last.starts_with("bestmove") {
        engine.fail(&format!("`{command}` ended the search"));
    }
    last
}

#[test]
fn every_command_during_a_search_is_answered_at_once() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    engine.send("position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
    engine.send("go infinite");
    engine.expect_line(|l| l.starts_with("info depth"), SLOW);

    answered(&mut engine, "uci", |l| l == "uciok");
    answered(&mut engine, "isready", |l| l == "readyok");
    answered(&mut engine, "eval", |l| l.starts_with("Final evaluation:"));
    answered(&mut engine, "d", |l| l.starts_with("Checkers:"));
    answered(&mut engine, "genfens 1 seed 5 book None", |l| l.starts_with("info string genfens"));
    // Options that shape the next search apply at once; those that need an
    // idle search are refused, by name.
    engine.send("setoption name MultiPV value 2");
    engine.send("setoption name UCI_Chess960 value true");
    for (command, name) in [
        ("setoption name Hash value 32", "Hash"),
        ("setoption name Clear Hash", "Clear Hash"),
        ("setoption name Threads value 2", "Threads"),
        ("setoption name EvalFile value <empty>", "EvalFile"),
        ("ucinewgame", "ucinewgame"),
        ("bench 2", "bench"),
        ("go perft 2", "go perft"),
    ] {
        let line = answered(&mut engine, command, |l| l.starts_with("info string"));
        assert!(line.contains(name) && line.contains("ignored"), "`{command}` answered {line}");
    }
    engine.send("debug on");
    engine.send("ponderhit");
    engine.send("position startpos moves e2e4");
    engine.send("xyzzy");
    answered(&mut engine, "isready", |l| l == "readyok");

    // A second `go` ends the first search (its bestmove) and starts anew.
    engine.send("go infinite");
    let (first, _, _) = engine.await_bestmove(PROMPT);
    assert!(!first.is_empty());
    engine.expect_line(|l| l.starts_with("info depth"), SLOW);
    let stopped = Instant::now();
    engine.send("stop");
    let (second, _, _) = engine.await_bestmove(STOP_LATENCY);
    assert!(stopped.elapsed() < STOP_LATENCY);
    // The second search was from the new position, 1. e4 played.
    assert!(second.starts_with(|c: char| "abcdefgh".contains(c)) && second.len() >= 4, "{second}");
    engine.sync();
    engine.expect_no_line(|l| l.starts_with("bestmove"), Duration::from_millis(200));

    // Once stopped, the idle-only commands work again.
    engine.send("setoption name Hash value 32");
    engine.send("ucinewgame");
    let noise = engine.sync();
    assert!(noise.iter().all(|l| !l.contains("ignored")), "{noise:?}");
    let (total_moves, total) = engine.perft(2);
    assert_eq!((total_moves.len(), total), (20, 400));
}

/// What a random line of input can be: every command the parser knows, in
/// forms right and wrong.
fn random_line(rng: &mut SplitMix) -> (String, bool) {
    let go = |rng: &mut SplitMix| match rng.below(5) {
        0 => "go infinite".to_string(),
        1 => format!("go depth {}", 1 + rng.below(3)),
        2 => format!("go wtime {} btime 100 winc 5", rng.below(200)),
        3 => "go ponder movetime 50".to_string(),
        _ => format!("go nodes {}", rng.below(2000)),
    };
    let lines: [&dyn Fn(&mut SplitMix) -> String; 20] = [
        &|_| "uci".into(),
        &|_| "isready".into(),
        &|_| "ucinewgame".into(),
        &|_| "stop".into(),
        &|_| "ponderhit".into(),
        &|_| "d".into(),
        &|_| "eval".into(),
        &|_| "debug on".into(),
        &|rng| format!("bench {}", 1 + rng.below(2)),
        &|rng| format!("go perft {}", 1 + rng.below(2)),
        &|rng| format!("genfens {} seed {} book None", 1 + rng.below(3), rng.below(9)),
        &|rng| format!("setoption name MultiPV value {}", 1 + rng.below(3)),
        &|rng| format!("setoption name Hash value {}", 1 + rng.below(16)),
        &|_| "setoption name Clear Hash".into(),
        &|rng| format!("setoption name UCI_Chess960 value {}", rng.below(2) == 0),
        &|_| "position startpos moves e2e4 e7e5".into(),
        &|_| "position fen 1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1".into(),
        &|_| "position fen not a fen".into(),
        &|_| "go fast".into(),
        &|_| "  xyzzy  ".into(),
    ];
    if rng.below(4) == 0 {
        return (go(rng), true);
    }
    (lines[rng.below(lines.len() as u64) as usize](rng), false)
}

#[test]
fn random_sessions_end_with_readyok_and_bestmove() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    let mut rng = SplitMix(0xB05F);
    const SESSIONS: usize = 200;
    for session in 0..SESSIONS {
        let (mut searches, mut readyoks) = (0usize, 1usize);
        for _ in 0..1 + rng.below(12) {
            let (line, is_go) = random_line(&mut rng);
            engine.send(&line);
            searches += usize::from(is_go);
            readyoks += usize::from(line == "isready");
        }
        engine.send("stop");
        engine.send("isready");
        engine.send("position startpos");
        engine.send("go depth 2");
        searches += 1;
        let deadline = Instant::now() + SLOW;
        while searches > 0 || readyoks > 0 {
            match engine.next_line(deadline) {
                Some(l) if l.starts_with("bestmove") => searches -= 1,
                Some(l) if l == "readyok" => readyoks -= 1,
                Some(l) if l.starts_with("[stderr]") => engine.fail(&format!("stderr: {l}")),
                Some(_) => {}
                None => engine.fail(&format!(
                    "session {session}: {searches} bestmove(s) and {readyoks} readyok(s) missing"
                )),
            }
        }
    }
    engine.expect_no_line(|l| l.starts_with("bestmove") || l == "readyok", Duration::from_millis(200));
}

/// Resident memory of process `pid` in bytes (Linux: `VmRSS` in /proc).
#[cfg(target_os = "linux")]
fn resident_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

/// 8 GB of `Hash` (or half the machine, if less) answers `readyok` in
/// a moment; a search on it right away runs at full speed instead of
/// stalling on page faults (it once crawled at 600 nodes a second); the
/// table becomes resident in the background; `ucinewgame` is as quick, and
/// so is the search after it.
#[test]
#[cfg(target_os = "linux")]
fn a_large_hash_is_ready_at_once() {
    let _cpu = exclusive_cpu();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
    let total_kb: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .unwrap()
        .trim()
        .trim_end_matches(" kB")
        .parse()
        .unwrap();
    let mb = (total_kb / 1024 / 2).min(8192);
    let mut engine = Engine::ready();
    let quick_search = |engine: &mut Engine, when: &str| {
        let started = Instant::now();
        engine.send("position startpos moves e2e4");
        engine.go("go nodes 100000");
        // 100 000 nodes take a tenth of a second or so; page faults made it minutes.
        assert!(started.elapsed() < Duration::from_secs(10), "{when}: took {:?}", started.elapsed());
    };
    let started = Instant::now();
    engine.send(&format!("setoption name Hash value {mb}"));
    let noise = engine.sync();
    let took = started.elapsed();
    assert!(noise.is_empty(), "{noise:?}");
    // About 0.1 s measured; the rest is room for a loaded two-core machine.
    assert!(took < Duration::from_secs(2), "{mb} MB took {took:?}");
    quick_search(&mut engine, "new table");
    // The warming goes on without a search: a gigabyte (or the table) resident.
    let target = (mb.min(1024) << 20) * 9 / 10;
    let started = Instant::now();
    while resident_bytes(engine.pid()) < target {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{} bytes resident",
            resident_bytes(engine.pid())
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let started = Instant::now();
    engine.send("ucinewgame");
    engine.sync();
    assert!(started.elapsed() < Duration::from_secs(1), "ucinewgame took {:?}", started.elapsed());
    quick_search(&mut engine, "after ucinewgame");
}
