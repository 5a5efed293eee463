//! The worker pool on 2 and 3 threads against the pool of one (the serial run), every
//! phase, for each force-summation strategy. Deterministic summation must reproduce the
//! one-thread run bit for bit; per-thread arrays and per-particle mutexes sum in another order and must
//! agree to 1e-9 of the state's scale. Discs: the LAMMPS-settled bed of 10^4 discs, shaken
//! (random velocities) and with the sweep run every step, so that pairs come and go and
//! the axis-per-thread sweep works every step. Polygons: a dense bed of random 5-8-gons in
//! contact from the first step.
use std::path::Path;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use talus::engine::generate::{self, ShapeSpec};
use talus::engine::store::HOT_F64;
use talus::engine::wall_motion::Servo;
use talus::engine::{
    Config, ContactParams, ForceStrategy, Integrator, Material, NeighborMethod, ParticleInit, PolygonShape, Simulation,
    Wall,
};

/// The state that must agree: positions, angles, velocities, in id order.
fn state(sim: &Simulation) -> Vec<[f64; 6]> {
    let ps = &sim.particles;
    let mut v: Vec<(u64, [f64; 6])> = (0..sim.len())
        .map(|p| {
            (
                ps.id[p],
                [
                    ps.pos[0][p],
                    ps.pos[1][p],
                    ps.angle[p],
                    ps.vel[0][p],
                    ps.vel[1][p],
                    ps.omega[0][p],
                ],
            )
        })
        .collect();
    v.sort_by_key(|(id, _)| *id);
    v.into_iter().map(|(_, s)| s).collect()
}

fn lammps_bed() -> Option<Simulation> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(
        root.join("data/s2d_base.data").exists(),
        "data/s2d_base.data is shipped with the repository"
    );
    let built = talus::io::build::build_file(&root.join("scenarios/lammps_s2d.toml")).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = built.sim;
    sim.config.every_step = true;
    // Shake it: about a tenth of a radius per 100 steps, so contacts open and close.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let v = 0.1 * 1e-3 / (100.0 * sim.config.dt);
    for p in 0..sim.len() {
        sim.particles.vel[0][p] = rng.random_range(-v..v);
        sim.particles.vel[1][p] = rng.random_range(-v..v);
    }
    Some(sim)
}

/// A box of four walls, a grain material for the lightest particle of `inits` (kn 1e6
/// N/m, restitution 0.5, friction 0.5), gravity, and the time step of its contact.
fn boxed(inits: &[ParticleInit], width: f64, height: f64, every_step: bool) -> (Config, Material, Vec<Wall>) {
    let walls = vec![
        Wall::fixed([0.0, 0.0], [0.0, 1.0], 0),
        Wall::fixed([0.0, 0.0], [1.0, 0.0], 0),
        Wall::fixed([width, 0.0], [-1.0, 0.0], 0),
        Wall::fixed([0.0, height], [0.0, -1.0], 0),
    ];
    let m = inits.iter().map(|p| p.mass).fold(f64::INFINITY, f64::min);
    let kn = 1e6;
    let gn = ContactParams::gamma_for_restitution(kn, 0.5 * m, 0.5);
    let contact = ContactParams {
        kn,
        kt: 2.0 / 7.0 * kn,
        gamma_n: gn,
        gamma_t: 0.5 * gn,
        mu: 0.5,
    };
    let config = Config {
        dt: contact.contact_time(0.5 * m) / 50.0,
        gravity: [0.0, -9.81],
        domain_min: [-0.01, -0.01],
        domain_max: [width + 0.01, height + 0.01],
        integrator: Integrator::Verlet,
        neighbor: NeighborMethod::Sweep,
        margin: 0.1e-3,
        every_step,
        sort_every: 100,
        normal_model: Default::default(),
        rejection: Default::default(),
    };
    let material = Material {
        name: "grain".into(),
        density: 2500.0,
        contact,
    };
    (config, material, walls)
}

fn polygon_bed(n: usize) -> Simulation {
    let mut g = generate::rng(11);
    let spec = ShapeSpec::Random {
        vertices: [5, 8],
        aspect: 1.2,
    };
    let per_row = (n as f64).sqrt().ceil() as usize;
    let (s, h) = (1.5e-3, 1.5e-3 * 3f64.sqrt() / 2.0);
    let mut inits = Vec::new();
    let mut shapes = Vec::new();
    for k in 0..n {
        let (row, col) = (k / per_row, k % per_row);
        let shape =
            PolygonShape::new(&generate::polygon_vertices(&spec, 1e-3 * g.random_range(0.8..1.2), &mut g).unwrap())
                .unwrap();
        inits.push(ParticleInit {
            id: k as u64 + 1,
            pos: [
                2e-3 + col as f64 * s + if row % 2 == 1 { 0.5 * s } else { 0.0 },
                1.5e-3 + row as f64 * h,
            ],
            angle: g.random_range(0.0..std::f64::consts::TAU),
            vel: [0.0, 0.0],
            omega: [0.0],
            radius: shape.radius,
            mass: 2500.0 * shape.area,
            material: 0,
            ptype: 1,
            flags: 0,
        });
        shapes.push(Some(shape));
    }
    let (width, height) = (4e-3 + (per_row as f64 + 0.5) * s, 3e-3 + (n / per_row + 1) as f64 * h);
    let (config, material, walls) = boxed(&inits, width, height, false);
    Simulation::new_with_shapes(config, vec![material], walls, &inits, &shapes).unwrap()
}

