//! The harness of the end-to-end tests: the built `backrank` binary behind
//! pipes, driven as a GUI would drive it.
#![allow(dead_code)] // Each test file uses its own share of the harness.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::thread;
use std::time::{Duration, Instant};

use backrank_uci::notation::parse_move;
use shakmaty::{Chess, Move, Position};

/// Generous bound for anything that should take a moment (shared 2-core CI).
pub const SLOW: Duration = Duration::from_secs(20);
/// How fast a `stop` (or `quit`) must be obeyed.
pub const STOP_LATENCY: Duration = Duration::from_secs(1);

pub const CLASSICAL_CASTLING: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";

/// The tests run in parallel, each with its own engine, on a few shared
/// cores. Those that measure time take the machine for themselves.
static CPU: RwLock<()> = RwLock::new(());

pub fn shared_cpu() -> RwLockReadGuard<'static, ()> {
    CPU.read().unwrap_or_else(PoisonError::into_inner)
}

pub fn exclusive_cpu() -> RwLockWriteGuard<'static, ()> {
    CPU.write().unwrap_or_else(PoisonError::into_inner)
}

// ---------------------------------------------------------------------------
// The engine process
// ---------------------------------------------------------------------------

/// The engine under test, behind pipes. Every line it writes (stdout, and
/// stderr with a `[stderr]` prefix) arrives on `lines`; `log` keeps the
/// whole conversation for failure messages.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    pub log: Vec<String>,
}

fn pump(stream: impl Read + Send + 'static, prefix: &'static str, tx: Sender<String>) {
    thread::spawn(move || {
        let mut reader = BufReader::new(stream);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let text = String::from_utf8_lossy(&buf);
                    let line = text.trim_end_matches(['\n', '\r']);
                    if tx.send(format!("{prefix}{line}")).is_err() {
                        break;
                    }
                }
            }
        }
    });
}

/// Shortens a line for the transcript.
pub fn clip(line: &str) -> String {
    const MAX: usize = 200;
    if line.chars().count() <= MAX {
        line.to_string()
    } else {
        let head: String = line.chars().take(MAX).collect();
        format!("{head}... ({} chars)", line.chars().count())
    }
}

impl Engine {
    pub fn spawn() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_backrank"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start the backrank binary");
        let (tx, rx) = channel();
        pump(child.stdout.take().unwrap(), "", tx.clone());
        pump(child.stderr.take().unwrap(), "[stderr] ", tx);
        let stdin = child.stdin.take();
        Engine { child, stdin, lines: rx, log: Vec::new() }
    }

    /// A fresh engine past the `uci`/`isready` handshake.
    pub fn ready() -> Engine {
        let mut engine = Engine::spawn();
        engine.send("uci");
        engine.expect_line(|l| l == "uciok", SLOW);
        engine.sync();
        engine
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Fails the test, showing the end of the conversation.
    #[track_caller]
    pub fn fail(&self, message: &str) -> ! {
        let start = self.log.len().saturating_sub(80);
        panic!(
            "{message}\n--- conversation (last {} of {} lines; > sent, < received) ---\n{}",
            self.log.len() - start,
            self.log.len(),
            self.log[start..].join("\n")
        );
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.log.push(format!("> {}", clip(&String::from_utf8_lossy(bytes).escape_debug().to_string())));
        let stdin = self.stdin.as_mut().expect("stdin already closed");
        if let Err(e) = stdin.write_all(bytes).and_then(|()| stdin.flush()) {
            self.fail(&format!("cannot write to the engine: {e}"));
        }
    }

    /// Sends one command line.
    #[track_caller]
    pub fn send(&mut self, command: &str) {
        let mut bytes = command.as_bytes().to_vec();
        bytes.push(b'\n');
        self.send_bytes(&bytes);
    }

    /// The next line before `deadline`; `None` on timeout. Fails if the
    /// engine closed its output.
    #[track_caller]
    pub fn next_line(&mut self, deadline: Instant) -> Option<String> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => {
                self.log.push(format!("< {}", clip(&line)));
                Some(line)
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.child.try_wait().ok().flatten();
                self.fail(&format!("the engine closed its output (exit status: {status:?})"))
            }
        }
    }

    /// Reads lines up to and including the first one that matches; returns
    /// them all. Fails on timeout.
    #[track_caller]
    pub fn read_until(&mut self, matches: impl Fn(&str) -> bool, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            match self.next_line(deadline) {
                Some(line) => {
                    let done = matches(&line);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                None => self.fail(&format!("no expected line within {timeout:?}")),
            }
        }
    }

    /// Skips lines up to the first that matches, and returns it.
    #[track_caller]
    pub fn expect_line(&mut self, matches: impl Fn(&str) -> bool, timeout: Duration) -> String {
        self.read_until(matches, timeout).pop().unwrap()
    }

    /// Fails if a matching line arrives within `period`.
    #[track_caller]
    pub fn expect_no_line(&mut self, matches: impl Fn(&str) -> bool, period: Duration) {
        let deadline = Instant::now() + period;
        while let Some(line) = self.next_line(deadline) {
            if matches(&line) {
                self.fail(&format!("unexpected line within {period:?}: {}", clip(&line)));
            }
        }
    }

    /// `isready` and everything the engine writes before its `readyok`.
    #[track_caller]
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.read_until(|l| l == "readyok", SLOW);
        lines.pop();
        lines
    }

    #[track_caller]
    pub fn set_chess960(&mut self, on: bool) {
        self.send(&format!("setoption name UCI_Chess960 value {on}"));
        let noise = self.sync();
        if !noise.is_empty() {
            self.fail(&format!("setoption UCI_Chess960 answered {noise:?}"));
        }
    }

    /// The `bestmove` line of a `go` already sent, and the lines before it.
    #[track_caller]
    pub fn await_bestmove(&mut self, timeout: Duration) -> (String, Option<String>, Vec<String>) {
        let mut lines = self.read_until(|l| l.starts_with("bestmove"), timeout);
        let last = lines.pop().unwrap();
        let tokens: Vec<&str> = last.split_whitespace().collect();
        match tokens.as_slice() {
            ["bestmove", best] => (best.to_string(), None, lines),
            ["bestmove", best, "ponder", ponder] => (best.to_string(), Some(ponder.to_string()), lines),
            _ => self.fail(&format!("malformed bestmove line: {last}")),
        }
    }

    /// Sends `go ...` and returns its best move and the lines before it.
    #[track_caller]
    pub fn go(&mut self, go: &str) -> (String, Option<String>, Vec<String>) {
        self.send(go);
        self.await_bestmove(SLOW)
    }

    /// `go perft <depth>`: the `move: count` lines and the total.
    #[track_caller]
    pub fn perft(&mut self, depth: u32) -> (Vec<(String, u64)>, u64) {
        self.send(&format!("go perft {depth}"));
        let lines = self.read_until(|l| l.starts_with("Nodes searched:"), SLOW);
        let mut moves = Vec::new();
        for line in &lines[..lines.len() - 1] {
            if line.is_empty() || line.starts_with("[stderr]") {
                continue;
            }
            match line.split_once(": ").map(|(m, n)| (m, n.parse::<u64>())) {
                Some((m, Ok(n))) => moves.push((m.to_string(), n)),
                _ => self.fail(&format!("unexpected line in perft output: {line}")),
            }
        }
        let total_text = lines.last().unwrap().trim_start_matches("Nodes searched:").trim();
        let Ok(total) = total_text.parse() else {
            self.fail(&format!("bad perft total: {total_text}"));
        };
        (moves, total)
    }

    /// `d`: the `Fen:` (X-FEN) and `Shredder-FEN:` lines.
    #[track_caller]
    pub fn display(&mut self) -> (String, String) {
        self.send("d");
        let lines = self.read_until(|l| l.starts_with("Checkers:"), SLOW);
        let Some(x_fen) = lines.iter().find_map(|l| l.strip_prefix("Fen: ")) else {
            self.fail("`d` printed no `Fen:` line");
        };
        let x_fen = x_fen.to_string();
        let Some(shredder) = lines.iter().find_map(|l| l.strip_prefix("Shredder-FEN: ")) else {
            self.fail("`d` printed no `Shredder-FEN:` line");
        };
        (x_fen, shredder.to_string())
    }

    /// Sends `quit` and waits for the process to end; its exit status.
    pub fn quit_and_wait(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"quit\n").and_then(|()| stdin.flush());
        }
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if self.quit_and_wait(Duration::from_secs(2)).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

