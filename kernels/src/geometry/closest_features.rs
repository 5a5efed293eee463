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
//! Every test is an exact sign (Shewchuk's filtered predicates, [`super::predicates`]), so
//! degenerate pairs (coincident or parallel edges, corners on corners) settle as exact
//! arithmetic would: ties stay in the region they lie on the boundary of, and a vertex
//! exactly on the other's boundary is decided touching or penetrating from the corners
//! there. The walk stays bounded all the same; past the bound a brute-force search with the
//! same predicates answers (counted in the narrow-phase statistics).

/// A vertex or an edge of a polygon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    /// Vertex k.
    Vertex(usize),
    /// Edge k, from vertex k to vertex k+1.
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
    /// Feature of the first polygon.
    pub a: Feature,
    /// Feature of the second polygon.
    pub b: Feature,
}

impl FeaturePair {
    /// Where a new pair starts: the first vertices.
    pub const START: FeaturePair = FeaturePair {
        a: Feature::Vertex(0),
        b: Feature::Vertex(0),
    };

    /// The pair packed: `a` in the low 16 bits, `b` in the high ones (bit 0 of each: edge).
    pub fn pack(self) -> u32 {
        self.a.pack() | (self.b.pack() << 16)
    }

    /// The pair from its packed form ([`FeaturePair::pack`]).
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
    Separated {
        /// Distance between the polygons (m).
        distance: f64,
        /// Closest point of the first polygon.
        pa: [f64; 2],
        /// Closest point of the second polygon.
        pb: [f64; 2],
    },
    /// The interiors overlap.
    Penetrating,
}

/// The result of one query, with the work it took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tracked {
    /// How the polygons lie.
    pub proximity: Proximity,
    /// Feature pairs visited.
    pub steps: u32,
    /// The walk did not settle and the brute-force search answered.
    pub fallback: bool,
}

use super::predicates::{cross_of_differences, dot_of_differences, orient};
use super::{dot, next, prev, sub};

/// Is `p` (a corner of the other polygon) in the Voronoi region of vertex `i` of `poly`
/// (boundary included)? If not, the edge to move to. Exact signs.
#[inline]
fn check_vertex(poly: &[[f64; 2]], i: usize, p: [f64; 2]) -> Option<Feature> {
    let n = poly.len();
    let (v, pv, nx) = (poly[i], poly[prev(i, n)], poly[next(i, n)]);
    // Behind the end of the edge coming in: dot(p - v, v - pv) < 0.
    if dot_of_differences(v, p, pv, v) < 0.0 {
        return Some(Feature::Edge(prev(i, n)));
    }
    // Beyond the start of the edge going out: dot(p - v, nx - v) > 0.
    if dot_of_differences(v, p, v, nx) > 0.0 {
        return Some(Feature::Edge(i));
    }
    None
}

/// How a step of the walk ends when it settles.
enum Verdict {
    Penetrating,
    /// Apart, or touching (distance 0 with the interiors apart): the distance, a point of
    /// the first polygon of the step and one of the second.
    Separated(f64, [f64; 2], [f64; 2]),
}

/// One step from a pair of features: move one side, or settle.
enum Step {
    /// Move the side of the first polygon of the step (the vertex's, in a vertex-edge step).
    First(Feature),
    /// Move the side of the second polygon (the edge's).
    Second(Feature),
    Done(Verdict),
}

fn touching(p: [f64; 2]) -> Verdict {
    Verdict::Separated(0.0, p, p)
}

