//! The disc-disc pair loop: a linear pass over a run of contact-table slots in batches,
//! each batch gathered into lanes, put through the spring-dashpot kernel
//! (`kernels::contact::disc_disc`) as one vectorised loop, and its forces into a sink in
//! slot order; the second particle's data and loads prefetched in large systems.
use talus_kernels::contact::disc_disc::{disc_disc_touching, discs_apart, pair_frame, ContactForce, PairFrame};
use talus_kernels::contact::extras::{add_extras, contact_size, Touch};
use talus_kernels::contact::law::NormalModel;
use talus_kernels::contact::ContactParams;
use talus_kernels::neighbor::MinImage;
use talus_kernels::vector_build::Build;

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
    /// A periodic cell's minimum-image rule for the separations.
    image: Option<MinImage>,
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
            image: None,
        }
    }

    /// Particles in view.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.x.len()
    }

    /// The periodic cell's minimum-image rule, if any.
    pub(crate) fn image(&self) -> Option<&MinImage> {
        self.image.as_ref()
    }

    pub(crate) fn of(ps: &'a ParticleStore, image: Option<MinImage>) -> Self {
        let mut v = Self::new(
            &ps.pos[0],
            &ps.pos[1],
            &ps.vel[0],
            &ps.vel[1],
            &ps.omega[0],
            &ps.radius,
            &ps.inv_mass,
            &ps.material,
        );
        v.image = image;
        v
    }
}

/// Candidate slots per batch of the pair loop (see [`disc_slots`]): 64 keeps the lane
/// arrays (about 10 KB) in L1.
const BATCH: usize = 64;

/// Bytes the disc pair loop reads of a second particle: its position, velocity, spin,
/// radius and inverse mass, and its loads. With too few particles for them to miss, the
/// prefetches are extra instructions that hide little (10^4 discs: 8 % slower with the
/// data's; the loads' 4-9 %); with many, they hide the misses of second particles far away
/// in Morton order (10^6 discs: the data's 8-13 % faster, in huge pages, the loads' 7-11 %
/// more; BENCHMARKS.md). From how many depends on the machine's caches
/// (`cache_size::prefetch_pays`).
const SECOND_BYTES: usize = 7 * 8 + 3 * 8;

/// Slots ahead of the current one whose second particle is prefetched (32: 2-5 % faster
/// than 16 at 10^6 discs, and as fast as 64).
const PREFETCH_AHEAD: usize = 32;

/// The pairs of one batch, a lane per slot: what the contact law reads (the coefficients
/// only with several materials) and what it returns.
struct Lanes {
    kn: [f64; BATCH],
    kt: [f64; BATCH],
    gamma_n: [f64; BATCH],
    gamma_t: [f64; BATCH],
    mu: [f64; BATCH],
    dx: [f64; BATCH],
    dy: [f64; BATCH],
    ri: [f64; BATCH],
    rj: [f64; BATCH],
    dvx: [f64; BATCH],
    dvy: [f64; BATCH],
    wi: [f64; BATCH],
    wj: [f64; BATCH],
    inv: [f64; BATCH],
    fx: [f64; BATCH],
    fy: [f64; BATCH],
    ti: [f64; BATCH],
    tj: [f64; BATCH],
    /// The pair's frame, written by the law's first loop: the centre distance, the unit
    /// normal and the effective mass.
    d: [f64; BATCH],
    nx: [f64; BATCH],
    ny: [f64; BATCH],
    meff: [f64; BATCH],
    /// Whether the lane's pair has a force.
    force: [bool; BATCH],
    /// The lanes with a force, in order.
    hit: [u8; BATCH],
}

impl Lanes {
    fn new() -> Self {
        Lanes {
            kn: [0.0; BATCH],
            kt: [0.0; BATCH],
            gamma_n: [0.0; BATCH],
            gamma_t: [0.0; BATCH],
            mu: [0.0; BATCH],
            dx: [0.0; BATCH],
            dy: [0.0; BATCH],
            ri: [0.0; BATCH],
            rj: [0.0; BATCH],
            dvx: [0.0; BATCH],
            dvy: [0.0; BATCH],
            wi: [0.0; BATCH],
            wj: [0.0; BATCH],
            inv: [0.0; BATCH],
            fx: [0.0; BATCH],
            fy: [0.0; BATCH],
            ti: [0.0; BATCH],
            tj: [0.0; BATCH],
            d: [0.0; BATCH],
            nx: [0.0; BATCH],
            ny: [0.0; BATCH],
            meff: [0.0; BATCH],
            force: [false; BATCH],
            hit: [0; BATCH],
        }
    }
}

