//! Exact floating-point expansion arithmetic (Shewchuk 1997, "Adaptive precision
//! floating-point arithmetic and fast robust geometric predicates", sections 2.2-2.8).
//!
//! An expansion is a sum of f64 components, nonoverlapping and in increasing magnitude, that
//! represents a number exactly; sums and products of expansions are exact (no division).
//! The sign of an expansion is the sign of its largest component. Used where the f64 fast
//! paths cannot vouch for their result: the sign of the predicates in [`super::predicates`]
//! and the exact overlap in [`super::exact_overlap`]. Round-to-nearest f64 arithmetic (what
//! Rust guarantees) is all it needs; no fused multiply-add is assumed.

/// 2^-53, half a unit in the last place of 1.
pub(crate) const EPS: f64 = f64::EPSILON * 0.5;
/// 2^27 + 1: splits a 53-bit mantissa into two halves of at most 26 bits (Dekker).
const SPLITTER: f64 = 134_217_729.0;

/// a + b = x + y exactly, x = fl(a + b) (Knuth's two-sum, Shewchuk Thm 7).
#[inline(always)]
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let x = a + b;
    let bv = x - a;
    let av = x - bv;
    (x, (a - av) + (b - bv))
}

/// a - b = x + y exactly, x = fl(a - b).
#[inline(always)]
pub(crate) fn two_diff(a: f64, b: f64) -> (f64, f64) {
    let x = a - b;
    let bv = a - x;
    let av = x + bv;
    (x, (a - av) + (bv - b))
}

/// a + b = x + y exactly when |a| >= |b| (Dekker's fast two-sum).
#[inline(always)]
fn fast_two_sum(a: f64, b: f64) -> (f64, f64) {
    let x = a + b;
    (x, b - (x - a))
}

