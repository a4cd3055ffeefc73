//! Move ordering: a staged picker over the node's legal moves (generated
//! once, by shakmaty). Each stage scores its moves only when it is reached,
//! so a cut-off by the table move or a good capture costs no quiet-move
//! scoring, and moves are handed out best first by selection, since a
//! cut-off usually comes early.
//!
//! Stages:
//! 1. the transposition-table move;
//! 2. captures and queen promotions that do not lose material (by static
//!    exchange), by most valuable victim, then capture history;
//! 3. quiet moves: the two killers, the countermove, then the rest by
//!    butterfly plus continuation history;
//! 4. losing captures and under-promotions.

use crate::params::{CAPTURE_HISTORY_DIVISOR, CAPTURE_MVV_SCALE};
use std::mem::MaybeUninit;

use shakmaty::{Chess, Move, MoveList, Position, Role};

use crate::history::{Histories, Line};
use crate::see::{piece_value, see_ge};
use crate::tt::is_packed;

const GOOD_NOISY: i32 = 1 << 24;
const KILLER: [i32; 2] = [1 << 22, (1 << 22) - 1];
const COUNTERMOVE: i32 = (1 << 22) - 2;

/// True for a move that changes material: a capture or a promotion.
pub fn is_noisy(m: Move) -> bool {
    m.is_capture() || m.promotion().is_some()
}

/// Most valuable victim first, then capture history (whose range is
/// smaller than the gap between two victims); negative when the exchange
/// loses material or the move under-promotes.
fn noisy_score(pos: &Chess, m: Move, histories: &Histories) -> i32 {
    let victim = m.capture().map_or(0, piece_value);
    let promotion = m.promotion().map_or(0, |role| piece_value(role) - piece_value(Role::Pawn));
    // Under-promotions are rarely better than the queen: order them last.
    let under = matches!(m.promotion(), Some(role) if role != Role::Queen);
    let score = CAPTURE_MVV_SCALE.get() * (victim + promotion)
        + histories.capture(pos.turn(), m) / CAPTURE_HISTORY_DIVISOR.get();
    if under || !see_ge(pos, m, 0) { -GOOD_NOISY + score } else { GOOD_NOISY + score }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    TableMove,
    ScoreNoisy,
    GoodNoisy,
    ScoreQuiets,
    Quiets,
    BadNoisy,
    Done,
}

/// Hands out the moves of one node in order. The moves are kept as
/// `[table move][noisy moves][quiet moves]`; each stage selects within its
/// part.
pub struct MovePicker<'a> {
    pos: &'a Chess,
    line: Line,
    /// The node's own list, reordered in place (borrowed, not moved: a
    /// list is over a kilobyte).
    moves: &'a mut MoveList,
    /// Scores of the moves; each stage writes those of its part before it
    /// reads them (see [`MovePicker::score`]).
    scores: [MaybeUninit<i32>; 256],
    stage: Stage,
    /// Next noisy move to hand out (good ones first, then the bad ones).
    noisy_next: usize,
    /// End of the noisy part, start of the quiet part.
    noisy_end: usize,
    quiet_next: usize,
}

impl<'a> MovePicker<'a> {
    /// A picker over `moves` of `pos`, the node `line`, whose table move
    /// is `tt_move` (0 for none).
    pub fn new(pos: &'a Chess, moves: &'a mut MoveList, tt_move: u16, line: Line) -> Self {
        let mut start = 0;
        if let Some(i) = moves.iter().position(|&m| is_packed(m, tt_move)) {
            moves.swap(0, i);
            start = 1;
        }
        let mut noisy_end = start;
        for i in start..moves.len() {
            if is_noisy(moves[i]) {
                moves.swap(noisy_end, i);
                noisy_end += 1;
            }
        }
        MovePicker {
            pos,
            line,
            moves,
            // Not zeroed: a kilobyte per node adds up.
            scores: [MaybeUninit::uninit(); 256],
            stage: if start == 1 { Stage::TableMove } else { Stage::ScoreNoisy },
            noisy_next: start,
            noisy_end,
            quiet_next: noisy_end,
        }
    }

    /// Hands out no more quiet moves (those not handed out yet are
    /// dropped); the losing captures still follow.
    pub fn skip_quiets(&mut self) {
        self.quiet_next = self.moves.len();
        if matches!(self.stage, Stage::ScoreQuiets | Stage::Quiets) {
            self.stage = Stage::BadNoisy;
        }
    }

