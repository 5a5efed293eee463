//! Overlap of two penetrating convex polygons: the overlap polygon (Sutherland-Hodgman
//! clipping of one by the edge half-planes of the other), its area and centroid, and the
//! contact line through the two points where the boundaries cross (Schinner 1999; the
//! force acts at the centroid, perpendicular to that line). Fixed-size buffers on the
//! stack: no allocation per pair. The clipping also names the edges that carry the two
//! crossing points, so that a lasting contact can be tracked from them
//! ([`super::crossings`]) instead of clipped again.
//!
//! The clipping runs in f64 in coordinates local to the contact and bounds its own error
//! (first order: each computed corner within a few units of rounding of the polygons' size
//! from the lines it lies on, times the sides it moves). Where that bound exceeds 1e-10 of
//! the area, or the pair is apart or touching within rounding, the slow paths decide
//! ([`overlap_robust`]): exact signs first ([`super::accurate_overlap`]), expansion
//! arithmetic where even that cannot vouch for the area ([`super::exact_overlap`]).
use super::accurate_overlap::overlap_accurate;
use super::cross;
use super::exact_overlap::overlap_exact;
use super::expansion::EPS;
use super::overlap_result::assemble;
pub use super::overlap_result::{Overlap, Tier, MAX_VERTICES};

const CAP: usize = 2 * MAX_VERTICES + 4;
/// Segment tag: part of the boundary of the first polygon.
const ON_A: u16 = u16::MAX;
/// Segment tag: the chord closing the narrowed part of a (see [`overlap_in`]), on neither
/// boundary.
const ON_H: u16 = u16::MAX - 1;

/// The overlap where the f64 clipping cannot vouch for it: with exact signs
/// ([`overlap_accurate`]), else in expansions ([`overlap_exact`]).
pub fn overlap_robust(a: &[[f64; 2]], b: &[[f64; 2]], ca: [f64; 2], cb: [f64; 2]) -> Option<Overlap> {
    overlap_accurate(a, b, ca, cb).unwrap_or_else(|| overlap_exact(a, b, ca, cb))
}

#[derive(Clone, Copy)]
pub(crate) struct Vtx {
    p: [f64; 2],
    /// What the segment from this vertex to the next lies on: ON_A, ON_H or an edge of b.
    seg: u16,
    /// The edge of a under the segment when `seg` is ON_A; for a crossing point, the edge
    /// of a it lies on.
    ea: u8,
    /// For a crossing point (on both boundaries), the edge of b it lies on.
    eb: u8,
    /// NOT_CROSSING, or where a's boundary passes into b (ENTRY) or out of it (EXIT).
    kind: u8,
}

const NOT_CROSSING: u8 = 0;
const ENTRY: u8 = 1;
const EXIT: u8 = 2;

const EMPTY: Vtx = Vtx {
    p: [0.0; 2],
    seg: ON_A,
    ea: 0,
    eb: 0,
    kind: NOT_CROSSING,
};

/// The run of ring indices around `top` whose values satisfy `keep` (`top`'s does): the
/// first index and the length.
#[inline(always)]
fn run(vals: &[f64], top: usize, keep: impl Fn(f64) -> bool) -> (usize, usize) {
    let n = vals.len();
    let (mut first, mut last, mut len) = (top, top, 1);
    while len < n {
        let k = if first == 0 { n - 1 } else { first - 1 };
        if !keep(vals[k]) {
            break;
        }
        (first, len) = (k, len + 1);
    }
    while len < n {
        let k = if last + 1 == n { 0 } else { last + 1 };
        if !keep(vals[k]) {
            break;
        }
        (last, len) = (k, len + 1);
    }
    (first, len)
}

/// Mean of the vertices (a cheap interior point, for orienting the normal).
fn mean(v: &[[f64; 2]]) -> [f64; 2] {
    let n = v.len() as f64;
    let s = v.iter().fold([0.0; 2], |s, p| [s[0] + p[0], s[1] + p[1]]);
    [s[0] / n, s[1] / n]
}

/// Work space of the clipping: two vertex buffers, reused from call to call (making and
/// swapping them per call cost more than the clipping itself).
#[derive(Clone)]
pub struct OverlapScratch {
    buf: [[Vtx; CAP]; 2],
    dist: [f64; CAP],
    /// The corners of a, then b, relative to a's interior point.
    local: [[f64; 2]; 2 * MAX_VERTICES],
}

impl Default for OverlapScratch {
    fn default() -> Self {
        OverlapScratch {
            buf: [[EMPTY; CAP]; 2],
            dist: [0.0; CAP],
            local: [[0.0; 2]; 2 * MAX_VERTICES],
        }
    }
}

impl std::fmt::Debug for OverlapScratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OverlapScratch")
    }
}

