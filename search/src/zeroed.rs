//! Large zero-filled memory that costs nothing until it is written: the
//! transposition table's storage.
//!
//! On Linux the memory is an anonymous private mapping of our own: the
//! kernel hands out zero pages as they are first touched, so a 64 GB table
//! is allocated at once.
//! The part aligned to 2 MB is advised to use transparent huge pages, and
//! clearing gives the pages back to the kernel (`MADV_DONTNEED`), which
//! zero-fills them again on demand: a cleared table is as cheap as a new one.
//!
//! Elsewhere the memory comes from the allocator's zeroed path
//! (`calloc`, which takes fresh zero pages from the OS for large sizes),
//! aligned by hand to a cache line, and clearing writes zeros with several
//! threads.
//!
//! Zero pages are not free, though: the first write to each costs a page
//! fault that zero-fills it, and on a virtual machine whose host has not
//! backed the memory yet that is milliseconds per huge page. A search that
//! met those faults node by node crawled at a few hundred nodes a second
//! for the first seconds of a game with an 8 GB table. So the region is
//! *warmed*: every page is faulted in ahead of use ([`ZeroedRegion::warm`]),
//! at once for a small region, by a background thread for a large one,
//! which publishes how far it has got ([`ZeroedRegion::warmed_len`]). The
//! table uses only the warmed part, so it grows from empty to its full size
//! while the engine already searches, and no command waits for it.

use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::thread::JoinHandle;

/// (Transparent) huge pages are this large; large regions are aligned to them.
pub const HUGE_PAGE: usize = 2 << 20;
/// Every region starts on a cache line at least.
const CACHE_LINE: usize = 64;
/// Regions up to this size are warmed at once (worst seen: about 0.2 s on
/// a fresh virtual machine); larger ones in the background.
const WARM_AT_ONCE_BYTES: usize = 64 << 20;
/// The warmer touches one word in every page of this size (the smallest
/// page any supported system has).
const SMALL_PAGE: usize = 4096;

/// A region of `len` zeroed bytes, aligned to [`CACHE_LINE`] (to
/// [`HUGE_PAGE`] when at least that large).
pub struct ZeroedRegion {
    /// The aligned start.
    start: NonNull<u8>,
    len: usize,
    /// What was obtained, to give back.
    source: Source,
    /// How far warming has got, shared with the warming thread.
    warming: Arc<Warming>,
    /// The background warming thread, while there is one.
    warmer: Option<JoinHandle<()>>,
}

/// What the region and its warming thread share.
#[derive(Default)]
struct Warming {
    /// Bytes from the start known to be resident.
    warmed: AtomicUsize,
    /// Set to make the thread stop at its next page.
    stop: AtomicBool,
}

enum Source {
    /// An anonymous mapping: its base and length.
    #[cfg(target_os = "linux")]
    Mapping { base: NonNull<u8>, len: usize },
    /// An allocation: its base and layout.
    #[cfg_attr(target_os = "linux", allow(dead_code))]
    Allocation { base: NonNull<u8>, layout: std::alloc::Layout },
}

// Safety: the region is plain memory owned by this value alone (like a
// `Box<[u8]>`); what is stored in it, and how threads share it, is up to
// the owner, who hands out references only through its own types.
unsafe impl Send for ZeroedRegion {}
// Safety: as above; `&ZeroedRegion` only gives out the start pointer.
unsafe impl Sync for ZeroedRegion {}

impl ZeroedRegion {
    /// `len` (> 0) zeroed bytes, or an error if they cannot be had.
    pub fn new(len: usize) -> Result<ZeroedRegion, String> {
        assert!(len > 0, "an empty region");
        let align = if len >= HUGE_PAGE { HUGE_PAGE } else { CACHE_LINE };
        let total = len.checked_add(align).ok_or("size overflows")?;
        let cannot = || format!("cannot allocate {} MB", len >> 20);
        let (base, source) = obtain(total).ok_or_else(cannot)?;
        let offset = base.as_ptr().align_offset(align);
        // Safety: `offset < align`, so `start..start + len` lies inside the
        // `total = len + align` bytes obtained.
        let start = unsafe { NonNull::new_unchecked(base.as_ptr().add(offset)) };
        let region = ZeroedRegion { start, len, source, warming: Arc::default(), warmer: None };
        if len >= HUGE_PAGE {
            os::advise_huge_pages(region.start.as_ptr(), len);
        }
        Ok(region)
    }

