//! The overlap of two convex polygons in exact arithmetic: the slow path of
//! [`super::overlap`] for the pairs where the f64 clipping cannot vouch for its area (thin
//! slivers between nearly parallel edges, grazing corners, coincident or collinear edges).
//!
//! Sutherland-Hodgman clipping of a by the edge half-planes of b, as the fast path does,
//! but every corner is kept exactly: a corner of a, a corner of b, or the meet of an edge
//! line of a or b with an edge line of b, in homogeneous coordinates (X, Y, W) computed
//! from the input corners in expansion arithmetic (Shewchuk 1997; [`super::expansion`]).
//! A new corner always comes from two input lines, never from a computed corner, so the
//! numbers stay small. Which side of a line a corner lies on is an exact sign. The area is
//! the sum of the triangles fanned from the first corner, each numerator and denominator
//! exact and only their quotient rounded: a convex fan has no negative triangle, so the
//! sum has the relative accuracy of its terms (a few units in the last place) however thin
//! the overlap. Touching polygons give exactly zero area (None).
//!
//! Before that, [`overlap_accurate`] tries the same clipping in f64 with exact signs: a
//! corner's side of a line is an exact predicate for input corners and a bounded f64
//! evaluation for cut corners; a cut corner is computed from the orientations of the input
//! edge's ends to the cutting line evaluated to 2^-51 relative, as an offset from the
//! nearer end, and the area in coordinates relative to an input corner of the overlap. Its
//! corners are then good to a few units in the last place of their distance from that
//! corner, not of the polygons' size, which settles the
//! shallow new contacts that the fast clipping refers here; where even that cannot vouch
//! for 1e-10 of the area (slivers between nearly parallel edges) the expansions decide.
use super::crossings::Crossings;
use super::expansion::{Expansion, EPS};
use super::overlap::{contact_normal, Overlap, MAX_VERTICES};
use super::predicates::{orient, orient_accurate};

/// An input line through `p` along `d` (exact differences).
struct Line {
    p: [f64; 2],
    d: [Expansion; 2],
}

fn line(v: &[[f64; 2]], k: usize) -> Line {
    let (p, q) = (v[k], v[(k + 1) % v.len()]);
    Line {
        p,
        d: [Expansion::diff(q[0], p[0]), Expansion::diff(q[1], p[1])],
    }
}

/// Where a's boundary crosses b's: a's edge, b's edge, and whether a enters b there.
type Crossing = (usize, usize, bool);

/// Where the outgoing side of a corner of the clipped polygon lies.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    A(usize),
    B(usize),
}

/// A corner: (x, y) = (X / W, Y / W) with W > 0, exact.
#[derive(Clone)]
struct Corner {
    x: Expansion,
    y: Expansion,
    w: Expansion,
    /// The line of the side from this corner to the next.
    out: Side,
    /// For a point where a's boundary crosses b's: the edges, and whether a enters b there.
    crossing: Option<(usize, usize, bool)>,
}

fn cross(a: &[Expansion; 2], b: &[Expansion; 2]) -> Expansion {
    a[0].mul(&b[1]).sub(&a[1].mul(&b[0]))
}

fn input(p: [f64; 2], out: Side) -> Corner {
    Corner {
        x: Expansion::from_f64(p[0]),
        y: Expansion::from_f64(p[1]),
        w: Expansion::from_f64(1.0),
        out,
        crossing: None,
    }
}

/// The meet of lines l1 and l2: p1 + t d1 with t = cross(p2 - p1, d2) / cross(d1, d2).
fn meet(l1: &Line, l2: &Line) -> (Expansion, Expansion, Expansion) {
    let w = cross(&l1.d, &l2.d);
    let r = [Expansion::diff(l2.p[0], l1.p[0]), Expansion::diff(l2.p[1], l1.p[1])];
    let t = cross(&r, &l2.d);
    let x = w.scale(l1.p[0]).add(&t.mul(&l1.d[0]));
    let y = w.scale(l1.p[1]).add(&t.mul(&l1.d[1]));
    if w.sign() < 0 {
        (x.neg(), y.neg(), w.neg())
    } else {
        (x, y, w)
    }
}

