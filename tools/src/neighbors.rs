//! `talus neighbors`: the neighbour-search methods side by side on the literature's
//! experiments, with tables, CSV and log-log plots with fitted exponents.
//!
//! The kinematic experiments (test1, test2, muth, tree-update) move discs at constant
//! velocity between reflecting walls, with no forces: what is timed is the neighbour
//! search alone (each method's `refresh` to the new boxes, every step, no skin), on
//! identical motion for every method. test1-dem and the drum run the whole simulation.
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use talus_engine::{
    Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, Rejection, Simulation, Wall,
};
use talus_kernels::neighbor::{
    BallBoxes, BoundingVolumes, BruteForce, Dess, LinkedCells, NeighborSearch, Quadtree, SpatialHash, StripedSort,
    SweepAndPrune, VerletLists,
};

use crate::bench_polygons::drum_sim;
use crate::plot::{fitted_exponent, loglog_plot, Series};

#[derive(Args)]
pub struct NeighborsArgs {
    /// Experiments: test1 (Perkins' Test 1: a square of equal discs with alternating
    /// velocities, passing through one another at 2 % of a radius per step, over --sizes),
    /// test1-dem (the same square as a DEM run: the discs collide, at the time step of
    /// the contact law, over --sizes), test2 (Perkins' Test 2: size ratios --ratios at
    /// --test2-n discs), muth (Muth et al.'s 2D polydisperse series, over --sizes), muth3d
    /// (the same in 3D: spheres at volume fraction 0.5 with the 3D build's methods, the
    /// quadtree being an octree there; over --sizes), drum
    /// (random 5-8-gons in a rotating drum, the whole simulation, over --drum-sizes),
    /// tree-update (the quadtree's incremental update against rebuilding it, at --tree-n)
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "test1,test1-dem,test2,muth,drum,tree-update"
    )]
    pub experiments: Vec<String>,
    /// Methods to compare
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "sweep,quadtree,cells,verlet,hashing,dess,brute"
    )]
    pub methods: Vec<NeighborMethod>,
    /// Particle numbers of test1 and muth
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,100000,1000000", value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub sizes: Vec<usize>,
    /// Size ratios (largest / smallest radius) of test2
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16,32")]
    pub ratios: Vec<f64>,
    /// Discs of test2
    #[arg(long, default_value_t = 10_000, value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub test2_n: usize,
    /// Grains of the drum experiment
    #[arg(long, value_delimiter = ',', default_value = "500,2000,8000", value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub drum_sizes: Vec<usize>,
    /// Untimed drum steps before the timing (the bed forms and turns)
    #[arg(long, default_value_t = 2000)]
    pub drum_warmup: u64,
    /// Untimed test1-dem steps before the timing (a binary contact lasts 50 steps; the
    /// first collisions happen after about 100)
    #[arg(long, default_value_t = 1000)]
    pub dem_warmup: u64,
    /// Discs of tree-update
    #[arg(long, default_value_t = 100_000, value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub tree_n: usize,
    /// Timed steps per repeat
    #[arg(long, default_value_t = 20, value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub steps: usize,
    /// Timed repeats (the median is reported)
    #[arg(long, default_value_t = 3, value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub repeats: usize,
    /// Entries a quadtree leaf holds before it splits (1 in Watanabe et al.)
    #[arg(long, default_value_t = 1, value_parser = crate::arg_ranges::at_least::<u32>(1))]
    pub leaf_capacity: u32,
    /// Brute force runs only up to this many particles (it is O(N^2))
    #[arg(long, default_value_t = 3000)]
    pub brute_max: usize,
    /// Folder for the tables, CSV and plots
    #[arg(long, default_value = "talus-neighbors")]
    pub out: PathBuf,
}

/// Discs moving at constant velocity in a square with reflecting sides.
#[derive(Clone)]
struct Kinematic {
    x: Vec<f64>,
    y: Vec<f64>,
    r: Vec<f64>,
    vx: Vec<f64>,
    vy: Vec<f64>,
    side: f64,
}

