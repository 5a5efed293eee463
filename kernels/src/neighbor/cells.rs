//! Linked cells (Quentrec & Brot 1973; Allen & Tildesley; Perkins' thesis, ch. 2).
//!
//! A grid of square (cubic) cells, each at least as wide as the largest stored box. A
//! particle belongs to the cell of its box's lower corner; two boxes can only overlap if
//! those corners lie in the same or adjacent cells (their distance on each axis is at most
//! one box width), so each cell is compared with itself and with half of its neighbours,
//! the "half shell": the offsets whose last non-zero component is positive, (3^DIM - 1)/2
//! of them (in 2D east, north-west, north, north-east; 13 in 3D), which visits every pair
//! of adjacent cells once.
//!
//! The cell lists are built by a counting sort into one flat array (cell start offsets,
//! then the particles cell by cell), not as per-particle `next` pointers: the same lists,
//! walked in memory order. The whole pair set is found anew at every refresh and diffed
//! with the previous one. One large particle makes every cell large, which is this
//! method's known weakness for wide size distributions (Muth et al.; Perkins Test 2).
use super::{boxes_overlap, scan_query, Aabb, PairSet, WholeSet, DIM};

/// Cells per axis at most: beyond that the grid costs more than it saves.
const MAX_CELLS_PER_AXIS: usize = 1 << 14;

/// Linked cells: a grid of cells as wide as the widest box (see the module documentation).
#[derive(Debug, Default, Clone)]
pub struct LinkedCells {
    boxes: Vec<Aabb>,
    /// Grid origin and cell width.
    origin: [f64; DIM],
    width: f64,
    dims: [usize; DIM],
    /// `start[c]..start[c + 1]` = the particles of cell c in `members`.
    start: Vec<u32>,
    members: Vec<u32>,
    cell_of: Vec<u32>,
    set: PairSet,
}

impl LinkedCells {
    /// An empty search; the first rebuild stores the boxes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cells per axis of the last build.
    pub fn dims(&self) -> [usize; DIM] {
        self.dims
    }

    /// Grid over the lower corners, cells as wide as the widest box, and the cell lists.
    fn build_grid(&mut self) {
        let n = self.boxes.len();
        let (mut lo, mut hi) = ([f64::INFINITY; DIM], [f64::NEG_INFINITY; DIM]);
        let mut width = 0.0f64;
        for b in &self.boxes {
            for a in 0..DIM {
                lo[a] = lo[a].min(b[2 * a] as f64);
                hi[a] = hi[a].max(b[2 * a] as f64);
                width = width.max(b[2 * a + 1] as f64 - b[2 * a] as f64);
            }
        }
        if n == 0 {
            lo = [0.0; DIM];
            hi = [0.0; DIM];
        }
        let extent = (0..DIM).map(|a| hi[a] - lo[a]).fold(0.0, f64::max);
        // Cells at least the widest box, and not more per axis than the cap (a few very
        // spread particles must not allocate a huge grid).
        let width = width.max(extent / MAX_CELLS_PER_AXIS as f64).max(f64::MIN_POSITIVE);
        let dims: [usize; DIM] =
            std::array::from_fn(|a| (((hi[a] - lo[a]) / width) as usize + 1).min(MAX_CELLS_PER_AXIS));
        self.origin = lo;
        self.width = width;
        self.dims = dims;
        let cells: usize = dims.iter().product();
        self.cell_of.clear();
        self.cell_of.extend(self.boxes.iter().map(|b| {
            let mut c = 0;
            for a in (0..DIM).rev() {
                let k = (((b[2 * a] as f64 - lo[a]) / width) as usize).min(dims[a] - 1);
                c = c * dims[a] + k;
            }
            c as u32
        }));
        // Counting sort of the particles by cell.
        self.start.clear();
        self.start.resize(cells + 1, 0);
        for &c in &self.cell_of {
            self.start[c as usize + 1] += 1;
        }
        for c in 0..cells {
            self.start[c + 1] += self.start[c];
        }
        self.members.clear();
        self.members.resize(n, 0);
        let mut fill: Vec<u32> = self.start[..cells].to_vec();
        for (p, &c) in self.cell_of.iter().enumerate() {
            self.members[fill[c as usize] as usize] = p as u32;
            fill[c as usize] += 1;
        }
    }

    /// The cell at grid coordinates `at` (x first).
    #[inline]
    fn index_of(&self, at: [usize; DIM]) -> usize {
        let mut c = 0;
        for a in (0..DIM).rev() {
            c = c * self.dims[a] + at[a];
        }
        c
    }

