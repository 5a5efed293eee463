//! Bodies driven by laws of time (`DriveLaws`: a slide s(t) and a turn theta(t)) follow
//! them, and the grains they touch see their motion.
use super::*;
use talus::engine::wall_motion::Displacement;
use talus::engine::{flags, Drive, DriveLaws, PolygonShape};

/// A body of infinite mass (DRIVEN) with this shape at `pos`.
fn driven_body(id: u64, pos: [f64; 2], shape: &PolygonShape) -> ParticleInit {
    ParticleInit {
        flags: flags::DRIVEN,
        mass: 1.0,
        ..disc(id, pos[0], pos[1], 0.0, 0.0, shape.radius)
    }
}

/// Two squares under one drive (the centre at the first's centroid; the second 10 mm
/// off it), its centre slid along (0.6, 0.8) by a sine of 1 mm at 5 Hz and the squares
/// turned about it by a table, from t = 10 ms: at rest before, then where the laws put
/// them, with both integrators.
#[test]
fn driven_bodies_follow_their_slide_and_turn() {
    for integrator in BOTH {
        let c = [0.05, 0.05];
        let sq = square_shape(1e-3);
        let parts = vec![
            driven_body(1, c, &sq),
            driven_body(2, [0.06, 0.05], &sq),
            disc(3, 0.02, 0.02, 0.0, 0.0, 1e-3),
        ];
        let shapes = vec![Some(sq.clone()), Some(sq), None];
        let cfg = config(1e-5, [0.0, 0.0], [0.0, 0.0], [0.1, 0.1], integrator);
        let mut sim = Simulation::new_with_shapes(cfg, vec![material(elastic())], vec![], &parts, &shapes).unwrap();
        let (dir, start) = ([0.6, 0.8], 0.01);
        let sine = Displacement::Sine {
            amplitude: 1e-3,
            frequency: 5.0,
            phase: 0.0,
        };
        let turn = Displacement::Table(vec![[0.0, 0.0], [0.1, 0.5], [0.2, -0.3]]);
        let laws = DriveLaws {
            slide: Some((dir, sine.clone())),
            turn: Some(turn.clone()),
        };
        let drive = Drive {
            centre: c,
            start,
            laws: Some(laws),
            ..Drive::default()
        };
        sim.drive_particles(drive, &[1, 2]).unwrap();
        sim.run(900).unwrap();
        for id in [1, 2] {
            let p = index(&sim, id);
            let at = [sim.particles.pos[0][p], sim.particles.pos[1][p]];
            assert_eq!(
                at,
                parts[id as usize - 1].pos,
                "{integrator:?}: body {id} moved before its start"
            );
        }
        for steps in [2_000, 10_000, 13_000] {
            sim.run(steps).unwrap();
            let tau = sim.time - start;
            let (s, th) = (sine.at(tau).0, turn.at(tau).0);
            let centre = [c[0] + dir[0] * s, c[1] + dir[1] * s];
            for (id, rel) in [(1, [0.0, 0.0]), (2, [0.01, 0.0])] {
                let p = index(&sim, id);
                let want = [
                    centre[0] + th.cos() * rel[0] - th.sin() * rel[1],
                    centre[1] + th.sin() * rel[0] + th.cos() * rel[1],
                ];
                let err = (sim.particles.pos[0][p] - want[0]).hypot(sim.particles.pos[1][p] - want[1]);
                assert!(
                    err < 1e-12,
                    "{integrator:?}: body {id} is {err:e} m off its laws at t = {}",
                    sim.time
                );
                let a = sim.particles.angle[p];
                assert!((a - th).abs() < 1e-9, "{integrator:?}: body {id} turned {a}, not {th}");
            }
        }
    }
}

/// A plate (a driven 30 x 2 mm rectangle) under a resting disc, lifted 1 mm by its slide
/// table between 20 and 40 ms: the disc rides up with it by 1 mm (to 1e-9 m), as it
/// rests on the plate at the same overlap before and after.
#[test]
fn a_plate_lifted_by_its_slide_carries_a_grain_up() {
    let plate = PolygonShape::new(&[[-0.015, -0.001], [0.015, -0.001], [0.015, 0.001], [-0.015, 0.001]]).unwrap();
    let r = 1e-3;
    let m = disc_mass(r);
    let parts = vec![
        driven_body(1, [0.05, 0.02], &plate),
        disc(2, 0.05, 0.02 + 0.001 + r - 1e-6, 0.0, 0.0, r),
    ];
    let shapes = vec![Some(plate), None];
    let cfg = config(1e-6, [0.0, -G], [0.0, 0.0], [0.1, 0.1], Integrator::Verlet);
    let mut sim =
        Simulation::new_with_shapes(cfg, vec![material(frictional(0.1, m, 0.5))], vec![], &parts, &shapes).unwrap();
    let lift = Displacement::Table(vec![[0.0, 0.0], [0.02, 0.0], [0.04, 1e-3], [1.0, 1e-3]]);
    let drive = Drive {
        centre: [0.05, 0.02],
        laws: Some(DriveLaws {
            slide: Some(([0.0, 1.0], lift)),
            turn: None,
        }),
        ..Drive::default()
    };
    sim.drive_particles(drive, &[1]).unwrap();
    sim.run(20_000).unwrap();
    let y0 = sim.particles.pos[1][index(&sim, 2)];
    assert!(
        y0 > 0.02 + 0.001 && y0 < 0.02 + 0.001 + r,
        "the disc should rest on the plate: {y0}"
    );
    sim.run(60_000).unwrap();
    let (p, b) = (index(&sim, 2), index(&sim, 1));
    let y1 = sim.particles.pos[1][p];
    assert!(
        (sim.particles.pos[1][b] - 0.021).abs() < 1e-15,
        "plate at {}",
        sim.particles.pos[1][b]
    );
    assert!((y1 - y0 - 1e-3).abs() < 1e-9, "the disc rose {:e} m, not 1 mm", y1 - y0);
    assert!(
        sim.particles.vel[1][p].abs() < 1e-6,
        "the disc still moves: {}",
        sim.particles.vel[1][p]
    );
}
