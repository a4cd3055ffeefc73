//! Small helpers that several Backrank crates need, each in one place: a
//! seedable RNG ([`rng`]), `key value` command-line arguments ([`args`]),
//! the logistic function ([`sigmoid`]), the FNV-1a hash of file checksums
//! ([`hash`]), and a Chess960 FEN reader ([`position`]) and scratch folders
//! ([`scratch`]) for tests.

pub mod args;
pub mod hash;
pub mod rng;
pub mod scratch;

/// The position of a FEN, read in Chess960 mode (castling as Backrank
/// keeps it everywhere). Panics on a bad FEN: for tests and fixed tables.
pub fn position(fen: &str) -> shakmaty::Chess {
    fen.parse::<shakmaty::fen::Fen>()
        .unwrap_or_else(|e| panic!("bad FEN {fen}: {e}"))
        .into_position(shakmaty::CastlingMode::Chess960)
        .unwrap_or_else(|e| panic!("bad position {fen}: {e}"))
}

/// The logistic function `1 / (1 + e^-x)`.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[cfg(test)]
mod tests {
    #[test]
    fn sigmoid_is_symmetric_around_a_half() {
        assert_eq!(super::sigmoid(0.0), 0.5);
        assert!((super::sigmoid(2.0) + super::sigmoid(-2.0) - 1.0).abs() < 1e-12);
        assert!(super::sigmoid(10.0) > 0.9999);
    }
}
