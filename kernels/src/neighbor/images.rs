//! Periodic boundaries (LAMMPS `boundary p`) for every neighbour method, without a change
//! to any of them: the broad phase is handed the particles' boxes and, after them, the
//! boxes of *images* (a particle's box shifted by a whole number of cell lengths along
//! the periodic axes) for the particles near a periodic face. A pair of boxes that meet
//! across the face then meet as a particle and an image, and every method finds it as it
//! finds any pair. The pairs are mapped back to particles by [`PeriodicImages::owner`];
//! forces take the minimum image of the separation ([`MinImage`]).
//!
//! Which images exist is fixed between rebuilds, so that the incremental methods (the
//! sweep, the quadtree) see a constant set of entries whose boxes only move: images are
//! made for the particles within `slack + reach + spare` of a face, and the set is made
//! again only when a particle has come within `slack + reach` of a face where it has no
//! image ([`PeriodicImages::missing`]) or has gone more than `slack` past one (it is then
//! wrapped back into the cell). `reach` is the largest centre distance at which two boxes
//! can meet (twice the largest radius plus margin), `slack` how far a centre may go past a
//! face before it is wrapped, `spare` how far a particle may travel between two
//! rebuilds of the images.
//!
//! Why each pair that meets is found: let particles i and j (centres within `slack` of the
//! cell) have boxes that meet for the shift s (|c_i - c_j - s| <= reach per axis). Then
//! c_j + s lies within `slack + reach` of the cell, so the image j + s exists (or s = 0),
//! and the broad phase holds the pair (i, j + s). A pair may also be held as other
//! copies (i + a, j + s + a); the contact is present while any copy's stored boxes meet
//! ([`PeriodicImages::any_copy_meets`]), which stays true to the methods' sets whatever
//! order they report their changes in. With cells longer than `2 reach` along every
//! periodic axis (checked) a pair meets for one shift at most, so the minimum image is
//! that shift and a pair needs no shift of its own in the contact table.
use super::{boxes_overlap, rounded_box, Aabb, Box64, BoxSource, DIM};
use crate::math::Vector;

/// The periodic cell: the domain `[lo, hi)` and which axes wrap; with Lees-Edwards shear
/// (Lees & Edwards 1972; LAMMPS `fix deform` with `remap v` on a tilted box, done here
/// with a moving image instead of a tilt), the copy of the cell above (+y) slides along
/// +x at `shear_velocity`, so that its offset at time t is `shear_velocity t` (modulo
/// the x length): x and y both periodic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PeriodicCell {
    /// Lower corner of the cell, included (m).
    pub lo: Vector,
    /// Upper corner of the cell, excluded (m).
    pub hi: Vector,
    /// Which axes wrap.
    pub periodic: [bool; DIM],
    /// The x velocity of the cell above relative to this one (0: no shear).
    pub shear_velocity: f64,
}

impl PeriodicCell {
    /// Length of the cell along axis `a`.
    #[inline]
    pub fn length(&self, a: usize) -> f64 {
        self.hi[a] - self.lo[a]
    }

    /// `x` on axis `a` moved by whole cell lengths into `[lo, hi)`.
    pub fn wrap(&self, a: usize, x: f64) -> f64 {
        let (lo, l) = (self.lo[a], self.length(a));
        let w = x - l * ((x - lo) / l).floor();
        // Rounding can land a value just below lo on hi itself.
        if w >= self.hi[a] {
            w - l
        } else {
            w.max(lo)
        }
    }

    /// A centre moved by whole cells into the cell along every periodic axis that it has
    /// left, crossing y under shear moving it by the offset along x as well. Returns the
    /// cells it was moved down along y (its x velocity then changes by minus that many
    /// shear velocities).
    pub fn wrap_point(&self, c: &mut Vector, offset: f64) -> f64 {
        let inside = |a: usize, c: &Vector| c[a] >= self.lo[a] && c[a] < self.hi[a];
        let mut down = 0.0;
        if self.periodic[1] && !inside(1, c) && c[1].is_finite() {
            down = ((c[1] - self.lo[1]) / self.length(1)).floor();
            c[1] = self.wrap(1, c[1]);
            c[0] -= down * offset;
        }
        for a in (0..DIM).filter(|&a| self.periodic[a] && a != 1) {
            if !inside(a, c) && c[a].is_finite() {
                c[a] = self.wrap(a, c[a]);
            }
        }
        down
    }

