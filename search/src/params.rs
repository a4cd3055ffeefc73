//! Every tunable number of the search, in one place.

use std::sync::LazyLock;

/// Nodes between two looks at the clock and the node limit.
pub const CHECK_EVERY_NODES: u64 = 1024;

/// Largest history value; gravity keeps entries within it.
pub const HISTORY_MAX: i32 = 16_384;
/// Cap of the depth-squared history bonus.
pub const HISTORY_BONUS_MAX: i32 = 1_600;

/// Aspiration windows: first depth, first half-width, and the half-width
/// past which the window opens fully.
pub const ASPIRATION_MIN_DEPTH: i32 = 5;
pub const ASPIRATION_DELTA: i32 = 25;
pub const ASPIRATION_MAX_DELTA: i32 = 800;

/// Reverse futility pruning: deepest node, and margin per ply of depth.
pub const RFP_MAX_DEPTH: i32 = 6;
pub const RFP_MARGIN: i32 = 90;

/// Null-move pruning: least depth, and reduction = base + depth / divisor
/// + (eval - beta) / eval divisor (at most 3 from the last term).
pub const NMP_MIN_DEPTH: i32 = 3;
pub const NMP_BASE_REDUCTION: i32 = 3;
pub const NMP_DEPTH_DIVISOR: i32 = 4;
pub const NMP_EVAL_DIVISOR: i32 = 200;

/// Late move reductions: least depth, moves searched before reducing, and
/// how much history buys back a ply.
pub const LMR_MIN_DEPTH: i32 = 3;
pub const LMR_MIN_MOVES: usize = 3;
pub const LMR_HISTORY_DIVISOR: i32 = 16_384;
/// Base reduction: LMR_BASE + ln(depth) * ln(move number) / LMR_DIVISOR.
const LMR_BASE: f64 = 0.75;
const LMR_DIVISOR: f64 = 2.25;

static LMR_TABLE: LazyLock<[[i32; 64]; 64]> = LazyLock::new(|| {
    let mut table = [[0; 64]; 64];
    for (depth, row) in table.iter_mut().enumerate().skip(1) {
        for (moves, cell) in row.iter_mut().enumerate().skip(1) {
            *cell = (LMR_BASE + (depth as f64).ln() * (moves as f64).ln() / LMR_DIVISOR) as i32;
        }
    }
    table
});

/// The late-move reduction of the move at `index` (0-based) at `depth`.
pub fn lmr_reduction(depth: i32, index: usize) -> i32 {
    LMR_TABLE[(depth as usize).min(63)][index.min(63)]
}

/// Late move pruning: deepest node; quiet moves tried before the rest are
/// skipped (half as many when the evaluation is not improving).
pub const LMP_MAX_DEPTH: i32 = 7;
pub const fn lmp_limit(depth: i32, improving: bool) -> usize {
    ((3 + depth * depth) / if improving { 1 } else { 2 }) as usize
}

/// Razoring: deepest node, and the margin base + per squared ply of depth.
pub const RAZOR_MAX_DEPTH: i32 = 3;
pub const RAZOR_BASE: i32 = 300;
pub const RAZOR_MARGIN: i32 = 250;

/// Singular extensions: least depth; how much shallower the table entry
/// may be; the margin below its score, per ply of depth.
pub const SE_MIN_DEPTH: i32 = 7;
pub const SE_TT_DEPTH_MARGIN: i32 = 3;
pub const SE_MARGIN: i32 = 2;

/// Internal iterative reduction: least depth.
pub const IIR_MIN_DEPTH: i32 = 4;

/// SEE pruning: deepest node; a quiet move may lose this much per ply of
/// depth, a capture this much per squared ply, before it is skipped.
pub const SEE_PRUNE_MAX_DEPTH: i32 = 8;
pub const SEE_QUIET_MARGIN: i32 = 60;
pub const SEE_NOISY_MARGIN: i32 = 20;

/// Futility pruning: deepest node, and the margin base + per ply of depth.
pub const FP_MAX_DEPTH: i32 = 6;
pub const FP_BASE: i32 = 100;
pub const FP_MARGIN: i32 = 80;

/// Time management: moves assumed left in sudden death.
pub const DEFAULT_MOVES_TO_GO: i64 = 25;
/// Share of the increment spent on this move, in percent.
pub const INCREMENT_SHARE_PCT: i64 = 75;
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
/// the next one would take several times as long as the last.
pub const NEW_ITERATION_PCT: u32 = 60;
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