/// The disc pairs of a run of contact-table slots (the whole table, or one chunk of it:
/// `ci`, `cj` and `xi` start at the same slot), their forces into `sink` in slot order.
/// Returns touching pairs. With cohesion or rolling resistance (`P::EXTRAS`) they are
/// added to each touching pair's force on its way to the sink, and `rolling` holds the
/// slots' rolling torques (else it is empty).
///
/// In batches of [`BATCH`] slots, three stages, none with a branch per pair: the gather of
/// each candidate pair's data into its lane; the contact law over all lanes, touching or
/// not, one loop that the compiler vectorises (with AVX2 or AVX-512 where the processor has
/// it: four or eight pairs per instruction, the square root and the divisions included);
/// the pairs with a force into the sink, in slot order. The pair-by-pair loop this replaces
/// branched on "touching?", which a third of the candidates of a dense bed fail in no
/// pattern a predictor can learn, and spent a third of its instructions on the law, pair by
/// pair (BENCHMARKS.md, issue 18 item 6). The arithmetic of each pair is the scalar
/// kernel's, operation for operation, and vector lanes round as scalars do (no fused
/// multiply-add): the loads are bitwise those of the pair-by-pair loop (test below).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn disc_slots<P: Params, S: ForceSink>(
    v: &DiscView,
    params: &P,
    model: NormalModel,
    ci: &[u32],
    cj: &[u32],
    xi: &mut [f64],
    rolling: &mut [[f64; 1]],
    dt: f64,
    sink: &mut S,
) -> u64 {
    let prefetch = crate::cache_size::prefetch_pays(v.x.len(), SECOND_BYTES);
    disc_slots_as(
        Build::detect(),
        prefetch,
        v,
        params,
        model,
        ci,
        cj,
        xi,
        rolling,
        dt,
        sink,
    )
}

/// [`disc_slots`] with the law's stage compiled as `law` says and the second particles'
/// data and loads asked for ahead or not (`prefetch`): the whole loop compiled once per
/// normal model (a choice per batch, at the law, cost Hooke's 3.6 % more instructions).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn disc_slots_as<P: Params, S: ForceSink>(
    law: Build,
    prefetch: bool,
    v: &DiscView,
    params: &P,
    model: NormalModel,
    ci: &[u32],
    cj: &[u32],
    xi: &mut [f64],
    rolling: &mut [[f64; 1]],
    dt: f64,
    sink: &mut S,
) -> u64 {
    match model {
        NormalModel::Hooke => disc_slots_with::<P, S, false>(law, prefetch, v, params, ci, cj, xi, rolling, dt, sink),
        NormalModel::Hertz => disc_slots_with::<P, S, true>(law, prefetch, v, params, ci, cj, xi, rolling, dt, sink),
    }
}

