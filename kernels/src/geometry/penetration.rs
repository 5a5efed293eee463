//! How deep two convex polygons reach into each other: the length of the shortest
//! translation that parts them, by the separating-axis theorem (two convex polygons are
//! apart exactly when the unit normal of one of their edges separates them, and the
//! smallest overlap of their projections over those normals is the shortest translation
//! that parts them). The set-up checks measure a polygon grain's overlap with a wall
//! body by it, as they measure a disc's by its radius less its centre's distance.
//! O(n m), no allocation; not for the per-step narrow phase (overlap areas decide there).

use super::{dot, next, sub};

/// The shortest translation that parts `a` and `b` (counter-clockwise, convex, at least
/// 3 corners each): positive where they overlap; 0 where they touch; negative where they
/// are apart (minus the widest gap between their projections on an edge normal, at most
/// their distance).
pub fn penetration_depth(a: &[[f64; 2]], b: &[[f64; 2]]) -> f64 {
    axes_overlap(a, b).min(axes_overlap(b, a))
}

/// The shortest move along an edge normal of `a` that parts the projections of `a` and
/// `b` on it (negative: the widest gap between them).
fn axes_overlap(a: &[[f64; 2]], b: &[[f64; 2]]) -> f64 {
    let n = a.len();
    let mut least = f64::INFINITY;
    for k in 0..n {
        let e = sub(a[next(k, n)], a[k]);
        let len = dot(e, e).sqrt();
        // Outward unit normal of a counter-clockwise edge.
        let u = [e[1] / len, -e[0] / len];
        // a reaches up to its own edge line along u. Parting them along u moves b out
        // past a's far end, or back past its near one, whichever is shorter (the longer
        // of the two where one holds the other's projection).
        let a_max = dot(u, a[k]);
        let a_min = a.iter().map(|p| dot(u, *p)).fold(f64::INFINITY, f64::min);
        let (b_min, b_max) = b
            .iter()
            .map(|p| dot(u, *p))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), d| (lo.min(d), hi.max(d)));
        least = least.min((a_max - b_min).min(b_max - a_min));
    }
    least
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x: f64, y: f64, side: f64) -> [[f64; 2]; 4] {
        [[x, y], [x + side, y], [x + side, y + side], [x, y + side]]
    }

    #[test]
    fn squares_overlapping_touching_and_apart() {
        let a = square(0.0, 0.0, 2.0);
        // Shifted 1.5 right and 0.25 up: parted by 0.5 to the right (the least overlap).
        assert_eq!(penetration_depth(&a, &square(1.5, 0.25, 2.0)), 0.5);
        assert_eq!(penetration_depth(&square(1.5, 0.25, 2.0), &a), 0.5, "symmetric");
        assert_eq!(penetration_depth(&a, &square(2.0, 0.0, 1.0)), 0.0, "touching");
        assert_eq!(penetration_depth(&a, &square(3.0, 0.5, 1.0)), -1.0, "1 apart");
        // One inside the other: parted by moving it out the nearest side and its width.
        assert_eq!(penetration_depth(&a, &square(0.25, 0.5, 1.0)), 1.25);
    }

    #[test]
    fn a_corner_into_an_edge_reaches_its_depth() {
        // A diamond whose lowest corner is 0.1 below the top of a slab: the normals of the
        // diamond's edges see more overlap than the slab's own normal does.
        let slab = [[-5.0, -1.0], [5.0, -1.0], [5.0, 0.0], [-5.0, 0.0]];
        let diamond = [[0.0, -0.1], [1.0, 0.9], [0.0, 1.9], [-1.0, 0.9]];
        let d = penetration_depth(&slab, &diamond);
        assert!((d - 0.1).abs() < 1e-15, "{d}");
        // Corner to corner at a distance: the gap along an edge normal is at most the
        // distance (0.3 sqrt 2 between the corners (1, 1) and (1.3, 1.3)).
        let gap = penetration_depth(&square(-1.0, -1.0, 2.0), &[[1.3, 1.3], [2.3, 1.3], [2.3, 2.3]]);
        assert!(gap < 0.0 && -gap <= 0.3 * 2f64.sqrt() + 1e-15, "{gap}");
    }
}
