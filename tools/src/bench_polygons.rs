//! Whole-simulation benchmarks with polygons, one thread:
//! - `talus bench-polygons`: a dense bed of random 5-8-gons between four walls;
//! - `talus bench-drum`: the same grains in a rotating drum, a ring of driven wall polygons
//!   (the benchmark of Watanabe et al. and Chen & Matuttis).
//!
//! Both start from a hexagonal lattice a little tighter than the grains' circumradii, so
//! that the bed is dense and in contact from the first steps (no minutes of free fall
//! before anything is measured), run untimed steps to let it settle, then time a few
//! chunks of steps and report the median chunk (the machine is shared and noisy).
use std::time::Instant;

use clap::Args;
use talus_engine::generate::{self, ShapeSpec};
use talus_engine::pool::Phase;
use talus_engine::{
    Config, ContactParams, Drive, Integrator, Material, NeighborMethod, ParticleInit, PolygonShape, Rejection,
    Simulation, Wall,
};

/// Lattice spacing of the grains (their circumradii are 1 mm +- 20 %).
const SPACING: f64 = 1.5e-3;
const DENSITY: f64 = 2500.0;

/// Command-line spelling of [`talus_engine::Rejection`].
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum RejectionArg {
    /// Bounding circles only.
    Circle,
    /// Circles, then projections of the corners on the centre line.
    Projection,
    /// Circles, projections, then the separating-line search.
    SeparatingLine,
}

impl From<RejectionArg> for Rejection {
    fn from(r: RejectionArg) -> Self {
        match r {
            RejectionArg::Circle => Self::Circle,
            RejectionArg::Projection => Self::Projection,
            RejectionArg::SeparatingLine => Self::SeparatingLine,
        }
    }
}

/// Options shared by both benchmarks.
#[derive(Args)]
pub struct Timing {
    /// Untimed steps before the timing.
    #[arg(long, default_value_t = 200)]
    pub warmup: u64,
    /// Timed steps per chunk.
    #[arg(long, default_value_t = 500, value_parser = crate::arg_ranges::at_least::<u64>(1))]
    pub steps: u64,
    /// Timed chunks; the median is reported.
    #[arg(long, default_value_t = 3, value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub repeats: usize,
    /// Cheap rejection stages run before the closest-feature walk (Chen & Matuttis App. B).
    #[arg(long, value_enum, default_value_t = RejectionArg::Circle)]
    pub rejection: RejectionArg,
}

/// `talus bench-polygons`: particle-updates per second on a dense bed of random convex
/// polygons (5-8 corners, circumradius 1 mm +- 20 %, aspect up to 1.2), walled in on four
/// sides under gravity.
#[derive(Args)]
pub struct PolygonBedArgs {
    /// Numbers of polygons.
    #[arg(long, value_delimiter = ',', default_value = "10000,100000", value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub sizes: Vec<usize>,
    #[command(flatten)]
    pub timing: Timing,
}

/// `talus bench-drum`: particle-updates per second in a rotating drum (a ring of driven
/// wall quadrilaterals) filled to about 45 % of its area with the grains of bench-polygons.
#[derive(Args)]
pub struct DrumArgs {
    /// Numbers of grains (the drum is sized to them).
    #[arg(long, value_delimiter = ',', default_value = "10000", value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub sizes: Vec<usize>,
    /// Angular velocity of the drum (rad/s, counter-clockwise).
    #[arg(long, default_value_t = 1.0)]
    pub omega: f64,
    /// Wall segments of the ring.
    #[arg(long, default_value_t = 128, value_parser = crate::arg_ranges::at_least::<usize>(3))]
    pub segments: usize,
    #[command(flatten)]
    pub timing: Timing,
}

/// Random 5-8-gons centred on `positions`, with ids from 1.
fn grains(positions: &[[f64; 2]], seed: u64) -> Result<(Vec<ParticleInit>, Vec<Option<PolygonShape>>), String> {
    use rand::RngExt;
    let mut g = generate::rng(seed);
    let spec = ShapeSpec::Random {
        vertices: [5, 8],
        aspect: 1.2,
    };
    let mut inits = Vec::with_capacity(positions.len());
    let mut shapes = Vec::with_capacity(positions.len());
    for (k, &[x, y]) in positions.iter().enumerate() {
        let r = 1e-3 * g.random_range(0.8..1.2);
        let shape =
            PolygonShape::new(&generate::polygon_vertices(&spec, r, &mut g).unwrap()).map_err(|e| e.to_string())?;
        inits.push(ParticleInit {
            id: k as u64 + 1,
            pos: [x, y],
            angle: g.random_range(0.0..std::f64::consts::TAU),
            vel: [0.0, 0.0],
            omega: [0.0],
            radius: shape.radius,
            mass: DENSITY * shape.area,
            material: 0,
            ptype: 1,
            flags: 0,
        });
        shapes.push(Some(shape));
    }
    Ok((inits, shapes))
}

