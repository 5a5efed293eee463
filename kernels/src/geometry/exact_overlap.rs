//! The overlap of two convex polygons in exact arithmetic: the slow path of
//! [`super::overlap`] for the pairs where the f64 clipping cannot vouch for its area (thin
//! slivers between nearly parallel edges, grazing corners, coincident or collinear edges).
//!
//! Sutherland-Hodgman clipping of a by the edge half-planes of b, as the fast path does,
//! but every corner is kept exactly: a corner of a, a corner of b, or the meet of an edge
//! line of a or b with an edge line of b, in homogeneous coordinates (X, Y, W) computed
//! from the input corners in expansion arithmetic (Shewchuk 1997; [`super::expansion`]).
//! A new corner always comes from two input lines, never from a computed corner, so the
//! numbers stay small. Which side of a line a corner lies on is an exact sign (in f64 with
//! an error bound where that bound leaves it certain, else in expansions). The area is
//! the sum of the triangles fanned from the first corner, each numerator and denominator
//! exact and only their quotient rounded: a convex fan has no negative triangle, so the
//! sum has the relative accuracy of its terms (a few units in the last place) however thin
//! the overlap. Touching polygons give exactly zero area (None).
//!
//! Where exact signs and accurately evaluated orientations suffice, the cheaper tier of
//! [`super::accurate_overlap`] has answered before (see [`super::overlap::overlap_robust`]).
use super::expansion::{Expansion, EPS};
use super::overlap_result::{assemble, Crossing, Overlap, Tier, MAX_VERTICES};
use super::predicates::{orient, ERR_A};

/// An input line through `p` and `q` (the edge from p to q), along `d` (exact differences).
struct Line {
    p: [f64; 2],
    q: [f64; 2],
    d: [Expansion; 2],
}

fn line(v: &[[f64; 2]], k: usize) -> Line {
    let (p, q) = (v[k], v[(k + 1) % v.len()]);
    Line {
        p,
        q,
        d: [Expansion::diff(q[0], p[0]), Expansion::diff(q[1], p[1])],
    }
}

/// Where the outgoing side of a corner of the clipped polygon lies (an edge line of a or
/// of b; also in [`super::accurate_overlap`]).
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Side {
    A(usize),
    B(usize),
}

/// A corner: (x, y) = (X / W, Y / W) with W > 0, exact.
#[derive(Clone)]
struct Corner {
    x: Expansion,
    y: Expansion,
    w: Expansion,
    /// The corner as given, for a corner of a or b (not a meet of lines).
    given: Option<[f64; 2]>,
    /// The line of the side from this corner to the next.
    out: Side,
    /// For a point where a's boundary crosses b's: the edges, and whether a enters b there.
    crossing: Option<Crossing>,
}

fn cross(a: &[Expansion; 2], b: &[Expansion; 2]) -> Expansion {
    a[0].mul(&b[1]).sub(&a[1].mul(&b[0]))
}