/// [`disc_slots_as`] for one normal model (`HERTZ`; Hooke's loop has no factor to
/// compute).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn disc_slots_with<P: Params, S: ForceSink, const HERTZ: bool>(
    law: Build,
    prefetch: bool,
    v: &DiscView,
    params: &P,
    ci: &[u32],
    cj: &[u32],
    xi: &mut [f64],
    rolling: &mut [[f64; 1]],
    dt: f64,
    sink: &mut S,
) -> u64 {
    let mut lanes = Lanes::new();
    // The springs of a batch shorter than BATCH (a run's last), in lanes of their own.
    let mut short = [0.0; BATCH];
    let slots = xi.len();
    let (ci, cj) = (&ci[..slots], &cj[..slots]);
    let rolling = if P::EXTRAS { &mut rolling[..slots] } else { rolling };
    let mut touching = 0;
    let mut start = 0;
    while start < slots {
        let end = (start + BATCH).min(slots);
        let m = end - start;
        // Free slots are rare (none after a compaction of the table): a batch without them
        // skips the test slot by slot.
        if ci[start..end].iter().fold(false, |any, &i| any | (i == FREE)) {
            gather::<P, true>(v, params, ci, cj, start..end, prefetch, &mut lanes);
        } else {
            gather::<P, false>(v, params, ci, cj, start..end, prefetch, &mut lanes);
        }
        // The loads the sink will add into, asked for as far ahead as the data: at 10^6
        // discs the additions into second particles' loads took 12 % of the step, and
        // this made it 7-11 % faster (BENCHMARKS.md).
        if prefetch {
            for &j in &cj[(start + PREFETCH_AHEAD).min(slots)..(end + PREFETCH_AHEAD).min(slots)] {
                sink.prefetch(j as usize);
            }
        }
        // A periodic cell: the separations by the minimum image, and under Lees-Edwards
        // shear the relative velocity of a pair across y (one pass over the lanes, so that
        // the gather stays as it is without one).
        if let Some(mi) = &v.image {
            for l in 0..m {
                let k = mi.cells_y(lanes.dy[l]);
                lanes.dy[l] -= mi.length[1] * k;
                lanes.dx[l] = mi.axis(0, lanes.dx[l] - mi.offset * k);
                lanes.dvx[l] += k * mi.shear_velocity;
            }
        }
        // A whole batch's springs are read and written where they are kept: a copy in and
        // out of the lanes was a memcpy call each way (4 % of a 10^5 bed's step).
        match <&mut [f64; BATCH]>::try_from(&mut xi[start..end]) {
            Ok(springs) => law.run(
                #[inline(always)]
                || law_lanes::<P, HERTZ>(params, &mut lanes, springs, dt),
            ),
            Err(_) => {
                short[..m].copy_from_slice(&xi[start..end]);
                law.run(
                    #[inline(always)]
                    || law_lanes::<P, HERTZ>(params, &mut lanes, &mut short, dt),
                );
                xi[start..end].copy_from_slice(&short[..m]);
            }
        }
        // The lanes with a force, in slot order (a branch-free compaction: the count's
        // chain is one addition per lane).
        let mut k = 0;
        for l in 0..m {
            lanes.hit[k] = l as u8;
            k += lanes.force[l] as usize;
        }
        touching += k as u64;
        for o in start..end {
            sink.none(o);
        }
        for &l in &lanes.hit[..k] {
            let (l, o) = (l as usize, start + l as usize);
            let mut f = ContactForce {
                f: [lanes.fx[l], lanes.fy[l]],
                ti: [lanes.ti[l]],
                tj: [lanes.tj[l]],
                overlap: 0.0,
            };
            let (i, j) = (ci[o] as usize, cj[o] as usize);
            if P::EXTRAS {
                disc_extras::<P, HERTZ>(v, params, &lanes, l, i, j, &mut f, &mut rolling[o], dt);
            }
            sink.add(o, i, j, &f);
        }
        if P::EXTRAS {
            // A pair without a force (apart, or of two fixed bodies) lets its torque go.
            for l in 0..m {
                if !lanes.force[l] {
                    rolling[start + l] = [0.0];
                }
            }
        }
        start = end;
    }
    touching
}

/// Cohesion and rolling resistance of the touching pair in lane `l` (slot of particles
/// `i`, `j`), added to its force `f` (see `kernels::contact::extras`); `m` is its rolling
/// torque.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn disc_extras<P: Params, const HERTZ: bool>(
    v: &DiscView,
    params: &P,
    lanes: &Lanes,
    l: usize,
    i: usize,
    j: usize,
    f: &mut ContactForce,
    m: &mut [f64; 1],
    dt: f64,
) {
    let (mi, mj) = (v.material[i], v.material[j]);
    let e = params.extras(mi, mj);
    if !e.any() {
        return;
    }
    let p = params.get(mi, mj);
    let (ri, rj, d) = (lanes.ri[l], lanes.rj[l], lanes.d[l]);
    let (overlap, r_eff) = (ri + rj - d, ri * rj / (ri + rj));
    let h = NormalModel::hertz_if(HERTZ).factor(overlap, r_eff);
    let t = Touch {
        n: [lanes.nx[l], lanes.ny[l]],
        size: contact_size(params.cohesion(), d, ri, rj),
        overlap,
        r_eff,
        kn: h * p.kn,
        kt: h * p.kt,
        w: [lanes.wi[l] - lanes.wj[l]],
    };
    add_extras(e, params.rolling(), &t, f, m, dt);
}

