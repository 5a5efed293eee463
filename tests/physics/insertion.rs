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
use std::path::{Path, PathBuf};

use talus::engine::{ForceStrategy, NeighborMethod, Simulation};
use talus::io::build::build;
use talus::io::checkpoint::{fnv1a, Checkpoint};
use talus::io::checkpointer::Checkpointer;
use talus::io::scenario::parse_scenario;

#[path = "../common/mod.rs"]
mod common;
use common::{run, text};

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

#[test]
fn the_schedule_is_kept_step_by_step() {
    let mut sim = simulation(&timing_scenario());
    assert_eq!(sim.config.dt, DT);
    assert_eq!(sim.len(), 0, "the box starts empty");
    let mut seen = HashSet::new();
    let region = ([0.0, 0.05], [0.1, 0.1]);
    for step in 0..400u64 {
        assert_eq!(sim.step, step);
        sim.insert_due().unwrap();
        // After the insertions before step `step + 1`: a disc at steps 0, 8, 16, ... up to
        // 20, three hexagons at each of steps 80, 96, 112, 128 and 144.
        let discs = (step / 8 + 1).min(20) as usize;
        let hexagons = 3 * [80, 96, 112, 128, 144].iter().filter(|&&s| s <= step).count();
        let ps = &sim.particles;
        let of_type = |t: u16| ps.ptype.iter().filter(|&&p| p == t).count();
        assert_eq!((of_type(1), of_type(2)), (discs, hexagons), "before step {}", step + 1);
        for p in new_since(&sim, &seen) {
            let (x, y, r) = (ps.x[p], ps.y[p], ps.radius[p]);
            let inside = x - r >= region.0[0] && x + r <= region.1[0] && y - r >= region.0[1] && y + r <= region.1[1];
            assert!(
                inside,
                "step {step}: id {} at ({x}, {y}) r {r} is not inside the region",
                ps.id[p]
            );
            if ps.ptype[p] == 1 {
                assert!((0.8e-3..=1.2e-3).contains(&r), "disc radius {r}");
                assert!((0.05..=0.15).contains(&ps.vx[p]) && (-0.25..=-0.15).contains(&ps.vy[p]));
                assert!(sim.shapes.as_ref().is_none_or(|sh| !sh.is_polygon(p)));
            } else {
                assert!((r - 1.5e-3).abs() < 1e-15, "hexagon radius {r}");
                assert_eq!((ps.vx[p], ps.vy[p], ps.omega[p]), (0.0, 0.0, 0.0));
                assert_eq!(sim.shapes.as_ref().unwrap().range(p).len(), 6);
            }
        }
        seen = ids(&sim);
        sim.run(1).unwrap();
    }
    assert_eq!(seen.len(), 35, "ids are unique");
    let ins = sim.insertions();
    let c: Vec<_> = ins
        .iter()
        .map(|i| (i.counts.inserted, i.counts.requested, i.counts.events))
        .collect();
    // The disc stream's 20th particle came with its 153rd insertion (step 152).
    assert_eq!(c, vec![(20, 20, 153), (15, 15, 5)]);
    assert!(ins
        .iter()
        .all(|i| i.next_step().is_none() && i.counts.short_events == 0));
}

/// An inserted disc in free fall follows its parabola to rounding with both integrators
/// (both are exact for a constant force): it starts with the acceleration of gravity and
/// no other kick, whether it was inserted in the middle of a batch of steps or not.
#[test]
fn an_inserted_grain_falls_on_its_parabola() {
    for scheme in ["verlet", "gear"] {
        let text = timing_scenario().replace(
            "dt = 7.62939453125e-6",
            &format!("scheme = \"{scheme}\"\ndt = 7.62939453125e-6"),
        );
        // Where and how fast the particles inserted before steps 1 and 9 were inserted,
        // seen step by step on a twin.
        let mut twin = simulation(&text);
        let mut start = HashMap::new();
        for _ in 0..9 {
            let before = ids(&twin);
            twin.insert_due().unwrap();
            let ps = &twin.particles;
            for p in new_since(&twin, &before) {
                start.insert(ps.id[p], (ps.x[p], ps.y[p], ps.vx[p], ps.vy[p], twin.time));
            }
            twin.run(1).unwrap();
        }
        assert_eq!(start.len(), 2);
        // The run: the second insertion falls in the middle of a batch.
        let mut sim = simulation(&text);
        sim.run(1).unwrap();
        sim.run(300).unwrap();
        let g = 9.81;
        for (id, (x0, y0, vx0, vy0, t0)) in start {
            let p = sim.particles.index_of(id).unwrap();
            let t = sim.time - t0;
            let (x, y) = (x0 + vx0 * t, y0 + vy0 * t - 0.5 * g * t * t);
            let off = (sim.particles.x[p] - x).hypot(sim.particles.y[p] - y);
            assert!(
                off < 1e-12,
                "{scheme}: id {id} is {off:e} m off its parabola after {t} s"
            );
        }
    }
}

