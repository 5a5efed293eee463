//! Particle insertion over time (`[[insert]]`, LAMMPS `fix pour`): the schedule (rate
//! spread over the insertions, per_insert every K steps, start, stop, total), no overlap
//! with any particle or wall at insertion, reproducibility from the seed, a restart in the
//! middle of pouring continuing bit for bit (both integrators, two neighbour methods, a
//! drum starting to turn on a ramp), a region too full for what is asked (fewer inserted,
//! reported), bad input, every neighbour method seeing the new particles, and the worker
//! pool's deterministic sum staying the serial one while the particle count grows.
//!
//! The timing tests use dt = 2^-17 s, so that times and rates in the scenario are whole
//! numbers of steps and whole particles.
use std::collections::{HashMap, HashSet};
use std::path::Path;

use talus::engine::{ForceStrategy, NeighborMethod, Simulation};
use talus::io::build::build;
use talus::io::checkpoint::Checkpoint;
use talus::io::scenario::parse_scenario;

#[path = "../../common/mod.rs"]
mod common;
use common::{assert_same_state, checkpoint, run, text};

mod files;
mod placement;
mod reproducible;
mod schedule;
mod tables;

/// 2^-17 s.
const DT: f64 = 7.62939453125e-6;

fn simulation(text: &str) -> Simulation {
    let sc = parse_scenario(text, Path::new("test.toml")).unwrap_or_else(|e| panic!("{e}"));
    build(&sc, Path::new("test.toml")).unwrap_or_else(|e| panic!("{e}")).sim
}

const OUTPUT_OFF: &str = "[output]\nvtk = false\ndump = false\nenergy = false\n";

/// An empty closed box 100 mm square; stream 0 pours discs at 16384 /s tried every step
/// (1/8 of a particle per step: one every 8 steps from step 0), 20 in all; stream 1 puts 3 hexagons
/// every 16 steps from step 80 (t = 80 dt) until step 160.
fn timing_scenario() -> String {
    format!(
        r#"
title = "insertion timing"
gravity = [0.0, -9.81]
[domain]
min = [-0.001, -0.001]
max = [0.101, 0.101]
[[material]]
name = "grain"
density = 2500.0
kn = 1.0e5
restitution = 0.5
friction = 0.5
[[wall]]
kind = "box"
min = [0.0, 0.0]
max = [0.1, 0.1]
[[insert]]
material = "grain"
region = {{ min = [0.0, 0.05], max = [0.1, 0.1] }}
radius = {{ kind = "uniform", mean = 1.0e-3, width = 0.2 }}
velocity = [0.1, -0.2]
velocity_jitter = 0.05
rate = 16384.0
every = 1
total = 20
[[insert]]
material = "grain"
type = 2
region = {{ min = [0.0, 0.05], max = [0.1, 0.1] }}
radius = {{ kind = "fixed", value = 1.5e-3 }}
shape = {{ kind = "regular", vertices = [6] }}
per_insert = 3
every = 16
start = 0.0006103515625
stop = 0.001220703125
[integrator]
dt = 7.62939453125e-6
[run]
steps = 400
{OUTPUT_OFF}"#
    )
}

/// A box 60 x 80 mm with an inclined line wall across it (the floor the grains land on),
/// 30 discs resting above it, and two streams into a region above the incline (touching it
/// at its lower right corner; one reaching behind it is refused): 40 discs every 100 steps up to 400 (seed
/// `seed`), and random 4-7-gons at 20,000 /s tried every 7 steps from 0.5 ms to 20 ms. The
/// region fills within a few insertions: later ones meet grains everywhere and fall short.
fn crowded_scenario(seed: u64, scheme: &str) -> String {
    format!(
        r#"
title = "pouring onto an incline"
gravity = [0.0, -9.81]
[domain]
min = [-0.001, -0.001]
max = [0.061, 0.081]
[[material]]
name = "grain"
density = 2500.0
kn = 1.0e5
restitution = 0.5
friction = 0.5
[[wall]]
kind = "box"
min = [0.0, 0.0]
max = [0.06, 0.08]
[[wall]]
kind = "line"
point = [0.03, 0.045]
normal = [-0.1, 1.0]
[[particles]]
material = "grain"
count = 30
radius = {{ kind = "fixed", value = 1.0e-3 }}
packing = "random"
region = {{ min = [0.0, 0.056], max = [0.06, 0.066] }}
[[insert]]
material = "grain"
region = {{ min = [0.0, 0.048], max = [0.06, 0.08] }}
radius = {{ kind = "uniform", mean = 1.0e-3, width = 0.3 }}
velocity = [0.0, -0.3]
velocity_jitter = 0.1
per_insert = 40
every = 100
total = 400
seed = {seed}
[[insert]]
material = "grain"
type = 2
region = {{ min = [0.0, 0.048], max = [0.06, 0.08] }}
radius = {{ kind = "uniform", mean = 1.2e-3, width = 0.2 }}
shape = {{ kind = "random", vertices = [4, 7], aspect = 1.3 }}
rate = 20000.0
every = 7
start = 0.0005
stop = 0.02
[integrator]
scheme = "{scheme}"
dt = 7.62939453125e-6
[run]
steps = 2000
{OUTPUT_OFF}"#
    )
}

/// Ids of the particles present.
fn ids(sim: &Simulation) -> HashSet<u64> {
    sim.particles.id.iter().copied().collect()
}

/// Indices of the particles whose ids are not in `before`.
fn new_since(sim: &Simulation, before: &HashSet<u64>) -> Vec<usize> {
    (0..sim.len())
        .filter(|&p| !before.contains(&sim.particles.id[p]))
        .collect()
}

/// `total` steps straight (in uneven batches), against `at` steps, a checkpoint, a
/// restart from it and the rest: the same state bit for bit.
fn check_restart(make: &dyn Fn() -> Simulation, at: u64, total: u64, text: &str, what: &str) -> Simulation {
    let mut straight = make();
    while straight.step < total {
        straight.run(37.min(total - straight.step)).unwrap();
    }
    let mut first = make();
    first.run(at).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = checkpoint(&first, dir.path(), text);
    let mut resumed = Checkpoint::open(&path)
        .and_then(|c| c.simulation())
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(resumed.step, at);
    resumed.run(total - at).unwrap();
    assert_same_state(&straight, &resumed, what);
    straight
}