impl Kinematic {
    /// Perkins' Test 1: equal discs on a square lattice (gap 5 % of the radius),
    /// neighbours moving in alternating directions so that contacts open and close.
    fn test1(n: usize) -> Kinematic {
        let r = 1.0;
        let cols = (n as f64).sqrt().ceil() as usize;
        let spacing = 2.1 * r;
        let side = cols as f64 * spacing;
        let v = 0.02 * r;
        let mut k = Kinematic::empty(side);
        for p in 0..n {
            let (i, j) = (p % cols, p / cols);
            k.x.push((i as f64 + 0.5) * spacing);
            k.y.push((j as f64 + 0.5) * spacing);
            k.r.push(r);
            let s = if (i + j) % 2 == 0 { 1.0 } else { -1.0 };
            k.vx.push(s * v);
            k.vy.push(if j % 2 == 0 { v } else { -v } * 0.5);
        }
        k
    }

    /// Random positions at area fraction `fill`, radii from `radius(rng)`, random
    /// velocities up to 2 % of the smallest radius per step.
    fn random(n: usize, fill: f64, seed: u64, radius: impl Fn(&mut Xoshiro256PlusPlus) -> f64) -> Kinematic {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let r: Vec<f64> = (0..n).map(|_| radius(&mut rng)).collect();
        let area: f64 = r.iter().map(|r| std::f64::consts::PI * r * r).sum();
        let side = (area / fill).sqrt();
        let rmin = r.iter().copied().fold(f64::INFINITY, f64::min);
        let v = 0.02 * rmin;
        let mut k = Kinematic::empty(side);
        for &rp in &r {
            k.x.push(rng.random_range(0.0..side));
            k.y.push(rng.random_range(0.0..side));
            k.r.push(rp);
            k.vx.push(rng.random_range(-v..v));
            k.vy.push(rng.random_range(-v..v));
        }
        k.morton_order();
        k
    }

    /// Renumber along a Z-order curve, as the simulation does every 1000 steps: random
    /// indices would measure cache misses rather than the methods.
    fn morton_order(&mut self) {
        use talus_engine::sim::{morton_key, MORTON_CELLS};
        let s = MORTON_CELLS as f64 / self.side;
        let mut order: Vec<(u64, usize)> = (0..self.x.len())
            .map(|p| (morton_key([(self.x[p] * s) as u32, (self.y[p] * s) as u32]), p))
            .collect();
        order.sort_unstable();
        for v in [&mut self.x, &mut self.y, &mut self.r, &mut self.vx, &mut self.vy] {
            *v = order.iter().map(|&(_, p)| v[p]).collect();
        }
    }

    fn empty(side: f64) -> Kinematic {
        Kinematic {
            x: Vec::new(),
            y: Vec::new(),
            r: Vec::new(),
            vx: Vec::new(),
            vy: Vec::new(),
            side,
        }
    }

    fn step(&mut self) {
        let s = self.side;
        for p in 0..self.x.len() {
            for (c, v) in [(&mut self.x[p], &mut self.vx[p]), (&mut self.y[p], &mut self.vy[p])] {
                *c += *v;
                if *c < 0.0 || *c > s {
                    *v = -*v;
                    *c = c.clamp(0.0, s);
                }
            }
        }
    }

    fn boxes(&self) -> BallBoxes<'_> {
        BallBoxes {
            pos: [&self.x, &self.y],
            radius: &self.r,
            margin: 0.0,
        }
    }

    fn domain(&self) -> [f64; 4] {
        let pad = self.r.iter().copied().fold(0.0, f64::max);
        [-pad, self.side + pad, -pad, self.side + pad]
    }
}

// The same source for the other dimension (see refresh_timing.rs).
#[allow(clippy::duplicate_mod)]
#[path = "refresh_timing.rs"]
mod refresh_timing;
use refresh_timing::{time_refresh, Moving};

