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
//! rebuilds of the images. (Under shear, images across y are also wider along x by the
//! offset's `drift`; in a cell whose y length changes, taller by a `give`: both bands
//! grow by them.)
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
    /// A cell whose y length changes (a servo to a stress, `new_resizable`): the lengths
    /// it may take; the images across y get boxes taller by `give` on each side, and the
    /// broad phase is updated before the length moves further than that from
    /// `stored_length`, the length their stored boxes were placed with.
    y_range: Option<(f64, f64)>,
    give: f64,
    stored_length: f64,
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
        Self::make(cell, half_width, None)
    }

    /// [`PeriodicImages::new`] for a cell whose y length may take any value in `min..=max`
    /// (which must hold its length now): the images are made for the shortest, and the
    /// broad phase's domain ([`PeriodicImages::broad_domain`]) holds the longest cell
    /// and images stretched with it.
    pub fn new_resizable(cell: PeriodicCell, half_width: f64, min: f64, max: f64) -> Result<Self, String> {
        let l = cell.length(1);
        if !cell.periodic[1] {
            return Err("a cell whose y length changes needs y periodic".into());
        }
        if !(min > 0.0 && min <= l && l <= max && max.is_finite()) {
            return Err(format!("y lengths {min}..{max} do not hold the cell's length {l}"));
        }
        Self::make(cell, half_width, Some((min, max)))
    }

    fn make(cell: PeriodicCell, half_width: f64, y_range: Option<(f64, f64)>) -> Result<Self, String> {
        let reach = 2.0 * half_width;
        let mut shortest = f64::INFINITY;
        for a in (0..DIM).filter(|&a| cell.periodic[a]) {
            let l = match y_range {
                Some((min, _)) if a == 1 => min,
                _ => cell.length(a),
            };
            if l.partial_cmp(&(2.0 * reach)) != Some(std::cmp::Ordering::Greater) {
                let is = if a == 1 && y_range.is_some() { "may be" } else { "is" };
                return Err(format!(
                    "periodic axis {}: the cell {is} {l} long, not longer than 4 x (largest radius + neighbour \
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
            y_range,
            give: if y_range.is_some() { slack } else { 0.0 },
            stored_length: cell.length(1),
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

    /// How far past the cell the broad phase's entries may reach (the quadtree's root); in
    /// a cell whose y length changes, further along y ([`PeriodicImages::broad_domain`]).
    pub fn extent(&self) -> f64 {
        2.0 * self.slack + self.reach + self.spare + 2.0 * self.drift + 2.0 * self.give
    }

    /// The broad phase's domain for a domain `lo..hi` that is this cell: past the periodic
    /// faces by the [extent](Self::extent). On a y axis whose length changes, from the
    /// longest cell, and further by as far as images are stretched past the band they
    /// were made in (made within `band` of a face at one length, they are within band x
    /// max / min at another): the same whatever the length now, so that a broad phase
    /// made anew from a checkpoint is the one the run had.
    pub fn broad_domain(&self, lo: &mut Vector, hi: &mut Vector) {
        let e = self.extent();
        for a in (0..DIM).filter(|&a| self.cell.periodic[a]) {
            let mut grow = 0.0;
            if let (1, Some((min, max))) = (a, self.y_range) {
                hi[a] = lo[a] + max;
                grow = self.band() * (max / min - 1.0);
            }
            lo[a] -= e + grow;
            hi[a] += e + grow;
        }
    }

    /// How far from a face a centre gets images when they are made.
    fn band(&self) -> f64 {
        self.slack + self.reach + self.spare + self.drift + self.give
    }

    /// The y lengths the cell may take, if it changes.
    pub fn y_range(&self) -> Option<(f64, f64)> {
        self.y_range
    }

    /// Make the cell's y length `l` (within its range; the caller moves the particles).
    pub fn set_length_y(&mut self, l: f64) {
        self.cell.hi[1] = self.cell.lo[1] + l;
    }

    /// Has the y length moved so far since the last update that the images' boxes no
    /// longer hold the images across y? (Never for a cell of fixed length.)
    pub fn length_drifted(&self) -> bool {
        self.give > 0.0 && (self.cell.length(1) - self.stored_length).abs() > self.give
    }

    /// How much taller along y an image's box across y is in a cell whose length changes.
    pub fn give(&self) -> f64 {
        self.give
    }

    /// The y length the images' stored boxes were placed with (a checkpoint keeps it).
    pub fn stored_length(&self) -> f64 {
        self.stored_length
    }

    /// Set the y length the images' stored boxes were placed with, from a checkpoint.
    pub fn restore_length(&mut self, stored: f64) {
        self.stored_length = stored;
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

    /// The broad phase has stored boxes placed with the current offset and y length.
    pub fn mark_stored(&mut self) {
        self.stored_offset = self.offset;
        self.stored_length = self.cell.length(1);
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
        let band = self.band();
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
        let band = self.slack + self.reach + self.drift + self.give;
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
/// drift; across y in a cell whose length changes, taller by the give): it holds the moved
/// particle as surely as the stored box holds the particle.
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
        // by the offset's drift until the next update; in a cell whose y length changes,
        // its box is taller by the give.
        let (slide, wide) = if k[1] != 0 && im.drift > 0.0 {
            (k[1] as f64 * im.offset, im.drift)
        } else {
            (0.0, 0.0)
        };
        let tall = if k[1] != 0 { im.give } else { 0.0 };
        std::array::from_fn(|c| {
            let a = c / 2;
            let mut v = b[c] as f64 + k[a] as f64 * im.cell.length(a);
            if a == 0 {
                v += slide + if c % 2 == 0 { -wide } else { wide };
            }
            if a == 1 && tall > 0.0 {
                v += if c % 2 == 0 { -tall } else { tall };
            }
            v
        })
    }
}

#[cfg(test)]
mod tests;
