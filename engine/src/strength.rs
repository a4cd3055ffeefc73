//! Playing levels for people: `UCI_LimitStrength` with `UCI_Elo`, and
//! `Skill Level`, with Stockfish's names and meaning.
//!
//! A level plays like a weaker player, not like a random mover:
//!
//! * it searches a node budget that grows with the level ([`Level::nodes`]:
//!   the iteration that passes it is finished, four times it is the hard
//!   cap), within the clock's own budget, so a low level answers in a
//!   fraction of a second whatever the clock. The budget and the handicap
//!   below come from a calibration against Stockfish 15.1's levels
//!   ([`CALIBRATION`]);
//! * it looks at [`LINES`] lines (MultiPV; one where there is no handicap,
//!   [`Level::lines`]) and plays the one whose score
//!   plus a random handicap is best; the handicap is uniform in
//!   `0..=spread`, and the spread grows as the level drops
//!   ([`Level::spread`]). A move much worse than the best (a hung queen) is
//!   chosen only when the spread can make up the difference, and a mate
//!   found for itself, scored above any handicap, is always played;
//! * the draw is seeded by the position and the level, so the same
//!   position at the same level gets the same move (reproducible games).
//!
//! `UCI_LimitStrength` wins over `Skill Level`: with it on, `UCI_Elo` is
//! the level; with it off, `Skill Level` below 20 maps onto the same scale
//! (0 is [`MIN_ELO`], each step [`ELO_PER_SKILL`] more); 20 is full strength.

use backrank_search::score::is_decisive;
use backrank_search::{Limits, SearchResult};
use backrank_util::rng::SplitMix;

/// The lowest level, `UCI_Elo`'s minimum.
pub const MIN_ELO: i64 = 1320;
/// `UCI_Elo`'s maximum.
pub const MAX_ELO: i64 = 3000;
/// `UCI_Elo`'s default.
pub const DEFAULT_ELO: i64 = 1500;
/// From this level on the search is not limited (full strength).
pub const FULL_STRENGTH_ELO: i64 = 2800;
/// Elo per `Skill Level` step (0 to 19).
pub const ELO_PER_SKILL: i64 = 70;
/// Lines searched to choose from.
pub const LINES: usize = 4;
/// The calibration: at each rung (`UCI_Elo`, Stockfish 15.1's scale) the
/// soft node budget and the handicap's spread in centipawns. Between rungs
/// the budget is interpolated geometrically and the spread linearly.
///
/// Fitted to matches against Stockfish 15.1 at its own `UCI_Elo` (10+0.1,
/// frc960.epd; the README has the table). The first scale (64 nodes at
/// 1320, doubling every 110 Elo; 0.3 cp of spread per Elo below 2400)
/// scored -585, -158 and +89 at 2000, 2200 and 2400 against Stockfish's
/// 2000. Its 2330 or so (36,000 nodes, 22 cp) became the 2000 rung, which
/// then scored +27.9 +/- 66.1. Stockfish's scale is steeper at the bottom
/// than those three matches let one read: the first 1500 rung (6,000
/// nodes, 108 cp) scored +330.2 +/- 106.2, the second (2,200 nodes, 155
/// cp) +92.5 +/- 65.6, and the third, that step again scaled to the 92
/// Elo left, +6.9 +/- 73.1. The lowest rung is extrapolated from them.
///
/// Above 2000 the budget was extrapolated (without a handicap a doubling
/// of the nodes was worth about 80 Elo on the first scale) to four times
/// what full strength searches at 10+0.1. There the clock caps it: the
/// 2500 rung played at full strength with one line and scored -56.1 +/-
/// 69.0, so at 10+0.1 full strength is Stockfish's 2450 or so, and the
/// levels above it play at full strength. At longer controls the budgets
/// up there bind before the clock does.
const CALIBRATION: [Rung; 5] = [
    Rung { elo: MIN_ELO, nodes: 500, spread: 220 },
    Rung { elo: 1500, nodes: 1_500, spread: 175 },
    Rung { elo: 2000, nodes: 36_000, spread: 22 },
    Rung { elo: 2500, nodes: 1_900_000, spread: 0 },
    Rung { elo: FULL_STRENGTH_ELO, nodes: 8_000_000, spread: 0 },
];

/// One calibrated level: its node budget and handicap spread.
struct Rung {
    elo: i64,
    nodes: u64,
    spread: i32,
}

/// The strength options as set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strength {
    /// `UCI_LimitStrength`.
    pub limit: bool,
    /// `UCI_Elo`.
    pub elo: i64,
    /// `Skill Level` (0-20).
    pub skill: i64,
}

impl Default for Strength {
    fn default() -> Strength {
        Strength { limit: false, elo: DEFAULT_ELO, skill: 20 }
    }
}

impl Strength {
    /// The level to play at; `None` at full strength.
    pub fn level(&self) -> Option<Level> {
        let elo = if self.limit {
            self.elo.clamp(MIN_ELO, MAX_ELO)
        } else if self.skill < 20 {
            MIN_ELO + self.skill.max(0) * ELO_PER_SKILL
        } else {
            return None;
        };
        (elo < FULL_STRENGTH_ELO).then_some(Level { elo })
    }
}

/// A playing level below full strength.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Level {
    pub elo: i64,
}

