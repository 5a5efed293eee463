//! What a pair of materials may add to the spring-dashpot law ([`super::law`]): cohesion
//! ([`super::cohesion`]) and rolling resistance ([`super::rolling`]), applied after the
//! law, to the force it gave. As in LIGGGHTS 3.8 (`tangential_reduce off`), the law's
//! Coulomb limit and the rolling limit see the contact's normal force without cohesion.
use super::cohesion::{self, CohesionModel};
use super::rolling::{rolling_torque, RollingModel};
use super::ContactForce;
use crate::math::{Vector, ANG, DIM};

/// Cohesion and rolling resistance of one pair of materials: zero for none.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PairExtras {
    /// Cohesion energy density k (3D: J/m^3, times the crossing area; 2D: J/m^2, times the
    /// chord): LIGGGHTS `cohesionEnergyDensity`.
    pub cohesion: f64,
    /// Rolling friction coefficient mu_r (a length ratio): LIGGGHTS
    /// `coefficientRollingFriction`.
    pub rolling_friction: f64,
}

impl PairExtras {
    /// Neither cohesion nor rolling resistance.
    pub const NONE: PairExtras = PairExtras {
        cohesion: 0.0,
        rolling_friction: 0.0,
    };

    /// Whether the pair has either.
    #[inline(always)]
    pub fn any(&self) -> bool {
        self.cohesion != 0.0 || self.rolling_friction != 0.0
    }
}

/// The size of the contact of two round bodies at centre distance `d` (see
/// [`cohesion`]): sjkr's chord in 2D (sjkr2 is for spheres: the pair table refuses it
/// there, and the 2D loops do not look at the model), in 3D sjkr's crossing area or
/// sjkr2's area.
#[inline(always)]
pub fn contact_size(model: CohesionModel, d: f64, ri: f64, rj: f64) -> f64 {
    if DIM == 2 {
        return cohesion::chord(d, ri, rj);
    }
    match model {
        CohesionModel::Sjkr => cohesion::crossing_area(d, ri, rj),
        CohesionModel::Sjkr2 => cohesion::sjkr2_area(d, ri, rj),
    }
}

/// The size of the contact of a round body of radius `r` with a flat wall `overlap` deep
/// (as [`contact_size`]).
#[inline(always)]
pub fn wall_contact_size(model: CohesionModel, r: f64, overlap: f64) -> f64 {
    if DIM == 2 {
        return cohesion::wall_chord(r, overlap);
    }
    match model {
        CohesionModel::Sjkr => cohesion::wall_crossing_area(r, overlap),
        CohesionModel::Sjkr2 => cohesion::sjkr2_wall_area(r, overlap),
    }
}

/// One touching contact as the extras see it, after the law.
#[derive(Debug, Clone, Copy)]
pub struct Touch {
    /// Unit normal from body i to body j (a wall: from the body to the wall).
    pub n: Vector,
    /// [`contact_size`] or [`wall_contact_size`].
    pub size: f64,
    /// Depth of the overlap (m).
    pub overlap: f64,
    /// Effective radius R_i R_j / (R_i + R_j) (a wall: the body's radius) (m).
    pub r_eff: f64,
    /// The law's stiffnesses as its normal model scales them (Hertz: times
    /// sqrt(delta R_eff)).
    pub kn: f64,
    /// Tangential stiffness, scaled as `kn` (N/m).
    pub kt: f64,
    /// omega_i - omega_j (a wall: omega_i).
    pub w: [f64; ANG],
}

/// Add cohesion and rolling resistance to the law's force `c` on a touching pair; `m` is
/// the rolling torque kept in the contact.
#[inline(always)]
pub fn add_extras(e: &PairExtras, model: RollingModel, t: &Touch, c: &mut ContactForce, m: &mut [f64; ANG], dt: f64) {
    if e.rolling_friction != 0.0 {
        // The law's normal force on i is -F_n n (its tangential part is across n).
        let normal = -(0..DIM).map(|k| c.f[k] * t.n[k]).sum::<f64>();
        let r = rolling_torque(
            model,
            e.rolling_friction,
            t.r_eff,
            t.kn,
            t.kt,
            t.overlap,
            normal,
            t.w,
            t.n,
            m,
            dt,
        );
        for (k, r) in r.into_iter().enumerate() {
            c.ti[k] -= r;
            c.tj[k] += r;
        }
    }
    if e.cohesion != 0.0 {
        // Pulls i towards j.
        let f = e.cohesion * t.size;
        for k in 0..DIM {
            c.f[k] += f * t.n[k];
        }
    }
}

/// Cohesion (sjkr's F = k A, 2D: A the contact line's length) on a contact with a
/// polygon: k times the frame's size, pulling the first body along the frame's normal
/// at its point, with the torques about the centres `xi`, `xj`.
#[cfg(not(feature = "dim3"))]
#[inline]
pub fn add_cohesion_at(
    k: f64,
    frame: &super::polygon_polygon::ContactFrame,
    xi: [f64; 2],
    xj: [f64; 2],
    c: &mut ContactForce,
) {
    let f = [k * frame.size * frame.normal[0], k * frame.size * frame.normal[1]];
    let arm = |x: [f64; 2], f: [f64; 2]| (frame.point[0] - x[0]) * f[1] - (frame.point[1] - x[1]) * f[0];
    c.f[0] += f[0];
    c.f[1] += f[1];
    c.ti[0] += arm(xi, f);
    c.tj[0] += arm(xj, [-f[0], -f[1]]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cohesion_pulls_together_and_rolling_resists() {
        let mut n = [0.0; DIM];
        n[0] = 1.0;
        let mut w = [0.0; ANG];
        w[ANG - 1] = 2.0;
        let t = Touch {
            n,
            size: 0.5,
            overlap: 0.01,
            r_eff: 0.5,
            kn: 100.0,
            kt: 40.0,
            w,
        };
        let mut f = [0.0; DIM];
        f[0] = -1.0; // the law's repulsion on i
        let mut c = ContactForce {
            f,
            ti: [0.0; ANG],
            tj: [0.0; ANG],
            overlap: 0.01,
        };
        let e = PairExtras {
            cohesion: 3.0,
            rolling_friction: 0.1,
        };
        let mut m = [0.0; ANG];
        add_extras(&e, RollingModel::ElasticPlastic, &t, &mut c, &mut m, 1e-3);
        assert!((c.f[0] - (-1.0 + 1.5)).abs() < 1e-15);
        // k_r w dt = k_t R_eff^2 w dt = 40 x 0.5^2 x 2 x 1e-3 = 0.02, below the cap mu_r R_eff |F_n| = 0.05.
        assert!((c.ti[ANG - 1] + 0.02).abs() < 1e-15 && (c.tj[ANG - 1] - 0.02).abs() < 1e-15);
        assert!(!PairExtras::NONE.any() && e.any());
    }
}
