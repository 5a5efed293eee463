//! The sphere-sphere pair loop (3D): a linear pass over a run of contact-table slots in
//! batches, each candidate pair through `kernels::contact::sphere_sphere` (LAMMPS
//! gran/hooke/history or gran/hertz/history, the tangential spring a vector in the slot),
//! its force into a sink in slot order.
use talus_kernels::contact::extras::{add_extras, contact_size, Touch};
use talus_kernels::contact::law::NormalModel;
use talus_kernels::contact::sphere_sphere::sphere_touching;
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

/// Particles from which the loop prefetches the second particle's position, radius and
/// inverse mass, as the disc loop does: above it the second particle is mostly far in
/// Morton order. Measured for spheres (BENCHMARKS.md, issue 19): at 58,320 the loop ran
/// 1.22x faster without the prefetches, at 583,200 0.93x.
const PREFETCH_MIN: usize = 1 << 17;

/// Slots ahead of the current one whose second particle is prefetched (the disc loop's).
const PREFETCH_AHEAD: usize = 32;

/// The candidates of one batch, a lane per live slot: separation, radii, inverse-mass sum and
/// whether the pair touches; the touching lanes in order in `hit`.
struct Candidates {
    d: [[f64; BATCH]; 3],
    r2: [f64; BATCH],
    ri: [f64; BATCH],
    rj: [f64; BATCH],
    inv: [f64; BATCH],
    /// The periodic cells along y the minimum image moved j by (with a periodic cell).
    cells: [f64; BATCH],
    touch: [bool; BATCH],
    /// The batch's live slots, in order: lane l is slot `slot[l]` of the batch.
    slot: [u8; BATCH],
    /// The touching lanes, in order.
    hit: [u8; BATCH],
}

// A lane's index fits the `u8` of `Candidates::hit`.
const _: () = assert!(BATCH <= 256);

/// The touching pairs of one batch, a lane each: what the law reads and what it returns.
struct Touching {
    d: [[f64; BATCH]; 3],
    r2: [f64; BATCH],
    ri: [f64; BATCH],
    rj: [f64; BATCH],
    inv: [f64; BATCH],
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
}

const NO_PARAMS: ContactParams = ContactParams {
    kn: 0.0,
    kt: 0.0,
    gamma_n: 0.0,
    gamma_t: 0.0,
    mu: 0.0,
};

impl Candidates {
    fn new() -> Self {
        Candidates {
            d: [[0.0; BATCH]; 3],
            r2: [0.0; BATCH],
            ri: [0.0; BATCH],
            rj: [0.0; BATCH],
            inv: [0.0; BATCH],
            cells: [0.0; BATCH],
            touch: [false; BATCH],
            slot: [0; BATCH],
            hit: [0; BATCH],
        }
    }
}

impl Touching {
    fn new() -> Self {
        Touching {
            d: [[0.0; BATCH]; 3],
            r2: [0.0; BATCH],
            ri: [0.0; BATCH],
            rj: [0.0; BATCH],
            inv: [0.0; BATCH],
            v_rel: [[0.0; BATCH]; 3],
            wi: [[0.0; BATCH]; 3],
            wj: [[0.0; BATCH]; 3],
            xi: [[0.0; BATCH]; 3],
            p: [NO_PARAMS; BATCH],
            f: [[0.0; BATCH]; 3],
            ti: [[0.0; BATCH]; 3],
            tj: [[0.0; BATCH]; 3],
            overlap: [0.0; BATCH],
        }
    }
}

