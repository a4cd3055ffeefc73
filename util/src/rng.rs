//! A small, fast, seedable random number generator (SplitMix64) for
//! self-play starts and randomized tests: reproducible from its seed, not
//! meant for anything that must be unpredictable.

/// SplitMix64: every seed gives its own well-mixed sequence.
#[derive(Debug, Clone)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// A generator seeded from the clock, for where a user asks for
    /// something random (`backrank frc random`); everything else is seeded.
    pub fn from_clock() -> SplitMix {
        let since_epoch =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        SplitMix(since_epoch.as_nanos() as u64)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        crate::hash::mix64(self.0)
    }

    /// A number below `n` (`n` > 0; the tiny modulo bias does not matter here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_numbers_and_in_range() {
        let (mut a, mut b) = (SplitMix(42), SplitMix(42));
        let first: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        assert_eq!(first, (0..5).map(|_| b.next_u64()).collect::<Vec<_>>());
        assert_ne!(first[0], SplitMix(43).next_u64());
        assert!((0..1000).all(|_| a.below(7) < 7));
    }

    #[test]
    fn clock_seeds_differ_from_one_moment_to_the_next() {
        let first = SplitMix::from_clock().next_u64();
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert_ne!(first, SplitMix::from_clock().next_u64());
    }
}
