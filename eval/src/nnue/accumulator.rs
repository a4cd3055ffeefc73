//! The accumulators along the search: one entry per ply, each computed for
//! a board lazily, when a node at that ply is evaluated.
//!
//! An entry is brought up to date from whichever nearby entry (this ply's,
//! the parent's or the grandparent's) differs from the board in the fewest
//! pieces, by diffing the twelve piece bitboards: every square that lost a
//! piece subtracts its row, every square that gained one adds its row.
//! That is exact for any pair of boards, so it needs no knowledge of the
//! move (castling in every Chess960 shape, en passant and promotions are
//! all just changed squares) and no invalidation by the search: a stale
//! source only costs a longer diff. Past [`REFRESH_AT`] changes the entry
//! is rebuilt instead, and so is a perspective whose rows changed
//! ([`Network::view`]: its king changed wings in a king-mirrored net, or
//! changed king bucket).
//!
//! A rebuild starts from the refresh cache (a "Finny table"): per view and
//! perspective, the accumulator of the last board rebuilt there, brought
//! to this board by the same diff. A king that steps back into a bucket it
//! left a few moves ago costs a few rows instead of every piece's.

use std::sync::Arc;

use shakmaty::{Board, Color, Piece};

use super::{Aligned, HIDDEN, INPUTS, Network, View, feature, simd};

/// More changed features than this, and a refresh is cheaper.
const REFRESH_AT: usize = 24;

/// Both perspectives' accumulators for one board.
#[derive(Clone)]
pub struct Accumulator {
    /// White's perspective, then Black's.
    pub values: [Aligned<[i16; HIDDEN]>; 2],
    /// The board they were computed for (`None`: not computed yet).
    board: Option<Board>,
}

impl Default for Accumulator {
    fn default() -> Accumulator {
        Accumulator { values: [Aligned([0; HIDDEN]), Aligned([0; HIDDEN])], board: None }
    }
}

/// One search thread's accumulators, indexed by ply.
pub struct AccumulatorStack {
    net: Arc<Network>,
    entries: Vec<Accumulator>,
    /// The refresh cache: `[view key][perspective]` ([`view_key`]).
    cache: Vec<[CachedRefresh; 2]>,
    /// Rebuilds served from the cache by a diff (for tests and profiles).
    cache_hits: u64,
}

/// One perspective's accumulator in one view, for the board it was last
/// rebuilt for (`None`: never).
#[derive(Clone)]
struct CachedRefresh {
    values: Aligned<[i16; HIDDEN]>,
    board: Option<Board>,
}

/// The refresh cache's index of `view`: its king bucket, then its wing.
fn view_key(view: View) -> usize {
    view.base / INPUTS * 2 + usize::from(view.mask != 0)
}

/// An empty refresh cache for `net`: a slot for each of its views.
fn empty_cache(net: &Network) -> Vec<[CachedRefresh; 2]> {
    let empty = CachedRefresh { values: Aligned([0; HIDDEN]), board: None };
    vec![[empty.clone(), empty]; net.king_buckets.count * 2]
}

/// `acc` (of one perspective, in `view`) with diff `d` applied; `side` 0 is
/// White's perspective, 1 Black's.
#[inline(always)]
fn apply_diff(acc: &mut [i16; HIDDEN], net: &Network, view: View, side: usize, d: &Diff) {
    let index = |f: usize| view.row(if side == 0 { f } else { mirrored(f) });
    for &f in &d.added[..d.adds] {
        simd::add(acc, &net.feature_weights[index(f)].0);
    }
    for &f in &d.removed[..d.removes] {
        simd::sub(acc, &net.feature_weights[index(f)].0);
    }
}

/// The features that differ between two boards (from White's perspective),
/// or `None` when there are more than [`REFRESH_AT`].
struct Diff {
    added: [usize; REFRESH_AT],
    removed: [usize; REFRESH_AT],
    adds: usize,
    removes: usize,
}

fn diff(from: &Board, to: &Board) -> Option<Diff> {
    let mut d = Diff { added: [0; REFRESH_AT], removed: [0; REFRESH_AT], adds: 0, removes: 0 };
    if ((from.occupied() ^ to.occupied()).count()) > REFRESH_AT {
        return None;
    }
    for color in Color::ALL {
        for role in shakmaty::Role::ALL {
            let piece = Piece { color, role };
            let (old, new) = (from.by_piece(piece), to.by_piece(piece));
            if old == new {
                continue;
            }
            for (squares, list, count) in
                [(old & !new, &mut d.removed, &mut d.removes), (new & !old, &mut d.added, &mut d.adds)]
            {
                for square in squares {
                    if *count == REFRESH_AT {
                        return None;
                    }
                    list[*count] = feature(Color::White, piece, square);
                    *count += 1;
                }
            }
        }
    }
    Some(d)
}