    /// The x offset of the cell above at time `t`, in `[0, x length)`.
    pub fn shear_offset(&self, t: f64) -> f64 {
        if self.shear_velocity == 0.0 {
            return 0.0;
        }
        (self.shear_velocity * t).rem_euclid(self.length(0))
    }

    /// The minimum-image rule of this cell, the cell above offset by `offset` along x.
    pub fn min_image(&self, offset: f64) -> MinImage {
        MinImage {
            length: std::array::from_fn(|a| if self.periodic[a] { self.length(a) } else { 0.0 }),
            inverse: std::array::from_fn(|a| if self.periodic[a] { 1.0 / self.length(a) } else { 0.0 }),
            offset,
            shear_velocity: self.shear_velocity,
        }
    }
}

/// The minimum image of a separation: along each periodic axis, the shift by whole cell
/// lengths that brings it within half a length (an axis that does not wrap has length
/// and inverse 0, and is left as it is). A separation already within half a length is
/// returned bit for bit. Under shear the shift by `k` cells along y moves x by `k offset`
/// and the relative x velocity by `k shear_velocity` first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MinImage {
    /// Cell length per axis (m); 0 on an axis that does not wrap.
    pub length: Vector,
    /// 1 / length per axis; 0 on an axis that does not wrap.
    pub inverse: Vector,
    /// Under shear: the x offset of the cell above (m).
    pub offset: f64,
    /// The x velocity of the cell above relative to this one (m/s; 0: no shear).
    pub shear_velocity: f64,
}

/// 1.5 x 2^52: adding and subtracting it rounds an f64 below 2^51 in magnitude to the
/// nearest integer (ties to even) in the default rounding mode, with two additions that
/// vectorise on any x86-64 (`f64::round` is a library call there, and was 40 % of the
/// disc loop's time in a periodic bed).
const ROUNDER: f64 = 6_755_399_441_055_744.0;

impl MinImage {
    /// The component `d` along axis `a` shifted by whole cell lengths to within half a
    /// length (the shear's shift of x with y left out: see [`MinImage::with_cells`]).
    #[inline(always)]
    pub fn axis(&self, a: usize, d: f64) -> f64 {
        let k = (d * self.inverse[a] + ROUNDER) - ROUNDER;
        d - self.length[a] * k
    }

    /// The number of cells along y between the two ends of a separation of `dy`.
    #[inline(always)]
    pub fn cells_y(&self, dy: f64) -> f64 {
        (dy * self.inverse[1] + ROUNDER) - ROUNDER
    }

    /// The minimum image of `d = x_j - x_i`, and the cells along y it was moved by (the
    /// relative velocity `v_i - v_j` then gains `k shear_velocity` along x).
    #[inline(always)]
    pub fn with_cells(&self, mut d: Vector) -> (Vector, f64) {
        let k = self.cells_y(d[1]);
        d[1] -= self.length[1] * k;
        d[0] -= self.offset * k;
        (
            std::array::from_fn(|a| if a == 1 { d[1] } else { self.axis(a, d[a]) }),
            k,
        )
    }

    /// The minimum image of `d = x_j - x_i` (see [`MinImage::with_cells`]).
    #[inline(always)]
    pub fn of(&self, d: Vector) -> Vector {
        self.with_cells(d).0
    }
}

