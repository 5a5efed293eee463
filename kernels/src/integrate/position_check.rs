//! The check of new positions after a drift: has some particle left the enlarged box the
//! broad phase stored for it (the broad phase must update), has some centre left the
//! domain or become NaN (an error)? Shared by every integrator; the Verlet pass does it
//! fused with its kicks and drift.

use crate::math::{Aabb, Vector, DIM};

/// What [`check_positions`] (and `verlet::kick_drift_check`) check the new positions against.
pub struct Check<'a> {
    /// Bounding radius of each particle (m).
    pub radius: &'a [f64],
    /// Stored enlarged boxes of the broad phase `[lo_x, hi_x, lo_y, hi_y (, lo_z, hi_z)]`.
    pub boxes: &'a [Aabb],
    /// Lower corner of the domain (m).
    pub domain_min: Vector,
    /// Upper corner of the domain (m).
    pub domain_max: Vector,
}

/// Outcome of the position check.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CheckResult {
    /// Some particle's box left its stored enlarged box: the broad phase must update.
    pub left_box: bool,
    /// Some particle centre is outside the domain or not finite.
    pub outside: bool,
    /// A bound on every particle's speed over the step's drift (m/s), so that no centre
    /// moved farther than `speed * dt`: infinite where the pass does not know it (the
    /// check alone), not finite if some velocity is not.
    pub speed: f64,
}

/// Does the disc or sphere at `x` of radius r reach out of its stored box `b`? (`&`, not
/// `&&`: no branches, so that the passes that call it vectorise.)
#[inline(always)]
pub fn left_box(x: Vector, r: f64, b: &Aabb) -> bool {
    let mut inside = true;
    for k in 0..DIM {
        inside &= (x[k] - r >= b[2 * k] as f64) & (x[k] + r <= b[2 * k + 1] as f64);
    }
    !inside
}

/// Is `x` outside the domain? Written so that NaN counts as outside.
#[inline(always)]
pub fn outside_domain(x: Vector, lo: Vector, hi: Vector) -> bool {
    let mut inside = true;
    for k in 0..DIM {
        inside &= (x[k] >= lo[k]) & (x[k] <= hi[k]);
    }
    !inside
}

/// The check of positions `pos` (one array per axis; those of `c.radius` and `c.boxes`).
pub fn check_positions(pos: [&[f64]; DIM], c: &Check) -> CheckResult {
    crate::vector_build::vectorized(
        #[inline(always)]
        || check_positions_impl(pos, c),
    )
}

#[inline(always)]
fn check_positions_impl(pos: [&[f64]; DIM], c: &Check) -> CheckResult {
    let n = pos[0].len();
    let x = pos.map(|a| &a[..n]);
    let (r, bx) = (&c.radius[..n], &c.boxes[..n]);
    let (mut left, mut outside) = (false, false);
    for p in 0..n {
        let at = std::array::from_fn(|k| x[k][p]);
        left |= left_box(at, r[p], &bx[p]);
        outside |= outside_domain(at, c.domain_min, c.domain_max);
    }
    CheckResult {
        left_box: left,
        outside,
        speed: f64::INFINITY,
    }
}

#[cfg(all(test, not(feature = "dim3")))]
mod tests {
    use super::*;

    #[test]
    fn a_disc_out_of_its_box_and_a_centre_out_of_the_domain() {
        let boxes = [[0.0, 2.0, 0.0, 2.0]; 2];
        let c = Check {
            radius: &[0.5, 0.5],
            boxes: &boxes,
            domain_min: [-1.0, -1.0],
            domain_max: [3.0, 3.0],
        };
        let r = check_positions([&[1.0, 1.0], &[1.0, 1.5]], &c);
        assert!(!r.left_box && !r.outside && r.speed == f64::INFINITY, "{r:?}");
        let r = check_positions([&[1.0, 1.0], &[1.0, 1.6]], &c);
        assert!(r.left_box && !r.outside);
        let r = check_positions([&[1.0, f64::NAN], &[1.0, 1.0]], &c);
        assert!(r.left_box && r.outside, "NaN is outside and out of its box");
        let r = check_positions([&[1.0, 3.5], &[1.0, 1.0]], &c);
        assert!(r.outside);
    }
}