/// A column of discs (hexagonal rows of 24, radii 0.9-1.1 mm) in a box, shaken: many of
/// them touch the side walls, also where the deterministic sum's chunks meet, so that
/// rim particles get deferred pair forces and wall forces in one phase. Self-contained
/// (the LAMMPS bed above needs a file outside the repository).
fn disc_column(n: usize) -> Simulation {
    disc_column_with(n, &[])
}

/// The column of [`disc_column`] with a second disc put at the centre of each of the
/// `twins`-th discs (the same radius and velocity: without a force between them, they
/// would stay together), ids n + 1, n + 2, ...
fn disc_column_with(n: usize, twins: &[usize]) -> Simulation {
    let mut g = generate::rng(7);
    let per_row = 24;
    let (s, h) = (2.0e-3, 2.0e-3 * 3f64.sqrt() / 2.0);
    let v = 0.2e-3 / (100.0 * 1e-6);
    let mut inits: Vec<ParticleInit> = (0..n)
        .map(|k| {
            let (row, col) = (k / per_row, k % per_row);
            let r = 1e-3 * g.random_range(0.9..1.1);
            ParticleInit {
                id: k as u64 + 1,
                pos: [
                    1e-3 + col as f64 * s + if row % 2 == 1 { 0.5 * s } else { 0.0 },
                    1e-3 + row as f64 * h,
                ],
                angle: 0.0,
                vel: [g.random_range(-v..v), g.random_range(-v..v)],
                omega: [0.0],
                radius: r,
                mass: 2500.0 * std::f64::consts::PI * r * r,
                material: 0,
                ptype: 1,
                flags: 0,
            }
        })
        .collect();
    for (k, &t) in twins.iter().enumerate() {
        inits.push(ParticleInit {
            id: (n + k + 1) as u64,
            ..inits[t]
        });
    }
    // The side walls pass through the outer discs' centres' reach: they touch from the
    // first step.
    let (width, height) = ((per_row as f64 + 0.5) * s, 2e-3 + (n / per_row + 1) as f64 * h);
    let (config, material, walls) = boxed(&inits, width, height, true);
    let sim = Simulation::new(config, vec![material], walls, &inits).unwrap();
    assert!(
        sim.wall_contacts.len() > n / per_row,
        "the column must lean on its walls"
    );
    sim
}

/// Largest difference over the state, and the state's scale per component kind.
fn compare(a: &[[f64; 6]], b: &[[f64; 6]]) -> (f64, bool) {
    let mut scale = [0.0f64; 6];
    for s in a {
        for k in 0..6 {
            scale[k] = scale[k].max(s[k].abs());
        }
    }
    let mut worst = 0.0f64;
    let mut bitwise = true;
    for (x, y) in a.iter().zip(b) {
        for k in 0..6 {
            bitwise &= x[k].to_bits() == y[k].to_bits();
            worst = worst.max((x[k] - y[k]).abs() / scale[k].max(f64::MIN_POSITIVE));
        }
    }
    (worst, bitwise)
}

fn check(make: &dyn Fn() -> Option<Simulation>, steps: u64, label: &str) {
    let Some(mut serial) = make() else { return };
    serial.run(steps).unwrap();
    let want = state(&serial);
    assert!(serial.last_contacts > 0, "{label}: the test needs contacts");
    for (threads, strategy) in [
        (1, ForceStrategy::Deterministic),
        (2, ForceStrategy::Deterministic),
        (3, ForceStrategy::Deterministic),
        (2, ForceStrategy::PerThread),
        (3, ForceStrategy::PerThread),
        (2, ForceStrategy::Mutex),
    ] {
        let mut sim = make().unwrap();
        sim.set_parallel(&vec![None; threads], strategy).unwrap();
        sim.run(steps).unwrap();
        assert_eq!(sim.step, serial.step);
        let (worst, bitwise) = compare(&want, &state(&sim));
        println!("{label}: {threads} threads, {strategy}: largest relative difference {worst:.3e}, bitwise {bitwise}");
        if strategy == ForceStrategy::Deterministic {
            assert!(
                bitwise,
                "{label}: {threads} threads, {strategy}: not bitwise (difference {worst:e})"
            );
        } else {
            assert!(
                worst <= 1e-9,
                "{label}: {threads} threads, {strategy}: difference {worst:e}"
            );
        }
        assert_eq!(
            sim.last_contacts, serial.last_contacts,
            "{label}: {threads} threads, {strategy}"
        );
        let p = sim.profile();
        assert_eq!(p.threads, threads);
        assert!(p
            .phases
            .iter()
            .any(|(ph, pr)| ph.name() == "forces" && pr.calls == steps));
    }
}

