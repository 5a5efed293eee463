//! Closest features of two convex polygons, tracked from step to step (Schinner 1999,
//! section 4; Lin & Canny 1991).
//!
//! A feature is a vertex or an edge (edge k runs from vertex k to vertex k+1; vertices
//! counter-clockwise). Each feature has a Voronoi region outside the polygon: the cone
//! between the outward normals of its two edges for a vertex, the half-strip over an edge.
//! A pair of features whose closest points lie in each other's Voronoi regions is the
//! closest pair: then each point is the other polygon's closest point to the other, and
//! the line between them separates the polygons. When a test fails, it names the
//! neighbouring feature to move to; starting from the pair of the last step, the walk
//! takes O(1) steps when the bodies moved little, whatever the number of corners.
//!
//! A vertex found behind an edge's line is either inside the other polygon (penetration:
//! the caller turns to the overlap kernel) or closer to another edge, found by one scan.
//! Rounding can make the walk cycle between nearly equivalent features (parallel edges);
//! the walk is bounded, and past the bound a separating-axis test and a brute-force search
//! give the answer (counted, so the benchmarks show how rare that is).

/// A vertex or an edge of a polygon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    Vertex(usize),
    Edge(usize),
}

impl Feature {
    fn pack(self) -> u32 {
        match self {
            Feature::Vertex(k) => (k as u32) << 1,
            Feature::Edge(k) => ((k as u32) << 1) | 1,
        }
    }

    fn unpack(v: u32) -> Self {
        if v & 1 == 0 {
            Feature::Vertex((v >> 1) as usize)
        } else {
            Feature::Edge((v >> 1) as usize)
        }
    }
}

/// The cached pair of features of two polygons, packed in a `u32` (16 bits each) for the
/// contact table's per-pair state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeaturePair {
    pub a: Feature,
    pub b: Feature,
}

impl FeaturePair {
    /// Where a new pair starts: the first vertices.
    pub const START: FeaturePair = FeaturePair {
        a: Feature::Vertex(0),
        b: Feature::Vertex(0),
    };

    pub fn pack(self) -> u32 {
        self.a.pack() | (self.b.pack() << 16)
    }

    pub fn unpack(v: u32) -> Self {
        FeaturePair {
            a: Feature::unpack(v & 0xffff),
            b: Feature::unpack(v >> 16),
        }
    }
}

/// How two convex polygons lie.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Proximity {
    /// Apart (or touching, at distance 0): the distance and the closest points.
    Separated { distance: f64, pa: [f64; 2], pb: [f64; 2] },
    /// The interiors overlap.
    Penetrating,
}

/// The result of one query, with the work it took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tracked {
    pub proximity: Proximity,
    /// Feature pairs visited.
    pub steps: u32,
    /// The walk did not settle and the brute-force search answered.
    pub fallback: bool,
}

use super::{cross, dot, next, prev, sub};

/// Relative tolerance of the Voronoi-region tests: a point on a region's boundary up to
/// rounding counts as inside, so that the walk does not cycle between two features that
/// are equally close (parallel edges).
const TOL: f64 = 1e-14;

/// Is `p` in the Voronoi region of vertex `i` of `poly`? If not, the edge to move to.
#[inline]
fn check_vertex(poly: &[[f64; 2]], i: usize, p: [f64; 2]) -> Option<Feature> {
    let n = poly.len();
    let v = poly[i];
    let d = sub(p, v);
    let dn = dot(d, d).sqrt();
    let e_prev = sub(v, poly[prev(i, n)]);
    if dot(d, e_prev) < -TOL * dn * dot(e_prev, e_prev).sqrt() {
        return Some(Feature::Edge(prev(i, n)));
    }
    let e_next = sub(poly[next(i, n)], v);
    if dot(d, e_next) > TOL * dn * dot(e_next, e_next).sqrt() {
        return Some(Feature::Edge(i));
    }
    None
}

