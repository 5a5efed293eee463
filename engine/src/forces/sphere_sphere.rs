//! The sphere-sphere pair loop (3D): a linear pass over a run of contact-table slots in
//! batches, each candidate pair through `kernels::contact::sphere_sphere` (LAMMPS
//! gran/hooke/history or gran/hertz/history, the tangential spring a vector in the slot),
//! its force into a sink in slot order.
use talus_kernels::contact::extras::{add_extras, contact_size, Touch};
use talus_kernels::contact::law::NormalModel;
use talus_kernels::contact::sphere_sphere::{pair_frame, sphere_touching, PairFrame};
use talus_kernels::contact::{ContactForce, ContactParams};
use talus_kernels::contact::{Spring, SPRING_ZERO};
use talus_kernels::neighbor::MinImage;
use talus_kernels::vector_build::Build;

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

/// Candidate slots per batch of the pair loop (see [`sphere_slots`]): the lane arrays
/// (about 20 KB, on the stack of the loop: no allocation per chunk) stay in L1.
const BATCH: usize = 64;

/// Bytes the loop reads of a second particle: its position, velocity, spin, radius and
/// inverse mass, and its loads. With enough particles the loop prefetches all of the
/// second particle's data (`prefetch_sphere`), and the touching pairs' loads, as the disc
/// loop does (`cache_size::prefetch_pays`): the second particle is then mostly far in
/// Morton order. Measured for spheres (BENCHMARKS.md, issue 19), on a Xeon VM with 2 MiB of
/// L2: at 58,320 the loop ran 1.22x faster without the data's prefetches, at 583,200
/// 0.93x; the loads' made 58,320 no faster and 583,200 12-15 % faster. On an EPYC VM with
/// 512 KiB of L2, the velocity and spin asked for with the position: 58,320 13-25 %
/// faster, 583,200 1-12 %.
const SECOND_BYTES: usize = 11 * 8 + 6 * 8;

/// Slots ahead of the current one whose second particle is prefetched (the disc loop's).
const PREFETCH_AHEAD: usize = 32;

/// The live slots of one batch, in order, and which of them touch.
struct Listed {
    /// Listed slot l is slot `slot[l]` of the batch.
    slot: [u8; BATCH],
    /// Whether listed slot l touches (for the extras' rolling torques, which go where not).
    touch: [bool; BATCH],
}

// A slot's index in its batch fits a `u8`.
const _: () = assert!(BATCH <= 256);

/// The lanes of a batch without free slots: lane l is slot l.
const IN_ORDER: [u8; BATCH] = {
    let mut a = [0; BATCH];
    let mut l = 0;
    while l < BATCH {
        a[l] = l as u8;
        l += 1;
    }
    a
};

/// The touching pairs of one batch, a lane each: what the law reads and what it returns.
struct Touching {
    d: [[f64; BATCH]; 3],
    /// |d|^2; after the law's first loop, |d|.
    r2: [f64; BATCH],
    /// The unit normal (written by the law's first loop).
    n: [[f64; BATCH]; 3],
    ri: [f64; BATCH],
    rj: [f64; BATCH],
    /// 1/m_i + 1/m_j; after the law's first loop, the effective mass.
    inv: [f64; BATCH],
    /// The periodic cells along y the minimum image moved j by (with a periodic cell).
    cells: [f64; BATCH],
    v_rel: [[f64; BATCH]; 3],
    wi: [[f64; BATCH]; 3],
    wj: [[f64; BATCH]; 3],
    xi: [[f64; BATCH]; 3],
    /// The coefficients (only with several materials).
    p: [ContactParams; BATCH],
    f: [[f64; BATCH]; 3],
    ti: [[f64; BATCH]; 3],
    tj: [[f64; BATCH]; 3],
    overlap: [f64; BATCH],
    /// Each lane's slot in the batch, and its particles (read again by the gather and the
    /// sink from here: through the slot, each read checked its index).
    slot: [u8; BATCH],
    i: [u32; BATCH],
    j: [u32; BATCH],
}

