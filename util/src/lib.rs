//! Small helpers that several Backrank crates need, each in one place: a
//! seedable RNG ([`rng`]), `key value` command-line arguments ([`args`]),
//! the Adam optimiser ([`adam`]) and the logistic function ([`sigmoid`]).

pub mod adam;
pub mod args;
pub mod rng;

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
