//! The transposition table: one boxed slice of lock-free entries shared by
//! every search thread.
//!
//! Each entry is two atomic words, `key ^ data` and `data`. A reader accepts
//! an entry only if the XOR of the two equals its key, so a torn entry (two
//! threads writing at once) reads as a miss rather than as wrong data. The
//! stored move is a 16-bit (from, to, promotion) triple that the search
//! matches against the node's legal moves before using it.

use std::alloc::{Layout, alloc_zeroed};
use std::sync::atomic::{AtomicU64, Ordering};

use shakmaty::{Move, Role, Square};

use crate::params::TT_REPLACE_DEPTH_MARGIN;
use crate::score::{from_tt, to_tt};

/// What an entry's score bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The score is at most this (fail-low).
    Upper = 1,
    /// The score is at least this (fail-high).
    Lower = 2,
    /// The exact score.
    Exact = 3,
}

/// A decoded hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TtHit {
    /// The move as (from, to, promotion), to be matched against legal moves.
    pub packed_move: u16,
    /// Score, already adjusted to the probing node's ply.
    pub score: i32,
    pub static_eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

#[derive(Default)]
struct Entry {
    check: AtomicU64,
    data: AtomicU64,
}

/// Packs a move into 16 bits: from (6), to (6), promotion role (3).
/// Castling is king-to-rook, so (from, to) is unique for every legal move.
pub fn pack_move(m: Move) -> u16 {
    let from = m.from().map_or(0, |sq| sq as u16);
    let promotion = m.promotion().map_or(0, |role| role as u16);
    from | (m.to() as u16) << 6 | promotion << 12
}

/// True when `m` is the move that [`pack_move`] packed into `packed`.
pub fn is_packed(m: Move, packed: u16) -> bool {
    packed != 0 && pack_move(m) == packed
}

/// Unpacks the (from, to, promotion) triple, for tests and debugging.
pub fn unpack_move(packed: u16) -> (Square, Square, Option<Role>) {
    let from = Square::new(u32::from(packed & 63));
    let to = Square::new(u32::from((packed >> 6) & 63));
    let promotion = match packed >> 12 {
        0 => None,
        n => Role::try_from(n as u8).ok(),
    };
    (from, to, promotion)
}

const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

/// Total physical memory, where the system says (Linux: /proc/meminfo).
fn physical_memory_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|line| line.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The shared table.
pub struct TranspositionTable {
    entries: Box<[Entry]>,
    /// The age of the current search, 6 bits; entries of older searches are
    /// replaced first.
    age: AtomicU64,
}

