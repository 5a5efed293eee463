//! Velocity Verlet (kick-drift-kick), as LAMMPS `fix nve/sphere`: forces of the new
//! positions are computed with the half-step velocities, which the dashpots see. Written
//! against the build's dimension: DIM position and velocity components, ANG angular ones
//! (one about z in 2D, three in 3D), and in 2D the orientation angle (a disc's or a
//! polygon's); a sphere's orientation does not enter its contacts and is not integrated,
//! as in LAMMPS `nve/sphere`.

use super::position_check::{left_box, outside_domain};
pub use super::position_check::{Check, CheckResult};
use crate::math::{Vector, ANG, DIM};
use crate::vector_build::vectorized;

/// Positions, angles and their velocities of a range of particles (the state velocity
/// Verlet advances; not Verlet neighbour lists, which are `neighbor::verlet`).
pub struct Kinematics<'a> {
    /// Positions, one array per axis (m).
    pub pos: [&'a mut [f64]; DIM],
    /// The orientation angle (2D).
    #[cfg(not(feature = "dim3"))]
    pub angle: &'a mut [f64],
    /// Velocities, one array per axis (m/s).
    pub vel: [&'a mut [f64]; DIM],
    /// Angular velocities, one array per component (rad/s; about z in 2D).
    pub omega: [&'a mut [f64]; ANG],
}

/// Forces and torques of a range of particles.
pub struct Loads<'a> {
    /// Forces, one array per axis (N).
    pub force: [&'a mut [f64]; DIM],
    /// Torques, one array per component (N m; about z in 2D).
    pub torque: [&'a mut [f64]; ANG],
}

/// Inverse masses of a range of particles; infinite mass (fixed or driven) has inverse
/// zero. Loads hold the contact forces only: gravity is applied as an acceleration to the
/// bodies of finite mass, so no mass array is read (or stored) for it. The inertia is a
/// scalar: discs and spheres (and the polygons' moment about z).
pub struct Inertia<'a> {
    /// Inverse masses (1/kg).
    pub inv_mass: &'a [f64],
    /// Inverse moments of inertia (1/(kg m^2)).
    pub inv_inertia: &'a [f64],
}

/// Particles per block of the fused pass (`kick_drift_check`): 16 KB an array, so that a
/// block's positions are still in L2 for its check; measured against 256 on the S3D beds
/// (BENCHMARKS.md, issue 19), where the shorter loops left the prefetchers less to go on.
const BLOCK: usize = 2048;

/// Acceleration of particle `p`: F/m, plus gravity if its mass is finite.
#[inline(always)]
fn accel(f: f64, im: f64, g: f64) -> f64 {
    f * im + if im > 0.0 { g } else { 0.0 }
}

/// The whole particle pass of a step in one sweep over the arrays: (if `pending`) the
/// second half kick of the previous step, the first half kick of this one, the drift,
/// the reset of the loads to gravity, and the check of the new positions.
///
/// The two half kicks are applied as two additions, `(v + h a) + h a`, not `v + dt a`,
/// so the result is bitwise the same as calling [`kick`] and then this pass without the
/// pending kick: how
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
    g: Vector,
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
    g: Vector,
    c: &Check,
) -> CheckResult {
    let h = 0.5 * dt;
    let n = d.pos[0].len();
    // Every array cut to n where the compiler sees it: one bounds check for all.
    let x = d.pos.each_mut().map(|a| &mut a[..n]);
    let v = d.vel.each_mut().map(|a| &mut a[..n]);
    let w = d.omega.each_mut().map(|a| &mut a[..n]);
    let f = l.force.each_mut().map(|a| &mut a[..n]);
    let t = l.torque.each_mut().map(|a| &mut a[..n]);
    #[cfg(not(feature = "dim3"))]
    let angle = &mut d.angle[..n];
    let (im, ii) = (&m.inv_mass[..n], &m.inv_inertia[..n]);
    let (r, bx) = (&c.radius[..n], &c.boxes[..n]);
    let (lo, hi) = (c.domain_min, c.domain_max);
    let (mut left, mut outside) = (false, false);
    // 3D (where the engine's apart pairs use it): the largest |u| per axis, as bits: a
    // non-negative float's bits order as the float does, and an integer maximum vectorises
    // where a float one (which must keep NaN apart) does not. A NaN's bits exceed
    // infinity's: the bound is then not finite.
    let mut top = [0u64; DIM];
    // In blocks, each axis in a loop of its own and the check in another: one loop over
    // every array at once (15 of them in 3D) was compiled without vectors in 3D (137
    // instructions a sphere; BENCHMARKS.md, issue 19), and a block's arrays stay in cache
    // from one loop to the next.
    let mut start = 0;
    while start < n {
        let end = (start + BLOCK).min(n);
        let im = &im[start..end];
        for k in 0..DIM {
            let (x, v) = (&mut x[k][start..end], &mut v[k][start..end]);
            let f = &mut f[k][start..end];
            for p in 0..im.len() {
                let a = accel(f[p], im[p], g[k]);
                let mut u = v[p];
                if PENDING {
                    u += h * a;
                }
                u += h * a;
                v[p] = u;
                x[p] += dt * u;
                if RESET {
                    f[p] = 0.0;
                }
                if DIM == 3 {
                    top[k] = top[k].max(u.to_bits() & !(1 << 63));
                }
            }
        }
        let ii = &ii[start..end];
        for k in 0..ANG {
            let (w, t) = (&mut w[k][start..end], &mut t[k][start..end]);
            #[cfg(not(feature = "dim3"))]
            let angle = &mut angle[start..end];
            for p in 0..ii.len() {
                let a = t[p] * ii[p];
                let mut u = w[p];
                if PENDING {
                    u += h * a;
                }
                u += h * a;
                w[p] = u;
                #[cfg(not(feature = "dim3"))]
                {
                    angle[p] += dt * u;
                }
                if RESET {
                    t[p] = 0.0;
                }
            }
        }
        for p in start..end {
            let at = std::array::from_fn(|k| x[k][p]);
            left |= left_box(at, r[p], &bx[p]);
            outside |= outside_domain(at, lo, hi);
        }
        start = end;
    }
    let speed = match DIM {
        3 => top.iter().map(|&b| f64::from_bits(b).powi(2)).sum::<f64>().sqrt(),
        _ => f64::INFINITY,
    };
    CheckResult {
        left_box: left,
        outside,
        // Rounded up a little, for the rounding of the sum above (the rounding of the
        // drift's additions is the caller's: it depends on the coordinates).
        speed: speed * (1.0 + 1e-12),
    }
}

/// Second half kick: v += dt/2 a.
pub fn kick(d: &mut Kinematics, l: &Loads, m: &Inertia, dt: f64, g: Vector) {
    vectorized(
        #[inline(always)]
        || kick_impl(d, l, m, dt, g),
    )
}

#[inline(always)]
fn kick_impl(d: &mut Kinematics, l: &Loads, m: &Inertia, dt: f64, g: Vector) {
    let h = 0.5 * dt;
    let n = d.vel[0].len();
    let v = d.vel.each_mut().map(|a| &mut a[..n]);
    let w = d.omega.each_mut().map(|a| &mut a[..n]);
    let f = l.force.each_ref().map(|a| &a[..n]);
    let t = l.torque.each_ref().map(|a| &a[..n]);
    let (im, ii) = (&m.inv_mass[..n], &m.inv_inertia[..n]);
    for p in 0..n {
        for k in 0..DIM {
            v[k][p] += h * accel(f[k][p], im[p], g[k]);
        }
        for k in 0..ANG {
            w[k][p] += h * (t[k][p] * ii[p]);
        }
    }
}

#[cfg(all(test, not(feature = "dim3")))]
mod tests {
    use super::*;

    /// First half kick and drift, the loads reset, no check: the pass without the pending kick.
    fn kick_drift(d: &mut Kinematics, l: &mut Loads, m: &Inertia, dt: f64, g: [f64; DIM]) {
        let n = d.pos[0].len();
        let c = Check {
            radius: &vec![0.0; n],
            boxes: &vec![[f32::NEG_INFINITY; 2 * DIM]; n],
            domain_min: [f64::NEG_INFINITY; DIM],
            domain_max: [f64::INFINITY; DIM],
        };
        kick_drift_check(d, l, m, dt, g, false, true, &c);
    }

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
                pos: [&mut x1, &mut y1],
                angle: &mut a1,
                vel: [&mut vx1, &mut vy1],
                omega: [&mut w1],
            };
            let mut l = Loads {
                force: [&mut fx1, &mut fy1],
                torque: [&mut t1],
            };
            kick(&mut d, &l, &m, dt, g);
            kick_drift(&mut d, &mut l, &m, dt, g);
        }
        let res = {
            let mut d = Kinematics {
                pos: [&mut x2, &mut y2],
                angle: &mut a2,
                vel: [&mut vx2, &mut vy2],
                omega: [&mut w2],
            };
            let mut l = Loads {
                force: [&mut fx2, &mut fy2],
                torque: [&mut t2],
            };
            kick_drift_check(&mut d, &mut l, &m, dt, g, true, true, &c)
        };
        assert!(!res.left_box && !res.outside, "{res:?}");
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
                pos: [&mut x, &mut y],
                angle: &mut a,
                vel: [&mut vx, &mut vy],
                omega: [&mut w],
            };
            let mut l = Loads {
                force: [&mut fx, &mut fy],
                torque: [&mut t],
            };
            kick_drift(&mut d, &mut l, &m, dt, [0.0, 0.0]);
            l.force[0][0] = -k * d.pos[0][0];
            kick(&mut d, &l, &m, dt, [0.0; 2]);
        }
        let e = 0.5 * k * x[0] * x[0] + 0.5 * mass * vx[0] * vx[0];
        assert!((e - 2.0).abs() < 2e-4, "{e}");
    }
}