/// Every particle inserted overlaps nothing at the moment it is inserted: its bounding
/// circle clears all other particles (grains, the ones inserted with it; discs as circles,
/// polygons as their shapes) and the walls.
#[test]
fn nothing_overlaps_at_insertion() {
    let mut sim = simulation(&crowded_scenario(5, "verlet"));
    let mut before = ids(&sim);
    let (mut inserted, mut closest) = (0, f64::INFINITY);
    for _ in 0..2000 {
        sim.insert_due().unwrap();
        let fresh = new_since(&sim, &before);
        let ps = &sim.particles;
        for &p in &fresh {
            for q in (0..sim.len()).filter(|&q| q != p) {
                let gap = clearance(&sim, p, q);
                assert!(
                    gap >= -1e-12 * ps.radius[p],
                    "step {}: inserted id {} overlaps id {} by {:e} m",
                    sim.step,
                    ps.id[p],
                    ps.id[q],
                    -gap
                );
                closest = closest.min(gap / ps.radius[p]);
            }
            for (w, wall) in sim.walls.iter().enumerate() {
                let d = wall.line.distance(ps.x[p], ps.y[p]);
                assert!(
                    d >= ps.radius[p],
                    "step {}: inserted id {} is {d:e} m from wall {w}, radius {}",
                    sim.step,
                    ps.id[p],
                    ps.radius[p]
                );
            }
        }
        inserted += fresh.len();
        before = ids(&sim);
        sim.run(1).unwrap();
    }
    let short: u64 = sim.insertions().iter().map(|i| i.counts.short_events).sum();
    println!("{inserted} inserted, {short} short insertions, closest gap at insertion {closest:.2e} radii");
    // The test means something only if the region was crowded: insertions fell short, and
    // particles were put within a hundredth of a radius of others.
    assert!(inserted > 300 && short > 5, "{inserted} inserted, {short} short");
    assert!(closest < 0.01, "closest gap {closest} radii");
}

