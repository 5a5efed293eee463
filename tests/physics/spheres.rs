//! Spheres in 3D through the whole engine (`talus::engine3d`, the 3D build of the same
//! source): binary impacts against the damped oscillator, a sliding sphere on a plane
//! against Cundall-Strack's rolling limit, energy conservation of an elastic gas in a box of
//! planes for every 3D neighbour method, the octree against the sweep, a sphere carried
//! by a turning cylinder, and the pool's strategies against the pool of one.
use std::f64::consts::PI;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use talus::engine3d::{
    Config, ContactParams, ForceStrategy, Integrator, Material, NeighborMethod, ParticleInit, Simulation, Wall,
};
use talus::kernels3d::contact::law::NormalModel;

/// Volumetric density (kg/m^3) and normal stiffness (N/m).
const DENSITY: f64 = 2500.0;
const KN: f64 = 1.0e5;

fn sphere_mass(r: f64) -> f64 {
    DENSITY * 4.0 / 3.0 * PI * r * r * r
}

fn material(contact: ContactParams) -> Material {
    Material {
        name: "glass".into(),
        density: DENSITY,
        contact,
    }
}

fn config(dt: f64, gravity: [f64; 3], half: f64, neighbor: NeighborMethod) -> Config {
    Config {
        dt,
        gravity,
        domain_min: [-half; 3],
        domain_max: [half; 3],
        integrator: Integrator::Verlet,
        neighbor,
        margin: 0.1e-3,
        every_step: false,
        sort_every: 0,
        normal_model: NormalModel::Hooke,
    }
}

fn sphere(id: u64, pos: [f64; 3], vel: [f64; 3], r: f64) -> ParticleInit {
    ParticleInit {
        id,
        pos,
        angle: 0.0,
        vel,
        omega: [0.0; 3],
        radius: r,
        mass: sphere_mass(r),
        material: 0,
        ptype: 1,
        flags: 0,
    }
}

/// kn = KN, kt = 2/7 kn, gamma_n for restitution `e` at effective mass `meff`, gamma_t =
/// gamma_n / 2, friction `mu` (the peer's S3D form).
fn frictional(meff: f64, e: f64, mu: f64) -> ContactParams {
    let gamma_n = ContactParams::gamma_for_restitution(KN, meff, e);
    ContactParams {
        kn: KN,
        kt: 2.0 / 7.0 * KN,
        gamma_n,
        gamma_t: 0.5 * gamma_n,
        mu,
    }
}

/// The six planes of the box [-half, half]^3, normals inwards.
fn box_of_planes(half: f64) -> Vec<Wall> {
    (0..6)
        .map(|k| {
            let (axis, sign) = (k / 2, if k % 2 == 0 { 1.0 } else { -1.0 });
            let mut point = [0.0; 3];
            point[axis] = -sign * half;
            let mut normal = [0.0; 3];
            normal[axis] = sign;
            Wall::plane(point, normal, 0)
        })
        .collect()
}

/// `side`^3 spheres at the centres of a cubic lattice filling [-half, half]^3, radii
/// `r` times a factor drawn from `scale`, velocities uniform in +-`speed` per axis.
fn lattice(
    side: usize,
    half: f64,
    r: f64,
    speed: f64,
    scale: std::ops::Range<f64>,
    rng: &mut Xoshiro256PlusPlus,
) -> Vec<ParticleInit> {
    (0..side * side * side)
        .map(|k| {
            let cell = [k % side, k / side % side, k / (side * side)];
            let pos = cell.map(|c| -half + (c as f64 + 0.5) * 2.0 * half / side as f64);
            let vel = [0; 3].map(|_| rng.random_range(-speed..speed));
            sphere(k as u64 + 1, pos, vel, r * rng.random_range(scale.clone()))
        })
        .collect()
}