/// Black's-perspective index of a White's-perspective feature: the other
/// colour, the square flipped.
fn mirrored(feature: usize) -> usize {
    ((feature + 384) % 768) ^ 56
}

fn changes(from: &Board, to: &Board) -> usize {
    let mut total = 0;
    for color in Color::ALL {
        for role in shakmaty::Role::ALL {
            let piece = Piece { color, role };
            total += (from.by_piece(piece) ^ to.by_piece(piece)).count();
        }
    }
    total
}

impl AccumulatorStack {
    /// A stack for `plies` plies (the search's deepest ply plus one) evaluating with `net`.
    pub fn new(net: Arc<Network>, plies: usize) -> AccumulatorStack {
        let cache = empty_cache(&net);
        AccumulatorStack { net, entries: vec![Accumulator::default(); plies.max(1)], cache, cache_hits: 0 }
    }

    /// Switches to `net` (when `EvalFile` changed it); forgets every entry.
    pub fn set_network(&mut self, net: Arc<Network>) {
        if !Arc::ptr_eq(&self.net, &net) {
            self.cache = empty_cache(&net);
            self.net = net;
            self.entries.iter_mut().for_each(|e| e.board = None);
        }
    }

    /// The network this stack evaluates with.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// The evaluation of `board`, `turn` to move, at `ply`, in centipawns
    /// for the side to move.
    pub fn evaluate(&mut self, ply: usize, board: &Board, turn: Color) -> i32 {
        let ply = ply.min(self.entries.len() - 1);
        self.update(ply, board);
        let [white, black] = &self.entries[ply].values;
        let bucket = self.net.bucket(board);
        match turn {
            Color::White => self.net.output(&white.0, &black.0, bucket),
            Color::Black => self.net.output(&black.0, &white.0, bucket),
        }
    }

    /// The accumulators of `board` at `ply` (computed if needed).
    pub fn accumulator(&mut self, ply: usize, board: &Board) -> &Accumulator {
        let ply = ply.min(self.entries.len() - 1);
        self.update(ply, board);
        &self.entries[ply]
    }

    fn update(&mut self, ply: usize, board: &Board) {
        let best = (ply.saturating_sub(2)..=ply)
            .filter_map(|q| self.entries[q].board.as_ref().map(|b| (changes(b, board), q)))
            .min();
        match best {
            Some((0, q)) if q == ply => {}
            Some((_, q)) => {
                let from = self.entries[q].board.clone().expect("a computed entry");
                match diff(&from, board) {
                    Some(d) => self.apply(q, ply, &d, &from, board),
                    None => self.refresh(ply, board),
                }
            }
            None => self.refresh(ply, board),
        }
        self.entries[ply].board = Some(board.clone());
    }

    fn refresh(&mut self, ply: usize, board: &Board) {
        for side in 0..2 {
            self.rebuild(ply, side, board);
        }
    }

    /// Rebuilds one perspective (`side` 0 White's, 1 Black's) of entry
    /// `ply` for `board`: from the refresh cache's accumulator of its view
    /// by a diff, or from scratch when the cache has none or too far a
    /// board; the cache keeps the result.
    #[inline(never)]
    fn rebuild(&mut self, ply: usize, side: usize, board: &Board) {
        let perspective = Color::ALL[side];
        let view = self.net.view(board, perspective);
        let cached = &mut self.cache[view_key(view)][side];
        match cached.board.as_ref().and_then(|old| diff(old, board)) {
            Some(d) => {
                apply_diff(&mut cached.values.0, &self.net, view, side, &d);
                self.cache_hits += 1;
            }
            None => self.net.refresh(board, perspective, &mut cached.values.0),
        }
        cached.board = Some(board.clone());
        self.entries[ply].values[side].0 = cached.values.0;
    }

