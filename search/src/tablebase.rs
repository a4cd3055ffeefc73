//! Syzygy endgame tablebases, probed with `shakmaty-syzygy`.
//!
//! Two uses:
//! * at the root ([`Tablebases::rank_root`]): the moves are ranked by DTZ,
//!   with the fifty-move counter, and only those that keep the best result
//!   are searched; the search then picks among them;
//! * in the tree ([`Tablebases::probe_wdl`]): right after a capture or a
//!   pawn move the WDL tables give the exact result, which ends the node or
//!   bounds it (see `negamax`).
//!
//! Syzygy tables hold no position with castling rights: such positions are
//! never probed.

use shakmaty::{Chess, Move, Position};
use shakmaty_syzygy::{Dtz, Tablebase, Wdl};

use crate::score::{DRAW, MAX_PLY, TB_WIN};

/// Settings of the tablebase probes, as the UCI options name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TablebaseConfig {
    /// `SyzygyProbeDepth`: least remaining depth for a probe in the tree.
    pub probe_depth: i32,
    /// `Syzygy50MoveRule`: a win that the fifty-move rule spoils is a draw.
    pub fifty_move_rule: bool,
    /// `SyzygyProbeLimit`: most pieces (kings included) for a probe.
    pub probe_limit: usize,
}

impl Default for TablebaseConfig {
    fn default() -> Self {
        TablebaseConfig { probe_depth: 1, fifty_move_rule: true, probe_limit: 7 }
    }
}

/// The folders named in a `SyzygyPath` value: separated by `;`, as on
/// Windows, and elsewhere also by `:`, as in a Unix `PATH`. On Windows a
/// colon belongs to a drive letter (`C:\tb`), so it never separates there.
fn folders(paths: &str, windows: bool) -> impl Iterator<Item = &str> {
    let separators: &[char] = if windows { &[';'] } else { &[':', ';'] };
    paths.split(separators).map(str::trim).filter(|path| !path.is_empty() && *path != "<empty>")
}

/// The tables found in `SyzygyPath`, and the probe settings.
#[derive(Default)]
pub struct Tablebases {
    tables: Option<Tablebase<Chess>>,
    pub config: TablebaseConfig,
}

/// What the root probe decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootRanking {
    /// The moves that keep the best result; the search looks at no other.
    pub moves: Vec<Move>,
    /// That result for the side to move, fifty-move rule as configured.
    pub wdl: Wdl,
}

impl Tablebases {
    /// Loads every table in `paths` (folders separated as [`folders`]
    /// says). Returns the tables and how many files were found; an
    /// empty path or `<empty>` gives no tables. A folder that cannot be read
    /// is an error, but the other folders are still loaded.
    pub fn load(paths: &str, config: TablebaseConfig) -> (Tablebases, usize, Vec<String>) {
        let mut tables = Tablebase::new();
        let mut files = 0;
        let mut errors = Vec::new();
        for path in folders(paths, cfg!(windows)) {
            match tables.add_directory(path) {
                Ok(count) => files += count,
                Err(e) => errors.push(format!("{path}: {e}")),
            }
        }
        let tables = (files > 0).then_some(tables);
        (Tablebases { tables, config }, files, errors)
    }

    /// The most pieces a probe may see: the configured limit, or the
    /// largest table present (0 without tables).
    pub fn max_pieces(&self) -> usize {
        self.tables.as_ref().map_or(0, |tables| tables.max_pieces().min(self.config.probe_limit))
    }

    /// Whether `pos` may be looked up at all.
    fn covers(&self, pos: &Chess) -> bool {
        pos.board().occupied().count() <= self.max_pieces() && !pos.castles().any()
    }

    /// The WDL of `pos` for the side to move, assuming the move into it was
    /// a capture or a pawn move (as in-tree probes are). Cursed wins and
    /// blessed losses count as draws under the fifty-move rule, else as
    /// wins and losses.
    pub fn probe_wdl(&self, pos: &Chess) -> Option<Wdl> {
        if !self.covers(pos) {
            return None;
        }
        let wdl = self.tables.as_ref()?.probe_wdl_after_zeroing(pos).ok()?;
        Some(self.apply_fifty_move_rule(wdl))
    }

    fn apply_fifty_move_rule(&self, wdl: Wdl) -> Wdl {
        match wdl {
            Wdl::CursedWin if !self.config.fifty_move_rule => Wdl::Win,
            Wdl::BlessedLoss if !self.config.fifty_move_rule => Wdl::Loss,
            Wdl::CursedWin | Wdl::BlessedLoss => Wdl::Draw,
            other => other,
        }
    }