/// Distance from `p` to the convex polygon `v` (counter-clockwise), 0 inside: the
/// nearest of its edges as segments, unless `p` is behind every edge line.
fn distance_to_polygon(p: [f64; 2], v: &[[f64; 2]]) -> f64 {
    let n = v.len();
    let edge = |k: usize| (v[k], v[(k + 1) % n]);
    let inside = (0..n).all(|k| {
        let (a, b) = edge(k);
        (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) >= 0.0
    });
    if inside {
        return 0.0;
    }
    (0..n)
        .map(|k| {
            let (a, b) = edge(k);
            let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
            let t = (((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / (ex * ex + ey * ey)).clamp(0.0, 1.0);
            (p[0] - a[0] - t * ex).hypot(p[1] - a[1] - t * ey)
        })
        .fold(f64::INFINITY, f64::min)
}

/// How far the bounding circle of particle `p` is from particle `q` (negative: how deep it
/// overlaps it): from `q`'s circle for a disc, from its shape (corners placed from its pose)
/// for a polygon. Insertion keeps it non-negative for what it inserts.
fn clearance(sim: &Simulation, p: usize, q: usize) -> f64 {
    let ps = &sim.particles;
    let (x, y, r) = (ps.x[p], ps.y[p], ps.radius[p]);
    match sim.shapes.as_ref().filter(|sh| sh.is_polygon(q)) {
        Some(sh) => {
            let (s, c) = ps.angle[q].sin_cos();
            let corners: Vec<[f64; 2]> = sh.body[sh.range(q)]
                .iter()
                .map(|v| [ps.x[q] + c * v[0] - s * v[1], ps.y[q] + s * v[0] + c * v[1]])
                .collect();
            distance_to_polygon([x, y], &corners) - r
        }
        None => (ps.x[q] - x).hypot(ps.y[q] - y) - r - ps.radius[q],
    }
}

/// Pouring into a hopper: the two plates of scenarios/hopper.toml form the funnel. The
/// discs' region sits between them, inside both plates' bounding circles (radius 0.071)
/// though 11 mm from the plates themselves; the hexagons' region is wider, 6 mm from the
/// plates at its lower corners. Every particle asked for comes, none overlapping a plate
/// (the distance from its centre to the plate's polygon is at least its bounding radius)
/// or a grain. Bounding circles as obstacles found the region full and inserted none.
#[test]
fn pouring_into_a_hopper_fills_between_the_plates() {
    let plates = [
        [[0.05, 0.24], [0.14, 0.14], [0.14, 0.15], [0.05, 0.25]],
        [[0.16, 0.14], [0.25, 0.24], [0.25, 0.25], [0.16, 0.15]],
    ];
    // scenarios/hopper.toml up to its grains: the box, the plates.
    let hopper = include_str!("../../scenarios/hopper.toml");
    let walls = &hopper[..hopper.find("[[particles]]").expect("hopper.toml has particles")];
    for plate in &plates {
        assert!(
            walls.contains(&format!("vertices = {plate:?}")),
            "plate {plate:?} not in hopper.toml"
        );
    }
    let text = format!(
        r#"{walls}
[[insert]]
material = "grain"
region = {{ min = [0.11, 0.20], max = [0.19, 0.235] }}
radius = {{ kind = "fixed", value = 1.5e-3 }}
per_insert = 20
every = 1000
total = 100
[[insert]]
material = "grain"
type = 2
region = {{ min = [0.09, 0.215], max = [0.21, 0.235] }}
radius = {{ kind = "fixed", value = 1.5e-3 }}
shape = {{ kind = "regular", vertices = [6] }}
per_insert = 10
every = 1000
total = 50
[integrator]
dt = 7.62939453125e-6
[run]
steps = 5000
{OUTPUT_OFF}"#
    );
    let mut sim = simulation(&text);
    assert_eq!(sim.len(), 2, "the plates");
    let mut before = ids(&sim);
    for _ in 0..5000 {
        sim.insert_due().unwrap();
        let fresh = new_since(&sim, &before);
        let ps = &sim.particles;
        for &p in &fresh {
            let (x, y, r) = (ps.x[p], ps.y[p], ps.radius[p]);
            for (k, plate) in plates.iter().enumerate() {
                let d = distance_to_polygon([x, y], plate);
                assert!(
                    d >= r,
                    "step {}: inserted id {} at ({x}, {y}) is {d:e} m from plate {k}, radius {r}",
                    sim.step,
                    ps.id[p]
                );
            }
            for q in (0..sim.len()).filter(|&q| q != p && ps.flags[q] == 0) {
                assert!(
                    clearance(&sim, p, q) >= -1e-12 * r,
                    "step {}: inserted id {} overlaps id {}",
                    sim.step,
                    ps.id[p],
                    ps.id[q]
                );
            }
        }
        before = ids(&sim);
        sim.run(1).unwrap();
    }
    let counts: Vec<_> = sim
        .insertions()
        .iter()
        .map(|i| (i.counts.inserted, i.counts.requested, i.counts.short_events))
        .collect();
    assert_eq!(counts, vec![(100, 100, 0), (50, 50, 0)]);
    assert_eq!(sim.len(), 152);
}

/// Every section of the two states, byte for byte; the first difference named.
fn assert_same_state(a: &Simulation, b: &Simulation, what: &str) {
    let (sa, sb) = (a.sections(), b.sections());
    let names = |s: &[talus::engine::Section]| s.iter().map(|x| x.name).collect::<Vec<_>>();
    assert_eq!(names(&sa), names(&sb), "{what}: different sections");
    for (x, y) in sa.iter().zip(&sb) {
        assert!(
            x.bytes == y.bytes,
            "{what}: section {} differs ({} vs {} bytes)",
            x.name,
            x.bytes.len(),
            y.bytes.len()
        );
    }
}

#[test]
fn the_same_seed_pours_the_same_grains_another_does_not() {
    let run_of = |text: &str| {
        let mut s = simulation(text);
        s.run(800).unwrap();
        s
    };
    let (a, b) = (
        run_of(&crowded_scenario(5, "verlet")),
        run_of(&crowded_scenario(5, "verlet")),
    );
    assert_same_state(&a, &b, "same seed");
    let c = run_of(&crowded_scenario(6, "verlet"));
    // The first disc of the first insertion (id 31: after the 30 generated) is elsewhere.
    let at = |s: &Simulation, id: u64| {
        let p = s.particles.index_of(id).unwrap();
        (s.particles.x[p], s.particles.y[p])
    };
    assert_ne!(at(&a, 31), at(&c, 31));
    let moved = (0..a.len())
        .filter(|&p| {
            let id = a.particles.id[p];
            c.particles
                .index_of(id)
                .is_none_or(|q| c.particles.x[q] != a.particles.x[p])
        })
        .count();
    assert!(moved > a.len() / 2, "only {moved} of {} grains differ", a.len());
}

/// Write a checkpoint of `sim` into `dir` with the background writer; its path.
fn checkpoint(sim: &Simulation, dir: &Path, text: &str) -> PathBuf {
    let mut c = Checkpointer::new(
        dir,
        "checkpoint",
        2,
        fnv1a(text.as_bytes()),
        vec![("scenario.toml", text.as_bytes().to_vec())],
        sim,
    )
    .unwrap();
    c.write(sim).unwrap();
    c.finish().unwrap().last.expect("one checkpoint written")
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

#[test]
fn a_restart_in_the_middle_of_pouring_is_bitwise() {
    for (scheme, method, at) in [
        // Step 500: both streams insert before the next step (at 500 = 5 x 100, and
        // 66 + 62 x 7), after the checkpoint.
        ("verlet", NeighborMethod::Sweep, 500),
        ("gear", NeighborMethod::Sweep, 500),
        ("verlet", NeighborMethod::Quadtree, 501),
        ("verlet", NeighborMethod::Verlet, 457),
    ] {
        let text = crowded_scenario(5, scheme);
        let make = || {
            let mut s = simulation(&text);
            s.set_neighbor_method(method);
            s
        };
        let what = format!("{scheme}, {}, checkpoint at {at}", method.name());
        let end = check_restart(&make, at, 1100, &text, &what);
        let c: Vec<_> = end.insertions().iter().map(|i| i.counts).collect();
        assert!(
            c.iter().all(|c| c.inserted > 50 && c.events > 5),
            "{what}: too little poured to test anything: {c:?}"
        );
        assert!(
            end.contacts.xi.iter().filter(|x| **x != 0.0).count() > 20,
            "{what}: no springs"
        );
    }
}

/// A small drum, at rest while discs are poured in, starting to turn at 2 ms and
/// reaching 20 rad/s over 3 ms: the wall segments do not move before the start, then
/// follow the ramp's angle exactly; a restart in the middle of the ramp (and of the
/// pouring) continues bit for bit.
#[test]
fn a_drum_starts_on_its_ramp_and_restarts_bitwise() {
    let text = format!(
        r#"
gravity = [0.0, -9.81]
[domain]
min = [0.0, 0.0]
max = [0.1, 0.1]
[[material]]
name = "grain"
density = 2500.0
kn = 1.0e5
restitution = 0.5
friction = 0.5
[[drum]]
material = "grain"
centre = [0.05, 0.05]
radius = 0.03
thickness = 0.004
segments = 24
omega = 20.0
start = 0.001953125
ramp = 0.0029296875
[[insert]]
material = "grain"
region = {{ min = [0.03, 0.035], max = [0.07, 0.065] }}
radius = {{ kind = "uniform", mean = 1.0e-3, width = 0.3 }}
velocity = [0.0, -0.5]
per_insert = 30
every = 50
total = 90
[integrator]
dt = 7.62939453125e-6
[run]
steps = 1500
{OUTPUT_OFF}"#
    );
    // Start at step 256, full speed from step 640.
    let (start, ramp_end) = (256u64, 640u64);
    let mut sim = simulation(&text);
    let seg = |s: &Simulation| {
        let p = s.particles.index_of(1).unwrap();
        (
            s.particles.x[p],
            s.particles.y[p],
            s.particles.angle[p],
            s.particles.omega[p],
        )
    };
    let first = seg(&sim);
    let mut last_spin = 0.0;
    while sim.step < 1000 {
        sim.run(8).unwrap();
        let (x, y, angle, spin) = seg(&sim);
        let t = sim.time;
        if sim.step <= start {
            assert_eq!(
                (x, y, angle, spin),
                first,
                "step {}: the drum moved before its start",
                sim.step
            );
            continue;
        }
        // The angle turned so far: 20 rad/s x the integral of the ramp profile.
        let s = t - 0.001953125;
        let turned = 20.0
            * if s < 0.0029296875 {
                0.5 * s * s / 0.0029296875
            } else {
                s - 0.5 * 0.0029296875
            };
        assert!(
            (angle - turned).abs() < 1e-9,
            "step {}: angle {angle}, ramp gives {turned}",
            sim.step
        );
        let r0 = ((first.0 - 0.05) as f64).hypot(first.1 - 0.05);
        assert!(((x - 0.05).hypot(y - 0.05) - r0).abs() < 1e-12, "off the ring");
        if sim.step <= ramp_end {
            assert!(
                spin > last_spin && spin < 20.0,
                "step {}: spin {spin} while starting",
                sim.step
            );
        } else {
            assert_eq!(spin, 20.0, "step {}: spin at full speed", sim.step);
        }
        last_spin = spin;
    }
    assert_eq!(sim.insertions()[0].counts.inserted, 90);
    check_restart(&|| simulation(&text), 400, 1000, &text, "drum mid-ramp and mid-pour");
}

#[test]
fn a_full_region_gets_fewer_and_says_so() {
    // A region of 10 x 6 mm: room for a handful of discs of 1 mm, 50 asked for at once.
    let scenario = r#"
gravity = [0.0, -9.81]
[domain]
min = [0.0, 0.0]
max = [0.05, 0.1]
[[material]]
name = "grain"
density = 2500.0
kn = 1.0e5
restitution = 0.5
friction = 0.5
[[wall]]
kind = "box"
min = [0.0, 0.0]
max = [0.05, 0.1]
[[insert]]
material = "grain"
region = { min = [0.02, 0.06], max = [0.03, 0.066] }
radius = { kind = "fixed", value = 1.0e-3 }
per_insert = 50
every = 1000
total = 60
[integrator]
dt = 7.62939453125e-6
[run]
steps = 1500
"#;
    let mut sim = simulation(&format!("{scenario}{OUTPUT_OFF}"));
    sim.run(1).unwrap();
    let short = sim.take_shortfalls();
    assert_eq!(short.len(), 1, "{short:?}");
    let f = short[0];
    assert_eq!((f.stream, f.step, f.requested), (0, 0, 50));
    assert!(
        f.inserted >= 3 && f.inserted < 12,
        "{} discs in a 10 x 6 mm box",
        f.inserted
    );
    assert_eq!(sim.len() as u64, f.inserted);
    assert!(sim.take_shortfalls().is_empty(), "taken once");
    sim.run(1499).unwrap();
    let c = sim.insertions()[0].counts;
    // The second insertion asked for the 60 - k still missing, and fell short again.
    assert_eq!((c.events, c.requested), (2, 50 + (60 - f.inserted).min(50)));
    assert_eq!(c.short_events, 2);
    assert_eq!(c.inserted, sim.len() as u64);
    assert_eq!(sim.take_shortfalls().len(), 1);
    // Asking for a billion: the insertion gives up once particles keep finding no place.
    let mut big = simulation(&format!("{scenario}{OUTPUT_OFF}").replace("per_insert = 50", "per_insert = 1000000000"));
    big.run(1).unwrap();
    let b = big.insertions()[0].counts;
    assert_eq!((b.requested, b.inserted), (60, f.inserted), "capped by the total");
    let mut big = simulation(
        &format!("{scenario}{OUTPUT_OFF}")
            .replace("per_insert = 50", "per_insert = 1000000000")
            .replace("total = 60", "stop = 0.01"),
    );
    big.run(1).unwrap();
    let b = big.insertions()[0].counts;
    assert_eq!(
        (b.requested, b.inserted, b.short_events),
        (1_000_000_000, f.inserted, 1)
    );

    // The command line: a warning line per short insertion, and the summary.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("full.toml"),
        format!("{scenario}[output]\ndir = \"o\"\nvtk = false\n"),
    )
    .unwrap();
    let out = run(&["run", "full.toml", "-q"], dir.path());
    let (so, se) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{se}");
    assert!(
        se.contains(&format!(
            "talus: warning: step 0: insert[0] placed {} of 50 particles",
            f.inserted
        )),
        "{se}"
    );
    assert_eq!(se.matches("talus: warning: step").count(), 2, "{se}");
    let line = format!(
        "inserted            insert[0]: {} particles of {} requested in 2 insertions, 2 short by {} in all",
        c.inserted,
        c.requested,
        c.requested - c.inserted
    );
    assert!(so.contains(&line), "{so}");
    // The dump has the particles of each frame: the count grows at step 1000.
    let dump = std::fs::read_to_string(dir.path().join("o/particles.dump")).unwrap();
    let counts: Vec<u64> = dump
        .split("ITEM: NUMBER OF ATOMS\n")
        .skip(1)
        .map(|s| s.lines().next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(
        counts.first(),
        Some(&0),
        "the first frame is of step 0, before any insertion"
    );
    assert_eq!(counts.last(), Some(&c.inserted));
    assert!(counts.contains(&f.inserted));
}

#[test]
fn bad_insert_sections_are_refused_with_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let base = timing_scenario();
    for (from, to, key) in [
        ("rate = 16384.0", "rate = -3.0", "insert[0].rate: must be > 0"),
        (
            "max = [0.1, 0.1] }",
            "max = [0.1, 0.2] }",
            "insert[0].region: must lie inside the domain",
        ),
        ("total = 20\n", "", "one of `total` (particles in all) or `stop`"),
        (
            "rate = 16384.0\n",
            "",
            "one of `rate` (particles per second) or `per_insert`",
        ),
        (
            "stop = 0.001220703125",
            "stop = 0.0001",
            "insert[1].stop: must be later than start",
        ),
    ] {
        assert!(base.contains(from), "{from}");
        let t = base.replacen(from, to, 1);
        std::fs::write(dir.path().join("bad.toml"), &t).unwrap();
        let out = run(&["run", "bad.toml", "--no-output", "-q"], dir.path());
        let se = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{se}");
        assert!(se.contains(key), "{key:?} not in {se}");
        assert!(se.contains("bad.toml:"), "{se}");
    }
    // What only the time step decides: a start and a stop within one step (79.25 dt and
    // 79.75 dt: both at step 80).
    let t = base
        .replacen("start = 0.0006103515625", "start = 0.0006046295166015625", 1)
        .replacen("stop = 0.001220703125", "stop = 0.0006084442138671875", 1);
    let sc = parse_scenario(&t, Path::new("t.toml")).unwrap();
    let e = build(&sc, Path::new("t.toml")).err().expect("refused").to_string();
    assert!(e.contains("insert[1]") && e.contains("after the start"), "{e}");
}

/// Every touching pair (brute force) is in the contact table, every particle touching a
/// wall in the wall contacts: the neighbour search saw the new particles.
fn assert_tables_complete(sim: &Simulation, what: &str) -> usize {
    let ps = &sim.particles;
    let mut touching = 0;
    for i in 0..sim.len() {
        for j in i + 1..sim.len() {
            let d = (ps.x[j] - ps.x[i]).hypot(ps.y[j] - ps.y[i]);
            if d < ps.radius[i] + ps.radius[j] {
                touching += 1;
                assert!(
                    sim.contacts.find(i as u32, j as u32).is_some(),
                    "{what}, step {}: ids {} and {} may touch but are not in the contact table",
                    sim.step,
                    ps.id[i],
                    ps.id[j]
                );
            }
        }
        for (w, wall) in sim.walls.iter().enumerate() {
            if wall.line.distance(ps.x[i], ps.y[i]) < ps.radius[i] {
                let wc = &sim.wall_contacts;
                assert!(
                    (0..wc.len()).any(|k| wc.p[k] as usize == i && wc.w[k] as usize == w),
                    "{what}, step {}: id {} touches wall {w} but is not in the wall contacts",
                    sim.step,
                    ps.id[i]
                );
            }
        }
    }
    touching
}

#[test]
fn every_neighbour_method_sees_the_new_particles() {
    let text = crowded_scenario(5, "verlet");
    for &m in NeighborMethod::ALL {
        let mut sim = simulation(&text);
        sim.set_neighbor_method(m);
        let mut most = 0;
        while sim.step < 1500 {
            sim.run(25).unwrap();
            most = most.max(assert_tables_complete(&sim, m.name()));
        }
        assert!(
            sim.len() > 300 && most > 100,
            "{}: {} particles, {most} touching",
            m.name(),
            sim.len()
        );
    }
}

#[test]
fn the_deterministic_pool_pours_the_serial_run_bit_for_bit() {
    let text = crowded_scenario(5, "verlet");
    let mut serial = simulation(&text);
    serial.run(1200).unwrap();
    for threads in [2, 3] {
        let mut sim = simulation(&text);
        sim.set_parallel(&vec![None; threads], ForceStrategy::Deterministic)
            .unwrap();
        while sim.step < 1200 {
            sim.run(50).unwrap();
        }
        assert_same_state(&serial, &sim, &format!("{threads} threads"));
    }
    assert!(serial.len() > 300);
}

/// The shipped scenario's first 0.07 s: the discs come at the rate asked for (spread over
/// insertions about one particle apart), the polygons 5 at a time, all inside the drum.
#[test]
fn the_shipped_drum_pour_pours() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("scenarios/drum_pour.toml");
    let mut sim = talus::io::build::build_file(&path)
        .unwrap_or_else(|e| panic!("{e}"))
        .sim;
    sim.run(30_000).unwrap();
    let ins = sim.insertions();
    let dt = sim.config.dt;
    let disc = &ins[0];
    let scheduled: u64 = (0..disc.counts.events).map(|k| disc.spec.scheduled(k, dt)).sum();
    assert_eq!(disc.counts.inserted, scheduled, "no shortfall");
    let poured = 1000.0 * sim.time;
    assert!(
        (disc.counts.inserted as f64 - poured).abs() <= 2.0,
        "{} discs in {} s at 1000 /s",
        disc.counts.inserted,
        sim.time
    );
    assert_eq!(ins[1].counts.inserted, 5 * ins[1].counts.events);
    let ps = &sim.particles;
    let mut types: HashMap<u16, usize> = HashMap::new();
    for p in 0..sim.len() {
        *types.entry(ps.ptype[p]).or_default() += 1;
        if ps.flags[p] == 0 {
            let d = (ps.x[p] - 0.07).hypot(ps.y[p] - 0.07);
            assert!(
                d + ps.radius[p] < 0.0505,
                "id {} at {d} from the drum's centre",
                ps.id[p]
            );
        }
    }
    assert_eq!(
        types[&2],
        64 + ins[1].counts.inserted as usize,
        "drum segments and polygons"
    );
}

/// `talus run` straight, against `talus run` to a checkpoint and `talus restart --append`:
/// the same output files, byte for byte, through the pouring.
#[test]
fn run_and_restart_append_give_the_uninterrupted_files() {
    let dir = tempfile::tempdir().unwrap();
    let t = crowded_scenario(5, "verlet").replace(OUTPUT_OFF, "[output]\nevery = 100\nvtk = false\n");
    std::fs::write(dir.path().join("pour.toml"), &t).unwrap();
    let ok = |args: &[&str]| {
        let out = run(args, dir.path());
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    };
    let summary = ok(&["run", "pour.toml", "--steps", "900", "--out", "a", "-q"]);
    assert!(summary.contains("inserted            insert[0]: "), "{summary}");
    ok(&[
        "run",
        "pour.toml",
        "--steps",
        "500",
        "--out",
        "b",
        "--checkpoint-every",
        "500",
        "-q",
    ]);
    ok(&["restart", "b", "--steps", "400", "--append", "-q"]);
    for f in ["particles.dump", "energy.csv"] {
        let (a, b) = (
            std::fs::read(dir.path().join("a").join(f)).unwrap(),
            std::fs::read(dir.path().join("b").join(f)).unwrap(),
        );
        assert!(a == b, "{f} differs after the restart");
    }
}
