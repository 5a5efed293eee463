//! Overlap of two convex polygons from their tracked boundary crossings: O(1) per pair and
//! step while a contact lasts, as the closest-feature walk is for pairs that are apart.
//!
//! In a contact between grains the boundaries of the two polygons cross at two points: at
//! P the boundary of a enters b, at Q it leaves it. The overlap polygon is then the arc of
//! a from P to Q (the corners of a inside b) followed by the arc of b from Q back to P (the
//! corners of b inside a), and PQ is the contact line (Schinner 1999; Chen & Matuttis
//! 2013 use the same two points). The edges that carry P and Q change rarely from one step
//! to the next, so they are cached in the contact table like the closest features, and a
//! step checks that they still cross and that the corners between them are inside the
//! other polygon. That check is a proof (see [`overlap_from_crossings`]), and the f64 area
//! is vouched for by the clipping's forward error bound (1e-10 of the area); where either
//! fails (the crossing moved to another edge, a deep overlap with four
//! or more crossings) the caller clips ([`super::overlap::overlap_about`]), which finds
//! the new crossing edges.
use super::expansion::EPS;
use super::overlap::{overlap_about, OverlapScratch, CORNER_ERROR};
pub use super::overlap_result::Crossings;
use super::overlap_result::{assemble_line, Overlap, Tier};
use super::predicates::orient_accurate;
use super::{next, sub};