const NO_PARAMS: ContactParams = ContactParams {
    kn: 0.0,
    kt: 0.0,
    gamma_n: 0.0,
    gamma_t: 0.0,
    mu: 0.0,
};

impl Listed {
    fn new() -> Self {
        Listed {
            slot: [0; BATCH],
            touch: [false; BATCH],
        }
    }
}

impl Touching {
    fn new() -> Self {
        Touching {
            d: [[0.0; BATCH]; 3],
            r2: [0.0; BATCH],
            n: [[0.0; BATCH]; 3],
            ri: [0.0; BATCH],
            rj: [0.0; BATCH],
            inv: [0.0; BATCH],
            cells: [0.0; BATCH],
            v_rel: [[0.0; BATCH]; 3],
            wi: [[0.0; BATCH]; 3],
            wj: [[0.0; BATCH]; 3],
            xi: [[0.0; BATCH]; 3],
            p: [NO_PARAMS; BATCH],
            f: [[0.0; BATCH]; 3],
            ti: [[0.0; BATCH]; 3],
            tj: [[0.0; BATCH]; 3],
            overlap: [0.0; BATCH],
            slot: [0; BATCH],
            i: [0; BATCH],
            j: [0; BATCH],
        }
    }
}

/// The forces of the slots `ci`, `cj` (springs `xi`; a free slot gets no force and its
/// spring zeroed with its batch's), into `sink` in slot order (in 3D only the pairs that
/// touch, or touched since the table's last compaction, have slots: `sim::near_pairs`).
/// Returns the touching pairs. A pair of two bodies of infinite mass
/// (fixed or driven) gets no force, and a pair without a force has its spring reset. With
/// cohesion or rolling resistance (`P::EXTRAS`) they are added to each touching pair's
/// force, and `rolling` holds the slots' rolling torques (else it is empty).
///
/// In batches of [`BATCH`] slots, four stages without a branch per pair: the live slots
/// listed (the holes that removals leave until the next compaction skipped); every listed
/// candidate's separation and radii gathered and tested "touching?", the touching ones kept
/// in lanes in order; their velocities, spins, springs (and coefficients) gathered into
/// those lanes; the law over them, one loop the compiler vectorises (AVX2 or AVX-512 where
/// the processor has it). Half of a settled bed's slotted pairs were apart when every pair
/// that may touch had a slot (a periodic cell's still are): the pair-by-pair loop this
/// replaces branched on each, in no pattern a predictor learns, and the law runs on the
/// touching ones only, so an apart pair reads no velocity.
/// Each pair's arithmetic is the scalar kernel's, operation for operation, without fused
/// multiply-adds: the loads are bitwise those of the pair-by-pair loop (the test in
/// `sphere_sphere_tests.rs`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn sphere_slots<P: Params, S: ForceSink>(
    view: &SphereView,
    params: &P,
    model: NormalModel,
    (ci, cj): (&[u32], &[u32]),
    xi: &mut [Spring],
    rolling: &mut [[f64; 3]],
    dt: f64,
    sink: &mut S,
) -> u64 {
    let prefetch = crate::cache_size::prefetch_pays(view.len(), SECOND_BYTES);
    sphere_slots_with(
        Build::detect(),
        prefetch,
        view,
        params,
        model,
        (ci, cj),
        xi,
        rolling,
        dt,
        sink,
    )
}