#[inline(always)]
fn split(a: f64) -> (f64, f64) {
    let c = SPLITTER * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// a * b = x + y exactly, x = fl(a b) (Dekker's product, Shewchuk Thm 18).
#[inline(always)]
pub(crate) fn two_product(a: f64, b: f64) -> (f64, f64) {
    let x = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    let err = x - ah * bh - al * bh - ah * bl;
    (x, al * bl - err)
}

/// Adds `b` to the expansion `e[..n]` in place (Grow-Expansion with zero elimination,
/// Shewchuk Fig. 6); `e` must have room for one more component. Returns the new length.
#[inline]
pub(crate) fn grow(e: &mut [f64], n: usize, b: f64) -> usize {
    let mut q = b;
    let mut m = 0;
    for k in 0..n {
        let (s, h) = two_sum(q, e[k]);
        q = s;
        if h != 0.0 {
            e[m] = h;
            m += 1;
        }
    }
    if q != 0.0 || m == 0 {
        e[m] = q;
        m += 1;
    }
    m
}

/// The value of an expansion to about one rounding (its components summed from the
/// smallest): same sign, relative error below 2^-52.
#[inline]
pub(crate) fn estimate(e: &[f64]) -> f64 {
    e.iter().sum()
}

/// An exact number as an expansion (heap-allocated: for the rare exact paths).
#[derive(Clone, Debug, PartialEq)]
pub struct Expansion(Vec<f64>);

impl Expansion {
    /// `x` as a one-component expansion.
    pub fn from_f64(x: f64) -> Self {
        Expansion(vec![x])
    }

    /// a - b exactly.
    pub fn diff(a: f64, b: f64) -> Self {
        let (x, y) = two_diff(a, b);
        Expansion(if y == 0.0 { vec![x] } else { vec![y, x] })
    }

    /// Whether the number is 0 (every component 0).
    pub fn is_zero(&self) -> bool {
        self.0.iter().all(|&c| c == 0.0)
    }

    /// -1, 0 or 1.
    pub fn sign(&self) -> i32 {
        match self.0.iter().rev().find(|&&c| c != 0.0) {
            Some(&c) if c > 0.0 => 1,
            Some(_) => -1,
            None => 0,
        }
    }

    /// The components summed in order, and a bound on that sum's error: recursive summation
    /// of n terms errs by at most (n - 1) eps / (1 - (n - 1) eps) times the sum of their
    /// magnitudes (Higham 2002, section 4.2); n eps times that sum as computed covers it (its
    /// own rounding included) for any n below 10^7.
    pub fn estimate_bounded(&self) -> (f64, f64) {
        let (s, a) = self
            .0
            .iter()
            .fold((0.0, 0.0), |(s, a): (f64, f64), &c| (s + c, a + c.abs()));
        (s, self.0.len() as f64 * EPS * a)
    }

    /// The value to about one rounding, with the right sign.
    pub fn estimate(&self) -> f64 {
        estimate(&self.0)
    }

    /// -self exactly.
    pub fn neg(&self) -> Self {
        Expansion(self.0.iter().map(|c| -c).collect())
    }

    /// self + o exactly.
    pub fn add(&self, o: &Expansion) -> Self {
        let (long, short) = if self.0.len() >= o.0.len() {
            (self, o)
        } else {
            (o, self)
        };
        let mut e = long.0.clone();
        e.resize(long.0.len() + short.0.len(), 0.0);
        let mut n = long.0.len();
        for &c in &short.0 {
            n = grow(&mut e, n, c);
        }
        e.truncate(n);
        Expansion(e).compress()
    }

    /// self - o exactly.
    pub fn sub(&self, o: &Expansion) -> Self {
        self.add(&o.neg())
    }

    /// self * b exactly (Scale-Expansion with zero elimination, Shewchuk Fig. 7).
    pub fn scale(&self, b: f64) -> Self {
        let e = &self.0;
        let mut h = Vec::with_capacity(2 * e.len());
        let (mut q, hh) = two_product(e[0], b);
        if hh != 0.0 {
            h.push(hh);
        }
        for &c in &e[1..] {
            let (t1, t0) = two_product(c, b);
            let (sum, hh) = two_sum(q, t0);
            if hh != 0.0 {
                h.push(hh);
            }
            let (s, hh) = fast_two_sum(t1, sum);
            q = s;
            if hh != 0.0 {
                h.push(hh);
            }
        }
        if q != 0.0 || h.is_empty() {
            h.push(q);
        }
        Expansion(h)
    }

    /// self * o exactly: the sum of self scaled by each component of o.
    pub fn mul(&self, o: &Expansion) -> Self {
        let mut acc = self.scale(o.0[0]);
        for &c in &o.0[1..] {
            acc = acc.add(&self.scale(c));
        }
        acc
    }

    /// The same number in fewer components (Compress, Shewchuk Fig. 15).
    fn compress(self) -> Self {
        let e = self.0;
        let n = e.len();
        if n <= 1 {
            return Expansion(e);
        }
        let mut g = vec![0.0; n];
        let mut q = e[n - 1];
        let mut bottom = n - 1;
        for k in (0..n - 1).rev() {
            let (s, small) = fast_two_sum(q, e[k]);
            q = s;
            if small != 0.0 {
                g[bottom] = q;
                bottom -= 1;
                q = small;
            }
        }
        g[bottom] = q;
        let mut h = Vec::with_capacity(n - bottom);
        let mut q = g[bottom];
        for &c in &g[bottom + 1..] {
            let (s, small) = fast_two_sum(c, q);
            q = s;
            if small != 0.0 {
                h.push(small);
            }
        }
        if q != 0.0 || h.is_empty() {
            h.push(q);
        }
        Expansion(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_sums_and_products() {
        // (1 + 2^-60)^2 = 1 + 2^-59 + 2^-120: three components, exactly.
        let t = 2f64.powi(-60);
        let a = Expansion::from_f64(1.0).add(&Expansion::from_f64(t));
        let sq = a.mul(&a);
        assert_eq!(sq.0, vec![t * t, 2.0 * t, 1.0]);
        assert_eq!(sq.sub(&sq).sign(), 0);
        // 0.1 + 0.2 - 0.3 is not 0 in binary, and its sign is found.
        let s = Expansion::from_f64(0.1)
            .add(&Expansion::from_f64(0.2))
            .sub(&Expansion::from_f64(0.3));
        assert_eq!(s.sign(), 1);
        assert_eq!(Expansion::diff(1.0, 1e-30).sign(), 1);
        assert_eq!(Expansion::diff(1e-30, 1.0).estimate(), -1.0);
        let p = Expansion::diff(3.0, 1e-20).scale(-2.0);
        assert_eq!(p.0, vec![2e-20, -6.0]);
    }
}
