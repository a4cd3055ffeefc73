//! The UCI session: reads GUI lines, parses them (`backrank_uci`), acts
//! through the [`Engine`] facade, and prints what it answers. No engine
//! state lives here.
//!
//! A command's way from stdin to `bestmove`: [`Controller::run`] reads a
//! line, `Command::from_str` types it, [`Controller::handle`] calls the
//! engine (`go` → [`Engine::go`], which hands a job to the search thread),
//! and the job's [`Event`]s come back to [`report`], which formats them
//! with `backrank_uci` (`Info`, `BestMove`) and writes them out.

use std::io::{BufRead, Write};

use backrank_search::score::{is_decisive, is_mate, mate_in_moves};
use backrank_search::{PvLine, Report};
use backrank_uci::notation::format_move;
use backrank_uci::{BestMove, Command, GoLimits, Info, Score};
use shakmaty::{Chess, Position};

use crate::engine::{Engine, Event};
use crate::{ENGINE_AUTHOR, ENGINE_NAME};

/// Writes one line to stdout and flushes it (the GUI reads line by line).
pub fn send(line: &str) {
    let mut out = std::io::stdout().lock();
    // A GUI that closed the pipe cannot be told anything: ignore the error.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn say(text: impl Into<String>) {
    send(&Info::string(text).to_string());
}

/// Win, draw and loss chances in per mille of `score` (side to move) in
/// `pos`: a found mate or tablebase result is certain.
fn wdl(score: i32, pos: &Chess) -> [u32; 3] {
    match score {
        _ if !is_decisive(score) => backrank_eval::wdl::per_mille(score, pos),
        _ if score > 0 => [1000, 0, 0],
        _ => [0, 0, 1000],
    }
}

/// The `info` lines of a search report: one, or one per line with
/// `MultiPV` (numbered, best first). With `wdl_root` (`UCI_ShowWDL`), each
/// score comes with its win/draw/loss chances in that position.
pub fn info_lines(report: &Report, chess960: bool, wdl_root: Option<&Chess>) -> Vec<Info> {
    let millis = report.elapsed.as_millis() as u64;
    let single = [PvLine { score: report.score, pv: report.pv.clone() }];
    let lines = if report.lines.len() > 1 { report.lines.as_slice() } else { &single };
    lines
        .iter()
        .enumerate()
        .map(|(index, line)| Info {
            depth: Some(report.depth),
            seldepth: Some(report.seldepth),
            multipv: (lines.len() > 1).then_some(index as u32 + 1),
            score: Some(if is_mate(line.score) {
                Score::Mate(mate_in_moves(line.score))
            } else {
                Score::Cp(line.score)
            }),
            wdl: wdl_root.map(|root| wdl(line.score, root)),
            nodes: Some(report.nodes),
            nps: Some(report.nodes * 1000 / millis.max(1)),
            hashfull: Some(report.hashfull),
            tbhits: Some(report.tb_hits),
            time_ms: Some(millis),
            pv: line.pv.iter().map(|&m| format_move(m, chess960)).collect(),
            ..Info::default()
        })
        .collect()
}

/// Prints one event of a `go` (see [`Event`] for the thread it comes on).
fn report(event: Event, chess960: bool, wdl_root: Option<&Chess>) {
    match event {
        Event::Warning(text) => say(text),
        Event::Iteration(report) => {
            info_lines(report, chess960, wdl_root).iter().for_each(|info| send(&info.to_string()));
        }
        Event::CurrentMove { depth, m, number } => {
            let currmove = Some((format_move(m, chess960), number));
            send(&Info { depth: Some(depth), currmove, ..Info::default() }.to_string());
        }
        Event::Done(result) => {
            if result.best.is_none() {
                let score = if is_mate(result.report.score) { Score::Mate(0) } else { Score::Cp(0) };
                send(&Info { depth: Some(0), score: Some(score), ..Info::default() }.to_string());
            } else {
                info_lines(&result.report, chess960, wdl_root)
                    .iter()
                    .for_each(|info| send(&info.to_string()));
            }
            let best = BestMove {
                best: result.best.map(|m| format_move(m, chess960)),
                ponder: result.ponder.map(|m| format_move(m, chess960)),
            };
            send(&best.to_string());
        }
    }
}

/// A UCI session.
#[derive(Default)]
pub struct Controller {
    engine: Engine,
}

impl Controller {
    pub fn new() -> Controller {
        Controller { engine: Engine::new() }
    }