    /// The members of cell `c`.
    #[inline]
    fn members_of(&self, c: usize) -> &[u32] {
        &self.members[self.start[c] as usize..self.start[c + 1] as usize]
    }

    /// The whole pair set of the stored boxes, sorted, into `out`.
    fn find_pairs(&self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        let mut push = |p: u32, q: u32| {
            if boxes_overlap(&self.boxes[p as usize], &self.boxes[q as usize]) {
                out.push(if p < q { (p, q) } else { (q, p) });
            }
        };
        let cells: usize = self.dims.iter().product();
        let mut at = [0usize; DIM];
        for c in 0..cells {
            let own = self.members_of(c);
            if !own.is_empty() {
                for (k, &p) in own.iter().enumerate() {
                    for &q in &own[k + 1..] {
                        push(p, q);
                    }
                }
                for off in &HALF_SHELL {
                    let mut other = [0usize; DIM];
                    let inside = (0..DIM).all(|a| {
                        let v = at[a] as isize + off[a];
                        other[a] = v as usize;
                        v >= 0 && (v as usize) < self.dims[a]
                    });
                    if inside {
                        let other = self.members_of(self.index_of(other));
                        for &p in own {
                            for &q in other {
                                push(p, q);
                            }
                        }
                    }
                }
            }
            // The next cell's coordinates (x fastest, as the index runs).
            for (k, &n) in at.iter_mut().zip(&self.dims) {
                *k += 1;
                if *k < n {
                    break;
                }
                *k = 0;
            }
        }
        out.sort_unstable();
    }
}

/// Offsets in the half shell: (3^DIM - 1) / 2.
const SHELL: usize = (3usize.pow(DIM as u32) - 1) / 2;

/// The neighbour offsets of the half shell: those whose last non-zero component is
/// positive, in the order of their base-3 digits (x fastest).
const HALF_SHELL: [[isize; DIM]; SHELL] = {
    let mut out = [[0isize; DIM]; SHELL];
    let (mut k, mut found) = (0, 0);
    while k < 3usize.pow(DIM as u32) {
        let mut off = [0isize; DIM];
        let (mut a, mut rest, mut last) = (0, k, 0isize);
        while a < DIM {
            off[a] = (rest % 3) as isize - 1;
            if off[a] != 0 {
                last = off[a];
            }
            rest /= 3;
            a += 1;
        }
        if last > 0 {
            out[found] = off;
            found += 1;
        }
        k += 1;
    }
    out
};

impl WholeSet for LinkedCells {
    const NAME: &'static str = "cells";

    kept_fields!();

    fn index(&mut self, _fresh: bool) {
        self.build_grid();
    }

    fn find(&self, out: &mut Vec<(u32, u32)>) {
        self.find_pairs(out)
    }

    fn query_index(&self, r: &Aabb, out: &mut Vec<u32>) {
        out.clear();
        if self.boxes.is_empty() {
            return;
        }
        if self.cell_of.len() != self.boxes.len() {
            // Particles added or renumbered since the grid was built.
            scan_query(&self.boxes, r, out);
            return;
        }
        // Lower corners that can belong to a box meeting r: within one cell width below r.
        if (0..DIM).any(|a| (r[2 * a + 1] as f64) < self.origin[a] - self.width) {
            return;
        }
        let range: [(usize, usize); DIM] = std::array::from_fn(|a| {
            let lo = ((r[2 * a] as f64 - self.width - self.origin[a]) / self.width).floor();
            let hi = ((r[2 * a + 1] as f64 - self.origin[a]) / self.width).floor();
            let n = self.dims[a] as f64;
            (lo.clamp(0.0, n - 1.0) as usize, hi.clamp(0.0, n - 1.0) as usize)
        });
        let mut at: [usize; DIM] = range.map(|r| r.0);
        'cells: loop {
            for &p in self.members_of(self.index_of(at)) {
                if boxes_overlap(&self.boxes[p as usize], r) {
                    out.push(p);
                }
            }
            for a in 0..DIM {
                at[a] += 1;
                if at[a] <= range[a].1 {
                    continue 'cells;
                }
                at[a] = range[a].0;
            }
            break;
        }
    }

    fn forget(&mut self) {
        self.cell_of.clear();
    }

    fn index_bytes(&self) -> usize {
        (self.start.capacity() + self.members.capacity() + self.cell_of.capacity()) * 4
    }
}
