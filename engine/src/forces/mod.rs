//! Contact forces: what the pair loops share (material parameters, the sinks a force goes
//! into and the loads a force adds), and one file per kind of pair: in 2D disc-disc,
//! disc-polygon, polygon-polygon, any pair of a simulation with polygons (with the polygon
//! narrow phase's stages and counters in `narrow_phase.rs`); in 3D sphere-sphere; walls in
//! both. The pool's
//! force phase (`parallel/pair_forces.rs`) runs them over chunks of the contact table.
use talus_kernels::contact::{CohesionModel, ContactForce, ContactParams, PairExtras, RollingModel};

use crate::contact_log::{LogRun, PairRecord};
use crate::material::PairTable;
use crate::store::LOADS;
use talus_kernels::math::{ANG, DIM};

#[cfg(not(feature = "dim3"))]
pub(crate) mod disc_disc;
#[cfg(not(feature = "dim3"))]
pub(crate) mod disc_polygon;
#[cfg(test)]
mod loop_test_bed;
#[cfg(not(feature = "dim3"))]
mod narrow_phase;
#[cfg(not(feature = "dim3"))]
pub(crate) mod pair_with_shapes;
#[cfg(not(feature = "dim3"))]
pub(crate) mod polygon_polygon;
#[cfg(feature = "dim3")]
pub(crate) mod sphere_sphere;
pub(crate) mod walls;

#[cfg(not(feature = "dim3"))]
pub(crate) use narrow_phase::{polygon_body, polygon_image, NarrowWork, SlotState};
#[cfg(not(feature = "dim3"))]
pub use narrow_phase::{NarrowStats, Rejection, SEPARATING_LINE_ITERATIONS};

/// Contact parameters of a pair of materials.
pub(crate) trait Params {
    /// The same coefficients for every pair: the batched disc and sphere loops then take
    /// them as constants rather than gathering them pair by pair.
    const UNIFORM: bool = false;
    /// Some pairs may have cohesion or rolling resistance: the loops add them (a constant,
    /// so that a simulation without them runs loops that have no trace of them).
    const EXTRAS: bool = false;
    fn get(&self, a: u16, b: u16) -> &ContactParams;
    /// Cohesion and rolling friction of a pair (read only where `EXTRAS`).
    #[inline(always)]
    fn extras(&self, _a: u16, _b: u16) -> &PairExtras {
        &PairExtras::NONE
    }
    /// The rolling-resistance law (read only where `EXTRAS`).
    #[inline(always)]
    fn rolling(&self) -> RollingModel {
        RollingModel::default()
    }
    /// The size of contact cohesion pulls with (read only where `EXTRAS`).
    #[inline(always)]
    fn cohesion(&self) -> CohesionModel {
        CohesionModel::default()
    }
}

impl<P: Params> Params for &P {
    const UNIFORM: bool = P::UNIFORM;
    const EXTRAS: bool = P::EXTRAS;
    #[inline(always)]
    fn get(&self, a: u16, b: u16) -> &ContactParams {
        (**self).get(a, b)
    }
    #[inline(always)]
    fn extras(&self, a: u16, b: u16) -> &PairExtras {
        (**self).extras(a, b)
    }
    #[inline(always)]
    fn rolling(&self) -> RollingModel {
        (**self).rolling()
    }
    #[inline(always)]
    fn cohesion(&self) -> CohesionModel {
        (**self).cohesion()
    }
}

/// A pair table some of whose pairs have cohesion or rolling resistance, the coefficients
/// read through `P` (a single material's as loop constants, as without them).
pub(crate) struct WithExtras<'a, P> {
    pub params: P,
    pub table: &'a PairTable,
}

impl<P: Params> Params for WithExtras<'_, P> {
    const UNIFORM: bool = P::UNIFORM;
    const EXTRAS: bool = true;
    #[inline(always)]
    fn get(&self, a: u16, b: u16) -> &ContactParams {
        self.params.get(a, b)
    }
    #[inline(always)]
    fn extras(&self, a: u16, b: u16) -> &PairExtras {
        if P::UNIFORM {
            &self.table.extras[0]
        } else {
            self.table.extras(a, b)
        }
    }
    #[inline(always)]
    fn rolling(&self) -> RollingModel {
        self.table.rolling
    }
    #[inline(always)]
    fn cohesion(&self) -> CohesionModel {
        self.table.cohesion
    }
}

/// One material: the coefficients are loop constants, no per-pair lookup.
pub(crate) struct OneMaterial(pub ContactParams);

impl Params for OneMaterial {
    const UNIFORM: bool = true;
    #[inline(always)]
    fn get(&self, _: u16, _: u16) -> &ContactParams {
        &self.0
    }
}

impl Params for PairTable {
    #[inline(always)]
    fn get(&self, a: u16, b: u16) -> &ContactParams {
        PairTable::get(self, a, b)
    }
}

