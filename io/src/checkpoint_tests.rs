//! Through the file, in the build's dimension: a run checkpointed by the background writer,
//! read back through the map and continued is bitwise the straight run; a file that says
//! it holds the other dimension is refused by name, never read.
use std::path::Path;

use talus_engine::{Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, Simulation, Wall};
use talus_kernels::math::{ANG, DIM};

use super::*;
use crate::checkpointer::Checkpointer;

const R: f64 = 1e-3;

/// 64 grains on a lattice with random-ish velocities, friction, a floor and side walls
/// (lines in 2D; a turning cylinder in 3D).
fn bed() -> Simulation {
    let pi = std::f64::consts::PI;
    let mass = 2500.0
        * if DIM == 2 {
            pi * R * R
        } else {
            4.0 / 3.0 * pi * R * R * R
        };
    let contact = ContactParams {
        kn: 1e5,
        kt: 2.0 / 7.0 * 1e5,
        gamma_n: ContactParams::gamma_for_restitution(1e5, mass / 2.0, 0.5),
        gamma_t: 0.0,
        mu: 0.5,
    };
    let across: usize = if DIM == 2 { 8 } else { 4 };
    let grains: Vec<ParticleInit> = (0..64usize)
        .map(|k| {
            let cell: [usize; DIM] = std::array::from_fn(|a| k / across.pow(a as u32) % across);
            let pos = std::array::from_fn(|a| {
                let c = cell[a] as f64 * 2.05e-3;
                if a + 1 == DIM {
                    R + c
                } else {
                    c - (across - 1) as f64 * 1.025e-3
                }
            });
            // In -0.5..0.5, scattered (splitmix64 of the grain and the axis).
            let wobble = |s: usize| {
                let mut z = (k as u64 * 8 + s as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                (z ^ (z >> 31)) as f64 / u64::MAX as f64 - 0.5
            };
            ParticleInit {
                id: k as u64 + 1,
                pos,
                angle: 0.0,
                vel: std::array::from_fn(wobble),
                omega: [0.0; ANG],
                radius: R * (0.95 + 0.05 * wobble(5).abs()),
                mass,
                material: 0,
                ptype: 1,
                flags: 0,
            }
        })
        .collect();
    #[cfg(not(feature = "dim3"))]
    let (walls, model) = (
        vec![
            Wall::fixed([0.0, 0.0], [0.0, 1.0], 0),
            Wall::fixed([-8.3e-3, 0.0], [1.0, 0.0], 0),
            Wall::fixed([8.3e-3, 0.0], [-1.0, 0.0], 0),
        ],
        Rejection::Circle,
    );
    #[cfg(feature = "dim3")]
    let (walls, model) = (
        vec![
            Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0),
            Wall::cylinder([0.0; 3], [0.0, 0.0, 1.0], 5.5e-3, 2.0, 0),
        ],
        talus_kernels::contact::law::NormalModel::Hooke,
    );
    let mut gravity = [0.0; DIM];
    gravity[DIM - 1] = -9.81;
    let config = Config {
        dt: 1e-6,
        gravity,
        domain_min: [-0.01; DIM],
        domain_max: [0.02; DIM],
        integrator: Integrator::Verlet,
        neighbor: NeighborMethod::Sweep,
        margin: 0.1e-3,
        every_step: false,
        sort_every: 250,
        #[cfg(not(feature = "dim3"))]
        rejection: model,
        #[cfg(not(feature = "dim3"))]
        normal_model: Default::default(),
        #[cfg(feature = "dim3")]
        normal_model: model,
    };
    let material = Material {
        name: "glass".into(),
        density: 2500.0,
        contact,
    };
    Simulation::new(config, vec![material], walls, &grains).unwrap()
}

#[cfg(not(feature = "dim3"))]
use talus_engine::Rejection;

/// Write `sim` with the background writer into `dir`; the file's path.
fn write(sim: &Simulation, dir: &Path) -> std::path::PathBuf {
    let mut c = Checkpointer::new(dir, "ck", 1, 7, vec![("scenario", b"test".to_vec())], sim).unwrap();
    c.write(sim).unwrap();
    c.finish().unwrap().last.expect("a checkpoint written")
}

#[test]
fn restart_through_the_file_is_bitwise_the_straight_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = bed();
    first.run(300).unwrap();
    assert!(first
        .contacts
        .xi
        .iter()
        .any(|s| *s != talus_kernels::contact::SPRING_ZERO));
    let path = write(&first, dir.path());
    let ck = Checkpoint::open(&path).unwrap();
    assert_eq!(ck.header.dimension, DIM as u32);
    assert_eq!(ck.text("scenario"), Some("test"));
    let mut restored = ck.simulation().unwrap();
    restored.run(300).unwrap();
    let mut straight = bed();
    straight.run(600).unwrap();
    let (sa, sb) = (restored.sections(), straight.sections());
    assert_eq!(sa.len(), sb.len());
    for (x, y) in sa.iter().zip(&sb) {
        assert_eq!(x.name, y.name);
        assert!(x.bytes == y.bytes, "section {} differs after the restart", x.name);
    }
}

/// The file's header says `dimension`, its checksums made right again.
fn claim(path: &Path, dimension: u32) {
    let mut bytes = std::fs::read(path).unwrap();
    let mut h: Header = bytemuck::pod_read_unaligned(&bytes[..HEADER_BYTES]);
    h.dimension = dimension;
    bytes[..HEADER_BYTES].copy_from_slice(bytemuck::bytes_of(&h));
    seal(&mut bytes).unwrap();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_checkpoint_of_the_other_dimension_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut sim = bed();
    sim.run(10).unwrap();
    let path = write(&sim, dir.path());
    let other = if DIM == 2 { 3 } else { 2 };
    claim(&path, other);
    let msg = Checkpoint::open(&path).unwrap_err().to_string();
    let expected = if DIM == 2 {
        "checkpoint: a 3D checkpoint (spheres); this is the 2D engine"
    } else {
        "checkpoint: a 2D checkpoint (discs and polygons); this is the 3D engine"
    };
    assert!(
        msg.starts_with(&path.display().to_string()) && msg.ends_with(expected),
        "{msg}"
    );
    claim(&path, 0);
    let msg = Checkpoint::open(&path).unwrap_err().to_string();
    assert!(msg.contains("dimension 0") && msg.contains("damaged"), "{msg}");
    // Its own dimension again: the file is as written.
    claim(&path, DIM as u32);
    Checkpoint::open(&path).unwrap().simulation().unwrap();
}
