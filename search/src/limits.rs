//! What bounds a search (depth, nodes, mate, clocks), and the time manager
//! that turns a clock into a soft target and a hard limit.

use std::time::{Duration, Instant};

use shakmaty::Move;

use crate::params::{
    CLOCK_RESERVE_MS, DEFAULT_MOVES_TO_GO, HARD_MAX_LAST_MOVE_PCT, HARD_MAX_PCT, HARD_PER_SOFT,
    INCREMENT_SHARE_PCT, NEW_ITERATION_PCT, NODE_SHARE_BASE_PCT, NODE_SHARE_MAX_PCT, NODE_SHARE_MIN_PCT,
    SCORE_DROP_MAX_PCT, SOFT_MAX_LAST_MOVE_PCT, SOFT_MAX_PCT, SOFT_SCALE_MAX_PCT, SOFT_SCALE_MIN_PCT,
    STABILITY_SCALE_PCT,
};
use crate::score::MAX_PLY;

/// The side to move's clock, in milliseconds (values may be zero or negative).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    pub time_ms: i64,
    pub increment_ms: i64,
    pub moves_to_go: Option<u32>,
}

/// Limits of one search, already taken from the side to move's view.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// Stop after the iteration in which the main thread passes this many
    /// nodes (datagen's soft node limit; `nodes` stays the hard one).
    pub soft_nodes: Option<u64>,
    /// Stop once a mate in this many moves (or fewer) is found.
    pub mate: Option<u32>,
    pub movetime_ms: Option<i64>,
    pub clock: Option<Clock>,
    /// Search until `stop`, whatever else is set.
    pub infinite: bool,
    /// Root moves to consider; empty means all.
    pub searchmoves: Vec<Move>,
}

impl Limits {
    /// A fixed-depth search (bench, tests).
    pub fn depth(depth: u32) -> Limits {
        Limits { depth: Some(depth), ..Limits::default() }
    }

    /// The deepest iteration allowed.
    pub fn max_depth(&self) -> i32 {
        self.depth.map_or(MAX_PLY as i32 - 1, |d| d.clamp(1, MAX_PLY as u32 - 1) as i32)
    }
}

/// Soft target and hard limit of one search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeManager {
    /// Do not start another iteration after this.
    pub soft: Option<Duration>,
    /// Abort the search at this.
    pub hard: Option<Duration>,
}

impl TimeManager {
    /// Budgets for `limits`, keeping `move_overhead_ms` back for the GUI
    /// and the pipe. With neither clock nor movetime, unlimited.
    pub fn new(limits: &Limits, move_overhead_ms: u64) -> TimeManager {
        if limits.infinite {
            return TimeManager { soft: None, hard: None };
        }
        let overhead = move_overhead_ms as i64;
        // A fixed time per move: the GUI gave it, so use it. No soft
        // target (whose `NEW_ITERATION_PCT` rule is for clocks,
        // where time saved now is time to spend later); the hard limit ends
        // the search, the last completed iteration answers.
        if let Some(movetime) = limits.movetime_ms {
            let budget = ms((movetime - overhead).max(1));
            return TimeManager { soft: None, hard: Some(budget) };
        }
        let Some(clock) = limits.clock else {
            return TimeManager { soft: None, hard: None };
        };
        // Keep the overhead back, and never plan with less than a millisecond.
        let left = (clock.time_ms - overhead).max(1);
        let increment = clock.increment_ms.max(0);
        let last_move = clock.moves_to_go == Some(1);
        let moves_to_go = clock.moves_to_go.map_or(DEFAULT_MOVES_TO_GO, |m| i64::from(m.clamp(1, 50)));
        let (soft_max, hard_max) = if last_move {
            (SOFT_MAX_LAST_MOVE_PCT, HARD_MAX_LAST_MOVE_PCT)
        } else {
            (SOFT_MAX_PCT, HARD_MAX_PCT)
        };
        // The increment is spent whole only from a clock that holds a reserve.
        let reserve = CLOCK_RESERVE_MS;
        let increment_share = increment * INCREMENT_SHARE_PCT / 100 * left.min(reserve) / reserve;
        let per_move = left / moves_to_go + increment_share;
        let hard = (per_move * HARD_PER_SOFT).min(left * hard_max / 100).max(1);
        let soft = per_move.min(left * soft_max / 100).clamp(1, hard);
        TimeManager { soft: Some(ms(soft)), hard: Some(ms(hard)) }
    }