/// Two convex corners with a common apex `p`, one spanned by the rays to `u1`, `u2`, the
/// other by the rays to `w1`, `w2`: do their interiors overlap? They do not exactly when a
/// line through the apex has one on each (closed) side, and then the line along one of
/// the four rays does (rotate any separating line until it meets a ray).
fn corners_overlap(p: [f64; 2], u1: [f64; 2], u2: [f64; 2], w1: [f64; 2], w2: [f64; 2]) -> bool {
    let side = |r: [f64; 2], x: [f64; 2]| cross_of_differences(p, r, p, x);
    ![u1, u2, w1, w2].into_iter().any(|r| {
        let (a1, a2, b1, b2) = (side(r, u1), side(r, u2), side(r, w1), side(r, w2));
        (a1 >= 0.0 && a2 >= 0.0 && b1 <= 0.0 && b2 <= 0.0) || (a1 <= 0.0 && a2 <= 0.0 && b1 >= 0.0 && b2 >= 0.0)
    })
}

/// Vertex `i` of `pp` lies exactly on the boundary of `qq`, at its vertex `k` (`at_vertex`)
/// or inside its edge `k`: the polygons touch there, and their interiors overlap exactly
/// when they overlap next to that point (convexity: otherwise the line through it along
/// the boundary separates them).
fn touching_at(pp: &[[f64; 2]], i: usize, qq: &[[f64; 2]], k: usize, at_vertex: bool) -> Verdict {
    let (n, m) = (pp.len(), qq.len());
    let (p, pn, pv) = (pp[i], pp[next(i, n)], pp[prev(i, n)]);
    let overlap = if at_vertex {
        corners_overlap(p, pn, pv, qq[next(k, m)], qq[prev(k, m)])
    } else {
        // Inside the edge, q is the half-plane left of it: does an edge at p point there?
        let (s0, s1) = (qq[k], qq[next(k, m)]);
        cross_of_differences(s0, s1, p, pn) > 0.0 || cross_of_differences(s0, s1, p, pv) > 0.0
    };
    if overlap {
        Verdict::Penetrating
    } else {
        touching(p)
    }
}

/// Vertex `i` of `pp` against edge `j` of `qq`. (Inlined into the walk: called, its
/// step came back through memory.)
#[inline(always)]
fn vertex_edge(pp: &[[f64; 2]], i: usize, qq: &[[f64; 2]], j: usize) -> Step {
    let (n, m) = (pp.len(), qq.len());
    let p = pp[i];
    let (s0, s1) = (qq[j], qq[next(j, m)]);
    // Past either end of the edge: on to that end.
    let t0 = dot_of_differences(s0, p, s0, s1);
    if t0 < 0.0 {
        return Step::Second(Feature::Vertex(j));
    }
    let t1 = dot_of_differences(s1, p, s0, s1);
    if t1 > 0.0 {
        return Step::Second(Feature::Vertex(next(j, m)));
    }
    let o = orient(s0, s1, p);
    if o > 0.0 {
        return behind_edge(pp, i, qq);
    }
    if o == 0.0 {
        // On the edge (at an end of it where t0 or t1 is 0).
        return Step::Done(match (t0 == 0.0, t1 == 0.0) {
            (true, _) => touching_at(pp, i, qq, j, true),
            (_, true) => touching_at(pp, i, qq, next(j, m), true),
            _ => touching_at(pp, i, qq, j, false),
        });
    }
    // Outside, over the edge: the foot of p is qq's nearest point to p. Is p pp's nearest
    // point to the foot? The foot lies from p along the edge's inward normal, so that is
    // whether neither edge at p turns towards the edge's line (signs of cross products).
    let (pv, pn) = (pp[prev(i, n)], pp[next(i, n)]);
    if cross_of_differences(s0, s1, pv, p) < 0.0 {
        return Step::First(Feature::Edge(prev(i, n)));
    }
    if cross_of_differences(s0, s1, p, pn) > 0.0 {
        return Step::First(Feature::Edge(i));
    }
    // The distance from the orientation (exact sign, absolute error within the predicate's
    // bound): relative to the edge, not through the rounded coordinates of the foot.
    let e = sub(s1, s0);
    let ee = dot(e, e);
    let k = o / ee;
    let foot = [p[0] + k * e[1], p[1] - k * e[0]];
    Step::Done(Verdict::Separated(-o / ee.sqrt(), p, foot))
}

