//! Where the evaluation's terms go. The evaluation is written once,
//! generic over a [`Sink`]: [`Score`] adds the terms up (the engine's
//! evaluation, by group for the `eval` command), [`Coefficients`] counts
//! how often each tunable weight was used (what the tuner fits).

use shakmaty::Color;

use crate::Tapered;
use crate::params::WEIGHT_COUNT;
use crate::terms::side;
use crate::weights::WEIGHTS;

/// The groups of terms, in the order the `eval` command prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Material,
    Placement,
    Mobility,
    Pawns,
    Passed,
    KingSafety,
    Threats,
    Pieces,
}

/// The number of [`Group`]s.
pub const GROUPS: usize = 8;

/// The name of each [`Group`] as the `eval` command prints it.
pub const GROUP_NAMES: [&str; GROUPS] =
    ["Material", "Placement", "Mobility", "Pawns", "Passed pawns", "King safety", "Threats", "Pieces"];

/// Receives the terms of one evaluation.
pub trait Sink {
    /// Whether the pawn structure may come from the pawn hash as one
    /// finished value per colour (through [`Sink::add_fixed`]).
    const CACHE_PAWNS: bool = false;
    /// The terms that follow belong to `group`.
    fn group(&mut self, group: Group);
    /// `count` times `weight`, one of [`WEIGHTS`]' fields, for `color`.
    fn add(&mut self, color: Color, weight: &Tapered, count: i32);
    /// A value for `color` that no tunable weight scales (king danger).
    fn add_fixed(&mut self, color: Color, value: Tapered);
}

/// The evaluation's sums, by group and colour (White first).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Score {
    pub by_group: [[Tapered; 2]; GROUPS],
    group: usize,
}

impl Score {
    /// White's total minus Black's.
    pub fn net(&self) -> Tapered {
        self.by_group.iter().fold(Tapered::default(), |sum, [white, black]| sum + *white - *black)
    }
}

impl Sink for Score {
    const CACHE_PAWNS: bool = true;

    #[inline(always)]
    fn group(&mut self, group: Group) {
        self.group = group as usize;
    }

    #[inline(always)]
    fn add(&mut self, color: Color, weight: &Tapered, count: i32) {
        let slot = &mut self.by_group[self.group][side(color)];
        *slot = *slot + *weight * count;
    }

    #[inline(always)]
    fn add_fixed(&mut self, color: Color, value: Tapered) {
        let slot = &mut self.by_group[self.group][side(color)];
        *slot = *slot + value;
    }
}

/// How often each weight of [`WEIGHTS`] counts in a position (White's
/// uses minus Black's), and the rest of the score (White's view), which no
/// weight scales.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coefficients {
    pub counts: Vec<i32>,
    pub fixed: Tapered,
}

impl Default for Coefficients {
    fn default() -> Coefficients {
        Coefficients { counts: vec![0; WEIGHT_COUNT], fixed: Tapered::default() }
    }
}

impl Sink for Coefficients {
    fn group(&mut self, _: Group) {}

    fn add(&mut self, color: Color, weight: &Tapered, count: i32) {
        let signed = if color == Color::White { count } else { -count };
        match WEIGHTS.index_of(weight) {
            Some(index) => self.counts[index] += signed,
            None => self.fixed = self.fixed + *weight * signed,
        }
    }

    fn add_fixed(&mut self, color: Color, value: Tapered) {
        let signed = if color == Color::White { value } else { Tapered::default() - value };
        self.fixed = self.fixed + signed;
    }
}
