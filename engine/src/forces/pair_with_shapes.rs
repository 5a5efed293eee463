//! One candidate pair of a simulation with polygons, whatever its two shapes: the
//! bounding-circle test (every pair), then the disc-disc, disc-polygon or polygon-polygon
//! contact. Pairs with a polygon are counted in the narrow-phase statistics.
use talus_kernels::contact::disc_disc::{disc_disc_touching, ContactForce};

use super::disc_polygon::disc_polygon_pair;
use super::polygon_polygon::polygon_pair;
use super::{NarrowWork, SlotState};
use crate::material::PairTable;
use crate::shapes::Shapes;
use crate::store::ParticleStore;

/// The force on i (j gets its opposite), or None.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn pair_with_shapes(
    ps: &ParticleStore,
    sh: &Shapes,
    params: &PairTable,
    i: usize,
    j: usize,
    slot: SlotState,
    dt: f64,
    work: &mut NarrowWork,
) -> Option<ContactForce> {
    let (pi, pj) = (sh.is_polygon(i), sh.is_polygon(j));
    let (dx, dy) = (ps.pos[0][j] - ps.pos[0][i], ps.pos[1][j] - ps.pos[1][i]);
    let rs = ps.radius[i] + ps.radius[j];
    let d2 = dx * dx + dy * dy;
    if pi || pj {
        work.stats.candidates += 1;
    }
    if d2 >= rs * rs {
        *slot.xi = 0.0;
        *slot.area = 0.0;
        if pi || pj {
            work.stats.circle_rejected += 1;
        }
        return None;
    }
    let inv = ps.inv_mass[i] + ps.inv_mass[j];
    if inv == 0.0 {
        return None;
    }
    let prm = params.get(ps.material[i], ps.material[j]);
    if pi && pj {
        let c = polygon_pair(ps, sh, prm, i, j, inv, slot, dt, work);
        work.stats.touching += c.is_some() as u64;
        return c;
    }
    let c = match (pi, pj) {
        (false, false) => {
            // Coincident discs (d = 0) get the full overlap along the fixed normal of
            // `contact_normal`, as in the disc-only loop.
            let d = d2.sqrt();
            Some(disc_disc_touching(
                prm,
                dx,
                dy,
                d,
                rs - d,
                ps.radius[i],
                ps.radius[j],
                ps.vel[0][i] - ps.vel[0][j],
                ps.vel[1][i] - ps.vel[1][j],
                ps.omega[0][i],
                ps.omega[0][j],
                inv,
                slot.xi,
                dt,
            ))
        }
        _ => disc_polygon_pair(ps, sh, prm, i, j, inv, slot.xi, dt),
    };
    match c {
        Some(c) => {
            if pi || pj {
                work.stats.touching += 1;
            }
            Some(c)
        }
        None => {
            *slot.xi = 0.0;
            None
        }
    }
}