/// [`sphere_slots`] with the law's stage compiled as `law` says, and the second particles'
/// data and loads asked for ahead or not (`prefetch`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn sphere_slots_with<P: Params, S: ForceSink>(
    law: Build,
    prefetch: bool,
    view: &SphereView,
    params: &P,
    model: NormalModel,
    (ci, cj): (&[u32], &[u32]),
    xi: &mut [Spring],
    rolling: &mut [[f64; 3]],
    dt: f64,
    sink: &mut S,
) -> u64 {
    let n = xi.len();
    let (ci, cj) = (&ci[..n], &cj[..n]);
    let rolling = if P::EXTRAS { &mut rolling[..n] } else { rolling };
    let (mut listed, mut lanes) = (Listed::new(), Touching::new());
    let mut touching = 0;
    let mut start = 0;
    while start < n {
        let end = (start + BATCH).min(n);
        let m = end - start;
        // The live slots listed in order, without a branch per slot; a batch without holes
        // (each one after a compaction, until removals free slots in it) as it is: the
        // stages take its lane l as slot l, and only the extras' rolling torques read the
        // list.
        let kn = ci[start..end].iter().filter(|&&i| i != FREE).count();
        if kn == m {
            if P::EXTRAS {
                listed.slot[..m].copy_from_slice(&IN_ORDER[..m]);
            }
        } else {
            let mut kl = 0;
            for l in 0..m {
                listed.slot[kl] = l as u8;
                kl += (ci[start + l] != FREE) as usize;
            }
        }
        if kn == 0 {
            // A run of free slots.
            for l in 0..m {
                sink.none(start + l);
            }
            xi[start..end].fill(SPRING_ZERO);
            start = end;
            continue;
        }
        if prefetch {
            prefetch_batch(view, cj, start..end);
        }
        // Every particle of the batch's live slots in view, checked once for the batch:
        // the gathers below index without a check of their own. (Here, in the baseline
        // build: computed in the AVX2 one, as the disc loop does, the candidates' loop
        // lost its bounds facts and ran more instructions, BENCHMARKS.md.)
        let pairs = (&ci[start..end], &cj[start..end]);
        assert!(
            batch_in_view(pairs.0, pairs.1, view.len()),
            "a contact slot names a particle beyond the store"
        );
        // SAFETY: the listed slots' particles are below the view's length (just checked).
        let k = unsafe {
            match (kn == m, view.image.is_some()) {
                (true, false) => candidates::<P, true, false>(view, pairs, kn, &mut listed, &mut lanes),
                (false, false) => candidates::<P, false, false>(view, pairs, kn, &mut listed, &mut lanes),
                (true, true) => candidates::<P, true, true>(view, pairs, kn, &mut listed, &mut lanes),
                (false, true) => candidates::<P, false, true>(view, pairs, kn, &mut listed, &mut lanes),
            }
        };
        touching += k as u64;
        let springs = &xi[start..end];
        // SAFETY: as for `candidates`, whose listed slots (below m, the springs' length)
        // these are.
        unsafe { gather_touching::<P>(view, params, springs, k, &mut lanes) };
        // The loads the sink adds into after the law, of the touching pairs' second
        // particles, asked for while the law runs: 583,200 spheres 12-15 % faster (every
        // candidate's, ahead as the data is, was no faster than this; BENCHMARKS.md).
        if prefetch {
            for &t in &lanes.slot[..k] {
                sink.prefetch(cj[start + t as usize] as usize);
            }
        }
        match model {
            NormalModel::Hooke => law.run(
                #[inline(always)]
                || law_lanes::<P, false>(params, &mut lanes, k, dt),
            ),
            NormalModel::Hertz => law.run(
                #[inline(always)]
                || law_lanes::<P, true>(params, &mut lanes, k, dt),
            ),
        }
        // A pair without a force (apart, or of two bodies of infinite mass) lets its
        // spring go. Every slot's spring is reset here (a free slot's too: taken again, it
        // starts from zero anyway), a touching pair's written again below from its lane:
        // no branch on "touching?", and one fill of the batch. The rolling torques are
        // read by the extras below, so only those of the pairs without a force go.
        for l in 0..m {
            sink.none(start + l);
        }
        xi[start..end].fill(SPRING_ZERO);
        if P::EXTRAS {
            for q in 0..kn {
                if !listed.touch[q] {
                    rolling[start + listed.slot[q] as usize] = [0.0; 3];
                }
            }
        }
        let springs = &mut xi[start..end];
        for t in 0..k {
            let s = lanes.slot[t] as usize;
            let o = start + s;
            // SAFETY: a lane's slot is one of the batch's (`candidates` wrote it, below m,
            // the springs' length): no check on each (one cost 10 % of this loop's
            // instructions).
            unsafe { *springs.get_unchecked_mut(s) = [lanes.xi[0][t], lanes.xi[1][t], lanes.xi[2][t]] };
            let mut f = ContactForce {
                f: [lanes.f[0][t], lanes.f[1][t], lanes.f[2][t]],
                ti: [lanes.ti[0][t], lanes.ti[1][t], lanes.ti[2][t]],
                tj: [lanes.tj[0][t], lanes.tj[1][t], lanes.tj[2][t]],
                overlap: lanes.overlap[t],
            };
            let (i, j) = (lanes.i[t] as usize, lanes.j[t] as usize);
            if P::EXTRAS {
                let d = [lanes.d[0][t], lanes.d[1][t], lanes.d[2][t]];
                sphere_extras(view, params, model, d, i, j, &mut f, &mut rolling[o], dt);
            }
            sink.add(o, i, j, &f);
        }
        start = end;
    }
    touching
}