/// Spring-dashpot parameters of the grains (restitution 0.5, friction 0.5) and the time
/// step (t_c / 50 of the lightest pair).
fn grain_material(inits: &[ParticleInit]) -> (Material, f64) {
    let m_min = inits
        .iter()
        .filter(|p| p.flags == 0)
        .map(|p| p.mass)
        .fold(f64::INFINITY, f64::min);
    let kn = 1e6;
    let gn = ContactParams::gamma_for_restitution(kn, 0.5 * m_min, 0.5);
    let contact = ContactParams {
        kn,
        kt: 2.0 / 7.0 * kn,
        gamma_n: gn,
        gamma_t: 0.5 * gn,
        mu: 0.5,
    };
    let dt = contact.contact_time(0.5 * m_min) / 50.0;
    let material = Material {
        name: "grain".into(),
        density: DENSITY,
        contact,
    };
    (material, dt)
}

fn config(dt: f64, domain_min: [f64; 2], domain_max: [f64; 2], rejection: Rejection) -> Config {
    Config {
        dt,
        gravity: [0.0, -9.81],
        domain_min,
        domain_max,
        integrator: Integrator::Verlet,
        neighbor: NeighborMethod::Sweep,
        margin: 0.1e-3,
        every_step: false,
        sort_every: 1000,
        normal_model: Default::default(),
        rejection,
    }
}

/// Runs the warm-up, then the timed chunks; prints one row for the median chunk and the
/// per-step work of the narrow phase.
fn measure(label: &str, sim: &mut Simulation, t: &Timing) -> Result<(), String> {
    sim.run(t.warmup).map_err(|e| e.to_string())?;
    let n = sim.len();
    let narrow0 = sim.narrow;
    let mut chunks = Vec::new();
    for _ in 0..t.repeats.max(1) {
        sim.reset_times();
        let start = Instant::now();
        sim.run(t.steps).map_err(|e| e.to_string())?;
        let wall_s = start.elapsed().as_secs_f64();
        let p = sim.profile();
        let forces = p.wall_of(Phase::Forces) + p.wall_of(Phase::Reduce);
        chunks.push((wall_s, 100.0 * forces / p.stepping.max(1e-300)));
    }
    chunks.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (wall_s, forces) = chunks[chunks.len() / 2];
    println!(
        "{label:>8} {n:>8} {:>6} {wall_s:>8.3} {:>10.3e} {:>6.2} {forces:>7.1} {:>9.0}",
        t.steps,
        n as f64 * t.steps as f64 / wall_s,
        sim.contacts_per_particle(),
        sim.memory_bytes() as f64 / n as f64
    );
    let ns = sim.narrow;
    let steps = (t.steps * t.repeats.max(1) as u64) as f64;
    let per = |x: u64, x0: u64| (x - x0) as f64 / steps;
    println!(
        "{:>17} per step: {:.0} candidates; rejected {:.0} by circles, {:.0} by projections, {:.0} by the \
         separating line ({:.2} moves per search); {:.0} found apart ({:.0} of them by the gap left from their last \
         walk, without a walk); {:.0} touching ({:.1}% of the \
         overlaps tracked from their crossings, the rest clipped; {:.2} redone with exact signs, {:.2} in \
         expansions); {:.2} walk fallbacks",
        "",
        per(ns.candidates, narrow0.candidates),
        per(ns.circle_rejected, narrow0.circle_rejected),
        per(ns.projection_rejected, narrow0.projection_rejected),
        per(ns.line_rejected, narrow0.line_rejected),
        (ns.line_iterations - narrow0.line_iterations) as f64
            / ((ns.projection_tested - narrow0.projection_tested)
                - (ns.projection_rejected - narrow0.projection_rejected))
                .max(1) as f64,
        per(ns.separated, narrow0.separated),
        per(ns.gap_skips, narrow0.gap_skips),
        per(ns.touching, narrow0.touching),
        100.0 * (ns.tracked - narrow0.tracked) as f64
            / ((ns.tracked + ns.clipped) - (narrow0.tracked + narrow0.clipped)).max(1) as f64,
        per(ns.accurate, narrow0.accurate),
        per(ns.exact, narrow0.exact),
        per(ns.fallbacks, narrow0.fallbacks)
    );
    Ok(())
}

fn header(title: &str, t: &Timing) {
    println!(
        "{title}, 1 thread, velocity Verlet, rejection {:?}; {} warm-up steps, median of {} chunks",
        t.rejection,
        t.warmup,
        t.repeats.max(1)
    );
    println!(
        "{:>8} {:>8} {:>6} {:>8} {:>10} {:>6} {:>7} {:>9}",
        "grains", "bodies", "steps", "wall s", "upd/s", "z", "force%", "B/p arr"
    );
}

pub fn bench_polygons(a: PolygonBedArgs) -> Result<(), String> {
    header("talus bench-polygons: dense bed of random 5-8-gons", &a.timing);
    for &n in &a.sizes {
        let mut sim = polygon_bed(n, a.timing.rejection.into())?;
        measure(&n.to_string(), &mut sim, &a.timing)?;
    }
    Ok(())
}