fn at(v: &[Vec<f64>; 3], p: usize) -> [f64; 3] {
    [v[0][p], v[1][p], v[2][p]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Two equal spheres meet head-on along a direction off every axis: the contact lasts the
/// damped oscillator's half period and the normal velocity comes back scaled by the
/// restitution, both within 1 % (dt = t_c / 1000).
#[test]
fn head_on_impact_lasts_the_contact_time_and_rebounds_with_the_restitution() {
    let r = 1e-3;
    let meff = sphere_mass(r) / 2.0;
    for e in [1.0, 0.8, 0.5] {
        let prm = frictional(meff, e, 0.5);
        let tc = prm.contact_time(meff);
        let dt = tc / 1000.0;
        let n = [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0];
        let v0 = 0.05;
        let gap = 0.5 * v0 * dt * 20.0;
        let c = r + gap;
        let inits = [
            sphere(1, n.map(|a| -c * a), n.map(|a| v0 * a), r),
            sphere(2, n.map(|a| c * a), n.map(|a| -v0 * a), r),
        ];
        let mut sim = Simulation::new(
            config(dt, [0.0; 3], 0.1, NeighborMethod::Sweep),
            vec![material(prm)],
            vec![],
            &inits,
        )
        .unwrap();
        let mut touching_steps = 0u64;
        let mut was = false;
        for _ in 0..5000 {
            sim.step().unwrap();
            let now = sim.last_contacts > 0;
            touching_steps += now as u64;
            if was && !now {
                break;
            }
            was = now;
        }
        let ps = &sim.particles;
        let (a, b) = (ps.index_of(1).unwrap(), ps.index_of(2).unwrap());
        let (va, vb) = (at(&ps.vel, a), at(&ps.vel, b));
        let rebound = dot([vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]], n) / (2.0 * v0);
        let duration = touching_steps as f64 * dt;
        assert!((rebound - e).abs() < 0.01 * e, "e = {e}: rebound {rebound}");
        assert!(
            (duration - tc).abs() < 0.01 * tc,
            "e = {e}: contact {duration} s, t_c {tc} s"
        );
        // A head-on impact leaves no spin and no velocity across the line of centres.
        for p in [a, b] {
            let v = at(&ps.vel, p);
            let along = dot(v, n);
            let across = (dot(v, v) - along * along).max(0.0).sqrt();
            assert!(across < 1e-12, "e = {e}: sideways {across}");
            assert!(at(&ps.omega, p).iter().all(|w| w.abs() < 1e-9));
        }
    }
}

/// A sphere launched sliding (v0, no spin) on a plane with friction: kinetic friction
/// slows it and spins it up until it rolls, at v = 5/7 v0 (Cundall-Strack spring and
/// Coulomb cap; the plane a wall with its own spring), within 1 %.
#[test]
fn sliding_sphere_on_a_plane_ends_rolling_at_five_sevenths() {
    let r = 1e-3;
    let m = sphere_mass(r);
    let prm = frictional(m, 0.5, 0.3);
    let dt = prm.contact_time(m) / 50.0;
    let g = 9.81;
    let rest = m * g / KN;
    let v0 = 0.1;
    let floor = Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0);
    let mut cfg = config(dt, [0.0, 0.0, -g], 1.0, NeighborMethod::Sweep);
    cfg.domain_min[2] = -0.1;
    let mut sim = Simulation::new(
        cfg,
        vec![material(prm)],
        vec![floor],
        &[sphere(1, [0.0, 0.0, r - rest], [v0, 0.0, 0.0], r)],
    )
    .unwrap();
    // Sliding lasts 2 v0 / (7 mu g) = 9.7 ms; run twice as long.
    let steps = (4.0 * v0 / (7.0 * 0.3 * g) / dt) as u64;
    sim.run(steps).unwrap();
    let ps = &sim.particles;
    let (v, w) = (at(&ps.vel, 0), at(&ps.omega, 0));
    assert!((v[0] - 5.0 / 7.0 * v0).abs() < 0.01 * v0, "v = {v:?}");
    // Rolling without slip: v = -omega_y r (the contact point at -r z at rest).
    assert!((v[0] - w[1] * r).abs() < 1e-3 * v0, "v = {v:?}, omega = {w:?}");
    assert!(v[1].abs() < 1e-12 && w[0].abs() < 1e-9 && w[2].abs() < 1e-9);
}

/// An elastic gas (no damping, no friction, no gravity) in a box of six planes: the
/// kinetic plus elastic energy stays within 0.1 % over a few hundred collisions, for every
/// neighbour method of the 3D build.
#[test]
fn elastic_gas_in_a_box_keeps_its_energy_with_every_method() {
    let prm = ContactParams {
        kn: KN,
        kt: 0.0,
        gamma_n: 0.0,
        gamma_t: 0.0,
        mu: 0.0,
    };
    let r = 1e-3;
    let half = 0.01;
    let dt = prm.contact_time(sphere_mass(r) / 2.0) / 50.0;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(19);
    let side = 8;
    let inits = lattice(side, half, r, 0.3, 0.8..1.2, &mut rng);
    let walls = box_of_planes(half);
    for method in NeighborMethod::ALL {
        let mut cfg = config(dt, [0.0; 3], 2.0 * half, *method);
        cfg.margin = 0.2 * r;
        let mut sim = Simulation::new(cfg, vec![material(prm)], walls.clone(), &inits).unwrap();
        let e0 = sim.energies().total();
        // Pair-steps in contact over the run, over the steps a collision lasts: about the
        // number of collisions.
        let mut touching = 0;
        for k in 0..20_000 {
            sim.step().unwrap();
            touching += sim.last_contacts;
            if k % 500 == 0 {
                let e = sim.energies().total();
                assert!((e - e0).abs() < 1e-3 * e0, "{}: energy {e} from {e0}", method.name());
            }
        }
        let collisions = touching / 50;
        assert!(
            collisions > 200,
            "{}: the gas barely collided ({collisions})",
            method.name()
        );
    }
}

