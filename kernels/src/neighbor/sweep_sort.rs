//! The box ends of the sort-and-sweep, and the insertion sort of an axis with the swap
//! rules (Schinner 1999, Table 3; Chen & Matuttis 2013, Appendix A.2), in pieces that
//! threads sort apart and seams sorted after (`sweep.rs` holds the rest of the method).
//!
//! An end is stored as one `u32`, its tag: one bit (0 = begin, 1 = end), then the 31-bit
//! particle index. Its value is not stored beside it: the boxes hold it (the stored ones,
//! and during an update the staged new ones), and a comparison reads it from there into a
//! `u64` key: the ordered bits of the `f32` value, then the tag. Comparing keys compares
//! values; at equal values a begin sorts before an end, so touching boxes (closed
//! intervals) overlap, and at equal value and kind the lower index first. Keeping the
//! values out of the sorted arrays halves them (8 bytes a box end in 3D were 48 bytes a
//! sphere); the sort's reads of the values are the ones the key pass before it made.
//!
//! Any sort that only swaps neighbours in the wrong order swaps every pair of ends that
//! was in the wrong order exactly once, and no other pair: pieces sorted apart and then
//! their seams make the same swaps as one insertion sort of the axis, so the same pair
//! changes (in another order, fixed by the pieces' length, not by the thread count).
use super::{Aabb, DIM};

/// Ends per piece of an axis' sort: a piece's keys (128 KB) stay in a core's cache while
/// it is sorted, and 10^5 particles give 13 pieces per axis for the threads to share.
pub const PIECE: usize = 1 << 14;

const END_BIT: u32 = 1 << 31;
/// The particle index bits of a tag.
pub(super) const IDX_MASK: u32 = END_BIT - 1;

/// Map an `f32` to a `u32` whose unsigned order is the float order.
#[inline]
pub(super) fn ordered(f: f32) -> u32 {
    let b = f.to_bits();
    if b & 0x8000_0000 != 0 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// The tag of particle `p`'s begin or end.
#[inline]
pub(super) fn tag(end: bool, p: u32) -> u32 {
    ((end as u32) << 31) | p
}

/// The sort key of the end `t` whose value is `v`.
#[inline]
pub(super) fn key(v: f32, t: u32) -> u64 {
    ((ordered(v) as u64) << 32) | t as u64
}

#[inline]
pub(super) fn idx(t: u32) -> usize {
    (t & IDX_MASK) as usize
}

#[inline]
pub(super) fn is_end(t: u32) -> bool {
    t & END_BIT != 0
}

/// The key of end `t` on `axis` of the boxes `b` (stored boxes).
#[inline]
pub(super) fn stored_key(b: &[Aabb], axis: usize, t: u32) -> u64 {
    key(b[idx(t)][2 * axis + is_end(t) as usize], t)
}

#[inline]
pub(super) fn overlap_axis(a: &Aabb, b: &Aabb, axis: usize) -> bool {
    a[2 * axis] <= b[2 * axis + 1] && b[2 * axis] <= a[2 * axis + 1]
}

#[inline]
pub(super) fn ordered_pair(a: usize, b: usize) -> (u32, u32) {
    if a < b {
        (a as u32, b as u32)
    } else {
        (b as u32, a as u32)
    }
}

/// A piece of one axis' ends to sort by the staged boxes (see [`super::SweepAndPrune::pieces`]).
pub struct SortPiece<'a> {
    pub(super) ends: &'a mut [u32],
    pub(super) rules: SwapRules<'a>,
    /// Where the piece's swap count goes.
    pub(super) swaps: &'a mut u64,
}

impl SortPiece<'_> {
    /// Insertion-sort the piece's ends by the staged boxes, collecting the pair changes of
    /// its swaps.
    pub fn run(&mut self) {
        let r = &mut self.rules;
        r.adds.clear();
        r.removes.clear();
        r.swaps = 0;
        let ends = &mut *self.ends;
        if let Some(&first) = ends.first() {
            // The largest key of the sorted prefix: an end at or above it stays (the common
            // case), one value read per end.
            let mut top = r.new_key(first);
            for k in 1..ends.len() {
                let e = r.new_key(ends[k]);
                if e >= top {
                    top = e;
                } else {
                    r.insert(ends, k, e);
                }
            }
        }
        *self.swaps = r.swaps;
    }
}

/// What a swap of two ends of one axis needs: the boxes before and after the update, and
/// where the pair changes and the count of swaps go.
pub(super) struct SwapRules<'a> {
    pub axis: usize,
    pub old: &'a [Aabb],
    /// The new [lo, hi] per particle on each axis.
    pub new: [&'a [[f32; 2]]; DIM],
    pub adds: &'a mut Vec<(u32, u32)>,
    pub removes: &'a mut Vec<(u32, u32)>,
    pub swaps: u64,
}

impl SwapRules<'_> {
    /// The key of end `t` by its staged (new) box.
    #[inline]
    fn new_key(&self, t: u32) -> u64 {
        key(self.new[self.axis][idx(t)][is_end(t) as usize], t)
    }

    /// The seam at `start` of an axis whose ends before `start` are sorted and whose ends
    /// `start..end` (the next piece) are sorted: its ends moved down into place, until one
    /// is already in place (the rest of the piece is above it).
    pub fn sort_seam(&mut self, ends: &mut [u32], start: usize, end: usize) {
        for k in start..end {
            let e = self.new_key(ends[k]);
            if e >= self.new_key(ends[k - 1]) {
                break;
            }
            self.insert(ends, k, e);
        }
    }

    /// Move `ends[k]`, whose key is `e_key`, down past the larger ends before it, applying
    /// the swap rules to each swap.
    #[inline]
    fn insert(&mut self, ends: &mut [u32], k: usize, e_key: u64) {
        let e = ends[k];
        let (axis, old, new) = (self.axis, self.old, self.new);
        let mut j = k;
        while j > 0 && self.new_key(ends[j - 1]) > e_key {
            let f = ends[j - 1];
            self.swaps += 1;
            if is_end(e) != is_end(f) {
                let (pe, pf) = (idx(e), idx(f));
                let b = |p: usize| -> Aabb { std::array::from_fn(|k| new[k / 2][p][k % 2]) };
                let (ne, nf) = (&b(pe), &b(pf));
                let (oe, of) = (&old[pe], &old[pf]);
                if !is_end(e) {
                    // Begin of pe moved below the end of pf: overlap on this axis may
                    // start. Registered here if the boxes overlap now on the later axes
                    // and overlapped before on the earlier ones: a pair whose overlap
                    // starts on several axes in one update is added once, by the first.
                    let add = overlap_axis(ne, nf, axis)
                        && (0..axis).all(|o| overlap_axis(oe, of, o))
                        && (axis + 1..DIM).all(|o| overlap_axis(ne, nf, o));
                    if add {
                        self.adds.push(ordered_pair(pe, pf));
                    }
                } else if (0..DIM).all(|o| o == axis || overlap_axis(oe, of, o) || overlap_axis(ne, nf, o)) {
                    // End of pe moved below the begin of pf: their overlap on this axis
                    // ended. Only a pair that overlapped, before or now, on each other
                    // axis can be present.
                    self.removes.push(ordered_pair(pe, pf));
                }
            }
            ends[j] = f;
            j -= 1;
        }
        ends[j] = e;
    }
}