    /// True once it is too late to start another iteration: past a share
    /// (see [`NEW_ITERATION_PCT`]) of the soft target scaled by
    /// `scale_pct` percent (see [`soft_scale_pct`]).
    pub fn iteration_time_over(&self, start: Instant, scale_pct: u32) -> bool {
        self.soft.is_some_and(|soft| start.elapsed() >= soft * NEW_ITERATION_PCT / 100 * scale_pct / 100)
    }

    /// True once the hard limit has passed since `start`.
    pub fn hard_expired(&self, start: Instant) -> bool {
        self.hard.is_some_and(|hard| start.elapsed() >= hard)
    }
}

/// How far to stretch the soft target, in percent, after an iteration
/// whose best move has stayed the same for `same_best` iterations, whose
/// score fell `score_drop` centipawns (negative: rose) since the last one,
/// and whose best move took `best_share_pct` percent of its nodes. A stable
/// best move with most of the nodes ends the search early; a new best move,
/// a falling score or a close race between moves makes it think longer.
/// The hard limit still caps everything.
pub fn soft_scale_pct(same_best: u32, score_drop: i32, best_share_pct: u32) -> u32 {
    let stability = STABILITY_SCALE_PCT[(same_best as usize).min(STABILITY_SCALE_PCT.len() - 1)];
    let drop = (100 + score_drop.clamp(0, SCORE_DROP_MAX_PCT)) as u32;
    let share =
        (NODE_SHARE_BASE_PCT.saturating_sub(best_share_pct)).clamp(NODE_SHARE_MIN_PCT, NODE_SHARE_MAX_PCT);
    (stability * drop / 100 * share / 100).clamp(SOFT_SCALE_MIN_PCT, SOFT_SCALE_MAX_PCT)
}