/// The images of a periodic cell and the bookkeeping that maps the broad phase's entries
/// (particles `0..n`, then images `n..n + images`) back to particles. See the module notes.
#[derive(Debug, Clone)]
pub struct PeriodicImages {
    /// The periodic cell.
    pub cell: PeriodicCell,
    reach: f64,
    slack: f64,
    spare: f64,
    /// Under shear: the x offset of the cell above now (set before each update), and at
    /// the last update of the broad phase (its images' boxes were placed with it); the
    /// images across y get boxes wider by `drift` along x, and the broad phase is updated
    /// before the offset moves further than that.
    offset: f64,
    stored_offset: f64,
    drift: f64,
    /// The particle each image copies, in increasing order.
    owner: Vec<u32>,
    /// Each image's shift in cell lengths per axis (-1, 0 or 1).
    shift: Vec<[i8; DIM]>,
    /// Particle p's images are `start[p]..start[p + 1]` (empty until the first build).
    start: Vec<u32>,
}

impl PeriodicImages {
    /// Images for particles whose boxes reach at most `half_width` (largest radius plus
    /// margin) from their centres. Refused when a periodic axis is not longer than twice
    /// the reach of a pair (a particle could meet another through two faces at once, or
    /// its own image).
    pub fn new(cell: PeriodicCell, half_width: f64) -> Result<Self, String> {
        let reach = 2.0 * half_width;
        let mut shortest = f64::INFINITY;
        for a in (0..DIM).filter(|&a| cell.periodic[a]) {
            let l = cell.length(a);
            if l.partial_cmp(&(2.0 * reach)) != Some(std::cmp::Ordering::Greater) {
                return Err(format!(
                    "periodic axis {}: the cell is {l} long, not longer than 4 x (largest radius + neighbour \
                     margin) = {}; make the cell longer or the particles smaller",
                    ["x", "y", "z"][a],
                    2.0 * reach
                ));
            }
            shortest = shortest.min(l);
        }
        // An image shift of one length suffices while 2 slack + reach + spare stays
        // within a length (module notes); half the room left is given to each.
        let slack = half_width.min((shortest - 2.0 * reach) / 4.0);
        let spare = (2.0 * reach).min(shortest - 2.0 * slack - reach - reach - slack);
        if cell.shear_velocity != 0.0 && !(cell.periodic[0] && cell.periodic[1]) {
            return Err("Lees-Edwards shear needs x and y periodic (x the flow, y the gradient)".into());
        }
        Ok(PeriodicImages {
            cell,
            reach,
            slack,
            spare: spare.max(0.0),
            offset: 0.0,
            stored_offset: 0.0,
            drift: if cell.shear_velocity != 0.0 { slack } else { 0.0 },
            owner: Vec::new(),
            shift: Vec::new(),
            start: Vec::new(),
        })
    }

    /// How far a centre may go past a periodic face before it is wrapped.
    pub fn slack(&self) -> f64 {
        self.slack
    }

    /// The largest centre distance at which two boxes can meet.
    pub fn reach(&self) -> f64 {
        self.reach
    }

    /// How far past the cell the broad phase's entries may reach (the quadtree's root).
    pub fn extent(&self) -> f64 {
        2.0 * self.slack + self.reach + self.spare + 2.0 * self.drift
    }

    /// Under shear: the x offset of the cell above for the positions about to be checked
    /// or searched.
    pub fn set_offset(&mut self, offset: f64) {
        self.offset = offset;
    }

    /// Under shear: the x offset of the cell above, as last set ([`PeriodicImages::set_offset`]).
    pub fn offset(&self) -> f64 {
        self.offset
    }

    /// Has the offset moved so far since the last update that the images' boxes no longer
    /// hold the images? (Never without shear.)
    pub fn offset_drifted(&self) -> bool {
        if self.drift == 0.0 {
            return false;
        }
        let l = self.cell.length(0);
        let d = self.offset - self.stored_offset;
        (d - l * (d / l).round()).abs() > self.drift
    }

    /// How much wider along x an image's box across y is under shear (0 without).
    pub fn drift(&self) -> f64 {
        self.drift
    }

    /// The broad phase has stored boxes placed with the current offset.
    pub fn mark_stored(&mut self) {
        self.stored_offset = self.offset;
    }

