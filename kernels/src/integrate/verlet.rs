//! Velocity Verlet (kick-drift-kick), as LAMMPS `fix nve/sphere`: forces of the new
//! positions are computed with the half-step velocities, which the dashpots see.

use super::position_check::{left_box, outside_domain};
pub use super::position_check::{Check, CheckResult};
use crate::vector_build::vectorized;

/// Positions, angles and their velocities of a range of particles (the state velocity
/// Verlet advances; not Verlet neighbour lists, which are `neighbor::verlet`).
pub struct Kinematics<'a> {
    pub x: &'a mut [f64],
    pub y: &'a mut [f64],
    pub angle: &'a mut [f64],
    pub vx: &'a mut [f64],
    pub vy: &'a mut [f64],
    pub omega: &'a mut [f64],
}

/// Forces and torques of a range of particles.
pub struct Loads<'a> {
    pub fx: &'a mut [f64],
    pub fy: &'a mut [f64],
    pub torque: &'a mut [f64],
}

/// Inverse masses of a range of particles; infinite mass (fixed or driven) has inverse
/// zero. Loads hold the contact forces only: gravity is applied as an acceleration to the
/// bodies of finite mass, so no mass array is read (or stored) for it.
pub struct Inertia<'a> {
    pub inv_mass: &'a [f64],
    pub inv_inertia: &'a [f64],
}

/// Acceleration of particle `p`: F/m, plus gravity if its mass is finite.
#[inline(always)]
fn accel(f: f64, im: f64, g: f64) -> f64 {
    f * im + if im > 0.0 { g } else { 0.0 }
}

/// First half kick and drift: v += dt/2 a, x += dt v. Then the loads are reset to zero,
/// ready for the force phase (fused here to read and write them once).
pub fn kick_drift(d: &mut Kinematics, l: &mut Loads, m: &Inertia, dt: f64, g: [f64; 2]) {
    let h = 0.5 * dt;
    let n = d.x.len();
    let (x, y, a) = (&mut d.x[..n], &mut d.y[..n], &mut d.angle[..n]);
    let (vx, vy, w) = (&mut d.vx[..n], &mut d.vy[..n], &mut d.omega[..n]);
    let (fx, fy, t) = (&mut l.fx[..n], &mut l.fy[..n], &mut l.torque[..n]);
    let (im, ii) = (&m.inv_mass[..n], &m.inv_inertia[..n]);
    for p in 0..n {
        vx[p] += h * accel(fx[p], im[p], g[0]);
        vy[p] += h * accel(fy[p], im[p], g[1]);
        w[p] += h * (t[p] * ii[p]);
        x[p] += dt * vx[p];
        y[p] += dt * vy[p];
        a[p] += dt * w[p];
        fx[p] = 0.0;
        fy[p] = 0.0;
        t[p] = 0.0;
    }
}

/// The whole particle pass of a step in one sweep over the arrays: (if `pending`) the
/// second half kick of the previous step, the first half kick of this one, the drift,
/// the reset of the loads to gravity, and the check of the new positions.
///
/// The two half kicks are applied as two additions, `(v + h a) + h a`, not `v + dt a`,
/// so the result is bitwise the same as calling [`kick`] and then [`kick_drift`]: how
/// steps are batched (between outputs, say) never changes a trajectory.
///
/// `reset_loads = false` leaves the loads alone, for callers that overwrite them anyway
/// (the parallel reductions assign every load): 24 bytes per particle less written.
#[allow(clippy::too_many_arguments)]
pub fn kick_drift_check(
    d: &mut Kinematics,
    l: &mut Loads,
    m: &Inertia,
    dt: f64,
    g: [f64; 2],
    pending: bool,
    reset_loads: bool,
    c: &Check,
) -> CheckResult {
    vectorized(
        #[inline(always)]
        || match (pending, reset_loads) {
            (true, true) => kick_drift_check_impl::<true, true>(d, l, m, dt, g, c),
            (false, true) => kick_drift_check_impl::<false, true>(d, l, m, dt, g, c),
            (true, false) => kick_drift_check_impl::<true, false>(d, l, m, dt, g, c),
            (false, false) => kick_drift_check_impl::<false, false>(d, l, m, dt, g, c),
        },
    )
}

#[inline(always)]
fn kick_drift_check_impl<const PENDING: bool, const RESET: bool>(
    d: &mut Kinematics,
    l: &mut Loads,
    m: &Inertia,
    dt: f64,
    g: [f64; 2],
    c: &Check,
) -> CheckResult {
    let h = 0.5 * dt;
    let n = d.x.len();
    let (x, y, a) = (&mut d.x[..n], &mut d.y[..n], &mut d.angle[..n]);
    let (vx, vy, w) = (&mut d.vx[..n], &mut d.vy[..n], &mut d.omega[..n]);
    let (fx, fy, t) = (&mut l.fx[..n], &mut l.fy[..n], &mut l.torque[..n]);
    let (im, ii) = (&m.inv_mass[..n], &m.inv_inertia[..n]);
    let (r, bx) = (&c.radius[..n], &c.boxes[..n]);
    let (lo, hi) = (c.domain_min, c.domain_max);
    let mut left = false;
    let mut outside = false;
    for p in 0..n {
        let (ax, ay, aw) = (accel(fx[p], im[p], g[0]), accel(fy[p], im[p], g[1]), t[p] * ii[p]);
        let (mut ux, mut uy, mut uw) = (vx[p], vy[p], w[p]);
        if PENDING {
            ux += h * ax;
            uy += h * ay;
            uw += h * aw;
        }
        ux += h * ax;
        uy += h * ay;
        uw += h * aw;
        vx[p] = ux;
        vy[p] = uy;
        w[p] = uw;
        let (px, py) = (x[p] + dt * ux, y[p] + dt * uy);
        x[p] = px;
        y[p] = py;
        a[p] += dt * uw;
        if RESET {
            fx[p] = 0.0;
            fy[p] = 0.0;
            t[p] = 0.0;
        }
        left |= left_box(px, py, r[p], &bx[p]);
        outside |= outside_domain(px, py, lo, hi);
    }
    CheckResult {
        left_box: left,
        outside,
    }
}