enum EdgeCheck {
    Ok,
    Move(Feature),
    Inside,
}

/// Is `p` in the Voronoi region of edge `j` of `poly`?
#[inline]
fn check_edge(poly: &[[f64; 2]], j: usize, p: [f64; 2]) -> EdgeCheck {
    let n = poly.len();
    let s0 = poly[j];
    let e = sub(poly[next(j, n)], s0);
    let d = sub(p, s0);
    let t = dot(d, e);
    let ee = dot(e, e);
    let slack = TOL * dot(d, d).sqrt() * ee.sqrt();
    if t < -slack {
        return EdgeCheck::Move(Feature::Vertex(j));
    }
    if t > ee + slack {
        return EdgeCheck::Move(Feature::Vertex(next(j, n)));
    }
    // Counter-clockwise: the interior is to the left, cross(e, d) > 0.
    if cross(e, d) > 0.0 {
        // Behind this edge's line: inside, or closer to the edge p is furthest outside of.
        let (mut best, mut best_sd) = (j, f64::NEG_INFINITY);
        for k in 0..n {
            let ek = sub(poly[next(k, n)], poly[k]);
            let sd = -cross(ek, sub(p, poly[k])) / dot(ek, ek).sqrt();
            if sd > best_sd {
                best = k;
                best_sd = sd;
            }
        }
        return if best_sd < 0.0 {
            EdgeCheck::Inside
        } else {
            EdgeCheck::Move(Feature::Edge(best))
        };
    }
    EdgeCheck::Ok
}

/// Closest point to `p` on the segment from `s0` to `s1`.
#[inline]
fn project(p: [f64; 2], s0: [f64; 2], s1: [f64; 2]) -> [f64; 2] {
    let e = sub(s1, s0);
    let ee = dot(e, e);
    let t = if ee > 0.0 {
        (dot(sub(p, s0), e) / ee).clamp(0.0, 1.0)
    } else {
        0.0
    };
    [s0[0] + t * e[0], s0[1] + t * e[1]]
}