fn ms(millis: i64) -> Duration {
    Duration::from_millis(millis.max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(time_ms: i64, increment_ms: i64, moves_to_go: Option<u32>) -> Limits {
        Limits { clock: Some(Clock { time_ms, increment_ms, moves_to_go }), ..Limits::default() }
    }

    #[test]
    fn budgets_stay_inside_the_clock() {
        for (time, inc, mtg) in [
            (60_000, 0, None),
            (1_000, 10, None),
            (8_000, 80, None),
            (4_000, 0, Some(40)),
            (500, 0, Some(1)),
            (50, 0, None),
        ] {
            let tm = TimeManager::new(&clock(time, inc, mtg), 10);
            let (soft, hard) = (tm.soft.unwrap(), tm.hard.unwrap());
            assert!(soft <= hard, "{time}+{inc}/{mtg:?}");
            assert!(hard.as_millis() as i64 <= (time - 10) * 7 / 10 + 1, "{time}+{inc}/{mtg:?}: {hard:?}");
            if mtg != Some(1) {
                // A third of the clock at most: a low clock rebuilds from the increment.
                assert!(hard.as_millis() as i64 <= (time - 10) / 3 + 1, "{time}+{inc}/{mtg:?}: {hard:?}");
            }
            assert!(soft.as_millis() > 0);
        }
    }

    /// Soft target and hard limit in milliseconds.
    fn budget(time_ms: i64, increment_ms: i64, moves_to_go: Option<u32>) -> (u64, u64) {
        let tm = TimeManager::new(&clock(time_ms, increment_ms, moves_to_go), 10);
        (tm.soft.unwrap().as_millis() as u64, tm.hard.unwrap().as_millis() as u64)
    }

    /// Budgets worked out by hand from the documented rules (a 10 ms
    /// overhead kept back; 20 moves to go in sudden death; 75% of the
    /// increment once the clock holds 200 ms, less in proportion below; soft at most 25% of the clock, hard three softs but at most
    /// 33%; on the last move before the control 50% and 70%), integer
    /// milliseconds rounded down at each step.
    #[test]
    fn hand_worked_budgets() {
        // 60+0: 59_990 / 20 = 2999 (25% would be 14_997); hard 3 x 2999 =
        // 8997 (33% would be 19_796).
        assert_eq!(budget(60_000, 0, None), (2999, 8997));
        // 10+0.1: the clock holds the 200 ms reserve, so the increment
        // counts whole: 9990 / 20 = 499, + 75 = 574; hard 3 x 574 = 1722.
        assert_eq!(budget(10_000, 100, None), (574, 1722));
        // 10+3: 499 + 2250 = 2749, capped at 25% of the clock (2497) soft
        // and 33% (3296) hard. (Counted in increments, as before ca1d7dc,
        // the reserve would be 60 s and the share 374 ms: 873 soft.)
        assert_eq!(budget(10_000, 3_000, None), (2497, 3296));
        // 120+2: 119_990 / 20 = 5999, + 1500 = 7499; hard 3 x 7499 = 22_497.
        assert_eq!(budget(120_000, 2_000, None), (7499, 22_497));
        // 1+0.01: 990 / 20 = 49, + 75% of 10 = 7 (rounded down): 56; hard 168.
        assert_eq!(budget(1_000, 10, None), (56, 168));
        // 0.15+0.01: 140 ms left is short of the 200 ms reserve, so
        // 7 x 140 / 200 = 4 of the increment: 140 / 20 = 7, + 4 = 11;
        // hard 33 (33% would be 46).
        assert_eq!(budget(150, 10, None), (11, 33));
        // 4 s for 40 moves: 3990 / 40 = 99; hard 297.
        assert_eq!(budget(4_000, 0, Some(40)), (99, 297));
        // The last move before the control, 500 ms: all 490 ms would be
        // the share, capped at 50% (245) soft and 70% (343) hard.
        assert_eq!(budget(500, 0, Some(1)), (245, 343));
        // 50 ms: 40 / 20 = 2; hard 6 (33% would be 13).
        assert_eq!(budget(50, 0, None), (2, 6));
    }

    #[test]
    fn a_low_clock_climbs_back_from_the_increment() {
        // The worst case at 1+0.01: every search runs to its hard limit.
        // Below the reserve (L = clock - overhead under 200 ms) the hard
        // limit is 3 x (L/20 + 7 L/200) = 0.255 L, so the clock settles
        // where 0.255 L is the 10 ms increment: L = 39, a clock of 49 ms
        // (rounding down each term leaves it a little higher). It must
        // never run out, and stay above 40 ms.
        let (mut time, inc) = (1_000i64, 10);
        let mut lowest = time;
        for _ in 0..300 {
            let (_, hard) = budget(time, inc, None);
            time += inc - hard as i64;
            lowest = lowest.min(time);
        }
        assert!(lowest >= 40, "the clock fell to {lowest} ms");
        // A large increment, every search to its hard limit: the clock
        // settles where a third of it is the increment, and never runs low.
        let (mut time, inc) = (10_000i64, 3_000);
        for _ in 0..300 {
            let (_, hard) = budget(time, inc, None);
            time += inc - hard as i64;
            assert!(time >= 8_000, "the clock fell to {time} ms");
        }
        // Forty moves to the control, each to the hard limit: the clock
        // must last to the control.
        let mut time = 4_000i64;
        for moves_to_go in (1..=40).rev() {
            let (_, hard) = budget(time, 0, Some(moves_to_go));
            time -= hard as i64;
            assert!(time > 0, "out of time with {moves_to_go} moves to go");
        }
    }

    #[test]
    fn empty_or_negative_clock_still_moves() {
        let tm = TimeManager::new(&clock(-500, 0, None), 10);
        assert_eq!(tm.hard, Some(Duration::from_millis(1)));
        let tm = TimeManager::new(&Limits { movetime_ms: Some(0), ..Limits::default() }, 10);
        assert_eq!(tm.hard, Some(Duration::from_millis(1)));
        // A fixed time per move is used whole: no soft target.
        let tm = TimeManager::new(&Limits { movetime_ms: Some(3000), ..Limits::default() }, 10);
        assert_eq!((tm.soft, tm.hard), (None, Some(Duration::from_millis(2990))));
    }

    #[test]
    fn soft_target_stretches_with_unrest() {
        let calm = soft_scale_pct(10, -20, 90);
        let normal = soft_scale_pct(2, 0, 50);
        let restless = soft_scale_pct(0, 60, 20);
        assert!(calm < 100 && calm < normal && normal < restless, "{calm} {normal} {restless}");
        assert!((SOFT_SCALE_MIN_PCT..=SOFT_SCALE_MAX_PCT).contains(&calm));
        assert!((SOFT_SCALE_MIN_PCT..=SOFT_SCALE_MAX_PCT).contains(&restless));
        // The scale applies to the iteration check.
        let tm = TimeManager { soft: Some(Duration::from_millis(100)), hard: Some(Duration::from_secs(1)) };
        let start = Instant::now() - Duration::from_millis(80);
        assert!(tm.iteration_time_over(start, 100));
        assert!(!tm.iteration_time_over(start, 200));
    }

    #[test]
    fn infinite_and_depth_have_no_clock() {
        let tm = TimeManager::new(&Limits { infinite: true, ..clock(1000, 0, None) }, 10);
        assert_eq!(tm, TimeManager { soft: None, hard: None });
        assert_eq!(TimeManager::new(&Limits::depth(5), 10).hard, None);
    }
}