    /// The offset the images' stored boxes were placed with (a checkpoint keeps it).
    pub fn stored_offset(&self) -> f64 {
        self.stored_offset
    }

    /// Set the offset the images' stored boxes were placed with, from a checkpoint.
    pub fn restore_offsets(&mut self, stored: f64) {
        self.stored_offset = stored;
    }

    /// Number of images.
    pub fn len(&self) -> usize {
        self.owner.len()
    }

    /// Whether there are no images.
    pub fn is_empty(&self) -> bool {
        self.owner.is_empty()
    }

    /// The images' owners and shifts (a checkpoint keeps them).
    pub fn owners(&self) -> &[u32] {
        &self.owner
    }

    /// Each image's shift in cell lengths per axis (-1, 0 or 1), in the order of
    /// [`PeriodicImages::owners`].
    pub fn shifts(&self) -> &[[i8; DIM]] {
        &self.shift
    }

    /// The shifts (in cell lengths, per axis) of the images that a centre `c` needs when
    /// images reach `band` past the cell, all-zero (the particle itself) excluded. Under
    /// shear an image shifted along y is moved along x by that many offsets too, and its x
    /// shift is whatever brings it back within band of the cell.
    fn shifts_for(cell: &PeriodicCell, offset: f64, c: &Vector, band: f64, mut each: impl FnMut([i8; DIM])) {
        // The shifts along an axis that bring coordinate x within band of the cell, the
        // shift that brings it inside first.
        let options = |a: usize, x: f64| -> ([i8; 3], usize) {
            if !cell.periodic[a] {
                return ([0; 3], 1);
            }
            let l = cell.length(a);
            let k0 = if x >= cell.lo[a] - band && x < cell.hi[a] + band {
                0.0
            } else {
                -((x - cell.lo[a]) / l).floor()
            };
            let w = x + k0 * l;
            let mut o = [k0 as i8, 0, 0];
            let mut n = 1;
            if w < cell.lo[a] + band {
                o[n] = k0 as i8 + 1;
                n += 1;
            }
            if w >= cell.hi[a] - band {
                o[n] = k0 as i8 - 1;
                n += 1;
            }
            (o, n)
        };
        // Far from every periodic face (most grains): no image.
        let near = |a: usize| cell.periodic[a] && !(c[a] >= cell.lo[a] + band && c[a] < cell.hi[a] - band);
        if !(0..DIM).any(near) {
            return;
        }
        // The axes past y (z in 3D) do not depend on the others.
        let rest: [([i8; 3], usize); DIM] =
            std::array::from_fn(|a| if a >= 2 { options(a, c[a]) } else { ([0; 3], 1) });
        let more: usize = rest[2..].iter().map(|r| r.1).product();
        let (ys, ny) = options(1, c[1]);
        for &ky in &ys[..ny] {
            let (xs, nx) = options(0, c[0] + ky as f64 * offset);
            for &kx in &xs[..nx] {
                for combo in 0..more {
                    let mut left = combo;
                    let k: [i8; DIM] = std::array::from_fn(|a| match a {
                        0 => kx,
                        1 => ky,
                        _ => {
                            let (o, n) = rest[a];
                            let v = o[left % n];
                            left /= n;
                            v
                        }
                    });
                    if k.iter().any(|&v| v != 0) {
                        each(k);
                    }
                }
            }
        }
    }

    /// Make the images of particles at `pos` anew (after a wrap or when one is
    /// [`missing`](Self::missing)): every image a centre within `slack + reach + spare`
    /// of a face gives.
    pub fn build(&mut self, pos: [&[f64]; DIM]) {
        let n = pos[0].len();
        let band = self.slack + self.reach + self.spare + self.drift;
        self.owner.clear();
        self.shift.clear();
        self.start.clear();
        self.start.reserve_exact(n + 1);
        #[allow(clippy::needless_range_loop)] // p indexes every axis's array
        for p in 0..n {
            self.start.push(self.owner.len() as u32);
            let c: Vector = std::array::from_fn(|a| pos[a][p]);
            Self::shifts_for(&self.cell, self.offset, &c, band, |k| {
                self.owner.push(p as u32);
                self.shift.push(k);
            });
        }
        self.start.push(self.owner.len() as u32);
    }