    /// The aligned start of the region's bytes.
    pub fn as_ptr(&self) -> *mut u8 {
        self.start.as_ptr()
    }

    /// How many bytes from the start are known to be resident: all of them
    /// once [`ZeroedRegion::warm`] has finished. Only a hint (it may lag
    /// behind the warming thread): every byte of the region can be used at
    /// any time; the unwarmed ones are only slow the first time.
    pub fn warmed_len(&self) -> usize {
        self.warming.warmed.load(Ordering::Relaxed)
    }

    /// Faults every page of the region in without changing its contents:
    /// at once up to [`WARM_AT_ONCE_BYTES`], else on a background thread
    /// (see the module's notes). Does nothing while a warming is under way
    /// or done.
    pub fn warm(&mut self) {
        if self.warmer.is_some() || self.warmed_len() >= self.len {
            return;
        }
        let (start, len, warming) = (self.start.as_ptr() as usize, self.len, Arc::clone(&self.warming));
        if len <= WARM_AT_ONCE_BYTES {
            // Safety: `start..start + len` is this region, which `&mut self`
            // keeps alive and unshared for the call.
            unsafe { touch_pages(start, len, &warming) };
            return;
        }
        let spawned = std::thread::Builder::new().name("hash-warmer".into()).spawn(move || {
            // Safety: `start..start + len` is this region, which outlives the
            // thread: `stop_warming`, called before the region is discarded
            // or freed, joins it. The table's entries are atomics.
            unsafe { touch_pages(start, len, &warming) }
        });
        match spawned {
            Ok(handle) => self.warmer = Some(handle),
            // No thread: the pages will fault in as they are used.
            Err(_) => self.warming.warmed.store(len, Ordering::Relaxed),
        }
    }

    /// Stops a background warming and waits for its thread (which checks
    /// once per huge page).
    fn stop_warming(&mut self) {
        if let Some(handle) = self.warmer.take() {
            self.warming.stop.store(true, Ordering::Relaxed);
            let _ = handle.join();
            self.warming.stop.store(false, Ordering::Relaxed);
        }
    }

    /// Sets every byte to zero again, with up to `threads` threads where
    /// the bytes have to be written. Where the pages go back to the system
    /// instead, the region has to be warmed again.
    pub fn zero(&mut self, threads: usize) {
        self.stop_warming();
        #[cfg(target_os = "linux")]
        if let Source::Mapping { .. } = self.source
            && os::discard(self.start.as_ptr(), self.len)
        {
            self.warming.warmed.store(0, Ordering::Relaxed);
            return;
        }
        // Safety: the region is ours, `len` bytes long, and `&mut self`
        // rules out any other access while it is written.
        let bytes = unsafe { std::slice::from_raw_parts_mut(self.start.as_ptr(), self.len) };
        let chunk = self.len.div_ceil(threads.max(1)).max(1);
        std::thread::scope(|scope| {
            for part in bytes.chunks_mut(chunk) {
                scope.spawn(move || part.fill(0));
            }
        });
        self.warming.warmed.store(self.len, Ordering::Relaxed);
    }
}