/// The sign of corner `c` against line `l`: positive left of it (inside b's edge).
fn side(c: &Corner, l: &Line) -> i32 {
    // cross(d, (X - W p) ) with W > 0.
    let rx = c.x.sub(&c.w.scale(l.p[0]));
    let ry = c.y.sub(&c.w.scale(l.p[1]));
    l.d[0].mul(&ry).sub(&l.d[1].mul(&rx)).sign()
}

/// The exact overlap of convex polygons `a` and `b` (counter-clockwise), or None when
/// their interiors do not overlap; `ca`, `cb` orient the normal as in
/// [`super::overlap::overlap_about`].
pub fn overlap_exact(a: &[[f64; 2]], b: &[[f64; 2]], ca: [f64; 2], cb: [f64; 2]) -> Option<Overlap> {
    assert!(a.len() <= MAX_VERTICES && b.len() <= MAX_VERTICES);
    let (na, nb) = (a.len(), b.len());
    let la: Vec<Line> = (0..na).map(|k| line(a, k)).collect();
    let lb: Vec<Line> = (0..nb).map(|k| line(b, k)).collect();
    let line_of = |s: Side| match s {
        Side::A(k) => &la[k],
        Side::B(k) => &lb[k],
    };
    let mut cur: Vec<Corner> = (0..na).map(|k| input(a[k], Side::A(k))).collect();
    for (j, l) in lb.iter().enumerate() {
        let s: Vec<i32> = cur.iter().map(|c| side(c, l)).collect();
        if s.iter().all(|&x| x >= 0) {
            continue;
        }
        let m = cur.len();
        let mut next = Vec::with_capacity(m + 2);
        for k in 0..m {
            let (su, sv) = (s[k], s[(k + 1) % m]);
            if su >= 0 {
                let mut c = cur[k].clone();
                // On the line with the next corner outside: the boundary goes on along b's
                // edge j from here.
                if su == 0 && sv < 0 {
                    c.out = Side::B(j);
                }
                next.push(c);
            }
            if su * sv < 0 {
                let u = &cur[k];
                // Leaving b's half-plane the boundary goes on along b's edge j; entering
                // it, along the side it was on.
                let out = if su > 0 { Side::B(j) } else { u.out };
                let crossing = match u.out {
                    Side::A(i) => Some((i, j, su < 0)),
                    Side::B(_) => None,
                };
                let c = match u.out {
                    // Two consecutive edge lines of b meet at b's corner.
                    Side::B(i) if (i + 1) % nb == j => Corner {
                        crossing,
                        ..input(b[j], out)
                    },
                    _ => {
                        let (x, y, w) = meet(line_of(u.out), l);
                        Corner { x, y, w, out, crossing }
                    }
                };
                next.push(c);
            }
        }
        cur = next;
        if cur.len() < 3 {
            return None;
        }
    }
    // Fan from the first corner: cross(P_k - P_0, P_k+1 - P_0), each P_k - P_0 =
    // (N_k W_0 - N_0 W_k) / (W_k W_0) exactly.
    let m = cur.len();
    let o = &cur[0];
    let rel: Vec<[Expansion; 2]> = cur
        .iter()
        .map(|c| [c.x.mul(&o.w).sub(&o.x.mul(&c.w)), c.y.mul(&o.w).sub(&o.y.mul(&c.w))])
        .collect();
    let approx = |c: &Corner| {
        let w = c.w.estimate();
        [c.x.estimate() / w, c.y.estimate() / w]
    };
    let pts: Vec<[f64; 2]> = cur.iter().map(approx).collect();
    let w0 = o.w.estimate();
    let (mut a2, mut cx, mut cy) = (0.0, 0.0, 0.0);
    for k in 1..m - 1 {
        let num = cross(&rel[k], &rel[k + 1]);
        if num.sign() == 0 {
            continue;
        }
        let den = cur[k].w.mul(&cur[k + 1].w).estimate() * w0 * w0;
        let t = num.estimate() / den;
        a2 += t;
        cx += t * (pts[0][0] + pts[k][0] + pts[k + 1][0]);
        cy += t * (pts[0][1] + pts[k][1] + pts[k + 1][1]);
    }
    if a2 <= 0.0 {
        return None;
    }
    let centroid = [cx / (3.0 * a2), cy / (3.0 * a2)];
    // The contact line and the crossings, as the fast path reports them.
    let crossings: Vec<(usize, [f64; 2], Crossing)> = cur
        .iter()
        .enumerate()
        .filter_map(|(k, c)| c.crossing.map(|x| (k, pts[k], x)))
        .collect();
    let line = (crossings.len() == 2).then(|| [crossings[0].1, crossings[1].1]);
    let tracked = match crossings.as_slice() {
        [(_, _, p), (_, _, q)] if p.2 != q.2 => {
            let (entry, exit) = if p.2 { (p, q) } else { (q, p) };
            Some(Crossings {
                ia: entry.0 as u8,
                jb: entry.1 as u8,
                ka: exit.0 as u8,
                lb: exit.1 as u8,
            })
        }
        _ => None,
    };
    let (normal, line_length) = contact_normal(line, ca, cb);
    Some(Overlap {
        area: 0.5 * a2,
        centroid,
        line,
        normal,
        line_length,
        crossings: tracked,
        exact: true,
    })
}

