//! Every tunable number of the search, in one place.

/// Nodes between two looks at the clock and the node limit.
pub const CHECK_EVERY_NODES: u64 = 1024;

/// Largest history value; gravity keeps entries within it.
pub const HISTORY_MAX: i32 = 16_384;
/// Cap of the depth-squared history bonus.
pub const HISTORY_BONUS_MAX: i32 = 1_600;

/// Null-move pruning: least depth, and reduction = base + depth / divisor
/// + (eval - beta) / eval divisor (at most 3 from the last term).
pub const NMP_MIN_DEPTH: i32 = 3;
pub const NMP_BASE_REDUCTION: i32 = 3;
pub const NMP_DEPTH_DIVISOR: i32 = 4;
pub const NMP_EVAL_DIVISOR: i32 = 200;

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
