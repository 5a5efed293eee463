//! A rotating drum of wall segments follows its drive and holds the grains.
use super::*;

/// A rotating drum: a ring of 32 wall polygons of infinite mass turned by a prescribed
/// drive, with discs and polygons inside under gravity. The ring follows the drive
/// exactly (every segment stays on its circle and turns by omega t), and no grain leaves
/// the drum.
#[test]
fn rotating_drum_ring_follows_its_drive_and_holds_the_grains() {
    use talus::engine::{flags, Drive};
    let (c, r_in, r_out, segs) = ([0.05, 0.05], 0.03, 0.034, 32);
    let mut parts = Vec::new();
    let mut shapes = Vec::new();
    for k in 0..segs {
        let (t0, t1) = (
            std::f64::consts::TAU * k as f64 / segs as f64,
            std::f64::consts::TAU * (k as f64 + 0.98) / segs as f64,
        );
        let p = |r: f64, t: f64| [c[0] + r * t.cos(), c[1] + r * t.sin()];
        // Counter-clockwise: inner arc end, inner arc start reversed... as a convex quad.
        let quad = [p(r_in, t1), p(r_in, t0), p(r_out, t0), p(r_out, t1)];
        let shape = talus::engine::PolygonShape::new(&quad).expect("a convex wall segment");
        let pos = shape.centroid;
        parts.push(ParticleInit {
            flags: flags::DRIVEN,
            mass: 1.0,
            ..disc(1000 + k as u64, pos[0], pos[1], 0.0, 0.0, shape.radius)
        });
        shapes.push(Some(shape));
    }
    // Grains: discs and squares on a lattice inside the drum.
    let mut id = 1;
    for row in 0..10 {
        for col in 0..10 {
            let (x, y) = (c[0] - 0.0135 + col as f64 * 3.0e-3, c[1] - 0.0135 + row as f64 * 3.0e-3);
            if (row + col) % 2 == 0 {
                parts.push(disc(id, x, y, 0.0, 0.0, 1.2e-3));
                shapes.push(None);
            } else {
                let sq = square_shape(0.8e-3);
                parts.push(ParticleInit {
                    mass: DENSITY * 4.0 * 0.64e-6,
                    ..disc(id, x, y, 0.0, 0.0, sq.radius)
                });
                shapes.push(Some(sq));
            }
            id += 1;
        }
    }
    let p = frictional(0.5, 0.5 * disc_mass(1.0e-3), 0.5);
    let dt = p.contact_time(0.5 * disc_mass(0.8e-3)) / 50.0;
    let cfg = config(dt, [0.0, -G], [0.0, 0.0], [0.1, 0.1], Integrator::Verlet);
    let mut sim = Simulation::new_with_shapes(cfg, vec![material(p)], vec![], &parts, &shapes).unwrap();
    let omega = 3.0;
    let ring: Vec<u64> = (0..segs as u64).map(|k| 1000 + k).collect();
    sim.drive_particles(
        Drive {
            centre: c,
            velocity: [0.0; 2],
            omega,
            ..Drive::default()
        },
        &ring,
    )
    .unwrap();
    let start: Vec<([f64; 2], f64)> = ring
        .iter()
        .map(|&i| {
            let p = index(&sim, i);
            (
                [sim.particles.pos[0][p], sim.particles.pos[1][p]],
                sim.particles.angle[p],
            )
        })
        .collect();
    let steps = 40_000;
    sim.run(steps).unwrap();
    let t = sim.time;
    for (k, &i) in ring.iter().enumerate() {
        let p = index(&sim, i);
        let (x0, a0) = start[k];
        let (sn, cs) = (omega * t).sin_cos();
        let rel = [x0[0] - c[0], x0[1] - c[1]];
        let want = [c[0] + cs * rel[0] - sn * rel[1], c[1] + sn * rel[0] + cs * rel[1]];
        let err = (sim.particles.pos[0][p] - want[0]).hypot(sim.particles.pos[1][p] - want[1]);
        assert!(err < 1e-12, "segment {i} is {err:e} m off its driven position");
        assert!(
            (sim.particles.angle[p] - (a0 + omega * t)).abs() < 1e-9,
            "segment {i} angle"
        );
    }
    let mut deepest: f64 = 0.0;
    for p in 0..sim.len() {
        if sim.particles.id[p] < 1000 {
            let d = (sim.particles.pos[0][p] - c[0]).hypot(sim.particles.pos[1][p] - c[1]);
            deepest = deepest.max(d);
        }
    }
    println!(
        "drum turned {:.3} rad; farthest grain centre {deepest:.5} m from the axis (inner radius {r_in})",
        omega * t
    );
    assert!(deepest < r_in, "a grain left the drum: {deepest}");
    assert!(
        sim.narrow.touching > 0,
        "the grains should touch the drum and each other"
    );
}
