//! Double-Ended Spatial Sorting (Perkins, thesis section 5.1).
//!
//! Both ends of every box are kept sorted on each axis (insertion sort: the order barely
//! changes between steps), and every object's rank of its lower and upper end on each axis
//! is read off the sorted lists. The pair set is then found with integer comparisons only:
//! for each lower end on the master axis x, the entries up to the object's own upper end
//! are scanned; every lower end met there belongs to an object whose box starts inside this
//! one on x, and the two boxes overlap if their ranks say so on y. Each pair is found once,
//! from the box that starts first on x (Perkins' case columns 4 and 5). The scan is
//! O(N sqrt(N)) in a square sample (an x range holds ~sqrt(N) ends); unlike the incremental
//! sweep, the set is found anew each step and diffed with the last one.
use super::{boxes_overlap, scan_query, PairSet, WholeSet};

const END_BIT: u64 = 1 << 31;
const IDX_MASK: u64 = END_BIT - 1;

/// Ordered bits of the value, then the end bit (a begin sorts before an end of equal value:
/// closed intervals), then the index.
#[inline]
fn key(v: f32, end: bool, p: usize) -> u64 {
    let b = v.to_bits();
    let ordered = if b & 0x8000_0000 != 0 { !b } else { b | 0x8000_0000 };
    ((ordered as u64) << 32) | ((end as u64) << 31) | p as u64
}

/// Double-Ended Spatial Sorting (see the module documentation).
#[derive(Debug, Default, Clone)]
pub struct Dess {
    boxes: Vec<[f32; 4]>,
    /// Sorted ends per axis.
    ends: [Vec<u64>; 2],
    /// Per axis and object: positions of its lower and upper end in `ends`.
    rank: [Vec<[u32; 2]>; 2],
    set: PairSet,
    /// Insertion-sort moves of the last refresh.
    pub swaps: u64,
}

impl Dess {
    /// An empty search; the first rebuild stores the boxes.
    pub fn new() -> Self {
        Self::default()
    }

    /// New key values from the stored boxes, the lists sorted again (insertion sort when
    /// the lists exist and hold every object, a full sort otherwise), ranks recomputed.
    fn sort(&mut self) {
        let n = self.boxes.len();
        self.swaps = 0;
        for a in 0..2 {
            let ends = &mut self.ends[a];
            if ends.len() != 2 * n {
                ends.clear();
                for (p, b) in self.boxes.iter().enumerate() {
                    ends.push(key(b[2 * a], false, p));
                    ends.push(key(b[2 * a + 1], true, p));
                }
                ends.sort_unstable();
            } else {
                for k in ends.iter_mut() {
                    let p = (*k & IDX_MASK) as usize;
                    let end = *k & END_BIT != 0;
                    *k = key(self.boxes[p][2 * a + end as usize], end, p);
                }
                self.swaps += super::insertion_sort(ends);
            }
            let rank = &mut self.rank[a];
            rank.clear();
            rank.resize(n, [0; 2]);
            for (i, &k) in ends.iter().enumerate() {
                rank[(k & IDX_MASK) as usize][(k & END_BIT != 0) as usize] = i as u32;
            }
        }
    }

    /// The whole pair set, sorted, into `out`.
    fn find_pairs(&self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        let (ex, rx, ry) = (&self.ends[0], &self.rank[0], &self.rank[1]);
        for (i, &k) in ex.iter().enumerate() {
            if k & END_BIT != 0 {
                continue;
            }
            let p = (k & IDX_MASK) as usize;
            let [p_lo_y, p_hi_y] = ry[p];
            for &kq in &ex[i + 1..rx[p][1] as usize] {
                if kq & END_BIT != 0 {
                    continue;
                }
                let q = (kq & IDX_MASK) as usize;
                let [q_lo_y, q_hi_y] = ry[q];
                if q_lo_y < p_hi_y && p_lo_y < q_hi_y {
                    out.push(if p < q {
                        (p as u32, q as u32)
                    } else {
                        (q as u32, p as u32)
                    });
                }
            }
        }
        out.sort_unstable();
    }
}

impl WholeSet for Dess {
    const NAME: &'static str = "dess";

    kept_fields!();

    fn index(&mut self, fresh: bool) {
        if fresh {
            self.forget();
        }
        self.sort();
    }

    fn find(&self, out: &mut Vec<(u32, u32)>) {
        self.find_pairs(out)
    }

    fn query_index(&self, r: &[f32; 4], out: &mut Vec<u32>) {
        out.clear();
        let ex = &self.ends[0];
        if ex.len() != 2 * self.boxes.len() {
            scan_query(&self.boxes, r, out);
            return;
        }
        let stop = ex.partition_point(|&k| k <= key(r[1], true, IDX_MASK as usize));
        for &k in &ex[..stop] {
            let p = (k & IDX_MASK) as usize;
            if k & END_BIT == 0 && boxes_overlap(&self.boxes[p], r) {
                out.push(p as u32);
            }
        }
    }

    fn forget(&mut self) {
        // The lists name old indices: sorted afresh at the next refresh.
        for e in &mut self.ends {
            e.clear();
        }
    }

    fn index_bytes(&self) -> usize {
        (self.ends[0].capacity() + self.ends[1].capacity() + self.rank[0].capacity() + self.rank[1].capacity()) * 8
    }
}
