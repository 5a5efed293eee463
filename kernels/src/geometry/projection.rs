//! Refinement of a candidate pair by projecting the corners on the line between the
//! centres (Chen & Matuttis 2013, Appendix B.1): if the furthest corner of the first
//! polygon towards the second projects short of the nearest corner of the second, a line
//! perpendicular to the centre line separates them. Unlike the bounding circles, this
//! rejects elongated particles lying side by side. O(n + m), no branches in the loops.

/// Whether the corners of `a` and `b`, projected on the direction from `ca` to `cb`, fall
/// into disjoint intervals (the pair cannot touch). `ca == cb` never rejects.
pub fn projections_apart(a: &[[f64; 2]], b: &[[f64; 2]], ca: [f64; 2], cb: [f64; 2]) -> bool {
    let u = [cb[0] - ca[0], cb[1] - ca[1]];
    if u == [0.0, 0.0] {
        return false;
    }
    let max_a = a
        .iter()
        .map(|p| p[0] * u[0] + p[1] * u[1])
        .fold(f64::NEG_INFINITY, f64::max);
    let min_b = b
        .iter()
        .map(|p| p[0] * u[0] + p[1] * u[1])
        .fold(f64::INFINITY, f64::min);
    max_a < min_b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elongated_side_by_side() {
        // Two 10 x 1 rectangles, 1.2 apart along y: the bounding circles (radius ~5) overlap.
        let rect = |y: f64| [[-5.0, y - 0.5], [5.0, y - 0.5], [5.0, y + 0.5], [-5.0, y + 0.5]];
        assert!(projections_apart(&rect(0.0), &rect(1.2), [0.0, 0.0], [0.0, 1.2]));
        assert!(!projections_apart(&rect(0.0), &rect(0.9), [0.0, 0.0], [0.0, 0.9]));
        // Touching is not apart (the kernel decides).
        assert!(!projections_apart(&rect(0.0), &rect(1.0), [0.0, 0.0], [0.0, 1.0]));
    }

    #[test]
    fn staggered_rectangles_are_not_rejected_along_the_centre_line() {
        // Apart along x, but the centre line is diagonal: the projections overlap, and the
        // test must say "maybe" (it is only a sufficient condition).
        let a = [[0.0, 0.0], [1.0, 0.0], [1.0, 4.0], [0.0, 4.0]];
        let b = [[1.1, 2.0], [2.1, 2.0], [2.1, 6.0], [1.1, 6.0]];
        assert!(!projections_apart(&a, &b, [0.5, 2.0], [1.6, 4.0]));
    }
}
