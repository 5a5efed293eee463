//! Whole-system physics tests: analytic binary collisions, energy conservation of an
//! elastic gas, static overlaps under gravity, run errors, the two integrators against
//! each other, particle removal and insertion, and the LAMMPS-settled bed at rest.
//!
//! Simulations are built programmatically through `talus::engine`; the contact law is
//! LAMMPS `gran/hooke/history` (kernels/src/contact/law.rs).
use std::collections::{HashMap, HashSet};
use std::f64::consts::PI;
use std::path::Path;
use std::time::Instant;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use talus::engine::generate::{self, RadiusDist};
use talus::engine::{
    Config, ContactParams, EngineError, Integrator, Material, NeighborMethod, ParticleInit, Simulation, Wall,
};

mod add_remove;
mod collision;
mod driven_laws;
mod drum;
mod energy;
mod gap_budget;
mod integrators;
mod lammps_bed;
mod polygons;
mod run_errors;
mod static_overlaps;

/// Areal density (kg/m^2) and stiffness (N/m) of the S2D benchmark.
const DENSITY: f64 = 2500.0;
const KN: f64 = 1.0e6;
const G: f64 = 9.81;

const BOTH: [Integrator; 2] = [Integrator::Verlet, Integrator::Gear];

fn disc_mass(r: f64) -> f64 {
    DENSITY * PI * r * r
}

fn material(contact: ContactParams) -> Material {
    Material {
        name: "test".into(),
        density: DENSITY,
        contact,
    }
}

/// Frictionless, undamped: only the normal spring.
fn elastic() -> ContactParams {
    ContactParams {
        kn: KN,
        kt: 0.0,
        gamma_n: 0.0,
        gamma_t: 0.0,
        mu: 0.0,
    }
}

/// The S2D material: restitution `e` for a pair of effective mass `meff`, kt = 2/7 kn,
/// gamma_t = gamma_n / 2, friction `mu`.
fn frictional(e: f64, meff: f64, mu: f64) -> ContactParams {
    let gamma_n = ContactParams::gamma_for_restitution(KN, meff, e);
    ContactParams {
        kn: KN,
        kt: 2.0 / 7.0 * KN,
        gamma_n,
        gamma_t: 0.5 * gamma_n,
        mu,
    }
}

fn config(dt: f64, gravity: [f64; 2], min: [f64; 2], max: [f64; 2], integrator: Integrator) -> Config {
    Config {
        dt,
        gravity,
        domain_min: min,
        domain_max: max,
        integrator,
        neighbor: NeighborMethod::Sweep,
        margin: 0.1e-3,
        every_step: false,
        sort_every: 0,
        rejection: Default::default(),
        normal_model: Default::default(),
    }
}

fn disc(id: u64, x: f64, y: f64, vx: f64, vy: f64, r: f64) -> ParticleInit {
    ParticleInit {
        id,
        pos: [x, y],
        angle: 0.0,
        vel: [vx, vy],
        omega: [0.0],
        radius: r,
        mass: disc_mass(r),
        material: 0,
        ptype: 1,
        flags: 0,
    }
}

fn wall(point: [f64; 2], normal: [f64; 2]) -> Wall {
    Wall::fixed(point, normal, 0)
}

/// Index of the particle with this id (it moves when the store is reordered).
fn index(sim: &Simulation, id: u64) -> usize {
    sim.particles
        .index_of(id)
        .unwrap_or_else(|| panic!("particle id {id} is missing"))
}

fn square_shape(h: f64) -> talus::engine::PolygonShape {
    talus::engine::PolygonShape::new(&[[-h, -h], [h, -h], [h, h], [-h, h]]).unwrap()
}
