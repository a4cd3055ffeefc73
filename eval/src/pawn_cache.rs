//! The pawn hash: what the pawns alone decide (pawn structure and which
//! pawns are passed) is the same in most positions a search visits, so it
//! is kept per thread, keyed by the two pawn bitboards themselves (an
//! entry is only used when both match exactly: no collisions).

use std::cell::RefCell;

use shakmaty::Bitboard;

use crate::Tapered;

/// Entries per thread (a power of two; about 400 KB).
const ENTRIES: usize = 1 << 13;

/// What the pawns decide, White first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PawnEntry {
    /// White's and Black's pawns: the key.
    pub pawns: [Bitboard; 2],
    /// Doubled, isolated, backward and connected pawns, per colour.
    pub structure: [Tapered; 2],
    /// Passed pawns, per colour.
    pub passers: [Bitboard; 2],
}

thread_local! {
    static TABLE: RefCell<Vec<Option<PawnEntry>>> = RefCell::new(vec![None; ENTRIES]);
}

/// The entry for `pawns` (White's, Black's), made by `compute` when the
/// table does not have it.
pub(crate) fn get(pawns: [Bitboard; 2], compute: impl FnOnce() -> PawnEntry) -> PawnEntry {
    let mix = u64::from(pawns[0]).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ u64::from(pawns[1]).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    let index = (mix >> (64 - ENTRIES.trailing_zeros())) as usize;
    TABLE.with(|table| {
        let mut table = table.borrow_mut();
        match table[index] {
            Some(entry) if entry.pawns == pawns => entry,
            _ => {
                let entry = compute();
                table[index] = Some(entry);
                entry
            }
        }
    })
}