/// The octree (the registry's "quadtree", which the 3D build also calls "octree") gives the
/// sweep's contacts: a bed of spheres falling and colliding with friction in a box of
/// planes, renumbered every 300 steps, keeps the same candidate pairs and contacts at every
/// step, serially and on a pool of three (the tree's parallel scan and pair search,
/// bitwise the serial run); positions agree with the sweep's to 1e-9 m (pairs enter the
/// contact table in another order, hence forces are summed in another order).
#[test]
fn the_octree_keeps_the_sweeps_contacts() {
    assert_eq!("octree".parse::<NeighborMethod>(), Ok(NeighborMethod::Quadtree));
    assert_eq!("quadtree".parse::<NeighborMethod>(), Ok(NeighborMethod::Quadtree));
    let r = 1e-3;
    let m = sphere_mass(r);
    let prm = frictional(m / 2.0, 0.5, 0.5);
    let side = 6;
    let half = 1.1 * r * side as f64;
    let dt = prm.contact_time(m / 2.0) / 50.0;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(23);
    let inits = lattice(side, half, r, 0.5, 0.9..1.05, &mut rng);
    let walls = box_of_planes(half);
    let make = |method: NeighborMethod, threads: usize| {
        let mut cfg = config(dt, [0.0, 0.0, -9.81], 2.0 * half, method);
        cfg.every_step = true;
        cfg.sort_every = 300;
        let mut sim = Simulation::new(cfg, vec![material(prm)], walls.clone(), &inits).unwrap();
        sim.set_parallel(&vec![None; threads], ForceStrategy::Deterministic)
            .unwrap();
        sim
    };
    let mut sims = [
        make(NeighborMethod::Sweep, 1),
        make(NeighborMethod::Quadtree, 1),
        make(NeighborMethod::Quadtree, 3),
    ];
    let mut touching = 0;
    for step in 0..3000 {
        for s in &mut sims {
            s.step().unwrap();
        }
        let want = (sims[0].candidate_pairs(), sims[0].last_contacts);
        for (k, s) in sims[1..].iter().enumerate() {
            assert_eq!(
                (s.candidate_pairs(), s.last_contacts),
                want,
                "step {step}: octree run {k} against the sweep (candidates, contacts)"
            );
        }
        touching += want.1;
    }
    assert!(touching > 10_000, "the bed barely collided ({touching} pair-steps)");
    let state = |s: &Simulation| {
        let ps = &s.particles;
        let mut v: Vec<(u64, [f64; 3])> = (0..s.len()).map(|p| (ps.id[p], at(&ps.pos, p))).collect();
        v.sort_by_key(|t| t.0);
        v
    };
    let (sweep, serial, pooled) = (state(&sims[0]), state(&sims[1]), state(&sims[2]));
    assert!(
        serial
            .iter()
            .zip(&pooled)
            .all(|(a, b)| a.1.iter().zip(&b.1).all(|(x, y)| x.to_bits() == y.to_bits())),
        "the octree on three threads is not bitwise its serial run"
    );
    let worst = sweep
        .iter()
        .zip(&serial)
        .flat_map(|(a, b)| a.1.iter().zip(&b.1).map(|(x, y)| (x - y).abs()))
        .fold(0.0, f64::max);
    assert!(worst < 1e-9, "octree and sweep positions differ by {worst:e} m");
}

