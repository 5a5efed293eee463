//! Which candidate pairs may touch before one of their stored boxes is made anew.
//!
//! A candidate pair is one whose enlarged boxes overlap. Each ball stays inside its stored
//! box until the broad phase makes the box anew (the position check), so its centre stays
//! inside the box's core: the box shrunk by the radius on every side. Two balls whose cores
//! are farther apart than the sum of their radii cannot touch until then. In 3D the box's
//! corners reach far past the sphere: of a settled bed of the LAMMPS S3D spheres' 5.6
//! candidates per sphere (0.05 mm margin), 3.6 pass this test and 1.9 touch (BENCHMARKS.md,
//! issue 19). The engine keeps the contact table's slots, which the sphere loop reads,
//! for the touching pairs: the others wait without a slot, in a list it tests every step
//! (`touching`) if they may touch, in one it tests only when boxes are made anew if not.

use crate::math::{Aabb, DIM};

/// Slack on the sum of the radii, relative to it and to the boxes' coordinates: the cores
/// come from boxes rounded to `f32`, the position check rounds `x - r` and the loop's test
/// its squared distance, so a centre may lie outside its core by a few units in the last
/// place of its coordinates. A pair kept for nothing costs a little work; one dropped
/// wrongly would miss a contact.
const SLACK: f64 = 1e-9;
const SLACK_OF_COORDINATES: f64 = 1e-12;

/// Can balls of radii `ri` and `rj`, each inside its stored box `bi`, `bj`, touch? (The
/// distance between the boxes' cores below the sum of the radii.)
#[inline(always)]
pub fn cores_within(bi: &Aabb, ri: f64, bj: &Aabb, rj: f64) -> bool {
    let mut d2 = 0.0;
    let mut scale = 0.0f64;
    for k in 0..DIM {
        for v in [bi[2 * k], bi[2 * k + 1], bj[2 * k], bj[2 * k + 1]] {
            scale = scale.max((v as f64).abs());
        }
        let (lo_i, hi_i) = (bi[2 * k] as f64 + ri, bi[2 * k + 1] as f64 - ri);
        let (lo_j, hi_j) = (bj[2 * k] as f64 + rj, bj[2 * k + 1] as f64 - rj);
        let gap = (lo_j - hi_i).max(lo_i - hi_j).max(0.0);
        d2 += gap * gap;
    }
    let reach = (ri + rj) * (1.0 + SLACK) + scale * SLACK_OF_COORDINATES;
    d2 < reach * reach
}

/// Can the pair (i, j) touch before one of its stored boxes is made anew?
#[inline(always)]
pub fn may_touch((boxes, radius): (&[Aabb], &[f64]), i: u32, j: u32) -> bool {
    let (i, j) = (i as usize, j as usize);
    cores_within(&boxes[i], radius[i], &boxes[j], radius[j])
}

/// What the touch test reads of the balls: centres (one slice per axis), radii and
/// inverse masses.
#[derive(Debug, Clone, Copy)]
pub struct Balls<'a> {
    /// Centres, one slice per axis.
    pub pos: [&'a [f64]; DIM],
    /// Radii.
    pub radius: &'a [f64],
    /// Inverse masses (zero: a body of infinite mass).
    pub inv_mass: &'a [f64],
}

/// Do balls i and j touch now? The sphere loop's own test, to the bit (the squares of the
/// separation `x_j - x_i` summed in axis order, below the square of the radii's sum; a
/// pair of two bodies of infinite mass never touches): the engine keeps a pair without a
/// slot only while this says no, and such a pair gets no force.
#[inline(always)]
pub fn touching(b: &Balls, i: u32, j: u32) -> bool {
    touching_within(b, i, j, 0.0).0
}

/// Whether balls i and j touch now ([`touching`]), and whether their surfaces are less
/// than `gap` apart (or overlap).
#[inline(always)]
pub fn touching_within(b: &Balls, i: u32, j: u32, gap: f64) -> (bool, bool) {
    let (i, j) = (i as usize, j as usize);
    let mut r2 = 0.0;
    for a in 0..DIM {
        let d = b.pos[a][j] - b.pos[a][i];
        r2 += d * d;
    }
    let rs = b.radius[i] + b.radius[j];
    let reach = rs + gap;
    // Most pairs tested are apart: the masses are read only for those that are not.
    (r2 < rs * rs && b.inv_mass[i] + b.inv_mass[j] > 0.0, r2 < reach * reach)
}

/// Where a candidate pair is kept: in a slot (it touches), apart (it may touch before one
/// of its stored boxes is made anew) or far (it cannot).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// It touches: a slot, with its spring.
    Slot,
    /// It may touch before one of its boxes is made anew: tested every step.
    Apart,
    /// It cannot: tested when a box is made anew.
    Far,
}

/// The place of pair (i, j) (see [`Place`]), from the balls now and their stored boxes.
#[inline(always)]
pub fn place(stored: (&[Aabb], &[f64]), balls: &Balls, i: u32, j: u32) -> Place {
    if touching(balls, i, j) {
        Place::Slot
    } else if may_touch(stored, i, j) {
        Place::Apart
    } else {
        Place::Far
    }
}

