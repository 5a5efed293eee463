//! Disc against a straight wall (an infinite line): the same law as disc-disc, with the
//! wall as a body of infinite mass (m_eff = m of the disc, as in LAMMPS fix wall/gran).
use super::disc_disc::{contact_in_frame, ContactForce};
use super::law::{ContactParams, NormalModel};

/// A straight wall through `point` with unit `normal` pointing to the side where the
/// particles are, moving rigidly: `point` at `velocity`, the line turning at `spin` about
/// it (a wall tilted about a pivot: `engine/src/wall_motion.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineWall {
    /// A point on the wall (m).
    pub point: [f64; 2],
    /// Unit normal, towards the particles' side.
    pub normal: [f64; 2],
    /// Velocity of the wall at `point` (m/s).
    pub velocity: [f64; 2],
    /// Angular velocity of the wall, counter-clockwise (rad/s).
    pub spin: f64,
}

impl LineWall {
    /// Signed distance of a point from the wall (positive on the particles' side).
    #[inline(always)]
    pub fn distance(&self, x: f64, y: f64) -> f64 {
        (x - self.point[0]) * self.normal[0] + (y - self.point[1]) * self.normal[1]
    }

    /// Velocity of the wall's material at `c`: a rigid motion, v + spin z x (c - point).
    #[inline(always)]
    pub fn velocity_at(&self, c: [f64; 2]) -> [f64; 2] {
        [
            self.velocity[0] - self.spin * (c[1] - self.point[1]),
            self.velocity[1] + self.spin * (c[0] - self.point[0]),
        ]
    }
}

/// Contact of a disc (centre x, y, radius r, velocity v, spin w, inverse mass > 0) with a
/// wall, or `None` if it does not touch, under the normal model `model` (R_eff = r under
/// Hertz, as LAMMPS fix wall/gran hertz/history). The force and torque `ti` act on the
/// disc.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn disc_wall(
    p: &ContactParams,
    model: NormalModel,
    wall: &LineWall,
    x: f64,
    y: f64,
    r: f64,
    vx: f64,
    vy: f64,
    w: f64,
    inv_mass: f64,
    xi: &mut f64,
    dt: f64,
) -> Option<ContactForce> {
    let d = wall.distance(x, y);
    if d >= r {
        return None;
    }
    // The normal from the disc to the wall is -normal; the wall moves at its velocity
    // where it meets the normal through the centre (most walls do not turn: the test
    // keeps the sum out of their loop).
    let v = if wall.spin != 0.0 {
        wall.velocity_at([x - d * wall.normal[0], y - d * wall.normal[1]])
    } else {
        wall.velocity
    };
    let overlap = r - d;
    Some(contact_in_frame(
        p,
        model.factor(overlap, r),
        -wall.normal[0],
        -wall.normal[1],
        overlap,
        vx - v[0],
        vy - v[1],
        w * r,
        r,
        0.0,
        1.0 / inv_mass,
        xi,
        dt,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use NormalModel::Hooke;

    #[test]
    fn floor_pushes_up() {
        let p = ContactParams {
            kn: 100.0,
            kt: 0.0,
            gamma_n: 0.0,
            gamma_t: 0.0,
            mu: 0.0,
        };
        let floor = LineWall {
            point: [0.0, 0.0],
            normal: [0.0, 1.0],
            velocity: [0.0; 2],
            spin: 0.0,
        };
        let mut xi = 0.0;
        let c = disc_wall(&p, Hooke, &floor, 3.0, 0.9, 1.0, 0.0, 0.0, 0.0, 1.0, &mut xi, 1e-3).unwrap();
        assert!((c.f[1] - 10.0).abs() < 1e-9 && c.f[0].abs() < 1e-15);
        assert!(disc_wall(&p, Hooke, &floor, 3.0, 1.1, 1.0, 0.0, 0.0, 0.0, 1.0, &mut xi, 1e-3).is_none());
    }

    /// A floor turning at 2 rad/s about a point 5 to the left of the disc's contact rises
    /// there at 10 m/s: the damping sees the disc at rest approached at 10 m/s.
    #[test]
    fn a_turning_floor_moves_at_its_contact_point() {
        let p = ContactParams {
            kn: 100.0,
            kt: 0.0,
            gamma_n: 3.0,
            gamma_t: 0.0,
            mu: 0.0,
        };
        let floor = LineWall {
            point: [-2.0, 0.0],
            normal: [0.0, 1.0],
            velocity: [0.0; 2],
            spin: 2.0,
        };
        assert_eq!(floor.velocity_at([3.0, 0.0]), [0.0, 10.0]);
        assert_eq!(floor.velocity_at([-2.0, 1.0]), [-2.0, 0.0]);
        let mut xi = 0.0;
        let c = disc_wall(&p, Hooke, &floor, 3.0, 0.9, 1.0, 0.0, 0.0, 0.0, 0.5, &mut xi, 1e-3).unwrap();
        // kn delta + gamma_n m v_n, m = 2.
        assert!((c.f[1] - (10.0 + 3.0 * 2.0 * 10.0)).abs() < 1e-9, "{:?}", c.f);
    }
}
