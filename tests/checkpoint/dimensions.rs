//! Checkpoint files between the two builds: a 2D file given to the 3D reader and a 3D
//! file given to the 2D reader are refused with the file and both dimensions named (the
//! header records the dimension), never read as the other kind's state.
use std::path::{Path, PathBuf};

use talus::{engine, engine3d, kernels3d};

/// Nine discs in a row on a floor.
fn discs() -> engine::Simulation {
    use engine::*;
    let grains: Vec<ParticleInit> = (0..9)
        .map(|k| ParticleInit {
            id: k + 1,
            pos: [k as f64 * 2.1e-3, 1e-3],
            angle: 0.0,
            vel: [0.0; 2],
            omega: [0.0],
            radius: 1e-3,
            mass: 7.9e-3,
            material: 0,
            ptype: 1,
            flags: 0,
        })
        .collect();
    let config = Config {
        dt: 1e-6,
        gravity: [0.0, -9.81],
        domain_min: [-0.01; 2],
        domain_max: [0.03; 2],
        integrator: Integrator::Verlet,
        neighbor: NeighborMethod::Sweep,
        margin: 1e-4,
        every_step: false,
        sort_every: 0,
        normal_model: Default::default(),
        rejection: Rejection::Circle,
    };
    let material = Material {
        name: "grain".into(),
        density: 2500.0,
        contact: ContactParams {
            kn: 1e5,
            kt: 2e4,
            gamma_n: 0.0,
            gamma_t: 0.0,
            mu: 0.5,
        },
    };
    let floor = Wall::fixed([0.0; 2], [0.0, 1.0], 0);
    engine::Simulation::new(config, vec![material], vec![floor], &grains).unwrap()
}

/// Nine spheres in a row on a floor, in a drum.
fn spheres() -> engine3d::Simulation {
    use engine3d::*;
    let grains: Vec<ParticleInit> = (0..9)
        .map(|k| ParticleInit {
            id: k + 1,
            pos: [(k as f64 - 4.0) * 2.1e-3, 0.0, 1e-3],
            angle: 0.0,
            vel: [0.0; 3],
            omega: [0.0; 3],
            radius: 1e-3,
            mass: 1.05e-5,
            material: 0,
            ptype: 1,
            flags: 0,
        })
        .collect();
    let config = Config {
        dt: 1e-6,
        gravity: [0.0, 0.0, -9.81],
        domain_min: [-0.02; 3],
        domain_max: [0.02; 3],
        integrator: Integrator::Verlet,
        neighbor: NeighborMethod::Sweep,
        margin: 1e-4,
        every_step: false,
        sort_every: 0,
        normal_model: kernels3d::contact::law::NormalModel::Hertz,
    };
    let material = Material {
        name: "grain".into(),
        density: 2500.0,
        contact: ContactParams {
            kn: 1e5,
            kt: 2e4,
            gamma_n: 0.0,
            gamma_t: 0.0,
            mu: 0.5,
        },
    };
    let walls = vec![
        Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0),
        Wall::cylinder([0.0; 3], [1.0, 0.0, 0.0], 0.015, 1.0, 0),
    ];
    engine3d::Simulation::new(config, vec![material], walls, &grains).unwrap()
}

fn write_2d(sim: &engine::Simulation, dir: &Path) -> PathBuf {
    let mut c = talus::io::checkpointer::Checkpointer::new(dir, "discs", 1, 0, Vec::new(), sim).unwrap();
    c.write(sim).unwrap();
    c.finish().unwrap().last.unwrap()
}

fn write_3d(sim: &engine3d::Simulation, dir: &Path) -> PathBuf {
    let mut c = talus_io3d::checkpointer::Checkpointer::new(dir, "spheres", 1, 0, Vec::new(), sim).unwrap();
    c.write(sim).unwrap();
    c.finish().unwrap().last.unwrap()
}

#[test]
fn each_build_refuses_the_other_dimension() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = discs();
    d.run(20).unwrap();
    let mut s = spheres();
    s.run(20).unwrap();
    let flat = write_2d(&d, dir.path());
    let round = write_3d(&s, dir.path());

    // Each build reads its own.
    let back = talus::io::checkpoint::Checkpoint::open(&flat)
        .unwrap()
        .simulation()
        .unwrap();
    assert_eq!((back.len(), back.step), (9, 20));
    let back = talus_io3d::checkpoint::Checkpoint::open(&round)
        .unwrap()
        .simulation()
        .unwrap();
    assert_eq!((back.len(), back.step), (9, 20));

    // And refuses the other's, naming the file and both dimensions.
    let e = talus::io::checkpoint::Checkpoint::open(&round).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{}: checkpoint: a 3D checkpoint (spheres); this is the 2D engine",
            round.display()
        )
    );
    let e = talus_io3d::checkpoint::Checkpoint::open(&flat).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{}: checkpoint: a 2D checkpoint (discs and polygons); this is the 3D engine",
            flat.display()
        )
    );
    // The header alone is enough to refuse (nothing of the state is read).
    assert!(talus::io::checkpoint::Checkpoint::open_unverified(&round).is_err());
    assert!(talus_io3d::checkpoint::Checkpoint::open_unverified(&flat).is_err());
}
