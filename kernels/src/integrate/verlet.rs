//! Velocity Verlet (kick-drift-kick), as LAMMPS `fix nve/sphere`: forces of the new
//! positions are computed with the half-step velocities, which the dashpots see.

/// Positions, angles and their velocities of a range of particles.
pub struct Dof<'a> {
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

/// Masses of a range of particles; infinite mass (fixed or driven) has inverse zero.
pub struct Inertia<'a> {
    pub mass: &'a [f64],
    pub inv_mass: &'a [f64],
    pub inv_inertia: &'a [f64],
}

/// First half kick and drift: v += dt/2 F/m, x += dt v. Then the loads are reset to
/// gravity, ready for the force phase (fused here to read and write them once).
pub fn kick_drift(d: &mut Dof, l: &mut Loads, m: &Inertia, dt: f64, g: [f64; 2]) {
    let h = 0.5 * dt;
    let n = d.x.len();
    let (x, y, a) = (&mut d.x[..n], &mut d.y[..n], &mut d.angle[..n]);
    let (vx, vy, w) = (&mut d.vx[..n], &mut d.vy[..n], &mut d.omega[..n]);
    let (fx, fy, t) = (&mut l.fx[..n], &mut l.fy[..n], &mut l.torque[..n]);
    let (ms, im, ii) = (&m.mass[..n], &m.inv_mass[..n], &m.inv_inertia[..n]);
    for p in 0..n {
        vx[p] += h * fx[p] * im[p];
        vy[p] += h * fy[p] * im[p];
        w[p] += h * t[p] * ii[p];
        x[p] += dt * vx[p];
        y[p] += dt * vy[p];
        a[p] += dt * w[p];
        // Infinite-mass bodies feel no gravity: their inverse mass is zero.
        let gm = if im[p] > 0.0 { ms[p] } else { 0.0 };
        fx[p] = gm * g[0];
        fy[p] = gm * g[1];
        t[p] = 0.0;
    }
}

/// Second half kick: v += dt/2 F/m.
pub fn kick(d: &mut Dof, l: &Loads, m: &Inertia, dt: f64) {
    let h = 0.5 * dt;
    let n = d.vx.len();
    let (vx, vy, w) = (&mut d.vx[..n], &mut d.vy[..n], &mut d.omega[..n]);
    let (fx, fy, t) = (&l.fx[..n], &l.fy[..n], &l.torque[..n]);
    let (im, ii) = (&m.inv_mass[..n], &m.inv_inertia[..n]);
    for p in 0..n {
        vx[p] += h * fx[p] * im[p];
        vy[p] += h * fy[p] * im[p];
        w[p] += h * t[p] * ii[p];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A harmonic oscillator conserves its energy to O(dt^2) with no drift.
    #[test]
    fn harmonic_oscillator() {
        let (k, mass, dt) = (4.0, 1.0, 0.01);
        let (mut x, mut y, mut a) = (vec![1.0], vec![0.0], vec![0.0]);
        let (mut vx, mut vy, mut w) = (vec![0.0], vec![0.0], vec![0.0]);
        let (mut fx, mut fy, mut t) = (vec![-k], vec![0.0], vec![0.0]);
        let m = Inertia { mass: &[mass], inv_mass: &[1.0], inv_inertia: &[1.0] };
        for _ in 0..10_000 {
            let mut d = Dof { x: &mut x, y: &mut y, angle: &mut a, vx: &mut vx, vy: &mut vy, omega: &mut w };
            let mut l = Loads { fx: &mut fx, fy: &mut fy, torque: &mut t };
            kick_drift(&mut d, &mut l, &m, dt, [0.0, 0.0]);
            l.fx[0] = -k * d.x[0];
            kick(&mut d, &l, &m, dt);
        }
        let e = 0.5 * k * x[0] * x[0] + 0.5 * mass * vx[0] * vx[0];
        assert!((e - 2.0).abs() < 2e-4, "{e}");
    }
}
