//! Which candidate pairs may touch before one of their stored boxes is made anew.
//!
//! A candidate pair is one whose enlarged boxes overlap. Each ball stays inside its stored
//! box until the broad phase makes the box anew (the position check), so its centre stays
//! inside the box's core: the box shrunk by the radius on every side. Two balls whose cores
//! are farther apart than the sum of their radii cannot touch until then. In 3D the box's
//! corners reach far past the sphere: of a settled bed of the LAMMPS S3D spheres' 5.6
//! candidates per sphere (0.05 mm margin), 3.6 pass this test and 1.9 touch (BENCHMARKS.md,
//! issue 19), and the sphere loop reads only those that pass.

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

/// Mark in `near` the slots (`ci`, `cj`; `free` marks a free slot) whose pair may touch
/// (1) or cannot (0), from the stored boxes and radii. `all`: test every live slot; else
/// only those marked 0 (a pair marked 1 stays so: it is safe, if slower, and a pair can
/// only come near when a box is made anew, which an update does for the boxes it tests
/// here). Calls `dropped(slot)` for each slot that goes from 1 to 0; returns how many
/// slots are marked 1 and how many marks changed.
pub fn mark_near_pairs(
    ci: &[u32],
    cj: &[u32],
    free: u32,
    (boxes, radius): (&[Aabb], &[f64]),
    near: &mut [u8],
    all: bool,
    mut dropped: impl FnMut(usize),
) -> (usize, usize) {
    let n = near.len();
    let (ci, cj) = (&ci[..n], &cj[..n]);
    let (mut marked, mut changed) = (0, 0);
    for s in 0..n {
        let i = ci[s];
        if i == free {
            changed += near[s] as usize;
            near[s] = 0;
            continue;
        }
        if near[s] == 0 || all {
            let (i, j) = (i as usize, cj[s] as usize);
            let now = cores_within(&boxes[i], radius[i], &boxes[j], radius[j]) as u8;
            if near[s] > now {
                dropped(s);
            }
            changed += (near[s] != now) as usize;
            near[s] = now;
        }
        marked += near[s] as usize;
    }
    (marked, changed)
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

    /// The pass marks free slots 0, keeps a 1 untested unless asked, and reports the slots
    /// it drops.
    #[test]
    fn the_pass_tests_what_it_is_asked_to() {
        let r = vec![1e-3; 3];
        let m = 1e-4;
        // 0 and 1 touch; 0 and 2 overlap in their boxes at a corner only.
        let c = 2.0e-3 + 2.0 * m - 1e-6;
        let boxes = vec![
            stored([0.0; DIM], 1e-3, m),
            stored(std::array::from_fn(|k| if k == 0 { 1.9e-3 } else { 0.0 }), 1e-3, m),
            stored([c; DIM], 1e-3, m),
        ];
        const FREE: u32 = u32::MAX;
        let (ci, cj) = (vec![0, 0, FREE], vec![1, 2, FREE]);
        let mut near = vec![1, 1, 1];
        let mut gone = Vec::new();
        assert_eq!(
            mark_near_pairs(&ci, &cj, FREE, (&boxes, &r), &mut near, false, |s| gone.push(s)),
            (2, 1)
        );
        assert_eq!((near.clone(), gone.len()), (vec![1, 1, 0], 0));
        assert_eq!(
            mark_near_pairs(&ci, &cj, FREE, (&boxes, &r), &mut near, true, |s| gone.push(s)),
            (1, 1)
        );
        assert_eq!((near.clone(), gone.clone()), (vec![1, 0, 0], vec![1]));
        // A slot marked 0 is tested again without being asked.
        near[1] = 0;
        let boxes2 = vec![boxes[0], boxes[1], boxes[1]];
        assert_eq!(
            mark_near_pairs(&ci, &cj, FREE, (&boxes2, &r), &mut near, false, |_| unreachable!()),
            (2, 1)
        );
    }
}
