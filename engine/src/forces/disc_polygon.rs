//! A disc and a polygon in contact (either order in the pair): the kernel's force from
//! the polygon's boundary point nearest to the disc's centre
//! (`kernels::contact::polygon_polygon::disc_polygon`).
use talus_kernels::contact::disc_disc::ContactForce;
use talus_kernels::contact::polygon_polygon::disc_polygon;
use talus_kernels::contact::ContactParams;

use super::polygon_body;
use crate::shapes::Shapes;
use crate::store::ParticleStore;

/// The force on i (j gets its opposite), or None; one of i, j is a disc, the other a
/// polygon. `inv` is the sum of their inverse masses.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn disc_polygon_pair(
    ps: &ParticleStore,
    sh: &Shapes,
    prm: &ContactParams,
    i: usize,
    j: usize,
    inv: f64,
    xi: &mut f64,
    dt: f64,
) -> Option<ContactForce> {
    let body = |p: usize| polygon_body(ps, sh, p);
    if sh.is_polygon(j) {
        disc_polygon(prm, &body(i), &body(j), inv, xi, dt)
    } else {
        // The kernel takes the disc first: its force on j, turned into the force on i.
        disc_polygon(prm, &body(j), &body(i), inv, xi, dt).map(|c| ContactForce {
            f: [-c.f[0], -c.f[1]],
            ti: [c.tj[0]],
            tj: [c.ti[0]],
            overlap: c.overlap,
        })
    }
}
