//! Rolling resistance: a torque against the relative rolling of two touching bodies, as
//! LIGGGHTS `rolling_friction epsd2` (an elastic-plastic spring; Iwashita & Oda 1998, Ai
//! et al. 2011 type C) and `rolling_friction cdt` (a constant directional torque; Zhou et
//! al. 1999). Round grains roll too easily: the torque stands in for the contact's
//! width and the grains' angularity.
//!
//! Body i gets the torque -M, body j +M (a wall takes none). The relative rotation is
//! w = omega_i - omega_j (a wall: omega_i), in 3D without its part along the contact
//! normal (that is twisting, not rolling).
use crate::math::{Vector, ANG};

/// Which rolling-resistance law a simulation uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RollingModel {
    /// LIGGGHTS epsd2: M += k_r w dt with k_r = k_t R_eff^2 (the pair's tangential
    /// stiffness, with the Hertz factor where the normal model has it), capped at
    /// mu_r R_eff |F_n|; the torque is kept from step to step in the contact.
    #[default]
    ElasticPlastic,
    /// LIGGGHTS cdt: M = mu_r R_eff k_n delta w / |w| (the elastic normal force): no
    /// memory, full torque whenever the pair rolls; it chatters about w = 0, which epsd2's
    /// spring does not.
    ConstantTorque,
}

impl RollingModel {
    /// The law's name in LIGGGHTS and in a scenario's `[contact] rolling`.
    pub fn name(self) -> &'static str {
        match self {
            RollingModel::ElasticPlastic => "epsd2",
            RollingModel::ConstantTorque => "cdt",
        }
    }
}

/// The part of a relative rotation that is rolling: in 2D all of it (rotation about z is
/// always across an in-plane normal), in 3D the part across the normal `n`.
#[inline(always)]
#[cfg_attr(not(feature = "dim3"), allow(unused_variables))]
fn across(w: [f64; ANG], n: Vector) -> [f64; ANG] {
    #[cfg(not(feature = "dim3"))]
    return w;
    #[cfg(feature = "dim3")]
    {
        let along = w[0] * n[0] + w[1] * n[1] + w[2] * n[2];
        [w[0] - along * n[0], w[1] - along * n[1], w[2] - along * n[2]]
    }
}

/// The length of a torque or rotation: in 2D its one component's size.
#[inline(always)]
fn magnitude(t: [f64; ANG]) -> f64 {
    if ANG == 1 {
        t[0].abs()
    } else {
        t.iter().map(|t| t * t).sum::<f64>().sqrt()
    }
}

/// The rolling torque M of one contact (i gets -M) under `model`, for rolling friction
/// coefficient `mu_r`, effective radius `r_eff`, the pair's stiffnesses `kn`, `kt` as the
/// normal model scales them, overlap `delta`, total normal force `normal` (repulsive
/// positive, damping included), relative rotation `w` and contact normal `n`. `m` is the
/// torque kept in the contact (epsd2), advanced by one step `dt`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn rolling_torque(
    model: RollingModel,
    mu_r: f64,
    r_eff: f64,
    kn: f64,
    kt: f64,
    delta: f64,
    normal: f64,
    w: [f64; ANG],
    n: Vector,
    m: &mut [f64; ANG],
    dt: f64,
) -> [f64; ANG] {
    let w = across(w, n);
    match model {
        RollingModel::ElasticPlastic => {
            // The spring turned with the contact: only its rolling part kept.
            let kr = kt * r_eff * r_eff;
            let mut t = across(*m, n);
            for (t, w) in t.iter_mut().zip(w) {
                *t += kr * dt * w;
            }
            let limit = mu_r * r_eff * normal.abs();
            let size = magnitude(t);
            if size > limit {
                // Rolling on: the torque at its limit, and the spring holding just that.
                let s = limit / size;
                t.iter_mut().for_each(|t| *t *= s);
            }
            *m = t;
            t
        }
        RollingModel::ConstantTorque => {
            let size = magnitude(w);
            if size > 0.0 {
                let s = mu_r * r_eff * kn * delta / size;
                w.map(|w| s * w)
            } else {
                [0.0; ANG]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis() -> Vector {
        let mut n = [0.0; crate::math::DIM];
        n[1] = 1.0;
        n
    }

    fn spin(s: f64) -> [f64; ANG] {
        let mut w = [0.0; ANG];
        w[ANG - 1] = s;
        w
    }

    /// epsd2 builds up k_r w dt a step until it reaches mu_r R_eff |F_n|, then holds there;
    /// turned back, the spring unloads at once.
    #[test]
    fn elastic_plastic_loads_then_caps() {
        let (mu_r, r, kt, fnorm, dt) = (0.1, 1e-3, 1e5, 2.0, 1e-6);
        let mut m = [0.0; ANG];
        let kr = kt * r * r;
        let mut turn = |w: f64| {
            let model = RollingModel::ElasticPlastic;
            rolling_torque(model, mu_r, r, 0.0, kt, 0.0, fnorm, spin(w), axis(), &mut m, dt)
        };
        let t = turn(3.0);
        assert!((t[ANG - 1] - kr * 3.0 * dt).abs() < 1e-18);
        let limit = mu_r * r * fnorm;
        let mut t = t;
        for _ in 0..100_000 {
            t = turn(3.0);
        }
        assert!((t[ANG - 1] - limit).abs() < 1e-15 * limit.max(1.0), "{t:?} {limit}");
        let t = turn(-1.0);
        assert!((t[ANG - 1] - (limit - kr * dt)).abs() < 1e-15);
    }

    /// cdt: mu_r R_eff k_n delta along w, none without rolling.
    #[test]
    fn constant_torque_follows_the_spin() {
        let mut m = [0.0; ANG];
        let mut turn = |w: [f64; ANG]| {
            let model = RollingModel::ConstantTorque;
            rolling_torque(model, 0.2, 0.5, 100.0, 0.0, 0.01, 0.0, w, axis(), &mut m, 1e-3)
        };
        let t = turn(spin(-7.0));
        assert!((t[ANG - 1] + 0.2 * 0.5 * 100.0 * 0.01).abs() < 1e-15);
        assert_eq!(turn([0.0; ANG]), [0.0; ANG]);
    }

    /// In 3D a spin about the normal is twisting: no rolling torque for it.
    #[cfg(feature = "dim3")]
    #[test]
    fn twisting_is_not_rolling() {
        let mut m = [0.0; 3];
        let w = [0.0, 5.0, 0.0];
        for model in [RollingModel::ElasticPlastic, RollingModel::ConstantTorque] {
            let t = rolling_torque(
                model,
                0.2,
                0.5,
                100.0,
                100.0,
                0.01,
                1.0,
                w,
                [0.0, 1.0, 0.0],
                &mut m,
                1e-3,
            );
            assert_eq!(t, [0.0; 3]);
        }
    }
}