/// Second half kick: v += dt/2 a.
pub fn kick(d: &mut Kinematics, l: &Loads, m: &Inertia, dt: f64, g: [f64; 2]) {
    vectorized(
        #[inline(always)]
        || kick_impl(d, l, m, dt, g),
    )
}

#[inline(always)]
fn kick_impl(d: &mut Kinematics, l: &Loads, m: &Inertia, dt: f64, g: [f64; 2]) {
    let h = 0.5 * dt;
    let n = d.vx.len();
    let (vx, vy, w) = (&mut d.vx[..n], &mut d.vy[..n], &mut d.omega[..n]);
    let (fx, fy, t) = (&l.fx[..n], &l.fy[..n], &l.torque[..n]);
    let (im, ii) = (&m.inv_mass[..n], &m.inv_inertia[..n]);
    for p in 0..n {
        vx[p] += h * accel(fx[p], im[p], g[0]);
        vy[p] += h * accel(fy[p], im[p], g[1]);
        w[p] += h * (t[p] * ii[p]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fused pass gives bitwise the same state as kick followed by kick_drift.
    #[test]
    fn fused_pass_is_bitwise_kick_then_kick_drift() {
        let n = 1000;
        // Values with all mantissa bits in use, so that any change in the order of the
        // operations changes some result.
        let mk = |s: f64| -> Vec<f64> { (0..n).map(|k| ((k as f64 + 1.7) * 0.618).sin() * s).collect() };
        let (mut x1, mut y1, mut a1, mut vx1, mut vy1, mut w1) =
            (mk(0.3), mk(0.7), mk(0.1), mk(1.3), mk(-0.9), mk(0.2));
        let (mut fx1, mut fy1, mut t1) = (mk(3.1), mk(-2.7), mk(0.37));
        let (mut x2, mut y2, mut a2, mut vx2, mut vy2, mut w2) =
            (x1.clone(), y1.clone(), a1.clone(), vx1.clone(), vy1.clone(), w1.clone());
        let (mut fx2, mut fy2, mut t2) = (fx1.clone(), fy1.clone(), t1.clone());
        let (im, ii) = (mk(1.0 / 1.7), mk(2.3));
        let m = Inertia {
            inv_mass: &im,
            inv_inertia: &ii,
        };
        let boxes = vec![[-1e9f32, 1e9, -1e9, 1e9]; n];
        let r = mk(0.01);
        let c = Check {
            radius: &r,
            boxes: &boxes,
            domain_min: [-1e9; 2],
            domain_max: [1e9; 2],
        };
        let (dt, g) = (1e-3, [0.0, -9.81]);
        {
            let mut d = Kinematics {
                x: &mut x1,
                y: &mut y1,
                angle: &mut a1,
                vx: &mut vx1,
                vy: &mut vy1,
                omega: &mut w1,
            };
            let mut l = Loads {
                fx: &mut fx1,
                fy: &mut fy1,
                torque: &mut t1,
            };
            kick(&mut d, &l, &m, dt, g);
            kick_drift(&mut d, &mut l, &m, dt, g);
        }
        let res = {
            let mut d = Kinematics {
                x: &mut x2,
                y: &mut y2,
                angle: &mut a2,
                vx: &mut vx2,
                vy: &mut vy2,
                omega: &mut w2,
            };
            let mut l = Loads {
                fx: &mut fx2,
                fy: &mut fy2,
                torque: &mut t2,
            };
            kick_drift_check(&mut d, &mut l, &m, dt, g, true, true, &c)
        };
        assert_eq!(res, CheckResult::default());
        for (u, v) in [
            (&x1, &x2),
            (&y1, &y2),
            (&a1, &a2),
            (&vx1, &vx2),
            (&vy1, &vy2),
            (&w1, &w2),
            (&fx1, &fx2),
            (&fy1, &fy2),
            (&t1, &t2),
        ] {
            assert!(u.iter().zip(v.iter()).all(|(a, b)| a.to_bits() == b.to_bits()));
        }
    }

    /// A harmonic oscillator conserves its energy to O(dt^2) with no drift.
    #[test]
    fn harmonic_oscillator() {
        let (k, mass, dt) = (4.0, 1.0, 0.01);
        let (mut x, mut y, mut a) = (vec![1.0], vec![0.0], vec![0.0]);
        let (mut vx, mut vy, mut w) = (vec![0.0], vec![0.0], vec![0.0]);
        let (mut fx, mut fy, mut t) = (vec![-k], vec![0.0], vec![0.0]);
        let m = Inertia {
            inv_mass: &[1.0 / mass],
            inv_inertia: &[1.0],
        };
        for _ in 0..10_000 {
            let mut d = Kinematics {
                x: &mut x,
                y: &mut y,
                angle: &mut a,
                vx: &mut vx,
                vy: &mut vy,
                omega: &mut w,
            };
            let mut l = Loads {
                fx: &mut fx,
                fy: &mut fy,
                torque: &mut t,
            };
            kick_drift(&mut d, &mut l, &m, dt, [0.0, 0.0]);
            l.fx[0] = -k * d.x[0];
            kick(&mut d, &l, &m, dt, [0.0; 2]);
        }
        let e = 0.5 * k * x[0] * x[0] + 0.5 * mass * vx[0] * vx[0];
        assert!((e - 2.0).abs() < 2e-4, "{e}");
    }
}