/// Twice the signed area of (p, q, r): positive when r is left of the line p -> q.
#[inline(always)]
fn orient(p: [f64; 2], q: [f64; 2], r: [f64; 2]) -> f64 {
    (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
}

/// Whether `p` lies in convex polygon `q` (boundary included): left of or on every edge.
/// No early exit: the loop is short and its branches would be unpredictable.
#[inline(always)]
fn inside(q: &[[f64; 2]], p: [f64; 2]) -> bool {
    let mut prev = q[q.len() - 1];
    let mut min = f64::INFINITY;
    for &v in q {
        // (A compare, not f64::min: its NaN handling cost four instructions an edge.)
        let o = orient(prev, v, p);
        min = if o < min { o } else { min };
        prev = v;
    }
    min >= 0.0
}

/// Whether `p` lies in the triangle (u, v, w), boundary included (false if it is flat).
#[inline(always)]
fn in_triangle(u: [f64; 2], v: [f64; 2], w: [f64; 2], p: [f64; 2]) -> bool {
    let s = orient(u, v, w);
    let (d1, d2, d3) = (orient(u, v, p), orient(v, w, p), orient(w, u, p));
    (s > 0.0 && d1 >= 0.0 && d2 >= 0.0 && d3 >= 0.0) || (s < 0.0 && d1 <= 0.0 && d2 <= 0.0 && d3 <= 0.0)
}

/// The overlap of convex polygons `a` and `b` (counter-clockwise) if their boundaries
/// cross exactly at the edges `c`, or `None` if that cannot be shown from them (then the
/// caller clips). `ca`, `cb` are interior points that orient the normal as
/// [`super::overlap::overlap_about`] does, so both give the same contact.
///
/// Why the checks prove the result: (1) a's edge `ia` and b's edge `jb` cross properly
/// (each straddles the other's line), a entering b there, and a's edge `ka` and b's edge
/// `lb` cross with a leaving b; (2) every corner of a from `ia + 1` to `ka` lies in b and
/// every corner of b from `lb + 1` to `jb` lies in a. By (2) and the convexity of b, the
/// arc of a's boundary from P to Q lies in b, so it lies on the boundary of a n b, which
/// it runs along counter-clockwise (a's interior, hence a n b's, is on its left); likewise
/// the arc of b from Q to P. Two counter-clockwise arcs of the convex curve bounding a n b,
/// one from P to Q and one from Q to P, make up all of it: the polygon they close is
/// a n b.
#[inline]
pub fn overlap_from_crossings(
    a: &[[f64; 2]],
    b: &[[f64; 2]],
    ca: [f64; 2],
    cb: [f64; 2],
    c: Crossings,
) -> Option<Overlap> {
    let (na, nb) = (a.len(), b.len());
    let (i, j, k, l) = (c.ia as usize, c.jb as usize, c.ka as usize, c.lb as usize);
    if i >= na || k >= na || j >= nb || l >= nb {
        return None;
    }
    let (i1, j1, k1, l1) = (next(i, na), next(j, nb), next(k, na), next(l, nb));
    // Coordinates relative to a[i1], next to the contact (exact for far-away polygons by
    // Sterbenz's lemma, else rounded relative to the polygons' size): the errors then scale
    // with the polygons, not with their distance from the origin. Every point is moved
    // once, before the orientations, and used so from there on.
    let o = a[i1];
    let loc = |v: [f64; 2]| [v[0] - o[0], v[1] - o[1]];
    let (ai, ai1, ak, ak1) = (loc(a[i]), [0.0, 0.0], loc(a[k]), loc(a[k1]));
    let (bj, bj1, bl, bl1) = (loc(b[j]), loc(b[j1]), loc(b[l]), loc(b[l1]));
    // (1) Entry: a[i] outside b's edge j, a[i1] inside; b[j] inside a's edge i, b[j1] outside.
    let (s0, s1) = (orient(bj, bj1, ai), orient(bj, bj1, ai1));
    let (r0, r1) = (orient(ai, ai1, bj), orient(ai, ai1, bj1));
    // Exit: a[k] inside b's edge l, a[k1] outside; b[l] outside a's edge k, b[l1] inside.
    let (u0, u1) = (orient(bl, bl1, ak), orient(bl, bl1, ak1));
    let (v0, v1) = (orient(ak, ak1, bl), orient(ak, ak1, bl1));
    // One combined test: the branch is taken the same way for almost every pair.
    let proper = (s0 < 0.0) & (s1 > 0.0) & (r0 > 0.0) & (r1 < 0.0) & (u0 > 0.0) & (u1 < 0.0) & (v0 < 0.0) & (v1 > 0.0);
    if !proper {
        return None;
    }
    let tp = s0 / (s0 - s1);
    let tq = u0 / (u0 - u1);
    let (rp, rq) = (r0 / (r0 - r1), v0 / (v0 - v1));
    // Both on one edge: P must come before Q along it, else the arc from P to Q would be
    // the rest of the polygon. (Implied by the proper crossings in exact arithmetic, as a
    // line enters a convex polygon before it leaves; kept against rounding.)
    if (i == k && tp >= tq) || (j == l && rq >= rp) {
        return None;
    }
    let lerp = |u: [f64; 2], v: [f64; 2], t: f64| [u[0] + t * (v[0] - u[0]), u[1] + t * (v[1] - u[1])];
    let norm = |v: [f64; 2]| v[0].abs() + v[1].abs();
    // P and Q on a's edges (in a), and again on b's (in b). Where edges meet at a grazing
    // angle the two disagree (the crossing is ill-conditioned) and the contact line would
    // be noise: then the clipping decides. P is taken back from a[i1] (1 - tp rounded to
    // eps: within the bound below; the accurate retry takes it without cancellation).
    let back = 1.0 - tp;
    let p = [back * ai[0], back * ai[1]];
    let q = lerp(ak, ak1, tq);
    let (pb, qb) = (lerp(bj, bj1, rp), lerp(bl, bl1, rq));
    let scale = norm(ai) + norm(sub(bj1, bj));
    let off = (p[0] - pb[0]).abs() + (p[1] - pb[1]).abs() + (q[0] - qb[0]).abs() + (q[1] - qb[1]).abs();
    if off > 1e-9 * scale || off.is_nan() {
        return None;
    }
    // (2), and the overlap polygon P, a[i1..=k], Q, b[l1..=j] fanned from P: area and
    // centroid relative to P for accuracy, and the perimeter for the error bound.
    let (mut a2, mut cx, mut cy) = (0.0, 0.0, 0.0);
    // (The perimeter in x and in y apart: one vector operation per corner.)
    let mut per = [0.0, 0.0];
    let mut prev = [0.0, 0.0];
    let mut sides = 0;
    let mut add = |v: [f64; 2]| {
        sides += 1;
        let v = sub(v, p);
        let c = prev[0] * v[1] - prev[1] * v[0];
        a2 += c;
        cx += c * (prev[0] + v[0]);
        cy += c * (prev[1] + v[1]);
        per = [per[0] + (v[0] - prev[0]).abs(), per[1] + (v[1] - prev[1]).abs()];
        prev = v;
    };
    // A corner is in the other polygon if it is in the triangle of P, Q and a corner of
    // that polygon across from them, P and Q as computed on that polygon's edges (three
    // points of it, so the triangle lies in it): three tests for the corners of a shallow
    // contact, O(1) whatever the number of edges; the test against every edge only where
    // that fails (deep overlaps). The corner across is the middle one of the other
    // polygon's arc on the corners' side of PQ (b's from P to Q for a's corners, a's from Q
    // to P for b's): roughly the largest triangle on that side. (The corner half-way round
    // from the edge at P, taken before, sent more corners of deep contacts to the test
    // against every edge: 0.6 % more instructions in a dense polygon bed.)
    // (Ring indices without `%`: an integer division each showed in profiles.)
    // (Each far corner taken only where there are corners to test against it: a shallow
    // contact has corners of one polygon only.)
    let mid = |from: usize, to: usize, n: usize| {
        let len = if to >= from { to - from } else { to + n - from };
        let m = from + len / 2;
        if m >= n {
            m - n
        } else {
            m
        }
    };
    let mut ok = true;
    if i != k {
        let b_far = loc(b[mid(j1, l, nb)]);
        let mut m = i1;
        loop {
            let am = loc(a[m]);
            ok &= in_triangle(pb, qb, b_far, am) || inside(b, a[m]);
            add(am);
            if m == k {
                break;
            }
            m = next(m, na);
        }
    }
    add(q);
    if j != l {
        let a_far = loc(a[mid(k1, i, na)]);
        let mut m = l1;
        loop {
            let bm = loc(b[m]);
            ok &= in_triangle(p, q, a_far, bm) || inside(a, b[m]);
            add(bm);
            if m == j {
                break;
            }
            m = next(m, nb);
        }
    }
    let perimeter = (per[0] + prev[0].abs()) + (per[1] + prev[1].abs());
    // A bound on the coordinates (L1, relative to a[i1]) of every point used: P lies on
    // a's edge i, within |ai| of a[i1]; b[j], b[j1] within their edge of P; the overlap's
    // corners and Q within half the perimeter of P; a[k], a[k1] and b[l], b[l1] within
    // their edge of Q.
    // (Compares, not f64::max: its NaN handling cost instructions. NaN coordinates make
    // the area NaN, which fails the test below.)
    let larger = |x: f64, y: f64| if x > y { x } else { y };
    let r = norm(ai)
        + larger(
            norm(sub(bj1, bj)),
            0.5 * perimeter + larger(norm(sub(ak1, ak)), norm(sub(bl1, bl))),
        );
    // The forward error bound of the clipping ([`super::overlap::overlap_about`]): every
    // corner within CORNER_ERROR eps r of where it should be, which moves twice the area by
    // at most that times |V(k+1) - V(k-1)|, its neighbours' distance. Summed over the
    // corners that is the perimeter for a triangle (the overlap of a corner poking into an
    // edge, most shallow contacts), at most twice it otherwise. Past 1e-10 of the area (a
    // contact thinner than about 1e-4 of the size) the crossings are computed again from
    // accurately evaluated orientations, relative to a corner at the contact
    // ([`overlap_from_crossings_accurate`]); where that cannot vouch either (slivers along
    // nearly parallel edges) the caller clips, and the clipping goes exact.
    // The rounding of the fan's sum (2 eps per corner, at most 2 MAX_VERTICES + 2 of
    // them, times |a2|) is folded into the constant: r lever may be at most FAN_SLACK a2,
    // the lever half that sum (two sides added, P's to the corner and the corner's to Q:
    // a triangle). A triangle's fan is one cross product, rounded by a few eps |C - P|
    // |Q - P| <= a few eps r perimeter / 2 even where it cancels (a thin triangle): more
    // than that term, but within the allowance CORNER_ERROR makes for a cut of a cut,
    // which P and Q (single cuts) leave unused.
    if !(ok && a2 > 0.0) {
        return None;
    }
    let lever = if sides == 2 { 0.5 * perimeter } else { perimeter };
    let vouched = r * lever <= FAN_SLACK * a2;
    if !vouched {
        return overlap_from_crossings_accurate(a, b, ca, cb, c);
    }
    let centroid = [o[0] + p[0] + cx / (3.0 * a2), o[1] + p[1] + cy / (3.0 * a2)];
    // The normal as the clipping gives it: perpendicular to PQ, oriented from a's interior
    // point towards b's.
    assemble_line(a2, centroid, o, [p, q], c, ca, cb, Tier::Fast)
}

/// The overlap polygon of [`overlap_from_crossings`] (whose checks passed) where its f64
/// crossings cannot vouch for 1e-10 of the area: the orientations that place P and Q
/// evaluated to 2^-51 relative ([`super::predicates`]), P and Q as offsets from the
/// nearer end of their edge, on b's edges with b's corner next to P as the origin when
/// corners of b are in the overlap (a corner of b poking into a), else on a's with a's
/// corner after P. Each corner's error bounded as in the clipping's slow path
/// ([`super::accurate_overlap::overlap_accurate`]); None past 1e-10 of the area.
#[cold]
#[inline(never)]
fn overlap_from_crossings_accurate(
    a: &[[f64; 2]],
    b: &[[f64; 2]],
    ca: [f64; 2],
    cb: [f64; 2],
    c: Crossings,
) -> Option<Overlap> {
    let (na, nb) = (a.len(), b.len());
    let (i, j, k, l) = (c.ia as usize, c.jb as usize, c.ka as usize, c.lb as usize);
    let (i1, j1, k1, l1) = (next(i, na), next(j, nb), next(k, na), next(l, nb));
    let norm = |v: [f64; 2]| v[0].abs() + v[1].abs();
    // The point on the segment u0-u1 where orientations d0 (at u0) and d1 (at u1) of
    // opposite signs meet 0, relative to `o`, from the nearer end; and its error bound.
    let cut = |u0: [f64; 2], u1: [f64; 2], d0: f64, d1: f64, o: [f64; 2]| {
        let t = d0 / (d0 - d1);
        let (base, f) = if t <= 0.5 { (u0, t) } else { (u1, d1 / (d0 - d1)) };
        let e = [u1[0] - u0[0], u1[1] - u0[1]];
        let off = [f * e[0], f * e[1]];
        let d = [base[0] - o[0], base[1] - o[1]];
        let p = [d[0] + off[0], d[1] + off[1]];
        (p, EPS * (16.0 * norm(off) + norm(d) + 2.0 * norm(p)))
    };
    let inside_b = j != l;
    let (o, (p, ep), (q, eq)) = if inside_b {
        let (r0, r1) = (orient_accurate(a[i], a[i1], b[j]), orient_accurate(a[i], a[i1], b[j1]));
        let (v0, v1) = (orient_accurate(a[k], a[k1], b[l]), orient_accurate(a[k], a[k1], b[l1]));
        let o = b[j];
        (o, cut(b[j], b[j1], r0, r1, o), cut(b[l], b[l1], v0, v1, o))
    } else {
        let (s0, s1) = (orient_accurate(b[j], b[j1], a[i]), orient_accurate(b[j], b[j1], a[i1]));
        let (u0, u1) = (orient_accurate(b[l], b[l1], a[k]), orient_accurate(b[l], b[l1], a[k1]));
        let o = a[i1];
        (o, cut(a[i], a[i1], s0, s1, o), cut(a[k], a[k1], u0, u1, o))
    };
    // P, a[i1..=k], Q, b[l1..=j] with their errors, made as the sum walks round them (a
    // buffer for them, zeroed at every call, had cost more than the rest of this tier).
    let count_a = if i != k {
        if k > i {
            k - i
        } else {
            k + na - i
        }
    } else {
        0
    };
    let count_b = if inside_b {
        if j > l {
            j - l
        } else {
            j + nb - l
        }
    } else {
        0
    };
    let m = count_a + count_b + 2;
    let wrap = |x: usize, n: usize| if x >= n { x - n } else { x };
    let point = |n: usize| -> ([f64; 2], f64) {
        let corner = |v: [f64; 2]| {
            let d = [v[0] - o[0], v[1] - o[1]];
            (d, EPS * norm(d))
        };
        if n == 0 {
            (p, ep)
        } else if n <= count_a {
            corner(a[wrap(i + n, na)])
        } else if n == count_a + 1 {
            (q, eq)
        } else {
            corner(b[wrap(l + n - count_a - 1, nb)])
        }
    };
    let (mut a2, mut cx, mut cy, mut abs_sum, mut bound) = (0.0, 0.0, 0.0, 0.0, 0.0);
    let first = point(0);
    let (mut pv, mut cur) = (point(m - 1).0, first);
    for n in 0..m {
        let next = if n + 1 < m { point(n + 1) } else { first };
        let ((pn_, en), pn) = (cur, next.0);
        bound += en * (norm([pn_[0] - pv[0], pn_[1] - pv[1]]) + norm([pn[0] - pn_[0], pn[1] - pn_[1]]));
        if n >= 1 && n + 1 < m {
            let (u, v) = ([pn_[0] - p[0], pn_[1] - p[1]], [pn[0] - p[0], pn[1] - p[1]]);
            let t = u[0] * v[1] - u[1] * v[0];
            a2 += t;
            abs_sum += t.abs();
            cx += t * (u[0] + v[0]);
            cy += t * (u[1] + v[1]);
        }
        (pv, cur) = (pn_, next);
    }
    bound += 4.0 * EPS * m as f64 * abs_sum;
    if !(a2 > 0.0 && bound <= 1e-10 * a2) {
        return None;
    }
    let centroid = [o[0] + p[0] + cx / (3.0 * a2), o[1] + p[1] + cy / (3.0 * a2)];
    assemble_line(a2, centroid, o, [p, q], c, ca, cb, Tier::Accurate)
}

/// (1e-10 - 2 eps (2 MAX_VERTICES + 2)) / (2 CORNER_ERROR eps): twice the area may exceed
/// its forward error bound 2 CORNER_ERROR eps r perimeter + 2 eps corners |a2| by no less
/// than 1e-10 of itself when r perimeter <= FAN_SLACK a2 (for a triangle, whose corners'
/// errors move it by CORNER_ERROR eps r perimeter at most: when r perimeter <= 2 FAN_SLACK
/// a2).
pub(crate) const FAN_SLACK: f64 =
    (1e-10 - 2.0 * EPS * (2 * super::overlap::MAX_VERTICES + 2) as f64) / (2.0 * CORNER_ERROR * EPS);

/// The overlap of a pair that overlapped at the last step: from the crossings packed in
/// `cache` if they check out, else clipped (which packs the new crossings into `cache`,
/// when it finds exactly two). `tracked` says whether the cache served. (An out-parameter,
/// not a pair: the overlap is then built where the caller wants it, not copied there.)
#[inline]
pub fn overlap_tracked(
    a: &[[f64; 2]],
    b: &[[f64; 2]],
    ca: [f64; 2],
    cb: [f64; 2],
    cache: &mut u32,
    scratch: &mut OverlapScratch,
    tracked: &mut bool,
) -> Option<Overlap> {
    if let Some(c) = Crossings::unpack(*cache) {
        let o = overlap_from_crossings(a, b, ca, cb, c);
        if o.is_some() {
            *tracked = true;
            return o;
        }
    }
    *tracked = false;
    overlap_clipped(a, b, ca, cb, cache, scratch)
}

/// [`overlap_about`] (clipping), packing the crossing edges it found into `cache` for
/// [`overlap_tracked`] (left as it was when there are not exactly two).
pub fn overlap_clipped(
    a: &[[f64; 2]],
    b: &[[f64; 2]],
    ca: [f64; 2],
    cb: [f64; 2],
    cache: &mut u32,
    scratch: &mut OverlapScratch,
) -> Option<Overlap> {
    let o = overlap_about(a, b, ca, cb, scratch)?;
    if let Some(c) = o.crossings {
        *cache = c.pack();
    }
    Some(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::overlap::overlap;

    #[test]
    fn pack_round_trip_and_tag() {
        let c = Crossings {
            ia: 63,
            jb: 0,
            ka: 5,
            lb: 17,
        };
        assert_eq!(Crossings::unpack(c.pack()), Some(c));
        // A packed closest-feature pair is not read as crossings.
        use crate::geometry::closest_features::{Feature, FeaturePair};
        let f = FeaturePair {
            a: Feature::Edge(63),
            b: Feature::Vertex(63),
        };
        assert_eq!(Crossings::unpack(f.pack()), None);
    }

    #[test]
    fn squares_from_their_crossings() {
        let a = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];
        let b = [[1.0, 0.5], [3.0, 0.5], [3.0, 2.5], [1.0, 2.5]];
        let clip = overlap(&a, &b).unwrap();
        let c = clip.crossings.expect("two crossings");
        // a enters b on its edge 1 (x = 2) through b's bottom edge 0, leaves on its top
        // edge 2 through b's left edge 3.
        assert_eq!(
            c,
            Crossings {
                ia: 1,
                jb: 0,
                ka: 2,
                lb: 3
            }
        );
        let t = overlap_from_crossings(&a, &b, [1.0, 1.0], [2.0, 1.5], c).unwrap();
        assert!((t.area - 1.5).abs() < 1e-14 && (t.area - clip.area).abs() < 1e-14);
        assert!((t.centroid[0] - 1.5).abs() < 1e-14 && (t.centroid[1] - 1.25).abs() < 1e-14);
        assert!((t.normal[0] - clip.normal[0]).abs() < 1e-15 && (t.normal[1] - clip.normal[1]).abs() < 1e-15);
        // Wrong edges are refused, not trusted.
        for wrong in [
            Crossings { ia: 0, ..c },
            Crossings { jb: 1, ..c },
            Crossings { ka: 1, ..c },
            Crossings { lb: 2, ..c },
            Crossings { ia: 9, ..c },
        ] {
            assert_eq!(overlap_from_crossings(&a, &b, [1.0, 1.0], [2.0, 1.5], wrong), None);
        }
        // Moved apart, the old crossings are refused.
        let far: Vec<[f64; 2]> = b.iter().map(|p| [p[0] + 1.5, p[1]]).collect();
        assert_eq!(overlap_from_crossings(&a, &far, [1.0, 1.0], [3.5, 1.5], c), None);
    }

    /// Two squares turned 45 degrees to each other about a common centre cross eight times:
    /// no pair of crossings certifies a polygon, whatever the cache says.
    #[test]
    fn deep_overlap_with_eight_crossings_is_refused() {
        let a = [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]];
        let s = 2f64.sqrt();
        let b = [[0.0, -s], [s, 0.0], [0.0, s], [-s, 0.0]];
        assert!(overlap(&a, &b).unwrap().crossings.is_none());
        for v in 0..1u32 << 8 {
            let c = Crossings {
                ia: (v & 3) as u8,
                jb: (v >> 2 & 3) as u8,
                ka: (v >> 4 & 3) as u8,
                lb: (v >> 6 & 3) as u8,
            };
            assert_eq!(overlap_from_crossings(&a, &b, [0.0; 2], [0.0; 2], c), None, "{c:?}");
        }
    }
}
