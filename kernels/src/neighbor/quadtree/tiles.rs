//! The quadtree's entries: each particle's stored box, cut into tiles of about the typical
//! particle size when it is large or elongated (Watanabe et al., Fig. 3), one entry per tile.
use super::*;

impl Quadtree {
    pub(super) fn store<B: BoxSource>(&mut self, src: &B) {
        store_boxes(&mut self.boxes, src);
    }

    /// The tiles of box `b` cut `t` times per axis: tile k spans [edge(k), edge(k + 1)]
    /// with edge(0) = lo and edge(t) = hi exactly, so that neighbours share their edge.
    pub(super) fn tile_of(b: &Aabb, t: [u16; DIM], k: [u16; DIM]) -> (Vector, Vector) {
        let mut c = [0.0; DIM];
        let mut h = [0.0; DIM];
        for a in 0..DIM {
            let (lo, hi) = (b[2 * a] as f64, b[2 * a + 1] as f64);
            let n = t[a] as f64;
            let edge = |i: u16| {
                if i == 0 {
                    lo
                } else if i == t[a] {
                    hi
                } else {
                    lo + (hi - lo) * (i as f64 / n)
                }
            };
            let (e0, e1) = (edge(k[a]), edge(k[a] + 1));
            c[a] = 0.5 * (e0 + e1);
            h[a] = 0.5 * (e1 - e0);
        }
        (c, h)
    }

    /// Tiles of box `b` per axis, at most [`MAX_TILES_PER_AXIS`] (a box of a thousand
    /// typical sizes gets larger tiles rather than a million of them; the search reaches
    /// out by the largest tile, so only speed suffers).
    pub(super) fn tiles_for(&self, b: &Aabb) -> [u16; DIM] {
        std::array::from_fn(|a| {
            let h = 0.5 * (b[2 * a + 1] as f64 - b[2 * a] as f64);
            if h > self.tile_limit && self.tile_limit > 0.0 {
                ((h / self.tile_limit).ceil() as usize).clamp(1, MAX_TILES_PER_AXIS) as u16
            } else {
                1
            }
        })
    }

    /// Entries from the stored boxes: the typical size, the tiling, centres and reach.
    pub(super) fn make_entries(&mut self) {
        let n = self.boxes.len();
        let mut halves: Vec<f64> = self
            .boxes
            .iter()
            .map(|b| {
                let mut w = b[1] - b[0];
                for a in 1..DIM {
                    w = w.max(b[2 * a + 1] - b[2 * a]);
                }
                0.5 * w as f64
            })
            .filter(|h| h.is_finite())
            .collect();
        let typical = if halves.is_empty() {
            0.0
        } else {
            let m = halves.len() / 2;
            *halves.select_nth_unstable_by(m, |a, b| a.total_cmp(b)).1
        };
        self.tile_limit = TILE_FACTOR * typical;
        self.owner.clear();
        self.centre.clear();
        self.half.clear();
        self.first_entry.clear();
        self.tiles.clear();
        self.reach = [0.0; DIM];
        for p in 0..n {
            let b = self.boxes[p];
            let t = self.tiles_for(&b);
            self.first_entry.push(self.owner.len() as u32);
            self.tiles.push(t);
            for k in tile_indices(t) {
                let (c, h) = Self::tile_of(&b, t, k);
                self.owner.push(p as u32);
                self.centre.push(c);
                self.half.push(h);
                for (r, x) in self.reach.iter_mut().zip(h) {
                    *r = r.max(x);
                }
            }
        }
        self.first_entry.push(self.owner.len() as u32);
    }

    /// New centres of the entries from the stored boxes. False if the particles changed
    /// (added, renumbered) or some box needs another tiling: then the caller rebuilds.
    pub(super) fn update_entry_boxes(&mut self) -> bool {
        if self.stale || self.tiles.len() != self.boxes.len() {
            return false;
        }
        for p in 0..self.boxes.len() {
            let b = self.boxes[p];
            let t = self.tiles[p];
            if self.tiles_for(&b) != t {
                return false;
            }
            for (e, k) in (self.first_entry[p] as usize..).zip(tile_indices(t)) {
                let (c, h) = Self::tile_of(&b, t, k);
                self.centre[e] = c;
                self.half[e] = h;
                for (r, x) in self.reach.iter_mut().zip(h) {
                    *r = r.max(x);
                }
            }
        }
        true
    }
}

/// The tile indices of a box cut `t` times per axis, x fastest (then y, then z): the
/// order of its entries.
fn tile_indices(t: [u16; DIM]) -> impl Iterator<Item = [u16; DIM]> {
    let count: usize = t.iter().map(|&n| n as usize).product();
    let mut k = [0u16; DIM];
    (0..count).map(move |_| {
        let here = k;
        for a in 0..DIM {
            k[a] += 1;
            if k[a] < t[a] {
                break;
            }
            k[a] = 0;
        }
        here
    })
}
