//! talus against LAMMPS on identical 2D input with Hertz contacts (issue 19 item 2: the
//! Hertz law in 2D too): LAMMPS gran/hertz/history and fix wall/gran hertz/history on
//! discs (`fix nve/sphere disc`: a disc's moment of inertia m r^2 / 2, as talus's). An
//! oblique impact of two unequal spinning discs and a spinning disc bouncing off a
//! floor, deterministic and far apart (`in.s2d_hertz`); LAMMPS 22Jul2025's positions,
//! velocities and spins every 200 steps are in `s2d_hertz_lammps.csv`. talus is set up
//! with the same numbers here and compared at every row.
use std::f64::consts::PI;

use talus::engine::{Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, Simulation, Wall};
use talus::kernels::contact::law::NormalModel;

/// The deck's numbers.
const RHO: f64 = 2500.0;
const KN: f64 = 1.0e10;
const GN: f64 = 3.0e7;
const MU: f64 = 0.3;
const DT: f64 = 1.0e-7;

/// (id, x, y, vx, vy, omega, radius) of the deck's three discs.
const DISCS: [(u64, f64, f64, f64, f64, f64, f64); 3] = [
    (1, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0e-3),
    (2, -1.45e-3, 0.8e-3, 0.5, 0.0, 200.0, 0.6e-3),
    (3, 10.0e-3, -9.15e-3, 0.2, -0.4, -300.0, 0.8e-3),
];

fn lammps_rows() -> Vec<(u64, [[f64; 5]; 3])> {
    include_str!("s2d_hertz_lammps.csv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("step"))
        .map(|l| {
            let f: Vec<f64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            (
                f[0] as u64,
                std::array::from_fn(|k| std::array::from_fn(|q| f[1 + 5 * k + q])),
            )
        })
        .collect()
}

fn talus_run() -> Simulation {
    let config = Config {
        dt: DT,
        gravity: [0.0; 2],
        domain_min: [-0.02; 2],
        domain_max: [0.02; 2],
        integrator: Integrator::Verlet,
        neighbor: NeighborMethod::Sweep,
        margin: 0.2e-3,
        every_step: false,
        sort_every: 0,
        rejection: Default::default(),
        normal_model: NormalModel::Hertz,
    };
    // LAMMPS' Kt and gamma_t as the deck gives them: 2/7 Kn and gamma_n / 2.
    let material = Material {
        name: "disc".into(),
        density: RHO,
        contact: ContactParams {
            kn: KN,
            kt: KN * 2.0 / 7.0,
            gamma_n: GN,
            gamma_t: 0.5 * GN,
            mu: MU,
        },
    };
    let discs: Vec<ParticleInit> = DISCS
        .iter()
        .map(|&(id, x, y, vx, vy, w, r)| ParticleInit {
            id,
            pos: [x, y],
            angle: 0.0,
            vel: [vx, vy],
            omega: [w],
            radius: r,
            mass: RHO * PI * r * r,
            material: 0,
            ptype: 1,
            flags: 0,
        })
        .collect();
    let floor = Wall::fixed([0.0, -10.0e-3], [0.0, 1.0], 0);
    Simulation::new(config, vec![material], vec![floor], &discs).unwrap()
}

/// The pair: every row within 1e-11 m, 1e-7 m/s and 1e-4 rad/s of LAMMPS's (the
/// contacts change the velocities by up to 0.6 m/s and the spins by up to 510 rad/s;
/// measured: 4.8e-13 m, 2.4e-9 m/s, 9.4e-6 rad/s at most, from LAMMPS's spring projected
/// onto each step's tangent, where talus's scalar spring turns with the pair). The disc on
/// the floor, whose contact does not turn: the same to the last digit until its
/// contact's last 10 % (step 3000). Then LAMMPS's wall (fix wall/gran, on its
/// GranularModel since 2023, where the pair style is the classic code) and talus part at
/// step 3094: the tangential force is at the Coulomb cap in both, of the same size and
/// opposite signs (each holds a different spring behind the cap, which the force does not
/// show). From there the floor's disc within 5e-4 m/s (0.2 % of its speed along the
/// floor) and 1 rad/s (0.4 % of its spin), measured 1.9e-4 m/s and 0.49 rad/s; its
/// motion normal to the floor stays the same to 1e-7 m/s.
#[test]
fn hertz_impacts_of_discs_move_as_in_lammps() {
    let mut sim = talus_run();
    let rows = lammps_rows();
    assert_eq!(rows.len(), 21);
    let mut contacts = 0;
    for (step, want) in rows {
        sim.run(step - sim.step).unwrap();
        let e = sim.energies();
        contacts += e.contacts + e.wall_contacts;
        let ps = &sim.particles;
        for (k, w) in want.iter().enumerate() {
            let p = ps.index_of(DISCS[k].0).unwrap();
            let got = [ps.pos[0][p], ps.pos[1][p], ps.vel[0][p], ps.vel[1][p], ps.omega[0][p]];
            let what = format!("step {step}, disc {}: talus {got:?}, LAMMPS {w:?}", DISCS[k].0);
            let past_parting = k == 2 && step > 3000;
            let (x, vt, w_tol) = if past_parting {
                (1e-7, 5e-4, 1.0)
            } else {
                (1e-11, 1e-7, 1e-4)
            };
            assert!((got[0] - w[0]).abs() < x && (got[1] - w[1]).abs() < 1e-11, "{what}");
            assert!((got[2] - w[2]).abs() < vt && (got[3] - w[3]).abs() < 1e-7, "{what}");
            assert!((got[4] - w[4]).abs() < w_tol, "{what}");
        }
    }
    assert!(contacts >= 10, "the rows see the contacts ({contacts})");
}
