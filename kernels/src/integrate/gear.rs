//! Gear's 6-value predictor-corrector for second-order equations (Gear 1971; Allen &
//! Tildesley, Computer Simulation of Liquids, sec. 3.2), the integrator of the DEM
//! literature talus follows (Schinner; Chen & Matuttis).
//!
//! Each degree of freedom carries x and its first five time derivatives (v, a, b, c, d).
//! Predict: Taylor expansion. Correct: with the acceleration of the new forces,
//! delta = (a_new - a_pred) dt^2/2 is fed back into the scaled derivatives r_k =
//! dt^k/k! x^(k) with the coefficients below. c0 = 3/20 (not 3/16) because the
//! dashpots make the force depend on velocity.
use crate::vector_build::vectorized;

const C: [f64; 6] = [3.0 / 20.0, 251.0 / 360.0, 1.0, 11.0 / 18.0, 1.0 / 6.0, 1.0 / 60.0];

#[inline(always)]
fn flush(v: f64) -> f64 {
    if v.abs() < f64::MIN_POSITIVE {
        0.0
    } else {
        v
    }
}

/// One degree of freedom of a range of particles: value and five derivatives.
pub struct Derivatives<'a> {
    /// The value (a position, the 2D angle); None for a rate integrated without one: a
    /// sphere's orientation is not state, so in 3D the rotational degrees of freedom start
    /// at the angular velocity. The value feeds back into no derivative, so the rates are
    /// the same with it or without.
    pub x: Option<&'a mut [f64]>,
    /// First time derivative (velocity, angular velocity).
    pub v: &'a mut [f64],
    /// Second derivative (acceleration).
    pub a: &'a mut [f64],
    /// Third derivative.
    pub b: &'a mut [f64],
    /// Fourth derivative.
    pub c: &'a mut [f64],
    /// Fifth derivative.
    pub d: &'a mut [f64],
}

/// Predictor: advance all six values by a Taylor step of `dt`.
pub fn predict(g: &mut Derivatives, dt: f64) {
    // One loop with the value and one without, the test on `X` resolved at compile time.
    vectorized(
        #[inline(always)]
        || match g.x {
            Some(_) => predict_impl::<true>(g, dt),
            None => predict_impl::<false>(g, dt),
        },
    )
}

#[inline(always)]
fn predict_impl<const X: bool>(g: &mut Derivatives, dt: f64) {
    let n = g.v.len();
    let x = g.x.as_deref_mut().map_or(&mut [][..], |x| &mut x[..n]);
    let (v, a) = (&mut g.v[..n], &mut g.a[..n]);
    let (b, c, d) = (&mut g.b[..n], &mut g.c[..n], &mut g.d[..n]);
    let (t1, t2, t3, t4, t5) = (
        dt,
        dt * dt / 2.0,
        dt.powi(3) / 6.0,
        dt.powi(4) / 24.0,
        dt.powi(5) / 120.0,
    );
    for p in 0..n {
        if X {
            x[p] += t1 * v[p] + t2 * a[p] + t3 * b[p] + t4 * c[p] + t5 * d[p];
        }
        v[p] += t1 * a[p] + t2 * b[p] + t3 * c[p] + t4 * d[p];
        a[p] += t1 * b[p] + t2 * c[p] + t3 * d[p];
        b[p] += t1 * c[p] + t2 * d[p];
        c[p] += t1 * d[p];
    }
}

/// Corrector: `force * inv_mass` (+ `gravity` for bodies of finite mass) is the
/// acceleration at the predicted state.
pub fn correct(g: &mut Derivatives, force: &[f64], inv_mass: &[f64], gravity: f64, dt: f64) {
    vectorized(
        #[inline(always)]
        || match g.x {
            Some(_) => correct_impl::<true>(g, force, inv_mass, gravity, dt),
            None => correct_impl::<false>(g, force, inv_mass, gravity, dt),
        },
    )
}