impl Moving for Kinematic {
    fn advance(&mut self) {
        self.step();
    }
    fn ball_boxes(&self) -> BallBoxes<'_> {
        self.boxes()
    }
    fn balls(&self) -> usize {
        self.x.len()
    }
}

/// One timed measurement.
#[derive(Clone, Debug)]
struct Row {
    experiment: &'static str,
    method: &'static str,
    /// The x of the plot: N, or the size ratio.
    x: f64,
    n: usize,
    secs_per_step: f64,
    pairs_per_particle: f64,
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn time_method(a: &NeighborsArgs, method: NeighborMethod, sys: &Kinematic) -> (f64, f64) {
    let (steps, repeats) = (a.steps, a.repeats);
    let mut s = sys.clone();
    match method {
        NeighborMethod::Sweep => time_refresh(SweepAndPrune::new(), &mut s, steps, repeats),
        NeighborMethod::Quadtree => time_refresh(
            Quadtree::with_capacity(Some(sys.domain()), a.leaf_capacity),
            &mut s,
            steps,
            repeats,
        ),
        NeighborMethod::Cells => time_refresh(LinkedCells::new(), &mut s, steps, repeats),
        NeighborMethod::Verlet => time_refresh(VerletLists::new(), &mut s, steps, repeats),
        NeighborMethod::Hashing => time_refresh(SpatialHash::new(), &mut s, steps, repeats),
        NeighborMethod::Dess => time_refresh(Dess::new(), &mut s, steps, repeats),
        NeighborMethod::Striped => time_refresh(StripedSort::new(), &mut s, steps, repeats),
        NeighborMethod::Bvh => time_refresh(BoundingVolumes::new(), &mut s, steps, repeats),
        NeighborMethod::Brute => time_refresh(BruteForce::new(), &mut s, steps, repeats),
    }
}

pub fn neighbors(a: NeighborsArgs) -> Result<(), String> {
    std::fs::create_dir_all(&a.out).map_err(|e| format!("cannot create {}: {e}", a.out.display()))?;
    let commit = crate::scale::git_commit();
    let mut report = format!(
        "talus neighbors (commit {commit}): {} timed steps x {} repeats (median), methods {}\n",
        a.steps,
        a.repeats,
        a.methods.iter().map(|m| m.name()).collect::<Vec<_>>().join(", ")
    );
    print!("{report}");
    for e in &a.experiments {
        let rows = match e.as_str() {
            "test1" => kinematic_series(&a, "test1", &a.sizes, Kinematic::test1)?,
            "muth" => kinematic_series(&a, "muth", &a.sizes, |n| {
                Kinematic::random(n, 0.6, 7, |rng| rng.random_range(0.5..1.5))
            })?,
            "test2" => {
                let n = a.test2_n;
                let mut rows = Vec::new();
                for &ratio in &a.ratios {
                    if !(ratio >= 1.0 && ratio.is_finite()) {
                        return Err(format!(
                            "test2: size ratio {ratio}: must be a finite number of at least 1"
                        ));
                    }
                    // Radii log-uniform between 1 and the ratio.
                    let sys = Kinematic::random(n, 0.5, 11, |rng| ratio.powf(rng.random_range(0.0..1.0)));
                    for &m in &a.methods {
                        if m == NeighborMethod::Brute && n > a.brute_max {
                            continue;
                        }
                        let (t, z) = time_method(&a, m, &sys);
                        rows.push(Row {
                            experiment: "test2",
                            method: m.name(),
                            x: ratio,
                            n,
                            secs_per_step: t,
                            pairs_per_particle: z,
                        });
                    }
                }
                rows
            }
            "drum" => drum_series(&a)?,
            "test1-dem" => test1_dem_series(&a)?,
            "muth3d" => muth3d_series(&a),
            "tree-update" => {
                let text = tree_update(&a)?;
                print!("{text}");
                report.push_str(&text);
                continue;
            }
            other => {
                return Err(format!(
                    "unknown experiment {other:?} (test1, test1-dem, test2, muth, muth3d, drum, tree-update)"
                ))
            }
        };
        let text = write_experiment(&a.out, e, &rows)?;
        print!("{text}");
        report.push_str(&text);
    }
    let path = a.out.join("report.txt");
    std::fs::write(&path, &report).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}

fn kinematic_series(
    a: &NeighborsArgs,
    experiment: &'static str,
    sizes: &[usize],
    make: impl Fn(usize) -> Kinematic,
) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for &n in sizes {
        let sys = make(n);
        for &m in &a.methods {
            if m == NeighborMethod::Brute && n > a.brute_max {
                continue;
            }
            let (t, z) = time_method(a, m, &sys);
            rows.push(Row {
                experiment,
                method: m.name(),
                x: n as f64,
                n,
                secs_per_step: t,
                pairs_per_particle: z,
            });
        }
    }
    Ok(rows)
}

