//! The overlap of two convex polygons in f64 with exact signs: the first slow path of
//! [`super::overlap`], for the pairs where the f64 clipping cannot vouch for its area (in a
//! settled bed, mostly shallow new contacts).
//!
//! Sutherland-Hodgman clipping as the fast path does, but a corner's side of a line is an
//! exact predicate for input corners ([`super::predicates`], Shewchuk 1997) and a bounded
//! f64 evaluation for cut corners; a cut corner is computed from the orientations of the
//! input edge's ends to the cutting line evaluated to 2^-51 relative, as an offset from the
//! nearer end, and the area in coordinates relative to an input corner of the overlap. Its
//! corners are then good to a few units in the last place of their distance from that
//! corner, not of the polygons' size. Where even that cannot vouch for 1e-10 of the area
//! (slivers between nearly parallel edges), or a sign of a cut corner is within its bound,
//! it gives up and the expansions of [`super::exact_overlap`] decide.
use super::exact_overlap::Side;
use super::expansion::EPS;
use super::overlap_result::{assemble, Crossing, Overlap, Tier, MAX_VERTICES};
use super::predicates::{orient, orient_accurate};

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
    crossing: Option<Crossing>,
}

/// [`super::exact_overlap::overlap_exact`] in f64 with exact signs where it can vouch for its result (`Some`,
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
        crossings: o.crossings.map(|c| super::overlap_result::Crossings {
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
    let cuts = c.iter().filter_map(|(p, _, k)| k.crossing.map(|x| (*p, x)));
    Some(Some(assemble(a2, centroid, o, cuts, ca, cb, Tier::Accurate)))
}
