//! Training data: `<FEN> | <cp, White's view> | <result, White's view>`
//! lines (what `backrank datagen` writes), each turned into the linear form
//! of its evaluation (see [`backrank_eval::Linear`]), stored sparsely.

use backrank_eval::{Linear, MAX_PHASE, TEMPO, WEIGHT_COUNT};
use shakmaty::{Chess, Color, Position};

/// One position, ready for the model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Its weight counts are `entries[first..first + len]`.
    pub first: u32,
    pub len: u32,
    /// How much of a middlegame and of an endgame weight reaches the score
    /// (the phase blend, and the endgame scale).
    pub mg_share: f64,
    pub eg_share: f64,
    /// The part of White's score no tunable weight moves (king danger, tempo).
    pub fixed: f64,
    /// The search's score (centipawns, White's view) and the game result (0, 0.5, 1).
    pub score: f64,
    pub result: f64,
}

/// Many samples and their weight counts.
#[derive(Debug, Default, Clone)]
pub struct Dataset {
    pub samples: Vec<Sample>,
    /// (weight index, count) pairs, White's count minus Black's.
    pub entries: Vec<(u16, i16)>,
}

impl Dataset {
    /// Parses `lines` on `threads` threads; returns the set and the number
    /// of lines that could not be read.
    pub fn from_lines(lines: &[&str], threads: usize) -> (Dataset, usize) {
        let chunk = lines.len().div_ceil(threads.max(1)).max(1);
        let parts: Vec<(Dataset, usize)> = std::thread::scope(|scope| {
            let handles: Vec<_> = lines
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        let mut set = Dataset::default();
                        let mut bad = 0;
                        for line in part {
                            match parse_line(line) {
                                Some((pos, score, result)) => set.push(&pos, score, result),
                                None => bad += 1,
                            }
                        }
                        (set, bad)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("a parser thread panicked")).collect()
        });
        let mut all = Dataset::default();
        let mut bad = 0;
        for (part, part_bad) in parts {
            all.append(part);
            bad += part_bad;
        }
        (all, bad)
    }

    /// Adds a position with its search score and result.
    pub fn push(&mut self, pos: &Chess, score: f64, result: f64) {
        let Linear { coefficients, phase, scale } = backrank_eval::linear(pos);
        let first = self.entries.len() as u32;
        for (index, &count) in coefficients.counts.iter().enumerate() {
            if count != 0 {
                debug_assert!(index < WEIGHT_COUNT);
                self.entries.push((index as u16, count.clamp(i16::MIN.into(), i16::MAX.into()) as i16));
            }
        }
        let mg_share = f64::from(phase) / f64::from(MAX_PHASE);
        let eg_share = f64::from(scale) / 64.0 * f64::from(MAX_PHASE - phase) / f64::from(MAX_PHASE);
        let tempo = if pos.turn() == Color::White { TEMPO } else { -TEMPO };
        let fixed = f64::from(coefficients.fixed.mg) * mg_share
            + f64::from(coefficients.fixed.eg) * eg_share
            + f64::from(tempo);
        let len = self.entries.len() as u32 - first;
        self.samples.push(Sample { first, len, mg_share, eg_share, fixed, score, result });
    }

    fn append(&mut self, other: Dataset) {
        let offset = self.entries.len() as u32;
        self.entries.extend(other.entries);
        self.samples.extend(other.samples.into_iter().map(|s| Sample { first: s.first + offset, ..s }));
    }

    /// Splits off every `nth` block of `block` consecutive samples (for
    /// validation). Blocks, not single positions: the positions of one game
    /// are consecutive and share its result, so a check set of scattered
    /// positions would share games with the training set and hide
    /// overfitting to those games' results.
    pub fn split_blocks(self, block: usize, nth: usize) -> (Dataset, Dataset) {
        let (mut kept, mut taken) = (Dataset::default(), Dataset::default());
        for (i, sample) in self.samples.iter().enumerate() {
            let target = if (i / block.max(1)) % nth == nth - 1 { &mut taken } else { &mut kept };
            let first = target.entries.len() as u32;
            let range = sample.first as usize..(sample.first + sample.len) as usize;
            target.entries.extend_from_slice(&self.entries[range]);
            target.samples.push(Sample { first, ..*sample });
        }
        (kept, taken)
    }

    /// The weight counts of `sample`.
    pub fn entries_of(&self, sample: &Sample) -> &[(u16, i16)] {
        &self.entries[sample.first as usize..(sample.first + sample.len) as usize]
    }
}

/// `<FEN> | <cp> | <result>`, White's view.
pub fn parse_line(line: &str) -> Option<(Chess, f64, f64)> {
    let (pos, score, outcome) = backrank_data::text::parse_line(line)?;
    Some((pos, f64::from(score), f64::from(outcome.white_score())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_datagen_lines() {
        let (pos, score, result) =
            parse_line("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 35 | 0.5").unwrap();
        assert_eq!((score, result), (35.0, 0.5));
        assert_eq!(pos.turn(), Color::Black);
        assert!(parse_line("not a fen | 1 | 0.5").is_none());
        assert!(parse_line("8/8/8/8/8/8/8/K6k w - - 0 1 | 1 | 2.0").is_none());
        assert!(parse_line("8/8/8/8/8/8/8/K6k w - - 0 1 | 1").is_none());
    }

    #[test]
    fn splitting_keeps_every_sample_and_its_counts() {
        let lines = [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 35 | 0.5",
            "4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | 900 | 1.0",
            "4k3/8/8/8/8/8/8/3QK3 b - - 0 1 | 900 | 1.0",
        ];
        let (set, bad) = Dataset::from_lines(&lines, 2);
        assert_eq!((set.samples.len(), bad), (3, 0));
        let whole: Vec<_> = set.samples.iter().map(|s| set.entries_of(s).to_vec()).collect();
        let (kept, taken) = set.split_blocks(1, 3);
        assert_eq!((kept.samples.len(), taken.samples.len()), (2, 1));
        assert_eq!(kept.entries_of(&kept.samples[1]), whole[1].as_slice());
        assert_eq!(taken.entries_of(&taken.samples[0]), whole[2].as_slice());
    }
}