    /// Forget the images (the particles are about to be added or renumbered): the next
    /// [`missing`](Self::missing) says they must be made again.
    pub fn forget(&mut self) {
        self.owner.clear();
        self.shift.clear();
        self.start.clear();
    }

    /// Continue from a checkpoint's images (`owner` increasing, each below `n`).
    pub fn restore(&mut self, n: usize, owner: &[u32], shift: &[[i8; DIM]]) -> Result<(), String> {
        if owner.len() != shift.len() {
            return Err(format!("{} owners but {} shifts", owner.len(), shift.len()));
        }
        if let Some(k) = (1..owner.len()).find(|&k| owner[k] < owner[k - 1]) {
            return Err(format!("image {k}: owners out of order"));
        }
        if let Some(k) = owner.iter().position(|&o| o as usize >= n) {
            return Err(format!("image {k}: owner {} is not a particle (of {n})", owner[k]));
        }
        // Under shear an image across y may be shifted by up to three lengths along x.
        let widest = |a: usize| if a == 0 && self.drift > 0.0 { 3 } else { 1 };
        if let Some(k) = shift.iter().position(|s| {
            s.iter().all(|&v| v == 0)
                || (0..DIM).any(|a| s[a].abs() > widest(a) || (s[a] != 0 && !self.cell.periodic[a]))
        }) {
            return Err(format!("image {k}: shift {:?} is not one of a periodic axis", shift[k]));
        }
        self.owner = owner.to_vec();
        self.shift = shift.to_vec();
        self.start = vec![0; n + 1];
        for &o in owner {
            self.start[o as usize + 1] += 1;
        }
        for p in 0..n {
            self.start[p + 1] += self.start[p];
        }
        Ok(())
    }

    /// Has a particle come within `slack + reach` of a face without the image that
    /// needs, or the particle count changed since the last build? Then the images must be
    /// made again before the broad phase is brought up to date.
    pub fn missing(&self, pos: [&[f64]; DIM]) -> bool {
        let n = pos[0].len();
        if self.start.len() != n + 1 {
            return true;
        }
        let band = self.slack + self.reach + self.drift;
        (0..n).any(|p| {
            let c: Vector = std::array::from_fn(|a| pos[a][p]);
            let have = &self.shift[self.start[p] as usize..self.start[p + 1] as usize];
            let mut absent = false;
            Self::shifts_for(&self.cell, self.offset, &c, band, |k| absent |= !have.contains(&k));
            absent
        })
    }

    /// Is centre coordinate `x` on axis `a` so far past a periodic face that it must be
    /// wrapped?
    #[inline]
    pub fn too_far(&self, a: usize, x: f64) -> bool {
        self.cell.periodic[a] && !(x >= self.cell.lo[a] - self.slack && x < self.cell.hi[a] + self.slack)
    }

    /// The particle an entry of the broad phase stands for (`n` particles).
    #[inline]
    pub fn owner(&self, n: usize, e: u32) -> u32 {
        if (e as usize) < n {
            e
        } else {
            self.owner[e as usize - n]
        }
    }

    /// The entries of particle `p`: itself and its images.
    #[inline]
    fn entries(&self, n: usize, p: u32) -> impl Iterator<Item = usize> + '_ {
        let (s, e) = (self.start[p as usize] as usize, self.start[p as usize + 1] as usize);
        std::iter::once(p as usize).chain((s..e).map(move |k| n + k))
    }

    /// The particle pairs (i < j) of the entry pairs `entries`, sorted, each once, a
    /// particle's pair with its own image left out, into `out`.
    pub fn particle_pairs(&self, n: usize, entries: &[(u32, u32)], out: &mut Vec<(u32, u32)>) {
        out.clear();
        out.extend(entries.iter().filter_map(|&(a, b)| {
            let (i, j) = (self.owner(n, a), self.owner(n, b));
            (i != j).then(|| (i.min(j), i.max(j)))
        }));
        out.sort_unstable();
        out.dedup();
    }

    /// Do the stored boxes of any copy of the pair (i, j) meet (an entry of i with an
    /// entry of j)? That is whether the pair is a candidate.
    pub fn any_copy_meets(&self, n: usize, stored: &[Aabb], i: u32, j: u32) -> bool {
        self.entries(n, i)
            .any(|a| self.entries(n, j).any(|b| boxes_overlap(&stored[a], &stored[b])))
    }

    /// The broad phase's boxes: the particles' from `base`, then the images'.
    pub fn boxes<'a, B: BoxSource>(&'a self, base: &'a B) -> ImagedBoxes<'a, B> {
        ImagedBoxes { base, images: self }
    }
}

