//! `genfens`: random openings for distributed data generation, in the form
//! OpenBench's datagen workloads ask for (`backrank "genfens N seed S book
//! None" quit` prints N lines `info string genfens <FEN>`).
//!
//! OpenBench picks the variant of the games it plays from the book's name
//! (`FRC`, `960` or `FISCHER` in it: Chess960; otherwise standard chess),
//! so the openings follow the book:
//! * without a book (`book None`), the classical start with 8 to 12
//!   random plies, since OpenBench plays those games as standard chess;
//! * with a book (an EPD or FEN file), a random line of it with 2 to 4
//!   random plies: Chess960 data on OpenBench takes an FRC-named book such
//!   as `frc960.epd`.
//!
//! The openings are legal, not over, distinct, and the same for the same seed.

use std::collections::HashSet;

use backrank_uci::notation::x_fen;
use backrank_util::rng::SplitMix;

use crate::openings::{Starts, random_opening, random_plies, read_book};

/// Random plies from the classical start: at least this many, up to four more.
const START_PLIES: u32 = 8;
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
        let opening = match &book {
            None => random_opening(&mut rng, Starts::Classical, START_PLIES),
            Some(lines) => {
                let start = lines[rng.below(lines.len() as u64) as usize].clone();
                let plies = BOOK_PLIES + rng.below(3) as u32;
                random_plies(start, plies, &mut rng)
            }
        };
        if let Some(pos) = opening {
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

#[cfg(test)]
mod tests {
    use super::*;
    use backrank_uci::notation::parse_fen;
    use shakmaty::Position;

    #[test]
    fn openings_are_legal_distinct_deterministic_and_classical_without_a_book() {
        let fens = openings(100, 7, None).unwrap();
        assert_eq!(fens.len(), 100);
        assert_eq!(fens.iter().collect::<HashSet<_>>().len(), 100);
        assert_eq!(fens, openings(100, 7, None).unwrap());
        assert_ne!(fens, openings(100, 8, None).unwrap());
        for fen in &fens {
            let pos = parse_fen(fen).unwrap();
            assert!(!pos.legal_moves().is_empty(), "{fen}");
            // X-FEN of a classical game: castling only as KQkq letters.
            let castling = fen.split_whitespace().nth(2).unwrap();
            assert!(castling.chars().all(|c| "KQkq-".contains(c)), "{fen}");
        }
    }

    #[test]
    fn a_book_is_the_starting_point() {
        // What the openings hold is checked from the outside (tests/openbench.rs).
        let book = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/frc960.epd");
        let fens = openings(20, 1, Some(book)).unwrap();
        assert_eq!(fens, openings(20, 1, Some(book)).unwrap());
        assert_ne!(fens, openings(20, 1, None).unwrap());
        assert!(openings(5, 1, Some("/no/such/book.epd")).is_err());
    }
}
