//! Robust sign predicates on f64 points, after Shewchuk (1997): an f64 evaluation with a
//! forward error bound (his `ccwerrboundA`), and only where the bound cannot vouch for the
//! sign, an exact evaluation in expansion arithmetic. Every predicate here is one form,
//! `(x1 - x0)(y1 - y0) - (u1 - u0)(v1 - v0)` of eight inputs: the orientation of three
//! points, the cross product and the dot product of two difference vectors. The value
//! returned has the exact sign (0 exactly when the exact value is 0); its size is the f64
//! evaluation's (absolute error at most the bound) or, past the filter, the exact value
//! rounded (relative error below 2^-52).
use super::expansion::{estimate, grow, two_diff, two_product, EPS};

/// Shewchuk's ccwerrboundA: |computed - exact| <= ERR_A (|left| + |right|) for the form above.
pub(crate) const ERR_A: f64 = (3.0 + 16.0 * EPS) * EPS;

/// (x1 - x0)(y1 - y0) - (u1 - u0)(v1 - v0), its sign exact.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn det_of_differences(x0: f64, x1: f64, y0: f64, y1: f64, u0: f64, u1: f64, v0: f64, v1: f64) -> f64 {
    let l = (x1 - x0) * (y1 - y0);
    let r = (u1 - u0) * (v1 - v0);
    let det = l - r;
    let bound = ERR_A * (l.abs() + r.abs());
    // Also exact 0 when both products are 0 (both have a zero factor: the differences of
    // f64 are 0 only for equal inputs).
    if det.abs() > bound || (l == 0.0 && r == 0.0) {
        det
    } else {
        det_exact(x0, x1, y0, y1, u0, u1, v0, v1)
    }
}

/// [`det_of_differences`] to a relative error below 4 eps = 2^-51: the f64 value where its
/// bound allows that, else the compensated value where the differences are exact and its
/// bound allows it, else the exact value rounded.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn det_of_differences_accurate(x0: f64, x1: f64, y0: f64, y1: f64, u0: f64, u1: f64, v0: f64, v1: f64) -> f64 {
    let l = (x1 - x0) * (y1 - y0);
    let r = (u1 - u0) * (v1 - v0);
    let det = l - r;
    if ERR_A * (l.abs() + r.abs()) <= 4.0 * EPS * det.abs() || (l == 0.0 && r == 0.0) {
        det
    } else {
        det_compensated(x0, x1, y0, y1, u0, u1, v0, v1).unwrap_or_else(|| det_exact(x0, x1, y0, y1, u0, u1, v0, v1))
    }
}

/// The form to a relative error below 4 eps where its four differences are exact in f64
/// (inputs within a factor 2 of each other, Sterbenz's lemma: nearby corners away from the
/// origin), or None. The products are split exactly (two-product) and the four parts
/// summed in f64 with one exact two-diff: a few tens of operations where the expansion of
/// [`det_exact`] takes hundreds, for the cancelling orientations of shallow contacts.
#[inline]
#[allow(clippy::too_many_arguments)]
fn det_compensated(x0: f64, x1: f64, y0: f64, y1: f64, u0: f64, u1: f64, v0: f64, v1: f64) -> Option<f64> {
    let ((x, xt), (y, yt)) = (two_diff(x1, x0), two_diff(y1, y0));
    let ((u, ut), (v, vt)) = (two_diff(u1, u0), two_diff(v1, v0));
    if xt != 0.0 || yt != 0.0 || ut != 0.0 || vt != 0.0 {
        return None;
    }
    let ((lh, ll), (rh, rl)) = (two_product(x, y), two_product(u, v));
    // det = sh + sl + (ll - rl) exactly. Rounding: t within eps |t| (1 + 2 eps) of ll - rl,
    // w within eps |w| of sl + t, res within eps |res| of sh + w; the sum of those is at
    // most 4 eps |res| when |w| + 2 |t| <= 2.9 |res| (which holds unless the cancellation
    // is nearly total, and gives 0 only for an exact 0).
    let (sh, sl) = two_diff(lh, rh);
    let t = ll - rl;
    let w = sl + t;
    let res = sh + w;
    (w.abs() + 2.0 * t.abs() <= 2.9 * res.abs()).then_some(res)
}

/// [`orient`] to a relative error below 2^-51.
#[inline]
pub fn orient_accurate(p: [f64; 2], q: [f64; 2], r: [f64; 2]) -> f64 {
    det_of_differences_accurate(p[0], q[0], p[1], r[1], p[1], q[1], p[0], r[0])
}

/// The exact value of the form, rounded: each difference split exactly into two f64
/// (two-diff), each product of two such into eight (two-product), summed exactly.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn det_exact(x0: f64, x1: f64, y0: f64, y1: f64, u0: f64, u1: f64, v0: f64, v1: f64) -> f64 {
    let (x, y) = (two_diff(x1, x0), two_diff(y1, y0));
    let (u, v) = (two_diff(u1, u0), two_diff(v1, v0));
    let mut e = [0.0; 17];
    let mut n = 0;
    for (p, q, s) in [(x, y, 1.0), (u, v, -1.0)] {
        for a in [p.0, p.1] {
            for b in [q.0, q.1] {
                let (h, l) = two_product(a, s * b);
                n = grow(&mut e, n, l);
                n = grow(&mut e, n, h);
            }
        }
    }
    estimate(&e[..n])
}