/// Muth et al.'s polydisperse series in 3D (`neighbors3d.rs`): the methods of the 3D
/// build among those asked for (the quadtree is an octree there, and so named).
fn muth3d_series(a: &NeighborsArgs) -> Vec<Row> {
    let mut rows = Vec::new();
    for &n in &a.sizes {
        let sys = crate::neighbors3d::Spheres::muth(n, 0.5, 7);
        for &m in &a.methods {
            if m == NeighborMethod::Brute && n > a.brute_max {
                continue;
            }
            if let Some((t, z)) = crate::neighbors3d::time_method(m.name(), &sys, a.steps, a.repeats, a.leaf_capacity) {
                rows.push(Row {
                    experiment: "muth3d",
                    method: if m == NeighborMethod::Quadtree {
                        "octree"
                    } else {
                        m.name()
                    },
                    x: n as f64,
                    n,
                    secs_per_step: t,
                    pairs_per_particle: z,
                });
            }
        }
    }
    rows
}

/// The rotating drum of bench-drum, whole simulation, re-searched every step; the
/// neighbour phase's time per step.
fn drum_series(a: &NeighborsArgs) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for &n in &a.drum_sizes {
        for &m in &a.methods {
            if m == NeighborMethod::Brute && n > a.brute_max {
                continue;
            }
            let mut sim = drum_sim(n, 128, 1.0, Rejection::Circle)?;
            sim.set_neighbor_method(m);
            sim.config.every_step = true;
            sim.run(a.drum_warmup).map_err(|e| e.to_string())?;
            let mut per = Vec::new();
            for _ in 0..a.repeats.max(1) {
                sim.reset_times();
                sim.run(a.steps.max(1) as u64).map_err(|e| e.to_string())?;
                per.push(sim.profile().neighbor_wall() / a.steps.max(1) as f64);
            }
            rows.push(Row {
                experiment: "drum",
                method: m.name(),
                x: sim.len() as f64,
                n: sim.len(),
                secs_per_step: median(per),
                pairs_per_particle: sim.candidate_pairs() as f64 / sim.len() as f64,
            });
        }
    }
    Ok(rows)
}

