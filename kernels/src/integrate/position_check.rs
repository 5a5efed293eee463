//! The check of new positions after a drift: has some particle left the enlarged box the
//! broad phase stored for it (the broad phase must update), has some centre left the
//! domain or become NaN (an error)? Shared by every integrator; the Verlet pass does it
//! fused with its kicks and drift.

/// What [`check_positions`] (and `verlet::kick_drift_check`) check the new positions against.
pub struct Check<'a> {
    pub radius: &'a [f64],
    /// Stored enlarged boxes of the broad phase `[lo_x, hi_x, lo_y, hi_y]`.
    pub boxes: &'a [[f32; 4]],
    pub domain_min: [f64; 2],
    pub domain_max: [f64; 2],
}

/// Outcome of the position check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CheckResult {
    /// Some particle's box left its stored enlarged box: the broad phase must update.
    pub left_box: bool,
    /// Some particle centre is outside the domain or not finite.
    pub outside: bool,
}

/// Does the disc at (x, y) of radius r reach out of its stored box `b`? (`&`, not `&&`:
/// no branches, so that the passes that call it vectorise.)
#[inline(always)]
pub fn left_box(x: f64, y: f64, r: f64, b: &[f32; 4]) -> bool {
    !((x - r >= b[0] as f64) & (x + r <= b[1] as f64) & (y - r >= b[2] as f64) & (y + r <= b[3] as f64))
}

/// Is (x, y) outside the domain? Written so that NaN counts as outside.
#[inline(always)]
pub fn outside_domain(x: f64, y: f64, lo: [f64; 2], hi: [f64; 2]) -> bool {
    !((x >= lo[0]) & (x <= hi[0]) & (y >= lo[1]) & (y <= hi[1]))
}

/// The check of positions `x`, `y` (those of `c.radius` and `c.boxes`).
pub fn check_positions(x: &[f64], y: &[f64], c: &Check) -> CheckResult {
    crate::vector_build::vectorized(
        #[inline(always)]
        || check_positions_impl(x, y, c),
    )
}

#[inline(always)]
fn check_positions_impl(x: &[f64], y: &[f64], c: &Check) -> CheckResult {
    let n = x.len();
    let (y, r, bx) = (&y[..n], &c.radius[..n], &c.boxes[..n]);
    let (mut left, mut outside) = (false, false);
    for p in 0..n {
        left |= left_box(x[p], y[p], r[p], &bx[p]);
        outside |= outside_domain(x[p], y[p], c.domain_min, c.domain_max);
    }
    CheckResult {
        left_box: left,
        outside,
    }
}

#[cfg(test)]
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
        assert_eq!(check_positions(&[1.0, 1.0], &[1.0, 1.5], &c), CheckResult::default());
        let r = check_positions(&[1.0, 1.0], &[1.0, 1.6], &c);
        assert!(r.left_box && !r.outside);
        let r = check_positions(&[1.0, f64::NAN], &[1.0, 1.0], &c);
        assert!(r.left_box && r.outside, "NaN is outside and out of its box");
        let r = check_positions(&[1.0, 3.5], &[1.0, 1.0], &c);
        assert!(r.outside);
    }
}
