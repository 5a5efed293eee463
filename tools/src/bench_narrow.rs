//! `talus bench-narrow`: time per closest-feature query of two convex polygons, cold (from
//! the first vertices) against warm (from the features of the previous, slightly moved
//! configuration), for 4 to 64 vertices (Schinner 1999, Fig. 11: with a warm cache the
//! cost should hardly grow with the number of corners); and time per overlap computation.
use std::hint::black_box;
use std::time::Instant;

use clap::Args;
use talus_kernels::geometry::closest_features::{closest_features, FeaturePair};
use talus_kernels::geometry::overlap::{overlap_in, OverlapScratch};

#[derive(Args)]
pub struct NarrowArgs {
    /// Vertex counts of both polygons.
    #[arg(long, value_delimiter = ',', default_value = "4,8,16,32,64")]
    pub vertices: Vec<usize>,
    /// Queries per measurement.
    #[arg(long, default_value_t = 200_000)]
    pub queries: usize,
    /// Measurements per configuration (the median is reported).
    #[arg(long, default_value_t = 5)]
    pub repeats: usize,
}

fn ngon(n: usize, c: [f64; 2], r: f64, phase: f64) -> Vec<[f64; 2]> {
    (0..n)
        .map(|k| {
            let t = phase + std::f64::consts::TAU * k as f64 / n as f64;
            [c[0] + r * t.cos(), c[1] + r * t.sin()]
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub fn bench_narrow(a: NarrowArgs) -> Result<(), String> {
    println!("talus bench-narrow: two regular n-gons (radius 1), b orbiting a at centre distance 2.1 (apart) or 1.9 (overlapping), 1 thread");
    println!(
        "{:>4} {:>14} {:>14} {:>10} {:>14} {:>16}",
        "n", "cold ns/query", "warm ns/query", "cold/warm", "warm steps/q", "overlap ns/call"
    );
    for &n in &a.vertices {
        if !(3..=64).contains(&n) {
            return Err(format!("vertex count {n} is outside 3..=64"));
        }
        let pa = ngon(n, [0.0, 0.0], 1.0, 0.1);
        // A sequence of configurations: b orbits a slowly and spins (0.001 rad per query),
        // as in a time step of a simulation.
        let configs: Vec<Vec<[f64; 2]>> = (0..1000)
            .map(|k| {
                let phi = 0.001 * k as f64;
                ngon(n, [2.1 * phi.cos(), 2.1 * phi.sin()], 1.0, 0.3 + 0.0007 * k as f64)
            })
            .collect();
        let overlapping: Vec<Vec<[f64; 2]>> = (0..1000)
            .map(|k| {
                let phi = 0.001 * k as f64;
                ngon(n, [1.9 * phi.cos(), 1.9 * phi.sin()], 1.0, 0.3 + 0.0007 * k as f64)
            })
            .collect();
        let (mut cold, mut warm, mut ov) = (Vec::new(), Vec::new(), Vec::new());
        let mut steps = 0u64;
        for _ in 0..a.repeats.max(1) {
            let t = Instant::now();
            for q in 0..a.queries {
                let mut c = FeaturePair::START;
                black_box(closest_features(&pa, &configs[q % 1000], &mut c));
            }
            cold.push(t.elapsed().as_secs_f64() * 1e9 / a.queries as f64);
            let mut c = FeaturePair::START;
            steps = 0;
            let t = Instant::now();
            for q in 0..a.queries {
                steps += black_box(closest_features(&pa, &configs[q % 1000], &mut c)).steps as u64;
            }
            warm.push(t.elapsed().as_secs_f64() * 1e9 / a.queries as f64);
            let mut s = OverlapScratch::default();
            let t = Instant::now();
            for q in 0..a.queries {
                black_box(overlap_in(&pa, &overlapping[q % 1000], &mut s));
            }
            ov.push(t.elapsed().as_secs_f64() * 1e9 / a.queries as f64);
        }
        let (c, w, o) = (median(cold), median(warm), median(ov));
        println!(
            "{n:>4} {c:>14.1} {w:>14.1} {:>10.1} {:>14.2} {o:>16.1}",
            c / w,
            steps as f64 / a.queries as f64
        );
    }
    random_pairs(a.queries, a.repeats)?;
    Ok(())
}

/// Overlap calls on 1000 random pairs of random 5-8-gons (aspect up to 1.2) in shallow
/// contact (pressed 0.1-1 % of the radius past touching), visited in a fixed shuffled
/// order: the pairs of a settled bed, where no two successive calls look alike.
fn random_pairs(queries: usize, repeats: usize) -> Result<(), String> {
    use rand::RngExt;
    use talus_engine::generate::{self, ShapeSpec};
    use talus_kernels::geometry::closest_features::Proximity;
    let mut g = generate::rng(5);
    let spec = ShapeSpec::Random {
        vertices: [5, 8],
        aspect: 1.2,
    };
    let shape = |g: &mut _| generate::polygon_vertices(&spec, 1.0, g).ok_or("no polygon");
    let place = |v: &[[f64; 2]], c: [f64; 2], phi: f64| -> Vec<[f64; 2]> {
        let (s, co) = phi.sin_cos();
        v.iter()
            .map(|p| [c[0] + co * p[0] - s * p[1], c[1] + s * p[0] + co * p[1]])
            .collect()
    };
    let mut pairs = Vec::with_capacity(1000);
    while pairs.len() < 1000 {
        let (sa, sb) = (shape(&mut g)?, shape(&mut g)?);
        let pa = place(&sa, [0.0, 0.0], g.random_range(0.0..std::f64::consts::TAU));
        let (dir, rot) = (
            g.random_range(0.0..std::f64::consts::TAU),
            g.random_range(0.0..std::f64::consts::TAU),
        );
        let at = |t: f64| place(&sb, [t * dir.cos(), t * dir.sin()], rot);
        // Bisection for the centre distance at which the polygons touch.
        let (mut lo, mut hi) = (0.0, 2.0);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            let apart = matches!(
                closest_features(&pa, &at(mid), &mut { FeaturePair::START }).proximity,
                Proximity::Separated { .. }
            );
            if apart {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let pb = at(hi - g.random_range(1e-3..1e-2));
        if overlap_in(&pa, &pb, &mut OverlapScratch::default()).is_some() {
            pairs.push((pa, pb));
        }
    }
    let mut s = OverlapScratch::default();
    let mut ov = Vec::new();
    for _ in 0..repeats.max(1) {
        let t = Instant::now();
        for q in 0..queries {
            let (pa, pb) = &pairs[(q * 389) % 1000];
            black_box(overlap_in(pa, pb, &mut s));
        }
        ov.push(t.elapsed().as_secs_f64() * 1e9 / queries as f64);
    }
    println!(
        "random 5-8-gon pairs in shallow contact (depth 0.1-1 % of r), shuffled: overlap {:.1} ns/call",
        median(ov)
    );
    Ok(())
}

/// `talus bench-polygons`: particle-updates per second on a dense bed of random convex
/// polygons (5-8 corners, circumradius 1 mm +- 20 %) packed on a hexagonal lattice a little
/// tighter than their circumradii, walled in on four sides under gravity, so that most
/// neighbours are in contact from the first step.
#[derive(Args)]
pub struct PolygonBedArgs {
    /// Numbers of polygons.
    #[arg(long, value_delimiter = ',', default_value = "10000,100000")]
    pub sizes: Vec<usize>,
    /// Timed steps (after 200 untimed ones).
    #[arg(long, default_value_t = 500)]
    pub steps: u64,
    /// Cheap rejection stages run before the closest-feature walk (Chen & Matuttis App. B).
    #[arg(long, value_enum, default_value_t = RejectionArg::Circle)]
    pub rejection: RejectionArg,
}

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

impl From<RejectionArg> for talus_engine::Rejection {
    fn from(r: RejectionArg) -> Self {
        match r {
            RejectionArg::Circle => Self::Circle,
            RejectionArg::Projection => Self::Projection,
            RejectionArg::SeparatingLine => Self::SeparatingLine,
        }
    }
}

pub fn bench_polygons(a: PolygonBedArgs) -> Result<(), String> {
    use talus_engine::generate::{self, ShapeSpec};
    use talus_engine::{
        Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, PolygonShape, Simulation, Wall,
    };
    println!("talus bench-polygons: dense bed of random 5-8-gons, 1 thread, velocity Verlet");
    println!(
        "{:>8} {:>6} {:>8} {:>10} {:>6} {:>7} {:>9}",
        "N", "steps", "wall s", "upd/s", "z", "force%", "B/p arr"
    );
    for &n in &a.sizes {
        let per_row = (n as f64).sqrt().ceil() as usize;
        let spacing = 1.5e-3;
        let h = spacing * 3f64.sqrt() / 2.0;
        let mut g = generate::rng(17);
        let spec = ShapeSpec::Random {
            vertices: [5, 8],
            aspect: 1.2,
        };
        let mut inits = Vec::with_capacity(n);
        let mut shapes = Vec::with_capacity(n);
        for k in 0..n {
            let (row, col) = (k / per_row, k % per_row);
            let x = 2e-3 + col as f64 * spacing + if row % 2 == 1 { 0.5 * spacing } else { 0.0 };
            let y = 1.5e-3 + row as f64 * h;
            use rand::RngExt;
            let r = 1e-3 * g.random_range(0.8..1.2);
            let shape =
                PolygonShape::new(&generate::polygon_vertices(&spec, r, &mut g).unwrap()).map_err(|e| e.to_string())?;
            inits.push(ParticleInit {
                id: k as u64 + 1,
                x,
                y,
                angle: g.random_range(0.0..std::f64::consts::TAU),
                vx: 0.0,
                vy: 0.0,
                omega: 0.0,
                radius: shape.radius,
                mass: 2500.0 * shape.area,
                material: 0,
                ptype: 1,
                flags: 0,
            });
            shapes.push(Some(shape));
        }
        let width = 4e-3 + (per_row as f64 + 0.5) * spacing;
        let height = 3e-3 + (n / per_row + 1) as f64 * h;
        let wall = |p: [f64; 2], nrm: [f64; 2]| Wall::fixed(p, nrm, 0);
        let walls = vec![
            wall([0.0, 0.0], [0.0, 1.0]),
            wall([0.0, 0.0], [1.0, 0.0]),
            wall([width, 0.0], [-1.0, 0.0]),
            wall([0.0, height], [0.0, -1.0]),
        ];
        let m_min = inits.iter().map(|p| p.mass).fold(f64::INFINITY, f64::min);
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
        let config = Config {
            dt,
            gravity: [0.0, -9.81],
            domain_min: [-0.01, -0.01],
            domain_max: [width + 0.01, height + 0.01],
            integrator: Integrator::Verlet,
            neighbor: NeighborMethod::Sweep,
            margin: 0.1e-3,
            every_step: false,
            sort_every: 1000,
            rejection: a.rejection.into(),
        };
        let material = Material {
            name: "grain".into(),
            density: 2500.0,
            contact,
        };
        let mut sim =
            Simulation::new_with_shapes(config, vec![material], walls, &inits, &shapes).map_err(|e| e.to_string())?;
        sim.run(200).map_err(|e| e.to_string())?;
        let t0 = sim.times;
        let start = Instant::now();
        sim.run(a.steps).map_err(|e| e.to_string())?;
        let wall_s = start.elapsed().as_secs_f64();
        let t1 = sim.times;
        let forces = 100.0 * (t1.forces - t0.forces) / (t1.total() - t0.total());
        println!(
            "{n:>8} {:>6} {wall_s:>8.3} {:>10.3e} {:>6.2} {forces:>7.1} {:>9.0}",
            a.steps,
            n as f64 * a.steps as f64 / wall_s,
            sim.contacts_per_particle(),
            sim.memory_bytes() as f64 / n as f64
        );
        let ns = sim.narrow;
        let per = |x: u64| x as f64 / (200 + a.steps) as f64;
        println!(
            "{:>8} per step: {:.0} candidates, rejected {:.0} circle, {:.0} projection, {:.0} line ({:.2} moves), \
             {:.0} walk-apart, {:.0} touching",
            "",
            per(ns.candidates),
            per(ns.circle_rejected),
            per(ns.projection_rejected),
            per(ns.line_rejected),
            ns.line_iterations as f64 / (ns.projection_tested - ns.projection_rejected).max(1) as f64,
            per(ns.separated),
            per(ns.touching)
        );
    }
    Ok(())
}
