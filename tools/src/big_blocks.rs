//! The program's allocator: glibc's malloc for blocks under 1 MiB, and for each block of
//! 1 MiB or more (the particle and pair arrays of a run of 10^5 particles and more) a
//! mapping of its own, at a 2 MiB boundary, given back to the kernel when it is freed.
//!
//! Why: glibc raises its mmap threshold to the size of each mapped block freed (up to 32
//! MiB), so once a set-up has freed its temporaries (a tiled bed's records, a rebuild's
//! pair list: tens of MB at 10^5-10^6 particles) the run's big arrays and the steps'
//! buffers come from its heap, and what they leave free there stays resident: at 583,200
//! spheres 11-14 MB beyond the arrays, 20-25 bytes a sphere (BENCHMARKS.md, "Issue 19's
//! memory: big blocks mapped"). A fixed threshold (`mallopt`) gives them back too, but its
//! mappings lie anywhere: only 71 MB of 204 were in huge pages, where the heap had 174 of
//! 217, and the step was slower. Here a block starts at a huge page's boundary, and where
//! the program runs in huge pages (`huge_pages.rs`) it is advised for them
//! (`madvise(MADV_HUGEPAGE)`): its whole 2 MiB pages are huge, its last partial one in
//! small pages (rounding it up would make a whole huge page resident for its tail).
//!
//! Each block starts a few cache lines past its boundary, a different number for each: at
//! the same offset, particle p of every array fell in the same set of the level-1 cache,
//! and the 15 arrays a sphere's pass reads and writes evicted each other (583,200 spheres
//! 14 % slower than in the heap, where the arrays' starts differ by their sizes).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Blocks of this size or more are mapped (module doc).
const BIG: usize = 1 << 20;

/// The huge page's size, and the boundary every mapped block starts at.
const HUGE: usize = 2 << 20;

/// The small page's size: mapped lengths are rounded up to it.
const PAGE: usize = 4096;

/// Whether mapped blocks are advised for huge pages (set once, from `main`).
static ADVISE: AtomicBool = AtomicBool::new(false);

/// The blocks mapped so far: the next one's offset from its boundary (module doc).
static MAPPED: AtomicUsize = AtomicUsize::new(0);

/// The cache line: offsets are multiples of it, so a block is aligned to it.
const LINE: usize = 64;

/// The next block's offset from its huge page's boundary: `LINE` times 0 to 63, stepping
/// by 37 (prime to 64), so that the next 64 blocks each start in a set of their own of a
/// cache indexed by the address's bits 6-11 (a 32 KiB, 8-way level-1 cache).
fn next_offset() -> usize {
    let k = MAPPED.fetch_add(1, Ordering::Relaxed);
    (k * 37 % 64) * LINE
}

/// Advise the mapped blocks allocated from now on for huge pages.
pub fn advise_huge_pages() {
    ADVISE.store(true, Ordering::Relaxed);
}

/// The allocator (module doc).
pub struct BigBlocks;

fn mapped(size: usize, align: usize) -> bool {
    size >= BIG && align <= LINE
}

/// The huge page's boundary below a mapped block's start: where its mapping begins.
fn base_of(ptr: *mut u8) -> usize {
    ptr as usize & !(HUGE - 1)
}

fn round_up(v: usize, to: usize) -> usize {
    v.div_ceil(to) * to
}

/// `len` bytes of new address space at a `HUGE` boundary, mapped with `prot` (and
/// `flags`): a mapping `HUGE` longer, cut to the boundary at both ends. None where the
/// kernel refuses.
///
/// # Safety
/// None beyond mmap's: the mapping is new, and the parts cut off are parts of it that
/// nothing refers to.
unsafe fn aligned_range(len: usize, prot: libc::c_int, flags: libc::c_int) -> Option<usize> {
    let span = len.checked_add(HUGE)?;
    let raw = libc::mmap(
        std::ptr::null_mut(),
        span,
        prot,
        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | flags,
        -1,
        0,
    );
    if raw == libc::MAP_FAILED {
        return None;
    }
    let raw = raw as usize;
    let start = round_up(raw, HUGE);
    let head = start - raw;
    if head > 0 {
        libc::munmap(raw as *mut libc::c_void, head);
    }
    let tail = span - head - len;
    if tail > 0 {
        libc::munmap((start + len) as *mut libc::c_void, tail);
    }
    Some(start)
}