/// Stage 1: the data of the pairs in slots `range`, lane by lane (with their coefficients,
/// unless they are the same for all). `FREE_SLOTS`: whether the range may hold free slots.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn gather<P: Params, const FREE_SLOTS: bool>(
    v: &DiscView,
    params: &P,
    ci: &[u32],
    cj: &[u32],
    range: std::ops::Range<usize>,
    prefetch: bool,
    lanes: &mut Lanes,
) {
    // Every array cut to one length here, where the compiler sees it, so that one check of
    // i and j covers them all.
    let n = v.x.len();
    let (x, y, vx, vy) = (&v.x[..n], &v.y[..n], &v.vx[..n], &v.vy[..n]);
    let (omega, radius, inv_mass, material) = (&v.omega[..n], &v.radius[..n], &v.inv_mass[..n], &v.material[..n]);
    let slots = ci.len();
    assert!(range.len() <= BATCH);
    for (l, o) in range.enumerate() {
        if prefetch && o + PREFETCH_AHEAD < slots {
            prefetch_disc(v, cj[o + PREFETCH_AHEAD] as usize);
        }
        // A free slot reads particle 0 (any valid index) and gets the inverse mass of two
        // fixed bodies: no force, its spring kept.
        let free = FREE_SLOTS && ci[o] == FREE;
        let (i, j) = if free { (0, 0) } else { (ci[o] as usize, cj[o] as usize) };
        assert!(i < n && j < n, "a contact slot names a particle beyond the store");
        if !P::UNIFORM {
            let p = params.get(material[i], material[j]);
            lanes.kn[l] = p.kn;
            lanes.kt[l] = p.kt;
            lanes.gamma_n[l] = p.gamma_n;
            lanes.gamma_t[l] = p.gamma_t;
            lanes.mu[l] = p.mu;
        }
        lanes.dx[l] = x[j] - x[i];
        lanes.dy[l] = y[j] - y[i];
        lanes.ri[l] = radius[i];
        lanes.rj[l] = radius[j];
        lanes.dvx[l] = vx[i] - vx[j];
        lanes.dvy[l] = vy[i] - vy[j];
        lanes.wi[l] = omega[i];
        lanes.wj[l] = omega[j];
        lanes.inv[l] = if free { 0.0 } else { inv_mass[i] + inv_mass[j] };
    }
}

/// Stage 2: the contact law over the lanes: every lane's force and its spring in
/// `springs`, without a branch. A pair apart gets no force and its spring reset, a pair of
/// two bodies of infinite mass no force and its spring kept, as does a free slot. All
/// [`BATCH`] lanes, whatever the batch's length (a fixed count compiles to a plain vector
/// loop; lanes past the batch hold finite data of an earlier batch, or zeros, and are not
/// read). In two loops: every lane's frame ([`pair_frame`]: its square root and two
/// divisions), then the rest. In one loop the rest waited on their latency: 10^4, 10^5
/// and 10^6 discs 8-11 % slower on a Zen 2 VM, no different on a Zen 3 (BENCHMARKS.md,
/// issue 18 item 6).
#[inline(always)]
fn law_lanes<P: Params, const HERTZ: bool>(params: &P, lanes: &mut Lanes, springs: &mut [f64; BATCH], dt: f64) {
    for l in 0..BATCH {
        let f = pair_frame(lanes.dx[l], lanes.dy[l], lanes.inv[l]);
        (lanes.d[l], lanes.nx[l], lanes.ny[l], lanes.meff[l]) = (f.d, f.n[0], f.n[1], f.meff);
    }
    for (l, spring) in springs.iter_mut().enumerate() {
        let (ri, rj) = (lanes.ri[l], lanes.rj[l]);
        let apart = discs_apart(lanes.dx[l], lanes.dy[l], ri, rj);
        let idle = apart | (lanes.inv[l] == 0.0);
        let p = if P::UNIFORM {
            *params.get(0, 0)
        } else {
            ContactParams {
                kn: lanes.kn[l],
                kt: lanes.kt[l],
                gamma_n: lanes.gamma_n[l],
                gamma_t: lanes.gamma_t[l],
                mu: lanes.mu[l],
            }
        };
        let frame = PairFrame {
            d: lanes.d[l],
            n: [lanes.nx[l], lanes.ny[l]],
            meff: lanes.meff[l],
        };
        let xi0 = *spring;
        let mut xi = xi0;
        let (dvx, dvy, wi, wj) = (lanes.dvx[l], lanes.dvy[l], lanes.wi[l], lanes.wj[l]);
        // (A lane apart has a negative overlap, and under Hertz a NaN factor: its force
        // is not read, its spring reset.)
        let c = disc_disc_touching(
            &p,
            NormalModel::hertz_if(HERTZ),
            &frame,
            ri,
            rj,
            dvx,
            dvy,
            wi,
            wj,
            &mut xi,
            dt,
        );
        *spring = if apart {
            0.0
        } else if idle {
            xi0
        } else {
            xi
        };
        lanes.fx[l] = c.f[0];
        lanes.fy[l] = c.f[1];
        lanes.ti[l] = c.ti[0];
        lanes.tj[l] = c.tj[0];
        lanes.force[l] = !idle;
    }
}

