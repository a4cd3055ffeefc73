//! The search's tunable numbers.
//!
//! Every number that pruning, reductions, extensions, move ordering, the
//! exchange values and the correction histories use is a [`Tunable`],
//! declared once below with its range. The constants after them are not
//! tuned at fixed nodes: the time manager's (a clock decides them), the
//! threads' vote, and structural bounds (the table's check interval, the
//! history cap, the deepest extended ply). In the plain
//! build each is a constant (`RFP_MARGIN.get()` compiles to the number).
//! With the cargo feature `spsa` each becomes a UCI spin option that
//! changes the search, and `backrank spsa` prints them in OpenBench's SPSA
//! input format, so that they can be tuned on a distributed SPSA instance.
//!
//! The defaults of the continuous tunables (margins, weights, scales) are
//! SPSA run2's end values (`search/spsa/README.md`: 24,000 games at
//! 10,000 nodes a move, net v2s, starting from run1's values), kept by an
//! SPRT against run1's at 8+0.08, `--sprt 0 5`, in five sittings:
//! `Elo: +12.8 +/- 8.1, LOS: 99.9%, LLR: 3.01 [-2.94, 2.94]` over 2,422
//! games (net v2s). Run1's own SPRT against the hand-set values was
//! `Elo: +30.6 +/- 13.0` over 944 games. The depth limits, move counts and
//! ply reductions are still set by hand: run2's values for them, tuned in
//! 8-ply trees, lost at a clock.

#[cfg(not(feature = "spsa"))]
use std::sync::LazyLock;
#[cfg(feature = "spsa")]
use std::sync::atomic::{AtomicI32, Ordering};

/// Nodes between two looks at the clock and the node limit.
pub const CHECK_EVERY_NODES: u64 = 1024;

/// Largest history value; gravity keeps entries within it.
pub const HISTORY_MAX: i32 = 16_384;

/// One tunable search parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tunable {
    pub name: &'static str,
    index: usize,
    pub default: i32,
    pub min: i32,
    pub max: i32,
}

impl Tunable {
    /// The value in force: the default in the plain build.
    #[cfg(not(feature = "spsa"))]
    #[inline(always)]
    pub const fn get(self) -> i32 {
        self.default
    }

    /// The value in force, as last set by its UCI option.
    #[cfg(feature = "spsa")]
    #[inline(always)]
    pub fn get(self) -> i32 {
        VALUES[self.index].load(Ordering::Relaxed)
    }

    /// Sets the value (clamped to the range); only the `spsa` build can.
    #[cfg(feature = "spsa")]
    pub fn set(self, value: i32) {
        VALUES[self.index].store(value.clamp(self.min, self.max), Ordering::Relaxed);
    }

    /// The line OpenBench's SPSA reads: `NAME, int, VALUE, MIN, MAX, C_END, R_END`,
    /// with the final step a twentieth of the range and R_END 0.002.
    pub fn spsa_line(self) -> String {
        let c_end = (f64::from(self.max - self.min) / 20.0).max(0.5);
        format!("{}, int, {}, {}, {}, {c_end}, 0.002", self.name, self.get(), self.min, self.max)
    }
}

