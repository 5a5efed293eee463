//! One candidate pair of a simulation with polygons, whatever its two shapes: the
//! bounding-circle test (every pair), then the disc-disc, disc-polygon or polygon-polygon
//! contact. Pairs with a polygon are counted in the narrow-phase statistics. Where the
//! contact's frame is kept (`F` a `ContactFrame`: some pairs of materials have cohesion)
//! each touching pair is pulled together by its cohesion times its contact line's length
//! (`kernels::contact::extras::add_cohesion_at`); with `F = ()` the pair runs as without.
use talus_kernels::contact::cohesion::chord;
use talus_kernels::contact::disc_disc::{disc_disc_touching, pair_frame, ContactForce};
use talus_kernels::contact::extras::add_cohesion_at;
use talus_kernels::contact::law::NormalModel;
use talus_kernels::contact::polygon_polygon::{ContactFrame, FrameOut};
use talus_kernels::neighbor::MinImage;

use super::disc_polygon::disc_polygon_pair;
use super::narrow_phase::polygon_image;
use super::polygon_polygon::polygon_pair;
use super::{polygon_body, NarrowWork, SlotState};
use crate::material::PairTable;
use crate::shapes::Shapes;
use crate::store::ParticleStore;

/// The force on i (j gets its opposite), or None. In a periodic cell (`image`) j is taken
/// as its image nearest to i (its corners moved into `buf`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn pair_with_shapes<F: FrameOut + Default>(
    ps: &ParticleStore,
    sh: &Shapes,
    params: &PairTable,
    i: usize,
    j: usize,
    slot: SlotState,
    dt: f64,
    work: &mut NarrowWork,
    image: Option<&MinImage>,
    buf: &mut Vec<[f64; 2]>,
) -> Option<ContactForce> {
    let (pi, pj) = (sh.is_polygon(i), sh.is_polygon(j));
    let (mut dx, mut dy) = (ps.pos[0][j] - ps.pos[0][i], ps.pos[1][j] - ps.pos[1][i]);
    // j's image: moved by `shift`, faster along x by `dvx` (Lees-Edwards).
    let (mut shift, mut dvx) = ([0.0; 2], 0.0);
    if let Some(mi) = image {
        let (d, cells) = mi.with_cells([dx, dy]);
        shift = [d[0] - dx, d[1] - dy];
        (dx, dy) = (d[0], d[1]);
        dvx = -cells * mi.shear_velocity;
    }
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
    let (mi, mj) = (ps.material[i], ps.material[j]);
    let prm = params.get(mi, mj);
    let (a, b) = (polygon_body(ps, sh, i), polygon_image(ps, sh, j, shift, dvx, buf));
    let mut frame = F::default();
    let mut c = contact(
        prm,
        &a,
        &b,
        pi,
        pj,
        [dx, dy],
        dvx,
        inv,
        ps,
        i,
        j,
        slot,
        dt,
        work,
        &mut frame,
    )?;
    if let Some(frame) = frame.as_frame() {
        let k = params.extras(mi, mj).cohesion;
        if k != 0.0 {
            add_cohesion_at(k, frame, a.pos, b.pos, &mut c);
        }
    }
    Some(c)
}

/// The contact of i and j (a and b) whose bounding circles overlap, by their shapes.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn contact(
    prm: &talus_kernels::contact::ContactParams,
    a: &talus_kernels::contact::polygon_polygon::ContactBody,
    b: &talus_kernels::contact::polygon_polygon::ContactBody,
    pi: bool,
    pj: bool,
    [dx, dy]: [f64; 2],
    dvx: f64,
    inv: f64,
    ps: &ParticleStore,
    i: usize,
    j: usize,
    slot: SlotState,
    dt: f64,
    work: &mut NarrowWork,
    frame: &mut impl FrameOut,
) -> Option<ContactForce> {
    if pi && pj {
        let c = polygon_pair(prm, a, b, inv, slot, dt, work, frame);
        work.stats.touching += c.is_some() as u64;
        return c;
    }
    let c = match (pi, pj) {
        (false, false) => {
            // Coincident discs (d = 0) get the full overlap along the fixed normal of
            // `contact_normal`, as in the disc-only loop.
            let pf = pair_frame(dx, dy, inv);
            // Hooke: a simulation with polygons takes no other (refused at set-up).
            let c = disc_disc_touching(
                prm,
                NormalModel::Hooke,
                &pf,
                ps.radius[i],
                ps.radius[j],
                ps.vel[0][i] - ps.vel[0][j] - dvx,
                ps.vel[1][i] - ps.vel[1][j],
                ps.omega[0][i],
                ps.omega[0][j],
                slot.xi,
                dt,
            );
            // Cohesion's frame: along the centre line (no torque; the law's normal where
            // the centres coincide), the circles' chord.
            frame.put(|| ContactFrame {
                normal: pf.n,
                point: a.pos,
                size: chord(pf.d, ps.radius[i], ps.radius[j]),
            });
            Some(c)
        }
        _ => disc_polygon_pair(prm, a, b, pj, inv, slot.xi, dt, frame),
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
