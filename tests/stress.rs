//! Protocol stress test: thousands of random command sequences sent fast
//! and out of the usual order (`position`, `go` of every kind, `stop`,
//! `ponderhit`, `isready`, `setoption`, `ucinewgame`, junk), against the
//! built binary. Every `go` must get exactly one legal `bestmove`, every
//! `isready` one `readyok`, and the engine must never die.

mod common;

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use backrank_uci::notation::{format_move, parse_fen, parse_move};
use backrank_util::rng::SplitMix;
use common::*;
use shakmaty::{Chess, Position};

/// Start points: classical, Chess960, DFRC, castling tests, endings, a
/// checkmate and a stalemate (no legal move: `bestmove 0000`).
const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "rnbknqrb/pppppppp/8/8/8/8/PPPPPPPP/BNRKQNRB w GCgb - 0 1",
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1",
    "8/8/3bk3/8/8/8/3RK3/8 w - - 0 1",
    "7k/8/8/8/8/8/8/K7 b - - 0 1",
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
];

/// What the test expects from the engine.
struct Expected {
    /// Positions of the `go`s still waiting for their `bestmove`, in order.
    searches: VecDeque<Chess>,
    readyoks: usize,
}

/// A random `position` command, and the position it sets.
fn random_position(rng: &mut SplitMix, chess960: bool) -> (String, Chess) {
    let fen = POSITIONS[rng.below(POSITIONS.len() as u64) as usize];
    let mut pos = parse_fen(fen).unwrap();
    let mut moves = Vec::new();
    for _ in 0..rng.below(4) {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[rng.below(legal.len() as u64) as usize];
        moves.push(format_move(m, chess960));
        pos.play_unchecked(m);
    }
    let command = if moves.is_empty() {
        format!("position fen {fen}")
    } else {
        format!("position fen {fen} moves {}", moves.join(" "))
    };
    (command, pos)
}

fn random_go(rng: &mut SplitMix) -> String {
    match rng.below(8) {
        0 => format!("go depth {}", 1 + rng.below(4)),
        1 => format!("go nodes {}", rng.below(3000)),
        2 => format!("go movetime {}", rng.below(20)),
        3 => {
            let t = rng.below(400) as i64 - 20;
            format!("go wtime {t} btime {t} winc {} binc {}", rng.below(20), rng.below(20))
        }
        4 => format!("go wtime 300 btime 300 movestogo {}", rng.below(3)),
        5 => "go infinite".to_string(),
        6 => "go ponder wtime 200 btime 200".to_string(),
        _ => "go".to_string(),
    }
}

fn random_option(rng: &mut SplitMix) -> String {
    match rng.below(6) {
        0 => format!("setoption name UCI_Chess960 value {}", rng.below(2) == 1),
        1 => format!("setoption name Hash value {}", 1 + rng.below(8)),
        2 => format!("setoption name MultiPV value {}", 1 + rng.below(3)),
        3 => format!("setoption name Threads value {}", 1 + rng.below(2)),
        4 => format!("setoption name UCI_ShowWDL value {}", rng.below(2) == 1),
        _ => "setoption name Clear Hash".to_string(),
    }
}

/// Reads until every expected `bestmove` and `readyok` has come, checking
/// each best move against the position of its `go`.
fn drain(engine: &mut Engine, expected: &mut Expected) {
    let deadline = Instant::now() + SLOW;
    while !expected.searches.is_empty() || expected.readyoks > 0 {
        let Some(line) = engine.next_line(deadline) else {
            engine.fail(&format!(
                "waiting for {} bestmove(s) and {} readyok(s)",
                expected.searches.len(),
                expected.readyoks
            ));
        };
        if line == "readyok" {
            if expected.readyoks == 0 {
                engine.fail("a readyok nobody asked for");
            }
            expected.readyoks -= 1;
        } else if let Some(rest) = line.strip_prefix("bestmove ") {
            let Some(pos) = expected.searches.pop_front() else {
                engine.fail("a bestmove without a go");
            };
            let best = rest.split_whitespace().next().unwrap_or("");
            let legal = pos.legal_moves();
            if best == "0000" {
                if !legal.is_empty() {
                    engine.fail("bestmove 0000 with legal moves");
                }
            } else if parse_move(&pos, best).is_err() {
                engine.fail(&format!("illegal bestmove {best} in {}", backrank_uci::notation::x_fen(&pos)));
            }
        } else if line.starts_with("[stderr]") {
            engine.fail(&format!("the engine wrote to stderr: {line}"));
        }
    }
}

#[test]
fn random_command_sequences() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    let mut rng = SplitMix(0x5EED);
    let mut expected = Expected { searches: VecDeque::new(), readyoks: 0 };
    let mut chess960 = false;
    let mut current = Chess::default();
    let start = Instant::now();
    const SEQUENCES: usize = 2000;
    for _ in 0..SEQUENCES {
        for _ in 0..1 + rng.below(6) {
            match rng.below(12) {
                0..=2 => {
                    let (command, pos) = random_position(&mut rng, chess960);
                    engine.send(&command);
                    current = pos;
                }
                3..=5 => {
                    engine.send(&random_go(&mut rng));
                    expected.searches.push_back(current.clone());
                }
                6 => engine.send("stop"),
                7 => engine.send("ponderhit"),
                8 => {
                    engine.send("isready");
                    expected.readyoks += 1;
                }
                9 => {
                    let command = random_option(&mut rng);
                    if let Some(on) = command.strip_prefix("setoption name UCI_Chess960 value ") {
                        chess960 = on == "true";
                    }
                    engine.send(&command);
                }
                10 => {
                    engine.send("ucinewgame");
                    current = Chess::default();
                    engine.send("position startpos");
                }
                _ => engine.send(
                    ["", "   ", "go fast", "position", "setoption name", "xyzzy"][rng.below(6) as usize],
                ),
            }
        }
        // End the sequence as a GUI would: release any infinite or ponder
        // search, then make sure everything was answered.
        engine.send("stop");
        engine.send("isready");
        expected.readyoks += 1;
        drain(&mut engine, &mut expected);
    }
    engine.expect_no_line(|l| l.starts_with("bestmove") || l == "readyok", Duration::from_millis(300));
    assert!(engine.quit_and_wait(STOP_LATENCY).is_some_and(|status| status.success()));
    eprintln!("{SEQUENCES} sequences in {:.1} s", start.elapsed().as_secs_f64());
}