#[inline(always)]
fn correct_impl<const X: bool>(g: &mut Derivatives, force: &[f64], inv_mass: &[f64], gravity: f64, dt: f64) {
    let n = g.v.len();
    let x = g.x.as_deref_mut().map_or(&mut [][..], |x| &mut x[..n]);
    let (v, a) = (&mut g.v[..n], &mut g.a[..n]);
    let (b, c, d) = (&mut g.b[..n], &mut g.c[..n], &mut g.d[..n]);
    let (f, im) = (&force[..n], &inv_mass[..n]);
    // r_k += C_k * delta with delta = da dt^2/2, written for the unscaled derivatives.
    let kx = C[0] * dt * dt / 2.0;
    let kv = C[1] * dt / 2.0;
    let kb = C[3] * 3.0 / dt;
    let kc = C[4] * 12.0 / (dt * dt);
    let kd = C[5] * 60.0 / (dt * dt * dt);
    for p in 0..n {
        let da = f[p] * im[p] + if im[p] > 0.0 { gravity } else { 0.0 } - a[p];
        if X {
            x[p] += kx * da;
        }
        v[p] += kv * da;
        a[p] += C[2] * da;
        // After a contact ends the higher derivatives decay towards zero and would settle
        // in subnormal numbers, which the FPU handles some 50x slower: flush them to zero.
        b[p] = flush(b[p] + kb * da);
        c[p] = flush(c[p] + kc * da);
        d[p] = flush(d[p] + kd * da);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harmonic_oscillator_phase_and_energy() {
        let (k, dt) = (1.0, 0.01);
        let (mut x, mut v, mut a) = (vec![1.0], vec![0.0], vec![-k]);
        let (mut b, mut c, mut d) = (vec![0.0], vec![k], vec![0.0]);
        let steps = 10_000;
        for _ in 0..steps {
            let mut g = Derivatives {
                x: Some(&mut x),
                v: &mut v,
                a: &mut a,
                b: &mut b,
                c: &mut c,
                d: &mut d,
            };
            predict(&mut g, dt);
            let f = [-k * g.x.as_deref().unwrap()[0]];
            correct(&mut g, &f, &[1.0], 0.0, dt);
        }
        let t = steps as f64 * dt;
        assert!((x[0] - t.cos()).abs() < 1e-6, "{} vs {}", x[0], t.cos());
        assert!((v[0] + t.sin()).abs() < 1e-6);
    }

    /// A free body: the derivatives decay to exactly zero, never to subnormal numbers.
    #[test]
    fn no_subnormal_derivatives() {
        let dt = 1e-6;
        let (mut x, mut v, mut a) = (vec![0.0], vec![1.0], vec![-3.0]);
        let (mut b, mut c, mut d) = (vec![1e3], vec![1e7], vec![1e11]);
        for _ in 0..100_000 {
            let mut g = Derivatives {
                x: Some(&mut x),
                v: &mut v,
                a: &mut a,
                b: &mut b,
                c: &mut c,
                d: &mut d,
            };
            predict(&mut g, dt);
            correct(&mut g, &[0.0], &[1.0], 0.0, dt);
        }
        for w in [a[0], b[0], c[0], d[0]] {
            assert!(w == 0.0 || w.abs() >= f64::MIN_POSITIVE, "{w:e} is subnormal");
        }
    }

    /// Without its value a degree of freedom's rates are bitwise those with it (a 3D
    /// sphere's spin), under a load that depends on the rate (a dashpot).
    #[test]
    fn rates_without_the_value_are_the_same() {
        let dt = 1e-3;
        let run = |with_value: bool| {
            let (mut x, mut v, mut a) = (vec![0.0, 1.0], vec![1.0, -2.0], vec![-0.5, 0.0]);
            let (mut b, mut c, mut d) = (vec![0.0; 2], vec![0.0; 2], vec![0.0; 2]);
            for k in 0..1000 {
                let mut g = Derivatives {
                    x: with_value.then_some(&mut x[..]),
                    v: &mut v,
                    a: &mut a,
                    b: &mut b,
                    c: &mut c,
                    d: &mut d,
                };
                predict(&mut g, dt);
                let f: Vec<f64> = g.v.iter().map(|v| -3.0 * v + (k % 7) as f64).collect();
                correct(&mut g, &f, &[0.5, 2.0], -9.81, dt);
            }
            (x, [v, a, b, c, d])
        };
        let ((x, with), (x0, without)) = (run(true), run(false));
        assert_eq!(x0, [0.0, 1.0], "no value moved");
        assert_ne!(x, x0);
        for (p, q) in with.iter().zip(&without) {
            assert!(
                p.iter().zip(q).all(|(s, t)| s.to_bits() == t.to_bits()),
                "{p:?} vs {q:?}"
            );
        }
    }
}
