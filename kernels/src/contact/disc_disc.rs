//! Disc-disc contact: geometry and relative velocity of two discs, then the contact law.
use super::law::{linear_spring_dashpot, ContactParams, NormalModel};

pub use super::ContactForce;

/// The law applied in a contact frame. `h` is the normal model's factor
/// ([`NormalModel::factor`]), `n` the unit normal from body i to body j, `dv = v_i - v_j`
/// at the centres, `roll = omega_i r_i + omega_j r_j` the rotational part of the slip,
/// `ri`, `rj` the lever arms of the contact point.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn contact_in_frame(
    p: &ContactParams,
    h: f64,
    nx: f64,
    ny: f64,
    overlap: f64,
    dvx: f64,
    dvy: f64,
    roll: f64,
    ri: f64,
    rj: f64,
    meff: f64,
    xi: &mut f64,
    dt: f64,
) -> ContactForce {
    // t = (-n_y, n_x); slip of i's contact point relative to j's along t.
    let v_n = dvx * nx + dvy * ny;
    let v_t = -dvx * ny + dvy * nx + roll;
    let f = linear_spring_dashpot(p, h, overlap, v_n, v_t, meff, xi, dt);
    // Force on i: -F_n n + F_t t. Torque on i: (r_i n) x (F_t t) = r_i F_t; on j:
    // (-r_j n) x (-F_t t) = r_j F_t.
    ContactForce {
        f: [-f.normal * nx - f.tangential * ny, -f.normal * ny + f.tangential * nx],
        ti: [ri * f.tangential],
        tj: [rj * f.tangential],
        overlap,
    }
}

/// Are two discs apart (`dx, dy = x_j - x_i`)? Coincident discs (distance 0) touch, with
/// the full overlap `r_i + r_j`. The pair loops ask this first and load velocities and
/// masses only for the pairs that touch.
#[inline(always)]
pub fn discs_apart(dx: f64, dy: f64, ri: f64, rj: f64) -> bool {
    let rs = ri + rj;
    dx * dx + dy * dy >= rs * rs
}

/// The unit normal from disc i to disc j at centre distance `d` (`dx, dy = x_j - x_i`).
/// Coincident centres (`d = 0`, also a distance whose square underflows) have no
/// direction of their own: they get [`COINCIDENT_NORMAL`], so that i is pushed to -x and
/// j to +x. The pair loops hold pairs with i < j in the particle store's order, the same
/// whatever the thread count or force-summation strategy, so the result is too.
///
/// The choice compiles to a select, not a branch: a few instructions per touching pair
/// (an out-of-line cold path costs far more in the hot loop, whose floating-point values
/// would have to be saved around the call; BENCHMARKS.md has the counts).
#[inline(always)]
pub fn contact_normal(dx: f64, dy: f64, d: f64) -> (f64, f64) {
    if d > 0.0 {
        let inv = 1.0 / d;
        (dx * inv, dy * inv)
    } else {
        COINCIDENT_NORMAL
    }
}

/// The normal of a pair of coincident discs: +x, from the first to the second.
pub const COINCIDENT_NORMAL: (f64, f64) = (1.0, 0.0);

/// The centres' distance, the unit normal from i to j and the effective mass of a pair:
/// the first stage of the law (before [`disc_disc_touching`]), a square root and two
/// divisions, which the batched pair loop runs over all its lanes before the rest (in one
/// loop with the rest, the law's other operations waited on their latency: BENCHMARKS.md,
/// issue 18 item 6).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairFrame {
    /// The centres' distance.
    pub d: f64,
    /// The unit normal ([`contact_normal`]).
    pub n: [f64; 2],
    /// 1 / (1/m_i + 1/m_j) (infinite for two bodies of infinite mass).
    pub meff: f64,
}

/// The [`PairFrame`] of discs at `dx, dy = x_j - x_i` whose inverse masses sum to
/// `inv_mass_sum`.
#[inline(always)]
pub fn pair_frame(dx: f64, dy: f64, inv_mass_sum: f64) -> PairFrame {
    let d = (dx * dx + dy * dy).sqrt();
    let (nx, ny) = contact_normal(dx, dy, d);
    PairFrame {
        d,
        n: [nx, ny],
        meff: 1.0 / inv_mass_sum,
    }
}