/// Do the segments p0-p1 and q0-q1 cross at a point interior to both?
fn segments_cross(p0: [f64; 2], p1: [f64; 2], q0: [f64; 2], q1: [f64; 2]) -> bool {
    let (r, s) = (sub(p1, p0), sub(q1, q0));
    let d1 = cross(r, sub(q0, p0));
    let d2 = cross(r, sub(q1, p0));
    let d3 = cross(s, sub(p0, q0));
    let d4 = cross(s, sub(p1, q0));
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

fn separated(pa: [f64; 2], pb: [f64; 2]) -> Proximity {
    let d = sub(pb, pa);
    Proximity::Separated {
        distance: dot(d, d).sqrt(),
        pa,
        pb,
    }
}

/// Track the closest features of `a` and `b` from the pair in `cache` (updated).
pub fn closest_features(a: &[[f64; 2]], b: &[[f64; 2]], cache: &mut FeaturePair) -> Tracked {
    let (na, nb) = (a.len(), b.len());
    let (mut fa, mut fb) = (cache.a, cache.b);
    // A cache from another pair of polygons (vertex counts changed) restarts.
    let in_range = |f: Feature, n: usize| match f {
        Feature::Vertex(k) | Feature::Edge(k) => k < n,
    };
    if !in_range(fa, na) || !in_range(fb, nb) {
        fa = Feature::Vertex(0);
        fb = Feature::Vertex(0);
    }
    let limit = 4 * (na + nb) as u32 + 8;
    let mut steps = 0;
    while steps < limit {
        steps += 1;
        let done = |fa, fb, cache: &mut FeaturePair, p: Proximity| {
            *cache = FeaturePair { a: fa, b: fb };
            // Mutual closest points certify separation only at a positive distance: at
            // distance 0 a vertex lies on the other's boundary, and the interiors may still
            // overlap elsewhere (collinear edges). The separating-axis test decides.
            let p = match p {
                Proximity::Separated { distance, .. } if distance == 0.0 && penetrating_sat(a, b) => {
                    Proximity::Penetrating
                }
                p => p,
            };
            Tracked {
                proximity: p,
                steps,
                fallback: false,
            }
        };
        match (fa, fb) {
            (Feature::Vertex(i), Feature::Vertex(j)) => {
                let (pa, pb) = (a[i], b[j]);
                if let Some(f) = check_vertex(a, i, pb) {
                    fa = f;
                } else if let Some(f) = check_vertex(b, j, pa) {
                    fb = f;
                } else {
                    return done(fa, fb, cache, separated(pa, pb));
                }
            }
            (Feature::Vertex(i), Feature::Edge(j)) => {
                let pa = a[i];
                match check_edge(b, j, pa) {
                    EdgeCheck::Inside => return done(fa, fb, cache, Proximity::Penetrating),
                    EdgeCheck::Move(f) => fb = f,
                    EdgeCheck::Ok => {
                        let pb = project(pa, b[j], b[next(j, nb)]);
                        match check_vertex(a, i, pb) {
                            Some(f) => fa = f,
                            None => return done(fa, fb, cache, separated(pa, pb)),
                        }
                    }
                }
            }
            (Feature::Edge(i), Feature::Vertex(j)) => {
                let pb = b[j];
                match check_edge(a, i, pb) {
                    EdgeCheck::Inside => return done(fa, fb, cache, Proximity::Penetrating),
                    EdgeCheck::Move(f) => fa = f,
                    EdgeCheck::Ok => {
                        let pa = project(pb, a[i], a[next(i, na)]);
                        match check_vertex(b, j, pa) {
                            Some(f) => fb = f,
                            None => return done(fa, fb, cache, separated(pa, pb)),
                        }
                    }
                }
            }
            (Feature::Edge(i), Feature::Edge(j)) => {
                let (a0, a1) = (a[i], a[next(i, na)]);
                let (b0, b1) = (b[j], b[next(j, nb)]);
                if segments_cross(a0, a1, b0, b1) {
                    return done(fa, fb, cache, Proximity::Penetrating);
                }
                // In 2D the closest points of two segments that do not cross include an
                // endpoint: go down to that vertex-edge pair.
                let cand = [
                    (a0, project(a0, b0, b1), Feature::Vertex(i), fb),
                    (a1, project(a1, b0, b1), Feature::Vertex(next(i, na)), fb),
                    (project(b0, a0, a1), b0, fa, Feature::Vertex(j)),
                    (project(b1, a0, a1), b1, fa, Feature::Vertex(next(j, nb))),
                ];
                let mut best = 0;
                let mut best_d = f64::INFINITY;
                for (k, c) in cand.iter().enumerate() {
                    let d = sub(c.1, c.0);
                    let dd = dot(d, d);
                    if dd < best_d {
                        best = k;
                        best_d = dd;
                    }
                }
                fa = cand[best].2;
                fb = cand[best].3;
            }
        }
    }
    // The walk did not settle: answer by brute force.
    let (proximity, pair) = brute_force(a, b);
    *cache = pair;
    Tracked {
        proximity,
        steps,
        fallback: true,
    }
}

/// Largest separation along the edge normals of `a` (outward) of the vertices of `b`:
/// positive when an edge of `a` separates the polygons.
fn max_separation(a: &[[f64; 2]], b: &[[f64; 2]]) -> f64 {
    let n = a.len();
    (0..n)
        .map(|k| {
            let e = sub(a[next(k, n)], a[k]);
            let len = dot(e, e).sqrt();
            b.iter()
                .map(|&p| -cross(e, sub(p, a[k])) / len)
                .fold(f64::INFINITY, f64::min)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Do the interiors overlap? (No edge of either polygon separates them.)
fn penetrating_sat(a: &[[f64; 2]], b: &[[f64; 2]]) -> bool {
    max_separation(a, b).max(max_separation(b, a)) < 0.0
}

/// Reference answer by exhaustive search: separating-axis test for penetration, then the
/// minimum over all vertex-edge pairs. O(na nb): the fallback of the walk and the check in
/// tests.
pub fn brute_force(a: &[[f64; 2]], b: &[[f64; 2]]) -> (Proximity, FeaturePair) {
    let (na, nb) = (a.len(), b.len());
    if penetrating_sat(a, b) {
        return (Proximity::Penetrating, FeaturePair::START);
    }
    let mut best = (f64::INFINITY, [0.0; 2], [0.0; 2], FeaturePair::START);
    for i in 0..na {
        for j in 0..nb {
            let pb = project(a[i], b[j], b[next(j, nb)]);
            let d = sub(pb, a[i]);
            if dot(d, d) < best.0 {
                let fb = if pb == b[j] {
                    Feature::Vertex(j)
                } else {
                    Feature::Edge(j)
                };
                best = (
                    dot(d, d),
                    a[i],
                    pb,
                    FeaturePair {
                        a: Feature::Vertex(i),
                        b: fb,
                    },
                );
            }
            let pa = project(b[j], a[i], a[next(i, na)]);
            let d = sub(b[j], pa);
            if dot(d, d) < best.0 {
                let fa = if pa == a[i] {
                    Feature::Vertex(i)
                } else {
                    Feature::Edge(i)
                };
                best = (
                    dot(d, d),
                    pa,
                    b[j],
                    FeaturePair {
                        a: fa,
                        b: Feature::Vertex(j),
                    },
                );
            }
        }
    }
    (separated(best.1, best.2), best.3)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(cx: f64, cy: f64, h: f64) -> Vec<[f64; 2]> {
        vec![[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]]
    }

    #[test]
    fn pack_round_trip() {
        for p in [
            FeaturePair::START,
            FeaturePair {
                a: Feature::Edge(63),
                b: Feature::Vertex(5),
            },
            FeaturePair {
                a: Feature::Vertex(17),
                b: Feature::Edge(0),
            },
        ] {
            assert_eq!(FeaturePair::unpack(p.pack()), p);
        }
    }

    #[test]
    fn squares_side_by_side_and_overlapping() {
        let a = square(0.0, 0.0, 1.0);
        let b = square(3.0, 0.5, 1.0);
        let mut c = FeaturePair::START;
        match closest_features(&a, &b, &mut c).proximity {
            Proximity::Separated { distance, .. } => assert!((distance - 1.0).abs() < 1e-15),
            p => panic!("{p:?}"),
        }
        let b = square(1.5, 0.5, 1.0);
        assert_eq!(closest_features(&a, &b, &mut c).proximity, Proximity::Penetrating);
        // Overlapping with collinear edges: a vertex of b lies on a's bottom edge line.
        let b = square(1.9, 0.0, 1.0);
        let mut c = FeaturePair::START;
        assert_eq!(closest_features(&a, &b, &mut c).proximity, Proximity::Penetrating);
        // Touching along a whole edge: distance 0, not penetrating.
        let b = square(2.0, 0.0, 1.0);
        let mut c = FeaturePair::START;
        match closest_features(&a, &b, &mut c).proximity {
            Proximity::Separated { distance, .. } => assert_eq!(distance, 0.0),
            p => panic!("{p:?}"),
        }
        // A plus sign: no vertex of either inside the other, the edges cross.
        let a = vec![[-3.0, -0.5], [3.0, -0.5], [3.0, 0.5], [-3.0, 0.5]];
        let b = vec![[-0.5, -3.0], [0.5, -3.0], [0.5, 3.0], [-0.5, 3.0]];
        for start in [
            FeaturePair::START,
            FeaturePair {
                a: Feature::Edge(1),
                b: Feature::Edge(3),
            },
        ] {
            let mut c = start;
            assert_eq!(closest_features(&a, &b, &mut c).proximity, Proximity::Penetrating);
        }
    }
}
