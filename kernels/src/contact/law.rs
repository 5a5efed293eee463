//! The linear spring-dashpot normal force with a Cundall-Strack tangential spring and a
//! Coulomb limit (Muth et al., eqs. 1-2; Cundall & Strack 1979), in the convention of
//! LAMMPS `pair gran/hooke/history`, so that talus and LAMMPS beds are comparable:
//!
//! F_n = h (k_n * delta + m_eff * gamma_n * v_n)        (repulsive when positive)
//! F_t = -h (k_t * xi + m_eff * gamma_t * v_t),  |F_t| <= mu * |F_n|
//!
//! with `gamma` per unit effective mass (1/s), `xi` the tangential spring, the integral
//! of the tangential slip velocity over the life of the contact, and `h` the normal
//! model's factor ([`NormalModel::factor`]: 1 for Hooke, sqrt(delta R_eff) for Hertz, as
//! LAMMPS `gran/hertz/history`). In 2D the tangent is one direction, so `xi` is a scalar
//! that turns with the contact frame. The normal force is not clipped at zero (as in
//! LAMMPS hooke): the analytic solution of the damped oscillator then holds exactly,
//! which the restitution test relies on.

/// Coefficients of one pair of materials.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactParams {
    /// Normal stiffness (N/m).
    pub kn: f64,
    /// Tangential stiffness (N/m).
    pub kt: f64,
    /// Normal damping per unit effective mass (1/s).
    pub gamma_n: f64,
    /// Tangential damping per unit effective mass (1/s).
    pub gamma_t: f64,
    /// Coulomb friction coefficient.
    pub mu: f64,
}

impl ContactParams {
    /// Duration of a binary contact of effective mass `meff` (half period of the damped
    /// oscillator): t_c = pi / sqrt(k_n/m_eff - gamma_n^2/4).
    pub fn contact_time(&self, meff: f64) -> f64 {
        std::f64::consts::PI / (self.kn / meff - 0.25 * self.gamma_n * self.gamma_n).sqrt()
    }

    /// Coefficient of restitution of a binary contact: e = exp(-gamma_n t_c / 2).
    pub fn restitution(&self, meff: f64) -> f64 {
        (-0.5 * self.gamma_n * self.contact_time(meff)).exp()
    }

    /// gamma_n that gives restitution `e` for effective mass `meff`:
    /// from e = exp(-gamma t_c / 2): gamma = 2 zeta sqrt(k/m), zeta = -ln e / sqrt(pi^2 + ln^2 e).
    pub fn gamma_for_restitution(kn: f64, meff: f64, e: f64) -> f64 {
        let l = e.ln();
        let zeta = -l / (std::f64::consts::PI.powi(2) + l * l).sqrt();
        2.0 * zeta * (kn / meff).sqrt()
    }
}

/// How the normal force grows with the overlap: linear (LAMMPS `gran/hooke/history`), or
/// with delta^(3/2) (`gran/hertz/history`, the LIGGGHTS default): the Hookean spring and
/// both dashpots scaled by sqrt(delta R_eff), R_eff = R_i R_j / (R_i + R_j) (a wall: the
/// particle's radius), and so is the tangential force, as in LAMMPS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NormalModel {
    /// F_n linear in delta (LAMMPS `gran/hooke/history`).
    #[default]
    Hooke,
    /// F_n with delta^(3/2), the forces scaled by sqrt(delta R_eff) (`gran/hertz/history`).
    Hertz,
}

impl NormalModel {
    /// Hertz if `hertz`, else Hooke: the model of a loop compiled for one of them.
    #[inline(always)]
    pub const fn hertz_if(hertz: bool) -> Self {
        if hertz {
            NormalModel::Hertz
        } else {
            NormalModel::Hooke
        }
    }

    /// The factor of the forces at `overlap` for effective radius `r_eff`.
    #[inline(always)]
    pub fn factor(self, overlap: f64, r_eff: f64) -> f64 {
        match self {
            NormalModel::Hooke => 1.0,
            NormalModel::Hertz => (overlap * r_eff).sqrt(),
        }
    }

    /// The work of the normal spring up to `overlap`, the integral of its elastic part
    /// (Hooke: k_n delta^2 / 2; Hertz: (2/5) k_n sqrt(R_eff) delta^(5/2)).
    pub fn spring_energy(self, kn: f64, overlap: f64, r_eff: f64) -> f64 {
        match self {
            NormalModel::Hooke => 0.5 * kn * overlap * overlap,
            NormalModel::Hertz => 0.4 * kn * r_eff.sqrt() * overlap.powf(2.5),
        }
    }
}

/// Normal and tangential force magnitudes of one contact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairForce {
    /// Along the contact normal, repulsive when positive.
    pub normal: f64,
    /// Along the tangent t = (-n_y, n_x).
    pub tangential: f64,
}

