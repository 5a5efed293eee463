//! Exact reference geometry of two convex polygons with f64 corners, for checking the
//! narrow phase: whether they are apart, touching or overlapping, their exact squared
//! distance, and their exact intersection polygon, area and centroid.
//!
//! Every f64 is an integer times a power of two, so the corners of a pair are scaled by
//! one common power of two to big integers (exactly), and everything below is integer
//! arithmetic: orientations, the SAT classification, point-segment distances as
//! fractions, and the intersection by Sutherland-Hodgman clipping with each new corner in
//! homogeneous coordinates as the meet of two input edge lines (so its size stays bounded:
//! no corner is computed from a computed corner). Only the final sums (area, centroid,
//! distance) become rationals, rounded to f64 once at the end. Nothing here shares code
//! with the kernels it checks.
#![allow(dead_code)]

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{Signed, ToPrimitive, Zero};
use std::cmp::Ordering;

/// A point with integer coordinates (the pair's common scale).
#[derive(Clone, Debug, PartialEq)]
pub struct IPt {
    x: BigInt,
    y: BigInt,
}

fn sub(p: &IPt, q: &IPt) -> IPt {
    IPt {
        x: &p.x - &q.x,
        y: &p.y - &q.y,
    }
}

fn cross(p: &IPt, q: &IPt) -> BigInt {
    &p.x * &q.y - &p.y * &q.x
}

fn dot(p: &IPt, q: &IPt) -> BigInt {
    &p.x * &q.x + &p.y * &q.y
}

/// Twice the signed area of (p, q, r): positive when r is left of p -> q.
fn orient(p: &IPt, q: &IPt, r: &IPt) -> BigInt {
    cross(&sub(q, p), &sub(r, p))
}

/// How the two closed polygons lie.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// Disjoint: a positive gap.
    Apart,
    /// They meet but their interiors do not (gap 0, overlap area 0).
    Touching,
    /// Their interiors overlap (positive area).
    Overlapping,
}

/// A pair of convex polygons (counter-clockwise) in exact integer form.
pub struct ExactPair {
    a: Vec<IPt>,
    b: Vec<IPt>,
    /// Coordinates are the integers times 2^exp.
    exp: i32,
}

/// f64 as mantissa * 2^exponent (exact; 0 has mantissa 0).
fn decode(x: f64) -> (i64, i32) {
    assert!(x.is_finite(), "non-finite coordinate");
    if x == 0.0 {
        return (0, 0);
    }
    let bits = x.to_bits();
    let sign = if bits >> 63 == 0 { 1 } else { -1 };
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let man = if exp == 0 {
        (bits & 0xf_ffff_ffff_ffff) << 1
    } else {
        (bits & 0xf_ffff_ffff_ffff) | 0x10_0000_0000_0000
    };
    (sign * man as i64, exp - 1075)
}

/// 2^k as a rational (k may be negative).
fn pow2(k: i32) -> BigRational {
    let one = BigInt::from(1);
    if k >= 0 {
        BigRational::from_integer(one << k as usize)
    } else {
        BigRational::new(one.clone(), one << (-k) as usize)
    }
}

impl ExactPair {
    pub fn new(a: &[[f64; 2]], b: &[[f64; 2]]) -> Self {
        let all = a.iter().chain(b).flat_map(|p| [p[0], p[1]]);
        let exp = all.filter(|&x| x != 0.0).map(|x| decode(x).1).min().unwrap_or(0);
        let conv = |x: f64| {
            let (m, e) = decode(x);
            BigInt::from(m) << (e - exp) as usize
        };
        let pts = |v: &[[f64; 2]]| -> Vec<IPt> {
            v.iter()
                .map(|p| IPt {
                    x: conv(p[0]),
                    y: conv(p[1]),
                })
                .collect()
        };
        ExactPair {
            a: pts(a),
            b: pts(b),
            exp,
        }
    }

    /// Whether both polygons are strictly convex and counter-clockwise (exactly).
    pub fn both_strictly_convex(&self) -> bool {
        [&self.a, &self.b].iter().all(|v| {
            let n = v.len();
            n >= 3 && (0..n).all(|k| orient(&v[k], &v[(k + 1) % n], &v[(k + 2) % n]).is_positive())
        })
    }

    /// Separating-axis classification. For convex polygons the closed sets are disjoint
    /// exactly when an edge line of one has the other strictly outside; the interiors are
    /// disjoint exactly when an edge line has the other on or outside it.
    pub fn relation(&self) -> Relation {
        let mut weak = false;
        for (p, q) in [(&self.a, &self.b), (&self.b, &self.a)] {
            let n = p.len();
            for k in 0..n {
                let (s, t) = (&p[k], &p[(k + 1) % n]);
                // The largest orientation of q's corners: negative = all strictly outside.
                let max = q.iter().map(|r| orient(s, t, r)).max().unwrap();
                if max.is_negative() {
                    return Relation::Apart;
                }
                if max.is_zero() {
                    weak = true;
                }
            }
        }
        if weak {
            Relation::Touching
        } else {
            Relation::Overlapping
        }
    }

