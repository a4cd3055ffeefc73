//! The transposition table: a lock-free array of buckets shared by every
//! search thread.
//!
//! A bucket is one 64-byte cache line of four entries, so a probe costs one
//! memory access, and the search prefetches the child's bucket before it
//! makes the move. Each entry is two atomic words, `key ^ data` and `data`.
//! A reader accepts an entry only if the XOR of the two equals its key, so
//! a torn entry (two threads writing at once) reads as a miss rather than
//! as wrong data. The stored move is a 16-bit (from, to, promotion) triple
//! that the search matches against the node's legal moves before using it.
//!
//! Replacement: a position's own entry is updated in place (unless the new
//! result is much shallower, of the same search, and not exact); a new
//! position takes the bucket's least valuable entry, where value is depth
//! less [`TT_AGE_WEIGHT`] per search of age, so that quiescence's depth-0
//! results evict each other and stale entries, not the deep ones.
//! The memory is taken lazily from the OS ([`crate::zeroed`]): a table of
//! any size is ready at once and grows resident only as the search writes;
//! tables of 2 MB and more are aligned to 2 MB pages and asked to be backed
//! by huge pages, which saves TLB misses.

use std::sync::atomic::{AtomicU64, Ordering};

use shakmaty::{Move, Role, Square};

use crate::params::{TT_AGE_WEIGHT, TT_REPLACE_DEPTH_MARGIN};
use crate::score::{from_tt, to_tt};
use crate::zeroed::ZeroedRegion;

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

/// What an entry holds, decoded: a probe's answer and a store's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TtEntry {
    /// The move as (from, to, promotion), to be matched against legal moves.
    pub packed_move: u16,
    /// Score, from (and for) the node at the probing or storing ply.
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

impl Entry {
    /// `(data, key)`; `data == 0` is an empty entry.
    fn load(&self) -> (u64, u64) {
        let data = self.data.load(Ordering::Relaxed);
        (data, self.check.load(Ordering::Relaxed) ^ data)
    }

    fn save(&self, key: u64, data: u64) {
        self.check.store(key ^ data, Ordering::Relaxed);
        self.data.store(data, Ordering::Relaxed);
    }
}

/// Entries per bucket.
const BUCKET_ENTRIES: usize = 4;

/// One cache line of entries.
#[repr(C, align(64))]
#[derive(Default)]
struct Bucket {
    entries: [Entry; BUCKET_ENTRIES],
}

const BUCKET_BYTES: usize = std::mem::size_of::<Bucket>();
const _: () = assert!(BUCKET_BYTES == 64);

// An entry's data word, from the lowest bit up: the packed move (16 bits),
// the score (16, an `i16`), the static evaluation (16, an `i16`), the depth
// (8), the bound (2) and the age of the search that wrote it (6). A stored
// bound is never 0, so an all-zero word is an empty entry.
const SCORE_SHIFT: u32 = 16;
const EVAL_SHIFT: u32 = 32;
const DEPTH_SHIFT: u32 = 48;
const BOUND_SHIFT: u32 = 56;
const AGE_SHIFT: u32 = 58;
const DEPTH_MASK: u64 = (1 << (BOUND_SHIFT - DEPTH_SHIFT)) - 1;
const BOUND_MASK: u64 = (1 << (AGE_SHIFT - BOUND_SHIFT)) - 1;
/// Ages count searches modulo 64.
const AGE_MASK: u64 = (1 << (64 - AGE_SHIFT)) - 1;

fn depth_of(data: u64) -> i32 {
    ((data >> DEPTH_SHIFT) & DEPTH_MASK) as i32
}

fn age_of(data: u64) -> u64 {
    (data >> AGE_SHIFT) & AGE_MASK
}