/// In either dimension: a body under constant force and torque (Verlet is exact for constant
/// acceleration), and a body of infinite mass that keeps its velocity.
#[cfg(test)]
mod any_dimension {
    use super::*;

    #[test]
    fn constant_force_and_torque_are_integrated_exactly() {
        let (dt, steps) = (1e-3, 1000);
        let g: [f64; DIM] = std::array::from_fn(|k| -1.0 - k as f64);
        let mut pos: [Vec<f64>; DIM] = std::array::from_fn(|k| vec![k as f64, 5.0]);
        let mut vel: [Vec<f64>; DIM] = std::array::from_fn(|k| vec![0.5 * k as f64, 1.0]);
        let mut omega: [Vec<f64>; ANG] = std::array::from_fn(|_| vec![0.0, 3.0]);
        let mut force: [Vec<f64>; DIM] = std::array::from_fn(|_| vec![0.0; 2]);
        let mut torque: [Vec<f64>; ANG] = std::array::from_fn(|_| vec![0.0; 2]);
        #[cfg(not(feature = "dim3"))]
        let mut angle = vec![0.0; 2];
        // The second body has infinite mass and inertia (inverse 0): driven.
        let m = Inertia {
            inv_mass: &[2.0, 0.0],
            inv_inertia: &[4.0, 0.0],
        };
        let c = Check {
            radius: &[0.1, 0.1],
            boxes: &[[f32::NEG_INFINITY, f32::INFINITY].repeat(DIM).try_into().unwrap(); 2],
            domain_min: [-1e9; DIM],
            domain_max: [1e9; DIM],
        };
        for s in 0..steps {
            let mut d = Kinematics {
                pos: pos.each_mut().map(|a| &mut a[..]),
                #[cfg(not(feature = "dim3"))]
                angle: &mut angle,
                vel: vel.each_mut().map(|a| &mut a[..]),
                omega: omega.each_mut().map(|a| &mut a[..]),
            };
            let mut l = Loads {
                force: force.each_mut().map(|a| &mut a[..]),
                torque: torque.each_mut().map(|a| &mut a[..]),
            };
            let r = kick_drift_check(&mut d, &mut l, &m, dt, g, s > 0, true, &c);
            assert!(!r.left_box && !r.outside);
            // The new forces: 0.25 N along every axis, a torque of 0.5 about every axis.
            l.force.iter_mut().for_each(|f| f[0] = 0.25);
            l.torque.iter_mut().for_each(|t| t[0] = 0.5);
        }
        let mut d = Kinematics {
            pos: pos.each_mut().map(|a| &mut a[..]),
            #[cfg(not(feature = "dim3"))]
            angle: &mut angle,
            vel: vel.each_mut().map(|a| &mut a[..]),
            omega: omega.each_mut().map(|a| &mut a[..]),
        };
        let l = Loads {
            force: force.each_mut().map(|a| &mut a[..]),
            torque: torque.each_mut().map(|a| &mut a[..]),
        };
        kick(&mut d, &l, &m, dt, g);
        let t = dt * steps as f64;
        for k in 0..DIM {
            // The first half kick of step 0 saw no force (the loads start at zero): that
            // half step's impulse is missing from v and from every later position.
            let a = 0.25 * 2.0 + g[k];
            let v = 0.5 * k as f64 + a * t - 0.5 * dt * 0.25 * 2.0;
            assert!((vel[k][0] - v).abs() < 1e-12, "v[{k}] {} for {v}", vel[k][0]);
            let x = k as f64 + 0.5 * k as f64 * t + 0.5 * a * t * t - 0.5 * dt * 0.25 * 2.0 * t;
            assert!((pos[k][0] - x).abs() < 1e-9, "x[{k}] {} for {x}", pos[k][0]);
            // A body of infinite mass keeps its velocity: gravity and forces do not act on it.
            assert!(
                (pos[k][1] - (5.0 + t)).abs() < 1e-12 && vel[k][1] == 1.0,
                "the driven body"
            );
        }
        for w in &omega {
            let want = 0.5 * 4.0 * t - 0.5 * dt * 0.5 * 4.0;
            assert!((w[0] - want).abs() < 1e-12, "omega {} for {want}", w[0]);
            assert_eq!(w[1], 3.0);
        }
    }
}