/// The overlap of convex polygons `a` and `b` (counter-clockwise, at most
/// [`MAX_VERTICES`] each), or `None` if their interiors do not overlap.
pub fn overlap(a: &[[f64; 2]], b: &[[f64; 2]]) -> Option<Overlap> {
    overlap_in(a, b, &mut OverlapScratch::default())
}

/// [`overlap`] with caller-provided work space (no allocation, no initialisation).
///
/// The clipping is narrowed first by the projection refinement of Chen & Matuttis (2013,
/// App. B.1), used here to cut work rather than only to reject. With `u` the direction
/// between the vertex means, b lies in {x.u >= min_b} and a in {x.u <= max_a}. The corners
/// of a beyond min_b form one run around a's extreme corner (a is convex); with the two
/// corners next to it they span a sub-polygon a'' of a whose remainder lies in
/// {x.u <= min_b}, so a n b = a'' n b up to a set of zero area. Likewise only the edges of
/// b that reach below max_a can cut a''. A shallow contact of two 6-gons is then a clip of
/// a triangle or quadrilateral by two or three edges, after one pass of dot products.
pub fn overlap_in(a: &[[f64; 2]], b: &[[f64; 2]], scratch: &mut OverlapScratch) -> Option<Overlap> {
    overlap_about(a, b, mean(a), mean(b), scratch)
}