/// Vertex `i` of `pp` is behind the line of an edge of `qq`: strictly inside `qq`
/// (penetrating), on its boundary (touching there), or outside another edge, the one it is
/// furthest outside (moved to).
#[cold]
fn behind_edge(pp: &[[f64; 2]], i: usize, qq: &[[f64; 2]]) -> Step {
    let m = qq.len();
    let p = pp[i];
    let (mut best, mut best_sd) = (usize::MAX, 0.0);
    let mut zeros = [usize::MAX; 2];
    for k in 0..m {
        let (s0, s1) = (qq[k], qq[next(k, m)]);
        let o = orient(s0, s1, p);
        if o < 0.0 {
            let e = sub(s1, s0);
            let sd = o / dot(e, e).sqrt();
            if sd < best_sd || best == usize::MAX {
                (best, best_sd) = (k, sd);
            }
        } else if o == 0.0 {
            zeros[(zeros[0] != usize::MAX) as usize] = k;
        }
    }
    if best != usize::MAX {
        return Step::Second(Feature::Edge(best));
    }
    Step::Done(match zeros {
        [usize::MAX, _] => Verdict::Penetrating,
        // On two edge lines: at the corner between them.
        [k, l] if l != usize::MAX => touching_at(pp, i, qq, if next(k, m) == l { l } else { k }, true),
        [k, _] => touching_at(pp, i, qq, k, false),
    })
}

/// Distance from `p` to the segment `s0`-`s1`, computed relative to the segment.
#[inline]
fn point_segment(p: [f64; 2], s0: [f64; 2], s1: [f64; 2]) -> f64 {
    if dot_of_differences(s0, p, s0, s1) <= 0.0 {
        let d = sub(p, s0);
        dot(d, d).sqrt()
    } else if dot_of_differences(s1, p, s0, s1) >= 0.0 {
        let d = sub(p, s1);
        dot(d, d).sqrt()
    } else {
        let e = sub(s1, s0);
        orient(s0, s1, p).abs() / dot(e, e).sqrt()
    }
}

/// The square of [`point_segment`] (the walk compares them; no square root), the
/// distance to the line as o^2 / |e|^2.
#[inline]
fn point_segment_sq(p: [f64; 2], s0: [f64; 2], s1: [f64; 2]) -> f64 {
    if dot_of_differences(s0, p, s0, s1) <= 0.0 {
        let d = sub(p, s0);
        dot(d, d)
    } else if dot_of_differences(s1, p, s0, s1) >= 0.0 {
        let d = sub(p, s1);
        dot(d, d)
    } else {
        let e = sub(s1, s0);
        let o = orient(s0, s1, p);
        o * o / dot(e, e)
    }
}

/// Do the segments p0-p1 and q0-q1 cross at a point interior to both? (Exact.)
fn segments_cross(p0: [f64; 2], p1: [f64; 2], q0: [f64; 2], q1: [f64; 2]) -> bool {
    let opposite = |u: f64, v: f64| (u < 0.0 && v > 0.0) || (u > 0.0 && v < 0.0);
    opposite(orient(p0, p1, q0), orient(p0, p1, q1)) && opposite(orient(q0, q1, p0), orient(q0, q1, p1))
}

/// Steps of a walk before it keeps the pairs it visited (to tell a cycle): a cycle is
/// caught from there on, within four steps of its period (limit - RECORD_AFTER >= 24).
const RECORD_AFTER: u32 = 8;