/// Where a corner of the f64 clipping comes from.
#[derive(Clone, Copy)]
enum Source {
    A(usize),
    B(usize),
    /// The meet of an edge of a and an edge line of b.
    Cut,
}

#[derive(Clone, Copy)]
struct FCorner {
    /// An input corner (exact) and the offset from it (rounded): the corner is base + off.
    base: [f64; 2],
    off: [f64; 2],
    /// Bound on the error of `off`.
    err: f64,
    src: Source,
    out: Side,
    crossing: Option<(usize, usize, bool)>,
}

/// [`overlap_exact`] in f64 with exact signs where it can vouch for its result (`Some`,
/// the overlap or none), else None. See the module's comment. The cut corners are good
/// near the ends of the clipped polygon's edges: a corner of b poking into an edge of a is
/// vouched for when b is clipped by a, so both ways are tried.
pub fn overlap_accurate(a: &[[f64; 2]], b: &[[f64; 2]], ca: [f64; 2], cb: [f64; 2]) -> Option<Option<Overlap>> {
    if let Some(o) = clip_accurate(a, b, ca, cb) {
        return Some(o);
    }
    let o = clip_accurate(b, a, cb, ca)?;
    // Back to a first: b entering a is a leaving b; the normal from a towards b.
    Some(o.map(|o| Overlap {
        normal: [-o.normal[0], -o.normal[1]],
        crossings: o.crossings.map(|c| Crossings {
            ia: c.lb,
            jb: c.ka,
            ka: c.jb,
            lb: c.ia,
        }),
        ..o
    }))
}