/// Whether every live slot of a batch names two particles below `np` (a slot is free by
/// its first particle, as the loop decides it: a live slot whose second particle is `FREE`
/// is beyond any store). The loop checks a batch's particles against the store once, and
/// then gathers with [`unchecked`]. One comparison of each particle with `np`, or-ed over
/// the batch, which the baseline build vectorises (SSE2 has no unsigned maximum: the
/// batch's largest particles, the previous form, took 4 instructions a slot).
#[inline(always)]
fn batch_in_view(ci: &[u32], cj: &[u32], np: usize) -> bool {
    // No particle is FREE (u32::MAX): a store that large is taken as one less.
    let np = np.min(FREE as usize) as u32;
    let bad = ci
        .iter()
        .zip(cj)
        .fold(0u32, |b, (&i, &j)| b | ((i != FREE) & ((i >= np) | (j >= np))) as u32);
    bad == 0
}

/// `v[p]` without a bounds check (see [`batch_in_view`]).
///
/// # Safety
/// `p < v.len()`.
#[inline(always)]
unsafe fn unchecked<T: Copy>(v: &[T], p: usize) -> T {
    debug_assert!(p < v.len());
    // SAFETY: the caller's promise.
    unsafe { *v.get_unchecked(p) }
}

/// Ask ahead for the second particles of the slots `PREFETCH_AHEAD` slots on from `range`
/// (a free slot's `FREE` asks for nothing).
#[inline(always)]
fn prefetch_batch(view: &SphereView, cj: &[u32], range: std::ops::Range<usize>) {
    let slots = cj.len();
    for o in range {
        if o + PREFETCH_AHEAD < slots {
            let a = o + PREFETCH_AHEAD;
            prefetch_sphere(view, cj[a] as usize);
        }
    }
}

