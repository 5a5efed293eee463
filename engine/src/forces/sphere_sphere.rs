//! The sphere-sphere pair loop (3D): a linear pass over a run of contact-table slots, each
//! candidate pair through `kernels::contact::sphere_sphere` (LAMMPS gran/hooke/history or
//! gran/hertz/history, the tangential spring a vector in the slot), its force into a sink
//! in slot order.
//!
//! Pair by pair, not yet in batches of lanes as the 2D disc loop (`disc_disc.rs`): the
//! batched form pays where a branch per pair is mispredicted, and is the next step here.
use talus_kernels::contact::extras::{add_extras, contact_size, Touch};
use talus_kernels::contact::law::NormalModel;
use talus_kernels::contact::sphere_sphere::sphere_sphere;
use talus_kernels::contact::{Spring, SPRING_ZERO};
use talus_kernels::neighbor::MinImage;

use super::{ForceSink, Params};
use crate::contacts::FREE;
use crate::store::ParticleStore;

/// The read-only particle arrays the sphere pair loop needs, cut to one length so that the
/// indexing in the loop is checked once.
pub(crate) struct SphereView<'a> {
    pos: [&'a [f64]; 3],
    vel: [&'a [f64]; 3],
    omega: [&'a [f64]; 3],
    radius: &'a [f64],
    inv_mass: &'a [f64],
    material: &'a [u16],
    /// A periodic cell's minimum-image rule for the separations.
    image: Option<MinImage>,
}

impl<'a> SphereView<'a> {
    /// Particles in view.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.radius.len()
    }

    pub(crate) fn of(ps: &'a ParticleStore, image: Option<MinImage>) -> Self {
        let n = ps.len();
        let cut = |v: &'a Vec<f64>| &v[..n];
        SphereView {
            pos: ps.pos.each_ref().map(cut),
            vel: ps.vel.each_ref().map(cut),
            omega: ps.omega.each_ref().map(cut),
            radius: &ps.radius[..n],
            inv_mass: &ps.inv_mass[..n],
            material: &ps.material[..n],
            image,
        }
    }

    #[inline(always)]
    fn at(v: &[&[f64]; 3], p: usize) -> [f64; 3] {
        [v[0][p], v[1][p], v[2][p]]
    }
}

/// The forces of the slots `ci`, `cj` (free slots skipped, springs `xi`), into `sink`.
/// Returns the touching pairs. A pair of two bodies of infinite mass (fixed or driven)
/// gets no force, and a pair that does not touch has its spring reset. With cohesion or
/// rolling resistance (`P::EXTRAS`) they are added to each touching pair's force, and
/// `rolling` holds the slots' rolling torques (else it is empty).
#[allow(clippy::too_many_arguments)]
pub(crate) fn sphere_slots<P: Params, S: ForceSink>(
    view: &SphereView,
    params: &P,
    model: NormalModel,
    ci: &[u32],
    cj: &[u32],
    xi: &mut [Spring],
    rolling: &mut [[f64; 3]],
    dt: f64,
    sink: &mut S,
) -> u64 {
    let n = xi.len();
    let (ci, cj) = (&ci[..n], &cj[..n]);
    let rolling = if P::EXTRAS { &mut rolling[..n] } else { rolling };
    let mut touching = 0;
    for o in 0..n {
        let i = ci[o];
        if i == FREE {
            sink.none(o);
            continue;
        }
        let (i, j) = (i as usize, cj[o] as usize);
        let inv = view.inv_mass[i] + view.inv_mass[j];
        let (pi, pj) = (SphereView::at(&view.pos, i), SphereView::at(&view.pos, j));
        let mut d = [pj[0] - pi[0], pj[1] - pi[1], pj[2] - pi[2]];
        // A periodic cell: the minimum image, and the cells along y it moved j by (under
        // Lees-Edwards shear j's image there is faster along x).
        let mut cells = 0.0;
        if let Some(mi) = &view.image {
            (d, cells) = mi.with_cells(d);
        }
        let (ri, rj) = (view.radius[i], view.radius[j]);
        // Most candidates are apart: settle them on the positions alone, before the
        // velocities, spins and coefficients are read (the kernel tests the same).
        let rs = ri + rj;
        let hit = if inv > 0.0 && d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < rs * rs {
            let (vi, vj) = (SphereView::at(&view.vel, i), SphereView::at(&view.vel, j));
            let mut v_rel = [vi[0] - vj[0], vi[1] - vj[1], vi[2] - vj[2]];
            if let Some(mi) = &view.image {
                v_rel[0] += cells * mi.shear_velocity;
            }
            let prm = params.get(view.material[i], view.material[j]);
            sphere_sphere(
                prm,
                model,
                d,
                ri,
                rj,
                v_rel,
                SphereView::at(&view.omega, i),
                SphereView::at(&view.omega, j),
                inv,
                &mut xi[o],
                dt,
            )
        } else {
            None
        };
        match hit {
            Some(mut f) => {
                touching += 1;
                if P::EXTRAS {
                    let (mi, mj) = (view.material[i], view.material[j]);
                    let e = params.extras(mi, mj);
                    if e.any() {
                        let r = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                        let inv = 1.0 / r;
                        let nrm = if r > 0.0 { d.map(|x| x * inv) } else { [1.0, 0.0, 0.0] };
                        let r_eff = ri * rj / rs;
                        let h = model.factor(f.overlap, r_eff);
                        let p = params.get(mi, mj);
                        let (wi, wj) = (SphereView::at(&view.omega, i), SphereView::at(&view.omega, j));
                        let t = Touch {
                            n: nrm,
                            size: contact_size(params.cohesion(), r, ri, rj),
                            overlap: f.overlap,
                            r_eff,
                            kn: h * p.kn,
                            kt: h * p.kt,
                            w: [wi[0] - wj[0], wi[1] - wj[1], wi[2] - wj[2]],
                        };
                        add_extras(e, params.rolling(), &t, &mut f, &mut rolling[o], dt);
                    }
                }
                sink.add(o, i, j, &f);
            }
            None => {
                xi[o] = SPRING_ZERO;
                if P::EXTRAS {
                    rolling[o] = [0.0; 3];
                }
                sink.none(o);
            }
        }
    }
    touching
}