fn input(p: [f64; 2], out: Side) -> Corner {
    Corner {
        x: Expansion::from_f64(p[0]),
        y: Expansion::from_f64(p[1]),
        w: Expansion::from_f64(1.0),
        given: Some(p),
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
    // A corner as given: the robust orientation's sign, exact, and in f64 unless the
    // corner is within rounding of the line. (In expansions, these tests had been a quarter
    // of this tier's instructions in a settled drum.) Exact as long as no product
    // underflows, as for the expansions.
    if let Some(p) = c.given {
        let o = orient(l.p, l.q, p);
        return (o > 0.0) as i32 - (o < 0.0) as i32;
    }
    side_filtered(c, l).unwrap_or_else(|| side_exact(c, l))
}

/// The side of a meet of lines from f64 estimates of its coordinates, where their error
/// bounds leave the sign certain; else None. (The meets' expansions are long: evaluated
/// exactly, their sides were half of this tier's instructions in a settled drum once the
/// given corners' had been taken in f64.)
///
/// With X, Y, W estimated to within ex, ey, ew and 2 ew <= w (so W >= w / 2), the corner
/// (cx, cy) = (x / w, y / w) is within dcx = ex / w + 2 (|x| + ex) ew / w^2 + eps |cx| of
/// X / W (as |X~/W~ - X/W| <= ex / w + |X| ew / (W w); the last term the division's
/// rounding), and likewise dcy. The orientation of the rounded corner errs by at most
/// ERR_A times its permanent (Shewchuk 1997), and differs from the exact corner's by at
/// most |dx| dcy + |dy| dcx, with dx, dy the line's direction (rounded: the factor
/// 1 + 4 eps). A 1 % margin covers the rounding of the bound itself.
fn side_filtered(c: &Corner, l: &Line) -> Option<i32> {
    let (x, ex) = c.x.estimate_bounded();
    let (y, ey) = c.y.estimate_bounded();
    let (w, ew) = c.w.estimate_bounded();
    // (False for NaN too.)
    let w_certain = 2.0 * ew <= w;
    if !w_certain {
        return None;
    }
    let (cx, cy) = (x / w, y / w);
    // (ew / w first: w * w may overflow where the quotients do not.)
    let err = |v: f64, c: f64, e: f64| e / w + 2.0 * (v.abs() + e) * (ew / w) / w + EPS * c.abs();
    let (dcx, dcy) = (err(x, cx, ex), err(y, cy, ey));
    let (dx, dy) = (l.q[0] - l.p[0], l.q[1] - l.p[1]);
    let (left, right) = (dx * (cy - l.p[1]), dy * (cx - l.p[0]));
    let o = left - right;
    let bound = ERR_A * (left.abs() + right.abs()) + (1.0 + 4.0 * EPS) * (dx.abs() * dcy + dy.abs() * dcx);
    (o.abs() > 1.01 * bound).then_some(if o > 0.0 { 1 } else { -1 })
}

/// The side of corner `c` against line `l`, in expansions.
fn side_exact(c: &Corner, l: &Line) -> i32 {
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
                        Corner {
                            x,
                            y,
                            w,
                            given: None,
                            out,
                            crossing,
                        }
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
    let cuts = cur.iter().zip(&pts).filter_map(|(c, &p)| c.crossing.map(|x| (p, x)));
    Some(assemble(a2, centroid, [0.0; 2], cuts, ca, cb, Tier::Exact))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::accurate_overlap::overlap_accurate;
    use crate::geometry::overlap::overlap_robust;

    fn square(x: f64, y: f64, h: f64) -> Vec<[f64; 2]> {
        vec![[x, y], [x + h, y], [x + h, y + h], [x, y + h]]
    }

    /// The f64 signs of `side` against the expansions, on lines through points 10^-k from a
    /// corner (k = 0..17; from the f64 estimate of a meet, so the nearest nudges are lost
    /// to its rounding and the line passes within rounding of the meet): meets of lines at
    /// random angles near the origin and 1e3 from it, meets of nearly parallel lines (angles
    /// 1e-2 to 1e-11, 1e6 from the origin too, where the estimates' error bounds are large),
    /// and given corners. The filter agrees wherever it answers, and answers for at least
    /// 99.8 % of the meets at random angles nudged by 1e-7 or more (for nearly parallel
    /// lines, for more than a third in all, not for all).
    #[test]
    fn filtered_sides_of_meets_are_exact() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(17);
        // answered[family][k]: 0, 1 random angles at 0 and 1e3; 2, 3 nearly parallel at 0, 1e6.
        let mut answered = [[0usize; 18]; 4];
        let mut tried = [0usize; 4];
        for n in 0..36_000 {
            let (k, family) = (n % 18, (n / 18) % 4);
            let shift = [0.0, 1e3, 0.0, 1e6][family];
            let r: Vec<f64> = (0..13).map(|_| rng.random_range(0.0..1.0)).collect();
            let pt = |i: usize| [shift + r[i] - 0.5, shift + r[i + 1] - 0.5];
            let v = [pt(0), pt(2)];
            let u = if family < 2 {
                [pt(4), pt(6)]
            } else {
                // v's direction turned by 1e-2 .. 1e-11.
                let t = 10f64.powi(-2 - (r[12] * 10.0) as i32);
                let d = [v[1][0] - v[0][0], v[1][1] - v[0][1]];
                let (s, c) = t.sin_cos();
                let a = pt(4);
                [a, [a[0] + c * d[0] - s * d[1], a[1] + s * d[0] + c * d[1]]]
            };
            let (l1, l2) = (line(&v, 0), line(&u, 0));
            let (x, y, w) = meet(&l1, &l2);
            if w.sign() == 0 {
                continue;
            }
            let c = Corner {
                x,
                y,
                w,
                given: None,
                out: Side::A(0),
                crossing: None,
            };
            let at = {
                let w = c.w.estimate();
                [c.x.estimate() / w, c.y.estimate() / w]
            };
            let nudge = 10f64.powi(-(k as i32));
            let through = [at[0] + nudge * (r[10] - 0.5), at[1] + nudge * (r[11] - 0.5)];
            let l3 = line(&[through, pt(8)], 0);
            let exact = side_exact(&c, &l3);
            tried[family] += 1;
            if let Some(s) = side_filtered(&c, &l3) {
                assert_eq!(s, exact, "family {family}, k = {k}: filtered {s}, exact {exact}");
                answered[family][k] += 1;
            }
            // A given corner 10^-k from a line through v's points: the robust orientation's
            // sign is the expansions'.
            let g = input(
                [
                    v[0][0] + (v[1][0] - v[0][0]) * r[12] + nudge * (r[10] - 0.5),
                    v[0][1] + (v[1][1] - v[0][1]) * r[12] + nudge * (r[11] - 0.5),
                ],
                Side::A(0),
            );
            assert_eq!(
                side(&g, &l1),
                side_exact(&g, &l1),
                "given corner, family {family}, k = {k}"
            );
        }
        for f in 0..2 {
            assert!(
                answered[f][..8].iter().all(|&a| a * 1000 >= 998 * tried[f] / 18),
                "{answered:?}"
            );
        }
        // Nearly parallel lines: the filter answers for most, and not for all.
        for f in 2..4 {
            let sum: usize = answered[f].iter().sum();
            assert!(sum > tried[f] / 3 && sum < tried[f], "{f}: {sum} of {}", tried[f]);
        }
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