/// Stages 1 and 2: the separation (minimum image in a periodic cell), radii and
/// inverse-mass sum of the first `m` listed slots of the batch `ci`, `cj` (`listed.slot`,
/// never free; `DENSE`: the batch has no free slot, listed slot l is slot l), the test
/// "touching?" of each, and the touching ones written in order into the lanes of `t`, with
/// their slots and particles (`PERIODIC`: with the view's minimum image, which it has;
/// with `P::EXTRAS` each listed slot's test kept in `listed.touch`). Returns how many
/// touch. Each candidate is written at the next free lane and that lane taken only if it
/// touches (no branch per pair): the touching ones' data need no second copy from lanes of
/// all the candidates, which cost this loop a store and a load of seven values a pair
/// (BENCHMARKS.md, issue 19). The two choices are constants, each a loop of its own: tested
/// in the loop, they cost 5 of its 45 instructions a candidate.
///
/// # Safety
/// The particles of the listed slots are below `view.len()`.
#[inline(always)]
unsafe fn candidates<P: Params, const DENSE: bool, const PERIODIC: bool>(
    view: &SphereView,
    (ci, cj): (&[u32], &[u32]),
    m: usize,
    listed: &mut Listed,
    t: &mut Touching,
) -> usize {
    let np = view.len();
    let (x, y, z) = (&view.pos[0][..np], &view.pos[1][..np], &view.pos[2][..np]);
    let (radius, inv_mass) = (&view.radius[..np], &view.inv_mass[..np]);
    assert!(m <= BATCH);
    let mut k = 0;
    for l in 0..m {
        let o = if DENSE { l } else { listed.slot[l] as usize };
        let (i, j) = (ci[o] as usize, cj[o] as usize);
        // SAFETY: i, j < np (the caller's promise), the length of every array here.
        let (mut d, ri, rj, inv) = unsafe {
            (
                [
                    unchecked(x, j) - unchecked(x, i),
                    unchecked(y, j) - unchecked(y, i),
                    unchecked(z, j) - unchecked(z, i),
                ],
                unchecked(radius, i),
                unchecked(radius, j),
                unchecked(inv_mass, i) + unchecked(inv_mass, j),
            )
        };
        // A periodic cell: the minimum image, and the cells along y it moved j by (under
        // Lees-Edwards shear j's image there is faster along x).
        let mut cells = 0.0;
        if let (true, Some(mi)) = (PERIODIC, &view.image) {
            (d, cells) = mi.with_cells(d);
        }
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        let rs = ri + rj;
        let touch = (inv > 0.0) & (r2 < rs * rs);
        // k <= l < m <= BATCH.
        for (lane, &v) in t.d.iter_mut().zip(&d) {
            lane[k] = v;
        }
        t.r2[k] = r2;
        t.ri[k] = ri;
        t.rj[k] = rj;
        t.inv[k] = inv;
        if PERIODIC {
            t.cells[k] = cells;
        }
        t.slot[k] = o as u8;
        (t.i[k], t.j[k]) = (i as u32, j as u32);
        if P::EXTRAS {
            listed.touch[l] = touch;
        }
        k += touch as usize;
    }
    k
}

/// Stage 3: the touching pairs' velocities, spins and springs (and coefficients) into
/// their lanes, the first `k` of `t` (their separations, slots and particles written by
/// [`candidates`]).
///
/// # Safety
/// The particles of the first `k` lanes are below `view.len()`, and their slots below
/// `xi.len()`.
#[inline(always)]
unsafe fn gather_touching<P: Params>(view: &SphereView, params: &P, xi: &[Spring], k: usize, t: &mut Touching) {
    let np = view.len();
    let (vel, omega) = (view.vel.map(|v| &v[..np]), view.omega.map(|v| &v[..np]));
    let material = &view.material[..np];
    for q in 0..k.min(BATCH) {
        let o = t.slot[q] as usize;
        // SAFETY: the caller's promise.
        let spring = unsafe { unchecked(xi, o) };
        let (i, j) = (t.i[q] as usize, t.j[q] as usize);
        for a in 0..3 {
            // SAFETY: i, j < np (the caller's promise), the length of these arrays.
            unsafe {
                t.v_rel[a][q] = unchecked(vel[a], i) - unchecked(vel[a], j);
                t.wi[a][q] = unchecked(omega[a], i);
                t.wj[a][q] = unchecked(omega[a], j);
            }
            t.xi[a][q] = spring[a];
        }
        if let Some(mi) = &view.image {
            t.v_rel[0][q] += t.cells[q] * mi.shear_velocity;
        }
        if !P::UNIFORM {
            // SAFETY: as above.
            t.p[q] = *params.get(unsafe { unchecked(material, i) }, unsafe { unchecked(material, j) });
        }
    }
}

