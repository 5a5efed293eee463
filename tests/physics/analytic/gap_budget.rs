//! The gap budget of polygon pairs (a pair found apart is walked again only once its gap
//! could have closed) must never hide a contact. Two cases found in review: a step that
//! moved the bodies and then failed (a disc left the domain), after which the run goes on
//! without that disc; and a body turned to a very large angle, whose drift rounds by more
//! than dt omega. In both, every step at which the two polygons overlap (by the energy
//! computation's own overlap test) must push them apart.
use talus::engine::{
    Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, PolygonShape, Simulation,
};

const DENSITY: f64 = 2500.0;

fn material() -> Material {
    Material {
        name: "t".into(),
        density: DENSITY,
        contact: ContactParams {
            kn: 1.0e6,
            kt: 0.0,
            gamma_n: 0.0,
            gamma_t: 0.0,
            mu: 0.0,
        },
    }
}

fn config(dt: f64) -> Config {
    Config {
        dt,
        gravity: [0.0; 2],
        domain_min: [0.0; 2],
        domain_max: [1.0; 2],
        integrator: Integrator::Verlet,
        neighbor: NeighborMethod::Sweep,
        margin: 0.01,
        every_step: false,
        sort_every: 0,
        rejection: Default::default(),
        normal_model: Default::default(),
    }
}

#[allow(clippy::too_many_arguments)]
fn particle(id: u64, x: f64, y: f64, angle: f64, vx: f64, omega: f64, radius: f64, mass: f64) -> ParticleInit {
    ParticleInit {
        id,
        pos: [x, y],
        angle,
        vel: [vx, 0.0],
        omega: [omega],
        radius,
        mass,
        material: 0,
        ptype: 1,
        flags: 0,
    }
}

fn square(h: f64) -> PolygonShape {
    PolygonShape::new(&[[-h, -h], [h, -h], [h, h], [-h, h]]).unwrap()
}

/// Steps at which polygons overlap, and whether particle id 1 felt a load then.
fn check_pushed(sim: &Simulation, what: &str) -> bool {
    let touching = sim.energies().contacts > 0;
    if touching {
        let k = sim.particles.index_of(1).unwrap();
        let ps = &sim.particles;
        let load = ps.force[0][k].abs() + ps.force[1][k].abs() + ps.torque[0][k].abs();
        assert!(
            load > 0.0,
            "{what}, step {}: the polygons overlap but no force acts",
            sim.step
        );
    }
    touching
}

#[test]
fn a_failed_step_does_not_hide_a_contact() {
    // Square 2 closes on square 1 at 1 m/s, 10.5 steps away; a disc leaves the domain
    // at step 10, the step fails after the drift, the disc is removed, the run goes on.
    let (h, dt, v) = (0.01, 1e-4, 1.0);
    let m = DENSITY * 4.0 * h * h;
    let parts = [
        particle(1, 0.5, 0.5, 0.0, 0.0, 0.0, 0.02, m),
        particle(2, 0.5 - 2.0 * h - 10.5e-4, 0.5, 0.0, v, 0.0, 0.02, m),
        particle(3, 1.0 - 9.5e-4, 0.9, 0.0, 1.0, 0.0, 1e-3, 1e-3),
    ];
    let shapes = [Some(square(h)), Some(square(h)), None];
    let mut sim = Simulation::new_with_shapes(config(dt), vec![material()], vec![], &parts, &shapes).unwrap();
    let (mut failed, mut touching) = (false, 0);
    for _ in 0..16 {
        if sim.step().is_err() {
            failed = true;
            let d = sim.particles.index_of(3).unwrap();
            sim.remove_particles(&[d]);
            continue;
        }
        touching += check_pushed(&sim, "after a failed step") as u32;
    }
    assert!(failed && touching > 3, "failed {failed}, {touching} steps in contact");
}

#[test]
fn a_large_angle_does_not_hide_a_contact() {
    // A needle at angle 2^40 spinning so that each drift rounds to a whole unit in the
    // last place of the angle, 1.67 times dt omega, beside a square 10 such turns away.
    let (l, w, hb, dt) = (0.01, 0.001, 0.01, 1e-4);
    let theta = 2.0f64.powi(40);
    let ulp = 2.0f64.powi(40 - 52);
    let omega = 0.6 * ulp / dt;
    let (s, c) = theta.sin_cos();
    let (u, n) = ([c, s], [-s, c]);
    let gap = 10.0 * l * ulp;
    let needle = PolygonShape::new(&[[-l, -w / 2.0], [l, -w / 2.0], [l, w / 2.0], [-l, w / 2.0]]).unwrap();
    let sq = square(hb);
    let ca = [0.5, 0.5];
    let off = w / 2.0 + gap + hb;
    let cb = [ca[0] + l * u[0] + off * n[0], ca[1] + l * u[1] + off * n[1]];
    let parts = [
        particle(1, ca[0], ca[1], theta, 0.0, omega, needle.radius, DENSITY * needle.area),
        particle(2, cb[0], cb[1], theta, 0.0, 0.0, sq.radius, DENSITY * sq.area),
    ];
    let shapes = [Some(needle), Some(sq)];
    let mut sim = Simulation::new_with_shapes(config(dt), vec![material()], vec![], &parts, &shapes).unwrap();
    let mut touching = 0;
    for _ in 0..25 {
        sim.step().unwrap();
        touching += check_pushed(&sim, "needle at a large angle") as u32;
    }
    assert!(touching > 3, "{touching} steps in contact");
}