    /// Ranks the root `moves` of `pos` by DTZ and keeps those with the best
    /// rank. `None` when the position is not in the tables (or a probe
    /// fails: then the search runs as without tables).
    pub fn rank_root(&self, pos: &Chess, moves: &[Move]) -> Option<RootRanking> {
        if moves.is_empty() || !self.covers(pos) {
            return None;
        }
        let tables = self.tables.as_ref()?;
        let mut ranked = Vec::with_capacity(moves.len());
        for &m in moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let rank = if child.is_checkmate() {
                MATE_RANK
            } else if child.is_stalemate() {
                0
            } else {
                let dtz = tables.probe_dtz(&child).ok()?.ignore_rounding();
                self.rank_of(-dtz, child.halfmoves())
            };
            ranked.push((m, rank));
        }
        let best = ranked.iter().map(|&(_, rank)| rank).max()?;
        let wdl = match best {
            rank if rank >= WIN_RANK => Wdl::Win,
            rank if rank > 0 => Wdl::CursedWin,
            0 => Wdl::Draw,
            rank if rank > -WIN_RANK => Wdl::BlessedLoss,
            _ => Wdl::Loss,
        };
        let moves = ranked.into_iter().filter(|&(_, rank)| rank == best).map(|(m, _)| m).collect();
        Some(RootRanking { moves, wdl: self.apply_fifty_move_rule(wdl) })
    }

    /// The rank of a root move after which we have `dtz` (our view, the
    /// child's DTZ negated) and the fifty-move counter stands at
    /// `halfmoves`. Wins that the fifty-move rule cannot spoil rank above
    /// all else but mate, the nearest zeroing move first: only the fastest
    /// way on is kept, so that a won ending is always converted whatever
    /// the evaluation thinks of it. Spoilt wins rank by how near they are,
    /// losses that the rule may save by how far.
    fn rank_of(&self, dtz: Dtz, halfmoves: u32) -> i32 {
        let plies = dtz.0.abs() + halfmoves as i32;
        match dtz.0.signum() {
            0 => 0,
            1 if plies <= 99 || !self.config.fifty_move_rule => {
                WIN_RANK + (MATE_RANK - WIN_RANK - 1 - dtz.0.abs()).max(0)
            }
            1 => WIN_RANK - plies,
            _ if plies <= 99 || !self.config.fifty_move_rule => -WIN_RANK,
            _ => -WIN_RANK + plies,
        }
    }
}

/// Ranks of root moves: mate at once, then sure wins (see `rank_of`).
const MATE_RANK: i32 = 2000;
const WIN_RANK: i32 = 1000;

/// The score of a tablebase result at `ply`: wins and losses in the band
/// just below mate scores, the nearer the root the better.
pub fn wdl_score(wdl: Wdl, ply: usize) -> i32 {
    let ply = ply.min(MAX_PLY) as i32;
    match wdl {
        Wdl::Win => TB_WIN - ply,
        Wdl::Loss => -TB_WIN + ply,
        _ => DRAW,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/syzygy");

    use backrank_util::position;

    fn tables() -> Tablebases {
        let (tables, files, errors) = Tablebases::load(TABLES, TablebaseConfig::default());
        assert!(files >= 2 * 35 && errors.is_empty(), "{files} {errors:?}");
        tables
    }

    #[test]
    fn loads_nothing_from_a_bad_path() {
        let (tables, files, errors) = Tablebases::load("/no/such/folder", TablebaseConfig::default());
        assert_eq!((files, errors.len(), tables.max_pieces()), (0, 1, 0));
        let (tables, files, errors) = Tablebases::load("<empty>", TablebaseConfig::default());
        assert_eq!((files, errors.len(), tables.max_pieces()), (0, 0, 0));
    }

    #[test]
    fn folders_split_at_semicolons_and_off_windows_at_colons() {
        let split = |paths, windows| folders(paths, windows).collect::<Vec<_>>();
        assert_eq!(split(r"C:\tb\345;D:\tb\6", true), [r"C:\tb\345", r"D:\tb\6"]);
        assert_eq!(split("/tb/345:/tb/6; /tb/7", false), ["/tb/345", "/tb/6", "/tb/7"]);
        assert_eq!(split(" ; <empty>", true), Vec::<&str>::new());
    }

    #[test]
    fn wdl_of_simple_endings() {
        let tables = tables();
        assert_eq!(tables.max_pieces(), 4);
        // KQ v K: a win for the side with the queen, whoever moves.
        assert_eq!(tables.probe_wdl(&position("8/8/8/4k3/8/8/3QK3/8 w - - 0 1")), Some(Wdl::Win));
        assert_eq!(tables.probe_wdl(&position("8/8/8/4k3/8/8/3QK3/8 b - - 0 1")), Some(Wdl::Loss));
        // KR v KB: a draw.
        assert_eq!(tables.probe_wdl(&position("8/8/3bk3/8/8/8/3RK3/8 w - - 0 1")), Some(Wdl::Draw));
        // Five pieces: not in these tables.
        assert_eq!(tables.probe_wdl(&position("8/8/3bk3/8/8/8/3RKN2/8 w - - 0 1")), None);
        // Castling rights: never probed.
        assert_eq!(tables.probe_wdl(&position("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")), None);
    }

    #[test]
    fn the_root_keeps_only_the_best_moves() {
        let tables = tables();
        // KR v K with the rook attacked by the king: moves that keep the
        // rook keep the win; Rc2+ gives it away.
        let pos = position("8/8/8/8/8/2k5/1R6/K7 w - - 0 1");
        let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
        let ranking = tables.rank_root(&pos, &moves).unwrap();
        assert_eq!(ranking.wdl, Wdl::Win);
        let kept: Vec<String> = ranking.moves.iter().map(ToString::to_string).collect();
        assert!(kept.contains(&"Ka1-b1".to_string()), "{kept:?}");
        assert!(!kept.contains(&"Rb2-c2".to_string()), "{kept:?}");
        for m in &ranking.moves {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            assert!(tables.tables.as_ref().unwrap().probe_dtz(&child).unwrap().is_negative(), "{m}");
        }
        // A mate in one is the only move kept.
        let pos = position("k7/8/1K6/8/8/8/8/7R w - - 0 1");
        let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
        let ranking = tables.rank_root(&pos, &moves).unwrap();
        assert_eq!(ranking.moves.len(), 1);
        assert_eq!(ranking.moves[0].to_string(), "Rh1-h8");
    }
}
