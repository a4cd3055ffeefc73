//! End-to-end tests of the analysis output over UCI: `MultiPV`,
//! `UCI_ShowWDL` and `currmove`, against the built binary.

mod common;

use std::time::Duration;

use backrank_uci::notation::format_move;
use common::*;
use shakmaty::{Chess, Position};

/// The value after `key` in an info line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut words = line.split_whitespace();
    words.find(|w| *w == key)?;
    words.next()
}

#[test]
fn multipv_reports_the_best_lines_sorted() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    engine.set_chess960(true);
    let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    engine.send("setoption name MultiPV value 3");
    engine.send(&format!("position fen {fen}"));
    let (best, _, lines) = engine.go("go depth 6");
    let last_depth: Vec<&String> = lines.iter().filter(|l| field(l, "depth") == Some("6")).collect();
    let numbered: Vec<(u32, i32, String)> = last_depth
        .iter()
        .filter_map(|l| {
            let k = field(l, "multipv")?.parse().ok()?;
            let cp = field(l, "cp")?.parse().ok()?;
            Some((k, cp, field(l, "pv")?.to_string()))
        })
        .collect();
    // The last report of depth 6 has lines 1, 2 and 3 with different first moves, best first.
    let final_three = &numbered[numbered.len() - 3..];
    assert_eq!(final_three.iter().map(|l| l.0).collect::<Vec<_>>(), [1, 2, 3], "{lines:?}");
    assert!(final_three[0].1 >= final_three[1].1 && final_three[1].1 >= final_three[2].1, "{lines:?}");
    let firsts: std::collections::HashSet<&String> = final_three.iter().map(|l| &l.2).collect();
    assert_eq!(firsts.len(), 3, "{lines:?}");
    assert_eq!(best, final_three[0].2, "{lines:?}");

    // More lines than legal moves: every move once. Back to one line: no multipv field.
    engine.send("position fen 7k/8/8/8/8/8/8/K7 w - - 0 1");
    let (_, _, lines) = engine.go("go depth 3");
    let last = lines.iter().filter(|l| field(l, "multipv").is_some()).count();
    assert!(last >= 3, "{lines:?}");
    assert!(lines.iter().all(|l| field(l, "multipv").is_none_or(|k| k.parse::<u32>().unwrap() <= 3)));
    engine.send("setoption name MultiPV value 1");
    engine.send(&format!("position fen {fen}"));
    let (_, _, lines) = engine.go("go depth 4");
    assert!(lines.iter().all(|l| !l.contains(" multipv ")), "{lines:?}");
}

#[test]
fn show_wdl_adds_chances_that_follow_the_score() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    engine.send("setoption name UCI_ShowWDL value true");
    for (fen, expect_win) in
        [("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", true), ("3qk3/8/8/8/8/8/8/4K3 w - - 0 1", false)]
    {
        engine.send(&format!("position fen {fen}"));
        let (_, _, lines) = engine.go("go depth 4");
        let last = lines.iter().rev().find(|l| l.contains(" wdl ")).expect("a wdl field");
        let words: Vec<&str> = last.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "wdl").unwrap();
        let wdl: Vec<u32> = words[at + 1..at + 4].iter().map(|w| w.parse().unwrap()).collect();
        assert_eq!(wdl.iter().sum::<u32>(), 1000, "{last}");
        if expect_win {
            assert!(wdl[0] > 900, "{last}");
        } else {
            assert!(wdl[2] > 900, "{last}");
        }
    }
    engine.send("setoption name UCI_ShowWDL value false");
    engine.send("position startpos");
    let (_, _, lines) = engine.go("go depth 3");
    assert!(lines.iter().all(|l| !l.contains(" wdl ")), "{lines:?}");
}

#[test]
fn currmove_shows_after_a_few_seconds() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    engine.send("position startpos");
    // The clock starts before `go` is sent, so the engine's own start (when
    // it reads `go`) can only be later, however loaded the machine.
    let started = std::time::Instant::now();
    engine.send("go infinite");
    // The first `currmove` comes when the main thread starts a root move
    // after 3 s (a long first move of an iteration can delay it).
    let mut lines = engine.read_until(|l| l.contains(" currmove "), SLOW);
    assert!(started.elapsed() >= Duration::from_millis(3000), "currmove came early: {lines:?}");
    assert!(lines[..lines.len() - 1].iter().all(|l| !l.contains(" currmove ")));
    engine.send("stop");
    let (best, _, rest) = engine.await_bestmove(SLOW);
    lines.extend(rest);
    let current: Vec<&String> = lines.iter().filter(|l| l.contains(" currmove ")).collect();
    for line in current {
        let m = field(line, "currmove").unwrap();
        assert!(Chess::default().legal_moves().iter().any(|l| format_move(*l, false) == m), "{line}");
        assert!(field(line, "currmovenumber").unwrap().parse::<u32>().unwrap() >= 1, "{line}");
    }
    assert!(!best.is_empty());
}