fn clip_accurate(a: &[[f64; 2]], b: &[[f64; 2]], ca: [f64; 2], cb: [f64; 2]) -> Option<Option<Overlap>> {
    let (na, nb) = (a.len(), b.len());
    assert!(na <= MAX_VERTICES && nb <= MAX_VERTICES);
    let norm = |v: [f64; 2]| v[0].abs() + v[1].abs();
    let input = |p: [f64; 2], src: Source, out: Side| FCorner {
        base: p,
        off: [0.0; 2],
        err: 0.0,
        src,
        out,
        crossing: None,
    };
    // Clipping a convex polygon by a half-plane adds at most one corner: na + nb bound
    // them. Vectors of that size, not arrays of the largest (their initialisation, two
    // arrays of 132 corners, was most of the cost of this path).
    let mut cur: Vec<FCorner> = Vec::with_capacity(na + nb + 2);
    let mut nxt: Vec<FCorner> = Vec::with_capacity(na + nb + 2);
    cur.extend((0..na).map(|k| input(a[k], Source::A(k), Side::A(k))));
    let mut m = na;
    for j in 0..nb {
        let j1 = (j + 1) % nb;
        let (b0, b1) = (b[j], b[j1]);
        let e = [b1[0] - b0[0], b1[1] - b0[1]];
        let mut sides = [0i8; 2 * MAX_VERTICES + 4];
        let mut any_out = false;
        for k in 0..m {
            let c = cur[k];
            let s = match c.src {
                Source::A(i) => orient(b0, b1, a[i]),
                Source::B(i) => orient(b0, b1, b[i]),
                Source::Cut => {
                    let d = [c.base[0] - b0[0], c.base[1] - b0[1]];
                    let r = [d[0] + c.off[0], d[1] + c.off[1]];
                    let v = e[0] * r[1] - e[1] * r[0];
                    let bound = norm(e) * (c.err + 6.0 * EPS * (norm(d) + norm(c.off)));
                    if v.abs() <= bound {
                        return None;
                    }
                    v
                }
            };
            sides[k] = (s > 0.0) as i8 - (s < 0.0) as i8;
            any_out |= s < 0.0;
        }
        if !any_out {
            continue;
        }
        nxt.clear();
        for k in 0..m {
            let kn = if k + 1 == m { 0 } else { k + 1 };
            let (su, sv) = (sides[k], sides[kn]);
            let c = cur[k];
            if su >= 0 {
                let mut c = c;
                if su == 0 && sv < 0 {
                    c.out = Side::B(j);
                }
                nxt.push(c);
            }
            if su * sv < 0 {
                let out = if su > 0 { Side::B(j) } else { c.out };
                let crossing = match c.out {
                    Side::A(i) => Some((i, j, su < 0)),
                    Side::B(_) => None,
                };
                let corner = match c.out {
                    Side::B(i) if (i + 1) % nb == j => FCorner {
                        crossing,
                        ..input(b[j], Source::B(j), out)
                    },
                    Side::B(_) => return None,
                    Side::A(i) => {
                        // t along a's edge i from the orientations of its ends, from the
                        // nearer end: t from p0, or t - 1 from p1, each a quotient of the
                        // two orientations without cancellation.
                        let (p0, p1) = (a[i], a[(i + 1) % na]);
                        let (s0, s1) = (orient_accurate(b0, b1, p0), orient_accurate(b0, b1, p1));
                        let t = s0 / (s0 - s1);
                        let d = [p1[0] - p0[0], p1[1] - p0[1]];
                        let (base, f) = if t <= 0.5 { (p0, t) } else { (p1, s1 / (s0 - s1)) };
                        let off = [f * d[0], f * d[1]];
                        FCorner {
                            base,
                            off,
                            // s0, s1 to 4 eps each: t (and t - 1) to 10 eps; the edge and
                            // the product rounded once each.
                            err: 16.0 * EPS * norm(off),
                            src: Source::Cut,
                            out,
                            crossing,
                        }
                    }
                };
                nxt.push(corner);
            }
        }
        std::mem::swap(&mut cur, &mut nxt);
        m = cur.len();
        if m < 3 {
            // Nothing left but a point or a segment: exact signs, no area.
            return Some(None);
        }
    }
    // Corners relative to the first one's base (an input corner at or next to the
    // overlap), with their error bounds.
    let o = cur[0].base;
    let c: Vec<([f64; 2], f64, FCorner)> = cur
        .iter()
        .map(|&c| {
            let d = [c.base[0] - o[0], c.base[1] - o[1]];
            let p = [d[0] + c.off[0], d[1] + c.off[1]];
            (p, c.err + EPS * (norm(d) + 2.0 * norm(p)), c)
        })
        .collect();
    // Fan from the first corner, with the forward error bound of twice the area: each
    // corner's error times its two sides, and the rounding of the sum.
    let p0 = c[0].0;
    let (mut a2, mut cx, mut cy, mut abs_sum) = (0.0, 0.0, 0.0, 0.0);
    let mut bound = 0.0;
    for k in 0..m {
        let (pv, pk, pn) = (c[(k + m - 1) % m].0, c[k].0, c[(k + 1) % m].0);
        bound += c[k].1 * (norm([pk[0] - pv[0], pk[1] - pv[1]]) + norm([pn[0] - pk[0], pn[1] - pk[1]]));
        if k >= 1 && k + 1 < m {
            let (q, r) = ([pk[0] - p0[0], pk[1] - p0[1]], [pn[0] - p0[0], pn[1] - p0[1]]);
            let t = q[0] * r[1] - q[1] * r[0];
            a2 += t;
            abs_sum += t.abs();
            cx += t * (q[0] + r[0]);
            cy += t * (q[1] + r[1]);
        }
    }
    bound += 4.0 * EPS * (m as f64) * abs_sum;
    if !(a2 > 0.0 && bound <= 1e-10 * a2) {
        return None;
    }
    let centroid = [o[0] + p0[0] + cx / (3.0 * a2), o[1] + p0[1] + cy / (3.0 * a2)];
    let crossings: Vec<([f64; 2], (usize, usize, bool))> = c
        .iter()
        .filter_map(|(p, _, k)| k.crossing.map(|x| ([o[0] + p[0], o[1] + p[1]], x)))
        .collect();
    let line = (crossings.len() == 2).then(|| [crossings[0].0, crossings[1].0]);
    let tracked = match crossings.as_slice() {
        [(_, p), (_, q)] if p.2 != q.2 => {
            let (entry, exit) = if p.2 { (p, q) } else { (q, p) };
            Some(Crossings {
                ia: entry.0 as u8,
                jb: entry.1 as u8,
                ka: exit.0 as u8,
                lb: exit.1 as u8,
            })
        }
        _ => None,
    };
    let (normal, line_length) = contact_normal(line, ca, cb);
    Some(Some(Overlap {
        area: 0.5 * a2,
        centroid,
        line,
        normal,
        line_length,
        crossings: tracked,
        exact: true,
    }))
}

