//! Sphere-sphere contact in 3D: the linear spring-dashpot (or Hertz) normal force and the
//! Cundall-Strack tangential spring as a vector carried in the contact table, advanced by
//! the slip and turned onto the current tangent plane every step, capped by Coulomb
//! friction: LAMMPS `pair gran/hooke/history` and `gran/hertz/history`, so that the two
//! codes agree on one bed (Cundall & Strack 1979; Silbert et al. 2001, eqs. 1-4).
//!
//! Frame: `n` is the unit normal from sphere i to sphere j, `v_rel = v_i - v_j` at the
//! centres, `w = R_i omega_i + R_j omega_j`. The slip of i's contact point relative to
//! j's is `v_rel + w x n`; its part along n is the approach speed v_n, the rest the
//! tangential slip v_t.
use super::law::{ContactParams, NormalModel};
use super::ContactForce;
use crate::math::{add, cross, dot, norm2, scale, sub};

/// The law in a contact frame (see the module notes): the force on body i and the
/// tangential force alone (for the torques), with the spring `xi` advanced by one step.
/// `h` is the normal model's factor ([`NormalModel::factor`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn contact_in_frame(
    p: &ContactParams,
    h: f64,
    n: [f64; 3],
    overlap: f64,
    v_rel: [f64; 3],
    w: [f64; 3],
    meff: f64,
    xi: &mut [f64; 3],
    dt: f64,
) -> ([f64; 3], [f64; 3]) {
    let v_n = dot(v_rel, n);
    let v_t = add(sub(v_rel, scale(v_n, n)), cross(w, n));
    // Repulsive when positive; not clipped at zero (as LAMMPS hooke), so that the damped
    // oscillator's restitution holds exactly.
    let normal = h * (p.kn * overlap + meff * p.gamma_n * v_n);
    // The spring: the slip of this step added, its length before the turn kept (a spring
    // that has never stretched gives no force when it slides), then turned onto the
    // tangent plane by removing its part along the current normal.
    *xi = add(*xi, scale(dt, v_t));
    let stretched = norm2(*xi) != 0.0;
    *xi = sub(*xi, scale(dot(*xi, n), n));
    let damp = scale(meff * p.gamma_t, v_t);
    let ft = scale(-h, add(scale(p.kt, *xi), damp));
    let fs2 = norm2(ft);
    let limit = p.mu * normal.abs();
    // Sliding: cap the force at mu |F_n| and shorten the spring so that it carries exactly
    // the capped force (LAMMPS does the same); a spring that never stretched gives none.
    // Both outcomes computed and one chosen, without a branch, so that the batched pair
    // loop runs this over vector lanes (the one not chosen may hold an infinity or a NaN,
    // from kt = 0 or fs2 = 0: unread).
    let sliding = fs2 > limit * limit;
    let s = limit / fs2.sqrt();
    let d = scale(1.0 / p.kt, damp);
    let capped = sub(scale(s, add(*xi, d)), d);
    *xi = if sliding && stretched && p.kt > 0.0 {
        capped
    } else {
        *xi
    };
    let ft = match (sliding, stretched) {
        (false, _) => ft,
        (true, true) => scale(s, ft),
        (true, false) => [0.0; 3],
    };
    (add(scale(-normal, n), ft), ft)
}

/// Contact of sphere i and sphere j, or `None` when they do not touch (the caller then
/// resets the spring). `d = x_j - x_i`; `v_rel = v_i - v_j`; `inv_mass_sum = 1/m_i +
/// 1/m_j` (> 0).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn sphere_sphere(
    p: &ContactParams,
    model: NormalModel,
    d: [f64; 3],
    ri: f64,
    rj: f64,
    v_rel: [f64; 3],
    omega_i: [f64; 3],
    omega_j: [f64; 3],
    inv_mass_sum: f64,
    xi: &mut [f64; 3],
    dt: f64,
) -> Option<ContactForce> {
    let rs = ri + rj;
    let r2 = norm2(d);
    if r2 >= rs * rs {
        return None;
    }
    Some(sphere_touching(
        p,
        model,
        &pair_frame(d, r2, inv_mass_sum),
        ri,
        rj,
        v_rel,
        omega_i,
        omega_j,
        xi,
        dt,
    ))
}

