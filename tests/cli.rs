//! The subcommands run from the command line (`backrank bench`, `perft`,
//! `frc`, `datagen`), each against the built binary.

mod common;

use std::collections::BTreeMap;
use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use backrank_data::binary::GameReader;
use backrank_data::{Game, Outcome};
use backrank_util::scratch::ScratchDir;
use common::{CASTLING_PERFT, FRC960_PERFT, SLOW, parse_perft_line};
use shakmaty::{Color, Position};

/// What `backrank <args>` did: its exit status, its stdout lines and its stderr.
struct Run {
    status: ExitStatus,
    lines: Vec<String>,
    stderr: String,
}

/// Runs `backrank <args>` to its end (killed and failed after [`SLOW`]).
fn backrank(args: &[&str]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_backrank"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start the backrank binary");
    // Read both pipes while the process runs, so that neither fills up.
    let read = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut text = String::new();
            pipe.read_to_string(&mut text).map(|_| text).unwrap_or_default()
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + SLOW;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`backrank {}` still running after {SLOW:?}", args.join(" "));
        }
        thread::sleep(Duration::from_millis(5));
    };
    let lines = stdout.join().unwrap().lines().map(str::to_string).collect();
    Run { status, lines, stderr: stderr.join().unwrap() }
}

/// Runs `backrank <args>` and checks that it succeeded.
#[track_caller]
fn backrank_ok(args: &[&str]) -> Run {
    let run = backrank(args);
    assert!(run.status.success(), "`backrank {}`: {:?}\n{}", args.join(" "), run.status, run.stderr);
    run
}

/// The number after `prefix` on the line that starts with it.
#[track_caller]
fn number_after(line: &str, prefix: &str) -> u64 {
    let Some(n) = line.strip_prefix(prefix).and_then(|n| n.trim().parse().ok()) else {
        panic!("expected `{prefix}N`, got {line:?}");
    };
    n
}

// ---------------------------------------------------------------------------
// --version
// ---------------------------------------------------------------------------

#[test]
fn version_names_the_build() {
    let run = backrank_ok(&["--version"]);
    let [line] = run.lines.as_slice() else { panic!("{:?}", run.lines) };
    // `Backrank 0.2.0 (8909c38) linux x86-64-v3`: `id name`, the OS and the CPU level.
    let rest = line.strip_prefix(backrank::ENGINE_NAME).unwrap_or_else(|| panic!("{line}"));
    let level = rest.strip_prefix(&format!(" {} ", std::env::consts::OS)).unwrap_or_else(|| panic!("{line}"));
    #[cfg(target_arch = "x86_64")]
    assert_eq!(level, backrank::cpu::build_level(), "{line}");
    assert!(!level.is_empty());
}

// ---------------------------------------------------------------------------
// bench
// ---------------------------------------------------------------------------

#[test]
fn bench_ends_with_its_totals_and_is_deterministic() {
    let _cpu = common::shared_cpu();
    let mut totals = Vec::new();
    for _ in 0..2 {
        let run = backrank_ok(&["bench", "4"]);
        let [.., positions_end, blank, nodes, nps] = run.lines.as_slice() else {
            panic!("too few lines: {:?}", run.lines);
        };
        // `Position  i/N: FEN: bestmove m score s nodes n`, i from 1 to N.
        let positions: Vec<&String> = run.lines.iter().filter(|l| l.starts_with("Position ")).collect();
        assert!(positions.len() >= 40, "{positions:?}");
        for (i, line) in positions.iter().enumerate() {
            let numbering = format!("{:2}/{}:", i + 1, positions.len());
            assert!(line.starts_with(&format!("Position {numbering}")), "{line}");
        }
        assert_eq!(positions.last(), Some(&positions_end));
        assert_eq!(blank, "");
        // The total is the positions' nodes added up; the speed is some
        // positive number (it varies from run to run).
        let total = number_after(nodes, "Nodes searched: ");
        let sum: u64 = positions.iter().map(|l| number_after(l.rsplit_once(" nodes ").unwrap().1, "")).sum();
        assert_eq!(total, sum);
        assert!(number_after(nps, "Nodes/second: ") > 0);
        totals.push(total);
    }
    assert!(totals[0] > 1000, "{totals:?}");
    assert_eq!(totals[0], totals[1], "bench 4 searched a different number of nodes in a second run");
}

// ---------------------------------------------------------------------------
// perft
// ---------------------------------------------------------------------------

/// The published divide of the start position at depth 3: each of the 20
/// first moves and the leaves below it.
const START_DIVIDE_3: [(&str, u64); 20] = [
    ("a2a3", 380),
    ("b2b3", 420),
    ("c2c3", 420),
    ("d2d3", 539),
    ("e2e3", 599),
    ("f2f3", 380),
    ("g2g3", 420),
    ("h2h3", 380),
    ("a2a4", 420),
    ("b2b4", 421),
    ("c2c4", 441),
    ("d2d4", 560),
    ("e2e4", 600),
    ("f2f4", 401),
    ("g2g4", 421),
    ("h2h4", 420),
    ("b1a3", 400),
    ("b1c3", 440),
    ("g1f3", 440),
    ("g1h3", 400),
];