    /// Reads commands until `quit` or the end of input.
    pub fn run(&mut self, input: impl BufRead) {
        let mut input = input;
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            // Bytes, not `lines()`: a line that is not UTF-8 is reported and
            // skipped rather than ending the session.
            match input.read_until(b'\n', &mut bytes) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let line = String::from_utf8_lossy(&bytes);
            if line.trim().is_empty() {
                continue;
            }
            match line.parse::<Command>() {
                Ok(Command::Quit) => break,
                Ok(command) => self.handle(command),
                Err(e) => say(format!("{e}; ignored")),
            }
        }
        self.engine.wait();
    }

    fn handle(&mut self, command: Command) {
        match command {
            Command::Uci => identify(),
            Command::IsReady => send("readyok"),
            Command::Debug(_) => {}
            Command::SetOption { name, value } => match self.engine.set_option(&name, value.as_deref()) {
                Ok(Some(text)) => say(text),
                Ok(None) => {}
                Err(e) => say(format!("{e}; ignored")),
            },
            Command::UciNewGame => {
                if self.idle("ucinewgame") {
                    self.engine.new_game();
                }
            }
            Command::Position { start, moves } => match self.engine.set_position(&start, &moves) {
                Ok(warning) => warning.into_iter().for_each(say),
                Err(e) => say(format!("{e}; keeping the previous position")),
            },
            Command::Go(limits) => self.go(limits),
            Command::Stop => self.engine.stop(),
            Command::PonderHit => self.engine.ponderhit(),
            Command::Quit => self.engine.wait(),
            Command::Display => self.display(),
            Command::Eval => self.eval(),
            Command::Bench(depth) => {
                if !self.idle("bench") {
                    return;
                }
                if let Err(e) =
                    crate::bench::run(&mut self.engine, depth.unwrap_or(crate::bench::DEFAULT_DEPTH), send)
                {
                    say(format!("bench: {e}"));
                }
            }
            Command::GenFens { count, seed, book, unknown } => {
                if !unknown.is_empty() {
                    say(format!("ignoring genfens arguments '{}'", unknown.join(" ")));
                }
                match self.engine.genfens(count, seed, book.as_deref()) {
                    Ok(fens) => fens.iter().for_each(|fen| say(format!("genfens {fen}"))),
                    Err(e) => say(format!("genfens: {e}")),
                }
            }
        }
    }

    fn go(&mut self, go: GoLimits) {
        let chess960 = self.engine.settings().chess960;
        if let Some(depth) = go.perft {
            if self.idle("go perft") {
                self.engine.perft(depth).iter().for_each(|line| send(line));
            }
            return;
        }
        let wdl_root = self.engine.settings().show_wdl.then(|| self.engine.position().clone());
        if let Err(e) = self.engine.go(&go, move |event| report(event, chess960, wdl_root.as_ref())) {
            say(e);
            send(&BestMove::default().to_string());
        }
    }

    /// Whether the engine is idle for `what`, or made so by joining a
    /// search that was stopped; if a search runs on, says that `what` is
    /// ignored (so that no command waits on a search the GUI may never stop).
    fn idle(&mut self, what: &str) -> bool {
        match self.engine.when_idle(what) {
            Ok(()) => true,
            Err(e) => {
                say(format!("{e}; ignored"));
                false
            }
        }
    }

    fn display(&self) {
        backrank_uci::notation::diagram(self.engine.position()).lines().for_each(send);
    }

    /// `eval`: the network's view of the position: what each piece is
    /// worth to it, then its evaluation, which is what the search uses.
    /// It reads the engine's own copy of the network, so it answers at once
    /// during a search too.
    fn eval(&self) {
        let pos = self.engine.position();
        let net = self.engine.network();
        let values = net.piece_values(pos.board(), pos.turn());
        send("NNUE derived piece values (pawns, White's view; the evaluation less that without the piece):");
        backrank_uci::notation::value_diagram(pos, &values).lines().for_each(send);
        send("");
        let score = net.evaluate_board(pos.board(), pos.turn());
        let white = if pos.turn() == shakmaty::Color::White { score } else { -score };
        send(&format!("NNUE network: {}", net.name));
        send(&format!("NNUE evaluation: {:+.2} (White's view)", f64::from(white) / 100.0));
        send(&format!("Final evaluation: {score} (side to move)"));
    }
}

/// The answer to `uci`: names, then every option from the table.
fn identify() {
    send(&format!("id name {ENGINE_NAME}"));
    send(&format!("id author {ENGINE_AUTHOR}"));
    for option in crate::options::all() {
        send(&option.spec.to_string());
    }
    send("uciok");
}

#[cfg(test)]
mod tests {
    use super::*;
    use backrank_search::score::{MATE, TB_WIN};

    #[test]
    fn decided_scores_are_certain_and_others_follow_the_model() {
        let pos = Chess::default();
        assert_eq!(wdl(MATE - 5, &pos), [1000, 0, 0]);
        assert_eq!(wdl(-MATE + 5, &pos), [0, 0, 1000]);
        assert_eq!(wdl(TB_WIN - 1, &pos), [1000, 0, 0]);
        // By hand from the fitted model, 78 pawns of material: m = 78/58,
        // a = 326.5 - 198.0 m = 60.22, b = 87.0 + 18.5 m = 111.88;
        // win = 1/(1 + e^((a - 35)/b)) = 0.444, loss = 1/(1 + e^((a + 35)/b)) = 0.299.
        assert_eq!(wdl(35, &pos), [444, 257, 299]);
        // The other side's view mirrors it.
        assert_eq!(wdl(-35, &pos), [299, 257, 444]);
    }
}