/// The centres' distance, the unit normal from i to j and the effective mass of a
/// touching pair: the first stage of the law (before [`sphere_touching`]), a square root
/// and two divisions, which the batched pair loop runs over all its pairs before the rest
/// (in one loop with the rest, the law's other operations waited on their latency:
/// BENCHMARKS.md, issue 19).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairFrame {
    /// |d|.
    pub r: f64,
    /// d / |d|; +x at coincident centres, as for coincident discs.
    pub n: [f64; 3],
    /// 1 / (1/m_i + 1/m_j).
    pub meff: f64,
}

/// The [`PairFrame`] of a pair at separation `d = x_j - x_i`, `r2 = |d|^2`, whose inverse
/// masses sum to `inv_mass_sum`.
#[inline(always)]
pub fn pair_frame(d: [f64; 3], r2: f64, inv_mass_sum: f64) -> PairFrame {
    let r = r2.sqrt();
    let inv_r = 1.0 / r;
    PairFrame {
        r,
        n: if r > 0.0 { scale(inv_r, d) } else { [1.0, 0.0, 0.0] },
        meff: 1.0 / inv_mass_sum,
    }
}

/// Contact of two spheres that touch, `|d|^2 < (r_i + r_j)^2` (the caller's test), given
/// their [`PairFrame`] (the other arguments as [`sphere_sphere`]'s). No branch: the batched
/// pair loop runs it over vector lanes.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn sphere_touching(
    p: &ContactParams,
    model: NormalModel,
    frame: &PairFrame,
    ri: f64,
    rj: f64,
    v_rel: [f64; 3],
    omega_i: [f64; 3],
    omega_j: [f64; 3],
    xi: &mut [f64; 3],
    dt: f64,
) -> ContactForce {
    let rs = ri + rj;
    let n = frame.n;
    let overlap = rs - frame.r;
    let h = model.factor(overlap, ri * rj / rs);
    let w = add(scale(ri, omega_i), scale(rj, omega_j));
    let (force, ft) = contact_in_frame(p, h, n, overlap, v_rel, w, frame.meff, xi, dt);
    // Torques of the tangential force about the centres: i's contact point at +R_i n,
    // j's at -R_j n with the opposite force.
    let nf = cross(n, ft);
    ContactForce {
        f: force,
        ti: scale(ri, nf),
        tj: scale(rj, nf),
        overlap,
    }
}