/// [`overlap_in`] with interior points `ca` of a and `cb` of b given by the caller (a
/// simulation has the centroids at hand; the vertex means cost two passes per call, 7 % of
/// the kernel in a dense bed). They set the narrowing direction and orient the normal when
/// the contact line is degenerate; the overlap itself does not depend on them.
pub fn overlap_about(
    a: &[[f64; 2]],
    b: &[[f64; 2]],
    ca: [f64; 2],
    cb: [f64; 2],
    scratch: &mut OverlapScratch,
) -> Option<Overlap> {
    assert!(
        a.len() <= MAX_VERTICES && b.len() <= MAX_VERTICES,
        "overlap: at most {MAX_VERTICES} vertices"
    );
    let (na, nb) = (a.len(), b.len());
    // Any direction is correct; the centre line makes the narrowing effective.
    let u = if ca == cb {
        [1.0, 0.0]
    } else {
        [cb[0] - ca[0], cb[1] - ca[1]]
    };
    let OverlapScratch {
        buf: [b0, b1],
        dist,
        local,
    } = scratch;
    let (pa, rest) = dist.split_at_mut(na);
    let pb = &mut rest[..nb];
    let (la, rest) = local.split_at_mut(na);
    let lb = &mut rest[..nb];
    // Every corner relative to ca, once (exact for far-away polygons by Sterbenz's lemma,
    // else rounded relative to the polygons' size): the projections and the clipping run
    // on these, so that their rounding scales with the polygons, not with the distance from
    // the origin. `ext`, the largest |x| and |y| (two lanes of one vector operation a
    // corner; compares, not f64::max, whose NaN handling costs more), bounds them.
    let mut ext = [0.0f64; 2];
    let (mut top, mut max_a) = (0, f64::NEG_INFINITY);
    for (k, ((d, l), p)) in pa.iter_mut().zip(la.iter_mut()).zip(a).enumerate() {
        let q = [p[0] - ca[0], p[1] - ca[1]];
        *l = q;
        let m = [q[0].abs(), q[1].abs()];
        ext = [
            if m[0] > ext[0] { m[0] } else { ext[0] },
            if m[1] > ext[1] { m[1] } else { ext[1] },
        ];
        *d = q[0] * u[0] + q[1] * u[1];
        if *d > max_a {
            (top, max_a) = (k, *d);
        }
    }
    let (mut bottom, mut min_b) = (0, f64::INFINITY);
    for (k, ((d, l), p)) in pb.iter_mut().zip(lb.iter_mut()).zip(b).enumerate() {
        let q = [p[0] - ca[0], p[1] - ca[1]];
        *l = q;
        let m = [q[0].abs(), q[1].abs()];
        ext = [
            if m[0] > ext[0] { m[0] } else { ext[0] },
            if m[1] > ext[1] { m[1] } else { ext[1] },
        ];
        *d = q[0] * u[0] + q[1] * u[1];
        if *d < min_b {
            (bottom, min_b) = (k, *d);
        }
    }
    let reach = if ext[0] > ext[1] { ext[0] } else { ext[1] };
    // Rounding of the projections (offsets and products): corners within it of the other's
    // extreme are kept, so the narrowing never drops a sliver of the overlap.
    let slack = 4.0 * EPS * reach * (u[0].abs() + u[1].abs());
    if max_a <= min_b - slack {
        return None;
    }
    if max_a <= min_b + slack {
        return overlap_robust(a, b, ca, cb);
    }
    let (first_a, run_a) = run(pa, top, |d| d > min_b - slack);
    let (first_b, run_b) = run(pb, bottom, |d| d < max_a + slack);
    // Clipped in those coordinates: `r` bounds every coordinate of an input corner, hence
    // of a cut (on a segment between two), for the error bound below.
    let o = ca;
    let r = reach;
    // a'': the run and its two neighbours; the chord closing it is on neither boundary
    // (tag ON_H): points cut from it are no crossings.
    let (mut cur, mut nxt) = (b0, b1);
    let mut m = na;
    if run_a + 2 < na {
        m = run_a + 2;
        // Ring indices without `%` (an integer division per corner showed in profiles).
        let mut i = if first_a == 0 { na - 1 } else { first_a - 1 };
        for v in cur[..m].iter_mut() {
            *v = Vtx {
                p: la[i],
                ea: i as u8,
                ..EMPTY
            };
            i = if i + 1 == na { 0 } else { i + 1 };
        }
        cur[m - 1].seg = ON_H;
    } else {
        for (k, (v, &p)) in cur.iter_mut().zip(la.iter()).enumerate() {
            *v = Vtx {
                p,
                ea: k as u8,
                ..EMPTY
            };
        }
    }
    // The edges of b that reach below max_a: from the corner before b's run to its end.
    let (mut jn, edges) = if run_b + 2 < nb {
        (if first_b == 0 { nb - 1 } else { first_b - 1 }, run_b + 1)
    } else {
        (0, nb)
    };
    for _ in 0..edges {
        let j = jn;
        jn = if j + 1 == nb { 0 } else { j + 1 };
        let (b0, b1) = (lb[j], lb[jn]);
        let e = [b1[0] - b0[0], b1[1] - b0[1]];
        // Signed distances first: an edge that cuts nothing is passed over without copying.
        let dist = &mut dist[..m];
        let mut any_out = false;
        for (d, v) in dist.iter_mut().zip(&cur[..m]) {
            *d = cross(e, [v.p[0] - b0[0], v.p[1] - b0[1]]);
            any_out |= *d < 0.0;
        }
        if !any_out {
            continue;
        }
        // Branch-free compaction: every slot is written, and the count advances only for
        // what is kept (a kept corner; a cut where the sign changes). The shapes of the
        // contacts of a bed are random, so branches here were mispredicted about half the
        // time. A cut is computed even where none is kept (its NaN is never read).
        let mut w = 0;
        for k in 0..m {
            let kn = if k + 1 == m { 0 } else { k + 1 };
            let (u, v) = (cur[k], cur[kn]);
            let (du, dv) = (dist[k], dist[kn]);
            let (keep_u, keep_v) = (du >= 0.0, dv >= 0.0);
            // A corner on the line whose successor is cut off: the boundary goes on along
            // b's edge j from it.
            nxt[w] = Vtx {
                seg: if du == 0.0 && !keep_v { j as u16 } else { u.seg },
                ..u
            };
            w += keep_u as usize;
            let t = du / (du - dv);
            let uv = [v.p[0] - u.p[0], v.p[1] - u.p[1]];
            // Leaving b's half-plane the new segment runs along b's edge j; entering, it
            // goes on along u's segment. A cut of a's boundary is where a leaves b (it
            // was inside) or enters it.
            nxt[w] = Vtx {
                p: [u.p[0] + t * uv[0], u.p[1] + t * uv[1]],
                seg: if keep_u { j as u16 } else { u.seg },
                ea: u.ea,
                eb: j as u8,
                kind: if u.seg != ON_A {
                    NOT_CROSSING
                } else if keep_u {
                    EXIT
                } else {
                    ENTRY
                },
            };
            w += (keep_u != keep_v) as usize;
        }
        if w < 3 {
            // Nothing left: certain only if every corner was outside by more than the
            // rounding of its distance (see the bound below). (The largest distance
            // looked for only here: off the loop above.)
            let max_d = dist.iter().fold(f64::NEG_INFINITY, |x, &d| if d > x { d } else { x });
            let e1 = e[0].abs() + e[1].abs();
            if max_d < -CORNER_ERROR * EPS * r * e1 {
                return None;
            }
            return overlap_robust(a, b, ca, cb);
        }
        std::mem::swap(&mut cur, &mut nxt);
        m = w;
    }
    // Area and centroid, relative to the first vertex for accuracy; the perimeter for the
    // error bound.
    let p0 = cur[0].p;
    let (mut a2, mut cx, mut cy) = (0.0, 0.0, 0.0);
    // (The perimeter in x and in y apart: one vector operation per corner.)
    let mut per = [(cur[m - 1].p[0] - p0[0]).abs(), (cur[m - 1].p[1] - p0[1]).abs()];
    let mut prev = [0.0, 0.0];
    for v in &cur[1..m] {
        let q = [v.p[0] - p0[0], v.p[1] - p0[1]];
        per = [per[0] + (q[0] - prev[0]).abs(), per[1] + (q[1] - prev[1]).abs()];
        let c = cross(prev, q);
        a2 += c;
        cx += c * (prev[0] + q[0]);
        cy += c * (prev[1] + q[1]);
        prev = q;
    }
    // Forward error bound of twice the area (first order): each computed corner lies within
    // CORNER_ERROR eps r of the lines it is on (rounding of the offsets, of its orientations
    // and of the cut), and moving corner k by delta changes twice the area by at most delta
    // |P(k+1) - P(k-1)| <= delta (its two sides); along a line a cut may stray by 1/sin of
    // the angle of the lines times that, which changes the area only in second order (and
    // where that is not small, at grazing cuts, the overlap is a sliver whose first-order
    // bound fails already). Where the bound exceeds
    // 1e-10 of the area (slivers thinner than about 1e-5 of the size, grazing or
    // coincident edges) or no area is left, the exact clipping decides.
    let perimeter = per[0] + per[1];
    // EPS (r CORNER_ERROR 2 perimeter + 2 m |a2|) <= 1e-10 a2, with m <= CAP folded into
    // the constant.
    if !(a2 > 0.0 && r * perimeter <= CLIP_SLACK * a2) {
        return overlap_robust(a, b, ca, cb);
    }
    let centroid = [o[0] + p0[0] + cx / (3.0 * a2), o[1] + p0[1] + cy / (3.0 * a2)];
    let cuts = cur[..m]
        .iter()
        .filter(|v| v.kind != NOT_CROSSING)
        .map(|v| (v.p, (v.ea as usize, v.eb as usize, v.kind == ENTRY)));
    Some(assemble(a2, centroid, o, cuts, ca, cb, Tier::Fast))
}