impl TranspositionTable {
    /// A table of `mb` megabytes, or an error if the memory cannot be had.
    /// The memory comes zeroed from the allocator, so a huge table costs
    /// nothing until it is used.
    pub fn new(mb: usize) -> Result<TranspositionTable, String> {
        let bytes = Self::check_size(mb)?;
        let count = (bytes / ENTRY_BYTES).max(1);
        let layout = Layout::array::<Entry>(count).map_err(|e| e.to_string())?;
        // Safety: `layout` has non-zero size (count >= 1). An all-zero
        // `Entry` is two `AtomicU64` zeros, a valid value, so the zeroed
        // memory is a valid `[Entry; count]`; `Box` takes ownership with the
        // same layout it will deallocate with.
        let entries = unsafe {
            let ptr = alloc_zeroed(layout) as *mut Entry;
            if ptr.is_null() {
                return Err(format!("cannot allocate {mb} MB for the hash table"));
            }
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, count))
        };
        Ok(TranspositionTable { entries, age: AtomicU64::new(0) })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Always false: a table has at least one entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Empties the table, splitting the work over `threads` threads.
    pub fn clear(&mut self, threads: usize) {
        let chunk = self.entries.len().div_ceil(threads.max(1));
        std::thread::scope(|scope| {
            for part in self.entries.chunks_mut(chunk) {
                scope.spawn(move || {
                    for entry in part {
                        *entry = Entry::default();
                    }
                });
            }
        });
        self.age.store(0, Ordering::Relaxed);
    }

    /// Marks the start of a new search, so that older entries age.
    pub fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    fn age(&self) -> u64 {
        self.age.load(Ordering::Relaxed) & 63
    }

    fn slot(&self, key: u64) -> &Entry {
        // Multiply-shift maps the key onto the table without a division.
        let index = ((u128::from(key) * self.entries.len() as u128) >> 64) as usize;
        &self.entries[index]
    }

    /// The bytes of a table of `mb` megabytes, or why it cannot be had
    /// without trying: an overflow, or more than the machine's memory (with
    /// overcommit the allocator may promise more than the machine has and
    /// the engine dies later, mid-game: that is refused up front).
    pub fn check_size(mb: usize) -> Result<usize, String> {
        let bytes = mb.checked_mul(1 << 20).ok_or("hash size overflows")?;
        if let Some(physical) = physical_memory_bytes()
            && bytes as u64 > physical
        {
            return Err(format!("{mb} MB is more than this machine's memory ({} MB)", physical >> 20));
        }
        Ok(bytes)
    }

    /// Looks `key` up; `ply` converts mate scores to this node's distance.
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtHit> {
        let entry = self.slot(key);
        let data = entry.data.load(Ordering::Relaxed);
        let check = entry.check.load(Ordering::Relaxed);
        if check ^ data != key || data == 0 {
            return None;
        }
        let bound = match (data >> 56) & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => return None,
        };
        Some(TtHit {
            packed_move: data as u16,
            score: from_tt(i32::from((data >> 16) as i16), ply),
            static_eval: i32::from((data >> 32) as i16),
            depth: i32::from((data >> 48) as u8),
            bound,
        })
    }

    /// Stores a result. An entry is overwritten when it holds another
    /// position, comes from an older search, is exact and the new one is
    /// not, or was searched less deep.
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &self,
        key: u64,
        ply: usize,
        packed_move: u16,
        score: i32,
        static_eval: i32,
        depth: i32,
        bound: Bound,
    ) {
        let entry = self.slot(key);
        let old = entry.data.load(Ordering::Relaxed);
        let old_key = entry.check.load(Ordering::Relaxed) ^ old;
        let same_position = old_key == key && old != 0;
        let old_depth = ((old >> 48) & 0xff) as i32;
        let old_age = (old >> 58) & 63;
        let replace = !same_position
            || old_age != self.age()
            || bound == Bound::Exact
            || depth + TT_REPLACE_DEPTH_MARGIN.get() >= old_depth;
        if !replace {
            return;
        }
        // Keep the old move when the new result has none for this position.
        let packed_move = if packed_move == 0 && same_position { old as u16 } else { packed_move };
        let data = u64::from(packed_move)
            | u64::from(to_tt(score, ply) as i16 as u16) << 16
            | u64::from(static_eval.clamp(-32000, 32000) as i16 as u16) << 32
            | (depth.clamp(0, 255) as u64) << 48
            | (bound as u64) << 56
            | self.age() << 58;
        entry.check.store(key ^ data, Ordering::Relaxed);
        entry.data.store(data, Ordering::Relaxed);
    }

    /// Permille of a sample of entries written in the current search.
    pub fn hashfull(&self) -> u32 {
        let sample = self.entries.len().min(1000);
        let age = self.age();
        let used = self.entries[..sample]
            .iter()
            .filter(|e| {
                let data = e.data.load(Ordering::Relaxed);
                data != 0 && (data >> 58) & 63 == age
            })
            .count();
        (used * 1000 / sample) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1).unwrap();
        let m = Move::Castle { king: Square::B1, rook: Square::A1 };
        tt.store(0xdead_beef_1234_5678, 3, pack_move(m), -57, 12, 9, Bound::Lower);
        let hit = tt.probe(0xdead_beef_1234_5678, 3).unwrap();
        assert!(is_packed(m, hit.packed_move));
        assert_eq!((hit.score, hit.static_eval, hit.depth, hit.bound), (-57, 12, 9, Bound::Lower));
        assert_eq!(unpack_move(hit.packed_move), (Square::B1, Square::A1, None));
        assert!(tt.probe(0x1234, 3).is_none());
    }

    #[test]
    fn promotion_packs() {
        let m = Move::Normal {
            role: Role::Pawn,
            from: Square::G7,
            capture: Some(Role::Rook),
            to: Square::H8,
            promotion: Some(Role::Knight),
        };
        assert_eq!(unpack_move(pack_move(m)), (Square::G7, Square::H8, Some(Role::Knight)));
    }

    #[test]
    fn refuses_impossible_sizes() {
        assert!(TranspositionTable::new(usize::MAX / 2).is_err());
        // 1 TB: more than any machine this runs on; refused, not overcommitted.
        assert!(TranspositionTable::new(1 << 20).is_err());
    }

    /// Many threads hammer a tiny table; every hit must be internally
    /// consistent (a torn write must never be read as a hit).
    #[test]
    fn concurrent_use_never_reads_torn_entries() {
        let tt = Arc::new(TranspositionTable::new(1).unwrap());
        std::thread::scope(|scope| {
            for thread in 0..4u64 {
                let tt = Arc::clone(&tt);
                scope.spawn(move || {
                    for i in 0..200_000u64 {
                        // Each key's payload is a function of the key.
                        let key = (i % 5000).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                        let depth = (key % 60) as i32;
                        let score = (key % 2000) as i32 - 1000;
                        if (i + thread) % 3 == 0 {
                            tt.store(key, 0, (key & 0xfff) as u16, score, score / 2, depth, Bound::Exact);
                        } else if let Some(hit) = tt.probe(key, 0) {
                            assert_eq!(hit.packed_move, (key & 0xfff) as u16);
                            assert_eq!(hit.score, score);
                            assert_eq!(hit.static_eval, score / 2);
                            assert_eq!(hit.depth, depth);
                        }
                    }
                });
            }
        });
        assert!(tt.hashfull() > 0);
    }
}
