//! Sphere against a wall in 3D: a plane, or the inside of a cylinder turning about its axis
//! (a drum). The same law as sphere-sphere, the wall a body of infinite mass and radius
//! (m_eff = m, R_eff = R, as LAMMPS `fix wall/gran` and LIGGGHTS' mesh walls), with its
//! own tangential spring per contact.
use super::law::{ContactParams, NormalModel};
use super::sphere_sphere::contact_in_frame;
use super::ContactForce;
use crate::math::{add, cross, dot, norm2, scale, sub};

/// A plane through `point` with unit `normal` pointing to the side where the particles
/// are, moving rigidly: `point` at `velocity`, the plane turning at the angular velocity
/// `spin` about it (a plane tilted about a pivot, or a turntable:
/// `engine/src/wall_motion.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlaneWall {
    /// A point on the plane (m).
    pub point: [f64; 3],
    /// Unit normal, towards the particles' side.
    pub normal: [f64; 3],
    /// Velocity of the plane at `point` (m/s).
    pub velocity: [f64; 3],
    /// Angular velocity of the plane (rad/s).
    pub spin: [f64; 3],
}

impl PlaneWall {
    /// Signed distance of `x` from the plane (positive on the particles' side).
    #[inline(always)]
    pub fn distance(&self, x: [f64; 3]) -> f64 {
        dot(sub(x, self.point), self.normal)
    }

    /// Velocity of the plane's material at `c`: a rigid motion, v + spin x (c - point).
    #[inline(always)]
    pub fn velocity_at(&self, c: [f64; 3]) -> [f64; 3] {
        add(self.velocity, cross(self.spin, sub(c, self.point)))
    }
}

/// The inside of a cylinder of `radius` about the line through `point` along the unit
/// `axis`, turning about it at `spin` rad/s (right-handed about `axis`): a rotating drum.
/// Particles are inside.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CylinderWall {
    /// A point on the axis (m).
    pub point: [f64; 3],
    /// Unit direction of the axis.
    pub axis: [f64; 3],
    /// Inner radius (m).
    pub radius: f64,
    /// Angular velocity about `axis`, right-handed (rad/s).
    pub spin: f64,
    /// Rate at which the radius grows (m/s; negative while it closes in, as under a
    /// servo): the surface's velocity along its outward normal.
    pub growth: f64,
}

impl CylinderWall {
    /// The part of `x - point` across the axis.
    #[inline(always)]
    fn radial(&self, x: [f64; 3]) -> [f64; 3] {
        let d = sub(x, self.point);
        sub(d, scale(dot(d, self.axis), self.axis))
    }

    /// The unit normal from `x` (off the axis) outward to the surface.
    pub fn outward(&self, x: [f64; 3]) -> [f64; 3] {
        let rad = self.radial(x);
        scale(1.0 / norm2(rad).sqrt(), rad)
    }

    /// Distance of `x` from the cylinder's surface, positive inside.
    pub fn distance(&self, x: [f64; 3]) -> f64 {
        self.radius - norm2(self.radial(x)).sqrt()
    }
}

/// The sphere's side of a contact with a wall: centre `x`, radius `r`, velocity `v`, spin
/// `omega`, inverse mass (> 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SphereBody {
    /// Centre (m).
    pub x: [f64; 3],
    /// Radius (m).
    pub r: f64,
    /// Velocity (m/s).
    pub v: [f64; 3],
    /// Angular velocity (rad/s).
    pub omega: [f64; 3],
    /// Inverse mass, > 0 (1/kg).
    pub inv_mass: f64,
}

/// The law against a wall whose surface, seen from the sphere, lies along the unit `n`
/// (from the centre to the wall) at `overlap`, moving at `v_wall` at the contact.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn against(
    p: &ContactParams,
    model: NormalModel,
    s: &SphereBody,
    n: [f64; 3],
    overlap: f64,
    v_wall: [f64; 3],
    xi: &mut [f64; 3],
    dt: f64,
) -> ContactForce {
    let h = model.factor(overlap, s.r);
    let w = scale(s.r, s.omega);
    let (force, ft) = contact_in_frame(p, h, n, overlap, sub(s.v, v_wall), w, 1.0 / s.inv_mass, xi, dt);
    ContactForce {
        f: force,
        ti: scale(s.r, cross(n, ft)),
        tj: [0.0; 3],
        overlap,
    }
}