/// `backrank perft <fen> <depth>`: the root lines (`move: count`) and the total.
#[track_caller]
fn perft(fen: &str, depth: u32) -> (BTreeMap<String, u64>, u64) {
    let run = backrank_ok(&["perft", fen, &depth.to_string()]);
    let [root @ .., blank, total] = run.lines.as_slice() else {
        panic!("too few lines: {:?}", run.lines);
    };
    assert_eq!(blank, "", "{:?}", run.lines);
    let root: BTreeMap<String, u64> = root
        .iter()
        .map(|line| {
            let (m, n) = line.split_once(": ").unwrap_or_else(|| panic!("not `move: count`: {line:?}"));
            (m.to_string(), number_after(n, ""))
        })
        .collect();
    (root, number_after(total, "Nodes searched: "))
}

#[test]
fn perft_prints_the_divide_and_the_published_totals() {
    let _cpu = common::shared_cpu();
    let (root, total) = perft("startpos", 3);
    let published: BTreeMap<String, u64> = START_DIVIDE_3.iter().map(|&(m, n)| (m.to_string(), n)).collect();
    assert_eq!(root, published);
    assert_eq!(total, 8902);

    // Chess960: start position 0, and a middlegame with castling rights on
    // both sides, at depth 3 (their published suites).
    for line in [FRC960_PERFT.lines().next().unwrap(), CASTLING_PERFT.lines().nth(9).unwrap()] {
        let (fen, counts) = parse_perft_line(line);
        let (_, expected) = counts.iter().copied().find(|&(depth, _)| depth == 3).unwrap();
        let (root, total) = perft(fen, 3);
        assert_eq!(total, expected, "{fen}");
        assert_eq!(root.values().sum::<u64>(), total, "{fen}");
        let (_, moves) = counts[0];
        assert_eq!(root.len() as u64, moves, "{fen}: {root:?}");
    }

    // A FEN that does not parse, or a depth that is not a number: an error.
    for args in [["perft", "garbage", "3"], ["perft", "startpos", "three"]] {
        let run = backrank(&args);
        assert!(!run.status.success() && !run.stderr.is_empty(), "{args:?}: {:?}", run.status);
    }
}

// ---------------------------------------------------------------------------
// frc
// ---------------------------------------------------------------------------

#[test]
fn frc_prints_start_positions_by_number() {
    // 518 is classical chess: Shredder-FEN names the rooks' files.
    let run = backrank_ok(&["frc", "518"]);
    assert_eq!(
        run.lines,
        [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        ]
    );
    // DFRC: White's back rank from position 0 (BBQNNRKR), Black's from 518.
    let run = backrank_ok(&["frc", "0", "518"]);
    assert_eq!(
        run.lines,
        [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFha - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1"
        ]
    );
    // Position 959, the last (RKRNNQBB).
    let run = backrank_ok(&["frc", "959"]);
    assert_eq!(run.lines[0], "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w CAca - 0 1");
    // Numbers run from 0 to 959: anything else fails, printing nothing.
    for args in [&["frc", "960"][..], &["frc", "0", "960"], &["frc", "-1"], &["frc", "x"]] {
        let run = backrank(args);
        assert!(!run.status.success(), "{args:?}: {:?}", run.status);
        assert!(run.lines.is_empty(), "{args:?}: {:?}", run.lines);
        assert!(!run.stderr.is_empty(), "{args:?}: no error message");
    }
}

// ---------------------------------------------------------------------------
// datagen
// ---------------------------------------------------------------------------

#[test]
fn datagen_writes_the_games_asked_for_and_its_progress() {
    let _cpu = common::shared_cpu();
    let dir = ScratchDir::new("cli-datagen");
    let out = dir.join("x.bin");
    let out_text = out.to_str().unwrap();
    let args = ["datagen", "out", out_text, "games", "2", "nodes", "200", "threads", "1"];
    backrank_ok(&args);
    let bytes = std::fs::read(&out).unwrap();
    // The reader replays every move, refusing an illegal one.
    let games: Vec<Game> = GameReader::new(&bytes[..]).collect::<Result<_, _>>().unwrap();
    assert_eq!(games.len(), 2);
    for game in &games {
        // The start is 8 to 12 random plies into the game.
        let ply = game.start.fullmoves().get() * 2 - 2 + u32::from(game.start.turn() == Color::Black);
        assert!((8..=12).contains(&ply), "start at ply {ply}");
        assert!(!game.moves.is_empty());
        // A game that ends in mate is won by the side that mated.
        let mut end = game.start.clone();
        for &(m, _) in &game.moves {
            end.play_unchecked(m);
        }
        if end.is_checkmate() {
            let winner = if end.turn() == Color::White { Outcome::BlackWins } else { Outcome::WhiteWins };
            assert_eq!(game.outcome, winner);
        } else if end.is_stalemate() || end.is_insufficient_material() {
            assert_eq!(game.outcome, Outcome::Draw);
        }
    }
    // The progress file: games written, the next game number, the file's length.
    let progress = std::fs::read_to_string(dir.join("x.bin.progress")).unwrap();
    let numbers: Vec<u64> = progress.split_whitespace().map(|n| n.parse().unwrap()).collect();
    let length = std::fs::metadata(dir.join("x.bin")).unwrap().len();
    assert!(matches!(numbers[..], [2, next, bytes] if next >= 2 && bytes == length), "{progress:?}");
    // Asked again for two games, it finds them there and adds nothing.
    let again = backrank_ok(&args);
    assert!(again.stderr.contains("already holds 2 games"), "{}", again.stderr);
    assert_eq!(std::fs::read(&out).unwrap(), bytes);
}