#[test]
fn parallel_discs_match_serial() {
    check(&lammps_bed, 1000, "LAMMPS bed, shaken");
}

/// Walls and deferred rim forces in one phase, on any machine (see `disc_column`).
#[test]
fn parallel_disc_column_with_walls_matches_serial() {
    check(&|| Some(disc_column(12_000)), 300, "disc column");
}

/// Coincident discs are pushed apart along x by a rule that depends on nothing but the
/// pair (see `contact_normal`): deterministic summation stays bitwise the serial run on 1
/// to 3 threads, and every twin has left its partner (without a force they would not).
#[test]
fn coincident_discs_separate_alike_on_any_thread_count() {
    let n = 6000;
    let twins: Vec<usize> = (0..n).step_by(97).collect();
    let steps = 200;
    let mut serial = disc_column_with(n, &twins);
    serial.run(steps).unwrap();
    let ps = &serial.particles;
    for (k, &t) in twins.iter().enumerate() {
        let (a, b) = (
            ps.index_of(t as u64 + 1).unwrap(),
            ps.index_of((n + k + 1) as u64).unwrap(),
        );
        let d = (ps.pos[0][b] - ps.pos[0][a]).hypot(ps.pos[1][b] - ps.pos[1][a]);
        assert!(
            d > 0.5 * ps.radius[a],
            "twins {} and {} are {d:e} m apart after {steps} steps",
            t + 1,
            n + k + 1
        );
    }
    let want = state(&serial);
    for threads in [1, 2, 3] {
        let mut sim = disc_column_with(n, &twins);
        sim.set_parallel(&vec![None; threads], ForceStrategy::Deterministic)
            .unwrap();
        sim.run(steps).unwrap();
        let (worst, bitwise) = compare(&want, &state(&sim));
        assert!(
            bitwise,
            "{threads} threads: not bitwise the serial run (difference {worst:e})"
        );
    }
}

#[test]
fn parallel_polygons_match_serial() {
    check(&|| Some(polygon_bed(900)), 300, "polygon bed");
}

/// Starting the pool re-allocates the hot arrays (first touch by their threads): nothing
/// may change, loads included. The copy is set-up work, and so is the first forces' pass:
/// the profile counts the phases of the steps only, so that each phase's share of a short
/// run's stepping time is a share (the set-up's had summed to 160-680 % at 2 to 20 steps).
#[test]
fn first_touch_keeps_every_value() {
    let mut sim = polygon_bed(500);
    // The hot arrays: positions, angle, velocities, spin, forces, torque.
    let hot = |sim: &Simulation| -> Vec<Vec<f64>> {
        sim.particles.f64_fields()[..HOT_F64]
            .iter()
            .map(|v| (*v).clone())
            .collect()
    };
    let before = hot(&sim);
    assert!(before[6].iter().any(|&f| f != 0.0), "the bed must carry loads");
    sim.set_parallel(&[None, None, None], ForceStrategy::PerThread).unwrap();
    let after = hot(&sim);
    for (k, (a, b)) in after.iter().zip(&before).enumerate() {
        assert_eq!(a.len(), b.len(), "field {k}");
        assert!(
            a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()),
            "field {k} changed"
        );
    }
    let calls = two_steps_profiled(&mut sim);
    assert_eq!((calls("forces"), calls("first touch")), (Some(2), None));
    // On the pool a new simulation starts with (one thread): its reordering and first
    // forces at set-up are not counted either.
    let calls = two_steps_profiled(&mut polygon_bed(500));
    assert_eq!((calls("forces"), calls("reorder")), (Some(2), None));
}

/// Pouring is the run's work: the insertion's phase is counted, and its time with the
/// steps' (it had been counted outside them). Its disc has no room in the packed bed, so
/// the event tries all its centres: a phase long beside the two steps' other work.
#[test]
fn an_insertion_is_timed_with_the_steps() {
    use talus::engine::generate::RadiusDist;
    use talus::engine::{Amount, InsertSpec};
    let mut sim = polygon_bed(100);
    sim.add_insertion(InsertSpec {
        region_min: [0.004, 0.003],
        region_max: [0.012, 0.010],
        radius: RadiusDist::Fixed(1e-3),
        shape: ShapeSpec::Disc,
        material: 0,
        ptype: 2,
        velocity: [0.0, 0.0],
        velocity_jitter: 0.0,
        amount: Amount::PerInsert(1),
        every: 1,
        start_step: 0,
        stop_step: Some(1),
        total: Some(1),
        seed: 5,
        attempts: 200_000,
    })
    .unwrap();
    let calls = two_steps_profiled(&mut sim);
    assert_eq!((sim.len(), calls("insert")), (100, Some(1)));
}