/// Writes to every page of `start..start + len` without changing a byte,
/// publishing progress in `warming.warmed` once per huge page and stopping
/// when `warming.stop` is set.
///
/// # Safety
/// `start..start + len` must be one live region, aligned to 8 bytes, whose
/// bytes are only ever accessed through atomics (the table's entries are)
/// or by its exclusive owner, and it must outlive the call.
unsafe fn touch_pages(start: usize, len: usize, warming: &Warming) {
    let mut offset = 0;
    while offset < len && !warming.stop.load(Ordering::Relaxed) {
        let end = (offset + HUGE_PAGE).min(len);
        for page in (offset..end).step_by(SMALL_PAGE).filter(|page| page + 8 <= len) {
            // Safety: inside the region and 8-byte aligned (the region and
            // the page offsets are).
            let word = unsafe { &*((start + page) as *const AtomicU64) };
            // A compare-exchange of the word's own value is a write that
            // changes nothing, and fails harmlessly if a concurrent writer
            // got there first. (An OR with zero would not do: the compiler
            // may turn it into a load, and a read maps the shared zero page.)
            let value = word.load(Ordering::Relaxed);
            let _ = word.compare_exchange(value, value, Ordering::Relaxed, Ordering::Relaxed);
        }
        offset = end;
        warming.warmed.store(offset, Ordering::Relaxed);
    }
}

/// `total` zeroed bytes, from a mapping where there is one, else from the allocator.
fn obtain(total: usize) -> Option<(NonNull<u8>, Source)> {
    #[cfg(target_os = "linux")]
    if let Some(base) = os::map(total) {
        return Some((base, Source::Mapping { base, len: total }));
    }
    let layout = std::alloc::Layout::from_size_align(total, 16).ok()?;
    // Safety: `layout` has a non-zero size. An alignment of 16 keeps the
    // allocator on its `calloc` path, which takes zero pages from the OS
    // for large sizes instead of writing zeros.
    let base = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })?;
    Some((base, Source::Allocation { base, layout }))
}

impl Drop for ZeroedRegion {
    fn drop(&mut self) {
        self.stop_warming();
        match self.source {
            #[cfg(target_os = "linux")]
            Source::Mapping { base, len } => os::unmap(base.as_ptr(), len),
            // Safety: `base` came from `alloc_zeroed(layout)` and is freed once.
            Source::Allocation { base, layout } => unsafe { std::alloc::dealloc(base.as_ptr(), layout) },
        }
    }
}

#[cfg(target_os = "linux")]
mod os {
    //! The few Linux calls the region needs, through the `libc` crate.
    use std::ptr::NonNull;

    use libc::{MADV_DONTNEED, MADV_HUGEPAGE, MAP_ANONYMOUS, MAP_FAILED, MAP_PRIVATE, PROT_READ, PROT_WRITE};

    /// A fresh private anonymous mapping of `len` bytes (zero pages, made
    /// resident only when touched).
    pub fn map(len: usize) -> Option<NonNull<u8>> {
        // Safety: a new anonymous mapping at an address of the kernel's
        // choosing touches no existing memory; failure is MAP_FAILED (-1).
        let ptr = unsafe {
            libc::mmap(std::ptr::null_mut(), len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        };
        if ptr == MAP_FAILED { None } else { NonNull::new(ptr.cast()) }
    }

    pub fn unmap(base: *mut u8, len: usize) {
        // Safety: `base..base + len` is exactly one mapping made by `map`,
        // unmapped once, when nothing refers to it any more.
        unsafe { libc::munmap(base.cast(), len) };
    }

    /// Asks for huge pages under `start..start + len` (a hint: failure, or
    /// a kernel without them, changes nothing but speed).
    pub fn advise_huge_pages(start: *mut u8, len: usize) {
        // Safety: the range lies inside one of our mappings, and
        // MADV_HUGEPAGE changes no contents.
        unsafe { libc::madvise(start.cast(), len, MADV_HUGEPAGE) };
    }

    /// Gives the pages under `start..start + len` (`start` page-aligned) back
    /// to the kernel: they read as zeros again. False if that failed.
    pub fn discard(start: *mut u8, len: usize) -> bool {
        // Safety: the range lies inside one of our private anonymous
        // mappings, to which the caller holds the only access; for such a
        // mapping MADV_DONTNEED means zero-filled pages on the next touch.
        unsafe { libc::madvise(start.cast(), len, MADV_DONTNEED) == 0 }
    }
}

#[cfg(not(target_os = "linux"))]
mod os {
    pub fn advise_huge_pages(_start: *mut u8, _len: usize) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Resident memory of this process in bytes (Linux: /proc/self/statm).
    #[cfg(target_os = "linux")]
    fn resident_bytes() -> usize {
        let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
        let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
        pages * 4096
    }