/// Contact of a sphere with a plane, or `None` if it does not touch. The force and
/// `torque_i` act on the sphere. `TURNING`: the plane may turn, and moves at its velocity
/// where the normal through the sphere's centre meets it ([`PlaneWall::velocity_at`]);
/// else at its `velocity` (its `spin` not read). Two builds, so that the wall loop of a run
/// where no plane turns does not pay for it (in one loop, the test and what it did to the
/// loop's code cost +0.4 % of the 3D bench's instructions).
#[inline(always)]
pub fn sphere_plane<const TURNING: bool>(
    p: &ContactParams,
    model: NormalModel,
    wall: &PlaneWall,
    s: &SphereBody,
    xi: &mut [f64; 3],
    dt: f64,
) -> Option<ContactForce> {
    let d = wall.distance(s.x);
    if d >= s.r {
        return None;
    }
    let v_wall = if TURNING {
        wall.velocity_at(sub(s.x, scale(d, wall.normal)))
    } else {
        wall.velocity
    };
    Some(against(p, model, s, scale(-1.0, wall.normal), s.r - d, v_wall, xi, dt))
}

/// Contact of a sphere with the inside of a cylinder, or `None` if it does not touch. A
/// sphere on the axis has no direction to the wall and cannot touch it (its radius would
/// have to reach the cylinder's).
#[inline(always)]
pub fn sphere_cylinder(
    p: &ContactParams,
    model: NormalModel,
    wall: &CylinderWall,
    s: &SphereBody,
    xi: &mut [f64; 3],
    dt: f64,
) -> Option<ContactForce> {
    let rad = wall.radial(s.x);
    let dist = norm2(rad).sqrt();
    let overlap = dist + s.r - wall.radius;
    if overlap <= 0.0 || dist == 0.0 {
        return None;
    }
    let n = scale(1.0 / dist, rad);
    // The wall's velocity at the contact point (radius `radius` along n): spin axis x r,
    // and the growth of the radius along n.
    let v_wall = add(
        scale(wall.spin * wall.radius, cross(wall.axis, n)),
        scale(wall.growth, n),
    );
    Some(against(p, model, s, n, overlap, v_wall, xi, dt))
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: f64 = 1e-3;

    fn mass() -> f64 {
        4.0 / 3.0 * std::f64::consts::PI * R * R * R * 2500.0
    }

    fn floor() -> PlaneWall {
        PlaneWall {
            point: [0.0; 3],
            normal: [0.0, 0.0, 1.0],
            velocity: [0.0; 3],
            spin: [0.0; 3],
        }
    }

    /// A turntable (spin about its normal) moves its surface around the point it turns
    /// about; a plane tilting about a line in it lifts the far side.
    #[test]
    fn a_turning_plane_moves_as_a_rigid_body() {
        let table = PlaneWall {
            spin: [0.0, 0.0, 2.0],
            ..floor()
        };
        assert_eq!(table.velocity_at([1.0, 0.0, 0.0]), [0.0, 2.0, 0.0]);
        let tilting = PlaneWall {
            spin: [0.0, -0.5, 0.0],
            ..floor()
        };
        assert_eq!(tilting.velocity_at([3.0, 1.0, 0.0]), [0.0, 0.0, 1.5]);
    }

    /// One sphere against the floor, stepped with velocity Verlet (translation and spin)
    /// from `s` for `steps`, under gravity `g` (z).
    fn run(p: &ContactParams, s: &mut SphereBody, g: f64, dt: f64, steps: usize, mut each: impl FnMut(&SphereBody)) {
        let m = 1.0 / s.inv_mass;
        let inertia = 0.4 * m * R * R;
        let mut xi = [0.0; 3];
        let load =
            |s: &SphereBody, xi: &mut [f64; 3]| match sphere_plane::<false>(p, NormalModel::Hooke, &floor(), s, xi, dt)
            {
                Some(c) => (c.f, c.ti),
                None => {
                    *xi = [0.0; 3];
                    ([0.0; 3], [0.0; 3])
                }
            };
        let (mut f, mut t) = load(s, &mut xi);
        for _ in 0..steps {
            for k in 0..3 {
                s.v[k] += 0.5 * dt * (f[k] / m + if k == 2 { g } else { 0.0 });
                s.omega[k] += 0.5 * dt * t[k] / inertia;
                s.x[k] += dt * s.v[k];
            }
            (f, t) = load(s, &mut xi);
            for k in 0..3 {
                s.v[k] += 0.5 * dt * (f[k] / m + if k == 2 { g } else { 0.0 });
                s.omega[k] += 0.5 * dt * t[k] / inertia;
            }
            each(s);
        }
    }

    /// An oblique impact that slides throughout (no normal damping, e = 1): the
    /// tangential impulse is mu times the normal one, 2 m v_n, so the sphere leaves with
    /// v_t - 2 mu v_n and spin 5 mu v_n / R (solid sphere, I = 2/5 m R^2), within 1 %.
    #[test]
    fn sliding_oblique_impact_takes_mu_times_the_normal_impulse() {
        let mu = 0.2;
        let p = ContactParams {
            kn: 1e6,
            kt: 2.0 / 7.0 * 1e6,
            gamma_n: 0.0,
            gamma_t: 0.0,
            mu,
        };
        let (vn, vt) = (0.1, 1.0);
        let mut s = SphereBody {
            x: [0.0, 0.0, R + 1e-9],
            r: R,
            v: [vt, 0.0, -vn],
            omega: [0.0; 3],
            inv_mass: 1.0 / mass(),
        };
        let mut left = false;
        run(&p, &mut s, 0.0, 1e-8, 200_000, |s| left |= s.x[2] > R + 1e-6);
        assert!(left, "still in contact");
        assert!((s.v[2] - vn).abs() < 1e-3 * vn, "normal rebound {}", s.v[2]);
        let want = vt - 2.0 * mu * vn;
        assert!((s.v[0] - want).abs() < 0.01 * (vt - want), "v_t {} for {want}", s.v[0]);
        // Friction on the bottom point in -x spins the sphere about +y.
        let spin = 5.0 * mu * vn / R;
        assert!(
            (s.omega[1] - spin).abs() < 0.01 * spin,
            "spin {} for {spin}",
            s.omega[1]
        );
    }

    /// A sphere set sliding on the floor under gravity: friction mu m g slows it and spins
    /// it up until it rolls, at 5/7 of its speed (solid sphere), after 2 v0 / (7 mu g).
    #[test]
    fn sliding_sphere_ends_rolling_at_five_sevenths() {
        let (mu, g, v0) = (0.3, -9.81, 0.2);
        let m = mass();
        let kn = 1e5;
        let p = ContactParams {
            kn,
            kt: 2.0 / 7.0 * kn,
            gamma_n: ContactParams::gamma_for_restitution(kn, m, 0.3),
            gamma_t: 0.0,
            mu,
        };
        let rest = R + m * g / kn;
        let mut s = SphereBody {
            x: [0.0, 0.0, rest],
            r: R,
            v: [v0, 0.0, 0.0],
            omega: [0.0; 3],
            inv_mass: 1.0 / m,
        };
        let dt = 1e-6;
        let t_roll = 2.0 * v0 / (7.0 * mu * -g);
        let steps = (1.5 * t_roll / dt) as usize;
        run(&p, &mut s, g, dt, steps, |_| {});
        let want = 5.0 / 7.0 * v0;
        assert!(
            (s.v[0] - want).abs() < 0.01 * want,
            "rolling speed {} for {want}",
            s.v[0]
        );
        // Rolling: the contact point at rest (v + omega x (-R z) = 0: v_x = omega_y R).
        assert!(
            (s.omega[1] * R - s.v[0]).abs() < 0.01 * want,
            "slip {}",
            s.omega[1] * R - s.v[0]
        );
    }

    /// The drum's wall: the normal along the radius, the overlap, and the wall's velocity
    /// at the contact point (spin x radius).
    #[test]
    fn cylinder_contact_geometry() {
        let drum = CylinderWall {
            point: [0.0, 0.0, 5.0],
            axis: [0.0, 0.0, 1.0],
            radius: 0.1,
            spin: 2.0,
            growth: 0.0,
        };
        let p = ContactParams {
            kn: 1e6,
            kt: 0.0,
            gamma_n: 0.0,
            gamma_t: 0.0,
            mu: 0.0,
        };
        let s = SphereBody {
            x: [0.0, -0.1 + R - 1e-5, 3.0],
            r: R,
            v: [0.0; 3],
            omega: [0.0; 3],
            inv_mass: 1.0,
        };
        assert!((drum.distance(s.x) - (R - 1e-5)).abs() < 1e-15);
        let mut xi = [0.0; 3];
        let c = sphere_cylinder(&p, NormalModel::Hooke, &drum, &s, &mut xi, 1e-6).unwrap();
        assert!((c.overlap - 1e-5).abs() < 1e-12);
        // Pushed towards the axis (+y), by k_n delta.
        assert!((c.f[1] - 1e6 * 1e-5).abs() < 1e-6 && c.f[0].abs() < 1e-12, "{c:?}");
        // At the bottom (-y), a drum turning +z moves its wall along +x: with friction the
        // wall drags the sphere along +x.
        let q = ContactParams { kt: 1e5, mu: 0.5, ..p };
        let mut xi = [0.0; 3];
        let c = sphere_cylinder(&q, NormalModel::Hooke, &drum, &s, &mut xi, 1e-6).unwrap();
        assert!(c.f[0] > 0.0, "{c:?}");
        let far = SphereBody {
            x: [0.0, 0.0, 3.0],
            ..s
        };
        assert!(sphere_cylinder(&p, NormalModel::Hooke, &drum, &far, &mut xi, 1e-6).is_none());
    }
}