/// The data word of an entry (see the layout above); the score already
/// relative to its node (see [`to_tt`]).
fn pack_data(packed_move: u16, tt_score: i16, static_eval: i32, depth: i32, bound: Bound, age: u64) -> u64 {
    let eval = static_eval.clamp(-32000, 32000) as i16;
    u64::from(packed_move)
        | u64::from(tt_score as u16) << SCORE_SHIFT
        | u64::from(eval as u16) << EVAL_SHIFT
        | (depth.clamp(0, DEPTH_MASK as i32) as u64) << DEPTH_SHIFT
        | (bound as u64) << BOUND_SHIFT
        | age << AGE_SHIFT
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

/// Total physical memory, where the system says (Linux: /proc/meminfo).
fn physical_memory_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|line| line.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The buckets, in memory that is zero until written (see [`ZeroedRegion`]).
struct Buckets {
    region: ZeroedRegion,
    len: usize,
}

impl Buckets {
    fn new(count: usize) -> Result<Buckets, String> {
        let bytes = count.checked_mul(BUCKET_BYTES).ok_or("hash size overflows")?;
        let mut region = ZeroedRegion::new(bytes).map_err(|e| format!("hash table: {e}"))?;
        region.warm();
        Ok(Buckets { region, len: count })
    }

    /// Empties every bucket, with up to `threads` threads where that takes
    /// writing, and starts warming the memory again.
    fn clear(&mut self, threads: usize) {
        self.region.zero(threads);
        self.region.warm();
    }

    /// The bucket at `index`, or `None` while its memory is still being
    /// warmed (see [`ZeroedRegion::warm`]): a large table fills from the
    /// start, as it is faulted in, instead of stalling the search on page
    /// faults.
    fn get_warm(&self, index: usize) -> Option<&Bucket> {
        (index * BUCKET_BYTES < self.region.warmed_len()).then(|| &self[index])
    }
}

impl std::ops::Deref for Buckets {
    type Target = [Bucket];
    fn deref(&self) -> &[Bucket] {
        // Safety: the region holds `len * BUCKET_BYTES` bytes aligned to a
        // cache line, as long as `self` lives. An all-zero `Bucket` is eight
        // `AtomicU64` zeros and any bytes written since came through
        // `Bucket`'s atomics, so they are `len` valid buckets.
        unsafe { std::slice::from_raw_parts(self.region.as_ptr().cast::<Bucket>(), self.len) }
    }
}

/// The shared table.
pub struct TranspositionTable {
    buckets: Buckets,
    /// The age of the current search, 6 bits; entries of older searches are
    /// replaced first.
    age: AtomicU64,
}

impl TranspositionTable {
    /// A table of `mb` megabytes, or an error if the memory cannot be had.
    /// The memory comes as zero pages from the OS, so even a huge table is
    /// there at once; it is warmed in the background (see the `zeroed`
    /// module), and until then the search uses the part that is warm.
    pub fn new(mb: usize) -> Result<TranspositionTable, String> {
        let bytes = Self::check_size(mb)?;
        let buckets = Buckets::new((bytes / BUCKET_BYTES).max(1))?;
        Ok(TranspositionTable { buckets, age: AtomicU64::new(0) })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.buckets.len() * BUCKET_ENTRIES
    }

    /// Always false: a table has at least one entry.
    pub fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }

    /// The table's size in megabytes (as asked for, rounded down).
    pub fn megabytes(&self) -> usize {
        (self.buckets.len() * BUCKET_BYTES) >> 20
    }

    /// Empties the table (see [`ZeroedRegion::zero`]: with `threads`
    /// threads where the memory has to be written).
    pub fn clear(&mut self, threads: usize) {
        self.buckets.clear(threads);
        self.age.store(0, Ordering::Relaxed);
    }

    /// Marks the start of a new search, so that older entries age.
    pub fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    fn age(&self) -> u64 {
        self.age.load(Ordering::Relaxed) & AGE_MASK
    }

    /// `key`'s bucket, unless its memory is not warm yet.
    fn bucket(&self, key: u64) -> Option<&Bucket> {
        // Multiply-shift maps the key onto the table without a division.
        let index = ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize;
        self.buckets.get_warm(index)
    }

    /// Starts loading `key`'s bucket into the cache, so that the probe a
    /// little later does not wait for memory.
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            if let Some(bucket) = self.bucket(key) {
                let ptr = (bucket as *const Bucket).cast::<i8>();
                // Safety: a prefetch is a hint that never faults, and `ptr`
                // points into the table anyway.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(ptr) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
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

    /// `key`'s own entry in its bucket, with its data word.
    fn find(entries: &[Entry], key: u64) -> Option<(&Entry, u64)> {
        entries.iter().find_map(|entry| {
            let (data, k) = entry.load();
            (k == key && data != 0).then_some((entry, data))
        })
    }

    /// Looks `key` up; `ply` converts mate scores to this node's distance,
    /// and `halfmoves` (its fifty-move counter) says which wins can still
    /// be had (see [`from_tt`]).
    pub fn probe(&self, key: u64, ply: usize, halfmoves: u32) -> Option<TtEntry> {
        let (_, data) = Self::find(&self.bucket(key)?.entries, key)?;
        let bound = match (data >> BOUND_SHIFT) & BOUND_MASK {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => return None,
        };
        Some(TtEntry {
            packed_move: data as u16,
            score: from_tt(i32::from((data >> SCORE_SHIFT) as i16), ply, halfmoves),
            static_eval: i32::from((data >> EVAL_SHIFT) as i16),
            depth: depth_of(data),
            bound,
        })
    }

    /// Stores `entry` for `key`, the node at `ply` (see the module's notes
    /// on replacement).
    pub fn store(&self, key: u64, ply: usize, entry: TtEntry) {
        let TtEntry { packed_move, score, static_eval, depth, bound } = entry;
        let age = self.age();
        let Some(bucket) = self.bucket(key) else { return };
        let entries = &bucket.entries;
        let (slot, packed_move) = match Self::find(entries, key) {
            Some((slot, old)) => {
                let keep = age_of(old) == age
                    && bound != Bound::Exact
                    && depth + TT_REPLACE_DEPTH_MARGIN.get() < depth_of(old);
                if keep {
                    return;
                }
                // Keep the old move when the new result has none.
                (slot, if packed_move == 0 { old as u16 } else { packed_move })
            }
            None => {
                let worth = |entry: &Entry| {
                    let data = entry.data.load(Ordering::Relaxed);
                    if data == 0 {
                        return i32::MIN;
                    }
                    let searches_ago = (age.wrapping_sub(age_of(data)) & AGE_MASK) as i32;
                    depth_of(data) - TT_AGE_WEIGHT.get() * searches_ago
                };
                let victim = entries.iter().min_by_key(|entry| worth(entry)).expect("a bucket has entries");
                (victim, packed_move)
            }
        };
        slot.save(key, pack_data(packed_move, to_tt(score, ply) as i16, static_eval, depth, bound, age));
    }

    /// Permille of a sample of entries written in the current search.
    pub fn hashfull(&self) -> u32 {
        let sample = self.buckets.len().clamp(1, 1000 / BUCKET_ENTRIES);
        let age = self.age();
        let used = self.buckets[..sample]
            .iter()
            .flat_map(|bucket| bucket.entries.iter())
            .filter(|entry| {
                let data = entry.data.load(Ordering::Relaxed);
                data != 0 && age_of(data) == age
            })
            .count();
        (used * 1000 / (sample * BUCKET_ENTRIES)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn entry(packed_move: u16, score: i32, static_eval: i32, depth: i32, bound: Bound) -> TtEntry {
        TtEntry { packed_move, score, static_eval, depth, bound }
    }

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1).unwrap();
        let m = Move::Castle { king: Square::B1, rook: Square::A1 };
        tt.store(0xdead_beef_1234_5678, 3, entry(pack_move(m), -57, 12, 9, Bound::Lower));
        let hit = tt.probe(0xdead_beef_1234_5678, 3, 0).unwrap();
        assert!(is_packed(m, hit.packed_move));
        assert_eq!((hit.score, hit.static_eval, hit.depth, hit.bound), (-57, 12, 9, Bound::Lower));
        assert_eq!(unpack_move(hit.packed_move), (Square::B1, Square::A1, None));
        assert!(tt.probe(0x1234, 3, 0).is_none());
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
                            tt.store(
                                key,
                                0,
                                entry((key & 0xfff) as u16, score, score / 2, depth, Bound::Exact),
                            );
                        } else if let Some(hit) = tt.probe(key, 0, 0) {
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

    /// Keys that share one bucket: the index comes from the key's high bits.
    fn same_bucket_keys(count: u64) -> Vec<u64> {
        (0..count).map(|i| 0xabcd_0000_0000_0000 | (i + 1) << 8).collect()
    }

    #[test]
    fn a_bucket_holds_four_positions() {
        let tt = TranspositionTable::new(1).unwrap();
        let keys = same_bucket_keys(4);
        let first = tt.bucket(keys[0]).expect("a small table is warm at once");
        assert!(keys.iter().all(|&key| tt.bucket(key).is_some_and(|bucket| std::ptr::eq(bucket, first))));
        for (depth, &key) in keys.iter().enumerate() {
            tt.store(key, 0, entry(0, 10, 0, depth as i32, Bound::Exact));
        }
        for (depth, &key) in keys.iter().enumerate() {
            assert_eq!(tt.probe(key, 0, 0).map(|hit| hit.depth), Some(depth as i32));
        }
    }

    #[test]
    fn shallow_results_evict_shallow_and_stale_entries_first() {
        let tt = TranspositionTable::new(1).unwrap();
        let keys = same_bucket_keys(40);
        let deep = keys[0];
        tt.store(deep, 0, entry(0, 10, 0, 20, Bound::Lower));
        // Quiescence-like depth-0 stores of many other positions.
        for &key in &keys[1..] {
            tt.store(key, 0, entry(0, 10, 0, 0, Bound::Upper));
        }
        assert_eq!(tt.probe(deep, 0, 0).map(|hit| hit.depth), Some(20));
        // Some searches later the deep entry is stale and goes first.
        for _ in 0..3 {
            tt.new_search();
        }
        tt.store(keys[1], 0, entry(0, 10, 0, 0, Bound::Upper));
        tt.store(keys[2], 0, entry(0, 10, 0, 0, Bound::Upper));
        tt.store(keys[3], 0, entry(0, 10, 0, 0, Bound::Upper));
        tt.store(keys[4], 0, entry(0, 10, 0, 0, Bound::Upper));
        assert!(tt.probe(deep, 0, 0).is_none());
    }

    #[test]
    fn clear_forgets_every_entry() {
        let mut tt = TranspositionTable::new(4).unwrap();
        let keys: Vec<u64> = (1..=2000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        for &key in &keys {
            tt.store(key, 0, entry(1, 10, 0, 5, Bound::Exact));
        }
        assert!(keys.iter().filter(|&&key| tt.probe(key, 0, 0).is_some()).count() > 1900);
        tt.clear(2);
        assert!(keys.iter().all(|&key| tt.probe(key, 0, 0).is_none()));
        assert_eq!(tt.hashfull(), 0);
    }

    #[test]
    fn a_large_table_works_while_it_warms() {
        let tt = TranspositionTable::new(256).unwrap();
        let keys: Vec<u64> = (1..=4000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        let store_all = || keys.iter().for_each(|&key| tt.store(key, 0, entry(1, 10, 0, 5, Bound::Exact)));
        // While warming, a key is stored or skipped, and never misread.
        store_all();
        for &key in &keys {
            assert!(tt.probe(key, 0, 0).is_none_or(|hit| hit.packed_move == 1 && hit.depth == 5));
        }
        let started = std::time::Instant::now();
        while tt.buckets.region.warmed_len() < tt.buckets.len() * BUCKET_BYTES {
            assert!(started.elapsed().as_secs() < 120, "still warming");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        // Warm, the whole table is in use.
        store_all();
        assert!(keys.iter().all(|&key| tt.probe(key, 0, 0).is_some()));
    }

    #[test]
    fn own_entry_keeps_depth_and_move() {
        let tt = TranspositionTable::new(1).unwrap();
        tt.store(77 << 40, 0, entry(123, 10, 0, 12, Bound::Lower));
        // Much shallower, not exact, same search: ignored.
        tt.store(77 << 40, 0, entry(456, 99, 0, 3, Bound::Upper));
        let hit = tt.probe(77 << 40, 0, 0).unwrap();
        assert_eq!((hit.depth, hit.packed_move, hit.score), (12, 123, 10));
        // Exact replaces, and a result without a move keeps the old one.
        tt.store(77 << 40, 0, entry(0, 5, 0, 3, Bound::Exact));
        let hit = tt.probe(77 << 40, 0, 0).unwrap();
        assert_eq!((hit.depth, hit.packed_move, hit.score, hit.bound), (3, 123, 5, Bound::Exact));
        assert_eq!(tt.megabytes(), 1);
    }
}
