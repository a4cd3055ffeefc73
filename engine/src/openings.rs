//! Random openings, for self-play (`datagen`) and for OpenBench's datagen
//! workloads (`genfens`): a start position, then random legal plies.
//!
//! Everything here is drawn from the caller's [`SplitMix`], so that the
//! same seed gives the same openings.

use backrank_uci::notation::parse_fen;
use backrank_util::rng::SplitMix;
use shakmaty::{Chess, Position};

use crate::frc;

/// Which start positions to draw from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Starts {
    /// A fifth classical chess (start 518), `dfrc_tenths` tenths DFRC (two
    /// different back ranks), the rest Chess960: what `datagen` plays
    /// (`dfrc 3` unless told: half Chess960, three tenths DFRC).
    Mixed {
        /// Tenths of the starts that are DFRC, 0 to [`MAX_DFRC_TENTHS`].
        dfrc_tenths: u32,
    },
    /// Classical chess only: what a `-variant standard` game can start from.
    Classical,
}

/// The largest DFRC share of [`Starts::Mixed`]: the other two tenths are
/// classical chess.
pub const MAX_DFRC_TENTHS: u32 = 8;

/// The DFRC share `datagen` plays unless told (`dfrc`), in tenths.
pub const DEFAULT_DFRC_TENTHS: u32 = 3;

/// The mix `datagen` plays unless told.
pub const DEFAULT_MIX: Starts = Starts::Mixed { dfrc_tenths: DEFAULT_DFRC_TENTHS };

/// A start drawn from `starts`.
pub fn random_start(rng: &mut SplitMix, starts: Starts) -> Chess {
    let Starts::Mixed { dfrc_tenths } = starts else {
        return Chess::default();
    };
    // One draw of a tenth picks the kind (the same draws at every share):
    // below 2 classical, from 10 - dfrc_tenths DFRC, else Chess960.
    let kind = rng.below(10);
    let white = if kind < 2 { 518 } else { rng.below(u64::from(frc::COUNT)) as u32 };
    let same_sides = kind < 10 - u64::from(dfrc_tenths.min(MAX_DFRC_TENTHS));
    let black = if same_sides { white } else { rng.below(u64::from(frc::COUNT)) as u32 };
    frc::position(white, black).expect("numbers below COUNT")
}

/// A start from `starts` after `min_plies` to `min_plies + 4` random
/// plies; `None` when the random plies ended the game.
pub fn random_opening(rng: &mut SplitMix, starts: Starts, min_plies: u32) -> Option<Chess> {
    let start = random_start(rng, starts);
    let plies = min_plies + rng.below(5) as u32;
    random_plies(start, plies, rng)
}

/// `pos` after `plies` random legal plies; `None` if the game ends on the way.
pub fn random_plies(mut pos: Chess, plies: u32, rng: &mut SplitMix) -> Option<Chess> {
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        pos.play_unchecked(moves[rng.below(moves.len() as u64) as usize]);
    }
    (!pos.legal_moves().is_empty()).then_some(pos)
}

/// The positions of an EPD or FEN file (an EPD line's first four fields;
/// a FEN's clocks where it has them).
pub fn read_book(path: &str) -> Result<Vec<Chess>, String> {
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
    use shakmaty::{Color, Square};

    /// Plies played since the start, from the move counters.
    fn plies(pos: &Chess) -> u32 {
        pos.fullmoves().get() * 2 - 2 + u32::from(pos.turn().is_black())
    }

    #[test]
    fn mixed_openings_are_varied_legal_and_deterministic() {
        let starts: Vec<Chess> =
            (0..200).filter_map(|n| random_opening(&mut SplitMix(n), DEFAULT_MIX, 8)).collect();
        assert!(starts.len() > 190);
        let again: Vec<Chess> =
            (0..200).filter_map(|n| random_opening(&mut SplitMix(n), DEFAULT_MIX, 8)).collect();
        assert_eq!(starts, again);
        assert!(starts.iter().all(|p| (8..=12).contains(&plies(p))));
        // Classical games among them: king on e1 and all four rights.
        let classical = starts
            .iter()
            .filter(|p| {
                p.castles().castling_rights().count() == 4
                    && p.board().king_of(Color::White) == Some(Square::E1)
            })
            .count();
        assert!((10..100).contains(&classical), "{classical}");
    }

    #[test]
    fn the_dfrc_share_is_what_was_asked() {
        // DFRC: the back ranks differ (Black's is not White's mirror image).
        let is_dfrc = |pos: &Chess| {
            let board = pos.board();
            (0..8).any(|file| {
                let (white, black) = (Square::new(file), Square::new(file + 56));
                board.role_at(white) != board.role_at(black)
            })
        };
        let share = |dfrc_tenths| {
            let mix = Starts::Mixed { dfrc_tenths };
            (0..2000).filter(|&n| is_dfrc(&random_start(&mut SplitMix(n), mix))).count()
        };
        let (none, default, most) = (share(0), share(3), share(MAX_DFRC_TENTHS));
        assert_eq!(none, 0);
        assert!((500..700).contains(&default), "{default}");
        assert!((1500..1700).contains(&most), "{most}");
        // The default draws exactly what it drew before the share was a setting.
        for n in 0..200 {
            let mut rng = SplitMix(n);
            let kind = rng.below(10);
            let white = if kind < 2 { 518 } else { rng.below(u64::from(frc::COUNT)) as u32 };
            let black = if kind < 7 { white } else { rng.below(u64::from(frc::COUNT)) as u32 };
            assert_eq!(random_start(&mut SplitMix(n), DEFAULT_MIX), frc::position(white, black).unwrap());
        }
    }

    #[test]
    fn classical_openings_start_from_the_initial_position() {
        let corners = shakmaty::Bitboard::CORNERS;
        let mut all_rights = 0;
        for n in 0..50 {
            let pos = random_opening(&mut SplitMix(n), Starts::Classical, 8).unwrap();
            assert!((8..=12).contains(&plies(&pos)));
            // Castling only ever with rooks from the corners.
            let rights = pos.castles().castling_rights();
            assert!((rights & !corners).is_empty(), "{n}: {rights:?}");
            all_rights += usize::from(rights == corners);
        }
        assert!(all_rights > 10, "{all_rights}");
        // The mixed starts castle with other rooks too.
        let other_rooks = (0..50)
            .filter_map(|n| random_opening(&mut SplitMix(n), DEFAULT_MIX, 8))
            .filter(|pos| !(pos.castles().castling_rights() & !corners).is_empty())
            .count();
        assert!(other_rooks > 10, "{other_rooks}");
    }

    #[test]
    fn books_are_read_and_bad_ones_refused() {
        let book = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/frc960.epd");
        let positions = read_book(book).unwrap();
        assert_eq!(positions.len(), 960);
        assert_eq!(positions[518], Chess::default());
        assert!(read_book("/no/such/book.epd").is_err());
    }
}
