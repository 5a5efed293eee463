//! Spheres in 3D through the whole engine (`talus::engine3d`, the 3D build of the same
//! source): binary impacts against the damped oscillator, oblique impacts (on a plane and
//! of two spheres, sticking and sliding) against Cundall-Strack, a sliding sphere on a plane
//! against Cundall-Strack's rolling limit, energy conservation of an elastic gas in a box of
//! planes for every 3D neighbour method, the octree against the sweep, a sphere carried
//! by a turning cylinder, the pool's strategies against the pool of one (each with both
//! integrators, Verlet and Gear), and the two integrators on one settling bed.
use std::f64::consts::PI;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use talus::engine3d::wall_motion::Displacement;
use talus::engine3d::{
    Config, ContactParams, ForceStrategy, Integrator, Material, NeighborMethod, ParticleInit, Simulation, Wall,
};
use talus::kernels3d::contact::law::NormalModel;

mod far_pairs;

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

const BOTH: [Integrator; 2] = [Integrator::Verlet, Integrator::Gear];

fn config(dt: f64, gravity: [f64; 3], half: f64, neighbor: NeighborMethod, integrator: Integrator) -> Config {
    Config {
        dt,
        gravity,
        domain_min: [-half; 3],
        domain_max: [half; 3],
        integrator,
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

/// A bed for the tests of many spheres: `side`^3 on a cubic lattice `spacing` radii apart
/// (radius 1e-3 m times a factor from `scale`, velocities within +-`speed`, from `seed`),
/// the frictional law (restitution 0.5, friction 0.5), dt = t_c / 50, and the half-width
/// of the box that holds them.
struct LatticeBed {
    inits: Vec<ParticleInit>,
    prm: ContactParams,
    dt: f64,
    half: f64,
}

fn lattice_bed(side: usize, spacing: f64, speed: f64, scale: std::ops::Range<f64>, seed: u64) -> LatticeBed {
    let r = 1e-3;
    let m = sphere_mass(r);
    let prm = frictional(m / 2.0, 0.5, 0.5);
    let half = 0.5 * spacing * r * side as f64;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    LatticeBed {
        inits: lattice(side, half, r, speed, scale, &mut rng),
        prm,
        dt: prm.contact_time(m / 2.0) / 50.0,
        half,
    }
}

fn at(v: &[Vec<f64>; 3], p: usize) -> [f64; 3] {
    [v[0][p], v[1][p], v[2][p]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Two equal spheres meet head-on along a direction off every axis: the contact lasts the
/// damped oscillator's half period and the normal velocity comes back scaled by the
/// restitution, both within 1 % (dt = t_c / 1000), with either integrator.
#[test]
fn head_on_impact_lasts_the_contact_time_and_rebounds_with_the_restitution() {
    let r = 1e-3;
    let meff = sphere_mass(r) / 2.0;
    for (integrator, e) in BOTH.into_iter().flat_map(|i| [1.0, 0.8, 0.5].map(|e| (i, e))) {
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
            config(dt, [0.0; 3], 0.1, NeighborMethod::Sweep, integrator),
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
        // Free flight: Verlet's velocities stay as they are, Gear's corrector rings out in
        // the two steps after the force vanished.
        sim.run(5).unwrap();
        let ps = &sim.particles;
        let (a, b) = (ps.index_of(1).unwrap(), ps.index_of(2).unwrap());
        let (va, vb) = (at(&ps.vel, a), at(&ps.vel, b));
        let rebound = dot([vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]], n) / (2.0 * v0);
        let duration = touching_steps as f64 * dt;
        assert!(
            (rebound - e).abs() < 0.01 * e,
            "{integrator:?}, e = {e}: rebound {rebound}"
        );
        assert!(
            (duration - tc).abs() < 0.01 * tc,
            "{integrator:?}, e = {e}: contact {duration} s, t_c {tc} s"
        );
        // A head-on impact leaves no spin and no velocity across the line of centres.
        for p in [a, b] {
            let v = at(&ps.vel, p);
            // The part across n, taken directly (|v|^2 - along^2 would leave rounding of
            // sqrt(eps) |v|).
            let along = dot(v, n);
            let w = [0, 1, 2].map(|k| v[k] - along * n[k]);
            let across = dot(w, w).sqrt();
            assert!(across < 1e-12, "{integrator:?}, e = {e}: sideways {across}");
            assert!(at(&ps.omega, p).iter().all(|w| w.abs() < 1e-9));
        }
    }
}

/// A sphere launched sliding (v0, no spin) on a plane with friction: kinetic friction
/// slows it and spins it up until it rolls, at v = 5/7 v0 (Cundall-Strack spring and
/// Coulomb cap; the plane a wall with its own spring), within 1 %, with either integrator.
#[test]
fn sliding_sphere_on_a_plane_ends_rolling_at_five_sevenths() {
    for integrator in BOTH {
        sliding_sphere(integrator);
    }
}

fn sliding_sphere(integrator: Integrator) {
    let r = 1e-3;
    let m = sphere_mass(r);
    let prm = frictional(m, 0.5, 0.3);
    let dt = prm.contact_time(m) / 50.0;
    let g = 9.81;
    let rest = m * g / KN;
    let v0 = 0.1;
    let floor = Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0);
    let mut cfg = config(dt, [0.0, 0.0, -g], 1.0, NeighborMethod::Sweep, integrator);
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
    assert!((v[0] - 5.0 / 7.0 * v0).abs() < 0.01 * v0, "{integrator:?}: v = {v:?}");
    // Rolling without slip: v = -omega_y r (the contact point at -r z at rest).
    assert!(
        (v[0] - w[1] * r).abs() < 1e-3 * v0,
        "{integrator:?}: v = {v:?}, omega = {w:?}"
    );
    assert!(v[1].abs() < 1e-12 && w[0].abs() < 1e-9 && w[2].abs() < 1e-9);
}

/// An elastic gas (no damping, no friction, no gravity) in a box of six planes: the
/// kinetic plus elastic energy stays within 0.1 % over a few hundred collisions, for every
/// neighbour method of the 3D build, with either integrator.
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
    for (method, integrator) in BOTH
        .into_iter()
        .flat_map(|i| NeighborMethod::ALL.iter().map(move |m| (m, i)))
    {
        let what = format!("{} {integrator:?}", method.name());
        let mut cfg = config(dt, [0.0; 3], 2.0 * half, *method, integrator);
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
                assert!((e - e0).abs() < 1e-3 * e0, "{what}: energy {e} from {e0}");
            }
        }
        let collisions = touching / 50;
        assert!(collisions > 200, "{what}: the gas barely collided ({collisions})");
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
    let LatticeBed { inits, prm, dt, half } = lattice_bed(6, 2.2, 0.5, 0.9..1.05, 23);
    let walls = box_of_planes(half);
    let make = |method: NeighborMethod, threads: usize| {
        let mut cfg = config(dt, [0.0, 0.0, -9.81], 2.0 * half, method, Integrator::Verlet);
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
/// drum's radius by then: the floor is flat enough). With either integrator.
#[test]
fn sphere_in_a_turning_drum_is_spun_up_to_rolling() {
    for integrator in BOTH {
        sphere_in_a_drum(integrator);
    }
}

fn sphere_in_a_drum(integrator: Integrator) {
    let r = 1e-3;
    let m = sphere_mass(r);
    let (mu, big, spin, g) = (0.8, 0.01, 2.0, 9.81);
    let prm = frictional(m, 0.3, mu);
    let dt = prm.contact_time(m) / 50.0;
    let drum = Wall::cylinder([0.0; 3], [0.0, 0.0, 1.0], big, spin, 0);
    let rest = m * g / KN;
    let mut sim = Simulation::new(
        config(dt, [0.0, -g, 0.0], 0.02, NeighborMethod::Sweep, integrator),
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
    assert!(
        (v[0] - 2.0 / 7.0 * wall).abs() < 0.02 * 2.0 / 7.0 * wall,
        "{integrator:?}: v = {v:?}"
    );
    assert!(
        (w[2] * r - 5.0 / 7.0 * wall).abs() < 0.02 * 5.0 / 7.0 * wall,
        "{integrator:?}: omega = {w:?}"
    );
    assert!(v[2].abs() < 1e-12 && w[0].abs() < 1e-9 && w[1].abs() < 1e-9);
}

/// A drum turned by a law of its angle: by a constant rate, bit for bit the drum given
/// that spin; by theta(t) = A sin(2 pi f t - pi/2), which starts from rest, a sphere at
/// its bottom rolls without slipping (its friction needs 2/7 R A (2 pi f)^2 < mu g), so
/// that its contact point moves with the wall: v = 2/7 u(t), u = R theta'(t) the wall's
/// speed (the rule of the test above, at every instant), less gravity's pull back to the
/// bottom, g / ((R - r) (2 pi f)^2) = 1 % of the inertia's at 50 Hz, taken to first
/// order: within 1 % of the peak over a period. With either integrator.
#[test]
fn sphere_in_a_drum_turned_by_a_law_rolls_with_it() {
    for integrator in BOTH {
        let r = 1e-3;
        let m = sphere_mass(r);
        let (mu, big, g) = (0.8, 0.01, 9.81);
        let prm = frictional(m, 0.3, mu);
        let dt = prm.contact_time(m) / 50.0;
        let rest = m * g / KN;
        let drum = |spin: f64| {
            Simulation::new(
                config(dt, [0.0, -g, 0.0], 0.02, NeighborMethod::Sweep, integrator),
                vec![material(prm)],
                vec![Wall::cylinder([0.0; 3], [0.0, 0.0, 1.0], big, spin, 0)],
                &[sphere(1, [0.0, -(big - r + rest), 0.0], [0.0; 3], r)],
            )
            .unwrap()
        };
        let mut spun = drum(2.0);
        let mut turned = drum(0.0);
        turned.turn_wall(0, Displacement::Velocity(2.0)).unwrap();
        spun.run(2000).unwrap();
        turned.run(2000).unwrap();
        assert_eq!(
            at(&spun.particles.vel, 0),
            at(&turned.particles.vel, 0),
            "{integrator:?}"
        );
        assert_eq!(at(&spun.particles.omega, 0), at(&turned.particles.omega, 0));

        let (amplitude, f) = (0.01, 50.0);
        let law = Displacement::Sine {
            amplitude,
            frequency: f,
            phase: -PI / 2.0,
        };
        let mut sim = drum(0.0);
        sim.turn_wall(0, law).unwrap();
        let w = 2.0 * PI * f;
        let peak = big * amplitude * w;
        let chunk = (1.0 / (20.0 * f) / dt) as u64;
        let mut worst: f64 = 0.0;
        for _ in 0..20 {
            sim.run(chunk).unwrap();
            let t = sim.time;
            let u = big * amplitude * w * (w * t - PI / 2.0).cos();
            // Gravity's pull back to the bottom, to first order: the sphere rolls to
            // x = 2/7 R A (1 - cos w t), an angle x / (R - r) about the axis, and
            // dv/dt = 2/7 du/dt - 5/7 g x / (R - r).
            let pulled = 5.0 / 7.0 * g / (big - r) * 2.0 / 7.0 * big * amplitude * (t - (w * t).sin() / w);
            worst = worst.max((at(&sim.particles.vel, 0)[0] - (2.0 / 7.0 * u - pulled)).abs());
        }
        assert!(
            worst < 0.01 * 2.0 / 7.0 * peak,
            "{integrator:?}: off by {worst:e} m/s of {peak:e}"
        );
    }
}

/// A bed of spheres settling with friction and damping in a box of planes: 2 and 3
/// threads summing deterministically give the one-thread run bit for bit; the per-thread
/// and mutex strategies agree to 1e-9 of the box. With either integrator.
#[test]
fn strategies_agree_with_the_pool_of_one() {
    for integrator in BOTH {
        strategies_agree(integrator);
    }
}

fn strategies_agree(integrator: Integrator) {
    // Neighbours 1.98 r apart on a cubic lattice: in contact from the first step.
    let LatticeBed { inits, prm, dt, half } = lattice_bed(7, 1.98, 0.1, 0.95..1.0, 7);
    let walls = box_of_planes(half);
    let run_waves = |threads: usize, strategy: ForceStrategy, waves: Option<usize>| {
        let mut cfg = config(dt, [0.0, 0.0, -9.81], 2.0 * half, NeighborMethod::Sweep, integrator);
        cfg.every_step = true;
        let mut sim = Simulation::new(cfg, vec![material(prm)], walls.clone(), &inits).unwrap();
        sim.set_parallel(&vec![None; threads], strategy).unwrap();
        sim.set_wave_particles(waves);
        let mut touching = 0;
        for _ in 0..40 {
            sim.run(10).unwrap();
            touching += sim.last_contacts;
        }
        let forces = sim
            .profile()
            .phases
            .iter()
            .find(|(ph, _)| ph.name() == "forces")
            .map_or(0, |(_, p)| p.calls);
        let ps = &sim.particles;
        let mut v: Vec<(u64, [f64; 9])> = (0..sim.len())
            .map(|p| {
                let (x, u, w) = (at(&ps.pos, p), at(&ps.vel, p), at(&ps.omega, p));
                (ps.id[p], [x[0], x[1], x[2], u[0], u[1], u[2], w[0], w[1], w[2]])
            })
            .collect();
        v.sort_by_key(|(id, _)| *id);
        (v, touching, forces)
    };
    let run = |threads, strategy| {
        let (v, touching, _) = run_waves(threads, strategy, None);
        (v, touching)
    };
    let (one, touching) = run(1, ForceStrategy::Deterministic);
    assert!(
        touching > 1000,
        "the bed should be in contact ({touching} pairs over 40 samples)"
    );
    let bitwise = |det: &[(u64, [f64; 9])]| {
        one.iter()
            .zip(det)
            .all(|(a, b)| a.1.iter().zip(&b.1).all(|(x, y)| x.to_bits() == y.to_bits()))
    };
    // The force phase in waves (with Verlet, each with the next step's kicks): the
    // table is sorted at each update, and the steps without a new slot run in waves.
    for threads in [1, 2, 3] {
        let (det, _, forces) = run_waves(threads, ForceStrategy::Deterministic, Some(50));
        assert!(forces > 400, "{integrator:?}, {threads} threads: no step in waves");
        assert!(
            bitwise(&det),
            "{integrator:?}, {threads} threads, in waves: not bitwise the one-thread run"
        );
    }
    for threads in [2, 3] {
        let (det, _) = run(threads, ForceStrategy::Deterministic);
        assert!(
            bitwise(&det),
            "{integrator:?}, {threads} threads, deterministic: not bitwise the one-thread run"
        );
        for strategy in [ForceStrategy::PerThread, ForceStrategy::Mutex] {
            let (other, _) = run(threads, strategy);
            let worst = one
                .iter()
                .zip(&other)
                .flat_map(|(a, b)| a.1[..3].iter().zip(&b.1[..3]).map(|(x, y)| (x - y).abs()))
                .fold(0.0, f64::max);
            assert!(
                worst < 1e-9 * half,
                "{integrator:?}, {threads} threads, {strategy:?}: {worst} m apart"
            );
        }
    }
}

/// The force phase in waves with a tail: between two updates of the broad phase the
/// pairs that come to touch take slots after the sorted ones, and the waves sum those
/// first and add them last in each fold (`parallel::waves`, `OwnerPlan::prepare`).
/// A lattice of spheres a little apart, shaken, colliding as it settles: 1 to 3 threads
/// in waves give the one-thread run without them bit for bit, and the tail did run.
#[test]
fn waves_with_a_tail_of_appended_slots_change_no_bit() {
    let LatticeBed { inits, prm, dt, half } = lattice_bed(12, 1.97, 0.3, 0.96..1.0, 11);
    let walls = box_of_planes(half);
    let run = |threads: usize, waves: Option<usize>| {
        let cfg = config(
            dt,
            [0.0, 0.0, -9.81],
            2.0 * half,
            NeighborMethod::Sweep,
            Integrator::Verlet,
        );
        let mut sim = Simulation::new(cfg, vec![material(prm)], walls.clone(), &inits).unwrap();
        sim.set_parallel(&vec![None; threads], ForceStrategy::Deterministic)
            .unwrap();
        sim.set_wave_particles(waves);
        sim.run(600).unwrap();
        let ps = &sim.particles;
        let mut v: Vec<(u64, [u64; 9])> = (0..sim.len())
            .map(|p| {
                let (x, u, w) = (at(&ps.pos, p), at(&ps.vel, p), at(&ps.omega, p));
                let all = [x[0], x[1], x[2], u[0], u[1], u[2], w[0], w[1], w[2]];
                (ps.id[p], all.map(f64::to_bits))
            })
            .collect();
        v.sort_by_key(|(id, _)| *id);
        (v, sim.force_phases_with_a_tail(), sim.last_contacts)
    };
    let (one, tails, touching) = run(1, Some(usize::MAX));
    assert_eq!(tails, 0, "no waves, no tail");
    assert!(touching > 500, "the bed should be in contact ({touching} pairs)");
    for threads in [1, 2, 3] {
        let (waved, tails, _) = run(threads, Some(100));
        assert!(tails > 50, "{threads} threads: {tails} steps with a tail");
        assert!(
            waved == one,
            "{threads} threads, in waves with a tail: not bitwise the run without"
        );
    }
}

/// Oblique impacts without damping against the Cundall-Strack solution. With kt = 2/7 kn
/// the tangential spring's period equals the normal one for a sphere on a plane
/// (tangential effective mass 2m/7, I = 2/5 m r^2) and for two equal spheres (m/7 against
/// m_eff = m/2), so a contact that sticks throughout sends the contact point's tangential
/// velocity back reversed, as the normal velocity (e = 1); one that slides throughout
/// takes the Coulomb impulse mu J_n (J_n = 2 m_eff v_n): the centre's tangential velocity
/// drops by 2 mu v_n m_eff / m and the spin grows by 5 mu v_n m_eff / (m r). Within 1 %
/// (the sliding case starts with the spring's short ramp to the Coulomb limit).
#[test]
fn oblique_impacts_stick_and_slide_as_cundall_strack() {
    let r = 1e-3;
    let m = sphere_mass(r);
    let (vn, big_mu, small_mu) = (0.1, 0.5, 0.02);
    // Sliding throughout needs a slip above the 7 mu v_n friction takes from it; a slip
    // much larger would turn the pair's normal during the contact (v_t t_c against the
    // overlap), so v_t = v_n.
    for (two_spheres, mu) in [(false, big_mu), (false, small_mu), (true, big_mu), (true, small_mu)] {
        let vt = vn;
        let prm = ContactParams {
            kn: KN,
            kt: 2.0 / 7.0 * KN,
            gamma_n: 0.0,
            gamma_t: 0.0,
            mu,
        };
        let meff = if two_spheres { 0.5 * m } else { m };
        let dt = prm.contact_time(meff) / 1000.0;
        let gap = 1e-6;
        // Sphere 1 comes down (-z) onto the floor, or onto sphere 2 coming up to meet it,
        // each with +-vt/2 along x; the pair starts offset along x so that the centres pass
        // each other at mid-contact, where the normal tilts one way as long as the other.
        let (walls, spheres) = if two_spheres {
            let x = 0.5 * vt * (2.0 * gap / vn + 0.5 * prm.contact_time(meff));
            (
                vec![],
                vec![
                    sphere(1, [-x, 0.0, r + gap], [0.5 * vt, 0.0, -0.5 * vn], r),
                    sphere(2, [x, 0.0, -r - gap], [-0.5 * vt, 0.0, 0.5 * vn], r),
                ],
            )
        } else {
            (
                vec![Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0)],
                vec![sphere(1, [0.0, 0.0, r + gap], [vt, 0.0, -vn], r)],
            )
        };
        let mut cfg = config(dt, [0.0; 3], 1.0, NeighborMethod::Brute, Integrator::Verlet);
        cfg.margin = 0.5 * r;
        let mut sim = Simulation::new(cfg, vec![material(prm)], walls, &spheres).unwrap();
        let steps = ((gap / vn + 2.0 * prm.contact_time(meff)) / dt) as u64;
        sim.run(steps).unwrap();
        let ps = &sim.particles;
        // The store is in Morton order: sphere 1 by its id.
        let p = ps.index_of(1).unwrap();
        let (v, w) = (at(&ps.vel, p), at(&ps.omega, p));
        let what = format!("two spheres {two_spheres}, mu {mu}: v = {v:?}, omega = {w:?}");
        // Normal: back with e = 1 (relative to the other sphere's, which mirrors it).
        let vn_in = if two_spheres { 0.5 * vn } else { vn };
        assert!((v[2] - vn_in).abs() < 0.01 * vn_in, "{what}");
        // The contact point of sphere 1 is at -r z: its velocity v + omega x (-r z) has
        // x component v_x - omega_y r.
        let vt_in = if two_spheres { 0.5 * vt } else { vt };
        if mu == big_mu {
            let vcp = v[0] - w[1] * r;
            assert!(
                (vcp + vt_in).abs() < 0.01 * vt_in,
                "sticking: contact point at {vcp}, {what}"
            );
        } else {
            let dv = 2.0 * mu * vn * meff / m;
            assert!(
                (vt_in - v[0] - dv).abs() < 0.01 * dv,
                "sliding: dv_t {} against {dv}, {what}",
                vt_in - v[0]
            );
            let dw = 5.0 * mu * vn * meff / (m * r);
            // The friction on sphere 1 is along -x at its bottom, -r z: a torque along +y.
            assert!(
                (w[1] - dw).abs() < 0.01 * dw,
                "sliding: omega_y {} against {dw}, {what}",
                w[1]
            );
        }
    }
}

/// 128 spheres (radii 0.9 to 1 mm, a few cm/s each way) on a 4 x 4 x 8 lattice 2.2 mm
/// apart, the lowest 1 mm above the floor of a box of planes as wide as the lattice,
/// dropped with friction 0.5 and e = 0.5, soft (kn = 1e3 N/m: the bed settles within
/// 50,000 steps of t_c/50). Returns the kinetic energy (translation and rotation) every
/// 500 steps, and the final simulation.
fn dropped_bed(integrator: Integrator, steps: usize) -> (Vec<f64>, Simulation) {
    let (r, spacing, kn) = (1e-3, 2.2e-3, 1e3);
    let half = 2.0 * spacing;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let inits: Vec<ParticleInit> = (0..128)
        .map(|k| {
            let cell = [k % 4, k / 4 % 4, k / 16];
            let mut pos = cell.map(|c| -half + (c as f64 + 0.5) * spacing);
            pos[2] = 2.0 * r + cell[2] as f64 * spacing;
            let vel = [0; 3].map(|_| rng.random_range(-0.05..0.05));
            sphere(k as u64 + 1, pos, vel, r * rng.random_range(0.9..1.0))
        })
        .collect();
    let m_min = inits.iter().map(|p| p.mass).fold(f64::INFINITY, f64::min);
    let gamma_n = ContactParams::gamma_for_restitution(kn, sphere_mass(r) / 2.0, 0.5);
    let prm = ContactParams {
        kn,
        kt: 2.0 / 7.0 * kn,
        gamma_n,
        gamma_t: 0.5 * gamma_n,
        mu: 0.5,
    };
    let dt = prm.contact_time(0.5 * m_min) / 50.0;
    // The floor z = 0 and the box's sides.
    let mut walls = box_of_planes(half);
    walls.truncate(4);
    walls.push(Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0));
    let mut cfg = config(dt, [0.0, 0.0, -9.81], 0.03, NeighborMethod::Sweep, integrator);
    cfg.domain_min[2] = -1e-3;
    let mut sim = Simulation::new(cfg, vec![material(prm)], walls, &inits).unwrap();
    let mut ke = Vec::new();
    for _ in 0..steps / 500 {
        sim.run(500).unwrap();
        let e = sim.energies();
        ke.push(e.kinetic + e.rotational);
    }
    (ke, sim)
}

/// Verlet and Gear on the same dropped bed of spheres for the same simulated time (60,000
/// steps, about 0.25 s), as the 2D test on a bed of discs:
/// - while the bed falls and lands (every sample above 20 % of the peak) the two kinetic
///   energies agree within 10 % (measured: at most 6.9 % apart, peaks 1.568e-5 and
///   1.572e-5 J);
/// - at the end both beds are at rest: the kinetic energy averaged over the last 10
///   samples is below 1e-3 of the peak (measured 3e-7 and 9e-5 of it);
/// - the mean heights agree within half a radius (measured 6.312 and 6.307 mm);
/// - no sphere sinks into the floor by more than 2 % of its radius (measured 0.25 %).
#[test]
fn integrators_agree_on_a_dropped_bed() {
    let steps = 60_000;
    let (ke_v, sim_v) = dropped_bed(Integrator::Verlet, steps);
    let (ke_g, sim_g) = dropped_bed(Integrator::Gear, steps);
    assert_eq!(sim_v.time, sim_g.time);
    let peak = |ke: &[f64]| ke.iter().copied().fold(0.0, f64::max);
    let (peak_v, peak_g) = (peak(&ke_v), peak(&ke_g));
    let tail = |ke: &[f64]| ke[ke.len() - 10..].iter().sum::<f64>() / 10.0;
    let (end_v, end_g) = (tail(&ke_v), tail(&ke_g));
    let mean_z = |s: &Simulation| s.particles.pos[2].iter().sum::<f64>() / s.len() as f64;
    let (h_v, h_g) = (mean_z(&sim_v), mean_z(&sim_g));
    let sink = |s: &Simulation| {
        let ps = &s.particles;
        (0..s.len())
            .map(|p| (ps.radius[p] - ps.pos[2][p]) / ps.radius[p])
            .fold(f64::MIN, f64::max)
    };
    let (sink_v, sink_g) = (sink(&sim_v), sink(&sim_g));
    let mut worst = 0.0f64;
    for (k, (&a, &b)) in ke_v.iter().zip(&ke_g).enumerate() {
        if a.max(b) > 0.2 * peak_v.max(peak_g) {
            let dev = (a - b) / a.max(b);
            worst = worst.max(dev.abs());
            assert!(
                dev.abs() < 0.1,
                "step {}: kinetic energy Verlet {a:.5e} J, Gear {b:.5e} J",
                500 * (k + 1)
            );
        }
    }
    println!(
        "kinetic energies during the landing at most {:.2} % apart; peaks: Verlet {peak_v:.4e} J, Gear \
         {peak_g:.4e} J; final (mean of the last 10 samples): Verlet {end_v:.3e} J, Gear {end_g:.3e} J; mean \
         height: Verlet {h_v:.5e} m, Gear {h_g:.5e} m; deepest floor overlap / r: Verlet {sink_v:.3e}, Gear \
         {sink_g:.3e}",
        100.0 * worst
    );
    assert!(
        end_v < 1e-3 * peak_v && end_g < 1e-3 * peak_g,
        "not at rest: final kinetic energy Verlet {end_v:.3e} J, Gear {end_g:.3e} J (peaks {peak_v:.3e} J, \
         {peak_g:.3e} J)"
    );
    assert!(
        (h_v - h_g).abs() < 0.5e-3,
        "mean heights differ: Verlet {h_v:.5e} m, Gear {h_g:.5e} m"
    );
    assert!(
        sink_v < 0.02 && sink_g < 0.02,
        "a sphere sank into the floor: overlap / r = {sink_v:.3e} (Verlet), {sink_g:.3e} (Gear)"
    );
}