/// The forces of the slots `ci`, `cj` (free slots passed over, springs `xi`), into `sink`
/// in slot order (in 3D the pairs that cannot touch before one of their boxes is made anew
/// are kept out of the slots, `ContactTable::far`). Returns the touching pairs. A pair of
/// two bodies of infinite mass (fixed or driven) gets no force, and a pair without a
/// force has its spring reset. With cohesion
/// or rolling resistance (`P::EXTRAS`) they are added to each touching pair's force, and
/// `rolling` holds the slots' rolling torques (else it is empty).
///
/// In batches of [`BATCH`] slots, four stages without a branch per pair: the live slots
/// listed (the holes that removals leave until the next compaction skipped); every listed
/// candidate's separation and radii gathered, and the test "touching?" over the lanes;
/// the touching lanes listed in order; their velocities, spins, springs (and
/// coefficients) gathered into lanes of their own; the law over those lanes, one loop the compiler vectorises
/// (AVX2 where the processor has it). Half of a settled bed's slotted pairs are apart:
/// the pair-by-pair loop this replaces branched on each, in no pattern a predictor learns,
/// and the law runs on the touching ones only, so an apart pair reads no velocity.
/// Each pair's arithmetic is the scalar kernel's, operation for operation, without fused
/// multiply-adds: the loads are bitwise those of the pair-by-pair loop (test below).
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
    sphere_slots_with(Build::detect(), view, params, model, (ci, cj), xi, rolling, dt, sink)
}