/// Ask for particle p's pair-loop data ahead of its use (a free slot's index is out of
/// range and skipped).
#[inline(always)]
fn prefetch_disc(v: &DiscView, p: usize) {
    if p >= v.x.len() {
        return;
    }
    for a in [v.x, v.y, v.vx, v.vy, v.omega, v.radius, v.inv_mass] {
        // In bounds: p is below the length of every slice of the view.
        super::prefetch_line(a.as_ptr().wrapping_add(p) as *const u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forces::loop_test_bed::{
        candidate, fixed_and_coincident, laws, other, refuses_slots_beyond_the_store, xorshift, LENGTHS, PEER,
    };
    use crate::forces::{LoadSink, OneMaterial};
    use crate::material::PairTable;
    use talus_kernels::contact::disc_disc::disc_disc;

    /// A small random bed's candidate pairs: touching, apart, coincident, a pair of two
    /// fixed bodies, free slots, two materials; springs already loaded.
    #[derive(Clone)]
    struct Bed {
        x: Vec<f64>,
        y: Vec<f64>,
        vx: Vec<f64>,
        vy: Vec<f64>,
        omega: Vec<f64>,
        radius: Vec<f64>,
        inv_mass: Vec<f64>,
        material: Vec<u16>,
        ci: Vec<u32>,
        cj: Vec<u32>,
        xi: Vec<f64>,
    }

    fn bed(n: usize, slots: usize, seed: u64) -> Bed {
        let mut rnd = xorshift(seed);
        let mut b = Bed {
            x: (0..n).map(|_| rnd() * 0.01).collect(),
            y: (0..n).map(|_| rnd() * 0.01).collect(),
            vx: (0..n).map(|_| rnd() - 0.5).collect(),
            vy: (0..n).map(|_| rnd() - 0.5).collect(),
            omega: (0..n).map(|_| 100.0 * (rnd() - 0.5)).collect(),
            radius: (0..n).map(|_| 0.001 + 0.001 * rnd()).collect(),
            inv_mass: (0..n).map(|_| 1.0 / (0.001 + rnd() * 0.01)).collect(),
            material: (0..n).map(|_| (rnd() < 0.5) as u16).collect(),
            ci: vec![],
            cj: vec![],
            xi: vec![],
        };
        // Two fixed bodies, and a particle on top of another.
        b.inv_mass[0] = 0.0;
        b.inv_mass[1] = 0.0;
        b.x[3] = b.x[2];
        b.y[3] = b.y[2];
        for s in 0..slots {
            let (i, j) = candidate(s, n, &mut rnd);
            b.ci.push(i);
            b.cj.push(j);
            b.xi.push(if rnd() < 0.5 { 1e-4 * (rnd() - 0.5) } else { 0.0 });
        }
        fixed_and_coincident(&mut b.ci, &mut b.cj);
        b
    }

    fn view(b: &Bed) -> DiscView<'_> {
        DiscView::new(&b.x, &b.y, &b.vx, &b.vy, &b.omega, &b.radius, &b.inv_mass, &b.material)
    }

    /// The loads and springs of the pair-by-pair loop: each candidate through `disc_disc`,
    /// its force added in slot order.
    #[allow(clippy::needless_range_loop)]
    fn reference<P: Params>(b: &Bed, params: &P, model: NormalModel, dt: f64) -> ([Vec<f64>; 3], Vec<f64>, u64) {
        let n = b.x.len();
        let (mut fx, mut fy, mut tq) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
        let mut xi = b.xi.clone();
        let mut touching = 0;
        for s in 0..b.ci.len() {
            if b.ci[s] == FREE {
                continue;
            }
            let (i, j) = (b.ci[s] as usize, b.cj[s] as usize);
            let inv = b.inv_mass[i] + b.inv_mass[j];
            let mut x = xi[s];
            let c = disc_disc(
                params.get(b.material[i], b.material[j]),
                model,
                b.x[j] - b.x[i],
                b.y[j] - b.y[i],
                b.radius[i],
                b.radius[j],
                b.vx[i] - b.vx[j],
                b.vy[i] - b.vy[j],
                b.omega[i],
                b.omega[j],
                inv,
                &mut x,
                dt,
            );
            match c {
                None => xi[s] = 0.0,
                Some(_) if inv == 0.0 => {}
                Some(c) => {
                    xi[s] = x;
                    touching += 1;
                    fx[i] += c.f[0];
                    fy[i] += c.f[1];
                    tq[i] += c.ti[0];
                    fx[j] -= c.f[0];
                    fy[j] -= c.f[1];
                    tq[j] += c.tj[0];
                }
            }
        }
        ([fx, fy, tq], xi, touching)
    }

    fn batched<P: Params>(
        law: Build,
        b: &Bed,
        params: &P,
        model: NormalModel,
        dt: f64,
    ) -> ([Vec<f64>; 3], Vec<f64>, u64) {
        let n = b.x.len();
        let run = |prefetch: bool| {
            let (mut fx, mut fy, mut tq) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            let mut xi = b.xi.clone();
            let mut sink = LoadSink {
                loads: [&mut fx, &mut fy, &mut tq],
            };
            let (ci, cj) = (&b.ci, &b.cj);
            let v = view(b);
            let touching = disc_slots_as(
                law,
                prefetch,
                &v,
                params,
                model,
                ci,
                cj,
                &mut xi,
                &mut [],
                dt,
                &mut sink,
            );
            ([fx, fy, tq], xi, touching)
        };
        // With and without the prefetches (the loop asks for them only in large systems):
        // hints, which change nothing.
        let (got, hinted) = (run(false), run(true));
        assert_eq!(got.2, hinted.2);
        assert_eq!(bits(&got.1), bits(&hinted.1));
        for (a, b) in got.0.iter().zip(&hinted.0) {
            assert_eq!(bits(a), bits(b));
        }
        got
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// The batched loop (every build of its law's stage this processor runs) gives the
    /// loads, springs and count of the pair-by-pair loop, bit for bit, with one material
    /// and with a pair table, Hooke and Hertz, for table lengths around the batch's.
    #[test]
    fn batched_loop_is_bitwise_the_pair_by_pair_loop() {
        let a = PEER;
        let b = other(1e5);
        let table = PairTable {
            n: 2,
            params: vec![a, b, b, a],
            extras: vec![Default::default(); 4],
            rolling: Default::default(),
            cohesion: Default::default(),
        };
        let laws = laws();
        let dt = 1e-6;
        for (slots, seed) in LENGTHS {
            let bed = bed(120, slots, seed);
            for model in [NormalModel::Hooke, NormalModel::Hertz] {
                let want_one = reference(&bed, &OneMaterial(a), model, dt);
                let want_table = reference(&bed, &table, model, dt);
                assert!(want_one.2 > 0 || slots < 64, "the bed has touching pairs");
                for &law in &laws {
                    for (got, want) in [
                        (batched(law, &bed, &OneMaterial(a), model, dt), &want_one),
                        (batched(law, &bed, &table, model, dt), &want_table),
                    ] {
                        for k in 0..3 {
                            assert_eq!(bits(&got.0[k]), bits(&want.0[k]), "loads {k}, {slots} slots, {model:?}");
                        }
                        assert_eq!(bits(&got.1), bits(&want.1), "springs, {slots} slots, {model:?}");
                        assert_eq!(got.2, want.2, "touching pairs, {slots} slots, {model:?}");
                    }
                }
            }
        }
    }

    /// A live slot naming a particle beyond the store stops the loop with a message saying
    /// so.
    #[test]
    fn a_slot_beyond_the_store_is_refused() {
        let whole = bed(120, 200, 7);
        refuses_slots_beyond_the_store(120, BATCH, &whole.ci, &whole.cj, |ci, cj, law| {
            let b = Bed {
                ci,
                cj,
                ..whole.clone()
            };
            batched(law, &b, &OneMaterial(PEER), NormalModel::Hooke, 1e-6);
        });
    }
}
