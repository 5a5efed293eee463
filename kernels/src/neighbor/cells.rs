//! Linked cells (Quentrec & Brot 1973; Allen & Tildesley; Perkins' thesis, ch. 2).
//!
//! A grid of square cells, each at least as wide as the largest stored box. A particle
//! belongs to the cell of its box's lower corner; two boxes can only overlap if those
//! corners lie in the same or adjacent cells (their distance on each axis is at most one
//! box width), so each cell is compared with itself and with half of its neighbours:
//! (3^2 + 1) / 2 = 5 cells, the "half shell" (east, north-west, north, north-east), which
//! visits every pair of adjacent cells once.
//!
//! The cell lists are built by a counting sort into one flat array (cell start offsets,
//! then the particles cell by cell), not as per-particle `next` pointers: the same lists,
//! walked in memory order. The whole pair set is found anew at every refresh and diffed
//! with the previous one. One large particle makes every cell large, which is this
//! method's known weakness for wide size distributions (Muth et al.; Perkins Test 2).
use super::{boxes_overlap, scan_query, PairSet, WholeSet};

/// Cells per axis at most: beyond that the grid costs more than it saves.
const MAX_CELLS_PER_AXIS: usize = 1 << 14;

#[derive(Debug, Default, Clone)]
pub struct LinkedCells {
    boxes: Vec<[f32; 4]>,
    /// Grid origin and cell width.
    origin: [f64; 2],
    width: f64,
    dims: [usize; 2],
    /// `start[c]..start[c + 1]` = the particles of cell c in `members`.
    start: Vec<u32>,
    members: Vec<u32>,
    cell_of: Vec<u32>,
    set: PairSet,
}

impl LinkedCells {
    pub fn new() -> Self {
        Self::default()
    }

    /// Cells per axis of the last build.
    pub fn dims(&self) -> [usize; 2] {
        self.dims
    }

    /// Grid over the lower corners, cells as wide as the widest box, and the cell lists.
    fn build_grid(&mut self) {
        let n = self.boxes.len();
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        let mut width = 0.0f64;
        for b in &self.boxes {
            for a in 0..2 {
                lo[a] = lo[a].min(b[2 * a] as f64);
                hi[a] = hi[a].max(b[2 * a] as f64);
                width = width.max(b[2 * a + 1] as f64 - b[2 * a] as f64);
            }
        }
        if n == 0 {
            lo = [0.0; 2];
            hi = [0.0; 2];
        }
        let extent = (hi[0] - lo[0]).max(hi[1] - lo[1]);
        // Cells at least the widest box, and not more per axis than the cap (a few very
        // spread particles must not allocate a huge grid).
        let width = width.max(extent / MAX_CELLS_PER_AXIS as f64).max(f64::MIN_POSITIVE);
        let dims = [0, 1].map(|a| (((hi[a] - lo[a]) / width) as usize + 1).min(MAX_CELLS_PER_AXIS));
        self.origin = lo;
        self.width = width;
        self.dims = dims;
        let cells = dims[0] * dims[1];
        self.cell_of.clear();
        self.cell_of.extend(self.boxes.iter().map(|b| {
            let cx = (((b[0] as f64 - lo[0]) / width) as usize).min(dims[0] - 1);
            let cy = (((b[2] as f64 - lo[1]) / width) as usize).min(dims[1] - 1);
            (cy * dims[0] + cx) as u32
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

    /// The whole pair set of the stored boxes, sorted, into `out`.
    fn find_pairs(&self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        let [nx, ny] = self.dims;
        let cell = |cx: usize, cy: usize| {
            let c = cy * nx + cx;
            &self.members[self.start[c] as usize..self.start[c + 1] as usize]
        };
        let mut push = |p: u32, q: u32| {
            if boxes_overlap(&self.boxes[p as usize], &self.boxes[q as usize]) {
                out.push(if p < q { (p, q) } else { (q, p) });
            }
        };
        for cy in 0..ny {
            for cx in 0..nx {
                let own = cell(cx, cy);
                if own.is_empty() {
                    continue;
                }
                for (k, &p) in own.iter().enumerate() {
                    for &q in &own[k + 1..] {
                        push(p, q);
                    }
                }
                // The half shell: east; then the row above, west to east.
                let mut others = [None; 4];
                if cx + 1 < nx {
                    others[0] = Some((cx + 1, cy));
                }
                if cy + 1 < ny {
                    if cx > 0 {
                        others[1] = Some((cx - 1, cy + 1));
                    }
                    others[2] = Some((cx, cy + 1));
                    if cx + 1 < nx {
                        others[3] = Some((cx + 1, cy + 1));
                    }
                }
                for (ox, oy) in others.into_iter().flatten() {
                    let other = cell(ox, oy);
                    for &p in own {
                        for &q in other {
                            push(p, q);
                        }
                    }
                }
            }
        }
        out.sort_unstable();
    }
}

impl WholeSet for LinkedCells {
    const NAME: &'static str = "cells";

    kept_fields!();

    fn index(&mut self, _fresh: bool) {
        self.build_grid();
    }

    fn find(&self, out: &mut Vec<(u32, u32)>) {
        self.find_pairs(out)
    }

    fn query_index(&self, r: &[f32; 4], out: &mut Vec<u32>) {
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
        let [nx, ny] = self.dims;
        let range = |a: usize| {
            let lo = ((r[2 * a] as f64 - self.width - self.origin[a]) / self.width).floor();
            let hi = ((r[2 * a + 1] as f64 - self.origin[a]) / self.width).floor();
            let n = [nx, ny][a] as f64;
            (lo.clamp(0.0, n - 1.0) as usize, hi.clamp(0.0, n - 1.0) as usize)
        };
        let ((x0, x1), (y0, y1)) = (range(0), range(1));
        if (r[1] as f64) < self.origin[0] - self.width || (r[3] as f64) < self.origin[1] - self.width {
            return;
        }
        for cy in y0..=y1 {
            for cx in x0..=x1 {
                let c = cy * nx + cx;
                for &p in &self.members[self.start[c] as usize..self.start[c + 1] as usize] {
                    if boxes_overlap(&self.boxes[p as usize], r) {
                        out.push(p);
                    }
                }
            }
        }
    }

    fn forget(&mut self) {
        self.cell_of.clear();
    }

    fn index_bytes(&self) -> usize {
        (self.start.capacity() + self.members.capacity() + self.cell_of.capacity()) * 4
    }
}