impl Level {
    /// The soft node budget of a move.
    pub fn nodes(&self) -> u64 {
        let (low, high, t) = self.rungs();
        let (low_nodes, high_nodes) = (low.nodes as f64, high.nodes as f64);
        (low_nodes * (high_nodes / low_nodes).powf(t)) as u64
    }

    /// Lines to search: [`LINES`] to choose among, or one where there is
    /// no handicap to choose with (the top levels lose nothing to MultiPV).
    pub fn lines(&self) -> usize {
        if self.spread() == 0 { 1 } else { LINES }
    }

    /// The largest handicap, centipawns.
    pub fn spread(&self) -> i32 {
        let (low, high, t) = self.rungs();
        (f64::from(low.spread) + f64::from(high.spread - low.spread) * t).round() as i32
    }

    /// The calibration rungs either side of this level, and how far
    /// between them it stands (0 at the lower, 1 at the higher).
    fn rungs(&self) -> (&'static Rung, &'static Rung, f64) {
        let elo = self.elo.clamp(MIN_ELO, FULL_STRENGTH_ELO);
        let upper =
            CALIBRATION.iter().position(|rung| rung.elo >= elo).unwrap_or(CALIBRATION.len() - 1).max(1);
        let (low, high) = (&CALIBRATION[upper - 1], &CALIBRATION[upper]);
        (low, high, (elo - low.elo) as f64 / (high.elo - low.elo) as f64)
    }

    /// `limits` with this level's node budget (the tighter of the two
    /// where the GUI set nodes too); clocks and `stop` still apply.
    pub fn limits(&self, mut limits: Limits) -> Limits {
        let nodes = self.nodes();
        limits.soft_nodes = Some(limits.soft_nodes.map_or(nodes, |n| n.min(nodes)));
        limits.nodes = Some(limits.nodes.map_or(4 * nodes, |n| n.min(4 * nodes)));
        limits.infinite = false;
        limits
    }

    /// The result with this level's choice among its lines as the move
    /// played (and the reply to ponder on), drawn with `seed`.
    pub fn choose(&self, mut result: SearchResult, seed: u64) -> SearchResult {
        let lines = &result.report.lines;
        if lines.len() < 2 {
            return result;
        }
        let mut rng = SplitMix(seed ^ self.elo as u64);
        let spread = self.spread();
        let handicapped = |score: i32, rng: &mut SplitMix| {
            // Decided scores keep their order: a mate is never given away
            // for a handicap, nor is a mate against chosen over a draw.
            if is_decisive(score) { score } else { score - rng.below(spread as u64 + 1) as i32 }
        };
        let best = lines
            .iter()
            .enumerate()
            .map(|(i, line)| (handicapped(line.score, &mut rng), std::cmp::Reverse(i)))
            .max()
            .map_or(0, |(_, std::cmp::Reverse(i))| i);
        let line = lines[best].clone();
        result.best = line.pv.first().copied().or(result.best);
        result.ponder = line.pv.get(1).copied();
        result.report.score = line.score;
        result.report.pv = line.pv;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_map_to_levels_and_limit_strength_wins() {
        assert_eq!(Strength::default().level(), None);
        let limited = Strength { limit: true, elo: 2000, skill: 3 };
        assert_eq!(limited.level(), Some(Level { elo: 2000 }));
        let skill = Strength { limit: false, elo: 2000, skill: 3 };
        assert_eq!(skill.level(), Some(Level { elo: MIN_ELO + 3 * ELO_PER_SKILL }));
        assert_eq!(Strength { skill: 20, ..skill }.level(), None);
        assert_eq!(Strength { limit: true, elo: MAX_ELO, skill: 0 }.level(), None);
        assert_eq!(Strength { limit: true, elo: 100, skill: 20 }.level(), Some(Level { elo: MIN_ELO }));
    }

    #[test]
    fn budgets_grow_and_handicaps_shrink_with_the_level() {
        let levels: Vec<Level> = (MIN_ELO..FULL_STRENGTH_ELO).step_by(10).map(|elo| Level { elo }).collect();
        // The rungs themselves are met exactly.
        for rung in &CALIBRATION {
            let level = Level { elo: rung.elo };
            assert!(level.nodes().abs_diff(rung.nodes) <= 1, "{}: {}", rung.elo, level.nodes());
            assert_eq!(level.spread(), rung.spread, "{}", rung.elo);
        }
        for pair in levels.windows(2) {
            // Smoothly: no step between neighbours more than doubles the
            // budget or moves the spread by more than a few centipawns.
            let (a, b) = (pair[0], pair[1]);
            assert!(b.nodes() >= a.nodes() && b.nodes() <= 2 * a.nodes() + 1);
            assert!(b.spread() <= a.spread() && a.spread() - b.spread() <= 5);
        }
        assert_eq!(Level { elo: 2500 }.spread(), 0);
        assert_eq!((Level { elo: 2000 }.lines(), Level { elo: 2500 }.lines()), (LINES, 1));
        // Halfway between two rungs: the geometric mean of their budgets.
        let mid = Level { elo: 1750 }.nodes() as f64;
        assert!((mid - (1_500f64 * 36_000.0).sqrt()).abs() < 2.0, "{mid}");
        let limits = Level { elo: 1500 }.limits(Limits { nodes: Some(50), ..Limits::default() });
        assert_eq!((limits.soft_nodes, limits.nodes), (Some(Level { elo: 1500 }.nodes()), Some(50)));
    }
}