/// Elastic energy of a contact: the normal spring's work (Hooke: k_n delta^2 / 2; Hertz:
/// (2/5) k_n sqrt(R_eff) delta^(5/2)) plus h k_t |xi|^2 / 2, the tangential spring's of
/// stiffness h k_t at the current overlap (h: [`NormalModel::factor`], 1 under Hooke).
pub fn elastic_energy(p: &ContactParams, model: NormalModel, overlap: f64, r_eff: f64, xi: [f64; 3]) -> f64 {
    model.spring_energy(p.kn, overlap, r_eff) + 0.5 * model.factor(overlap, r_eff) * p.kt * norm2(xi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::law::ContactParams;

    const R: f64 = 1e-3;
    const RHO: f64 = 2500.0;

    fn mass(r: f64) -> f64 {
        4.0 / 3.0 * std::f64::consts::PI * r * r * r * RHO
    }

    /// Two equal spheres meeting head-on, stepped with velocity Verlet at dt = t_c / 2000:
    /// (contact time, coefficient of restitution).
    fn head_on(p: &ContactParams, model: NormalModel, v0: f64) -> (f64, f64) {
        let m = mass(R);
        let dt = 1e-9;
        let (mut x, mut v) = ([0.0, 2.0 * R + 1e-9], [v0, -v0]);
        let mut xi = [0.0; 3];
        let (mut t, mut start, mut end) = (0.0, None, None);
        let force = |x: [f64; 2], v: [f64; 2], xi: &mut [f64; 3]| {
            let c = sphere_sphere(
                p,
                model,
                [0.0, 0.0, x[1] - x[0]],
                R,
                R,
                [0.0, 0.0, v[0] - v[1]],
                [0.0; 3],
                [0.0; 3],
                2.0 / m,
                xi,
                dt,
            );
            c.map_or(0.0, |c| c.f[2])
        };
        let mut f = force(x, v, &mut xi);
        while end.is_none() {
            v[0] += 0.5 * dt * f / m;
            v[1] -= 0.5 * dt * f / m;
            x[0] += dt * v[0];
            x[1] += dt * v[1];
            t += dt;
            f = force(x, v, &mut xi);
            v[0] += 0.5 * dt * f / m;
            v[1] -= 0.5 * dt * f / m;
            let touching = x[1] - x[0] < 2.0 * R;
            if touching && start.is_none() {
                start = Some(t);
            }
            if !touching && start.is_some() {
                end = Some(t);
            }
            assert!(t < 1.0, "no rebound");
        }
        (end.unwrap() - start.unwrap(), (v[1] - v[0]) / (2.0 * v0))
    }

    /// Hooke: contact time pi / sqrt(k/m_eff - gamma^2/4) and restitution
    /// exp(-gamma t_c / 2) (the damped oscillator), within 1 %.
    #[test]
    fn hooke_head_on_matches_the_damped_oscillator() {
        let meff = mass(R) / 2.0;
        for e in [0.5, 0.9] {
            let kn = 1e6;
            let p = ContactParams {
                kn,
                kt: 2.0 / 7.0 * kn,
                gamma_n: ContactParams::gamma_for_restitution(kn, meff, e),
                gamma_t: 0.0,
                mu: 0.5,
            };
            let (tc, got) = head_on(&p, NormalModel::Hooke, 0.1);
            assert!((got - e).abs() < 0.01 * e, "restitution {got} for {e}");
            let want = p.contact_time(meff);
            assert!((tc - want).abs() < 0.01 * want, "contact time {tc} for {want}");
        }
    }

    /// Hertz without damping: restitution 1 (energy kept within 0.1 %) and the contact
    /// time 2.9432 delta_max / v (delta_max from (2/5) K delta^(5/2) = m_eff v^2 / 2, K =
    /// k_n sqrt(R_eff)).
    #[test]
    fn hertz_head_on_keeps_energy_and_lasts_the_hertz_time() {
        let meff = mass(R) / 2.0;
        let p = ContactParams {
            kn: 1e8,
            kt: 0.0,
            gamma_n: 0.0,
            gamma_t: 0.0,
            mu: 0.0,
        };
        let v0 = 0.1;
        let (tc, e) = head_on(&p, NormalModel::Hertz, v0);
        assert!((e - 1.0).abs() < 1e-3, "restitution {e}");
        let k = p.kn * (R / 2.0).sqrt();
        // Approach speed 2 v0.
        let dmax = (5.0 * meff * (2.0 * v0) * (2.0 * v0) / (4.0 * k)).powf(0.4);
        let want = 2.9432 * dmax / (2.0 * v0);
        assert!((tc - want).abs() < 0.01 * want, "contact time {tc} for {want}");
    }

    /// The spring turns with the pair: two touching spheres orbiting their midpoint as one
    /// rigid body keep their spring in the tangent plane, of the same length (the
    /// projection onto the new plane shortens it by 1 - cos(omega dt) a step: 2.5e-6 here).
    #[test]
    fn spring_turns_onto_the_tangent_plane() {
        let p = ContactParams {
            kn: 1e6,
            kt: 1e5,
            gamma_n: 0.0,
            gamma_t: 0.0,
            mu: 1e9,
        };
        let (dt, spin) = (1e-6, 50.0);
        // Barely touching: the contact points' lever arms (R) then equal half the centre
        // distance, and the pair's rotation is no slip at the contact.
        let d0 = 2.0 * R - 1e-15;
        let mut xi = [0.0, 1e-7, 0.0];
        for k in 0..2000 {
            let a = spin * dt * k as f64;
            let d = [d0 * a.cos(), d0 * a.sin(), 0.0];
            // Rigid rotation about z through the midpoint: v_i - v_j = -(omega x d), and
            // each sphere spins with the pair.
            let v_rel = scale(-1.0, cross([0.0, 0.0, spin], d));
            let c = sphere_sphere(
                &p,
                NormalModel::Hooke,
                d,
                R,
                R,
                v_rel,
                [0.0, 0.0, spin],
                [0.0, 0.0, spin],
                1.0,
                &mut xi,
                dt,
            )
            .unwrap();
            let n = scale(1.0 / d0, d);
            assert!(dot(xi, n).abs() < 1e-20, "spring off the tangent plane");
            assert!(c.f[2] == 0.0 && c.ti[0] == 0.0 && c.ti[1] == 0.0);
        }
        let len = norm2(xi).sqrt();
        assert!((len - 1e-7).abs() < 1e-3 * 1e-7, "spring length {len}");
    }

    /// Torques: the tangential force at the contact point turns both spheres the same way
    /// (a sphere sliding past another), and the normal force gives none.
    #[test]
    fn friction_torques_and_coulomb_cap() {
        let p = ContactParams {
            kn: 1e6,
            kt: 1e5,
            gamma_n: 0.0,
            gamma_t: 0.0,
            mu: 0.3,
        };
        let mut xi = [0.0; 3];
        // j above i (along z), i sliding in +x fast: friction on i points to -x, capped.
        let c = sphere_sphere(
            &p,
            NormalModel::Hooke,
            [0.0, 0.0, 2.0 * R - 1e-5],
            R,
            R,
            [10.0, 0.0, 0.0],
            [0.0; 3],
            [0.0; 3],
            1.0,
            &mut xi,
            1e-5,
        )
        .unwrap();
        let fnormal = 1e6 * 1e-5;
        assert!((c.f[2] + fnormal).abs() < 1e-9, "{c:?}");
        assert!((c.f[0] + 0.3 * fnormal).abs() < 1e-9, "{c:?}");
        // F_t = -0.3 F_n x at i's top (+R z): torque R z x (-F x) = -R F y, on both.
        assert!(c.ti[1] < 0.0 && (c.ti[1] - c.tj[1]).abs() < 1e-15);
        // The spring carries exactly the capped force.
        assert!((p.kt * xi[0] - 0.3 * fnormal).abs() < 1e-9);
        assert!(sphere_sphere(
            &p,
            NormalModel::Hooke,
            [0.0, 0.0, 2.0 * R],
            R,
            R,
            [0.0; 3],
            [0.0; 3],
            [0.0; 3],
            1.0,
            &mut xi,
            1e-5
        )
        .is_none());
    }

    /// The law with the Coulomb cap as branches, as it was written before the selects;
    /// also which case of the cap it took: (sliding, stretched).
    #[allow(clippy::too_many_arguments)]
    fn branchy(
        p: &ContactParams,
        n: [f64; 3],
        overlap: f64,
        v_rel: [f64; 3],
        w: [f64; 3],
        meff: f64,
        xi: &mut [f64; 3],
        dt: f64,
    ) -> ([f64; 3], [f64; 3], (bool, bool)) {
        let h = 1.0;
        let v_n = dot(v_rel, n);
        let v_t = add(sub(v_rel, scale(v_n, n)), cross(w, n));
        let normal = h * (p.kn * overlap + meff * p.gamma_n * v_n);
        *xi = add(*xi, scale(dt, v_t));
        let stretched = norm2(*xi) != 0.0;
        *xi = sub(*xi, scale(dot(*xi, n), n));
        let damp = scale(meff * p.gamma_t, v_t);
        let mut ft = scale(-h, add(scale(p.kt, *xi), damp));
        let fs2 = norm2(ft);
        let limit = p.mu * normal.abs();
        let sliding = fs2 > limit * limit;
        if sliding {
            if stretched {
                let s = limit / fs2.sqrt();
                if p.kt > 0.0 {
                    let d = scale(1.0 / p.kt, damp);
                    *xi = sub(scale(s, add(*xi, d)), d);
                }
                ft = scale(s, ft);
            } else {
                ft = [0.0; 3];
            }
        }
        (add(scale(-normal, n), ft), ft, (sliding, stretched))
    }

    /// The cap as selects gives the branches' force, tangential force and spring bit for
    /// bit in each of its cases: sticking (also with no spring and no slip: fs2 = 0);
    /// sliding with a stretched spring, kt > 0 and kt = 0; sliding with a spring that
    /// never stretched (the slip of this step cancels it exactly, the dashpot pulls).
    #[test]
    fn coulomb_cap_as_selects_is_the_branches() {
        let base = ContactParams {
            kn: 1e6,
            kt: 2e5,
            gamma_n: 50.0,
            gamma_t: 20.0,
            mu: 0.5,
        };
        let n = [0.6, 0.0, 0.8];
        // Along the tangent plane exactly: 0.6 * 0.8 and 0.8 * -0.6 cancel.
        let tangent = [0.8, 0.3, -0.6];
        let (meff, dt) = (1e-3, 1e-6);
        let mut seen = std::collections::BTreeSet::new();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for case in 0..4000 {
            let mut p = base;
            if case % 3 == 1 {
                p.kt = 0.0;
            }
            if case % 5 == 2 {
                p.mu = 0.01 * (rnd() + 0.5);
            }
            let size = [1e-9, 1e-6, 1e-3][case % 3];
            let (xi0, v_rel, w) = match case % 7 {
                // No spring, no slip.
                3 => ([0.0; 3], scale(rnd(), n), [0.0; 3]),
                // A spring the slip of this step cancels.
                5 => {
                    let v = scale(rnd(), tangent);
                    (scale(-dt, v), v, [0.0; 3])
                }
                _ => (
                    std::array::from_fn(|_| size * rnd()),
                    std::array::from_fn(|_| rnd()),
                    std::array::from_fn(|_| 1e-3 * rnd()),
                ),
            };
            let overlap = 1e-6 * (1.0 + rnd());
            let (mut a, mut b) = (xi0, xi0);
            let got = contact_in_frame(&p, 1.0, n, overlap, v_rel, w, meff, &mut a, dt);
            let want = branchy(&p, n, overlap, v_rel, w, meff, &mut b, dt);
            let bits = |v: [f64; 3]| v.map(f64::to_bits);
            assert_eq!(bits(got.0), bits(want.0), "force, case {case}");
            assert_eq!(bits(got.1), bits(want.1), "tangential force, case {case}");
            assert_eq!(bits(a), bits(b), "spring, case {case}");
            let (sliding, stretched) = want.2;
            seen.insert((sliding, stretched, sliding && p.kt > 0.0, norm2(got.1) == 0.0));
        }
        for want in [
            (false, true, false, false),
            (false, false, false, true),
            (true, true, true, false),
            (true, true, false, false),
            (true, false, false, true),
        ] {
            assert!(
                seen.contains(&want),
                "case (sliding, stretched, kt > 0, no force) {want:?} not met: {seen:?}"
            );
        }
    }
}