/// The overlap where the f64 clipping cannot vouch for it: [`overlap_accurate`], else
/// [`overlap_exact`].
pub fn overlap_robust(a: &[[f64; 2]], b: &[[f64; 2]], ca: [f64; 2], cb: [f64; 2]) -> Option<Overlap> {
    overlap_accurate(a, b, ca, cb).unwrap_or_else(|| overlap_exact(a, b, ca, cb))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x: f64, y: f64, h: f64) -> Vec<[f64; 2]> {
        vec![[x, y], [x + h, y], [x + h, y + h], [x, y + h]]
    }

    #[test]
    fn degenerate_pairs_by_hand() {
        let a = square(0.0, 0.0, 1.0);
        // Coincident, listed from another corner: the whole square, both tiers.
        let b = vec![a[2], a[3], a[0], a[1]];
        for o in [
            overlap_exact(&a, &b, [0.5; 2], [0.5; 2]),
            overlap_robust(&a, &b, [0.5; 2], [0.5; 2]),
        ] {
            let o = o.unwrap();
            assert_eq!(o.area, 1.0);
            assert!((o.centroid[0] - 0.5).abs() < 1e-15 && (o.centroid[1] - 0.5).abs() < 1e-15);
        }
        // Sharing an edge, or a corner: touching, no overlap.
        assert!(overlap_exact(&a, &square(1.0, 0.3, 1.0), [0.5; 2], [1.5, 0.8]).is_none());
        assert!(overlap_robust(&a, &square(1.0, 1.0, 1.0), [0.5; 2], [1.5; 2]).is_none());
        // A sliver 2^-50 wide along a whole edge: exact, where f64 corners far from it
        // could not give its area to 1e-10.
        let w = 2f64.powi(-50);
        let b = square(1.0 - w, -0.25, 1.5);
        let o = overlap_exact(&a, &b, [0.5; 2], [1.5, 0.5]).unwrap();
        assert_eq!(o.area, w);
        assert_eq!(o.centroid, [1.0 - w / 2.0, 0.5]);
        let o = crate::geometry::overlap::overlap(&a, &b).unwrap();
        assert!((o.area - w).abs() <= 1e-10 * w, "{o:?}");
        // A triangle's tip 1e-20 into an edge, turned a little so that nothing is exact
        // in f64: both tiers agree to 1e-12.
        let tri = [[-0.5, -1.0], [1.5, -1.0 + 1e-3], [0.5, 1e-20]];
        let e = overlap_exact(&a, &tri, [0.5; 2], [0.5, -0.7]).unwrap();
        let r = overlap_accurate(&a, &tri, [0.5; 2], [0.5, -0.7]).unwrap().unwrap();
        assert!(
            (e.area - 1e-40).abs() < 1e-43 && (r.area - e.area).abs() <= 1e-12 * e.area,
            "{e:?} {r:?}"
        );
    }
}