/// Split a list of candidate pairs by their places: the apart ones move to `apart`, the
/// far ones to `far` (each in order), the touching ones stay in `pairs` (in order).
pub fn split_pairs(
    pairs: &mut Vec<(u32, u32)>,
    stored: (&[Aabb], &[f64]),
    balls: &Balls,
    (apart, far): (&mut Vec<[u32; 2]>, &mut Vec<[u32; 2]>),
) {
    pairs.retain(|&(i, j)| match place(stored, balls, i, j) {
        Place::Slot => true,
        Place::Apart => {
            apart.push([i, j]);
            false
        }
        Place::Far => {
            far.push([i, j]);
            false
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(mut s: u64) -> impl FnMut() -> f64 {
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// The box the broad phase stores for a ball at `x` of radius `r` with margin `m`
    /// (rounded outward to f32).
    fn stored(x: [f64; DIM], r: f64, m: f64) -> Aabb {
        std::array::from_fn(|k| {
            let (a, lo) = (k / 2, k % 2 == 0);
            let v = if lo { x[a] - r - m } else { x[a] + r + m };
            let f = v as f32;
            match (lo, (f as f64) > v, (f as f64) < v) {
                (true, true, _) => f.next_down(),
                (false, _, true) => f.next_up(),
                _ => f,
            }
        })
    }

    /// No pair marked "cannot touch" touches, wherever in their boxes the two balls go; and
    /// the test is not empty: pairs far apart in their cores are dropped.
    #[test]
    fn a_dropped_pair_cannot_touch_anywhere_in_its_boxes() {
        let mut rnd = xorshift(0x9e37_79b9_7f4a_7c15);
        let (mut dropped, mut kept) = (0, 0);
        for _ in 0..20_000 {
            let (ri, rj) = (1e-3 * (0.5 + rnd()), 1e-3 * (0.5 + rnd()));
            let m = 1e-4 * rnd();
            let xi: [f64; DIM] = std::array::from_fn(|_| 0.01 * rnd());
            let xj: [f64; DIM] = std::array::from_fn(|a| xi[a] + 2.2 * (ri + rj + m) * (rnd() - 0.5));
            let (bi, bj) = (stored(xi, ri, m), stored(xj, rj, m));
            if cores_within(&bi, ri, &bj, rj) {
                kept += 1;
                continue;
            }
            dropped += 1;
            // The nearest points of the two cores, and random points in them: apart.
            for t in 0..8 {
                let p = |b: &Aabb, r: f64, other: &Aabb, ro: f64, rnd: &mut dyn FnMut() -> f64| -> [f64; DIM] {
                    std::array::from_fn(|k| {
                        let (lo, hi) = (b[2 * k] as f64 + r, b[2 * k + 1] as f64 - r);
                        let (olo, ohi) = (other[2 * k] as f64 + ro, other[2 * k + 1] as f64 - ro);
                        if t == 0 {
                            // The point of the core nearest the other core along this axis.
                            (0.5 * (olo + ohi)).clamp(lo, hi)
                        } else {
                            lo + (hi - lo) * rnd()
                        }
                    })
                };
                let (ci, cj) = (p(&bi, ri, &bj, rj, &mut rnd), p(&bj, rj, &bi, ri, &mut rnd));
                let d2: f64 = (0..DIM).map(|k| (cj[k] - ci[k]).powi(2)).sum();
                assert!(d2 >= (ri + rj).powi(2), "a dropped pair touches: {xi:?} {xj:?}");
            }
        }
        assert!(dropped > 1000 && kept > 1000, "dropped {dropped}, kept {kept}");
    }

    /// The touch test is the loop's: apart at the radii's sum exactly, and never for two
    /// bodies of infinite mass; the split sends each pair to its place, in order.
    #[test]
    fn the_split_sends_each_pair_to_its_place() {
        let r = vec![1e-3; 4];
        let m = 1e-4;
        // 0 and 1 touch; 0 and 3 sit at exactly the radii's sum; 0 and 2 overlap in
        // their boxes at a corner only.
        let c = 2.0e-3 + 2.0 * m - 1e-6;
        let x: [[f64; DIM]; 4] = [
            [0.0; DIM],
            std::array::from_fn(|k| if k == 0 { 1.9e-3 } else { 0.0 }),
            [c; DIM],
            std::array::from_fn(|k| if k == 1 { 2.0e-3 } else { 0.0 }),
        ];
        let boxes: Vec<Aabb> = x.iter().map(|&p| stored(p, 1e-3, m)).collect();
        let pos: [Vec<f64>; DIM] = std::array::from_fn(|a| x.iter().map(|p| p[a]).collect());
        let inv = vec![1.0; 4];
        let balls = Balls {
            pos: std::array::from_fn(|a| pos[a].as_slice()),
            radius: &r,
            inv_mass: &inv,
        };
        assert!(touching(&balls, 0, 1) && touching(&balls, 1, 0));
        assert!(!touching(&balls, 0, 3), "at the radii's sum: apart");
        let fixed = vec![0.0; 4];
        assert!(
            !touching(
                &Balls {
                    inv_mass: &fixed,
                    ..balls
                },
                0,
                1
            ),
            "two fixed bodies"
        );
        let mut pairs = vec![(0, 1), (0, 2), (0, 3), (1, 2)];
        let (mut apart, mut far) = (vec![[5, 6]], vec![[7, 8]]);
        split_pairs(&mut pairs, (&boxes, &r), &balls, (&mut apart, &mut far));
        assert_eq!(pairs, vec![(0, 1)]);
        assert_eq!(apart, vec![[5, 6], [0, 3]]);
        assert_eq!(far, vec![[7, 8], [0, 2], [1, 2]]);
        assert_eq!(place((&boxes, &r), &balls, 1, 0), Place::Slot);
        // Moved next to 0, 2 may touch.
        let boxes2 = vec![boxes[0], boxes[1], boxes[1]];
        assert!(may_touch((&boxes2, &r), 0, 2));
    }
}