/// Stage 4: the law over the first `k` lanes, every one touching (`HERTZ`: the normal
/// model; a constant, so that each model's loop is compiled without the other's factor).
/// In two loops: every lane's frame, its square root and divisions ([`pair_frame`]; each
/// lane's `r2` and `inv` replaced by its distance and effective mass, its normal into `n`),
/// then the rest. In one loop the law's other operations waited on their latency, the
/// loop's body too long for the processor to overlap the next lanes' (BENCHMARKS.md,
/// issue 19).
#[inline(always)]
fn law_lanes<P: Params, const HERTZ: bool>(params: &P, t: &mut Touching, k: usize, dt: f64) {
    let model = NormalModel::hertz_if(HERTZ);
    let k = k.min(BATCH);
    for q in 0..k {
        let f = pair_frame([t.d[0][q], t.d[1][q], t.d[2][q]], t.r2[q], t.inv[q]);
        (t.r2[q], t.inv[q]) = (f.r, f.meff);
        for (lane, &x) in t.n.iter_mut().zip(&f.n) {
            lane[q] = x;
        }
    }
    for q in 0..k {
        let p = if P::UNIFORM { *params.get(0, 0) } else { t.p[q] };
        let at = |v: &[[f64; BATCH]; 3]| [v[0][q], v[1][q], v[2][q]];
        let mut xi = at(&t.xi);
        let frame = PairFrame {
            r: t.r2[q],
            n: at(&t.n),
            meff: t.inv[q],
        };
        let c = sphere_touching(
            &p,
            model,
            &frame,
            t.ri[q],
            t.rj[q],
            at(&t.v_rel),
            at(&t.wi),
            at(&t.wj),
            &mut xi,
            dt,
        );
        for (a, &x) in xi.iter().enumerate() {
            t.xi[a][q] = x;
            t.f[a][q] = c.f[a];
            t.ti[a][q] = c.ti[a];
            t.tj[a][q] = c.tj[a];
        }
        t.overlap[q] = c.overlap;
    }
}

/// Cohesion and rolling resistance of the touching pair (i, j) at separation `d`, added
/// to its force `f` (see `kernels::contact::extras`); `m` is its rolling torque.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn sphere_extras<P: Params>(
    view: &SphereView,
    params: &P,
    model: NormalModel,
    d: [f64; 3],
    i: usize,
    j: usize,
    f: &mut ContactForce,
    m: &mut [f64; 3],
    dt: f64,
) {
    let (mi, mj) = (view.material[i], view.material[j]);
    let e = params.extras(mi, mj);
    if !e.any() {
        return;
    }
    let (ri, rj) = (view.radius[i], view.radius[j]);
    let rs = ri + rj;
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
    add_extras(e, params.rolling(), &t, f, m, dt);
}

/// Ask for particle p's position, radius, inverse mass, velocity and spin ahead of their
/// use (an index out of range is skipped): eleven lines, those of the candidates' test and
/// of the touching pairs' gather, which follows it within the batch (too soon to ask
/// there).
#[inline(always)]
fn prefetch_sphere(view: &SphereView, p: usize) {
    if p >= view.len() {
        return;
    }
    for a in [
        view.pos[0],
        view.pos[1],
        view.pos[2],
        view.radius,
        view.inv_mass,
        view.vel[0],
        view.vel[1],
        view.vel[2],
        view.omega[0],
        view.omega[1],
        view.omega[2],
    ] {
        // In bounds: p is below the length of every slice of the view.
        super::prefetch_line(a.as_ptr().wrapping_add(p) as *const u8);
    }
}

#[cfg(test)]
#[path = "sphere_sphere_tests.rs"]
mod tests;