/// [`sphere_slots`] with the law's stage compiled as `law` says.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn sphere_slots_with<P: Params, S: ForceSink>(
    law: Build,
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
    let prefetch = view.len() >= PREFETCH_MIN;
    let (mut cand, mut lanes) = (Candidates::new(), Touching::new());
    let mut touching = 0;
    let mut start = 0;
    while start < n {
        let end = (start + BATCH).min(n);
        let m = end - start;
        // The live slots listed in order, without a branch.
        let mut kn = 0;
        for l in 0..m {
            cand.slot[kn] = l as u8;
            kn += (ci[start + l] != FREE) as usize;
        }
        if kn == 0 {
            // A run of free slots.
            for l in 0..m {
                sink.none(start + l);
            }
            start = end;
            continue;
        }
        if prefetch {
            prefetch_batch(view, cj, start..end);
        }
        candidates(view, ci, cj, start, kn, &mut cand);
        let mut k = 0;
        for q in 0..kn {
            cand.hit[k] = q as u8;
            k += cand.touch[q] as usize;
        }
        touching += k as u64;
        gather_touching(view, params, ci, cj, xi, start, &cand, k, &mut lanes);
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
        // spring go; a free slot keeps whatever it holds. Every live pair's spring is
        // reset here, a touching pair's written again below
        // from its lane: no branch on "touching?". The rolling torques are read by the
        // extras below, so only those of the pairs without a force go.
        for l in 0..m {
            sink.none(start + l);
        }
        for &l in &cand.slot[..kn] {
            xi[start + l as usize] = SPRING_ZERO;
        }
        if P::EXTRAS {
            for q in 0..kn {
                if !cand.touch[q] {
                    rolling[start + cand.slot[q] as usize] = [0.0; 3];
                }
            }
        }
        for t in 0..k {
            let o = start + cand.slot[cand.hit[t] as usize] as usize;
            xi[o] = [lanes.xi[0][t], lanes.xi[1][t], lanes.xi[2][t]];
            let mut f = ContactForce {
                f: [lanes.f[0][t], lanes.f[1][t], lanes.f[2][t]],
                ti: [lanes.ti[0][t], lanes.ti[1][t], lanes.ti[2][t]],
                tj: [lanes.tj[0][t], lanes.tj[1][t], lanes.tj[2][t]],
                overlap: lanes.overlap[t],
            };
            let (i, j) = (ci[o] as usize, cj[o] as usize);
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

/// Stage 1: the separation (minimum image in a periodic cell), radii and inverse-mass sum
/// of the first `m` listed slots of the batch at `start` (`c.slot`, never free), and
/// whether each touches.
#[inline(always)]
fn candidates(view: &SphereView, ci: &[u32], cj: &[u32], start: usize, m: usize, c: &mut Candidates) {
    let np = view.len();
    let (x, y, z) = (&view.pos[0][..np], &view.pos[1][..np], &view.pos[2][..np]);
    let (radius, inv_mass) = (&view.radius[..np], &view.inv_mass[..np]);
    assert!(m <= BATCH);
    for l in 0..m {
        let o = start + c.slot[l] as usize;
        let (i, j) = (ci[o] as usize, cj[o] as usize);
        assert!(i < np && j < np);
        c.d[0][l] = x[j] - x[i];
        c.d[1][l] = y[j] - y[i];
        c.d[2][l] = z[j] - z[i];
        c.ri[l] = radius[i];
        c.rj[l] = radius[j];
        c.inv[l] = inv_mass[i] + inv_mass[j];
    }
    // A periodic cell: the minimum image, and the cells along y it moved j by (under
    // Lees-Edwards shear j's image there is faster along x).
    if let Some(mi) = &view.image {
        for l in 0..m {
            let (d, cells) = mi.with_cells([c.d[0][l], c.d[1][l], c.d[2][l]]);
            (c.d[0][l], c.d[1][l], c.d[2][l]) = (d[0], d[1], d[2]);
            c.cells[l] = cells;
        }
    }
    for l in 0..m {
        let (dx, dy, dz) = (c.d[0][l], c.d[1][l], c.d[2][l]);
        let r2 = dx * dx + dy * dy + dz * dz;
        let rs = c.ri[l] + c.rj[l];
        c.r2[l] = r2;
        c.touch[l] = (c.inv[l] > 0.0) & (r2 < rs * rs);
    }
}

/// Stage 3: the touching pairs' data into lanes of their own, in slot order.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn gather_touching<P: Params>(
    view: &SphereView,
    params: &P,
    ci: &[u32],
    cj: &[u32],
    xi: &[Spring],
    start: usize,
    c: &Candidates,
    k: usize,
    t: &mut Touching,
) {
    let np = view.len();
    let (vel, omega) = (view.vel.map(|v| &v[..np]), view.omega.map(|v| &v[..np]));
    let material = &view.material[..np];
    for (q, &l) in c.hit[..k].iter().enumerate() {
        let l = l as usize;
        let o = start + c.slot[l] as usize;
        let (i, j) = (ci[o] as usize, cj[o] as usize);
        assert!(i < np && j < np);
        for a in 0..3 {
            t.d[a][q] = c.d[a][l];
            t.v_rel[a][q] = vel[a][i] - vel[a][j];
            t.wi[a][q] = omega[a][i];
            t.wj[a][q] = omega[a][j];
            t.xi[a][q] = xi[o][a];
        }
        if let Some(mi) = &view.image {
            t.v_rel[0][q] += c.cells[l] * mi.shear_velocity;
        }
        t.r2[q] = c.r2[l];
        t.ri[q] = c.ri[l];
        t.rj[q] = c.rj[l];
        t.inv[q] = c.inv[l];
        if !P::UNIFORM {
            t.p[q] = *params.get(material[i], material[j]);
        }
    }
}

/// Stage 4: the law over the first `k` lanes, every one touching (`HERTZ`: the normal
/// model; a constant, so that each model's loop is compiled without the other's factor).
#[inline(always)]
fn law_lanes<P: Params, const HERTZ: bool>(params: &P, t: &mut Touching, k: usize, dt: f64) {
    let model = if HERTZ { NormalModel::Hertz } else { NormalModel::Hooke };
    for q in 0..k.min(BATCH) {
        let p = if P::UNIFORM { *params.get(0, 0) } else { t.p[q] };
        let at = |v: &[[f64; BATCH]; 3]| [v[0][q], v[1][q], v[2][q]];
        let mut xi = at(&t.xi);
        let c = sphere_touching(
            &p,
            model,
            at(&t.d),
            t.r2[q],
            t.ri[q],
            t.rj[q],
            at(&t.v_rel),
            at(&t.wi),
            at(&t.wj),
            t.inv[q],
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

/// Ask for particle p's position, radius and inverse mass ahead of their use (an index out
/// of range is skipped).
#[inline(always)]
fn prefetch_sphere(view: &SphereView, p: usize) {
    if p >= view.len() {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    for a in [view.pos[0], view.pos[1], view.pos[2], view.radius, view.inv_mass] {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of the x86-64 baseline, and a prefetch is a hint: it never
        // faults and changes no memory. The address is that of an element in bounds (all
        // the view's slices have the length of `radius`).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(a.as_ptr().wrapping_add(p) as *const i8) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contacts::FREE;
    use crate::forces::loop_test_bed::{candidate, fixed_and_coincident, laws, other, xorshift, LENGTHS, PEER};
    use crate::forces::{LoadSink, OneMaterial, WithExtras};
    use crate::material::PairTable;
    use talus_kernels::contact::extras::PairExtras;
    use talus_kernels::contact::sphere_sphere::sphere_sphere;

    /// A small random bed's candidate pairs: touching, apart, coincident, a pair of two
    /// fixed bodies, free slots, two materials; springs already loaded (some long enough
    /// to slide).
    #[derive(Clone)]
    struct Bed {
        pos: [Vec<f64>; 3],
        vel: [Vec<f64>; 3],
        omega: [Vec<f64>; 3],
        radius: Vec<f64>,
        inv_mass: Vec<f64>,
        material: Vec<u16>,
        ci: Vec<u32>,
        cj: Vec<u32>,
        xi: Vec<Spring>,
        rolling: Vec<[f64; 3]>,
    }

    fn bed(n: usize, slots: usize, seed: u64) -> Bed {
        let mut rnd = xorshift(seed);
        let mut three =
            |s: f64, c: f64| -> [Vec<f64>; 3] { std::array::from_fn(|_| (0..n).map(|_| s * (rnd() - c)).collect()) };
        let (pos, vel, omega) = (three(0.006, 0.0), three(1.0, 0.5), three(100.0, 0.5));
        let mut b = Bed {
            pos,
            vel,
            omega,
            radius: vec![],
            inv_mass: vec![],
            material: vec![],
            ci: vec![],
            cj: vec![],
            xi: vec![],
            rolling: vec![],
        };
        b.radius = (0..n).map(|_| 0.001 + 0.001 * rnd()).collect();
        b.inv_mass = (0..n).map(|_| 1.0 / (0.001 + rnd() * 0.01)).collect();
        b.material = (0..n).map(|_| (rnd() < 0.5) as u16).collect();
        // Two fixed bodies, and a particle on top of another.
        b.inv_mass[0] = 0.0;
        b.inv_mass[1] = 0.0;
        for a in 0..3 {
            b.pos[a][3] = b.pos[a][2];
        }
        for s in 0..slots {
            let (i, j) = candidate(s, n, &mut rnd);
            b.ci.push(i);
            b.cj.push(j);
            let size = if rnd() < 0.3 { 1e-2 } else { 1e-5 };
            let xi: Spring = if rnd() < 0.7 {
                std::array::from_fn(|_| size * (rnd() - 0.5))
            } else {
                SPRING_ZERO
            };
            b.xi.push(xi);
            b.rolling.push(std::array::from_fn(|_| 1e-7 * (rnd() - 0.5)));
        }
        fixed_and_coincident(&mut b.ci, &mut b.cj);
        b
    }

    /// The bed with about half its pairs that are apart taken out of their slots (as the
    /// 3D table does with a pair that cannot touch), their springs and rolling torques
    /// left in the free slots.
    fn with_holes(b: &Bed, image: Option<MinImage>, seed: u64) -> Bed {
        let mut rnd = xorshift(seed);
        let mut m = b.clone();
        for s in 0..b.ci.len() {
            if b.ci[s] == FREE {
                continue;
            }
            let (i, j) = (b.ci[s] as usize, b.cj[s] as usize);
            let mut d: [f64; 3] = std::array::from_fn(|a| b.pos[a][j] - b.pos[a][i]);
            if let Some(mi) = &image {
                d = mi.with_cells(d).0;
            }
            let apart = d.iter().map(|x| x * x).sum::<f64>() >= (b.radius[i] + b.radius[j]).powi(2);
            if apart && rnd() < 0.5 {
                (m.ci[s], m.cj[s]) = (FREE, FREE);
            }
        }
        m
    }

    fn view(b: &Bed, image: Option<MinImage>) -> SphereView<'_> {
        SphereView {
            pos: b.pos.each_ref().map(|v| &v[..]),
            vel: b.vel.each_ref().map(|v| &v[..]),
            omega: b.omega.each_ref().map(|v| &v[..]),
            radius: &b.radius,
            inv_mass: &b.inv_mass,
            material: &b.material,
            image,
        }
    }

    type Loads = [Vec<f64>; 6];

    /// The loads, springs, rolling torques and count of the pair-by-pair loop: each
    /// candidate through the scalar kernel `sphere_sphere`, its force added in slot order.
    fn reference<P: Params>(
        b: &Bed,
        image: Option<MinImage>,
        params: &P,
        model: NormalModel,
        dt: f64,
    ) -> (Loads, Vec<Spring>, Vec<[f64; 3]>, u64) {
        let v = view(b, image);
        let n = b.radius.len();
        let mut loads: Loads = std::array::from_fn(|_| vec![0.0; n]);
        let (mut xi, mut rolling) = (b.xi.clone(), b.rolling.clone());
        let mut touching = 0;
        for s in 0..b.ci.len() {
            if b.ci[s] == FREE {
                continue;
            }
            let (i, j) = (b.ci[s] as usize, b.cj[s] as usize);
            let inv = b.inv_mass[i] + b.inv_mass[j];
            let mut d: [f64; 3] = std::array::from_fn(|a| b.pos[a][j] - b.pos[a][i]);
            let mut v_rel: [f64; 3] = std::array::from_fn(|a| b.vel[a][i] - b.vel[a][j]);
            if let Some(mi) = &image {
                let cells;
                (d, cells) = mi.with_cells(d);
                v_rel[0] += cells * mi.shear_velocity;
            }
            let mut x = xi[s];
            let c = if inv > 0.0 {
                let at = |v: &[Vec<f64>; 3], p: usize| -> [f64; 3] { std::array::from_fn(|a| v[a][p]) };
                let p = params.get(b.material[i], b.material[j]);
                let (ri, rj, wi, wj) = (b.radius[i], b.radius[j], at(&b.omega, i), at(&b.omega, j));
                sphere_sphere(p, model, d, ri, rj, v_rel, wi, wj, inv, &mut x, dt)
            } else {
                None
            };
            match c {
                None => {
                    xi[s] = SPRING_ZERO;
                    if P::EXTRAS {
                        rolling[s] = [0.0; 3];
                    }
                }
                Some(mut c) => {
                    xi[s] = x;
                    touching += 1;
                    if P::EXTRAS {
                        sphere_extras(&v, params, model, d, i, j, &mut c, &mut rolling[s], dt);
                    }
                    for a in 0..3 {
                        loads[a][i] += c.f[a];
                        loads[a][j] -= c.f[a];
                        loads[3 + a][i] += c.ti[a];
                        loads[3 + a][j] += c.tj[a];
                    }
                }
            }
        }
        (loads, xi, rolling, touching)
    }

    fn batched<P: Params>(
        law: Build,
        b: &Bed,
        image: Option<MinImage>,
        params: &P,
        model: NormalModel,
        dt: f64,
    ) -> (Loads, Vec<Spring>, Vec<[f64; 3]>, u64) {
        let n = b.radius.len();
        let mut loads: Loads = std::array::from_fn(|_| vec![0.0; n]);
        let (mut xi, mut rolling) = (b.xi.clone(), b.rolling.clone());
        let touching = {
            let [f0, f1, f2, t0, t1, t2] = &mut loads;
            let mut sink = LoadSink {
                loads: [f0, f1, f2, t0, t1, t2],
            };
            let v = view(b, image);
            let rolling: &mut [[f64; 3]] = if P::EXTRAS { &mut rolling } else { &mut [] };
            sphere_slots_with(law, &v, params, model, (&b.ci, &b.cj), &mut xi, rolling, dt, &mut sink)
        };
        (loads, xi, rolling, touching)
    }

    fn bits<const K: usize>(v: &[[f64; K]]) -> Vec<[u64; K]> {
        v.iter().map(|x| x.map(f64::to_bits)).collect()
    }

    /// The batched loop (every build of its law's stage this processor runs) gives the
    /// loads, springs, rolling torques and count of the pair-by-pair loop, bit for bit: one
    /// material and a pair table, Hooke and Hertz, with cohesion and rolling resistance
    /// (with either), in a sheared periodic cell, for table lengths around the batch's; and
    /// with many holes (free slots) among the pairs.
    #[test]
    fn batched_loop_is_bitwise_the_pair_by_pair_loop() {
        let a = PEER;
        let b = other(0.0);
        let sticky = PairExtras {
            cohesion: 3e5,
            rolling_friction: 0.1,
        };
        let table = PairTable {
            n: 2,
            params: vec![a, b, b, a],
            extras: vec![sticky, PairExtras::NONE, PairExtras::NONE, sticky],
            rolling: Default::default(),
            cohesion: Default::default(),
        };
        let cell = MinImage {
            length: [0.004, 0.005, 0.0],
            inverse: [250.0, 200.0, 0.0],
            offset: 0.0013,
            shear_velocity: 0.7,
        };
        let laws = laws();
        let dt = 1e-6;
        let extras = WithExtras {
            params: &table,
            table: &table,
        };
        let one = OneMaterial(a);
        let extras_one = WithExtras {
            params: &one,
            table: &table,
        };
        for ((slots, seed), holes) in LENGTHS.into_iter().flat_map(|l| [(l, false), (l, true)]) {
            let whole = bed(60, slots, seed);
            for model in [NormalModel::Hooke, NormalModel::Hertz] {
                for image in [None, Some(cell)] {
                    let bed = if holes {
                        with_holes(&whole, image, seed + 1)
                    } else {
                        whole.clone()
                    };
                    if holes && slots >= 64 {
                        let free = bed.ci.iter().filter(|&&i| i == FREE).count();
                        assert!(free > slots / 8, "{free} holes");
                    }
                    let cases = [
                        (reference(&bed, image, &OneMaterial(a), model, dt), 0),
                        (reference(&bed, image, &table, model, dt), 1),
                        (reference(&bed, image, &extras, model, dt), 2),
                        (reference(&bed, image, &extras_one, model, dt), 3),
                    ];
                    assert!(cases[0].0 .3 > 0 || slots < 64, "the bed has touching pairs");
                    for &law in &laws {
                        for (want, k) in &cases {
                            let got = match k {
                                0 => batched(law, &bed, image, &OneMaterial(a), model, dt),
                                1 => batched(law, &bed, image, &table, model, dt),
                                2 => batched(law, &bed, image, &extras, model, dt),
                                _ => batched(law, &bed, image, &extras_one, model, dt),
                            };
                            let what = format!(
                                "{slots} slots, {model:?}, image {}, case {k}, holes {holes}",
                                image.is_some()
                            );
                            for c in 0..6 {
                                let (g, w) = (&got.0[c], &want.0[c]);
                                let (g, w): (Vec<u64>, Vec<u64>) = (
                                    g.iter().map(|x| x.to_bits()).collect(),
                                    w.iter().map(|x| x.to_bits()).collect(),
                                );
                                assert_eq!(g, w, "loads {c}, {what}");
                            }
                            assert_eq!(bits(&got.1), bits(&want.1), "springs, {what}");
                            assert_eq!(bits(&got.2), bits(&want.2), "rolling torques, {what}");
                            assert_eq!(got.3, want.3, "touching pairs, {what}");
                        }
                    }
                }
            }
        }
    }
}
