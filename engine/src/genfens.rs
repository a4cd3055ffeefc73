//! `genfens`: random openings for distributed data generation, in the form
//! OpenBench's datagen workloads ask for (`backrank "genfens N seed S book
//! None" quit` prints N lines `info string genfens <FEN>`).
//!
//! Without a book, each opening is a Chess960, DFRC or classical start with
//! 8 to 12 random plies, as `backrank datagen` plays them; with a book (an
//! EPD or FEN file), a random line of it with 2 to 4 random plies. The
//! openings are legal, not over, distinct, and the same for the same seed.

use std::collections::HashSet;

use backrank_uci::notation::{parse_fen, x_fen};
use backrank_util::rng::SplitMix;
use shakmaty::Chess;

use crate::datagen;

/// Random plies after a book line: at least this many, up to two more.
const BOOK_PLIES: u32 = 2;
/// Tries per opening asked for before giving up on finding distinct ones.
const TRIES_PER_OPENING: u64 = 50;

/// `count` distinct openings for `seed`, as X-FEN.
pub fn openings(count: u64, seed: u64, book: Option<&str>) -> Result<Vec<String>, String> {
    let book = book.map(read_book).transpose()?;
    let mut rng = SplitMix(seed ^ 0x6765_6E66_656E_7300);
    let mut seen = HashSet::new();
    let mut fens = Vec::new();
    for _ in 0..count.saturating_mul(TRIES_PER_OPENING) {
        if fens.len() as u64 == count {
            break;
        }
        let start = match &book {
            None => datagen::opening(&mut rng, 8),
            Some(lines) => {
                let start = lines[rng.below(lines.len() as u64) as usize].clone();
                let plies = BOOK_PLIES + rng.below(3) as u32;
                datagen::random_plies(start, plies, &mut rng)
            }
        };
        if let Some(pos) = start {
            let fen = x_fen(&pos);
            if seen.insert(fen.clone()) {
                fens.push(fen);
            }
        }
    }
    if (fens.len() as u64) < count {
        return Err(format!("found only {} distinct openings of {count}", fens.len()));
    }
    Ok(fens)
}

/// The positions of an EPD or FEN file (an EPD line's first four fields).
fn read_book(path: &str) -> Result<Vec<Chess>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut positions = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let fen = if fields.len() >= 6 && fields[4].parse::<u32>().is_ok() {
            fields[..6].join(" ")
        } else {
            format!("{} 0 1", fields[..fields.len().min(4)].join(" "))
        };
        positions.push(parse_fen(&fen).map_err(|e| format!("{path}: {e}"))?);
    }
    if positions.is_empty() {
        return Err(format!("{path} holds no positions"));
    }
    Ok(positions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;

    #[test]
    fn openings_are_legal_distinct_and_deterministic() {
        let fens = openings(100, 7, None).unwrap();
        assert_eq!(fens.len(), 100);
        assert_eq!(fens.iter().collect::<HashSet<_>>().len(), 100);
        assert_eq!(fens, openings(100, 7, None).unwrap());
        assert_ne!(fens, openings(100, 8, None).unwrap());
        for fen in &fens {
            let pos = parse_fen(fen).unwrap();
            assert!(!pos.legal_moves().is_empty(), "{fen}");
        }
    }

    #[test]
    fn a_book_is_the_starting_point() {
        let book = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/frc960.epd");
        let fens = openings(20, 1, Some(book)).unwrap();
        assert_eq!(fens.len(), 20);
        assert_eq!(fens, openings(20, 1, Some(book)).unwrap());
        assert!(openings(5, 1, Some("/no/such/book.epd")).is_err());
    }
}