    /// Exact squared distance of the closed polygons (0 unless apart): the least squared
    /// distance of a corner of one to an edge of the other.
    pub fn squared_distance(&self) -> BigRational {
        if self.relation() != Relation::Apart {
            return BigRational::zero();
        }
        // Best as a fraction num / den (den > 0).
        let mut best: Option<(BigInt, BigInt)> = None;
        for (p, q) in [(&self.a, &self.b), (&self.b, &self.a)] {
            let m = q.len();
            for r in p.iter() {
                for k in 0..m {
                    let (s0, s1) = (&q[k], &q[(k + 1) % m]);
                    let e = sub(s1, s0);
                    let d = sub(r, s0);
                    let t = dot(&d, &e);
                    let ee = dot(&e, &e);
                    let cand = if !t.is_positive() {
                        (dot(&d, &d), BigInt::from(1))
                    } else if t >= ee {
                        let d1 = sub(r, s1);
                        (dot(&d1, &d1), BigInt::from(1))
                    } else {
                        let c = cross(&e, &d);
                        (&c * &c, ee)
                    };
                    best = match best {
                        Some(b) if &b.0 * &cand.1 <= &cand.0 * &b.1 => Some(b),
                        _ => Some(cand),
                    };
                }
            }
        }
        let (num, den) = best.unwrap();
        BigRational::new(num, den) * pow2(2 * self.exp)
    }

    /// The distance, rounded to f64 (the square root of the exact squared distance: the
    /// square is rounded once, the root adds half an ulp).
    pub fn distance(&self) -> f64 {
        self.squared_distance().to_f64().unwrap().sqrt()
    }

    /// The exact intersection polygon of the closed polygons (possibly degenerate), its
    /// exact area and centroid (None when the area is 0).
    pub fn intersection(&self) -> (BigRational, Option<[BigRational; 2]>) {
        // Lines by index: 0..na are a's edges, na.. are b's.
        let (na, nb) = (self.a.len(), self.b.len());
        let line = |l: usize| -> (IPt, IPt) {
            if l < na {
                (self.a[l].clone(), sub(&self.a[(l + 1) % na], &self.a[l]))
            } else {
                let k = l - na;
                (self.b[k].clone(), sub(&self.b[(k + 1) % nb], &self.b[k]))
            }
        };
        // A corner: homogeneous (x, y, w), w > 0, and the line its outgoing side lies on.
        #[derive(Clone)]
        struct H {
            x: BigInt,
            y: BigInt,
            w: BigInt,
            out: usize,
        }
        let meet = |l1: usize, l2: usize| -> H {
            let (p1, d1) = line(l1);
            let (p2, d2) = line(l2);
            let mut w = cross(&d1, &d2);
            let t = cross(&sub(&p2, &p1), &d2);
            let mut x = &p1.x * &w + &t * &d1.x;
            let mut y = &p1.y * &w + &t * &d1.y;
            assert!(!w.is_zero(), "meet of parallel lines");
            if w.is_negative() {
                (x, y, w) = (-x, -y, -w);
            }
            H { x, y, w, out: 0 }
        };
        let mut cur: Vec<H> = (0..na)
            .map(|k| H {
                x: self.a[k].x.clone(),
                y: self.a[k].y.clone(),
                w: BigInt::from(1),
                out: k,
            })
            .collect();
        for j in 0..nb {
            let (s, e) = line(na + j);
            let side = |h: &H| -> BigInt { &e.x * (&h.y - &h.w * &s.y) - &e.y * (&h.x - &h.w * &s.x) };
            let d: Vec<BigInt> = cur.iter().map(side).collect();
            let m = cur.len();
            let mut next = Vec::with_capacity(m + 2);
            for k in 0..m {
                let kn = (k + 1) % m;
                let (du, dv) = (&d[k], &d[kn]);
                if !du.is_negative() {
                    let mut h = cur[k].clone();
                    // On the line with the next corner outside: the boundary goes on along
                    // b's edge j from here.
                    if du.is_zero() && dv.is_negative() {
                        h.out = na + j;
                    }
                    next.push(h);
                }
                if (du.is_positive() && dv.is_negative()) || (du.is_negative() && dv.is_positive()) {
                    let mut h = meet(cur[k].out, na + j);
                    // Leaving b's half-plane, the boundary goes on along b's edge j;
                    // entering it, along the segment it was on.
                    h.out = if du.is_positive() { na + j } else { cur[k].out };
                    next.push(h);
                }
            }
            cur = next;
            if cur.len() < 3 {
                return (BigRational::zero(), None);
            }
        }
        // Shoelace in rationals.
        let m = cur.len();
        let pt = |h: &H| {
            [
                BigRational::new(h.x.clone(), h.w.clone()),
                BigRational::new(h.y.clone(), h.w.clone()),
            ]
        };
        let pts: Vec<[BigRational; 2]> = cur.iter().map(pt).collect();
        let mut a2 = BigRational::zero();
        let (mut cx, mut cy) = (BigRational::zero(), BigRational::zero());
        for k in 0..m {
            let (p, q) = (&pts[k], &pts[(k + 1) % m]);
            let c = &p[0] * &q[1] - &q[0] * &p[1];
            cx += &c * (&p[0] + &q[0]);
            cy += &c * (&p[1] + &q[1]);
            a2 += c;
        }
        if !a2.is_positive() {
            return (BigRational::zero(), None);
        }
        let area = &a2 / BigRational::from_integer(BigInt::from(2)) * pow2(2 * self.exp);
        let three_a2 = &a2 * BigRational::from_integer(BigInt::from(3));
        let s = pow2(self.exp);
        let c = [&cx / &three_a2 * &s, &cy / &three_a2 * &s];
        (area, Some(c))
    }

    /// The exact overlap area rounded to f64 and the centroid rounded to f64 (None when
    /// the area is 0).
    pub fn overlap(&self) -> (f64, Option<[f64; 2]>) {
        let (a, c) = self.intersection();
        (
            a.to_f64().unwrap(),
            c.map(|c| [c[0].to_f64().unwrap(), c[1].to_f64().unwrap()]),
        )
    }
}

/// Compare two rationals (for tests of the reference itself).
pub fn cmp(a: &BigRational, b: &BigRational) -> Ordering {
    a.cmp(b)
}
