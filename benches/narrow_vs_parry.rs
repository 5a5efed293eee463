//! The polygon narrow phase against parry2d-f64's distance query, on the same pairs in the
//! same run: two regular n-gons of radius 1, the second orbiting the first at centre
//! distance 2.1 and spinning (1000 configurations, 0.001 rad apart), n = 4 ... 64.
//! talus answers from the feature pair cached at the previous configuration (warm), as
//! the contact table does from step to step; parry computes each distance afresh.
//!
//! Run: `cargo bench --bench narrow_vs_parry`. Prints ns per query and the ratio; checks
//! that both give the same distances.
use std::hint::black_box;
use std::time::Instant;

use parry2d_f64::math::{Pose, Vector};
use parry2d_f64::shape::ConvexPolygon;
use talus::kernels::geometry::closest_features::{closest_features, FeaturePair, Proximity};

fn ngon(n: usize, c: [f64; 2], phase: f64) -> Vec<[f64; 2]> {
    (0..n)
        .map(|k| {
            let t = phase + std::f64::consts::TAU * k as f64 / n as f64;
            [c[0] + t.cos(), c[1] + t.sin()]
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let queries = 200_000;
    println!("{:>4} {:>16} {:>16} {:>8}", "n", "talus warm ns", "parry ns", "ratio");
    for n in [4, 8, 16, 32, 64] {
        let a = ngon(n, [0.0, 0.0], 0.1);
        let (orbit, spin): (Vec<[f64; 2]>, Vec<f64>) = (0..1000)
            .map(|k| {
                let phi = 0.001 * k as f64;
                ([2.1 * phi.cos(), 2.1 * phi.sin()], 0.3 + 0.0007 * k as f64)
            })
            .unzip();
        let world_b: Vec<Vec<[f64; 2]>> = (0..1000).map(|k| ngon(n, orbit[k], spin[k])).collect();
        // parry: the shapes in their local frames, placed by poses.
        let local = |phase: f64| -> ConvexPolygon {
            let pts: Vec<Vector> = ngon(n, [0.0, 0.0], phase)
                .iter()
                .map(|p| Vector::new(p[0], p[1]))
                .collect();
            ConvexPolygon::from_convex_polyline(pts).expect("a convex polygon")
        };
        let (pa_shape, pb_shape) = (local(0.1), local(0.0));
        let pa = Pose::identity();
        let poses: Vec<Pose> = (0..1000)
            .map(|k| Pose::new(Vector::new(orbit[k][0], orbit[k][1]), spin[k]))
            .collect();
        // Same answers.
        let mut cache = FeaturePair::START;
        for k in 0..1000 {
            let ours = match closest_features(&a, &world_b[k], &mut cache).proximity {
                Proximity::Separated { distance, .. } => distance,
                Proximity::Penetrating => 0.0,
            };
            let theirs = parry2d_f64::query::distance(&pa, &pa_shape, &poses[k], &pb_shape)
                .unwrap()
                .distance;
            assert!(
                (ours - theirs).abs() < 1e-9,
                "n = {n}, configuration {k}: talus {ours}, parry {theirs}"
            );
        }
        let (mut t_ours, mut t_parry) = (Vec::new(), Vec::new());
        for _ in 0..5 {
            let mut cache = FeaturePair::START;
            let t = Instant::now();
            for q in 0..queries {
                black_box(closest_features(&a, &world_b[q % 1000], &mut cache));
            }
            t_ours.push(t.elapsed().as_secs_f64() * 1e9 / queries as f64);
            let t = Instant::now();
            for q in 0..queries {
                black_box(parry2d_f64::query::distance(&pa, &pa_shape, &poses[q % 1000], &pb_shape).unwrap());
            }
            t_parry.push(t.elapsed().as_secs_f64() * 1e9 / queries as f64);
        }
        let (o, p) = (median(t_ours), median(t_parry));
        println!("{n:>4} {o:>16.1} {p:>16.1} {:>8.1}", p / o);
    }
}