// ---------------------------------------------------------------------------
// Moves as the GUI sees them
// ---------------------------------------------------------------------------

/// A move in UCI_Chess960 notation, written independently of the engine:
/// castling as king-takes-rook.
pub fn uci_960(m: Move) -> String {
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
pub fn assert_legal(engine: &Engine, pos: &Chess, text: &str, chess960: bool) -> Move {
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
pub fn after(pos: &Chess, m: Move) -> Chess {
    let mut next = pos.clone();
    next.play_unchecked(m);
    next
}

// ---------------------------------------------------------------------------
// Published perft counts
// ---------------------------------------------------------------------------

/// The 960 Chess960 start positions with their published perft counts
/// (depths 1 to 5), in Shredder-FEN; line N+1 is position N.
pub const FRC960_PERFT: &str = include_str!("../data/frc960-perft.epd");
/// 300 Chess960 and DFRC middlegames near castling, with published perft
/// counts (depths 1 to 4).
pub const CASTLING_PERFT: &str = include_str!("../data/frc-castling-perft.epd");

/// A suite line (`FEN ;D1 n ;D2 n ...`): the FEN and its (depth, count) pairs.
pub fn parse_perft_line(line: &str) -> (&str, Vec<(u32, u64)>) {
    let mut fields = line.split(';');
    let fen = fields.next().unwrap().trim();
    let counts = fields
        .map(|field| {
            let (depth, count) = field.trim().split_once(' ').unwrap();
            (depth.trim_start_matches('D').parse().unwrap(), count.parse().unwrap())
        })
        .collect();
    (fen, counts)
}

/// The published counts of `shredder_fen`, depth 1 first, from either suite.
pub fn published_counts(shredder_fen: &str) -> Vec<u64> {
    let line = [FRC960_PERFT, CASTLING_PERFT]
        .iter()
        .flat_map(|suite| suite.lines())
        .find(|line| parse_perft_line(line).0 == shredder_fen)
        .unwrap_or_else(|| panic!("{shredder_fen} is in no published suite"));
    parse_perft_line(line).1.into_iter().map(|(_, count)| count).collect()
}

/// The project's one seedable RNG, for reproducible picks.
#[allow(unused_imports)] // Not every test file draws random numbers.
pub use backrank_util::rng::SplitMix;
