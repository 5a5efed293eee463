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
    Ok(())
}