    #[test]
    fn regions_are_aligned_zeroed_and_cleared() {
        for len in [64, 4096 + 64, HUGE_PAGE, 3 * HUGE_PAGE + 640] {
            let mut region = ZeroedRegion::new(len).unwrap();
            let align = if len >= HUGE_PAGE { HUGE_PAGE } else { CACHE_LINE };
            assert_eq!(region.as_ptr() as usize % align, 0);
            // Safety: the region's `len` bytes are ours.
            let bytes = unsafe { std::slice::from_raw_parts_mut(region.as_ptr(), len) };
            assert!(bytes.iter().all(|&b| b == 0));
            bytes[0] = 1;
            bytes[len / 2] = 2;
            bytes[len - 1] = 3;
            region.zero(3);
            // Safety: as above, after the exclusive `zero`.
            let bytes = unsafe { std::slice::from_raw_parts(region.as_ptr(), len) };
            assert!(bytes.iter().all(|&b| b == 0), "{len}");
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_large_region_is_resident_only_where_written() {
        const LEN: usize = 1 << 30;
        let before = resident_bytes();
        let mut region = ZeroedRegion::new(LEN).unwrap();
        let fresh = resident_bytes();
        // Other tests run beside this one: allow them some memory.
        assert!(fresh < before + (64 << 20), "{before} -> {fresh}");
        // Writing one byte every 1 MB makes at most a page (or huge page) each resident.
        for offset in (0..LEN).step_by(1 << 20) {
            // Safety: inside the region.
            unsafe { region.as_ptr().add(offset).write(7) };
        }
        region.zero(2);
        assert!(resident_bytes() < before + (64 << 20), "cleared: {}", resident_bytes());
        // Safety: inside the region.
        assert_eq!(unsafe { region.as_ptr().add(1 << 20).read() }, 0);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn warming_makes_a_region_resident_without_changing_it() {
        const LEN: usize = 256 << 20;
        let mut region = ZeroedRegion::new(LEN).unwrap();
        assert_eq!(region.warmed_len(), 0);
        // Safety: inside the region, before any warming thread exists.
        unsafe { region.as_ptr().add(LEN - 8).cast::<u64>().write(0x5eed) };
        let before = resident_bytes();
        region.warm();
        let started = std::time::Instant::now();
        while region.warmed_len() < LEN {
            assert!(started.elapsed().as_secs() < 120, "warmed {} of {LEN}", region.warmed_len());
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        // Other tests free memory beside this one: allow them some.
        assert!(resident_bytes() + (64 << 20) > before + LEN, "{before} -> {}", resident_bytes());
        region.stop_warming();
        // Safety: inside the region; the warming thread has ended.
        let bytes = unsafe { std::slice::from_raw_parts(region.as_ptr(), LEN) };
        assert!(bytes[..LEN - 8].iter().all(|&b| b == 0));
        assert_eq!(u64::from_ne_bytes(bytes[LEN - 8..].try_into().unwrap()), 0x5eed);
        // Clearing in the middle of a warming stops it, and the cleared
        // region has to be warmed again.
        region.warm();
        region.zero(2);
        assert!(region.warmer.is_none());
        assert_eq!(region.warmed_len(), 0);
    }

    #[test]
    fn a_small_region_is_warm_at_once() {
        let mut region = ZeroedRegion::new(3 * HUGE_PAGE + 640).unwrap();
        region.warm();
        assert_eq!(region.warmed_len(), 3 * HUGE_PAGE + 640);
        assert!(region.warmer.is_none());
    }
}
