//! Tests of `sphere_sphere.rs`: the batched loop against the pair-by-pair one.
use super::*;
use crate::contacts::FREE;
use crate::forces::loop_test_bed::{
    candidate, fixed_and_coincident, laws, other, refuses_slots_beyond_the_store, xorshift, LENGTHS, PEER,
};
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
            // The batched loop zeroes a free slot's spring with its batch's.
            xi[s] = SPRING_ZERO;
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
    let run = |prefetch: bool| {
        let mut loads: Loads = std::array::from_fn(|_| vec![0.0; n]);
        let (mut xi, mut rolling) = (b.xi.clone(), b.rolling.clone());
        let touching = {
            let [f0, f1, f2, t0, t1, t2] = &mut loads;
            let mut sink = LoadSink {
                loads: [f0, f1, f2, t0, t1, t2],
            };
            let v = view(b, image);
            let rolling: &mut [[f64; 3]] = if P::EXTRAS { &mut rolling } else { &mut [] };
            sphere_slots_with(
                law,
                prefetch,
                &v,
                params,
                model,
                (&b.ci, &b.cj),
                &mut xi,
                rolling,
                dt,
                &mut sink,
            )
        };
        (loads, xi, rolling, touching)
    };
    // With and without the prefetches (the loop asks for them only in large systems):
    // hints, which change nothing.
    let (got, hinted) = (run(false), run(true));
    assert_eq!(got.3, hinted.3);
    assert_eq!(bits(&got.1), bits(&hinted.1));
    assert_eq!(bits(&got.2), bits(&hinted.2));
    for (a, b) in got.0.iter().zip(&hinted.0) {
        let scalar_bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(scalar_bits(a), scalar_bits(b));
    }
    got
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

/// A live slot naming a particle beyond the store stops the loop (the gathers index
/// without a check of their own once a batch has passed).
#[test]
fn a_slot_beyond_the_store_is_refused() {
    let whole = bed(60, 200, 7);
    refuses_slots_beyond_the_store(60, BATCH, &whole.ci, &whole.cj, |ci, cj, law| {
        let b = Bed {
            ci,
            cj,
            ..whole.clone()
        };
        batched(law, &b, None, &OneMaterial(PEER), NormalModel::Hooke, 1e-6);
    });
}