    /// The next move, or `None` when all have been handed out.
    /// `histories` is passed on each call, not kept, so that the search may
    /// update it between calls.
    pub fn next(&mut self, histories: &Histories) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TableMove => {
                    self.stage = Stage::ScoreNoisy;
                    return Some(self.moves[0]);
                }
                Stage::ScoreNoisy => {
                    for i in self.noisy_next..self.noisy_end {
                        self.scores[i] = MaybeUninit::new(noisy_score(self.pos, self.moves[i], histories));
                    }
                    self.stage = Stage::GoodNoisy;
                }
                Stage::GoodNoisy => {
                    if self.noisy_next < self.noisy_end {
                        let best = self.select(self.noisy_next, self.noisy_end);
                        if self.score(best) > 0 {
                            return Some(self.take(best, self.noisy_next, true));
                        }
                    }
                    self.stage = Stage::ScoreQuiets;
                }
                Stage::ScoreQuiets => {
                    self.score_quiets(histories);
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => {
                    if self.quiet_next < self.moves.len() {
                        let best = self.select(self.quiet_next, self.moves.len());
                        return Some(self.take(best, self.quiet_next, false));
                    }
                    self.stage = Stage::BadNoisy;
                }
                Stage::BadNoisy => {
                    if self.noisy_next < self.noisy_end {
                        let best = self.select(self.noisy_next, self.noisy_end);
                        return Some(self.take(best, self.noisy_next, true));
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }

    fn score_quiets(&mut self, histories: &Histories) {
        let killers = histories.killers(self.line.ply);
        let countermove = histories.countermove(&self.line);
        for i in self.quiet_next..self.moves.len() {
            let m = self.moves[i];
            let score = if killers[0] == Some(m) {
                KILLER[0]
            } else if killers[1] == Some(m) {
                KILLER[1]
            } else if countermove == Some(m) {
                COUNTERMOVE
            } else {
                histories.quiet(&self.line, m)
            };
            self.scores[i] = MaybeUninit::new(score);
        }
    }

    /// True when the move last handed out came from the stage of captures
    /// and queen promotions that do not lose material: its exchange is
    /// known to be at least even, with no need to evaluate it again.
    pub fn last_was_good_noisy(&self) -> bool {
        self.stage == Stage::GoodNoisy
    }

    /// True when the move last handed out is a losing capture or an
    /// under-promotion (the last stage).
    pub fn last_was_bad_noisy(&self) -> bool {
        self.stage == Stage::BadNoisy
    }

    /// The score of the move at `i`.
    fn score(&self, i: usize) -> i32 {
        // Safety: `i` lies in the part of the current stage, and every
        // stage that selects (GoodNoisy, Quiets, BadNoisy) comes after the
        // scoring stage of its part (ScoreNoisy, ScoreQuiets), which wrote
        // every score of that part; swaps keep scores within their part.
        // `skip_quiets` only ever empties the quiet part.
        unsafe { self.scores[i].assume_init() }
    }

    /// The index of the best-scored move in `from..to` (the first of equals).
    fn select(&self, from: usize, to: usize) -> usize {
        let mut best = from;
        for i in from + 1..to {
            if self.score(i) > self.score(best) {
                best = i;
            }
        }
        best
    }

    /// Moves `best` to `slot`, the front of its part, and advances that part.
    fn take(&mut self, best: usize, slot: usize, noisy: bool) -> Move {
        self.moves.swap(slot, best);
        self.scores.swap(slot, best);
        if noisy {
            self.noisy_next += 1;
        } else {
            self.quiet_next += 1;
        }
        self.moves[slot]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tt::pack_move;

    use backrank_util::position;

    fn picked(pos: &Chess, tt_move: u16, histories: &Histories) -> Vec<Move> {
        let line = Line { side: pos.turn(), ply: 0, previous: [None; 3] };
        let mut moves = pos.legal_moves();
        let mut picker = MovePicker::new(pos, &mut moves, tt_move, line);
        std::iter::from_fn(|| picker.next(histories)).collect()
    }

    #[test]
    fn order_is_tt_then_good_captures_then_quiets_then_bad_captures() {
        // White can take the queen with a pawn (exd5) or a knight (Nxd5),
        // and a defended pawn with the rook (Rxa6, losing the exchange).
        let pos = position("4k3/1p6/p7/3q4/4P3/2N5/8/R3K3 w - - 0 1");
        let moves = pos.legal_moves();
        let quiet = *moves.iter().find(|m| !m.is_capture() && m.role() == Role::King).unwrap();
        let order = picked(&pos, pack_move(quiet), &Histories::default());
        assert_eq!(order.len(), moves.len());
        assert!(moves.iter().all(|m| order.contains(m)));
        assert_eq!(order[0], quiet);
        let queen_takers: Vec<Role> = order[1..3].iter().map(|m| m.role()).collect();
        assert!(order[1..3].iter().all(|m| m.capture() == Some(Role::Queen)), "{queen_takers:?}");
        let last = *order.last().unwrap();
        assert!(last.is_capture() && last.role() == Role::Rook, "{last}");
        assert!(order[3..order.len() - 1].iter().all(|m| !m.is_capture()));
    }

    #[test]
    fn killers_come_before_other_quiets_and_history_orders_the_rest() {
        let pos = Chess::default();
        let mut histories = Histories::default();
        let moves = pos.legal_moves();
        let find = |text: &str| *moves.iter().find(|m| m.to_string() == text).unwrap();
        let line = Line { side: pos.turn(), ply: 0, previous: [None; 3] };
        histories.remember_refutation(&line, find("Nb1-c3"));
        histories.update_quiet(&line, find("g2-g3"), 500);
        histories.update_quiet(&line, find("h2-h3"), -500);
        let order = picked(&pos, 0, &histories);
        assert_eq!(order[0], find("Nb1-c3"));
        assert_eq!(order[1], find("g2-g3"));
        assert_eq!(*order.last().unwrap(), find("h2-h3"));
    }
}
