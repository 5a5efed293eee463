//! Spatial hashing, Perkins' Hashing2 (thesis section 4.2): linked cells without a grid.
//!
//! Cells as wide as the widest box, named by integer coordinates of the box's lower
//! corner, are hashed into a table of about twice as many buckets as objects (the grid
//! folded onto a torus, so that neighbouring cells stay close in memory); the buckets
//! are built by a counting sort (no per-step clearing of a grid: the term that made
//! Perkins' first Hashing O(N sqrt(N)) is gone). There is no domain to declare: a cell is
//! wherever an object is. The pairs are found over the half shell of linked cells
//! (own cell, east, north-west, north, north-east); a bucket may hold other cells that
//! hashed to it, which are skipped by comparing cell coordinates.
use super::{boxes_overlap, scan_query, PairSet, WholeSet};

/// Spatial hashing of cells onto a torus of buckets (see the module documentation).
#[derive(Debug, Default, Clone)]
pub struct SpatialHash {
    boxes: Vec<[f32; 4]>,
    width: f64,
    /// The torus is 2^bits buckets on a side.
    bits: u32,
    /// Cell of each object's lower corner.
    cell: Vec<[i64; 2]>,
    /// `start[h]..start[h + 1]` = the objects of bucket h in `members`.
    start: Vec<u32>,
    members: Vec<u32>,
    set: PairSet,
}

/// The grid folded onto a torus of `2^bits x 2^bits` buckets (Perkins' Hashing folds the
/// grid the same way): neighbouring cells stay neighbours in memory, and two cells share a
/// bucket only if they are a multiple of the torus' side apart. (A scrambling hash spread
/// the half shell over the whole table: a cache miss per cell, N^1.34 from 10^4 to 10^6.)
#[inline]
fn hash(c: [i64; 2], bits: u32) -> usize {
    let m = (1u64 << bits) - 1;
    (((c[0] as u64) & m) | (((c[1] as u64) & m) << bits)) as usize
}

impl SpatialHash {
    /// An empty search; the first rebuild stores the boxes.
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    fn cell_of(&self, x: f64, y: f64) -> [i64; 2] {
        [(x / self.width).floor() as i64, (y / self.width).floor() as i64]
    }

    fn build(&mut self) {
        let n = self.boxes.len();
        let mut width = 0.0f64;
        for b in &self.boxes {
            width = width.max((b[1] - b[0]) as f64).max((b[3] - b[2]) as f64);
        }
        self.width = if width > 0.0 && width.is_finite() { width } else { 1.0 };
        // About two buckets per object: a torus side of sqrt(2 N), rounded up to a power of two.
        self.bits = ((2 * n).max(16) as f64).sqrt().log2().ceil() as u32;
        let buckets = 1usize << (2 * self.bits);
        self.cell.clear();
        for k in 0..n {
            let b = self.boxes[k];
            let c = self.cell_of(b[0] as f64, b[2] as f64);
            self.cell.push(c);
        }
        self.start.clear();
        self.start.resize(buckets + 1, 0);
        for c in &self.cell {
            self.start[hash(*c, self.bits) + 1] += 1;
        }
        for h in 0..buckets {
            self.start[h + 1] += self.start[h];
        }
        self.members.clear();
        self.members.resize(n, 0);
        let mut fill: Vec<u32> = self.start[..buckets].to_vec();
        for (p, c) in self.cell.iter().enumerate() {
            let h = hash(*c, self.bits);
            self.members[fill[h] as usize] = p as u32;
            fill[h] += 1;
        }
    }

    #[inline]
    fn bucket(&self, c: [i64; 2]) -> &[u32] {
        let h = hash(c, self.bits);
        &self.members[self.start[h] as usize..self.start[h + 1] as usize]
    }

    fn find_pairs(&self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        let push = |out: &mut Vec<(u32, u32)>, p: u32, q: u32| {
            if boxes_overlap(&self.boxes[p as usize], &self.boxes[q as usize]) {
                out.push(if p < q { (p, q) } else { (q, p) });
            }
        };
        for p in 0..self.boxes.len() as u32 {
            let c = self.cell[p as usize];
            for &q in self.bucket(c) {
                if q > p && self.cell[q as usize] == c {
                    push(out, p, q);
                }
            }
            for d in [[1, 0], [-1, 1], [0, 1], [1, 1]] {
                let o = [c[0].wrapping_add(d[0]), c[1].wrapping_add(d[1])];
                for &q in self.bucket(o) {
                    if self.cell[q as usize] == o {
                        push(out, p, q);
                    }
                }
            }
        }
        out.sort_unstable();
    }
}

impl WholeSet for SpatialHash {
    const NAME: &'static str = "hashing";

    kept_fields!();

    fn index(&mut self, _fresh: bool) {
        self.build();
    }

    fn find(&self, out: &mut Vec<(u32, u32)>) {
        self.find_pairs(out)
    }

    fn query_index(&self, r: &[f32; 4], out: &mut Vec<u32>) {
        out.clear();
        let n = self.boxes.len();
        if self.cell.len() != n {
            scan_query(&self.boxes, r, out);
            return;
        }
        // Lower corners of boxes meeting r lie within one cell width below r.
        let lo = self.cell_of(r[0] as f64 - self.width, r[2] as f64 - self.width);
        let hi = self.cell_of(r[1] as f64, r[3] as f64);
        let cells = (hi[0] as f64 - lo[0] as f64 + 1.0) * (hi[1] as f64 - lo[1] as f64 + 1.0);
        if cells.is_nan() || cells > n as f64 {
            // More cells than objects: a scan is cheaper.
            scan_query(&self.boxes, r, out);
            return;
        }
        for cy in lo[1]..=hi[1] {
            for cx in lo[0]..=hi[0] {
                let c = [cx, cy];
                for &p in self.bucket(c) {
                    if self.cell[p as usize] == c && boxes_overlap(&self.boxes[p as usize], r) {
                        out.push(p);
                    }
                }
            }
        }
    }

    fn forget(&mut self) {
        self.cell.clear();
    }

    fn index_bytes(&self) -> usize {
        self.cell.capacity() * 16 + (self.start.capacity() + self.members.capacity()) * 4
    }
}