/// Where the force of a slot goes: straight into loads (the serial loop, and the
/// per-thread arrays), into the per-slot buffer (deterministic) or through per-particle
/// locks. The pair loops are generic over it, so that each strategy gets its own
/// monomorphised loop with no per-slot branch on the strategy.
pub(crate) trait ForceSink {
    /// Cut the sink to the first `n` particles (the pair loop's view): the loop then knows
    /// its sink as long as its view, and its particle indices, checked against the view,
    /// need no second bounds check at every addition (they cost the force phase 10 %).
    fn fit(&mut self, n: usize);
    /// Slot `o` of the loop (pair i, j) produced the force `f` on i (j gets its opposite).
    /// The loops call it in slot order.
    fn add(&mut self, o: usize, i: usize, j: usize, f: &ContactForce);
    /// Slot `o` produced no force; or, before its `add`, nothing yet (the batched loops
    /// call it for every slot of a batch first, so it may come before other slots' `add`s).
    #[inline(always)]
    fn none(&mut self, _o: usize) {}
    /// Ask for particle p's loads ahead of an `add` that may write them: a hint, which
    /// changes no memory (each sink asks for what its `add` writes).
    #[inline(always)]
    fn prefetch(&self, _p: usize) {}
}

/// A logged step's sink (see `contact_log.rs`): every force also kept with its pair, in
/// slot order (the pair loops add in slot order).
pub(crate) struct Logged<'a, S> {
    pub inner: S,
    pub log: &'a mut LogRun,
}

impl<S: ForceSink> ForceSink for Logged<'_, S> {
    #[inline(always)]
    fn fit(&mut self, n: usize) {
        self.inner.fit(n);
    }

    #[inline(always)]
    fn add(&mut self, o: usize, i: usize, j: usize, f: &ContactForce) {
        self.log.push(
            PairRecord {
                i: i as u32,
                j: j as u32,
                f: f.f,
            },
            f.overlap,
        );
        self.inner.add(o, i, j, f);
    }

    #[inline(always)]
    fn none(&mut self, o: usize) {
        self.inner.none(o);
    }

    #[inline(always)]
    fn prefetch(&self, p: usize) {
        self.inner.prefetch(p);
    }
}

/// Where a wall's force on a particle goes (walls take no reaction): the loads, or the
/// loads shared by the pool's threads, each particle's written by one.
pub(crate) trait WallSink {
    /// Wall force `f` on particle `p` (its torque in `f.ti`).
    fn wall(&mut self, p: usize, f: &ContactForce);
}

/// A particle's loads: the force per axis, then the torque's components (fx, fy, torque
/// in 2D).
pub(crate) type Load = [f64; LOADS];

/// A slot's force as the deterministic sum keeps a deferred one: the force on i per axis,
/// then i's torque, then j's.
pub(crate) type SlotRecord = [f64; DIM + 2 * ANG];

/// What a contact adds to the loads of its first particle.
#[inline(always)]
pub(crate) fn load_i(c: &ContactForce) -> Load {
    std::array::from_fn(|k| if k < DIM { c.f[k] } else { c.ti[k - DIM] })
}

/// What it adds to its second particle's: the opposite force (x + (-f) is x - f, bit for
/// bit) and that particle's own torque.
#[inline(always)]
pub(crate) fn load_j(c: &ContactForce) -> Load {
    std::array::from_fn(|k| if k < DIM { -c.f[k] } else { c.tj[k - DIM] })
}

/// The contact as a [`SlotRecord`].
#[inline(always)]
pub(crate) fn slot_record(c: &ContactForce) -> SlotRecord {
    std::array::from_fn(|k| {
        if k < DIM {
            c.f[k]
        } else if k < DIM + ANG {
            c.ti[k - DIM]
        } else {
            c.tj[k - DIM - ANG]
        }
    })
}

/// What a [`SlotRecord`] adds to its first particle's loads ([`load_i`]), or to its
/// second's ([`load_j`]).
#[inline(always)]
pub(crate) fn record_load(r: &SlotRecord, second: bool) -> Load {
    std::array::from_fn(|k| match (second, k < DIM) {
        (false, _) => r[k],
        (true, true) => -r[k],
        (true, false) => r[k + ANG],
    })
}

/// Loads summed in place: the force per axis, then the torque's components.
pub(crate) struct LoadSink<'a> {
    pub loads: [&'a mut [f64]; LOADS],
}

impl ForceSink for LoadSink<'_> {
    #[inline(always)]
    fn fit(&mut self, n: usize) {
        for l in self.loads.iter_mut() {
            *l = &mut std::mem::take(l)[..n];
        }
    }

    #[inline(always)]
    fn add(&mut self, _o: usize, i: usize, j: usize, c: &ContactForce) {
        let (a, b) = (load_i(c), load_j(c));
        for (l, (a, b)) in self.loads.iter_mut().zip(a.into_iter().zip(b)) {
            l[i] += a;
            l[j] += b;
        }
    }

    #[inline(always)]
    fn prefetch(&self, p: usize) {
        for l in &self.loads {
            if let Some(v) = l.get(p) {
                prefetch_line(v as *const f64 as *const u8);
            }
        }
    }
}

/// Ask for the cache line at `a` (a hint: it never faults and changes no memory).
#[inline(always)]
pub(crate) fn prefetch_line(a: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of the x86-64 baseline, and a prefetch of any address is a
        // hint that neither faults nor writes.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(a as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = a;
}

impl WallSink for LoadSink<'_> {
    #[inline(always)]
    fn wall(&mut self, p: usize, c: &ContactForce) {
        for (l, a) in self.loads.iter_mut().zip(load_i(c)) {
            l[p] += a;
        }
    }
}