/// Twice the signed area of (p, q, r): positive when r is left of the line p -> q.
#[inline(always)]
pub fn orient(p: [f64; 2], q: [f64; 2], r: [f64; 2]) -> f64 {
    det_of_differences(p[0], q[0], p[1], r[1], p[1], q[1], p[0], r[0])
}

/// cross(b - a, d - c): positive when d - c turns left from b - a.
#[inline(always)]
pub fn cross_of_differences(a: [f64; 2], b: [f64; 2], c: [f64; 2], d: [f64; 2]) -> f64 {
    det_of_differences(a[0], b[0], c[1], d[1], a[1], b[1], c[0], d[0])
}

/// dot(b - a, d - c).
#[inline(always)]
pub fn dot_of_differences(a: [f64; 2], b: [f64; 2], c: [f64; 2], d: [f64; 2]) -> f64 {
    det_of_differences(a[0], b[0], c[0], d[0], b[1], a[1], c[1], d[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compensated tier against the exact value: within 4 eps relative wherever it
    /// answers, on orientations of points nudged off a line (every degree of cancellation).
    #[test]
    fn compensated_orientations_are_accurate() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed >> 12;
            seed ^= seed << 25;
            seed ^= seed >> 27;
            (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
        };
        let (mut answered, mut cases) = (0, 0);
        for _ in 0..20_000 {
            let base = [0.05 + 0.05 * next(), 0.05 + 0.05 * next()];
            let (p, q) = (base, [base[0] + 1e-3 * next(), base[1] + 1e-3 * next()]);
            // r on the line p q, then nudged by 10^-k of the size.
            let s = 0.2 + next();
            let k = (next() * 17.0) as i32;
            let r = [
                p[0] + s * (q[0] - p[0]) + 1e-3 * 10f64.powi(-k) * (next() - 0.5),
                p[1] + s * (q[1] - p[1]) + 1e-3 * 10f64.powi(-k) * (next() - 0.5),
            ];
            let args = (p[0], q[0], p[1], r[1], p[1], q[1], p[0], r[0]);
            let exact = det_exact(args.0, args.1, args.2, args.3, args.4, args.5, args.6, args.7);
            cases += 1;
            if let Some(c) = det_compensated(args.0, args.1, args.2, args.3, args.4, args.5, args.6, args.7) {
                answered += 1;
                assert!(
                    (c - exact).abs() <= 4.0 * EPS * exact.abs(),
                    "{c} against {exact} at 1e-{k}"
                );
            }
            let a = orient_accurate(p, q, r);
            assert!((a - exact).abs() <= 4.0 * EPS * exact.abs(), "{a} against {exact}");
        }
        assert!(answered > cases * 9 / 10, "answered {answered} of {cases}");
    }

    #[test]
    fn signs_past_the_filter() {
        // Points on the line y = x, nudged by one unit in the last place: f64 evaluation of
        // the orientation is all rounding here.
        let p = [0.5, 0.5];
        let q = [12.0, 12.0];
        let on = [24.0, 24.0];
        assert_eq!(orient(p, q, on), 0.0);
        let above = [24.0, f64::from_bits(24f64.to_bits() + 1)];
        let below = [24.0, f64::from_bits(24f64.to_bits() - 1)];
        assert!(orient(p, q, above) > 0.0 && orient(p, q, below) < 0.0);
        // A classic of Shewchuk's paper: a point near a long line far from the origin.
        let a = [1e8 + 0.5, 1e8 + 0.5];
        let b = [1e8 + 12.0, 1e8 + 12.0];
        for k in -20i64..=20 {
            let c = [
                1e8 + 24.0,
                f64::from_bits((1e8f64 + 24.0).to_bits().wrapping_add_signed(k)),
            ];
            let o = orient(a, b, c);
            assert_eq!((o > 0.0) as i64 - (o < 0.0) as i64, k.signum(), "{k}");
        }
        // cross and dot of differences: parallel and perpendicular up to one unit.
        let (s, t) = ([0.1, 0.2], [0.7, 1.4]);
        assert_eq!(cross_of_differences(s, t, s, t), 0.0);
        let t2 = [0.7, f64::from_bits(1.4f64.to_bits() + 1)];
        assert!(cross_of_differences(s, t, s, t2) > 0.0 && cross_of_differences(s, t2, s, t) < 0.0);
        assert_eq!(dot_of_differences([0.0, 0.0], [3.0, 1.0], [0.0, 0.0], [-1.0, 3.0]), 0.0);
        assert!(
            dot_of_differences(
                [0.0, 0.0],
                [3.0, 1.0],
                [0.0, 0.0],
                [-1.0, f64::from_bits(3f64.to_bits() + 1)]
            ) > 0.0
        );
    }
}
