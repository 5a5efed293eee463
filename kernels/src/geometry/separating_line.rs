//! Iterative search for a separating line (Chen & Matuttis 2013, Appendix B.2, in 2D):
//! the cheap rejection tried after the projection on the centre line has failed. The paper
//! starts from the plane normal to the centre line and moves it using the corners v1, v2
//! that protrude furthest beyond it, with a cap on the iterations; it leaves the choice of
//! the next plane loose ("in the middle between v1 and v2"). In 2D the candidates follow
//! from the separating-axis theorem: two convex polygons are apart exactly when the
//! normal of one of their edges separates them, and the edges that can do so next to the
//! current direction are those at v1 and v2. Each iteration tests those four edge normals
//! and moves to the one with the largest gap; it stops when a gap is positive (apart) or
//! after `max_iter` iterations (no verdict: the exact test decides). O(n + m) per
//! iteration, a sufficient test only.

use super::dot;

/// Index and value of the largest projection on `u`.
fn support(v: &[[f64; 2]], u: [f64; 2]) -> (usize, f64) {
    let mut best = (0, f64::NEG_INFINITY);
    for (k, &p) in v.iter().enumerate() {
        let d = dot(p, u);
        if d > best.1 {
            best = (k, d);
        }
    }
    best
}

/// Outward normal (not normalised) of edge k of a counter-clockwise polygon.
#[inline(always)]
fn edge_normal(v: &[[f64; 2]], k: usize) -> [f64; 2] {
    let (p, q) = (v[k], v[(k + 1) % v.len()]);
    [q[1] - p[1], p[0] - q[0]]
}

/// Gap along `u` (unit or not; only its sign matters to the verdict): min over b minus max
/// over a, scaled to unit length so that gaps along different axes compare.
fn gap(a: &[[f64; 2]], b: &[[f64; 2]], u: [f64; 2]) -> f64 {
    let len = u[0].hypot(u[1]);
    if len == 0.0 {
        return f64::NEG_INFINITY;
    }
    let max_a = support(a, u).1;
    let min_b = -support(b, [-u[0], -u[1]]).1;
    (min_b - max_a) / len
}

/// What the search found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineSearch {
    /// A separating line was found (the pair cannot touch); otherwise no verdict.
    pub apart: bool,
    /// Moves of the line made (0: the centre line settled it, or nothing better was near).
    pub iterations: u32,
}

/// Search for a line separating counter-clockwise convex polygons `a` and `b` with
/// centres `ca`, `cb`, starting from the normal of the centre line and moving at most
/// `max_iter` times.
pub fn separating_line(a: &[[f64; 2]], b: &[[f64; 2]], ca: [f64; 2], cb: [f64; 2], max_iter: u32) -> LineSearch {
    let mut u = [cb[0] - ca[0], cb[1] - ca[1]];
    if u == [0.0, 0.0] {
        u = [1.0, 0.0];
    }
    let mut current = gap(a, b, u);
    for k in 0..=max_iter {
        if current > 0.0 {
            return LineSearch {
                apart: true,
                iterations: k,
            };
        }
        if k == max_iter {
            break;
        }
        // The corners furthest beyond the current line, and the edges at them.
        let (ia, _) = support(a, u);
        let (ib, _) = support(b, [-u[0], -u[1]]);
        let (na, nb) = (a.len(), b.len());
        let candidates = [
            edge_normal(a, (ia + na - 1) % na),
            edge_normal(a, ia),
            {
                let n = edge_normal(b, (ib + nb - 1) % nb);
                [-n[0], -n[1]]
            },
            {
                let n = edge_normal(b, ib);
                [-n[0], -n[1]]
            },
        ];
        let (mut best, mut best_gap) = (u, f64::NEG_INFINITY);
        for c in candidates {
            let g = gap(a, b, c);
            if g > best_gap {
                (best, best_gap) = (c, g);
            }
        }
        if best_gap <= current {
            // A local maximum of the gap over the axes: moving on cannot help.
            return LineSearch {
                apart: false,
                iterations: k,
            };
        }
        (u, current) = (best, best_gap);
    }
    LineSearch {
        apart: false,
        iterations: max_iter,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staggered_rectangles_need_one_iteration() {
        // Apart along x only; the centre line is diagonal and its projections overlap.
        let a = [[0.0, 0.0], [1.0, 0.0], [1.0, 4.0], [0.0, 4.0]];
        let b = [[1.1, 2.0], [2.1, 2.0], [2.1, 6.0], [1.1, 6.0]];
        assert!(!separating_line(&a, &b, [0.5, 2.0], [1.6, 4.0], 0).apart);
        let s = separating_line(&a, &b, [0.5, 2.0], [1.6, 4.0], 4);
        assert!(s.apart && s.iterations == 1, "{s:?}");
    }

    #[test]
    fn never_separates_overlapping_polygons() {
        let a = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];
        let b = [[1.9, 1.9], [3.0, 1.9], [3.0, 3.0], [1.9, 3.0]];
        assert!(!separating_line(&a, &b, [1.0, 1.0], [2.45, 2.45], 10).apart);
        // Touching at a corner is not apart either.
        let c = [[2.0, 2.0], [3.0, 2.0], [3.0, 3.0], [2.0, 3.0]];
        assert!(!separating_line(&a, &c, [1.0, 1.0], [2.5, 2.5], 10).apart);
    }
}
