//! FNV-1a, 64 bits: the checksum of Backrank's network and checkpoint
//! files and the fingerprint of the trainer's text-data cache; and
//! [`mix64`], the bit mixer of the random number generator and of the
//! search's small keys.

/// FNV-1a's 64-bit offset basis: the hash of no bytes.
pub const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV's 64-bit prime.
pub const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// The 64-bit FNV-1a hash of `bytes`: per byte, xor it in, then multiply by
/// [`FNV_PRIME`] (wrapping), starting from [`FNV_OFFSET_BASIS`].
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET_BASIS, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(FNV_PRIME))
}

/// SplitMix64's finaliser: every input bit flips each output bit with
/// probability about one half, so that the low bits of a key made of a few
/// bitboards index a table evenly.
#[inline]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::{fnv1a, mix64};

    #[test]
    fn mix64_spreads_single_bits() {
        // Keys that differ in one bit land in different low-bit slots.
        let slots: std::collections::HashSet<u64> = (0..64).map(|bit| mix64(1 << bit) & 0x3fff).collect();
        assert!(slots.len() >= 62, "{} distinct slots", slots.len());
        assert_eq!(mix64(0), 0);
    }

    #[test]
    fn fnv1a_matches_the_published_64_bit_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}
