//! Geometry of convex polygons: mass properties, closest features of a separated pair,
//! the overlap of a penetrating pair. Polygons are slices of vertices `[x, y]` in
//! counter-clockwise order (the engine's flat world-vertex array, one range per body).
pub mod accurate_overlap;
pub mod closest_features;
pub mod crossings;
pub mod exact_overlap;
pub mod expansion;
pub mod overlap;
pub mod overlap_result;
pub mod penetration;
pub mod point_distance;
pub mod polygon;
pub mod predicates;
pub mod projection;
pub mod separating_line;
pub mod sin_cos;

// Small vector and ring-index helpers shared by the polygon kernels.

#[inline(always)]
pub(crate) fn sub(p: [f64; 2], q: [f64; 2]) -> [f64; 2] {
    [p[0] - q[0], p[1] - q[1]]
}

#[inline(always)]
pub(crate) fn dot(p: [f64; 2], q: [f64; 2]) -> f64 {
    p[0] * q[0] + p[1] * q[1]
}

#[inline(always)]
pub(crate) fn cross(p: [f64; 2], q: [f64; 2]) -> f64 {
    p[0] * q[1] - p[1] * q[0]
}

/// The ring index after `k` among `n` (no integer division: it showed in profiles).
#[inline(always)]
pub(crate) fn next(k: usize, n: usize) -> usize {
    if k + 1 == n {
        0
    } else {
        k + 1
    }
}

/// The ring index before `k` among `n`.
#[inline(always)]
pub(crate) fn prev(k: usize, n: usize) -> usize {
    if k == 0 {
        n - 1
    } else {
        k - 1
    }
}