/// The boxes of the particles and then of their images (see [`PeriodicImages::boxes`]).
/// An image's box is its owner's box as the methods store it (rounded outward) moved by
/// whole cell lengths (and, across y under shear, by the offset, and widened by its
/// drift): it holds the moved particle as surely as the stored box holds the particle.
pub struct ImagedBoxes<'a, B: BoxSource> {
    base: &'a B,
    images: &'a PeriodicImages,
}

impl<B: BoxSource> BoxSource for ImagedBoxes<'_, B> {
    #[inline]
    fn len(&self) -> usize {
        self.base.len() + self.images.len()
    }

    #[inline]
    fn bbox(&self, e: usize) -> Box64 {
        let n = self.base.len();
        if e < n {
            return self.base.bbox(e);
        }
        let im = self.images;
        let (p, k) = (im.owner[e - n] as usize, im.shift[e - n]);
        let b = rounded_box(self.base.bbox(p));
        // Under shear an image across y is moved by the offset along x, its box widened
        // by the offset's drift until the next update.
        let (slide, wide) = if k[1] != 0 && im.drift > 0.0 {
            (k[1] as f64 * im.offset, im.drift)
        } else {
            (0.0, 0.0)
        };
        std::array::from_fn(|c| {
            let a = c / 2;
            let mut v = b[c] as f64 + k[a] as f64 * im.cell.length(a);
            if a == 0 {
                v += slide + if c % 2 == 0 { -wide } else { wide };
            }
            v
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{brute_force_pairs, Boxes, NeighborSearch, Quadtree, SweepAndPrune};
    use super::*;
    use crate::neighbor::{BallBoxes, LinkedCells, VerletLists};
    use std::collections::BTreeSet;

    type PairSet = BTreeSet<(u32, u32)>;

    /// Bounds on the candidate pairs of a periodic cell, pair by pair over every shift:
    /// `inner` are the pairs whose exact (unrounded) boxes meet for some shift (every one
    /// must be a candidate), `outer` those whose boxes meet when grown by more than the
    /// methods' rounding (no other may be).
    fn reference(
        cell: &PeriodicCell,
        offset: f64,
        pos: &[Vec<f64>; DIM],
        radius: &[f64],
        margin: f64,
    ) -> (PairSet, PairSet) {
        let n = radius.len();
        let src = BallBoxes {
            pos: std::array::from_fn(|a| pos[a].as_slice()),
            radius,
            margin,
        };
        // Under shear a shift across y moves x by the offset, and x takes up to 3 lengths.
        let reach_x: i32 = if cell.shear_velocity != 0.0 { 3 } else { 1 };
        let wide = (2 * reach_x + 1) as usize;
        let shifts: Vec<Vector> = (0..wide * 3usize.pow(DIM as u32 - 1))
            .map(|combo| {
                let kx = (combo % wide) as f64 - reach_x as f64;
                let mut rest = combo / wide;
                let k: Vector = std::array::from_fn(|a| {
                    if a == 0 {
                        return kx;
                    }
                    let k = (rest % 3) as f64 - 1.0;
                    rest /= 3;
                    k
                });
                std::array::from_fn(|a| {
                    if !cell.periodic[a] {
                        0.0
                    } else if a == 0 {
                        k[0] * cell.length(0) + k[1] * offset
                    } else {
                        k[a] * cell.length(a)
                    }
                })
            })
            .collect();
        // Rounding to f32 grows a box by at most 2^-22 of its coordinates (twice for an
        // image's box): within 1e-5 here.
        let meets = |bi: &Box64, bj: &Box64, s: &Vector, eps: f64| {
            (0..DIM).all(|a| bi[2 * a] <= bj[2 * a + 1] + s[a] + eps && bj[2 * a] + s[a] <= bi[2 * a + 1] + eps)
        };
        // Two images across y, each widened by the drift (the slack, 0.045 here).
        let drift = if cell.shear_velocity != 0.0 { 0.1 } else { 0.0 };
        let (mut inner, mut outer) = (BTreeSet::new(), BTreeSet::new());
        for i in 0..n {
            for j in i + 1..n {
                let (bi, bj) = (src.bbox(i), src.bbox(j));
                if shifts.iter().any(|s| meets(&bi, &bj, s, 0.0)) {
                    inner.insert((i as u32, j as u32));
                }
                // Boxes across y under shear are wider by the offset's drift.
                if shifts.iter().any(|s| meets(&bi, &bj, s, 1e-5 + drift)) {
                    outer.insert((i as u32, j as u32));
                }
            }
        }
        (inner, outer)
    }

    fn check<M: NeighborSearch>(
        mut m: M,
        periodic: [bool; DIM],
        shear_velocity: f64,
        middle: bool,
        jitter: f64,
        drift: f64,
    ) -> usize {
        let cell = PeriodicCell {
            lo: [0.0; DIM],
            hi: std::array::from_fn(|a| 1.0 + 0.25 * a as f64),
            periodic,
            shear_velocity,
        };
        let mut rnd = super::super::any_dimension::uniform(4242);
        let n = 300;
        let margin = 0.005;
        let radius: Vec<f64> = (0..n).map(|_| 0.01 + 0.03 * rnd()).collect();
        // `middle`: the particles start in the middle of the cell along x.
        let mut pos: [Vec<f64>; DIM] = std::array::from_fn(|a| {
            (0..n)
                .map(|_| cell.hi[a] * if middle && a == 0 { 0.3 + 0.4 * rnd() } else { rnd() })
                .collect()
        });
        let mut images = PeriodicImages::new(cell, 0.04 + margin).unwrap();
        assert_eq!(images.drift, if shear_velocity != 0.0 { images.slack } else { 0.0 });
        let (mut entries, mut pairs) = (Vec::new(), Vec::new());
        let (mut adds, mut removes) = (Vec::new(), Vec::new());
        let mut set = BTreeSet::new();
        let (mut rebuilds, mut missed) = (0, 0);
        for step in 0..40 {
            let offset = cell.shear_offset(0.01 * step as f64);
            images.set_offset(offset);
            let too_far = (0..n).any(|p| (0..DIM).any(|a| images.too_far(a, pos[a][p])));
            if too_far {
                #[allow(clippy::needless_range_loop)] // p indexes every axis's array
                for p in 0..n {
                    let mut c: Vector = std::array::from_fn(|a| pos[a][p]);
                    cell.wrap_point(&mut c, offset);
                    (0..DIM).for_each(|a| pos[a][p] = c[a]);
                }
            }
            let view: [&[f64]; DIM] = std::array::from_fn(|a| pos[a].as_slice());
            let src = BallBoxes {
                pos: view,
                radius: &radius,
                margin,
            };
            let missing = step > 0 && !too_far && images.missing(view);
            missed += missing as usize;
            if step == 0 || too_far || missing {
                rebuilds += 1;
                images.build(view);
                m.rebuild(&images.boxes(&src), &mut entries);
                images.particle_pairs(n, &entries, &mut pairs);
                set = pairs.iter().copied().collect();
            } else {
                m.refresh(&images.boxes(&src), &mut adds, &mut removes);
                let mut touched = Vec::new();
                images.particle_pairs(n, &adds, &mut touched);
                let mut more = Vec::new();
                images.particle_pairs(n, &removes, &mut more);
                touched.extend(more);
                for (i, j) in touched {
                    if images.any_copy_meets(n, m.stored_boxes(), i, j) {
                        set.insert((i, j));
                    } else {
                        set.remove(&(i, j));
                    }
                }
            }
            // The methods keep the brute-force set of the entries.
            let entry_boxes: Vec<Box64> = (0..src.len() + images.len())
                .map(|e| images.boxes(&src).bbox(e))
                .collect();
            let mut kept = Vec::new();
            images.particle_pairs(n, &brute_force_pairs(&Boxes(&entry_boxes)), &mut kept);
            assert_eq!(set, kept.into_iter().collect(), "{} step {step}: entries", m.name());
            let (inner, outer) = reference(&cell, offset, &pos, &radius, margin);
            assert!(
                inner.is_subset(&set),
                "{} step {step}: a pair that meets is missing",
                m.name()
            );
            assert!(
                set.is_subset(&outer),
                "{} step {step} shear {shear_velocity}: pairs that cannot meet: {:?}",
                m.name(),
                set.difference(&outer).collect::<Vec<_>>()
            );
            // Every other particle drifts the other way, so that particles near both faces
            // meet across them.
            for (a, x) in pos.iter_mut().enumerate() {
                for (p, v) in x.iter_mut().enumerate() {
                    let sign = if p % 2 == 0 { 1.0 } else { -1.0 };
                    *v += jitter * (rnd() - 0.5) + if a == 0 { sign * drift } else { 0.0 };
                }
            }
        }
        assert!(rebuilds > 1 && rebuilds < 40, "{rebuilds} rebuilds");
        missed
    }

    #[test]
    fn every_method_keeps_the_periodic_set_of_pairs() {
        let mut axes = vec![[true; DIM]];
        axes.push(std::array::from_fn(|a| a == 0));
        // Spread over the cell, drifting along x (wrapped, often), and starting in the
        // middle (images made again as particles near the faces, before any is wrapped);
        // every axis periodic with Lees-Edwards shear too (the cell above sliding at 3
        // lengths a time unit).
        let cases = axes.into_iter().map(|p| (p, 0.0)).chain([([true; DIM], 3.0)]);
        for (periodic, shear) in cases {
            for (middle, jitter, drift) in [(false, 0.02, 0.004), (true, 0.005, 0.01)] {
                let root = std::array::from_fn(|k| if k % 2 == 0 { -1.5 } else { 3.0 });
                let missed = [
                    check(SweepAndPrune::new(), periodic, shear, middle, jitter, drift),
                    check(LinkedCells::new(), periodic, shear, middle, jitter, drift),
                    check(VerletLists::new(), periodic, shear, middle, jitter, drift),
                    check(
                        Quadtree::with_capacity(Some(root), 4),
                        periodic,
                        shear,
                        middle,
                        jitter,
                        drift,
                    ),
                ];
                assert!(!middle || missed.iter().all(|&m| m > 0), "{missed:?}");
            }
        }
    }

    #[test]
    fn wrap_and_minimum_image() {
        let cell = PeriodicCell {
            lo: [-1.0; DIM],
            hi: [3.0; DIM],
            periodic: [true; DIM],
            shear_velocity: 0.0,
        };
        assert_eq!(cell.wrap(0, 3.5), -0.5);
        assert_eq!(cell.wrap(0, -1.5), 2.5);
        assert_eq!(cell.wrap(0, 3.0), -1.0);
        assert_eq!(cell.wrap(0, -1e-300), -1e-300);
        let mi = cell.min_image(0.0);
        assert_eq!(mi.axis(0, 3.5), -0.5);
        assert_eq!(mi.axis(0, -2.5), 1.5);
        assert_eq!(mi.axis(0, 0.1234567), 0.1234567);
        assert!(PeriodicImages::new(cell, 0.5).is_ok());
        assert!(PeriodicImages::new(cell, 1.0).is_err());
    }
}