/// Track the closest features of `a` and `b` from the pair in `cache` (updated).
///
/// Every decision of the walk is an exact sign ([`super::predicates`]), with the
/// boundaries of the Voronoi regions counted in: in exact arithmetic the walk cannot cycle
/// (each move brings the features strictly closer, or keeps the distance and goes down from
/// an edge to a vertex), and a settled pair is a proof: a vertex strictly inside the other
/// polygon or two edges crossing properly (penetrating), or two mutually nearest points at
/// a positive distance (apart), or a vertex on the other's boundary with the interiors
/// apart next to it (touching, distance 0). The distance comes from the settled features
/// by formulas relative to them (a vertex's orientation to an edge over the edge's length),
/// not from rounded feet far from the origin.
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
    // The pairs of the last four steps: coming back to a pair with a vertex means that no
    // move brings the features closer (overlapping polygons whose features nearby neither
    // cross nor hold a corner inside the other: the distance argument of the walk is void
    // there). An edge-edge pair may come back once the walk has learnt which of its
    // vertex-edge pairs is not the nearest (below). Kept only from step RECORD_AFTER on:
    // the step from a pair with a vertex does not depend on the pairs before it, so a walk
    // that came back to one goes round for ever, and is caught as well later (the limit
    // leaves room for that); a warm walk of a step or two keeps no memory.
    let pack = |fa: Feature, fb: Feature| FeaturePair { a: fa, b: fb }.pack();
    let mut seen = [u32::MAX; 4];
    // The pair of the step before (the pair itself at the first step).
    // (Kept unpacked: packing it at every step showed in the warm walk's count.)
    let mut before = FeaturePair { a: fa, b: fb };
    while steps < limit {
        steps += 1;
        if steps > RECORD_AFTER {
            let now = pack(fa, fb);
            // Bit 0 of each side: an edge.
            let edges = now & 0x1_0001 == 0x1_0001;
            if !edges && seen.contains(&now) {
                break;
            }
            seen = [seen[1], seen[2], seen[3], now];
        }
        let came_from = before;
        before = FeaturePair { a: fa, b: fb };
        let verdict = match (fa, fb) {
            (Feature::Vertex(i), Feature::Vertex(j)) => {
                let (pa, pb) = (a[i], b[j]);
                if pa == pb {
                    Verdict::Penetrating.or_touching(
                        corners_overlap(pa, a[next(i, na)], a[prev(i, na)], b[next(j, nb)], b[prev(j, nb)]),
                        pa,
                    )
                } else if let Some(f) = check_vertex(a, i, pb) {
                    fa = f;
                    continue;
                } else if let Some(f) = check_vertex(b, j, pa) {
                    fb = f;
                    continue;
                } else {
                    let d = sub(pb, pa);
                    Verdict::Separated(dot(d, d).sqrt(), pa, pb)
                }
            }
            (Feature::Vertex(i), Feature::Edge(j)) => match vertex_edge(a, i, b, j) {
                Step::First(f) => {
                    fa = f;
                    continue;
                }
                Step::Second(f) => {
                    fb = f;
                    continue;
                }
                Step::Done(v) => v,
            },
            (Feature::Edge(i), Feature::Vertex(j)) => match vertex_edge(b, j, a, i) {
                Step::First(f) => {
                    fb = f;
                    continue;
                }
                Step::Second(f) => {
                    fa = f;
                    continue;
                }
                Step::Done(Verdict::Separated(d, pb, pa)) => Verdict::Separated(d, pa, pb),
                Step::Done(v) => v,
            },
            (Feature::Edge(i), Feature::Edge(j)) => {
                let (a0, a1) = (a[i], a[next(i, na)]);
                let (b0, b1) = (b[j], b[next(j, nb)]);
                if segments_cross(a0, a1, b0, b1) {
                    Verdict::Penetrating
                } else {
                    // In 2D the closest points of two segments that do not cross include an
                    // endpoint: go down to the nearest vertex-edge pair (first on a tie).
                    let cand = [
                        (point_segment_sq(a0, b0, b1), Feature::Vertex(i), fb),
                        (point_segment_sq(a1, b0, b1), Feature::Vertex(next(i, na)), fb),
                        (point_segment_sq(b0, a0, a1), fa, Feature::Vertex(j)),
                        (point_segment_sq(b1, a0, a1), fa, Feature::Vertex(next(j, nb))),
                    ];
                    // The vertex-edge pair the walk came from is never the nearest: it left
                    // that pair because points of this edge are nearer (exact signs), while
                    // the candidates' distances are only f64 (near ties on parallel edges;
                    // squared, which orders them as the distances do up to rounding).
                    let mut best = usize::MAX;
                    for (k, c) in cand.iter().enumerate() {
                        if (FeaturePair { a: c.1, b: c.2 }) != came_from && (best == usize::MAX || c.0 < cand[best].0) {
                            best = k;
                        }
                    }
                    (fa, fb) = (cand[best].1, cand[best].2);
                    continue;
                }
            }
        };
        *cache = FeaturePair { a: fa, b: fb };
        let proximity = match verdict {
            Verdict::Penetrating => Proximity::Penetrating,
            Verdict::Separated(distance, pa, pb) => Proximity::Separated { distance, pa, pb },
        };
        return Tracked {
            proximity,
            steps,
            fallback: false,
        };
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

impl Verdict {
    /// Penetrating if `overlap`, else touching at `p`.
    fn or_touching(self, overlap: bool, p: [f64; 2]) -> Verdict {
        if overlap {
            self
        } else {
            touching(p)
        }
    }
}

/// Do the interiors overlap? (No edge line of either polygon has the other on or outside
/// it; exact signs.)
fn interiors_overlap(a: &[[f64; 2]], b: &[[f64; 2]]) -> bool {
    let separates = |p: &[[f64; 2]], q: &[[f64; 2]]| {
        let n = p.len();
        (0..n).any(|k| q.iter().all(|&r| orient(p[k], p[next(k, n)], r) <= 0.0))
    };
    !separates(a, b) && !separates(b, a)
}

/// Reference answer by exhaustive search: separating-axis test for penetration (exact
/// signs), then the minimum over all vertex-edge pairs. O(na nb): the fallback of the walk
/// and the check in tests.
pub fn brute_force(a: &[[f64; 2]], b: &[[f64; 2]]) -> (Proximity, FeaturePair) {
    let (na, nb) = (a.len(), b.len());
    if interiors_overlap(a, b) {
        return (Proximity::Penetrating, FeaturePair::START);
    }
    let mut best = (f64::INFINITY, [0.0; 2], [0.0; 2], FeaturePair::START);
    // Nearest point of segment s0-s1 to p, and whether it is s0.
    let foot = |p: [f64; 2], s0: [f64; 2], s1: [f64; 2]| -> ([f64; 2], bool) {
        if dot_of_differences(s0, p, s0, s1) <= 0.0 {
            (s0, true)
        } else if dot_of_differences(s1, p, s0, s1) >= 0.0 {
            (s1, false)
        } else {
            let e = sub(s1, s0);
            let k = orient(s0, s1, p) / dot(e, e);
            ([p[0] + k * e[1], p[1] - k * e[0]], false)
        }
    };
    for i in 0..na {
        for j in 0..nb {
            let d = point_segment(a[i], b[j], b[next(j, nb)]);
            if d < best.0 {
                let (pb, at_start) = foot(a[i], b[j], b[next(j, nb)]);
                let fb = if at_start { Feature::Vertex(j) } else { Feature::Edge(j) };
                best = (
                    d,
                    a[i],
                    pb,
                    FeaturePair {
                        a: Feature::Vertex(i),
                        b: fb,
                    },
                );
            }
            let d = point_segment(b[j], a[i], a[next(i, na)]);
            if d < best.0 {
                let (pa, at_start) = foot(b[j], a[i], a[next(i, na)]);
                let fa = if at_start { Feature::Vertex(i) } else { Feature::Edge(i) };
                best = (
                    d,
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
    (
        Proximity::Separated {
            distance: best.0,
            pa: best.1,
            pb: best.2,
        },
        best.3,
    )
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