/// Bound on how far (in units of eps r) a corner computed by the f64 clipping can lie from
/// the lines it is on: the offsets (1), its two orientations (3.3 sqrt 2 each, against
/// points within 2 r), the cut (2), and a cut of a cut.
pub(crate) const CORNER_ERROR: f64 = 16.0;

/// (1e-10 - 2 eps CAP) / (2 CORNER_ERROR eps): the clipping's twice-area `a2` is vouched
/// for when r perimeter <= CLIP_SLACK a2 (its bound, the corners' errors times their
/// sides plus 2 eps per corner of |a2|, within 1e-10 of it).
const CLIP_SLACK: f64 = (1e-10 - 2.0 * EPS * CAP as f64) / (2.0 * CORNER_ERROR * EPS);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_squares() {
        let a = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];
        let b = [[1.0, 0.5], [3.0, 0.5], [3.0, 2.5], [1.0, 2.5]];
        let o = overlap(&a, &b).unwrap();
        assert!((o.area - 1.5).abs() < 1e-14, "{o:?}");
        assert!((o.centroid[0] - 1.5).abs() < 1e-14 && (o.centroid[1] - 1.25).abs() < 1e-14);
        let [p, q] = o.line.unwrap();
        // The boundaries cross at (2, 0.5) and (1, 2).
        let has = |x: [f64; 2]| (p == x) || (q == x);
        assert!(has([2.0, 0.5]) && has([1.0, 2.0]), "{p:?} {q:?}");
        // Perpendicular to the line (direction (-1, 1.5)), pointing from a towards b.
        let n = o.normal;
        assert!((-n[0] + n[1] * 1.5).abs() < 1e-14 && n[0] + 0.5 * n[1] > 0.0, "{n:?}");
        assert!((n[0].hypot(n[1]) - 1.0).abs() < 1e-15);
        assert!((o.line_length - 1.0f64.hypot(1.5)).abs() < 1e-15);
        // The interior points steer the narrowing only: any pair gives the same overlap.
        for (ca, cb) in [
            ([0.5, 1.5], [2.9, 0.6]),
            ([1.9, 0.1], [1.1, 2.4]),
            ([1.0, 1.0], [1.0, 1.0]),
        ] {
            let p = overlap_about(&a, &b, ca, cb, &mut OverlapScratch::default()).unwrap();
            assert!((p.area - 1.5).abs() < 1e-14, "{ca:?} {cb:?}: {p:?}");
            assert!((p.centroid[0] - 1.5).abs() < 1e-14 && (p.centroid[1] - 1.25).abs() < 1e-14);
        }
        let far = [[5.0, 5.0], [6.0, 5.0], [6.0, 6.0]];
        assert!(overlap(&a, &far).is_none());
    }
}
