//! Signed distance from a point to a convex polygon (counter-clockwise corners): what
//! decides whether a disc, or a polygon's bounding circle, clears a polygon when only
//! one of the two is a polygon (placing a poured particle next to a wall body, checking
//! a set-up's particles against wall bodies). O(n), no allocation.
//!
//! Outside the polygon the distance is that to the nearest edge segment. Inside, every
//! edge line is at least as far as the boundary and the nearest edge line is on it (the
//! polygon is convex), so the distance is minus that to the nearest edge line. Both
//! agree, 0, on the boundary.

use super::{cross, dot, next, sub};

/// Distance from `p` to the polygon `v` (counter-clockwise, convex, at least 3 corners):
/// positive outside, negative inside (minus the distance to the boundary), 0 on it.
pub fn signed_distance(p: [f64; 2], v: &[[f64; 2]]) -> f64 {
    let n = v.len();
    // Signed distance to the nearest-lying edge line, outward positive; the point is
    // inside exactly when it is behind every edge line.
    let mut behind_all = true;
    let mut deepest = f64::NEG_INFINITY;
    for k in 0..n {
        let e = sub(v[next(k, n)], v[k]);
        let out = -cross(e, sub(p, v[k])) / dot(e, e).sqrt();
        behind_all &= out <= 0.0;
        deepest = deepest.max(out);
    }
    if behind_all {
        return deepest;
    }
    (0..n)
        .map(|k| point_segment(p, v[k], v[next(k, n)]))
        .fold(f64::INFINITY, f64::min)
}

/// Distance from `p` to the segment `a`-`b` (of non-zero length).
fn point_segment(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (e, d) = (sub(b, a), sub(p, a));
    let t = (dot(d, e) / dot(e, e)).clamp(0.0, 1.0);
    let q = [d[0] - t * e[0], d[1] - t * e[1]];
    dot(q, q).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQUARE: [[f64; 2]; 4] = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];

    #[test]
    fn inside_on_and_outside_a_square() {
        let d = |x: f64, y: f64| signed_distance([x, y], &SQUARE);
        assert_eq!(d(1.0, 1.0), -1.0, "centre: 1 from every side");
        assert_eq!(d(0.5, 1.0), -0.5, "nearest side");
        assert_eq!(d(2.0, 1.0), 0.0, "on an edge");
        assert_eq!(d(0.0, 0.0), 0.0, "on a corner");
        assert_eq!(d(3.0, 1.0), 1.0, "beside an edge");
        assert_eq!(d(1.0, -0.25), 0.25, "below an edge");
        // Beyond a corner: the distance to the corner, not to either edge line.
        assert!((d(3.0, 3.0) - 2f64.sqrt()).abs() < 1e-15);
        assert!((d(-3.0, -4.0) - 5.0).abs() < 1e-15);
    }

    #[test]
    fn a_long_thin_plate_is_close_only_near_it() {
        // The left plate of scenarios/hopper.toml, 0.134 long: its bounding circle (radius
        // 0.071 about its centroid) covers points 0.05 from it.
        let plate = [[0.05, 0.24], [0.14, 0.14], [0.14, 0.15], [0.05, 0.25]];
        let d = signed_distance([0.15, 0.22], &plate);
        assert!((d - 0.0073 / 0.0181f64.sqrt()).abs() < 1e-12, "{d}");
        // 1 mm out from the middle of its upper face (from (0.14, 0.15) to (0.05, 0.25),
        // outward normal (0.10, 0.09) / |e|).
        let len = 0.0181f64.sqrt();
        let above = [0.095 + 1e-3 * 0.10 / len, 0.2 + 1e-3 * 0.09 / len];
        assert!((signed_distance(above, &plate) - 1e-3).abs() < 1e-15);
        // Half way between its faces (0.01 apart vertically, 0.01 x 0.09 / |e| across).
        let inside = signed_distance([0.095, 0.195], &plate);
        assert!((inside + 0.5 * 0.01 * 0.09 / len).abs() < 1e-15, "{inside}");
    }
}