/// Perkins' Test 1 run as DEM (his Test 1 is a simulation: a square of discs held at
/// the exterior, given alternating velocities "to ensure object rearrangement"): equal
/// discs of radius 1 mm on the lattice of [`Kinematic::test1`] inside four fixed walls,
/// no gravity, the LAMMPS peer's stiffness (k_n = 1e6 N/m) without damping so that the
/// motion does not die out, time step t_c / 50. Velocities: +-0.1 m/s in x and +-0.05 m/s
/// in y as in test1, plus a random part of up to +-0.05 m/s on each axis; without it the
/// lattice only breathes (every pair collides in step with the others and the square
/// never rearranges). Head-on pairs then overlap by 2 % of a radius at most.
pub fn test1_dem(n: usize) -> Result<Simulation, String> {
    let r = 1e-3;
    let density = 2500.0;
    let mass = density * std::f64::consts::PI * r * r;
    let kn = 1e6;
    let contact = ContactParams {
        kn,
        kt: 2.0 / 7.0 * kn,
        gamma_n: 0.0,
        gamma_t: 0.0,
        mu: 0.5,
    };
    let dt = contact.contact_time(0.5 * mass) / 50.0;
    let cols = (n as f64).sqrt().ceil() as usize;
    let spacing = 2.1 * r;
    let side = cols as f64 * spacing;
    let v = 0.1;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let inits: Vec<ParticleInit> = (0..n)
        .map(|p| {
            let (i, j) = (p % cols, p / cols);
            let jitter = [rng.random_range(-0.5..0.5) * v, rng.random_range(-0.5..0.5) * v];
            ParticleInit {
                id: p as u64 + 1,
                pos: [(i as f64 + 0.5) * spacing, (j as f64 + 0.5) * spacing],
                angle: 0.0,
                vel: [
                    if (i + j) % 2 == 0 { v } else { -v } + jitter[0],
                    if j % 2 == 0 { 0.5 * v } else { -0.5 * v } + jitter[1],
                ],
                omega: [0.0],
                radius: r,
                mass,
                material: 0,
                ptype: 1,
                flags: 0,
            }
        })
        .collect();
    let rows = n.div_ceil(cols);
    let top = rows as f64 * spacing;
    let walls = vec![
        Wall::fixed([0.0, 0.0], [1.0, 0.0], 0),
        Wall::fixed([0.0, 0.0], [0.0, 1.0], 0),
        Wall::fixed([side, 0.0], [-1.0, 0.0], 0),
        Wall::fixed([0.0, top], [0.0, -1.0], 0),
    ];
    let config = Config {
        dt,
        gravity: [0.0, 0.0],
        domain_min: [-0.01, -0.01],
        domain_max: [side + 0.01, top + 0.01],
        integrator: Integrator::Verlet,
        neighbor: NeighborMethod::Sweep,
        margin: 0.0,
        every_step: true,
        sort_every: 1000,
        normal_model: Default::default(),
        rejection: Rejection::Circle,
    };
    let material = Material {
        name: "test1".into(),
        density,
        contact,
    };
    Simulation::new(config, vec![material], walls, &inits).map_err(|e| e.to_string())
}

/// Mean distance a particle moves in one step, in radii.
fn step_fraction(sim: &Simulation) -> f64 {
    let p = &sim.particles;
    let n = p.len().max(1) as f64;
    let s: f64 = (0..p.len()).map(|i| p.vel[0][i].hypot(p.vel[1][i]) / p.radius[i]).sum();
    s * sim.config.dt / n
}

/// test1-dem over --sizes: one simulation per N, warmed up once; each method then takes
/// over the running simulation (a fresh search built on the current state) for its timed
/// steps, so the methods see the same (statistically steady, undamped) motion.
fn test1_dem_series(a: &NeighborsArgs) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for &n in &a.sizes {
        let mut sim = test1_dem(n)?;
        sim.run(a.dem_warmup).map_err(|e| e.to_string())?;
        println!(
            "  test1-dem N = {n}: {:.2e} radii per step (mean), {:.2} contacts per particle",
            step_fraction(&sim),
            sim.contacts_per_particle()
        );
        for &m in &a.methods {
            if m == NeighborMethod::Brute && n > a.brute_max {
                continue;
            }
            sim.set_neighbor_method(m);
            sim.config.every_step = true;
            // A few untimed steps: the first builds the search from scratch.
            sim.run(3).map_err(|e| e.to_string())?;
            let swaps0 = sim.sweep_stats().map(|s| s.swaps);
            let mut per = Vec::new();
            for _ in 0..a.repeats.max(1) {
                sim.reset_times();
                sim.run(a.steps.max(1) as u64).map_err(|e| e.to_string())?;
                per.push(sim.profile().neighbor_wall() / a.steps.max(1) as f64);
            }
            if let (Some(s0), Some(s1)) = (swaps0, sim.sweep_stats().map(|s| s.swaps)) {
                let steps = (a.steps.max(1) * a.repeats.max(1)) as f64;
                println!(
                    "  test1-dem N = {n}: the sweep made {:.3} insertion-sort swaps per particle per step",
                    (s1 - s0) as f64 / (steps * n as f64)
                );
            }
            rows.push(Row {
                experiment: "test1-dem",
                method: m.name(),
                x: n as f64,
                n,
                secs_per_step: median(per),
                pairs_per_particle: sim.candidate_pairs() as f64 / n as f64,
            });
        }
    }
    Ok(rows)
}