/// Contact of two touching discs (not [`discs_apart`]) given their [`PairFrame`], under
/// the normal model `model` (R_eff = R_i R_j / (R_i + R_j) under Hertz, as LAMMPS
/// gran/hertz/history in 2D). `dvx, dvy = v_i - v_j`; the overlap is `r_i + r_j - d`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn disc_disc_touching(
    p: &ContactParams,
    model: NormalModel,
    frame: &PairFrame,
    ri: f64,
    rj: f64,
    dvx: f64,
    dvy: f64,
    wi: f64,
    wj: f64,
    xi: &mut f64,
    dt: f64,
) -> ContactForce {
    let [nx, ny] = frame.n;
    let overlap = ri + rj - frame.d;
    let h = model.factor(overlap, ri * rj / (ri + rj));
    contact_in_frame(
        p,
        h,
        nx,
        ny,
        overlap,
        dvx,
        dvy,
        wi * ri + wj * rj,
        ri,
        rj,
        frame.meff,
        xi,
        dt,
    )
}

/// Contact of disc i and disc j, or `None` when they do not touch (the caller then
/// resets the tangential spring). `dx, dy = x_j - x_i`; `dvx, dvy = v_i - v_j`;
/// `inv_mass_sum = 1/m_i + 1/m_j` (> 0).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn disc_disc(
    p: &ContactParams,
    model: NormalModel,
    dx: f64,
    dy: f64,
    ri: f64,
    rj: f64,
    dvx: f64,
    dvy: f64,
    wi: f64,
    wj: f64,
    inv_mass_sum: f64,
    xi: &mut f64,
    dt: f64,
) -> Option<ContactForce> {
    if discs_apart(dx, dy, ri, rj) {
        return None;
    }
    let frame = pair_frame(dx, dy, inv_mass_sum);
    Some(disc_disc_touching(p, model, &frame, ri, rj, dvx, dvy, wi, wj, xi, dt))
}

#[cfg(test)]
mod tests {
    use super::*;
    use NormalModel::Hooke;

    const P: ContactParams = ContactParams {
        kn: 1000.0,
        kt: 300.0,
        gamma_n: 0.0,
        gamma_t: 0.0,
        mu: 0.5,
    };

    #[test]
    fn head_on_is_repulsive_and_torque_free() {
        let mut xi = 0.0;
        let c = disc_disc(&P, Hooke, 1.9, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0, &mut xi, 1e-3).unwrap();
        assert!((c.f[0] + 1000.0 * 0.1).abs() < 1e-9);
        assert_eq!(c.f[1], 0.0);
        assert_eq!(c.ti[0], 0.0);
        assert!(disc_disc(&P, Hooke, 2.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0, &mut xi, 1e-3).is_none());
    }

    /// Coincident discs (two sources in one region, two atoms at one x, y) used to get no
    /// force and stayed stuck together: the full overlap r_i + r_j pushes them apart along
    /// +-x, i to -x.
    #[test]
    fn coincident_discs_push_apart_along_x() {
        let mut xi = 0.0;
        let c = disc_disc(&P, Hooke, 0.0, 0.0, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0, 2.0, &mut xi, 1e-3).unwrap();
        assert_eq!(c.overlap, 1.5);
        assert_eq!((c.f[0], c.f[1], c.ti[0], c.tj[0]), (-1000.0 * 1.5, 0.0, 0.0, 0.0));
        // A distance whose square underflows is coincident too (no NaN from 1/d).
        let c = disc_disc(
            &P, Hooke, 1e-170, -1e-170, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0, &mut xi, 1e-3,
        )
        .unwrap();
        assert!(c.f[0] == -2000.0 && c.f[1] == 0.0, "{c:?}");
        // A tiny distance whose square is a normal number has its own direction.
        let c = disc_disc(&P, Hooke, 0.0, 1e-150, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0, &mut xi, 1e-3).unwrap();
        assert!(c.f[0] == 0.0 && c.f[1] == -2000.0, "{c:?}");
    }

    #[test]
    fn friction_opposes_slip_and_spins_both_the_same_way() {
        // i below j, i slides in +x: friction on i points to -x; torques on both from
        // lever arms along the normal.
        let mut xi = 0.0;
        let c = disc_disc(&P, Hooke, 0.0, 1.9, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 2.0, &mut xi, 1e-3).unwrap();
        assert!(c.f[0] < 0.0, "{c:?}");
        // F_t along t = (-1, 0): positive F_t means force in -x.
        assert!(c.ti[0] > 0.0 && c.tj[0] > 0.0);
    }
}