    /// Entry `to` (for `board`) = entry `from` (for `from_board`) with the
    /// diff applied; a perspective whose view changed is rebuilt.
    fn apply(&mut self, from: usize, to: usize, d: &Diff, from_board: &Board, board: &Board) {
        for (side, perspective) in Color::ALL.into_iter().enumerate() {
            let view = self.net.view(board, perspective);
            if view != self.net.view(from_board, perspective) {
                self.rebuild(to, side, board);
                continue;
            }
            let mut acc = self.entries[from].values[side].0;
            apply_diff(&mut acc, &self.net, view, side, d);
            self.entries[to].values[side].0 = acc;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::embedded;
    use backrank_util::position;
    use backrank_util::rng::SplitMix;
    use shakmaty::{Chess, Position, Square};

    #[test]
    fn mirrored_is_the_black_feature() {
        for f in 0..768 {
            let color = if f < 384 { Color::White } else { Color::Black };
            let role = shakmaty::Role::ALL[(f % 384) / 64];
            let square = Square::new((f % 64) as u32);
            let piece = Piece { color, role };
            assert_eq!(mirrored(feature(Color::White, piece, square)), feature(Color::Black, piece, square));
        }
    }

    #[test]
    fn incremental_equals_refresh_over_random_games_with_every_castle() {
        check_incremental_over_castling_suite(embedded());
    }

    #[test]
    fn incremental_equals_refresh_with_king_mirrored_inputs() {
        let mut net = (*embedded()).clone();
        net.king_mirrored = true;
        check_incremental_over_castling_suite(Arc::new(net));
    }

    #[test]
    fn incremental_equals_refresh_with_king_buckets() {
        for (count, king_mirrored) in [(2, true), (4, true), (4, false)] {
            let layout = crate::nnue::KingBuckets::standard(count).unwrap();
            let mut net = crate::nnue::with_king_buckets(&embedded(), layout);
            net.king_mirrored = king_mirrored;
            check_incremental_over_castling_suite(Arc::new(net));
        }
    }

    /// Random games from every position of the castling suite, special
    /// moves preferred, evaluated incrementally along a search-like walk of
    /// plies and compared with a refresh after every move.
    fn check_incremental_over_castling_suite(net: Arc<Network>) {
        let suite = include_str!("../../../tests/data/frc-castling-perft.epd");
        let (mut castles, mut en_passant, mut promotions, mut checked) = (0, 0, 0, 0);
        let (mut wing_changes, mut bucket_changes, mut cache_hits) = (0, 0, 0);
        let mut rng = SplitMix(7);
        for line in suite.lines().filter(|l| !l.is_empty()) {
            let fen = line.split(';').next().unwrap().trim();
            let mut pos = position(fen);
            let mut stack = AccumulatorStack::new(net.clone(), 16);
            let mut ply = 0usize;
            stack.evaluate(0, pos.board(), pos.turn());
            for _ in 0..24 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                // Special moves first when there are any, else any move.
                let special: Vec<_> =
                    moves.iter().filter(|m| m.is_castle() || m.is_en_passant() || m.is_promotion()).collect();
                let m = if !special.is_empty() && rng.next_u64().is_multiple_of(2) {
                    *special[rng.next_u64() as usize % special.len()]
                } else {
                    moves[rng.next_u64() as usize % moves.len()]
                };
                let views = |pos: &Chess| Color::ALL.map(|c| net.view(pos.board(), c));
                let before = views(&pos);
                castles += usize::from(m.is_castle());
                en_passant += usize::from(m.is_en_passant());
                promotions += usize::from(m.is_promotion());
                pos.play_unchecked(m);
                let after = views(&pos);
                wing_changes += usize::from(after.map(|v| v.mask) != before.map(|v| v.mask));
                bucket_changes += usize::from(after.map(|v| v.base) != before.map(|v| v.base));
                // Deeper by one, or back up a few plies (a sibling line), as a search goes.
                ply =
                    if rng.next_u64().is_multiple_of(4) { ply.saturating_sub(2) } else { (ply + 1).min(15) };
                let fast = stack.evaluate(ply, pos.board(), pos.turn());
                assert_eq!(fast, net.evaluate_board(pos.board(), pos.turn()), "{fen} after {m:?}");
                checked += 1;
            }
            cache_hits += stack.cache_hits;
        }
        assert!(castles >= 200 && en_passant >= 5 && promotions >= 5, "{castles} {en_passant} {promotions}");
        assert!(checked > 3000);
        // A king-mirrored net saw kings change wings (castles among them),
        // a bucketed one kings change buckets.
        assert_eq!(wing_changes > 100, net.king_mirrored, "{wing_changes} wing changes");
        assert_eq!(bucket_changes > 100, net.king_buckets.count > 1, "{bucket_changes} bucket changes");
        // Kings that come back to a view were rebuilt from the refresh
        // cache (and still equal a refresh, above).
        if net.king_mirrored || net.king_buckets.count > 1 {
            assert!(cache_hits > 20, "{cache_hits} rebuilds from the cache");
        }
    }

    #[test]
    fn incremental_equals_refresh_along_a_game_with_castling() {
        let net = embedded();
        let mut stack = AccumulatorStack::new(net.clone(), 8);
        let mut pos = position("1r2k1r1/pbppnp1p/1b3P2/8/Q7/B1PB1q2/P4PPP/3RK1R1 w GDgb - 0 1");
        let mut ply = 0;
        for _ in 0..40 {
            let moves = pos.legal_moves();
            let Some(m) = moves.iter().find(|m| m.is_castle()).or(moves.first()).copied() else { break };
            pos.play_unchecked(m);
            ply = (ply + 1) % 8;
            let fast = stack.evaluate(ply, pos.board(), pos.turn());
            assert_eq!(fast, net.evaluate_board(pos.board(), pos.turn()));
        }
    }
}
