//! `talus bench-narrow`: time per closest-feature query of two convex polygons, cold (from
//! the first vertices) against warm (from the features of the previous, slightly moved
//! configuration), for 4 to 64 vertices (Schinner 1999, Fig. 11: with a warm cache the
//! cost should hardly grow with the number of corners); and time per overlap computation.
use std::hint::black_box;
use std::time::Instant;

use clap::Args;
use talus_kernels::geometry::closest_features::{closest_features, FeaturePair};
use talus_kernels::geometry::crossings::{overlap_clipped, overlap_tracked};
use talus_kernels::geometry::exact_overlap::overlap_exact;
use talus_kernels::geometry::overlap::{overlap_in, overlap_robust, OverlapScratch};

#[derive(Args)]
pub struct NarrowArgs {
    /// Vertex counts of both polygons.
    #[arg(long, value_delimiter = ',', default_value = "4,8,16,32,64")]
    pub vertices: Vec<usize>,
    /// Queries per measurement.
    #[arg(long, default_value_t = 200_000, value_parser = crate::arg_ranges::at_least::<usize>(1))]
    pub queries: usize,
    /// Measurements per configuration (the median is reported).
    #[arg(long, default_value_t = 5, value_parser = crate::arg_ranges::at_least::<usize>(1))]
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
        "{:>4} {:>14} {:>14} {:>10} {:>14} {:>16} {:>16} {:>10}",
        "n",
        "cold ns/query",
        "warm ns/query",
        "cold/warm",
        "warm steps/q",
        "clipped ns/call",
        "tracked ns/call",
        "from cache %"
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
        let (mut cold, mut warm, mut ov, mut tr) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut steps, mut hits, mut found) = (0u64, 0u64, 0u64);
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
            // As the simulation does it: the crossing edges cached from the last call,
            // clipping only when they no longer hold.
            let mut cache = FeaturePair::START.pack();
            (hits, found) = (0, 0);
            let t = Instant::now();
            for q in 0..a.queries {
                let pb = &overlapping[q % 1000];
                let mut hit = false;
                let o = overlap_tracked(&pa, pb, pa[0], pb[0], &mut cache, &mut s, &mut hit);
                found += o.is_some() as u64;
                black_box(o);
                hits += hit as u64;
            }
            tr.push(t.elapsed().as_secs_f64() * 1e9 / a.queries as f64);
        }
        let (c, w, o, t) = (median(cold), median(warm), median(ov), median(tr));
        println!(
            "{n:>4} {c:>14.1} {w:>14.1} {:>10.1} {:>14.2} {o:>16.1} {t:>16.1} {:>10.1}",
            c / w,
            steps as f64 / a.queries as f64,
            100.0 * hits as f64 / found.max(1) as f64
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
    // Each pair's crossings, as a lasting contact has them cached.
    let mut caches: Vec<u32> = pairs
        .iter()
        .map(|(pa, pb)| {
            let mut c = FeaturePair::START.pack();
            overlap_clipped(pa, pb, pa[0], pb[0], &mut c, &mut s);
            c
        })
        .collect();
    let (mut ov, mut tr, mut ro, mut ex) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut hits = 0u64;
    for _ in 0..repeats.max(1) {
        // The slow paths of both, where the f64 clipping cannot vouch for the area: f64
        // with exact signs (on a tenth of the calls), and all in expansions (a hundredth).
        let t = Instant::now();
        for q in 0..queries / 10 {
            let (pa, pb) = &pairs[(q * 389) % 1000];
            black_box(overlap_robust(pa, pb, pa[0], pb[0]));
        }
        ro.push(t.elapsed().as_secs_f64() * 1e9 / (queries / 10).max(1) as f64);
        let t = Instant::now();
        for q in 0..queries / 100 {
            let (pa, pb) = &pairs[(q * 389) % 1000];
            black_box(overlap_exact(pa, pb, pa[0], pb[0]));
        }
        ex.push(t.elapsed().as_secs_f64() * 1e9 / (queries / 100).max(1) as f64);
        let t = Instant::now();
        for q in 0..queries {
            let (pa, pb) = &pairs[(q * 389) % 1000];
            black_box(overlap_in(pa, pb, &mut s));
        }
        ov.push(t.elapsed().as_secs_f64() * 1e9 / queries as f64);
        hits = 0;
        let t = Instant::now();
        for q in 0..queries {
            let k = (q * 389) % 1000;
            let (pa, pb) = &pairs[k];
            let mut hit = false;
            let o = overlap_tracked(pa, pb, pa[0], pb[0], &mut caches[k], &mut s, &mut hit);
            black_box(o);
            hits += hit as u64;
        }
        tr.push(t.elapsed().as_secs_f64() * 1e9 / queries as f64);
    }
    println!(
        "random 5-8-gon pairs in shallow contact (depth 0.1-1 % of r), shuffled: clipped {:.1} ns/call, \
         tracked from the cached crossings {:.1} ns/call ({:.1} % of calls from the cache); \
         where f64 cannot vouch for the area: with exact signs {:.0} ns/call, in expansions {:.0} ns/call",
        median(ov),
        median(tr),
        100.0 * hits as f64 / queries as f64,
        median(ro),
        median(ex)
    );
    Ok(())
}