#[cfg(test)]
mod block_tests {
    use super::*;

    /// The pass's flags come from the one particle that earns them, wherever it lies in
    /// its block of the pass (first, last, in the last short block), in either dimension.
    #[test]
    fn the_check_finds_the_one_particle_that_left() {
        let n = 3 * BLOCK + 17;
        let (dt, r) = (1e-3, 1e-4);
        let boxes = vec![[-5e-4f32, 5e-4].repeat(DIM).try_into().unwrap(); n];
        let radius = vec![r; n];
        let c = Check {
            radius: &radius,
            boxes: &boxes,
            domain_min: [-1.0; DIM],
            domain_max: [1.0; DIM],
        };
        let (im, ii) = (vec![1.0; n], vec![1.0; n]);
        let m = Inertia {
            inv_mass: &im,
            inv_inertia: &ii,
        };
        let cases = [None, Some((0, false)), Some((BLOCK - 1, true)), Some((BLOCK, false))];
        let more = [Some((2 * BLOCK + 5, true)), Some((n - 1, false)), Some((n - 1, true))];
        for culprit in cases.into_iter().chain(more) {
            let mut pos: [Vec<f64>; DIM] = std::array::from_fn(|_| vec![0.0; n]);
            #[cfg(not(feature = "dim3"))]
            let mut angle = vec![0.0; n];
            let mut vel: [Vec<f64>; DIM] = std::array::from_fn(|_| vec![0.0; n]);
            let mut omega: [Vec<f64>; ANG] = std::array::from_fn(|_| vec![0.0; n]);
            let mut force: [Vec<f64>; DIM] = std::array::from_fn(|_| vec![0.0; n]);
            let mut torque: [Vec<f64>; ANG] = std::array::from_fn(|_| vec![0.0; n]);
            // A step of 1e-3 leaves the box (half-width 5e-4, less the radius); one of 1e3
            // leaves the domain too.
            if let Some((p, escapes)) = culprit {
                vel[DIM - 1][p] = if escapes { 1e6 } else { 1.0 };
            }
            let mut d = Kinematics {
                pos: pos.each_mut().map(|v| &mut v[..]),
                #[cfg(not(feature = "dim3"))]
                angle: &mut angle,
                vel: vel.each_mut().map(|v| &mut v[..]),
                omega: omega.each_mut().map(|v| &mut v[..]),
            };
            let mut l = Loads {
                force: force.each_mut().map(|v| &mut v[..]),
                torque: torque.each_mut().map(|v| &mut v[..]),
            };
            let got = kick_drift_check(&mut d, &mut l, &m, dt, [0.0; DIM], false, true, &c);
            assert_eq!(
                (got.left_box, got.outside),
                (culprit.is_some(), culprit.is_some_and(|(_, escapes)| escapes)),
                "{culprit:?}"
            );
            // The speed bound (3D): no centre moved farther than speed dt, and the bound is
            // the one moving particle's speed; in 2D it is not measured.
            if DIM == 3 {
                let from_origin = |p: usize| (0..DIM).map(|k| pos[k][p].powi(2)).sum::<f64>().sqrt();
                let moved = (0..n).map(from_origin).fold(0.0, f64::max);
                assert!(
                    moved <= got.speed * dt,
                    "{culprit:?}: moved {moved}, bound {}",
                    got.speed
                );
                let fastest = culprit.map_or(0.0, |(_, escapes)| if escapes { 1e6 } else { 1.0 });
                assert!(got.speed <= fastest * (1.0 + 1e-9), "{culprit:?}: bound {}", got.speed);
            } else {
                assert_eq!(got.speed, f64::INFINITY);
            }
        }
    }
}
