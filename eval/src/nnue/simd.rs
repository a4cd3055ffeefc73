//! The network's inner loops: adding or removing a feature row, and the
//! SCReLU output dot product. AVX2 where the build targets it (the
//! workspace builds for the host CPU, see `.cargo/config.toml`), plain
//! loops that the compiler vectorises as it can otherwise.

use super::{HIDDEN, QA};

/// `acc += row`.
#[inline]
pub fn add(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (a, r) in acc.iter_mut().zip(row) {
        *a = a.wrapping_add(*r);
    }
}

/// `acc -= row`.
#[inline]
pub fn sub(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (a, r) in acc.iter_mut().zip(row) {
        *a = a.wrapping_sub(*r);
    }
}

/// `sum over i of clamp(acc[i], 0, QA)^2 * weights[i]`, in units of QA^2 QB.
/// Each term is at most QA^2 x 128 (about 2^23), so the sum can pass 32
/// bits in any build wider than 256: it is returned in 64.
#[inline]
pub fn screlu_dot(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
    #[cfg(target_feature = "avx2")]
    {
        // Safety: this branch is compiled only when the build targets AVX2,
        // so every instruction used exists on the machine it runs on.
        unsafe { screlu_dot_avx2(acc, weights) }
    }
    #[cfg(not(target_feature = "avx2"))]
    {
        screlu_dot_portable(acc, weights)
    }
}

/// The portable output layer (also the reference the AVX2 one is tested against).
#[cfg_attr(target_feature = "avx2", allow(dead_code))]
pub fn screlu_dot_portable(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
    acc.iter()
        .zip(weights)
        .map(|(&a, &w)| {
            let v = i32::from(a).clamp(0, QA);
            i64::from(v * v * i32::from(w))
        })
        .sum()
}

/// The AVX2 output layer: `(v * w)` fits 16 bits (v <= QA, |w| <= 128, as
/// `Network::from_bytes` checks), so `madd(v * w, v)` sums pairs into 32-bit
/// lanes. Each lane gathers HIDDEN / 8 terms of at most 2^23, which fits up
/// to HIDDEN 2048 (`build.rs` allows 1024); the eight lanes are added in 64
/// bits.
#[cfg(target_feature = "avx2")]
#[target_feature(enable = "avx2")]
unsafe fn screlu_dot_avx2(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
    use std::arch::x86_64::*;
    const LANES: usize = 16;
    let zero = _mm256_setzero_si256();
    let qa = _mm256_set1_epi16(QA as i16);
    let mut sum = _mm256_setzero_si256();
    for i in (0..HIDDEN).step_by(LANES) {
        // Safety: `i + 16 <= HIDDEN` (HIDDEN is a multiple of 16), so both
        // unaligned 32-byte loads stay inside the arrays.
        let (a, w) = unsafe {
            (
                _mm256_loadu_si256(acc.as_ptr().add(i).cast()),
                _mm256_loadu_si256(weights.as_ptr().add(i).cast()),
            )
        };
        let v = _mm256_min_epi16(_mm256_max_epi16(a, zero), qa);
        let vw = _mm256_mullo_epi16(v, w);
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
    }
    let wide = _mm256_add_epi64(
        _mm256_cvtepi32_epi64(_mm256_castsi256_si128(sum)),
        _mm256_cvtepi32_epi64(_mm256_extracti128_si256(sum, 1)),
    );
    let two = _mm_add_epi64(_mm256_castsi256_si128(wide), _mm256_extracti128_si256(wide, 1));
    let one = _mm_add_epi64(two, _mm_unpackhi_epi64(two, two));
    _mm_cvtsi128_si64(one)
}

const _: () = assert!(HIDDEN.is_multiple_of(16), "the SIMD loops take 16 lanes at a time");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_layer_matches_the_portable_loop() {
        let acc: [i16; HIDDEN] = std::array::from_fn(|i| ((i * 37) % 400) as i16 - 100);
        let weights: [i16; HIDDEN] = std::array::from_fn(|i| ((i * 53) % 255) as i16 - 127);
        let expected: i64 = (0..HIDDEN)
            .map(|i| {
                let v = i64::from(acc[i]).clamp(0, i64::from(QA));
                v * v * i64::from(weights[i])
            })
            .sum();
        assert_eq!(screlu_dot_portable(&acc, &weights), expected);
        assert_eq!(screlu_dot(&acc, &weights), expected);
        // The extremes: every activation at QA and every weight at +-128
        // (a sum past i32 in builds wider than 256).
        for w in [128i16, -128] {
            let top = i64::from(QA) * i64::from(QA) * i64::from(w) * HIDDEN as i64;
            assert_eq!(screlu_dot(&[QA as i16; HIDDEN], &[w; HIDDEN]), top);
            assert_eq!(screlu_dot_portable(&[QA as i16; HIDDEN], &[w; HIDDEN]), top);
        }
        let mut x = acc;
        add(&mut x, &weights);
        sub(&mut x, &weights);
        assert_eq!(x, acc);
    }
}