/// A sphere resting at the bottom of a drum (a cylinder turning about the horizontal z
/// axis, gravity along -y) when the drum starts turning: the wall slides under it, kinetic
/// friction mu m g pushes it along and spins it up until its contact point moves with the
/// wall (speed Omega R), as on a moving floor: then v = 2/7 Omega R and omega r = 5/7
/// Omega R (the 5/7 rule seen from the wall). Within 2 % (the sphere has moved 1e-3 of the
/// drum's radius by then: the floor is flat enough).
#[test]
fn sphere_in_a_turning_drum_is_spun_up_to_rolling() {
    let r = 1e-3;
    let m = sphere_mass(r);
    let (mu, big, spin, g) = (0.8, 0.01, 2.0, 9.81);
    let prm = frictional(m, 0.3, mu);
    let dt = prm.contact_time(m) / 50.0;
    let drum = Wall::cylinder([0.0; 3], [0.0, 0.0, 1.0], big, spin, 0);
    let rest = m * g / KN;
    let mut sim = Simulation::new(
        config(dt, [0.0, -g, 0.0], 0.02, NeighborMethod::Sweep),
        vec![material(prm)],
        vec![drum],
        &[sphere(1, [0.0, -(big - r + rest), 0.0], [0.0; 3], r)],
    )
    .unwrap();
    // Slipping lasts 2 Omega R / (7 mu g); run three times as long.
    let slip = 2.0 * spin * big / (7.0 * mu * g);
    sim.run((3.0 * slip / dt) as u64).unwrap();
    let ps = &sim.particles;
    let (v, w) = (at(&ps.vel, 0), at(&ps.omega, 0));
    let wall = spin * big;
    assert!((v[0] - 2.0 / 7.0 * wall).abs() < 0.02 * 2.0 / 7.0 * wall, "v = {v:?}");
    assert!(
        (w[2] * r - 5.0 / 7.0 * wall).abs() < 0.02 * 5.0 / 7.0 * wall,
        "omega = {w:?}"
    );
    assert!(v[2].abs() < 1e-12 && w[0].abs() < 1e-9 && w[1].abs() < 1e-9);
}

/// A bed of spheres settling with friction and damping in a box of planes: 2 and 3
/// threads summing deterministically give the one-thread run bit for bit; the per-thread
/// and mutex strategies agree to 1e-9 of the box.
#[test]
fn strategies_agree_with_the_pool_of_one() {
    let r = 1e-3;
    let m = sphere_mass(r);
    let prm = frictional(m / 2.0, 0.5, 0.5);
    // Neighbours 1.98 r apart on a cubic lattice: in contact from the first step.
    let side = 7;
    let half = 0.99 * r * side as f64;
    let dt = prm.contact_time(m / 2.0) / 50.0;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let inits = lattice(side, half, r, 0.1, 0.95..1.0, &mut rng);
    let walls = box_of_planes(half);
    let run = |threads: usize, strategy: ForceStrategy| {
        let mut cfg = config(dt, [0.0, 0.0, -9.81], 2.0 * half, NeighborMethod::Sweep);
        cfg.every_step = true;
        let mut sim = Simulation::new(cfg, vec![material(prm)], walls.clone(), &inits).unwrap();
        sim.set_parallel(&vec![None; threads], strategy).unwrap();
        let mut touching = 0;
        for _ in 0..40 {
            sim.run(10).unwrap();
            touching += sim.last_contacts;
        }
        let ps = &sim.particles;
        let mut v: Vec<(u64, [f64; 9])> = (0..sim.len())
            .map(|p| {
                let (x, u, w) = (at(&ps.pos, p), at(&ps.vel, p), at(&ps.omega, p));
                (ps.id[p], [x[0], x[1], x[2], u[0], u[1], u[2], w[0], w[1], w[2]])
            })
            .collect();
        v.sort_by_key(|(id, _)| *id);
        (v, touching)
    };
    let (one, touching) = run(1, ForceStrategy::Deterministic);
    assert!(
        touching > 1000,
        "the bed should be in contact ({touching} pairs over 40 samples)"
    );
    for threads in [2, 3] {
        let (det, _) = run(threads, ForceStrategy::Deterministic);
        assert!(
            one.iter()
                .zip(&det)
                .all(|(a, b)| a.1.iter().zip(&b.1).all(|(x, y)| x.to_bits() == y.to_bits())),
            "{threads} threads, deterministic: not bitwise the one-thread run"
        );
        for strategy in [ForceStrategy::PerThread, ForceStrategy::Mutex] {
            let (other, _) = run(threads, strategy);
            let worst = one
                .iter()
                .zip(&other)
                .flat_map(|(a, b)| a.1[..3].iter().zip(&b.1[..3]).map(|(x, y)| (x - y).abs()))
                .fold(0.0, f64::max);
            assert!(worst < 1e-9 * half, "{threads} threads, {strategy:?}: {worst} m apart");
        }
    }
}
