//! A simulation built in code with the engine's API alone (no scenario file): 200 discs
//! dropped into a box of four walls, stepped until they rest, then read back: where the
//! bed's top is, its energies, and the force it puts on the floor (its weight: the
//! walls are frictionless).
//!
//! `cargo run --release --example build_in_code`
use talus::engine::{Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, Simulation, Wall};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (r, density, kn) = (1.0e-3, 2500.0, 1.0e5);
    // Disc mass per metre of depth (the 2D engine's convention): density x area.
    let mass = density * std::f64::consts::PI * r * r;
    // Damping for a restitution of 0.3 between two discs (m_eff = m / 2).
    let gamma_n = ContactParams::gamma_for_restitution(kn, mass / 2.0, 0.3);
    let contact = ContactParams {
        kn,
        kt: 2.0 / 7.0 * kn,
        gamma_n,
        gamma_t: 0.5 * gamma_n,
        mu: 0.5,
    };
    let glass = Material {
        name: "glass".into(),
        density,
        contact,
    };
    // Frictionless walls (a pair of materials takes the smaller friction): friction on
    // the sides would hold a part of the bed's weight off the floor, or lock in a push.
    let wall = Material {
        name: "wall".into(),
        density,
        contact: ContactParams { mu: 0.0, ..contact },
    };
    let config = Config {
        // A fiftieth of the contact duration pi / sqrt(kn / m_eff).
        dt: std::f64::consts::PI / (kn / (mass / 2.0)).sqrt() / 50.0,
        gravity: [0.0, -9.81],
        domain_min: [-0.001, -0.001],
        domain_max: [0.041, 0.081],
        integrator: Integrator::Verlet,
        neighbor: NeighborMethod::Sweep,
        margin: 0.1 * r,
        every_step: false,
        sort_every: 1000,
        normal_model: Default::default(),
        rejection: Default::default(),
    };
    // The box: floor, left and right sides (each wall's normal points at the grains).
    let walls = vec![
        Wall::fixed([0.0, 0.0], [0.0, 1.0], 1),
        Wall::fixed([0.0, 0.0], [1.0, 0.0], 1),
        Wall::fixed([0.04, 0.0], [-1.0, 0.0], 1),
    ];
    // 200 discs on a square lattice 2.5 radii apart, from 5 mm up.
    let grains: Vec<ParticleInit> = (0..200u64)
        .map(|k| ParticleInit {
            id: k + 1,
            pos: [1.5 * r + (k % 15) as f64 * 2.5 * r, 5e-3 + (k / 15) as f64 * 2.5 * r],
            angle: 0.0,
            vel: [0.0; 2],
            omega: [0.0],
            radius: r,
            mass,
            material: 0,
            ptype: 1,
            flags: 0,
        })
        .collect();
    let mut sim = Simulation::new(config, vec![glass, wall], walls, &grains)?;

    // Step in blocks until the grains rest: a kinetic energy below a nanojoule each (the
    // fall gave them about 0.1 mJ each), or a simulated second.
    loop {
        sim.run(5000)?;
        let (kinetic, rotational) = sim.kinetic_energies();
        if kinetic + rotational < 200.0 * 1e-9 || sim.time > 1.0 {
            break;
        }
    }
    let weight = 200.0 * mass * 9.81;
    // The analysis needs the contact forces of the step it looks at: log one more step.
    sim.log_next_run();
    sim.run(1)?;
    let analysis = sim.analyse(None)?;
    let top = (0..sim.len())
        .map(|p| sim.particles.pos[1][p] + sim.particles.radius[p])
        .fold(0.0, f64::max);
    let e = sim.energies();
    println!("after {} steps ({:.3} s):", sim.step, sim.time);
    println!("  bed top           {:.2} mm", top * 1e3);
    println!(
        "  contacts          {} pairs, {} with walls",
        e.contacts, e.wall_contacts
    );
    println!("  kinetic energy    {:.3e} J", e.kinetic);
    println!(
        "  floor force       {:.5} N against the weight {:.5} N",
        -analysis.wall_forces[0][1], weight
    );
    println!("  coordination      {:.3}", analysis.coordination);
    Ok(())
}
