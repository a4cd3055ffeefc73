//! Move-ordering memory of one search thread: killer moves per ply and a
//! butterfly history of quiet moves (side, from, to).

use shakmaty::{Color, Move};

use crate::params::{HISTORY_BONUS_MAX, HISTORY_MAX};
use crate::score::MAX_PLY;

/// Killers and history of one thread.
pub struct Histories {
    killers: [[Option<Move>; 2]; MAX_PLY + 1],
    butterfly: Box<[[[i32; 64]; 64]; 2]>,
}

impl Default for Histories {
    fn default() -> Self {
        Histories { killers: [[None; 2]; MAX_PLY + 1], butterfly: Box::new([[[0; 64]; 64]; 2]) }
    }
}

/// The history bonus for a cut at `depth`.
pub fn bonus(depth: i32) -> i32 {
    (depth * depth).min(HISTORY_BONUS_MAX)
}

fn index(m: Move) -> (usize, usize) {
    (m.from().map_or(0, |sq| sq as usize), m.to() as usize)
}

impl Histories {
    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        *self = Histories::default();
    }

    /// Killers are per search: forget them before a new one.
    pub fn clear_killers(&mut self) {
        self.killers = [[None; 2]; MAX_PLY + 1];
    }

    pub fn killers(&self, ply: usize) -> [Option<Move>; 2] {
        self.killers[ply.min(MAX_PLY)]
    }

    /// Remembers a quiet move that caused a cut-off at `ply`.
    pub fn add_killer(&mut self, ply: usize, m: Move) {
        let slot = &mut self.killers[ply.min(MAX_PLY)];
        if slot[0] != Some(m) {
            slot[1] = slot[0];
            slot[0] = Some(m);
        }
    }

    pub fn quiet(&self, side: Color, m: Move) -> i32 {
        let (from, to) = index(m);
        self.butterfly[side as usize][from][to]
    }

    /// Adds `delta` with gravity: the closer an entry is to the bound, the
    /// less it moves, so entries stay within ±[`HISTORY_MAX`] and recent
    /// results weigh more than old ones.
    pub fn update_quiet(&mut self, side: Color, m: Move, delta: i32) {
        let (from, to) = index(m);
        let entry = &mut self.butterfly[side as usize][from][to];
        *entry += delta - *entry * delta.abs() / HISTORY_MAX;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Role, Square};

    #[test]
    fn gravity_bounds_history() {
        let mut h = Histories::default();
        let m = Move::Normal {
            role: Role::Knight,
            from: Square::G1,
            capture: None,
            to: Square::F3,
            promotion: None,
        };
        for _ in 0..1000 {
            h.update_quiet(Color::White, m, bonus(40));
        }
        let v = h.quiet(Color::White, m);
        assert!(v > HISTORY_MAX / 2 && v <= HISTORY_MAX, "{v}");
        assert_eq!(h.quiet(Color::Black, m), 0);
        h.add_killer(3, m);
        h.add_killer(3, m);
        assert_eq!(h.killers(3), [Some(m), None]);
    }
}