/// What moves the discs of tree-update.
enum Motion {
    /// test1: discs passing through one another at 2 % of a radius per step.
    Kinematic(Kinematic),
    /// test1-dem: the colliding discs of the DEM run.
    Dem(Box<Simulation>),
}

impl Motion {
    fn step(&mut self) -> Result<(), String> {
        match self {
            Motion::Kinematic(k) => {
                k.step();
                Ok(())
            }
            Motion::Dem(sim) => sim.run(1).map_err(|e| e.to_string()),
        }
    }

    fn boxes(&self) -> BallBoxes<'_> {
        match self {
            Motion::Kinematic(k) => k.boxes(),
            Motion::Dem(sim) => BallBoxes {
                pos: [&sim.particles.pos[0], &sim.particles.pos[1]],
                radius: &sim.particles.radius,
                margin: 0.0,
            },
        }
    }

    fn domain(&self) -> [f64; 4] {
        match self {
            Motion::Kinematic(k) => k.domain(),
            Motion::Dem(sim) => {
                let c = &sim.config;
                [c.domain_min[0], c.domain_max[0], c.domain_min[1], c.domain_max[1]]
            }
        }
    }

    fn describe(&self) -> String {
        match self {
            Motion::Kinematic(_) => "test1 (discs passing through one another, 2.2e-2 radii per step)".into(),
            Motion::Dem(sim) => format!("test1-dem (colliding discs, {:.1e} radii per step)", step_fraction(sim)),
        }
    }
}

/// The quadtree's incremental update (migration of the entries that left their leaf)
/// against building the tree from scratch, on the same motion (test1 and test1-dem at
/// --tree-n discs).
fn tree_update(a: &NeighborsArgs) -> Result<String, String> {
    let n = a.tree_n;
    let mut dem = test1_dem(n)?;
    dem.run(a.dem_warmup).map_err(|e| e.to_string())?;
    let mut s = String::new();
    for motion in [Motion::Kinematic(Kinematic::test1(n)), Motion::Dem(Box::new(dem))] {
        s.push_str(&tree_update_on(a, motion)?);
    }
    Ok(s)
}

fn tree_update_on(a: &NeighborsArgs, mut sys: Motion) -> Result<String, String> {
    let n = a.tree_n;
    // Two trees on the same motion: one only migrated, one built from scratch every step
    // (each keeps its own allocations, so neither pays for the other's).
    let mut tree = Quadtree::with_capacity(Some(sys.domain()), a.leaf_capacity);
    let mut fresh = Quadtree::with_capacity(Some(sys.domain()), a.leaf_capacity).rebuilt_only();
    let mut pairs = Vec::new();
    tree.rebuild(&sys.boxes(), &mut pairs);
    fresh.rebuild(&sys.boxes(), &mut pairs);
    // Untimed steps first: the migrated tree reaches its steady size.
    for _ in 0..a.steps.max(1) {
        sys.step()?;
        tree.set_boxes(&sys.boxes());
        tree.migrate_only();
    }
    let (mut inc, mut full) = (Vec::new(), Vec::new());
    let migrations0 = tree.stats.migrations;
    for _ in 0..a.repeats.max(1) {
        let (mut ti, mut tf) = (0.0, 0.0);
        for _ in 0..a.steps.max(1) {
            sys.step()?;
            tree.set_boxes(&sys.boxes());
            fresh.set_boxes(&sys.boxes());
            let s = Instant::now();
            tree.migrate_only();
            ti += s.elapsed().as_secs_f64();
            let s = Instant::now();
            fresh.rebuild_tree();
            tf += s.elapsed().as_secs_f64();
        }
        inc.push(ti / a.steps.max(1) as f64);
        full.push(tf / a.steps.max(1) as f64);
    }
    let (ti, tf) = (median(inc), median(full));
    let steps = (a.steps.max(1) * a.repeats.max(1)) as f64;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\ntree-update: quadtree (leaves of {}) over {} at N = {n} ({} entries, {} nodes)",
        a.leaf_capacity,
        sys.describe(),
        tree.entries(),
        tree.nodes()
    );
    let _ = writeln!(
        s,
        "  incremental migration {:.3} ms/step ({:.1} entries moved per step), rebuild from scratch {:.3} ms/step: rebuild / incremental = {:.1}",
        ti * 1e3,
        (tree.stats.migrations - migrations0) as f64 / steps,
        tf * 1e3,
        tf / ti
    );
    Ok(s)
}

