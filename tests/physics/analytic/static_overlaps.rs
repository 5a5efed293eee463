//! Static overlaps under gravity, and coincident discs pushed apart.
use super::*;

/// Discs of radius 1 mm on a floor at y = 0 under gravity, e = 0.5 (for the disc-wall
/// contact, m_eff = m), friction 0.5, dt = t_c/50 of the disc-disc contact. Returns the
/// simulation after `steps` steps.
fn settle(integrator: Integrator, parts: &[ParticleInit], steps: usize) -> Simulation {
    let m = disc_mass(1.0e-3);
    let p = frictional(0.5, m, 0.5);
    let dt = p.contact_time(0.5 * m) / 50.0;
    let cfg = config(dt, [0.0, -G], [-0.01, -0.01], [0.03, 0.03], integrator);
    let mut sim = Simulation::new(cfg, vec![material(p)], vec![wall([0.0, 0.0], [0.0, 1.0])], parts).unwrap();
    for _ in 0..steps {
        sim.step().unwrap();
    }
    sim
}

/// A disc dropped from 0.5 mm above a floor bounces, then settles at the overlap m g / kn
/// (7.70e-8 m for r = 1 mm) within 0.1 %, with both integrators. 20,000 steps (80 ms;
/// the bounces end after about 20 ms). Measured: relative error < 1e-9 for both.
#[test]
fn disc_rests_on_floor_at_static_overlap() {
    let r = 1.0e-3;
    let m = disc_mass(r);
    let expected = m * G / KN;
    for integrator in BOTH {
        let sim = settle(integrator, &[disc(1, 0.01, r + 0.5e-3, 0.0, 0.0, r)], 20_000);
        let ps = &sim.particles;
        let overlap = r - ps.pos[1][0];
        let err = (overlap - expected) / expected;
        println!("{integrator:?}: floor overlap {overlap:.6e} m, m g / kn = {expected:.6e} m, error {err:+.2e}");
        assert!(
            err.abs() < 1e-3,
            "{integrator:?}: floor overlap {overlap:.6e} m, expected m g / kn = {expected:.6e} m (error {:+.4} %)",
            100.0 * err
        );
        assert!(
            ps.vel[1][0].abs() < 1e-6 && ps.vel[0][0].abs() < 1e-12,
            "{integrator:?}: the disc still moves: v = ({}, {})",
            ps.vel[0][0],
            ps.vel[1][0]
        );
    }
}

/// A column of three equal discs (r = 1 mm) stacked on the floor: the floor contact carries
/// 3 m g, the contact of discs 1 and 2 carries 2 m g, that of discs 2 and 3 carries m g,
/// so the overlaps settle at 3 m g / kn, 2 m g / kn and m g / kn within 0.1 %, with both
/// integrators (30,000 steps). Measured: relative errors < 1e-9.
#[test]
fn column_of_three_discs_has_static_overlaps() {
    let r = 1.0e-3;
    let m = disc_mass(r);
    let x = 0.01;
    let parts = [
        disc(1, x, r, 0.0, 0.0, r),
        disc(2, x, 3.0 * r, 0.0, 0.0, r),
        disc(3, x, 5.0 * r, 0.0, 0.0, r),
    ];
    for integrator in BOTH {
        let sim = settle(integrator, &parts, 30_000);
        let y: Vec<f64> = (1..=3).map(|id| sim.particles.pos[1][index(&sim, id)]).collect();
        for id in 1..=3 {
            assert_eq!(
                sim.particles.pos[0][index(&sim, id)],
                x,
                "{integrator:?}: the column buckled"
            );
        }
        let measured = [r - y[0], 2.0 * r - (y[1] - y[0]), 2.0 * r - (y[2] - y[1])];
        let names = ["floor - disc 1", "disc 1 - disc 2", "disc 2 - disc 3"];
        for (k, (&d, name)) in measured.iter().zip(names).enumerate() {
            let load = (3 - k) as f64;
            let expected = load * m * G / KN;
            let err = (d - expected) / expected;
            println!("{integrator:?}: {name} overlap {d:.6e} m, {load} m g / kn = {expected:.6e} m, error {err:+.2e}");
            assert!(
                err.abs() < 1e-3,
                "{integrator:?}: {name} overlap {d:.6e} m, expected {load} m g / kn = {expected:.6e} m \
                 (error {:+.4} %)",
                100.0 * err
            );
        }
    }
}

/// Two discs at the same centre (two particle sources in one region, two LAMMPS atoms at
/// one x, y) have no centre line: they used to get no force and stay coincident. They
/// must push apart along x with the full overlap r1 + r2 as the spring's compression, so
/// that (undamped) they leave with the relative speed the spring's energy gives,
/// (r1 + r2) sqrt(kn / m_eff), momentum conserved, nothing along y. Also with a polygon
/// in the system (the mixed pair loop), which must give the same motion.
#[test]
fn coincident_discs_push_apart() {
    let (r1, r2) = (1.0e-3, 0.6e-3);
    let (m1, m2) = (disc_mass(r1), disc_mass(r2));
    let meff = m1 * m2 / (m1 + m2);
    let tc = elastic().contact_time(meff);
    let want = (r1 + r2) * (KN / meff).sqrt();
    for integrator in BOTH {
        let mut finals = Vec::new();
        for with_polygon in [false, true] {
            let mut parts = vec![disc(1, 0.01, 0.01, 0.0, 0.0, r1), disc(2, 0.01, 0.01, 0.0, 0.0, r2)];
            let mut shapes = vec![None, None];
            if with_polygon {
                // A fixed square far from the pair: only the loop changes.
                parts.push(ParticleInit {
                    flags: talus::engine::flags::FIXED,
                    ..disc(3, 0.002, 0.018, 0.0, 0.0, 1e-3 * 2f64.sqrt())
                });
                shapes.push(Some(square_shape(1e-3)));
            }
            let cfg = config(tc / 50.0, [0.0; 2], [0.0; 2], [0.02; 2], integrator);
            let mut sim = Simulation::new_with_shapes(cfg, vec![material(elastic())], vec![], &parts, &shapes).unwrap();
            sim.run(100).unwrap(); // two contact durations: long apart
            let (a, b) = (index(&sim, 1), index(&sim, 2));
            let ps = &sim.particles;
            let gap = (ps.pos[0][b] - ps.pos[0][a]).abs() - (r1 + r2);
            let vrel = (ps.vel[0][b] - ps.vel[0][a]).abs();
            let momentum = m1 * ps.vel[0][a] + m2 * ps.vel[0][b];
            println!(
                "{integrator:?}, polygon {with_polygon}: gap {gap:.3e} m, relative speed {vrel:.6} m/s (analytic {want:.6}), momentum {momentum:.1e}"
            );
            assert!(
                gap > 0.0,
                "{integrator:?}: the discs are still overlapping (gap {gap:e})"
            );
            assert!((vrel / want - 1.0).abs() < 2e-3, "{integrator:?}: {vrel} vs {want}");
            assert!(
                momentum.abs() < 1e-12 * m1 * want,
                "{integrator:?}: momentum {momentum:e}"
            );
            for p in [a, b] {
                assert_eq!(
                    (ps.pos[1][p], ps.vel[1][p]),
                    (0.01, 0.0),
                    "{integrator:?}: moved along y"
                );
            }
            finals.push([ps.pos[0][a], ps.pos[0][b], ps.vel[0][a], ps.vel[0][b]]);
        }
        assert_eq!(finals[0], finals[1], "{integrator:?}: the mixed pair loop differs");
    }
}
