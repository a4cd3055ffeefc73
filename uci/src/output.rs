//! Engine-to-GUI lines: `info` and `bestmove`.

use std::fmt;

/// A score from the side to move's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (not plies); negative when the side to move is mated.
    Mate(i32),
}

/// One `info` line. Fields left `None` (or an empty `pv`) are not written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    /// Which of the best lines this is (1 is the best), with `MultiPV`.
    pub multipv: Option<u32>,
    pub score: Option<Score>,
    /// Win, draw and loss chances in per mille, side to move.
    pub wdl: Option<[u32; 3]>,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    pub hashfull: Option<u32>,
    /// Tablebase hits.
    pub tbhits: Option<u64>,
    pub time_ms: Option<u64>,
    /// The root move being searched, and its number (1 is the first).
    pub currmove: Option<(String, u32)>,
    /// Moves already in UCI notation (see [`crate::notation::format_move`]).
    pub pv: Vec<String>,
    /// Free text; written last, as the protocol requires.
    pub string: Option<String>,
}

impl Info {
    /// An `info string <text>` line.
    pub fn string(text: impl Into<String>) -> Info {
        Info { string: Some(text.into()), ..Info::default() }
    }
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("info")?;
        if let Some(depth) = self.depth {
            write!(f, " depth {depth}")?;
        }
        if let Some(seldepth) = self.seldepth {
            write!(f, " seldepth {seldepth}")?;
        }
        if let Some(multipv) = self.multipv {
            write!(f, " multipv {multipv}")?;
        }
        match self.score {
            Some(Score::Cp(cp)) => write!(f, " score cp {cp}")?,
            Some(Score::Mate(moves)) => write!(f, " score mate {moves}")?,
            None => {}
        }
        if let Some([win, draw, loss]) = self.wdl {
            write!(f, " wdl {win} {draw} {loss}")?;
        }
        if let Some(nodes) = self.nodes {
            write!(f, " nodes {nodes}")?;
        }
        if let Some(nps) = self.nps {
            write!(f, " nps {nps}")?;
        }
        if let Some(hashfull) = self.hashfull {
            write!(f, " hashfull {hashfull}")?;
        }
        if let Some(tbhits) = self.tbhits {
            write!(f, " tbhits {tbhits}")?;
        }
        if let Some(time) = self.time_ms {
            write!(f, " time {time}")?;
        }
        if let Some((currmove, number)) = &self.currmove {
            write!(f, " currmove {currmove} currmovenumber {number}")?;
        }
        if !self.pv.is_empty() {
            write!(f, " pv {}", self.pv.join(" "))?;
        }
        if let Some(text) = &self.string {
            // A newline would start a new (bogus) command line in the GUI.
            write!(f, " string {}", text.replace(['\n', '\r'], " "))?;
        }
        Ok(())
    }
}

/// The `bestmove` line. `None` is written `0000` (no legal move).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BestMove {
    pub best: Option<String>,
    pub ponder: Option<String>,
}

impl fmt::Display for BestMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bestmove {}", self.best.as_deref().unwrap_or("0000"))?;
        if let (Some(_), Some(ponder)) = (&self.best, &self.ponder) {
            write!(f, " ponder {ponder}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_info_line() {
        let info = Info {
            depth: Some(12),
            seldepth: Some(18),
            multipv: Some(2),
            score: Some(Score::Cp(-35)),
            wdl: Some([10, 700, 290]),
            nodes: Some(123456),
            nps: Some(1000000),
            hashfull: Some(42),
            tbhits: Some(7),
            time_ms: Some(123),
            currmove: None,
            pv: vec!["e2e4".into(), "e7e5".into()],
            string: None,
        };
        assert_eq!(
            info.to_string(),
            "info depth 12 seldepth 18 multipv 2 score cp -35 wdl 10 700 290 nodes 123456 nps 1000000 \
             hashfull 42 tbhits 7 time 123 pv e2e4 e7e5"
        );
        let current = Info { depth: Some(20), currmove: Some(("g1f3".into(), 3)), ..Info::default() };
        assert_eq!(current.to_string(), "info depth 20 currmove g1f3 currmovenumber 3");
    }

    #[test]
    fn mate_and_string() {
        let info = Info { depth: Some(0), score: Some(Score::Mate(0)), ..Info::default() };
        assert_eq!(info.to_string(), "info depth 0 score mate 0");
        assert_eq!(Info::string("bad\nline").to_string(), "info string bad line");
    }

    #[test]
    fn bestmove_lines() {
        assert_eq!(BestMove::default().to_string(), "bestmove 0000");
        let m = BestMove { best: Some("e1h1".into()), ponder: Some("e8h8".into()) };
        assert_eq!(m.to_string(), "bestmove e1h1 ponder e8h8");
        let m = BestMove { best: Some("e2e4".into()), ponder: None };
        assert_eq!(m.to_string(), "bestmove e2e4");
    }
}