/// Table, CSV and plot of one experiment; returns the table.
fn write_experiment(out: &Path, name: &str, rows: &[Row]) -> Result<String, String> {
    let mut methods: Vec<&str> = Vec::new();
    for r in rows {
        if !methods.contains(&r.method) {
            methods.push(r.method);
        }
    }
    let xname = if name == "test2" { "size ratio" } else { "N" };
    let mut s = format!(
        "\n{name}: seconds per step of the neighbour search\n  {:>10} {:>9} {:>8} {:>12} {:>12} {:>10}\n",
        xname, "method", "N", "ms/step", "ns/particle", "pairs/p"
    );
    let mut csv = String::from("experiment,method,x,n,secs_per_step,ns_per_particle_step,pairs_per_particle\n");
    for r in rows {
        let ns = r.secs_per_step * 1e9 / r.n.max(1) as f64;
        let _ = writeln!(
            s,
            "  {:>10} {:>9} {:>8} {:>12.4} {:>12.1} {:>10.2}",
            r.x,
            r.method,
            r.n,
            r.secs_per_step * 1e3,
            ns,
            r.pairs_per_particle
        );
        let _ = writeln!(
            csv,
            "{},{},{},{},{:.6e},{:.3},{:.4}",
            r.experiment, r.method, r.x, r.n, r.secs_per_step, ns, r.pairs_per_particle
        );
    }
    let mut series = Vec::new();
    for m in &methods {
        let pts: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.method == *m)
            .map(|r| (r.x, r.secs_per_step))
            .collect();
        let all = fitted_exponent(&pts);
        let big: Vec<(f64, f64)> = pts.iter().copied().filter(|p| p.0 >= 1e4).collect();
        let above = if name == "test2" { None } else { fitted_exponent(&big) };
        let label = match (all, above) {
            (Some(k), Some(b)) => format!("{m} (x^{k:.2}; N >= 1e4: N^{b:.2})"),
            (Some(k), None) => format!("{m} (x^{k:.2})"),
            _ => m.to_string(),
        };
        let _ = writeln!(s, "  fitted exponent, {label}");
        series.push(Series { label, points: pts });
    }
    let csv_path = out.join(format!("{name}.csv"));
    std::fs::write(&csv_path, csv).map_err(|e| format!("cannot write {}: {e}", csv_path.display()))?;
    let title = match name {
        "test1" => "Perkins Test 1: equal discs, alternating velocities",
        "test2" => "Perkins Test 2: size ratios",
        "muth" => "2D polydisperse series (Muth et al.)",
        "muth3d" => "3D polydisperse series (Muth et al.), spheres",
        "drum" => "rotating drum, random 5-8-gons (whole simulation)",
        "test1-dem" => "Perkins Test 1 as a DEM run (whole simulation)",
        _ => name,
    };
    loglog_plot(
        title,
        xname,
        "seconds per step (neighbour search)",
        &series,
        &out.join(format!("{name}.png")),
        &out.join(format!("{name}.svg")),
    )?;
    Ok(s)
}
