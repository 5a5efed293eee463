//! The disc-disc pair loop: one linear pass over a run of contact-table slots through the
//! spring-dashpot kernel (`kernels::contact::disc_disc`), each force into a sink, the
//! second particle's data prefetched in large systems.
use talus_kernels::contact::disc_disc::{disc_disc_touching, disc_overlap, ContactForce};

use super::{ForceSink, Params};
use crate::contacts::FREE;
use crate::store::ParticleStore;

/// The read-only particle arrays the disc pair loop needs, cut to one length so that the
/// indexing in the loop is checked once.
pub(crate) struct DiscView<'a> {
    x: &'a [f64],
    y: &'a [f64],
    vx: &'a [f64],
    vy: &'a [f64],
    omega: &'a [f64],
    radius: &'a [f64],
    inv_mass: &'a [f64],
    material: &'a [u16],
}

impl<'a> DiscView<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        x: &'a [f64],
        y: &'a [f64],
        vx: &'a [f64],
        vy: &'a [f64],
        omega: &'a [f64],
        radius: &'a [f64],
        inv_mass: &'a [f64],
        material: &'a [u16],
    ) -> Self {
        let n = x.len();
        DiscView {
            x: &x[..n],
            y: &y[..n],
            vx: &vx[..n],
            vy: &vy[..n],
            omega: &omega[..n],
            radius: &radius[..n],
            inv_mass: &inv_mass[..n],
            material: &material[..n],
        }
    }

    /// Particles in view.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.x.len()
    }

    pub(crate) fn of(ps: &'a ParticleStore) -> Self {
        Self::new(
            &ps.x,
            &ps.y,
            &ps.vx,
            &ps.vy,
            &ps.omega,
            &ps.radius,
            &ps.inv_mass,
            &ps.material,
        )
    }
}

/// One candidate pair of discs: the force on i (j gets its opposite), or None.
#[inline(always)]
pub(crate) fn disc_slot<P: Params>(
    v: &DiscView,
    params: &P,
    i: usize,
    j: usize,
    xi: &mut f64,
    dt: f64,
) -> Option<ContactForce> {
    let (dx, dy) = (v.x[j] - v.x[i], v.y[j] - v.y[i]);
    let Some((d, overlap)) = disc_overlap(dx, dy, v.radius[i], v.radius[j]) else {
        *xi = 0.0;
        return None;
    };
    let inv = v.inv_mass[i] + v.inv_mass[j];
    if inv == 0.0 {
        // Two bodies of infinite mass: no force between them.
        return None;
    }
    Some(disc_disc_touching(
        params.get(v.material[i], v.material[j]),
        dx,
        dy,
        d,
        overlap,
        v.radius[i],
        v.radius[j],
        v.vx[i] - v.vx[j],
        v.vy[i] - v.vy[j],
        v.omega[i],
        v.omega[j],
        inv,
        xi,
        dt,
    ))
}

/// Particles from which the disc pair loop prefetches the second particle's data: below
/// it the hot arrays stay in a core's L2 (seven arrays of 8 bytes per particle against
/// 1 MB) and the prefetches are extra instructions (10^4 discs: 16-20 % slower with them);
/// above it they hide the misses of second particles far away in Morton order (10^6
/// discs: 10-20 % faster, BENCHMARKS.md).
const PREFETCH_MIN: usize = 1 << 15;

/// Slots ahead of the current one whose second particle is prefetched.
const PREFETCH_AHEAD: usize = 16;

/// The disc pairs of a run of contact-table slots (the whole table, or one chunk of it:
/// `ci`, `cj` and `xi` start at the same slot). Returns touching pairs.
#[inline(always)]
pub(crate) fn disc_slots<P: Params, S: ForceSink>(
    v: &DiscView,
    params: &P,
    ci: &[u32],
    cj: &[u32],
    xi: &mut [f64],
    dt: f64,
    sink: &mut S,
) -> u64 {
    if v.x.len() >= PREFETCH_MIN {
        disc_slots_impl::<P, S, true>(v, params, ci, cj, xi, dt, sink)
    } else {
        disc_slots_impl::<P, S, false>(v, params, ci, cj, xi, dt, sink)
    }
}

#[inline(always)]
fn disc_slots_impl<P: Params, S: ForceSink, const PREFETCH: bool>(
    v: &DiscView,
    params: &P,
    ci: &[u32],
    cj: &[u32],
    xi: &mut [f64],
    dt: f64,
    sink: &mut S,
) -> u64 {
    let slots = xi.len();
    let (ci, cj) = (&ci[..slots], &cj[..slots]);
    let mut touching = 0;
    for s in 0..slots {
        if PREFETCH && s + PREFETCH_AHEAD < slots {
            prefetch_disc(v, cj[s + PREFETCH_AHEAD] as usize);
        }
        let i = ci[s];
        if i == FREE {
            sink.none(s);
            continue;
        }
        let (i, j) = (i as usize, cj[s] as usize);
        match disc_slot(v, params, i, j, &mut xi[s], dt) {
            Some(c) => {
                touching += 1;
                sink.add(s, i, j, &c);
            }
            None => sink.none(s),
        }
    }
    touching
}

/// Ask for particle p's pair-loop data ahead of its use (a free slot's index is out of
/// range and skipped).
#[inline(always)]
fn prefetch_disc(v: &DiscView, p: usize) {
    if p >= v.x.len() {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    for a in [v.x, v.y, v.vx, v.vy, v.omega, v.radius, v.inv_mass] {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of the x86-64 baseline, and a prefetch is a hint: it never
        // faults and changes no memory. The address is that of an element in bounds (all
        // the view's slices have the length of `x`).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(a.as_ptr().wrapping_add(p) as *const i8) };
    }
}
