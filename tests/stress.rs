//! Protocol stress test: thousands of random command sequences sent fast
//! and out of the usual order (`position`, `go` of every kind, `stop`,
//! `ponderhit`, `isready`, `setoption`, `ucinewgame`, junk), against the
//! built binary. Every `go` must get exactly one legal `bestmove`, every
//! `isready` one `readyok`, and the engine must never die. Best moves,
//! ponder moves and PVs must be written as the `UCI_Chess960` setting of
//! their `go` asks, castling above all: each toggle is followed by a search
//! that must castle.

mod common;

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use backrank_uci::notation::{format_move, parse_fen, parse_move};
use backrank_util::rng::SplitMix;
use common::*;
use shakmaty::{Chess, Move, Position};

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

/// Positions whose side to move may castle at once: from the classical
/// squares (e1g1 and e1c1 without `UCI_Chess960`, e1h1 and e1a1 with it),
/// and from others (king-takes-rook either way).
const CASTLING: &[&str] =
    &["r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1"];

/// A `go` waiting for its `bestmove`.
struct Search {
    pos: Chess,
    /// The `UCI_Chess960` setting it was sent under.
    chess960: bool,
    /// The move it must answer (a search restricted to it).
    must_play: Option<Move>,
}

/// What the test expects from the engine.
struct Expected {
    /// The `go`s still waiting for their `bestmove`, in order.
    searches: VecDeque<Search>,
    readyoks: usize,
    /// Castling moves seen in best moves, ponder moves and PVs, by the
    /// setting they were written under (false, true).
    castles: [usize; 2],
}

/// Checks every move of a line from `pos` (a PV, or a best move and its
/// ponder move): legal in turn, and written as `chess960` asks (castling
/// king-takes-rook with `UCI_Chess960`, e1g1/e1c1 from the classical
/// squares without). Counts the castles in `castles`.
fn check_line<'a>(
    engine: &Engine,
    pos: &Chess,
    moves: impl Iterator<Item = &'a str>,
    chess960: bool,
    castles: &mut [usize; 2],
) {
    let mut pos = pos.clone();
    for text in moves {
        let m = assert_legal(engine, &pos, text, chess960);
        castles[usize::from(chess960)] += usize::from(m.is_castle());
        pos = after(&pos, m);
    }
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
            let Some(Search { pos, chess960, must_play }) = expected.searches.pop_front() else {
                engine.fail("a bestmove without a go");
            };
            let tokens: Vec<&str> = rest.split_whitespace().collect();
            match tokens.as_slice() {
                ["0000"] => {
                    if !pos.legal_moves().is_empty() {
                        engine.fail("bestmove 0000 with legal moves");
                    }
                }
                [best] | [best, "ponder", _] => {
                    let line = std::iter::once(*best).chain(tokens.get(2).copied());
                    check_line(engine, &pos, line, chess960, &mut expected.castles);
                    if let Some(m) = must_play
                        && parse_move(&pos, best) != Ok(m)
                    {
                        engine.fail(&format!("bestmove {best}, but only {m:?} was to be searched"));
                    }
                }
                _ => engine.fail(&format!("malformed bestmove line: {line}")),
            }
        } else if let Some((_, pv)) = line.split_once(" pv ") {
            // A PV of the search under way, the oldest one unanswered.
            let Some(search) = expected.searches.front() else {
                engine.fail("a PV without a go");
            };
            check_line(engine, &search.pos, pv.split_whitespace(), search.chess960, &mut expected.castles);
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
    let mut expected = Expected { searches: VecDeque::new(), readyoks: 0, castles: [0, 0] };
    let mut chess960 = false;
    // Searches made to castle, by the setting they ran under (false, true).
    let mut castle_searches = [0usize; 2];
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
                    expected.searches.push_back(Search { pos: current.clone(), chess960, must_play: None });
                }
                6 => engine.send("stop"),
                7 => engine.send("ponderhit"),
                8 => {
                    engine.send("isready");
                    expected.readyoks += 1;
                }
                9 => {
                    let command = random_option(&mut rng);
                    engine.send(&command);
                    if let Some(on) = command.strip_prefix("setoption name UCI_Chess960 value ") {
                        chess960 = on == "true";
                        // Make the engine castle under the new setting: a
                        // search restricted to one castle answers with it.
                        let fen = CASTLING[rng.below(CASTLING.len() as u64) as usize];
                        let pos = parse_fen(fen).unwrap();
                        let castles: Vec<Move> =
                            pos.legal_moves().into_iter().filter(|m| m.is_castle()).collect();
                        let castle = castles[rng.below(castles.len() as u64) as usize];
                        engine.send(&format!("position fen {fen}"));
                        engine.send(&format!("go depth 1 searchmoves {}", uci_960(castle)));
                        expected.searches.push_back(Search {
                            pos: pos.clone(),
                            chess960,
                            must_play: Some(castle),
                        });
                        castle_searches[usize::from(chess960)] += 1;
                        current = pos;
                    }
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
    // Both settings were tried often (each search made to castle answered
    // with its castle, written as checked above).
    for on in [false, true] {
        let (seen, made) = (expected.castles[usize::from(on)], castle_searches[usize::from(on)]);
        assert!(
            made >= 20 && seen >= made,
            "UCI_Chess960 {on}: {seen} castles seen, {made} searches made to castle"
        );
    }
    eprintln!(
        "{SEQUENCES} sequences in {:.1} s; castles seen {:?}, searches made to castle {castle_searches:?} \
         (UCI_Chess960 false, true)",
        start.elapsed().as_secs_f64(),
        expected.castles
    );
}

/// More threads than this machine has cores: with `Threads` 4 and then 8,
/// searches of every kind are stopped at random moments (at once, or up to
/// 40 ms in), Chess960 notation on and off. Every `go` must get exactly one
/// legal `bestmove`, and no stray one may follow.
#[test]
fn many_threads_answer_every_stop() {
    let _cpu = shared_cpu();
    let mut engine = Engine::ready();
    let mut rng = SplitMix(0x7EAD5);
    let mut expected = Expected { searches: VecDeque::new(), readyoks: 0, castles: [0, 0] };
    let goes =
        ["go infinite", "go", "go wtime 3000 btime 3000", "go depth 30", "go ponder wtime 500 btime 500"];
    for threads in [4, 8] {
        engine.send(&format!("setoption name Threads value {threads}"));
        for round in 0..150 {
            let chess960 = round % 2 == 1;
            engine.send(&format!("setoption name UCI_Chess960 value {chess960}"));
            let (command, pos) = random_position(&mut rng, chess960);
            engine.send(&command);
            engine.send(goes[rng.below(goes.len() as u64) as usize]);
            expected.searches.push_back(Search { pos, chess960, must_play: None });
            std::thread::sleep(Duration::from_millis(rng.below(41)));
            engine.send("stop");
            drain(&mut engine, &mut expected);
        }
    }
    engine.expect_no_line(|l| l.starts_with("bestmove"), Duration::from_millis(300));
    assert!(engine.quit_and_wait(STOP_LATENCY).is_some_and(|status| status.success()));
}