/// Declares the tunables: `NAME = default, min..=max;` with its doc comment.
macro_rules! tunables {
    ($($(#[doc = $doc:literal])* $name:ident = $default:literal, $min:literal..=$max:literal;)*) => {
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        enum Index { $($name),* }
        $(
            $(#[doc = $doc])*
            pub const $name: Tunable =
                Tunable { name: stringify!($name), index: Index::$name as usize, default: $default, min: $min, max: $max };
        )*
        /// Every tunable, in declaration order.
        pub const TUNABLES: &[Tunable] = &[$($name),*];
        #[cfg(feature = "spsa")]
        static VALUES: [AtomicI32; TUNABLES.len()] = [$(AtomicI32::new($default)),*];
    };
}

tunables! {
    /// The history bonus: this times depth squared, up to the cap (at most
    /// `HISTORY_MAX`, which keeps gravity's update within bounds).
    HISTORY_BONUS_SCALE = 38, 4..=64;
    HISTORY_BONUS_MAX = 4162, 400..=8192;
    /// Move ordering: a capture's victim (and promotion) value is scaled
    /// by this, its capture history divided by the next.
    CAPTURE_MVV_SCALE = 21, 4..=64;
    CAPTURE_HISTORY_DIVISOR = 7, 1..=32;
    /// Transposition table: an entry of the same position is replaced by a
    /// search at most this much shallower.
    TT_REPLACE_DEPTH_MARGIN = 2, 0..=6;
    /// Transposition table: a new position evicts the bucket's entry of
    /// least depth, less this much per search of the entry's age.
    TT_AGE_WEIGHT = 9, 1..=32;
    /// Aspiration windows: first depth and first half-width.
    ASPIRATION_MIN_DEPTH = 5, 2..=8;
    ASPIRATION_DELTA = 10, 8..=80;
    /// Reverse futility pruning: deepest node, and margin per ply of depth.
    RFP_MAX_DEPTH = 6, 3..=10;
    RFP_MARGIN = 54, 30..=180;
    /// Null-move pruning: least depth, and reduction = base + depth / divisor
    /// + (eval - beta) / eval divisor (at most 3 from the last term).
    NMP_MIN_DEPTH = 3, 1..=6;
    NMP_BASE_REDUCTION = 3, 1..=6;
    NMP_DEPTH_DIVISOR = 4, 2..=8;
    NMP_EVAL_DIVISOR = 203, 80..=400;
    NMP_EVAL_MAX_REDUCTION = 3, 1..=6;
    /// Late move reductions: least depth, moves searched before reducing,
    /// and how much history buys back a ply.
    LMR_MIN_DEPTH = 3, 1..=6;
    LMR_MIN_MOVES = 3, 1..=6;
    LMR_HISTORY_DIVISOR = 13643, 4096..=32768;
    /// Base reduction: LMR_BASE / 100 + ln(depth) * ln(move number) / (LMR_DIVISOR / 100).
    LMR_BASE = 84, 0..=200;
    LMR_DIVISOR = 172, 150..=400;
    /// Late move pruning: deepest node.
    LMP_MAX_DEPTH = 7, 3..=12;
    /// Razoring: deepest node, and the margin base + per squared ply of depth.
    RAZOR_MAX_DEPTH = 3, 1..=6;
    RAZOR_BASE = 365, 100..=600;
    RAZOR_MARGIN = 316, 80..=500;
    /// Singular extensions: least depth; how much shallower the table entry
    /// may be; the margin below its score, per ply of depth.
    SE_MIN_DEPTH = 7, 4..=12;
    SE_TT_DEPTH_MARGIN = 3, 1..=6;
    SE_MARGIN = 2, 1..=6;
    /// Double extensions: how far below the singular bound the other moves
    /// must stay, and how many a line may have.
    SE_DOUBLE_MARGIN = 14, 0..=80;
    SE_DOUBLE_MAX = 6, 0..=16;
    /// Internal iterative reduction: least depth.
    IIR_MIN_DEPTH = 4, 2..=8;
    /// SEE pruning: deepest node; a quiet move may lose this much per ply of
    /// depth, a capture this much per squared ply, before it is skipped.
    SEE_PRUNE_MAX_DEPTH = 8, 3..=12;
    SEE_QUIET_MARGIN = 64, 20..=150;
    SEE_NOISY_MARGIN = 24, 5..=60;
    /// Quiescence delta pruning: a capture is skipped when the static
    /// evaluation plus its victim plus this margin stays at or below alpha.
    QS_DELTA_MARGIN = 333, 50..=500;
    /// Futility pruning: deepest node, and the margin base + per ply of depth.
    FP_MAX_DEPTH = 6, 3..=10;
    FP_BASE = 83, 30..=250;
    FP_MARGIN = 105, 30..=200;
    /// Tablebase results are exact: they are stored as if searched this much deeper.
    TB_DEPTH_BONUS = 6, 0..=12;
    /// Correction histories: the weight, in 64ths, of the pawn table's
    /// correction and of each side's non-pawn table's (64 in all would be
    /// the tables' average; SPSA run2 chose 78).
    CORRECTION_PAWN_WEIGHT = 36, 0..=96;
    CORRECTION_NON_PAWN_WEIGHT = 21, 0..=48;
    /// Correction histories: the largest correction an entry may hold,
    /// centipawns; a search result further than the next from the static
    /// evaluation counts as that far (a tactic, not a misjudged structure);
    /// the heaviest weight of one update, in 256ths. (Entries are `i16`s of
    /// 256ths of a centipawn: the limit stays below 128.)
    CORRECTION_LIMIT = 106, 32..=127;
    CORRECTION_MAX_DIFF = 404, 100..=800;
    CORRECTION_MAX_WEIGHT = 11, 4..=64;
    /// From this fifty-move counter on, a table result no longer ends a
    /// node (as in Stockfish, 90): the stored result may come from a path
    /// on which the rule did not bind.
    TT_FIFTY_MOVE_GUARD = 90, 60..=99;
    /// Late move pruning: quiet moves tried before the rest are skipped,
    /// this plus depth squared, and this share of it (percent) when the
    /// evaluation is not improving.
    LMP_BASE = 3, 0..=10;
    LMP_NOT_IMPROVING_PCT = 60, 20..=100;
    /// Late move reductions: a ply less at PV nodes, a ply more when the
    /// evaluation is not improving.
    LMR_PV_REDUCTION = 1, 0..=3;
    LMR_NOT_IMPROVING_REDUCTION = 1, 0..=3;
    /// Aspiration windows: the half-width past which the window opens fully.
    ASPIRATION_MAX_DELTA = 800, 200..=2000;
    /// The search's piece values, in centipawns: for exchanges (SEE),
    /// capture ordering and delta pruning.
    SEE_PAWN_VALUE = 107, 60..=150;
    SEE_KNIGHT_VALUE = 311, 200..=450;
    SEE_BISHOP_VALUE = 317, 200..=450;
    SEE_ROOK_VALUE = 527, 350..=700;
    SEE_QUEEN_VALUE = 1059, 700..=1300;
}

/// Extensions stop two thirds of the way to the deepest ply, so that
/// extended lines cannot run into it.
pub const EXTENSION_MAX_PLY: usize = 2 * crate::score::MAX_PLY / 3;

fn lmr_formula(depth: usize, moves: usize) -> i32 {
    if depth == 0 || moves == 0 {
        return 0;
    }
    let base = f64::from(LMR_BASE.get()) / 100.0;
    let divisor = f64::from(LMR_DIVISOR.get()) / 100.0;
    (base + (depth as f64).ln() * (moves as f64).ln() / divisor) as i32
}

#[cfg(not(feature = "spsa"))]
static LMR_TABLE: LazyLock<[[i32; 64]; 64]> =
    LazyLock::new(|| std::array::from_fn(|depth| std::array::from_fn(|moves| lmr_formula(depth, moves))));

/// The late-move reduction of the move at `index` (0-based) at `depth`.
#[cfg(not(feature = "spsa"))]
pub fn lmr_reduction(depth: i32, index: usize) -> i32 {
    LMR_TABLE[(depth as usize).min(63)][index.min(63)]
}

/// The late-move reduction of the move at `index` (0-based) at `depth`
/// (computed each time, since the `spsa` build may change its terms).
#[cfg(feature = "spsa")]
pub fn lmr_reduction(depth: i32, index: usize) -> i32 {
    lmr_formula((depth as usize).min(63), index.min(63))
}

/// Late move pruning: quiet moves tried before the rest are skipped (fewer
/// when the evaluation is not improving).
pub fn lmp_limit(depth: i32, improving: bool) -> usize {
    let moves = LMP_BASE.get() + depth * depth;
    (if improving { moves } else { moves * LMP_NOT_IMPROVING_PCT.get() / 100 }) as usize
}

/// The tunable called `name` (any case).
pub fn tunable(name: &str) -> Option<Tunable> {
    TUNABLES.iter().copied().find(|t| t.name.eq_ignore_ascii_case(name))
}

/// Time management: moves assumed left in sudden death. 20 (was 25)
/// together with [`NEW_ITERATION_PCT`] 75 (was 60): about a sixth more
/// time a move over the first 40 moves, a quarter more over the first 20
/// (Ethereal 12 spent 22% more than the old manager at 10+0.1).
/// `Elo: +17.4 +/- 12.6` (net v2p, 4+0.04, SPRT [0, 10], H1 after 1,098
/// games).
pub const DEFAULT_MOVES_TO_GO: i64 = 20;
/// Share of the increment spent on this move, in percent...
pub const INCREMENT_SHARE_PCT: i64 = 75;
/// ...once the clock (less the move overhead) holds this many
/// milliseconds; below it the share shrinks in proportion, so that a low
/// clock climbs back from the increment and one stall of the machine or the
/// GUI (tens of milliseconds on a loaded box) does not flag. Without it,
/// 1+0.01 games settled at 20-40 ms. An absolute margin, not a count of
/// increments: 20 increments starved large increments (10+3 spent a sixth
/// of the increment, so the clock only grew).
pub const CLOCK_RESERVE_MS: i64 = 200;
/// The soft target never exceeds this share of the clock, in percent, so
/// that a low clock rebuilds itself from the increment...
pub const SOFT_MAX_PCT: i64 = 25;
/// ...except on the last move before a time control (`movestogo 1`).
pub const SOFT_MAX_LAST_MOVE_PCT: i64 = 50;
/// The hard limit is this many soft targets...
pub const HARD_PER_SOFT: i64 = 3;
/// ...but never more than this share of the clock, in percent...
pub const HARD_MAX_PCT: i64 = 33;
/// ...or this share on the last move before a time control.
pub const HARD_MAX_LAST_MOVE_PCT: i64 = 70;
/// No new iteration starts after this share of the soft target, in percent:
/// the next one would take several times as long as the last. Measured
/// with [`DEFAULT_MOVES_TO_GO`] (see there).
pub const NEW_ITERATION_PCT: u32 = 75;
/// The soft target's stretch (see `limits::soft_scale_pct`), in percent:
/// by iterations in a row with the same best move...
pub const STABILITY_SCALE_PCT: [u32; 7] = [150, 125, 110, 100, 90, 85, 80];
/// ...up to this much more after a score drop (a centipawn a percent)...
pub const SCORE_DROP_MAX_PCT: i32 = 50;
/// ...and this many percent minus the best move's share of the nodes,
/// within bounds. The base is set so that the scaled manager spends as
/// much time per move on average as the unscaled one (150 game positions:
/// 85 against 82 ms at 2 s for 20 moves, 236 against 240 ms at 6+0.08; with
/// a base of 160 it spent 13% less and did not pass its SPRT)...
pub const NODE_SHARE_BASE_PCT: u32 = 180;
/// Bounds of the node-share factor.
pub const NODE_SHARE_MIN_PCT: u32 = 60;
pub const NODE_SHARE_MAX_PCT: u32 = 140;
/// ...all together within these bounds.
pub const SOFT_SCALE_MIN_PCT: u32 = 40;
pub const SOFT_SCALE_MAX_PCT: u32 = 250;

/// Lazy SMP: a thread's vote for its best move weighs its depth times its
/// score above the worst thread's plus this many centipawns (so that the
/// worst thread still counts).
pub const VOTE_SCORE_OFFSET: i32 = 14;

/// `info currmove` lines start after the search has run this long.
pub const CURRMOVE_AFTER_MS: u64 = 3000;

#[cfg(test)]
mod tunable_tests {
    use super::*;

    #[test]
    fn tunables_are_named_once_and_within_their_ranges() {
        assert!(TUNABLES.len() >= 20);
        for (i, t) in TUNABLES.iter().enumerate() {
            assert!(t.min <= t.default && t.default <= t.max, "{}", t.name);
            assert_eq!(tunable(&t.name.to_lowercase()), Some(*t));
            assert!(TUNABLES[..i].iter().all(|other| other.name != t.name));
        }
        assert_eq!(
            RFP_MARGIN.spsa_line(),
            format!("RFP_MARGIN, int, {}, 30, 180, 7.5, 0.002", RFP_MARGIN.default)
        );
    }

    /// Entries of the reduction table worked out by hand from its
    /// documented formula at SPSA run2's values, 0.84 + ln(depth) x
    /// ln(move) / 1.72 rounded down, with the move's 0-based index as
    /// `move` (new tuned values mean working them out again). The formula
    /// is symmetric in depth and move, so a transposed table cannot be told
    /// apart; the uneven points below catch a move or a depth counted from
    /// one instead, a logarithm to another base, rounding instead of
    /// truncation, a lost clamp and the hand-set values (0.75, 2.25).
    #[test]
    fn lmr_table_matches_hand_worked_entries() {
        assert_eq!((LMR_BASE.get(), LMR_DIVISOR.get()), (84, 172), "work the entries out again");
        // ln 8 = 2.0794, ln 3 = 1.0986: 0.84 + 2.2845 / 1.72 = 2.168 (the
        // hand-set values gave 1).
        assert_eq!(lmr_reduction(8, 3), 2);
        assert_eq!(lmr_reduction(3, 8), 2);
        // ln 4 = 1.3863, ln 7 = 1.9459: 0.84 + 2.6976 / 1.72 = 2.408.
        assert_eq!(lmr_reduction(4, 7), 2);
        assert_eq!(lmr_reduction(7, 4), 2);
        // ln 2 = 0.6931: 0.84 + 0.4805 / 1.72 = 1.119 (the hand-set values
        // gave 0).
        assert_eq!(lmr_reduction(2, 2), 1);
        // ln 12 = 2.4849: 0.84 + 1.7224 / 1.72 = 1.841 (move 3 or rounding
        // would give 2).
        assert_eq!(lmr_reduction(12, 2), 1);
        // ln 10 = 2.3026: 0.84 + 5.3019 / 1.72 = 3.922 (rounding would give
        // 4, log2 7).
        assert_eq!(lmr_reduction(10, 10), 3);
        // ln 6 = 1.7918, ln 40 = 3.6889: 0.84 + 6.6096 / 1.72 = 4.683
        // (rounding would give 5).
        assert_eq!(lmr_reduction(6, 40), 4);
        assert_eq!(lmr_reduction(40, 6), 4);
        // ln 30 = 3.4012, ln 3 = 1.0986: 0.84 + 3.7366 / 1.72 = 3.012.
        assert_eq!(lmr_reduction(30, 3), 3);
        // ln 1 = 0: only the base, 0.84, which rounds down to nothing; the
        // first move (index 0) is never reduced.
        assert_eq!(lmr_reduction(30, 1), 0);
        assert_eq!(lmr_reduction(1, 30), 0);
        assert_eq!(lmr_reduction(30, 0), 0);
        // Depth and index are clamped to 63: ln 63 = 4.1431,
        // 0.84 + 17.1656 / 1.72 = 10.820.
        assert_eq!(lmr_reduction(63, 63), 10);
        assert_eq!(lmr_reduction(200, 500), 10);
        assert_eq!(lmr_reduction(63, 200), 10);
    }
}

/// Run alone (`cargo test -p backrank-search --features spsa -- spsa_`):
/// it changes values that every search in the process reads.
#[cfg(all(test, feature = "spsa"))]
mod spsa_tests {
    use super::*;
    use crate::{Limits, Search, Signals};

    /// The tests here change values every search reads: one at a time.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn spsa_every_tunable_is_safe_at_both_ends_of_its_range() {
        let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let positions = [
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/8/3bk3/8/8/8/3RK3/4R3 b - - 0 1",
            "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1",
        ]
        .map(backrank_util::position);
        let limits = Limits { depth: Some(9), nodes: Some(20_000), ..Limits::default() };
        for t in TUNABLES {
            for value in [t.min, t.max] {
                t.set(value);
                for pos in &positions {
                    let mut search = Search::new(1, 1).unwrap();
                    let result = search.go(pos, &[], &limits, &Signals::default(), |_| {});
                    let best = result.best.unwrap_or_else(|| panic!("{} = {value}: no move", t.name));
                    assert!(shakmaty::Position::is_legal(pos, best), "{} = {value}", t.name);
                }
            }
            t.set(t.default);
        }
    }

    #[test]
    fn spsa_setting_tunables_changes_the_search() {
        let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let pos =
            backrank_util::position("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
        let nodes = || {
            let mut search = Search::new(1, 1).unwrap();
            search.go(&pos, &[], &Limits::depth(9), &Signals::default(), |_| {}).report.nodes
        };
        let before = nodes();
        // One tunable at a time, each back to its default before the next:
        // each alone changes the tree searched (which way depends on the
        // position), and the default brings the same tree back.
        RFP_MARGIN.set(170);
        assert_eq!(RFP_MARGIN.get(), 170);
        let rfp = nodes();
        RFP_MARGIN.set(RFP_MARGIN.default);
        assert_ne!(rfp, before, "RFP_MARGIN 170 searched the same {before} nodes");
        assert_eq!(nodes(), before);
        LMR_BASE.set(150);
        assert_eq!(LMR_BASE.get(), 150);
        let lmr = nodes();
        LMR_BASE.set(LMR_BASE.default);
        assert_ne!(lmr, before, "LMR_BASE 150 searched the same {before} nodes");
        assert_eq!(nodes(), before);
        RFP_MARGIN.set(10_000);
        assert_eq!(RFP_MARGIN.get(), RFP_MARGIN.max);
        RFP_MARGIN.set(RFP_MARGIN.default);
    }
}
