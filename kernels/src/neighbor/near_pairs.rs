//! Which candidate pairs may touch before one of their stored boxes is made anew.
//!
//! A candidate pair is one whose enlarged boxes overlap. Each ball stays inside its stored
//! box until the broad phase makes the box anew (the position check), so its centre stays
//! inside the box's core: the box shrunk by the radius on every side. Two balls whose cores
//! are farther apart than the sum of their radii cannot touch until then. In 3D the box's
//! corners reach far past the sphere: of a settled bed of the LAMMPS S3D spheres' 5.6
//! candidates per sphere (0.05 mm margin), 3.6 pass this test and 1.9 touch (BENCHMARKS.md,
//! issue 19); the engine keeps the others out of the contact table's slots, which the
//! sphere loop reads.

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

/// The slots (`ci`, `cj`; `free` marks a free slot) whose pair cannot touch before one of
/// its stored boxes is made anew, in order, into `out`.
pub fn far_slots(ci: &[u32], cj: &[u32], free: u32, balls: (&[Aabb], &[f64]), out: &mut Vec<u32>) {
    let cj = &cj[..ci.len()];
    for (s, (&i, &j)) in ci.iter().zip(cj).enumerate() {
        if i != free && !may_touch(balls, i, j) {
            out.push(s as u32);
        }
    }
}

/// Split a list of candidate pairs: those that cannot touch before one of their stored
/// boxes is made anew move to `far` (in order), the others stay in `pairs` (in order).
pub fn split_far_pairs(pairs: &mut Vec<(u32, u32)>, balls: (&[Aabb], &[f64]), far: &mut Vec<[u32; 2]>) {
    pairs.retain(|&(i, j)| {
        let near = may_touch(balls, i, j);
        if !near {
            far.push([i, j]);
        }
        near
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

    /// The passes pass over free slots, and list (or move out) exactly the pairs whose
    /// cores are out of reach.
    #[test]
    fn the_passes_list_the_far_pairs() {
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
        let (ci, cj) = (vec![0, FREE, 0, 1], vec![1, FREE, 2, 2]);
        let mut out = Vec::new();
        far_slots(&ci, &cj, FREE, (&boxes, &r), &mut out);
        assert_eq!(out, vec![2, 3]);
        let mut pairs = vec![(0, 1), (0, 2), (1, 2)];
        let mut far = vec![[7, 8]];
        split_far_pairs(&mut pairs, (&boxes, &r), &mut far);
        assert_eq!((pairs, far), (vec![(0, 1)], vec![[7, 8], [0, 2], [1, 2]]));
        // Moved next to 0, 2 may touch.
        let boxes2 = vec![boxes[0], boxes[1], boxes[1]];
        assert!(may_touch((&boxes2, &r), 0, 2));
    }
}