/// The force phase cut into waves, each with the next step's kicks and drift of the
/// particles it completes (`parallel::waves`), runs bitwise as one wave with the kicks at
/// the next step's start, on any thread count (the same folds in the same order), through
/// batch ends (whose last step kicks at the next batch's start) and every-step sweeps
/// (the table sorted again after each).
#[test]
fn force_waves_change_no_bit() {
    force_waves_alike(false);
}

/// As [`force_waves_change_no_bit`], the lid under a servo: its load is measured on the
/// particles after the forces, so the waves run without the next step's kicks.
#[test]
fn force_waves_under_a_servo_change_no_bit() {
    force_waves_alike(true);
}

fn force_waves_alike(servo: bool) {
    let steps = 60;
    let run = |threads: usize, per_thread: usize| {
        let mut sim = disc_column(480);
        sim.set_parallel(&vec![None; threads], ForceStrategy::Deterministic)
            .unwrap();
        sim.set_wave_particles(Some(per_thread));
        if servo {
            let servo = Servo {
                target: 0.5,
                gain: 1e-3,
                max_speed: 0.05,
            };
            sim.servo_wall(3, [0.0, -1.0], servo).unwrap();
        }
        sim.run(steps).unwrap();
        sim.run(7).unwrap();
        let p = sim.profile();
        let calls = |name| {
            p.phases
                .iter()
                .find(|(ph, _)| ph.name() == name)
                .map_or(0, |(_, pr)| pr.calls)
        };
        (state(&sim), calls("forces"), calls("predict"), sim.last_contacts)
    };
    let (want, forces, predict, contacts) = run(1, usize::MAX);
    assert_eq!((forces, predict), (steps + 7, steps + 7), "one wave a step, one pass");
    assert!(contacts > 480, "the test needs contacts");
    for threads in [1, 2, 3] {
        for per_thread in [40, 100] {
            let (got, forces, predict, c) = run(threads, per_thread);
            let waves = 480_u64.div_ceil((threads * per_thread) as u64);
            let label = format!("{threads} threads, waves of {per_thread} a thread");
            assert_eq!(forces, waves * (steps + 7), "{label}: force phases");
            // Each batch's first step kicks at its start; the others in every wave (under
            // a servo, each at its start).
            let kicks = if servo { steps + 7 } else { 2 + waves * (steps + 7 - 2) };
            assert_eq!(predict, kicks, "{label}: kick passes");
            let (worst, bitwise) = compare(&want, &got);
            assert!(bitwise, "{label}: difference {worst:e}");
            assert_eq!(c, contacts, "{label}");
        }
    }
}

/// Run two steps of a simulation whose profile holds nothing yet; check that its phases'
/// time lies within the stepping time, and return the count of calls of each phase.
fn two_steps_profiled(sim: &mut Simulation) -> impl Fn(&str) -> Option<u64> {
    assert!(sim.profile().phases.is_empty(), "set-up counted as a step's phase");
    sim.run(2).unwrap();
    let p = sim.profile().clone();
    assert!(
        p.wall() <= p.stepping,
        "phases {} s in {} s of steps",
        p.wall(),
        p.stepping
    );
    move |name| {
        p.phases
            .iter()
            .find(|(ph, _)| ph.name() == name)
            .map(|(_, pr)| pr.calls)
    }
}

/// The quadtree's refresh on the pool (parallel scan for leavers and parallel pair search)
/// gives exactly the serial quadtree's pair changes: with deterministic summation the runs
/// are bitwise equal, through reorders (which rebuild the tree) and every-step searches.
#[test]
fn parallel_quadtree_matches_serial() {
    use talus::engine::NeighborMethod;
    let make = || {
        let mut sim = polygon_bed(600);
        sim.set_neighbor_method(NeighborMethod::Quadtree);
        sim.config.every_step = true;
        sim
    };
    let mut serial = make();
    serial.run(250).unwrap();
    let mut par = make();
    par.set_parallel(&[None, None], ForceStrategy::Deterministic).unwrap();
    par.run(250).unwrap();
    assert_eq!(par.candidate_pairs(), serial.candidate_pairs());
    let (worst, bitwise) = compare(&state(&serial), &state(&par));
    assert!(bitwise, "quadtree on 2 threads differs from serial by {worst:e}");
    let p = par.profile();
    assert!(p
        .phases
        .iter()
        .any(|(ph, pr)| ph.name() == "neighbour" && pr.calls >= 2 * 200));
}