/// Advise the block's range for huge pages where the program runs in them (only advice: a
/// kernel that refuses it leaves the block in small pages).
///
/// # Safety
/// `[start, start + len)` must be a mapping of this allocator's.
unsafe fn advise(start: usize, len: usize) {
    if len >= HUGE && ADVISE.load(Ordering::Relaxed) {
        libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

/// A new zero-filled block of `size` bytes, [`next_offset`] past a `HUGE` boundary where
/// its mapping begins, or null.
fn map(size: usize) -> *mut u8 {
    let offset = next_offset();
    let Some(len) = size.checked_add(offset).and_then(|s| s.checked_next_multiple_of(PAGE)) else {
        return std::ptr::null_mut();
    };
    // SAFETY: a new private anonymous mapping; no memory of the program is touched.
    unsafe {
        let Some(start) = aligned_range(len, libc::PROT_READ | libc::PROT_WRITE, 0) else {
            return std::ptr::null_mut();
        };
        advise(start, len);
        (start + offset) as *mut u8
    }
}

/// Give back the mapped block `ptr` of `size` bytes.
///
/// # Safety
/// `ptr` must be a block of `size` bytes made by [`map`] or [`remap`], not used after.
unsafe fn unmap(ptr: *mut u8, size: usize) {
    let base = base_of(ptr);
    let len = round_up(ptr as usize - base + size, PAGE);
    libc::munmap(base as *mut libc::c_void, len);
}

/// The mapped block `ptr` of `old` bytes as one of `new` bytes, at the same offset past a
/// `HUGE` boundary, its contents kept (the pages themselves moved by `mremap`), or null
/// (the old block then stays as it was).
///
/// # Safety
/// `ptr` must be a block of `old` bytes made by [`map`] (or by this), not used after.
unsafe fn remap(ptr: *mut u8, old: usize, new: usize) -> *mut u8 {
    let (base, offset) = (base_of(ptr), ptr as usize - base_of(ptr));
    let old_len = round_up(offset + old, PAGE);
    let Some(len) = new.checked_add(offset).and_then(|s| s.checked_next_multiple_of(PAGE)) else {
        return std::ptr::null_mut();
    };
    if len <= old_len {
        // Shrunk in place: its pages past the new end given back.
        if len < old_len {
            libc::munmap((base + len) as *mut libc::c_void, old_len - len);
        }
        return ptr;
    }
    // A reserved range (no access) at a boundary, which the block's pages replace.
    let Some(start) = aligned_range(len, libc::PROT_NONE, libc::MAP_NORESERVE) else {
        return std::ptr::null_mut();
    };
    let moved = libc::mremap(
        base as *mut libc::c_void,
        old_len,
        len,
        libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
        start as *mut libc::c_void,
    );
    if moved == libc::MAP_FAILED {
        libc::munmap(start as *mut libc::c_void, len);
        return std::ptr::null_mut();
    }
    advise(start, len);
    (start + offset) as *mut u8
}

// SAFETY: every block comes either from `System` (and goes back to it) or from `map` or
// `remap` (and goes back by `unmap`, which finds its mapping from its address and size):
// which one is decided by the layout's size and alignment alone, which the caller passes
// unchanged to `dealloc` and `realloc`. A mapped block is aligned to `LINE`, at least the
// layout's alignment, and zero-filled.
unsafe impl GlobalAlloc for BigBlocks {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if mapped(layout.size(), layout.align()) {
            map(layout.size())
        } else {
            System.alloc(layout)
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if mapped(layout.size(), layout.align()) {
            map(layout.size())
        } else {
            System.alloc_zeroed(layout)
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if mapped(layout.size(), layout.align()) {
            unmap(ptr, layout.size());
        } else {
            System.dealloc(ptr, layout)
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let (was, will) = (mapped(layout.size(), layout.align()), mapped(new_size, layout.align()));
        if !was && !will {
            return System.realloc(ptr, layout, new_size);
        }
        if was && will {
            // Its pages moved, not copied: a copy would hold the old block and the new at
            // once (the contact table grown by 1/8: 2.1 times its size for a moment).
            return remap(ptr, layout.size(), new_size);
        }
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        let new = self.alloc(new_layout);
        if !new.is_null() {
            std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
            self.dealloc(ptr, layout);
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapped_blocks_are_aligned_zeroed_and_keep_their_contents_when_grown() {
        let a = BigBlocks;
        for size in [BIG, BIG + 1, HUGE, 3 * HUGE + 12_345] {
            let l = Layout::from_size_align(size, 8).unwrap();
            // SAFETY: layouts of non-zero size; each block freed with its own layout.
            unsafe {
                let p = a.alloc(l);
                assert!(!p.is_null());
                assert_eq!(p as usize % LINE, 0, "{size}");
                assert!(p as usize - base_of(p) < 64 * LINE, "{size}");
                let s = std::slice::from_raw_parts_mut(p, size);
                assert!(s.iter().all(|&b| b == 0), "{size}: not zero-filled");
                s.iter_mut().enumerate().for_each(|(k, b)| *b = k as u8);
                // Grown and shrunk (still mapped), then shrunk under the threshold (back
                // to malloc).
                let q = a.realloc(p, l, 2 * size);
                let s = std::slice::from_raw_parts(q, size);
                assert!(s.iter().enumerate().all(|(k, &b)| b == k as u8), "{size}: grown");
                let l2 = Layout::from_size_align(2 * size, 8).unwrap();
                let q = a.realloc(q, l2, size);
                let s = std::slice::from_raw_parts(q, size);
                assert!(s.iter().enumerate().all(|(k, &b)| b == k as u8), "{size}: shrunk");
                let r = a.realloc(q, l, 1000);
                let s = std::slice::from_raw_parts(r, 1000);
                assert!(s.iter().enumerate().all(|(k, &b)| b == k as u8), "{size}: to malloc");
                a.dealloc(r, Layout::from_size_align(1000, 8).unwrap());
            }
        }
        let v: Vec<f64> = vec![1.5; BIG];
        assert_eq!(v.iter().sum::<f64>(), 1.5 * BIG as f64);
    }
}