/// Evaluate the law and advance the tangential spring `xi` by one step `dt`.
/// `h` is the normal model's factor ([`NormalModel::factor`]); `v_n` is the approach
/// speed (positive when closing), `v_t` the tangential slip speed.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn linear_spring_dashpot(
    p: &ContactParams,
    h: f64,
    overlap: f64,
    v_n: f64,
    v_t: f64,
    meff: f64,
    xi: &mut f64,
    dt: f64,
) -> PairForce {
    let normal = h * (p.kn * overlap + meff * p.gamma_n * v_n);
    PairForce {
        normal,
        tangential: coulomb_spring(p, h, normal, v_t, meff, xi, dt),
    }
}

/// The Cundall-Strack tangential force for a contact carrying `normal`: advance the
/// spring `xi` by the slip `v_t dt`, add the dashpot, both scaled by the normal model's
/// factor `h` (1 for Hooke), cap at mu |normal|.
#[inline(always)]
pub fn coulomb_spring(p: &ContactParams, h: f64, normal: f64, v_t: f64, meff: f64, xi: &mut f64, dt: f64) -> f64 {
    *xi += v_t * dt;
    let damp_t = meff * p.gamma_t * v_t;
    let ft = -(h * (p.kt * *xi + damp_t));
    let limit = p.mu * normal.abs();
    if ft.abs() > limit {
        // Sliding: cap the force and shorten the spring so that it carries exactly the
        // capped force (LAMMPS hooke/history and hertz/history do the same: the spring
        // and dashpot scaled by mu |F_n| / |F_t|). The cap is the limit with the force's
        // sign, and the stiffness enters by its reciprocal: the vectorised pair loop
        // computes this in every lane, sliding or not, and a division there was one of
        // four (the other, 1/k_t, is one for the whole loop with one material; h = 1
        // under Hooke, whose division the compiler drops).
        let capped = limit.copysign(ft);
        if p.kt > 0.0 {
            *xi = -(capped / h + damp_t) * (1.0 / p.kt);
        }
        capped
    } else {
        ft
    }
}

/// Elastic energy stored in a contact: the normal spring's work
/// ([`NormalModel::spring_energy`]) plus h k_t xi^2 / 2 (the tangential spring's, of
/// stiffness h k_t at the current overlap).
#[inline]
pub fn elastic_energy(p: &ContactParams, model: NormalModel, overlap: f64, r_eff: f64, xi: f64) -> f64 {
    model.spring_energy(p.kn, overlap, r_eff) + 0.5 * model.factor(overlap, r_eff) * p.kt * xi * xi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restitution_round_trip() {
        let kn = 1e6;
        let meff = 0.5 * 2500.0 * std::f64::consts::PI * 1e-6;
        for e in [0.1, 0.5, 0.9, 0.99] {
            let g = ContactParams::gamma_for_restitution(kn, meff, e);
            let p = ContactParams {
                kn,
                kt: 0.0,
                gamma_n: g,
                gamma_t: 0.0,
                mu: 0.0,
            };
            assert!((p.restitution(meff) - e).abs() < 1e-12);
        }
        // The LAMMPS peer's value: gamma_n = 6876.3 1/s for e = 0.5, R0 = 1 mm.
        let g = ContactParams::gamma_for_restitution(kn, meff, 0.5);
        assert!((g - 6876.3).abs() < 0.1, "{g}");
    }

    #[test]
    fn coulomb_limit_caps_and_rewinds_spring() {
        let p = ContactParams {
            kn: 100.0,
            kt: 50.0,
            gamma_n: 0.0,
            gamma_t: 0.0,
            mu: 0.5,
        };
        let mut xi = 0.0;
        let f = linear_spring_dashpot(&p, 1.0, 0.01, 0.0, 10.0, 1.0, &mut xi, 0.01);
        assert!((f.normal - 1.0).abs() < 1e-12);
        assert!((f.tangential + 0.5).abs() < 1e-12);
        assert!((p.kt * xi - 0.5).abs() < 1e-12);
    }

    /// Under Hertz (factor h) the capped spring carries exactly the capped force too:
    /// -h (k_t xi + m gamma_t v_t) = -mu |F_n|, the dashpot included.
    #[test]
    fn coulomb_limit_under_a_factor_rewinds_to_the_cap() {
        let p = ContactParams {
            kn: 100.0,
            kt: 50.0,
            gamma_n: 0.0,
            gamma_t: 3.0,
            mu: 0.5,
        };
        let (h, v_t, meff) = (0.02, 10.0, 1.0);
        let mut xi = 0.0;
        let f = linear_spring_dashpot(&p, h, 0.01, 0.0, v_t, meff, &mut xi, 0.01);
        assert!((f.normal - h * 1.0).abs() < 1e-15);
        assert!((f.tangential + 0.5 * h).abs() < 1e-15, "{}", f.tangential);
        let carried = -h * (p.kt * xi + meff * p.gamma_t * v_t);
        assert!((carried - f.tangential).abs() < 1e-15, "{carried}");
        // Below the cap the factor scales the spring's force.
        let mut xi = 0.0;
        let f = linear_spring_dashpot(&p, h, 1.0, 0.0, 0.1, meff, &mut xi, 0.01);
        assert!(
            (f.tangential + h * (p.kt * 0.001 + 0.3)).abs() < 1e-15,
            "{}",
            f.tangential
        );
    }
}