/// The dense bed of bench-polygons: `n` random 5-8-gons on a tight hexagonal lattice
/// between four walls.
pub fn polygon_bed(n: usize, rejection: Rejection) -> Result<Simulation, String> {
    let per_row = (n as f64).sqrt().ceil() as usize;
    let h = SPACING * 3f64.sqrt() / 2.0;
    let positions: Vec<[f64; 2]> = (0..n)
        .map(|k| {
            let (row, col) = (k / per_row, k % per_row);
            let shift = if row % 2 == 1 { 0.5 * SPACING } else { 0.0 };
            [2e-3 + col as f64 * SPACING + shift, 1.5e-3 + row as f64 * h]
        })
        .collect();
    let (inits, shapes) = grains(&positions, 17)?;
    let width = 4e-3 + (per_row as f64 + 0.5) * SPACING;
    let height = 3e-3 + (n / per_row + 1) as f64 * h;
    let walls = vec![
        Wall::fixed([0.0, 0.0], [0.0, 1.0], 0),
        Wall::fixed([0.0, 0.0], [1.0, 0.0], 0),
        Wall::fixed([width, 0.0], [-1.0, 0.0], 0),
        Wall::fixed([0.0, height], [0.0, -1.0], 0),
    ];
    let (material, dt) = grain_material(&inits);
    let config = config(dt, [-0.01, -0.01], [width + 0.01, height + 0.01], rejection);
    Simulation::new_with_shapes(config, vec![material], walls, &inits, &shapes).map_err(|e| e.to_string())
}

pub fn bench_drum(a: DrumArgs) -> Result<(), String> {
    header(
        &format!(
            "talus bench-drum: random 5-8-gons in a drum of {} wall segments turning at {} rad/s",
            a.segments, a.omega
        ),
        &a.timing,
    );
    for &n in &a.sizes {
        let mut sim = drum_sim(n, a.segments, a.omega, a.timing.rejection.into())?;
        measure(&n.to_string(), &mut sim, &a.timing)?;
    }
    Ok(())
}

/// `n` random 5-8-gons filling 45 % of a drum of `segments` driven wall polygons turning at
/// `omega`, on a lattice at the bottom of the drum (they fall from there).
pub fn drum_sim(n: usize, segments: usize, omega: f64, rejection: Rejection) -> Result<Simulation, String> {
    // Inner radius for a 45 % fill by lattice area; the grains take the lowest lattice
    // sites inside the ring (clear of it by a circumradius and a half).
    let h = SPACING * 3f64.sqrt() / 2.0;
    let radius = (n as f64 * SPACING * h / (0.45 * std::f64::consts::PI)).sqrt();
    let thickness = 5e-3;
    let c = radius + thickness + 1e-3;
    let centre = [c, c];
    let inside = radius - 1.5e-3;
    let rows = (2.0 * inside / h) as i64 + 1;
    let cols = (2.0 * inside / SPACING) as i64 + 1;
    let mut sites: Vec<[f64; 2]> = (0..rows)
        .flat_map(|row| {
            let shift = if row % 2 == 1 { 0.5 * SPACING } else { 0.0 };
            (0..cols).map(move |col| [c - inside + col as f64 * SPACING + shift, c - inside + row as f64 * h])
        })
        .filter(|p| (p[0] - c).hypot(p[1] - c) <= inside)
        .collect();
    if sites.len() < n {
        return Err(format!("bench-drum: only {} lattice sites for {n} grains", sites.len()));
    }
    sites.sort_by(|p, q| p[1].total_cmp(&q[1]).then(p[0].total_cmp(&q[0])));
    sites.truncate(n);
    let (mut inits, mut shapes) = grains(&sites, 23)?;
    let drive = Drive {
        centre,
        velocity: [0.0; 2],
        omega,
        ..Drive::default()
    };
    let mut driven = Vec::new();
    for seg in generate::drum_ring(centre, radius, thickness, segments) {
        let shape = PolygonShape::new(&seg).map_err(|e| e.to_string())?;
        let id = inits.len() as u64 + 1;
        inits.push(ParticleInit {
            id,
            pos: [shape.centroid[0], shape.centroid[1]],
            angle: 0.0,
            vel: [0.0, 0.0],
            omega: [0.0],
            radius: shape.radius,
            mass: 7800.0 * shape.area,
            material: 0,
            ptype: 2,
            flags: talus_engine::flags::DRIVEN,
        });
        shapes.push(Some(shape));
        driven.push(id);
    }
    let (material, dt) = grain_material(&inits);
    let size = 2.0 * c;
    let config = config(dt, [-0.01, -0.01], [size + 0.01, size + 0.01], rejection);
    let mut sim =
        Simulation::new_with_shapes(config, vec![material], Vec::new(), &inits, &shapes).map_err(|e| e.to_string())?;
    sim.drive_particles(drive, &driven).map_err(|e| e.to_string())?;
    Ok(sim)
}
