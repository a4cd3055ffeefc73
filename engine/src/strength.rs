//! Playing levels for people: `UCI_LimitStrength` with `UCI_Elo`, and
//! `Skill Level`, with Stockfish's names and meaning.
//!
//! A level plays like a weaker player, not like a random mover:
//!
//! * it searches a node budget that grows with the level ([`Level::nodes`]:
//!   the iteration that passes it is finished, four times it is the hard
//!   cap), within the clock's own budget, so a low level answers in a
//!   fraction of a second whatever the clock;
//! * it looks at [`LINES`] lines (MultiPV) and plays the one whose score
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
/// The node budget at the lowest level, doubled every [`ELO_PER_DOUBLING`].
const MIN_NODES: f64 = 64.0;
const ELO_PER_DOUBLING: f64 = 110.0;
/// The handicap's spread in centipawns: this many per Elo below
/// [`NO_SPREAD_ELO`], in hundredths.
const SPREAD_PER_ELO_PCT: i64 = 30;
const NO_SPREAD_ELO: i64 = 2400;

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
        (MIN_NODES * 2f64.powf((self.elo - MIN_ELO) as f64 / ELO_PER_DOUBLING)) as u64
    }

    /// The largest handicap, centipawns.
    pub fn spread(&self) -> i32 {
        ((NO_SPREAD_ELO - self.elo).max(0) * SPREAD_PER_ELO_PCT / 100) as i32
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
        assert_eq!(levels[0].nodes(), MIN_NODES as u64);
        for pair in levels.windows(2) {
            // Smoothly: no step between neighbours more than doubles the
            // budget or moves the spread by more than a few centipawns.
            let (a, b) = (pair[0], pair[1]);
            assert!(b.nodes() >= a.nodes() && b.nodes() <= 2 * a.nodes() + 1);
            assert!(b.spread() <= a.spread() && a.spread() - b.spread() <= 5);
        }
        assert_eq!(Level { elo: NO_SPREAD_ELO }.spread(), 0);
        let limits = Level { elo: 1500 }.limits(Limits { nodes: Some(50), ..Limits::default() });
        assert_eq!((limits.soft_nodes, limits.nodes), (Some(Level { elo: 1500 }.nodes()), Some(50)));
    }
}
